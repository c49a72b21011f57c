//! Argument groups several commands share: a game (battle, tune), the AIs of both sides, a
//! matchup (forecast, duel).

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Game {
    /// The `.oc` file with the scenario and its armies (or importing them).
    pub file: PathBuf,
    /// Which scenario, when the file defines several.
    #[arg(long)]
    pub scenario: Option<String>,
    /// The attacker's army (default: the only one written for the attacker).
    #[arg(long)]
    pub attacker: Option<String>,
    /// The defender's army.
    #[arg(long)]
    pub defender: Option<String>,
}

/// Which AI plays each side.
#[derive(clap::Args)]
pub struct AiChoice {
    /// The attacker's AI.
    #[arg(long, value_name = "NAME", default_value = oc_engine::ai::DEFAULT, value_parser = ai_names())]
    pub attacker_ai: String,
    /// The defender's AI.
    #[arg(long, value_name = "NAME", default_value = oc_engine::ai::DEFAULT, value_parser = ai_names())]
    pub defender_ai: String,
}

impl AiChoice {
    pub fn ais(&self) -> oc_play::Ais {
        oc_play::Ais { attacker: self.attacker_ai.clone(), defender: self.defender_ai.clone() }
    }
}

/// The AIs by name, each with what it does (`--help` lists them; another name is refused).
pub fn ai_names() -> clap::builder::PossibleValuesParser {
    clap::builder::PossibleValuesParser::new(
        oc_engine::ai::AIS.iter().map(|(name, what)| clap::builder::PossibleValue::new(*name).help(*what)),
    )
}

#[derive(clap::Args)]
pub struct Matchup {
    /// The attacking unit: CLASS or CLASS:WEAPON (default: the class's kit weapon).
    #[arg(long)]
    pub attacker: String,
    /// The defending unit: CLASS or CLASS:WEAPON.
    #[arg(long)]
    pub defender: String,
    /// A built-in ruleset (officers_chess, officers_chess_v06, stamina, battlestorm, skirmish) or a path to .oc files.
    #[arg(long)]
    pub ruleset: Option<String>,
    /// The terrain the attacker stands on (a terrain's name; default none).
    #[arg(long)]
    pub attacker_terrain: Option<String>,
    /// The terrain the defender stands on (a terrain's name; default none).
    #[arg(long)]
    pub defender_terrain: Option<String>,
    /// Tiles between the units (default: the nearest the attacker's weapon reaches).
    #[arg(long)]
    pub distance: Option<i64>,
    /// The attacker's HP as the exchange begins (default its full HP).
    #[arg(long)]
    pub attacker_hp: Option<i64>,
    /// The defender's HP as the exchange begins (default its full HP).
    #[arg(long)]
    pub defender_hp: Option<i64>,
    /// An accessory the attacker wears (an accessory's name).
    #[arg(long)]
    pub attacker_accessory: Option<String>,
    /// An accessory the defender wears (an accessory's name).
    #[arg(long)]
    pub defender_accessory: Option<String>,
    /// Status effects on the attacker (repeatable).
    #[arg(long)]
    pub attacker_status: Vec<String>,
    /// Status effects on the defender (repeatable).
    #[arg(long)]
    pub defender_status: Vec<String>,
    /// The reaction a struck unit takes before each strike, where the ruleset has reactions (a
    /// reaction's name, or `none`); without it each takes the one that leaves it the least
    /// expected damage.
    #[arg(long)]
    pub reaction: Option<String>,
    /// The attacker moved in the step that made the attack (a charge, where the rules read
    /// `attacker.moved`).
    #[arg(long)]
    pub moved: bool,
    /// How hidden the defender is, where the rules read `cover`: 0 in the open, 1 half hidden
    /// (a unit on the line between), 2 fully hidden (a wall on it).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(i64).range(0..=2))]
    pub cover: i64,
    /// Use a shifter's Normal form for the attacker instead of its Transformed one.
    #[arg(long)]
    pub attacker_normal: bool,
    /// Use a shifter's Normal form for the defender instead of its Transformed one.
    #[arg(long)]
    pub defender_normal: bool,
}

impl Matchup {
    pub fn stated(&self) -> oc_play::matchup::Stated<'_> {
        oc_play::matchup::Stated { reaction: self.reaction.as_deref(), moved: self.moved, cover: self.cover }
    }

    pub fn sides(&self) -> (oc_play::matchup::Side, oc_play::matchup::Side) {
        (
            oc_play::matchup::Side {
                spec: self.attacker.clone(),
                terrain: self.attacker_terrain.clone(),
                hp: self.attacker_hp,
                statuses: self.attacker_status.clone(),
                accessory: self.attacker_accessory.clone(),
                normal_form: self.attacker_normal,
            },
            oc_play::matchup::Side {
                spec: self.defender.clone(),
                terrain: self.defender_terrain.clone(),
                hp: self.defender_hp,
                statuses: self.defender_status.clone(),
                accessory: self.defender_accessory.clone(),
                normal_form: self.defender_normal,
            },
        )
    }
}
