//! What a copy is worth to the side that searches, at the end of a playout: what the
//! scenario's victory conditions value, not material alone. A side free to wait (no tiles at
//! stake, no clock against it: material decides) keeps material alone, by price: the
//! conditions' worth and the battle's worth for a decided copy drew more games on the v0.6
//! mirror fixture (planner against greedy, 20 games, seed 7: 72.2% won, 43 draws, against
//! 76.0% and 29).
//!
//! - Material, as the tactician weighs it: each unit's worth (`tactician::stakes`: its price,
//!   raised for a leader or a named unit whose rout a condition asks for, the units that can
//!   take a tile objective, an enemy taker by its chance to take it, healers), a share for its
//!   HP and the rest for standing at all, ours less the enemy's.
//!   For a side free to wait that is ahead as the clock runs out toward a draw, the enemy's
//!   material weighs more ([`PRESS`]).
//! - The battle decided: a copy the conditions decide (a seizure, an escape, a rout, the clock's
//!   `survive` or `defend`) is worth the battle ([`WIN`]) to the winner, and the loser's units
//!   count as routed. Under fog a win for the searching side is not trusted where enemies out of
//!   sight were taken off the copy (`sighting/seen.rs`: where no tile was free to sample them on).
//! - The race for every tile objective still open (`seize`, `escape`, `raze`: the tactician's
//!   `race.rs`): each taker's chance to take its objective in time (its moves to the region
//!   against the rounds left before the deadline: the time limit, or the other side's `survive`
//!   or `defend ... for`, the rounds held so far counted), shared among the takings needed and
//!   capped at one, each side's objectives made one as its condition makes its win of them
//!   (`race::Tree`: `and` the mean, `or` the chance one is made: two ways to one win are not
//!   worth two), times the battle's worth; ours counts for us, the enemy's against us. The
//!   clock is in that chance: a taker too far to arrive before the deadline counts nothing, so
//!   a copy in which the rounds run out on an objective loses its worth.
//! - The hold of every `defend R for N rounds` region still to be won by it (the rounds held so
//!   far and those left reach N, as the tactician's `stakes` reads its ground to hold): the
//!   holder's chance to keep the enemy off the region to the clock, times the battle's worth as
//!   the race's; ours for us, the enemy's against. The enemy breaks it by standing on a tile of
//!   the region none of the holder's units stands on; its nearest unit that could (a taker, as
//!   the race reads takers, in time) breaks it by that taker's chance, halved where a unit of the
//!   holder is on as near a footing (as many moves or fewer: a race it leads, as the chance
//!   halves a move). A copy where the holder left the region is worth less than one where it
//!   stands on it before the clock decides, and a copy where the hold broke too late to make up
//!   loses the hold's worth.

use oc_model as m;

use crate::ai::sighting::seen::Seen;
use crate::ai::sighting::Sighting;
use crate::ai::tactician::race::{self, Objective};
use crate::ai::tactician::stakes::{self, Stakes, WIN};
use crate::ai::tactician::{self, Walks, HP_SHARE, RACE};
use crate::battle::{Battle, State, Tile, ROUND_CAP};

/// What the leaf reads, worked out once per decision on the battle as the side sees it.
pub(super) struct Leaf {
    side: m::SideId,
    worth: Vec<f64>,
    verbs: Vec<Vec<Option<m::Verb>>>,
    objectives: Vec<Objective>,
    /// How each side's objectives make its win (`race::Tree`).
    trees: Vec<(m::SideId, race::Tree)>,
    /// The `defend` regions of both sides' conditions: the holder, the region, the rounds.
    holds: Vec<(m::SideId, String, u32)>,
    /// A side free to wait (`free_to_wait`: no tiles at stake, no clock against it): material
    /// alone, by price, as the planner searched before the conditions' leaf.
    material_only: bool,
    /// What the enemy's material weighs against ours: 1, or for a side free to wait that is
    /// ahead as the clock runs out toward a draw, up to `1 + PRESS` ([`PRESS`]).
    press: f64,
}

/// How much more the enemy's material weighs in a material-only leaf, at full urgency
/// (`stakes::clock`: from half the time gone, full in the last two rounds), for a side that is
/// ahead by material when it decides: a draw at the time limit is worth nothing to the side
/// ahead, so it trades toward the rout rather than keep what it has. Measured on mirror fields
/// (`oc tournament FILE --ais planner greedy --games 10 --seed 7`, the default's wins, draws and
/// losses of 3,520 on fresh fields, `tests/fresh_fields.rs`), tried on seeds 101 to 108: by
/// night 2,329-668-523 -> 2,346-655-519 (3, ahead only; 6, ahead only, 2,349-632-539; 3 whether
/// ahead or not, 2,365-535-620; 1, 2,349-603-568: more losses than wins gained), by day
/// 2,519-214-787 -> 2,532-207-781.
const PRESS: f64 = 3.0;

impl Leaf {
    /// The leaf for `side` deciding in `b` (the seen copy), with the units' prices and, under
    /// fog, what the side remembers (`memory`: the units' worths weigh an enemy taker where the
    /// side knows it, as the tactician's do, not where the copy set one it does not).
    pub fn new(b: &Battle, side: m::SideId, prices: &[f64], memory: &[Option<Sighting>], walks: &mut Walks) -> Leaf {
        let verbs: Vec<Vec<Option<m::Verb>>> = (0..b.units.len()).map(|k| b.action_verbs(k)).collect();
        let takes =
            |v: &Vec<Option<m::Verb>>| v.iter().any(|v| matches!(v, Some(m::Verb::Seize | m::Verb::Escape | m::Verb::Raze)));
        let seizers: Vec<usize> = (0..b.units.len()).filter(|k| b.on_board(*k) && verbs.get(*k).is_some_and(takes)).collect();
        if crate::ai::free_to_wait(&b.scenario, side) {
            let worth = prices.to_vec();
            let mut leaf = Leaf {
                side,
                worth,
                verbs,
                objectives: Vec::new(),
                trees: Vec::new(),
                holds: Vec::new(),
                material_only: true,
                press: 1.0,
            };
            // (Material is read only once the clock presses: before, the press is 1 either way.)
            let clock = stakes::clock(b, side);
            if clock > 0.0 && leaf.material(b, None) > 0.0 {
                leaf.press = 1.0 + PRESS * clock;
            }
            return leaf;
        }
        walks.check(b);
        let known = tactician::known(b, side, &b.sight(side), memory);
        let stakes = Stakes::new(b, side, (prices, &seizers), &verbs, walks, known.as_deref());
        let holds = [m::SideId::Attacker, m::SideId::Defender]
            .into_iter()
            .flat_map(|s| stakes::defends(b, s).into_iter().map(move |(region, rounds)| (s, region.clone(), rounds)))
            .collect();
        let (objectives, trees) = race::objectives_and_trees(b);
        Leaf { side, worth: stakes.worth, verbs, objectives, trees, holds, material_only: false, press: 1.0 }
    }

    /// The copy's worth to the side.
    pub fn value(&self, seen: &Seen, walks: &mut Walks) -> f64 {
        let (b, side) = (&seen.copy, self.side);
        let decided = match &b.outcome {
            Some((m::Outcome::Win(s), _)) if seen.trusts(side) => Some(*s),
            _ => None,
        };
        let mut v = self.material(b, decided.map(m::SideId::other));
        if self.material_only {
            return v;
        }
        match decided {
            Some(s) if s == side => return v + WIN,
            Some(_) => return v - WIN,
            None if b.outcome.is_some() => return v,
            None => {}
        }
        v += RACE * WIN * (self.race(b, walks) + self.hold(b, walks));
        v
    }

    /// Our holds' chances to last to the clock less the enemy's (see the module's notes).
    fn hold(&self, b: &Battle, walks: &mut Walks) -> f64 {
        let mut v = 0.0;
        for (holder, region, rounds) in &self.holds {
            if !stakes::still_holdable(b, *holder, region, *rounds) {
                continue;
            }
            let limit = b.scenario.rounds.unwrap_or(ROUND_CAP);
            let Some(r) = b.map.region(region) else { continue };
            let stands = |t: &Tile| b.units.iter().any(|u| u.side == *holder && u.state == State::Ready && u.pos == *t);
            let free: Vec<Tile> = r.tiles.iter().copied().filter(|t| !stands(t)).collect();
            let broken = if free.is_empty() {
                0.0
            } else {
                // The race read for the free tiles: the enemy's units, then the holder's off the
                // region, each as a taker that could stand on them by the clock.
                // The round the hold is made in: the rounds held in a row so far and those to
                // come make `rounds` (a break starts the count again).
                let deadline = race::hold_made(b.round, *rounds, b.held_rounds(*holder, region)).min(limit);
                let objective = |side| Objective { side, verb: m::Verb::Seize, tiles: free.clone(), needed: 1, deadline };
                let objectives = [objective(holder.other()), objective(*holder)];
                let stand = vec![vec![Some(m::Verb::Seize)]; b.units.len()];
                walks.check(b);
                let takers = race::takers(b, &objectives, &stand, walks, None);
                // A holder's unit already on the region would leave a tile to take another.
                let off = |k: usize| b.units.get(k).is_some_and(|u| u.side != *holder || !r.tiles.contains(&u.pos));
                let nearest = |o: usize| {
                    takers.iter().filter(|t| t.objective == o && off(t.unit)).map(|t| t.eta).fold(f64::INFINITY, f64::min)
                };
                let (theirs, ours) = (nearest(0), nearest(1));
                let chance = race::reach_chance(theirs, f64::from(deadline.saturating_sub(b.round)) + 1.0);
                if ours <= theirs {
                    chance * 0.5
                } else {
                    chance
                }
            };
            let held = 1.0 - broken;
            v += if *holder == self.side { held } else { -held };
        }
        v
    }

    /// Each unit's worth with its HP share, ours less the enemy's; `loser`'s units count nothing.
    fn material(&self, b: &Battle, loser: Option<m::SideId>) -> f64 {
        let mut v = 0.0;
        for (k, u) in b.units.iter().enumerate() {
            // A unit escaped counts as it left: escaping makes good an objective, it does not
            // lose the unit (counted as routed, an escape weighed as a rout against the side
            // that made it, and the patrol's copy where the last refugee escaped above the one
            // where it stood at the exit).
            if !matches!(u.state, State::Ready | State::Escaped) || loser == Some(u.side) {
                continue;
            }
            let w = self.worth.get(k).copied().unwrap_or(1.0);
            let m = w * (1.0 - HP_SHARE + HP_SHARE * u.hp as f64 / u.max_hp.max(1) as f64);
            v += if u.side == self.side { m } else { -m * self.press };
        }
        v
    }

    /// Our objectives' progress less the enemy's: for each, the takings done (units escaped,
    /// tiles razed) and the takers' chances to make the rest in time, as a share of the takings
    /// needed.
    fn race(&self, b: &Battle, walks: &mut Walks) -> f64 {
        if self.objectives.is_empty() {
            return 0.0;
        }
        walks.check(b);
        let takers = race::takers(b, &self.objectives, &self.verbs, walks, None);
        let mut each = Vec::with_capacity(self.objectives.len());
        for (o, obj) in self.objectives.iter().enumerate() {
            let done = race::done(b, obj);
            let needed = obj.needed.max(1);
            let open = needed.saturating_sub(done);
            let chance: f64 = takers.iter().filter(|t| t.objective == o).map(|t| t.share * t.chance()).sum();
            each.push((f64::from(done.min(needed)) + f64::from(open) * chance.min(1.0)) / f64::from(needed));
        }
        // Each side's objectives as its condition makes its win of them: two ways to one win
        // (`seize A or raze 1 in B`) are not worth two wins.
        self.trees.iter().map(|(s, t)| if *s == self.side { t.progress(&each) } else { -t.progress(&each) }).sum()
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::{Leaf, Seen};
    use crate::ai::tactician::Walks;
    use crate::battle::{Battle, State};
    use oc_model as m;

    /// The watch standing on the hut it must hold (`defend "hut" for 6 rounds`) is worth more to
    /// it than the watch a step off it, the raider as far and the material the same: the raider
    /// could step on the hut the watch left. Where the watch need hold no ground (`rout all`),
    /// the two are worth the same. Before the hold's term, they were worth the same both times.
    #[test]
    fn a_watch_on_the_ground_it_holds_is_worth_more_than_one_a_step_off() {
        let map = "name = \"Field\"\nwidth = 9\nheight = 3\nrows = [\".........\", \".........\", \".........\"]\n\
                   [[regions]]\nname = \"a\"\nkind = \"deployment\"\nside = \"attacker\"\nrect = [0, 0, 2, 3]\n\
                   [[regions]]\nname = \"d\"\nkind = \"deployment\"\nside = \"defender\"\nrect = [7, 0, 2, 3]\n\
                   [[regions]]\nname = \"hut\"\nkind = \"defend\"\nside = \"defender\"\ntiles = [[7, 1]]\n";
        let worth = |win: &str, watch: (i64, i64)| {
            let source = format!(
                "import \"std:battlestorm\"\nscenario Field {{\n    map \"field.map.toml\"\n    rounds 6 then draw\n\
                 attacker {{ zone \"a\" war_chest 99999 units 1..4 win rout all }}\n\
                 defender {{ zone \"d\" war_chest 99999 units 1..4 win {win} }}\n}}\n\
                 army A for Field attacker {{ unit Foe: Savage {{ items Shortsword }} }}\n\
                 army D for Field defender {{ unit Watch: Savage {{ items Shortsword }} }}\n"
            );
            let (engine, map) = crate::testing::field(&source, map);
            let s = &engine.rules.scenarios[0];
            let [a, d] = crate::testing::armies(&engine);
            let b = Battle::new(&engine, s, &map, [a, d], [&[(1, 1)][..], &[watch][..]], 3).expect("the battle starts");
            let mut walks = Walks::default();
            let leaf = Leaf::new(&b, m::SideId::Defender, &[1.0, 1.0], &[], &mut walks);
            leaf.value(&Seen { copy: b.fork(None), pruned: false }, &mut walks)
        };
        let held = "defend \"hut\" for 6 rounds";
        assert!(
            worth(held, (7, 1)) > worth(held, (8, 1)) + 0.1,
            "on the hut {} off it {}",
            worth(held, (7, 1)),
            worth(held, (8, 1))
        );
        assert_eq!(worth("rout all", (7, 1)), worth("rout all", (8, 1)));
    }

    /// Two units against one, both sides to rout all, a draw at the time limit: a copy where one
    /// of the two and the one each lost as many hit points (a trade) is worth no more to either
    /// side than the copy without it while the clock is calm. In the last rounds it is worth
    /// more to the side ahead ([`super::PRESS`]: the enemy's material weighs more) and still no
    /// more to the side behind.
    #[test]
    fn a_side_ahead_values_a_trade_more_as_the_clock_runs_out() {
        let map = "name = \"Field\"\nwidth = 9\nheight = 3\nrows = [\".........\", \".........\", \".........\"]\n\
                   [[regions]]\nname = \"a\"\nkind = \"deployment\"\nside = \"attacker\"\nrect = [0, 0, 2, 3]\n\
                   [[regions]]\nname = \"d\"\nkind = \"deployment\"\nside = \"defender\"\nrect = [7, 0, 2, 3]\n";
        let source = "import \"std:battlestorm\"\nscenario Field {\n    map \"field.map.toml\"\n    rounds 20 then draw\n\
                      attacker { zone \"a\" war_chest 99999 units 1..4 win rout all }\n\
                      defender { zone \"d\" war_chest 99999 units 1..4 win rout all }\n}\n\
                      army A for Field attacker { unit One: Savage { items Shortsword } unit Two: Savage { items Shortsword } }\n\
                      army D for Field defender { unit Three: Savage { items Shortsword } }\n";
        let (engine, map) = crate::testing::field(source, map);
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        // What a trade is worth to `side` in round `round`: the traded copy's worth less the other's.
        let gain = |side: m::SideId, round: u32| {
            let mut b =
                Battle::new(&engine, s, &map, [a, d], [&[(1, 0), (1, 2)][..], &[(7, 1)][..]], 3).expect("the battle starts");
            b.state.round = round;
            let mut walks = Walks::default();
            let leaf = Leaf::new(&b, side, &[1.0, 1.0, 1.0], &[], &mut walks);
            let mut traded = b.fork(None);
            for k in [0, 2] {
                traded.state.units[k].hp -= 2;
            }
            leaf.value(&Seen { copy: traded, pruned: false }, &mut walks)
                - leaf.value(&Seen { copy: b.fork(None), pruned: false }, &mut walks)
        };
        let (ahead, behind) = (m::SideId::Attacker, m::SideId::Defender);
        for side in [ahead, behind] {
            assert!(gain(side, 1).abs() < 1e-9, "{side:?} in round 1: {}", gain(side, 1));
        }
        assert!(gain(ahead, 19) > 0.1, "ahead in round 19: {}", gain(ahead, 19));
        assert!(gain(behind, 19).abs() < 1e-9, "behind in round 19: {}", gain(behind, 19));
    }

    /// A 9x3 field of plains, the attacker deploying in its two first columns and the defender
    /// in its two last, with `regions` (TOML), and `source`'s scenario `Field` on it, the
    /// built-in ratings rules.
    fn field(source: &str, regions: &str) -> (crate::Engine, oc_model::BattleMap) {
        let map = format!(
            "name = \"Field\"\nwidth = 9\nheight = 3\nrows = [\".........\", \".........\", \".........\"]\n\
             [[regions]]\nname = \"a\"\nkind = \"deployment\"\nside = \"attacker\"\nrect = [0, 0, 2, 3]\n\
             [[regions]]\nname = \"d\"\nkind = \"deployment\"\nside = \"defender\"\nrect = [7, 0, 2, 3]\n{regions}"
        );
        crate::testing::field(source, &map)
    }

    /// What `copy` is worth to `side` by the leaf of `b`.
    fn worth(b: &Battle, side: m::SideId, copy: Battle) -> f64 {
        let mut walks = Walks::default();
        let leaf = Leaf::new(b, side, &vec![1.0; b.units.len()], &[], &mut walks);
        leaf.value(&Seen { copy, pruned: false }, &mut walks)
    }

    /// Escaping makes good an objective; it does not lose the unit. The refugees' copy where one
    /// of them escaped is worth more to them than the one where it stands at the exit, and less
    /// to the patrol. (Counted as routed, the escaped refugee's worth left the refugees' material:
    /// the escape weighed as a rout against them.)
    #[test]
    fn a_unit_escaped_is_not_a_unit_lost() {
        let source = "scenario Field {\n    map \"field.map.toml\"\n    rounds 9 then defender\n\
                      attacker { zone \"a\" war_chest 99999 units 1..4 grant Fleeing to 3 win escape 2 through \"exit\" }\n\
                      defender { zone \"d\" war_chest 99999 units 1..4 win rout 3 }\n}\n\
                      army A for Field attacker { unit R1: Thief { items IronSword tags Fleeing } unit R2: Thief { items IronSword tags Fleeing } unit R3: Thief { items IronSword tags Fleeing } }\n\
                      army D for Field defender { unit Patrol: Fighter { items IronAxe } }\n";
        let exit = "[[regions]]\nname = \"exit\"\nkind = \"escape\"\nside = \"attacker\"\ntiles = [[8, 2]]\n";
        let (engine, map) = field(source, exit);
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let b =
            Battle::new(&engine, s, &map, [a, d], [&[(0, 0), (0, 1), (0, 2)][..], &[(8, 0)][..]], 3).expect("the battle starts");
        let mut at_exit = b.fork(None);
        at_exit.state.units[0].pos = (7, 2);
        let mut escaped = at_exit.fork(None);
        escaped.state.units[0].state = State::Escaped;
        let (refugees, patrol) = (m::SideId::Attacker, m::SideId::Defender);
        let (r_at, r_gone) = (worth(&b, refugees, at_exit.fork(None)), worth(&b, refugees, escaped.fork(None)));
        assert!(r_gone > r_at, "to the refugees: at the exit {r_at}, escaped {r_gone}");
        let (p_at, p_gone) = (worth(&b, patrol, at_exit.fork(None)), worth(&b, patrol, escaped.fork(None)));
        assert!(p_gone < p_at, "to the patrol: at the exit {p_at}, escaped {p_gone}");
    }

    /// Two ways to one win are not worth two wins: the company that may `seize "village" or raze 1
    /// in "house"`, a unit a step from each, is worth less to itself undecided than won.
    /// (Summed, the two races were worth two battles, more than the win.)
    #[test]
    fn two_ways_to_one_win_are_worth_no_more_than_the_win() {
        let source = "scenario Field {\n    map \"field.map.toml\"\n    rounds 9 then defender\n\
                      attacker { zone \"a\" war_chest 99999 units 1..4 grant Leader to 1 grant Saboteur to 1 win seize \"village\" or raze 1 in \"house\" }\n\
                      defender { zone \"d\" war_chest 99999 units 1..4 win survive 9 rounds }\n}\n\
                      army A for Field attacker { unit Lord: Lord { items Rapier tags Leader } unit Axe: Fighter { items IronAxe tags Saboteur } }\n\
                      army D for Field defender { unit Watch: Fighter { items IronAxe } }\n";
        let regions = "[[regions]]\nname = \"village\"\nkind = \"seize\"\nside = \"attacker\"\ntiles = [[5, 0]]\n\
                       [[regions]]\nname = \"house\"\nkind = \"raze\"\nside = \"attacker\"\ntiles = [[5, 2]]\n";
        let (engine, map) = field(source, regions);
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let b = Battle::new(&engine, s, &map, [a, d], [&[(0, 0), (0, 2)][..], &[(8, 1)][..]], 3).expect("the battle starts");
        let mut near = b.fork(None);
        near.state.units[0].pos = (4, 0);
        near.state.units[1].pos = (4, 2);
        let mut won = near.fork(None);
        won.state.units[0].pos = (5, 0);
        won.state.outcome = Some((m::Outcome::Win(m::SideId::Attacker), "seized".to_string()));
        let side = m::SideId::Attacker;
        let (undecided, decided) = (worth(&b, side, near.fork(None)), worth(&b, side, won.fork(None)));
        assert!(decided > undecided, "undecided {undecided}, won {decided}");
    }

    /// `defend "hut" for 6 rounds`, in round 6: where the watch has held the hut in every round
    /// so far, the hold is made as round 6 ends, and the raider two moves off is too late to break
    /// it; where the hold broke in round 2 (held in rounds 3 to 5), it is made as round 8 ends,
    /// and the raider may break it in time: the same copy is worth less to the watch. (Read as
    /// made in round 6 either way, the two were worth the same.)
    #[test]
    fn a_hold_broken_is_made_later_and_a_raider_two_moves_off_is_in_time() {
        let source = "scenario Field {\n    map \"field.map.toml\"\n    rounds 12 then draw\n\
                      attacker { zone \"a\" war_chest 99999 units 1..4 win rout all }\n\
                      defender { zone \"d\" war_chest 99999 units 1..4 win defend \"hut\" for 6 rounds }\n}\n\
                      army A for Field attacker { unit Raider: Fighter { items IronAxe } }\n\
                      army D for Field defender { unit Watch: Fighter { items IronAxe } }\n";
        let hut = "[[regions]]\nname = \"hut\"\nkind = \"defend\"\nside = \"defender\"\ntiles = [[8, 1]]\n";
        let (engine, map) = field(source, hut);
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let mut b = Battle::new(&engine, s, &map, [a, d], [&[(0, 1)][..], &[(8, 0)][..]], 3).expect("the battle starts");
        b.state.round = 6;
        let (points, ..) = b.mobility(0).expect("the raider moves");
        assert!((5..8).contains(&points), "the raider is two moves off: {points}");
        let value = |held: u32| {
            let mut b = b.fork(None);
            b.set_held_rounds(m::SideId::Defender, "hut", held);
            worth(&b, m::SideId::Defender, b.fork(None))
        };
        let (unbroken, broken) = (value(5), value(3));
        assert!(broken < unbroken - 0.1, "held since round 1 {unbroken}, since round 3 {broken}");
    }

    /// In the last round, a taker a step from the village that has had its activation this
    /// round cannot seize it before the clock ends the battle: its chance is none, and the copy
    /// where it has acted is worth less to its side than the one where it has not. (With the
    /// round's activation counted for it, the two were worth the same.)
    #[test]
    fn a_taker_that_has_acted_in_the_last_round_is_too_late() {
        let source = "scenario Field {\n    map \"field.map.toml\"\n    rounds 9 then defender\n\
                      attacker { zone \"a\" war_chest 99999 units 1..4 grant Leader to 1 win seize \"village\" }\n\
                      defender { zone \"d\" war_chest 99999 units 1..4 win survive 9 rounds }\n}\n\
                      army A for Field attacker { unit Lord: Lord { items Rapier tags Leader } }\n\
                      army D for Field defender { unit Watch: Fighter { items IronAxe } }\n";
        let village = "[[regions]]\nname = \"village\"\nkind = \"seize\"\nside = \"attacker\"\ntiles = [[5, 0]]\n";
        let (engine, map) = field(source, village);
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let mut b = Battle::new(&engine, s, &map, [a, d], [&[(0, 0)][..], &[(8, 2)][..]], 3).expect("the battle starts");
        b.state.round = 9;
        b.state.units[0].pos = (4, 0);
        let mut acted = b.fork(None);
        acted.state.units[0].activated = true;
        let side = m::SideId::Attacker;
        let (waiting, done) = (worth(&b, side, b.fork(None)), worth(&b, side, acted));
        assert!(done < waiting - 1.0, "to act {waiting}, acted {done}");
    }

    /// The battle on the saboteur's field ([`houses`]), the saboteur (unit 0) and the watch
    /// (unit 1) at `at`.
    fn saboteur<'e>(engine: &'e crate::Engine, map: &oc_model::BattleMap, at: [(i64, i64); 2]) -> Battle<'e> {
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(engine);
        Battle::new(engine, s, map, [a, d], [&at[..1], &at[1..]], 3).expect("the battle starts")
    }

    /// The saboteur's field: `raze 2 in "houses"` (on the tiles `houses`, TOML) against the
    /// watch's `survive 9 rounds`; its rules and map.
    fn houses(houses: &str) -> (crate::Engine, oc_model::BattleMap) {
        let source = "scenario Field {\n    map \"field.map.toml\"\n    rounds 9 then defender\n\
                      attacker { zone \"a\" war_chest 99999 units 1..4 grant Saboteur to 1 win raze 2 in \"houses\" }\n\
                      defender { zone \"d\" war_chest 99999 units 1..4 win survive 9 rounds }\n}\n\
                      army A for Field attacker { unit Axe: Fighter { items IronAxe tags Saboteur } }\n\
                      army D for Field defender { unit Watch: Fighter { items IronAxe } }\n";
        field(source, &format!("[[regions]]\nname = \"houses\"\nkind = \"raze\"\nside = \"attacker\"\ntiles = {houses}\n"))
    }

    /// The saboteur steps onto `house` and razes it (the watch waiting first, where it acts
    /// first).
    fn raze(b: &mut Battle, house: (i64, i64)) {
        if b.to_act != m::SideId::Attacker {
            b.turn(crate::battle::Turn { unit: 1, ..Default::default() }).expect("the watch waits");
        }
        let raze = crate::battle::Act::Special { verb: m::Verb::Raze, target: None, tile: Some(house), from: None };
        b.turn(crate::battle::Turn { unit: 0, to: Some(house), act: raze, ..Default::default() }).expect("the house is razed");
    }

    /// `raze 2 in "houses"`: a copy where the saboteur has razed one house is worth more to its
    /// side than the one before it did, the saboteur a step from both. (With no tile razed
    /// counted done, and the razed house still one the saboteur could raze, the two were worth
    /// the same.)
    #[test]
    fn a_house_razed_is_half_the_work_done() {
        let (engine, map) = houses("[[5, 0], [5, 2]]");
        let mut b = saboteur(&engine, &map, [(0, 1), (8, 2)]);
        b.state.units[0].pos = (5, 1);
        let mut razed = b.fork(None);
        raze(&mut razed, (5, 0));
        assert_eq!(razed.razed_by(m::SideId::Attacker).count(), 1);
        let side = m::SideId::Attacker;
        let (before, after) = (worth(&b, side, b.fork(None)), worth(&b, side, razed));
        assert!(after > before + 1.0, "before {before}, one razed {after}");
    }

    /// `raze 2 in "houses"`: the tactician's saboteur, standing on the house it razed, walks
    /// toward the other one, more than a move away. (Its guide led to the houses razed too: it
    /// stood on one, every step off it lowered its chance, and it stayed on the rubble.)
    #[test]
    fn a_saboteur_leaves_the_house_it_razed_for_the_next() {
        let (engine, map) = houses("[[1, 0], [7, 2]]");
        let mut b = saboteur(&engine, &map, [(0, 0), (8, 0)]);
        raze(&mut b, (1, 0));
        while b.to_act != m::SideId::Attacker || b.units[0].activated {
            let k = b.may_act(b.to_act).first().copied().expect("a unit may act");
            b.turn(crate::battle::Turn { unit: k, ..Default::default() }).expect("a wait");
        }
        let (points, ..) = b.mobility(0).expect("the saboteur moves");
        assert!(7 - 1 + 2 > points, "the other house is more than a move away");
        let turn = crate::battle::Controller::choose(&mut crate::ai::Tactician::default(), &b).expect("a turn");
        let to = turn.to.unwrap_or(b.units[0].pos);
        let far = |t: (i64, i64)| (t.0 - 7).abs() + (t.1 - 2).abs();
        assert!(turn.unit == 0 && far(to) < far((1, 0)), "{turn:?}");
    }
}
