//! Seed 003 (`std:battlestorm`), Damage and Projectile Combat: the Critical Hit table a champion
//! rolls on instead of dying, and the Fumble Chart of powerful characters, both acted on after
//! the exchange (the combat formula `chart`, `on chart`); the survival roll stays inside the
//! exchange, exact in forecasts.

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, Turn};
use oc_engine::{Engine, Exchange, Loadout};
use oc_model::SideId;

/// A 10x5 open field; both sides may deploy anywhere (the tests place units face to face); each
/// side grants Champion to 2 units.
fn compiled(armies: &str) -> (Engine, oc_model::BattleMap) {
    let scenario = field::arena("std:battlestorm", "", "grant Champion to 2");
    field::compiled(&field::map(field::OPEN, "", field::ANYWHERE), &scenario, armies)
}

fn attack(unit: usize, target: usize) -> Turn {
    Turn { unit, act: Act::Attack { target }, ..Default::default() }
}

/// Until the attacker is to act, the defender's units `waiting` wait in turn (the roll-off's
/// winner never matters).
fn to_attacker(b: &mut Battle, waiting: &[usize]) {
    for k in waiting {
        if b.to_act == SideId::Attacker {
            return;
        }
        b.turn(Turn { unit: *k, act: Act::Wait, ..Default::default() }).unwrap();
    }
}

fn shoot(b: &mut Battle, shooter: usize, target: usize) {
    to_attacker(b, &[target]);
    b.turn(attack(shooter, target)).unwrap();
}

/// The notes of `on chart` triggers from `from` on: (unit, note).
fn charted(b: &Battle, from: usize) -> Vec<(usize, String)> {
    b.log[from..]
        .iter()
        .filter_map(|r| match r {
            Record::Trigger { unit, on: oc_model::Event::Chart, note } => Some((*unit, note.clone())),
            _ => None,
        })
        .collect()
}

fn champion(class: &str, weapon: &str, statuses: &[&str]) -> Loadout {
    let mut l = Loadout::new(class, Some(weapon));
    l.tags.push(("Champion".into(), vec![]));
    l.statuses = statuses.iter().map(|s| (*s).into()).collect();
    l
}

#[test]
fn a_champions_lethal_blow_rolls_on_the_critical_hit_table_and_each_lasting_wound_widens_its_killing_band() {
    // "Champions are designated prior to play ... Whenever a champion receives damage that would
    // kill him (if he were not a champion), he instead suffers the result of a roll on the
    // Critical Hit tables." Reading: a d100, 1-20 the blow kills all the same; each lasting wound
    // (Gashed, Hobbled) widens that band by 25, so a champion does not survive for ever.
    let (engine, _) = compiled("");
    let bite = Loadout::new("PoisonWyvern", Some("WyvernBite"));
    // C.E.R. 0 against Evasion 12: a roll of 12 or more (19 faces) kills a common brave.
    let f = Exchange::new(&engine, &bite, &champion("Savage", "Shortsword", &[]), 1).unwrap().forecast();
    assert!((f.defender_routed - 19.0 / 30.0 * 0.20).abs() < 1e-12, "{}", f.defender_routed);
    // Gashed (Evasion -2): 10 or more (21 faces), and 1-45 kills.
    let f = Exchange::new(&engine, &bite, &champion("Savage", "Shortsword", &["Gashed"]), 1).unwrap().forecast();
    assert!((f.defender_routed - 21.0 / 30.0 * 0.45).abs() < 1e-12, "{}", f.defender_routed);
    // "The wyvern suffers a permanent Evasion penalty": Gashed and Hobbled (-3): 7 or more (24
    // faces), and 1-70 kills.
    let worn = champion("Savage", "Shortsword", &["Gashed", "Hobbled"]);
    let x = Exchange::new(&engine, &bite, &worn, 1).unwrap();
    let f = x.forecast();
    assert!((f.defender_routed - 24.0 / 30.0 * 0.70).abs() < 1e-12, "{}", f.defender_routed);
    let n = 100_000u64;
    let fell = (0..n).filter(|s| x.resolve_hp(&mut oc_engine::rng(*s))[1] <= 0).count() as f64 / n as f64;
    assert!((fell - f.defender_routed).abs() < 0.005, "{fell} {}", f.defender_routed);
}

#[test]
fn the_critical_hit_tables_results_land_after_the_exchange() {
    // "A percentile roll of "87" results in Foot Cut Off At Ankle. The wyvern suffers a permanent
    // Evasion penalty, and must make saving rolls to avoid routing and to avoid falling down."
    // A bow-woman shoots a champion brave (in the open, 3 tiles): each lethal hit he survives is
    // a band of the table, laid on him once the exchange is over.
    let armies = "army A for Arena attacker { unit Bow: ElvenBowWoman { items Longbow } }\n\
                  army D for Arena defender { unit Brave: Savage { items Shortsword tags Champion } }";
    let (engine, map) = compiled(armies);
    let mut seen = std::collections::BTreeSet::new();
    for seed in 0..300 {
        let mut b = arena::battle_seeded(&engine, &map, [&[(2, 2)], &[(5, 2)]], seed);
        let from = b.log.len();
        shoot(&mut b, 0, 1);
        let brave = &b.state.units[1];
        for (unit, note) in charted(&b, from) {
            assert_eq!(unit, 0, "the striker's table: {note}");
            for status in ["Senseless", "Gashed", "Hobbled"] {
                if note.contains(status) {
                    seen.insert(status);
                    // Left standing at his last Fate point (a common: 1), unless the second
                    // arrow killed him after all.
                    if brave.hp > 0 {
                        assert!(brave.statuses.iter().any(|s| s.status.as_str() == status), "{note}: {:?}", brave.statuses);
                        assert_eq!(brave.hp, 1);
                    }
                }
            }
        }
    }
    assert_eq!(seen.len(), 3, "{seen:?}");
}

#[test]
fn powerful_characters_who_fumble_roll_on_the_fumble_chart_and_commons_do_not() {
    // "Rolling a "1" is a Fumble (an automatic miss). When powerful characters fumble, they must
    // roll on the Fumble Chart to determine what happened (weapon broken or dropped, attack hits
    // friend or self, attacker loses footing, etc.)." Reading: heroes (more than one Fate point)
    // and champions; a d6: 1 his weapon breaks, 2 he drops it (Disarmed), 3 the attack lands on
    // the friend beside him, 4 on himself, 5-6 he loses his footing (Stumbled).
    // Fenth shoots with his longbow, a bow-woman at his side.
    let armies =
        "army A for Arena attacker { unit Fenth: FenthGallinir { items Longbow } unit Bow: ElvenBowWoman { items Longbow } }\n\
                  army D for Arena defender { unit Brave: Savage { items Shortsword } unit Brave2: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    let mut seen = std::collections::BTreeSet::new();
    let mut fumbles = 0;
    for seed in 0..800 {
        let mut b = arena::battle_seeded(&engine, &map, [&[(2, 1), (2, 2)], &[(7, 1), (7, 3)]], seed);
        let from = b.log.len();
        let (hp, bow) = (b.state.units[0].hp, b.state.units[1].hp);
        to_attacker(&mut b, &[2, 3]);
        b.turn(attack(0, 2)).unwrap();
        let shots = b.log[from..]
            .iter()
            .filter_map(|r| if let Record::Turn { note, .. } = r { Some(note.clone()) } else { None })
            .collect::<Vec<_>>()
            .join(" ");
        let chart = charted(&b, from);
        // A natural 1 ("attack 1 miss") is a fumble; each is charted (Fenth's own, and any the
        // bow-woman makes when his blow lands on her: she is a common, and charts none).
        let ones = shots.matches("attack 1 miss").count();
        assert_eq!(chart.len(), ones, "{shots} {chart:?}");
        fumbles += ones;
        for (unit, note) in chart {
            assert_eq!(unit, 0, "{note}");
            let fenth = &b.state.units[0];
            if note.contains("Disarmed") || note.contains("Stumbled") {
                let status = if note.contains("Disarmed") { "Disarmed" } else { "Stumbled" };
                seen.insert(status);
                assert!(fenth.statuses.iter().any(|s| s.status.as_str() == status), "{note}");
            } else if note.contains("breaks") {
                // "weapon broken": gone for the rest of the battle.
                seen.insert("broken");
                assert_eq!(note, "Fenth's Longbow breaks: it has no weapon left");
                assert!(fenth.items.is_empty() && fenth.equipped.is_none(), "{:?}", fenth.items);
            } else if note.starts_with("its blow lands on a friend") {
                // "attack hits friend": a free attack on the bow-woman beside him.
                seen.insert("friend");
                assert!(note.starts_with("its blow lands on a friend: Bow: attack"), "{note}");
                let struck = b.state.units[1].hp;
                // A miss leaves her whole; a hit may be absorbed.
                assert!(struck == bow || note.contains(" hit"), "{note}");
            } else {
                seen.insert("himself");
                assert_eq!(note, "deals 1 damage to Fenth", "{note}");
                assert_eq!(fenth.hp, hp - 1, "{note}");
            }
        }
        // The bow-woman, a common, fumbles with no chart.
        let from = b.log.len();
        if b.to_act == SideId::Attacker && b.turn(attack(1, 3)).is_ok() {
            assert!(charted(&b, from).is_empty());
        }
    }
    assert!(fumbles > 20, "{fumbles}");
    assert_eq!(seen.len(), 5, "{seen:?}");
}

#[test]
fn a_broken_weapon_is_gone_for_the_rest_of_the_battle() {
    // "weapon broken or dropped": dropped, the weapon is back in his hand after his next
    // activation (Disarmed); broken, it is gone. Fenth, who carries a Runeblade and a longbow,
    // breaks the blade and fights on with the bow; a chief whose one shortsword breaks has no
    // weapon left.
    let armies = "army A for Arena attacker { unit Fenth: FenthGallinir { items Runeblade, Longbow } unit Ghor: SavageChief { items Shortsword } }\n\
                  army D for Arena defender { unit Brave: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    let (mut blade, mut sword) = (0, 0);
    for seed in 0..3000 {
        let mut b = arena::battle_seeded(&engine, &map, [&[(6, 2), (7, 1)], &[(7, 2)]], seed);
        let from = b.log.len();
        to_attacker(&mut b, &[2]);
        let who = (seed % 2) as usize;
        b.turn(attack(who, 2)).unwrap();
        // A melee declaration: the brave declines to answer, and the attack resolves.
        if b.to_act == SideId::Defender && !b.state.pending.is_empty() {
            b.turn(Turn { unit: 2, act: Act::Decline, ..Default::default() }).unwrap();
        }
        if !charted(&b, from).iter().any(|(_, n)| n.contains("breaks")) {
            continue;
        }
        let u = &b.state.units[who];
        if who == 0 {
            blade += 1;
            assert_eq!(u.equipped.as_deref(), Some("Longbow"), "{:?}", b.log);
            assert!(!u.items.iter().any(|i| i.as_str() == "Runeblade"));
            assert_eq!(b.loadout_of(0, true).unwrap().weapon.as_deref(), Some("Longbow"));
        } else {
            sword += 1;
            assert!(u.equipped.is_none() && u.items.is_empty(), "{:?}", b.log);
            assert_eq!(b.loadout_of(1, true).unwrap().weapon, None);
        }
    }
    assert!(blade > 3 && sword > 3, "{blade} {sword}");
}
