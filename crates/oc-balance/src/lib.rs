//! Prices that fit: `oc balance` measures how strong each class and item plays — with the
//! engine's exact forecasts and, when asked, seeded duels to the rout — fits one price curve to
//! the roster, and suggests each class's and item's price from it. A home-brew class or item
//! (one written in the user's files, not the standard library) priced far from what it plays
//! like gets the warning `oc::balance::cost_outlier` on its `cost`.
//!
//! **The method.** A *unit* is a class with a weapon it may wield (and, for accessories, a class
//! with its kit weapon and the accessory). The *roster* is every class with its kit weapon. Each
//! unit meets each roster unit twice in exact forecasts — it attacks from the distance it likes
//! best, and it is attacked from the distance the opponent likes best — giving the share of the
//! opponent's HP it removes (`dealt`) and of its own it loses (`taken`); its *exchange rating* is
//! the mean over the roster of ln((dealt + 0.02) / (taken + 0.02)). With duels (`Options::duels`
//! per matchup), the two fight to the rout, attacking in turn with the seeded resolver, HP
//! carried over; the *duel rating* is the mean log-odds of its share of wins (a draw counts half,
//! smoothed by half a duel). The strength is the duel rating when duels are played, else the
//! exchange rating.
//!
//! The *price curve*: ln(class cost) = alpha + beta * the strength of the class with its kit
//! weapon, a Theil–Sen line over the standard library's classes (over all of them when the rules
//! have fewer than five of those). A class's suggested price is the curve's value. An item is
//! priced by the strength it adds, in the curve's gold: per class measured with it, the curve's
//! price of the class's strength with the item less without it (for a weapon, over the class's
//! kit weapon, plus that kit weapon's written price); the suggestion is the median over classes.
//!
//! **Its limits.** Only combat between two units on open ground is measured: movement, terrain,
//! healing, actions (Dance, staves), statuses lasting past an exchange and consumables are not,
//! so a class or item whose worth is there reads as overpriced (the standard roster's own scatter
//! around the curve, `Report::spread`, says how far that goes). One curve for the whole roster
//! assumes a price buys strength the same way for every kind of unit.
//!
//! **Boundary:** no I/O. It measures with `oc-engine`, and reads `oc-compiler`'s syntax trees
//! (the costs the user wrote, [`written_costs`]) and army rules (which accessory a class may
//! carry). **Invariant:** one seed, one report, whatever the number of threads: units are
//! measured in parallel but collected in order, and each matchup's duels are seeded from a hash
//! of its two units' names, so a seed does not move when the roster grows.

#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

pub mod fit;
pub mod measure;

use std::collections::BTreeMap;

use oc_diag::{Diagnostic, Span};
use oc_engine::Engine;
use serde::Serialize;

pub use fit::Fit;
pub use measure::{Matchup, Measured, UnitSpec};

oc_diag::codes! {
    COST_OUTLIER = "oc::balance::cost_outlier", "a home-brew class or item is priced far from how strong it plays",
    "`oc balance` measures how strong every class and item plays with the engine (exact forecasts of \
the exchanges it starts and receives against every class of the roster, and seeded duels to the \
rout), fits one price curve to the standard library's units (ln price = alpha + beta * strength), \
and suggests each class's and item's price from it. A class or item written in your files whose \
cost is further from its suggested price than the standard roster's own prices stray from theirs \
(at least a factor of 1.5 either way) gets this warning on its `cost`, with the matchups that \
show it: cheaper units it loses to when it is overpriced, dearer units it beats when it is \
underpriced.\n\nThe measure sees only combat between two units on open ground: a class whose \
worth is movement, healing or an action (Dance, staves) reads as overpriced. If that is what the \
price pays for, keep it.\n\nFix: move the cost toward the suggested price, or change what the \
class or item does until it plays like its price. `oc balance` prints every price next to its \
suggestion.";
}

/// What `oc balance` measures with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    pub seed: u64,
    /// Duels to the rout per matchup (0: the exact forecasts only).
    pub duels: u32,
}

/// Duels per matchup unless told otherwise.
pub const DEFAULT_DUELS: u32 = 8;

/// What is priced.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum What {
    Class,
    Weapon,
    Accessory,
    Consumable,
}

impl What {
    pub fn word(self) -> &'static str {
        match self {
            What::Class => "class",
            What::Weapon => "weapon",
            What::Accessory => "accessory",
            What::Consumable => "consumable",
        }
    }
}

/// A price written in the user's files: what, its name, and the span of its `cost` value.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WrittenCost {
    pub what: What,
    pub name: String,
    pub span: Span,
}

/// A class or item with its written and suggested price.
#[derive(Clone, Debug, Serialize)]
pub struct Priced {
    pub name: String,
    pub what: What,
    pub written: i64,
    pub suggested: i64,
    /// A class: the strength of the class with its kit weapon; an item: the strength it adds
    /// over the kit weapon (the median over the classes measured with it).
    pub strength: f64,
    /// How many units the measure is made of.
    pub units: usize,
    /// Index into `Report::measured` of the unit whose matchups show the price best.
    #[serde(skip)]
    pub witness: usize,
    /// Written in the user's files (not the standard library): not part of the fit.
    pub homebrew: bool,
}

/// A class or item not priced, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Unmeasured {
    pub name: String,
    pub what: What,
    pub why: String,
}

/// Everything `oc balance` found.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub ruleset: String,
    pub seed: u64,
    pub duels: u32,
    pub roster: Vec<UnitSpec>,
    /// Each roster unit's written price (class and kit weapon).
    pub roster_prices: Vec<i64>,
    #[serde(skip)]
    pub measured: Vec<Measured>,
    /// ln(class cost) against the strength of the class with its kit weapon: the price curve.
    pub class_fit: Fit,
    /// Whether the fit is over the standard library's classes (else over all).
    pub fit_on_standard: bool,
    pub classes: Vec<Priced>,
    pub items: Vec<Priced>,
    pub unmeasured: Vec<Unmeasured>,
    /// Standard deviation of ln(written / suggested) over the fitted roster's classes and weapons.
    pub spread: BTreeMap<String, f64>,
}

/// The smallest price a suggestion is compared with (a suggestion of 0 is "about nothing").
const PRICE_FLOOR: f64 = 50.0;

fn cost_of(engine: &Engine, what: What, name: &str) -> i64 {
    match what {
        What::Class => engine.rules.class(name).map_or(0, |c| c.cost),
        _ => engine.rules.item(name).map_or(0, |i| i.cost),
    }
}

/// A unit's written price: its class, weapon and accessory.
pub fn unit_price(engine: &Engine, u: &UnitSpec) -> i64 {
    cost_of(engine, What::Class, &u.class)
        .saturating_add(cost_of(engine, What::Weapon, &u.weapon))
        .saturating_add(u.accessory.as_deref().map_or(0, |a| cost_of(engine, What::Accessory, a)))
}

fn round10(v: f64) -> i64 {
    if !v.is_finite() {
        return 0;
    }
    ((v / 10.0).round() * 10.0).max(0.0) as i64
}

/// Measures the rules' classes and items and fits their prices. `homebrew` are the prices the
/// user wrote (they are left out of the fits while the standard library has enough of each).
/// Why prices cannot be fitted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BalanceError {
    /// Fewer than two classes can attack: there is no roster to measure against.
    RosterTooSmall { attackers: usize },
    /// The classes' prices and strengths leave no curve to fit.
    NothingToFit,
}

impl std::fmt::Display for BalanceError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BalanceError::RosterTooSmall { attackers } => {
                write!(f, "the rules have {attackers} class(es) that can attack: a roster needs two")
            }
            BalanceError::NothingToFit => f.write_str(
                "the classes' prices and strengths leave nothing to fit (fewer than three priced classes that can attack, or all equally strong)",
            ),
        }
    }
}

impl std::error::Error for BalanceError {}

pub fn balance(engine: &Engine, options: Options, homebrew: &[WrittenCost]) -> Result<Report, BalanceError> {
    let is_homebrew = |what: What, name: &str| homebrew.iter().any(|w| w.name == name && w.what == what);
    let roster = measure::roster(engine);
    if roster.len() < 2 {
        return Err(BalanceError::RosterTooSmall { attackers: roster.len() });
    }
    let units = measure::units(engine);
    let measured = measure::measure(engine, &units, &roster, options.seed, options.duels);
    // Each class's kit unit: the class as it is hired.
    let kit = |class: &str| -> Option<(usize, &Measured)> {
        let weapon = measure::kit_weapon(engine, class)?;
        measured
            .iter()
            .enumerate()
            .find(|(_, m)| m.unit.class == class && m.unit.weapon == weapon && m.unit.accessory.is_none() && m.fights())
    };

    // Classes: ln(cost) against the kit unit's strength.
    let class_rows: Vec<(&oc_model::Class, usize, f64)> =
        engine.rules.classes.iter().filter_map(|c| kit(&c.name).map(|(k, m)| (c, k, m.strength()))).collect();
    let class_points = |standard_only: bool| -> Vec<(f64, f64)> {
        class_rows
            .iter()
            .filter(|(c, _, _)| !standard_only || !is_homebrew(What::Class, &c.name))
            .map(|(c, _, s)| (*s, c.cost as f64))
            .collect()
    };
    let classes_on_standard = fit::fit(&class_points(true)).is_some_and(|f| f.points >= 5);
    let class_fit = fit::fit(&class_points(classes_on_standard)).ok_or(BalanceError::NothingToFit)?;

    // Items: the strength a weapon (or an accessory) adds to a class over its kit weapon.
    let gains = |item: &str, accessory: bool| -> Vec<(usize, f64)> {
        measured
            .iter()
            .enumerate()
            .filter(|(_, m)| {
                if accessory {
                    m.unit.accessory.as_deref() == Some(item)
                } else {
                    m.unit.weapon == item && m.unit.accessory.is_none() && m.fights()
                }
            })
            .filter_map(|(k, m)| Some((k, m.strength() - kit(&m.unit.class)?.1.strength())))
            .collect()
    };
    let mut classes = Vec::new();
    let mut items = Vec::new();
    let mut unmeasured = Vec::new();
    for c in &engine.rules.classes {
        match class_rows.iter().find(|(x, _, _)| x.name == c.name) {
            Some((_, witness, strength)) => classes.push(Priced {
                name: c.name.to_string(),
                what: What::Class,
                written: c.cost,
                suggested: round10(class_fit.price(*strength)),
                strength: *strength,
                units: 1,
                witness: *witness,
                homebrew: is_homebrew(What::Class, &c.name),
            }),
            None => unmeasured.push(Unmeasured {
                name: c.name.to_string(),
                what: What::Class,
                why: "it has no weapon to fight with but staves (healing is outside the measure), or deals no damage".to_string(),
            }),
        }
    }
    for item in &engine.rules.items {
        let name = &item.name;
        let (what, list) = match item.kind {
            oc_model::ItemKind::Weapon => {
                // A weapon measured on a class whose kit weapon it is would be priced against
                // itself (a gain of nothing, at its own price): only other classes measure it.
                let all = gains(name, false);
                let measured_on_others: Vec<(usize, f64)> = all
                    .iter()
                    .copied()
                    .filter(|(k, _)| {
                        measured
                            .get(*k)
                            .is_some_and(|m| measure::kit_weapon(engine, &m.unit.class).as_deref() != Some(name.as_str()))
                    })
                    .collect();
                if !all.is_empty() && measured_on_others.is_empty() {
                    unmeasured.push(Unmeasured {
                        name: name.to_string(),
                        what: What::Weapon,
                        why: "it is the kit weapon of every class that wields it (an Exclusive weapon, say): its worth is in the class's price, which is measured with it".to_string(),
                    });
                    continue;
                }
                (What::Weapon, measured_on_others)
            }
            oc_model::ItemKind::Accessory => (What::Accessory, gains(name, true)),
            oc_model::ItemKind::Consumable => {
                unmeasured.push(Unmeasured {
                    name: name.to_string(),
                    what: What::Consumable,
                    why: "a consumable's worth is outside an exchange".to_string(),
                });
                continue;
            }
        };
        // Per class measured with it: the class curve's price of the strength it adds (for a
        // weapon, over the class's kit weapon, whose price it starts from).
        let implied: Vec<f64> = list
            .iter()
            .filter_map(|(k, gain)| {
                let m = measured.get(*k)?;
                let base = kit(&m.unit.class)?.1.strength();
                let start = match what {
                    What::Weapon => cost_of(engine, What::Weapon, &measure::kit_weapon(engine, &m.unit.class)?) as f64,
                    _ => 0.0,
                };
                Some(start + class_fit.price(base + gain) - class_fit.price(base))
            })
            .collect();
        let why = match what {
            What::Weapon => "a staff (it heals or lays a status on the unit it targets; no exchange measures it), or no class deals damage with it in an exchange",
            _ => "it changes nothing in an exchange (movement, healing and actions are outside the measure)",
        };
        let moves = what == What::Weapon || list.iter().any(|x| x.1.abs() > 1e-9);
        let Some((k, suggested)) = fit::median(&implied).filter(|_| moves && implied.len() == list.len()) else {
            unmeasured.push(Unmeasured { name: name.to_string(), what, why: why.to_string() });
            continue;
        };
        let gains: Vec<f64> = list.iter().map(|x| x.1).collect();
        items.push(Priced {
            name: name.to_string(),
            what,
            written: item.cost,
            suggested: round10(suggested),
            strength: fit::median(&gains).map_or(0.0, |g| g.1),
            units: list.len(),
            witness: list.get(k).map_or(0, |x| x.0),
            homebrew: is_homebrew(what, name),
        });
    }
    // How far the fitted roster's own prices stray from their suggestions.
    let mut spread = BTreeMap::new();
    for what in [What::Class, What::Weapon] {
        let on_standard = classes_on_standard;
        let logs: Vec<f64> = classes
            .iter()
            .chain(&items)
            .filter(|p| p.what == what && (!on_standard || !p.homebrew) && p.written > 0)
            .map(|p| (p.written as f64 / (p.suggested as f64).max(PRICE_FLOOR)).ln())
            .collect();
        spread.insert(what.word().to_string(), fit::spread(&logs));
    }
    let roster_prices = roster.iter().map(|u| unit_price(engine, u)).collect();
    Ok(Report {
        ruleset: engine.rules.ruleset.name.clone(),
        seed: options.seed,
        duels: options.duels,
        roster,
        roster_prices,
        measured,
        class_fit,
        fit_on_standard: classes_on_standard,
        classes,
        items,
        unmeasured,
        spread,
    })
}

/// The factor a price may stray from its suggestion before the lint speaks: 1.5, or twice the
/// fitted roster's own scatter when that is wider.
pub fn tolerance(report: &Report, what: What) -> f64 {
    let key = if what == What::Class { "class" } else { "weapon" };
    let sd = report.spread.get(key).copied().unwrap_or(0.0);
    1.5f64.ln().max(2.0 * sd).exp()
}

/// A unit's share against a roster opponent: its duel share, else its share of the HP traded.
fn share(m: &Matchup) -> f64 {
    m.duel.unwrap_or_else(|| if m.dealt + m.taken > 0.0 { m.dealt / (m.dealt + m.taken) } else { 0.5 })
}

/// The matchups that show a price is off: for an overpriced unit, the cheaper roster units it
/// does worst against; for an underpriced one, the dearer units it does best against.
pub fn evidence(engine: &Engine, report: &Report, witness: usize, overpriced: bool) -> Vec<String> {
    let Some(m) = report.measured.get(witness) else { return Vec::new() };
    let own = unit_price(engine, &m.unit);
    let price = |j: usize| report.roster_prices.get(j).copied().unwrap_or(0);
    // Not its own class: a mirror match shows nothing about the price.
    let others = || m.matchups.iter().filter(|x| report.roster.get(x.opponent).is_some_and(|o| o.class != m.unit.class));
    let mut picked: Vec<&Matchup> =
        others().filter(|x| if overpriced { price(x.opponent) <= own } else { price(x.opponent) >= own }).collect();
    if picked.is_empty() {
        picked = others().collect();
    }
    picked.sort_by(|a, b| {
        let order = share(a).total_cmp(&share(b)).then(a.opponent.cmp(&b.opponent));
        if overpriced {
            order
        } else {
            order.reverse()
        }
    });
    picked
        .into_iter()
        .take(3)
        .filter_map(|x| {
            let o = report.roster.get(x.opponent)?;
            let duel = x.duel.map_or(String::new(), |d| format!("wins {:.0}% of duels, ", d * 100.0));
            Some(format!(
                "vs {} ({}, {} gold): {duel}takes {:.0}% of its HP per exchange for {:.0}% of its own",
                o.class,
                o.weapon,
                price(x.opponent),
                x.dealt * 100.0,
                x.taken * 100.0
            ))
        })
        .collect()
}

/// The written prices `diagnostics` ([`lint`]'s) warn of, as (name, kind): the rows a table marks.
pub fn flagged<'w>(diagnostics: &[Diagnostic], written: &'w [WrittenCost]) -> Vec<(&'w str, What)> {
    diagnostics.iter().filter_map(|d| written.iter().find(|w| w.span == d.span).map(|w| (w.name.as_str(), w.what))).collect()
}

/// The `oc::balance::cost_outlier` warnings: each home-brew price further from its suggestion
/// than [`tolerance`], on the span of its `cost`.
pub fn lint(engine: &Engine, report: &Report, written: &[WrittenCost]) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // A curve that does not hold (too few classes, or strength not raising the prices) judges no
    // price: its suggestions would call the strongest class overpriced.
    if !report.class_fit.holds() {
        return out;
    }
    for w in written {
        let Some(p) = report.classes.iter().chain(&report.items).find(|p| p.name == w.name && p.what == w.what) else {
            continue;
        };
        let factor = p.written.max(0) as f64 / (p.suggested as f64).max(PRICE_FLOOR);
        let tol = tolerance(report, p.what);
        if p.written <= 0 && p.suggested as f64 <= PRICE_FLOOR {
            continue;
        }
        let overpriced = factor > tol;
        if !overpriced && factor >= 1.0 / tol {
            continue;
        }
        let shown = report.measured.get(p.witness).map_or(String::new(), |m| m.unit.show());
        let (how, fix) = if overpriced {
            ("overpriced", format!("lower its cost toward {} or make it stronger", p.suggested))
        } else {
            ("underpriced", format!("raise its cost toward {} or make it weaker", p.suggested))
        };
        let ratio = if overpriced { factor } else { 1.0 / factor.max(1e-9) };
        let matchups = evidence(engine, report, p.witness, overpriced);
        let against = if overpriced { "against cheaper units" } else { "against dearer units" };
        out.push(
            Diagnostic::warning(
                COST_OUTLIER,
                w.span,
                format!(
                    "the {} `{}` costs {} gold but plays like {} gold ({how} {ratio:.1}x)",
                    p.what.word(),
                    p.name,
                    p.written,
                    p.suggested
                ),
            )
            .with_label(format!("{how}: the roster's price curve suggests {}", p.suggested))
            .with_help(format!(
                "{against}, {shown} {}; {fix} (`oc balance` prints every price with its suggestion; prices within {tol:.1}x pass)",
                matchups.join("; ")
            )),
        );
    }
    out
}

/// The prices written in the user's files (every file of `files` outside the standard library):
/// each class's and item's name with the span of its last `cost`.
pub fn written_costs(workspace: &oc_compiler::Workspace, files: &[oc_diag::FileId]) -> Vec<WrittenCost> {
    use oc_syntax::ast::{Item, ItemKind};
    let mut out = Vec::new();
    for id in files {
        let Some(file) = workspace.file(*id) else { continue };
        if file.path.starts_with(oc_compiler::stdlib::PREFIX) {
            continue;
        }
        for item in &file.ast().items {
            let (what, name, costs) = match item {
                Item::Class(c) => (What::Class, &c.name.value, &c.costs),
                Item::Item(i) => {
                    let what = match i.kind {
                        ItemKind::Weapon => What::Weapon,
                        ItemKind::Accessory => What::Accessory,
                        ItemKind::Consumable => What::Consumable,
                    };
                    (what, &i.name.value, &i.costs)
                }
                _ => continue,
            };
            if let Some(cost) = costs.last() {
                out.push(WrittenCost { what, name: name.to_string(), span: cost.span });
            }
        }
    }
    out
}
