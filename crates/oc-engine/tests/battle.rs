//! Scripted battles: fixed moves and a fixed seed on a small arena, asserting positions, HP,
//! the activation order and the winner. The rules are the standard library's; the scenario and
//! armies are written in the DSL like any user's.

#[path = "common/arena.rs"]
mod arena;

use arena::{battle, battle_seeded, last_note, setup, special, wait};
use oc_engine::ai::{Greedy, Tactician};
use oc_engine::battle::{Act, Battle, Record, State, Turn};
use oc_engine::Engine;
use oc_model::{Outcome, SideId, Verb};

#[test]
fn a_seize_ends_the_battle() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ephraim: Lord { items Rapier tags Leader } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 4)], &[(7, 0)]]);
    // Lord: movement 5 over Plains (cost 1): (1,4) -> (4,4) costs 3.
    assert_eq!(b.reachable(0).unwrap().get(&(4, 4)), Some(&3));
    b.turn(special(0, Some((4, 4)), Verb::Seize, None, None)).unwrap();
    assert_eq!(b.units[0].pos, (4, 4));
    assert_eq!(b.outcome.as_ref().map(|(o, _)| *o), Some(Outcome::Win(SideId::Attacker)));
    assert!(matches!(b.log.last(), Some(Record::End { round: 1, .. })));
    assert!(b.turn(wait(1)).is_err(), "nothing happens after the end");
}

#[test]
fn a_side_with_no_unit_left_has_lost_where_time_is_against_it() {
    // The defender wins by surviving, as it does when time runs out (`rounds 5 then defender`):
    // once the attacker's last unit is routed nothing is left to play, and the battle ends
    // there, not at the limit. (Where the other side's win is its own objective, a seize, it
    // plays on for it: `an_attack_uses_the_combat_engine_and_routs`.)
    let (mut rules, map) = setup(
        "army A for Arena attacker { unit Ross: Fighter { items SteelAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    rules.scenarios[0].defender.win = Some(oc_model::Condition::Survive { rounds: 5 });
    let engine = Engine::new(rules).unwrap();
    let mut ended = 0;
    for seed in 0..20 {
        let mut b = battle_seeded(&engine, &map, [&[(1, 2)], &[(6, 2)]], seed);
        b.state.units[0].hp = 1;
        b.turn(Turn { unit: 0, to: Some((5, 2)), act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
        if b.units[0].state != State::Routed {
            assert_eq!(b.outcome, None, "seed {seed}");
            continue;
        }
        ended += 1;
        let why = "the attacker has no unit left, and the defender wins when time runs out";
        assert_eq!(b.outcome, Some((Outcome::Win(SideId::Defender), why.to_string())), "seed {seed}");
        assert!(matches!(b.log.last(), Some(Record::End { round: 1, .. })), "seed {seed}");
    }
    assert!(ended > 0, "no seed routed the attacker");
}

#[test]
fn seizing_needs_the_tag_and_the_tile() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ephraim: Lord { items Rapier tags Leader } unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 4), (1, 3)], &[(7, 0)]]);
    // Ross has no Leader tag, so no action that seizes.
    assert!(b.turn(special(1, Some((4, 3)), Verb::Seize, None, None)).is_err());
    // Ephraim is not on the goal.
    assert!(b.turn(special(0, Some((3, 4)), Verb::Seize, None, None)).is_err());
    assert_eq!(b.units[0].pos, (1, 4), "a refused turn changes nothing");
}

#[test]
fn the_side_that_finishes_first_leads_the_next_round() {
    // The seed's example: 5 units against 7. Round 1 alternates A, D, A, D ... until the
    // attacker's fifth; the defender activates its sixth and seventh; the attacker finished
    // first, so it leads round 2.
    let five: String = (0..5).map(|i| format!("unit A{i}: Soldier {{ items IronLance }} ")).collect();
    let seven: String = (0..7).map(|i| format!("unit D{i}: Soldier {{ items IronLance }} ")).collect();
    let (rules, map) = setup(&format!("army A for Arena attacker {{ {five} }} army D for Arena defender {{ {seven} }}"));
    let engine = Engine::new(rules).unwrap();
    let a_tiles: Vec<(i64, i64)> = (0..5).map(|y| (0, y)).collect();
    let d_tiles: Vec<(i64, i64)> = (0..5).map(|y| (7, y)).chain([(6, 0), (6, 1)]).collect();
    let mut b = battle(&engine, &map, [&a_tiles, &d_tiles]);
    let mut order = Vec::new();
    while b.round == 1 {
        let side = b.to_act;
        order.push(if side == SideId::Attacker { 'A' } else { 'D' });
        let next = b.waiting(side)[0];
        b.turn(wait(next)).unwrap();
    }
    assert_eq!(order.iter().collect::<String>(), "ADADADADADDD");
    assert_eq!((b.round, b.first, b.to_act), (2, SideId::Attacker, SideId::Attacker));

    // The other way round: 7 attackers, 5 defenders. The defender finishes first and leads.
    let (rules, map) = setup(&format!(
        "army A for Arena attacker {{ {} }} army D for Arena defender {{ {} }}",
        seven.replace("unit D", "unit A"),
        five.replace("unit A", "unit D")
    ));
    let engine = Engine::new(rules).unwrap();
    let a7: Vec<(i64, i64)> = (0..5).map(|y| (0, y)).chain([(1, 0), (1, 1)]).collect();
    let d5: Vec<(i64, i64)> = (0..5).map(|y| (7, y)).collect();
    let mut b = battle(&engine, &map, [&a7, &d5]);
    while b.round == 1 {
        let next = b.waiting(b.to_act)[0];
        b.turn(wait(next)).unwrap();
    }
    assert_eq!((b.first, b.to_act), (SideId::Defender, SideId::Defender));
    assert!(b.log.contains(&Record::Round { round: 2, first: SideId::Defender }));
}

#[test]
fn a_dance_lets_an_ally_act_again() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Gilliam: Knight { items IronLance } unit Tethys: Dancer { items Vulnerary } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } unit Kyle: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 0), (0, 1)], &[(7, 0), (7, 4)]]);
    b.turn(wait(0)).unwrap();
    // The Dancer cannot dance for a unit that has not acted yet...
    b.turn(wait(2)).unwrap();
    assert!(b.waiting(SideId::Attacker) == vec![1]);
    // ...and re-activates Gilliam, who has.
    b.turn(special(1, None, Verb::Reactivate, Some(0), None)).unwrap();
    assert!(!b.units[0].activated);
    b.turn(wait(3)).unwrap();
    assert_eq!(b.round, 1, "the round goes on: Gilliam may act again");
    assert_eq!(b.waiting(SideId::Attacker), vec![0]);
    // Knight: Armored, cost 1 on Plains, movement 5 minus what its tags take.
    let to = *b.reachable(0).unwrap().keys().filter(|t| t.0 == 2).min().unwrap();
    b.turn(Turn { unit: 0, to: Some(to), equip: None, act: Act::Wait, ..Default::default() }).unwrap();
    assert_eq!(b.units[0].pos, to);
    assert_eq!(b.round, 2);
}

#[test]
fn a_fleeing_unit_escapes_and_wins() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Colm: Thief { items IronSword tags Fleeing } unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 0), (0, 4)], &[(7, 4)]]);
    // Ross cannot escape (no Fleeing), even standing on the exit.
    assert!(b.turn(special(1, Some((4, 0)), Verb::Escape, None, None)).is_err());
    b.turn(special(0, Some((4, 0)), Verb::Escape, None, None)).unwrap();
    assert_eq!(b.units[0].state, State::Escaped);
    assert_eq!(b.outcome.as_ref().map(|(o, _)| *o), Some(Outcome::Win(SideId::Attacker)));
}

#[test]
fn pick_opens_a_door_into_floor() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Colm: Thief { items IronSword } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 2)], &[(7, 4)]]);
    assert_eq!(b.terrain_at((4, 1)).unwrap().name, "Door");
    // A turn refused after its act (Colm has no Canto to move on with) leaves the door shut.
    let mut refused = special(0, Some((4, 2)), Verb::Open, None, Some((4, 1)));
    refused.then_to = Some((4, 3));
    assert!(b.turn(refused).is_err());
    assert_eq!(b.terrain_at((4, 1)).unwrap().name, "Door", "a refused turn changes nothing");
    // Doors are impassable until opened: nothing reaches (4, 0) through (4, 1) this turn.
    b.turn(special(0, Some((4, 2)), Verb::Open, None, Some((4, 1)))).unwrap();
    assert_eq!(b.terrain_at((4, 1)).unwrap().name, "Floor");
    assert!(
        matches!(b.log.last(), Some(Record::Turn { note, .. }) if note.contains("opens the Door at (4, 1): it is Floor now"))
    );
}

#[test]
fn a_fort_heals_two_at_the_end_of_the_turn() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 3)], &[(7, 4)]]);
    b.state.units[0].hp = 10;
    // Fort: Foot cost 2, heal 2 at end of turn (the Terrain Table).
    assert_eq!(b.reachable(0).unwrap().get(&(2, 3)), Some(&2));
    b.turn(Turn { unit: 0, to: Some((2, 3)), equip: None, act: Act::Wait, ..Default::default() }).unwrap();
    assert_eq!(b.units[0].hp, 12);
    assert!(b.log.contains(&Record::Recover { unit: 0, amount: 2, hp: 12 }));
}

#[test]
fn an_attack_uses_the_combat_engine_and_routs() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ross: Fighter { items SteelAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 2)], &[(6, 2)]]);
    b.state.units[1].hp = 1;
    // Ross walks to (5, 2), next to Bors, and attacks; a hit routs him. Seed 11 hits.
    b.turn(Turn { unit: 0, to: Some((5, 2)), equip: None, act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
    let Some(Record::Turn { routed, note, .. }) = b.log.iter().rev().find(|r| matches!(r, Record::Turn { .. })) else { panic!() };
    assert!(note.starts_with("Ross attacks Bors: attack "), "{note}");
    eprintln!("{note}");
    let first_lands =
        note.contains("attack ") && (note.split(", ").next().is_some_and(|s| s.ends_with("hit") || s.ends_with("crit")));
    assert_eq!(first_lands, b.units[1].hp == 0, "{note}");
    assert_eq!(routed.contains(&1), first_lands);
    assert_eq!(b.units[1].state == State::Routed, first_lands);
    assert_eq!(b.outcome.as_ref().map(|(o, _)| *o), None, "the attacker's win is a seize or an escape, not a rout");
    // Out of reach: an axe reaches 1.
    let mut b = battle(&engine, &map, [&[(1, 2)], &[(6, 2)]]);
    assert!(b
        .turn(Turn { unit: 0, to: Some((3, 2)), equip: None, act: Act::Attack { target: 1 }, ..Default::default() })
        .is_err());
}

#[test]
fn the_same_seed_gives_the_same_log() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ephraim: Lord { items Rapier tags Leader } unit Ross: Fighter { items IronAxe } unit Neimi: Archer { items IronBow } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } unit Garcia: Fighter { items IronAxe } unit Amelia: Soldier { items Javelin } }",
    );
    let engine = Engine::new(rules).unwrap();
    let s = &engine.rules.scenarios[0];
    let armies = [&engine.rules.armies[0], &engine.rules.armies[1]];
    // Both AIs: one seed, one log; different seeds, different games.
    let json = |seed, tactician: bool| {
        let mut ai: Box<dyn oc_engine::battle::Controller> =
            if tactician { Box::new(Tactician::default()) } else { Box::new(Greedy::default()) };
        let (_, log) = oc_engine::battle::play(&engine, s, &map, armies, seed, ai.as_mut()).unwrap();
        log.iter().map(|r| serde_json::to_string(r).unwrap()).collect::<Vec<_>>().join("\n")
    };
    for tactician in [false, true] {
        assert_eq!(json(42, tactician), json(42, tactician));
        let distinct: std::collections::HashSet<String> = (0..8).map(|s| json(s, tactician)).collect();
        assert!(distinct.len() > 1, "different seeds play differently");
    }
}

/// A greedy AI takes up the forecasts and guides the last one of its thread left with the same
/// engine: a game played after others on one thread is the game played on a fresh thread (nothing
/// kept), record for record, and an engine of its own (other numbers) plays it the same too.
#[test]
fn a_greedy_ai_plays_the_same_with_what_the_last_one_left() {
    let text = "army A for Arena attacker { unit Ephraim: Lord { items Rapier tags Leader } unit Ross: Fighter { items IronAxe } unit Neimi: Archer { items IronBow } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } unit Garcia: Fighter { items IronAxe } unit Amelia: Soldier { items Javelin } }";
    let (rules, map) = setup(text);
    let engine = Engine::new(rules).unwrap();
    let json = |engine: &Engine, seed| {
        let s = &engine.rules.scenarios[0];
        let armies = [&engine.rules.armies[0], &engine.rules.armies[1]];
        let (_, log) = oc_engine::battle::play(engine, s, &map, armies, seed, &mut Greedy::default()).unwrap();
        log.iter().map(|r| serde_json::to_string(r).unwrap()).collect::<Vec<_>>().join("\n")
    };
    let in_turn: Vec<String> = (0..6).map(|seed| json(&engine, seed)).collect();
    let (other, _) = setup(text);
    let other = Engine::new(other).unwrap();
    for (seed, log) in in_turn.iter().enumerate() {
        let fresh = std::thread::scope(|t| t.spawn(|| json(&engine, seed as u64)).join().unwrap());
        assert_eq!(&fresh, log, "seed {seed}: kept forecasts play as fresh ones");
        assert_eq!(&json(&other, seed as u64), log, "seed {seed}: another engine of the same rules");
    }
}

#[test]
fn a_wall_struck_down_becomes_floor() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ross: Fighter { items SteelAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 2)], &[(7, 4)]]);
    assert_eq!(b.terrain_at((3, 1)).unwrap().name, "Wall");
    // Fighter Str A + Steel Axe's might 1 = S against a wall's lowest Defense F: the Damage
    // Table's S/F cell, 7. The Terrain Table gives a Wall 30 HP: 23, 16, 9, 2, then Floor.
    let mut notes = Vec::new();
    for (k, to) in [Some((3, 2)), None, None, None, None].into_iter().enumerate() {
        b.turn(Turn { unit: 0, to, equip: None, act: Act::Strike { tile: (3, 1) }, ..Default::default() }).unwrap();
        if let Some(Record::Turn { note, .. }) = b.log.iter().rev().find(|r| matches!(r, Record::Turn { .. })) {
            notes.push(note.clone());
        }
        if k < 4 {
            b.turn(wait(1)).unwrap();
        }
    }
    assert_eq!(notes[0], "Ross strikes the Wall at (3, 1) for 7: 23 HP left");
    assert_eq!(notes[3], "Ross strikes the Wall at (3, 1) for 7: 2 HP left");
    assert_eq!(notes[4], "Ross strikes the Wall at (3, 1) for 7: it is Floor now");
    assert_eq!(b.terrain_at((3, 1)).unwrap().name, "Floor");
    // Plains cannot be struck down.
    b.turn(wait(1)).unwrap();
    assert!(b.turn(Turn { unit: 0, to: None, equip: None, act: Act::Strike { tile: (3, 3) }, ..Default::default() }).is_err());
}

#[test]
fn a_shifter_reverts_after_acting_until_the_next_round() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Myrrh: Manakete { items Dragonstone } unit Tethys: Dancer { items Vulnerary } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } unit Kyle: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 2), (0, 2)], &[(7, 2), (7, 4)]]);
    // Transformed, Myrrh breathes at Bors from 2 tiles (Dragonstone reaches 1..2).
    b.turn(Turn { unit: 0, to: Some((5, 2)), equip: None, act: Act::Attack { target: 2 }, ..Default::default() }).unwrap();
    assert!(b.units[0].reverted);
    assert!(b.log.contains(&Record::Affliction { unit: 0, status: "form".into(), change: "normal until the next round".into() }));
    b.turn(wait(2.min(b.waiting(SideId::Defender)[0]))).unwrap();
    // Danced, Myrrh acts again, but in her Normal form: the child's ratings (Str E), not the
    // dragon's (Str A).
    b.turn(special(1, Some((4, 2)), Verb::Reactivate, Some(0), None)).unwrap();
    let normal = b.loadout_of(0, true).unwrap();
    assert_eq!(normal.form, oc_engine::Form::Normal);
    // Attacked in her Normal form, Myrrh shows the child's Str E; the stone is the dragon's
    // ("They cannot equip any kind of weapon"), so she cannot attack with it in this form.
    let kyle = b.loadout_of(3, false).unwrap();
    let unarmed = oc_engine::Loadout { weapon: None, ..normal.clone() };
    let f = engine.forecast(&kyle, &unarmed, 1).unwrap();
    let str_of = |s: &oc_engine::SideForecast| s.effective.iter().find(|(n, _)| n == "str").map(|(_, v)| v.clone()).unwrap();
    assert_eq!(str_of(&f.defender), oc_engine::Shown::Text("E".into()));
    assert!(engine.forecast(&normal, &kyle, 1).is_err());
    assert!(b.turn(Turn { unit: 0, act: Act::Attack { target: 3 }, ..Default::default() }).is_err());
    let mut transformed = normal.clone();
    transformed.form = oc_engine::Form::Default;
    assert_eq!(str_of(&engine.forecast(&transformed, &kyle, 1).unwrap().attacker), oc_engine::Shown::Text("A".into()));
    if let Some(d) = b.waiting(SideId::Defender).first().copied() {
        b.turn(wait(d)).unwrap();
    }
    b.turn(wait(0)).unwrap();
    assert_eq!(b.round, 2);
    assert!(!b.units[0].reverted, "a new round: transformed again when activated");
}

#[test]
fn sleep_stops_a_unit_until_it_wears_off_on_its_roll() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Moulder: Priest { items SleepStaff } unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let (mut slept, mut woke) = (0, 0);
    // Seeds are searched in order, so the test is deterministic.
    for seed in 0..64 {
        let mut b = battle_seeded(&engine, &map, [&[(1, 2), (0, 0)], &[(6, 2)]], seed);
        b.turn(Turn { unit: 0, to: Some((4, 2)), equip: None, act: Act::Attack { target: 2 }, ..Default::default() }).unwrap();
        if !b.units[2].statuses.iter().any(|a| a.status == "Sleep") {
            continue;
        }
        slept += 1;
        assert!(b.log.contains(&Record::Affliction { unit: 2, status: "Sleep".into(), change: "inflicted".into() }));
        // Asleep: can_move = false and can_attack = false (the status's effects).
        assert_eq!(b.reachable(2).unwrap().len(), 1);
        assert!(b.turn(Turn { unit: 2, to: None, equip: None, act: Act::Attack { target: 0 }, ..Default::default() }).is_err());
        // Each new round rolls a d10 for it: 1-5, Sleep wears off.
        while b.outcome.is_none() {
            let next = b.waiting(b.to_act)[0];
            b.turn(wait(next)).unwrap();
            if b.log.contains(&Record::Affliction { unit: 2, status: "Sleep".into(), change: "wears off".into() }) {
                woke += 1;
                assert!(b.units[2].statuses.is_empty());
                assert!(b.reachable(2).unwrap().len() > 1, "awake, Bors can move again");
                // It wears off at the start of a round, before anyone acts in it.
                let at =
                    b.log.iter().position(|r| matches!(r, Record::Affliction { change, .. } if change == "wears off")).unwrap();
                assert!(matches!(b.log[at - 1], Record::Round { .. }), "{:?}", b.log[at - 1]);
                break;
            }
        }
    }
    assert!(slept >= 3, "the staff lands in some seeds: {slept}");
    // A sleeper has four start-of-round rolls in a 5-round battle: 15 in 16 wake up.
    assert!(woke >= 1 && woke <= slept, "{woke} of {slept} woke");
}

#[test]
fn consumables_heal_cure_and_run_out() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ross: Fighter { items IronAxe, Vulnerary, Antitoxin } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 0)], &[(7, 4)]]);
    b.state.units[0].hp = 4;
    let vulnerary =
        || Turn { unit: 0, act: Act::Use { item: "Vulnerary".into(), target: None, tile: None }, ..Default::default() };
    // Vulnerary: heal(self, 5), Consumable(3).
    for (round, hp) in [(1, 9), (2, 14), (3, 19)] {
        assert_eq!(b.round, round);
        b.turn(vulnerary()).unwrap();
        assert_eq!(b.units[0].hp, hp);
        b.turn(wait(1)).unwrap();
    }
    assert_eq!(b.units[0].items, ["IronAxe", "Antitoxin"], "three uses and the Vulnerary is gone");
    assert!(b.turn(vulnerary()).is_err());
    // Antitoxin: cure(self) removes every status.
    b.state.units[0].statuses.push(oc_engine::battle::Affliction { status: "Poisoned".into(), left: None });
    b.turn(Turn { unit: 0, act: Act::Use { item: "Antitoxin".into(), target: None, tile: None }, ..Default::default() }).unwrap();
    assert!(b.units[0].statuses.is_empty());
    assert!(b.log.contains(&Record::Affliction { unit: 0, status: "Poisoned".into(), change: "cured".into() }));
}

#[test]
fn a_staff_heals_an_adjacent_ally_and_trades_are_free() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Moulder: Priest { items HealStaff, Vulnerary } unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 2), (1, 2)], &[(7, 4)]]);
    b.state.units[1].hp = 8;
    // Heal(5): heal(target, x + self.heal_bonus); a Priest's heal bonus is the base 0.
    b.turn(Turn {
        unit: 0,
        act: Act::Special { verb: Verb::Heal, target: Some(1), tile: None, from: None },
        trade: Some(oc_engine::battle::Trade { with: 1, give: Some("Vulnerary".into()), take: None }),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(b.units[1].hp, 13);
    assert_eq!(last_note(&b), "Moulder heals Ross for 5");
    assert_eq!(b.units[1].items, ["IronAxe", "Vulnerary"]);
    // Not an enemy, and not out of reach.
    let mut b = battle(&engine, &map, [&[(0, 2), (1, 4)], &[(7, 4)]]);
    assert!(b
        .turn(Turn {
            unit: 0,
            act: Act::Special { verb: Verb::Heal, target: Some(1), tile: None, from: None },
            ..Default::default()
        })
        .is_err());
    assert!(b
        .turn(Turn {
            unit: 0,
            act: Act::Special { verb: Verb::Heal, target: Some(2), tile: None, from: None },
            ..Default::default()
        })
        .is_err());
}

#[test]
fn canto_moves_again_after_a_non_attack_action() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Forde: Cavalier { items IronSword } unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 2), (0, 4)], &[(7, 4)]]);
    // Forde (Canto) moves 2 of 5, waits, and uses the other 3.
    // Not farther than what is left: (6, 3) is 5 steps from (2, 2).
    b.turn(Turn { unit: 0, to: Some((2, 2)), then_to: Some((6, 3)), ..Default::default() }).unwrap_err();
    b.turn(Turn { unit: 0, to: Some((2, 2)), then_to: Some((4, 3)), ..Default::default() }).unwrap();
    assert_eq!(b.units[0].pos, (4, 3));
    b.turn(wait(2)).unwrap();
    // Ross has no Canto.
    assert!(b.turn(Turn { unit: 1, to: Some((1, 4)), then_to: Some((2, 4)), ..Default::default() }).is_err());
}

#[test]
fn a_blessed_accessory_heals_on_activation_and_pick_takes_a_chest() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Colm: Thief { items IronSword, HealingRing } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 4)], &[(7, 4)]]);
    b.state.units[0].hp = 10;
    // Healing Ring: Blessed(2), `on activated { heal(self, x) }`. Then Pick on the chest at (3, 4).
    b.turn(special(0, Some((3, 4)), Verb::TakeChest, None, None)).unwrap();
    assert!(
        b.log.iter().any(|r| matches!(r, Record::Trigger { unit: 0, note, .. } if note == "heals Colm for 2")),
        "{:?}",
        b.log
    );
    assert_eq!(b.units[0].hp, 12);
    // The map's chest holds an Elixir; the scenario fills it with a Vulnerary instead.
    assert_eq!(b.units[0].items, ["IronSword", "HealingRing", "Vulnerary"]);
    b.turn(wait(1)).unwrap();
    // The chest is empty now.
    assert!(b.turn(special(0, None, Verb::TakeChest, None, None)).is_err());
}

#[test]
fn a_saboteur_razes_into_ruins_and_a_rescue_staff_moves_an_ally() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Colm: Thief { items IronSword tags Saboteur } unit Moulder: Priest { items RescueStaff } unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 0), (0, 3), (1, 4)], &[(7, 4)]]);
    // Raze turns the tile into Ruins (raze(Ruins)); only on the scenario's raze tiles.
    assert!(b.turn(special(0, Some((3, 0)), Verb::Raze, None, None)).is_err());
    b.turn(special(0, Some((2, 0)), Verb::Raze, None, None)).unwrap();
    assert_eq!(b.terrain_at((2, 0)).unwrap().name, "Ruins");
    assert_eq!(b.outcome, None, "razing is not this attacker's objective");
    b.turn(wait(3)).unwrap();
    // Rescue: relocate(target, 1) puts Ross on a free tile next to Moulder.
    assert!(b.turn(special(1, None, Verb::Relocate, Some(2), Some((2, 2)))).is_err(), "(2, 2) is 2 tiles from Moulder");
    b.turn(special(1, None, Verb::Relocate, Some(2), Some((0, 2)))).unwrap();
    assert_eq!(b.units[2].pos, (0, 2));
}

#[test]
fn warp_reaches_as_far_as_the_staff_range_of_strength() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Moulder: Priest { items WarpStaff } unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 2), (1, 2)], &[(7, 4)]]);
    // relocate(target, staff_range[self.str]): a Priest's Str E gives the Staff Range table's 2.
    assert!(b.turn(special(0, None, Verb::Relocate, Some(1), Some((3, 2)))).is_err(), "3 tiles from Moulder");
    b.turn(special(0, None, Verb::Relocate, Some(1), Some((2, 2)))).unwrap();
    assert_eq!(b.units[1].pos, (2, 2));
    // Consumable(3): the staff's charges are spent by its action; the third use is the last.
    assert_eq!(b.units[0].spent, [(oc_engine::Atom::new("WarpStaff"), 1)]);
    b.turn(wait(2)).unwrap();
    b.turn(wait(1)).unwrap();
    // Round 2: the defender finished first and leads. Moulder steps next to Ross and warps him.
    assert_eq!((b.round, b.to_act), (2, SideId::Defender));
    b.turn(wait(2)).unwrap();
    b.turn(special(0, Some((1, 2)), Verb::Relocate, Some(1), Some((3, 2)))).unwrap();
    b.turn(wait(1)).unwrap();
    b.turn(wait(2)).unwrap();
    b.turn(special(0, Some((2, 2)), Verb::Relocate, Some(1), Some((2, 0)))).unwrap();
    assert_eq!(b.units[1].pos, (2, 0));
    assert!(!b.units[0].items.iter().any(|i| *i == "WarpStaff"), "{:?}", b.units[0]);
    assert!(last_note(&b).ends_with("the WarpStaff is used up"), "{}", last_note(&b));
}

const EMBERS: &str = "
// A home-brew status in the shape of seed 001's Poisoned: one roll of the ruleset's d100 at the
// start of each round either clears it or burns for 2, never both, never neither.
status Embers {
    on start_of_round { when roll(hit) > 50 { damage(self, 2) } }
} clears when roll(hit) <= 50 at start_of_round
// A trigger whose command sits under a condition (the shape of seed 001's Relic).
status Smoldering {
    on end_of_turn { when self.hp > 10 { damage(self, 3) } }
}
";

#[test]
fn a_start_of_round_trigger_and_its_clear_read_one_draw() {
    let (rules, map) = setup(&format!(
        "{EMBERS}
         army A for Arena attacker {{ unit Ross: Fighter {{ items IronAxe }} }}
         army D for Arena defender {{ unit Bors: Soldier {{ items IronLance }} }}"
    ));
    let engine = Engine::new(rules).unwrap();
    let (mut burnt, mut cleared) = (0, 0);
    for seed in 0..40 {
        let mut b = battle_seeded(&engine, &map, [&[(0, 0)], &[(7, 4)]], seed);
        b.state.units[0].statuses.push(oc_engine::battle::Affliction { status: "Embers".into(), left: None });
        let hp = b.units[0].hp;
        b.turn(wait(b.waiting(b.to_act)[0])).unwrap();
        b.turn(wait(b.waiting(b.to_act)[0])).unwrap();
        // Round 2 has begun: its start-of-round roll happened once for Ross.
        let burnt_now = b.units[0].hp == hp - 2;
        let cleared_now = b.units[0].statuses.is_empty();
        assert!(burnt_now != cleared_now, "seed {seed}: burnt {burnt_now}, cleared {cleared_now}");
        burnt += usize::from(burnt_now);
        cleared += usize::from(cleared_now);
    }
    assert!(burnt > 5 && cleared > 5, "both happen: burnt {burnt}, cleared {cleared}");
}

#[test]
fn a_condition_inside_a_trigger_is_evaluated() {
    let (rules, map) = setup(&format!(
        "{EMBERS}
         army A for Arena attacker {{ unit Ross: Fighter {{ items IronAxe }} }}
         army D for Arena defender {{ unit Bors: Soldier {{ items IronLance }} }}"
    ));
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 0)], &[(7, 4)]]);
    let ross = 0;
    b.state.units[ross].statuses.push(oc_engine::battle::Affliction { status: "Smoldering".into(), left: None });
    b.state.units[ross].hp = 12;
    let mut turns = 0;
    while b.outcome.is_none() && turns < 6 {
        let next = b.waiting(b.to_act)[0];
        b.turn(wait(next)).unwrap();
        turns += 1;
    }
    // 12 > 10: 3 damage at the end of its first turn; 9 is not above 10: no more.
    assert_eq!(b.units[ross].hp, 9, "{:?}", b.log);
}

/// A status's body is a tag's body (the guide's Statuses: "modifiers, `when`, `on EVENT`, grant
/// ..."): the events of a tag it grants run while it lasts, as the status's own do. (They never
/// ran: the battle read a status's own effects, not what it grants.)
#[test]
fn a_tag_granted_by_a_status_runs_its_events() {
    let (rules, map) = setup(
        "tag Hurt on class { on end_of_turn { damage(self, 3) } }
         status Burning { grant Hurt }
         army A for Arena attacker { unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 0)], &[(7, 4)]]);
    let (ross, bors) = (0, 1);
    b.state.units[ross].statuses.push(oc_engine::battle::Affliction { status: "Burning".into(), left: None });
    let mut turns = 0;
    while b.outcome.is_none() && turns < 4 {
        let next = b.waiting(b.to_act)[0];
        b.turn(wait(next)).unwrap();
        turns += 1;
    }
    // Two turns each: Ross burns twice, Bors (no status) never.
    assert_eq!((b.units[ross].hp, b.units[bors].hp), (20 - 6, b.units[bors].max_hp), "{:?}", b.log);
}

#[test]
fn a_heal_amount_can_depend_on_a_tag_parameter() {
    // The shape of seed 001's Sacred(Crest): "Restores 2 HP every turn, 4 if the unit has the
    // listed Crest" -- `heal(self, if self has c then 4 else 2)` could not be worked out before.
    let (rules, map) = setup(
        "tag Hallowed(c: Tag) on weapon { on activated { heal(self, if self has c then 4 else 2) } }
         weapon HolyAxe { type Axes might 0 weight 1 range 1 tags Hallowed(Leader) cost 300 }
         army A for Arena attacker { unit Ross: Fighter { items HolyAxe tags Leader } unit Cole: Fighter { items HolyAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 0), (0, 4)], &[(7, 4)]]);
    b.state.units[0].hp = 10;
    b.state.units[1].hp = 10;
    b.turn(wait(0)).unwrap();
    b.turn(wait(b.waiting(b.to_act)[0])).unwrap();
    b.turn(wait(1)).unwrap();
    assert_eq!((b.units[0].hp, b.units[1].hp), (14, 12), "{:?}", b.log);
}

#[test]
fn end_of_round_routed_and_attacked_triggers_fire() {
    let (rules, map) = setup(
        "status Mending { on end_of_round { heal(self, 1) } }
         status Doomed { on routed { damage(foe, 1) } }
         status Thorny { on attacked { damage(foe, 3) } }
         army A for Arena attacker { unit Ross: Fighter { items SteelAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    // end_of_round: Ross mends 1 when the round is over (both sides have acted).
    let mut b = battle(&engine, &map, [&[(0, 0)], &[(7, 4)]]);
    b.state.units[0].statuses.push(oc_engine::battle::Affliction { status: "Mending".into(), left: None });
    b.state.units[0].hp = 10;
    b.turn(wait(b.waiting(b.to_act)[0])).unwrap();
    assert_eq!(b.units[0].hp, 10, "not before the round ends");
    b.turn(wait(b.waiting(b.to_act)[0])).unwrap();
    assert_eq!(b.units[0].hp, 11, "{:?}", b.log);
    // attacked: Bors's thorns hurt Ross as he attacks, before the first strike; routed: Bors's
    // own trigger runs as he falls.
    let mut b = battle(&engine, &map, [&[(1, 2)], &[(6, 2)]]);
    b.state.units[1].statuses.push(oc_engine::battle::Affliction { status: "Thorny".into(), left: None });
    b.state.units[1].statuses.push(oc_engine::battle::Affliction { status: "Doomed".into(), left: None });
    b.state.units[1].hp = 1;
    let full = b.units[0].hp;
    b.turn(Turn { unit: 0, to: Some((5, 2)), equip: None, act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
    assert!(b.units[0].hp <= full - 3, "thorns: {} of {full}", b.units[0].hp);
    // Seed 11's first strike hits (see an_attack_uses_the_combat_engine_and_routs).
    assert_eq!(b.units[1].state, State::Routed, "{:?}", b.log);
    assert!(b.log.iter().any(|r| matches!(r, Record::Trigger { unit: 1, on: oc_model::Event::Routed, .. })), "{:?}", b.log);
    // Doomed's `damage(foe, 1)` reached Ross, who routed Bors: thorns 3, the trigger 1.
    assert!(b.units[0].hp <= full - 4, "doomed: {} of {full}", b.units[0].hp);
}

/// Ross (unit 0) walks to (5, 3) and waits; the defenders wait out the round.
fn approach_and_pass_the_round(b: &mut Battle) {
    b.turn(Turn { unit: 0, to: Some((5, 3)), ..Default::default() }).unwrap();
    while b.to_act == SideId::Defender {
        let next = b.waiting(SideId::Defender)[0];
        b.turn(wait(next)).unwrap();
    }
}

#[test]
fn a_berserk_unit_must_attack_the_weakest_in_range() {
    // Seed 000, Berserk: "Unit must attack the unit in range with the lowest Hp."
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } unit Cole: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 3)], &[(6, 2), (7, 3)]]);
    approach_and_pass_the_round(&mut b);
    b.state.units[0].statuses.push(oc_engine::battle::Affliction { status: "Berserk".into(), left: None });
    b.state.units[2].hp = 5;
    // From (6, 3) both are adjacent; Cole has the lower HP.
    let to = Some((6, 3));
    let refused = b.turn(Turn { unit: 0, to, act: Act::Attack { target: 1 }, ..Default::default() });
    assert!(refused.is_err_and(|e| e.to_string().contains("lowest HP: Cole")));
    assert!(b.turn(Turn { unit: 0, to, ..Default::default() }).is_err(), "it must attack, not wait");
    b.turn(Turn { unit: 0, to, act: Act::Attack { target: 2 }, ..Default::default() }).unwrap();
}

#[test]
fn an_inflicted_debuff_holds_until_the_end_of_the_targets_next_turn() {
    // Seed 000, Inflict(Rating-X): "Target unit has their Rating reduced by X on their next turn.
    // This effect does not stack."
    let (rules, map) = setup(
        "weapon HexAxe { type Axes might 0 weight 1 range 1 tags Inflict(spd-2) cost 300 }
         army A for Arena attacker { unit Ross: Fighter { items HexAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 2)], &[(6, 2)]]);
    // Seed 11: Ross's first strike hits.
    b.turn(Turn { unit: 0, to: Some((5, 2)), equip: None, act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
    let inflicted = Record::Affliction { unit: 1, status: "spd-2".into(), change: "inflicted".into() };
    assert!(b.log.contains(&inflicted), "{:?}", b.log);
    assert_eq!(b.units[1].debuffs.len(), 1, "one debuff, not one per hit: {:?}", b.units[1].debuffs);
    // Bors's next turn is his debuffed turn; it wears off when that turn ends.
    b.turn(wait(1)).unwrap();
    assert!(b.units[1].debuffs.is_empty());
    assert!(b.log.contains(&Record::Affliction { unit: 1, status: "spd-2".into(), change: "wears off".into() }));
}

#[test]
fn an_area_attack_fights_every_enemy_in_range() {
    // Seed 000, AoE: "Hits all targets in range." Reading: the chosen target, then every other
    // enemy within reach, nearest first, each in an exchange of its own.
    let (rules, map) = setup(
        "weapon Cleaver { type Axes might 0 weight 1 range 1 tags AoE cost 300 }
         army A for Arena attacker { unit Ross: Fighter { items Cleaver } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } unit Cole: Soldier { items IronLance } unit Dain: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 3)], &[(6, 2), (7, 3), (7, 0)]]);
    approach_and_pass_the_round(&mut b);
    b.turn(Turn { unit: 0, to: Some((6, 3)), act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
    let note = last_note(&b);
    assert!(note.starts_with("Ross attacks Bors: attack "), "{note}");
    assert!(note.contains("; attacks Cole: attack "), "Cole is in reach too: {note}");
    assert!(!note.contains("Dain"), "Dain is out of reach: {note}");
}

#[test]
fn an_art_is_an_attack_with_its_extra_damage() {
    // Seed 001, Arts: "a type of Special Action that acts as an attack" (Smash: `attack(target, 3)`).
    let (rules, map) = setup(
        "tag Cleave on weapon, class doc \"Art: an attack with 5 extra damage.\" { action { target enemy within 1 attack(target, 5) } }
         weapon GreatAxe { type Axes might 0 weight 1 range 1 tags Cleave cost 300 }
         army A for Arena attacker { unit Ross: Fighter { items GreatAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut plain = battle(&engine, &map, [&[(1, 2)], &[(6, 2)]]);
    plain.turn(Turn { unit: 0, to: Some((5, 2)), equip: None, act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
    let mut art = battle(&engine, &map, [&[(1, 2)], &[(6, 2)]]);
    art.turn(special(0, Some((5, 2)), Verb::Attack, Some(1), None)).unwrap();
    let note = last_note(&art);
    assert!(note.contains("attacks Bors: attack "), "{note}");
    // The same seed draws the same strikes; each of Ross's hits deals 5 more.
    let hits = note
        .split(", ")
        .filter(|s| s.contains("attack ") || s.contains("follow-up "))
        .filter(|s| s.ends_with("hit") || s.ends_with("crit"))
        .count() as i64;
    assert!(hits >= 1, "{note}");
    assert!(art.units[1].hp < plain.units[1].hp, "{} vs {}: {note}", art.units[1].hp, plain.units[1].hp);
}

#[test]
fn a_unit_routed_by_a_command_runs_its_routed_trigger() {
    let (rules, map) = setup(
        "status Withering { on end_of_turn { damage(self, 5) } }
         status Doomed { on routed { heal(foe, 1) } }
         army A for Arena attacker { unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 0)], &[(7, 4)]]);
    for status in ["Withering", "Doomed"] {
        b.state.units[0].statuses.push(oc_engine::battle::Affliction { status: status.into(), left: None });
    }
    b.state.units[0].hp = 3;
    b.turn(wait(0)).unwrap();
    assert_eq!(b.units[0].state, State::Routed, "{:?}", b.log);
    // Nobody routed Ross (his own status did): the trigger runs and finds no foe to heal.
    assert!(
        b.log
            .iter()
            .any(|r| matches!(r, Record::Trigger { unit: 0, on: oc_model::Event::Routed, note } if note.contains("no Foe"))),
        "{:?}",
        b.log
    );
}

/// A turn's undo copy is taken with `Combatant::clone_from` into last turn's copy: copying one
/// unit into another must give that unit, every field of it (a field left out would survive a
/// refused turn).
#[test]
fn a_unit_copied_into_another_is_that_unit() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Colm: Thief { items IronSword, Vulnerary } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 2)], &[(7, 4)]]);
    b.turn(Turn { unit: 0, to: Some((2, 2)), ..Default::default() }).unwrap();
    let (colm, bors) = (b.units[0].clone(), b.units[1].clone());
    assert_ne!(colm, bors);
    let mut copy = bors.clone();
    copy.clone_from(&colm);
    assert_eq!(copy, colm);
    let mut back = colm.clone();
    back.clone_from(&bors);
    assert_eq!(back, bors);
}

/// A game stopped by the bound on its turns says so, not that its rounds ran out (a review read
/// "no result after 30000 rounds" after 24,990).
#[test]
fn a_game_past_its_bounds_says_which() {
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let b = battle(&engine, &map, [&[(0, 0)], &[(7, 4)]]);
    assert_eq!(b.past_bounds(5, 1), None);
    assert_eq!(b.past_bounds(0, 1).as_deref(), Some("no result after 0 rounds"));
    let turns = b.past_bounds(5, 100_001).unwrap();
    assert!(turns.starts_with("no result after 100000 turns (in round 1)"), "{turns}");
}
