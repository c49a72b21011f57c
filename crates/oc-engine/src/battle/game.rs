//! Whole games: automatic deployment, and a game played to its end.

use oc_model as m;
use serde::{Deserialize, Serialize};

use super::{Act, Battle, BattleError, Record, State, Turn};
use crate::Engine;

/// How one game ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    pub outcome: m::Outcome,
    pub rounds: u32,
    /// Units routed on each side: [attacker, defender].
    pub lost: [u32; 2],
    pub reason: String,
}

/// Rounds a scenario without a time limit may last before the game is called a draw.
pub const ROUND_CAP: u32 = 40;

impl<'e> Battle<'e> {
    /// A battle of `seed` with the armies deployed as the scenario sets them up
    /// ([`super::deploy`]): what `oc battle`, `oc simulate` and `oc play` start from.
    pub fn set_up(
        engine: &'e Engine,
        scenario: &m::Scenario,
        map: &m::BattleMap,
        armies: [&m::Army; 2],
        seed: u64,
    ) -> Result<Battle<'e>, BattleError> {
        let deployment = super::deploy(engine, scenario, map, armies, seed);
        let [a, d] = &deployment.tiles;
        let mut battle = Battle::in_zones(engine, scenario, map, armies, [a, d], seed, deployment.zones)?;
        if let Some(Record::Start { setup, .. }) = battle.log.first_mut() {
            *setup = deployment.setup;
        }
        Ok(battle)
    }
}

/// Whoever picks the turns in [`play`] (the engine's AI is one): it reads the
/// battle and answers with a turn. The battle asks it through this trait only.
pub trait Controller {
    /// The turn for the side to act (`battle.to_act`), or `None` if it has nobody to activate.
    fn choose(&mut self, battle: &Battle<'_>) -> Option<Turn>;
}

/// Plays a whole game, `controller` choosing every turn of both sides.
pub fn play(
    engine: &Engine,
    scenario: &m::Scenario,
    map: &m::BattleMap,
    armies: [&m::Army; 2],
    seed: u64,
    controller: &mut dyn Controller,
) -> Result<(GameResult, Vec<Record>), BattleError> {
    play_watched(engine, scenario, map, armies, seed, controller, &mut |_| {})
}

/// [`play`], showing `watch` the battle once it is deployed, after every turn and at its end
/// (what a replay page draws its frames from). Watching changes nothing: the same seed plays
/// the same game.
pub fn play_watched(
    engine: &Engine,
    scenario: &m::Scenario,
    map: &m::BattleMap,
    armies: [&m::Army; 2],
    seed: u64,
    controller: &mut dyn Controller,
    watch: &mut dyn FnMut(&Battle<'_>),
) -> Result<(GameResult, Vec<Record>), BattleError> {
    let mut battle = Battle::set_up(engine, scenario, map, armies, seed)?;
    watch(&battle);
    let cap = scenario.rounds.unwrap_or(ROUND_CAP);
    let mut guard = 0u32;
    while battle.outcome.is_none() {
        guard += 1;
        if battle.round > cap || guard > 100_000 {
            battle.finish(m::Outcome::Draw, format!("no result after {cap} rounds"));
            break;
        }
        let Some(turn) = controller.choose(&battle) else {
            battle.finish(m::Outcome::Draw, "nobody can act".to_string());
            break;
        };
        battle.play_turn(turn)?;
        watch(&battle);
    }
    watch(&battle);
    let lost = [m::SideId::Attacker, m::SideId::Defender]
        .map(|s| battle.units.iter().filter(|u| u.side == s && u.state == State::Routed).count() as u32);
    let (outcome, reason) = battle.outcome.clone().unwrap_or((m::Outcome::Draw, String::new()));
    Ok((GameResult { outcome, rounds: battle.round, lost, reason }, battle.log))
}

impl Battle<'_> {
    /// Plays a turn a controller proposed, as a whole game does ([`play`]): where the rules
    /// refuse it, the unit waits instead, or, where it must attack the weakest, attacks the
    /// weakest in range from where it stands. Errs only if that is refused too.
    pub fn play_turn(&mut self, turn: Turn) -> Result<(), BattleError> {
        let unit = turn.unit;
        if self.turn(turn).is_ok() {
            return Ok(());
        }
        let instead = self.instead(unit);
        self.turn(instead)
    }

    /// The turn [`Battle::play_turn`] plays for `unit` where the rules refused its controller's:
    /// where it must attack the weakest, that attack from where it stands; else it waits.
    pub(crate) fn instead(&self, unit: usize) -> Turn {
        let forced =
            self.weakest_in_range(unit).first().map(|k| Turn { unit, act: Act::Attack { target: *k }, ..Default::default() });
        forced.unwrap_or(Turn { unit, ..Default::default() })
    }

    /// What a refused turn leaves changed of a copy [`Battle::turn_or_spoil`] spoiled, where
    /// [`Battle::turn`] puts the rest back: the outcome and the regions held (taken out of it).
    /// A copy made again and played up to that turn has the rest as `turn` leaves it, and is the
    /// battle `turn` leaves once [`Battle::leave`] puts these back.
    pub(crate) fn left(&mut self) -> Left {
        Left { outcome: self.state.outcome.take(), held: std::mem::take(&mut self.state.held) }
    }

    /// Puts back what a refused turn left ([`Battle::left`]).
    pub(crate) fn leave(&mut self, left: Left) {
        self.state.outcome = left.outcome;
        self.state.held = left.held;
    }
}

/// What a refused turn leaves changed where [`Battle::turn`] puts the rest back ([`Battle::left`]).
pub(crate) struct Left {
    outcome: Option<(m::Outcome, String)>,
    held: Vec<super::victory::Hold>,
}
