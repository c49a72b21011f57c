//! `oc simulate`: many AI games in parallel, win rates with 95% intervals; `--shard K/N` plays
//! only the games shard K owns and writes mergeable counts; `oc simulate merge` sums the parts
//! into the report the whole run would have printed, byte for byte. `--plot` (of a run, or of
//! merged parts) draws the counts: win rates with their intervals, rounds, units lost.

use std::path::PathBuf;

use oc_project::output::Kind;

use crate::commands::{output_target, plot_target, write_output};
use crate::load::setup as load;
use crate::Format;
use oc_play::simulate::{self, Header, Part, Run, Tally};
use oc_project::output::Target;
use oc_render::plot::{self, PlotFormat};

/// `oc simulate`'s arguments (`oc simulate merge` is its subcommand).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    merge: Option<Merge>,
    /// The `.oc` file with the scenario and its armies (or importing them).
    #[arg(required = true)]
    file: Option<PathBuf>,
    /// Which scenario, when the file defines several.
    #[arg(long)]
    scenario: Option<String>,
    /// The attacker's army (default: the only one written for the attacker).
    #[arg(long)]
    attacker: Option<String>,
    /// The defender's army.
    #[arg(long)]
    defender: Option<String>,
    #[command(flatten)]
    ai: crate::args::AiChoice,
    /// How many games (at most 10,000,000; results stream, so memory stays flat).
    #[arg(long, default_value_t = 100, value_parser = clap::value_parser!(u64).range(1..=oc_project::limits::MAX_GAMES))]
    games: u64,
    /// The first game's seed: the same seed plays the same games (default 1).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    #[command(flatten)]
    outputs: Outputs,
    /// Play only shard K of N (games g with g mod N = K - 1, the same seeds as the whole run)
    /// and write its counts as JSON for `oc simulate merge`.
    #[arg(long, value_parser = oc_play::simulate::parse_shard)]
    shard: Option<oc_play::simulate::Shard>,
}

#[derive(clap::Subcommand)]
enum Merge {
    /// Merge the parts of a sharded simulation: the report equals the unsharded run's, byte for byte.
    Merge {
        /// Every part, one per shard (`oc simulate FILE --shard K/N --out part-K.json`).
        #[arg(required = true)]
        parts: Vec<PathBuf>,
        #[command(flatten)]
        outputs: Outputs,
    },
}

/// Where the report and the plot go.
#[derive(clap::Args)]
struct Outputs {
    /// Output format: `human` for people, `json` for one JSON object on stdout.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Write the report (with `--shard`, the shard's part) to this file instead of standard output.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also draw the results: win rate per side with its 95% interval, the rounds games
    /// lasted, the units each side lost (`.png` or `.svg`, by the extension).
    #[arg(long, value_name = "FILE")]
    plot: Option<PathBuf>,
    /// Replace an existing file that is not an earlier output of this command.
    #[arg(long)]
    force: bool,
}

pub fn command(args: Args) -> u8 {
    match &args.merge {
        Some(Merge::Merge { parts, outputs }) => merge(parts, outputs),
        None => simulate(&args),
    }
}

fn simulate(args: &Args) -> u8 {
    let Outputs { format, ref out, ref plot, force } = args.outputs;
    let run = Run { games: args.games, seed: args.seed, shard: args.shard };
    if run.shard.is_some() && plot.is_some() {
        errln!("error: a shard holds only some of the games: plot the merged run instead");
        errln!("help: `oc simulate merge PARTS... --plot wins.png`");
        return 2;
    }
    if let Err(code) = crate::commands::apart(&[("--out", out.as_deref()), ("--plot", plot.as_deref())]) {
        return code;
    }
    let file = args.file.clone().unwrap_or_default();
    let setup = match load(&file, args.scenario.as_deref(), args.attacker.as_deref(), args.defender.as_deref()) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let ais = args.ai.ais();
    let kind = if run.shard.is_some() { Kind::SimulationPart } else { Kind::SimulationReport };
    let target = match out.as_deref().map(|o| output_target(o, kind, &setup.inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let plot = match plot.as_deref().map(|p| plot_target(p, "a plot", &setup.inputs, force)).transpose() {
        Ok(p) => p,
        Err(code) => return code,
    };
    if let Some(shard) = run.shard {
        let empty = Part::new(Header::of(&setup, &ais, &run), setup.fingerprint(), shard, Tally::default()).text();
        if let Err(code) =
            empty.map_or(Ok(()), |text| crate::commands::part_free(target.as_ref(), Kind::SimulationPart, &text, force))
        {
            return code;
        }
    }
    let started = std::time::Instant::now();
    let bar = crate::commands::Progress::new(Some(run.count()));
    let played = simulate::run(&setup, &ais, &run, &|| bar.tick());
    bar.finish();
    let tally = match played {
        Ok(t) => t,
        Err(e) => return crate::load::refused(&e),
    };
    let header = Header::of(&setup, &ais, &run);
    let n = tally.games;
    let text = match run.shard.map(|shard| Part::new(header.clone(), setup.fingerprint(), shard, tally.clone()).text()) {
        Some(Ok(text)) => text,
        Some(Err(e)) => return crate::load::refused(&e),
        None => oc_render::simulate::report(&header, &tally, format == Format::Json),
    };
    if let Err(code) = emit(target.as_ref(), &text) {
        return code;
    }
    if let Some((target, plot_format)) = &plot {
        if let Err(code) = draw(&header, &tally, target, *plot_format) {
            return code;
        }
    }
    noteln!("{n} games in {:.2?}", started.elapsed());
    0
}

/// Draws the plot of a whole run's counts.
fn draw(header: &Header, tally: &Tally, target: &Target, format: PlotFormat) -> Result<(), u8> {
    if !tally.has_histograms() {
        errln!("error: the parts do not hold the per-game counts a plot needs (they were written by an older oc)");
        errln!("help: run the shards again with this oc, then `oc simulate merge PARTS... --plot FILE`");
        return Err(2);
    }
    let outcomes = oc_render::simulate::outcomes(header, tally);
    let bytes = plot::render(&outcomes, format).map_err(|e| {
        errln!("error: cannot draw the plot: {e}");
        2u8
    })?;
    write_output(target, &bytes)?;
    noteln!("plot written to {}", target.show());
    Ok(())
}

/// `oc simulate merge PARTS...`: every shard of one run, once each, summed.
fn merge(parts: &[PathBuf], outputs: &Outputs) -> u8 {
    let Outputs { format, ref out, ref plot, force } = *outputs;
    if let Err(code) = crate::commands::apart(&[("--out", out.as_deref()), ("--plot", plot.as_deref())]) {
        return code;
    }
    let target = match out.as_deref().map(|o| output_target(o, Kind::SimulationReport, parts, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let plot = match plot.as_deref().map(|p| plot_target(p, "a plot", parts, force)).transpose() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let (header, tally, count) = match simulate::merge_files(parts) {
        Ok(merged) => merged,
        Err(e) => return crate::load::refused(&e),
    };
    if let Err(code) = emit(target.as_ref(), &oc_render::simulate::report(&header, &tally, format == Format::Json)) {
        return code;
    }
    if let Some((target, plot_format)) = &plot {
        if let Err(code) = draw(&header, &tally, target, *plot_format) {
            return code;
        }
    }
    noteln!("merged {count} parts: {} games", tally.games);
    0
}

fn emit(target: Option<&oc_project::output::Target>, text: &str) -> Result<(), u8> {
    match target {
        Some(target) => write_output(target, text.as_bytes()),
        // A report (or a shard's part) that could not be written is a failure: a job array
        // that saw success would merge without it (`>/dev/full` exited 0).
        None => match crate::report::out_status(text.as_bytes()) {
            0 => Ok(()),
            code => Err(code),
        },
    }
}
