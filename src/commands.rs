//! The subcommands. Exit status: 0 clean (warnings allowed), 1 errors in the input, 2 usage or I/O failure.

use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::report;
use crate::CheckFormat;
use oc_project::output::{self, Kind, Target};
use oc_project::session::Session;
use oc_project::Project;
use oc_render::plot::PlotFormat;

pub use crate::report::style;

/// Finds the projects under `paths` (each with its own root); a usage error is printed.
pub fn projects(paths: &[PathBuf]) -> Result<Vec<Project>, u8> {
    let paths = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths.to_vec() };
    let found = oc_project::discover(&paths).map_err(|e| {
        errln!("error: {e}");
        errln!("help: give files or folders that exist (relative to the working directory), or none for `.`");
        2
    })?;
    if let Some(first) = found.first() {
        report::set_root(&first.root);
    }
    Ok(found)
}

/// Checks an output path against the output policy; a refusal is printed (exit status 2).
pub fn output_target(out: &Path, kind: Kind, inputs: &[PathBuf], force: bool) -> Result<Target, u8> {
    output::prepare(out, kind, inputs, force).map_err(|r| {
        errln!("error: {}\nhelp: {}", r.message, r.help);
        2
    })
}

/// A shard's part about to replace a part of another shard or another run (`new`: the part's
/// text, its counts still empty): refused (exit status 2) without `force`, before any game.
pub fn part_free(target: Option<&Target>, kind: Kind, new: &str, force: bool) -> Result<(), u8> {
    let Some(Target::File(file)) = target.filter(|_| !force) else { return Ok(()) };
    if let Some(what) = oc_project::parts::another(&file.path, kind, new) {
        errln!(
            "error: {} holds another part: {what}; replacing it would lose its games",
            target.map_or_else(String::new, Target::show)
        );
        errln!("help: give each shard its own file (`--out part-K.json`), or pass --force to replace it");
        return Err(2);
    }
    Ok(())
}

/// [`output::apart`], a refusal printed (exit status 2).
pub fn apart(outputs: &[(&str, Option<&Path>)]) -> Result<(), u8> {
    output::apart(outputs).map_err(|r| {
        errln!("error: {}\nhelp: {}", r.message, r.help);
        2
    })
}

/// A plot's path (`what`: "a plot", "a heat map") passed through the output policy, with its
/// format (by its extension); a refusal is printed (exit status 2).
pub fn plot_target(path: &Path, what: &str, inputs: &[PathBuf], force: bool) -> Result<(Target, PlotFormat), u8> {
    let format = PlotFormat::of(path).map_err(|e| {
        errln!("error: {e}");
        errln!("help: name the file `.png` (a picture) or `.svg` (a drawing that scales)");
        2u8
    })?;
    if path.as_os_str() == "-" {
        errln!("error: {what} is written to a file, not to standard output");
        return Err(2);
    }
    Ok((output_target(path, Kind::Plot, inputs, force)?, format))
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
        // In words of its own where the system's would name the temporary file written first.
        let (why, help) = match e.kind() {
            std::io::ErrorKind::PermissionDenied => ("permission denied".to_string(), "choose a folder you may write in"),
            std::io::ErrorKind::NotFound => ("its folder is gone".to_string(), "create the folder, or choose another path"),
            std::io::ErrorKind::StorageFull => ("the disk is full".to_string(), "free some room, or write elsewhere"),
            std::io::ErrorKind::ReadOnlyFilesystem => ("the disk is read-only".to_string(), "choose a folder you may write in"),
            _ => (e.to_string(), "choose another output path"),
        };
        errln!("error: cannot write {}: {why}", target.show());
        errln!("help: {help}");
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
            CheckFormat::Sarif => sarif_results.extend(oc_render::annotate::sarif_results(&session, &run.diagnostics)),
            CheckFormat::Github => out!("{}", oc_render::annotate::github(&session, &run.diagnostics)),
            CheckFormat::Human => {
                let style = style();
                let reports = report::Reports::new(&session);
                for d in &run.diagnostics {
                    err_lossy!("{}", reports.render(d, style));
                }
                noteln!("{}", oc_render::diagnostics::summary(&run, started.elapsed()));
            }
        }
    }
    match format {
        CheckFormat::Json => outln!("{}", report::merge_json(json_runs)),
        CheckFormat::Sarif => {
            let codes: Vec<&oc_diag::CodeInfo> = oc_render::explain::all_codes().collect();
            outln!("{}", oc_render::annotate::sarif(sarif_results, &codes));
        }
        CheckFormat::Human | CheckFormat::Github => {}
    }
    u8::from(errors > 0 || (deny_warnings && warnings > 0))
}

/// A refusal of `oc_project::load` shown (`error:` and `help:` lines); exit status 2.
pub fn refused(r: &oc_project::load::Refusal) -> u8 {
    crate::load::refused(&r.clone().into())
}

pub fn build(paths: &[PathBuf], out: &Path, force: bool) -> u8 {
    let project = if paths.is_empty() {
        Project { root: PathBuf::from("."), ..Project::default() }
    } else {
        match oc_project::load::one_project(paths, "build") {
            Ok(p) => {
                report::set_root(&p.root);
                p
            }
            Err(r) => return refused(&r),
        }
    };
    let oc_project::load::Loaded { project, workspace, compilation, unreadable, inputs: read } =
        oc_project::load::compile_project(project);
    // Every file the compile read is an input the output must not replace.
    let mut inputs: Vec<PathBuf> = paths.to_vec();
    inputs.extend(read);
    let target = match output_target(out, Kind::Rules, &inputs, force) {
        Ok(t) => t,
        Err(code) => return code,
    };
    if !unreadable.is_empty() {
        return crate::load::unreadable_refused(workspace, &unreadable);
    }
    // Files of several rulesets (`oc build scenarios`, or a folder holding a ruleset of its own
    // beside files of the standard one: read together, every file against one ruleset's names):
    // one error that says how.
    let several =
        compilation.rules.is_none() || compilation.diagnostics.iter().any(|d| d.code == oc_compiler::codes::MULTIPLE_RULESETS);
    if let Some(r) = several.then(|| oc_project::load::several_rulesets_refusal(&project, paths, "build")).flatten() {
        report::verdict(1);
        refused(&r);
        return 1; // the input's problem, not a usage error
    }
    if compilation.rules.is_none() {
        report::verdict(1);
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
    use oc_render::explain;
    if let (Some(code), true) = (code, list) {
        errln!("error: `oc explain {code} --list`: --list lists every code; give a code or --list");
        errln!("help: `oc explain {code}` explains one code, `oc explain --list` lists them all");
        return 2;
    }
    let Some(code) = code.filter(|_| !list) else {
        if report::transcribing() {
            outln!("{}", explain::list_json());
        } else {
            // Into one buffer, written once: a closed pipe (`| head`) is not worth a panic.
            return report::out_status(explain::list().as_bytes());
        }
        return 0;
    };
    match explain::find(code) {
        Ok(info) if report::transcribing() => {
            outln!("{}", explain::json(info));
            0
        }
        Ok(info) => report::out_status(explain::text(info).as_bytes()),
        Err(e) => {
            errln!("error: {e}");
            errln!("help: `oc explain --list` lists every code with its title");
            2
        }
    }
}

/// A progress bar on standard error counting games (`len`: how many, when known), or none when
/// standard error is not a terminal or with `--quiet`: what is printed otherwise never changes.
pub struct Progress(Option<indicatif::ProgressBar>);

impl Progress {
    pub fn new(len: Option<u64>) -> Progress {
        use std::io::IsTerminal;
        if !std::io::stderr().is_terminal() || crate::report::quiet() {
            return Progress(None);
        }
        let (bar, template) = match len {
            Some(n) => (indicatif::ProgressBar::new(n), "{bar:40} {pos}/{len} games ({per_sec}, {eta} left)"),
            None => (indicatif::ProgressBar::no_length(), "{spinner} {pos} games ({per_sec}, {elapsed})"),
        };
        if let Ok(style) = indicatif::ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        Progress(Some(bar))
    }

    /// One more game played.
    pub fn tick(&self) {
        if let Some(b) = &self.0 {
            b.inc(1);
        }
    }

    /// A status line, printed above the bar.
    pub fn say(&self, line: &str) {
        match &self.0 {
            Some(b) => b.suspend(|| noteln!("{line}")),
            None => noteln!("{line}"),
        }
    }

    /// Takes the bar off the terminal.
    pub fn finish(&self) {
        if let Some(b) = &self.0 {
            b.finish_and_clear();
        }
    }
}
