//! `--format json` for the commands that otherwise report in text (build, fmt, doc, render,
//! export, import, battle, replay, army, matrix, explain): what a run says is kept as data and
//! printed as one JSON object when it ends, instead of lines on standard error.
//!
//! The object: `command`, `status` (the exit status), the diagnostics in `oc check --format
//! json`'s shape (`diagnostics`, `errors`, `warnings`), `messages` (each `error:` or `warning:`
//! line with its `help:`), `notes` (status lines: what was written, summaries), `written` (the
//! files and folders written, as shown) and `output`: what the command would have printed on
//! standard output — parsed when it is JSON (a battle log's lines each), else text.

use serde_json::{json, Value};

/// What one run said ([`Transcript::finish`] makes the object).
#[derive(Debug, Default)]
pub struct Transcript {
    pub command: String,
    pub diagnostics: Vec<Value>,
    pub messages: Vec<Value>,
    pub notes: Vec<String>,
    pub written: Vec<String>,
    pub output: String,
    /// A line of standard error not yet ended by its `\n`.
    partial: String,
}

impl Transcript {
    pub fn new(command: &str) -> Transcript {
        Transcript { command: command.to_string(), ..Transcript::default() }
    }

    /// Text the command wrote to standard error: `error: `/`warning: ` lines are messages, a
    /// `help: ` line the help of the message before it, any other line a note.
    pub fn stderr(&mut self, text: &str) {
        self.partial.push_str(text);
        while let Some(end) = self.partial.find('\n') {
            let line: String = self.partial.drain(..=end).collect();
            self.line(line.trim_end());
        }
    }

    fn line(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        for level in ["error", "warning"] {
            if let Some(message) = line.strip_prefix(level).and_then(|rest| rest.strip_prefix(": ")) {
                self.messages.push(json!({"level": level, "message": message, "help": ""}));
                return;
            }
        }
        if let Some(help) = line.trim_start().strip_prefix("help: ") {
            if let Some(Value::Object(last)) = self.messages.last_mut() {
                last.insert("help".into(), json!(help));
                return;
            }
        }
        // A continuation of the message before it (an indented list under an error).
        if line.starts_with(' ') {
            if let Some(Value::Object(last)) = self.messages.last_mut() {
                let text = last.get("message").and_then(Value::as_str).unwrap_or("").to_string();
                last.insert("message".into(), json!(format!("{text}\n{}", line.trim())));
                return;
            }
        }
        self.notes.push(line.to_string());
    }

    /// The object of the run that ended with `status`.
    pub fn finish(mut self, status: u8) -> Value {
        let rest = std::mem::take(&mut self.partial);
        self.line(rest.trim_end());
        let level = |d: &Value, l: &str| d.get("severity").and_then(Value::as_str) == Some(l);
        let errors = self.diagnostics.iter().filter(|d| level(d, "error")).count();
        let warnings = self.diagnostics.iter().filter(|d| level(d, "warning")).count();
        json!({
            "command": self.command,
            "status": status,
            "diagnostics": self.diagnostics,
            "errors": errors,
            "warnings": warnings,
            "messages": self.messages,
            "notes": self.notes,
            "written": self.written,
            "output": output(&self.output),
        })
    }
}

/// Standard output's text as a value: none, one JSON document, JSON lines, or text.
fn output(text: &str) -> Value {
    if text.trim().is_empty() {
        return Value::Null;
    }
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return v;
    }
    let lines: Option<Vec<Value>> = text.lines().filter(|l| !l.trim().is_empty()).map(|l| serde_json::from_str(l).ok()).collect();
    lines.map_or_else(|| json!(text), Value::Array)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_transcript_sorts_lines_into_messages_and_notes() {
        let mut t = Transcript::new("build");
        t.stderr("error: cannot write x.json: denied\nhe");
        t.stderr("lp: pass --force\nwrote a.json (3 classes)\n");
        t.stderr("error: the files use 2 rulesets:\n  a: x.oc\n");
        t.stderr("warning: late");
        t.output.push_str("{\"a\": 1}\n{\"b\": 2}\n");
        t.diagnostics.push(json!({"severity": "warning"}));
        let v = t.finish(2);
        let at = |p: &str| v.pointer(p).cloned().unwrap_or(Value::Null);
        assert_eq!(at("/status"), 2);
        assert_eq!(
            at("/messages/0"),
            json!({"level": "error", "message": "cannot write x.json: denied", "help": "pass --force"})
        );
        assert_eq!(at("/messages/1/message"), "the files use 2 rulesets:\na: x.oc");
        assert_eq!(at("/messages/2/level"), "warning");
        assert_eq!(at("/notes"), json!(["wrote a.json (3 classes)"]));
        assert_eq!(at("/output"), json!([{"a": 1}, {"b": 2}]));
        assert_eq!((at("/errors"), at("/warnings")), (json!(0), json!(1)));
        let mut t = Transcript::new("explain");
        t.output.push_str("oc::x: a title\n");
        assert_eq!(t.finish(0).get("output"), Some(&json!("oc::x: a title\n")));
    }
}
