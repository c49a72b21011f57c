//! Rolling dice shapes with the exchange's generator. A plain `dN` is one `roll_die` call, so
//! rules written before dice shapes existed draw exactly as they did (logs stay byte-identical).

use oc_model::{DiceShape, DieTerm, Faces};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The generator of every die of a forecast's duel or a battle, from its seed.
pub fn rng(seed: u64) -> ChaCha8Rng {
    ChaCha8Rng::seed_from_u64(seed)
}

/// A uniform roll of a `faces`-sided die (rejection sampling: no modulo bias).
pub fn roll_die(rng: &mut ChaCha8Rng, faces: u32) -> u32 {
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
    if let Some(n) = shape.plain_sides() {
        return i64::from(roll_die(rng, n));
    }
    let mut total = shape.constant;
    let mut kept: Vec<i64> = Vec::new();
    for term in &shape.terms {
        kept.clear();
        kept.extend((0..term.count).map(|_| roll_one(rng, term)));
        // A crit term: one more die when any shows its highest face (that die cannot crit).
        if term.crit && kept.contains(&highest(&term.faces)) {
            kept.push(face(rng, &term.faces));
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
    match faces {
        Faces::Sides(n) => i64::from(roll_die(rng, *n)),
        Faces::Listed(v) => {
            let n = u32::try_from(v.len()).unwrap_or(u32::MAX).max(1);
            v.get((roll_die(rng, n) as usize).saturating_sub(1)).copied().unwrap_or(0)
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
