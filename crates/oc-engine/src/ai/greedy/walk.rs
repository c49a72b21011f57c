//! Greedy's walk: toward the objective or the nearest enemy, by walking guides kept between
//! decisions while the terrain stands.

use std::sync::Arc;

use oc_model as m;

use super::spots::Recent;
use super::{situation_costs, Forecasts, Objectives};
use crate::ai::forecasts::Targets;
use crate::ai::guides::KeptGuides;
use crate::ai::{Guide, View};
use crate::battle::{distance, Battle, Tile};
use crate::fx::FastMap;
use crate::{Atom, Loadout};

/// Where the battle is situated: the unit's acting loadout, its weapons and its own loadouts on
/// the tiles in reach (the distinct ones, and each tile's index into them, in the reach's order).
pub(super) type Situation<'a> = (&'a Loadout, &'a [Atom], (&'a [Loadout], &'a [Option<usize>]));

/// By movement type and the enemy's tiles, the guides toward each (their numbers in `each`,
/// with their goals).
type TowardFoes = (String, Vec<Tile>, Vec<(usize, Tile)>);

/// Greedy's walking guides: those toward its goals kept by movement type and goal tiles
/// ([`KeptGuides`]: units that move alike toward the same goals share one, and later decisions
/// reuse it; a side's goals stay put for a whole phase), and those toward each enemy tile.
#[derive(Default)]
pub(super) struct Guides {
    /// Guides toward the objective or the regions (lazy ones), each unit's reach search.
    pub(super) kept: KeptGuides<Guide>,
    /// By movement type and one goal tile: a guide toward that tile alone (`each`, by number).
    /// A walk toward the enemy, whose tiles change at every move of theirs, reads the least of
    /// the guides toward each of them: the cost a guide toward all of them finds, as a search
    /// from many goals finds for each tile the least of the searches from each, and these are
    /// kept from one decision to the next while the terrain stands.
    toward: FastMap<String, FastMap<Tile, usize>>,
    each: Vec<Guide>,
    /// This decision's enemy tiles in sight, and by movement type the guides toward each
    /// ([`Guides::toward_each`]), with the goals they were found for: the same for every unit
    /// that walks toward the enemy ([`Guides::check`] forgets them).
    foes: Option<Vec<Tile>>,
    toward_foes: Vec<TowardFoes>,
    /// Each unit's last reaches, with the spots and walks worked out from them ([`Recent`]).
    pub(super) recent: Recent,
}

impl std::fmt::Debug for Guides {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Guides({:?}, {})", self.kept, self.each.len())
    }
}

impl Guides {
    /// The most tile costs the guides toward one goal hold together (32 MB).
    const EACH_TILES: usize = 1 << 22;

    /// The numbers in `each` of the guides for movement type `kind` toward each of `goals`, with
    /// their goals, started where missing.
    fn toward_each(&mut self, b: &Battle, kind: &str, enter: &Arc<[Option<i64>]>, goals: &[Tile]) -> Vec<(usize, Tile)> {
        if !self.toward.contains_key(kind) {
            self.toward.insert(kind.to_string(), FastMap::default());
        }
        let Some(toward) = self.toward.get_mut(kind) else { return Vec::new() };
        let each = &mut self.each;
        let mut ks: Vec<(usize, Tile)> = goals
            .iter()
            .map(|g| {
                let k = *toward.entry(*g).or_insert_with(|| {
                    each.push(Guide::lazy_over(b, enter.clone(), &[*g]));
                    each.len() - 1
                });
                (k, *g)
            })
            .collect();
        ks.sort_unstable();
        ks.dedup_by_key(|(k, _)| *k);
        ks
    }

    /// [`Guides::toward_each`] toward the enemy's tiles `goals`, found once a decision.
    fn toward_foes(&mut self, b: &Battle, kind: &str, enter: &Arc<[Option<i64>]>, goals: &[Tile]) -> &[(usize, Tile)] {
        let at = match self.toward_foes.iter().position(|(k, g, _)| k == kind && g == goals) {
            Some(at) => at,
            None => {
                let ks = self.toward_each(b, kind, enter, goals);
                self.toward_foes.push((kind.to_string(), goals.to_vec(), ks));
                self.toward_foes.len() - 1
            }
        };
        self.toward_foes.get(at).map_or(&[], |(_, _, ks)| ks)
    }

    /// Forgets what one decision found; the guides too if the terrain changed (a door opened, a
    /// wall razed) or too many are kept ([`KeptGuides::check`]).
    pub(super) fn check(&mut self, b: &Battle) {
        self.foes = None;
        self.toward_foes.clear();
        let changed = self.kept.check(b);
        if changed {
            self.recent.clear();
        }
        // Each guide toward one goal holds a cost a tile: a bounded number of them.
        if changed || self.each.len().saturating_mul(self.kept.tiles()) > Guides::EACH_TILES {
            self.toward.clear();
            self.each.clear();
        }
    }
}

/// Unit `i`'s best walk (the tile and its score: half the progress made) toward its objective
/// (by its actions' `verbs`), else those its side defends, else the enemies in sight (under fog
/// with none, where the enemy deployed), moving as `kind` over the `tiles` in reach; `None` where
/// it has nowhere to go or `beat` (the best option's score so far) no walk can beat. Where the
/// battle is situated (`situated`: the unit's loadout, weapons and own loadouts on the tiles),
/// each tile's progress less what standing there costs its blow. `kept`: the unit's most recent
/// reach in `guides.recent` is `tiles` (`Recent::spots`), whose walks are read and kept.
pub(super) fn walk(
    (view, i): (&View, usize),
    (cache, guides, targets): (&mut Forecasts, &mut Guides, &mut Targets),
    (verbs, objectives): (&[Option<m::Verb>], &Objectives),
    (kind, tiles): (&str, &[(Tile, i64)]),
    (beat, kept): (Option<f64>, bool),
    situated: Option<Situation>,
) -> Option<(Tile, f64)> {
    let b = view.battle;
    let u = b.units.get(i)?;
    // A walk's progress is at most what the move costs (the guide's costs are the moves', units
    // aside), so where the best option so far scores as much, no walk can beat it: its goals
    // and guide are not needed. Not so from a tile the unit could not enter: the guide counts it
    // unreached. Nor where the battle is situated: a tile scores its progress less what standing
    // there costs the unit's blow, and a step back into its general's command costs less than
    // nothing (`tests::the_walks_bound_changes_no_decision`).
    let farthest = tiles.iter().map(|(_, c)| *c).max().unwrap_or(0);
    let bounded = situated.is_none() && b.enters(kind, u.pos);
    if pruned() && bounded && beat.is_some_and(|s| s >= farthest as f64 * 0.5) {
        return None;
    }
    let has = |verb: m::Verb| verbs.contains(&Some(verb));
    let mut goals: Vec<Tile> = Vec::new();
    for verb in [m::Verb::Seize, m::Verb::Escape, m::Verb::Raze] {
        if has(verb) {
            goals.extend_from_slice(objectives.of_verb(verb));
        }
    }
    if goals.is_empty() {
        goals.extend_from_slice(&objectives.defend);
    }
    let enemies = goals.is_empty();
    if enemies {
        goals.extend_from_slice(guides.foes.get_or_insert_with(|| view.enemies().map(|(_, f)| f.pos).collect()));
    }
    let foes = enemies && !goals.is_empty();
    // Under fog with no enemy in sight: toward where the enemy deployed.
    if goals.is_empty() && view.sight.fogged() {
        goals.extend_from_slice(crate::battle::zone_tiles(&b.scenario, &b.map, u.side.other()));
    }
    if goals.is_empty() {
        return None;
    }
    // Not situated, the walk is a function of where the unit stands, its movement, its reach,
    // the goals and the terrain: where `kept`, one kept for them is read ([`Recent`], whose most
    // recent reach for the unit is `tiles`: `best_for` asked it for its spots).
    let mode = (enemies, foes);
    let kept = kept && situated.is_none();
    if kept {
        if let Some(found) = guides.recent.walk(i, tiles, (u.pos, kind, mode), &goals) {
            return found;
        }
    }
    let key = kept.then(|| goals.clone());
    let (enter, floor) = guides.kept.enter(b, kind);
    // The cost from a tile to the nearest goal: toward the enemy, the least of the guides toward
    // each of its tiles; else the one guide toward them all.
    let mut nearest: Option<Tile> = None;
    let (each, guide) = if enemies && !goals.is_empty() {
        // Each guide with its goal's distance from where the unit stands, the nearest goals
        // first: the least cost is found early and the far guides not read.
        // Toward the enemy's tiles in sight (the same for every unit this decision), else toward
        // where the enemy deployed.
        let zone;
        let ks = if foes {
            guides.toward_foes(b, kind, &enter, &goals)
        } else {
            zone = guides.toward_each(b, kind, &enter, &goals);
            &zone[..]
        };
        let mut ks: Vec<(i64, usize, Tile)> = ks.iter().map(|(k, g)| (distance(u.pos, *g), *k, *g)).collect();
        ks.sort_unstable_by_key(|(d, k, _)| (*d, *k));
        nearest = ks.first().map(|(_, _, g)| *g);
        (Some((ks, &mut guides.each)), None)
    } else {
        (None, Some(guides.kept.guide(b, kind, goals, |enter, goals| Guide::lazy_over(b, enter, goals))))
    };
    let (mut each, mut guide) = (each, guide);
    let start = u.pos;
    // `settle(t, cap)`: the cost from `t` to the nearest goal where it is at most `cap`; else
    // that cost, a greater one or `None` (a guide that cannot bring it to `cap` is not read).
    let mut settle = |t: Tile, cap: i64| -> Option<i64> {
        if let Some(g) = guide.as_mut() {
            return g.settle(t);
        }
        let (ks, all) = each.as_mut()?;
        let mut least: Option<i64> = None;
        // The goals are in order of distance from where the unit stands, and `t` is `near` it:
        // a goal is at least its distance less `near` from `t`.
        let near = distance(t, start);
        // Each step of a walk enters a tile, at `floor` at least: a guide whose goal lies so far
        // that even that cost is no less than the least found, or more than `cap`, cannot
        // matter (its cost is not read).
        let far = |d: i64, least: Option<i64>| {
            let at_least = d.saturating_mul(floor);
            least.is_some_and(|l| at_least >= l) || at_least > cap
        };
        for (from_start, k, goal) in ks.iter() {
            // Nor can any guide after it, once even the least distance it may lie at is that far.
            if floor > 0 && far(from_start - near, least) {
                break;
            }
            if floor > 0 && far(distance(t, *goal), least) {
                continue;
            }
            if let Some(c) = all.get_mut(*k).and_then(|g| g.settle(t)) {
                least = Some(least.map_or(c, |l| l.min(c)));
            }
        }
        least
    };
    let here = settle(u.pos, i64::MAX).unwrap_or(i64::MAX / 4);
    if let Some((base, weapons, owns)) = situated {
        // Each tile's progress less what standing there costs its blow (`situation_costs`): a
        // step that takes it out of its general's command is worth less by that.
        let costs = situation_costs(b, cache, targets, (view, i), (base, weapons), owns);
        tiles.iter().zip(&costs).filter_map(|((t, _), c)| settle(*t, i64::MAX).map(|d| (*t, (here - d) as f64 * 0.5 - c))).fold(
            None,
            |best: Option<(Tile, f64)>, (t, v)| if best.is_none_or(|(_, b)| v > b + 1e-9) { Some((t, v)) } else { best },
        )
    } else {
        // The least cost, the first tile of it: a tile whose cost is more than the least so far
        // cannot be it, so its guides are read only as far as that. Toward the enemy, the tile
        // nearest the nearest goal is read first: the least is found early and the other tiles'
        // guides read less (the least and its first tile in tile order are the same either way).
        let first = nearest.and_then(|g| tiles.iter().map(|(t, _)| (distance(*t, g), *t)).min()).map(|(_, t)| t);
        let mut least: Option<(i64, Tile)> = None;
        for t in first.iter().chain(tiles.iter().map(|(t, _)| t).filter(|t| Some(**t) != first)) {
            let cap = least.map_or(i64::MAX, |(d, _)| d);
            if let Some(d) = settle(*t, cap) {
                if least.is_none_or(|l| (d, *t) < l) {
                    least = Some((d, *t));
                }
            }
        }
        let found = least.map(|(d, t)| (t, (here - d) as f64 * 0.5));
        if let Some(goals) = key {
            guides.recent.keep_walk(i, (u.pos, kind, mode), goals, found);
        }
        found
    }
}

#[cfg(test)]
thread_local! {
    /// In tests: every walk read, none skipped by the best option so far (`walk`'s bound).
    pub(super) static UNPRUNED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a walk that cannot beat the best option so far is skipped ([`UNPRUNED`] clears it in
/// tests; always elsewhere).
#[cfg(test)]
fn pruned() -> bool {
    !UNPRUNED.with(std::cell::Cell::get)
}

#[cfg(not(test))]
#[inline(always)]
fn pruned() -> bool {
    true
}
