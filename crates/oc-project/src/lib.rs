//! The project around the rules: where its root is (`oc.toml`), which files belong to it, how
//! they are read (confined to the root after resolving links, regular files only, bounded in
//! size) and how outputs are written (never over a source or an input, never through a link or
//! into a special file, atomically through an unpredictable temporary file).
//!
//! **Boundary:** the only crate besides the binary that touches the project's files (`oc-lsp`
//! also writes a read-only copy of the standard library to its cache folder; `oc-testkit`
//! rewrites test expectations). The compiler and the atlas get text through it.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

pub mod codes;
pub mod discover;
pub mod folder;
pub mod format;
pub mod fsx;
pub mod limits;
pub mod load;
pub mod manifest;
pub mod output;
pub mod parts;
pub mod rulesets;
pub mod session;
pub mod shown;
pub mod transcript;
pub mod unreadable;
pub mod watch;

pub use discover::{discover, DiskHost, Project};
pub use manifest::{find_root, Manifest, Root};
pub use session::{Outcome, Session, SessionError};
