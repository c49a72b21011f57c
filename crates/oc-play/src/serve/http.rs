//! The little HTTP/1.1 `oc play` speaks, on std's sockets: one request a connection (the answer
//! says `Connection: close`), every read and write bounded in size and in time, a bounded number
//! of connections at once. (tiny_http, used before, gave a thread to every connection with no
//! cap and no timeout, read a request's head without a bound, and panicked on a
//! `Content-Length` of 2^64-1 while dropping the request: a client without the token could end
//! or freeze the game. Nothing here can: a bad request is answered with its status and closed.)
//!
//! Connections are read on threads of their own (at most [`MAX_CONNECTIONS`]; past it the next
//! waits to be accepted until one closes or times out), each request handed to the game's
//! thread, which answers them one at a time, in the order they came.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

/// The most connections read or answered at once.
pub const MAX_CONNECTIONS: usize = 32;
/// The largest request head (request line and headers).
pub const MAX_HEAD: usize = 16 * 1024;
/// How long a client has to send its whole request, and to take the whole answer.
pub const DEADLINE: Duration = Duration::from_secs(10);

/// A request read whole.
#[derive(Debug)]
pub struct Request {
    pub method: String,
    /// The request target as sent (`/api/state?token=...`).
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Request {
    /// The first header named `name` (case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }
}

/// An answer: status, headers and body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Vec<u8>,
}

/// A request handed to the game's thread, with where its answer goes.
pub type Exchange = (Request, mpsc::Sender<Response>);

/// Why a request was not read: its status and message (answered as plain text), or nothing to
/// answer (the client went away or sent nothing in time).
#[derive(Debug, PartialEq, Eq)]
pub enum Unread {
    Refused(u16, String),
    Gone,
}

/// The listener's thread: accepts connections on `listener` until `stop` is set, each read on
/// a thread of its own and its request sent on `to_game`. Returns when stopped (the listener is
/// dropped with it).
pub fn listen(listener: TcpListener, to_game: mpsc::Sender<Exchange>, stop: Arc<AtomicBool>) {
    let open = Arc::new(AtomicUsize::new(0));
    for stream in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        // Out of file descriptors, a connection reset before it was accepted...: the next.
        let Ok(stream) = stream else {
            std::thread::sleep(Duration::from_millis(20));
            continue;
        };
        // The most at once: the next waits until one closes or times out (within `DEADLINE`).
        while open.load(Ordering::SeqCst) >= MAX_CONNECTIONS && !stop.load(Ordering::SeqCst) {
            std::thread::sleep(Duration::from_millis(10));
        }
        open.fetch_add(1, Ordering::SeqCst);
        let (to_game, done) = (to_game.clone(), open.clone());
        let spawned = std::thread::Builder::new().name("oc-play-connection".into()).spawn(move || {
            serve_one(stream, &to_game);
            done.fetch_sub(1, Ordering::SeqCst);
        });
        if spawned.is_err() {
            open.fetch_sub(1, Ordering::SeqCst);
        }
    }
    // The answers still being written (the last, `/api/quit`'s, among them) go out before the
    // server returns and the program ends: a quit's answer was lost with it (the client saw an
    // empty response). Bounded: a client that takes nothing holds it up a second at most.
    let until = Instant::now() + Duration::from_secs(1);
    while open.load(Ordering::SeqCst) > 0 && Instant::now() < until {
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Reads one request from `stream`, has the game answer it, writes the answer and closes.
fn serve_one(mut stream: TcpStream, to_game: &mpsc::Sender<Exchange>) {
    let response = match read(&mut stream, Instant::now() + DEADLINE) {
        Ok(request) => {
            let (tx, rx) = mpsc::channel();
            if to_game.send((request, tx)).is_err() {
                return;
            }
            match rx.recv() {
                Ok(r) => r,
                Err(_) => return,
            }
        }
        Err(Unread::Refused(status, message)) => {
            let _ = stream.set_write_timeout(Some(DEADLINE));
            let _ = write(&mut stream, &plain(status, &message));
            // What the client sent past what was read is read and dropped before closing, so
            // the refusal reaches it (closed with bytes unread, the connection is reset, and the
            // client may lose the answer).
            let _ = stream.shutdown(std::net::Shutdown::Write);
            let mut sink = [0u8; 4096];
            let mut drained = 0usize;
            let until = Instant::now() + Duration::from_millis(500);
            while drained < (1 << 20) {
                match read_some(&mut stream, &mut sink, until) {
                    Ok(n) if n > 0 => drained += n,
                    _ => break,
                }
            }
            return;
        }
        Err(Unread::Gone) => return,
    };
    let _ = stream.set_write_timeout(Some(DEADLINE));
    let _ = write(&mut stream, &response);
    let _ = stream.shutdown(std::net::Shutdown::Both);
}

/// A plain-text answer.
pub fn plain(status: u16, message: &str) -> Response {
    Response {
        status,
        headers: vec![("Content-Type", "text/plain; charset=utf-8".to_string())],
        body: format!("{message}\n").into_bytes(),
    }
}

/// Reads one request from `stream` by `deadline`: its head (at most [`MAX_HEAD`] bytes), then
/// its body (`Content-Length` bytes, at most `crate::serve::MAX_BODY`).
pub fn read(stream: &mut TcpStream, deadline: Instant) -> Result<Request, Unread> {
    let mut buffer: Vec<u8> = Vec::with_capacity(1024);
    let mut chunk = [0u8; 4096];
    let end = loop {
        if let Some(at) = find(&buffer, b"\r\n\r\n") {
            break at;
        }
        if buffer.len() > MAX_HEAD {
            return Err(Unread::Refused(431, format!("the request's head is longer than {MAX_HEAD} bytes")));
        }
        match read_some(stream, &mut chunk, deadline)? {
            0 => return Err(Unread::Gone),
            n => buffer.extend_from_slice(chunk.get(..n).unwrap_or_default()),
        }
    };
    if end > MAX_HEAD {
        return Err(Unread::Refused(431, format!("the request's head is longer than {MAX_HEAD} bytes")));
    }
    let head = std::str::from_utf8(buffer.get(..end).unwrap_or_default())
        .map_err(|_| Unread::Refused(400, "the request's head is not UTF-8 text".into()))?;
    let mut lines = head.split("\r\n");
    let line = lines.next().unwrap_or_default();
    let mut parts = line.split(' ');
    let (Some(method), Some(url), Some(version), None) = (parts.next(), parts.next(), parts.next(), parts.next()) else {
        return Err(Unread::Refused(400, "the request line is not `METHOD TARGET HTTP/1.x`".into()));
    };
    if !version.starts_with("HTTP/1.") || method.is_empty() || !url.starts_with('/') {
        return Err(Unread::Refused(400, "the request line is not `METHOD /TARGET HTTP/1.x`".into()));
    }
    let mut headers = Vec::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(Unread::Refused(400, "a header line has no `:`".into()));
        };
        if name.is_empty() || name.contains(' ') {
            return Err(Unread::Refused(400, "a header's name is empty or holds a space".into()));
        }
        headers.push((name.to_string(), value.trim().to_string()));
    }
    let request = Request { method: method.to_string(), url: url.to_string(), headers, body: Vec::new() };
    if request.header("transfer-encoding").is_some() {
        return Err(Unread::Refused(411, "bodies are read by their Content-Length only (no Transfer-Encoding)".into()));
    }
    let lengths: Vec<&str> =
        request.headers.iter().filter(|(k, _)| k.eq_ignore_ascii_case("content-length")).map(|(_, v)| v.as_str()).collect();
    let length = match lengths.as_slice() {
        [] => 0,
        [one] => one.parse::<u64>().map_err(|_| Unread::Refused(400, format!("Content-Length `{one}` is not a number")))?,
        _ => return Err(Unread::Refused(400, "the request has more than one Content-Length".into())),
    };
    let most = super::MAX_BODY;
    if length > most {
        return Err(Unread::Refused(413, format!("the request's body is {length} bytes; the most read is {most}")));
    }
    let length = usize::try_from(length).unwrap_or(0);
    let mut body: Vec<u8> = buffer.get(end + 4..).unwrap_or_default().to_vec();
    if body.len() > length {
        return Err(Unread::Refused(400, "more bytes came than the Content-Length says (one request a connection)".into()));
    }
    while body.len() < length {
        match read_some(stream, &mut chunk, deadline)? {
            0 => return Err(Unread::Gone),
            n => body.extend_from_slice(chunk.get(..n).unwrap_or_default()),
        }
        if body.len() > length {
            return Err(Unread::Refused(400, "more bytes came than the Content-Length says (one request a connection)".into()));
        }
    }
    Ok(Request { body, ..request })
}

/// One read by `deadline`: the bytes read (0 at the end of the stream); the deadline passed
/// or the connection failed: gone.
fn read_some(stream: &mut TcpStream, chunk: &mut [u8], deadline: Instant) -> Result<usize, Unread> {
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero() {
        return Err(Unread::Gone);
    }
    stream.set_read_timeout(Some(left)).map_err(|_| Unread::Gone)?;
    loop {
        match stream.read(chunk) {
            Ok(n) => return Ok(n),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => return Err(Unread::Gone),
        }
    }
}

/// Where `needle` first occurs in `hay`.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The reason phrase of the statuses the server answers with.
fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        403 => "Forbidden",
        404 => "Not Found",
        409 => "Conflict",
        411 => "Length Required",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "",
    }
}

/// Writes `response` whole, with its length and `Connection: close`.
pub fn write(stream: &mut TcpStream, response: &Response) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {} {}\r\n", response.status, reason(response.status));
    for (k, v) in &response.headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\nConnection: close\r\n\r\n", response.body.len()));
    stream.write_all(head.as_bytes())?;
    stream.write_all(&response.body)?;
    stream.flush()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::panic)]
    use super::*;

    /// A request sent on a real connection, read by [`read`]; what the client sent first.
    fn read_sent(sent: &[u8]) -> Result<Request, Unread> {
        let listener = TcpListener::bind("127.0.0.1:0").map_err(|_| Unread::Gone)?;
        let addr = listener.local_addr().map_err(|_| Unread::Gone)?;
        let sent = sent.to_vec();
        let client = std::thread::spawn(move || {
            let mut s = TcpStream::connect(addr).ok()?;
            s.write_all(&sent).ok()?;
            std::thread::sleep(Duration::from_millis(300));
            Some(())
        });
        let (mut stream, _) = listener.accept().map_err(|_| Unread::Gone)?;
        let read = read(&mut stream, Instant::now() + Duration::from_millis(200));
        let _ = client.join();
        read
    }

    fn refused(r: Result<Request, Unread>) -> u16 {
        match r {
            Err(Unread::Refused(status, _)) => status,
            other => panic!("not refused: {other:?}"),
        }
    }

    #[test]
    fn requests_are_read_whole_within_bounds_and_refused_past_them() {
        let ok = read_sent(b"POST /api/move?token=t HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\n{}").unwrap();
        assert_eq!((ok.method.as_str(), ok.url.as_str(), ok.body.as_slice()), ("POST", "/api/move?token=t", &b"{}"[..]));
        assert_eq!(ok.header("HOST"), Some("x"));
        // A length past any body, past u64, two lengths, chunked: refused, not read.
        assert_eq!(refused(read_sent(b"GET / HTTP/1.1\r\nContent-Length: 18446744073709551615\r\n\r\n")), 413);
        assert_eq!(refused(read_sent(b"GET / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n")), 400);
        assert_eq!(refused(read_sent(b"GET / HTTP/1.1\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n")), 400);
        assert_eq!(refused(read_sent(b"POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")), 411);
        let big = format!("POST / HTTP/1.1\r\nContent-Length: {}\r\n\r\n", crate::serve::MAX_BODY + 1);
        assert_eq!(refused(read_sent(big.as_bytes())), 413);
        // A head that never ends: refused at its bound.
        let long = format!("GET / HTTP/1.1\r\nX: {}", "a".repeat(MAX_HEAD + 10));
        assert_eq!(refused(read_sent(long.as_bytes())), 431);
        // Garbage, and a body longer than said.
        assert_eq!(refused(read_sent(b"HELLO\r\n\r\n")), 400);
        assert_eq!(refused(read_sent(b"GET / HTTP/1.1\r\nContent-Length: 1\r\n\r\nab")), 400);
        // Nothing, or a body that never comes: gone when the deadline passes.
        assert!(matches!(read_sent(b""), Err(Unread::Gone)));
        assert!(matches!(read_sent(b"POST / HTTP/1.1\r\nContent-Length: 5\r\n\r\nab"), Err(Unread::Gone)));
    }
}
