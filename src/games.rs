//! Many AI games of one scenario in parallel, the way `oc simulate` plays them (game `g` from
//! `simulate::game_seed(seed, g)`, so results do not depend on the number of threads), kept in
//! game order: what `oc tune` and `oc fairness` measure with.

use std::ops::Range;

use oc_engine::ai;
use oc_engine::battle::{self, Controller, GameResult, Record};
use oc_engine::Engine;
use oc_model::{Army, BattleMap, Scenario};
use rayon::prelude::*;

pub use oc_play::stats::Score;
use oc_play::stats::game_seed;

/// The AI that plays both sides of every game `oc tune` and `oc fairness` measure: the default,
/// as in `oc simulate`. Changing the AI those commands measure with is this one line.
pub fn controller() -> Box<dyn Controller + Send> {
    ai::by_name(ai::DEFAULT).unwrap_or_else(|| Box::new(ai::Tactician::default()))
}

/// A scenario ready to play: the engine of its rules, the scenario, its map and both armies.
pub struct Arena {
    pub engine: Engine,
    pub scenario: Scenario,
    pub map: BattleMap,
    pub armies: [Army; 2],
}

impl Arena {
    /// One game with its log.
    pub fn game(&self, seed: u64, g: u64) -> Result<(GameResult, Vec<Record>), String> {
        let armies = [&self.armies[0], &self.armies[1]];
        battle::play(&self.engine, &self.scenario, &self.map, armies, game_seed(seed, g), controller().as_mut())
            .map_err(|e| e.to_string())
    }

    /// Games `range` in parallel, in game order; the first failure (by game order) stops it.
    pub fn play(&self, seed: u64, range: Range<u64>) -> Result<Vec<GameResult>, String> {
        range.into_par_iter().map(|g| self.game(seed, g).map(|(r, _)| r)).collect()
    }
}
