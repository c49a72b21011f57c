//! The model compiled once into an indexed form: attributes, tables and formulas by index, names
//! interned, so that evaluating a strike does no string lookups.

use oc_model as m;

mod build;
pub(crate) mod cuts;
mod formulas;
pub use formulas::SettleInputs;
mod lower;
mod slots;
pub use slots::{DieSlot, Roles, MAX_JOINT_FACES};
mod staged;

/// A runtime value. `Copy`: names are interned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum V {
    Int(i64),
    Bool(bool),
    /// Step `index` of scale `scale` (an index into `Ir::scales`).
    Step {
        scale: u16,
        index: i64,
    },
    Name(u32),
    StatMod {
        attr: u16,
        amount: i64,
    },
    /// A unit of the exchange: 0 the attacker who started it, 1 the defender.
    Side(u8),
    /// Dice as a value: an index into `Ir::shapes`.
    Dice(u32),
}

impl V {
    pub fn int(self) -> i64 {
        match self {
            V::Int(n) => n,
            V::Step { index, .. } => index,
            V::Bool(b) => i64::from(b),
            _ => 0,
        }
    }
    pub fn bool(self) -> bool {
        match self {
            V::Bool(b) => b,
            V::Int(n) => n != 0,
            _ => false,
        }
    }
}

/// Which unit an expression means; resolved against the strike in progress.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Role {
    Holder,
    Foe,
    Attacker,
    Defender,
    Target,
}

impl From<m::UnitRef> for Role {
    fn from(u: m::UnitRef) -> Role {
        match u {
            m::UnitRef::Holder => Role::Holder,
            m::UnitRef::Foe => Role::Foe,
            m::UnitRef::Attacker => Role::Attacker,
            m::UnitRef::Defender => Role::Defender,
            m::UnitRef::Target => Role::Target,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WeaponProp {
    Might,
    Weight,
    MinRange,
    MaxRange,
    MagicDamage,
    Staff,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
}

#[derive(Clone, Debug)]
pub enum E {
    Const(V),
    Unit(Role),
    Param(u16),
    Formula(u16),
    Triangle,
    Distance,
    /// How hidden the struck unit is (`Exchange::cover`).
    Cover,
    Dealt,
    Chart,
    Attr(Role, u16),
    AttrOfParam(Role, u16),
    Weapon(Role, WeaponProp),
    AccessoryWeight(Role),
    Promoted(Role),
    TerrainDefense(Role),
    /// One figure's hit points (`Unit::figure_hp`); a unit's living figures are lowered to its
    /// hit points over this, rounded up.
    FigureHp(Role),
    Activated(Role),
    /// Whether the unit moved in the step that made this attack (`Exchange::moved`).
    Moved(Role),
    Amount(u16),
    Neg(Box<E>),
    Not(Box<E>),
    Bin(Op, Box<E>, Box<E>),
    Lookup(u16, Vec<E>),
    /// This strike's draw of a die: a slot of [`Ir::dice`]. Named dice (`dice dmg d6`) have one
    /// slot each, read the same everywhere in a strike; each literal `roll(d6)` written in a
    /// formula is a slot of its own (an independent draw).
    Roll(u8),
    /// This strike's draw of the dice a `Dice` value names (`roll(defender.absorption)`): slot
    /// `u8`, whose distribution is the value of the expression (which reads no die) in the strike.
    RollDyn(u8, Box<E>),
    Min(Box<E>, Box<E>),
    Max(Box<E>, Box<E>),
    Abs(Box<E>),
    Clamp(Box<E>, Box<E>, Box<E>),
    Has(Role, u32, Vec<E>),
    HasParam(Role, u16),
    If(Box<E>, Box<E>, Box<E>),
}

impl E {
    /// Whether a `grant`'s arguments read no unit: each a constant or the granting tag's own
    /// parameter (evaluated without a battle, `eval::constant`).
    pub(crate) fn read_no_unit(args: &[E]) -> bool {
        args.iter().all(|a| matches!(a, E::Const(_) | E::Param(_)))
    }

    /// Whether its value is worked out from its sub-expressions' alone (an operator, a table
    /// read, a choice), reading nothing of its own. Every kind is named: a new one must be
    /// classed here, once, for the passes that ask (`Ir::reads_of`, `Ir::inputs_of`,
    /// `Ir::stage`, `Ir::reads_no_unit`).
    pub(crate) fn combines(&self) -> bool {
        match self {
            E::Neg(_)
            | E::Not(_)
            | E::Bin(..)
            | E::Lookup(..)
            | E::Min(..)
            | E::Max(..)
            | E::Abs(_)
            | E::Clamp(..)
            | E::If(..) => true,
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
            | E::RollDyn(..)
            | E::Has(..)
            | E::HasParam(..) => false,
        }
    }

    /// Its sub-expressions, in order (a `Dice` value's expression included): the one walk the
    /// passes over formulas share, each handling the nodes it cares about and passing the rest on.
    pub(crate) fn children(&self) -> impl Iterator<Item = &E> {
        let (fixed, rest): ([Option<&E>; 3], &[E]) = match self {
            E::Neg(x) | E::Not(x) | E::Abs(x) | E::RollDyn(_, x) => ([Some(&**x), None, None], &[]),
            E::Bin(_, a, b) | E::Min(a, b) | E::Max(a, b) => ([Some(&**a), Some(&**b), None], &[]),
            E::Clamp(a, b, c) | E::If(a, b, c) => ([Some(&**a), Some(&**b), Some(&**c)], &[]),
            E::Lookup(_, args) | E::Has(_, _, args) => ([None; 3], &args[..]),
            _ => ([None; 3], &[]),
        };
        fixed.into_iter().flatten().chain(rest)
    }

    /// Whether it, or any expression within it (not the formulas it names), is `node`'s.
    pub(crate) fn any(&self, node: &impl Fn(&E) -> bool) -> bool {
        node(self) || self.children().any(|c| c.any(node))
    }
}

/// An effect with its parameters resolved to slots.
#[derive(Clone, Debug)]
pub enum Eff {
    Modify {
        role: Role,
        attr: AttrTarget,
        op: m::AssignOp,
        value: E,
    },
    /// Shared (`Arc`): every unit built with it keeps it (`Unit::whens`), not a copy.
    When {
        condition: std::sync::Arc<E>,
        then: std::sync::Arc<[Eff]>,
    },
    /// Shared, as `When`'s (`Unit::triggers`).
    On {
        event: m::Event,
        then: std::sync::Arc<[Eff]>,
    },
    Grant {
        tag: u32,
        args: Vec<E>,
    },
    GrantParam(u16),
    Command {
        verb: m::Verb,
        args: Vec<E>,
    },
    /// A special action the holder may take in a battle (not part of an exchange).
    Action(std::sync::Arc<ActionIr>),
}

/// A special action: whom it targets, how far it reaches, what it requires and what it does.
#[derive(Debug)]
pub struct ActionIr {
    pub target: m::ActionTarget,
    pub min_range: Option<E>,
    pub max_range: Option<E>,
    pub requires: Vec<E>,
    pub effects: Vec<Eff>,
    /// The verb of its first command: what the action is known by.
    pub verb: Option<m::Verb>,
    /// `cost`: its own price (the step variable `cost`).
    pub cost: Option<E>,
    /// `charge`: the resource its paid part is kept in.
    pub charge: Option<String>,
    /// `sequence`: its step before the move (`Turn::before`).
    pub sequence: Option<i64>,
}

/// A status's clear: at `event`, when `condition` holds (always without one).
#[derive(Debug)]
pub struct ClearIr {
    pub event: m::Event,
    pub condition: Option<E>,
}

/// A resource: the attribute holding a unit's amount, what it is set to and when.
#[derive(Debug)]
pub struct ResourceIr {
    pub attr: u16,
    pub value: E,
    /// `None`: set at deployment only.
    pub at: Option<m::Event>,
}

/// A combat block's `gain` line: the striker (or, `struck`, the unit struck) gains `value`, read
/// at the dice a strike kept, in its resource `resource` (its index), when the exchange ends.
pub struct GainIr {
    pub struck: bool,
    pub resource: usize,
    pub value: E,
}

#[derive(Clone, Copy, Debug)]
pub enum AttrTarget {
    Index(u16),
    OfParam(u16),
}

pub struct TableIr {
    pub sizes: Vec<usize>,
    pub cells: Vec<V>,
}

pub use formulas::Reads;

pub struct FormulaIr {
    pub expr: E,
    /// The dice slots it reads (bit `i` for slot `i`), directly or through other formulas.
    pub dice: u64,
    /// What its value depends on among the dice, when those are independent of one another: the
    /// slots it rolls itself and the formulas reading dice it refers to, no two reading the same
    /// slot. Then its distribution is that of a function of independent values (see
    /// `combat::outcomes`); `None` when two of them share a die (or it reads none).
    pub leaves: Option<Vec<Leaf>>,
    /// Whose unit its value depends on, where that is one unit alone (see `Reads`): then each
    /// unit works it out once for every strike (`Unit::solo`).
    pub reads: Reads,
}

/// A value a formula reads that dice move: a die slot it rolls, or a formula that reads dice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Leaf {
    Slot(u8),
    Formula(u16),
}

pub struct Ir {
    /// A number no other IR has: what a unit's `Solo` values are checked against (a unit
    /// prepared by one engine may be handed to another).
    pub id: u64,
    pub names: Vec<String>,
    /// Each of `names` as an atom, made as it is interned ([`Ir::atom`]: a battle names actions'
    /// tags by atoms, and `Atom::new` takes a lock).
    atoms: Vec<m::Atom>,
    /// Each of `atoms`' number, by the atom's address (one text, one atom): [`Ir::atom_id`].
    atom_ids: crate::fx::FastMap<usize, u32>,
    name_ids: crate::fx::FastMap<String, u32>,
    /// Stats first, then bases: the index of an attribute in a unit's attribute vector.
    pub attrs: Vec<(String, m::Type)>,
    attr_ids: crate::fx::FastMap<String, u16>,
    pub scales: Vec<m::Scale>,
    pub tables: Vec<TableIr>,
    table_ids: crate::fx::FastMap<String, u16>,
    pub formulas: Vec<FormulaIr>,
    formula_ids: crate::fx::FastMap<String, u16>,
    pub roles: Roles,
    /// Each die slot: the ruleset's named dice first (the striker's draws), then one per literal
    /// die and one per named die the struck unit also rolls (opposed rolls), in first-use order.
    pub dice: Vec<DieSlot>,
    /// Named dice by (name, the struck unit's draw).
    dice_ids: crate::fx::FastMap<(String, bool), u8>,
    /// The slots a strike draws (those the combat roles read), in slot order.
    pub strike_dice: Vec<u8>,
    /// The same slots as a bitmask (bit `i` for slot `i`).
    pub strike_mask: u64,
    /// The formulas that read a die (what a strike forgets between joint values of its dice),
    /// each with the slots it reads (`FormulaIr::dice`), side by side for that loop.
    pub dice_formulas: Vec<(u16, u64)>,
    /// For each of them (same order): the comparisons it is read through, when that is the only
    /// way the combat formulas read it (see `partition`).
    pub strike_cuts: Vec<Option<Vec<cuts::Cut>>>,
    /// The same, found also through a `Dice` value's roll and a roll's sum with dice-free parts
    /// (`cuts::summed`): what a settling groups its dice by (`combat::reroll`).
    pub summed_cuts: Vec<Option<Vec<cuts::Cut>>>,
    /// Where a strike's outcomes depend only on its dice and the values of some dice-free
    /// formulas (`Ir::outcome_inputs`): those formulas. Then two strikes with the same dice
    /// classes and the same values have the same outcomes (`combat::outcomes`' table).
    pub outcome_inputs: Option<Vec<u16>>,
    /// Where they do not (a `Dice` value rolled, an attribute read beside a roll): each largest
    /// dice-free part of the combat roles' formulas, looked up by its value instead
    /// (`Ir::valued_inputs`).
    pub valued_inputs: Option<Vec<E>>,
    /// How exchanges are worked out (`Engine::with_strategy`): which fast paths are on.
    pub strategy: crate::Strategy,
    /// By formula: whether a staged formula takes its staged expression in place of a reference
    /// to it (`Ir::stage`): one referred to by a single formula, not a combat role or an input
    /// of a strike's outcome (those are asked for by themselves, and kept once worked out).
    pub inlined: Vec<bool>,
    /// By formula: whether it may read what an exchange's state holds (`Ir::state_formulas`).
    pub state_formulas: Vec<bool>,
    /// The formulas that read a die or may read what the state holds (`Ir::varying`).
    pub varying: Vec<u16>,
    /// Whether every cut of a strike die (`strike_cuts`) compares it with constants and
    /// `outcome_inputs` alone: then the dice's classes follow from those formulas' values, and a
    /// strike's outcomes are looked up by the values without working the classes out.
    pub classes_follow_inputs: bool,
    /// Whether any expression reads `X.moved`: where none does, exchanges are not told how the
    /// attack was made, so forecasts and the AI's keys stay one per matchup.
    pub reads_moved: bool,
    /// Some expression reads `distance`: the AIs weigh every distance a weapon reaches from,
    /// not only its nearest and farthest.
    pub reads_distance: bool,
    /// Whether any expression reads `cover` (as `reads_moved`).
    pub reads_cover: bool,
    /// Whether a combat formula, gain or `Dice` value names a unit as a value (`E::Unit`): then
    /// a strike's results may differ with the side its striker is on, not only with the units.
    pub sided: bool,
    /// The combat block's `gain` lines.
    pub gains: Vec<GainIr>,
    /// Whether a strike's dice may be rolled again (a reaction to a roll): then
    /// a strike where one may apply (`Exchange::settles_here`) is settled joint value by joint
    /// value (`combat::reroll`), not looked up, cut into classes or worked out from parts.
    pub settles: bool,
    /// What settled strikes are looked up by (`Ir::settle_inputs`), where they can be.
    pub settle_inputs: Option<SettleInputs>,
    /// The product of the strike dice's denominators, in slot order, where none is a `Dice`
    /// value's (what a strike's outcomes' weights sum to).
    pub strike_den: f64,
    /// The product of their numbers of distinct values: how many joint outcomes a strike has.
    pub strike_faces: u64,
    /// `Dice` values by id (`V::Dice`): every dice constant of the rules, interned when built.
    pub shapes: Vec<DieSlot>,
    shape_ids: crate::fx::FastMap<m::DiceShape, u32>,
    pub hp_attr: u16,
    /// By attribute: whether an exchange's state holds it (hit points and resources), so that
    /// reading it makes a result depend on the state (`Ctx::reads`).
    pub state_attrs: Vec<bool>,
    /// Tag and status effects by interned name (iterated only where the order cannot matter).
    pub effects: crate::fx::FastMap<u32, (Vec<String>, Vec<Eff>)>,
    /// Each status's clears, by interned name (iterated only where the order cannot matter).
    pub clears: crate::fx::FastMap<u32, Vec<ClearIr>>,
    /// The events some tag or status has an `on EVENT` effect for: a unit's triggers for any
    /// other event are none, and are not looked for.
    pub on_events: Vec<m::Event>,
    /// Each item's `use` and modifiers (an accessory's `def += 2`), by its place in the rules.
    pub item_uses: Vec<Vec<Eff>>,
    /// The ruleset's resources, in their order.
    pub resources: Vec<ResourceIr>,
    /// What a step of an activation costs and whether it may be taken (`TurnRules`), reading
    /// the step's parameters (`oc_model::STEP_PARAMS`, in that order).
    pub step_cost: Option<E>,
    pub step_allowed: Option<E>,
    /// Whether an attack's target may answer it (`oc_model::TurnRules::respond`); reads the step's
    /// parameters.
    pub respond: Option<E>,
    /// The step of the sequence of play at which an attack after a move is declared
    /// (`oc_model::TurnRules::declare_step`); read as `respond`.
    pub declare_step: Option<E>,
    /// Whether an enemy may interrupt a move, and whether it strikes the mover
    /// (`oc_model::TurnRules::{interrupt, opportunity}`); read as `respond`, by the watcher.
    pub interrupt: Option<E>,
    pub opportunity: Option<E>,
    /// Whether an enemy holds a unit about to move (`oc_model::TurnRules::engaged`), by the unit.
    pub engaged: Option<E>,
    /// Whether the holder of a threat zone may strike a free attack with the weapon in its hand
    /// (`oc_model::TurnRules::free_attack`).
    pub free_attack: Option<E>,
    /// The courage rule's formulas (`oc_model::Courage`): the check's roll and target, the
    /// losses that make a unit test, the rally's roll and target; `self` the unit testing, the
    /// parameters `oc_model::COURAGE_PARAMS`.
    pub courage: Option<CourageIr>,
    /// The leadership rule's `save` (`oc_model::Leadership`), read as the courage check.
    pub save: Option<(E, m::BinaryOp, E)>,
    /// The charging rule's `with` (`oc_model::Charging`), read as the courage check.
    pub charging: Option<E>,
    /// The area rule's `within` (`oc_model::Area`), read as the charging rule's `with`.
    pub area: Option<E>,
}

/// [`Ir::courage`].
#[derive(Debug)]
pub struct CourageIr {
    pub check: (E, m::BinaryOp, E),
    pub losses: Option<E>,
    pub rally: Option<(E, m::BinaryOp, E)>,
}

impl Ir {
    pub fn name(&self, id: u32) -> &str {
        self.names.get(id as usize).map_or("?", String::as_str)
    }
    /// [`Ir::name`] as an atom (`Atom::new` of it, without the lock).
    pub fn atom(&self, id: u32) -> m::Atom {
        self.atoms.get(id as usize).copied().unwrap_or_else(|| m::Atom::new(self.name(id)))
    }
    /// [`Ir::name_id`] of an atom's text, found by the atom's address (no text hashed).
    pub fn atom_id(&self, name: m::Atom) -> Option<u32> {
        self.atom_ids.get(&(name.as_str().as_ptr() as usize)).copied()
    }
    pub fn name_id(&self, name: &str) -> Option<u32> {
        self.name_ids.get(name).copied()
    }
    /// A combat formula's index by name.
    pub fn formula_id(&self, name: &str) -> Option<u16> {
        self.formula_ids.get(name).copied()
    }
    pub fn attr_id(&self, name: &str) -> Option<u16> {
        self.attr_ids.get(name).copied()
    }
    fn intern(&mut self, name: &str) -> u32 {
        if let Some(id) = self.name_ids.get(name) {
            return *id;
        }
        let id = self.names.len() as u32;
        self.names.push(name.to_string());
        let atom = m::Atom::new(name);
        self.atoms.push(atom);
        self.atom_ids.insert(atom.as_str().as_ptr() as usize, id);
        self.name_ids.insert(name.to_string(), id);
        id
    }
    pub fn scale_id(&self, name: &str) -> Option<u16> {
        self.scales.iter().position(|s| s.name == name).map(|i| i as u16)
    }
    pub fn scale_len(&self, scale: u16) -> i64 {
        self.scales.get(scale as usize).map_or(1, |s| s.steps.len() as i64)
    }
}

/// The verb of the first command among `effects`, looking into `when`s.
pub fn first_verb(effects: &[Eff]) -> Option<m::Verb> {
    effects.iter().find_map(|e| match e {
        Eff::Command { verb, .. } => Some(*verb),
        // An action whose command is conditional (`when roll(...) >= n { flee(target, 5) }`).
        Eff::When { then, .. } => first_verb(then),
        _ => None,
    })
}
