//! `oc tournament`: two AIs play mirror matches — one roster on both sides of a scenario whose
//! sides are the same but for their zones — with each AI moving first (the attacker leads the
//! first round) and second, on the field as written and with the zones swapped, and the table
//! of wins, draws and losses with 95% intervals.

use std::path::PathBuf;

use oc_play::strength;
use oc_play::tournament::{self, Entry};

use crate::load::field as load_field;
use crate::Format;

/// `oc tournament`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// `.oc` files, each with a mirror scenario and the armies to field (one file per ruleset);
    /// with `--as-written`, files or folders of any scenarios with sample armies.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Play each scenario as written, A against B swapping one side at a time (A attacking B,
    /// B against B, B attacking A), each pair of its armies: A's strength on each side.
    #[arg(long)]
    as_written: bool,
    /// Which scenario, when a file defines several.
    #[arg(long)]
    scenario: Option<String>,
    /// Field only this attacker army (repeatable; default: every one of the scenario).
    #[arg(long)]
    army: Vec<String>,
    /// The two AIs: A, the one the table counts for, and B.
    #[arg(long, num_args = 2, value_names = ["A", "B"], default_values = [oc_engine::ai::DEFAULT, "greedy"], value_parser = crate::ai_names())]
    ais: Vec<String>,
    /// Games per roster, for each of the field's two orientations and each AI moving first
    /// (`--as-written`: games per cell).
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=100_000))]
    games: u64,
    /// The first game's seed: the same seed plays the same games (default 1).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Output format: `human` for people, `json` for one JSON object on stdout.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

pub fn tournament(args: &Args) -> u8 {
    let [a, b] = args.ais.as_slice() else { return 2 };
    let ais = [a.as_str(), b.as_str()];
    if let Err(r) = tournament::check_ais(ais) {
        return crate::load::refused(&r);
    }
    if args.as_written {
        return as_written(args, ais);
    }
    let mut entries = Vec::new();
    for file in &args.files {
        let field = match load_field(file, args.scenario.as_deref()) {
            Ok(f) => f,
            Err(code) => return code,
        };
        match Entry::new(file.clone(), field) {
            Ok(e) => entries.push(e),
            Err(r) => return crate::load::refused(&r),
        }
    }
    let started = std::time::Instant::now();
    let (rows, games) = match tournament::play(&entries, &args.army, ais, args.games, args.seed) {
        Ok(played) => played,
        Err(r) => return crate::load::refused(&r),
    };
    let text = match args.format {
        Format::Human => oc_render::tournament::text(&rows, ais, args.games, args.seed),
        Format::Json => format!("{}\n", oc_render::tournament::json(&rows, ais, args.games, args.seed)),
    };
    out!("{text}");
    noteln!("{games} games in {:.2?}", started.elapsed());
    0
}

/// `--as-written`: `oc_play::strength` over every scenario under the paths.
fn as_written(args: &Args, ais: [&str; 2]) -> u8 {
    let (games, seed) = (args.games, args.seed);
    let r = strength::Request { paths: &args.files, scenario: args.scenario.as_deref(), armies: &args.army, ais, games, seed };
    let bar = crate::commands::Progress::new(None);
    let started = std::time::Instant::now();
    let measured = strength::measure(
        &r,
        &|p: &std::path::Path| crate::load::compile_shown(p, "tournament"),
        &|line: &str| bar.say(line),
        &|| bar.tick(),
    );
    bar.finish();
    let rows = match measured {
        Ok(rows) => rows,
        Err(f) => return crate::load::failure(f),
    };
    match args.format {
        Format::Human => out!("{}", oc_render::strength::text(&rows, ais, games, seed)),
        Format::Json => outln!("{}", oc_render::strength::json(&rows, ais, games, seed)),
    }
    noteln!("{} games in {:.2?}", rows.len() as u64 * 3 * games, started.elapsed());
    0
}
