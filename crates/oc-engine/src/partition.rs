//! Outcome classes of a strike's dice. Where the combat formulas read a die only by comparing it
//! with something the die does not change (`roll(hit) <= to_hit[...]`, `roll(hit) >= 80`), the
//! die's values fall into intervals between those cut points, and every value of an interval
//! gives the same outcome: a d100 read as hit / critical / backfire is four or five classes, not a
//! hundred faces. Each class is evaluated once, at its lowest value, with the summed weight of its
//! values. The weights are whole numbers, so the sums are exact and a forecast is the same bits
//! as enumerating every face.

use std::collections::HashSet;

use smallvec::SmallVec;

use crate::ir::{DieSlot, Ir, Op, E, V};

/// A die's outcome classes: (lowest value, summed weight), in value order (a few, in place).
pub type Classes = SmallVec<[(i64, f64); 8]>;
use crate::unit::Ctx;

/// One comparison of a die with a side the die does not change.
#[derive(Clone, Debug)]
pub struct Cut {
    op: Op,
    other: E,
    /// `roll(...) OP other` (true) or `other OP roll(...)`.
    roll_left: bool,
}

impl Cut {
    /// What the die is compared with.
    pub(crate) fn other(&self) -> &E {
        &self.other
    }
}

/// The comparisons that read `slot` in the formulas `roots` (and the formulas they use), or
/// `None` when the die is read any other way (added to damage, say): then every value counts.
pub fn cuts(ir: &Ir, roots: &[u16], slot: u8) -> Option<Vec<Cut>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for r in roots {
        walk(ir, &E::Formula(*r), slot, &mut out, &mut seen)?;
    }
    Some(out)
}

fn comparison(op: Op) -> bool {
    matches!(op, Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge)
}

fn walk(ir: &Ir, e: &E, slot: u8, out: &mut Vec<Cut>, seen: &mut HashSet<u16>) -> Option<()> {
    match e {
        // A `Dice` value's slot: its dice change from strike to strike; every value counts.
        E::Roll(s) | E::RollDyn(s, _) if *s == slot => None,
        E::Bin(op, a, b) if comparison(*op) => {
            // The other side must read no die at all (another die would move the cut).
            match (&**a, &**b) {
                (E::Roll(s), other) if *s == slot && ir.dice_of(other) == 0 => {
                    out.push(Cut { op: *op, other: other.clone(), roll_left: true });
                    Some(())
                }
                (other, E::Roll(s)) if *s == slot && ir.dice_of(other) == 0 => {
                    out.push(Cut { op: *op, other: other.clone(), roll_left: false });
                    Some(())
                }
                _ => e.children().try_for_each(|x| walk(ir, x, slot, out, seen)),
            }
        }
        E::Formula(f) => {
            if !seen.insert(*f) {
                return Some(());
            }
            match ir.formulas.get(*f as usize) {
                Some(formula) if formula.dice & (1u64 << slot) != 0 => walk(ir, &formula.expr, slot, out, seen),
                _ => Some(()),
            }
        }
        _ => e.children().try_for_each(|x| walk(ir, x, slot, out, seen)),
    }
}

/// The die's values grouped into classes that the cuts cannot tell apart: (lowest value, summed
/// weight), in value order. `None` when a cut's other side is not a number (then every value
/// counts). With the weights' exact running sums (`DieSlot::prefix`: the values ascend), each
/// class is found by a binary search and weighed by a subtraction, the same number as adding its
/// values' weights one by one.
pub fn classes(ctx: &Ctx, cache: &mut [Option<V>], cuts: &[Cut], die: &DieSlot) -> Option<Classes> {
    let (values, prefix) = (&die.dist.values[..], die.prefix.as_deref());
    // Each break is the first value of a new interval.
    let mut breaks: SmallVec<[i64; 8]> = SmallVec::new();
    for c in cuts {
        let v = ctx.eval(&c.other, &[], cache);
        let t = match (v, c.op) {
            // Equality compares whole values: only a number can equal a die's value.
            (V::Int(t), _) => t,
            (_, Op::Eq | Op::Ne) => return None,
            // Ordering compares by `V::int`, as the evaluator does.
            (v, _) => v.int(),
        };
        let after = t.saturating_add(1);
        match (c.op, c.roll_left) {
            // r <= t, r > t, t >= r, t < r change between t and t + 1.
            (Op::Le | Op::Gt, true) | (Op::Ge | Op::Lt, false) => breaks.push(after),
            // r < t, r >= t, t > r, t <= r change between t - 1 and t.
            (Op::Lt | Op::Ge, true) | (Op::Gt | Op::Le, false) => breaks.push(t),
            (Op::Eq | Op::Ne, _) => {
                breaks.push(t);
                breaks.push(after);
            }
            _ => return None,
        }
    }
    breaks.sort_unstable();
    breaks.dedup();
    if let Some(prefix) = prefix.filter(|p| p.len() == values.len() + 1) {
        let mut out = Classes::new();
        let mut from = 0usize;
        let ends = breaks.iter().map(|b| values.partition_point(|(v, _)| v < b)).chain(std::iter::once(values.len()));
        for to in ends {
            if to > from {
                let (Some((lowest, _)), Some(hi), Some(lo)) = (values.get(from), prefix.get(to), prefix.get(from)) else {
                    break;
                };
                out.push((*lowest, hi - lo));
                from = to;
            }
        }
        return Some(out);
    }
    let mut out = Classes::new();
    let mut current = None;
    for &(value, weight) in values {
        let class = breaks.partition_point(|b| *b <= value);
        match out.last_mut() {
            Some(last) if current == Some(class) => last.1 += weight,
            _ => {
                out.push((value, weight));
                current = Some(class);
            }
        }
    }
    Some(out)
}
