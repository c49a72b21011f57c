//! `oc watch`: recheck on every save, reported as `oc check` reports. The watching (events,
//! the tree compared, what a change affects) is `oc_project::watch`; this prints each run.
//! Ctrl-C ends it with status 0 (nothing is written, so nothing is left half done).

use std::path::Path;
use std::time::{Duration, Instant};

use crate::commands::style;
use crate::report;
use crate::Format;
use oc_project::session::Session;
use oc_project::watch::Watch;
use oc_render::diagnostics::summary;

pub fn watch(path: Option<&Path>, clear: bool, quiet_ms: u64, format: Format) -> u8 {
    let mut watch = match Watch::start(path.unwrap_or(Path::new(".")), Duration::from_millis(quiet_ms)) {
        Ok(w) => w,
        Err(e) => {
            errln!("error: {e}");
            errln!("help: name a project folder (`oc watch .`), or one `.oc` or `.map.toml` file in it");
            return 2;
        }
    };
    crate::report::set_root(&watch.root);
    for w in watch.start_warnings() {
        errln!("warning: {w}");
    }
    // Ctrl-C: say so and leave with status 0. The watcher writes nothing, so nothing is half done.
    if let Err(e) = ctrlc::set_handler(|| {
        errln!("\n[watch] stopped");
        std::process::exit(0);
    }) {
        errln!("warning: Ctrl-C handler not installed ({e}); the default signal action applies");
    }
    let target = watch.target.clone();
    report_run(&mut watch.session, &target, clear, "started", None, format);
    loop {
        let change = match watch.wait() {
            Ok(c) => c,
            Err(e) => {
                errln!("error: {e}");
                return 2;
            }
        };
        for w in &change.warnings {
            errln!("warning: {w}");
        }
        report_run(&mut watch.session, &target, clear, &change.why, Some(change.saved_at), format);
    }
}

fn report_run(session: &mut Session, target: &Path, clear: bool, why: &str, since: Option<Instant>, format: Format) {
    let started = Instant::now();
    // A clear-screen code only for a terminal: in a log or a pipe it is noise.
    if clear && format == Format::Human && std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        err_lossy!("\x1b[2J\x1b[H");
    }
    let project = match oc_project::discover(&[target.to_path_buf()]).map(|p| p.into_iter().next()) {
        Ok(Some(p)) => p,
        Ok(None) | Err(_) => {
            errln_lossy!("[watch] {why}: {} is gone; still watching for it to come back", target.display());
            if format == Format::Json {
                let value = report::merge_json(Vec::new());
                let _ = report::out(format!("{value}\n").as_bytes());
            }
            return;
        }
    };
    match session.run(&project) {
        Ok(run) => {
            if format == Format::Json {
                let value = report::json(&*session, &run.diagnostics, run.files + run.maps);
                let _ = report::out(format!("{value}\n").as_bytes());
            } else {
                let style = style();
                let reports = report::Reports::new(&*session);
                for d in &run.diagnostics {
                    err_lossy!("{}", reports.render(d, style));
                }
            }
            let took = started.elapsed();
            let latency = since.map(|s| format!(", {:.0?} after the save", s.elapsed())).unwrap_or_default();
            errln_lossy!(
                "[watch] {why}: rechecked {} file(s) and {} map(s){latency}; {}",
                run.rechecked_files,
                run.rechecked_maps,
                summary(&run, took)
            );
        }
        Err(e) => {
            errln_lossy!("error: {e}");
            errln_lossy!("[watch] {why}: could not check ({e}); still watching");
        }
    }
}
