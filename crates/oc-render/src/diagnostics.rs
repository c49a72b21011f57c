//! Diagnostics (plain data from the core crates) drawn as text with miette, or as the JSON
//! object of the diagnostics contract (DESIGN.md): [`Reports`] over the [`Sources`] that hold
//! the files' text; `annotate` draws them for CI (SARIF, GitHub annotations).
//!
//! A report names a file as the user can open it ([`shown`]: from the working directory
//! through the project root the front end set, [`set_root`]); the standard library's as
//! `std:...`. A renderer panic on odd input is caught and the report drawn plainly; a front
//! end's panic hook can stay quiet while one is being drawn ([`drawing`]).

use std::fmt::Write as _;

use miette::{
    GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, MietteError, MietteSpanContents, NamedSource,
    SourceCode, SourceSpan, SpanContents,
};
use oc_diag::{Diagnostic, FileId, LineStarts, Severity, Span};

/// The root of the project whose files are being reported (logical paths are relative to it).
static ROOT: std::sync::Mutex<Option<std::path::PathBuf>> = std::sync::Mutex::new(None);

thread_local! {
    static DRAWING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether this thread is inside the graphical renderer (a panic there is caught and answered
/// with the plain rendering).
pub fn drawing() -> bool {
    DRAWING.with(std::cell::Cell::get)
}

/// Gives the path and text of a file id.
pub trait Sources {
    /// The file's name as users see it: standard library files as `std:ratings/tags.oc`.
    fn path(&self, id: FileId) -> String;
    fn text(&self, id: FileId) -> &str;
}

/// One file's text under a name shown as it is: a manifest, a file that could not be read
/// (its text empty), a TMX being imported.
pub struct OneFile<'a> {
    pub path: &'a str,
    pub text: &'a str,
}

impl Sources for OneFile<'_> {
    fn path(&self, _: FileId) -> String {
        self.path.to_string()
    }
    fn text(&self, _: FileId) -> &str {
        self.text
    }
}

impl Sources for oc_compiler::Workspace {
    fn path(&self, id: FileId) -> String {
        self.file(id).map_or_else(|| "<unknown>".to_string(), |f| shown(&f.path))
    }
    fn text(&self, id: FileId) -> &str {
        self.file(id).map_or("", |f| f.text.as_str())
    }
}

impl Sources for oc_project::Session {
    fn path(&self, id: FileId) -> String {
        shown(oc_project::Session::path(self, id))
    }
    fn text(&self, id: FileId) -> &str {
        oc_project::Session::text(self, id)
    }
}

/// The project whose files the next reports name: their paths are shown from the working
/// directory through it ([`shown`]). Set by the front end, once per project it reports.
pub fn set_root(root: &std::path::Path) {
    if let Ok(mut r) = ROOT.lock() {
        *r = Some(root.to_path_buf());
    }
}

/// The root of the project holding `input` ([`set_root`]).
pub fn root_of(input: &std::path::Path) {
    set_root(&oc_project::find_root(input).dir);
}

/// A file's logical path as the user can open it: from the working directory, as cargo prints
/// (`oc_project::shown::path`); the standard library's as `std:...`.
pub fn shown(logical: &str) -> String {
    let logical = oc_compiler::stdlib::shown_path(logical);
    let root = ROOT.lock().ok().and_then(|r| r.clone());
    match (root, std::env::current_dir()) {
        (Some(root), Ok(cwd)) => oc_project::shown::path(&root, &logical, &cwd),
        _ => logical,
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Colours and unicode, for a terminal.
    Fancy,
    /// Plain ASCII without colour, for pipes and files (and for tests).
    Plain,
}

/// Lines longer than this (in bytes) are shown clipped around the span, not whole: miette
/// cannot draw a label past column 65,535, and nobody reads a 64 kB line anyway.
pub const MAX_SNIPPET_LINE: usize = 400;

/// A file as a report reads it: each span read from the lines around it alone (its lines, the
/// context asked for and one more each side), found by the file's line starts. miette finds a
/// span's line by reading from the start of its source, so handing it a whole large file made
/// each report cost the file's length (100,000 reports on one 1 MB file took two minutes); a
/// window of all of a report's lines did the same where its spans lay far apart (an army's
/// size beside the scenario's requirement: 20,000 armies took 381 s to report).
struct Window {
    /// The file's text as drawn ([`inert`]), shared by every report on it.
    text: std::sync::Arc<str>,
    lines: std::sync::Arc<LineStarts>,
    /// What the report may show of it: from the line before its first span to the line after
    /// its last (a snippet's context stops there, as it always did).
    bounds: (usize, usize),
}

impl Window {
    fn of(text: std::sync::Arc<str>, lines: std::sync::Arc<LineStarts>, spans: &[(usize, usize)]) -> Window {
        let from = spans.iter().map(|s| s.0).min().unwrap_or(0);
        let to = spans.iter().map(|s| s.1).max().unwrap_or(0);
        let from = lines.bounds(&text, lines.bounds(&text, from).0.saturating_sub(1)).0;
        let to = lines.bounds(&text, (lines.bounds(&text, to).1 + 1).min(text.len())).1;
        Window { text, lines, bounds: (from, to) }
    }
}

impl SourceCode for Window {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let text: &str = &self.text;
        let (start, end) = (span.offset().min(text.len()), (span.offset() + span.len()).min(text.len()));
        let (first_of_span, _) = self.lines.line_of(start);
        let (last_of_span, _) = self.lines.line_of(end);
        let (mut first_line, _) = self.lines.line_of(self.bounds.0);
        first_line = first_line.max(first_of_span.saturating_sub(before + 1));
        let offset = self.lines.start(first_line).unwrap_or(0);
        // To the end of the last line wanted, its line break left out (within the bounds).
        let to = self.lines.start(last_of_span + after + 2).map_or(text.len(), |next| next.saturating_sub(1));
        let to = to.min(self.bounds.1).max(offset);
        // A line ended by CRLF ends the window before its CR too: a CR left last would be read
        // as a line break of its own (the line after it numbered one less, the CR drawn raw).
        let to = if to > offset && text.as_bytes().get(to - 1) == Some(&b'\r') { to - 1 } else { to };
        let window = text.get(offset..to).unwrap_or("").to_string();
        let local = SourceSpan::new(start.saturating_sub(offset).into(), end.saturating_sub(start));
        let inner = window.read_span(&local, before, after)?;
        Ok(Box::new(MietteSpanContents::new(
            // The same bytes in the file's own text (`data` borrows the window, dropped here).
            text.get(inner.span().offset() + offset..inner.span().offset() + offset + inner.data().len())
                .map_or(&[][..], str::as_bytes),
            SourceSpan::new((inner.span().offset() + offset).into(), inner.span().len()),
            inner.line() + first_line,
            inner.column(),
            inner.line_count(),
        )))
    }
}

/// Diagnostics placed and drawn against one set of sources. Each file's line starts are taken
/// once, when first wanted (a file with thousands of diagnostics is not read from its start for
/// each); the sources are borrowed, so no text changes while this lives.
pub struct Reports<'s> {
    sources: &'s dyn Sources,
    lines: std::cell::RefCell<std::collections::HashMap<FileId, std::sync::Arc<LineStarts>>>,
    /// Each file's text as drawn ([`inert`]), made once.
    drawn: std::cell::RefCell<std::collections::HashMap<FileId, std::sync::Arc<str>>>,
}

impl<'s> Reports<'s> {
    pub fn new(sources: &'s dyn Sources) -> Reports<'s> {
        Reports { sources, lines: Default::default(), drawn: Default::default() }
    }

    pub fn sources(&self) -> &'s dyn Sources {
        self.sources
    }

    fn lines(&self, file: FileId) -> std::sync::Arc<LineStarts> {
        let mut lines = self.lines.borrow_mut();
        lines.entry(file).or_insert_with(|| std::sync::Arc::new(LineStarts::new(self.sources.text(file)))).clone()
    }

    /// A file's text as drawn: no control character of the user's reaches the terminal (a
    /// file's ESC, BEL or lone CR would recolour, retitle or overwrite its text), each replaced
    /// in place. Made once a file (made for each report, it cost the file's length a report).
    fn drawn(&self, file: FileId) -> std::sync::Arc<str> {
        let mut drawn = self.drawn.borrow_mut();
        drawn.entry(file).or_insert_with(|| std::sync::Arc::from(&*inert(self.sources.text(file)))).clone()
    }

    /// 1-based line and column (in characters) of a byte offset, as `oc_diag::line_col` gives.
    pub fn position(&self, file: FileId, offset: usize) -> (usize, usize) {
        self.lines(file).line_col(self.sources.text(file), offset)
    }

    /// 1-based (line, column, end line, end column) of a span.
    pub fn region(&self, span: Span) -> (usize, usize, usize, usize) {
        let (line, column) = self.position(span.file, span.start as usize);
        let (end_line, end_column) = self.position(span.file, span.end as usize);
        (line, column, end_line, end_column)
    }

    /// A snippet clipped to a window of the line around the span, like rustc does for long lines.
    fn render_clipped(&self, d: &Diagnostic, start: usize, end: usize) -> String {
        let sources = self.sources;
        let file = d.span.file;
        let drawn = self.drawn(file);
        let text: &str = &drawn;
        let d = &said(d);
        let (line, col) = self.position(file, start);
        let lines = self.lines(file);
        let (ls, le) = lines.bounds(text, start);
        let line_text = text.get(ls..le).unwrap_or("");
        let from = start.saturating_sub(ls).min(line_text.len());
        let to = (end.min(le).max(start) - ls).min(line_text.len());
        let (window_start, window_end, caret, carets) = clip(line_text, from, to);
        let shown = line_text.get(window_start..window_end).unwrap_or("");
        let (pre, post) = (if window_start > 0 { "..." } else { "" }, if window_end < line_text.len() { "..." } else { "" });
        let gutter = line.to_string().len();
        let pad = " ".repeat(gutter);
        let caret_at = pre.len() + caret;
        let carets = "^".repeat(carets);
        let label = d.label.clone().unwrap_or_else(|| d.message.clone());
        let mut out = format!("{}[{}]: {}\n", severity_word(d.severity), d.code, d.message);
        let _ = writeln!(out, "{pad}--> {}:{line}:{col}", drawn_path(sources, file));
        let _ = writeln!(out, "{pad} |");
        let _ = writeln!(out, "{line} | {pre}{shown}{post}");
        let _ = writeln!(out, "{pad} | {}{carets} {label}", " ".repeat(caret_at));
        let long = lines.chars_between(sources.text(file), ls, le);
        let _ = writeln!(out, "{pad} |   (line {line} is {long} characters long; it is shown clipped)");
        for l in &d.secondary {
            let (ln, c) = self.position(l.span.file, l.span.start as usize);
            let _ = writeln!(out, "{pad} = note: {} at {}:{ln}:{c}", l.message, drawn_path(sources, l.span.file));
        }
        if !d.help.is_empty() {
            let _ = writeln!(out, "{pad} = help: {}", d.help);
        }
        out
    }

    pub fn render(&self, d: &Diagnostic, style: Style) -> String {
        let sources = self.sources;
        let file = d.span.file;
        let drawn = self.drawn(file);
        let text: &str = &drawn;
        let d = &said(d);
        let clamp = |n: u32| (n as usize).min(text.len());
        let (start, end) = (clamp(d.span.start), clamp(d.span.end));
        // A span that does not fall on character boundaries (a bug elsewhere) is widened to them.
        let start = (0..=start).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
        let end = (end.max(start)..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
        let mut spans = vec![(start, end)];
        spans.extend(d.secondary.iter().filter(|l| l.span.file == file).map(|l| (clamp(l.span.start), clamp(l.span.end))));
        if has_long_line(&self.lines(file), text, &spans) {
            return self.render_clipped(d, start, end);
        }
        let mut labels = vec![LabeledSpan::new_primary_with_span(
            Some(d.label.clone().unwrap_or_else(|| d.message.clone())),
            (start, end - start),
        )];
        let mut notes = String::new();
        for l in &d.secondary {
            if l.span.file == file {
                let (s, e) = (clamp(l.span.start), clamp(l.span.end));
                let s = (0..=s).rev().find(|&i| text.is_char_boundary(i)).unwrap_or(0);
                let e = (e.max(s)..=text.len()).find(|&i| text.is_char_boundary(i)).unwrap_or(text.len());
                labels.push(LabeledSpan::new_with_span(Some(l.message.clone()), (s, e - s)));
            } else {
                let (line, col) = self.position(l.span.file, l.span.start as usize);
                let _ = write!(notes, "\nnote: {} at {}:{line}:{col}", l.message, drawn_path(sources, l.span.file));
            }
        }
        let severity = match d.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
        };
        let spans: Vec<(usize, usize)> = labels.iter().map(|l| (l.offset(), l.offset() + l.len())).collect();
        let mut diag = MietteDiagnostic::new(d.message.clone()).with_code(d.code).with_severity(severity).with_labels(labels);
        if !d.help.is_empty() || !notes.is_empty() {
            diag = diag.with_help(format!("{}{notes}", d.help));
        }
        let report = miette::Report::new(diag)
            .with_source_code(NamedSource::new(drawn_path(sources, file), Window::of(drawn.clone(), self.lines(file), &spans)));
        let theme = match style {
            Style::Fancy => GraphicalTheme::unicode(),
            Style::Plain => GraphicalTheme::none(),
        };
        let handler = GraphicalReportHandler::new_themed(theme).with_links(false).with_width(100);
        let mut out = String::new();
        // The renderer is a dependency: whatever it does with odd input, the report still prints.
        DRAWING.with(|q| q.set(true));
        let drawn = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handler.render_report(&mut out, report.as_ref())));
        DRAWING.with(|q| q.set(false));
        if !matches!(drawn, Ok(Ok(()))) {
            let (line, col) = self.position(file, start);
            out = format!(
                "{}: {} [{}] at {}:{line}:{col}\n",
                severity_word(d.severity),
                d.message,
                d.code,
                drawn_path(sources, file)
            );
        }
        out
    }

    /// The JSON object of the diagnostics contract (DESIGN.md).
    pub fn json(&self, diagnostics: &[Diagnostic], files: usize) -> serde_json::Value {
        let list: Vec<serde_json::Value> = diagnostics.iter().map(|d| self.one_json(d)).collect();
        serde_json::json!({
            "diagnostics": list,
            "files": files,
            "errors": diagnostics.iter().filter(|d| d.is_error()).count(),
            "warnings": diagnostics.iter().filter(|d| !d.is_error()).count(),
        })
    }

    /// One diagnostic of the contract's list.
    pub fn one_json(&self, d: &Diagnostic) -> serde_json::Value {
        let sources = self.sources;
        let (line, column, end_line, end_column) = self.region(d.span);
        serde_json::json!({
            "code": d.code,
            "severity": severity_word(d.severity),
            "message": d.message,
            "file": sources.path(d.span.file),
            "line": line,
            "column": column,
            "end_line": end_line,
            "end_column": end_column,
            "label": d.label.as_deref().unwrap_or(&d.message),
            "secondary": d.secondary.iter().map(|l| {
                let (line, column, end_line, end_column) = self.region(l.span);
                serde_json::json!({
                    "message": l.message,
                    "file": sources.path(l.span.file),
                    "line": line,
                    "column": column,
                    "end_line": end_line,
                    "end_column": end_column,
                })
            }).collect::<Vec<_>>(),
            "help": d.help,
        })
    }
}

/// One diagnostic drawn ([`Reports::render`]; a run of them: one `Reports`).
pub fn render(sources: &dyn Sources, d: &Diagnostic, style: Style) -> String {
    Reports::new(sources).render(d, style)
}

/// The JSON object of the diagnostics contract ([`Reports::json`]).
pub fn json(sources: &dyn Sources, diagnostics: &[Diagnostic], files: usize) -> serde_json::Value {
    Reports::new(sources).json(diagnostics, files)
}
/// `text` with every control character a terminal would act on (ESC, BEL, NUL, a CR not ending
/// a line, C1 codes) shown as `?`, one for each of its bytes: each stays where it was, so spans
/// keep their offsets. Line breaks and tabs stay.
pub fn inert(text: &str) -> std::borrow::Cow<'_, str> {
    let acts = |i: usize, c: char| {
        c.is_control() && c != '\n' && c != '\t' && !(c == '\r' && text.as_bytes().get(i + 1) == Some(&b'\n'))
    };
    if !text.char_indices().any(|(i, c)| acts(i, c)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, c) in text.char_indices() {
        if acts(i, c) {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// The most characters of a diagnostic's message, label or help a report shows whole.
const MAX_SAID: usize = 1_000;

/// A diagnostic's words with any control character in them escaped (a message quoting what a
/// file holds: `\u{1b}`), its spans as they were.
fn said(d: &Diagnostic) -> Diagnostic {
    let escape = |s: &str| {
        // What a file holds may be quoted whole (a name of two megabytes): a long text is shown
        // by its start and its end, with how much was left out between.
        let count = s.chars().count();
        let s: std::borrow::Cow<'_, str> = if count > MAX_SAID {
            let head: String = s.chars().take(MAX_SAID - 100).collect();
            let tail: String = s.chars().skip(count - 100).collect();
            format!("{head}... ({} characters left out) ...{tail}", count - MAX_SAID).into()
        } else {
            s.into()
        };
        escape_controls(&s, &['\n']).into_owned()
    };
    let mut d = d.clone();
    d.message = escape(&d.message);
    d.label = d.label.as_deref().map(escape);
    d.help = escape(&d.help);
    for l in &mut d.secondary {
        l.message = escape(&l.message);
    }
    d
}

/// The window a clipped report shows of a long line around the span from byte `from` to `to`
/// (relative to the line): forty characters each side, read from the span outwards (never
/// cutting a character in two, never reading the rest of the line); an empty span marks the
/// character after it. (window start, window end, the characters before the span in the window,
/// the carets under it: one to eighty.)
fn clip(line: &str, from: usize, to: usize) -> (usize, usize, usize, usize) {
    let to = (to.max(from)..=line.len()).find(|&i| line.is_char_boundary(i)).unwrap_or(line.len());
    let window_start = line.get(..from).map_or(0, |before| before.char_indices().rev().nth(39).map_or(0, |(i, _)| i));
    let span_end =
        if to > from { to } else { line.get(from..).and_then(|r| r.chars().next()).map_or(from, |c| from + c.len_utf8()) };
    let after = line.get(span_end..).unwrap_or("");
    let window_end = span_end + after.char_indices().nth(40).map_or(after.len(), |(i, _)| i);
    let caret = line.get(window_start..from).map_or(0, |t| t.chars().count());
    let carets = line.get(from..span_end).map_or(1, |t| t.chars().take(81).count()).clamp(1, 80);
    (window_start, window_end, caret, carets)
}

/// A file's path as a report shows it: a name may hold control characters (a file named with
/// an escape sequence), shown escaped (`\u{1b}`) so that they never act on the terminal.
fn drawn_path(sources: &dyn Sources, file: FileId) -> String {
    escape_controls(&sources.path(file), &[]).into_owned()
}

/// `text` with each control character but those in `keep` shown escaped (`\u{1b}`, `\r`), so
/// that what a file or a log holds never acts on the terminal (recolour, retitle, clear it).
/// Reports' words and file names, and the binary's error and status lines, are escaped by it.
pub fn escape_controls<'t>(text: &'t str, keep: &[char]) -> std::borrow::Cow<'t, str> {
    let acts = |c: char| c.is_control() && !keep.contains(&c);
    if !text.chars().any(acts) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if acts(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Whether any line a snippet of `spans` would show (one line of context each side) is too
/// long to draw whole: each line's length read off its starts.
fn has_long_line(lines: &LineStarts, text: &str, spans: &[(usize, usize)]) -> bool {
    spans.iter().any(|&(s, e)| {
        let (first, last) = (lines.line_of(s).0, lines.line_of(e).0);
        (first.saturating_sub(1)..=last + 1).filter_map(|i| lines.start(i)).any(|start| {
            let (from, to) = lines.bounds(text, start);
            to - from > MAX_SNIPPET_LINE
        })
    })
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// Several projects' JSON reports as one object of the same shape.
pub fn merge_json(runs: Vec<serde_json::Value>) -> serde_json::Value {
    let mut diagnostics = Vec::new();
    let mut counts = [("files", 0u64), ("errors", 0), ("warnings", 0)];
    for run in &runs {
        diagnostics.extend(run.get("diagnostics").and_then(|d| d.as_array()).cloned().unwrap_or_default());
        for (key, sum) in counts.iter_mut() {
            *sum += run.get(*key).and_then(serde_json::Value::as_u64).unwrap_or(0);
        }
    }
    let [(_, files), (_, errors), (_, warnings)] = counts;
    serde_json::json!({"diagnostics": diagnostics, "files": files, "errors": errors, "warnings": warnings})
}

/// A check run in one line: `checked 3 files, 1 map and the standard library in 4ms: ...`.
pub fn summary(run: &oc_project::session::Outcome, took: std::time::Duration) -> String {
    let errors = run.diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = run.diagnostics.len() - errors;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let ignored = if run.ignored > 0 { format!(" ({} skipped by oc.toml's ignore)", run.ignored) } else { String::new() };
    format!(
        "checked {}, {}{ignored} and the standard library in {:.0?}: {}, {}",
        plural(run.files, "file"),
        plural(run.maps, "map"),
        took,
        plural(errors, "error"),
        plural(warnings, "warning"),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    struct One(&'static str);

    impl Sources for One {
        fn path(&self, _: FileId) -> String {
            "a.oc".to_string()
        }
        fn text(&self, _: FileId) -> &str {
            self.0
        }
    }

    /// What miette draws given the whole file, as `render` did before it was given a window.
    fn whole(text: &str, d: &Diagnostic) -> String {
        let labels: Vec<LabeledSpan> = std::iter::once((d.span, d.label.clone().unwrap_or_else(|| d.message.clone())))
            .chain(d.secondary.iter().map(|l| (l.span, l.message.clone())))
            .enumerate()
            .map(|(i, (s, m))| {
                let span = (s.start as usize, (s.end - s.start) as usize);
                if i == 0 {
                    LabeledSpan::new_primary_with_span(Some(m), span)
                } else {
                    LabeledSpan::new_with_span(Some(m), span)
                }
            })
            .collect();
        let diag = MietteDiagnostic::new(d.message.clone())
            .with_code(d.code)
            .with_severity(miette::Severity::Error)
            .with_labels(labels)
            .with_help(d.help.clone());
        let report = miette::Report::new(diag).with_source_code(NamedSource::new("a.oc", text.to_string()));
        let mut out = String::new();
        let handler = GraphicalReportHandler::new_themed(GraphicalTheme::none()).with_links(false).with_width(100);
        let _ = handler.render_report(&mut out, report.as_ref());
        out
    }

    #[test]
    fn a_report_drawn_from_its_lines_is_the_report_drawn_from_the_whole_file() {
        let text = "class A {\n    cost 1\n}\n\nclass B { cost 2 }\nclass C {\n    ratings { str C }\n    cost 3\n}";
        let span = |s: usize, e: usize| oc_diag::Span::new(FileId(0), s, e);
        let mut cases = Vec::new();
        for (s, e) in [(0, 5), (14, 20), (22, 23), (24, 29), (text.len() - 1, text.len()), (10, 40), (text.len(), text.len())] {
            cases.push(Diagnostic::error("oc::test", span(s, e), "a problem").with_help("fix it"));
        }
        cases.push(
            Diagnostic::error("oc::test", span(49, 54), "defined twice")
                .with_secondary(span(0, 5), "first here")
                .with_secondary(span(text.len() - 8, text.len() - 2), "and here")
                .with_help("rename one"),
        );
        for d in &cases {
            assert_eq!(render(&One(text), d, Style::Plain), whole(text, d), "{d:?}");
        }
    }

    /// A file of CRLF lines: each report drawn from its lines is the one drawn from the whole file
    /// (a window ending on a line's CR read it as a line break of its own: the line after it
    /// numbered one less, the CR drawn raw).
    #[test]
    fn a_crlf_file_is_drawn_as_from_the_whole_file() {
        let text = "class A {\r\n    cost 1\r\n}\r\n\r\nclass B { cost 2 }\r\nclass C {\r\n    cost 3\r\n}\r\n";
        let span = |s: usize, e: usize| oc_diag::Span::new(FileId(0), s, e);
        let at = |needle: &str| text.find(needle).unwrap();
        let mut cases = Vec::new();
        for (s, e) in
            [(0, 5), (at("cost 1"), at("cost 1") + 6), (at("class B"), at("class B") + 7), (at("cost 3"), at("cost 3") + 6)]
        {
            cases.push(Diagnostic::error("oc::test", span(s, e), "a problem").with_help("fix it"));
        }
        cases.push(
            Diagnostic::error("oc::test", span(at("class C"), at("class C") + 7), "defined twice")
                .with_secondary(span(0, 5), "first here")
                .with_help("rename one"),
        );
        for d in &cases {
            let drawn = render(&One(text), d, Style::Plain);
            assert_eq!(drawn, whole(text, d), "{d:?}");
            assert!(!drawn.contains('\r'), "{drawn:?}");
        }
    }

    /// A file's control characters (ESC, BEL, a lone CR, NUL, a C1 code) reach the terminal as
    /// `?`, each where it stood (the carets under the span as with `?` written in the file),
    /// and a message quoting one escapes it; a long line's clipped snippet too.
    /// The window of a long line read from the span outwards is the one the whole line's
    /// characters gave (each character's offset listed, the window counted in them).
    #[test]
    fn a_clipped_window_is_read_from_the_span_alone() {
        fn whole_line(line: &str, start: usize, end: usize) -> (usize, usize, usize, usize) {
            let offsets: Vec<usize> = line.char_indices().map(|(i, _)| i).chain(std::iter::once(line.len())).collect();
            let span_from = offsets.iter().position(|&o| o >= start).unwrap_or(0);
            let span_to = offsets.iter().position(|&o| o >= end).unwrap_or(span_from).max(span_from + 1);
            let window_from = span_from.saturating_sub(40);
            let window_to = (span_to + 40).min(offsets.len().saturating_sub(1)).max(window_from);
            let byte = |i: usize| offsets.get(i).copied().unwrap_or(line.len());
            let shown = line.get(byte(window_from)..byte(window_to)).unwrap_or("");
            (
                byte(window_from),
                byte(window_to),
                shown.chars().take(span_from - window_from).count(),
                (span_to - span_from).clamp(1, 80),
            )
        }
        let line: String = ['a', 'é', '€', '😀', 'b', '€'].iter().cycle().take(900).collect();
        let mut compared = 0;
        for start in (0..=line.len()).filter(|i| line.is_char_boundary(*i)).step_by(7) {
            for width in [0, 1, 2, 5, 90, 400] {
                let end = (start + width..=line.len()).find(|i| line.is_char_boundary(*i)).unwrap_or(line.len());
                assert_eq!(clip(&line, start, end), whole_line(&line, start, end), "{start}..{end}");
                compared += 1;
            }
        }
        assert!(compared > 500);
    }

    #[test]
    fn a_files_control_characters_never_reach_the_terminal() {
        let hostile = "class \u{1b}[31mRED\u{1b}]0;TITLE\u{7} {\r fake \u{0}\u{9b}2J\r\n  cost 1\n}\n";
        let calm = "class ?[31mRED?]0;TITLE? {? fake ???2J\r\n  cost 1\n}\n";
        assert_eq!(inert(hostile), calm);
        let span = oc_diag::Span::new(FileId(0), 6, 14);
        let d = Diagnostic::error("oc::test", span, "unknown name `\u{1b}[31mRED`").with_help("no \u{7} here");
        let shown = render(&One(hostile), &d, Style::Plain);
        assert!(!shown.chars().any(|c| c.is_control() && c != '\n'), "{shown:?}");
        assert!(shown.contains("unknown name `\\u{1b}[31mRED`"), "{shown}");
        let calm_d = Diagnostic::error("oc::test", span, "unknown name `\\u{1b}[31mRED`").with_help("no \\u{7} here");
        assert_eq!(shown, render(&One(calm), &calm_d, Style::Plain));
        let long: &'static str = Box::leak(format!("class X {{ \u{1b}[2J{} }}\n", "a".repeat(300)).into_boxed_str());
        let clipped =
            render(&One(long), &Diagnostic::error("oc::test", oc_diag::Span::new(FileId(0), 10, 14), "odd"), Style::Plain);
        assert!(!clipped.chars().any(|c| c.is_control() && c != '\n'), "{clipped:?}");
    }

    /// One escaper for reports' words (line breaks kept), file names (nothing kept) and the
    /// binary's status lines (line breaks and tabs kept); text without a control character is
    /// borrowed as it is.
    #[test]
    fn control_characters_are_escaped_but_those_kept() {
        let text = "a\u{1b}[2Jb\n\tc\r\u{9b}";
        assert_eq!(escape_controls(text, &['\n']), "a\\u{1b}[2Jb\n\\tc\\r\\u{9b}");
        assert_eq!(escape_controls(text, &[]), "a\\u{1b}[2Jb\\n\\tc\\r\\u{9b}");
        assert_eq!(escape_controls(text, &['\n', '\t']), "a\\u{1b}[2Jb\n\tc\\r\\u{9b}");
        assert!(matches!(escape_controls("plain \u{e9}", &[]), std::borrow::Cow::Borrowed(_)));
    }

    /// A message quoting a name of megabytes is shown by its start and end.
    #[test]
    fn a_long_message_is_shown_cut() {
        let text = "chest\n";
        let name = "W".repeat(2_000_000);
        let d = Diagnostic::error("oc::test", oc_diag::Span::new(FileId(0), 0, 5), format!("no item `{name}` in the rules"));
        let shown = render(&One(text), &d, Style::Plain);
        assert!(
            shown.len() < 10_000 && shown.contains("characters left out") && shown.contains("` in the rules"),
            "{}",
            shown.len()
        );
    }
}
