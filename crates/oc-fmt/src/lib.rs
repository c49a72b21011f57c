//! The formatter of the oc rules DSL (`oc fmt`): one canonical layout for `.oc` files.
//!
//! [`lex`] cuts the text into tokens without losing a byte (comments and whitespace included),
//! `layout` indents each line by its nesting, spaces the tokens, aligns table grids and trailing
//! comments, and [`diff`] shows what would change. The author's line breaks are kept; runs of
//! blank lines become one.
//!
//! **Boundary:** no file system access and no pest: the text comes in, the text goes out.
//! `oc-syntax` is used only to refuse a file that does not parse and to check the result.
//! **Invariant:** [`format`] returns text with the same tokens and comments in the same order,
//! that parses to the same tree as its input (spans aside) — both checked on every call — or an
//! error and no text; formatting its output again changes nothing.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

pub mod diff;
mod grid;
mod layout;
pub mod lex;
mod line;

use oc_diag::{Diagnostic, FileId};

/// Why a text was not formatted. Either way the caller keeps the text it has.
#[derive(Clone, Debug)]
pub enum Error {
    /// The text does not parse: its syntax diagnostics.
    Syntax(Vec<Diagnostic>),
    /// The formatted text would not mean what the input means: a bug in the formatter, which
    /// this check keeps from reaching the file.
    Changed(String),
}

/// A file's byte-order mark and line endings, kept through formatting (a formatter that turned
/// CRLF into LF would change every line of the file): the line ending is the first line's, as
/// rustfmt's `Auto` takes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Endings {
    bom: bool,
    crlf: bool,
}

impl Endings {
    /// The endings of `text`, and the text to format: without the mark, with LF.
    pub fn of(text: &str) -> (Endings, std::borrow::Cow<'_, str>) {
        let (bom, body) = text.strip_prefix('\u{feff}').map_or((false, text), |b| (true, b));
        let crlf = body.find('\n').is_some_and(|i| body.get(..i).is_some_and(|l| l.ends_with('\r')));
        let unix = if crlf { std::borrow::Cow::Owned(body.replace("\r\n", "\n")) } else { std::borrow::Cow::Borrowed(body) };
        (Endings { bom, crlf }, unix)
    }

    /// A text formatted from [`Endings::of`]'s, given the file's endings back.
    pub fn restore(self, formatted: String) -> String {
        let formatted = if self.crlf { formatted.replace('\n', "\r\n") } else { formatted };
        if self.bom {
            format!("\u{feff}{formatted}")
        } else {
            formatted
        }
    }
}

/// Formats one source text (`file` is the id its diagnostics are reported under).
pub fn format(file: FileId, text: &str) -> Result<String, Error> {
    let (before, diagnostics) = oc_syntax::parse(file, text);
    if diagnostics.iter().any(Diagnostic::is_error) {
        return Err(Error::Syntax(diagnostics));
    }
    let formatted = layout(text);
    if !same_tokens(text, &formatted) {
        return Err(Error::Changed("the formatted text would lose or change a token or a comment".to_string()));
    }
    let (after, problems) = oc_syntax::parse(file, &formatted);
    if let Some(problem) = problems.first() {
        return Err(Error::Changed(format!("the formatted text would not parse ({})", problem.message)));
    }
    if before.items.len() != after.items.len() {
        return Err(Error::Changed(format!(
            "the formatted text would hold {} definitions instead of {}",
            after.items.len(),
            before.items.len()
        )));
    }
    for (old, new) in before.items.iter().zip(&after.items) {
        if without_spans(&format!("{old:?}")) != without_spans(&format!("{new:?}")) {
            return Err(Error::Changed(format!("the formatted text would change the definition of {}", item_name(old))));
        }
    }
    Ok(formatted)
}

/// The layout alone, without [`format`]'s checks: for text already known to parse (a
/// formatted text, to see that formatting it again changes nothing).
pub fn layout(text: &str) -> String {
    layout::layout(&lex::tokenize(text))
}

/// Whether two texts hold the same tokens and comments in the same order, whitespace aside (and
/// the whitespace ending a comment's lines, which formatting removes).
fn same_tokens(a: &str, b: &str) -> bool {
    fn words(text: &str) -> impl Iterator<Item = std::borrow::Cow<'_, str>> {
        lex::tokenize(text).into_iter().filter(|t| !matches!(t.kind, lex::Kind::Space | lex::Kind::Newline)).map(|t| {
            if matches!(t.kind, lex::Kind::LineComment | lex::Kind::BlockComment) {
                std::borrow::Cow::Owned(t.text.split('\n').map(str::trim_end).collect::<Vec<_>>().join("\n"))
            } else {
                std::borrow::Cow::Borrowed(t.text)
            }
        })
    }
    words(a).eq(words(b))
}

/// A tree's debug text with every `Span { .. }` left out: two trees that differ only in where
/// their nodes sit give the same text.
fn without_spans(debug: &str) -> String {
    const SPAN: &str = "Span { file: FileId(";
    let mut out = String::with_capacity(debug.len());
    let mut rest = debug;
    while let Some(at) = rest.find(SPAN) {
        out.push_str(rest.get(..at).unwrap_or(""));
        let after = rest.get(at..).unwrap_or("");
        rest = after.find('}').and_then(|end| after.get(end + 1..)).unwrap_or("");
    }
    out.push_str(rest);
    out
}

fn item_name(item: &oc_syntax::ast::Item) -> String {
    let debug = format!("{item:?}");
    debug.split(['(', ' ']).next().unwrap_or("an item").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_are_left_out() {
        assert_eq!(
            without_spans("Spanned { value: \"x\", span: Span { file: FileId(0), start: 3, end: 4 } }"),
            "Spanned { value: \"x\", span:  }"
        );
    }

    #[test]
    fn tokens_and_comments_are_compared_whitespace_aside() {
        assert!(same_tokens("a  /* x  \r\n y */ b // c  ", "a /* x\n y */ b // c"));
        assert!(!same_tokens("a // c", "a"));
        assert!(!same_tokens("a - 1", "a -1 x"));
        assert!(!same_tokens("/* a b */", "/* ab */"));
    }

    #[test]
    fn a_file_with_a_syntax_error_is_refused() {
        assert!(matches!(format(FileId(0), "class Knight { ratings { str B mag } }"), Err(Error::Syntax(_))));
    }

    #[test]
    fn whitespace_only_becomes_empty() {
        assert_eq!(format(FileId(0), "\n\n  \t\n").ok().as_deref(), Some(""));
    }

    /// A text's endings taken off and given back: the same text, whatever its mark and line
    /// endings; the first line's ending decides.
    #[test]
    fn endings_taken_off_and_given_back_are_the_same_text() {
        for text in ["a\nb\n", "a\r\nb\r\n", "\u{feff}a\r\nb\r\n", "\u{feff}a\nb", "", "no line end"] {
            let (endings, unix) = Endings::of(text);
            assert!(!unix.contains('\r') && !unix.starts_with('\u{feff}'), "{text:?}");
            assert_eq!(endings.restore(unix.into_owned()), text, "{text:?}");
        }
        assert_eq!(Endings::of("a\nb\r\n").0, Endings::of("a\n").0);
    }
}
