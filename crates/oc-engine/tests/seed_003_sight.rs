//! Seed 003 (`std:battlestorm`), line of sight: "A figure can attack any target within range,
//! and to which it has a clear Line of Sight." A longbow shot through a wall is refused and never
//! planned by the AIs; around the wall it is allowed.

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Turn};
use oc_engine::Engine;
use oc_model::SideId;

/// A 10x5 field with a wall from (5, 1) to (5, 3); both sides may deploy anywhere. The scenario
/// imports `import`.
fn compiled(import: &str, armies: &str) -> (Engine, oc_model::BattleMap) {
    let rows = ["..........", ".....#....", ".....#....", ".....#....", ".........."];
    let map = field::map(rows, "\"#\" = \"Wall\"\n\".\" = \"Plains\"", field::ANYWHERE);
    field::compiled(&map, &field::arena(import, "", ""), armies)
}

const BOWS: &str = "army A for Arena attacker { unit Bow: ElvenBowWoman { items Longbow } unit Bow2: ElvenBowWoman { items Longbow } }\n\
                    army D for Arena defender { unit Brave: Savage { items Shortsword } unit Brave2: Savage { items Shortsword } }";

/// Plays waits for the defender until the attacker is to act.
fn attacker_to_act(b: &mut Battle) {
    while b.to_act != SideId::Attacker && b.outcome.is_none() {
        let k = *b.may_act(b.to_act).last().unwrap();
        b.turn(Turn { unit: k, ..Default::default() }).unwrap();
    }
}

#[test]
fn a_longbow_shot_through_a_wall_is_refused_and_around_it_allowed() {
    // "A figure can attack any target within range, and to which it has a clear Line of Sight."
    let (engine, map) = compiled("std:battlestorm", BOWS);
    for seed in 0..6 {
        // The bow at (4, 2), the savage behind the wall at (7, 2): 3 tiles, in the longbow's reach.
        let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2), (0, 4)], &[(7, 2), (9, 4)]], seed);
        attacker_to_act(&mut b);
        let err = b.turn(Turn { unit: 0, act: Act::Attack { target: 2 }, ..Default::default() }).unwrap_err();
        let why = err.to_string();
        assert!(why.contains("no clear line of sight") && why.contains("Wall at (5, 2) blocks it"), "{why}");
        assert_eq!(err.code(), "oc::battle::target");
        assert_eq!(b.sight_blocker((4, 2), (7, 2)), Some((5, 2)));
        assert!(b.targets_from(0, (4, 2), None).is_empty());
        // From (4, 0) the line to (7, 2) crosses (5, 0) and the wall at (5, 1): refused too.
        let walled = Turn { unit: 0, to: Some((4, 0)), act: Act::Attack { target: 2 }, ..Default::default() };
        assert!(b.turn(walled).unwrap_err().to_string().contains("Wall at (5, 1)"));
        // Around the wall: from (6, 0) the line crosses (6, 1) and (7, 1), open ground. (The
        // savage at (9, 4), 7 tiles off, is beyond the longbow's effective range, within its reach.)
        assert_eq!(b.targets_from(0, (6, 0), None), vec![2, 3]);
        let open = Turn { unit: 0, to: Some((6, 0)), act: Act::Attack { target: 2 }, ..Default::default() };
        if let Err(e) = b.turn(open) {
            panic!("seed {seed}: {e}");
        }
        assert!(arena::last_note(&b).contains("Bow attacks Brave"), "{}", arena::last_note(&b));
    }
}

#[test]
fn the_ais_never_plan_a_shot_without_a_line() {
    // "... and to which it has a clear Line of Sight": every AI's turn for the bow behind the
    // wall is one the battle accepts, and a shot it plans is over a clear line.
    let (engine, map) = compiled("std:battlestorm", BOWS);
    for name in oc_engine::ai::names() {
        for seed in 0..4 {
            let mut b = arena::battle_seeded(&engine, &map, [&[(3, 2), (0, 0)], &[(7, 2), (9, 4)]], seed);
            attacker_to_act(&mut b);
            let mut ai = oc_engine::ai::by_name(name).unwrap();
            let Some(turn) = ai.choose(&b) else { continue };
            if let Act::Attack { target } = turn.act {
                let from = turn.to.unwrap_or(b.units[turn.unit].pos);
                assert_eq!(b.sight_blocker(from, b.units[target].pos), None, "{name}: {turn:?}");
            }
            if let Err(e) = b.turn(turn.clone()) {
                panic!("{name}, seed {seed}: {turn:?} refused: {e}");
            }
        }
    }
}

#[test]
fn rulesets_without_line_of_sight_shoot_over_walls() {
    // Officer's Chess (`std:ratings`) has no `line_of_sight`: its archers shoot over the wall as
    // before (its battle logs are unchanged).
    let armies = "army A for Arena attacker { unit Bow: Archer { items IronBow } }\n\
                  army D for Arena defender { unit Axe: Fighter { items IronAxe } }";
    let (engine, map) = compiled("std:ratings", armies);
    assert!(!engine.rules.ruleset.turn.line_of_sight);
    let b = arena::battle_seeded(&engine, &map, [&[(4, 2)], &[(6, 2)]], 1);
    assert_eq!(b.sight_blocker((4, 2), (6, 2)), Some((5, 2)));
    assert!(b.clear_line((4, 2), (6, 2)));
    assert_eq!(b.targets_from(0, (4, 2), None), vec![1]);
}
