//! The tactician reads the scenario's victory conditions (issue 41): the arena's attacker wins by
//! `seize "goal"` (one tile, (4, 4)) within 5 rounds, the defender by `rout all` or the clock.

#[path = "common/arena.rs"]
mod arena;

use arena::{battle, setup, to_act};
use oc_engine::ai::Tactician;
use oc_engine::battle::{Battle, Controller, Turn};
use oc_engine::Engine;
use oc_model::SideId;

const ARMIES: &str =
    "army A for Arena attacker { unit Ephraim: Lord { items Rapier tags Leader } unit Ross: Fighter { items IronAxe } }
     army D for Arena defender { unit Bors: Soldier { items IronLance } }";

/// Round 1 scripted: Ross (1) walks to (4, 2), Ephraim (0) stays on `lord` ((0, 4): 4 tiles of
/// plains from the goal; a Lord moves 5: it seizes on its next activation if the tile is free),
/// Bors (2) to `bors`; then round 2 up to the defender's turn.
fn position<'e>(engine: &'e Engine, map: &oc_model::BattleMap, lord: (i64, i64), bors: Option<(i64, i64)>) -> Battle<'e> {
    let mut b = battle(engine, map, [&[lord, (1, 2)], &[(6, 4)]]);
    let mut attacker = vec![Turn { unit: 0, ..Default::default() }, Turn { unit: 1, to: Some((4, 2)), ..Default::default() }];
    while b.round == 1 {
        let t = match b.to_act {
            SideId::Attacker => attacker.pop().unwrap(),
            SideId::Defender => Turn { unit: 2, to: bors, ..Default::default() },
        };
        b.turn(t).unwrap();
    }
    to_act(&mut b, SideId::Defender);
    assert_eq!((b.units[0].pos, b.units[1].pos), (lord, (4, 2)));
    b
}

/// Bors on the goal, Ross two tiles off to strike: the tactician keeps Bors on the tile (the
/// Leader takes the battle the moment it is free) rather than step off to strike Ross.
#[test]
fn the_tactician_holds_the_tile_the_enemy_must_seize() {
    let (rules, map) = setup(ARMIES);
    let engine = Engine::new(rules).unwrap();
    let b = position(&engine, &map, (0, 4), Some((4, 4)));
    let turn = Tactician::default().choose(&b).unwrap();
    assert_eq!(turn.unit, 2);
    assert!(turn.to.is_none_or(|t| t == (4, 4)), "Bors leaves the goal: {turn:?}");
}

/// Bors two steps from the goal: the tactician steps onto it rather than strike Ross.
#[test]
fn the_tactician_steps_onto_the_tile_the_enemy_must_seize() {
    let (rules, map) = setup(ARMIES);
    let engine = Engine::new(rules).unwrap();
    let b = position(&engine, &map, (0, 4), None);
    let turn = Tactician::default().choose(&b).unwrap();
    assert_eq!((turn.unit, turn.to), (2, Some((4, 4))), "{turn:?}");
}

/// Ephraim on (0, 0), 8 tiles from the goal (two moves: he cannot seize before Bors acts again):
/// the goal held now bars nobody, so Bors does not park on it (he did while the whole race
/// counted, 0.5^0.6 of the battle: a Mage of the garrison sat on its fort from round 1).
#[test]
fn the_tactician_does_not_park_on_the_tile_while_the_enemy_is_far() {
    let (rules, map) = setup(ARMIES);
    let engine = Engine::new(rules).unwrap();
    let b = position(&engine, &map, (0, 0), None);
    let turn = Tactician::default().choose(&b).unwrap();
    assert_eq!(turn.unit, 2);
    assert_ne!(turn.to, Some((4, 4)), "{turn:?}");
}

/// Bors already on the goal, Ephraim on (0, 0) (8 tiles: he seizes on his second activation at
/// the earliest), Ross two tiles off to strike: Bors keeps the tile from the whole race while he
/// stays, not only from the takers within one move, so he does not step off to strike Ross.
/// Before, the goal held barred nobody until Ephraim was a move away: a holder stepped off to
/// strike, was routed before it could step back, and the tile it had left was taken.
#[test]
fn the_holder_keeps_the_tile_from_a_taker_two_moves_off() {
    let (rules, map) = setup(ARMIES);
    let engine = Engine::new(rules).unwrap();
    let b = position(&engine, &map, (0, 0), Some((4, 4)));
    let turn = Tactician::default().choose(&b).unwrap();
    assert_eq!(turn.unit, 2);
    assert!(turn.to.is_none_or(|t| t == (4, 4)), "Bors leaves the goal: {turn:?}");
}
