//! Effects and expressions: what tags, statuses and actions do ([`Effect`], [`Verb`], [`Event`]),
//! and the typed expressions they and the combat formulas read ([`Expr`]).

use serde::{Deserialize, Serialize};

use crate::{DiceShape, Type, Value};

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
    /// A strike of the holder's came out on the ruleset's charts (its combat formula `chart`
    /// was not 0): in battles, after the exchange.
    Chart,
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
        ("chart", Event::Chart),
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
    /// `cost EXPR`: the action's own price, the step variable `cost` (0 without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<Expr>,
    /// `charge RESOURCE`: a charged action. Each step pays what the unit can of the `cost` left,
    /// the part paid kept in this resource; the commands run when the whole cost is paid.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charge: Option<String>,
    /// `sequence N`: the action is step N of an activation's strict sequence of play, taken
    /// before the unit moves (`Turn::before`), after any action of a lower step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionTarget {
    Ally,
    Enemy,
    /// Every enemy within reach: the commands run once for each, `target` each in turn.
    Enemies,
    Unit,
    SelfOnly,
    /// The user itself (0 tiles away) or an ally within reach (seed 002's Item action: "Use an
    /// item from your pack on yourself or an adjacent ally").
    SelfOrAlly,
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
    /// `flee(unit, n)`: the unit moves n squares away from the user, straight where it can
    /// (free attacks from the zones it leaves apply).
    Flee,
    /// `gain(unit, resource, n)`: n more points of the resource (at least 0 after): a value
    /// rolled now and kept until the resource is next refilled (seed 002's Guard).
    Gain,
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
    /// `injure(unit, n, Status)`: attack the unit as `attack` does, and lay the status on it if
    /// the attack took hit points off it (seed 002: a technique that "inflicts a foe with an
    /// injury").
    Injure,
    /// `clear(unit, Status)`: take that one status off the unit (seed 002: standing up from
    /// prone), where `cure` takes every one.
    Clear,
    /// `break_weapon(unit)`: the weapon the unit wields is gone for the rest of the battle (one
    /// of it taken from its items); it wields the next weapon it carries, or none (seed 003's
    /// Fumble Chart: "weapon broken").
    BreakWeapon,
    /// `strike_friend(unit)`: the holder's attack lands on a friend of its own standing next to
    /// the unit (the nearest to the holder): a free attack on it, no answer, its strikes not
    /// charted (seed 003's Fumble Chart: "attack hits friend").
    StrikeFriend,
    /// `disengage(n)`: the user, held in contact by an enemy (the ruleset's `engaged`), steps up
    /// to n squares away from it (seed 003's "disengage").
    Disengage,
    /// `hide()`: the user is hidden where it stands: enemies may not target it (and, with fog,
    /// do not see it) until it moves, attacks, or an enemy's `search` finds it (seed 003's
    /// "hide").
    Hide,
    /// `search(n)`: every enemy hidden within n squares of the user is found (seed 003's
    /// "search").
    Search,
    /// `divide(n)`: the user, a unit of several figures, splits: n of its living figures form a
    /// new unit of their own on a free tile next to it (seed 003's "divide up (split the unit)").
    Divide,
    /// `join(unit)`: the user joins the friendly unit named, next to it, and is one unit with it
    /// from then on: its figures add to that unit's where they are of its class and arms, else
    /// they fight on in it as a body of their own (a mixed unit; seed 003's "join another unit").
    Join,
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
    /// How hidden the unit struck is from the striker: 0 in the open, 1 half hidden (a unit on
    /// the line between), 2 fully hidden (a wall on it). An exchange's, from the battle.
    Cover,
    /// The damage the current strike dealt (in `on hit` / `on crit`).
    Dealt,
    /// A strike's result on the ruleset's charts: its combat formula `chart` (in `on chart`).
    Chart,
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
    /// A unit's living figures (seed 003's "Units of one or more figures"): its hit points over
    /// one figure's, rounded up (0 once routed).
    Figures(UnitRef),
    /// One figure's hit points: the class's (a unit's whole is this times its figures).
    FigureHp(UnitRef),
    /// Whether a unit has already been activated this round.
    Activated(UnitRef),
    /// Whether a unit moved in the step that made this attack (a charge): false for a standing
    /// attack, for the struck unit and for a free attack.
    Moved(UnitRef),
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
