//! Scoring a unit's candidates: each by the danger its tile holds, the most promising first.

use super::{Decision, Weighed, SURE};
use crate::ai::forecasts::Forecasts;
use crate::ai::tactician::EPS;

impl<'v, 'e> Decision<'v, 'e> {
    /// Scores the candidates of `pool` (unit `i`'s) that may be the best, by the danger each
    /// tile holds, and those that stand still (the gain is measured from them): the highest
    /// bound first, until the next bound falls short of a score read, with no score read within
    /// EPS below it (a chain of scores each within EPS of the next could hand the choice down
    /// to one below: then they are read too). The choice among those read is the choice among
    /// all: those left are below every score from which one within EPS could be passed over.
    ///
    /// `beat`: a gain the unit's must pass by more than EPS to matter (the best of the units
    /// weighed before it, where only the best turn is asked for). Once the highest bound left,
    /// less the score of standing still, cannot, the rest are left unread: `false`, the unit
    /// does not matter. Its best gain is below every bound's (rounding kept in order: `a - s`
    /// rounds up or down alike for every `a`).
    pub(super) fn score_pool(
        &mut self,
        i: usize,
        caution: f64,
        pool: &mut [Weighed],
        beat: Option<f64>,
        cache: &mut Forecasts,
    ) -> bool {
        // The scores read, highest first.
        let mut read: Vec<f64> = Vec::new();
        let mut order: Vec<(f64, usize)> = Vec::with_capacity(pool.len());
        for k in 0..pool.len() {
            let Some(w) = pool.get(k) else { continue };
            if !w.stays {
                order.push((w.most, k));
                continue;
            }
            self.score_into((i, caution), pool, k, &mut read, cache);
        }
        // The score of standing still, as the plan reads it (`f64::max` over the stays, in order).
        let stay = pool
            .iter()
            .filter(|w| w.stays)
            .filter_map(|w| w.score)
            .fold(None, |s: Option<f64>, x| Some(s.map_or(x, |s| s.max(x))));
        let bar = match (beat, stay) {
            (Some(g), Some(s)) if g.is_finite() && s.is_finite() => Some((g + EPS, s)),
            _ => None,
        };
        order.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        for (most, k) in order {
            if !read.is_empty() && read.iter().all(|s| !s.is_nan()) {
                if let (Some((bar, stay)), Some(best)) = (bar, read.first()) {
                    if best.max(most + SURE) - stay <= bar {
                        return false;
                    }
                }
                // The lowest score a chain within EPS reaches down from the best read.
                let mut floor = f64::INFINITY;
                for s in &read {
                    if floor.is_infinite() || *s >= floor - EPS {
                        floor = *s;
                    } else {
                        break;
                    }
                }
                if most + SURE < floor - EPS {
                    break;
                }
            }
            self.score_into((i, caution), pool, k, &mut read, cache);
        }
        true
    }

    /// Scores candidate `k` of `pool` and files the score among `read` (highest first).
    fn score_into(
        &mut self,
        (i, caution): (usize, f64),
        pool: &mut [Weighed],
        k: usize,
        read: &mut Vec<f64>,
        cache: &mut Forecasts,
    ) {
        let Some(w) = pool.get(k) else { return };
        let score = self.score(i, caution, w, cache);
        read.insert(read.partition_point(|s| *s > score), score);
        if let Some(w) = pool.get_mut(k) {
            w.score = Some(score);
        }
    }

    /// A candidate's score: what it is worth but for the danger, less the danger its tile holds
    /// after the act; a tile held counts as much as our unit still stands.
    fn score(&mut self, i: usize, caution: f64, w: &Weighed, cache: &mut Forecasts) -> f64 {
        let Weighed { c, t, place, toll, bars, .. } = w;
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
        c.act + place + held - toll - caution * (1.0 - c.fallen) * danger
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use crate::ai::tactician::Tactician;
    use crate::battle::Battle;

    /// Where only the best turn (or the best two) is asked for, a unit that cannot pass the least
    /// gain of those ranked before it is left half read (`Decision::score_pool`): the turns
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
