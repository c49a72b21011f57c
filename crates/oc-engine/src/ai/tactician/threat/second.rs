//! What an enemy strikes after a second move (`Second`), kept from one decision to the next.

use std::sync::Arc;

use crate::ai::tactician::kept::widen;
use crate::battle::{Battle, TerrainSeen, Tile};
use crate::fx::FastMap;

/// What an enemy strikes after a second move, by movement type, tile, movement points and
/// weapon reach: it depends on the map's terrain alone (units aside), so it is kept while the
/// terrain is the same, tile for tile (a door opened, a wall struck down or another battle's map
/// starts it over), not worked out again every decision.
#[derive(Debug, Default)]
pub(super) struct Second {
    /// The terrain the masks were worked out on: the map's width and each tile's terrain (compared
    /// only when the battle's terrain stamp is new).
    terrain: TerrainSeen,
    /// By movement type (looked up by the name lent, none built), then by [`LaterKey`].
    masks: FastMap<String, FastMap<LaterKey, Arc<[u32]>>>,
    /// The tiles two moves reach, by movement type, then tile and movement points: one search for
    /// all of an enemy's weapons.
    tiles: FastMap<String, TwoMoves>,
}

/// The tiles two moves reach, by the tile moved from and movement points.
type TwoMoves = FastMap<(Tile, i64), Arc<[Tile]>>;

/// The tile it moves from, movement points and the weapon's reach (least, most).
type LaterKey = (Tile, i64, (i64, i64));

impl Second {
    /// How much is kept: the tiles of the masks and of the searches they widen.
    pub(super) fn count(&self) -> usize {
        let masks: usize = self.masks.values().flat_map(|m| m.values()).map(|m| m.len()).sum();
        masks + self.tiles.values().flat_map(|t| t.values()).map(|t| t.len()).sum::<usize>()
    }

    pub(super) fn mask(&mut self, b: &Battle, kind: &str, from: Tile, points: i64, reach: (i64, i64)) -> Arc<[u32]> {
        if self.terrain.renew(b) {
            self.masks.clear();
            self.tiles.clear();
        }
        let key = (from, points, reach);
        if let Some(m) = self.masks.get(kind).and_then(|by| by.get(&key)) {
            return m.clone();
        }
        let (width, height) = (b.map.width.max(0), b.map.height.max(0));
        let tiles = self.tiles.entry(kind.to_string()).or_default().entry((from, points)).or_insert_with(|| {
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
        self.masks.entry(kind.to_string()).or_default().insert(key, mask.clone());
        mask
    }
}
