//! `oc simulate`: many AI games in parallel, win rates with 95% intervals; `--shard K/N` plays
//! only the games shard K owns and writes mergeable counts; `oc simulate merge` sums the parts
//! into the report the whole run would have printed, byte for byte. `--plot` (of a run, or of
//! merged parts) draws the counts: win rates with their intervals, rounds, units lost.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use oc_project::limits::MAX_LOG_BYTES;
use oc_project::output::Kind;

use crate::commands::{output_target, write_output};
use crate::load::setup as load;
use crate::Format;
use oc_play::simulate::{self, Header, Part, Run, Tally};
use oc_play::stats::wilson;
use oc_play::Ais;
use oc_project::output::Target;
use oc_render::plot::{self, Outcomes, PlotFormat};

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

/// The plot's path passed through the output policy, with its format.
fn plot_target(plot: Option<&Path>, inputs: &[PathBuf], force: bool) -> Result<Option<(Target, PlotFormat)>, u8> {
    let Some(path) = plot else { return Ok(None) };
    let format = PlotFormat::of(path).map_err(|e| {
        errln!("error: {e}");
        2u8
    })?;
    if path.as_os_str() == "-" {
        errln!("error: a plot is written to a file, not to standard output");
        return Err(2);
    }
    Ok(Some((output_target(path, Kind::Plot, inputs, force)?, format)))
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
    let plot = match plot_target(plot, &setup.inputs, force) {
        Ok(p) => p,
        Err(code) => return code,
    };
    let started = std::time::Instant::now();
    let bar = if std::io::stderr().is_terminal() && !crate::report::quiet() {
        let bar = indicatif::ProgressBar::new(run.count());
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games ({per_sec}, {eta} left)") {
            bar.set_style(style);
        }
        Some(bar)
    } else {
        None
    };
    let tick = || {
        if let Some(b) = &bar {
            b.inc(1);
        }
    };
    let played = simulate::run(&setup, game.ais, &run, &tick);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    let mut tally = match played {
        Ok(t) => t,
        Err(e) => return crate::load::refused(&e),
    };
    let header = Header::of(&setup, game.ais, &run);
    let n = tally.games;
    let text = match run.shard {
        Some(shard) => {
            let part = Part::new(header.clone(), shard, tally);
            let json = serde_json::to_string(&part);
            tally = part.tally;
            match json {
                Ok(json) => format!("{json}\n"),
                Err(e) => {
                    errln!("error: cannot write the part: {e}");
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
        errln!("error: cannot draw the plot: {e}");
        2u8
    })?;
    write_output(target, &bytes)?;
    noteln!("plot written to {}", target.show());
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
                errln!("error: {}: {e}", path.display());
                return 2;
            }
        };
        match simulate::read_part(path, &bytes) {
            Ok(part) => read.push((path.clone(), part)),
            Err(e) => return crate::load::refused(&e),
        }
    }
    let (header, tally, count) = match simulate::merge(read) {
        Ok(merged) => merged,
        Err(e) => return crate::load::refused(&e),
    };
    if let Err(code) = emit(target.as_ref(), &report(&header, &tally, format)) {
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
