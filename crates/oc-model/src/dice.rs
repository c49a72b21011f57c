//! Dice as values: a [`DiceShape`] (`d100`, `2d6+1`, `d10!`, `4d6kh3`, `d{0,0,1,1,2}`,
//! `2d10+3d8`) and its exact distribution.
//!
//! A distribution is a list of values with integer-valued `f64` weights over one denominator, so
//! a plain `dN` is N faces of weight 1 over N and a strike's joint outcome is the product of its
//! dice's weights over the product of their denominators: the same arithmetic, bit for bit, as
//! counting equally likely faces. Exploding dice are truncated at the depth where the remaining
//! mass is at most [`EXPLODE_TAIL`]; the truncated chain's last die does not explode (icepool's
//! `depth` with its default end).

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};

/// The most probability an exploding die's truncated chain leaves out (misplaced on its last die).
pub const EXPLODE_TAIL: f64 = 1e-12;
/// The most distinct values one die shape may take (exact forecasts enumerate them).
pub const MAX_DICE_VALUES: usize = 100_000;
/// The most dice one term may roll (`100d6`).
pub const MAX_DICE_COUNT: u32 = 100;
/// The most faces a die may list (`d{...}`) and the largest face value (in absolute value).
pub const MAX_LISTED_FACES: usize = 1_000;
pub const MAX_FACE_VALUE: i64 = 1_000_000;
/// The most partial states a keep-highest/lowest term may track while it is worked out.
pub const MAX_KEEP_STATES: usize = 200_000;
/// The most multiply-adds working out one shape may take (a few tens of milliseconds).
pub const MAX_DICE_WORK: u64 = 50_000_000;
/// The deepest an exploding chain goes (a die whose maximum is half its faces: 2^-40 < 1e-12).
pub const MAX_EXPLODE_DEPTH: u32 = 64;

/// The faces of one die.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Faces {
    /// `dN`: faces 1 to N.
    Sides(u32),
    /// `d{0,0,1,2}`: the listed values, each face equally likely (values may repeat).
    Listed(Vec<i64>),
}

/// Keep the highest or lowest `count` of a term's dice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Keep {
    pub highest: bool,
    pub count: u32,
}

/// `count` dice of one kind, summed (after keeping), negated when `negative`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DieTerm {
    pub count: u32,
    pub faces: Faces,
    /// A die showing its highest face is rolled again and added (`d10!`).
    pub explode: bool,
    /// When any of the term's dice shows its highest face, one more die is added, which cannot
    /// add another (`2d8c`; seed 002's critical hit). Not with `explode` or a keep.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub crit: bool,
    pub keep: Option<Keep>,
    pub negative: bool,
    /// Listed faces' names, one per face (`d{save=1, melee=100}`), or empty: what a roll's log
    /// counts in words.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
}

/// A sum of dice terms and a constant: `2d10 + 3d8 - 1`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct DiceShape {
    pub terms: Vec<DieTerm>,
    pub constant: i64,
}

impl DiceShape {
    /// One plain die of `faces` sides.
    pub fn d(faces: u32) -> DiceShape {
        DiceShape {
            terms: vec![DieTerm {
                count: 1,
                faces: Faces::Sides(faces),
                explode: false,
                crit: false,
                keep: None,
                negative: false,
                names: Vec::new(),
            }],
            constant: 0,
        }
    }

    /// `Some(N)` when this is one plain `dN` (no pool, explosion, keep or constant).
    pub fn plain_sides(&self) -> Option<u32> {
        match self.terms.as_slice() {
            [DieTerm { count: 1, faces: Faces::Sides(n), explode: false, crit: false, keep: None, negative: false, .. }]
                if self.constant == 0 =>
            {
                Some(*n)
            }
            _ => None,
        }
    }

    /// The chance that a roll of these dice adds a crit die (`2d8c`: any of the 2d8 shows 8,
    /// 1 - (7/8)^2 = 15/64): 0 without a crit term. Exact for faces of equal weight.
    pub fn crit_chance(&self) -> f64 {
        let mut none = 1.0;
        for t in self.terms.iter().filter(|t| t.crit) {
            let Ok(one) = t.single(&mut Work(0)) else { continue };
            let Some(&(_, top)) = one.values.last() else { continue };
            none *= (1.0 - top / one.den).powi(i32::try_from(t.count).unwrap_or(i32::MAX));
        }
        1.0 - none
    }

    /// The exact distribution, or why it is too large to enumerate.
    pub fn distribution(&self) -> Result<Dist, DiceError> {
        let mut work = Work(0);
        let mut total = Dist::constant(self.constant);
        for term in &self.terms {
            total = total.add(&term.distribution_with(&mut work)?, &mut work)?;
        }
        Ok(total)
    }
}

impl Faces {
    /// The face values in order, each with its multiplicity, and how many faces there are.
    fn base(&self) -> Result<Dist, DiceError> {
        match self {
            Faces::Sides(n) if *n >= 1 => {
                Ok(Dist { values: (1..=i64::from(*n)).map(|v| (v, 1.0)).collect(), den: f64::from(*n) })
            }
            Faces::Sides(_) => Err(DiceError::Empty),
            Faces::Listed(faces) => {
                if faces.is_empty() {
                    return Err(DiceError::Empty);
                }
                let mut counts: BTreeMap<i64, f64> = BTreeMap::new();
                for f in faces {
                    *counts.entry(*f).or_default() += 1.0;
                }
                Ok(Dist { values: counts.into_iter().collect(), den: faces.len() as f64 })
            }
        }
    }
}

impl DieTerm {
    /// One die of this term (exploded if it explodes).
    fn single(&self, work: &mut Work) -> Result<Dist, DiceError> {
        let base = self.faces.base()?;
        if !self.explode {
            return Ok(base);
        }
        let Some(&(max, w_max)) = base.values.last() else { return Err(DiceError::Empty) };
        if base.values.len() < 2 {
            return Err(DiceError::AlwaysExplodes);
        }
        let depth = explode_depth(w_max / base.den);
        // Bottom-up: the last die of the chain does not explode; each earlier one adds the chain
        // below it on its highest face.
        let mut tail = base.clone();
        for _ in 0..depth {
            work.spend(base.values.len() as u64 * tail.values.len() as u64)?;
            let mut next: BTreeMap<i64, f64> = BTreeMap::new();
            for &(v, w) in &base.values {
                if v == max {
                    for &(t, wt) in &tail.values {
                        *next.entry(v.saturating_add(t)).or_default() += w * wt;
                    }
                } else {
                    *next.entry(v).or_default() += w * tail.den;
                }
            }
            if next.len() > MAX_DICE_VALUES {
                return Err(DiceError::TooManyValues(next.len()));
            }
            tail = Dist { values: next.into_iter().collect(), den: base.den * tail.den };
        }
        Ok(tail)
    }

    pub fn distribution(&self) -> Result<Dist, DiceError> {
        self.distribution_with(&mut Work(0))
    }

    fn distribution_with(&self, work: &mut Work) -> Result<Dist, DiceError> {
        if self.count == 0 || self.count > MAX_DICE_COUNT {
            return Err(DiceError::Count(self.count));
        }
        let one = self.single(work)?;
        let summed = self.keep.map_or(self.count, |k| k.count.min(self.count));
        let width = u64::try_from(one.max().saturating_sub(one.min())).unwrap_or(u64::MAX);
        let width = width.saturating_mul(u64::from(summed)).saturating_add(1);
        if width > MAX_DICE_VALUES as u64 {
            return Err(DiceError::TooManyValues(usize::try_from(width).unwrap_or(usize::MAX)));
        }
        let mut sum = match self.keep {
            _ if self.crit => crit_dist(&one, self.count, work)?,
            Some(keep) if keep.count == 0 => return Err(DiceError::Keep(keep.count)),
            Some(keep) if keep.count < self.count => keep_dist(&one, self.count, keep, work)?,
            _ => {
                let mut sum = one.clone();
                for _ in 1..self.count {
                    sum = sum.add(&one, work)?;
                }
                sum
            }
        };
        if self.negative {
            sum.values = sum.values.iter().rev().map(|(v, w)| (v.saturating_neg(), *w)).collect();
        }
        Ok(sum)
    }
}

/// The sum of `n` draws of `one`, plus one more draw when any of them shows the highest face:
/// the dice with no highest face, each over the extra die's denominator, plus those with one or
/// more, each with the extra die added. Integer weights: exact.
fn crit_dist(one: &Dist, n: u32, work: &mut Work) -> Result<Dist, DiceError> {
    let Some(&(max, _)) = one.values.last() else { return Err(DiceError::Empty) };
    let low = Dist { values: one.values.iter().filter(|(v, _)| *v != max).copied().collect(), den: one.den };
    let mut all = one.clone();
    let mut none = low.clone();
    for _ in 1..n {
        all = all.add(one, work)?;
        none = if none.values.is_empty() { none } else { none.add(&low, work)? };
    }
    // With at least one highest face: every sum's weight less the weight of reaching it without.
    let some_max: Vec<(i64, f64)> = all
        .values
        .iter()
        .map(|(v, w)| (*v, w - none.values.iter().find(|(x, _)| x == v).map_or(0.0, |(_, x)| *x)))
        .filter(|(_, w)| *w > 0.0)
        .collect();
    let extra = Dist { values: some_max, den: all.den }.add(one, work)?;
    let mut out: BTreeMap<i64, f64> = BTreeMap::new();
    for (v, w) in &none.values {
        *out.entry(*v).or_default() += w * one.den;
    }
    for (v, w) in &extra.values {
        *out.entry(*v).or_default() += w;
    }
    Ok(Dist { values: out.into_iter().collect(), den: all.den * one.den })
}

/// How many times an exploding die may roll again before the chain is cut: the smallest depth
/// with `p^(depth+1) <= EXPLODE_TAIL`, where `p` is the chance of the highest face.
pub fn explode_depth(p: f64) -> u32 {
    let mut depth = 0;
    let mut mass = p;
    // A hair of slack: 0.1^12 is a few ulps above 1e-12 in floating point.
    while mass > EXPLODE_TAIL * (1.0 + 1e-9) && depth < MAX_EXPLODE_DEPTH {
        mass *= p;
        depth += 1;
    }
    depth
}

/// The sum of the `keep.count` highest (or lowest) of `n` independent draws of `one`: a walk
/// over the dice keeping the sorted kept values as the state (merged when equal).
fn keep_dist(one: &Dist, n: u32, keep: Keep, work: &mut Work) -> Result<Dist, DiceError> {
    let k = keep.count as usize;
    let mut states: BTreeMap<Vec<i64>, f64> = BTreeMap::new();
    states.insert(Vec::new(), 1.0);
    let mut den = 1.0;
    for _ in 0..n {
        work.spend(states.len() as u64 * one.values.len() as u64 * (k as u64 + 1))?;
        let mut next: BTreeMap<Vec<i64>, f64> = BTreeMap::new();
        for (kept, w) in &states {
            for &(v, wv) in &one.values {
                let mut s = kept.clone();
                // Kept values sorted best first: highest first for keep-highest.
                let at = s.iter().position(|x| if keep.highest { v > *x } else { v < *x }).unwrap_or(s.len());
                s.insert(at, v);
                s.truncate(k);
                *next.entry(s).or_default() += w * wv;
            }
        }
        if next.len() > MAX_KEEP_STATES {
            return Err(DiceError::TooManyStates(next.len()));
        }
        states = next;
        den *= one.den;
    }
    let mut sums: BTreeMap<i64, f64> = BTreeMap::new();
    for (kept, w) in states {
        *sums.entry(kept.iter().fold(0i64, |a, b| a.saturating_add(*b))).or_default() += w;
    }
    Ok(Dist { values: sums.into_iter().collect(), den })
}

/// Why a die shape cannot be enumerated.
#[derive(Clone, Debug, PartialEq)]
pub enum DiceError {
    Empty,
    Count(u32),
    Keep(u32),
    AlwaysExplodes,
    TooManyValues(usize),
    TooManyStates(usize),
    TooMuchWork,
}

/// The multiply-adds spent so far working out one shape.
struct Work(u64);

impl Work {
    fn spend(&mut self, n: u64) -> Result<(), DiceError> {
        self.0 = self.0.saturating_add(n);
        if self.0 > MAX_DICE_WORK {
            return Err(DiceError::TooMuchWork);
        }
        Ok(())
    }
}

impl fmt::Display for DiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DiceError::Empty => write!(f, "a die needs at least one face"),
            DiceError::Count(n) => write!(f, "a pool of {n} dice (1 to {MAX_DICE_COUNT} allowed)"),
            DiceError::Keep(n) => write!(f, "keeping {n} dice"),
            DiceError::AlwaysExplodes => write!(f, "every face of this die is its highest, so it would explode forever"),
            DiceError::TooManyValues(n) => {
                write!(f, "the dice would span {n} values; at most {MAX_DICE_VALUES}")
            }
            DiceError::TooMuchWork => {
                write!(f, "working the dice out would take more than {MAX_DICE_WORK} steps")
            }
            DiceError::TooManyStates(n) => {
                write!(f, "keeping dice needs more than {MAX_KEEP_STATES} partial results (at least {n})")
            }
        }
    }
}

/// An exact distribution: sorted distinct values with weights over a common denominator.
#[derive(Clone, Debug, PartialEq)]
pub struct Dist {
    pub values: Vec<(i64, f64)>,
    pub den: f64,
}

impl Dist {
    pub fn constant(v: i64) -> Dist {
        Dist { values: vec![(v, 1.0)], den: 1.0 }
    }

    /// The distribution of the sum of independent draws of `self` and `other`.
    fn add(&self, other: &Dist, work: &mut Work) -> Result<Dist, DiceError> {
        let (lo, hi) = (self.min().saturating_add(other.min()), self.max().saturating_add(other.max()));
        let width = usize::try_from(hi.saturating_sub(lo)).unwrap_or(usize::MAX).saturating_add(1);
        if width > MAX_DICE_VALUES {
            return Err(DiceError::TooManyValues(width));
        }
        work.spend(self.values.len() as u64 * other.values.len() as u64)?;
        // Dense over the range, summed in a fixed order (left values outer, both ascending).
        let mut dense = vec![0.0f64; width];
        for &(a, wa) in &self.values {
            for &(b, wb) in &other.values {
                let at = usize::try_from(a.saturating_add(b).saturating_sub(lo)).unwrap_or(usize::MAX);
                if let Some(slot) = dense.get_mut(at) {
                    *slot += wa * wb;
                }
            }
        }
        let values = (lo..=hi).zip(dense).filter(|(_, w)| *w > 0.0).collect();
        Ok(Dist { values, den: self.den * other.den })
    }

    /// The chance of each value, in value order.
    pub fn probabilities(&self) -> impl Iterator<Item = (i64, f64)> + '_ {
        self.values.iter().map(|(v, w)| (*v, w / self.den))
    }

    pub fn min(&self) -> i64 {
        self.values.first().map_or(0, |v| v.0)
    }

    pub fn max(&self) -> i64 {
        self.values.last().map_or(0, |v| v.0)
    }
}

impl DiceShape {
    /// The dice as a player reads them where their faces are named: a die of faces all different
    /// by their names alone (`4d{save, maneuver, melee, missile, magic, id}`: the values only
    /// count the icons apart), one whose faces share values by what each face counts, the most
    /// shared value last as `others` (`4d{maneuver=1, others 0}`). Any other dice as written.
    pub fn shown(&self) -> String {
        let named = |t: &DieTerm| matches!(&t.faces, Faces::Listed(v) if t.names.len() == v.len() && !v.is_empty());
        if self.terms.is_empty() || !self.terms.iter().all(named) {
            return self.to_string();
        }
        let mut text = String::new();
        let _ = self.write(&mut text, named_faces);
        text
    }

    /// The dice written term by term, with `faces` saying a term's listed faces (inside the
    /// braces): the form both [`DiceShape::shown`] and `Display` take.
    fn write(&self, f: &mut impl fmt::Write, faces: fn(&[i64], &[String]) -> String) -> fmt::Result {
        for (i, t) in self.terms.iter().enumerate() {
            match (i, t.negative) {
                (0, true) => write!(f, "-")?,
                (0, false) => {}
                (_, true) => write!(f, " - ")?,
                (_, false) => write!(f, " + ")?,
            }
            if t.count != 1 || t.keep.is_some() {
                write!(f, "{}", t.count)?;
            }
            match &t.faces {
                Faces::Sides(n) => write!(f, "d{n}")?,
                Faces::Listed(v) => write!(f, "d{{{}}}", faces(v, &t.names))?,
            }
            if t.explode {
                write!(f, "!")?;
            }
            if t.crit {
                write!(f, "c")?;
            }
            if let Some(k) = t.keep {
                write!(f, "{}{}", if k.highest { "kh" } else { "kl" }, k.count)?;
            }
        }
        match (self.terms.is_empty(), self.constant) {
            (_, 0) if !self.terms.is_empty() => Ok(()),
            (true, c) => write!(f, "{c}"),
            (false, c) if c < 0 => write!(f, " - {}", c.unsigned_abs()),
            (false, c) => write!(f, " + {c}"),
        }
    }
}

/// Listed faces as written: `save=1,maneuver=10` (a face without a name by its value alone).
fn written_faces(values: &[i64], names: &[String]) -> String {
    let name = |k: usize| names.get(k).map(|n| format!("{n}=")).unwrap_or_default();
    values.iter().enumerate().map(|(k, x)| format!("{}{x}", name(k))).collect::<Vec<_>>().join(",")
}

/// Named faces as a player reads them ([`DiceShape::shown`]): by their names where every value
/// differs, else by what each face counts, the most shared value last as `others` (the first of
/// the largest on a tie).
fn named_faces(values: &[i64], names: &[String]) -> String {
    let mut groups: Vec<(i64, Vec<&str>)> = Vec::new();
    for (v, n) in values.iter().zip(names) {
        match groups.iter_mut().find(|(g, _)| g == v) {
            Some((_, names)) => names.push(n),
            None => groups.push((*v, vec![n])),
        }
    }
    if groups.len() == values.len() {
        return names.join(", ");
    }
    let most = groups.iter().enumerate().max_by_key(|(k, (_, n))| (n.len(), std::cmp::Reverse(*k))).map(|(k, _)| k);
    let mut said: Vec<String> = groups
        .iter()
        .enumerate()
        .filter(|(k, _)| Some(*k) != most)
        .map(|(_, (v, names))| format!("{}={v}", names.join("/")))
        .collect();
    if let Some((v, _)) = most.and_then(|k| groups.get(k)) {
        said.push(format!("others {v}"));
    }
    said.join(", ")
}

impl fmt::Display for DiceShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write(f, written_faces)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn term(count: u32, sides: u32) -> DieTerm {
        DieTerm { count, faces: Faces::Sides(sides), explode: false, crit: false, keep: None, negative: false, names: Vec::new() }
    }

    #[test]
    fn named_faces_are_shown_as_players_read_them() {
        let named = |count: u32, faces: &[(&str, i64)]| DieTerm {
            faces: Faces::Listed(faces.iter().map(|(_, v)| *v).collect()),
            names: faces.iter().map(|(n, _)| n.to_string()).collect(),
            ..term(count, 0)
        };
        // Seed 004's Health Dice: each face one icon, its value only counting the icons apart.
        let icons = [("save", 1), ("maneuver", 10), ("melee", 100), ("missile", 1000), ("magic", 10000), ("id", 0)];
        let health = DiceShape { terms: vec![named(4, &icons)], constant: 0 };
        assert_eq!(health.shown(), "4d{save, maneuver, melee, missile, magic, id}");
        assert_eq!(health.to_string(), "4d{save=1,maneuver=10,melee=100,missile=1000,magic=10000,id=0}", "as written");
        // The same dice counted for one icon: what each face counts, the most shared last.
        let check = [("save", 0), ("maneuver", 1), ("melee", 0), ("missile", 0), ("magic", 0), ("id", 0)];
        assert_eq!(DiceShape { terms: vec![named(2, &check)], constant: 0 }.shown(), "2d{maneuver=1, others 0}");
        let split = [("miss", 0), ("graze", 1), ("hit", 1), ("crit", 2), ("blank", 0)];
        assert_eq!(DiceShape { terms: vec![named(1, &split)], constant: -1 }.shown(), "d{graze/hit=1, crit=2, others 0} - 1");
        // Unnamed dice as written.
        assert_eq!(DiceShape { terms: vec![term(2, 6)], constant: 3 }.shown(), "2d6 + 3");
    }

    fn p(d: &Dist, v: i64) -> f64 {
        d.probabilities().find(|x| x.0 == v).map_or(0.0, |x| x.1)
    }

    #[test]
    fn two_d6_is_the_triangle() {
        let d = DiceShape { terms: vec![term(2, 6)], constant: 0 }.distribution().unwrap();
        assert_eq!(d.values.len(), 11);
        assert!((p(&d, 7) - 6.0 / 36.0).abs() < 1e-15);
        assert_eq!(d.den, 36.0);
    }

    #[test]
    fn four_d6_keep_highest_three_matches_brute_force() {
        let t = DieTerm { keep: Some(Keep { highest: true, count: 3 }), ..term(4, 6) };
        let d = DiceShape { terms: vec![t], constant: 0 }.distribution().unwrap();
        let mut brute = BTreeMap::new();
        for a in 1..=6i64 {
            for b in 1..=6 {
                for c in 1..=6 {
                    for e in 1..=6 {
                        let mut v = [a, b, c, e];
                        v.sort();
                        *brute.entry(v[1] + v[2] + v[3]).or_insert(0.0) += 1.0;
                    }
                }
            }
        }
        for (v, n) in brute {
            assert!((p(&d, v) - n / 1296.0).abs() < 1e-15, "value {v}");
        }
    }

    #[test]
    fn an_exploding_d10_ten_rerolls_and_adds() {
        let t = DieTerm { explode: true, ..term(1, 10) };
        let d = t.distribution().unwrap();
        assert!(p(&d, 10).abs() < 1e-15, "a 10 is never the final value");
        assert!((p(&d, 13) - 0.01).abs() < 1e-15, "10 then 3");
        assert!((p(&d, 7) - 0.1).abs() < 1e-15);
        let total: f64 = d.probabilities().map(|x| x.1).sum();
        assert!((total - 1.0).abs() < 1e-12);
        // The cut chain's mass: (1/10)^(depth+1) <= 1e-12.
        assert_eq!(explode_depth(0.1), 11);
    }

    #[test]
    fn listed_faces_count_repeats() {
        let t = DieTerm { faces: Faces::Listed(vec![0, 0, 1, 1, 2, 3]), ..term(1, 0) };
        let d = t.distribution().unwrap();
        assert!((p(&d, 0) - 1.0 / 3.0).abs() < 1e-15);
        assert!((p(&d, 3) - 1.0 / 6.0).abs() < 1e-15);
    }

    #[test]
    fn shapes_print_as_written() {
        let s = DiceShape {
            terms: vec![term(2, 10), term(3, 8), DieTerm { explode: true, negative: true, ..term(1, 6) }],
            constant: -1,
        };
        assert_eq!(s.to_string(), "2d10 + 3d8 - d6! - 1");
        assert_eq!(DiceShape::d(100).plain_sides(), Some(100));
    }

    /// Seed 002: "If any of your damage dice for the attack roll the maximum, such as an 8 on one
    /// of the 2d8 damage dice ... you add an extra 1d8 damage to the attack on a Crit. ... this
    /// extra damage can't trigger a Crit of its own." Checked against all 8^3 rolls by hand.
    #[test]
    fn a_crit_die_adds_one_die_on_any_highest_face() {
        let t = DieTerm { crit: true, ..term(2, 8) };
        let d = t.distribution().unwrap();
        let mut brute: BTreeMap<i64, f64> = BTreeMap::new();
        for a in 1..=8i64 {
            for b in 1..=8i64 {
                for c in 1..=8i64 {
                    let v = if a == 8 || b == 8 { a + b + c } else { a + b };
                    *brute.entry(v).or_default() += 1.0 / 512.0;
                }
            }
        }
        for (v, want) in &brute {
            assert!((p(&d, *v) - want).abs() < 1e-15, "value {v}: {} vs {want}", p(&d, *v));
        }
        assert_eq!(d.den, 512.0);
        // The highest: 8 + 8 + 8; 17 needs the extra die (no crit tops out at 14).
        assert_eq!(d.max(), 24);
        assert!(p(&d, 15) > 0.0 && (p(&d, 14) - brute[&14]).abs() < 1e-15);
        assert_eq!(DiceShape { terms: vec![t], constant: 3 }.to_string(), "2d8c + 3");
        // "If any of your damage dice for the attack roll the maximum": 1 - (7/8)^2.
        assert_eq!(DiceShape { terms: vec![DieTerm { crit: true, ..term(2, 8) }], constant: 0 }.crit_chance(), 15.0 / 64.0);
        assert_eq!(DiceShape { terms: vec![term(2, 8)], constant: 0 }.crit_chance(), 0.0);
    }
}
