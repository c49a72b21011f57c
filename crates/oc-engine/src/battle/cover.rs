//! How hidden one unit is from another (`cover`, seed 004: "If a source fire at someone but it's
//! half hidden(by someone or something), it must make a medium maneuver check. If the target is
//! fully hidden, the source must make a difficult check").

use super::{Battle, State, Tile};

impl Battle<'_> {
    /// The squares the straight line between the centres of `a` and `b` crosses, neither end
    /// included: sampled at twice the longer axis's squares, each sample rounded to its square
    /// (halves away from `a`), in order and without repeats.
    pub fn between(a: Tile, b: Tile) -> Vec<Tile> {
        let (dx, dy) = (b.0 - a.0, b.1 - a.1);
        let n = 2 * dx.abs().max(dy.abs());
        let mut out: Vec<Tile> = Vec::new();
        // Rounds p / q (q > 0) to the nearest whole number, halves away from zero.
        let round = |p: i64, q: i64| if p >= 0 { (2 * p + q) / (2 * q) } else { -((-2 * p + q) / (2 * q)) };
        for k in 1..n {
            let t = (a.0 + round(dx * k, n), a.1 + round(dy * k, n));
            if t != a && t != b && out.last() != Some(&t) {
                out.push(t);
            }
        }
        out
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
