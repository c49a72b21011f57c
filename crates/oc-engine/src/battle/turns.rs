//! The turn structure as the ruleset writes it (`oc_model::TurnRules`): resources refilled at
//! their event, whose activation is next (alternate, a roll-off, or an order by a resource), and
//! activations made of steps paid from a resource.

use oc_model as m;
use serde::{Deserialize, Serialize};

use super::scene::{Cast, Drawn, Draws};
use super::{distance, Act, Battle, BattleError, Record, Rule, State, Tile, Turn};
use crate::dice::rng;
use crate::ir::V;

/// The activation in progress when a ruleset `spend`s a resource: the unit keeps taking steps
/// until it waits or cannot pay.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Activation {
    pub unit: usize,
    pub steps: i64,
    pub moves: i64,
    /// Each step's act, by kind (`attack`, a verb, an item), for `repeats`.
    pub acts: Vec<String>,
    /// Steps that changed weapons or used an item, for `items`.
    #[serde(default)]
    pub items: i64,
}

/// What a step's formulas read (`oc_model::STEP_PARAMS`), in that order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepVars {
    pub moved: i64,
    pub attacks: bool,
    pub acts: bool,
    pub moves: i64,
    pub steps: i64,
    pub repeats: i64,
    /// The distance from where the unit acts to what it acts on (0 without a unit or tile).
    pub range: i64,
    /// It acts from a square in the threat zone of an enemy its side sees.
    pub zoned: bool,
    /// The unit it acts on stands in its own threat zone (facing it).
    pub target_zoned: bool,
    /// The act's own price: an action's `cost`, or of a charged action the part this step pays.
    pub cost: i64,
    /// The act is an action naming its own `cost` (which may be 0: a free act).
    pub priced: bool,
    /// The step changes the weapon the unit holds (`Turn::equip` naming another).
    pub equips: bool,
    /// Its act uses an item from the unit's pack (`Act::Use`).
    pub uses: bool,
    /// Steps that changed weapons or used an item already taken this activation.
    pub items: i64,
    /// The tag whose action the step takes (`Ir::name_id` of it), `None` for other acts or a
    /// tag no expression names.
    pub action: Option<u32>,
}

impl StepVars {
    /// Their values as `step_cost` and `step_allowed` read them (`oc_model::STEP_PARAMS`, in order).
    pub(crate) fn params(&self) -> [V; 15] {
        [
            V::Int(self.moved),
            V::Bool(self.attacks),
            V::Bool(self.acts),
            V::Int(self.moves),
            V::Int(self.steps),
            V::Int(self.repeats),
            V::Int(self.range),
            V::Bool(self.zoned),
            V::Bool(self.target_zoned),
            V::Int(self.cost),
            V::Bool(self.priced),
            V::Bool(self.equips),
            V::Bool(self.uses),
            V::Int(self.items),
            // No tag has this name (names are interned from 0 up).
            V::Name(self.action.unwrap_or(u32::MAX)),
        ]
    }
}

/// The kind of an act, for counting repeats: a special action by its tag where the turn names
/// it (`Battle::act_kind` names it where the turn does not).
pub(super) fn act_kind(act: &Act) -> String {
    match act {
        Act::Wait => "wait".into(),
        Act::Decline => "decline".into(),
        Act::Rally => "rally".into(),
        Act::Attack { .. } => "attack".into(),
        Act::Strike { .. } => "strike".into(),
        Act::Use { item, .. } => format!("use {item}"),
        Act::Special { from: Some(tag), .. } => tag.to_string(),
        Act::Special { verb, .. } => format!("{verb:?}"),
    }
}

/// Whether a turn is the end of an activation: no move, no act, no free action.
pub(super) fn ends_activation(t: &Turn) -> bool {
    t.to.is_none() && matches!(t.act, Act::Wait) && t.equip.is_none() && t.discard.is_empty() && t.trade.is_none()
}

impl Battle<'_> {
    fn resource_index(&self, name: &str) -> Option<usize> {
        self.engine.rules.ruleset.resources.iter().position(|r| r.name == name)
    }

    /// Pays `cost` (a step's price, if it has one) from the resource activations spend.
    pub(super) fn pay_step(&mut self, i: usize, cost: Option<i64>) {
        let spend = self.engine.rules.ruleset.turn.spend.as_ref();
        let k = spend.and_then(|s| self.resource_index(s));
        if let (Some(cost), Some(k), Some(f)) = (cost, k, self.state.units.get_mut(i)) {
            if let Some(slot) = f.resources.get_mut(k) {
                *slot = slot.saturating_sub(cost);
            }
        }
    }

    /// A unit's amount of a resource.
    pub fn resource(&self, i: usize, name: &str) -> Option<i64> {
        let k = self.resource_index(name)?;
        self.state.units.get(i).map(|u| u.resources.get(k).copied().unwrap_or(0))
    }

    /// What a side that last saw unit `k` in round `round` (`acted`: it had had its activation
    /// that round when seen), or never (`None`), knows came to it since: whether a round began,
    /// and whether it has had an activation. A unit has one a round: seen before its activation,
    /// it has had one since once it is marked as having had it, or a round began; seen after,
    /// once it has had the next round's (marked in that round, or two rounds begun). Never seen:
    /// a round's start came (its first), and an activation once it is marked or past round one.
    pub(crate) fn since_seen(&self, k: usize, seen: Option<(u32, bool)>) -> (bool, bool) {
        let now = self.state.round;
        let activated = self.state.units.get(k).is_some_and(|u| u.activated);
        match seen {
            None => (true, now > 1 || activated),
            Some((round, acted)) => {
                let since = match now.saturating_sub(round) {
                    0 => !acted && activated,
                    1 => !acted || activated,
                    _ => true,
                };
                (now > round, since)
            }
        }
    }

    /// Unit `k`'s resources as a side that does not see it knows them (the planner's copies
    /// under fog): `seen`, those it bore when last seen, else those it deployed with; then set
    /// again by each refill the side knows came since (`since`, [`Battle::since_seen`]: a round's
    /// start, an activation), rolled with the battle's dice where the value rolls. The resource
    /// units act in the order of (seed 004's) is public, as that order is: kept as it is, not
    /// refilled.
    pub(crate) fn resources_as_known(&mut self, k: usize, seen: Option<&[i64]>, (new_round, activated_since): (bool, bool)) {
        let Some(u) = self.state.units.get(k) else { return };
        let order = match &self.engine.rules.ruleset.turn.order {
            m::Order::By { resource, .. } => self.resource_index(resource),
            _ => None,
        };
        let public = order.map(|n| (n, u.resources.get(n).copied().unwrap_or(0)));
        // As last seen, else as before deployment (none: each is set at its event).
        let count = self.engine.rules.ruleset.resources.len();
        if let Some(u) = self.state.units.get_mut(k) {
            u.resources = seen.map_or_else(|| vec![0; count], <[i64]>::to_vec);
            if let Some((n, v)) = public {
                if let Some(slot) = u.resources.get_mut(n) {
                    *slot = v;
                }
            }
        }
        if seen.is_none() {
            self.refill_but(None, &[k], order);
        }
        if new_round {
            self.refill_but(Some(m::Event::StartOfRound), &[k], order);
        }
        if activated_since {
            self.refill_but(Some(m::Event::Activated), &[k], order);
        }
    }

    /// Sets every resource refilled at `event` for the units `who`, rolling where the value rolls;
    /// one `Refill` line per resource (none in a quiet copy, [`Battle::hush`]).
    /// `None`: the resources set at deployment only.
    pub(super) fn refill(&mut self, event: Option<m::Event>, who: &[usize]) {
        self.refill_but(event, who, None);
    }

    /// [`Battle::refill`], but for resource `but` (by its place), left as it is.
    fn refill_but(&mut self, event: Option<m::Event>, who: &[usize], but: Option<usize>) {
        let engine = self.engine;
        for (k, (r, resource)) in engine.rules.ruleset.resources.iter().zip(&engine.ir.resources).enumerate() {
            if r.at != event || but == Some(k) {
                continue;
            }
            let mut dice = std::mem::replace(&mut self.state.rng, rng(0));
            let mut values = Vec::new();
            for &i in who {
                if !self.on_board(i) {
                    continue;
                }
                let drawn = Drawn::default();
                let draws = Draws::new(&mut dice, &drawn);
                let value = self
                    .scene(Cast { user: i, ..Cast::default() }, Some(&draws))
                    .map_or(0, |s| s.value(&resource.value, &[]).int());
                values.push((i, value));
            }
            self.state.rng = dice;
            let count = engine.rules.ruleset.resources.len();
            // At an activation (or deployment) only a change is news (a Guard's points wearing off), not the
            // same 0 set again at every activation. A quiet copy writes none: nothing reads its log's
            // refills.
            let before = |i: usize| self.state.units.get(i).and_then(|u| u.resources.get(k)).copied().unwrap_or(0);
            let news: Vec<(usize, i64)> = if self.quiet {
                Vec::new()
            } else {
                values.iter().copied().filter(|(i, v)| event == Some(m::Event::StartOfRound) || before(*i) != *v).collect()
            };
            for (i, v) in &values {
                if let Some(u) = self.state.units.get_mut(*i) {
                    if u.resources.len() < count {
                        u.resources.resize(count, 0);
                    }
                    if let Some(slot) = u.resources.get_mut(k) {
                        *slot = *v;
                    }
                }
            }
            if !news.is_empty() {
                self.log.push(Record::Refill { resource: r.name.clone(), values: news });
            }
        }
    }

    /// The start of a round's activations: resources refilled at `start_of_round`, the order by
    /// a resource worked out, and the first activation picked.
    pub(super) fn begin_round(&mut self) {
        let all: Vec<usize> = (0..self.state.units.len()).collect();
        self.refill(Some(m::Event::StartOfRound), &all);
        self.state.queue.clear();
        if let m::Order::By { resource, ties } = self.engine.rules.ruleset.turn.order.clone() {
            let mut keyed: Vec<(i64, i64, usize)> = Vec::new();
            let shape = ties.and_then(|t| self.engine.rules.ruleset.dice.iter().find(|d| d.name == t).map(|d| d.shape.clone()));
            for i in all {
                if !self.on_board(i) {
                    continue;
                }
                let amount = self.resource(i, &resource).unwrap_or(0);
                keyed.push((amount, 0, i));
            }
            // Ties: each unit sharing an amount draws the die (seed 004: "randomly select(d10)").
            let amounts: Vec<i64> = keyed.iter().map(|k| k.0).collect();
            for entry in &mut keyed {
                if amounts.iter().filter(|a| **a == entry.0).count() > 1 {
                    if let Some(shape) = &shape {
                        entry.1 = crate::dice::roll(&mut self.state.rng, shape);
                    }
                }
            }
            keyed.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
            self.state.queue = keyed.iter().map(|k| k.2).collect();
            self.log.push(Record::Order { units: self.state.queue.clone() });
        }
        self.pick_next(self.state.first);
    }

    /// Whether a unit of `side` waits to activate this round (`waiting` is not empty), with no
    /// list made.
    pub(super) fn waits(&self, side: m::SideId) -> bool {
        self.state.units.iter().any(|u| u.side == side && u.state == State::Ready && !u.activated)
    }

    /// Whose activation is next, by the ruleset's order; `preferred` is the side alternation
    /// picks. A new round when nobody waits.
    pub(super) fn pick_next(&mut self, preferred: m::SideId) {
        let waiting = |b: &Self, s: m::SideId| b.waits(s);
        let engine = self.engine;
        match &engine.rules.ruleset.turn.order {
            m::Order::Alternate => {
                if waiting(self, preferred) {
                    self.state.to_act = preferred;
                } else if waiting(self, preferred.other()) {
                    self.state.to_act = preferred.other();
                } else {
                    self.end_round();
                }
            }
            m::Order::Rolloff { dice } => {
                let both = [m::SideId::Attacker, m::SideId::Defender];
                match both.map(|s| waiting(self, s)) {
                    [true, true] => {
                        let shape = self.engine.rules.ruleset.dice.iter().find(|d| d.name == *dice).map(|d| d.shape.clone());
                        let shape = shape.unwrap_or_else(|| m::DiceShape::d(6));
                        // Ties roll again; after 64 ties in a row (a die with one face) the
                        // preferred side goes.
                        let mut rolls = Vec::new();
                        let mut side = preferred;
                        for _ in 0..64 {
                            let a = crate::dice::roll(&mut self.state.rng, &shape);
                            let d = crate::dice::roll(&mut self.state.rng, &shape);
                            rolls.push([a, d]);
                            if a != d {
                                side = if a > d { m::SideId::Attacker } else { m::SideId::Defender };
                                break;
                            }
                        }
                        self.state.to_act = side;
                        self.log.push(Record::Rolloff { rolls, side });
                    }
                    [true, false] => self.state.to_act = m::SideId::Attacker,
                    [false, true] => self.state.to_act = m::SideId::Defender,
                    [false, false] => self.end_round(),
                }
            }
            m::Order::By { .. } => match self
                .queue
                .iter()
                .copied()
                .find(|i| self.state.units.get(*i).is_some_and(|u| u.state == State::Ready && !u.activated))
            {
                Some(i) => {
                    if let Some(u) = self.state.units.get(i) {
                        self.state.to_act = u.side;
                    }
                }
                None => self.end_round(),
            },
        }
    }

    /// The units the side to act may activate now: the target of a declared attack (its
    /// answer), the one mid-activation, the next in a resource order, or every unit of the side
    /// still waiting.
    pub fn may_act(&self, side: m::SideId) -> Vec<usize> {
        // An attack declared on a unit waits for its answer: nobody else acts.
        if let Some(k) = self.answering() {
            return if self.state.units.get(k).is_some_and(|u| u.side == side) { vec![k] } else { Vec::new() };
        }
        if let Some(a) = &self.state.active {
            return if self.state.units.get(a.unit).is_some_and(|u| u.side == side) { vec![a.unit] } else { Vec::new() };
        }
        if let Some(next) = self.next_by_order() {
            return next.filter(|i| self.state.units.get(*i).is_some_and(|u| u.side == side)).into_iter().collect();
        }
        self.waiting(side)
    }

    /// Where units act by the ruleset's order (`order by`), the next ready unit in the queue
    /// not yet activated (`Some(None)`: none); `None` where the order is not by a queue.
    fn next_by_order(&self) -> Option<Option<usize>> {
        if !matches!(self.engine.rules.ruleset.turn.order, m::Order::By { .. }) {
            return None;
        }
        let ready = |i: &usize| self.state.units.get(*i).is_some_and(|u| u.state == State::Ready && !u.activated);
        Some(self.state.queue.iter().copied().find(ready))
    }

    /// Whether unit `i` is among [`Battle::may_act`]`(side)`, with no list made.
    pub(super) fn may_act_unit(&self, side: m::SideId, i: usize) -> bool {
        let of_side = |k: usize| self.state.units.get(k).is_some_and(|u| u.side == side);
        if let Some(k) = self.answering() {
            return k == i && of_side(k);
        }
        if let Some(a) = &self.state.active {
            return a.unit == i && of_side(a.unit);
        }
        if let Some(next) = self.next_by_order() {
            return next == Some(i) && of_side(i);
        }
        self.state.units.get(i).is_some_and(|u| u.side == side && u.state == State::Ready && !u.activated)
    }

    /// What turn `t` of unit `i`, moving `moved`, costs as a step and whether the rules allow
    /// it, or why not, priced as [`Battle::turn`] prices it: with the weapon `t` equips held.
    /// `None` where activations are one step (no `spend`).
    pub fn turn_price(&self, i: usize, moved: i64, t: &Turn) -> Option<Result<i64, BattleError>> {
        self.act_price(i, (t.to, moved), &t.act, t.equip.as_deref())
    }

    /// [`Battle::turn_price`] of a turn with act `act` that equips `equip`: what an AI weighing
    /// many candidate turns asks before it builds the one it plays. `(to, moved)`: where the
    /// turn moves (if it does) and the movement points that spends.
    pub fn act_price(
        &self,
        i: usize,
        (to, moved): (Option<Tile>, i64),
        act: &Act,
        equip: Option<&str>,
    ) -> Option<Result<i64, BattleError>> {
        self.engine.rules.ruleset.turn.spend.as_ref()?;
        let at = to.or_else(|| self.state.units.get(i).map(|u| u.pos))?;
        let mut vars = self.step_vars(i, at, moved, act);
        vars.equips = self.changes_weapon(i, equip);
        self.step_price(i, &vars, equip)
    }

    /// Whether equipping `equip` changes the weapon unit `i` holds (the step variable `equips`).
    pub fn changes_weapon(&self, i: usize, equip: Option<&str>) -> bool {
        equip.is_some_and(|w| self.state.units.get(i).is_some_and(|u| u.equipped.as_deref() != Some(w)))
    }

    /// What a step costs and whether the rules allow it, or why not; `None` where activations
    /// are one step (no `spend`). `equip`: the weapon the unit holds for it, if not the one it
    /// holds now.
    pub fn step_price(&self, i: usize, vars: &StepVars, equip: Option<&str>) -> Option<Result<i64, BattleError>> {
        let turn = &self.engine.rules.ruleset.turn;
        let spend = turn.spend.as_ref()?;
        let ir = &self.engine.ir;
        let params = vars.params();
        let Some(scene) = self.scene(Cast { user: i, equip, ..Cast::default() }, None) else {
            return Some(Err(BattleError::refused(Rule::NoUnit, "the unit is not in the battle")));
        };
        if let Some(allowed) = &ir.step_allowed {
            if !scene.holds(allowed, &params) {
                return Some(Err(BattleError::refused(Rule::Requirement, "the ruleset's `step_allowed` refuses this step")));
            }
        }
        // A step costs at least 1, so every activation ends; but an act the rules price at 0 (seed
        // 002: "Free Actions include things like falling prone") is free the first time in an
        // activation, which still ends: each act is free once.
        let price = ir.step_cost.as_ref().map_or(1, |e| scene.value(e, &params).int());
        let free = price <= 0 && vars.acts && vars.moved == 0 && vars.repeats == 0;
        let cost = if free { 0 } else { price.max(1) };
        let have = self.resource(i, spend).unwrap_or(0);
        if cost > have {
            return Some(Err(BattleError::refused(
                Rule::Requirement,
                format!("this step costs {cost} {spend} and the unit has {have}"),
            )));
        }
        Some(Ok(cost))
    }

    /// Whether the ruleset's `step_allowed` (where activations are steps) allows unit `i` the
    /// step that moves to `at` for `moved` points and does `act`, as the battle stands.
    pub(super) fn step_allowed_at(&self, i: usize, at: Tile, moved: i64, act: &Act) -> bool {
        let Some(allowed) = &self.engine.ir.step_allowed else { return true };
        let Some(scene) = self.scene(Cast { user: i, ..Cast::default() }, None) else { return true };
        scene.holds(allowed, &self.step_vars(i, at, moved, act).params())
    }

    /// The shots the rules refuse unit `i` standing at `at`: each enemy its side sees within its
    /// weapon's reach beyond contact that `step_allowed` refuses as an attack from there, with
    /// why, in words: what a turn without a shot logs, so a reader sees what held the unit.
    pub(super) fn refused_shots(&self, i: usize, at: Tile) -> Vec<String> {
        let Some(allowed) = &self.engine.ir.step_allowed else { return Vec::new() };
        if self.engine.rules.ruleset.turn.spend.is_none() {
            return Vec::new();
        }
        let Some(scene) = self.scene(Cast { user: i, ..Cast::default() }, None) else { return Vec::new() };
        let mut out = Vec::new();
        for k in self.targets_from(i, at, None) {
            let Some(target) = self.state.units.get(k).filter(|f| distance(at, f.pos) > 1) else { continue };
            let vars = self.step_vars(i, at, 0, &Act::Attack { target: k });
            if scene.holds(allowed, &vars.params()) {
                continue;
            }
            let why = match (vars.zoned, vars.target_zoned) {
                (true, true) => "it stands in an enemy's threat zone and the target in its own",
                (true, false) => "it stands in an enemy's threat zone",
                (false, true) => "the target stands in its threat zone",
                (false, false) => "the ruleset's `step_allowed` refuses it",
            };
            out.push(format!("holds its shot at {}: {why}", target.name));
        }
        out
    }

    /// The step variables of a turn by unit `i` whose move spends `moved` movement points.
    /// It acts from `at` (where it stands, or where the turn moves it). `equips` is false: the
    /// caller knows the weapon the turn equips ([`Battle::changes_weapon`]).
    pub fn step_vars(&self, i: usize, at: Tile, moved: i64, act: &Act) -> StepVars {
        let (steps, moves, repeats, items) = match &self.state.active {
            Some(a) if a.unit == i => {
                let kind = self.act_kind(i, act);
                (a.steps, a.moves, a.acts.iter().filter(|k| **k == kind).count() as i64, a.items)
            }
            _ => (0, 0, 0, 0),
        };
        let pos_of = |k: usize| self.state.units.get(k).map(|f| f.pos);
        let target_unit = match act {
            Act::Attack { target } => Some(*target),
            Act::Special { target, .. } | Act::Use { target, .. } => *target,
            Act::Wait | Act::Decline | Act::Rally | Act::Strike { .. } => None,
        };
        let on = match act {
            Act::Strike { tile } => Some(*tile),
            Act::Special { tile: Some(t), .. } | Act::Use { tile: Some(t), .. } => Some(*t),
            _ => target_unit.and_then(pos_of),
        };
        let side = self.state.units.get(i).map(|u| u.side);
        let mut vars = StepVars {
            moved,
            attacks: matches!(act, Act::Attack { .. }),
            acts: !matches!(act, Act::Wait | Act::Decline),
            moves,
            steps,
            repeats,
            range: on.map_or(0, |t| distance(at, t)),
            zoned: side.is_some_and(|s| self.in_enemy_zone(s, at)),
            target_zoned: target_unit.and_then(pos_of).is_some_and(|t| self.zone_holds(at, t)),
            cost: 0,
            priced: false,
            equips: false,
            uses: matches!(act, Act::Use { .. }),
            items,
            action: None,
        };
        self.price_act(i, act, &mut vars);
        vars
    }
}
