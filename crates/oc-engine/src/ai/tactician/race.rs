//! The race for the tiles at stake: each tile objective of the scenario's conditions (`seize`,
//! `escape`, `raze`), the units that can take it, and how soon each could, against the clock.
//!
//! A side's objective read from its condition: the region, the verb that takes it, how many
//! takings it needs (`escape 2`: two units), and the round by which it must be done (the time
//! limit, or the other side's `survive` / `defend ... for`). A unit that can take it is `eta`
//! of its own moves away (the walking cost over the terrain to the nearest tile of the region,
//! over its movement points), and its chance to take it in time is read as [`reach_chance`]:
//! one while the region is a move away, halved for every further move, nothing past the clock.
//! Worth the battle ([`super::stakes::WIN`]) times that chance is what routing an enemy taker
//! is worth to the side that must stop it; shared among the takings the objective needs (and
//! the takers that could stand in), what a step nearer is worth to the taker's own side, and
//! (for the takers within one move) what a unit standing on one of the region's tiles bars
//! while it stands.

use std::borrow::Cow;

use oc_model as m;

use super::Walks;
use crate::battle::{Battle, State, Tile, ROUND_CAP};

/// One tile objective of one side.
pub(in crate::ai) struct Objective {
    /// The side that must take it.
    pub side: m::SideId,
    pub verb: m::Verb,
    pub tiles: Vec<Tile>,
    /// How many takings it needs (units escaped, tiles razed; one seizure).
    pub needed: u32,
    /// The last round it may be taken in.
    pub deadline: u32,
}

/// The chance a taker standing on `at`, moving `points` a turn (at least 1), takes the objective
/// its guide `g` leads to with `left` activations to go: none where the guide does not reach.
pub(super) fn chance_from(g: &crate::ai::Guide, at: Tile, points: i64, left: f64) -> f64 {
    g.at(at).map_or(0.0, |c| reach_chance(c as f64 / points.max(1) as f64, left))
}

/// The activations a taker has left once it has played this turn, with `left` as the turn
/// begins (this one counted): where a turn ends the unit's activation, the ones after it; where
/// a turn is a step of an activation paid for in steps (`steps`), still this one too.
pub(super) fn left_after_turn(left: f64, steps: bool) -> f64 {
    if steps {
        left
    } else {
        (left - 1.0).max(0.0)
    }
}

/// The chance a taker `eta` moves away takes the objective with `left` activations to go.
pub(in crate::ai) fn reach_chance(eta: f64, left: f64) -> f64 {
    if eta.ceil() > left {
        return 0.0;
    }
    0.5f64.powf((eta - 1.0).max(0.0))
}

/// The round by which a condition of `side`'s wins on the clock (`survive N`, `defend ... for
/// N`), if any, as the battle begins ([`clock_deadline`] in round 1, nothing held yet).
pub(super) fn clock_win(c: &m::Condition) -> Option<u32> {
    clock_by(c, 1, &|_| 0)
}

/// The round by which `side`'s condition `c` wins on the clock in `b`, if any: `survive N`,
/// round N; `defend R for N rounds`, the round the rounds held in a row so far and those to
/// come make N ([`hold_made`]).
pub(in crate::ai) fn clock_deadline(b: &Battle, side: m::SideId, c: &m::Condition) -> Option<u32> {
    clock_by(c, b.round, &|region| b.held_rounds(side, region))
}

/// The round in which a hold of `rounds` rounds in a row is made, in round `round` with `held`
/// held so far: round N where the hold never broke; later where it did, since a break starts
/// the count again.
pub(in crate::ai) fn hold_made(round: u32, rounds: u32, held: u32) -> u32 {
    round.saturating_add(rounds.saturating_sub(held)).saturating_sub(1)
}

/// [`clock_deadline`] in round `round`, with `held` the rounds in a row each region was held.
fn clock_by(c: &m::Condition, round: u32, held: &dyn Fn(&str) -> u32) -> Option<u32> {
    match c {
        m::Condition::Survive { rounds } => Some(*rounds),
        m::Condition::Defend { region, rounds } => Some(hold_made(round, *rounds, held(region))),
        m::Condition::Or(a, x) => match (clock_by(a, round, held), clock_by(x, round, held)) {
            (Some(p), Some(q)) => Some(p.min(q)),
            (p, q) => p.or(q),
        },
        m::Condition::And(a, x) => clock_by(a, round, held).max(clock_by(x, round, held)),
        _ => None,
    }
}

/// How a side's tile objectives make its win: its condition's `and` and `or` over them (the
/// other parts of the condition left out), each objective by its index in [`objectives`].
#[derive(Debug, Clone, PartialEq)]
pub(in crate::ai) enum Tree {
    Objective(usize),
    /// Every one of them (`and`, nested ones read as one list).
    All(Vec<Tree>),
    /// Any one of them (`or`, nested ones read as one list).
    Any(Vec<Tree>),
}

impl Tree {
    /// The progress toward the whole from each objective's (`each`, by index; each from 0 to
    /// 1): for `and` the mean of its parts, for `or` the chance one of them is made, read as
    /// if they were apart. Never more than 1: one win however many ways lead to it.
    pub fn progress(&self, each: &[f64]) -> f64 {
        match self {
            Tree::Objective(o) => each.get(*o).copied().unwrap_or(0.0).clamp(0.0, 1.0),
            Tree::All(parts) => parts.iter().map(|t| t.progress(each)).sum::<f64>() / parts.len().max(1) as f64,
            Tree::Any(parts) => 1.0 - parts.iter().map(|t| 1.0 - t.progress(each)).product::<f64>(),
        }
    }
}

/// The tile objectives of both sides' conditions (under `not`, none).
pub(in crate::ai) fn objectives(b: &Battle) -> Vec<Objective> {
    objectives_and_trees(b).0
}

/// [`objectives`], with how each side's make its win (a side with none has no tree).
pub(in crate::ai) fn objectives_and_trees(b: &Battle) -> (Vec<Objective>, Vec<(m::SideId, Tree)>) {
    struct Walker<'a> {
        b: &'a Battle<'a>,
        side: m::SideId,
        deadline: u32,
        out: Vec<Objective>,
    }
    impl Walker<'_> {
        fn walk(&mut self, c: &m::Condition) -> Option<Tree> {
            let (verb, region, needed) = match c {
                m::Condition::Seize { region } => (m::Verb::Seize, region, 1),
                m::Condition::Escape { count, region } => (m::Verb::Escape, region, *count),
                m::Condition::Raze { count, region } => (m::Verb::Raze, region, *count),
                m::Condition::And(..) | m::Condition::Or(..) => {
                    let any = matches!(c, m::Condition::Or(..));
                    let mut parts = Vec::new();
                    self.gather(c, any, &mut parts);
                    return match parts.len() {
                        0 => None,
                        1 => parts.pop(),
                        _ if any => Some(Tree::Any(parts)),
                        _ => Some(Tree::All(parts)),
                    };
                }
                _ => return None,
            };
            let r = self.b.map.region(region)?;
            self.out.push(Objective {
                side: self.side,
                verb,
                tiles: r.tiles.clone(),
                needed: needed.max(1),
                deadline: self.deadline,
            });
            Some(Tree::Objective(self.out.len() - 1))
        }

        /// The parts of a run of `or` (`any`) or of `and`, in order.
        fn gather(&mut self, c: &m::Condition, any: bool, parts: &mut Vec<Tree>) {
            match c {
                m::Condition::Or(a, x) if any => {
                    self.gather(a, any, parts);
                    self.gather(x, any, parts);
                }
                m::Condition::And(a, x) if !any => {
                    self.gather(a, any, parts);
                    self.gather(x, any, parts);
                }
                other => parts.extend(self.walk(other)),
            }
        }
    }
    let limit = b.scenario.rounds.unwrap_or(ROUND_CAP);
    let mut w = Walker { b, side: m::SideId::Attacker, deadline: limit, out: Vec::new() };
    let mut trees = Vec::new();
    for side in [m::SideId::Attacker, m::SideId::Defender] {
        let Some(c) = &b.scenario.side(side).win else { continue };
        let theirs = b.scenario.side(side.other()).win.as_ref();
        w.side = side;
        w.deadline = theirs.and_then(|t| clock_deadline(b, side.other(), t)).map_or(limit, |n| n.min(limit));
        if let Some(t) = w.walk(c) {
            trees.push((side, t));
        }
    }
    (w.out, trees)
}

/// A unit that can take an objective, as the race reads it.
pub(in crate::ai) struct Taker {
    pub unit: usize,
    /// The objective's index.
    pub objective: usize,
    /// Its share of the battle's worth: one over the takings needed and the takers that could
    /// stand in for one routed.
    pub share: f64,
    /// Its moves to the region, and its activations left before the deadline (this round's
    /// counted until it has had it).
    pub eta: f64,
    pub left: f64,
}

impl Taker {
    /// Its chance to take the objective in time.
    pub fn chance(&self) -> f64 {
        reach_chance(self.eta, self.left)
    }

    /// Its share of the objective's chance to be taken on its next activation (within one
    /// move of it, before the deadline): what a unit of ours standing on the region bars.
    pub fn imminent(&self) -> f64 {
        self.share * reach_chance(self.eta, self.left.min(1.0))
    }
}

/// The takings of `obj` done: its side's units escaped (an escape), the tiles of it its side
/// razed (a raze); none for a seizure (one ends the battle).
pub(in crate::ai) fn done(b: &Battle, obj: &Objective) -> u32 {
    match obj.verb {
        m::Verb::Escape => b.units.iter().filter(|u| u.side == obj.side && u.state == State::Escaped).count() as u32,
        m::Verb::Raze => b.razed_by(obj.side).filter(|t| obj.tiles.contains(t)).count() as u32,
        _ => 0,
    }
}

/// The tiles of `obj` still to take: for a raze, those its side has not razed (a tile razed is
/// razed no more); else all of them (borrowed: the tactician asks for each taker it weighs).
pub(in crate::ai) fn open_tiles<'o>(b: &Battle, obj: &'o Objective) -> Cow<'o, [Tile]> {
    let razed: Vec<Tile> = if obj.verb == m::Verb::Raze { b.razed_by(obj.side).collect() } else { Vec::new() };
    if razed.is_empty() {
        return Cow::Borrowed(&obj.tiles);
    }
    Cow::Owned(obj.tiles.iter().copied().filter(|t| !razed.contains(t)).collect())
}

/// Every unit standing that can take an objective of `objectives`, with its share and eta.
/// `known`: under fog, where the side deciding knows each unit to stand (`memory::known`: its
/// own, the enemies it sees, and those it remembers where it last saw them); a unit it knows
/// nowhere is no taker. `None`: every unit where it stands (a copy the planner plays ahead on is
/// the battle as its side believes it).
pub(crate) fn takers<V: AsRef<[Option<m::Verb>]>>(
    b: &Battle,
    objectives: &[Objective],
    verbs: &[V],
    walks: &mut Walks,
    known: Option<&[Option<Tile>]>,
) -> Vec<Taker> {
    let mut out = Vec::new();
    for (o, obj) in objectives.iter().enumerate() {
        let left = f64::from(obj.deadline.saturating_sub(b.round)) + 1.0;
        let needed = obj.needed.saturating_sub(done(b, obj)).max(1);
        let tiles = open_tiles(b, obj);
        if tiles.is_empty() {
            continue;
        }
        let mut found = Vec::new();
        for (k, u) in b.units.iter().enumerate() {
            if u.side != obj.side
                || u.state != State::Ready
                || !verbs.get(k).is_some_and(|v| v.as_ref().contains(&Some(obj.verb)))
            {
                continue;
            }
            let Some(pos) = known.map_or(Some(u.pos), |known| known.get(k).copied().flatten()) else { continue };
            let Ok((points, kind, _)) = b.mobility(k) else { continue };
            let guide = walks.guide(b, &kind, &tiles);
            let Some(cost) = guide.at(pos) else { continue };
            let eta = cost as f64 / points.max(1) as f64;
            found.push((k, eta, u.activated));
        }
        // Takers beyond those needed could stand in for one routed.
        let spare = (found.len() as u32).saturating_sub(needed);
        let share = 1.0 / f64::from(needed + spare);
        for (unit, eta, activated) in found {
            // A unit that has had its activation this round has one fewer to go.
            let left = if activated { (left - 1.0).max(0.0) } else { left };
            out.push(Taker { unit, objective: o, share, eta, left });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{left_after_turn, reach_chance};

    /// In its last activation before the deadline, a taker that moves to a tile one move from
    /// the objective (its activation over) cannot take it in time; where a turn is a step of an
    /// activation paid for in steps, it may still step on it in this one. Read with the
    /// activations as the turn began, the tile counted as a sure taking.
    #[test]
    fn a_tile_a_move_away_in_the_last_activation_is_too_late() {
        assert_eq!(reach_chance(1.0, left_after_turn(1.0, false)), 0.0);
        assert_eq!(reach_chance(1.0, left_after_turn(1.0, true)), 1.0);
        assert_eq!(reach_chance(1.0, 1.0), 1.0, "as the turn began");
        // Two activations to go: a tile a move away is taken in the next.
        assert_eq!(reach_chance(1.0, left_after_turn(2.0, false)), 1.0);
        assert_eq!(reach_chance(2.0, left_after_turn(2.0, false)), 0.0);
    }
}
