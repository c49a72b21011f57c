//! The Magvel Atlas: map definitions in TOML, a linter that knows the game (terrain costs per
//! movement type from the compiled rules), PNG rendering and Foundry VTT / Universal VTT / Tiled export.
//!
//! **Boundary:** no I/O. The caller passes the map's text (and, for the image lint, the size of
//! the background image it read); diagnostics point into the TOML by byte span.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::string_slice)]

pub mod blockers;
pub mod codes;
pub mod export;
pub mod foundry;
mod lint;
mod map;
pub mod path;
pub mod render;
pub mod tiled;
mod toml_error;
pub mod uvtt;
pub mod walls;

pub use codes::CODES;
pub use lint::{check, finish, lint, ImageCheck};
pub use map::{
    find_terrain, json_schema, parse, Chest, Destructible, Map, Region, RegionKind, Side, Tile, DEFAULT_GRID, MAX_REGION_TILES,
    MAX_SIDE,
};
