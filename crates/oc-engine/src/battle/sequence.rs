//! The sequence of play within an activation (seed 003: "A unit may take more than one Action
//! per activation round"; "An activated unit must perform its actions according to a strict
//! sequence of play": searching first, then declaring melee attacks, changing formation,
//! moving ...): a
//! tag's action with a `sequence` step is taken before the unit moves, in the same activation as
//! its move and its act. A turn lists them in `Turn::before`, in increasing steps, each step at
//! most once; such an action taken as the turn's act comes after them, and only in a turn that
//! does not move (it belongs before the move). Nothing here names an action: the steps are the
//! ruleset's.

use oc_model as m;

use super::{distance, neighbours, Act, Battle, BattleError, Rule, State, Tile, Turn};

impl<'e> Battle<'e> {
    /// What a player staging unit `i`'s actions `before` (the steps of its sequence, before
    /// the move) sees before its turn is played: a fork of the battle, on dice of its own
    /// (`seed`: none of the battle's own rolls is revealed), with the unit's activation begun
    /// and the steps taken as a turn takes them, and the steps' notes; or why the rules refuse
    /// them, as they would refuse the turn. The battle itself is unchanged.
    pub fn with_steps(&self, i: usize, before: &[Act], seed: u64) -> Result<(Battle<'e>, Vec<String>), BattleError> {
        let mut b = self.fork(Some(seed));
        if before.is_empty() {
            return Ok((b, Vec::new()));
        }
        let t = Turn { unit: i, before: before.to_vec(), ..Turn::default() };
        self.steps_may_begin(i, &t, false)?;
        b.begin_activation(i);
        let notes = b.before_move(i, &t)?;
        Ok((b, notes))
    }
}

impl Battle<'_> {
    /// Refuses turn `t`'s actions before the move where the unit takes none: in the middle of
    /// its activation (or the rest of a move that was held, `resumed`), or in a turn that makes
    /// no move (it declines, flees or rallies).
    pub(super) fn steps_may_begin(&self, i: usize, t: &Turn, resumed: bool) -> Result<(), BattleError> {
        let Some(u) = self.state.units.get(i).filter(|_| !t.before.is_empty()) else { return Ok(()) };
        if resumed || self.state.active.as_ref().is_some_and(|a| a.unit == i) {
            return Err(BattleError::refused(
                Rule::Turn,
                format!("{} takes its actions before the move only as its activation begins", u.name),
            ));
        }
        if u.morale.routing || matches!(t.act, Act::Decline | Act::Rally) {
            return Err(BattleError::refused(
                Rule::Turn,
                format!("{} takes no action before a move it does not make: it declines, flees or rallies", u.name),
            ));
        }
        Ok(())
    }

    /// The step of the sequence of unit `i`'s action with `verb` (of the tag `from`, if named):
    /// `None` where the action has none, or the unit has no such action.
    pub fn sequence_step(&self, i: usize, verb: m::Verb, from: Option<&str>) -> Option<i64> {
        self.actions(i).into_iter().find(|a| a.verb() == Some(verb) && from.is_none_or(|t| *a.tag == *t))?.action.sequence
    }

    /// The step of an act, where it is a special action with one.
    pub(super) fn act_step(&self, i: usize, act: &Act) -> Option<(i64, String)> {
        let Act::Special { verb, from, .. } = act else { return None };
        let step = self.sequence_step(i, *verb, from.as_deref())?;
        Some((step, from.as_ref().map_or_else(|| format!("{verb:?}"), |t| t.to_string())))
    }

    /// Takes turn `t`'s actions before the move, in order, after checking the sequence; their
    /// notes. Also refuses a turn whose act is a step of the sequence taken out of order: after
    /// the move, or not after the steps before it.
    pub(super) fn before_move(&mut self, i: usize, t: &Turn) -> Result<Vec<String>, BattleError> {
        let name = self.state.units.get(i).map(|u| u.name.clone()).unwrap_or_default();
        let mut last: Option<(i64, String)> = None;
        let mut notes = Vec::new();
        for act in &t.before {
            let Act::Special { verb, target, tile, from } = act else {
                return Err(BattleError::refused(
                    Rule::Turn,
                    format!(
                        "{name} takes only the actions of the sequence of play before its move, not {}",
                        super::turns::act_kind(act)
                    ),
                ));
            };
            let Some((step, label)) = self.act_step(i, act) else {
                let of = from.as_ref().map_or_else(|| format!("{verb:?}"), |t| t.to_string());
                return Err(BattleError::refused(
                    Rule::Turn,
                    format!("{name}'s action {of} has no step in the sequence of play (`sequence`): it is the turn's act, after the move"),
                ));
            };
            if let Some((before, was)) = &last {
                if step <= *before {
                    return Err(BattleError::refused(
                        Rule::Turn,
                        format!("{name} must take its actions in the sequence of play: {label} (step {step}) cannot follow {was} (step {before})"),
                    ));
                }
            }
            notes.push(self.special(i, (*verb, from.as_deref()), (*target, *tile), None)?);
            last = Some((step, label));
        }
        if let Some((step, label)) = self.act_step(i, &t.act) {
            let pos = self.state.units.get(i).map(|u| u.pos);
            if t.to.is_some_and(|to| Some(to) != pos) {
                return Err(BattleError::refused(
                    Rule::Turn,
                    format!("{name}'s {label} is step {step} of the sequence of play, before the move: take it before moving (`before`)"),
                ));
            }
            if let Some((before, was)) = last.filter(|(b, _)| *b >= step) {
                return Err(BattleError::refused(
                    Rule::Turn,
                    format!("{name} must take its actions in the sequence of play: {label} (step {step}) cannot follow {was} (step {before})"),
                ));
            }
        }
        Ok(notes)
    }

    /// The step of the sequence an AI takes before turn `t`, where it is cheap and plainly
    /// useful: of the unit's actions on itself with a `sequence` step whose first verb changes what
    /// it bears (a status laid or cleared, a debuff, a resource, a form), the one that, taken first
    /// (in a fork), leaves the turn's move in reach and most improves the exchange the turn
    /// looks to. Attacking: its chance to hit its target rises and the target's chance to hit it
    /// does not. Otherwise: the nearest enemy's chance to hit it (from where that enemy stands,
    /// or in contact where it cannot reach) falls and its own to hit that enemy does not. `None`
    /// where no step does, or the unit has none.
    pub fn useful_step(&self, t: &Turn) -> Option<Act> {
        let i = t.unit;
        // Of `actions(i)`, in its order, only those copied.
        let (mut steps, ir) = (Vec::new(), &self.engine.ir);
        self.each_action(i, |action, args, source, tag| {
            // Only a step that changes what the unit bears can change an exchange: a search,
            // say, is weighed by nobody here (and costs no fork a decision).
            let changes = matches!(
                action.verb,
                Some(m::Verb::Inflict | m::Verb::Cure | m::Verb::Clear | m::Verb::Debuff | m::Verb::Transform | m::Verb::Gain)
            );
            if action.sequence.is_some() && action.target == m::ActionTarget::SelfOnly && changes {
                steps.push(super::Available {
                    action: action.clone(),
                    args: args.to_vec(),
                    source: source.map(str::to_string),
                    tag: ir.atom(tag),
                });
            }
        });
        let u = self.state.units.get(i)?;
        if steps.is_empty() || !t.before.is_empty() || u.morale.routing {
            return None;
        }
        let at = t.to.unwrap_or(u.pos);
        let (foe, attacking) = match t.act {
            Act::Attack { target } => (target, true),
            _ => {
                let near = self
                    .state
                    .units
                    .iter()
                    .enumerate()
                    .filter(|(_, f)| f.side != u.side && f.state == State::Ready && self.sees(u.side, f.pos))
                    .min_by_key(|(k, f)| (distance(at, f.pos), *k))?;
                (near.0, false)
            }
        };
        let foe_at = self.state.units.get(foe)?.pos;
        // Its chance to hit the foe from `at`, and the foe's chance to hit it there.
        let odds = |b: &Battle<'_>| -> (f64, f64) {
            let mine = b.attack_forecast(i, at, foe, None).map_or(0.0, |f| f.attacker.hit);
            let contact = neighbours(at).into_iter().min_by_key(|n: &Tile| (distance(*n, foe_at), *n)).unwrap_or(at);
            let theirs = b
                .attack_forecast(foe, foe_at, i, None)
                .or_else(|_| b.attack_forecast(foe, contact, i, None))
                .map_or(0.0, |f| f.attacker.hit);
            (mine, theirs)
        };
        let mut here = self.fork(None);
        if let Some(f) = here.state.units.get_mut(i) {
            f.pos = at;
        }
        let (mine, theirs) = odds(&here);
        let mut best: Option<(f64, Act)> = None;
        for a in steps {
            let Some(verb) = a.verb() else { continue };
            let mut b = self.fork(None);
            if b.special(i, (verb, Some(a.tag.as_str())), (None, None), None).is_err() {
                continue;
            }
            if t.to.is_some_and(|to| to != u.pos && b.reachable(i).map_or(true, |r| !r.contains_key(&to))) {
                continue;
            }
            if let Some(f) = b.state.units.get_mut(i) {
                f.pos = at;
            }
            let (m2, t2) = odds(&b);
            let gain =
                if attacking { (t2 <= theirs + 1e-12).then_some(m2 - mine) } else { (m2 + 1e-12 >= mine).then_some(theirs - t2) };
            if let Some(gain) = gain.filter(|g| *g > 1e-9) {
                if best.as_ref().is_none_or(|(g, _)| gain > *g + 1e-9) {
                    best = Some((gain, Act::Special { verb, target: None, tile: None, from: Some(a.tag) }));
                }
            }
        }
        best.map(|(_, act)| act)
    }
}
