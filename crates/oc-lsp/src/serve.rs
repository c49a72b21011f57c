//! The main loop: reads messages until `exit`, answers requests through [`crate::requests`],
//! hands notifications to [`crate::handlers`], and survives a panic in either.

use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::jsonrpc::{ErrorCode, Message, Response, INTERNAL_ERROR};
use crate::server::Server;
use crate::transport::{Connection, Incoming};
use crate::Config;

/// Where the conversation is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before `initialize`: requests are refused (`ServerNotInitialized`).
    Starting,
    Running,
    /// After `shutdown`: only `exit` is expected.
    ShuttingDown,
}

/// Serves `connection` until `exit` or the end of its input. The exit status: 0 after
/// `shutdown` then `exit`, 1 when the client exits (or leaves) without `shutdown`.
pub fn main_loop(connection: &Connection, config: &Config) -> u8 {
    let (mut server, checker) = Server::start(connection.sender.clone(), config);
    let status = serve(&mut server, connection);
    // The checker ends once the server (its job sender) is gone.
    drop(server);
    let _ = checker.join();
    status
}

fn serve(server: &mut Server, connection: &Connection) -> u8 {
    let mut phase = Phase::Starting;
    while let Ok(incoming) = connection.receiver.recv() {
        let message = match incoming {
            Incoming::Refused(refused) => {
                server.log_at(1, &format!("oc lsp: {}", refused.message));
                server.send(Message::Response(refused.response()));
                continue;
            }
            Incoming::Message { message, note } => {
                if let Some(note) = note {
                    server.log_at(2, &format!("oc lsp: {note}"));
                }
                message
            }
        };
        match message {
            Message::Request(request) => {
                let response = match (phase, request.method.as_str()) {
                    (Phase::Starting, "initialize") => {
                        phase = Phase::Running;
                        Response::ok(request.id, crate::initialize_result())
                    }
                    (Phase::Starting, _) => Response::new_err(
                        request.id,
                        ErrorCode::ServerNotInitialized as i32,
                        "the server is not initialized: send `initialize` first".to_string(),
                    ),
                    (Phase::ShuttingDown, _) => Response::new_err(
                        request.id,
                        ErrorCode::InvalidRequest as i32,
                        "the server is shutting down: only `exit` is expected".to_string(),
                    ),
                    (Phase::Running, "shutdown") => {
                        phase = Phase::ShuttingDown;
                        Response::ok(request.id, serde_json::Value::Null)
                    }
                    (Phase::Running, "initialize") => Response::new_err(
                        request.id,
                        ErrorCode::InvalidRequest as i32,
                        "the server is already initialized".to_string(),
                    ),
                    (Phase::Running, _) => {
                        let id = request.id.clone();
                        catch_unwind(AssertUnwindSafe(|| crate::requests::request(server, request))).unwrap_or_else(|_| {
                            Response::new_err(id, ErrorCode::InternalError as i32, INTERNAL_ERROR.to_string())
                        })
                    }
                };
                server.send(Message::Response(response));
            }
            Message::Notification(n) => {
                if n.method == "exit" {
                    return if phase == Phase::ShuttingDown { 0 } else { 1 };
                }
                if phase == Phase::Running {
                    guarded(server, |server| crate::handlers::notification(server, n));
                }
            }
            Message::Response(_) => {}
        }
    }
    // The input ended without `exit`.
    if phase == Phase::ShuttingDown {
        0
    } else {
        1
    }
}

/// Runs `f`, surviving a panic (the server never dies on bad input), which is logged as the
/// internal error it is.
fn guarded(server: &mut Server, f: impl FnOnce(&mut Server)) {
    if catch_unwind(AssertUnwindSafe(|| f(server))).is_err() {
        server.log_at(1, INTERNAL_ERROR);
    }
}
