//! Issue 43, "a newcomer's first hour without a stumble": one test per item, driving the real
//! binary on what a newcomer writes (the tutorials' own files where they exist).

mod common;
use common::{oc, repo, text};
use std::path::{Path, PathBuf};

/// A fresh folder under the system's temporary folder.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oc-newcomer-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write(root: &Path, path: &str, body: &str) {
    let target = root.join(path);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(target, body).unwrap();
}

/// The last code block of a guide page written to `file` (```oc,file=rules/duelist.oc).
fn guide_file(page: &str, file: &str) -> String {
    let md = std::fs::read_to_string(repo().join(page)).unwrap();
    let mut found = None;
    let mut open: Option<String> = None;
    for line in md.lines() {
        match &mut open {
            None => {
                if let Some(info) = line.trim_start().strip_prefix("```") {
                    if info.split(',').any(|a| a.trim() == format!("file={file}")) {
                        open = Some(String::new());
                    }
                }
            }
            Some(body) => {
                if line.trim_start().starts_with("```") {
                    found = open.take();
                } else {
                    body.push_str(line);
                    body.push('\n');
                }
            }
        }
    }
    found.unwrap_or_else(|| panic!("{page} writes no {file}"))
}

/// Item 1: the scenario tutorial's files without an `oc.toml` name the root `oc` used and the
/// `oc.toml` that would hold both; with the guide's own step (its `oc.toml`) they check clean.
#[test]
fn the_scenario_tutorial_checks_as_written_and_a_missing_oc_toml_is_named() {
    let dir = scratch("tutorial");
    for file in ["maps/crossing.map.toml", "rules/duelist.oc", "campaign/crossing.oc"] {
        write(&dir, file, &guide_file("docs/tutorial-scenario.md", file));
    }
    let run = oc(&dir, &["check", "campaign/crossing.oc"]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("`../rules/duelist.oc` is outside the project `campaign/`"), "{err}");
    assert!(err.contains("the map `../maps/crossing.map.toml` is outside the project `campaign/`"), "{err}");
    assert!(err.contains("write an oc.toml holding `[project]` in"), "{err}");
    assert!(err.contains("(`../oc.toml`)"), "{err}");
    // The step the guide gives where it first says "your project".
    write(&dir, "oc.toml", &guide_file("docs/tutorial-scenario.md", "oc.toml"));
    assert_eq!(guide_file("docs/tutorial-class.md", "oc.toml"), guide_file("docs/tutorial-scenario.md", "oc.toml"));
    let run = oc(&dir, &["check", "campaign/crossing.oc"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let _ = std::fs::remove_dir_all(&dir);
}
