//! The compiled rules: plain serde data, the only contract between the compiler and the engine.
//!
//! **Invariant:** everything here is resolved and type checked. Names refer to definitions that
//! exist in the same [`Rules`]; expressions are well typed; tables are complete. The engine can
//! rely on it and report a broken model as an internal error, never as a user error.
//!
//! **Invariant:** nothing here names a tag, class, weapon type or ruleset of the standard
//! library. The engine knows effect primitives ([`Verb`], [`Event`], [`Place`]), not tags.
//!
//! Saved as JSON by `oc build`; [`FORMAT_VERSION`] changes whenever the shape changes.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

mod advanced;
mod atom;
pub mod conformance;
pub mod dice;
mod effect;
pub mod hash;
mod ratings;
mod scenario;
pub use advanced::*;
pub use atom::Atom;
pub use dice::{DiceShape, DieTerm, Dist, Faces, Keep};
pub use effect::*;
pub use oc_diag::Name;
pub use ratings::Ratings;
pub use scenario::*;

/// Bumped whenever a saved model would be read differently.
pub const FORMAT_VERSION: u32 = 10;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Rules {
    pub format_version: u32,
    pub ruleset: Ruleset,
    pub movements: Vec<String>,
    pub weapon_types: Vec<WeaponType>,
    /// Each cycle lists the weapon types in order: every one beats the next, the last beats the first.
    pub triangles: Vec<Vec<String>>,
    pub terrains: Vec<Terrain>,
    pub tags: Vec<Tag>,
    pub statuses: Vec<Status>,
    pub classes: Vec<Class>,
    pub items: Vec<Item>,
    /// Scenarios (since format 2).
    #[serde(default)]
    pub scenarios: Vec<Scenario>,
    /// Armies written for a scenario's side (since format 2).
    #[serde(default)]
    pub armies: Vec<Army>,
}

/// How a unit of the rules moves where the tools name no unit (a map's lints, the heat overlay,
/// a scenario's checks): the ruleset's own defaults.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mover {
    /// The base `movement_type`'s value, else the first movement type the rules declare.
    pub movement_type: String,
    /// The base `movement`'s value: `None` where the ruleset has none (then only whether a
    /// place can be reached is asked, not in how many rounds).
    pub movement: Option<u32>,
}

impl Rules {
    /// How a unit moves where no unit is named ([`Mover`]): `None` for rules that declare no
    /// movement type at all.
    pub fn reference_mover(&self) -> Option<Mover> {
        let base = |n: &str| self.ruleset.bases.iter().find(|b| b.name == n).map(|b| &b.value);
        let movement_type = match base("movement_type") {
            Some(Value::Name { name, .. }) => name.to_string(),
            _ => self.movements.first()?.clone(),
        };
        let movement = match base("movement") {
            Some(Value::Int(n)) => u32::try_from(*n).ok(),
            _ => None,
        };
        Some(Mover { movement_type, movement })
    }

    pub fn scenario(&self, name: &str) -> Option<&Scenario> {
        self.scenarios.iter().find(|s| s.name == name)
    }
    pub fn army(&self, name: &str) -> Option<&Army> {
        self.armies.iter().find(|a| a.name == name)
    }
    pub fn class(&self, name: &str) -> Option<&Class> {
        self.classes.iter().find(|c| c.name == name)
    }
    pub fn item(&self, name: &str) -> Option<&Item> {
        self.items.iter().find(|i| i.name == name)
    }
    pub fn tag(&self, name: &str) -> Option<&Tag> {
        self.tags.iter().find(|t| t.name == name)
    }
    pub fn status(&self, name: &str) -> Option<&Status> {
        self.statuses.iter().find(|s| s.name == name)
    }
    pub fn terrain(&self, name: &str) -> Option<&Terrain> {
        self.terrains.iter().find(|t| t.name == name)
    }
    pub fn weapon_type(&self, name: &str) -> Option<&WeaponType> {
        self.weapon_types.iter().find(|w| w.name == name)
    }
    /// +1 when `attacker` beats `defender` in a weapon triangle, -1 when it loses, else 0.
    pub fn triangle(&self, attacker: &str, defender: &str) -> i64 {
        for cycle in &self.triangles {
            let Some(a) = cycle.iter().position(|t| t == attacker) else { continue };
            let Some(d) = cycle.iter().position(|t| t == defender) else { continue };
            let n = cycle.len();
            if (a + 1) % n == d {
                return 1;
            }
            if (d + 1) % n == a {
                return -1;
            }
        }
        0
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Ruleset {
    pub name: String,
    pub doc: Option<String>,
    pub scales: Vec<Scale>,
    /// The ratings or numbers a class provides (Strength, Skill ...).
    pub stats: Vec<Stat>,
    /// Attributes every unit has, with their base value (HP 20, movement 5 ...).
    pub bases: Vec<Base>,
    /// The values a class may give a stat of this type, inclusive.
    pub class_ranges: Vec<ClassRange>,
    pub inventory: u32,
    /// Item weight bounds, inclusive.
    pub weight: (i64, i64),
    pub dice: Vec<Dice>,
    pub tables: Vec<Table>,
    /// The combat formulas, by name. Required: `hit`, `critical` (Bool, may use this strike's
    /// roll), `damage`, `critical_damage` (Int), `follow_up` (Bool). Optional: `backfire` (Bool:
    /// the strike's damage goes to the attacker), `strikes` (Int, default 1), `counter` (Bool,
    /// default true: may the defender counter at all), `counter_any_range` (Bool, default false),
    /// `defender_first` (Bool, default false: the defender's strikes come before the attacker's)
    /// and `simultaneous` (Bool, default false: each side makes the strikes it had as the exchange
    /// began, felled or not), both read once, as the exchange begins, where both sides strike.
    /// Names starting with `_` are helpers. In every formula `attacker` is the striking unit.
    /// The engine also reads the base attribute `hp` (Int): current hit points.
    pub combat: Vec<Formula>,
    /// Pools every unit holds (stamina, initiative), refilled at an event; each is also an `Int`
    /// base attribute of the same name whose value is the unit's current amount.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<Resource>,
    /// Who activates next and what one activation may do.
    #[serde(default, skip_serializing_if = "TurnRules::is_default")]
    pub turn: TurnRules,
    /// What a struck unit may do before each strike against it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reactions: Vec<Reaction>,
    /// `reactions many`: a struck unit may take several reactions against one strike.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub many_reactions: bool,
    /// `basic tags A, B`: tags every class holds (the compiler adds them to each class's
    /// `tags`, after the class's own; a class that lists one holds it once).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub basic_tags: Vec<TagUse>,
    /// The combat block's `gain` lines.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub gains: Vec<Gain>,
    /// `courage { ... }`: the advanced rule of courage, rout and rally, played in scenarios
    /// that say `advanced courage`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub courage: Option<Courage>,
    /// `leadership { ... }`: the advanced rule of a general per army (`advanced leadership`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leadership: Option<Leadership>,
    /// `situations { ... }`: special combat situations (`advanced situations`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub situations: Option<Situations>,
    /// `weather DICE { ... }`: the weather rolled before the battle (`advanced weather`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weather: Option<Weather>,
    /// `charging { with EXPR }`: charges that strike every enemy in contact (`advanced charging`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charging: Option<Charging>,
    /// `formations { tags A, B }`: the tags every unit holds where a scenario plays `advanced
    /// formations` (their actions change formation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub formations: Option<Formations>,
    /// `area { within EXPR }`: attacks that strike every unit around their target (`advanced area`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub area: Option<Area>,
}

/// `reaction NAME { cost RESOURCE N  requires EXPR  MODIFIERS  riposte }`: before each strike
/// against it, a unit may take one reaction it can pay for and whose requirement holds (`self`
/// is the reacting unit, `attacker` the striker). Its modifiers change the reacting unit's
/// attributes for that strike only. Chosen by the unit's controller: in forecasts and the AI,
/// the one that leaves the least damage expected from the strike (ties: none, then the
/// cheapest, then the first written).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reaction {
    pub name: String,
    pub title: Option<String>,
    pub doc: Option<String>,
    /// (resource, amount) paid when it is taken.
    pub costs: Vec<(String, i64)>,
    pub requires: Option<Expr>,
    pub modifiers: Vec<Effect>,
    /// When the strike dealt no damage, the reacting unit strikes back at once (seed 002, Parry:
    /// "If the attack fails to inflict a wound, you can immediately make a free attack").
    pub riposte: bool,
    /// `reroll FORMULA [by defender]`: a reaction to a roll (see [`Reroll`]); such a reaction
    /// is not taken before a strike and has no modifiers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reroll: Option<Reroll>,
}

/// A reaction to a roll: once a strike's dice are rolled, its taker (the striker, or with
/// `struck` the unit struck) may roll the dice the combat formula `formula` reads again and keep
/// the new roll, paying the reaction's costs. Taken where the requirement holds (it may read the
/// combat formulas, at the dice as rolled), the taker can pay, and the expected damage of the
/// new roll is better for the taker than what the dice show; the striker decides first, then
/// the unit struck, each at most once a strike.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reroll {
    pub formula: String,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub struck: bool,
}

/// `gain attacker|defender RESOURCE = EXPR` in the combat block: the striker (or, `struck`, the
/// unit struck) gains the value in the resource, read at the dice each strike kept, when the
/// exchange ends (seed 004: "Each time a PLAYER rolls an ID Icon, that player gains 1 luck
/// point"). A point gained is spent from the next exchange on.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Gain {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub struck: bool,
    pub resource: String,
    pub value: Expr,
}

/// `resource NAME: Int = VALUE at EVENT`: every unit's amount is set to `value` (which may roll
/// dice; `self` is the unit) at the event (`start_of_round` or `activated`) and at deployment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    pub name: String,
    pub title: Option<String>,
    pub value: Expr,
    /// When it is set to its value again; `None`: at deployment only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<Event>,
}

/// The turn structure. Without a `turn` block: sides alternate and an activation is one step
/// (a move and an act), the rule of seeds 000 and 001.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TurnRules {
    pub order: Order,
    /// The resource steps are paid from. `None`: one step per activation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spend: Option<String>,
    /// What a step costs (at least 1); reads the [`STEP_PARAMS`]. Default 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_cost: Option<Expr>,
    /// Whether a step may be taken; reads the [`STEP_PARAMS`]. Default true.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step_allowed: Option<Expr>,
    /// Reactive activation: whether the target of an attack a unit declares may activate at
    /// once in answer, before the attack resolves (if it has not activated this round); reads
    /// the [`STEP_PARAMS`] of the declaring step, `self` being the declarer. An answer may itself
    /// declare an attack that is answered in turn (a chain); each declared attack resolves when
    /// the activation that answered it ends, the innermost first. An attack after a move is
    /// declared before the move (seed 003: "2. Declare Melee Attacks ... 4. Move"), read for the
    /// step as planned; the move and the attack wait for the answer. `None`: attacks resolve at once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub respond: Option<Expr>,
    /// The step of the sequence of play at which an attack after a move is declared (seed 003:
    /// "2. Declare Melee Attacks 3. Change Formation 4. Move"); reads the [`STEP_PARAMS`] of the
    /// step as planned. The actions of a turn's `before` up to that step are taken before the
    /// declaration, the later ones after the target's answer, with the move. `None`: every one
    /// before the declaration. Only with `respond`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub declare_step: Option<Expr>,
    /// Reactive activation on a move (seed 003: "A previously unactivated unit may also choose to
    /// activate if an enemy unit comes too near, interrupting the moving unit with its own
    /// Actions"): whether an enemy that has not activated this round may activate at once when a
    /// unit's move ends, before the mover acts; reads the [`STEP_PARAMS`] of an attack by the
    /// watcher (`self`) on the mover from where the watcher stands (`range`: how near it came).
    /// The mover's act waits for each such enemy's answer, the nearest first. `None`: no move
    /// is interrupted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interrupt: Option<Expr>,
    /// Strikes of opportunity (seed 003's "brace [ready to attack targets of opportunity]"):
    /// whether an enemy, activated or not, strikes a unit whose move ends where it may attack it
    /// (its attack, as it would make it, no answer), before the mover acts; reads what
    /// `interrupt` reads. `None`: none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub opportunity: Option<Expr>,
    /// Units held in contact (seed 003's "disengage"): whether an enemy holds a unit, which then
    /// may not move (routing excepted) and leaves only by the `disengage` verb; read for each
    /// ready enemy as the unit is about to move, `self` being the unit and `range` its distance
    /// to that enemy (the other [`STEP_PARAMS`] as for a step that only moves). `None`: no
    /// unit is held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub engaged: Option<Expr>,
    /// Threat zones: a unit whose move leaves an enemy's zone takes a free attack from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threat: Option<Threat>,
    /// What a free attack of a threat zone may be struck with (seed 004: "an immediate
    /// skirmish attack", and "Skirmish: Attack a single target with a melee weapon"): whether
    /// the zone's holder (`self`) may strike it with the weapon in `self`'s hand, read as the
    /// [`STEP_PARAMS`] of its attack on the mover at `range` 1 with each weapon it carries that
    /// it may use and that reaches 1, the one in hand first, then the others in the order they
    /// are carried; it strikes with the first for which this holds, and makes no free attack
    /// where none does. `None`: any such weapon. Only with `threat`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub free_attack: Option<Expr>,
    /// `threat ... shooting`: a unit making a ranged attack first takes a free attack from each
    /// enemy other than its target in its own zone (seed 004: "if the source ignore a unit in its
    /// treat zone to fire at another unit, the unit in the treat zone has a free attack").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub threat_shooting: bool,
    /// `line_of_sight`: an attack beyond contact (distance 2 or more) needs a clear line between
    /// the two tiles' centres, over no terrain that `blocks_sight` (seed 003: "A figure can
    /// attack any target within range, and to which it has a clear Line of Sight").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub line_of_sight: bool,
}

/// The squares a unit threatens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Threat {
    /// The four squares around it.
    Adjacent,
    /// "all squares in front and the 2 squares beside" (seed 004), by its facing: the three
    /// squares of the row ahead and the one on each side. Units face where they last moved or
    /// struck, and at first toward the enemy's deployment zone.
    Front,
}

impl TurnRules {
    pub fn is_default(&self) -> bool {
        *self == TurnRules::default()
    }
}

/// The most resources a ruleset may declare.
pub const MAX_RESOURCES: usize = 8;

/// The longest time limit a scenario may have (`rounds N`): a game is played to its end, and one
/// of more rounds is never played out (the battle bounds its turns; `oc tune` reads every limit
/// up to twice the one written).
pub const MAX_ROUNDS: u32 = 1_000;

/// What the engine gives every unit beside the ruleset's own attributes, read as `unit.NAME`
/// (`self.promoted`), each with what it is; `weapon` and `accessory` only through a property of
/// theirs ([`WEAPON_PROPERTIES`], [`ACCESSORY_PROPERTIES`]). A ruleset's attribute named
/// `figures` or `figure_hp` comes first.
pub const UNIT_FIELDS: &[(&str, &str)] = &[
    ("weapon", "the weapon in hand: read `.might`, `.weight`, `.min_range`, `.max_range`, `.magic` or `.staff`"),
    ("accessory", "the accessory worn: read `.weight`"),
    ("promoted", "Bool: whether the unit's class is a promoted class"),
    ("activated", "Bool: whether the unit has activated this round"),
    ("moved", "Bool: whether the unit moved before it attacked"),
    ("terrain_defense", "Int: the defense of the terrain the unit stands on"),
    ("figures", "Int: the unit's figures still standing"),
    ("figure_hp", "Int: the hit points of one of the unit's figures"),
];

/// What `unit.weapon.NAME` reads of the weapon in hand, with its type.
pub const WEAPON_PROPERTIES: &[(&str, Type)] = &[
    ("might", Type::Int),
    ("weight", Type::Int),
    ("min_range", Type::Int),
    ("max_range", Type::Int),
    ("magic", Type::Bool),
    ("staff", Type::Bool),
];

/// What `unit.accessory.NAME` reads of the accessory worn, with its type.
pub const ACCESSORY_PROPERTIES: &[(&str, Type)] = &[("weight", Type::Int)];

/// What a step's formulas read besides `self` (the acting unit): `moved` (movement points the
/// step's move spends, 0 without one), `attacks` (it attacks), `acts` (it does anything but
/// wait), `moves` / `steps` (move steps and steps already taken this activation), `repeats`
/// (times this same act was already taken this activation), `range` (the distance from where the
/// unit acts to the unit or tile it acts on, 0 without one), `zoned` (it acts from a square in
/// the threat zone of an enemy its side sees) and `target_zoned` (the unit it acts on stands in
/// its own threat zone, facing it). Without threat zones the last two are false. `cost`: the
/// act's own price (an action's `cost`; of a charged action, the part this step pays), 0 for
/// other acts. `priced`: the act is an action that names its own `cost` (`cost 0`: a free act,
/// seed 002's "Free Action"). `equips`: the step changes the weapon the unit holds (`Turn::equip`
/// naming another); `uses`: its act uses an item from the unit's pack; `items`: the steps that
/// changed weapons or used an item already taken this activation (seed 002's Item action: "use an
/// item ... change weapons ... limited to doing so once per turn"). `action`: the tag whose action
/// the step takes (`action == StandUp`, `self has action`), a name of no tag for other acts
/// (an attack, an item's use, waiting): seed 002's standing up is one of the three uses of Move,
/// and only it.
pub const STEP_PARAMS: &[(&str, Type)] = &[
    ("moved", Type::Int),
    ("attacks", Type::Bool),
    ("acts", Type::Bool),
    ("moves", Type::Int),
    ("steps", Type::Int),
    ("repeats", Type::Int),
    ("range", Type::Int),
    ("zoned", Type::Bool),
    ("target_zoned", Type::Bool),
    ("cost", Type::Int),
    ("priced", Type::Bool),
    ("equips", Type::Bool),
    ("uses", Type::Bool),
    ("items", Type::Int),
    ("action", Type::Tag),
];

/// Whose activation is next.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Order {
    /// The side that did not activate last, if it has units waiting (seeds 000, 001).
    #[default]
    Alternate,
    /// Before each activation both sides roll the named die; the higher activates, ties roll
    /// again (seed 003: "the players again roll to see who must activate the next unit").
    Rolloff { dice: String },
    /// Each round, units act by the resource's amount, highest first; ties by a draw of the named
    /// die each, highest first (seed 004: "randomly select(d10) any ties in initiatives").
    By { resource: String, ties: Option<String> },
}

impl Ruleset {
    pub fn scale(&self, name: &str) -> Option<&Scale> {
        self.scales.iter().find(|s| s.name == name)
    }
    pub fn table(&self, name: &str) -> Option<&Table> {
        self.tables.iter().find(|t| t.name == name)
    }
    pub fn formula(&self, name: &str) -> Option<&Formula> {
        self.combat.iter().find(|f| f.name == name)
    }
}

/// An ordered scale, worst step first: `F E D C B A S`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Scale {
    pub name: String,
    pub steps: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    pub name: String,
    pub title: Option<String>,
    pub ty: Type,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Base {
    pub name: String,
    pub title: Option<String>,
    pub ty: Type,
    pub value: Value,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClassRange {
    pub ty: Type,
    pub low: Value,
    pub high: Value,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Dice {
    pub name: String,
    pub shape: DiceShape,
}

/// A lookup table over scales. Cells are stored row-major: the last key varies fastest.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Table {
    pub name: String,
    /// The scale of each key, in order.
    pub keys: Vec<String>,
    pub value: Type,
    pub cells: Vec<Value>,
}

impl Table {
    /// The cell at the given step indices, one per key.
    pub fn get(&self, ruleset: &Ruleset, steps: &[usize]) -> Option<&Value> {
        if steps.len() != self.keys.len() {
            return None;
        }
        let mut index = 0usize;
        for (key, step) in self.keys.iter().zip(steps) {
            let len = ruleset.scale(key)?.steps.len();
            if *step >= len {
                return None;
            }
            index = index * len + step;
        }
        self.cells.get(index)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Formula {
    pub name: String,
    pub ty: Type,
    pub expr: Expr,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "of", rename_all = "snake_case")]
pub enum Type {
    Int,
    Bool,
    Str,
    /// A step of the named scale.
    Scale(String),
    Unit,
    Weapon,
    Tag,
    Class,
    WeaponType,
    Status,
    Terrain,
    Movement,
    /// The name of a stat (`Bonus(res+1)` takes a stat and an amount: a [`Type::StatMod`]).
    Stat,
    StatMod,
    /// Dice as a value (`stat absorption: Dice`, a `Dice` tag parameter): rolled with `roll(...)`.
    Dice,
    /// The name of a ruleset's `resource` (`gain(self, guard, 3)`).
    Resource,
}

impl Type {
    /// The type as the DSL writes it (`Int`, `WeaponType`, a scale's own name).
    pub fn name(&self) -> &str {
        match self {
            Type::Int => "Int",
            Type::Bool => "Bool",
            Type::Str => "Str",
            Type::Scale(s) => s,
            Type::Unit => "Unit",
            Type::Weapon => "Weapon",
            Type::Tag => "Tag",
            Type::Class => "Class",
            Type::WeaponType => "WeaponType",
            Type::Status => "Status",
            Type::Terrain => "Terrain",
            Type::Movement => "Movement",
            Type::Stat => "Stat",
            Type::StatMod => "StatMod",
            Type::Dice => "Dice",
            Type::Resource => "Resource",
        }
    }
}

/// A constant: tag arguments, class ratings, table cells, base values.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Value {
    Int(i64),
    Bool(bool),
    Str(String),
    /// Step `index` (0 = worst) of `scale`.
    Step {
        scale: Name,
        index: u32,
    },
    /// A definition by name: a tag, class, weapon type, status, terrain or movement type.
    Name {
        ty: Type,
        name: Name,
    },
    StatMod {
        stat: String,
        amount: i64,
    },
    /// Dice as a value: `3d4`, `2d10 + 3d8`.
    Dice(DiceShape),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WeaponType {
    pub name: String,
    /// Magic weapons use the magic stat against resistance; the others use strength against defense.
    pub magic: bool,
    /// Staves never counter or follow up, and always hit allies.
    pub staff: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Terrain {
    pub name: String,
    pub title: Option<String>,
    pub doc: Option<String>,
    pub symbol: Option<String>,
    /// Bonus to defense and resistance for a unit standing here.
    pub defense: i64,
    /// Movement cost per movement type; `None` is impassable.
    pub costs: BTreeMap<String, Option<u32>>,
    pub heal: Option<TerrainHeal>,
    /// Destructible terrain's hit points.
    pub hp: Option<u32>,
    /// What the tile turns into when destroyed or opened.
    pub becomes: Option<String>,
    /// Tags or items that open it (doors).
    pub opened_by: Vec<String>,
    /// No line of sight passes over it (read where the turn rules have `line_of_sight`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub blocks_sight: bool,
    /// How high the ground is (`elevation N`), read where a ruleset's `situations` has `ground`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub elevation: i64,
}

fn is_zero(n: &i64) -> bool {
    *n == 0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TerrainHeal {
    pub amount: i64,
    pub event: Event,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ThingKind {
    Class,
    Weapon,
    Accessory,
    Consumable,
    Unit,
    Status,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    pub name: String,
    pub ty: Type,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tag {
    pub name: String,
    pub params: Vec<Param>,
    /// Whether several instances add up (Lucky on a class and on its weapon).
    pub stacks: bool,
    /// Where the tag may be used; every kind when empty in the source.
    pub applies_to: Vec<ThingKind>,
    pub doc: Option<String>,
    pub effects: Vec<Effect>,
}

/// A tag as used on a class, item or status, with constant arguments.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TagUse {
    pub tag: Name,
    pub args: Vec<Value>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Status {
    pub name: String,
    pub effects: Vec<Effect>,
    pub clears: Vec<Clear>,
    pub lasts: Option<Duration>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Clear {
    /// Cleared at `event` when this holds (always when `None`).
    pub condition: Option<Expr>,
    pub event: Event,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Duration {
    Activations(u32),
    Rounds(u32),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Class {
    pub name: Name,
    pub title: Option<String>,
    pub doc: Option<String>,
    /// One value per ruleset stat.
    pub ratings: Ratings,
    pub wields: Vec<Name>,
    pub tags: Vec<TagUse>,
    pub cost: i64,
    pub promoted: bool,
    pub promoted_from: Option<String>,
    /// The items a recruit of this class comes with (at most the ruleset's inventory size).
    pub kit: Vec<String>,
    /// Shifters: the Normal and Transformed stat blocks (boxed: few classes have them, and they
    /// are the size of a class's other fields together).
    pub forms: Option<Box<ShifterForms>>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShifterForms {
    pub normal: Form,
    pub transformed: Form,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Form {
    pub ratings: Ratings,
    pub wields: Vec<Name>,
    pub tags: Vec<TagUse>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    Weapon,
    Accessory,
    Consumable,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Item {
    pub name: Name,
    pub kind: ItemKind,
    pub title: Option<String>,
    pub doc: Option<String>,
    pub weapon_type: Option<Name>,
    pub might: i64,
    pub weight: i64,
    pub range: Option<Range>,
    pub tags: Vec<TagUse>,
    pub cost: i64,
    /// What using a consumable does.
    pub uses: Vec<Effect>,
    /// Stat modifiers while carried or equipped (an accessory's `def += 2`).
    pub modifiers: Vec<Effect>,
}

impl Item {
    /// How far the weapon reaches: its constant longest range, 2 where the wielder decides it
    /// (staves: "Mag"), 0 for no range at all.
    pub fn reach(&self) -> i64 {
        match self.range.as_ref().map(|r| &r.max) {
            Some(Expr::Const(Value::Int(n))) => *n,
            Some(_) => 2,
            None => 0,
        }
    }

    /// Whether this is a weapon that reaches beyond the next tile (a range the wielder decides
    /// counts): what army limits and placement call a ranged unit's weapon.
    pub fn ranged(&self) -> bool {
        self.kind == ItemKind::Weapon && self.reach() >= 2
    }

    /// The classes a tag of this item names (seed 000's Exclusive(Class): "Can only be used by
    /// the tagged Class"): it belongs to them only. The one reading of the rule for the
    /// compiler's armies and kits and the engine's weapons of a class.
    pub fn exclusive_to(&self) -> impl Iterator<Item = &Name> {
        self.tags.iter().flat_map(|t| &t.args).filter_map(|a| match a {
            Value::Name { ty: Type::Class, name } => Some(name),
            _ => None,
        })
    }
}

/// A weapon's reach: `min..max` tiles; `max` may depend on the wielder (staves: "Mag").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Range {
    pub min: Expr,
    pub max: Expr,
}
