//! Under fog, the enemies a side remembers (out of sight now, where it last saw them,
//! `Tactician::remember`) counted in the threat map as the enemies in sight are: each strikes
//! with its weapons from every tile it can reach from where it was last seen (over the terrain,
//! units aside), and after a second move when it has yet to act this round. A unit walking out
//! of sight of an enemy it just saw no longer takes it for gone.
//!
//! What the side cannot see is not read: the enemy is taken at full HP (its wounds are out of
//! sight too), on the tile it was last seen on.

use crate::ai::View;
use crate::battle::{State, Tile};
use crate::Loadout;

use super::threat::{Foe, Later, ThreatMap};
use crate::ai::forecasts::Forecasts;

/// The rounds an enemy out of sight is counted for after the round it was last seen in: after
/// that it may be anywhere, and a side that kept out of the reach of every tile it once saw an
/// enemy on would never look for it again (it forgets an enemy only on seeing its tile empty).
const FRESH: u32 = 1;

/// Adds to `threats` each enemy `view`'s side does not see now that `memory` places (by battle
/// index: the tile it was last seen on; by tile, row by row: the round it was last in sight, plus
/// one) and that was seen at most [`FRESH`] rounds ago; `worth` by battle index.
pub(super) fn count(
    threats: &mut ThreatMap,
    view: &View,
    (memory, swept): (&[Option<Tile>], &[u32]),
    (cache, later): (&mut Forecasts, &mut Later),
    worth: &[f64],
) {
    let b = view.battle;
    if !view.sight.fogged() {
        return;
    }
    let (width, height) = (b.map.width.max(0), b.map.height.max(0));
    let last_in_sight = |t: Tile| crate::battle::tile_index(t, (width, height)).and_then(|k| swept.get(k)).copied().unwrap_or(0);
    // The enemies out of sight: the ones seen lately where they were seen.
    let unseen = |k: usize| {
        b.units.get(k).is_some_and(|e| e.side != view.sight.side && e.state == State::Ready && !view.sight.spots(k, e.pos))
    };
    let mut places: Vec<(usize, Tile)> = Vec::new();
    for (k, at) in memory.iter().enumerate() {
        let Some(at) = *at else { continue };
        let seen = last_in_sight(at);
        if unseen(k) && seen != 0 && b.round < seen + FRESH {
            places.push((k, at));
        }
    }
    for (k, at) in places {
        let Some(e) = b.units.get(k) else { continue };
        let Some(mut base) = b.loadout_of(k, true) else { continue };
        base.hp = None;
        base.terrain = None;
        let Ok((points, kind, again)) = b.mobility(k) else { continue };
        let guide = crate::ai::Guide::within(b, &kind, &[at], points);
        let from: Vec<Tile> = (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .filter(|t| guide.at(*t).is_some_and(|c| c <= points))
            .collect();
        let mut arms: Vec<(Loadout, u32, (i64, i64))> = Vec::new();
        let mut far = Vec::new();
        for w in e.items.iter().filter(|n| b.engine.item(n).is_some_and(|it| it.kind == oc_model::ItemKind::Weapon)) {
            if arms.iter().any(|(l, _, _)| l.weapon.as_deref() == Some(w.as_str())) || arms.len() >= 8 {
                continue;
            }
            let mut l = base.clone();
            l.weapon = Some(*w);
            let Ok(armed) = b.engine.unit(&l, &[]) else { continue };
            if !armed.may_use_weapon() {
                continue;
            }
            let (lo, hi) = (armed.min_range.max(0), armed.max_range.clamp(0, 31));
            if hi < lo.max(1) {
                continue;
            }
            far.push((!e.activated && again).then(|| later.mask(b, &kind, at, points, (lo, hi))));
            let id = cache.id(&l);
            arms.push((l, id, (lo, hi)));
        }
        let tempo = if e.activated { super::ACTED } else { 1.0 };
        let worth = worth.get(k).copied().unwrap_or(1.0);
        let foe = Foe { unit: k, arms: Vec::new(), tempo, worth, hp: e.max_hp, max_hp: e.max_hp };
        threats.push(b, &from, arms, far, foe);
    }
}
