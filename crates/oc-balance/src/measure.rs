//! Strength measured with the engine: every unit (a class with a weapon it may wield, and each
//! class with its kit weapon and an accessory) against every unit of the roster (each class with
//! its kit weapon), in both roles — the exact forecast of the exchange it starts and of the one
//! it receives — and, when asked, in seeded duels to the rout.

use oc_engine::{Engine, Forecast, Loadout};
use rayon::prelude::*;
use serde::Serialize;
// Duel k of a matchup is seeded as `oc simulate` seeds game k (SplitMix64): one copy of it.
use oc_play::stats::game_seed as mix;

/// A unit as it is priced: a class, the weapon it fights with, maybe an accessory.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UnitSpec {
    pub class: String,
    pub weapon: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub accessory: Option<String>,
}

impl UnitSpec {
    fn loadout(&self) -> Loadout {
        let mut l = Loadout::new(&self.class, Some(&self.weapon));
        l.accessory = self.accessory.as_deref().map(oc_engine::Atom::new);
        l
    }

    /// `Class (Weapon)` or `Class (Weapon, Accessory)`.
    pub fn show(&self) -> String {
        match &self.accessory {
            Some(a) => format!("{} ({}, {a})", self.class, self.weapon),
            None => format!("{} ({})", self.class, self.weapon),
        }
    }
}

/// One unit against one opponent of the roster.
#[derive(Clone, Debug, Serialize)]
pub struct Matchup {
    /// Index into the roster.
    pub opponent: usize,
    /// Expected share of the opponent's HP this unit removes, averaged over the exchange it
    /// starts and the one the opponent starts (its counter); `taken` the same of its own HP.
    pub dealt: f64,
    pub taken: f64,
    /// Its share of duels to the rout (a draw counts half), when duels were played.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duel: Option<f64>,
}

/// A unit with its matchups and ratings.
#[derive(Clone, Debug, Serialize)]
pub struct Measured {
    pub unit: UnitSpec,
    pub matchups: Vec<Matchup>,
    /// Mean over the roster of ln((dealt + 0.02) / (taken + 0.02)): 0 trades evenly.
    pub exchange: f64,
    /// Mean over the roster of the log-odds of its duel share (smoothed): 0 wins half.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duel: Option<f64>,
}

impl Measured {
    /// The rating prices are fitted to: the duel rating when duels were played, else the
    /// exchange rating.
    pub fn strength(&self) -> f64 {
        self.duel.unwrap_or(self.exchange)
    }

    /// Whether it deals damage to anyone at all (a healer's staff does not).
    pub fn fights(&self) -> bool {
        self.matchups.iter().any(|m| m.dealt > 0.0)
    }
}

/// Exchanges a duel lasts at most before it is called a draw.
pub const MAX_EXCHANGES: u32 = 24;

/// A unit ready to fight: its loadout and the distances it attacks from.
struct Fighter {
    loadout: Loadout,
    /// The nearest distance it reaches and the next one, when it reaches that far.
    distances: Vec<i64>,
}

impl Fighter {
    fn new(engine: &Engine, unit: &UnitSpec) -> Fighter {
        let distances = match engine.reach(&unit.class, &unit.weapon) {
            Some((lo, hi)) if hi >= lo.max(1) => {
                let lo = lo.max(1);
                (lo..=hi.min(lo + 1)).collect()
            }
            _ => Vec::new(),
        };
        Fighter { loadout: unit.loadout(), distances }
    }
}

/// The exchange `a` starts against `d` from the distance it likes best (the most HP share dealt
/// less taken; the nearer on a tie), with the distance.
fn best_attack(engine: &Engine, a: &Fighter, d: &Fighter) -> Option<(i64, Forecast)> {
    let mut best: Option<(f64, i64, Forecast)> = None;
    for &distance in &a.distances {
        let Ok(f) = engine.forecast(&a.loadout, &d.loadout, distance) else { continue };
        if f.attacker.strikes == 0 {
            continue;
        }
        let score = share(f.defender_damage_taken, f.defender.max_hp) - share(f.attacker_damage_taken, f.attacker.max_hp);
        if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
            best = Some((score, distance, f));
        }
    }
    best.map(|(_, distance, f)| (distance, f))
}

fn share(damage: f64, max_hp: i64) -> f64 {
    if max_hp <= 0 {
        0.0
    } else {
        (damage / max_hp as f64).clamp(0.0, 1.0)
    }
}

/// Stable 64-bit hash of text (FNV-1a), so a matchup's seed does not move when the roster grows.
fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3))
}

/// Plays `n` duels to the rout between `u` and `o` — each attacks in turn from its distance,
/// `u` first in the even ones — and returns `u`'s share (a draw counts half).
fn duels(engine: &Engine, u: &Fighter, o: &Fighter, du: Option<i64>, dop: Option<i64>, seed: u64, n: u32) -> f64 {
    let mut score = 0.0;
    for k in 0..n {
        let mut rng = oc_engine::rng(mix(seed, u64::from(k)));
        let (mut a, mut b) = (u.loadout.clone(), o.loadout.clone());
        let mut u_turn = k % 2 == 0;
        let mut result = 0.5;
        for _ in 0..MAX_EXCHANGES {
            let (attacker, defender, distance) = if u_turn { (&a, &b, du) } else { (&b, &a, dop) };
            if let Some(distance) = distance {
                if let Ok(x) = oc_engine::Exchange::new(engine, attacker, defender, distance) {
                    let hp = x.resolve_hp(&mut rng);
                    let (hp_u, hp_o) = if u_turn { (hp[0], hp[1]) } else { (hp[1], hp[0]) };
                    a.hp = Some(hp_u);
                    b.hp = Some(hp_o);
                    if hp_u <= 0 || hp_o <= 0 {
                        result = if hp_o <= 0 && hp_u > 0 {
                            1.0
                        } else if hp_u <= 0 && hp_o > 0 {
                            0.0
                        } else {
                            0.5
                        };
                        break;
                    }
                }
            }
            u_turn = !u_turn;
        }
        score += result;
    }
    if n == 0 {
        0.5
    } else {
        score / f64::from(n)
    }
}

/// Measures `unit` against every fighter of the roster.
fn measure_one(engine: &Engine, unit: &UnitSpec, roster: &[(UnitSpec, Fighter)], seed: u64, n: u32) -> Measured {
    let me = Fighter::new(engine, unit);
    let mut matchups = Vec::with_capacity(roster.len());
    for (k, (spec, o)) in roster.iter().enumerate() {
        let mine = best_attack(engine, &me, o);
        let theirs = best_attack(engine, o, &me);
        let mut dealt = 0.0;
        let mut taken = 0.0;
        if let Some((_, f)) = &mine {
            dealt += share(f.defender_damage_taken, f.defender.max_hp);
            taken += share(f.attacker_damage_taken, f.attacker.max_hp);
        }
        if let Some((_, f)) = &theirs {
            dealt += share(f.attacker_damage_taken, f.attacker.max_hp);
            taken += share(f.defender_damage_taken, f.defender.max_hp);
        }
        let duel = (n > 0).then(|| {
            let key = format!("{} vs {}", unit.show(), spec.show());
            duels(engine, &me, o, mine.map(|(d, _)| d), theirs.map(|(d, _)| d), mix(seed, fnv(&key)), n)
        });
        matchups.push(Matchup { opponent: k, dealt: dealt / 2.0, taken: taken / 2.0, duel });
    }
    let count = matchups.len().max(1) as f64;
    let exchange = matchups.iter().map(|m| ((m.dealt + 0.02) / (m.taken + 0.02)).ln()).sum::<f64>() / count;
    let duel = (n > 0).then(|| {
        // Smoothed as if one more duel had been drawn, so a clean sweep is finite.
        let logit = |p: f64| {
            let p = (p * f64::from(n) + 0.5) / (f64::from(n) + 1.0);
            (p / (1.0 - p)).ln()
        };
        matchups.iter().filter_map(|m| m.duel).map(logit).sum::<f64>() / count
    });
    Measured { unit: unit.clone(), matchups, exchange, duel }
}

/// The weapon a class is measured with: the engine's kit weapon ([`Engine::kit_weapon`]) where
/// it may fight with it (a class of staves alone is not measured).
pub fn kit_weapon(engine: &Engine, class: &str) -> Option<String> {
    engine.kit_weapon(class).filter(|w| engine.item(w).is_some_and(|i| !engine.is_staff(i)))
}

/// The roster every unit is measured against: each class with its kit weapon.
pub fn roster(engine: &Engine) -> Vec<UnitSpec> {
    engine
        .rules
        .classes
        .iter()
        .filter_map(|c| {
            let weapon = kit_weapon(engine, &c.name)?;
            engine.reach(&c.name, &weapon)?;
            Some(UnitSpec { class: c.name.to_string(), weapon, accessory: None })
        })
        .collect()
}

/// Every unit worth pricing: each class with each weapon it may wield, and each class with its
/// kit weapon and each accessory it may carry.
pub fn units(engine: &Engine) -> Vec<UnitSpec> {
    let rules = &engine.rules;
    let mut out = Vec::new();
    for c in &rules.classes {
        // Staves heal or lay statuses: they are not priced by how they strike.
        for w in engine.fighting_weapons(&c.name) {
            if engine.reach(&c.name, &w.name).is_some() {
                out.push(UnitSpec { class: c.name.to_string(), weapon: w.name.to_string(), accessory: None });
            }
        }
    }
    for a in rules.items.iter().filter(|i| i.kind == oc_model::ItemKind::Accessory) {
        for c in &rules.classes {
            let Some(weapon) = kit_weapon(engine, &c.name) else { continue };
            if engine.reach(&c.name, &weapon).is_none() || !oc_compiler::scenario::item_refusals(c, a, None).is_empty() {
                continue;
            }
            out.push(UnitSpec { class: c.name.to_string(), weapon, accessory: Some(a.name.to_string()) });
        }
    }
    out
}

/// Measures every unit against the roster; `duels` per matchup (0: forecasts only). The same
/// seed gives the same numbers, whatever the number of threads.
pub fn measure(engine: &Engine, units: &[UnitSpec], roster: &[UnitSpec], seed: u64, duels: u32) -> Vec<Measured> {
    let fighters: Vec<(UnitSpec, Fighter)> = roster.iter().map(|u| (u.clone(), Fighter::new(engine, u))).collect();
    units.par_iter().map(|u| measure_one(engine, u, &fighters, seed, duels)).collect()
}
