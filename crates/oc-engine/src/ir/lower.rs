//! The model's expressions and effects lowered into the IR: names interned, attributes, tables,
//! formulas and parameters by index, dice as slots.

use oc_model as m;

use super::{first_verb, ActionIr, AttrTarget, DieSlot, Eff, Ir, Op, WeaponProp, E, V};
use crate::EngineError;

impl Ir {
    pub fn value(&mut self, v: &m::Value) -> Result<V, EngineError> {
        Ok(match v {
            m::Value::Int(n) => V::Int(*n),
            m::Value::Bool(b) => V::Bool(*b),
            m::Value::Str(s) => V::Name(self.intern(s)),
            m::Value::Step { scale, index } => V::Step {
                scale: self.scale_id(scale).ok_or_else(|| EngineError::model(format!("unknown scale {scale}")))?,
                index: i64::from(*index),
            },
            m::Value::Name { name, .. } => V::Name(self.intern(name)),
            m::Value::StatMod { stat, amount } => V::StatMod {
                attr: self.attr_id(stat).ok_or_else(|| EngineError::model(format!("unknown stat {stat}")))?,
                amount: *amount,
            },
            m::Value::Dice(shape) => V::Dice(self.intern_shape(shape)?),
        })
    }

    /// The id of a dice constant, worked out once.
    pub(super) fn intern_shape(&mut self, shape: &m::DiceShape) -> Result<u32, EngineError> {
        if let Some(id) = self.shape_ids.get(shape) {
            return Ok(*id);
        }
        let dist = shape.distribution().map_err(|e| EngineError::model(format!("dice `{shape}`: {e}")))?;
        let id = u32::try_from(self.shapes.len()).map_err(|_| EngineError::model("too many dice values"))?;
        self.shapes.push(DieSlot::new(shape.clone(), dist, None));
        self.shape_ids.insert(shape.clone(), id);
        Ok(id)
    }

    pub fn shape_id(&self, shape: &m::DiceShape) -> Option<u32> {
        self.shape_ids.get(shape).copied()
    }

    fn param(params: &[String], name: &str) -> Result<u16, EngineError> {
        params
            .iter()
            .position(|p| p == name)
            .map(|i| i as u16)
            .ok_or_else(|| EngineError::model(format!("unknown parameter {name}")))
    }

    pub fn expr(&mut self, e: &m::Expr, params: &[String]) -> Result<E, EngineError> {
        let b = |ir: &mut Ir, e: &m::Expr| -> Result<Box<E>, EngineError> { Ok(Box::new(ir.expr(e, params)?)) };
        Ok(match e {
            m::Expr::Const(v) => E::Const(self.value(v)?),
            m::Expr::Unit(u) => E::Unit((*u).into()),
            m::Expr::Param(p) => E::Param(Self::param(params, p)?),
            m::Expr::Formula(f) => {
                E::Formula(*self.formula_ids.get(f).ok_or_else(|| EngineError::model(format!("unknown formula {f}")))?)
            }
            m::Expr::Triangle => E::Triangle,
            m::Expr::Distance => {
                self.reads_distance = true;
                E::Distance
            }
            m::Expr::Cover => {
                self.reads_cover = true;
                E::Cover
            }
            m::Expr::Dealt => E::Dealt,
            m::Expr::Chart => E::Chart,
            m::Expr::Attribute { unit, name } => E::Attr(
                (*unit).into(),
                self.attr_id(name).ok_or_else(|| EngineError::model(format!("unknown attribute {name}")))?,
            ),
            m::Expr::AttributeOfParam { unit, param } => E::AttrOfParam((*unit).into(), Self::param(params, param)?),
            m::Expr::Weapon { unit, property } => {
                let prop = match property.as_str() {
                    "might" => WeaponProp::Might,
                    "weight" => WeaponProp::Weight,
                    "min_range" => WeaponProp::MinRange,
                    "max_range" => WeaponProp::MaxRange,
                    "magic" => WeaponProp::MagicDamage,
                    "staff" => WeaponProp::Staff,
                    other => return Err(EngineError::model(format!("unknown weapon property {other}"))),
                };
                E::Weapon((*unit).into(), prop)
            }
            m::Expr::Accessory { unit, .. } => E::AccessoryWeight((*unit).into()),
            m::Expr::Promoted(u) => E::Promoted((*u).into()),
            m::Expr::TerrainDefense(u) => E::TerrainDefense((*u).into()),
            m::Expr::FigureHp(u) => E::FigureHp((*u).into()),
            // The living figures: hit points over one figure's, rounded up, never below 0.
            m::Expr::Figures(u) => {
                let (hp, each) = (E::Attr((*u).into(), self.hp_attr), E::FigureHp((*u).into()));
                let up = E::Bin(
                    Op::Add,
                    Box::new(hp),
                    Box::new(E::Bin(Op::Sub, Box::new(each.clone()), Box::new(E::Const(V::Int(1))))),
                );
                E::Max(Box::new(E::Const(V::Int(0))), Box::new(E::Bin(Op::Div, Box::new(up), Box::new(each))))
            }
            m::Expr::Activated(u) => E::Activated((*u).into()),
            m::Expr::Moved(u) => {
                self.reads_moved = true;
                E::Moved((*u).into())
            }
            m::Expr::AmountOfParam(p) => E::Amount(Self::param(params, p)?),
            m::Expr::Unary { op, expr } => match op {
                m::UnaryOp::Neg => E::Neg(b(self, expr)?),
                m::UnaryOp::Not => E::Not(b(self, expr)?),
            },
            m::Expr::Binary { op, lhs, rhs, .. } => {
                let op = match op {
                    m::BinaryOp::Or => Op::Or,
                    m::BinaryOp::And => Op::And,
                    m::BinaryOp::Eq => Op::Eq,
                    m::BinaryOp::Ne => Op::Ne,
                    m::BinaryOp::Lt => Op::Lt,
                    m::BinaryOp::Le => Op::Le,
                    m::BinaryOp::Gt => Op::Gt,
                    m::BinaryOp::Ge => Op::Ge,
                    m::BinaryOp::Add => Op::Add,
                    m::BinaryOp::Sub => Op::Sub,
                    m::BinaryOp::Mul => Op::Mul,
                    m::BinaryOp::Div => Op::Div,
                    m::BinaryOp::Rem => Op::Rem,
                };
                E::Bin(op, b(self, lhs)?, b(self, rhs)?)
            }
            m::Expr::Lookup { table, args } => E::Lookup(
                *self.table_ids.get(table).ok_or_else(|| EngineError::model(format!("unknown table {table}")))?,
                args.iter().map(|a| self.expr(a, params)).collect::<Result<_, _>>()?,
            ),
            m::Expr::Roll { die, target } => {
                let key = (die.clone(), *target);
                match self.dice_ids.get(&key) {
                    Some(slot) => E::Roll(*slot),
                    None => {
                        // The struck unit's draw of a named die: a slot of its own, made on first use.
                        let shape = self
                            .dice_ids
                            .get(&(die.clone(), false))
                            .and_then(|s| self.dice.get(*s as usize))
                            .map(|d| d.shape.clone())
                            .filter(|_| *target)
                            .ok_or_else(|| EngineError::model(format!("unknown die {die}")))?;
                        let slot = self.new_die(&shape)?;
                        self.dice_ids.insert(key, slot);
                        E::Roll(slot)
                    }
                }
            }
            // Dice written in a formula are their own independent draw.
            m::Expr::RollFresh { shape } => E::Roll(self.new_die(shape)?),
            m::Expr::RollValue { dice } => {
                let inner = self.expr(dice, params)?;
                if self.dice_of(&inner) != 0 {
                    return Err(EngineError::model("the dice to roll depend on a roll"));
                }
                let slot = self.new_slot(DieSlot::new(
                    m::DiceShape { terms: Vec::new(), constant: 0 },
                    m::Dist::constant(0),
                    Some(inner.clone()),
                ))?;
                E::RollDyn(slot, Box::new(inner))
            }
            m::Expr::Call { function, args } => {
                let mut a = args.iter().map(|x| self.expr(x, params).map(Box::new)).collect::<Result<Vec<_>, _>>()?.into_iter();
                let mut next = || a.next().ok_or_else(|| EngineError::model("a function lacks arguments"));
                match function {
                    m::Function::Min => E::Min(next()?, next()?),
                    m::Function::Max => E::Max(next()?, next()?),
                    m::Function::Abs => E::Abs(next()?),
                    m::Function::Clamp => E::Clamp(next()?, next()?, next()?),
                }
            }
            m::Expr::Has { unit, tag, args } => {
                let id = self.intern(tag);
                E::Has((*unit).into(), id, args.iter().map(|a| self.expr(a, params)).collect::<Result<_, _>>()?)
            }
            m::Expr::HasParam { unit, param } => E::HasParam((*unit).into(), Self::param(params, param)?),
            m::Expr::If { condition, then, otherwise } => E::If(b(self, condition)?, b(self, then)?, b(self, otherwise)?),
        })
    }

    pub(super) fn new_die(&mut self, shape: &m::DiceShape) -> Result<u8, EngineError> {
        let dist = shape.distribution().map_err(|e| EngineError::model(format!("dice `{shape}`: {e}")))?;
        self.new_slot(DieSlot::new(shape.clone(), dist, None))
    }

    fn new_slot(&mut self, die: DieSlot) -> Result<u8, EngineError> {
        let slot = u8::try_from(self.dice.len()).ok().filter(|s| *s < 64);
        let slot = slot.ok_or_else(|| EngineError::model("the rules roll more than 64 distinct dice"))?;
        self.dice.push(die);
        Ok(slot)
    }

    pub fn effects_of(&mut self, effects: &[m::Effect], params: &[String]) -> Result<Vec<Eff>, EngineError> {
        effects.iter().map(|e| self.effect(e, params)).collect()
    }

    fn effect(&mut self, e: &m::Effect, params: &[String]) -> Result<Eff, EngineError> {
        Ok(match e {
            m::Effect::Modify { place, op, value } => Eff::Modify {
                role: place.unit.into(),
                attr: match &place.attribute {
                    m::AttributeRef::Named(n) => {
                        AttrTarget::Index(self.attr_id(n).ok_or_else(|| EngineError::model(format!("unknown attribute {n}")))?)
                    }
                    m::AttributeRef::StatOfParam(p) => AttrTarget::OfParam(Self::param(params, p)?),
                },
                op: *op,
                value: self.expr(value, params)?,
            },
            m::Effect::When { condition, then } => {
                Eff::When { condition: self.expr(condition, params)?.into(), then: self.effects_of(then, params)?.into() }
            }
            m::Effect::On { event, then } => Eff::On { event: *event, then: self.effects_of(then, params)?.into() },
            m::Effect::Grant { tag, args } => {
                Eff::Grant { tag: self.intern(tag), args: args.iter().map(|a| self.expr(a, params)).collect::<Result<_, _>>()? }
            }
            m::Effect::GrantParam { param } => Eff::GrantParam(Self::param(params, param)?),
            m::Effect::Action(a) => {
                let range = |ir: &mut Ir, e: &Option<m::Expr>| e.as_ref().map(|e| ir.expr(e, params)).transpose();
                let effects = self.effects_of(&a.effects, params)?;
                Eff::Action(std::sync::Arc::new(ActionIr {
                    target: a.target,
                    min_range: range(self, &a.min_range)?,
                    max_range: range(self, &a.max_range)?,
                    requires: a.requires.iter().map(|r| self.expr(r, params)).collect::<Result<_, _>>()?,
                    verb: first_verb(&effects),
                    effects,
                    cost: range(self, &a.cost)?,
                    charge: a.charge.clone(),
                    sequence: a.sequence,
                }))
            }
            m::Effect::Command { verb, args } => {
                Eff::Command { verb: *verb, args: args.iter().map(|a| self.expr(a, params)).collect::<Result<_, _>>()? }
            }
        })
    }
}
