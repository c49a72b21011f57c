//! Where the combat formulas read a die only by comparing it with something the die does not
//! change (`roll(hit) <= to_hit[...]`, `roll(hit) >= 80`): those comparisons, found once as the
//! IR is built, from which a strike works out the die's outcome classes (`combat::partition`).
//! [`summed`] finds more: a `Dice` value's roll, and a roll plus or minus dice-free parts
//! compared with a dice-free value (`roll(defender.agi) + defender.evasion >= attacker.accuracy`:
//! the roll's threshold is the value less the parts).

use std::collections::HashSet;

use super::{Ir, Op, E};

/// One comparison of a die with a side the die does not change.
#[derive(Clone, Debug)]
pub struct Cut {
    pub(crate) op: Op,
    pub(crate) other: E,
    /// `roll(...) OP other` (true) or `other OP roll(...)`.
    pub(crate) roll_left: bool,
    /// The dice-free parts added to the roll on its side (`true`: subtracted); none in a
    /// plain cut.
    pub(crate) addends: Vec<(E, bool)>,
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
    cuts_as(ir, roots, slot, false)
}

/// [`cuts`], also through a `Dice` value's roll and a roll's sum with dice-free parts.
pub fn summed(ir: &Ir, roots: &[u16], slot: u8) -> Option<Vec<Cut>> {
    cuts_as(ir, roots, slot, true)
}

fn cuts_as(ir: &Ir, roots: &[u16], slot: u8, sums: bool) -> Option<Vec<Cut>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    for r in roots {
        walk(ir, &E::Formula(*r), (slot, sums), &mut out, &mut seen)?;
    }
    Some(out)
}

fn comparison(op: Op) -> bool {
    matches!(op, Op::Eq | Op::Ne | Op::Lt | Op::Le | Op::Gt | Op::Ge)
}

fn walk(ir: &Ir, e: &E, (slot, sums): (u8, bool), out: &mut Vec<Cut>, seen: &mut HashSet<u16>) -> Option<()> {
    match e {
        // A `Dice` value's slot: its dice change from strike to strike; every value counts.
        E::Roll(s) | E::RollDyn(s, _) if *s == slot => None,
        E::Bin(op, a, b) if comparison(*op) => {
            // The other side must read no die at all (another die would move the cut).
            let plain = match (&**a, &**b) {
                (E::Roll(s), other) if *s == slot && ir.dice_of(other) == 0 => Some(Cut::new(*op, other, true, Vec::new())),
                (other, E::Roll(s)) if *s == slot && ir.dice_of(other) == 0 => Some(Cut::new(*op, other, false, Vec::new())),
                _ => None,
            };
            let cut = plain.or_else(|| {
                let summed = |side: &E, other: &E, roll_left: bool| {
                    let mut addends = Vec::new();
                    (ir.dice_of(other) == 0 && split(ir, side, slot, false, &mut addends)? == Some(()))
                        .then(|| Cut::new(*op, other, roll_left, addends))
                };
                sums.then(|| summed(a, b, true).or_else(|| summed(b, a, false))).flatten()
            });
            match cut {
                Some(cut) => {
                    out.push(cut);
                    Some(())
                }
                None => e.children().try_for_each(|x| walk(ir, x, (slot, sums), out, seen)),
            }
        }
        E::Formula(f) => {
            if !seen.insert(*f) {
                return Some(());
            }
            match ir.formulas.get(*f as usize) {
                Some(formula) if formula.dice & (1u64 << slot) != 0 => walk(ir, &formula.expr, (slot, sums), out, seen),
                _ => Some(()),
            }
        }
        _ => e.children().try_for_each(|x| walk(ir, x, (slot, sums), out, seen)),
    }
}

impl Cut {
    fn new(op: Op, other: &E, roll_left: bool, addends: Vec<(E, bool)>) -> Cut {
        Cut { op, other: other.clone(), roll_left, addends }
    }
}

/// `e` as the roll of `slot` plus or minus dice-free parts (pushed to `addends`, `minus` where
/// subtracted): `Some(Some(()))` where it rolls the die once, added; `Some(None)` where it reads
/// no die; `None` otherwise (another die, the roll twice or taken away).
fn split(ir: &Ir, e: &E, slot: u8, minus: bool, addends: &mut Vec<(E, bool)>) -> Option<Option<()>> {
    if ir.dice_of(e) == 0 {
        addends.push((e.clone(), minus));
        return Some(None);
    }
    match e {
        E::Roll(s) | E::RollDyn(s, _) if *s == slot && !minus => Some(Some(())),
        E::Bin(op @ (Op::Add | Op::Sub), a, b) => {
            let left = split(ir, a, slot, minus, addends)?;
            let right = split(ir, b, slot, minus != (*op == Op::Sub), addends)?;
            match (left, right) {
                (Some(()), Some(())) => None,
                (l, r) => Some(l.or(r)),
            }
        }
        _ => None,
    }
}
