//! A move that comes too near (the ruleset's `interrupt` and `opportunity`,
//! `oc_model::TurnRules`). When a unit's move ends, each enemy for which `opportunity` holds
//! strikes it at once (a braced unit's target of opportunity: its attack, no answer); then each
//! enemy that has not activated this round and for which `interrupt` holds may activate before
//! the mover acts, the nearest first. The mover's act waits (a [`Held`] on the stack of answers
//! declare.rs keeps) and is played when the last of them has answered or declined, if it still
//! may be: else it lapses. Both formulas read the step of an attack by the watcher (`self`) on
//! the mover from where the watcher stands: `range` is how near the mover came.

use super::declare::{Declared, Held};
use super::log::Record;
use super::scene::Cast;
use super::{distance, Act, Battle, BattleError, State, Turn};

/// What an attack meets before it is fought ([`Battle::before_the_attack`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Before {
    /// The enemies that strike the attacker at once as its move ends (`opportunity`).
    pub opportunity: Vec<usize>,
    /// The enemies that may activate before it acts (`interrupt`).
    pub interrupt: Vec<usize>,
    /// Whether the target may activate in answer (`respond`).
    pub answers: bool,
}

impl Battle<'_> {
    /// The enemies of unit `i` (standing where its move ended) for which the turn formula `f`
    /// holds, the nearest first (unit order on a tie); `fresh`: only those that have not
    /// activated this round. Routing units never qualify. `bare`: `f` reads none of the units
    /// (`advanced::Laws`), so it holds or not without them, and the watcher's scene is built
    /// only where it holds (a unit with no scene never watches).
    fn watchers(&self, i: usize, f: Option<&crate::ir::E>, bare: bool, fresh: bool) -> Vec<usize> {
        let Some(f) = f else { return Vec::new() };
        let Some(mover) = self.state.units.get(i) else { return Vec::new() };
        let mut out: Vec<(i64, usize)> = Vec::new();
        for (k, w) in self.state.units.iter().enumerate() {
            if w.side == mover.side || !w.may_watch(fresh) {
                continue;
            }
            let params = self.step_vars(k, w.pos, 0, &Act::Attack { target: i }).params();
            if self.holds_in(Cast { user: k, ..Cast::default() }, f, &params, bare) {
                out.push((distance(w.pos, mover.pos), k));
            }
        }
        out.sort();
        out.into_iter().map(|(_, k)| k).collect()
    }

    /// At each distance from 0 to `most`, whether enemy `k` would strike unit `i` at once were
    /// `i`'s move to end that many tiles from it (`opportunity`, as
    /// [`Battle::opportunity_strikes`] reads it once the move has ended, `range` the distance):
    /// what an AI weighs of a tile before it moves there. Empty without `opportunity`, and for a
    /// unit that does not stand or is routing (it strikes at none).
    pub(crate) fn opportunity_ranges(&self, k: usize, i: usize, most: i64) -> Vec<bool> {
        self.watch_ranges(k, i, most, (self.engine.ir.opportunity.as_ref(), self.laws.opportunity_bare, false))
    }

    /// [`Battle::opportunity_ranges`] for `interrupt`: whether enemy `k` may activate before
    /// unit `i` acts were `i`'s move to end that many tiles from it ([`Battle::interrupters`]);
    /// empty for one that has activated this round.
    pub(crate) fn interrupt_ranges(&self, k: usize, i: usize, most: i64) -> Vec<bool> {
        self.watch_ranges(k, i, most, (self.engine.ir.interrupt.as_ref(), self.laws.interrupt_bare, true))
    }

    /// At each distance from 0 to `most`, whether the turn formula `f` holds for watcher `k` of
    /// mover `i` as [`Battle::watchers`] asks it (`bare`, `fresh` as there), `range` that
    /// distance: the step and its scene made once for every distance.
    fn watch_ranges(&self, k: usize, i: usize, most: i64, (f, bare, fresh): (Option<&crate::ir::E>, bool, bool)) -> Vec<bool> {
        let Some(f) = f else { return Vec::new() };
        let Some(w) = self.state.units.get(k).filter(|w| w.may_watch(fresh)) else { return Vec::new() };
        let vars = self.step_vars(k, w.pos, 0, &Act::Attack { target: i });
        let at = |range: i64| super::StepVars { range, ..vars }.params();
        let cast = Cast { user: k, ..Cast::default() };
        // As `holds_in` asks it: where `f` reads no unit, on the stage (the scene only built,
        // once, to be there).
        if bare {
            let Some(stage) = self.stage(cast).filter(|_| self.scene(cast, None).is_some()) else { return Vec::new() };
            (0..=most).map(|r| self.holds_unbuilt(stage, f, &at(r))).collect()
        } else {
            let Some(scene) = self.scene(cast, None) else { return Vec::new() };
            (0..=most).map(|r| scene.holds(f, &at(r))).collect()
        }
    }

    /// After unit `i`'s move: the strikes of opportunity on it (`opportunity`), each enemy's
    /// attack where it may make it. Returns their notes.
    pub(super) fn opportunity_strikes(&mut self, i: usize) -> Vec<String> {
        let mut notes = Vec::new();
        for k in self.watchers(i, self.engine.ir.opportunity.as_ref(), self.laws.opportunity_bare, false) {
            if self.state.units.get(i).is_none_or(|u| u.state != State::Ready || u.hp <= 0) {
                break;
            }
            if self.attack_check(k, i).is_err() {
                continue;
            }
            let name = self.state.units.get(k).map(|f| f.name.clone()).unwrap_or_default();
            if let Some(at) = self.state.units.get(i).map(|f| f.pos) {
                self.face(k, at);
            }
            if let Ok(note) = self.exchange_full(k, i, super::attack::Blow::default()) {
                notes.push(format!("{name} strikes at a target of opportunity: {note}"));
            }
        }
        notes
    }

    /// What an attack of unit `i` on `target` from `to` (after a move there, where `to` is not
    /// where it stands) meets before it is fought, as a forecast warns of it: the enemies that
    /// strike it at once as its move ends there (`opportunity`), those that may activate before
    /// it acts (`interrupt`), nearest first, and whether the target may activate in answer
    /// (`respond`: its attack may strike first). Worked out on a copy standing the unit at `to`.
    /// The move's cost is read as the unit's side sees the field (`sight`): read in truth, a
    /// unit out of sight in the way changed what the forecast said.
    pub fn before_the_attack(&self, i: usize, to: super::Tile, target: usize, sight: &super::Sight) -> Before {
        let moved = match self.state.units.get(i) {
            Some(u) if u.pos != to => self.reachable_as_seen(i, sight).ok().and_then(|r| r.get(&to).copied()).unwrap_or(0),
            _ => 0,
        };
        let mut copy = self.fork(Some(0));
        if let Some(u) = copy.state.units.get_mut(i) {
            u.pos = to;
        }
        let watching = |f: Option<&crate::ir::E>, bare: bool, fresh: bool| {
            if moved == 0 {
                return Vec::new();
            }
            copy.watchers(i, f, bare, fresh).into_iter().filter(|k| copy.attack_check(*k, i).is_ok() || fresh).collect()
        };
        Before {
            opportunity: watching(self.engine.ir.opportunity.as_ref(), self.laws.opportunity_bare, false),
            interrupt: watching(self.engine.ir.interrupt.as_ref(), self.laws.interrupt_bare, true),
            answers: copy.answerable(i, target, to, moved, &Act::Attack { target }),
        }
    }

    /// After unit `i`'s move: the enemies that may interrupt it (`interrupt`), nearest first.
    pub(super) fn interrupters(&self, i: usize) -> Vec<usize> {
        self.watchers(i, self.engine.ir.interrupt.as_ref(), self.laws.interrupt_bare, true)
    }

    /// Unit `i`'s move came too near `watchers`: the rest of its turn waits on each one's
    /// answer, the nearest first (on top), and the first one's side acts next.
    pub(super) fn interrupt(&mut self, i: usize, watchers: &[usize], held: Held) -> String {
        for &k in watchers.iter().rev() {
            self.state.pending.push(Declared {
                by: i,
                target: k,
                moved: held.moved > 0,
                fought: false,
                then: Some(Box::new(held.clone())),
                before_move: false,
            });
        }
        if let Some(f) = self.state.units.get_mut(i) {
            f.activated = true;
        }
        if let Some(side) = watchers.first().and_then(|k| self.state.units.get(*k)).map(|u| u.side) {
            self.state.to_act = side;
        }
        let names: Vec<String> = watchers.iter().filter_map(|k| self.state.units.get(*k)).map(|u| u.name.clone()).collect();
        format!("comes too near {}, which may activate first", names.join(" and "))
    }

    /// An interruption `d` has been answered: the next enemy the move came too near answers,
    /// or, when none is left, the mover's held act is played (or lapses). Likewise an attack
    /// declared before the move (declare.rs): its move and attack are played once the target
    /// has answered, unless the answer fought it (the target struck the declarer, who struck
    /// back: the declared attack is over).
    pub(super) fn resume(&mut self, d: Declared, held: Held) -> Result<(), BattleError> {
        let i = d.by;
        while let Some(next) = self.state.pending.last_mut() {
            if next.by != i || next.then.is_none() || next.before_move {
                break;
            }
            // A declared attack fought in one of the answers stays fought through the others.
            next.fought |= d.fought;
            let k = next.target;
            match self.state.units.get(k) {
                Some(w) if w.state == State::Ready && !w.activated && !w.morale.routing => {
                    self.state.to_act = w.side;
                    return Ok(());
                }
                _ => {
                    self.state.pending.pop();
                }
            }
        }
        let Some(side) = self.state.units.get(i).map(|u| u.side) else { return Ok(()) };
        self.state.to_act = side;
        let standing = self.state.units.get(i).is_some_and(|u| u.state == State::Ready && !u.morale.routing);
        // The unit its held act attacks (the one it declared on), else the one it came near.
        let on = match held.turn.act {
            Act::Attack { target } => target,
            _ => d.target,
        };
        let target = self.state.units.get(on).map_or_else(|| format!("unit {on}"), |f| f.name.clone());
        let note = if standing && d.fought {
            format!("its attack on {target} was fought in the answer")
        } else if standing {
            let (saved, at) = (self.state.clone(), self.log.len());
            let lead = if d.before_move {
                format!("plays its move and attack once {target} has answered")
            } else {
                "acts once the units it came too near have answered".to_string()
            };
            match self.turn_inner(held.turn.clone(), Some(held.moved), held.declared) {
                Ok(()) => {
                    self.held_played(i, d.target, at, &lead);
                    return Ok(());
                }
                Err(why) if d.before_move => {
                    self.state = saved.clone();
                    self.log.truncate(at);
                    // The held move refused (the answer took its tile, or came up to it and holds
                    // it in contact), or the attack from there: it strikes from where it stands
                    // where the rules take that, else the declaration lapses.
                    let standing_turn = Turn { to: None, ..held.turn };
                    match self.turn_inner(standing_turn, Some(0), true) {
                        Ok(()) => {
                            let lead = format!("attacks from where it stands once {target} has answered ({why})");
                            self.held_played(i, d.target, at, &lead);
                            return Ok(());
                        }
                        Err(_) => {
                            self.state = saved;
                            self.log.truncate(at);
                            format!("its attack on {target} lapses and it holds where it stands: {why}")
                        }
                    }
                }
                Err(why) => {
                    self.state = saved;
                    self.log.truncate(at);
                    format!("its act lapses: {why}")
                }
            }
        } else if d.before_move {
            format!("falls or routs before its attack on {target} resolves")
        } else {
            "falls or routs before it acts".to_string()
        };
        self.log.push(Record::Resolved {
            round: self.state.round,
            unit: i,
            target: d.target,
            hp: Vec::new(),
            routed: Vec::new(),
            note,
        });
        self.end_activation(i, side, true)
    }
}

impl Battle<'_> {
    /// The held rest of unit `i`'s turn was played from log record `at` on: its turn record is
    /// logged as the outcome of `target`'s answer (a `resolved` line led by `lead`), not a turn:
    /// a replay plays the mover's turn once, whole.
    fn held_played(&mut self, i: usize, target: usize, at: usize, lead: &str) {
        let k = self.log.iter().skip(at).position(|r| matches!(r, Record::Turn { turn, .. } if turn.unit == i));
        if let Some(r) = k.and_then(|k| self.log.get_mut(at + k)) {
            if let Record::Turn { round, hp, routed, note, .. } = r.clone() {
                let note = format!("{lead}: {note}");
                *r = Record::Resolved { round, unit: i, target, hp, routed, note };
            }
        }
    }
}

impl Battle<'_> {
    /// The action that readies unit `i` to strike where it stands after moving to `at` (what an
    /// AI plays there instead of waiting): the first of its actions taking no target after
    /// which the ruleset's `opportunity` would hold for it against an enemy that can end its
    /// next move where the unit would strike it (as near as the enemy's movement points bring
    /// it); under fog, one its side sees, or one out of its sight coming from the open tile out
    /// of sight nearest `at`. `None` without `opportunity`, or where none does.
    pub fn readying(&self, i: usize, at: super::Tile) -> Option<Act> {
        let f = self.engine.ir.opportunity.as_ref()?;
        let side = self.state.units.get(i)?.side;
        // The enemies and how near each can come to `at` (at least contact). Under fog an AI
        // weighs what its side knows: an enemy it sees from where it stands, and one out of its
        // sight from the nearest open tile out of sight. Reading: seed 003's "brace [ready to
        // attack targets of opportunity]" says nothing of what a side knows in the dark; it
        // knows how many enemies stand, not where, so one may come from the nearest tile it
        // could stand on unseen.
        let sight = self.sight(side);
        // The nearest open tile out of sight, read once an enemy out of sight is met (never
        // without fog: every enemy is in sight).
        let dark = std::cell::OnceCell::new();
        let near: Vec<(usize, i64)> = (0..self.state.units.len())
            .filter_map(|k| {
                let e = self.state.units.get(k).filter(|e| e.side != side && e.state == State::Ready)?;
                // One out of sight moves as far as its side can tell: with the statuses (less
                // those worn off since) and the kit it was last seen with (`Battle::glimpse`),
                // or, never seen, with none and what it deployed with (what it gave up in the
                // dark is not known).
                let (from, mobility) = if sight.spots(k, e.pos) {
                    (distance(at, e.pos), self.mobility(k))
                } else {
                    let from = (*dark.get_or_init(|| self.nearest_dark(&sight, at)))?;
                    (from, self.mobility_as_seen(k, self.glimpse(side, k)))
                };
                let points = mobility.map_or(0, |m| m.0);
                Some((k, (from - points).max(1)))
            })
            .collect();
        // The unit's scene is the same against each enemy: made once a battle.
        let holds = |b: &Battle<'_>| {
            let Some(scene) = b.scene(Cast { user: i, ..Cast::default() }, None) else { return false };
            near.iter().any(|(k, range)| {
                let mut vars = b.step_vars(i, at, 0, &Act::Attack { target: *k });
                vars.range = *range;
                scene.holds(f, &vars.params())
            })
        };
        if near.is_empty() {
            return None;
        }
        // The unit's own actions (where it stands: the same as where its move ends, listed so).
        // With none that has a verb, none is tried: nothing readies it, whether or not it is ready.
        let own = self.action_verb_tags(i);
        if own.iter().all(|(verb, _)| verb.is_none()) {
            return None;
        }
        // Each action is tried on a copy of the battle with the unit on `at` (copied into the
        // last one's: a decision weighs this for each unit, and the units' lists are reused); the
        // first copy, before its action, is the battle as it would stand there (`here`), weighed
        // first and its actions listed once (each copy has the actions it has).
        let mut copy = None;
        let mut available = None;
        let found = 'found: {
            for (verb, tag) in own {
                let Some(verb) = verb else { continue };
                let b = self.fork_into(&mut copy);
                if let Some(u) = b.state.units.get_mut(i) {
                    u.pos = at;
                }
                if available.is_none() {
                    if holds(b) {
                        break 'found None;
                    }
                    available = Some(b.actions(i));
                }
                let available = available.as_deref().unwrap_or_default();
                if b.special_among(i, available, (verb, Some(tag.as_str())), (None, None), None).is_ok() && holds(b) {
                    break 'found Some(Act::Special { verb, target: None, tile: None, from: Some(tag) });
                }
            }
            None
        };
        Battle::spare(copy);
        found
    }

    /// Under fog, how far from `at` the nearest open tile out of `sight` is: where an enemy out
    /// of sight may stand, as near as its side can tell. `None` where every open tile is in sight.
    fn nearest_dark(&self, sight: &super::Sight, at: super::Tile) -> Option<i64> {
        let (width, height) = (self.map.width.max(0), self.map.height.max(0));
        (0..height)
            .flat_map(|y| (0..width).map(move |x| (x, y)))
            .filter(|t| !sight.sees(*t) && self.open(*t))
            .map(|t| distance(at, t))
            .min()
    }
}

impl super::Combatant {
    /// Whether it may strike or activate at a move that comes near ([`Battle::watchers`]): it
    /// stands and is not routing, and where `fresh`, has not activated this round.
    fn may_watch(&self, fresh: bool) -> bool {
        self.state == State::Ready && !self.morale.routing && !(fresh && self.activated)
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use crate::battle::{Affliction, Battle};

    /// Bracing weighs an enemy out of sight as its side last saw it (`Battle::glimpse`): seen
    /// in a phalanx (seed 003's formations, movement -2), it comes no nearer than two tiles from
    /// the dark (four tiles off, under `fog vision 3`, movement 4), and nothing readies our
    /// savage to strike it; never seen, it walks its full four and bracing readies. (The battle
    /// kept no memory of what a side saw: it read every enemy out of sight as it deployed.)
    #[test]
    fn bracing_reads_what_its_side_saw_of_an_enemy_in_the_dark() {
        let savage = "unit Brave: Savage { items Shortsword }";
        let (engine, map) =
            crate::testing::duel(&["...................."; 7], "std:battlestorm", "    fog vision 3\n", [savage, savage]);
        let phalanx = crate::Atom::new("Phalanx");
        let fresh = || Battle::duel(&engine, &map, 1);
        let b = fresh();
        let side = b.state.units[0].side;
        assert!(b.glimpse(side, 1).is_none(), "the foe deploys out of sight");
        assert!(b.readying(0, (1, 1)).is_some(), "never seen, it may come into reach");
        // Seen in a phalanx, then gone into the dark.
        let mut b = fresh();
        b.state.units[1].pos = (3, 1);
        b.state.units[1].statuses.push(Affliction { status: phalanx, left: None });
        b.look();
        assert!(b.glimpse(side, 1).is_some_and(|g| g.statuses.iter().any(|a| a.status == phalanx)));
        b.state.units[1].pos = (18, 1);
        assert!(!b.sight(side).spots(1, (18, 1)));
        assert_eq!(b.readying(0, (1, 1)), None, "seen in a phalanx, it comes no nearer than two tiles");
    }
}
