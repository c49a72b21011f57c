//! The words the grammar accepts where a rule starts (its FIRST set of keywords), read from the
//! grammar's own text, so that a misspelt keyword gets a did-you-mean from exactly the words
//! that fit there (`clas` -> `class`, `seise` -> `seize`) — and stays right when the grammar grows.

use std::collections::{BTreeSet, HashMap};
use std::sync::OnceLock;

const GRAMMAR: &str = include_str!("../../../grammar/oc.pest");

/// Whether `word` reads as something other than a name where a name may stand: a keyword of the
/// grammar (`true`, `not`, `if`...: every `kw_` rule's word), a unit's role (`self`, `foe`...)
/// or dice (`d6`, `2d6`). A definition renamed to one would change what its uses mean.
pub fn reserved(word: &str) -> bool {
    static WORDS: OnceLock<BTreeSet<&'static str>> = OnceLock::new();
    let words = WORDS.get_or_init(|| {
        let mut words: BTreeSet<&'static str> = ["self", "user", "foe", "attacker", "defender", "target", "roll"].into();
        for (name, body) in rules() {
            if let Some(word) = name.strip_prefix("kw_").and_then(|_| body.split('"').nth(1)) {
                words.insert(word);
            }
        }
        words
    });
    words.contains(word) || reads_as_dice(word)
}

/// Whether a word that reads as a name reads as dice too, as the grammar's `die` takes it: `d`,
/// its sides, a critical `c`, a keep `kh`/`kl` and a count, and nothing after (`d6`, `d20c`,
/// `d6kh1`; not `d6x` nor `d20_bonus`, which are names).
fn reads_as_dice(word: &str) -> bool {
    let digits = |s: &str| s.len() - s.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let Some(rest) = word.strip_prefix('d') else { return false };
    let n = digits(rest);
    if n == 0 {
        return false;
    }
    let rest = rest.get(n..).unwrap_or("");
    let rest = rest.strip_prefix('c').unwrap_or(rest);
    match rest.strip_prefix("kh").or_else(|| rest.strip_prefix("kl")) {
        Some(count) => digits(count) > 0 && digits(count) == count.len(),
        None => rest.is_empty(),
    }
}

/// Rule name -> its body, from the grammar text.
fn rules() -> &'static HashMap<&'static str, &'static str> {
    static RULES: OnceLock<HashMap<&'static str, &'static str>> = OnceLock::new();
    RULES.get_or_init(|| {
        let mut out = HashMap::new();
        let mut offset = 0;
        for line in GRAMMAR.split_inclusive('\n') {
            let start = offset;
            offset += line.len();
            // A rule starts a line: `name = { ... }`, `name = @{ ... }` ...
            let Some((name, rest)) = line.split_once('=') else { continue };
            let name = name.trim();
            if name.is_empty()
                || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                || line.starts_with(char::is_whitespace)
            {
                continue;
            }
            let Some(brace) = rest.find('{') else { continue };
            if !rest.get(..brace).unwrap_or("").trim().chars().all(|c| "_@$!".contains(c)) {
                continue;
            }
            let open = start + (line.len() - rest.len()) + brace;
            let tail = GRAMMAR.get(open..).unwrap_or("");
            if let Some(close) = closing(tail, 0) {
                out.insert(name, tail.get(1..close).unwrap_or(""));
            }
        }
        out
    })
}

/// The index of the `}` closing the `{` at `open`, skipping string literals and comments.
fn closing(text: &str, open: usize) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'"' => {
                i += 1;
                while let Some(&c) = bytes.get(i) {
                    match c {
                        b'\\' => i += 1,
                        b'"' => break,
                        _ => {}
                    }
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while bytes.get(i).is_some_and(|c| *c != b'\n') {
                    i += 1;
                }
            }
            b'{' => depth += 1,
            b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[derive(Debug, Clone, PartialEq)]
enum Token<'a> {
    Literal(&'a str),
    Name(&'a str),
    Open,
    Close,
    Alt,
    /// `?` or `*`: the element before may be absent.
    Optional,
    /// `!` or `&`: a look-ahead, which consumes nothing.
    Predicate,
    Other,
}

fn tokens(body: &str) -> Vec<Token<'_>> {
    let mut out = Vec::new();
    let mut chars = body.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                let mut end = i + 1;
                let mut escaped = false;
                for (j, d) in chars.by_ref() {
                    end = j;
                    if escaped {
                        escaped = false;
                    } else if d == '\\' {
                        escaped = true;
                    } else if d == '"' {
                        break;
                    }
                }
                out.push(Token::Literal(body.get(i + 1..end).unwrap_or("")));
            }
            '(' => out.push(Token::Open),
            ')' => out.push(Token::Close),
            '|' => out.push(Token::Alt),
            '?' | '*' => out.push(Token::Optional),
            '!' | '&' => out.push(Token::Predicate),
            c if c.is_ascii_alphabetic() || c == '_' => {
                let mut end = i + c.len_utf8();
                while let Some(&(j, d)) = chars.peek() {
                    if d.is_ascii_alphanumeric() || d == '_' {
                        end = j + d.len_utf8();
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push(Token::Name(body.get(i..end).unwrap_or("")));
            }
            c if c.is_whitespace() || c == '~' => {}
            _ => out.push(Token::Other),
        }
    }
    out
}

/// One element of a sequence: where it ends, and whether it may match nothing.
fn element_end(toks: &[Token], at: usize) -> usize {
    match toks.get(at) {
        Some(Token::Open) => {
            let mut depth = 0;
            for (i, t) in toks.iter().enumerate().skip(at) {
                match t {
                    Token::Open => depth += 1,
                    Token::Close => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
            }
            toks.len()
        }
        Some(_) => at + 1,
        None => at,
    }
}

/// The keywords a token sequence (alternatives at the top level) can start with.
fn first_of(toks: &[Token], seen: &mut BTreeSet<String>, out: &mut BTreeSet<&'static str>) {
    // Split at top-level `|`.
    let mut depth = 0i32;
    let mut start = 0;
    let mut alternatives = Vec::new();
    for (i, t) in toks.iter().enumerate() {
        match t {
            Token::Open => depth += 1,
            Token::Close => depth -= 1,
            Token::Alt if depth == 0 => {
                alternatives.push(toks.get(start..i).unwrap_or(&[]));
                start = i + 1;
            }
            _ => {}
        }
    }
    alternatives.push(toks.get(start..).unwrap_or(&[]));
    for alt in alternatives {
        let mut at = 0;
        while at < alt.len() {
            if alt.get(at) == Some(&Token::Predicate) {
                at = element_end(alt, at + 1);
                continue;
            }
            let end = element_end(alt, at);
            match alt.get(at) {
                Some(Token::Literal(l)) if is_keyword(l) => {
                    if let Some(word) = keyword(l) {
                        out.insert(word);
                    }
                }
                Some(Token::Name(n)) => rule_first(n, seen, out),
                Some(Token::Open) => first_of(alt.get(at + 1..end.saturating_sub(1)).unwrap_or(&[]), seen, out),
                _ => {}
            }
            if alt.get(end) == Some(&Token::Optional) {
                at = end + 1;
            } else {
                break;
            }
        }
    }
}

fn is_keyword(word: &str) -> bool {
    word.len() >= 2 && word.chars().all(|c| c.is_ascii_lowercase() || c == '_')
}

/// The literal as a `'static` word (literals live in the grammar text).
fn keyword(word: &str) -> Option<&'static str> {
    let at = GRAMMAR.find(&format!("\"{word}\""))?;
    GRAMMAR.get(at + 1..at + 1 + word.len())
}

fn rule_first(name: &str, seen: &mut BTreeSet<String>, out: &mut BTreeSet<&'static str>) {
    // Built-in rules (ASCII_ALPHA, SOI ...) and the trivia rules start with no keyword.
    if !seen.insert(name.to_string()) || matches!(name, "WHITESPACE" | "COMMENT") {
        return;
    }
    if let Some(body) = rules().get(name) {
        first_of(&tokens(body), seen, out);
    }
}

/// The keywords the rule named `rule` may start with (empty for a rule that starts with a name,
/// a number or punctuation).
pub fn first_words(rule: &str) -> BTreeSet<&'static str> {
    let mut out = BTreeSet::new();
    rule_first(rule, &mut BTreeSet::new(), &mut out);
    out
}

/// Whether `word` is a keyword of the grammar (some `kw_*` rule's word).
pub fn is_grammar_keyword(word: &str) -> bool {
    rules().iter().any(|(name, body)| name.starts_with("kw_") && body.contains(&format!("\"{word}\"")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn first_words_follow_the_grammar() {
        let item: Vec<&str> = first_words("item").into_iter().collect();
        for w in ["army", "class", "consumable", "import", "ruleset", "scenario", "tag", "terrain", "triangle", "weapon"] {
            assert!(item.contains(&w), "{w} not in {item:?}");
        }
        assert!(first_words("event").contains("start_of_round"));
        assert!(first_words("cond").contains("survive"));
        assert!(first_words("cond").contains("not"));
        assert!(first_words("c_rout").contains("rout"));
        assert!(first_words("class_entry").contains("ratings"));
        // A rule that starts with a name offers no keyword.
        assert!(first_words("formula").is_empty());
        assert!(is_grammar_keyword("rout"));
        assert!(!is_grammar_keyword("Lucky"));
    }
}
