//! Diagnostics as plain data.
//!
//! Every phase (syntax, compiler, atlas, project, balance; the engine's refusals through one
//! conversion each) reports problems as [`Diagnostic`] values: a stable code, a severity, a
//! message, a primary [`Span`], secondary labels and a help line. Nothing here knows how
//! diagnostics are rendered: the CLI does that with miette or as JSON, `oc-lsp` as LSP's.
//!
//! **Invariant:** codes are stable and never reused. Every code a crate can emit is listed in
//! that crate's `CODES` table with a title and the long text `oc explain CODE` prints.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

use serde::Serialize;

mod name;
pub use name::Name;

/// Identifies one source text. The CLI owns the mapping from ids to paths and texts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FileId(pub u32);

/// A byte range in one file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct Span {
    pub file: FileId,
    pub start: u32,
    pub end: u32,
}

impl Span {
    #[inline]
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        let start = u32::try_from(start).unwrap_or(u32::MAX);
        let end = u32::try_from(end).unwrap_or(u32::MAX).max(start);
        Span { file, start, end }
    }
    /// A span covering both `self` and `other` (which must be in the same file).
    #[inline]
    pub fn to(self, other: Span) -> Span {
        Span { file: self.file, start: self.start.min(other.start), end: self.end.max(other.end) }
    }
    #[inline]
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
    #[inline]
    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }
    #[inline]
    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

/// A value together with the place it was written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spanned<T> {
    pub value: T,
    pub span: Span,
}

impl<T> Spanned<T> {
    pub fn new(value: T, span: Span) -> Self {
        Spanned { value, span }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    pub span: Span,
    pub message: String,
}

/// One problem found in the user's input.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub code: &'static str,
    pub severity: Severity,
    pub message: String,
    pub span: Span,
    /// What to say at the primary span (shown under the caret); defaults to the message.
    pub label: Option<String>,
    pub secondary: Vec<Label>,
    pub help: String,
}

impl Diagnostic {
    pub fn error(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            span,
            label: None,
            secondary: Vec::new(),
            help: String::new(),
        }
    }
    pub fn warning(code: &'static str, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, span, message) }
    }
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = help.into();
        self
    }
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = Some(label.into());
        self
    }
    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.secondary.push(Label { span, message: message.into() });
        self
    }
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

/// The documentation of one diagnostic code, for `oc explain`.
#[derive(Clone, Copy, Debug)]
pub struct CodeInfo {
    pub code: &'static str,
    pub title: &'static str,
    /// The long text: what the problem is, why it matters, an example and the fix.
    pub explanation: &'static str,
}

impl CodeInfo {
    /// A code no longer emitted (its title starts with "retired:"): kept listed so that it is
    /// never reused, its explanation naming what replaced it.
    pub fn retired(&self) -> bool {
        self.title.starts_with("retired:")
    }
}

/// Where each line of a text starts: the line of many offsets without reading the text from its
/// start for each (what [`line_col`] does). Reports, the language server and the documentation
/// site each place thousands of spans in one file.
#[derive(Clone, Debug)]
pub struct LineStarts {
    starts: Vec<usize>,
    /// The characters before each multiple of [`CHECKPOINT`] bytes: a column far into a long
    /// line is counted from the nearest, not from the line's start (thousands of reports on one
    /// line of a megabyte each counted the line again).
    chars: Vec<usize>,
}

/// Bytes between two of [`LineStarts`]' character counts.
const CHECKPOINT: usize = 4096;

impl LineStarts {
    pub fn new(text: &str) -> LineStarts {
        let starts =
            std::iter::once(0).chain(text.bytes().enumerate().filter(|(_, b)| *b == b'\n').map(|(i, _)| i + 1)).collect();
        let mut chars = Vec::with_capacity(text.len() / CHECKPOINT + 1);
        let mut before = 0;
        for block in text.as_bytes().chunks(CHECKPOINT) {
            chars.push(before);
            before += char_starts(block);
        }
        LineStarts { starts, chars }
    }

    /// The 0-based index of the line holding byte `at` (past the end: the last line), and where
    /// that line starts.
    pub fn line_of(&self, at: usize) -> (usize, usize) {
        let index = self.starts.partition_point(|&s| s <= at).saturating_sub(1);
        (index, self.start(index).unwrap_or(0))
    }

    /// Where the 0-based line `index` starts.
    pub fn start(&self, index: usize) -> Option<usize> {
        self.starts.get(index).copied()
    }

    /// Where the line holding byte `at` starts and ends (before its `\n`, or at the text's end),
    /// in `text`, the text these starts were taken from.
    pub fn bounds(&self, text: &str, at: usize) -> (usize, usize) {
        let (index, start) = self.line_of(at.min(text.len()));
        let end = self.start(index + 1).map_or(text.len(), |next| next - 1);
        (start, end.max(start))
    }

    /// The characters of `text` (these starts' text) before byte `at`, `at` on a character's
    /// first byte or the end.
    fn chars_before(&self, text: &str, at: usize) -> usize {
        let block = at / CHECKPOINT;
        let from = block * CHECKPOINT;
        self.chars.get(block).copied().unwrap_or(0) + text.as_bytes().get(from..at).map_or(0, char_starts)
    }

    /// The characters of `text` (these starts' text) from byte `from` to byte `to`, both on
    /// characters' first bytes: `text[from..to].chars().count()`, without reading a long stretch.
    pub fn chars_between(&self, text: &str, from: usize, to: usize) -> usize {
        if to <= from {
            return 0;
        }
        if to - from < 2 * CHECKPOINT {
            return text.get(from..to).map_or(to - from, |s| s.chars().count());
        }
        self.chars_before(text, to) - self.chars_before(text, from)
    }

    /// [`line_col`] of `offset` in `text`, the text these starts were taken from.
    pub fn line_col(&self, text: &str, offset: usize) -> (usize, usize) {
        let offset = offset.min(text.len());
        let (index, start) = self.line_of(offset);
        let col = if text.is_char_boundary(offset) && text.is_char_boundary(start) {
            self.chars_between(text, start, offset)
        } else {
            offset - start
        };
        (index + 1, col + 1)
    }
}

/// The characters that start in `bytes` (UTF-8: every byte but a continuation byte).
fn char_starts(bytes: &[u8]) -> usize {
    bytes.iter().filter(|b| (**b & 0xC0) != 0x80).count()
}

/// Line and column (both 1-based, column counted in characters) of a byte offset.
pub fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let mut line = 1;
    let mut line_start = 0;
    for (i, b) in text.bytes().enumerate().take(offset) {
        if b == b'\n' {
            line += 1;
            line_start = i + 1;
        }
    }
    let col = text.get(line_start..offset).map_or(offset - line_start, |s| s.chars().count()) + 1;
    (line, col)
}

/// `names` in words, each quoted: the first `shown`, and how many more (`` `a`, `b` and 3
/// more ``): a list in a message that stays a line long whatever the number.
pub fn first_and_more<S: AsRef<str>>(names: &[S], shown: usize) -> String {
    let mut words = names.iter().take(shown).map(|n| format!("`{}`", n.as_ref())).collect::<Vec<_>>().join(", ");
    if names.len() > shown {
        words.push_str(&format!(" and {} more", names.len() - shown));
    }
    words
}

/// `word` with its indefinite article by its first letter: "an Adept", "a Knight", "an Int".
pub fn article(word: &str) -> String {
    if word.starts_with(['a', 'e', 'i', 'o', 'u', 'A', 'E', 'I', 'O', 'U']) {
        format!("an {word}")
    } else {
        format!("a {word}")
    }
}

/// Names longer than this get no did-you-mean (the distance is quadratic in the lengths).
pub const MAX_SUGGESTION_LEN: usize = 64;

/// Suggests the closest of `candidates` to `wanted`, for "did you mean" help lines.
/// Case differences are cheap; otherwise the edit distance must be small for the length.
pub fn did_you_mean<'a, I>(wanted: &str, candidates: I) -> Option<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    // Names are short; a megabyte "name" gets no suggestion rather than hours of distances.
    let wanted_len = wanted.chars().count();
    if wanted_len > MAX_SUGGESTION_LEN {
        return None;
    }
    let limit = (wanted_len / 3).max(1);
    let lower = wanted.to_lowercase();
    let mut best: Option<(usize, &'a str)> = None;
    for candidate in candidates {
        let len = candidate.chars().count();
        if len.abs_diff(wanted_len) > limit {
            if candidate.to_lowercase() == lower {
                return Some(candidate);
            }
            continue;
        }
        let d = if candidate.to_lowercase() == lower { 0 } else { edit_distance(&lower, &candidate.to_lowercase()) };
        if best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, candidate));
        }
    }
    best.filter(|(d, _)| *d <= limit).map(|(_, c)| c)
}

/// Up to `n` of `candidates` close to `wanted` (the same closeness as [`did_you_mean`]), nearest
/// first (ties in the candidates' order): for help lines that offer several names.
pub fn closest<'a, I>(wanted: &str, candidates: I, n: usize) -> Vec<&'a str>
where
    I: IntoIterator<Item = &'a str>,
{
    let wanted_len = wanted.chars().count();
    if wanted_len > MAX_SUGGESTION_LEN {
        return Vec::new();
    }
    let limit = (wanted_len / 3).max(1);
    let lower = wanted.to_lowercase();
    let mut scored: Vec<(usize, usize, &'a str)> = candidates
        .into_iter()
        .enumerate()
        .filter_map(|(i, c)| {
            let other = c.to_lowercase();
            if other == lower {
                return Some((0, i, c));
            }
            if c.chars().count().abs_diff(wanted_len) > limit {
                return None;
            }
            let d = edit_distance(&lower, &other);
            (d <= limit).then_some((d, i, c))
        })
        .collect();
    scored.sort();
    scored.into_iter().take(n).map(|(_, _, c)| c).collect()
}

/// The optimal string alignment distance: insertions, deletions, substitutions and swaps of
/// two neighbouring characters each cost 1 (`Lcuky` is one from `Lucky`, where plain
/// Levenshtein counts a swap as two), no substring edited twice.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: the one two back (for swaps), the last and the current.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        if let Some(first) = cur.first_mut() {
            *first = i + 1;
        }
        for (j, cb) in b.iter().enumerate() {
            let sub = prev.get(j).copied().unwrap_or(0) + usize::from(ca != cb);
            let del = prev.get(j + 1).copied().unwrap_or(0) + 1;
            let ins = cur.get(j).copied().unwrap_or(0) + 1;
            let mut best = sub.min(del).min(ins);
            let swapped = i > 0 && j > 0 && a.get(i - 1) == Some(cb) && b.get(j - 1) == Some(ca) && ca != cb;
            if swapped {
                best = best.min(before.get(j - 1).copied().unwrap_or(0) + 1);
            }
            if let Some(slot) = cur.get_mut(j + 1) {
                *slot = best;
            }
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.last().copied().unwrap_or(0)
}

/// Declares a crate's diagnostic codes: a `pub const` per code, and the `CODES` table of
/// [`CodeInfo`] that `oc explain` prints from.
///
/// ```
/// oc_diag::codes! {
///     EXAMPLE = "oc::example::thing", "a one-line title", "The long explanation.";
/// }
/// assert_eq!(CODES[0].code, EXAMPLE);
/// ```
#[macro_export]
macro_rules! codes {
    ($( $konst:ident = $code:literal, $title:literal, $explanation:literal; )*) => {
        $( pub const $konst: &str = $code; )*
        pub const CODES: &[$crate::CodeInfo] = &[
            $( $crate::CodeInfo { code: $code, title: $title, explanation: $explanation }, )*
        ];
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_starts_place_offsets_as_line_col_does() {
        // Long lines of one-, two-, three- and four-byte characters across many checkpoints.
        let long: String = ['a', 'é', '€', '😀', '\n', 'b', 'c'].iter().cycle().take(20_000).collect();
        let one_line: String = "x€".repeat(9_000) + "\n" + &"é".repeat(5_000);
        for text in ["", "a", "\n", "ab\ncd\n", "é\nxé\n\nz", "\n\nab", "a\r\nb", &long, &one_line] {
            let starts = LineStarts::new(text);
            let step = if text.len() > 100 { 37 } else { 1 };
            for offset in (0..=text.len() + 1).step_by(step).chain([text.len()]) {
                assert_eq!(starts.line_col(text, offset), line_col(text, offset), "{} bytes at {offset}", text.len());
                if text.is_char_boundary(offset.min(text.len())) {
                    let (from, to) = starts.bounds(text, offset);
                    let line = text.get(from..to).unwrap_or("");
                    assert!(!line.contains('\n') && text.get(to..).is_none_or(|t| t.is_empty() || t.starts_with('\n')));
                    assert_eq!(starts.chars_between(text, from, to), line.chars().count());
                }
            }
        }
    }

    #[test]
    fn an_article_by_the_first_letter() {
        assert_eq!(article("ElvenBowWoman"), "an ElvenBowWoman");
        assert_eq!(article("adept"), "an adept");
        assert_eq!(article("Knight"), "a Knight");
        assert_eq!(article("Int"), "an Int");
    }

    #[test]
    fn suggestions_prefer_close_names() {
        let names = ["Lucky", "Brave", "Canto", "DistantCounter"];
        assert_eq!(did_you_mean("Lucy", names), Some("Lucky"));
        assert_eq!(did_you_mean("lucky", names), Some("Lucky"));
        assert_eq!(did_you_mean("Distantcountr", names), Some("DistantCounter"));
        assert_eq!(did_you_mean("Zzzzzz", names), None);
    }

    #[test]
    fn a_swap_of_neighbours_is_one_edit() {
        assert_eq!(edit_distance("lcuky", "lucky"), 1);
        assert_eq!(edit_distance("ab", "ba"), 1);
        assert_eq!(edit_distance("abc", "ca"), 3, "no substring is edited twice (OSA, not Damerau)");
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        // Issue 42: transposed letters get their did-you-mean.
        let names = ["Brave", "Lucky", "Canto", "Flying", "Fast", "Armored"];
        for (typo, meant) in [("Brvae", "Brave"), ("Lcuky", "Lucky"), ("Cnato", "Canto"), ("Fylign", "Flying")] {
            assert_eq!(did_you_mean(typo, names), Some(meant), "{typo}");
            assert_eq!(closest(typo, names, 3).first().copied(), Some(meant), "{typo}");
        }
    }

    #[test]
    fn closest_names_come_nearest_first() {
        let names = ["Mercenary", "Myrmidon", "Mage", "Swordmaster"];
        assert_eq!(closest("Myrmidn", names, 3), vec!["Myrmidon"]);
        assert_eq!(closest("Mag", names, 3), vec!["Mage"]);
        assert_eq!(closest("Mercenery", names, 3), vec!["Mercenary"]);
        assert!(closest("Zzzzzz", names, 3).is_empty());
        // Nearest first, whatever the order given; ties keep it.
        assert_eq!(closest("knight", ["Knigh", "KNIGHT", "Knights"], 3), vec!["KNIGHT", "Knigh", "Knights"]);
    }

    #[test]
    fn line_and_column_count_characters() {
        let text = "ab\nçd e";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, text.len()), (2, 5));
    }
}
