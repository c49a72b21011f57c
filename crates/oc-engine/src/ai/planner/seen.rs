//! The battle as a side has seen it: the copies the planner plays ahead on under fog of war.
//!
//! A copy holds the side's own units, the enemies it spots now (in sight and not hidden,
//! [`crate::battle::Sight::spots`]) where they stand, and the enemies it remembers where it last
//! saw them (the tactician's memory, `Tactician::remember`: an enemy that stepped out of sight
//! is sampled where it was seen, so it blocks and strikes in a playout as it could in the
//! battle), when that tile is free in the copy. An enemy never seen is sampled too ([`Fog`]):
//! each copy sets it, by the copy's own dice, on one of the tiles it could stand on for all the
//! side knows (out of sight now, one its movement may enter, within its walk of the enemy's
//! deployment zone in the moves it has had). Measured: taken off the copy instead, the
//! Woodcutter's Night watch searched a battle of four against the one raider in sight, stepped
//! out to let the others strike it, and the raiders behind in the dark routed it.
//!
//! Only where no such tile is free is an enemy taken off the board in the copy (as a unit that
//! joined another, `State::Joined`, with no unit to fight in: it neither stands, acts, is seen
//! nor counts as routed) and set on one tile, so that nothing in the copy reads where it stood.
//! Since a condition such as `rout all` would then hold early in a copy, the leaf does not trust
//! a win for the side that searches where enemies were taken off ([`Seen::trusts`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use oc_model as m;

use crate::battle::{neighbours, tile_index, Battle, Sight, State, TerrainSeen, Tile};
use crate::Atom;

/// What `side` knows of the enemies out of its sight, worked out once per decision: where each
/// was last seen (the tactician's memory, by battle index), and for each never seen the tiles
/// it could stand on.
pub(super) struct Fog {
    /// What `side` sees now.
    sight: Sight,
    /// Each enemy never seen (battle index), with the tiles a copy may set it on (by their
    /// place in `sets`: enemies of one movement and one walk share them).
    unseen: Vec<(usize, usize)>,
    sets: Vec<Vec<Tile>>,
    /// What every copy holds before its dice place anyone: the enemies out of sight set where
    /// last seen (battle index, tile), the tiles held then (by the side's units, the enemies in
    /// sight and those set), and the enemies left to place (in the battle's order). Each copy is
    /// `b` forked, so this is worked out once, not per copy.
    placed: Vec<(usize, Tile)>,
    held: Vec<Tile>,
    off: Vec<usize>,
}

impl Fog {
    /// `side`'s view of `b` with `memory`: for each enemy out of sight and never seen, the tiles
    /// out of sight that its movement may enter within `points * round` of walking from its
    /// side's deployment zone (what it could have walked by now, at the most; those walks kept
    /// in `walks`).
    pub fn new(b: &Battle, side: m::SideId, memory: &[Option<Tile>], walks: &mut Walks) -> Fog {
        let sight = b.sight(side);
        let (mut unseen, mut sets) = (Vec::new(), Vec::new());
        if sight.fogged() {
            let zone = crate::battle::zone_tiles(&b.scenario, &b.map, side.other()).to_vec();
            walks.check(b);
            let mut walked: Vec<(Atom, Arc<[i64]>)> = Vec::new();
            // The tile sets made, by movement and allowance.
            let mut made: Vec<(Atom, i64, usize)> = Vec::new();
            for (k, u) in b.units.iter().enumerate() {
                let never = memory.get(k).copied().flatten().is_none();
                if u.side == side || u.state != State::Ready || sight.spots(k, u.pos) || !never {
                    continue;
                }
                let Ok((points, kind, _)) = b.mobility(k) else { continue };
                if !walked.iter().any(|(w, _)| *w == kind) {
                    walked.push((kind, walks.from(b, &kind, &zone)));
                }
                let allowance = points.max(0).saturating_mul(i64::from(b.round.max(1)));
                if let Some((_, _, set)) = made.iter().find(|(w, a, _)| *w == kind && *a == allowance) {
                    unseen.push((k, *set));
                    continue;
                }
                let Some((_, cost)) = walked.iter().find(|(w, _)| *w == kind) else { continue };
                let width = b.map.width.max(1);
                let tiles: Vec<Tile> = cost
                    .iter()
                    .enumerate()
                    .filter(|(_, c)| **c <= allowance)
                    .map(|(i, _)| (i as i64 % width, i as i64 / width))
                    .filter(|t| !sight.sees(*t))
                    .collect();
                made.push((kind, allowance, sets.len()));
                unseen.push((k, sets.len()));
                sets.push(tiles);
            }
        }
        let (mut placed, mut held, mut off) = (Vec::new(), Vec::new(), Vec::new());
        if sight.fogged() {
            held = b
                .units
                .iter()
                .enumerate()
                .filter(|(k, u)| u.state == State::Ready && (u.side == side || sight.spots(*k, u.pos)))
                .map(|(_, u)| u.pos)
                .collect();
            for (k, u) in b.units.iter().enumerate() {
                if u.side != side && u.state == State::Ready && !sight.spots(k, u.pos) {
                    if let Some(t) = memory.get(k).copied().flatten().filter(|t| !held.contains(t)) {
                        placed.push((k, t));
                        held.push(t);
                        continue;
                    }
                    off.push(k);
                }
            }
        }
        Fog { sight, unseen, sets, placed, held, off }
    }
}

/// [`walk`]s kept from one decision to the next, by movement type and the tiles walked from,
/// while the terrain stands (all else they read is the battle's engine and map size): an
/// enemy's deployment zone stays put all battle.
#[derive(Debug, Default)]
pub(super) struct Walks {
    terrain: TerrainSeen,
    kept: Vec<(String, Vec<Tile>, Arc<[i64]>)>,
}

impl Walks {
    /// Forgets the walks where `b`'s terrain is not the one they were walked on.
    fn check(&mut self, b: &Battle) {
        if self.terrain.renew(b) {
            self.kept.clear();
        }
    }

    /// [`walk`] for `kind` from `from`: the one kept, else walked and kept.
    fn from(&mut self, b: &Battle, kind: &str, from: &[Tile]) -> Arc<[i64]> {
        if let Some((_, _, costs)) = self.kept.iter().find(|(k, f, _)| k == kind && f == from) {
            return costs.clone();
        }
        let costs: Arc<[i64]> = walk(b, kind, from).into();
        self.kept.push((kind.to_string(), from.to_vec(), costs.clone()));
        costs
    }
}

/// The walking cost for movement type `kind` from the nearest of `from` to every tile (row by
/// row; `i64::MAX` where it cannot get), other units not counted.
fn walk(b: &Battle, kind: &str, from: &[Tile]) -> Vec<i64> {
    let size = (b.map.width.max(0), b.map.height.max(0));
    let costs = b.tile_costs(kind);
    let mut best = vec![i64::MAX; costs.len()];
    let mut queue = BinaryHeap::new();
    for t in from {
        if let Some(i) = tile_index(*t, size).filter(|i| costs.get(*i).copied().flatten().is_some()) {
            if let Some(slot) = best.get_mut(i) {
                *slot = 0;
                queue.push(Reverse((0, *t)));
            }
        }
    }
    while let Some(Reverse((c, t))) = queue.pop() {
        if tile_index(t, size).and_then(|i| best.get(i)).is_some_and(|b| c > *b) {
            continue;
        }
        for n in neighbours(t) {
            let Some(i) = tile_index(n, size) else { continue };
            let Some(step) = costs.get(i).copied().flatten() else { continue };
            let next = c.saturating_add(step.max(1));
            if let Some(slot) = best.get_mut(i).filter(|s| next < **s) {
                *slot = next;
                queue.push(Reverse((next, n)));
            }
        }
    }
    best
}

/// A copy of the battle as `side` sees it now, with its own dice.
pub(super) struct Seen<'e> {
    pub copy: Battle<'e>,
    /// Whether any enemy was taken off the board.
    pub pruned: bool,
}

impl Fog {
    /// Whether each copy sets enemies never seen by its own seed (`Seen::fork`): then copies
    /// differ by more than their dice, and one that drew none is not every copy.
    pub fn places(&self) -> bool {
        self.sight.fogged() && !self.off.is_empty()
    }
}

impl<'e> Seen<'e> {
    /// Forks `b` with dice from `seed` (into `spare`, a copy done with, where there is one):
    /// the enemies `fog`'s side does not spot set where it last saw them, where that tile is free,
    /// those never seen on a free tile of theirs drawn from `seed`, else taken off the board.
    pub fn fork(b: &Battle<'e>, fog: &Fog, seed: u64, spare: Option<Battle<'e>>) -> Seen<'e> {
        let mut copy = match spare {
            Some(mut c) => {
                b.fork_again(&mut c, Some(seed));
                c
            }
            None => b.fork(Some(seed)),
        };
        // Nothing reads a copy's log.
        copy.hush();
        let mut pruned = false;
        if fog.sight.fogged() {
            // The enemies out of sight where last seen, as for every copy (`Fog`).
            for (k, t) in &fog.placed {
                if let Some(u) = copy.state.units.get_mut(*k) {
                    u.pos = *t;
                }
            }
            let mut held = fog.held.clone();
            for &k in &fog.off {
                let set = fog.unseen.iter().find(|(j, _)| *j == k).and_then(|(_, s)| fog.sets.get(*s));
                let tiles = set.map_or(&[][..], |t| t.as_slice());
                let n = tiles.len().max(1);
                let start = (super::mix(seed ^ (k as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93)) % n as u64) as usize;
                let free = (0..tiles.len()).filter_map(|d| tiles.get((start + d) % n)).find(|t| !held.contains(t)).copied();
                let Some(u) = copy.state.units.get_mut(k) else { continue };
                if let Some(t) = free {
                    u.pos = t;
                    held.push(t);
                    continue;
                }
                u.state = State::Joined;
                u.with = None;
                u.pos = (0, 0);
                u.hidden = None;
                pruned = true;
            }
        }
        Seen { copy, pruned }
    }

    /// Whether the copy's outcome may be taken as the battle's: not a win for `side` where
    /// enemies were taken off (they stand somewhere out of sight).
    pub fn trusts(&self, side: m::SideId) -> bool {
        !(self.pruned && matches!(self.copy.outcome, Some((m::Outcome::Win(s), _)) if s == side))
    }
}
