//! The oc rules DSL: pest grammar (in `grammar/oc.pest`) -> owned AST with spans.
//!
//! **Boundary:** no pest type leaves this crate. [`parse`] never fails: it returns the items it
//! could read and a list of syntax diagnostics. A file is cut into top-level items first, so a
//! mistake in one class does not hide the errors (or the definitions) of the next.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

// pest runs without its `std` feature (see the workspace Cargo.toml); its generated parser
// names the `alloc` crate.
extern crate alloc;

pub mod ast;
mod expected;
mod keywords;
mod lower;
mod segment;

use oc_diag::{CodeInfo, Diagnostic, FileId, Span};

pub use keywords::{first_words, reserved};
pub use lower::MAX_EXPR_PIECES;
pub use segment::MAX_NESTING;

/// Parses one source text. Never panics, never stops at the first error.
pub fn parse(file: FileId, text: &str) -> (ast::SourceFile, Vec<Diagnostic>) {
    let Outline { pieces, mut diagnostics, mut unread } = outline(file, text);
    // A piece is one item but for a few (a `movement` line may share one): sized once, the
    // list never doubles to twice what the file needs (an item is a few hundred bytes).
    let mut items = Vec::with_capacity(pieces.len());
    for piece in pieces {
        items.append(&mut parse_piece(file, text, piece, &mut diagnostics, &mut unread));
    }
    // A piece that failed to parse left its slot unused.
    items.shrink_to_fit();
    (ast::SourceFile { items, unread }, diagnostics)
}

/// A file cut into its top-level items, none of them parsed yet: for a reader that wants one
/// item's tree at a time and then drops it (the compiler lowers each class and forgets its
/// tree). [`parse`] is [`outline`] followed by [`parse_piece`] on every piece, in order.
#[derive(Debug, Default)]
pub struct Outline {
    /// Each item's bytes (a few items may share one piece).
    pub pieces: Vec<std::ops::Range<usize>>,
    /// What cutting found: unclosed brackets, strings and comments, nesting too deep, stray text.
    pub diagnostics: Vec<Diagnostic>,
    /// The names of items cutting left out (see [`ast::SourceFile::unread`]).
    pub unread: Vec<oc_diag::Spanned<String>>,
}

/// Cuts `text` into its top-level items without parsing them.
pub fn outline(file: FileId, text: &str) -> Outline {
    let mut diagnostics = Vec::new();
    let mut unread = Vec::new();
    let pieces = segment::split(file, text, &mut diagnostics, &mut unread);
    Outline { pieces, diagnostics, unread }
}

/// One piece of an [`Outline`] parsed: its items, with the syntax errors pushed to `diagnostics`
/// and, when the piece cannot be read, its name to `unread`.
pub fn parse_piece(
    file: FileId,
    text: &str,
    piece: std::ops::Range<usize>,
    diagnostics: &mut Vec<Diagnostic>,
    unread: &mut Vec<oc_diag::Spanned<String>>,
) -> Vec<ast::Item> {
    let Some(source) = text.get(piece.clone()) else { return Vec::new() };
    match lower::parse_segment(file, source, piece.start) {
        Ok((parsed, mut problems)) => {
            diagnostics.append(&mut problems);
            parsed
        }
        Err(error) => {
            diagnostics.push(expected::syntax_error(file, text, piece.start, &error));
            unread.extend(segment::item_name(file, text, piece));
            Vec::new()
        }
    }
}

/// What a piece says it defines, read from its first two words without parsing it:
/// `class Duelist {..}` -> (`"class"`, `Duelist` with its span). Only a parse says whether the
/// piece really is that one definition.
pub fn piece_head(file: FileId, text: &str, piece: std::ops::Range<usize>) -> Option<(&str, ast::Ident)> {
    segment::head(file, text, piece)
}

pub const SYNTAX_ERROR: &str = "oc::syntax::unexpected";
pub const TOO_DEEP: &str = "oc::syntax::too_deep";
pub const UNCLOSED: &str = "oc::syntax::unclosed";
pub const STRAY_TEXT: &str = "oc::syntax::stray_text";
pub const NUMBER_TOO_LARGE: &str = "oc::syntax::number_too_large";
pub const TOO_LONG: &str = "oc::syntax::too_long";
pub const UNKNOWN_ESCAPE: &str = "oc::syntax::unknown_escape";
pub const CONTROL_CHARACTER: &str = "oc::syntax::control_character";
pub const LONE_CARRIAGE_RETURN: &str = "oc::syntax::lone_carriage_return";
/// A field given twice in one definition (the compiler's `oc::field::duplicate`, with its
/// explanation there): the parser reports the fields it keeps one of.
pub const DUPLICATE_FIELD: &str = "oc::field::duplicate";

/// Every code this crate can emit, with its `oc explain` text.
pub const CODES: &[CodeInfo] = &[
    CodeInfo {
        code: SYNTAX_ERROR,
        title: "the text does not follow the grammar here",
        explanation: "The parser expected something else at this place: the message lists what \
would fit. Other definitions in the file are still read and checked.\n\n\
Example:\n    class Knight { ratings { str B mag } }\n                                      ^ expected a rating such as `C`\n\n\
Fix: write what the message asks for, or remove the stray text.",
    },
    CodeInfo {
        code: TOO_DEEP,
        title: "brackets nested too deeply",
        explanation: "Parentheses, brackets and braces may nest at most 64 levels deep. Deeper \
nesting is almost always generated or pasted by mistake, and refusing it keeps the checker \
from running out of stack.\n\nFix: split the expression, or close the brackets you opened.",
    },
    CodeInfo {
        code: UNCLOSED,
        title: "a bracket, brace or string is never closed",
        explanation: "A `{`, `(`, `[`, a string's `\"` or a block comment's `/*` has no \
matching closing partner before the end of the file (or, for a string, before the end of the \
line).\n\nFix: add the closing character where the construct ends.",
    },
    CodeInfo {
        code: STRAY_TEXT,
        title: "text outside any definition",
        explanation: "At the top level of a file only definitions may appear: `import`, \
`ruleset`, `movement`, `terrain`, `weapon_type`, `triangle`, `tag`, `status`, `class`, `weapon`, \
`accessory` and `consumable`. This text starts with none of them.\n\nFix: remove it, turn it \
into a `// comment`, or add the missing keyword.",
    },
    CodeInfo {
        code: NUMBER_TOO_LARGE,
        title: "a number does not fit",
        explanation: "Numbers in the DSL are 64-bit signed integers; this one is larger.\n\nFix: \
use a smaller number.",
    },
    CodeInfo {
        code: TOO_LONG,
        title: "an expression is too long",
        explanation: "One expression may have at most 1024 operands and operators. Longer ones \
are refused before they are checked, so that a generated or pasted formula cannot exhaust the \
checker's stack.\n\nFix: split the expression into helper formulas (`_part = ...`).",
    },
    CodeInfo {
        code: UNKNOWN_ESCAPE,
        title: "a backslash in a string is no escape",
        explanation: "A string may hold four escapes: `\\n` (a line break), `\\t` (a tab), `\\\"` (a \
quote) and `\\\\` (a backslash). Any other backslash is an error, kept as written, so that a name \
or a path is never quietly changed; in an import it is most often a Windows path.\n\n\
Example:\n    import \"tags\\storm.oc\"\n\n\
Fix: write `/` in paths on every system (`import \"tags/storm.oc\"`), or double the backslash.",
    },
    CodeInfo {
        code: CONTROL_CHARACTER,
        title: "a string holds a control character",
        explanation: "A string holds a control character written as it is (an escape code, a bell, a \
carriage return, a NUL...). Strings are shown on terminals and pages, in reports, forecasts and \
maps, where such a character acts instead of showing: it may recolour or retitle a terminal, or \
overwrite what is shown. A string may hold a line break and a tab as the escapes `\\n` and \
`\\t`; no other control character.\n\nFix: delete the character (an editor may show it as `^[` \
or `<0x1b>`), or write `\\n` or `\\t` for a line break or a tab.",
    },
    CodeInfo {
        code: LONE_CARRIAGE_RETURN,
        title: "a line ends with a lone carriage return",
        explanation: "The file ends a line with a carriage return (CR) not followed by a line feed, \
as classic Mac OS saved text. `oc` ends lines at a line feed (LF, or CRLF as Windows saves \
them), so it reads the text up to the next line feed as one line: a `//` comment there hides \
every definition after it, and reports and editors would disagree on line numbers.\n\n\
Fix: save the file with LF (Unix) or CRLF (Windows) line endings (most editors offer it in \
their status bar or save dialog; `tr '\\r' '\\n' < old.oc > new.oc` converts one).",
    },
];

/// The span of the whole text, for diagnostics about a file as a whole.
pub fn whole_file(file: FileId, text: &str) -> Span {
    Span::new(file, 0, text.len().min(1))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines ended by CRLF (Windows) read as lines ended by LF; a lone CR (classic Mac OS) is an
    /// error at the first one, where a `//` comment would otherwise hide the item after it.
    #[test]
    fn a_lone_carriage_return_is_an_error_and_crlf_is_not() {
        let file = FileId(0);
        let crlf = "// a comment\r\nclass Foo \"Foo\" {\r\n    doc \"x\"\r\n}\r\n";
        let (ast, diagnostics) = parse(file, crlf);
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        assert_eq!(ast.items.len(), 1);
        // Line ends converted twice (`\r\r\n`) still end lines.
        let (_, diagnostics) = parse(file, &crlf.replace("\r\n", "\r\r\n"));
        assert!(diagnostics.is_empty(), "{diagnostics:?}");
        let lone = "// a comment\rclass Foo \"Foo\" {\r\n    doc \"x\"\r\n}\r\n";
        let (_, diagnostics) = parse(file, lone);
        let found: Vec<_> = diagnostics.iter().filter(|d| d.code == LONE_CARRIAGE_RETURN).collect();
        assert_eq!(found.len(), 1, "{diagnostics:?}");
        assert_eq!(found.first().map(|d| d.span.start), Some(12));
    }
}
