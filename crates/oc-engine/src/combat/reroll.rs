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

use super::outcomes::{advance, forget, forget_reading, Lists};
use super::*;
use crate::ir::{Ir, Op, E};

/// The expected worth of a reroll by (reaction, the dice it holds): the same wherever the dice
/// it rolls again showed.
pub(super) type Expected = FastMap<(u8, SmallVec<[i64; 8]>), f64>;

/// The weights on the way to an outcome: the joint value's, then the new values' of the
/// striker's reroll and of the struck unit's (1 where none is taken). Their product, taken left
/// to right, is the outcome's weight.
type Path = [f64; 3];

/// What a joint value settles to: its outcomes with their paths, in the order they were found.
type Record = Vec<(Outcome, Path)>;

/// What one settling has worked out: the outcomes that follow a reroll by (stage, the rerolls
/// taken, the dice held: `Dice::index`), and the dice it reads with what they show.
struct Memo {
    after: FastMap<(u8, u16, usize), Record>,
    dice: Dice,
}

/// The strike dice a settling reads at its strike (`Exchange::read_dice`), as a bit per slot:
/// all of them, and those of the outcome alone. Whatever a die it does not read shows, the
/// settling goes the same way: what it works out is kept by the values of the dice it reads
/// (an index of their places in `Lists`), the outcome by those of the outcome's, and the
/// expected worth of a reroll by (reaction, those held). A die the settling reads only by
/// comparing it (`Ir::summed_cuts`) is read by its outcome class: its values in one class show
/// the settling the same, so they share what it works out.
struct Dice {
    read: u64,
    outcome: u64,
    /// Each strike die's slot and number of values or classes (at least 1), in
    /// `Ir::strike_dice` order.
    dice: SmallVec<[(u8, usize); 4]>,
    /// For a die read by class: the class of each place of its values.
    classes: SmallVec<[Option<Vec<usize>>; 4]>,
    outcomes: ByIndex<Outcome>,
    expected: FastMap<(u8, usize), f64>,
}

impl Dice {
    /// The index of the values at places `at` of the dice in `mask`: the first turning fastest.
    fn index(&self, at: &[usize], mask: u64) -> usize {
        let (mut index, mut stride) = (0usize, 1usize);
        for (((slot, len), classes), i) in self.dice.iter().zip(&self.classes).zip(at) {
            if mask & (1u64 << slot) != 0 {
                let i = classes.as_ref().map_or(*i, |c| c.get(*i).copied().unwrap_or(*i));
                index = index.wrapping_add(i.wrapping_mul(stride));
                stride = stride.wrapping_mul(*len);
            }
        }
        index
    }

    /// The groups of values of strike die `k` (in slot `slot`, with `values`) a summed settling
    /// visits (`Strategy::settle_summed`): each value of a die it reads, or each class where it
    /// reads the die by class, and one for a die it does not read; each as its first place and
    /// the sum of its values' weights, in the order of their first places.
    fn groups(&self, k: usize, slot: u8, values: &[(i64, f64)]) -> Groups {
        if self.read & (1u64 << slot) == 0 {
            return smallvec::smallvec![(0, values.iter().map(|(_, w)| *w).sum())];
        }
        match self.classes.get(k).and_then(|c| c.as_ref()) {
            Some(classes) => {
                let mut out = Groups::new();
                for (place, ((_, w), class)) in values.iter().zip(classes).enumerate() {
                    match out.get_mut(*class) {
                        Some((_, sum)) => *sum += *w,
                        None => out.push((place, *w)),
                    }
                }
                out
            }
            None => values.iter().enumerate().map(|(place, (_, w))| (place, *w)).collect(),
        }
    }

    /// How many indices the dice in `mask` have (saturating).
    fn count(&self, mask: u64) -> usize {
        self.dice.iter().filter(|(s, _)| mask & (1u64 << s) != 0).fold(1usize, |n, (_, len)| n.saturating_mul(*len))
    }
}

/// A die's groups of values in a summed settling: (first place, summed weight).
type Groups = SmallVec<[(usize, f64); 16]>;

/// Values by an index (`Dice::index`): in place where there are few indices, else in a map.
struct ByIndex<T> {
    dense: Vec<Option<T>>,
    sparse: FastMap<usize, T>,
}

impl<T> ByIndex<T> {
    /// The most indices kept in place.
    const DENSE: usize = 1 << 16;

    fn new(count: usize) -> Self {
        let dense = if count <= Self::DENSE { std::iter::repeat_with(|| None).take(count).collect() } else { Vec::new() };
        ByIndex { dense, sparse: FastMap::default() }
    }

    fn get(&self, i: usize) -> Option<&T> {
        match self.dense.get(i) {
            Some(v) => v.as_ref(),
            None => self.sparse.get(&i),
        }
    }

    fn insert(&mut self, i: usize, v: T) {
        match self.dense.get_mut(i) {
            Some(slot) => *slot = Some(v),
            None => {
                self.sparse.insert(i, v);
            }
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
        let dice = self.read_dice(strike, lists);
        // A joint value settles as every other that shows the same dice the settling reads:
        // worked out once for them, and replayed with each joint value's weight, every weight
        // the same product added to the same entry in the same order as if it were worked out
        // again (with the places in the tally its outcomes went to the first time). Where every
        // sum is exact (`Exchange::exact_sums`), the order does not matter: each record's
        // joint values' weights are summed, and the record replayed once with the sum.
        let exact = self.engine.ir.strategy.settle_by_reads && self.exact_sums(lists);
        let count = dice.count(dice.read);
        let mut records: Vec<(Record, Vec<usize>, f64)> = Vec::new();
        let mut memo = Memo { after: FastMap::default(), dice };
        // Every joint value in turn as `Exchange::each_joint` gives them, the same weights; the
        // dice set and the formulas reading those that turned forgotten only where one is
        // worked out.
        let ir = &self.engine.ir;
        let dice = self.strike_dice(ir.strike_mask, lists);
        let mut turning: SmallVec<[usize; 4]> = smallvec::smallvec![0; dice.len()];
        let mut at: SmallVec<[usize; 4]> = smallvec::smallvec![0; lists.values.len()];
        let mut turned = u64::MAX;
        let mut hint = 1;
        // Where every sum is exact, the values of the dice the settling reads (by class where it
        // reads one so), each once, in the order their first joint value comes: a record's
        // total is the product of each die's summed weights, as exact as the sum over its joint
        // values.
        let summed = exact && ir.strategy.settle_summed && dice.iter().all(|(_, (_, v, _))| !v.is_empty());
        let groups: SmallVec<[Groups; 4]> = if summed {
            dice.iter().map(|(k, (slot, values, _))| memo.dice.groups(*k, *slot, values)).collect()
        } else {
            SmallVec::new()
        };
        if summed {
            loop {
                let mut weight = 1.0;
                for ((k, (slot, values, _)), (groups, i)) in dice.iter().zip(groups.iter().zip(&turning)) {
                    if let Some((place, w)) = groups.get(*i) {
                        if let Some(p) = at.get_mut(*k) {
                            *p = *place;
                        }
                        if let (Some(r), Some((v, _))) = (rolls.get_mut(*slot as usize), values.get(*place)) {
                            *r = *v;
                        }
                        weight *= *w;
                    }
                }
                forget_reading(ir, cache, turned);
                let mut record = Vec::with_capacity(hint);
                self.settle(strike, lists, (rolls, &mut at), cache, (0, 0), [weight, 1.0, 1.0], None, (&mut record, &mut memo));
                hint = record.len();
                records.push((record, Vec::new(), weight));
                let Some(k) = advance(&mut turning, groups.iter().map(|g| g.len())) else { break };
                turned = dice.iter().take(k + 1).fold(0u64, |m, (_, (s, _, _))| m | (1u64 << s));
            }
        }
        let mut settled: ByIndex<usize> = ByIndex::new(if summed { 0 } else { count });
        if !summed {
            loop {
                let mut weight = 1.0;
                for ((k, (slot, values, _)), i) in dice.iter().zip(&turning) {
                    if let Some(p) = at.get_mut(*k) {
                        *p = *i;
                    }
                    if let (Some(_), Some((_, w))) = (rolls.get(*slot as usize), values.get(*i)) {
                        weight *= *w;
                    }
                }
                let key = memo.dice.index(&at, memo.dice.read);
                match settled.get(key).and_then(|id| records.get_mut(*id)) {
                    Some((_, _, total)) if exact => *total += weight,
                    Some((record, places, _)) => {
                        for ((_, [_, a, b]), i) in record.iter().zip(places.iter()) {
                            out.add_to(*i, weight * a * b);
                        }
                    }
                    None => {
                        for ((_, (slot, values, _)), i) in dice.iter().zip(&turning) {
                            if let (Some(r), Some((v, _))) = (rolls.get_mut(*slot as usize), values.get(*i)) {
                                *r = *v;
                            }
                        }
                        forget_reading(ir, cache, turned);
                        turned = 0;
                        // About as long as the last (a reroll's record is one outcome or more a value).
                        let mut record = Vec::with_capacity(hint);
                        self.settle(
                            strike,
                            lists,
                            (rolls, &mut at),
                            cache,
                            (0, 0),
                            [weight, 1.0, 1.0],
                            None,
                            (&mut record, &mut memo),
                        );
                        let places = if exact {
                            Vec::new()
                        } else {
                            record.iter().map(|(o, [_, a, b])| out.add_at(*o, weight * a * b)).collect()
                        };
                        hint = record.len();
                        settled.insert(key, records.len());
                        records.push((record, places, weight));
                    }
                }
                let Some(k) = advance(&mut turning, dice.iter().map(|(_, (_, v, _))| v.len())) else { break };
                turned |= dice.iter().take(k + 1).fold(0u64, |m, (_, (s, _, _))| m | (1u64 << s));
            }
        }
        if exact {
            // In the order the records were found: the tally's entries come in the same order.
            for (record, _, total) in &records {
                for (o, [_, a, b]) in record {
                    out.add(*o, total * a * b);
                }
            }
        }
        out.list.into_iter().map(|(o, w)| (w, o)).collect()
    }

    /// Whether every weight a settling of a strike with `lists` adds, and every sum of them, is
    /// exact: each die's weights whole numbers, the dice a reroll rolls again weighed by
    /// fractions of a power of two, and the sum of all weights times the finest fraction below
    /// 2^53. Then the sums do not depend on the order they are taken in.
    fn exact_sums(&self, lists: &Lists) -> bool {
        let ir = &self.engine.ir;
        let rerolled = self.engine.reactions.iter().filter_map(|r| r.reroll).fold(0u64, |m, (slots, _)| m | slots);
        let (mut total, mut finest) = (1.0f64, 1.0f64);
        for ((slot, faces), den) in ir.strike_dice.iter().zip(&lists.values).zip(&lists.dens) {
            if !faces.iter().all(|(_, w)| w.fract() == 0.0 && *w >= 0.0) {
                return false;
            }
            let sum: f64 = faces.iter().map(|(_, w)| *w).sum();
            total *= sum.max(*den).max(1.0);
            if rerolled & (1u64 << slot) != 0 {
                let whole = den.fract() == 0.0 && *den >= 1.0 && *den < 9.0e15 && (*den as u64).is_power_of_two();
                if !whole {
                    return false;
                }
                // A die rolled again by the striker and by the struck unit: twice.
                finest *= den * den;
            }
        }
        total * finest < 9_007_199_254_740_992.0
    }

    /// The outcome at the dice in `rolls` (at places `at`): looked up by the dice it reads, or
    /// worked out.
    fn outcome_known(
        &self,
        strike: &Strike,
        (rolls, at): (&[i64], &[usize]),
        cache: &mut [Option<V>],
        dice: &mut Dice,
    ) -> Outcome {
        let key = dice.index(at, dice.outcome);
        if let Some(o) = dice.outcomes.get(key) {
            return *o;
        }
        let o = self.outcome_at(&self.ctx(strike.units, strike.attrs, strike.attacker, rolls), cache);
        dice.outcomes.insert(key, o);
        o
    }

    /// The strike dice a settling of `strike` reads (see [`Dice`]): those the outcome's formulas
    /// read, and those of the requirements of the rerolls their takers can pay for; where what
    /// decides which parts are read reads no die (an `if`'s condition, the first operand of
    /// `and` / `or`), as it is in this strike.
    fn read_dice(&self, strike: &Strike, lists: &Lists) -> Dice {
        let ir = &self.engine.ir;
        // Worked out in a cache of their own, noting no read: the settling's evaluations note
        // what they read themselves.
        let fresh = || (vec![None; ir.formulas.len()], vec![None; ir.formulas.len()]);
        let mut ctx = self.ctx(strike.units, strike.attrs, strike.attacker, &[]);
        ctx.reads = None;
        let (mut cache, mut formulas) = fresh();
        let mut outcome = ir.roles.strike().fold(0, |m, f| m | read_by(ir, &ctx, &E::Formula(f), &mut cache, &mut formulas));
        let (mut read, mut required, holder) = (outcome, 0, ctx.holder);
        for r in &self.engine.reactions {
            let (Some((_, by_struck)), Some(e)) = (r.reroll, &r.requires) else { continue };
            let taker = if by_struck { 1 - strike.attacker } else { strike.attacker };
            if self.affordable(r, strike.res, taker) {
                ctx.holder = taker;
                let (mut cache, mut formulas) = fresh();
                required |= read_by(ir, &ctx, e, &mut cache, &mut formulas);
            }
        }
        read |= required;
        // A die is read by class where the outcome's formulas only compare it and no
        // requirement reads it.
        let by_class = ir.strategy.settle_by_reads && ir.strategy.settle_by_classes;
        ctx.holder = holder;
        let mut classes: SmallVec<[Option<Vec<usize>>; 4]> = SmallVec::new();
        let dice: SmallVec<[(u8, usize); 4]> = ir
            .strike_dice
            .iter()
            .zip(&lists.values)
            .zip(&ir.summed_cuts)
            .map(|((s, v), cuts)| {
                let class = cuts
                    .as_ref()
                    .filter(|_| by_class && required & (1u64 << s) == 0 && v.len() > 1)
                    .and_then(|c| super::partition::breaks(&ctx, &mut cache, c, v))
                    .map(|b| super::partition::class_of_places(v, &b))
                    .filter(|(_, n)| *n < v.len());
                let len = class.as_ref().map_or(v.len(), |(_, n)| *n);
                classes.push(class.map(|(places, _)| places));
                (*s, len.max(1))
            })
            .collect();
        // Switched off, every die is read: each joint value settled on its own.
        if !ir.strategy.settle_by_reads {
            (outcome, read) = (u64::MAX, u64::MAX);
        }
        let outcome = outcome & ir.strike_mask;
        let count = dice.iter().filter(|(s, _)| outcome & (1u64 << s) != 0).fold(1usize, |n, (_, len)| n.saturating_mul(*len));
        Dice { read: read & ir.strike_mask, outcome, dice, classes, outcomes: ByIndex::new(count), expected: FastMap::default() }
    }

    /// Settles the dice in `rolls` (at places `at` of their lists) from `stage` on (0: the
    /// striker's reroll, 1: the struck unit's, 2: the outcome), with the rerolls `taken` so far,
    /// into `out`. `path` is the weight of the joint value and of the new values of each reroll
    /// so far (1 where none was taken); `base` is the outcome at `rolls` where it is known.
    #[allow(clippy::too_many_arguments)]
    fn settle(
        &self,
        strike: &Strike,
        lists: &Lists,
        (rolls, at): (&mut [i64], &mut [usize]),
        cache: &mut [Option<V>],
        (stage, taken): (u8, u16),
        path: Path,
        base: Option<Outcome>,
        (out, memo): (&mut Record, &mut Memo),
    ) {
        let base = base.unwrap_or_else(|| self.outcome_known(strike, (rolls, at), cache, &mut memo.dice));
        if stage >= 2 {
            out.push((Outcome { rerolled: taken, ..base }, path));
            return;
        }
        let taker = if stage == 0 { strike.attacker } else { 1 - strike.attacker };
        let Some(chosen) = self.choose(strike, lists, (rolls, Some(at)), cache, taker, (None, Some(&mut memo.dice)), Some(&base))
        else {
            self.settle(strike, lists, (rolls, at), cache, (stage + 1, taken), path, Some(base), (out, memo));
            return;
        };
        let taken = taken | (1 << chosen.reaction);
        // What follows a reroll depends on the dice it holds only (those the settling reads):
        // worked out once for them, and replayed in the order it was found, so every weight is
        // the same product added in the same order as if it were worked out again.
        let key = (stage, taken, memo.dice.index(at, memo.dice.read & !chosen.slots));
        let from = usize::from(stage) + 1;
        let replay = |out: &mut Record, after: &[(Outcome, Path)]| {
            for (o, q) in after {
                let mut p = path;
                p[from..].copy_from_slice(&q[from..]);
                out.push((*o, p));
            }
        };
        if let Some(after) = memo.after.get(&key) {
            replay(out, after);
            return;
        }
        let held: SmallVec<[i64; 8]> = rolls.iter().copied().collect();
        let held_at: SmallVec<[usize; 4]> = at.iter().copied().collect();
        let mut after = Vec::with_capacity(memo.dice.count(chosen.slots));
        self.each_joint_at(chosen.slots, lists, true, (rolls, at), cache, |rolls, at, cache, w| {
            let mut p = path;
            if let Some(x) = p.get_mut(from) {
                *x = w;
            }
            self.settle(strike, lists, (rolls, at), cache, (stage + 1, taken), p, None, (&mut after, &mut *memo));
        });
        rolls.copy_from_slice(&held);
        at.copy_from_slice(&held_at);
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
        self.choose(strike, lists, (rolls, None), cache, taker, (Some(memo), None), base)
    }

    /// [`Exchange::reroll_choice`]: in a resolution with its expected worths (`memo`), or in a
    /// settling with what it has worked out (`dice`) and the places of `rolls` in their lists.
    #[allow(clippy::too_many_arguments)]
    fn choose(
        &self,
        strike: &Strike,
        lists: &Lists,
        (rolls, mut at): (&mut [i64], Option<&mut [usize]>),
        cache: &mut [Option<V>],
        taker: usize,
        (mut memo, mut dice): (Option<&mut Expected>, Option<&mut Dice>),
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
            // Kept by the dice held: in a settling, those it reads.
            let settling = dice.as_deref().zip(at.as_deref()).map(|(d, at)| (k, d.index(at, d.read & !slots)));
            let resolving = settling.is_none().then(|| (k, held_by(rolls, slots)));
            let known = match (settling, dice.as_deref(), &resolving, memo.as_deref()) {
                (Some(key), Some(d), _, _) => d.expected.get(&key).copied(),
                (_, _, Some(key), Some(m)) => m.get(key).copied(),
                _ => None,
            };
            let expected = match known {
                Some(e) => e,
                None => {
                    let held: SmallVec<[i64; 8]> = rolls.iter().copied().collect();
                    let held_at: SmallVec<[usize; 4]> = at.as_deref().map(|a| a.iter().copied().collect()).unwrap_or_default();
                    let mut expected = 0.0;
                    let mut scratch: SmallVec<[usize; 4]> = smallvec::smallvec![0; lists.values.len()];
                    let places = at.as_deref_mut().unwrap_or(&mut scratch);
                    self.each_joint_at(slots, lists, true, (rolls, places), cache, |rolls, at, cache, w| {
                        let o = match dice.as_deref_mut() {
                            Some(d) => self.outcome_known(strike, (rolls, at), cache, d),
                            None => self.outcome_at(&self.ctx(strike.units, strike.attrs, strike.attacker, rolls), cache),
                        };
                        expected += w * Self::worth(&o, taker, strike.attacker);
                    });
                    rolls.copy_from_slice(&held);
                    if let Some(a) = at.as_deref_mut() {
                        a.copy_from_slice(&held_at);
                    }
                    forget(&self.engine.ir, cache);
                    match (settling, dice.as_deref_mut(), resolving, memo.as_deref_mut()) {
                        (Some(key), Some(d), _, _) => {
                            d.expected.insert(key, expected);
                        }
                        (_, _, Some(key), Some(m)) => {
                            m.insert(key, expected);
                        }
                        _ => {}
                    }
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

/// The strike dice `e` reads where what decides which of its parts are read reads no die (an
/// `if`'s condition, the first operand of `and` / `or`): those evaluated in `ctx` (with `cache`),
/// the others taken whole. `formulas` keeps each formula's.
fn read_by(ir: &Ir, ctx: &crate::strike::Ctx, e: &E, cache: &mut [Option<V>], formulas: &mut [Option<u64>]) -> u64 {
    if ir.dice_of(e) == 0 {
        return 0;
    }
    match e {
        E::Formula(f) => {
            if let Some(Some(m)) = formulas.get(*f as usize) {
                return *m;
            }
            let m = ir.formulas.get(*f as usize).map_or(0, |x| read_by(ir, ctx, &x.expr, cache, formulas));
            if let Some(slot) = formulas.get_mut(*f as usize) {
                *slot = Some(m);
            }
            m
        }
        E::If(c, t, f) if ir.dice_of(c) == 0 => {
            let taken = if ctx.eval(c, &[], cache).bool() { t } else { f };
            read_by(ir, ctx, taken, cache, formulas)
        }
        E::Bin(op @ (Op::And | Op::Or), a, b) if ir.dice_of(a) == 0 => {
            // `false and _` / `true or _`: the second operand is not read.
            if ctx.eval(a, &[], cache).bool() == (*op == Op::Or) {
                0
            } else {
                read_by(ir, ctx, b, cache, formulas)
            }
        }
        E::Roll(_) | E::RollDyn(..) => ir.dice_of(e),
        _ => e.children().fold(0, |m, c| m | read_by(ir, ctx, c, cache, formulas)),
    }
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

#[cfg(test)]
mod tests {
    /// Every built-in matchup, its settled strikes (seed 002's Prowess) worked out once for
    /// each value of the dice their settling reads, and each joint value on its own: the same
    /// bits.
    #[test]
    fn settled_by_the_dice_read_equal_settled_one_by_one() {
        let settling = std::cell::Cell::new(0);
        crate::testing::agree_with(
            |fresh| fresh.ir.strategy.settle_by_reads = false,
            |_, _, on| settling.set(settling.get() + usize::from(on.ir.settles)),
        );
        assert!(settling.get() > 0, "no built-in ruleset settles its strikes");
    }

    /// Every built-in matchup, its settled strikes' dice read by class where they are only
    /// compared, and by value: the same bits; and some ruleset's settling reads a die by class.
    #[test]
    fn settled_by_class_equal_settled_by_value() {
        let classed = std::cell::Cell::new(0);
        crate::testing::agree_with(
            |fresh| fresh.ir.strategy.settle_by_classes = false,
            |_, _, on| {
                classed.set(
                    classed.get()
                        + on.ir.summed_cuts.iter().zip(&on.ir.strike_cuts).filter(|(s, c)| c.is_none() && s.is_some()).count()
                            * usize::from(on.ir.settles),
                )
            },
        );
        assert!(classed.get() > 0, "no built-in ruleset settles a die only compared through a sum");
    }

    /// Every built-in matchup, its settled strikes with exact sums worked out from the values
    /// of the dice their settling reads, and joint value by joint value: the same bits.
    #[test]
    fn summed_settlings_equal_settlings_joint_value_by_joint_value() {
        crate::testing::agree_with(|fresh| fresh.ir.strategy.settle_summed = false, |_, _, _| {});
    }
}
