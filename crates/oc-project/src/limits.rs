//! Every cap `oc` puts on user data, in one place. Each is documented in the README ("Limits")
//! and each has a test that hits it and gets a diagnostic or a usage error.
//!
//! | what | cap | where it is enforced |
//! |---|---|---|
//! | a source file (`.oc`, `*.map.toml`, `oc.toml`) | [`MAX_SOURCE_BYTES`] | [`crate::fsx::read_regular`] |
//! | one message to `oc lsp` | [`MAX_SOURCE_BYTES`] | `oc_lsp::transport` |
//! | a map's background image | [`MAX_IMAGE_BYTES`] | [`crate::fsx::read_regular`] |
//! | a battle log given to `oc replay` | [`MAX_LOG_BYTES`] | [`crate::fsx::read_regular`] |
//! | a map's width or height | [`MAX_MAP_SIDE`] tiles | `oc_atlas::map` |
//! | a map's grid | 8 to 1024 pixels per tile | `oc_atlas::map` |
//! | tiles listed by all of a map's regions | [`MAX_REGION_TILES`] | `oc_atlas::map` |
//! | an `ignore` glob | [`MAX_GLOB_LEN`] bytes | [`crate::manifest`] |
//! | a name that gets a did-you-mean | [`MAX_SUGGESTION_LEN`] characters | `oc_diag::did_you_mean` |
//! | a rendered picture | [`MAX_RENDER_SIDE`] pixels a side, [`MAX_RENDER_PIXELS`] in all | `oc_atlas::render` |
//! | one table | [`MAX_TABLE_CELLS`] cells | `oc_compiler::check` |
//! | one die | [`MAX_DIE_FACES`] faces | `oc_compiler::check` |
//! | dice in one pool | [`MAX_DICE_COUNT`] | `oc_compiler::dice` |
//! | faces a die lists, a face's size | [`MAX_LISTED_FACES`], [`MAX_FACE_VALUE`] | `oc_compiler::dice` |
//! | values of one dice shape | [`MAX_DICE_VALUES`] | `oc_model::dice` (reported by the compiler) |
//! | working out one shape | [`MAX_DICE_WORK`] steps, [`MAX_KEEP_STATES`] keep states | `oc_model::dice` |
//! | an exploding die's chain | cut at [`EXPLODE_TAIL`] of probability | `oc_model::dice` |
//! | imports nested | [`MAX_IMPORT_DEPTH`] files | `oc_compiler` |
//! | brackets nested | [`MAX_NESTING`] levels | `oc_syntax::segment` |
//! | one expression | [`MAX_EXPR_PIECES`] parts | `oc_syntax::lower` |
//! | `oc simulate --games` | [`MAX_GAMES`] | the binary's argument parser |

/// Bytes in one source file: far above any hand-written file (the standard library is 60 kB).
pub const MAX_SOURCE_BYTES: u64 = 16 << 20;
/// Bytes in a map's background image (a 16k x 16k PNG compresses well below this).
pub const MAX_IMAGE_BYTES: u64 = 256 << 20;
/// Bytes in a battle log (a 40-round 10-v-10 battle writes about 200 kB).
pub const MAX_LOG_BYTES: u64 = 256 << 20;
/// Games in one `oc simulate` run; results stream, so this bounds time, not memory.
pub const MAX_GAMES: u64 = 10_000_000;

pub use crate::manifest::MAX_GLOB_LEN;
pub use oc_atlas::render::{MAX_RENDER_PIXELS, MAX_RENDER_SIDE};
pub use oc_atlas::MAX_REGION_TILES;
pub use oc_atlas::MAX_SIDE as MAX_MAP_SIDE;
pub use oc_compiler::dice_limits::{
    EXPLODE_TAIL, MAX_DICE_COUNT, MAX_DICE_VALUES, MAX_DICE_WORK, MAX_FACE_VALUE, MAX_KEEP_STATES, MAX_LISTED_FACES,
};
pub use oc_compiler::{MAX_DIE_FACES, MAX_IMPORT_DEPTH, MAX_TABLE_CELLS};
pub use oc_diag::MAX_SUGGESTION_LEN;
pub use oc_syntax::{MAX_EXPR_PIECES, MAX_NESTING};
