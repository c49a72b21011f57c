//! Scenarios made ready by `oc_play`, with what it found shown: the warnings of the files
//! (rendered with their sources), and a failure rendered with its exit status (1: the files
//! have errors; 2: a usage or I/O problem).

use std::path::{Path, PathBuf};

use oc_compiler::Workspace;
use oc_model::Rules;
use oc_play::{Failure, Field, Setup};

use crate::report;

/// Shows a failure; its exit status.
pub fn failure(f: Failure) -> u8 {
    match f {
        Failure::Rejected { workspace, diagnostics } => {
            let reports = report::Reports::new(workspace.as_ref());
            let style = report::style();
            for d in &diagnostics {
                eprint!("{}", reports.render(d, style));
            }
            eprintln!("not accepted: {} error(s)", diagnostics.iter().filter(|d| d.is_error()).count());
            1
        }
        Failure::Refused(r) => refused(&r),
    }
}

/// Shows a refusal (`error:` and `help:` lines); exit status 2.
pub fn refused(r: &oc_play::Refusal) -> u8 {
    eprintln!("error: {}", r.message);
    if let Some(help) = &r.help {
        eprintln!("help: {help}");
    }
    2
}

/// The `.oc` files under `path` compiled, their warnings shown.
pub fn compile(path: &Path) -> Result<oc_play::setup::Compiled, u8> {
    let compiled = oc_play::setup::compile(path).map_err(failure)?;
    let reports = report::Reports::new(&compiled.workspace);
    let style = report::style();
    for d in &compiled.warnings {
        eprint!("{}", reports.render(d, style));
    }
    Ok(compiled)
}

/// The rules, workspace and project root of the files under `path`.
pub fn rules(path: &Path) -> Result<(Rules, Workspace, PathBuf), u8> {
    let c = compile(path)?;
    Ok((c.rules, c.workspace, c.root))
}

/// The scenario `scenario` of `file`, ready to play but for its armies.
pub fn field(file: &Path, scenario: Option<&str>) -> Result<Field, u8> {
    compile(file)?.field(file, scenario).map_err(failure)
}

/// The scenario with both armies.
pub fn setup(file: &Path, scenario: Option<&str>, attacker: Option<&str>, defender: Option<&str>) -> Result<Setup, u8> {
    field(file, scenario)?.with_armies(attacker, defender).map_err(failure)
}
