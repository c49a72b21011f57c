//! Scenarios made ready by `oc_play`, with what it found shown: the warnings of the files
//! (rendered with their sources), and a failure rendered with its exit status (1: the files
//! have errors; 2: a usage or I/O problem).

use std::path::{Path, PathBuf};

use oc_compiler::Workspace;
use oc_engine::Engine;
use oc_model::Rules;
use oc_play::rules::{Loaded, Ruleset};
use oc_play::{Failure, Field, Setup};

use crate::report;

/// Shows a failure; its exit status.
pub fn failure(f: Failure) -> u8 {
    match f {
        Failure::Rejected { workspace, diagnostics } => {
            report::verdict(1);
            show(workspace.as_ref(), &diagnostics);
            errln!("not accepted: {} error(s)", diagnostics.iter().filter(|d| d.is_error()).count());
            1
        }
        Failure::Refused(r) => refused(&r),
    }
}

/// Shows a refusal (`error:` and `help:` lines); exit status 2.
pub fn refused(r: &oc_play::Refusal) -> u8 {
    errln!("error: {}", r.message);
    if let Some(help) = &r.help {
        errln!("help: {help}");
    }
    2
}

/// One file compiled with its warnings shown (a failure is shown once, by the caller).
pub fn compile_shown(path: &Path, command: &str) -> Result<oc_play::setup::Compiled, Failure> {
    report::root_of(path);
    let compiled = oc_play::setup::compile_for(path, command)?;
    show(&compiled.workspace, &compiled.warnings);
    Ok(compiled)
}

/// The `.oc` files under `path` compiled, their warnings shown.
pub fn compile(path: &Path, command: &str) -> Result<oc_play::setup::Compiled, u8> {
    compile_shown(path, command).map_err(failure)
}

/// The rules, workspace and project root of the files under `path`.
pub fn rules(path: &Path, command: &str) -> Result<(Rules, Workspace, PathBuf), u8> {
    let c = compile(path, command)?;
    Ok((c.rules, c.workspace, c.root))
}

/// The scenario `scenario` of `file`, ready to play but for its armies.
pub fn field(file: &Path, scenario: Option<&str>) -> Result<Field, u8> {
    one_file(file)?;
    compile(file, "play")?.field(file, scenario).map_err(failure)
}

/// [`oc_play::setup::one_file`], a refusal shown (exit status 2).
pub fn one_file(file: &Path) -> Result<(), u8> {
    oc_play::setup::one_file(file).map_err(|r| refused(&r))
}

/// The scenario with both armies.
pub fn setup(file: &Path, scenario: Option<&str>, attacker: Option<&str>, defender: Option<&str>) -> Result<Setup, u8> {
    field(file, scenario)?.with_armies(attacker, defender).map_err(failure)
}

/// The engine of the rules to play with (`oc_play::rules::choose`: `--ruleset`, else the
/// project's `ruleset`, else the default), their warnings shown.
pub fn engine(ruleset: Option<&str>, command: &str) -> Result<Engine, u8> {
    root_for(ruleset, None);
    let chosen = oc_play::rules::choose(ruleset).map_err(|e| refused(&e))?;
    loaded(&chosen, command).map(|l| l.engine)
}

/// Paths in reports are shown from the project of `first` (a path given), else of a ruleset given
/// as a path, else of the working directory.
pub fn root_for(ruleset: Option<&str>, first: Option<&Path>) {
    match first.or(ruleset.map(Path::new).filter(|p| p.exists())) {
        Some(path) => report::root_of(path),
        None => report::root_of(Path::new(".")),
    }
}

/// The engine of the `ruleset` the working directory's oc.toml names, if it names one.
pub fn project_engine() -> Option<Engine> {
    let chosen = oc_play::rules::of_project(&std::env::current_dir().ok()?).ok()??;
    loaded(&chosen, "render").ok().map(|l| l.engine)
}

/// A ruleset compiled, its warnings shown; its errors shown with exit status 1, a refusal
/// (the engine cannot run the rules, a path that is no project) with 2.
pub fn loaded(ruleset: &Ruleset, command: &str) -> Result<Loaded, u8> {
    shown(oc_play::rules::load(ruleset, command))
}

/// Rules loaded, their warnings shown; their errors shown with exit status 1 (`the rules have N
/// error(s)`), a refusal with 2.
pub fn shown(loaded: Result<Loaded, Failure>) -> Result<Loaded, u8> {
    match loaded {
        Ok(l) => {
            show(&l.workspace, &l.warnings);
            Ok(l)
        }
        Err(Failure::Rejected { workspace, diagnostics }) => {
            report::verdict(1);
            show(workspace.as_ref(), &diagnostics);
            errln!("the rules have {} error(s)", diagnostics.iter().filter(|d| d.is_error()).count());
            Err(1)
        }
        Err(Failure::Refused(r)) => Err(refused(&r)),
    }
}

pub fn show(workspace: &Workspace, diagnostics: &[oc_diag::Diagnostic]) {
    let reports = report::Reports::new(workspace);
    let style = report::style();
    for d in diagnostics {
        err!("{}", reports.render(d, style));
    }
}

/// Sources a command's compile could not read (`oc_project::load::Loaded::unreadable`), shown as
/// `oc check` shows them, a diagnostic each, and nothing written: exit status 1.
pub fn unreadable_refused(mut workspace: Workspace, unreadable: &[(String, oc_compiler::ReadError)]) -> u8 {
    let diagnostics = oc_project::unreadable::diagnostics(&mut workspace, unreadable);
    report::verdict(1);
    show(&workspace, &diagnostics);
    errln!("not written: {} file(s) could not be read", diagnostics.len());
    1
}
