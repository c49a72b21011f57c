//! `oc fmt [--check] [PATH...]`: formats the `.oc` files of the projects under the paths.
//!
//! Files are found and read through `oc_project` like `oc check`'s (the `ignore` globs honoured,
//! reads confined to the root, regular files only, bounded) and written back with
//! `oc_project::output::rewrite_source` (atomic, only when the text changes, never through a
//! link out of the root). A file that does not parse is left as it is and its diagnostics are
//! printed. With `--check` nothing is written: each file that would change is shown as a diff.
//! Exit status: 0 all formatted, 1 a file needs formatting (`--check`) or could not be
//! formatted, 2 usage or I/O failure.

use std::path::PathBuf;
use std::time::Instant;

use oc_diag::Diagnostic;
use oc_project::discover::skipped;
use oc_project::format::{files, format_file, summary, Formatted, Tally};
use oc_project::fsx::Confined;
use oc_project::Project;

use crate::commands::{projects, style};
use crate::report::{self, OneFile, Style};

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
    let manifest = report::manifest(project);
    let reports = report::Reports::new(&manifest);
    for d in &project.manifest_diagnostics {
        err!("{}", reports.render(d, style));
    }
    if project.manifest_diagnostics.iter().any(Diagnostic::is_error) {
        report::verdict(1);
        // Its `ignore` list may not have been read: touch nothing of this project.
        tally.failed += project.files.len().max(1);
        return;
    }
    tally.ignored += project.ignored;
    for (name, d) in skipped(project) {
        err!("{}", report::render(&OneFile { path: &name, text: "" }, &d, style));
        tally.failed += usize::from(d.is_error());
    }
    let confined = Confined::new(&project.root);
    for path in files(project, &confined) {
        tally.files += 1;
        match format_file(&confined, path) {
            Formatted::Same => {}
            Formatted::Failed { text, diagnostics, line } => {
                report::verdict(1);
                let file = OneFile { path, text: &text };
                let reports = report::Reports::new(&file);
                for d in &diagnostics {
                    err!("{}", reports.render(d, style));
                }
                if let Some(line) = line {
                    errln!("{line}");
                }
                tally.failed += 1;
            }
            Formatted::Changed { text, formatted } => {
                if check {
                    tally.changed += 1;
                    let diff = oc_fmt::diff::unified(&format!("a/{path}"), &format!("b/{path}"), &text, &formatted);
                    crate::report::verdict(1);
                    let _ = crate::report::out_shown(&diff);
                    continue;
                }
                match oc_project::output::rewrite_source(&confined, path, text.as_bytes(), formatted.as_bytes()) {
                    Ok(()) => {
                        tally.changed += 1;
                        noteln!("formatted {path}");
                    }
                    Err(e) => {
                        errln!("error: cannot write {path}: {e}");
                        tally.unwritten += 1;
                    }
                }
            }
        }
    }
}
