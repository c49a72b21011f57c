//! `oc forecast`, `oc duel` and `oc matrix`: the combat engine at the command line.

use std::path::PathBuf;
use std::time::Instant;

use oc_engine::{Engine, Loadout};
use oc_play::matchup::{self, Side};
use oc_play::matrix;
use oc_project::output::Kind;
use oc_render::forecast::{forecast_json_on, forecast_text};
use oc_render::plot::{self, Heatmap};

use crate::commands::{output_target, plot_target, write_output};
use crate::Format;

/// The engine, both loadouts and the distance of a forecast or duel; errors are printed.
fn matchup(
    command: &str,
    ruleset: Option<&str>,
    attacker: &Side,
    defender: &Side,
    distance: Option<i64>,
) -> Result<(Engine, Loadout, Loadout, i64), u8> {
    let engine = crate::load::engine(ruleset, command)?;
    let (a, d, distance) = matchup::both(&engine, attacker, defender, distance).map_err(|e| {
        // One shape for every refusal, as the engine's are said below: `error[CODE]:` where the
        // refusal breaks a rule with a code.
        match e.code {
            Some(code) => errln!("error[{code}]: {}", e.message),
            None => errln!("error: {}", e.message),
        }
        errln!("help: {}", e.help);
        2u8
    })?;
    Ok((engine, a, d, distance))
}

pub fn forecast(
    ruleset: Option<&str>,
    attacker: &Side,
    defender: &Side,
    distance: Option<i64>,
    stated: matchup::Stated,
    format: Format,
) -> u8 {
    let (engine, a, d, distance) = match matchup("forecast", ruleset, attacker, defender, distance) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let f = match matchup::exchange(&engine, &a, &d, distance, stated).map(|x| x.forecast()) {
        Ok(f) => f,
        Err(e) => {
            errln!("error[{}]: {e}", e.code());
            if let Some(h) = e.help() {
                errln!("help: {h}");
            }
            return 2;
        }
    };
    match format {
        Format::Json => outln!("{}", forecast_json_on(&f, &a, &d)),
        Format::Human => out!("{}", forecast_text(&engine, &f, &a, &d)),
    }
    0
}

pub fn duel(
    ruleset: Option<&str>,
    attacker: &Side,
    defender: &Side,
    distance: Option<i64>,
    stated: matchup::Stated,
    seed: u64,
    format: Format,
) -> u8 {
    let (engine, a, d, distance) = match matchup("duel", ruleset, attacker, defender, distance) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let (log, hp) = match matchup::exchange(&engine, &a, &d, distance, stated).map(|x| x.resolve(&mut oc_engine::rng(seed))) {
        Ok(x) => x,
        Err(e) => {
            errln!("error: {e}");
            return 2;
        }
    };
    match format {
        Format::Json => outln!("{}", oc_render::forecast::duel_json(seed, distance, &log, hp)),
        Format::Human => out!("{}", oc_render::forecast::duel_text(seed, distance, &a, &d, &log, hp)),
    }
    0
}

/// Every class with each weapon it can wield against every class with its default weapon.
/// `oc matrix`'s arguments.
#[derive(clap::Args)]
pub struct MatrixArgs {
    /// A built-in ruleset (officers_chess, officers_chess_v06, stamina, battlestorm, skirmish) or a path to .oc files.
    #[arg(long)]
    ruleset: Option<String>,
    /// Write the CSV here instead of stdout (the summary goes to stderr).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Also draw a heat map (`.png` or `.svg`): each class (rows) with its best weapon
    /// against each class (columns) with its kit weapon, coloured by the rout chance.
    #[arg(long, value_name = "FILE")]
    heatmap: Option<PathBuf>,
    /// Measure at this distance (each weapon that reaches it) instead of each weapon's
    /// nearest range.
    #[arg(long, value_parser = clap::value_parser!(i64).range(1..=64))]
    distance: Option<i64>,
    /// Only these attacking classes (repeatable), against every class.
    #[arg(long = "class", value_name = "CLASS")]
    classes: Vec<String>,
    /// Replace an existing file that is not an earlier output of this command.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    report: crate::Report,
}

pub fn matrix(args: &MatrixArgs) -> u8 {
    let (ruleset, out, heatmap, force) = (args.ruleset.as_deref(), args.out.as_deref(), args.heatmap.as_deref(), args.force);
    if let Err(code) = crate::commands::apart(&[("--out", out), ("--heatmap", heatmap)]) {
        return code;
    }
    let inputs: Vec<PathBuf> = ruleset.map(PathBuf::from).into_iter().collect();
    let target = match out.map(|o| output_target(o, Kind::MatrixCsv, &inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let heatmap = match heatmap.map(|h| plot_target(h, "a heat map", &inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let engine = match crate::load::engine(ruleset, "matrix") {
        Ok(e) => e,
        Err(code) => return code,
    };
    if let Some((name, near)) = matrix::unknown_classes(&engine, &args.classes).into_iter().next() {
        errln!("error: --class {name}: no such class in {}", engine.rules.ruleset.name);
        match near {
            Some(s) => errln!("help: did you mean `{s}`?"),
            None => errln!("help: name a class of the ruleset (`oc doc` lists them), or leave out --class for every class"),
        }
        return 2;
    }
    let started = Instant::now();
    let matrix::Matrix { csv, summary, count, heat, columns } = matrix::measure(&engine, &args.classes, args.distance);
    if let Some(target) = &target {
        if let Err(code) = write_output(target, csv.as_bytes()) {
            return code;
        }
    } else {
        out!("{csv}");
    }
    noteln!("{:<16} {:<40} {:<40}", "class", "best matchup (rout - routed)", "worst matchup");
    for (class, bs, b, ws, w) in &summary {
        noteln!("{class:<16} {:<40} {:<40}", format!("{b} ({:+.0}%)", bs * 100.0), format!("{w} ({:+.0}%)", ws * 100.0));
    }
    let unarmed = matrix::unarmed(&engine, &args.classes);
    if !unarmed.is_empty() {
        noteln!("no weapon to attack with (staves only, or none): {}", unarmed.join(", "));
    }
    noteln!(
        "{count} exact forecasts in {:.2?}{}",
        started.elapsed(),
        target.map_or(String::new(), |t| format!("; CSV written to {}", t.show()))
    );
    if let Some((target, format)) = heatmap {
        let figure = Heatmap::of_matrix(&engine.rules.ruleset.name, args.distance, heat, columns);
        let bytes = match plot::render(&figure, format) {
            Ok(b) => b,
            Err(e) => {
                errln!("error: cannot draw the heat map: {e}");
                return 2;
            }
        };
        if let Err(code) = write_output(&target, &bytes) {
            return code;
        }
        noteln!("heat map written to {}", target.show());
    }
    0
}
