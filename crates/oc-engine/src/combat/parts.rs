//! A strike's parts (`Ir::valued_inputs`, what its outcomes are looked up by where they read
//! more than dice-free formulas): those that read no hit points nor resources are the same at
//! every state of an exchange with the same units, striker and strike attributes, so each
//! exchange works them out once for each of those (`Strategy::kept_parts`), the others at every
//! state.

use smallvec::SmallVec;

use super::Exchange;
use crate::ir::{E, V};
use crate::strike::Ctx;
use crate::unit::Unit;

/// What fixes the values of a strike's parts that read no hit points nor resources, with the
/// strike's attributes: the two units (by address), the striker, what the exchange was told of
/// the cover, the moves and the activations, and whether each side's attributes are its unit's
/// own.
pub(super) type PartsKey = (usize, usize, usize, i64, [[bool; 2]; 3]);

/// A strike's parts' values kept in an exchange (`Exchange::part_values`): by [`PartsKey`] and
/// the attributes of each side whose attributes a `when` changed.
pub(super) type Kept = (PartsKey, [Option<Vec<V>>; 2], Vec<V>);

/// The most [`Kept`] an exchange keeps (most keep one or two).
const KEPT_PARTS: usize = 16;

thread_local! {
    /// [`free_parts`] of the IR last asked about on this thread: (its id, the parts).
    static FREE_PARTS: std::cell::Cell<Option<(u64, u64)>> = const { std::cell::Cell::new(None) };
}

/// Which of a strike's parts (`Ir::valued_inputs`, the first 64) read no attribute an exchange's
/// state holds (hit points, resources), directly or through formulas: a bit each.
fn free_parts(ir: &crate::ir::Ir) -> u64 {
    if let Ok(Some((id, free))) = FREE_PARTS.try_with(std::cell::Cell::get) {
        if id == ir.id {
            return free;
        }
    }
    let parts = ir.valued_inputs.as_deref().unwrap_or_default();
    let free = parts
        .iter()
        .take(64)
        .enumerate()
        .filter(|(_, e)| !crate::inputs::reads_state(ir, e, 64))
        .fold(0u64, |bits, (n, _)| bits | 1 << n);
    let _ = FREE_PARTS.try_with(|c| c.set(Some((ir.id, free))));
    free
}

impl Exchange<'_> {
    /// The values of a strike's parts (`Ir::valued_inputs`) in `ctx`. Those that read no hit
    /// points nor resources ([`free_parts`]) are the same at every state with the same units,
    /// striker and strike attributes but for hit points and resources (those a `when` changed
    /// compared slot by slot, the others by their unit): kept in the exchange ([`Kept`]) and
    /// read again, the others worked out each time.
    pub(super) fn part_values(&self, parts: &[E], ctx: &Ctx, cache: &mut [Option<V>]) -> SmallVec<[V; 8]> {
        let ir = &self.engine.ir;
        let free = if ir.strategy.kept_parts { free_parts(ir) } else { 0 };
        let work_out = |cache: &mut [Option<V>]| parts.iter().map(|e| ctx.eval(e, &[], cache)).collect::<SmallVec<[V; 8]>>();
        if free == 0 {
            return work_out(cache);
        }
        // The units by address: the exchange holds every unit it strikes with (`base`, `forms`,
        // `units`) as long as it lives.
        let address = |u: &Unit| u as *const Unit as usize;
        let own = [0, 1].map(|s| std::ptr::eq(&ctx.units[s].attrs[..], ctx.attrs[s]));
        let key: PartsKey =
            (address(ctx.units[0]), address(ctx.units[1]), ctx.attacker, ctx.cover, [ctx.moved, ctx.activated, own]);
        // Two attributes alike where neither is one an exchange's state holds.
        let alike = |a: &[V], b: &[V]| {
            a.len() == b.len()
                && a.iter().zip(b).enumerate().all(|(k, (x, y))| x == y || ir.state_attrs.get(k).copied().unwrap_or(false))
        };
        let matches = |(k, attrs, _): &Kept| {
            *k == key && (0..2).all(|s| own[s] || attrs[s].as_deref().is_some_and(|a| alike(a, ctx.attrs[s])))
        };
        {
            let kept = self.parts.borrow();
            if let Some((_, _, values)) = kept.iter().find(|k| matches(k)).filter(|(_, _, v)| v.len() == parts.len()) {
                // Worked out in `ctx` alone (no part reads this exchange's kept parts).
                return parts
                    .iter()
                    .zip(values)
                    .enumerate()
                    .map(|(n, (e, v))| if n < 64 && free & (1 << n) != 0 { *v } else { ctx.eval(e, &[], cache) })
                    .collect();
            }
        }
        let values = work_out(cache);
        let mut kept = self.parts.borrow_mut();
        if kept.len() < KEPT_PARTS {
            let attrs = [0, 1].map(|s| (!own[s]).then(|| ctx.attrs[s].to_vec()));
            kept.push((key, attrs, values.iter().copied().collect()));
        }
        values
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::{Engine, Loadout};

    /// The parts of a strike's key that read no hit points kept for each exchange
    /// (`Strategy::kept_parts`) and worked out at every state: the same bits, in every built-in
    /// ruleset whose strikes are looked up by their parts, at full and low hit points.
    #[test]
    fn kept_parts_equal_worked_out_ones() {
        let mut compared = 0;
        for (name, index) in oc_compiler::stdlib::RULESETS {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let on = Engine::new(rules.clone()).expect("runs");
            if on.ir.valued_inputs.is_none() {
                continue;
            }
            let mut off = Engine::new(rules).expect("runs");
            off.ir.strategy.kept_parts = false;
            for (label, a, d, r) in crate::testing::matchups(&on).into_iter().step_by(5) {
                for (fa, fd, hp) in [(1, 4, None), (3, 5, Some(2)), (2, 1, Some(1))] {
                    let a = Loadout { figures: fa, ..a.clone() };
                    let d = Loadout { figures: fd, hp: hp.or(d.hp), ..d.clone() };
                    let (Ok(x), Ok(y)) = (on.forecast(&a, &d, r), off.forecast(&a, &d, r)) else { continue };
                    assert_eq!(x.bits(), y.bits(), "{name}: {label} ({fa}) against {} ({fd}, hp {:?})", d.class, d.hp);
                    compared += 1;
                }
            }
        }
        assert!(compared > 100, "{compared} forecasts compared");
    }
}
