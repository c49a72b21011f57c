//! `oc check --format sarif` (SARIF 2.1.0, for code-scanning uploads) and `--format github`
//! (GitHub Actions workflow commands). Same positions as the human and JSON output: 1-based
//! lines, columns counted in characters (SARIF: `columnKind` = `unicodeCodePoints`). Paths are
//! shown from `oc_project::shown::ci_base`: the working directory, or under GitHub Actions the
//! workspace (GitHub resolves both formats' paths from the repository's root).

use std::fmt::Write as _;

use oc_diag::{CodeInfo, Diagnostic, Severity, Span};

use crate::diagnostics::{Reports, Sources};

/// The working directory and the folder CI formats show paths from (`shown::ci_base`).
fn bases() -> (std::path::PathBuf, std::path::PathBuf) {
    let cwd = std::env::current_dir().unwrap_or_default();
    let base = oc_project::shown::ci_base(&cwd, |k| std::env::var_os(k));
    (cwd, base)
}

/// A file's path as the CI formats show it: from [`bases`]' base.
fn ci_path(sources: &dyn Sources, file: oc_diag::FileId) -> String {
    let (cwd, base) = bases();
    oc_project::shown::rebase(&sources.path(file), &cwd, &base)
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
    }
}

fn location(reports: &Reports<'_>, span: Span) -> serde_json::Value {
    let sources = reports.sources();
    let (line, column, end_line, end_column) = reports.region(span);
    serde_json::json!({
        "physicalLocation": {
            "artifactLocation": artifact(&ci_path(sources, span.file)),
            "region": {"startLine": line, "startColumn": column, "endLine": end_line, "endColumn": end_column}
        }
    })
}

/// Where a file is: its path relative to `%SRCROOT%`, which the log's `originalUriBaseIds`
/// define as [`bases`]' base; the standard library's by its `std:` name.
fn artifact(shown: &str) -> serde_json::Value {
    if shown.starts_with("std:") {
        return serde_json::json!({"uri": shown});
    }
    serde_json::json!({"uri": oc_project::shown::uri_path(shown), "uriBaseId": SRCROOT})
}

/// The base the results' paths are relative to (SARIF 2.1.0 3.14.14's conventional name).
const SRCROOT: &str = "%SRCROOT%";

/// The SARIF results of one checking run.
pub fn sarif_results(sources: &dyn Sources, diagnostics: &[Diagnostic]) -> Vec<serde_json::Value> {
    let reports = Reports::new(sources);
    diagnostics
        .iter()
        .map(|d| {
            let related: Vec<serde_json::Value> = d
                .secondary
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let mut loc = location(&reports, l.span);
                    if let Some(o) = loc.as_object_mut() {
                        o.insert("id".into(), serde_json::json!(i + 1));
                        o.insert("message".into(), serde_json::json!({"text": l.message}));
                    }
                    loc
                })
                .collect();
            let mut text = d.message.clone();
            if !d.help.is_empty() {
                let _ = write!(text, "\nhelp: {}", d.help);
            }
            serde_json::json!({
                "ruleId": d.code,
                "level": level(d.severity),
                "message": {"text": text},
                "locations": [location(&reports, d.span)],
                "relatedLocations": related,
            })
        })
        .collect()
}

/// A whole SARIF 2.1.0 log: every code oc has is a rule, with its explanation as help.
pub fn sarif(results: Vec<serde_json::Value>, codes: &[&CodeInfo]) -> serde_json::Value {
    let rules: Vec<serde_json::Value> = codes
        .iter()
        .map(|c| {
            serde_json::json!({
                "id": c.code,
                "shortDescription": {"text": c.title},
                "fullDescription": {"text": c.explanation},
                "help": {"text": format!("oc explain {}", c.code)},
            })
        })
        .collect();
    serde_json::json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "oc", "version": env!("CARGO_PKG_VERSION"), "rules": rules}},
            "columnKind": "unicodeCodePoints",
            "originalUriBaseIds": {
                SRCROOT: {
                    "uri": oc_project::shown::folder_uri(&bases().1),
                    "description": {"text": "The folder oc check ran in (under GitHub Actions, GITHUB_WORKSPACE): the results' paths are relative to it."},
                },
            },
            "results": results,
        }]
    })
}

/// GitHub's escaping of a workflow command's message and of its properties.
fn escape(text: &str, property: bool) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            ':' if property => out.push_str("%3A"),
            ',' if property => out.push_str("%2C"),
            c => out.push(c),
        }
    }
    out
}

/// One `::error file=...,line=...::message` line per diagnostic (secondary labels and help in the
/// message, as the annotation has one position).
pub fn github(sources: &dyn Sources, diagnostics: &[Diagnostic]) -> String {
    let reports = Reports::new(sources);
    let mut out = String::new();
    for d in diagnostics {
        let (line, column, end_line, end_column) = reports.region(d.span);
        let mut message = d.message.clone();
        for l in &d.secondary {
            let (sl, sc, _, _) = reports.region(l.span);
            let _ = write!(message, "\n{}:{sl}:{sc}: {}", ci_path(sources, l.span.file), l.message);
        }
        if !d.help.is_empty() {
            let _ = write!(message, "\nhelp: {}", d.help);
        }
        let _ = writeln!(
            out,
            "::{} file={},line={line},col={column},endLine={end_line},endColumn={end_column},title={}::{}",
            level(d.severity),
            escape(&ci_path(sources, d.span.file), true),
            escape(d.code, true),
            escape(&message, false)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::escape;

    #[test]
    fn workflow_commands_are_escaped() {
        assert_eq!(escape("a:b,c%\nd", true), "a%3Ab%2Cc%25%0Ad");
        assert_eq!(escape("a:b,c%\nd", false), "a:b,c%25%0Ad");
    }
}
