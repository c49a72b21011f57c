//! Where effects may appear: every command, `on`, `grant` and modifier is checked against
//! `oc_model::conformance` (the table the engine executes), so what compiles is what runs.

use oc_diag::Diagnostic;
use oc_model as m;
use oc_model::conformance::{self as conf, Context, Fires};
use oc_syntax::ast::{self, ExprKind};

use crate::codes::*;
use crate::env::Checker;

impl Checker<'_> {
    /// Checks the statements of a body whose effects appear in `context` (a tag's or status's
    /// body and an item's modifiers: [`Context::Always`]; a consumable's `use`: [`Context::Use`]).
    pub(crate) fn check_contexts(&mut self, stmts: &[ast::Stmt], context: Context) {
        for s in stmts {
            self.check_context(s, context);
        }
    }

    fn check_context(&mut self, s: &ast::Stmt, context: Context) {
        match s {
            ast::Stmt::Modify { place, span, .. } => {
                let other = place.first().filter(|p| place.len() > 1 && !matches!(p.value.as_str(), "self" | "user"));
                if let (Context::Always, Some(unit)) = (context, other) {
                    if m::UnitRef::ALL.iter().any(|(n, _)| *n == unit.value) {
                        self.error(
                            Diagnostic::error(EFFECT_CONTEXT, unit.span, format!("a standing modifier on `{}`", unit.value))
                                .with_label("there is no other unit outside a strike")
                                .with_help(
                                    "a tag's modifiers change its holder; to change the other unit of a strike, write it in a `when`: \
                                     `when attacker == self { foe.def -= 1 }`",
                                ),
                        );
                    }
                }
                if !matches!(context, Context::Always | Context::When) {
                    self.error(
                        Diagnostic::error(EFFECT_CONTEXT, *span, format!("a modifier in {}", context.describe()))
                            .with_label("this would never apply")
                            .with_help(
                                "modifiers hold while a tag or status is held: write them at the top of its body or in a `when`; \
                                 to change a unit once, use a command such as `debuff(foe, def-1)` or `inflict(foe, Slowed)`",
                            ),
                    );
                }
            }
            ast::Stmt::Grant { span, .. } => {
                if context != Context::Always {
                    self.error(
                        Diagnostic::error(EFFECT_CONTEXT, *span, format!("`grant` in {}", context.describe()))
                            .with_label("this would never apply")
                            .with_help(
                                "a tag grants another for as long as it is held: write `grant` at the top of its body; \
                                 to give a unit a status for a while, `inflict` it",
                            ),
                    );
                }
            }
            ast::Stmt::When { body, .. } => {
                let inner = if context == Context::Always { Context::When } else { context };
                self.check_contexts(body, inner);
            }
            ast::Stmt::On { event, body, .. } => {
                let Some(ev) = m::Event::from_name(&event.value) else { return };
                if context != Context::Always {
                    self.error(
                        Diagnostic::error(
                            EFFECT_CONTEXT,
                            event.span,
                            format!("`on {}` inside {}", event.value, context.describe()),
                        )
                        .with_label("this would never run")
                        .with_help("write `on EVENT { ... }` at the top of a tag's or status's body"),
                    );
                    return;
                }
                self.check_contexts(body, Context::Trigger(ev));
            }
            ast::Stmt::Action(a) => self.check_contexts(&a.body, Context::Action),
            ast::Stmt::Command { verb, args, .. } => self.check_command(verb, args, context),
        }
    }

    fn check_command(&mut self, verb: &ast::Ident, args: &[ast::Expr], context: Context) {
        let Some(spec) = conf::verb_named(&verb.value) else { return };
        if !spec.allows(context) {
            self.error(
                Diagnostic::error(EFFECT_CONTEXT, verb.span, format!("`{}` cannot be used in {}", spec.name, context.describe()))
                    .with_label("the engine never performs it here")
                    .with_help(format!("`{}` may be used in {}", spec.name, where_allowed(spec))),
            );
            return;
        }
        if spec.params.first() == Some(&m::Type::Unit) {
            if let Some(arg) = args.first() {
                self.check_unit_arg(spec.name, arg, context);
            }
        }
        if let (m::Verb::Shift, Context::Trigger(event)) = (spec.verb, context) {
            let want = conf::shift_form(event);
            if let (Some(want), Some(ast::Expr { kind: ExprKind::Str(form), span })) = (want, args.first()) {
                if form != want && (form == "normal" || form == "transformed") {
                    self.error(
                        Diagnostic::error(EFFECT_CONTEXT, *span, format!("`shift(\"{form}\")` in {}", context.describe()))
                            .with_label("the shifting rule does the opposite here")
                            .with_help(
                                "a shifter is transformed when it is activated and normal again when its turn ends: \
                                 `on activated { shift(\"transformed\") }`, `on end_of_turn { shift(\"normal\") }`",
                            ),
                    );
                }
            }
        }
    }

    fn check_unit_arg(&mut self, verb: &str, arg: &ast::Expr, context: Context) {
        let ExprKind::Name(name) = &arg.kind else { return };
        let Some((_, unit)) = m::UnitRef::ALL.iter().find(|(n, _)| n == name) else { return };
        let allowed = conf::units_in(context);
        if allowed.contains(unit) {
            return;
        }
        let names: Vec<String> =
            m::UnitRef::ALL.iter().filter(|(n, u)| allowed.contains(u) && *n != "user").map(|(n, _)| format!("`{n}`")).collect();
        let help = if names.is_empty() {
            "nothing here names a unit".to_string()
        } else {
            format!("here `{verb}` can name {}", names.join(" or "))
        };
        let why = match context {
            Context::Trigger(e) if conf::event_spec(e).is_some_and(|s| s.fires == Fires::Battle) => {
                format!("there is no `{name}` in {}: {}", context.describe(), conf::event_spec(e).map_or("", |s| s.doc))
            }
            Context::Use => format!(
                "there is no `{name}` in {}: it acts on its user; wrap it in `action {{ target ... }}` to reach another unit",
                context.describe()
            ),
            _ => format!("there is no `{name}` in {}", context.describe()),
        };
        self.error(Diagnostic::error(EFFECT_CONTEXT, arg.span, why).with_label("no such unit here").with_help(help));
    }

    /// `status ... clears at EVENT` and terrain `heal N at EVENT`: only where the engine checks them.
    pub(crate) fn check_timed_event(&mut self, event: &ast::Ident, what: Timed) {
        let Some(spec) = m::Event::from_name(&event.value).and_then(conf::event_spec) else { return };
        let ok = match what {
            Timed::Clears => spec.clears,
            Timed::TerrainHeal => spec.terrain_heal,
        };
        if ok {
            return;
        }
        let thing = if what == Timed::Clears { "a status clears" } else { "a terrain heals" };
        let list: Vec<String> = conf::EVENTS
            .iter()
            .filter(|e| if what == Timed::Clears { e.clears } else { e.terrain_heal })
            .map(|e| format!("`{}`", e.name))
            .collect();
        self.error(
            Diagnostic::error(
                EFFECT_CONTEXT,
                event.span,
                format!("{thing} only at {}, not at `{}`", list.join(" or "), spec.name),
            )
            .with_label("never checked at this event")
            .with_help(format!("write `at {}`", list.first().map_or("start_of_round", |s| s.trim_matches('`')))),
        );
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Timed {
    Clears,
    TerrainHeal,
}

/// "`on` any event, an `action`, a consumable's `use`".
fn where_allowed(spec: &conf::VerbSpec) -> String {
    let mut parts = Vec::new();
    if spec.always {
        parts.push("the body of a tag or status".to_string());
    }
    if spec.when {
        parts.push("a `when` there".to_string());
    }
    if spec.on.len() == conf::EVENTS.len() {
        parts.push("`on` any event".to_string());
    } else if !spec.on.is_empty() {
        let names: Vec<String> =
            spec.on.iter().filter_map(|e| conf::event_spec(*e)).map(|s| format!("`on {}`", s.name)).collect();
        parts.push(names.join(", "));
    }
    if spec.action {
        parts.push("an `action`".to_string());
    }
    if spec.use_ {
        parts.push("a consumable's `use`".to_string());
    }
    parts.join(", ")
}

#[cfg(test)]
mod tests {
    use oc_model::conformance as conf;

    /// The words between `rule = @{ (` and `)` in the grammar.
    fn words(rule: &str) -> Vec<String> {
        let grammar = include_str!("../../../grammar/oc.pest");
        let tail = grammar.split(&format!("\n{rule} ")).nth(1).unwrap_or_default();
        let body = tail.split("!ident_char").next().unwrap_or_default();
        assert!(!body.is_empty(), "no rule {rule}");
        body.split('"').skip(1).step_by(2).map(str::to_string).collect()
    }

    #[test]
    fn the_grammar_knows_exactly_the_tables_verbs_and_events() {
        let mut verbs = words("verb");
        let mut table: Vec<String> = conf::VERBS.iter().map(|v| v.name.to_string()).collect();
        verbs.sort();
        table.sort();
        assert_eq!(verbs, table);
        let mut events = words("event");
        let mut table: Vec<String> = conf::EVENTS.iter().map(|e| e.name.to_string()).collect();
        events.sort();
        table.sort();
        assert_eq!(events, table);
    }
}
