//! Weights summed by what they are of, in the order first added, as a `fx::Tally` sums them,
//! where what they are of is found without hashing: a strike's outcomes worked out from
//! independent parts ([`Damages`]), a formula's distribution from its parts' ([`Values`]).

use super::Outcome;
use crate::ir::V;

/// Weights by value in the order first added, as a `Tally` of values keeps them: a small whole
/// number is found by a table by the number, any other value by a search (a distribution's
/// values are mostly damage and sums of dice; a search finds any value, and a number found by the
/// table is never one searched for).
#[derive(Default)]
pub(super) struct Values {
    pub(super) list: Vec<(V, f64)>,
    /// By a number less `Values::LOW`: its place in `list`, plus one (0: not there).
    places: Vec<u32>,
}

impl Values {
    /// The numbers found by the table: from `LOW` to below `HIGH`.
    const LOW: i64 = -1024;
    const HIGH: i64 = 1 << 12;

    #[inline]
    pub(super) fn add(&mut self, v: V, weight: f64) {
        let found = match v {
            V::Int(n) if (Values::LOW..Values::HIGH).contains(&n) => {
                let k = (n - Values::LOW) as usize;
                if self.places.len() <= k {
                    self.places.resize(k + 1, 0);
                }
                let next = u32::try_from(self.list.len() + 1).unwrap_or(0);
                match self.places.get_mut(k) {
                    Some(p) if *p > 0 => Some(*p as usize - 1),
                    Some(p) => {
                        *p = next;
                        None
                    }
                    None => None,
                }
            }
            _ => self.list.iter().position(|(x, _)| *x == v),
        };
        match found.and_then(|i| self.list.get_mut(i)).filter(|(x, _)| *x == v) {
            Some((_, w)) => *w += weight,
            None => self.list.push((v, weight)),
        }
    }
}

/// Where each damage of one head's outcomes sits in a strike's list (`Exchange::factored`): by
/// the damage where it is small, each entry stamped with the head it was set for (so the table
/// is never cleared between heads), else searched among that head's outcomes.
#[derive(Default)]
pub(super) struct Damages {
    slots: Vec<(u32, u32)>,
    stamp: u32,
    /// Where the head's outcomes begin in the list.
    from: usize,
}

impl Damages {
    /// The most damage found by the table; past it, searched.
    const DENSE: i64 = 1 << 12;

    /// Ready for the next head, whose outcomes begin at `from` in the list.
    pub(super) fn restart(&mut self, from: usize) {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.slots.fill((0, 0));
            self.stamp = 1;
        }
        self.from = from;
    }

    /// Adds `weight` to outcome `o` (of the head last restarted for) in `list`: to its weight
    /// where it is there, else as a new entry at the end, as `Tally::add` does.
    #[inline]
    pub(super) fn add(&mut self, list: &mut Vec<(f64, Outcome)>, o: Outcome, weight: f64) {
        let found = if (0..Damages::DENSE).contains(&o.damage) {
            let d = o.damage as usize;
            if self.slots.len() <= d {
                self.slots.resize(d + 1, (0, 0));
            }
            match self.slots.get_mut(d) {
                Some(s) if s.0 == self.stamp => Some(s.1 as usize),
                Some(s) => {
                    *s = (self.stamp, u32::try_from(list.len()).unwrap_or(u32::MAX));
                    None
                }
                None => None,
            }
        } else {
            list.get(self.from..).and_then(|head| head.iter().position(|(_, x)| *x == o)).map(|i| i + self.from)
        };
        match found.and_then(|i| list.get_mut(i)).filter(|(_, x)| *x == o) {
            Some((w, _)) => *w += weight,
            None => list.push((weight, o)),
        }
    }
}
