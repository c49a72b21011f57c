//! The tactician's exact forecasts, worked out once per battle: loadouts interned to numbers
//! (their full description, HP, terrain and statuses included, so an entry stays right for the
//! whole battle), and each exchange kept as what the AI reads of it.

use std::sync::Arc;

use crate::battle::Battle;
use crate::fx::FastMap;
use crate::{Engine, Loadout};

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
/// forecast answers for either unit at a lower HP than it started with. A unit's strikes and
/// the other's land the same way until one is routed, so P(routed at h) = P(damage >= h)
/// exactly; what follows a rout that comes earlier at lower HP (the strikes it no longer
/// makes) is not subtracted.
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
}

impl Forecasts {
    /// The number standing for a loadout in this cache.
    pub fn id(&mut self, l: &Loadout) -> u32 {
        self.ids.id(l)
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
        let moved = moved && engine.ir.reads_moved;
        let cover = if engine.ir.reads_cover { cover } else { 0 };
        self.table
            .entry((ia, id, distance, single, moved, cover))
            .or_insert_with(|| {
                let f = engine.ending_shared(a, d, distance, single, (moved, cover)).ok()?;
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
