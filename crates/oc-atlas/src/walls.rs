//! The walls of a map, shared by the Foundry and Universal VTT exports.
//!
//! A wall runs along a grid line between a tile nothing can enter and one that can be entered.
//! Coordinates are in half tiles, so a door through a tile's centre is a whole number.
//!
//! - [`segments`] (Foundry, whose walls are straight segments with flags): runs along one grid
//!   line merged into one segment — plain walls, and edges of tiles that can be struck down
//!   with the same HP from their terrain; a tile with HP of its own keeps its edges apart, each
//!   carrying that HP. A door is one segment through the middle of its tile, across the way
//!   through it.
//! - [`polylines`] (Universal VTT, whose walls are polylines and know no HP): every wall edge in
//!   as few polylines as the walls allow, turning corners. At every point at most one polyline
//!   ends (edges meeting there are paired off, straight through first), so no polyline ends
//!   where another starts: the importers that join such ends add no wall of zero length.

use std::collections::{BTreeMap, BTreeSet};

use oc_model::Rules;

use crate::map::{Map, Tile};

/// What a segment is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WallKind {
    /// A plain wall (merged along its grid line).
    Wall,
    /// A closed door through the middle of this tile, and what opens it (a tag or an item).
    Door(Tile, Vec<String>),
    /// Edges of tiles that can be struck down, each with this HP; `own` when a tile's HP is
    /// its own (listed under `[[destructibles]]`), not its terrain's.
    Destructible { tiles: Vec<Tile>, hp: i64, own: bool },
}

/// A segment from `a` to `b`, in half tiles (`(2, 4)` is the corner at tile x = 1, y = 2).
#[derive(Clone, Debug, PartialEq, Eq)]
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

#[derive(Clone, PartialEq, Eq)]
enum Cell {
    Open,
    Door(Vec<String>),
    Block,
    /// HP, and whether the tile's own.
    Destructible(i64, bool),
}

fn cell(map: &Map, rules: &Rules, t: Tile) -> Cell {
    let Some(terrain) = map.terrain(t).and_then(|n| rules.terrain(n)) else {
        // Off the map, or a symbol with no terrain (reported by the lints): no wall.
        return Cell::Open;
    };
    if !terrain.opened_by.is_empty() {
        return Cell::Door(terrain.opened_by.iter().map(ToString::to_string).collect());
    }
    if !terrain.costs.values().all(Option::is_none) {
        return Cell::Open;
    }
    let own = map.destructibles.iter().find(|d| d.at == t).and_then(|d| d.hp);
    match (own, terrain.hp) {
        (Some(hp), _) => Cell::Destructible(hp, true),
        (None, Some(hp)) => Cell::Destructible(i64::from(hp), false),
        (None, None) => Cell::Block,
    }
}

fn blocks(c: &Cell) -> bool {
    matches!(c, Cell::Block | Cell::Destructible(..))
}

/// One tile side of wall: plain, or the side of a tile that can be struck down.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Edge {
    Plain,
    Destructible(Tile, i64, bool),
}

/// Whether the side between tiles `a` and `b` is a wall, and what kind.
fn edge(map: &Map, rules: &Rules, a: Tile, b: Tile) -> Option<Edge> {
    let (ca, cb) = (cell(map, rules, a), cell(map, rules, b));
    if blocks(&ca) == blocks(&cb) {
        return None;
    }
    Some(match (ca, cb) {
        (Cell::Destructible(hp, own), _) => Edge::Destructible(a, hp, own),
        (_, Cell::Destructible(hp, own)) => Edge::Destructible(b, hp, own),
        _ => Edge::Plain,
    })
}

/// The wall sides of each grid line of one direction, by line, then by position along it.
type Lines = Vec<Vec<Option<Edge>>>;

/// Every wall side along each grid line: horizontal lines `y = 0..=height`, and vertical lines
/// `x = 0..=width` (the map's border included: off the map is open and blocks nothing).
fn lines(map: &Map, rules: &Rules) -> (Lines, Lines) {
    let rows = (0..=map.height)
        .map(|y| (0..map.width).map(|x| edge(map, rules, Tile { x, y: y - 1 }, Tile { x, y })).collect())
        .collect();
    let columns = (0..=map.width)
        .map(|x| (0..map.height).map(|y| edge(map, rules, Tile { x: x - 1, y }, Tile { x, y })).collect())
        .collect();
    (rows, columns)
}

/// Every wall and door segment of a resolved map, in a fixed order: horizontal lines top to
/// bottom, then vertical lines left to right, then doors row by row.
pub fn segments(map: &Map, rules: &Rules) -> Vec<Segment> {
    let mut out = Vec::new();
    let (rows, columns) = lines(map, rules);
    for (y, edges) in rows.iter().enumerate() {
        let y = y as i64;
        for (from, to, kind) in merge(edges) {
            out.push(Segment { a: (2 * from, 2 * y), b: (2 * to, 2 * y), kind });
        }
    }
    for (x, edges) in columns.iter().enumerate() {
        let x = x as i64;
        for (from, to, kind) in merge(edges) {
            out.push(Segment { a: (2 * x, 2 * from), b: (2 * x, 2 * to), kind });
        }
    }
    let at = |x: i64, y: i64| cell(map, rules, Tile { x, y });
    for t in map.tiles() {
        let Cell::Door(opened_by) = at(t.x, t.y) else { continue };
        let (left, right) = (blocks(&at(t.x - 1, t.y)), blocks(&at(t.x + 1, t.y)));
        let (up, down) = (blocks(&at(t.x, t.y - 1)), blocks(&at(t.x, t.y + 1)));
        // Across the way through: a door in a wall running up and down is entered from the left
        // and the right, so it stands upright.
        let upright = if (up && down) != (left && right) { up && down } else { !left || !right };
        let (cx, cy) = (2 * t.x + 1, 2 * t.y + 1);
        let (a, b) = if upright { ((cx, 2 * t.y), (cx, 2 * t.y + 2)) } else { ((2 * t.x, cy), (2 * t.x + 2, cy)) };
        out.push(Segment { a, b, kind: WallKind::Door(t, opened_by) });
    }
    out
}

/// Joins consecutive wall sides along one grid line into `(from, to, kind)`: plain walls
/// together, sides of tiles with their terrain's HP together when the HP is the same; a tile
/// with HP of its own keeps its side apart.
fn merge(edges: &[Option<Edge>]) -> Vec<(i64, i64, WallKind)> {
    let mut out: Vec<(i64, i64, WallKind)> = Vec::new();
    for (i, e) in edges.iter().enumerate() {
        let i = i as i64;
        let Some(e) = e else { continue };
        let joined = match (e, out.last_mut()) {
            (Edge::Plain, Some((_, end, WallKind::Wall))) if *end == i => {
                *end = i + 1;
                true
            }
            (Edge::Destructible(t, hp, false), Some((_, end, WallKind::Destructible { tiles, hp: run_hp, own: false })))
                if *end == i && run_hp == hp =>
            {
                *end = i + 1;
                if tiles.last() != Some(t) {
                    tiles.push(*t);
                }
                true
            }
            _ => false,
        };
        if !joined {
            let kind = match e {
                Edge::Plain => WallKind::Wall,
                Edge::Destructible(t, hp, own) => WallKind::Destructible { tiles: vec![*t], hp: *hp, own: *own },
            };
            out.push((i, i + 1, kind));
        }
    }
    out
}

/// Every wall side of a resolved map (doors aside) as polylines of corner points in half
/// tiles, in a fixed order (see the module's documentation).
pub fn polylines(map: &Map, rules: &Rules) -> Vec<Vec<(i64, i64)>> {
    type Point = (i64, i64);
    let (rows, columns) = lines(map, rules);
    // The sides as unit edges between points; each point's sides by direction (0 up, 1 right,
    // 2 down, 3 left).
    let mut edges: Vec<(Point, Point)> = Vec::new();
    for (y, sides) in rows.iter().enumerate() {
        for (x, side) in sides.iter().enumerate() {
            if side.is_some() {
                let (x, y) = (2 * x as i64, 2 * y as i64);
                edges.push(((x, y), (x + 2, y)));
            }
        }
    }
    for (x, sides) in columns.iter().enumerate() {
        for (y, side) in sides.iter().enumerate() {
            if side.is_some() {
                let (x, y) = (2 * x as i64, 2 * y as i64);
                edges.push(((x, y), (x, y + 2)));
            }
        }
    }
    let mut at: BTreeMap<Point, [Option<usize>; 4]> = BTreeMap::new();
    for (i, (a, b)) in edges.iter().enumerate() {
        let horizontal = a.1 == b.1;
        let (from_a, from_b) = if horizontal { (1, 3) } else { (2, 0) };
        if let Some(slot) = at.entry(*a).or_default().get_mut(from_a) {
            *slot = Some(i);
        }
        if let Some(slot) = at.entry(*b).or_default().get_mut(from_b) {
            *slot = Some(i);
        }
    }
    // At each point, its sides paired off: straight through first, then around a corner.
    let mut pair: BTreeMap<(Point, usize), usize> = BTreeMap::new();
    for (p, sides) in &at {
        let mut free: Vec<usize> = sides.iter().flatten().copied().collect();
        let mut link = |a: usize, b: usize, free: &mut Vec<usize>| {
            pair.insert((*p, a), b);
            pair.insert((*p, b), a);
            free.retain(|e| *e != a && *e != b);
        };
        for (d1, d2) in [(0, 2), (1, 3)] {
            if let (Some(Some(a)), Some(Some(b))) = (sides.get(d1), sides.get(d2)) {
                link(*a, *b, &mut free);
            }
        }
        if let [a, b] = free.as_slice() {
            let (a, b) = (*a, *b);
            link(a, b, &mut free);
        }
    }
    let other = |e: usize, p: Point| -> Option<Point> {
        let (a, b) = *edges.get(e)?;
        Some(if a == p { b } else { a })
    };
    let mut used: BTreeSet<usize> = BTreeSet::new();
    let mut out = Vec::new();
    // Trails from their ends first (the points with a side left unpaired), then the loops.
    let mut starts: Vec<(Point, usize)> = Vec::new();
    for (p, sides) in &at {
        for e in sides.iter().flatten() {
            if !pair.contains_key(&(*p, *e)) {
                starts.push((*p, *e));
            }
        }
    }
    for (i, (a, _)) in edges.iter().enumerate() {
        starts.push((*a, i));
    }
    for (start, first) in starts {
        if used.contains(&first) {
            continue;
        }
        let mut points = vec![start];
        let (mut p, mut e) = (start, first);
        loop {
            used.insert(e);
            let Some(next) = other(e, p) else { break };
            points.push(next);
            match pair.get(&(next, e)) {
                Some(n) if !used.contains(n) => (p, e) = (next, *n),
                _ => break,
            }
        }
        out.push(corners(points));
    }
    out
}

/// A polyline with the points where it goes straight on removed.
fn corners(points: Vec<(i64, i64)>) -> Vec<(i64, i64)> {
    let mut out: Vec<(i64, i64)> = Vec::with_capacity(points.len());
    for p in points {
        if let [.., a, b] = out.as_slice() {
            let straight = (a.0 == b.0 && b.0 == p.0) || (a.1 == b.1 && b.1 == p.1);
            if straight {
                out.pop();
            }
        }
        out.push(p);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::corners;

    #[test]
    fn straight_points_go() {
        assert_eq!(corners(vec![(0, 0), (2, 0), (4, 0), (4, 2), (4, 4), (2, 4)]), [(0, 0), (4, 0), (4, 4), (2, 4)]);
        assert_eq!(corners(vec![(0, 0), (2, 0)]), [(0, 0), (2, 0)]);
    }
}
