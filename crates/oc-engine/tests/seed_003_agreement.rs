//! Seed 003 (`std:battlestorm`): every exchange the rules can make, its forecast against seeded
//! resolutions, every HP outcome of both sides within 0.3 percentage points over the issue's
//! 10^6 (`OC_SAMPLES=1000000`, release: 7 minutes on 2 cores), or within the sampling bound of
//! `common/agree.rs` over the 50,000 each of a test run. The exchanges cover what acts
//! inside one: units of figures striking and dying figure by figure, the order of attack in one
//! combat, the wyvern's four attack forms, a champion's Critical Hit roll, shots beyond
//! effective range, and what the advanced rules lay on a unit (out of command, higher ground,
//! flank and rear, the weather's murk, formations, a blow from hiding, a flyer aloft, a unit of
//! mixed troop types).

#[path = "common/agree.rs"]
mod agree;

use oc_engine::{Atom, Engine, Exchange, Loadout};

fn battlestorm() -> Engine {
    let c = oc_compiler::stdlib::compile("<std>/battlestorm.oc").unwrap();
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    Engine::new(c.rules.unwrap()).unwrap()
}

/// A unit of `figures` of `class` with `weapon`.
fn band(class: &str, weapon: &str, figures: u32) -> Loadout {
    Loadout { figures, ..Loadout::new(class, Some(weapon)) }
}

fn bearing(mut l: Loadout, statuses: &[&str]) -> Loadout {
    l.statuses.extend(statuses.iter().map(|s| Atom::new(s)));
    l
}

fn agrees(x: &Exchange, what: &str) {
    agree::agrees(x, what, 50_000);
}

/// `a` attacks `d` from `distance` tiles, alone (no strike back: `counter = false`).
fn one_sided(e: &Engine, a: &Loadout, d: &Loadout, distance: i64, what: &str) {
    agrees(&Exchange::new(e, a, d, distance).unwrap(), what);
}

#[test]
fn units_of_figures_shoot_and_fight_as_forecast() {
    // "I have 11 bow-women, all of whom have 2 attacks per round"; "Common figures are those
    // which start with no Fate points. Any unabsorbed damage kills them."
    let e = battlestorm();
    let bows = band("ElvenBowWoman", "Longbow", 11);
    let savages = band("Savage", "Shortsword", 6);
    // "the minimum effective range is 3", the maximum effective range is 18"": at 4 tiles.
    agrees(&Exchange::new(&e, &bows, &savages, 4).unwrap(), "11 bow-women at 4 tiles on 6 savages");
    // "beyond effective range there is a penalty of +2 per inch": at 7 tiles (21 inches).
    let x = Exchange::new(&e, &bows, &savages, 7).unwrap();
    agrees(&x, "11 bow-women at 7 tiles, beyond effective range");
    // "if figures are in base-to-base contact, shorter weapons attack first": six savages'
    // swords against six spearmen in one combat, in contact and just come into contact.
    let spears = band("HighElfSpearman", "ElvenSpear", 6);
    let x = Exchange::new(&e, &savages, &spears, 1).unwrap().mutual();
    agrees(&x, "6 savages and 6 spearmen in contact, one combat");
    let x = Exchange::new(&e, &savages, &spears, 1).unwrap().mutual().moved([true, false]);
    agrees(&x, "6 savages charging 6 spearmen, one combat");
    // "if both figures are equivalent, then combat is considered simultaneous".
    let four = band("Savage", "Shortsword", 4);
    let x = Exchange::new(&e, &savages, &four, 1).unwrap().mutual();
    agrees(&x, "6 savages and 4 savages, simultaneous");
}

#[test]
fn the_wyvern_champions_and_heroes_fight_as_forecast() {
    // "The wyvern has four attacks - 2 x talons, 1 x bite, and 1 x tail".
    let e = battlestorm();
    let wyvern = Loadout {
        carried: vec![Atom::new("WyvernTalon"), Atom::new("WyvernTail")],
        ..Loadout::new("PoisonWyvern", Some("WyvernBite"))
    };
    let braves = band("Savage", "Shortsword", 8);
    let x = Exchange::new(&e, &wyvern, &braves, 1).unwrap().mutual().moved([false, true]);
    agrees(&x, "the wyvern and 8 charging braves, one combat");
    // "Whenever a champion receives damage that would kill him (if he were not a champion), he
    // instead suffers the result of a roll on the Critical Hit tables."
    let champion = Loadout { tags: vec![(Atom::new("Champion"), vec![])], ..Loadout::new("SavageChief", Some("Shortsword")) };
    let x = Exchange::new(&e, &wyvern, &champion, 1).unwrap().mutual();
    agrees(&x, "the wyvern and a champion chief, one combat");
    let wounded = bearing(Loadout { hp: Some(3), ..champion.clone() }, &["Gashed"]);
    one_sided(&e, &band("Savage", "Shortsword", 5), &wounded, 1, "5 savages on a gashed champion at 3 Fate");
    // "Heroes ... Each point of damage removes one Fate point": Fenth (Fate 8, 2 attacks) and a
    // unit of three chiefs (Fate 6 each).
    let fenth = Loadout::new("FenthGallinir", Some("Runeblade"));
    let chiefs = band("SavageChief", "Shortsword", 3);
    let x = Exchange::new(&e, &fenth, &chiefs, 1).unwrap().mutual();
    agrees(&x, "Fenth and 3 chiefs, one combat");
}

#[test]
fn the_advanced_rules_on_a_unit_act_as_forecast() {
    // "Penalties apply to units too far from the general"; "whether an opponent is on higher
    // ground, attacking from rear or flank"; "Ten varieties of weather".
    let e = battlestorm();
    let high = |l: Loadout| Loadout { placed: [(Atom::new("height"), 1)].into_iter().collect(), ..l };
    let savages = bearing(band("Savage", "Shortsword", 6), &["OutOfCommand"]);
    let spears = high(band("HighElfSpearman", "ElvenSpear", 5));
    let x = Exchange::new(&e, &savages, &spears, 1).unwrap().mutual();
    agrees(&x, "6 savages out of command up the hill at 5 spearmen");
    let flanked = bearing(band("HighElfSwordsman", "ElvenSword", 4), &["Flanked"]);
    one_sided(&e, &high(band("Savage", "Shortsword", 3)), &flanked, 1, "3 savages from the hill on 4 flanked swordsmen");
    let surrounded = bearing(Loadout::new("SavageChief", Some("Shortsword")), &["Surrounded"]);
    let axeman = Loadout::new("HighElfAxeman", Some("ElvenAxe"));
    one_sided(&e, &axeman, &surrounded, 1, "an axeman on a surrounded chief");
    let bows = bearing(band("ElvenBowWoman", "Longbow", 11), &["Mist"]);
    let swords = band("HumanMercenary", "Broadsword", 8);
    one_sided(&e, &bows, &swords, 5, "11 bow-women in mist at 5 tiles on 8 sellswords");
    // "Formations provide bonuses (and penalties) to movement and combat"; "blind, flying".
    let phalanx = bearing(band("HighElfSpearman", "ElvenSpear", 6), &["Phalanx"]);
    let mob = bearing(band("Savage", "Shortsword", 6), &["Mob"]);
    let x = Exchange::new(&e, &mob, &phalanx, 1).unwrap().mutual().moved([true, false]);
    agrees(&x, "a mob of 6 savages charging a phalanx of 6 spearmen, one combat");
    let open = bearing(band("Savage", "Shortsword", 6), &["OpenOrder"]);
    one_sided(&e, &bows, &open, 4, "11 bow-women in mist on 6 savages in open order");
    let unseen = bearing(band("Savage", "Shortsword", 4), &["Unseen"]);
    one_sided(&e, &unseen, &band("HighElfAxeman", "ElvenAxe", 3), 1, "4 savages from hiding on 3 axemen");
    let aloft = Loadout {
        carried: vec![Atom::new("WyvernTalon"), Atom::new("WyvernTail")],
        ..bearing(Loadout::new("PoisonWyvern", Some("WyvernBite")), &["Aloft"])
    };
    let braves = band("Savage", "Shortsword", 8);
    let x = Exchange::new(&e, &aloft, &braves, 1).unwrap().mutual();
    agrees(&x, "the wyvern aloft and 8 braves, one combat");
    // "the Advanced Rules sometimes penalize units of mixed troop types": the spearmen with Fenth
    // among them, and Fenth as their body, bear MixedTroops.
    let mixed = bearing(band("HighElfSpearman", "ElvenSpear", 6), &["MixedTroops"]);
    let six = band("Savage", "Shortsword", 6);
    let x = Exchange::new(&e, &six, &mixed, 1).unwrap().mutual();
    agrees(&x, "6 savages and 6 spearmen of a mixed unit, one combat");
    let fenth = bearing(Loadout::new("FenthGallinir", Some("Runeblade")), &["MixedTroops"]);
    one_sided(&e, &fenth, &band("Savage", "Shortsword", 4), 1, "Fenth, a body of a mixed unit, on 4 savages");
}
