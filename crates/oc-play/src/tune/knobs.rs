//! The knobs as ladders of settings, each rung a little better for the attacker than the one
//! before (so a search may bisect them): the sample armies' sizes, and the war chests with the
//! armies re-bought to fit. Armies change by whole units, within the scenario's own rules:
//! its unit counts, war chest and composition limits, checked with the compiler's own
//! functions; units carrying a scenario tag (a Leader, a Fleeing scout) or named by a victory
//! condition are never dismissed nor copied.

use oc_compiler::scenario::{army_cost, limit_refusal, unit_cost};
use oc_model as m;

use super::edit::{fresh_name, ArmyPlan, Base, Setting};

/// Rungs a ladder may have at most on either side of where it starts.
const MAX_RUNGS: usize = 64;

/// Army edits within the scenario's rules.
pub struct Shop<'a> {
    pub rules: &'a m::Rules,
    pub base: &'a Base,
}

fn side_of(index: usize) -> m::SideId {
    if index == 0 {
        m::SideId::Attacker
    } else {
        m::SideId::Defender
    }
}

impl Shop<'_> {
    /// Whether `army` may be brought by side `index` with a war chest of `chest`.
    fn fits(&self, index: usize, army: &m::Army, chest: i64) -> bool {
        let mut side = self.base.model.side(side_of(index)).clone();
        side.war_chest = chest;
        let n = army.units.len() as u32;
        let span = oc_diag::Span::new(oc_diag::FileId(0), 0, 0);
        n >= side.min_units
            && n <= side.max_units
            && army_cost(self.rules, army) <= chest
            && side.limits.iter().all(|l| limit_refusal(self.rules, army, &side, l, span).is_none())
    }

    /// A sample unit the knobs leave alone: it carries a scenario tag, or a victory condition
    /// names it.
    fn protected(&self, index: usize, unit: &m::ArmyUnit) -> bool {
        let enemy = self.base.model.side(side_of(index).other());
        !unit.tags.is_empty() || enemy.win.as_ref().is_some_and(|c| names_unit(c, &unit.name))
    }

    /// The sample's units that may be copied or dismissed, in the order written.
    fn free_units(&self, index: usize) -> Vec<usize> {
        let Some(sample) = self.base.army_models.get(index) else { return Vec::new() };
        sample.units.iter().enumerate().filter(|(_, u)| !self.protected(index, u)).map(|(i, _)| i).collect()
    }

    /// One unit fewer: the last hired copy, else the last free unit of the sample whose
    /// leaving keeps the army within the rules.
    fn dismiss(&self, index: usize, plan: &ArmyPlan, chest: i64) -> Option<ArmyPlan> {
        if !plan.added.is_empty() {
            let mut p = plan.clone();
            p.added.pop();
            return self.fits(index, &self.base.army(index, &p), chest).then_some(p);
        }
        self.free_units(index).into_iter().rev().filter(|i| !plan.dropped.contains(i)).find_map(|i| {
            let mut p = plan.clone();
            p.dropped.push(i);
            self.fits(index, &self.base.army(index, &p), chest).then_some(p)
        })
    }

    /// One unit more, costing the army at most `spend` in all: the last dismissed unit back,
    /// else a copy of the sample's free units in turn (the next in the order written that fits).
    fn hire(&self, index: usize, plan: &ArmyPlan, chest: i64, spend: i64) -> Option<ArmyPlan> {
        let ok = |p: &ArmyPlan| {
            let army = self.base.army(index, p);
            army_cost(self.rules, &army) <= spend && self.fits(index, &army, chest)
        };
        if let Some(last) = plan.dropped.last() {
            let mut p = plan.clone();
            p.dropped.retain(|i| i != last);
            return ok(&p).then_some(p);
        }
        let free = self.free_units(index);
        let sample = self.base.army_models.get(index)?;
        let army = self.base.army(index, plan);
        let taken = |n: &str| army.units.iter().any(|u| u.name == n);
        (0..free.len()).find_map(|j| {
            let t = *free.get((plan.added.len() + j) % free.len())?;
            let name = fresh_name(&sample.units.get(t)?.name, &taken);
            let mut p = plan.clone();
            p.added.push((name, t));
            ok(&p).then_some(p)
        })
    }

    fn cost(&self, index: usize, plan: &ArmyPlan) -> i64 {
        army_cost(self.rules, &self.base.army(index, plan))
    }

    /// The ladder of army sizes from `start`: `up` strengthens the attacker (a defender
    /// dismissed, then an attacker hired, in turn), else the defender. Rung 0 is `start`.
    pub fn army_sizes(&self, start: &Setting, up: bool) -> Vec<Setting> {
        let (weak, strong) = if up { (1, 0) } else { (0, 1) };
        self.ladder(start, |shop, s, step| {
            let dismiss = |s: &Setting| {
                let p = shop.dismiss(weak, s.armies.get(weak)?, *s.chests.get(weak)?)?;
                let mut n = s.clone();
                *n.armies.get_mut(weak)? = p;
                Some(n)
            };
            let hire = |s: &Setting| {
                let chest = *s.chests.get(strong)?;
                let p = shop.hire(strong, s.armies.get(strong)?, chest, chest)?;
                let mut n = s.clone();
                *n.armies.get_mut(strong)? = p;
                Some(n)
            };
            if step % 2 == 0 {
                dismiss(s).or_else(|| hire(s))
            } else {
                hire(s).or_else(|| dismiss(s))
            }
        })
    }

    /// The ladder of war chests from `start`: `up` raises the attacker's chest by the price of
    /// its cheapest free unit (the gold gained buys copies of its units) and lowers the
    /// defender's by the price of its own (units dismissed until the army fits), in turn;
    /// else the other way round. An army keeps the gold it left unspent in the sample.
    pub fn war_chests(&self, start: &Setting, up: bool) -> Vec<Setting> {
        let (weak, strong) = if up { (1, 0) } else { (0, 1) };
        let slack = |i: usize| start.chests.get(i).copied().unwrap_or(0) - start.armies.get(i).map_or(0, |p| self.cost(i, p));
        let step = |i: usize| {
            let sample = self.base.army_models.get(i);
            let prices = self.free_units(i).into_iter().filter_map(|u| sample?.units.get(u).map(|u| unit_cost(self.rules, u)));
            prices.filter(|p| *p > 0).min().unwrap_or(1)
        };
        let (slack_w, slack_s, step_w, step_s) = (slack(weak), slack(strong), step(weak), step(strong));
        let max_units = self.base.model.side(side_of(strong)).max_units as usize;
        self.ladder(start, |shop, s, turn| {
            let raise = |s: &Setting| {
                let mut n = s.clone();
                let chest = s.chests.get(strong)? + step_s;
                *n.chests.get_mut(strong)? = chest;
                let mut plan = s.armies.get(strong)?.clone();
                if shop.base.army(strong, &plan).units.len() >= max_units {
                    return None;
                }
                while let Some(p) = shop.hire(strong, &plan, chest, chest - slack_s) {
                    plan = p;
                }
                *n.armies.get_mut(strong)? = plan;
                Some(n)
            };
            let lower = |s: &Setting| {
                let mut n = s.clone();
                let chest = s.chests.get(weak)? - step_w;
                if chest < 0 {
                    return None;
                }
                *n.chests.get_mut(weak)? = chest;
                let mut plan = s.armies.get(weak)?.clone();
                while shop.cost(weak, &plan) > chest - slack_w || !shop.fits(weak, &shop.base.army(weak, &plan), chest) {
                    plan = shop.dismiss(weak, &plan, chest).or_else(|| {
                        // Dismissing may only fit once the army is cheap enough: drop by the
                        // side's rules with an unlimited chest, then check again.
                        shop.dismiss(weak, &plan, i64::MAX)
                    })?;
                }
                *n.armies.get_mut(weak)? = plan;
                Some(n)
            };
            if turn % 2 == 0 {
                raise(s).or_else(|| lower(s))
            } else {
                lower(s).or_else(|| raise(s))
            }
        })
    }

    /// Rungs from `start`, each made from the one before by `next` (given the rung's number),
    /// until it has none or the rungs stop changing the armies for a while.
    fn ladder(&self, start: &Setting, next: impl Fn(&Shop, &Setting, usize) -> Option<Setting>) -> Vec<Setting> {
        let mut rungs = vec![start.clone()];
        let mut idle = 0;
        while rungs.len() <= MAX_RUNGS {
            let Some(last) = rungs.last() else { break };
            let Some(n) = next(self, last, rungs.len() - 1) else { break };
            idle = if n.armies == last.armies { idle + 1 } else { 0 };
            if idle > 8 {
                break;
            }
            rungs.push(n);
        }
        // Trailing rungs that only moved a war chest play like the last that changed an army.
        while rungs.len() > 1 && rungs.iter().rev().nth(1).is_some_and(|b| rungs.last().is_some_and(|l| l.armies == b.armies)) {
            rungs.pop();
        }
        rungs
    }
}

/// Whether a condition names the unit (`rout "Eirika"`).
fn names_unit(c: &m::Condition, name: &str) -> bool {
    match c {
        m::Condition::RoutUnit { unit } => unit == name,
        m::Condition::And(a, b) | m::Condition::Or(a, b) => names_unit(a, name) || names_unit(b, name),
        m::Condition::Not(a) => names_unit(a, name),
        _ => false,
    }
}
