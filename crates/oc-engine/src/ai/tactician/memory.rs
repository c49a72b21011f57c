//! What a tactician remembers from one decision to the next under fog (where each enemy out of
//! sight was last seen, when each tile was last in sight), and its whole mind as the book of
//! openings reads it (`ai/recall.rs`).

use oc_model as m;

use super::{recall, Tactician};
use crate::ai::sighting::Sighting;
use crate::battle::{Battle, State, Tile};

impl Tactician {
    /// What it carries into a decision in `b` that its turn reads ([`recall::Mind`]): the
    /// units' prices and what the side to act sees now noted, as the decision notes them first
    /// (noting again notes nothing new), with `kind` and `decisions` (the planner's count).
    pub(in crate::ai) fn mind(&mut self, b: &Battle<'_>, kind: u8, decisions: u64) -> recall::Mind {
        let side = b.to_act;
        self.prices(b);
        let sight = b.sight(side);
        let _ = self.remember(b, side, &sight);
        recall::Mind {
            kind,
            prices: self.prices.clone(),
            last_seen: self.last_seen.clone(),
            swept: self.swept.clone(),
            decisions,
        }
    }

    /// Under fog: notes where `side` sees each enemy now, and returns where the enemies it does
    /// not see were last seen. An enemy routed is forgotten; one not on the tile it was last
    /// seen on when that tile is in sight is lost (not returned, [`Sighting::lost`]). Notes too
    /// the round each tile in sight was seen, and returns the open tiles out of sight that were
    /// seen longest ago (or never), with that round plus one (0: never): where to sweep for an
    /// enemy neither seen nor remembered.
    /// Nothing without fog.
    pub(super) fn remember(
        &mut self,
        b: &Battle<'_>,
        side: m::SideId,
        sight: &crate::battle::Sight,
    ) -> (Vec<Tile>, Option<(u32, Vec<Tile>)>) {
        let s = usize::from(side == m::SideId::Defender);
        let (Some(seen), Some(swept)) = (self.last_seen.get_mut(s), self.swept.get_mut(s)) else {
            return (Vec::new(), None);
        };
        if !sight.fogged() {
            return (Vec::new(), None);
        }
        let (width, height) = (b.map.width.max(0), b.map.height.max(0));
        swept.resize((width * height) as usize, 0);
        let mut oldest: Option<u32> = None;
        let mut unswept = Vec::new();
        for (k, slot) in swept.iter_mut().enumerate() {
            let t = (k as i64 % width.max(1), k as i64 / width.max(1));
            if sight.sees(t) {
                *slot = b.round + 1;
            } else if b.open(t) {
                if oldest.is_none_or(|o| *slot < o) {
                    oldest = Some(*slot);
                    unswept.clear();
                }
                if oldest == Some(*slot) {
                    unswept.push(t);
                }
            }
        }
        seen.resize(b.units.len(), None);
        let mut out = Vec::new();
        for ((k, u), slot) in b.units.iter().enumerate().zip(seen.iter_mut()) {
            if u.side == side || u.state != State::Ready {
                *slot = None;
            } else if sight.spots(k, u.pos) {
                *slot = Some(Sighting { tile: u.pos, round: b.round, lost: false });
            } else if let Some(s) = slot.as_mut().filter(|s| !s.lost) {
                if sight.sees(s.tile) {
                    s.lost = true;
                } else {
                    out.push(s.tile);
                }
            }
        }
        (out, oldest.map(|o| (o, unswept)))
    }

    /// Under fog: where `side` last saw each enemy out of sight, by battle index, as of its last
    /// decision (`Tactician::remember`); empty without fog.
    pub(crate) fn memory(&self, side: m::SideId) -> &[Option<Sighting>] {
        self.last_seen.get(usize::from(side == m::SideId::Defender)).map_or(&[], Vec::as_slice)
    }
}

/// Under fog, where `side` knows each unit of `b` to stand, by battle index: its own where they
/// stand, the enemies it spots (`sight`) where they stand, those it remembers and has not lost
/// (`memory`, [`Tactician::memory`]) where it last saw them; `None` for every other (routed,
/// never seen, lost). `None` without fog: every unit is known where it stands.
pub(in crate::ai) fn known(
    b: &Battle<'_>,
    side: m::SideId,
    sight: &crate::battle::Sight,
    memory: &[Option<Sighting>],
) -> Option<Vec<Option<Tile>>> {
    if !sight.fogged() {
        return None;
    }
    let at = |(k, u): (usize, &crate::battle::Combatant)| {
        if u.state != State::Ready {
            None
        } else if u.side == side || sight.spots(k, u.pos) {
            Some(u.pos)
        } else {
            memory.get(k).copied().flatten().filter(|s| !s.lost).map(|s| s.tile)
        }
    };
    Some(b.units.iter().enumerate().map(at).collect())
}
