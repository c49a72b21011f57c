//! `oc fmt [--check] [PATH...]`: formats the `.oc` files of the projects under the paths.
//!
//! Files are found and read through `oc_project` like `oc check`'s (the `ignore` globs honoured,
//! reads confined to the root, regular files only, bounded) and written back with
//! `oc_project::output::rewrite_source` (atomic, only when the text changes, never through a
//! link out of the root). A file that does not parse is left as it is and its diagnostics are
//! printed. With `--check` nothing is written: each file that would change is shown as a diff.
//! Exit status: 0 all formatted, 1 a file needs formatting (`--check`) or could not be
//! formatted, 2 usage or I/O failure.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Instant;

use oc_diag::{Diagnostic, FileId, Span};
use oc_project::codes::{NAME_NOT_UTF8, NOT_UTF8, OUTSIDE_PROJECT, UNREADABLE};
use oc_project::fsx::{Confined, ReadError};
use oc_project::limits::MAX_SOURCE_BYTES;
use oc_project::Project;

use crate::commands::{projects, style};
use crate::report::{self, Sources, Style};

/// One file, for rendering its diagnostics.
struct OneFile<'a> {
    path: &'a str,
    text: &'a str,
}

impl Sources for OneFile<'_> {
    fn path(&self, _: FileId) -> String {
        self.path.to_string()
    }
    fn text(&self, _: FileId) -> &str {
        self.text
    }
}

#[derive(Default)]
struct Tally {
    files: usize,
    /// Files whose text changed (or, with `--check`, would change).
    changed: usize,
    /// Files left as they are because they could not be formatted.
    failed: usize,
    /// Files that could not be written.
    unwritten: usize,
    ignored: usize,
}

pub fn fmt(paths: &[PathBuf], check: bool) -> u8 {
    let started = Instant::now();
    let projects = match projects(paths) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let style = style();
    let mut tally = Tally::default();
    for project in &projects {
        format_project(project, check, style, &mut tally);
    }
    noteln!("{}", summary(&tally, check, started.elapsed()));
    if tally.unwritten > 0 {
        2
    } else {
        u8::from(tally.failed > 0 || (check && tally.changed > 0))
    }
}

fn format_project(project: &Project, check: bool, style: Style, tally: &mut Tally) {
    let manifest_text = project.manifest.as_ref().map_or("", |(_, t)| t.as_str());
    let manifest = OneFile { path: "oc.toml", text: manifest_text };
    let reports = report::Reports::new(&manifest);
    for d in &project.manifest_diagnostics {
        err!("{}", reports.render(d, style));
    }
    if project.manifest_diagnostics.iter().any(Diagnostic::is_error) {
        // Its `ignore` list may not have been read: touch nothing of this project.
        tally.failed += project.files.len().max(1);
        return;
    }
    tally.ignored += project.ignored;
    for name in &project.bad_names {
        let d = Diagnostic::error(
            NAME_NOT_UTF8,
            Span::new(FileId(0), 0, 0),
            format!("the name of `{name}` is not UTF-8; it was skipped"),
        )
        .with_help("rename it: paths in oc (imports, maps, logs) are UTF-8 text");
        err!("{}", report::render(&OneFile { path: name, text: "" }, &d, style));
        tally.failed += 1;
    }
    let confined = Confined::new(&project.root);
    // A file reached twice (named twice, or through a link inside the project) is formatted once.
    let mut seen: HashSet<PathBuf> = HashSet::new();
    for path in &project.files {
        if let Ok(real) = confined.resolve(Path::new(path)) {
            if !seen.insert(real) {
                continue;
            }
        }
        tally.files += 1;
        format_file(&confined, path, check, style, tally);
    }
}

fn format_file(confined: &Confined, path: &str, check: bool, style: Style, tally: &mut Tally) {
    let no_text = OneFile { path, text: "" };
    let bytes = match confined.read(Path::new(path), MAX_SOURCE_BYTES) {
        Ok(bytes) => bytes,
        Err(e) => {
            err!("{}", report::render(&no_text, &unreadable(path, &e), style));
            tally.failed += 1;
            return;
        }
    };
    let Ok(text) = std::str::from_utf8(&bytes) else {
        let d =
            Diagnostic::error(NOT_UTF8, Span::new(FileId(0), 0, 0), format!("{path} is not valid UTF-8; it was left as it is"))
                .with_help("save the file as UTF-8, then format it");
        err!("{}", report::render(&no_text, &d, style));
        tally.failed += 1;
        return;
    };
    let formatted = match oc_fmt::format(FileId(0), text) {
        Ok(formatted) => formatted,
        Err(oc_fmt::Error::Syntax(diagnostics)) => {
            let file = OneFile { path, text };
            let reports = report::Reports::new(&file);
            for d in &diagnostics {
                err!("{}", reports.render(d, style));
            }
            errln!("{path}: not formatted: it does not parse; it was left as it is");
            tally.failed += 1;
            return;
        }
        Err(oc_fmt::Error::Changed(why)) => {
            errln!("error: {path}: not formatted: {why}; it was left as it is (a bug in oc fmt: please report it with the file)");
            tally.failed += 1;
            return;
        }
    };
    if formatted == text {
        return;
    }
    tally.changed += 1;
    if check {
        let diff = oc_fmt::diff::unified(&format!("a/{path}"), &format!("b/{path}"), text, &formatted);
        crate::report::verdict(1);
        let _ = crate::report::out(diff.as_bytes());
        return;
    }
    match oc_project::output::rewrite_source(confined, path, &bytes, formatted.as_bytes()) {
        Ok(()) => noteln!("formatted {path}"),
        Err(e) => {
            errln!("error: cannot write {path}: {e}");
            tally.unwritten += 1;
        }
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
fn summary(tally: &Tally, check: bool, took: std::time::Duration) -> String {
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let ignored = if tally.ignored > 0 { format!(" ({} skipped by oc.toml's ignore)", tally.ignored) } else { String::new() };
    let mut outcome = Vec::new();
    match (check, tally.changed) {
        (true, 0) => {}
        (true, 1) => outcome.push("1 needs formatting (run `oc fmt`)".to_string()),
        (true, n) => outcome.push(format!("{n} need formatting (run `oc fmt`)")),
        (false, n) => outcome.push(format!("{n} rewritten")),
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
