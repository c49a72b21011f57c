//! A scenario ready to play, for every front end (the `oc` binary, a play server, the language
//! server): the rules (`rules`: a built-in name or a path) and scenario (`setup`) loaded from a
//! project, the armies chosen, the per-game seeds (`stats`), one battle (`game`), many at once
//! (`simulate`, with shards and their merge), mirror tournaments, the fairness table, the
//! tuning of a scenario's knobs (`tune`, as text edits of its file), one exchange set up
//! (`matchup`) and every class against every class (`matrix`, its CSV decimals by `fixed`), where a unit can go (`reach`), the recording a replay page is drawn from and the page (`replay_page`), the
//! briefing players read, and the saved formats (the battle log in `log`, simulate's parts)
//! with their versions.
//!
//! **Boundary:** above the engine and the project, below every front end. It returns data and
//! `oc_diag::Diagnostic`s (or a [`Refusal`] where nothing in a file is to blame); it never
//! prints, never exits, and writes no file: the caller renders and writes.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

/// Every program that plays battles through this crate (`oc`, its tests) allocates with
/// mimalloc: a battle and its AIs make and drop many small vectors and maps, and the system
/// allocator took about a sixth of `oc simulate`'s time.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

extern "C" {
    /// mimalloc's `mi_option_set` (in the C library the `mimalloc` crate links).
    fn mi_option_set(option: std::ffi::c_int, value: std::ffi::c_long);
}

/// Tells mimalloc to keep the pages freed memory leaves (`mi_option_purge_delay`, option 15 in
/// the vendored v2 and v3 alike, set to -1) rather than hand them back to the system 10 ms later:
/// games free and take back the same memory over and over, and each page handed back was
/// faulted in and zeroed anew (about 15,000 page faults for 150 greedy games of ten against
/// ten, 480 kept). The memory held stays what the run's peak took. Set once, before the games
/// (`simulate::run`, `fairness::measure_file`, `tournament::play`).
pub(crate) fn hold_freed_pages() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    // SAFETY: sets one integer option of the allocator, a call mimalloc allows at any time.
    ONCE.call_once(|| unsafe { mi_option_set(15, -1) });
}

pub mod briefing;
pub mod error;
pub mod fairness;
pub mod fixed;
pub mod game;
pub mod log;
pub mod matchup;
pub mod matrix;
mod parts;
pub mod reach;
pub mod recording;
pub mod replay_page;
pub mod rules;
pub mod serve;
pub mod session;
pub mod setup;
pub mod simulate;
pub mod stats;
pub mod strength;
pub mod tournament;
pub mod tune;

pub use error::{Failure, Refusal};
pub use setup::{Ais, Field, Setup};
