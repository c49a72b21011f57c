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

/// The path of a `file:` URI (percent escapes decoded); `None` for any other scheme or a path
/// that is not absolute.
pub fn uri_to_path(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file:///a/b` (empty authority) or `file://localhost/a/b`.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    let path = path.split(['?', '#']).next().unwrap_or(path);
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        if b == b'%' {
            let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
            if let Some(v) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b);
        i += 1;
    }
    let decoded = String::from_utf8(out).ok()?;
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
        assert_eq!(uri_to_path(&uri).unwrap(), path);
        assert_eq!(uri_to_path(&"untitled:1".parse().unwrap()), None);
    }
}
