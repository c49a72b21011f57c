//! A folder as one output (`oc doc -o DIR`), under the same policy as single files
//! ([`crate::output`]):
//!
//! - the folder is new, empty, or an earlier output of the same command as it was written: it
//!   holds the command's marker file with the marker text and the list of the files written
//!   (each with its size and a hash of its bytes), and nothing else; a file added to it since (a
//!   `CNAME`, notes) or edited since, and anything else, is replaced only with `--force`. A
//!   marker without a list (written by an oc before it) marks the folder ours, as then;
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

/// The line of the marker after which the files written are listed, one a line: the hash of
/// its bytes (FNV-1a, 64 bits, in hex), its size and its relative path.
const LISTED: &str = "files written (hash, size, path):\n";

/// The most files a refusal names; the rest are counted.
const NAMED: usize = 5;

/// FNV-1a over `bytes`, 64 bits: what the marker lists to tell an edited file from the one
/// written (not a defence against anyone, a check that nothing was changed by hand).
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// The marker's text for `files`: `text`, then every other file listed.
fn marker_text(text: &str, marker: &str, files: &BTreeMap<String, Vec<u8>>) -> Vec<u8> {
    let mut out = String::from(text);
    out.push_str(LISTED);
    for (path, bytes) in files.iter().filter(|(p, _)| p.as_str() != marker) {
        out.push_str(&format!("{:016x} {} {path}\n", fnv(bytes), bytes.len()));
    }
    out.into_bytes()
}

/// The files a marker lists, by relative path: (hash, size). `None` where it lists none (a
/// marker written before the list was).
fn listed(marker: &str) -> Option<BTreeMap<String, (u64, u64)>> {
    let (_, list) = marker.split_once(LISTED)?;
    let mut files = BTreeMap::new();
    for line in list.lines() {
        let mut parts = line.splitn(3, ' ');
        let (Some(hash), Some(size), Some(path)) = (parts.next(), parts.next(), parts.next()) else { continue };
        let (Ok(hash), Ok(size)) = (u64::from_str_radix(hash, 16), size.parse::<u64>()) else { continue };
        files.insert(path.to_string(), (hash, size));
    }
    Some(files)
}

/// The files under `dir` that are not as `written` lists them (added, or changed since), by
/// relative `/`-separated path, in order; links and anything not a file or folder count as
/// added. At most `MAX_ENTRIES` looked at.
fn not_written(dir: &Path, marker: &str, written: &BTreeMap<String, (u64, u64)>) -> Vec<String> {
    let mut found = Vec::new();
    let mut stack = vec![(dir.to_path_buf(), String::new())];
    let mut seen = 0usize;
    while let Some((d, prefix)) = stack.pop() {
        let Ok(read) = std::fs::read_dir(&d) else { continue };
        for e in read.flatten() {
            seen += 1;
            if seen > MAX_ENTRIES {
                return found;
            }
            let name = e.file_name().to_string_lossy().into_owned();
            let relative = if prefix.is_empty() { name } else { format!("{prefix}/{name}") };
            match e.file_type() {
                Ok(t) if t.is_dir() => {
                    // A folder no file written lies in was added (an empty one too: replacing
                    // the site would drop it).
                    let prefix = format!("{relative}/");
                    if !written.keys().any(|k| k.starts_with(&prefix)) {
                        found.push(format!("{relative}/"));
                        continue;
                    }
                    stack.push((e.path(), relative));
                }
                Ok(t) if t.is_file() => {
                    if relative == marker {
                        continue;
                    }
                    let same = written.get(&relative).is_some_and(|(hash, size)| {
                        e.metadata().is_ok_and(|m| m.len() == *size) && std::fs::read(e.path()).is_ok_and(|b| fnv(&b) == *hash)
                    });
                    if !same {
                        found.push(relative);
                    }
                }
                _ => found.push(relative),
            }
        }
    }
    found.sort();
    found
}

/// `paths` in words: the first few, and how many more.
fn named(paths: &[String]) -> String {
    oc_diag::first_and_more(paths, NAMED)
}

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
    // As a file's: a folder on the way that is a link out of the project is not written through.
    if let Some(why) = crate::output::leaves_project(dir) {
        return refuse(
            format!("{shown}: {why}"),
            "write into a folder of the project that is not a link, or name a path outside the project itself",
        );
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
            let text = std::fs::read(dir.join(marker.0)).ok().map(|b| String::from_utf8_lossy(&b).into_owned());
            let ours = text.as_deref().filter(|t| t.starts_with(marker.1));
            if entries > 0 && ours.is_none() && !force {
                return refuse(
                    format!("{shown} exists and is not a folder this command wrote (it has no {})", marker.0),
                    "pass --force to replace it with everything in it, or choose another output folder",
                );
            }
            // Ours, as written: nothing added to it or edited since.
            if let Some(written) = ours.and_then(listed).filter(|_| !force) {
                let changed = not_written(dir, marker.0, &written);
                if !changed.is_empty() {
                    let (what, it) = if changed.len() == 1 {
                        ("a file".to_string(), "it")
                    } else {
                        (format!("{} files", changed.len()), "them")
                    };
                    return refuse(
                        format!(
                            "{shown} holds {what} this command did not write, or changed since it wrote {it}: {}",
                            named(&changed)
                        ),
                        &format!(
                            "move {it} out of the folder first (oc replaces the folder whole), or pass --force to replace the folder with {it}"
                        ),
                    );
                }
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

/// Writes `files` (relative `/`-separated paths to bytes) as the folder `dir`, whole or nothing,
/// with the marker file `marker.0` holding `marker.1` and the list of the files written (so a
/// later [`prepare`] tells a file added or edited since). Call [`prepare`] first.
pub fn write(dir: &Path, files: &BTreeMap<String, Vec<u8>>, marker: (&str, &str)) -> std::io::Result<()> {
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
    std::fs::write(fresh.join(marker.0), marker_text(marker.1, marker.0, files))?;
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
        let ready = |force: bool| prepare(&out, MARK, &[], force).map_err(|r| r.message);
        ready(false).map_err(std::io::Error::other)?;
        write(&out, &site("one"), MARK)?;
        assert_eq!(std::fs::read_to_string(out.join("index.html"))?, "one");
        assert_eq!(std::fs::read_to_string(out.join("src/a/b.html"))?, "deep");
        // Ours as written: replaced whole.
        ready(false).map_err(std::io::Error::other)?;
        write(&out, &site("two"), MARK)?;
        assert_eq!(std::fs::read_to_string(out.join("index.html"))?, "two");
        // A file the user added, or one they edited, is not lost without --force; a file of the
        // site they removed loses nothing.
        std::fs::write(out.join("CNAME"), "docs.example.org")?;
        let refused = ready(false).err().unwrap_or_default();
        assert!(refused.contains("a file") && refused.contains("`CNAME`"), "{refused}");
        std::fs::remove_file(out.join("CNAME"))?;
        std::fs::write(out.join("src/a/b.html"), "deep, with my notes")?;
        let refused = ready(false).err().unwrap_or_default();
        assert!(refused.contains("`src/a/b.html`"), "{refused}");
        std::fs::write(out.join("src/a/b.html"), "deep")?;
        // A folder added, even empty, is not dropped either.
        std::fs::create_dir(out.join("drafts"))?;
        let refused = ready(false).err().unwrap_or_default();
        assert!(refused.contains("`drafts/`"), "{refused}");
        std::fs::remove_dir(out.join("drafts"))?;
        std::fs::remove_file(out.join("index.html"))?;
        ready(false).map_err(std::io::Error::other)?;
        // Many: the first few named, the rest counted.
        for k in 0..7 {
            std::fs::write(out.join(format!("note{k}.txt")), "mine")?;
        }
        let refused = ready(false).err().unwrap_or_default();
        assert!(refused.contains("7 files") && refused.contains("and 2 more"), "{refused}");
        // With --force: replaced with them (a file the new site lacks is gone).
        ready(true).map_err(std::io::Error::other)?;
        write(&out, &site("three"), MARK)?;
        assert!(!out.join("note0.txt").exists());
        assert_eq!(std::fs::read_to_string(out.join("index.html"))?, "three");
        // A marker written before the list was marks the folder ours, as then.
        std::fs::write(out.join(MARK.0), MARK.1)?;
        std::fs::write(out.join("stale.html"), "old")?;
        ready(false).map_err(std::io::Error::other)?;
        write(&out, &site("four"), MARK)?;
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
