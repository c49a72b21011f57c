//! Many AI games of one scenario in parallel, counted: win rates, rounds, units lost, endings.
//! `Shard` K of N plays only the games `g` with `g mod N = K - 1` (the same seeds as the whole
//! run) and its counts are saved as a [`Part`]; [`merge`] sums every part of a run into exactly
//! the counts the whole run would have made (summing is order-free).
//!
//! **Saved format:** a part file is one JSON object with `kind` = [`PART_KIND`] and `version` =
//! [`PART_VERSION`]; a file of another kind or version is refused by [`read_part`], not misread.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use oc_engine::battle::{self, GameResult};
use oc_engine::Engine;
use oc_model::{Outcome, SideId};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::Refusal;
use crate::parts;
use crate::setup::{outcome_word, Ais, Setup};
use crate::stats::game_seed;

/// What a part file says it is (its `kind`), and the version of its shape.
pub const PART_KIND: &str = "oc simulate part";
/// 3: the header carries the scenario's round limit (for the plot's mark).
pub const PART_VERSION: u32 = 3;

/// Games played with one engine (see [`run`]).
const GAMES_PER_ENGINE: u64 = 1024;

pub use crate::parts::{parse_shard, Shard};

/// How many games, from which seed, and which of them.
#[derive(Clone, Copy, Debug)]
pub struct Run {
    pub games: u64,
    pub seed: u64,
    pub shard: Option<Shard>,
}

impl Run {
    /// Whether game `g` is played by this run (its shard's, or every game).
    pub fn plays(&self, g: u64) -> bool {
        self.shard.is_none_or(|s| s.owns(g))
    }

    /// How many games this run plays.
    pub fn count(&self) -> u64 {
        self.shard.map_or(self.games, |s| s.owned(self.games))
    }
}

/// What the report names, besides the counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    pub scenario: String,
    pub scenario_title: Option<String>,
    pub map: String,
    pub attacker: String,
    pub defender: String,
    /// The AIs that played each side (a part of version 1 was played by `greedy`).
    #[serde(default = "crate::log::first_ai")]
    pub attacker_ai: String,
    #[serde(default = "crate::log::first_ai")]
    pub defender_ai: String,
    pub seed: u64,
    /// Games in the whole run (all shards).
    pub games: u64,
    /// The scenario's time limit in rounds, if it has one (the rounds histogram marks it).
    pub round_limit: Option<u32>,
}

impl Header {
    pub fn of(setup: &Setup, ais: &Ais, run: &Run) -> Header {
        Header {
            scenario: setup.scenario.name.clone(),
            scenario_title: setup.scenario.title.clone(),
            map: setup.map.name.clone(),
            attacker: setup.armies[0].name.clone(),
            defender: setup.armies[1].name.clone(),
            attacker_ai: ais.attacker.clone(),
            defender_ai: ais.defender.clone(),
            seed: run.seed,
            games: run.games,
            round_limit: setup.scenario.rounds,
        }
    }
}

/// One shard's counts, as `--shard` writes them.
#[derive(Debug, Serialize, Deserialize)]
pub struct Part {
    pub kind: String,
    pub version: u32,
    #[serde(flatten)]
    pub header: Header,
    /// What the games were played from (`Setup::fingerprint`); none in a part of an older oc.
    #[serde(default)]
    pub played: String,
    pub shard: Shard,
    pub tally: Tally,
}

impl Part {
    pub fn new(header: Header, played: String, shard: Shard, tally: Tally) -> Part {
        Part { kind: PART_KIND.to_string(), version: PART_VERSION, header, played, shard, tally }
    }

    /// The part as its file holds it: one line of JSON.
    pub fn text(&self) -> Result<String, Refusal> {
        serde_json::to_string(self)
            .map(|json| format!("{json}\n"))
            .map_err(|e| Refusal::new(format!("cannot write the part: {e}")))
    }
}

/// What a simulation keeps of each game, summed. Summing is order-free, so shards merge to
/// exactly the whole run's counts.
#[derive(Clone, Default, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    pub games: u64,
    pub wins: [u64; 2],
    pub rounds: u64,
    pub lost: [u64; 2],
    pub endings: BTreeMap<String, u64>,
    /// Endings won by `either A or B`, by the alternative that won (parts written before these
    /// were counted lack them).
    #[serde(default)]
    pub branches: BTreeMap<String, BTreeMap<String, u64>>,
    /// Games by the rounds they lasted, and per side by the units it lost (what a plot draws).
    /// Parts written before these were counted lack them: their sum is then short of `games`.
    #[serde(default)]
    pub rounds_seen: BTreeMap<u32, u64>,
    #[serde(default)]
    pub lost_seen: [BTreeMap<u32, u64>; 2],
    /// The first failure (by game order within each merge), which stops the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

impl Tally {
    /// The counts of one game (`branch`: which alternative of an `either ... or` won).
    pub fn of(r: &GameResult, branch: Option<String>) -> Tally {
        let mut t = Tally { games: 1, rounds: u64::from(r.rounds), ..Tally::default() };
        t.lost = [u64::from(r.lost[0]), u64::from(r.lost[1])];
        match r.outcome {
            Outcome::Win(SideId::Attacker) => t.wins[0] = 1,
            Outcome::Win(SideId::Defender) => t.wins[1] = 1,
            Outcome::Draw => {}
        }
        let ending = format!("{}: {}", outcome_word(r.outcome), r.reason);
        if let Some(branch) = branch {
            t.branches.entry(ending.clone()).or_default().insert(branch, 1);
        }
        t.endings.insert(ending, 1);
        t.rounds_seen.insert(r.rounds, 1);
        for (seen, lost) in t.lost_seen.iter_mut().zip(r.lost) {
            seen.insert(lost, 1);
        }
        t
    }

    pub fn merge(mut self, other: Tally) -> Tally {
        self.games += other.games;
        self.rounds += other.rounds;
        for (a, b) in self.wins.iter_mut().zip(other.wins) {
            *a += b;
        }
        for (a, b) in self.lost.iter_mut().zip(other.lost) {
            *a += b;
        }
        for (ending, branches) in other.branches {
            let mine = self.branches.entry(ending).or_default();
            for (branch, n) in branches {
                *mine.entry(branch).or_insert(0) += n;
            }
        }
        for (k, v) in other.endings {
            *self.endings.entry(k).or_insert(0) += v;
        }
        for (k, v) in other.rounds_seen {
            *self.rounds_seen.entry(k).or_insert(0) += v;
        }
        for (mine, theirs) in self.lost_seen.iter_mut().zip(other.lost_seen) {
            for (k, v) in theirs {
                *mine.entry(k).or_insert(0) += v;
            }
        }
        self.failure = self.failure.or(other.failure);
        self
    }

    /// Why these cannot be the counts of `games` games, where they cannot (a part changed after
    /// it was written): more wins than games, endings or histograms that do not sum to the games,
    /// more rounds or units lost than a game can count.
    fn wrong_counts(&self) -> Option<String> {
        let g = self.games;
        let sum = |m: &mut dyn Iterator<Item = u64>| {
            let mut total = Some(0u64);
            for n in m {
                total = total.and_then(|t| t.checked_add(n));
            }
            total
        };
        let most = g.saturating_mul(u64::from(u32::MAX));
        if self.wins[0].checked_add(self.wins[1]).is_none_or(|w| w > g) {
            return Some(format!("it counts {} and {} wins in {g} games", self.wins[0], self.wins[1]));
        }
        if self.rounds > most || self.lost.iter().any(|l| *l > most) {
            return Some(format!("it counts more rounds or units lost than {g} games can"));
        }
        if sum(&mut self.endings.values().copied()) != Some(g) {
            return Some(format!("its endings do not count its {g} games"));
        }
        // Histograms: every game, or none (a part of an older oc).
        let seen = [&self.rounds_seen, &self.lost_seen[0], &self.lost_seen[1]];
        if seen.iter().any(|m| !matches!(sum(&mut m.values().copied()), Some(0)) && sum(&mut m.values().copied()) != Some(g)) {
            return Some(format!("its rounds or units lost by game do not count its {g} games"));
        }
        let over = self.branches.iter().find(|(ending, branches)| {
            sum(&mut branches.values().copied()).is_none_or(|n| n > self.endings.get(*ending).copied().unwrap_or(0))
        });
        over.map(|(ending, _)| format!("it counts more wins by one alternative of `{ending}` than games ending so"))
    }

    /// Whether the per-game counts a plot draws cover every game (parts written by an older oc
    /// lack them).
    pub fn has_histograms(&self) -> bool {
        self.rounds_seen.values().sum::<u64>() == self.games
    }
}

/// Plays the run's games of `setup` with `ais`, in parallel, counted; `tick` is called after
/// each game (a progress bar). A game the engine refuses stops it.
pub fn run(setup: &Setup, ais: &Ais, run: &Run, tick: &(dyn Fn() + Sync)) -> Result<Tally, Refusal> {
    if let Some(shard) = run.shard {
        shard.fits()?;
    }
    ais.controllers().map_err(Refusal::new)?;
    crate::hold_freed_pages();
    let armies = [&setup.armies[0], &setup.armies[1]];
    // Games stream into counts, a chunk at a time, each chunk with an engine of its own: the
    // engine's caches (units, exchanges) fill as games go, so one engine for ten million games
    // grew to its caches' caps; a fresh one every chunk keeps memory flat (same results: a
    // cached value is the one worked out, bit for bit).
    let mut tally = Tally::default();
    let mut start = 0u64;
    while start < run.games && tally.failure.is_none() {
        let end = start.saturating_add(GAMES_PER_ENGINE).min(run.games);
        let chunk = start..end;
        start = end;
        if !chunk.clone().any(|g| run.plays(g)) {
            continue;
        }
        // The first chunk plays on the setup's engine (it is fresh, or as good as: a cached value
        // is the one worked out), the later ones each on a new engine.
        let fresh = if chunk.start == 0 { None } else { Engine::new(setup.engine.rules.clone()).ok() };
        let engine = fresh.as_ref().unwrap_or(&setup.engine);
        let part = chunk
            .into_par_iter()
            .filter(|g| run.plays(*g))
            .map(|g| {
                let r = ais.controllers().map_err(|e| battle::BattleError::refused(battle::Rule::Setup, e)).and_then(|mut ai| {
                    // Which alternative of an `or` won is asked of the battle at its end.
                    let mut branch = None;
                    let mut watch = |b: &battle::Battle<'_>| {
                        if b.outcome.is_some() {
                            branch = b.winning_branch();
                        }
                    };
                    let seed = game_seed(run.seed, g);
                    battle::play_unlogged(engine, &setup.scenario, &setup.map, armies, seed, &mut ai, &mut watch)
                        .map(|r| (r, branch))
                });
                tick();
                match r {
                    Ok((r, branch)) => Tally::of(&r, branch),
                    Err(e) => Tally { failure: Some(e.to_string()), ..Tally::default() },
                }
            })
            .reduce(Tally::default, Tally::merge);
        tally = tally.merge(part);
    }
    match &tally.failure {
        Some(e) => Err(Refusal::new(format!("a game failed: {e}"))),
        None => Ok(tally),
    }
}

/// How `oc simulate` names its parts in refusals.
const WORDS: parts::Words = parts::Words {
    kind: PART_KIND,
    version: PART_VERSION,
    run: "a sharded simulation",
    part: "a part",
    written_by: "parts are written by `oc simulate FILE --shard K/N --out part.json`",
    again: "play the shard again with this oc: parts of one run are written by one version",
    must_match: "scenario, armies (as compiled, by the same oc), AIs, seed, games and shard count",
    one_run: "merge the parts of one `oc simulate FILE --shard K/N` run, every shard once",
    twice: "pass each shard's part once",
    command: "oc simulate FILE",
};

impl parts::Part for Part {
    fn shard(&self) -> Shard {
        self.shard
    }
    fn games(&self) -> u64 {
        self.header.games
    }
    fn same_run(&self, other: &Part) -> bool {
        self.header == other.header && self.played == other.played && self.shard.count == other.shard.count
    }
    fn wrong_counts(&self) -> Option<String> {
        let (owned, Shard { index, count }) = (self.shard.owned(self.header.games), self.shard);
        if self.tally.games != owned {
            return Some(format!(
                "it counts {} games, and shard {index}/{count} of a run of {} plays {owned}",
                self.tally.games, self.header.games
            ));
        }
        self.tally.wrong_counts()
    }
}

/// Reads a part file's bytes: refused when it is not a part, or a part of another version.
pub fn read_part(path: &Path, bytes: &[u8]) -> Result<Part, Refusal> {
    parts::read(path, bytes, &WORDS)
}

/// The part files at `paths` read (regular files, bounded) and merged ([`merge`]).
pub fn merge_files(paths: &[PathBuf]) -> Result<(Header, Tally, u64), Refusal> {
    merge(parts::read_files(paths, &WORDS)?)
}

/// Every shard of one run, once each, summed: the run's header and its counts.
pub fn merge(read: Vec<(PathBuf, Part)>) -> Result<(Header, Tally, u64), Refusal> {
    let count = parts::whole(&read, &WORDS)?;
    let header = read.first().map(|(_, p)| p.header.clone()).ok_or_else(|| Refusal::new("no parts to merge"))?;
    let tally = read.into_iter().map(|(_, p)| p.tally).fold(Tally::default(), Tally::merge);
    Ok((header, tally, count))
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::*;

    #[test]
    fn shards_split_the_games_without_overlap() {
        assert_eq!(parse_shard("3/8"), Ok(Shard { index: 3, count: 8 }));
        assert!(parse_shard("0/8").is_err() && parse_shard("9/8").is_err() && parse_shard("3").is_err());
        let shards: Vec<Shard> = (1..=3).map(|k| Shard { index: k, count: 3 }).collect();
        for g in 0..30 {
            assert_eq!(shards.iter().filter(|s| s.owns(g)).count(), 1, "game {g}");
        }
    }

    /// A part is read as written; one whose counts its shard could not have made (edited after
    /// it was written) is refused with what is wrong, not merged into impossible numbers.
    #[test]
    fn parts_with_impossible_counts_are_refused() {
        let header = Header {
            scenario: "Keep".into(),
            scenario_title: None,
            map: "keep".into(),
            attacker: "A".into(),
            defender: "D".into(),
            attacker_ai: "planner".into(),
            defender_ai: "planner".into(),
            seed: 1,
            games: 4,
            round_limit: Some(12),
        };
        let tally = Tally {
            games: 2,
            wins: [1, 1],
            rounds: 10,
            lost: [1, 2],
            endings: BTreeMap::from([("attacker wins: rout".to_string(), 1), ("defender wins: rout".to_string(), 1)]),
            rounds_seen: BTreeMap::from([(5, 2)]),
            lost_seen: [BTreeMap::from([(0, 1), (1, 1)]), BTreeMap::from([(1, 2)])],
            ..Tally::default()
        };
        let text = Part::new(header, String::new(), Shard { index: 1, count: 2 }, tally).text().expect("writes");
        let read = |t: &str| read_part(Path::new("p.json"), t.as_bytes()).map(|_| ()).map_err(|e| e.message);
        assert_eq!(read(&text), Ok(()));
        let edits = [
            ("\"wins\":[1,1]", "\"wins\":[5,2]", "wins in 2 games"),
            ("\"games\":2,", "\"games\":3,", "it counts 3 games"),
            ("\"index\":1,\"count\":2", "\"index\":0,\"count\":0", "numbered 1 to N"),
            ("\"index\":1,\"count\":2", "\"index\":1,\"count\":99999999999", "more than any run has games"),
            ("\"index\":1,\"count\":2", "\"index\":1,\"count\":9", "and shard 1/9 of a run of 4 plays 1"),
            ("\"games\":4,", "\"games\":18446744073709551615,", "games a pair"),
            ("\"rounds\":10", "\"rounds\":18446744073709551615", "more rounds"),
            ("\"5\":2", "\"5\":1", "by game do not count"),
        ];
        for (from, to, said) in edits {
            assert!(text.contains(from), "{from} in {text}");
            let refused = read(&text.replacen(from, to, 1)).expect_err(to);
            assert!(refused.contains(said) && refused.contains("not a part as oc writes it"), "{to}: {refused}");
        }
    }
}
