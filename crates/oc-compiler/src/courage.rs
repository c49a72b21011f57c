//! The advanced rule of courage (`courage { check ... losses ... routs within N  fear TAG within
//! N  rally ...  pursuit }`, seed 003) and a scenario's `advanced NAME, ...` that plays it. What
//! it means in a battle is the engine's (`oc_engine::battle`, courage.rs).

use oc_diag::{did_you_mean, Diagnostic};
use oc_model::conformance::Place;
use oc_model::{self as m, Type};
use oc_syntax::ast;

use crate::codes::*;
use crate::env::Checker;
use crate::expr::Scope;

/// The ruleset's optional rules a scenario may switch on with `advanced`.
pub(crate) fn advanced_rules(rules: &m::Rules) -> Vec<&'static str> {
    let mut out = Vec::new();
    if rules.ruleset.courage.is_some() {
        out.push("courage");
    }
    if rules.ruleset.leadership.is_some() {
        out.push("leadership");
    }
    if rules.ruleset.situations.is_some() {
        out.push("situations");
    }
    if rules.ruleset.weather.is_some() {
        out.push("weather");
    }
    if rules.ruleset.charging.is_some() {
        out.push("charging");
    }
    if rules.ruleset.formations.is_some() {
        out.push("formations");
    }
    if rules.ruleset.area.is_some() {
        out.push("area");
    }
    out
}

/// A scenario's `advanced NAME, ...`: each an optional rule the ruleset defines, once.
pub(crate) fn lower_advanced(def: &ast::ScenarioDef, rules: &m::Rules, diags: &mut Vec<Diagnostic>) -> Vec<String> {
    let known = advanced_rules(rules);
    let mut out: Vec<String> = Vec::new();
    for name in &def.advanced {
        if !known.contains(&name.value.as_str()) {
            let help = match did_you_mean(&name.value, known.iter().copied()) {
                Some(s) => format!("did you mean `{s}`?"),
                None if known.is_empty() => {
                    "this ruleset has no advanced rules: a ruleset defines one with a block such as `courage { ... }`".to_string()
                }
                None => format!("the ruleset's advanced rules are {}", known.join(", ")),
            };
            diags.push(
                Diagnostic::error(SCENARIO_ADVANCED, name.span, format!("the ruleset has no advanced rule `{}`", name.value))
                    .with_help(help),
            );
            continue;
        }
        if out.iter().any(|n| *n == name.value) {
            diags.push(
                Diagnostic::error(DUPLICATE_FIELD, name.span, format!("`{}` is switched on twice", name.value))
                    .with_help("name each advanced rule once"),
            );
            continue;
        }
        out.push(name.value.to_string());
    }
    out
}

/// `advanced leadership`: each side designates one general (seed 003: "Players must designate
/// one general per army"): `grant TAG to 1` and `at_least 1 with TAG`, TAG the ruleset's
/// `general`.
pub(crate) fn check_general(
    def: &ast::ScenarioDef,
    advanced: &[String],
    rules: &m::Rules,
    sides: [&m::SideRules; 2],
    diags: &mut Vec<Diagnostic>,
) {
    let Some(rule) = rules.ruleset.leadership.as_ref().filter(|_| advanced.iter().any(|a| a == "leadership")) else { return };
    let tag = &rule.general;
    let span = def.advanced.iter().find(|a| a.value == "leadership").map_or(def.name.span, |a| a.span);
    for side in sides {
        let granted = side.grants.iter().any(|(t, n)| t == tag && *n == 1);
        let named = side
            .limits
            .iter()
            .any(|l| l.at_least && l.numerator >= 1 && l.denominator <= 1 && l.selector == m::Selector::WithTag(tag.clone()));
        if granted && named {
            continue;
        }
        diags.push(
            Diagnostic::error(
                SCENARIO_GENERAL,
                span,
                format!("the {} does not designate one general (`{tag}`) for its army", side.side.word()),
            )
            .with_help(format!("in its `{}` block write `grant {tag} to 1` and `at_least 1 with {tag}`", side.side.word())),
        );
    }
}

impl Checker<'_> {
    /// The ruleset's `courage` block, if any (one, with a `check`).
    pub(crate) fn lower_courage(&mut self, rs: &ast::Ruleset) -> Option<m::Courage> {
        let block = rs.courage.first()?;
        for extra in rs.courage.iter().skip(1) {
            self.error(
                Diagnostic::error(DUPLICATE_FIELD, extra.span, "a second `courage` block")
                    .with_secondary(block.span, "the first one")
                    .with_help("put the whole rule in one `courage` block"),
            );
        }
        let twice = |c: &mut Self, spans: &[oc_diag::Span], what: &str| {
            for extra in spans.iter().skip(1) {
                c.error(
                    Diagnostic::error(DUPLICATE_FIELD, *extra, format!("`{what}` is given twice"))
                        .with_help(format!("keep one `{what}`")),
                );
            }
        };
        twice(self, &block.check.iter().map(|e| e.span).collect::<Vec<_>>(), "check");
        twice(self, &block.losses.iter().map(|e| e.span).collect::<Vec<_>>(), "losses");
        twice(self, &block.rally.iter().map(|e| e.span).collect::<Vec<_>>(), "rally");
        twice(self, &block.routs_within.iter().map(|e| e.span).collect::<Vec<_>>(), "routs within");
        twice(self, &block.fear.iter().map(|(t, _)| t.span).collect::<Vec<_>>(), "fear");
        let Some(check) = block.check.first() else {
            self.error(
                Diagnostic::error(MISSING_FIELD, block.span, "a `courage` block without a `check`")
                    .with_help("give the roll and its target: `check roll(courage) <= self.courage`"),
            );
            return None;
        };
        // Every part is checked before the block is given up, so each mistake is reported.
        let check = self.courage_roll(check, "check");
        let losses = match block.losses.first() {
            None => None,
            Some(e) => {
                let params = courage_params();
                let scope = Scope::new(Place::Resource, &params);
                let (expr, ty) = self.expr(e, &scope, Some(&Type::Bool));
                match ty {
                    Some(t) if t != Type::Bool => {
                        self.mismatch(e.span, &Type::Bool, &t, "`losses` says whether a unit has taken heavy losses");
                        None
                    }
                    _ => Some(expr),
                }
            }
        };
        let within = |c: &mut Self, n: &oc_diag::Spanned<i64>| -> Option<i64> {
            if (1..=64).contains(&n.value) {
                return Some(n.value);
            }
            c.error(
                Diagnostic::error(NUMBER_RANGE, n.span, format!("a distance of {} tiles is out of range", n.value))
                    .with_help("write a number of tiles from 1 to 64"),
            );
            None
        };
        let routs_within = block.routs_within.first().and_then(|n| within(self, n));
        let fear = match block.fear.first() {
            None => None,
            Some((tag, n)) => {
                if self.syms.tags.get(tag.value.as_str()).is_none() {
                    let names = self.syms.tags.order.clone();
                    self.unknown_in::<()>(UNKNOWN_TAG, "tag", tag, names, None);
                    None
                } else {
                    within(self, n).map(|n| (tag.value.to_string(), n))
                }
            }
        };
        let rally = match block.rally.first() {
            None => Some(None),
            Some(e) => self.courage_roll(e, "rally").map(Some),
        };
        Some(m::Courage {
            check: check?,
            losses,
            routs_within,
            fear,
            rally: rally?,
            pursuit: block.pursuit.is_some(),
            surrender: block.surrender.is_some(),
        })
    }

    /// `A OP B` of two numbers (a comparison), read with `self` the unit testing.
    pub(crate) fn courage_roll(&mut self, e: &ast::Expr, what: &str) -> Option<m::CourageRoll> {
        let params = courage_params();
        let scope = Scope::new(Place::Resource, &params);
        let (expr, ty) = self.expr(e, &scope, Some(&Type::Bool));
        match ty {
            // Reported where it went wrong.
            None => return None,
            Some(t) if t != Type::Bool => {
                self.mismatch(e.span, &Type::Bool, &t, &format!("`{what}` compares a roll with its target"));
                return None;
            }
            Some(_) => {}
        }
        let comparison = [m::BinaryOp::Eq, m::BinaryOp::Ne, m::BinaryOp::Lt, m::BinaryOp::Le, m::BinaryOp::Gt, m::BinaryOp::Ge];
        match expr {
            m::Expr::Binary { op, ty: Type::Int, lhs, rhs } if comparison.contains(&op) => {
                Some(m::CourageRoll { roll: *lhs, op, target: *rhs })
            }
            _ => {
                self.error(
                    Diagnostic::error(RULESET_SETTING, e.span, format!("`{what}` is not a roll compared with a target"))
                        .with_help(format!("compare two numbers, the roll first: `{what} roll(courage) <= self.courage`")),
                );
                None
            }
        }
    }
}

/// What the courage formulas read besides `self`: `max_hp`, the unit's hit points at full
/// strength (`self.hp` is what it has left).
fn courage_params() -> Vec<(String, Type)> {
    m::COURAGE_PARAMS.iter().map(|(n, t)| (n.to_string(), t.clone())).collect()
}
