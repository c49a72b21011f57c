//! `oc_play::simulate`: the shards of a run play exactly its games (the same seeds), their parts
//! survive the saved format, and merged they are the whole run's counts; a part of another run,
//! a shard given twice or missing, and a file of another kind or version are refused.

mod common;

use std::path::{Path, PathBuf};

use oc_play::simulate::{self, read_part, Header, Part, Run, Shard, PART_VERSION};

const SCENARIO: &str = "scenarios/grado-keep.oc";

fn whole_and_parts(games: u64, seed: u64, shards: u64) -> (simulate::Tally, Vec<(PathBuf, Part)>) {
    let setup = common::setup(SCENARIO, None);
    let ais = common::default_ais();
    let whole = simulate::run(&setup, &ais, &Run { games, seed, shard: None }, &|| {}).unwrap();
    let mut parts = Vec::new();
    for index in 1..=shards {
        let shard = Shard { index, count: shards };
        let run = Run { games, seed, shard: Some(shard) };
        let tally = simulate::run(&setup, &ais, &run, &|| {}).unwrap();
        assert_eq!(tally.games, run.count(), "shard {index} plays its own games only");
        // Through the saved format, as `oc simulate merge` reads it.
        let json = serde_json::to_string(&Part::new(Header::of(&setup, &ais, &run), setup.fingerprint(), shard, tally)).unwrap();
        let path = PathBuf::from(format!("part-{index}.json"));
        parts.push((path.clone(), read_part(&path, json.as_bytes()).unwrap()));
    }
    (whole, parts)
}

#[test]
fn merged_shards_are_the_whole_run() {
    let (whole, parts) = whole_and_parts(12, 11, 3);
    assert_eq!(whole.games, 12);
    assert!(whole.has_histograms());
    let (header, merged, count) = simulate::merge(parts).unwrap();
    assert_eq!((header.games, header.seed, count), (12, 11, 3));
    assert_eq!(merged, whole);
}

#[test]
fn merge_refuses_missing_repeated_and_foreign_parts() {
    let (_, parts) = whole_and_parts(6, 5, 3);
    let message = |parts: Vec<(PathBuf, Part)>| simulate::merge(parts).map(|_| ()).unwrap_err().message;
    let mut missing = whole_and_parts(6, 5, 3).1;
    missing.remove(1);
    assert!(message(missing).contains("shards 2/3 are missing"));
    let mut twice = whole_and_parts(6, 5, 3).1;
    let again = read_part(Path::new("again.json"), serde_json::to_string(&twice[0].1).unwrap().as_bytes()).unwrap();
    twice[1] = (PathBuf::from("again.json"), again);
    assert!(message(twice).contains("shard 1/3 is given twice"));
    let mut foreign = parts;
    foreign[2].1.header.seed = 99;
    assert!(message(foreign).contains("is a part of another run"));
    // A part played from an edited scenario, its names alike (a Fighter made a Knight was
    // merged): its fingerprint differs.
    let mut edited = whole_and_parts(6, 5, 3).1;
    edited[1].1.played.push('x');
    assert!(message(edited).contains("is a part of another run"));
    assert!(message(Vec::new()).contains("no parts"));
}

#[test]
fn a_file_of_another_kind_or_version_is_refused_by_it() {
    let (_, parts) = whole_and_parts(2, 1, 1);
    let mut value = serde_json::to_value(&parts[0].1).unwrap();
    value["version"] = serde_json::json!(PART_VERSION - 1);
    let old = read_part(Path::new("old.json"), value.to_string().as_bytes()).unwrap_err();
    assert!(old.message.contains(&format!("a part of version {}, not of version {PART_VERSION}", PART_VERSION - 1)), "{old:?}");
    let junk = read_part(Path::new("junk.json"), b"{\"x\": 1}").unwrap_err();
    assert!(junk.message.contains("not a part of a sharded simulation") && junk.help.is_some(), "{junk:?}");
}

/// `oc simulate merge` reads part files as `--shard --out` wrote them (`Part::text`): merged from
/// disk they are the whole run; a file that is not there is refused by its name.
#[test]
fn parts_written_as_text_merge_from_their_files() {
    let (whole, parts) = whole_and_parts(6, 3, 2);
    let dir = tempfile::tempdir().unwrap();
    let mut paths = Vec::new();
    for (name, part) in &parts {
        let path = dir.path().join(name);
        let text = part.text().unwrap();
        assert!(text.ends_with('\n') && text.lines().count() == 1, "{text}");
        std::fs::write(&path, text).unwrap();
        paths.push(path);
    }
    let (_, merged, count) = simulate::merge_files(&paths).unwrap();
    assert_eq!((merged, count), (whole, 2));
    let missing = dir.path().join("part-9.json");
    let refused = simulate::merge_files(std::slice::from_ref(&missing)).map(|_| ()).unwrap_err();
    assert!(refused.message.starts_with(&missing.display().to_string()), "{refused:?}");
}
