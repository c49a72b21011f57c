//! What a side remembers of an enemy out of sight under fog (`tactician/memory.rs`), read by
//! the planner's copies (`planner/seen.rs`) and kept in an AI's mind (`recall.rs`).

use crate::battle::Tile;

/// Where a side last saw an enemy, in which round (`Battle::round`), its hit points then, and
/// whether it is lost: that tile was in sight since, without it. A lost enemy is no longer aimed at where it was
/// seen, but the copies the planner plays ahead on set it within a walk of that tile in the
/// rounds since (`planner/seen.rs`), not anywhere it could have walked from its deployment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Sighting {
    pub tile: Tile,
    pub round: u32,
    /// Its hit points when last seen: what the copies give it (healed or hurt out of sight, it
    /// is not known to be).
    pub hp: i64,
    pub lost: bool,
}

#[cfg(test)]
mod tests;
