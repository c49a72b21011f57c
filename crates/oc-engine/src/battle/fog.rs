//! Fog of war (a scenario's `fog`): what each side sees, what `reveal(X)` lights, the `seen`
//! records that say what came into sight, and what each side last saw of each enemy
//! ([`Sighting`], kept after every turn: what its AIs remember).
//!
//! A side sees every tile within the vision of one of its units on the battlefield, by the
//! distance units move and attack by (Manhattan; walls do not block sight), and the tiles
//! within X of where a `reveal(X)` was used, until the round ends. A unit's vision is its
//! `vision` attribute where the ruleset has one (an Int), else the scenario's `fog vision N`.
//! Without fog a side sees everything, and nothing here logs.

use std::sync::Arc;

use oc_model as m;
use serde::{Deserialize, Serialize};

use super::{distance, side_index, Affliction, Battle, Combatant, Debuff, Morale, Record, State, Tile};
use crate::ir::V;
use crate::Atom;

/// Where a side last saw an enemy, in which round (`Battle::round`), what it bore then (hit
/// points, statuses, weapon, items, resources, debuffs, courage, facing, a shifter's form), and
/// whether it is lost: that tile was in sight since, without it. A lost enemy is no longer aimed at where it
/// was seen, but the copies the planner plays ahead on set it within a walk of that tile in the
/// rounds since (`ai/sighting/seen.rs`), not anywhere it could have walked from its deployment.
/// The battle keeps one for each enemy a side has spotted, as it stood after the last turn in
/// which it was in sight ([`Battle::glimpse`]); the AIs keep their own from it
/// (`ai/tactician/memory.rs`), marking it lost.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sighting {
    pub tile: Tile,
    pub round: u32,
    /// Its hit points when last seen: what the copies give it (healed or hurt out of sight, it
    /// is not known to be).
    pub hp: i64,
    /// Its statuses when last seen: what the copies give it, less those that would have worn off
    /// by now ([`Sighting::statuses_now`]).
    pub statuses: Vec<Affliction>,
    /// The weapon in its hand when last seen: what the copies give it (it may have taken
    /// another out of sight; that is not known).
    pub equipped: Option<Atom>,
    /// Its resources when last seen (what seed 002's activations are paid from), and whether
    /// it had had its activation that round: the copies give it these, set again by the
    /// refills since (`Battle::resources_as_known`).
    pub resources: Vec<i64>,
    pub acted: bool,
    /// What it carried and the uses it had spent of each, its debuffs (worn off at its next
    /// activation) and its courage, when last seen: what the copies give it.
    pub items: Vec<Atom>,
    pub spent: Vec<(Atom, u32)>,
    pub debuffs: Vec<Debuff>,
    pub morale: Morale,
    /// The way it faced when last seen (where threat zones are in front): what the copies give it.
    pub facing: Option<Tile>,
    /// A shifter's form when last seen (seed 000, Shifting): whether it stood transformed out of
    /// its turn (it ended its last one without acting), and whether it had acted that round
    /// (normal until the next). What the copies give it: a form taken in the dark is not known.
    pub transformed: bool,
    pub reverted: bool,
    pub lost: bool,
    /// The length of the battle's log when it was first seen bearing all this (the fights in
    /// the log after it are news of its hit points: `ai/tactician/memory.rs`).
    pub at: usize,
}

impl Sighting {
    /// Unit `u` as it stands now, seen in round `round` with the log `at` records long.
    pub fn of(u: &Combatant, round: u32, at: usize) -> Sighting {
        Sighting {
            tile: u.pos,
            round,
            hp: u.hp,
            statuses: u.statuses.clone(),
            equipped: u.equipped,
            resources: u.resources.clone(),
            acted: u.activated,
            items: u.items.clone(),
            spent: u.spent.clone(),
            debuffs: u.debuffs.clone(),
            morale: u.morale.clone(),
            facing: u.facing,
            transformed: u.transformed,
            reverted: u.reverted,
            lost: false,
            at,
        }
    }

    /// Whether it shows what `u` bears now (its round, log length and loss aside). Every field
    /// named, so that one added to `Sighting` (and copied by [`Sighting::of`]) cannot be left
    /// out here: a change in it would not be kept.
    fn shows(&self, u: &Combatant) -> bool {
        let Sighting {
            tile,
            round: _,
            hp,
            statuses,
            equipped,
            resources,
            acted,
            items,
            spent,
            debuffs,
            morale,
            facing,
            transformed,
            reverted,
            lost: _,
            at: _,
        } = self;
        *tile == u.pos
            && *hp == u.hp
            && *statuses == u.statuses
            && *equipped == u.equipped
            && *resources == u.resources
            && *acted == u.activated
            && *items == u.items
            && *spent == u.spent
            && *debuffs == u.debuffs
            && *morale == u.morale
            && *facing == u.facing
            && *transformed == u.transformed
            && *reverted == u.reverted
    }

    /// Its statuses as the side may take them in round `round`: those it bore when last seen,
    /// less those whose time (`left`, its rounds or its activations: one a round) has run out in
    /// the rounds since.
    pub fn statuses_now(&self, round: u32) -> Vec<Affliction> {
        let since = round.saturating_sub(self.round);
        self.statuses.iter().filter(|a| a.left.is_none_or(|n| n > since)).cloned().collect()
    }
}

/// Tiles lit by `reveal(X)`: the user's side sees within `radius` of `at`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Light {
    pub side: m::SideId,
    pub at: Tile,
    pub radius: i64,
}

/// What one side sees: circles (by Manhattan distance) around its units and its lights.
/// Without fog it sees everything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sight {
    pub side: m::SideId,
    /// `None`: no fog, every tile is in sight.
    eyes: Option<Vec<(Tile, i64)>>,
    /// Under fog, the enemies hidden from it (the `hide` verb), wherever they stand.
    hidden: Vec<usize>,
}

impl Sight {
    /// A sight that sees every tile and unit, as without fog: `side`'s of a battle that holds
    /// only what the side knows (the tactician's threats under fog, `Tactician::ranked`).
    pub(crate) fn clear(side: m::SideId) -> Sight {
        Sight { side, eyes: None, hidden: Vec::new() }
    }

    pub fn sees(&self, t: Tile) -> bool {
        self.eyes.as_ref().is_none_or(|eyes| eyes.iter().any(|(at, r)| distance(*at, t) <= *r))
    }

    /// Whether it sees unit `k` standing on `t`: the tile is in sight and, under fog, the unit
    /// is not hidden from it (without fog a hidden unit is in plain view, only not targeted).
    pub fn spots(&self, k: usize, t: Tile) -> bool {
        self.sees(t) && !self.hidden.contains(&k)
    }

    /// Whether the battle has fog (so some tile may be out of sight).
    pub fn fogged(&self) -> bool {
        self.eyes.is_some()
    }
}

/// What a side saw when its last `seen` record was written (or at the start).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(super) struct Sighted {
    /// The eyes (tile, vision) the tiles were worked out from, with the map's width and
    /// height: the tiles in sight are a function of them, so sight that did not change costs
    /// a comparison.
    eyes: Vec<(Tile, i64)>,
    size: (i64, i64),
    /// The tiles in sight, one bit each, row by row (`y * width + x`).
    tiles: Vec<u64>,
    /// The enemies in sight (battle indices, ascending).
    enemies: Vec<usize>,
    /// What the side last saw of each enemy it has spotted (battle index), as it stood after
    /// the last turn it was in sight: [`Battle::glimpse`]. Each shared by the battle's copies
    /// until it changes (a turn's undo and a fork copy pointers).
    seen: Vec<Option<Arc<Sighting>>>,
}

impl Sighted {
    /// The tiles within reach of `eyes` on a map of `size` (width, height), one bit each, row
    /// by row: the tiles [`Sight::sees`] holds, each eye's circle laid row by row.
    fn lay(eyes: &[(Tile, i64)], (width, height): (i64, i64)) -> Vec<u64> {
        let tiles = usize::try_from(width.max(0).saturating_mul(height.max(0))).unwrap_or(0);
        let mut bits = vec![0u64; tiles.div_ceil(64)];
        if width <= 0 {
            return bits;
        }
        for &((ax, ay), r) in eyes {
            let (top, bottom) = (ay.saturating_sub(r).max(0), ay.saturating_add(r).min(height - 1));
            for y in top..=bottom {
                let span = r - (y - ay).abs();
                let (x0, x1) = (ax.saturating_sub(span).max(0), ax.saturating_add(span).min(width - 1));
                if x0 <= x1 {
                    set_range(&mut bits, y * width + x0, y * width + x1);
                }
            }
        }
        bits
    }
}

impl Battle<'_> {
    /// Under fog, what `side` last saw of unit `k`, an enemy: as it stood after the last turn
    /// in which the side spotted it, or, a body of a mixed unit, the unit it fights in (its
    /// tile, round, hit points, statuses, kit, courage, debuffs, resources, facing, form); `None`
    /// where the side never spotted it, without fog, or in a quiet copy (an AI's playout keeps
    /// none: [`Battle::hush`]).
    pub(crate) fn glimpse(&self, side: m::SideId, k: usize) -> Option<&Sighting> {
        self.state.sighted.get(side_index(side))?.seen.get(k)?.as_deref()
    }
}

/// Sets bits `from..=to` (both in range).
fn set_range(bits: &mut [u64], from: i64, to: i64) {
    let (Ok(from), Ok(to)) = (usize::try_from(from), usize::try_from(to)) else { return };
    for w in from / 64..=to / 64 {
        let lo = if w == from / 64 { from % 64 } else { 0 };
        let hi = if w == to / 64 { to % 64 } else { 63 };
        let mask = (u64::MAX >> (63 - hi)) & (u64::MAX << lo);
        if let Some(word) = bits.get_mut(w) {
            *word |= mask;
        }
    }
}

impl Battle<'_> {
    /// A unit's vision under fog: its `vision` attribute if the ruleset has one, else the
    /// scenario's default. `None` without fog.
    pub fn vision(&self, i: usize) -> Option<i64> {
        self.vision_by(i, self.engine.ir.attr_id("vision"))
    }

    /// [`Battle::vision`] with the ruleset's `vision` attribute looked up once by the caller.
    fn vision_by(&self, i: usize, attr: Option<u16>) -> Option<i64> {
        let fog = self.scenario.fog?;
        let own = attr.and_then(|a| {
            let unit = self.loadout(i, false).and_then(|l| self.engine.unit(&l, &[]).ok())?;
            match unit.attrs.get(a as usize) {
                Some(V::Int(v)) => Some((*v).max(0)),
                _ => None,
            }
        });
        Some(own.unwrap_or(i64::from(fog.vision)))
    }

    /// What `side` sees now.
    pub fn sight(&self, side: m::SideId) -> Sight {
        if self.scenario.fog.is_none() {
            return Sight { side, eyes: None, hidden: Vec::new() };
        }
        let eyes = self.eyes(side).collect();
        let hidden =
            (0..self.units.len()).filter(|k| self.hidden(*k) && self.units.get(*k).is_some_and(|u| u.side != side)).collect();
        Sight { side, eyes: Some(eyes), hidden }
    }

    /// Whether `side` sees the tile `t` (always, without fog): [`Battle::sight`]'s answer,
    /// without making the whole sight.
    pub fn sees(&self, side: m::SideId, t: Tile) -> bool {
        if self.scenario.fog.is_none() {
            return true;
        }
        self.eyes(side).any(|(at, r)| distance(at, t) <= r)
    }

    /// Under fog, what `side` sees from: each of its units on the battlefield with its vision,
    /// then each of its lights with its radius (what [`Battle::sight`] and [`Battle::sees`] read).
    fn eyes(&self, side: m::SideId) -> impl Iterator<Item = (Tile, i64)> + '_ {
        let attr = self.engine.ir.attr_id("vision");
        let units = self
            .units
            .iter()
            .enumerate()
            .filter(move |(_, u)| u.side == side && u.state == State::Ready)
            .filter_map(move |(k, u)| self.vision_by(k, attr).map(|r| (u.pos, r)));
        units.chain(self.state.lights.iter().filter(move |l| l.side == side).map(|l| (l.at, l.radius)))
    }

    /// `reveal(X)` by unit `i`: with fog, its side sees within X of it until the round ends.
    // Seed reading: "Reveal X spaces around the User" gives no duration nor shape; here every tile within X
    // (Manhattan) of where it is used, for the user's side, until the end of the round.
    pub(super) fn reveal(&mut self, i: usize, radius: i64) -> String {
        let Some(u) = self.state.units.get(i) else { return String::new() };
        if self.scenario.fog.is_none() {
            return "lights the area (the scenario has no fog of war: nothing to reveal)".to_string();
        }
        let light = Light { side: u.side, at: u.pos, radius: radius.max(0) };
        let note = format!("lights the area: {} tiles around {:?} in sight until the end of the round", light.radius, light.at);
        self.state.lights.push(light);
        note
    }

    /// The round is over: what `reveal` lit goes dark.
    pub(super) fn lights_out(&mut self) {
        self.state.lights.clear();
    }

    /// With fog: one `seen` record for each side whose sight changed since its last one — the
    /// enemies that came into sight (and where), those that left it, and the tiles newly in
    /// sight as row runs.
    /// A quiet copy ([`Battle::hush`]) writes none: what a side last saw is read by nothing else.
    pub(super) fn look(&mut self) {
        if self.scenario.fog.is_none() || self.quiet {
            return;
        }
        let size = (self.state.map.width, self.state.map.height);
        let (round, at) = (self.state.round, self.log.len());
        for side in [m::SideId::Attacker, m::SideId::Defender] {
            let sight = self.sight(side);
            let enemies: Vec<usize> = self
                .units
                .iter()
                .enumerate()
                .filter(|(k, u)| u.side != side && u.state == State::Ready && sight.spots(*k, u.pos))
                .map(|(k, _)| k)
                .collect();
            let eyes = sight.eyes.unwrap_or_default();
            let Some(before) = self.state.sighted.get_mut(side_index(side)) else { continue };
            if before.seen.len() < self.state.units.len() {
                before.seen.resize(self.state.units.len(), None);
            }
            // What it sees of each enemy in sight, and of the bodies joined to them (seed 003's
            // mixed units: seen with the unit they fight in), kept: made anew where one bears
            // something else or a round has turned (the same kept otherwise, with the log's
            // length when it was first seen so).
            let bodies =
                self.state.units.iter().enumerate().filter(|(_, u)| u.host().is_some_and(|h| enemies.binary_search(&h).is_ok()));
            let seen_now: Vec<usize> = enemies.iter().copied().chain(bodies.map(|(k, _)| k)).collect();
            for k in seen_now {
                let (Some(u), Some(slot)) = (self.state.units.get(k), before.seen.get_mut(k)) else { continue };
                match slot {
                    Some(s) if s.shows(u) && s.round == round => {}
                    Some(s) if s.shows(u) => *slot = Some(Arc::new(Sighting { round, ..(**s).clone() })),
                    _ => *slot = Some(Arc::new(Sighting::of(u, round, at))),
                }
            }
            let same_tiles = before.eyes == eyes && before.size == size;
            if same_tiles && before.enemies == enemies {
                continue;
            }
            let spotted: Vec<(usize, Tile)> = enemies
                .iter()
                .filter(|k| !before.enemies.contains(*k))
                .filter_map(|k| self.state.units.get(*k).map(|u| (*k, u.pos)))
                .collect();
            let lost: Vec<usize> = before
                .enemies
                .iter()
                .filter(|k| !enemies.contains(*k))
                .copied()
                .filter(|k| self.state.units.get(*k).is_some_and(|u| u.state == State::Ready))
                .collect();
            let tiles = if same_tiles {
                Vec::new()
            } else {
                let now = Sighted::lay(&eyes, size);
                let new = runs(&now, &before.tiles, size.0);
                before.tiles = now;
                before.eyes = eyes;
                before.size = size;
                new
            };
            before.enemies = enemies;
            if spotted.is_empty() && lost.is_empty() && tiles.is_empty() {
                continue;
            }
            self.log.push(Record::Seen { side, spotted, lost, tiles });
        }
    }
}

/// The tiles in `now` and not in `before` (bits row by row, on a map `width` wide), as runs
/// `[y, first x, last x]` of neighbours on one row, in row order.
fn runs(now: &[u64], before: &[u64], width: i64) -> Vec<[i64; 3]> {
    let mut out: Vec<[i64; 3]> = Vec::new();
    for (w, word) in now.iter().enumerate() {
        let mut new = word & !before.get(w).copied().unwrap_or(0);
        while new != 0 {
            let bit = new.trailing_zeros();
            new &= new - 1;
            let Ok(at) = i64::try_from(w * 64 + bit as usize) else { continue };
            let (x, y) = (at % width, at / width);
            match out.last_mut() {
                Some(run) if run[0] == y && run[2] + 1 == x => run[2] = x,
                _ => out.push([y, x, x]),
            }
        }
    }
    out
}

impl Battle<'_> {
    /// Where a move of unit `i` to `to`, chosen as its side sees the field (`sight`, under fog),
    /// stops in truth, or `None` where it would not stop (no unit out of sight, nor any rule
    /// reading one, is in its way): it goes along its side's way there while the tiles can be
    /// walked in truth, and stops on the last it may stand on before the first that cannot — an
    /// enemy it did not see stands there or holds it back (the ambush of tactics games under
    /// fog). A refused move would tell its side where unseen enemies stand, at no cost.
    pub fn ambushed_at(&self, i: usize, to: Tile, sight: &Sight) -> Option<Tile> {
        if !sight.fogged() {
            return None;
        }
        let reach = self.reachable(i).ok()?;
        if reach.contains_key(&to) {
            return None;
        }
        let way = self.path_seen(i, to, Some(sight))?;
        let mobility = self.mobility(i).ok()?;
        let truth = self.costs(i, mobility.0, &mobility, None).ok()?;
        let side = self.state.units.get(i)?.side;
        let mut stop = *way.first()?;
        for t in way.iter().skip(1) {
            let enemy = self.state.units.iter().any(|o| o.state == State::Ready && o.side != side && o.pos == *t);
            if enemy || !truth.contains_key(t) {
                break;
            }
            if reach.contains_key(t) {
                stop = *t;
            }
        }
        Some(stop)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::indexing_slicing)]

    use super::*;

    /// Eyes drawn at random (a fixed seed) on maps up to 13x9, some standing off the map: the
    /// tiles laid as bits are the tiles [`Sight::sees`] holds, and [`runs`] are the tiles laid
    /// now and not before, in row order, neighbours on a row joined.
    #[test]
    fn laid_tiles_are_the_tiles_a_sight_sees() {
        let mut state = 11u64;
        let mut next = |n: i64| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            i64::try_from(state >> 33).unwrap_or(0) % n
        };
        let (mut tiles_in_sight, mut runs_found) = (0, 0);
        for _ in 0..800 {
            let size = (1 + next(13), 1 + next(9));
            let mut draw =
                || (0..next(4)).map(|_| ((next(size.0 + 4) - 2, next(size.1 + 4) - 2), next(7))).collect::<Vec<(Tile, i64)>>();
            let (before_eyes, now_eyes) = (draw(), draw());
            let (before, now) = (Sighted::lay(&before_eyes, size), Sighted::lay(&now_eyes, size));
            let sight = |eyes: &[(Tile, i64)]| Sight { side: m::SideId::Attacker, eyes: Some(eyes.to_vec()), hidden: Vec::new() };
            let (seen_before, seen_now) = (sight(&before_eyes), sight(&now_eyes));
            let mut expected: Vec<[i64; 3]> = Vec::new();
            for y in 0..size.1 {
                for x in 0..size.0 {
                    let at = usize::try_from(y * size.0 + x).unwrap_or(0);
                    let bit = |bits: &[u64]| bits[at / 64] >> (at % 64) & 1 == 1;
                    assert_eq!(bit(&now), seen_now.sees((x, y)), "{size:?} {now_eyes:?} at {:?}", (x, y));
                    assert_eq!(bit(&before), seen_before.sees((x, y)), "{size:?} {before_eyes:?} at {:?}", (x, y));
                    tiles_in_sight += usize::from(bit(&now));
                    if bit(&now) && !bit(&before) {
                        match expected.last_mut() {
                            Some(run) if run[0] == y && run[2] + 1 == x => run[2] = x,
                            _ => expected.push([y, x, x]),
                        }
                    }
                }
            }
            runs_found += expected.len();
            assert_eq!(runs(&now, &before, size.0), expected, "{size:?} {before_eyes:?} then {now_eyes:?}");
        }
        assert!(tiles_in_sight > 5_000 && runs_found > 500, "{tiles_in_sight} tiles, {runs_found} runs");
    }
}
