//! Plain walks kept on a thread by what they walk: where every striker's outcomes are fixed
//! (worked out reading no hit points), a plain walk (`plain::run`) is a pure function of those
//! outcomes, the order of strikes and the hit points it begins from. Outcome lists are shared by
//! what they read (`outcomes::TABLE`), so matchups of other units whose strikes come to the same
//! outcomes walk alike: of the 2,116 matchups of a matrix of the first seed's classes, 963 walk
//! apart and the rest find their walk here, with its sides' final hit points summed once
//! (`play::Walk`). The same bits as a walk worked out afresh
//! (`tests::walks_found_kept_are_walks_worked_out_afresh`). A template's walks (the AIs' hurt
//! units) are not kept: they are rarely asked again from the same hit points.

use super::plain::Finals;
use super::*;

/// A plain walk's key where every striker's outcomes are fixed (`plain::run`): each side's
/// outcomes (their list's place, which the entry holds, and their denominator's bits; none for
/// a side that never strikes), the strikers in order (a bit each, under a leading bit), and
/// where it begins. `None` where a striker's outcomes are worked out by hit points, or past 62 strikes.
pub(super) fn key(from: [i64; 2], strikers: &[u8], fixed: [Option<&Outcomes>; 2]) -> Option<WalkKey> {
    if strikers.len() > 62 {
        return None;
    }
    let mut order = 1u64;
    for &side in strikers {
        fixed.get(usize::from(side)).copied().flatten()?;
        order = order << 1 | u64::from(side & 1);
    }
    let of = |o: Option<&Outcomes>| o.map_or((0, 0), |o| (Arc::as_ptr(&o.list) as *const u8 as usize, o.den.to_bits()));
    let [a, d] = fixed;
    Some((of(a), of(d), order, from))
}

/// See [`key`].
pub(super) type WalkKey = ((usize, u64), (usize, u64), u64, [i64; 2]);

/// A thread's plain walks by [`WalkKey`], each with the outcome lists its key names (held, so no
/// other list takes their place while the entry lasts).
type Walks = FastMap<WalkKey, ([Option<OutcomeList>; 2], Finals)>;

thread_local! {
    /// Plain walks whose strikers' outcomes were all fixed, by [`WalkKey`].
    static WALKS: std::cell::RefCell<Walks> = std::cell::RefCell::new(FastMap::default());
    /// How many walks were found kept on this thread.
    static FOUND: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The most walks a thread keeps; past it they start over (a matrix of the first seed's 46
/// classes walks 963 apart).
const WALKS_MAX: usize = 1 << 12;

/// The final states of the walk `key` names, where one is kept.
pub(super) fn walked(key: &WalkKey) -> Option<Finals> {
    let done = WALKS.try_with(|w| w.try_borrow().ok().and_then(|w| w.get(key).map(|(_, done)| done.clone()))).ok().flatten()?;
    let _ = FOUND.try_with(|f| f.set(f.get() + 1));
    Some(done)
}

/// Keeps a walk's final states `done` under `key`, with the outcome lists it names (`fixed`).
pub(super) fn keep(key: WalkKey, fixed: [Option<&Outcomes>; 2], done: &Finals) {
    let lists = fixed.map(|o| o.map(|o| o.list.clone()));
    let _ = WALKS.try_with(|w| {
        let Ok(mut table) = w.try_borrow_mut() else { return };
        if table.len() >= WALKS_MAX {
            table.clear();
        }
        table.insert(key, (lists, done.clone()));
    });
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::Engine;

    /// Every matchup of every built-in ruleset forecast with no walk kept (each forgotten before
    /// it), then on a fresh engine with the walks of the matchups before it kept: the same bits.
    /// And the first seed's matchups find walks kept (strikes of other units come to the same
    /// outcomes).
    #[test]
    fn walks_found_kept_are_walks_worked_out_afresh() {
        for (k, (name, index)) in oc_compiler::stdlib::RULESETS.iter().enumerate() {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let forecasts = |forget: bool| {
                let engine = Engine::new(rules.clone()).expect("runs");
                let mut out = Vec::new();
                let forget = || {
                    if forget {
                        super::WALKS.with(|w| w.borrow_mut().clear());
                    }
                };
                for (_, a, d, r) in crate::testing::matchups(&engine) {
                    let Ok(x) = crate::Exchange::new(&engine, &a, &d, r) else { continue };
                    forget();
                    let forecast = x.forecast().bits();
                    forget();
                    let o = x.odds();
                    let odds = [o.attacker_routed, o.defender_routed, o.attacker_damage_taken, o.defender_damage_taken]
                        .map(f64::to_bits);
                    forget();
                    out.push((forecast, odds, crate::testing::ending_bits(&x.ending())));
                }
                out
            };
            let afresh = forecasts(true);
            let before = super::FOUND.with(std::cell::Cell::get);
            let kept = forecasts(false);
            let found = super::FOUND.with(std::cell::Cell::get) - before;
            assert_eq!(afresh.len(), kept.len(), "{name}");
            for (i, (f, k)) in afresh.iter().zip(&kept).enumerate() {
                assert_eq!(f.0, k.0, "{name}: matchup {i}, forecast");
                assert_eq!(f.1, k.1, "{name}: matchup {i}, odds");
                assert_eq!(f.2, k.2, "{name}: matchup {i}, ending");
            }
            if k == 0 {
                assert!(found * 4 > kept.len(), "{name}: {found} walks found kept of {}", kept.len());
            }
            eprintln!("{name}: {} matchups, {found} walks found kept", kept.len());
        }
    }
}
