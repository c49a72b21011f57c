//! `oc balance`: every class's and item's written price next to the price its measured strength
//! suggests (the method is `oc_balance`'s), and `oc::balance::cost_outlier` on the home-brew ones
//! priced far from how they play.

use std::path::PathBuf;
use std::time::Instant;

use oc_balance::Options;
use oc_play::rules::Loaded;

use crate::commands::style;
use crate::report;

/// What `oc balance` prints.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum BalanceFormat {
    /// Human-readable text (`text`, its old name, is still accepted).
    #[value(alias = "text")]
    Human,
    Json,
}

/// `oc balance`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    /// Your `.oc` files or folders (their classes and items are the ones warned about).
    paths: Vec<PathBuf>,
    /// A built-in ruleset: alone, or the one your files build on (default: the standard library,
    /// or the `ruleset` of the oc.toml above the working directory).
    #[arg(long)]
    ruleset: Option<String>,
    /// The first game's seed: the same seed plays the same games (default 1).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Duels to the rout per matchup (0: the exact forecasts only, faster).
    #[arg(long, default_value_t = oc_balance::DEFAULT_DUELS, value_parser = clap::value_parser!(u32).range(0..=1000))]
    duels: u32,
    /// Output format: `human` for people, `json` for one JSON object on stdout.
    #[arg(long, value_enum, default_value = "human")]
    format: BalanceFormat,
}

pub fn balance(args: &Args) -> u8 {
    crate::load::root_for(args.ruleset.as_deref(), args.paths.first().map(PathBuf::as_path));
    let Loaded { engine, workspace, files, .. } =
        match crate::load::shown(oc_play::rules::load_with(args.ruleset.as_deref(), &args.paths)) {
            Ok(l) => l,
            Err(code) => return code,
        };
    let written = oc_balance::written_costs(&workspace, &files);
    let started = Instant::now();
    let report = match oc_balance::balance(&engine, Options { seed: args.seed, duels: args.duels }, &written) {
        Ok(r) => r,
        Err(e) => {
            errln!("error: cannot fit prices: {e}");
            errln!("help: balance prices classes against each other: give the rules at least three priced classes that carry a weapon they can attack with");
            return 2;
        }
    };
    let diagnostics = oc_balance::lint(&engine, &report, &written);
    let took = started.elapsed();
    match args.format {
        BalanceFormat::Json => {
            let found = report::json(&workspace, &diagnostics, files.len());
            outln!("{}", oc_render::balance::json(&report, &found));
        }
        BalanceFormat::Human => {
            let flagged = oc_balance::flagged(&diagnostics, &written);
            out!("{}", oc_render::balance::table(&engine, &report, &flagged, took));
            let style = style();
            let reports = report::Reports::new(&workspace);
            for d in &diagnostics {
                err!("{}", reports.render(d, style));
            }
            errln!("{} warning(s)", diagnostics.len());
        }
    }
    0
}
