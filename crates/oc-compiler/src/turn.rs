//! Resources (`resource stamina: Int = ... at start_of_round`) and the turn block (`turn { order
//! ... spend ... step_cost = ... step_allowed = ... respond = ... }`): the turn structure as data.

use std::collections::HashMap;

use oc_diag::{did_you_mean, Diagnostic, Span};
use oc_model::conformance::Place;
use oc_model::{self as m, Type};
use oc_syntax::ast;

use crate::codes::*;
use crate::env::Checker;
use crate::expr::Scope;

/// The formulas a `turn` block may define, with their types.
const TURN_FORMULAS: &[(&str, Type)] = &[
    ("step_cost", Type::Int),
    ("step_allowed", Type::Bool),
    ("respond", Type::Bool),
    ("declare_step", Type::Int),
    ("interrupt", Type::Bool),
    ("opportunity", Type::Bool),
    ("engaged", Type::Bool),
    ("free_attack", Type::Bool),
];

/// Events a resource may be refilled at: once per round or once per activation.
const REFILL_EVENTS: &[m::Event] = &[m::Event::StartOfRound, m::Event::Activated];

impl Checker<'_> {
    /// Declares each resource as an `Int` attribute (collect phase, before expressions are typed).
    pub(crate) fn collect_resources(&mut self, rs: &ast::Ruleset, attr_spans: &mut HashMap<String, Span>) {
        if let Some(extra) = rs.resources.get(m::MAX_RESOURCES) {
            self.error(
                Diagnostic::error(TURN_RULES, extra.name.span, format!("more than {} resources", m::MAX_RESOURCES))
                    .with_help(format!("a unit holds at most {} pools; fold the others into attributes", m::MAX_RESOURCES)),
            );
        }
        for r in rs.resources.iter().take(m::MAX_RESOURCES) {
            if r.ty.value != "Int" {
                self.error(
                    Diagnostic::error(TURN_RULES, r.ty.span, format!("a resource is a number of points, not `{}`", r.ty.value))
                        .with_help(format!("write `resource {}: Int = ...`", r.name.value)),
                );
                continue;
            }
            self.syms.resources.push(r.name.value.to_string());
            if self.dup_attr(attr_spans, &r.name) {
                self.syms.bases.push(crate::env::AttrSym { name: r.name.value.to_string(), ty: Type::Int });
            }
        }
    }

    /// The resources (each also an `Int` base whose value the engine keeps per unit) and the turn
    /// rules.
    pub(crate) fn lower_turn(&mut self, rs: &ast::Ruleset, bases: &mut Vec<m::Base>) -> (Vec<m::Resource>, m::TurnRules) {
        let mut resources = Vec::new();
        for r in rs.resources.iter().take(m::MAX_RESOURCES) {
            if r.ty.value != "Int" || bases.iter().any(|b| b.name == r.name.value) {
                continue;
            }
            let scope = Scope::new(Place::Resource, &[]);
            let (value, _) = self.expr(&r.value, &scope, Some(&Type::Int));
            let at = match &r.at {
                None => None,
                Some(at) => match m::Event::from_name(&at.value).filter(|e| REFILL_EVENTS.contains(e)) {
                    Some(e) => Some(e),
                    None => {
                        self.error(
                            Diagnostic::error(TURN_RULES, at.span, format!("a resource cannot be refilled at `{}`", at.value))
                                .with_help(
                                    "refill it `at start_of_round` (once a round) or `at activated` (each activation), \
                                     or leave `at ...` out to set it at deployment only",
                                ),
                        );
                        continue;
                    }
                },
            };
            bases.push(m::Base {
                name: r.name.value.to_string(),
                title: r.title.clone(),
                ty: Type::Int,
                value: m::Value::Int(0),
            });
            resources.push(m::Resource { name: r.name.value.to_string(), title: r.title.clone(), value, at });
        }
        let mut turn = m::TurnRules::default();
        let Some(block) = rs.turns.first() else { return (resources, turn) };
        for extra in rs.turns.iter().skip(1) {
            self.error(
                Diagnostic::error(DUPLICATE_FIELD, extra.span, "a second `turn` block")
                    .with_secondary(block.span, "the first one")
                    .with_help("put the whole turn structure in one `turn` block"),
            );
        }
        let resource_names = || resources.iter().map(|r| r.name.as_str()).collect::<Vec<_>>();
        let check_resource = |c: &mut Self, name: &ast::Ident, what: &str| -> bool {
            if resources.iter().any(|r| r.name == name.value) {
                return true;
            }
            let names = resource_names();
            let help = match did_you_mean(&name.value, names.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None if names.is_empty() => {
                    format!("declare it in the ruleset: `resource {}: Int = ... at start_of_round`", name.value)
                }
                None => format!("the resources are {}", names.join(", ")),
            };
            c.error(
                Diagnostic::error(TURN_RULES, name.span, format!("{what} `{}`, which is not a resource", name.value))
                    .with_help(help),
            );
            false
        };
        let check_dice = |c: &mut Self, name: &ast::Ident| -> bool {
            if c.syms.dice.contains_key(name.value.as_str()) {
                return true;
            }
            let mut names: Vec<String> = c.syms.dice.keys().cloned().collect();
            names.sort();
            let help = match did_you_mean(&name.value, names.iter().map(String::as_str)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => format!("declare it in the ruleset: `dice {} d6`", name.value),
            };
            c.error(Diagnostic::error(UNKNOWN_TABLE, name.span, format!("no die named `{}`", name.value)).with_help(help));
            false
        };
        if let Some(first) = block.order.first() {
            for extra in block.order.iter().skip(1) {
                self.error(
                    Diagnostic::error(DUPLICATE_FIELD, extra.span, "the order is set twice")
                        .with_secondary(first.span, "first set here")
                        .with_help("keep one `order`"),
                );
            }
            turn.order = match &first.value {
                ast::OrderDef::Alternate => m::Order::Alternate,
                ast::OrderDef::Rolloff { dice } => {
                    check_dice(self, dice);
                    m::Order::Rolloff { dice: dice.value.to_string() }
                }
                ast::OrderDef::By { resource, ties } => {
                    check_resource(self, resource, "the order reads");
                    if let Some(t) = ties {
                        check_dice(self, t);
                    }
                    m::Order::By { resource: resource.value.to_string(), ties: ties.as_ref().map(|t| t.value.to_string()) }
                }
            };
        }
        if let Some(first) = block.threat.first() {
            for extra in block.threat.iter().skip(1) {
                self.error(
                    Diagnostic::error(DUPLICATE_FIELD, extra.span, "the threat zone is set twice")
                        .with_secondary(first.span, "first set here")
                        .with_help("keep one `threat`"),
                );
            }
            turn.threat = Some(if first.value == "front" { m::Threat::Front } else { m::Threat::Adjacent });
            turn.threat_shooting = block.threat_shooting;
        }
        if let Some(first) = block.line_of_sight.first() {
            for extra in block.line_of_sight.iter().skip(1) {
                self.error(
                    Diagnostic::error(DUPLICATE_FIELD, *extra, "`line_of_sight` is set twice")
                        .with_secondary(*first, "first set here")
                        .with_help("keep one `line_of_sight`"),
                );
            }
            turn.line_of_sight = true;
        }
        if let Some(first) = block.spend.first() {
            for extra in block.spend.iter().skip(1) {
                self.error(
                    Diagnostic::error(DUPLICATE_FIELD, extra.span, "`spend` is set twice")
                        .with_secondary(first.span, "first set here")
                        .with_help("activations spend one resource"),
                );
            }
            if check_resource(self, first, "the turn spends") {
                turn.spend = Some(first.value.to_string());
            }
        }
        let params: Vec<(String, Type)> = m::STEP_PARAMS.iter().map(|(n, t)| (n.to_string(), t.clone())).collect();
        let mut seen: HashMap<String, Span> = HashMap::new();
        for f in &block.formulas {
            let name = f.name.value.as_str();
            let Some((_, ty)) = TURN_FORMULAS.iter().find(|(n, _)| *n == name) else {
                let known = TURN_FORMULAS.iter().map(|(n, _)| *n);
                let help = match did_you_mean(name, known) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => {
                        "a turn block defines `step_cost` and `declare_step` (Int), `step_allowed`, `respond`, `interrupt`, `opportunity`, `engaged` and `free_attack` (Bool)"
                            .to_string()
                    }
                };
                self.error(Diagnostic::error(TURN_RULES, f.name.span, format!("`{name}` is not a turn formula")).with_help(help));
                continue;
            };
            if let Some(first) = seen.get(name) {
                self.error(
                    Diagnostic::error(DUPLICATE_FIELD, f.name.span, format!("`{name}` is defined twice"))
                        .with_secondary(*first, "first here")
                        .with_help("keep one definition"),
                );
                continue;
            }
            seen.insert(name.to_string(), f.name.span);
            let scope = Scope::new(Place::Step, &params);
            let (expr, got) = self.expr(&f.value, &scope, Some(ty));
            if let Some(got) = got {
                if got != *ty {
                    self.mismatch(f.value.span, ty, &got, &format!("the engine reads `{name}` as {}", crate::env::type_name(ty)));
                    continue;
                }
            }
            match name {
                "step_cost" => turn.step_cost = Some(expr),
                "step_allowed" => turn.step_allowed = Some(expr),
                "interrupt" => turn.interrupt = Some(expr),
                "opportunity" => turn.opportunity = Some(expr),
                "engaged" => turn.engaged = Some(expr),
                "free_attack" => turn.free_attack = Some(expr),
                "declare_step" => turn.declare_step = Some(expr),
                _ => turn.respond = Some(expr),
            }
        }
        if let (Some(span), Some(_)) = (seen.get("interrupt"), &turn.spend) {
            // As `respond`: the mover's act waits, which an activation of paid steps cannot.
            self.error(
                Diagnostic::error(TURN_RULES, *span, "`interrupt` with `spend`: an activation of steps cannot be interrupted")
                    .with_help("drop `interrupt`, or make an activation one step (no `spend`)"),
            );
        }
        if let (Some(span), None) = (seen.get("declare_step"), &turn.respond) {
            self.error(
                Diagnostic::error(TURN_RULES, *span, "`declare_step` without `respond`: no attack is declared")
                    .with_help("add `respond = ...` (which attacks their target may answer), or drop `declare_step`"),
            );
        }
        if let (Some(span), None) = (seen.get("free_attack"), &turn.threat) {
            self.error(
                Diagnostic::error(TURN_RULES, *span, "`free_attack` without threat zones: no free attack is struck").with_help(
                    "add `threat adjacent` or `threat front` (the zones a move draws free attacks from), or drop `free_attack`",
                ),
            );
        }
        if let (Some(span), Some(_)) = (seen.get("respond"), &turn.spend) {
            // An answer interrupts the declarer's activation; one made of paid steps would have
            // to be put on hold and taken up again, which the engine does not do.
            self.error(
                Diagnostic::error(TURN_RULES, *span, "`respond` with `spend`: an activation of steps cannot be answered")
                    .with_help("drop `respond`, or make an activation one step (no `spend`)"),
            );
        }
        if turn.spend.is_none() {
            // The first step formula written (the formulas are hashed: the same span on every run).
            if let Some(span) =
                seen.iter().filter(|(n, _)| matches!(n.as_str(), "step_cost" | "step_allowed")).map(|(_, s)| *s).min()
            {
                self.error(
                    Diagnostic::error(TURN_RULES, span, "step formulas without `spend`: an activation is one step")
                        .with_help("name the resource steps are paid from: `spend stamina`"),
                );
            }
        }
        (resources, turn)
    }
}

impl Checker<'_> {
    /// Reactions: costs in declared resources, a Bool requirement, and strike modifiers of the
    /// reacting unit (no commands: the conformance table's `Always` context).
    pub(crate) fn lower_reactions(
        &mut self,
        rs: &ast::Ruleset,
        resources: &[m::Resource],
        combat: &[m::Formula],
    ) -> Vec<m::Reaction> {
        let formulas: HashMap<String, Type> = combat.iter().map(|f| (f.name.clone(), f.ty.clone())).collect();
        let mut out: Vec<m::Reaction> = Vec::new();
        let mut seen: HashMap<String, Span> = HashMap::new();
        for r in &rs.reactions {
            if let Some(first) = seen.get(r.name.value.as_str()) {
                self.error(
                    Diagnostic::error(DUPLICATE, r.name.span, format!("the reaction `{}` is defined twice", r.name.value))
                        .with_secondary(*first, "first here")
                        .with_help("rename one of them"),
                );
                continue;
            }
            seen.insert(r.name.value.to_string(), r.name.span);
            let mut costs = Vec::new();
            for (res, n) in &r.costs {
                if !resources.iter().any(|x| x.name == res.value) {
                    let names: Vec<&str> = resources.iter().map(|x| x.name.as_str()).collect();
                    let help = match did_you_mean(&res.value, names.iter().copied()) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!("declare it in the ruleset: `resource {}: Int = ... at start_of_round`", res.value),
                    };
                    self.error(
                        Diagnostic::error(TURN_RULES, res.span, format!("`{}` is not a resource", res.value)).with_help(help),
                    );
                    continue;
                }
                if n.value < 0 {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, n.span, "a reaction cannot cost less than nothing")
                            .with_help("write a cost of 0 or more"),
                    );
                    continue;
                }
                costs.push((res.value.to_string(), n.value));
            }
            let reroll = r.reroll.as_ref().and_then(|x| self.reroll(r, x, &formulas));
            // A reroll's requirement reads the strike as rolled: the combat formulas, `attacker`
            // the striker.
            let scope = match &reroll {
                Some(_) => Scope { params: &[], place: Place::Formula, formulas: Some(&formulas) },
                None => Scope::new(Place::Strike, &[]),
            };
            let mut requires = None;
            for e in &r.requires {
                let (expr, ty) = self.expr(e, &scope, Some(&Type::Bool));
                if let Some(ty) = ty.filter(|t| *t != Type::Bool) {
                    self.mismatch(e.span, &Type::Bool, &ty, "a requirement is true or false");
                    continue;
                }
                requires = Some(match requires {
                    None => expr,
                    Some(prev) => {
                        m::Expr::Binary { op: m::BinaryOp::And, ty: Type::Bool, lhs: Box::new(prev), rhs: Box::new(expr) }
                    }
                });
            }
            let modifiers = self.effects(&r.modifiers, &scope, false);
            self.check_contexts(&r.modifiers, oc_model::conformance::Context::Always);
            out.push(m::Reaction {
                name: r.name.value.to_string(),
                title: r.title.clone(),
                doc: r.doc.clone(),
                costs,
                requires,
                modifiers,
                riposte: r.riposte.is_some(),
                reroll,
            });
        }
        out
    }

    /// A reaction's `reroll FORMULA [by attacker|defender]`: a combat formula that reads a roll,
    /// in a reaction with no modifiers and no riposte (it is taken once the dice are rolled).
    fn reroll(&mut self, r: &ast::ReactionDef, x: &ast::RerollDef, formulas: &HashMap<String, Type>) -> Option<m::Reroll> {
        let name = x.formula.value.as_str();
        if !formulas.contains_key(name) {
            let mut names: Vec<&str> = formulas.keys().map(String::as_str).collect();
            names.sort_unstable();
            let help = match did_you_mean(name, names.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None => "name a combat formula that reads a roll, such as `_damage = roll(attacker.damage_dice)`".to_string(),
            };
            self.error(
                Diagnostic::error(COMBAT_FORMULA, x.formula.span, format!("`{name}` is not a combat formula")).with_help(help),
            );
            return None;
        }
        if !self.notes.rolling_formulas.contains(name) {
            self.error(
                Diagnostic::error(
                    COMBAT_FORMULA,
                    x.formula.span,
                    format!("`{name}` reads no roll: there is nothing to roll again"),
                )
                .with_help("reroll a formula that reads a die, such as `_damage = roll(attacker.damage_dice)`"),
            );
            return None;
        }
        if !r.modifiers.is_empty() {
            self.error(
                Diagnostic::error(TURN_RULES, x.span, "a reroll cannot also change attributes")
                    .with_secondary(r.name.span, "this reaction is taken once the dice are rolled, after the attributes count")
                    .with_help("move the modifiers into a reaction of their own, taken before the strike"),
            );
        }
        if let Some(span) = r.riposte {
            self.error(
                Diagnostic::error(TURN_RULES, span, "a reroll has no riposte")
                    .with_secondary(x.span, "a reaction to a roll")
                    .with_help("give the riposte to a reaction taken before the strike"),
            );
        }
        Some(m::Reroll { formula: name.to_string(), struck: x.by.as_ref().is_some_and(|b| b.value == "defender") })
    }

    /// The combat block's `gain attacker|defender RESOURCE = EXPR` lines: a declared resource, a
    /// number read like a combat formula.
    pub(crate) fn lower_gains(&mut self, rs: &ast::Ruleset, resources: &[m::Resource], combat: &[m::Formula]) -> Vec<m::Gain> {
        let formulas: HashMap<String, Type> = combat.iter().map(|f| (f.name.clone(), f.ty.clone())).collect();
        let mut out = Vec::new();
        for g in rs.combat.iter().take(1).flat_map(|b| &b.gains) {
            if !resources.iter().any(|x| x.name == g.resource.value) {
                let names: Vec<&str> = resources.iter().map(|x| x.name.as_str()).collect();
                let help = match did_you_mean(&g.resource.value, names.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("declare it in the ruleset: `resource {}: Int = 0`", g.resource.value),
                };
                self.error(
                    Diagnostic::error(TURN_RULES, g.resource.span, format!("`{}` is not a resource", g.resource.value))
                        .with_help(help),
                );
                continue;
            }
            let scope = Scope { params: &[], place: Place::Formula, formulas: Some(&formulas) };
            let (value, ty) = self.expr(&g.value, &scope, Some(&Type::Int));
            if let Some(ty) = ty.filter(|t| *t != Type::Int) {
                self.mismatch(g.value.span, &Type::Int, &ty, "a gain is a number of points");
                continue;
            }
            out.push(m::Gain { struck: g.side.value == "defender", resource: g.resource.value.to_string(), value });
        }
        out
    }
}
