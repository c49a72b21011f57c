//! What a unit may do, as the engine takes it: [`Session::choices`] offers an action or item
//! only where a turn taking it is played ([`Trial`]: each tried on a copy of the battle), with
//! the units and squares it may be aimed at ([`Session::aims`]).

use oc_engine::battle::{self, Act, Battle, BattleError, State, Tile, Turn};
use oc_engine::Atom;

use super::{view, Session, PREVIEW_SEED};

/// The most squares an action aimed at a square is tried on for one answer (nearest first).
const MAX_TILE_TRIALS: usize = 1024;

impl<'s> Session<'s> {
    /// What an action or item aimed `aim` may be taken on by unit `unit` acting from `from`:
    /// naming nothing, each unit its side sees and each square within its reach (as `b` shows
    /// them: the battle, or the preview of the staged steps; squares within `range`), tried by
    /// `accepts`. A heal's units at full HP are listed last, and `idle`.
    pub(super) fn aims(
        &self,
        b: &Battle<'s>,
        unit: usize,
        from: Tile,
        aim: view::Aim,
        range: Option<(i64, i64)>,
        mut accepts: impl FnMut((Option<usize>, Option<Tile>)) -> bool,
    ) -> view::Aims {
        let viewer = self.viewer();
        let within = |d: i64| range.is_none_or(|(lo, hi)| lo <= d && d <= hi);
        let full = |k: usize| b.units.get(k).is_some_and(|f| f.hp >= f.max_hp);
        let mut on = view::Aims { untargeted: aim.bare && accepts((None, None)), ..view::Aims::default() };
        if on.untargeted && aim.heals && full(unit) {
            on.idle.push(unit);
        }
        if aim.units {
            for (k, f) in b.units.iter().enumerate() {
                let seen = f.side == viewer || b.sees(viewer, f.pos);
                if f.state == State::Ready && seen && accepts((Some(k), None)) {
                    on.targets.push(k);
                }
            }
            if aim.heals {
                // Those it would heal first; those at full HP last (the rules allow it: it heals nothing).
                let (idle, hurt): (Vec<usize>, Vec<usize>) = on.targets.iter().partition(|k| full(**k));
                on.targets = hurt.into_iter().chain(idle.iter().copied()).collect();
                for k in idle {
                    if !on.idle.contains(&k) {
                        on.idle.push(k);
                    }
                }
            }
        }
        if let Some(reach) = aim.tiles {
            // Nearest first, at most MAX_TILE_TRIALS of them: each is a turn played on a copy,
            // and a reach the rules write may span the largest map (or overflow it).
            let (w, h) = (b.map.width, b.map.height);
            let reach = reach.clamp(0, w.saturating_add(h));
            let mut squares: Vec<(i64, Tile)> = Vec::new();
            for y in from.1.saturating_sub(reach).max(0)..=from.1.saturating_add(reach).min(h - 1) {
                for x in from.0.saturating_sub(reach).max(0)..=from.0.saturating_add(reach).min(w - 1) {
                    let d = battle::distance(from, (x, y));
                    if d <= reach && within(d) {
                        squares.push((d, (x, y)));
                    }
                }
            }
            squares.sort_unstable();
            for (_, tile) in squares.into_iter().take(MAX_TILE_TRIALS) {
                if accepts((None, Some(tile))) {
                    on.tiles.push(tile);
                }
            }
        }
        on
    }

    /// Whether the engine takes `act` as unit `unit`'s next step of the sequence of play, after
    /// the steps staged already (as [`Session::step`] stages it).
    pub(super) fn steps_accept(&self, unit: usize, act: Act) -> bool {
        let mut before = self.staged.as_ref().filter(|s| s.unit == unit).map(|s| s.before.clone()).unwrap_or_default();
        before.push(act);
        self.battle.with_steps(unit, &before, PREVIEW_SEED).is_ok()
    }
}

/// Turns of one unit tried on a copy of the battle, as they would be played (its staged steps
/// and move, its weapon): what [`Session::choices`] offers is what the engine accepts. The copy
/// is used again after every refusal (a refused turn changes nothing), made anew after a turn
/// it took.
pub(super) struct Trial<'a, 's> {
    session: &'a Session<'s>,
    unit: usize,
    equip: Option<Atom>,
    copy: Battle<'s>,
}

impl<'a, 's> Trial<'a, 's> {
    pub(super) fn new(session: &'a Session<'s>, unit: usize, equip: Option<Atom>) -> Trial<'a, 's> {
        Trial { session, unit, equip, copy: session.battle.fork(Some(PREVIEW_SEED)) }
    }

    /// Whether the engine plays unit's turn with `act`. A move refused (under fog, an enemy out
    /// of sight in the way: an ambush) is not the act's refusal, and what is offered must not
    /// tell what stands in the way: the act is judged where the move would have ended, on a
    /// copy with the unit set there ([`Trial::there`]). (Taking every act as accepted offered
    /// Seize off the throne exactly where a hidden enemy blocked the way.)
    pub(super) fn accepts(&mut self, act: Act) -> bool {
        let turn = self.session.staged_turn(self.unit, self.equip, act);
        match self.copy.turn(turn.clone()) {
            Ok(()) => {
                self.copy = self.session.battle.fork(Some(PREVIEW_SEED));
                true
            }
            Err(BattleError::Refused { rule: battle::Rule::Move, .. }) => self.there(turn),
            Err(_) => false,
        }
    }

    /// `turn` played without its move on a copy where the unit already stands where the move
    /// ends (its steps before the move, its weapon and its act as they are).
    fn there(&self, turn: Turn) -> bool {
        let Some(to) = turn.to else { return false };
        let mut copy = self.session.battle.fork(Some(PREVIEW_SEED));
        let Some(u) = copy.state.units.get_mut(self.unit) else { return false };
        u.pos = to;
        copy.turn(Turn { to: None, ..turn }).is_ok()
    }
}
