//! The loadouts one unit's attacks read in a plan ([`Arms`]), built and interned once.

use oc_model as m;

use super::Unit;
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
