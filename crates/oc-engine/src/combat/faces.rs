//! The bound on an exact forecast's work: an exchange whose strikes would walk more joint
//! faces than `ir::MAX_JOINT_FACES` is refused as it is made ([`Exchange::checked`]). The
//! verdict is kept on the thread for the exchanges of the same two loadouts at other hit points
//! where reaching it read none (`Strategy::kept_checks`): the AIs ask of one pair at hit point
//! after hit point, and counting the classes of the Storm's dice was 2% of its games.

use super::*;

/// An exchange's verdict kept on a thread (`Strategy::kept_checks`): the two loadouts (their hit
/// points aside) and the distance it was reached for, and the verdict.
type Check = ([Loadout; 2], i64, Result<(), EngineError>);

/// The most verdicts a thread keeps; past it they start over. Each holds two whole loadouts, so
/// at `1 << 12` they were ~10 MiB of a thread's peak in the Storm (6 games, one thread: 139.7 MiB
/// against 128.0 MiB with none kept); at `1 << 9` the peak is 130.2 MiB and the Storm's games
/// cost 1M more instructions of 1,869M.
const CHECKS_MAX: usize = 1 << 9;

thread_local! {
    /// Verdicts by the hash of what they were reached for ([`but_hp`], the distance): with the
    /// IR they are of (another's starts them over) and how many are kept.
    static CHECKS: RefCell<(u64, FastMap<u64, Vec<Check>>, usize)> = RefCell::new((0, FastMap::default(), 0));
    /// How many verdicts were found kept on this thread.
    static FOUND: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Everything of a loadout but its hit points.
type ButHp<'l> = (
    &'l Atom,
    &'l Option<Atom>,
    &'l Option<Atom>,
    &'l [(Atom, Vec<m::Value>)],
    &'l [Atom],
    &'l Option<Atom>,
    crate::Form,
    &'l [(Atom, i64)],
    &'l [(Atom, i64)],
    u32,
    &'l [Atom],
    &'l [(Atom, i64)],
);

/// Everything of a loadout but its hit points (every field named: a new one is not left out).
fn but_hp(l: &Loadout) -> ButHp<'_> {
    let Loadout { class, weapon, accessory, tags, statuses, terrain, hp: _, form, debuffs, resources, figures, carried, placed } =
        l;
    (class, weapon, accessory, tags, statuses, terrain, *form, debuffs, resources, *figures, carried, placed)
}

impl Exchange<'_> {
    /// Refuses an exchange whose strikes would enumerate more joint faces than an exact forecast
    /// may walk, counting the dice these two units' `Dice` values name. Where working that out
    /// read no hit points nor resources (`Ctx::reads`) and two units alike but for their hit
    /// points are the same but for them (`ExchangeInputs::alike_but_hp`), the verdict is the same
    /// at every amount of them: kept for the exchanges of the same two loadouts and distance.
    pub(super) fn checked(self) -> Result<Self, EngineError> {
        let ir = &self.engine.ir;
        // Without `Dice` values the model's own bound (`Ir::strike_faces`) covers every exchange.
        if !ir.strike_dice.iter().any(|s| ir.dice.get(*s as usize).is_some_and(|d| d.dynamic.is_some())) {
            return Ok(self);
        }
        let keep = ir.strategy.kept_checks && self.engine.inputs.alike_but_hp();
        let [a, d] = self.loadouts;
        let hash = keep.then(|| {
            use std::hash::{Hash, Hasher};
            let mut h = crate::fx::Fx::default();
            crate::hash_loadout_at(a, None, &mut h);
            crate::hash_loadout_at(d, None, &mut h);
            self.distance.hash(&mut h);
            h.finish()
        });
        let is =
            |(l, distance, _): &Check| *distance == self.distance && but_hp(&l[0]) == but_hp(a) && but_hp(&l[1]) == but_hp(d);
        let found = hash.and_then(|h| {
            CHECKS
                .try_with(|c| {
                    let c = c.try_borrow().ok()?;
                    let (id, kept, _) = &*c;
                    (*id == ir.id).then(|| kept.get(&h)?.iter().find(|k| is(k)).map(|(_, _, v)| v.clone())).flatten()
                })
                .ok()
                .flatten()
        });
        if let Some(verdict) = found {
            let _ = FOUND.try_with(|f| f.set(f.get() + 1));
            return verdict.map(|()| self);
        }
        let before = self.reads.replace(0);
        let verdict = self.verdict();
        let read = self.reads.replace(before) != 0;
        if let Some(h) = hash.filter(|_| !read) {
            let _ = CHECKS.try_with(|c| {
                let Ok(mut c) = c.try_borrow_mut() else { return };
                let (id, kept, held) = &mut *c;
                if *id != ir.id || *held >= CHECKS_MAX {
                    *id = ir.id;
                    kept.clear();
                    *held = 0;
                }
                *held += 1;
                kept.entry(h).or_default().push(([a.clone(), d.clone()], self.distance, verdict.clone()));
            });
        }
        verdict.map(|()| self)
    }

    /// [`Exchange::checked`]'s verdict, worked out.
    fn verdict(&self) -> Result<(), EngineError> {
        let ir = &self.engine.ir;
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
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::{Engine, Loadout};
    use oc_model::{DiceShape, Value};

    /// The Storm's matchups at several hit points, one weapon's damage dice made too many to
    /// walk against some foes (those exchanges refused, the others not): the verdicts kept for
    /// the exchanges of the same loadouts (`Strategy::kept_checks`) and worked out for each, the
    /// same. A verdict found for other loadouts would refuse an exchange that is not, or the
    /// reverse.
    #[test]
    fn kept_verdicts_equal_worked_out_ones() {
        let (_, index) = oc_compiler::stdlib::RULESETS.iter().find(|(n, _)| *n == "battlestorm").expect("the Storm's ruleset");
        let mut rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("compiles");
        let big = rules.items.iter_mut().find(|i| i.tags.iter().any(|t| t.tag.as_str() == "Deals")).expect("a weapon deals dice");
        for t in big.tags.iter_mut().filter(|t| t.tag.as_str() == "Deals") {
            t.args = vec![Value::Dice(DiceShape::d(100_000))];
        }
        let on = Engine::new(rules.clone()).expect("runs");
        let mut off = Engine::new(rules).expect("runs");
        off.ir.strategy.kept_checks = false;
        let before = super::FOUND.with(std::cell::Cell::get);
        let (mut refused, mut compared) = (0, 0);
        for (label, a, d, r) in crate::testing::matchups(&on) {
            for (ha, figures) in [(None, 1), (Some(2), 1), (Some(1), 3)] {
                let a = Loadout { hp: ha, figures, ..a.clone() };
                let x = crate::Exchange::new(&on, &a, &d, r).map(|_| ());
                let y = crate::Exchange::new(&off, &a, &d, r).map(|_| ());
                assert_eq!(x, y, "{label} vs {} at {ha:?}", d.class);
                refused += usize::from(matches!(x, Err(crate::EngineError::TooManyFaces { .. })));
                compared += 1;
            }
        }
        let found = super::FOUND.with(std::cell::Cell::get) - before;
        eprintln!("{compared} exchanges compared, {refused} refused, {found} verdicts found kept");
        assert!(refused > 0 && refused < compared && found > 100, "{refused} refused, {found} found kept");
    }
}
