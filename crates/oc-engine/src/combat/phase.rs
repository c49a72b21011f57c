//! Who strikes next: the formulas read outside any roll (`strikes`, `counter`,
//! `counter_any_range`, `follow_up`), remembered per state, and the phases they lead through —
//! attack, counter, follow-up — until a rout or the last strike.

use super::*;

/// The formulas an exchange reads outside any roll.
#[derive(Clone, Copy)]
pub(super) enum Flag {
    Strikes,
    Counter,
    CounterAnyRange,
    FollowUp,
}

impl Flag {
    pub(super) const ALL: usize = 4;

    fn formula(self, roles: &crate::ir::Roles) -> Option<u16> {
        match self {
            Flag::Strikes => roles.strikes,
            Flag::Counter => roles.counter,
            Flag::CounterAnyRange => roles.counter_any_range,
            Flag::FollowUp => Some(roles.follow_up),
        }
    }
}

impl Exchange<'_> {
    /// A formula evaluated outside any roll (strikes, counter, follow-up).
    pub(super) fn flag(&self, state: &State, attacker: usize, which: Flag, default: V) -> V {
        let Some(id) = which.formula(&self.engine.ir.roles) else { return default };
        let start = self.at_start(state);
        // As the exchange began: worked out once.
        let shared = self.memos.get(attacker).filter(|_| start).and_then(|m| m.flags.get(which as usize));
        if let Some(Some(v)) = shared.and_then(std::cell::OnceCell::get) {
            return *v;
        }
        // The same state's flags are asked for again and again (once per outcome leading to
        // it); a short list searched by HP first is cheaper than hashing the state.
        let hit = self
            .flags
            .borrow()
            .iter()
            .find(|f| {
                f.hp.is_none_or(|hp| hp == state.hp)
                    && f.side == attacker
                    && f.id == id
                    && f.res == state.res
                    && f.statuses.iter().zip(&state.statuses).all(|(a, b)| same(a, b))
            })
            .map(|f| f.value);
        if let Some(v) = hit {
            return v;
        }
        self.reads.set(false);
        let v = self.flag_uncached(state, attacker, id);
        let hp = self.reads.get().then_some(state.hp);
        if let Some(slot) = shared {
            let _ = slot.set(if hp.is_none() { Some(v) } else { None });
        }
        if start && hp.is_none() {
            return v;
        }
        self.flags.borrow_mut().push(FlagMemo {
            hp,
            statuses: state.statuses.clone(),
            res: state.res,
            side: attacker,
            id,
            value: v,
        });
        v
    }

    pub(super) fn flag_uncached(&self, state: &State, attacker: usize, id: u16) -> V {
        let units = [self.unit(0, &state.statuses[0]), self.unit(1, &state.statuses[1])];
        let units = [&*units[0], &*units[1]];
        // A flag that reads one unit alone, where no `when` changes either unit's attributes:
        // that unit's own value (what the evaluation below would take from it).
        let ir = &self.engine.ir;
        let side = ir.formulas.get(id as usize).and_then(|f| f.reads.side(attacker));
        let own = units.iter().all(|u| u.whens.is_empty());
        if let Some(v) = side.and_then(|s| units.get(s)).filter(|_| own).and_then(|u| u.solo_value(ir, id as usize)) {
            return v;
        }
        let attrs = self.strike_attrs(units, state, attacker);
        let mut cache = self.fresh_cache();
        let v = self.ctx(units, &attrs, attacker, &[]).formula(id, &mut cache);
        self.give_back(cache);
        v
    }

    pub(super) fn strikes(&self, state: &State, side: usize) -> u8 {
        self.flag(state, side, Flag::Strikes, V::Int(1)).int().clamp(1, MAX_STRIKES) as u8
    }

    pub(super) fn can_counter(&self, state: &State) -> bool {
        let d = self.unit(1, &state.statuses[1]);
        d.may_use_weapon()
            && self.flag(state, 1, Flag::Counter, V::Bool(true)).bool()
            && (d.in_range(self.distance) || self.flag(state, 1, Flag::CounterAnyRange, V::Bool(false)).bool())
    }

    pub(super) fn follow_up(&self, state: &State, side: usize) -> bool {
        self.flag(state, side, Flag::FollowUp, V::Bool(false)).bool()
    }

    pub(super) fn first_phase(&self, state: &State) -> Phase {
        Phase::Attack { side: 0, left: self.strikes(state, 0), stage: Stage::First }
    }

    /// The phase after a strike in `phase`, given the state after it.
    pub(super) fn next_phase(&self, state: &State, phase: Phase) -> Phase {
        if state.hp[0] <= 0 || state.hp[1] <= 0 {
            return Phase::Done;
        }
        let (side, left, stage) = match phase {
            Phase::Attack { side, left, stage } => (side, left, stage),
            Phase::Riposte { resume: Resume::Attack { side, left, stage }, .. } => return Phase::Attack { side, left, stage },
            Phase::Riposte { resume: Resume::Done, .. } | Phase::Done => return Phase::Done,
        };
        if left > 1 {
            return Phase::Attack { side, left: left - 1, stage };
        }
        match stage {
            _ if self.single => Phase::Done,
            Stage::First if self.can_counter(state) => {
                Phase::Attack { side: 1, left: self.strikes(state, 1), stage: Stage::Counter }
            }
            Stage::First | Stage::Counter => self.follow_phase(state),
            Stage::Follow => Phase::Done,
        }
    }

    pub(super) fn follow_phase(&self, state: &State) -> Phase {
        if self.follow_up(state, 0) {
            Phase::Attack { side: 0, left: self.strikes(state, 0), stage: Stage::Follow }
        } else if self.can_counter(state) && self.follow_up(state, 1) {
            Phase::Attack { side: 1, left: self.strikes(state, 1), stage: Stage::Follow }
        } else {
            Phase::Done
        }
    }
}
