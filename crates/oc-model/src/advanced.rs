//! The optional rules a scenario switches on (seed 003's advanced rules: area-affecting weapons,
//! charging, courage, leadership, situations, weather), as plain serde data.

use serde::{Deserialize, Serialize};

use crate::*;

/// The advanced rule of charging (seed 003: "Units, mounted or unmounted, using "charge weapons"
/// have the special option of making a charge. Charging units can attack multiple ranks, and
/// even multiple units."): a unit for which `with` holds (`self`, and `max_hp` of
/// [`COURAGE_PARAMS`]) that moves and attacks in one step strikes, after its target, every other
/// ready enemy in contact with it where the move ended, each in an exchange of its own, in unit
/// order, while it stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Charging {
    pub with: Expr,
}

/// The advanced rule of formations (seed 003: "A units may now organize itself into a mob,
/// phalanx, or line, open or closed formation. Formations provide bonuses (and penalties) to
/// movement and combat."): where a scenario plays it, every unit holds the tags `tags` (tags
/// without parameters), as if the scenario had granted them: their actions (typically steps of
/// the sequence before the move) lay the formations, statuses whose modifiers act in exchanges,
/// forecasts and movement like any status's.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Formations {
    pub tags: Vec<String>,
}

/// Area-affecting weapons (seed 003: "Rules allow for special weapons (such as firearms) to affect
/// an area, rather than a single target."): an attack by a unit for which `within` (Int, reading
/// `self` and `max_hp` of [`COURAGE_PARAMS`]) is above 0 strikes, after its target, every other
/// ready unit on the table, friend or foe (the attacker aside), within that many tiles of the
/// target, hidden or not, each in an exchange of its own (a lone strike, no answer) at the
/// target's distance from the attacker, nearest the target first (unit order on a tie), while the
/// attacker stands.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Area {
    pub within: Expr,
}

/// The advanced rule of leadership (seed 003: "Players must designate one general per army.
/// Penalties apply to units too far from the general. If the general dies, his units must make
/// saving rolls to avoid leaving the battle."). The general is the unit of a side that has the
/// tag `general` (a scenario grants it); a unit farther than `beyond` tiles from its general
/// bears the status `out_of_command` (its modifiers are the penalty); when a general dies, each
/// unit of his side still on the table rolls `save`, and a unit that fails leaves the battle,
/// counted as routed. `save` reads `self` and `max_hp` ([`COURAGE_PARAMS`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Leadership {
    pub general: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beyond: Option<(i64, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub save: Option<CourageRoll>,
}

/// Special combat situations (seed 003: "New modifiers apply due to the tactical situation -
/// whether an opponent is on higher ground, attacking from rear or flank, blind, flying"), read by the
/// formulas through what the battle lays on each unit by where it stands: `ground`, an Int
/// attribute set to the `elevation` of its tile's terrain; `flank`, a status borne by a unit in
/// contact (distance 1) with two or more enemies; `rear`, a status borne instead by one with
/// enemies in contact on two opposite sides.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Situations {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ground: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flank: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rear: Option<String>,
    /// "blind": a status borne by a hidden unit (the `hide` verb), what no enemy sees: read on
    /// the defender, the attacker strikes at what it cannot see; on the attacker, its blow comes
    /// from hiding.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blind: Option<String>,
    /// "flying": (tag, status): a unit with the tag (its class's, or its own) bears the status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flying: Option<(String, String)>,
    /// "units of mixed troop types": a status borne by a unit with a living body of another
    /// class or arms joined to it (a mixed unit), and by each such body.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mixed: Option<String>,
}

/// The weather (seed 003: "Ten varieties of weather are identified, and can be determined
/// pre-game by a random dieroll"): before the battle the die `dice` is rolled with the set-up's
/// own dice, and every unit bears the status of the face rolled (`faces`, one for every face)
/// for the whole battle.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Weather {
    pub dice: String,
    pub faces: Vec<(i64, String)>,
}

/// The advanced rule of courage (seed 003: "Units need to make a Courage check when they take
/// heavy losses, see friendly units flee, or approach frightening creatures. Failing a Courage
/// roll causes a unit to rout, giving the enemy the opportunity to pursue."). Every formula reads
/// `self`, the unit testing. A unit that fails routs: on each activation it flees toward its own
/// side's edge as far as it moves, attacking nothing, and leaves the table (routed) on reaching
/// it; a rally roll passed ends the rout.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Courage {
    /// The check: passed when the roll compares so with the target.
    pub check: CourageRoll,
    /// "heavy losses": a unit struck while this holds tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub losses: Option<Expr>,
    /// "see friendly units flee": a friendly unit routing within this many tiles.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub routs_within: Option<i64>,
    /// "approach frightening creatures": an enemy with the tag within this many tiles, once each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fear: Option<(String, i64)>,
    /// The rally roll a routing unit's activation may try.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rally: Option<CourageRoll>,
    /// Each enemy in contact with a fleeing unit strikes it once as it goes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub pursuit: bool,
    /// A side whose every unit on the table is routing surrenders: all of them count as routed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub surrender: bool,
}

/// What the courage formulas read besides `self`: `max_hp`, the unit's hit points at full
/// strength (`self.hp` is what it has left).
pub const COURAGE_PARAMS: &[(&str, Type)] = &[("max_hp", Type::Int)];

/// `ROLL OP TARGET`: two numbers compared (`roll(courage) <= self.courage`), logged as "rolled
/// ROLL against TARGET".
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CourageRoll {
    pub roll: Expr,
    pub op: BinaryOp,
    pub target: Expr,
}
