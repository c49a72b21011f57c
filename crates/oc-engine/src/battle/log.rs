//! The battle log: one `Record` per line, with enough state to verify a replay.

use oc_model as m;
use serde::{Deserialize, Serialize};

use super::{Combatant, Tile, Turn};

/// A line of the battle log: what happened, with enough state to verify a replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)] // one `Turn` per line of a log; boxing would not pay
pub enum Record {
    Start {
        scenario: String,
        map: String,
        seed: u64,
        units: Vec<Combatant>,
        /// How the set-up went where the scenario rolls for edges or places in turns.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        setup: Option<super::Setup>,
        /// The weather rolled before the battle, where the scenario plays `advanced weather`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        weather: Option<super::advanced::WeatherRoll>,
    },
    Round {
        round: u32,
        first: m::SideId,
    },
    Turn {
        round: u32,
        turn: Turn,
        hp: Vec<(usize, i64)>,
        routed: Vec<usize>,
        note: String,
    },
    /// An attack declared earlier (`Turn` "declares an attack") resolved, once its target
    /// answered it with an activation of its own or declined: what it dealt, as a turn's line.
    Resolved {
        round: u32,
        unit: usize,
        target: usize,
        hp: Vec<(usize, i64)>,
        routed: Vec<usize>,
        note: String,
    },
    /// A courage check (the ruleset's `courage`): passed, or failed and the unit routs; or a
    /// save as a general falls (`leadership`): failed, the unit leaves the battle.
    Courage {
        unit: usize,
        note: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        hp: Vec<(usize, i64)>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        routed: Vec<usize>,
    },
    /// Terrain healing at the end of a turn.
    Recover {
        unit: usize,
        amount: i64,
        hp: i64,
    },
    /// A triggered effect (`on activated`, `on after_attack`, `on end_of_turn`).
    Trigger {
        unit: usize,
        on: m::Event,
        note: String,
    },
    /// A status effect taken or lost, or a shifter's change of form.
    Affliction {
        unit: usize,
        status: String,
        change: String,
    },
    /// With fog of war, what a side's sight changed to (after the start, each turn, each new
    /// round): enemies that came into sight with their tiles, enemies still in the battle that
    /// left it, and the tiles newly in sight as runs `[y, first x, last x]`.
    Seen {
        side: m::SideId,
        spotted: Vec<(usize, Tile)>,
        lost: Vec<usize>,
        tiles: Vec<[i64; 3]>,
    },
    /// Resources set at their event: (unit, amount).
    Refill {
        resource: String,
        values: Vec<(usize, i64)>,
    },
    /// The round's order of units, where the ruleset orders them by a resource.
    Order {
        units: Vec<usize>,
    },
    /// The roll-off for the next activation: each pair of rolls (attacker, defender), the last
    /// one decided, and the side that won.
    Rolloff {
        rolls: Vec<[i64; 2]>,
        side: m::SideId,
    },
    End {
        round: u32,
        outcome: m::Outcome,
        reason: String,
    },
}
