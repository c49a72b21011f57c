//! The wire: LSP's base protocol (`Content-Length: N`, a blank line, N bytes of JSON) read and
//! written on threads of their own, so the main loop only ever sees whole messages.
//!
//! **Invariant:** nothing the client sends ends the reader but the end of its input. A message
//! is at most [`MAX_MESSAGE_BYTES`] (the source cap: no file a message carries could be checked
//! beyond it), and its buffer grows only as its bytes arrive, so a header cannot make the server
//! allocate. Whatever cannot be read — a header that is not one, no `Content-Length`, a length
//! over the cap, a body that is not JSON or is no JSON-RPC message — is answered with a
//! JSON-RPC error (`ParseError` or `InvalidRequest`) and the reader goes on: after a framing
//! error it skips to the next `Content-Length:` it sees, and a run of garbage is answered once.
//! Headers may end in `\r\n` or a bare `\n`. Bytes that are not UTF-8 and lone UTF-16
//! surrogate escapes (`\ud83d`) are read as U+FFFD, with a note the server logs.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use serde_json::Value;

use crate::jsonrpc::{classify, replace_lone_surrogates, ErrorCode, Message, Refused};

/// The most bytes one message may have: the project's source cap.
pub const MAX_MESSAGE_BYTES: u64 = oc_project::limits::MAX_SOURCE_BYTES;
/// The most bytes one header line may have.
const MAX_HEADER_LINE: usize = 8 * 1024;
/// What a resynchronising reader looks for (compared without case).
const HEADER: &[u8] = b"content-length:";

/// What the reader hands the main loop.
#[derive(Debug)]
pub enum Incoming {
    /// A message, with a note when something in it had to be repaired to be read.
    Message { message: Message, note: Option<String> },
    /// Something that is not a message: answer it with this error.
    Refused(Refused),
}

/// Reads messages from a byte stream (see the module's documentation for what it survives).
pub struct Reader<R> {
    input: R,
    cap: u64,
    queue: VecDeque<Incoming>,
    /// Set after a framing error until a message is read: further garbage is not answered again,
    /// and the next read starts by skipping to a header.
    lost: bool,
    skip: bool,
}

enum Line {
    Text(String),
    /// A line longer than a header may be (its rest is still unread).
    TooLong,
}

impl<R: BufRead> Reader<R> {
    pub fn new(input: R) -> Reader<R> {
        Reader::with_cap(input, MAX_MESSAGE_BYTES)
    }

    pub fn with_cap(input: R, cap: u64) -> Reader<R> {
        Reader { input, cap, queue: VecDeque::new(), lost: false, skip: false }
    }

    /// The next message or error to answer; `None` at the end of the input.
    pub fn next_incoming(&mut self) -> Option<Incoming> {
        loop {
            if let Some(incoming) = self.queue.pop_front() {
                return Some(incoming);
            }
            self.read_one()?;
        }
    }

    /// A framing error: answered unless one was answered since the last good message; the
    /// next read skips to a header.
    fn lose(&mut self, why: String) {
        if !self.lost {
            self.queue.push_back(Incoming::Refused(Refused {
                id: None,
                code: ErrorCode::ParseError,
                message: format!("{why}; the input up to the next `Content-Length:` header was skipped"),
            }));
        }
        self.lost = true;
        self.skip = true;
    }

    /// Reads one frame, queueing what it gives; `None` at the end of the input.
    fn read_one(&mut self) -> Option<()> {
        let mut length: Option<Result<u64, String>> = None;
        let mut seen_header = false;
        if std::mem::take(&mut self.skip) {
            self.skip_to_header()?;
            length = Some(self.length_value()?);
            seen_header = true;
        }
        loop {
            let line = match self.line()? {
                Line::Text(line) => line,
                Line::TooLong => {
                    self.lose(format!("a header line is over {MAX_HEADER_LINE} bytes"));
                    return Some(());
                }
            };
            let line = line.strip_suffix('\r').unwrap_or(&line);
            if line.is_empty() {
                if seen_header {
                    break;
                }
                // Blank lines between messages are tolerated.
                continue;
            }
            seen_header = true;
            let header = match find_header(line.as_bytes()) {
                Some(0) => Some(line),
                Some(at) => {
                    // Garbage, then a header on the same line: answer the garbage, keep the header.
                    let garbage = line.get(..at).unwrap_or("");
                    self.lose_in_place(format!("`{}` is not a header", shorten(garbage)));
                    line.get(at..)
                }
                None => None,
            };
            match header {
                // Two lengths that differ: which one frames the message is unknowable (the last
                // one won, and the messages after it were swallowed): neither is trusted.
                Some(h) => {
                    let this = parse_length(h.get(HEADER.len()..).unwrap_or(""));
                    length = match (length, this) {
                        (Some(Ok(a)), Ok(b)) if a != b => {
                            Some(Err(format!("a message with two `Content-Length` headers ({a} and {b})")))
                        }
                        (Some(Err(why)), _) => Some(Err(why)),
                        (_, this) => Some(this),
                    };
                }
                None if is_header(line) => {} // Content-Type and others: nothing to do
                None => {
                    self.lose(format!("`{}` is not a header", shorten(line)));
                    return Some(());
                }
            }
        }
        let length = match length {
            Some(Ok(n)) => n,
            Some(Err(why)) => {
                self.lose(why);
                return Some(());
            }
            None => {
                self.lose("a message without a `Content-Length` header".to_string());
                return Some(());
            }
        };
        if length > self.cap {
            self.lose(format!(
                "a message of {length} bytes is over the cap of {} bytes (oc's source cap), so it was not read",
                self.cap
            ));
            return Some(());
        }
        let mut body = Vec::with_capacity((length as usize).min(64 * 1024));
        let read = (&mut self.input).take(length).read_to_end(&mut body).ok()?;
        if (read as u64) < length {
            // The input ended inside the message.
            return None;
        }
        self.lost = false;
        self.queue.push_back(decode(body));
        Some(())
    }

    /// Like [`Reader::lose`], but the header found on the same line is read on at once.
    fn lose_in_place(&mut self, why: String) {
        if !self.lost {
            self.queue.push_back(Incoming::Refused(Refused {
                id: None,
                code: ErrorCode::ParseError,
                message: format!("{why}; it was skipped"),
            }));
        }
    }

    /// The rest of a `Content-Length:` line just found.
    fn length_value(&mut self) -> Option<Result<u64, String>> {
        Some(match self.line()? {
            Line::Text(value) => parse_length(value.strip_suffix('\r').unwrap_or(&value)),
            Line::TooLong => Err(format!("a header line is over {MAX_HEADER_LINE} bytes")),
        })
    }

    /// One line without its `\n`, at most [`MAX_HEADER_LINE`] bytes; `None` at the end of input.
    fn line(&mut self) -> Option<Line> {
        let mut out: Vec<u8> = Vec::new();
        loop {
            let buf = self.input.fill_buf().ok()?;
            if buf.is_empty() {
                return None;
            }
            let newline = buf.iter().position(|&b| b == b'\n');
            let take = newline.unwrap_or(buf.len());
            let room = MAX_HEADER_LINE - out.len();
            if take > room {
                self.input.consume(room);
                return Some(Line::TooLong);
            }
            out.extend_from_slice(buf.get(..take).unwrap_or_default());
            match newline {
                Some(n) => {
                    self.input.consume(n + 1);
                    return Some(Line::Text(String::from_utf8_lossy(&out).into_owned()));
                }
                None => {
                    let n = buf.len();
                    self.input.consume(n);
                }
            }
        }
    }

    /// Discards input up to and including the next `Content-Length:` (any case); `None` when
    /// the input ends first. Streams: nothing skipped is kept.
    fn skip_to_header(&mut self) -> Option<()> {
        let mut matched = 0usize;
        loop {
            let buf = self.input.fill_buf().ok()?;
            if buf.is_empty() {
                return None;
            }
            let mut used = 0;
            let mut found = false;
            for &b in buf {
                used += 1;
                let b = b.to_ascii_lowercase();
                if HEADER.get(matched) == Some(&b) {
                    matched += 1;
                    if matched == HEADER.len() {
                        found = true;
                        break;
                    }
                } else {
                    matched = usize::from(HEADER.first() == Some(&b));
                }
            }
            self.input.consume(used);
            if found {
                return Some(());
            }
        }
    }
}

/// Where `Content-Length:` starts in a line (any case).
fn find_header(line: &[u8]) -> Option<usize> {
    line.windows(HEADER.len()).position(|w| w.eq_ignore_ascii_case(HEADER))
}

/// Whether a line is a `Name: value` header (a name of visible ASCII without spaces).
fn is_header(line: &str) -> bool {
    line.split_once(':').is_some_and(|(name, _)| !name.is_empty() && name.bytes().all(|b| b.is_ascii_graphic()))
}

fn parse_length(value: &str) -> Result<u64, String> {
    let value = value.trim();
    value.parse::<u64>().map_err(|_| format!("`Content-Length: {}` is not a length", shorten(value)))
}

/// At most 40 characters of garbage, for a message.
fn shorten(text: &str) -> String {
    let mut out: String = text.chars().take(40).flat_map(char::escape_debug).collect();
    if text.chars().count() > 40 {
        out.push_str("...");
    }
    out
}

/// A body to a message, repaired where it can be, or the error to answer.
fn decode(body: Vec<u8>) -> Incoming {
    let mut notes: Vec<String> = Vec::new();
    let text = match String::from_utf8(body) {
        Ok(text) => text,
        Err(e) => {
            notes.push(format!(
                "bytes that are not UTF-8 (the first at byte {}) were read as U+FFFD",
                e.utf8_error().valid_up_to()
            ));
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    let repaired = replace_lone_surrogates(&text);
    if matches!(repaired, std::borrow::Cow::Owned(_)) {
        notes.push("lone UTF-16 surrogate escapes (half a character, such as `\\ud83d`) were read as U+FFFD".to_string());
    }
    let note = (!notes.is_empty()).then(|| format!("a message was repaired: {}", notes.join("; ")));
    let value: Value = match serde_json::from_str(&repaired) {
        Ok(v) => v,
        Err(e) => {
            let mut message = format!("parse error: the message is not JSON ({e})");
            if let Some(n) = &note {
                message.push_str(&format!("; {n}"));
            }
            return Incoming::Refused(Refused { id: None, code: ErrorCode::ParseError, message });
        }
    };
    match classify(value) {
        Ok(message) => Incoming::Message { message, note },
        Err(refused) => Incoming::Refused(refused),
    }
}

/// Writes one message with its header.
pub fn write(out: &mut impl Write, message: &Message) -> std::io::Result<()> {
    let body = message.to_json();
    write!(out, "Content-Length: {}\r\n\r\n{body}", body.len())?;
    out.flush()
}

/// The server's ends of a connection: messages to send, and what the client sent.
pub struct Connection {
    pub sender: Sender<Message>,
    pub receiver: Receiver<Incoming>,
}

/// The writer thread, to be joined once every sender is dropped (so that all is written).
pub struct IoThreads {
    writer: JoinHandle<()>,
}

impl IoThreads {
    pub fn join(self) {
        let _ = self.writer.join();
    }
}

/// A connection over any byte streams: a reader thread and a writer thread. The reader ends at
/// the end of its input or after an `exit` notification; the writer when every sender is gone.
/// A writer whose output fails (the client closed it) keeps draining, so nothing blocks on it.
pub fn connect<I, O>(input: I, output: O) -> (Connection, IoThreads)
where
    I: Read + Send + 'static,
    O: Write + Send + 'static,
{
    let (reader_tx, receiver) = crossbeam_channel::bounded::<Incoming>(4);
    let (sender, writer_rx) = crossbeam_channel::bounded::<Message>(64);
    std::thread::spawn(move || {
        let mut reader = Reader::new(BufReader::new(input));
        while let Some(incoming) = reader.next_incoming() {
            let exit = matches!(&incoming, Incoming::Message { message: Message::Notification(n), .. } if n.method == "exit");
            if reader_tx.send(incoming).is_err() || exit {
                break;
            }
        }
    });
    let writer = std::thread::spawn(move || {
        let mut output = output;
        let mut failed = false;
        for message in writer_rx {
            if !failed && write(&mut output, &message).is_err() {
                failed = true;
            }
        }
    });
    (Connection { sender, receiver }, IoThreads { writer })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use serde_json::json;

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    const GOOD: &str = r#"{"jsonrpc":"2.0","id":1,"method":"m"}"#;

    /// What a reader makes of `input`: `ok` for each message, the error code for each refusal.
    fn read(input: &[u8], cap: u64) -> Vec<String> {
        let mut reader = Reader::with_cap(input, cap);
        let mut out = Vec::new();
        while let Some(i) = reader.next_incoming() {
            out.push(match i {
                Incoming::Message { note: None, .. } => "ok".to_string(),
                Incoming::Message { note: Some(_), .. } => "repaired".to_string(),
                Incoming::Refused(r) => format!("{}", r.code as i32),
            });
        }
        out
    }

    #[test]
    fn framing_survives_what_clients_get_wrong() {
        let good = frame(GOOD);
        // A bare `\n` after headers.
        let bare = format!("Content-Length: {}\n\n{GOOD}", GOOD.len());
        assert_eq!(read(format!("{bare}{good}").as_bytes(), 1000), ["ok", "ok"]);
        // Lengths no one could send: over the cap, refused without reading, then on.
        for huge in ["18446744073709551615", "200000000000", "2000000000", "1001"] {
            let input = format!("Content-Length: {huge}\r\n\r\n{GOOD}{good}");
            assert_eq!(read(input.as_bytes(), 1000), ["-32700", "ok"], "{huge}");
        }
        // Not a number, no length at all, garbage lines: one answer, then the next message.
        let input = format!("Content-Length: lots\r\n\r\n{GOOD}{good}");
        assert_eq!(read(input.as_bytes(), 1000), ["-32700", "ok"]);
        let input = format!("Content-Type: x\r\n\r\n{GOOD}{good}");
        assert_eq!(read(input.as_bytes(), 1000), ["-32700", "ok"]);
        let input = format!("hello\nthere\nfriend\n{good}{good}");
        assert_eq!(read(input.as_bytes(), 1000), ["-32700", "ok", "ok"]);
        let input = format!("{}{good}", "x".repeat(20_000));
        assert_eq!(read(input.as_bytes(), 1000), ["-32700", "ok"]);
        // Two lengths that differ: neither trusted, one answer, then the next message (the last
        // one framed the message, swallowing the ones after it).
        let input = format!("Content-Length: 2\r\nContent-Length: 9999\r\n\r\n{GOOD}{good}");
        assert_eq!(read(input.as_bytes(), 100_000), ["-32700", "ok"]);
        let input = format!("Content-Length: {0}\r\nContent-Length: {0}\r\n\r\n{GOOD}", GOOD.len());
        assert_eq!(read(input.as_bytes(), 1000), ["ok"]);
        // Case and a Content-Type beside it are fine.
        let input =
            format!("content-length: {}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n{GOOD}", GOOD.len());
        assert_eq!(read(input.as_bytes(), 1000), ["ok"]);
        // Bodies: not JSON, not UTF-8, no JSON-RPC message, a lone surrogate.
        let input = format!("{}{}{good}", frame("{not json"), frame("[1]"));
        assert_eq!(read(input.as_bytes(), 1000), ["-32700", "-32600", "ok"]);
        let mut bytes = frame(r#"{"jsonrpc":"2.0","method":"n","params":"a?b"}"#).into_bytes();
        let at = bytes.iter().position(|&b| b == b'?').unwrap();
        bytes[at] = 0xff;
        bytes.extend_from_slice(good.as_bytes());
        assert_eq!(read(&bytes, 1000), ["repaired", "ok"]);
        let input = format!("{}{good}", frame(r#"{"jsonrpc":"2.0","method":"n","params":"\ud83d"}"#));
        assert_eq!(read(input.as_bytes(), 1000), ["repaired", "ok"]);
        // Cut short: the end of input, no message.
        assert_eq!(read(b"Content-Length: 10\r\n\r\n{}", 1000), Vec::<String>::new());
    }

    #[test]
    fn a_huge_length_allocates_nothing() {
        // The reader grows a buffer only as bytes arrive: with 10 bytes of input a length of a
        // terabyte within the cap reads those and stops at the end of input.
        let input = b"Content-Length: 1000000000000\r\n\r\n0123456789";
        assert_eq!(read(input, u64::MAX), Vec::<String>::new());
    }

    #[test]
    fn messages_written_with_their_length() {
        let mut out = Vec::new();
        let m = Message::Response(crate::jsonrpc::Response::ok(crate::jsonrpc::RequestId::from(1), json!(null)));
        write(&mut out, &m).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text, "Content-Length: 38\r\n\r\n{\"id\":1,\"jsonrpc\":\"2.0\",\"result\":null}");
    }
}
