//! Finding the `.oc` files and maps of a project, honouring `oc.toml`'s `ignore`, and reading
//! them for the compiler (confined, bounded, regular files only).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use oc_diag::{Diagnostic, FileId};

use crate::fsx::{Confined, ReadError};
use crate::limits::MAX_SOURCE_BYTES;
use crate::manifest::{self, find_root, Manifest};

/// The file id `oc.toml` is reported under (the compiler's ids are far below, maps' at `1 << 24`).
pub const MANIFEST_FILE: FileId = FileId(1 << 25);

/// One project: its root, its settings and the files found under the paths the user named.
#[derive(Clone, Debug, Default)]
pub struct Project {
    /// Absolute.
    pub root: PathBuf,
    /// `oc.toml`, when the project has one: its text and what was wrong with it.
    pub manifest: Option<(PathBuf, String)>,
    pub manifest_diagnostics: Vec<Diagnostic>,
    pub settings: Manifest,
    /// Logical paths (relative to `root`, `/`-separated) of `.oc` files.
    pub files: Vec<String>,
    /// Logical paths of map definitions (`*.map.toml`).
    pub maps: Vec<String>,
    /// Files left out because `ignore` matched them.
    pub ignored: usize,
    /// Files and folders whose names are not UTF-8 (shown with replacement characters).
    pub bad_names: Vec<String>,
}

/// Whether a file name is a map definition.
pub fn is_map(name: &str) -> bool {
    name.ends_with(".map.toml")
}

/// Whether a file name is a source of a project: never an output.
pub fn is_source_name(name: &str) -> bool {
    let lower = name.to_lowercase();
    lower.ends_with(".oc") || lower.ends_with(".map.toml") || lower == manifest::FILE_NAME || lower == ".ocignore"
}

/// The project holding `path` with its settings read (no files collected yet).
pub fn open(path: &Path) -> Project {
    let root = find_root(path);
    let mut project = Project { root: root.dir.clone(), ..Project::default() };
    if let Some(file) = root.manifest {
        // Confined like every other read: an oc.toml that links outside the project is refused.
        match Confined::new(&root.dir).read(Path::new(manifest::FILE_NAME), MAX_SOURCE_BYTES) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes).into_owned();
                let (settings, diags) = manifest::parse(MANIFEST_FILE, &text);
                project.manifest_diagnostics = diags;
                project.manifest_diagnostics.extend(ruleset_missing(&root.dir, &settings));
                project.settings = settings;
                project.manifest = Some((file, text));
            }
            Err(e) => {
                let text = String::new();
                project.manifest_diagnostics.push(
                    Diagnostic::error(
                        crate::codes::UNREADABLE,
                        oc_diag::Span::new(MANIFEST_FILE, 0, 0),
                        format!("cannot read oc.toml: {e}"),
                    )
                    .with_help("oc.toml is a regular TOML file at the project root"),
                );
                project.manifest = Some((file, text));
            }
        }
    }
    project
}

/// Collects `.oc` files and maps under `paths`, one project per root (`oc.toml`, found by walking
/// up from each path; without one, the path's own folder). A named file is always taken;
/// folders are walked, skipping hidden folders, `target/` and what `ignore` lists.
pub fn discover(paths: &[PathBuf]) -> Result<Vec<Project>, String> {
    let mut projects: Vec<Project> = Vec::new();
    for p in paths {
        let abs = manifest::absolute(p);
        if std::fs::symlink_metadata(&abs).is_err() {
            return Err(format!("{}: no such file or directory", p.display()));
        }
        let root = find_root(&abs).dir;
        let index = match projects.iter().position(|q| q.root == root) {
            Some(i) => i,
            None => {
                projects.push(open(&abs));
                projects.len() - 1
            }
        };
        let Some(project) = projects.get_mut(index) else { continue };
        if abs.is_dir() {
            let ignores: Vec<String> = project.settings.ignore.clone();
            walk(&abs, &ignores, project);
        } else {
            push(project, &abs);
        }
    }
    for project in &mut projects {
        project.files.sort();
        project.files.dedup();
        project.maps.sort();
        project.maps.dedup();
        project.bad_names.sort();
        project.bad_names.dedup();
    }
    Ok(projects)
}

/// The warning of a `ruleset` in oc.toml that names neither a built-in ruleset nor a file or
/// folder inside the project (where the commands that read it would find none).
fn ruleset_missing(root: &Path, settings: &Manifest) -> Option<Diagnostic> {
    let (name, (start, end)) = (settings.ruleset.as_deref()?, settings.ruleset_at?);
    if oc_compiler::stdlib::builtin(name).is_some() {
        return None;
    }
    let found = oc_compiler::resolve_logical(name).ok().and_then(|l| Confined::new(root).resolve(Path::new(&l)).ok());
    if found.is_some() {
        return None;
    }
    let builtins: Vec<&str> = oc_compiler::stdlib::RULESETS.iter().map(|(n, _)| *n).collect();
    // A warning: the project's files are sound; only the commands that read `ruleset` would
    // refuse to run without `--ruleset`.
    Some(
        Diagnostic::warning(
            crate::codes::MANIFEST_RULESET,
            oc_diag::Span::new(MANIFEST_FILE, start, end),
            format!("no ruleset `{name}`: not a built-in one, nor a file or folder inside the project"),
        )
        .with_help(match oc_diag::did_you_mean(name, builtins.iter().copied()) {
            Some(near) => format!("did you mean `{near}`? the built-in rulesets are {}", builtins.join(", ")),
            None => {
                format!("name a built-in ruleset ({}) or the path of your rules from the project's root", builtins.join(", "))
            }
        }),
    )
}

fn push(project: &mut Project, path: &Path) {
    match logical(&project.root, path) {
        Some(logical) if is_map(&logical) => project.maps.push(logical),
        Some(logical) => project.files.push(logical),
        None => project.bad_names.push(lossy(&project.root, path)),
    }
}

/// The logical path of `path` under `root`; `None` outside it or when a part is not UTF-8.
pub fn logical(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

fn lossy(root: &Path, path: &Path) -> String {
    let rel = path.strip_prefix(root).unwrap_or(path);
    rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect::<Vec<_>>().join("/")
}

fn ignored(root: &Path, ignores: &[String], path: &Path) -> bool {
    let rel = lossy(root, path);
    ignores.iter().any(|pattern| {
        if pattern.contains('/') {
            glob(pattern, &rel)
        } else {
            // A bare name matches any path part (a folder or the file name).
            rel.split('/').any(|part| glob(pattern, part))
        }
    })
}

/// `*` matches within one path part, `**` across parts. Memoised: at most one visit per
/// (pattern position, text position), so no pattern makes it backtrack exponentially.
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let width = t.len() + 1;
    let mut memo: Vec<Option<bool>> = vec![None; (p.len() + 1) * width];
    fn go(p: &[u8], t: &[u8], i: usize, j: usize, width: usize, memo: &mut Vec<Option<bool>>) -> bool {
        if let Some(Some(known)) = memo.get(i * width + j) {
            return *known;
        }
        let rest_t = t.get(j..).unwrap_or(&[]);
        let result = match p.get(i) {
            None => rest_t.is_empty(),
            Some(b'*') if p.get(i + 1) == Some(&b'*') => {
                // `**`, and a `/` right after it, match any run of parts (none included).
                let next = if p.get(i + 2) == Some(&b'/') { i + 3 } else { i + 2 };
                (j..=t.len()).any(|k| go(p, t, next, k, width, memo))
            }
            Some(b'*') => {
                let mut found = false;
                for k in j..=t.len() {
                    if go(p, t, i + 1, k, width, memo) {
                        found = true;
                        break;
                    }
                    if t.get(k) == Some(&b'/') {
                        break;
                    }
                }
                found
            }
            Some(c) => t.get(j) == Some(c) && go(p, t, i + 1, j + 1, width, memo),
        };
        if let Some(slot) = memo.get_mut(i * width + j) {
            *slot = Some(result);
        }
        result
    }
    go(p, t, 0, 0, width, &mut memo)
}

fn walk(dir: &Path, ignores: &[String], project: &mut Project) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    let root = project.root.clone();
    for path in entries {
        let Some(os_name) = path.file_name() else { continue };
        let name = os_name.to_string_lossy();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        // Folder links are not followed: a link back up (`sub -> .`) would never end.
        let is_dir = meta.is_dir();
        let candidate = name.ends_with(".oc") || is_map(&name);
        if os_name.to_str().is_none() {
            if is_dir || candidate {
                project.bad_names.push(lossy(&root, &path));
            }
            continue;
        }
        if is_dir {
            if ignored(&root, ignores, &path) {
                project.ignored += count_oc(&path);
                continue;
            }
            walk(&path, ignores, project);
        } else if candidate {
            if ignored(&root, ignores, &path) {
                project.ignored += 1;
            } else {
                push(project, &path);
            }
        }
    }
}

fn count_oc(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .map(|p| {
            let meta = std::fs::symlink_metadata(&p);
            if meta.as_ref().is_ok_and(|m| m.is_dir()) {
                count_oc(&p)
            } else {
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                usize::from(name.ends_with(".oc") || is_map(&name))
            }
        })
        .sum()
}

/// Reads files for the compiler by logical path: confined to the root after resolving links,
/// regular files only, at most [`MAX_SOURCE_BYTES`]. Text that is not UTF-8 is read with
/// replacement characters and remembered, so it can be reported with a span and the rest of the
/// file still checked. Every path asked for is remembered, found or not (what a watcher must
/// watch).
pub struct DiskHost {
    pub confined: Confined,
    /// (logical path, byte offset of the first invalid sequence in the decoded text)
    pub not_utf8: Vec<(String, usize)>,
    /// Every logical path read or tried.
    pub touched: BTreeSet<String>,
    /// The project's `.oc` files, offered as suggestions for a missing import.
    pub files: Vec<String>,
    /// Unsaved text by logical path (an editor's open buffers): read instead of the disk.
    pub overlay: std::collections::HashMap<String, String>,
}

impl DiskHost {
    /// `known` and what `pick` takes of the project discovered at this host's root, sorted and
    /// without repeats (the files or the maps a missing one may have meant).
    fn listed(&self, mut known: Vec<String>, pick: impl Fn(Project) -> Vec<String>) -> Vec<String> {
        if let Ok(projects) = discover(&[self.root().to_path_buf()]) {
            for p in projects.into_iter().filter(|p| p.root == self.root()) {
                known.extend(pick(p));
            }
        }
        known.sort();
        known.dedup();
        known
    }

    pub fn new(root: PathBuf) -> DiskHost {
        DiskHost {
            confined: Confined::new(&root),
            not_utf8: Vec::new(),
            touched: BTreeSet::new(),
            files: Vec::new(),
            overlay: std::collections::HashMap::new(),
        }
    }

    /// A host that knows the project's files (for import suggestions).
    pub fn for_project(project: &Project) -> DiskHost {
        DiskHost { files: project.files.clone(), ..DiskHost::new(project.root.clone()) }
    }

    pub fn root(&self) -> &Path {
        &self.confined.root
    }

    /// Reads any file of the project (a map, an image) by logical path, remembering it. An
    /// overlay's text wins over the disk (within the same cap).
    pub fn read_bytes(&mut self, path: &str, cap: u64) -> Result<Vec<u8>, ReadError> {
        self.touched.insert(path.to_string());
        if let Some(text) = self.overlay.get(path) {
            if text.len() as u64 > cap {
                return Err(ReadError::TooLarge { size: text.len() as u64, cap });
            }
            return Ok(text.as_bytes().to_vec());
        }
        self.confined.read(Path::new(path), cap)
    }

    /// Decodes UTF-8, remembering where it is broken.
    pub fn decode(&mut self, path: &str, bytes: Vec<u8>) -> String {
        match String::from_utf8(bytes) {
            Ok(text) => text,
            Err(e) => {
                let offset = e.utf8_error().valid_up_to();
                self.not_utf8.push((path.to_string(), offset));
                String::from_utf8_lossy(e.as_bytes()).into_owned()
            }
        }
    }
}

impl oc_compiler::Host for DiskHost {
    fn read(&mut self, path: &str) -> Result<String, ReadError> {
        let bytes = self.read_bytes(path, MAX_SOURCE_BYTES)?;
        Ok(self.decode(path, bytes))
    }

    /// Every map of the project: asked only when a scenario's map is missing.
    fn map_candidates(&self) -> Vec<String> {
        self.listed(Vec::new(), |p| p.maps)
    }

    /// Every `.oc` file of the project, not only those named (`oc check campaign/ide.oc` still
    /// finds `rules/duelist.oc`): asked only when a name or an import is missing.
    fn candidates(&self) -> Vec<String> {
        self.listed(self.files.clone(), |p| p.files)
    }

    fn root_note(&self, climbs: usize) -> Option<(String, String)> {
        Some(root_note(self.root(), climbs))
    }
}

/// The project root's name as the user knows it (`campaign/`), and what to do about a path that
/// climbs `climbs` folders above it: where an `oc.toml` would make a project holding both. Only
/// folder names are shown, never an absolute path.
pub fn root_note(root: &Path, climbs: usize) -> (String, String) {
    let name = |p: &Path| p.file_name().map_or_else(|| "/".to_string(), |n| format!("{}/", n.to_string_lossy()));
    let root_name = name(root);
    let up = "../".repeat(climbs.max(1));
    let holder = root.ancestors().nth(climbs.max(1)).map(name).unwrap_or_else(|| "/".to_string());
    let help = if root.join(crate::manifest::FILE_NAME).is_file() {
        format!(
            "the project is `{root_name}`, the folder of its oc.toml, and nothing outside it is read: copy the file into it, or move oc.toml up to `{holder}` (`{up}oc.toml`), the folder that holds both"
        )
    } else {
        format!(
            "no oc.toml was found, so the project is `{root_name}`, the folder of the file you named, and nothing outside it is read: write an oc.toml holding `[project]` in `{holder}` (`{up}oc.toml`), the folder that holds both"
        )
    };
    (root_name, help)
}

#[cfg(test)]
mod tests {
    use super::glob;

    /// A `ruleset` in oc.toml that names neither a built-in ruleset nor a file or folder inside
    /// the project is warned about where it is written; one that names either is not.
    #[test]
    fn a_ruleset_oc_toml_names_is_checked_where_it_is_written() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let root = dir.path().canonicalize()?;
        std::fs::create_dir_all(root.join("rules"))?;
        std::fs::write(root.join("rules/mine.oc"), "")?;
        for (ruleset, missing) in [
            ("officers_chess", false),
            ("v06", false),
            ("rules/mine.oc", false),
            ("rules", false),
            ("nonexist", true),
            ("../outside.oc", true),
        ] {
            let text = format!("[project]\nname = \"p\"\nruleset = \"{ruleset}\"\n");
            std::fs::write(root.join("oc.toml"), &text)?;
            let found: Vec<_> = super::open(&root)
                .manifest_diagnostics
                .into_iter()
                .filter(|d| d.code == crate::codes::MANIFEST_RULESET)
                .map(|d| (d.span.start as usize, d.span.end as usize))
                .collect();
            let at = text.find(&format!("\"{ruleset}\"")).unwrap_or(0);
            let expected = if missing { vec![(at, at + ruleset.len() + 2)] } else { Vec::new() };
            assert_eq!(found, expected, "{ruleset}");
        }
        // A misspelt built-in name: which was meant.
        std::fs::write(root.join("oc.toml"), "[project]\nname = \"p\"\nruleset = \"officers_chess_v6\"\n")?;
        let help: Vec<String> = super::open(&root).manifest_diagnostics.into_iter().map(|d| d.help).collect();
        assert!(help.iter().any(|h| h.starts_with("did you mean `officers_chess_v06`?")), "{help:?}");
        Ok(())
    }

    #[test]
    fn globs() {
        assert!(glob("*.oc", "a.oc"));
        assert!(!glob("*.oc", "dir/a.oc"));
        assert!(glob("**/*.oc", "dir/a.oc"));
        assert!(glob("tests/fixtures", "tests/fixtures"));
        assert!(glob("mistakes", "mistakes"));
        assert!(!glob("mistake", "mistakes"));
        assert!(glob("**/x.oc", "x.oc"));
        assert!(glob("a/**", "a/b/c"));
    }

    #[test]
    fn a_glob_with_many_stars_does_not_backtrack_forever() {
        let started = std::time::Instant::now();
        let pattern = "*a".repeat(30) + "b";
        assert!(!glob(&pattern, &"a".repeat(400)));
        let pattern = "**a".repeat(30) + "b";
        assert!(!glob(&pattern, &"a/".repeat(200)));
        assert!(started.elapsed() < std::time::Duration::from_secs(2), "{:?}", started.elapsed());
    }
}
