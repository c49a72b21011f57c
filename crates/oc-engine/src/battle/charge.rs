//! Actions with a price of their own (`cost`, the step variable the turn's formulas read) and
//! charged actions (`charge RESOURCE`, seed 002's spells: "Casting a spell that requires more
//! Stamina than you have available will charge the spell across multiple rounds"): what a step
//! pays toward the charge, the part paid kept in the resource across activations, and the
//! charge dropped by any other act.

use oc_model::{self as m, Atom};

use super::actions::{attacks_enemy, range_of, Available};
use super::scene::Cast;
use super::turns::{act_kind, StepVars};
use super::{Act, Battle, BattleError};
use crate::ir::Eff;

/// An action of a unit's that attacks (`attack`, `injure`): a technique or a spell, as an AI
/// weighs it.
#[derive(Clone, Debug)]
pub struct AttackAction {
    pub tag: Atom,
    pub verb: m::Verb,
    /// `target enemies`: every enemy in reach at once.
    pub every: bool,
    /// The distances it reaches from the unit.
    pub reach: (i64, i64),
    /// The damage added to the attack.
    pub bonus: i64,
    /// Its `cost`; of a charged action, the resource its charge is kept in and what is paid.
    pub cost: i64,
    pub charge: Option<Atom>,
    pub paid: i64,
}

impl Battle<'_> {
    /// The actions unit `i` has that attack (their first command `attack` or `injure`).
    pub fn attack_actions(&self, i: usize) -> Vec<AttackAction> {
        // Most units have none: the unit is built into a scene only where one is to be read.
        let mut any = false;
        self.each_action(i, |a, _, _, _| any |= attacks_enemy(a));
        if !any {
            return Vec::new();
        }
        self.attack_actions_found(i)
    }

    /// [`Battle::attack_actions`] where the caller found that one of the unit's actions attacks
    /// an enemy ([`Battle::action_verbs_attacking`]).
    pub(crate) fn attack_actions_found(&self, i: usize) -> Vec<AttackAction> {
        let Some(scene) = self.scene(Cast { user: i, ..Cast::default() }, None) else { return Vec::new() };
        let mut out = Vec::new();
        for a in self.actions(i) {
            let Some(verb) = a.verb().filter(|v| matches!(v, m::Verb::Attack | m::Verb::Injure)) else { continue };
            if !matches!(a.action.target, m::ActionTarget::Enemy | m::ActionTarget::Enemies) {
                continue;
            }
            let bonus = a.action.effects.iter().find_map(|e| match e {
                Eff::Command { verb: v, args } if *v == verb => args.get(1).map(|x| scene.value(x, &a.args).int()),
                _ => None,
            });
            let cost = a.action.cost.as_ref().map_or(0, |e| scene.value(e, &a.args).int());
            let paid = a.action.charge.as_ref().map_or(0, |r| self.charged(i, &a, r));
            out.push(AttackAction {
                tag: a.tag,
                verb,
                every: a.action.target == m::ActionTarget::Enemies,
                reach: range_of(&scene, &a),
                bonus: bonus.unwrap_or(0),
                cost,
                charge: a.action.charge.as_deref().map(Atom::new),
                paid,
            });
        }
        out
    }

    /// The action a special act of unit `i` performs: the one [`Battle::turn`] finds for it (by
    /// its tag where the act names one, else the first with the act's verb).
    pub(super) fn act_action(&self, i: usize, act: &Act) -> Option<Available> {
        let Act::Special { verb, from, .. } = act else { return None };
        self.actions(i).into_iter().find(|a| a.verb() == Some(*verb) && from.as_ref().is_none_or(|t| *a.tag == **t))
    }

    /// The kind of an act for `repeats`: a special action by the tag that performs it, whether the
    /// turn names the tag or only the verb (two actions of one verb are different acts).
    pub(super) fn act_kind(&self, i: usize, act: &Act) -> String {
        match act {
            Act::Special { from: None, .. } => self.act_action(i, act).map_or_else(|| act_kind(act), |a| a.tag.to_string()),
            _ => act_kind(act),
        }
    }

    /// The tag of the charged action unit `i` is charging, if any.
    pub fn charging(&self, i: usize) -> Option<Atom> {
        self.state.units.get(i).and_then(|u| u.charging)
    }

    /// Sets the step variables `action` (the tag whose action unit `i`'s act takes) and `cost`:
    /// the action's `cost`; of a charged action the cost still to pay, lowered to the most the
    /// unit can pay this step by the ruleset's `step_cost` (at least 1: "If you have enough
    /// Stamina to complete the spell, it'll be cast immediately", else it pays what it has).
    pub(super) fn price_act(&self, i: usize, act: &Act, vars: &mut StepVars) {
        let Some(a) = self.act_action(i, act) else { return };
        vars.action = self.engine.ir.atom_id(a.tag);
        let Some(e) = &a.action.cost else { return };
        let Some(scene) = self.scene(Cast { user: i, ..Cast::default() }, None) else { return };
        let cost = scene.value(e, &a.args).int().max(0);
        vars.priced = true;
        let Some(r) = &a.action.charge else {
            vars.cost = cost;
            return;
        };
        vars.cost = (cost - self.charged(i, &a, r)).max(0);
        let (Some(spend), Some(formula)) = (&self.engine.rules.ruleset.turn.spend, &self.engine.ir.step_cost) else { return };
        let have = self.resource(i, spend).unwrap_or(0);
        while vars.cost > 1 && scene.value(formula, &vars.params()).int().max(1) > have {
            vars.cost -= 1;
        }
    }

    /// What unit `i` has paid toward charged action `a` (kept in resource `r`): nothing unless it
    /// is the action it is charging.
    fn charged(&self, i: usize, a: &Available, r: &str) -> i64 {
        if self.charging(i) == Some(a.tag) {
            self.resource(i, r).unwrap_or(0)
        } else {
            0
        }
    }

    /// A step of charged action `a` by unit `i` paying `paid` toward it (`None`: no price paid by
    /// steps, so the whole cost at once). `Some(note)` while the charge is not complete (the
    /// action does nothing more); `None` when it is, the charge emptied and the action to be done.
    pub(super) fn charge_up(&mut self, i: usize, a: &Available, paid: Option<i64>) -> Result<Option<String>, BattleError> {
        let Some(r) = a.action.charge.clone() else { return Ok(None) };
        let cost = match (&a.action.cost, self.scene(Cast { user: i, ..Cast::default() }, None)) {
            (Some(e), Some(scene)) => scene.value(e, &a.args).int().max(0),
            _ => 0,
        };
        let before = self.charged(i, a, &r);
        let now = before + paid.unwrap_or(cost - before).max(0);
        let unit = self.engine.rules.ruleset.turn.spend.clone().unwrap_or_else(|| r.clone());
        let unit = capitalised(&unit);
        let k = self.engine.rules.ruleset.resources.iter().position(|x| x.name == r);
        let count = self.engine.rules.ruleset.resources.len();
        let Some(f) = self.state.units.get_mut(i) else { return Ok(None) };
        if f.resources.len() < count {
            f.resources.resize(count, 0);
        }
        let complete = now >= cost;
        if let Some(slot) = k.and_then(|k| f.resources.get_mut(k)) {
            *slot = if complete { 0 } else { now };
        }
        f.charging = (!complete).then_some(a.tag);
        if complete {
            return Ok(None);
        }
        Ok(Some(format!("charges {} ({now} of {cost} {unit})", a.tag)))
    }

    /// Unit `i` taking act `act` while it charges another action drops that charge ("leaving
    /// you vulnerable until the charge is complete": the charge is kept only while the unit
    /// charges it, moves or waits). The note says so.
    pub(super) fn drop_charge(&mut self, i: usize, act: &Act) -> Option<String> {
        let tag = self.charging(i)?;
        if matches!(act, Act::Wait | Act::Decline) || *self.act_kind(i, act) == *tag {
            return None;
        }
        let resource = self
            .actions(i)
            .into_iter()
            .find(|a| a.tag == tag)
            .and_then(|a| a.action.charge.clone())
            .and_then(|r| self.engine.rules.ruleset.resources.iter().position(|x| x.name == r));
        let f = self.state.units.get_mut(i)?;
        f.charging = None;
        if let Some(slot) = resource.and_then(|k| f.resources.get_mut(k)) {
            *slot = 0;
        }
        Some(format!("drops its charge of {tag}"))
    }
}

/// A resource's name with a capital, for the log ("Stamina").
fn capitalised(word: &str) -> String {
    let mut c = word.chars();
    c.next().map_or_else(String::new, |first| first.to_uppercase().chain(c).collect())
}
