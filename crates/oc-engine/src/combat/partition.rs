//! Outcome classes of a strike's dice. Where the combat formulas read a die only by comparing it
//! with something the die does not change (`roll(hit) <= to_hit[...]`, `roll(hit) >= 80`), the
//! die's values fall into intervals between those cut points, and every value of an interval
//! gives the same outcome: a d100 read as hit / critical / backfire is four or five classes, not a
//! hundred faces. Each class is evaluated once, at its lowest value, with the summed weight of its
//! values. The weights are whole numbers, so the sums are exact and a forecast is the same bits
//! as enumerating every face.

use smallvec::SmallVec;

use crate::eval::{eval, Env};
use crate::ir::cuts::Cut;
use crate::ir::{DieSlot, Op, V};

/// A die's outcome classes: (lowest value, summed weight), in value order (a few, in place).
pub type Classes = SmallVec<[(i64, f64); 8]>;

/// The die's values grouped into classes that the cuts cannot tell apart: (lowest value, summed
/// weight), in value order. `None` when a cut's other side is not a number (then every value
/// counts). With the weights' exact running sums (`DieSlot::prefix`: the values ascend), each
/// class is found by a binary search and weighed by a subtraction, the same number as adding its
/// values' weights one by one.
pub fn classes<N: Env>(env: &N, cache: &mut [Option<V>], cuts: &[Cut], die: &DieSlot) -> Option<Classes> {
    let (values, prefix) = (&die.dist.values[..], die.prefix.as_deref());
    // Each break is the first value of a new interval.
    let mut breaks: SmallVec<[i64; 8]> = SmallVec::new();
    for c in cuts {
        let v = eval(env, &c.other, &[], cache);
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
