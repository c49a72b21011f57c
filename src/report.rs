//! The edge: diagnostics (plain data from the core crates) rendered with miette or as JSON.

use std::fmt::Write as _;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource};
use oc_diag::{line_col, Diagnostic, FileId, Severity};

/// Gives the path and text of a file id.
pub trait Sources {
    fn path(&self, id: FileId) -> &str;
    fn text(&self, id: FileId) -> &str;
}

impl Sources for oc_compiler::Workspace {
    fn path(&self, id: FileId) -> &str {
        self.file(id).map_or("<unknown>", |f| f.path.as_str())
    }
    fn text(&self, id: FileId) -> &str {
        self.file(id).map_or("", |f| f.text.as_str())
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// Colours and unicode, for a terminal.
    Fancy,
    /// Plain ASCII without colour, for pipes and files (and for tests).
    Plain,
}

pub fn render(sources: &dyn Sources, d: &Diagnostic, style: Style) -> String {
    let file = d.span.file;
    let text = sources.text(file);
    let clamp = |n: u32| (n as usize).min(text.len());
    let (start, end) = (clamp(d.span.start), clamp(d.span.end));
    let mut labels = vec![LabeledSpan::new_primary_with_span(
        Some(d.label.clone().unwrap_or_else(|| d.message.clone())),
        (start, end - start),
    )];
    let mut notes = String::new();
    for l in &d.secondary {
        if l.span.file == file {
            let (s, e) = (clamp(l.span.start), clamp(l.span.end));
            labels.push(LabeledSpan::new_with_span(Some(l.message.clone()), (s, e - s)));
        } else {
            let other = sources.text(l.span.file);
            let (line, col) = line_col(other, l.span.start as usize);
            let _ = write!(notes, "\nnote: {} at {}:{line}:{col}", l.message, sources.path(l.span.file));
        }
    }
    let severity = match d.severity {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
    };
    let mut diag = MietteDiagnostic::new(d.message.clone()).with_code(d.code).with_severity(severity).with_labels(labels);
    if !d.help.is_empty() || !notes.is_empty() {
        diag = diag.with_help(format!("{}{notes}", d.help));
    }
    let report = miette::Report::new(diag).with_source_code(NamedSource::new(sources.path(file), text.to_string()));
    let theme = match style {
        Style::Fancy => GraphicalTheme::unicode(),
        Style::Plain => GraphicalTheme::none(),
    };
    let handler = GraphicalReportHandler::new_themed(theme).with_links(false).with_width(100);
    let mut out = String::new();
    if handler.render_report(&mut out, report.as_ref()).is_err() {
        let (line, col) = line_col(text, start);
        out = format!("{}: {} [{}] at {}:{line}:{col}\n", severity_word(d.severity), d.message, d.code, sources.path(file));
    }
    out
}

fn severity_word(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

/// The JSON object of the diagnostics contract (DESIGN.md).
pub fn json(sources: &dyn Sources, diagnostics: &[Diagnostic], files: usize) -> serde_json::Value {
    let list: Vec<serde_json::Value> = diagnostics
        .iter()
        .map(|d| {
            let text = sources.text(d.span.file);
            let (line, column) = line_col(text, d.span.start as usize);
            let (end_line, end_column) = line_col(text, d.span.end as usize);
            serde_json::json!({
                "code": d.code,
                "severity": severity_word(d.severity),
                "message": d.message,
                "file": sources.path(d.span.file),
                "line": line,
                "column": column,
                "end_line": end_line,
                "end_column": end_column,
                "help": d.help,
            })
        })
        .collect();
    serde_json::json!({
        "diagnostics": list,
        "files": files,
        "errors": diagnostics.iter().filter(|d| d.is_error()).count(),
        "warnings": diagnostics.iter().filter(|d| !d.is_error()).count(),
    })
}
