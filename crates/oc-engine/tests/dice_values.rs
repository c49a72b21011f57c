//! Dice as values (issue 10, part 1; seed 003's examples): a `Dice` stat (the wyvern's
//! Absorption 3d4), dice carried by a weapon's tag (`Deals(2d10 + 3d8)`), rolled in the combat
//! formulas with `roll(attacker.damage_dice)` and `roll(defender.absorption)`.

use std::collections::BTreeMap;

use oc_compiler::{MemoryHost, Workspace};
use oc_engine::{rng, Engine, Exchange, Loadout};

/// Seed 003's combat, reduced to one attack: "adding together the attacker's Combat Error Rating
/// (C.E.R.) and the defender's Evasion rating. To score a hit, the attacker must roll this number
/// or higher with a 30-sided die"; damage less the target's rolled Absorption.
const STORM: &str = "ruleset storm {
    stat cer: Int
    stat evasion: Int
    stat absorption: Dice
    base damage_dice: Dice = 0
    base hp: Int = 25
    inventory 3
    dice hit d30
    combat {
        hit = roll(hit) >= attacker.cer + defender.evasion
        critical = false
        damage = max(0, roll(attacker.damage_dice) - roll(defender.absorption))
        critical_damage = 0
        follow_up = false
        counter = false
    }
}
weapon_type Natural physical
tag Deals(d: Dice) on weapon doc \"The weapon's damage dice.\" { damage_dice = d }
// \"Savage (C.E.R. 3, Evasion 12, Shortsword 2d6, Absorption 0, common)\"
class Savage { ratings { cer 3 evasion 12 absorption 0 } wields Natural cost 10 }
// \"The wyvern has an Absorption of 3d4\"; \"against the wyvern's Evasion of 10\"
class PoisonWyvern { ratings { cer 0 evasion 10 absorption 3d4 } wields Natural cost 65 }
weapon Shortsword { type Natural might 0 weight 0 range 1 cost 1 tags Deals(2d6) }
// \"The wyvern's bite damage is 2d10 + 3d8\"
weapon WyvernBite { type Natural might 0 weight 0 range 1 cost 1 tags Deals(2d10 + 3d8) }
";

fn engine() -> Engine {
    let mut ws = Workspace::new();
    let mut host = MemoryHost::one("s.oc", STORM);
    let (c, _) = ws.compile(&mut host, &["s.oc".to_string()]);
    let rules = c.rules.unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    Engine::new(rules).unwrap()
}

fn pool(n: usize, sides: i64) -> BTreeMap<i64, f64> {
    let mut d = BTreeMap::from([(0, 1.0)]);
    for _ in 0..n {
        let mut next = BTreeMap::new();
        for (v, q) in &d {
            for f in 1..=sides {
                *next.entry(v + f).or_insert(0.0) += q / sides as f64;
            }
        }
        d = next;
    }
    d
}

fn savage() -> Loadout {
    Loadout::new("Savage", Some("Shortsword"))
}

fn wyvern() -> Loadout {
    Loadout::new("PoisonWyvern", Some("WyvernBite"))
}

#[test]
fn savages_hit_the_wyvern_on_13_and_roll_2d6_against_its_3d4() {
    let e = engine();
    let f = e.forecast(&savage(), &wyvern(), 1).unwrap();
    // "The savages have a C.E.R. of 3 vs. the wyvern's Evasion of 10, so their target number is
    // (3 + 10 =) 13": 18 of 30 faces.
    assert!((f.attacker.hit - 0.6).abs() < 1e-12, "{}", f.attacker.hit);
    // Damage: max(0, 2d6 - 3d4), by brute force.
    let (sword, absorb) = (pool(2, 6), pool(3, 4));
    let mut want: BTreeMap<i64, f64> = BTreeMap::new();
    for (s, p) in &sword {
        for (a, q) in &absorb {
            *want.entry((s - a).max(0)).or_default() += 0.6 * p * q;
        }
    }
    *want.entry(0).or_default() += 0.4;
    for (dmg, p) in &want {
        let got = f.defender_hp.get(&(25 - dmg)).copied().unwrap_or(0.0);
        assert!((got - p).abs() < 1e-12, "damage {dmg}: {got} vs {p}");
    }
    assert_eq!(f.defender_hp.len(), want.len());
}

#[test]
fn the_wyverns_bite_is_2d10_plus_3d8_against_absorption_0() {
    let e = engine();
    let f = e.forecast(&wyvern(), &savage(), 1).unwrap();
    // "All of its attack forms have a C.E.R. of 0 which, against the braves' Evasion of 12,
    // results in target numbers of (0 + 12 =) 12": 19 of 30 faces.
    assert!((f.attacker.hit - 19.0 / 30.0).abs() < 1e-12);
    // 2d10 + 3d8 spans 5..44; the savage's 25 HP fall when it rolls 25 or more.
    let bite: f64 = pool(2, 10)
        .iter()
        .flat_map(|(a, p)| pool(3, 8).into_iter().map(move |(b, q)| (a + b, p * q)))
        .filter(|(v, _)| *v >= 25)
        .map(|(_, p)| p)
        .sum();
    assert!((f.defender_routed - 19.0 / 30.0 * bite).abs() < 1e-12, "{} vs {}", f.defender_routed, 19.0 / 30.0 * bite);
    // The effective stats show the dice.
    let shown = format!("{:?}", f.attacker.effective);
    assert!(shown.contains("2d10 + 3d8") && shown.contains("3d4"), "{shown}");
}

#[test]
fn dice_values_agree_with_a_million_resolutions() {
    let e = engine();
    let (a, d) = (savage(), wyvern());
    let exchange = Exchange::new(&e, &a, &d, 1).unwrap();
    let exact = exchange.forecast();
    let mut g = rng(3);
    let n = 1_000_000u32;
    let mut counts: BTreeMap<i64, u32> = BTreeMap::new();
    for _ in 0..n {
        *counts.entry(exchange.resolve_hp(&mut g)[1]).or_default() += 1;
    }
    for (hp, c) in &counts {
        let p = exact.defender_hp.get(hp).copied();
        assert!(p.is_some(), "HP {hp} rolled but impossible in the forecast");
        let sampled = f64::from(*c) / f64::from(n);
        assert!((sampled - p.unwrap_or(0.0)).abs() < 0.003, "HP {hp}: sampled {sampled}, exact {p:?}");
    }
}
