//! Seed 003 (`std:battlestorm`), Placing Troops: "Terrain for the battle may be set up freely.
//! Afterwards, the players dice for selection of their "home" table edge. Players then divide
//! their forces into an equal number of Placement Units of roughly the same point values. They
//! then take turns placing these groups onto the tabletop." A scenario plays them with
//! `deploy edges rolloff DICE` and `deploy alternate N`.

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{deploy, placement_units, Battle, Record};
use oc_engine::Engine;
use oc_model::SideId;

/// A 10x5 field: the west zone is open plain, the east zone holds forts (defence +2), so the
/// winner of the roll-off for edges takes the east whichever side it is.
const FIELD: [&str; 5] = ["........FF"; 5];

struct Compiled {
    engine: Engine,
    map: oc_model::BattleMap,
    scenario: oc_model::Scenario,
    armies: Vec<oc_model::Army>,
}

/// The scenario `Field` of 6 rounds on the field with `deploy` (say `deploy alternate 2`) and
/// `armies`.
fn compile(deploy: &str, armies: &str) -> Result<Compiled, Vec<oc_diag::Diagnostic>> {
    let map = field::map(FIELD, "", [("west", [0, 0, 3, 5]), ("east", [7, 0, 3, 5])]);
    let sides = ["west", "east"].map(|zone| format!("zone \"{zone}\" war_chest 99999 units 1..12 win rout all"));
    let scenario = field::scenario("std:battlestorm", "Field", 6, deploy, [&sides[0], &sides[1]]);
    let (rules, map) = field::compile(&map, &scenario, armies)?;
    let scenario = rules.scenarios[0].clone();
    let armies = rules.armies.clone();
    Ok(Compiled { engine: Engine::new(rules).unwrap(), map, scenario, armies })
}

const ARMIES: &str = "army A for Field attacker {
    unit Ghor: SavageChief { items Shortsword }
    unit Braves: Savage { figures 8 items Shortsword }
    unit Raiders: Savage { figures 6 items Shortsword }
    unit Swords: HumanMercenary { figures 9 items Broadsword }
    unit Xbows: HumanCrossbowman { figures 8 items Crossbow }
}
army D for Field defender {
    unit Fenth: FenthGallinir { items Runeblade }
    unit Spears: HighElfSpearman { figures 10 items ElvenSpear }
    unit Bows: ElvenBowWoman { figures 11 items Longbow }
    unit Wyvern: PoisonWyvern { items WyvernBite, WyvernTail, WyvernTalon }
}";

fn setup_of(b: &Battle) -> Option<oc_engine::battle::Setup> {
    match b.log.first() {
        Some(Record::Start { setup, .. }) => setup.clone(),
        _ => None,
    }
}

#[test]
fn the_players_dice_for_their_home_edge_and_the_winner_takes_the_better_ground() {
    // "Afterwards, the players dice for selection of their "home" table edge." Reading: each
    // side rolls the ruleset's initiative die (d6), ties roll again, and the winner takes the
    // zone whose open tiles give the better mean defence: the forts in the east.
    let c = compile("deploy edges rolloff initiative", ARMIES).unwrap();
    let armies = [&c.armies[0], &c.armies[1]];
    let mut won = [0, 0];
    for seed in 0..40 {
        let b = Battle::set_up(&c.engine, &c.scenario, &c.map, armies, seed).unwrap();
        let setup = setup_of(&b).expect("the set-up is logged");
        let last = *setup.rolls.last().unwrap();
        assert!(setup.rolls[..setup.rolls.len() - 1].iter().all(|[a, d]| a == d), "only ties roll again: {setup:?}");
        assert!((1..=6).contains(&last[0]) && (1..=6).contains(&last[1]) && last[0] != last[1]);
        let winner = usize::from(last[1] > last[0]);
        won[winner] += 1;
        // The winner deploys on the forts, the loser on the plain.
        let expect = if winner == 0 { ["east", "west"] } else { ["west", "east"] };
        assert_eq!(setup.zones, expect.map(String::from), "seed {seed}");
        for u in &b.state.units {
            let zone = if u.side == SideId::Attacker { expect[0] } else { expect[1] };
            let east = u.pos.0 >= 7;
            assert_eq!(east, zone == "east", "seed {seed}: {} at {:?}", u.name, u.pos);
        }
        // The battle's own dice are not touched by the roll-off: the game plays the dice it
        // would play without it (the first round's initiative roll-off is the same).
        let plain = compile("", ARMIES).unwrap();
        let p = Battle::set_up(&plain.engine, &plain.scenario, &plain.map, [&plain.armies[0], &plain.armies[1]], seed).unwrap();
        assert_eq!(b.drawn(), p.drawn());
    }
    // Both sides win the roll-off in 40 games (a d6 each: about half each).
    assert!(won[0] >= 10 && won[1] >= 10, "{won:?}");
}

#[test]
fn armies_are_divided_into_placement_units_of_roughly_the_same_points() {
    // "Players then divide their forces into an equal number of Placement Units of roughly the
    // same point values." The savages: Ghor 45, Braves 72, Raiders 54, Swords 126, Xbows 128
    // points; the elves: Fenth 74, Spears 190, Bows 231, Wyvern 65. In 2 groups each, dearest
    // first into the lighter group: 227 against 198 points, and 296 against 264.
    let c = compile("deploy alternate 2", ARMIES).unwrap();
    let a = placement_units(&c.engine, &c.armies[0], 2);
    assert_eq!(a, vec![vec![0, 2, 4], vec![1, 3]]);
    let d = placement_units(&c.engine, &c.armies[1], 2);
    assert_eq!(d, vec![vec![2, 3], vec![0, 1]]);
    // An army of fewer units than groups is placed a unit at a time.
    assert_eq!(placement_units(&c.engine, &c.armies[1], 9).len(), 4);
}

#[test]
fn the_sides_take_turns_placing_and_each_group_answers_the_enemy_already_placed() {
    // "They then take turns placing these groups onto the tabletop." The defender (who deploys
    // first by default) places its first group, then the attacker, and so on; a group's
    // fighters take the free tiles of its zone nearest the enemy already on the table, its
    // shooters the tiles behind them.
    let c = compile("deploy alternate 2", ARMIES).unwrap();
    let armies = [&c.armies[0], &c.armies[1]];
    let d = deploy(&c.engine, &c.scenario, &c.map, armies, 1);
    let setup = d.setup.clone().unwrap();
    let sides: Vec<SideId> = setup.placed.iter().map(|(s, _)| *s).collect();
    assert_eq!(sides, [SideId::Defender, SideId::Attacker, SideId::Defender, SideId::Attacker]);
    assert_eq!(setup.placed[0].1, vec![2, 3]);
    // The elves' first group, the wyvern and the bow-women (296 points), faces the west
    // zone's centre (1, 2): the wyvern on the front tile (7, 2), the bow-women beside it.
    // The savages' first group answers them, facing their middle (7, 1): Ghor at (2, 1), the
    // Raiders at (2, 0), the crossbowmen after the fighters at (2, 2). The elves' second group
    // faces the savages now placed (2, 1): Fenth at (7, 0), the spears at (8, 1); the savages'
    // second group takes what is left nearest the elves: the Braves (1, 1), the Swords (2, 3).
    assert_eq!(d.tiles[1], vec![(7, 0), (8, 1), (7, 1), (7, 2)]);
    assert_eq!(d.tiles[0], vec![(2, 1), (1, 1), (2, 0), (2, 3), (2, 2)]);
    // Placed all at once (`deploy alternate 1`), the defender first, the savages face the
    // whole elven host instead.
    let once = compile("deploy alternate 1", ARMIES).unwrap();
    let all = deploy(&once.engine, &once.scenario, &once.map, [&once.armies[0], &once.armies[1]], 1);
    assert_ne!(all.tiles, d.tiles);
    // The battle starts as placed, and logs the order.
    let b = Battle::set_up(&c.engine, &c.scenario, &c.map, armies, 1).unwrap();
    assert_eq!(setup_of(&b), Some(setup));
    for (k, u) in b.state.units.iter().filter(|u| u.side == SideId::Attacker).enumerate() {
        assert_eq!(u.pos, d.tiles[0][k]);
    }
}

#[test]
fn placement_errors_are_diagnosed() {
    let e = compile("deploy alternate 0", ARMIES).err().expect("refused");
    assert_eq!(e[0].code, "oc::scenario::placement");
    let e = compile("deploy edges rolloff initiativ", ARMIES).err().expect("refused");
    assert_eq!(e[0].code, "oc::name::unknown_table");
    assert!(e[0].help.contains("initiative"), "{:?}", e[0].help);
    let e = compile("deploy alternate 2\n    deploy alternate 3", ARMIES).err().expect("refused");
    assert_eq!(e[0].code, "oc::field::duplicate");
}
