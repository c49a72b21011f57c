//! Rounds: what follows an activation and ends a turn, whose activation is next, and the end
//! and start of a round (the side that finished first leads the next).

use oc_model as m;

use super::effects::uses_verb;
use super::scene::{Cast, Drawn, Draws};
use super::{Affliction, Battle, Debuff, Record, State};
use crate::dice::rng;

impl Battle<'_> {
    /// After a unit's action: statuses that last a number of activations count down, and a
    /// shifter that `acted` (an action or a free action) returns to its normal form until the
    /// next round; one that did not stays as it was (transformed, unless already reverted).
    pub(super) fn after_activation(&mut self, i: usize, acted: bool) {
        // A shifter is a unit one of whose tags changes form (`shift`); the seed's rule that it
        // stays normal after acting until the next round, even when danced, is applied here.
        let shifter = self.state.units.get(i).and_then(|u| self.engine.class(&u.class)).is_some_and(|c| c.forms.is_some())
            && self.holdings(i).iter().any(|h| uses_verb(h.effects, m::Verb::Shift));
        let statuses = &self.engine.rules.statuses;
        let by_activation =
            |name: &crate::Atom| statuses.iter().any(|s| matches!(s.lasts, Some(m::Duration::Activations(_))) && s.name == *name);
        let mut worn = Vec::new();
        if let Some(u) = self.state.units.get_mut(i) {
            for a in &mut u.statuses {
                if by_activation(&a.status) {
                    a.left = a.left.map(|n| n.saturating_sub(1));
                }
            }
            worn = u.statuses.iter().filter(|a| a.left == Some(0)).map(|a| a.status.to_string()).collect();
            u.statuses.retain(|a| a.left != Some(0));
            if shifter && u.state == State::Ready {
                if acted {
                    u.reverted = true;
                    u.transformed = false;
                } else if !u.reverted {
                    u.transformed = true;
                }
            }
        }
        let wore = !worn.is_empty();
        for status in worn {
            self.log.push(Record::Affliction { unit: i, status: status.to_string(), change: "wears off".into() });
        }
        if wore {
            self.hold_to_max_hp(i);
        }
        if shifter && self.on_board(i) {
            let change = if acted || self.state.units.get(i).is_some_and(|u| u.reverted) {
                "normal until the next round"
            } else {
                "stays transformed: it took no action"
            };
            self.log.push(Record::Affliction { unit: i, status: "form".into(), change: change.into() });
        }
    }

    /// Start of a round: round-counted statuses count down, and statuses that clear on a roll
    /// at `start_of_round` roll for it (seed 000: d10, 1-5 it wears off).
    pub(super) fn start_of_round(&mut self) {
        let mut changes = Vec::new();
        for i in 0..self.state.units.len() {
            if self.state.units.get(i).is_none_or(|u| u.state != State::Ready) {
                continue;
            }
            // `on start_of_round` effects, then the statuses' clear rolls, one draw of each named
            // die for both (seed 001's poison: one d20, 1-10 it wears off, 11-20 two damage).
            let drawn = Drawn::default();
            self.run_triggers_drawing(i, m::Event::StartOfRound, None, &drawn);
            let Some(u) = self.state.units.get(i) else { continue };
            if u.state != State::Ready {
                continue;
            }
            // No status, nothing to wear off (nor dice to draw).
            if u.statuses.is_empty() {
                continue;
            }
            let statuses = u.statuses.clone();
            let engine = self.engine;
            // The unit's scene, only where a clear at the round's start has a condition to read.
            let conditional = statuses.iter().any(|a| {
                engine
                    .ir
                    .name_id(&a.status)
                    .and_then(|id| engine.ir.clears.get(&id))
                    .is_some_and(|cs| cs.iter().any(|c| c.event == m::Event::StartOfRound && c.condition.is_some()))
            });
            let mut dice = std::mem::replace(&mut self.state.rng, rng(0));
            let mut keep = Vec::new();
            {
                let draws = Draws::new(&mut dice, &drawn);
                let scene = if conditional { self.scene(Cast { user: i, ..Cast::default() }, Some(&draws)) } else { None };
                for a in statuses {
                    let status = engine.status_index(&a.status).and_then(|k| engine.rules.statuses.get(k));
                    let mut left = a.left;
                    if matches!(status.and_then(|s| s.lasts), Some(m::Duration::Rounds(_))) {
                        left = left.map(|n| n.saturating_sub(1));
                    }
                    let mut cleared = left == Some(0);
                    let clears = status.and_then(|_| engine.ir.clears.get(&engine.ir.name_id(&a.status)?));
                    for c in clears.map_or(&[][..], Vec::as_slice) {
                        if c.event == m::Event::StartOfRound && !cleared {
                            cleared = match (&c.condition, &scene) {
                                (None, _) => true,
                                (Some(e), Some(scene)) => scene.holds(e, &[]),
                                (Some(_), None) => false,
                            };
                        }
                    }
                    if cleared {
                        changes.push((i, a.status));
                    } else {
                        keep.push(Affliction { status: a.status, left });
                    }
                }
            }
            self.state.rng = dice;
            if let Some(u) = self.state.units.get_mut(i) {
                u.statuses = keep;
            }
        }
        for (i, status) in changes {
            self.log.push(Record::Affliction { unit: i, status: status.to_string(), change: "wears off".into() });
            self.hold_to_max_hp(i);
        }
    }

    /// Unit `i`'s activation begins: a resource refilled at `activated` is set first, what
    /// clears at activation clears, and the event's triggers may then change either (`on
    /// activated { gain(...) }`).
    pub(super) fn begin_activation(&mut self, i: usize) {
        self.refill(Some(m::Event::Activated), &[i]);
        self.clear_at_activation(i);
        self.run_triggers(i, m::Event::Activated);
    }

    /// Unit `i`'s activation begins: each status on it that `clears ... at activated` and whose
    /// condition holds (rolled now) wears off (seed 003: a braced unit is braced until it acts
    /// again).
    pub(super) fn clear_at_activation(&mut self, i: usize) {
        let engine = self.engine;
        let Some(statuses) = self.state.units.get(i).map(|u| u.statuses.clone()) else { return };
        let at_activation = |a: &Affliction| {
            engine
                .ir
                .name_id(&a.status)
                .and_then(|id| engine.ir.clears.get(&id))
                .is_some_and(|cs| cs.iter().any(|c| c.event == m::Event::Activated))
        };
        if !statuses.iter().any(at_activation) {
            return;
        }
        let drawn = Drawn::default();
        let mut dice = std::mem::replace(&mut self.state.rng, rng(0));
        let mut gone = Vec::new();
        {
            let draws = Draws::new(&mut dice, &drawn);
            let scene = self.scene(Cast { user: i, ..Cast::default() }, Some(&draws));
            for a in statuses.iter().filter(|a| at_activation(a)) {
                let clears = engine.ir.name_id(&a.status).and_then(|id| engine.ir.clears.get(&id));
                let cleared = clears.map_or(&[][..], Vec::as_slice).iter().filter(|c| c.event == m::Event::Activated).any(|c| {
                    match (&c.condition, &scene) {
                        (None, _) => true,
                        (Some(e), Some(scene)) => scene.holds(e, &[]),
                        (Some(_), None) => false,
                    }
                });
                if cleared {
                    gone.push(a.status);
                }
            }
        }
        self.state.rng = dice;
        if let Some(u) = self.state.units.get_mut(i) {
            u.statuses.retain(|a| !gone.contains(&a.status));
        }
        for status in gone {
            self.log.push(Record::Affliction { unit: i, status: status.to_string(), change: "wears off".into() });
        }
    }

    /// End of a unit's turn: terrain that heals at `end_of_turn` heals it.
    pub(super) fn end_of_turn(&mut self, i: usize) {
        if let Some(f) = self.state.units.get_mut(i) {
            let worn: Vec<Debuff> = f.debuffs.iter().filter(|d| d.armed).cloned().collect();
            f.debuffs.retain(|d| !d.armed);
            for d in worn {
                self.log.push(Record::Affliction {
                    unit: i,
                    status: format!("{}{:+}", d.attr, d.shift),
                    change: "wears off".into(),
                });
            }
        }
        let Some(u) = self.state.units.get(i) else { return };
        if u.state != State::Ready {
            return;
        }
        let heal = self.terrain_at(u.pos).and_then(|t| t.heal.clone()).filter(|h| h.event == m::Event::EndOfTurn);
        if let Some(h) = heal {
            let most = self.max_hp_now(i);
            if let Some(f) = self.state.units.get_mut(i) {
                let before = f.hp;
                f.hp = f.hp.saturating_add(h.amount).min(most);
                if f.hp != before {
                    let (amount, hp) = (f.hp.saturating_sub(before), f.hp);
                    self.log.push(Record::Recover { unit: i, amount, hp });
                }
            }
        }
    }

    /// The next activation: the other side if it has units waiting, else this side; a new round
    /// when nobody has.
    pub(super) fn advance(&mut self) {
        let side = self.state.to_act;
        if self.state.finished_first.is_none()
            && !self.waits(side)
            && !self.state.units.iter().all(|u| u.side != side || u.state != State::Ready)
        {
            self.state.finished_first = Some(side);
        }
        self.pick_next(side.other());
    }

    pub(super) fn end_round(&mut self) {
        // `on end_of_round`: every unit still in the battle, in order.
        for i in 0..self.state.units.len() {
            self.run_triggers(i, m::Event::EndOfRound);
        }
        // Regions held: no enemy of the holder on any of their tiles at the round's end.
        let map = std::sync::Arc::clone(&self.state.map);
        for r in &map.regions {
            for side in [m::SideId::Attacker, m::SideId::Defender] {
                let enemy_on =
                    self.state.units.iter().any(|u| u.side != side && u.state == State::Ready && r.tiles.contains(&u.pos));
                if let Some(held) = super::victory::Hold::entry(&mut self.state.held, side, &r.name) {
                    *held = if enemy_on { 0 } else { *held + 1 };
                }
            }
        }
        self.check_victory(None);
        if self.state.outcome.is_some() {
            return;
        }
        if self.scenario.rounds.is_some_and(|limit| self.state.round >= limit) {
            let outcome = self.scenario.on_time_limit;
            self.finish(outcome, "the time limit ran out".to_string());
            return;
        }
        // The side that finished activating first leads the next round (seed 000, Rounds).
        let first = self.state.finished_first.unwrap_or(self.state.first);
        self.state.round += 1;
        self.state.first = first;
        self.state.finished_first = None;
        for u in &mut self.state.units {
            u.activated = false;
            u.reverted = false;
        }
        self.lights_out();
        self.log.push(Record::Round { round: self.state.round, first });
        self.start_of_round();
        self.look();
        if !self.waits(m::SideId::Attacker) && !self.waits(m::SideId::Defender) {
            self.finish(m::Outcome::Draw, "no unit is left on the battlefield".to_string());
            return;
        }
        self.begin_round();
    }
}
