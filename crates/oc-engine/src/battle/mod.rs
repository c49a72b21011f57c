//! Whole battles (seed 000, Deployment and Gameplay): deployment into zones, rounds of
//! alternating single-unit activations, movement over the Terrain Table, attacks through the
//! combat exchange, special actions from the tags' `action` blocks, end-of-turn terrain healing,
//! and the scenario's victory conditions checked after every action and at the time limit.
//!
//! Everything comes from the model: movement points, movement type and whether a unit may move
//! are unit attributes; terrain costs, healing and what doors become are terrain data; what a
//! special action does is its verbs (`seize`, `escape`, `raze`, `open`, `take_chest`, `heal`,
//! `reactivate`, `cure`). Nothing here names a tag or a class.

mod actions;
mod advanced;
mod attack;
mod charge;
mod combatant;
mod copies;
mod courage;
mod cover;
mod declare;
mod deploy;
mod effects;
mod engage;
mod fog;
mod game;
mod hidden;
mod interrupt;
mod log;
mod movement;
mod queue;
mod round;
mod scene;
mod sequence;
mod threat;
mod turns;
mod units;
mod verbs;
mod victory;

use std::collections::{BTreeSet, HashMap};

use oc_model as m;
use oc_model::Atom;
use serde::{Deserialize, Serialize};

use crate::ir::V;
use crate::{ChaCha8Rng, Engine};

pub use crate::error::{BattleError, Rule};
pub use actions::Available;
pub use charge::AttackAction;
pub(crate) use combatant::Undiced;
pub use courage::Morale;
pub use declare::DECLARED_BEFORE_MOVE;
pub use deploy::{auto_deploy, deploy, home_zones, placement_units, Deployment, Setup};
pub(crate) use deploy::{zone_tiles, Grounds};
pub(crate) use fog::Sighting;
pub use fog::{Light, Sight};
pub use game::{play, play_unlogged, play_watched, Controller, GameResult, ROUND_CAP};
pub use interrupt::Before;
pub use log::Record;
pub use movement::{distance, neighbours, Mobility, Reach};
pub(crate) use movement::{tile_index, KeptReach, MoveHint, TerrainSeen};
pub(crate) use queue::CostQueue;
pub use turns::{Activation, StepVars};

pub type Tile = (i64, i64);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Ready,
    Routed,
    Escaped,
    /// Its figures joined another unit (seed 003's "join another unit", units.rs): they fight
    /// on in it as a body of their own (`Combatant::with` names the unit), or were added to its
    /// figures, or fell there. Not on the board by itself, and never counted as routed.
    Joined,
}

/// A unit on (or off) the battlefield.
#[derive(Debug, Serialize, Deserialize)]
pub struct Combatant {
    pub name: String,
    pub side: m::SideId,
    pub class: Atom,
    pub items: Vec<Atom>,
    /// Scenario tags the scenario granted to it.
    pub tags: Vec<Atom>,
    pub equipped: Option<Atom>,
    pub hp: i64,
    pub max_hp: i64,
    pub pos: Tile,
    pub state: State,
    pub activated: bool,
    /// The status effects on it, with the activations or rounds they have left (if they count down).
    #[serde(default)]
    pub statuses: Vec<Affliction>,
    /// A shifter that acted this round: it keeps its normal form until the next round.
    #[serde(default)]
    pub reverted: bool,
    /// A shifter that ended its turn transformed without taking an action or a free action: it
    /// stays transformed out of its turn too, until a turn in which it acts.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub transformed: bool,
    /// Uses spent of each item with charges it carries (by item name).
    #[serde(default)]
    pub spent: Vec<(Atom, u32)>,
    /// Debuffs in force (the `debuff` verb): they last until the end of the unit's next turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub debuffs: Vec<Debuff>,
    /// Amounts of the ruleset's resources, in their order (seed 002's Stamina).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub resources: Vec<i64>,
    /// The way it faces (a unit step such as `(1, 0)`), where threat zones are in front.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub facing: Option<Tile>,
    /// The charged action it is charging (by tag), the part paid in the action's resource.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charging: Option<Atom>,
    /// Its figures at full strength (seed 003's units of figures; [`Combatant::living`]).
    #[serde(default = "combatant::one_figure", skip_serializing_if = "combatant::is_one_figure")]
    pub figures: u32,
    /// Its courage (the ruleset's `courage`, where the scenario plays it): routing or not.
    #[serde(default, skip_serializing_if = "Morale::is_steady")]
    pub morale: Morale,
    /// Where it hid (the `hide` verb): hidden while it stands there, until it attacks or is
    /// found ([`Battle::hidden`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hidden: Option<Tile>,
    /// A body of a mixed unit (`State::Joined`): the unit it is part of, which moves and
    /// activates for it; it strikes after that unit's own figures and is struck once they have
    /// all fallen (units.rs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub with: Option<usize>,
    /// The unit it was formed from by dividing (seed 003's "divide up", units.rs), where it was:
    /// what a side that never saw it takes it to have deployed with ([`Battle::deployed`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent: Option<usize>,
}

/// A lowered attribute: `shift` steps or points on `attr`. `armed` once the unit's next turn has
/// begun; it wears off when that turn ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Debuff {
    pub attr: Atom,
    pub shift: i64,
    pub armed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Affliction {
    pub status: Atom,
    pub left: Option<u32>,
}

/// What a unit does with its action.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Act {
    #[default]
    Wait,
    Attack {
        target: usize,
    },
    /// Strike a destructible tile (a wall): its HP drop by the rules' damage; at 0 it becomes
    /// what the terrain says.
    Strike {
        tile: Tile,
    },
    /// Use a consumable: its `use` effects, or the action in it (a Master Key opens a door).
    Use {
        item: Atom,
        #[serde(default)]
        target: Option<usize>,
        #[serde(default)]
        tile: Option<Tile>,
    },
    /// A special action (from a tag's `action` block) identified by its first verb and, where
    /// a unit has several actions with that verb (Guard by Strength or by Agility), the tag
    /// `from` which it comes.
    Special {
        verb: m::Verb,
        target: Option<usize>,
        tile: Option<Tile>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<Atom>,
    },
    /// The answer of a unit an attack was declared on (the ruleset's `respond`) that does not
    /// activate now: the attack resolves, and the unit keeps its activation for later.
    Decline,
    /// A routing unit (the ruleset's `courage`) tries its rally roll instead of only fleeing.
    Rally,
}

/// One combat turn: the unit, where it moves (if it moves), the weapon it equips (free where
/// the ruleset does not price a change, the step variable `equips`), and its action.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub unit: usize,
    /// Actions taken before the move, in the activation's sequence of play (each an
    /// `Act::Special` whose action has a `sequence` step, in increasing steps; sequence.rs).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<Act>,
    pub to: Option<Tile>,
    pub equip: Option<Atom>,
    pub act: Act,
    /// Free action: items dropped before acting.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discard: Vec<Atom>,
    /// Free action, once per turn: swap items with an adjacent ally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trade: Option<Trade>,
    /// After an action other than an attack, a unit whose `canto` attribute is true may move
    /// again with what is left of its move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then_to: Option<Tile>,
    /// The acting side's standing reaction from this turn on, whenever one of its units is
    /// struck: a reaction's name, `none`, or `best` (the engine's choice, the default). A person
    /// sets it (`oc play`); the AIs leave it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reaction: Option<String>,
}

/// One trade: what the unit gives its ally and what it takes back (either may be none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trade {
    pub with: usize,
    pub give: Option<Atom>,
    pub take: Option<Atom>,
}

/// A battle: the rules it is played by (the engine, the scenario) and its [`BattleState`],
/// with its log and what a refused turn puts back. What acts on the state (the turn, the
/// verbs, movement, the round's end, victory) is `impl Battle` in this module's files; it
/// reads the rules from `engine` and `scenario`, and changes only `state` and `log`.
pub struct Battle<'e> {
    pub engine: &'e Engine,
    /// Shared by the forks of a battle (nothing in a battle changes it).
    pub scenario: std::sync::Arc<m::Scenario>,
    /// Everything the battle changes as it goes: what a fork copies and a refused turn restores.
    pub state: BattleState,
    pub log: Vec<Record>,
    /// The terrain each tile had before `set_terrain` changed it during the turn in progress
    /// (tile index, name): what a refused turn puts back, instead of a copy of every tile's name.
    terrain_undo: Vec<(usize, String)>,
    /// The units as they were before the turn in progress (what a refused turn puts back),
    /// copied into the last turn's copy so that their lists are reused.
    units_undo: Vec<Combatant>,
    /// A copy no one reads the log of ([`Battle::hush`]): what only the log shows is not worked
    /// out (what each side has newly seen, the strikes' words). Its forks are quiet too.
    quiet: bool,
    /// A battle whose log no one reads ([`Battle::unlogged`]: a simulation's game): the words of
    /// its strikes are not worked out. It plays as any battle (unlike a quiet copy, its AIs
    /// take it for the battle itself).
    silent: bool,
    /// Whether some unit may have to attack the weakest ([`attack::may_have_to_attack_weakest`]):
    /// where none may, a turn builds no unit to ask.
    weakest: bool,
    /// The scenario's advanced rules as its loadouts read them ([`advanced::Laws`]).
    laws: advanced::Laws,
    /// Whether its dice are a played battle's: a battle set up, and its copies that go on with
    /// its dice (`fork(None)`); not a copy rolling dice of its own seed, nor that copy's copies.
    /// A copy of such a battle is noted (`dice::carry`): what a decision read of the dice.
    own_dice: bool,
}

/// The state of a battle, apart from the rules that act on it: the field (its terrain as
/// doors open and walls fall, its chests), the units, the clock, whose turn it is, the dice,
/// objectives held and what each side has seen. [`Battle::fork`] copies it (an AI's look
/// ahead); nothing in it names a rule the engine does not read from the model. Copied field by
/// field (combatant.rs), so that `clone_from` reuses what a copy already holds.
pub struct BattleState {
    /// Shared by the forks of a battle until one changes it (a door opened, a wall fallen): a
    /// look ahead copies no map.
    pub map: std::sync::Arc<m::BattleMap>,
    pub units: Vec<Combatant>,
    pub round: u32,
    /// The side that leads the current round.
    pub first: m::SideId,
    /// Whose activation is next.
    pub to_act: m::SideId,
    /// The side that activated all its units first this round.
    finished_first: Option<m::SideId>,
    pub outcome: Option<(m::Outcome, String)>,
    rng: ChaCha8Rng,
    seized: Option<(m::SideId, String)>,
    escaped: Vec<(m::SideId, String)>,
    razed: Vec<(m::SideId, String, Tile)>,
    /// Consecutive rounds each region has been held (no enemy of the holder on it), per side:
    /// one entry a side and region name, sorted by them, so that equal maps are equal lists (a
    /// battle is copied and compared often: a copy reuses the names' buffers, a comparison
    /// hashes nothing).
    held: Vec<victory::Hold>,
    opened_chests: BTreeSet<Tile>,
    /// Destructible tiles struck so far, with their HP left.
    tile_hp: HashMap<Tile, i64>,
    /// With fog: tiles `reveal` lit this round, and what each side last saw (fog.rs).
    lights: Vec<Light>,
    sighted: [fog::Sighted; 2],
    /// The activation in progress, where activations are steps paid from a resource.
    pub active: Option<Activation>,
    /// This round's order of units, where the ruleset orders them by a resource.
    queue: Vec<usize>,
    /// Each side's standing reaction ([`Turn::reaction`]; `None`: the best).
    pub stance: [Option<String>; 2],
    /// Declared attacks not yet resolved, each waiting for its target's answer (the
    /// ruleset's `respond`), the last declared on top (declare.rs).
    pub pending: Vec<declare::Declared>,
    /// Each tile's terrain as an index into the rules' terrains (kept with `map.terrain` by
    /// `set_terrain`): paths and the AI look a tile's terrain up without comparing names.
    terrain_ix: Vec<Option<usize>>,
    /// A number no other terrain of any battle had, new at every terrain write
    /// ([`movement::terrain_stamp`]): two states with the same one have the same terrain.
    terrain_stamp: u64,
    /// The weather's status every unit bears (`advanced weather`, rolled before the battle).
    pub weather: Option<Atom>,
}

/// The stances a side may stand in, in words: each reaction of the rules that is no reroll
/// (`names`), then `none` and `best`, each quoted ("`Dodge`, `none`, `best`").
pub fn stances_in_words(names: &[&str]) -> String {
    names.iter().map(|n| format!("`{n}`")).chain(["`none`".to_string(), "`best`".to_string()]).collect::<Vec<_>>().join(", ")
}

/// A battle reads as its state: `battle.units`, `battle.round`, `battle.map` are the state's.
impl std::ops::Deref for Battle<'_> {
    type Target = BattleState;
    fn deref(&self) -> &BattleState {
        &self.state
    }
}

/// What a turn reads of its unit as it begins (not a whole copy of it).
struct Acting {
    name: String,
    side: m::SideId,
    state: State,
    activated: bool,
    routing: bool,
    pos: Tile,
    equipped: Option<Atom>,
    items: Vec<Atom>,
}

fn side_index(s: m::SideId) -> usize {
    match s {
        m::SideId::Attacker => 0,
        m::SideId::Defender => 1,
    }
}

impl<'e> Battle<'e> {
    /// Plays one combat turn for the side to act. A turn the rules refuse changes nothing.
    pub fn turn(&mut self, t: Turn) -> Result<(), BattleError> {
        self.terrain_undo.clear();
        self.units_undo.clone_from(&self.state.units);
        let saved = (
            self.state.rng.clone(),
            self.state.seized.clone(),
            self.state.escaped.clone(),
            self.state.razed.clone(),
            self.state.opened_chests.clone(),
            self.log.len(),
            self.state.tile_hp.clone(),
            (self.state.lights.clone(), self.state.sighted.clone(), self.state.stance.clone(), self.state.pending.clone()),
            (
                self.state.active.clone(),
                self.state.queue.clone(),
                self.state.to_act,
                self.state.round,
                self.state.first,
                self.state.finished_first,
            ),
        );
        let result = self.turn_inner(t, None, false);
        if result.is_err() {
            let (rng, seized, escaped, razed, chests, log, tile_hp, fog, order) = saved;
            (
                self.state.active,
                self.state.queue,
                self.state.to_act,
                self.state.round,
                self.state.first,
                self.state.finished_first,
            ) = order;
            (self.state.lights, self.state.sighted, self.state.stance, self.state.pending) = fog;
            self.state.tile_hp = tile_hp;
            std::mem::swap(&mut self.state.units, &mut self.units_undo);
            for (at, name) in std::mem::take(&mut self.terrain_undo).into_iter().rev() {
                self.replace_terrain(at, name);
            }
            self.state.rng = rng;
            self.state.seized = seized;
            self.state.escaped = escaped;
            self.state.razed = razed;
            self.state.opened_chests = chests;
            self.log.truncate(log);
        }
        result
    }

    /// [`Battle::turn`] on a copy thrown away if the rules refuse the turn (an AI's look ahead):
    /// nothing is kept to put back, so a refused turn leaves the copy part played.
    pub(crate) fn turn_or_spoil(&mut self, t: Turn) -> Result<(), BattleError> {
        self.terrain_undo.clear();
        self.turn_inner(t, None, false)
    }

    /// `resumed`: the rest of a turn a move that came too near held (interrupt.rs), with the
    /// movement points the move spent, or the move and attack an attack declared before the
    /// move held (declare.rs: `held_declared`).
    fn turn_inner(&mut self, mut t: Turn, resumed: Option<i64>, held_declared: bool) -> Result<(), BattleError> {
        if self.state.outcome.is_some() {
            return Err(BattleError::refused(Rule::Over, "the battle is over"));
        }
        let i = t.unit;
        let u = self.state.units.get(i).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        let u = Acting {
            name: u.name.clone(),
            side: u.side,
            state: u.state,
            activated: u.activated,
            routing: u.morale.routing,
            pos: u.pos,
            equipped: u.equipped,
            items: u.items.clone(),
        };
        if u.side != self.state.to_act {
            return Err(BattleError::refused(
                Rule::Turn,
                format!("it is the {}'s activation, and {} is the {}'s", self.state.to_act.word(), u.name, u.side.word()),
            ));
        }
        if u.state != State::Ready || (u.activated && resumed.is_none()) {
            return Err(BattleError::refused(Rule::Turn, format!("{} cannot be activated now", u.name)));
        }
        if resumed.is_none() && !self.may_act_unit(u.side, i) {
            let who = match &self.state.active {
                Some(a) => format!(
                    "{} is in the middle of its activation",
                    self.state.units.get(a.unit).map_or("another unit", |f| f.name.as_str())
                ),
                None => "the ruleset's order names another unit".to_string(),
            };
            return Err(BattleError::refused(Rule::Turn, format!("{} cannot act now: {who}", u.name)));
        }
        if let Some(stance) = &t.reaction {
            // A reaction to a roll is no stance: it is taken once the dice are rolled.
            let stances = || self.engine.rules.ruleset.reactions.iter().filter(|r| r.reroll.is_none());
            let known = stances().any(|r| &r.name == stance);
            if !known && stance != "none" && stance != "best" {
                let names: Vec<&str> = stances().map(|r| r.name.as_str()).collect();
                return Err(BattleError::refused(
                    Rule::Requirement,
                    format!("no reaction `{stance}`: the reactions are {}", stances_in_words(&names)),
                ));
            }
            if let Some(slot) = self.state.stance.get_mut(side_index(u.side)) {
                *slot = Some(stance.clone()).filter(|s| s != "best");
            }
        }
        // The rest of a turn whose attack was declared before the move takes the steps after
        // the declaration's.
        self.steps_may_begin(i, &t, resumed.is_some() && !held_declared)?;
        if matches!(t.act, Act::Decline) {
            return self.decline(t);
        }
        if u.routing || matches!(t.act, Act::Rally) {
            return self.routing_turn(t, u.side);
        }
        let stepped = self.engine.rules.ruleset.turn.spend.is_some();
        let continuing = self.state.active.as_ref().is_some_and(|a| a.unit == i) || resumed.is_some();
        if stepped && turns::ends_activation(&t) {
            // Waiting ends an activation of steps; as the first step, it is the whole turn.
            if continuing {
                self.state.active = None;
                self.log.push(Record::Turn {
                    round: self.state.round,
                    turn: t,
                    hp: Vec::new(),
                    routed: Vec::new(),
                    note: "ends its activation".into(),
                });
                return self.end_activation(i, u.side, true);
            }
        }
        if !continuing {
            self.begin_activation(i);
        }
        // The actions of the sequence before the move (sequence.rs), in their steps' order; those
        // after the step a declaration comes at (`declare_step`) wait for the target's answer
        // where the turn's attack is declared before the move (declare.rs).
        let (mut early, later) = self.steps_before_declaring(i, &t, resumed)?;
        if !later.is_empty() {
            if self.declares_before_move(i, &t, u.pos)? {
                let hp: Vec<i64> = self.state.units.iter().map(|f| f.hp).collect();
                return self.declare_before_move(t, &early, &hp, later);
            }
            early.extend(self.before_move(i, &Turn { before: later, ..t.clone() })?);
        }
        let mut moved = resumed.unwrap_or(0);
        // A move can cost HP (free attacks in threat zones, strikes of opportunity): the turn's HP
        // changes count from here, so a unit routed on the way is routed by them.
        let before_move: Vec<i64> = self.state.units.iter().map(|f| f.hp).collect();
        let mut walked = Vec::new();
        if let Some(to) = t.to {
            // Held in contact (the ruleset's `engaged`, engage.rs): only `disengage` leaves.
            let engaged = self.engaged_by(i);
            if let Some(k) = engaged.filter(|_| to != u.pos) {
                let by = self.state.units.get(k).map(|e| e.name.clone()).unwrap_or_default();
                let why = format!("{} is engaged with {by} (the ruleset's `engaged`): it leaves only by disengaging", u.name);
                return Err(BattleError::refused(Rule::Move, why));
            }
            // Whether it is held, asked once: the state is the same for its move's cost.
            let Some(cost) = self.move_cost(i, to, Some(engaged.is_some()))? else {
                return Err(BattleError::refused(Rule::Move, format!("{} cannot reach {to:?} this turn", u.name)));
            };
            moved = cost;
            // Seed 003's strict sequence: an attack its target may answer is declared before the
            // move (the declaration is step 2 of the sequence, the move step 4); the move and the
            // attack wait for the answer (declare.rs).
            if let (Act::Attack { target }, None, true) = (&t.act, resumed, to != u.pos) {
                if self.declared_before_move(i, *target, to, cost, t.equip) {
                    return self.declare_before_move(t, &early, &before_move, Vec::new());
                }
            }
            // An attack the rules allow from there as things stand, asked before the move: what
            // the move does may refuse it (a free attack on the way turns its striker to face
            // the mover, whose shot from its zone is refused), and then the shot is held.
            let shot = stepped && matches!(t.act, Act::Attack { .. }) && self.step_allowed_at(i, to, moved, &t.act);
            walked = self.walk(i, to);
            if to != u.pos {
                walked.extend(self.opportunity_strikes(i));
            }
            // The move stands; the shot it made impossible is held (the note says why).
            if shot && !self.step_allowed_at(i, to, moved, &t.act) {
                t.act = Act::Wait;
            }
        }
        // Routed by a free attack on the way: the move ends there, and so does the turn's act.
        let fell = self.state.units.get(i).is_none_or(|f| f.hp <= 0);
        let near = if fell || t.to.is_none_or(|to| to == u.pos) { Vec::new() } else { self.interrupters(i) };
        if !near.is_empty() {
            // The move came too near enemies that may activate first: the rest waits (interrupt.rs).
            let rest = Turn { to: None, before: Vec::new(), ..t.clone() };
            let mut note = early.iter().chain(&walked).cloned().collect::<Vec<_>>().join("; ");
            let interrupted = self.interrupt(i, &near, declare::Held { turn: rest, moved, declared: held_declared });
            note = if note.is_empty() { interrupted } else { format!("{note}; {interrupted}") };
            let (hp, routed, newly_routed) = self.mark_routed(&before_move);
            self.log.push(Record::Turn { round: self.state.round, turn: t, hp, routed, note });
            for k in newly_routed {
                self.run_triggers_against(k, m::Event::Routed, Some(i));
            }
            self.look();
            return self.await_answer();
        }
        for item in &t.discard {
            let f = self.state.units.get_mut(i).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
            let k = f.items.iter().position(|x| x == item).ok_or_else(|| BattleError::not_carried(&f.name, item))?;
            f.items.remove(k);
            if f.equipped.as_deref() == Some(item.as_str()) && !f.items.contains(item) {
                f.equipped = None;
            }
        }
        if let Some(trade) = &t.trade {
            self.trade(i, trade)?;
        }
        // Whether the turn changes the weapon held (the step variable `equips`), before it does.
        let equips = t.equip.as_ref().is_some_and(|w| u.equipped.as_ref() != Some(w));
        if let Some(w) = &t.equip {
            if !u.items.contains(w) {
                return Err(BattleError::not_carried(&u.name, w));
            }
            if let Some(f) = self.state.units.get_mut(i) {
                f.equipped = Some(*w);
            }
        }
        // This turn is the "next turn" of debuffs laid before it: they wear off when it ends.
        if !continuing {
            if let Some(f) = self.state.units.get_mut(i) {
                for d in &mut f.debuffs {
                    d.armed = true;
                }
            }
        }
        // A step of an activation paid from a resource: priced before it is taken.
        let (mut cost, mut charged, kind) = (None, 0, self.act_kind(i, &t.act));
        if stepped && !turns::ends_activation(&t) {
            let mut vars = self.step_vars(i, t.to.unwrap_or(u.pos), moved, &t.act);
            vars.equips = equips;
            charged = vars.cost;
            match self.step_price(i, &vars, None) {
                Some(Ok(c)) => cost = Some(c),
                Some(Err(why)) => return Err(BattleError::refused(Rule::Requirement, format!("{}: {why}", u.name))),
                None => {}
            }
        }
        // `must_attack_weakest()`: seed 000, "Unit must attack the unit in range with the lowest Hp."
        let weakest = if fell { Vec::new() } else { self.weakest_in_range(i) };
        if !weakest.is_empty() {
            let names = || {
                weakest.iter().filter_map(|k| self.state.units.get(*k)).map(|f| f.name.clone()).collect::<Vec<_>>().join(" or ")
            };
            match t.act {
                Act::Attack { target } if weakest.contains(&target) => {}
                Act::Attack { .. } => {
                    return Err(BattleError::refused(
                        Rule::Requirement,
                        format!("{} must attack the unit in range with the lowest HP: {}", u.name, names()),
                    ))
                }
                _ => {
                    return Err(BattleError::refused(
                        Rule::Requirement,
                        format!("{} must attack (the lowest HP in range: {})", u.name, names()),
                    ))
                }
            }
        }
        // An attack its target may answer waits for the answer (declare.rs).
        // (One made after a move was declared before it, or was no declaration: it resolves now.)
        let went = resumed.is_some_and(|m| m > 0) || t.to.is_some_and(|to| to != u.pos);
        let declared = match &t.act {
            Act::Attack { target } if !fell && !went && resumed.is_none() => {
                self.answerable(i, *target, t.to.unwrap_or(u.pos), moved, &t.act)
            }
            _ => false,
        };
        let dropped = if fell { None } else { self.drop_charge(i, &t.act) };
        // The step is paid as it is taken: reactions during its exchanges spend what is left.
        self.pay_step(i, cost);
        let note = match &t.act {
            _ if fell => "is routed on the way".to_string(),
            Act::Wait => "waits".to_string(),
            Act::Attack { target } if declared => self.declare(i, *target, went)?,
            Act::Attack { target } => self.attack(i, *target, went)?,
            Act::Decline | Act::Rally => return Err(BattleError::refused(Rule::Turn, "only an answer declines")),
            Act::Strike { tile } => self.strike(i, *tile)?,
            Act::Special { verb, target, tile, from } => {
                self.special(i, (*verb, from.as_deref()), (*target, *tile), cost.map(|_| charged))?
            }
            Act::Use { item, target, tile } => self.use_item(i, item, *target, *tile)?,
        };
        let note = dropped.map_or(note.clone(), |d| format!("{} {d}; {note}", u.name));
        let note = if walked.is_empty() { note } else { format!("{}; {note}", walked.join("; ")) };
        let note = if early.is_empty() { note } else { format!("{}; {note}", early.join("; ")) };
        // A unit that did not shoot where the rules refuse its shots says so.
        let held = match (&t.act, fell, self.state.units.get(i).map(|f| f.pos)) {
            (Act::Attack { .. } | Act::Strike { .. }, _, _) | (_, true, _) | (_, _, None) => Vec::new(),
            (_, false, Some(at)) => self.refused_shots(i, at),
        };
        let note = if held.is_empty() { note } else { format!("{note} ({})", held.join("; ")) };
        if let (Act::Attack { target }, false, false) = (&t.act, fell, declared) {
            let target = *target;
            if let Some(at) = self.state.units.get(target).map(|f| f.pos) {
                self.face(i, at);
            }
            self.run_triggers_against(i, m::Event::AfterAttack, Some(target));
        }
        if let (Some(to), false) = (t.then_to, fell) {
            let canto = self
                .loadout(i, true)
                .and_then(|l| self.engine.unit(&l, &[]).ok())
                .and_then(|x| self.attribute(&x, "canto"))
                .is_some_and(|v| v.bool());
            if !canto || matches!(t.act, Act::Attack { .. } | Act::Strike { .. }) {
                return Err(BattleError::no_move_after_acting(&u.name));
            }
            let (points, _, _) = self.mobility(i)?;
            let reach = self.reachable_within(i, points - moved)?;
            if !reach.contains_key(&to) {
                return Err(BattleError::refused(
                    Rule::Move,
                    format!("{} has {} movement left and cannot reach {to:?}", u.name, points - moved),
                ));
            }
            if let Some(f) = self.state.units.get_mut(i) {
                f.pos = to;
            }
        }
        // Count the step (paid as it was taken).
        let mut going_on = false;
        if let (Some(_), Some(spend)) = (cost, self.engine.rules.ruleset.turn.spend.clone()) {
            going_on = self.resource(i, &spend).unwrap_or(0) > 0;
            let a = self.state.active.get_or_insert_with(|| turns::Activation { unit: i, ..Default::default() });
            a.steps += 1;
            a.moves += i64::from(moved > 0);
            a.items += i64::from(equips || matches!(t.act, Act::Use { .. }));
            a.acts.push(kind);
        }
        let going_on = going_on && self.state.units.get(i).is_some_and(|f| f.state == State::Ready);
        if !going_on {
            self.state.active = None;
            if let Some(f) = self.state.units.get_mut(i) {
                f.activated = true;
            }
        }
        // A unit a command's damage routed has had its `on routed` already.
        let (hp, routed, newly_routed) = self.mark_routed(&before_move);
        // Who routed whom: the acting unit its foes; the target of its attack or action, the
        // acting unit itself (a counter).
        let acted_on = match &t.act {
            Act::Attack { target } | Act::Special { target: Some(target), .. } => Some(*target),
            _ => None,
        };
        // The shifting rule (seed 000): "if it took any action or free action" -- moving is neither.
        let acted = !matches!(t.act, Act::Wait)
            || !t.before.is_empty()
            || t.equip.is_some()
            || !t.discard.is_empty()
            || t.trade.is_some();
        self.log.push(Record::Turn { round: self.state.round, turn: t, hp, routed, note });
        // `on routed`: a routed unit's own triggers, once, as it leaves the battle.
        for k in newly_routed {
            let foe = if k == i { acted_on } else { Some(i) };
            self.run_triggers_against(k, m::Event::Routed, foe);
        }
        if going_on && self.state.units.get(i).is_some_and(|f| f.state == State::Ready) {
            // The activation goes on: the same unit takes its next step.
            self.look();
            self.check_victory(Some(u.side));
            if self.state.outcome.is_some() {
                self.state.active = None;
            }
            return Ok(());
        }
        self.state.active = None;
        if declared {
            // The declarer's activation waits for its target's answer.
            self.look();
            return self.await_answer();
        }
        self.end_activation(i, u.side, acted)
    }

    /// After a unit's last step: what follows an activation, the end of its turn, and the next
    /// activation.
    fn end_activation(&mut self, i: usize, side: m::SideId, acted: bool) -> Result<(), BattleError> {
        if let Some(f) = self.state.units.get_mut(i) {
            f.activated = true;
        }
        self.after_activation(i, acted);
        self.run_triggers(i, m::Event::EndOfTurn);
        self.end_of_turn(i);
        self.courage_checks();
        self.leadership_saves();
        self.look();
        self.check_victory(Some(side));
        if self.state.outcome.is_some() {
            self.state.pending.clear();
        } else if !self.resolve_declared()? {
            self.advance();
        }
        Ok(())
    }

    fn attribute(&self, unit: &crate::unit::Unit, name: &str) -> Option<V> {
        self.engine.ir.attr_id(name).and_then(|a| unit.attrs.get(a as usize).copied())
    }

    pub fn finish(&mut self, outcome: m::Outcome, reason: String) {
        self.log.push(Record::End { round: self.state.round, outcome, reason: reason.clone() });
        self.state.outcome = Some((outcome, reason));
    }
}
