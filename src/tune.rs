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
    pub fn knob(self) -> tune::Knob {
        match self {
            Knob::WarChest => tune::Knob::WarChest,
            Knob::Rounds => tune::Knob::Rounds,
            Knob::ArmySize => tune::Knob::ArmySize,
        }
    }
}

/// `oc tune`: oc-play's tuning request, and what the command does with its answer.
pub struct Request<'a> {
    pub run: tune::Request<'a>,
    pub write: bool,
    pub format: Format,
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

pub fn tune(r: &Request) -> u8 {
    let compiled = match crate::load::compile(r.run.file) {
        Ok(c) => c,
        Err(code) => return code,
    };
    let request = &r.run;
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
        match write(r.run.file, &root, &logical, &tuned) {
            Ok(w) => written = w,
            Err(code) => return code,
        }
    }
    let text = match r.format {
        Format::Human => oc_render::tune::text(r.run.file, r.write, &title, &tuned, written),
        Format::Json => oc_render::tune::json(r.run.file, r.run.seed, r.run.games, &names, &tuned, written),
    };
    out!("{text}");
    if r.write && !tuned.even() && !tuned.unchanged {
        errln!("error: the suggested values' 95% interval does not hold 50%; nothing was written to {}", r.run.file.display());
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
