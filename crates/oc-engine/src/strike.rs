//! The exchange's environment for the one evaluator (`eval::Env`): a strike, its dice drawn,
//! its units' attributes with the state's hit points and resources held beside them, and the
//! formulas each unit works out once for itself (`Unit::solo`, `Unit::staged`).

use crate::eval::Env;
use crate::ir::{Ir, Reads, Role, E, V};
use crate::unit::{Input, Unit};

/// Everything an expression can see.
pub struct Ctx<'a> {
    pub ir: &'a Ir,
    pub units: [&'a Unit; 2],
    pub attrs: [&'a [V]; 2],
    /// Attributes the exchange's state holds (hit points, resources), read in place of `attrs`:
    /// (attribute, value), a later entry winning.
    pub held: [&'a [(u16, V)]; 2],
    pub attacker: usize,
    pub holder: usize,
    /// This strike's draw of every die slot (`Ir::dice`); empty outside a strike.
    pub rolls: &'a [i64],
    pub dealt: i64,
    pub distance: i64,
    pub triangle: i64,
    /// Whether each side's unit has had its activation this round (a battle's state; outside
    /// one, neither: `Exchange::activated`).
    pub activated: [bool; 2],
    /// Whether each side's unit moved in the step that made the attack (`Exchange::moved`).
    pub moved: [bool; 2],
    /// How hidden the struck unit is from the striker (`Exchange::cover`).
    pub cover: i64,
    /// Whether a formula that reads one unit alone may be taken from that unit (`Unit::solo`)
    /// where the attributes read are the unit's own: in an exchange, whose units are whole.
    pub solo: bool,
    /// Set when an evaluation reads an attribute the exchange's state holds (hit points, a
    /// resource): what it computed is then good only for that state. Left unset, the result
    /// holds for every amount of them (`Exchange` caches it once for all). A bit for each side
    /// read (1 the first, 2 the second).
    pub reads: Option<&'a std::cell::Cell<u8>>,
}

impl Ctx<'_> {
    /// The values of the formulas `inputs` (a strike's outcome inputs, `Ir::outcome_inputs`),
    /// each kept in `cache` as [`Ctx::formula`] keeps it: the same values, the same formulas
    /// worked out on the way and the same reads noted. Where the striker's attributes are its own,
    /// read from its staged list of them (`Unit::inputs`): a value, or the rest of a staged
    /// formula evaluated, without asking the formula which way to take.
    pub(crate) fn inputs(&self, inputs: &[u16], cache: &mut [Option<V>]) -> smallvec::SmallVec<[V; 8]> {
        let staged = self.striker_inputs().filter(|s| s.len() == inputs.len());
        let Some(staged) = staged else { return inputs.iter().map(|f| self.formula(*f, cache)).collect() };
        let mut out = smallvec::SmallVec::new();
        for (f, input) in inputs.iter().zip(staged) {
            let i = *f as usize;
            let v = match (cache.get(i), input) {
                (Some(Some(v)), _) => *v,
                (_, Input::Asked) | (None, _) => self.formula(*f, cache),
                (Some(None), Input::Known(v)) => *v,
                (Some(None), Input::Staged) => match self.units.get(self.attacker).and_then(|u| u.staged(self.ir, i)) {
                    Some(e) => self.eval(e, &[], cache),
                    None => self.formula(*f, cache),
                },
            };
            if let Some(slot) = cache.get_mut(i) {
                *slot = Some(v);
            }
            out.push(v);
        }
        out
    }

    /// The striker's staged outcome inputs (`Unit::inputs`), where its attributes in this
    /// evaluation are its own and formulas are staged.
    fn striker_inputs(&self) -> Option<&[Input]> {
        if !self.solo || !self.ir.strategy.staging || !self.ir.strategy.staged_inputs {
            return None;
        }
        let (unit, attrs) = (self.units.get(self.attacker)?, self.attrs.get(self.attacker)?);
        if !std::ptr::eq(*attrs, &unit.attrs[..]) {
            return None;
        }
        unit.inputs(self.ir)
    }

    /// Attribute `attr` of the unit on `side`: the state's value where it holds one, noting the
    /// read (see [`Ctx::reads`]).
    #[inline]
    fn attr(&self, side: usize, attr: u16) -> V {
        if self.ir.state_attrs.get(attr as usize).copied().unwrap_or(false) {
            if let Some(r) = self.reads {
                r.set(r.get() | if side == 0 { 1 } else { 2 });
            }
            let held = self.held.get(side).and_then(|h| h.iter().rev().find(|(a, _)| *a == attr));
            if let Some((_, v)) = held {
                return *v;
            }
        }
        self.attrs.get(side).and_then(|a| a.get(attr as usize)).copied().unwrap_or(V::Int(0))
    }

    fn side(&self, role: Role) -> usize {
        match role {
            Role::Holder => self.holder,
            Role::Foe | Role::Target => 1 - self.holder,
            Role::Attacker => self.attacker,
            Role::Defender => 1 - self.attacker,
        }
    }

    /// Formula `f`'s value, remembered in `cache` (what `E::Formula(f)` evaluates to, without
    /// building and dropping that expression).
    #[inline]
    pub fn formula(&self, f: u16, cache: &mut [Option<V>]) -> V {
        match cache.get(f as usize) {
            Some(Some(v)) => *v,
            _ => self.formula_uncached(f, cache),
        }
    }

    /// [`Ctx::formula`] not yet in `cache`: worked out and kept there.
    fn formula_uncached(&self, f: u16, cache: &mut [Option<V>]) -> V {
        let i = f as usize;
        let v = match self.ir.formulas.get(i) {
            // One that reads dice: whole. One unit's: as that unit worked it out. Both units':
            // as the striker staged it.
            Some(formula) if formula.dice != 0 => self.eval(&formula.expr, &[], cache),
            Some(formula) => match (formula.reads, self.solo(formula.reads, i)) {
                (_, Some(v)) => v,
                (crate::ir::Reads::Both, None) => match self.staged(i) {
                    Some(e) => self.eval(e, &[], cache),
                    None => self.eval(&formula.expr, &[], cache),
                },
                _ => self.eval(&formula.expr, &[], cache),
            },
            None => V::Int(0),
        };
        if let Some(slot) = cache.get_mut(i) {
            *slot = Some(v);
        }
        v
    }

    /// Formula `i`, which reads `reads`, as the unit it reads worked it out once (`Unit::solo`):
    /// where that unit's attributes in this evaluation are its own (no `when` changed them).
    fn solo(&self, reads: crate::ir::Reads, i: usize) -> Option<V> {
        let side = reads.side(self.attacker).filter(|_| self.solo)?;
        let (unit, attrs) = (self.units.get(side)?, self.attrs.get(side)?);
        if !std::ptr::eq(*attrs, &unit.attrs[..]) {
            return None;
        }
        unit.solo_value(self.ir, i)
    }

    /// Formula `i`, which reads both units and no die, as its striker staged it
    /// (`Unit::staged`): where the striker's attributes in this evaluation are its own.
    fn staged(&self, i: usize) -> Option<&E> {
        if !self.solo || !self.ir.strategy.staging {
            return None;
        }
        let (unit, attrs) = (self.units.get(self.attacker)?, self.attrs.get(self.attacker)?);
        if !std::ptr::eq(*attrs, &unit.attrs[..]) {
            return None;
        }
        unit.staged(self.ir, i)
    }

    /// Evaluates `e` (`eval::eval` in this strike). `cache` holds combat formulas already
    /// computed for this roll.
    #[inline]
    pub fn eval(&self, e: &E, params: &[V], cache: &mut [Option<V>]) -> V {
        crate::eval::eval(self, e, params, cache)
    }
}

/// The exchange's environment: a strike, its dice drawn (`rolls`), its units' attributes with
/// the state's hit points and resources held beside them.
impl Env for Ctx<'_> {
    #[inline]
    fn ir(&self) -> &Ir {
        self.ir
    }
    #[inline]
    fn side(&self, role: Role) -> usize {
        Ctx::side(self, role)
    }
    #[inline]
    fn unit(&self, side: usize) -> &Unit {
        self.units[side]
    }
    #[inline]
    fn attr(&self, side: usize, attr: u16) -> V {
        Ctx::attr(self, side, attr)
    }
    #[inline]
    fn roll(&self, slot: u8) -> i64 {
        self.rolls.get(slot as usize).copied().unwrap_or(0)
    }
    /// Drawn with the strike's other dice (`combat::outcomes`): the expression is not read again.
    #[inline]
    fn roll_value(&self, slot: u8, _dice: impl FnOnce() -> V) -> i64 {
        self.rolls.get(slot as usize).copied().unwrap_or(0)
    }
    #[inline]
    fn distance(&self) -> i64 {
        self.distance
    }
    fn cover(&self) -> i64 {
        self.cover
    }
    #[inline]
    fn triangle(&self) -> i64 {
        self.triangle
    }
    #[inline]
    fn dealt(&self) -> i64 {
        self.dealt
    }
    #[inline]
    fn activated(&self, side: usize) -> bool {
        self.activated.get(side).copied().unwrap_or(false)
    }

    fn moved(&self, side: usize) -> bool {
        self.moved.get(side).copied().unwrap_or(false)
    }
    #[inline]
    fn formula(&self, f: u16, cache: &mut [Option<V>]) -> V {
        Ctx::formula(self, f, cache)
    }
}

impl Unit {
    /// What formula `i`, which reads this unit alone, comes to for it: worked out on first use,
    /// with the unit in both roles (such a formula reads only one of them). `None` for another
    /// IR than the one that first asked.
    pub(crate) fn solo_value(&self, ir: &Ir, i: usize) -> Option<V> {
        let slot = self.solo.slot(ir, i)?;
        if let Some(v) = slot.get() {
            return Some(*v);
        }
        let v = self.alone(ir).eval(&ir.formulas.get(i)?.expr, &[], &mut []);
        Some(*slot.get_or_init(|| v))
    }

    /// Formula `i`, which reads both units, staged for this unit as the striker: worked out on
    /// first use. `None` for another IR than the one that first asked.
    pub(crate) fn staged(&self, ir: &Ir, i: usize) -> Option<&E> {
        let slot = self.staged.slot(ir, i)?;
        if let Some(e) = slot.get() {
            return Some(e);
        }
        let expr = &ir.formulas.get(i)?.expr;
        let ctx = self.alone(ir);
        let fold = |e: &E| ctx.eval(e, &[], &mut []);
        let staged = ir.stage(expr, &fold).unwrap_or_else(|| E::Const(fold(expr)));
        Some(slot.get_or_init(|| staged))
    }

    /// The inputs of a strike's outcomes (`Ir::outcome_inputs`) staged for this unit as the
    /// striker ([`Input`]), worked out on first use: each reading it alone its value, each
    /// reading both units staged. `None` for another IR than the one that first asked, or
    /// where the rules' strikes have no such inputs.
    pub(crate) fn inputs(&self, ir: &Ir) -> Option<&[Input]> {
        let made = self.inputs.get_or_init(ir, || {
            let inputs = ir.outcome_inputs.as_deref()?;
            inputs
                .iter()
                .map(|f| {
                    let i = *f as usize;
                    let formula = ir.formulas.get(i)?;
                    Some(match formula.reads {
                        Reads::Neither | Reads::Attacker if formula.dice == 0 => Input::Known(self.solo_value(ir, i)?),
                        Reads::Both if formula.dice == 0 => {
                            self.staged(ir, i)?;
                            Input::Staged
                        }
                        _ => Input::Asked,
                    })
                })
                .collect()
        });
        made?.as_deref()
    }

    /// This unit in both roles, alone: what a formula reading it alone is evaluated in.
    fn alone<'a>(&'a self, ir: &'a Ir) -> Ctx<'a> {
        Ctx {
            ir,
            units: [self, self],
            attrs: [&self.attrs, &self.attrs],
            held: [&[], &[]],
            attacker: 0,
            holder: 0,
            rolls: &[],
            dealt: 0,
            distance: 0,
            triangle: 0,
            activated: [false; 2],
            moved: [false; 2],
            cover: 0,
            // The formulas it refers to read this unit alone too: each taken from (or worked
            // out into) its own slot, once, not again at every reference.
            solo: true,
            reads: None,
        }
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    /// Every matchup of every built-in ruleset, its strikes' outcome inputs read from their
    /// striker's staged list (`Unit::inputs`) and each asked of its formula: the same bits. And
    /// seed 000's strikes have such lists.
    #[test]
    fn staged_inputs_equal_asked_ones() {
        crate::testing::agree_with(
            |asked| asked.ir.strategy.staged_inputs = false,
            |k, name, on| {
                if k == 0 {
                    let (_, a, _, _) = crate::testing::matchups(on).into_iter().next().expect("a matchup");
                    let unit = on.unit(&a, &[]).expect("a unit");
                    let inputs = unit.inputs(&on.ir).expect("staged inputs");
                    eprintln!("{name}: {inputs:?}");
                    assert!(inputs.iter().any(|i| matches!(i, crate::unit::Input::Known(_))), "{name}: no input known");
                }
            },
        );
    }
}
