//! A strike's outcomes: for every joint value of the dice it draws, what it does, grouped, with
//! whole-number weights.
//!
//! Two ways to the same result. Few joint values (every seed-000/001 strike: a d100 read as
//! hit / critical is a handful of classes) are enumerated one by one. Past [`FACTOR_ABOVE`], the
//! strike is worked out from independent parts, as icepool does: the hit and critical formulas
//! read dice the damage formulas do not (a d30 against exploding damage, rolled absorption and a
//! fate roll), so their joint values are the product of each part's values; and a formula whose
//! parts read disjoint dice (`_dealt = max(0, _damage - roll(defender.absorption))`) has the
//! distribution of a function of independent values, each part merged to its distinct values
//! first. Either way the weights are products and sums of whole numbers, so both give the same
//! outcomes (while the weights stay below 2^53, the same bits).

use std::hash::Hash;

use smallvec::SmallVec;

use super::merged::{Damages, Values};
use super::*;
use crate::ir::{DieSlot, Leaf, E};

/// The most joint values of a strike's dice enumerated one by one; past it a strike is worked
/// out from independent parts where its formulas allow.
pub(crate) const FACTOR_ABOVE: u64 = 256;

/// Each strike die's values (or outcome classes) and its denominator, in `Ir::strike_dice` order.
pub(super) struct Lists<'a> {
    pub(super) values: SmallVec<[Faces<'a>; 4]>,
    pub(super) dens: SmallVec<[f64; 4]>,
}

/// A die's values as a strike reads them: every value, or its outcome classes.
pub(super) enum Faces<'a> {
    All(&'a [(i64, f64)]),
    Classes(super::partition::Classes),
}

impl std::ops::Deref for Faces<'_> {
    type Target = [(i64, f64)];
    fn deref(&self) -> &[(i64, f64)] {
        match self {
            Faces::All(v) => v,
            Faces::Classes(c) => c,
        }
    }
}

/// A strike die's slot, its values (or classes) and its denominator.
pub(super) type Slot<'a> = (u8, &'a [(i64, f64)], f64);

/// The most dice slots kept in place (a strike reads a few); more spill to the heap.
type Rolls = SmallVec<[i64; 8]>;

/// A strike's outcomes by what they read (`Ir::outcome_inputs`): the IR, each die's classes
/// (value, weight's bits), and the input formulas' values.
type TableKey = (u64, SmallVec<[(u8, i64, u64); 8]>, SmallVec<[V; 8]>);

/// Outcome lists by [`TableKey`], with the product of the strike dice's denominators (what the
/// key's IR and the dice its `Dice` values name make it).
type Table = FastMap<TableKey, (f64, OutcomeList)>;

thread_local! {
    /// Outcome lists by [`TableKey`], for this thread (no lock), and how many outcomes they hold:
    /// most matchups of a ruleset share a handful (a d100 cut at the to-hit and critical values,
    /// one damage value each).
    static TABLE: std::cell::RefCell<(Table, usize)> = std::cell::RefCell::new((FastMap::default(), 0));
}

/// The most outcomes a thread's table holds (about 25 MB), in lists of any length; past it the
/// table starts over (entries of engines since dropped go with it). Where each of a unit's
/// figures strikes, a list holds some 300 outcomes: at 2^18 the table started over every 3
/// games of the shipped scenario with the most figures, and 40 games (`oc simulate --games 40
/// --seed 1`, one thread) worked out 14,185 lists and 8,927 distributions; at 2^20, 2,314 and
/// 962, each once (9.0 s of CPU -> 8.2 s).
const TABLE_MAX: usize = 1 << 20;

/// A formula's distribution: (value, weight), the weights summing to the product of the
/// denominators of the dice it reads.
type Marginal = Rc<Vec<(V, f64)>>;

/// A part of a formula's distribution in a [`MarginalKey`]: a distribution by its id
/// ([`distribution_id`]), or every value of a die by where its IR holds them (address, length).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Part {
    Id(u64),
    Faces(usize, usize),
}

/// A formula's distribution from its parts (`Exchange::marginal`) by what it reads: the IR,
/// the formula, its parts and the values of its dice-free parts.
type MarginalKey = (u64, u16, SmallVec<[Part; 4]>, SmallVec<[V; 8]>);

/// A thread's distributions by [`MarginalKey`] with their ids, the ids by the distributions'
/// values (value, weight's bits), and how many values they and their keys hold (at most
/// `TABLE_MAX`, as the outcome table).
#[derive(Default)]
struct Marginals {
    table: FastMap<MarginalKey, (Marginal, u64)>,
    ids: FastMap<Vec<(V, u64)>, u64>,
    held: usize,
}

thread_local! {
    /// [`Marginals`] for this thread: a formula of independent parts (`max(0, _damage -
    /// roll(defender.absorption))`) has the same distribution in every strike of the same
    /// dice, whatever else differs.
    static MARGINALS: std::cell::RefCell<Marginals> = std::cell::RefCell::new(Marginals::default());
}

/// A distribution's id in this thread: the same for the same values and weights (while the
/// table is not started over), never the same for others. Ids are never given twice.
fn distribution_id(m: &[(V, f64)]) -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let fresh = || NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let values: Vec<(V, u64)> = m.iter().map(|(v, w)| (*v, w.to_bits())).collect();
    MARGINALS
        .try_with(|t| {
            let Ok(mut t) = t.try_borrow_mut() else { return fresh() };
            let t = &mut *t;
            if let Some(id) = t.ids.get(&values) {
                return *id;
            }
            let id = fresh();
            if t.held + values.len() > TABLE_MAX {
                t.table.clear();
                t.ids.clear();
                t.held = 0;
            }
            t.held += values.len();
            t.ids.insert(values, id);
            id
        })
        .unwrap_or_else(|_| fresh())
}

impl Exchange<'_> {
    /// [`Exchange::outcomes`] for given strike attributes.
    pub(super) fn outcomes_with(&self, units: [&Unit; 2], attrs: &Attrs, attacker: usize, res: &[[i32; MAX_RES]; 2]) -> Outcomes {
        let ir = &self.engine.ir;
        let mut cache = self.fresh_cache();
        let mut rolls: Rolls = smallvec::smallvec![0i64; ir.dice.len()];
        // Where the outcome reads only the dice and some dice-free formulas, strikes with the same
        // dice classes and the same values of those have the same outcomes: looked up. Where the
        // classes follow from those values too, by the values alone, before any class is found.
        let inputs = ir
            .outcome_inputs
            .as_ref()
            .filter(|_| ir.strategy.outcome_table)
            .map(|inputs| self.ctx(units, attrs, attacker, &rolls).inputs(inputs, &mut cache));
        let look_up = |key: &TableKey| TABLE.try_with(|t| t.try_borrow().ok().and_then(|t| t.0.get(key).cloned())).ok().flatten();
        // A strike where a reaction to a roll or a gain may apply is settled value by value.
        if ir.settles && self.settles_here(units, attrs, attacker, res) {
            let strike = super::Strike { units, attrs, attacker, res };
            // Looked up by what it reads: the inputs' values and which rerolls are affordable.
            let key = ir.settle_inputs.as_ref().filter(|_| ir.strategy.outcome_table).map(|inputs| {
                let ctx = self.ctx(units, attrs, attacker, &rolls);
                let mut values: SmallVec<[V; 8]> = inputs.formulas.iter().map(|f| ctx.formula(*f, &mut cache)).collect();
                values.extend(inputs.leaves.iter().map(|e| ctx.eval(e, &[], &mut cache)));
                named_dice(ir, &ctx, &mut cache, &mut values);
                values.push(V::Int(i64::from(self.affordable_rerolls(&strike))));
                (ir.id ^ SETTLED, SmallVec::new(), values)
            });
            if let Some((den, list)) = key.as_ref().and_then(look_up) {
                self.give_back(cache);
                return Outcomes::new(den, list);
            }
            let lists = self.lists(units, attrs, attacker, &rolls, &mut cache, false);
            let den = lists.dens.iter().product();
            let list: OutcomeList = self.settled(&strike, &lists, &mut rolls, &mut cache).into();
            self.give_back(cache);
            if let Some(k) = key {
                keep(k, den, &list);
            }
            return Outcomes::new(den, list);
        }
        // Where the outcome reads more than dice-free formulas: by the values of the largest
        // dice-free parts of its formulas (`Ir::valued_inputs`), before any class is found.
        let valued = ir.valued_inputs.as_ref().filter(|_| ir.strategy.outcome_table && inputs.is_none()).map(|parts| {
            let ctx = self.ctx(units, attrs, attacker, &rolls);
            let mut values = self.part_values(parts, &ctx, &mut cache);
            named_dice(ir, &ctx, &mut cache, &mut values);
            (ir.id ^ VALUED, SmallVec::new(), values)
        });
        if let Some((den, list)) = valued.as_ref().and_then(look_up) {
            self.give_back(cache);
            return Outcomes::new(den, list);
        }
        // Keyed by the values alone: they go into that key (no other key is made of them).
        let (early, inputs) =
            if ir.classes_follow_inputs { (inputs.map(|v| (ir.id, SmallVec::new(), v)), None) } else { (None, inputs) };
        if let Some((_, list)) = early.as_ref().and_then(look_up) {
            self.give_back(cache);
            return Outcomes::new(ir.strike_den, list);
        }
        let lists = self.lists(units, attrs, attacker, &rolls, &mut cache, true);
        let den = lists.dens.iter().product();
        let key = match early {
            Some(key) => Some(key),
            None => inputs.map(|values| {
                let mut dice: SmallVec<[(u8, i64, u64); 8]> = SmallVec::new();
                for (k, faces) in (0u8..).zip(&lists.values) {
                    match faces {
                        // Every value of a die that is not a `Dice` value's: the same in every strike.
                        Faces::All(_) => dice.push((k, i64::MIN, 0)),
                        Faces::Classes(c) => dice.extend(c.iter().map(|(v, w)| (k, *v, w.to_bits()))),
                    }
                }
                (ir.id, dice, values)
            }),
        };
        let known = key.as_ref().filter(|_| !ir.classes_follow_inputs).and_then(look_up);
        if let Some((_, list)) = known {
            self.give_back(cache);
            return Outcomes::new(den, list);
        }
        let joint = lists.values.iter().fold(1u64, |n, v| n.saturating_mul(v.len().max(1) as u64));
        let factored =
            if joint > ir.strategy.factor_above { self.factored(units, attrs, attacker, &lists, &mut cache) } else { None };
        let list: OutcomeList = factored
            .unwrap_or_else(|| {
                let list = self.joint(ir.strike_mask, &lists, &mut rolls, &mut cache, |rolls, cache| {
                    self.outcome_at(&self.ctx(units, attrs, attacker, rolls), cache)
                });
                list.into_iter().map(|(o, w)| (w, o)).collect()
            })
            .into();
        self.give_back(cache);
        if let Some(k) = key.or(valued) {
            keep(k, den, &list);
        }
        Outcomes::new(den, list)
    }

    /// Each strike die's values, or (with `classes`) its outcome classes where it is only
    /// compared; and their denominators, in slot order.
    pub(super) fn lists<'s>(
        &'s self,
        units: [&Unit; 2],
        attrs: &Attrs,
        attacker: usize,
        rolls: &[i64],
        cache: &mut [Option<V>],
        classes: bool,
    ) -> Lists<'s> {
        let ir = &self.engine.ir;
        let mut dens: SmallVec<[f64; 4]> = SmallVec::new();
        let values = ir
            .strike_dice
            .iter()
            .zip(&ir.strike_cuts)
            .map(|(slot, cuts)| {
                let ctx = self.ctx(units, attrs, attacker, rolls);
                let die = self.die_of(*slot, &ctx, cache);
                dens.push(die.map_or(1.0, |d| d.dist.den));
                let values = die.map_or(&[][..], |d| &d.dist.values[..]);
                let cuts = cuts.as_ref().filter(|_| classes);
                match cuts.zip(die).and_then(|(c, d)| super::partition::classes(&ctx, cache, c, d)) {
                    Some(classes) => Faces::Classes(classes),
                    None => Faces::All(values),
                }
            })
            .collect();
        Lists { values, dens }
    }

    /// The distribution a strike slot draws from: its own, or for a `Dice` value the dice the
    /// value names in this strike.
    pub(super) fn die_of<'a>(&'a self, slot: u8, ctx: &Ctx, cache: &mut [Option<V>]) -> Option<&'a DieSlot> {
        let ir = &self.engine.ir;
        let die = ir.dice.get(slot as usize)?;
        match &die.dynamic {
            None => Some(die),
            Some(e) => match ctx.eval(e, &[], cache) {
                V::Dice(id) => ir.shapes.get(id as usize),
                _ => None,
            },
        }
    }

    /// What a strike does for the dice in `ctx.rolls`.
    pub(super) fn outcome_at(&self, ctx: &Ctx, cache: &mut [Option<V>]) -> Outcome {
        let roles = &self.engine.ir.roles;
        let (backfire, hit, crit) = self.head_at(ctx, cache);
        let f = |id: u16, cache: &mut [Option<V>]| ctx.formula(id, cache);
        let damage = if crit { f(roles.critical_damage, cache).int() } else { f(roles.damage, cache).int() }.max(0);
        Outcome { hit, crit, backfire, damage: if hit || backfire { damage } else { 0 }, ..Outcome::default() }
    }

    /// Whether a strike backfires, hits and hits critically for the dice in `ctx.rolls`.
    fn head_at(&self, ctx: &Ctx, cache: &mut [Option<V>]) -> (bool, bool, bool) {
        let roles = &self.engine.ir.roles;
        let f = |id: u16, cache: &mut [Option<V>]| ctx.formula(id, cache).bool();
        let backfire = roles.backfire.is_some_and(|b| f(b, cache));
        let hit = !backfire && f(roles.hit, cache);
        let crit = hit && f(roles.critical, cache);
        (backfire, hit, crit)
    }

    /// The strike's outcomes from independent parts: the (backfire, hit, critical) values of the
    /// dice those formulas read, each with the distribution of the damage formula it takes. `None`
    /// when a die is read by both parts.
    fn factored(
        &self,
        units: [&Unit; 2],
        attrs: &Attrs,
        attacker: usize,
        lists: &Lists,
        cache: &mut [Option<V>],
    ) -> Option<Vec<(f64, Outcome)>> {
        let ir = &self.engine.ir;
        let roles = &ir.roles;
        let mask_of = |f: Option<u16>| f.and_then(|f| ir.formulas.get(f as usize)).map_or(0, |f| f.dice);
        let head = mask_of(Some(roles.hit)) | mask_of(Some(roles.critical)) | mask_of(roles.backfire);
        let (plain, critical) = (mask_of(Some(roles.damage)), mask_of(Some(roles.critical_damage)));
        if head & (plain | critical) != 0 {
            return None;
        }
        let mut rolls = vec![0i64; ir.dice.len()];
        let heads = self
            .joint(head, lists, &mut rolls, cache, |rolls, cache| self.head_at(&self.ctx(units, attrs, attacker, rolls), cache));
        let all = ir.strike_mask;
        let den_of = |mask: u64| {
            ir.strike_dice.iter().zip(&lists.dens).filter(|(s, _)| mask & (1u64 << **s) != 0).map(|(_, d)| *d).product::<f64>()
        };
        let mut memo: Vec<Option<(Marginal, u64)>> = vec![None; ir.formulas.len()];
        // The outcomes with their weights summed, in the order first reached (as a `Tally` keeps
        // them). The heads are distinct (`joint` merged equal ones), so an outcome of one head is
        // never another's: each head's are merged among themselves alone, found by their damage
        // (`Damages`), not hashed.
        let mut out: Vec<(f64, Outcome)> = Vec::new();
        let mut damages = Damages::default();
        for &((backfire, hit, crit), weight) in &heads {
            if !(hit || backfire) {
                out.push((weight * den_of(all & !head), Outcome { hit, crit, backfire, damage: 0, ..Outcome::default() }));
                continue;
            }
            let (formula, mask) = if crit { (roles.critical_damage, critical) } else { (roles.damage, plain) };
            let rest = den_of(all & !(head | mask));
            damages.restart(out.len());
            for &(v, w) in self.marginal(formula, units, attrs, attacker, lists, &mut memo, &mut rolls, cache).0.iter() {
                let o = Outcome { hit, crit, backfire, damage: v.int().max(0), ..Outcome::default() };
                damages.add(&mut out, o, weight * w * rest);
            }
        }
        Some(out)
    }

    /// Formula `f`'s distribution over the strike's dice: from its independent parts' where it
    /// has them (`FormulaIr::leaves`), else over the joint values of the dice it reads; and its
    /// id in this thread's [`MARGINALS`] (0 without the table).
    #[allow(clippy::too_many_arguments)]
    fn marginal(
        &self,
        f: u16,
        units: [&Unit; 2],
        attrs: &Attrs,
        attacker: usize,
        lists: &Lists,
        memo: &mut Vec<Option<(Marginal, u64)>>,
        rolls: &mut [i64],
        cache: &mut [Option<V>],
    ) -> (Marginal, u64) {
        if let Some(Some(m)) = memo.get(f as usize) {
            return m.clone();
        }
        let ir = &self.engine.ir;
        let table = ir.strategy.outcome_table;
        let remember = |memo: &mut Vec<Option<(Marginal, u64)>>, m: Marginal, id: Option<u64>| {
            let id = id.unwrap_or_else(|| if table { distribution_id(&m) } else { 0 });
            if let Some(slot) = memo.get_mut(f as usize) {
                *slot = Some((m.clone(), id));
            }
            (m, id)
        };
        let Some(formula) = ir.formulas.get(f as usize) else { return remember(memo, Rc::new(vec![(V::Int(0), 1.0)]), None) };
        let eval = |rolls: &[i64], cache: &mut [Option<V>]| self.ctx(units, attrs, attacker, rolls).formula(f, cache);
        let list = match &formula.leaves {
            None => self.joint(formula.dice, lists, rolls, cache, eval),
            Some(leaves) => {
                // Each leaf's distribution: a die's values (or classes) in this strike, or a
                // formula's, worked out first; and what it is keyed by.
                let faces = |s: &u8| {
                    let values = ir.strike_dice.iter().position(|x| x == s).and_then(|k| lists.values.get(k));
                    values.filter(|v| !v.is_empty())
                };
                let mut made: SmallVec<[Option<(Marginal, u64)>; 4]> = SmallVec::new();
                for leaf in leaves {
                    made.push(match leaf {
                        Leaf::Slot(_) => None,
                        Leaf::Formula(g) => Some(self.marginal(*g, units, attrs, attacker, lists, memo, rolls, cache)),
                    });
                }
                let slot_part = |s: &u8| -> Marginal {
                    match faces(s) {
                        Some(v) => Rc::new(v.iter().map(|(x, w)| (V::Int(*x), *w)).collect()),
                        None => Rc::new(vec![(V::Int(0), 1.0)]),
                    }
                };
                // Its distribution follows from its parts' and the values of the dice-free parts
                // it reads besides: looked up by those, from any strike of this thread. A part
                // is keyed by its distribution's id, a die's every value by where the IR holds
                // them (the key's IR lives as long as its table entries are looked up).
                let mut free: SmallVec<[&E; 8]> = SmallVec::new();
                let keyed = table && dice_free_parts(ir, &formula.expr, &mut free);
                let key = keyed.then(|| {
                    let ctx = self.ctx(units, attrs, attacker, rolls);
                    let values: SmallVec<[V; 8]> = free.iter().map(|e| ctx.eval(e, &[], cache)).collect();
                    let parts: SmallVec<[Part; 4]> = leaves
                        .iter()
                        .zip(&made)
                        .map(|(leaf, m)| match (leaf, m) {
                            (_, Some((_, id))) => Part::Id(*id),
                            (Leaf::Slot(s), None) => match faces(s) {
                                Some(Faces::All(v)) => Part::Faces(v.as_ptr() as usize, v.len()),
                                _ => Part::Id(distribution_id(&slot_part(s))),
                            },
                            (Leaf::Formula(_), None) => Part::Id(u64::MAX),
                        })
                        .collect();
                    (ir.id, f, parts, values)
                });
                let known = key.as_ref().and_then(|k| {
                    MARGINALS.try_with(|m| m.try_borrow().ok().and_then(|m| m.table.get(k).cloned())).ok().flatten()
                });
                if let Some((m, id)) = known {
                    return remember(memo, m, Some(id));
                }
                let parts: SmallVec<[Marginal; 4]> = leaves
                    .iter()
                    .zip(made)
                    .map(|(leaf, m)| match (leaf, m) {
                        (_, Some((m, _))) => m,
                        (Leaf::Slot(s), None) => slot_part(s),
                        (Leaf::Formula(_), None) => Rc::new(vec![(V::Int(0), 1.0)]),
                    })
                    .collect();
                let mut out = Values::default();
                let mut at = vec![0usize; parts.len()];
                loop {
                    let mut weight = 1.0;
                    forget(ir, cache);
                    for ((leaf, part), i) in leaves.iter().zip(&parts).zip(&at) {
                        let Some((v, w)) = part.get(*i) else { continue };
                        weight *= w;
                        match leaf {
                            Leaf::Slot(s) => {
                                if let Some(r) = rolls.get_mut(*s as usize) {
                                    *r = v.int();
                                }
                            }
                            Leaf::Formula(g) => {
                                if let Some(c) = cache.get_mut(*g as usize) {
                                    *c = Some(*v);
                                }
                            }
                        }
                    }
                    out.add(eval(rolls, cache), weight);
                    if advance(&mut at, parts.iter().map(|p| p.len())).is_none() {
                        break;
                    }
                }
                let m = Rc::new(out.list);
                let id = table.then(|| distribution_id(&m));
                if let (Some(k), Some(id)) = (key, id) {
                    let _ = MARGINALS.try_with(|t| {
                        if let Ok(mut t) = t.try_borrow_mut() {
                            let t = &mut *t;
                            let size = m.len() + k.2.len();
                            if t.held + size > TABLE_MAX {
                                t.table.clear();
                                t.ids.clear();
                                t.held = 0;
                            }
                            t.held += size;
                            t.table.insert(k, (m.clone(), id));
                        }
                    });
                }
                return remember(memo, m, id);
            }
        };
        remember(memo, Rc::new(list), None)
    }

    /// Every joint value of the strike dice in `mask` (the first die turning fastest), evaluated
    /// by `eval` with those dice set in `rolls` and every dice-reading formula forgotten; equal
    /// results merged.
    fn joint<T: Copy + Eq + Hash>(
        &self,
        mask: u64,
        lists: &Lists,
        rolls: &mut [i64],
        cache: &mut [Option<V>],
        mut eval: impl FnMut(&[i64], &mut [Option<V>]) -> T,
    ) -> Vec<(T, f64)> {
        let mut out = Tally::default();
        self.each_joint(mask, lists, false, rolls, cache, |rolls, cache, weight| out.add(eval(rolls, cache), weight));
        out.list
    }

    /// Calls `f` with every joint value of the strike dice in `mask` set in `rolls` (the first
    /// die turning fastest, the other dice held), every formula reading a die whose value
    /// changed since the last call forgotten, and its
    /// weight: the product of the dice's weights, or with `chance` of each weight over its die's
    /// denominator.
    pub(super) fn each_joint(
        &self,
        mask: u64,
        lists: &Lists,
        chance: bool,
        rolls: &mut [i64],
        cache: &mut [Option<V>],
        mut f: impl FnMut(&mut [i64], &mut [Option<V>], f64),
    ) {
        let mut places: SmallVec<[usize; 4]> = smallvec::smallvec![0usize; lists.values.len()];
        self.each_joint_at(mask, lists, chance, (rolls, &mut places), cache, |rolls, _, cache, weight| f(rolls, cache, weight));
    }

    /// The strike dice of `mask` (`Ir::strike_dice` order), each with its place in that order
    /// and its slot, its values with their weights and its denominator from `lists`.
    pub(super) fn strike_dice<'l>(&self, mask: u64, lists: &'l Lists) -> SmallVec<[(usize, Slot<'l>); 4]> {
        let ir = &self.engine.ir;
        ir.strike_dice
            .iter()
            .zip(lists.values.iter().zip(&lists.dens))
            .enumerate()
            .filter(|(_, (s, _))| mask & (1u64 << **s) != 0)
            .map(|(k, (s, (v, d)))| (k, (*s, &v[..], *d)))
            .collect()
    }

    /// [`Exchange::each_joint`], with each strike die's place in its list (`Ir::strike_dice`
    /// order) set in `places` beside its value in `rolls`.
    pub(super) fn each_joint_at(
        &self,
        mask: u64,
        lists: &Lists,
        chance: bool,
        (rolls, places): (&mut [i64], &mut [usize]),
        cache: &mut [Option<V>],
        mut f: impl FnMut(&mut [i64], &mut [usize], &mut [Option<V>], f64),
    ) {
        let ir = &self.engine.ir;
        let dice = self.strike_dice(mask, lists);
        let mut at: SmallVec<[usize; 4]> = smallvec::smallvec![0usize; dice.len()];
        // The dice whose values changed since `f` was last called: at first every one (the
        // cache may hold values of other rolls); then the die that turned and the faster ones
        // that went back to their first value. A formula that reads none of them keeps its value.
        let mut turned = u64::MAX;
        loop {
            let mut weight = 1.0;
            for ((k, (slot, values, den)), i) in dice.iter().zip(&at) {
                if let Some(p) = places.get_mut(*k) {
                    *p = *i;
                }
                if let (Some(r), Some((v, w))) = (rolls.get_mut(*slot as usize), values.get(*i)) {
                    *r = *v;
                    weight *= if chance { w / den } else { *w };
                }
            }
            forget_reading(ir, cache, turned);
            f(rolls, places, cache, weight);
            let Some(k) = advance(&mut at, dice.iter().map(|(_, (_, v, _))| v.len())) else { break };
            turned = dice.iter().take(k + 1).fold(0u64, |m, (_, (s, _, _))| m | (1u64 << s));
        }
    }
}

/// The largest parts of `e` that read no die, outside the dice-moved values it reads (its
/// leaves: a die it rolls, a formula reading dice): with the leaves' values, all its value
/// depends on. `false` where a part reading dice reads something of its own besides (`E::combines`).
fn dice_free_parts<'e>(ir: &crate::ir::Ir, e: &'e E, out: &mut SmallVec<[&'e E; 8]>) -> bool {
    match e {
        E::Roll(_) | E::RollDyn(..) => true,
        E::Formula(f) if ir.formulas.get(*f as usize).is_none_or(|x| x.dice != 0) => true,
        _ if ir.dice_of(e) == 0 => {
            out.push(e);
            true
        }
        _ if e.combines() => e.children().all(|c| dice_free_parts(ir, c, out)),
        _ => false,
    }
}

/// Keeps a strike's outcomes in this thread's table.
fn keep(k: TableKey, den: f64, list: &OutcomeList) {
    // While threads are torn down there is no table: nothing is kept.
    let _ = TABLE.try_with(|t| {
        if let Ok(mut t) = t.try_borrow_mut() {
            let (table, held) = &mut *t;
            if *held + list.len() > TABLE_MAX {
                table.clear();
                *held = 0;
            }
            *held += list.len();
            table.insert(k, (den, list.clone()));
        }
    });
}

/// Adds the dice each `Dice` value a strike rolls names in this strike (`roll(attacker.dice)`).
fn named_dice(ir: &crate::ir::Ir, ctx: &crate::strike::Ctx, cache: &mut [Option<V>], values: &mut SmallVec<[V; 8]>) {
    for slot in &ir.strike_dice {
        if let Some(e) = ir.dice.get(*slot as usize).and_then(|d| d.dynamic.as_ref()) {
            values.push(ctx.eval(e, &[], cache));
        }
    }
}

/// Marks a settled strike's key in the table (its IR's id with the top bit flipped).
const SETTLED: u64 = 1 << 63;

/// Marks a strike's key by the values of its parts (`Ir::valued_inputs`): the next bit.
const VALUED: u64 = 1 << 62;

/// Forgets every formula that reads a die (their values change with the dice).
pub(super) fn forget(ir: &crate::ir::Ir, cache: &mut [Option<V>]) {
    forget_reading(ir, cache, u64::MAX);
}

/// Forgets every formula that reads one of the dice in `turned` (a bit per slot).
pub(super) fn forget_reading(ir: &crate::ir::Ir, cache: &mut [Option<V>], turned: u64) {
    for &(f, dice) in &ir.dice_formulas {
        if dice & turned != 0 {
            if let Some(slot) = cache.get_mut(f as usize) {
                *slot = None;
            }
        }
    }
}

/// The next joint index, the first turning fastest: which index turned (those before it went
/// back to 0); `None` after the last.
pub(super) fn advance(at: &mut [usize], lens: impl Iterator<Item = usize>) -> Option<usize> {
    for (k, (i, len)) in at.iter_mut().zip(lens).enumerate() {
        if *i + 1 < len {
            *i += 1;
            return Some(k);
        }
        *i = 0;
    }
    None
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::{Engine, Forecast, Loadout};

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-9 * a.abs().max(b.abs()).max(1e-12)
    }

    fn same(a: &Forecast, b: &Forecast) -> bool {
        let dist = |x: &std::collections::BTreeMap<i64, f64>, y: &std::collections::BTreeMap<i64, f64>| {
            x.len() == y.len() && x.iter().zip(y).all(|((h, p), (k, q))| h == k && close(*p, *q))
        };
        let side = |x: &crate::SideForecast, y: &crate::SideForecast| {
            close(x.hit, y.hit)
                && close(x.crit, y.crit)
                && x.damage == y.damage
                && x.crit_damage == y.crit_damage
                && x.strikes == y.strikes
                && dist(&x.damage_distribution, &y.damage_distribution)
        };
        dist(&a.attacker_hp, &b.attacker_hp)
            && dist(&a.defender_hp, &b.defender_hp)
            && side(&a.attacker, &b.attacker)
            && side(&a.defender, &b.defender)
    }

    /// Every built-in ruleset's strikes, enumerated joint value by joint value and worked out
    /// from independent parts, give the same forecasts (at full and at low hit points, where a
    /// champion's fate roll and `defender.hp` come in).
    #[test]
    fn factored_outcomes_equal_the_joint_enumeration() {
        let mut compared = 0;
        for (name, index) in oc_compiler::stdlib::RULESETS {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let mut joint = Engine::new(rules.clone()).expect("runs");
            joint.ir.strategy.factor_above = u64::MAX;
            let mut factored = Engine::new(rules).expect("runs");
            factored.ir.strategy.factor_above = 0;
            let units = crate::testing::roster(&joint);
            // The joint enumeration of an exploding-damage strike is slow unoptimised: a few
            // attackers against every defender.
            for a in units.iter().step_by(if *name == "battlestorm" { 4 } else { 1 }) {
                let (lo, _) = joint.reach(&a.class, a.weapon.as_deref().unwrap_or_default()).unwrap_or((1, 1));
                for d in &units {
                    for hp in [None, Some(1), Some(3)] {
                        let d = Loadout { hp, ..d.clone() };
                        let (Ok(x), Ok(y)) = (joint.forecast(a, &d, lo.max(1)), factored.forecast(a, &d, lo.max(1))) else {
                            continue;
                        };
                        assert!(same(&x, &y), "{name}: {} vs {} (hp {hp:?}):\n{x:?}\n{y:?}", a.class, d.class);
                        compared += 1;
                    }
                }
            }
        }
        assert!(compared > 1000, "{compared} forecasts compared");
    }

    /// Units of figures (a strike that reads the struck unit's living figures and its front
    /// figure's hit points, `defender.figures`), in every built-in ruleset whose strikes read more
    /// than dice-free formulas (`Ir::valued_inputs`: seed 003's `roll(attacker.damage_dice)`):
    /// looked up by the values of their parts, and worked out each time, the same bits, at
    /// full and low hit points.
    #[test]
    fn outcomes_looked_up_by_their_parts_equal_worked_out_ones() {
        let mut compared = 0;
        for (name, index) in oc_compiler::stdlib::RULESETS {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let on = Engine::new(rules.clone()).expect("runs");
            if on.ir.valued_inputs.is_none() {
                continue;
            }
            let mut off = Engine::new(rules).expect("runs");
            off.ir.strategy.outcome_table = false;
            for (label, a, d, r) in crate::testing::matchups(&on).into_iter().step_by(7) {
                for (fa, fd) in [(1, 4), (3, 5)] {
                    let a = Loadout { figures: fa, ..a.clone() };
                    let d = Loadout { figures: fd, ..d.clone() };
                    let (Ok(x), Ok(y)) = (on.forecast(&a, &d, r), off.forecast(&a, &d, r)) else { continue };
                    assert_eq!(x.bits(), y.bits(), "{name}: {label} ({fa}) against {} ({fd}, hp {:?})", d.class, d.hp);
                    compared += 1;
                }
            }
        }
        assert!(compared > 100, "{compared} forecasts compared");
    }

    /// Every matchup of every built-in ruleset (each class with each weapon it may use against
    /// each class with its first, at full and low hit points), its strikes looked up by what they
    /// read and worked out each time: the same bits. Seed 000's and 001's strikes are looked up.
    #[test]
    fn looked_up_outcomes_equal_worked_out_ones() {
        crate::testing::agree_with(
            |fresh| fresh.ir.strategy.outcome_table = false,
            |k, name, table| {
                if k < 2 {
                    assert!(table.ir.outcome_inputs.is_some(), "{name}: strikes are not looked up");
                    assert!(table.ir.classes_follow_inputs, "{name}: strikes are looked up by their dice's classes");
                }
            },
        );
    }
}
