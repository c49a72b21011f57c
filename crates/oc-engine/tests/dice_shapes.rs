//! Dice shapes (issue 10, part 1): pools (`2d6`), exploding dice (`d10!`), keep highest/lowest
//! (`2d20kh1`), listed faces (`d{0,0,1,1,2,3}`), sums of dice (`2d10 + 3d8`) and opposed rolls
//! (`roll(acc, defender)`). Each is checked against its exact value, and the exact forecast
//! against 10^6 seeded resolutions within 0.3 percentage points for every HP outcome.

use std::collections::BTreeMap;

use oc_compiler::{MemoryHost, Workspace};
use oc_engine::{rng, Engine, Exchange, Loadout};

/// A one-class ruleset: every unit has 100 HP, the attacker strikes once (no counter).
fn ruleset(dice: &str, hit: &str, damage: &str) -> Engine {
    let text = format!(
        "ruleset homebrew {{
    stat str: Int
    base hp: Int = 100
    inventory 3
    {dice}
    combat {{
        hit = {hit}
        critical = false
        damage = {damage}
        critical_damage = 0
        follow_up = false
        counter = false
    }}
}}
weapon_type Blades physical
class Duelist {{ ratings {{ str 1 }} wields Blades cost 100 }}
weapon Knife {{ type Blades might 1 weight 0 range 1 cost 10 }}
"
    );
    let mut ws = Workspace::new();
    let mut host = MemoryHost::one("h.oc", &text);
    let (c, _) = ws.compile(&mut host, &["h.oc".to_string()]);
    let rules = c.rules.unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    Engine::new(rules).unwrap()
}

fn duelist() -> Loadout {
    Loadout::new("Duelist", Some("Knife"))
}

/// The exact chance of each damage the defender takes.
fn exact(e: &Engine) -> BTreeMap<i64, f64> {
    let f = e.forecast(&duelist(), &duelist(), 1).unwrap();
    let total: f64 = f.defender_hp.values().sum();
    assert!((total - 1.0).abs() < 1e-12, "the forecast sums to {total}");
    f.defender_hp.iter().map(|(hp, p)| (100 - hp, *p)).collect()
}

fn p(dist: &BTreeMap<i64, f64>, damage: i64) -> f64 {
    dist.get(&damage).copied().unwrap_or(0.0)
}

/// 10^6 seeded exchanges agree with the exact forecast within 0.3 pp for every damage value.
fn agrees_with_a_million_resolutions(e: &Engine, seed: u64) {
    const N: u32 = 1_000_000;
    let (a, d) = (duelist(), duelist());
    let exchange = Exchange::new(e, &a, &d, 1).unwrap();
    let mut generator = rng(seed);
    let mut counts: BTreeMap<i64, u32> = BTreeMap::new();
    for _ in 0..N {
        *counts.entry(100 - exchange.resolve_hp(&mut generator)[1]).or_default() += 1;
    }
    let exact = exact(e);
    for (damage, n) in &counts {
        assert!(exact.contains_key(damage), "damage {damage} was rolled but the forecast says it cannot happen");
        let sampled = f64::from(*n) / f64::from(N);
        assert!((sampled - p(&exact, *damage)).abs() < 0.003, "damage {damage}: sampled {sampled}, exact {}", p(&exact, *damage));
    }
    for (damage, q) in &exact {
        if !counts.contains_key(damage) {
            assert!(*q < 0.003, "damage {damage} ({q}) never rolled in 10^6");
        }
    }
}

// Seed 002: "you need to meet or beat the enemy's Accuracy" — both sides roll the same kind of
// die. With a d8 each, P(attacker >= defender) = 36/64 = 56.25% (before: a second roll of the
// same name read the attacker's own draw, so it was 100%).
fn opposed() -> Engine {
    ruleset("dice acc d8", "roll(acc) >= roll(acc, defender)", "1")
}

// Seed 003: "if you roll a 10 on a d10, you roll again and add" (the bow's damage die).
fn exploding() -> Engine {
    ruleset("dice bow d10!", "true", "roll(bow)")
}

// Keep the highest of two d20 (advantage) against 11 or more, damage 2d6.
fn keep_highest() -> Engine {
    ruleset("dice adv 2d20kh1\n    dice dmg 2d6", "roll(adv) >= 11", "roll(dmg)")
}

// Seed 004 counts symbols on its dice: a die whose faces are 0, 0, 1, 1, 2, 3; three of them.
fn listed_faces() -> Engine {
    ruleset("dice sym 3d{0, 0, 1, 1, 2, 3}", "true", "roll(sym)")
}

// Seed 003's wyvern bite, written in place: `2d10 + 3d8`, less a rolled absorption of 3d4.
fn sum_of_pools() -> Engine {
    ruleset("dice hit d30", "roll(hit) >= 13", "max(0, roll(2d10 + 3d8) - roll(3d4))")
}

#[test]
fn an_opposed_roll_meets_or_beats_the_defenders_own_roll() {
    let d = exact(&opposed());
    assert!((p(&d, 1) - 0.5625).abs() < 1e-12, "{d:?}");
}

#[test]
fn an_exploding_ten_rerolls_and_adds() {
    let d = exact(&exploding());
    assert_eq!(p(&d, 10), 0.0, "a 10 is never the last roll: {d:?}");
    assert!((p(&d, 7) - 0.1).abs() < 1e-12);
    assert!((p(&d, 13) - 0.01).abs() < 1e-12, "10 then 3");
    assert!((p(&d, 27) - 0.001).abs() < 1e-12, "10, 10, 7");
    // Damage is capped by the defender's 100 HP; everything past it is a kill.
    let mean: f64 = d.iter().map(|(k, q)| *k as f64 * q).sum();
    assert!((mean - 5.5 / 0.9).abs() < 1e-6, "mean {mean}: 5.5 / (1 - 1/10)");
}

#[test]
fn keep_highest_of_two_d20() {
    let d = exact(&keep_highest());
    // Miss only when both dice are 10 or less: (10/20)^2.
    assert!((p(&d, 0) - 0.25).abs() < 1e-12, "{d:?}");
    assert!((p(&d, 7) - 0.75 * 6.0 / 36.0).abs() < 1e-12, "{d:?}");
}

#[test]
fn listed_faces_count_symbols() {
    let d = exact(&listed_faces());
    assert!((p(&d, 0) - 1.0 / 27.0).abs() < 1e-12, "three blanks: (2/6)^3");
    assert!((p(&d, 9) - 1.0 / 216.0).abs() < 1e-12, "three 3s");
}

#[test]
fn a_sum_of_pools_less_a_rolled_absorption() {
    let d = exact(&sum_of_pools());
    // C.E.R. vs Evasion in seed 003: hits on 13+ of a d30, 60%.
    assert!((p(&d, 0) - (0.4 + 0.6 * absorbed_all())).abs() < 1e-12, "{d:?}");
}

/// P(2d10 + 3d8 <= 3d4) by brute force over the 13-die product's sums.
fn absorbed_all() -> f64 {
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
    let (a, b, c) = (pool(2, 10), pool(3, 8), pool(3, 4));
    let mut total = 0.0;
    for (x, px) in &a {
        for (y, py) in &b {
            for (z, pz) in &c {
                if x + y <= *z {
                    total += px * py * pz;
                }
            }
        }
    }
    total
}

#[test]
fn five_dice_rulesets_agree_with_a_million_resolutions() {
    let rulesets = [opposed(), exploding(), keep_highest(), listed_faces(), sum_of_pools()];
    let rulesets: Vec<(u64, &Engine)> = rulesets.iter().enumerate().map(|(i, e)| (7 + i as u64, e)).collect();
    // Two threads: the machine has two cores.
    std::thread::scope(|scope| {
        for chunk in rulesets.chunks(3) {
            scope.spawn(move || {
                for (seed, e) in chunk {
                    agrees_with_a_million_resolutions(e, *seed);
                }
            });
        }
    });
}
