//! Units held in contact (the ruleset's `engaged`, `oc_model::TurnRules::engaged`; seed 003's
//! "disengage"): a unit an enemy holds may not move (its reach is its own tile) unless it is
//! routing; it leaves only by the `disengage` verb, which steps it away from the enemy holding
//! it with no strike on the way.

use super::scene::Cast;
use super::turns::StepVars;
use super::{distance, Act, Battle, State};

impl Battle<'_> {
    /// The nearest enemy (unit order on a tie), not hidden, for which `engaged` holds for unit
    /// `i` where it stands; `None` without `engaged`, for a routing unit, or where none does.
    pub fn engaged_by(&self, i: usize) -> Option<usize> {
        let f = self.engine.ir.engaged.as_ref()?;
        let u = self.state.units.get(i).filter(|u| u.state == State::Ready && !u.morale.routing)?;
        let cast = Cast { user: i, ..Cast::default() };
        // Where `engaged` reads none of the units (`advanced::Laws`), it holds or not without
        // them: the unit's scene is built only where it holds for an enemy.
        let bare = self.laws.engaged_bare;
        let stage = self.stage(cast)?;
        let scene = if bare { None } else { Some(self.scene(cast, None)?) };
        let holds = |range: i64| {
            let params = StepVars { range, ..StepVars::default() }.params();
            match &scene {
                Some(scene) => scene.holds(f, &params),
                None => self.holds_unbuilt(stage, f, &params),
            }
        };
        let mut holders: Vec<(i64, usize)> = self
            .state
            .units
            .iter()
            .enumerate()
            .filter(|(k, e)| e.side != u.side && e.state == State::Ready && !self.hidden(*k))
            .map(|(k, e)| (distance(u.pos, e.pos), k))
            .filter(|(range, _)| holds(*range))
            .collect();
        holders.sort_unstable();
        let (_, k) = holders.first()?;
        if bare && self.scene(cast, None).is_none() {
            return None;
        }
        Some(*k)
    }

    /// The `disengage` verb: unit `i` steps up to `squares` squares away from the enemy holding
    /// it (as a unit made to flee, straight on where it can). What the log says, or why not.
    pub(super) fn disengage(&mut self, i: usize, squares: i64) -> Result<String, String> {
        let Some(k) = self.engaged_by(i) else {
            return Err("no enemy holds it (the ruleset's `engaged`): it may simply move".into());
        };
        let (Some(from), Some(name)) = (self.state.units.get(k).map(|e| e.pos), self.state.units.get(k).map(|e| e.name.clone()))
        else {
            return Err("no enemy".into());
        };
        let at = self.state.units.get(i).map(|u| u.pos);
        let (notes, to) = self.flee(i, from, squares);
        if Some(to) == at {
            return Err(format!("it has nowhere to step back from {name}"));
        }
        let rest = notes.iter().map(|n| format!("; {n}")).collect::<String>();
        Ok(format!("disengages from {name} to {to:?}{rest}"))
    }

    /// The action by which unit `i`, held where it stands, would disengage (what an AI plays
    /// instead of waiting in contact): the first of its actions taking no target that the rules
    /// accept. `None` where no enemy holds it or it has none.
    pub fn disengaging(&self, i: usize) -> Option<Act> {
        self.engaged_by(i)?;
        for a in self.actions(i) {
            let Some(verb) = a.verb().filter(|v| *v == oc_model::Verb::Disengage) else { continue };
            let mut b = self.fork(None);
            if b.special(i, (verb, Some(a.tag.as_str())), (None, None), None).is_ok() {
                return Some(Act::Special { verb, target: None, tile: None, from: Some(a.tag) });
            }
        }
        None
    }
}
