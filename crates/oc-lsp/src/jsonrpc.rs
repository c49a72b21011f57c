//! JSON-RPC 2.0 messages as the language server reads and writes them: requests, responses and
//! notifications, and what makes a JSON value one of them (or an error to answer with).
//!
//! Read leniently where nothing is lost (a missing `"jsonrpc"`, `params` left out), strictly
//! where guessing would be wrong (an `id` that is neither an integer nor a string, a `method`
//! that is not a string): those are answered with `InvalidRequest`, never fatal.

use serde_json::{json, Map, Value};

/// The error codes JSON-RPC and LSP define that the server answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorCode {
    ParseError = -32700,
    InvalidRequest = -32600,
    MethodNotFound = -32601,
    InvalidParams = -32602,
    InternalError = -32603,
    ServerNotInitialized = -32002,
    RequestCanceled = -32800,
    RequestFailed = -32803,
}

/// What a request that panicked is answered with, and what the log says when a notification
/// or a check panicked.
pub const INTERNAL_ERROR: &str = "oc lsp: internal error (a bug: please report it)";

/// A request's id: an integer or a string, echoed as the client wrote it.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RequestId(Value);

impl RequestId {
    /// The id of a JSON value, if it is one an id may be (an integer or a string).
    pub fn from_value(value: &Value) -> Option<RequestId> {
        match value {
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(RequestId(value.clone())),
            Value::String(_) => Some(RequestId(value.clone())),
            _ => None,
        }
    }

    pub fn value(&self) -> &Value {
        &self.0
    }
}

impl From<i64> for RequestId {
    fn from(n: i64) -> RequestId {
        RequestId(Value::from(n))
    }
}

#[derive(Clone, Debug)]
pub struct Request {
    pub id: RequestId,
    pub method: String,
    pub params: Value,
}

#[derive(Clone, Debug)]
pub struct Notification {
    pub method: String,
    pub params: Value,
}

impl Notification {
    pub fn new(method: impl Into<String>, params: impl serde::Serialize) -> Notification {
        Notification { method: method.into(), params: serde_json::to_value(params).unwrap_or(Value::Null) }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct ResponseError {
    pub code: i32,
    pub message: String,
}

/// An answer. `id` is `None` only for an error about a message whose id could not be read
/// (written as `"id": null`, as JSON-RPC asks).
#[derive(Clone, Debug)]
pub struct Response {
    pub id: Option<RequestId>,
    pub result: Option<Value>,
    pub error: Option<ResponseError>,
}

impl Response {
    pub fn ok(id: RequestId, result: Value) -> Response {
        Response { id: Some(id), result: Some(result), error: None }
    }

    pub fn new_err(id: RequestId, code: i32, message: String) -> Response {
        Response { id: Some(id), result: None, error: Some(ResponseError { code, message }) }
    }

    /// An error about a message whose id is unknown (or that had none).
    pub fn error(id: Option<RequestId>, code: ErrorCode, message: String) -> Response {
        Response { id, result: None, error: Some(ResponseError { code: code as i32, message }) }
    }
}

#[derive(Clone, Debug)]
pub enum Message {
    Request(Request),
    Response(Response),
    Notification(Notification),
}

impl Message {
    /// The message as JSON text (what goes after the header).
    pub fn to_json(&self) -> String {
        let value = match self {
            Message::Request(r) => json!({"jsonrpc": "2.0", "id": r.id.value(), "method": r.method, "params": r.params}),
            Message::Notification(n) => json!({"jsonrpc": "2.0", "method": n.method, "params": n.params}),
            Message::Response(r) => {
                let mut m = Map::new();
                m.insert("jsonrpc".into(), "2.0".into());
                m.insert("id".into(), r.id.as_ref().map_or(Value::Null, |id| id.value().clone()));
                match &r.error {
                    Some(e) => {
                        m.insert("error".into(), json!({"code": e.code, "message": e.message}));
                    }
                    None => {
                        m.insert("result".into(), r.result.clone().unwrap_or(Value::Null));
                    }
                }
                Value::Object(m)
            }
        };
        value.to_string()
    }
}

/// A message that could not be taken: what to answer (`id` when it could be read).
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    pub id: Option<RequestId>,
    pub code: ErrorCode,
    pub message: String,
}

impl Refused {
    pub fn response(&self) -> Response {
        Response::error(self.id.clone(), self.code, self.message.clone())
    }
}

fn invalid(id: Option<RequestId>, message: impl Into<String>) -> Refused {
    Refused { id, code: ErrorCode::InvalidRequest, message: message.into() }
}

/// What a JSON value is as a JSON-RPC message.
pub fn classify(value: Value) -> Result<Message, Refused> {
    let Value::Object(mut object) = value else {
        let what = match value {
            Value::Array(_) => "a batch (an array); oc lsp takes one message at a time",
            Value::Null => "null",
            Value::Bool(_) => "a boolean",
            Value::Number(_) => "a number",
            Value::String(_) => "a string",
            Value::Object(_) => "an object",
        };
        return Err(invalid(None, format!("invalid request: expected a JSON-RPC object, found {what}")));
    };
    let raw_id = object.remove("id");
    let id = match &raw_id {
        None => None,
        Some(v) => match RequestId::from_value(v) {
            Some(id) => Some(id),
            None if v.is_null() && !object.contains_key("method") => None,
            None => return Err(invalid(None, format!("invalid request: `id` must be an integer or a string, not {v}"))),
        },
    };
    if let Some(version) = object.get("jsonrpc") {
        if version != "2.0" {
            return Err(invalid(id, format!("invalid request: `jsonrpc` must be \"2.0\", not {version}")));
        }
    }
    let params = object.remove("params").unwrap_or(Value::Null);
    match object.remove("method") {
        Some(Value::String(method)) => Ok(match id {
            Some(id) => Message::Request(Request { id, method, params }),
            None => Message::Notification(Notification { method, params }),
        }),
        Some(other) => Err(invalid(id, format!("invalid request: `method` must be a string, not {other}"))),
        None => {
            let result = object.remove("result");
            let error = object.remove("error");
            if raw_id.is_some() && (result.is_some() || error.is_some()) {
                let error = error.map(|e| ResponseError {
                    code: e.get("code").and_then(Value::as_i64).map_or(0, |c| c as i32),
                    message: e.get("message").and_then(Value::as_str).unwrap_or("").to_string(),
                });
                Ok(Message::Response(Response { id, result, error }))
            } else {
                Err(invalid(id, "invalid request: a message needs a `method` (a request or notification) or a `result` or `error` (a response)"))
            }
        }
    }
}

/// JSON text with every lone UTF-16 surrogate escape (`\ud83d` without its pair, as an editor
/// sends half an emoji) written as `\ufffd`, the replacement character: serde_json refuses
/// them, and one broken character must not cost the whole message. Borrowed when there is none.
pub fn replace_lone_surrogates(text: &str) -> std::borrow::Cow<'_, str> {
    let bytes = text.as_bytes();
    let escape_at = |i: usize| -> Option<u16> {
        if bytes.get(i) != Some(&b'\\') || bytes.get(i + 1) != Some(&b'u') {
            return None;
        }
        let hex = std::str::from_utf8(bytes.get(i + 2..i + 6)?).ok()?;
        u16::from_str_radix(hex, 16).ok()
    };
    let mut lone: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes.get(i) != Some(&b'\\') {
            i += 1;
            continue;
        }
        match escape_at(i) {
            Some(0xD800..=0xDBFF) => {
                if matches!(escape_at(i + 6), Some(0xDC00..=0xDFFF)) {
                    i += 12;
                } else {
                    lone.push(i);
                    i += 6;
                }
            }
            Some(0xDC00..=0xDFFF) => {
                lone.push(i);
                i += 6;
            }
            Some(_) => i += 6,
            // Any other escape (`\\`, `\"`, ...): the escaped character is not a backslash.
            None => i += 2,
        }
    }
    if lone.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut from = 0;
    for at in lone {
        out.push_str(text.get(from..at).unwrap_or(""));
        out.push_str("\\ufffd");
        from = at + 6;
    }
    out.push_str(text.get(from..).unwrap_or(""));
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn messages_by_their_fields() {
        let m = classify(json!({"jsonrpc": "2.0", "id": 3, "method": "hover", "params": {}})).unwrap();
        assert!(matches!(m, Message::Request(r) if r.id == RequestId::from(3) && r.method == "hover"));
        let m = classify(json!({"jsonrpc": "2.0", "method": "exit"})).unwrap();
        assert!(matches!(m, Message::Notification(n) if n.method == "exit" && n.params.is_null()));
        let m = classify(json!({"jsonrpc": "2.0", "id": "a", "result": null})).unwrap();
        assert!(matches!(m, Message::Response(_)));
        // Not messages: each refused with the id when there is one.
        let r = classify(json!({"hello": 1})).unwrap_err();
        assert_eq!((r.id, r.code), (None, ErrorCode::InvalidRequest));
        let r = classify(json!({"id": 7, "method": 12})).unwrap_err();
        assert_eq!(r.id, Some(RequestId::from(7)));
        assert!(classify(json!([1, 2])).unwrap_err().message.contains("batch"));
        assert!(classify(json!({"id": 1.5, "method": "x"})).is_err());
        assert!(classify(json!({"id": {}, "method": "x"})).is_err());
        assert!(classify(json!({"jsonrpc": "1.0", "method": "x"})).is_err());
    }

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        let text = r#"{"t":"a\ud83d b \ud83d\ude00 \ude00 \\ud83d \u0041"}"#;
        let fixed = replace_lone_surrogates(text);
        let value: Value = serde_json::from_str(&fixed).unwrap();
        assert_eq!(value["t"], "a\u{fffd} b \u{1F600} \u{fffd} \\ud83d A");
        assert!(matches!(replace_lone_surrogates(r#"{"t":"\ud83d\ude00"}"#), std::borrow::Cow::Borrowed(_)));
        // At the very end, cut short.
        assert_eq!(replace_lone_surrogates(r"\ud83d"), r"\ufffd");
        assert_eq!(replace_lone_surrogates(r"\ud8"), r"\ud8");
    }
}
