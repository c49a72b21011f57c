//! The AIs: [`Controller`]s that play a battle for one side or both, by name.
//!
//! - `planner` (the default, [`Planner`]): the tactician, but where material decides the battle
//!   (a side free to wait, at most a dozen units standing), and under fog where `searcher`
//!   searches (at most a dozen units), its best few turns are each played ahead on copies of the
//!   battle, with `greedy` as the playout policy (without fog, where activations are paid in
//!   steps, its own turns the tactician's: `planner::paid_in_steps`), and the one whose copies
//!   end worth most is played. Elsewhere it plays as the tactician, move for move.
//! - `searcher` ([`Planner::wide`]): the planner searching also where tiles are at stake, for the
//!   side that stops the enemy taking them (the copies valued by the scenario's conditions: a
//!   decided copy worth the battle, the race for every tile objective against the clock), under
//!   fog (over what its side has seen) and with any number of units (fewer copies as their
//!   figures grow);
//!   without fog also for a side that must take ground, its playouts playing that side's turns
//!   as the tactician (under fog such a side plays as the tactician). Not the default: it shifts
//!   the shipped scenarios' balance and costs 5-25x the tactician there. Against the tactician
//!   (`oc tournament --as-written scenarios --ais searcher tactician --games 400 --seed 11`) it
//!   is stronger on 15 of the 28 sides and even on 13, in about five times the default's wall
//!   time (295 s against 52 s). Its keepers at the Elder Hall, whose copies play their own
//!   steps as the tactician too (`planner::paid_in_steps`), let the tactician's raiders win
//!   30.8% (40.8% against the tactician's keepers; 49.2% with greedy's own steps, weaker), for
//!   about half again the CPU (400 games: 45 s -> 65 s). As the default, `oc fairness
//!   scenarios --games 100 --seed 1` took 50.6 s instead of 8.0 s. A smaller budget where tiles
//!   are at stake without fog buys less strength and still costs too much (copies, turns deep and candidates, against the
//!   full 16, 4 and 3; sides stronger than the tactician of 28, `--games 100`, and the CPU of
//!   `oc simulate` of every shipped scenario, 100 games, searcher against itself, over the
//!   default's 7.4 s): 2, 2, 2: 6 (one weaker), 2.0x; 4, 2, 2: 5, 2.5x; 8, 4, 3: 7 (one
//!   weaker); the full budget, 10 (at 400 games 14), 6.3x.
//! - `tactician` ([`Tactician`]): plans with the exact forecasts — what an attack deals and
//!   takes, and what the enemy can do back on its next activations at the tile a unit ends on (a
//!   threat map) —, weighs units by their worth to the scenario's conditions (leaders a
//!   condition names, healers), races for the tiles at stake (`seize`, `escape`, `raze`:
//!   its own and the enemy's, against the clock). The faster setting
//!   where the planner searches (about 40x).
//! - `greedy` ([`Greedy`]): the first AI: the objective, a heal, or the attack with the best
//!   exact forecast, else a walk toward the objective or the nearest enemy. Much cheaper.
//!
//! All decide from a [`View`]: under fog of war, only the enemies their side sees (the planner's
//! copies hold those, and the others where last seen or drawn where they could stand).
//! [`by_name`] makes one; [`Sides`] lets each side play with its own.

mod forecasts;
mod greedy;
mod guides;
mod memo;
pub mod planner;
mod recall;
mod shelf;
mod sighting;
mod tactician;

use oc_model as m;

use crate::battle::{Battle, Combatant, Controller, CostQueue, Sight, State, Tile, Turn};

pub use greedy::{Greedy, Prospect};
pub use planner::Planner;
pub use tactician::stakes::free_to_wait;
pub use tactician::Tactician;

/// The AI `oc battle`, `oc simulate` and `oc tournament` play with unless told otherwise.
pub const DEFAULT: &str = "planner";

/// Every AI by name, with what it does (the default first).
pub const AIS: &[(&str, &str)] = &[
    (
        "planner",
        "the tactician, with its few best turns played ahead on copies of the battle where material decides it, and under fog",
    ),
    (
        "searcher",
        "the planner searching also where ground is at stake (its playouts play a side taking it as the tactician), under fog and in large battles; slower",
    ),
    ("tactician", "plans with exact forecasts and the enemy's reply (threat maps), focus fire, the clock; faster"),
    ("greedy", "the objective, a heal, or the best exact forecast now; much faster, weaker"),
];

/// The names of the AIs, the default first.
pub fn names() -> Vec<&'static str> {
    AIS.iter().map(|(n, _)| *n).collect()
}

/// A fresh AI by name (one per battle: each keeps what it works out for that battle), or `None`
/// for a name no AI has.
pub fn by_name(name: &str) -> Option<Box<dyn Controller + Send>> {
    match name {
        "tactician" => Some(Box::new(Tactician::default())),
        "greedy" => Some(Box::new(Greedy::default())),
        "planner" => Some(Box::new(Planner::default())),
        "searcher" => Some(Box::new(Planner::wide())),
        _ => None,
    }
}

/// [`by_name`], recalling its opening decisions from the thread's earlier battles with the same
/// engine where it can (`ai/recall.rs`): the same turns, sooner. What runs of many battles of
/// one scenario use.
pub fn by_name_recalling(name: &str) -> Option<Box<dyn Controller + Send>> {
    match name {
        "tactician" => Some(Box::new(Tactician::recalling())),
        "planner" => Some(Box::new(Planner::recalling())),
        "greedy" => Some(Box::new(Greedy::recalling())),
        "searcher" => Some(Box::new(Planner::wide_recalling())),
        _ => by_name(name),
    }
}

/// One controller per side: the attacker's plays the attacker's activations, the defender's
/// the defender's.
pub struct Sides {
    attacker: Box<dyn Controller + Send>,
    defender: Box<dyn Controller + Send>,
}

impl Sides {
    pub fn new(attacker: Box<dyn Controller + Send>, defender: Box<dyn Controller + Send>) -> Sides {
        Sides { attacker, defender }
    }

    /// Fresh AIs by name for the attacker and the defender; `Err` names the unknown one.
    pub fn by_names(attacker: &str, defender: &str) -> Result<Sides, crate::BattleError> {
        Sides::made_by([attacker, defender], by_name)
    }

    /// [`Sides::by_names`], each recalling its opening decisions where it can
    /// ([`by_name_recalling`]).
    pub fn by_names_recalling(attacker: &str, defender: &str) -> Result<Sides, crate::BattleError> {
        Sides::made_by([attacker, defender], by_name_recalling)
    }

    /// The attacker's and the defender's AIs, each made by `make` from its name.
    fn made_by(
        [attacker, defender]: [&str; 2],
        make: fn(&str) -> Option<Box<dyn Controller + Send>>,
    ) -> Result<Sides, crate::BattleError> {
        let make = |n: &str| {
            make(n).ok_or_else(|| {
                crate::BattleError::refused(crate::Rule::Setup, format!("no AI `{n}`; the AIs are {}", names().join(", ")))
            })
        };
        Ok(Sides { attacker: make(attacker)?, defender: make(defender)? })
    }
}

impl Controller for Sides {
    fn choose(&mut self, battle: &Battle<'_>) -> Option<Turn> {
        match battle.to_act {
            m::SideId::Attacker => self.attacker.choose(battle),
            m::SideId::Defender => self.defender.choose(battle),
        }
    }
}

/// The turn an AI plays for the unit a declared attack waits on (`Battle::answering`): where its
/// best is to stand still, it declines (the attack resolves and it keeps its activation for
/// later, which standing still would spend); any other turn is its answer.
/// A routing unit (the ruleset's `courage`) only flees or rallies: the AIs try the rally roll
/// where the ruleset has one (a failed rally flees all the same), else it flees.
pub(crate) fn answer(b: &Battle<'_>, t: Turn) -> Turn {
    if b.routing(t.unit) {
        let rally = b.engine.rules.ruleset.courage.as_ref().is_some_and(|c| c.rally.is_some());
        let act = if rally { crate::battle::Act::Rally } else { crate::battle::Act::Wait };
        return Turn { unit: t.unit, act, ..Turn::default() };
    }
    let still = t.to.is_none()
        && matches!(t.act, crate::battle::Act::Wait)
        && t.equip.is_none()
        && t.discard.is_empty()
        && t.trade.is_none();
    if still && b.answering() == Some(t.unit) {
        Turn { act: crate::battle::Act::Decline, ..t }
    } else {
        t
    }
}

/// A turn that ends with the unit waiting: where an enemy holds it in contact (`engaged`) and
/// it stays, it disengages instead ([`Battle::disengaging`]: seed 003's "disengage"); where the
/// ruleset has strikes of opportunity (`opportunity`), the unit takes the action that readies it
/// to strike an enemy that comes near (seed 003's brace, stand ready) instead, where one does
/// ([`Battle::readying`]); before that, where it knows an enemy hides near, it searches for it
/// ([`Battle::searching`]: seed 003's "search"); a depleted unit that stays beside a friend of
/// its class joins it ([`Battle::joining`]); one where it may hide, an enemy coming near, hides
/// where its blow from hiding is forecast better ([`Battle::hiding`]); one of several figures
/// with two enemies near divides up where its halves are forecast to do more
/// ([`Battle::dividing`]). Not an answer to a declared attack or a move (declining keeps the
/// activation), nor a routing unit.
pub(crate) fn readied(b: &Battle<'_>, t: Turn) -> Turn {
    let verbs = b.action_verbs(t.unit);
    readied_with(b, t, &verbs)
}

/// [`readied`], with the verbs of the unit's actions (`Battle::action_verbs`) in hand: a verb
/// it has none of is not looked for (hiding, dividing, joining, a step of the sequence of play
/// that changes what it bears), each of those reading its actions afresh.
pub(crate) fn readied_with(b: &Battle<'_>, t: Turn, verbs: &[Option<m::Verb>]) -> Turn {
    let has = |verb: m::Verb| verbs.contains(&Some(verb));
    formed(b, ready(b, t, &has), &has)
}

/// A turn with the step of the sequence of play before its move that is plainly useful
/// ([`Battle::useful_step`]: seed 003's change of formation), where there is one. Not an answer
/// to a declared attack or a move, nor a routing unit's turn, nor a step of an activation
/// already under way.
fn formed(b: &Battle<'_>, t: Turn, has: &dyn Fn(m::Verb) -> bool) -> Turn {
    if b.answering().is_some() || b.routing(t.unit) || b.active.is_some() {
        return t;
    }
    // `useful_step` weighs only steps whose verb changes what the unit bears.
    let changes = [m::Verb::Inflict, m::Verb::Cure, m::Verb::Clear, m::Verb::Debuff, m::Verb::Transform, m::Verb::Gain];
    if !changes.into_iter().any(has) {
        return t;
    }
    let step = |act: &crate::battle::Act| match act {
        crate::battle::Act::Special { verb, from, .. } => b.sequence_step(t.unit, *verb, from.as_deref()),
        _ => None,
    };
    // Weighed as if nothing came before it; taken after the steps already planned (a search),
    // where the sequence allows.
    let Some(act) = b.useful_step(&Turn { before: Vec::new(), ..t.clone() }) else { return t };
    if t.before.last().and_then(step).is_some_and(|last| step(&act).is_none_or(|s| s <= last)) {
        return t;
    }
    let mut t = t;
    t.before.push(act);
    t
}

fn ready(b: &Battle<'_>, t: Turn, has: &dyn Fn(m::Verb) -> bool) -> Turn {
    let waits = matches!(t.act, crate::battle::Act::Wait) && t.equip.is_none() && t.then_to.is_none();
    if !waits || b.answering().is_some() || b.routing(t.unit) {
        return t;
    }
    if b.engine.ir.engaged.is_some() && t.to.is_none() {
        if let Some(act) = b.disengaging(t.unit) {
            return Turn { act, ..t };
        }
    }
    let Some(at) = t.to.or_else(|| b.units.get(t.unit).map(|u| u.pos)) else { return t };
    // An enemy it knows is hidden near: it searches for it (seed 003's "search"). A search that
    // is a step of the sequence of play (seed 003 puts it first) comes first, where it stands, and
    // the turn goes on; any other is the act, where its move ends or, if not found from there,
    // where it stands.
    let is_step = |act: &crate::battle::Act| match act {
        crate::battle::Act::Special { verb, from, .. } => b.sequence_step(t.unit, *verb, from.as_deref()).is_some(),
        _ => false,
    };
    let pos = b.units.get(t.unit).map(|u| u.pos);
    let here = pos.and_then(|p| b.searching(t.unit, p));
    if let Some(act) = here.clone().filter(is_step) {
        return Turn { before: vec![act], ..t };
    }
    // Where it stays, the search from where its move ends is the one from where it stands.
    let there = if pos == Some(at) { here.clone() } else { b.searching(t.unit, at) };
    if let Some(act) = there.filter(|act| !is_step(act)) {
        return Turn { act, ..t };
    }
    if let Some(act) = here.filter(|_| t.to.is_some()) {
        return Turn { act, to: None, ..t };
    }
    // A depleted unit beside a friend of its class and arms joins it (seed 003's "join another
    // unit", [`Battle::joining`]).
    if t.to.is_none() && has(m::Verb::Join) {
        if let Some(act) = b.joining(t.unit) {
            return Turn { act, ..t };
        }
    }
    // Where it may hide and an enemy comes near, it hides where its blow from hiding is forecast
    // better (seed 003's "hide", [`Battle::hiding`]).
    if let Some(act) = has(m::Verb::Hide).then(|| b.hiding(t.unit, at)).flatten() {
        return Turn { act, ..t };
    }
    // A unit of several figures, two enemies coming near, divides up where its halves are
    // forecast to do more than the whole (seed 003's "divide up", [`Battle::dividing`]).
    if let Some(act) = has(m::Verb::Divide).then(|| b.dividing(t.unit, at)).flatten() {
        return Turn { act, ..t };
    }
    if b.engine.ir.opportunity.is_none() {
        return t;
    }
    match b.readying(t.unit, at) {
        Some(act) => Turn { act, ..t },
        None => t,
    }
}

/// The battle as the side to act sees it: the whole battle by reference, and its sight (one per
/// decision, never a copy of the battle). Without fog the sight holds every tile.
pub struct View<'v, 'e> {
    pub battle: &'v Battle<'e>,
    pub sight: Sight,
}

impl<'v, 'e> View<'v, 'e> {
    pub fn new(battle: &'v Battle<'e>, side: m::SideId) -> Self {
        View { battle, sight: battle.sight(side) }
    }

    /// Units in the battle the side knows of: all of its own, and the enemies it sees.
    pub fn units(&self) -> impl Iterator<Item = (usize, &'v Combatant)> + '_ {
        self.battle
            .units
            .iter()
            .enumerate()
            .filter(|(k, u)| u.state == State::Ready && (u.side == self.sight.side || self.sight.spots(*k, u.pos)))
    }

    /// The enemies in sight.
    pub fn enemies(&self) -> impl Iterator<Item = (usize, &'v Combatant)> + '_ {
        self.units().filter(|(_, u)| u.side != self.sight.side)
    }

    /// The enemies in sight that may be targeted: not hidden (seed 003's "hide"; without fog a
    /// hidden enemy is in sight, only not to be targeted).
    pub fn targets(&self) -> impl Iterator<Item = (usize, &'v Combatant)> + '_ {
        self.enemies().filter(|(k, _)| !self.battle.hidden(*k))
    }

    /// Tiles a unit can move to, as far as its side knows (an enemy's, as the side sees them),
    /// from the unit's [`Battle::mobility`], worked out once by the caller: a list sorted by
    /// tile, the search kept in `kept` where nothing it touched changed.
    fn reachable_sorted(
        &self,
        i: usize,
        mobility: &crate::battle::Mobility,
        kept: &mut crate::battle::KeptReach,
    ) -> Option<Vec<(Tile, i64)>> {
        self.battle.reachable_sorted(i, mobility, Some(&self.sight).filter(|s| s.fogged()), kept).ok()
    }
}

/// The parts of `side`'s win condition that `pick` keeps, through its `and` and `or`.
pub(crate) fn win_parts<'b>(b: &'b Battle, side: m::SideId, pick: &dyn Fn(&m::Condition) -> bool) -> Vec<&'b m::Condition> {
    fn walk<'c>(c: &'c m::Condition, pick: &dyn Fn(&m::Condition) -> bool, out: &mut Vec<&'c m::Condition>) {
        match c {
            m::Condition::And(a, x) | m::Condition::Or(a, x) => {
                walk(a, pick, out);
                walk(x, pick, out);
            }
            c if pick(c) => out.push(c),
            _ => {}
        }
    }
    let mut out = Vec::new();
    if let Some(c) = &b.scenario.side(side).win {
        walk(c, pick, &mut out);
    }
    out
}

/// The region tiles a side's condition asks it to reach with `kind` (`seize`, `escape`, `raze`:
/// those it has not razed yet, `defend`).
fn objective_tiles(b: &Battle, side: m::SideId, kind: &str) -> Vec<Tile> {
    fn region<'c>(c: &'c m::Condition, kind: &str) -> Option<&'c str> {
        match c {
            m::Condition::Seize { region } if kind == "seize" => Some(region),
            m::Condition::Escape { region, .. } if kind == "escape" => Some(region),
            m::Condition::Raze { region, .. } if kind == "raze" => Some(region),
            m::Condition::Defend { region, .. } if kind == "defend" => Some(region),
            _ => None,
        }
    }
    // A tile razed is razed no more: no goal.
    let razed: Vec<Tile> = if kind == "raze" { b.razed_by(side).collect() } else { Vec::new() };
    win_parts(b, side, &|c| region(c, kind).is_some())
        .into_iter()
        .filter_map(|c| region(c, kind))
        .filter_map(|n| b.map.region(n))
        .flat_map(|r| r.tiles.iter().copied())
        .filter(|t| !razed.contains(t))
        .collect()
}

/// Movement cost to the nearest of some goal tiles for one movement type, over the terrain and
/// ignoring units (a guide for walking, not a path): one number per tile of the map. A lazy one
/// ([`Guide::lazy_over`]) searches only as far as the tiles asked about ([`Guide::settle`]).
pub(crate) struct Guide {
    width: i64,
    height: i64,
    cost: Vec<i64>,
    /// The search still under way (a lazy guide), else `None`: every cost is final.
    search: Option<Frontier>,
    /// The cheapest step (0 where none is passable).
    cheapest: i64,
}

/// A guide's search under way: Dijkstra from the goals, each tile's cost final once it is at
/// most the cost of the tile last taken (every tile waiting costs at least that).
struct Frontier {
    /// Entering each tile, by index (the terrain looked up once per tile, not per step; shared
    /// by the guides of one movement type: [`Guide::lazy_over`]).
    enter: std::sync::Arc<[Option<i64>]>,
    queue: CostQueue<usize>,
    limit: i64,
    /// The cost of the tile last taken (-1 before the first).
    settled: i64,
}

impl Guide {
    const FAR: i64 = i64::MAX / 4;

    /// [`Guide::over`] for movement type `kind` up to cost `limit`: tiles farther than that are
    /// left unreached.
    pub(crate) fn within(b: &Battle, kind: &str, goals: &[Tile], limit: i64) -> Guide {
        Guide::started(b, kind, goals, limit).searched()
    }

    /// [`Guide::over`], searched only as
    /// far as [`Guide::settle`] asks: a unit near its goal reads a few dozen tiles, not the map
    /// (the costs it reads are the same).
    pub(crate) fn lazy_over(b: &Battle, enter: std::sync::Arc<[Option<i64>]>, goals: &[Tile]) -> Guide {
        Guide::started_over(b, enter, goals, Guide::FAR)
    }

    /// Cheapest cost from every tile to the nearest goal for the movement type whose tile costs
    /// (`Battle::tile_costs`, on this battle's terrain now) are `enter` (worked out once for all
    /// its guides): entering a tile costs its terrain's cost for that type.
    pub(crate) fn over(b: &Battle, enter: std::sync::Arc<[Option<i64>]>, goals: &[Tile]) -> Guide {
        Guide::started_over(b, enter, goals, Guide::FAR).searched()
    }

    /// This guide (searched to its end, over `enter` as [`Guide::over`]) with the goals `gone`
    /// no longer goals and `come` new ones: the costs [`Guide::over`] finds for the goals now.
    /// The tiles a goal gone was nearest to (or as near as any other) are searched again, from
    /// the tiles around them, whose costs stand; and the new goals' nearer tiles from them. `None`
    /// where a step costs nothing (then a tile at cost 0 need not be a goal), or where those tiles
    /// are more than a quarter of the map (then [`Guide::over`] costs less).
    pub(crate) fn moved(&self, enter: std::sync::Arc<[Option<i64>]>, gone: &[Tile], come: &[Tile]) -> Option<Guide> {
        self.moved_within(enter, gone, come, self.cost.len() / 4)
    }

    /// [`Guide::moved`], `None` where the goals gone were nearest to more than `most` tiles.
    fn moved_within(&self, enter: std::sync::Arc<[Option<i64>]>, gone: &[Tile], come: &[Tile], most: usize) -> Option<Guide> {
        if self.search.is_some() || enter.len() != self.cost.len() || self.cheapest <= 0 {
            return None;
        }
        let (w, h) = (self.width as usize, self.height as usize);
        let step = |k: usize| enter.get(k).copied().flatten();
        // The same order as `neighbours`: east, west, south, north.
        let next = |at: usize| {
            let (x, y) = (at % w.max(1), at / w.max(1));
            [(x + 1 < w).then_some(at + 1), (x > 0).then(|| at - 1), (y + 1 < h).then_some(at + w), (y > 0).then(|| at - w)]
        };
        // A goal gone's tiles (`lost`, listed in `tiles`): from it, along each step whose cost
        // makes the next tile's.
        let mut lost = vec![false; self.cost.len()];
        let mut tiles: Vec<usize> = Vec::new();
        for k in gone.iter().filter_map(|t| self.index(*t)).filter(|k| self.cost.get(*k) == Some(&0)) {
            if let Some(l) = lost.get_mut(k).filter(|l| !**l) {
                *l = true;
                tiles.push(k);
            }
        }
        let mut walked = 0;
        while let Some(at) = tiles.get(walked).copied() {
            // Where the goals gone were nearest to more than `most` tiles (`moved`: a quarter of
            // the map), a search afresh costs less than this one (a heap, each tile's neighbours
            // read twice more): left to the caller. (`oc fairness scenarios --games 2 --seed 1`: half, 0.9M fewer
            // instructions than none; a quarter, 12.8M; an eighth, 13.3M.)
            if tiles.len() > most {
                return None;
            }
            walked += 1;
            let (Some(s), Some(here)) = (step(at), self.cost.get(at)) else { continue };
            for n in next(at).into_iter().flatten() {
                if let (Some(_), Some(c), Some(l)) = (step(n), self.cost.get(n), lost.get_mut(n)) {
                    if !*l && *c == here + s {
                        *l = true;
                        tiles.push(n);
                    }
                }
            }
        }
        let mut cost = self.cost.clone();
        for k in &tiles {
            if let Some(c) = cost.get_mut(*k) {
                *c = Guide::FAR;
            }
        }
        // Searched again from the tiles around them, and from the new goals: any waiting cost
        // may come first, so a heap.
        let mut queue = CostQueue::Heap(std::collections::BinaryHeap::new());
        for k in tiles.into_iter().filter(|k| step(*k).is_some()) {
            let mut best = Guide::FAR;
            for n in next(k).into_iter().flatten() {
                if let (Some(false), Some(c), Some(s)) = (lost.get(n).copied(), cost.get(n), step(n)) {
                    if *c < Guide::FAR {
                        best = best.min(c + s);
                    }
                }
            }
            if let (true, Some(c)) = (best < Guide::FAR, cost.get_mut(k)) {
                *c = best;
                queue.push(best, k);
            }
        }
        for k in come.iter().filter_map(|t| self.index(*t)) {
            if let Some(c) = cost.get_mut(k).filter(|c| **c > 0) {
                *c = 0;
                queue.push(0, k);
            }
        }
        let search = Frontier { enter, queue, limit: Guide::FAR, settled: -1 };
        Some(Guide { width: self.width, height: self.height, cost, search: Some(search), cheapest: self.cheapest }.searched())
    }

    /// The guide searched to its end (read with [`Guide::at`]).
    fn searched(mut self) -> Guide {
        // One loop over the queue, the frontier taken out (what `step` does, tile by tile).
        if let Some(mut s) = self.search.take() {
            let size = (self.width as usize, self.height as usize);
            while let Some((here, at)) = s.queue.pop() {
                Guide::relax(&mut self.cost, &mut s, size, (here, at));
            }
        }
        self
    }

    fn started(b: &Battle, kind: &str, goals: &[Tile], limit: i64) -> Guide {
        Guide::started_over(b, b.tile_costs(kind).into(), goals, limit)
    }

    fn started_over(b: &Battle, enter: std::sync::Arc<[Option<i64>]>, goals: &[Tile], limit: i64) -> Guide {
        let (width, height) = (b.map.width.max(0), b.map.height.max(0));
        let steps = || enter.iter().flatten().copied();
        let cheapest = steps().min().unwrap_or(0);
        let queue = CostQueue::new(cheapest, steps().max().unwrap_or(0));
        let search = Frontier { enter, queue, limit, settled: -1 };
        let mut g = Guide { width, height, cost: vec![Guide::FAR; (width * height) as usize], search: Some(search), cheapest };
        for t in goals {
            if let Some(k) = g.index(*t) {
                if let (Some(c), Some(s)) = (g.cost.get_mut(k).filter(|c| **c > 0), g.search.as_mut()) {
                    *c = 0;
                    s.queue.push(0, k);
                }
            }
        }
        g
    }

    /// Takes the cheapest tile waiting and prices its neighbours; `false` when none waits.
    fn step(&mut self) -> bool {
        let Some(s) = self.search.as_mut() else { return false };
        let Some((here, at)) = s.queue.pop() else { return false };
        s.settled = here;
        Guide::relax(&mut self.cost, s, (self.width as usize, self.height as usize), (here, at));
        true
    }

    /// Tile `at`, taken at cost `here`, prices its neighbours (on a map `w` by `height`).
    #[inline(always)]
    fn relax(cost: &mut [i64], s: &mut Frontier, (w, height): (usize, usize), (here, at): (i64, usize)) {
        if cost.get(at).is_some_and(|c| *c < here) {
            return;
        }
        // Walking from `next` into `at` costs `at`'s terrain; `next` must be passable too.
        let Some(step) = s.enter.get(at).copied().flatten() else { return };
        let total = here + step;
        if total > s.limit {
            return;
        }
        let (x, y) = (at % w.max(1), at / w.max(1));
        // The same order as `neighbours`: east, west, south, north.
        let next =
            [(x + 1 < w).then_some(at + 1), (x > 0).then(|| at - 1), (y + 1 < height).then_some(at + w), (y > 0).then(|| at - w)];
        // A neighbour's cost compared first: most are no dearer already (then its terrain is not read).
        for n in next.into_iter().flatten() {
            if let Some(c) = cost.get_mut(n).filter(|c| total < **c) {
                if s.enter.get(n).copied().flatten().is_some() {
                    *c = total;
                    s.queue.push(total, n);
                }
            }
        }
    }

    fn index(&self, t: Tile) -> Option<usize> {
        crate::battle::tile_index(t, (self.width, self.height))
    }

    /// The cost from `t` to the nearest goal, or `None` when no goal can be walked to (of a
    /// guide searched to its end: [`Guide::over`], [`Guide::within`]).
    pub(crate) fn at(&self, t: Tile) -> Option<i64> {
        debug_assert!(self.search.is_none(), "a lazy guide is read with `settle`");
        self.index(t).and_then(|k| self.cost.get(k).copied()).filter(|c| *c < Guide::FAR)
    }

    /// [`Guide::at`] of any guide: a lazy one searches on until `t`'s cost is final.
    pub(crate) fn settle(&mut self, t: Tile) -> Option<i64> {
        let k = self.index(t)?;
        while self.search.as_ref().is_some_and(|s| self.cost.get(k).is_some_and(|c| *c > s.settled)) && self.step() {}
        self.cost.get(k).copied().filter(|c| *c < Guide::FAR)
    }
}

/// A 64-bit mix (splitmix64's finaliser).
pub(crate) fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::Guide;
    use crate::battle::{Battle, Tile};
    use std::sync::Arc;

    /// A guide moved to goals a few of which are gone and a few new ([`Guide::moved`]) reads the
    /// costs of the guide searched afresh toward the goals now, at every tile: over steps of
    /// differing costs and impassable tiles, goals that stand on one, off the map, or twice.
    #[test]
    fn a_guide_moved_is_the_guide_searched_afresh() {
        let (engine, map) = crate::testing::duel(
            &[".........", ".........", ".........", ".........", ".........", ".........", "........."],
            "std:battlestorm",
            "",
            ["unit Brave: Savage { items Shortsword }", "unit Foe: Savage { items Shortsword }"],
        );
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let b = Battle::new(&engine, s, &map, [a, d], [&[(0, 1)][..], &[(8, 1)][..]], 3).expect("the battle starts");
        // Steps and goals drawn at random (a fixed seed).
        let mut state = 11u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 33
        };
        let tiles: Vec<Tile> = (0..7).flat_map(|y| (0..9).map(move |x| (x, y))).collect();
        let (mut moved, mut differ) = (0, 0);
        for round in 0..40 {
            let enter: Arc<[Option<i64>]> = tiles.iter().map(|_| (next() % 6 != 0).then(|| 1 + (next() % 3) as i64)).collect();
            let mut goals: Vec<Tile> = (0..1 + next() % 5).map(|_| (next() as i64 % 9, next() as i64 % 7)).collect();
            if round % 7 == 0 {
                goals.push((12, 3));
            }
            let mut guide = Guide::over(&b, enter.clone(), &goals);
            for _ in 0..6 {
                let mut now = goals.clone();
                if !now.is_empty() && next() % 3 != 0 {
                    now.remove(next() as usize % now.len());
                }
                for _ in 0..next() % 3 {
                    now.push((next() as i64 % 9, next() as i64 % 7));
                }
                let gone: Vec<Tile> = goals.iter().filter(|t| !now.contains(t)).copied().collect();
                let come: Vec<Tile> = now.iter().filter(|t| !goals.contains(t)).copied().collect();
                let fresh = Guide::over(&b, enter.clone(), &now);
                let kept = guide.moved_within(enter.clone(), &gone, &come, usize::MAX).expect("every step costs something");
                // Mending no more than a quarter of the map, or left to a search afresh.
                let quarter = guide.moved(enter.clone(), &gone, &come);
                for t in &tiles {
                    assert_eq!(kept.at(*t), fresh.at(*t), "round {round}, at {t:?}, goals {goals:?} then {now:?}");
                    assert!(quarter.as_ref().is_none_or(|q| q.at(*t) == fresh.at(*t)), "round {round}, at {t:?}");
                    differ += usize::from(guide.at(*t) != fresh.at(*t));
                }
                moved += 1;
                (guide, goals) = (kept, now);
            }
        }
        assert!(moved == 240 && differ > 1000, "the goals moved the costs ({differ} tiles)");
    }
}
