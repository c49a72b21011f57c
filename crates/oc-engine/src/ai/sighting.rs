//! What a side remembers of an enemy out of sight under fog (`tactician/memory.rs`), read by
//! the planner's copies (`planner/seen.rs`) and kept in an AI's mind (`recall.rs`).

use crate::battle::{Affliction, Debuff, Morale, Tile};
use crate::Atom;

/// Where a side last saw an enemy, in which round (`Battle::round`), what it bore then (hit
/// points, statuses, weapon, items, resources, debuffs, courage, facing, a shifter's form), and
/// whether it is lost: that tile was in sight since, without it. A lost enemy is no longer aimed at where it
/// was seen, but the copies the planner plays ahead on set it within a walk of that tile in the
/// rounds since (`planner/seen.rs`), not anywhere it could have walked from its deployment.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Sighting {
    pub tile: Tile,
    pub round: u32,
    /// Its hit points when last seen: what the copies give it (healed or hurt out of sight, it
    /// is not known to be).
    pub hp: i64,
    /// Its statuses when last seen: what the copies give it, less those that would have worn off
    /// by now ([`Sighting::statuses_now`]).
    pub statuses: Vec<Affliction>,
    /// The weapon in its hand when last seen: what the copies give it (it may have taken
    /// another out of sight; that is not known).
    pub equipped: Option<Atom>,
    /// Its resources when last seen (what seed 002's activations are paid from), and whether
    /// it had had its activation that round: the copies give it these, set again by the
    /// refills since (`Battle::resources_as_known`).
    pub resources: Vec<i64>,
    pub acted: bool,
    /// What it carried and the uses it had spent of each, its debuffs (worn off at its next
    /// activation) and its courage, when last seen: what the copies give it.
    pub items: Vec<Atom>,
    pub spent: Vec<(Atom, u32)>,
    pub debuffs: Vec<Debuff>,
    pub morale: Morale,
    /// The way it faced when last seen (where threat zones are in front): what the copies give it.
    pub facing: Option<Tile>,
    /// A shifter's form when last seen (seed 000, Shifting): whether it stood transformed out of
    /// its turn (it ended its last one without acting), and whether it had acted that round
    /// (normal until the next). What the copies give it: a form taken in the dark is not known.
    pub transformed: bool,
    pub reverted: bool,
    pub lost: bool,
}

impl Sighting {
    /// Its statuses as the side may take them in round `round`: those it bore when last seen,
    /// less those whose time (`left`, its rounds or its activations: one a round) has run out in
    /// the rounds since.
    pub fn statuses_now(&self, round: u32) -> Vec<Affliction> {
        let since = round.saturating_sub(self.round);
        self.statuses.iter().filter(|a| a.left.is_none_or(|n| n > since)).cloned().collect()
    }
}

#[cfg(test)]
mod tests;
