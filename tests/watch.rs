//! Drives `oc watch` through a scripted sequence of edits and asserts every report it prints:
//! write, break, fix, an editor's atomic save, bad UTF-8, delete, recreate, a directory renamed.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

const GOOD: &str = r#"name = "Watched"
width = 4
height = 2
rows = [
  "..f.",
  ".F..",
]
"#;

const BROKEN: &str = r#"name = "Watched"
width = 4
height = 2
rows = [
  "..f..",
  ".F..",
]
"#;

struct Watch {
    child: Child,
    lines: Receiver<String>,
}

impl Watch {
    fn start(dir: &Path) -> Watch {
        let mut child = Command::new(env!("CARGO_BIN_EXE_oc"))
            .args(["watch", ".", "--no-clear", "--debounce", "300"])
            .current_dir(dir)
            .env("NO_COLOR", "1")
            .stderr(Stdio::piped())
            .spawn()
            .expect("oc watch starts");
        let stderr = child.stderr.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Watch { child, lines }
    }

    /// The first report whose summary names every path of `paths` among what changed (a report
    /// left over from the step before, its events late under load, is passed over).
    fn report_naming(&self, paths: &[&str]) -> (String, String) {
        loop {
            let (body, summary) = self.report();
            if paths.iter().all(|p| changed(&summary).contains(p)) {
                return (body, summary);
            }
        }
    }

    /// Everything printed up to and including the next `[watch]` summary line.
    fn report(&self) -> (String, String) {
        let mut body = String::new();
        loop {
            match self.lines.recv_timeout(Duration::from_secs(30)) {
                Ok(line) if line.starts_with("[watch]") => return (body, line),
                Ok(line) => {
                    body.push_str(&line);
                    body.push('\n');
                }
                Err(_) => panic!("no report within 30 s; so far:\n{body}"),
            }
        }
    }
}

impl Drop for Watch {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn scratch() -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-watch-{}", std::process::id())));
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    dir
}

/// The paths a summary says changed: `[watch] changed: a, b and 2 more: rechecked ...`.
fn changed(summary: &str) -> Vec<&str> {
    let Some(rest) = summary.strip_prefix("[watch] changed: ") else { return Vec::new() };
    let list = rest.split(": rechecked").next().unwrap_or("");
    let list = list.rsplit_once(" and ").map_or(list, |(named, more)| if more.ends_with(" more") { named } else { list });
    list.split(", ").collect()
}

impl Watch {
    /// Waits out the debounce so the next step is its own burst: returns once nothing has been
    /// printed for a while (a late report of the step before is read and dropped here).
    fn settle(&self) {
        while self.lines.recv_timeout(Duration::from_millis(400)).is_ok() {}
    }
}

#[test]
fn the_watcher_reports_every_step_and_never_dies() {
    let dir = scratch();
    std::fs::write(dir.join("maps/keep.map.toml"), GOOD).unwrap();
    let watch = Watch::start(&dir);

    let (body, summary) = watch.report();
    assert!(summary.contains("started"), "{summary}");
    assert!(summary.contains("1 map") && summary.contains("0 errors"), "{summary}\n{body}");

    // Break the map: a ragged row, reported with the place it points at.
    watch.settle();
    std::fs::write(dir.join("maps/keep.map.toml"), BROKEN).unwrap();
    let (body, summary) = watch.report_naming(&["maps/keep.map.toml"]);
    assert!(summary.contains("changed: maps/keep.map.toml:"), "{summary}");
    assert!(summary.contains("rechecked 0 file(s) and 1 map(s)"), "{summary}");
    assert!(summary.contains("1 error"), "{summary}\n{body}");
    assert!(body.contains("oc::atlas::ragged_row") && body.contains("maps/keep.map.toml:5:"), "{body}");

    // Fix it with an editor's atomic save: write a temporary file, rename it over the map.
    watch.settle();
    std::fs::write(dir.join("maps/.keep.map.toml.swp"), "swap").unwrap();
    std::fs::write(dir.join("maps/keep.map.toml.tmp"), GOOD).unwrap();
    std::fs::rename(dir.join("maps/keep.map.toml.tmp"), dir.join("maps/keep.map.toml")).unwrap();
    let (body, summary) = watch.report_naming(&["maps/keep.map.toml"]);
    assert!(summary.contains("0 errors"), "{summary}\n{body}");
    assert!(!body.contains("swp"), "{body}");

    // A rules file with a syntax error, then one that is not UTF-8: reported, and the watch goes on.
    watch.settle();
    std::fs::write(dir.join("home.oc"), "class Sentinel {\n").unwrap();
    let (body, summary) = watch.report_naming(&["home.oc"]);
    assert!(summary.contains("changed: home.oc") && summary.contains("rechecked 1 file(s) and 0 map(s)"), "{summary}");
    assert!(summary.contains("1 file, 1 map") && !summary.contains("0 errors"), "{summary}\n{body}");
    assert!(body.contains("home.oc:"), "{body}");
    watch.settle();
    std::fs::write(dir.join("home.oc"), b"// caf\xe9\n").unwrap();
    let (body, summary) = watch.report_naming(&["home.oc"]);
    assert!(body.contains("oc::file::not_utf8"), "{body}");
    assert!(summary.contains("1 error"), "{summary}");

    // Delete both, then recreate the map.
    watch.settle();
    std::fs::remove_file(dir.join("home.oc")).unwrap();
    std::fs::remove_file(dir.join("maps/keep.map.toml")).unwrap();
    let (_, summary) = watch.report_naming(&["maps/keep.map.toml"]);
    assert!(summary.contains("0 files, 0 maps") && summary.contains("0 errors"), "{summary}");
    watch.settle();
    std::fs::write(dir.join("maps/keep.map.toml"), BROKEN).unwrap();
    let (body, summary) = watch.report_naming(&["maps/keep.map.toml"]);
    assert!(summary.contains("1 map") && summary.contains("1 error"), "{summary}\n{body}");

    // Rename the directory holding it: the map is found under its new path.
    watch.settle();
    std::fs::rename(dir.join("maps"), dir.join("atlas")).unwrap();
    let (body, summary) = watch.report_naming(&["atlas/keep.map.toml"]);
    assert!(body.contains("atlas/keep.map.toml:5:"), "{body}");
    assert!(!body.contains("maps/keep.map.toml"), "{body}");
    assert!(summary.contains("1 map") && summary.contains("1 error"), "{summary}");

    // Still alive after all of it; Ctrl-C (SIGINT) ends it cleanly with status 0.
    let mut watch = watch;
    assert!(watch.child.try_wait().unwrap().is_none(), "the watcher exited");
    let pid = watch.child.id().to_string();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let line = watch.lines.recv_timeout(Duration::from_secs(30)).expect("a goodbye line");
    let line = if line.is_empty() { watch.lines.recv_timeout(Duration::from_secs(30)).unwrap() } else { line };
    assert_eq!(line, "[watch] stopped");
    let status = watch.child.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
