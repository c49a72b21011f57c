//! Whole battles: `oc battle` (one AI game with its log) and `oc replay` (re-run a log and verify
//! every line). `oc simulate` is in `simulate.rs`.

use std::path::Path;

use oc_engine::battle::{self, GameResult, Record};
use oc_project::limits::MAX_LOG_BYTES;
use oc_play::log::Source;
use oc_project::output::{Kind, Target};

use crate::commands::{output_target, write_output};
use crate::load::setup as load;
use oc_play::recording::Recording;
use oc_play::setup::outcome_word;
use oc_play::{Ais, Setup};

/// Where `oc battle` writes: the log (standard output without one) and a replay page.
pub struct Outputs<'p> {
    pub log: Option<&'p Path>,
    pub html: Option<&'p Path>,
    pub force: bool,
}

/// A played battle: its result and log, the replay page's recording when one was asked for,
/// and which alternative of an `either ... or ...` won.
type Played = (GameResult, Vec<Record>, Option<Recording>, Option<String>);

/// Plays the battle, recorded for a replay page when `page` is asked for.
fn run(setup: &Setup, seed: u64, ais: &Ais, page: bool) -> Result<Played, String> {
    let mut sides = ais.controllers()?;
    if page {
        let rec = oc_play::recording::play(setup, seed, Box::new(sides)).map_err(|e| e.to_string())?;
        return Ok((rec.result.clone(), rec.records.clone(), Some(rec), None));
    }
    let armies = [&setup.armies[0], &setup.armies[1]];
    let mut branch = None;
    let mut watch = |b: &battle::Battle<'_>| {
        if b.outcome.is_some() {
            branch = b.winning_branch();
        }
    };
    let (result, records) =
        battle::play_watched(&setup.engine, &setup.scenario, &setup.map, armies, seed, &mut sides, &mut watch)
            .map_err(|e| e.to_string())?;
    Ok((result, records, None, branch))
}

/// Writes the replay page of a recorded battle.
fn write_page(target: &Target, setup: &Setup, source: &Source, rec: &Recording) -> Result<(), u8> {
    let page = crate::replay_html::page(setup, source, rec).map_err(|e| {
        eprintln!("error: cannot make the replay page: {e}");
        2u8
    })?;
    write_output(target, page.as_bytes())?;
    eprintln!("wrote the replay page {} ({} KiB)", target.show(), page.len().div_ceil(1024));
    Ok(())
}

pub fn battle(
    file: &Path,
    scenario: Option<&str>,
    attacker: Option<&str>,
    defender: Option<&str>,
    seed: u64,
    ais: &Ais,
    out: Outputs<'_>,
) -> u8 {
    let setup = match load(file, scenario, attacker, defender) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let target = match out.log.map(|l| output_target(l, Kind::BattleLog, &setup.inputs, out.force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut page_inputs = setup.inputs.clone();
    page_inputs.extend(out.log.map(Path::to_path_buf));
    let page_target = match out.html.map(|h| output_target(h, Kind::ReplayPage, &page_inputs, out.force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    if let (Some(Target::Stdout), Some(Target::Stdout) | None) = (&page_target, &target) {
        eprintln!("error: the log and the replay page cannot both go to standard output");
        eprintln!("help: give --log a file, or --html a file");
        return 2;
    }
    let (result, records, recording, branch) = match run(&setup, seed, ais, page_target.is_some()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let source = Source {
        event: "source".into(),
        format: oc_play::log::LOG_FORMAT,
        file: setup.logical.clone(),
        scenario: setup.scenario.name.clone(),
        attacker: setup.armies[0].name.clone(),
        defender: setup.armies[1].name.clone(),
        seed,
        attacker_ai: ais.attacker.clone(),
        defender_ai: ais.defender.clone(),
    };
    let lines = oc_play::log::lines(&source, &records);
    match &target {
        Some(target) => {
            if let Err(code) = write_output(target, (lines.join("\n") + "\n").as_bytes()) {
                return code;
            }
        }
        None => {
            for l in &lines {
                println!("{l}");
            }
        }
    }
    if let (Some(t), Some(rec)) = (&page_target, &recording) {
        if let Err(code) = write_page(t, &setup, &source, rec) {
            return code;
        }
    }
    eprintln!(
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

/// Re-runs a log. The file it names is relative to the root of the project the log lies in
/// (or of `project`, for a log kept elsewhere), and confined to it like an import.
pub fn replay(log: &Path, project: Option<&Path>, html: Option<&Path>, force: bool) -> u8 {
    let text = match oc_project::fsx::read_regular(log, MAX_LOG_BYTES) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", log.display());
            return 2;
        }
    };
    let mut lines = text.lines();
    let source = match oc_play::log::parse_source(lines.next().unwrap_or("")) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}: {e}", log.display());
            return 2;
        }
    };
    let root = oc_project::find_root(project.unwrap_or(log)).dir;
    let file = match oc_play::log::source_path(&root, &source.file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {}: {e} (project root {})", log.display(), root.display());
            eprintln!("help: replay a log from inside its project, or name the project with --project DIR");
            return 2;
        }
    };
    let setup = match load(&file, Some(&source.scenario), Some(&source.attacker), Some(&source.defender)) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let mut inputs = setup.inputs.clone();
    inputs.push(log.to_path_buf());
    let page_target = match html.map(|h| output_target(h, Kind::ReplayPage, &inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    // The AIs the log names (a log from before there were several: `greedy`).
    let ais = Ais { attacker: source.attacker_ai.clone(), defender: source.defender_ai.clone() };
    let (records, recording) = match run(&setup, source.seed, &ais, page_target.is_some()) {
        Ok((_, r, rec, _)) => (r, rec),
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let expected = oc_play::log::lines(&source, &records);
    for (n, (want, got)) in expected.iter().skip(1).zip(lines.by_ref()).enumerate() {
        if want != got {
            eprintln!("{}:{}: the replay differs here", log.display(), n + 2);
            eprintln!("  log:    {got}");
            eprintln!("  replay: {want}");
            eprintln!("help: the rules, the scenario or the armies changed since the log was written, or the log was edited");
            return 1;
        }
    }
    let logged = text.lines().count();
    if logged != expected.len() {
        eprintln!("{}: the log has {logged} lines, the replay {}", log.display(), expected.len());
        return 1;
    }
    eprintln!("replayed {} steps of {} (seed {}): identical", expected.len() - 1, source.scenario, source.seed);
    if let (Some(t), Some(rec)) = (&page_target, &recording) {
        if let Err(code) = write_page(t, &setup, &source, rec) {
            return code;
        }
    }
    0
}
