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

/// Turns one game may last before it is called a draw, at the least (more where its time limit
/// and units ask for more: `Battle::past_bounds`).
const MAX_TURNS: u32 = 100_000;

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
    let battle = Battle::set_up(engine, scenario, map, armies, seed)?;
    play_out(battle, scenario, controller, watch)
}

/// [`play_watched`] for a game whose log no one reads (a simulation's, a tournament's): the
/// words of its strikes are not worked out (`Battle::unlogged`). The same turns, dice and
/// result as [`play_watched`]'s.
pub fn play_unlogged(
    engine: &Engine,
    scenario: &m::Scenario,
    map: &m::BattleMap,
    armies: [&m::Army; 2],
    seed: u64,
    controller: &mut dyn Controller,
    watch: &mut dyn FnMut(&Battle<'_>),
) -> Result<GameResult, BattleError> {
    let mut battle = Battle::set_up(engine, scenario, map, armies, seed)?;
    battle.unlogged();
    play_out(battle, scenario, controller, watch).map(|(result, _)| result)
}

/// `battle`, just set up, played to its end by `controller`, shown to `watch` as
/// [`play_watched`] says.
fn play_out(
    mut battle: Battle<'_>,
    scenario: &m::Scenario,
    controller: &mut dyn Controller,
    watch: &mut dyn FnMut(&Battle<'_>),
) -> Result<(GameResult, Vec<Record>), BattleError> {
    watch(&battle);
    let cap = scenario.rounds.unwrap_or(ROUND_CAP);
    let mut turns = 0u32;
    while battle.outcome.is_none() {
        turns += 1;
        if let Some(why) = battle.past_bounds(cap, turns) {
            battle.finish(m::Outcome::Draw, why);
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
    // A game called a draw at the round cap ended after its last round, not in the next.
    Ok((GameResult { outcome, rounds: battle.round.min(cap), lost, reason }, battle.log))
}

impl Battle<'_> {
    /// Why a game played to its end stops as a draw before its `turns`-th turn, with `cap`
    /// rounds at most (the scenario's time limit, else [`ROUND_CAP`]): past its last round, or
    /// past the bound on one game's turns (units that reactivate one another forever), said as
    /// what it is, not as the time limit. `None` while it goes on.
    pub fn past_bounds(&self, cap: u32, turns: u32) -> Option<String> {
        // Enough for every unit to act eight times a round to the time limit: a long limit on a
        // crowded field is the limit's to end, not the bound's.
        let units = u32::try_from(self.state.units.len()).unwrap_or(u32::MAX);
        let bound = MAX_TURNS.max(cap.saturating_add(1).saturating_mul(units.saturating_add(1)).saturating_mul(8));
        if self.round > cap {
            Some(format!("no result after {cap} rounds"))
        } else if turns > bound {
            Some(format!("no result after {bound} turns (in round {}): the most one game is played", self.round))
        } else {
            None
        }
    }

    /// Plays a turn a controller proposed, as a whole game does ([`play`]): where the rules
    /// refuse it, the unit waits instead, or, where it must attack the weakest, attacks the
    /// weakest in range from where it stands. Errs only if that is refused too.
    pub fn play_turn(&mut self, turn: Turn) -> Result<(), BattleError> {
        self.play_turn_as(turn).map(|_| ())
    }

    /// [`Battle::play_turn`], saying how it went: `None` where the turn was played,
    /// `Some(instead)` where the rules refused it and its stand-in `instead` was played.
    pub(crate) fn play_turn_as(&mut self, turn: Turn) -> Result<Option<Turn>, BattleError> {
        let unit = turn.unit;
        if self.turn(turn).is_ok() {
            return Ok(None);
        }
        let instead = self.instead(unit);
        self.turn(instead.clone()).map(|()| Some(instead))
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

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]

    use super::{play_unlogged, play_watched, Battle};
    use crate::ai::{by_name, Sides};

    /// The round, and where each unit stands with its hit points.
    type Frame = (u32, Vec<(crate::battle::Tile, i64)>);

    /// What a watcher sees of a turn ([`Frame`]).
    fn frame(b: &Battle<'_>) -> Frame {
        (b.round, b.units.iter().map(|u| (u.pos, u.hp)).collect())
    }

    /// A game played without the words of its log (`play_unlogged`, as `oc simulate`,
    /// `oc fairness` and `oc tournament` play theirs) is the game `oc battle` plays and logs:
    /// turn after turn the same, the same result. On shipped scenarios of the seeds: ratings
    /// (Grado Keep), fog (the Woodcutter's Night), units of figures (the Storm at the River),
    /// reactions (the Elder Hall); greedy and the default AI, two seeds each.
    #[test]
    fn an_unlogged_game_plays_as_the_logged_one() {
        let fields = [
            ("grado-keep.oc", "grado-keep.map.toml"),
            ("zaha-woods-night.oc", "zaha-woods.map.toml"),
            ("battlestorm-narube.oc", "narube-river.map.toml"),
            ("stamina-caer-pelyn.oc", "caer-pelyn.map.toml"),
        ];
        let read = |path: &str| {
            std::fs::read_to_string(format!("{}/../../scenarios/{path}", env!("CARGO_MANIFEST_DIR"))).expect("a shipped file")
        };
        for (file, map) in fields {
            let (engine, battle_map) =
                crate::testing::field_named((file, &read(file)), (&format!("maps/{map}"), &read(&format!("maps/{map}"))));
            let s = engine.rules.scenarios.first().expect("a scenario");
            let army = |side| engine.rules.armies.iter().find(|a| a.side == side).expect("an army");
            let armies = [army(oc_model::SideId::Attacker), army(oc_model::SideId::Defender)];
            for ai in ["greedy", crate::ai::DEFAULT] {
                for seed in [1, 2] {
                    let make = || Sides::new(by_name(ai).expect("an AI"), by_name(ai).expect("an AI"));
                    let (mut logged, mut unlogged) = (Vec::new(), Vec::new());
                    let (result, records) =
                        play_watched(&engine, s, &battle_map, armies, seed, &mut make(), &mut |b| logged.push(frame(b)))
                            .expect("the battle plays");
                    let quiet =
                        play_unlogged(&engine, s, &battle_map, armies, seed, &mut make(), &mut |b| unlogged.push(frame(b)))
                            .expect("the battle plays");
                    assert_eq!(logged, unlogged, "{file}, {ai}, seed {seed}: the same turns");
                    assert_eq!(format!("{result:?}"), format!("{quiet:?}"), "{file}, {ai}, seed {seed}: the same result");
                    // The logged game has the words the unlogged one leaves out.
                    assert!(
                        records.iter().any(|r| format!("{r:?}").contains(" attacks ")),
                        "{file}, {ai}, seed {seed}: the logged game's strikes have words"
                    );
                }
            }
        }
    }

    /// [`Battle::play_turn_as`] plays a turn as [`Battle::play_turn`] does and says how: the
    /// turn itself where the rules take it, else (a move onto an ally's tile, refused) the unit's
    /// stand-in, with the battle as `play_turn` leaves it.
    #[test]
    fn a_turn_played_as_a_game_plays_it_says_what_stood_in() {
        let read = |path: &str| {
            std::fs::read_to_string(format!("{}/../../scenarios/{path}", env!("CARGO_MANIFEST_DIR"))).expect("a shipped file")
        };
        let (engine, battle_map) = crate::testing::field_named(
            ("grado-keep.oc", &read("grado-keep.oc")),
            ("maps/grado-keep.map.toml", &read("maps/grado-keep.map.toml")),
        );
        let s = engine.rules.scenarios.first().expect("a scenario");
        let army = |side| engine.rules.armies.iter().find(|a| a.side == side).expect("an army");
        let armies = [army(oc_model::SideId::Attacker), army(oc_model::SideId::Defender)];
        let b = Battle::set_up(&engine, s, &battle_map, armies, 1).expect("the battle starts");
        let mine: Vec<usize> = (0..b.units.len()).filter(|k| b.may_act(b.to_act).contains(k)).collect();
        let (&unit, &ally) = (mine.first().expect("a unit"), mine.get(1).expect("another"));
        let onto_ally = super::Turn { unit, to: Some(b.units[ally].pos), ..Default::default() };
        let (mut played, mut game) = (b.fork(None), b.fork(None));
        let stood_in = played.play_turn_as(onto_ally.clone()).expect("its stand-in is played");
        assert_eq!(stood_in, Some(game.instead(unit)), "refused: the stand-in");
        game.play_turn(onto_ally).expect("a game plays it");
        assert_eq!(frame(&played), frame(&game), "the battle a game leaves");
        let wait = super::Turn { unit, ..Default::default() };
        let mut b = b;
        assert_eq!(b.play_turn_as(wait).ok(), Some(None), "taken: the turn itself");
    }
}
