//! Fog of war (a scenario's `fog`): what each side sees, what `reveal(X)` lights, and the
//! `seen` records that say what came into sight.
//!
//! A side sees every tile within the vision of one of its units on the battlefield, by the
//! distance units move and attack by (Manhattan; walls do not block sight), and the tiles
//! within X of where a `reveal(X)` was used, until the round ends. A unit's vision is its
//! `vision` attribute where the ruleset has one (an Int), else the scenario's `fog vision N`.
//! Without fog a side sees everything, and nothing here logs.

use std::collections::BTreeSet;

use oc_model as m;
use serde::{Deserialize, Serialize};

use super::{distance, side_index, Battle, Record, State, Tile};
use crate::ir::V;

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
    tiles: BTreeSet<Tile>,
    enemies: BTreeSet<usize>,
}

impl Battle<'_> {
    /// A unit's vision under fog: its `vision` attribute if the ruleset has one, else the
    /// scenario's default. `None` without fog.
    pub fn vision(&self, i: usize) -> Option<i64> {
        let fog = self.scenario.fog?;
        let own = self.engine.ir.attr_id("vision").and_then(|_| {
            let unit = self.loadout(i, false).and_then(|l| self.engine.unit(&l, &[]).ok())?;
            match self.attribute(&unit, "vision") {
                Some(V::Int(v)) => Some(v.max(0)),
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
        let mut eyes: Vec<(Tile, i64)> = self
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| u.side == side && u.state == State::Ready)
            .filter_map(|(k, u)| self.vision(k).map(|r| (u.pos, r)))
            .collect();
        eyes.extend(self.state.lights.iter().filter(|l| l.side == side).map(|l| (l.at, l.radius)));
        let hidden =
            (0..self.units.len()).filter(|k| self.hidden(*k) && self.units.get(*k).is_some_and(|u| u.side != side)).collect();
        Sight { side, eyes: Some(eyes), hidden }
    }

    /// Whether `side` sees the tile `t` (always, without fog).
    pub fn sees(&self, side: m::SideId, t: Tile) -> bool {
        self.scenario.fog.is_none() || self.sight(side).sees(t)
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
    pub(super) fn look(&mut self) {
        if self.scenario.fog.is_none() {
            return;
        }
        for side in [m::SideId::Attacker, m::SideId::Defender] {
            let sight = self.sight(side);
            let mut now = Sighted::default();
            for y in 0..self.state.map.height {
                for x in 0..self.state.map.width {
                    if sight.sees((x, y)) {
                        now.tiles.insert((x, y));
                    }
                }
            }
            now.enemies = self
                .units
                .iter()
                .enumerate()
                .filter(|(k, u)| u.side != side && u.state == State::Ready && sight.spots(*k, u.pos))
                .map(|(k, _)| k)
                .collect();
            let Some(before) = self.state.sighted.get_mut(side_index(side)) else { continue };
            if *before == now {
                continue;
            }
            let spotted: Vec<(usize, Tile)> =
                now.enemies.difference(&before.enemies).filter_map(|k| self.state.units.get(*k).map(|u| (*k, u.pos))).collect();
            let lost: Vec<usize> = before
                .enemies
                .difference(&now.enemies)
                .copied()
                .filter(|k| self.state.units.get(*k).is_some_and(|u| u.state == State::Ready))
                .collect();
            let tiles = runs(now.tiles.difference(&before.tiles).copied());
            *before = now;
            if spotted.is_empty() && lost.is_empty() && tiles.is_empty() {
                continue;
            }
            self.log.push(Record::Seen { side, spotted, lost, tiles });
        }
    }
}

/// Tiles (in row order) as runs `[y, first x, last x]` of neighbours on one row.
fn runs(tiles: impl Iterator<Item = Tile>) -> Vec<[i64; 3]> {
    let mut sorted: Vec<Tile> = tiles.collect();
    sorted.sort_by_key(|t| (t.1, t.0));
    let mut out: Vec<[i64; 3]> = Vec::new();
    for (x, y) in sorted {
        match out.last_mut() {
            Some(run) if run[0] == y && run[2] + 1 == x => run[2] = x,
            _ => out.push([y, x, x]),
        }
    }
    out
}
