//! What a tactician keeps of its units from one decision to the next, by what each part is
//! built from (so a kept part is the one a decision would build): our units as the enemy would
//! strike them ([`Decision::target`]), and the loadouts a plan reads (`plan/makeup.rs`' `prey`,
//! `plan/arms.rs`' `Arms::ours`). Each holds numbers of the tactician's forecasts: forgotten
//! with them (`Tactician::leave`).

use std::sync::Arc;

use super::{plan, Decision};
use crate::ai::forecasts::Forecasts;
use crate::battle::Tile;
use crate::{Atom, Loadout};

/// By unit, its weapons as `Decision::prey` reads them (each loadout with its number in the
/// forecasts, and the distance it strikes from), with what they are built from: its loadout as
/// it acts at full HP on no terrain, and its weapons (`Unit::weapons`). A few each: where the
/// battle is situated, a unit reads them for each loadout it may stand with.
pub(super) type PreyArms = Vec<Vec<(Loadout, Vec<(Atom, i64, i64)>, Arc<[(Loadout, u32, i64)]>)>>;

/// By unit, its loadout as it acts but for its HP and terrain, and its weapons; and on each
/// terrain it struck from with each of them, interned (`Arms::ours`): kept while those are the same.
pub(super) type KeptOurs = Vec<(Option<(Loadout, Vec<Atom>)>, Vec<plan::OnTerrain>)>;

/// By unit, its weapons as a plan reads them (`Unit::weapons`), with what they are read from:
/// its loadout as it acts and its items.
pub(super) type KeptWeapons = Vec<Option<(Loadout, Vec<Atom>, Vec<(Atom, i64, i64)>)>>;

/// By unit, its loadout as the enemy would strike it but for the weapon, terrain and HP
/// (`Battle::loadout_of`, the three left out), and that loadout with each weapon and terrain it
/// was asked for, interned (`Decision::target`): kept while the unit's is the same. Where the
/// battle is situated, the whole loadouts, a decision's.
pub(super) type KeptTargets = Vec<(Option<Loadout>, Vec<(Arc<Loadout>, u32)>)>;

impl Decision<'_, '_> {
    /// Our unit `k` as an enemy would strike it on `at`, holding `weapon`: interned. Its HP is
    /// full, so one forecast answers for every HP it may have (`Sketch::against`) and the
    /// forecasts stay right as it is worn down.
    pub(super) fn target(
        &mut self,
        k: usize,
        weapon: Option<Atom>,
        at: Tile,
        cache: &mut Forecasts,
    ) -> Option<(Arc<Loadout>, u32)> {
        let b = self.battle();
        let terrain = b.terrain_atom_at(at);
        if self.targets.len() <= k {
            self.targets.resize_with(k + 1, Default::default);
        }
        if self.checked.len() <= k {
            self.checked.resize(k + 1, false);
        }
        let situated = b.situated();
        // Once a decision: the entries kept while the unit's loadout but for the weapon, terrain
        // and HP is the same (each entry is that loadout with them); a situated battle's, never.
        if let (Some(checked), Some((base, entries))) = (self.checked.get_mut(k), self.targets.get_mut(k)) {
            if !*checked {
                *checked = true;
                let now = if situated {
                    None
                } else {
                    b.loadout_of(k, false).map(|mut l| {
                        (l.weapon, l.terrain, l.hp) = (None, None, None);
                        l
                    })
                };
                if situated || now.is_none() || *base != now {
                    entries.clear();
                    *base = now;
                }
            }
        }
        let (base, entries) = self.targets.get_mut(k)?;
        // Where the advanced rules lay statuses by where a unit stands, as it will stand on `at`
        // (the whole loadout tells one entry from another).
        // Asked again for the same tile and weapon in this decision (the battle as it stands),
        // the same loadout: found by those, not built again (`Decision::situated`).
        if situated {
            if let Some((x, id)) = self.situated.get(&(k, at, weapon)) {
                return Some((x.clone(), *id));
            }
            let mut l = b.loadout_moved(k, false, (k, at))?;
            l.weapon = weapon;
            l.terrain = terrain;
            l.hp = None;
            let (loadout, id) = match entries.iter().find(|(x, _)| **x == l) {
                Some((x, id)) => (x.clone(), *id),
                None => {
                    let id = cache.id(&l);
                    let loadout = Arc::new(l);
                    entries.push((loadout.clone(), id));
                    (loadout, id)
                }
            };
            self.situated.insert((k, at, weapon), (loadout.clone(), id));
            return Some((loadout, id));
        }
        if let Some((l, id)) = entries.iter().find(|(l, _)| l.weapon == weapon && l.terrain == terrain) {
            return Some((l.clone(), *id));
        }
        // `Battle::loadout_of` with the weapon and terrain, at full HP.
        let mut l = base.clone()?;
        l.weapon = weapon;
        l.terrain = terrain;
        let id = cache.id(&l);
        let loadout = Arc::new(l);
        entries.push((loadout.clone(), id));
        Some((loadout, id))
    }
}
