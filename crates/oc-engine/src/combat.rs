//! One combat exchange: the attack, the counter, the follow-up; strikes stop at a rout.
//! The same state machine runs exactly (every die face, breadth first over states) and with a
//! seeded generator.

use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use oc_model as m;

mod across;
mod attrs;
mod faces;
mod memo;
mod merged;
mod options;
mod outcomes;
mod partition;
mod parts;
mod phase;
mod plain;
mod plan;
mod play;
mod react;
mod reroll;
mod runs;
pub(crate) mod strategy;
mod structure;
mod world;

pub(crate) use memo::Template;
pub(crate) use plan::Plan;
pub(crate) use react::{compile as compile_reactions, ReactionIr, Reactions};

use crate::exec::{execute, Command, World};
use crate::fx::{same, FastMap, Tally};
use crate::ir::{Eff, V};
use crate::strike::Ctx;
use crate::unit::{Shown, Unit};
use crate::{Atom, Engine, EngineError, Loadout};
use attrs::Attrs;
use world::StrikeWorld;

/// The most strikes one attack may have (a unit of figures strikes with each: seed 003's
/// "Units of one or more figures", at most `oc_model::MAX_FIGURES` of them).
const MAX_STRIKES: i64 = u8::MAX as i64;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Stage {
    First,
    Counter,
    Follow,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Phase {
    /// `side` strikes with its attack form `form` (0: its weapon; `Exchange::forms`); `left`
    /// strikes of that form remain in this attack, including this one.
    Attack {
        side: u8,
        left: u8,
        stage: Stage,
        form: u8,
    },
    Done,
    /// A reaction's riposte: `side` strikes back once, then the exchange goes on at `resume`.
    /// (After `Done`, so the older variants hash as before and forecasts sum in the same order.)
    Riposte {
        side: u8,
        resume: Resume,
    },
}

/// Where an exchange goes on after a riposte.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Resume {
    Attack { side: u8, left: u8, stage: Stage, form: u8 },
    Done,
}

impl Phase {
    /// The attack form `side` strikes with in this phase (0 where another side strikes).
    fn form_of(&self, side: usize) -> usize {
        match self {
            Phase::Attack { side: s, form, .. } if *s as usize == side => *form as usize,
            _ => 0,
        }
    }

    /// The side striking now, if a strike is next.
    fn striker(&self) -> Option<usize> {
        match self {
            Phase::Attack { side, .. } | Phase::Riposte { side, .. } => Some(*side as usize),
            Phase::Done => None,
        }
    }
}

/// The most resources a ruleset may declare (`oc_model::MAX_RESOURCES`).
const MAX_RES: usize = m::MAX_RESOURCES;

#[derive(Debug)]
struct State {
    hp: [i64; 2],
    statuses: [Vec<u32>; 2],
    /// Each side's resources (only reactions spend them in an exchange).
    res: [[i32; MAX_RES]; 2],
    phase: Phase,
}

impl Clone for State {
    /// Field by field, each status list cloned apart (an array's clone goes through an iterator,
    /// a call for each state a walk keys or makes).
    fn clone(&self) -> State {
        let [first, second] = &self.statuses;
        State { hp: self.hp, statuses: [first.clone(), second.clone()], res: self.res, phase: self.phase }
    }
}

impl PartialEq for State {
    fn eq(&self, other: &State) -> bool {
        // Field by field, the short status lists without a `memcmp` call.
        self.hp == other.hp
            && self.phase == other.phase
            && self.res == other.res
            && same(&self.statuses[0], &other.statuses[0])
            && same(&self.statuses[1], &other.statuses[1])
    }
}

impl Eq for State {}

impl std::hash::Hash for State {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.hp.hash(h);
        self.statuses.hash(h);
        // Rulesets without resources hash their states as before resources existed: the states
        // are summed in hash order, so forecasts keep their last bits.
        if self.res != [[0; MAX_RES]; 2] {
            self.res.hash(h);
        }
        self.phase.hash(h);
    }
}

/// What one strike did, for one die face.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    pub hit: bool,
    pub crit: bool,
    pub backfire: bool,
    pub damage: i64,
    /// The reactions to a roll taken (bit `r` for reaction `r`), paid after the strike.
    pub rerolled: u16,
}

impl Outcome {
    /// Whether the strike dealt damage to the unit struck (what a riposte waits for).
    pub(crate) fn deals_damage(&self) -> bool {
        self.hit && !self.backfire && self.damage > 0
    }
}

impl std::hash::Hash for Outcome {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        self.hit.hash(h);
        self.crit.hash(h);
        self.backfire.hash(h);
        self.damage.hash(h);
        // Strikes without rerolls hash as before they existed.
        if self.rerolled != 0 {
            self.rerolled.hash(h);
        }
    }
}

/// What a strike's settling reads: its units, attributes, striker and the resources each side
/// may pay with.
struct Strike<'a, 'u> {
    units: [&'a Unit; 2],
    attrs: &'a Attrs<'u>,
    attacker: usize,
    res: &'a [[i32; MAX_RES]; 2],
}

/// One line of a resolved exchange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StrikeLog {
    /// 0: the attacker, 1: the defender.
    pub side: usize,
    pub stage: &'static str,
    /// The weapon struck with, where the side strikes with several attack forms.
    pub form: Option<String>,
    pub roll: i64,
    /// Where the strike's dice have named faces: what they showed in words, each roll in slot
    /// order ("2 melee, 1 save against 1 maneuver"), in place of `roll`'s number.
    pub shown: Option<String>,
    pub outcome: Outcome,
    /// The strike's combat formula `chart` at its dice (0 without one): what `on chart` reads.
    pub chart: i64,
    pub hp_after: [i64; 2],
    pub inflicted: Vec<String>,
    /// Debuffs the strike laid on the unit struck: (attribute, shift). They last until that
    /// unit's next turn ends, so they count in later exchanges, not in this one.
    pub debuffed: Vec<(String, i64)>,
    /// Everything the strike's triggers laid on either unit, in order (what a battle keeps).
    pub laid: Vec<Laid>,
    /// The reaction the struck unit took against the strike.
    pub reaction: Option<String>,
    /// The reactions to a roll taken, by name ("Prowess"), joined by "and".
    pub rerolled: Option<String>,
}

/// What a trigger in an exchange leaves on a unit (0: the attacker, 1: the defender) beyond
/// hit points: a battle holds it after the exchange.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Laid {
    Afflicted {
        side: usize,
        status: String,
    },
    /// Lasts until that unit's next turn ends.
    Debuff {
        side: usize,
        attr: String,
        shift: i64,
    },
    /// Every status removed.
    Cured {
        side: usize,
    },
    /// One status removed.
    Cleared {
        side: usize,
        status: String,
    },
}

/// A resolved exchange: the strikes, the final hit points, and what `on attacked` laid before
/// the first strike.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resolution {
    pub log: Vec<StrikeLog>,
    pub hp: [i64; 2],
    pub declared: Vec<Laid>,
    /// Each side's resources after the exchange, in the ruleset's order (reactions spend them).
    pub resources: [Vec<i64>; 2],
}

/// What a side does in an exchange before any die is rolled.
#[derive(Clone, Debug, PartialEq)]
pub struct SideForecast {
    pub class: String,
    pub weapon: Option<String>,
    pub hp: i64,
    pub max_hp: i64,
    /// Every stat and base attribute after the modifiers that always apply.
    pub effective: Arc<[(String, Shown)]>,
    /// Chance per strike to hit (backfires excluded) and to land a critical hit.
    pub hit: f64,
    pub crit: f64,
    pub damage: i64,
    pub crit_damage: i64,
    /// Strikes made if nobody is routed (0 when it cannot counter).
    pub strikes: u32,
    /// Where a hitting strike's damage is random (damage dice): damage -> probability, given a
    /// hit. Empty where a hit's damage is fixed (then `damage` and `crit_damage` say it all).
    pub damage_distribution: BTreeMap<i64, f64>,
}

impl SideForecast {
    /// Where a hit's damage is rolled (damage dice): its mean on a hit, its least and its most;
    /// `None` where it is fixed. How a forecast says rolled damage (its most alone, 189 for
    /// exploding dice, read as what a hit does).
    pub fn rolled(&self) -> Option<(f64, i64, i64)> {
        let (lo, hi) = (self.damage_distribution.keys().next()?, self.damage_distribution.keys().next_back()?);
        Some((self.damage_distribution.iter().map(|(d, p)| *d as f64 * p).sum(), *lo, *hi))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Forecast {
    pub attacker: SideForecast,
    pub defender: SideForecast,
    pub distance: i64,
    pub attacker_routed: f64,
    pub defender_routed: f64,
    /// Final HP -> probability.
    pub attacker_hp: BTreeMap<i64, f64>,
    pub defender_hp: BTreeMap<i64, f64>,
    /// Expected damage each side takes.
    pub attacker_damage_taken: f64,
    pub defender_damage_taken: f64,
}

/// The four figures of a forecast a table of matchups reads ([`Exchange::odds`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Odds {
    pub attacker_routed: f64,
    pub defender_routed: f64,
    pub attacker_damage_taken: f64,
    pub defender_damage_taken: f64,
}

/// How an exchange ends, as an AI weighs it: each side's final HP with its chance, the HP each
/// started from, and the [`Odds`] (the same bits as the forecast's), without what a forecast
/// shows of each side before the dice ([`Exchange::ending`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Ending {
    pub start: [i64; 2],
    pub attacker_hp: std::collections::BTreeMap<i64, f64>,
    pub defender_hp: std::collections::BTreeMap<i64, f64>,
    pub odds: Odds,
}

type UnitCache = FastMap<(usize, Vec<u32>), Arc<Unit>>;

/// A formula evaluated outside any roll, remembered for a state: for its hit points, or for any
/// (`None`) where the evaluation read none (`Ctx::reads`).
struct FlagMemo {
    hp: Option<[i64; 2]>,
    statuses: [Vec<u32>; 2],
    res: [[i32; MAX_RES]; 2],
    side: usize,
    /// The attack form the side strikes with (`Phase::form_of`).
    form: usize,
    id: u16,
    value: V,
}

/// A strike's grouped outcomes, (weight, outcome): shared by the outcome table and every strike
/// that looks them up (not copied).
type OutcomeList = Arc<[(f64, Outcome)]>;

/// A strike's outcomes, grouped: (weight, outcome); the weights sum to `den`; and the reaction
/// the struck unit took against it.
#[derive(Clone)]
struct Outcomes {
    den: f64,
    list: OutcomeList,
    reaction: Option<Reactions>,
    /// From each outcome on, the least damage the strikes deal the unit struck, where each is a
    /// hit on it (`plain.rs`: past its hit points, all fell it); worked out once, where asked.
    felling: std::sync::OnceLock<Box<[i64]>>,
}

impl Outcomes {
    fn new(den: f64, list: OutcomeList) -> Outcomes {
        Outcomes { den, list, reaction: None, felling: std::sync::OnceLock::new() }
    }
}

/// A strike's grouped outcomes by (state, striking side). A state whose hit points the strike's
/// evaluation never read is stored once for every amount of them, with `ANY_HP`. (Those of a
/// state holding what the exchange began with are its `StrikeMemo`'s, found without hashing.)
#[derive(Default)]
struct OutcomeCache {
    by_state: FastMap<(State, usize), Arc<Outcomes>>,
}

/// The hit points of a cached state that stands for every amount of them.
const ANY_HP: [i64; 2] = [i64::MIN; 2];

/// A unit of an exchange: one of the two it began with (borrowed), or one rebuilt with the
/// statuses a strike laid.
enum UnitRef<'a> {
    Base(&'a Unit),
    Built(Arc<Unit>),
}

impl std::ops::Deref for UnitRef<'_> {
    type Target = Unit;
    fn deref(&self) -> &Unit {
        match self {
            UnitRef::Base(u) => u,
            UnitRef::Built(u) => u,
        }
    }
}

/// A matchup being resolved: the loadouts and the units built for each set of statuses.
pub struct Exchange<'e> {
    engine: &'e Engine,
    loadouts: [&'e Loadout; 2],
    distance: i64,
    units: RefCell<UnitCache>,
    flags: RefCell<Vec<FlagMemo>>,
    base: [Arc<Unit>; 2],
    /// Each side's other attack forms, as the exchange began: the unit with each other weapon
    /// it carries whose `attack_form` holds, where its own weapon's does (form 1, 2 ...).
    forms: [Vec<Arc<Unit>>; 2],
    triangle: [i64; 2],
    start: [i64; 2],
    /// Each side's reactions when struck: `None` the best (the default), `Some(Some(r))` always
    /// reaction `r` where it may be taken, `Some(None)` never.
    policy: [Option<Option<u8>>; 2],
    /// The reaction chosen in each state a resolution reached (the same as the forecast's).
    choices: RefCell<FastMap<(State, usize), Option<Reactions>>>,
    /// A lone attack: no counter, no follow-up (a free attack from a threat zone).
    single: bool,
    /// The defender strikes back whatever `counter` says: its attack is fought in this exchange
    /// ([`Exchange::mutual`]).
    mutual: bool,
    /// The order of attack, read as the exchange began (`phase::Order`).
    order: std::cell::Cell<phase::Order>,
    /// Whether each unit has activated this round ([`Exchange::activated`]).
    activated: [bool; 2],
    /// Whether each unit moved in the step that made the attack ([`Exchange::moved`]).
    moved: [bool; 2],
    /// How hidden the defender is from the attacker ([`Exchange::cover`]); the counter is struck
    /// along the same line.
    cover: i64,
    /// Whether an evaluation since it was last cleared read the state's hit points or
    /// resources (`Ctx::reads`).
    reads: std::cell::Cell<u8>,
    /// Each side's strike on the other as the exchange began (outcomes and flags for every
    /// amount of hit points).
    memos: [memo::StrikeMemo; 2],
    /// Whether those are kept for later forecasts of the same units (`memo::PairKey`).
    sharing: std::cell::Cell<bool>,
    /// The values of a strike's parts (`Ir::valued_inputs`) by what fixes those that read no
    /// hit points nor resources: the same at every state (`Exchange::part_values`).
    parts: RefCell<Vec<parts::Kept>>,
    /// What the units' `when`s made of a strike's attributes, by what they were judged on
    /// (`attrs::WhenKept`): the same strikes and flags ask again at one state.
    whens: RefCell<Vec<attrs::WhenKept>>,
    /// The number its two loadouts' strikes are kept by beyond the exchange, where they are
    /// (`across.rs`).
    across: Option<u64>,
}

thread_local! {
    /// Formula caches' room, taken and given back by the evaluations that start one afresh (a
    /// flag, a strike's outcomes): not allocated again for each, nor for each exchange.
    static ROOM: RefCell<Vec<Vec<Option<V>>>> = const { RefCell::new(Vec::new()) };
}

/// The most caches' room [`ROOM`] keeps (evaluations nest a few deep).
const ROOMS: usize = 8;

impl<'e> Exchange<'e> {
    pub fn new(
        engine: &'e Engine,
        attacker: &'e Loadout,
        defender: &'e Loadout,
        distance: i64,
    ) -> Result<Exchange<'e>, EngineError> {
        let units = [engine.unit(attacker, &[])?, engine.unit(defender, &[])?];
        Exchange::with_units(engine, [attacker, defender], units, distance)
    }

    /// [`Exchange::new`] with the units the engine built from the two loadouts (no statuses
    /// added) already in hand.
    pub(crate) fn with_units(
        engine: &'e Engine,
        [attacker, defender]: [&'e Loadout; 2],
        [a, d]: [Arc<Unit>; 2],
        distance: i64,
    ) -> Result<Exchange<'e>, EngineError> {
        if a.weapon.is_none() {
            return Err(EngineError::Unarmed { class: a.class.clone() });
        }
        if !a.may_use_weapon() {
            return Err(EngineError::Restricted {
                class: a.class.clone(),
                weapon: a.weapon.clone().unwrap_or_default(),
                weapon_type: a.weapon_type.clone().unwrap_or_default(),
            });
        }
        if !a.in_range(distance) {
            return Err(EngineError::OutOfReach {
                weapon: a.weapon.clone().unwrap_or_default(),
                min: a.min_range,
                max: a.max_range,
                distance,
            });
        }
        let tri = |x: &Unit, y: &Unit| match (x.weapon_type_id, y.weapon_type_id, &x.weapon_type, &y.weapon_type) {
            (Some(p), Some(q), ..) => engine.triangle(p, q),
            (_, _, Some(p), Some(q)) => engine.rules.triangle(p, q),
            _ => 0,
        };
        let triangle = [tri(&a, &d), tri(&d, &a)];
        let start = [a.hp(&engine.ir), d.hp(&engine.ir)];
        let forms = [engine.attack_forms(attacker, &a), engine.attack_forms(defender, &d)];
        let base = [a, d];
        Exchange {
            engine,
            loadouts: [attacker, defender],
            distance,
            // Units rebuilt with statuses a strike laid (the two it began with are `base`).
            units: RefCell::new(FastMap::default()),
            flags: RefCell::new(Vec::new()),
            base,
            forms,
            triangle,
            start,
            policy: [None, None],
            choices: RefCell::new(FastMap::default()),
            single: false,
            mutual: false,
            order: std::cell::Cell::new(phase::Order::default()),
            activated: [false; 2],
            moved: [false; 2],
            cover: 0,
            reads: std::cell::Cell::new(0),
            memos: Default::default(),
            sharing: std::cell::Cell::new(false),
            parts: RefCell::new(Vec::new()),
            whens: RefCell::new(Vec::new()),
            across: None,
        }
        .checked()
    }

    /// An empty formula cache (every formula forgotten), in the room last given back.
    fn fresh_cache(&self) -> Vec<Option<V>> {
        let mut cache = ROOM.try_with(|r| r.try_borrow_mut().ok().and_then(|mut r| r.pop())).ok().flatten().unwrap_or_default();
        cache.clear();
        cache.resize(self.engine.ir.formulas.len(), None);
        cache
    }

    /// Gives a formula cache's room back for the next evaluation.
    fn give_back(&self, cache: Vec<Option<V>>) {
        let _ = ROOM.try_with(|r| {
            if let Ok(mut r) = r.try_borrow_mut() {
                if r.len() < ROOMS {
                    r.push(cache);
                }
            }
        });
    }

    fn unit(&self, side: usize, statuses: &[u32]) -> UnitRef<'_> {
        self.unit_of(side, 0, statuses)
    }

    /// Both units of a state, the striker with the attack form its phase strikes with.
    #[inline]
    fn units(&self, state: &State) -> [UnitRef<'_>; 2] {
        // Most states: the two units the exchange began with, found without a call.
        let [a, d] = &self.base;
        let own = |side: usize, u: &Unit| state.phase.form_of(side) == 0 && same(&u.statuses, &state.statuses[side]);
        if own(0, a) && own(1, d) {
            return [UnitRef::Base(a), UnitRef::Base(d)];
        }
        [0, 1].map(|side| self.unit_of(side, state.phase.form_of(side), &state.statuses[side]))
    }

    /// The unit of `side` striking with its attack form `form` (0: its own weapon).
    fn unit_of(&self, side: usize, form: usize, statuses: &[u32]) -> UnitRef<'_> {
        if form > 0 {
            let Some(f) = self.forms.get(side).and_then(|f| f.get(form - 1)) else { return self.unit_of(side, 0, statuses) };
            if same(&f.statuses, statuses) {
                return UnitRef::Built(f.clone());
            }
            let key = (side + 2 * form, statuses.to_vec());
            if let Some(u) = self.units.borrow().get(&key) {
                return UnitRef::Built(u.clone());
            }
            let loadout =
                Loadout { weapon: f.weapon.as_deref().map(Atom::new), carried: Vec::new(), ..self.loadouts[side].clone() };
            let kept = |s: &Atom| self.engine.ir.name_id(s).is_some_and(|id| statuses.contains(&id));
            let loadout = Loadout { statuses: loadout.statuses.iter().filter(|s| kept(s)).copied().collect(), ..loadout };
            let u = self.engine.unit(&loadout, statuses).unwrap_or_else(|_| f.clone());
            self.units.borrow_mut().insert(key, u.clone());
            return UnitRef::Built(u);
        }
        // Most states keep the statuses the exchange began with: no hashing, no allocation, no
        // reference count.
        if let Some(base) = self.base.get(side) {
            if same(&base.statuses, statuses) {
                return UnitRef::Base(base);
            }
        }
        let key = (side, statuses.to_vec());
        if let Some(u) = self.units.borrow().get(&key) {
            return UnitRef::Built(u.clone());
        }
        // A status applied mid-exchange: rebuild the unit with it. The loadout was valid when the
        // exchange was set up and statuses come from the model, so this cannot fail; if it did,
        // the unit fights on without the status rather than the engine stopping.
        // A status of the loadout that is no longer in `statuses` was cured: build without it.
        let loadout = self.loadouts[side];
        let kept = |s: &Atom| self.engine.ir.name_id(s).is_some_and(|id| statuses.contains(&id));
        let built = if loadout.statuses.iter().all(kept) {
            self.engine.unit(loadout, statuses)
        } else {
            let rest = Loadout { statuses: loadout.statuses.iter().filter(|s| kept(s)).copied().collect(), ..loadout.clone() };
            self.engine.unit(&rest, statuses)
        };
        let u = built.unwrap_or_else(|_| self.base[side].clone());
        self.units.borrow_mut().insert(key, u.clone());
        UnitRef::Built(u)
    }

    /// [`Exchange::outcomes`], remembered in `memo`: once for every amount of hit points where
    /// working them out read none.
    fn outcomes_memo(&self, state: &State, side: usize, memo: &mut OutcomeCache) -> Arc<Outcomes> {
        self.outcomes_kept(state, side, Some(memo))
    }

    /// [`Exchange::outcomes_memo`], without a walk's `memo` where `None`: asked by a walk that
    /// keeps what it asked itself (a plain walk, by hit points), of an exchange whose outcomes are
    /// kept beyond it (`across.rs`: found there again, not worked out). The same outcomes found
    /// another way: the same bits.
    fn outcomes_kept(&self, state: &State, side: usize, memo: Option<&mut OutcomeCache>) -> Arc<Outcomes> {
        let form = state.phase.form_of(side);
        let start = self.at_start(state) && form == 0;
        // As the exchange began (most states): worked out once, found without hashing the state.
        let shared = self.memos.get(side).filter(|_| start).map(|m| &m.outcomes);
        if let Some(o) = self.start_outcomes(shared, side) {
            return o;
        }
        let [first, second] = &state.statuses;
        let statuses = [first.clone(), second.clone()];
        let mut key = (State { hp: ANY_HP, statuses, res: state.res, phase: Phase::Done }, side + 2 * form);
        if let Some(memo) = memo.as_deref() {
            if let Some(o) = memo.by_state.get(&key) {
                return o.clone();
            }
            key.0.hp = state.hp;
            if let Some(o) = memo.by_state.get(&key) {
                return o.clone();
            }
        }
        key.0.hp = state.hp;
        self.reads.set(0);
        // Kept by an exchange of the same two loadouts at other hit points, with the sides whose
        // hit points or resources working them out read (as it would here).
        let o = match self.kept_across(&mut key) {
            Some((o, reads)) => {
                self.reads.set(reads);
                o
            }
            None => {
                let o = Arc::new(self.outcomes(state, side));
                self.keep_across(&key, &o, self.reads.get());
                o
            }
        };
        let reads = self.reads.get() != 0;
        if let Some(slot) = shared {
            let _ = slot.set((!reads).then(|| o.clone()));
        }
        if !reads {
            // Every state as the exchange began finds them in `shared` above.
            if shared.and_then(std::cell::OnceCell::get).is_some_and(Option::is_some) {
                self.share_outcomes(side, &o);
                return o;
            }
            key.0.hp = ANY_HP;
        }
        if let Some(memo) = memo {
            memo.by_state.insert(key, o.clone());
        }
        o
    }

    /// The outcome of a strike by `attacker` for every joint value of the dice the strike draws
    /// (each named die once per side, each literal die on its own), grouped: (weight, outcome).
    /// A joint value's weight is the product of its dice's weights; the weights of all of them
    /// sum to the product of their dice's denominators (for plain dice, every face has weight 1).
    fn outcomes(&self, state: &State, attacker: usize) -> Outcomes {
        let units = self.units(state);
        let units = [&*units[0], &*units[1]];
        let attrs = self.strike_attrs(units, state, attacker);
        if self.engine.reactions.is_empty() {
            return self.outcomes_with(units, &attrs, attacker, &state.res);
        }
        self.react(units, state, attrs, attacker)
    }

    /// Applies a strike's outcome: damage, then the striker's `on hit` / `on crit` triggers, or
    /// its `on miss` ones.
    fn apply(&self, state: &State, attacker: usize, o: Outcome) -> (State, Vec<Laid>) {
        let mut next = state.clone();
        let mut laid = Vec::new();
        next.hp = dealt(next.hp, attacker, o);
        let units = self.units(state);
        let units = [&*units[0], &*units[1]];
        let fires = |event: m::Event| match event {
            m::Event::Hit => o.hit,
            m::Event::Crit => o.crit,
            m::Event::Miss => !o.hit,
            _ => false,
        };
        if units[attacker].triggers.iter().any(|(_, event, _)| fires(*event)) {
            let attrs = self.strike_attrs(units, &next, attacker);
            let mut ctx = self.ctx(units, &attrs, attacker, &[]);
            ctx.dealt = if o.hit { o.damage } else { 0 };
            for (args, event, then) in &units[attacker].triggers {
                if fires(*event) {
                    self.run_trigger(&ctx, then, args, &mut next, &mut laid, units);
                }
            }
        }
        for side in 0..2 {
            next.hp[side] = next.hp[side].max(0);
        }
        (next, laid)
    }

    /// Runs a trigger's commands in an exchange (`on attacked`, `hit`, `crit`, `miss`) through the
    /// one executor (`exec`), on the strike's state: the verbs the conformance table allows on
    /// exchange events.
    fn run_trigger(&self, ctx: &Ctx, effects: &[Eff], args: &[V], state: &mut State, laid: &mut Vec<Laid>, units: [&Unit; 2]) {
        for e in effects {
            match e {
                Eff::When { condition, then } if ctx.eval(condition, args, &mut []).bool() => {
                    self.run_trigger(ctx, then, args, state, laid, units);
                }
                Eff::Command { verb, args: cargs } => {
                    let values: Vec<V> = cargs.iter().map(|a| ctx.eval(a, args, &mut [])).collect();
                    if let Some(command) = Command::decode(*verb, &values) {
                        let mut world = StrikeWorld { engine: self.engine, state, laid, units };
                        // A battle's verb is never on an exchange event (`Engine::new` refuses it).
                        let _ = execute(&mut world, command);
                    }
                }
                _ => {}
            }
        }
    }

    /// Each side's resources as the exchange begins.
    fn start_res(&self) -> [[i32; MAX_RES]; 2] {
        let mut res = [[0i32; MAX_RES]; 2];
        for (side, amounts) in res.iter_mut().enumerate() {
            for ((attr, _), slot) in self.engine.resource_full.iter().zip(amounts.iter_mut()) {
                let v = self.base[side].attrs.get(*attr as usize).map_or(0, |v| v.int());
                *slot = i32::try_from(v.clamp(i64::from(i32::MIN), i64::from(i32::MAX))).unwrap_or(0);
            }
        }
        res
    }

    /// Whether a state holds the statuses and resources the exchange began with.
    fn at_start(&self, state: &State) -> bool {
        same(&state.statuses[0], &self.base[0].statuses)
            && same(&state.statuses[1], &self.base[1].statuses)
            && (self.engine.resource_full.is_empty() || state.res == self.start_res())
    }

    fn initial(&self) -> State {
        self.initial_laid().0
    }

    /// The state before the first strike, and what `on attacked` laid.
    fn initial_laid(&self) -> (State, Vec<Laid>) {
        let res = self.start_res();
        let mut state = State {
            hp: self.start,
            statuses: [self.base[0].statuses.clone(), self.base[1].statuses.clone()],
            res,
            phase: Phase::Done,
        };
        let mut laid = Vec::new();
        // `on attacked`: the defender's triggers run once, as the attack is declared, before the
        // first strike (in forecasts, duels and battles alike: battles fight through here).
        let units = [self.unit(0, &state.statuses[0]), self.unit(1, &state.statuses[1])];
        let units = [&*units[0], &*units[1]];
        if units[1].triggers.iter().any(|(_, event, _)| *event == m::Event::Attacked) {
            let attrs = self.strike_attrs(units, &state, 0);
            let mut ctx = self.ctx(units, &attrs, 0, &[]);
            ctx.holder = 1;
            let mut next = state.clone();
            for (args, event, then) in &units[1].triggers {
                if *event == m::Event::Attacked {
                    self.run_trigger(&ctx, then, args, &mut next, &mut laid, units);
                }
            }
            for side in 0..2 {
                next.hp[side] = next.hp[side].max(0);
            }
            state.hp = next.hp;
            state.statuses = next.statuses;
            state.res = next.res;
        }
        // A unit routed before the first strike ends the exchange.
        if state.hp.iter().all(|hp| *hp > 0) {
            state.phase = self.first_phase(&state);
        }
        (state, laid)
    }
}

/// Hit points after the damage of a strike by `side` with outcome `o` (a backfire's to the
/// striker), before any trigger and before they are held at 0.
fn dealt(mut hp: [i64; 2], side: usize, o: Outcome) -> [i64; 2] {
    let target = if o.backfire { side } else { 1 - side };
    if o.backfire || o.hit {
        if let Some(h) = hp.get_mut(target) {
            *h = h.saturating_sub(o.damage);
        }
    }
    hp
}
