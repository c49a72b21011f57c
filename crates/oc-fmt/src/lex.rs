//! A lossless tokenizer: every byte of the input belongs to exactly one token, so the tokens
//! joined give the text back. Comments and whitespace are tokens like any other.
//!
//! It cuts text the way the grammar does (`grammar/oc.pest`): `//` comments run to the end of
//! the line, `/* */` comments nest, strings end at `"` and never span lines, names are
//! `[A-Za-z_][A-Za-z0-9_]*`. A sign is never part of a number here: `-2` is `-` then `2`, and the
//! layout pass decides from the context whether the two stay glued.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Spaces, tabs, carriage returns not ending a line, byte order marks.
    Space,
    /// `\n` or `\r\n`.
    Newline,
    /// `// ...` up to (not including) the end of the line.
    LineComment,
    /// `/* ... */`, nested comments included; may span lines.
    BlockComment,
    /// A name or a keyword (`d100` and `true` are words too).
    Word,
    /// Digits only.
    Int,
    /// Dice without listed faces: `d100`, `2d6`, `d10!`, `4d6kh3`.
    Dice,
    /// The head of dice with listed faces, up to its brace: `3d{`.
    DiceOpen,
    /// Their closing brace with what follows it: `}`, `}!`, `}kh2`.
    DiceClose,
    /// `"..."` with its quotes.
    Str,
    /// An operator or a bracket: `{ } ( ) [ ] , ; : . .. = += -= == != < <= > >= -> + - * / %`.
    Punct,
    /// Any other character (never in a file that parses).
    Other,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    pub kind: Kind,
    pub text: &'a str,
}

const TWO_CHAR_PUNCT: &[&str] = &["..", "==", "!=", "<=", ">=", "+=", "-=", "->"];
const ONE_CHAR_PUNCT: &[u8] = b"{}()[],;:.=<>+-*/%";

/// Cuts `text` into tokens. Never fails: what it does not know becomes an [`Kind::Other`].
pub fn tokenize(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut tokens = Vec::new();
    let mut i = 0;
    // Inside the braces of listed faces (`d{0, 1, 2}`), where `}` closes the dice.
    let mut in_dice = false;
    while i < bytes.len() {
        let (kind, len) = match (in_dice, bytes.get(i)) {
            (true, Some(b'}')) => (Kind::DiceClose, 1 + dice_suffix_len(bytes.get(i + 1..).unwrap_or(&[]))),
            // A named face, `save=1`: one token, printed as written.
            (true, Some(_)) if named_face_len(bytes.get(i..).unwrap_or(&[])) > 0 => {
                (Kind::Int, named_face_len(bytes.get(i..).unwrap_or(&[])))
            }
            _ => next_token(text, i),
        };
        in_dice = match kind {
            Kind::DiceOpen => true,
            Kind::DiceClose => false,
            _ => in_dice,
        };
        // Every branch of `next_token` consumes at least one whole character.
        let end = (i + len.max(1)).min(bytes.len());
        let end = (end..=bytes.len()).find(|&e| text.is_char_boundary(e)).unwrap_or(bytes.len());
        if let Some(piece) = text.get(i..end) {
            tokens.push(Token { kind, text: piece });
        }
        i = end;
    }
    tokens
}

/// The length of a named face at the start of `rb` (`save=1`, `down=-1`), or 0.
fn named_face_len(rb: &[u8]) -> usize {
    if !rb.first().is_some_and(|b| b.is_ascii_alphabetic()) {
        return 0;
    }
    let name = rb.iter().take_while(|b| b.is_ascii_alphanumeric() || **b == b'_').count();
    if rb.get(name) != Some(&b'=') || rb.get(name + 1) == Some(&b'=') {
        return 0;
    }
    let sign = usize::from(rb.get(name + 1) == Some(&b'-'));
    let digits = rb.get(name + 1 + sign..).map_or(0, |r| r.iter().take_while(|b| b.is_ascii_digit()).count());
    if digits == 0 {
        0
    } else {
        name + 1 + sign + digits
    }
}

fn is_word_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_word_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The kind and byte length of the token starting at `at`.
fn next_token(text: &str, at: usize) -> (Kind, usize) {
    let rest = text.get(at..).unwrap_or("");
    let rb = rest.as_bytes();
    let count = |pred: &dyn Fn(u8) -> bool| rb.iter().take_while(|&&b| pred(b)).count();
    let Some(&first) = rb.first() else { return (Kind::Other, 0) };
    match first {
        b'\n' => (Kind::Newline, 1),
        b'\r' if rb.get(1) == Some(&b'\n') => (Kind::Newline, 2),
        b' ' | b'\t' | b'\r' => (Kind::Space, space_len(rb)),
        b'/' if rb.get(1) == Some(&b'/') => (Kind::LineComment, rest.find('\n').unwrap_or(rest.len())),
        b'/' if rb.get(1) == Some(&b'*') => (Kind::BlockComment, block_comment_len(rb)),
        b'"' => (Kind::Str, string_len(rb)),
        b'd' | b'0'..=b'9' if dice_len(rb).is_some() => dice_len(rb).unwrap_or((Kind::Other, 1)),
        b if is_word_start(b) => (Kind::Word, count(&is_word_char)),
        b if b.is_ascii_digit() => (Kind::Int, count(&|b| b.is_ascii_digit())),
        _ if rest.starts_with('\u{FEFF}') => (Kind::Space, '\u{FEFF}'.len_utf8()),
        _ => {
            if TWO_CHAR_PUNCT.iter().any(|p| rest.starts_with(p)) {
                (Kind::Punct, 2)
            } else if ONE_CHAR_PUNCT.contains(&first) {
                (Kind::Punct, 1)
            } else {
                (Kind::Other, rest.chars().next().map_or(1, char::len_utf8))
            }
        }
    }
}

/// Dice at the start of `rb` as the grammar's `die` reads them: digits, `d`, then digits with
/// an optional `!` (not `!=`) and `khN`/`klN`, not followed by a name character; or `{`, which
/// opens listed faces.
fn dice_len(rb: &[u8]) -> Option<(Kind, usize)> {
    let digits = |from: usize| rb.get(from..).unwrap_or(&[]).iter().take_while(|b| b.is_ascii_digit()).count();
    let d = digits(0);
    if rb.get(d) != Some(&b'd') {
        return None;
    }
    if rb.get(d + 1) == Some(&b'{') {
        return Some((Kind::DiceOpen, d + 2));
    }
    let sides = digits(d + 1);
    if sides == 0 {
        return None;
    }
    let end = d + 1 + sides;
    let end = end + dice_suffix_len(rb.get(end..).unwrap_or(&[]));
    if rb.get(end).is_some_and(|b| is_word_char(*b)) {
        return None;
    }
    Some((Kind::Dice, end))
}

/// An explosion mark (`!`, never the `!` of `!=`), a crit mark (`c`) and a keep (`kh3`, `kl1`).
fn dice_suffix_len(rb: &[u8]) -> usize {
    let mut i = 0;
    if rb.first() == Some(&b'!') && rb.get(1) != Some(&b'=') {
        i += 1;
    }
    if rb.get(i) == Some(&b'c') {
        i += 1;
    }
    if rb.get(i) == Some(&b'k') && matches!(rb.get(i + 1), Some(b'h' | b'l')) {
        let n = rb.get(i + 2..).unwrap_or(&[]).iter().take_while(|b| b.is_ascii_digit()).count();
        if n > 0 {
            i += 2 + n;
        }
    }
    i
}

/// Spaces, tabs and carriage returns, stopping before a `\r\n`.
fn space_len(rb: &[u8]) -> usize {
    let mut i = 0;
    while let Some(&b) = rb.get(i) {
        let ends_line = b == b'\r' && rb.get(i + 1) == Some(&b'\n');
        if !(b == b' ' || b == b'\t' || b == b'\r') || ends_line {
            break;
        }
        i += 1;
    }
    i
}

/// A `/* */` comment with its nested comments; an unclosed one runs to the end of the text.
fn block_comment_len(rb: &[u8]) -> usize {
    let mut depth = 0usize;
    let mut i = 0;
    while i < rb.len() {
        if rb.get(i) == Some(&b'/') && rb.get(i + 1) == Some(&b'*') {
            depth += 1;
            i += 2;
        } else if rb.get(i) == Some(&b'*') && rb.get(i + 1) == Some(&b'/') {
            depth = depth.saturating_sub(1);
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += 1;
        }
    }
    rb.len()
}

/// A string with its quotes; an unclosed one stops before the end of the line.
fn string_len(rb: &[u8]) -> usize {
    let mut i = 1;
    while let Some(&b) = rb.get(i) {
        match b {
            b'\\' if rb.get(i + 1).is_some_and(|&n| n != b'\n') => i += 2,
            b'"' => return i + 1,
            b'\n' => return i,
            _ => i += 1,
        }
    }
    rb.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<(Kind, &str)> {
        tokenize(text).into_iter().map(|t| (t.kind, t.text)).collect()
    }

    #[test]
    fn tokens_give_the_text_back() {
        for text in [
            "",
            "tag X on class { movement += 1 } // note\r\n",
            "a/* x /* nested */ y */b \"s\\\"t\" -2..+3 é \u{FEFF}x",
            "/* unclosed",
            "\"unclosed\nnext",
            "weight -2..2\n\n\t->==!=<=>=",
        ] {
            let joined: String = tokenize(text).iter().map(|t| t.text).collect();
            assert_eq!(joined, text);
        }
    }

    #[test]
    fn comments_strings_and_signs() {
        assert_eq!(
            kinds("x-1//c\n"),
            vec![(Kind::Word, "x"), (Kind::Punct, "-"), (Kind::Int, "1"), (Kind::LineComment, "//c"), (Kind::Newline, "\n")]
        );
        assert_eq!(kinds("/*a/*b*/c*/"), vec![(Kind::BlockComment, "/*a/*b*/c*/")]);
        assert_eq!(kinds("\"a//b\""), vec![(Kind::Str, "\"a//b\"")]);
        assert_eq!(
            kinds("d100 1..2"),
            vec![(Kind::Dice, "d100"), (Kind::Space, " "), (Kind::Int, "1"), (Kind::Punct, ".."), (Kind::Int, "2")]
        );
    }

    #[test]
    fn dice_are_one_token_or_a_bracketed_list() {
        assert_eq!(kinds("2d6+d10!"), vec![(Kind::Dice, "2d6"), (Kind::Punct, "+"), (Kind::Dice, "d10!")]);
        assert_eq!(kinds("d10!=3"), vec![(Kind::Dice, "d10"), (Kind::Punct, "!="), (Kind::Int, "3")]);
        assert_eq!(kinds("4d6kh3 d2_x"), vec![(Kind::Dice, "4d6kh3"), (Kind::Space, " "), (Kind::Word, "d2_x")]);
        assert_eq!(
            kinds("3d{0,1}!kl2"),
            vec![(Kind::DiceOpen, "3d{"), (Kind::Int, "0"), (Kind::Punct, ","), (Kind::Int, "1"), (Kind::DiceClose, "}!kl2")]
        );
    }
}
