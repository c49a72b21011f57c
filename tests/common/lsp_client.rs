//! A minimal LSP client for tests and benchmarks: spawns `oc lsp`, speaks JSON-RPC with
//! Content-Length framing, keeps the notifications it reads while waiting for a response.
#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

pub struct Client {
    child: Child,
    stdin: ChildStdin,
    inbox: Receiver<Value>,
    next_id: i64,
    /// Notifications received while waiting for something else.
    pub notes: Vec<Value>,
}

fn read_message(r: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if r.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(v) = line.strip_prefix("Content-Length: ") {
            length = v.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    r.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

impl Client {
    pub fn start(oc: &Path, cache: &Path) -> Client {
        let mut child = Command::new(oc)
            .arg("lsp")
            .env("XDG_CACHE_HOME", cache)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let (tx, inbox) = mpsc::channel();
        std::thread::spawn(move || {
            while let Some(m) = read_message(&mut stdout) {
                if tx.send(m).is_err() {
                    break;
                }
            }
        });
        Client { child, stdin, inbox, next_id: 0, notes: Vec::new() }
    }

    pub fn send(&mut self, value: Value) {
        let body = value.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    /// Bytes as they are: a broken header, a body that is not JSON.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        self.stdin.write_all(bytes).unwrap();
        self.stdin.flush().unwrap();
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The next message `wanted` accepts (the ones before it kept in `notes`).
    pub fn next_matching(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(i) = self.notes.iter().position(&wanted) {
            return self.notes.remove(i);
        }
        loop {
            let m = self.next();
            if wanted(&m) {
                return m;
            }
            self.notes.push(m);
        }
    }

    /// `exit` without `shutdown`: the status the server ends with.
    pub fn exit_without_shutdown(mut self) -> std::process::ExitStatus {
        self.notify("exit", Value::Null);
        self.child.wait().unwrap()
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({"jsonrpc": "2.0", "method": method, "params": params}));
    }

    fn next(&mut self) -> Value {
        self.inbox.recv_timeout(Duration::from_secs(60)).expect("the server answers within a minute")
    }

    /// The whole response (`result` or `error`) to a request.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let m = self.next();
            if m["id"] == json!(id) && m.get("method").is_none() {
                return m;
            }
            self.notes.push(m);
        }
    }

    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.call(method, params);
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// The next diagnostics published for `uri` (ones already received first).
    pub fn diagnostics(&mut self, uri: &str) -> Value {
        if let Some(i) =
            self.notes.iter().position(|n| n["method"] == "textDocument/publishDiagnostics" && n["params"]["uri"] == uri)
        {
            return self.notes.remove(i)["params"].clone();
        }
        loop {
            let m = self.next();
            if m["method"] == "textDocument/publishDiagnostics" && m["params"]["uri"] == uri {
                return m["params"].clone();
            }
            self.notes.push(m);
        }
    }

    pub fn shutdown(mut self) -> std::process::ExitStatus {
        assert_eq!(self.request("shutdown", Value::Null), Value::Null);
        self.notify("exit", Value::Null);
        self.child.wait().unwrap()
    }
}

pub fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}
