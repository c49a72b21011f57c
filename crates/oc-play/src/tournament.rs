//! Mirror tournaments: two AIs play one roster on both sides of a scenario whose sides are the
//! same but for their zones, each AI moving first (the attacker leads the first round) and
//! second, on the field as written and with the zones swapped; wins, draws and losses counted
//! per roster with 95% intervals.

use std::path::PathBuf;

use oc_engine::battle;
use oc_model::{Army, Outcome, Scenario, SideId};
use rayon::prelude::*;

use crate::error::Refusal;
use crate::setup::{mirror, Ais, Field};
use crate::stats::{game_seed, wilson};

/// Wins, draws and losses of one AI (or of the first mover).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Record {
    pub won: u64,
    pub drawn: u64,
    pub lost: u64,
}

impl Record {
    pub fn add(&mut self, r: Record) {
        self.won += r.won;
        self.drawn += r.drawn;
        self.lost += r.lost;
    }

    pub fn games(&self) -> u64 {
        self.won + self.drawn + self.lost
    }

    pub fn of(outcome: Outcome, side: SideId) -> Record {
        match outcome {
            Outcome::Win(s) if s == side => Record { won: 1, ..Record::default() },
            Outcome::Win(_) => Record { lost: 1, ..Record::default() },
            Outcome::Draw => Record { drawn: 1, ..Record::default() },
        }
    }

    pub fn text(&self) -> String {
        format!("{}-{}-{}", self.won, self.drawn, self.lost)
    }

    pub fn rate(&self) -> String {
        let n = self.games();
        let [lo, hi] = wilson(self.won, n);
        let p = if n == 0 { 0.0 } else { self.won as f64 / n as f64 };
        format!("{:.1}% ({:.1}-{:.1}%)", p * 100.0, lo * 100.0, hi * 100.0)
    }

    pub fn json(&self) -> serde_json::Value {
        let n = self.games();
        serde_json::json!({
            "won": self.won, "drawn": self.drawn, "lost": self.lost, "games": n,
            "win_rate": if n == 0 { 0.0 } else { self.won as f64 / n as f64 }, "ci95": wilson(self.won, n),
        })
    }
}

/// One roster's results: AI A moving first and second, and the first mover's whatever AI it is.
#[derive(Clone, Debug, Default)]
pub struct Row {
    /// The scenario's file, relative to its project root.
    pub file: String,
    pub ruleset: String,
    pub roster: String,
    pub a_first: Record,
    pub a_second: Record,
    pub first_mover: Record,
}

/// One game to play: the roster, whether the zones are swapped, whether A attacks (moves first).
struct Job<'f> {
    field: &'f Field,
    scenario: &'f Scenario,
    row: usize,
    roster: &'f Army,
    a_attacks: bool,
    game: u64,
}

/// A mirror scenario ready for a tournament: its field, and the scenario with its zones swapped.
pub struct Entry {
    pub file: PathBuf,
    pub field: Field,
    pub swapped: Scenario,
}

impl Entry {
    /// The field of `file`, refused when its scenario is not a mirror one.
    pub fn new(file: PathBuf, field: Field) -> Result<Entry, Refusal> {
        if let Err(why) = mirror(&field.scenario) {
            return Err(Refusal::new(format!("{}: `{}` is not a mirror scenario: {why}", file.display(), field.scenario.name))
                .with_help("a tournament fields one roster on both sides, so the sides must be the same but for their zones"));
        }
        let swapped = swap_zones(&field.scenario);
        Ok(Entry { file, field, swapped })
    }
}

/// Refuses an AI that does not exist.
pub fn check_ais(ais: [&str; 2]) -> Result<(), Refusal> {
    for name in ais {
        if oc_engine::ai::by_name(name).is_none() {
            return Err(Refusal::new(format!("no AI `{name}`; the AIs are {}", oc_engine::ai::names().join(", "))));
        }
    }
    Ok(())
}

/// Plays the tournament: every attacker army of each entry's scenario (those named in `armies`,
/// or all), `games` seeds from `seed` in each orientation with each AI moving first. The rows,
/// in entry and roster order, and the number of games played.
pub fn play(entries: &[Entry], armies: &[String], ais: [&str; 2], games: u64, seed: u64) -> Result<(Vec<Row>, usize), Refusal> {
    crate::hold_freed_pages();
    check_armies(entries.iter().map(|e| (&e.field.engine.rules, e.field.scenario.name.as_str())), armies)?;
    let [a, b] = ais;
    let mut rows: Vec<Row> = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for Entry { file, field, swapped } in entries {
        // A file named twice (or a folder and a file in it) is played once.
        if seen.contains(&(field.logical.as_str(), field.scenario.name.as_str())) {
            continue;
        }
        seen.push((field.logical.as_str(), field.scenario.name.as_str()));
        let rosters: Vec<&Army> = field
            .engine
            .rules
            .armies
            .iter()
            .filter(|r| r.scenario == field.scenario.name && r.side == SideId::Attacker)
            .filter(|r| armies.is_empty() || armies.contains(&r.name))
            .collect();
        // Armies named that are another scenario's: this one is left out.
        if rosters.is_empty() && !armies.is_empty() {
            continue;
        }
        if rosters.is_empty() {
            return Err(Refusal::new(format!(
                "{}: no attacker army of `{}` to field{}",
                file.display(),
                field.scenario.name,
                named(armies)
            )));
        }
        for roster in rosters {
            let row = rows.len();
            rows.push(Row {
                file: field.logical.clone(),
                ruleset: field.engine.rules.ruleset.name.clone(),
                roster: roster.name.clone(),
                ..Row::default()
            });
            for scenario in [&field.scenario, swapped] {
                for a_attacks in [true, false] {
                    for game in 0..games {
                        jobs.push(Job { field, scenario, row, roster, a_attacks, game });
                    }
                }
            }
        }
    }
    // Every game on its own AIs and seed; the results come back in job order.
    let results: Vec<Result<Outcome, String>> = jobs
        .par_iter()
        .map(|j| {
            let mut defender = j.roster.clone();
            defender.side = SideId::Defender;
            let (attacker_ai, defender_ai) = if j.a_attacks { (a, b) } else { (b, a) };
            let mut ai = Ais { attacker: attacker_ai.to_string(), defender: defender_ai.to_string() }.controllers()?;
            let seed = game_seed(seed, j.game);
            battle::play_unlogged(&j.field.engine, j.scenario, &j.field.map, [j.roster, &defender], seed, &mut ai, &mut |_| {})
                .map(|r| r.outcome)
                .map_err(|e| e.to_string())
        })
        .collect();
    for (j, r) in jobs.iter().zip(results) {
        let outcome = r.map_err(|e| Refusal::new(format!("a game of {} on {} failed: {e}", j.roster.name, j.field.logical)))?;
        let Some(row) = rows.get_mut(j.row) else { continue };
        let a_side = if j.a_attacks { SideId::Attacker } else { SideId::Defender };
        let result = Record::of(outcome, a_side);
        if j.a_attacks {
            row.a_first.add(result);
        } else {
            row.a_second.add(result);
        }
        row.first_mover.add(Record::of(outcome, SideId::Attacker));
    }
    Ok((rows, jobs.len()))
}

/// Every army named (`--army`) is an attacker army of one of the scenarios (`rules` and the
/// scenario's name, each): else a refusal that says what it is (a defender army), or what was
/// meant and which there are.
pub fn check_armies<'r>(
    scenarios: impl Iterator<Item = (&'r oc_model::Rules, &'r str)> + Clone,
    armies: &[String],
) -> Result<(), Refusal> {
    let of = |side: SideId| -> Vec<&'r str> {
        scenarios
            .clone()
            .flat_map(|(rules, scenario)| {
                rules.armies.iter().filter(move |r| r.scenario == scenario && r.side == side).map(|r| r.name.as_str())
            })
            .collect()
    };
    refuse_unknown_armies(
        of(SideId::Attacker),
        of(SideId::Defender),
        armies,
        "each attacker army named is fielded on both sides, against itself",
    )
}

/// Every army named (`--army`) is one of `attackers`: else a refusal that says what it is (one of
/// `defenders`, with `defender_help` saying what is done with an attacker army), or what was
/// meant and which there are. Shared by the mirror matches and `--as-written` (`strength.rs`).
pub fn refuse_unknown_armies<'n>(
    mut attackers: Vec<&'n str>,
    mut defenders: Vec<&'n str>,
    armies: &[String],
    defender_help: &str,
) -> Result<(), Refusal> {
    for names in [&mut attackers, &mut defenders] {
        names.sort_unstable();
        names.dedup();
    }
    let Some(name) = armies.iter().find(|n| !attackers.contains(&n.as_str())) else {
        return Ok(());
    };
    if defenders.contains(&name.as_str()) {
        return Err(
            Refusal::new(format!("--army {name}: it is a defender army; --army names attacker armies")).with_help(defender_help)
        );
    }
    let listed = oc_diag::first_and_more(&attackers, 8);
    Err(Refusal::new(format!("--army {name}: no attacker army of the scenarios is so named")).with_help(
        match oc_diag::did_you_mean(name, attackers.iter().copied()) {
            Some(near) => format!("did you mean `{near}`? the attacker armies are {listed}"),
            None => format!("the attacker armies are {listed}"),
        },
    ))
}

fn named(armies: &[String]) -> String {
    if armies.is_empty() {
        String::new()
    } else {
        format!(" named {}", armies.join(", "))
    }
}

/// The same scenario with the sides' zones swapped (the attacker deploys where the defender did).
pub fn swap_zones(s: &Scenario) -> Scenario {
    let mut t = s.clone();
    std::mem::swap(&mut t.attacker.zone, &mut t.defender.zone);
    t
}

/// Totals of some rows, by file (ruleset) and overall.
pub fn totals(rows: &[&Row]) -> Row {
    let mut t = Row::default();
    for r in rows {
        t.a_first.add(r.a_first);
        t.a_second.add(r.a_second);
        t.first_mover.add(r.first_mover);
    }
    t
}
