//! Walking guides kept from one decision to the next (`Walks`), and our units' reach searches.

use std::sync::Arc;

use crate::ai::Guide;
use crate::battle::{Battle, KeptReach, TerrainSeen, Tile};
use crate::fx::FastMap;

/// Walking guides kept from one decision to the next, by movement type and goal tiles (the
/// objective's and the regions' stay put all battle; the enemy's stay while it stands still),
/// worked out again only where the terrain changed (a door opened, a wall razed) or too many
/// are kept. A guide reads the terrain and its goals alone, so a kept one is the one worked out.
#[derive(Default)]
pub(in crate::ai) struct Walks {
    /// The map's width and each tile's terrain the guides were worked out on.
    terrain: TerrainSeen,
    by_goals: FastMap<(String, Vec<Tile>), Arc<Guide>>,
    /// Entering each tile, by movement type (`Battle::tile_costs`): looked up once for its guides.
    enter: FastMap<String, Arc<[Option<i64>]>>,
    /// By movement type, the last guide toward the enemy and its goals ([`Walks::toward`]).
    last: FastMap<String, (Vec<Tile>, Arc<Guide>)>,
    /// By tile (row by row): 2 where it is open (`Battle::open`: by its terrain), else 0.
    open: Vec<u8>,
    /// Our units' last reach searches (`Battle::reachable_sorted`), good while the terrain stands.
    pub(super) reach: KeptReach,
}

impl std::fmt::Debug for Walks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Walks({})", self.by_goals.len())
    }
}

impl Walks {
    /// The most guides kept: the enemy's goals change at every move of theirs.
    const MAX: usize = 64;
    /// The most goals gone and come for a guide toward the enemy to be the last one moved.
    const MOVED: usize = 4;

    /// Forgets the guides if the terrain changed or too many are kept.
    pub(in crate::ai) fn check(&mut self, b: &Battle) {
        let changed = self.terrain.renew(b);
        if changed {
            self.reach.clear();
            self.enter.clear();
            self.last.clear();
            self.open.clear();
        }
        if changed || self.by_goals.len() > Walks::MAX {
            self.by_goals.clear();
        }
    }

    /// [`Walks::guide`] toward the enemy's units, `goals`: between two decisions one or two of
    /// them moved, so where the last guide toward them had goals but a few others, that one
    /// with the goals gone and come ([`Guide::moved`]: the same costs, the tiles a goal moved
    /// from and to searched again, not the map).
    pub(super) fn toward(&mut self, b: &Battle, kind: &str, goals: Vec<Tile>) -> Arc<Guide> {
        let key = (kind.to_string(), goals);
        let guide = match self.by_goals.get(&key) {
            Some(g) => g.clone(),
            None => {
                let enter = self.enter.entry(key.0.clone()).or_insert_with(|| b.tile_costs(kind).into()).clone();
                let moved = self.last.get(kind).and_then(|(was, g)| {
                    let gone: Vec<Tile> = was.iter().filter(|t| !key.1.contains(t)).copied().collect();
                    let come: Vec<Tile> = key.1.iter().filter(|t| !was.contains(t)).copied().collect();
                    (gone.len() + come.len() <= Walks::MOVED).then(|| g.moved(enter.clone(), &gone, &come)).flatten()
                });
                let g = Arc::new(moved.unwrap_or_else(|| Guide::over(b, enter, &key.1)));
                self.by_goals.insert(key.clone(), g.clone());
                g
            }
        };
        self.last.insert(key.0, (key.1, guide.clone()));
        guide
    }

    /// By tile (row by row): 2 where `b`'s tile is open (`Battle::open`), else 0; looked up once
    /// while the terrain stands ([`Walks::check`]).
    pub(super) fn open(&mut self, b: &Battle) -> &[u8] {
        let (width, height) = (b.map.width.max(0), b.map.height.max(0));
        if self.open.len() != (width * height) as usize {
            self.open = (0..width * height).map(|k| if b.open((k % width, k / width)) { 2 } else { 0 }).collect();
        }
        &self.open
    }

    /// The guide toward `goals` for movement type `kind`.
    pub(super) fn guide(&mut self, b: &Battle, kind: &str, goals: Vec<Tile>) -> Arc<Guide> {
        let Walks { by_goals, enter, .. } = self;
        by_goals
            .entry((kind.to_string(), goals))
            .or_insert_with_key(|(kind, goals)| {
                let enter = enter.entry(kind.clone()).or_insert_with(|| b.tile_costs(kind).into());
                Arc::new(Guide::over(b, enter.clone(), goals))
            })
            .clone()
    }
}
