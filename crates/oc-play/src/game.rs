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
