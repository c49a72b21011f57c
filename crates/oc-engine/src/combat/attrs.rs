//! A strike's attributes: each unit's own, borrowed, with what the exchange's state holds (hit
//! points, resources) laid over them; a copy only where a `when` or a reaction changes some.
//! Before, every strike, flag and trigger copied both units' attributes to write the hit points in.

use std::borrow::Cow;

use smallvec::SmallVec;

use super::{Exchange, State, MAX_RES};
use crate::eval::{apply, target_attr};
use crate::ir::{Eff, V};
use crate::strike::Ctx;
use crate::unit::Unit;

/// What the state holds of one unit's attributes: (attribute, value), read in place of the
/// unit's own (`Ctx::held`). Hit points first, then the resources: a later entry wins.
#[derive(Clone, Copy)]
pub(super) struct Held {
    len: u8,
    items: [(u16, V); 1 + MAX_RES],
}

impl Held {
    const NONE: Held = Held { len: 0, items: [(0, V::Int(0)); 1 + MAX_RES] };

    fn push(&mut self, attr: u16, v: V) {
        if let Some(slot) = self.items.get_mut(self.len as usize) {
            *slot = (attr, v);
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[(u16, V)] {
        self.items.get(..self.len as usize).unwrap_or_default()
    }
}

/// Both units' attributes for one strike.
pub(super) struct Attrs<'u> {
    vals: [Cow<'u, [V]>; 2],
    held: [Held; 2],
}

impl Attrs<'_> {
    /// Copies of both units' attributes with the held values written in (what a `when` or a
    /// reaction then changes).
    pub(super) fn copied(&self) -> [Vec<V>; 2] {
        let mut out = [self.vals[0].to_vec(), self.vals[1].to_vec()];
        for (attrs, held) in out.iter_mut().zip(&self.held) {
            for (attr, v) in held.as_slice() {
                if let Some(slot) = attrs.get_mut(*attr as usize) {
                    *slot = *v;
                }
            }
        }
        out
    }

    /// The units' own attributes, borrowed, with nothing the state holds laid over them: a
    /// strike's for an evaluation that reads none of that, where no `when` changes either unit.
    pub(super) fn own<'u>(units: [&'u Unit; 2]) -> Attrs<'u> {
        Attrs { vals: [Cow::Borrowed(&units[0].attrs[..]), Cow::Borrowed(&units[1].attrs[..])], held: [Held::NONE; 2] }
    }

    /// Whether both sides' attributes are `units`' own, borrowed (no `when` or reaction changed
    /// them).
    pub(super) fn own_of(&self, units: [&Unit; 2]) -> bool {
        self.vals.iter().zip(units).all(|(v, u)| matches!(v, Cow::Borrowed(v) if std::ptr::eq(*v, &u.attrs[..])))
    }

    /// Attributes worked out whole (held values written in).
    pub(super) fn owned(vals: [Vec<V>; 2]) -> Attrs<'static> {
        let [a, b] = vals;
        Attrs { vals: [Cow::Owned(a), Cow::Owned(b)], held: [Held::NONE; 2] }
    }
}

/// What a strike's `when`s are judged on: the striker, the two units (by place: the exchange
/// holds them while it lasts), the state's hit points and resources.
type WhenKey = (usize, [usize; 2], [i64; 2], [[i32; MAX_RES]; 2]);

/// What the `when`s made of a strike's attributes (`None`: none held), by [`WhenKey`], and
/// the sides whose state working it out read (`Ctx::reads`).
pub(super) struct WhenKept {
    key: WhenKey,
    vals: Option<[Vec<V>; 2]>,
    reads: u8,
}

/// The most [`WhenKept`] an exchange keeps (most ask at a state or two).
const KEPT_WHENS: usize = 16;

impl Exchange<'_> {
    /// What `state` holds of `side`'s attributes, written into `held` (empty): its hit points
    /// and resources (only those the unit has a slot for, as writing them into a copy did).
    /// Filled in place: a `Held` moved by value is a call to `memcpy`, and strikes and flags
    /// make these by the hundred thousand.
    fn held_into(&self, held: &mut Held, unit: &Unit, state: &State, side: usize) {
        let ir = &self.engine.ir;
        let has = |attr: u16| (attr as usize) < unit.attrs.len();
        if let Some(hp) = state.hp.get(side).filter(|_| has(ir.hp_attr)) {
            held.push(ir.hp_attr, V::Int(*hp));
        }
        if let Some(res) = state.res.get(side) {
            for ((attr, _), amount) in self.engine.resource_full.iter().zip(res) {
                if has(*attr) {
                    held.push(*attr, V::Int(i64::from(*amount)));
                }
            }
        }
    }

    /// Strike attributes: the units' own with the state's hit points and resources, and the
    /// strike's `when` effects applied.
    pub(super) fn strike_attrs<'u>(&self, units: [&'u Unit; 2], state: &State, attacker: usize) -> Attrs<'u> {
        // One value, built in place and returned from one place (no copies of it on the way).
        let mut out =
            Attrs { vals: [Cow::Borrowed(&units[0].attrs[..]), Cow::Borrowed(&units[1].attrs[..])], held: [Held::NONE; 2] };
        let [h0, h1] = &mut out.held;
        self.held_into(h0, units[0], state, 0);
        self.held_into(h1, units[1], state, 1);
        if units.iter().any(|u| !u.whens.is_empty()) {
            if let Some(vals) = self.when_kept(units, &out, state, attacker) {
                out.vals = vals.map(Cow::Owned);
                out.held = [Held::NONE; 2];
            }
        }
        out
    }

    /// [`Exchange::when_attrs`], kept in the exchange by what it reads (`WhenKept`): the
    /// striker, the two units and the state's hit points and resources (the exchange's own
    /// distance, triangle, cover, moves and activations being fixed), with what the state
    /// it read (`Ctx::reads`), noted again where found.
    fn when_kept(&self, units: [&Unit; 2], base: &Attrs, state: &State, attacker: usize) -> Option<[Vec<V>; 2]> {
        if !self.engine.ir.strategy.kept_whens {
            return self.when_attrs(units, base, attacker);
        }
        let key: WhenKey = (attacker, units.map(|u| u as *const Unit as usize), state.hp, state.res);
        let found = self.whens.borrow().iter().find(|k| k.key == key).map(|k| (k.vals.clone(), k.reads));
        if let Some((vals, reads)) = found {
            self.reads.set(self.reads.get() | reads);
            return vals;
        }
        let before = self.reads.replace(0);
        let vals = self.when_attrs(units, base, attacker);
        let reads = self.reads.get();
        self.reads.set(before | reads);
        let mut kept = self.whens.borrow_mut();
        if kept.len() < KEPT_WHENS {
            kept.push(WhenKept { key, vals: vals.clone(), reads });
        }
        vals
    }

    /// Both units' attributes with the strike's `when` effects applied (held values written in),
    /// where any `when` holds; `None` where none does (then the strike's attributes are the
    /// units' own, borrowed: no copy, and a formula reading one unit alone is taken from that
    /// unit, `Unit::solo`).
    fn when_attrs(&self, units: [&Unit; 2], base: &Attrs, attacker: usize) -> Option<[Vec<V>; 2]> {
        // Which `when`s hold, each judged on the units' own attributes (as their effects are
        // worked out).
        let mut holding: SmallVec<[(usize, usize); 8]> = SmallVec::new();
        for (holder, unit) in units.iter().enumerate() {
            for (k, (args, condition, _)) in unit.whens.iter().enumerate() {
                let mut ctx = self.ctx(units, base, attacker, &[]);
                ctx.holder = holder;
                if ctx.eval(condition, args, &mut []).bool() {
                    holding.push((holder, k));
                }
            }
        }
        if holding.is_empty() {
            return None;
        }
        let mut out = base.copied();
        for (holder, k) in holding {
            let Some((args, _, then)) = units.get(holder).and_then(|u| u.whens.get(k)) else { continue };
            let mut ctx = self.ctx(units, base, attacker, &[]);
            ctx.holder = holder;
            apply_strike_effects(&ctx, then, args, &mut out);
        }
        Some(out)
    }

    pub(super) fn ctx<'a>(&'a self, units: [&'a Unit; 2], attrs: &'a Attrs<'_>, attacker: usize, rolls: &'a [i64]) -> Ctx<'a> {
        Ctx {
            ir: &self.engine.ir,
            units,
            attrs: [&attrs.vals[0], &attrs.vals[1]],
            held: [attrs.held[0].as_slice(), attrs.held[1].as_slice()],
            attacker,
            holder: attacker,
            rolls,
            dealt: 0,
            distance: self.distance,
            triangle: self.triangle[attacker],
            activated: self.activated,
            moved: self.moved,
            cover: self.cover,
            solo: true,
            reads: Some(&self.reads),
        }
    }
}

pub(super) fn apply_strike_effects(ctx: &Ctx, effects: &[Eff], args: &[V], out: &mut [Vec<V>; 2]) {
    for e in effects {
        match e {
            Eff::Modify { role, attr, op, value } => {
                let side = match role {
                    crate::ir::Role::Holder => ctx.holder,
                    crate::ir::Role::Foe | crate::ir::Role::Target => 1 - ctx.holder,
                    crate::ir::Role::Attacker => ctx.attacker,
                    crate::ir::Role::Defender => 1 - ctx.attacker,
                };
                let v = ctx.eval(value, args, &mut []);
                if let Some(slot) = target_attr(*attr, args).and_then(|i| out[side].get_mut(i)) {
                    *slot = apply(ctx.ir, *slot, *op, v);
                }
            }
            Eff::When { condition, then } if ctx.eval(condition, args, &mut []).bool() => {
                apply_strike_effects(ctx, then, args, out);
            }
            _ => {}
        }
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::Exchange;

    /// Every matchup of every built-in ruleset forecast with the `when`s' work kept in the
    /// exchange (`Strategy::kept_whens`) and judged again at each ask: the same bits; and
    /// resolved with a few seeds: the same strikes, the same ends.
    #[test]
    fn kept_whens_equal_judged_ones() {
        crate::testing::agree_with(
            |fresh| fresh.ir.strategy.kept_whens = false,
            |_, name, on| {
                let mut off = crate::Engine::new(on.rules.clone()).expect("runs");
                off.ir.strategy.kept_whens = false;
                for (label, a, d, r) in crate::testing::matchups(on).into_iter().step_by(5) {
                    let (Ok(x), Ok(y)) = (Exchange::new(on, &a, &d, r), Exchange::new(&off, &a, &d, r)) else { continue };
                    for seed in 0..3 {
                        let (p, q) = (x.resolve_all(&mut crate::dice::rng(seed)), y.resolve_all(&mut crate::dice::rng(seed)));
                        assert_eq!(p, q, "{name}: {label} against {} (hp {:?}), seed {seed}", d.class, d.hp);
                    }
                }
            },
        );
    }

    /// A `when` that reads hit points, on both units of exchanges where the strikes take them
    /// across its line: the work kept by state gives the bits of the work judged at every ask,
    /// and the `when` is live (the exchange differs from the same units without it).
    #[test]
    fn kept_whens_follow_hit_points() {
        let text = "import \"std:ratings\"\n\
            tag Desperate on class doc \"Fiercer when hurt.\" { when attacker == self and self.hp < 15 { damage_bonus += 5 } }";
        let mut ws = oc_compiler::Workspace::new();
        let (c, _) = ws.compile(&mut oc_compiler::MemoryHost::one("t.oc", text), &["t.oc".to_string()]);
        let rules = c.rules.unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
        let on = crate::Engine::new(rules.clone()).expect("runs");
        let mut off = crate::Engine::new(rules).expect("runs");
        off.ir.strategy.kept_whens = false;
        let mut live = 0;
        for (a, d) in [("Lord", "Cavalier"), ("Cavalier", "Lord"), ("Lord", "Lord")] {
            for hp in [Some(16), Some(18), Some(20), None] {
                let unit = |class: &str, tagged: bool| {
                    let l = crate::Loadout::new(class, Some("IronSword"));
                    let tags = if tagged { vec![("Desperate".into(), vec![])] } else { Vec::new() };
                    crate::Loadout { tags, hp, ..l }
                };
                let (ta, td, pa, pd) = (unit(a, true), unit(d, true), unit(a, false), unit(d, false));
                let (Ok(x), Ok(y), Ok(z)) = (on.forecast(&ta, &td, 1), off.forecast(&ta, &td, 1), on.forecast(&pa, &pd, 1))
                else {
                    panic!("{a} against {d} forecasts");
                };
                assert_eq!(x.bits(), y.bits(), "{a} against {d} at {hp:?}");
                live += usize::from(x.bits() != z.bits());
            }
        }
        assert!(live > 0, "the `when` changed no exchange");
    }

    /// The same with flags that read nothing the state holds worked out on the units' own
    /// attributes (`Strategy::own_flags`) and on the strike's.
    #[test]
    fn own_flags_equal_strike_ones() {
        crate::testing::agree_with(|fresh| fresh.ir.strategy.own_flags = false, |_, _, _| {});
    }
}
