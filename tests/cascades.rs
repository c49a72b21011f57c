//! No cascades: for each mistake of the kind newcomers make (`tests/fixtures/cascades/*/`, one
//! folder per mistake, its `EXPECT` file listing the codes `oc check` reports, in order, the true
//! error first), `oc check` reports exactly those: the true error first and at most two in all — a broken definition does not also make its uses
//! "unknown", a region off the map is one error, not a lint per tile and a scenario check per zone.

use std::path::{Path, PathBuf};
use std::process::Command;

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        if e.file_type().unwrap().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn the_first_error_is_the_true_one_and_there_are_at_most_two() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cascades");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root).unwrap().flatten().map(|e| e.path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    assert!(cases.len() >= 10, "{cases:?}");
    let scratch = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-cascades-{}", std::process::id())));
    let mut failures = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let expect: Vec<String> = std::fs::read_to_string(case.join("EXPECT")).unwrap().lines().map(str::to_string).collect();
        assert!((1..=2).contains(&expect.len()), "{name}: EXPECT lists one or two codes");
        // A project of its own (the repository's oc.toml ignores tests/fixtures).
        let dir = scratch.join(&name);
        copy_dir(case, &dir);
        std::fs::write(dir.join("oc.toml"), "[project]\n").unwrap();
        let out =
            Command::new(env!("CARGO_BIN_EXE_oc")).args(["check", ".", "--format", "json"]).current_dir(&dir).output().unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let found: Vec<String> = json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| {
                format!(
                    "{} {}:{}:{} {}",
                    d["code"].as_str().unwrap(),
                    d["file"].as_str().unwrap(),
                    d["line"],
                    d["column"],
                    d["message"].as_str().unwrap()
                )
            })
            .collect();
        let codes: Vec<&str> = found.iter().map(|f| f.split(' ').next().unwrap_or("")).collect();
        if codes != expect {
            failures.push(format!("{name}: wanted {}, got:\n  {}", expect.join(", "), found.join("\n  ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
