//! Reactions in an exchange (`oc_model::Reaction`): before each strike the struck unit may take
//! one it can pay for; its modifiers change that unit's attributes for the strike. The choice is
//! the one that leaves the least damage expected from the strike (ties: none, then the cheapest,
//! then the first written): the forecast's "best", and the AI's.

use oc_model as m;

use super::{Attrs, Exchange, Outcomes, Phase, Resume, State, MAX_RES};
use crate::ir::{Eff, E};
use crate::unit::Unit;
use crate::{Engine, EngineError};

/// A reaction compiled to the IR.
pub(crate) struct ReactionIr {
    /// (resource index, amount).
    costs: Vec<(usize, i64)>,
    requires: Option<E>,
    modifiers: Vec<Eff>,
    riposte: bool,
}

/// Compiles the ruleset's reactions.
pub(crate) fn compile(engine_ir: &mut crate::ir::Ir, rules: &m::Rules) -> Result<Vec<ReactionIr>, EngineError> {
    let resources = &rules.ruleset.resources;
    if resources.len() > MAX_RES {
        return Err(EngineError::model(format!("{} resources; the engine holds at most {MAX_RES}", resources.len())));
    }
    rules
        .ruleset
        .reactions
        .iter()
        .map(|r| {
            let costs = r
                .costs
                .iter()
                .map(|(name, n)| {
                    resources
                        .iter()
                        .position(|x| x.name == *name)
                        .map(|k| (k, *n))
                        .ok_or_else(|| EngineError::model(format!("reaction {} costs an unknown resource {name}", r.name)))
                })
                .collect::<Result<_, _>>()?;
            let requires = r.requires.as_ref().map(|e| engine_ir.expr(e, &[])).transpose()?;
            let modifiers = engine_ir.effects_of(&r.modifiers, &[])?;
            Ok(ReactionIr { costs, requires, modifiers, riposte: r.riposte })
        })
        .collect()
}

impl Engine {
    /// The name of the reaction with index `r`.
    pub fn reaction_name(&self, r: u8) -> Option<&str> {
        self.rules.ruleset.reactions.get(r as usize).map(|x| x.name.as_str())
    }
}

impl Exchange<'_> {
    fn reaction(&self, r: u8) -> Option<&ReactionIr> {
        self.engine.reactions.get(r as usize)
    }

    /// The reactions the unit struck by `attacker` may take now: affordable, requirement met, and
    /// allowed by the exchange's policy.
    fn options(&self, units: [&Unit; 2], state: &State, attrs: &Attrs, attacker: usize) -> Vec<u8> {
        let struck = 1 - attacker;
        let mut out = Vec::new();
        for (k, r) in self.engine.reactions.iter().enumerate() {
            let Ok(k) = u8::try_from(k) else { break };
            if let Some(only) = self.policy.get(struck).copied().flatten() {
                if only != Some(k) {
                    continue;
                }
            }
            let affordable =
                r.costs.iter().all(|(res, n)| state.res[struck].get(*res).is_some_and(|have| i64::from(*have) >= *n));
            if !affordable {
                continue;
            }
            let mut ctx = self.ctx(units, attrs, attacker, &[]);
            ctx.holder = struck;
            if r.requires.as_ref().is_none_or(|e| ctx.eval(e, &[], &mut []).bool()) {
                out.push(k);
            }
        }
        out
    }

    /// Strike attributes with the reaction's modifiers applied to the reacting unit.
    pub(super) fn reaction_attrs<'u>(&self, units: [&'u Unit; 2], state: &State, attacker: usize, r: Option<u8>) -> Attrs<'u> {
        let attrs = self.strike_attrs(units, state, attacker);
        match r.and_then(|r| self.reaction(r)) {
            None => attrs,
            Some(reaction) => {
                let mut out = attrs.copied();
                let mut ctx = self.ctx(units, &attrs, attacker, &[]);
                ctx.holder = 1 - attacker;
                super::apply_strike_effects(&ctx, &reaction.modifiers, &[], &mut out);
                Attrs::owned(out)
            }
        }
    }

    /// The strike's outcomes with the struck unit's best reaction.
    pub(super) fn react(&self, units: [&Unit; 2], state: &State, attrs: Attrs, attacker: usize) -> Outcomes {
        let options = self.options(units, state, &attrs, attacker);
        let expected = |o: &Outcomes| {
            o.list.iter().filter(|(_, x)| x.hit && !x.backfire).map(|(w, x)| w * x.damage as f64).sum::<f64>() / o.den
        };
        // A stated reaction (`policy`) is always taken when it may be.
        let stated = self.policy.get(1 - attacker).is_some_and(Option::is_some);
        let mut best = if stated && !options.is_empty() { None } else { Some(self.outcomes_with(units, &attrs, attacker)) };
        let cost = |r: u8| self.reaction(r).map_or(0, |x| x.costs.iter().map(|(_, n)| *n).sum::<i64>());
        for r in options {
            let with = self.reaction_attrs(units, state, attacker, Some(r));
            let mut o = self.outcomes_with(units, &with, attacker);
            o.reaction = Some(r);
            let better = match &best {
                None => true,
                Some(b) => {
                    let (now, was) = (expected(&o), expected(b));
                    // Rounded, so equal choices stay equal whatever the summation order.
                    let (now, was) = ((now * 1e9).round(), (was * 1e9).round());
                    now < was || (now == was && b.reaction.is_some_and(|br| cost(r) < cost(br)))
                }
            };
            if better {
                best = Some(o);
            }
        }
        best.unwrap_or_else(|| self.outcomes_with(units, &attrs, attacker))
    }

    /// Pays for reaction `r` taken by `side`.
    pub(super) fn pay(&self, state: &mut State, side: usize, r: u8) {
        let Some(reaction) = self.reaction(r) else { return };
        for (res, n) in &reaction.costs {
            if let Some(have) = state.res.get_mut(side).and_then(|x| x.get_mut(*res)) {
                *have = have.saturating_sub(i32::try_from(*n).unwrap_or(i32::MAX));
            }
        }
    }

    /// The state after a strike by `side` with outcome `o`, against which the struck unit took
    /// `reaction`: damage and triggers, the reaction paid for, and the next phase (a riposte
    /// first, where the reaction has one and the strike dealt nothing).
    pub(super) fn after_strike(
        &self,
        state: &State,
        side: usize,
        o: super::Outcome,
        reaction: Option<u8>,
    ) -> (State, Vec<super::Laid>) {
        let (mut after, laid) = self.apply(state, side, o);
        let struck = 1 - side;
        if let Some(r) = reaction {
            self.pay(&mut after, struck, r);
        }
        after.phase = self.next_phase(&after, state.phase);
        let ripostes = reaction.and_then(|r| self.reaction(r)).is_some_and(|r| r.riposte);
        let dealt = o.hit && !o.backfire && o.damage > 0;
        let alive = after.hp.iter().all(|hp| *hp > 0);
        if ripostes && !dealt && alive && !matches!(state.phase, Phase::Riposte { .. }) {
            let resume = match after.phase {
                Phase::Attack { side, left, stage } => Resume::Attack { side, left, stage },
                Phase::Riposte { .. } | Phase::Done => Resume::Done,
            };
            after.phase = Phase::Riposte { side: struck as u8, resume };
        }
        (after, laid)
    }
}
