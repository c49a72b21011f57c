//! Rendering to bytes and strings, for every front end (the `oc` binary, a play server, the
//! language server): plots (`plot`, SVG or PNG through plotters) and the reports' text and JSON.
//!
//! **Boundary:** above the libraries whose results it draws, below every front end. It returns
//! bytes and strings; it never prints, never exits and writes no file: the caller writes.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

pub mod forecast;
pub mod plot;
