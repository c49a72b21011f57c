//! The tiles greedy may strike from, grouped by what a blow from them reads ([`Spots`]), and what
//! it works out from a unit's reach kept from one decision to the next ([`Recent`]).
//!
//! A playout's decisions weigh every unit that may act, and most stand as they stood at the last
//! one: the same reach (the tiles and their costs), so the same spots and the same walk toward
//! the same goals. Each is a function of what it is kept by and of the terrain (the guides' own:
//! `Guides::check` forgets them where it changed), so a kept one is the one worked out. Measured
//! (`oc simulate scenarios/zaha-woods-night.oc --games 2 --seed 1`, the last eight reaches of
//! each unit): 47% of the spots met again, 51% of the walks.

use std::sync::Arc;

use crate::battle::{Battle, Tile};
use crate::fx::same;
use crate::Atom;

/// The tiles a unit may strike from, each with its group: where the battle is not situated, its
/// terrain's; where it is, its terrain and the unit's own loadout there together.
#[derive(Debug, Default)]
pub(super) struct Spots {
    /// By group: the unit's own loadout there (an index into the loadouts `Battle::loadouts_moved`
    /// found, where situated) and the terrain's name as an atom.
    pub groups: Vec<(Option<usize>, Option<Atom>)>,
    /// The spots in tile order, each with its group.
    pub spots: Vec<(Tile, usize)>,
}

/// The spots of the `tiles` in reach (in tile order) less those at the places `held` (sorted),
/// with `owns` (by the reach's order, where situated: the unit's own loadout on each tile).
pub(super) fn spots_of(b: &Battle, tiles: &[(Tile, i64)], held: &[usize], owns: Option<&[Option<usize>]>) -> Spots {
    let terrains = &b.engine.rules.terrains;
    // Not situated, each tile's group is its terrain's (by its index in the rules' terrains, the
    // last place for none): found once a terrain.
    let none = terrains.len();
    let mut by_terrain: Vec<Option<usize>> = if owns.is_some() { Vec::new() } else { vec![None; none + 1] };
    // By group: its terrain (by index, `None` for none) and own loadout, what tells groups apart.
    let mut kinds: Vec<(Option<usize>, Option<usize>)> = Vec::new();
    let mut groups = Vec::new();
    let mut spots = Vec::with_capacity(tiles.len());
    let mut skip = held.iter().copied().peekable();
    let mut free = |k: &usize| {
        while skip.next_if(|h| h < k).is_some() {}
        skip.next_if_eq(k).is_none()
    };
    spots.extend(tiles.iter().enumerate().filter(|(k, _)| free(k)).map(|(k, (t, _))| {
        let ix = b.terrain_index_at(*t).filter(|x| terrains.get(*x).is_some());
        let slot = by_terrain.get_mut(ix.unwrap_or(none));
        if let Some(Some(g)) = slot.as_deref() {
            return (*t, *g);
        }
        let own = owns.and_then(|o| o.get(k).copied().flatten());
        let g = kinds.iter().position(|x| *x == (ix, own)).unwrap_or_else(|| {
            groups.push((own, b.terrain_atom_at(*t)));
            kinds.push((ix, own));
            kinds.len() - 1
        });
        if let Some(s) = slot {
            *s = Some(g);
        }
        (*t, g)
    }));
    Spots { groups, spots }
}

/// The most reaches kept for one unit.
const KEEP: usize = 8;
/// The most walks kept for one reach.
const WALKS: usize = 4;

/// A walk's key: where the unit stands, its movement, whether it walks toward the enemy (or where
/// it deployed) by guides toward each tile (and whether toward the enemy in sight), and the goals.
type WalkKey = (Tile, String, (bool, bool), Vec<Tile>);

/// One reach as a decision read it (the tiles and their costs, the places in it held by units
/// the side knows of), and what was worked out from it (not situated).
#[derive(Debug)]
struct Entry {
    tiles: Vec<(Tile, i64)>,
    /// What the tiles were made from, where a kept search's (`KeptReach::last`: its number and
    /// the places it left out): the same, the same tiles, told without comparing them.
    made: Option<(u64, Vec<usize>)>,
    held: Vec<usize>,
    spots: Arc<Spots>,
    /// The best walk's tile and score (`walk::walk`), by [`WalkKey`], the most recent first.
    walks: Vec<(WalkKey, Option<(Tile, f64)>)>,
}

/// What a reach's tiles were made from (`KeptReach::last`): a search's number and the places it
/// left out.
type Made<'a> = (u64, &'a [usize]);

/// Each unit's last [`KEEP`] reaches (by unit, the most recent first), with their spots and walks.
#[derive(Debug, Default)]
pub(super) struct Recent(Vec<Vec<Entry>>);

impl Recent {
    /// Forgets everything (the terrain changed).
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Unit `i`'s spots from `tiles` less `held`: those kept for them, else `make`'s, kept. The
    /// reach is then unit `i`'s most recent (what [`Recent::walk`] reads). `made`: what the tiles
    /// were made from, where known (`KeptReach::last`).
    pub fn spots(
        &mut self,
        i: usize,
        (tiles, made): (&[(Tile, i64)], Option<Made>),
        held: &[usize],
        make: impl FnOnce() -> Spots,
    ) -> Arc<Spots> {
        if self.0.len() <= i {
            self.0.resize_with(i + 1, Vec::new);
        }
        let Some(ring) = self.0.get_mut(i) else { return Arc::new(make()) };
        // The cheapest tests first: a search's number, then the lengths (most reaches differ in
        // theirs), and the places held last, short lists compared in place (`fx::same`).
        let alike = |e: &Entry| match (made, &e.made) {
            (Some((n, gone)), Some((m, left))) if n == *m => same(gone, left),
            _ => e.tiles == tiles,
        };
        if let Some(n) = ring.iter().position(|e| alike(e) && same(&e.held, held)) {
            // Made alike, the tiles are the same (checked in the debug builds).
            debug_assert!(ring.get(n).is_some_and(|e| e.tiles == tiles));
            if let Some(recent) = ring.get_mut(..=n) {
                recent.rotate_right(1);
            }
            return ring.first().map_or_else(|| Arc::new(make()), |e| e.spots.clone());
        }
        let spots = Arc::new(make());
        // The oldest's room used again, once the ring is full.
        let mut entry = if ring.len() >= KEEP { ring.pop() } else { None }.unwrap_or_else(|| Entry {
            tiles: Vec::new(),
            made: None,
            held: Vec::new(),
            spots: spots.clone(),
            walks: Vec::new(),
        });
        entry.tiles.clear();
        entry.tiles.extend_from_slice(tiles);
        match (made, &mut entry.made) {
            (Some((n, gone)), Some((m, left))) => {
                *m = n;
                left.clear();
                left.extend_from_slice(gone);
            }
            (made, slot) => *slot = made.map(|(n, gone)| (n, gone.to_vec())),
        }
        entry.held.clear();
        entry.held.extend_from_slice(held);
        entry.spots = spots.clone();
        entry.walks.clear();
        ring.insert(0, entry);
        spots
    }

    /// The walk kept for unit `i`'s most recent reach (`tiles`, as [`Recent::spots`] left it)
    /// from `pos` moving as `kind`, by `mode` (toward each of the goals, toward the enemy in
    /// sight) toward `goals`.
    pub fn walk(
        &self,
        i: usize,
        tiles: &[(Tile, i64)],
        (pos, kind, mode): (Tile, &str, (bool, bool)),
        goals: &[Tile],
    ) -> Option<Option<(Tile, f64)>> {
        let entry = self.0.get(i)?.first()?;
        // The reach `Recent::spots` was last asked for: its tiles (checked in the debug builds).
        debug_assert!(entry.tiles == tiles);
        if entry.tiles.len() != tiles.len() {
            return None;
        }
        let same = |(p, k, m, g): &WalkKey| *p == pos && *m == mode && k == kind && g == goals;
        entry.walks.iter().find(|(key, _)| same(key)).map(|(_, found)| *found)
    }

    /// Keeps `found`, the walk [`Recent::walk`] did not find.
    pub fn keep_walk(
        &mut self,
        i: usize,
        (pos, kind, mode): (Tile, &str, (bool, bool)),
        goals: Vec<Tile>,
        found: Option<(Tile, f64)>,
    ) {
        let Some(entry) = self.0.get_mut(i).and_then(|ring| ring.first_mut()) else { return };
        if entry.walks.len() >= WALKS {
            entry.walks.pop();
        }
        entry.walks.insert(0, ((pos, kind.to_string(), mode, goals), found));
    }
}
