//! A kept reach search mended where the enemies that block it moved ([`price`], [`lay`]),
//! rather than made again over its whole square.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::{tile_index, Kept, Tile, Touched};

/// What a mend works in, kept from one mend to the next (`KeptReach`): each tile's cost in the
/// search's square, the tiles enemies block and those whose way may pass one, and the tiles
/// priced again.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    cost: Vec<i64>,
    blocked: Vec<bool>,
    lost: Vec<bool>,
    tiles: Vec<usize>,
    queue: BinaryHeap<Reverse<(i64, usize)>>,
}

/// A cost no way within the points reaches.
const FAR: i64 = i64::MAX;

/// Prices the search `kept` (from the unit's tile with its points and movement type, on the
/// terrain now) again with enemies on `now` instead of its `blocked`, into `s`'s costs (by tile
/// of its square, row by row; [`lay`] lists them): the tiles whose
/// cheapest way may pass a tile an enemy came to (from it, along each step whose cost makes the
/// next tile's) are priced again from the tiles around them, whose costs stand, and so are the
/// tiles an enemy left; then every tile their new costs lower. `step`: what entering a tile costs
/// (`None` where it cannot), at least 1 everywhere (no tile then lies farther than the points
/// from the start: the search's square holds every way). The costs and their order are a fresh
/// search's: the least cost of each tile is unique. Returns the square (its corner and size).
pub(super) fn price(kept: &Kept, now: &[Tile], step: impl Fn(Tile) -> Option<i64>, s: &mut Scratch) -> (Tile, i64, i64) {
    let Touched { corner, width, height, .. } = kept.touched;
    let (w, h) = (width.max(0) as usize, height.max(0) as usize);
    let index = |t: Tile| tile_index((t.0 - corner.0, t.1 - corner.1), (width, height));
    let tile = |k: usize| (corner.0 + (k % w.max(1)) as i64, corner.1 + (k / w.max(1)) as i64);
    // The same order as `neighbours`: east, west, south, north (any order finds the same costs).
    let next = |k: usize| {
        let (x, y) = (k % w.max(1), k / w.max(1));
        [(x + 1 < w).then_some(k + 1), (x > 0).then(|| k - 1), (y + 1 < h).then_some(k + w), (y > 0).then(|| k - w)]
    };
    let reached = &kept.reached;
    let Scratch { cost, blocked, lost, tiles, queue } = s;
    cost.clear();
    cost.extend(kept.touched.place.iter().map(|p| reached.get(*p as usize).map_or(FAR, |(_, c)| *c)));
    blocked.clear();
    blocked.resize(w * h, false);
    for t in now {
        if let Some(b) = index(*t).and_then(|k| blocked.get_mut(k)) {
            *b = true;
        }
    }
    // The tiles an enemy came to that the search reached, and those whose cheapest way may pass
    // one (`lost`, listed in `tiles`): from each, along every step whose cost makes the next
    // tile's.
    lost.clear();
    lost.resize(w * h, false);
    tiles.clear();
    for k in now.iter().filter(|t| !kept.blocked.contains(t)).filter_map(|t| index(*t)) {
        if cost.get(k).is_some_and(|c| *c < FAR) {
            if let Some(l) = lost.get_mut(k).filter(|l| !**l) {
                *l = true;
                tiles.push(k);
            }
        }
    }
    let mut walked = 0;
    while let Some(at) = tiles.get(walked).copied() {
        walked += 1;
        let Some(here) = cost.get(at).copied() else { continue };
        for n in next(at).into_iter().flatten() {
            let (Some(c), Some(false)) = (cost.get(n).copied(), lost.get(n).copied()) else { continue };
            if c < FAR && step(tile(n)).is_some_and(|s| c == here + s) {
                if let Some(l) = lost.get_mut(n) {
                    *l = true;
                }
                tiles.push(n);
            }
        }
    }
    for k in tiles.iter() {
        if let Some(c) = cost.get_mut(*k) {
            *c = FAR;
        }
    }
    // Priced again from the tiles around them, with the tiles an enemy left: any cost may come
    // first, so a heap.
    let points = kept.points;
    queue.clear();
    let left = kept.blocked.iter().filter(|t| !now.contains(t)).filter_map(|t| index(*t));
    for k in tiles.iter().copied().chain(left) {
        if blocked.get(k) != Some(&false) {
            continue;
        }
        let Some(s) = step(tile(k)) else { continue };
        let mut best = FAR;
        for n in next(k).into_iter().flatten() {
            if let (Some(false), Some(c)) = (lost.get(n).copied(), cost.get(n).copied()) {
                if c < FAR {
                    best = best.min(c + s);
                }
            }
        }
        if let Some(c) = cost.get_mut(k).filter(|c| best <= points && best < **c) {
            *c = best;
            queue.push(Reverse((best, k)));
        }
    }
    while let Some(Reverse((here, at))) = queue.pop() {
        if cost.get(at).is_some_and(|c| *c < here) {
            continue;
        }
        for n in next(at).into_iter().flatten() {
            if blocked.get(n) != Some(&false) {
                continue;
            }
            let Some(s) = step(tile(n)) else { continue };
            let total = here + s;
            if let Some(c) = cost.get_mut(n).filter(|c| total <= points && total < **c) {
                *c = total;
                queue.push(Reverse((total, n)));
            }
        }
    }
    (corner, width, height)
}

/// Makes `into` the search [`price`] priced in `s` over the square `(corner, width, height)`,
/// with enemies on `now`: the tiles reached in tile order (column by column, each top to bottom),
/// each one's place. Its lists are filled again where they stand (a search dropped from the ring
/// lends its own).
pub(super) fn lay(into: &mut Kept, (corner, width, height): (Tile, i64, i64), s: &Scratch, now: &[Tile]) {
    let (w, h) = (width.max(0) as usize, height.max(0) as usize);
    let tile = |k: usize| (corner.0 + (k % w.max(1)) as i64, corner.1 + (k / w.max(1)) as i64);
    into.reached.clear();
    let Touched { corner: c, width: tw, height: th, place } = &mut into.touched;
    (*c, *tw, *th) = (corner, width, height);
    place.clear();
    place.resize(w * h, u32::MAX);
    for x in 0..w {
        for k in (0..h).map(|y| y * w + x) {
            if let (Some(c), Some(p)) = (s.cost.get(k).copied().filter(|c| *c < FAR), place.get_mut(k)) {
                *p = into.reached.len() as u32;
                into.reached.push((tile(k), c));
            }
        }
    }
    into.blocked.clear();
    into.blocked.extend_from_slice(now);
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use crate::battle::{Battle, KeptReach};

    /// A kept reach search mended where enemies moved (`mend`) is the search made afresh: over
    /// terrains drawn at random (steps of differing costs, walls), three enemies moving at random.
    #[test]
    fn a_mended_reach_is_the_search_made_again() {
        let (engine, map) = crate::testing::duel(
            &[".........", ".........", ".........", ".........", ".........", ".........", "........."],
            "std:battlestorm",
            "",
            [
                "unit Brave: Savage { items Shortsword }",
                "unit Foe: Savage { items Shortsword } unit Two: Savage { items Shortsword } unit Three: Savage { items Shortsword }",
            ],
        );
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let foes = [(7, 0), (8, 1), (7, 2)];
        let mut b = Battle::new(&engine, s, &map, [a, d], [&[(0, 1)][..], &foes[..]], 3).expect("the battle starts");
        assert_eq!(b.state.units.len(), 4, "a unit and three enemies");
        let mobility = b.mobility(0).expect("a mobility");
        let names: Vec<String> = engine.rules.terrains.iter().map(|t| t.name.clone()).collect();
        // Every step costs something (else no search is mended), and some terrain is a wall.
        let steps = engine.movement_costs(mobility.1);
        assert!(steps.iter().flatten().all(|c| *c >= 1) && steps.iter().any(Option::is_none), "{steps:?}");
        assert!(steps.iter().flatten().any(|c| *c > 1), "steps of differing costs: {steps:?}");
        let mut state = 7u64;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 33
        };
        let (mut checked, mut changed) = (0, 0);
        for _ in 0..30 {
            for at in 0..63 {
                let name = names[next() as usize % names.len()].clone();
                b.replace_terrain(at, name);
            }
            let mut kept = KeptReach::default();
            b.state.units[0].pos = ((next() % 9) as i64, (next() % 7) as i64);
            for _ in 0..40 {
                let k = 1 + next() as usize % 3;
                let to = ((next() % 9) as i64, (next() % 7) as i64);
                if b.state.units.iter().any(|u| u.pos == to) {
                    continue;
                }
                b.state.units[k].pos = to;
                let before = kept.0.first().and_then(|k| k.first()).map(|k| k.reached.clone());
                let read = b.reachable_sorted(0, &mobility, None, &mut kept).expect("a reach");
                let fresh = b.reachable_sorted(0, &mobility, None, &mut KeptReach::default()).expect("a reach");
                assert_eq!(read, fresh, "unit at {:?}, enemies at {:?}", b.state.units[0].pos, &b.state.units[1..]);
                let after = kept.0.first().and_then(|k| k.first()).map(|k| k.reached.clone());
                checked += 1;
                changed += usize::from(before.is_some() && before != after);
            }
        }
        assert!(checked > 800 && changed > 100, "{checked} searches, {changed} changed by a move");
    }
}
