//! Walking guides kept from one decision to the next ([`KeptGuides`]): greedy's and the
//! tactician's, with their units' reach searches.

use std::sync::Arc;

use crate::battle::{Battle, KeptReach, TerrainSeen, Tile};
use crate::fx::FastMap;

/// What entering each tile costs a movement type (`Battle::tile_costs`), and the least of those.
pub(crate) type Costs = (Arc<[Option<i64>]>, i64);

/// Walking guides (`G`: a guide, or one shared) by movement type and goal tiles, kept from one
/// decision to the next: units that move alike toward the same goals share one (the objective's
/// and the regions' stay put all battle; the enemy's while it stands still). A guide reads the
/// terrain and its goals alone, so a kept one is the one worked out; all are forgotten where a
/// tile's terrain changed (a door opened, a wall razed), the guides too where more than
/// [`KeptGuides::MAX`] are kept. With them, by movement type, what entering each tile costs,
/// and each unit's last reach search (`Battle::reachable_sorted`), good while the terrain stands.
pub(crate) struct KeptGuides<G> {
    /// The map's width and each tile's terrain the guides were worked out on.
    terrain: TerrainSeen,
    /// By movement type, then goal tiles (each looked up by what is lent: no key built but for a
    /// guide new to them); with how many guides they hold.
    by_goals: FastMap<String, FastMap<Vec<Tile>, G>>,
    guides: usize,
    /// By movement type: entering each tile, looked up once for its guides, and the least cost.
    enter: FastMap<String, Costs>,
    /// Each unit's last reach search.
    pub(crate) reach: KeptReach,
}

impl<G> Default for KeptGuides<G> {
    fn default() -> Self {
        KeptGuides {
            terrain: TerrainSeen::default(),
            by_goals: FastMap::default(),
            guides: 0,
            enter: FastMap::default(),
            reach: KeptReach::default(),
        }
    }
}

impl<G> std::fmt::Debug for KeptGuides<G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "KeptGuides({})", self.guides)
    }
}

/// [`KeptGuides::enter`] over the map of costs alone.
fn enter_of(enter: &mut FastMap<String, Costs>, b: &Battle, kind: &str) -> Costs {
    // Looked up by the name lent (no name built but for a movement type new to the guides).
    match enter.get(kind) {
        Some(costs) => costs.clone(),
        None => {
            let costs: Arc<[Option<i64>]> = b.tile_costs(kind).into();
            let floor = costs.iter().flatten().copied().min().unwrap_or(0);
            enter.insert(kind.to_string(), (costs.clone(), floor));
            (costs, floor)
        }
    }
}

impl<G> KeptGuides<G> {
    /// The most guides kept: goals that follow the enemy change at every move of theirs. With 64
    /// the tactician's guide searches cost 22% more (`oc fairness scenarios --games 2 --seed 1`:
    /// `Guide::searched` 79M instructions, 65M with 512, 4M fewer again with 2,048; max RSS of
    /// 40 games 349 MB, 360 MB, 368 MB: a guide holds a cost a tile, ~2 KB on the shipped maps).
    const MAX: usize = 512;

    /// Forgets everything kept if `b`'s terrain changed since the last check (then `true`), the
    /// guides too if too many are kept.
    pub(crate) fn check(&mut self, b: &Battle) -> bool {
        let changed = self.terrain.renew(b);
        if changed {
            self.reach.clear();
            self.enter.clear();
        }
        if changed || self.guides > Self::MAX {
            self.by_goals.clear();
            self.guides = 0;
        }
        changed
    }

    /// The tiles of the terrain the guides were worked out on.
    pub(crate) fn tiles(&self) -> usize {
        self.terrain.tiles()
    }

    /// What entering each tile costs movement type `kind`, and the least of those: looked up
    /// once while the terrain stands.
    pub(crate) fn enter(&mut self, b: &Battle, kind: &str) -> Costs {
        enter_of(&mut self.enter, b, kind)
    }

    /// The guide toward `goals` for movement type `kind`: the one kept, else the one `make`
    /// works out (from what entering each tile costs `kind`, and the goals), then kept.
    pub(crate) fn guide(
        &mut self,
        b: &Battle,
        kind: &str,
        goals: Vec<Tile>,
        make: impl FnOnce(Arc<[Option<i64>]>, &[Tile]) -> G,
    ) -> &mut G {
        let KeptGuides { by_goals, guides, enter, .. } = self;
        match by_goals.entry(kind.to_string()).or_default().entry(goals) {
            std::collections::hash_map::Entry::Occupied(kept) => kept.into_mut(),
            std::collections::hash_map::Entry::Vacant(new) => {
                *guides += 1;
                let guide = make(enter_of(enter, b, kind).0, new.key());
                new.insert(guide)
            }
        }
    }

    /// [`KeptGuides::guide`] with the goal tiles lent, for a guide that is shared (`G` cloned):
    /// a kept one is found without building a key.
    pub(crate) fn shared(
        &mut self,
        b: &Battle,
        kind: &str,
        goals: &[Tile],
        make: impl FnOnce(Arc<[Option<i64>]>, &[Tile]) -> G,
    ) -> G
    where
        G: Clone,
    {
        if let Some(kept) = self.by_goals.get(kind).and_then(|by| by.get(goals)) {
            return kept.clone();
        }
        let guide = make(enter_of(&mut self.enter, b, kind).0, goals);
        self.by_goals.entry(kind.to_string()).or_default().insert(goals.to_vec(), guide.clone());
        self.guides += 1;
        guide
    }
}
