//! `oc_play::reach`: the squares a unit reaches from a square (its own at no cost, none beyond
//! its movement) and the rounds to an objective, from the engine's movement rules; a class that
//! cannot stand there is refused by name.

mod common;

use oc_play::reach;

#[test]
fn reach_and_heat_of_a_shipped_map() {
    let setup = common::setup("scenarios/grado-keep.oc", None);
    let map = &setup.atlas;
    let from = map.tiles().find(|t| reach::reach(&setup.engine, map, "Cavalier", *t).is_ok()).unwrap();
    let overlay = reach::reach(&setup.engine, map, "Cavalier", from).unwrap();
    assert_eq!(overlay.origin, Some(from));
    assert!(overlay.values.iter().any(|(t, cost)| *t == from && *cost == 0), "the origin at no cost");
    assert!(overlay.values.len() > 1 && overlay.values.iter().all(|(_, c)| *c <= 7), "{:?}", overlay.values);
    assert!(overlay.title.starts_with("Reach of a Cavalier from"), "{}", overlay.title);
    let heat = reach::heat(&setup.engine, map, &setup.engine.rules, None, oc_atlas::Side::Attacker).unwrap();
    assert!(heat.values.iter().any(|(_, r)| *r == 0), "the objective itself is 0 rounds away");
    let nobody = reach::reach(&setup.engine, map, "Nobody", from).unwrap_err();
    assert!(nobody.message.starts_with("a Nobody cannot stand on"), "{nobody:?}");
}
