//! Cuts a file into top-level items before pest sees it.
//!
//! A new item starts at an item keyword that begins a line and is either at bracket depth 0 or
//! followed by the head of an item (`class Name {`, `tag Name(`, `movement Foot, Armored`,
//! `import "..."`), so a missing `}` costs one item, not the rest of the file, while a body line
//! such as `movement += 2` stays in its block. Indentation decides nothing. While
//! scanning we also catch what pest handles badly: unclosed brackets, strings and comments (one
//! clear diagnostic at the opener) and nesting deep enough to exhaust the stack.

use std::ops::Range;

use oc_diag::{Diagnostic, FileId, Span, Spanned};

use crate::{CONTROL_CHARACTER, LONE_CARRIAGE_RETURN, STRAY_TEXT, TOO_DEEP, UNCLOSED, UNKNOWN_ESCAPE};

/// Brackets may nest at most this deep.
pub const MAX_NESTING: usize = 64;

const ITEM_KEYWORDS: &[&str] = &[
    "import",
    "ruleset",
    "movement",
    "terrain",
    "weapon_type",
    "triangle",
    "tag",
    "status",
    "class",
    "weapon",
    "accessory",
    "consumable",
    "scenario",
    "army",
];

struct Segment {
    range: Range<usize>,
    broken: bool,
    /// The first `{` whose `}` came indented less than the line that opened it (the `}` of an
    /// outer block, by its indentation): where a block of this item is never closed, the likely
    /// one. (opener, closer).
    suspect: Option<(usize, usize)>,
}

/// The byte ranges of the items worth handing to pest. Problems found on the way are pushed to
/// `diagnostics`, and the segments they are in are left out (pest would only repeat them).
/// The name a definition gives itself: the word after its keyword (`class Duelist` -> `Duelist`).
pub fn item_name(file: FileId, text: &str, range: Range<usize>) -> Option<Spanned<String>> {
    head(file, text, range).map(|(_, name)| Spanned::new(name.value.to_string(), name.span))
}

/// A piece's keyword and the name after it, with no allocation: `class Duelist` ->
/// (`class`, `Duelist`). `None` when the piece does not start with a word and a name.
pub fn head(file: FileId, text: &str, range: Range<usize>) -> Option<(&str, Spanned<oc_diag::Name>)> {
    let source = text.get(range.clone())?;
    let skip = trivia_len(source);
    let rest = source.get(skip..)?;
    let keyword_len = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
    let keyword = rest.get(..keyword_len)?;
    let after = rest.get(keyword_len..)?;
    let trimmed = after.trim_start();
    let gap = after.len() - trimmed.len();
    let name_len = trimmed.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(trimmed.len());
    let name = trimmed.get(..name_len)?;
    if !name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        return None;
    }
    let start = range.start + skip + keyword_len + gap;
    Some((keyword, Spanned::new(oc_diag::Name::from(name), Span::new(file, start, start + name.len()))))
}

/// Cuts `text` into top-level items. Items that cannot be read (unclosed brackets, a first word
/// that is a misspelt keyword) are reported here and their names pushed to `unread`.
pub fn split(
    file: FileId,
    text: &str,
    diagnostics: &mut Vec<Diagnostic>,
    unread: &mut Vec<Spanned<String>>,
) -> Vec<Range<usize>> {
    let bytes = text.as_bytes();
    if let Some(d) = lone_carriage_return(file, bytes) {
        diagnostics.push(d);
    }
    let mut segments: Vec<Segment> = Vec::new();
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let mut current = Segment { range: 0..0, broken: false, suspect: None };
    let mut line_start = true;
    let mut last_significant: Option<u8> = None;
    let mut last_word: &str = "";
    let mut i = 0;

    let close_segment = |current: &mut Segment,
                         segments: &mut Vec<Segment>,
                         stack: &mut Vec<(u8, usize)>,
                         diagnostics: &mut Vec<Diagnostic>,
                         end: usize| {
        if let Some(&(open, at)) = stack.first() {
            if !current.broken {
                let suspect = current.suspect.filter(|(opener, _)| *opener > at);
                diagnostics.push(match suspect {
                    Some((opener, closer)) => unclosed_inside(file, text, (at, open), opener, closer),
                    None => unclosed(file, at, open),
                });
            }
            current.broken = true;
        }
        stack.clear();
        current.range.end = end;
        segments.push(std::mem::replace(current, Segment { range: end..end, broken: false, suspect: None }));
    };

    while let Some(&b) = bytes.get(i) {
        match b {
            b'\n' => {
                line_start = true;
                i += 1;
                continue;
            }
            b' ' | b'\t' | b'\r' => {
                i += 1;
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while bytes.get(i).is_some_and(|&c| c != b'\n') {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                let open = i;
                let mut depth = 0usize;
                let mut closed = false;
                while i < bytes.len() {
                    if bytes.get(i) == Some(&b'/') && bytes.get(i + 1) == Some(&b'*') {
                        depth += 1;
                        i += 2;
                    } else if bytes.get(i) == Some(&b'*') && bytes.get(i + 1) == Some(&b'/') {
                        depth -= 1;
                        i += 2;
                        if depth == 0 {
                            closed = true;
                            break;
                        }
                    } else {
                        i += 1;
                    }
                }
                if !closed {
                    diagnostics.push(
                        Diagnostic::error(UNCLOSED, Span::new(file, open, open + 2), "this block comment is never closed")
                            .with_label("comment opened here")
                            .with_help("close it with `*/` (block comments nest: every `/*` needs its own `*/`)"),
                    );
                    current.broken = true;
                }
                continue;
            }
            _ => {}
        }
        let at_line_start = line_start;
        line_start = false;

        if b.is_ascii_alphabetic() || b == b'_' {
            let start = i;
            let rest = bytes.get(i..).unwrap_or_default();
            i += rest.iter().position(|c| !(c.is_ascii_alphanumeric() || *c == b'_')).unwrap_or(rest.len());
            let word = text.get(start..i).unwrap_or("");
            let starts_item = at_line_start
                && ITEM_KEYWORDS.contains(&word)
                && (stack.is_empty() || opens_item(word, text.get(i..).unwrap_or("")))
                && last_significant != Some(b',')
                && last_word != "on";
            if starts_item && start > current.range.start {
                close_segment(&mut current, &mut segments, &mut stack, diagnostics, start);
            } else if starts_item {
                current.range.start = start;
            }
            last_word = word;
            last_significant = Some(b'a');
            continue;
        }
        let after_import = last_word == "import";
        last_word = "";
        match b {
            b'"' => {
                let open = i;
                i += 1;
                let mut closed = false;
                // A closed string's control characters: the first, and how many (an unclosed
                // string, binary garbage most often, is its own error).
                let (mut first_control, mut controls) = (None, 0usize);
                while let Some(&c) = bytes.get(i) {
                    match c {
                        b'\\' => {
                            if let Some(d) = unknown_escape(file, text, i, after_import) {
                                diagnostics.push(d);
                            }
                            i += 2;
                        }
                        b'"' => {
                            closed = true;
                            i += 1;
                            break;
                        }
                        b'\n' => break,
                        _ => {
                            // A control character as it is (a tab aside): C0 and DEL are one
                            // byte, C1 (U+0080..U+009F) two.
                            let c1 = c == 0xC2 && bytes.get(i + 1).is_some_and(|n| (0x80..=0x9F).contains(n));
                            let width = if c1 { 2 } else { 1 };
                            let acts = c1 || ((c < 0x20 && c != b'\t' && c != b'\r') || c == 0x7F);
                            // A lone CR (not the end of a CRLF line, which closes nothing here).
                            let lone_cr = c == b'\r' && bytes.get(i + 1) != Some(&b'\n');
                            if acts || lone_cr {
                                controls += 1;
                                first_control.get_or_insert((i, width));
                            }
                            i += width;
                        }
                    }
                }
                if let Some((at, width)) = first_control.filter(|_| closed) {
                    diagnostics.push(control_character(file, text, at, width, controls));
                }
                if !closed {
                    diagnostics.push(
                        Diagnostic::error(UNCLOSED, Span::new(file, open, open + 1), "this string is never closed")
                            .with_label("string opened here")
                            .with_help("add the closing `\"` before the end of the line (strings cannot span lines)"),
                    );
                    current.broken = true;
                }
                last_significant = Some(b'"');
                continue;
            }
            b'(' | b'[' | b'{' => {
                stack.push((b, i));
                if stack.len() == MAX_NESTING + 1 && !current.broken {
                    diagnostics.push(
                        Diagnostic::error(TOO_DEEP, Span::new(file, i, i + 1), format!("brackets nest more than {MAX_NESTING} levels deep"))
                            .with_label("this one is too deep")
                            .with_help("split the expression or close the brackets you opened; deeper nesting is refused to keep the checker safe"),
                    );
                    current.broken = true;
                }
            }
            b')' | b']' | b'}' => {
                let expected_open = match b {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                match stack.last() {
                    Some(&(open, at)) if open == expected_open => {
                        // A `}` first on its line, indented as the line of the `{` enclosing the
                        // one it closes, and less than that one's line, in the same characters (a
                        // tab is no number of spaces): by its indentation it closes the outer
                        // block.
                        let outer = stack.len().checked_sub(2).and_then(|k| stack.get(k)).map(|&(_, o)| o);
                        let first = b == b'}' && current.suspect.is_none() && at_line_start_of(text, i);
                        if let Some(outer) = outer.filter(|_| first) {
                            let (own, closer, enclosing) =
                                (indent_text(text, at), indent_text(text, i), indent_text(text, outer));
                            if closer == enclosing && closer.len() < own.len() && same_kind(closer, own) {
                                current.suspect = Some((at, i));
                            }
                        }
                        stack.pop();
                    }
                    Some(&(open, at)) => {
                        if !current.broken {
                            diagnostics.push(
                                Diagnostic::error(
                                    UNCLOSED,
                                    Span::new(file, i, i + 1),
                                    format!("`{}` closes `{}`", b as char, open as char),
                                )
                                .with_label(format!("expected `{}` here", closing(open)))
                                .with_secondary(Span::new(file, at, at + 1), "opened here")
                                .with_help(format!("close the `{}` first, or remove this `{}`", open as char, b as char)),
                            );
                        }
                        current.broken = true;
                        stack.pop();
                    }
                    None => {
                        // An extra closer at the top level: pest reports it with context.
                    }
                }
            }
            _ => {}
        }
        last_significant = Some(b);
        i += utf8_len(b);
    }
    close_segment(&mut current, &mut segments, &mut stack, diagnostics, text.len());

    // Text before the first item that is not blank is stray; pest would report it too, but
    // with a less helpful message, so say it once here.
    let mut out = Vec::new();
    for segment in segments {
        let Some(source) = text.get(segment.range.clone()) else { continue };
        if segment.broken {
            unread.extend(item_name(file, text, segment.range.clone()));
            continue;
        }
        let skip = trivia_len(source);
        let rest = source.get(skip..).unwrap_or("");
        if rest.is_empty() {
            continue;
        }
        let word_len = rest.bytes().take_while(|c| c.is_ascii_alphanumeric() || *c == b'_').count();
        let first_word = rest.get(..word_len).unwrap_or_default();
        if !ITEM_KEYWORDS.contains(&first_word) {
            let offset = segment.range.start + skip;
            let shown = rest.char_indices().nth(first_word.chars().count().max(1)).map_or(rest.len(), |(n, _)| n);
            let help = match oc_diag::did_you_mean(first_word, ITEM_KEYWORDS.iter().copied()).filter(|_| !first_word.is_empty()) {
                Some(keyword) => {
                    unread.extend(item_name(file, text, segment.range.clone()));
                    format!("did you mean `{keyword}`? a definition starts with its keyword")
                }
                None => "a file holds definitions such as `class`, `weapon`, `tag`, `terrain` or `ruleset`; turn stray notes into `// comments`".to_string(),
            };
            diagnostics.push(
                Diagnostic::error(STRAY_TEXT, Span::new(file, offset, offset + shown), "expected a definition here")
                    .with_label("not the start of a definition")
                    .with_help(help),
            );
            continue;
        }
        out.push(segment.range);
    }
    out
}

/// Whether an item keyword inside an open bracket starts a new item: what follows it on its line
/// is an item's head (`after` is the text after the keyword). `movement += 2` in a tag's body is
/// a statement; `movement Foot, Armored` or `class Warden {` after an unclosed brace is an item.
fn opens_item(keyword: &str, after: &str) -> bool {
    let line = after.split('\n').next().unwrap_or("");
    let line = line.split("//").next().unwrap_or(line).trim_end_matches(['\r', ' ', '\t']);
    let rest = line.trim_start_matches([' ', '\t']);
    let name_len = rest.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    let starts_name = rest.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
    let after_name = rest.get(name_len..).unwrap_or("").trim_start_matches([' ', '\t']);
    match keyword {
        "import" => rest.starts_with('"'),
        "triangle" => rest.is_empty() || rest.starts_with('{'),
        // Names and commas to the end of the line.
        "movement" => {
            starts_name
                && rest.split(',').all(|part| {
                    let part = part.trim_matches([' ', '\t']);
                    part.is_empty() || part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
                })
        }
        // A name, then the end of the line or what may follow a definition's name: a body, a
        // title, parameters, or a word (`on`, `stacks`, `doc`, `for`, `physical`, `clears`...).
        _ => {
            starts_name
                && (after_name.is_empty()
                    || after_name.starts_with(['{', '"', '('])
                    || after_name.starts_with(|c: char| c.is_ascii_alphabetic()))
        }
    }
}

/// The indentation (spaces and tabs) of the line holding byte `at`, as written.
fn indent_text(text: &str, at: usize) -> &str {
    let start = text.get(..at).and_then(|t| t.rfind('\n')).map_or(0, |n| n + 1);
    let line = text.get(start..).unwrap_or("");
    let n = line.bytes().take_while(|b| *b == b' ' || *b == b'\t').count();
    line.get(..n).unwrap_or("")
}

/// The length of the indentation of the line holding byte `at`.
fn indent_of(text: &str, at: usize) -> usize {
    indent_text(text, at).len()
}

/// Whether two indentations are made of one character, spaces or tabs, alike.
fn same_kind(a: &str, b: &str) -> bool {
    let all = |c: u8| a.bytes().chain(b.bytes()).all(|x| x == c);
    all(b' ') || all(b'\t')
}

/// Whether only blanks come before byte `at` on its line.
fn at_line_start_of(text: &str, at: usize) -> bool {
    let start = text.get(..at).and_then(|t| t.rfind('\n')).map_or(0, |n| n + 1);
    text.get(start..at).is_some_and(|before| before.bytes().all(|b| b == b' ' || b == b'\t'))
}

/// The line number (from 1) of byte `at`.
fn line_of(text: &str, at: usize) -> usize {
    text.get(..at).map_or(0, |t| t.matches('\n').count()) + 1
}

/// An item's block never closed, where a `{` inside it is the likely one: the `}` that closed
/// that `{` (`closer`) is indented as an outer block's, so it closes that block by its
/// indentation, and the `{` (`opener`) is the one with no `}` of its own. Said at the opener,
/// the outer block and the closer beside it (rustc says the outer one alone, then guesses).
fn unclosed_inside(file: FileId, text: &str, (outer, open): (usize, u8), opener: usize, closer: usize) -> Diagnostic {
    let (outer_line, opener_line, closer_line) = (line_of(text, outer), line_of(text, opener), line_of(text, closer));
    Diagnostic::error(UNCLOSED, Span::new(file, opener, opener + 1), "this `{` is never closed")
        .with_label("opened here, and no `}` of its indentation closes it")
        .with_secondary(
            Span::new(file, closer, closer + 1),
            format!("this `}}` is indented as line {outer_line}'s block: it closes line {opener_line}'s `{{` instead"),
        )
        .with_secondary(
            Span::new(file, outer, outer + 1),
            format!("so this `{}` is left open to the end of the definition", open as char),
        )
        .with_help(match ends_before(text, opener).filter(|l| *l < closer_line) {
            Some(next) => format!(
                "add the `}}` that closes line {opener_line}'s block where it ends: by its indentation, before line {next}"
            ),
            None => format!("add the `}}` that closes line {opener_line}'s block before line {closer_line}'s `}}`"),
        })
}

/// The first line after the one holding byte `at` that is indented no deeper than it (blank
/// lines and comments aside): where that line's block ends, by its indentation.
fn ends_before(text: &str, at: usize) -> Option<usize> {
    let indent = indent_of(text, at);
    let first = line_of(text, at);
    text.lines().enumerate().skip(first).find_map(|(k, line)| {
        let body = line.trim_start_matches([' ', '\t']);
        let deep = line.len() - body.len();
        (!body.trim().is_empty() && !body.starts_with("//") && deep <= indent).then_some(k + 1)
    })
}

fn unclosed(file: FileId, at: usize, open: u8) -> Diagnostic {
    Diagnostic::error(UNCLOSED, Span::new(file, at, at + 1), format!("this `{}` is never closed", open as char))
        .with_label("opened here")
        .with_help(format!("add the matching `{}` where this block ends", closing(open)))
}

fn closing(open: u8) -> char {
    match open {
        b'(' => ')',
        b'[' => ']',
        _ => '}',
    }
}

fn utf8_len(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// The length of the whitespace and comments at the start of `source`.
fn trivia_len(source: &str) -> usize {
    let mut rest = source;
    loop {
        // A UTF-8 byte order mark (some Windows editors write one) is trivia like a space.
        let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{FEFF}');
        if let Some(after) = trimmed.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else if trimmed.starts_with("/*") {
            // Block comments were validated by the scanner; nested ones end at the last `*/`
            // of their own nesting, which `skip_block_comment` finds.
            rest = skip_block_comment(trimmed).unwrap_or("");
        } else {
            return source.len() - trimmed.len();
        }
    }
}

/// What follows the (nested) block comment `text` starts with; `None` if it is never closed.
pub(crate) fn skip_block_comment(text: &str) -> Option<&str> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        if bytes.get(i) == Some(&b'/') && bytes.get(i + 1) == Some(&b'*') {
            depth += 1;
            i += 2;
        } else if bytes.get(i) == Some(&b'*') && bytes.get(i + 1) == Some(&b'/') {
            depth = depth.saturating_sub(1);
            i += 2;
            if depth == 0 {
                return text.get(i..);
            }
        } else {
            i += 1;
        }
    }
    None
}

/// An error for the first line of the file ended by a lone CR (one not followed by LF): the
/// rest reads up to the next LF as one line, so a `//` comment there would hide what follows
/// it without a word. A lone CR inside a string is also that string's control character.
fn lone_carriage_return(file: FileId, bytes: &[u8]) -> Option<Diagnostic> {
    // A run of CRs ended by LF (`\r\r\n`, line ends converted twice) still ends the line where
    // oc and editors end it; a run followed by anything else is lone (counted once a run).
    let mut lone = (0..bytes.len())
        .filter(|&i| bytes.get(i) == Some(&b'\r') && (i == 0 || bytes.get(i - 1) != Some(&b'\r')))
        .filter(|&i| bytes.get(i..).and_then(|rest| rest.iter().find(|c| **c != b'\r')) != Some(&b'\n'));
    let first = lone.next()?;
    let more = match lone.count() {
        0 => String::new(),
        n => format!(" (and {n} more)"),
    };
    Some(
        Diagnostic::error(
            LONE_CARRIAGE_RETURN,
            Span::new(file, first, first + 1),
            format!("a line ends with a lone carriage return (CR){more}: `oc` ends lines at a line feed only"),
        )
        .with_label("a CR not followed by LF")
        .with_help("save the file with LF (Unix) or CRLF (Windows) line endings: as it is, the text up to the next line feed is read as one line, and a `//` comment there hides what follows it"),
    )
}

/// An error for the control character of `width` bytes at `at` in a string, the first of
/// `count` in it.
fn control_character(file: FileId, text: &str, at: usize, width: usize, count: usize) -> Diagnostic {
    let c = text.get(at..).and_then(|t| t.chars().next()).unwrap_or('\0');
    let more = match count {
        0 | 1 => String::new(),
        n => format!(" (and {} more)", n - 1),
    };
    Diagnostic::error(
        CONTROL_CHARACTER,
        Span::new(file, at, at + width),
        format!("a string holds the control character U+{:04X}{more}", u32::from(c)),
    )
    .with_label("a control character")
    .with_help("delete it, or write `\\n` or `\\t` for a line break or a tab: other control characters act on the terminal that shows the string")
}

/// The escapes a string may hold: `\n`, `\t`, `\"` and `\\`.
const ESCAPES: [char; 4] = ['n', 't', '"', '\\'];

/// An error for the backslash at `at` in a string when what follows is no escape (a line's end
/// is the unclosed string's error). In an import it is most likely a Windows path.
fn unknown_escape(file: FileId, text: &str, at: usize, in_import: bool) -> Option<Diagnostic> {
    let c = text.get(at + 1..)?.chars().next()?;
    if ESCAPES.contains(&c) || c == '\n' || c == '\r' {
        return None;
    }
    let help = if in_import {
        "use `/` in paths, on every system: `import \"tags/storm.oc\"`".to_string()
    } else {
        "the escapes are `\\n` (a line break), `\\t` (a tab), `\\\"` (a quote) and `\\\\` (a backslash)".to_string()
    };
    Some(
        Diagnostic::error(
            UNKNOWN_ESCAPE,
            Span::new(file, at, at + 1 + c.len_utf8()),
            format!("unknown escape `\\{}` in a string", c.escape_debug()),
        )
        .with_label("not an escape")
        .with_help(help),
    )
}
