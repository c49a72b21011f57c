//! `roll(...)`: a die of the ruleset (the striker's draw, or with `defender` the struck unit's
//! own: an opposed roll), dice written in place, or a `Dice` value — each where its place draws
//! dice (`oc_model::conformance::scope`).

use oc_diag::{did_you_mean, Diagnostic};
use oc_model as m;
use oc_model::conformance::{self as conf, ExprKind as Kind};
use oc_model::Type;
use oc_syntax::ast::{self, ExprKind};

use super::{error_expr, join_or, Scope, Typed};
use crate::codes::*;
use crate::env::{type_name, Checker};

impl Checker<'_> {
    /// `roll(x)` of a `Dice` value: a stat (`roll(defender.absorption)`), a parameter, a constant.
    fn roll_value(&mut self, die: &ast::Expr, target: bool, scope: &Scope) -> Typed {
        const HELP: &str = "write `roll(hit)` for a die of the ruleset, `roll(hit, defender)` for the struck unit's own roll of it, or dice such as `roll(2d6)`";
        let (x, ty) = self.expr(die, scope, Some(&Type::Dice));
        let Some(ty) = ty else { return error_expr() };
        if ty != Type::Dice {
            self.error(
                Diagnostic::error(TYPE_MISMATCH, die.span, format!("`roll` takes dice, and this is {}", type_name(&ty)))
                    .with_label("not dice")
                    .with_help(HELP),
            );
            return error_expr();
        }
        if target {
            self.error(
                Diagnostic::error(TYPE_MISMATCH, die.span, "a `Dice` value is nobody's own roll")
                    .with_label("an independent draw of its own")
                    .with_help("name whose dice they are instead: `roll(defender.absorption)`"),
            );
            return error_expr();
        }
        if !scope.holds().dice_values {
            self.error(
                Diagnostic::error(
                    EFFECT_CONTEXT,
                    die.span,
                    format!("a `Dice` value is not rolled in {}", scope.place.describe()),
                )
                .with_label("nothing is rolled here")
                .with_help(format!("roll `Dice` stats and parameters in {}", join_or(&conf::where_allowed(Kind::RollValue)))),
            );
            return error_expr();
        }
        if self.reads_a_roll(&x) {
            self.error(
                Diagnostic::error(TYPE_MISMATCH, die.span, "which dice to roll depends on another roll")
                    .with_label("reads a roll")
                    .with_help("choose the dice without rolling: `roll(if attacker.hp < 10 then 2d6 else d6)`"),
            );
            return error_expr();
        }
        (m::Expr::RollValue { dice: Box::new(x) }, Some(Type::Int))
    }

    /// `roll(NAME)`, `roll(NAME, defender)` (the struck unit's own draw: an opposed roll) and
    /// `roll(2d6 + 1)` (dice written in place: an independent draw of their own).
    pub(super) fn roll(&mut self, args: &[ast::Expr], e: &ast::Expr, scope: &Scope) -> Typed {
        const HELP: &str = "write `roll(hit)` for a die of the ruleset, `roll(hit, defender)` for the struck unit's own roll of it, or dice such as `roll(2d6)`";
        let (die, side) = match args {
            [die] => (die, None),
            [die, side] => (die, Some(side)),
            _ => {
                self.error(
                    Diagnostic::error(TYPE_MISMATCH, e.span, "`roll` takes dice and, optionally, whose roll it is")
                        .with_help(HELP),
                );
                return error_expr();
            }
        };
        if !scope.holds().rolls {
            self.error(
                Diagnostic::error(EFFECT_CONTEXT, e.span, format!("nothing is rolled in {}", scope.place.describe()))
                    .with_label("worked out without dice")
                    .with_help(format!(
                        "dice are rolled in {} (`critical = roll(hit) <= 10`, `on end_of_turn {{ when roll(d10) <= 5 {{ ... }} }}`)",
                        join_or(&conf::where_allowed(Kind::Roll))
                    )),
            );
            return error_expr();
        }
        let target = match side.map(|s| (&s.kind, s.span)) {
            None => false,
            Some((ExprKind::Name(who), span)) if who == "attacker" || who == "defender" => {
                if !scope.holds().opposed {
                    self.error(
                        Diagnostic::error(EFFECT_CONTEXT, span, format!("there is no `{who}` here"))
                            .with_label("an opposed roll needs a strike")
                            .with_help("`roll(NAME, defender)` is read in combat formulas; elsewhere write `roll(NAME)`"),
                    );
                    return error_expr();
                }
                who == "defender"
            }
            Some((_, span)) => {
                self.error(
                    Diagnostic::error(TYPE_MISMATCH, span, "whose roll: `attacker` or `defender`")
                        .with_label("not a side of the strike")
                        .with_help("the striking unit rolls by default; `roll(acc, defender)` is the struck unit's own roll"),
                );
                return error_expr();
            }
        };
        if let ExprKind::Name(name) = &die.kind {
            if self.syms.dice.contains_key(name.as_str()) {
                // A named die is one draw per strike (per side) in combat, and one draw per event
                // (per unit) outside it: every `roll(NAME)` of that strike or event reads it.
                return (m::Expr::Roll { die: name.to_string(), target }, Some(Type::Int));
            }
            let mut names: Vec<String> = self.syms.dice.keys().cloned().collect();
            names.sort();
            let help = match did_you_mean(name, names.iter().map(String::as_str)) {
                Some(s) => format!("did you mean `{s}`?"),
                None => {
                    "roll a die of the ruleset (`dice hit d100`) or dice written in place, such as `d10` or `2d6`".to_string()
                }
            };
            self.error(Diagnostic::error(UNKNOWN_TABLE, die.span, format!("unknown die `{name}`")).with_help(help));
            return error_expr();
        }
        let Some((terms, constant)) = crate::dice::written_dice(die) else {
            return self.roll_value(die, target, scope);
        };
        if target {
            self.error(
                Diagnostic::error(TYPE_MISMATCH, die.span, "dice written in place are nobody's roll")
                    .with_label("an independent draw of its own")
                    .with_help("declare the die (`dice acc d20`) and write `roll(acc, defender)` for an opposed roll"),
            );
            return error_expr();
        }
        match self.dice_shape(&terms, constant, die.span) {
            Some(shape) => (m::Expr::RollFresh { shape }, Some(Type::Int)),
            None => error_expr(),
        }
    }
}
