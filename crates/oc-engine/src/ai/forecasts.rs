//! The tactician's exact forecasts, worked out once per battle: loadouts interned to numbers
//! (their full description, HP, terrain and statuses included, so an entry stays right for the
//! whole battle), and each exchange kept as what the AI reads of it.

use std::sync::Arc;

use crate::battle::Battle;
use crate::combat::{Ending, Odds, Template};
use crate::fx::FastMap;
use crate::{Engine, EngineError, Loadout};

/// Loadouts interned to numbers for one battle (both AIs key their forecasts by them). A loadout
/// includes HP, terrain and statuses, so a number stays right for the whole battle.
#[derive(Debug, Default)]
pub(crate) struct Ids(FastMap<Loadout, u32>);

impl Ids {
    /// The number standing for a loadout.
    pub fn id(&mut self, l: &Loadout) -> u32 {
        if let Some(id) = self.0.get(l) {
            return *id;
        }
        let next = self.0.len() as u32;
        self.0.insert(l.clone(), next);
        next
    }

    /// How many loadouts have a number.
    pub fn count(&self) -> usize {
        self.0.len()
    }
}

/// Which exchange, by its loadouts without hit points (their numbers in [`Templates`]): as [`Key`].
type BareKey = (u32, u32, i64, bool, bool, i64);

/// Exchanges' walks at any hit points (`combat::Template`), by their loadouts without hit points:
/// an AI that meets a hurt unit it fought before walks the exchange again from the new hit
/// points, with the outcomes and order of strikes it kept, and neither builds its units nor
/// evaluates a rule. The same bits as the engine's ending (`Engine::ending_shared`). Kept by the
/// AI, not the engine: `combat/memo.rs` says why.
#[derive(Default)]
pub(crate) struct Templates {
    /// By a loadout's number in the AI's [`Ids`], its number here without hit points, plus one
    /// (0: not yet asked).
    bare: Vec<u32>,
    ids: Ids,
    table: FastMap<BareKey, Arc<Template>>,
}

impl std::fmt::Debug for Templates {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Templates({})", self.table.len())
    }
}

/// How an exchange ends: from a kept walk (with the hit points it starts from), or as the engine
/// worked it out.
pub(crate) enum Ended {
    Walked(Arc<Template>, [i64; 2]),
    Worked(Arc<Ending>),
}

impl Ended {
    /// Its odds (the ending's bits).
    pub fn odds(&self) -> Option<Odds> {
        match self {
            Ended::Walked(t, start) => t.odds(*start),
            Ended::Worked(f) => Some(f.odds),
        }
    }

    /// Its ending (the same bits).
    pub fn ending(&self) -> Option<Arc<Ending>> {
        match self {
            Ended::Walked(t, start) => t.ending(*start).map(Arc::new),
            Ended::Worked(f) => Some(f.clone()),
        }
    }
}

impl Templates {
    /// The most walks kept: past it, they start over.
    const MAX: usize = 1 << 16;

    /// How much is kept: the larger of the walks kept and the loadouts numbered.
    pub fn count(&self) -> usize {
        self.table.len().max(self.ids.count())
    }

    /// The number of loadout `l` (numbered `id` by the AI) without its hit points.
    pub fn bare(&mut self, l: &Loadout, id: u32) -> u32 {
        let at = id as usize;
        if let Some(n) = self.bare.get(at).filter(|n| **n > 0) {
            return n - 1;
        }
        let n = self.ids.id(&Loadout { hp: None, ..l.clone() });
        if self.bare.len() <= at {
            self.bare.resize(at + 1, 0);
        }
        if let Some(slot) = self.bare.get_mut(at) {
            *slot = n + 1;
        }
        n
    }

    /// How `a` (numbered `ia`) attacking `d` (`id`) ends: [`Engine::ending_shared`]'s arguments.
    pub fn ending(
        &mut self,
        engine: &Engine,
        (a, ia): (&Loadout, u32),
        (d, id): (&Loadout, u32),
        distance: i64,
        (single, moved, cover): (bool, bool, i64),
    ) -> Result<Ended, EngineError> {
        let (moved, cover) = engine.situation_read(moved, cover);
        let key = (self.bare(a, ia), self.bare(d, id), distance, single, moved, cover);
        if let Some(t) = self.table.get(&key) {
            if let Some(start) = t.start([a.hp, d.hp]) {
                return Ok(Ended::Walked(t.clone(), start));
            }
        }
        let (f, walk) = engine.ending_walked(a, d, distance, single, (moved, cover), true)?;
        if let Some(t) = walk {
            if self.table.len() >= Templates::MAX {
                self.table.clear();
            }
            self.table.insert(key, Arc::new(t));
        }
        Ok(Ended::Worked(f))
    }
}

/// Enemies as targets, as they stand: each one's loadout built and interned the first time it is
/// asked for (a decision or a plan keeps one; the battle does not change under it).
#[derive(Debug, Default)]
pub(crate) struct Targets(Vec<Option<Option<(Loadout, u32)>>>);

impl Targets {
    /// Unit `k`'s loadout as a target, with its number; `None` when it has none.
    pub fn get(&mut self, b: &Battle, k: usize, ids: &mut Ids) -> Option<(&Loadout, u32)> {
        if self.0.len() <= k {
            self.0.resize(k + 1, None);
        }
        let slot = self.0.get_mut(k)?;
        let built = slot.get_or_insert_with(|| {
            b.loadout_of(k, false).map(|l| {
                let id = ids.id(&l);
                (l, id)
            })
        });
        built.as_ref().map(|(l, id)| (l, *id))
    }
}

/// One exchange as the AI weighs it: each side's damage taken as a distribution, so the same
/// forecast answers for either unit at a lower HP than it started with. Where no strike reads
/// hit points, a unit's strikes and the other's land the same way until one is routed, so
/// P(routed at h) = P(damage >= h) exactly; what follows a rout that comes earlier at lower HP
/// (the strikes it no longer makes) is not subtracted. Where strikes read them (seed 003's
/// units of figures: a unit strikes once for each living figure, and a blow is capped at its
/// front figure), it is an approximation: a unit worn down strikes back less than the forecast
/// at full HP says. Left so (the tactician's worn-down blows, `ThreatMap::standing`, would need
/// an exchange for every HP they guess at).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Sketch {
    /// The damage taken -> probability, by damage, from `attacker_hp` and `defender_hp`.
    attacker_damage: Vec<(i64, f64)>,
    defender_damage: Vec<(i64, f64)>,
    attacker_hp: i64,
    pub defender_hp: i64,
}

/// (chance routed, expected damage) of a unit starting at `hp` (at most `start`) that takes
/// `dist` damage.
fn at(dist: &[(i64, f64)], start: i64, hp: i64) -> (f64, f64) {
    let hp = hp.clamp(1, start.max(1));
    let (mut routed, mut damage) = (0.0, 0.0);
    for (d, p) in dist {
        if *d >= hp {
            routed += p;
            damage += p * hp as f64;
        } else {
            damage += p * (*d).max(0) as f64;
        }
    }
    (routed, damage)
}

impl Sketch {
    /// (chance the defender is routed, its expected damage) when it starts the exchange with
    /// `hp` (at most the HP the forecast started from).
    pub fn against(&self, hp: i64) -> (f64, f64) {
        at(&self.defender_damage, self.defender_hp, hp)
    }

    /// The same for the attacker.
    pub fn attacker_at(&self, hp: i64) -> (f64, f64) {
        at(&self.attacker_damage, self.attacker_hp, hp)
    }
}

/// Which exchange: the interned attacker and defender loadouts, the distance, and whether it is
/// a lone strike (a free attack of a threat zone), a charge, and the cover.
type Key = (u32, u32, i64, bool, bool, i64);

/// Forecasts for one battle (one engine).
#[derive(Debug, Default)]
pub(crate) struct Forecasts {
    pub ids: Ids,
    table: FastMap<Key, Option<Arc<Sketch>>>,
    templates: Templates,
}

impl Forecasts {
    /// The number standing for a loadout in this cache.
    pub fn id(&mut self, l: &Loadout) -> u32 {
        self.ids.id(l)
    }

    /// How much is kept: the most of the loadouts numbered, the exchanges and their walks.
    pub fn count(&self) -> usize {
        self.ids.count().max(self.table.len()).max(self.templates.count())
    }

    /// The forecast of `a` (interned as `ia`) attacking `d` (`id`) from `distance`, or `None`
    /// when it cannot (out of range, no usable weapon). `moved`: `a` moves to make the attack
    /// (a charge, where the rules read `attacker.moved`); `cover`: how hidden `d` is from where `a`
    /// strikes (where the rules read `cover`).
    pub fn get(
        &mut self,
        engine: &Engine,
        (a, ia): (&Loadout, u32),
        (d, id): (&Loadout, u32),
        distance: i64,
        (single, moved, cover): (bool, bool, i64),
    ) -> Option<Arc<Sketch>> {
        let (moved, cover) = engine.situation_read(moved, cover);
        self.table
            .entry((ia, id, distance, single, moved, cover))
            .or_insert_with(|| {
                let templates = &mut self.templates;
                let f = templates.ending(engine, (a, ia), (d, id), distance, (single, moved, cover)).ok()?.ending()?;
                let [a, d] = f.start;
                Some(Arc::new(Sketch {
                    attacker_damage: f.attacker_hp.iter().map(|(hp, p)| (a - hp, *p)).collect(),
                    defender_damage: f.defender_hp.iter().map(|(hp, p)| (d - hp, *p)).collect(),
                    attacker_hp: a,
                    defender_hp: d,
                }))
            })
            .clone()
    }
}
