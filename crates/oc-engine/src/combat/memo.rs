//! What each side's strike comes to as the exchange begins: its outcomes and the flags read
//! outside any roll, worked out once for every state that holds the statuses and resources the
//! exchange began with (most states), where working them out read no hit points; and, for a
//! plain exchange whose strikes and their order read none, its walk at any hit points
//! ([`Template`]), which the AIs keep beyond the exchange.
//!
//! (An engine-wide table of these, shared by every exchange between two units, was tried: on
//! `oc matrix` — every weapon against every class's first, so a matchup's mirror is rarely in
//! the table — it cost more to fill, lock and free than it saved: 43 ms -> 80 ms on two cores,
//! peak 13 -> 30 MiB.)

use std::cell::{OnceCell, RefCell};
use std::sync::{Arc, Weak};

use super::phase::Flag;
use super::Outcomes;
use crate::fx::FastMap;
use crate::ir::V;
use crate::unit::Unit;

/// One side's strike as the exchange begins. Each entry is set once; `Some(None)` where working
/// it out read hit points (then each state works it out again).
#[derive(Default)]
pub(crate) struct StrikeMemo {
    /// The strike's outcomes (with the reaction the struck unit takes, where it has any).
    pub(super) outcomes: OnceCell<Option<Arc<Outcomes>>>,
    /// The flags with the striker as `attacker`, by [`Flag`].
    pub(super) flags: [OnceCell<Option<V>>; Flag::ALL],
    /// Whether what a forecast of the same units kept ([`PAIRS`]) was looked for (once).
    looked: std::cell::Cell<bool>,
}

/// A plain exchange's walk (`plain.rs`) as it goes at any hit points: where the strikers' order
/// and both sides' outcomes were worked out reading none, an exchange of the same two loadouts
/// at other hit points (the same in all else) strikes in the same order with the same outcomes,
/// so its walk is this one from its own hit points: the same bits as an exchange worked out
/// afresh (`tests::templates_walk_as_fresh_exchanges`). A unit's hit points are written last as
/// it is built, so the two units are the same but for them, where no weapon's reach reads them
/// (`ExchangeInputs::hp_free`). The AIs keep these by their loadouts without hit points
/// (`ai::forecasts::Templates`): a hurt unit is a new exchange, not a new walk of its rules.
pub(crate) struct Template {
    strikers: Vec<u8>,
    /// Each striking side's outcomes (for every amount of hit points).
    fixed: [Option<Arc<Outcomes>>; 2],
    /// Each side's hit points where its loadout names none, and its most (`Engine::unit`).
    hp: [(i64, i64); 2],
}

impl Template {
    /// Each side's hit points as an exchange of loadouts with hit points `hp` begins (the units'
    /// hit points as `Engine::unit` writes them); `None` where one would begin routed.
    pub(crate) fn start(&self, hp: [Option<i64>; 2]) -> Option<[i64; 2]> {
        let at = |side: usize| {
            let (none, most) = self.hp[side];
            hp[side].map_or(none, |h| h.clamp(1, most.max(1)))
        };
        Some([at(0), at(1)]).filter(|s| s.iter().all(|h| *h > 0))
    }

    /// The final hit points with their chances from `start`, in the order first reached: what
    /// the exchange's walk from there gives.
    pub(crate) fn finals(&self, start: [i64; 2]) -> Option<super::plain::Finals> {
        let fixed = self.fixed.each_ref().map(|o| o.as_deref());
        super::plain::run(start, &self.strikers, fixed, &mut |_, _| unreachable_outcomes())
    }

    /// [`super::Exchange::ending`] of an exchange from `start`.
    pub(crate) fn ending(&self, start: [i64; 2]) -> Option<super::Ending> {
        Some(super::play::ending_of(&self.finals(start)?, start))
    }

    /// [`super::Exchange::odds`] of an exchange from `start`.
    pub(crate) fn odds(&self, start: [i64; 2]) -> Option<super::Odds> {
        Some(super::play::odds_of(&self.finals(start)?, start))
    }
}

/// Never asked for: every striker's outcomes are fixed in a template.
fn unreachable_outcomes() -> Arc<Outcomes> {
    Arc::new(Outcomes::new(1.0, Vec::new().into()))
}

impl super::Exchange<'_> {
    /// This exchange's walk at any hit points ([`Template`]), where it has one: an exchange with
    /// no reaction, no trigger on a strike or on the attack, one attack form a side, not both
    /// sides at once, whose flags and outcomes as it began read no hit points. Asked after the
    /// exchange was walked (its memos hold what the walk worked out).
    pub(crate) fn template(&self) -> Option<Template> {
        let engine = self.engine;
        if !engine.inputs.hp_free()
            || !engine.ir.strategy.plain_walks
            || !engine.reactions.is_empty()
            || engine.ir.settles
            || self.forms.iter().any(|f| !f.is_empty())
        {
            return None;
        }
        if self.base[0].fires_on_strike(false) || self.base[1].fires_on_strike(true) {
            return None;
        }
        let initial = self.initial();
        if self.order.get().simultaneous || !self.at_start(&initial) || initial.hp.iter().any(|h| *h <= 0) {
            return None;
        }
        // The strikers in order, as the plain walk finds them.
        let mut strikers = Vec::new();
        let mut phase = initial.phase;
        while let Some(side) = phase.striker() {
            if strikers.len() >= super::plain::MAX_PLAIN_STRIKES {
                return None;
            }
            strikers.push(side as u8);
            phase = self.next_phase(&initial, phase);
        }
        // No flag read hit points (those that did are kept with them). `walk_plain` puts back
        // the first phase's flags it set aside (a unit's figures read as the exchange begins),
        // so an exchange whose strikers depend on its hit points keeps no walk: any flag kept
        // refuses it (more than needs be, never less).
        if !self.flags.borrow().is_empty() {
            return None;
        }
        let mut fixed = [None, None];
        for (side, slot) in fixed.iter_mut().enumerate() {
            if strikers.contains(&(side as u8)) {
                *slot = Some(self.memos.get(side)?.outcomes.get()?.clone()?);
            }
        }
        let hp = [0, 1].map(|side| {
            let u = &self.base[side];
            let none = if self.loadouts[side].figures > 1 { u.max_hp } else { u.figure_hp };
            (none, u.max_hp)
        });
        Some(Template { strikers, fixed, hp })
    }
}

/// What a strike as an exchange begins comes to depends on its two units and on the little of
/// the exchange a strike reads (its distance, triangle, cover, who activated or moved), not on
/// the exchange: a forecast's counter is its mirror's attack, struck by the same unit at the
/// same unit. Forecasts (`Exchange::forecast`, where `Strategy::pairs`) keep their strikes'
/// outcomes here, by those, for the forecasts after them on this thread: worked out once for a
/// pair of units, not once in each exchange of them (by a profile of the bench's fresh pass,
/// 43% of the strikes). Kept only where the exchange's memo keeps them (worked out reading no
/// hit points), without reactions (a struck unit's choice is the exchange's) or rerolls. A unit
/// is keyed by its place, which the entry holds (a `Weak`: the unit's memory is not freed, so
/// no other unit takes that place, while the entry lasts; what the unit owns is). Odds and
/// endings keep none: `oc matrix` (each weapon against each class's first, so a mirror is
/// rarely there) and the AIs (which keep endings of their own). The flags come with the
/// outcomes ([`Kept`]): kept in a table of their own they cost as much to keep and find as they
/// saved (by a profile).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct PairKey {
    ir: u64,
    /// The striker's unit and the struck unit's, by place.
    units: [usize; 2],
    /// The striking side, or 2 where nothing a strike reads tells the sides apart (`Ir::sided`,
    /// no `when` on either unit).
    side: u8,
    /// `i64::MIN` where no expression reads the distance.
    distance: i64,
    triangle: i64,
    cover: i64,
    /// Whether the striker and the struck unit activated, and moved (a bit each).
    acts: u8,
}

/// An entry of [`PAIRS`]: its units' places, held, the strike's outcomes, and the striker's
/// flags as the exchange began where they were worked out by then (as its memo holds them:
/// `Some(None)` where one read hit points). A forecast's flags are read before its outcomes (the
/// order of strikes first), so they come with them: one look-up finds both, and a follow-up
/// that reads both units is not worked out again for the mirror matchup.
struct Kept {
    _units: [Weak<Unit>; 2],
    outcomes: Arc<Outcomes>,
    flags: [Option<Option<V>>; Flag::ALL],
}

thread_local! {
    /// Strikes' outcomes as exchanges began, by [`PairKey`], for this thread.
    static PAIRS: RefCell<FastMap<PairKey, Kept>> =
        RefCell::new(FastMap::with_capacity_and_hasher(PAIRS_ROOM, Default::default()));
}

/// The most entries [`PAIRS`] holds; past it the table starts over.
const PAIRS_MAX: usize = 1 << 14;

/// The room [`PAIRS`] starts with (a matrix of a few dozen classes), not grown step by step.
const PAIRS_ROOM: usize = 1 << 12;

impl super::Exchange<'_> {
    /// The key of `side`'s strike as the exchange began, where forecasts keep it.
    fn pair_key(&self, side: usize) -> Option<PairKey> {
        let engine = self.engine;
        let ir = &engine.ir;
        if !self.sharing.get() || !ir.strategy.pairs || !engine.reactions.is_empty() || ir.settles {
            return None;
        }
        let (striker, struck) = (self.base.get(side)?, self.base.get(1 - side)?);
        let sided = ir.sided || !striker.whens.is_empty() || !struck.whens.is_empty();
        let bit = |b: Option<&bool>| u8::from(b.copied().unwrap_or(false));
        let acts = bit(self.activated.get(side))
            | bit(self.activated.get(1 - side)) << 1
            | bit(self.moved.get(side)) << 2
            | bit(self.moved.get(1 - side)) << 3;
        Some(PairKey {
            ir: ir.id,
            units: [Arc::as_ptr(striker) as usize, Arc::as_ptr(struck) as usize],
            side: if sided { side as u8 } else { 2 },
            distance: if ir.reads_distance { self.distance } else { i64::MIN },
            triangle: self.triangle.get(side).copied().unwrap_or(0),
            cover: self.cover,
            acts,
        })
    }

    /// `side`'s strike's outcomes as the exchange began where known: in its memo's `slot`
    /// (`None` where they read hit points), or kept by a forecast of the same units (then put
    /// in the memo too).
    pub(super) fn start_outcomes(&self, slot: Option<&OnceCell<Option<Arc<Outcomes>>>>, side: usize) -> Option<Arc<Outcomes>> {
        let slot = slot?;
        if slot.get().is_none() {
            self.adopt(side);
        }
        slot.get()?.clone()
    }

    /// Fills `side`'s memo with what a forecast of the same units kept (its strike's outcomes,
    /// its flags), where one did: looked for once an exchange, as the first of them is asked.
    pub(super) fn adopt(&self, side: usize) {
        let Some(memo) = self.memos.get(side) else { return };
        if memo.looked.replace(true) {
            return;
        }
        let Some(key) = self.pair_key(side) else { return };
        let found = PAIRS.try_with(|p| p.try_borrow().ok()?.get(&key).map(|k| (k.outcomes.clone(), k.flags))).ok().flatten();
        let Some((outcomes, flags)) = found else { return };
        let _ = memo.outcomes.set(Some(outcomes));
        for (slot, flag) in memo.flags.iter().zip(flags) {
            if let Some(v) = flag {
                let _ = slot.set(v);
            }
        }
    }

    /// Keeps `side`'s strike's outcomes as the exchange began (worked out reading no hit points)
    /// for later forecasts.
    pub(super) fn share_outcomes(&self, side: usize, outcomes: &Arc<Outcomes>) {
        let Some(key) = self.pair_key(side) else { return };
        let (Some(striker), Some(struck)) = (self.base.get(side), self.base.get(1 - side)) else { return };
        let flags = self.memos.get(side).map_or([None; Flag::ALL], |m| m.flags.each_ref().map(|f| f.get().copied()));
        let kept = Kept { _units: [Arc::downgrade(striker), Arc::downgrade(struck)], outcomes: outcomes.clone(), flags };
        let _ = PAIRS.try_with(|p| {
            if let Ok(mut p) = p.try_borrow_mut() {
                if p.len() >= PAIRS_MAX {
                    p.clear();
                }
                p.insert(key, kept);
            }
        });
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::combat::Exchange;
    use crate::testing::ending_bits as bits;
    use crate::{Engine, Loadout};

    /// `a` attacking `d` from `r`, a lone strike where `single`, a charge where `moved`.
    fn exchange<'e>(
        e: &'e Engine,
        [a, d]: [&'e Loadout; 2],
        r: i64,
        single: bool,
        moved: bool,
    ) -> Result<Exchange<'e>, crate::EngineError> {
        let x = Exchange::new(e, a, d, r)?.moved([moved, false]);
        Ok(if single { x.single() } else { x })
    }

    /// Every matchup of every built-in ruleset (each class with each weapon it may use against
    /// each class with its first, at full and low hit points), forecast and then its mirror
    /// (whose attack is the matchup's counter) by an engine that keeps strikes by their units
    /// and by one that does not: the same bits. And seed 000's and 001's strikes are kept
    /// (seed 003's read the struck unit's hit points, its figures; seed 002 has reactions).
    #[test]
    fn strikes_kept_by_their_units_equal_worked_out_ones() {
        for (k, (name, index)) in oc_compiler::stdlib::RULESETS.iter().enumerate() {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let keeping = Engine::new(rules.clone()).expect("runs");
            let mut fresh = Engine::new(rules).expect("runs");
            fresh.ir.strategy.pairs = false;
            super::PAIRS.with(|p| p.borrow_mut().clear());
            let mut compared = 0;
            for (label, a, d, r) in crate::testing::matchups(&keeping) {
                let back = d.weapon.as_deref().and_then(|w| keeping.reach(&d.class, w)).map_or(1, |(lo, _)| lo.max(1));
                for (x, y, r) in [(&a, &d, r), (&d, &a, back)] {
                    let Ok(kept) = keeping.forecast(x, y, r) else { continue };
                    let worked = fresh.forecast(x, y, r).expect("the same matchup");
                    assert_eq!(kept.bits(), worked.bits(), "{name}: {label} against {} (hp {:?}) at {r}", d.class, d.hp);
                    compared += 1;
                }
            }
            let kept = super::PAIRS.with(|p| p.borrow().len());
            assert!(compared > 100, "{name}: {compared} compared");
            assert!(k >= 2 || kept * 20 > compared, "{name}: {kept} strikes kept in {compared} forecasts");
            eprintln!("{name}: {compared} forecasts, {kept} strikes kept");
        }
    }

    /// Every matchup of every built-in ruleset (each class with each weapon it may use against
    /// each class with its first), as a whole exchange and as a lone strike, charging where the
    /// rules read it: its walk kept at one pair of hit points (full, and 2 against 3), walked
    /// again from others, is the same bits as the exchange at those worked out by an engine of
    /// its own (nothing kept). And most of seed 000's matchups keep a walk.
    #[test]
    fn templates_walk_as_fresh_exchanges() {
        let hps: [[Option<i64>; 2]; 7] = [
            [None, None],
            [Some(1), Some(1)],
            [Some(2), None],
            [None, Some(2)],
            [Some(5), Some(3)],
            [Some(3), Some(7)],
            [Some(99), Some(40)],
        ];
        for (k, (name, index)) in oc_compiler::stdlib::RULESETS.iter().enumerate() {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let keeping = Engine::new(rules.clone()).expect("runs");
            let fresh = Engine::new(rules).expect("runs");
            let moves = if keeping.ir.reads_moved { &[false, true][..] } else { &[false][..] };
            let (mut compared, mut kept, mut asked) = (0, 0, 0);
            // Units of figures too, one matchup in five (a unit's figures read as the exchange
            // begins, where `strikes` reads them: its walk is kept only where its strikers do
            // not depend on them).
            let matchups: Vec<_> = crate::testing::matchups(&keeping).into_iter().filter(|m| m.2.hp.is_none()).collect();
            let figures = [(1, 1), (4, 1), (3, 5)];
            let variants =
                figures.iter().flat_map(|f| matchups.iter().step_by(if *f == (1, 1) { 1 } else { 5 }).map(move |m| (f, m)));
            for (&(na, nd), (label, a, d, r)) in variants {
                let (a, d, r) = (&Loadout { figures: na, ..a.clone() }, &Loadout { figures: nd, ..d.clone() }, *r);
                for single in [false, true] {
                    for &moved in moves {
                        for from in [[None, None], [Some(2), Some(3)]] {
                            let (fa, fd) = (Loadout { hp: from[0], ..a.clone() }, Loadout { hp: from[1], ..d.clone() });
                            let Ok(x) = exchange(&keeping, [&fa, &fd], r, single, moved) else { continue };
                            let first = x.ending();
                            asked += 1;
                            let Some(t) = x.template() else { continue };
                            kept += 1;
                            assert_eq!(t.ending(first.start).map(|e| bits(&e)), Some(bits(&first)), "{name}: {label}");
                            for hp in hps {
                                let (ha, hd) = (Loadout { hp: hp[0], ..a.clone() }, Loadout { hp: hp[1], ..d.clone() });
                                let Some(start) = t.start(hp) else { continue };
                                let y = exchange(&fresh, [&ha, &hd], r, single, moved).expect("an exchange a walk was kept for");
                                let (walked, worked) = (t.ending(start).expect("walks"), y.ending());
                                let what = format!(
                                    "{name}: {label} ({na}) vs {} ({nd}) at {hp:?} (single {single}, moved {moved})",
                                    d.class
                                );
                                assert_eq!(bits(&walked), bits(&worked), "{what}");
                                assert_eq!(
                                    t.odds(start).map(|o| o.defender_routed.to_bits()),
                                    Some(worked.odds.defender_routed.to_bits())
                                );
                                compared += 1;
                            }
                        }
                    }
                }
            }
            eprintln!("{name}: {kept} of {asked} exchanges keep a walk; {compared} compared");
            assert!(k > 0 || kept * 10 > asked * 6, "{name}: {kept} of {asked} keep a walk");
            assert!(k > 0 || compared > 1000, "{name}: {compared} compared");
        }
    }
}
