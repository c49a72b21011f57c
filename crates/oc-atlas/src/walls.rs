//! The walls of a map as line segments, shared by the Foundry and Universal VTT exports.
//!
//! A wall runs along a grid line between a tile nothing can enter and one that can be entered;
//! runs of plain wall edges along one line are merged into one segment. A door is one segment
//! through the middle of its tile, across the way through it; a destructible tile's edges stay
//! their own segments so each carries that tile's HP. Coordinates are in half tiles, so a door
//! through a tile's centre is a whole number.

use oc_model::Rules;

use crate::map::{Map, Tile};

/// What a segment is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WallKind {
    /// A plain wall (merged along its grid line).
    Wall,
    /// A closed door through the middle of this tile.
    Door(Tile),
    /// An edge of a tile that can be struck down, with its HP.
    Destructible(Tile, i64),
}

/// A segment from `a` to `b`, in half tiles (`(2, 4)` is the corner at tile x = 1, y = 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Segment {
    pub a: (i64, i64),
    pub b: (i64, i64),
    pub kind: WallKind,
}

impl Segment {
    /// The end points in pixels at `grid` pixels per tile.
    pub fn pixels(&self, grid: i64) -> [i64; 4] {
        [self.a.0 * grid / 2, self.a.1 * grid / 2, self.b.0 * grid / 2, self.b.1 * grid / 2]
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Cell {
    Open,
    Door,
    Block,
    Destructible(i64),
}

fn cell(map: &Map, rules: &Rules, t: Tile) -> Cell {
    let Some(terrain) = map.terrain(t).and_then(|n| rules.terrain(n)) else {
        // Off the map, or a symbol with no terrain (reported by the lints): no wall.
        return Cell::Open;
    };
    if !terrain.opened_by.is_empty() {
        return Cell::Door;
    }
    if !terrain.costs.values().all(Option::is_none) {
        return Cell::Open;
    }
    let listed = map.destructibles.iter().find(|d| d.at == t);
    match listed.and_then(|d| d.hp).or(terrain.hp.map(i64::from)) {
        Some(hp) => Cell::Destructible(hp),
        None => Cell::Block,
    }
}

fn blocks(c: Cell) -> bool {
    matches!(c, Cell::Block | Cell::Destructible(_))
}

/// Every wall and door segment of a resolved map, in a fixed order: horizontal lines top to
/// bottom, then vertical lines left to right, then doors row by row.
pub fn segments(map: &Map, rules: &Rules) -> Vec<Segment> {
    let mut out = Vec::new();
    let at = |x: i64, y: i64| cell(map, rules, Tile { x, y });
    // (edge kind along a line): None no wall, Some(None) a plain wall, Some(Some((tile, hp))) a
    // destructible tile's edge.
    let edge = |a: Tile, b: Tile| -> Option<Option<(Tile, i64)>> {
        let (ca, cb) = (at(a.x, a.y), at(b.x, b.y));
        if blocks(ca) == blocks(cb) {
            return None;
        }
        Some(match (ca, cb) {
            (Cell::Destructible(hp), _) => Some((a, hp)),
            (_, Cell::Destructible(hp)) => Some((b, hp)),
            _ => None,
        })
    };
    // Horizontal grid lines y = 0..=height (the map's border included: a wall tile on the
    // border has no wall outside it, since off the map is open and blocks nothing).
    for y in 0..=map.height {
        let edges: Vec<_> = (0..map.width).map(|x| edge(Tile { x, y: y - 1 }, Tile { x, y })).collect();
        for (from, to, kind) in merge(&edges) {
            out.push(Segment { a: (2 * from, 2 * y), b: (2 * to, 2 * y), kind });
        }
    }
    for x in 0..=map.width {
        let edges: Vec<_> = (0..map.height).map(|y| edge(Tile { x: x - 1, y }, Tile { x, y })).collect();
        for (from, to, kind) in merge(&edges) {
            out.push(Segment { a: (2 * x, 2 * from), b: (2 * x, 2 * to), kind });
        }
    }
    for t in map.tiles() {
        if at(t.x, t.y) != Cell::Door {
            continue;
        }
        let (left, right) = (blocks(at(t.x - 1, t.y)), blocks(at(t.x + 1, t.y)));
        let (up, down) = (blocks(at(t.x, t.y - 1)), blocks(at(t.x, t.y + 1)));
        // Across the way through: a door in a wall running up and down is entered from the left
        // and the right, so it stands upright.
        let upright = if (up && down) != (left && right) { up && down } else { !left || !right };
        let (cx, cy) = (2 * t.x + 1, 2 * t.y + 1);
        let (a, b) = if upright { ((cx, 2 * t.y), (cx, 2 * t.y + 2)) } else { ((2 * t.x, cy), (2 * t.x + 2, cy)) };
        out.push(Segment { a, b, kind: WallKind::Door(t) });
    }
    out
}

/// Joins consecutive plain wall edges along one grid line into `(from, to, kind)`; each
/// destructible edge stays its own segment.
fn merge(edges: &[Option<Option<(Tile, i64)>>]) -> Vec<(i64, i64, WallKind)> {
    let mut out: Vec<(i64, i64, WallKind)> = Vec::new();
    for (i, e) in edges.iter().enumerate() {
        let i = i as i64;
        match (e, out.last_mut()) {
            (Some(None), Some((_, end, WallKind::Wall))) if *end == i => *end = i + 1,
            (Some(None), _) => out.push((i, i + 1, WallKind::Wall)),
            (Some(Some((t, hp))), _) => out.push((i, i + 1, WallKind::Destructible(*t, *hp))),
            (None, _) => {}
        }
    }
    out
}
