//! What keeps the rules' reference mover (`Rules::reference_mover`) from a place: the doors and destructible walls that, opened or broken,
//! would let them through — so a diagnostic can name the tile, say how it opens, and a scenario
//! can ask whether its army can open it.

use oc_diag::Span;
use oc_model::Rules;

use crate::map::{find_terrain, Map, Tile};
use crate::path;

/// A door or a destructible tile on the way.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Blocker {
    pub at: Tile,
    /// The `[[doors]]` or `[[destructibles]]` entry.
    pub span: Span,
    /// A door: what opens it (the terrain's `opened_by`: tags or items). Empty for a wall.
    pub opened_by: Vec<String>,
    /// A destructible tile: its hit points (the entry's, else the terrain's).
    pub hp: Option<i64>,
    /// The terrain standing there (`Door`, `Wall`).
    pub terrain: String,
}

impl Blocker {
    /// "the door at [11, 6]", "the Wall at [3, 2]".
    pub fn name(&self) -> String {
        let what = if self.is_door() { "door".to_string() } else { self.terrain.clone() };
        format!("the {what} at [{}, {}]", self.at.x, self.at.y)
    }

    pub fn is_door(&self) -> bool {
        !self.opened_by.is_empty()
    }

    /// How it gives way: "it opens with Pick or MasterKey from a tile next to it", "it breaks
    /// when struck down (30 HP)".
    pub fn how(&self) -> String {
        if self.is_door() {
            format!("it opens with {} from a tile next to it", self.opened_by.join(" or "))
        } else {
            match self.hp {
                Some(hp) => format!("it breaks when struck down ({hp} HP)"),
                None => "it breaks when struck down".to_string(),
            }
        }
    }
}

/// When no unit of the rules' reference mover can reach any of `targets` from `sources`: the
/// doors and destructible tiles next to what they can reach through which, opened or broken, a
/// target is reachable. Empty when a target is reachable already, or when opening every one
/// would not help (and for rules without movement types).
pub fn blockers(map: &Map, rules: &Rules, sources: &[Tile], targets: &[Tile]) -> Vec<Blocker> {
    let Some((mover, foot, points)) = path::reference(map, rules) else { return Vec::new() };
    let reached = |costs: &[Option<u32>], from: &[Tile]| path::rounds(map, costs, from, points);
    let hits = |rounds: &[Option<u32>]| {
        targets.iter().any(|t| map.index(*t).is_some_and(|i| rounds.get(i).copied().flatten().is_some()))
    };
    let now = reached(&foot, sources);
    if hits(&now) {
        return Vec::new();
    }
    // Every door and destructible tile opened: its terrain's `becomes` (or Plains' cost, 1).
    let mut candidates = Vec::new();
    let mut open = foot.clone();
    let door_tiles = map.doors.iter().map(|(t, s)| (*t, *s, None));
    let wall_tiles = map.destructibles.iter().map(|d| (d.at, d.span, Some(d.hp)));
    for (at, span, hp) in door_tiles.chain(wall_tiles) {
        let Some(i) = map.index(at) else { continue };
        let terrain = map.terrain(at).unwrap_or_default().to_string();
        let model = find_terrain(rules, &terrain);
        let becomes = model.and_then(|t| t.becomes.as_deref()).and_then(|b| find_terrain(rules, b));
        let cost = becomes.and_then(|b| b.costs.get(&mover.movement_type).copied().flatten()).unwrap_or(1);
        if let Some(c) = open.get_mut(i) {
            *c = Some(cost);
        }
        let opened_by = if hp.is_none() { model.map(|t| t.opened_by.clone()).unwrap_or_default() } else { Vec::new() };
        let hp = hp.map(|h| h.or_else(|| model.and_then(|t| t.hp).map(i64::from)));
        candidates.push(Blocker { at, span, opened_by, hp: hp.flatten(), terrain });
    }
    if candidates.is_empty() || !hits(&reached(&open, sources)) {
        return Vec::new();
    }
    // The first ones on the way: next to what is reachable now, and leading on to a target.
    let reachable = |t: Tile| map.index(t).is_some_and(|i| now.get(i).copied().flatten().is_some());
    let next_to_reach = |t: Tile| {
        [(1, 0), (-1, 0), (0, 1), (0, -1)]
            .iter()
            .any(|(dx, dy)| reachable(Tile { x: t.x.saturating_add(*dx), y: t.y.saturating_add(*dy) }))
    };
    let mut out: Vec<Blocker> =
        candidates.into_iter().filter(|b| next_to_reach(b.at) && hits(&reached(&open, &[b.at]))).collect();
    out.sort_by_key(|b| (b.at.y, b.at.x));
    out.dedup_by_key(|b| b.at);
    out
}
