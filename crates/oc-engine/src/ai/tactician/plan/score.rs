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
    pub(super) fn score_pool(&mut self, i: usize, caution: f64, pool: &mut [Weighed], cache: &mut Forecasts) {
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
        order.sort_unstable_by(|a, b| b.0.total_cmp(&a.0));
        for (most, k) in order {
            if !read.is_empty() && read.iter().all(|s| !s.is_nan()) {
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
