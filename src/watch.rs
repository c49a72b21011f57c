//! `oc watch`: recheck on every save. File events (notify) are gathered until the tree has been
//! quiet for a moment (editors' atomic saves are a burst of create / rename / delete), then the
//! session forgets what the changed paths affect and rechecks only that. Nothing the user can put
//! on disk stops it: unreadable files, bad UTF-8 and vanished directories are reported and the
//! watch goes on. Ctrl-C ends it with status 0 (nothing is written, so nothing is left half done).

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::commands::{style, summary};
use crate::report;
use crate::session::Session;

/// Whether a changed path can matter: sources, maps, map images, ignore files, or a directory
/// (a renamed or deleted directory arrives as its own path).
fn relevant(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if path.components().any(|c| {
        let c = c.as_os_str().to_string_lossy();
        c == "target" || (c.starts_with('.') && c != "." && c != ".." && c != ".ocignore")
    }) {
        return false;
    }
    name.ends_with(".oc")
        || crate::project::is_map(&name)
        || name.ends_with(".png")
        || name == ".ocignore"
        || path.is_dir()
        || !name.contains('.')
}

pub fn watch(path: Option<&Path>, clear: bool, quiet_ms: u64) -> u8 {
    let target = path.map_or_else(|| PathBuf::from("."), Path::to_path_buf);
    let Ok(absolute) = std::fs::canonicalize(&target) else {
        eprintln!("error: {}: no such file or directory", target.display());
        return 2;
    };
    let (tx, rx) = mpsc::channel();
    let mut watcher = match notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        let _ = tx.send(event);
    }) {
        Ok(w) => w,
        Err(e) => {
            eprintln!("error: cannot watch files: {e}");
            return 2;
        }
    };
    if let Err(e) = watcher.watch(&absolute, RecursiveMode::Recursive) {
        eprintln!("error: cannot watch {}: {e}", absolute.display());
        return 2;
    }
    // Ctrl-C: say so and leave with status 0. The watcher writes nothing, so nothing is half done.
    if let Err(e) = ctrlc::set_handler(|| {
        eprintln!("\n[watch] stopped");
        std::process::exit(0);
    }) {
        eprintln!("warning: Ctrl-C handler not installed ({e}); the default signal action applies");
    }
    let mut session = Session::new(PathBuf::new());
    report_run(&mut session, &absolute, clear, "started", None);
    let quiet = Duration::from_millis(quiet_ms);
    loop {
        // Block for the first event, then gather the burst until it has been quiet a while.
        let first = match rx.recv() {
            Ok(e) => e,
            Err(_) => {
                eprintln!("error: the file watcher stopped");
                return 2;
            }
        };
        let saved_at = Instant::now();
        let mut events = vec![first];
        while let Ok(e) = rx.recv_timeout(quiet) {
            events.push(e);
        }
        let mut changed: Vec<PathBuf> = Vec::new();
        for event in events {
            match event {
                // Reading files (our own checks included) raises access events: only changes count.
                Ok(e)
                    if matches!(
                        e.kind,
                        notify::EventKind::Access(_) | notify::EventKind::Modify(notify::event::ModifyKind::Metadata(_))
                    ) => {}
                Ok(e) => changed.extend(e.paths.into_iter().filter(|p| relevant(p))),
                Err(e) => eprintln!("warning: the file watcher reported: {e}"),
            }
        }
        changed.sort();
        changed.dedup();
        if changed.is_empty() {
            continue;
        }
        let root = session.root.clone();
        if changed.iter().any(|p| p.file_name().is_some_and(|n| n == ".ocignore")) {
            session = Session::new(PathBuf::new());
        }
        let logical: Vec<String> = changed.iter().filter_map(|p| crate::project::logical(&root, p)).collect();
        session.invalidate(&logical);
        let what =
            if logical.len() == 1 { logical.first().cloned().unwrap_or_default() } else { format!("{} paths", logical.len()) };
        report_run(&mut session, &absolute, clear, &format!("changed: {what}"), Some(saved_at));
    }
}

fn report_run(session: &mut Session, target: &Path, clear: bool, why: &str, since: Option<Instant>) {
    let started = Instant::now();
    let mut err = std::io::stderr().lock();
    if clear {
        let _ = write!(err, "\x1b[2J\x1b[H");
    }
    match session.run(&[target.to_path_buf()]) {
        Ok(run) => {
            let style = style();
            for d in &run.diagnostics {
                let _ = write!(err, "{}", report::render(&*session, d, style));
            }
            let took = started.elapsed();
            let latency = since.map(|s| format!(", {:.0?} after the save", s.elapsed())).unwrap_or_default();
            let _ = writeln!(
                err,
                "[watch] {why}: rechecked {} file(s) and {} map(s){latency}; {}",
                run.rechecked_files,
                run.rechecked_maps,
                summary(&run, took)
            );
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            let _ = writeln!(err, "[watch] {why}: could not check ({e}); still watching");
        }
    }
    let _ = err.flush();
}
