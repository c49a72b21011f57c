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

/// `oc render`'s overlay request: a class unknown to the rules is refused as the input's
/// problem with a suggestion, a square off the map as a usage one; the project's engine is
/// asked only for a class the map's rules lack.
#[test]
fn an_overlay_request_is_checked_before_it_is_drawn() {
    let setup = common::setup("scenarios/grado-keep.oc", None);
    let (map, rules) = (&setup.atlas, &setup.engine.rules);
    let ask = |at: &'static str, class: &'static str| reach::Ask::Reach { at, class };
    match reach::overlay(&setup.engine, map, rules, &ask("1,1", "Cavaler"), "the map's rules") {
        Err(reach::Refused::Input(r)) => {
            assert!(r.message.contains("no class `Cavaler` in the map's rules; did you mean `Cavalier`?"), "{r:?}");
            assert!(r.help.is_some());
        }
        other => panic!("{:?}", other.map(|o| o.title)),
    }
    match reach::overlay(&setup.engine, map, rules, &ask("999,1", "Cavalier"), "the map's rules") {
        Err(reach::Refused::Usage(r)) => assert!(r.message.starts_with("--reach 999,1: give a square of the map"), "{r:?}"),
        other => panic!("{:?}", other.map(|o| o.title)),
    }
    let heat = reach::Ask::Heat { side: oc_atlas::Side::Defender, class: None };
    assert!(reach::overlay(&setup.engine, map, rules, &heat, "the map's rules").is_ok());
    let asked = std::cell::Cell::new(0);
    let project = || {
        asked.set(asked.get() + 1);
        None
    };
    assert!(reach::engine_for(rules, Some("Cavalier"), &project).is_ok());
    assert_eq!(asked.get(), 0, "a class of the map's rules needs no project");
    assert!(reach::engine_for(rules, Some("HouseClass"), &project).is_ok());
    assert_eq!(asked.get(), 1);
    assert_eq!(reach::tile(" 3, 4"), Some(oc_atlas::Tile { x: 3, y: 4 }));
    assert_eq!(reach::tile("3"), None);
}
