//! The battle's evaluator for action arguments, requirements and trigger conditions.

use oc_model as m;

use super::Battle;
use crate::ir::V;
use crate::ChaCha8Rng;

/// Evaluates action arguments and requirements: constants, tag parameters, arithmetic and
/// comparisons, and the attributes and weapon of the user (`self`) and the target.
pub(super) struct Eval<'a, 'e> {
    pub(super) battle: &'a Battle<'e>,
    pub(super) user: usize,
    pub(super) target: Option<usize>,
    pub(super) params: &'a [String],
    pub(super) args: &'a [m::Value],
    /// Dice for `roll(dN)` (status clears); `None` where nothing may be rolled.
    pub(super) dice: std::cell::RefCell<Option<&'a mut ChaCha8Rng>>,
    /// Named dice drawn so far in this event: every `roll(NAME)` of one event reads one draw
    /// (a status's start-of-round clear and its start-of-round damage share one d20 roll).
    pub(super) drawn: &'a std::cell::RefCell<Vec<(String, i64)>>,
    /// The weapon the user is about to hold: a step is priced before its `equip` is taken.
    pub(super) equip: Option<&'a str>,
}

impl Eval<'_, '_> {
    /// Unit `i`'s loadout as this evaluation sees it (the user holding `equip`, if given).
    fn loadout(&self, i: usize) -> Option<crate::Loadout> {
        let mut l = self.battle.loadout(i, i == self.user)?;
        if let (true, Some(w)) = (i == self.user, self.equip) {
            l.weapon = Some(w.to_string());
        }
        Some(l)
    }

    fn unit_of(&self, r: m::UnitRef) -> Option<usize> {
        match r {
            m::UnitRef::Holder | m::UnitRef::Attacker => Some(self.user),
            m::UnitRef::Target | m::UnitRef::Foe | m::UnitRef::Defender => self.target,
        }
    }

    /// The dice a `Dice` expression names: a constant, a parameter, a unit's stat, or a choice.
    fn dice_value(&self, e: &m::Expr) -> Option<m::DiceShape> {
        match e {
            m::Expr::Const(m::Value::Dice(shape)) => Some(shape.clone()),
            m::Expr::Param(p) => match self.params.iter().position(|x| x == p).and_then(|i| self.args.get(i)) {
                Some(m::Value::Dice(shape)) => Some(shape.clone()),
                _ => None,
            },
            m::Expr::Attribute { unit, name } => {
                let i = self.unit_of(*unit)?;
                let l = self.loadout(i)?;
                let u = self.battle.engine.unit(&l, &[]).ok()?;
                let ir = &self.battle.engine.ir;
                match u.attrs.get(ir.attr_id(name)? as usize)? {
                    V::Dice(id) => ir.shapes.get(*id as usize).map(|s| s.shape.clone()),
                    _ => None,
                }
            }
            m::Expr::If { condition, then, otherwise } => {
                if self.value(condition)? != 0 {
                    self.dice_value(then)
                } else {
                    self.dice_value(otherwise)
                }
            }
            _ => None,
        }
    }

    fn value(&self, e: &m::Expr) -> Option<i64> {
        match e {
            m::Expr::Const(m::Value::Int(n)) => Some(*n),
            m::Expr::Const(m::Value::Bool(b)) => Some(i64::from(*b)),
            m::Expr::Param(p) => match self.params.iter().position(|x| x == p).and_then(|i| self.args.get(i)) {
                Some(m::Value::Int(n)) => Some(*n),
                Some(m::Value::Bool(b)) => Some(i64::from(*b)),
                _ => None,
            },
            m::Expr::Attribute { unit, name } => {
                let i = self.unit_of(*unit)?;
                let l = self.loadout(i)?;
                let u = self.battle.engine.unit(&l, &[]).ok()?;
                let a = self.battle.engine.ir.attr_id(name)?;
                if Some(a) == Some(self.battle.engine.ir.hp_attr) {
                    return self.battle.units.get(i).map(|f| f.hp);
                }
                u.attrs.get(a as usize).map(|v| v.int())
            }
            m::Expr::Weapon { unit, property } => {
                let i = self.unit_of(*unit)?;
                let l = self.loadout(i)?;
                let u = self.battle.engine.unit(&l, &[]).ok()?;
                match property.as_str() {
                    "max_range" => Some(u.max_range),
                    "min_range" => Some(u.min_range),
                    "might" => Some(u.might),
                    "weight" => Some(u.weight),
                    _ => None,
                }
            }
            m::Expr::Lookup { table, args } => {
                let rules = &self.battle.engine.rules;
                let t = rules.ruleset.tables.iter().find(|x| x.name == *table)?;
                let steps: Vec<usize> =
                    args.iter().map(|a| self.value(a).and_then(|v| usize::try_from(v).ok())).collect::<Option<_>>()?;
                match t.get(&rules.ruleset, &steps)? {
                    m::Value::Int(n) => Some(*n),
                    m::Value::Bool(b) => Some(i64::from(*b)),
                    m::Value::Step { index, .. } => Some(i64::from(*index)),
                    _ => None,
                }
            }
            m::Expr::RollFresh { shape } => {
                let mut dice = self.dice.borrow_mut();
                dice.as_mut().map(|r| crate::dice::roll(r, shape))
            }
            m::Expr::RollValue { dice } => {
                let shape = self.dice_value(dice)?;
                let mut rng = self.dice.borrow_mut();
                rng.as_mut().map(|r| crate::dice::roll(r, &shape))
            }
            // Outside a strike there is no struck unit: the compiler accepts `roll(NAME)` only.
            m::Expr::Roll { die, .. } => {
                if let Some((_, v)) = self.drawn.borrow().iter().find(|(d, _)| d == die) {
                    return Some(*v);
                }
                let shape = &self.battle.engine.rules.ruleset.dice.iter().find(|d| d.name == *die)?.shape;
                let v = {
                    let mut dice = self.dice.borrow_mut();
                    crate::dice::roll(dice.as_mut()?, shape)
                };
                self.drawn.borrow_mut().push((die.clone(), v));
                Some(v)
            }
            m::Expr::Activated(r) => self.battle.units.get(self.unit_of(*r)?).map(|f| i64::from(f.activated)),
            m::Expr::Unary { op: m::UnaryOp::Neg, expr } => self.value(expr).map(i64::saturating_neg),
            m::Expr::Unary { op: m::UnaryOp::Not, expr } => self.value(expr).map(|v| i64::from(v == 0)),
            m::Expr::Binary { op, lhs, rhs, .. } => {
                let (a, b) = (self.value(lhs)?, self.value(rhs)?);
                Some(match op {
                    m::BinaryOp::Add => a.saturating_add(b),
                    m::BinaryOp::Sub => a.saturating_sub(b),
                    m::BinaryOp::Mul => a.saturating_mul(b),
                    m::BinaryOp::Div => a.checked_div(b)?,
                    m::BinaryOp::Rem => a.checked_rem(b)?,
                    m::BinaryOp::Eq => i64::from(a == b),
                    m::BinaryOp::Ne => i64::from(a != b),
                    m::BinaryOp::Lt => i64::from(a < b),
                    m::BinaryOp::Le => i64::from(a <= b),
                    m::BinaryOp::Gt => i64::from(a > b),
                    m::BinaryOp::Ge => i64::from(a >= b),
                    m::BinaryOp::And => i64::from(a != 0 && b != 0),
                    m::BinaryOp::Or => i64::from(a != 0 || b != 0),
                })
            }
            m::Expr::If { condition, then, otherwise } => {
                if self.value(condition)? != 0 {
                    self.value(then)
                } else {
                    self.value(otherwise)
                }
            }
            m::Expr::Call { function, args } => {
                let v: Vec<i64> = args.iter().map(|a| self.value(a)).collect::<Option<_>>()?;
                match (function, v.as_slice()) {
                    (m::Function::Min, [a, b]) => Some(*a.min(b)),
                    (m::Function::Max, [a, b]) => Some(*a.max(b)),
                    (m::Function::Abs, [a]) => Some(a.saturating_abs()),
                    (m::Function::Clamp, [x, lo, hi]) => Some((*x).max(*lo).min((*hi).max(*lo))),
                    _ => None,
                }
            }
            m::Expr::Has { unit, tag, args } => {
                let u = self.combat_unit(*unit)?;
                let id = self.battle.engine.ir.name_id(tag)?;
                let values: Vec<V> = args
                    .iter()
                    .map(|a| match a {
                        m::Expr::Const(m::Value::Int(n)) => Some(V::Int(*n)),
                        m::Expr::Const(m::Value::Bool(b)) => Some(V::Bool(*b)),
                        other => self.value(other).map(V::Int),
                    })
                    .collect::<Option<_>>()?;
                Some(i64::from(
                    u.has.iter().any(|h| h.tag == id && h.args == values) || (args.is_empty() && u.statuses.contains(&id)),
                ))
            }
            m::Expr::HasParam { unit, param } => {
                let u = self.combat_unit(*unit)?;
                let name = match self.params.iter().position(|x| x == param).and_then(|i| self.args.get(i)) {
                    Some(m::Value::Name { name, .. }) => name,
                    _ => return None,
                };
                let Some(id) = self.battle.engine.ir.name_id(name) else { return Some(0) };
                Some(i64::from(u.has.iter().any(|h| h.tag == id) || u.statuses.contains(&id)))
            }
            _ => None,
        }
    }

    /// A unit of the battle as combat sees it (tags, statuses, equipped items).
    fn combat_unit(&self, r: m::UnitRef) -> Option<std::sync::Arc<crate::unit::Unit>> {
        let i = self.unit_of(r)?;
        let l = self.loadout(i)?;
        self.battle.engine.unit(&l, &[]).ok()
    }

    pub(super) fn int(&self, e: &m::Expr) -> Option<i64> {
        self.value(e)
    }

    pub(super) fn bool(&self, e: &m::Expr) -> Option<bool> {
        self.value(e).map(|v| v != 0)
    }
}

/// A constant argument: a literal, or a tag parameter.
pub(super) fn const_eval(e: &m::Expr, params: &[String], args: &[m::Value]) -> Option<m::Value> {
    match e {
        m::Expr::Const(v) => Some(v.clone()),
        m::Expr::Param(p) => params.iter().position(|x| x == p).and_then(|i| args.get(i)).cloned(),
        _ => None,
    }
}
