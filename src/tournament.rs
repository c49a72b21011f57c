//! `oc tournament`: two AIs play mirror matches — one roster on both sides of a scenario whose
//! sides are the same but for their zones — with each AI moving first (the attacker leads the
//! first round) and second, on the field as written and with the zones swapped, and the table
//! of wins, draws and losses with 95% intervals.

use std::fmt::Write as _;
use std::path::PathBuf;

use oc_play::tournament::{self, totals, Entry, Row};

use crate::load::field as load_field;
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

pub fn tournament(args: &Args) -> u8 {
    if let Err(r) = tournament::check_ais(args.ais) {
        return crate::load::refused(&r);
    }
    let mut entries = Vec::new();
    for file in args.files {
        let field = match load_field(file, args.scenario) {
            Ok(f) => f,
            Err(code) => return code,
        };
        match Entry::new(file.clone(), field) {
            Ok(e) => entries.push(e),
            Err(r) => return crate::load::refused(&r),
        }
    }
    let started = std::time::Instant::now();
    let (rows, games) = match tournament::play(&entries, args.armies, args.ais, args.games, args.seed) {
        Ok(played) => played,
        Err(r) => return crate::load::refused(&r),
    };
    let text = match args.format {
        Format::Human => human(&rows, args),
        Format::Json => format!("{}\n", json(&rows, args)),
    };
    out!("{text}");
    noteln!("{games} games in {:.2?}", started.elapsed());
    0
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
