//! Whole battles: `oc battle` (one AI game with its log) and `oc replay` (re-run a log and verify
//! every line), played by `oc_play::game` and checked by `oc_play::log::verify`; this writes the
//! log and the replay page and says how it went.

use std::path::{Path, PathBuf};

use oc_play::game::{self, Played};
use oc_play::log::{Mismatch, Source};
use oc_play::recording::Recording;
use oc_play::setup::outcome_word;
use oc_play::{Ais, Setup};
use oc_project::output::{Kind, Target};

use crate::commands::{output_target, write_output};
use crate::load::setup as load;

/// `oc battle`'s arguments.
#[derive(clap::Args)]
pub struct Args {
    #[command(flatten)]
    game: crate::Game,
    #[command(flatten)]
    ai: crate::args::AiChoice,
    /// The seed of the battle's dice: the same seed, the same rolls (default 1).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the log here (default: stdout).
    #[arg(long)]
    log: Option<PathBuf>,
    /// Also write a replay page here: one self-contained HTML file to watch the battle.
    #[arg(long)]
    html: Option<PathBuf>,
    /// Replace an existing file that is not an earlier output of this command.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    report: crate::Report,
}

/// Plays the battle (recorded for a replay page when `page` is asked for).
fn run(setup: &Setup, seed: u64, ais: &Ais, page: bool) -> Result<Played, String> {
    game::play(setup, seed, ais, page).map_err(|r| r.message)
}

/// Writes the replay page of a recorded battle.
pub fn write_page(target: &Target, setup: &Setup, source: &Source, rec: &Recording) -> Result<(), u8> {
    let page = oc_play::replay_page::page(setup, source, rec).map_err(|e| {
        errln!("error: cannot make the replay page: {e}");
        2u8
    })?;
    write_output(target, page.as_bytes())?;
    noteln!("wrote the replay page {} ({} KiB)", target.show(), page.len().div_ceil(1024));
    Ok(())
}

pub fn battle(args: &Args) -> u8 {
    let g = &args.game;
    let setup = match load(&g.file, g.scenario.as_deref(), g.attacker.as_deref(), g.defender.as_deref()) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let (seed, ais) = (args.seed, &args.ai.ais());
    let (log, html, force) = (args.log.as_deref(), args.html.as_deref(), args.force);
    let target = match log.map(|l| output_target(l, Kind::BattleLog, &setup.inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut page_inputs = setup.inputs.clone();
    page_inputs.extend(log.map(Path::to_path_buf));
    let page_target = match html.map(|h| output_target(h, Kind::ReplayPage, &page_inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    if let (Some(Target::Stdout), Some(Target::Stdout) | None) = (&page_target, &target) {
        errln!("error: the log and the replay page cannot both go to standard output");
        errln!("help: give --log a file, or --html a file");
        return 2;
    }
    let Played { result, records, recording, branch } = match run(&setup, seed, ais, page_target.is_some()) {
        Ok(r) => r,
        Err(e) => {
            errln!("error: {e}");
            return 2;
        }
    };
    let source = game::source(&setup, seed, ais);
    let lines = oc_play::log::lines(&source, &records);
    match &target {
        Some(target) => {
            if let Err(code) = write_output(target, (lines.join("\n") + "\n").as_bytes()) {
                return code;
            }
        }
        None => {
            for l in &lines {
                outln!("{l}");
            }
        }
    }
    if let (Some(t), Some(rec)) = (&page_target, &recording) {
        if let Err(code) = write_page(t, &setup, &source, rec) {
            return code;
        }
    }
    noteln!(
        "{} ({}) vs {} ({}) on {}: {} after {} round(s) ({}); routed: attacker {}, defender {}",
        setup.armies[0].name,
        ais.attacker,
        setup.armies[1].name,
        ais.defender,
        setup.map.name,
        outcome_word(result.outcome),
        result.rounds,
        match &branch {
            Some(branch) => format!("{}; won by {branch}", result.reason),
            None => result.reason.clone(),
        },
        result.lost[0],
        result.lost[1]
    );
    0
}

/// Two lines that differ, shown where they do: whole where short, else from a little before the
/// first character that differs (a log's start line holds every unit: thousands of characters,
/// more than a line of an error shows whole); and that character's column (1-based).
fn where_they_differ(a: &str, b: &str) -> (String, String, usize) {
    const BEFORE: usize = 60;
    const SHOWN: usize = 240;
    let same = a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    let window = |s: &str| {
        let count = s.chars().count();
        if count <= SHOWN {
            return s.to_string();
        }
        let from = same.saturating_sub(BEFORE);
        let shown: String = s.chars().skip(from).take(SHOWN).collect();
        let (pre, post) = (if from > 0 { "..." } else { "" }, if from + SHOWN < count { "..." } else { "" });
        format!("{pre}{shown}{post}")
    };
    (window(a), window(b), same + 1)
}

/// The game a log names: its scenario and armies as the log's header writes them. Where the
/// rules no longer have one of them, the help says so (the play commands' help names options
/// `oc replay` does not take: the log chooses).
fn replayed(file: &Path, source: &Source) -> Result<Setup, u8> {
    crate::load::one_file(file)?;
    let compiled = crate::load::compile(file, "replay")?;
    let named = |f: oc_play::Failure| match f {
        // A scenario or army the rules no longer have ("no scenario `X` in ...").
        oc_play::Failure::Refused(r) if r.message.starts_with("no ") => {
            let help = format!(
                "the log was played in scenario {} by the attacker army {} and the defender army {}; \
                 the rules changed since, or the log belongs to another project (name it with --project DIR)",
                source.scenario, source.attacker, source.defender
            );
            crate::load::failure(oc_play::Failure::Refused(oc_play::Refusal { help: Some(help), ..r }))
        }
        rejected => crate::load::failure(rejected),
    };
    let field = compiled.field(file, Some(&source.scenario)).map_err(named)?;
    field.with_armies(Some(&source.attacker), Some(&source.defender)).map_err(named)
}

/// Re-runs a log (`oc_play::log::open` finds the file it names) and checks it line by line.
pub fn replay(log: &Path, project: Option<&Path>, html: Option<&Path>, force: bool) -> u8 {
    let opened = match oc_play::log::open(log, project) {
        Ok(o) => o,
        Err(r) => return crate::load::refused(&r),
    };
    let source = &opened.source;
    let setup = match replayed(&opened.file, source) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut inputs = setup.inputs.clone();
    inputs.push(log.to_path_buf());
    let page_target = match html.map(|h| output_target(h, Kind::ReplayPage, &inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let checked = match game::check(&setup, &opened, page_target.is_some()) {
        Ok(c) => c,
        Err(e) => {
            errln!("error: {e}");
            return 2;
        }
    };
    match checked.mismatch {
        None => {}
        Some(Mismatch::Line { line, logged, replayed }) => {
            crate::report::verdict(1);
            let (logged, replayed, column) = where_they_differ(&logged, &replayed);
            errln!("{}:{line}: the replay differs here (column {column})", log.display());
            errln!("  log:    {logged}");
            errln!("  replay: {replayed}");
            errln!("help: the rules, the scenario or the armies changed since the log was written, or the log was edited");
            return 1;
        }
        Some(Mismatch::Length { logged, replayed }) => {
            crate::report::verdict(1);
            // The first line one has and the other has not.
            let (line, what) = if logged > replayed {
                (
                    replayed + 1,
                    format!("the log goes on past the replay's end (the log has {logged} lines, the replay {replayed})"),
                )
            } else {
                (logged + 1, format!("the log ends before the replay does (the log has {logged} lines, the replay {replayed})"))
            };
            errln!("{}:{line}: {what}", log.display());
            errln!("help: a log is the whole game's; lines added to or cut from it are not the game the seed plays");
            return 1;
        }
        Some(Mismatch::Stopped { line, logged, why }) => {
            crate::report::verdict(1);
            errln!("{}:{line}: the replay stopped here: {why}", log.display());
            if let Some(logged) = logged {
                errln!("  log:    {logged}");
            }
            errln!("help: the log was edited, or the rules, the scenario or the armies changed since it was written");
            return 1;
        }
    }
    noteln!(
        "replayed {} turns ({} log lines) of {} (seed {}): identical",
        checked.turns,
        checked.steps,
        source.scenario,
        source.seed
    );
    if checked.unfinished {
        noteln!("the game is unfinished: continue it with `oc play {} --resume {}`", source.file, log.display());
    }
    if let (Some(t), Some(rec)) = (&page_target, &checked.recording) {
        if let Err(code) = write_page(t, &setup, source, rec) {
            return code;
        }
    }
    0
}
