//! A formula staged for one striker: what is left of it once every part that reads the striking
//! unit alone is worked out for that unit. `if attacker has SomeTag then ... else max(0, _table)`
//! becomes `max(0, _table)` for a unit without the tag; `damage[_attack, _defense]` keeps the
//! struck unit's half with the striker's a constant. A unit meets many foes (a matrix row, a
//! battle's turns): its staged formulas are worked out once (`Unit::staged`) and each strike
//! evaluates the rest.
//!
//! The rest computes what the whole computes, in the same order, wherever the striker's
//! attributes are its own (no `when` changed them, as for `Unit::solo`): a part reading the
//! striker alone has one value for it, a condition with one value takes one branch, and an
//! `and` / `or` whose first operand is known is decided or left to its second. Nothing folded
//! reads hit points or any state (those read `Reads::Both`), so the note of what an evaluation
//! read (`Ctx::reads`) is what evaluating the whole formula notes.

use super::{Ir, Op, Reads, Role, E, V};

impl Ir {
    /// Which formulas a staged formula takes in place (see `Ir::inlined`).
    pub(super) fn inlined(&self) -> Vec<bool> {
        fn count(e: &E, refs: &mut [u32]) {
            if let E::Formula(g) = e {
                if let Some(n) = refs.get_mut(*g as usize) {
                    *n += 1;
                }
            }
            e.children().for_each(|c| count(c, refs));
        }
        let mut refs = vec![0u32; self.formulas.len()];
        for f in &self.formulas {
            count(&f.expr, &mut refs);
        }
        let asked: Vec<u16> = self.roles.all().chain(self.outcome_inputs.iter().flatten().copied()).collect();
        (0..self.formulas.len()).map(|i| refs.get(i) == Some(&1) && u16::try_from(i).is_ok_and(|i| !asked.contains(&i))).collect()
    }

    /// `e` for a striker: `None` where the whole of it reads that unit alone (then its value is
    /// `fold(e)`), else what is left, every part reading the striker alone a constant
    /// (`fold` evaluates such a part for the striker).
    pub(crate) fn stage(&self, e: &E, fold: &dyn Fn(&E) -> V) -> Option<E> {
        let rest = |x: &E| self.stage(x, fold).unwrap_or_else(|| E::Const(fold(x)));
        let boxed = |x: &E| Box::new(rest(x));
        match e {
            E::If(c, t, f) => match self.stage(c, fold) {
                // The striker alone decides the branch.
                None => self.stage(if fold(c).bool() { t } else { f }, fold),
                Some(c) => Some(E::If(Box::new(c), boxed(t), boxed(f))),
            },
            E::Bin(op @ (Op::And | Op::Or), a, b) => match self.stage(a, fold) {
                None => {
                    // `false and _` / `true or _`: decided by the striker (evaluating it whole
                    // reads the first operand alone).
                    if fold(a).bool() == (*op == Op::Or) {
                        return None;
                    }
                    let b = self.stage(b, fold)?;
                    Some(E::Bin(*op, Box::new(E::Const(V::Bool(*op == Op::And))), Box::new(b)))
                }
                Some(a) => Some(E::Bin(*op, Box::new(a), boxed(b))),
            },
            E::Has(r, tag, args) => {
                let staged: Vec<Option<E>> = args.iter().map(|a| self.stage(a, fold)).collect();
                if *r == Role::Attacker && staged.iter().all(Option::is_none) {
                    return None;
                }
                let args = args.iter().zip(staged).map(|(a, s)| s.unwrap_or_else(|| E::Const(fold(a)))).collect();
                Some(E::Has(*r, *tag, args))
            }
            // Every other operator (`if` is above): staged part by part.
            _ if e.combines() => {
                // In place (an operator has at most three parts; a lookup more spills).
                let parts: smallvec::SmallVec<[Option<E>; 3]> = e.children().map(|c| self.stage(c, fold)).collect();
                if parts.iter().all(Option::is_none) {
                    return None;
                }
                let mut parts = e.children().zip(parts).map(|(c, p)| p.unwrap_or_else(|| E::Const(fold(c))));
                if let E::Lookup(t, _) = e {
                    return Some(E::Lookup(*t, parts.collect()));
                }
                let mut next = || Box::new(parts.next().unwrap_or(E::Const(V::Int(0))));
                Some(match e {
                    E::Neg(_) => E::Neg(next()),
                    E::Not(_) => E::Not(next()),
                    E::Abs(_) => E::Abs(next()),
                    E::Bin(op, ..) => E::Bin(*op, next(), next()),
                    E::Min(..) => E::Min(next(), next()),
                    E::Max(..) => E::Max(next(), next()),
                    E::Clamp(..) => E::Clamp(next(), next(), next()),
                    _ => e.clone(),
                })
            }
            // A formula reading both units, referred to here alone: staged in place. (One reading
            // the struck unit alone stays a reference: that unit works it out once.)
            E::Formula(g)
                if self.inlined.get(*g as usize).copied().unwrap_or(false)
                    && self.formulas.get(*g as usize).is_some_and(|f| f.reads == Reads::Both) =>
            {
                self.stage(&self.formulas.get(*g as usize)?.expr, fold)
            }
            // A single read: the striker's alone (or a constant), or kept.
            _ => match self.reads_of(e) {
                Reads::Neither | Reads::Attacker => None,
                Reads::Defender | Reads::Both => Some(e.clone()),
            },
        }
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    /// Every matchup of every built-in ruleset (each class with each weapon it may use against
    /// each class with its first, at full and low hit points), its formulas staged for the
    /// striker and evaluated whole: the same bits. Seed 000's strikes are staged.
    #[test]
    fn staged_formulas_equal_whole_ones() {
        crate::testing::agree_with(
            |whole| whole.ir.strategy.staging = false,
            |k, name, staged| {
                // The first built-in ruleset: seed 000's, whose damage reads both units.
                if k == 0 {
                    let (_, a, _, _) = crate::testing::matchups(staged).into_iter().next().expect("a matchup");
                    let unit = staged.unit(&a, &[]).expect("a unit");
                    let damage = staged.ir.roles.damage as usize;
                    assert!(unit.staged.slot(&staged.ir, damage).and_then(|s| s.get()).is_some(), "{name}: damage not staged");
                }
            },
        );
    }
}
