//! `oc fairness --shard K/N` and `oc fairness merge`: the shards measure exactly the games of
//! the whole run (the same seeds), and the merged table equals the unsharded one byte for byte.

use std::path::Path;
use std::process::{Command, Output};

fn oc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("oc runs")
}

fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-fair-shards-{name}-{}", std::process::id())));
    dir
}

const SCENARIO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/grado-keep.oc");

#[test]
fn merged_fairness_shards_equal_the_whole_run_byte_for_byte() {
    let dir = scratch("merge");
    let run = ["fairness", SCENARIO, "--games", "5", "--seed", "11"];
    for format in ["human", "json"] {
        let whole = oc(&dir, &[&run[..], &["--format", format]].concat());
        assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
        let mut parts = Vec::new();
        for k in 1..=3 {
            let part = format!("part-{format}-{k}.json");
            let shard = format!("{k}/3");
            let out = oc(&dir, &[&run[..], &["--shard", &shard, "--out", &part]].concat());
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            assert!(out.stdout.is_empty());
            parts.push(part);
        }
        parts.reverse();
        let mut args = vec!["fairness", "merge", "--format", format];
        args.extend(parts.iter().map(String::as_str));
        let merged = oc(&dir, &args);
        assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
        assert_eq!(String::from_utf8_lossy(&merged.stdout), String::from_utf8_lossy(&whole.stdout), "{format}");
    }
    // Shard 2 of 3 owns games 1 and 4 of the 5 of each pair.
    let part = std::fs::read_to_string(dir.join("part-json-2.json")).unwrap();
    assert!(part.starts_with("{\"kind\":\"oc fairness part\",\"version\":1,"), "{part}");
    assert!(part.contains("\"score\":{\"games\":2,"), "{part}");
    // Standard error is not a terminal here: no progress bar, only the status lines.
    let whole = oc(&dir, &run);
    let stderr = String::from_utf8_lossy(&whole.stderr);
    assert!(!stderr.contains('\r') && !stderr.contains('\x1b') && !stderr.contains(" games ("), "{stderr}");
}

#[test]
fn fairness_merge_refuses_missing_repeated_foreign_and_old_parts() {
    let dir = scratch("refuse");
    for (k, seed) in [(1, "3"), (2, "3"), (3, "4")] {
        let shard = format!("{k}/3");
        let out =
            oc(&dir, &["fairness", SCENARIO, "--games", "2", "--seed", seed, "--shard", &shard, "--out", &format!("p{k}.json")]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let err = |args: &[&str]| {
        let out = oc(&dir, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let said = err(&["fairness", "merge", "p1.json", "p2.json"]);
    assert!(
        said.contains("error: the run's shards 3/3 are missing") && said.contains("help: run `oc fairness PATHS --shard K/3`"),
        "{said}"
    );
    assert!(err(&["fairness", "merge", "p1.json", "p1.json", "p2.json"]).contains("shard 1/3 is given twice"));
    let said = err(&["fairness", "merge", "p1.json", "p2.json", "p3.json"]);
    assert!(said.contains("p3.json is a part of another run than p1.json") && said.contains("help: "), "{said}");
    let part = std::fs::read_to_string(dir.join("p3.json")).unwrap();
    std::fs::write(dir.join("old.json"), part.replace("\"version\":1", "\"version\":0")).unwrap();
    let said = err(&["fairness", "merge", "old.json"]);
    assert!(
        said.contains("a fairness part of version 0, not of version 1") && said.contains("help: run the shard again"),
        "{said}"
    );
    // A simulation's part is not a fairness part, and is named as what it is.
    let sim = oc(&dir, &["simulate", SCENARIO, "--games", "2", "--shard", "1/1", "--out", "sim.json"]);
    assert!(sim.status.success());
    let said = err(&["fairness", "merge", "sim.json"]);
    assert!(said.contains("a `oc simulate part` file, not a fairness part"), "{said}");
    // A part is never written over a file that is not an earlier part.
    std::fs::write(dir.join("notes.txt"), "mine\n").unwrap();
    let said = err(&["fairness", SCENARIO, "--games", "2", "--shard", "1/2", "--out", "notes.txt"]);
    assert!(said.contains("not a fairness part oc wrote"), "{said}");
    assert!(err(&["fairness", SCENARIO, "--shard", "1/2", "--readme", "README.md"]).contains("merged table into the README"));
    assert!(err(&["fairness", SCENARIO, "--shard", "4/3"]).contains("shards are numbered 1 to N"));
}

#[test]
fn a_fairness_part_of_another_shard_is_not_replaced_without_force() {
    let dir = scratch("another-part");
    let run = ["fairness", SCENARIO, "--games", "4", "--seed", "11", "--out", "part.json"];
    let first = oc(&dir, &[&run[..], &["--shard", "1/2"]].concat());
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let kept = std::fs::read(dir.join("part.json")).unwrap();
    let second = oc(&dir, &[&run[..], &["--shard", "2/2"]].concat());
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(second.status.code(), Some(2), "{err}");
    assert!(err.contains("part.json holds another part: shard 1/2 (this run writes shard 2/2)"), "{err}");
    assert_eq!(std::fs::read(dir.join("part.json")).unwrap(), kept, "the first shard's part is kept");
    let again = oc(&dir, &[&run[..], &["--shard", "1/2"]].concat());
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    assert_eq!(std::fs::read(dir.join("part.json")).unwrap(), kept, "the same shard writes the same part");
}
