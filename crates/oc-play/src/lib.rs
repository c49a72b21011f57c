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

mod allocator;
pub(crate) use allocator::hold_freed_pages;

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
