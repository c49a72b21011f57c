//! The numbers every measuring command shares: the seed of game `g` of a run (so results do not
//! depend on the number of threads or shards), the Wilson interval of a rate, and the score of
//! some games.

use oc_engine::battle::GameResult;
use oc_model::{Outcome, SideId};

/// FNV-1a, 64 bits, of `bytes`: the name a part gives what it was played from.
pub fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3))
}

/// Per-game seeds derived from one seed (SplitMix64), so game `game` is the same whatever the
/// number of threads. `oc-balance` seeds its duels with it too.
pub fn game_seed(seed: u64, game: u64) -> u64 {
    let mut z = seed.wrapping_add(game.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The Wilson score interval for `wins` of `n` at 95%.
pub fn wilson(wins: u64, n: u64) -> [f64; 2] {
    // Wilson (1927): better than p +- 1.96 sqrt(p(1-p)/n) at small n or rates near 0 and 1.
    if n == 0 {
        return [0.0, 1.0];
    }
    let (p, n) = (wins as f64 / n as f64, n as f64);
    let z = 1.959_963_984_540_054_f64;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt() / denom;
    // At 0 or n wins the interval touches 0 or 1 exactly (no rounding residue).
    let low = if wins == 0 { 0.0 } else { (centre - half).max(0.0) };
    let high = if wins as f64 >= n { 1.0 } else { (centre + half).min(1.0) };
    [low, high]
}

/// Wins of each side in a number of games.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Score {
    pub games: u64,
    /// [attacker, defender]
    pub wins: [u64; 2],
}

/// The standard errors a difference of two win rates must reach to be more than noise
/// ([`Score::z_above`]): the "stronger by two standard errors".
pub const BEYOND_NOISE: f64 = 2.0;

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

    /// The standard error of the difference between this attacker win rate and `other`'s, two
    /// independent proportions (each rate's own variance). At 0% or 100% a rate counts half a
    /// game, so a sure result is not read as a certain difference. 0 where either has no games.
    pub fn difference_se(&self, other: &Score) -> f64 {
        if self.games == 0 || other.games == 0 {
            return 0.0;
        }
        let var = |s: &Score| {
            let n = s.games as f64;
            let p = s.rate().clamp(0.5 / n, 1.0 - 0.5 / n);
            p * (1.0 - p) / n
        };
        (var(self) + var(other)).sqrt()
    }

    /// How many standard errors of their difference ([`Score::difference_se`]) this attacker win
    /// rate lies above `other`'s (below: negative); 0 where either has no games. Two or more
    /// (`BEYOND_NOISE`) is a difference `oc tournament` calls stronger or weaker and `oc tune` a
    /// step the wrong way: one reading for both.
    pub fn z_above(&self, other: &Score) -> f64 {
        if self.games == 0 || other.games == 0 {
            return 0.0;
        }
        (self.rate() - other.rate()) / self.difference_se(other).max(f64::EPSILON)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_known_values() {
        // 50 of 100: 0.4038..0.5962 (the textbook value).
        let [lo, hi] = wilson(50, 100);
        assert!((lo - 0.4038).abs() < 1e-4 && (hi - 0.5962).abs() < 1e-4, "{lo} {hi}");
        assert_eq!(wilson(0, 6)[0], 0.0);
        assert_eq!(wilson(6, 6)[1], 1.0);
        assert_eq!(wilson(0, 0), [0.0, 1.0]);
    }

    #[test]
    fn game_seeds_are_splitmix64_steps() {
        // SplitMix64's published first outputs from state 0 (game g is step g + 1).
        assert_eq!(game_seed(0, 0), 0xE220_A839_7B1D_CDAF);
        assert_eq!(game_seed(0, 1), 0x6E78_9E6A_A1B9_65F4);
        assert_ne!(game_seed(9, 3), game_seed(9, 4));
    }
}
