//! Reactive activation (the ruleset's `respond`, `oc_model::TurnRules::respond`): an attack a
//! unit declares on a target that may answer waits. The target's side plays the target's answer
//! at once: a whole activation of its own (whose own declared attack may be answered in turn: a
//! chain) or [`Act::Decline`], which keeps its activation for later. When the answering
//! activation ends, the declared attack resolves, the innermost of a chain first, and the
//! declarer's activation ends. Each answer is a logged turn, so a replay plays it again.
//!
//! An attack made after a move is declared before the move (seed 003's strict sequence: the
//! declaration is its step 2, the move step 4, combat step 6): the target answers while the
//! declarer still stands where its activation began, and the declarer's move and attack are
//! held ([`Declared::then`], [`Declared::before_move`]) and played once the answer ends, if the
//! rules still take them; else the declarer strikes from where it stands if they take that, or the
//! declaration lapses and it holds there ("The unit does not have to follow through on its
//! declaration"). The turn formula `declare_step` places the declaration among the steps of the
//! sequence taken before the move (`Turn::before`): the later ones wait with the move.

use oc_model as m;
use serde::{Deserialize, Serialize};

use super::log::Record;
use super::scene::Cast;
use super::{Act, Battle, BattleError, Rule, State, Tile, Turn};

/// How the log's turn line of an attack declared before the move ends ("declares an attack on X
/// before it moves, which may activate in answer"): a player's view reads no move in it.
pub const DECLARED_BEFORE_MOVE: &str = "before it moves, which may activate in answer";

/// The rest of an interrupted mover's turn (its act, equip, free actions), played once every
/// enemy its move came too near has answered: the movement points its move spent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Held {
    pub turn: Turn,
    pub moved: i64,
    /// Its act is an attack declared before the move (the rest of a declaration's turn).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub declared: bool,
}

/// An attack declared and waiting for its target's answer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Declared {
    /// The declaring unit and the unit it attacks.
    pub by: usize,
    pub target: usize,
    /// The declarer moved in the step that declared it (`attacker.moved`).
    pub moved: bool,
    /// The target's answer struck the declarer, and the declarer struck back in that combat:
    /// the declared attack was fought there (`Exchange::mutual`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub fought: bool,
    /// The rest of the declarer's turn, held until the target answers: where [`Self::before_move`],
    /// the move and the act of the declared attack; else this is no attack: the declarer's move
    /// came too near the target (the ruleset's `interrupt`), and this is the act after it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then: Option<Box<Held>>,
    /// The attack was declared before the declarer moved: `then` is its move and its attack.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub before_move: bool,
}

impl Declared {
    /// Whether this is a declared attack (answered as an attack: an answer striking the
    /// declarer is one combat with it), not a move that came too near.
    pub fn attack(&self) -> bool {
        // A move that came too near the very unit it declared its attack on: that unit's
        // activation now is its answer to the declaration.
        let on_target = |h: &Held| h.declared && matches!(h.turn.act, Act::Attack { target } if target == self.target);
        self.then.is_none() || self.before_move || self.then.as_deref().is_some_and(on_target)
    }
}

impl Battle<'_> {
    /// Whether the attack of unit `i` on `target`, made from `at` after a move of `moved`
    /// points, waits for the target's answer: the ruleset has `respond` and it holds, and the
    /// target is an enemy in the battle that has not activated this round (a declarer waiting
    /// for an answer has: its activation has begun).
    pub(super) fn answerable(&self, i: usize, target: usize, at: Tile, moved: i64, act: &Act) -> bool {
        let Some(respond) = &self.engine.ir.respond else { return false };
        let (Some(a), Some(d)) = (self.state.units.get(i), self.state.units.get(target)) else { return false };
        // A routing unit (courage) cannot answer: it only flees or rallies.
        if a.side == d.side || d.state != State::Ready || d.activated || d.morale.routing {
            return false;
        }
        let params = self.step_vars(i, at, moved, act).params();
        self.scene(Cast { user: i, ..Cast::default() }, None).is_some_and(|s| s.holds(respond, &params))
    }

    /// Unit `i` declares its attack on `target` (which the rules let it make where it stands):
    /// the attack waits for the target's answer, and the target's side acts next.
    pub(super) fn declare(&mut self, i: usize, target: usize, moved: bool) -> Result<String, BattleError> {
        let shown = self.attack_check(i, target)?.1.shown();
        self.state.pending.push(Declared { by: i, target, moved, fought: false, then: None, before_move: false });
        Ok(format!("declares an attack on {shown}, which may activate in answer"))
    }

    /// Whether unit `i`'s attack on `target`, to be made from `to` after a move of `moved`
    /// points with the turn's `equip` in hand, is declared before the unit moves: the target may
    /// answer it ([`Battle::answerable`], read for the step as planned: from `to`, after the
    /// move, with that weapon), and the rules would take the attack from there as things stand.
    pub(super) fn declared_before_move(&mut self, i: usize, target: usize, to: Tile, moved: i64, equip: Option<m::Atom>) -> bool {
        if self.engine.ir.respond.is_none() {
            return false;
        }
        let Some(u) = self.state.units.get_mut(i) else { return false };
        let kept = (u.pos, u.equipped);
        u.pos = to;
        if let Some(w) = equip.filter(|w| u.items.contains(w)) {
            u.equipped = Some(w);
        }
        let act = Act::Attack { target };
        let declared = self.answerable(i, target, to, moved, &act) && self.attack_check(i, target).is_ok();
        if let Some(u) = self.state.units.get_mut(i) {
            (u.pos, u.equipped) = kept;
        }
        declared
    }

    /// The actions of turn `t`'s sequence of play taken before its attack would be declared
    /// (`declare_step`: those up to that step), their notes, and the actions left for after the
    /// declaration; all of them taken, none left, where the turn may declare nothing before its
    /// move (no attack after a move, a resumed turn) or the ruleset gives no `declare_step`.
    pub(super) fn steps_before_declaring(
        &mut self,
        i: usize,
        t: &Turn,
        resumed: Option<i64>,
    ) -> Result<(Vec<String>, Vec<Act>), BattleError> {
        let pos = self.state.units.get(i).map(|u| u.pos);
        let n = match (&self.engine.ir.declare_step, &self.engine.ir.respond, &t.act, t.to, resumed) {
            (Some(f), Some(_), Act::Attack { .. }, Some(to), None) if Some(to) != pos && !t.before.is_empty() => {
                let params = self.step_vars(i, to, 0, &t.act).params();
                self.scene(Cast { user: i, ..Cast::default() }, None).map(|s| s.value(f, &params).int())
            }
            _ => None,
        };
        // Steps out of order, or an action of no step, are refused as every turn's are (all taken
        // at once, in order, by `before_move`).
        // Their steps are asked only where a declaration may split them (each asks the unit's
        // actions), once.
        let steps =
            n.and_then(|_| t.before.iter().map(|a| self.act_step(i, a).map(|(step, _)| step)).collect::<Option<Vec<i64>>>());
        let k = match (n, steps) {
            (Some(n), Some(steps)) if steps.windows(2).all(|w| w.first() < w.get(1)) => {
                // Up to the first action past the declaration's step.
                steps.iter().position(|step| *step > n).unwrap_or(steps.len())
            }
            _ => return Ok((self.before_move(i, t)?, Vec::new())),
        };
        let (first, then) = t.before.split_at(k);
        let notes = self.before_move(i, &Turn { before: first.to_vec(), ..t.clone() })?;
        Ok((notes, then.to_vec()))
    }

    /// What of turn `t` the rules refuse whatever the answer (a weapon or an item to drop the
    /// unit does not carry, a move after the attack), refused before it declares: a refused turn
    /// changes nothing, where after the answer the rest would only lapse.
    fn held_parts_carried(&self, i: usize, t: &Turn) -> Result<(), BattleError> {
        let Some(u) = self.state.units.get(i) else { return Err(BattleError::refused(Rule::NoUnit, format!("no unit {i}"))) };
        let mut items = u.items.clone();
        for item in t.equip.iter().chain(&t.discard) {
            let Some(k) = items.iter().position(|x| x == item) else {
                return Err(BattleError::not_carried(&u.name, item));
            };
            if t.equip.as_ref() != Some(item) {
                items.remove(k);
            }
        }
        if t.then_to.is_some() {
            return Err(BattleError::no_move_after_acting(&u.name));
        }
        Ok(())
    }

    /// Whether turn `t`'s attack is declared before its move ([`Battle::declared_before_move`]),
    /// for a unit standing at `pos` that may move (no enemy holds it, the move in reach).
    pub(super) fn declares_before_move(&mut self, i: usize, t: &Turn, pos: Tile) -> Result<bool, BattleError> {
        let (Act::Attack { target }, Some(to)) = (&t.act, t.to) else { return Ok(false) };
        if to == pos || self.engaged_by(i).is_some() {
            return Ok(false);
        }
        let Some(cost) = self.move_cost(i, to, Some(false))? else { return Ok(false) };
        Ok(self.declared_before_move(i, *target, to, cost, t.equip))
    }

    /// Unit `i` declares turn `t`'s attack before it moves: the rest of the turn (the steps of
    /// its sequence after the declaration's, `later`, its move, its act) is held until the
    /// target has answered or declined ([`Battle::resume`]), and the target's side acts next.
    /// `early`: the notes of the steps taken before it; `hp`: every unit's HP before them.
    pub(super) fn declare_before_move(
        &mut self,
        t: Turn,
        early: &[String],
        hp: &[i64],
        later: Vec<Act>,
    ) -> Result<(), BattleError> {
        let (i, Act::Attack { target }) = (t.unit, t.act.clone()) else { return Ok(()) };
        self.held_parts_carried(i, &t)?;
        let shown = self.state.units.get(target).map_or_else(|| format!("unit {target}"), |d| d.shown());
        let rest = Turn { before: later, ..t.clone() };
        let then = Some(Box::new(Held { turn: rest, moved: 0, declared: true }));
        self.state.pending.push(Declared { by: i, target, moved: false, fought: false, then, before_move: true });
        if let Some(f) = self.state.units.get_mut(i) {
            f.activated = true;
            // This activation is the "next turn" of debuffs laid before it (the held rest
            // continues it): they wear off when it ends.
            for d in &mut f.debuffs {
                d.armed = true;
            }
        }
        let declared = format!("declares an attack on {shown} {DECLARED_BEFORE_MOVE}");
        let note = early.iter().cloned().chain([declared]).collect::<Vec<_>>().join("; ");
        let (hp, routed, newly_routed) = self.mark_routed(hp);
        self.log.push(Record::Turn { round: self.state.round, turn: t, hp, routed, note });
        for k in newly_routed {
            self.run_triggers_against(k, m::Event::Routed, Some(i));
        }
        self.look();
        self.await_answer()
    }

    /// Where the declarer of an attack declared before its move that waits on `side`'s answer may
    /// strike from, as that side knows it: the declarer, and every tile of its reach as `side`
    /// sees it, not where it stands, from which its attack would have been declared so
    /// ([`Battle::declared_before_move`], with the weapon it declared with), in tile order. Which
    /// of them it means to take is its own side's secret until it moves (`oc play` shows none):
    /// the AIs' test moves it among them (`ai/sighting/tests.rs`). `None` where no such
    /// declaration waits on `side`.
    #[cfg(test)]
    pub(crate) fn declared_strikes_from(&self, side: m::SideId) -> Option<(usize, Vec<Tile>)> {
        let d = self.state.pending.last().filter(|d| d.before_move)?;
        let (by, target) = (self.state.units.get(d.by)?, self.state.units.get(d.target)?);
        if target.side != side || by.side == side {
            return None;
        }
        let (i, held) = (d.by, d.then.as_ref()?);
        let sight = self.sight(side);
        let reach = self.reachable_as_seen(i, &sight).ok()?;
        let seen_on = |t: Tile| {
            self.state
                .units
                .iter()
                .enumerate()
                .any(|(k, o)| o.state == State::Ready && o.pos == t && (o.side == side || sight.spots(k, t)))
        };
        // Read on a copy: each tile is tried with the declarer standing on it.
        let mut scratch = self.fork(None);
        let mut tiles: Vec<Tile> = reach
            .into_iter()
            .filter(|(t, _)| *t != by.pos && !seen_on(*t))
            .filter(|(t, cost)| scratch.declared_before_move(i, d.target, *t, *cost, held.turn.equip))
            .map(|(t, _)| t)
            .collect();
        tiles.sort_unstable();
        Some((i, tiles))
    }

    /// The held move of the attack declared before its move that waits for its answer goes to
    /// `to` instead, one of [`Battle::declared_strikes_from`].
    #[cfg(test)]
    pub(crate) fn guess_declared_move(&mut self, to: Tile) {
        let held = self.state.pending.last_mut().filter(|d| d.before_move).and_then(|d| d.then.as_mut());
        if let Some(h) = held {
            h.turn.to = Some(to);
        }
    }

    /// After a declaration: the target's side plays the target's answer.
    pub(super) fn await_answer(&mut self) -> Result<(), BattleError> {
        let side_of = |k: usize| self.state.units.get(k).map(|u| u.side);
        let Some((by, answers)) = self.state.pending.last().and_then(|d| Some((side_of(d.by)?, side_of(d.target)?))) else {
            return Ok(());
        };
        self.state.to_act = answers;
        // A move that declared may have won the battle (a region seized): it ends there.
        self.check_victory(Some(by));
        if self.state.outcome.is_some() {
            self.state.pending.clear();
        }
        Ok(())
    }

    /// The unit a declared attack waits on, if one does: the only unit that may act.
    pub fn answering(&self) -> Option<usize> {
        self.state.pending.last().map(|d| d.target)
    }

    /// The declared attack waiting for its target's answer, if one is (the innermost of a chain).
    pub fn declared(&self) -> Option<&Declared> {
        self.state.pending.last()
    }

    /// [`Act::Decline`]: the target of the last declared attack does not answer; the attack
    /// resolves and the target keeps its activation.
    pub(super) fn decline(&mut self, t: Turn) -> Result<(), BattleError> {
        let i = t.unit;
        if self.answering() != Some(i) {
            let name = self.state.units.get(i).map_or("the unit", |u| u.name.as_str());
            return Err(BattleError::refused(
                Rule::Turn,
                format!("no attack waits on {name}'s answer: only the target of a declared attack declines"),
            ));
        }
        self.log.push(Record::Turn {
            round: self.state.round,
            turn: t,
            hp: Vec::new(),
            routed: Vec::new(),
            note: "declines to activate".into(),
        });
        if !self.resolve_declared()? {
            self.advance();
        }
        Ok(())
    }

    /// The last declared attack, if any, resolves (its target has answered or declined), and
    /// its declarer's activation ends; `false` if none was waiting.
    pub(super) fn resolve_declared(&mut self) -> Result<bool, BattleError> {
        let Some(mut d) = self.state.pending.pop() else { return Ok(false) };
        if let Some(held) = d.then.take() {
            self.resume(d, *held)?;
            return Ok(true);
        }
        let Some(side) = self.state.units.get(d.by).map(|u| u.side) else { return Ok(false) };
        let before: Vec<i64> = self.state.units.iter().map(|f| f.hp).collect();
        let target = self.state.units.get(d.target).map_or_else(|| format!("unit {}", d.target), |f| f.name.clone());
        let note = if d.fought {
            format!("its attack on {} was fought in the answer", target)
        } else if self.state.units.get(d.by).is_none_or(|f| f.state != State::Ready) {
            format!("falls before its attack on {} resolves", target)
        } else if self.state.units.get(d.target).is_none_or(|f| f.state != State::Ready) {
            format!("its attack finds {} already gone", target)
        } else {
            // A target that moved off in its answer may be out of reach: the declaration lapses
            // ("The unit does not have to follow through on its declaration").
            match self.attack(d.by, d.target, d.moved) {
                Ok(note) => {
                    if let Some(at) = self.state.units.get(d.target).map(|f| f.pos) {
                        self.face(d.by, at);
                    }
                    self.run_triggers_against(d.by, m::Event::AfterAttack, Some(d.target));
                    note
                }
                Err(why) => format!("its attack on {} lapses: {why}", target),
            }
        };
        let (hp, routed, newly_routed) = self.mark_routed(&before);
        self.log.push(Record::Resolved { round: self.state.round, unit: d.by, target: d.target, hp, routed, note });
        for k in newly_routed {
            let foe = if k == d.by { Some(d.target) } else { Some(d.by) };
            self.run_triggers_against(k, m::Event::Routed, foe);
        }
        self.state.to_act = side;
        self.end_activation(d.by, side, true)?;
        Ok(true)
    }
}
