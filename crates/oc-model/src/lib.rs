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

pub mod conformance;
pub mod dice;
pub use dice::{DiceShape, DieTerm, Dist, Faces, Keep};

/// Bumped whenever a saved model would be read differently.
pub const FORMAT_VERSION: u32 = 5;

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

impl Rules {
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
    /// default true: may the defender counter at all), `counter_any_range` (Bool, default false).
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
}

/// `resource NAME: Int = VALUE at EVENT`: every unit's amount is set to `value` (which may roll
/// dice; `self` is the unit) at the event (`start_of_round` or `activated`) and at deployment.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Resource {
    pub name: String,
    pub title: Option<String>,
    pub value: Expr,
    pub at: Event,
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
    /// Threat zones: a unit whose move leaves an enemy's zone takes a free attack from it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threat: Option<Threat>,
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
pub const MAX_RESOURCES: usize = 4;

/// What a step's formulas read besides `self` (the acting unit): `moved` (movement points the
/// step's move spends, 0 without one), `attacks` (it attacks), `acts` (it does anything but
/// wait), `moves` / `steps` (move steps and steps already taken this activation), `repeats`
/// (times this same act was already taken this activation).
pub const STEP_PARAMS: &[(&str, Type)] = &[
    ("moved", Type::Int),
    ("attacks", Type::Bool),
    ("acts", Type::Bool),
    ("moves", Type::Int),
    ("steps", Type::Int),
    ("repeats", Type::Int),
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
        scale: String,
        index: u32,
    },
    /// A definition by name: a tag, class, weapon type, status, terrain or movement type.
    Name {
        ty: Type,
        name: String,
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
    pub tag: String,
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
    pub name: String,
    pub title: Option<String>,
    pub doc: Option<String>,
    /// One value per ruleset stat.
    pub ratings: BTreeMap<String, Value>,
    pub wields: Vec<String>,
    pub tags: Vec<TagUse>,
    pub cost: i64,
    pub promoted: bool,
    pub promoted_from: Option<String>,
    /// The items a recruit of this class comes with (at most the ruleset's inventory size).
    pub kit: Vec<String>,
    /// Shifters: the Normal and Transformed stat blocks.
    pub forms: Option<ShifterForms>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ShifterForms {
    pub normal: Form,
    pub transformed: Form,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Form {
    pub ratings: BTreeMap<String, Value>,
    pub wields: Vec<String>,
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
    pub name: String,
    pub kind: ItemKind,
    pub title: Option<String>,
    pub doc: Option<String>,
    pub weapon_type: Option<String>,
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

/// A weapon's reach: `min..max` tiles; `max` may depend on the wielder (staves: "Mag").
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Range {
    pub min: Expr,
    pub max: Expr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Event {
    Activated,
    EndOfTurn,
    StartOfRound,
    EndOfRound,
    Hit,
    Crit,
    Attacked,
    AfterAttack,
    Routed,
    /// A strike of the holder's that does not hit (a backfire included).
    Miss,
}

impl Event {
    pub const ALL: &'static [(&'static str, Event)] = &[
        ("activated", Event::Activated),
        ("end_of_turn", Event::EndOfTurn),
        ("start_of_round", Event::StartOfRound),
        ("end_of_round", Event::EndOfRound),
        ("hit", Event::Hit),
        ("crit", Event::Crit),
        ("attacked", Event::Attacked),
        ("after_attack", Event::AfterAttack),
        ("routed", Event::Routed),
        ("miss", Event::Miss),
    ];
    pub fn from_name(name: &str) -> Option<Event> {
        Event::ALL.iter().find(|(n, _)| *n == name).map(|(_, e)| *e)
    }
}

/// What a tag, status or item does. The engine interprets these primitives.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Change an attribute of a unit while the effect applies.
    Modify { place: Place, op: AssignOp, value: Expr },
    /// Effects that apply only while `condition` holds (in combat: per strike).
    When { condition: Expr, then: Vec<Effect> },
    /// Effects run once when `event` happens to the holder.
    On { event: Event, then: Vec<Effect> },
    /// The holder also has this tag.
    Grant { tag: String, args: Vec<Expr> },
    /// The holder also has the tag held by this Tag parameter (`tag Art(a: Tag) { grant a }`).
    GrantParam { param: String },
    /// A special action the holder can take on its turn.
    Action(Action),
    /// A primitive the engine performs.
    Command { verb: Verb, args: Vec<Expr> },
}

/// An attribute of a unit: `unit.attribute`, where the attribute may come from a `StatMod`
/// parameter (`b.stat` in `tag Bonus(b: StatMod)`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Place {
    pub unit: UnitRef,
    pub attribute: AttributeRef,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AttributeRef {
    Named(String),
    /// The stat carried by the StatMod parameter of this name.
    StatOfParam(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnitRef {
    /// The unit that has the tag or status.
    Holder,
    /// The other unit of the current strike.
    Foe,
    Attacker,
    Defender,
    /// The target of an action.
    Target,
}

impl UnitRef {
    pub const ALL: &'static [(&'static str, UnitRef)] = &[
        ("self", UnitRef::Holder),
        ("user", UnitRef::Holder),
        ("foe", UnitRef::Foe),
        ("attacker", UnitRef::Attacker),
        ("defender", UnitRef::Defender),
        ("target", UnitRef::Target),
    ];
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AssignOp {
    Add,
    Sub,
    Set,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Action {
    pub target: ActionTarget,
    pub min_range: Option<Expr>,
    pub max_range: Option<Expr>,
    pub requires: Vec<Expr>,
    pub effects: Vec<Effect>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionTarget {
    Ally,
    Enemy,
    Unit,
    SelfOnly,
    Tile,
    Door,
    Chest,
}

/// The primitives of actions and triggers. Their arguments and the places each may appear are
/// [`conformance::VERBS`]: the compiler checks against it and the engine executes what it allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verb {
    Heal,
    Damage,
    Inflict,
    Cure,
    Reactivate,
    Relocate,
    Open,
    TakeChest,
    Raze,
    Seize,
    Escape,
    Reveal,
    Transform,
    Restrict,
    MustAttackWeakest,
    /// Switch a shifter to its "normal" or "transformed" form.
    Shift,
    /// Lower a stat of a unit until the end of its next turn (does not stack).
    Debuff,
    /// While this applies, the other tags of the same item have no effect (v0.6 Relic).
    IgnoreItemTags,
    /// Attack a unit as an action, with extra damage (v0.6 combat Arts).
    Attack,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Expr {
    Const(Value),
    /// A unit in context (`attacker`, `self` ...).
    Unit(UnitRef),
    /// A tag parameter.
    Param(String),
    /// Another combat formula, by name.
    Formula(String),
    /// The current strike's weapon-triangle standing of the attacker: +1, 0 or -1.
    Triangle,
    /// Distance in tiles between attacker and defender.
    Distance,
    /// The damage the current strike dealt (in `on hit` / `on crit`).
    Dealt,
    /// A unit's stat or base attribute.
    Attribute {
        unit: UnitRef,
        name: String,
    },
    /// A unit's stat named by a StatMod parameter.
    AttributeOfParam {
        unit: UnitRef,
        param: String,
    },
    /// A property of a unit's equipped weapon: `might`, `weight`, `min_range`, `max_range`, `magic`, `staff`.
    Weapon {
        unit: UnitRef,
        property: String,
    },
    /// A property of a unit's equipped accessory: `weight` (0 without one).
    Accessory {
        unit: UnitRef,
        property: String,
    },
    /// Whether a unit is promoted.
    Promoted(UnitRef),
    /// The Def/Res bonus of the terrain a unit stands on.
    TerrainDefense(UnitRef),
    /// Whether a unit has already been activated this round.
    Activated(UnitRef),
    /// The amount carried by a StatMod parameter.
    AmountOfParam(String),
    Unary {
        op: UnaryOp,
        expr: Box<Expr>,
    },
    /// `ty` is the type of the operands: step arithmetic and comparisons follow the scale.
    Binary {
        op: BinaryOp,
        ty: Type,
        lhs: Box<Expr>,
        rhs: Box<Expr>,
    },
    Lookup {
        table: String,
        args: Vec<Expr>,
    },
    /// This strike's roll of the named die (the same value everywhere in one strike): the
    /// striking unit's draw, or with `target` the struck unit's own draw of the same kind of die
    /// (an opposed roll, `roll(acc, defender)`).
    Roll {
        die: String,
        #[serde(default)]
        target: bool,
    },
    /// A roll of dice written in place (`roll(2d6)`): an independent draw of its own.
    RollFresh {
        shape: DiceShape,
    },
    /// A roll of a `Dice` value (`roll(defender.absorption)`): an independent draw of whatever
    /// dice the expression gives in this strike. The expression reads no roll.
    RollValue {
        dice: Box<Expr>,
    },
    Call {
        function: Function,
        args: Vec<Expr>,
    },
    Has {
        unit: UnitRef,
        tag: String,
        args: Vec<Expr>,
    },
    /// Whether a unit has the tag or status held by a Tag/Status parameter.
    HasParam {
        unit: UnitRef,
        param: String,
    },
    If {
        condition: Box<Expr>,
        then: Box<Expr>,
        otherwise: Box<Expr>,
    },
}

impl Expr {
    /// Whether the expression rolls a die anywhere.
    pub fn rolls(&self) -> bool {
        match self {
            Expr::Roll { .. } | Expr::RollFresh { .. } | Expr::RollValue { .. } => true,
            Expr::Unary { expr, .. } => expr.rolls(),
            Expr::Binary { lhs, rhs, .. } => lhs.rolls() || rhs.rolls(),
            Expr::Lookup { args, .. } | Expr::Call { args, .. } | Expr::Has { args, .. } => args.iter().any(Expr::rolls),
            Expr::If { condition, then, otherwise } => condition.rolls() || then.rolls() || otherwise.rolls(),
            _ => false,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Function {
    Min,
    Max,
    Abs,
    Clamp,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum UnaryOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BinaryOp {
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

// ---------------------------------------------------------------- scenarios and armies

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SideId {
    Attacker,
    Defender,
}

impl SideId {
    pub fn word(self) -> &'static str {
        match self {
            SideId::Attacker => "attacker",
            SideId::Defender => "defender",
        }
    }
    pub fn other(self) -> SideId {
        match self {
            SideId::Attacker => SideId::Defender,
            SideId::Defender => SideId::Attacker,
        }
    }
}

/// Who wins when the time limit runs out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Win(SideId),
    Draw,
}

/// A scenario (seed 000, "Setting a Map and Scenario"): the map, what it must label, the time
/// limit, who deploys first, and each side's army requirements and victory conditions.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Scenario {
    pub name: String,
    pub title: Option<String>,
    pub doc: Option<String>,
    /// The map definition, as a project path.
    pub map: String,
    /// Regions the map must label (the zones and the regions conditions name are added).
    pub regions: Vec<String>,
    /// Time limit in rounds, and who wins when it runs out.
    pub rounds: Option<u32>,
    pub on_time_limit: Outcome,
    pub deploy_first: SideId,
    /// What chests hold in this scenario, by tile (overriding the map's).
    #[serde(default)]
    pub chests: Vec<((i64, i64), String)>,
    /// Fog of war (`fog` or `fog vision N`): each side sees only what its units' vision and
    /// `reveal(...)` show it. `None` (the default): everything is in sight.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fog: Option<Fog>,
    pub attacker: SideRules,
    pub defender: SideRules,
}

/// A scenario's fog of war. A unit sees the tiles within its vision — its `vision` attribute
/// where the ruleset has one, else this default — by the distance units move by (Manhattan).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fog {
    pub vision: u32,
}

impl Fog {
    /// The vision of `fog` without `vision N` (the seed gives none: 3, as in most fog maps of
    /// the games it follows).
    pub const DEFAULT_VISION: u32 = 3;
    /// The largest default vision a scenario may set (larger sees any map whole).
    pub const MAX_VISION: u32 = 64;
}

impl Scenario {
    pub fn side(&self, side: SideId) -> &SideRules {
        match side {
            SideId::Attacker => &self.attacker,
            SideId::Defender => &self.defender,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SideRules {
    pub side: SideId,
    pub doc: Option<String>,
    /// The deployment zone's region name on the map.
    pub zone: String,
    pub war_chest: i64,
    pub min_units: u32,
    pub max_units: u32,
    pub limits: Vec<Limit>,
    /// Scenario tags handed out: (tag, how many units may carry it).
    pub grants: Vec<(String, u32)>,
    /// Classes and items the army may use; empty means every one.
    pub allowed_classes: Vec<String>,
    pub allowed_items: Vec<String>,
    pub banned_classes: Vec<String>,
    pub banned_items: Vec<String>,
    /// How this side wins; `None` when it only wins by the time limit.
    pub win: Option<Condition>,
}

/// `at_least N selector` / `at_most N/D selector`: a count, or a fraction of the army.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Limit {
    pub at_least: bool,
    pub numerator: u32,
    /// 1 for a plain count.
    pub denominator: u32,
    pub selector: Selector,
    /// Units counted, or their cost weighed (`points`).
    #[serde(default, skip_serializing_if = "Measure::is_units")]
    pub measure: Measure,
}

/// What a limit measures of the units its selector picks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Measure {
    /// How many: a fraction is of the army's size.
    #[default]
    Units,
    /// Their cost: a fraction is of the army's whole cost (seed 003: "Half of the points must be
    /// spent on common troops").
    Points,
    /// Each unit's cost on its own: a fraction is of the war chest (seed 003: "No single
    /// character can be worth more than half the total points available").
    EachPoints,
}

impl Measure {
    pub fn is_units(&self) -> bool {
        *self == Measure::Units
    }
}

impl Limit {
    /// Whether `matching` of `total` (units, or points) satisfy the limit.
    pub fn holds(&self, matching: u64, total: u64) -> bool {
        let lhs = u128::from(matching) * u128::from(self.denominator.max(1));
        let rhs = u128::from(self.numerator) * if self.denominator > 1 { u128::from(total) } else { 1 };
        if self.at_least {
            lhs >= rhs
        } else {
            lhs <= rhs
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Selector {
    /// Every unit (`each unit ...`).
    Any,
    /// Units with the tag (on the class, an item, or granted).
    WithTag(String),
    Class(String),
    /// Units carrying a weapon of the type.
    Wielding(String),
    /// Units carrying a weapon that reaches 2 or more.
    Ranged,
}

/// A victory condition: one language for the engine's predicate and the objective text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Condition {
    /// A unit with the Seize action (a Leader) seizes a tile of the region.
    Seize {
        region: String,
    },
    RoutAll,
    RoutCount {
        count: u32,
    },
    /// Rout the enemy unit carrying the Leader tag.
    RoutLeader,
    RoutUnit {
        unit: String,
    },
    /// N units leave through the region with the Escape action (Fleeing).
    Escape {
        count: u32,
        region: String,
    },
    /// Hold the region (no enemy on it at the end of a round) for N rounds.
    Defend {
        region: String,
        rounds: u32,
    },
    Survive {
        rounds: u32,
    },
    /// Raze N tiles of the region (Saboteur).
    Raze {
        count: u32,
        region: String,
    },
    And(Box<Condition>, Box<Condition>),
    Or(Box<Condition>, Box<Condition>),
    Not(Box<Condition>),
}

impl Condition {
    /// The objective as a player reads it, from the same data the engine evaluates.
    pub fn text(&self) -> String {
        fn plural(n: u32, one: &str, many: &str) -> String {
            if n == 1 {
                format!("1 {one}")
            } else {
                format!("{n} {many}")
            }
        }
        match self {
            Condition::Seize { region } => format!("seize {region} with a Leader"),
            Condition::RoutAll => "rout every enemy unit".to_string(),
            Condition::RoutCount { count } => format!("rout {}", plural(*count, "enemy unit", "enemy units")),
            Condition::RoutLeader => "rout the enemy Leader".to_string(),
            Condition::RoutUnit { unit } => format!("rout the enemy unit {unit}"),
            Condition::Escape { count, region } => {
                format!("escape with {} through {region} (Fleeing)", plural(*count, "unit", "units"))
            }
            Condition::Defend { region, rounds } => {
                format!("hold {region} for {} with no enemy on it", plural(*rounds, "round", "rounds"))
            }
            Condition::Survive { rounds } => format!("survive {}", plural(*rounds, "round", "rounds")),
            Condition::Raze { count, region } => format!("raze {} in {region} (Saboteur)", plural(*count, "tile", "tiles")),
            Condition::And(a, b) => format!("{} and {}", a.text_nested(), b.text_nested()),
            Condition::Or(a, b) => format!("either {} or {}", a.text_nested(), b.text_nested()),
            Condition::Not(a) => match a.as_ref() {
                Condition::RoutCount { count } => format!("rout fewer than {}", plural(*count, "enemy unit", "enemy units")),
                Condition::RoutAll => "leave at least one enemy unit standing".to_string(),
                Condition::RoutLeader => "leave the enemy Leader standing".to_string(),
                Condition::RoutUnit { unit } => format!("leave the enemy unit {unit} standing"),
                other => format!("do not {}", other.text_nested()),
            },
        }
    }

    fn text_nested(&self) -> String {
        match self {
            Condition::And(..) | Condition::Or(..) => format!("({})", self.text()),
            _ => self.text(),
        }
    }

    /// Every region the condition names.
    pub fn regions(&self) -> Vec<&str> {
        match self {
            Condition::Seize { region }
            | Condition::Escape { region, .. }
            | Condition::Defend { region, .. }
            | Condition::Raze { region, .. } => {
                vec![region.as_str()]
            }
            Condition::And(a, b) | Condition::Or(a, b) => {
                let mut v = a.regions();
                v.extend(b.regions());
                v
            }
            Condition::Not(a) => a.regions(),
            _ => vec![],
        }
    }
}

/// An army written for one side of a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Army {
    pub name: String,
    pub title: Option<String>,
    pub scenario: String,
    pub side: SideId,
    pub units: Vec<ArmyUnit>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ArmyUnit {
    pub name: String,
    pub class: String,
    pub items: Vec<String>,
    /// Scenario tags the scenario granted to this unit (Leader, Fleeing, Saboteur).
    pub tags: Vec<String>,
}

/// A map as the battle engine sees it: terrain names row by row and the labelled regions.
/// Built from a map definition (`oc_atlas::Map::battle_map`); not part of compiled rules.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BattleMap {
    pub name: String,
    pub width: i64,
    pub height: i64,
    /// `terrain[y * width + x]`: a terrain of the rules.
    pub terrain: Vec<String>,
    pub regions: Vec<MapRegion>,
    pub chests: Vec<((i64, i64), String)>,
    pub doors: Vec<(i64, i64)>,
    /// Destructible tiles with their HP when the map overrides the terrain's.
    pub destructibles: Vec<((i64, i64), Option<i64>)>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MapRegion {
    pub name: String,
    /// deployment, seize, escape, raze, defend or label.
    pub kind: String,
    pub side: Option<SideId>,
    pub tiles: Vec<(i64, i64)>,
}

impl BattleMap {
    pub fn region(&self, name: &str) -> Option<&MapRegion> {
        self.regions.iter().find(|r| r.name == name)
    }
}
