//! Formatting a project's `.oc` files (`oc fmt`): found and read like `oc check`'s (the
//! `ignore` globs honoured, reads confined to the root, regular files only, bounded), each
//! formatted by `oc_fmt`. What each file came to is returned ([`Formatted`]); the caller shows
//! it and writes a changed file back with `output::rewrite_source` (atomic, only when the text
//! changes, never through a link out of the root). A file that does not parse, or cannot be
//! read, is left as it is, with its diagnostics.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use oc_diag::{Diagnostic, FileId, Span};

use crate::codes::{NOT_UTF8, OUTSIDE_PROJECT, UNREADABLE};
use crate::fsx::{Confined, ReadError};
use crate::limits::MAX_SOURCE_BYTES;
use crate::Project;

/// What formatting one file came to.
#[derive(Debug, PartialEq, Eq)]
pub enum Formatted {
    /// Formatted already.
    Same,
    /// The file's text and its formatted text.
    Changed { text: String, formatted: String },
    /// Left as it is: the diagnostics, over the file's text (empty when it could not be read),
    /// and a line saying why when no diagnostic does.
    Failed { text: String, diagnostics: Vec<Diagnostic>, line: Option<String> },
}

/// The counts `oc fmt` sums up.
#[derive(Default, Debug)]
pub struct Tally {
    pub files: usize,
    /// Files rewritten (or, with `--check`, that would change).
    pub changed: usize,
    /// Files left as they are because they could not be formatted.
    pub failed: usize,
    /// Files that could not be written.
    pub unwritten: usize,
    pub ignored: usize,
}

/// The project's files to format: a file reached twice (named twice, or through a link inside
/// the project) once.
pub fn files<'p>(project: &'p Project, confined: &Confined) -> Vec<&'p str> {
    let mut seen: HashSet<PathBuf> = HashSet::new();
    let mut out = Vec::new();
    for path in &project.files {
        if let Ok(real) = confined.resolve(Path::new(path)) {
            if !seen.insert(real) {
                continue;
            }
        }
        out.push(path.as_str());
    }
    out
}

/// Reads and formats one file of the project.
pub fn format_file(confined: &Confined, path: &str) -> Formatted {
    let failed = |text: &str, diagnostics: Vec<Diagnostic>, line: Option<String>| Formatted::Failed {
        text: text.to_string(),
        diagnostics,
        line,
    };
    let bytes = match confined.read(Path::new(path), MAX_SOURCE_BYTES) {
        Ok(bytes) => bytes,
        Err(e) => return failed("", vec![unreadable(path, &e)], None),
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        let d =
            Diagnostic::error(NOT_UTF8, Span::new(FileId(0), 0, 0), format!("{path} is not valid UTF-8; it was left as it is"))
                .with_help("save the file as UTF-8, then format it");
        return failed("", vec![d], None);
    };
    // The file's own line endings (by its first line's, as rustfmt's `Auto`) and byte-order
    // mark are kept: a formatter that turned CRLF into LF changed every line of the file.
    let (endings, unix) = oc_fmt::Endings::of(text);
    match oc_fmt::format(FileId(0), &unix).map(|f| endings.restore(f)) {
        Ok(formatted) if formatted == text => Formatted::Same,
        Ok(formatted) => Formatted::Changed { text: text.to_string(), formatted },
        // Shown against the text that was parsed (without the mark, with LF), where their
        // spans point.
        Err(oc_fmt::Error::Syntax(diagnostics)) => {
            failed(&unix, diagnostics, Some(format!("{path}: not formatted: it does not parse; it was left as it is")))
        }
        Err(oc_fmt::Error::Changed(why)) => failed(
            text,
            Vec::new(),
            Some(format!(
                "error: {path}: not formatted: {why}; it was left as it is (a bug in oc fmt: please report it with the file)"
            )),
        ),
    }
}

fn unreadable(path: &str, e: &ReadError) -> Diagnostic {
    let (code, help) = match e {
        ReadError::Outside(_) => (OUTSIDE_PROJECT, "oc fmt formats only files inside the project; copy the file into it"),
        _ => (UNREADABLE, "replace it with a regular text file, or list it under `ignore` in oc.toml"),
    };
    Diagnostic::error(code, Span::new(FileId(0), 0, 0), format!("cannot read {path}: {e}; it was left as it is")).with_help(help)
}

/// `checked 12 files (2 skipped by oc.toml's ignore) in 4ms: 3 need formatting (run `oc fmt`)`,
/// `formatted 12 files in 5ms: 3 rewritten, 1 could not be formatted`.
pub fn summary(tally: &Tally, check: bool, took: std::time::Duration) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let ignored = if tally.ignored > 0 { format!(" ({} skipped by oc.toml's ignore)", tally.ignored) } else { String::new() };
    let mut outcome = Vec::new();
    match (check, tally.changed) {
        (true, 0) => {}
        (true, 1) => outcome.push("1 needs formatting (run `oc fmt`)".to_string()),
        (true, n) => outcome.push(format!("{n} need formatting (run `oc fmt`)")),
        (false, n) => outcome.push(format!("{n} rewritten")),
    }
    if tally.unwritten > 0 {
        outcome.push(format!("{} could not be written", tally.unwritten));
    }
    if tally.failed > 0 {
        outcome.push(format!("{} could not be formatted", tally.failed));
    }
    if outcome.is_empty() {
        outcome.push("all formatted".to_string());
    }
    let verb = if check { "checked" } else { "formatted" };
    format!("{verb} {}{ignored} in {took:.0?}: {}", plural(tally.files, "file"), outcome.join(", "))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    /// A file's CRLF line endings and byte-order mark are kept: formatted as the same text with
    /// LF and no mark, then given them back; one already formatted so is the same.
    #[test]
    fn line_endings_and_the_byte_order_mark_are_kept() {
        let dir = tempfile::tempdir().unwrap();
        let confined = Confined::new(dir.path());
        let unix = "class A {\ncost 1\n}\n";
        std::fs::write(dir.path().join("u.oc"), unix).unwrap();
        let Formatted::Changed { formatted: want, .. } = format_file(&confined, "u.oc") else { panic!("formats") };
        for (bom, eol) in [("\u{feff}", "\n"), ("", "\r\n"), ("\u{feff}", "\r\n")] {
            std::fs::write(dir.path().join("w.oc"), format!("{bom}{}", unix.replace('\n', eol))).unwrap();
            let Formatted::Changed { formatted, .. } = format_file(&confined, "w.oc") else { panic!("formats") };
            assert_eq!(formatted, format!("{bom}{}", want.replace('\n', eol)), "{bom:?} {eol:?}");
            std::fs::write(dir.path().join("w.oc"), &formatted).unwrap();
            assert!(matches!(format_file(&confined, "w.oc"), Formatted::Same), "{bom:?} {eol:?}");
        }
    }

    #[test]
    fn a_file_is_same_changed_or_failed() {
        let dir = tempfile::tempdir().unwrap();
        let confined = Confined::new(dir.path());
        std::fs::write(dir.path().join("bad.oc"), "class {").unwrap();
        std::fs::write(dir.path().join("latin.oc"), b"# \xe9\n").unwrap();
        assert!(matches!(format_file(&confined, "bad.oc"), Formatted::Failed { line: Some(_), .. }));
        assert!(
            matches!(format_file(&confined, "latin.oc"), Formatted::Failed { ref diagnostics, .. } if diagnostics[0].code == NOT_UTF8)
        );
        assert!(
            matches!(format_file(&confined, "gone.oc"), Formatted::Failed { ref diagnostics, .. } if diagnostics[0].code == UNREADABLE)
        );
        std::fs::write(dir.path().join("a.oc"), "class A {\ncost 1\n}\n").unwrap();
        let changed = format_file(&confined, "a.oc");
        let Formatted::Changed { formatted, .. } = changed else { panic!("a.oc changes: {changed:?}") };
        std::fs::write(dir.path().join("a.oc"), &formatted).unwrap();
        assert_eq!(format_file(&confined, "a.oc"), Formatted::Same);
        let tally = Tally { files: 3, changed: 1, failed: 1, ..Tally::default() };
        assert_eq!(
            summary(&tally, true, std::time::Duration::ZERO),
            "checked 3 files in 0ns: 1 needs formatting (run `oc fmt`), 1 could not be formatted"
        );
    }
}
