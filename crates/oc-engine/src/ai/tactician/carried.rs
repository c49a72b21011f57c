//! What a tactician leaves to the next of its thread that plays with the same engine
//! ([`KEPT`], a [`shelf`] as greedy's): a simulation's battles meet the same exchanges, guides and
//! strikes again and again. Only what is a pure function of the engine and its key is carried,
//! so a carried value is the one a fresh tactician works out: the exact forecasts (interned
//! loadouts, their full description), what an enemy strikes after a second move (by terrain,
//! kept while it is the same), the walking guides (by terrain and goals, without the units'
//! reach searches) and the units' verbs (by what they are read from). Not carried: the prices
//! (per battle), the fog memory, the enemies' parts of the threat map and the last map's
//! forecasts (by battle index and ledger).

use std::cell::RefCell;

use super::threat::Later;
use super::walks::Walks;
use super::Tactician;
use crate::ai::forecasts::Forecasts;
use crate::ai::greedy::verbs::Verbs;
use crate::ai::shelf::{self, Shelf};

/// What one tactician carries to the next.
#[derive(Debug, Default)]
pub(super) struct Carried {
    cache: Forecasts,
    later: Later,
    walks: Walks,
    verbs: Verbs,
}

thread_local! {
    /// What tacticians dropped on this thread left, by engine (`Engine::serial`): at most
    /// [`KEEP`], the oldest forgotten first.
    static KEPT: Shelf<Carried> = const { RefCell::new(Vec::new()) };
}

/// The most caches a thread keeps: the two of a battle of tacticians (or planners), so another
/// engine's are forgotten once a battle with this one ends (a simulation takes a new engine every
/// 1,024 games). A battle of searchers drops four (each one's own and its taking side's
/// playout tactician's): the two dropped last are kept, which costs the next battle time, not
/// results (kept caches answer as fresh ones).
const KEEP: usize = 2;
/// The most loadouts numbered, exchanges or verbs carried in one cache: past it, it starts over
/// (skirmish10, tactician against tactician: 26,000 exchanges a tactician in 1,000 games, about
/// 11 MB: four such took the simulation's max RSS from 95 MB to 138 MB).
const MAX: usize = 1 << 15;
/// The most tiles of second-move strikes carried in one cache (4 bytes each): past it, they start
/// over (skirmish10's, on a map of 240 tiles, fewer than 450,000 in 1,000 games).
const TILES: usize = 1 << 22;

impl Tactician {
    /// Takes up the caches kept for engine `serial`, unless it works with that engine already
    /// (what it worked out with another is left first).
    pub(super) fn adopt(&mut self, serial: u64) {
        if self.engine == Some(serial) {
            return;
        }
        self.leave();
        let Carried { cache, later, walks, verbs } = shelf::take(&KEPT, serial).unwrap_or_default();
        (self.cache, self.later, self.walks, self.verbs) = (cache, later, walks, verbs);
        self.engine = Some(serial);
    }

    /// Leaves what is carried of its caches to the next tactician of the thread ([`KEPT`]),
    /// each emptied where it grew past [`MAX`] ([`TILES`]).
    fn leave(&mut self) {
        let Some(serial) = self.engine.take() else { return };
        // Numbered in the forecasts left: not carried.
        self.arms.clear();
        self.targets.clear();
        self.ours.clear();
        self.weapons.clear();
        let cache = std::mem::take(&mut self.cache);
        let cache = if cache.count() > MAX { Forecasts::default() } else { cache };
        let later = self.later.carried();
        let later = if later.count() > TILES { Later::default() } else { later };
        let walks = std::mem::take(&mut self.walks).carried();
        let verbs = std::mem::take(&mut self.verbs);
        let verbs = if verbs.count() > MAX { Verbs::default() } else { verbs };
        shelf::leave(&KEPT, serial, Carried { cache, later, walks, verbs }, KEEP);
    }
}

impl Drop for Tactician {
    fn drop(&mut self) {
        self.leave();
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::KEPT;
    use crate::ai::by_name;
    use crate::battle::{Battle, Turn};
    use crate::Engine;
    use oc_model::BattleMap;

    /// The battles of the test, one after the other: the engine (the second with other rules),
    /// the map (the second with a wall more), the tiles each side deploys on, how hurt each unit
    /// starts, the seed.
    type Setup = (usize, usize, [&'static [(i64, i64)]; 2], [i64; 6], u64);

    const BATTLES: [Setup; 4] = [
        (0, 0, [&[(0, 0), (1, 1), (0, 2)], &[(9, 0), (8, 1), (9, 2)]], [0; 6], 1),
        (1, 0, [&[(0, 0), (1, 1), (0, 2)], &[(9, 0), (8, 1), (9, 2)]], [0; 6], 1),
        (0, 1, [&[(1, 0), (0, 1), (1, 2)], &[(8, 0), (9, 1), (8, 2)]], [5, 0, 9, 3, 12, 0], 2),
        (0, 0, [&[(0, 1), (1, 2), (0, 0)], &[(9, 2), (8, 0), (9, 1)]], [0, 7, 0, 11, 0, 4], 3),
    ];

    /// The turns `ai` plays for both sides in `setup`'s battle, a new AI for it.
    fn turns(engines: &[Engine; 2], maps: &[BattleMap; 2], ai: &str, (engine, map, tiles, hurt, seed): Setup) -> Vec<Turn> {
        let engine = &engines[engine];
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(engine);
        let mut b = Battle::new(engine, s, &maps[map], [a, d], tiles, seed).expect("the battle starts");
        for (u, h) in b.state.units.iter_mut().zip(hurt) {
            u.hp = (u.max_hp - h).max(1);
        }
        let mut ai = by_name(ai).expect("an AI");
        let mut played = Vec::new();
        while b.outcome.is_none() && played.len() < 60 {
            let Some(t) = ai.choose(&b) else { break };
            played.push(t.clone());
            if b.play_turn(t).is_err() {
                break;
            }
        }
        played
    }

    /// A tactician (and the planner's and the searcher's) that takes up what one of another battle with the engine
    /// left (other tiles, other HP, a wall more; a battle with other rules between) plays as a
    /// fresh one: each battle played after the others on one thread gives the turns it gives
    /// alone on a thread of its own.
    #[test]
    fn a_tactician_after_other_battles_plays_as_a_fresh_one() {
        let rows = ["..........", "...#......", "......#...", ".........."];
        let units = [
            "unit Brave: Fighter { items SteelAxe } unit Sage: Mage { items Fire } unit Axe: Fighter { items SteelAxe }",
            "unit Foe: Fighter { items SteelAxe } unit Other: Mage { items Fire } unit Third: Fighter { items SteelAxe }",
        ];
        let (engine, map) = crate::testing::duel(&rows, "", "", units);
        let (other, _) = crate::testing::duel(&rows, "std:v06", "", units);
        let engines = [engine, other];
        let mut walled = map.clone();
        walled.terrain[2 * 10 + 4] = walled.terrain[10 + 3].clone();
        assert_ne!(map.terrain, walled.terrain);
        let maps = [map, walled];
        // `searcher` too: it searches for the side with the clock against it once in contact,
        // where the default plays the tactician's turn, and carries the same caches.
        for ai in ["tactician", "planner", "searcher"] {
            std::thread::scope(|scope| {
                let after: Vec<Vec<Turn>> = scope
                    .spawn(|| {
                        BATTLES
                            .iter()
                            .enumerate()
                            .map(|(n, setup)| {
                                let kept = KEPT.with(|k| k.borrow().iter().map(|(_, c)| c.cache.count()).sum::<usize>());
                                assert_eq!(kept > 0, n > 0, "{ai}: the battles before left their forecasts");
                                turns(&engines, &maps, ai, *setup)
                            })
                            .collect()
                    })
                    .join()
                    .expect("the battles are played");
                for (setup, after) in BATTLES.iter().zip(after) {
                    let alone = scope.spawn(|| turns(&engines, &maps, ai, *setup)).join().expect("the battle is played");
                    assert!(alone.len() > 10, "{ai}: {} turns", alone.len());
                    assert_eq!(after, alone, "{ai}: battle {setup:?}");
                }
            });
        }
    }
}
