//! The battle as a side has seen it: the copies the planner plays ahead on under fog of war.
//!
//! A copy holds the side's own units, the enemies it spots now (in sight and not hidden,
//! [`crate::battle::Sight::spots`]) where they stand, and the enemies it remembers where it last
//! saw them (the tactician's memory, `Tactician::remember`: an enemy that stepped out of sight
//! is sampled where it was seen, so it blocks and strikes in a playout as it could in the
//! battle), when that tile is free in the copy. Every other enemy is taken off the board in the
//! copy (as a unit that joined another, `State::Joined`, with no unit to fight in: it neither
//! stands, acts, is seen nor counts as routed) and set on one tile, so that nothing in the copy
//! reads where it stood. The search is over what the side has seen: an enemy never seen neither
//! blocks nor strikes in a playout. Since a condition such as `rout all` would then hold early
//! in a copy, the leaf does not trust a win for the side that searches where enemies were taken
//! off ([`Seen::trusts`]).

use oc_model as m;

use crate::battle::{Battle, State, Tile};

/// A copy of the battle as `side` sees it now, with its own dice.
pub(super) struct Seen<'e> {
    pub copy: Battle<'e>,
    /// Whether any enemy was taken off the board.
    pub pruned: bool,
}

impl<'e> Seen<'e> {
    /// Forks `b` with dice from `seed`: the enemies `side` does not spot set where `memory` (by
    /// battle index) last saw them, where that tile is free, else taken off the board.
    pub fn fork(b: &Battle<'e>, side: m::SideId, memory: &[Option<Tile>], seed: u64) -> Seen<'e> {
        let mut copy = b.fork(Some(seed));
        let sight = b.sight(side);
        let mut pruned = false;
        if sight.fogged() {
            // The tiles held in the copy: by the side's units and the enemies in sight.
            let mut held: Vec<Tile> = copy
                .state
                .units
                .iter()
                .enumerate()
                .filter(|(k, u)| u.state == State::Ready && (u.side == side || sight.spots(*k, u.pos)))
                .map(|(_, u)| u.pos)
                .collect();
            for (k, u) in copy.state.units.iter_mut().enumerate() {
                if u.side != side && u.state == State::Ready && !sight.spots(k, u.pos) {
                    if let Some(t) = memory.get(k).copied().flatten().filter(|t| !held.contains(t)) {
                        u.pos = t;
                        held.push(t);
                        continue;
                    }
                    u.state = State::Joined;
                    u.with = None;
                    u.pos = (0, 0);
                    u.hidden = None;
                    pruned = true;
                }
            }
        }
        Seen { copy, pruned }
    }

    /// Whether the copy's outcome may be taken as the battle's: not a win for `side` where
    /// enemies were taken off (they stand somewhere out of sight).
    pub fn trusts(&self, side: m::SideId) -> bool {
        !(self.pruned && matches!(self.copy.outcome, Some((m::Outcome::Win(s), _)) if s == side))
    }
}
