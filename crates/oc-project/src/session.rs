//! One checking session over a project: every `.oc` file compiled with its imports, every map
//! linted against its rules. `oc check` runs it once; `oc watch` keeps it and, after a change,
//! redoes only what the changed paths affect: a root or a map whose *dependencies* (every path
//! its check read or tried to read, missing ones included) hold a changed path. `oc lsp` keeps one
//! per project with its open buffers as an *overlay*: text that wins over the disk's.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use crate::codes::NOT_UTF8;
use crate::discover::MANIFEST_FILE;
use crate::fsx::ReadError;
use crate::limits::{MAX_IMAGE_BYTES, MAX_SOURCE_BYTES};
use crate::{DiskHost, Project};
use oc_compiler::Workspace;
use oc_diag::{Diagnostic, FileId, Span};
use oc_model::Rules;

/// Map files get ids from here up, apart from the compiler's.
pub const MAP_BASE: u32 = 1 << 24;
/// Files that could not be read (no text) get ids from here up, after `oc.toml`'s.
const NOTE_BASE: u32 = MANIFEST_FILE.0 + 1;

struct RootResult {
    /// Every path the compilation read or tried to read (logical), standard library included.
    deps: BTreeSet<String>,
    diagnostics: Vec<Diagnostic>,
    /// The model as far as it could be built (`None` if the compiler built none at all, or
    /// the session keeps no models and no map needs this one).
    rules: Option<Rules>,
    /// The model was built and let go (a session without models): compiled again when a map
    /// needs it.
    dropped: bool,
}

struct MapResult {
    diagnostics: Vec<Diagnostic>,
    /// The `.oc` root it was checked against, if not the standard library.
    rules_root: Option<String>,
    /// Every path its check read or tried to read.
    deps: BTreeSet<String>,
}

/// Why a session could not check a project at all (a file that cannot be read, or a mistake in
/// one, is a diagnostic of the outcome instead).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SessionError {
    /// The embedded standard library's default ruleset did not compile: a broken build of oc.
    StdRulesetMissing(&'static str),
}

impl std::fmt::Display for SessionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SessionError::StdRulesetMissing(name) => {
                write!(f, "the standard library's {name} ruleset is missing (a broken build of oc: please report it)")
            }
        }
    }
}

impl std::error::Error for SessionError {}

pub struct Session {
    pub root: PathBuf,
    pub workspace: Workspace,
    /// (logical path, text) of every map read; a map's FileId is MAP_BASE + its index here.
    maps: Vec<(String, String)>,
    /// Paths reported without text (unreadable files, bad names); FileId NOTE_BASE + index.
    notes: Vec<String>,
    manifest: Option<(String, String)>,
    std_rules: Option<Rules>,
    /// The files of the default ruleset (logical `<std>/...` paths).
    std_files: Vec<String>,
    std_diagnostics: Vec<Diagnostic>,
    roots: HashMap<String, RootResult>,
    map_results: HashMap<String, MapResult>,
    /// Files read that were not UTF-8: the offset of the first bad byte.
    not_utf8: HashMap<String, usize>,
    /// Unsaved text by logical path (an editor's open buffers): read instead of the disk.
    overlay: HashMap<String, String>,
    /// Whether each root's model is kept (for [`Session::rules`] and [`Session::map`]): an editor
    /// asks for them; `oc check` does not, and a project of 10,000 files would hold 10,000
    /// models, each with the standard library's whole roster (2 GB).
    models: bool,
}

/// What one run did and found.
pub struct Outcome {
    pub diagnostics: Vec<Diagnostic>,
    pub files: usize,
    pub maps: usize,
    pub ignored: usize,
    /// How many `.oc` roots and maps were (re)checked rather than taken from the last run.
    pub rechecked_files: usize,
    pub rechecked_maps: usize,
}

fn is_hit(changed: &[String], file: &str) -> bool {
    changed.iter().any(|c| c.is_empty() || file == c || file.strip_prefix(c.as_str()).is_some_and(|rest| rest.starts_with('/')))
}

impl Session {
    pub fn new(root: PathBuf) -> Session {
        Session {
            root,
            workspace: Workspace::new(),
            maps: Vec::new(),
            notes: Vec::new(),
            manifest: None,
            std_rules: None,
            std_files: Vec::new(),
            std_diagnostics: Vec::new(),
            roots: HashMap::new(),
            map_results: HashMap::new(),
            not_utf8: HashMap::new(),
            overlay: HashMap::new(),
            models: true,
        }
    }

    /// A session that keeps no root's model but those a map's `rules` names (`oc check`,
    /// `oc watch`): diagnostics are the same, memory does not grow with the number of files.
    /// [`Session::rules`] then answers only for the standard library and those roots.
    pub fn without_models(mut self) -> Session {
        self.models = false;
        self
    }

    /// Sets (`Some`) or drops (`None`) the unsaved text of a file, and forgets what it affects.
    pub fn set_overlay(&mut self, path: &str, text: Option<String>) {
        match text {
            Some(t) => self.overlay.insert(path.to_string(), t),
            None => self.overlay.remove(path),
        };
        self.invalidate(&[path.to_string()]);
    }

    pub fn overlay(&self, path: &str) -> Option<&str> {
        self.overlay.get(path).map(String::as_str)
    }

    /// Whether a check of this session read (or tried to read) `path` (logical): a source, a map
    /// definition, a map's picture.
    pub fn reads(&self, path: &str) -> bool {
        self.roots.values().any(|r| r.deps.contains(path)) || self.map_results.values().any(|m| m.deps.contains(path))
    }

    /// Forgets what depends on `changed` (logical paths; a folder stands for everything under
    /// it; the empty path for the whole project), so the next [`Session::run`] rereads and
    /// rechecks it.
    pub fn invalidate(&mut self, changed: &[String]) {
        let hit = |file: &str| is_hit(changed, file);
        // A file that imports a missing one is told the project's source nearest its path, and a
        // scenario whose map is missing the nearest map: where a source or a map appears or goes,
        // or a folder that may hold them (renamed, removed), that may change (what `oc check`
        // would say now). The help named `lib/tags.oc` after `lib` was renamed `lib2`.
        let root_dir = self.root.clone();
        let listed =
            |c: &String| c.is_empty() || crate::discover::is_map(c) || c.ends_with(".oc") || !root_dir.join(c.as_str()).is_file();
        let listing = changed.iter().any(listed);
        let suggested = |d: &String| crate::discover::is_map(d) || (d.ends_with(".oc") && !d.starts_with("<std>"));
        let missing = |r: &RootResult| r.deps.iter().any(|d| suggested(d) && !root_dir.join(d.as_str()).is_file());
        self.roots.retain(|root, r| !(hit(root) || r.deps.iter().any(|f| hit(f)) || (listing && missing(r))));
        let stale: Vec<String> = self
            .workspace
            .files()
            .filter(|(_, f)| !f.path.starts_with("<std>") && hit(&f.path))
            .map(|(_, f)| f.path.clone())
            .collect();
        for f in &stale {
            self.workspace.invalidate(f);
        }
        self.not_utf8.retain(|path, _| !hit(path));
        let roots = &self.roots;
        self.map_results.retain(|path, m| {
            let rules_gone = m.rules_root.as_ref().is_some_and(|r| !roots.contains_key(r));
            !(hit(path) || rules_gone || m.deps.iter().any(|d| hit(d)))
        });
    }

    fn std_rules(&mut self, host: &mut DiskHost) -> Result<Rules, SessionError> {
        if self.std_rules.is_none() {
            for (name, index) in oc_compiler::stdlib::RULESETS {
                if let Some(id) = self.workspace.id_of(index) {
                    let mut c = self.workspace.compile_ids(host, &[id]);
                    self.std_diagnostics.append(&mut c.diagnostics);
                    if *name == oc_compiler::stdlib::DEFAULT {
                        self.std_files =
                            c.files.iter().filter_map(|id| self.workspace.file(*id)).map(|f| f.path.clone()).collect();
                        self.std_rules = c.into_model();
                    }
                }
            }
        }
        self.std_rules.clone().ok_or(SessionError::StdRulesetMissing(oc_compiler::stdlib::DEFAULT))
    }

    fn note(&mut self, path: &str) -> FileId {
        let index = match self.notes.iter().position(|p| p == path) {
            Some(i) => i,
            None => {
                self.notes.push(path.to_string());
                self.notes.len() - 1
            }
        };
        FileId(NOTE_BASE + index as u32)
    }

    /// A file that could not be read at all: one diagnostic naming it, the rest goes on.
    fn unreadable(&mut self, path: &str, reason: &oc_compiler::ReadError) -> Diagnostic {
        let id = self.note(path);
        crate::unreadable::diagnostic(id, path, reason)
    }

    fn compile_root(&mut self, host: &mut DiskHost, root: &str) -> bool {
        self.compile_root_keeping(host, root, self.models)
    }

    /// Compiles a root unless it is cached (with its model, when `keep` asks for it).
    fn compile_root_keeping(&mut self, host: &mut DiskHost, root: &str, keep: bool) -> bool {
        if self.roots.get(root).is_some_and(|r| !(keep && r.dropped)) {
            return false;
        }
        host.touched.clear();
        let (mut compilation, unreadable) = self.workspace.compile(host, &[root.to_string()]);
        let mut diagnostics = std::mem::take(&mut compilation.diagnostics);
        for (path, reason) in unreadable {
            diagnostics.push(self.unreadable(&path, &reason));
        }
        let mut deps: BTreeSet<String> = std::mem::take(&mut host.touched);
        deps.insert(root.to_string());
        deps.extend(compilation.files.iter().filter_map(|id| self.workspace.file(*id)).map(|f| f.path.clone()));
        let rules = compilation.into_model().filter(|_| keep);
        let dropped = !keep;
        self.roots.insert(root.to_string(), RootResult { deps, diagnostics, rules, dropped });
        true
    }

    /// Checks a project (found by [`oc_project::discover`]).
    pub fn run(&mut self, project: &Project) -> Result<Outcome, SessionError> {
        if project.root != self.root {
            // A different root: nothing cached applies.
            let models = self.models;
            *self = Session { models, ..Session::new(project.root.clone()) };
        }
        self.manifest = project.manifest.as_ref().map(|(p, t)| (p.display().to_string(), t.clone()));
        let mut host = DiskHost::for_project(project);
        host.overlay = std::mem::take(&mut self.overlay);
        let result = self.run_with(project, &mut host);
        self.overlay = std::mem::take(&mut host.overlay);
        result
    }

    fn run_with(&mut self, project: &Project, host: &mut DiskHost) -> Result<Outcome, SessionError> {
        let std_rules = self.std_rules(host)?;
        let mut rechecked_files = 0;
        for file in &project.files {
            rechecked_files += usize::from(self.compile_root(host, file));
        }
        let mut rechecked_maps = 0;
        for path in &project.maps {
            if self.map_results.contains_key(path) {
                continue;
            }
            rechecked_maps += 1;
            let result = self.check_map(host, path, &std_rules);
            self.map_results.insert(path.clone(), result);
        }
        let mut diagnostics = self.std_diagnostics.clone();
        diagnostics.extend(project.manifest_diagnostics.iter().cloned());
        for (name, d) in crate::discover::skipped(project) {
            let id = self.note(&name);
            diagnostics.push(Diagnostic { span: Span::new(id, 0, 0), ..d });
        }
        for file in &project.files {
            if let Some(r) = self.roots.get(file) {
                diagnostics.extend(r.diagnostics.iter().cloned());
            }
        }
        for path in &project.maps {
            if let Some(m) = self.map_results.get(path) {
                diagnostics.extend(m.diagnostics.iter().cloned());
            }
        }
        // Bad UTF-8 is reported for the files this run's compilations took part in, whichever
        // root read them first: a file read by a root that is gone (or whose import of it is
        // gone) is not reported, as `oc check` would not read it.
        self.not_utf8.extend(host.not_utf8.drain(..));
        let live_roots = project
            .files
            .iter()
            .chain(project.maps.iter().filter_map(|p| self.map_results.get(p).and_then(|m| m.rules_root.as_ref())));
        let read: BTreeSet<&String> = live_roots.filter_map(|r| self.roots.get(r)).flat_map(|r| r.deps.iter()).collect();
        for path in read {
            if let (Some(offset), Some(id)) = (self.not_utf8.get(path), self.workspace.id_of(path)) {
                let text_len = self.workspace.file(id).map_or(0, |f| f.text.len());
                diagnostics.push(not_utf8(Span::new(id, *offset, (offset + 3).min(text_len))));
            }
        }
        // One report per place: a file read both as a map and by a scenario has two ids.
        let mut seen = std::collections::HashSet::new();
        diagnostics
            .retain(|d| seen.insert((self.path(d.span.file).to_string(), d.span.start, d.span.end, d.code, d.message.clone())));
        diagnostics.sort_by_key(|d| (self.path(d.span.file).to_string(), d.span.start, d.code));
        Ok(Outcome {
            diagnostics,
            files: project.files.len(),
            maps: project.maps.len(),
            ignored: project.ignored,
            rechecked_files,
            rechecked_maps,
        })
    }

    /// A map checked by the last run, resolved against its rules, for rendering and export.
    pub fn map(&self, path: &str) -> Option<(oc_atlas::Map, Rules)> {
        let index = self.maps.iter().position(|(p, _)| p == path)?;
        let (_, text) = self.maps.get(index)?;
        let rules = match self.map_results.get(path).and_then(|m| m.rules_root.as_ref()) {
            Some(root) => self.roots.get(root)?.rules.clone()?,
            None => self.std_rules.clone()?,
        };
        let (map, _) = oc_atlas::parse(FileId(MAP_BASE + index as u32), text);
        let mut map = map?;
        map.resolve(&rules);
        Some((map, rules))
    }

    /// The files a checked `.oc` root or map was compiled with (its own, its imports, the standard
    /// library's), by logical path; `None` when the last run did not check it.
    pub fn scope(&self, path: &str) -> Option<Vec<&str>> {
        let root = match self.map_results.get(path) {
            Some(m) => m.rules_root.as_deref(),
            None => Some(path),
        };
        match root {
            Some(r) => {
                Some(self.roots.get(r)?.deps.iter().map(String::as_str).filter(|p| self.workspace.id_of(p).is_some()).collect())
            }
            None => Some(self.std_files.iter().map(String::as_str).collect()),
        }
    }

    /// The rules a checked `.oc` root or map was compiled with (as far as they could be built).
    pub fn rules(&self, path: &str) -> Option<&Rules> {
        match self.map_results.get(path) {
            Some(m) => match &m.rules_root {
                Some(r) => self.roots.get(r).and_then(|r| r.rules.as_ref()),
                None => self.std_rules.as_ref(),
            },
            None => self.roots.get(path).and_then(|r| r.rules.as_ref()),
        }
    }

    /// The standard library's files (logical `<std>/...` paths), once a run has compiled it.
    pub fn std_files(&self) -> &[String] {
        &self.std_files
    }

    /// The text a map was last checked with.
    pub fn map_text(&self, path: &str) -> Option<&str> {
        self.maps.iter().find(|(p, _)| p == path).map(|(_, t)| t.as_str())
    }

    /// Logical paths of the maps read.
    pub fn map_paths(&self) -> impl Iterator<Item = &str> {
        self.maps.iter().map(|(p, _)| p.as_str())
    }

    fn map_id(&mut self, path: &str, text: String) -> FileId {
        let index = match self.maps.iter().position(|(p, _)| p == path) {
            Some(i) => {
                if let Some(slot) = self.maps.get_mut(i) {
                    slot.1 = text;
                }
                i
            }
            None => {
                self.maps.push((path.to_string(), text));
                self.maps.len() - 1
            }
        };
        FileId(MAP_BASE + index as u32)
    }

    fn check_map(&mut self, host: &mut DiskHost, path: &str, std_rules: &Rules) -> MapResult {
        let mut deps = BTreeSet::from([path.to_string()]);
        let bytes = match host.read_bytes(path, MAX_SOURCE_BYTES) {
            Ok(b) => b,
            Err(e) => {
                let d = self.unreadable(path, &e);
                return MapResult { diagnostics: vec![d], rules_root: None, deps };
            }
        };
        let (text, bad) = match String::from_utf8(bytes) {
            Ok(t) => (t, None),
            Err(e) => {
                let offset = e.utf8_error().valid_up_to();
                (String::from_utf8_lossy(e.as_bytes()).into_owned(), Some(offset))
            }
        };
        let id = self.map_id(path, text.clone());
        let mut diagnostics = Vec::new();
        if let Some(offset) = bad {
            diagnostics.push(not_utf8(Span::new(id, offset, (offset + 3).min(text.len()))));
            return MapResult { diagnostics, rules_root: None, deps };
        }
        let dir = Path::new(path).parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let join = |rel: &str| -> Option<String> {
            // An absolute path (`/etc/passwd`) is outside the project, not a path under the map's
            // folder that is missing.
            if rel.starts_with(['/', '\\']) || std::path::Path::new(rel).is_absolute() {
                return None;
            }
            let joined = if dir.is_empty() { rel.to_string() } else { format!("{dir}/{rel}") };
            oc_compiler::resolve_logical(&joined).ok()
        };
        // The rules a map names are compiled like any root (and cached with them).
        let (parsed, parse_diags) = oc_atlas::parse(id, &text);
        let mut rules_root = None;
        let mut rules = std_rules.clone();
        if let Some((rel, span)) = parsed.as_ref().and_then(|m| m.rules.clone()) {
            let logical = join(&rel);
            if let Some(l) = &logical {
                deps.insert(l.clone());
            }
            let in_overlay = logical.as_ref().is_some_and(|l| host.overlay.contains_key(l));
            match logical.map(|l| (host.confined.resolve(Path::new(&l)), l)) {
                Some((real, logical)) if in_overlay || real.as_ref().is_ok_and(|r| r.is_file()) => {
                    // A map checks against its rules' model: kept even without models.
                    self.compile_root_keeping(host, &logical, true);
                    if let Some(r) = self.roots.get(&logical).and_then(|r| r.rules.clone()) {
                        rules = r;
                    }
                    rules_root = Some(logical);
                }
                found => {
                    let why = match found {
                        Some((Err(e @ ReadError::Outside(_)), _)) => e.to_string(),
                        None => "it is outside the project".to_string(),
                        _ => "no such file inside the project".to_string(),
                    };
                    diagnostics.push(
                        Diagnostic::error(oc_atlas::codes::FIELD, span, format!("cannot use the rules file `{rel}`"))
                            .with_label(why)
                            .with_help(
                                "`rules` is a .oc file, relative to the map and inside the project; omit it to use the standard library",
                            ),
                    )
                }
            }
        }
        let Some(parsed) = parsed else {
            diagnostics.extend(parse_diags);
            return MapResult { diagnostics, rules_root, deps };
        };
        let mut image_dep = None;
        let (_, found) = oc_atlas::finish(parsed, parse_diags, &rules, |map| {
            let Some((rel, _)) = &map.image else { return oc_atlas::ImageCheck::NotChecked };
            let Some(logical) = join(rel) else { return oc_atlas::ImageCheck::Unreadable("it is outside the project".into()) };
            image_dep = Some(logical.clone());
            match host.read_bytes(&logical, MAX_IMAGE_BYTES) {
                Ok(bytes) => match oc_atlas::export::png_size(&bytes) {
                    Ok((w, h)) => oc_atlas::ImageCheck::Size(w, h),
                    Err(e) => oc_atlas::ImageCheck::Unreadable(format!("not a PNG ({e})")),
                },
                Err(e) => oc_atlas::ImageCheck::Unreadable(e.to_string()),
            }
        });
        deps.extend(image_dep);
        diagnostics.extend(found);
        MapResult { diagnostics, rules_root, deps }
    }
}

pub(crate) fn not_utf8(span: Span) -> Diagnostic {
    Diagnostic::error(NOT_UTF8, span, "this file is not valid UTF-8")
        .with_label("invalid bytes start here")
        .with_help("save the file as UTF-8; the rest of it was checked with the bad bytes replaced")
}

impl Session {
    /// The logical path of a file id of this session's diagnostics (`oc.toml`, a map, a source,
    /// `<std>/...`, or a file reported without text).
    pub fn path(&self, id: FileId) -> &str {
        if id == MANIFEST_FILE {
            self.manifest.as_ref().map_or("oc.toml", |_| "oc.toml")
        } else if id.0 >= NOTE_BASE {
            self.notes.get((id.0 - NOTE_BASE) as usize).map_or("<unknown>", String::as_str)
        } else if id.0 >= MAP_BASE {
            self.maps.get((id.0 - MAP_BASE) as usize).map_or("<unknown>", |(p, _)| p.as_str())
        } else {
            self.workspace.file(id).map_or("<unknown>", |f| f.path.as_str())
        }
    }
    /// The text a file id was checked with (empty for a file reported without text).
    pub fn text(&self, id: FileId) -> &str {
        if id == MANIFEST_FILE {
            self.manifest.as_ref().map_or("", |(_, t)| t.as_str())
        } else if id.0 >= NOTE_BASE {
            ""
        } else if id.0 >= MAP_BASE {
            self.maps.get((id.0 - MAP_BASE) as usize).map_or("", |(_, t)| t.as_str())
        } else {
            self.workspace.file(id).map_or("", |f| f.text.as_str())
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::Session;

    /// The help of each missing import, as a run of `session` over the project at `root` says it.
    fn import_helps(session: &mut Session, root: &std::path::Path) -> Vec<String> {
        let project = crate::discover::discover(&[root.to_path_buf()]).unwrap().into_iter().next().unwrap();
        let run = session.run(&project).unwrap();
        run.diagnostics.iter().filter(|d| d.code == "oc::import::not_found").map(|d| d.help.clone()).collect()
    }

    /// A file importing a missing one is told the project's source nearest its path: one that
    /// appears elsewhere (`lub/tag.oc` beside an import of `lib/tag.oc`), or moves with its folder,
    /// changes what a watch's next run tells, as `oc check` would (only a map appearing or going
    /// rechecked what a file may be told).
    #[test]
    fn a_missing_import_s_suggestion_follows_the_sources_that_appear() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join("oc.toml"), "[project]\nname = \"p\"\n").unwrap();
        std::fs::write(root.join("unit.oc"), "import \"lib/tag.oc\"\n").unwrap();
        let mut session = Session::new(root.to_path_buf());
        let before = import_helps(&mut session, root);
        assert!(before.len() == 1 && !before[0].contains("did you mean"), "{before:?}");
        std::fs::create_dir(root.join("lub")).unwrap();
        std::fs::write(root.join("lub/tag.oc"), "tag Sharp on weapon doc \"Cuts.\" { damage_bonus += 1 }\n").unwrap();
        session.invalidate(&["lub".to_string()]);
        let after = import_helps(&mut session, root);
        assert!(after.len() == 1 && after[0].contains("did you mean `lub/tag.oc`?"), "{after:?}");
        std::fs::rename(root.join("lub"), root.join("lab")).unwrap();
        session.invalidate(&["lub".to_string(), "lab".to_string()]);
        let moved = import_helps(&mut session, root);
        assert!(moved.len() == 1 && moved[0].contains("did you mean `lab/tag.oc`?"), "{moved:?}");
    }
}
