//! Where the combat formulas read a die only by comparing it with something the die does not
//! change (`roll(hit) <= to_hit[...]`, `roll(hit) >= 80`): those comparisons, found once as the
//! IR is built, from which a strike works out the die's outcome classes (`combat::partition`).

use std::collections::HashSet;

use super::{Ir, Op, E};

/// One comparison of a die with a side the die does not change.
#[derive(Clone, Debug)]
pub struct Cut {
    pub(crate) op: Op,
    pub(crate) other: E,
    /// `roll(...) OP other` (true) or `other OP roll(...)`.
    pub(crate) roll_left: bool,
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
