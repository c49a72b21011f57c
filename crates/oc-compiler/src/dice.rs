//! Dice shapes: `dice NAME 2d10 + 3d8` declarations and dice written in `roll(...)`, checked
//! against the limits the exact forecast can enumerate.

use oc_diag::{Diagnostic, Span};
use oc_model as m;
use oc_model::dice::{DiceError, MAX_DICE_COUNT, MAX_FACE_VALUE, MAX_LISTED_FACES};
use oc_syntax::ast::{self, BinaryOp, DieLit, ExprKind};

use crate::codes::*;
use crate::env::Checker;

/// The dice of a `roll(...)` argument made only of dice and whole numbers joined by `+` and `-`
/// (`2d10 + 3d8 - 1`): the terms, each with `true` when subtracted, and the constant.
pub(crate) fn written_dice(e: &ast::Expr) -> Option<(Vec<(bool, &DieLit)>, i64)> {
    fn walk<'e>(e: &'e ast::Expr, negative: bool, out: &mut Vec<(bool, &'e DieLit)>, constant: &mut i64) -> bool {
        match &e.kind {
            ExprKind::Die(d) => {
                out.push((negative, d));
                true
            }
            ExprKind::Int(v) => {
                *constant = constant.saturating_add(if negative { v.saturating_neg() } else { *v });
                true
            }
            ExprKind::Binary(BinaryOp::Add, a, b) => walk(a, negative, out, constant) && walk(b, negative, out, constant),
            ExprKind::Binary(BinaryOp::Sub, a, b) => walk(a, negative, out, constant) && walk(b, !negative, out, constant),
            _ => false,
        }
    }
    let (mut terms, mut constant) = (Vec::new(), 0);
    (walk(e, false, &mut terms, &mut constant) && !terms.is_empty()).then_some((terms, constant))
}

impl Checker<'_> {
    /// The checked shape of written dice, or `None` after reporting why it cannot be rolled.
    pub(crate) fn dice_shape(&mut self, terms: &[(bool, &DieLit)], constant: i64, span: Span) -> Option<m::DiceShape> {
        let mut shape = m::DiceShape { terms: Vec::new(), constant };
        let mut ok = true;
        for (negative, lit) in terms {
            match self.die_term(lit, *negative) {
                Some(t) => shape.terms.push(t),
                None => ok = false,
            }
        }
        if !ok {
            return None;
        }
        if let Err(why) = shape.distribution() {
            let help = match why {
                DiceError::TooManyStates(_) => "keep fewer dice, or roll fewer or smaller dice",
                _ => "roll fewer or smaller dice; exact forecasts enumerate every value the dice can take",
            };
            self.error(
                Diagnostic::error(DICE_SIZE, span, format!("`{shape}` cannot be worked out exactly"))
                    .with_label(why.to_string())
                    .with_help(help),
            );
            return None;
        }
        Some(shape)
    }

    fn die_term(&mut self, lit: &DieLit, negative: bool) -> Option<m::DieTerm> {
        let count = lit.count.as_ref().map_or(1, |c| c.value);
        if let Some(c) = &lit.count {
            if c.value == 0 || c.value > MAX_DICE_COUNT {
                self.error(
                    Diagnostic::error(NUMBER_RANGE, c.span, format!("a pool of {} dice", c.value))
                        .with_label(format!("1 to {MAX_DICE_COUNT} dice"))
                        .with_help("write the number of dice before the `d`: `2d6`"),
                );
                return None;
            }
        }
        let faces = match &lit.sides {
            Some(sides) => {
                if sides.value < 2 {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, sides.span, "a die needs at least two faces")
                            .with_help("write a die such as `d10` or `d100`"),
                    );
                    return None;
                }
                if sides.value > crate::MAX_DIE_FACES {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, sides.span, format!("a die of {} faces", sides.value))
                            .with_label(format!("at most {} faces", crate::MAX_DIE_FACES))
                            .with_help("exact forecasts enumerate every face; use a smaller die (d100 is the seed's largest)"),
                    );
                    return None;
                }
                m::Faces::Sides(sides.value)
            }
            None => {
                if lit.faces.len() > MAX_LISTED_FACES {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, lit.span, format!("a die listing {} faces", lit.faces.len()))
                            .with_label(format!("at most {MAX_LISTED_FACES}"))
                            .with_help("list each face once per side of the die"),
                    );
                    return None;
                }
                if let Some(f) = lit.faces.iter().find(|f| f.value.abs() > MAX_FACE_VALUE) {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, f.span, format!("a face of {}", f.value))
                            .with_label(format!("faces range from -{MAX_FACE_VALUE} to {MAX_FACE_VALUE}"))
                            .with_help("faces are the numbers a die shows, such as `d{0, 0, 1, 1, 2, 3}`"),
                    );
                    return None;
                }
                m::Faces::Listed(lit.faces.iter().map(|f| f.value).collect())
            }
        };
        if lit.explode {
            let all_equal = match &faces {
                m::Faces::Listed(v) => v.iter().all(|x| Some(x) == v.first()),
                m::Faces::Sides(_) => false,
            };
            if all_equal {
                self.error(
                    Diagnostic::error(NUMBER_RANGE, lit.span, "every face of this die is its highest")
                        .with_label("it would explode forever")
                        .with_help("an exploding die needs a face below its highest; drop the `!`"),
                );
                return None;
            }
        }
        let keep = match &lit.keep {
            None => None,
            Some((highest, k)) => {
                if k.value == 0 || k.value >= count {
                    let which = if *highest { "kh" } else { "kl" };
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, k.span, format!("keeping {} of {count} dice", k.value))
                            .with_label(format!("keep 1 to {}", count.saturating_sub(1).max(1)))
                            .with_help(format!(
                                "`{which}N` keeps the N {} dice of the pool, such as `4d6kh3`; to keep them all, drop `{which}`",
                                if *highest { "highest" } else { "lowest" }
                            )),
                    );
                    return None;
                }
                Some(m::Keep { highest: *highest, count: k.value })
            }
        };
        if lit.crit && (lit.explode || keep.is_some()) {
            self.error(
                Diagnostic::error(NUMBER_RANGE, lit.span, "a crit die (`c`) cannot also explode or keep dice")
                    .with_label("`c` adds one die when any shows its highest face")
                    .with_help("write `2d8c` alone, or `d10!` / `4d6kh3` without `c`"),
            );
            return None;
        }
        // Listed faces are named all or none: a roll is told in words only when every face has one.
        let named = lit.face_names.iter().filter(|n| n.is_some()).count();
        if named > 0 && named < lit.face_names.len() {
            let unnamed = lit.face_names.iter().zip(&lit.faces).find(|(n, _)| n.is_none()).map_or(lit.span, |(_, f)| f.span);
            self.error(
                Diagnostic::error(NUMBER_RANGE, unnamed, "this face has no name, and others of the die have")
                    .with_label("name it as the others: `name=value`")
                    .with_help("name every face (`d{save=1, melee=100, id=0}`) or none (`d{1, 100, 0}`)"),
            );
            return None;
        }
        let names = lit.face_names.iter().flatten().map(|n| n.value.to_string()).collect();
        Some(m::DieTerm { count, faces, explode: lit.explode, crit: lit.crit, keep, negative, names })
    }
}
