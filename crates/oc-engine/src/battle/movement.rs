//! Movement: distance and neighbours, the terrain on a tile, and the tiles a unit can
//! reach from its movement attributes over the Terrain Table.

use oc_model as m;

mod kept;

use super::queue::CostQueue;
use super::{Battle, BattleError, Rule, Sight, State, Tile};
use crate::fx::FastMap;
use crate::ir::V;
use crate::Atom;

/// A unit's movement points, movement type (a column of the Terrain Table) and whether it may
/// move, from its attributes ([`Battle::mobility`]).
pub type Mobility = (i64, Atom, bool);

pub(crate) use kept::KeptReach;

/// The tiles a unit can reach, with the cost to get there (in no particular order: sort to
/// iterate).
pub type Reach = FastMap<Tile, i64>;

/// The four tiles next to `t` (units move and act orthogonally).
pub fn neighbours(t: Tile) -> [Tile; 4] {
    [(t.0 + 1, t.1), (t.0 - 1, t.1), (t.0, t.1 + 1), (t.0, t.1 - 1)]
}

pub fn distance(a: Tile, b: Tile) -> i64 {
    (a.0 - b.0).abs() + (a.1 - b.1).abs()
}

/// Tile `t`'s index in a grid of `width` by `height` laid out row by row, if it lies on it.
pub(crate) fn tile_index(t: Tile, (width, height): (i64, i64)) -> Option<usize> {
    (t.0 >= 0 && t.1 >= 0 && t.0 < width && t.1 < height).then(|| (t.1 * width + t.0) as usize)
}

/// A reach search's buffers over its square and the ring around it: what entering each tile
/// costs, the cheapest cost found, the queue (of places in the ring's rows, with their indices
/// on the map).
struct Scratch {
    step: Vec<i64>,
    best: Vec<i64>,
    queue: CostQueue<(usize, usize)>,
}

/// What entering a tile no step enters costs, in a search's `Scratch::step` (no terrain's cost).
const WALL: i64 = i64::MIN;
/// A tile's step not looked up yet, in a search's `Scratch::step` (no terrain's cost).
const UNSET: i64 = i64::MIN + 1;

/// What a reach search found: the cheapest cost to each tile of the square searched (its corner
/// and size), kept row by row inside a ring of tiles a tile wider each side. `within`: where
/// every step costs at least 1, the square's centre and the points searched with (no tile farther
/// from the centre than that is reached).
pub(super) struct Searched<'a> {
    best: &'a [i64],
    corner: Tile,
    width: i64,
    height: i64,
    within: Option<(Tile, i64)>,
}

impl Searched<'_> {
    /// The cheapest cost to the tile `(x, y)` from the square's corner, if the search reached it.
    fn at(&self, x: i64, y: i64) -> Option<i64> {
        if x < 0 || y < 0 || x >= self.width || y >= self.height {
            return None;
        }
        self.best.get(((y + 1) * (self.width + 2) + x + 1) as usize).copied().filter(|c| *c != i64::MAX)
    }
}

thread_local! {
    static SEARCH: std::cell::RefCell<Scratch> =
        std::cell::RefCell::new(Scratch { step: Vec::new(), best: Vec::new(), queue: CostQueue::new(0, 0) });
    /// The move a decision chose last on this thread, with what its cost was found from
    /// ([`Battle::hint_move`]).
    static HINT: std::cell::RefCell<Option<MoveHint>> = const { std::cell::RefCell::new(None) };
}

/// A move's cost as a reach search found it, with all that search read but the map's terrain,
/// which its stamp stands for (`Battle::hint_move`). Read only where all that is the same
/// ([`MoveHint::cost`]), so one kept and given again ([`MoveHint::given`]) is never wrong.
#[derive(Clone, Debug, Default)]
pub(crate) struct MoveHint {
    engine: u64,
    stamp: u64,
    unit: usize,
    pos: Tile,
    mobility: Mobility,
    /// The enemies that blocked the way, in unit order.
    blocked: Vec<Tile>,
    to: Tile,
    cost: i64,
}

impl MoveHint {
    /// The hint as it stands on this thread (for the turn a decision chose last), copied into
    /// `into` (its room used again); `None` where there is none.
    pub(crate) fn last_into(into: &mut Option<MoveHint>) {
        HINT.with(|h| match (&*h.borrow(), into) {
            (Some(now), Some(kept)) => kept.clone_from(now),
            (now, into) => *into = now.clone(),
        });
    }

    /// This hint made the thread's again, for a turn played again in a battle it was found in (a
    /// playout memo's: `ai::memo`).
    pub(crate) fn given(&self) {
        HINT.with(|h| match &mut *h.borrow_mut() {
            Some(now) => now.clone_from(self),
            none => *none = Some(self.clone()),
        });
    }

    /// The cost of unit `i`'s move to `to` in `b` moving as `mobility`, where `b`'s search for
    /// it (every enemy blocking) reads what this one's did.
    fn cost(&self, b: &Battle, i: usize, mobility: &Mobility, to: Tile) -> Option<i64> {
        let u = b.state.units.get(i)?;
        let same = self.to == to
            && self.unit == i
            && self.pos == u.pos
            && self.stamp == b.state.terrain_stamp
            && self.engine == b.engine.serial()
            && self.mobility == *mobility;
        if !same {
            return None;
        }
        let mut enemies = b.state.units.iter().filter(|o| o.state == State::Ready && o.side != u.side).map(|o| o.pos);
        let mut kept = self.blocked.iter();
        loop {
            match (enemies.next(), kept.next()) {
                (None, None) => return Some(self.cost),
                (Some(a), Some(k)) if a == *k => {}
                _ => return None,
            }
        }
    }
}

impl Battle<'_> {
    pub fn terrain_at(&self, t: Tile) -> Option<&m::Terrain> {
        self.engine.rules.terrains.get(self.terrain_index_at(t)?)
    }

    /// The name of tile `t`'s terrain as an atom (what a loadout standing there names).
    pub fn terrain_atom_at(&self, t: Tile) -> Option<crate::Atom> {
        self.engine.terrain_atom(self.terrain_index_at(t)?)
    }

    /// Each tile's terrain as an index into the rules' terrains (what `terrain_at` reads).
    pub(super) fn terrain_indices(&self) -> Vec<Option<usize>> {
        self.state.map.terrain.iter().map(|name| self.engine.terrain_index(name)).collect()
    }

    /// What entering each tile costs movement type `kind` (row by row), `None` where it cannot.
    pub(crate) fn tile_costs(&self, kind: &str) -> Vec<Option<i64>> {
        let step_of = self.engine.movement_costs_named(kind);
        self.state.terrain_ix.iter().map(|t| t.and_then(|t| step_of.get(t).copied().flatten())).collect()
    }

    /// Changes the terrain of tile `t` (a door opened, a wall razed).
    pub(super) fn set_terrain(&mut self, t: Tile, name: String) {
        if t.0 < 0 || t.1 < 0 || t.0 >= self.state.map.width || t.1 >= self.state.map.height {
            return;
        }
        let at = (t.1 * self.state.map.width + t.0) as usize;
        if let Some(was) = self.replace_terrain(at, name) {
            self.terrain_undo.push((at, was));
        }
    }

    /// Puts terrain `name` on tile index `at`, its name and its index together; the name it had.
    pub(super) fn replace_terrain(&mut self, at: usize, name: String) -> Option<String> {
        self.state.terrain_stamp = terrain_stamp();
        if let Some(slot) = self.state.terrain_ix.get_mut(at) {
            *slot = self.engine.terrain_index(&name);
        }
        std::sync::Arc::make_mut(&mut self.state.map).terrain.get_mut(at).map(|slot| std::mem::replace(slot, name))
    }

    /// Each tile's terrain now, as an index into the rules' terrains (row by row): what a cache
    /// of what the terrain decides compares ([`TerrainSeen`]).
    pub(crate) fn terrain_indices_now(&self) -> &[Option<usize>] {
        &self.state.terrain_ix
    }

    /// The index of tile `t`'s terrain in the rules' terrains (`None` off the map).
    pub(crate) fn terrain_index_at(&self, t: Tile) -> Option<usize> {
        if t.0 < 0 || t.1 < 0 || t.0 >= self.state.map.width || t.1 >= self.state.map.height {
            return None;
        }
        self.state.terrain_ix.get((t.1 * self.state.map.width + t.0) as usize).copied().flatten()
    }

    /// Whether movement type `kind` may enter tile `t`.
    pub(crate) fn enters(&self, kind: &str, t: Tile) -> bool {
        self.terrain_index_at(t).and_then(|k| self.engine.movement_costs_named(kind).get(k).copied().flatten()).is_some()
    }

    /// Whether some movement type may enter tile `t` (on the map, not a wall).
    pub(crate) fn open(&self, t: Tile) -> bool {
        self.terrain_index_at(t).is_some_and(|k| self.engine.open_terrain(k))
    }

    pub(super) fn occupant(&self, t: Tile) -> Option<usize> {
        self.state.units.iter().position(|u| u.state == State::Ready && u.pos == t)
    }

    /// The unit's movement type (a column of the Terrain Table).
    pub fn movement_type(&self, i: usize) -> Option<Atom> {
        self.mobility(i).ok().map(|(_, kind, _)| kind)
    }

    /// Movement points, movement type and whether the unit may move, from its attributes.
    pub fn mobility(&self, i: usize) -> Result<Mobility, BattleError> {
        let l = self.loadout(i, true).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        Ok(self.mobility_of(&*self.engine.unit(&l, &[])?))
    }

    /// [`Battle::mobility`] of unit `i` as a side that does not see it knows it: bearing `statuses`
    /// (those it was last seen with, or none) instead of its own, no debuff (a debuff wears off at
    /// its next activation: the most it may walk), and where `kit`, the items it carries with the
    /// weapon in hand as the side knows them (as last seen, or as it deployed), a shifter in the
    /// form it acts in at its next activation, on no terrain and with nothing its tile lays on it
    /// (where it stands is not known). An AI's guess at an enemy out of sight.
    pub(crate) fn mobility_as_known(
        &self,
        i: usize,
        statuses: &[super::Affliction],
        kit: Option<(&[Atom], Option<Atom>)>,
    ) -> Result<Mobility, BattleError> {
        let mut l = self.loadout(i, true).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        l.statuses = statuses.iter().map(|a| a.status).collect();
        // Its debuffs are not known (laid out of sight, or worn off since): the most it walks.
        l.debuffs.clear();
        // A shifter walks in the form it takes at its next activation in a round to come
        // (transformed, seed 000's Shifting: "transformed in their own turn"), not as it may have
        // reverted by acting in the dark this round (after which it walks no more this round).
        l.form = crate::Form::Default;
        if let Some((items, equipped)) = kit {
            l.weapon = equipped;
            (l.accessory, l.carried) = self.kit(items, equipped);
        }
        l.terrain = None;
        l.placed = crate::Placed::new();
        Ok(self.mobility_of(&*self.engine.unit(&l, &[])?))
    }

    /// [`Battle::mobility_as_known`] of unit `k` as its side saw it last (`seen`: with the
    /// statuses it bore then, less those worn off since, and its kit then), or, never seen, with
    /// no status and what it deployed with ([`Battle::deployed_kit`]): how far an enemy out of
    /// sight may walk, for all its side knows.
    pub(crate) fn mobility_as_seen(&self, k: usize, seen: Option<&super::Sighting>) -> Result<Mobility, BattleError> {
        match seen {
            Some(s) => self.mobility_as_known(k, &s.statuses_now(self.state.round), Some((&s.items, s.equipped))),
            None => self.mobility_as_known(k, &[], Some(self.deployed_kit(k))),
        }
    }

    /// [`Battle::mobility`] of a unit built from its acting loadout.
    pub(crate) fn mobility_of(&self, unit: &crate::unit::Unit) -> Mobility {
        let [movement, movement_type, can_move] = self.engine.mobility_attrs();
        let attr = |a: Option<u16>| a.and_then(|a| unit.attrs.get(a as usize).copied());
        let points = attr(movement).map_or(5, |v| v.int());
        let kind = match attr(movement_type) {
            Some(V::Name(id)) => self.engine.ir.atom(id),
            _ => self.engine.default_movement(),
        };
        let can = attr(can_move).is_none_or(|v| v.bool());
        (points, kind, can)
    }

    /// Every tile the unit can end its move on this turn, with the cost to get there.
    pub fn reachable(&self, i: usize) -> Result<Reach, BattleError> {
        let mobility = self.mobility(i)?;
        self.reach(i, mobility.0, &mobility, None)
    }

    /// What [`Battle::reachable`] has for tile `to` (the cost of the unit's cheapest move there),
    /// its search ended once `to`'s cost is final: what a turn's move reads.
    /// `held`: whether an enemy holds the unit ([`Battle::engaged_by`] in this very state), where
    /// the caller asked already (`None`: asked here).
    pub(super) fn move_cost(&self, i: usize, to: Tile, held: Option<bool>) -> Result<Option<i64>, BattleError> {
        let mobility = self.mobility(i)?;
        let u = self.state.units.get(i).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        if to == u.pos {
            return Ok(Some(0));
        }
        // A unit cannot end its move on another unit.
        if self.state.units.iter().any(|o| o.state == State::Ready && o.pos == to) {
            return Ok(None);
        }
        // Not held and free to move, the search's cost is the one a decision found for this very
        // move, where it searched what this search reads ([`Battle::hint_move`]).
        let held = held.unwrap_or_else(|| self.engaged_by(i).is_some());
        if mobility.2 && !held {
            if let Some(cost) = HINT.with(|h| h.borrow().as_ref().and_then(|h| h.cost(self, i, &mobility, to))) {
                return Ok(Some(cost));
            }
        }
        let mut cost = None;
        self.cheapest_ways(i, (mobility.0, Some(to), Some(held)), &mobility, None, |s| {
            cost = s.at(to.0 - s.corner.0, to.1 - s.corner.1);
        })?;
        Ok(cost)
    }

    /// Records that unit `i`, moving as `mobility` (its [`Battle::mobility`]) with the enemies
    /// it knows of (those in `sight`, else all) blocking the way, reaches `to` at `cost`: what
    /// [`Battle::reachable_sorted`] found. The turn that makes that move reads the cost, not
    /// searched again, where its search reads the same: the engine and terrain (by stamp), where
    /// the unit stands, its movement, the enemies that block it (then every one), the tile.
    pub(crate) fn hint_move(&self, i: usize, mobility: &Mobility, sight: Option<&Sight>, to: Tile, cost: i64) {
        let Some(u) = self.state.units.get(i) else { return };
        HINT.with(|h| {
            let mut h = h.borrow_mut();
            let hint = h.get_or_insert_with(MoveHint::default);
            hint.engine = self.engine.serial();
            hint.stamp = self.state.terrain_stamp;
            hint.unit = i;
            hint.pos = u.pos;
            hint.mobility = *mobility;
            hint.blocked.clear();
            hint.blocked.extend(
                self.state
                    .units
                    .iter()
                    .filter(|o| o.state == State::Ready && o.side != u.side && sight.is_none_or(|s| s.sees(o.pos)))
                    .map(|o| o.pos),
            );
            hint.to = to;
            hint.cost = cost;
        });
    }

    /// Like [`Battle::reachable`] with `points` of movement left (the `canto` move).
    pub fn reachable_within(&self, i: usize, points: i64) -> Result<Reach, BattleError> {
        let mobility = self.mobility(i)?;
        self.reach(i, points, &mobility, None)
    }

    /// [`Battle::reachable`] as the unit's side believes it under fog: units out of `sight`
    /// neither block the way nor hold a tile (moving there is refused when the turn is played).
    /// Without fog, [`Battle::reachable`] itself.
    pub fn reachable_as_seen(&self, i: usize, sight: &Sight) -> Result<Reach, BattleError> {
        if !sight.fogged() {
            return self.reachable(i);
        }
        let mobility = self.mobility(i)?;
        self.reach(i, mobility.0, &mobility, Some(sight))
    }

    /// `mobility`: the unit's [`Battle::mobility`], worked out once by the caller.
    fn reach(&self, i: usize, points: i64, mobility: &Mobility, sight: Option<&Sight>) -> Result<Reach, BattleError> {
        let mut best = self.costs(i, points, mobility, sight)?;
        let u = self.state.units.get(i).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        // A unit cannot end its move on another unit (one it knows of).
        for other in &self.state.units {
            if other.state == State::Ready && other.pos != u.pos && sight.is_none_or(|s| s.sees(other.pos)) {
                best.remove(&other.pos);
            }
        }
        Ok(best)
    }

    /// The cost of the cheapest way to every tile within `points`, passing allies.
    pub(super) fn costs(&self, i: usize, points: i64, mobility: &Mobility, sight: Option<&Sight>) -> Result<Reach, BattleError> {
        let u = self.state.units.get(i).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        let mut out: Reach = Reach::default();
        out.insert(u.pos, 0);
        self.cheapest_ways(i, (points, None, None), mobility, sight, |s| {
            let ((x0, y0), ww, wh) = (s.corner, s.width, s.height);
            let square = || (0..wh).flat_map(|y| (0..ww).map(move |x| (x, y)));
            out.reserve(square().filter(|(x, y)| s.at(*x, *y).is_some()).count());
            for (x, y) in square() {
                if let Some(c) = s.at(x, y) {
                    out.insert((x0 + x, y0 + y), c);
                }
            }
        })?;
        Ok(out)
    }

    /// The search of [`Battle::costs`]: `found` is given what it found ([`Searched`]: the
    /// cheapest cost to each tile of the square searched, with the square's corner and size);
    /// `false` (and `found` not called) where the unit may not move. With `until`, the
    /// search ends once that tile's cost is final (the other tiles' may not be). `held`: whether
    /// an enemy holds the unit, where the caller asked [`Battle::engaged_by`] in this state already.
    fn cheapest_ways(
        &self,
        i: usize,
        (points, until, held): (i64, Option<Tile>, Option<bool>),
        (_, kind, can): &Mobility,
        sight: Option<&Sight>,
        found: impl FnOnce(&Searched),
    ) -> Result<bool, BattleError> {
        let u = self.state.units.get(i).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        // A unit an enemy holds (the ruleset's `engaged`) moves nowhere.
        if !*can || held.unwrap_or_else(|| self.engaged_by(i).is_some()) {
            return Ok(false);
        }
        // Dijkstra over a dense grid (no hashing per step), each terrain's cost for this movement
        // type looked up once. Where every step costs at least 1, no tile farther than `points`
        // steps can be reached, so the search keeps only the square of that radius around the
        // unit (a few dozen tiles, not the whole map).
        let (w, h) = (self.state.map.width.max(0), self.state.map.height.max(0));
        let step_of = self.engine.movement_costs(*kind);
        let steps = || step_of.iter().flatten().copied();
        let (cheapest, dearest) = (steps().min().unwrap_or(0), steps().max().unwrap_or(0));
        // Toward a tile on the map within `points` (at the cheapest step), only the tiles a way
        // within them may pass are kept: `slack` is the steps a way may stray, and the search's
        // bound (A*) prices no tile from which the goal lies farther.
        let aim = until.filter(|t| t.0 >= 0 && t.1 >= 0 && t.0 < w && t.1 < h);
        let aim = aim.filter(|t| cheapest >= 1 && distance(u.pos, *t).saturating_mul(cheapest) <= points);
        let (x0, y0, x1, y1) = if let Some(g) = aim {
            let slack = (points / cheapest - distance(u.pos, g)) / 2;
            let (lo, hi) = ((u.pos.0.min(g.0), u.pos.1.min(g.1)), (u.pos.0.max(g.0), u.pos.1.max(g.1)));
            ((lo.0 - slack).max(0), (lo.1 - slack).max(0), (hi.0 + slack).min(w - 1), (hi.1 + slack).min(h - 1))
        } else if cheapest >= 1 {
            let r = points.max(0);
            ((u.pos.0 - r).max(0), (u.pos.1 - r).max(0), (u.pos.0 + r).min(w - 1), (u.pos.1 + r).min(h - 1))
        } else {
            (0, 0, w - 1, h - 1)
        };
        let ww = (x1 - x0 + 1).max(0);
        let wh = (y1 - y0 + 1).max(0);
        // The square with a ring of tiles around it no step enters (`WALL`), row by row: a
        // tile's neighbours lie one place and one row away, none past the ring, and no step
        // needs its coordinates checked. The start stands in the ring where it is just off the
        // square (off the map), and a start farther off has no neighbour to enter. A tile's step
        // is looked up as the search first tries it (`UNSET` until then), by its index on the
        // map, which the queue carries along (a row of the map is `w` away).
        let pw = ww + 2;
        let ring = |t: Tile| {
            (t.0 >= x0 - 1 && t.1 >= y0 - 1 && t.0 <= x1 + 1 && t.1 <= y1 + 1)
                .then(|| ((t.1 - y0 + 1) * pw + (t.0 - x0 + 1)) as usize)
        };
        let (row, map_row) = (pw as usize, w as usize);
        // Enemy units block the way; allies may be passed through. The search's buffers are the
        // thread's, kept from one search to the next.
        SEARCH.with(|cell| {
            let mut scratch = cell.borrow_mut();
            let Scratch { step, best, queue } = &mut *scratch;
            // What entering each tile costs (`WALL`: it cannot, a tile of the ring or an enemy's).
            step.clear();
            step.resize((pw * (wh + 2)) as usize, UNSET);
            let last = step.len().saturating_sub(row);
            for s in step.iter_mut().take(row) {
                *s = WALL;
            }
            for s in step.iter_mut().skip(last) {
                *s = WALL;
            }
            for y in 1..=wh as usize {
                for x in [y * row, y * row + row - 1] {
                    if let Some(s) = step.get_mut(x) {
                        *s = WALL;
                    }
                }
            }
            for f in &self.state.units {
                if f.state == State::Ready && f.side != u.side && sight.is_none_or(|s| s.sees(f.pos)) {
                    let inside = f.pos.0 >= x0 && f.pos.1 >= y0 && f.pos.0 <= x1 && f.pos.1 <= y1;
                    if let Some(slot) = ring(f.pos).filter(|_| inside).and_then(|k| step.get_mut(k)) {
                        *slot = WALL;
                    }
                }
            }
            best.clear();
            best.resize(step.len(), i64::MAX);
            let goal = until.and_then(ring);
            // Toward one tile, the search is led by a bound of the cost left (A*): its steps from
            // the goal times the cheapest step (a step raises a tile's cost plus bound by its
            // cost and the cheapest step at most).
            let toward = goal.filter(|_| cheapest >= 1).map(|k| ((k % row) as i64, (k / row) as i64));
            queue.reset(cheapest, dearest + if toward.is_some() { cheapest } else { 0 });
            if let Some(start) = ring(u.pos) {
                if let Some(slot) = best.get_mut(start) {
                    *slot = 0;
                }
                // Its index on the map (wrapped where it stands off the map: its neighbours' come
                // right).
                let on_map = (u.pos.1.wrapping_mul(w).wrapping_add(u.pos.0)) as usize;
                queue.push(0, (start, on_map));
            }
            let map = (&self.state.terrain_ix[..], step_of);
            // Taken at its least cost, a tile is final where no step costs less than nothing.
            let bounds = (points, goal.filter(|_| cheapest >= 0));
            match toward {
                Some((gx, gy)) => {
                    let left = |k: usize| (((k % row) as i64 - gx).abs() + ((k / row) as i64 - gy).abs()) * cheapest;
                    let from = ring(u.pos).map_or(0, left);
                    settle_ways((step, best, queue), map, (row, map_row), bounds, (from, left));
                }
                None => settle_ways((step, best, queue), map, (row, map_row), bounds, (0, |_| 0)),
            }
            let within = (cheapest >= 1).then_some((u.pos, points.max(0)));
            found(&Searched { best, corner: (x0, y0), width: ww, height: wh, within });
        });
        Ok(true)
    }

    /// The cheapest way from unit `i`'s tile to `to` (both included), ties broken by tile order,
    /// or `None` when it cannot get there.
    pub fn path(&self, i: usize, to: Tile) -> Option<Vec<Tile>> {
        self.path_seen(i, to, None)
    }

    /// [`Battle::path`] as the unit's side sees the field (`sight`: units out of it neither
    /// block nor hold a tile).
    pub(super) fn path_seen(&self, i: usize, to: Tile, sight: Option<&Sight>) -> Option<Vec<Tile>> {
        let mobility = self.mobility(i).ok()?;
        let costs = self.costs(i, mobility.0, &mobility, sight).ok()?;
        let kind = mobility.1;
        let start = self.state.units.get(i)?.pos;
        let mut at = to;
        let mut path = vec![to];
        while at != start {
            let here = *costs.get(&at)?;
            let step = i64::from(self.terrain_at(at).and_then(|t| t.costs.get(kind.as_str()).copied().flatten())?);
            let mut from: Vec<Tile> = neighbours(at).into_iter().filter(|n| costs.get(n) == Some(&(here - step))).collect();
            from.sort();
            at = *from.first()?;
            path.push(at);
        }
        path.reverse();
        Some(path)
    }
}

/// The loop of a search ([`Battle::cheapest_ways`]) over a square's buffers (`step`, `best`,
/// `queue`, the start waiting at 0; a row `row` places on, `map_row` on the map): takes the
/// tiles waiting cheapest first and prices their neighbours within `points`, each tile's step
/// looked up on the map (terrain indices and the movement type's costs) as first tried, until
/// `goal` is taken. With a bound `left` of the cost left from a tile (A*: no more than any way's
/// cost, and from a tile no more than a step's cost less than from the tile it enters), a tile
/// waits at its cost plus that bound less the start's (`from`): the goal is still taken at its
/// least cost, and no tile is priced from which the goal lies beyond `points` (a way through it
/// costs more). With none (`|_| 0`), every tile is taken at its least cost.
fn settle_ways(
    (step, best, queue): (&mut [i64], &mut [i64], &mut CostQueue<(usize, usize)>),
    (terrain_ix, step_of): (&[Option<usize>], &[Option<i64>]),
    (row, map_row): (usize, usize),
    (points, goal): (i64, Option<usize>),
    (from, left): (i64, impl Fn(usize) -> i64),
) {
    while let Some((key, (at, on_map))) = queue.pop() {
        let cost = key + from - left(at);
        if best.get(at).is_some_and(|b| *b < cost) {
            continue;
        }
        if goal == Some(at) {
            break;
        }
        let ways = [(1, 1), (usize::MAX, usize::MAX), (row, map_row), (row.wrapping_neg(), map_row.wrapping_neg())];
        for (next, next_on_map) in ways.map(|(d, m)| (at.wrapping_add(d), on_map.wrapping_add(m))) {
            let Some(slot) = step.get_mut(next) else { continue };
            if *slot == UNSET {
                *slot = terrain_ix
                    .get(next_on_map)
                    .copied()
                    .flatten()
                    .and_then(|t| step_of.get(t).copied().flatten())
                    .unwrap_or(WALL);
            }
            if *slot == WALL {
                continue;
            }
            let total = cost + *slot;
            let bound = total + left(next);
            if bound <= points {
                if let Some(b) = best.get_mut(next).filter(|b| total < **b) {
                    *b = total;
                    queue.push(bound - from, (next, next_on_map));
                }
            }
        }
    }
}

/// A terrain stamp no battle's terrain had yet (never 0): a battle takes one as it starts and
/// at every terrain write, so a stamp seen again is the same terrain, not compared tile by tile.
pub(super) fn terrain_stamp() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// The terrain a cache of what the terrain decides was worked out on: the map's width and each
/// tile's terrain index, and the battle's stamp of it ([`terrain_stamp`]; 0: none seen). Kept by
/// the AIs' guides and reaches, which forget what they hold when [`TerrainSeen::renew`] finds
/// the battle's terrain another (a door opened, a wall razed).
#[derive(Debug, Default, Clone)]
pub(crate) struct TerrainSeen(i64, Vec<Option<usize>>, u64);

impl TerrainSeen {
    /// Whether `b`'s terrain differs from the one kept; if so the kept one becomes `b`'s. The
    /// stamp it was seen with again, it is the same (the tiles are compared only at a new stamp:
    /// a new battle, a terrain write).
    pub(crate) fn renew(&mut self, b: &Battle) -> bool {
        let stamp = b.state.terrain_stamp;
        if self.2 != 0 && self.2 == stamp && self.0 == b.map.width {
            return false;
        }
        self.2 = stamp;
        let now = b.terrain_indices_now();
        if self.0 == b.map.width && self.1 == now {
            return false;
        }
        self.0 = b.map.width;
        self.1 = now.to_vec();
        true
    }

    /// The tiles of the kept terrain.
    pub(crate) fn tiles(&self) -> usize {
        self.1.len()
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::CostQueue;
    use crate::battle::Battle;

    /// A 9x7 field with walls and a Savage a side (what the reach tests search).
    pub(super) fn walled() -> (crate::Engine, oc_model::BattleMap) {
        crate::testing::duel(
            &[".........", "..#......", "..#..#...", ".....#...", "...#.....", "......#..", "........."],
            "std:battlestorm",
            "",
            ["unit Brave: Savage { items Shortsword }", "unit Foe: Savage { items Shortsword }"],
        )
    }

    /// An enemy out of sight moves as its side knows it (`mobility_as_known`): with the kit it
    /// deployed with (`Battle::deployed_kit`), wings and all, where it gave them up out of sight;
    /// without a kit, or in a copy (which does not know how the battle began), as it is now.
    #[test]
    fn an_enemy_out_of_sight_moves_with_the_kit_its_side_knows() {
        let units = ["unit Brave: Fighter { items IronAxe }", "unit Foe: Fighter { items IronAxe, Speedwings }"];
        let (engine, map) = crate::testing::fog_duel(units);
        let mut b = Battle::duel(&engine, &map, 1);
        let foe = 1;
        let winged = b.mobility(foe).expect("it moves").0;
        b.state.units[foe].items.retain(|i| i.as_str() != "Speedwings");
        let bare = b.mobility(foe).expect("it moves").0;
        assert_eq!(winged, bare + 1, "the wings are a space of movement");
        assert_eq!(b.mobility_as_known(foe, &[], Some(b.deployed_kit(foe))).expect("it moves").0, winged);
        assert_eq!(b.mobility_as_known(foe, &[], None).expect("it moves").0, bare);
        // A copy begins with an empty log: it knows the kit as it is now.
        let copy = b.fork(None);
        assert_eq!(copy.mobility_as_known(foe, &[], Some(copy.deployed_kit(foe))).expect("it moves").0, bare);
    }

    /// A shifter out of sight walks, as its side knows it (`mobility_as_known`), in the form it
    /// acts in at its next activation (seed 000's Shifting: "transformed in their own turn"), not
    /// as it reverted by acting in the dark this round: a drake that runs two spaces farther
    /// transformed walks them, reverted or not.
    #[test]
    fn a_shifter_out_of_sight_walks_in_the_form_it_acts_in() {
        let drake = "class Drake \"Drake\" {\n    tags Shifter\n    wields Axes\n\
             normal { ratings { str D mag E skl D spd D def D res E } }\n\
             transformed { ratings { str B mag E skl C spd C def C res D } tags Fast(2) }\n    cost 900\n}\n";
        let units = ["unit Brave: Fighter { items IronAxe }", "unit Foe: Drake { items IronAxe }"];
        let (engine, map) = crate::testing::duel_after(drake, &["...................."; 7], "    fog vision 2\n", units);
        let mut b = Battle::duel(&engine, &map, 1);
        let foe = 1;
        let transformed = b.mobility(foe).expect("it moves").0;
        b.state.units[foe].reverted = true;
        let normal = b.mobility(foe).expect("it moves").0;
        assert_eq!(transformed, normal + 2, "transformed, it runs two spaces farther");
        assert_eq!(b.mobility_as_known(foe, &[], None).expect("it moves").0, transformed, "reverted in the dark");
    }

    /// A turn's move reads one tile's cost (`move_cost`, its search ended at that tile): what the
    /// whole reach has for it, on every tile and off the map, walls and units in the way.
    #[test]
    fn a_move_costs_what_the_reach_has_for_its_tile() {
        let (engine, map) = walled();
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let mut b = Battle::new(&engine, s, &map, [a, d], [&[(0, 1)][..], &[(8, 1)][..]], 3).expect("the battle starts");
        let (mut reached, mut refused) = (0, 0);
        for (pa, pd) in [((0, 1), (8, 1)), ((1, 3), (3, 3)), ((4, 2), (4, 4)), ((6, 6), (7, 5)), ((3, 1), (4, 1))] {
            b.state.units[0].pos = pa;
            b.state.units[1].pos = pd;
            for i in 0..2 {
                let reach = b.reachable(i).expect("a reach");
                for (x, y) in (-1..10).flat_map(|x| (-1..8).map(move |y| (x, y))) {
                    let cost = b.move_cost(i, (x, y), None).expect("a cost");
                    assert_eq!(cost, reach.get(&(x, y)).copied(), "unit {i} from {pa:?} / {pd:?} to {:?}", (x, y));
                    reached += usize::from(cost.is_some_and(|c| c > 0));
                    refused += usize::from(cost.is_none());
                }
            }
        }
        assert!(reached > 100 && refused > 100, "{reached} tiles reached, {refused} not");
    }

    /// A move's cost is read from a hint (`hint_move`) only where the search would read what
    /// the hint's did: a hint with a cost no search finds is read while the unit, its movement
    /// and the enemy stand as they stood, and not once the enemy moved, the unit moved, or the
    /// move is to another tile.
    #[test]
    fn a_move_reads_its_hint_only_where_the_search_reads_the_same() {
        let (engine, map) = walled();
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let mut b = Battle::new(&engine, s, &map, [a, d], [&[(0, 1)][..], &[(8, 1)][..]], 3).expect("the battle starts");
        let mobility = b.mobility(0).expect("a mobility");
        let fresh = b.move_cost(0, (1, 1), Some(false)).expect("a cost");
        assert_eq!(fresh, Some(1));
        // A false cost, to tell a hint read from a search made.
        b.hint_move(0, &mobility, None, (1, 1), 99);
        assert_eq!(b.move_cost(0, (1, 1), Some(false)).expect("a cost"), Some(99), "the hint read");
        assert_eq!(b.move_cost(0, (0, 2), Some(false)).expect("a cost"), Some(1), "another tile: searched");
        b.state.units[1].pos = (8, 2);
        assert_eq!(b.move_cost(0, (1, 1), Some(false)).expect("a cost"), fresh, "the enemy moved: searched");
        b.state.units[1].pos = (8, 1);
        b.state.units[0].pos = (0, 0);
        assert_eq!(b.move_cost(0, (1, 1), Some(false)).expect("a cost"), Some(2), "the unit moved: searched");
        b.state.units[0].pos = (0, 1);
        assert_eq!(b.move_cost(0, (1, 1), Some(true)).expect("a cost"), None, "held: it moves nowhere");
    }

    /// A search's pushes: each at the cost last taken plus a step of 0 to `dearest`.
    fn drain(mut q: CostQueue<u32>, dearest: i64, seed: u64) -> Vec<(i64, u32)> {
        let mut state = seed;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 33
        };
        let mut taken = Vec::new();
        for t in 0..5 {
            q.push(0, t);
        }
        let mut id = 5u32;
        while let Some((cost, t)) = q.pop() {
            taken.push((cost, t));
            // Each tile taken lets a few more wait, as neighbours do (fewer as the search grows).
            if id < 400 {
                for _ in 0..(next() % 4) {
                    q.push(cost + (next() % (dearest as u64 + 1)) as i64, id);
                    id += 1;
                }
            }
        }
        taken
    }

    #[test]
    fn buckets_take_tiles_in_the_cost_order_a_heap_does() {
        for dearest in [0, 1, 3, 7, 63] {
            for seed in 0..20 {
                let buckets = drain(CostQueue::new(0, dearest), dearest, seed);
                assert!(matches!(CostQueue::<u32>::new(0, dearest), CostQueue::Buckets { .. }));
                let heap = drain(CostQueue::Heap(Default::default()), dearest, seed);
                // A queue kept from a search with dearer steps (more buckets): the same order.
                let mut kept = CostQueue::new(0, 63);
                kept.reset(0, dearest);
                assert!(matches!(&kept, CostQueue::Buckets { mask: 63, .. }), "dearest {dearest}: the buckets kept");
                assert_eq!(drain(kept, dearest, seed), buckets, "dearest {dearest}, seed {seed}: buckets kept");
                // The same tiles at the same costs, never a cheaper one after a dearer one.
                assert!(buckets.windows(2).all(|w| w[0].0 <= w[1].0), "dearest {dearest}, seed {seed}");
                let (mut a, mut b) = (buckets.clone(), heap.clone());
                a.sort();
                b.sort();
                assert_eq!(a, b, "dearest {dearest}, seed {seed}");
            }
        }
        // A dear step or a negative one: the heap.
        assert!(matches!(CostQueue::<u32>::new(0, 64), CostQueue::Heap(_)));
        assert!(matches!(CostQueue::<u32>::new(-1, 3), CostQueue::Heap(_)));
    }
}
