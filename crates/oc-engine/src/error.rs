//! What the engine refuses, as data: [`EngineError`] (a loadout or an exchange the rules do not
//! allow, or a model it cannot run) and [`BattleError`] (a turn or an action a battle's rules
//! refuse), each with a stable code (`CODES`), a message and a help line, turned into an
//! `oc_diag::Diagnostic` in one place ([`EngineError::diagnostic`], [`BattleError::diagnostic`]).

use oc_diag::{Diagnostic, Span};

oc_diag::codes! {
    UNKNOWN_NAME = "oc::engine::unknown_name", "a loadout names what the rules do not define",
"A loadout (`oc forecast --attacker Class:Weapon`, a unit of an army, a terrain to stand on) \
names a class, item, terrain, tag or status that the rules in use do not define. Names are case \
sensitive and must match a definition of these rules, not another ruleset's.\n\nExample:\n    oc \
forecast --attacker Myrmidn:IronSword --defender Fighter:IronAxe\n\nFix: use the suggested name, \
or give the rules that define it (`--ruleset`).";
    NOT_A = "oc::engine::not_a", "an item is used as what it is not",
"A loadout equips as a weapon an item that is not one (a Vulnerary), or wears as an accessory an \
item that is not one.\n\nFix: name a weapon after the class (`Class:Weapon`), and an accessory \
where an accessory is asked for.";
    CANNOT_WIELD = "oc::engine::cannot_wield", "a class cannot wield the weapon",
"The weapon's type is not one the class `wields` (for a shifter: the form it fights in).\n\n\
Fix: give the class a weapon of a type it wields, or add the type to its `wields`.";
    UNARMED = "oc::engine::unarmed", "an attacker has no weapon",
"An exchange starts with an attack, and the attacking unit holds no weapon.\n\nFix: give the \
attacker a weapon (`Class:Weapon`).";
    RESTRICTED = "oc::engine::restricted", "a status forbids the attacker its weapon",
"A status on the attacker restricts its weapon's type (`restrict(...)`), so it cannot attack \
with it now.\n\nFix: attack with another weapon, or cure the status first.";
    OUT_OF_REACH = "oc::engine::out_of_reach", "the defender is out of the weapon's reach",
"The weapon reaches `min..max` tiles and the defender stands at another distance.\n\nFix: \
forecast from a distance the weapon reaches (`--distance`), or with a weapon that reaches it.";
    TOO_MANY_FACES = "oc::engine::too_many_faces", "a strike rolls more joint dice values than an exact forecast enumerates",
"Exact forecasts enumerate every joint value of a strike's dice (or the classes of values its \
formulas tell apart). These units' dice together pass the bound (4,000,000).\n\nFix: roll fewer \
or smaller dice in one strike, or compare a big die only with values (`roll(hit) <= x`), which \
the engine counts by classes.";
    UNKNOWN_REACTION = "oc::engine::unknown_reaction", "no reaction of this name",
"A forecast or a duel states the reaction struck units take (`--reaction NAME`), and the \
ruleset has no reaction of that name.\n\nFix: name one of the ruleset's reactions, or `none`.";
    MODEL = "oc::engine::model", "the compiled rules are inconsistent",
"This is a bug in oc, or a model written by hand or by another tool: the engine met a \
definition the compiler would never write (a formula referring to a later one, an unknown \
attribute). Please report it with the rules that cause it.";
    NO_UNIT = "oc::battle::no_unit", "a turn names a unit the battle does not have",
"A turn or an action names a unit by its index, and the battle has no such unit (a stale or \
forged request).\n\nFix: name a unit of the battle.";
    OVER = "oc::battle::over", "the battle is over",
"A turn is played after the battle ended (a side won, or the time limit ran out).\n\nFix: \
start a new battle.";
    TURN = "oc::battle::turn", "it is not this unit's turn",
"Whose activation is next is the ruleset's (`turn { order ... }`): sides alternate, roll off, \
or act in a resource's order, and a unit acts once a round unless something lets it act again. \
The turn names a unit that may not act now.\n\nFix: act with a unit the battle names as the \
one to act (`Battle::may_act`).";
    MOVE = "oc::battle::move", "a unit cannot move there",
"The Terrain Table's costs for the unit's movement type, its movement points and the other \
units on the way decide where it can go this turn; the tile asked is not among them.\n\nFix: \
move to a tile it reaches (`Battle::reachable`).";
    TARGET = "oc::battle::target", "an attack or an action cannot target that unit or tile",
"The target is on the wrong side (an enemy for an attack, an ally for a heal), out of the \
weapon's or the action's reach, out of its side's sight under fog, behind terrain that \
`blocks_sight` where the rules have `line_of_sight` (an attack beyond contact needs a clear \
line between the two tiles' centres), or not in the battle.\n\n\
Fix: target a unit in reach and in sight, of the side the action names.";
    REQUIREMENT = "oc::battle::requirement", "the rules' requirement for the act does not hold",
"An action's `requires`, a step's `step_allowed` or its Stamina cost, a status that forces an \
attack on the weakest or forbids attacks: the rules refuse the act as it stands.\n\nFix: do \
what the requirement allows, or wait for it to hold.";
    ITEMS = "oc::battle::items", "the act needs an item the unit does not have, or room it lacks",
"A unit equips, uses, discards or trades an item it does not carry, an item without a `use`, \
or a trade leaves more items than the inventory holds.\n\nFix: act with the unit's own items, \
within its inventory.";
    PLACE = "oc::battle::place", "the act is not possible on that tile",
"Seizing, escaping and razing happen on the scenario's regions of that kind; a door opens \
where a door is, a chest gives its item once, a wall falls where it can be struck down.\n\n\
Fix: act on the tile the act needs.";
    SETUP = "oc::battle::setup", "the battle cannot be set up so",
"An army is set on the wrong side, deploys outside its zone or two units on one tile, the map \
has no zone the scenario names, or the AI named for a side does not exist.\n\nFix: deploy each \
army in its side's zone, one unit a tile, and name an AI the engine has.";
}

/// What the engine refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    /// A name the rules do not define (`kind`: class, item, terrain, tag, status), with the
    /// nearest names they do.
    Unknown { kind: &'static str, name: String, suggestions: Vec<String> },
    /// An item used as what it is not (`kind`: weapon, accessory).
    NotA { item: String, kind: &'static str },
    /// A class that cannot wield the weapon's type.
    CannotWield { class: String, weapon: String, weapon_type: String, wields: Vec<String> },
    /// An attacker without a weapon.
    Unarmed { class: String },
    /// An attacker whose weapon a status restricts.
    Restricted { class: String, weapon: String, weapon_type: String },
    /// A defender out of the weapon's reach.
    OutOfReach { weapon: String, min: i64, max: i64, distance: i64 },
    /// A strike whose dice have more joint values than a forecast enumerates.
    TooManyFaces { class: Option<String>, faces: u64, max: u64 },
    /// A reaction the ruleset does not have.
    UnknownReaction { name: String, known: Vec<String> },
    /// The compiled rules are inconsistent: a bug in oc, or a model from elsewhere.
    Model(String),
}

impl EngineError {
    /// A name the rules do not define, with the nearest of `candidates` (the one did-you-mean).
    pub(crate) fn unknown<'a>(kind: &'static str, name: &str, candidates: impl Iterator<Item = &'a str>) -> EngineError {
        let suggestions = oc_diag::closest(name, candidates, 3).into_iter().map(str::to_string).collect();
        EngineError::Unknown { kind, name: name.to_string(), suggestions }
    }

    pub(crate) fn model(message: impl Into<String>) -> EngineError {
        EngineError::Model(message.into())
    }

    pub fn code(&self) -> &'static str {
        match self {
            EngineError::Unknown { .. } => UNKNOWN_NAME,
            EngineError::NotA { .. } => NOT_A,
            EngineError::CannotWield { .. } => CANNOT_WIELD,
            EngineError::Unarmed { .. } => UNARMED,
            EngineError::Restricted { .. } => RESTRICTED,
            EngineError::OutOfReach { .. } => OUT_OF_REACH,
            EngineError::TooManyFaces { .. } => TOO_MANY_FACES,
            EngineError::UnknownReaction { .. } => UNKNOWN_REACTION,
            EngineError::Model(_) => MODEL,
        }
    }

    pub fn message(&self) -> String {
        match self {
            EngineError::Unknown { kind, name, .. } => format!("no {kind} `{name}` in these rules"),
            EngineError::NotA { item, kind } => {
                format!("`{item}` is not {} {kind}", if kind.starts_with('a') { "an" } else { "a" })
            }
            EngineError::CannotWield { class, weapon, weapon_type, wields } => {
                format!("a {class} cannot wield {weapon}: it is {weapon_type}, and the class wields {}", wields.join(", "))
            }
            EngineError::Unarmed { class } => format!("the attacking {class} has no weapon"),
            EngineError::Restricted { class, weapon, weapon_type } => {
                format!("the attacking {class} may not use {weapon} now (a status restricts {weapon_type})")
            }
            EngineError::OutOfReach { weapon, min, max, distance } => {
                format!("{weapon} reaches {min}..{max} tiles, and the defender is {distance} away")
            }
            EngineError::TooManyFaces { class: Some(class), faces, max } => {
                format!("a strike of the {class} rolls dice with {faces} joint values; exact forecasts enumerate at most {max}")
            }
            EngineError::TooManyFaces { class: None, faces, max } => {
                format!("a strike rolls dice with {faces} joint faces; exact forecasts enumerate at most {max}")
            }
            EngineError::UnknownReaction { name, known } => format!(
                "no reaction `{name}`; the ruleset's are: {}",
                if known.is_empty() { "none".to_string() } else { known.join(", ") }
            ),
            EngineError::Model(m) => format!("the compiled rules are inconsistent: {m}"),
        }
    }

    pub fn help(&self) -> Option<String> {
        match self {
            EngineError::Unknown { suggestions, .. } if !suggestions.is_empty() => {
                Some(format!("did you mean {}?", suggestions.iter().map(|c| format!("`{c}`")).collect::<Vec<_>>().join(" or ")))
            }
            EngineError::Unknown { kind, .. } => Some(format!("name a {kind} of these rules (`oc doc` lists them)")),
            EngineError::NotA { kind, .. } => {
                let kinds = match kind.strip_suffix('y') {
                    Some(stem) => format!("{stem}ies"),
                    None => format!("{kind}s"),
                };
                Some(format!("name {kinds} where {kinds} are asked for"))
            }
            EngineError::CannotWield { .. } => Some("give it a weapon of a type it wields".into()),
            EngineError::Unarmed { .. } => Some("give the attacker a weapon: `Class:Weapon`".into()),
            EngineError::Restricted { .. } => Some("attack with another weapon, or cure the status first".into()),
            EngineError::OutOfReach { min, .. } => {
                Some(format!("forecast from a distance the weapon reaches (`--distance {min}`)"))
            }
            EngineError::TooManyFaces { .. } => {
                Some("roll fewer or smaller dice in one strike, or compare a big die with values only".into())
            }
            EngineError::UnknownReaction { .. } => Some("name one of the ruleset's reactions, or `none`".into()),
            EngineError::Model(_) => Some("this is a bug in oc; please report it with the rules".into()),
        }
    }

    /// The refusal as a diagnostic, at `span` (what the caller knows of where the request was
    /// written: an argument, a unit of an army, a note).
    pub fn diagnostic(&self, span: Span) -> Diagnostic {
        let d = Diagnostic::error(self.code(), span, self.message());
        match self.help() {
            Some(h) => d.with_help(h),
            None => d,
        }
    }
}

impl std::fmt::Display for EngineError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message())
    }
}

impl std::error::Error for EngineError {}

/// The rule a battle's refusal is by.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rule {
    /// No such unit.
    NoUnit,
    /// The battle is over.
    Over,
    /// Whose activation it is.
    Turn,
    /// Where a unit can move.
    Move,
    /// Whom or what an attack or action may target, and from how far.
    Target,
    /// An action's requirement, a step's price, a status's rule on attacks.
    Requirement,
    /// Items carried, used, equipped, traded.
    Items,
    /// Where a verb may be carried out.
    Place,
    /// Setting the battle up: armies, deployment, the AIs.
    Setup,
}

impl Rule {
    pub fn code(self) -> &'static str {
        match self {
            Rule::NoUnit => NO_UNIT,
            Rule::Over => OVER,
            Rule::Turn => TURN,
            Rule::Move => MOVE,
            Rule::Target => TARGET,
            Rule::Requirement => REQUIREMENT,
            Rule::Items => ITEMS,
            Rule::Place => PLACE,
            Rule::Setup => SETUP,
        }
    }
}

impl Rule {
    /// What to do instead, for a help line.
    pub fn help(self) -> &'static str {
        match self {
            Rule::NoUnit => "name a unit of the battle",
            Rule::Over => "the battle has ended: start a new one",
            Rule::Turn => "act with a unit the battle names as the one to act",
            Rule::Move => "move to a tile the unit reaches this turn",
            Rule::Target => "target a unit or tile in reach, in sight, of the side the act names",
            Rule::Requirement => "do what the rules' requirement allows, or wait until it holds",
            Rule::Items => "act with the unit's own items, within its inventory",
            Rule::Place => "act on the tile the act needs",
            Rule::Setup => "deploy each army in its side's zone, one unit a tile, with an AI the engine has",
        }
    }
}

/// What a battle refuses: a turn, an action, a setup; or an exchange the engine refuses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BattleError {
    /// By `rule`, for the reason `why` (what a log's note quotes).
    Refused {
        rule: Rule,
        why: String,
    },
    Engine(EngineError),
}

impl BattleError {
    pub fn refused(rule: Rule, why: impl Into<String>) -> BattleError {
        BattleError::Refused { rule, why: why.into() }
    }

    /// The unit named `unit` does not carry `item` (to use, drop, take in hand or trade).
    pub fn not_carried(unit: &str, item: impl std::fmt::Display) -> BattleError {
        BattleError::refused(Rule::Items, format!("{unit} does not carry {item}"))
    }

    /// The unit named `unit` may not move again after its act (`then_to`).
    pub fn no_move_after_acting(unit: &str) -> BattleError {
        BattleError::refused(
            Rule::Move,
            format!("{unit} cannot move again after acting (only with `canto`, and never after an attack)"),
        )
    }

    pub fn code(&self) -> &'static str {
        match self {
            BattleError::Refused { rule, .. } => rule.code(),
            BattleError::Engine(e) => e.code(),
        }
    }

    /// The refusal as a diagnostic, at `span`.
    pub fn diagnostic(&self, span: Span) -> Diagnostic {
        match self {
            BattleError::Refused { rule, why } => Diagnostic::error(self.code(), span, why.clone()).with_help(rule.help()),
            BattleError::Engine(e) => e.diagnostic(span),
        }
    }
}

impl std::fmt::Display for BattleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BattleError::Refused { why, .. } => f.write_str(why),
            BattleError::Engine(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for BattleError {}

impl From<EngineError> for BattleError {
    fn from(e: EngineError) -> Self {
        BattleError::Engine(e)
    }
}
