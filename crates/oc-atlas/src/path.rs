//! How many rounds a unit needs to reach each tile, with the Terrain Table's cost per movement
//! type. A tile's cost cannot be split across turns, so the search orders states by (turns taken,
//! movement used in the current turn).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use oc_model::Rules;

use crate::map::{Map, Tile};

/// The movement points a search allows in a turn where the rules give none: every step fits,
/// so the search says only what can be reached.
pub const UNBOUNDED: u32 = u32::MAX / 2;

/// The reference mover of the rules (`Rules::reference_mover`): its movement type's cost of
/// each tile, and its movement points a turn (`UNBOUNDED` where the rules give none). `None`
/// for rules without movement types.
pub fn reference(map: &Map, rules: &Rules) -> Option<(oc_model::Mover, Vec<Option<u32>>, u32)> {
    let mover = rules.reference_mover()?;
    let costs = costs(map, rules, &mover.movement_type);
    let points = mover.movement.unwrap_or(UNBOUNDED);
    Some((mover, costs, points))
}

/// The cost of entering each tile for `movement` (row-major); `None` is impassable. Each
/// symbol's cost is looked up once, not once a tile.
pub fn costs(map: &Map, rules: &Rules, movement: &str) -> Vec<Option<u32>> {
    let of_symbol =
        |c: &char| map.symbols.get(c).and_then(|t| rules.terrain(t)).and_then(|t| t.costs.get(movement).copied().flatten());
    let table: std::collections::HashMap<char, Option<u32>> = map.symbols.keys().map(|c| (*c, of_symbol(c))).collect();
    let mut out = Vec::with_capacity((map.width * map.height).max(0) as usize);
    for y in 0..map.height {
        for x in 0..map.width {
            let cell = usize::try_from(y).ok().and_then(|y| map.rows.get(y)).and_then(|r| r.get(usize::try_from(x).ok()?));
            out.push(cell.and_then(|(c, _)| table.get(c).copied().flatten()));
        }
    }
    out
}

/// Rounds needed to reach every tile from any of `sources` (0 for the sources themselves,
/// 1 for tiles reachable in the first turn); `None` where unreachable.
pub fn rounds(map: &Map, costs: &[Option<u32>], sources: &[Tile], movement: u32) -> Vec<Option<u32>> {
    let (w, h) = (map.width, map.height);
    let index = |t: Tile| (t.y * w + t.x) as usize;
    let mut best: Vec<Option<(u32, u32)>> = vec![None; costs.len()];
    let mut heap = BinaryHeap::new();
    for s in sources {
        if map.in_bounds(*s) {
            let i = index(*s);
            if best.get(i).copied().flatten().is_none_or(|b| (0, movement) < b) {
                if let Some(slot) = best.get_mut(i) {
                    *slot = Some((0, movement));
                }
                heap.push(Reverse((0u32, movement, s.x, s.y)));
            }
        }
    }
    while let Some(Reverse((turns, used, x, y))) = heap.pop() {
        let here = Tile { x, y };
        if best.get(index(here)).copied().flatten() != Some((turns, used)) {
            continue;
        }
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let next = Tile { x: x + dx, y: y + dy };
            if next.x < 0 || next.y < 0 || next.x >= w || next.y >= h {
                continue;
            }
            let Some(cost) = costs.get(index(next)).copied().flatten() else { continue };
            if cost > movement {
                continue;
            }
            let state = if used + cost <= movement { (turns, used + cost) } else { (turns + 1, cost) };
            // The first step of all always starts a turn.
            let state = if turns == 0 { (1, cost) } else { state };
            let slot = best.get_mut(index(next));
            if let Some(slot) = slot {
                if slot.is_none_or(|b| state < b) {
                    *slot = Some(state);
                    heap.push(Reverse((state.0, state.1, next.x, next.y)));
                }
            }
        }
    }
    let _ = h;
    best.into_iter().map(|b| b.map(|(t, _)| t)).collect()
}

/// Whether each tile can be reached at all from `sources` (a flood over the same steps as
/// [`rounds`], where only whether, not how soon, is asked: a tile whose cost is over
/// `movement` is never entered).
pub fn reachable(map: &Map, costs: &[Option<u32>], sources: &[Tile], movement: u32) -> Vec<bool> {
    let w = map.width;
    let index = |t: Tile| (t.y * w + t.x) as usize;
    let mut seen = vec![false; costs.len()];
    let mut stack: Vec<Tile> = Vec::new();
    for s in sources {
        if let Some(slot) = map.in_bounds(*s).then(|| seen.get_mut(index(*s))).flatten() {
            if !*slot {
                *slot = true;
                stack.push(*s);
            }
        }
    }
    while let Some(here) = stack.pop() {
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let next = Tile { x: here.x + dx, y: here.y + dy };
            if !map.in_bounds(next) || costs.get(index(next)).copied().flatten().is_none_or(|c| c > movement) {
                continue;
            }
            if let Some(slot) = seen.get_mut(index(next)) {
                if !*slot {
                    *slot = true;
                    stack.push(next);
                }
            }
        }
    }
    seen
}

/// Rounds needed from every tile to reach any of `targets` (0 on a target; `None` where no
/// target can be reached, or the tile cannot be stood on). The search runs backwards from the
/// targets over the same rule as [`rounds`]: a tile's cost is paid on entering it and never
/// split across turns (packing a path's costs into turns greedily from either end gives the
/// same, least, number of turns).
pub fn rounds_to(map: &Map, costs: &[Option<u32>], targets: &[Tile], movement: u32) -> Vec<Option<u32>> {
    let w = map.width;
    let index = |t: Tile| (t.y * w + t.x) as usize;
    let cost = |t: Tile| if map.in_bounds(t) { costs.get(index(t)).copied().flatten() } else { None };
    // State per tile: (turns, movement used in the last turn counted) for the way from the
    // tile to a target; the tile's own cost is not in it (it is paid when entering it).
    let mut best: Vec<Option<(u32, u32)>> = vec![None; costs.len()];
    let mut heap = BinaryHeap::new();
    for t in targets {
        if cost(*t).is_some() {
            if let Some(slot) = best.get_mut(index(*t)) {
                *slot = Some((0, 0));
                heap.push(Reverse((0u32, 0u32, t.x, t.y)));
            }
        }
    }
    while let Some(Reverse((turns, used, x, y))) = heap.pop() {
        let here = Tile { x, y };
        if best.get(index(here)).copied().flatten() != Some((turns, used)) {
            continue;
        }
        // Stepping back to a neighbour means entering `here` from it.
        let Some(step) = cost(here).filter(|c| *c <= movement) else { continue };
        let state = if turns == 0 {
            (1, step)
        } else if used + step <= movement {
            (turns, used + step)
        } else {
            (turns + 1, step)
        };
        for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
            let prev = Tile { x: x + dx, y: y + dy };
            if cost(prev).is_none() {
                continue;
            }
            if let Some(slot) = best.get_mut(index(prev)) {
                if slot.is_none_or(|b| state < b) {
                    *slot = Some(state);
                    heap.push(Reverse((state.0, state.1, prev.x, prev.y)));
                }
            }
        }
    }
    best.into_iter().map(|b| b.map(|(t, _)| t)).collect()
}

/// The tiles a side plays for: the attacker's seize, escape and raze regions (its own or no
/// side's); for the defender the same objectives and its defend regions, which it must reach
/// to hold them. With none, the other side's deployment zone.
pub fn objective_tiles(map: &Map, side: crate::Side) -> Vec<Tile> {
    use crate::map::RegionKind as K;
    let mine = |r: &crate::Region| match side {
        crate::Side::Attacker => {
            matches!(r.kind, K::Seize | K::Escape | K::Raze) && r.side.is_none_or(|s| s == crate::Side::Attacker)
        }
        crate::Side::Defender => matches!(r.kind, K::Seize | K::Escape | K::Raze | K::Defend),
    };
    let mut tiles: Vec<Tile> = map.regions.iter().filter(|r| mine(r)).flat_map(|r| r.tiles.iter().map(|(t, _)| *t)).collect();
    if tiles.is_empty() {
        tiles = map
            .regions
            .iter()
            .filter(|r| r.kind == K::Deployment && r.side.is_some_and(|s| s != side))
            .flat_map(|r| r.tiles.iter().map(|(t, _)| *t))
            .collect();
    }
    tiles.retain(|t| map.in_bounds(*t));
    tiles.sort();
    tiles.dedup();
    tiles
}
