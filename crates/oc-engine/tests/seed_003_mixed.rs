//! Seed 003 (`std:battlestorm`), units of mixed troop types: "Players are free to organize their
//! units as they please (though the Advanced Rules sometimes penalize units of mixed troop
//! types)." The seed gives no rule. The ruleset's reading: one of the special combat situations
//! (`situations { mixed MixedTroops }`, played with `advanced situations`): a unit with a body of
//! another class or arms joined to it, and each such body, bear MixedTroops (C.E.R. +1, Evasion
//! -1), and may not form a phalanx or closed order where formations are played too.

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, Turn};
use oc_engine::Engine;
use oc_model::{SideId, Verb};

/// The attacker: three braves with their chief Ghor joined to them (a mixed unit), a lone brave;
/// the defender: a brave, and four spearmen with a savage chief joined to them (a mixed unit).
const ARMIES: &str = "army A for Arena attacker {\n\
    unit Braves: Savage { figures 3 items Shortsword }\n\
    unit Ghor: SavageChief { items Shortsword joins Braves }\n\
    unit Lone: Savage { items Shortsword }\n}\n\
    army D for Arena defender {\n\
    unit Foe: Savage { items Shortsword }\n\
    unit Spears: HighElfSpearman { figures 4 items ElvenSpear }\n\
    unit Urka: SavageChief { items Shortsword joins Spears }\n}";

/// Braves (with Ghor) at (4, 2), the lone brave at (4, 0); Foe at (5, 2), the spearmen (with
/// Urka) at (8, 4).
const DEPLOY: [&[(i64, i64)]; 2] = [&[(4, 2), (4, 3), (4, 0)], &[(5, 2), (8, 4), (8, 3)]];

fn compiled(options: &str) -> (Engine, oc_model::BattleMap) {
    field::compiled(&field::map(field::OPEN, "", field::HALVES), &field::arena("std:battlestorm", options, ""), ARMIES)
}

fn hit(b: &Battle, i: usize, from: (i64, i64), target: usize) -> f64 {
    b.attack_forecast(i, from, target, None).unwrap().attacker.hit
}

/// The chance that a body `i` of a unit (which the unit carries into its attacks) hits `target`
/// in contact, each strike.
fn body_hit(engine: &Engine, b: &Battle, i: usize, target: usize) -> f64 {
    let (la, ld) = (b.loadout_of(i, true).unwrap(), b.loadout_of(target, false).unwrap());
    engine.forecast(&la, &ld, 1).unwrap().attacker.hit
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn a_unit_of_mixed_troop_types_strikes_and_guards_worse_as_forecast() {
    // "the Advanced Rules sometimes penalize units of mixed troop types". A brave (C.E.R. 3)
    // striking a brave (Evasion 12) needs 15: 16 faces in 30. Without the situations the mixed
    // unit fights as any.
    let (plain, map) = compiled("");
    let b = arena::battle_seeded(&plain, &map, DEPLOY, 1);
    assert!(close(hit(&b, 3, (5, 2), 0), 16.0 / 30.0), "without the situations nothing changes");
    assert!(close(hit(&b, 0, (4, 2), 3), 16.0 / 30.0));
    let ghor_plain = body_hit(&plain, &b, 1, 3);
    // With them, the braves and Ghor bear MixedTroops: a blow on the braves needs 14 (Evasion
    // 11), 17/30; the braves' own need 16 (C.E.R. 4), 15/30; Ghor's one face fewer than without.
    let (engine, map) = compiled("advanced situations");
    let b = arena::battle_seeded(&engine, &map, DEPLOY, 1);
    let bears = |i: usize| b.loadout_of(i, false).unwrap().statuses.iter().any(|s| s.as_str() == "MixedTroops");
    assert!(bears(0) && bears(1) && bears(4) && bears(5), "the mixed units and their bodies bear it");
    assert!(!bears(2) && !bears(3), "a unit of one troop type does not");
    assert!(close(hit(&b, 3, (5, 2), 0), 17.0 / 30.0), "{}", hit(&b, 3, (5, 2), 0));
    assert!(close(hit(&b, 0, (4, 2), 3), 15.0 / 30.0), "{}", hit(&b, 0, (4, 2), 3));
    assert!(close(body_hit(&engine, &b, 1, 3), ghor_plain - 1.0 / 30.0), "{} {ghor_plain}", body_hit(&engine, &b, 1, 3));
    // A brave of one troop type is struck as before (the lone brave, from (5, 0)).
    assert!(close(hit(&b, 3, (5, 0), 2), 16.0 / 30.0));
    // The battle's exchanges strike as forecast: each of Foe's strikes on the braves hits on 14
    // or more (a 1 never, a 30 always); a 14 hits where it would miss a unit of one type.
    let (mut hits, mut fourteens) = (0, 0);
    for seed in 0..100 {
        let mut b = arena::battle_seeded(&engine, &map, DEPLOY, seed);
        arena::to_act(&mut b, SideId::Defender);
        let (note, rolls) = arena::strike(&mut b, 3, 0);
        assert!(!rolls.is_empty(), "{note}");
        for (roll, hit) in rolls {
            assert_eq!(hit, roll != 1 && roll >= 14, "{note}");
            hits += usize::from(hit);
            fourteens += usize::from(roll == 14);
        }
    }
    assert!(hits > 0 && fourteens > 0, "{hits} {fourteens}");
}

fn form(tag: &str) -> Act {
    Act::Special { verb: Verb::Inflict, target: None, tile: None, from: Some(tag.into()) }
}

/// The defender's spearmen (with Urka) take the formation `tag` before holding where they stand.
fn change(b: &mut Battle, tag: &str) -> Result<(), String> {
    let to = b.units[4].pos;
    b.turn(Turn { unit: 4, before: vec![form(tag)], to: Some(to), ..Default::default() }).map_err(|e| e.to_string())
}

#[test]
fn a_unit_of_mixed_troop_types_may_not_form_a_phalanx_or_closed_order() {
    // "sometimes penalize units of mixed troop types": where the situations and formations are
    // both played, the spearmen with a savage chief among them may not close into a phalanx or
    // closed order; a line they may take. Without the situations they form a phalanx.
    let (engine, map) = compiled("advanced situations, formations");
    for tag in ["FormPhalanx", "FormClosed"] {
        let mut b = arena::battle_seeded(&engine, &map, DEPLOY, 2);
        arena::to_act(&mut b, SideId::Defender);
        let e = change(&mut b, tag).unwrap_err();
        assert!(e.contains(&format!("cannot take {tag} now: a requirement of the action is not met")), "{tag}: {e}");
    }
    let mut b = arena::battle_seeded(&engine, &map, DEPLOY, 2);
    arena::to_act(&mut b, SideId::Defender);
    change(&mut b, "FormLine").unwrap();
    assert!(b.units[4].statuses.iter().any(|s| s.status.as_str() == "InLine"));
    let (engine, map) = compiled("advanced formations");
    let mut b = arena::battle_seeded(&engine, &map, DEPLOY, 2);
    arena::to_act(&mut b, SideId::Defender);
    change(&mut b, "FormPhalanx").unwrap();
    assert!(b.units[4].statuses.iter().any(|s| s.status.as_str() == "Phalanx"));
    assert!(b.log.iter().any(|r| matches!(r, Record::Turn { .. })));
}
