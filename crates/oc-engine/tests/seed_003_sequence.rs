//! Seed 003 (`std:battlestorm`), "The Sequence of Play": "A unit may take more than one Action
//! per activation round, depending on the rules for the different actions involved." and "An
//! activated unit must perform its actions according to a strict sequence of play: 1. Search
//! 2. Declare Melee Attacks 3. Change Formation 4. Move 5. Check for Fear 6. Resolve Combat
//! 7. Resolve routs and pursuits". A tag's action with a `sequence` step is taken before the move
//! (`Turn::before`), in its step's order, in the same activation as the move and the attack.

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, Turn};
use oc_engine::Engine;
use oc_model::{SideId, Verb};

/// Two actions of the sequence, steps 1 and 3 (the test's own: the ruleset's search and
/// formations are tags of the same kind), on a bow-woman; savages to shoot at.
const ARMIES: &str = "status Alert { evasion += 1 }\n\
    status Steady { cer -= 3 }\n\
    tag Scout on class { action { target self sequence 1 inflict(self, Alert) } }\n\
    tag Drill on class { action { target self sequence 3 inflict(self, Steady) } }\n\
    class DrilledBow { ratings { cer 6 evasion 11 absorption d4 } wields Bows tags Common, Scout, Drill cost 21 kit { Longbow } }\n\
    class DrilledBrave { ratings { cer 3 evasion 12 absorption 0 } wields Swords tags Common, Scout, Drill cost 9 kit { Shortsword } }\n\
    army A for Arena attacker { unit Bow: DrilledBow { items Longbow } unit A1: DrilledBrave { items Shortsword } }\n\
    army D for Arena defender { unit D0: Savage { items Shortsword } unit D1: Savage { items Shortsword } }";
const DEPLOY: [&[(i64, i64)]; 2] = [&[(1, 2), (0, 0)], &[(8, 2), (9, 4)]];

fn compiled() -> (Engine, oc_model::BattleMap) {
    field::compiled(&field::map(field::OPEN, "", field::ANYWHERE), &field::arena("std:battlestorm", "", ""), ARMIES)
}

fn step(tag: &str) -> Act {
    Act::Special { verb: Verb::Inflict, target: None, tile: None, from: Some(tag.into()) }
}

/// The bow-woman's turn: `before` the move, moving to `to`, then `act`.
fn turn(before: &[&str], to: Option<(i64, i64)>, act: Act) -> Turn {
    Turn { unit: 0, before: before.iter().map(|t| step(t)).collect(), to, act, ..Default::default() }
}

fn last_note(b: &Battle) -> String {
    b.log.iter().rev().find_map(|r| if let Record::Turn { note, .. } = r { Some(note.clone()) } else { None }).unwrap_or_default()
}

#[test]
fn an_activation_takes_its_sequence_before_it_moves_and_shoots() {
    // "A unit may take more than one Action per activation round": Scout (step 1) and Drill
    // (step 3), then the move (step 4), then the shot, all in one activation. Drill's C.E.R. -3
    // acts inside the shot's exchange: each strike hits on 15 or more (C.E.R. 3 + Evasion 12 at
    // 3 tiles, 9 inches, within the longbow's effective 18), where without it 18 or more.
    let (engine, map) = compiled();
    let (mut hits, mut low) = (0, 0);
    for seed in 0..24 {
        let mut b = arena::battle_seeded(&engine, &map, DEPLOY, seed);
        arena::to_act(&mut b, SideId::Attacker);
        let plain = b.attack_forecast(0, (5, 2), 2, None).unwrap().attacker.hit;
        assert!((plain - 13.0 / 30.0).abs() < 1e-12, "{plain}");
        b.turn(turn(&["Scout", "Drill"], Some((5, 2)), Act::Attack { target: 2 })).unwrap();
        let note = last_note(&b);
        let (alert, steady) = (note.find("Alert").unwrap(), note.find("Steady").unwrap());
        assert!(alert < steady && note.contains("attack"), "{note}");
        let u = &b.units[0];
        assert!(u.activated && u.pos == (5, 2), "one activation: {note}");
        assert!(u.statuses.iter().any(|s| *s.status == *"Alert") && u.statuses.iter().any(|s| *s.status == *"Steady"));
        // After the sequence, the battle's own forecast of the shot counts Steady.
        if b.units[2].hp > 0 {
            let f = b.attack_forecast(0, (5, 2), 2, None).unwrap().attacker.hit;
            assert!((f - 16.0 / 30.0).abs() < 1e-12, "{f}");
        }
        for s in note.split(", ") {
            let mut w = s.rsplit(": ").next().unwrap().split(' ');
            if w.next() != Some("attack") {
                continue;
            }
            let roll: i64 = w.next().unwrap().parse().unwrap();
            let hit = w.next().is_some_and(|x| x != "miss");
            assert_eq!(hit, roll >= 15 && roll != 1, "{note}");
            hits += usize::from(hit);
            low += usize::from(hit && roll < 18);
        }
    }
    assert!(hits > 0 && low > 0, "{hits} {low}");
}

#[test]
fn the_sequence_is_strict() {
    // "An activated unit must perform its actions according to a strict sequence of play": step
    // 3 before step 1 is refused, as is a step of the sequence after the move, or an attack
    // before it; a refused turn changes nothing.
    let (engine, map) = compiled();
    let mut b = arena::battle_seeded(&engine, &map, DEPLOY, 1);
    arena::to_act(&mut b, SideId::Attacker);
    let log = b.log.len();
    let e = b.turn(turn(&["Drill", "Scout"], Some((5, 2)), Act::Wait)).unwrap_err();
    assert!(e.to_string().contains("Scout (step 1) cannot follow Drill (step 3)"), "{e}");
    let e = b.turn(turn(&["Scout"], Some((5, 2)), step("Drill"))).unwrap_err();
    assert!(e.to_string().contains("Drill is step 3 of the sequence of play, before the move"), "{e}");
    let e = b.turn(turn(&["Drill"], None, step("Scout"))).unwrap_err();
    assert!(e.to_string().contains("Scout (step 1) cannot follow Drill (step 3)"), "{e}");
    let e = b.turn(Turn { before: vec![Act::Attack { target: 2 }], ..turn(&[], None, Act::Wait) }).unwrap_err();
    assert!(e.to_string().contains("only the actions of the sequence of play before its move"), "{e}");
    assert_eq!(b.log.len(), log);
    assert!(b.units[0].statuses.is_empty() && !b.units[0].activated && b.units[0].pos == (1, 2));
    // Taken alone as the act of a turn that does not move: the old single act, still allowed.
    b.turn(turn(&["Scout"], None, step("Drill"))).unwrap();
    assert!(b.units[0].activated && b.units[0].statuses.len() == 2, "{}", last_note(&b));
}

#[test]
fn a_declaration_comes_after_the_search_and_before_the_change_of_formation() {
    // "1. Search 2. Declare Melee Attacks 3. Change Formation 4. Move" (`declare_step = 2`):
    // the brave's melee attack after a move is declared once Scout (step 1) is taken; Drill
    // (step 3) waits with the move for the target's answer, and is taken, in order, before
    // the move and the attack.
    let (engine, map) = compiled();
    let mut b = arena::battle_seeded(&engine, &map, [&[(1, 2), (5, 2)], &[(8, 2), (9, 4)]], 2);
    arena::to_act(&mut b, SideId::Attacker);
    let brave = Turn {
        unit: 1,
        before: vec![step("Scout"), step("Drill")],
        to: Some((7, 2)),
        act: Act::Attack { target: 2 },
        ..Default::default()
    };
    // Out of order, refused whole, as any turn.
    let e = b.turn(Turn { before: vec![step("Drill"), step("Scout")], ..brave.clone() }).unwrap_err();
    assert!(e.to_string().contains("Scout (step 1) cannot follow Drill (step 3)"), "{e}");
    assert!(b.units[1].statuses.is_empty() && b.answering().is_none());
    b.turn(brave).unwrap();
    let note = last_note(&b);
    assert!(note.contains("Alert") && !note.contains("Steady"), "the search before the declaration, not the formation: {note}");
    assert!(note.ends_with("declares an attack on D0 before it moves, which may activate in answer"), "{note}");
    let has = |b: &Battle, s: &str| b.units[1].statuses.iter().any(|a| *a.status == *s);
    assert!(has(&b, "Alert") && !has(&b, "Steady") && b.units[1].pos == (5, 2));
    // Declined: Drill, then the move, which comes too near D0 (it has not activated yet);
    // declined again, the attack.
    let resolved = |b: &Battle| {
        b.log.iter().rev().find_map(|r| if let Record::Resolved { note, .. } = r { Some(note.clone()) } else { None }).unwrap()
    };
    b.turn(Turn { unit: 2, act: Act::Decline, ..Default::default() }).unwrap();
    let note = resolved(&b);
    let (steady, near) = (note.find("inflicts Steady").expect(&note), note.find("comes too near D0").expect(&note));
    assert!(steady < near, "{note}");
    assert!(has(&b, "Steady") && b.units[1].pos == (7, 2), "{note}");
    b.turn(Turn { unit: 2, act: Act::Decline, ..Default::default() }).unwrap();
    assert!(resolved(&b).contains("A1 attacks D0"), "{}", resolved(&b));
}
