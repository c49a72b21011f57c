//! A map file the TOML reader refused, in the map format's words: which key, what it holds,
//! where the first of a duplicate is, what a chest or a region has. The reader's own message is
//! kept only where nothing better is known.

use oc_diag::{Diagnostic, FileId, Span};

use crate::codes::{FIELD, TOML};

/// The diagnostic for a map text `toml` could not read into the map format.
pub(crate) fn diagnostic(file: FileId, text: &str, e: &toml::de::Error) -> Diagnostic {
    let r = e.span().unwrap_or(0..text.len().min(1));
    let span = Span::new(file, r.start, r.end);
    let message = e.message().lines().next().unwrap_or("invalid map").to_string();
    let table = table_at(text, r.start);
    if message.starts_with("duplicate key") {
        return duplicate(file, text, span, &table);
    }
    if message.starts_with("invalid basic string") || message.starts_with("invalid literal string") {
        if let Some(d) = unclosed_string(file, text, r.start) {
            return d;
        }
    }
    let code = if ["missing field", "unknown field", "invalid type", "invalid length", "invalid value"]
        .iter()
        .any(|m| message.contains(m))
    {
        FIELD
    } else {
        TOML
    };
    // The key whose value this is (`rect = [0, 8, 4]`): the text before the span on its line.
    let line_start = text.get(..r.start).and_then(|b| b.rfind('\n')).map_or(0, |i| i + 1);
    let key = text.get(line_start..r.start).and_then(|l| l.split_once('=')).map(|(k, _)| k.trim().trim_matches('"'));
    if let (Some(key), Some((got, want))) = (key, lengths(&message)) {
        if let Some(help) = key_help(key) {
            let message = format!("`{key}` has {got} value{} where {want} are expected", if got == 1 { "" } else { "s" });
            return Diagnostic::error(FIELD, span, message).with_label(format!("{got} here")).with_help(help);
        }
    }
    let typed = key.filter(|_| message.contains("invalid type")).and_then(key_help);
    let message = match (&table, message.strip_prefix("missing field ")) {
        (Some(t), Some(field)) => format!("this {} has no {field}", singular(t)),
        _ => message,
    };
    // An unknown key or value the reader lists the known ones of: the one meant, first.
    let near = unknown_and_known(&message)
        .and_then(|(got, known)| oc_diag::did_you_mean(got, known.iter().copied()))
        .map(str::to_string);
    // A number written as a string (`height = "12"`): said in the map's words.
    let message = match quoted_number(&message) {
        Some((got, want)) => format!("`{}` is {want}, not a string: write {got} without quotes", key.unwrap_or("this value")),
        None => message.clone(),
    };
    let help = match (typed, near) {
        (_, Some(near)) => format!("did you mean `{near}`?"),
        (Some(h), None) => h.to_string(),
        (None, None) if code == FIELD => match table.as_deref().and_then(table_help) {
            Some(h) => h.to_string(),
            None => "a map has name, width, height and rows, and may have grid, image, rounds, rules, allow, [legend], [[regions]], [[chests]], [[doors]] and [[destructibles]]".to_string(),
        },
        (None, None) => "fix the TOML syntax here: a missing quote, comma or bracket is the usual cause".to_string(),
    };
    Diagnostic::error(code, span, message).with_help(help)
}

/// `unknown field `round`, expected one of `name`, `rounds`` (or `unknown variant`): the name
/// given and those known.
fn unknown_and_known(message: &str) -> Option<(&str, Vec<&str>)> {
    let rest = message.strip_prefix("unknown field ").or_else(|| message.strip_prefix("unknown variant "))?;
    let (got, known) = rest.split_once(", expected ")?;
    let got = got.trim_matches('`');
    let known: Vec<&str> = known.split('`').skip(1).step_by(2).collect();
    Some((got, known))
}

/// `invalid type: string "12", expected i64` -> ("12", "a whole number"), where the string is a
/// number.
fn quoted_number(message: &str) -> Option<(&str, &'static str)> {
    let rest = message.strip_prefix("invalid type: string \"")?;
    let (got, want) = rest.split_once("\", expected ")?;
    // Only where writing it without quotes reads it (not `"12.5"` for a whole number, nor `"nan"`).
    let want = match want {
        "i64" | "u64" | "u32" | "i32" | "usize" | "u16" | "u8" => got.parse::<i64>().ok().map(|_| "a whole number")?,
        "f64" | "f32" => got.parse::<f64>().ok().filter(|f| f.is_finite()).map(|_| "a number")?,
        _ => return None,
    };
    Some((got, want))
}

/// `invalid length 3, expected an array of length 4` -> (3, 4).
fn lengths(message: &str) -> Option<(usize, usize)> {
    let rest = message.strip_prefix("invalid length ")?;
    let (got, rest) = rest.split_once(',')?;
    let want = rest.rsplit(' ').next()?;
    Some((got.trim().parse().ok()?, want.trim().parse().ok()?))
}

/// The `[table]` or `[[array]]` header the offset lies under, by name (`chests`), if any.
fn table_at(text: &str, at: usize) -> Option<String> {
    let before = text.get(..at.min(text.len()))?;
    // The header may be the span itself (a missing field is reported on the header).
    let upto = text.get(at..).and_then(|rest| rest.find('\n')).map_or(text.len(), |n| at + n);
    let scan = text.get(..upto).unwrap_or(before);
    scan.lines()
        .rev()
        .map(str::trim)
        .find(|l| l.starts_with('[') && !l.starts_with("[\"") && !l.contains('='))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_string())
}

fn singular(table: &str) -> String {
    match table {
        "chests" => "chest".into(),
        "regions" => "region".into(),
        "doors" => "door".into(),
        "destructibles" => "destructible".into(),
        other => format!("[{other}]"),
    }
}

/// What an entry of a table holds.
fn table_help(table: &str) -> Option<&'static str> {
    Some(match table {
        "chests" => "a chest has `at = [x, y]` and the `item` inside, an item of the rules: item = \"Vulnerary\"",
        "regions" => "a region has `name`, `kind` and its tiles (`rect = [x, y, width, height]` or `tiles = [[x, y], ...]`); a deployment zone also `side` and `units`",
        "doors" => "a door has `at = [x, y]`, on terrain that opens (the standard library's Door)",
        "destructibles" => "a wall or snag that can be struck down has `at = [x, y]` and may have `hp`",
        "legend" => "the legend maps one symbol to a terrain: \"f\" = \"Forest\"",
        _ => return None,
    })
}

/// What a key of the map format holds, for a value of the wrong type or length.
pub(crate) fn key_help(key: &str) -> Option<&'static str> {
    Some(match key {
        "grid" => "grid is a number of pixels per tile, like 70 (8 to 1024)",
        "width" | "height" => "width and height are numbers of tiles, 1 to 512",
        "rounds" => "rounds is a number: the time limit the reachability lints measure against",
        "name" | "image" | "rules" | "item" | "kind" | "side" => "this is a string in double quotes",
        "rows" => "rows is a list of strings, one per row: rows = [\"..f.\", \".^..\"]",
        "allow" => "allow is a list of codes: allow = [\"oc::atlas::unused_legend\"]",
        "at" => "at is a tile [x, y], counted from 0: x to the right, y down",
        "rect" => "rect is [x, y, width, height], counted from the top-left tile [0, 0]",
        "tiles" => "tiles is a list of [x, y] pairs: tiles = [[0, 0], [1, 0]]",
        "units" | "hp" => "this is a whole number of at least 1",
        _ => return None,
    })
}

/// A key set twice in one table: named, with the first one pointed at.
fn duplicate(file: FileId, text: &str, span: Span, table: &Option<String>) -> Diagnostic {
    let (start, end) = (span.start as usize, span.end as usize);
    let key = text.get(start..end).unwrap_or("").trim().trim_matches('"').to_string();
    let Some(first) = first_definition(text, start, &key) else {
        return Diagnostic::error(TOML, span, format!("`{key}` is set twice"))
            .with_help("each key is set once in its table: keep one of them");
    };
    let place = table.as_deref().map_or("the map".to_string(), |t| format!("this {}", singular(t)));
    Diagnostic::error(TOML, span, format!("`{key}` is set twice in {place}"))
        .with_label("set again here")
        .with_secondary(Span::new(file, first, first + key.len()), "first set here")
        .with_help(format!("keep one `{key} = ...` and remove the other"))
}

/// Where `key` was first set in the table holding `at` (after that table's header).
fn first_definition(text: &str, at: usize, key: &str) -> Option<usize> {
    if key.is_empty() {
        return None;
    }
    let before = text.get(..at)?;
    let mut offset = 0;
    let mut found = None;
    for line in before.split_inclusive('\n') {
        let trimmed = line.trim_start();
        if trimmed.starts_with('[') && !trimmed.starts_with("[\"") {
            found = None;
        } else if found.is_none() {
            let k = trimmed.split('=').next().unwrap_or("").trim().trim_matches('"');
            if k == key && trimmed.contains('=') {
                found = Some(offset + (line.len() - trimmed.len()) + usize::from(trimmed.starts_with('"')));
            }
        }
        offset += line.len();
    }
    found
}

/// A string the line ends inside: reported at its opening quote.
fn unclosed_string(file: FileId, text: &str, at: usize) -> Option<Diagnostic> {
    let line_start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let line = text.get(line_start..at)?;
    // The last quote that opens a string on the line: after an even number of quotes.
    let mut open = None;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in line.char_indices() {
        match quote {
            Some(q) => {
                if escaped {
                    escaped = false;
                } else if c == '\\' && q == '"' {
                    escaped = true;
                } else if c == q {
                    quote = None;
                }
            }
            None if c == '"' || c == '\'' => {
                quote = Some(c);
                open = Some(i);
            }
            None if c == '#' => break,
            None => {}
        }
    }
    let (open, q) = (open?, quote?);
    let at = line_start + open;
    Some(
        Diagnostic::error(TOML, Span::new(file, at, at + 1), "this string is never closed")
            .with_label("opened here")
            .with_help(format!("add the closing `{q}` before the line ends: a map's strings are on one line")),
    )
}
