//! Dice are random variables (issue 10, part 1): within one strike every `roll(NAME)` reads the
//! same draw, different names are independent draws, and each literal `roll(d6)` written in a
//! formula is a draw of its own. The exact forecast enumerates the joint faces; the seeded
//! resolver draws each die once per strike; the two agree.

use std::collections::BTreeMap;

use oc_compiler::{MemoryHost, Workspace};
use oc_engine::{Engine, Loadout};

/// A one-class ruleset whose combat block is `combat`; every unit has 100 HP and a weapon.
fn ruleset(dice: &str, combat: &str) -> Engine {
    let text = format!(
        "ruleset homebrew {{
    scale Rating {{ E D C B A }}
    stat str: Rating
    base hp: Int = 100
    inventory 3
    {dice}
    combat {{
        {combat}
        follow_up = false
    }}
}}
weapon_type Blades physical
class Duelist {{ ratings {{ str C }} wields Blades cost 100 }}
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

/// The defender's damage taken after the attacker's single strike (counter off), exactly.
fn damage_taken(e: &Engine) -> BTreeMap<i64, f64> {
    let f = e.forecast(&duelist(), &duelist(), 1).unwrap();
    f.defender_hp.iter().map(|(hp, p)| (100 - hp, *p)).collect()
}

fn sampled(e: &Engine, n: u64) -> BTreeMap<i64, f64> {
    let mut out = BTreeMap::new();
    for seed in 0..n {
        let (_, hp) = e.duel(&duelist(), &duelist(), 1, seed).unwrap();
        *out.entry(100 - hp[1]).or_insert(0.0) += 1.0 / n as f64;
    }
    out
}

fn agree(exact: &BTreeMap<i64, f64>, sampled: &BTreeMap<i64, f64>, tolerance: f64) {
    for (k, p) in exact {
        let q = sampled.get(k).copied().unwrap_or(0.0);
        assert!((p - q).abs() < tolerance, "damage {k}: exact {p:.4}, sampled {q:.4}");
    }
    for k in sampled.keys() {
        assert!(exact.contains_key(k), "damage {k} sampled but impossible in the forecast");
    }
}

const ONE_STRIKE: &str = "counter = false";

#[test]
fn a_named_damage_die_is_independent_of_the_hit_die() {
    // The case: `dice hit d30`, `dice dmg d6`, `damage = roll(dmg)`. Before, every
    // `roll(dmg)` read the hit roll, so damage was the d30's face (1..30), not 1..6.
    let e = ruleset(
        "dice hit d30\n    dice dmg d6",
        &format!("hit = roll(hit) <= 15\n        critical = false\n        damage = roll(dmg)\n        critical_damage = 0\n        {ONE_STRIKE}"),
    );
    let exact = damage_taken(&e);
    // Half the d30 hits; then each of 1..6 is equally likely.
    assert!((exact[&0] - 0.5).abs() < 1e-12, "{exact:?}");
    for d in 1..=6 {
        assert!((exact[&d] - 0.5 / 6.0).abs() < 1e-12, "{exact:?}");
    }
    assert_eq!(exact.len(), 7, "{exact:?}");
    agree(&exact, &sampled(&e, 60_000), 0.01);
    // The forecast shows one hitting strike's damage distribution.
    let f = e.forecast(&duelist(), &duelist(), 1).unwrap();
    let dist = &f.attacker.damage_distribution;
    assert_eq!(dist.len(), 6, "{dist:?}");
    assert!(dist.values().all(|p| (p - 1.0 / 6.0).abs() < 1e-12), "{dist:?}");
}

#[test]
fn one_named_die_reads_the_same_draw_everywhere_in_a_strike() {
    // Hit and crit share the d100 (seed 000: "the same roll"): crit <= 10 needs hit <= 50 too.
    let e = ruleset(
        "dice hit d100",
        &format!("hit = roll(hit) <= 50\n        critical = roll(hit) <= 10\n        damage = 2\n        critical_damage = 6\n        {ONE_STRIKE}"),
    );
    let exact = damage_taken(&e);
    assert!((exact[&6] - 0.10).abs() < 1e-12 && (exact[&2] - 0.40).abs() < 1e-12, "{exact:?}");
}

#[test]
fn literal_dice_are_independent_draws_and_sum_exactly() {
    // `roll(d6) + roll(d6)`: before, a literal die in combat always read 1 (the sum was 2).
    let e = ruleset(
        "dice hit d2",
        &format!("hit = true\n        critical = false\n        damage = roll(d6) + roll(d6)\n        critical_damage = 0\n        {ONE_STRIKE}"),
    );
    let exact = damage_taken(&e);
    for (total, ways) in [(2, 1.0), (3, 2.0), (7, 6.0), (12, 1.0)] {
        assert!((exact[&total] - ways / 36.0).abs() < 1e-12, "{total}: {exact:?}");
    }
    assert_eq!(exact.len(), 11);
    agree(&exact, &sampled(&e, 60_000), 0.01);
}

#[test]
fn forecasts_are_the_same_bits_every_time() {
    // The exact forecast sums many states; the order of the sum is fixed, so the bits are too.
    let c = oc_compiler::stdlib::compile("<std>/ratings.oc").unwrap();
    let e = Engine::new(c.rules.unwrap()).unwrap();
    let (a, d) = (Loadout::new("Swordmaster", None), Loadout::new("Warrior", None));
    let a = Loadout { weapon: e.weapons_for("Swordmaster").first().map(|w| oc_engine::Atom::new(&w.name)), ..a };
    let d = Loadout { weapon: e.weapons_for("Warrior").first().map(|w| oc_engine::Atom::new(&w.name)), ..d };
    let first = e.forecast(&a, &d, 1).unwrap();
    for _ in 0..20 {
        let again = e.forecast(&a, &d, 1).unwrap();
        assert_eq!(first.attacker_damage_taken.to_bits(), again.attacker_damage_taken.to_bits());
        assert_eq!(first.defender_damage_taken.to_bits(), again.defender_damage_taken.to_bits());
    }
}
