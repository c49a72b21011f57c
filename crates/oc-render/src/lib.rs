//! Rendering to bytes and strings, for every front end (the `oc` binary, a play server, the
//! language server): diagnostics as text and JSON (`diagnostics`), plots (`plot`, SVG or PNG
//! through plotters), forecasts and the reports' text and JSON.
//!
//! **Boundary:** above the libraries whose results it draws, below every front end. It returns
//! bytes and strings; it never prints, never exits and writes no file: the caller writes.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

pub mod annotate;
pub mod balance;
pub mod diagnostics;
pub mod explain;
pub mod export;
pub mod forecast;
pub mod map;
pub mod plot;
pub mod simulate;
pub mod strength;
pub mod tournament;
pub mod tune;
