//! How hidden one unit is from another (`cover`, seed 004: "If a source fire at someone but it's
//! half hidden(by someone or something), it must make a medium maneuver check. If the target is
//! fully hidden, the source must make a difficult check"), and whether a line of sight is clear
//! (`line_of_sight`, seed 003: "A figure can attack any target within range, and to which it has
//! a clear Line of Sight").

use std::cell::RefCell;
use std::rc::Rc;

use super::{distance, Battle, State, Tile};
use crate::fx::FastMap;

thread_local! {
    /// The squares each line crosses ([`Battle::between`]) by the offset from its start to its
    /// end, as offsets from its start: the same for every start. The threat maps ask for the
    /// lines of sight of every weapon reach from every tile an enemy reaches, again and again.
    static LINES: RefCell<FastMap<Tile, Rc<[Tile]>>> = RefCell::new(FastMap::default());
}

/// The most lines [`LINES`] keeps; past it, it starts over.
const LINES_MAX: usize = 1 << 12;

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

    /// [`Battle::between`] `from` and `to` as offsets from `from`, kept for every line of the
    /// same offset ([`LINES`]).
    fn line(from: Tile, to: Tile) -> Rc<[Tile]> {
        let d = (to.0 - from.0, to.1 - from.1);
        let work = || -> Rc<[Tile]> { Self::between((0, 0), d).into() };
        // Squares side by side, or one square: nothing between.
        if d.0.abs() <= 1 && d.1.abs() <= 1 {
            return Rc::from([]);
        }
        LINES
            .try_with(|lines| {
                if let Some(line) = lines.borrow().get(&d) {
                    return line.clone();
                }
                let line = work();
                let mut lines = lines.borrow_mut();
                if lines.len() >= LINES_MAX {
                    lines.clear();
                }
                lines.insert(d, line.clone());
                line
            })
            .unwrap_or_else(|_| work())
    }

    /// The first square between `from` and `to` whose terrain `blocks_sight` (seen from `from`).
    pub fn sight_blocker(&self, from: Tile, to: Tile) -> Option<Tile> {
        Self::line(from, to)
            .iter()
            .map(|o| (from.0 + o.0, from.1 + o.1))
            .find(|t| self.terrain_at(*t).is_some_and(|x| x.blocks_sight))
    }

    /// How hidden a unit at `to` is from one at `from`: 2 (fully hidden) where a square that
    /// no movement type may enter (a wall, a shut door) lies on the line between them, else 1
    /// (half hidden) where a unit in the battle stands on it, else 0.
    pub fn cover_between(&self, from: Tile, to: Tile) -> i64 {
        self.cover_counting(from, to, |_, _| true)
    }

    /// [`Battle::cover_between`] as `sight`'s side can tell it: a unit on the line counts where
    /// it is of that side or spotted (an AI weighing a shot reads no enemy it cannot see).
    pub fn cover_as_seen(&self, from: Tile, to: Tile, sight: &super::Sight) -> i64 {
        self.cover_counting(from, to, |k, u| u.side == sight.side || sight.spots(k, u.pos))
    }

    /// [`Battle::cover_between`], a unit on the line counted where `counts` says.
    fn cover_counting(&self, from: Tile, to: Tile, counts: impl Fn(usize, &super::Combatant) -> bool) -> i64 {
        let kept = Self::line(from, to);
        let line = || kept.iter().map(|o| (from.0 + o.0, from.1 + o.1));
        let wall = |t: Tile| self.terrain_at(t).is_some_and(|x| !x.costs.is_empty() && x.costs.values().all(Option::is_none));
        let stands =
            |t: Tile| self.state.units.iter().enumerate().any(|(k, u)| u.state == State::Ready && u.pos == t && counts(k, u));
        if line().any(wall) {
            2
        } else if line().any(stands) {
            1
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Battle;

    #[test]
    fn a_kept_line_is_the_line_between_the_squares_from_any_start() {
        for from in [(0, 0), (3, -2), (-5, 7)] {
            for dx in -9..=9 {
                for dy in -9..=9 {
                    let to = (from.0 + dx, from.1 + dy);
                    let kept: Vec<_> = Battle::line(from, to).iter().map(|o| (from.0 + o.0, from.1 + o.1)).collect();
                    assert_eq!(kept, Battle::between(from, to), "{from:?} -> {to:?}");
                    // Asked again: the line kept.
                    assert_eq!(Battle::line(from, to), Battle::line(from, to));
                }
            }
        }
    }
}
