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
        fairness::measure_file(compiled, "scenarios/grado-keep.oc", 50, &[("SiegeOfGrado".into(), 6)], 4, used, &|_| {}).unwrap()
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
