//! `oc tune FILE`: the search is `oc_play::tune`'s; this prints its progress and report, and
//! with `--write` writes its edits into the file (atomically, only after the result checks
//! clean and its interval holds 50%).

use std::path::Path;

use clap::ValueEnum;
use oc_play::tune::{self, Tuned};
use oc_play::Failure;

use crate::report;
use crate::Format;

/// What `oc tune` may change (`oc_play::tune::Knob` on the command line).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Knob {
    /// Both war chests, the armies re-bought to fit.
    WarChest,
    /// The time limit (`rounds N`).
    Rounds,
    /// The sample armies' sizes.
    ArmySize,
}

impl Knob {
    fn knob(self) -> tune::Knob {
        match self {
            Knob::WarChest => tune::Knob::WarChest,
            Knob::Rounds => tune::Knob::Rounds,
            Knob::ArmySize => tune::Knob::ArmySize,
        }
    }
}

/// `oc tune`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: crate::Game,
    /// The most games one setting is played (a setting whose 95% interval leaves 50% stops
    /// sooner); the suggested values are then measured on as many games the search did
    /// not use.
    #[arg(long, default_value_t = 400, value_parser = clap::value_parser!(u64).range(20..=oc_project::limits::MAX_GAMES))]
    games: u64,
    /// The first game's seed: the same seed plays the same games (default 1).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// What may change (repeatable; searched in the order given). Default: army-size, then
    /// rounds. `rounds`: the time limit (a `survive N rounds` with the same N moves with it;
    /// a scenario without one gets `rounds N then draw`). `army-size`: the sample armies,
    /// a unit dismissed from one side or a copy of one of its units hired for the other, in
    /// turn, within the scenario's unit counts, war chests and limits (units with a scenario
    /// tag or named by a condition stay). `war-chest`: both war chests, by the price of a
    /// side's cheapest unit, the armies re-bought to fit (not with army-size).
    #[arg(long, value_enum)]
    knob: Vec<Knob>,
    /// Write the suggested values into the file (atomically, only the tuned numbers and the
    /// units hired or dismissed), once the result checks clean and its 95% interval holds 50%.
    #[arg(long, conflicts_with = "shard")]
    write: bool,
    /// Play shard K of N of the next round of a sharded tuning into `--parts DIR`. The search
    /// is sequential, so it runs in rounds (each a job array): every shard of a round searches
    /// on the games the parts hold and plays its own of the next batch they lack.
    #[arg(long, value_parser = oc_play::simulate::parse_shard, requires = "parts")]
    shard: Option<oc_play::simulate::Shard>,
    /// A sharded tuning's folder of parts. With `--shard`, the round's part is written there;
    /// without, the report is made from the parts alone, the unsharded run's byte for byte
    /// (exit 3 while they lack games: run another round).
    #[arg(long)]
    parts: Option<std::path::PathBuf>,
    /// Output format: `human` for people, `json` for one JSON object on stdout.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
}

/// A refusal of the tuning: its diagnostic (exit 1), or a refusal without a span (exit 2).
fn refused(f: Failure) -> u8 {
    match f {
        Failure::Rejected { workspace, diagnostics } => {
            for d in &diagnostics {
                err!("{}", report::render(workspace.as_ref(), d, report::style()));
            }
            1
        }
        Failure::Refused(r) => crate::load::refused(&r),
    }
}

pub fn tune(r: &Args) -> u8 {
    let knobs: Vec<tune::Knob> = r.knob.iter().map(|k| k.knob()).collect();
    let g = &r.game;
    let (scenario, attacker, defender) = (g.scenario.as_deref(), g.attacker.as_deref(), g.defender.as_deref());
    let request = &tune::Request { file: &g.file, scenario, attacker, defender, games: r.games, seed: r.seed, knobs: &knobs };
    if let Err(code) = crate::load::one_file(request.file) {
        return code;
    }
    let compiled = match crate::load::compile(request.file, "tune") {
        Ok(c) => c,
        Err(code) => return code,
    };
    let prepared = match tune::prepare(request, compiled, &|line: &str| noteln!("{line}")) {
        Ok(p) => p,
        Err(f) => return refused(f),
    };
    let root = prepared.root().to_path_buf();
    let logical = prepared.logical().to_string();
    if r.write {
        if let Err(e) = oc_project::output::may_rewrite(&oc_project::fsx::Confined::new(&root), &logical) {
            errln!("error: --write {}: {e}; no game was played", request.file.display());
            errln!("help: make the file writable UTF-8 text, or leave out --write to see the values found");
            return 2;
        }
    }
    noteln!("{}", oc_render::tune::start(&prepared, request));
    let title = oc_render::tune::title(&prepared, request);
    let [attacker, defender] = prepared.armies();
    let names = [prepared.scenario().name.clone(), attacker.name.clone(), defender.name.clone()];
    let bar = crate::commands::Progress::new(None);
    let (say, tick) = (&|line: &str| bar.say(line), &|| bar.tick());
    let tuned = match (r.shard, &r.parts) {
        (Some(shard), Some(dir)) => tune::shards::play_round(prepared, request, shard, dir, say, tick).map(|()| Err(None)),
        (None, Some(dir)) => tune::shards::from_parts(prepared, request, dir, r.write, say, tick).map(|t| t.map_err(Some)),
        _ => tune::run(prepared, request, r.write, say, tick).map(Ok),
    };
    bar.finish();
    let tuned = match tuned {
        Ok(Ok(t)) => t,
        Ok(Err(None)) => return 0,
        // The parts lack games: exit 3, so that a script runs rounds until the report comes.
        Ok(Err(Some(pending))) => return crate::load::refused(&pending).max(3),
        Err(f) => return refused(f),
    };
    // Only values whose interval holds 50% are written: the nearest values found otherwise may
    // change the scenario's character without making it fair (a third sentry and 31 rounds).
    let written = match (r.write && tuned.even()).then(|| write(request.file, &root, &logical, &tuned)) {
        Some(Err(code)) => return code,
        done => done.is_some_and(|w| w.unwrap_or(false)),
    };
    let text = match r.format {
        Format::Human => oc_render::tune::text(request.file, r.write, &title, &tuned, written),
        Format::Json => oc_render::tune::json(request.file, request.seed, request.games, &names, &tuned, written),
    };
    out!("{text}");
    if r.write && !tuned.even() && !tuned.unchanged {
        crate::report::verdict(1);
        errln!("error: the suggested values' 95% interval does not hold 50%; nothing was written to {}", request.file.display());
        errln!("help: these are the nearest values found: write them by hand if they suit, or give more knobs (--knob) or games");
        return 1;
    }
    0
}

/// `--write`: the suggested values into the file (`tune::write`), its refusals shown.
fn write(file: &Path, root: &Path, logical: &str, t: &Tuned) -> Result<bool, u8> {
    let written = tune::write(file, root, logical, t).map_err(|w| match w {
        tune::NotWritten::Rejected(diags) => {
            report::verdict(1);
            let reports = report::Reports::new(&t.workspace);
            for d in &diags {
                err!("{}", reports.render(d, report::style()));
            }
            errln!("error: with the suggested values {} does not check clean; nothing was written", file.display());
            1
        }
        tune::NotWritten::Refused(r) => crate::load::refused(&r),
    })?;
    if written {
        noteln!("wrote the suggested values into {}", file.display());
    }
    Ok(written)
}
