//! One checking session over a project: every `.oc` file compiled with its imports, every map
//! linted against its rules. `oc check` runs it once; `oc watch` keeps it and, after a change,
//! redoes only what the changed paths affect (a root whose import set holds a changed file; a
//! map whose text, image or rules changed).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use oc_compiler::Workspace;
use oc_diag::{Diagnostic, FileId, Span};
use oc_model::Rules;

use crate::commands::NOT_UTF8;
use crate::project::{self, DiskHost};
use crate::report::Sources;

/// Map files get ids from here up, apart from the compiler's.
const MAP_BASE: u32 = 1 << 24;

struct RootResult {
    /// Every file the compilation read (logical paths), standard library included.
    files: BTreeSet<String>,
    diagnostics: Vec<Diagnostic>,
    rules: Rules,
}

struct MapResult {
    diagnostics: Vec<Diagnostic>,
    /// The `.oc` root it was checked against, if not the standard library.
    rules_root: Option<String>,
    image: Option<String>,
}

pub struct Session {
    pub root: PathBuf,
    pub workspace: Workspace,
    /// (logical path, text) of every map read; a map's FileId is MAP_BASE + its index here.
    maps: Vec<(String, String)>,
    std_rules: Option<Rules>,
    std_diagnostics: Vec<Diagnostic>,
    roots: HashMap<String, RootResult>,
    map_results: HashMap<String, MapResult>,
    /// Files read that were not UTF-8: the offset of the first bad byte.
    not_utf8: HashMap<String, usize>,
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

impl Session {
    pub fn new(root: PathBuf) -> Session {
        Session {
            root,
            workspace: Workspace::new(),
            maps: Vec::new(),
            std_rules: None,
            std_diagnostics: Vec::new(),
            roots: HashMap::new(),
            map_results: HashMap::new(),
            not_utf8: HashMap::new(),
        }
    }

    /// Forgets what depends on `changed` (logical paths; a directory stands for everything under
    /// it), so the next [`Session::run`] rereads and rechecks it.
    pub fn invalidate(&mut self, changed: &[String]) {
        let hit = |file: &str| changed.iter().any(|c| file == c || file.starts_with(&format!("{c}/")));
        let mut stale_files: BTreeSet<String> = BTreeSet::new();
        for (root, r) in &self.roots {
            // A root whose import was missing may be fixed by a file that did not exist before.
            let missing_import = r.diagnostics.iter().any(|d| d.code == "oc::import::not_found");
            if hit(root) || missing_import || r.files.iter().any(|f| hit(f)) {
                stale_files.insert(root.clone());
            }
        }
        for r in &stale_files {
            self.roots.remove(r);
        }
        for (_, f) in self.workspace.files() {
            if hit(&f.path) {
                stale_files.insert(f.path.clone());
            }
        }
        for f in &stale_files {
            if hit(f) {
                self.workspace.invalidate(f);
            }
        }
        self.not_utf8.retain(|path, _| !hit(path));
        let roots = &self.roots;
        self.map_results.retain(|path, m| {
            let rules_gone = m.rules_root.as_ref().is_some_and(|r| !roots.contains_key(r));
            let image_changed = m.image.as_ref().is_some_and(|i| hit(i));
            !(hit(path) || rules_gone || image_changed)
        });
    }

    fn std_rules(&mut self, host: &mut DiskHost) -> Result<Rules, String> {
        if self.std_rules.is_none() {
            for (name, index) in oc_compiler::stdlib::RULESETS {
                if let Some(id) = self.workspace.id_of(index) {
                    let c = self.workspace.compile_ids(host, &[id]);
                    self.std_diagnostics.extend(c.diagnostics);
                    if *name == "officers_chess" {
                        self.std_rules = Some(c.partial);
                    }
                }
            }
        }
        self.std_rules.clone().ok_or_else(|| "the standard library's officers_chess ruleset is missing".to_string())
    }

    fn compile_root(&mut self, host: &mut DiskHost, root: &str) -> Result<bool, String> {
        if self.roots.contains_key(root) {
            return Ok(false);
        }
        let (compilation, unreadable) = self.workspace.compile(host, &[root.to_string()]);
        if let Some((path, reason)) = unreadable.first() {
            return Err(format!("{}: {reason}", self.root.join(path).display()));
        }
        let files = compilation.files.iter().filter_map(|id| self.workspace.file(*id)).map(|f| f.path.clone()).collect();
        self.roots
            .insert(root.to_string(), RootResult { files, diagnostics: compilation.diagnostics, rules: compilation.partial });
        Ok(true)
    }

    /// Checks the project under `paths`.
    pub fn run(&mut self, paths: &[PathBuf]) -> Result<Outcome, String> {
        let project = project::discover(paths)?;
        if project.root != self.root {
            // A different root: nothing cached applies.
            *self = Session::new(project.root.clone());
        }
        let mut host = DiskHost::new(project.root.clone());
        let std_rules = self.std_rules(&mut host)?;
        let mut rechecked_files = 0;
        for file in &project.files {
            rechecked_files += usize::from(self.compile_root(&mut host, file)?);
        }
        let mut rechecked_maps = 0;
        for path in &project.maps {
            if self.map_results.contains_key(path) {
                continue;
            }
            rechecked_maps += 1;
            let result = self.check_map(&mut host, path, &std_rules)?;
            self.map_results.insert(path.clone(), result);
        }
        let mut diagnostics = self.std_diagnostics.clone();
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
        self.not_utf8.extend(host.not_utf8.drain(..));
        for (path, offset) in &self.not_utf8 {
            if let Some(id) = self.workspace.id_of(path) {
                let text_len = self.workspace.file(id).map_or(0, |f| f.text.len());
                diagnostics.push(not_utf8(Span::new(id, *offset, (offset + 3).min(text_len))));
            }
        }
        let mut seen = std::collections::HashSet::new();
        diagnostics.retain(|d| seen.insert((d.code, d.span, d.message.clone())));
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
            Some(root) => self.roots.get(root)?.rules.clone(),
            None => self.std_rules.clone()?,
        };
        let (map, _) = oc_atlas::parse(FileId(MAP_BASE + index as u32), text);
        let mut map = map?;
        map.resolve(&rules);
        Some((map, rules))
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

    fn check_map(&mut self, host: &mut DiskHost, path: &str, std_rules: &Rules) -> Result<MapResult, String> {
        let full = self.root.join(path);
        let bytes = std::fs::read(&full).map_err(|e| format!("{}: {e}", full.display()))?;
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
            return Ok(MapResult { diagnostics, rules_root: None, image: None });
        }
        let dir = Path::new(path).parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
        let join = |rel: &str| -> Option<String> {
            let joined = if dir.is_empty() { rel.to_string() } else { format!("{dir}/{rel}") };
            normalize(&joined)
        };
        // The rules a map names are compiled like any root (and cached with them).
        let (parsed, parse_diags) = oc_atlas::parse(id, &text);
        let mut rules_root = None;
        let mut rules = std_rules.clone();
        if let Some((rel, span)) = parsed.as_ref().and_then(|m| m.rules.clone()) {
            match join(&rel).filter(|p| self.root.join(p).is_file()) {
                Some(logical) => {
                    self.compile_root(host, &logical)?;
                    if let Some(r) = self.roots.get(&logical) {
                        rules = r.rules.clone();
                    }
                    rules_root = Some(logical);
                }
                None => diagnostics.push(
                    Diagnostic::error(oc_atlas::codes::FIELD, span, format!("no rules file `{rel}` inside the project"))
                        .with_help(
                        "`rules` is a .oc file, relative to the map and inside the project; omit it to use the standard library",
                    ),
                ),
            }
        }
        let mut image_path = None;
        let root = self.root.clone();
        let Some(parsed) = parsed else {
            diagnostics.extend(parse_diags);
            return Ok(MapResult { diagnostics, rules_root, image: None });
        };
        let (_, found) = oc_atlas::finish(parsed, parse_diags, &rules, |map| {
            let Some((rel, _)) = &map.image else { return oc_atlas::ImageCheck::NotChecked };
            let Some(logical) = join(rel) else { return oc_atlas::ImageCheck::Unreadable("it is outside the project".into()) };
            image_path = Some(logical.clone());
            match std::fs::read(root.join(&logical)) {
                Ok(bytes) => match oc_atlas::export::png_size(&bytes) {
                    Ok((w, h)) => oc_atlas::ImageCheck::Size(w, h),
                    Err(e) => oc_atlas::ImageCheck::Unreadable(format!("not a PNG ({e})")),
                },
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => oc_atlas::ImageCheck::Unreadable("no such file".into()),
                Err(e) => oc_atlas::ImageCheck::Unreadable(e.to_string()),
            }
        });
        diagnostics.extend(found);
        Ok(MapResult { diagnostics, rules_root, image: image_path })
    }
}

fn not_utf8(span: Span) -> Diagnostic {
    Diagnostic::error(NOT_UTF8, span, "this file is not valid UTF-8")
        .with_label("invalid bytes start here")
        .with_help("save the file as UTF-8; the rest of it was checked with the bad bytes replaced")
}

/// `a/b/../c` to `a/c`; `None` when it climbs out of the root.
fn normalize(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for part in path.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    Some(parts.join("/"))
}

impl Sources for Session {
    fn path(&self, id: FileId) -> &str {
        if id.0 >= MAP_BASE {
            self.maps.get((id.0 - MAP_BASE) as usize).map_or("<unknown>", |(p, _)| p.as_str())
        } else {
            self.workspace.path(id)
        }
    }
    fn text(&self, id: FileId) -> &str {
        if id.0 >= MAP_BASE {
            self.maps.get((id.0 - MAP_BASE) as usize).map_or("", |(_, t)| t.as_str())
        } else {
            self.workspace.text(id)
        }
    }
}
