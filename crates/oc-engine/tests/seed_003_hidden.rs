//! Seed 003 (`std:battlestorm`), the Actions "search" and "hide" ("The possible Actions include:
//! ... search, hide ..."; "An activated unit must perform its actions according to a strict
//! sequence of play: 1. Search ..."). The seed gives them no text; the readings are the
//! roster's (tags Hide and Search): a unit hides on terrain that gives cover, enemies may not
//! target it (nor, under fog, see it) until it moves, strikes or an enemy's search within 3
//! tiles finds it. Each test asserts a scripted battle's log or an AI's choice.

#[path = "common/arena.rs"]
mod arena;

use arena::{notes, until_turn_of};

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, Turn};
use oc_engine::Engine;
use oc_model::{SideId, Verb};

/// A 10x5 field with a forest (cover: `defense +1`) at (5, 2) and (6, 2); the attacker deploys
/// in the west half, the defender in the east half. `options`: the scenario's (say `fog`).
fn compiled(options: &str, armies: &str) -> (Engine, oc_model::BattleMap) {
    let rows = ["..........", "..........", ".....ff...", "..........", ".........."];
    let map = field::map(rows, "\"f\" = \"Forest\"\n\".\" = \"Plains\"", field::HALVES);
    field::compiled(&map, &field::arena("std:battlestorm", options, ""), armies)
}

/// The attacker: bow-women (0), braves (1) and a brave to wait with (2); the defender: braves in
/// the forest (3), a brave on open ground (4).
const ARMIES: &str = "army A for Arena attacker {\n\
    unit Bows: ElvenBowWoman { figures 3 items Longbow }\n\
    unit Braves: Savage { figures 3 items Shortsword }\n\
    unit Spare: Savage { items Shortsword }\n}\n\
    army D for Arena defender {\n\
    unit Lurkers: Savage { figures 3 items Shortsword }\n\
    unit Out: Savage { items Shortsword }\n}";
const DEPLOY: [&[(i64, i64)]; 2] = [&[(1, 2), (0, 1), (0, 4)], &[(5, 2), (9, 4)]];

fn act(unit: usize, to: Option<(i64, i64)>, verb: Verb, tag: &str) -> Turn {
    Turn { unit, to, act: Act::Special { verb, target: None, tile: None, from: Some(tag.into()) }, ..Default::default() }
}

fn attack(unit: usize, target: usize) -> Turn {
    Turn { unit, act: Act::Attack { target }, ..Default::default() }
}

/// Ends the round: every unit able waits.
fn end_round(b: &mut Battle) {
    let round = b.round;
    while b.round == round && b.outcome.is_none() {
        let k = b.may_act(b.to_act)[0];
        b.turn(arena::wait(k)).unwrap();
    }
}

/// Round 1: the lurkers (3) hide in the forest; everyone else waits.
fn hidden_lurkers<'e>(engine: &'e Engine, map: &oc_model::BattleMap, seed: u64) -> Battle<'e> {
    let mut b = arena::battle_seeded(engine, map, DEPLOY, seed);
    until_turn_of(&mut b, SideId::Defender, &[]);
    let from = b.log.len();
    b.turn(act(3, None, Verb::Hide, "Hide")).unwrap();
    assert!(notes(&b, from).iter().any(|n| n.contains("Lurkers hides at (5, 2)")), "{:?}", notes(&b, from));
    end_round(&mut b);
    b
}

#[test]
fn a_hidden_unit_cannot_be_targeted_until_a_search_finds_it() {
    // "The possible Actions include: ... search, hide". Readings: a unit hides where terrain
    // gives cover; enemies may not target it; a search finds every enemy hidden within 3 tiles.
    let (engine, map) = compiled("", ARMIES);
    for seed in 0..4 {
        let mut b = hidden_lurkers(&engine, &map, seed);
        assert!(b.hidden(3));
        // Round 2: the bow-women, 4 tiles off (within their longbow's effective range), may not
        // shoot the lurkers; the brave in the open is beyond their reach: they have no target.
        until_turn_of(&mut b, SideId::Attacker, &[]);
        let why = b.turn(attack(0, 3)).unwrap_err().to_string();
        assert!(why.contains("Bows cannot attack Lurkers: it is hidden"), "{why}");
        assert!(b.targets_from(0, (1, 2), None).is_empty(), "{:?}", b.targets_from(0, (1, 2), None));
        // The braves come within 3 tiles. A search is step 1 of the activation ("1. Search"),
        // before the move: searching where the move ends is refused.
        b.turn(Turn { unit: 1, to: Some((2, 2)), ..Default::default() }).unwrap();
        end_round(&mut b);
        until_turn_of(&mut b, SideId::Attacker, &[]);
        let why = b.turn(act(1, Some((3, 2)), Verb::Search, "Search")).unwrap_err().to_string();
        assert!(why.contains("before the move"), "{why}");
        // Round 3: they search, then move on, in one activation: the lurkers are found.
        let from = b.log.len();
        let search = act(1, None, Verb::Search, "Search").act;
        b.turn(Turn { unit: 1, before: vec![search], to: Some((3, 2)), ..Default::default() }).unwrap();
        let said = notes(&b, from);
        assert!(said.iter().any(|n| n.contains("searches within 3 and finds Lurkers at (5, 2)")), "{said:?}");
        assert_eq!(b.units[1].pos, (3, 2));
        assert!(!b.hidden(3));
        assert_eq!(b.targets_from(0, (1, 2), None), vec![3]);
        // Now the bow-women shoot them.
        until_turn_of(&mut b, SideId::Attacker, &[]);
        let from = b.log.len();
        b.turn(attack(0, 3)).unwrap();
        assert!(notes(&b, from).iter().any(|n| n.contains("Bows (3 of 3) attacks Lurkers")), "{:?}", notes(&b, from));
    }
}

#[test]
fn a_unit_hides_only_on_cover_and_is_seen_once_it_moves_or_strikes() {
    // "hide": reading, only where terrain gives cover; "until it attacks or moves into the open".
    let (engine, map) = compiled("", ARMIES);
    let mut b = arena::battle_seeded(&engine, &map, DEPLOY, 2);
    until_turn_of(&mut b, SideId::Defender, &[0, 1]);
    let why = b.turn(act(4, None, Verb::Hide, "Hide")).unwrap_err().to_string();
    assert!(why.contains("requirement") || why.contains("require"), "on open ground: {why}");
    // A search finding no one says so.
    let mut b = hidden_lurkers(&engine, &map, 2);
    until_turn_of(&mut b, SideId::Attacker, &[]);
    let from = b.log.len();
    b.turn(act(2, None, Verb::Search, "Search")).unwrap();
    assert!(notes(&b, from).iter().any(|n| n.contains("searches within 3 and finds no one")), "{:?}", notes(&b, from));
    assert!(b.hidden(3));
    // The lurkers move (into the next forest tile, even): they are seen.
    let mut moved = b.fork(None);
    until_turn_of(&mut moved, SideId::Defender, &[0, 1]);
    moved.turn(Turn { unit: 3, to: Some((6, 2)), ..Default::default() }).unwrap();
    assert!(!moved.hidden(3));
    // The lurkers strike from hiding (the braves came next to them): then they are seen.
    let mut b = hidden_lurkers(&engine, &map, 2);
    b.state.units[1].pos = (4, 2);
    until_turn_of(&mut b, SideId::Defender, &[3]);
    let from = b.log.len();
    b.turn(attack(3, 1)).unwrap();
    if b.answering() == Some(1) {
        b.turn(Turn { unit: 1, act: Act::Decline, ..Default::default() }).unwrap();
    }
    assert!(notes(&b, from).iter().any(|n| n.contains("attacks Braves")), "{:?}", notes(&b, from));
    assert!(!b.hidden(3));
}

#[test]
fn under_fog_a_hidden_unit_is_not_seen() {
    // "hide", where the battle has fog: its enemies do not see it, though its tile is in sight.
    let (engine, map) = compiled("fog vision 6", ARMIES);
    let b = hidden_lurkers(&engine, &map, 1);
    assert!(b.sees(SideId::Attacker, (5, 2)));
    assert!(!b.spots(SideId::Attacker, 3));
    let view = oc_engine::ai::View::new(&b, SideId::Attacker);
    assert!(view.enemies().all(|(k, _)| k != 3));
    // It was in sight before it hid: the attacker's sight record loses it.
    let lost = b.log.iter().any(|r| matches!(r, Record::Seen { side: SideId::Attacker, lost, .. } if lost.contains(&3)));
    assert!(lost, "{:?}", b.log);
}

#[test]
fn the_ais_search_for_a_hidden_enemy_rather_than_attack_it() {
    // "search", as the AIs take it: a unit that knows an enemy hides near (without fog the
    // figure stands in plain view, only not to be targeted) searches for it; none attacks it.
    let armies = "army A for Arena attacker { unit Braves: Savage { figures 3 items Shortsword } }\n\
                  army D for Arena defender { unit Lurkers: Savage { figures 3 items Shortsword } }";
    let (engine, map) = compiled("", armies);
    for ai in ["greedy", "tactician", "planner"] {
        for seed in 0..3 {
            let mut b = arena::battle_seeded(&engine, &map, [&[(3, 2)], &[(5, 2)]], seed);
            b.state.units[1].hidden = Some((5, 2));
            until_turn_of(&mut b, SideId::Attacker, &[]);
            let mut controller = oc_engine::ai::by_name(ai).unwrap();
            let t = controller.choose(&b).unwrap();
            // A search is step 1 of the sequence: taken before the move, the turn going on.
            assert!(matches!(t.before.first(), Some(Act::Special { verb: Verb::Search, .. })), "{ai}: {t:?}");
            b.turn(t.clone()).unwrap();
            // A move that came too near the lurkers lets them activate first: they decline.
            if let Some(k) = b.answering() {
                b.turn(Turn { unit: k, act: Act::Decline, ..Default::default() }).unwrap();
            }
            assert!(!b.hidden(1), "{ai}: {t:?} {:?}", b.log);
        }
    }
}
