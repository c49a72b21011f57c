//! The loadouts one unit's attacks read in a plan ([`Arms`]), built and interned once.

use oc_model as m;

use super::super::Decision;
use super::{Reach, Unit, Weapons};
use crate::ai::forecasts::{Forecasts, Targets};
use crate::battle::Tile;
use crate::{Atom, Loadout};

/// A terrain (by name), the unit's own loadout there where the battle is situated, and the unit
/// on it with each weapon, interned.
pub(in crate::ai::tactician) type OnTerrain = (Option<String>, Option<Loadout>, Vec<(Loadout, u32)>);

/// The loadouts one unit's attacks read, built and interned once per plan: the unit on each
/// terrain it may strike from with each of its weapons (`Unit::weapons`' order), and each target;
/// the enemies in sight, once.
pub(super) struct Arms {
    /// The unit's acting loadout, which each terrain's loadouts start from.
    pub(super) acting: Loadout,
    /// The enemies in sight and their tiles.
    pub(super) foes: Vec<(usize, Tile)>,
    /// Those of them a weapon may reach from some tile in reach (the attacks weighed).
    pub(super) strikable: Vec<(usize, Tile)>,
    /// For each enemy and weapon, the nearest and farthest distance worth a forecast:
    /// (enemy, weapon, near, far).
    pub(super) spans: Vec<(usize, usize, i64, i64)>,
    /// By enemy of `strikable`, then tile of the reach (in its order): whether one of the
    /// unit's weapons strikes it from that tile over a clear line.
    pub(super) hits: Vec<bool>,
    pub(super) ours: Vec<OnTerrain>,
    pub(super) targets: Targets,
    /// Where the battle is situated and the unit can attack: its loadouts as it acts on the
    /// tiles of the reach (`Battle::loadouts_moved`: the distinct ones, and each tile's index
    /// into them); else none.
    pub(super) own: (Vec<Loadout>, Vec<Option<usize>>),
}

impl Arms {
    /// Unit `me` (acting loadout `acting`, or `own` where it is read on the tile) at full HP on
    /// `terrain`, with each weapon (kept in `ours`).
    pub(super) fn ours<'a>(
        ours: &'a mut Vec<OnTerrain>,
        (acting, own): (&Loadout, Option<Loadout>),
        me: &Unit,
        terrain: Option<&m::Terrain>,
        cache: &mut Forecasts,
    ) -> &'a [(Loadout, u32)] {
        let name = terrain.map(|x| x.name.as_str());
        let k = match ours.iter().position(|(n, l, _)| n.as_deref() == name && *l == own) {
            Some(k) => k,
            None => {
                let mut la = own.clone().unwrap_or_else(|| acting.clone());
                la.terrain = name.map(Atom::new);
                la.hp = None;
                let built = me
                    .weapons
                    .iter()
                    .map(|(w, _, _)| {
                        la.weapon = Some(*w);
                        (la.clone(), cache.id(&la))
                    })
                    .collect();
                ours.push((name.map(str::to_string), own, built));
                ours.len() - 1
            }
        };
        ours.get(k).map_or(&[], |(_, _, built)| built.as_slice())
    }
}

impl Decision<'_, '_> {
    /// For each enemy in sight and weapon, the nearest and farthest it can strike from: the
    /// distances worth a forecast (a bow shoots from as far as it can, or from as near). Only the
    /// weapons that reach an enemy from somewhere in the box the tiles in `reach` lie in (each
    /// tile's distance to it lies between the box's nearest and farthest): the enemies they reach
    /// are the only ones worth weighing an attack on (`strikable`). With them, by enemy of
    /// `strikable` and tile of the reach, whether a weapon strikes it from there over a clear
    /// line (`Arms::hits`: what `attacks` asks of every tile); and by tile of the reach whether a
    /// weapon strikes any of them from there (from most tiles none: `attacks` is not asked).
    #[allow(clippy::type_complexity)]
    pub(super) fn strike_map(
        &self,
        weapons: &Weapons,
        reach: &Reach,
    ) -> (Vec<(usize, usize, i64, i64)>, Vec<(usize, Tile)>, Vec<bool>, Vec<bool>) {
        let b = self.battle();
        let mut spans: Vec<(usize, usize, i64, i64)> = Vec::new();
        let mut strikable = Vec::new();
        let mut hits: Vec<bool> = Vec::new();
        let mut strikes_from = vec![false; reach.len()];
        let bounds = super::bounds(reach);
        for (k, f) in self.view.targets() {
            let (least, most) = super::span_of(bounds, f.pos);
            let mut any = false;
            let row = hits.len();
            for (n, (_, lo, hi)) in weapons.iter().enumerate() {
                if least > *hi || most < *lo {
                    continue;
                }
                if !any {
                    hits.resize(row + reach.len(), false);
                }
                any = true;
                let (mut near, mut far) = (i64::MAX, i64::MIN);
                // Only the columns within its reach of the enemy (the reach is in tile order,
                // column by column): no tile of the others is within it.
                let first = reach.partition_point(|(t, _)| t.0 < f.pos.0 - *hi);
                let end = reach.partition_point(|(t, _)| t.0 <= f.pos.0 + *hi).max(first);
                let tiles = reach.get(first..end).unwrap_or_default();
                let hits = hits.get_mut(row + first..).unwrap_or_default();
                let froms = strikes_from.get_mut(first..).unwrap_or_default();
                for (((t, _), hit), from) in tiles.iter().zip(hits).zip(froms) {
                    let d = crate::battle::distance(*t, f.pos);
                    if *lo <= d && d <= *hi && b.clear_line(*t, f.pos) {
                        (near, far) = (near.min(d), far.max(d));
                        (*hit, *from) = (true, true);
                    }
                }
                if near <= far {
                    spans.push((k, n, near, far));
                }
            }
            if any {
                strikable.push((k, f.pos));
            }
        }
        (spans, strikable, hits, strikes_from)
    }
}
