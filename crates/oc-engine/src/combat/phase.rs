//! Who strikes next: the formulas read outside any roll (`strikes`, `counter`,
//! `counter_any_range`, `follow_up`, and the order of attack: `defender_first`, `simultaneous`),
//! remembered per state, and the phases they lead through — attack, counter (or counter, then
//! attack), follow-up — until a rout or the last strike.

use super::*;

/// The formulas an exchange reads outside any roll.
#[derive(Clone, Copy)]
pub(super) enum Flag {
    Strikes,
    Counter,
    CounterAnyRange,
    FollowUp,
    DefenderFirst,
    Simultaneous,
}

impl Flag {
    pub(super) const ALL: usize = 6;

    fn formula(self, roles: &crate::ir::Roles) -> Option<u16> {
        match self {
            Flag::Strikes => roles.strikes,
            Flag::Counter => roles.counter,
            Flag::CounterAnyRange => roles.counter_any_range,
            Flag::FollowUp => Some(roles.follow_up),
            Flag::DefenderFirst => roles.defender_first,
            Flag::Simultaneous => roles.simultaneous,
        }
    }
}

impl Exchange<'_> {
    /// A formula evaluated outside any roll (strikes, counter, follow-up).
    pub(super) fn flag(&self, state: &State, attacker: usize, which: Flag, default: V) -> V {
        let Some(id) = which.formula(&self.engine.ir.roles) else { return default };
        let form = state.phase.form_of(attacker);
        let start = self.at_start(state) && form == 0;
        // As the exchange began: worked out once.
        let shared = self.memos.get(attacker).filter(|_| start).and_then(|m| m.flags.get(which as usize));
        // Not yet worked out: perhaps kept by a forecast of the same units (`memo::Kept`).
        if shared.is_some_and(|s| s.get().is_none()) {
            self.adopt(attacker);
        }
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
                    && f.form == form
                    && f.id == id
                    && f.res == state.res
                    && f.statuses.iter().zip(&state.statuses).all(|(a, b)| same(a, b))
            })
            .map(|f| f.value);
        if let Some(v) = hit {
            return v;
        }
        self.reads.set(0);
        let v = self.flag_uncached(state, attacker, id);
        let hp = (self.reads.get() != 0).then_some(state.hp);
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
            form,
            id,
            value: v,
        });
        v
    }

    pub(super) fn flag_uncached(&self, state: &State, attacker: usize, id: u16) -> V {
        let units = self.units(state);
        let units = [&*units[0], &*units[1]];
        // A flag that reads one unit alone, where no `when` changes either unit's attributes:
        // that unit's own value (what the evaluation below would take from it).
        let ir = &self.engine.ir;
        let side = ir.formulas.get(id as usize).and_then(|f| f.reads.side(attacker));
        let own = units.iter().all(|u| u.whens.is_empty());
        if let Some(v) = side.and_then(|s| units.get(s)).filter(|_| own).and_then(|u| u.solo_value(ir, id as usize)) {
            return v;
        }
        // One that reads nothing the state holds, where no `when` changes either unit: on the
        // units' own attributes (the strike's are those, with hit points and resources it does
        // not read laid over them).
        let attrs = if own && ir.strategy.own_flags && !ir.state_formulas.get(id as usize).copied().unwrap_or(true) {
            super::attrs::Attrs::own(units)
        } else {
            self.strike_attrs(units, state, attacker)
        };
        let mut cache = self.fresh_cache();
        let v = self.ctx(units, &attrs, attacker, &[]).formula(id, &mut cache);
        self.give_back(cache);
        v
    }

    pub(super) fn strikes(&self, state: &State, side: usize) -> u8 {
        self.flag(state, side, Flag::Strikes, V::Int(1)).int().clamp(1, MAX_STRIKES) as u8
    }

    /// The strikes of `side` with its attack form `form`.
    pub(super) fn strikes_form(&self, state: &State, side: usize, form: usize) -> u8 {
        if state.phase.form_of(side) == form {
            return self.strikes(state, side);
        }
        let mut at = state.clone();
        at.phase = Phase::Attack { side: side as u8, left: 1, stage: Stage::First, form: form as u8 };
        self.strikes(&at, side)
    }

    /// The attack form of `side` after `form` that reaches the foe, with its strikes (a unit
    /// with several attack forms makes them all, one after the other).
    fn next_form(&self, state: &State, side: usize, form: usize) -> Option<(u8, u8)> {
        let forms = self.forms.get(side).filter(|f| !f.is_empty() && !self.single)?;
        let f = (form + 1..=forms.len()).find(|f| forms.get(f - 1).is_some_and(|u| u.in_range(self.distance)))?;
        Some((f as u8, self.strikes_form(state, side, f)))
    }

    /// The next strike of the same attack: the same form's next, or the next form's first.
    fn more(&self, state: &State, side: u8, left: u8, stage: Stage, form: u8) -> Option<Phase> {
        if left > 1 {
            return Some(Phase::Attack { side, left: left - 1, stage, form });
        }
        let (form, left) = self.next_form(state, side as usize, form as usize)?;
        Some(Phase::Attack { side, left, stage, form })
    }

    pub(super) fn can_counter(&self, state: &State) -> bool {
        let d = self.unit(1, &state.statuses[1]);
        d.may_use_weapon()
            && (self.mutual || self.flag(state, 1, Flag::Counter, V::Bool(true)).bool())
            && (d.in_range(self.distance) || self.flag(state, 1, Flag::CounterAnyRange, V::Bool(false)).bool())
    }

    pub(super) fn follow_up(&self, state: &State, side: usize) -> bool {
        self.flag(state, side, Flag::FollowUp, V::Bool(false)).bool()
    }

    /// The first strikes: the attacker's, or the defender's where `defender_first` holds. The
    /// order of attack is read once, here, as the exchange begins (where both sides strike).
    pub(super) fn first_phase(&self, state: &State) -> Phase {
        let roles = &self.engine.ir.roles;
        if roles.defender_first.is_none() && roles.simultaneous.is_none() {
            self.order.set(Order::default());
            return Phase::Attack { side: 0, left: self.strikes(state, 0), stage: Stage::First, form: 0 };
        }
        let counters = !self.single && self.can_counter(state);
        let flag = |which| counters && self.flag(state, 0, which, V::Bool(false)).bool();
        let (defender_first, simultaneous) = (flag(Flag::DefenderFirst), flag(Flag::Simultaneous));
        let strikes = [self.strikes(state, 0), if counters { self.strikes(state, 1) } else { 1 }];
        self.order.set(Order { defender_first, simultaneous, strikes });
        if defender_first {
            Phase::Attack { side: 1, left: strikes[1], stage: Stage::Counter, form: 0 }
        } else {
            Phase::Attack { side: 0, left: strikes[0], stage: Stage::First, form: 0 }
        }
    }

    /// The phase after a strike in `phase`, given the state after it.
    pub(super) fn next_phase(&self, state: &State, phase: Phase) -> Phase {
        let order = self.order.get();
        if order.simultaneous {
            if let Some(next) = self.next_simultaneous(state, phase, order) {
                return next;
            }
        }
        if state.hp[0] <= 0 || state.hp[1] <= 0 {
            return Phase::Done;
        }
        let (side, left, stage, form) = match phase {
            Phase::Attack { side, left, stage, form } => (side, left, stage, form),
            Phase::Riposte { resume: Resume::Attack { side, left, stage, form }, .. } => {
                return Phase::Attack { side, left, stage, form }
            }
            Phase::Riposte { resume: Resume::Done, .. } | Phase::Done => return Phase::Done,
        };
        if let Some(next) = self.more(state, side, left, stage, form) {
            return next;
        }
        match stage {
            _ if self.single => Phase::Done,
            // The defender struck first: the attacker's strikes, then the follow-ups.
            Stage::Counter if order.defender_first => {
                Phase::Attack { side: 0, left: self.strikes_form(state, 0, 0), stage: Stage::First, form: 0 }
            }
            Stage::First if order.defender_first => self.follow_phase(state),
            Stage::First if self.can_counter(state) => {
                Phase::Attack { side: 1, left: self.strikes_form(state, 1, 0), stage: Stage::Counter, form: 0 }
            }
            Stage::First | Stage::Counter => self.follow_phase(state),
            Stage::Follow => Phase::Done,
        }
    }

    /// A simultaneous exchange's next phase while the side striking first, or the other, makes
    /// its strikes: the other side makes the strikes it had as the exchange began, felled or not
    /// (`None`: as in any exchange).
    fn next_simultaneous(&self, state: &State, phase: Phase, order: Order) -> Option<Phase> {
        let Phase::Attack { side, left, stage, form } = phase else { return None };
        let (opening, reply) = if order.defender_first { (Stage::Counter, Stage::First) } else { (Stage::First, Stage::Counter) };
        let (striker, target) = (side as usize, 1 - side as usize);
        let down = |k: usize| state.hp.get(k).is_none_or(|hp| *hp <= 0);
        if stage == opening {
            if down(striker) {
                return Some(Phase::Done);
            }
            if !down(target) {
                if let Some(next) = self.more(state, side, left, stage, form) {
                    return Some(next);
                }
            }
            let left = order.strikes.get(target).copied().unwrap_or(1);
            return Some(Phase::Attack { side: target as u8, left, stage: reply, form: 0 });
        }
        if stage == reply {
            if down(target) {
                return Some(Phase::Done);
            }
            return self.more(state, side, left, stage, form);
        }
        None
    }

    pub(super) fn follow_phase(&self, state: &State) -> Phase {
        if self.follow_up(state, 0) {
            Phase::Attack { side: 0, left: self.strikes_form(state, 0, 0), stage: Stage::Follow, form: 0 }
        } else if self.can_counter(state) && self.follow_up(state, 1) {
            Phase::Attack { side: 1, left: self.strikes_form(state, 1, 0), stage: Stage::Follow, form: 0 }
        } else {
            Phase::Done
        }
    }
}

/// The order of attack an exchange read as it began ([`Exchange::first_phase`]): the defender
/// strikes first; both sides strike at once, each with `strikes` (its strikes then).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Order {
    pub defender_first: bool,
    pub simultaneous: bool,
    pub strikes: [u8; 2],
}
