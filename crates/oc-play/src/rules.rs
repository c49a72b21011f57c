//! Rules from a path or a built-in name: the one answer every command gives to `--ruleset NAME`
//! and to an oc.toml's `ruleset = "..."`. A built-in ruleset is named by its name
//! (`officers_chess`, `officers_chess_v06`, `stamina`, `battlestorm`, `skirmish`) or a short alias
//! (`ratings`, `v06`), the names `oc_compiler::stdlib` knows; any other value is a path to `.oc`
//! files (a file or a folder), compiled as a project like `oc build` does. Without a value, the
//! `ruleset` of the oc.toml above the working directory (as `cargo` finds its manifest), else
//! the default built-in ruleset.

use std::path::{Path, PathBuf};

use oc_compiler::Workspace;
use oc_diag::{Diagnostic, FileId};
use oc_engine::Engine;

use crate::error::{Failure, Refusal};

/// Which rules: a built-in ruleset, or `.oc` files on disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ruleset {
    /// A built-in ruleset: its name, and the standard library file that imports all of it.
    Builtin { name: &'static str, index: &'static str },
    /// A file or folder of `.oc` files.
    Path(PathBuf),
}

/// The built-in ruleset a name or an alias means.
pub fn builtin(name: &str) -> Option<Ruleset> {
    oc_compiler::stdlib::builtin(name).map(|(name, index)| Ruleset::Builtin { name, index })
}

/// The built-in rulesets' names (aliases aside), the default first.
pub fn names() -> Vec<&'static str> {
    oc_compiler::stdlib::RULESETS.iter().map(|(n, _)| *n).collect()
}

/// What a `--ruleset` value means: a built-in name or alias, else a path that exists.
pub fn resolve(value: &str) -> Result<Ruleset, Refusal> {
    if let Some(r) = builtin(value) {
        return Ok(r);
    }
    let path = Path::new(value);
    if path.exists() {
        return Ok(Ruleset::Path(path.to_path_buf()));
    }
    // A value that reads as a path (a folder in it, an extension) is one that is missing.
    if value.contains(['/', '\\']) || path.extension().is_some() {
        return Err(Refusal::new(format!("--ruleset {value}: no such file or folder"))
            .with_help(format!("give the path of `.oc` files that exist, or a built-in ruleset: {}", names().join(", "))));
    }
    Err(Refusal::new(format!("no ruleset `{value}`: the built-in ones are {} (or give a path to .oc files)", names().join(", ")))
        .with_help("name a built-in ruleset, or the path of a folder or `.oc` file with your own rules"))
}

/// The `ruleset` of the project holding `dir`, if its oc.toml names one: a built-in name or
/// alias, or the real path of its rules inside that project (confined like an import).
pub fn of_project(dir: &Path) -> Result<Option<Ruleset>, Refusal> {
    let root = oc_project::find_root(dir);
    if root.manifest.is_none() {
        return Ok(None);
    }
    let project = oc_project::discover::open(&root.dir);
    let Some(name) = project.settings.ruleset else { return Ok(None) };
    if let Some(r) = builtin(&name) {
        return Ok(Some(r));
    }
    // Named neither a built-in ruleset nor a file or folder of the project: which was meant, and
    // where `oc check` points at it (`oc::manifest::ruleset`).
    let missing = |why: String| {
        let near = oc_diag::did_you_mean(&name, names());
        let manifest = root.dir.join(oc_project::manifest::FILE_NAME);
        Refusal::new(format!("oc.toml's ruleset `{name}` {why}")).with_help(match near {
            Some(near) => format!(
                "did you mean `{near}`? write `ruleset = \"{near}\"` in {}, or pass --ruleset (`oc check` points at the line)",
                manifest.display()
            ),
            None => format!(
                "name a built-in ruleset ({}) or the path of your rules in {}, or pass --ruleset",
                names().join(", "),
                manifest.display()
            ),
        })
    };
    let logical = oc_compiler::resolve_logical(&name).map_err(|why| missing(why.to_string()))?;
    let real = oc_project::fsx::Confined::new(&root.dir)
        .resolve(Path::new(&logical))
        .map_err(|e| missing(format!("is not a built-in ruleset, nor a file or folder inside the project ({e})")))?;
    Ok(Some(Ruleset::Path(real)))
}

/// The ruleset the working directory's project names ([`of_project`]), if it names one.
pub fn of_working_directory() -> Result<Option<Ruleset>, Refusal> {
    match std::env::current_dir() {
        Ok(cwd) => of_project(&cwd),
        Err(_) => Ok(None),
    }
}

/// The rules a command plays with: `value` if given, else the working directory's project's
/// `ruleset`, else the default built-in one.
pub fn choose(value: Option<&str>) -> Result<Ruleset, Refusal> {
    if let Some(v) = value {
        return resolve(v);
    }
    Ok(of_working_directory()?
        .or_else(|| builtin(oc_compiler::stdlib::DEFAULT))
        .unwrap_or(Ruleset::Builtin { name: oc_compiler::stdlib::DEFAULT, index: "<std>/ratings.oc" }))
}

/// Rules compiled, and the engine that plays them.
pub struct Loaded {
    pub engine: Engine,
    /// The files' text (for the spans of diagnostics) and the files compiled.
    pub workspace: Workspace,
    pub files: Vec<FileId>,
    /// The compilation's warnings (it has no errors).
    pub warnings: Vec<Diagnostic>,
}

/// Compiles a ruleset for `oc {command}`: the built-in one embedded, or the `.oc` files at the
/// path (`oc_project::load`, the loading every command shares; a path with none is refused, not
/// read as the standard library alone).
pub fn load(ruleset: &Ruleset, command: &str) -> Result<Loaded, Failure> {
    let loaded = match ruleset {
        Ruleset::Builtin { name, index } => oc_project::load::builtin(name)
            .map(|(_, l)| l)
            .ok_or_else(|| Failure::refused(format!("the standard library lacks {index}")))?,
        Ruleset::Path(path) => {
            let paths = std::slice::from_ref(path);
            let loaded = oc_project::load::compile_project(oc_project::load::project_with_files(paths, "load")?);
            // Files of several rulesets: which use which, not the cascade (as `load_files`).
            if loaded.compilation.rules.is_none() {
                if let Some(r) = oc_project::load::several_rulesets_refusal(&loaded.project, paths, command) {
                    return Err(r.into());
                }
            }
            loaded
        }
    };
    engine_of(loaded)
}

/// The `.oc` files under `paths` (one project's) compiled on the standard library, or on the
/// built-in ruleset `base` names: home-brew classes and items with the roster they join.
pub fn load_files(paths: &[PathBuf], base: Option<&str>) -> Result<Loaded, Failure> {
    let project = oc_project::load::project_with_files(paths, "balance")?;
    let mut roots = Vec::new();
    if let Some(name) = base {
        let Some(Ruleset::Builtin { index, .. }) = builtin(name) else {
            return Err(Failure::refused(format!(
                "no built-in ruleset `{name}` (with paths, --ruleset names the one they build on: {})",
                names().join(", ")
            )));
        };
        roots.push(index.to_string());
    }
    roots.extend(project.files.iter().cloned());
    let loaded = oc_project::load::compile(project, &roots);
    // Files of several rulesets read together (a folder holding a ruleset of its own beside files
    // of the standard one): which files use which, not the cascade of every file read against
    // one ruleset's names (worked out only where the rules did not compile).
    if loaded.compilation.rules.is_none() {
        if let Some(r) = oc_project::load::several_rulesets_refusal(&loaded.project, paths, "balance") {
            return Err(r.into());
        }
    }
    engine_of(loaded)
}

/// `oc balance`'s rules: the files under `paths` on `ruleset` ([`load_files`]); without paths, the
/// ruleset `ruleset` chooses ([`choose`]) with no file of its own to warn about (its prices are
/// the curve), except a path given as the ruleset, a project like files given.
pub fn load_with(ruleset: Option<&str>, paths: &[PathBuf]) -> Result<Loaded, Failure> {
    if !paths.is_empty() {
        return load_files(paths, ruleset);
    }
    if let Some(Ruleset::Path(p)) = ruleset.map(resolve).transpose()? {
        return load_files(&[p], None);
    }
    let loaded = load(&choose(ruleset)?, "balance")?;
    Ok(Loaded { files: Vec::new(), ..loaded })
}

/// Compiled rules with their engine; the diagnostics that stop them, or why nothing was read.
fn engine_of(loaded: oc_project::load::Loaded) -> Result<Loaded, Failure> {
    let oc_project::load::Loaded { mut workspace, compilation, unreadable, .. } = loaded;
    if !unreadable.is_empty() {
        let diagnostics = oc_project::unreadable::diagnostics(&mut workspace, &unreadable);
        return Err(Failure::Rejected { workspace: Box::new(workspace), diagnostics });
    }
    let files = compilation.files.clone();
    let Some(rules) = compilation.rules else {
        return Err(Failure::Rejected { workspace: Box::new(workspace), diagnostics: compilation.diagnostics });
    };
    let engine = Engine::new(rules).map_err(|e| Failure::refused(e.to_string()))?;
    Ok(Loaded { engine, workspace, files, warnings: compilation.diagnostics })
}
