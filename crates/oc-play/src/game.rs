//! One battle of a setup with the AIs on both sides, as `oc battle` plays it and `oc replay`
//! plays it again: its result and log, which alternative of an `either ... or ...` won, and,
//! when asked, the recording a replay page is drawn from (the same records either way).

use oc_engine::battle::{self, GameResult, Record};

use crate::error::Refusal;
use crate::log::{Source, LOG_FORMAT};
use crate::recording::Recording;
use crate::setup::{Ais, Setup};

/// A played battle.
pub struct Played {
    pub result: GameResult,
    pub records: Vec<Record>,
    /// The replay's recording, when one was asked for.
    pub recording: Option<Recording>,
    /// Which alternative of an `either ... or ...` won (not asked of a recorded battle).
    pub branch: Option<String>,
}

/// Plays the battle from `seed`, recorded for a replay when `record` is asked for.
pub fn play(setup: &Setup, seed: u64, ais: &Ais, record: bool) -> Result<Played, Refusal> {
    let mut sides = ais.controllers().map_err(Refusal::new)?;
    if record {
        let rec = crate::recording::play(setup, seed, Box::new(sides)).map_err(|e| Refusal::new(e.to_string()))?;
        return Ok(Played { result: rec.result.clone(), records: rec.records.clone(), recording: Some(rec), branch: None });
    }
    let armies = [&setup.armies[0], &setup.armies[1]];
    let mut branch = None;
    let mut watch = |b: &battle::Battle<'_>| {
        if b.outcome.is_some() {
            branch = b.winning_branch();
        }
    };
    let (result, records) =
        battle::play_watched(&setup.engine, &setup.scenario, &setup.map, armies, seed, &mut sides, &mut watch)
            .map_err(|e| Refusal::new(e.to_string()))?;
    Ok(Played { result, records, recording: None, branch })
}

/// The header of the log of `setup` played from `seed` by `ais`.
pub fn source(setup: &Setup, seed: u64, ais: &Ais) -> Source {
    Source {
        event: "source".into(),
        format: LOG_FORMAT,
        file: setup.logical.clone(),
        scenario: setup.scenario.name.clone(),
        attacker: setup.armies[0].name.clone(),
        defender: setup.armies[1].name.clone(),
        seed,
        attacker_ai: ais.attacker.clone(),
        defender_ai: ais.defender.clone(),
    }
}

/// The AIs a log names.
pub fn ais_of(source: &Source) -> Ais {
    Ais { attacker: source.attacker_ai.clone(), defender: source.defender_ai.clone() }
}

/// The name a log's header gives a side a person played (`oc play`): its turns are the log's own.
pub const PLAYER: &str = "player";

/// The turns a person played, as a log holds them: what a replay plays for a side whose
/// header names [`PLAYER`].
#[derive(Clone, Debug, Default)]
pub struct Script {
    /// Every turn of the log, in order (the AI's among them: a unit made in battle, divided off
    /// another, is known to no side until the battle has made it).
    turns: std::collections::VecDeque<battle::Turn>,
    players: [bool; 2],
}

impl Script {
    /// The turns of `records`, of which those of units of the sides `players` names are played.
    pub fn of(records: &[Record], players: [bool; 2]) -> Script {
        let turns = records
            .iter()
            .filter_map(|r| match r {
                Record::Turn { turn, .. } => Some(turn.clone()),
                _ => None,
            })
            .collect();
        Script { turns, players }
    }

    /// The next turn of `side` in battle `b`, if the log has one left: the AI's turns logged
    /// before it (played again by the AI) are passed over.
    pub fn next(&mut self, b: &battle::Battle<'_>, side: oc_model::SideId) -> Option<battle::Turn> {
        let side_of = |t: &battle::Turn| b.units.get(t.unit).map(|u| u.side);
        while let Some(s) = self.turns.front().and_then(side_of) {
            if self.players.get(side_index(s)).copied().unwrap_or(false) {
                break;
            }
            self.turns.pop_front();
        }
        self.turns.pop_front_if(|t| side_of(t) == Some(side))
    }
}

pub(crate) fn side_index(side: oc_model::SideId) -> usize {
    match side {
        oc_model::SideId::Attacker => 0,
        oc_model::SideId::Defender => 1,
    }
}

/// Which sides a log's header says a person played.
pub fn players_of(source: &Source) -> [bool; 2] {
    [source.attacker_ai == PLAYER, source.defender_ai == PLAYER]
}

/// The AIs for a game where a person plays some sides: the logged turns for those, the named
/// AI for the others; `exhausted` notes that a played side ran out of logged turns (the game
/// was saved before its end).
struct Replayer {
    ais: [Option<Box<dyn battle::Controller + Send>>; 2],
    script: Script,
    exhausted: bool,
}

impl battle::Controller for Replayer {
    fn choose(&mut self, b: &battle::Battle<'_>) -> Option<battle::Turn> {
        let side = b.to_act;
        match self.ais.get_mut(side_index(side)).and_then(Option::as_mut) {
            Some(ai) => ai.choose(b),
            None => {
                let next = self.script.next(b, side);
                self.exhausted |= next.is_none();
                next
            }
        }
    }
}

/// A log played again: every side by the AI its header names, or, for a side a person played
/// ([`PLAYER`]), by the turns the log holds. `unfinished`: the log stops before the game's end
/// (a game saved to be resumed); its records are then those of the log's length.
pub struct Replayed {
    pub played: Played,
    pub unfinished: bool,
    /// The replay could not go on (the rules refused a turn the log holds, and its stand-in
    /// too): why; `played` holds the records made until then.
    pub stopped: Option<String>,
}

/// Plays a log again from its header and records (the records after the header), recorded for
/// a replay page when `record` is asked for (not of an unfinished game).
pub fn replay(setup: &Setup, source: &Source, logged: &[Record], record: bool) -> Result<Replayed, Refusal> {
    let players = players_of(source);
    if players == [false, false] {
        return play(setup, source.seed, &ais_of(source), record).map(|played| Replayed {
            played,
            unfinished: false,
            stopped: None,
        });
    }
    let make = |name: &str, player: bool| -> Result<Option<Box<dyn battle::Controller + Send>>, Refusal> {
        if player {
            return Ok(None);
        }
        oc_engine::ai::by_name(name).map(Some).ok_or_else(|| {
            Refusal::new(format!("the log names no AI `{name}`")).with_help(format!(
                "the AIs are {}, and `{PLAYER}` for a side a person played",
                oc_engine::ai::names().join(", ")
            ))
        })
    };
    let ais = [make(&source.attacker_ai, players[0])?, make(&source.defender_ai, players[1])?];
    let script = Script::of(logged, players);
    let ended = logged.iter().any(|r| matches!(r, Record::End { .. }));
    let mut replayer = Replayer { ais, script, exhausted: false };
    let armies = [&setup.armies[0], &setup.armies[1]];
    if record && ended {
        // A finished game: the replay page's recording (the turns run out only at the end).
        let rec = crate::recording::play(setup, source.seed, Box::new(replayer)).map_err(|e| Refusal::new(e.to_string()))?;
        let played = Played { result: rec.result.clone(), records: rec.records.clone(), recording: Some(rec), branch: None };
        return Ok(Replayed { played, unfinished: false, stopped: None });
    }
    // The records so far, kept as the game goes: where the rules refuse a logged turn (an edited
    // log), the check says at which line the replay stopped, not only why.
    let mut so_far: Vec<Record> = Vec::new();
    let mut watch = |b: &battle::Battle<'_>| so_far.extend(b.log.iter().skip(so_far.len()).cloned());
    let played = battle::play_watched(&setup.engine, &setup.scenario, &setup.map, armies, source.seed, &mut replayer, &mut watch);
    let (mut result, mut records) = match played {
        Ok(p) => p,
        Err(e) => {
            let result = battle::GameResult { outcome: oc_model::Outcome::Draw, rounds: 0, lost: [0, 0], reason: e.to_string() };
            let played = Played { result, records: so_far, recording: None, branch: None };
            return Ok(Replayed { played, unfinished: false, stopped: Some(e.to_string()) });
        }
    };
    let unfinished = replayer.exhausted && !ended;
    if unfinished {
        // The end the replay called when the logged turns ran out is not the game's.
        if matches!(records.last(), Some(Record::End { .. })) {
            records.pop();
        }
        result.reason = "unfinished".into();
    }
    Ok(Replayed { played: Played { result, records, recording: None, branch: None }, unfinished, stopped: None })
}

/// A log played again and checked line by line ([`check`]).
pub struct Checked {
    /// The lines replayed (after the header).
    pub steps: usize,
    /// The turns among them (a replay page's steps).
    pub turns: usize,
    /// Where the log and its replay part; `None`: identical.
    pub mismatch: Option<crate::log::Mismatch>,
    /// The replay page's recording, when asked for (of a finished game).
    pub recording: Option<Recording>,
    /// The log is a game saved to be resumed.
    pub unfinished: bool,
}

/// `oc replay`: the log `opened` played again on `setup` (the scenario and armies its header
/// names) with the AIs it names (a side a person played plays the log's own turns), and every
/// line checked byte for byte.
pub fn check(setup: &Setup, opened: &crate::log::Opened, record: bool) -> Result<Checked, Refusal> {
    let replayed = match replay(setup, &opened.source, &opened.records, record) {
        Ok(r) => r,
        // Recorded for a page, a replay that stops says only why: played again unrecorded to
        // say where.
        Err(_) if record => replay(setup, &opened.source, &opened.records, false)?,
        Err(e) => return Err(e),
    };
    let expected = crate::log::lines(&opened.source, &replayed.played.records);
    let mismatch = match &replayed.stopped {
        Some(why) => Some(crate::log::verify_stopped(&opened.text, &expected, why)),
        None => crate::log::verify(&opened.text, &expected).err(),
    };
    let turns = replayed.played.records.iter().filter(|r| matches!(r, oc_engine::battle::Record::Turn { .. })).count();
    Ok(Checked {
        steps: expected.len().saturating_sub(1),
        turns,
        mismatch,
        recording: replayed.played.recording,
        unfinished: replayed.unfinished,
    })
}
