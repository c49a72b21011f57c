//! How the enemies share out our other units ([`Decision::elsewhere`]): what each enemy gets
//! from our units where they stand, each enemy striking in turn.

use std::rc::Rc;

use super::{Decision, EPS};

impl Decision<'_, '_> {
    /// What each enemy gets from our units other than `i` where they stand, as the enemies share
    /// them out: each enemy in turn, the one with the best blow first, strikes the target worth
    /// most to it, HP worn down by the blows before (a unit two enemies strike may be routed by
    /// the first: the second gets less from it).
    ///
    /// With `i` none of ours (no unit left out), also: each enemy's best first blow (the order
    /// the enemies strike in), and by exposure whether an enemy ever held it its best target
    /// while it looked ([`Decision::elsewhere`] reads that share for the units it leaves as it is).
    pub(super) fn share_out(&self, i: Option<usize>) -> (Vec<f64>, Vec<f64>, Vec<bool>) {
        let n = self.threats.foes.len();
        let mut got = vec![0.0; n];
        // By our unit: its HP, the chance it stands, the damage it took; whether a blow fell.
        let mut state: Vec<(i64, f64, f64)> = self.exposed.iter().map(|x| (x.hp, 1.0, 0.0)).collect();
        let mut struck = vec![false; self.exposed.len()];
        let mut held = vec![false; if i.is_none() { self.exposed.len() } else { 0 }];
        let mut order: Vec<(usize, f64)> = (0..n)
            .map(|f| {
                let best = self
                    .exposed
                    .iter()
                    .filter(|x| Some(x.unit) != i)
                    .filter_map(|x| x.first.get(f)?.as_ref().map(|v| v.0))
                    .fold(0.0f64, f64::max);
                (f, best)
            })
            .collect();
        let keys = if i.is_none() { order.iter().map(|(_, v)| *v).collect() } else { Vec::new() };
        order.sort_by(|a, b| b.1.total_cmp(&a.1));
        for (f, _) in order {
            let tempo = self.threats.foes.get(f).map_or(1.0, |x| x.tempo);
            let mut best: Option<(usize, f64, f64, f64)> = None;
            for (k, ((x, st), struck)) in self.exposed.iter().zip(&state).zip(&struck).enumerate() {
                if Some(x.unit) == i || st.0 <= 0 {
                    continue;
                }
                let Some((own, sk)) = x.blows.get(f).and_then(Option::as_ref) else { continue };
                let first = if *struck { None } else { x.first.get(f).copied().flatten() };
                let (v, routed, damage) = first.unwrap_or_else(|| x.value(*st, *own, sk));
                if v > 0.0 && best.is_none_or(|b| v > b.1 + EPS) {
                    best = Some((k, v, routed, damage));
                    if let Some(h) = held.get_mut(k) {
                        *h = true;
                    }
                }
            }
            let Some((k, v, routed, damage)) = best else { continue };
            if let (Some(slot), Some(st), Some(struck)) = (got.get_mut(f), state.get_mut(k), struck.get_mut(k)) {
                *slot = v;
                *struck = true;
                st.1 *= 1.0 - tempo * routed;
                st.2 += tempo * damage;
                st.0 = self.exposed.get(k).map_or(0, |x| x.hp) - st.2.round() as i64;
            }
        }
        (got, keys, held)
    }

    /// [`Decision::share_out`] for unit `i`, worked out once per unit and decision (our units'
    /// exposure stays as it was found).
    ///
    /// The share with no unit left out is the share without `i` where no enemy ever held `i` its
    /// best target while it looked (each enemy's choices and our units' wear are then the same
    /// step by step) and `i`'s first blows are each below its enemy's best first blow (which
    /// then stays as it was, bit for bit: the most of the others, above `i`'s, or 0 — `i`'s
    /// below 0 leaving it as it was —, so the enemies strike in the same order).
    pub(super) fn elsewhere(&mut self, i: usize) -> Rc<[f64]> {
        if let Some(Some(got)) = self.elsewhere.get(i) {
            return got.clone();
        }
        if self.shared.is_none() {
            let (got, keys, held) = self.share_out(None);
            self.shared = Some((got.into(), keys, held));
        }
        let same = self.shared.as_ref().and_then(|(all, keys, held)| {
            let apart = self.exposed.iter().zip(held).filter(|(x, _)| x.unit == i).all(|(x, held)| {
                !*held
                    && x.first.iter().zip(keys).all(|(v, key)| v.is_none_or(|(v, _, _)| v < *key))
                    && x.first.len() == keys.len()
            });
            apart.then(|| all.clone())
        });
        let got: Rc<[f64]> = match same {
            Some(all) => all,
            None => self.share_out(Some(i)).0.into(),
        };
        debug_assert!(
            got.iter().map(|v| v.to_bits()).eq(self.share_out(Some(i)).0.iter().map(|v| v.to_bits())),
            "the share without unit {i}"
        );
        if self.elsewhere.len() <= i {
            self.elsewhere.resize(i + 1, None);
        }
        if let Some(slot) = self.elsewhere.get_mut(i) {
            *slot = Some(got.clone());
        }
        got
    }
}
