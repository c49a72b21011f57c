//! Victory: the scenario's conditions checked for both sides, and the predicate for each kind.

use oc_model as m;

use super::{Battle, Combatant, State};

impl Battle<'_> {
    /// Checks both sides' conditions, the acting side first; then whether a side with no unit
    /// left has lost for good (the other side winning when time runs out).
    pub(super) fn check_victory(&mut self, acting: Option<m::SideId>) {
        let order = match acting {
            Some(m::SideId::Defender) => [m::SideId::Defender, m::SideId::Attacker],
            _ => [m::SideId::Attacker, m::SideId::Defender],
        };
        // The scenario held apart from the battle (an `Arc`), its conditions read in place.
        let scenario = std::sync::Arc::clone(&self.scenario);
        for side in order {
            if let Some(c) = &scenario.side(side).win {
                if self.holds(c, side) {
                    self.finish(m::Outcome::Win(side), c.text());
                    return;
                }
            }
        }
        // A side with no unit left on the battlefield (each routed, escaped or joined to
        // another) can win nothing more. Where the other side wins when time runs out, the
        // battle's end is settled: it ends there, not rounds later at the limit (a newcomer
        // review: an army routed in round 7 of 8 played on to the limit, and the reports counted
        // the rounds and the ending wrong). Elsewhere the other side plays on for its own
        // objective (a seize is a seize, not a rout: it must take the goal in time). Both gone
        // at once: a draw.
        let standing = |side: m::SideId| self.state.units.iter().any(|u| u.side == side && u.state == State::Ready);
        let left = match (standing(m::SideId::Attacker), standing(m::SideId::Defender)) {
            (true, true) => return,
            (false, false) => return self.finish(m::Outcome::Draw, "no unit is left on the battlefield".to_string()),
            (true, false) => m::SideId::Attacker,
            (false, true) => m::SideId::Defender,
        };
        if scenario.rounds.is_some() && scenario.on_time_limit == m::Outcome::Win(left) {
            let why = format!("the {} has no unit left, and the {} wins when time runs out", left.other().word(), left.word());
            self.finish(m::Outcome::Win(left), why);
        }
    }

    /// The engine's predicate for a victory condition (the same data `Condition::text` reads).
    pub fn holds(&self, c: &m::Condition, side: m::SideId) -> bool {
        self.holds_when(c, side, false)
    }

    /// The tiles `side` has razed (`raze`), in the order razed.
    pub(crate) fn razed_by(&self, side: m::SideId) -> impl Iterator<Item = super::Tile> + '_ {
        self.state.razed.iter().filter(move |(s, ..)| *s == side).map(|(.., t)| *t)
    }

    /// The rounds in a row `side` has held `region` (no enemy of its on the region at a round's
    /// end), as `defend ... for N rounds` counts them.
    pub fn held_rounds(&self, side: m::SideId, region: &str) -> u32 {
        // The few regions held read in turn: no key made to look one up.
        self.state.held.iter().find(|h| h.side == side && h.region == region).map_or(0, |h| h.rounds)
    }

    /// Which alternative of the winner's condition won an ended battle: for a side that wins by
    /// `either A or B`, the first of its alternatives (`or` nested in `or` read as one list) that
    /// holds at the end, as `Condition::text` writes it. `None` for a draw, or for a condition
    /// that is no `or`. The battle's log is not touched: it reads the same for every seed.
    pub fn winning_branch(&self) -> Option<String> {
        let Some((m::Outcome::Win(side), _)) = &self.state.outcome else { return None };
        let condition = self.scenario.side(*side).win.as_ref()?;
        if !matches!(condition, m::Condition::Or(..)) {
            return None;
        }
        let mut alternatives = Vec::new();
        let mut stack = vec![condition];
        while let Some(c) = stack.pop() {
            match c {
                m::Condition::Or(a, b) => {
                    stack.push(b);
                    stack.push(a);
                }
                other => alternatives.push(other),
            }
        }
        alternatives.into_iter().find(|c| self.holds_when(c, *side, true)).map(m::Condition::text)
    }

    /// [`Battle::holds`]; `ended`: asked after the battle ended (a `survive` is then judged by
    /// the rounds played, not by whether the battle is still on).
    fn holds_when(&self, c: &m::Condition, side: m::SideId, ended: bool) -> bool {
        let enemies = || self.state.units.iter().filter(move |u| u.side != side);
        let routed = || enemies().filter(|u| u.state == State::Routed);
        let leader = |u: &Combatant| self.leads(u);
        match c {
            m::Condition::Seize { region } => self.state.seized.as_ref().is_some_and(|(s, r)| *s == side && r == region),
            m::Condition::RoutAll => enemies().all(|u| u.state != State::Ready) && routed().count() > 0,
            m::Condition::RoutCount { count } => routed().count() as u32 >= *count,
            m::Condition::RoutLeader => routed().any(leader),
            m::Condition::RoutUnit { unit } => routed().any(|u| u.name == *unit),
            m::Condition::Escape { count, region } => {
                self.state.escaped.iter().filter(|(s, r)| *s == side && r == region).count() as u32 >= *count
            }
            m::Condition::Defend { region, rounds } => self.held_rounds(side, region) >= *rounds,
            m::Condition::Survive { rounds } => {
                self.state.round >= *rounds
                    && (ended || self.state.outcome.is_none())
                    && self.state.units.iter().any(|u| u.side == side && u.state == State::Ready)
                    && self.finished_round(*rounds)
            }
            m::Condition::Raze { count, region } => {
                self.state.razed.iter().filter(|(s, r, _)| *s == side && r == region).count() as u32 >= *count
            }
            m::Condition::And(a, b) => self.holds_when(a, side, ended) && self.holds_when(b, side, ended),
            m::Condition::Or(a, b) => self.holds_when(a, side, ended) || self.holds_when(b, side, ended),
            m::Condition::Not(a) => !self.holds_when(a, side, ended),
        }
    }

    /// Whether a unit is a leader (`rout leader`): one of its tags or its class's grants the seize verb.
    pub fn is_leader(&self, i: usize) -> bool {
        self.state.units.get(i).is_some_and(|u| self.leads(u))
    }

    fn leads(&self, u: &Combatant) -> bool {
        u.tags.iter().any(|t| self.grants_verb(t, m::Verb::Seize))
            || self.engine.class(&u.class).is_some_and(|c| c.tags.iter().any(|t| self.grants_verb(&t.tag, m::Verb::Seize)))
    }

    /// Sets the rounds in a row `side` has held `region` (a test's battle in the middle of a
    /// hold).
    #[cfg(test)]
    pub(crate) fn set_held_rounds(&mut self, side: m::SideId, region: &str, rounds: u32) {
        if let Some(n) = Hold::entry(&mut self.state.held, side, region) {
            *n = rounds;
        }
    }

    /// Whether round `n` has been played to its end (checked at the end of a round).
    fn finished_round(&self, n: u32) -> bool {
        self.state.round > n || (self.state.round == n && !self.waits(m::SideId::Attacker) && !self.waits(m::SideId::Defender))
    }
}

/// The rounds in a row a side has held a region ([`Battle::held_rounds`]): a battle keeps one a
/// side and region name, sorted by them, so that two battles that hold alike have equal lists.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Hold {
    side: m::SideId,
    region: String,
    rounds: u32,
}

/// Field by field, so that a copy into an earlier one reuses its name's buffer (battles are
/// copied often: [`Battle::fork_into`]).
impl Clone for Hold {
    fn clone(&self) -> Self {
        Hold { side: self.side, region: self.region.clone(), rounds: self.rounds }
    }

    fn clone_from(&mut self, from: &Self) {
        self.side = from.side;
        self.region.clone_from(&from.region);
        self.rounds = from.rounds;
    }
}

impl Hold {
    /// The rounds `side` has held `region` in `held` (a battle's, sorted), kept at 0 if it had
    /// none (always found).
    pub(super) fn entry<'h>(held: &'h mut Vec<Hold>, side: m::SideId, region: &str) -> Option<&'h mut u32> {
        let n = match held.binary_search_by(|h| (h.side, h.region.as_str()).cmp(&(side, region))) {
            Ok(n) => n,
            Err(n) => {
                held.insert(n, Hold { side, region: region.to_string(), rounds: 0 });
                n
            }
        };
        held.get_mut(n).map(|h| &mut h.rounds)
    }
}
