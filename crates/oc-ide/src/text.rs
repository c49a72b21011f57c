//! Words and strings of `.oc` text by byte offset, from the formatter's lossless tokenizer
//! (comments and strings are not words).

use oc_fmt::lex::{tokenize, Kind};

/// The word (a name or a keyword) at or just before `offset`: its byte range and text.
pub fn word_at(text: &str, offset: usize) -> Option<(usize, usize, &str)> {
    let mut at = 0;
    for t in tokenize(text) {
        let end = at + t.text.len();
        if t.kind == Kind::Word && at <= offset && offset <= end {
            return Some((at, end, t.text));
        }
        if at > offset {
            break;
        }
        at = end;
    }
    None
}

/// The string literal holding `offset`: the range of its contents (quotes excluded) and them.
pub fn string_at(text: &str, offset: usize) -> Option<(usize, usize, &str)> {
    let mut at = 0;
    for t in tokenize(text) {
        let end = at + t.text.len();
        let closed = t.text.len() >= 2 && t.text.ends_with('"');
        if t.kind == Kind::Str && at < offset && (offset < end || (!closed && offset == end)) {
            let inner = t.text.strip_prefix('"').unwrap_or(t.text);
            let inner = inner.strip_suffix('"').unwrap_or(inner);
            return Some((at + 1, at + 1 + inner.len(), inner));
        }
        if at > offset {
            break;
        }
        at = end;
    }
    None
}

/// The word before a string (`import` in `import "a.oc"`, `map`, `zone`, `seize`...).
pub fn word_before(text: &str, offset: usize) -> Option<&str> {
    let mut at = 0;
    let mut last: Option<&str> = None;
    for t in tokenize(text) {
        if at >= offset {
            break;
        }
        match t.kind {
            Kind::Word => last = Some(t.text),
            Kind::Space | Kind::Newline | Kind::LineComment | Kind::BlockComment => {}
            _ if at + t.text.len() >= offset => {}
            _ => last = None,
        }
        at += t.text.len();
    }
    last
}

/// Whether a name is valid in oc: letters, digits and `_`, not starting with a digit.
pub fn is_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn words_and_strings() {
        let text = "class A { tags Lucky(5) doc \"x y\" } // Lucky\nimport \"b.oc\"";
        let at = text.find("Lucky").unwrap();
        assert_eq!(word_at(text, at + 2), Some((at, at + 5, "Lucky")));
        assert_eq!(word_at(text, at + 5), Some((at, at + 5, "Lucky")));
        let q = text.find('"').unwrap();
        assert_eq!(string_at(text, q + 2), Some((q + 1, q + 4, "x y")));
        assert_eq!(word_before(text, q + 2), Some("doc"));
        let b = text.find("b.oc").unwrap();
        assert_eq!(word_before(text, b), Some("import"));
        assert!(is_name("_a1") && !is_name("1a") && !is_name("a-b") && !is_name(""));
    }
}
