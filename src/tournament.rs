//! `oc tournament`: two AIs play mirror matches — one roster on both sides of a scenario whose
//! sides are the same but for their zones — with each AI moving first (the attacker leads the
//! first round) and second, on the field as written and with the zones swapped, and the table
//! of wins, draws and losses with 95% intervals.

use std::fmt::Write as _;
use std::path::PathBuf;

use oc_engine::battle;
use oc_model::{Army, Outcome, Scenario, SideId};
use rayon::prelude::*;

use crate::load::field as load_field;
use oc_play::{Ais, Field};
use oc_play::stats::{game_seed, wilson};
use crate::Format;

/// What to play.
pub struct Args<'a> {
    pub files: &'a [PathBuf],
    pub scenario: Option<&'a str>,
    /// The rosters to field (attacker armies of the scenario), all of them when empty.
    pub armies: &'a [String],
    /// AI A and AI B.
    pub ais: [&'a str; 2],
    /// Games per roster, orientation and first mover.
    pub games: u64,
    pub seed: u64,
    pub format: Format,
}

/// Wins, draws and losses of one AI (or of the first mover).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Record {
    won: u64,
    drawn: u64,
    lost: u64,
}

impl Record {
    fn add(&mut self, r: Record) {
        self.won += r.won;
        self.drawn += r.drawn;
        self.lost += r.lost;
    }

    fn games(&self) -> u64 {
        self.won + self.drawn + self.lost
    }

    fn of(outcome: Outcome, side: SideId) -> Record {
        match outcome {
            Outcome::Win(s) if s == side => Record { won: 1, ..Record::default() },
            Outcome::Win(_) => Record { lost: 1, ..Record::default() },
            Outcome::Draw => Record { drawn: 1, ..Record::default() },
        }
    }

    fn text(&self) -> String {
        format!("{}-{}-{}", self.won, self.drawn, self.lost)
    }

    fn rate(&self) -> String {
        let n = self.games();
        let [lo, hi] = wilson(self.won, n);
        let p = if n == 0 { 0.0 } else { self.won as f64 / n as f64 };
        format!("{:.1}% ({:.1}-{:.1}%)", p * 100.0, lo * 100.0, hi * 100.0)
    }

    fn json(&self) -> serde_json::Value {
        let n = self.games();
        serde_json::json!({
            "won": self.won, "drawn": self.drawn, "lost": self.lost, "games": n,
            "win_rate": if n == 0 { 0.0 } else { self.won as f64 / n as f64 }, "ci95": wilson(self.won, n),
        })
    }
}

/// One roster's results: AI A moving first and second, and the first mover's whatever AI it is.
#[derive(Clone, Debug, Default)]
struct Row {
    file: String,
    ruleset: String,
    roster: String,
    a_first: Record,
    a_second: Record,
    first_mover: Record,
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

pub fn tournament(args: &Args) -> u8 {
    let [a, b] = args.ais;
    for name in args.ais {
        if oc_engine::ai::by_name(name).is_none() {
            eprintln!("error: no AI `{name}`; the AIs are {}", oc_engine::ai::names().join(", "));
            return 2;
        }
    }
    let mut fields = Vec::new();
    for file in args.files {
        let field = match load_field(file, args.scenario) {
            Ok(f) => f,
            Err(code) => return code,
        };
        if let Err(why) = mirror(&field.scenario) {
            eprintln!("error: {}: `{}` is not a mirror scenario: {why}", file.display(), field.scenario.name);
            eprintln!("help: a tournament fields one roster on both sides, so the sides must be the same but for their zones");
            return 2;
        }
        let swapped = swap_zones(&field.scenario);
        fields.push((file.clone(), field, swapped));
    }
    let mut rows: Vec<Row> = Vec::new();
    let mut jobs: Vec<Job> = Vec::new();
    for (file, field, swapped) in &fields {
        let rosters: Vec<&Army> = field
            .engine
            .rules
            .armies
            .iter()
            .filter(|r| r.scenario == field.scenario.name && r.side == SideId::Attacker)
            .filter(|r| args.armies.is_empty() || args.armies.contains(&r.name))
            .collect();
        if rosters.is_empty() {
            eprintln!("error: {}: no attacker army of `{}` to field{}", file.display(), field.scenario.name, named(args.armies));
            return 2;
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
                    for game in 0..args.games {
                        jobs.push(Job { field, scenario, row, roster, a_attacks, game });
                    }
                }
            }
        }
    }
    let started = std::time::Instant::now();
    // Every game on its own AIs and seed; the results come back in job order.
    let results: Vec<Result<Outcome, String>> = jobs
        .par_iter()
        .map(|j| {
            let mut defender = j.roster.clone();
            defender.side = SideId::Defender;
            let (attacker_ai, defender_ai) = if j.a_attacks { (a, b) } else { (b, a) };
            let mut ai = Ais { attacker: attacker_ai.to_string(), defender: defender_ai.to_string() }.controllers()?;
            let seed = game_seed(args.seed, j.game);
            battle::play(&j.field.engine, j.scenario, &j.field.map, [j.roster, &defender], seed, &mut ai)
                .map(|(r, _)| r.outcome)
                .map_err(|e| e.to_string())
        })
        .collect();
    for (j, r) in jobs.iter().zip(results) {
        let outcome = match r {
            Ok(o) => o,
            Err(e) => {
                eprintln!("error: a game of {} on {} failed: {e}", j.roster.name, j.field.logical);
                return 2;
            }
        };
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
    let text = match args.format {
        Format::Human => human(&rows, args),
        Format::Json => format!("{}\n", json(&rows, args)),
    };
    print!("{text}");
    eprintln!("{} games in {:.2?}", jobs.len(), started.elapsed());
    0
}

fn named(armies: &[String]) -> String {
    if armies.is_empty() {
        String::new()
    } else {
        format!(" named {}", armies.join(", "))
    }
}

/// Whether a scenario's sides are the same but for their zones (and what tells them apart).
fn mirror(s: &Scenario) -> Result<(), String> {
    let (a, d) = (&s.attacker, &s.defender);
    let differs = [
        (a.win != d.win, "their victory conditions"),
        (a.war_chest != d.war_chest, "their war chests"),
        ((a.min_units, a.max_units) != (d.min_units, d.max_units), "their numbers of units"),
        (a.limits != d.limits, "their army limits"),
        (a.grants != d.grants, "the tags they grant"),
        (
            (&a.allowed_classes, &a.allowed_items, &a.banned_classes, &a.banned_items)
                != (&d.allowed_classes, &d.allowed_items, &d.banned_classes, &d.banned_items),
            "the classes and items they allow",
        ),
        (s.rounds.is_some() && !matches!(s.on_time_limit, Outcome::Draw), "the time limit's winner (it must be a draw)"),
    ];
    let why: Vec<&str> = differs.iter().filter(|(d, _)| *d).map(|(_, w)| *w).collect();
    if why.is_empty() {
        Ok(())
    } else {
        Err(format!("the sides differ in {}", why.join(", ")))
    }
}

/// The same scenario with the sides' zones swapped (the attacker deploys where the defender did).
fn swap_zones(s: &Scenario) -> Scenario {
    let mut t = s.clone();
    std::mem::swap(&mut t.attacker.zone, &mut t.defender.zone);
    t
}

/// Totals of some rows, by file (ruleset) and overall.
fn totals(rows: &[&Row]) -> Row {
    let mut t = Row::default();
    for r in rows {
        t.a_first.add(r.a_first);
        t.a_second.add(r.a_second);
        t.first_mover.add(r.first_mover);
    }
    t
}

fn human(rows: &[Row], args: &Args) -> String {
    let [a, b] = args.ais;
    let same = a == b;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Mirror tournament: {a} vs {b}; per roster {} games ({} seeds from seed {} x the field and its zones swapped x each AI moving first)",
        args.games * 4,
        args.games,
        args.seed
    );
    let _ = writeln!(
        out,
        "W-D-L: wins, draws, losses of {}; the first mover is the attacker (it leads round 1).",
        if same { "the first mover" } else { a }
    );
    let _ = writeln!(out);
    let head = if same {
        format!("{:<26} {:<14} {:>6}  {:<9} {:<24}", "ruleset", "roster", "games", "W-D-L", "first mover wins (95% CI)")
    } else {
        format!(
            "{:<26} {:<14} {:>6}  {:<9} {:<24} {:<12} {:<12} {:<24}",
            "ruleset",
            "roster",
            "games",
            "W-D-L",
            format!("{a} wins (95% CI)"),
            "moving 1st",
            "moving 2nd",
            "first mover wins (95% CI)"
        )
    };
    let _ = writeln!(out, "{head}");
    let line = |out: &mut String, ruleset: &str, roster: &str, r: &Row| {
        let mut all = r.a_first;
        all.add(r.a_second);
        let _ = if same {
            writeln!(
                out,
                "{:<26} {:<14} {:>6}  {:<9} {:<24}",
                ruleset,
                roster,
                all.games(),
                r.first_mover.text(),
                r.first_mover.rate()
            )
        } else {
            writeln!(
                out,
                "{:<26} {:<14} {:>6}  {:<9} {:<24} {:<12} {:<12} {:<24}",
                ruleset,
                roster,
                all.games(),
                all.text(),
                all.rate(),
                r.a_first.text(),
                r.a_second.text(),
                r.first_mover.rate()
            )
        };
    };
    let mut files: Vec<&str> = Vec::new();
    for r in rows {
        if !files.contains(&r.file.as_str()) {
            files.push(&r.file);
        }
    }
    for file in &files {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.file == *file).collect();
        for r in &mine {
            line(&mut out, &r.ruleset, &r.roster, r);
        }
        if mine.len() > 1 {
            let ruleset = mine.first().map_or("", |r| r.ruleset.as_str());
            line(&mut out, ruleset, "(all)", &totals(&mine));
        }
    }
    if files.len() > 1 {
        let all: Vec<&Row> = rows.iter().collect();
        line(&mut out, "all rulesets", "(all)", &totals(&all));
    }
    out
}

fn json(rows: &[Row], args: &Args) -> serde_json::Value {
    let row = |r: &Row| {
        let mut all = r.a_first;
        all.add(r.a_second);
        serde_json::json!({
            "file": r.file, "ruleset": r.ruleset, "roster": r.roster,
            "a": all.json(), "a_moving_first": r.a_first.json(), "a_moving_second": r.a_second.json(),
            "first_mover": r.first_mover.json(),
        })
    };
    let all: Vec<&Row> = rows.iter().collect();
    serde_json::json!({
        "ais": args.ais, "seed": args.seed, "games_per_setting": args.games,
        "rosters": rows.iter().map(row).collect::<Vec<_>>(),
        "total": row(&totals(&all)),
    })
}
