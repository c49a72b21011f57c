//! `oc play`: a game in the browser, served by `oc_play::serve` over an `oc_play::session`;
//! this loads the scenario (or the saved game), prints the address and, at the end, writes the
//! replay page.

use std::path::Path;

use oc_play::session::{Options, Session};
use oc_play::{game, serve};
use oc_project::limits::MAX_LOG_BYTES;
use oc_project::output::Kind;

use crate::commands::output_target;

#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum Side {
    Attacker,
    Defender,
    Both,
}

pub struct Args<'a> {
    /// The file, scenario, attacker's and defender's armies.
    pub game: (&'a Path, Option<&'a str>, Option<&'a str>, Option<&'a str>),
    pub side: Side,
    pub ai: &'a str,
    pub seed: u64,
    pub log: Option<&'a Path>,
    pub resume: Option<&'a Path>,
    pub html: Option<&'a Path>,
    pub port: Option<u16>,
    pub force: bool,
}

pub fn play(a: Args<'_>) -> u8 {
    let (file, scenario, attacker, defender) = a.game;
    // A saved game: its text, and the scenario and armies its header names.
    let saved = match a.resume.map(|p| oc_project::fsx::read_regular(p, MAX_LOG_BYTES)).transpose() {
        Ok(t) => t.map(|b| String::from_utf8_lossy(&b).into_owned()),
        Err(e) => {
            errln!("error: cannot read the saved game: {e}");
            return 2;
        }
    };
    let header = saved.as_deref().map(|t| oc_play::log::parse_source(t.lines().next().unwrap_or("")));
    let names = match &header {
        Some(Ok(s)) => (Some(s.scenario.as_str()), Some(s.attacker.as_str()), Some(s.defender.as_str())),
        Some(Err(e)) => {
            errln!("error: {}: {e}", a.resume.unwrap_or(Path::new("")).display());
            return 2;
        }
        None => (scenario, attacker, defender),
    };
    let setup = match crate::load::setup(file, names.0, names.1, names.2) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let players = match a.side {
        Side::Attacker => [true, false],
        Side::Defender => [false, true],
        Side::Both => [true, true],
    };
    let started = match &saved {
        Some(text) => Session::resume(&setup, text),
        None => Session::new(&setup, &Options { players, ai: a.ai.to_string(), seed: a.seed }),
    };
    let mut session = match started {
        Ok(s) => s,
        Err(d) => {
            errln!("error: {}\nhelp: {}", d, d.help);
            return 2;
        }
    };
    let log = match a.log.or(a.resume).map(|l| output_target(l, Kind::BattleLog, &setup.inputs, a.force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut inputs = setup.inputs.clone();
    inputs.extend(a.log.or(a.resume).map(Path::to_path_buf));
    let page = match a.html.map(|h| output_target(h, Kind::ReplayPage, &inputs, a.force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let server = match serve::Server::bind(serve::Options { port: a.port, token: None, log }) {
        Ok(s) => s,
        Err(r) => return crate::load::refused(&r),
    };
    outln!("oc play: {} on {}; open {}", setup.scenario.name, setup.map.name, server.url());
    let ended = server.run(&mut session);
    if let Some(e) = ended.log_error {
        errln!("error: {e}");
    }
    match session.outcome() {
        Some((o, reason)) => errln!("{} ({reason})", oc_play::setup::outcome_word(*o)),
        None => errln!("the game is not over; continue it with --resume"),
    }
    let (Some(target), true) = (page, session.over()) else { return 0 };
    match game::replay(&setup, session.source(), session.records(), true) {
        Ok(r) => match r.played.recording {
            Some(rec) => crate::battle_cmd::write_page(&target, &setup, session.source(), &rec).err().unwrap_or(0),
            None => 0,
        },
        Err(e) => crate::load::refused(&e),
    }
}
