//! A matchup's plan: for each (attacker, defender, distance) an engine forecasts more than once
//! whose exchange is plain (`plain.rs`), the finished forecast, kept. Asked again, the forecast
//! is a copy of it: no unit looked up, no rule evaluated, no walk and no assembly of its maps.
//! (A plan used to keep the walk's outcomes and walk them again: by a profile of the bench's
//! repeat pass, a third of its time was that walk and two thirds building the same maps and
//! copying the sides again.) A forecast is a pure function of the matchup, so the copy is the
//! same bits (`tests::planned_forecasts_equal_worked_out_ones`).
//!
//! An exchange that is not plain (reactions, triggers on a strike, several attack forms, both
//! sides at once, an order of strikes that reads hit points) has no plan: it is worked out the
//! general way each time (its forecast may hold hundreds of damage values: not kept).

use super::plain::Plain;
use super::Forecast;

/// A plain exchange's forecast, kept (see the module's note).
pub(crate) struct Plan {
    forecast: Forecast,
}

impl Plan {
    /// The plan of a plain exchange (`Plain` says it was one) whose forecast is `forecast`.
    pub(super) fn new(_: Plain, forecast: Forecast) -> Plan {
        Plan { forecast }
    }

    /// The forecast: the one the plan was made with.
    pub(crate) fn forecast(&self) -> Option<Forecast> {
        Some(self.forecast.clone())
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::Engine;

    /// Every matchup of every built-in ruleset (each class with each weapon it may use against
    /// each class with its first, at full and low hit points), forecast once, again (the plan
    /// kept) and a third time (the plan's copy): the same bits as an engine that never
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
