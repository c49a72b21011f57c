//! Whole battles (seed 000, Deployment and Gameplay): deployment into zones, rounds of
//! alternating single-unit activations, movement over the Terrain Table, attacks through the
//! combat exchange, special actions from the tags' `action` blocks, end-of-turn terrain healing,
//! and the scenario's victory conditions checked after every action and at the time limit.
//!
//! Everything comes from the model: movement points, movement type and whether a unit may move
//! are unit attributes; terrain costs, healing and what doors become are terrain data; what a
//! special action does is its verbs (`seize`, `escape`, `raze`, `open`, `take_chest`, `heal`,
//! `reactivate`, `cure`). Nothing here names a tag or a class.

use std::cmp::Reverse;
use std::collections::{BTreeSet, BinaryHeap, HashMap};

use oc_model as m;
use serde::{Deserialize, Serialize};

use crate::combat::{rng, Exchange};
use crate::ir::V;
use crate::{ChaCha8Rng, Engine, EngineError, Form, Loadout};

pub type Tile = (i64, i64);

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Ready,
    Routed,
    Escaped,
}

/// A unit on (or off) the battlefield.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Combatant {
    pub name: String,
    pub side: m::SideId,
    pub class: String,
    pub items: Vec<String>,
    /// Scenario tags the scenario granted to it.
    pub tags: Vec<String>,
    pub equipped: Option<String>,
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
    /// Uses spent of each item with charges it carries (by item name).
    #[serde(default)]
    pub spent: Vec<(String, u32)>,
    /// Debuffs in force (the `debuff` verb): they last until the end of the unit's next turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub debuffs: Vec<Debuff>,
}

/// A lowered attribute: `shift` steps or points on `attr`. `armed` once the unit's next turn has
/// begun; it wears off when that turn ends.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Debuff {
    pub attr: String,
    pub shift: i64,
    pub armed: bool,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Affliction {
    pub status: String,
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
        item: String,
        #[serde(default)]
        target: Option<usize>,
        #[serde(default)]
        tile: Option<Tile>,
    },
    /// A special action (from a tag's `action` block) identified by its first verb.
    Special {
        verb: m::Verb,
        target: Option<usize>,
        tile: Option<Tile>,
    },
}

/// One combat turn: the unit, where it moves (if it moves), the weapon it equips (a free
/// action), and its action.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Turn {
    pub unit: usize,
    pub to: Option<Tile>,
    pub equip: Option<String>,
    pub act: Act,
    /// Free action: items dropped before acting.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub discard: Vec<String>,
    /// Free action, once per turn: swap items with an adjacent ally.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trade: Option<Trade>,
    /// After an action other than an attack, a unit whose `canto` attribute is true may move
    /// again with what is left of its move.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub then_to: Option<Tile>,
}

/// One trade: what the unit gives its ally and what it takes back (either may be none).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Trade {
    pub with: usize,
    pub give: Option<String>,
    pub take: Option<String>,
}

/// A line of the battle log: what happened, with enough state to verify a replay.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
#[allow(clippy::large_enum_variant)] // one `Turn` per line of a log; boxing would not pay
pub enum Record {
    Start {
        scenario: String,
        map: String,
        seed: u64,
        units: Vec<Combatant>,
    },
    Round {
        round: u32,
        first: m::SideId,
    },
    Turn {
        round: u32,
        turn: Turn,
        hp: Vec<(usize, i64)>,
        routed: Vec<usize>,
        note: String,
    },
    /// Terrain healing at the end of a turn.
    Recover {
        unit: usize,
        amount: i64,
        hp: i64,
    },
    /// A triggered effect (`on activated`, `on after_attack`, `on end_of_turn`).
    Trigger {
        unit: usize,
        on: m::Event,
        note: String,
    },
    /// A status effect taken or lost, or a shifter's change of form.
    Affliction {
        unit: usize,
        status: String,
        change: String,
    },
    End {
        round: u32,
        outcome: m::Outcome,
        reason: String,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BattleError(pub String);

impl std::fmt::Display for BattleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<EngineError> for BattleError {
    fn from(e: EngineError) -> Self {
        BattleError(e.message)
    }
}

/// An action a unit can take: the tag's action block with the tag's arguments.
#[derive(Clone, Debug)]
pub struct Available {
    pub action: m::Action,
    pub params: Vec<String>,
    pub args: Vec<m::Value>,
    /// The item the action comes from (its charges are spent when it is used).
    pub source: Option<String>,
}

impl Available {
    pub fn verb(&self) -> Option<m::Verb> {
        self.action.effects.iter().find_map(|e| if let m::Effect::Command { verb, .. } = e { Some(*verb) } else { None })
    }
}

pub struct Battle<'e> {
    pub engine: &'e Engine,
    pub scenario: m::Scenario,
    pub map: m::BattleMap,
    pub units: Vec<Combatant>,
    pub round: u32,
    /// The side that leads the current round.
    pub first: m::SideId,
    /// Whose activation is next.
    pub to_act: m::SideId,
    /// The side that activated all its units first this round.
    finished_first: Option<m::SideId>,
    pub outcome: Option<(m::Outcome, String)>,
    pub log: Vec<Record>,
    rng: ChaCha8Rng,
    seized: Option<(m::SideId, String)>,
    escaped: Vec<(m::SideId, String)>,
    razed: Vec<(m::SideId, String, Tile)>,
    /// Consecutive rounds each region has been held (no enemy of the holder on it), per side.
    held: HashMap<(m::SideId, String), u32>,
    opened_chests: BTreeSet<Tile>,
    /// Destructible tiles struck so far, with their HP left.
    tile_hp: HashMap<Tile, i64>,
    /// The AI's exact forecasts, by the two loadouts and the distance (a loadout includes HP,
    /// terrain and statuses, so an entry stays right for as long as the battle lasts).
    pub forecasts: std::cell::RefCell<HashMap<String, Option<crate::ai::Prospect>>>,
}

fn side_index(s: m::SideId) -> usize {
    match s {
        m::SideId::Attacker => 0,
        m::SideId::Defender => 1,
    }
}

/// The four tiles next to `t` (units move and act orthogonally).
pub fn neighbours(t: Tile) -> [Tile; 4] {
    [(t.0 + 1, t.1), (t.0 - 1, t.1), (t.0, t.1 + 1), (t.0, t.1 - 1)]
}

pub fn distance(a: Tile, b: Tile) -> i64 {
    (a.0 - b.0).abs() + (a.1 - b.1).abs()
}

impl<'e> Battle<'e> {
    /// Sets up a battle: the armies' units deployed at the given tiles (`deploy` is one list per
    /// army, in unit order; every tile must be in the side's zone).
    pub fn new(
        engine: &'e Engine,
        scenario: &m::Scenario,
        map: &m::BattleMap,
        armies: [&m::Army; 2],
        deploy: [&[Tile]; 2],
        seed: u64,
    ) -> Result<Battle<'e>, BattleError> {
        let mut units = Vec::new();
        let mut taken = BTreeSet::new();
        // The scenario's first deployer places first (seed 000, Deployment).
        let order = if scenario.deploy_first == m::SideId::Attacker { [0, 1] } else { [1, 0] };
        for i in order {
            let (army, tiles) = (armies[i], deploy[i]);
            let side = if i == 0 { m::SideId::Attacker } else { m::SideId::Defender };
            if army.side != side {
                return Err(BattleError(format!("`{}` is an army for the {}", army.name, army.side.word())));
            }
            let zone = map
                .region(&scenario.side(side).zone)
                .ok_or_else(|| BattleError(format!("the map has no zone `{}`", scenario.side(side).zone)))?;
            if tiles.len() != army.units.len() {
                return Err(BattleError(format!(
                    "{} deployment tiles for {} units of `{}`",
                    tiles.len(),
                    army.units.len(),
                    army.name
                )));
            }
            for (u, at) in army.units.iter().zip(tiles) {
                if !zone.tiles.contains(at) {
                    return Err(BattleError(format!("{} deploys at {:?}, outside `{}`", u.name, at, zone.name)));
                }
                if !taken.insert(*at) {
                    return Err(BattleError(format!("two units deploy at {at:?}")));
                }
                let equipped =
                    u.items.iter().find(|i| engine.rules.item(i).is_some_and(|it| it.kind == m::ItemKind::Weapon)).cloned();
                let probe = engine.unit(&Loadout { class: u.class.clone(), ..Loadout::default() }, &[])?;
                units.push(Combatant {
                    name: u.name.clone(),
                    side,
                    class: u.class.clone(),
                    items: u.items.clone(),
                    tags: u.tags.clone(),
                    equipped,
                    hp: probe.max_hp,
                    max_hp: probe.max_hp,
                    pos: *at,
                    state: State::Ready,
                    activated: false,
                    statuses: Vec::new(),
                    reverted: false,
                    spent: Vec::new(),
                    debuffs: Vec::new(),
                });
            }
        }
        // The scenario fills chests (and may add them) over what the map says.
        let mut map = map.clone();
        for (at, item) in &scenario.chests {
            map.chests.retain(|(t, _)| t != at);
            map.chests.push((*at, item.clone()));
        }
        // Keep unit indices stable: attacker's units first.
        units.sort_by_key(|f| side_index(f.side));
        let mut b = Battle {
            engine,
            scenario: scenario.clone(),
            map,
            units,
            round: 1,
            first: m::SideId::Attacker,
            to_act: m::SideId::Attacker,
            finished_first: None,
            outcome: None,
            log: Vec::new(),
            rng: rng(seed),
            seized: None,
            escaped: Vec::new(),
            razed: Vec::new(),
            held: HashMap::new(),
            opened_chests: BTreeSet::new(),
            tile_hp: HashMap::new(),
            forecasts: std::cell::RefCell::new(HashMap::new()),
        };
        b.log.push(Record::Start { scenario: scenario.name.clone(), map: b.map.name.clone(), seed, units: b.units.clone() });
        b.log.push(Record::Round { round: 1, first: b.first });
        Ok(b)
    }

    pub fn on_board(&self, i: usize) -> bool {
        self.units.get(i).is_some_and(|u| u.state == State::Ready)
    }

    /// Units of `side` still to activate this round.
    pub fn waiting(&self, side: m::SideId) -> Vec<usize> {
        (0..self.units.len())
            .filter(|i| self.units.get(*i).is_some_and(|u| u.side == side && u.state == State::Ready && !u.activated))
            .collect()
    }

    pub fn terrain_at(&self, t: Tile) -> Option<&m::Terrain> {
        if t.0 < 0 || t.1 < 0 || t.0 >= self.map.width || t.1 >= self.map.height {
            return None;
        }
        let name = self.map.terrain.get((t.1 * self.map.width + t.0) as usize)?;
        self.engine.rules.terrain(name)
    }

    fn occupant(&self, t: Tile) -> Option<usize> {
        self.units.iter().position(|u| u.state == State::Ready && u.pos == t)
    }

    /// The unit as the combat engine sees it; `acting` is whether it is its own turn.
    pub fn loadout_of(&self, i: usize, acting: bool) -> Option<Loadout> {
        self.loadout(i, acting)
    }

    /// The unit's movement type (a column of the Terrain Table).
    pub fn movement_type(&self, i: usize) -> Option<String> {
        self.mobility(i).ok().map(|(_, kind, _)| kind)
    }

    fn loadout(&self, i: usize, acting: bool) -> Option<Loadout> {
        let u = self.units.get(i)?;
        let class = self.engine.rules.class(&u.class)?;
        let accessory =
            u.items.iter().find(|n| self.engine.rules.item(n).is_some_and(|it| it.kind == m::ItemKind::Accessory)).cloned();
        Some(Loadout {
            class: u.class.clone(),
            weapon: u.equipped.clone(),
            accessory,
            tags: u.tags.iter().map(|t| (t.clone(), Vec::new())).collect(),
            statuses: u.statuses.iter().map(|a| a.status.clone()).collect(),
            terrain: self.terrain_at(u.pos).map(|t| t.name.clone()),
            hp: Some(u.hp),
            // Shifters are transformed in their own turn and in their normal form otherwise, and
            // once they have acted they stay normal until the next round (seed 000, Shifting).
            form: if class.forms.is_some() && (!acting || u.reverted) { Form::Normal } else { Form::Default },
            debuffs: u.debuffs.iter().map(|d| (d.attr.clone(), d.shift)).collect(),
        })
    }

    /// Movement points, movement type and whether the unit may move, from its attributes.
    fn mobility(&self, i: usize) -> Result<(i64, String, bool), BattleError> {
        let l = self.loadout(i, true).ok_or_else(|| BattleError(format!("no unit {i}")))?;
        let unit = self.engine.unit(&l, &[])?;
        let attr = |name: &str| self.engine.ir.attr_id(name).and_then(|a| unit.attrs.get(a as usize).copied());
        let points = attr("movement").map_or(5, |v| v.int());
        let kind = match attr("movement_type") {
            Some(V::Name(id)) => self.engine.ir.name(id).to_string(),
            _ => self.engine.rules.movements.first().cloned().unwrap_or_default(),
        };
        let can = attr("can_move").is_none_or(|v| v.bool());
        Ok((points, kind, can))
    }

    /// Every tile the unit can end its move on this turn, with the cost to get there.
    pub fn reachable(&self, i: usize) -> Result<HashMap<Tile, i64>, BattleError> {
        let (points, _, _) = self.mobility(i)?;
        self.reachable_within(i, points)
    }

    /// Like [`Battle::reachable`] with `points` of movement left (the `canto` move).
    pub fn reachable_within(&self, i: usize, points: i64) -> Result<HashMap<Tile, i64>, BattleError> {
        let u = self.units.get(i).ok_or_else(|| BattleError(format!("no unit {i}")))?;
        let (_, kind, can) = self.mobility(i)?;
        let mut best: HashMap<Tile, i64> = HashMap::new();
        best.insert(u.pos, 0);
        if !can {
            return Ok(best);
        }
        let mut heap = BinaryHeap::new();
        heap.push(Reverse((0i64, u.pos)));
        while let Some(Reverse((cost, at))) = heap.pop() {
            if best.get(&at).is_some_and(|b| *b < cost) {
                continue;
            }
            for next in neighbours(at) {
                let Some(step) = self.terrain_at(next).and_then(|t| t.costs.get(&kind).copied().flatten()) else { continue };
                // Enemy units block the way; allies may be passed through.
                if self.occupant(next).is_some_and(|o| self.units.get(o).is_some_and(|f| f.side != u.side)) {
                    continue;
                }
                let total = cost + i64::from(step);
                if total <= points && best.get(&next).is_none_or(|b| total < *b) {
                    best.insert(next, total);
                    heap.push(Reverse((total, next)));
                }
            }
        }
        // A unit cannot end its move on another unit.
        best.retain(|t, _| *t == u.pos || self.occupant(*t).is_none());
        Ok(best)
    }

    /// For a unit that must attack the weakest (`must_attack_weakest()`): the ready enemies within reach of its
    /// equipped weapon from where it stands, with the lowest HP among them. Empty otherwise.
    pub fn weakest_in_range(&self, i: usize) -> Vec<usize> {
        let Some(pos) = self.units.get(i).map(|u| u.pos) else { return Vec::new() };
        self.weakest_from(i, pos)
    }

    /// Whether the unit must attack the weakest in range (`must_attack_weakest()` holds it).
    pub fn must_attack_weakest(&self, i: usize) -> bool {
        self.loadout(i, true).and_then(|l| self.engine.unit(&l, &[]).ok()).is_some_and(|u| u.must_attack_weakest)
    }

    /// [`Battle::weakest_in_range`] as if the unit stood at `at`.
    pub fn weakest_from(&self, i: usize, at: Tile) -> Vec<usize> {
        let Some(u) = self.units.get(i) else { return Vec::new() };
        let Some(unit) = self.loadout(i, true).and_then(|l| self.engine.unit(&l, &[]).ok()) else { return Vec::new() };
        let can_attack = self.attribute(&unit, "can_attack").is_none_or(|v| v.bool());
        if !unit.must_attack_weakest || !can_attack || !unit.may_use_weapon(&self.engine.ir) {
            return Vec::new();
        }
        let in_range: Vec<(usize, i64)> = self
            .units
            .iter()
            .enumerate()
            .filter(|(_, f)| f.side != u.side && f.state == State::Ready && unit.in_range(distance(at, f.pos)))
            .map(|(k, f)| (k, f.hp))
            .collect();
        let Some(low) = in_range.iter().map(|(_, hp)| *hp).min() else { return Vec::new() };
        in_range.into_iter().filter(|(_, hp)| *hp == low).map(|(k, _)| k).collect()
    }

    /// The tags a unit has of itself: its class's, its current form's (a shifter is transformed
    /// unless it has acted this round) and the scenario's.
    fn own_tags(&self, u: &Combatant) -> Vec<TagUse> {
        let mut uses: Vec<TagUse> = Vec::new();
        if let Some(c) = self.engine.rules.class(&u.class) {
            uses.extend(c.tags.iter().map(|t| (t.tag.clone(), t.args.clone())));
            if let Some(f) = &c.forms {
                let form = if u.reverted { &f.normal } else { &f.transformed };
                uses.extend(form.tags.iter().map(|t| (t.tag.clone(), t.args.clone())));
            }
        }
        uses.extend(u.tags.iter().map(|t| (t.clone(), Vec::new())));
        uses
    }

    /// The special actions a unit has: every `action` of every tag it holds (class, form,
    /// scenario tags, carried items), following `grant`s.
    pub fn actions(&self, i: usize) -> Vec<Available> {
        let Some(u) = self.units.get(i) else { return Vec::new() };
        let rules = &self.engine.rules;
        let uses = self.own_tags(u);
        let mut groups: Vec<(Option<String>, Vec<TagUse>)> = vec![(None, uses)];
        for item in u.items.iter().filter_map(|n| rules.item(n)) {
            // A weapon's actions need it equipped; other items' work from the inventory.
            if item.kind != m::ItemKind::Weapon || u.equipped.as_deref() == Some(item.name.as_str()) {
                groups.push((Some(item.name.clone()), item.tags.iter().map(|t| (t.tag.clone(), t.args.clone())).collect()));
            }
        }
        let mut out = Vec::new();
        for (source, uses) in groups {
            for (effects, params, args) in self.expand(uses) {
                for e in effects {
                    if let m::Effect::Action(action) = e {
                        out.push(Available { action, params: params.clone(), args: args.clone(), source: source.clone() });
                    }
                }
            }
        }
        out
    }

    /// Tag uses with what they `grant`, each with its effects, parameter names and arguments.
    fn expand(&self, mut uses: Vec<(String, Vec<m::Value>)>) -> Vec<Holding> {
        let rules = &self.engine.rules;
        let mut out = Vec::new();
        let mut k = 0;
        while let Some((name, args)) = uses.get(k).cloned() {
            k += 1;
            if k > 256 {
                break;
            }
            let Some(tag) = rules.tag(&name) else { continue };
            let params: Vec<String> = tag.params.iter().map(|p| p.name.clone()).collect();
            for e in &tag.effects {
                if let m::Effect::Grant { tag, args: gargs } = e {
                    uses.push((tag.clone(), gargs.iter().filter_map(|g| const_eval(g, &params, &args)).collect()));
                }
            }
            out.push((tag.effects.clone(), params, args));
        }
        out
    }

    /// Plays one combat turn for the side to act. A turn the rules refuse changes nothing.
    pub fn turn(&mut self, t: Turn) -> Result<(), BattleError> {
        let saved = (
            self.units.clone(),
            self.map.terrain.clone(),
            self.rng.clone(),
            self.seized.clone(),
            self.escaped.clone(),
            self.razed.clone(),
            self.opened_chests.clone(),
            self.log.len(),
            self.tile_hp.clone(),
        );
        let result = self.turn_inner(t);
        if result.is_err() {
            let (units, terrain, rng, seized, escaped, razed, chests, log, tile_hp) = saved;
            self.tile_hp = tile_hp;
            self.units = units;
            self.map.terrain = terrain;
            self.rng = rng;
            self.seized = seized;
            self.escaped = escaped;
            self.razed = razed;
            self.opened_chests = chests;
            self.log.truncate(log);
        }
        result
    }

    fn turn_inner(&mut self, t: Turn) -> Result<(), BattleError> {
        if self.outcome.is_some() {
            return Err(BattleError("the battle is over".into()));
        }
        let i = t.unit;
        let u = self.units.get(i).ok_or_else(|| BattleError(format!("no unit {i}")))?.clone();
        if u.side != self.to_act {
            return Err(BattleError(format!(
                "it is the {}'s activation, and {} is the {}'s",
                self.to_act.word(),
                u.name,
                u.side.word()
            )));
        }
        if u.state != State::Ready || u.activated {
            return Err(BattleError(format!("{} cannot be activated now", u.name)));
        }
        self.run_triggers(i, m::Event::Activated);
        let mut moved = 0;
        if let Some(to) = t.to {
            let reach = self.reachable(i)?;
            let Some(cost) = reach.get(&to).copied() else {
                return Err(BattleError(format!("{} cannot reach {to:?} this turn", u.name)));
            };
            moved = cost;
            if let Some(f) = self.units.get_mut(i) {
                f.pos = to;
            }
        }
        for item in &t.discard {
            let f = self.units.get_mut(i).ok_or_else(|| BattleError(format!("no unit {i}")))?;
            let k =
                f.items.iter().position(|x| x == item).ok_or_else(|| BattleError(format!("{} does not carry {item}", f.name)))?;
            f.items.remove(k);
            if f.equipped.as_deref() == Some(item.as_str()) && !f.items.contains(item) {
                f.equipped = None;
            }
        }
        if let Some(trade) = &t.trade {
            self.trade(i, trade)?;
        }
        if let Some(w) = &t.equip {
            if !u.items.contains(w) {
                return Err(BattleError(format!("{} does not carry {w}", u.name)));
            }
            if let Some(f) = self.units.get_mut(i) {
                f.equipped = Some(w.clone());
            }
        }
        // This turn is the "next turn" of debuffs laid before it: they wear off when it ends.
        if let Some(f) = self.units.get_mut(i) {
            for d in &mut f.debuffs {
                d.armed = true;
            }
        }
        // `must_attack_weakest()`: seed 000, "Unit must attack the unit in range with the lowest Hp."
        let weakest = self.weakest_in_range(i);
        if !weakest.is_empty() {
            let names =
                || weakest.iter().filter_map(|k| self.units.get(*k)).map(|f| f.name.clone()).collect::<Vec<_>>().join(" or ");
            match t.act {
                Act::Attack { target } if weakest.contains(&target) => {}
                Act::Attack { .. } => {
                    return Err(BattleError(format!("{} must attack the unit in range with the lowest HP: {}", u.name, names())))
                }
                _ => return Err(BattleError(format!("{} must attack (the lowest HP in range: {})", u.name, names()))),
            }
        }
        let before: Vec<i64> = self.units.iter().map(|f| f.hp).collect();
        let note = match &t.act {
            Act::Wait => "waits".to_string(),
            Act::Attack { target } => self.attack(i, *target)?,
            Act::Strike { tile } => self.strike(i, *tile)?,
            Act::Special { verb, target, tile } => self.special(i, *verb, *target, *tile)?,
            Act::Use { item, target, tile } => self.use_item(i, item, *target, *tile)?,
        };
        if matches!(t.act, Act::Attack { .. }) {
            self.run_triggers(i, m::Event::AfterAttack);
        }
        if let Some(to) = t.then_to {
            let canto = self
                .loadout(i, true)
                .and_then(|l| self.engine.unit(&l, &[]).ok())
                .and_then(|x| self.attribute(&x, "canto"))
                .is_some_and(|v| v.bool());
            if !canto || matches!(t.act, Act::Attack { .. } | Act::Strike { .. }) {
                return Err(BattleError(format!(
                    "{} cannot move again after acting (only with `canto`, and never after an attack)",
                    u.name
                )));
            }
            let (points, _, _) = self.mobility(i)?;
            let reach = self.reachable_within(i, points - moved)?;
            if !reach.contains_key(&to) {
                return Err(BattleError(format!("{} has {} movement left and cannot reach {to:?}", u.name, points - moved)));
            }
            if let Some(f) = self.units.get_mut(i) {
                f.pos = to;
            }
        }
        if let Some(f) = self.units.get_mut(i) {
            f.activated = true;
        }
        let hp: Vec<(usize, i64)> =
            self.units.iter().enumerate().filter(|(k, f)| before.get(*k) != Some(&f.hp)).map(|(k, f)| (k, f.hp)).collect();
        let routed: Vec<usize> = hp.iter().filter(|(_, h)| *h <= 0).map(|(k, _)| *k).collect();
        for k in &routed {
            if let Some(f) = self.units.get_mut(*k) {
                f.state = State::Routed;
            }
        }
        let newly_routed = routed.clone();
        self.log.push(Record::Turn { round: self.round, turn: t, hp, routed, note });
        // `on routed`: a routed unit's own triggers, once, as it leaves the battle.
        for k in newly_routed {
            self.run_triggers(k, m::Event::Routed);
        }
        self.after_activation(i);
        self.run_triggers(i, m::Event::EndOfTurn);
        self.end_of_turn(i);
        self.check_victory(Some(u.side));
        if self.outcome.is_none() {
            self.advance();
        }
        Ok(())
    }

    fn attack(&mut self, i: usize, target: usize) -> Result<String, BattleError> {
        let (a, d) = (self.units.get(i).cloned(), self.units.get(target).cloned());
        let (Some(a), Some(d)) = (a, d) else { return Err(BattleError("no such unit".into())) };
        if d.side == a.side || d.state != State::Ready {
            return Err(BattleError(format!("{} cannot attack {}", a.name, d.name)));
        }
        let dist = distance(a.pos, d.pos);
        let (Some(la), Some(_)) = (self.loadout(i, true), self.loadout(target, false)) else {
            return Err(BattleError("no such unit".into()));
        };
        let ua = self.engine.unit(&la, &[])?;
        if self.attribute(&ua, "can_attack").is_some_and(|v| !v.bool()) {
            return Err(BattleError(format!("{} cannot attack now (a status forbids it)", a.name)));
        }
        if !ua.in_range(dist) || !ua.may_use_weapon(&self.engine.ir) {
            return Err(BattleError(format!(
                "{} cannot reach {} at distance {dist} with {}",
                a.name,
                d.name,
                a.equipped.as_deref().unwrap_or("no weapon")
            )));
        }
        // The `area_attack` attribute (seed 000: "Hits all targets in range"): after the
        // chosen target, every other ready enemy within reach, each in an exchange of its own
        // (with its counter), nearest first, while the attacker stands.
        let mut targets = vec![target];
        if self.attribute(&ua, "area_attack").is_some_and(|v| v.bool()) {
            let mut others: Vec<(i64, usize)> = self
                .units
                .iter()
                .enumerate()
                .filter(|(k, f)| {
                    *k != target && f.side != a.side && f.state == State::Ready && ua.in_range(distance(a.pos, f.pos))
                })
                .map(|(k, f)| (distance(a.pos, f.pos), k))
                .collect();
            others.sort_unstable();
            targets.extend(others.into_iter().map(|(_, k)| k));
        }
        let mut notes = Vec::new();
        for t in targets {
            if self.units.get(i).is_none_or(|f| f.hp <= 0) {
                break;
            }
            notes.push(self.exchange(i, t)?);
        }
        let spent = a.equipped.as_deref().and_then(|w| self.spend(i, w));
        let spent = spent.map(|n| format!("; {n}")).unwrap_or_default();
        Ok(format!("{} attacks {}{spent}", a.name, notes.join("; attacks ")))
    }

    /// One exchange of an attack: the strikes, hit points, statuses and debuffs; "NAME: strikes".
    fn exchange(&mut self, i: usize, target: usize) -> Result<String, BattleError> {
        self.exchange_with(i, target, 0)
    }

    /// [`Battle::exchange`] with `bonus` added to the attacker's `damage_bonus` (an attack made by an action).
    fn exchange_with(&mut self, i: usize, target: usize, bonus: i64) -> Result<String, BattleError> {
        let (Some(a), Some(d)) = (self.units.get(i).cloned(), self.units.get(target).cloned()) else {
            return Err(BattleError("no such unit".into()));
        };
        let (Some(mut la), Some(ld)) = (self.loadout(i, true), self.loadout(target, false)) else {
            return Err(BattleError("no such unit".into()));
        };
        if bonus != 0 {
            la.debuffs.push(("damage_bonus".to_string(), bonus));
        }
        let exchange = Exchange::new(self.engine, &la, &ld, distance(a.pos, d.pos))?;
        let (log, hp) = exchange.resolve(&mut self.rng);
        if let Some(f) = self.units.get_mut(i) {
            f.hp = hp[0];
        }
        if let Some(f) = self.units.get_mut(target) {
            f.hp = hp[1];
        }
        // Statuses and debuffs a strike inflicted land on the unit struck.
        for s in &log {
            let struck = if s.side == 0 { target } else { i };
            for status in &s.inflicted {
                self.afflict(struck, status);
            }
            for (attr, shift) in &s.debuffed {
                self.debuff(struck, attr, *shift);
            }
        }
        let strikes: Vec<String> = log
            .iter()
            .map(|s| {
                format!(
                    "{} {} {}",
                    s.stage,
                    s.roll,
                    if s.outcome.crit {
                        "crit"
                    } else if s.outcome.hit {
                        "hit"
                    } else {
                        "miss"
                    }
                )
            })
            .collect();
        Ok(format!("{}: {}", d.name, strikes.join(", ")))
    }

    fn trade(&mut self, i: usize, t: &Trade) -> Result<(), BattleError> {
        let room = self.engine.rules.ruleset.inventory as usize;
        let (Some(a), Some(b)) = (self.units.get(i).cloned(), self.units.get(t.with).cloned()) else {
            return Err(BattleError("no such unit to trade with".into()));
        };
        if b.side != a.side || b.state != State::Ready || distance(a.pos, b.pos) != 1 || t.with == i {
            return Err(BattleError(format!("{} can only trade with an adjacent ally", a.name)));
        }
        let mut mine = a.items.clone();
        let mut theirs = b.items.clone();
        if let Some(g) = &t.give {
            let k = mine.iter().position(|x| x == g).ok_or_else(|| BattleError(format!("{} does not carry {g}", a.name)))?;
            theirs.push(mine.remove(k));
        }
        if let Some(g) = &t.take {
            let k = theirs.iter().position(|x| x == g).ok_or_else(|| BattleError(format!("{} does not carry {g}", b.name)))?;
            mine.push(theirs.remove(k));
        }
        if mine.len() > room || theirs.len() > room {
            return Err(BattleError(format!("the trade leaves more than {room} items in one inventory")));
        }
        for (k, items) in [(i, mine), (t.with, theirs)] {
            if let Some(f) = self.units.get_mut(k) {
                if f.equipped.as_ref().is_some_and(|e| !items.contains(e)) {
                    f.equipped = None;
                }
                f.items = items;
            }
        }
        Ok(())
    }

    fn use_item(&mut self, i: usize, item: &str, target: Option<usize>, tile: Option<Tile>) -> Result<String, BattleError> {
        let u = self.units.get(i).cloned().ok_or_else(|| BattleError(format!("no unit {i}")))?;
        if !u.items.iter().any(|x| x == item) {
            return Err(BattleError(format!("{} does not carry {item}", u.name)));
        }
        let it = self.engine.rules.item(item).cloned().ok_or_else(|| BattleError(format!("no item {item}")))?;
        if it.uses.is_empty() {
            return Err(BattleError(format!("{item} has no use of its own")));
        }
        let mut notes = Vec::new();
        for e in &it.uses {
            match e {
                m::Effect::Action(a) => {
                    // The item's own charges are spent once, below.
                    let available = Available { action: a.clone(), params: Vec::new(), args: Vec::new(), source: None };
                    notes.push(self.perform(i, &available, target, tile)?);
                }
                m::Effect::Command { verb, args } => {
                    let pos = self.units.get(i).map_or((0, 0), |f| f.pos);
                    notes.push(format!("{} {}", u.name, self.command(i, *verb, args, target, pos, tile, &[], &[])?));
                }
                _ => {}
            }
        }
        if let Some(note) = self.spend(i, item) {
            notes.push(note);
        }
        Ok(format!("uses {item}: {}", notes.join("; ")))
    }

    /// One use of an item with charges (the value its tags assign to `charges`): after the
    /// last, the item is gone. Returns a note when it is used up.
    fn spend(&mut self, i: usize, item: &str) -> Option<String> {
        let max = self.engine.rules.item(item).and_then(|it| self.charges(it))?;
        let f = self.units.get_mut(i)?;
        let used = match f.spent.iter_mut().find(|(n, _)| n == item) {
            Some(slot) => {
                slot.1 += 1;
                slot.1
            }
            None => {
                f.spent.push((item.to_string(), 1));
                1
            }
        };
        if used < max {
            return None;
        }
        if let Some(k) = f.items.iter().position(|x| x == item) {
            f.items.remove(k);
        }
        f.spent.retain(|(n, _)| n != item);
        if f.equipped.as_deref() == Some(item) && !f.items.iter().any(|x| x == item) {
            f.equipped = None;
        }
        Some(format!("the {item} is used up"))
    }

    /// The uses an item has: the value its tags assign to the `charges` attribute.
    fn charges(&self, item: &m::Item) -> Option<u32> {
        item.tags.iter().find_map(|u| {
            let tag = self.engine.rules.tag(&u.tag)?;
            let params: Vec<String> = tag.params.iter().map(|p| p.name.clone()).collect();
            tag.effects.iter().find_map(|e| match e {
                m::Effect::Modify { place, op: m::AssignOp::Set, value }
                    if place.attribute == m::AttributeRef::Named("charges".into()) =>
                {
                    match const_eval(value, &params, &u.args) {
                        Some(m::Value::Int(n)) => u32::try_from(n).ok(),
                        _ => None,
                    }
                }
                _ => None,
            })
        })
    }

    /// Every tag instance a unit holds now (class and form, scenario tags, equipped weapon,
    /// accessory, statuses), following `grant`s, with its parameter names and arguments.
    fn holdings(&self, i: usize) -> Vec<Holding> {
        let Some(u) = self.units.get(i) else { return Vec::new() };
        let rules = &self.engine.rules;
        let mut uses = self.own_tags(u);
        let accessory = u.items.iter().find(|n| rules.item(n).is_some_and(|it| it.kind == m::ItemKind::Accessory));
        for item in u.equipped.iter().chain(accessory).filter_map(|n| rules.item(n)) {
            uses.extend(item.tags.iter().map(|t| (t.tag.clone(), t.args.clone())));
        }
        let mut out: Vec<Holding> = u
            .statuses
            .iter()
            .filter_map(|a| rules.status(&a.status))
            .map(|st| (st.effects.clone(), Vec::new(), Vec::new()))
            .collect();
        out.extend(self.expand(uses));
        out
    }

    /// Runs a unit's `on EVENT { ... }` effects (an item that heals its bearer on activation, a
    /// weapon that hurts its wielder after an attack). Form changes are the engine's own shifting rule, not run here.
    fn run_triggers(&mut self, i: usize, event: m::Event) {
        let drawn = std::cell::RefCell::new(Vec::new());
        self.run_triggers_drawing(i, event, &drawn);
    }

    /// [`Battle::run_triggers`] with the named dice of this event drawn once, shared by the
    /// caller. `when` conditions inside the effects are evaluated (with the battle's dice), and
    /// only the commands under true conditions run.
    fn run_triggers_drawing(&mut self, i: usize, event: m::Event, drawn: &std::cell::RefCell<Vec<(String, i64)>>) {
        // A routed unit's own `on routed` effects are its last; nothing else runs off the board.
        if !self.on_board(i) && event != m::Event::Routed {
            return;
        }
        let mut todo: Vec<Triggered> = Vec::new();
        let mut dice = std::mem::replace(&mut self.rng, rng(0));
        for (effects, params, args) in self.holdings(i) {
            let ctx = Eval {
                battle: self,
                user: i,
                target: None,
                params: &params,
                args: &args,
                dice: std::cell::RefCell::new(Some(&mut dice)),
                drawn,
            };
            for e in &effects {
                if let m::Effect::On { event: ev, then } = e {
                    if *ev == event {
                        collect_commands(&ctx, then, &params, &args, &mut todo);
                    }
                }
            }
        }
        self.rng = dice;
        for (verb, cargs, params, args) in todo {
            let pos = self.units.get(i).map_or((0, 0), |f| f.pos);
            let note = match self.command(i, verb, &cargs, None, pos, None, &params, &args) {
                Ok(n) => n,
                Err(e) => format!("could not {verb:?}: {e}"),
            };
            self.log.push(Record::Trigger { unit: i, on: event, note });
        }
    }

    fn attribute(&self, unit: &crate::unit::Unit, name: &str) -> Option<V> {
        self.engine.ir.attr_id(name).and_then(|a| unit.attrs.get(a as usize).copied())
    }

    fn afflict(&mut self, i: usize, status: &str) {
        let lasts = self.engine.rules.status(status).and_then(|s| s.lasts).map(|d| match d {
            m::Duration::Activations(n) | m::Duration::Rounds(n) => n,
        });
        let Some(u) = self.units.get_mut(i) else { return };
        if u.state != State::Ready || u.statuses.iter().any(|a| a.status == status) {
            return;
        }
        u.statuses.push(Affliction { status: status.to_string(), left: lasts });
        self.log.push(Record::Affliction { unit: i, status: status.to_string(), change: "inflicted".into() });
    }

    /// The `debuff` verb, after seed 000: "Target unit has their Rating reduced by X on their next turn.
    /// This effect does not stack." Reading: it holds from the hit until the end of the target's
    /// next turn (so in exchanges in between too); a second one on the same rating is ignored.
    fn debuff(&mut self, i: usize, attr: &str, shift: i64) {
        let Some(u) = self.units.get_mut(i) else { return };
        if u.state != State::Ready || u.debuffs.iter().any(|d| d.attr == attr) {
            return;
        }
        u.debuffs.push(Debuff { attr: attr.to_string(), shift, armed: false });
        self.log.push(Record::Affliction { unit: i, status: format!("{attr}{shift:+}"), change: "inflicted".into() });
    }

    fn strike(&mut self, i: usize, tile: Tile) -> Result<String, BattleError> {
        let u = self.units.get(i).cloned().ok_or_else(|| BattleError(format!("no unit {i}")))?;
        let terrain = self.terrain_at(tile).cloned().ok_or_else(|| BattleError(format!("{tile:?} is off the map")))?;
        let override_hp = self.map.destructibles.iter().find(|(t, _)| *t == tile).and_then(|(_, hp)| *hp);
        let full = override_hp.or(terrain.hp.map(i64::from));
        let (Some(full), Some(becomes)) = (full, terrain.becomes.clone().filter(|_| terrain.opened_by.is_empty())) else {
            return Err(BattleError(format!("{} at {tile:?} cannot be destroyed", terrain.name)));
        };
        let l = self.loadout(i, true).ok_or_else(|| BattleError(format!("no unit {i}")))?;
        let damage = self.engine.structure_damage(&l, distance(u.pos, tile))?;
        let left = self.tile_hp.get(&tile).copied().unwrap_or(full) - damage;
        if left <= 0 {
            self.tile_hp.remove(&tile);
            if let Some(slot) = self.map.terrain.get_mut((tile.1 * self.map.width + tile.0) as usize) {
                *slot = becomes.clone();
            }
            Ok(format!("{} strikes the {} at {tile:?} for {damage}: it is {becomes} now", u.name, terrain.name))
        } else {
            self.tile_hp.insert(tile, left);
            Ok(format!("{} strikes the {} at {tile:?} for {damage}: {left} HP left", u.name, terrain.name))
        }
    }

    /// After a unit's action: statuses that last a number of activations count down, and a
    /// shifter that acted returns to its normal form until the next round.
    fn after_activation(&mut self, i: usize) {
        // A shifter is a unit one of whose tags changes form (`shift`); the seed's rule that it
        // stays normal after acting until the next round, even when danced, is applied here.
        let shifter = self.units.get(i).and_then(|u| self.engine.rules.class(&u.class)).is_some_and(|c| c.forms.is_some())
            && self.holdings(i).iter().any(|(effects, _, _)| uses_verb(effects, m::Verb::Shift));
        let by_activation: Vec<String> = self
            .engine
            .rules
            .statuses
            .iter()
            .filter(|s| matches!(s.lasts, Some(m::Duration::Activations(_))))
            .map(|s| s.name.clone())
            .collect();
        let mut worn = Vec::new();
        if let Some(u) = self.units.get_mut(i) {
            for a in &mut u.statuses {
                if by_activation.contains(&a.status) {
                    a.left = a.left.map(|n| n.saturating_sub(1));
                }
            }
            worn = u.statuses.iter().filter(|a| a.left == Some(0)).map(|a| a.status.clone()).collect();
            u.statuses.retain(|a| a.left != Some(0));
            if shifter && u.state == State::Ready {
                u.reverted = true;
            }
        }
        for status in worn {
            self.log.push(Record::Affliction { unit: i, status, change: "wears off".into() });
        }
        if shifter && self.on_board(i) {
            self.log.push(Record::Affliction { unit: i, status: "form".into(), change: "normal until the next round".into() });
        }
    }

    /// Start of a round: round-counted statuses count down, and statuses that clear on a roll
    /// at `start_of_round` roll for it (seed 000: d10, 1-5 it wears off).
    fn start_of_round(&mut self) {
        let mut changes = Vec::new();
        for i in 0..self.units.len() {
            if self.units.get(i).is_none_or(|u| u.state != State::Ready) {
                continue;
            }
            // `on start_of_round` effects, then the statuses' clear rolls, one draw of each named
            // die for both (seed 001's poison: one d20, 1-10 it wears off, 11-20 two damage).
            let drawn = std::cell::RefCell::new(Vec::new());
            self.run_triggers_drawing(i, m::Event::StartOfRound, &drawn);
            let Some(u) = self.units.get(i) else { continue };
            if u.state != State::Ready {
                continue;
            }
            let mut dice = std::mem::replace(&mut self.rng, rng(0));
            let mut keep = Vec::new();
            for a in u.statuses.clone() {
                let status = self.engine.rules.status(&a.status);
                let mut left = a.left;
                if matches!(status.and_then(|s| s.lasts), Some(m::Duration::Rounds(_))) {
                    left = left.map(|n| n.saturating_sub(1));
                }
                let mut cleared = left == Some(0);
                for c in status.map(|s| s.clears.as_slice()).unwrap_or(&[]) {
                    if c.event == m::Event::StartOfRound && !cleared {
                        cleared = match &c.condition {
                            None => true,
                            Some(e) => {
                                let ctx = Eval {
                                    battle: self,
                                    user: i,
                                    target: None,
                                    params: &[],
                                    args: &[],
                                    dice: std::cell::RefCell::new(Some(&mut dice)),
                                    drawn: &drawn,
                                };
                                ctx.bool(e).unwrap_or(false)
                            }
                        };
                    }
                }
                if cleared {
                    changes.push((i, a.status.clone()));
                } else {
                    keep.push(Affliction { status: a.status, left });
                }
            }
            self.rng = dice;
            if let Some(u) = self.units.get_mut(i) {
                u.statuses = keep;
            }
        }
        for (i, status) in changes {
            self.log.push(Record::Affliction { unit: i, status, change: "wears off".into() });
        }
    }

    fn special(&mut self, i: usize, verb: m::Verb, target: Option<usize>, tile: Option<Tile>) -> Result<String, BattleError> {
        let u = self.units.get(i).cloned().ok_or_else(|| BattleError(format!("no unit {i}")))?;
        let available = self.actions(i);
        let Some(a) = available.into_iter().find(|a| a.verb() == Some(verb)) else {
            return Err(BattleError(format!("{} has no action that can {verb:?}", u.name)));
        };
        self.perform(i, &a, target, tile)
    }

    /// Carries out an action block: checks its target kind, range and requirements, then runs
    /// its commands.
    fn perform(&mut self, i: usize, a: &Available, target: Option<usize>, tile: Option<Tile>) -> Result<String, BattleError> {
        let u = self.units.get(i).cloned().ok_or_else(|| BattleError(format!("no unit {i}")))?;
        let verb = a.verb().unwrap_or(m::Verb::Reveal);
        // Range and target kind.
        let (spot, target_unit) = match a.action.target {
            m::ActionTarget::Tile | m::ActionTarget::Door | m::ActionTarget::Chest => (tile.unwrap_or(u.pos), None),
            m::ActionTarget::SelfOnly => (u.pos, Some(i)),
            _ => {
                let t = target.ok_or_else(|| BattleError(format!("{verb:?} needs a target unit")))?;
                let f = self.units.get(t).ok_or_else(|| BattleError(format!("no unit {t}")))?;
                let ok = match a.action.target {
                    m::ActionTarget::Ally => f.side == u.side && t != i,
                    m::ActionTarget::Enemy => f.side != u.side,
                    _ => true,
                };
                if !ok || f.state != State::Ready {
                    return Err(BattleError(format!("{} cannot target {}", u.name, f.name)));
                }
                (f.pos, Some(t))
            }
        };
        let dist = distance(u.pos, spot);
        let drawn = std::cell::RefCell::new(Vec::new());
        let ctx = Eval {
            battle: self,
            user: i,
            target: target_unit,
            params: &a.params,
            args: &a.args,
            dice: std::cell::RefCell::new(None),
            drawn: &drawn,
        };
        let lo = a.action.min_range.as_ref().map_or(Some(0), |e| ctx.int(e)).unwrap_or(0);
        let hi = a.action.max_range.as_ref().map_or(Some(lo), |e| ctx.int(e)).unwrap_or(lo);
        if dist < lo || dist > hi {
            return Err(BattleError(format!(
                "{} is {dist} tiles away; {verb:?} reaches {lo}..{hi}",
                if target_unit.is_some() { "the target" } else { "the tile" }
            )));
        }
        for r in &a.action.requires {
            if !ctx.bool(r).unwrap_or(false) {
                return Err(BattleError(format!("{} cannot {verb:?} now: a requirement of the action is not met", u.name)));
            }
        }
        let mut notes = Vec::new();
        let effects = a.action.effects.clone();
        let (params, args) = (a.params.clone(), a.args.clone());
        for e in &effects {
            let m::Effect::Command { verb, args: cargs } = e else { continue };
            notes.push(self.command(i, *verb, cargs, target_unit, spot, tile, &params, &args)?);
        }
        if let Some(note) = a.source.as_deref().and_then(|item| self.spend(i, item)) {
            notes.push(note);
        }
        Ok(format!("{} {}", u.name, notes.join("; ")))
    }

    #[allow(clippy::too_many_arguments)]
    fn command(
        &mut self,
        i: usize,
        verb: m::Verb,
        cargs: &[m::Expr],
        target: Option<usize>,
        spot: Tile,
        dest: Option<Tile>,
        params: &[String],
        args: &[m::Value],
    ) -> Result<String, BattleError> {
        // The unit a command names in its first argument (`self`, `target`).
        let unit_arg = |k: usize| -> Option<usize> {
            match cargs.get(k) {
                Some(m::Expr::Unit(m::UnitRef::Holder | m::UnitRef::Attacker)) => Some(i),
                Some(m::Expr::Unit(_)) => target,
                _ => None,
            }
        };
        let side = self.units.get(i).map_or(m::SideId::Attacker, |u| u.side);
        let region_of = |b: &Battle, kind: &str| -> Option<String> {
            b.map
                .regions
                .iter()
                .find(|r| r.kind == kind && r.tiles.contains(&spot) && r.side.is_none_or(|s| s == side))
                .map(|r| r.name.clone())
        };
        let amount = |b: &Battle, k: usize| -> Option<i64> {
            let drawn = std::cell::RefCell::new(Vec::new());
            let ctx = Eval { battle: b, user: i, target, params, args, dice: std::cell::RefCell::new(None), drawn: &drawn };
            cargs.get(k).and_then(|e| ctx.int(e))
        };
        match verb {
            m::Verb::Seize => {
                let region = region_of(self, "seize")
                    .ok_or_else(|| BattleError("seizing is only possible on the scenario's seize tiles".into()))?;
                self.seized = Some((side, region.clone()));
                Ok(format!("seizes {region}"))
            }
            m::Verb::Escape => {
                let region = region_of(self, "escape")
                    .ok_or_else(|| BattleError("escaping is only possible on the scenario's escape tiles".into()))?;
                if let Some(f) = self.units.get_mut(i) {
                    f.state = State::Escaped;
                }
                self.escaped.push((side, region.clone()));
                Ok(format!("escapes through {region}"))
            }
            m::Verb::Raze => {
                let region = region_of(self, "raze")
                    .ok_or_else(|| BattleError("razing is only possible on the scenario's raze tiles".into()))?;
                if self.razed.iter().any(|(_, _, t)| *t == spot) {
                    return Err(BattleError("this tile is already razed".into()));
                }
                let into = cargs.first().and_then(|e| const_eval(e, params, args)).and_then(|v| {
                    if let m::Value::Name { name, .. } = v {
                        Some(name)
                    } else {
                        None
                    }
                });
                if let Some(slot) = self.map.terrain.get_mut((spot.1 * self.map.width + spot.0) as usize) {
                    if let Some(into) = into {
                        *slot = into;
                    }
                }
                self.razed.push((side, region.clone(), spot));
                Ok(format!("razes {spot:?} in {region}"))
            }
            m::Verb::Open => {
                let terrain = self.terrain_at(spot).cloned().ok_or_else(|| BattleError("nothing to open there".into()))?;
                let into = terrain
                    .becomes
                    .clone()
                    .filter(|_| !terrain.opened_by.is_empty())
                    .ok_or_else(|| BattleError(format!("{} cannot be opened", terrain.name)))?;
                if let Some(slot) = self.map.terrain.get_mut((spot.1 * self.map.width + spot.0) as usize) {
                    *slot = into.clone();
                }
                Ok(format!("opens the {} at {spot:?}: it is {into} now", terrain.name))
            }
            m::Verb::TakeChest => {
                let (at, item) = self
                    .map
                    .chests
                    .iter()
                    .find(|(t, _)| *t == spot)
                    .cloned()
                    .ok_or_else(|| BattleError("there is no chest here".into()))?;
                if !self.opened_chests.insert(at) {
                    return Err(BattleError("the chest is empty".into()));
                }
                let room = self.engine.rules.ruleset.inventory as usize;
                match self.units.get_mut(i) {
                    Some(f) if f.items.len() < room => {
                        f.items.push(item.clone());
                        Ok(format!("takes {item} from the chest"))
                    }
                    _ => {
                        self.opened_chests.remove(&at);
                        Err(BattleError("the inventory is full".into()))
                    }
                }
            }
            m::Verb::Heal => {
                let who = unit_arg(0).or(target).unwrap_or(i);
                let n = amount(self, 1)
                    .or_else(|| amount(self, 0))
                    .ok_or_else(|| BattleError("the amount to heal could not be worked out from the rules".into()))?
                    .max(0);
                let f = self.units.get_mut(who).ok_or_else(|| BattleError("no target".into()))?;
                let before = f.hp;
                f.hp = f.hp.saturating_add(n).min(f.max_hp);
                Ok(format!("heals {} for {}", f.name, f.hp.saturating_sub(before)))
            }
            m::Verb::Reactivate => {
                let who = target.ok_or_else(|| BattleError("no target".into()))?;
                let f = self.units.get_mut(who).ok_or_else(|| BattleError("no target".into()))?;
                f.activated = false;
                Ok(format!("lets {} act again", f.name))
            }
            m::Verb::Cure => {
                let who = unit_arg(0).or(target).unwrap_or(i);
                let f = self.units.get_mut(who).ok_or_else(|| BattleError("no target".into()))?;
                let gone: Vec<String> = f.statuses.drain(..).map(|a| a.status).collect();
                let name = f.name.clone();
                for status in &gone {
                    self.log.push(Record::Affliction { unit: who, status: status.clone(), change: "cured".into() });
                }
                Ok(if gone.is_empty() {
                    format!("finds nothing to cure on {name}")
                } else {
                    format!("cures {name} of {}", gone.join(", "))
                })
            }
            m::Verb::Damage => {
                let who = unit_arg(0).unwrap_or(i);
                let n = amount(self, 1)
                    .ok_or_else(|| BattleError("the damage could not be worked out from the rules".into()))?
                    .max(0);
                let f = self.units.get_mut(who).ok_or_else(|| BattleError("no target".into()))?;
                let was_ready = f.state == State::Ready;
                f.hp = f.hp.saturating_sub(n).max(0);
                if f.hp == 0 {
                    f.state = State::Routed;
                }
                let note = format!("deals {n} damage to {}{}", f.name, if f.hp == 0 { ", routing them" } else { "" });
                // A unit routed by a command's damage (a status's or an item's) gets its `on routed` too.
                if was_ready && self.units.get(who).is_some_and(|f| f.state == State::Routed) {
                    self.run_triggers(who, m::Event::Routed);
                }
                Ok(note)
            }
            m::Verb::Inflict => {
                let who = unit_arg(0).or(target).unwrap_or(i);
                let status = cargs.get(1).and_then(|e| const_eval(e, params, args)).and_then(|v| {
                    if let m::Value::Name { name, .. } = v {
                        Some(name)
                    } else {
                        None
                    }
                });
                let status = status.ok_or_else(|| BattleError("inflict names no status".into()))?;
                self.afflict(who, &status);
                Ok(format!("inflicts {status}"))
            }
            m::Verb::Relocate => {
                let who = unit_arg(0).or(target).ok_or_else(|| BattleError("relocate needs a unit".into()))?;
                let to = dest
                    .filter(|d| Some(*d) != self.units.get(who).map(|f| f.pos))
                    .ok_or_else(|| BattleError("say where to move the target (the action's tile)".into()))?;
                let reach = amount(self, 1)
                    .ok_or_else(|| BattleError("the reach of the move could not be worked out from the rules".into()))?;
                let from = self.units.get(i).map_or(to, |f| f.pos);
                let kind = self.movement_type(who).unwrap_or_default();
                let open = self.terrain_at(to).and_then(|t| t.costs.get(&kind).copied().flatten()).is_some();
                if distance(from, to) > reach || !open || self.occupant(to).is_some() {
                    return Err(BattleError(format!("{to:?} is not a free tile within {reach} of the user")));
                }
                let f = self.units.get_mut(who).ok_or_else(|| BattleError("no target".into()))?;
                f.pos = to;
                Ok(format!("moves {} to {to:?}", f.name))
            }
            m::Verb::Reveal => Ok("lights the area (this engine plays without fog of war, so it changes nothing)".to_string()),
            // Seed 001: "a type of Special Action that acts as an attack". An exchange with
            // the target (its counter included) using the user's weapon, the second argument
            // added to the user's `damage_bonus` (the attribute the damage formulas read); the
            // action's own `target ... within` gives the reach.
            m::Verb::Attack => {
                let who = unit_arg(0).or(target).ok_or_else(|| BattleError("attack needs a target unit".into()))?;
                let bonus = match cargs.get(1) {
                    Some(_) => {
                        amount(self, 1).ok_or_else(|| BattleError("the attack's extra damage could not be worked out".into()))?
                    }
                    None => 0,
                };
                if self.units.get(who).is_none_or(|f| f.side == side || f.state != State::Ready) {
                    return Err(BattleError("an attack needs an enemy in the battle".into()));
                }
                let note = self.exchange_with(i, who, bonus)?;
                Ok(format!("attacks {note}"))
            }
            other => Err(BattleError(format!("the battle engine does not perform `{other:?}` in actions yet"))),
        }
    }

    /// End of a unit's turn: terrain that heals at `end_of_turn` heals it.
    fn end_of_turn(&mut self, i: usize) {
        if let Some(f) = self.units.get_mut(i) {
            let worn: Vec<Debuff> = f.debuffs.iter().filter(|d| d.armed).cloned().collect();
            f.debuffs.retain(|d| !d.armed);
            for d in worn {
                self.log.push(Record::Affliction {
                    unit: i,
                    status: format!("{}{:+}", d.attr, d.shift),
                    change: "wears off".into(),
                });
            }
        }
        let Some(u) = self.units.get(i) else { return };
        if u.state != State::Ready {
            return;
        }
        let heal = self.terrain_at(u.pos).and_then(|t| t.heal.clone()).filter(|h| h.event == m::Event::EndOfTurn);
        if let Some(h) = heal {
            if let Some(f) = self.units.get_mut(i) {
                let before = f.hp;
                f.hp = f.hp.saturating_add(h.amount).min(f.max_hp);
                if f.hp != before {
                    let (amount, hp) = (f.hp.saturating_sub(before), f.hp);
                    self.log.push(Record::Recover { unit: i, amount, hp });
                }
            }
        }
    }

    /// The next activation: the other side if it has units waiting, else this side; a new round
    /// when nobody has.
    fn advance(&mut self) {
        let side = self.to_act;
        if self.finished_first.is_none()
            && self.waiting(side).is_empty()
            && !self.units.iter().all(|u| u.side != side || u.state != State::Ready)
        {
            self.finished_first = Some(side);
        }
        let other = side.other();
        if !self.waiting(other).is_empty() {
            self.to_act = other;
        } else if !self.waiting(side).is_empty() {
            self.to_act = side;
        } else {
            self.end_round();
        }
    }

    fn end_round(&mut self) {
        // `on end_of_round`: every unit still in the battle, in order.
        for i in 0..self.units.len() {
            self.run_triggers(i, m::Event::EndOfRound);
        }
        // Regions held: no enemy of the holder on any of their tiles at the round's end.
        for r in self.map.regions.clone() {
            for side in [m::SideId::Attacker, m::SideId::Defender] {
                let enemy_on = self.units.iter().any(|u| u.side != side && u.state == State::Ready && r.tiles.contains(&u.pos));
                let entry = self.held.entry((side, r.name.clone())).or_insert(0);
                *entry = if enemy_on { 0 } else { *entry + 1 };
            }
        }
        self.check_victory(None);
        if self.outcome.is_some() {
            return;
        }
        if self.scenario.rounds.is_some_and(|limit| self.round >= limit) {
            let outcome = self.scenario.on_time_limit;
            self.finish(outcome, "the time limit ran out".to_string());
            return;
        }
        // The side that finished activating first leads the next round (seed 000, Rounds).
        let first = self.finished_first.unwrap_or(self.first);
        self.round += 1;
        self.first = first;
        self.finished_first = None;
        for u in &mut self.units {
            u.activated = false;
            u.reverted = false;
        }
        self.log.push(Record::Round { round: self.round, first });
        self.start_of_round();
        self.to_act = if self.waiting(first).is_empty() { first.other() } else { first };
        if self.waiting(m::SideId::Attacker).is_empty() && self.waiting(m::SideId::Defender).is_empty() {
            self.finish(m::Outcome::Draw, "no unit is left on the battlefield".to_string());
        }
    }

    pub fn finish(&mut self, outcome: m::Outcome, reason: String) {
        self.log.push(Record::End { round: self.round, outcome, reason: reason.clone() });
        self.outcome = Some((outcome, reason));
    }

    /// Checks both sides' conditions; the acting side is checked first.
    fn check_victory(&mut self, acting: Option<m::SideId>) {
        let order = match acting {
            Some(m::SideId::Defender) => [m::SideId::Defender, m::SideId::Attacker],
            _ => [m::SideId::Attacker, m::SideId::Defender],
        };
        for side in order {
            if let Some(c) = self.scenario.side(side).win.clone() {
                if self.holds(&c, side) {
                    self.finish(m::Outcome::Win(side), c.text());
                    return;
                }
            }
        }
    }

    /// The engine's predicate for a victory condition (the same data `Condition::text` reads).
    pub fn holds(&self, c: &m::Condition, side: m::SideId) -> bool {
        let enemies = || self.units.iter().filter(move |u| u.side != side);
        let routed = || enemies().filter(|u| u.state == State::Routed);
        let leader = |u: &Combatant| {
            u.tags.iter().any(|t| self.grants_verb(t, m::Verb::Seize))
                || self
                    .engine
                    .rules
                    .class(&u.class)
                    .is_some_and(|c| c.tags.iter().any(|t| self.grants_verb(&t.tag, m::Verb::Seize)))
        };
        match c {
            m::Condition::Seize { region } => self.seized.as_ref().is_some_and(|(s, r)| *s == side && r == region),
            m::Condition::RoutAll => enemies().all(|u| u.state != State::Ready) && routed().count() > 0,
            m::Condition::RoutCount { count } => routed().count() as u32 >= *count,
            m::Condition::RoutLeader => routed().any(leader),
            m::Condition::RoutUnit { unit } => routed().any(|u| u.name == *unit),
            m::Condition::Escape { count, region } => {
                self.escaped.iter().filter(|(s, r)| *s == side && r == region).count() as u32 >= *count
            }
            m::Condition::Defend { region, rounds } => self.held.get(&(side, region.clone())).is_some_and(|n| n >= rounds),
            m::Condition::Survive { rounds } => {
                self.round >= *rounds
                    && self.outcome.is_none()
                    && self.units.iter().any(|u| u.side == side && u.state == State::Ready)
                    && self.finished_round(*rounds)
            }
            m::Condition::Raze { count, region } => {
                self.razed.iter().filter(|(s, r, _)| *s == side && r == region).count() as u32 >= *count
            }
            m::Condition::And(a, b) => self.holds(a, side) && self.holds(b, side),
            m::Condition::Or(a, b) => self.holds(a, side) || self.holds(b, side),
            m::Condition::Not(a) => !self.holds(a, side),
        }
    }

    /// Whether round `n` has been played to its end (checked at the end of a round).
    fn finished_round(&self, n: u32) -> bool {
        self.round > n
            || (self.round == n && self.waiting(m::SideId::Attacker).is_empty() && self.waiting(m::SideId::Defender).is_empty())
    }

    /// Whether a tag (or what it grants) has an action performing `verb`.
    pub fn grants_verb(&self, tag: &str, verb: m::Verb) -> bool {
        fn go(rules: &m::Rules, tag: &str, verb: m::Verb, depth: u32) -> bool {
            let Some(t) = rules.tag(tag) else { return false };
            depth < 16
                && t.effects.iter().any(|e| match e {
                    m::Effect::Action(a) => {
                        a.effects.iter().any(|x| matches!(x, m::Effect::Command { verb: v, .. } if *v == verb))
                    }
                    m::Effect::Grant { tag, .. } => go(rules, tag, verb, depth + 1),
                    _ => false,
                })
        }
        go(&self.engine.rules, tag, verb, 0)
    }
}

/// The commands of triggered effects whose `when` conditions hold, in order.
fn collect_commands(ctx: &Eval, effects: &[m::Effect], params: &[String], args: &[m::Value], out: &mut Vec<Triggered>) {
    for e in effects {
        match e {
            m::Effect::Command { verb, args: cargs } if *verb != m::Verb::Shift => {
                out.push((*verb, cargs.clone(), params.to_vec(), args.to_vec()));
            }
            m::Effect::When { condition, then } if ctx.bool(condition).unwrap_or(false) => {
                collect_commands(ctx, then, params, args, out);
            }
            _ => {}
        }
    }
}

/// Evaluates action arguments and requirements: constants, tag parameters, arithmetic and
/// comparisons, and the attributes and weapon of the user (`self`) and the target.
struct Eval<'a, 'e> {
    battle: &'a Battle<'e>,
    user: usize,
    target: Option<usize>,
    params: &'a [String],
    args: &'a [m::Value],
    /// Dice for `roll(dN)` (status clears); `None` where nothing may be rolled.
    dice: std::cell::RefCell<Option<&'a mut ChaCha8Rng>>,
    /// Named dice drawn so far in this event: every `roll(NAME)` of one event reads one draw
    /// (a status's start-of-round clear and its start-of-round damage share one d20 roll).
    drawn: &'a std::cell::RefCell<Vec<(String, i64)>>,
}

impl Eval<'_, '_> {
    fn unit_of(&self, r: m::UnitRef) -> Option<usize> {
        match r {
            m::UnitRef::Holder | m::UnitRef::Attacker => Some(self.user),
            m::UnitRef::Target | m::UnitRef::Foe | m::UnitRef::Defender => self.target,
        }
    }

    fn value(&self, e: &m::Expr) -> Option<i64> {
        match e {
            m::Expr::Const(m::Value::Int(n)) => Some(*n),
            m::Expr::Const(m::Value::Bool(b)) => Some(i64::from(*b)),
            m::Expr::Param(p) => match self.params.iter().position(|x| x == p).and_then(|i| self.args.get(i)) {
                Some(m::Value::Int(n)) => Some(*n),
                Some(m::Value::Bool(b)) => Some(i64::from(*b)),
                _ => None,
            },
            m::Expr::Attribute { unit, name } => {
                let i = self.unit_of(*unit)?;
                let l = self.battle.loadout(i, i == self.user)?;
                let u = self.battle.engine.unit(&l, &[]).ok()?;
                let a = self.battle.engine.ir.attr_id(name)?;
                if Some(a) == Some(self.battle.engine.ir.hp_attr) {
                    return self.battle.units.get(i).map(|f| f.hp);
                }
                u.attrs.get(a as usize).map(|v| v.int())
            }
            m::Expr::Weapon { unit, property } => {
                let i = self.unit_of(*unit)?;
                let l = self.battle.loadout(i, i == self.user)?;
                let u = self.battle.engine.unit(&l, &[]).ok()?;
                match property.as_str() {
                    "max_range" => Some(u.max_range),
                    "min_range" => Some(u.min_range),
                    "might" => Some(u.might),
                    "weight" => Some(u.weight),
                    _ => None,
                }
            }
            m::Expr::Lookup { table, args } => {
                let rules = &self.battle.engine.rules;
                let t = rules.ruleset.tables.iter().find(|x| x.name == *table)?;
                let steps: Vec<usize> =
                    args.iter().map(|a| self.value(a).and_then(|v| usize::try_from(v).ok())).collect::<Option<_>>()?;
                match t.get(&rules.ruleset, &steps)? {
                    m::Value::Int(n) => Some(*n),
                    m::Value::Bool(b) => Some(i64::from(*b)),
                    m::Value::Step { index, .. } => Some(i64::from(*index)),
                    _ => None,
                }
            }
            m::Expr::RollFresh { shape } => {
                let mut dice = self.dice.borrow_mut();
                dice.as_mut().map(|r| crate::dice::roll(r, shape))
            }
            // Outside a strike there is no struck unit: the compiler accepts `roll(NAME)` only.
            m::Expr::Roll { die, .. } => {
                if let Some((_, v)) = self.drawn.borrow().iter().find(|(d, _)| d == die) {
                    return Some(*v);
                }
                let shape = &self.battle.engine.rules.ruleset.dice.iter().find(|d| d.name == *die)?.shape;
                let v = {
                    let mut dice = self.dice.borrow_mut();
                    crate::dice::roll(dice.as_mut()?, shape)
                };
                self.drawn.borrow_mut().push((die.clone(), v));
                Some(v)
            }
            m::Expr::Activated(r) => self.battle.units.get(self.unit_of(*r)?).map(|f| i64::from(f.activated)),
            m::Expr::Unary { op: m::UnaryOp::Neg, expr } => self.value(expr).map(i64::saturating_neg),
            m::Expr::Unary { op: m::UnaryOp::Not, expr } => self.value(expr).map(|v| i64::from(v == 0)),
            m::Expr::Binary { op, lhs, rhs, .. } => {
                let (a, b) = (self.value(lhs)?, self.value(rhs)?);
                Some(match op {
                    m::BinaryOp::Add => a.saturating_add(b),
                    m::BinaryOp::Sub => a.saturating_sub(b),
                    m::BinaryOp::Mul => a.saturating_mul(b),
                    m::BinaryOp::Div => a.checked_div(b)?,
                    m::BinaryOp::Rem => a.checked_rem(b)?,
                    m::BinaryOp::Eq => i64::from(a == b),
                    m::BinaryOp::Ne => i64::from(a != b),
                    m::BinaryOp::Lt => i64::from(a < b),
                    m::BinaryOp::Le => i64::from(a <= b),
                    m::BinaryOp::Gt => i64::from(a > b),
                    m::BinaryOp::Ge => i64::from(a >= b),
                    m::BinaryOp::And => i64::from(a != 0 && b != 0),
                    m::BinaryOp::Or => i64::from(a != 0 || b != 0),
                })
            }
            m::Expr::If { condition, then, otherwise } => {
                if self.value(condition)? != 0 {
                    self.value(then)
                } else {
                    self.value(otherwise)
                }
            }
            m::Expr::Call { function, args } => {
                let v: Vec<i64> = args.iter().map(|a| self.value(a)).collect::<Option<_>>()?;
                match (function, v.as_slice()) {
                    (m::Function::Min, [a, b]) => Some(*a.min(b)),
                    (m::Function::Max, [a, b]) => Some(*a.max(b)),
                    (m::Function::Abs, [a]) => Some(a.saturating_abs()),
                    (m::Function::Clamp, [x, lo, hi]) => Some((*x).max(*lo).min((*hi).max(*lo))),
                    _ => None,
                }
            }
            m::Expr::Has { unit, tag, args } => {
                let u = self.combat_unit(*unit)?;
                let id = self.battle.engine.ir.name_id(tag)?;
                let values: Vec<V> = args
                    .iter()
                    .map(|a| match a {
                        m::Expr::Const(m::Value::Int(n)) => Some(V::Int(*n)),
                        m::Expr::Const(m::Value::Bool(b)) => Some(V::Bool(*b)),
                        other => self.value(other).map(V::Int),
                    })
                    .collect::<Option<_>>()?;
                Some(i64::from(
                    u.has.iter().any(|h| h.tag == id && h.args == values) || (args.is_empty() && u.statuses.contains(&id)),
                ))
            }
            m::Expr::HasParam { unit, param } => {
                let u = self.combat_unit(*unit)?;
                let name = match self.params.iter().position(|x| x == param).and_then(|i| self.args.get(i)) {
                    Some(m::Value::Name { name, .. }) => name,
                    _ => return None,
                };
                let Some(id) = self.battle.engine.ir.name_id(name) else { return Some(0) };
                Some(i64::from(u.has.iter().any(|h| h.tag == id) || u.statuses.contains(&id)))
            }
            _ => None,
        }
    }

    /// A unit of the battle as combat sees it (tags, statuses, equipped items).
    fn combat_unit(&self, r: m::UnitRef) -> Option<crate::unit::Unit> {
        let i = self.unit_of(r)?;
        let l = self.battle.loadout(i, i == self.user)?;
        self.battle.engine.unit(&l, &[]).ok()
    }

    fn int(&self, e: &m::Expr) -> Option<i64> {
        self.value(e)
    }

    fn bool(&self, e: &m::Expr) -> Option<bool> {
        self.value(e).map(|v| v != 0)
    }
}

/// A constant argument: a literal, or a tag parameter.
fn const_eval(e: &m::Expr, params: &[String], args: &[m::Value]) -> Option<m::Value> {
    match e {
        m::Expr::Const(v) => Some(v.clone()),
        m::Expr::Param(p) => params.iter().position(|x| x == p).and_then(|i| args.get(i)).cloned(),
        _ => None,
    }
}

/// How one game ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameResult {
    pub outcome: m::Outcome,
    pub rounds: u32,
    /// Units routed on each side: [attacker, defender].
    pub lost: [u32; 2],
    pub reason: String,
}

/// Rounds a scenario without a time limit may last before the game is called a draw.
pub const ROUND_CAP: u32 = 40;

/// Deployment tiles for an army: the zone's passable tiles nearest the enemy's zone, in order.
pub fn auto_deploy(engine: &Engine, scenario: &m::Scenario, map: &m::BattleMap, side: m::SideId, count: usize) -> Vec<Tile> {
    let zone = map.region(&scenario.side(side).zone).map(|r| r.tiles.clone()).unwrap_or_default();
    let enemy = map.region(&scenario.side(side.other()).zone).map(|r| r.tiles.clone()).unwrap_or_default();
    let centre = if enemy.is_empty() {
        (map.width / 2, map.height / 2)
    } else {
        (enemy.iter().map(|t| t.0).sum::<i64>() / enemy.len() as i64, enemy.iter().map(|t| t.1).sum::<i64>() / enemy.len() as i64)
    };
    let passable = |t: &Tile| {
        map.terrain
            .get((t.1 * map.width + t.0) as usize)
            .and_then(|n| engine.rules.terrain(n))
            .is_some_and(|tr| tr.costs.values().any(Option::is_some))
    };
    let mut tiles: Vec<Tile> = zone.into_iter().filter(passable).collect();
    tiles.sort_by_key(|t| (distance(*t, centre), *t));
    tiles.truncate(count);
    tiles
}

/// Plays a whole game with the AI on both sides.
pub fn play(
    engine: &Engine,
    scenario: &m::Scenario,
    map: &m::BattleMap,
    armies: [&m::Army; 2],
    seed: u64,
) -> Result<(GameResult, Vec<Record>), BattleError> {
    let a = auto_deploy(engine, scenario, map, m::SideId::Attacker, armies[0].units.len());
    let d = auto_deploy(engine, scenario, map, m::SideId::Defender, armies[1].units.len());
    let mut battle = Battle::new(engine, scenario, map, armies, [&a, &d], seed)?;
    let cap = scenario.rounds.unwrap_or(ROUND_CAP);
    let mut guard = 0u32;
    while battle.outcome.is_none() {
        guard += 1;
        if battle.round > cap || guard > 100_000 {
            battle.finish(m::Outcome::Draw, format!("no result after {cap} rounds"));
            break;
        }
        let Some(turn) = crate::ai::choose(&battle) else {
            battle.finish(m::Outcome::Draw, "nobody can act".to_string());
            break;
        };
        let unit = turn.unit;
        if battle.turn(turn).is_err() {
            // The AI proposed something the rules refuse: the unit waits instead, or, where it
            // must attack the weakest, attacks the weakest in range from where it stands.
            let forced = battle.weakest_in_range(unit).first().map(|k| Turn {
                unit,
                act: Act::Attack { target: *k },
                ..Default::default()
            });
            match forced {
                Some(attack) => battle.turn(attack)?,
                None => battle.turn(Turn { unit, ..Default::default() })?,
            }
        }
    }
    let lost = [m::SideId::Attacker, m::SideId::Defender]
        .map(|s| battle.units.iter().filter(|u| u.side == s && u.state == State::Routed).count() as u32);
    let (outcome, reason) = battle.outcome.clone().unwrap_or((m::Outcome::Draw, String::new()));
    Ok((GameResult { outcome, rounds: battle.round, lost, reason }, battle.log))
}

/// A tag by name with its arguments.
type TagUse = (String, Vec<m::Value>);

/// Effects held through one tag or status, with the tag's parameter names and arguments.
type Holding = (Vec<m::Effect>, Vec<String>, Vec<m::Value>);

/// A command to run from a trigger, with its tag's parameter names and arguments.
type Triggered = (m::Verb, Vec<m::Expr>, Vec<String>, Vec<m::Value>);

fn uses_verb(effects: &[m::Effect], verb: m::Verb) -> bool {
    effects.iter().any(|e| match e {
        m::Effect::Command { verb: v, .. } => *v == verb,
        m::Effect::On { then, .. } | m::Effect::When { then, .. } => uses_verb(then, verb),
        m::Effect::Action(a) => uses_verb(&a.effects, verb),
        _ => false,
    })
}
