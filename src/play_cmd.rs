//! `oc play`: a game in the browser, served by `oc_play::serve` over an `oc_play::session`;
//! this loads the scenario (or the saved game), prints the address and, at the end, writes the
//! replay page.

use std::path::PathBuf;

use oc_play::session::{Options, Session};
use oc_play::{game, serve};
use oc_project::output::Kind;

use crate::commands::output_target;

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum Side {
    Attacker,
    Defender,
    Both,
}

#[derive(clap::Args)]
pub struct PlayArgs {
    #[command(flatten)]
    game: crate::Game,
    /// The side you play; `both` is hotseat.
    #[arg(long, value_enum, default_value = "attacker")]
    side: Side,
    /// The AI of the other side.
    #[arg(long, value_name = "NAME", default_value = oc_engine::ai::DEFAULT, value_parser = crate::ai_names())]
    ai: String,
    /// The seed of the battle's dice: the same seed, the same rolls (default 1).
    #[arg(long, default_value_t = 1, conflicts_with = "resume")]
    seed: u64,
    /// Write the game's battle log here as it goes (`oc replay` checks it).
    #[arg(long)]
    log: Option<PathBuf>,
    /// Continue a game saved with --log (it goes on in that log unless --log names another).
    #[arg(long, value_name = "LOG")]
    resume: Option<PathBuf>,
    /// Write the replay page here when the game is over.
    #[arg(long)]
    html: Option<PathBuf>,
    /// The port (default: a free one).
    #[arg(long)]
    port: Option<u16>,
    /// Replace an existing file that is not an earlier output of this command.
    #[arg(long)]
    force: bool,
}

pub fn play(a: PlayArgs) -> u8 {
    let g = &a.game;
    if let Err(r) = Session::log_ready(a.log.as_deref(), a.resume.as_deref(), a.html.as_deref(), a.force) {
        return crate::load::refused(&r);
    }
    let (file, scenario, attacker, defender) = (&g.file, g.scenario.as_deref(), g.attacker.as_deref(), g.defender.as_deref());
    // A saved game: its text, and the scenario and armies its header names.
    let saved = match a.resume.as_deref().map(Session::saved).transpose() {
        Ok(saved) => saved,
        Err(d) => return denied(&d),
    };
    let names = match &saved {
        Some((_, s)) => (Some(s.scenario.as_str()), Some(s.attacker.as_str()), Some(s.defender.as_str())),
        None => (scenario, attacker, defender),
    };
    let setup = match crate::load::setup(file, names.0, names.1, names.2) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let players = [a.side != Side::Defender, a.side != Side::Attacker];
    let started = match &saved {
        Some((text, _)) => Session::resume(&setup, text),
        None => Session::new(&setup, &Options { players, ai: a.ai.clone(), seed: a.seed }),
    };
    let mut session = match started {
        Ok(s) => s,
        Err(d) => return denied(&d),
    };
    let log_path = a.log.clone().or(a.resume.clone());
    let log = match log_path.as_deref().map(|l| output_target(l, Kind::BattleLog, &setup.inputs, a.force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut inputs = setup.inputs.clone();
    inputs.extend(log_path);
    let page = match a.html.as_deref().map(|h| output_target(h, Kind::ReplayPage, &inputs, a.force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let server = match serve::Server::bind(serve::Options { port: a.port, token: None, log }) {
        Ok(s) => s,
        Err(r) => return crate::load::refused(&r),
    };
    outln!("oc play: {} on {}; open {}", setup.scenario.name, setup.map.name, server.url());
    let ended = server.run(&mut session, &|line: &str| errln_lossy!("{line}"));
    // The log could not be saved at the end: the game is not kept, whatever else went right.
    let unsaved = ended.log_error.is_some();
    if let Some(e) = ended.log_error {
        errln!("error: {e}");
        errln!("help: the moves since the last save are lost; free the log's path before the next game");
    }
    match session.outcome() {
        Some((o, reason)) => errln!("{} ({reason})", oc_play::setup::outcome_word(*o)),
        // The command that continues it, as `oc battle` says it of an unfinished game.
        None if ended.log_saved => match a.log.as_ref().or(a.resume.as_ref()) {
            Some(log) => errln!("the game is not over: continue it with `oc play {} --resume {}`", file.display(), log.display()),
            None => errln!("the game is not over; continue it with --resume"),
        },
        None if a.log.is_some() || a.resume.is_some() => errln!("the game is not over, and its log was never saved"),
        None => errln!("the game is not over (not saved: --log FILE keeps a game to continue with --resume)"),
    }
    let failed = if unsaved { 2 } else { 0 };
    let (Some(target), true) = (page, session.over()) else { return failed };
    match game::replay(&setup, session.source(), session.records(), true) {
        Ok(r) => match r.played.recording {
            Some(rec) => crate::battle_cmd::write_page(&target, &setup, session.source(), &rec).err().unwrap_or(failed),
            None => failed,
        },
        Err(e) => crate::load::refused(&e),
    }
}

/// Shows a refusal of the session (exit status 2).
fn denied(d: &oc_play::session::Denied) -> u8 {
    errln!("error: {d}\nhelp: {}", d.help);
    2
}
