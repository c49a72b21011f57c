//! Reactions to a roll (`reroll F [by defender]`) and gains (`gain attacker R = EXPR`): what a
//! strike does once its dice are rolled, beyond its outcome. Gains are banked in a resolution and
//! added when the exchange ends, so they change nothing inside it: forecasts leave them out.
//!
//! At each joint value of the strike's dice, the striker first, then the unit struck, may take
//! one reaction to a roll: roll again the dice its formula reads, the others held. It is taken
//! where its requirement holds at the dice as rolled, its taker can pay for it, and the new
//! roll's expected damage (from the taker's side: dealt by the striker, taken by the unit struck)
//! is better than what the dice show; of several, the best, then the cheapest, then the first
//! written. The choice is a function of the dice and the state, made the same way in forecasts
//! (every rerolled value weighed) and in resolutions (drawn again), so forecasts stay exact. The
//! outcome carries the reactions taken, paid after the strike.

use smallvec::SmallVec;

use super::outcomes::{forget, Lists};
use super::*;
use crate::ir::{Op, E};

/// The expected worth of a reroll by (reaction, the dice it holds): the same wherever the dice
/// it rolls again showed.
pub(super) type Expected = FastMap<(u8, SmallVec<[i64; 8]>), f64>;

/// The weights on the way to an outcome: the joint value's, then the new values' of the
/// striker's reroll and of the struck unit's (1 where none is taken). Their product, taken left
/// to right, is the outcome's weight.
type Path = [f64; 3];

/// A reroll's place in a settling: (stage, the rerolls taken, the dice held).
type AfterKey = (u8, u16, SmallVec<[i64; 8]>);

/// What one settling has worked out: the expected worth of each reroll, and the outcomes that
/// follow a reroll by (stage, the rerolls taken, the dice held), in the order they were found.
#[derive(Default)]
struct Memo {
    expected: Expected,
    after: FastMap<AfterKey, Vec<(Outcome, Path)>>,
}

/// Where settled outcomes go: the strike's tally, or a reroll's record (`Memo::after`).
enum Sink<'a> {
    Tally(&'a mut Tally<Outcome>),
    Record(&'a mut Vec<(Outcome, Path)>),
}

impl Sink<'_> {
    fn add(&mut self, o: Outcome, [w, a, b]: Path) {
        match self {
            Sink::Tally(t) => t.add(o, w * a * b),
            Sink::Record(r) => r.push((o, [w, a, b])),
        }
    }
}

/// The dice in `rolls` a reroll of `slots` holds (the rolled ones read 0).
fn held_by(rolls: &[i64], slots: u64) -> SmallVec<[i64; 8]> {
    rolls.iter().enumerate().map(|(s, v)| if slots & (1u64 << s) != 0 { 0 } else { *v }).collect()
}

/// A reaction to a roll chosen at a joint value: its index and the dice it rolls again.
#[derive(Clone, Copy)]
pub(super) struct Chosen {
    pub reaction: u8,
    pub slots: u64,
}

impl Exchange<'_> {
    /// The strike's outcomes, every joint value of its dice settled one by one (`Ir::settles`):
    /// rerolls weighed over the new values, gains read at the dice kept. The weights sum to the
    /// product of the dice's denominators.
    pub(super) fn settled(
        &self,
        strike: &Strike,
        lists: &Lists,
        rolls: &mut [i64],
        cache: &mut [Option<V>],
    ) -> Vec<(f64, Outcome)> {
        let mut out: Tally<Outcome> = Tally::default();
        let mut memo = Memo::default();
        self.each_joint(self.engine.ir.strike_mask, lists, false, rolls, cache, |rolls, cache, weight| {
            let mut sink = Sink::Tally(&mut out);
            self.settle(strike, lists, rolls, cache, (0, 0), [weight, 1.0, 1.0], None, (&mut sink, &mut memo));
        });
        out.list.into_iter().map(|(o, w)| (w, o)).collect()
    }

    /// Settles the dice in `rolls` from `stage` on (0: the striker's reroll, 1: the struck
    /// unit's, 2: the outcome), with the rerolls `taken` so far. `path` is the weight of the
    /// joint value and of the new values of each reroll so far (1 where none was taken); `base`
    /// is the outcome at `rolls` where it is known.
    #[allow(clippy::too_many_arguments)]
    fn settle(
        &self,
        strike: &Strike,
        lists: &Lists,
        rolls: &mut [i64],
        cache: &mut [Option<V>],
        (stage, taken): (u8, u16),
        path: Path,
        base: Option<Outcome>,
        (out, memo): (&mut Sink, &mut Memo),
    ) {
        let base = base.unwrap_or_else(|| self.outcome_at(&self.ctx(strike.units, strike.attrs, strike.attacker, rolls), cache));
        if stage >= 2 {
            out.add(Outcome { rerolled: taken, ..base }, path);
            return;
        }
        let taker = if stage == 0 { strike.attacker } else { 1 - strike.attacker };
        let Some(chosen) = self.reroll_choice(strike, lists, rolls, cache, taker, &mut memo.expected, Some(&base)) else {
            self.settle(strike, lists, rolls, cache, (stage + 1, taken), path, Some(base), (out, memo));
            return;
        };
        let taken = taken | (1 << chosen.reaction);
        // What follows a reroll depends on the dice it holds only: worked out once for them,
        // and replayed in the order it was found, so every weight is the same product added in
        // the same order as if it were worked out again.
        let key = (stage, taken, held_by(rolls, chosen.slots));
        let at = usize::from(stage) + 1;
        let replay = |out: &mut Sink, after: &[(Outcome, Path)]| {
            for (o, q) in after {
                let mut p = path;
                p[at..].copy_from_slice(&q[at..]);
                out.add(*o, p);
            }
        };
        if let Some(after) = memo.after.get(&key) {
            replay(out, after);
            return;
        }
        let held: SmallVec<[i64; 8]> = rolls.iter().copied().collect();
        let mut after = Vec::new();
        self.each_joint(chosen.slots, lists, true, rolls, cache, |rolls, cache, w| {
            let mut p = path;
            if let Some(x) = p.get_mut(at) {
                *x = w;
            }
            self.settle(strike, lists, rolls, cache, (stage + 1, taken), p, None, (&mut Sink::Record(&mut after), &mut *memo));
        });
        rolls.copy_from_slice(&held);
        forget(&self.engine.ir, cache);
        replay(out, &after);
        memo.after.insert(key, after);
    }

    /// The outcome at the dice kept: what the strike does and the rerolls taken.
    pub(super) fn kept(&self, strike: &Strike, rolls: &[i64], cache: &mut [Option<V>], taken: u16) -> Outcome {
        let ctx = self.ctx(strike.units, strike.attrs, strike.attacker, rolls);
        let mut o = self.outcome_at(&ctx, cache);
        o.rerolled = taken;
        o
    }

    /// Adds each gain's value at the dice kept (`rolls`) by a strike of `attacker` to `banked`.
    pub(super) fn bank_gains(&self, ctx: &crate::strike::Ctx, cache: &mut [Option<V>], banked: &mut [[i32; MAX_RES]; 2]) {
        for g in &self.engine.ir.gains {
            let taker = if g.struck { 1 - ctx.attacker } else { ctx.attacker };
            let v = ctx.eval(&g.value, &[], cache).int();
            if let Some(have) = banked.get_mut(taker).and_then(|x| x.get_mut(g.resource)) {
                *have = have.saturating_add(i32::try_from(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX))).unwrap_or(0));
            }
        }
    }

    /// The damage a strike's outcome is worth to `taker`: dealt by the striker, less what a
    /// backfire deals to it; the opposite for the unit struck.
    fn worth(o: &Outcome, taker: usize, attacker: usize) -> f64 {
        let dealt = if o.hit && !o.backfire { o.damage } else { 0 } - if o.backfire { o.damage } else { 0 };
        if taker == attacker {
            dealt as f64
        } else {
            -(dealt as f64)
        }
    }

    /// The reaction to a roll `taker` takes at the dice in `rolls`, if any (see the module);
    /// `base` is the outcome at `rolls` where it is known.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn reroll_choice(
        &self,
        strike: &Strike,
        lists: &Lists,
        rolls: &mut [i64],
        cache: &mut [Option<V>],
        taker: usize,
        memo: &mut Expected,
        base: Option<&Outcome>,
    ) -> Option<Chosen> {
        let struck = taker != strike.attacker;
        let mut best: Option<(f64, i64, Chosen)> = None;
        let mut now: Option<f64> = None;
        for (k, r) in self.engine.reactions.iter().enumerate() {
            let Some((slots, by_struck)) = r.reroll else { continue };
            let Ok(k) = u8::try_from(k) else { break };
            if by_struck != struck || !self.affordable(r, strike.res, taker) {
                continue;
            }
            if let Some(e) = &r.requires {
                let mut ctx = self.ctx(strike.units, strike.attrs, strike.attacker, rolls);
                ctx.holder = taker;
                if !ctx.eval(e, &[], cache).bool() {
                    continue;
                }
            }
            let shown = *now.get_or_insert_with(|| {
                let o = base
                    .copied()
                    .unwrap_or_else(|| self.outcome_at(&self.ctx(strike.units, strike.attrs, strike.attacker, rolls), cache));
                Self::worth(&o, taker, strike.attacker)
            });
            let held: SmallVec<[i64; 8]> = rolls.iter().copied().collect();
            let key = held_by(&held, slots);
            let expected = match memo.get(&(k, key.clone())) {
                Some(e) => *e,
                None => {
                    let mut expected = 0.0;
                    self.each_joint(slots, lists, true, rolls, cache, |rolls, cache, w| {
                        let o = self.outcome_at(&self.ctx(strike.units, strike.attrs, strike.attacker, rolls), cache);
                        expected += w * Self::worth(&o, taker, strike.attacker);
                    });
                    rolls.copy_from_slice(&held);
                    forget(&self.engine.ir, cache);
                    memo.insert((k, key), expected);
                    expected
                }
            };
            // Rounded, so equal choices stay equal whatever the summation order.
            let (expected, shown) = ((expected * 1e9).round(), (shown * 1e9).round());
            let cost: i64 = r.costs.iter().map(|(_, n)| *n).sum();
            let better = expected > shown && best.as_ref().is_none_or(|(e, c, _)| expected > *e || (expected == *e && cost < *c));
            if better {
                best = Some((expected, cost, Chosen { reaction: k, slots }));
            }
        }
        best.map(|(_, _, c)| c)
    }

    /// Whether a reaction to a roll may apply to a strike by `attacker`: a reroll its taker can
    /// pay for whose requirement's dice-free parts hold. Elsewhere the strike's outcomes are
    /// worked out as any other's.
    pub(super) fn settles_here(&self, units: [&Unit; 2], attrs: &Attrs, attacker: usize, res: &[[i32; MAX_RES]; 2]) -> bool {
        let ir = &self.engine.ir;
        let mut cache = vec![None; ir.formulas.len()];
        for r in &self.engine.reactions {
            let Some((_, by_struck)) = r.reroll else { continue };
            let taker = if by_struck { 1 - attacker } else { attacker };
            if !self.affordable(r, res, taker) {
                continue;
            }
            let mut ctx = self.ctx(units, attrs, attacker, &[]);
            ctx.holder = taker;
            let refused = r.requires.as_ref().is_some_and(|e| {
                let mut parts = Vec::new();
                conjuncts(e, &mut parts);
                parts.iter().any(|c| ir.dice_of(c) == 0 && !ctx.eval(c, &[], &mut cache).bool())
            });
            if !refused {
                return true;
            }
        }
        false
    }

    /// Which reactions to a roll the striker's or the struck unit's resources pay for: bit `r`
    /// for reaction `r`.
    pub(super) fn affordable_rerolls(&self, strike: &Strike) -> u16 {
        let mut bits = 0u16;
        for (k, r) in self.engine.reactions.iter().enumerate() {
            let Some((_, by_struck)) = r.reroll else { continue };
            let taker = if by_struck { 1 - strike.attacker } else { strike.attacker };
            if k < 16 && self.affordable(r, strike.res, taker) {
                bits |= 1 << k;
            }
        }
        bits
    }

    /// Whether `side` can pay for reaction `r` from `res`.
    pub(super) fn affordable(&self, r: &ReactionIr, res: &[[i32; MAX_RES]; 2], side: usize) -> bool {
        r.costs.iter().all(|(k, n)| res.get(side).and_then(|x| x.get(*k)).is_some_and(|have| i64::from(*have) >= *n))
    }

    /// The state after a strike with outcome `o` by `side`: its rerolls paid.
    pub(super) fn settle_state(&self, state: &mut State, side: usize, o: &Outcome) {
        if o.rerolled != 0 {
            for (k, r) in self.engine.reactions.iter().enumerate() {
                let Some((_, by_struck)) = r.reroll else { continue };
                if o.rerolled & (1 << k) == 0 {
                    continue;
                }
                let taker = if by_struck { 1 - side } else { side };
                self.pay(state, taker, 1 << k);
            }
        }
    }
}

/// The dice a reroll's formula reads, among those a strike draws.
pub(super) fn reroll_slots(ir: &crate::ir::Ir, formula: &str) -> u64 {
    ir.formula_id(formula).and_then(|f| ir.formulas.get(f as usize)).map_or(0, |f| f.dice) & ir.strike_mask
}

/// The parts of `e` joined by `and`.
fn conjuncts<'e>(e: &'e E, out: &mut Vec<&'e E>) {
    match e {
        E::Bin(Op::And, a, b) => {
            conjuncts(a, out);
            conjuncts(b, out);
        }
        _ => out.push(e),
    }
}
