//! How many rounds a unit needs to reach each tile, with the Terrain Table's cost per movement
//! type. A tile's cost cannot be split across turns, so the search orders states by (turns taken,
//! movement used in the current turn).

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use oc_model::Rules;

use crate::map::{Map, Tile};

/// The movement points a unit has each turn in the seed (before Fast/Slow).
pub const MOVEMENT: u32 = 5;

/// The cost of entering each tile for `movement` (row-major); `None` is impassable.
pub fn costs(map: &Map, rules: &Rules, movement: &str) -> Vec<Option<u32>> {
    let mut out = Vec::with_capacity((map.width * map.height).max(0) as usize);
    for y in 0..map.height {
        for x in 0..map.width {
            let cost =
                map.terrain(Tile { x, y }).and_then(|t| rules.terrain(t)).and_then(|t| t.costs.get(movement).copied().flatten());
            out.push(cost);
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
