//! The bound on an exact forecast's work: an exchange whose strikes would walk more joint
//! faces than `ir::MAX_JOINT_FACES` is refused as it is made ([`Exchange::checked`]).

use super::*;

impl Exchange<'_> {
    /// Refuses an exchange whose strikes would enumerate more joint faces than an exact forecast
    /// may walk, counting the dice these two units' `Dice` values name.
    pub(super) fn checked(self) -> Result<Self, EngineError> {
        let ir = &self.engine.ir;
        // Without `Dice` values the model's own bound (`Ir::strike_faces`) covers every exchange.
        if !ir.strike_dice.iter().any(|s| ir.dice.get(*s as usize).is_some_and(|d| d.dynamic.is_some())) {
            return Ok(self);
        }
        let state = State {
            hp: self.start,
            statuses: [self.base[0].statuses.clone(), self.base[1].statuses.clone()],
            res: [[0; MAX_RES]; 2],
            phase: Phase::Done,
        };
        // Each side striking with each of its attack forms.
        let bases = (0..2).filter_map(|side| self.base.get(side).map(|u| (side, u)));
        let forms = (0..2).flat_map(|side| self.forms.get(side).into_iter().flatten().map(move |u| (side, u)));
        for (attacker, striker) in bases.chain(forms) {
            let mut units = [&*self.base[0], &*self.base[1]];
            if let Some(slot) = units.get_mut(attacker) {
                *slot = striker;
            }
            let attrs = self.strike_attrs(units, &state, attacker);
            let ctx = self.ctx(units, &attrs, attacker, &[]);
            let mut cache = vec![None; ir.formulas.len()];
            // A die's outcome classes are never more than its values: where the values of all
            // the dice are few enough, so are their classes (most strikes; the classes not
            // looked for).
            let values = ir.strike_dice.iter().fold(1u64, |n, slot| {
                let die = self.die_of(*slot, &ctx, &mut cache);
                n.saturating_mul(die.map_or(0, |d| d.dist.values.len()).max(1) as u64)
            });
            if values <= crate::ir::MAX_JOINT_FACES {
                continue;
            }
            let mut faces = 1u64;
            // As the forecast walks them: a die only compared, by its outcome classes.
            for (slot, cuts) in ir.strike_dice.iter().zip(&ir.strike_cuts) {
                let die = self.die_of(*slot, &ctx, &mut cache);
                let values = die.map_or(&[][..], |d| &d.dist.values[..]);
                let classes = cuts.as_ref().zip(die).and_then(|(c, d)| partition::classes(&ctx, &mut cache, c, d));
                let n = classes.map_or(values.len(), |c| c.len()).max(1) as u64;
                faces = faces.saturating_mul(n);
            }
            if faces > crate::ir::MAX_JOINT_FACES {
                return Err(EngineError::TooManyFaces {
                    class: Some(self.base[attacker].class.clone()),
                    faces,
                    max: crate::ir::MAX_JOINT_FACES,
                });
            }
        }
        Ok(self)
    }
}
