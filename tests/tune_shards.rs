//! `oc tune` sharded in rounds (`--shard K/N --parts DIR`): every round's shards run the
//! search on the games the folder holds and play their own of the next batch; once the parts
//! hold every game the search asks for, `oc tune FILE --parts DIR` prints the unsharded run's
//! report byte for byte (exit 3 until then). Parts of another tuning, or of another shard count,
//! are refused with a help line. The same rounds as a Slurm job array: `tests/slurm.rs`.

mod common;

use std::path::Path;
use std::process::Output;

use common::{oc, repo, text};

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("oc.toml"), "[project]\nname = \"tune\"\n").unwrap();
    for f in ["field.map.toml", "skirmish.oc"] {
        std::fs::copy(repo().join("tests/fixtures/tune").join(f), dir.path().join(f)).unwrap();
    }
    dir
}

/// 20 games a setting of the lopsided skirmish: a search over both default knobs that also
/// finds the AI reading the clock (so it checks games played to two limits).
const RUN: [&str; 6] = ["tune", "skirmish.oc", "--games", "20", "--seed", "2"];

fn tune(dir: &Path, more: &[&str]) -> Output {
    let mut args = RUN.to_vec();
    args.extend_from_slice(more);
    oc(dir, &args)
}

/// Rounds of `shards` shards until the merge reports: the merge's output and the rounds run.
fn rounds(dir: &Path, shards: u64, more: &[&str]) -> (Output, u32) {
    let mut played = 0;
    loop {
        let merged = tune(dir, &[&["--parts", "parts"], more].concat());
        if merged.status.code() != Some(3) {
            return (merged, played);
        }
        assert!(played < 40, "the rounds never end: {}", text(&merged.stderr));
        let said = text(&merged.stderr);
        assert!(said.contains("help: run round") && said.contains("--shard K/N --parts parts"), "{said}");
        played += 1;
        for k in 1..=shards {
            let shard = format!("{k}/{shards}");
            let out = tune(dir, &["--shard", &shard, "--parts", "parts"]);
            assert!(out.status.success() && out.stdout.is_empty(), "{}", text(&out.stderr));
            assert!(text(&out.stderr).contains(&format!("round {played}: shard {shard} played")), "{}", text(&out.stderr));
        }
    }
}

#[test]
fn a_tuning_sharded_in_rounds_merges_into_the_unsharded_report() {
    let dir = project();
    let whole = tune(dir.path(), &[]);
    assert!(whole.status.success(), "{}", text(&whole.stderr));
    let (merged, played) = rounds(dir.path(), 3, &[]);
    assert!(merged.status.success(), "{}", text(&merged.stderr));
    assert_eq!(text(&merged.stdout), text(&whole.stdout));
    // Several settings, each a round or more, and the clock checked on two limits.
    assert!(played >= 4, "{played} rounds");
    assert!(text(&whole.stdout).contains("the AI reads the time limit"), "{}", text(&whole.stdout));
    let json = tune(dir.path(), &["--parts", "parts", "--format", "json"]);
    assert_eq!(text(&json.stdout), text(&tune(dir.path(), &["--format", "json"]).stdout));
    // Every shard played its own games of each batch: none twice, none lost.
    let parts = std::fs::read_dir(dir.path().join("parts")).unwrap().count();
    assert_eq!(parts as u32, 3 * played);
    // A shard run once the parts are whole says so and writes nothing.
    let late = tune(dir.path(), &["--shard", "2/3", "--parts", "parts"]);
    assert!(
        late.status.success() && text(&late.stderr).contains("hold every game the search asks for"),
        "{}",
        text(&late.stderr)
    );
    assert_eq!(std::fs::read_dir(dir.path().join("parts")).unwrap().count(), parts);
}

#[test]
fn parts_of_another_tuning_or_shard_count_are_refused() {
    let dir = project();
    let first = tune(dir.path(), &["--shard", "1/3", "--parts", "parts"]);
    assert!(first.status.success(), "{}", text(&first.stderr));
    // Round 1 lacks shards 2 and 3: the merge says which, with exit 3.
    let pending = tune(dir.path(), &["--parts", "parts"]);
    assert_eq!(pending.status.code(), Some(3));
    let said = text(&pending.stderr);
    assert!(said.contains("holds no complete round") && said.contains("help: round 1 lacks shards 2/3, 3/3"), "{said}");
    // Another seed is another tuning; another shard count is not this run's.
    let mut args = RUN.to_vec();
    args[5] = "3";
    args.extend(["--shard", "2/3", "--parts", "parts"]);
    let other = oc(dir.path(), &args);
    assert_eq!(other.status.code(), Some(2));
    assert!(text(&other.stderr).contains("is a part of another tuning") && text(&other.stderr).contains("help: "));
    let count = tune(dir.path(), &["--shard", "1/2", "--parts", "parts"]);
    assert_eq!(count.status.code(), Some(2));
    assert!(text(&count.stderr).contains("holds parts of 3 shards, not 2"), "{}", text(&count.stderr));
    // A file under a part's name that oc did not write is refused, never misread or replaced.
    std::fs::write(dir.path().join("parts/tune-2-of-3-round-1.json"), "notes\n").unwrap();
    let over = tune(dir.path(), &["--shard", "2/3", "--parts", "parts"]);
    assert_eq!(over.status.code(), Some(2), "{}", text(&over.stderr));
    assert!(text(&over.stderr).contains("not a part of a sharded tuning"), "{}", text(&over.stderr));
    assert_eq!(std::fs::read_to_string(dir.path().join("parts/tune-2-of-3-round-1.json")).unwrap(), "notes\n");
    // A shard measures: it writes no suggested values.
    let write = tune(dir.path(), &["--shard", "2/3", "--parts", "parts", "--write"]);
    assert_eq!(write.status.code(), Some(2));
}
