//! The general walk's strike from one state by runs of outcomes (`Strategy::effect_runs`):
//! where the state after a strike follows from its [`Effect`] (no trigger fires on it, or those
//! that do read nothing an outcome changes but which of them fire), outcomes in a row with one
//! effect lead to one state. Their effects and runs follow from the outcomes, the striking side,
//! the hit points struck from and whether triggers fire: worked out once for those ([`Runs`],
//! kept on the thread by the outcomes' list, as `plain.rs` keeps its rows) and not outcome by
//! outcome at every state. Each effect's state is made once a state, from the first outcome
//! that shows it, and every run's weights are added to it in the outcomes' order: the same
//! states, the same additions in the same order as outcome by outcome, the same bits.

use std::sync::Arc;

use smallvec::SmallVec;

use super::play::{dealt_effect, Effect};
use super::{Exchange, OutcomeList, Outcomes, State};
use crate::fx::{FastMap, Tally};

/// A strike's outcomes from one state in runs with one effect: each distinct effect in the
/// order first shown, and where each run ends with its effect's place among them.
struct Runs {
    effects: Vec<Effect>,
    runs: Vec<(u32, u16)>,
    /// Each outcome's weight (`plain::counts`).
    counts: Box<[f64]>,
}

impl Runs {
    fn new(hp: [i64; 2], side: usize, blind: bool, outcomes: &Outcomes) -> Option<Runs> {
        let mut effects: Vec<Effect> = Vec::new();
        let mut runs: Vec<(u32, u16)> = Vec::new();
        for (k, &(_, o)) in (1u32..).zip(outcomes.list.iter()) {
            let e = dealt_effect(hp, side, o, blind);
            let place = match runs.last() {
                Some(&(_, last)) if effects.get(last as usize) == Some(&e) => last,
                _ => {
                    let place = effects.iter().position(|x| *x == e).unwrap_or_else(|| {
                        effects.push(e);
                        effects.len() - 1
                    });
                    u16::try_from(place).ok()?
                }
            };
            match runs.last_mut() {
                Some((end, last)) if *last == place => *end = k,
                _ => runs.push((k, place)),
            }
        }
        Some(Runs { effects, runs, counts: super::plain::counts(outcomes) })
    }
}

/// A thread's runs by the outcomes' list (its place: the entry holds the list), the hit points,
/// the side and whether triggers fire; how many outcomes the lists held count, and the IR they
/// are of (another's start the table over: its lists would only be carried, as `oc fairness`
/// goes from scenario to scenario on the same threads).
type Kept = (FastMap<(usize, [i64; 2], u8, bool), (OutcomeList, Arc<Runs>)>, usize, u64);

thread_local! {
    static KEPT: std::cell::RefCell<Kept> = std::cell::RefCell::new((FastMap::default(), 0, 0));
}

/// The most outcomes the lists a thread's runs hold may count; past it the runs start over.
const KEPT_MAX: usize = 1 << 20;

/// The runs of a strike by `side` from `hp` with `outcomes`: kept, or worked out (and kept).
fn runs_of(ir: u64, hp: [i64; 2], side: usize, blind: bool, outcomes: &Outcomes) -> Option<Arc<Runs>> {
    let key = (Arc::as_ptr(&outcomes.list) as *const u8 as usize, hp, side as u8, blind);
    let kept = KEPT
        .try_with(|k| k.try_borrow().ok().filter(|k| k.2 == ir).and_then(|k| k.0.get(&key).map(|(_, r)| r.clone())))
        .ok()
        .flatten();
    if let Some(r) = kept {
        return Some(r);
    }
    let runs = Arc::new(Runs::new(hp, side, blind, outcomes)?);
    let _ = KEPT.try_with(|k| {
        let Ok(mut k) = k.try_borrow_mut() else { return };
        let (table, held, of) = &mut *k;
        let size = outcomes.list.len().max(1);
        if *held + size > KEPT_MAX || *of != ir {
            table.clear();
            *held = 0;
            *of = ir;
        }
        *held += size;
        table.insert(key, (outcomes.list.clone(), runs.clone()));
    });
    Some(runs)
}

impl Exchange<'_> {
    /// The strike by `side` from `state` (with chance `p`) into `next`, by runs of outcomes with
    /// one effect (see the module's note); `false` (nothing added) where it has none.
    pub(super) fn strike_by_runs(
        &self,
        state: &State,
        side: usize,
        p: f64,
        blind: bool,
        outcomes: &Outcomes,
        next: &mut Tally<State>,
    ) -> bool {
        let Some(runs) = runs_of(self.engine.ir.id, state.hp, side, blind, outcomes) else { return false };
        let faces = outcomes.den;
        let counts = &runs.counts[..];
        // Where each effect's state is in `next`, once made.
        let mut placed: SmallVec<[usize; 16]> = smallvec::smallvec![usize::MAX; runs.effects.len()];
        let mut from = 0usize;
        for &(end, effect) in &runs.runs {
            let (first, end) = (from, end as usize);
            from = end;
            let Some(slot) = placed.get_mut(effect as usize) else { continue };
            let rest = if *slot == usize::MAX {
                let (Some(&(count, o)), Some(rest)) = (outcomes.list.get(first), counts.get(first + 1..end)) else { continue };
                let (after, _) = self.after_strike(state, side, o, outcomes.reaction);
                *slot = next.add_at(after, p * count / faces);
                rest
            } else {
                counts.get(first..end).unwrap_or_default()
            };
            next.update(*slot, |w| super::plain::summed(w, p, faces, rest));
        }
        true
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::{Engine, Loadout};

    /// Every matchup of every built-in ruleset (units of figures too) walked by the general loop
    /// with strikes by runs and outcome by outcome: the same bits.
    #[test]
    fn strikes_by_runs_equal_strikes_outcome_by_outcome() {
        for (name, index) in oc_compiler::stdlib::RULESETS {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let mut runs = Engine::new(rules.clone()).expect("runs");
            runs.ir.strategy.plain_walks = false;
            let mut each = Engine::new(rules).expect("runs");
            each.ir.strategy.plain_walks = false;
            each.ir.strategy.effect_runs = false;
            let mut compared = 0;
            for (fa, fd) in [(1, 1), (3, 5)] {
                for (label, a, d, r) in crate::testing::matchups(&runs).into_iter().step_by(if fa == 1 { 1 } else { 5 }) {
                    let (a, d) = (Loadout { figures: fa, ..a }, Loadout { figures: fd, ..d });
                    let (Ok(x), Ok(y)) = (runs.forecast(&a, &d, r), each.forecast(&a, &d, r)) else { continue };
                    assert_eq!(x.bits(), y.bits(), "{name}: {label} ({fa}) against {} ({fd}, hp {:?})", d.class, d.hp);
                    compared += 1;
                }
            }
            assert!(compared > 100, "{name}: {compared} matchups");
        }
    }
}
