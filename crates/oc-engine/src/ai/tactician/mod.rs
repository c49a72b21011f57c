//! `tactician`, the AI the default (`planner`) ranks its turns with. For every unit it may
//! activate it weighs each tile in reach — staying, walking there, or attacking from there with
//! each weapon, healing (equipping a staff it carries), using a healing item — by one measure,
//! material: each unit's worth (its price, raised for the units the scenario's conditions name,
//! `stakes.rs`), a share for its HP and the rest for standing at all.
//!
//! A turn's value is a shallow expectimax. The exact forecast of its exchange is the chance node
//! (the target routed or not, our unit routed or not, the HP left). The enemy's reply is the
//! threat map (`threat.rs`): every enemy in sight, what it can strike on its next activation —
//! each tile it can reach, widened by its weapons' ranges — and the forecast of that blow on our
//! unit with the terrain of the tile it ends on and the HP the exchange leaves. An enemy counts
//! for what striking our unit there adds to the best it could do to our other units where they
//! stand (shared out among them, the wounded worn down), worst first, while there is room to
//! strike from; one that moves now and strikes first next round counts by the chance it strikes
//! before our unit moves again (the enemy leads the next round, or we lead and our unit is not
//! the one that moves first; a side not free to wait for the enemy counts only the first). An
//! enemy routed in the exchange makes no reply at all (focus fire). Then the position: progress
//! toward the enemy or the objective (harder as the clock runs out), enemies within striking
//! distance for next time, tiles that heal, the tiles the enemy must reach held, an ally in
//! danger shielded (by a unit that can strike back from next to it). The tiles at stake are a
//! race read from the victory conditions (`race.rs`): an enemy that could seize, escape or raze
//! in time is worth the battle times its chance to, a step of ours nearer is worth the chance
//! it gains, the enemy's objective tile stepped on bars the takers within one move (kept by a
//! unit already on it, the whole race), as much as the holder is likely to still stand and each
//! taker to still stand after the act. The unit whose best turn gains most over standing still
//! acts.
//!
//! It decides from a [`View`] (only the enemies its side sees), never clones the battle, works
//! out each exact forecast once per battle (at full HP, read at any HP: `forecasts.rs`), and
//! breaks ties by unit and tile order: one seed, one game.

mod carried;
mod kept;
mod kept_units;
mod memory;
pub(in crate::ai) use memory::known;
mod plan;
pub(super) mod race;
mod share;
pub(super) mod stakes;
mod threat;
mod walks;

use crate::Atom;
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::Arc;

use oc_model as m;

use super::forecasts::{Forecasts, Sketch, Targets};
use super::greedy::verbs::Verbs;
use super::recall;
use super::{Guide, View};
use crate::battle::{tile_index, Act, Battle, Controller, Sight, State, Tile, Turn};
use crate::Loadout;
use kept_units::{KeptOurs, KeptTargets, KeptWeapons, PreyArms};
use stakes::{prices, Stakes};
use threat::{Blow, Later, Target, ThreatMap};
pub(super) use walks::Walks;

/// The tactician, as the battle's [`Controller`]. Use one per battle: it keeps the forecasts it
/// has worked out with that battle's engine, and the units' prices. Dropped, it leaves what of
/// them is a pure function of the engine to the next tactician of its thread that plays with
/// that engine (`carried.rs`).
#[derive(Debug, Default)]
pub struct Tactician {
    /// The engine (`Engine::serial`) the kept caches are worked out with.
    engine: Option<u64>,
    cache: Forecasts,
    prices: Vec<f64>,
    later: Later,
    walks: Walks,
    /// Each unit's action verbs, kept between decisions by what they are read from (greedy's).
    verbs: Verbs,
    /// Each unit's weapons as `Decision::prey` reads them, and our units as the enemy would
    /// strike them (`Decision::target`), kept between decisions by what they are built from
    /// (numbered in `cache`: forgotten with it, `Tactician::leave`).
    arms: PreyArms,
    targets: KeptTargets,
    ours: KeptOurs,
    /// Each unit's weapons, kept between decisions by what they are read from (`KeptWeapons`).
    weapons: KeptWeapons,
    /// Under fog, by side: where each enemy was last seen (`Tactician::remember`).
    last_seen: [Vec<Option<super::sighting::Sighting>>; 2],
    /// Under fog, by side: how many records of the battle's log its memory has read (the hit
    /// points its own fights left enemies with, `Tactician::remember`).
    read: [usize; 2],
    /// Under fog, by side and tile (row by row): the round it was last in sight, plus one (0:
    /// never), for the sweep (`Tactician::remember`).
    swept: [Vec<u32>; 2],
    /// The walks from the enemy's deployment zone and from where enemies were last seen that
    /// its fog reads (`sighting/seen.rs`): where enemies out of sight may stand.
    fog_walks: super::sighting::seen::Walks,
    /// Whether its opening decisions are recalled from the thread's earlier battles
    /// (`ai/recall.rs`).
    opening: recall::Opening,
}

impl Controller for Tactician {
    fn choose(&mut self, b: &Battle<'_>) -> Option<Turn> {
        if !self.opening.asks(b) {
            return self.ranked(b, 1)?.into_iter().next().map(|(_, t)| t);
        }
        let mind = self.mind(b, recall::TACTICIAN, 0);
        recall::or_decide(b, mind, || Some((self.ranked(b, 1)?.into_iter().next()?.1, [0; 4]))).map(|(t, ..)| t)
    }
}

impl Tactician {
    /// A tactician whose opening decisions are recalled from the thread's earlier battles with
    /// the same engine where they were made in the same battle with the same mind
    /// (`ai/recall.rs`): the same turns, sooner.
    pub fn recalling() -> Tactician {
        let mut t = Tactician::default();
        t.opening = recall::Opening::on();
        t
    }

    /// Each unit's best turn with its gain over standing still, best first (of equal gains, the
    /// first by unit order), the first `keep` of them (each made ready to play, which the rest
    /// need not be): the turn [`Controller::choose`] plays is the first. Where no unit has a
    /// plan, the first that may act waits; `None` where none may act.
    pub(crate) fn ranked(&mut self, b: &Battle<'_>, keep: usize) -> Option<Vec<(f64, Turn)>> {
        let side = b.to_act;
        let movers = b.may_act(side);
        let first = *movers.first()?;
        self.adopt(b.engine.serial());
        self.prices(b);
        self.walks.check(b);
        let walks = std::mem::take(&mut self.walks);
        let targets = std::mem::take(&mut self.targets);
        // What the side sees now noted first: the stakes weigh enemy takers where it knows them.
        let view = View::new(b, side);
        let recalled = self.remember(b, side, &view.sight);
        let known = memory::known(b, side, &view.sight, self.memory(side));
        let knows = view.sight.fogged().then(|| self.as_known(b, side));
        let parts = (&mut self.cache, &mut self.later, &mut self.verbs);
        let mut d = Decision::new((view, known.as_deref(), knows.as_ref()), side, &self.prices, parts, (walks, targets));
        d.prey_arms = std::mem::take(&mut self.arms);
        d.kept_ours = std::mem::take(&mut self.ours);
        d.kept_weapons = std::mem::take(&mut self.weapons);
        (d.remembered, d.lost, d.unswept) = (recalled.seen, recalled.lost, recalled.unswept);
        let mut ranked: Vec<(f64, Turn)> = Vec::with_capacity(movers.len());
        // Only the best turn: the units' candidates read best first across them
        // (`Decision::champion`), the same turn as the first of the ranking below.
        let best = (keep <= 1).then(|| d.champion(&movers, &mut self.cache));
        ranked.extend(best.flatten().map(|p| (p.gain, p.turn)));
        for i in movers.into_iter().filter(|_| keep > 1) {
            // Once `keep` are ranked, a unit that cannot pass the least of the first `keep` by
            // more than EPS does not matter (it would go in after them, and leave them as they
            // are): its candidates are read no further than that shows (`Decision::read_on`).
            // A gain that is NaN is passed by none (`f64::min` leaves it out).
            let top = keep.max(1);
            let beat = (ranked.len() >= top).then(|| ranked.iter().take(top).map(|(g, _)| *g).fold(f64::INFINITY, f64::min));
            let Some(p) = d.plan(i, beat, &mut self.cache) else { continue };
            // A later unit goes ahead only by more than EPS, as the first-best choice always has.
            let at = ranked.iter().position(|(g, _)| p.gain > *g + EPS).unwrap_or(ranked.len());
            ranked.insert(at, (p.gain, p.turn));
        }
        self.walks = std::mem::take(&mut d.walks);
        self.arms = std::mem::take(&mut d.prey_arms);
        self.ours = std::mem::take(&mut d.kept_ours);
        self.weapons = std::mem::take(&mut d.kept_weapons);
        self.targets = std::mem::take(&mut d.targets);
        d.threats.keep(&mut self.later);
        if ranked.is_empty() {
            ranked.push((0.0, Turn { unit: first, ..Default::default() }));
        }
        ranked.truncate(keep.max(1));
        // With the verbs the decision read (`Battle::action_verbs`' own, kept by what they are
        // read from: `Verbs`).
        for (_, t) in &mut ranked {
            *t = match d.verbs.get(t.unit) {
                Some(verbs) => super::readied_with(b, std::mem::take(t), verbs),
                None => super::readied(b, std::mem::take(t)),
            };
        }
        // An answer to a declared attack, and a routing unit's turn (it only flees or rallies,
        // whatever its plan: a unit can rout between two of its side's decisions).
        for (_, t) in &mut ranked {
            if b.answering().is_some() || b.routing(t.unit) {
                *t = super::answer(b, std::mem::take(t));
            }
        }
        // The first turn's move cost as its unit's reach found it, for the turn to read
        // (`Battle::hint_move`, read only where what its search read is the same).
        if let Some((_, t)) = ranked.first() {
            let reached = d.reached.iter().find(|(k, ..)| *k == t.unit);
            if let (Some(to), Some((_, mobility, reach))) = (t.to, reached) {
                if let Some((_, cost)) = reach.binary_search_by_key(&to, |(x, _)| *x).ok().and_then(|n| reach.get(n)) {
                    b.hint_move(t.unit, mobility, Some(&d.view.sight).filter(|s| s.fogged()), to, *cost);
                }
            }
        }
        Some(ranked)
    }

    /// Each unit's price by battle index, as a share of the mean (`stakes::prices`), worked out
    /// once per battle.
    pub(crate) fn prices(&mut self, b: &Battle<'_>) -> &[f64] {
        if self.prices.len() != b.units.len() {
            self.prices = prices(b);
        }
        &self.prices
    }

    /// Weighs units by `prices` (another tactician's, worked out when the battle began): a
    /// tactician that plays for the same side in copies of the battle weighs them as it does.
    pub(crate) fn share_prices(&mut self, prices: &[f64]) {
        self.prices.clear();
        self.prices.extend_from_slice(prices);
    }
}

/// The chance an enemy that moves now strikes our unit before it can move again (the weight of
/// its blows after a second move, `ThreatMap::danger`).
///
/// Alternating, the side that activates its last unit first leads the next round: with it our
/// turn now, we finish first if we have no more units waiting than the enemy. When the enemy
/// leads, it strikes first: 1. When we lead, only the unit we activate first next round moves
/// before the enemy's first: any one of our `n` units is struck first (n-1)/n of the time. A
/// roll-off or an order by a resource may go either way: the mean of the two.
///
/// Only a side free to wait for the enemy to come to it (`stakes::free_to_wait`: no clock against
/// it, no tiles at stake) counts such blows when it leads. One the clock presses must come
/// forward, and one that must take, hold or deny ground must stand on it: a defender counting
/// them let the Dunes' refugees through and the marsh fort be taken (attacker 63% -> 80%, 48% ->
/// 66%, 200 games), while the Keep's held better (39% -> 20%).
fn lead_next(b: &Battle, side: m::SideId) -> f64 {
    let we_lead = if stakes::free_to_wait(&b.scenario, side) {
        let n = b.units.iter().filter(|u| u.side == side && u.state == State::Ready).count().max(1) as f64;
        (n - 1.0) / n
    } else {
        0.0
    };
    match b.engine.rules.ruleset.turn.order {
        m::Order::Alternate => {
            let (ours, theirs) = (b.waiting(side).len(), b.waiting(side.other()).len());
            if ours <= theirs {
                we_lead
            } else {
                1.0
            }
        }
        _ => 0.5 * (1.0 + we_lead),
    }
}

// The weights, each measured by tournaments against `greedy` (`oc tournament`, docs/commands.md).

/// The share of a unit's worth its HP carry (the rest is its standing at all).
pub(super) const HP_SHARE: f64 = 0.6;
/// How much an enemy minds its own losses when it picks a blow (1: as much as ours). A careless
/// enemy strikes where our counter costs it more than the blow costs us.
const REGARD: f64 = 0.35;
/// What a blow that costs the enemy more than us is worth to us (a careless enemy may strike).
const BAIT: f64 = 0.3;
/// Standing next to an ally in danger: its danger per tile an enemy could strike it from.
const SHIELD: f64 = 1.0;
/// An enemy that moves this round and strikes first next round: its worst blow, weighed.
const LATER: f64 = 0.5;
/// Within striking distance of an enemy for next time: that strike's worth, weighed.
const PROSPECT: f64 = 0.3;
/// An enemy that has acted this round: the chance it strikes before our unit moves again.
const ACTED: f64 = 0.6;
/// Progress toward the enemy, per move: at ease, and more as the clock runs out (`urgency`).
const ADVANCE: f64 = 0.06;

/// What a unit that cannot take the side's objective loses by standing on its tile: a unit's
/// worth, more than the best ground is worth, since it bars the ally who can take it.
const BLOCKS_GOAL: f64 = 1.0;

/// How much of the battle's worth the race for the tiles at stake carries (`race.rs`): an
/// enemy that could take its objective in time, and a step of ours nearer to taking one.
pub(super) const RACE: f64 = 1.0;

/// `Decision::marks`: a tile to hold, to contest, to deny, of our objective, that heals.
const HOLD: u8 = 1;
const CONTEST: u8 = 2;
const DENY: u8 = 4;
const GOAL: u8 = 8;
const HEALS: u8 = 16;
/// `Decision::marks`: an enemy's objective tile a unit of ours standing on bars a taker from
/// (`Stakes::barred`): the only tiles a plan looks the bars up for.
const BARS: u8 = 32;

/// Scores closer than this are equal: the first (by unit, then tile) wins.
const EPS: f64 = 1e-9;

/// A unit's best turn, its score, and how much it gains over standing still.
struct Plan {
    gain: f64,
    turn: Turn,
}

/// Everything one decision shares across the units it weighs.
struct Decision<'v, 'e> {
    view: View<'v, 'e>,
    side: m::SideId,
    stakes: Stakes,
    threats: ThreatMap,
    /// Our units where they stand, as the enemies' targets.
    exposed: Vec<Exposure>,
    /// Our units in danger where they stand: (unit, tile, danger per tile an enemy may strike it
    /// from).
    cover: Vec<(usize, Tile, f64)>,
    /// By unit, once worked out: what each enemy gets by striking our other units instead.
    elsewhere: Vec<Option<Rc<[f64]>>>,
    /// [`Decision::share_out`] with no unit left out, once worked out: the share, each enemy's
    /// best first blow, and by exposure whether an enemy ever held it its best target.
    shared: Option<Shared>,
    /// Our units' dangers where they stand, once worked out ([`Decision::danger`]): (unit,
    /// weapon held, HP, danger). A decision reads each again: the cover, the weapon to guard
    /// with, standing still.
    still: Vec<(usize, Option<Atom>, i64, f64)>,
    /// By tile (row by row): 0 not open (`Battle::open`), 1 open and one of our units' tiles,
    /// 2 open and free of ours; read by [`Decision::room`] (the map's width first).
    open: (i64, Vec<u8>),
    /// By tile (row by row, as `open`): what standing there is worth to `Decision::position`,
    /// a bit each (`HOLD`, `CONTEST`, `DENY`, `GOAL`, `HEALS`; `BARS`, read by the plan).
    marks: Vec<u8>,
    /// Walking guides by movement type: toward the enemy, toward the objective tiles, toward a
    /// region to hold or contest.
    guides: HashMap<String, Rc<Guides>>,
    /// The guides kept across decisions (the tactician's, lent to this decision).
    walks: Walks,
    /// The units' weapons as `Decision::prey` reads them, and on each terrain as a plan's
    /// attacks do (the tactician's, lent).
    prey_arms: PreyArms,
    kept_ours: KeptOurs,
    /// Our units' weapons (the tactician's, lent: `KeptWeapons`).
    kept_weapons: KeptWeapons,
    /// Our units' loadouts as the enemy would strike them, interned: by unit, then by the weapon
    /// and terrain in the loadout — a few each, found without building a key. Kept from one
    /// decision to the next (the tactician's, lent: `KeptTargets`).
    targets: KeptTargets,
    /// By unit, whether its kept targets were held to its loadout in this decision.
    checked: Vec<bool>,
    /// Where the battle is situated: our units as the enemy would strike them by unit, tile and
    /// weapon, as [`Decision::target`] found them in this decision.
    situated: Situated,
    /// Under fog: our units' eyes (unit, tile, vision).
    eyes: Vec<(usize, Tile, i64)>,
    stepped: bool,
    threat_zones: bool,
    /// Each unit's action verbs (`Battle::action_verbs`), and whether one of its actions attacks
    /// an enemy (`Battle::action_verbs_attacking`), by battle index.
    verbs: Vec<Arc<[Option<m::Verb>]>>,
    attacking: Vec<bool>,
    /// Enemies as targets as they stand, built and interned once a decision (lent to each plan's
    /// `Arms`).
    foe_targets: Targets,
    /// Enemies at full HP, interned, by battle index (`Decision::at_full_hp`).
    full_hp: Vec<Option<Option<Interned>>>,
    /// The chance the enemy leads the next round (acts before us then).
    lead: f64,
    /// Under fog: where the enemies out of sight were last seen (`Tactician::remember`).
    remembered: Vec<Tile>,
    /// Under fog: where the enemies lost may stand (`Tactician::remember`).
    lost: Vec<Tile>,
    /// Under fog: the tiles out of sight seen longest ago, with the round they were last seen
    /// plus one (0: never) (`Tactician::remember`).
    unswept: Option<(u32, Vec<Tile>)>,
    /// By unit prepared (`Decision::prepare`): its mobility and the tiles in its reach with their
    /// costs, in tile order: the move of the turn chosen is hinted from them (`Battle::hint_move`).
    reached: Reached,
}

/// One of our units where it stands, as the enemies see it: for each enemy of the threat map,
/// its best strike there (its own loss, and the exchange).
struct Exposure {
    unit: usize,
    hp: i64,
    max_hp: i64,
    worth: f64,
    blows: Vec<Option<(f64, Arc<Sketch>)>>,
    /// By enemy, what its blow there is worth to it while no other blow has worn the unit down
    /// (`Exposure::value` at its HP), with our chance routed and damage: what
    /// [`Decision::share_out`] reads for every unit left out.
    first: Vec<Option<(f64, f64, f64)>>,
}

impl Exposure {
    /// What a blow (the enemy's own loss, the exchange) is worth to the enemy against this unit
    /// with the state `(hp, standing, worn)`; with our chance routed and damage.
    fn value(&self, (hp, standing, _): (i64, f64, f64), own: f64, sketch: &Sketch) -> (f64, f64, f64) {
        let (routed, damage) = sketch.against(hp.max(1));
        (threat::worth_to_enemy((self.worth, self.max_hp), (damage, routed), standing, own), routed, damage)
    }
}

struct Guides {
    enemy: Arc<Guide>,
    goal: Option<Arc<Guide>>,
    region: Option<Arc<Guide>>,
}

/// [`Decision::share_out`] with no unit left out: the share, each enemy's best first blow, and
/// by exposure whether an enemy ever held it its best target.
type Shared = (Rc<[f64]>, Vec<f64>, Vec<bool>);

/// A loadout with its number in the battle's forecasts.
type Interned = (Rc<Loadout>, u32);

/// Our units as the enemy would strike them by unit, tile and weapon (`Decision::situated`).
type Situated = crate::fx::FastMap<(usize, Tile, Option<Atom>), (Arc<Loadout>, u32)>;

/// By unit prepared, its mobility and reach (`Decision::reached`).
type Reached = Vec<(usize, crate::battle::Mobility, Vec<(Tile, i64)>)>;

/// One candidate's parts, before they are summed.
struct Candidate {
    /// The turn's move and act (the rest of a turn left as it is: built by `Candidate::turn`),
    /// and the weapon it equips.
    to: Option<Tile>,
    act_is: Act,
    equip: Option<Atom>,
    /// What the act itself is worth (an exchange's material, a heal).
    act: f64,
    /// The weapon held once the turn is over, and the HP left (expected, if not routed).
    holds: Option<Atom>,
    hp: i64,
    /// The chance our unit is routed in its own act, and the enemy (by threat-map index) it may
    /// rout, with that chance.
    fallen: f64,
    routs: Option<(usize, f64)>,
    /// Resources the act leaves the unit holding (a Guard's points, the Stamina it spent):
    /// the enemies' replies are weighed against them.
    holding: Vec<(Atom, i64)>,
}

impl Candidate {
    /// The whole turn of unit `unit`, the weapon it equips included.
    fn turn(self, unit: usize) -> Turn {
        Turn { unit, to: self.to, equip: self.equip, act: self.act_is, ..Default::default() }
    }
}

impl<'v, 'e> Decision<'v, 'e> {
    /// `view`: the battle as `side` sees it; `known`: where it knows each unit to stand, under
    /// fog (`memory::known`); `knows`: under fog, a copy of the battle holding the enemies where
    /// the side knows them, whose threats are weighed.
    fn new(
        (view, known, knows): (View<'v, 'e>, Option<&[Option<Tile>]>, Option<&Battle<'_>>),
        side: m::SideId,
        prices: &[f64],
        (cache, later, kept): (&mut Forecasts, &mut Later, &mut Verbs),
        (mut walks, targets): (Walks, KeptTargets),
    ) -> Self {
        let b = view.battle;
        // Each unit's action verbs (the stakes and every plan read them), kept by what they are read from.
        let (mut verbs, mut attacking) = (Vec::with_capacity(b.units.len()), Vec::with_capacity(b.units.len()));
        for k in 0..b.units.len() {
            let (v, a) = kept.of(b, k);
            verbs.push(v);
            attacking.push(a);
        }
        let seizers: Vec<usize> = (0..b.units.len())
            .filter(|k| b.units.get(*k).is_some_and(|u| u.state == State::Ready))
            .filter(|k| {
                verbs
                    .get(*k)
                    .is_some_and(|v| v.iter().any(|v| matches!(v, Some(m::Verb::Seize | m::Verb::Escape | m::Verb::Raze))))
            })
            .collect();
        let stakes = Stakes::new(b, side, (prices, &seizers), &verbs, &mut walks, known);
        let threats = match knows {
            Some(copy) => ThreatMap::new(&View { battle: copy, sight: Sight::clear(side) }, cache, later, &stakes.worth),
            None => ThreatMap::new(&view, cache, later, &stakes.worth),
        };
        let ours: Vec<Tile> = view.units().filter(|(_, u)| u.side == side).map(|(_, u)| u.pos).collect();
        let (width, height) = (b.map.width.max(0), b.map.height.max(0));
        let mut open: Vec<u8> = walks.open(b).to_vec();
        for t in &ours {
            if let Some(slot) = tile_index(*t, (width, height)).and_then(|k| open.get_mut(k)) {
                *slot = (*slot).min(1);
            }
        }
        // The tiles at stake and those that heal, marked once.
        let mut marks: Vec<u8> = walks.heals(b).iter().map(|h| if *h { HEALS } else { 0 }).collect();
        for (tiles, bit) in [(&stakes.hold, HOLD), (&stakes.contest, CONTEST), (&stakes.deny, DENY), (&stakes.goals, GOAL)] {
            for t in tiles {
                if let Some(m) = tile_index(*t, (width, height)).and_then(|k| marks.get_mut(k)) {
                    *m |= bit;
                }
            }
        }
        // A tile off the map is marked nowhere: a plan then looks its bars up (none on the map
        // is off it, so it finds what it would).
        for x in &stakes.barred {
            if let Some(m) = tile_index(x.tile, (width, height)).and_then(|k| marks.get_mut(k)) {
                *m |= BARS;
            }
        }
        let stepped = b.engine.rules.ruleset.turn.spend.is_some();
        let threat_zones = b.engine.rules.ruleset.turn.threat.is_some();
        let eyes = if view.sight.fogged() {
            view.units().filter(|(_, u)| u.side == side).filter_map(|(k, u)| b.vision(k).map(|v| (k, u.pos, v))).collect()
        } else {
            Vec::new()
        };
        let mut d = Decision {
            view,
            side,
            stakes,
            threats,
            exposed: Vec::with_capacity(ours.len()),
            cover: Vec::new(),
            elsewhere: Vec::new(),
            shared: None,
            still: Vec::with_capacity(ours.len()),
            open: (width, open),
            marks,
            guides: HashMap::new(),
            walks,
            prey_arms: PreyArms::default(),
            kept_ours: KeptOurs::default(),
            kept_weapons: KeptWeapons::default(),
            targets,
            checked: Vec::new(),
            situated: Default::default(),
            eyes,
            stepped,
            threat_zones,
            verbs,
            attacking,
            foe_targets: Default::default(),
            full_hp: Vec::new(),
            lead: lead_next(b, side),
            remembered: Vec::new(),
            lost: Vec::new(),
            unswept: None,
            reached: Vec::with_capacity(ours.len()),
        };
        // What each enemy could strike now: the replies our units draw where they stand.
        let mine: Vec<(usize, Tile, i64, i64, Option<Atom>)> =
            d.view.units().filter(|(_, u)| u.side == side).map(|(k, u)| (k, u.pos, u.hp, u.max_hp, u.equipped)).collect();
        // The blows at each where it stands, kept for its danger there (the cover, below).
        let mut struck = Vec::new();
        for (k, pos, hp, max_hp, weapon) in mine {
            let Some((loadout, id)) = d.target(k, weapon, pos, cache) else { continue };
            let target = d.target_of(k, &loadout, id, hp);
            let mut blows = vec![None; d.threats.foes.len()];
            let found = d.threats.blows(b.engine, cache, pos, &target);
            for (foe, blow) in &found {
                if let (false, Some(slot), Some(sketch)) = (blow.far, blows.get_mut(*foe), d.threats.sketch(blow)) {
                    *slot = Some((blow.own_loss, sketch.clone()));
                }
            }
            struck.push(((k, pos, hp, weapon), found));
            let mut x = Exposure { unit: k, hp, max_hp, worth: d.worth(k), blows, first: Vec::new() };
            x.first = x.blows.iter().map(|b| b.as_ref().map(|(own, sk)| x.value((hp, 1.0, 0.0), *own, sk))).collect();
            d.exposed.push(x);
        }
        let here: Vec<(usize, Tile, i64, Option<Atom>)> = d
            .exposed
            .iter()
            .filter_map(|x| {
                let u = b.units.get(x.unit)?;
                Some((x.unit, u.pos, u.hp, u.equipped))
            })
            .collect();
        for (k, pos, hp, weapon) in here {
            let found = struck.iter().position(|(x, _)| *x == (k, pos, hp, weapon)).map(|n| struck.swap_remove(n).1);
            let [danger] = d.dangers(k, pos, weapon, hp, [None], found, cache);
            d.still.push((k, weapon, hp, danger));
            if danger > 0.0 {
                let room = d.room(pos, usize::MAX).max(1);
                d.cover.push((k, pos, danger / room as f64));
            }
        }
        d
    }

    fn battle(&self) -> &'v Battle<'e> {
        self.view.battle
    }

    fn worth(&self, k: usize) -> f64 {
        self.stakes.worth.get(k).copied().unwrap_or(1.0)
    }

    /// Enemy `k` as it stands but at full HP (a forecast read at any HP), interned: built once a
    /// decision, not once for each of our units that weighs striking it.
    fn at_full_hp(&mut self, k: usize, cache: &mut Forecasts) -> Option<Interned> {
        if self.full_hp.len() <= k {
            self.full_hp.resize(k + 1, None);
        }
        let slot = self.full_hp.get_mut(k)?;
        let built = slot.get_or_insert_with(|| {
            let b = self.view.battle;
            b.loadout_of(k, false).map(|mut l| {
                l.hp = None;
                let id = cache.id(&l);
                (Rc::new(l), id)
            })
        });
        built.clone()
    }

    fn target_of<'l>(&self, k: usize, loadout: &'l Loadout, id: u32, hp: i64) -> Target<'l> {
        let max_hp = self.battle().units.get(k).map_or(1, |u| u.max_hp);
        Target { loadout, id, hp, max_hp, worth: self.worth(k) }
    }

    /// What the enemies' replies cost our unit `i` on `at` holding `weapon` with `hp`, enemy
    /// `gone` routed first. Where it stands, none routed, worked out once (`Decision::still`).
    fn danger(&mut self, i: usize, at: Tile, weapon: Option<Atom>, hp: i64, gone: Option<usize>, cache: &mut Forecasts) -> f64 {
        let here = gone.is_none() && self.battle().units.get(i).is_some_and(|u| u.pos == at);
        if let Some((.., d)) = self.still.iter().filter(|_| here).find(|(k, w, h, _)| (*k, *w, *h) == (i, weapon, hp)) {
            return *d;
        }
        let [d] = self.dangers(i, at, weapon, hp, [gone], None, cache);
        if here {
            self.still.push((i, weapon, hp, d));
        }
        d
    }

    /// [`Decision::danger`] for each enemy `gone` routed first (or none): the blows at the tile
    /// found once for all of them (an attack that may rout its target weighs both), or `found`
    /// already ([`ThreatMap::blows`] for this unit, tile, weapon and HP).
    #[allow(clippy::too_many_arguments)]
    fn dangers<const N: usize>(
        &mut self,
        i: usize,
        at: Tile,
        weapon: Option<Atom>,
        hp: i64,
        gone: [Option<usize>; N],
        found: Option<Vec<(usize, Blow)>>,
        cache: &mut Forecasts,
    ) -> [f64; N] {
        if hp <= 0 || !self.threats.reaches(at) {
            return [0.0; N];
        }
        let Some((loadout, id)) = self.target(i, weapon, at, cache) else { return [0.0; N] };
        let target = self.target_of(i, &loadout, id, hp);
        let elsewhere = self.elsewhere(i);
        let room = self.room(at, i);
        let blows = match found {
            Some(found) => found,
            None => self.threats.blows(self.battle().engine, cache, at, &target),
        };
        let dangers = gone.map(|g| self.threats.danger(&blows, &target, room, &elsewhere, g, self.lead));
        self.threats.give_back(blows);
        dangers
    }

    /// A bound below [`Decision::dangers`] for our unit `i` on `at` holding `weapon`, with any HP
    /// and any enemy gone ([`ThreatMap::least_danger_for`]).
    fn least_danger(&mut self, i: usize, at: Tile, weapon: Option<Atom>, hp: i64, cache: &mut Forecasts) -> f64 {
        if !self.threats.reaches(at) {
            return 0.0;
        }
        let Some((loadout, id)) = self.target(i, weapon, at, cache) else { return 0.0 };
        let target = self.target_of(i, &loadout, id, hp);
        self.threats.least_danger_for(self.battle().engine, cache, at, &target)
    }

    /// The chance our unit `i` on `at` holding `weapon` with `hp` still stands once the enemies
    /// in sight have struck it ([`ThreatMap::standing`]).
    fn standing(&mut self, i: usize, at: Tile, weapon: Option<Atom>, hp: i64, cache: &mut Forecasts) -> f64 {
        if hp <= 0 {
            return 0.0;
        }
        if !self.threats.reaches(at) {
            return 1.0;
        }
        let Some((loadout, id)) = self.target(i, weapon, at, cache) else { return 1.0 };
        let target = self.target_of(i, &loadout, id, hp);
        let room = self.room(at, i);
        let blows = self.threats.blows(self.battle().engine, cache, at, &target);
        let standing = self.threats.standing(&blows, &target, room);
        self.threats.give_back(blows);
        standing
    }

    /// [`Decision::danger`] with the unit holding the resources `holding` (a Guard's points).
    fn danger_holding(
        &mut self,
        i: usize,
        at: Tile,
        (weapon, hp): (Option<Atom>, i64),
        holding: &[(Atom, i64)],
        cache: &mut Forecasts,
    ) -> f64 {
        if hp <= 0 || !self.threats.reaches(at) {
            return 0.0;
        }
        let b = self.battle();
        let l = if b.situated() { b.loadout_moved(i, false, (i, at)) } else { b.loadout_of(i, false) };
        let Some(mut l) = l else { return 0.0 };
        l.weapon = weapon;
        l.terrain = b.terrain_atom_at(at);
        l.hp = None;
        for (r, v) in holding {
            match l.resources.iter_mut().find(|(n, _)| n == r) {
                Some(slot) => slot.1 = *v,
                None => l.resources.push((*r, *v)),
            }
        }
        let id = cache.id(&l);
        let target = self.target_of(i, &l, id, hp);
        let elsewhere = self.elsewhere(i);
        let room = self.room(at, i);
        let blows = self.threats.blows(self.battle().engine, cache, at, &target);
        let danger = self.threats.danger(&blows, &target, room, &elsewhere, None, self.lead);
        self.threats.give_back(blows);
        danger
    }

    /// Tiles next to `t` an enemy could strike from (on the map, passable, not ours but `mover`'s).
    fn room(&self, t: Tile, mover: usize) -> usize {
        let b = self.battle();
        let from = b.units.get(mover).map(|u| u.pos);
        let (width, open) = (self.open.0, &self.open.1);
        let height = b.map.height.max(0);
        crate::battle::neighbours(t)
            .into_iter()
            .filter(|n| match tile_index(*n, (width, height)).and_then(|k| open.get(k)) {
                Some(2) => true,
                Some(1) => Some(*n) == from,
                _ => false,
            })
            .count()
    }

    /// The walking guides for movement type `kind`, worked out on its first use in this decision
    /// (a plan asks once, for each tile it weighs).
    fn guides(&mut self, kind: &str) -> Option<Rc<Guides>> {
        if !self.guides.contains_key(kind) {
            let (b, side, stakes) = (self.view.battle, self.side, &self.stakes);
            let mut enemy: Vec<Tile> = self.view.enemies().map(|(_, u)| u.pos).collect();
            if enemy.is_empty() {
                // Nobody in sight: toward where enemies were last seen.
                enemy = self.remembered.clone();
            }
            if enemy.is_empty() {
                // Nobody in sight nor remembered: a side with ground to hold waits for the enemy
                // on it.
                enemy = stakes.hold.clone();
            }
            if enemy.is_empty() && self.view.sight.fogged() && stakes.urgency <= 0.0 && stakes::free_to_wait(&b.scenario, side) {
                // Nobody in sight nor remembered under fog, a side free to wait while the clock
                // is calm: up to its watch line short of the middle, to wait there for the enemy
                // to come into its sight (`stakes::watch_line`).
                enemy = stakes::watch_line(b, side);
            }
            if enemy.is_empty() {
                // Nobody in sight nor remembered, no ground to hold: toward where the enemy
                // deployed (under fog, while a tile of it out of sight has never been seen).
                let zone = crate::battle::zone_tiles(&b.scenario, &b.map, side.other()).to_vec();
                enemy = match &self.unswept {
                    // An enemy lost: where it may stand, near where it vanished.
                    _ if !self.lost.is_empty() => self.lost.clone(),
                    // Toward the tiles of it never seen: a unit standing on a tile of the zone
                    // seen already has not arrived (measured: toward the whole zone, units that
                    // stood in the enemy's zone with a corner of it out of sight waited there to
                    // the time limit while the enemy's last unit stood in theirs).
                    Some((0, tiles)) if zone.iter().any(|t| tiles.contains(t)) => {
                        zone.into_iter().filter(|t| tiles.contains(t)).collect()
                    }
                    // Else a sweep, toward the tiles out of sight seen longest ago: an enemy
                    // that slipped by is looked for where it may be, not waited for where it
                    // deployed.
                    Some((_, tiles)) if !tiles.is_empty() => tiles.clone(),
                    _ => zone,
                };
            }
            let walks = &mut self.walks;
            let goal = (!stakes.goals.is_empty()).then(|| walks.guide(b, kind, &stakes.goals));
            let region: Vec<Tile> = stakes.hold.iter().chain(&stakes.contest).copied().collect();
            let region = (!region.is_empty()).then(|| walks.guide(b, kind, &region));
            let enemy = walks.toward(b, kind, enemy);
            self.guides.insert(kind.to_string(), Rc::new(Guides { enemy, goal, region }));
        }
        self.guides.get(kind).cloned()
    }
}
