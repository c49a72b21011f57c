//! Every matchup's exact forecast for both revisions, stored: speed work must leave every result
//! bit-identical, and a rule fix that changes results on purpose shows up here as a reviewed diff
//! (`OC_BLESS=1 cargo test -p oc-engine --test snapshot` rewrites the files; the commit names the
//! rule). The matchups are those of `oc matrix`: every class with every weapon it can use,
//! against every class with its first weapon, at the attacker's shortest reach. One line per
//! attacking loadout: the number of matchups and a hash of every figure's bits. Each is also
//! worked out from prepared loadouts (`Engine::forecast_prepared`): the same bits; and the four
//! figures `oc matrix` reads (`Engine::odds_prepared`) are the forecast's own, bit for bit.

use std::fmt::Write as _;

use oc_engine::{Engine, Forecast, Loadout, SideForecast};

/// FNV-1a over 64-bit words.
struct Fnv(u64);

impl Fnv {
    fn word(&mut self, w: u64) {
        for b in w.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x100_0000_01b3);
        }
    }
    fn f(&mut self, x: f64) {
        self.word(x.to_bits());
    }
    fn side(&mut self, s: &SideForecast) {
        self.f(s.hit);
        self.f(s.crit);
        self.word(s.damage as u64);
        self.word(s.crit_damage as u64);
        self.word(u64::from(s.strikes));
        for (d, p) in &s.damage_distribution {
            self.word(*d as u64);
            self.f(*p);
        }
    }
    fn forecast(&mut self, f: &Forecast) {
        self.side(&f.attacker);
        self.side(&f.defender);
        for x in [f.attacker_routed, f.defender_routed, f.attacker_damage_taken, f.defender_damage_taken] {
            self.f(x);
        }
        for (hp, p) in f.attacker_hp.iter().chain(&f.defender_hp) {
            self.word(*hp as u64);
            self.f(*p);
        }
    }
}

fn snapshot(index: &str) -> String {
    let e = Engine::new(oc_compiler::stdlib::compile(index).unwrap().rules.unwrap()).unwrap();
    let defenders: Vec<Loadout> = e
        .rules
        .classes
        .iter()
        .filter_map(|c| e.weapons_for(&c.name).first().map(|w| Loadout::new(&c.name, Some(&w.name))))
        .collect();
    // The same matchups through `Engine::prepare` (what `oc matrix` calls): the same bits.
    let prepared: Vec<_> = defenders.iter().map(|d| e.prepare(d).unwrap()).collect();
    let mut out = String::new();
    for c in &e.rules.classes {
        for w in e.weapons_for(&c.name) {
            let Some((lo, _)) = e.reach(&c.name, &w.name) else { continue };
            let a = Loadout::new(&c.name, Some(&w.name));
            let pa = e.prepare(&a).unwrap();
            let mut h = Fnv(0xcbf2_9ce4_8422_2325);
            let mut again = Fnv(0xcbf2_9ce4_8422_2325);
            let mut n = 0;
            for (d, pd) in defenders.iter().zip(&prepared) {
                let Ok(f) = e.forecast(&a, d, lo.max(1)) else { continue };
                h.forecast(&f);
                again.forecast(&e.forecast_prepared(&pa, pd, lo.max(1)).unwrap());
                // What `oc matrix` reads: the forecast's own four figures, bit for bit.
                let odds = e.odds_prepared(&pa, pd, lo.max(1)).unwrap();
                let figures = |a: f64, b: f64, c: f64, d: f64| [a, b, c, d].map(f64::to_bits);
                assert_eq!(
                    figures(odds.attacker_routed, odds.defender_routed, odds.attacker_damage_taken, odds.defender_damage_taken),
                    figures(f.attacker_routed, f.defender_routed, f.attacker_damage_taken, f.defender_damage_taken),
                    "{}:{} against {}: odds",
                    c.name,
                    w.name,
                    d.class
                );
                n += 1;
            }
            assert_eq!(h.0, again.0, "{}:{} prepared", c.name, w.name);
            let _ = writeln!(out, "{}:{} {n} {:016x}", c.name, w.name, h.0);
        }
    }
    out
}

fn check(index: &str, file: &str) {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots").join(file);
    let mut expectations = oc_testkit::Expectations::new();
    expectations.check_with(&path, &snapshot(index), |stored, now| {
        let changed: Vec<String> =
            stored.lines().zip(now.lines()).filter(|(a, b)| a != b).map(|(a, b)| format!("  stored {a}\n  now    {b}")).collect();
        format!(
            "{} attacking loadout(s) forecast differently ({} lines stored, {} now):\n{}",
            changed.len(),
            stored.lines().count(),
            now.lines().count(),
            changed.join("\n")
        )
    });
    expectations.finish("forecast snapshot(s)");
}

#[test]
fn every_ratings_matchup_forecasts_the_same_bits() {
    check("<std>/ratings.oc", "ratings.txt");
}

#[test]
fn every_v06_matchup_forecasts_the_same_bits() {
    check("<std>/v06.oc", "v06.txt");
}

/// Seeds 002-004: reactions paid for with resources (stamina), damage dice against rolled
/// absorption with `Dice` values (battlestorm), strikes changed by `when` (skirmish).
#[test]
fn every_stamina_battlestorm_and_skirmish_matchup_forecasts_the_same_bits() {
    check("<std>/stamina.oc", "stamina.txt");
    check("<std>/battlestorm.oc", "battlestorm.txt");
    check("<std>/skirmish.oc", "skirmish.txt");
}
