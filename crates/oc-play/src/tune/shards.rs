//! `oc tune` over many machines. The search is sequential (each setting it tries depends on
//! the games of the last), so it is sharded in rounds: in a round every shard runs the whole
//! search on the games the folder's parts already hold, up to the first batch of games none of
//! them holds, and plays the games of that batch it owns (`g mod N = K - 1`) into its part of
//! the round. Every shard of a round reads the same complete rounds, so they all stop at the
//! same batch. When the parts hold every game the search asks for, `oc tune FILE --parts DIR`
//! runs the search once more on them alone and prints the report the unsharded run prints, byte
//! for byte: the same games (each seeded by its index), read in the same order.
//!
//! **Saved format:** one line of JSON per part, `kind` = [`PART_KIND`] and `version` =
//! [`PART_VERSION`], named `tune-K-of-N-round-R.json` in the folder given.

use std::collections::{BTreeMap, HashMap};
use std::ops::Range;
use std::path::{Path, PathBuf};

use oc_engine::battle::GameResult;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::edit::Setting;
use crate::error::{Failure, Refusal};
use crate::parts::{self, Shard};
use crate::setup::Setup as Arena;

pub const PART_KIND: &str = "oc tune part";
pub const PART_VERSION: u32 = 1;

/// What names one tuning: parts of another (another text of the file, other knobs, games,
/// seed, armies or AI) are never read together.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Run {
    pub file: String,
    /// FNV-1a of the file's text as read.
    pub text: u64,
    pub scenario: String,
    pub armies: [String; 2],
    pub knobs: Vec<String>,
    pub games: u64,
    pub seed: u64,
    pub ai: String,
    pub oc: String,
}

/// One game of one setting (its games key, [`key`]).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Played {
    pub setting: String,
    pub game: u64,
    pub result: GameResult,
}

/// Whether game `game` played to a shorter limit began as the same game played to a longer one
/// (the search's check that the AI does not read the clock).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Clocked {
    pub short: String,
    pub long: String,
    pub game: u64,
    pub agree: bool,
}

/// One shard's games of one round.
#[derive(Debug, Serialize, Deserialize)]
pub struct Part {
    pub kind: String,
    pub version: u32,
    pub run: Run,
    pub shard: Shard,
    pub round: u32,
    pub games: Vec<Played>,
    pub clock: Vec<Clocked>,
}

impl Part {
    /// The part as its file holds it: one line of JSON.
    pub fn text(&self) -> Result<String, Refusal> {
        serde_json::to_string(self)
            .map(|json| format!("{json}\n"))
            .map_err(|e| Refusal::new(format!("cannot write the part: {e}")))
    }

    /// The file it is saved as in the folder of parts.
    pub fn file_name(&self) -> String {
        format!("tune-{}-of-{}-round-{}.json", self.shard.index, self.shard.count, self.round)
    }
}

const WORDS: parts::Words = parts::Words {
    kind: PART_KIND,
    version: PART_VERSION,
    run: "a sharded tuning",
    part: "a tuning part",
    written_by: "parts are written by `oc tune FILE --shard K/N --parts DIR`",
    again: "run the shards again with this oc, into an empty folder: parts of one tuning are written by one version",
    must_match: "the file's text, scenario, armies, knobs, games, seed, AI and oc's version",
    one_run: "give each tuning its own folder of parts",
    twice: "a folder holds one part per shard and round",
    command: "oc tune FILE",
};

impl parts::Part for Part {
    fn shard(&self) -> Shard {
        self.shard
    }
    fn games(&self) -> u64 {
        self.run.games
    }
    fn same_run(&self, other: &Self) -> bool {
        self.run == other.run && self.shard.count == other.shard.count
    }
    fn wrong_counts(&self) -> Option<String> {
        let Shard { index, count } = self.shard;
        let stray = self.games.iter().map(|p| p.game).chain(self.clock.iter().map(|c| c.game)).find(|g| !self.shard.owns(*g));
        stray.map(|g| format!("it holds game {g}, which shard {index}/{count} does not play"))
    }
}

/// FNV-1a, 64 bits: names the file's text in a part.
pub fn fingerprint(text: &str) -> u64 {
    crate::stats::fnv(text.as_bytes())
}

/// A setting's games key as a part names it: settings that share games share it.
pub(super) fn key(s: &Setting) -> String {
    let plan = |p: &super::edit::ArmyPlan| {
        let dropped: Vec<String> = p.dropped.iter().map(|i| format!("-{i}")).collect();
        let added: Vec<String> = p.added.iter().map(|(name, i)| format!("+{name}@{i}")).collect();
        [dropped, added].concat().join(",")
    };
    let rounds = s.rounds.map_or("none".to_string(), |r| r.to_string());
    format!("rounds {rounds}; attacker [{}]; defender [{}]", plan(&s.armies[0]), plan(&s.armies[1]))
}

/// The parts a folder holds for one tuning: its complete rounds (every shard's part present),
/// in order, and the round after them, if some of its shards' parts are there.
pub struct Parts {
    pub count: Option<u64>,
    pub complete: Vec<Part>,
    pub rounds: u32,
    /// The first incomplete round and the shards it lacks (the first few, and how many in all:
    /// `parts::missing`).
    pub partial: Option<(u32, (Vec<u64>, u64))>,
}

/// Reads the tuning parts in `dir` (files `tune-*.json`; a folder not made yet holds none).
/// Refused when one is not a part of `run`, or parts disagree on the shard count.
pub fn read(dir: &Path, run: &Run) -> Result<Parts, Refusal> {
    if std::fs::metadata(dir).is_ok_and(|m| !m.is_dir()) {
        return Err(Refusal::new(format!("{} is not a folder: --parts names the folder of a tuning's parts", dir.display()))
            .with_help("name a folder (made by the first shard if missing), one for each tuning"));
    }
    let names = match std::fs::read_dir(dir) {
        Ok(entries) => {
            let mut v: Vec<PathBuf> = entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| {
                    p.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("tune-") && n.ends_with(".json"))
                })
                .collect();
            v.sort();
            v
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => return Err(Refusal::new(format!("cannot read the folder of parts {}: {e}", dir.display()))),
    };
    let read = parts::read_files::<Part>(&names, &WORDS)?;
    let mut count = None;
    let mut by_round: BTreeMap<u32, BTreeMap<u64, Part>> = BTreeMap::new();
    for (path, part) in read {
        if part.run != *run {
            return Err(Refusal::new(format!("{} is a part of another tuning: {} must match", path.display(), WORDS.must_match))
                .with_help(
                    "give each tuning its own folder of parts (the file, or this command, changed since it was written)",
                ));
        }
        if *count.get_or_insert(part.shard.count) != part.shard.count {
            return Err(Refusal::new(format!(
                "{} is a shard of {} where the folder's other parts are of {}",
                path.display(),
                part.shard.count,
                count.unwrap_or(0)
            ))
            .with_help("run every round with the same number of shards, each into one folder"));
        }
        by_round.entry(part.round).or_default().insert(part.shard.index, part);
    }
    let mut out = Parts { count, complete: Vec::new(), rounds: 0, partial: None };
    let n = count.unwrap_or(0);
    for (round, shards) in by_round {
        if round != out.rounds + 1 {
            break;
        }
        let lacking = parts::missing(shards.keys().copied(), n);
        if lacking.1 > 0 {
            out.partial = Some((round, lacking));
            break;
        }
        out.rounds = round;
        out.complete.extend(shards.into_values());
    }
    Ok(out)
}

/// `oc tune FILE --shard K/N --parts DIR`: shard K's round of the tuning `p` prepares, written
/// into `dir` (made if need be) as `tune-K-of-N-round-R.json`, and said on `say`.
pub fn play_round(
    p: super::Prepared,
    r: &super::Request,
    shard: Shard,
    dir: &Path,
    say: &dyn Fn(&str),
    tick: &(dyn Fn() + Sync),
) -> Result<(), Failure> {
    shard.fits()?;
    let parts = read(dir, &super::run_id(&p, r))?;
    if let Some(count) = parts.count.filter(|c| *c != shard.count) {
        return Err(Refusal::new(format!("{} holds parts of {count} shards, not {}", dir.display(), shard.count))
            .with_help("run every round with the same number of shards")
            .into());
    }
    let merge = format!("`oc tune {} --parts {}` prints the report", r.file.display(), dir.display());
    let Some(part) = super::round(p, r, shard, &parts, say, tick)? else {
        say(&format!("the parts in {} hold every game the search asks for: {merge}", dir.display()));
        return Ok(());
    };
    let cannot = |e: &dyn std::fmt::Display| Refusal::new(format!("cannot write the part into {}: {e}", dir.display()));
    std::fs::create_dir_all(dir).map_err(|e| cannot(&e))?;
    let path = dir.join(part.file_name());
    let target = oc_project::output::prepare(&path, oc_project::output::Kind::TunePart, &[r.file.to_path_buf()], false)
        .map_err(|e| Refusal::new(e.message).with_help(e.help))?;
    oc_project::output::write(&target, part.text()?.as_bytes()).map_err(|e| cannot(&e))?;
    say(&format!(
        "round {}: shard {}/{} played {} games of the search's next batch into {}; run the round's other shards, then the next round, until {merge}",
        part.round,
        shard.index,
        shard.count,
        part.games.len() + 2 * part.clock.len(),
        path.display()
    ));
    Ok(())
}

/// `oc tune FILE --parts DIR`: the tuning from the parts alone; `Ok(Err(_))` (what to say)
/// while they lack games the search asks for.
pub fn from_parts(
    p: super::Prepared,
    r: &super::Request,
    dir: &Path,
    check: bool,
    say: &dyn Fn(&str),
    tick: &(dyn Fn() + Sync),
) -> Result<Result<super::Tuned, Refusal>, Failure> {
    let parts = read(dir, &super::run_id(&p, r))?;
    let missing = match super::merge(p, r, &parts, check, say, tick)? {
        Ok(tuned) => return Ok(Ok(tuned)),
        Err(missing) => missing,
    };
    let next = match &parts.partial {
        Some((round, lacking)) => {
            format!("round {round} lacks shards {}: run them", parts::shards_in_words(lacking, parts.count.unwrap_or(0)))
        }
        None => format!("run round {} of the shards", parts.rounds + 1),
    };
    let held = match parts.rounds {
        // A folder not made yet is where a sharded tuning starts (its first shard makes it).
        0 if std::fs::symlink_metadata(dir).is_err() => {
            format!("{}: no such folder yet: no round of shards was played into it", dir.display())
        }
        0 => format!("{} holds no complete round of shards yet", dir.display()),
        n => format!("the {n} complete rounds in {} lack {missing} games the search asks for", dir.display()),
    };
    Ok(Err(Refusal::new(held).with_help(format!(
        "{next} (`oc tune {} --shard K/N --parts {}` for each K)",
        r.file.display(),
        dir.display()
    ))))
}

/// Where the search's games come from when it is sharded: the parts read, and, for a shard, the
/// games of the batch the parts lack that it owns.
pub(super) struct Source {
    /// `None`: merging (nothing is played).
    shard: Option<Shard>,
    games: HashMap<(String, u64), GameResult>,
    clock: HashMap<(String, String, u64), bool>,
    pub fresh: Vec<Played>,
    pub fresh_clock: Vec<Clocked>,
    /// Games the search asked for that no part holds (0: it ran to its end).
    pub missing: u64,
}

/// What a sharded search stops with when the parts lack a batch (the caller reads
/// [`Source::missing`]); a failure to play is the game's own message.
const PENDING: &str = "the parts lack games the search asks for";

impl Source {
    pub fn new(shard: Option<Shard>, parts: &Parts) -> Source {
        let mut games = HashMap::new();
        let mut clock = HashMap::new();
        for p in &parts.complete {
            for g in &p.games {
                games.insert((g.setting.clone(), g.game), g.result.clone());
            }
            for c in &p.clock {
                clock.insert((c.short.clone(), c.long.clone(), c.game), c.agree);
            }
        }
        Source { shard, games, clock, fresh: Vec::new(), fresh_clock: Vec::new(), missing: 0 }
    }

    /// Games `range` of the setting keyed `key`; where a part lacks one, the shard plays those
    /// of them it owns and the search stops.
    pub fn games(
        &mut self,
        key: &str,
        arena: &Arena,
        seed: u64,
        range: Range<u64>,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<GameResult>, String> {
        let known: Vec<GameResult> = range.clone().filter_map(|g| self.games.get(&(key.to_string(), g)).cloned()).collect();
        if known.len() as u64 == range.end.saturating_sub(range.start) {
            return Ok(known);
        }
        let lacking: Vec<u64> = range.filter(|g| !self.games.contains_key(&(key.to_string(), *g))).collect();
        self.missing += lacking.len() as u64;
        if let Some(shard) = self.shard {
            let mine: Vec<u64> = lacking.into_iter().filter(|g| shard.owns(*g)).collect();
            let played: Vec<GameResult> = mine
                .par_iter()
                .map(|g| {
                    let r = arena.result(seed, *g);
                    tick();
                    r
                })
                .collect::<Result<_, String>>()?;
            let fresh = mine.into_iter().zip(played).map(|(game, result)| Played { setting: key.to_string(), game, result });
            self.fresh.extend(fresh);
        }
        Err(PENDING.into())
    }

    /// Whether games `0..count` played to the shorter limit began as the longer limit's
    /// (`agree(g)` plays one); where a part lacks one, as [`Source::games`].
    pub fn clock(
        &mut self,
        short: &str,
        long: &str,
        count: u64,
        agree: &(dyn Fn(u64) -> Result<bool, String> + Sync),
    ) -> Result<Vec<bool>, String> {
        let id = |g: u64| (short.to_string(), long.to_string(), g);
        let known: Vec<bool> = (0..count).filter_map(|g| self.clock.get(&id(g)).copied()).collect();
        if known.len() as u64 == count {
            return Ok(known);
        }
        let lacking: Vec<u64> = (0..count).filter(|g| !self.clock.contains_key(&id(*g))).collect();
        self.missing += 2 * lacking.len() as u64;
        if let Some(shard) = self.shard {
            let mine: Vec<u64> = lacking.into_iter().filter(|g| shard.owns(*g)).collect();
            let read: Vec<bool> = mine.par_iter().map(|g| agree(*g)).collect::<Result<_, String>>()?;
            let fresh = mine.into_iter().zip(read).map(|(game, agree)| Clocked {
                short: short.to_string(),
                long: long.to_string(),
                game,
                agree,
            });
            self.fresh_clock.extend(fresh);
        }
        Err(PENDING.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_names_the_games_a_setting_plays_not_its_chests() {
        let plan = |d: Vec<usize>| super::super::edit::ArmyPlan { dropped: d, added: vec![("Copy".into(), 2)] };
        let s = Setting { rounds: Some(12), chests: [100, 200], armies: [plan(vec![1, 3]), plan(vec![])] };
        assert_eq!(key(&s), "rounds 12; attacker [-1,-3,+Copy@2]; defender [+Copy@2]");
        assert_eq!(key(&Setting { chests: [0, 0], ..s.clone() }), key(&s));
        assert_ne!(key(&Setting { rounds: None, ..s.clone() }), key(&s));
    }

    #[test]
    fn the_fingerprint_is_fnv1a() {
        assert_eq!(fingerprint(""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fingerprint("a"), 0xaf63_dc4c_8601_ec8c);
    }
}
