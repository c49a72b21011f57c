//! A matchup's plan: what the forecast of a plain exchange (`plain.rs`) reads, compiled for each
//! (attacker, defender, distance) an engine forecasts more than once: the strikers in order, each
//! striking side's outcomes (once where working them out read no hit points, else at each pair
//! of hit points the walk strikes at), the hit points the strikes begin from, and what the
//! forecast shows of each side before the dice. Asked again, the forecast is the exact walk over
//! the plan (`plain::run`): no unit looked up, no rule evaluated, no flag or outcome remembered
//! by state. The same walk over the same outcomes in the same order, so the same bits
//! (`tests::planned_forecasts_equal_worked_out_ones`).
//!
//! An exchange that is not plain (reactions, triggers on a strike, several attack forms, both
//! sides at once, an order of strikes that reads hit points) has no plan: it is worked out the
//! general way each time.

use super::plain::{run, AtHp, Plain};
use super::play::assemble;
use super::{Forecast, Outcomes, SideForecast};
use std::sync::Arc;

/// A plain exchange's forecast, compiled (see the module's note).
pub(crate) struct Plan {
    strikers: Box<[u8]>,
    outcomes: [Option<Arc<Outcomes>>; 2],
    /// A side's outcomes that read hit points, at each (side, hit points) the walk strikes at.
    by_hp: Box<[AtHp]>,
    /// The hit points the strikes begin from (after `on attacked`), and those the units had.
    from: [i64; 2],
    start: [i64; 2],
    distance: i64,
    sides: [SideForecast; 2],
}

impl Plan {
    pub(super) fn new(plain: Plain, from: [i64; 2], start: [i64; 2], distance: i64, sides: [SideForecast; 2]) -> Plan {
        Plan { strikers: plain.strikers, outcomes: plain.fixed, by_hp: plain.by_hp, from, start, distance, sides }
    }

    /// The forecast: the walk over the plan (`None` only where a striker's outcomes are
    /// missing, which [`Plain`] never leaves: the walk strikes where it struck as it was made).
    pub(crate) fn forecast(&self) -> Option<Forecast> {
        let fixed = self.outcomes.each_ref().map(|o| o.as_deref());
        let mut missing = false;
        let done = run(self.from, &self.strikers, fixed, &mut |side, hp| match self
            .by_hp
            .iter()
            .find(|(s, at, _)| *s as usize == side && *at == hp)
        {
            Some((_, _, o)) => o.clone(),
            None => {
                missing = true;
                Arc::new(Outcomes { den: 1.0, list: Arc::from([]), reaction: None })
            }
        })?;
        (!missing).then(|| assemble(&done, self.start, self.distance, self.sides.clone()))
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::Engine;

    /// Every matchup of every built-in ruleset (each class with each weapon it may use against
    /// each class with its first, at full and low hit points), forecast once, again (the plan
    /// compiled) and a third time (the walk over the plan): the same bits as an engine that never
    /// plans (the general walk). And most of seed 000's matchups have a plan.
    #[test]
    fn planned_forecasts_equal_worked_out_ones() {
        for (k, (name, index)) in oc_compiler::stdlib::RULESETS.iter().enumerate() {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let planning = Engine::new(rules.clone()).expect("runs");
            let mut general = Engine::new(rules).expect("runs");
            general.ir.strategy.plain_walks = false;
            let (mut compared, mut planned) = (0, 0);
            for (label, a, d, r) in crate::testing::matchups(&planning) {
                let Ok(g) = general.forecast(&a, &d, r) else { continue };
                let first = planning.forecast(&a, &d, r).expect("the same matchup");
                let second = planning.forecast(&a, &d, r).expect("the same matchup");
                planned += usize::from(planning.planned(&a, &d, r).is_some());
                let again = planning.forecast(&a, &d, r).expect("the same matchup");
                assert_eq!(second, first, "{name}: {label} against {} (hp {:?}), seen again", d.class, d.hp);
                assert_eq!(first.bits(), g.bits(), "{name}: {label} against {} (hp {:?})", d.class, d.hp);
                assert_eq!(again, first, "{name}: {label} against {} (hp {:?}), planned", d.class, d.hp);
                assert_eq!(again.bits(), g.bits(), "{name}: {label} against {} (hp {:?}), planned", d.class, d.hp);
                compared += 1;
            }
            assert!(compared > 100, "{name}: {compared} matchups");
            if k == 0 {
                assert!(planned * 10 > compared * 8, "{name}: {planned} of {compared} planned");
            }
            eprintln!("{name}: {compared} matchups, {planned} planned");
        }
    }
}
