//! A strike on a destructible tile (a wall, a snag): the rules' `damage` formula against a
//! target with every attribute at its lowest.

use oc_model as m;

use crate::ir::V;
use crate::strike::Ctx;
use crate::unit::Unit;
use crate::{Engine, EngineError, Loadout};

impl Engine {
    /// The damage one strike deals to a destructible tile (a wall, a snag): the rules' `damage`
    /// formula against a target with every attribute at its lowest (a wall has no defence and
    /// does not dodge).
    pub fn structure_damage(&self, attacker: &Loadout, distance: i64) -> Result<i64, EngineError> {
        let a = self.unit(attacker, &[])?;
        if a.weapon.is_none() || !a.may_use_weapon() || !a.in_range(distance) {
            return Err(EngineError::OutOfReach {
                weapon: a.weapon.clone().unwrap_or_else(|| "no weapon".into()),
                min: a.min_range,
                max: a.max_range,
                distance,
            });
        }
        let lowest: Vec<V> = self
            .ir
            .attrs
            .iter()
            .map(|(_, ty)| match ty {
                m::Type::Scale(s) => V::Step { scale: self.ir.scale_id(s).unwrap_or(0), index: 0 },
                m::Type::Bool => V::Bool(false),
                _ => V::Int(0),
            })
            .collect();
        let wall = Unit::bare(&lowest, &[]);
        let ctx = Ctx {
            ir: &self.ir,
            units: [&a, &wall],
            attrs: [&a.attrs, &lowest],
            held: [&[], &[]],
            attacker: 0,
            holder: 0,
            rolls: &[],
            dealt: 0,
            distance,
            triangle: 0,
            activated: [false; 2],
            moved: [false; 2],
            cover: 0,
            solo: false,
            reads: None,
        };
        let mut cache = vec![None; self.ir.formulas.len()];
        Ok(ctx.formula(self.ir.roles.damage, &mut cache).int().max(0))
    }
}
