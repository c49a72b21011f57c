//! Scoring a unit's candidates: each by the danger its tile holds, the most promising first;
//! and, where only the best turn is asked for, the units read best first (`Decision::champion`).

use super::{Decision, Plan, Prepared, Weighed, SURE};
use crate::ai::forecasts::Forecasts;
use crate::ai::tactician::Candidate;
use crate::ai::tactician::EPS;

/// A unit's candidates (`Decision::start`) read so far: those that stand still first (the gain
/// is measured from them), then the others by the most each could score, highest first, until
/// the next falls short of a score read with no score read within EPS below it (a chain of
/// scores each within EPS of the next could hand the choice down to one below: then they are
/// read too). The choice among those read is the choice among all: those left are below every
/// score from which one within EPS could be passed over.
pub(in crate::ai::tactician) struct Pool {
    i: usize,
    caution: f64,
    pool: Vec<Weighed>,
    /// The candidates `pool` numbers (`Weighed::c`).
    cands: Vec<Candidate>,
    /// The candidates that do not stand still, by the most each could score (highest first),
    /// and how many of them were looked at.
    order: Vec<(f64, usize)>,
    next: usize,
    /// The scores read, highest first (whether one is NaN), and the score of standing still.
    read: Vec<f64>,
    nan: bool,
    stay: Option<f64>,
    /// Every candidate that may be the best is read: the choice is made ([`Pool::chosen`],
    /// kept).
    done: bool,
    chosen: Option<(f64, usize)>,
}

impl Pool {
    /// The most the unit's gain may be once all is read (its best gain is below it: rounding
    /// kept in order, `a - s` rounds up or down alike for every `a`); NaN where that is not
    /// known (a score read NaN, no candidate that stands still).
    fn most(&self) -> f64 {
        let Some(stay) = self.stay else { return f64::NAN };
        if self.nan {
            return f64::NAN;
        }
        let next = self.order.get(self.next).map_or(f64::NEG_INFINITY, |(most, _)| most + SURE);
        self.read.first().copied().unwrap_or(f64::NEG_INFINITY).max(next) - stay
    }

    /// Of equal scores the first (by tile, then turn) wins, as a later one goes ahead only by
    /// more than EPS: over the candidates read, in their order. The gain over standing still,
    /// and the candidate.
    fn choose(&self) -> Option<(f64, usize)> {
        let mut best: Option<(f64, usize)> = None;
        let mut stay: Option<f64> = None;
        for (k, w) in self.pool.iter().enumerate() {
            let Some(score) = w.score else { continue };
            if w.stays {
                stay = Some(stay.map_or(score, |s: f64| s.max(score)));
            }
            if best.as_ref().is_none_or(|(s, _)| score > *s + EPS) {
                best = Some((score, k));
            }
        }
        best.map(|(score, k)| (score - stay.unwrap_or(score), k))
    }

    /// Done: the choice is made ([`Pool::choose`], kept).
    fn finish(&mut self) {
        self.done = true;
        self.chosen = self.choose();
    }

    /// The gain of the best turn, once done.
    fn gain(&self) -> Option<f64> {
        self.chosen.filter(|_| self.done).map(|(g, _)| g)
    }

    /// The best turn read ([`Pool::choose`]), with its gain.
    pub(super) fn best(mut self) -> Option<Plan> {
        let (gain, k) = if self.done { self.chosen } else { self.choose() }?;
        let c = self.pool.get(k)?.c;
        let turn = self.cands.swap_remove(c).turn(self.i);
        Some(Plan { gain, turn })
    }
}

impl<'v, 'e> Decision<'v, 'e> {
    /// Unit `i`'s candidates `pool` (numbering `cands`) to read (`Pool`), those that stand still
    /// scored.
    pub(super) fn start(
        &mut self,
        i: usize,
        caution: f64,
        (mut pool, cands): (Vec<Weighed>, Vec<Candidate>),
        cache: &mut Forecasts,
    ) -> Pool {
        let mut read: Vec<f64> = Vec::new();
        let mut order: Vec<(f64, usize)> = Vec::with_capacity(pool.len());
        for k in 0..pool.len() {
            let Some(w) = pool.get(k) else { continue };
            if !w.stays {
                order.push((w.most, k));
                continue;
            }
            self.score_into((i, caution), (&mut pool, &cands), k, &mut read, cache);
        }
        // The score of standing still, as the plan reads it (`f64::max` over the stays, in order).
        let stay = pool
            .iter()
            .filter(|w| w.stays)
            .filter_map(|w| w.score)
            .fold(None, |s: Option<f64>, x| Some(s.map_or(x, |s| s.max(x))));
        order.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        let nan = read.iter().any(|s| s.is_nan());
        let mut p = Pool { i, caution, pool, cands, order, next: 0, read, nan, stay, done: false, chosen: None };
        self.settle(&mut p, cache);
        p
    }

    /// Bounds the next candidates of `p` closer (`ThreatMap::least_danger_for`: the least
    /// danger for our unit, read from the forecasts) until the next is bounded so: it goes back
    /// among the rest by its new bound where that is lower. A bound only falls (the loose one is
    /// kept where rounding would raise it), so the first bounded so is above all the rest.
    fn settle(&mut self, p: &mut Pool, cache: &mut Forecasts) {
        while let Some(&(most, k)) = p.order.get(p.next) {
            let Some(w) = p.pool.get_mut(k) else { return };
            let Some((base, weight)) = w.tight.take() else { return };
            let Some(c) = p.cands.get(w.c) else { return };
            let (t, holds, hp) = (w.t, c.holds, c.hp);
            let tight = base - weight * self.least_danger(p.i, t, holds, hp, cache);
            if tight.is_nan() || tight >= most {
                return;
            }
            if let Some(w) = p.pool.get_mut(k) {
                w.most = tight;
            }
            let Some(rest) = p.order.get(p.next + 1..) else { return };
            let at = p.next + rest.partition_point(|(m, _)| *m > tight);
            p.order.copy_within(p.next + 1..=at, p.next);
            if let Some(slot) = p.order.get_mut(at) {
                *slot = (tight, k);
            }
        }
    }

    /// Reads `p` on to its end (`true`). `beat`: a gain the unit's must pass by more than EPS
    /// to matter (the best of the units weighed before it, where only the best turn is asked
    /// for). Once the highest bound left, less the score of standing still, cannot, the rest
    /// are left unread: `false`, the unit does not matter.
    pub(super) fn read_on(&mut self, p: &mut Pool, beat: Option<f64>, cache: &mut Forecasts) -> bool {
        let bar = match (beat, p.stay) {
            (Some(g), Some(s)) if g.is_finite() && s.is_finite() => Some((g + EPS, s)),
            _ => None,
        };
        while !p.done {
            if !self.step(p, bar, cache) {
                return false;
            }
        }
        true
    }

    /// Reads `p`'s next candidate, or finds it need not (then `p` is done); `false` where `bar`
    /// (a gain to pass, the score of standing still) shows the unit does not matter.
    fn step(&mut self, p: &mut Pool, bar: Option<(f64, f64)>, cache: &mut Forecasts) -> bool {
        let Some(&(most, k)) = p.order.get(p.next) else {
            p.finish();
            return true;
        };
        if !p.read.is_empty() && !p.nan {
            if let (Some((bar, stay)), Some(best)) = (bar, p.read.first()) {
                if best.max(most + SURE) - stay <= bar {
                    return false;
                }
            }
            // The lowest score a chain within EPS reaches down from the best read.
            let mut floor = f64::INFINITY;
            for s in &p.read {
                if floor.is_infinite() || *s >= floor - EPS {
                    floor = *s;
                } else {
                    break;
                }
            }
            if most + SURE < floor - EPS {
                p.finish();
                return true;
            }
        }
        self.score_into((p.i, p.caution), (&mut p.pool, &p.cands), k, &mut p.read, cache);
        p.nan |= p.pool.get(k).and_then(|w| w.score).is_some_and(f64::is_nan);
        p.next += 1;
        self.settle(p, cache);
        true
    }

    /// The best turn of `movers` (`Tactician::ranked`'s first: a later unit goes ahead only by
    /// more than EPS), their candidates read best first across the units: the unit whose gain
    /// may be the most reads its next, until the units read to their end split from the rest by
    /// more than EPS — all the others may gain at most `x`, and some more than `x` + EPS. Those
    /// above go ahead of any below wherever it stands in the order, and none below goes ahead
    /// of one of them: the best of them in order is the best of all. A bound NaN reads all.
    pub(in crate::ai::tactician) fn champion(&mut self, movers: &[usize], cache: &mut Forecasts) -> Option<Plan> {
        let mut all: Vec<Prepared> = movers.iter().filter_map(|i| self.prepare(*i, cache)).collect();
        let gain = |p: &Prepared| match p {
            Prepared::Done(plan) => Some(plan.gain),
            Prepared::Pool(p) => p.gain(),
        };
        let above = loop {
            // The unit still read whose gain may be the most (the first of equals), the most
            // the others may gain, and the most gain of those read to their end.
            let (mut top, mut next, mut high): (Option<(f64, usize)>, f64, f64) = (None, f64::NEG_INFINITY, f64::NEG_INFINITY);
            let mut nan = false;
            for (n, p) in all.iter().enumerate() {
                match p {
                    Prepared::Pool(p) if !p.done => {
                        let most = p.most();
                        nan |= most.is_nan();
                        match top {
                            Some((t, _)) if most <= t => next = next.max(most),
                            _ => {
                                next = next.max(top.map_or(f64::NEG_INFINITY, |(t, _)| t));
                                top = Some((most, n));
                            }
                        }
                    }
                    p => {
                        let g = gain(p).unwrap_or(f64::NEG_INFINITY);
                        nan |= g.is_nan();
                        high = high.max(g);
                    }
                }
            }
            let Some((mut x, n)) = top else { break None };
            if nan {
                for p in &mut all {
                    if let Prepared::Pool(p) = p {
                        self.read_on(p, None, cache);
                    }
                }
                break None;
            }
            if high > x + EPS {
                // The gains within EPS above `x` go below it too.
                loop {
                    let raised = all.iter().filter_map(gain).filter(|g| *g > x && *g <= x + EPS).fold(x, f64::max);
                    if raised <= x {
                        break;
                    }
                    x = raised;
                }
                if high > x + EPS {
                    break Some(x);
                }
            }
            // Read on while it stays the one that may gain most (and no split shows).
            if let Some(Prepared::Pool(p)) = all.get_mut(n) {
                self.step(p, None, cache);
                while !p.done && p.most() >= next && high <= p.most() + EPS {
                    self.step(p, None, cache);
                }
            }
        };
        let mut best: Option<(f64, usize)> = None;
        for (n, p) in all.iter().enumerate() {
            let Some(g) = gain(p) else { continue };
            if above.is_some_and(|x| g <= x + EPS) {
                continue;
            }
            if best.is_none_or(|(b, _)| g > b + EPS) {
                best = Some((g, n));
            }
        }
        match all.swap_remove(best?.1) {
            Prepared::Done(plan) => Some(plan),
            Prepared::Pool(p) => p.best(),
        }
    }

    /// Scores candidate `k` of `pool` and files the score among `read` (highest first).
    fn score_into(
        &mut self,
        (i, caution): (usize, f64),
        (pool, cands): (&mut [Weighed], &[Candidate]),
        k: usize,
        read: &mut Vec<f64>,
        cache: &mut Forecasts,
    ) {
        let Some(w) = pool.get(k) else { return };
        let Some(c) = cands.get(w.c) else { return };
        let score = self.score(i, caution, (w, c), cache);
        read.insert(read.partition_point(|s| *s > score), score);
        if let Some(w) = pool.get_mut(k) {
            w.score = Some(score);
        }
    }

    /// A candidate's score: what it is worth but for the danger, less the danger its tile holds
    /// after the act; a tile held counts as much as our unit still stands.
    fn score(&mut self, i: usize, caution: f64, (w, c): (&Weighed, &Candidate), cache: &mut Forecasts) -> f64 {
        let Weighed { t, place, toll, stands, bars, .. } = w;
        let t = *t;
        let danger = match c.routs {
            _ if !c.holding.is_empty() => self.danger_holding(i, t, (c.holds, c.hp), &c.holding, cache),
            Some((foe, p)) if p > 0.0 => {
                let [spared, faced] = self.dangers(i, t, c.holds, c.hp, [Some(foe), None], None, cache);
                p * spared + (1.0 - p) * faced
            }
            _ => self.danger(i, t, c.holds, c.hp, None, cache),
        };
        let held = if *bars > 0.0 { (1.0 - c.fallen) * self.standing(i, t, c.holds, c.hp, cache) * bars } else { 0.0 };
        // (Where `stands` is 1, the same bits as `c.act + place + held - toll - caution * ...`:
        // a product by 1 is exact.)
        stands * (c.act + place + held) - toll - stands * caution * (1.0 - c.fallen) * danger
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use crate::ai::tactician::Tactician;
    use crate::battle::Battle;

    /// Where only the best turn (or the best two) is asked for, a unit that cannot pass the least
    /// gain of those ranked before it is left half read (`Decision::read_on`), and the best turn alone is read best first across the units (`Decision::champion`): the turns
    /// ranked are the first of a full ranking, decision by decision over whole games (the
    /// tacticians kept a game long).
    #[test]
    fn the_best_turn_is_the_first_of_a_full_ranking() {
        let (engine, map) = crate::testing::duel(
            &["..........", "...#......", "......#...", ".........."],
            "",
            "",
            [
                "unit Brave: Fighter { items SteelAxe } unit Sage: Mage { items Fire } unit Axe: Fighter { items SteelAxe }",
                "unit Foe: Fighter { items SteelAxe } unit Other: Mage { items Fire } unit Third: Fighter { items SteelAxe }",
            ],
        );
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let (mut decisions, mut several) = (0, 0);
        for seed in 1..5 {
            let tiles = [&[(0, 0), (1, 1), (0, 2)][..], &[(9, 0), (8, 1), (9, 2)][..]];
            let mut b = Battle::new(&engine, s, &map, [a, d], tiles, seed).expect("the battle starts");
            let (mut best, mut two, mut full) = (Tactician::default(), Tactician::default(), Tactician::default());
            while b.outcome.is_none() && b.round <= 6 && decisions < 400 {
                let Some(one) = best.ranked(&b, 1) else { break };
                let all = full.ranked(&b, usize::MAX).expect("a full ranking");
                assert_eq!(one.first(), all.first(), "seed {seed}, round {}", b.round);
                let both = two.ranked(&b, 2).expect("a ranking of two");
                assert_eq!(both[..], all[..all.len().min(2)], "seed {seed}, round {}", b.round);
                decisions += 1;
                several += usize::from(all.len() > 1);
                b.play_turn(one[0].1.clone()).expect("the turn is played");
            }
        }
        assert!(decisions > 30 && several > decisions / 2, "{decisions} decisions, {several} with units to pass over");
    }
}
