//! Scenarios and armies: the map a scenario names, its time limit, each side's army limits and
//! victory conditions, and the armies written for it.

use serde::{Deserialize, Serialize};

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
    /// `advanced courage`: the ruleset's optional rules this scenario plays.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub advanced: Vec<String>,
    /// `deploy edges rolloff DICE` (seed 003: "the players dice for selection of their "home"
    /// table edge"): before deployment each side rolls the ruleset's `DICE`, ties rolling
    /// again; the winner deploys in the zone of its choice of the two.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub home_edges: Option<String>,
    /// `deploy alternate N` (seed 003: "Players then divide their forces into an equal number
    /// of Placement Units of roughly the same point values. They then take turns placing these
    /// groups"): each army is placed in N groups, the sides in turns.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub placement_units: Option<u32>,
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
    /// Its figures, all of its class (seed 003: "Units of one or more figures"): its hit points
    /// are the class's for each, its cost the class's and items' for each.
    #[serde(default = "one_figure", skip_serializing_if = "is_one_figure")]
    pub figures: u32,
    /// The unit of its army it begins the battle joined to (seed 003's mixed units, "the
    /// spearmen (plus my leader)"): it fights on in it as a body of its own, or its figures are
    /// added to that unit's where they are of its class and arms.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub joins: Option<String>,
}

/// The most figures one unit may have (an exact forecast walks each figure's strikes).
pub const MAX_FIGURES: u32 = 60;

fn one_figure() -> u32 {
    1
}

fn is_one_figure(n: &u32) -> bool {
    *n == 1
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
