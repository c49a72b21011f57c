//! A project's `.oc` files compiled together for a command: the one loading `oc build`, `oc
//! doc` and `oc_play` (its scenarios, `--ruleset PATH`, `oc balance`'s home-brew files) share.
//! The paths name one project; its files (or the roots the caller picks, on a built-in ruleset
//! when one is named) are compiled with their imports in one workspace; every file read is kept
//! as an input that no output may replace.
//!
//! [`Session`](crate::Session) compiles each file as its own root, as `oc check` and the
//! language server report them (a file's diagnostics are its own); a command plays or writes the
//! rules of all its files together, so it compiles them here, once.

use std::path::{Path, PathBuf};

use oc_compiler::{Compilation, Workspace};

use crate::{DiskHost, Project};

/// Why nothing could be loaded (nothing in a file is to blame): the message and a help line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub help: Option<String>,
}

impl Refusal {
    fn new(message: String, help: Option<String>) -> Refusal {
        Refusal { message, help }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Files compiled together.
pub struct Loaded {
    /// The project (a default one, without files, for a built-in ruleset).
    pub project: Project,
    /// The files' text, for the spans of the diagnostics.
    pub workspace: Workspace,
    pub compilation: Compilation,
    /// Roots that could not be read, with why.
    pub unreadable: Vec<(String, oc_compiler::ReadError)>,
    /// Every project file the compile read (under the root): inputs an output may not replace.
    pub inputs: Vec<PathBuf>,
}

/// The one project `paths` belong to (`.` when none is given); `doing` says what a user should do
/// one project at a time (`build`, `document`).
pub fn one_project(paths: &[PathBuf], doing: &str) -> Result<Project, Refusal> {
    let paths = if paths.is_empty() { vec![PathBuf::from(".")] } else { paths.to_vec() };
    let mut found = crate::discover(&paths).map_err(|e| {
        Refusal::new(e.to_string(), Some("give files or folders that exist (relative to the working directory)".into()))
    })?;
    match found.len() {
        1 => Ok(found.remove(0)),
        0 => Err(Refusal::new(format!("{}: no project", shown(&paths)), None)),
        n => Err(Refusal::new(
            format!("the paths belong to {n} projects (each oc.toml starts one)"),
            Some(format!("{doing} one project at a time")),
        )),
    }
}

/// [`one_project`], refused when it has no `.oc` file.
pub fn project_with_files(paths: &[PathBuf], doing: &str) -> Result<Project, Refusal> {
    let project = one_project(paths, doing)?;
    if project.files.is_empty() {
        return Err(Refusal::new(format!("no .oc files under {}", shown(paths)), None));
    }
    Ok(project)
}

fn shown(paths: &[PathBuf]) -> String {
    paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", ")
}

/// Compiles `roots` (logical paths of the project's files, or a standard library index) together.
pub fn compile(project: Project, roots: &[String]) -> Loaded {
    let mut host = DiskHost::for_project(&project);
    let mut workspace = Workspace::new();
    let (mut compilation, unreadable) = workspace.compile(&mut host, roots);
    // A file that is not UTF-8 was read with its bad bytes replaced: an error, as `oc check`
    // says (`oc doc` and `oc balance` went on in silence with the replaced text).
    for (path, offset) in host.not_utf8.drain(..) {
        let Some(id) = workspace.id_of(&path) else { continue };
        let len = workspace.file(id).map_or(0, |f| f.text.len());
        compilation.diagnostics.push(crate::session::not_utf8(oc_diag::Span::new(id, offset, (offset + 3).min(len))));
        if let Some(rules) = compilation.rules.take() {
            compilation.partial.get_or_insert(rules);
        }
    }
    let inputs = host.touched.iter().map(|p| project.root.join(p)).collect();
    Loaded { project, workspace, compilation, unreadable, inputs }
}

/// The project's own files compiled together ([`compile`]).
pub fn compile_project(project: Project) -> Loaded {
    let roots = project.files.clone();
    compile(project, &roots)
}

/// A built-in ruleset compiled from the standard library embedded (`None`: no such name).
pub fn builtin(name: &str) -> Option<(&'static str, Loaded)> {
    let (name, index) = oc_compiler::stdlib::builtin(name)?;
    let mut workspace = Workspace::new();
    let id = workspace.id_of(index)?;
    let compilation = workspace.compile_ids(&mut oc_compiler::stdlib::NoFiles, &[id]);
    let project = Project::default();
    Some((name, Loaded { project, workspace, compilation, unreadable: Vec::new(), inputs: Vec::new() }))
}

/// What `oc doc` documents: a built-in ruleset, or the files of a project.
pub struct Documented {
    pub loaded: Loaded,
    /// The site's title: the ruleset's name, or the project's (oc.toml's `name`, else its folder's).
    pub title: String,
    /// With files of several rulesets, the one documented and the files left out (`FILE (RULESET)`).
    pub left_out: Option<(String, Vec<String>)>,
}

/// The rules `oc doc` documents: the built-in `ruleset` (the default without paths), or the files
/// under `paths` — of the ruleset most of them use, since a site documents one.
pub fn documented(ruleset: Option<&str>, paths: &[PathBuf]) -> Result<Documented, Refusal> {
    if ruleset.is_some() && !paths.is_empty() {
        return Err(Refusal::new(
            "give either --ruleset NAME or paths to .oc files, not both".into(),
            Some("a site documents one ruleset: a built-in one (--ruleset) or yours (its files)".into()),
        ));
    }
    if paths.is_empty() {
        let name = ruleset.unwrap_or(oc_compiler::stdlib::DEFAULT);
        let names: Vec<&str> = oc_compiler::stdlib::RULESETS.iter().map(|(n, _)| *n).collect();
        let (name, loaded) = builtin(name).ok_or_else(|| {
            Refusal::new(
                format!("no built-in ruleset `{name}`: the built-in ones are {}", names.join(", ")),
                Some("to document your own rules, pass their files or folder: `oc doc rules/ -o site`".into()),
            )
        })?;
        return Ok(Documented { loaded, title: name.to_string(), left_out: None });
    }
    let project = project_with_files(paths, "document")?;
    let most = crate::rulesets::most_used(&project.files, &mut DiskHost::for_project(&project));
    let title =
        project.settings.name.clone().unwrap_or_else(|| {
            project.root.file_name().map_or_else(|| "rules".to_string(), |n| n.to_string_lossy().into_owned())
        });
    let left_out = (!most.left_out.is_empty()).then_some((most.ruleset, most.left_out));
    Ok(Documented { loaded: compile(project, &most.files), title, left_out })
}

/// When a project's files, each compiled on its own (as `oc check` does), use several rulesets:
/// the files of each (one `oc build` writes one ruleset's rules).
pub fn several_rulesets(project: &Project) -> Option<std::collections::BTreeMap<String, Vec<String>>> {
    let by_ruleset = crate::rulesets::by_ruleset(&project.files, &mut DiskHost::for_project(project), true);
    if by_ruleset.contains_key(&None) {
        return None;
    }
    let by_ruleset: std::collections::BTreeMap<String, Vec<String>> =
        by_ruleset.into_iter().filter_map(|(name, files)| Some((name?, files))).collect();
    (by_ruleset.len() > 1).then_some(by_ruleset)
}

/// `oc build PATHS` or `oc balance PATHS` (`command`) over files of several rulesets: one
/// refusal that names each ruleset's files and how to run the command on them (not the cascade
/// of one compilation holding them all, every file read against one ruleset's names).
pub fn several_rulesets_refusal(project: &Project, paths: &[PathBuf], command: &str) -> Option<Refusal> {
    let by_ruleset = several_rulesets(project)?;
    let shown = paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(" ");
    let mut message =
        format!("the files of {shown} use {} rulesets, and one `oc {command}` reads one ruleset's rules:", by_ruleset.len());
    for (ruleset, files) in &by_ruleset {
        message.push_str(&format!("\n  {ruleset}: {}", files.join(", ")));
    }
    let help = by_ruleset.iter().next().and_then(|(r, f)| Some((r, f.first()?))).map(|(ruleset, file)| {
        let example = from_cwd(&project.root.join(file));
        match command {
            // Commands that read rules given as `--ruleset`.
            "forecast" | "duel" | "matrix" | "render" => format!(
                "give one ruleset's files as --ruleset, such as `--ruleset {}`; `oc check {shown}` checks them all",
                example.display()
            ),
            "build" => format!(
                "build each ruleset's files on their own, such as `oc build {} -o {ruleset}.json`; `oc check {shown}` checks them all",
                example.display()
            ),
            _ => format!(
                "{command} each ruleset's files on their own, such as `oc {command} {}`; `oc check {shown}` checks them all",
                example.display()
            ),
        }
    });
    Some(Refusal::new(message, help))
}

/// A path as the user would type it from the working directory (relative when under it).
pub fn from_cwd(path: &Path) -> PathBuf {
    match std::env::current_dir() {
        Ok(cwd) => path.strip_prefix(cwd).map_or_else(|_| path.to_path_buf(), Path::to_path_buf),
        Err(_) => path.to_path_buf(),
    }
}

/// One map file checked as `oc check` checks it (by a [`Session`](crate::Session)), for the map
/// commands: the run's diagnostics (over the session's sources), and the map resolved with
/// its rules when it could be read.
pub struct MapLoaded {
    pub session: crate::Session,
    pub diagnostics: Vec<oc_diag::Diagnostic>,
    pub map: Option<(oc_atlas::Map, oc_model::Rules)>,
    pub root: PathBuf,
    /// What reading the map read: the map, its background picture and its rules file.
    pub inputs: Vec<PathBuf>,
}

/// Reads the map file at `path` ([`MapLoaded`]); refused: a name not ending in `.map.toml`, or a
/// project that cannot be read.
pub fn map(path: &Path) -> Result<MapLoaded, Refusal> {
    if !path.file_name().is_some_and(|n| crate::discover::is_map(&n.to_string_lossy())) {
        return Err(Refusal::new(format!("{}: a map file's name ends in `.map.toml`", path.display()), None));
    }
    let project = one_project(&[path.to_path_buf()], "read")?;
    let mut session = crate::Session::new(PathBuf::new());
    let run = session.run(&project).map_err(|e| Refusal::new(e.to_string(), None))?;
    let logical = session.map_paths().next().map(str::to_string);
    let map = logical.and_then(|l| session.map(&l));
    let dir = path.parent().unwrap_or(Path::new(""));
    let mut inputs = vec![path.to_path_buf()];
    if let Some((m, _)) = &map {
        inputs.extend(m.image.iter().chain(m.rules.iter()).map(|(rel, _)| dir.join(rel)));
    }
    Ok(MapLoaded { session, diagnostics: run.diagnostics, map, root: project.root, inputs })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn a_project_compiles_with_every_file_read_as_an_input() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.oc"), "import \"b.oc\"\n").unwrap();
        std::fs::write(dir.path().join("b.oc"), "").unwrap();
        let project = project_with_files(&[dir.path().join("a.oc")], "build").unwrap();
        let loaded = compile_project(project);
        assert!(loaded.compilation.rules.is_some(), "{:?}", loaded.compilation.diagnostics);
        assert!(loaded.unreadable.is_empty());
        assert!(loaded.inputs.iter().any(|p| p.ends_with("b.oc")), "{:?}", loaded.inputs);
    }

    #[test]
    fn refusals_say_what_to_do() {
        let empty = tempfile::tempdir().unwrap();
        let r = project_with_files(&[empty.path().to_path_buf()], "build").err().unwrap();
        assert!(r.message.starts_with("no .oc files under"), "{r:?}");
        let r = documented(Some("nonesuch"), &[]).err().unwrap();
        assert!(r.message.contains("no built-in ruleset `nonesuch`") && r.help.is_some(), "{r:?}");
        assert!(documented(Some("stamina"), &[empty.path().to_path_buf()]).is_err());
        let doc = documented(Some("v06"), &[]).unwrap();
        assert_eq!(doc.title, "officers_chess_v06");
        assert!(doc.loaded.compilation.rules.is_some());
    }

    #[test]
    fn files_of_several_rulesets_are_named_by_ruleset() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.oc"), "import \"std:stamina\"\n").unwrap();
        std::fs::write(dir.path().join("c.oc"), "import \"std:skirmish\"\n").unwrap();
        let project = one_project(&[dir.path().to_path_buf()], "build").unwrap();
        let several = several_rulesets(&project).unwrap();
        assert_eq!(several.get("stamina"), Some(&vec!["a.oc".to_string()]));
        assert_eq!(several.get("skirmish"), Some(&vec!["c.oc".to_string()]));
        let doc = documented(None, &[dir.path().to_path_buf()]).unwrap();
        assert_eq!(doc.left_out.map(|(_, l)| l.len()), Some(1));
    }
}
