//! `oc simulate`: many AI games in parallel, win rates with 95% intervals; `--shard K/N` plays
//! only the games shard K owns and writes mergeable counts; `oc simulate merge` sums the parts
//! into the report the whole run would have printed, byte for byte. `--plot` (of a run, or of
//! merged parts) draws the counts: win rates with their intervals, rounds, units lost.

use std::path::{Path, PathBuf};

use oc_project::output::Kind;

use crate::commands::{output_target, plot_target, write_output};
use crate::load::setup as load;
use crate::Format;
use oc_play::simulate::{self, Header, Part, Run, Tally};
use oc_play::Ais;
use oc_project::output::Target;
use oc_render::plot::{self, PlotFormat};

/// Which scenario and armies, and the AIs that play them.
pub struct Game<'a> {
    pub scenario: Option<&'a str>,
    pub attacker: Option<&'a str>,
    pub defender: Option<&'a str>,
    pub ais: &'a Ais,
}

/// Where the report and the plot go.
pub struct Outputs<'a> {
    pub format: Format,
    pub out: Option<&'a Path>,
    pub plot: Option<&'a Path>,
    pub force: bool,
}

pub fn simulate(file: &Path, game: Game, run: Run, outputs: Outputs) -> u8 {
    let Outputs { format, out, plot, force } = outputs;
    if run.shard.is_some() && plot.is_some() {
        errln!("error: a shard holds only some of the games: plot the merged run instead");
        errln!("help: `oc simulate merge PARTS... --plot wins.png`");
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
    let plot = match plot.map(|p| plot_target(p, "a plot", &setup.inputs, force)).transpose() {
        Ok(p) => p,
        Err(code) => return code,
    };
    let started = std::time::Instant::now();
    let bar = crate::commands::Progress::new(Some(run.count()));
    let played = simulate::run(&setup, game.ais, &run, &|| bar.tick());
    bar.finish();
    let tally = match played {
        Ok(t) => t,
        Err(e) => return crate::load::refused(&e),
    };
    let header = Header::of(&setup, game.ais, &run);
    let n = tally.games;
    let text = match run.shard.map(|shard| Part::new(header.clone(), shard, tally.clone()).text()) {
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
pub fn merge(parts: &[PathBuf], outputs: Outputs) -> u8 {
    let Outputs { format, out, plot, force } = outputs;
    let target = match out.map(|o| output_target(o, Kind::SimulationReport, parts, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let plot = match plot.map(|p| plot_target(p, "a plot", parts, force)).transpose() {
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
        None => {
            let _ = crate::report::out(text.as_bytes());
            Ok(())
        }
    }
}
