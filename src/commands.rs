//! The subcommands. Exit status: 0 clean (warnings allowed), 1 errors in the input, 2 usage or I/O failure.

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use oc_compiler::{Compilation, Workspace};
use oc_diag::CodeInfo;

use crate::project::{self, DiskHost};
use crate::report::{self, Style};
use crate::session::{Outcome, Session};
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
    oc_compiler::all_codes().chain(oc_atlas::CODES.iter()).chain(CODES.iter()).chain(crate::scenario_cmd::CODES.iter())
}

pub fn style() -> Style {
    if std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none() {
        Style::Fancy
    } else {
        Style::Plain
    }
}

pub fn check(paths: &[PathBuf], format: Format) -> u8 {
    let started = Instant::now();
    let paths = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths.to_vec() };
    let mut session = Session::new(PathBuf::new());
    let run = match session.run(&paths) {
        Ok(run) => run,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let errors = run.diagnostics.iter().filter(|d| d.is_error()).count();
    match format {
        Format::Json => {
            let value = report::json(&session, &run.diagnostics, run.files + run.maps);
            println!("{value}");
        }
        Format::Human => {
            let style = style();
            let mut err = std::io::stderr().lock();
            for d in &run.diagnostics {
                let _ = write!(err, "{}", report::render(&session, d, style));
            }
            let _ = writeln!(err, "{}", summary(&run, started.elapsed()));
        }
    }
    u8::from(errors > 0)
}

/// `checked 12 files, 14 maps (3 skipped by .ocignore) and the standard library in 9ms: 0 errors, 0 warnings`
pub fn summary(run: &Outcome, took: std::time::Duration) -> String {
    let errors = run.diagnostics.iter().filter(|d| d.is_error()).count();
    let warnings = run.diagnostics.len() - errors;
    let plural = |n: usize, word: &str| format!("{n} {word}{}", if n == 1 { "" } else { "s" });
    let ignored = if run.ignored > 0 { format!(" ({} skipped by .ocignore)", run.ignored) } else { String::new() };
    format!(
        "checked {}, {}{ignored} and the standard library in {:.0?}: {}, {}",
        plural(run.files, "file"),
        plural(run.maps, "map"),
        took,
        plural(errors, "error"),
        plural(warnings, "warning"),
    )
}

pub fn build(paths: &[PathBuf], out: &Path) -> u8 {
    let project = if paths.is_empty() {
        project::Project { root: PathBuf::from("."), files: Vec::new(), maps: Vec::new(), ignored: 0 }
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
