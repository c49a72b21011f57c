//! `planner`: the tactician's few best turns, each played ahead on copies of the battle (a
//! Monte Carlo search one activation wide and a few deep, Ludii's flat MC with a heuristic
//! playout).
//!
//! The tactician ranks each unit's best turn. The planner takes the first [`WIDTH`], and plays
//! each on [`SAMPLES`] copies of the battle with their own dice (the same dice for every
//! candidate: common random numbers, so candidates differ by the turn, not by luck), then
//! [`DEPTH`] more turns of both sides with `greedy` (the cheap playout policy: a turn is an
//! activation, or one step of it where activations are paid in steps), and keeps
//! the candidate whose copies end with the most material: each unit's worth (its price), a share
//! for its HP and the rest for standing at all, ours less the enemy's. A copy the battle's
//! conditions decide counts the loser's units as routed. Ties go to the tactician's order. A
//! turn the rules refuse on a copy is refused in the battle too: it is no candidate.
//!
//! Material is a sound measure only where material decides the battle: the planner searches
//! for a side free to wait ([`free_to_wait`]: no tiles at stake, no clock against it) and plays
//! the tactician's first turn elsewhere, and under fog of war (a copy holds every unit, seen or
//! not: the AIs decide from what their side sees). Searching for both sides of Through the
//! Dunes (escape) raised the attacker's wins from 62.6% to 91.0% (200 games): the defender,
//! scoring copies by material, stopped standing in the refugees' way. Where one unit may act
//! (an order by initiative, an activation under way) there is one turn to rank and no search.
//!
//! It searches while at most [`MAX_UNITS`] units stand: beyond that the cost grows past what a
//! default may spend and a few activations see little of the round.
//!
//! The settings were measured by tournaments against `greedy` (`oc tournament --ais planner
//! greedy`, 100 seeds, docs/commands.md): deeper playouts (10 turns) lost strength, greedy
//! standing in for our own units; 16 samples beat 8 and 4.
//!
//! It never changes the battle it is asked about ([`Battle::fork`]), and its dice are its own,
//! drawn from a count of its decisions: one seed, one game, on any number of threads.

use crate::battle::{Battle, Controller, State, Turn};

use super::{free_to_wait, Greedy, Tactician};

/// How many of the tactician's ranked turns are played ahead.
pub const WIDTH: usize = 3;
/// Copies of the battle each is played on.
pub const SAMPLES: u64 = 16;
/// Turns played after the candidate turn.
pub const DEPTH: usize = 4;
/// The most units standing (both sides) it searches with. A playout activation weighs every
/// unit of the side to act, so a search's cost grows with the units: with 72 on the Narube map a
/// battle took 6.4 s against the tactician's 0.94 s, and four turns of seventy units see
/// little of the round. The ratings and v0.6 mirror matches field twelve.
pub const MAX_UNITS: usize = 12;

/// The planner, as the battle's [`Controller`]. Use one per battle.
#[derive(Debug, Default)]
pub struct Planner {
    tactician: Tactician,
    playout: Greedy,
    decisions: u64,
}

impl Controller for Planner {
    fn choose(&mut self, b: &Battle<'_>) -> Option<Turn> {
        let ranked = self.tactician.ranked(b)?;
        self.decisions += 1;
        let side = b.to_act;
        // Copies hold every unit: under fog of war they would show it what its side cannot see.
        let standing = b.units.iter().filter(|u| u.state == State::Ready).count();
        if ranked.len() < 2 || !free_to_wait(&b.scenario, side) || b.sight(side).fogged() || standing > MAX_UNITS {
            return ranked.into_iter().next().map(|(_, t)| t);
        }
        let worth = self.tactician.prices(b);
        let fallback = ranked.first().map(|(_, t)| t.clone());
        let mut best: Option<(f64, Turn)> = None;
        'candidates: for (_, turn) in ranked.into_iter().take(WIDTH) {
            let mut total = 0.0;
            for s in 0..SAMPLES {
                let seed = mix(self.decisions.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ s);
                let mut copy = b.fork(Some(seed));
                if copy.turn(turn.clone()).is_err() {
                    continue 'candidates;
                }
                for _ in 0..DEPTH {
                    if copy.outcome.is_some() {
                        break;
                    }
                    let Some(t) = self.playout.choose(&copy) else { break };
                    if copy.play_turn(t).is_err() {
                        break;
                    }
                }
                let m = material(&copy, side, worth);
                // Nothing left to chance: every other copy would play the same.
                if copy.drawn() == 0 {
                    total += m * (SAMPLES - s) as f64;
                    break;
                }
                total += m;
            }
            if best.as_ref().is_none_or(|(v, _)| total > *v + 1e-9) {
                best = Some((total, turn));
            }
        }
        best.map(|(_, t)| t).or(fallback)
    }
}

/// `side`'s material less the enemy's: each unit's worth, the tactician's share of it for its
/// HP and the rest for standing; a decided battle's loser has nothing left.
fn material(b: &Battle, side: oc_model::SideId, worth: &[f64]) -> f64 {
    let loser = match &b.outcome {
        Some((oc_model::Outcome::Win(s), _)) => Some(s.other()),
        _ => None,
    };
    let mut v = 0.0;
    for (k, u) in b.units.iter().enumerate() {
        if u.state != State::Ready || loser == Some(u.side) {
            continue;
        }
        let w = worth.get(k).copied().unwrap_or(1.0);
        let m = w * (1.0 - super::tactician::HP_SHARE + super::tactician::HP_SHARE * u.hp as f64 / u.max_hp.max(1) as f64);
        v += if u.side == side { m } else { -m };
    }
    v
}

/// A 64-bit mix (splitmix64's finaliser).
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
