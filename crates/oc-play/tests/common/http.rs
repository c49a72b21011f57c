//! `oc play`'s server over real HTTP on 127.0.0.1, for the tests that drive it: one request,
//! a client with the game's token, and a session served on a thread while a client plays.

use std::io::{Read, Write};
use std::net::TcpStream;

use oc_play::serve::{self, Server};
use oc_play::session::Session;
use serde_json::Value;

pub const TOKEN: &str = "test-token-0123456789";

/// One HTTP request; (status, JSON body).
pub fn request(port: u16, method: &str, path: &str, body: Option<&Value>, headers: &[(&str, String)]) -> (u16, Value) {
    let mut s = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let body = body.map(|b| b.to_string()).unwrap_or_default();
    let mut req = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\nContent-Length: {}\r\n", body.len());
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    req.push_str(&body);
    s.write_all(req.as_bytes()).unwrap();
    let mut out = String::new();
    s.read_to_string(&mut out).unwrap();
    let status: u16 = out.split_whitespace().nth(1).unwrap().parse().unwrap();
    let text = out.split_once("\r\n\r\n").map(|(_, b)| b).unwrap_or("");
    (status, serde_json::from_str(text).unwrap_or(Value::String(text.to_string())))
}

/// A client of one server: the right Host and token.
pub struct Client {
    pub port: u16,
}

impl Client {
    pub fn headers(&self) -> Vec<(&'static str, String)> {
        vec![("Host", format!("127.0.0.1:{}", self.port)), ("X-OC-Token", TOKEN.to_string())]
    }
    pub fn get(&self, path: &str) -> (u16, Value) {
        request(self.port, "GET", path, None, &self.headers())
    }
    pub fn post(&self, path: &str, body: Value) -> (u16, Value) {
        request(self.port, "POST", path, Some(&body), &self.headers())
    }
    pub fn ok(&self, path: &str, body: Value) -> Value {
        let (status, v) = self.post(path, body.clone());
        assert_eq!(status, 200, "{path} {body}: {v}");
        v
    }
}

/// Serves `session` on a thread while `client` plays; the session's log lines at the end.
pub fn serve<'s>(
    session: &mut Session<'s>,
    log: Option<oc_project::output::Target>,
    client: impl FnOnce(&Client),
) -> Vec<String> {
    let server = Server::bind(serve::Options { port: None, token: Some(TOKEN.into()), log }).unwrap();
    let c = Client { port: server.port() };
    std::thread::scope(|scope| {
        let s = &mut *session;
        let running = scope.spawn(move || server.run(s, &|line: &str| eprintln!("{line}")));
        // A failing client still stops the server, or the scope would wait on it for ever.
        let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| client(&c)));
        let (status, _) = c.post("/api/quit", serde_json::json!({}));
        let ended = running.join().unwrap();
        if let Err(panic) = played {
            std::panic::resume_unwind(panic);
        }
        assert_eq!(status, 200);
        assert!(ended.log_error.is_none(), "{:?}", ended.log_error);
    });
    session.lines()
}
