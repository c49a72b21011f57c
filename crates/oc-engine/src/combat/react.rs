//! Reactions in an exchange (`oc_model::Reaction`): before each strike the struck unit may take
//! one it can pay for (`reactions many`: any set of them it can pay for together); their
//! modifiers, in written order, change that unit's attributes for the strike. The choice is the
//! one that leaves the least damage expected from the strike (ties: none, then the cheapest,
//! then the fewest, then the first written): the forecast's "best", and the AI's. The choice is
//! made per state, the same in forecasts and resolutions, so forecasts stay exact.

use oc_model as m;

use super::{Attrs, Exchange, Outcomes, Phase, Resume, State, MAX_RES};
use crate::ir::{Eff, E};
use crate::unit::Unit;
use crate::{Engine, EngineError};

/// The reactions taken against one strike: bit `r` for reaction `r` (at most 16).
pub(crate) type Reactions = u16;

/// The most reactions a ruleset may have where several may be taken at once.
const MAX_REACTIONS: usize = Reactions::BITS as usize;

/// A reaction compiled to the IR.
pub(crate) struct ReactionIr {
    /// (resource index, amount).
    pub(super) costs: Vec<(usize, i64)>,
    pub(super) requires: Option<E>,
    modifiers: Vec<Eff>,
    riposte: bool,
    /// A reaction to a roll: the dice it rolls again and whether the unit struck takes it.
    pub(super) reroll: Option<(u64, bool)>,
}

impl ReactionIr {
    /// What taking it reads: its requirement, its modifiers and its costs (`crate::inputs`).
    pub(crate) fn reads(&self) -> (Option<&E>, &[Eff], &[(usize, i64)]) {
        (self.requires.as_ref(), &self.modifiers, &self.costs)
    }
}

/// Compiles the ruleset's reactions.
pub(crate) fn compile(engine_ir: &mut crate::ir::Ir, rules: &m::Rules) -> Result<Vec<ReactionIr>, EngineError> {
    let resources = &rules.ruleset.resources;
    if resources.len() > MAX_RES {
        return Err(EngineError::model(format!("{} resources; the engine holds at most {MAX_RES}", resources.len())));
    }
    if rules.ruleset.reactions.len() > MAX_REACTIONS {
        return Err(EngineError::model(format!(
            "{} reactions; the engine holds at most {MAX_REACTIONS}",
            rules.ruleset.reactions.len()
        )));
    }
    let reactions = rules
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
            let mut requires = r.requires.as_ref().map(|e| engine_ir.expr(e, &[])).transpose()?;
            // A reroll's requirement is read at every joint value of the dice: its dice-free
            // parts are worked out once a strike.
            if let (Some(e), Some(_)) = (requires.as_mut(), r.reroll.as_ref()) {
                engine_ir.hoist(e)?;
            }
            let modifiers = engine_ir.effects_of(&r.modifiers, &[])?;
            let reroll = match &r.reroll {
                None => None,
                Some(x) => {
                    let slots = super::reroll::reroll_slots(engine_ir, &x.formula);
                    if slots == 0 {
                        return Err(EngineError::model(format!(
                            "reaction {} rerolls {}, which reads no die a strike draws",
                            r.name, x.formula
                        )));
                    }
                    if requires.as_ref().is_some_and(|e| engine_ir.dice_of(e) & !engine_ir.strike_mask != 0) {
                        return Err(EngineError::model(format!("reaction {}'s requirement reads a die no strike draws", r.name)));
                    }
                    Some((slots, x.struck))
                }
            };
            Ok(ReactionIr { costs, requires, modifiers, riposte: r.riposte, reroll })
        })
        .collect::<Result<Vec<_>, EngineError>>()?;
    if engine_ir.settles {
        // What settled strikes read besides the roles: the rerolls' requirements (gains are
        // banked in resolutions, never read there).
        let extra: Vec<&E> = reactions.iter().filter(|r| r.reroll.is_some()).filter_map(|r| r.requires.as_ref()).collect();
        let rerolled: Vec<u16> = rules
            .ruleset
            .reactions
            .iter()
            .filter_map(|r| r.reroll.as_ref())
            .filter_map(|x| engine_ir.formula_id(&x.formula))
            .collect();
        engine_ir.settle_inputs = engine_ir.settle_inputs(&extra, &rerolled);
    }
    Ok(reactions)
}

impl Engine {
    /// The name of the reaction with index `r`.
    pub fn reaction_name(&self, r: u8) -> Option<&str> {
        self.rules.ruleset.reactions.get(r as usize).map(|x| x.name.as_str())
    }

    /// The names of the reactions in `set`, in written order, joined by "and".
    pub(crate) fn reactions_named(&self, set: Reactions) -> String {
        let names: Vec<&str> = members(set).filter_map(|r| self.reaction_name(r)).collect();
        names.join(" and ")
    }
}

/// The reactions in `set`, in written order.
fn members(set: Reactions) -> impl Iterator<Item = u8> {
    (0..Reactions::BITS as u8).filter(move |r| set & (1 << r) != 0)
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
            // A reaction to a roll is taken once the dice are rolled (`reroll`).
            if r.reroll.is_some() {
                continue;
            }
            if let Some(only) = self.policy.get(struck).copied().flatten() {
                if only != Some(k) {
                    continue;
                }
            }
            if !self.affordable(r, &state.res, struck) {
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
    pub(super) fn reaction_attrs<'u>(
        &self,
        units: [&'u Unit; 2],
        state: &State,
        attacker: usize,
        set: Option<Reactions>,
    ) -> Attrs<'u> {
        let attrs = self.strike_attrs(units, state, attacker);
        let Some(set) = set.filter(|s| *s != 0) else { return attrs };
        let mut out = attrs.copied();
        let mut ctx = self.ctx(units, &attrs, attacker, &[]);
        ctx.holder = 1 - attacker;
        for reaction in members(set).filter_map(|r| self.reaction(r)) {
            super::attrs::apply_strike_effects(&ctx, &reaction.modifiers, &[], &mut out);
        }
        Attrs::owned(out)
    }

    /// The strike's outcomes with the struck unit's best reaction, or best set of reactions
    /// under `reactions many`.
    pub(super) fn react(&self, units: [&Unit; 2], state: &State, attrs: Attrs, attacker: usize) -> Outcomes {
        let options = self.options(units, state, &attrs, attacker);
        let expected = |o: &Outcomes| {
            o.list.iter().filter(|(_, x)| x.hit && !x.backfire).map(|(w, x)| w * x.damage as f64).sum::<f64>() / o.den
        };
        // A stated reaction (`policy`) is always taken when it may be.
        let stated = self.policy.get(1 - attacker).is_some_and(Option::is_some);
        let mut best =
            if stated && !options.is_empty() { None } else { Some(self.outcomes_with(units, &attrs, attacker, &state.res)) };
        let cost = |set: Reactions| {
            members(set).filter_map(|r| self.reaction(r)).flat_map(|x| x.costs.iter()).map(|(_, n)| *n).sum::<i64>()
        };
        for set in self.sets(&options, state, 1 - attacker) {
            let with = self.reaction_attrs(units, state, attacker, Some(set));
            // What a reaction to a roll may pay with: what is left once the set is paid.
            let mut left = state.clone();
            self.pay(&mut left, 1 - attacker, set);
            let mut o = self.outcomes_with(units, &with, attacker, &left.res);
            o.reaction = Some(set);
            let better = match &best {
                None => true,
                Some(b) => {
                    let (now, was) = (expected(&o), expected(b));
                    // Rounded, so equal choices stay equal whatever the summation order.
                    let (now, was) = ((now * 1e9).round(), (was * 1e9).round());
                    now < was
                        || (now == was
                            && b.reaction.is_some_and(|bs| (cost(set), set.count_ones()) < (cost(bs), bs.count_ones())))
                }
            };
            if better {
                best = Some(o);
            }
        }
        best.unwrap_or_else(|| self.outcomes_with(units, &attrs, attacker, &state.res))
    }

    /// The sets of `options` the struck unit may take: each one alone, or under `reactions
    /// many` every non-empty set it can pay for together, in increasing order of their bits.
    fn sets(&self, options: &[u8], state: &State, struck: usize) -> Vec<Reactions> {
        if !self.engine.rules.ruleset.many_reactions {
            return options.iter().map(|r| 1 << r).collect();
        }
        let mut out = Vec::new();
        for pick in 1u32..(1 << options.len()) {
            let set: Reactions =
                options.iter().enumerate().filter(|(k, _)| pick & (1 << k) != 0).fold(0, |s, (_, r)| s | (1 << r));
            let mut need = [0i64; MAX_RES];
            for (res, n) in members(set).filter_map(|r| self.reaction(r)).flat_map(|x| x.costs.iter()) {
                if let Some(slot) = need.get_mut(*res) {
                    *slot += n;
                }
            }
            let have = state.res.get(struck);
            if need.iter().enumerate().all(|(k, n)| *n == 0 || have.and_then(|h| h.get(k)).is_some_and(|h| i64::from(*h) >= *n)) {
                out.push(set);
            }
        }
        out.sort_unstable();
        out
    }

    /// Pays for the reactions `set` taken by `side`.
    pub(super) fn pay(&self, state: &mut State, side: usize, set: Reactions) {
        for reaction in members(set).filter_map(|r| self.reaction(r)) {
            for (res, n) in &reaction.costs {
                if let Some(have) = state.res.get_mut(side).and_then(|x| x.get_mut(*res)) {
                    *have = have.saturating_sub(i32::try_from(*n).unwrap_or(i32::MAX));
                }
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
        reaction: Option<Reactions>,
    ) -> (State, Vec<super::Laid>) {
        let (mut after, laid) = self.apply(state, side, o);
        let struck = 1 - side;
        if let Some(r) = reaction {
            self.pay(&mut after, struck, r);
        }
        self.settle_state(&mut after, side, &o);
        after.phase = self.next_phase(&after, state.phase);
        let ripostes = reaction.is_some_and(|set| members(set).filter_map(|r| self.reaction(r)).any(|r| r.riposte));
        let dealt = o.deals_damage();
        let alive = after.hp.iter().all(|hp| *hp > 0);
        // A riposte is "a free attack of your own against the unit": struck with a weapon that
        // may be used and reaches it.
        let reaches = || {
            let u = self.unit(struck, &after.statuses[struck]);
            u.may_use_weapon() && u.in_range(self.distance)
        };
        if ripostes && !dealt && alive && !matches!(state.phase, Phase::Riposte { .. }) && reaches() {
            let resume = match after.phase {
                Phase::Attack { side, left, stage, form } => Resume::Attack { side, left, stage, form },
                Phase::Riposte { .. } | Phase::Done => Resume::Done,
            };
            after.phase = Phase::Riposte { side: struck as u8, resume };
        }
        (after, laid)
    }
}
