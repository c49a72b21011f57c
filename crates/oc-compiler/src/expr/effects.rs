//! Effects: the statements of tags, statuses, items, triggers and actions, checked and lowered
//! to `Effect`s (commands, modifiers, conditions).

use oc_diag::{did_you_mean, Diagnostic};
use oc_model as m;
use oc_model::Type;
use oc_syntax::ast::{self, ExprKind};

use oc_model::conformance::Place;

use super::Scope;
use crate::codes::*;
use crate::env::{stmt_span, type_name, Checker};

/// The attributes the engine reads of a unit as it is built (to move, see, use an item's
/// charges, attack an area or pick its attack form; its most hit points), never strike by
/// strike: a `when` of a body, which applies strike by strike, cannot change them.
const OUTSIDE_STRIKE: [&str; 9] =
    ["movement", "movement_type", "can_move", "canto", "vision", "charges", "area_attack", "attack_form", "hp"];

impl<'a> Checker<'a> {
    pub fn effects(&mut self, stmts: &[ast::Stmt], scope: &Scope, top: bool) -> Vec<m::Effect> {
        let mut out = Vec::new();
        for s in stmts {
            if let Some(effect) = self.effect(s, scope, top) {
                out.push(effect);
            }
        }
        out
    }

    fn effect(&mut self, s: &ast::Stmt, scope: &Scope, top: bool) -> Option<m::Effect> {
        match s {
            ast::Stmt::Modify { place, op, value, span } => self.modify(place, *op, value, *span, scope),
            ast::Stmt::When { condition, body, .. } => {
                // At the top of a body, a condition is a strike's; inside a trigger or an action it
                // is read where its commands run.
                let inner = if scope.place == Place::Standing { scope.at(Place::Strike) } else { *scope };
                let (c, ty) = self.expr(condition, &inner, Some(&Type::Bool));
                if let Some(ty) = ty {
                    if ty != Type::Bool {
                        self.mismatch(condition.span, &Type::Bool, &ty, "`when` needs a condition, such as `foe has Flying`");
                    }
                }
                let then = self.effects(body, &inner, false);
                Some(m::Effect::When { condition: c, then })
            }
            ast::Stmt::On { event, body, .. } => {
                let event = m::Event::from_name(&event.value)?;
                let then = self.effects(body, &scope.at(Place::Trigger(event)), false);
                Some(m::Effect::On { event, then })
            }
            ast::Stmt::Grant { tag, .. } => {
                if tag.args.is_empty() && scope.params.iter().any(|(p, t)| *p == tag.name.value && *t == Type::Tag) {
                    return Some(m::Effect::GrantParam { param: tag.name.value.to_string() });
                }
                let Some(sig) = self.syms.tags.get(tag.name.value.as_str()).cloned() else {
                    let names = self.syms.tags.order.clone();
                    self.unknown_in::<()>(UNKNOWN_TAG, "tag", &tag.name, names, None);
                    return None;
                };
                let args = self.tag_args(tag, &sig, scope)?;
                Some(m::Effect::Grant { tag: tag.name.value.to_string(), args })
            }
            ast::Stmt::Action(a) => {
                if !top {
                    self.error(
                        Diagnostic::error(EFFECT_CONTEXT, a.span, "an action inside another effect")
                            .with_help("declare `action { ... }` at the top of the tag's body or of a consumable's `use`"),
                    );
                    return None;
                }
                let target = match a.target.as_ref().map(|t| t.kind.value.as_str()) {
                    Some("ally") => m::ActionTarget::Ally,
                    Some("enemy") => m::ActionTarget::Enemy,
                    Some("enemies") => m::ActionTarget::Enemies,
                    Some("unit") => m::ActionTarget::Unit,
                    Some("self_or_ally") => m::ActionTarget::SelfOrAlly,
                    Some("tile") => m::ActionTarget::Tile,
                    Some("door") => m::ActionTarget::Door,
                    Some("chest") => m::ActionTarget::Chest,
                    _ => m::ActionTarget::SelfOnly,
                };
                let range = |c: &mut Self, e: &Option<ast::Expr>| -> Option<m::Expr> {
                    let e = e.as_ref()?;
                    let (x, ty) = c.expr(e, &scope.at(Place::Reach), Some(&Type::Int));
                    if let Some(ty) = ty {
                        if ty != Type::Int {
                            c.mismatch(e.span, &Type::Int, &ty, "an action's range is a number of tiles");
                        }
                    }
                    Some(x)
                };
                let min_range = a.target.as_ref().and_then(|t| range(self, &t.min));
                let max_range = a.target.as_ref().and_then(|t| range(self, &t.max));
                // `within 3..1` reaches no tile at all.
                if let (Some(m::Expr::Const(m::Value::Int(lo))), Some(m::Expr::Const(m::Value::Int(hi))), Some(t)) =
                    (&min_range, &max_range, &a.target)
                {
                    if lo > hi {
                        let span = t.min.as_ref().zip(t.max.as_ref()).map_or(t.kind.span, |(l, h)| l.span.to(h.span));
                        self.error(
                            Diagnostic::error(ACTION_REACH, span, format!("the reach {lo}..{hi} is empty"))
                                .with_label(format!("no tile is at least {lo} and at most {hi} tiles away"))
                                .with_help(format!("write the nearer bound first: `within {hi}..{lo}`")),
                        );
                    }
                }
                // `self` and `self_or_ally` name the user, 0 tiles from itself: a least distance
                // written above 0 leaves it out (`within N` alone is `N..N`).
                if matches!(target, m::ActionTarget::SelfOnly | m::ActionTarget::SelfOrAlly) {
                    let least = a.target.as_ref().and_then(|t| t.min.as_ref().or(t.max.as_ref()));
                    if let (Some(e), Some(m::Expr::Const(m::Value::Int(n)))) = (least, min_range.as_ref().or(max_range.as_ref()))
                    {
                        if *n > 0 {
                            let kind = a.target.as_ref().map_or("self", |t| t.kind.value.as_str());
                            self.error(
                                Diagnostic::error(
                                    ACTION_REACH,
                                    e.span,
                                    format!(
                                        "`target {kind}` reaches no nearer than {n} {}, so never the user itself",
                                        if *n == 1 { "tile" } else { "tiles" }
                                    ),
                                )
                                .with_label("the user stands 0 tiles from itself")
                                .with_help(if kind == "self" {
                                    "drop the reach: `target self` acts on the user".to_string()
                                } else {
                                    format!("start the reach at 0: `within 0..{n}` (the user or an ally), or write `target ally`")
                                }),
                            );
                        }
                    }
                }
                let mut requires = Vec::new();
                for r in &a.requires {
                    let (x, ty) = self.expr(r, &scope.at(Place::requires(target)), Some(&Type::Bool));
                    if let Some(ty) = ty {
                        if ty != Type::Bool {
                            self.mismatch(r.span, &Type::Bool, &ty, "`requires` needs a condition");
                        }
                    }
                    requires.push(x);
                }
                // `cost`: read where its range is, before a target is chosen (the step prices it).
                let cost = a.cost.as_ref().and_then(|e| range(self, &Some((**e).clone())));
                if let (Some(e), None) = (&a.cost, &a.charge) {
                    self.notes.action_costs.push(e.span);
                }
                let charge = a.charge.as_ref().and_then(|r| {
                    if self.syms.resources.iter().any(|x| *x == r.value.as_str()) {
                        Some(r.value.to_string())
                    } else {
                        let names = self.syms.resources.clone();
                        self.unknown_in::<()>(UNKNOWN_NAME, "resource", r, names, None);
                        None
                    }
                });
                // `sequence N`: a tag's action taken before the move, in step order. A consumable's
                // action is used as the turn's act (`Act::Use`), never before the move.
                let sequence = a.sequence.as_ref().and_then(|n| {
                    let why = if scope.place == Place::Use {
                        Some("a consumable's action is used as the turn's act, never in the sequence before the move")
                    } else if n.value < 1 {
                        Some("a step of the sequence is a whole number from 1")
                    } else {
                        None
                    };
                    match why {
                        Some(why) => {
                            self.error(
                                Diagnostic::error(ACTION_SEQUENCE, n.span, format!("`sequence {}` cannot be taken", n.value))
                                    .with_label(why)
                                    .with_help("write `sequence N` (N >= 1) in the action of a tag, or leave it out"),
                            );
                            None
                        }
                        None => Some(n.value),
                    }
                });
                let effects = self.effects(&a.body, &scope.at(Place::action(target)), false);
                Some(m::Effect::Action(m::Action { target, min_range, max_range, requires, effects, cost, charge, sequence }))
            }
            ast::Stmt::Command { verb, args, span } => {
                let spec = m::conformance::verb_named(&verb.value)?;
                let (v, params) = (&spec.verb, spec.params);
                if args.len() != params.len() {
                    let shape: Vec<String> = params.iter().map(type_name).collect();
                    self.error(
                        Diagnostic::error(
                            EFFECT_COMMAND,
                            *span,
                            format!("`{}` takes {} argument(s), {} given", verb.value, params.len(), args.len()),
                        )
                        .with_help(format!("write `{}({})`", verb.value, shape.join(", "))),
                    );
                    return None;
                }
                let mut lowered = Vec::new();
                for (arg, want) in args.iter().zip(params.iter()) {
                    if *want == Type::StatMod {
                        match &arg.kind {
                            ExprKind::Name(p) if scope.params.iter().any(|(n, t)| n == p && *t == Type::StatMod) => {
                                lowered.push(m::Expr::Param(p.to_string()));
                            }
                            _ => lowered.push(m::Expr::Const(self.stat_mod(arg, &verb.value)?)),
                        }
                        continue;
                    }
                    // Which units a command may name is the conformance table's (`context.rs`).
                    if let (Type::Unit, ExprKind::Name(n)) = (want, &arg.kind) {
                        if let Some(u) = super::unit_named(n) {
                            lowered.push(m::Expr::Unit(u));
                            continue;
                        }
                    }
                    let (x, ty) = self.expr(arg, scope, Some(want));
                    let ty = ty?;
                    if ty != *want {
                        self.error(
                            Diagnostic::error(
                                EFFECT_COMMAND,
                                arg.span,
                                format!("`{}` expects {} here, found {}", verb.value, type_name(want), type_name(&ty)),
                            )
                            .with_help(format!("see `oc explain {EFFECT_COMMAND}` for every primitive's arguments")),
                        );
                        return None;
                    }
                    lowered.push(x);
                }
                // A written amount below 0 heals or hurts nothing (the engine takes no HP back
                // with `damage` and deals none with `heal`): said, not run as a no-op.
                if matches!(v, m::Verb::Heal | m::Verb::Damage) {
                    let amount = match lowered.get(1) {
                        Some(m::Expr::Const(m::Value::Int(n))) => Some(*n),
                        Some(m::Expr::Unary { op: m::UnaryOp::Neg, expr }) => match &**expr {
                            m::Expr::Const(m::Value::Int(n)) => Some(-*n),
                            _ => None,
                        },
                        _ => None,
                    };
                    if let (Some(n), Some(arg)) = (amount.filter(|n| *n < 0), args.get(1)) {
                        let other = if *v == m::Verb::Heal { "damage" } else { "heal" };
                        self.error(
                            Diagnostic::error(EFFECT_COMMAND, arg.span, format!("`{}` of {n} does nothing", verb.value))
                                .with_label("an amount below 0 is taken as none")
                                .with_help(format!("write `{other}(..., {})` for the other way", -n)),
                        );
                        return None;
                    }
                }
                if *v == m::Verb::Shift {
                    if let Some(m::Expr::Const(m::Value::Str(form))) = lowered.first() {
                        if form != "normal" && form != "transformed" {
                            self.error(
                                Diagnostic::error(EFFECT_COMMAND, stmt_span(s), format!("no form called `{form}`"))
                                    .with_help("shift to \"normal\" or \"transformed\""),
                            );
                        }
                    }
                }
                Some(m::Effect::Command { verb: *v, args: lowered })
            }
        }
    }

    fn modify(
        &mut self,
        place: &[ast::Ident],
        op: ast::AssignOp,
        value: &ast::Expr,
        span: oc_diag::Span,
        scope: &Scope,
    ) -> Option<m::Effect> {
        let place_span = place.first().map_or(span, |f| f.span.to(place.last().map_or(f.span, |l| l.span)));
        let parts: Vec<&str> = place.iter().map(|p| p.value.as_str()).collect();
        let (unit, rest) = match parts.split_first() {
            // Where the unit may be changed is `context.rs`'s to say (`oc::effect::context`).
            Some((first, rest)) if !rest.is_empty() && super::unit_named(first).is_some() => (super::unit_named(first), rest),
            _ => (Some(m::UnitRef::Holder), parts.as_slice()),
        };
        let unit = unit.unwrap_or(m::UnitRef::Holder);
        let (attribute, ty) = match rest {
            [param, "stat"] if scope.params.iter().any(|(n, t)| n == param && *t == Type::StatMod) => {
                (m::AttributeRef::StatOfParam((*param).to_string()), None)
            }
            [name] => match self.attribute_type(name) {
                Some(ty) => (m::AttributeRef::Named((*name).to_string()), Some(ty)),
                None => {
                    let names = self.attribute_names();
                    let help = match did_you_mean(name, names.iter().copied()) {
                        Some(s) => format!("did you mean `{s}`?"),
                        None => format!("effects change a stat or base attribute: {}", names.join(", ")),
                    };
                    self.error(
                        Diagnostic::error(EFFECT_PLACE, place_span, format!("`{name}` is not a stat or base attribute"))
                            .with_help(help),
                    );
                    return None;
                }
            },
            _ => {
                self.error(
                    Diagnostic::error(EFFECT_PLACE, place_span, format!("cannot change `{}`", parts.join(".")))
                        .with_help("change an attribute of a unit: `movement += 1`, `foe.def = E`, or `b.stat += b.amount` for a StatMod parameter"),
                );
                return None;
            }
        };
        // In a strike (a `when` of a tag's, status's or class's body, a reaction's modifiers)
        // only what the exchange reads changes: these are read as a unit is built, to move,
        // see, hold charges or pick its attack form, never per strike (`oc::effect::outside_strike`).
        if let (Place::Strike, m::AttributeRef::Named(name)) = (scope.place, &attribute) {
            if OUTSIDE_STRIKE.contains(&name.as_str()) {
                self.error(
                    Diagnostic::error(
                        EFFECT_OUTSIDE_STRIKE,
                        place_span,
                        format!("`{name}` never changes in a strike, where this `when` applies"),
                    )
                    .with_label(format!("`{name}` is read outside combat"))
                    .with_help(if name == "hp" {
                        "a `when` holds strike by strike; to raise the most hit points, write `hp += N` outside the `when`; to heal, `on EVENT { when ... { heal(self, N) } }`".to_string()
                    } else {
                        format!("a `when` holds strike by strike; `{name}` is read as the unit moves or acts: write `{name}` outside the `when`, or give it with a status laid by an event (`on EVENT {{ when ... {{ inflict(self, S) }} }}`)")
                    }),
                );
                return None;
            }
        }
        let want = match (&ty, op) {
            (None, _) => None,
            (Some(Type::Int), _) => Some(Type::Int),
            (Some(Type::Scale(_)), ast::AssignOp::Add | ast::AssignOp::Sub) => Some(Type::Int),
            (Some(t), ast::AssignOp::Set) => Some(t.clone()),
            (Some(t), _) => {
                self.error(
                    Diagnostic::error(
                        EFFECT_PLACE,
                        span,
                        format!("`+=` and `-=` need a number or rating, and `{}` is {}", parts.join("."), type_name(t)),
                    )
                    .with_help("set it with `=` instead"),
                );
                return None;
            }
        };
        let (x, got) = self.expr(value, scope, want.as_ref().or(Some(&Type::Int)));
        let got = got?;
        let want = want.unwrap_or(Type::Int);
        if got != want {
            let help = match (&want, &got) {
                (Type::Int, Type::Scale(_)) => "`+=` and `-=` shift a rating by a number of steps: write a number".to_string(),
                _ => format!("`{}` takes {}", parts.join("."), type_name(&want)),
            };
            self.mismatch(value.span, &want, &got, &help);
            return None;
        }
        let op = match op {
            ast::AssignOp::Add => m::AssignOp::Add,
            ast::AssignOp::Sub => m::AssignOp::Sub,
            ast::AssignOp::Set => m::AssignOp::Set,
        };
        Some(m::Effect::Modify { place: m::Place { unit, attribute }, op, value: x })
    }
}
