//! `oc simulate --shard K/N` and `oc simulate merge`: the shards play exactly the games of the
//! whole run (the same seeds), and the merged report equals the unsharded one byte for byte.

use std::path::Path;
use std::process::{Command, Output};

fn oc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("oc runs")
}

fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-shards-{name}-{}", std::process::id())));
    dir
}

const SCENARIO: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/grado-keep.oc");

#[test]
fn merged_shards_equal_the_whole_run_byte_for_byte() {
    let dir = scratch("merge");
    let run = ["simulate", SCENARIO, "--games", "10", "--seed", "11"];
    for format in ["human", "json"] {
        let whole = oc(&dir, &[&run[..], &["--format", format]].concat());
        assert!(whole.status.success(), "{}", String::from_utf8_lossy(&whole.stderr));
        let mut parts = Vec::new();
        for k in 1..=4 {
            let part = format!("part-{format}-{k}.json");
            let shard = format!("{k}/4");
            let out = oc(&dir, &[&run[..], &["--shard", &shard, "--out", &part]].concat());
            assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
            parts.push(part);
        }
        // In any order.
        parts.reverse();
        let mut args = vec!["simulate", "merge", "--format", format];
        args.extend(parts.iter().map(String::as_str));
        let merged = oc(&dir, &args);
        assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
        assert_eq!(String::from_utf8_lossy(&merged.stdout), String::from_utf8_lossy(&whole.stdout), "{format}");
    }
    // Shard 2 of 4 owns games 1, 5 and 9 of the 10: three games.
    let part = std::fs::read_to_string(dir.join("part-json-2.json")).unwrap();
    assert!(part.contains("\"tally\":{\"games\":3,"), "{part}");
}

#[test]
fn merge_refuses_missing_repeated_and_foreign_parts() {
    let dir = scratch("refuse");
    for (k, seed) in [(1, "3"), (2, "3"), (3, "4")] {
        let shard = format!("{k}/3");
        let out =
            oc(&dir, &["simulate", SCENARIO, "--games", "3", "--seed", seed, "--shard", &shard, "--out", &format!("p{k}.json")]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    let err = |args: &[&str]| {
        let out = oc(&dir, args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    assert!(err(&["simulate", "merge", "p1.json", "p2.json"]).contains("shards 3/3 are missing"));
    assert!(err(&["simulate", "merge", "p1.json", "p1.json", "p2.json"]).contains("shard 1/3 is given twice"));
    // p3 was played from another seed: another run.
    assert!(err(&["simulate", "merge", "p1.json", "p2.json", "p3.json"]).contains("a part of another run"));
    // A part played by other AIs is a part of another run too.
    let out = oc(
        &dir,
        &["simulate", SCENARIO, "--games", "3", "--seed", "3", "--shard", "3/3", "--attacker-ai", "greedy", "--out", "p3g.json"],
    );
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::read_to_string(dir.join("p3g.json"))
        .unwrap()
        .contains("\"attacker_ai\":\"greedy\",\"defender_ai\":\"planner\""));
    assert!(err(&["simulate", "merge", "p1.json", "p2.json", "p3g.json"]).contains("a part of another run"));
    // A part written before parts named their AIs (version 1), or their round limit (version 2),
    // is refused by its version, saying what to do.
    let part = std::fs::read_to_string(dir.join("p3g.json")).unwrap();
    assert!(part.contains("\"version\":3") && part.contains("\"round_limit\":12"), "{part}");
    for v in [1, 2] {
        let old = part.replace("\"version\":3", &format!("\"version\":{v}")).replace(",\"round_limit\":12", "");
        std::fs::write(dir.join("old.json"), old).unwrap();
        let said = err(&["simulate", "merge", "old.json"]);
        assert!(said.contains(&format!("a part of version {v}, not of version 3")), "{said}");
        assert!(said.contains("play the shard again with this oc"), "{said}");
    }
    // An AI no one has.
    assert!(err(&["simulate", SCENARIO, "--defender-ai", "clever"]).contains("invalid value 'clever' for '--defender-ai <NAME>'"));
    std::fs::write(dir.join("junk.json"), "{}").unwrap();
    assert!(err(&["simulate", "merge", "junk.json"]).contains("not a part of a sharded simulation"));
    assert!(err(&["simulate", SCENARIO, "--shard", "5/4"]).contains("shards are numbered 1 to N"));
}

#[test]
fn a_part_of_another_shard_is_not_replaced_without_force() {
    // Two shards of a job array given the same --out: the second would replace the first's
    // games, which the merge would then miss. Refused before any game; the same shard again
    // (its run repeated) replaces its own part.
    let dir = scratch("another-part");
    let run = ["simulate", SCENARIO, "--games", "4", "--out", "part.json"];
    let first = oc(&dir, &[&run[..], &["--shard", "1/2", "--seed", "11"]].concat());
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    let kept = std::fs::read(dir.join("part.json")).unwrap();
    for (other, says) in [
        (&["--shard", "2/2", "--seed", "11"][..], "shard 1/2 (this run writes shard 2/2)"),
        (&["--shard", "1/2", "--seed", "12"][..], "`seed` 11 (this run: 12)"),
    ] {
        let second = oc(&dir, &[&run[..], other].concat());
        let err = String::from_utf8_lossy(&second.stderr);
        assert_eq!(second.status.code(), Some(2), "{err}");
        assert!(err.contains("part.json holds another part") && err.contains(says), "{err}");
        assert!(!err.contains("games in"), "refused before playing: {err}");
        assert_eq!(std::fs::read(dir.join("part.json")).unwrap(), kept, "the first shard's part is kept");
    }
    let again = oc(&dir, &[&run[..], &["--shard", "1/2", "--seed", "11"]].concat());
    assert!(again.status.success(), "{}", String::from_utf8_lossy(&again.stderr));
    let forced = oc(&dir, &[&run[..], &["--shard", "2/2", "--seed", "11", "--force"]].concat());
    assert!(forced.status.success(), "{}", String::from_utf8_lossy(&forced.stderr));
    assert_ne!(std::fs::read(dir.join("part.json")).unwrap(), kept, "--force replaces it");
}
