//! A folder as one output (`oc doc -o DIR`), under the same policy as single files
//! ([`crate::output`]):
//!
//! - the folder is new, empty, or an earlier output of the same command (it holds the command's
//!   marker file with the marker text); anything else is replaced only with `--force`;
//! - never a folder that holds a source of a project (`.oc`, `*.map.toml`, `oc.toml`, at any
//!   depth) or an input of the command, not even with `--force`; never a link or a file;
//! - the write is whole or nothing: every file goes into a fresh folder with an unpredictable
//!   name beside the target, then that folder is renamed into place (the old one is first
//!   renamed aside, and removed once the new one stands).

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use crate::discover::is_source_name;
use crate::output::Refused;

/// The most entries a folder to be replaced may hold (a larger one is not a generated site).
const MAX_ENTRIES: usize = 100_000;

/// Whether `dir` may receive the output. `marker` is the file name and first text of the
/// command's marker; `inputs` the files the command read.
pub fn prepare(dir: &Path, marker: (&str, &str), inputs: &[PathBuf], force: bool) -> Result<(), Refused> {
    let refuse = |message: String, help: &str| Err(Refused { message, help: help.to_string() });
    let shown = dir.display();
    if dir.as_os_str().is_empty() || dir.file_name().is_none() {
        return refuse(format!("`{shown}` names no folder of its own"), "give a new folder, such as `-o site`");
    }
    let absolute = crate::manifest::absolute(dir);
    for input in inputs {
        if crate::manifest::absolute(input).starts_with(&absolute) {
            return refuse(
                format!("{shown} holds an input of this command ({}); it is never replaced", input.display()),
                "choose a folder outside the project's sources, such as `-o target/doc`",
            );
        }
    }
    match std::fs::symlink_metadata(dir) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            if let Some(parent) = dir.parent().filter(|p| !p.as_os_str().is_empty()) {
                if !parent.is_dir() {
                    return refuse(format!("{}: no such folder", parent.display()), "create the folder first");
                }
            }
            Ok(())
        }
        Err(e) => refuse(format!("cannot inspect {shown}: {e}"), "choose another output folder"),
        Ok(meta) if meta.file_type().is_symlink() => refuse(
            format!("{shown} is a symbolic link: oc writes a new folder or replaces its own, never through a link"),
            "remove the link or choose another output folder",
        ),
        Ok(meta) if !meta.is_dir() => {
            refuse(format!("{shown} is {}, not a folder", crate::fsx::kind_word(meta.file_type())), "choose a folder path")
        }
        Ok(_) => {
            let mut entries = 0usize;
            if let Some(source) = find_source(dir, &mut entries) {
                return refuse(
                    format!(
                        "{shown} holds a source file ({}): oc never replaces sources, not even with --force",
                        source.display()
                    ),
                    "choose another output folder",
                );
            }
            if entries > MAX_ENTRIES {
                return refuse(format!("{shown} holds more than {MAX_ENTRIES} entries"), "choose another output folder");
            }
            let ours = std::fs::read(dir.join(marker.0)).is_ok_and(|b| b.starts_with(marker.1.as_bytes()));
            if entries > 0 && !ours && !force {
                return refuse(
                    format!("{shown} exists and is not a folder this command wrote (it has no {})", marker.0),
                    "pass --force to replace it with everything in it, or choose another output folder",
                );
            }
            Ok(())
        }
    }
}

/// The first project source under `dir` (links are not followed), counting entries on the way.
fn find_source(dir: &Path, entries: &mut usize) -> Option<PathBuf> {
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&d) else { continue };
        for e in read.flatten() {
            *entries += 1;
            if *entries > MAX_ENTRIES {
                return None;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            if is_source_name(&name) {
                return Some(e.path());
            }
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(e.path());
            }
        }
    }
    None
}

/// Writes `files` (relative `/`-separated paths to bytes) as the folder `dir`, whole or nothing.
/// Call [`prepare`] first.
pub fn write(dir: &Path, files: &BTreeMap<String, Vec<u8>>) -> std::io::Result<()> {
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let staging = tempfile::Builder::new().prefix(".oc-doc-").tempdir_in(parent)?;
    let fresh = staging.path().join("new");
    std::fs::create_dir(&fresh)?;
    for (relative, bytes) in files {
        let path = Path::new(relative);
        if !path.components().all(|c| matches!(c, Component::Normal(_))) {
            return Err(std::io::Error::other(format!("`{relative}` is not a plain relative path; nothing was written")));
        }
        let target = fresh.join(path);
        if let Some(p) = target.parent() {
            std::fs::create_dir_all(p)?;
        }
        std::fs::write(&target, bytes)?;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // A folder anyone could read, like `mkdir` makes (the staging folder is private).
        std::fs::set_permissions(&fresh, std::fs::Permissions::from_mode(0o755))?;
    }
    let old = staging.path().join("old");
    let replaced = match std::fs::symlink_metadata(dir) {
        Ok(m) if m.is_dir() => {
            std::fs::rename(dir, &old)?;
            true
        }
        Ok(_) => return Err(std::io::Error::other("it is no longer a folder; nothing was written")),
        Err(_) => false,
    };
    if let Err(e) = std::fs::rename(&fresh, dir) {
        if replaced {
            // Put the old folder back rather than leave nothing.
            let _ = std::fs::rename(&old, dir);
        }
        return Err(e);
    }
    // The staging folder (with the old site in it) is removed when it goes out of scope.
    drop(staging);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MARK: (&str, &str) = (".mark", "made by test\n");

    fn site(text: &str) -> BTreeMap<String, Vec<u8>> {
        BTreeMap::from([
            (".mark".to_string(), MARK.1.as_bytes().to_vec()),
            ("index.html".to_string(), text.as_bytes().to_vec()),
            ("src/a/b.html".to_string(), b"deep".to_vec()),
        ])
    }

    #[test]
    fn a_folder_is_written_replaced_when_ours_and_refused_otherwise() -> std::io::Result<()> {
        let root = tempfile::tempdir()?;
        let out = root.path().join("site");
        prepare(&out, MARK, &[], false).map_err(|r| std::io::Error::other(r.message))?;
        write(&out, &site("one"))?;
        assert_eq!(std::fs::read_to_string(out.join("index.html"))?, "one");
        assert_eq!(std::fs::read_to_string(out.join("src/a/b.html"))?, "deep");
        // Ours: replaced whole (a file the new site lacks is gone).
        std::fs::write(out.join("stale.html"), "old")?;
        prepare(&out, MARK, &[], false).map_err(|r| std::io::Error::other(r.message))?;
        write(&out, &site("two"))?;
        assert_eq!(std::fs::read_to_string(out.join("index.html"))?, "two");
        assert!(!out.join("stale.html").exists());
        // Nothing left beside it.
        let beside: Vec<_> = std::fs::read_dir(root.path())?.flatten().map(|e| e.file_name()).collect();
        assert_eq!(beside.len(), 1, "{beside:?}");
        // Not ours: only with --force; sources never.
        let other = root.path().join("notes");
        std::fs::create_dir(&other)?;
        std::fs::write(other.join("todo.txt"), "mine")?;
        assert!(prepare(&other, MARK, &[], false).is_err());
        assert!(prepare(&other, MARK, &[], true).is_ok());
        std::fs::create_dir(other.join("deep"))?;
        std::fs::write(other.join("deep/rules.oc"), "class X {}")?;
        let refused = prepare(&other, MARK, &[], true).err().map(|r| r.message).unwrap_or_default();
        assert!(refused.contains("source"), "{refused}");
        // A folder holding an input is refused; so is a file.
        let input = root.path().join("in");
        std::fs::create_dir(&input)?;
        assert!(prepare(&input, MARK, &[input.join("x.txt")], true).is_err());
        std::fs::write(root.path().join("file"), "x")?;
        assert!(prepare(&root.path().join("file"), MARK, &[], true).is_err());
        Ok(())
    }
}
