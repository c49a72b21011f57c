//! Seed 003 (`std:battlestorm`), the range classes: "Each weapon type is assigned to one of seven
//! range classes, which determines its minimum and maximum effective ranges. The class also
//! determines the penalty for shooting at targets beyond maximum effective range." Forecasts
//! exact at each distance, and the AI shooting from where the penalty has not set in.

use oc_engine::{rng, Engine, Exchange, Loadout};

fn engine() -> Engine {
    let c = oc_compiler::stdlib::compile("<std>/battlestorm.oc").unwrap();
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    Engine::new(c.rules.unwrap()).unwrap()
}

fn u(class: &str, weapon: &str) -> Loadout {
    Loadout::new(class, Some(weapon))
}

/// The share of `n` seeded resolutions in which the defender falls.
fn sampled(x: &Exchange, n: u64) -> f64 {
    (0..n).filter(|seed| x.resolve_hp(&mut rng(*seed))[1] <= 0).count() as f64 / n as f64
}

#[test]
fn a_longbow_beyond_its_effective_range_adds_two_per_inch_and_a_30_is_no_automatic_hit() {
    // "a longbow is range class P4. The range table tells me that the minimum effective range is
    // 3", the maximum effective range is 18", and beyond effective range there is a penalty of +2
    // per inch." "Rolling a "30" is an automatic hit (except when attacking beyond effective
    // range)." 1 tile = 3 inches: 6 tiles is 18", in range; 7 tiles is 21", 3" beyond: +6.
    let e = engine();
    let (bow, brave) = (u("ElvenBowWoman", "Longbow"), u("Savage", "Shortsword"));
    // "I must roll (6 + 12 =) 18 or higher": 13 faces, the 30 among them.
    let near = Exchange::new(&e, &bow, &brave, 6).unwrap().forecast();
    assert!((near.attacker.hit - 13.0 / 30.0).abs() < 1e-12, "{}", near.attacker.hit);
    // 7 tiles: 18 + 6 = 24 or more, 7 faces (24 to 30).
    let x = Exchange::new(&e, &bow, &brave, 7).unwrap();
    let far = x.forecast();
    assert!((far.attacker.hit - 7.0 / 30.0).abs() < 1e-12, "{}", far.attacker.hit);
    // Two attacks, and a savage dies of any hit: exact, and as the dice fall.
    let want = 1.0 - (23.0f64 / 30.0).powi(2);
    assert!((far.defender_routed - want).abs() < 1e-12, "{} {want}", far.defender_routed);
    assert!((sampled(&x, 200_000) - want).abs() < 0.003);
    // 9 tiles (27", the longbow's reach): 18 + 18 = 36, and the 30 is no automatic hit there.
    let out = Exchange::new(&e, &bow, &brave, 9).unwrap().forecast();
    assert_eq!(out.attacker.hit, 0.0);
    assert_eq!(out.defender_routed, 0.0);
    // Against the wyvern (Evasion 10) at 8 tiles: 6 + 10 + 12 = 28, three faces; a 30 there hits
    // only as a roll of 28 or more does.
    let wyvern = Exchange::new(&e, &bow, &u("PoisonWyvern", "WyvernBite"), 8).unwrap().forecast();
    assert!((wyvern.attacker.hit - 3.0 / 30.0).abs() < 1e-12, "{}", wyvern.attacker.hit);
    // Beyond its reach it cannot shoot at all.
    assert!(Exchange::new(&e, &bow, &brave, 10).is_err());
}

#[test]
fn the_range_classes_are_data_with_p4_as_the_seed_gives_it() {
    // "Each weapon type is assigned to one of seven range classes": seven rows; P4 (the fourth)
    // is the seed's 3" to 18", +2 per inch.
    let rules = oc_compiler::stdlib::compile("<std>/battlestorm.oc").unwrap().rules.unwrap();
    for (table, p4) in [("shot_min", 3), ("shot_max", 18), ("shot_penalty", 2)] {
        let t = rules.ruleset.tables.iter().find(|t| t.name == table).unwrap();
        assert_eq!(t.cells.len(), 7, "{table}");
        assert_eq!(format!("{:?}", t.cells[3]), format!("{:?}", oc_model::Value::Int(p4)), "{table}");
    }
    // "the minimum effective range is 3"", and figures in contact stand at 0" (melee's "0"
    // (figures must be in base-to-base contact)"): the longbow does not shoot a figure in contact
    // (1 tile), and shoots from 2 tiles; the blunderbuss (P1, 0") shoots in contact.
    let e = engine();
    assert!(Exchange::new(&e, &u("ElvenBowWoman", "Longbow"), &u("Savage", "Shortsword"), 1).is_err());
    assert!(Exchange::new(&e, &u("ElvenBowWoman", "Longbow"), &u("Savage", "Shortsword"), 2).is_ok());
    assert!(Exchange::new(&e, &u("DwarfGunner", "Blunderbuss"), &u("Savage", "Shortsword"), 1).is_ok());
}
