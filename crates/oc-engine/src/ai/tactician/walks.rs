//! Walking guides kept from one decision to the next (`Walks`), and our units' reach searches.

use std::sync::Arc;

use crate::ai::guides::KeptGuides;
use crate::ai::Guide;
use crate::battle::{Battle, Tile};
use crate::fx::FastMap;

/// The tactician's walking guides, searched to their end and shared: kept by movement type and
/// goal tiles ([`KeptGuides`], with our units' reach searches), and by movement type the last
/// one toward the enemy, which its next is moved from ([`Walks::toward`]).
#[derive(Default)]
pub(in crate::ai) struct Walks {
    /// The guides by movement type and goal tiles, and our units' last reach searches
    /// (`Battle::reachable_sorted`), good while the terrain stands.
    pub(super) kept: KeptGuides<Arc<Guide>>,
    /// By movement type, the last guide toward the enemy and its goals ([`Walks::toward`]).
    last: FastMap<String, (Vec<Tile>, Arc<Guide>)>,
    /// By tile (row by row): 2 where it is open (`Battle::open`: by its terrain), else 0; and
    /// whether its terrain heals at the end of the turn.
    open: Vec<u8>,
    heals: Vec<bool>,
}

impl std::fmt::Debug for Walks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Walks({:?})", self.kept)
    }
}

impl Walks {
    /// The most goals gone and come for a guide toward the enemy to be the last one moved.
    const MOVED: usize = 4;

    /// What of it the next battle with the engine may read (`carried.rs`): the guides, the costs
    /// and the open tiles (by the terrain they were worked out on, checked again at the next
    /// [`Walks::check`]), not the units' reach searches (by battle index).
    pub(super) fn carried(mut self) -> Walks {
        self.kept.reach.clear();
        self
    }

    /// Forgets the guides if the terrain changed or too many are kept ([`KeptGuides::check`]).
    pub(in crate::ai) fn check(&mut self, b: &Battle) {
        if self.kept.check(b) {
            self.last.clear();
            self.open.clear();
            self.heals.clear();
        }
    }

    /// [`Walks::guide`] toward the enemy's units, `goals`: between two decisions one or two of
    /// them moved, so where the last guide toward them had goals but a few others, that one
    /// with the goals gone and come ([`Guide::moved`]: the same costs, the tiles a goal moved
    /// from and to searched again, not the map).
    pub(super) fn toward(&mut self, b: &Battle, kind: &str, goals: Vec<Tile>) -> Arc<Guide> {
        let last = &self.last;
        let guide = self.kept.shared(b, kind, &goals, |enter, goals| {
            let moved = last.get(kind).and_then(|(was, g)| {
                let gone: Vec<Tile> = was.iter().filter(|t| !goals.contains(t)).copied().collect();
                let come: Vec<Tile> = goals.iter().filter(|t| !was.contains(t)).copied().collect();
                (gone.len() + come.len() <= Walks::MOVED).then(|| g.moved(enter.clone(), &gone, &come)).flatten()
            });
            Arc::new(moved.unwrap_or_else(|| Guide::over(b, enter, goals)))
        });
        match self.last.get_mut(kind) {
            Some(slot) => *slot = (goals, guide.clone()),
            None => {
                self.last.insert(kind.to_string(), (goals, guide.clone()));
            }
        }
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

    /// By tile (row by row): whether `b`'s tile heals at the end of the turn; looked up once
    /// while the terrain stands ([`Walks::check`]).
    pub(super) fn heals(&mut self, b: &Battle) -> &[bool] {
        let (width, height) = (b.map.width.max(0), b.map.height.max(0));
        if self.heals.len() != (width * height) as usize {
            let heals =
                |t: Tile| b.terrain_at(t).and_then(|x| x.heal.as_ref()).is_some_and(|h| h.event == oc_model::Event::EndOfTurn);
            self.heals = (0..width * height).map(|k| heals((k % width, k / width))).collect();
        }
        &self.heals
    }

    /// The guide toward `goals` for movement type `kind`.
    pub(super) fn guide(&mut self, b: &Battle, kind: &str, goals: &[Tile]) -> Arc<Guide> {
        self.kept.shared(b, kind, goals, |enter, goals| Arc::new(Guide::over(b, enter, goals)))
    }
}
