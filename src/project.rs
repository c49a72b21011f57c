//! Finding the `.oc` files of a project, honouring `.ocignore`, and reading them for the compiler.

use std::path::{Component, Path, PathBuf};

/// The project root and the files found under the paths the user named.
pub struct Project {
    pub root: PathBuf,
    /// Logical paths (relative to `root`, `/`-separated) of `.oc` files.
    pub files: Vec<String>,
    /// Logical paths of map definitions (`*.map.toml`).
    pub maps: Vec<String>,
    /// Files left out because an `.ocignore` matched them.
    pub ignored: usize,
}

/// Whether a file name is a map definition.
pub fn is_map(name: &str) -> bool {
    name.ends_with(".map.toml")
}

/// Collects `.oc` files and maps under `paths`. A named file is always taken; directories are walked,
/// skipping hidden directories, `target/`, and whatever `.ocignore` files list.
pub fn discover(paths: &[PathBuf]) -> Result<Project, String> {
    let cwd = std::env::current_dir().map_err(|e| format!("cannot read the current directory: {e}"))?;
    let mut absolute = Vec::new();
    for p in paths {
        let abs = if p.is_absolute() { p.clone() } else { cwd.join(p) };
        let abs = normalize(&abs);
        if !abs.exists() {
            return Err(format!("{}: no such file or directory", p.display()));
        }
        absolute.push(abs);
    }
    // The root is the deepest directory containing the working directory and every path.
    let mut root = normalize(&cwd);
    for p in &absolute {
        while !p.starts_with(&root) {
            if !root.pop() {
                break;
            }
        }
    }
    let mut project = Project { root: root.clone(), files: Vec::new(), maps: Vec::new(), ignored: 0 };
    for p in &absolute {
        if p.is_file() {
            push(&mut project, p);
        } else {
            let mut ignores = Vec::new();
            // `.ocignore` files from the root down to the walked directory apply too.
            let mut dir = root.clone();
            load_ignore(&dir, &mut ignores);
            if let Ok(rel) = p.strip_prefix(&root) {
                for c in rel.components() {
                    dir.push(c);
                    if dir != *p {
                        load_ignore(&dir, &mut ignores);
                    }
                }
            }
            walk(p, &mut ignores, &mut project);
        }
    }
    project.files.sort();
    project.files.dedup();
    project.maps.sort();
    project.maps.dedup();
    Ok(project)
}

fn push(project: &mut Project, path: &Path) {
    if let Some(logical) = logical(&project.root, path) {
        if is_map(&logical) {
            project.maps.push(logical);
        } else {
            project.files.push(logical);
        }
    }
}

pub fn logical(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    Some(parts.join("/"))
}

fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// One `.ocignore` pattern, anchored at the directory holding the file.
struct Ignore {
    dir: PathBuf,
    pattern: String,
}

fn load_ignore(dir: &Path, ignores: &mut Vec<Ignore>) {
    let Ok(text) = std::fs::read_to_string(dir.join(".ocignore")) else { return };
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        ignores.push(Ignore { dir: dir.to_path_buf(), pattern: line.trim_end_matches('/').to_string() });
    }
}

fn ignored(ignores: &[Ignore], path: &Path) -> bool {
    ignores.iter().any(|ig| {
        let Ok(rel) = path.strip_prefix(&ig.dir) else { return false };
        let rel: Vec<String> = rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
        let rel = rel.join("/");
        if ig.pattern.contains('/') {
            glob(&ig.pattern, &rel)
        } else {
            // A bare name matches any path component (a directory or the file name).
            rel.split('/').any(|part| glob(&ig.pattern, part))
        }
    })
}

/// `*` matches within one path component, `**` across components.
pub fn glob(pattern: &str, text: &str) -> bool {
    fn go(p: &[u8], t: &[u8]) -> bool {
        match p.split_first() {
            None => t.is_empty(),
            Some((b'*', rest)) if rest.first() == Some(&b'*') => {
                let rest = rest.get(1..).unwrap_or(&[]);
                let rest = rest.strip_prefix(b"/").unwrap_or(rest);
                (0..=t.len()).any(|i| go(rest, t.get(i..).unwrap_or(&[])))
            }
            Some((b'*', rest)) => {
                for i in 0..=t.len() {
                    if go(rest, t.get(i..).unwrap_or(&[])) {
                        return true;
                    }
                    if t.get(i) == Some(&b'/') {
                        break;
                    }
                }
                false
            }
            Some((c, rest)) => t.first() == Some(c) && go(rest, t.get(1..).unwrap_or(&[])),
        }
    }
    go(pattern.as_bytes(), text.as_bytes())
}

fn walk(dir: &Path, ignores: &mut Vec<Ignore>, project: &mut Project) {
    let before = ignores.len();
    load_ignore(dir, ignores);
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        // Directory links are not followed: a link back up (`sub -> .`) would never end.
        if path.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink()) && path.is_dir() {
            continue;
        }
        if path.is_dir() {
            if ignored(ignores, &path) {
                project.ignored += count_oc(&path);
                continue;
            }
            walk(&path, ignores, project);
        } else if name.ends_with(".oc") || is_map(&name) {
            if ignored(ignores, &path) {
                project.ignored += 1;
            } else {
                push(project, &path);
            }
        }
    }
    ignores.truncate(before);
}

fn count_oc(dir: &Path) -> usize {
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .map(|p| {
            let link = p.symlink_metadata().is_ok_and(|m| m.file_type().is_symlink());
            if p.is_dir() && link {
                0
            } else if p.is_dir() {
                count_oc(&p)
            } else {
                let name = p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                usize::from(name.ends_with(".oc") || is_map(&name))
            }
        })
        .sum()
}

/// Reads files for the compiler, relative to the project root. Text that is not UTF-8 is read
/// with replacement characters and remembered, so it can be reported with a span and the rest
/// of the file still checked.
pub struct DiskHost {
    pub root: PathBuf,
    /// (logical path, byte offset of the first invalid sequence in the decoded text)
    pub not_utf8: Vec<(String, usize)>,
}

impl DiskHost {
    pub fn new(root: PathBuf) -> DiskHost {
        DiskHost { root, not_utf8: Vec::new() }
    }
}

impl oc_compiler::Host for DiskHost {
    fn read(&mut self, path: &str) -> Result<String, String> {
        let full = self.root.join(path);
        if full.is_dir() {
            return Err("is a directory".to_string());
        }
        let bytes = std::fs::read(&full).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => "no such file".to_string(),
            _ => e.to_string(),
        })?;
        match String::from_utf8(bytes) {
            Ok(text) => Ok(text),
            Err(e) => {
                let offset = e.utf8_error().valid_up_to();
                self.not_utf8.push((path.to_string(), offset));
                Ok(String::from_utf8_lossy(e.as_bytes()).into_owned())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::glob;

    #[test]
    fn globs() {
        assert!(glob("*.oc", "a.oc"));
        assert!(!glob("*.oc", "dir/a.oc"));
        assert!(glob("**/*.oc", "dir/a.oc"));
        assert!(glob("tests/fixtures", "tests/fixtures"));
        assert!(glob("mistakes", "mistakes"));
        assert!(!glob("mistake", "mistakes"));
    }
}
