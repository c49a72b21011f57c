//! Rolling dice shapes with the exchange's generator. A plain `dN` is one `roll_die` call, so
//! rules written before dice shapes existed draw exactly as they did (logs stay byte-identical).

use oc_model::{DiceShape, DieTerm, Faces};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The generator of every die of a forecast's duel or a battle, from its seed.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

thread_local! {
    /// The dice this thread has rolled ([`roll_die`]: every die is rolled there): read before and
    /// after a decision, it tells whether the decision left anything to chance ([`rolled`]).
    static ROLLED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many dice this thread has rolled so far.
pub(crate) fn rolled() -> u64 {
    ROLLED.with(std::cell::Cell::get)
}

thread_local! {
    /// The copies this thread made of a battle that go on with that battle's own dice
    /// (`Battle::fork(None)` of a battle played, not of a look-ahead seeded apart): read before
    /// and after a decision, it tells whether the decision could have read the battle's dice
    /// ([`carried`]). A look-ahead's copies roll dice of their own seeding, not the battle's.
    static CARRIED: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
}

/// How many copies carrying a played battle's dice this thread has made so far.
pub(crate) fn carried() -> u64 {
    CARRIED.with(std::cell::Cell::get)
}

/// Notes a copy made carrying a played battle's dice ([`carried`]).
pub(crate) fn carry() {
    CARRIED.with(|c| c.set(c.get().wrapping_add(1)));
}

/// A uniform roll of a `faces`-sided die (rejection sampling: no modulo bias).
pub fn roll_die(rng: &mut ChaCha8Rng, faces: u32) -> u32 {
    ROLLED.with(|r| r.set(r.get().wrapping_add(1)));
    let zone = u32::MAX - (u32::MAX % faces);
    loop {
        let x = rng.next_u32();
        if x < zone {
            return x % faces + 1;
        }
    }
}

/// Past this many explosions of one die a roll stops (the exact forecast already cut the chain
/// where the rest was at most 1e-12 likely; this only bounds a run of bad luck).
const MAX_ROLLED_EXPLOSIONS: u32 = 10_000;

/// One roll of `shape`.
pub fn roll(rng: &mut ChaCha8Rng, shape: &DiceShape) -> i64 {
    roll_noting(rng, shape, None)
}

/// One roll of `shape` (the same draws as [`roll`]), and where its faces are named
/// (`d{save=1, melee=100}`) the names of the faces it showed, counted in the order the faces are
/// listed: "2 melee, 1 save". `None` for dice without names.
pub fn roll_shown(rng: &mut ChaCha8Rng, shape: &DiceShape) -> (i64, Option<String>) {
    if shape.terms.iter().all(|t| t.names.is_empty()) {
        return (roll(rng, shape), None);
    }
    let mut shown = Vec::new();
    let value = roll_noting(rng, shape, Some(&mut shown));
    let mut words = Vec::new();
    for (k, term) in shape.terms.iter().enumerate() {
        let mut order: Vec<&str> = Vec::new();
        for n in &term.names {
            if !order.contains(&n.as_str()) {
                order.push(n);
            }
        }
        for n in order {
            let count = shown.iter().filter(|(t, f)| *t == k && term.names.get(*f).is_some_and(|x| x == n)).count();
            if count > 0 {
                words.push(format!("{count} {n}"));
            }
        }
    }
    (value, Some(if words.is_empty() { "nothing".to_string() } else { words.join(", ") }))
}

/// [`roll`], noting (term, face index) of every named face drawn in `shown`.
fn roll_noting(rng: &mut ChaCha8Rng, shape: &DiceShape, mut shown: Option<&mut Vec<(usize, usize)>>) -> i64 {
    if let Some(n) = shape.plain_sides() {
        return i64::from(roll_die(rng, n));
    }
    let mut total = shape.constant;
    let mut kept: Vec<i64> = Vec::new();
    for (k, term) in shape.terms.iter().enumerate() {
        kept.clear();
        let named = !term.names.is_empty() && !term.explode && term.keep.is_none();
        for _ in 0..term.count {
            match (named, shown.as_deref_mut()) {
                (true, Some(seen)) => {
                    let (v, f) = face_at(rng, &term.faces);
                    seen.push((k, f));
                    kept.push(v);
                }
                _ => kept.push(roll_one(rng, term)),
            }
        }
        // A crit term: one more die when any shows its highest face (that die cannot crit).
        if term.crit && kept.contains(&highest(&term.faces)) {
            let (v, f) = face_at(rng, &term.faces);
            if let (true, Some(seen)) = (named, shown.as_deref_mut()) {
                seen.push((k, f));
            }
            kept.push(v);
        }
        if let Some(keep) = term.keep {
            if keep.highest {
                kept.sort_unstable_by(|a, b| b.cmp(a));
            } else {
                kept.sort_unstable();
            }
            kept.truncate(keep.count as usize);
        }
        let sum = kept.iter().fold(0i64, |a, b| a.saturating_add(*b));
        total = total.saturating_add(if term.negative { sum.saturating_neg() } else { sum });
    }
    total
}

/// One face of `faces`, uniformly.
fn face(rng: &mut ChaCha8Rng, faces: &Faces) -> i64 {
    face_at(rng, faces).0
}

/// One face of `faces`, uniformly: its value and its index among the faces.
fn face_at(rng: &mut ChaCha8Rng, faces: &Faces) -> (i64, usize) {
    match faces {
        Faces::Sides(n) => {
            let v = roll_die(rng, *n);
            (i64::from(v), v.saturating_sub(1) as usize)
        }
        Faces::Listed(v) => {
            let n = u32::try_from(v.len()).unwrap_or(u32::MAX).max(1);
            let k = (roll_die(rng, n) as usize).saturating_sub(1);
            (v.get(k).copied().unwrap_or(0), k)
        }
    }
}

/// The highest face of a die.
fn highest(faces: &Faces) -> i64 {
    match faces {
        Faces::Sides(n) => i64::from(*n),
        Faces::Listed(v) => v.iter().copied().max().unwrap_or(0),
    }
}

/// One die of `term`, with its explosions added.
fn roll_one(rng: &mut ChaCha8Rng, term: &DieTerm) -> i64 {
    let max = highest(&term.faces);
    let mut total = 0i64;
    for _ in 0..=MAX_ROLLED_EXPLOSIONS {
        let v = face(rng, &term.faces);
        total = total.saturating_add(v);
        if !(term.explode && v == max) {
            break;
        }
    }
    total
}
