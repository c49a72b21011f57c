//! The subcommands. Exit status: 0 clean (warnings allowed), 1 errors in the input, 2 usage or I/O failure.

use std::path::{Path, PathBuf};
use std::time::Instant;

use oc_compiler::{Compilation, Workspace};
use oc_diag::CodeInfo;

use crate::report;
use crate::CheckFormat;
use oc_project::output::{self, Kind, Target};
use oc_project::session::{Outcome, Session};
use oc_project::{DiskHost, Project};

fn all_codes() -> impl Iterator<Item = &'static CodeInfo> {
    oc_compiler::all_codes()
        .chain(oc_atlas::CODES.iter())
        .chain(oc_atlas::tiled::CODES.iter())
        .chain(oc_project::codes::CODES.iter())
        .chain(oc_play::briefing::CODES.iter())
        .chain(oc_balance::CODES.iter())
        .chain(oc_engine::CODES.iter())
        .chain(oc_play::tune::CODES.iter())
        .chain(oc_play::session::CODES.iter())
}

pub use crate::report::style;

/// Finds the projects under `paths` (each with its own root); a usage error is printed.
pub fn projects(paths: &[PathBuf]) -> Result<Vec<Project>, u8> {
    let paths = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths.to_vec() };
    let found = oc_project::discover(&paths).map_err(|e| {
        errln!("error: {e}");
        2
    })?;
    if let Some(first) = found.first() {
        report::set_root(&first.root);
    }
    Ok(found)
}

/// The one project of a single path.
pub fn project_of(path: &Path) -> Result<Project, u8> {
    projects(&[path.to_path_buf()])?.into_iter().next().ok_or(2)
}

/// Checks an output path against the output policy; a refusal is printed (exit status 2).
pub fn output_target(out: &Path, kind: Kind, inputs: &[PathBuf], force: bool) -> Result<Target, u8> {
    output::prepare(out, kind, inputs, force).map_err(|r| {
        errln!("error: {}\nhelp: {}", r.message, r.help);
        2
    })
}

/// Writes an output; a failure is printed (exit status 2).
pub fn write_output(target: &Target, bytes: &[u8]) -> Result<(), u8> {
    if *target == Target::Stdout {
        return report::out(bytes).map_err(|e| {
            errln!("error: cannot write to standard output: {e}");
            2
        });
    }
    output::write(target, bytes).map_err(|e| {
        errln!("error: cannot write {}: {e}", target.show());
        2
    })?;
    report::wrote(&target.show());
    Ok(())
}

pub fn check(paths: &[PathBuf], format: CheckFormat, deny_warnings: bool) -> u8 {
    let started = Instant::now();
    let projects = match projects(paths) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let (mut errors, mut warnings) = (0, 0);
    let mut json_runs = Vec::new();
    let mut sarif_results = Vec::new();
    for project in &projects {
        report::set_root(&project.root);
        let mut session = Session::new(PathBuf::new()).without_models();
        let run = match session.run(project) {
            Ok(run) => run,
            Err(e) => {
                errln!("error: {e}");
                return 2;
            }
        };
        errors += run.diagnostics.iter().filter(|d| d.is_error()).count();
        warnings += run.diagnostics.iter().filter(|d| !d.is_error()).count();
        report::verdict(u8::from(errors > 0 || (deny_warnings && warnings > 0)));
        match format {
            CheckFormat::Json => json_runs.push(report::json(&session, &run.diagnostics, run.files + run.maps)),
            CheckFormat::Sarif => sarif_results.extend(crate::annotate::sarif_results(&session, &run.diagnostics)),
            CheckFormat::Github => out!("{}", crate::annotate::github(&session, &run.diagnostics)),
            CheckFormat::Human => {
                let style = style();
                let reports = report::Reports::new(&session);
                for d in &run.diagnostics {
                    err_lossy!("{}", reports.render(d, style));
                }
                noteln!("{}", summary(&run, started.elapsed()));
            }
        }
    }
    match format {
        CheckFormat::Json => outln!("{}", report::merge_json(json_runs)),
        CheckFormat::Sarif => {
            let codes: Vec<&CodeInfo> = all_codes().collect();
            outln!("{}", crate::annotate::sarif(sarif_results, &codes));
        }
        CheckFormat::Human | CheckFormat::Github => {}
    }
    u8::from(errors > 0 || (deny_warnings && warnings > 0))
}

/// `checked 12 files, 14 maps (3 skipped by oc.toml's ignore) and the standard library in 9ms: 0 errors, 0 warnings`
pub fn summary(run: &Outcome, took: std::time::Duration) -> String {
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

/// When the project's files, each compiled on its own (as `oc check` does), use more than one
/// ruleset: says which files use which and how to build each; `Some(1)` then.
fn several_rulesets(project: &Project, paths: &[PathBuf]) -> Option<u8> {
    let mut by_ruleset: std::collections::BTreeMap<String, Vec<String>> = std::collections::BTreeMap::new();
    for file in &project.files {
        let mut host = DiskHost::for_project(project);
        let (c, _) = Workspace::new().compile(&mut host, std::slice::from_ref(file));
        let name = c.rules.as_ref().or(c.partial.as_ref()).map(|r| r.ruleset.name.clone())?;
        by_ruleset.entry(name).or_default().push(file.clone());
    }
    if by_ruleset.len() < 2 {
        return None;
    }
    let shown = paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" ");
    errln!("error: the files of {shown} use {} rulesets, and one `oc build` writes one ruleset's rules:", by_ruleset.len());
    for (ruleset, files) in &by_ruleset {
        errln!("  {ruleset}: {}", files.join(", "));
    }
    let (ruleset, files) = by_ruleset.iter().next()?;
    let example = project.root.join(files.first()?);
    let example = example.strip_prefix(std::env::current_dir().ok()?).map_or(example.clone(), Path::to_path_buf);
    errln!(
        "help: build each ruleset's files on their own, such as `oc build {} -o {ruleset}.json`; `oc check {shown}` checks them all",
        example.display()
    );
    Some(1)
}

pub fn build(paths: &[PathBuf], out: &Path, force: bool) -> u8 {
    let project = if paths.is_empty() {
        Project { root: PathBuf::from("."), ..Project::default() }
    } else {
        match projects(paths).map(|p| p.into_iter().collect::<Vec<_>>()) {
            Ok(mut p) if p.len() == 1 => p.remove(0),
            Ok(_) => {
                errln!("error: the paths belong to different projects (each oc.toml starts one); build one project at a time");
                return 2;
            }
            Err(code) => return code,
        }
    };
    let mut host = DiskHost::for_project(&project);
    let mut workspace = Workspace::new();
    let (compilation, unreadable): (Compilation, _) = workspace.compile(&mut host, &project.files);
    // Every file the compile read is an input the output must not replace.
    let mut inputs: Vec<PathBuf> = paths.to_vec();
    inputs.extend(host.touched.iter().map(|p| project.root.join(p)));
    let target = match output_target(out, Kind::Rules, &inputs, force) {
        Ok(t) => t,
        Err(code) => return code,
    };
    if let Some((path, reason)) = unreadable.first() {
        errln!("error: {path}: {reason}");
        return 1;
    }
    // Files of several rulesets (`oc build scenarios`): one error that says how, not the
    // cascade of one compilation holding them all.
    if project.files.len() > 1 && compilation.diagnostics.iter().any(|d| d.code == oc_compiler::codes::MULTIPLE_RULESETS) {
        if let Some(code) = several_rulesets(&project, paths) {
            return code;
        }
    }
    let style = style();
    let reports = report::Reports::new(&workspace);
    for d in &compilation.diagnostics {
        err!("{}", reports.render(d, style));
    }
    let Some(rules) = compilation.rules else {
        errln!("not written: {} error(s)", compilation.error_count());
        return 1;
    };
    let json = match serde_json::to_string_pretty(&rules) {
        Ok(j) => j,
        Err(e) => {
            errln!("error: cannot serialize the rules: {e}");
            return 2;
        }
    };
    if let Err(code) = write_output(&target, json.as_bytes()) {
        return code;
    }
    noteln!(
        "wrote {} ({} classes, {} items, {} tags, {} terrains; ruleset {})",
        target.show(),
        rules.classes.len(),
        rules.items.len(),
        rules.tags.len(),
        rules.terrains.len(),
        rules.ruleset.name
    );
    0
}

pub fn explain(code: Option<&str>, list: bool) -> u8 {
    let Some(code) = code.filter(|_| !list) else {
        // Into one buffer, written once: a closed pipe (`| head`) is not worth a panic.
        let mut list = String::new();
        if report::transcribing() {
            let codes: Vec<serde_json::Value> =
                all_codes().map(|i| serde_json::json!({"code": i.code, "title": i.title})).collect();
            outln!("{}", serde_json::Value::Array(codes));
            return 0;
        }
        for info in all_codes() {
            list.push_str(&format!("{:<34} {}\n", info.code, info.title));
        }
        let _ = report::out(list.as_bytes());
        return 0;
    };
    let wanted = if code.starts_with("oc::") { code.to_string() } else { format!("oc::{code}") };
    match all_codes().find(|i| i.code == wanted) {
        Some(info) if report::transcribing() => {
            let value = serde_json::json!({"code": info.code, "title": info.title, "explanation": info.explanation});
            outln!("{value}");
            0
        }
        Some(info) => {
            let text = format!("{}: {}\n\n{}\n", info.code, info.title, info.explanation);
            let _ = report::out(text.as_bytes());
            0
        }
        None => {
            let suggestion = oc_diag::did_you_mean(&wanted, all_codes().map(|i| i.code));
            match suggestion {
                Some(s) => errln!("error: no diagnostic code `{code}`; did you mean `{s}`?"),
                None => errln!("error: no diagnostic code `{code}`; `oc explain --list` lists them all"),
            }
            2
        }
    }
}
