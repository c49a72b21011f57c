//! The watcher's core, for `oc watch` (and any front end that rechecks on save): file events
//! (notify) wake it; the tree is then compared with what it was at the last check (size,
//! modification time and identity of every file), so a change is seen even when an event was
//! lost or merged. [`Watch::wait`] answers with the paths that changed, and the [`Session`]
//! has already forgotten what they affect — every root or map whose check read or *tried to
//! read* a changed path, or a link to it — so its next run rechecks only that. Invariant
//! (`tests/watch_storm.rs` plays thousands of editor-like operations): after any sequence of
//! file operations and a quiet moment, the last report equals `oc check`.
//!
//! Nothing the user can put on disk stops it: unreadable files, bad UTF-8, special files and a
//! deleted folder are reported by the checks and the watch goes on; when the watched folder
//! comes back, the watch is re-armed. It prints nothing: what went wrong is returned.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::session::Session;

type Events = mpsc::Receiver<notify::Result<notify::Event>>;

/// A watched project: the file watcher, the last snapshot of the tree and the session that
/// checks it.
pub struct Watch {
    /// The folder or file watched, made absolute.
    pub target: PathBuf,
    /// The project root holding it (it moves when an `oc.toml` comes or goes).
    pub root: PathBuf,
    /// The session whose runs report the project.
    pub session: Session,
    tx: mpsc::Sender<notify::Result<notify::Event>>,
    rx: Events,
    armed: Armed,
    tree: BTreeMap<String, Stamp>,
    quiet: Duration,
    /// Why the file watcher watches less than the whole project (a folder it may not read): said
    /// once, by [`Watch::start_warnings`] or the next change. The look taken every half second
    /// finds what it misses.
    pending: Vec<String>,
}

/// What [`Watch::wait`] saw.
pub struct Change {
    /// Why the next report is made: `changed: FILE`, `changed: A, B, C` (up to three paths named),
    /// `changed: A, B, C and N more` or `changed: the project`.
    pub why: String,
    /// When the first event arrived (the report's latency counts from it).
    pub saved_at: Instant,
    /// What went wrong on the way, with the watch going on (`the file watcher reported: ...`).
    pub warnings: Vec<String>,
}

impl Watch {
    /// Starts watching `path` (a folder, or one `.oc` or map file checked as `oc check FILE`
    /// does). `quiet`: how long a file being written in place is waited for.
    pub fn start(path: &Path, quiet: Duration) -> Result<Watch, String> {
        let target = crate::manifest::absolute(path);
        let name = target.file_name().map(|n| n.to_string_lossy().to_lowercase()).unwrap_or_default();
        let one_file = target.is_file() && (name.ends_with(".oc") || crate::discover::is_map(&name));
        if !target.is_dir() && !one_file {
            let what = if target.exists() { "not a folder, an .oc file or a map" } else { "no such file or folder" };
            return Err(format!(
                "{}: {what} (oc watch watches a project folder, or one .oc or .map.toml file)",
                target.display()
            ));
        }
        let (tx, rx) = mpsc::channel();
        let root = crate::find_root(&target).dir;
        // The whole project is watched and compared, not only the folder named: a file the checks
        // depend on (an import `../lib.oc`, the oc.toml above) may lie outside it.
        let armed = arm(&root, &tx)?;
        let pending = armed.partial.iter().cloned().collect();
        let mut tree = BTreeMap::new();
        snapshot(&root, &root, &mut tree);
        let session = Session::new(PathBuf::new()).without_models();
        Ok(Watch { target, root, session, tx, rx, armed, tree, quiet, pending })
    }

    /// What went wrong as the watch started, with it going on (said once: the next change does
    /// not say it again).
    pub fn start_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.pending)
    }

    /// Waits for the next change that needs a report. `Err`: the file watcher stopped.
    pub fn wait(&mut self) -> Result<Change, String> {
        // Even with no event, look again now and then: events can be lost, and a deleted watched
        // folder sends none when it comes back. Every half second, or, where the tree is large
        // (tens of thousands of files), 150 µs a file (a look at 50,000 files took about a
        // third of a second here, and looking every half second spent a third of a core): an
        // idle watch spends about a twentieth. By the files, not by how long the last look took,
        // which a busy machine stretches (the wait grew past seconds on a small tree).
        let mut poll = Duration::from_millis(500);
        loop {
            let first = match self.rx.recv_timeout(poll) {
                Ok(e) => Some(e),
                Err(mpsc::RecvTimeoutError::Timeout) => None,
                Err(mpsc::RecvTimeoutError::Disconnected) => return Err("the file watcher stopped".to_string()),
            };
            let saved_at = Instant::now();
            let change = self.look(first, saved_at);
            let files = u32::try_from(self.tree.len()).unwrap_or(u32::MAX);
            poll = (Duration::from_micros(150) * files).clamp(Duration::from_millis(500), Duration::from_secs(30));
            if let Some(change) = change {
                return Ok(change);
            }
        }
    }

    /// The events that arrived with `first`, and the tree compared: a change, or `None`.
    fn look(&mut self, first: Option<notify::Result<notify::Event>>, saved_at: Instant) -> Option<Change> {
        let (target, rx) = (&self.target, &self.rx);
        let mut events: Vec<notify::Result<notify::Event>> = first.into_iter().collect();
        if !events.is_empty() {
            // No fixed wait: take what has arrived, then wait only for files still being written.
            // A save by rename is whole when the rename lands; a file written in place is read
            // once its size and time stop changing (`settle`), at most `quiet`. A write that
            // goes on after that is a new change, and the next report follows it.
            while let Ok(e) = rx.try_recv() {
                events.push(e);
            }
            let written: Vec<PathBuf> = events
                .iter()
                .flatten()
                .filter(|e| {
                    matches!(
                        e.kind,
                        notify::EventKind::Modify(notify::event::ModifyKind::Data(_) | notify::event::ModifyKind::Any)
                            | notify::EventKind::Create(_)
                    )
                })
                .flat_map(|e| e.paths.iter().cloned())
                .collect();
            settle(&written, self.quiet);
            while let Ok(e) = rx.try_recv() {
                events.push(e);
            }
        }
        let mut warnings = std::mem::take(&mut self.pending);
        let mut reset = false;
        // The watched folder itself deleted or moved: its watch is gone with it, even when a new
        // folder (with the same identity) is already there.
        let mut watch_lost = false;
        let mut changed: Vec<String> = Vec::new();
        for event in events {
            match event {
                // Reading files (our own checks included) raises access events: only changes count.
                Ok(e) if matches!(e.kind, notify::EventKind::Access(_)) => {}
                Ok(e) => {
                    if e.need_rescan() {
                        reset = true;
                    }
                    let names_folder = e.paths.iter().any(|p| p == target || p == &self.root);
                    if names_folder
                        && matches!(
                            e.kind,
                            notify::EventKind::Remove(_) | notify::EventKind::Modify(notify::event::ModifyKind::Name(_))
                        )
                    {
                        watch_lost = true;
                    }
                    changed.extend(e.paths.iter().filter_map(|p| crate::discover::logical(&self.root, p)));
                }
                Err(e) => {
                    warnings.push(format!("the file watcher reported: {e}; rechecking everything"));
                    reset = true;
                }
            }
        }
        // The watched folder deleted, or replaced by a new one: watch the new one.
        let now = folder_identity(&self.root);
        if watch_lost || now != self.armed.identity {
            match arm(&self.root, &self.tx) {
                Ok(a) => {
                    warnings.extend(a.partial.clone());
                    self.armed = a;
                }
                Err(e) => warnings.push(format!("{e}; trying again")),
            }
            reset = true;
        }
        let mut after = BTreeMap::new();
        snapshot(&self.root, &self.root, &mut after);
        changed.extend(differences(&self.tree, &after));
        let before = std::mem::replace(&mut self.tree, after);
        changed.sort();
        changed.dedup();
        through_links(&self.root, &self.tree, &mut changed);
        // Only what a check reads (a source, a map, a map's picture the last checks read, or a
        // folder or link that may hold them): a log written into the project, a note or an
        // editor's backup changes no report, and a report written into the project (`oc watch
        // 2> watch.log`) would otherwise start the next one, for ever.
        let holds = |p: &String| [&before, &self.tree].iter().any(|t| t.get(p).is_some_and(|s| s.kind != 0));
        changed.retain(|p| read_by_checks(p) || holds(p) || self.session.reads(p));
        changed.sort();
        changed.dedup();
        if changed.is_empty() && !reset {
            return None;
        }
        if changed.iter().any(|p| p == crate::manifest::FILE_NAME || p.ends_with("/oc.toml")) {
            reset = true;
        }
        // While the folder is gone its root is unknown: keep the old one until it is back.
        let new_root = if self.target.is_dir() { crate::find_root(&self.target).dir } else { self.root.clone() };
        if new_root != self.root {
            self.root = new_root;
            match arm(&self.root, &self.tx) {
                Ok(a) => {
                    warnings.extend(a.partial.clone());
                    self.armed = a;
                }
                Err(e) => warnings.push(format!("{e}; trying again")),
            }
            self.tree.clear();
            snapshot(&self.root, &self.root, &mut self.tree);
            reset = true;
        }
        if reset {
            self.session = Session::new(PathBuf::new()).without_models();
        } else {
            self.session.invalidate(&changed);
        }
        let what = match changed.as_slice() {
            [one] => one.clone(),
            _ if reset => "the project".to_string(),
            many => named(many),
        };
        Some(Change { why: format!("changed: {what}"), saved_at, warnings })
    }
}

/// Whether a check reads a file of this (logical) path: a source, a map definition or a
/// project's settings.
fn read_by_checks(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.ends_with(".oc") || crate::discover::is_map(name) || name == crate::manifest::FILE_NAME
}

/// Up to three changed paths by name, then how many more: a report says which save it follows.
fn named(paths: &[String]) -> String {
    const SHOWN: usize = 3;
    let shown = paths.iter().take(SHOWN).map(String::as_str).collect::<Vec<_>>().join(", ");
    match paths.len().saturating_sub(SHOWN) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// What a file looked like at the last check.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct Stamp {
    len: u64,
    modified: Option<std::time::SystemTime>,
    identity: (u64, u64),
    kind: u8,
}

#[cfg(unix)]
fn identity(m: &std::fs::Metadata) -> (u64, u64) {
    use std::os::unix::fs::MetadataExt;
    (m.dev(), m.ino())
}

#[cfg(not(unix))]
fn identity(_: &std::fs::Metadata) -> (u64, u64) {
    (0, 0)
}

/// Every file and folder under `dir` that a check could read (hidden folders and `target/`
/// skipped), by path relative to `root`.
/// Waits until each file's size and modification time read the same twice 2 ms apart (a file
/// being written in place), for at most `limit`.
fn settle(paths: &[PathBuf], limit: Duration) {
    let stamp = |p: &PathBuf| std::fs::metadata(p).ok().map(|m| (m.len(), m.modified().ok()));
    let start = Instant::now();
    let mut last: Vec<_> = paths.iter().map(stamp).collect();
    while start.elapsed() < limit {
        std::thread::sleep(Duration::from_millis(2));
        let now: Vec<_> = paths.iter().map(stamp).collect();
        if now == last {
            return;
        }
        last = now;
    }
}

fn snapshot(root: &Path, dir: &Path, out: &mut BTreeMap<String, Stamp>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name();
        let name = name.to_string_lossy();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        let rel = path.strip_prefix(root).unwrap_or(&path).to_string_lossy().replace('\\', "/");
        let kind = if meta.is_dir() {
            1
        } else if meta.file_type().is_symlink() {
            2
        } else {
            0
        };
        // A link's target can change without the link changing: stamp what it points at.
        let seen = if kind == 2 { std::fs::metadata(&path).unwrap_or(meta.clone()) } else { meta.clone() };
        out.insert(rel, Stamp { len: seen.len(), modified: seen.modified().ok(), identity: identity(&seen), kind });
        if meta.is_dir() {
            snapshot(root, &path, out);
        }
    }
}

/// The paths that differ between two snapshots. A folder whose only change is its time (an entry
/// added, removed or renamed, each seen under its own path) is not one: a folder stands for
/// everything under it, and an editor's temporary file would have every file beside it rechecked.
fn differences(before: &BTreeMap<String, Stamp>, after: &BTreeMap<String, Stamp>) -> Vec<String> {
    let same = |a: &Stamp, b: &Stamp| {
        if a.kind == 1 && b.kind == 1 {
            a.identity == b.identity
        } else {
            a == b
        }
    };
    let mut changed: Vec<String> =
        before.iter().filter(|(k, v)| !after.get(*k).is_some_and(|a| same(v, a))).map(|(k, _)| k.clone()).collect();
    changed.extend(after.keys().filter(|k| !before.contains_key(*k)).cloned());
    changed.sort();
    changed.dedup();
    changed
}

/// Adds to `changed` every link of the tree whose target is (or holds, or is inside) a changed
/// path: an edit made through the target's own name is an edit of the link's file too, and the
/// link's stamp (its target's size and time) does not always show it (same size, same tick).
fn through_links(root: &Path, tree: &BTreeMap<String, Stamp>, changed: &mut Vec<String>) {
    if changed.is_empty() {
        return;
    }
    let Ok(real_root) = std::fs::canonicalize(root) else { return };
    let related = |a: &str, b: &str| {
        a == b
            || a.strip_prefix(b).is_some_and(|rest| rest.starts_with('/'))
            || b.strip_prefix(a).is_some_and(|rest| rest.starts_with('/'))
    };
    let mut links = Vec::new();
    for (link, stamp) in tree {
        if stamp.kind != 2 || changed.contains(link) {
            continue;
        }
        let Ok(real) = std::fs::canonicalize(root.join(link)) else { continue };
        let Some(target) = crate::discover::logical(&real_root, &real) else { continue };
        if changed.iter().any(|c| related(c, &target)) {
            links.push(link.clone());
        }
    }
    changed.extend(links);
}

/// What tells the watched folder apart from one made later at the same path: file system, inode
/// and (where the system keeps it) creation time. An inode is reused at once when a folder is
/// deleted and another made.
type FolderIdentity = ((u64, u64), Option<std::time::SystemTime>);

/// The watched folder's identity, or `None` while it is gone.
fn folder_identity(dir: &Path) -> Option<FolderIdentity> {
    std::fs::metadata(dir).ok().filter(std::fs::Metadata::is_dir).map(|m| (identity(&m), m.created().ok()))
}

struct Armed {
    /// Kept alive: dropping it stops the events.
    _watcher: notify::RecommendedWatcher,
    identity: Option<FolderIdentity>,
    /// Why the file watcher could not watch the whole folder (a folder in it it may not read):
    /// the half-second look goes on finding changes there.
    partial: Option<String>,
}

fn arm(dir: &Path, tx: &mpsc::Sender<notify::Result<notify::Event>>) -> Result<Armed, String> {
    let tx = tx.clone();
    // Links are not followed, as the checks do not follow folder links: a link to `/` or to the
    // folder above would have the watcher watch the machine (and stop at its first unreadable
    // folder).
    let config = notify::Config::default().with_follow_symlinks(false);
    let handler = move |event: notify::Result<notify::Event>| {
        // Reading files (our own snapshots and checks included) raises access events: dropped
        // here, so a check never wakes the watcher that ran it.
        if matches!(&event, Ok(e) if matches!(e.kind, notify::EventKind::Access(_))) {
            return;
        }
        let _ = tx.send(event);
    };
    let mut watcher = notify::RecommendedWatcher::new(handler, config).map_err(|e| format!("cannot watch files: {e}"))?;
    let identity = folder_identity(dir);
    let partial = identity.is_some().then(|| watcher.watch(dir, RecursiveMode::Recursive)).and_then(Result::err).map(|e| {
        format!(
            "the file watcher cannot watch all of {} ({e}); changes there are found by looking every half second",
            dir.display()
        )
    });
    Ok(Armed { _watcher: watcher, identity, partial })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn stamp(len: u64, kind: u8, ino: u64) -> Stamp {
        Stamp { len, modified: None, identity: (1, ino), kind }
    }

    #[test]
    fn a_changed_added_or_removed_file_differs_and_a_folder_only_by_identity() {
        let before: BTreeMap<String, Stamp> =
            [("a.oc", stamp(1, 0, 1)), ("b.oc", stamp(1, 0, 2)), ("dir", stamp(0, 1, 3))].map(|(k, v)| (k.to_string(), v)).into();
        let after: BTreeMap<String, Stamp> =
            [("a.oc", stamp(2, 0, 1)), ("c.oc", stamp(1, 0, 4)), ("dir", stamp(9, 1, 3))].map(|(k, v)| (k.to_string(), v)).into();
        assert_eq!(differences(&before, &after), ["a.oc", "b.oc", "c.oc"]);
    }

    #[test]
    fn a_report_names_up_to_three_paths() {
        let paths = |n: usize| (0..n).map(|i| format!("p{i}.oc")).collect::<Vec<_>>();
        assert_eq!(named(&paths(2)), "p0.oc, p1.oc");
        assert_eq!(named(&paths(3)), "p0.oc, p1.oc, p2.oc");
        assert_eq!(named(&paths(5)), "p0.oc, p1.oc, p2.oc and 2 more");
    }

    #[test]
    fn a_watch_sees_a_save_and_forgets_what_it_affects() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a.oc");
        std::fs::write(&file, "").unwrap();
        assert!(Watch::start(&dir.path().join("missing"), Duration::from_millis(10)).is_err());
        let mut watch = Watch::start(dir.path(), Duration::from_millis(10)).unwrap();
        std::fs::write(&file, "# a comment\n").unwrap();
        let change = watch.wait().unwrap();
        assert_eq!(change.why, "changed: a.oc");
        assert!(change.warnings.is_empty());
    }

    /// A file no check reads (a log the watcher's report is written into, a note, a picture)
    /// changes nothing: no report, where its every report would start the next one.
    #[test]
    fn a_file_no_check_reads_starts_no_report() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.oc"), "").unwrap();
        let mut watch = Watch::start(dir.path(), Duration::from_millis(10)).unwrap();
        for name in ["watch.log", "notes.md", "a.oc~"] {
            std::fs::write(dir.path().join(name), "written\n").unwrap();
        }
        std::fs::write(dir.path().join("b.map.toml"), "").unwrap();
        let change = watch.wait().unwrap();
        assert_eq!(change.why, "changed: b.map.toml");
        assert!(read_by_checks("sub/oc.toml") && read_by_checks("x.oc") && !read_by_checks("x.oc.bak"));
    }
}
