//! Positions and addresses: byte offsets to LSP positions (lines and UTF-16 code units) and
//! back, and `file:` URIs to paths and back.

use std::path::{Path, PathBuf};

use lsp_types::{Position, Range, Uri};

/// Line starts of one text, for converting byte offsets to LSP positions and back.
pub struct LineIndex<'a> {
    text: &'a str,
    starts: oc_diag::LineStarts,
}

impl<'a> LineIndex<'a> {
    pub fn new(text: &'a str) -> LineIndex<'a> {
        LineIndex { text, starts: oc_diag::LineStarts::new(text) }
    }

    /// The position of a byte offset (clamped to the text; inside a character, its start).
    pub fn position(&self, offset: usize) -> Position {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let (line, start) = self.starts.line_of(offset);
        let units: usize = self.text.get(start..offset).unwrap_or("").chars().map(char::len_utf16).sum();
        Position::new(line as u32, units as u32)
    }

    pub fn range(&self, start: usize, end: usize) -> Range {
        Range::new(self.position(start), self.position(end.max(start)))
    }

    /// The byte offset of a position an editor sent, or why it is not in the text: a line past
    /// the last. A character past its line's end is the line's end (as LSP says).
    pub fn checked_offset(&self, p: Position) -> Result<usize, String> {
        if self.starts.start(p.line as usize).is_none() {
            let lines = (0..).take_while(|&n| self.starts.start(n).is_some()).count();
            return Err(format!(
                "reaches line {} but the document has {lines} line{} (LSP positions count from 0)",
                p.line,
                if lines == 1 { "" } else { "s" }
            ));
        }
        Ok(self.offset(p))
    }

    /// The byte offset of a position: a character past the line's end is the line's end (its
    /// newline excluded); a line past the text's end is the text's end.
    pub fn offset(&self, p: Position) -> usize {
        let Some(start) = self.starts.start(p.line as usize) else { return self.text.len() };
        let end = self.starts.start(p.line as usize + 1).map_or(self.text.len(), |next| next.saturating_sub(1));
        let line = self.text.get(start..end).unwrap_or("");
        let line = line.strip_suffix('\r').unwrap_or(line);
        let mut units = 0usize;
        for (i, c) in line.char_indices() {
            if units >= p.character as usize {
                return start + i;
            }
            units += c.len_utf16();
        }
        start + line.len()
    }
}

/// The path of a `file:` URI (percent escapes decoded); `None` for any other scheme, and for a
/// URI that does not name one clean absolute path: bad or non-UTF-8 escapes, `.` or `..`
/// segments, a host other than `localhost`, a NUL. Such a document is checked on its own.
pub fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // `file:///a/b` (empty authority) or `file://localhost/a/b`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok())?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
            continue;
        }
        out.push(b);
        i += 1;
    }
    let decoded = String::from_utf8(out).ok()?;
    if decoded.contains('\0') || decoded.split('/').any(|part| part == "." || part == "..") {
        return None;
    }
    let path = PathBuf::from(decoded);
    path.is_absolute().then_some(path)
}

/// The `file:` URI of an absolute path (each byte outside the unreserved set escaped).
pub fn path_to_uri(path: &Path) -> Option<Uri> {
    let text = path.to_str()?;
    let mut s = String::from("file://");
    if !text.starts_with('/') {
        s.push('/');
    }
    for b in text.bytes() {
        let keep = b.is_ascii_alphanumeric() || b"-._~/".contains(&b);
        if keep {
            s.push(b as char);
        } else {
            s.push_str(&format!("%{b:02X}"));
        }
    }
    s.parse().ok()
}

/// One edit of `didChange`: a range and its new text, or (no range) the whole text.
#[derive(Clone, Debug, serde::Deserialize)]
pub struct Change {
    #[serde(default)]
    pub range: Option<Range>,
    pub text: String,
}

/// `text` with `changes` applied in order, or why one cannot be: its range ends before it starts
/// or reaches past the text's last line. All or nothing.
pub fn apply_changes(text: &str, changes: &[Change]) -> Result<String, String> {
    let mut text = text.to_string();
    for (n, change) in changes.iter().enumerate() {
        let Some(range) = change.range else {
            text.clone_from(&change.text);
            continue;
        };
        let which = if changes.len() > 1 { format!("edit {} of {}: ", n + 1, changes.len()) } else { String::new() };
        let (s, e) = (range.start, range.end);
        if (e.line, e.character) < (s.line, s.character) {
            return Err(format!(
                "{which}its range ends at {}:{} before it starts at {}:{} (line:character, from 0)",
                e.line, e.character, s.line, s.character
            ));
        }
        let index = LineIndex::new(&text);
        let start = index.checked_offset(s).map_err(|why| format!("{which}its range {why}"))?;
        let end = index.checked_offset(e).map_err(|why| format!("{which}its range {why}"))?;
        if start > end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            return Err(format!("{which}its range is not in the text"));
        }
        text.replace_range(start..end, &change.text);
    }
    Ok(text)
}

/// The URI of a file of a root: a loose document's own, else the file's under the root.
pub fn uri_of(loose: Option<&(String, String)>, root: &Path, path: &str) -> Option<String> {
    match loose {
        Some((logical, uri)) => (logical == path).then(|| uri.clone()),
        None => path_to_uri(&root.join(path)).map(|u| u.as_str().to_string()),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn utf16_positions_round_trip() {
        let text = "ab\né𝄞x\r\nlast";
        let index = LineIndex::new(text);
        // `x` is after é (1 unit) and 𝄞 (2 units).
        let x = text.find('x').unwrap();
        assert_eq!(index.position(x), Position::new(1, 3));
        assert_eq!(index.offset(Position::new(1, 3)), x);
        assert_eq!(index.position(text.len()), Position::new(2, 4));
        // Past the line's end: the line's end, before `\r\n`.
        assert_eq!(index.offset(Position::new(1, 99)), x + 1);
        assert_eq!(index.offset(Position::new(9, 0)), text.len());
        // Inside 𝄞: its start.
        assert_eq!(index.position(text.find('𝄞').unwrap() + 1), Position::new(1, 1));
    }

    #[test]
    fn file_uris_round_trip() {
        let path = Path::new("/tmp/a b/ü.oc");
        let uri = path_to_uri(path).unwrap();
        assert_eq!(uri.as_str(), "file:///tmp/a%20b/%C3%BC.oc");
        assert_eq!(uri_to_path(uri.as_str()).unwrap(), path);
        assert_eq!(uri_to_path("untitled:1"), None);
        // Not one clean path: checked on their own.
        for bad in [
            "file:///a/../b.oc",
            "file:///a/./b.oc",
            "file:///a%zz.oc",
            "file:///a%ff.oc",
            "file:///a%00.oc",
            "file://host/a.oc",
            "file:///a%2",
        ] {
            assert_eq!(uri_to_path(bad), None, "{bad}");
        }
        assert_eq!(uri_to_path("file://localhost/a%20b.oc").unwrap(), Path::new("/a b.oc"));
    }

    #[test]
    fn edits_apply_or_say_why_not() {
        let change = |l1, c1, l2, c2, text: &str| Change {
            range: Some(Range::new(Position::new(l1, c1), Position::new(l2, c2))),
            text: text.to_string(),
        };
        assert_eq!(apply_changes("ab\ncd\n", &[change(1, 0, 1, 1, "X"), change(0, 9, 1, 0, "")]).unwrap(), "abXd\n");
        // The line after the last newline is a line.
        assert_eq!(apply_changes("ab\n", &[change(1, 0, 1, 0, "z")]).unwrap(), "ab\nz");
        let reversed = apply_changes("ab\ncd", &[change(1, 1, 0, 0, "X")]).unwrap_err();
        assert_eq!(reversed, "its range ends at 0:0 before it starts at 1:1 (line:character, from 0)");
        let past = apply_changes("ab\ncd", &[change(0, 0, 0, 0, "x"), change(5, 0, 5, 1, "X")]).unwrap_err();
        assert_eq!(past, "edit 2 of 2: its range reaches line 5 but the document has 2 lines (LSP positions count from 0)");
        let whole = Change { range: None, text: "new".to_string() };
        assert_eq!(apply_changes("old", &[whole]).unwrap(), "new");
    }
}
