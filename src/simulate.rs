//! `oc simulate`: many AI games in parallel, win rates with 95% intervals; `--shard K/N` plays
//! only the games shard K owns and writes mergeable counts; `oc simulate merge` sums the parts
//! into the report the whole run would have printed, byte for byte. `--plot` (of a run, or of
//! merged parts) draws the counts: win rates with their intervals, rounds, units lost.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use oc_engine::battle::{self, GameResult};
use oc_engine::Engine;
use oc_model::{Outcome, SideId};
use oc_project::limits::MAX_LOG_BYTES;
use oc_project::output::Kind;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::load::setup as load;
use oc_play::setup::outcome_word;
use oc_play::Ais;
use crate::commands::{output_target, write_output};
use crate::plot::{self, Outcomes, PlotFormat};
use crate::Format;
use oc_play::stats::{game_seed, wilson};
use oc_project::output::Target;

/// What a part file says it is (its `kind`), and the version of its shape.
const PART_KIND: &str = "oc simulate part";
const PART_VERSION: u32 = 2;

/// Shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// Whether game `g` (0-based) is this shard's.
    fn owns(self, g: u64) -> bool {
        g % self.count == self.index - 1
    }
}

/// `K/N` with 1 <= K <= N.
pub fn parse_shard(text: &str) -> Result<Shard, String> {
    let (k, n) = text.split_once('/').ok_or("write the shard as K/N, such as 3/8")?;
    let k: u64 = k.trim().parse().map_err(|_| format!("`{k}` is not a shard number"))?;
    let n: u64 = n.trim().parse().map_err(|_| format!("`{n}` is not a number of shards"))?;
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k} of {n}: shards are numbered 1 to N"));
    }
    Ok(Shard { index: k, count: n })
}

/// Which scenario and armies, and the AIs that play them.
pub struct Game<'a> {
    pub scenario: Option<&'a str>,
    pub attacker: Option<&'a str>,
    pub defender: Option<&'a str>,
    pub ais: &'a Ais,
}

/// How many games, from which seed, and which of them.
pub struct Run {
    pub games: u64,
    pub seed: u64,
    pub shard: Option<Shard>,
}

/// Where the report and the plot go.
pub struct Outputs<'a> {
    pub format: Format,
    pub out: Option<&'a Path>,
    pub plot: Option<&'a Path>,
    pub force: bool,
}

/// The plot's path passed through the output policy, with its format.
fn plot_target(plot: Option<&Path>, inputs: &[PathBuf], force: bool) -> Result<Option<(Target, PlotFormat)>, u8> {
    let Some(path) = plot else { return Ok(None) };
    let format = PlotFormat::of(path).map_err(|e| {
        eprintln!("error: {e}");
        2u8
    })?;
    if path.as_os_str() == "-" {
        eprintln!("error: a plot is written to a file, not to standard output");
        return Err(2);
    }
    Ok(Some((output_target(path, Kind::Plot, inputs, force)?, format)))
}

/// What the report names, besides the counts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Header {
    scenario: String,
    scenario_title: Option<String>,
    map: String,
    attacker: String,
    defender: String,
    /// The AIs that played each side (a part of version 1 was played by `greedy`).
    #[serde(default = "oc_project::log::first_ai")]
    attacker_ai: String,
    #[serde(default = "oc_project::log::first_ai")]
    defender_ai: String,
    seed: u64,
    /// Games in the whole run (all shards).
    games: u64,
}

/// One shard's counts, as `--shard` writes them.
#[derive(Debug, Serialize, Deserialize)]
struct Part {
    kind: String,
    version: u32,
    #[serde(flatten)]
    header: Header,
    shard: Shard,
    tally: Tally,
}

pub fn simulate(file: &Path, game: Game, run: Run, outputs: Outputs) -> u8 {
    let Outputs { format, out, plot, force } = outputs;
    if run.shard.is_some() && plot.is_some() {
        eprintln!("error: a shard holds only some of the games: plot the merged run instead");
        eprintln!("help: `oc simulate merge PARTS... --plot wins.png`");
        return 2;
    }
    let setup = match load(file, game.scenario, game.attacker, game.defender) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let kind = if run.shard.is_some() { Kind::SimulationPart } else { Kind::SimulationReport };
    let target = match out.map(|o| output_target(o, kind, &setup.inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let plot = match plot_target(plot, &setup.inputs, force) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let started = std::time::Instant::now();
    let mine = |g: &u64| run.shard.is_none_or(|s| s.owns(*g));
    let count = (0..run.games).filter(mine).count() as u64;
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(count);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games ({per_sec}, {eta} left)") {
            bar.set_style(style);
        }
        Some(bar)
    } else {
        None
    };
    if let Err(e) = game.ais.controllers() {
        eprintln!("error: {e}");
        return 2;
    }
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
        if !chunk.clone().any(|g| mine(&g)) {
            continue;
        }
        let fresh = Engine::new(setup.engine.rules.clone()).ok();
        let engine = fresh.as_ref().unwrap_or(&setup.engine);
        let part = chunk
            .into_par_iter()
            .filter(mine)
            .map(|g| {
                let r = game.ais.controllers().map_err(|e| battle::BattleError::refused(battle::Rule::Setup, e)).and_then(
                    |mut ai| {
                        // Which alternative of an `or` won is asked of the battle at its end.
                        let mut branch = None;
                        let mut watch = |b: &battle::Battle<'_>| {
                            if b.outcome.is_some() {
                                branch = b.winning_branch();
                            }
                        };
                        let seed = game_seed(run.seed, g);
                        battle::play_watched(engine, &setup.scenario, &setup.map, armies, seed, &mut ai, &mut watch)
                            .map(|(r, _)| (r, branch))
                    },
                );
                if let Some(b) = &bar {
                    b.inc(1);
                }
                match r {
                    Ok((r, branch)) => Tally::of(&r, branch),
                    Err(e) => Tally { failure: Some(e.to_string()), ..Tally::default() },
                }
            })
            .reduce(Tally::default, Tally::merge);
        tally = tally.merge(part);
    }
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Some(e) = &tally.failure {
        eprintln!("error: a game failed: {e}");
        return 2;
    }
    let header = Header {
        scenario: setup.scenario.name.clone(),
        scenario_title: setup.scenario.title.clone(),
        map: setup.map.name.clone(),
        attacker: setup.armies[0].name.clone(),
        defender: setup.armies[1].name.clone(),
        attacker_ai: game.ais.attacker.clone(),
        defender_ai: game.ais.defender.clone(),
        seed: run.seed,
        games: run.games,
    };
    let n = tally.games;
    let text = match run.shard {
        Some(shard) => {
            let part = Part { kind: PART_KIND.to_string(), version: PART_VERSION, header: header.clone(), shard, tally };
            let json = serde_json::to_string(&part);
            tally = part.tally;
            match json {
                Ok(json) => format!("{json}\n"),
                Err(e) => {
                    eprintln!("error: cannot write the part: {e}");
                    return 2;
                }
            }
        }
        None => report(&header, &tally, format),
    };
    if let Err(code) = emit(target.as_ref(), &text) {
        return code;
    }
    if let Some((target, plot_format)) = &plot {
        if let Err(code) = draw(&header, &tally, target, *plot_format) {
            return code;
        }
    }
    eprintln!("{n} games in {:.2?}", started.elapsed());
    0
}

/// Draws the plot of a whole run's counts.
fn draw(header: &Header, tally: &Tally, target: &Target, format: PlotFormat) -> Result<(), u8> {
    let counted: u64 = tally.rounds_seen.values().sum();
    if counted != tally.games {
        eprintln!("error: the parts do not hold the per-game counts a plot needs (they were written by an older oc)");
        eprintln!("help: run the shards again with this oc, then `oc simulate merge PARTS... --plot FILE`");
        return Err(2);
    }
    let n = tally.games;
    let draws = n.saturating_sub(tally.wins[0] + tally.wins[1]);
    let outcomes = Outcomes {
        title: title(header, n),
        armies: [header.attacker.clone(), header.defender.clone()],
        games: n,
        wins: [tally.wins[0], tally.wins[1], draws],
        intervals: [wilson(tally.wins[0], n), wilson(tally.wins[1], n), wilson(draws, n)],
        rounds: tally.rounds_seen.clone(),
        lost: tally.lost_seen.clone(),
    };
    let bytes = plot::render(&outcomes, format).map_err(|e| {
        eprintln!("error: cannot draw the plot: {e}");
        2u8
    })?;
    write_output(target, &bytes)?;
    eprintln!("plot written to {}", target.show());
    Ok(())
}

/// The report's first line: what was played, how often, from which seed.
fn title(h: &Header, n: u64) -> String {
    format!(
        "{} on {}: {} (attacker, {}) vs {} (defender, {}), {n} games from seed {}",
        h.scenario_title.as_deref().unwrap_or(&h.scenario),
        h.map,
        h.attacker,
        h.attacker_ai,
        h.defender,
        h.defender_ai,
        h.seed
    )
}

/// `oc simulate merge PARTS...`: every shard of one run, once each, summed.
pub fn merge(parts: &[PathBuf], outputs: Outputs) -> u8 {
    let Outputs { format, out, plot, force } = outputs;
    let target = match out.map(|o| output_target(o, Kind::SimulationReport, parts, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let plot = match plot_target(plot, parts, force) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let mut read: Vec<(PathBuf, Part)> = Vec::new();
    for path in parts {
        let bytes = match oc_project::fsx::read_regular(path, MAX_LOG_BYTES) {
            Ok(b) => b,
            Err(e) => {
                eprintln!("error: {}: {e}", path.display());
                return 2;
            }
        };
        let part: Part = match serde_json::from_slice(&bytes) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("error: {}: not a part of a sharded simulation ({e})", path.display());
                eprintln!("help: parts are written by `oc simulate FILE --shard K/N --out part.json`");
                return 2;
            }
        };
        if part.kind != PART_KIND || part.version != PART_VERSION {
            eprintln!(
                "error: {}: a `{}` file of version {}, not a part (version {PART_VERSION})",
                path.display(),
                part.kind,
                part.version
            );
            return 2;
        }
        read.push((path.clone(), part));
    }
    let Some((first_path, first)) = read.first() else {
        eprintln!("error: no parts to merge");
        return 2;
    };
    let (header, count) = (first.header.clone(), first.shard.count);
    let mut seen: BTreeMap<u64, &Path> = BTreeMap::new();
    for (path, part) in &read {
        if part.header != header || part.shard.count != count {
            eprintln!(
                "error: {} is a part of another run than {}: scenario, armies, AIs, seed, games and shard count must match",
                path.display(),
                first_path.display()
            );
            return 2;
        }
        if let Some(other) = seen.insert(part.shard.index, path) {
            eprintln!("error: shard {}/{count} is given twice: {} and {}", part.shard.index, other.display(), path.display());
            return 2;
        }
    }
    let missing: Vec<String> = (1..=count).filter(|k| !seen.contains_key(k)).map(|k| format!("{k}/{count}")).collect();
    if !missing.is_empty() {
        eprintln!("error: the run's shards {} are missing", missing.join(", "));
        eprintln!("help: run `oc simulate FILE --shard K/{count}` for each and pass every part");
        return 2;
    }
    let tally = read.into_iter().map(|(_, p)| p.tally).fold(Tally::default(), Tally::merge);
    if let Err(code) = emit(target.as_ref(), &report(&header, &tally, format)) {
        return code;
    }
    if let Some((target, plot_format)) = &plot {
        if let Err(code) = draw(&header, &tally, target, *plot_format) {
            return code;
        }
    }
    eprintln!("merged {count} parts: {} games", tally.games);
    0
}

fn emit(target: Option<&oc_project::output::Target>, text: &str) -> Result<(), u8> {
    match target {
        Some(target) => write_output(target, text.as_bytes()),
        None => {
            let _ = crate::report::out(text.as_bytes());
            Ok(())
        }
    }
}

/// The report of a whole run.
fn report(h: &Header, tally: &Tally, format: Format) -> String {
    let n = tally.games;
    let seed = h.seed;
    let (aw, dw) = (tally.wins[0], tally.wins[1]);
    let draws = n - aw - dw;
    let mean = |sum: u64| if n == 0 { 0.0 } else { sum as f64 / n as f64 };
    let mean_rounds = mean(tally.rounds);
    let lost = [mean(tally.lost[0]), mean(tally.lost[1])];
    let endings = &tally.endings;
    let rate = |w: u64| if n == 0 { 0.0 } else { w as f64 / n as f64 };
    match format {
        Format::Json => {
            let value = serde_json::json!({
                "scenario": h.scenario,
                "attacker": h.attacker,
                "defender": h.defender,
                "attacker_ai": h.attacker_ai,
                "defender_ai": h.defender_ai,
                "seed": seed,
                "games": n,
                "attacker_wins": aw,
                "defender_wins": dw,
                "draws": draws,
                "attacker_win_rate": rate(aw),
                "defender_win_rate": rate(dw),
                "ci95": wilson(aw, n),
                "defender_ci95": wilson(dw, n),
                "mean_rounds": mean_rounds,
                "mean_units_lost": {"attacker": lost[0], "defender": lost[1]},
                "endings": endings,
                "endings_by_branch": tally.branches,
                "rounds_histogram": tally.rounds_seen,
                "units_lost_histogram": {"attacker": tally.lost_seen[0], "defender": tally.lost_seen[1]},
            });
            format!("{value}\n")
        }
        Format::Human => {
            let [lo, hi] = wilson(aw, n);
            let [dlo, dhi] = wilson(dw, n);
            let mut s = format!("{}\n", title(h, n));
            s.push_str(&format!(
                "  attacker wins {aw} ({:.1}%, 95% CI {:.1}-{:.1}%)\n",
                rate(aw) * 100.0,
                lo * 100.0,
                hi * 100.0
            ));
            s.push_str(&format!(
                "  defender wins {dw} ({:.1}%, 95% CI {:.1}-{:.1}%)\n",
                rate(dw) * 100.0,
                dlo * 100.0,
                dhi * 100.0
            ));
            s.push_str(&format!(
                "  draws {draws}; mean rounds {mean_rounds:.1}; units lost: attacker {:.2}, defender {:.2}\n",
                lost[0], lost[1]
            ));
            s.push_str("  how games ended:\n");
            for (k, v) in endings {
                s.push_str(&format!("    {v:>6}  {k}\n"));
                // A win by `either A or B`: how many by each.
                for (branch, n) in tally.branches.get(k).into_iter().flatten() {
                    s.push_str(&format!("    {:>6}  {n:>6}  by {branch}\n", ""));
                }
            }
            s
        }
    }
}

/// Games played with one engine (see the loop in [`simulate`]).
const GAMES_PER_ENGINE: u64 = 1024;

/// What a simulation keeps of each game, summed. Summing is order-free, so shards merge to
/// exactly the whole run's counts.
#[derive(Default, Debug, Serialize, Deserialize)]
struct Tally {
    games: u64,
    wins: [u64; 2],
    rounds: u64,
    lost: [u64; 2],
    endings: BTreeMap<String, u64>,
    /// Endings won by `either A or B`, by the alternative that won (parts written before these
    /// were counted lack them).
    #[serde(default)]
    branches: BTreeMap<String, BTreeMap<String, u64>>,
    /// Games by the rounds they lasted, and per side by the units it lost (what a plot draws).
    /// Parts written before these were counted lack them: their sum is then short of `games`.
    #[serde(default)]
    rounds_seen: BTreeMap<u32, u64>,
    #[serde(default)]
    lost_seen: [BTreeMap<u32, u64>; 2],
    /// The first failure (by game order within each merge), which stops the report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    failure: Option<String>,
}

impl Tally {
    fn of(r: &GameResult, branch: Option<String>) -> Tally {
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

    fn merge(mut self, other: Tally) -> Tally {
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
}

#[cfg(test)]
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
}
