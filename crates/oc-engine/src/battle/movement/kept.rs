//! Reach searches kept from one call to the next ([`KeptReach`]): each unit's last few, read
//! again where the enemies that moved changed no way, else mended ([`mend`]).

mod mend;

use super::{neighbours, tile_index, Battle, BattleError, Rule, Sight, State, Tile};
use crate::Atom;

/// Each unit's last eight reach searches (by unit, the most recent first), kept for
/// [`Battle::reachable_sorted`]: good for one terrain and one engine only. A search ahead (the
/// planner's copies of one battle) meets the same few again and again. With the lists each
/// call works with (the tiles blocked and held, the places taken), kept to be used again.
#[derive(Debug, Default)]
pub(crate) struct KeptReach(Vec<Vec<Kept>>, Lists);

/// What [`Battle::reachable_sorted`] gathers for one call, kept with the searches for the next.
#[derive(Debug, Default)]
struct Lists {
    blocked: Vec<Tile>,
    held: Vec<Tile>,
    gone: Vec<usize>,
    /// Whether the last call's list is the search numbered `Kept::serial` less the places `gone`.
    read: Option<u64>,
    /// What a mend works in.
    mending: mend::Scratch,
}

impl KeptReach {
    /// The most searches kept for one unit.
    const KEEP: usize = 8;

    /// Forgets every search (the terrain changed).
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    /// What the last call's list was made from, where it was a search's: the search's number
    /// (each search made or mended takes a new one) and its places left out (the tiles held),
    /// which together make the list (the same two, the same list).
    pub(crate) fn last(&self) -> Option<(u64, &[usize])> {
        self.1.read.map(|n| (n, &self.1.gone[..]))
    }
}

/// A number no reach search had yet ([`Kept::serial`]).
fn serial() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// One reach search: where from, with what movement, the enemy tiles that blocked it (in unit order)
/// and every tile it reached with its cost, in tile order (tiles held by a unit included).
#[derive(Clone, Debug, Default)]
struct Kept {
    /// Its number, new wherever its tiles or costs change ([`KeptReach::last`]).
    serial: u64,
    pos: Tile,
    points: i64,
    kind: Atom,
    blocked: Vec<Tile>,
    reached: Vec<(Tile, i64)>,
    touched: Touched,
}

/// The square a search searched (its corner and size) and each of its tiles' place in the list
/// of tiles reached (row by row, `u32::MAX` where it did not reach): what tells the tiles it
/// entered or tried, and their costs.
#[derive(Clone, Debug, Default)]
struct Touched {
    corner: Tile,
    width: i64,
    height: i64,
    place: Vec<u32>,
}

impl Kept {
    /// Tile `t`'s place in the list of tiles the search reached, if it reached it.
    fn place(&self, t: Tile) -> Option<usize> {
        let Touched { corner, width, height, place } = &self.touched;
        tile_index((t.0 - corner.0, t.1 - corner.1), (*width, *height))
            .and_then(|k| place.get(k))
            .filter(|p| **p != u32::MAX)
            .map(|p| *p as usize)
    }

    /// The search's cheapest cost to tile `t`, if it reached it.
    fn cost(&self, t: Tile) -> Option<i64> {
        self.place(t).and_then(|p| self.reached.get(p)).map(|(_, c)| *c)
    }
}

/// Whether the search `kept` (within its points, with enemies on its `blocked`) finds the same
/// costs with enemies on `now` (the same start, movement and terrain; each in unit order), `step` what
/// entering a tile costs (`None` where it cannot). An enemy newly on a tile the search did not
/// reach takes no way away; a tile an enemy left, entered from no tile it reached within
/// `points`, lies on no way within them. Then no way within `points` passes a tile blocked in one
/// and not the other (a way's first such tile is entered from one open in both, at no less than
/// its cost), so every cost is the same.
fn same_search(kept: &Kept, now: &[Tile], step: impl Fn(Tile) -> Option<i64>) -> bool {
    let (points, was) = (kept.points, &kept.blocked[..]);
    let unreached = |t: &Tile| kept.cost(*t).is_none();
    let not_entered = |t: &Tile| {
        step(*t).is_none_or(|s| neighbours(*t).into_iter().all(|n| kept.cost(n).is_none_or(|c| c.saturating_add(s) > points)))
    };
    let taken = |t: &Tile| was.contains(t) || unreached(t);
    let left = |t: &Tile| now.contains(t) || not_entered(t);
    if was.len() == now.len() {
        // A tile blocked in one list and not the other differs from the other's tile at its place.
        was.iter().zip(now).filter(|(a, b)| a != b).all(|(a, b)| left(a) && taken(b))
    } else {
        now.iter().all(taken) && was.iter().all(left)
    }
}

impl Battle<'_> {
    /// [`Battle::reachable`] (or, with `sight`, [`Battle::reachable_as_seen`]) from the unit's
    /// [`Battle::mobility`] (worked out once by the caller), as a list sorted by tile (the same
    /// tiles and costs, not hashed into a map: what an AI that walks them in tile order reads).
    /// `kept` holds each unit's search from an earlier call with the same terrain (the caller
    /// empties it when the terrain changes): where the unit stands, moves and is blocked as it
    /// was, up to enemies that moved onto tiles the search did not reach or off tiles it could
    /// not enter within its points, the search is the same and is not made again.
    pub(crate) fn reachable_sorted(
        &self,
        i: usize,
        mobility: &crate::battle::Mobility,
        sight: Option<&Sight>,
        kept: &mut KeptReach,
    ) -> Result<Vec<(Tile, i64)>, BattleError> {
        let u = self.state.units.get(i).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        let (points, kind, can) = mobility;
        kept.1.read = None;
        // A unit that may not move, or that an enemy holds, stays where it is (`cheapest_ways`,
        // told it is not held: nothing changes the battle in between).
        if !*can || self.engaged_by(i).is_some() {
            return Ok(vec![(u.pos, 0)]);
        }
        // The enemies that block the way (those it knows of), as `cheapest_ways` reads them, and
        // the units a move cannot end on (as in `reach`), in one pass.
        let KeptReach(kept, Lists { blocked, held, gone, read, mending }) = kept;
        blocked.clear();
        held.clear();
        for o in &self.state.units {
            if o.state == State::Ready && sight.is_none_or(|s| s.sees(o.pos)) {
                if o.side != u.side {
                    blocked.push(o.pos);
                }
                if o.pos != u.pos {
                    held.push(o.pos);
                }
            }
        }
        if kept.len() <= i {
            kept.resize_with(i + 1, Vec::new);
        }
        let slots = kept.get_mut(i).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        let step_of = self.engine.movement_costs(*kind);
        let step = |t: Tile| self.terrain_index_at(t).and_then(|x| step_of.get(x).copied().flatten());
        let like = |k: &Kept| k.pos == u.pos && k.points == *points && k.kind == *kind;
        // A search kept from the same tile with the same movement that is this one (the enemies
        // that moved changed no way), made the most recent; else the most recent of them copied
        // and mended where every step costs something (`mend`); else a new search.
        match slots.iter().position(|k| like(k) && same_search(k, blocked, step)) {
            Some(n) => {
                if let Some(recent) = slots.get_mut(..=n) {
                    recent.rotate_right(1);
                }
            }
            None => {
                let mends = step_of.iter().flatten().min().is_some_and(|c| *c >= 1);
                let near = slots.iter().find(|k| mends && like(k));
                let search = match near {
                    Some(from) => {
                        let square = mend::price(from, blocked, step, mending);
                        // The oldest search's room once the ring is full (its lists filled
                        // again), else a new one.
                        let mut k = if slots.len() >= KeptReach::KEEP { slots.pop() } else { None }.unwrap_or_default();
                        mend::lay(&mut k, square, mending, blocked);
                        k.serial = serial();
                        (k.pos, k.points) = (u.pos, *points);
                        k.kind = *kind;
                        k
                    }
                    None => {
                        let mut reached = Vec::new();
                        let mut touched = Touched::default();
                        let moves = self.cheapest_ways(i, (*points, None, Some(false)), mobility, sight, |s| {
                            let ((x0, y0), ww, wh) = (s.corner, s.width, s.height);
                            let mut place = vec![u32::MAX; (ww * wh) as usize];
                            reached.reserve(place.len());
                            // Column by column, each top to bottom: tile order. Where the search reaches no
                            // tile farther than its points from where the unit stands, only the rows of each
                            // column within them are read.
                            let rows = |x: i64| match s.within {
                                Some(((cx, cy), r)) => {
                                    let r = r - (x0 + x - cx).abs();
                                    (cy - r - y0).max(0)..(cy + r - y0 + 1).min(wh)
                                }
                                None => 0..wh,
                            };
                            for x in 0..ww {
                                for y in rows(x) {
                                    if let Some(c) = s.at(x, y) {
                                        if let Some(p) = place.get_mut((y * ww + x) as usize) {
                                            *p = reached.len() as u32;
                                        }
                                        reached.push(((x0 + x, y0 + y), c));
                                    }
                                }
                            }
                            touched = Touched { corner: (x0, y0), width: ww, height: wh, place };
                        })?;
                        if !moves {
                            return Ok(vec![(u.pos, 0)]);
                        }
                        let (pos, points, kind, blocked) = (u.pos, *points, *kind, blocked.clone());
                        Kept { serial: serial(), pos, points, kind, blocked, reached, touched }
                    }
                };
                slots.insert(0, search);
                slots.truncate(KeptReach::KEEP);
            }
        }
        let slot = slots.first();
        let reached = slot.map_or(&[][..], |k| &k.reached[..]);
        // The tiles reached (in tile order) less those held, each found by its place.
        gone.clear();
        gone.extend(held.iter().filter_map(|h| slot.and_then(|k| k.place(*h))));
        gone.sort_unstable();
        gone.dedup();
        *read = slot.map(|k| k.serial);
        let mut out: Vec<(Tile, i64)> = Vec::with_capacity(reached.len() + 1);
        // The runs between the tiles held, each copied whole.
        let mut from = 0;
        for &k in gone.iter() {
            out.extend_from_slice(reached.get(from..k).unwrap_or_default());
            from = k + 1;
        }
        out.extend_from_slice(reached.get(from..).unwrap_or_default());
        // Off the map (no square to search), it still stands where it is.
        if let Err(k) = out.binary_search_by_key(&u.pos, |(t, _)| *t) {
            out.insert(k, (u.pos, 0));
        }
        Ok(out)
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use crate::battle::Battle;

    /// A kept reach search is read where the enemy moved onto a tile it did not reach or off one
    /// it could not enter, else mended (`mend`): the tiles and costs of a search made afresh,
    /// wherever the enemy stands.
    #[test]
    fn a_kept_reach_is_the_search_made_again() {
        let (engine, map) = super::super::tests::walled();
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let mut b = Battle::new(&engine, s, &map, [a, d], [&[(0, 1)][..], &[(8, 1)][..]], 3).expect("the battle starts");
        let mobility = b.mobility(0).expect("a mobility");
        let mut kept = super::KeptReach::default();
        let (mut again, mut made) = (0, 0);
        for pa in [(0, 1), (4, 3), (7, 6)] {
            b.state.units[0].pos = pa;
            // The enemy walks the map row by row, then back, two tiles at a time.
            let walk = (0..7).flat_map(|y| (0..9).map(move |x| (x, y)));
            for pd in walk.clone().chain(walk.rev().step_by(2)).filter(|t| *t != pa) {
                b.state.units[1].pos = pd;
                let before = kept.0.first().and_then(|k| k.first()).map(|k| k.reached.clone());
                let read = b.reachable_sorted(0, &mobility, None, &mut kept).expect("a reach");
                let fresh = b.reachable_sorted(0, &mobility, None, &mut super::KeptReach::default()).expect("a reach");
                assert_eq!(read, fresh, "unit at {pa:?}, enemy at {pd:?}");
                let after = kept.0.first().and_then(|k| k.first()).map(|k| k.reached.clone());
                if before.is_some() && before == after {
                    again += 1;
                } else {
                    made += 1;
                }
            }
        }
        assert!(again > 20 && made > 20, "{again} searches kept, {made} changed");
    }
}
