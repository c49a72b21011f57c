//! The advanced rule of courage (the ruleset's `courage`, played where the scenario says
//! `advanced courage`; seed 003: "Units need to make a Courage check when they take heavy losses,
//! see friendly units flee, or approach frightening creatures. Failing a Courage roll causes a
//! unit to rout, giving the enemy the opportunity to pursue.").
//!
//! Checks are made when an activation ends (the seed's last step, "Resolve routs and pursuits"),
//! in unit order: a unit struck while the ruleset's `losses` holds (again at each later loss), a
//! unit within `fear ... within N` of a frightening enemy (once for each), and, as units rout, their
//! friends within `routs within N`. A routing unit's activation is a flight toward its own side's
//! edge as far as it moves (`pursuit`: each enemy in contact strikes it once as it goes); on
//! reaching that edge it leaves the table and counts as routed. Its activation may instead try a
//! rally roll first (`Act::Rally`): passed, the rout ends and it stays; failed, it flees.

use std::collections::VecDeque;

use oc_model as m;
use serde::{Deserialize, Serialize};

use super::scene::{Cast, Drawn, Draws};
use super::{distance, Act, Battle, BattleError, Record, Rule, State, Tile, Turn};
use crate::dice::rng;
use crate::ir::{E, V};

/// A unit's courage: routing or not, and what it has tested against.
#[derive(Clone, Debug, Default, Eq, Serialize, Deserialize)]
pub struct Morale {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub routing: bool,
    /// Its HP when it last tested for losses: it tests again only when struck below them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tested_at: Option<i64>,
    /// The frightening enemies it has tested against (each once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub faced: Vec<usize>,
    /// A general whose death his side's units have rolled their saves for (`leadership`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mourned: bool,
}

/// Field by field, the enemies faced compared in place ([`crate::fx::same`]): every unit's is
/// compared wherever a look-ahead meets a battle again.
impl PartialEq for Morale {
    fn eq(&self, b: &Morale) -> bool {
        // Every field named, so that a field added to `Morale` cannot be left out here.
        let Morale { routing, tested_at, faced, mourned } = self;
        *routing == b.routing && *tested_at == b.tested_at && *mourned == b.mourned && crate::fx::same(faced, &b.faced)
    }
}

impl Morale {
    pub fn is_steady(&self) -> bool {
        *self == Morale::default()
    }
}

fn compare(op: m::BinaryOp, a: i64, b: i64) -> bool {
    match op {
        m::BinaryOp::Eq => a == b,
        m::BinaryOp::Ne => a != b,
        m::BinaryOp::Lt => a < b,
        m::BinaryOp::Le => a <= b,
        m::BinaryOp::Gt => a > b,
        _ => a >= b,
    }
}

impl Battle<'_> {
    /// Whether this battle plays the ruleset's courage rule (`advanced courage`).
    pub fn plays_courage(&self) -> bool {
        self.engine.rules.ruleset.courage.is_some() && self.laws.courage
    }

    /// Whether unit `i` is in the battle and routing.
    pub fn routing(&self, i: usize) -> bool {
        self.state.units.get(i).is_some_and(|u| u.state == State::Ready && u.morale.routing)
    }

    /// Unit `i` rolls `roll OP target`: (passed, roll, target).
    pub(super) fn courage_roll(&mut self, i: usize, (roll, op, target): &(E, m::BinaryOp, E)) -> (bool, i64, i64) {
        let drawn = Drawn::default();
        let mut dice = std::mem::replace(&mut self.state.rng, rng(0));
        let out = {
            let draws = Draws::new(&mut dice, &drawn);
            match self.scene(Cast { user: i, ..Cast::default() }, Some(&draws)) {
                Some(scene) => {
                    let full = [V::Int(self.state.units.get(i).map_or(0, |u| u.max_hp))];
                    let (r, t) = (scene.value(roll, &full).int(), scene.value(target, &full).int());
                    (compare(*op, r, t), r, t)
                }
                None => (true, 0, 0),
            }
        };
        self.state.rng = dice;
        out
    }

    fn has_tag(&self, k: usize, tag: u32) -> bool {
        self.loadout(k, false).and_then(|l| self.engine.unit(&l, &[]).ok()).is_some_and(|u| u.has.iter().any(|x| x.tag == tag))
    }

    /// The courage checks due once an activation ends, each logged; failures rout.
    pub(super) fn courage_checks(&mut self) {
        if !self.plays_courage() {
            return;
        }
        let (Some(rule), Some(ir)) = (self.engine.rules.ruleset.courage.as_ref(), self.engine.ir.courage.as_ref()) else {
            return;
        };
        let fear = rule.fear.as_ref().and_then(|(tag, n)| Some((self.engine.ir.name_id(tag)?, *n)));
        let mut queue: VecDeque<(usize, String)> = VecDeque::new();
        // Whether each unit bears the fear's tag, asked once (`has_tag` builds its unit): nothing
        // this loop changes (a unit's courage) is part of a loadout.
        let mut frightening: Vec<Option<bool>> = vec![None; if fear.is_some() { self.state.units.len() } else { 0 }];
        for i in 0..self.state.units.len() {
            let Some(u) = self.state.units.get(i).filter(|u| u.state == State::Ready && !u.morale.routing) else { continue };
            let (hp, pos, side) = (u.hp, u.pos, u.side);
            if let Some(losses) = &ir.losses {
                if hp < u.morale.tested_at.unwrap_or(u.max_hp) {
                    let full = [V::Int(u.max_hp)];
                    let heavy = self.holds_in(Cast { user: i, ..Cast::default() }, losses, &full, self.laws.losses_bare);
                    if heavy {
                        if let Some(f) = self.state.units.get_mut(i) {
                            f.morale.tested_at = Some(hp);
                        }
                        queue.push_back((i, "for its losses".to_string()));
                    }
                }
            }
            if let Some((tag, within)) = fear {
                let faced = self.state.units.get(i).map_or(&[][..], |f| &f.morale.faced[..]);
                let frights: Vec<usize> = (self.state.units.iter().enumerate())
                    .filter(|(k, e)| {
                        e.side != side && e.state == State::Ready && distance(e.pos, pos) <= within && !faced.contains(k)
                    })
                    .filter(|(k, _)| match frightening.get_mut(*k) {
                        Some(Some(known)) => *known,
                        Some(slot) => *slot.insert(self.has_tag(*k, tag)),
                        None => self.has_tag(*k, tag),
                    })
                    .map(|(k, _)| k)
                    .collect();
                for k in frights {
                    let name = self.state.units.get(k).map(|e| e.name.clone()).unwrap_or_default();
                    if let Some(f) = self.state.units.get_mut(i) {
                        f.morale.faced.push(k);
                    }
                    queue.push_back((i, format!("facing {name}")));
                }
            }
        }
        while let Some((i, cause)) = queue.pop_front() {
            if !self.state.units.get(i).is_some_and(|u| u.state == State::Ready && !u.morale.routing) {
                continue;
            }
            let (passed, roll, target) = self.courage_roll(i, &ir.check);
            let note = if passed {
                format!("passes its courage check {cause} (rolled {roll} against {target})")
            } else {
                format!("fails its courage check {cause} (rolled {roll} against {target}) and routs")
            };
            self.log.push(Record::Courage { unit: i, note, hp: Vec::new(), routed: Vec::new() });
            if passed {
                continue;
            }
            let Some(u) = self.state.units.get_mut(i) else { continue };
            u.morale.routing = true;
            let (name, side, pos) = (u.name.clone(), u.side, u.pos);
            if let Some(n) = rule.routs_within {
                for (j, f) in self.state.units.iter().enumerate() {
                    if j != i && f.side == side && f.state == State::Ready && !f.morale.routing && distance(f.pos, pos) <= n {
                        queue.push_back((j, format!("as {name} routs nearby")));
                    }
                }
            }
        }
        if rule.surrender {
            self.surrenders();
        }
    }

    /// `surrender`: a side whose every unit still on the table is routing gives up; they all
    /// leave it, counted as routed (seed 003: "to drive the opposing army from the table or to
    /// receive their surrender").
    fn surrenders(&mut self) {
        for side in [m::SideId::Attacker, m::SideId::Defender] {
            let standing: Vec<usize> = (0..self.state.units.len())
                .filter(|k| self.state.units.get(*k).is_some_and(|u| u.side == side && u.state == State::Ready))
                .collect();
            if standing.is_empty() || !standing.iter().all(|k| self.routing(*k)) {
                continue;
            }
            for k in &standing {
                if let Some(u) = self.state.units.get_mut(*k) {
                    u.state = State::Routed;
                }
            }
            let note = format!(
                "surrenders: every unit of the {} still on the table is routing ({} leave it, routed)",
                side.word(),
                standing.len()
            );
            self.log.push(Record::Courage { unit: standing[0], note, hp: Vec::new(), routed: standing });
        }
    }

    /// The edge of the map a side flees to: the one its deployment zone lies toward, away from
    /// the enemy's zone (along the axis on which the two zones' centres lie farther apart).
    /// As (axis, coordinate): axis 0 is x, 1 is y.
    pub fn home_edge(&self, side: m::SideId) -> (usize, i64) {
        let centre = |s: m::SideId| {
            let tiles = super::zone_tiles(&self.scenario, &self.map, s);
            let n = tiles.len().max(1) as i64;
            (tiles.iter().map(|t| t.0).sum::<i64>() * 2 / n, tiles.iter().map(|t| t.1).sum::<i64>() * 2 / n)
        };
        let (own, foe) = (centre(side), centre(side.other()));
        let (dx, dy) = (own.0 - foe.0, own.1 - foe.1);
        if dx.abs() >= dy.abs() {
            (0, if dx < 0 { 0 } else { self.map.width - 1 })
        } else {
            (1, if dy < 0 { 0 } else { self.map.height - 1 })
        }
    }

    /// A routing unit's activation: `Act::Rally` tries the rally roll first; otherwise, or if it
    /// fails, the unit flees toward its edge as far as it moves, and leaves the table there.
    pub(super) fn routing_turn(&mut self, t: Turn, side: m::SideId) -> Result<(), BattleError> {
        let i = t.unit;
        let name = self.state.units.get(i).map(|u| u.name.clone()).unwrap_or_default();
        if !self.routing(i) {
            return Err(BattleError::refused(Rule::Requirement, format!("{name} is not routing: only a routing unit rallies")));
        }
        if t.to.is_some() || !matches!(t.act, Act::Wait | Act::Rally) || t.equip.is_some() || t.then_to.is_some() {
            return Err(BattleError::refused(
                Rule::Requirement,
                format!(
                    "{name} is routing (courage): it flees (wait) or tries to rally, and can neither move at will nor attack"
                ),
            ));
        }
        let before: Vec<i64> = self.state.units.iter().map(|f| f.hp).collect();
        let mut notes = Vec::new();
        let mut rallied = false;
        if matches!(t.act, Act::Rally) {
            let Some(roll) = self.engine.ir.courage.as_ref().and_then(|c| c.rally.as_ref()) else {
                return Err(BattleError::refused(
                    Rule::Requirement,
                    format!("{name} cannot rally: the ruleset has no rally roll"),
                ));
            };
            let (passed, r, target) = self.courage_roll(i, roll);
            if passed {
                notes.push(format!("rallies (rolled {r} against {target}) and stands"));
                rallied = true;
                if let Some(f) = self.state.units.get_mut(i) {
                    f.morale.routing = false;
                    f.morale.tested_at = Some(f.hp);
                }
            } else {
                notes.push(format!("fails to rally (rolled {r} against {target})"));
            }
        }
        if !rallied {
            notes.extend(self.flee_rout(i)?);
        }
        let (hp, routed, newly) = self.mark_routed(&before);
        self.log.push(Record::Turn { round: self.state.round, turn: t, hp, routed, note: notes.join("; ") });
        for k in newly {
            self.run_triggers_against(k, m::Event::Routed, None);
        }
        self.end_activation(i, side, false)
    }

    /// Unit `i` flees toward its edge as far as it moves (the reachable tile nearest the edge,
    /// then the cheapest, then the first by row and column); on the edge it leaves the table.
    fn flee_rout(&mut self, i: usize) -> Result<Vec<String>, BattleError> {
        let Some(u) = self.state.units.get(i) else { return Ok(Vec::new()) };
        let (side, from) = (u.side, u.pos);
        let (axis, edge) = self.home_edge(side);
        let gap = |t: Tile| (if axis == 0 { t.0 } else { t.1 } - edge).abs();
        let mut notes = Vec::new();
        // Pursuit: each enemy in contact strikes the fleeing unit once.
        if self.engine.rules.ruleset.courage.as_ref().is_some_and(|c| c.pursuit) {
            let pursuers: Vec<usize> = (0..self.state.units.len())
                .filter(|k| {
                    self.state.units.get(*k).is_some_and(|e| {
                        e.side != side && e.state == State::Ready && !e.morale.routing && distance(e.pos, from) == 1
                    })
                })
                .collect();
            for k in pursuers {
                if self.state.units.get(i).is_none_or(|f| f.hp <= 0) {
                    break;
                }
                if let Some(n) = self.free_attack(k, i) {
                    notes.push(format!("pursued: {n}"));
                }
            }
            if self.state.units.get(i).is_none_or(|f| f.hp <= 0) {
                return Ok(notes);
            }
        }
        let reach = match self.mobility(i) {
            Ok((_, _, true)) => self.reachable(i)?,
            _ => Default::default(),
        };
        let mut best = (gap(from), 0, (from.1, from.0));
        for (t, cost) in reach.iter() {
            let key = (gap(*t), *cost, (t.1, t.0));
            if key < best {
                best = key;
            }
        }
        let to = (best.2 .1, best.2 .0);
        if to != from {
            notes.extend(self.walk(i, to));
            notes.push(format!("flees to {to:?}"));
        } else {
            notes.push("flees, but cannot move".to_string());
        }
        if self.state.units.get(i).is_some_and(|f| f.hp > 0) && gap(to) == 0 {
            if let Some(f) = self.state.units.get_mut(i) {
                f.state = State::Routed;
            }
            notes.push("leaves the table (routed)".to_string());
        }
        Ok(notes)
    }
}
