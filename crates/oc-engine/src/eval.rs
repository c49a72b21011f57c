//! The one evaluator of the model's expressions, and what an evaluation reads: an [`Env`], which
//! the exchange (`strike::Ctx`: a strike with its dice drawn) and the battle (`battle::scene`: an
//! event, an action or a step, with its dice drawn as they are read) each implement. Every
//! expression the engine runs — combat formulas, strike modifiers, triggers, actions and their
//! requirements, status clears, resources, a step's price, reactions — is lowered into the IR
//! (`Ir::expr`) and evaluated here.

use oc_model as m;

use crate::ir::{AttrTarget, Ir, Op, Role, WeaponProp, E, V};
use crate::unit::Unit;

/// What an evaluation reads besides the expression: the two units in play (side 0 and 1), their
/// attributes and the state that holds some of them, the dice, and the place of the strike or
/// action. The compiler lets each context read only what its environment has
/// (`oc_model::conformance::scope`), so no method here is asked for what is not there.
pub(crate) trait Env {
    fn ir(&self) -> &Ir;
    /// The side (0 or 1) a role names.
    fn side(&self, role: Role) -> usize;
    /// The unit on `side`, with its derived stats.
    fn unit(&self, side: usize) -> &Unit;
    /// Attribute `attr` of the unit on `side`, as the state in play holds it (hit points,
    /// resources) or as the unit has it.
    fn attr(&self, side: usize, attr: u16) -> V;
    /// This strike's or event's draw of die slot `slot` (`Ir::dice`).
    fn roll(&self, slot: u8) -> i64;
    /// This strike's or event's draw of slot `slot`, whose dice are `dice`'s value (`roll(x.absorption)`).
    fn roll_value(&self, slot: u8, dice: impl FnOnce() -> V) -> i64;
    /// Tiles between the two units (or the unit and the tile it acts on).
    fn distance(&self) -> i64;
    /// How hidden the struck unit is from the striker (0, 1 or 2).
    fn cover(&self) -> i64;
    /// The weapon triangle of the striker against the unit struck.
    fn triangle(&self) -> i64;
    /// The damage the strike in progress dealt.
    fn dealt(&self) -> i64;
    /// The strike's result on the ruleset's charts (`on chart`); 0 elsewhere.
    fn chart(&self) -> i64 {
        0
    }
    /// Whether the unit on `side` has activated this round.
    fn activated(&self, side: usize) -> bool;
    /// Whether the unit on `side` moved in the step that made this attack.
    fn moved(&self, side: usize) -> bool;
    /// Formula `f`'s value, remembered in `cache`.
    fn formula(&self, f: u16, cache: &mut [Option<V>]) -> V {
        if let Some(Some(v)) = cache.get(f as usize) {
            return *v;
        }
        let v = match self.ir().formulas.get(f as usize) {
            Some(formula) => eval(self, &formula.expr, &[], cache),
            None => V::Int(0),
        };
        if let Some(slot) = cache.get_mut(f as usize) {
            *slot = Some(v);
        }
        v
    }
}

/// The value of `e` in `env`, with a tag's arguments `params`; `cache` holds the combat formulas
/// already worked out in this evaluation (one slot per formula, or empty where none is read).
pub(crate) fn eval<N: Env + ?Sized>(env: &N, e: &E, params: &[V], cache: &mut [Option<V>]) -> V {
    match e {
        E::Const(v) => *v,
        E::Unit(r) => V::Side(env.side(*r) as u8),
        E::Param(p) => params.get(*p as usize).copied().unwrap_or(V::Int(0)),
        E::Formula(f) => env.formula(*f, cache),
        E::Triangle => V::Int(env.triangle()),
        E::Distance => V::Int(env.distance()),
        E::Cover => V::Int(env.cover()),
        E::Dealt => V::Int(env.dealt()),
        E::Chart => V::Int(env.chart()),
        E::Attr(r, a) => env.attr(env.side(*r), *a),
        E::AttrOfParam(r, p) => match params.get(*p as usize) {
            Some(V::StatMod { attr, .. }) => env.attr(env.side(*r), *attr),
            _ => V::Int(0),
        },
        E::Weapon(r, prop) => {
            let u = env.unit(env.side(*r));
            match prop {
                WeaponProp::Might => V::Int(u.might),
                WeaponProp::Weight => V::Int(u.weight),
                WeaponProp::MinRange => V::Int(u.min_range),
                WeaponProp::MaxRange => V::Int(u.max_range),
                WeaponProp::MagicDamage => V::Bool(u.magic),
                WeaponProp::Staff => V::Bool(u.staff),
            }
        }
        E::AccessoryWeight(r) => V::Int(env.unit(env.side(*r)).accessory_weight),
        E::Promoted(r) => V::Bool(env.unit(env.side(*r)).promoted),
        E::TerrainDefense(r) => V::Int(env.unit(env.side(*r)).terrain_defense),
        E::FigureHp(r) => V::Int(env.unit(env.side(*r)).figure_hp),
        E::Activated(r) => V::Bool(env.activated(env.side(*r))),
        E::Moved(r) => V::Bool(env.moved(env.side(*r))),
        E::Amount(p) => match params.get(*p as usize) {
            Some(V::StatMod { amount, .. }) => V::Int(*amount),
            _ => V::Int(0),
        },
        E::Neg(x) => V::Int(operand(env, x, params, cache).int().saturating_neg()),
        E::Not(x) => V::Bool(!operand(env, x, params, cache).bool()),
        E::Bin(op, a, b) => {
            // `and` / `or` short-circuit.
            match op {
                Op::And => return V::Bool(operand(env, a, params, cache).bool() && operand(env, b, params, cache).bool()),
                Op::Or => return V::Bool(operand(env, a, params, cache).bool() || operand(env, b, params, cache).bool()),
                _ => {}
            }
            let (x, y) = (operand(env, a, params, cache), operand(env, b, params, cache));
            // Two numbers (most operations): what `binary` gives them, without the call.
            if let (V::Int(p), V::Int(q)) = (x, y) {
                match op {
                    Op::Add => return V::Int(p.saturating_add(q)),
                    Op::Sub => return V::Int(p.saturating_sub(q)),
                    Op::Mul => return V::Int(p.saturating_mul(q)),
                    Op::Eq => return V::Bool(p == q),
                    Op::Ne => return V::Bool(p != q),
                    Op::Lt => return V::Bool(p < q),
                    Op::Le => return V::Bool(p <= q),
                    Op::Gt => return V::Bool(p > q),
                    Op::Ge => return V::Bool(p >= q),
                    _ => {}
                }
            }
            binary(env.ir(), *op, x, y)
        }
        E::Lookup(t, args) => {
            let Some(table) = env.ir().tables.get(*t as usize) else { return V::Int(0) };
            let mut index = 0usize;
            for (arg, size) in args.iter().zip(&table.sizes) {
                let i = operand(env, arg, params, cache).int().clamp(0, *size as i64 - 1) as usize;
                index = index * size + i;
            }
            table.cells.get(index).copied().unwrap_or(V::Int(0))
        }
        E::Roll(slot) => V::Int(env.roll(*slot)),
        E::RollDyn(slot, dice) => V::Int(env.roll_value(*slot, || eval(env, dice, params, cache))),
        E::Min(a, b) => minmax(operand(env, a, params, cache), operand(env, b, params, cache), true),
        E::Max(a, b) => minmax(operand(env, a, params, cache), operand(env, b, params, cache), false),
        E::Abs(a) => V::Int(operand(env, a, params, cache).int().saturating_abs()),
        E::Clamp(x, lo, hi) => {
            let v = minmax(eval(env, x, params, cache), eval(env, lo, params, cache), false);
            minmax(v, eval(env, hi, params, cache), true)
        }
        // No arguments (most tests): the unit's tags searched in place.
        E::Has(r, tag, args) if args.is_empty() => {
            V::Bool(env.unit(env.side(*r)).has.iter().any(|i| i.tag == *tag && i.args.is_empty()))
        }
        E::Has(r, tag, args) => has(env, *r, *tag, args, params, cache),
        E::HasParam(r, p) => match params.get(*p as usize) {
            Some(V::Name(tag)) => {
                let u = env.unit(env.side(*r));
                V::Bool(u.has.iter().any(|i| i.tag == *tag) || u.statuses.contains(tag))
            }
            _ => V::Bool(false),
        },
        E::If(c, t, f) => {
            if operand(env, c, params, cache).bool() {
                operand(env, t, params, cache)
            } else {
                operand(env, f, params, cache)
            }
        }
    }
}

/// Whether the unit `r` names has tag `tag` with the arguments `args` (`E::Has` with arguments):
/// out of [`eval`]'s frame, which stays small for the nodes met most.
#[inline(never)]
fn has<N: Env + ?Sized>(env: &N, r: Role, tag: u32, args: &[E], params: &[V], cache: &mut [Option<V>]) -> V {
    // Most tests name a few arguments: no allocation for those.
    const FEW: usize = 4;
    if args.len() <= FEW {
        let mut values = [V::Int(0); FEW];
        for (slot, a) in values.iter_mut().zip(args) {
            *slot = eval(env, a, params, cache);
        }
        let values = values.get(..args.len()).unwrap_or_default();
        V::Bool(env.unit(env.side(r)).has.iter().any(|i| i.tag == tag && i.args == values))
    } else {
        let values: Vec<V> = args.iter().map(|a| eval(env, a, params, cache)).collect();
        V::Bool(env.unit(env.side(r)).has.iter().any(|i| i.tag == tag && i.args == values))
    }
}

/// [`eval`] of an operand: a constant, a formula already worked out, an attribute or a die read
/// in place (most operands), anything else by the call.
#[inline(always)]
fn operand<N: Env + ?Sized>(env: &N, e: &E, params: &[V], cache: &mut [Option<V>]) -> V {
    match e {
        E::Const(v) => *v,
        E::Formula(f) => match cache.get(*f as usize) {
            Some(Some(v)) => *v,
            _ => env.formula(*f, cache),
        },
        E::Attr(r, a) => env.attr(env.side(*r), *a),
        E::Roll(slot) => V::Int(env.roll(*slot)),
        _ => eval(env, e, params, cache),
    }
}

/// A constant or one of the tag's arguments, read without an environment (a grant's arguments
/// as a battle gathers what a unit holds); anything else is 0.
pub(crate) fn constant(e: &E, params: &[V]) -> V {
    match e {
        E::Const(v) => *v,
        E::Param(p) => params.get(*p as usize).copied().unwrap_or(V::Int(0)),
        _ => V::Int(0),
    }
}

fn minmax(a: V, b: V, min: bool) -> V {
    let pick_a = if min { a.int() <= b.int() } else { a.int() >= b.int() };
    if pick_a {
        a
    } else {
        b
    }
}

/// A binary operator on two values: steps of a scale shift and clamp to the scale, step minus
/// step counts steps, division and remainder by zero give 0, `==` compares values (a name with
/// a name, a step with a step).
pub(crate) fn binary(ir: &Ir, op: Op, x: V, y: V) -> V {
    let shift =
        |scale: u16, index: i64, by: i64| V::Step { scale, index: index.saturating_add(by).clamp(0, ir.scale_len(scale) - 1) };
    match op {
        Op::Add => match (x, y) {
            (V::Step { scale, index }, n) | (n, V::Step { scale, index }) => shift(scale, index, n.int()),
            _ => V::Int(x.int().saturating_add(y.int())),
        },
        Op::Sub => match (x, y) {
            (V::Step { index: a, .. }, V::Step { index: b, .. }) => V::Int(a - b),
            (V::Step { scale, index }, n) => shift(scale, index, n.int().saturating_neg()),
            _ => V::Int(x.int().saturating_sub(y.int())),
        },
        Op::Mul => V::Int(x.int().saturating_mul(y.int())),
        Op::Div => V::Int(x.int().checked_div(y.int()).unwrap_or(0)),
        Op::Rem => V::Int(x.int().checked_rem(y.int()).unwrap_or(0)),
        Op::Eq => V::Bool(x == y),
        Op::Ne => V::Bool(x != y),
        Op::Lt => V::Bool(x.int() < y.int()),
        Op::Le => V::Bool(x.int() <= y.int()),
        Op::Gt => V::Bool(x.int() > y.int()),
        Op::Ge => V::Bool(x.int() >= y.int()),
        Op::And => V::Bool(x.bool() && y.bool()),
        Op::Or => V::Bool(x.bool() || y.bool()),
    }
}

/// Applies `op value` to an attribute.
pub fn apply(ir: &Ir, current: V, op: m::AssignOp, value: V) -> V {
    match op {
        m::AssignOp::Set => value,
        m::AssignOp::Add => binary(ir, Op::Add, current, value),
        m::AssignOp::Sub => binary(ir, Op::Sub, current, value),
    }
}

/// The attribute an effect changes.
pub fn target_attr(attr: AttrTarget, params: &[V]) -> Option<usize> {
    match attr {
        AttrTarget::Index(i) => Some(i as usize),
        AttrTarget::OfParam(p) => match params.get(p as usize) {
            Some(V::StatMod { attr, .. }) => Some(*attr as usize),
            _ => None,
        },
    }
}
