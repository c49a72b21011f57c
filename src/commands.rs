//! The subcommands. Exit status: 0 clean (warnings allowed), 1 errors in the input, 2 usage or I/O failure.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use oc_compiler::{Compilation, Workspace};
use oc_diag::{CodeInfo, Diagnostic, Span};

use crate::project::{self, DiskHost};
use crate::report::{self, Style};
use crate::Format;

pub const NOT_UTF8: &str = "oc::file::not_utf8";

/// Codes the CLI itself emits.
pub const CODES: &[CodeInfo] = &[CodeInfo {
    code: NOT_UTF8,
    title: "a file is not UTF-8 text",
    explanation: "oc reads source files as UTF-8. This file holds bytes that are not valid \
UTF-8 (often a file saved in another encoding, or a binary file with a `.oc` name). The rest of \
the file is still checked with the bad bytes replaced.\n\nFix: save the file as UTF-8, or rename \
it if it is not a source file.",
}];

fn all_codes() -> impl Iterator<Item = &'static CodeInfo> {
    oc_compiler::all_codes().chain(CODES.iter())
}

pub fn style() -> Style {
    if std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        Style::Fancy
    } else {
        Style::Plain
    }
}

/// The diagnostics of checking a set of files: each file with its imports, against the stdlib
/// unless it brings its own ruleset. The standard library is checked once on its own.
pub struct CheckRun {
    pub workspace: Workspace,
    pub diagnostics: Vec<Diagnostic>,
    pub files: usize,
    pub ignored: usize,
}

pub fn run_check(paths: &[PathBuf]) -> Result<CheckRun, String> {
    let paths = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths.to_vec() };
    let project = project::discover(&paths)?;
    let mut host = DiskHost::new(project.root.clone());
    let mut workspace = Workspace::new();
    let mut diagnostics = Vec::new();
    for (_, index) in oc_compiler::stdlib::RULESETS {
        if let Some(id) = workspace.id_of(index) {
            diagnostics.extend(workspace.compile_ids(&mut host, &[id]).diagnostics);
        }
    }
    for file in &project.files {
        let (compilation, unreadable) = workspace.compile(&mut host, std::slice::from_ref(file));
        diagnostics.extend(compilation.diagnostics);
        if let Some((path, reason)) = unreadable.first() {
            return Err(format!("{}: {reason}", project.root.join(path).display()));
        }
    }
    for (path, offset) in &host.not_utf8 {
        if let Some(id) = workspace.id_of(path) {
            let text_len = workspace.file(id).map_or(0, |f| f.text.len());
            let end = (offset + 3).min(text_len);
            diagnostics.push(
                Diagnostic::error(NOT_UTF8, Span::new(id, *offset, end), "this file is not valid UTF-8")
                    .with_label("invalid bytes start here")
                    .with_help("save the file as UTF-8; the rest of it was checked with the bad bytes replaced"),
            );
        }
    }
    let mut seen = std::collections::HashSet::new();
    diagnostics.retain(|d| seen.insert((d.code, d.span, d.message.clone())));
    diagnostics.sort_by_key(|d| (workspace.file(d.span.file).map(|f| f.path.clone()), d.span.start, d.code));
    Ok(CheckRun { workspace, diagnostics, files: project.files.len(), ignored: project.ignored })
}

pub fn check(paths: &[PathBuf], format: Format) -> u8 {
    let started = Instant::now();
    let run = match run_check(paths) {
        Ok(run) => run,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let errors = run.diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = run.diagnostics.len() - errors;
    match format {
        Format::Json => {
            let value = report::json(&run.workspace, &run.diagnostics, run.files);
            println!("{value}");
        }
        Format::Human => {
            let style = style();
            let mut err = std::io::stderr().lock();
            for d in &run.diagnostics {
                let _ = write!(err, "{}", report::render(&run.workspace, d, style));
            }
            let ignored = if run.ignored > 0 { format!(" ({} skipped by .ocignore)", run.ignored) } else { String::new() };
            let _ = writeln!(
                err,
                "checked {} file{}{ignored} and the standard library in {:.0?}: {errors} error{}, {warnings} warning{}",
                run.files,
                if run.files == 1 { "" } else { "s" },
                started.elapsed(),
                if errors == 1 { "" } else { "s" },
                if warnings == 1 { "" } else { "s" },
            );
        }
    }
    u8::from(errors > 0)
}

pub fn build(paths: &[PathBuf], out: &Path) -> u8 {
    let project = if paths.is_empty() {
        project::Project { root: PathBuf::from("."), files: Vec::new(), ignored: 0 }
    } else {
        match project::discover(paths) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: {e}");
                return 2;
            }
        }
    };
    let mut host = DiskHost::new(project.root.clone());
    let mut workspace = Workspace::new();
    let (compilation, unreadable): (Compilation, _) = workspace.compile(&mut host, &project.files);
    if let Some((path, reason)) = unreadable.first() {
        eprintln!("error: {path}: {reason}");
        return 2;
    }
    let style = style();
    for d in &compilation.diagnostics {
        eprint!("{}", report::render(&workspace, d, style));
    }
    let Some(rules) = compilation.rules else {
        eprintln!("not written: {} error(s)", compilation.error_count());
        return 1;
    };
    let json = match serde_json::to_string_pretty(&rules) {
        Ok(j) => j,
        Err(e) => {
            eprintln!("error: cannot serialize the rules: {e}");
            return 2;
        }
    };
    if let Err(e) = write_atomic(out, json.as_bytes()) {
        eprintln!("error: cannot write {}: {e}", out.display());
        return 2;
    }
    eprintln!(
        "wrote {} ({} classes, {} items, {} tags, {} terrains; ruleset {})",
        out.display(),
        rules.classes.len(),
        rules.items.len(),
        rules.tags.len(),
        rules.terrains.len(),
        rules.ruleset.name
    );
    0
}

/// Writes through a temporary file in the same directory and a rename, so a reader never sees
/// half a file and a failed write leaves the old one intact.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "out".into());
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

pub fn explain(code: Option<&str>, list: bool) -> u8 {
    let Some(code) = code.filter(|_| !list) else {
        for info in all_codes() {
            println!("{:<34} {}", info.code, info.title);
        }
        return 0;
    };
    let wanted = if code.starts_with("oc::") { code.to_string() } else { format!("oc::{code}") };
    match all_codes().find(|i| i.code == wanted) {
        Some(info) => {
            println!("{}: {}\n\n{}", info.code, info.title, info.explanation);
            0
        }
        None => {
            let suggestion = oc_diag::did_you_mean(&wanted, all_codes().map(|i| i.code));
            match suggestion {
                Some(s) => eprintln!("error: no diagnostic code `{code}`; did you mean `{s}`?"),
                None => eprintln!("error: no diagnostic code `{code}`; `oc explain --list` lists them all"),
            }
            2
        }
    }
}
