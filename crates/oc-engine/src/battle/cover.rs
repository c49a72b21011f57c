//! How hidden one unit is from another (`cover`, seed 004: "If a source fire at someone but it's
//! half hidden(by someone or something), it must make a medium maneuver check. If the target is
//! fully hidden, the source must make a difficult check"), and whether a line of sight is clear
//! (`line_of_sight`, seed 003: "A figure can attack any target within range, and to which it has
//! a clear Line of Sight").

use super::{distance, Battle, State, Tile};

impl Battle<'_> {
    /// The squares the straight line between the centres of `a` and `b` crosses, neither end
    /// included: sampled at twice the longer axis's squares, each sample rounded to its square
    /// (halves away from `a`), in order and without repeats.
    pub fn between(a: Tile, b: Tile) -> Vec<Tile> {
        let mut out: Vec<Tile> = Vec::new();
        for t in Self::samples(a, b) {
            if out.last() != Some(&t) {
                out.push(t);
            }
        }
        out
    }

    /// The samples of [`Battle::between`], a square as often as a sample falls in it.
    fn samples(a: Tile, b: Tile) -> impl Iterator<Item = Tile> {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let n = 2 * dx.abs().max(dy.abs());
        // Rounds p / q (q > 0) to the nearest whole number, halves away from zero.
        let round = |p: i64, q: i64| if p >= 0 { (2 * p + q) / (2 * q) } else { -((-2 * p + q) / (2 * q)) };
        (1..n).map(move |k| (a.0 + round(dx * k, n), a.1 + round(dy * k, n))).filter(move |t| *t != a && *t != b)
    }

    /// Whether the rules let a unit on `from` attack one on `to` by line of sight: always where
    /// the turn rules have no `line_of_sight`, and in contact (distance 1); else when no square
    /// on the line between them ([`Battle::between`]) is a terrain that `blocks_sight`.
    pub fn clear_line(&self, from: Tile, to: Tile) -> bool {
        !self.engine.rules.ruleset.turn.line_of_sight || distance(from, to) <= 1 || self.sight_blocker(from, to).is_none()
    }

    /// The first square between `from` and `to` whose terrain `blocks_sight` (seen from `from`).
    pub fn sight_blocker(&self, from: Tile, to: Tile) -> Option<Tile> {
        // A square sampled again straight after is the one just found clear: not read again.
        let mut last = None;
        Self::samples(from, to).find(|t| {
            if last.replace(*t) == Some(*t) {
                return false;
            }
            self.terrain_at(*t).is_some_and(|x| x.blocks_sight)
        })
    }

    /// How hidden a unit at `to` is from one at `from`: 2 (fully hidden) where a square that
    /// no movement type may enter (a wall, a shut door) lies on the line between them, else 1
    /// (half hidden) where a unit in the battle stands on it, else 0.
    pub fn cover_between(&self, from: Tile, to: Tile) -> i64 {
        let line = Self::between(from, to);
        let wall = |t: &Tile| self.terrain_at(*t).is_some_and(|x| !x.costs.is_empty() && x.costs.values().all(Option::is_none));
        if line.iter().any(wall) {
            2
        } else if line.iter().any(|t| self.state.units.iter().any(|u| u.state == State::Ready && u.pos == *t)) {
            1
        } else {
            0
        }
    }
}
