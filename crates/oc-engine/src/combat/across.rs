//! A strike's outcomes at each state, kept beyond the exchange (`Strategy::across`) for the
//! exchanges after it of the same two loadouts at other hit points: an AI asks how an attack
//! ends at the hit points the two units have now, and again after each blow, and a walk from
//! lower hit points reaches states the walk before it reached. Where a unit's hit points are
//! read only as the state holds them (`ExchangeInputs::alike_but_hp`: two units alike but for
//! their hit points are the same but for them), what a strike comes to at a state follows from the
//! two loadouts without their hit points, what the exchange was told (distance, cover, moves,
//! activations) and the state: kept by those, with whether working it out read the state's hit
//! points (`Exchange::reads`), which the exchange's own memo is filled by. Not where reactions
//! are (a struck unit's choice is the exchange's) nor where strikes settle.

use std::cell::RefCell;
use std::sync::Arc;

use super::{Exchange, Outcomes, State};
use crate::fx::FastMap;
use crate::Loadout;

/// What fixes a strike's outcomes beside the state: the IR, the two loadouts without their hit
/// points, and what the exchange was told of the distance, cover, moves and activations.
#[derive(PartialEq, Eq, Hash)]
struct PairKey {
    ir: u64,
    loadouts: [Loadout; 2],
    distance: i64,
    cover: i64,
    activated: [bool; 2],
    moved: [bool; 2],
}

/// A state as `Exchange::outcomes_memo` keys it (its phase left out) and the striking side with
/// its attack form (`side + 2 * form`).
pub(super) type StateKey = (State, usize);

/// A pair's states with their outcomes and the sides whose hit points working them out read.
type KeptStates = FastMap<StateKey, (Arc<Outcomes>, u8)>;

/// The outcomes kept on a thread: each pair's number (never given twice, so an exchange holding
/// one from before the table started over finds nothing kept by another), and by pair and
/// state, the outcomes with the sides whose hit points working them out read; how many states
/// are held, and how many times outcomes were found.
#[derive(Default)]
struct Kept {
    pairs: FastMap<PairKey, u64>,
    /// By pair: which sides' reads its states were kept with (a bit for each of the four ways,
    /// `1 << reads`: a state is looked for only those ways), and the states.
    outcomes: FastMap<u64, (u8, KeptStates)>,
    held: usize,
    next: u64,
    found: usize,
    /// The IR the table holds outcomes of: another's start it over (one ruleset's outcomes
    /// are no use to another's, and would only be carried, as `oc fairness` goes from scenario
    /// to scenario on the same threads).
    ir: u64,
}

impl Kept {
    /// Forgets every pair and outcome kept (the pairs' numbers go on, never given twice).
    fn start_over(&mut self) {
        self.pairs.clear();
        self.outcomes.clear();
        self.held = 0;
    }
}

thread_local! {
    static KEPT: RefCell<Kept> = RefCell::new(Kept::default());
}

/// The most states a thread keeps outcomes for; past it the table starts over. (Each holds its
/// outcomes alive, with what a plain walk worked out of them: at 2^16, 40 games of the shipped
/// scenario with the most figures peaked 65 MB higher.)
const KEPT_MAX: usize = 1 << 14;

impl Exchange<'_> {
    /// This exchange with its strikes' outcomes kept beyond it (and those kept before it read),
    /// where the rules allow (see the module's note). Asked once the exchange is set up.
    pub(crate) fn across(mut self) -> Self {
        let engine = self.engine;
        if !engine.ir.strategy.across || !engine.inputs.alike_but_hp() || !engine.reactions.is_empty() || engine.ir.settles {
            return self;
        }
        let key = PairKey {
            ir: engine.ir.id,
            loadouts: self.loadouts.map(|l| Loadout { hp: None, ..l.clone() }),
            distance: self.distance,
            cover: self.cover,
            activated: self.activated,
            moved: self.moved,
        };
        self.across = KEPT
            .try_with(|k| {
                let mut k = k.try_borrow_mut().ok()?;
                let k = &mut *k;
                if k.ir != key.ir {
                    k.start_over();
                    k.ir = key.ir;
                }
                if let Some(n) = k.pairs.get(&key) {
                    return Some(*n);
                }
                let n = k.next;
                k.next += 1;
                k.pairs.insert(key, n);
                Some(n)
            })
            .ok()
            .flatten();
        self
    }

    /// The outcomes kept for `key` by an exchange of the same pair, with the sides whose hit
    /// points working them out read (`Exchange::reads`): kept with the hit points of a side not
    /// read left out, so found at every amount of them. (`key` is left as it was.)
    pub(super) fn kept_across(&self, key: &mut StateKey) -> Option<(Arc<Outcomes>, u8)> {
        let pair = self.across?;
        let hp = key.0.hp;
        let found = KEPT
            .try_with(|k| {
                let mut k = k.try_borrow_mut().ok()?;
                let (ways, kept) = k.outcomes.get(&pair)?;
                // Read by neither side, the first, the second, both: at most one is kept (a
                // strike reads the same sides at every amount of what it did not read). A way no
                // state of the pair was kept with finds none: not looked up.
                let found = [0u8, 1, 2, 3].into_iter().filter(|reads| ways & (1 << reads) != 0).find_map(|reads| {
                    key.0.hp = unread(hp, reads);
                    kept.get(&*key).cloned()
                })?;
                k.found += 1;
                Some(found)
            })
            .ok()
            .flatten();
        key.0.hp = hp;
        found
    }

    /// Keeps the outcomes worked out for `key`, which read the sides `reads`, for the exchanges
    /// after this one.
    pub(super) fn keep_across(&self, key: &StateKey, outcomes: &Arc<Outcomes>, reads: u8) {
        let Some(pair) = self.across else { return };
        let _ = KEPT.try_with(|k| {
            let Ok(mut k) = k.try_borrow_mut() else { return };
            let k = &mut *k;
            if k.held >= KEPT_MAX {
                k.start_over();
                return;
            }
            k.held += 1;
            let key = (State { hp: unread(key.0.hp, reads), ..key.0.clone() }, key.1);
            let (ways, kept) = k.outcomes.entry(pair).or_default();
            *ways |= 1 << (reads & 3);
            kept.insert(key, (outcomes.clone(), reads));
        });
    }
}

/// Hit points `hp` with those of each side not in `reads` (a bit a side) left out.
fn unread([first, second]: [i64; 2], reads: u8) -> [i64; 2] {
    [if reads & 1 != 0 { first } else { i64::MIN }, if reads & 2 != 0 { second } else { i64::MIN }]
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::testing::ending_bits as bits;
    use crate::{Engine, Loadout};

    /// Every built-in ruleset's matchups (units of figures too), ended at falling hit points
    /// one after the other with the strikes' outcomes kept across the exchanges and worked out
    /// afresh in each: the same bits. And the Storm's finds some kept.
    #[test]
    fn outcomes_kept_across_exchanges_end_as_fresh_ones() {
        let hps: [[Option<i64>; 2]; 6] =
            [[None, None], [None, Some(7)], [Some(4), Some(7)], [Some(4), Some(3)], [Some(2), Some(2)], [Some(1), Some(1)]];
        for (name, index) in oc_compiler::stdlib::RULESETS {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let on = Engine::new(rules.clone()).expect("runs");
            let mut off = Engine::new(rules).expect("runs");
            off.ir.strategy.across = false;
            let matchups: Vec<_> = crate::testing::matchups(&on).into_iter().filter(|m| m.2.hp.is_none()).collect();
            let figures = [(1, 1), (4, 1), (3, 5)];
            let variants =
                figures.iter().flat_map(|f| matchups.iter().step_by(if *f == (1, 1) { 2 } else { 7 }).map(move |m| (f, m)));
            let (mut compared, before) = (0, super::KEPT.with(|k| k.borrow().found));
            for (&(na, nd), (label, a, d, r)) in variants {
                let (a, d) = (Loadout { figures: na, ..a.clone() }, Loadout { figures: nd, ..d.clone() });
                for single in [false, true] {
                    for hp in hps {
                        let (ha, hd) = (Loadout { hp: hp[0], ..a.clone() }, Loadout { hp: hp[1], ..d.clone() });
                        let (Ok(x), Ok(y)) = (
                            on.ending_shared(&ha, &hd, *r, single, (false, 0)),
                            off.ending_shared(&ha, &hd, *r, single, (false, 0)),
                        ) else {
                            continue;
                        };
                        assert_eq!(
                            bits(&x),
                            bits(&y),
                            "{name}: {label} ({na}) vs {} ({nd}) at {hp:?} (single {single})",
                            d.class
                        );
                        compared += 1;
                    }
                }
            }
            let found = super::KEPT.with(|k| k.borrow().found) - before;
            eprintln!("{name}: {compared} endings compared, {found} strikes found kept");
            assert!(compared > 100, "{name}: {compared} endings compared");
            if *name == "battlestorm" {
                assert!(found > 100, "{name}: {found} strikes found kept");
            }
        }
    }
}
