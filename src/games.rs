//! Many AI games of one scenario in parallel, the way `oc simulate` plays them (game `g` from
//! `simulate::game_seed(seed, g)`, so results do not depend on the number of threads), kept in
//! game order: what `oc tune` and `oc fairness` measure with.

use std::ops::Range;

use oc_engine::ai;
use oc_engine::battle::{self, Controller, GameResult, Record};
use oc_engine::Engine;
use oc_model::{Army, BattleMap, Outcome, Scenario, SideId};
use rayon::prelude::*;

use crate::simulate::{game_seed, wilson};

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

/// Wins of each side in a number of games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Score {
    pub games: u64,
    /// [attacker, defender]
    pub wins: [u64; 2],
}

impl Score {
    pub fn add(&mut self, outcome: Outcome) {
        self.games += 1;
        match outcome {
            Outcome::Win(SideId::Attacker) => self.wins[0] += 1,
            Outcome::Win(SideId::Defender) => self.wins[1] += 1,
            Outcome::Draw => {}
        }
    }

    pub fn of(results: &[GameResult]) -> Score {
        let mut s = Score::default();
        for r in results {
            s.add(r.outcome);
        }
        s
    }

    /// The attacker's win rate (0 with no games).
    pub fn rate(&self) -> f64 {
        if self.games == 0 {
            0.0
        } else {
            self.wins[0] as f64 / self.games as f64
        }
    }

    /// The Wilson 95% interval of the attacker's win rate.
    pub fn ci(&self) -> [f64; 2] {
        wilson(self.wins[0], self.games)
    }

    /// `48.2% (95% CI 45.1-51.3%, 1000 games)`
    pub fn text(&self) -> String {
        let [lo, hi] = self.ci();
        format!("{:.1}% (95% CI {:.1}-{:.1}%, {} games)", self.rate() * 100.0, lo * 100.0, hi * 100.0, self.games)
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "games": self.games,
            "attacker_wins": self.wins[0],
            "defender_wins": self.wins[1],
            "draws": self.games - self.wins[0] - self.wins[1],
            "attacker_win_rate": self.rate(),
            "ci95": self.ci(),
        })
    }
}
