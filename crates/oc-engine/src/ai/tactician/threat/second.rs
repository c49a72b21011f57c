//! What an enemy strikes after a second move (`Second`), kept from one decision to the next.

use std::sync::Arc;

use crate::ai::tactician::kept::widen;
use crate::battle::{Battle, Tile};
use crate::fx::FastMap;

/// What an enemy strikes after a second move, by movement type, tile, movement points and
/// weapon reach: it depends on the map's terrain alone (units aside), so it is kept while the
/// terrain is the same, tile for tile (a door opened, a wall struck down or another battle's map
/// starts it over), not worked out again every decision.
#[derive(Debug, Default)]
pub(super) struct Second {
    /// The terrain the masks were worked out on: the map's width and each tile's terrain.
    terrain: (i64, Vec<Option<usize>>),
    masks: FastMap<LaterKey, Arc<[u32]>>,
    /// The tiles two moves reach, by movement type, tile and movement points: one search for all
    /// of an enemy's weapons.
    tiles: FastMap<(String, Tile, i64), Arc<[Tile]>>,
}

/// Movement type, the tile it moves from, movement points and the weapon's reach (least, most).
type LaterKey = (String, Tile, i64, (i64, i64));

impl Second {
    /// How much is kept: the tiles of the masks and of the searches they widen.
    pub(super) fn count(&self) -> usize {
        let masks: usize = self.masks.values().map(|m| m.len()).sum();
        masks + self.tiles.values().map(|t| t.len()).sum::<usize>()
    }

    pub(super) fn mask(&mut self, b: &Battle, kind: &str, from: Tile, points: i64, reach: (i64, i64)) -> Arc<[u32]> {
        if self.terrain.0 != b.map.width || self.terrain.1 != b.terrain_indices_now() {
            self.masks.clear();
            self.tiles.clear();
            self.terrain = (b.map.width, b.terrain_indices_now().to_vec());
        }
        let key = (kind.to_string(), from, points, reach);
        if let Some(m) = self.masks.get(&key) {
            return m.clone();
        }
        let (width, height) = (b.map.width.max(0), b.map.height.max(0));
        let tiles = self.tiles.entry((key.0.clone(), from, points)).or_insert_with(|| {
            let guide = crate::ai::Guide::within(b, kind, &[from], 2 * points);
            let mut tiles = Vec::new();
            for y in 0..height {
                for x in 0..width {
                    if guide.at((x, y)).is_some_and(|c| c <= 2 * points) {
                        tiles.push((x, y));
                    }
                }
            }
            tiles.into()
        });
        let mut mask = vec![0u32; (width * height) as usize];
        widen(b, tiles, reach, (width, height), &mut mask);
        let mask: Arc<[u32]> = mask.into();
        self.masks.insert(key, mask.clone());
        mask
    }
}
