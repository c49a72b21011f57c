//! Playing an exchange: exactly (every die's values or outcome classes, breadth first over
//! states, summed in a fixed order) and once with a seeded generator.
//!
//! The fixed order is the order each state, and each final pair of hit points, was first
//! reached (`fx::Tally`), so a forecast is the same bits on every run and build, whatever a
//! hash table's layout. The seeded play draws every die a strike reads once, in slot order,
//! from the one `ChaCha8Rng` it is given: one seed, one exchange.

use std::collections::BTreeMap;

use rand_chacha::ChaCha8Rng;
use smallvec::SmallVec;

use super::*;
use crate::ir::E;

/// What a strike leaves where its triggers cannot tell its outcomes apart beyond whether it hit
/// and critically (see the general walk in [`Exchange::walk_planned`]): the hit points after it,
/// whether it dealt damage, the rerolls it paid, and where a trigger may fire, which ones do
/// ([`fired`]; 0 where none may).
pub(super) type Effect = ([i64; 2], bool, u16, u8);

/// The [`Effect`] of outcome `o` of a strike by `side` from hit points `hp`, where triggers that
/// fire on it are `blind` (else none may fire).
#[inline(always)]
pub(super) fn dealt_effect(hp: [i64; 2], side: usize, o: Outcome, blind: bool) -> Effect {
    (dealt(hp, side, o).map(|h| h.max(0)), o.deals_damage(), o.rerolled, if blind { fired(&o) } else { 0 })
}

/// Which of a strike's triggers fire for outcome `o` (`Exchange::apply`: `hit`, `crit`, `miss`),
/// with a bit set so that it is never 0.
fn fired(o: &Outcome) -> u8 {
    8 | u8::from(o.hit) | u8::from(o.crit) << 1 | u8::from(o.backfire) << 2
}

/// Whether `e`'s value is the same for every outcome of a strike from one state, evaluated as
/// [`Exchange::apply`] evaluates a trigger: it reads no attribute the state holds (hit points
/// fall by the outcome's damage, unclamped), not the damage dealt, nor the chart, directly or
/// through formulas (`depth` deep; deeper counts as a read).
fn blind(ir: &crate::ir::Ir, e: &E, depth: u32) -> bool {
    match e {
        E::Dealt | E::Chart | E::AttrOfParam(..) => false,
        E::Attr(_, a) => !ir.state_attrs.get(*a as usize).copied().unwrap_or(true),
        E::Formula(f) => depth > 0 && ir.formulas.get(*f as usize).is_some_and(|x| blind(ir, &x.expr, depth - 1)),
        _ => e.children().all(|c| blind(ir, c, depth)),
    }
}

/// Whether effects run on a strike (a trigger's, a `when`'s) do the same for every outcome that
/// fires them: their expressions [`blind`], their verbs only lay or lift statuses and debuffs
/// (none reads or sets hit points or resources, `exec::execute`).
fn blind_effects(ir: &crate::ir::Ir, effects: &[Eff]) -> bool {
    effects.iter().all(|e| match e {
        Eff::Modify { value, .. } => blind(ir, value, BLIND_DEPTH),
        Eff::When { condition, then } => blind(ir, condition, BLIND_DEPTH) && blind_effects(ir, then),
        Eff::Command { verb, args } => {
            matches!(verb, m::Verb::Inflict | m::Verb::Cure | m::Verb::Clear | m::Verb::Debuff)
                && args.iter().all(|a| blind(ir, a, BLIND_DEPTH))
        }
        // Neither a trigger nor a `when` runs the others in a strike (`Exchange::run_trigger`,
        // `attrs::apply_strike_effects`).
        _ => true,
    })
}

/// How many formulas deep [`blind`] looks.
const BLIND_DEPTH: u32 = 16;

/// The most effects of a state searched one by one (in place) before an index is built.
const MADE_SEARCHED: usize = 16;

/// One side's final HP -> probability (a few, in place).
type SideHp = smallvec::SmallVec<[(i64, f64); 16]>;

/// Each side's final HP -> probability, ascending: each summed in the order the final states
/// were first reached (what a `BTreeMap` filled from `done` holds, without building one). Both
/// sides in one pass, in place (a list of 16 moved by value is a `memcpy`).
fn side_hps(done: &[([i64; 2], f64)]) -> [SideHp; 2] {
    let mut out = [SideHp::new(), SideHp::new()];
    // Many final states (damage dice): summed in a map, in the same order.
    if done.len() > 64 {
        for (side, list) in out.iter_mut().enumerate() {
            let mut map: BTreeMap<i64, f64> = BTreeMap::new();
            for (hp, p) in done {
                *map.entry(hp.get(side).copied().unwrap_or(0)).or_default() += p;
            }
            list.extend(map);
        }
        return out;
    }
    for (side, list) in out.iter_mut().enumerate() {
        if !by_window(done, side, list) {
            for (hp, p) in done {
                add_at(list, hp.get(side).copied().unwrap_or(0), *p);
            }
            list.sort_unstable_by_key(|(h, _)| *h);
        }
    }
    out
}

/// One side's final HP -> probability into `out` (empty), where they lie within a window of 64
/// (most exchanges): each added in `done`'s order to 0.0 in a slot by hit points, as to a map's
/// default entry, and read out ascending. `false` (nothing written) where they spread wider.
fn by_window(done: &[([i64; 2], f64)], side: usize, out: &mut SideHp) -> bool {
    const WINDOW: usize = 64;
    let hp = |s: &([i64; 2], f64)| s.0.get(side).copied().unwrap_or(0);
    let (lo, hi) = done.iter().fold((i64::MAX, i64::MIN), |(lo, hi), s| (lo.min(hp(s)), hi.max(hp(s))));
    if lo > hi || hi.saturating_sub(lo) >= WINDOW as i64 {
        return false;
    }
    let mut sums = [0.0f64; WINDOW];
    let mut seen = 0u64;
    for s in done {
        let i = (hp(s) - lo) as usize;
        if let Some(sum) = sums.get_mut(i) {
            *sum += s.1;
            seen |= 1 << i;
        }
    }
    while seen != 0 {
        let i = seen.trailing_zeros() as usize;
        out.push((lo + i as i64, sums.get(i).copied().unwrap_or(0.0)));
        seen &= seen - 1;
    }
    true
}

/// The map of ascending (key, value) pairs: a few inserted one by one (no list collected and
/// sorted, as `collect` does), many built in bulk. The same entries either way.
fn map_of(sorted: &SideHp) -> BTreeMap<i64, f64> {
    if sorted.len() > 16 {
        return sorted.iter().copied().collect();
    }
    let mut map = BTreeMap::new();
    for &(k, v) in sorted {
        map.insert(k, v);
    }
    map
}

/// Adds `p` to key `k`'s sum in a short list, as adding to a map's default entry does (`0.0 + p`
/// first: a -0.0 becomes 0.0).
fn add_at(list: &mut SideHp, k: i64, p: f64) {
    match list.iter_mut().find(|(x, _)| *x == k) {
        Some((_, q)) => *q += p,
        None => list.push((k, 0.0 + p)),
    }
}

impl Forecast {
    /// Every figure's bits (probabilities as `f64::to_bits`), in a fixed order: what tests
    /// compare where two forecasts must be the same bits.
    pub fn bits(&self) -> Vec<u64> {
        let mut out: Vec<u64> =
            [self.attacker_routed, self.defender_routed, self.attacker_damage_taken, self.defender_damage_taken]
                .map(f64::to_bits)
                .to_vec();
        for (hp, p) in self.attacker_hp.iter().chain(&self.defender_hp) {
            out.extend([*hp as u64, p.to_bits()]);
        }
        for s in [&self.attacker, &self.defender] {
            out.extend([s.hit.to_bits(), s.crit.to_bits(), s.damage as u64, s.crit_damage as u64, u64::from(s.strikes)]);
            for (d, p) in &s.damage_distribution {
                out.extend([*d as u64, p.to_bits()]);
            }
        }
        out
    }
}

/// A forecast from its final hit points with their chances (in the order first reached), each
/// side's hit points as the exchange began, and what it shows of each side before the dice.
pub(super) fn assemble(
    done: &[([i64; 2], f64)],
    start: [i64; 2],
    distance: i64,
    [attacker, defender]: [SideForecast; 2],
) -> Forecast {
    let [attacker_hp, defender_hp] = &side_hps(done);
    let odds = Odds::of(attacker_hp, defender_hp, start);
    let (attacker_hp, defender_hp) = (map_of(attacker_hp), map_of(defender_hp));
    Forecast {
        attacker,
        defender,
        distance,
        attacker_routed: odds.attacker_routed,
        defender_routed: odds.defender_routed,
        attacker_damage_taken: odds.attacker_damage_taken,
        defender_damage_taken: odds.defender_damage_taken,
        attacker_hp,
        defender_hp,
    }
}

/// [`Exchange::odds`] of the final hit points `done` (in the order first reached) from `start`.
pub(super) fn odds_of(done: &[([i64; 2], f64)], start: [i64; 2]) -> Odds {
    let [attacker_hp, defender_hp] = &side_hps(done);
    Odds::of(attacker_hp, defender_hp, start)
}

/// [`Exchange::ending`] of the final hit points `done` (in the order first reached) from `start`.
pub(super) fn ending_of(done: &[([i64; 2], f64)], start: [i64; 2]) -> Ending {
    let [attacker_hp, defender_hp] = &side_hps(done);
    let odds = Odds::of(attacker_hp, defender_hp, start);
    let (attacker_hp, defender_hp) = (map_of(attacker_hp), map_of(defender_hp));
    Ending { start, attacker_hp, defender_hp, odds }
}

impl Odds {
    /// From each side's final HP -> probability, ascending.
    fn of(attacker_hp: &[(i64, f64)], defender_hp: &[(i64, f64)], start: [i64; 2]) -> Odds {
        // `+ 0.0`: an empty f64 sum is -0.0.
        let routed = |dist: &[(i64, f64)]| dist.iter().filter(|(hp, _)| *hp <= 0).map(|(_, p)| p).sum::<f64>() + 0.0;
        let taken = |dist: &[(i64, f64)], start: i64| dist.iter().map(|(hp, p)| (start - hp) as f64 * p).sum::<f64>() + 0.0;
        Odds {
            attacker_routed: routed(attacker_hp),
            defender_routed: routed(defender_hp),
            attacker_damage_taken: taken(attacker_hp, start[0]),
            defender_damage_taken: taken(defender_hp, start[1]),
        }
    }
}

impl Exchange<'_> {
    /// The exact distribution of outcomes, by enumerating every face of every strike.
    pub fn forecast(&self) -> Forecast {
        self.sharing.set(true);
        let (initial, done, mut outcome_cache, _) = self.walk_planned(false);
        let sides = [0, 1].map(|side| self.side_forecast(&initial, side, &mut outcome_cache));
        assemble(&done, self.start, self.distance, sides)
    }

    /// [`Exchange::forecast`], and the matchup's plan where its exchange has one (`plan.rs`).
    pub(crate) fn forecast_planned(&self) -> (Forecast, Option<super::Plan>) {
        self.sharing.set(true);
        let (initial, done, mut outcome_cache, plain) = self.walk_planned(true);
        let sides = [0, 1].map(|side| self.side_forecast(&initial, side, &mut outcome_cache));
        let f = assemble(&done, self.start, self.distance, sides);
        let plan = plain.map(|p| super::Plan::new(p, f.clone()));
        (f, plan)
    }

    /// The chances of a rout and the expected damage each side takes: the same numbers, bit for
    /// bit, as [`Exchange::forecast`]'s, without what it shows of each side before the dice
    /// (what `oc matrix` writes).
    pub fn odds(&self) -> Odds {
        let (_, done, _) = self.walk();
        odds_of(&done, self.start)
    }

    /// How the exchange ends: [`Exchange::forecast`]'s final HP and odds (the same bits), without
    /// the rest of the forecast (what the AIs read).
    pub fn ending(&self) -> Ending {
        let (_, done, _) = self.walk();
        ending_of(&done, self.start)
    }

    /// Every state an exchange may reach, breadth first: the state it begins in, the final hit
    /// points with their chances (in the order first reached), and the strikes' outcomes worked
    /// out on the way.
    ///
    /// Every sum runs in the order the states were first reached (each level's states in that
    /// order, each state's outcomes in theirs), which depends on nothing but the rules: not on a
    /// hash table's layout (std's `HashMap` iterates by bucket, so a different table size or
    /// hasher changed the last bits of a forecast). An exchange whose states differ only in hit
    /// points is walked on those alone (`plain.rs`), in the same order: the same bits.
    fn walk(&self) -> (State, Vec<([i64; 2], f64)>, OutcomeCache) {
        let (initial, done, cache, _) = self.walk_planned(false);
        (initial, done, cache)
    }

    /// [`Exchange::walk`], and where `planning`, all a plain walk read (`plan.rs`).
    fn walk_planned(&self, planning: bool) -> (State, super::plain::Finals, OutcomeCache, Option<super::plain::Plain>) {
        let initial = self.initial();
        let mut outcome_cache = OutcomeCache::default();
        if let Some((done, plain)) = self.walk_plain(&initial, &mut outcome_cache, planning) {
            return (initial, done, outcome_cache, plain);
        }
        let mut frontier = vec![(initial.clone(), 1.0)];
        let mut done: Tally<[i64; 2]> = Tally::default();
        // Past `MADE_SEARCHED` effects a state's are found by an index (kept between states):
        // exploding damage makes hundreds of outcomes and dozens of effects.
        let mut made_index: FastMap<Effect, usize> = FastMap::default();
        while !frontier.is_empty() {
            let mut next: Tally<State> = Tally::default();
            for (state, p) in frontier {
                let Some(side) = state.phase.striker() else {
                    done.add(state.hp, p);
                    continue;
                };
                let outcomes = self.outcomes_memo(&state, side, &mut outcome_cache);
                let faces = outcomes.den;
                // Where no trigger of the striker fires on a strike, the state after it follows
                // from the hit points it leaves, whether it dealt damage (a riposte) and the
                // rerolls it paid: outcomes alike in those (every blow that fells the unit, a hit
                // and a critical hit of one damage) lead to one state, made once and found again
                // by its place in `next`. The same weights are added to the same states in the
                // same order: the same bits.
                let fires = self.fires_on_strike(&state, side);
                // Where triggers may fire but read nothing an outcome changes but which of them
                // fire, outcomes alike in that too lead to one state (a blow that fells the
                // unit struck and lays a status: every such blow).
                let blind = fires && self.engine.ir.strategy.blind_triggers && self.blind_triggers(&state, side);
                let effects = !fires || blind;
                if effects
                    && self.engine.ir.strategy.effect_runs
                    && self.strike_by_runs(&state, side, p, blind, &outcomes, &mut next)
                {
                    continue;
                }
                let mut made: SmallVec<[(Effect, usize); MADE_SEARCHED]> = SmallVec::new();
                made_index.clear();
                // The last outcome's effect and where its state is: outcomes in a row often have
                // one (every blow past the struck unit's hit points), found again without a search
                // (an effect's place never changes, so the search would find the same).
                let mut last: Option<(Effect, usize)> = None;
                for &(count, o) in outcomes.list.iter() {
                    let weight = p * count / faces;
                    let effect = effects.then(|| dealt_effect(state.hp, side, o, blind));
                    let found = effect.and_then(|e| match last {
                        Some((x, i)) if x == e => Some(i),
                        _ if made_index.is_empty() => made.iter().find(|(x, _)| *x == e).map(|(_, i)| *i),
                        _ => made_index.get(&e).copied(),
                    });
                    if let Some(i) = found {
                        next.add_to(i, weight);
                        last = effect.map(|e| (e, i));
                        continue;
                    }
                    let (after, _) = self.after_strike(&state, side, o, outcomes.reaction);
                    let i = next.add_at(after, weight);
                    if let Some(e) = effect {
                        last = Some((e, i));
                        if !made_index.is_empty() {
                            made_index.insert(e, i);
                        } else if made.len() < MADE_SEARCHED {
                            made.push((e, i));
                        } else {
                            made_index.extend(made.drain(..));
                            made_index.insert(e, i);
                        }
                    }
                }
            }
            frontier = next.list;
        }
        (initial, done.list, outcome_cache, None)
    }

    /// Whether a trigger of the unit striking in `state` may fire on its strike (`on hit`,
    /// `crit`, `miss`): then the state after a strike follows from more than the hit points it
    /// leaves.
    fn fires_on_strike(&self, state: &State, side: usize) -> bool {
        let units = self.units(state);
        units.get(side).is_none_or(|u| u.fires_on_strike(false))
    }

    /// Whether the triggers of the unit striking in `state` that may fire on its strike do the
    /// same for every outcome that fires them ([`blind_effects`]), with the attributes they read
    /// the same for every outcome (the `when`s of both units [`blind_effects`] too): then the
    /// state after a strike follows from its hit points, which triggers fire, whether it dealt
    /// damage and the rerolls it paid.
    fn blind_triggers(&self, state: &State, side: usize) -> bool {
        let ir = &self.engine.ir;
        let units = self.units(state);
        let strikes = |e: &m::Event| matches!(e, m::Event::Hit | m::Event::Crit | m::Event::Miss);
        let triggers = units
            .get(side)
            .is_some_and(|u| u.triggers.iter().filter(|(_, e, _)| strikes(e)).all(|(_, _, then)| blind_effects(ir, then)));
        triggers
            && units
                .iter()
                .all(|u| u.whens.iter().all(|(_, condition, then)| blind(ir, condition, BLIND_DEPTH) && blind_effects(ir, then)))
    }

    fn side_forecast(&self, state: &State, side: usize, outcome_cache: &mut OutcomeCache) -> SideForecast {
        let ir = &self.engine.ir;
        let unit = self.unit(side, &state.statuses[side]);
        let can_strike = side == 0 || self.can_counter(state);
        let (mut hit, mut crit, mut damage, mut crit_damage) = (0.0, 0.0, 0, 0);
        let mut plain_hit = 0.0;
        // The damage -> probability, each summed in the outcomes' order (as a map's entries would be).
        let mut by_damage: SideHp = SideHp::new();
        if can_strike {
            let outcomes = self.outcomes_memo(state, side, outcome_cache);
            let faces = outcomes.den;
            // Many outcomes (damage dice): summed in a map, in the same order.
            let mut many: BTreeMap<i64, f64> = BTreeMap::new();
            for &(n, o) in outcomes.list.iter() {
                let p = n / faces;
                if o.hit {
                    if outcomes.list.len() > 64 {
                        *many.entry(o.damage).or_default() += p;
                    } else {
                        add_at(&mut by_damage, o.damage, p);
                    }
                    hit += p;
                    if o.crit {
                        crit += p;
                        crit_damage = crit_damage.max(o.damage);
                    } else {
                        plain_hit += p;
                        damage = damage.max(o.damage);
                    }
                }
            }
            if !many.is_empty() {
                by_damage = many.into_iter().collect();
            }
            // Crits in the damage dice (`2d8c`): a hit the `critical` formula does not call
            // critical is one when its damage roll adds the crit die.
            let fires = self.crit_dice_chance(state, side);
            if fires > 0.0 {
                crit += plain_hit * fires;
            }
            // The values on a hit even when no face produces one (a 0% hit chance), at the
            // dice's lowest values. A formula that reads no die, evaluated with the attributes the
            // outcomes were (no reaction changed them), is already among the outcomes' values.
            let shown = |id: u16, seen: bool| {
                seen && self.engine.reactions.is_empty() && ir.formulas.get(id as usize).is_some_and(|f| f.dice == 0)
            };
            let hits = outcomes.list.iter().any(|(_, o)| o.hit && !o.crit);
            let crits = outcomes.list.iter().any(|(_, o)| o.hit && o.crit);
            if !shown(ir.roles.damage, hits) || !shown(ir.roles.critical_damage, crits) {
                let units = [self.unit(0, &state.statuses[0]), self.unit(1, &state.statuses[1])];
                let units = [&*units[0], &*units[1]];
                let attrs = self.strike_attrs(units, state, side);
                let mut cache = vec![None; ir.formulas.len()];
                let lowest: Vec<i64> = ir.dice.iter().map(|d| d.dist.min()).collect();
                let ctx = self.ctx(units, &attrs, side, &lowest);
                damage = damage.max(ctx.formula(ir.roles.damage, &mut cache).int().max(0));
                crit_damage = crit_damage.max(ctx.formula(ir.roles.critical_damage, &mut cache).int().max(0));
            }
            // A crit of the damage dice adds a die: the most a hit deals is reached only with it
            // (every die at its most fires it), so that is the most a crit deals (seed 002's
            // forecast said "Crit damage up to 0" beside a hit of 2).
            if fires > 0.0 {
                crit_damage = crit_damage.max(damage);
            }
        }
        // Given a hit; only where hits differ in damage beyond hit versus critical hit.
        let crit_only = by_damage.len() <= 2 && by_damage.iter().all(|(d, _)| *d == damage || *d == crit_damage);
        let damage_distribution: BTreeMap<i64, f64> =
            if crit_only || hit <= 0.0 { BTreeMap::new() } else { by_damage.into_iter().map(|(d, p)| (d, p / hit)).collect() };
        let strikes = if !can_strike {
            0
        } else {
            // Its other attack forms' strikes too, where they reach.
            let forms = self.forms.get(side).map_or(&[][..], |f| &f[..]);
            let others: u32 = (1..=forms.len())
                .filter(|f| forms.get(f - 1).is_some_and(|u| u.in_range(self.distance)))
                .map(|f| u32::from(self.strikes_form(state, side, f)))
                .sum();
            let own = u32::from(self.strikes(state, side)) + others;
            let follows =
                if side == 0 { self.follow_up(state, 0) } else { !self.follow_up(state, 0) && self.follow_up(state, 1) };
            own * if follows { 2 } else { 1 }
        };
        SideForecast {
            class: unit.class.clone(),
            weapon: unit.weapon.clone(),
            hp: state.hp[side],
            max_hp: unit.max_hp,
            effective: self.engine.effective(&unit),
            hit,
            crit,
            damage,
            crit_damage,
            strikes,
            damage_distribution,
        }
    }

    /// The chance that a strike's damage roll adds a crit die (`2d8c`), from the dice the
    /// `damage` formula reads and the hit, critical and backfire formulas do not: independent of
    /// whether it hits, so times the hit chance it is exact. A reaction's reroll is a roll of
    /// its own, not counted.
    fn crit_dice_chance(&self, state: &State, side: usize) -> f64 {
        let ir = &self.engine.ir;
        let roles = &ir.roles;
        let mask_of = |f: Option<u16>| f.and_then(|f| ir.formulas.get(f as usize)).map_or(0, |f| f.dice);
        let head = mask_of(Some(roles.hit)) | mask_of(Some(roles.critical)) | mask_of(roles.backfire);
        let read = mask_of(Some(roles.damage)) & !head & ir.strike_mask;
        let crit_read = ir.strike_dice.iter().any(|s| {
            read & (1u64 << s) != 0
                && ir.dice.get(*s as usize).is_some_and(|d| d.dynamic.is_some() || d.shape.terms.iter().any(|t| t.crit))
        });
        if !crit_read {
            return 0.0;
        }
        let units = [self.unit(0, &state.statuses[0]), self.unit(1, &state.statuses[1])];
        let units = [&*units[0], &*units[1]];
        let attrs = self.strike_attrs(units, state, side);
        let mut cache = vec![None; ir.formulas.len()];
        let lowest: Vec<i64> = ir.dice.iter().map(|d| d.dist.min()).collect();
        let ctx = self.ctx(units, &attrs, side, &lowest);
        let mut none = 1.0;
        for slot in ir.strike_dice.iter().filter(|s| read & (1u64 << **s) != 0) {
            if let Some(die) = self.die_of(*slot, &ctx, &mut cache) {
                none *= 1.0 - die.shape.crit_chance();
            }
        }
        1.0 - none
    }

    /// Plays the exchange once with `rng`, strike by strike.
    pub fn resolve(&self, rng: &mut ChaCha8Rng) -> (Vec<StrikeLog>, [i64; 2]) {
        let r = self.resolve_all(rng);
        (r.log, r.hp)
    }

    /// [`Exchange::resolve`] with what `on attacked` laid before the first strike.
    pub fn resolve_all(&self, rng: &mut ChaCha8Rng) -> Resolution {
        let ir = &self.engine.ir;
        let (mut state, declared) = self.initial_laid();
        let mut log = Vec::new();
        let mut cache = vec![None; ir.formulas.len()];
        let mut rolls = vec![0i64; ir.dice.len()];
        // What the strikes gained, added when the exchange ends.
        let mut banked = [[0i32; MAX_RES]; 2];
        // The strike whose formulas the cache holds, where both units' attributes were their
        // own: its striker and units (by place; the exchange holds them while it lasts).
        let mut steady: Option<(usize, [usize; 2])> = None;
        while let Some(side) = state.phase.striker() {
            let form = state.phase.form_of(side);
            let units = self.units(&state);
            let units = [&*units[0], &*units[1]];
            // The struck unit's reaction, chosen as in the forecast.
            let reaction = if self.engine.reactions.is_empty() {
                None
            } else {
                let mut key = state.clone();
                key.phase = Phase::Done;
                let known = self.choices.borrow().get(&(key.clone(), side + 2 * form)).copied();
                known.unwrap_or_else(|| {
                    let r = self.outcomes(&state, side).reaction;
                    self.choices.borrow_mut().insert((key, side + 2 * form), r);
                    r
                })
            };
            let attrs = self.reaction_attrs(units, &state, side, reaction);
            // A strike of the same striker on the same units with their own attributes: the
            // formulas that read no die and nothing the state holds are as the last one left
            // them. Within a strike, only those are kept.
            // (Not where strikes settle: a reaction's taker evaluates in the same cache.)
            let now = (ir.strategy.steady_formulas && !ir.settles && attrs.own_of(units))
                .then(|| (side, units.map(|u| u as *const Unit as usize)));
            forget_varying(ir, &mut cache, now.is_none() || now != steady);
            steady = now;
            let within = now.is_none();
            // Every die the strike reads, drawn once, in slot order (one generator per exchange);
            // the faces of named dice, in words.
            let mut shown = self.draw(units, &attrs, side, ir.strike_mask, &mut rolls, &mut cache, rng);
            forget_varying(ir, &mut cache, within);
            // What a reaction to the roll may pay with: what the struck unit's reactions left.
            let left = if ir.settles {
                let mut left = state.clone();
                if let Some(r) = reaction {
                    self.pay(&mut left, 1 - side, r);
                }
                Some(left)
            } else {
                None
            };
            let (o, rerolled) = if let Some(left) = left.filter(|l| self.settles_here(units, &attrs, side, &l.res)) {
                // Reactions to the roll, chosen as in the forecast, their dice drawn again.
                let strike = super::Strike { units, attrs: &attrs, attacker: side, res: &left.res };
                let lists = self.lists(units, &attrs, side, &rolls, &mut cache, false);
                let mut taken = 0u16;
                let mut memo = super::reroll::Expected::default();
                for taker in [side, 1 - side] {
                    forget_varying(ir, &mut cache, within);
                    if let Some(c) = self.reroll_choice(&strike, &lists, &mut rolls, &mut cache, taker, &mut memo, None) {
                        taken |= 1 << c.reaction;
                        let again = self.draw(units, &attrs, side, c.slots, &mut rolls, &mut cache, rng);
                        if !again.is_empty() {
                            shown.push(format!("rerolled {}", again.join(" against ")));
                        }
                    }
                }
                forget_varying(ir, &mut cache, within);
                let o = self.kept(&strike, &rolls, &mut cache, taken);
                (o, (taken != 0).then(|| self.engine.reactions_named(taken)))
            } else {
                (self.outcome_at(&self.ctx(units, &attrs, side, &rolls), &mut cache), None)
            };
            if !ir.gains.is_empty() {
                self.bank_gains(&self.ctx(units, &attrs, side, &rolls), &mut cache, &mut banked);
            }
            let roll = ir.strike_dice.first().and_then(|s| rolls.get(*s as usize)).copied().unwrap_or(0);
            // Its result on the charts, at the dice kept: acted on after the exchange, in battles.
            let chart = ir.roles.chart.map_or(0, |f| self.ctx(units, &attrs, side, &rolls).formula(f, &mut cache).int());
            let (after, laid) = self.after_strike(&state, side, o, reaction);
            let struck = 1 - side;
            let inflicted: Vec<String> = laid
                .iter()
                .filter_map(|l| if let Laid::Afflicted { status, .. } = l { Some(status.clone()) } else { None })
                .collect();
            let debuffed: Vec<(String, i64)> = laid
                .iter()
                .filter_map(|l| match l {
                    Laid::Debuff { side, attr, shift } if *side == struck => Some((attr.clone(), *shift)),
                    _ => None,
                })
                .collect();
            log.push(StrikeLog {
                side,
                stage: match state.phase {
                    Phase::Attack { stage: Stage::First, .. } => "attack",
                    Phase::Attack { stage: Stage::Counter, .. } => "counter",
                    Phase::Attack { stage: Stage::Follow, .. } => "follow-up",
                    Phase::Riposte { .. } | Phase::Done => "riposte",
                },
                form: self.forms.get(side).filter(|f| !f.is_empty()).and_then(|_| units[side].weapon.clone()),
                reaction: reaction.map(|r| self.engine.reactions_named(r)),
                rerolled,
                roll,
                shown: (!shown.is_empty()).then(|| shown.join(" against ")),
                outcome: o,
                chart,
                hp_after: after.hp,
                inflicted,
                debuffed,
                laid,
            });
            state = after;
        }
        for (have, gained) in state.res.iter_mut().flatten().zip(banked.iter().flatten()) {
            *have = have.saturating_add(*gained);
        }
        let n = self.engine.rules.ruleset.resources.len().min(MAX_RES);
        let resources = state.res.map(|r| r.iter().take(n).map(|v| i64::from(*v)).collect());
        Resolution { log, hp: state.hp, declared, resources }
    }

    /// Draws the strike dice in `mask` from `rng`, in slot order, into `rolls`: the words of
    /// named faces.
    #[allow(clippy::too_many_arguments)]
    fn draw(
        &self,
        units: [&Unit; 2],
        attrs: &Attrs,
        side: usize,
        mask: u64,
        rolls: &mut [i64],
        cache: &mut [Option<V>],
        rng: &mut ChaCha8Rng,
    ) -> Vec<String> {
        let ir = &self.engine.ir;
        let mut shown = Vec::new();
        for slot in ir.strike_dice.iter().filter(|s| mask & (1u64 << **s) != 0) {
            let Some(d) = ir.dice.get(*slot as usize) else { continue };
            let shape = match &d.dynamic {
                None => Some(&d.shape),
                Some(e) => match self.ctx(units, attrs, side, &[]).eval(e, &[], cache) {
                    V::Dice(id) => ir.shapes.get(id as usize).map(|s| &s.shape),
                    _ => None,
                },
            };
            if let (Some(r), Some(shape)) = (rolls.get_mut(*slot as usize), shape) {
                let (value, words) = crate::dice::roll_shown(rng, shape);
                *r = value;
                shown.extend(words);
            }
        }
        shown
    }

    /// Only the final HP of one seeded exchange (for simulations).
    pub fn resolve_hp(&self, rng: &mut ChaCha8Rng) -> [i64; 2] {
        self.resolve(rng).1
    }
}

/// Forgets every formula in a strike's cache (`all`), or those whose values may change from
/// strike to strike (`Ir::varying`: they read a die or what the state holds).
fn forget_varying(ir: &crate::ir::Ir, cache: &mut [Option<V>], all: bool) {
    if all {
        cache.iter_mut().for_each(|c| *c = None);
        return;
    }
    for f in &ir.varying {
        if let Some(slot) = cache.get_mut(*f as usize) {
            *slot = None;
        }
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::Exchange;

    /// Every matchup of every built-in ruleset resolved with a few seeds, its formulas that read
    /// no die and nothing the state holds kept from strike to strike and worked out at each:
    /// the same strikes, the same ends.
    #[test]
    fn steady_formulas_resolve_as_worked_out_ones() {
        for (name, index) in oc_compiler::stdlib::RULESETS {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let on = crate::Engine::new(rules.clone()).expect("runs");
            let mut off = crate::Engine::new(rules).expect("runs");
            off.ir.strategy.steady_formulas = false;
            let mut compared = 0;
            for (label, a, d, r) in crate::testing::matchups(&on).into_iter().step_by(3) {
                let (Ok(x), Ok(y)) = (Exchange::new(&on, &a, &d, r), Exchange::new(&off, &a, &d, r)) else { continue };
                for seed in 0..4 {
                    let (p, q) = (x.resolve_all(&mut crate::dice::rng(seed)), y.resolve_all(&mut crate::dice::rng(seed)));
                    assert_eq!(p, q, "{name}: {label} against {} (hp {:?}), seed {seed}", d.class, d.hp);
                    compared += 1;
                }
            }
            assert!(compared > 100, "{name}: {compared} resolutions");
        }
    }

    /// Every matchup of every built-in ruleset, its strikes whose triggers read nothing an
    /// outcome changes led to their states outcome by outcome and merged: the same bits. And
    /// seed 003's wyvern's tail (a hit lays Paralyzed) is merged.
    #[test]
    fn blind_triggers_equal_each_outcome_applied() {
        crate::testing::agree_with(
            |fresh| fresh.ir.strategy.blind_triggers = false,
            |_, name, on| {
                let blind = crate::testing::matchups(on)
                    .iter()
                    .filter(|(_, a, d, r)| {
                        Exchange::new(on, a, d, *r).is_ok_and(|x| {
                            let s = x.initial();
                            s.phase.striker().is_some_and(|side| x.fires_on_strike(&s, side) && x.blind_triggers(&s, side))
                        })
                    })
                    .count();
                eprintln!("{name}: {blind} matchups with blind triggers");
                if name == "battlestorm" {
                    assert!(blind > 0, "{name}: no strike with blind triggers");
                }
            },
        );
    }
}
