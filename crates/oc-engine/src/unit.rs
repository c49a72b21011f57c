//! Units with their derived stats: what the loadout's class, form, equipment, tags, statuses
//! and terrain make of them (built by `build.rs`), read by the evaluator (`eval`).

use oc_model as m;

use crate::ir::{Eff, Ir, E, V};

/// An attribute's value as shown to a user.
#[derive(Clone, Debug, PartialEq)]
pub enum Shown {
    Int(i64),
    Bool(bool),
    Text(String),
}

/// A conditional effect a unit holds: (arguments, condition, effects), shared with the IR.
pub type When = (Vec<V>, std::sync::Arc<E>, std::sync::Arc<[Eff]>);

/// A tag or status a unit has, with its arguments.
#[derive(Clone, Debug)]
pub struct Instance {
    pub tag: u32,
    pub args: Vec<V>,
}

/// Something worked out for this unit for each formula, on first use: the IR the formulas are
/// of (`Ir::id`), and by formula id. A clone starts empty (it may be changed after); units alike
/// but for their hit points hold one ([`PerFormula::shared`]: `Engine::unit_hashed`).
#[derive(Debug)]
pub struct PerFormula<T>(pub(crate) std::sync::Arc<std::sync::OnceLock<Slots<T>>>);

/// [`PerFormula`]'s slots: the IR's id, and a slot for each of its formulas.
type Slots<T> = (u64, Box<[std::sync::OnceLock<T>]>);

impl<T> Default for PerFormula<T> {
    fn default() -> Self {
        PerFormula(Default::default())
    }
}

impl<T> PerFormula<T> {
    /// The same slots, for a unit whose formulas come to what this one's do.
    pub(crate) fn shared(&self) -> Self {
        PerFormula(self.0.clone())
    }
}

impl<T> Clone for PerFormula<T> {
    fn clone(&self) -> Self {
        PerFormula::default()
    }
}

impl<T> PerFormula<T> {
    /// Formula `i`'s slot, for `ir`; `None` for another IR than the one that first asked.
    pub(crate) fn slot(&self, ir: &Ir, i: usize) -> Option<&std::sync::OnceLock<T>> {
        let (of, slots) = self.0.get_or_init(|| (ir.id, ir.formulas.iter().map(|_| std::sync::OnceLock::new()).collect()));
        if *of != ir.id {
            return None;
        }
        slots.get(i)
    }
}

/// Something worked out for a unit on first use, with the IR it was worked out for (`Ir::id`).
/// A clone starts empty (it may be changed after); units alike but for their hit points may hold
/// one ([`Later::shared`]).
#[derive(Debug)]
pub struct Later<T>(std::sync::Arc<std::sync::OnceLock<(u64, T)>>);

impl<T> Default for Later<T> {
    fn default() -> Self {
        Later(Default::default())
    }
}

impl<T> Later<T> {
    /// The same value, for a unit for which it comes to what it does for this one.
    pub(crate) fn shared(&self) -> Self {
        Later(self.0.clone())
    }
}

impl<T> Clone for Later<T> {
    fn clone(&self) -> Self {
        Later::default()
    }
}

impl<T> Later<T> {
    /// The value for `ir`, worked out by `make` on first use; `None` for another IR than the one
    /// that first asked.
    pub(crate) fn get_or_init(&self, ir: &Ir, make: impl FnOnce() -> T) -> Option<&T> {
        let (of, value) = self.0.get_or_init(|| (ir.id, make()));
        (*of == ir.id).then_some(value)
    }
}

/// An input of a strike's outcomes (`Ir::outcome_inputs`) as its striker staged it
/// (`Unit::inputs`): what `strike::Ctx::formula` would take or evaluate for it, wherever the striker's
/// attributes are its own.
#[derive(Clone, Debug)]
pub enum Input {
    /// It reads the striker alone (or no unit): its value for the striker (`Unit::solo`).
    Known(V),
    /// It reads both units: staged for the striker (`Unit::staged`, which keeps it).
    Staged,
    /// It reads the struck unit alone: asked of its formula (that unit's own value).
    Asked,
}

/// A unit ready for combat: every attribute after the modifiers that always apply.
#[derive(Clone, Debug)]
pub struct Unit {
    pub class: String,
    pub weapon: Option<String>,
    pub accessory: Option<String>,
    pub attrs: Vec<V>,
    pub max_hp: i64,
    /// One figure's hit points (the class's); `max_hp` is this times the unit's figures.
    pub figure_hp: i64,
    pub has: Vec<Instance>,
    /// Conditional effects, evaluated for every strike: (arguments, condition, effects).
    pub whens: Vec<When>,
    /// Event triggers: (arguments, event, effects).
    pub triggers: Vec<(Vec<V>, m::Event, std::sync::Arc<[Eff]>)>,
    pub weapon_type: Option<String>,
    /// `weapon_type` interned (`Ir::name_id`).
    pub weapon_type_id: Option<u32>,
    pub might: i64,
    pub weight: i64,
    pub min_range: i64,
    pub max_range: i64,
    pub magic: bool,
    pub staff: bool,
    pub accessory_weight: i64,
    pub promoted: bool,
    pub terrain_defense: i64,
    pub statuses: Vec<u32>,
    /// Weapon types the unit may not use now (`restrict(...)`, e.g. from a status).
    pub restricted: Vec<u32>,
    /// `must_attack_weakest()` (seed 000's status that forces attacks): it must attack the unit in range with the
    /// lowest HP.
    pub must_attack_weakest: bool,
    /// Every attribute as shown to a user (`Engine::effective`), worked out on first use.
    pub effective: std::sync::OnceLock<std::sync::Arc<[(String, Shown)]>>,
    /// What the formulas that read this unit alone come to for it.
    pub solo: PerFormula<V>,
    /// The formulas that read both units, staged for this unit as the striker (`Ir::stage`).
    pub staged: PerFormula<E>,
    /// The inputs of a strike's outcomes (`Ir::outcome_inputs`) staged for this unit as the
    /// striker (`strike::Input`), worked out on first use; `None` where one could not be.
    pub inputs: Later<Option<Box<[Input]>>>,
    /// Its other attack forms where it is the unit of its loadout (`Engine::attack_forms`).
    pub forms: Later<Vec<std::sync::Arc<Unit>>>,
}

impl Unit {
    /// A stand-in with only attributes and tags, to evaluate conditions while a unit is built.
    pub(crate) fn bare(attrs: &[V], has: &[Instance]) -> Unit {
        Unit {
            class: String::new(),
            weapon: None,
            accessory: None,
            attrs: attrs.to_vec(),
            max_hp: 0,
            figure_hp: 1,
            has: has.to_vec(),
            whens: Vec::new(),
            triggers: Vec::new(),
            weapon_type: None,
            weapon_type_id: None,
            might: 0,
            weight: 0,
            min_range: 0,
            max_range: 0,
            magic: false,
            staff: false,
            accessory_weight: 0,
            promoted: false,
            terrain_defense: 0,
            statuses: Vec::new(),
            restricted: Vec::new(),
            must_attack_weakest: false,
            effective: Default::default(),
            solo: PerFormula::default(),
            staged: PerFormula::default(),
            inputs: Later::default(),
            forms: Later::default(),
        }
    }

    /// Whether a trigger of it may fire on its strike (`on hit`, `crit`, `miss`), or, with
    /// `attacked`, also on the attack it takes: then the state after a strike follows from more
    /// than the hit points it leaves.
    pub(crate) fn fires_on_strike(&self, attacked: bool) -> bool {
        self.triggers.iter().any(|(_, e, _)| {
            matches!(e, m::Event::Hit | m::Event::Crit | m::Event::Miss) || (attacked && *e == m::Event::Attacked)
        })
    }

    /// Its living figures at `hp` hit points: one figure's hit points into them, rounded up.
    pub fn figures_at(&self, hp: i64) -> i64 {
        let each = self.figure_hp.max(1);
        (hp.max(0) + each - 1) / each
    }

    pub fn hp(&self, ir: &Ir) -> i64 {
        self.attrs.get(ir.hp_attr as usize).map_or(0, |v| v.int())
    }

    pub fn in_range(&self, distance: i64) -> bool {
        self.weapon.is_some() && distance >= self.min_range && distance <= self.max_range
    }

    /// Whether the equipped weapon may be used at all (a status may `restrict(...)` its type).
    pub fn may_use_weapon(&self) -> bool {
        self.weapon.is_some() && !self.weapon_type_id.is_some_and(|t| self.restricted.contains(&t))
    }
}
