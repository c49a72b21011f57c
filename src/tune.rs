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
    #[arg(long)]
    write: bool,
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
    let compiled = match crate::load::compile(request.file) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let say = |line: &str| noteln!("{line}");
    let prepared = match tune::prepare(request, compiled, &say) {
        Ok(p) => p,
        Err(f) => return refused(f),
    };
    let root = prepared.root().to_path_buf();
    let logical = prepared.logical().to_string();
    noteln!("{}", oc_render::tune::start(&prepared, request));
    let title = oc_render::tune::title(&prepared, request);
    let [attacker, defender] = prepared.armies();
    let names = [prepared.scenario().name.clone(), attacker.name.clone(), defender.name.clone()];
    let bar = crate::commands::Progress::new(None);
    let tuned = tune::run(prepared, request, r.write, &|line: &str| bar.say(line), &|| bar.tick());
    bar.finish();
    let tuned = match tuned {
        Ok(t) => t,
        Err(f) => return refused(f),
    };
    let mut written = false;
    // Only values whose interval holds 50% are written: the nearest values found otherwise may
    // change the scenario's character without making it fair (a third sentry and 31 rounds).
    if r.write && tuned.even() {
        match write(request.file, &root, &logical, &tuned) {
            Ok(w) => written = w,
            Err(code) => return code,
        }
    }
    let text = match r.format {
        Format::Human => oc_render::tune::text(request.file, r.write, &title, &tuned, written),
        Format::Json => oc_render::tune::json(request.file, request.seed, request.games, &names, &tuned, written),
    };
    out!("{text}");
    if r.write && !tuned.even() && !tuned.unchanged {
        errln!("error: the suggested values' 95% interval does not hold 50%; nothing was written to {}", request.file.display());
        errln!("help: these are the nearest values found: write them by hand if they suit, or give more knobs (--knob) or games");
        return 1;
    }
    0
}

/// `--write`: the suggested values into the file, if they check clean and the file is as read.
fn write(file: &Path, root: &Path, logical: &str, t: &Tuned) -> Result<bool, u8> {
    if t.after == t.before {
        return Ok(false);
    }
    // Every setting measured was checked like this; the check is repeated on the very text
    // written.
    if let Some(Err(diags)) = &t.check {
        let reports = report::Reports::new(&t.workspace);
        for d in diags {
            err!("{}", reports.render(d, report::style()));
        }
        errln!("error: with the suggested values {} does not check clean; nothing was written", file.display());
        return Err(1);
    }
    let readonly = std::fs::metadata(file).map(|md| md.permissions().readonly()).unwrap_or(false);
    if readonly {
        errln!("error: {} is read-only; nothing was written", file.display());
        errln!("help: make it writable, or copy the suggested values by hand");
        return Err(2);
    }
    let confined = oc_project::fsx::Confined::new(root);
    oc_project::output::rewrite_source(&confined, logical, t.before.as_bytes(), t.after.as_bytes()).map_err(|e| {
        errln!("error: cannot write {}: {e}", file.display());
        2u8
    })?;
    noteln!("wrote the suggested values into {}", file.display());
    Ok(true)
}
