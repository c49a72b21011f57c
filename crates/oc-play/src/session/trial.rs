//! What a unit may do, as the engine takes it: [`Session::choices`] offers an action or item
//! only where a turn taking it is played ([`Trial`]: each tried on a copy of the battle), with
//! the units and squares it may be aimed at ([`Session::aims`]).

use oc_engine::battle::{self, Act, Battle, BattleError, State, Tile};
use oc_engine::Atom;

use super::{view, Session, PREVIEW_SEED};

impl<'s> Session<'s> {
    /// What an action or item aimed `aim` may be taken on by unit `unit` acting from `from`:
    /// naming nothing, each unit its side sees and each square within its reach (as `b` shows
    /// them: the battle, or the preview of the staged steps), tried by `accepts` with whether it
    /// lies within `range` (a move refused under fog is an ambush, no reason to leave out what
    /// the act could reach). A heal's units at full HP are listed last, and `idle`.
    pub(super) fn aims(
        &self,
        b: &Battle<'s>,
        unit: usize,
        from: Tile,
        aim: view::Aim,
        range: Option<(i64, i64)>,
        mut accepts: impl FnMut((Option<usize>, Option<Tile>), bool) -> bool,
    ) -> view::Aims {
        let viewer = self.viewer();
        let within = |d: i64| range.is_none_or(|(lo, hi)| lo <= d && d <= hi);
        let full = |k: usize| b.units.get(k).is_some_and(|f| f.hp >= f.max_hp);
        let mut on = view::Aims { untargeted: aim.bare && accepts((None, None), true), ..view::Aims::default() };
        if on.untargeted && aim.heals && full(unit) {
            on.idle.push(unit);
        }
        if aim.units {
            for (k, f) in b.units.iter().enumerate() {
                let pos = if k == unit { from } else { f.pos };
                let seen = f.side == viewer || b.sees(viewer, f.pos);
                if f.state == State::Ready && seen && accepts((Some(k), None), within(battle::distance(from, pos))) {
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
            let (w, h) = (b.map.width, b.map.height);
            for y in (from.1 - reach).max(0)..=(from.1 + reach).min(h - 1) {
                for x in (from.0 - reach).max(0)..=(from.0 + reach).min(w - 1) {
                    let d = battle::distance(from, (x, y));
                    if d <= reach && accepts((None, Some((x, y))), within(d)) {
                        on.tiles.push((x, y));
                    }
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
    /// of sight in the way) is an ambush, not the act's refusal: taken as accepted where `near`
    /// (leaving the act out would tell what stands in the way).
    pub(super) fn accepts(&mut self, act: Act, near: bool) -> bool {
        match self.copy.turn(self.session.staged_turn(self.unit, self.equip, act)) {
            Ok(()) => {
                self.copy = self.session.battle.fork(Some(PREVIEW_SEED));
                true
            }
            Err(BattleError::Refused { rule, .. }) => rule == battle::Rule::Move && near,
            Err(_) => false,
        }
    }
}
