//! Recalled openings play every battle as the AIs that work each decision out play it: the
//! shipped Grado Keep (no fog, the tactician's turns), the Woodcutter's Night (fog: the planner's
//! memory of what it saw, its look-ahead under fog), the Queen's Hall (the planner without fog)
//! and Grado Keep again with `searcher` and with `greedy`, several battles on one thread, the
//! logs compared record by record; and the later battles recall their openings.

use crate::ai::{by_name, by_name_recalling, Sides};
use crate::battle::{self, Controller};

fn field(scenario: &str, map: &str) -> (crate::Engine, oc_model::BattleMap) {
    let read =
        |path: &str| std::fs::read_to_string(format!("{}/../../{path}", env!("CARGO_MANIFEST_DIR"))).expect("a shipped file");
    crate::testing::field_named(("s.oc", &read(scenario)), (&format!("maps/{map}"), &read(&format!("scenarios/maps/{map}"))))
}

/// What makes an AI by its name (`by_name`, `by_name_recalling`).
type Make = fn(&str) -> Option<Box<dyn Controller + Send>>;

/// The field's first scenario, and the first army written for each side.
fn scenario(engine: &crate::Engine) -> (&oc_model::Scenario, [&oc_model::Army; 2]) {
    let s = engine.rules.scenarios.first().expect("a scenario");
    let army = |side: oc_model::SideId| engine.rules.armies.iter().find(|a| a.side == side).expect("an army");
    (s, [army(oc_model::SideId::Attacker), army(oc_model::SideId::Defender)])
}

/// Plays a battle of the field's first scenario from each of `seeds`, AI `ai` on both sides,
/// each made by `make`; the logs, and the decisions recalled meanwhile.
fn logs(
    (engine, map): &(crate::Engine, oc_model::BattleMap),
    seeds: &[u64],
    (ai, make): (&str, Make),
) -> (Vec<Vec<battle::Record>>, u64) {
    let (s, armies) = scenario(engine);
    let make = || make(ai).expect("an AI");
    let before = super::hits();
    let mut out = Vec::new();
    for &seed in seeds {
        let mut sides = Sides::new(make(), make());
        let (_, records) = battle::play(engine, s, map, armies, seed, &mut sides).expect("the battle plays");
        out.push(records);
    }
    (out, super::hits() - before)
}

fn same_battles(scenario: &str, map: &str, seeds: &[u64], ai: &str) {
    let games = seeds.len() as u64;
    let field = field(scenario, map);
    let (worked, none) = logs(&field, seeds, (ai, by_name));
    assert_eq!(none, 0, "{scenario}: AIs made without recall recall nothing");
    let (recalled, hits) = logs(&field, seeds, (ai, by_name_recalling));
    for (g, (a, b)) in worked.iter().zip(&recalled).enumerate() {
        assert_eq!(a.len(), b.len(), "{scenario}: battle {} lasts as long", g + 1);
        for (k, (x, y)) in a.iter().zip(b).enumerate() {
            assert_eq!(x, y, "{scenario}: battle {}, record {k}", g + 1);
        }
    }
    // Each battle after the first recalls the opening the others played before it (the units'
    // first moves, before any blow: a dozen decisions and more).
    assert!(hits >= 8 * (games - 1), "{scenario}: {hits} decisions recalled in {games} battles");
}

#[test]
fn recalled_openings_play_grado_keep_as_the_tactician_works_it_out() {
    same_battles("scenarios/grado-keep.oc", "grado-keep.map.toml", &[1, 2, 3], "tactician");
}

#[test]
fn recalled_openings_play_the_night_as_the_planner_works_it_out() {
    same_battles("scenarios/zaha-woods-night.oc", "zaha-woods.map.toml", &[1, 2, 3], "planner");
}

#[test]
fn recalled_openings_play_the_queens_hall_as_the_planner_works_it_out() {
    same_battles("scenarios/jehanna-hall.oc", "jehanna-hall.map.toml", &[1, 2, 3], "planner");
}

/// `searcher` searches some of Grado Keep's opening decisions (its copies play the taking
/// attacker's turns as the tactician, through its taker's memo): 6 of the 56 it recalled in
/// these battles, when this test was written. The book takes the taker's turns to be functions
/// of the copy they are chosen in, as its memo does: every memo hit is checked against a fresh
/// choice here.
#[test]
fn recalled_openings_play_grado_keep_as_the_searcher_works_it_out() {
    crate::ai::memo::CHECK_EVERY_HIT.with(|c| c.set(true));
    same_battles("scenarios/grado-keep.oc", "grado-keep.map.toml", &[1, 2, 3], "searcher");
    crate::ai::memo::CHECK_EVERY_HIT.with(|c| c.set(false));
}

#[test]
fn recalled_openings_play_grado_keep_as_greedy_works_it_out() {
    same_battles("scenarios/grado-keep.oc", "grado-keep.map.toml", &[1, 2, 3], "greedy");
}

/// A copy going on with a played battle's dice is noted (a decision that made one may have read
/// the dice, and is not kept); a look-ahead's copy rolling dice of its own seed is not, nor are
/// its own copies.
#[test]
fn copies_carrying_a_played_battles_dice_are_noted_and_a_look_aheads_are_not() {
    let (engine, map) = field("scenarios/grado-keep.oc", "grado-keep.map.toml");
    let (s, armies) = scenario(&engine);
    let b = battle::Battle::set_up(&engine, s, &map, armies, 1).expect("the battle starts");
    let before = crate::dice::carried();
    let look = b.fork(Some(7));
    let again = look.fork(None);
    let _ = again.fork(None);
    assert_eq!(crate::dice::carried(), before, "a look-ahead's copies roll dice of their own");
    let carried = b.fork(None);
    let _ = carried.fork(None);
    assert_eq!(crate::dice::carried(), before + 2, "copies going on with the battle's dice");
}
