//! Seed 003 (`std:battlestorm`), the advanced rules of leadership, special combat situations and
//! weather: "A basic battle can be played using the standard rules. The advanced rules are
//! intended to be added, one at a time, as the players desire." Each is played where the
//! scenario switches it on (`advanced leadership`, `advanced situations`, `advanced weather`),
//! and acts through what a unit bears where it stands, so forecasts read it exactly.

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, State, Turn};
use oc_engine::Engine;
use oc_model::SideId;

/// A 10x5 field with a hill at (4, 2) and (5, 0); the attacker deploys in the west half, the
/// defender in the east half. The scenario plays `advanced`; each side has a General.
fn compiled(advanced: &str, armies: &str) -> (Engine, oc_model::BattleMap) {
    let rows = [".....h....", "..........", "....h.....", "..........", ".........."];
    let map = field::map(rows, "\"h\" = \"Hill\"\n\".\" = \"Plains\"", field::HALVES);
    let scenario = field::arena("std:battlestorm", advanced, "grant General to 1 at_least 1 with General");
    field::compiled(&map, &scenario, armies)
}

/// Each side: its general (a savage chief), two braves; the defender's a brave and a chief.
const ARMIES: &str = "army A for Arena attacker {\n\
    unit Ghor: SavageChief { items Shortsword tags General }\n\
    unit Brave: Savage { items Shortsword }\n\
    unit Brave2: Savage { items Shortsword }\n}\n\
    army D for Arena defender {\n\
    unit Foe: Savage { items Shortsword }\n\
    unit Urka: SavageChief { items Shortsword tags General }\n}";

use arena::{to_act, wait};

/// The chance that unit `i`, attacking `target` from `from`, hits with each strike (the battle's
/// forecast window) and fells it (a brave dies to any hit: 2d6 against Absorption 0).
fn odds(b: &Battle, i: usize, from: (i64, i64), target: usize) -> (f64, f64) {
    let f = b.attack_forecast(i, from, target, None).unwrap();
    (f.attacker.hit, f.defender_routed)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn units_too_far_from_their_general_are_out_of_command() {
    // "Players must designate one general per army. Penalties apply to units too far from the
    // general." Readings: too far is more than 6 tiles; the penalty is C.E.R. +2. A brave (C.E.R.
    // 3) striking a brave (Evasion 12) needs 15: 16 faces in 30; out of command 17: 14 in 30.
    // Brave stands 8 tiles from Ghor, Brave2 5 tiles.
    let deploy: [&[(i64, i64)]; 2] = [&[(0, 0), (4, 4), (4, 1)], &[(5, 4), (5, 1)]];
    let (plain, map) = compiled("", ARMIES);
    let b = arena::battle_seeded(&plain, &map, deploy, 1);
    let (hit, felled) = odds(&b, 1, (4, 4), 3);
    assert!(close(hit, 16.0 / 30.0) && close(felled, 16.0 / 30.0), "without leadership nobody is out of command");
    let (engine, map) = compiled("advanced leadership", ARMIES);
    let b = arena::battle_seeded(&engine, &map, deploy, 1);
    let (hit, felled) = odds(&b, 1, (4, 4), 3);
    assert!(close(hit, 14.0 / 30.0) && close(felled, 14.0 / 30.0), "{hit} {felled}");
    // Brave2 strikes Urka (Evasion 13) on 16 or more, as without leadership.
    assert!(close(odds(&b, 2, (4, 1), 4).0, 15.0 / 30.0));
    // Its forecast of a charge on Foe from (5, 3), 8 tiles from Ghor, counts it out of command
    // where it would stand.
    assert!(close(odds(&b, 2, (5, 3), 3).0, 14.0 / 30.0));
    // The battle's exchange strikes as forecast: each of Brave's strikes hits on 17 or more.
    let (mut hits, mut seen) = (0, 0);
    for seed in 0..100 {
        let mut b = arena::battle_seeded(&engine, &map, deploy, seed);
        to_act(&mut b, SideId::Attacker);
        let (note, rolls) = arena::strike(&mut b, 1, 3);
        assert!(!rolls.is_empty(), "{note}");
        for (roll, hit) in rolls {
            assert_eq!(hit, roll >= 17 || roll == 30, "{note}");
            hits += usize::from(hit);
            seen += usize::from(roll == 15 || roll == 16);
        }
    }
    assert!(hits > 0 && seen > 0, "{hits} {seen}");
}

#[test]
fn a_general_joined_to_a_unit_leads_from_it() {
    // "Players must designate one general per army"; "the spearmen (plus my leader) in the
    // center": Ghor, the general, begins the battle joined to the braves at (4, 4). Brave2, 3
    // tiles from them, is in command (16/30 on Foe); the general is not lost for being in a unit.
    let armies = "army A for Arena attacker {\n\
        unit Braves: Savage { figures 3 items Shortsword }\n\
        unit Ghor: SavageChief { items Shortsword tags General joins Braves }\n\
        unit Brave2: Savage { items Shortsword }\n}\n\
        army D for Arena defender {\n\
        unit Foe: Savage { items Shortsword }\n\
        unit Urka: SavageChief { items Shortsword tags General }\n}";
    let deploy: [&[(i64, i64)]; 2] = [&[(4, 4), (0, 0), (4, 1)], &[(5, 1), (9, 4)]];
    let (engine, map) = compiled("advanced leadership", armies);
    let mut b = arena::battle_seeded(&engine, &map, deploy, 1);
    assert!(close(odds(&b, 2, (4, 1), 3).0, 16.0 / 30.0), "{}", odds(&b, 2, (4, 1), 3).0);
    // He leads from where the braves stand: moved to (0, 0), 5 tiles from Brave2, and then
    // Brave2 striking from (6, 1), 7 tiles off, is out of command.
    b.state.units[0].pos = (0, 0);
    assert!(close(odds(&b, 2, (4, 1), 3).0, 16.0 / 30.0));
    assert!(close(odds(&b, 2, (6, 1), 3).0, 14.0 / 30.0), "{}", odds(&b, 2, (6, 1), 3).0);
}

#[test]
fn when_the_general_dies_his_units_save_or_leave_the_battle() {
    // "If the general dies, his units must make saving rolls to avoid leaving the battle."
    // Reading: the save is the courage check's d30 of at most Courage (20), rolled by each unit
    // of his side as the activation in which he died ends; failed, the unit leaves (routed).
    let deploy: [&[(i64, i64)]; 2] = [&[(0, 0), (4, 4), (4, 1)], &[(5, 4), (9, 0)]];
    let (engine, map) = compiled("advanced leadership", ARMIES);
    let (mut stayed, mut left) = (0, 0);
    for seed in 0..40 {
        let mut b = arena::battle_seeded(&engine, &map, deploy, seed);
        to_act(&mut b, SideId::Defender);
        // The defender's general falls (as a blow would leave him).
        b.state.units[4].hp = 0;
        b.state.units[4].state = State::Routed;
        let from = b.log.len();
        b.turn(wait(3)).unwrap();
        let saves: Vec<(usize, String, Vec<usize>)> = b.log[from..]
            .iter()
            .filter_map(|r| match r {
                Record::Courage { unit, note, routed, .. } => Some((*unit, note.clone(), routed.clone())),
                _ => None,
            })
            .collect();
        assert_eq!(saves.len(), 1, "only the Foe is left to save: {saves:?}");
        let (unit, note, routed) = &saves[0];
        assert_eq!(*unit, 3);
        let roll: i64 = note.split("rolled ").nth(1).unwrap().split(' ').next().unwrap().parse().unwrap();
        if roll <= 20 {
            assert_eq!(note, &format!("passes its save as its general Urka falls (rolled {roll} against 20)"));
            assert!(routed.is_empty() && b.units[3].state == State::Ready);
            stayed += 1;
        } else {
            assert_eq!(
                note,
                &format!("fails its save as its general Urka falls (rolled {roll} against 20) and leaves the battle")
            );
            assert_eq!(routed, &vec![3]);
            assert_eq!(b.units[3].state, State::Routed);
            left += 1;
        }
        // Once only: the next activation's end rolls nothing more.
        let later = b.log.len();
        if b.outcome.is_none() {
            let k = *b.may_act(b.to_act).last().unwrap();
            b.turn(wait(k)).unwrap();
            assert!(!b.log[later..].iter().any(|r| matches!(r, Record::Courage { .. })));
        }
    }
    assert!(stayed > 0 && left > 0, "{stayed} {left}");
    // Without leadership a general's death rolls nothing.
    let (plain, map) = compiled("", ARMIES);
    let mut b = arena::battle_seeded(&plain, &map, deploy, 3);
    to_act(&mut b, SideId::Defender);
    b.state.units[4].hp = 0;
    b.state.units[4].state = State::Routed;
    let from = b.log.len();
    b.turn(wait(3)).unwrap();
    assert!(!b.log[from..].iter().any(|r| matches!(r, Record::Courage { .. })));
}

#[test]
fn higher_ground_flank_and_rear_change_the_target_number_in_the_forecast() {
    // "New modifiers apply due to the tactical situation - whether an opponent is on higher
    // ground, attacking from rear or flank". Readings: the Hill is 1 high; striking down from it
    // -2 to the target number, up onto it +2; a target in contact with two or more enemies is
    // attacked from the flank (-2 in contact), one with enemies on two opposite sides from the
    // rear (-4).
    let deploy: [&[(i64, i64)]; 2] = [&[(0, 0), (4, 2), (3, 4)], &[(5, 2), (9, 0)]];
    let (plain, map) = compiled("", ARMIES);
    let b = arena::battle_seeded(&plain, &map, deploy, 1);
    assert!(close(odds(&b, 1, (4, 2), 3).0, 16.0 / 30.0), "without situations the hill is plain ground");
    assert!(close(odds(&b, 2, (5, 3), 3).0, 16.0 / 30.0));
    let (engine, map) = compiled("advanced situations", ARMIES);
    let b = arena::battle_seeded(&engine, &map, deploy, 1);
    // Brave on the hill at (4, 2) strikes Foe below: 13 or more.
    assert!(close(odds(&b, 1, (4, 2), 3).0, 18.0 / 30.0));
    // Foe strikes up at Brave on the hill: 17 or more.
    assert!(close(odds(&b, 3, (5, 2), 1).0, 14.0 / 30.0));
    // Brave2 comes to (5, 3), beside Foe, whom Brave already touches: a flank attack (the
    // forecast counts Brave2 where it will stand), 13 or more.
    assert!(close(odds(&b, 2, (5, 3), 3).0, 18.0 / 30.0));
    // From (6, 2), across Foe from Brave: the rear, 11 or more.
    assert!(close(odds(&b, 2, (6, 2), 3).0, 20.0 / 30.0));
    // With Brave back at (3, 2), out of contact, Brave2 alone touches Foe: no flank.
    let b2 = arena::battle_seeded(&engine, &map, [&[(0, 0), (3, 2), (3, 4)], &[(5, 2), (9, 0)]], 1);
    assert!(close(odds(&b2, 2, (5, 3), 3).0, 16.0 / 30.0));
    // The move made, the battle's own forecast agrees with the one made before it (the flank).
    let mut b = b;
    to_act(&mut b, SideId::Attacker);
    b.turn(Turn { unit: 2, to: Some((5, 3)), ..Default::default() }).unwrap();
    if b.answering() == Some(3) {
        b.turn(Turn { unit: 3, act: Act::Decline, ..Default::default() }).unwrap();
    }
    assert_eq!(b.units[2].pos, (5, 3));
    let (hit, felled) = odds(&b, 2, (5, 3), 3);
    assert!(close(hit, 18.0 / 30.0) && close(felled, 18.0 / 30.0), "{hit} {felled}");
}

#[test]
fn the_rear_attack_strikes_as_forecast() {
    // "attacking from rear or flank": the battle's exchange reads what its forecast read. Brave
    // holds Foe's west side and Brave2 its east side: each of Brave2's strikes hits on 11 or more.
    let deploy: [&[(i64, i64)]; 2] = [&[(0, 0), (4, 1), (3, 3)], &[(5, 1), (9, 4)]];
    let (engine, map) = compiled("advanced situations", ARMIES);
    let (mut hits, mut low) = (0, 0);
    for seed in 0..40 {
        let mut b = arena::battle_seeded(&engine, &map, deploy, seed);
        to_act(&mut b, SideId::Attacker);
        b.state.units[2].pos = (6, 1);
        let f = b.attack_forecast(2, (6, 1), 3, None).unwrap();
        assert!(close(f.attacker.hit, 20.0 / 30.0), "{}", f.attacker.hit);
        let (note, rolls) = arena::strike(&mut b, 2, 3);
        assert!(!rolls.is_empty(), "{note}");
        for (roll, hit) in rolls {
            assert_eq!(hit, roll >= 11 && roll != 1, "{note}");
            hits += usize::from(hit);
            low += usize::from(hit && roll < 15);
        }
    }
    assert!(hits > 0 && low > 0, "{hits} {low}");
}

/// A bow-woman each side, 4 tiles apart.
const BOWS: &str = "army A for Arena attacker {\n\
    unit Ghor: SavageChief { items Shortsword tags General }\n\
    unit Bows: ElvenBowWoman { items Longbow }\n}\n\
    army D for Arena defender {\n\
    unit Foe: Savage { items Shortsword }\n\
    unit Urka: SavageChief { items Shortsword tags General }\n}";

#[test]
fn the_weather_is_rolled_before_the_battle_and_every_shot_reads_it() {
    // "Weather: Ten varieties of weather are identified, and can be determined pre-game by a
    // random dieroll." Reading: a d10 of ten weathers; murk on shots beyond contact (Breeze 1,
    // HighWind 2, Gale 4, Drizzle 1, Rainfall 2, Downpour 4, Mist 6, Snowfall 2), a tile less of
    // movement in Rainfall, Downpour and Snowfall. A longbow (C.E.R. 6) at a savage (Evasion
    // 12) 4 tiles off needs 18: 13 faces in 30, and 18 + murk under the weather.
    let murk = |w: &str| match w {
        "Breeze" | "Drizzle" => 1,
        "HighWind" | "Rainfall" | "Snowfall" => 2,
        "Gale" | "Downpour" => 4,
        "Mist" => 6,
        _ => 0,
    };
    let table = ["FairWeather", "Overcast", "Breeze", "HighWind", "Gale", "Drizzle", "Rainfall", "Downpour", "Mist", "Snowfall"];
    let deploy: [&[(i64, i64)]; 2] = [&[(0, 0), (1, 2)], &[(5, 2), (9, 0)]];
    let (plain, map) = compiled("", BOWS);
    let (engine, wmap) = compiled("advanced weather", BOWS);
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..60 {
        let b = arena::battle_seeded(&engine, &wmap, deploy, seed);
        let Some(Record::Start { weather: Some(w), .. }) = b.log.first() else { panic!("no weather in {:?}", b.log.first()) };
        assert!((1..=10).contains(&w.roll));
        assert_eq!(w.status, table[(w.roll - 1) as usize]);
        seen.insert(w.roll);
        let hit = b.attack_forecast(1, (1, 2), 2, None).unwrap().attacker.hit;
        assert!(close(
            arena::battle_seeded(&plain, &map, deploy, seed).attack_forecast(1, (1, 2), 2, None).unwrap().attacker.hit,
            13.0 / 30.0
        ));
        let need = 18 + murk(&w.status);
        assert!(close(hit, (31 - need) as f64 / 30.0), "{} {hit}", w.status);
        // The battle's own dice are untouched: the first roll-off is the same without weather.
        let p = arena::battle_seeded(&plain, &map, deploy, seed);
        let first = |b: &Battle| b.log.iter().find(|r| matches!(r, Record::Rolloff { .. })).cloned();
        assert_eq!(first(&b), first(&p));
        let Some(Record::Start { weather: None, .. }) = p.log.first() else { panic!("weather without the option") };
        // Movement: a brave moves 4 tiles, 3 in rain and snow.
        let reach = b.reachable(2).unwrap();
        let slowed = matches!(w.status.as_str(), "Rainfall" | "Downpour" | "Snowfall");
        assert!(reach.contains_key(&(3, 1)));
        assert_eq!(reach.contains_key(&(2, 1)), !slowed, "{}", w.status);
    }
    assert!(seen.len() >= 8, "{seen:?}");
}

/// A spearman charging two savages who stand a tile apart.
const CHARGE: &str = "army A for Arena attacker {\n\
    unit Ghor: SavageChief { items Shortsword tags General }\n\
    unit Spears: HighElfSpearman { items ElvenSpear }\n\
    unit Braves: Savage { items Shortsword }\n}\n\
    army D for Arena defender {\n\
    unit Foe: Savage { items Shortsword }\n\
    unit Foe2: Savage { items Shortsword }\n\
    unit Urka: SavageChief { items Shortsword tags General }\n}";

/// Unit `i` moves to `to` and attacks `target`; every unit that may answer (too near, or the
/// melee declaration) declines. The notes of the lines logged.
fn charge(b: &mut Battle, i: usize, to: (i64, i64), target: usize) -> String {
    let from = b.log.len();
    b.turn(Turn { unit: i, to: Some(to), act: Act::Attack { target }, ..Default::default() }).unwrap();
    while let Some(k) = b.answering() {
        b.turn(Turn { unit: k, act: Act::Decline, ..Default::default() }).unwrap();
    }
    b.log[from..]
        .iter()
        .filter_map(|r| match r {
            Record::Turn { note, .. } | Record::Resolved { note, .. } => Some(note.clone()),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join(" | ")
}

#[test]
fn a_charge_with_a_charge_weapon_strikes_every_unit_in_contact() {
    // "Charging: Units, mounted or unmounted, using "charge weapons" have the special option of
    // making a charge. Charging units can attack multiple ranks, and even multiple units."
    // Readings: charge weapons are the long and very long melee classes (the elves' spear); a
    // charge is a move and an attack in one activation; the charger strikes its target, then
    // every other enemy in contact, each in a combat of its own.
    let deploy: [&[(i64, i64)]; 2] = [&[(0, 0), (3, 2), (3, 3)], &[(5, 1), (5, 3), (9, 4)]];
    let (plain, map) = compiled("", CHARGE);
    let (engine, cmap) = compiled("advanced charging", CHARGE);
    let mut swept = 0;
    for seed in 0..10 {
        let mut b = arena::battle_seeded(&plain, &map, deploy, seed);
        to_act(&mut b, SideId::Attacker);
        let note = charge(&mut b, 1, (5, 2), 3);
        assert!(note.contains("Spears attacks Foe:") && !note.contains("attacks Foe2"), "{note}");
        let mut b = arena::battle_seeded(&engine, &cmap, deploy, seed);
        to_act(&mut b, SideId::Attacker);
        let note = charge(&mut b, 1, (5, 2), 3);
        // Foe first, then Foe2, whom the spear's charge reaches too.
        assert!(note.contains("Spears attacks Foe: ") && note.contains("; attacks Foe2: "), "{note}");
        swept += 1;
        // Without a move there is no charge: only the target is struck.
        let mut b = arena::battle_seeded(&engine, &cmap, [&[(0, 0), (4, 2), (2, 4)], &[(5, 2), (6, 3), (9, 4)]], seed);
        b.state.units[4].pos = (4, 1);
        to_act(&mut b, SideId::Attacker);
        let note = charge(&mut b, 1, (4, 2), 3);
        assert!(note.contains("Spears attacks Foe:") && !note.contains("attacks Foe2"), "{note}");
        // A sword is no charge weapon: the braves' charge strikes their target only.
        let mut b = arena::battle_seeded(&engine, &cmap, deploy, seed);
        to_act(&mut b, SideId::Attacker);
        b.state.units[1].pos = (0, 4);
        let note = charge(&mut b, 2, (5, 2), 4);
        assert!(note.contains("Braves attacks Foe2:") && !note.contains("attacks Foe:"), "{note}");
    }
    assert_eq!(swept, 10);
}

#[test]
fn a_blow_from_hiding_strikes_a_foe_blind_to_it_and_a_hidden_unit_is_struck_blind() {
    // "New modifiers apply due to the tactical situation - whether an opponent is on higher
    // ground, attacking from rear or flank, blind, flying, and so forth." Readings: a hidden
    // unit (the action "hide") bears Unseen: its blow comes from hiding, -2 to the target
    // number; a blow on it is struck blind, +4. Brave (C.E.R. 3) on Foe (Evasion 12): 15.
    let deploy: [&[(i64, i64)]; 2] = [&[(0, 0), (4, 3), (0, 4)], &[(5, 3), (9, 0)]];
    let hide = |b: &mut Battle, k: usize| {
        let at = b.units[k].pos;
        b.state.units[k].hidden = Some(at);
    };
    let (plain, map) = compiled("", ARMIES);
    let mut b = arena::battle_seeded(&plain, &map, deploy, 1);
    hide(&mut b, 1);
    assert!(close(odds(&b, 1, (4, 3), 3).0, 16.0 / 30.0), "without situations hiding changes no number");
    let (engine, map) = compiled("advanced situations", ARMIES);
    let mut b = arena::battle_seeded(&engine, &map, deploy, 1);
    hide(&mut b, 1);
    // From hiding: 13 or more.
    assert!(close(odds(&b, 1, (4, 3), 3).0, 18.0 / 30.0));
    // Struck blind (Foe on the hidden Brave; no target may be chosen so, but a forecast reads
    // it): 19 or more.
    assert!(close(odds(&b, 3, (5, 3), 1).0, 12.0 / 30.0));
    // A move leaves the hiding place: from (5, 4) nothing is hidden.
    assert!(close(odds(&b, 1, (5, 4), 3).0, 16.0 / 30.0));
    // The battle's exchange reads what its forecast read: each strike from hiding hits on 13 or
    // more (the declared attack strikes hidden once Foe declines to answer), and then Brave is
    // seen.
    let (mut hits, mut low) = (0, 0);
    for seed in 0..40 {
        let mut b = arena::battle_seeded(&engine, &map, deploy, seed);
        hide(&mut b, 1);
        to_act(&mut b, SideId::Attacker);
        let (note, rolls) = arena::strike(&mut b, 1, 3);
        assert!(!rolls.is_empty(), "{note}");
        for (roll, hit) in rolls {
            assert_eq!(hit, roll >= 13 || roll == 30, "{note}");
            hits += usize::from(hit);
            low += usize::from(roll == 13 || roll == 14);
        }
        assert!(!b.hidden(1), "{note}");
    }
    assert!(hits > 0 && low > 0, "{hits} {low}");
}

#[test]
fn a_flyer_strikes_from_above_and_ignores_the_hill() {
    // "blind, flying": "Flying creatures cannot be higher than 6"". Readings: a unit with the
    // tag Flying (the Poison Wyvern) bears Aloft; it strikes one on the ground from above, -2
    // to the target number, one on the ground reaching up at it in melee +2, and height counts
    // for neither side where one flies.
    let armies = "army A for Arena attacker {\n\
        unit Ghor: SavageChief { items Shortsword tags General }\n\
        unit Brave: Savage { items Shortsword }\n}\n\
        army D for Arena defender {\n\
        unit Wyrm: PoisonWyvern { items WyvernBite, WyvernTalon, WyvernTail }\n\
        unit Urka: SavageChief { items Shortsword tags General }\n}";
    // Brave on the hill at (4, 2), the wyvern beside it on the plain.
    let deploy: [&[(i64, i64)]; 2] = [&[(0, 0), (4, 2)], &[(5, 2), (9, 0)]];
    let (plain, map) = compiled("", armies);
    let b = arena::battle_seeded(&plain, &map, deploy, 1);
    // Brave (C.E.R. 3) on the wyvern (Evasion 10): 13 or more; the wyvern (C.E.R. 0) on Brave
    // (Evasion 12): 12 or more.
    assert!(close(odds(&b, 1, (4, 2), 2).0, 18.0 / 30.0));
    assert!(close(odds(&b, 2, (5, 2), 1).0, 19.0 / 30.0));
    let (engine, map) = compiled("advanced situations", armies);
    let b = arena::battle_seeded(&engine, &map, deploy, 1);
    // Reaching up at it from the hill: 15 or more (the hill's -2 does not count against a
    // flyer, the +2 of reaching up does).
    assert!(close(odds(&b, 1, (4, 2), 2).0, 16.0 / 30.0));
    // The wyvern strikes from above: 10 or more (not uphill).
    assert!(close(odds(&b, 2, (5, 2), 1).0, 21.0 / 30.0));
    // Brave on the hill striking the chief Urka (Evasion 13) below still has the high ground
    // (nobody flies): 14 or more.
    let b2 = arena::battle_seeded(&engine, &map, [&[(0, 0), (4, 2)], &[(9, 0), (5, 2)]], 1);
    let (hit, _) = odds(&b2, 1, (4, 2), 3);
    assert!(close(hit, 17.0 / 30.0), "{hit}");
}

#[test]
fn an_area_weapon_strikes_every_unit_around_its_target() {
    // "Area-Affecting Weapons: Rules allow for special weapons (such as firearms) to affect an
    // area, rather than a single target." Readings: the dwarves' Blunderbuss has Blast(1): with
    // `advanced area` its shot also strikes every other unit within 1 tile of its target, friend
    // or foe, hidden or not, one strike each in an exchange of its own, nearest the target first.
    let armies = "army A for Arena attacker {\n\
        unit Ghor: SavageChief { items Shortsword tags General }\n\
        unit Gunner: DwarfGunner { items Blunderbuss }\n\
        unit Brave: Savage { items Shortsword }\n}\n\
        army D for Arena defender {\n\
        unit Foe: Savage { items Shortsword }\n\
        unit Urka: SavageChief { items Shortsword tags General }\n}";
    // The gunner at (3, 2) shoots Foe at (5, 2), 2 tiles off; Brave (a friend, on the hill) and
    // Urka stand next to Foe.
    let deploy: [&[(i64, i64)]; 2] = [&[(0, 0), (3, 2), (4, 2)], &[(5, 2), (6, 2)]];
    let shot = |advanced: &str, seed: u64| {
        let (engine, map) = compiled(advanced, armies);
        let mut b = arena::battle_seeded(&engine, &map, deploy, seed);
        // Urka hides (in odd seeds): no one may target him, but the blast strikes the ground.
        if seed % 2 == 1 {
            b.state.units[4].hidden = Some((6, 2));
        }
        to_act(&mut b, SideId::Attacker);
        arena::strike(&mut b, 1, 3).0
    };
    for seed in 0..6 {
        let plain = shot("", seed);
        assert!(plain.starts_with("Gunner attacks Foe: attack ") && !plain.contains("attacks Brave"), "{plain}");
        let note = shot("advanced area", seed);
        // The target, then Brave and Urka (both 1 tile from Foe: unit order), one strike each.
        let struck: Vec<&str> = note.split("; attacks ").collect();
        assert_eq!(struck.len(), 3, "{note}");
        assert!(struck[0].starts_with("Gunner attacks Foe: attack "), "{note}");
        for (part, name) in struck[1..].iter().zip(["Brave: attack ", "Urka: attack "]) {
            assert!(part.starts_with(name) && part.matches("attack ").count() == 1, "{note}");
        }
    }
}

#[test]
fn a_units_loadouts_on_many_tiles_are_each_its_loadout_moved_there() {
    // `Battle::loadouts_moved` builds each distinct loadout once: each tile's must be the one
    // `loadout_moved` makes there (hill and plain, in and out of command, in contact with one
    // enemy or two, across two), and two tiles share an index exactly where their loadouts are equal.
    let deploy: [&[(i64, i64)]; 2] = [&[(0, 0), (4, 1), (3, 3)], &[(5, 1), (5, 3)]];
    let (engine, map) = compiled("advanced leadership, situations", ARMIES);
    let b = arena::battle_seeded(&engine, &map, deploy, 1);
    assert!(b.situated());
    let tiles: Vec<(i64, i64)> = (0..10).flat_map(|x| (0..5).map(move |y| (x, y))).collect();
    let mut most = 0;
    for i in 0..b.units.len() {
        for acting in [true, false] {
            let (mine, at) = b.loadouts_moved(i, acting, tiles.iter().copied());
            assert_eq!(at.len(), tiles.len());
            most = most.max(mine.len());
            for (n, t) in tiles.iter().enumerate() {
                let own = at[n].map(|k| &mine[k]);
                assert_eq!(own, b.loadout_moved(i, acting, (i, *t)).as_ref(), "unit {i} on {t:?}");
                for (m, _) in tiles.iter().enumerate() {
                    assert_eq!(at[n] == at[m], own == at[m].map(|k| &mine[k]));
                }
            }
        }
    }
    assert!(most > 3, "the tiles lay several loadouts on a unit");
}
