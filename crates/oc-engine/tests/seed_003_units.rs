//! Seed 003 (`std:battlestorm`), units of figures made and unmade: the Actions "divide up (split
//! the unit)" and "join another unit", and mixed units ("the spearmen (plus my leader)"). Each
//! test quotes the seed and asserts a scripted battle's log, its units or a forecast.

#[path = "common/arena.rs"]
mod arena;

use arena::{notes, until_turn_of};

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, State, Turn};
use oc_engine::Engine;
use oc_model::{SideId, Verb};

/// A 10x5 open field; both sides may deploy anywhere.
fn compiled(armies: &str) -> (Engine, oc_model::BattleMap) {
    field::compiled(&field::map(field::OPEN, "", field::ANYWHERE), &field::arena("std:battlestorm", "", ""), armies)
}

fn divide(unit: usize) -> Turn {
    Turn {
        unit,
        act: Act::Special { verb: Verb::Divide, target: None, tile: None, from: Some("Divide".into()) },
        ..Default::default()
    }
}

fn join(unit: usize, with: usize) -> Turn {
    Turn {
        unit,
        act: Act::Special { verb: Verb::Join, target: Some(with), tile: None, from: Some("Join".into()) },
        ..Default::default()
    }
}

fn attack(unit: usize, target: usize) -> Turn {
    Turn { unit, act: Act::Attack { target }, ..Default::default() }
}

/// The strikes a unit of the battle makes on `target` in contact (its forecast's).
fn strikes(engine: &Engine, b: &Battle, i: usize, target: usize) -> u32 {
    let (la, ld) = (b.loadout_of(i, true).unwrap(), b.loadout_of(target, false).unwrap());
    engine.forecast(&la, &ld, 1).unwrap().attacker.strikes
}

#[test]
fn a_unit_divides_up_into_two_units_beside_each_other() {
    // The Actions: "divide up (split the unit)"; "I could split my 20 spearmen into four units of
    // 5 spearmen each". Reading: half the living figures (rounded down) form a new unit on the
    // first free tile next to the unit; it has activated with it.
    let armies = "army A for Arena attacker { unit A0: Savage { figures 6 items Shortsword } unit A1: Savage { items Shortsword } }\n\
                  army D for Arena defender { unit D0: Savage { figures 6 items Shortsword } unit D1: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    let mut b = arena::battle_seeded(&engine, &map, [&[(1, 2), (0, 0)], &[(8, 2), (9, 4)]], 3);
    until_turn_of(&mut b, SideId::Attacker, &[0, 1]);
    // A unit of one figure has nothing to divide.
    assert!(b.turn(divide(1)).is_err(), "a lone figure divided");
    assert_eq!(strikes(&engine, &b, 0, 2), 6);
    let from = b.log.len();
    b.turn(divide(0)).unwrap();
    assert_eq!(b.units.len(), 5, "the new unit is added to the battle");
    let (a0, part) = (&b.units[0], &b.units[4]);
    assert_eq!((a0.figures, a0.hp, a0.living()), (3, 3, 3));
    assert_eq!((part.name.as_str(), part.figures, part.hp, part.side), ("A0 2", 3, 3, SideId::Attacker));
    assert_eq!(oc_engine::battle::distance(a0.pos, part.pos), 1);
    assert!(part.activated && part.state == State::Ready);
    let n = notes(&b, from);
    assert!(n.iter().any(|n| n.contains("divides: A0 2 (3 of 3) forms at") && n.contains("A0 (3 of 3) stays")), "{n:?}");
    // Each half strikes with its own three figures.
    assert_eq!(strikes(&engine, &b, 0, 2), 3);
    assert_eq!(strikes(&engine, &b, 4, 2), 3);
    // The new unit activates in the next round, as any.
    while b.round == 1 {
        let k = *b.may_act(b.to_act).first().unwrap();
        b.turn(arena::wait(k)).unwrap();
    }
    assert!(b.waiting(SideId::Attacker).contains(&4), "{:?}", b.waiting(SideId::Attacker));
}

#[test]
fn a_unit_joins_another_of_its_class_and_strikes_with_every_figure() {
    // The Actions: "join another unit"; "Players are free to organize their units as they
    // please". Three braves joined by two: one unit of five, which strikes five times.
    let armies = "army A for Arena attacker { unit A0: Savage { figures 3 items Shortsword } unit A1: Savage { figures 2 items Shortsword } }\n\
                  army D for Arena defender { unit D0: Savage { figures 6 items Shortsword } unit D1: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    let mut b = arena::battle_seeded(&engine, &map, [&[(1, 2), (2, 2)], &[(8, 2), (9, 4)]], 5);
    until_turn_of(&mut b, SideId::Attacker, &[0, 1]);
    let round = b.round;
    // An enemy is no unit to join.
    assert!(b.turn(join(1, 2)).is_err());
    assert_eq!(strikes(&engine, &b, 0, 2), 3);
    let from = b.log.len();
    b.turn(join(1, 0)).unwrap();
    assert_eq!(b.round, round);
    assert_eq!((b.units[0].figures, b.units[0].hp, b.units[0].max_hp), (5, 5, 5));
    assert_eq!(b.units[1].state, State::Joined);
    assert!(!b.on_board(1) && !b.waiting(SideId::Attacker).contains(&1));
    assert_eq!(strikes(&engine, &b, 0, 2), 5);
    let n = notes(&b, from);
    assert!(n.iter().any(|n| n.contains("joins A0: its figures join A0; A0 (5 of 5)")), "{n:?}");
}

/// Three braves with their chief joined to them (a mixed unit) at (4, 2), ten spearmen at (5, 2).
const MIXED: &str = "army A for Arena attacker { unit A0: Savage { figures 3 items Shortsword } unit A1: SavageChief { items Shortsword } }\n\
                     army D for Arena defender { unit D0: HighElfSpearman { figures 10 items ElvenSpear } unit D1: Savage { items Shortsword } }";

/// The battle with the chief (A1) joined to the braves (A0), the attacker to act.
fn mixed<'e>(engine: &'e Engine, map: &oc_model::BattleMap, seed: u64) -> Battle<'e> {
    let mut b = arena::battle_seeded(engine, map, [&[(4, 2), (4, 3)], &[(5, 2), (9, 4)]], seed);
    until_turn_of(&mut b, SideId::Attacker, &[0, 1]);
    b.turn(join(1, 0)).unwrap();
    b
}

#[test]
fn a_leader_joined_to_a_unit_strikes_with_his_own_weapon_after_its_figures() {
    // "I decide to have only three units - the spearmen (plus my leader) in the center"; "All
    // combat is worked out on an individual vs. individual basis": the chief joined to three
    // braves is one unit (it moves and activates as one) and each figure fights with its own
    // stats and weapon: the braves' three strikes, then the chief's two (Attacks(2)), each an
    // exchange of its own whose strikes are the forecast's.
    let (engine, map) = compiled(MIXED);
    let mut seen = 0;
    for seed in 0..8 {
        let mut b = mixed(&engine, &map, seed);
        assert_eq!(b.units[1].state, State::Joined);
        assert_eq!(b.units[1].with, Some(0));
        assert_eq!(b.bodies(0), vec![1]);
        // Next round, the unit attacks: its figures, then its chief.
        while b.round == 1 {
            let k = *b.may_act(b.to_act).first().unwrap();
            b.turn(arena::wait(k)).unwrap();
        }
        until_turn_of(&mut b, SideId::Attacker, &[0]);
        let chief = {
            let mut c = b.fork(None);
            c.state.units[1].pos = c.units[0].pos;
            strikes(&engine, &c, 1, 2)
        };
        assert_eq!(chief, 2);
        let from = b.log.len();
        b.turn(attack(0, 2)).unwrap();
        // The spearmen may answer the declared attack: they decline.
        if b.to_act == SideId::Defender && !b.pending.is_empty() {
            b.turn(Turn { unit: 2, act: Act::Decline, ..Default::default() }).unwrap();
        }
        let n = notes(&b, from);
        let line = n.iter().find(|n| n.contains("A0 (3 of 3) attacks D0")).unwrap_or_else(|| panic!("{n:?}"));
        // The chief strikes only a target still standing.
        assert!(!line.contains("(0 of 10)"), "{line}");
        let Some(at) = line.find("; A1 attacks D0") else { continue };
        seen += 1;
        // Each exchange's strikes: "NAME attacks TARGET: attack 7 miss, attack 25 hit; ...".
        let count = |part: &str| part.split("; ").next().unwrap().split(": ").nth(1).unwrap().split(", ").count() as u32;
        assert_eq!(count(&line[at + 2..]), chief, "{line}");
        assert_eq!(count(line), 3, "{line}");
    }
    assert!(seen >= 6, "the chief struck in {seen} of 8 battles");
}

#[test]
fn blows_on_a_mixed_unit_fall_on_its_figures_and_its_leader_carries_on_after_them() {
    // Reading of "the spearmen (plus my leader)": blows on the unit fall on its own figures; the
    // leader is the last of it to fall. When the last brave falls, the chief carries on as the
    // unit where it stood, and the unit is not counted as routed.
    let (engine, map) = compiled(MIXED);
    let mut carried = 0;
    for seed in 0..6 {
        let mut b = mixed(&engine, &map, seed);
        let chief_hp = b.units[1].hp;
        b.state.units[0].hp = 1;
        for _ in 0..6 {
            if b.units[0].state != State::Ready || b.outcome.is_some() {
                break;
            }
            arena::to_act(&mut b, SideId::Defender);
            if b.may_act(SideId::Defender).contains(&2) {
                b.turn(attack(2, 0)).unwrap();
                if b.to_act == SideId::Attacker && !b.pending.is_empty() {
                    b.turn(Turn { unit: 0, act: Act::Decline, ..Default::default() }).unwrap();
                }
            } else {
                let k = b.may_act(SideId::Defender)[0];
                b.turn(arena::wait(k)).unwrap();
            }
            if b.units[0].state == State::Ready {
                assert_eq!(b.units[1].hp, chief_hp, "the chief was struck while a brave stood");
            }
        }
        if b.units[0].state == State::Joined {
            carried += 1;
            assert_eq!(b.units[1].state, State::Ready);
            assert_eq!(b.units[1].pos, (4, 2));
            assert!(b.units.iter().all(|u| u.side == SideId::Defender || u.state != State::Routed), "counted as routed");
        }
    }
    assert!(carried > 0, "the braves never fell");
}

#[test]
fn an_army_may_begin_the_battle_with_its_leader_in_a_unit() {
    // "I decide to have only three units - the spearmen (plus my leader) in the center": `joins`
    // in the army begins the battle with the chief in the braves' unit, one unit (it alone is
    // on the board and activates), and braves joining braves are one unit of their figures.
    let armies = "army A for Arena attacker { unit A0: Savage { figures 3 items Shortsword } unit A1: SavageChief { items Shortsword joins A0 } unit A2: Savage { figures 2 items Shortsword joins A0 } }\n\
                  army D for Arena defender { unit D0: HighElfSpearman { figures 10 items ElvenSpear } unit D1: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    let b = arena::battle_seeded(&engine, &map, [&[(4, 2), (4, 3), (3, 2)], &[(5, 2), (9, 4)]], 1);
    assert_eq!((b.units[1].state, b.units[1].with), (State::Joined, Some(0)));
    assert_eq!((b.units[2].state, b.units[2].with), (State::Joined, None));
    assert_eq!((b.units[0].figures, b.units[0].hp), (5, 5));
    assert_eq!(b.bodies(0), vec![1]);
    let mut waiting = b.waiting(SideId::Attacker);
    waiting.sort_unstable();
    assert_eq!(waiting, vec![0]);
    let Some(Record::Start { units, .. }) = b.log.first() else { panic!("no start") };
    assert_eq!(units[1].state, State::Joined);
}

#[test]
fn the_ais_join_a_depleted_unit_that_stays_to_a_friend_of_its_class() {
    // "join another unit", as the AIs take it: a unit down to half its figures or fewer that
    // would stay where it stands (here it has lost its footing: no move, no attack) joins a
    // unit of its class and arms beside it.
    let armies = "army A for Arena attacker { unit A0: Savage { figures 4 items Shortsword } unit A1: Savage { figures 4 items Shortsword } }\n\
                  army D for Arena defender { unit D0: Savage { figures 6 items Shortsword } unit D1: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    for ai in ["greedy", "tactician", "planner"] {
        for seed in 0..2 {
            let mut b = arena::battle_seeded(&engine, &map, [&[(1, 2), (1, 3)], &[(8, 2), (9, 4)]], seed);
            // A1 holds; A0 is the attacker's last unit to activate.
            until_turn_of(&mut b, SideId::Attacker, &[0, 1]);
            b.turn(arena::wait(1)).unwrap();
            until_turn_of(&mut b, SideId::Attacker, &[0]);
            assert_eq!(b.joining(0), None, "a unit at full strength stays as it is");
            b.state.units[0].hp = 2;
            let stumbled = oc_engine::battle::Affliction { status: "Stumbled".into(), left: Some(2) };
            b.state.units[0].statuses.push(stumbled);
            let mut controller = oc_engine::ai::by_name(ai).unwrap();
            let t = controller.choose(&b).unwrap();
            assert!(matches!(t.act, Act::Special { verb: Verb::Join, target: Some(1), .. }), "{ai}: {t:?}");
            b.turn(t).unwrap();
            assert_eq!((b.units[1].figures, b.units[1].living()), (8, 6), "{ai}");
        }
    }
}
