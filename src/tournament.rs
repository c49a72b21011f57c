//! `oc tournament`: two AIs play mirror matches — one roster on both sides of a scenario whose
//! sides are the same but for their zones — with each AI moving first (the attacker leads the
//! first round) and second, on the field as written and with the zones swapped, and the table
//! of wins, draws and losses with 95% intervals.

use std::path::PathBuf;

use oc_play::tournament::{self, Entry};

use crate::load::field as load_field;
use crate::Format;

/// What to play.
pub struct Args<'a> {
    pub files: &'a [PathBuf],
    pub scenario: Option<&'a str>,
    /// The rosters to field (attacker armies of the scenario), all of them when empty.
    pub armies: &'a [String],
    /// AI A and AI B.
    pub ais: [&'a str; 2],
    /// Games per roster, orientation and first mover.
    pub games: u64,
    pub seed: u64,
    pub format: Format,
}

pub fn tournament(args: &Args) -> u8 {
    if let Err(r) = tournament::check_ais(args.ais) {
        return crate::load::refused(&r);
    }
    let mut entries = Vec::new();
    for file in args.files {
        let field = match load_field(file, args.scenario) {
            Ok(f) => f,
            Err(code) => return code,
        };
        match Entry::new(file.clone(), field) {
            Ok(e) => entries.push(e),
            Err(r) => return crate::load::refused(&r),
        }
    }
    let started = std::time::Instant::now();
    let (rows, games) = match tournament::play(&entries, args.armies, args.ais, args.games, args.seed) {
        Ok(played) => played,
        Err(r) => return crate::load::refused(&r),
    };
    let text = match args.format {
        Format::Human => oc_render::tournament::text(&rows, args.ais, args.games, args.seed),
        Format::Json => format!("{}\n", oc_render::tournament::json(&rows, args.ais, args.games, args.seed)),
    };
    out!("{text}");
    noteln!("{games} games in {:.2?}", started.elapsed());
    0
}
