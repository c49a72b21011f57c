//! `oc_play::fairness`: each pair of a scenario's sample armies measured (the same seed, the
//! same rows), one row each in the table between its markers, and the table put into a README
//! leaving everything around the markers as it was.

mod common;

use oc_play::fairness::{self, replace_table, table, BEGIN, END};

#[test]
fn a_scenario_file_gives_one_row_per_pair_of_armies_in_the_table() {
    let path = common::repo("scenarios/grado-keep.oc");
    let measure = |used: &mut Vec<String>| {
        let compiled = oc_play::setup::compile(&path).unwrap();
        let games_for = [("SiegeOfGrado".to_string(), 6)];
        let r = fairness::Request { paths: &[], games: 50, games_for: &games_for, seed: 4, shard: None };
        fairness::measure_file(compiled, (&path, "scenarios/grado-keep.oc"), &r, used, &|_| {}, &|| {}).unwrap()
    };
    let mut used = Vec::new();
    let rows = measure(&mut used);
    assert_eq!(used, ["SiegeOfGrado"], "--games-for was used");
    assert!(!rows.is_empty());
    assert!(rows.iter().all(|r| r.score.games == 6 && r.scenario == "SiegeOfGrado"));
    let again = measure(&mut Vec::new());
    assert_eq!(rows.iter().map(|r| r.score).collect::<Vec<_>>(), again.iter().map(|r| r.score).collect::<Vec<_>>());
    let text = table(&rows, "oc fairness scenarios/grado-keep.oc --games 50");
    assert!(text.starts_with(BEGIN) && text.ends_with(&format!("{END}\n")), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("| Siege of Grado Keep |")).count(), rows.len(), "{text}");
    let readme = format!("# Scenarios\n\n{BEGIN}\nold\n{END}\n\nAfter.\n");
    assert_eq!(replace_table(&readme, &text).unwrap(), format!("# Scenarios\n\n{text}\nAfter.\n"));
}

/// `oc fairness PATHS`: every file under the paths compiled by the caller's function and
/// measured; a `--games-for` naming no scenario measured is refused, as are paths without a
/// scenario with an army on each side.
#[test]
fn the_files_under_the_paths_are_measured_and_a_stray_games_for_refused() {
    let paths = [common::repo("scenarios/grado-keep.oc")];
    let compiled = std::cell::Cell::new(0);
    let compile = |p: &std::path::Path| {
        compiled.set(compiled.get() + 1);
        oc_play::setup::compile(p)
    };
    let games_for = [("SiegeOfGrado".to_string(), 2)];
    let r = fairness::Request { paths: &paths, games: 50, games_for: &games_for, seed: 1, shard: None };
    let rows = fairness::measure(&r, &compile, &|_| {}, &|| {}).unwrap();
    assert!(!rows.is_empty() && rows.iter().all(|row| row.score.games == 2));
    assert_eq!(compiled.get(), 1);
    let stray = [("Nowhere".to_string(), 2), ("SiegeOfGrado".to_string(), 2)];
    let r = fairness::Request { games_for: &stray, ..r };
    match fairness::measure(&r, &compile, &|_| {}, &|| {}) {
        Err(oc_play::Failure::Refused(e)) => assert!(e.message.contains("`Nowhere`, which is not a scenario"), "{e:?}"),
        other => panic!("{:?}", other.map(|rows| rows.len())),
    }
    let empty = tempfile::tempdir().unwrap();
    std::fs::write(empty.path().join("none.oc"), "").unwrap();
    let r = fairness::Request { paths: &[empty.path().to_path_buf()], games: 1, games_for: &[], seed: 1, shard: None };
    assert!(fairness::measure(&r, &compile, &|_| {}, &|| {}).is_err());
}

/// `--readme`: the edit of the notes file (confined to its project), none when it already holds
/// the table.
#[test]
fn the_readme_edit_puts_the_table_between_the_markers_once() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("oc.toml"), "").unwrap();
    let readme = dir.path().join("README.md");
    std::fs::write(&readme, format!("# S\n\n{BEGIN}\nold\n{END}\n")).unwrap();
    let table = format!("{BEGIN}\nnew\n{END}\n");
    let edit = fairness::notes_edit(&readme, &table).unwrap();
    assert_eq!((edit.logical.as_str(), edit.after.as_deref()), ("README.md", Some(format!("# S\n\n{table}").as_str())));
    std::fs::write(&readme, format!("# S\n\n{table}")).unwrap();
    assert_eq!(fairness::notes_edit(&readme, &table).unwrap().after, None);
}

/// `--shard K/N`: each shard plays the games it owns (the same seeds as the whole run), and
/// the parts merge into exactly the whole run's rows.
#[test]
fn shards_merge_into_the_whole_runs_rows() {
    let paths = [common::repo("scenarios/grado-keep.oc")];
    let games_for = [("SiegeOfGrado".to_string(), 5)];
    let r = fairness::Request { paths: &paths, games: 5, games_for: &games_for, seed: 7, shard: None };
    let played = std::sync::atomic::AtomicU64::new(0);
    let tick = || {
        played.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    let whole = fairness::measure(&r, &oc_play::setup::compile, &|_| {}, &tick).unwrap();
    let per_game = played.load(std::sync::atomic::Ordering::Relaxed);
    assert_eq!(per_game, whole.iter().map(|row| row.score.games).sum::<u64>(), "a tick per game");
    let parts = (1..=3)
        .map(|k| {
            let shard = oc_play::simulate::Shard { index: k, count: 3 };
            let rows =
                fairness::measure(&fairness::Request { shard: Some(shard), ..r }, &oc_play::setup::compile, &|_| {}, &|| {})
                    .unwrap();
            (std::path::PathBuf::from(format!("p{k}")), fairness::Part::new(&r, "oc fairness".into(), shard, rows))
        })
        .collect();
    let merged = fairness::merge(parts).unwrap();
    assert_eq!(merged.rows, whole);
}

/// A scenario in a folder with an oc.toml of its own, under the folder measured, is measured:
/// its compilation names the file from that project's root, the walk from the folder's, and the
/// scenario was looked up under the one name in the other's files and left out without a word.
#[test]
fn a_scenario_of_a_project_inside_the_folder_measured_is_measured() {
    let dir = tempfile::tempdir().unwrap();
    let proj = dir.path().join("proj");
    std::fs::create_dir_all(proj.join("maps")).unwrap();
    std::fs::write(dir.path().join("oc.toml"), "[project]\nname = \"outer\"\n").unwrap();
    std::fs::write(proj.join("oc.toml"), "[project]\nname = \"inner\"\n").unwrap();
    std::fs::copy(common::repo("scenarios/ide.oc"), proj.join("ide.oc")).unwrap();
    std::fs::copy(common::repo("scenarios/maps/ide.map.toml"), proj.join("maps/ide.map.toml")).unwrap();
    let paths = [dir.path().to_path_buf()];
    let r = fairness::Request { paths: &paths, games: 2, games_for: &[], seed: 1, shard: None };
    let rows = fairness::measure(&r, &oc_play::setup::compile, &|_| {}, &|| {}).unwrap();
    assert_eq!(
        rows.iter().map(|r| (r.file.as_str(), r.scenario.as_str())).collect::<Vec<_>>(),
        [("proj/ide.oc", "ThroughTheDunes")]
    );
}
