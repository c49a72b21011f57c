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
    let breaks = breaks(env, cache, cuts, values)?;
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

/// The first value of each interval the cuts make of a die with `values` (sorted, once each).
/// `None` when a cut's other side is not a number (then every value counts), or where a cut
/// adds parts to the roll (`Cut::addends`) that are not numbers or so large that the sum might
/// saturate (then the roll's threshold is not the value less the parts).
pub fn breaks<N: Env>(env: &N, cache: &mut [Option<V>], cuts: &[Cut], values: &[(i64, f64)]) -> Option<SmallVec<[i64; 8]>> {
    // Below it, a roll plus parts adds up without saturating.
    const SMALL: u64 = 1 << 40;
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
        // `roll + parts OP t` is `roll OP t - parts`: every part a number, none large.
        let t = if c.addends.is_empty() {
            t
        } else {
            if c.addends.len() > 64 || values.iter().any(|(v, _)| v.unsigned_abs() > SMALL) {
                return None;
            }
            let mut parts = 0i128;
            for (e, minus) in &c.addends {
                match eval(env, e, &[], cache) {
                    V::Int(p) if p.unsigned_abs() <= SMALL => parts += if *minus { -i128::from(p) } else { i128::from(p) },
                    _ => return None,
                }
            }
            i64::try_from(i128::from(t) - parts).ok()?
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
    Some(breaks)
}

/// Each place of `values`' class among the intervals `breaks` make (numbered from 0 in the
/// order met), and how many classes there are.
pub fn class_of_places(values: &[(i64, f64)], breaks: &[i64]) -> (Vec<usize>, usize) {
    let mut seen: SmallVec<[usize; 8]> = SmallVec::new();
    let places = values
        .iter()
        .map(|(v, _)| {
            let interval = breaks.partition_point(|b| b <= v);
            seen.iter().position(|i| *i == interval).unwrap_or_else(|| {
                seen.push(interval);
                seen.len() - 1
            })
        })
        .collect();
    (places, seen.len())
}
