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
    /// Folders the walk could not read (logical path, why, whether it was a path given): their
    /// files are not checked, and [`skipped`] says so.
    pub unreadable: Vec<(String, String, bool)>,
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
            walk(&abs, &ignores, project, true);
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
        project.unreadable.sort();
        project.unreadable.dedup();
    }
    Ok(projects)
}

/// What the walk of `project` left out and why, as diagnostics by name (their spans in no file:
/// the caller places them): names that are not UTF-8 and folders that could not be read (an
/// error where the folder was a path given, else a warning: a project may hold a folder of
/// another tool's it cannot read).
pub fn skipped(project: &Project) -> Vec<(String, Diagnostic)> {
    let at = oc_diag::Span::new(FileId(0), 0, 0);
    let names = project.bad_names.iter().map(|name| {
        let d = Diagnostic::error(crate::codes::NAME_NOT_UTF8, at, format!("the name of `{name}` is not UTF-8; it was skipped"))
            .with_help("rename it: paths in oc (imports, maps, logs) are UTF-8 text");
        (name.clone(), d)
    });
    let folders = project.unreadable.iter().map(|(name, why, named)| {
        let shown = if name.is_empty() { ".".to_string() } else { name.clone() };
        let message = format!("the folder `{shown}` cannot be read ({why}); its files were not checked");
        let d = if *named {
            Diagnostic::error(crate::codes::UNREADABLE, at, message)
        } else {
            Diagnostic::warning(crate::codes::UNREADABLE, at, message)
        };
        (shown, d.with_help("make it readable (and searchable) for the user running oc, or list it under `ignore` in oc.toml"))
    });
    names.chain(folders).collect()
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

/// `*` matches within one path part, `**` across parts. Worked out as a table of whether each
/// end of the pattern matches each end of the text, each entry from at most three others: time
/// and room in proportion to the pattern's length times the text's, whatever the stars (no
/// backtracking, nor a search over the text's ends for each star).
pub fn glob(pattern: &str, text: &str) -> bool {
    let (p, t) = (pattern.as_bytes(), text.as_bytes());
    let width = t.len() + 1;
    // `ends[i * width + j]`: whether the pattern from `i` matches the text from `j`.
    let mut ends = vec![false; (p.len() + 1) * width];
    let at = |ends: &Vec<bool>, i: usize, j: usize| ends.get(i * width + j).copied().unwrap_or(false);
    if let Some(last) = ends.get_mut(p.len() * width + t.len()) {
        *last = true;
    }
    for i in (0..p.len()).rev() {
        for j in (0..=t.len()).rev() {
            let here = match p.get(i) {
                Some(b'*') if p.get(i + 1) == Some(&b'*') => {
                    // `**`, and a `/` right after it, match any run of parts (none included):
                    // what follows matches here, or the run takes one more byte.
                    let next = if p.get(i + 2) == Some(&b'/') { i + 3 } else { i + 2 };
                    at(&ends, next, j) || (j < t.len() && at(&ends, i, j + 1))
                }
                // Within one part: what follows matches here, or the star takes one more byte
                // that is not a `/`.
                Some(b'*') => at(&ends, i + 1, j) || (t.get(j).is_some_and(|c| *c != b'/') && at(&ends, i, j + 1)),
                Some(c) => t.get(j) == Some(c) && at(&ends, i + 1, j + 1),
                None => j == t.len(),
            };
            if let Some(slot) = ends.get_mut(i * width + j) {
                *slot = here;
            }
        }
    }
    at(&ends, 0, 0)
}

/// Collects the sources under `dir` (`named`: a path given, not a folder found below one).
fn walk(dir: &Path, ignores: &[String], project: &mut Project, named: bool) {
    let root = project.root.clone();
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            project.unreadable.push((lossy(&root, dir), e.to_string(), named));
            return;
        }
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
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
            // A folder with an `oc.toml` of its own is walked as part of this project (one
            // folder given is one project), but what its own `ignore` leaves out stays out (it
            // was formatted and checked all the same): its patterns with a `/` read from it.
            if path.join(manifest::FILE_NAME).is_file() {
                let own = open(&path).settings.ignore;
                if !own.is_empty() {
                    let rel = lossy(&root, &path);
                    let mut both = ignores.to_vec();
                    both.extend(own.into_iter().map(|p| if p.contains('/') { format!("{rel}/{p}") } else { p }));
                    walk(&path, &both, project, false);
                    continue;
                }
            }
            walk(&path, ignores, project, false);
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
    /// The project at the root as discovered, once for this host (a run): every missing import
    /// or map asks it for what was meant (walked again for each, 200 files importing three
    /// missing ones beside 20,000 others took 49 s).
    listing: std::cell::OnceCell<Option<Project>>,
}

impl DiskHost {
    /// `known` and what `pick` takes of the project discovered at this host's root, sorted and
    /// without repeats (the files or the maps a missing one may have meant).
    fn listed(&self, mut known: Vec<String>, pick: impl Fn(&Project) -> &[String]) -> Vec<String> {
        let listing =
            self.listing.get_or_init(|| discover(&[self.root().to_path_buf()]).ok()?.into_iter().find(|p| p.root == self.root()));
        if let Some(p) = listing {
            known.extend(pick(p).iter().cloned());
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
            listing: std::cell::OnceCell::new(),
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
        self.listed(Vec::new(), |p| &p.maps)
    }

    /// Every `.oc` file of the project, not only those named (`oc check campaign/ide.oc` still
    /// finds `rules/duelist.oc`): asked only when a name or an import is missing.
    fn candidates(&self) -> Vec<String> {
        self.listed(self.files.clone(), |p| &p.files)
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

    /// The table gives what matching star by star (each star trying every length) gives, on
    /// patterns and paths of stars, double stars, slashes and letters.
    #[test]
    #[allow(clippy::indexing_slicing, clippy::unwrap_used)]
    fn glob_matches_as_trying_every_length_does() {
        fn tried(p: &[u8], t: &[u8]) -> bool {
            match p.first() {
                None => t.is_empty(),
                Some(b'*') if p.get(1) == Some(&b'*') => {
                    let rest = if p.get(2) == Some(&b'/') { &p[3..] } else { &p[2..] };
                    (0..=t.len()).any(|k| tried(rest, &t[k..]))
                }
                Some(b'*') => {
                    let part = t.iter().position(|c| *c == b'/').unwrap_or(t.len());
                    (0..=part).any(|k| tried(&p[1..], &t[k..]))
                }
                Some(c) => t.first() == Some(c) && tried(&p[1..], &t[1..]),
            }
        }
        let letters = [b'a', b'/', b'*', b'b'];
        let word = |n: usize, len: usize| -> Vec<u8> { (0..len).map(|k| letters[(n >> (2 * k)) % 4]).collect() };
        let mut compared = 0;
        for plen in 0..=5 {
            for pn in 0..4usize.pow(plen as u32) {
                let p = word(pn, plen);
                for tlen in 0..=5 {
                    for tn in 0..3usize.pow(tlen as u32) {
                        // Texts of letters and slashes only.
                        let t: Vec<u8> = (0..tlen).map(|k| [b'a', b'/', b'b'][(tn / 3usize.pow(k as u32)) % 3]).collect();
                        let (ps, ts) = (String::from_utf8(p.clone()).unwrap(), String::from_utf8(t.clone()).unwrap());
                        assert_eq!(glob(&ps, &ts), tried(&p, &t), "{ps:?} on {ts:?}");
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 100_000);
    }
}
