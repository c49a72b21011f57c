//! What the IR works out about its combat formulas once, as it is built: the dice each reads,
//! the independent dice-moved values it depends on (`FormulaIr::leaves`), the dice-free
//! parts of a formula that reads dice, made formulas of their own, and the parts that read one
//! unit alone, made formulas each unit works out once (`Reads`).

use super::{FormulaIr, Ir, Leaf, Role, E, V};
use crate::EngineError;

impl Ir {
    /// What a formula that reads dice computes without them is worked out once a strike, not
    /// again for every outcome class: each part of it that reads no die becomes a formula of its
    /// own (unnamed, after the named ones), which the strike's formula cache keeps while the dice
    /// turn (`to_hit[_skill, _speed]` in `hit = roll(hit) <= to_hit[_skill, _speed]`).
    pub(super) fn hoist_dice_free_parts(&mut self) -> Result<(), EngineError> {
        for i in 0..self.formulas.len() {
            let Some(f) = self.formulas.get_mut(i).filter(|f| f.dice != 0) else { continue };
            let mut expr = std::mem::replace(&mut f.expr, E::Const(V::Int(0)));
            self.hoist(&mut expr)?;
            if let Some(f) = self.formulas.get_mut(i) {
                f.expr = expr;
            }
        }
        Ok(())
    }

    /// Replaces each largest part of `e` that reads no die, and is more than a single read, by a
    /// new formula computing it (see `Ir::hoist_dice_free_parts`). A formula is evaluated where it is referred to,
    /// so what is evaluated, and when, is unchanged; its value is kept in the formula cache.
    pub(crate) fn hoist(&mut self, e: &mut E) -> Result<(), EngineError> {
        self.hoist_by(e, &|ir, e| (ir.dice_of(e) == 0).then_some(Reads::Both))
    }

    /// Replaces each largest part of `e` that is more than a single read and for which `part`
    /// says what the new formula reads, by that formula; the parts `part` refuses are looked into.
    fn hoist_by(&mut self, e: &mut E, part: &dyn Fn(&Ir, &E) -> Option<Reads>) -> Result<(), EngineError> {
        if single(e) {
            return Ok(());
        }
        if let Some(reads) = part(self, e) {
            let id = u16::try_from(self.formulas.len()).map_err(|_| EngineError::model("too many formulas"))?;
            let expr = std::mem::replace(e, E::Formula(id));
            self.formulas.push(FormulaIr { expr, dice: 0, leaves: None, reads });
            return Ok(());
        }
        match e {
            // A `Dice` value's expression says which dice to roll: left as written.
            E::RollDyn(..) => Ok(()),
            E::Neg(x) | E::Not(x) | E::Abs(x) => self.hoist_by(x, part),
            E::Bin(_, a, b) | E::Min(a, b) | E::Max(a, b) => {
                self.hoist_by(a, part)?;
                self.hoist_by(b, part)
            }
            E::Clamp(a, b, c) | E::If(a, b, c) => {
                self.hoist_by(a, part)?;
                self.hoist_by(b, part)?;
                self.hoist_by(c, part)
            }
            E::Lookup(_, args) | E::Has(_, _, args) => args.iter_mut().try_for_each(|a| self.hoist_by(a, part)),
            _ => Ok(()),
        }
    }

    /// Each largest part of a dice-free formula that reads one unit alone — `attacker.spd -
    /// attacker.weapon.weight` —, and is more than a single read, made a
    /// formula of its own, and every formula marked with whose unit it reads (`FormulaIr::reads`).
    /// Such a formula's value is the same in every strike of that unit in that role whose
    /// attributes are its own, so the unit works it out once (`Unit::solo`).
    pub(super) fn hoist_solo_parts(&mut self) -> Result<(), EngineError> {
        let mut i = 0;
        // Parts made formulas are appended, and looked at in their turn (already one unit's).
        while let Some(f) = self.formulas.get_mut(i) {
            if f.dice == 0 {
                let mut expr = std::mem::replace(&mut f.expr, E::Const(V::Int(0)));
                if self.reads_of(&expr) == Reads::Both {
                    self.hoist_solo(&mut expr)?;
                }
                let reads = self.reads_of(&expr);
                if let Some(f) = self.formulas.get_mut(i) {
                    f.expr = expr;
                    f.reads = reads;
                }
            }
            i += 1;
        }
        Ok(())
    }

    fn hoist_solo(&mut self, e: &mut E) -> Result<(), EngineError> {
        self.hoist_by(e, &|ir, e| Some(ir.reads_of(e)).filter(|r| *r != Reads::Both))
    }

    /// By formula: whether it may read an attribute an exchange's state holds (hit points, a
    /// resource), directly or through formulas (at most 64 deep; deeper counts as a read), each
    /// formula looked into once.
    pub(super) fn state_formulas(&self) -> Vec<bool> {
        fn of(ir: &Ir, f: u16, memo: &mut [Option<bool>], depth: u32) -> bool {
            if let Some(Some(known)) = memo.get(f as usize) {
                return *known;
            }
            let Some(formula) = ir.formulas.get(f as usize).filter(|_| depth > 0) else { return true };
            let reads = ir.reads_state_by(&formula.expr, &mut |g| of(ir, g, memo, depth - 1));
            if let Some(slot) = memo.get_mut(f as usize) {
                *slot = Some(reads);
            }
            reads
        }
        let mut memo = vec![None; self.formulas.len()];
        (0..self.formulas.len()).map(|f| u16::try_from(f).map_or(true, |f| of(self, f, &mut memo, 64))).collect()
    }

    /// Whether `e` may read an attribute an exchange's state holds (hit points, a resource),
    /// directly or through a formula it refers to, which `formula` answers for.
    pub(crate) fn reads_state_by(&self, e: &E, formula: &mut dyn FnMut(u16) -> bool) -> bool {
        match e {
            E::Attr(_, a) => self.state_attrs.get(*a as usize).copied().unwrap_or(true),
            E::AttrOfParam(..) => true,
            E::Formula(f) => formula(*f),
            _ => e.children().any(|c| self.reads_state_by(c, formula)),
        }
    }

    /// Whether `e`, evaluated in a battle's scene, reads none of its units: only constants,
    /// parameters, the IR's tables and what the scene holds beside the units (hit points, whether
    /// a unit has activated, the distance, the chart's result), combined; no other attribute,
    /// no die, no formula. A battle then works it out without building the units
    /// (`battle::scene::Stage`; asked once a battle: `advanced::Laws`).
    pub(crate) fn reads_no_unit(&self, e: &E) -> bool {
        match e {
            E::Const(_) | E::Param(_) | E::Amount(_) | E::Unit(_) | E::Distance | E::Chart | E::Activated(_) => true,
            E::Attr(_, a) => *a == self.hp_attr,
            _ if e.combines() => e.children().all(|c| self.reads_no_unit(c)),
            _ => false,
        }
    }

    /// The formulas that read a die or may read what an exchange's state holds
    /// (`state_formulas`, worked out first): the others are the same at every strike of one
    /// striker on the same two units with their own attributes (`Exchange::resolve_all`); one
    /// not of `state_formulas` is the same on the units' own attributes as on a strike's
    /// (`Exchange::flag_uncached`).
    pub(super) fn varying(&self) -> Vec<u16> {
        let varies =
            |f: usize| self.formulas.get(f).is_none_or(|x| x.dice != 0) || self.state_formulas.get(f).copied().unwrap_or(true);
        (0..self.formulas.len()).filter(|f| varies(*f)).filter_map(|f| u16::try_from(f).ok()).collect()
    }

    /// Whose unit `e` reads (see [`Reads`]).
    pub(crate) fn reads_of(&self, e: &E) -> Reads {
        let role = |r: &Role| match r {
            Role::Attacker => Reads::Attacker,
            Role::Defender => Reads::Defender,
            // Who the holder is differs between an exchange and a battle's evaluations.
            Role::Holder | Role::Foe | Role::Target => Reads::Both,
        };
        match e {
            E::Const(_) => Reads::Neither,
            E::Attr(r, a) => {
                // Hit points and resources are the exchange's state's, not the unit's.
                if self.state_attrs.get(*a as usize).copied().unwrap_or(true) {
                    Reads::Both
                } else {
                    role(r)
                }
            }
            E::Weapon(r, _) | E::AccessoryWeight(r) | E::Promoted(r) | E::TerrainDefense(r) | E::FigureHp(r) => role(r),
            E::Has(r, _, args) => args.iter().fold(role(r), |m, a| m.and(self.reads_of(a))),
            E::Formula(f) => self.formulas.get(*f as usize).map_or(Reads::Both, |f| f.reads),
            _ if e.combines() => e.children().fold(Reads::Neither, |m, c| m.and(self.reads_of(c))),
            // Dice, the strike's distance and triangle, damage dealt, which side a unit is, a
            // tag's parameters, whether a unit is acting (and any kind not classed above).
            _ => Reads::Both,
        }
    }

    /// The dice-free formulas a strike's outcome reads, where it reads nothing else but its dice
    /// and constants: every formula of a strike's roles (`hit`, `critical`, `backfire`, `damage`,
    /// `critical_damage`) that reads dice is made of rolls, constants, operators and other
    /// formulas, and no strike die is a `Dice` value's. Then an outcome is a function of the
    /// dice's values and these formulas' values. `None` otherwise (an attribute read beside a
    /// roll, say).
    pub(super) fn outcome_inputs(&self) -> Option<Vec<u16>> {
        let dynamic = self.strike_dice.iter().any(|s| self.dice.get(*s as usize).is_none_or(|d| d.dynamic.is_some()));
        if dynamic {
            return None;
        }
        let mut out = Inputs::default();
        let mut seen = std::collections::HashSet::new();
        for root in self.roles.strike() {
            self.inputs_of(&E::Formula(root), &mut out, &mut seen)?;
        }
        Some(out.formulas)
    }

    /// What a settled strike (`combat::reroll`) reads besides its dice, through the combat
    /// roles, `extra` (reroll requirements, their dice-free parts hoisted) and the formulas
    /// rerolled: dice-free formulas and what the exchange fixes for a strike read beside a roll
    /// (the attacker's and the defender's attributes, the distance ...), each keyed by value (as the dice a `Dice` value names are). Strikes with the same
    /// values of these (and the same rerolls affordable) settle the same.
    pub(crate) fn settle_inputs(&self, extra: &[&E], rerolled: &[u16]) -> Option<SettleInputs> {
        let mut out = Inputs { by_value: true, ..Inputs::default() };
        let mut seen = std::collections::HashSet::new();
        let roots = self.roles.strike().chain(rerolled.iter().copied());
        for root in roots {
            self.inputs_of(&E::Formula(root), &mut out, &mut seen)?;
        }
        for e in extra {
            self.inputs_of(e, &mut out, &mut seen)?;
        }
        Some(SettleInputs { formulas: out.formulas, leaves: out.leaves })
    }

    /// What a strike's outcomes read besides its dice, where they read more than dice-free
    /// formulas (`outcome_inputs`): each largest dice-free part of the combat roles' formulas
    /// (`_target`, `defender.figures > 1`, the `Dice` value rolled). A strike's outcomes are a
    /// function of its dice and these parts' values: every value read beside a roll, and every
    /// value a die is compared with (its classes), is one of them or made from them. `None`
    /// where a part has no value of its own (a unit, what a parameter holds).
    pub(super) fn valued_inputs(&self) -> Option<Vec<E>> {
        let mut out = Vec::new();
        let mut named = Vec::new();
        let mut seen = std::collections::HashSet::new();
        for root in self.roles.strike() {
            self.parts_of(&E::Formula(root), &mut out, &mut named, &mut seen)?;
        }
        Some(out)
    }

    fn parts_of(
        &self,
        e: &E,
        out: &mut Vec<E>,
        named: &mut Vec<String>,
        seen: &mut std::collections::HashSet<u16>,
    ) -> Option<()> {
        match e {
            E::Const(_) | E::Roll(_) => Some(()),
            E::Formula(f) if self.formulas.get(*f as usize)?.dice != 0 => {
                let formula = self.formulas.get(*f as usize)?;
                if seen.insert(*f) {
                    self.parts_of(&formula.expr, out, named, seen)
                } else {
                    Some(())
                }
            }
            _ if self.dice_of(e) == 0 => {
                if matches!(e, E::Unit(_)) || !self.valued(e) {
                    return None;
                }
                let name = format!("{e:?}");
                if !named.contains(&name) {
                    named.push(name);
                    out.push(e.clone());
                }
                Some(())
            }
            _ if e.combines() || matches!(e, E::RollDyn(..)) => e.children().try_for_each(|c| self.parts_of(c, out, named, seen)),
            _ => None,
        }
    }

    /// Whether a dice-free part reads nothing through a parameter.
    fn valued(&self, e: &E) -> bool {
        !matches!(e, E::Param(_) | E::AttrOfParam(..) | E::HasParam(..)) && e.children().all(|c| self.valued(c))
    }

    /// Whether every strike die is compared only with constants and `outcome_inputs` (or read
    /// whole): then its classes are a function of those formulas' values (the dice themselves
    /// being the same in every strike, as `outcome_inputs` requires).
    pub(super) fn classes_follow_inputs(&self) -> bool {
        let Some(inputs) = &self.outcome_inputs else { return false };
        self.strike_cuts.iter().flatten().flatten().all(|cut| {
            let mut read = Inputs::default();
            let mut seen = std::collections::HashSet::new();
            self.inputs_of(cut.other(), &mut read, &mut seen).is_some() && read.formulas.iter().all(|f| inputs.contains(f))
        })
    }

    fn inputs_of(&self, e: &E, out: &mut Inputs, seen: &mut std::collections::HashSet<u16>) -> Option<()> {
        match e {
            E::Const(_) | E::Roll(_) => Some(()),
            // A `Dice` value's roll: keyed by value where that is asked for (which dice it names).
            E::RollDyn(..) if out.by_value => Some(()),
            E::RollDyn(_, inner) => self.inputs_of(inner, out, seen),
            // What the exchange fixes for a strike, read beside a roll: keyed by value.
            E::Attr(Role::Attacker | Role::Defender, _)
            | E::Weapon(Role::Attacker | Role::Defender, _)
            | E::TerrainDefense(Role::Attacker | Role::Defender)
            | E::FigureHp(Role::Attacker | Role::Defender)
            | E::Moved(Role::Attacker | Role::Defender)
            | E::Cover
            | E::Distance
            | E::Triangle
                if out.by_value =>
            {
                let name = format!("{e:?}");
                if !out.named.contains(&name) {
                    out.named.push(name);
                    out.leaves.push(e.clone());
                }
                Some(())
            }
            E::Formula(f) => {
                let formula = self.formulas.get(*f as usize)?;
                if formula.dice == 0 {
                    if !out.formulas.contains(f) {
                        out.formulas.push(*f);
                    }
                    Some(())
                } else if seen.insert(*f) {
                    self.inputs_of(&formula.expr, out, seen)
                } else {
                    Some(())
                }
            }
            _ if e.combines() => e.children().try_for_each(|c| self.inputs_of(c, out, seen)),
            _ => None,
        }
    }

    /// The dice slots `e` reads, directly or through formulas.
    pub(crate) fn dice_of(&self, e: &E) -> u64 {
        match e {
            E::Roll(slot) => 1u64 << slot,
            E::RollDyn(slot, inner) => (1u64 << slot) | self.dice_of(inner),
            E::Formula(f) => self.formulas.get(*f as usize).map_or(0, |f| f.dice),
            _ => e.children().fold(0, |m, c| m | self.dice_of(c)),
        }
    }

    /// The dice-moved values `e` reads directly (see [`FormulaIr::leaves`]), when no two of them
    /// share a die.
    pub(super) fn independent_leaves(&self, e: &E) -> Option<Vec<Leaf>> {
        let mut leaves = Vec::new();
        self.leaves_of(e, &mut leaves);
        let mut seen = 0u64;
        for leaf in &leaves {
            let mask = match leaf {
                Leaf::Slot(s) => 1u64 << s,
                Leaf::Formula(f) => self.formulas.get(*f as usize).map_or(0, |f| f.dice),
            };
            if seen & mask != 0 {
                return None;
            }
            seen |= mask;
        }
        (!leaves.is_empty()).then_some(leaves)
    }

    fn leaves_of(&self, e: &E, out: &mut Vec<Leaf>) {
        let leaf = match e {
            // The dice a `Dice` value names are read by no die (`RollValue` refuses that).
            E::Roll(slot) | E::RollDyn(slot, _) => Some(Leaf::Slot(*slot)),
            E::Formula(f) => self.formulas.get(*f as usize).filter(|f| f.dice != 0).map(|_| Leaf::Formula(*f)),
            _ => None,
        };
        if let Some(leaf) = leaf {
            if !out.contains(&leaf) {
                out.push(leaf);
            }
            return;
        }
        e.children().for_each(|c| self.leaves_of(c, out));
    }
}

/// Whose unit a formula's value depends on: none (a constant), the striker's alone, the struck
/// unit's alone, or anything more (both, the dice, the distance, hit points...).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reads {
    Neither,
    Attacker,
    Defender,
    Both,
}

impl Reads {
    /// The side whose unit a formula reading `self` reads, where `attacker` strikes (a constant
    /// is the striker's); `None` for `Both`.
    pub(crate) fn side(self, attacker: usize) -> Option<usize> {
        match self {
            Reads::Neither | Reads::Attacker => Some(attacker),
            Reads::Defender => Some(1 - attacker),
            Reads::Both => None,
        }
    }

    fn and(self, other: Reads) -> Reads {
        match (self, other) {
            (Reads::Neither, x) | (x, Reads::Neither) => x,
            (x, y) if x == y => x,
            _ => Reads::Both,
        }
    }
}

/// A single read (a constant, an attribute, a die...): not worth a formula of its own.
fn single(e: &E) -> bool {
    matches!(
        e,
        E::Const(_)
            | E::Unit(_)
            | E::Param(_)
            | E::Formula(_)
            | E::Triangle
            | E::Distance
            | E::Cover
            | E::Dealt
            | E::Chart
            | E::Attr(..)
            | E::AttrOfParam(..)
            | E::Weapon(..)
            | E::AccessoryWeight(_)
            | E::Promoted(_)
            | E::TerrainDefense(_)
            | E::FigureHp(_)
            | E::Activated(_)
            | E::Moved(_)
            | E::Amount(_)
            | E::Roll(_)
    )
}

/// What `Ir::inputs_of` finds a strike reads: dice-free formulas, and where asked to key by
/// value (`by_value`), what the exchange fixes for a strike (attributes of the attacker and the
/// defender, the distance, cover ...), each once (`named`).
#[derive(Default)]
struct Inputs {
    formulas: Vec<u16>,
    leaves: Vec<E>,
    named: Vec<String>,
    by_value: bool,
}

/// What settled strikes are looked up by (`Ir::settle_inputs`).
#[derive(Clone, Debug, Default)]
pub struct SettleInputs {
    /// Dice-free formulas, by id.
    pub formulas: Vec<u16>,
    /// What the exchange fixes for a strike, read beside a roll (an attribute, the distance).
    pub leaves: Vec<E>,
}
