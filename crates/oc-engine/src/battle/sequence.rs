//! The sequence of play within an activation (seed 003: "A unit may take more than one Action
//! per activation round"; "An activated unit must perform its actions according to a strict
//! sequence of play: 1. Search 2. Declare Melee Attacks 3. Change Formation 4. Move ..."): a
//! tag's action with a `sequence` step is taken before the unit moves, in the same activation as
//! its move and its act. A turn lists them in `Turn::before`, in increasing steps, each step at
//! most once; such an action taken as the turn's act comes after them, and only in a turn that
//! does not move (it belongs before the move). Nothing here names an action: the steps are the
//! ruleset's.

use oc_model as m;

use super::{Act, Battle, BattleError, Rule, Turn};

impl Battle<'_> {
    /// The step of the sequence of unit `i`'s action with `verb` (of the tag `from`, if named):
    /// `None` where the action has none, or the unit has no such action.
    pub fn sequence_step(&self, i: usize, verb: m::Verb, from: Option<&str>) -> Option<i64> {
        self.actions(i).into_iter().find(|a| a.verb() == Some(verb) && from.is_none_or(|t| *a.tag == *t))?.action.sequence
    }

    /// The step of an act, where it is a special action with one.
    fn act_step(&self, i: usize, act: &Act) -> Option<(i64, String)> {
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
}
