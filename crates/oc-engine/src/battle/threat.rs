//! Threat zones (`oc_model::Threat`, seed 004): the squares a unit threatens, the way it faces,
//! and the free attack a unit takes from each enemy whose zone its move leaves.

use oc_model as m;

use super::attack::Blow;
use super::scene::Cast;
use super::{distance, Act, Battle, State, StepVars, Tile};
use crate::Atom;

/// The direction from `from` toward `to` along the longer axis (x on a tie), or `None` when they
/// are the same tile.
fn toward(from: Tile, to: Tile) -> Option<Tile> {
    let (dx, dy) = (to.0 - from.0, to.1 - from.1);
    match (dx, dy) {
        (0, 0) => None,
        _ if dx.abs() >= dy.abs() => Some((dx.signum(), 0)),
        _ => Some((0, dy.signum())),
    }
}

impl Battle<'_> {
    fn threat(&self) -> Option<m::Threat> {
        self.engine.rules.ruleset.turn.threat
    }

    /// The squares unit `k` threatens (none without threat zones, or when it is out of the battle).
    pub fn threatened_by(&self, k: usize) -> Vec<Tile> {
        let Some(u) = self.state.units.get(k).filter(|u| u.state == State::Ready) else { return Vec::new() };
        self.zone_at(u.pos, u.facing)
    }

    /// The squares a unit standing at `at` and facing `facing` threatens.
    pub fn zone_at(&self, (x, y): Tile, facing: Option<Tile>) -> Vec<Tile> {
        match self.threat() {
            None => Vec::new(),
            Some(m::Threat::Adjacent) => vec![(x, y - 1), (x + 1, y), (x, y + 1), (x - 1, y)],
            Some(m::Threat::Front) => {
                let (fx, fy) = facing.unwrap_or((1, 0));
                // Sideways: the facing turned a quarter.
                let (sx, sy) = (-fy, fx);
                let ahead = (x + fx, y + fy);
                vec![(ahead.0 - sx, ahead.1 - sy), ahead, (ahead.0 + sx, ahead.1 + sy), (x - sx, y - sy), (x + sx, y + sy)]
            }
        }
    }

    /// Whether a unit of `side` standing at `at` is in the zone of an enemy that side sees
    /// (the `zoned` step variable).
    pub(super) fn in_enemy_zone(&self, side: m::SideId, at: Tile) -> bool {
        if self.threat().is_none() {
            return false;
        }
        let sight = self.sight(side);
        (0..self.state.units.len()).any(|k| {
            self.state.units.get(k).is_some_and(|e| e.side != side && sight.sees(e.pos)) && self.threatened_by(k).contains(&at)
        })
    }

    /// Whether `target` stands in the zone of a unit at `at` that turns to face it (the
    /// `target_zoned` step variable).
    pub(super) fn zone_holds(&self, at: Tile, target: Tile) -> bool {
        self.threat().is_some() && self.zone_at(at, toward(at, target)).contains(&target)
    }

    /// With `threat ... shooting`, before unit `i` shoots `target` (an attack from beyond
    /// contact): a free attack on it from each other ready enemy in its own zone, facing the
    /// target (seed 004: "if the source ignore a unit in its treat zone to fire at another unit,
    /// the unit in the treat zone has a free attack"). Returns their notes.
    pub(super) fn shooting_past(&mut self, i: usize, target: usize) -> Vec<String> {
        let (Some(u), Some(t)) = (self.state.units.get(i), self.state.units.get(target)) else { return Vec::new() };
        if !self.engine.rules.ruleset.turn.threat_shooting || distance(u.pos, t.pos) <= 1 {
            return Vec::new();
        }
        let (side, zone) = (u.side, self.zone_at(u.pos, toward(u.pos, t.pos)));
        let ignored: Vec<usize> = (0..self.state.units.len())
            .filter(|k| *k != target)
            .filter(|k| {
                self.state.units.get(*k).is_some_and(|e| e.side != side && e.state == State::Ready && zone.contains(&e.pos))
            })
            .collect();
        let mut notes = Vec::new();
        for k in ignored {
            if let Some(note) = self.free_attack(k, i) {
                notes.push(note);
            }
            if self.state.units.get(i).is_none_or(|u| u.hp <= 0) {
                break;
            }
        }
        notes
    }

    /// The weapon enemy `k` strikes a free attack on unit `i` with: of the weapons it carries
    /// that it may use and that reach 1, the one in hand first, then the others in the order it
    /// carries them, the first the ruleset's `free_attack` allows (seed 004's free attack is a
    /// melee attack: a caster holding its spell strikes with its staff). `None`: it makes no
    /// free attack (a slinger; a caster with no weapon but its spells).
    pub fn free_attack_weapon(&self, k: usize, i: usize) -> Option<Atom> {
        let u = self.state.units.get(k)?;
        let base = self.loadout(k, false)?;
        let weapon = |w: &Atom| self.engine.item(w).is_some_and(|it| it.kind == m::ItemKind::Weapon);
        let others = u.items.iter().filter(|w| Some(**w) != u.equipped && weapon(w)).copied();
        let mut candidates = u.equipped.into_iter().chain(others);
        // The step of an attack on the mover in contact: the same for every weapon tried.
        let rule = self
            .engine
            .ir
            .free_attack
            .as_ref()
            .map(|f| (f, StepVars { range: 1, ..self.step_vars(k, u.pos, 0, &Act::Attack { target: i }) }.params()));
        candidates.find(|w| {
            let l = crate::Loadout { weapon: Some(*w), ..base.clone() };
            let reaches = self.engine.unit(&l, &[]).is_ok_and(|x| x.may_use_weapon() && x.in_range(1));
            reaches
                && rule.as_ref().is_none_or(|(f, params)| {
                    self.holds_in(Cast { user: k, equip: Some(w.as_ref()), ..Cast::default() }, f, params, false)
                })
        })
    }

    /// Enemy `k`'s free attack on unit `i`, which is in its zone: a melee attack, struck as in
    /// contact with [`Battle::free_attack_weapon`] (the weapon in hand stays in hand), one
    /// strike and no answer. Under fog an enemy `i`'s side did not see is lit where it stands.
    /// `None` when it cannot strike one.
    pub(super) fn free_attack(&mut self, k: usize, i: usize) -> Option<String> {
        let weapon = self.free_attack_weapon(k, i)?;
        let (at, side) = (self.state.units.get(k)?.pos, self.state.units.get(i)?.side);
        let mover = self.state.units.get(i)?.pos;
        self.face(k, mover);
        if !self.sees(side, at) {
            self.state.lights.push(super::fog::Light { side, at, radius: 0 });
        }
        let in_hand = self.state.units.get(k)?.equipped == Some(weapon);
        let note = self.exchange_full(k, i, Blow { single: true, at: Some(1), weapon: Some(weapon), ..Blow::default() }).ok()?;
        let name = self.state.units.get(k).map(|f| f.name.clone()).unwrap_or_default();
        Some(if in_hand {
            format!("free attack by {name} on {note}")
        } else {
            format!("free attack by {name} with {} on {note}", &*weapon)
        })
    }

    /// Turns unit `i` toward `to` (with `threat front`).
    pub(super) fn face(&mut self, i: usize, to: Tile) {
        if self.threat() != Some(m::Threat::Front) {
            return;
        }
        if let Some(u) = self.state.units.get_mut(i) {
            if let Some(d) = toward(u.pos, to) {
                u.facing = Some(d);
            }
        }
    }

    /// At deployment, with `threat front`: every unit faces the enemy's deployment zone.
    pub(super) fn face_the_enemy(&mut self) {
        if self.threat() != Some(m::Threat::Front) {
            return;
        }
        for i in 0..self.state.units.len() {
            let Some(u) = self.state.units.get(i) else { continue };
            let zone = &self.scenario.side(u.side.other()).zone;
            let tiles = self.state.map.region(zone).map(|r| r.tiles.clone()).unwrap_or_default();
            if tiles.is_empty() {
                continue;
            }
            let n = tiles.len() as i64;
            let centre = (tiles.iter().map(|t| t.0).sum::<i64>() / n, tiles.iter().map(|t| t.1).sum::<i64>() / n);
            let facing = toward(u.pos, centre).unwrap_or((1, 0));
            if let Some(u) = self.state.units.get_mut(i) {
                u.facing = Some(facing);
            }
        }
    }

    /// Moves unit `i` along the cheapest way to `to`, square by square. Leaving an enemy's threat
    /// zone, it takes a free attack from that enemy (seed 004: each time a threat zone is
    /// evaded, the opponent attacks the mover at once): one strike, no counter.
    /// A mover routed on the way stops there. Returns the notes of the free attacks.
    pub(super) fn walk(&mut self, i: usize, to: Tile) -> Vec<String> {
        let path = if self.threat().is_some() { self.path(i, to) } else { None };
        let Some(path) = path else {
            if let Some(u) = self.state.units.get_mut(i) {
                u.pos = to;
            }
            return Vec::new();
        };
        self.walk_path(i, &path)
    }

    /// Unit `i` flees `squares` squares away from `from`: straight on, away along the longer
    /// axis, while the next square is on the map, free and passable for it; where it is not,
    /// the free passable neighbour farthest from `from` not yet stepped on (the first of the four
    /// in the order up, right, down, left on a tie), and it stops where none is farther than
    /// where it stands. Returns the notes of the free attacks on the way and where it ends.
    pub(super) fn flee(&mut self, i: usize, from: Tile, squares: i64) -> (Vec<String>, Tile) {
        let Some(start) = self.state.units.get(i).map(|u| u.pos) else { return (Vec::new(), from) };
        let kind = self.movement_type(i).unwrap_or_default();
        let open = |b: &Self, t: Tile| b.occupant(t).is_none() && b.enters(&kind, t);
        let straight = toward(from, start).unwrap_or((1, 0));
        let mut path = vec![start];
        let mut at = start;
        for _ in 0..squares.max(0) {
            let ahead = (at.0 + straight.0, at.1 + straight.1);
            let next = if open(self, ahead) && !path.contains(&ahead) {
                Some(ahead)
            } else {
                [(0, -1), (1, 0), (0, 1), (-1, 0)]
                    .into_iter()
                    .map(|(dx, dy)| (at.0 + dx, at.1 + dy))
                    .filter(|t| open(self, *t) && !path.contains(t) && distance(from, *t) > distance(from, at))
                    .fold(None, |best: Option<Tile>, t| match best {
                        Some(b) if distance(from, b) >= distance(from, t) => Some(b),
                        _ => Some(t),
                    })
            };
            let Some(next) = next else { break };
            path.push(next);
            at = next;
        }
        let notes = self.walk_path(i, &path);
        (notes, self.state.units.get(i).map_or(at, |u| u.pos))
    }

    /// Moves unit `i` along `path` (its first square where it stands), square by square, taking
    /// the free attacks of the zones it leaves; a mover routed on the way stops there.
    fn walk_path(&mut self, i: usize, path: &[Tile]) -> Vec<String> {
        let mut notes = Vec::new();
        for step in path.windows(2) {
            let (Some(&from), Some(&next)) = (step.first(), step.get(1)) else { continue };
            let Some(side) = self.state.units.get(i).map(|u| u.side) else { break };
            let enemies: Vec<usize> = (0..self.state.units.len())
                .filter(|k| self.state.units.get(*k).is_some_and(|e| e.side != side && e.state == State::Ready))
                .filter(|k| {
                    let zone = self.threatened_by(*k);
                    zone.contains(&from) && !zone.contains(&next)
                })
                .collect();
            for k in enemies {
                if let Some(note) = self.free_attack(k, i) {
                    notes.push(note);
                }
                if self.state.units.get(i).is_none_or(|u| u.hp <= 0) {
                    return notes;
                }
            }
            self.face(i, next);
            if let Some(u) = self.state.units.get_mut(i) {
                u.pos = next;
            }
        }
        notes
    }
}
