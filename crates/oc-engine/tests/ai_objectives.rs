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

/// A field of plains 16 wide with the goal on desert ((9, 2): two to enter, one to leave), held
/// by the defender's Bors; the attackers' Lord Ephraim, who can seize it, to the west.
const FAR_FIELD: &str = r#"name = "Far field"
width = 16
height = 5
rows = [
  "................",
  "................",
  ".........d......",
  "................",
  "................",
]
[[regions]]
name = "attacker-zone"
kind = "deployment"
side = "attacker"
rect = [0, 0, 2, 5]
[[regions]]
name = "defender-zone"
kind = "deployment"
side = "defender"
tiles = [[9, 2], [12, 0], [13, 0], [14, 0], [12, 4], [13, 4], [14, 4], [15, 1]]
[[regions]]
name = "goal"
kind = "seize"
side = "attacker"
tiles = [[9, 2]]
[[regions]]
name = "exit"
kind = "escape"
side = "attacker"
tiles = [[15, 0]]
[[regions]]
name = "granary"
kind = "raze"
side = "attacker"
tiles = [[15, 4]]
"#;

/// Where Bors, on the goal, ends his turn with Ephraim at `lord`, and his walk back to it.
fn holder_turn(lord: (i64, i64)) -> ((i64, i64), i64) {
    let armies = "army A for Arena attacker { unit Ephraim: Lord { items Rapier tags Leader } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }";
    let (rules, map) = arena::setup_on(FAR_FIELD, "", armies);
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[lord], &[(9, 2)]]);
    to_act(&mut b, SideId::Defender);
    assert_eq!((b.units[0].pos, b.units[1].pos), (lord, (9, 2)));
    let turn = Tactician::default().choose(&b).unwrap();
    assert_eq!(turn.unit, 1, "{turn:?}");
    let (x, y) = turn.to.unwrap_or((9, 2));
    // Plains back to the desert, which costs two to enter.
    let back = if (x, y) == (9, 2) { 0 } else { (x - 9).abs() + (y - 2).abs() + 1 };
    ((x, y), back)
}

/// The holder's way back against the taker's way there (a Lord and a Soldier both move 5).
/// Ephraim at (1, 2), 9 to walk (1.8 moves), stands on the goal on his second activation: Bors
/// must end his turn within one move of it (5 to walk back), since Ephraim acts first. Ephraim
/// at (0, 0), 12 to walk (2.4 moves), needs three: Bors may go farther (he does: toward him),
/// back on the goal on his second. Before, the goal held barred only the takers within one move
/// of it, and Bors walked out to (4, 2), 6 to walk back, with Ephraim 1.8 moves off.
#[test]
fn the_holder_leaves_the_tile_only_when_it_can_be_back_before_the_taker() {
    let (near, back) = holder_turn((1, 2));
    let (far, back_far) = holder_turn((0, 0));
    assert!(back <= 5, "Ephraim would stand on the goal before Bors is back: {near:?}");
    assert!(back_far > 5, "Bors is back in time from anywhere he can reach: {far:?}");
}
