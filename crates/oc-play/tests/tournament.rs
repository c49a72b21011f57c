//! `oc_play::tournament`: each roster of a mirror scenario is played from both sides, with each
//! AI moving first, on the field and with its zones swapped, so every row counts 4 x games for
//! each AI and the first mover, the same seeds giving the same table; a scenario whose sides
//! differ, a roster that is not there and an AI that does not exist are refused by name.

mod common;

use oc_play::tournament::{self, totals, Entry};

fn entry(file: &str) -> Result<Entry, oc_play::Refusal> {
    let path = common::repo(file);
    let field = oc_play::setup::compile(&path).unwrap().field(&path, None).unwrap();
    Entry::new(path, field)
}

#[test]
fn every_roster_plays_both_seats_both_fields_and_both_orders() {
    let entries = [entry("tests/fixtures/mirror/ratings.oc").unwrap()];
    let armies = ["Vanguard".to_string(), "Riders".to_string()];
    let (rows, played) = tournament::play(&entries, &armies, ["tactician", "greedy"], 2, 1).unwrap();
    assert_eq!(played, 2 * 2 * 2 * 2, "2 rosters x 2 fields x 2 orders x 2 games");
    assert_eq!(rows.iter().map(|r| r.roster.as_str()).collect::<Vec<_>>(), ["Vanguard", "Riders"]);
    for r in &rows {
        assert_eq!(r.a_first.games() + r.a_second.games(), 8);
        assert_eq!(r.first_mover.games(), 8);
        assert_eq!(r.ruleset, "officers_chess");
    }
    let all = totals(&rows.iter().collect::<Vec<_>>());
    assert_eq!(all.first_mover.games(), 16);
    // The same seeds, the same table.
    let (again, _) = tournament::play(&entries, &armies, ["tactician", "greedy"], 2, 1).unwrap();
    assert_eq!(again.iter().map(|r| r.a_first).collect::<Vec<_>>(), rows.iter().map(|r| r.a_first).collect::<Vec<_>>());
}

#[test]
fn refusals_name_what_is_wrong() {
    let not_mirror = entry("scenarios/grado-keep.oc").err().unwrap();
    assert!(not_mirror.message.contains("is not a mirror scenario: the sides differ in"), "{not_mirror:?}");
    assert!(not_mirror.help.is_some());
    let entries = [entry("tests/fixtures/mirror/ratings.oc").unwrap()];
    let none = tournament::play(&entries, &["Nobody".to_string()], ["greedy", "greedy"], 1, 1).err().unwrap();
    assert!(none.message.contains("--army Nobody: no attacker army of the scenarios is so named"), "{none:?}");
    assert!(none.help.as_deref().is_some_and(|h| h.contains("`Vanguard`")), "{none:?}");
    assert!(tournament::check_ais(["greedy", "nobody"]).unwrap_err().message.contains("no AI `nobody`"));
}
