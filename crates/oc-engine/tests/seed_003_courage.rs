//! Seed 003 (`std:battlestorm`), the advanced rule of courage, rout and rally: "Courage: Units
//! need to make a Courage check when they take heavy losses, see friendly units flee, or approach
//! frightening creatures. Failing a Courage roll causes a unit to rout, giving the enemy the
//! opportunity to pursue." Played where the scenario says `advanced courage` ("The advanced rules
//! are intended to be added, one at a time, as the players desire").

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, State, Turn};
use oc_engine::Engine;
use oc_model::SideId;

/// A 10x5 field; the attacker deploys in the west half, the defender in the east half, so the
/// attacker's edge is x = 0 and the defender's x = 9. The scenario plays `advanced`.
fn compiled(advanced: &str, armies: &str) -> (Engine, oc_model::BattleMap) {
    field::compiled(&field::map(field::OPEN, "", field::HALVES), &field::arena("std:battlestorm", advanced, ""), armies)
}

const ON: &str = "advanced courage";

/// The courage lines of the log from `from` on: (unit, note).
fn courage(b: &Battle, from: usize) -> Vec<(usize, String)> {
    b.log[from..]
        .iter()
        .filter_map(|r| if let Record::Courage { unit, note, .. } = r { Some((*unit, note.clone())) } else { None })
        .collect()
}

use arena::{to_act, wait};

/// A chief (Fate 6, Valour 20) facing a savage; the chief's side has a bow far back.
const CHIEF: &str =
    "army A for Arena attacker { unit Ghor: SavageChief { items Shortsword } unit Brave: Savage { items Shortsword } }\n\
                     army D for Arena defender { unit Foe: Savage { items Shortsword } unit Foe2: Savage { items Shortsword } }";

#[test]
fn heavy_losses_make_a_unit_test_and_a_failed_roll_routs_it() {
    // "Units need to make a Courage check when they take heavy losses ... Failing a Courage roll
    // causes a unit to rout". Reading: heavy losses are half its strength gone (`self.hp * 2 <=
    // max_hp`); the chief (Fate 6) tests at 3 Fate or less, a d30 of at most 20 passing.
    let (engine, map) = compiled(ON, CHIEF);
    let (mut passed, mut failed) = (0, 0);
    for seed in 0..40 {
        let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2), (0, 0)], &[(5, 2), (9, 4)]], seed);
        to_act(&mut b, SideId::Defender);
        // The foe's blows have left the chief at half his Fate.
        b.state.units[0].hp = 3;
        let from = b.log.len();
        // The other foe waits: the activation's end makes the check.
        b.turn(wait(3)).unwrap();
        let lines = courage(&b, from);
        assert_eq!(lines.len(), 1, "{lines:?}");
        let (unit, note) = &lines[0];
        assert_eq!(*unit, 0);
        let roll: i64 = note.split("rolled ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        if roll <= 20 {
            assert_eq!(note, &format!("passes its courage check for its losses (rolled {roll} against 20)"));
            assert!(!b.routing(0));
            passed += 1;
        } else {
            assert_eq!(note, &format!("fails its courage check for its losses (rolled {roll} against 20) and routs"));
            assert!(b.routing(0));
            failed += 1;
        }
        // Tested once for these losses: the next activation's end tests nobody again.
        let from = b.log.len();
        to_act(&mut b, SideId::Defender);
        if b.outcome.is_none() && !b.may_act(SideId::Defender).is_empty() {
            b.turn(wait(*b.may_act(SideId::Defender).last().unwrap())).unwrap();
        }
        assert!(courage(&b, from).iter().all(|(u, _)| *u != 0), "{:?}", courage(&b, from));
    }
    assert!(passed > 0 && failed > 0, "{passed} {failed}");
}

#[test]
fn a_routing_unit_flees_leaves_the_table_and_counts_as_routed() {
    // "Failing a Courage roll causes a unit to rout"; the object is "to drive the opposing army
    // from the table". A routing unit flees toward its own edge as far as it moves (4 tiles)
    // and, on the edge, leaves the table: routed.
    let (engine, map) = compiled(ON, CHIEF);
    let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2), (0, 0)], &[(8, 2), (9, 4)]], 3);
    assert_eq!(b.home_edge(SideId::Attacker), (0, 0));
    assert_eq!(b.home_edge(SideId::Defender), (0, 9));
    b.state.units[0].morale.routing = true;
    to_act(&mut b, SideId::Attacker);
    // A routing unit cannot attack.
    let err = b.turn(Turn { unit: 0, to: Some((7, 2)), act: Act::Attack { target: 2 }, ..Default::default() }).unwrap_err();
    assert!(err.to_string().contains("is routing (courage)"), "{err}");
    b.turn(wait(0)).unwrap();
    let note = arena::last_note(&b);
    assert_eq!(note, "flees to (0, 2); leaves the table (routed)");
    assert_eq!(b.units[0].state, State::Routed);
    // Counted as routed, as a unit felled is.
    let lost = b.units.iter().filter(|u| u.side == SideId::Attacker && u.state == State::Routed).count();
    assert_eq!(lost, 1);
}

#[test]
fn an_army_whose_every_unit_routs_surrenders() {
    // The object is "to drive the opposing army from the table or to receive their surrender".
    // Reading (`surrender` in the courage block): an army whose every unit still on the table
    // is routing surrenders, and all of them count as routed, so the enemy's `win rout all`
    // holds at once.
    let (engine, map) = compiled(ON, CHIEF);
    let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2), (0, 0)], &[(8, 2), (9, 4)]], 3);
    b.state.units[0].morale.routing = true;
    to_act(&mut b, SideId::Defender);
    // One of two routing: no surrender; the defender's turn ends with the chief still there.
    let k = *b.may_act(SideId::Defender).last().unwrap();
    b.turn(wait(k)).unwrap();
    assert_eq!(b.units[0].state, State::Ready);
    assert!(b.outcome.is_none());
    // Both routing: the savages surrender when the next activation ends.
    b.state.units[1].morale.routing = true;
    to_act(&mut b, SideId::Defender);
    let k = *b.may_act(SideId::Defender).last().unwrap();
    b.turn(wait(k)).unwrap();
    let line = b.log.iter().rev().find_map(|r| match r {
        Record::Courage { note, routed, .. } if note.starts_with("surrenders") => Some((note.clone(), routed.clone())),
        _ => None,
    });
    let (note, routed) = line.expect("a surrender is logged");
    assert_eq!(note, "surrenders: every unit of the attacker still on the table is routing (2 leave it, routed)");
    assert_eq!(routed, vec![0, 1]);
    assert!(b.units[..2].iter().all(|u| u.state == State::Routed));
    assert_eq!(b.outcome.as_ref().map(|o| o.0), Some(oc_model::Outcome::Win(SideId::Defender)), "{:?}", b.outcome);
}

#[test]
fn a_rally_restores_a_routing_unit() {
    // The action "rally [attempt to restore a routing unit]": the same roll (at most 20 for the
    // chief); passed, the rout ends and the unit stays; failed, it flees all the same.
    let (engine, map) = compiled(ON, CHIEF);
    let (mut rallied, mut fled) = (0, 0);
    for seed in 0..30 {
        let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2), (0, 0)], &[(8, 2), (9, 4)]], seed);
        b.state.units[0].morale.routing = true;
        to_act(&mut b, SideId::Attacker);
        b.turn(Turn { unit: 0, act: Act::Rally, ..Default::default() }).unwrap();
        let note = arena::last_note(&b);
        if note.starts_with("rallies (rolled ") {
            assert!(note.ends_with("against 20) and stands"), "{note}");
            assert!(!b.routing(0));
            assert_eq!(b.units[0].pos, (4, 2));
            rallied += 1;
        } else {
            assert!(note.starts_with("fails to rally (rolled ") && note.contains("flees to (0, 2)"), "{note}");
            fled += 1;
        }
    }
    assert!(rallied > 0 && fled > 0, "{rallied} {fled}");
    // A unit that is not routing does not rally.
    let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2), (0, 0)], &[(8, 2), (9, 4)]], 1);
    to_act(&mut b, SideId::Attacker);
    assert!(b.turn(Turn { unit: 0, act: Act::Rally, ..Default::default() }).unwrap_err().to_string().contains("not routing"));
}

#[test]
fn a_friendly_unit_routing_nearby_makes_a_unit_test() {
    // "... see friendly units flee". Reading: a friendly unit routing within 1 tile.
    let (engine, map) = compiled(ON, CHIEF);
    let mut seen = 0;
    for seed in 0..40 {
        // The chief at (3, 2), the brave beside him at (3, 3).
        let mut b = arena::battle_seeded(&engine, &map, [&[(3, 2), (3, 3)], &[(8, 2), (9, 4)]], seed);
        to_act(&mut b, SideId::Defender);
        b.state.units[0].hp = 3;
        let from = b.log.len();
        b.turn(wait(3)).unwrap();
        let lines = courage(&b, from);
        // (Both routing, the savages surrender: the chief left the table routing.)
        if b.state.units[0].morale.routing {
            assert!(lines.iter().any(|(u, n)| *u == 1 && n.contains("courage check as Ghor routs nearby (rolled ")), "{lines:?}");
            seen += 1;
        } else {
            assert!(lines.iter().all(|(u, _)| *u == 0), "{lines:?}");
        }
    }
    assert!(seen > 0);
}

#[test]
fn a_frightening_creature_makes_units_that_come_near_test_once() {
    // "... or approach frightening creatures": the wyvern is Frightening; a savage that comes
    // within 1 tile of it tests, once.
    let armies = "army A for Arena attacker { unit Brave: Savage { items Shortsword } unit Brave2: Savage { items Shortsword } }\n\
                  army D for Arena defender { unit Wyvern: PoisonWyvern { items WyvernBite } unit Foe: Savage { items Shortsword } }";
    let (engine, map) = compiled(ON, armies);
    let mut b = arena::battle_seeded(&engine, &map, [&[(2, 2), (0, 0)], &[(5, 2), (9, 4)]], 5);
    to_act(&mut b, SideId::Attacker);
    let from = b.log.len();
    b.turn(Turn { unit: 0, to: Some((4, 2)), ..Default::default() }).unwrap();
    // The brave came too near the wyvern (the ruleset's `interrupt`): it declines to activate
    // first, and the brave's activation ends.
    assert_eq!(b.answering(), Some(2));
    b.turn(Turn { unit: 2, act: oc_engine::battle::Act::Decline, ..Default::default() }).unwrap();
    let lines = courage(&b, from);
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(lines[0].1.contains("courage check facing Wyvern (rolled "), "{lines:?}");
    assert!(lines[0].1.contains("against 20)"), "{lines:?}");
    // Once: the next activation's end does not test it again for the same wyvern.
    let from = b.log.len();
    to_act(&mut b, SideId::Defender);
    let k = *b.may_act(SideId::Defender).last().unwrap();
    b.turn(wait(k)).unwrap();
    assert!(courage(&b, from).iter().all(|(u, n)| *u != 0 || !n.contains("Wyvern")));
}

#[test]
fn without_advanced_courage_nobody_tests() {
    // The advanced rules are "added ... as the players desire": without `advanced courage` the
    // same losses make no check, and the log has no courage line.
    let (engine, map) = compiled("", CHIEF);
    for seed in 0..10 {
        let mut b = arena::battle_seeded(&engine, &map, [&[(3, 2), (3, 3)], &[(8, 2), (9, 4)]], seed);
        assert!(!b.plays_courage());
        to_act(&mut b, SideId::Defender);
        b.state.units[0].hp = 1;
        b.turn(wait(3)).unwrap();
        assert!(courage(&b, 0).is_empty());
        assert!(!b.routing(0));
    }
}

#[test]
fn pursuit_strikes_a_unit_fleeing_from_contact() {
    // "... giving the enemy the opportunity to pursue". Reading: each enemy in contact strikes
    // the fleeing unit once as it goes.
    let (engine, map) = compiled(ON, CHIEF);
    let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2), (0, 0)], &[(5, 2), (9, 4)]], 2);
    b.state.units[0].morale.routing = true;
    to_act(&mut b, SideId::Attacker);
    b.turn(wait(0)).unwrap();
    let note = arena::last_note(&b);
    assert!(note.starts_with("pursued: free attack by Foe on Ghor: "), "{note}");
}
