//! Seed 003 (`std:battlestorm`), the advanced rule of formations: "A units may now organize
//! itself into a mob, phalanx, or line, open or closed formation. Formations provide bonuses (and
//! penalties) to movement and combat." Played where the scenario says `advanced formations`;
//! changing formation is step 3 of the sequence of play ("3. Change Formation 4. Move"), taken
//! before the move in the same activation. The numbers are the ruleset's readings.

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, Turn};
use oc_engine::Engine;
use oc_model::{SideId, Verb};

/// A spearman and a savage against a bow-woman and a savage.
const ARMIES: &str =
    "army A for Arena attacker { unit Spear: HighElfSpearman { items ElvenSpear } unit A1: Savage { items Shortsword } }\n\
    army D for Arena defender { unit Bow: ElvenBowWoman { items Longbow } unit D1: Savage { items Shortsword } }";
const DEPLOY: [&[(i64, i64)]; 2] = [&[(1, 2), (1, 0)], &[(9, 2), (6, 2)]];

fn compiled(options: &str) -> (Engine, oc_model::BattleMap) {
    field::compiled(&field::map(field::OPEN, "", field::ANYWHERE), &field::arena("std:battlestorm", options, ""), ARMIES)
}

fn form(tag: &str) -> Act {
    Act::Special { verb: Verb::Inflict, target: None, tile: None, from: Some(tag.into()) }
}

/// Unit `unit` changes formation (`tag`) before it moves to `to`, and holds.
fn change(unit: usize, tag: &str, to: (i64, i64)) -> Turn {
    Turn { unit, before: vec![form(tag)], to: Some(to), ..Default::default() }
}

fn hit(b: &Battle, i: usize, from: (i64, i64), target: usize) -> f64 {
    b.attack_forecast(i, from, target, None).unwrap().attacker.hit
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

fn bears(b: &Battle, i: usize) -> Vec<String> {
    b.units[i].statuses.iter().map(|s| s.status.to_string()).collect()
}

/// Everyone still to act this round waits, until the next round begins.
fn end_round(b: &mut Battle) {
    let round = b.round;
    while b.round == round && b.outcome.is_none() {
        let k = *b.may_act(b.to_act).last().unwrap();
        b.turn(arena::wait(k)).unwrap();
    }
}

#[test]
fn without_advanced_formations_no_unit_changes_formation() {
    let (engine, map) = compiled("");
    let mut b = arena::battle_seeded(&engine, &map, DEPLOY, 1);
    arena::to_act(&mut b, SideId::Attacker);
    let e = b.turn(change(0, "FormPhalanx", (3, 2))).unwrap_err();
    assert!(e.to_string().contains("no step in the sequence of play"), "{e}");
    assert!(b.actions(0).iter().all(|a| !a.tag.starts_with("Form")));
}

#[test]
fn a_phalanx_taken_before_the_move_slows_it_and_turns_blows_aside() {
    // "Formations provide bonuses (and penalties) to movement and combat": the spearman forms a
    // phalanx (step 3) and moves (step 4) in one activation, at the phalanx's pace (movement 4 - 2:
    // 3 tiles refused, 2 taken). A savage then hits it on 18 or more (C.E.R. 3 + Evasion 12 + 3),
    // 13/30 in the forecast where 16/30 before, and each of its strikes as forecast.
    let (engine, map) = compiled("advanced formations");
    let (mut hits, mut low) = (0, 0);
    for seed in 0..24 {
        let mut b = arena::battle_seeded(&engine, &map, DEPLOY, seed);
        assert!(close(hit(&b, 3, (2, 2), 0), 16.0 / 30.0));
        arena::to_act(&mut b, SideId::Attacker);
        let e = b.turn(change(0, "FormPhalanx", (4, 2))).unwrap_err();
        assert!(e.to_string().contains("cannot reach"), "{e}");
        b.turn(change(0, "FormPhalanx", (3, 2))).unwrap();
        assert_eq!((b.units[0].pos, bears(&b, 0)), ((3, 2), vec!["Phalanx".to_string()]));
        assert!(close(hit(&b, 3, (4, 2), 0), 13.0 / 30.0));
        end_round(&mut b);
        arena::to_act(&mut b, SideId::Defender);
        if b.units[3].activated {
            continue;
        }
        let from = b.log.len();
        b.turn(Turn { unit: 3, to: Some((4, 2)), act: Act::Attack { target: 0 }, ..Default::default() }).unwrap();
        while b.answering() == Some(0) {
            b.turn(Turn { unit: 0, act: Act::Decline, ..Default::default() }).unwrap();
        }
        let note = b.log[from..]
            .iter()
            .filter_map(|r| match r {
                Record::Turn { note, .. } | Record::Resolved { note, .. } => Some(note.clone()),
                _ => None,
            })
            .collect::<Vec<_>>()
            .join(" | ");
        for s in note.split(", ") {
            let mut w = s.rsplit(": ").next().unwrap().split(' ');
            if w.next() != Some("attack") {
                continue;
            }
            let roll: i64 = w.next().unwrap().parse().unwrap();
            let struck = w.next().is_some_and(|x| x != "miss");
            assert_eq!(struck, roll >= 18 && roll != 1, "{note}");
            hits += usize::from(struck);
            low += usize::from(!struck && roll >= 15);
        }
    }
    assert!(hits > 0 && low > 0, "{hits} {low}");
}

#[test]
fn formations_exclude_one_another_and_open_order_scatters_shots() {
    // "a mob, phalanx, or line, open or closed formation": one at a time. A savage cannot form a
    // phalanx (reading: spears, pikes and lances only); in a mob a longbow at 4 tiles hits it on
    // 16 or more (C.E.R. 6 + Evasion 12 - 2), in open order (the mob left) on 21 or more (Evasion
    // -1, shots +4), where 18 or more in no formation; open order moves 5 tiles.
    let (engine, map) = compiled("advanced formations");
    let played = (0..8).filter(|seed| mob_then_open_order(&engine, &map, *seed)).count();
    assert!(played > 0);
}

/// The savage's mob then open order, over two rounds; false where the roll-offs leave it no
/// activation of its own in the second round (the other side's last unit waits first).
fn mob_then_open_order(engine: &Engine, map: &oc_model::BattleMap, seed: u64) -> bool {
    let mut b = arena::battle_seeded(engine, map, DEPLOY, seed);
    arena::to_act(&mut b, SideId::Attacker);
    b.state.units[1].pos = (7, 0);
    assert!(close(hit(&b, 2, (9, 2), 1), 13.0 / 30.0));
    b.state.units[1].pos = (1, 0);
    let e = b.turn(change(1, "FormPhalanx", (1, 0))).unwrap_err();
    assert!(e.to_string().contains("requirement"), "{e}");
    b.turn(change(1, "FormMob", (5, 0))).unwrap();
    assert_eq!(bears(&b, 1), vec!["Mob".to_string()]);
    b.state.units[1].pos = (7, 0);
    assert!(close(hit(&b, 2, (9, 2), 1), 15.0 / 30.0));
    end_round(&mut b);
    arena::to_act(&mut b, SideId::Attacker);
    if b.units[1].activated {
        return false;
    }
    b.state.units[1].pos = (1, 4);
    b.turn(change(1, "FormOpen", (6, 4))).unwrap();
    assert_eq!(bears(&b, 1), vec!["OpenOrder".to_string()]);
    let note = b.log.iter().rev().find_map(|r| if let Record::Turn { note, .. } = r { Some(note.clone()) } else { None });
    assert_eq!(note.as_deref(), Some("A1 inflicts OpenOrder; cures A1 of Mob; waits"));
    b.state.units[1].pos = (7, 0);
    assert!(close(hit(&b, 2, (9, 2), 1), 10.0 / 30.0));
    // Already in open order: the same formation again is refused.
    end_round(&mut b);
    arena::to_act(&mut b, SideId::Attacker);
    if !b.units[1].activated {
        let e = b.turn(change(1, "FormOpen", (6, 3))).unwrap_err();
        assert!(e.to_string().contains("requirement"), "{e}");
    }
    true
}

/// Narube (`scenarios/battlestorm-narube.oc`) with `advanced formations` too, played by `ai`:
/// each turn's steps before the move (by tag), and whether the battle ended.
fn narube_with_formations(ai: &str, seed: u64) -> (Vec<String>, bool) {
    let (engine, map) = field::narube(|s| s.replace("advanced courage,", "advanced formations, courage,"));
    assert!(engine.rules.scenarios[0].advanced.iter().any(|a| a == "formations"));
    let s = &engine.rules.scenarios[0];
    let armies = field::armies(&engine);
    let mut ai = oc_engine::ai::by_name(ai).unwrap();
    let (result, records) = oc_engine::battle::play(&engine, s, &map, armies, seed, ai.as_mut()).unwrap();
    let steps = records
        .iter()
        .filter_map(|r| match r {
            Record::Turn { turn, .. } => Some(turn.before.iter()),
            _ => None,
        })
        .flatten()
        .filter_map(|a| if let Act::Special { from: Some(tag), .. } = a { Some(tag.to_string()) } else { None })
        .collect();
    let _ = result;
    (steps, records.iter().any(|r| matches!(r, Record::End { .. })))
}

#[test]
fn the_ais_change_formation_where_it_plainly_helps() {
    // "3. Change Formation" as the AIs take it: before the move, a formation that raises the
    // unit's chance to hit what it attacks without raising its target's chance to hit it, or,
    // not attacking, lowers the nearest enemy's chance to hit it without lowering its own.
    for ai in ["greedy", "tactician"] {
        let (steps, ended) = narube_with_formations(ai, 5);
        assert!(ended, "{ai}");
        assert!(steps.iter().any(|s| s.starts_with("Form")), "{ai}: {steps:?}");
        // Spearmen waiting for the savages close into a phalanx or closed order.
        assert!(steps.iter().any(|s| s == "FormPhalanx" || s == "FormClosed"), "{ai}: {steps:?}");
    }
}
