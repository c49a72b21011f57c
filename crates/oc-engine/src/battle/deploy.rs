//! Setting up a battle (`Battle::new`; seed 003, Placing Troops): the home edges rolled off for
//! (`deploy edges rolloff DICE`) and the armies placed in turns, a placement unit at a time
//! (`deploy alternate N`); without them each army stands where [`auto_deploy`] puts it.
//!
//! Readings (the seed leaves them open): the winner of the roll-off takes the zone whose open
//! tiles give the better mean terrain defence (its own on a tie); the side that deploys first
//! (`deploy first`) places first; a placement unit's fighters take the free tiles nearest the
//! enemy already placed (the enemy's zone before anyone is), its shooters after them, so they
//! stand behind.

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use oc_model as m;
use oc_model::Atom;
use serde::{Deserialize, Serialize};

use super::{advanced, distance, side_index, Battle, BattleError, BattleState, Combatant, Morale, Record, Rule, State, Tile};
use crate::dice::{rng, roll};
use crate::{Engine, Loadout};

/// What the set-up rolled and chose, logged with the battle's start.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Setup {
    /// The home-edge roll-off, [attacker, defender] per throw (ties throw again); empty without
    /// `deploy edges`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rolls: Vec<[i64; 2]>,
    /// Each side's zone, [attacker, defender], as the roll-off's winner chose them.
    pub zones: [String; 2],
    /// The placement units in the order they were placed: the side and its units' indices in
    /// its army; empty without `deploy alternate`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub placed: Vec<(m::SideId, Vec<usize>)>,
}

/// Where both armies stand at the start, and what the set-up rolled.
#[derive(Clone, Debug, PartialEq)]
pub struct Deployment {
    /// Each army's tiles, in unit order: [attacker, defender].
    pub tiles: [Vec<Tile>; 2],
    /// `None` when the scenario leaves set-up to its zones (no roll-off, no turns).
    pub setup: Option<Setup>,
    /// Each side's zone, [attacker, defender], after any roll-off for home edges.
    pub zones: [String; 2],
}

/// The weapon a unit deploys with in hand: the first weapon of its items.
fn first_weapon<'a>(engine: &Engine, mut items: impl Iterator<Item = &'a str>) -> Option<Atom> {
    items.find(|i| engine.item(i).is_some_and(|it| it.kind == m::ItemKind::Weapon)).map(Atom::new)
}

impl Battle<'_> {
    /// Unit `k` as the battle began (the log's `Start` record): what a side that never saw it
    /// knows of it. A unit formed by dividing another ([`Combatant::parent`]) as the one it
    /// came from began (that one's parent's, where it too was formed so): what it carries came
    /// from there, and what was used up or traded away before it divided, out of sight, is not
    /// known. `None` where the log holds no start: a copy's (copies begin with an empty log).
    pub(crate) fn deployed(&self, k: usize) -> Option<&Combatant> {
        let Some(Record::Start { units, .. }) = self.log.first() else { return None };
        let mut k = k;
        // Each step goes to an older unit: at most as many as there are units.
        for _ in 0..=self.state.units.len() {
            if let Some(u) = units.get(k) {
                return Some(u);
            }
            k = self.state.units.get(k)?.parent?;
        }
        None
    }

    /// What unit `k` deployed with: what it carried and the weapon it held as the battle began
    /// ([`Battle::deployed`]), what a side that never saw it takes it to carry (one used up,
    /// discarded or traded away out of sight is not known to be gone); where that is not known,
    /// what it carries and holds now.
    pub(crate) fn deployed_kit(&self, k: usize) -> (&[Atom], Option<Atom>) {
        match self.deployed(k).or_else(|| self.state.units.get(k)) {
            Some(u) => (&u.items, u.equipped),
            None => (&[], None),
        }
    }
}

/// The seed of the set-up's own dice: apart from the battle's, so a scenario without a
/// roll-off plays the same dice as before, and the roll-off the same whatever follows.
fn setup_seed(seed: u64) -> u64 {
    seed ^ 0x5e70_9d1c_e0ed_6e5a
}

/// Each side's zone, [attacker, defender], and the roll-off's throws: the scenario's zones
/// unless `deploy edges` rolled and the winner took the other one.
pub fn home_zones(engine: &Engine, scenario: &m::Scenario, map: &m::BattleMap, seed: u64) -> ([String; 2], Vec<[i64; 2]>) {
    let written = [scenario.attacker.zone.clone(), scenario.defender.zone.clone()];
    let Some(dice) = &scenario.home_edges else { return (written, Vec::new()) };
    let shape =
        engine.rules.ruleset.dice.iter().find(|d| d.name == *dice).map_or_else(|| m::DiceShape::d(6), |d| d.shape.clone());
    let mut rng = rng(setup_seed(seed));
    let mut rolls = Vec::new();
    // Ties throw again; after 64 ties in a row (a die of one face) the defender keeps its edge.
    let mut winner = None;
    for _ in 0..64 {
        let (a, d) = (roll(&mut rng, &shape), roll(&mut rng, &shape));
        rolls.push([a, d]);
        if a != d {
            winner = Some(if a > d { 0 } else { 1 });
            break;
        }
    }
    let Some(w) = winner else { return (written, rolls) };
    let [own, other] = if w == 0 { written.clone() } else { [written[1].clone(), written[0].clone()] };
    if ground(engine, map, &other) > ground(engine, map, &own) {
        (if w == 0 { [other, own] } else { [own, other] }, rolls)
    } else {
        (written, rolls)
    }
}

/// A zone's worth to the side choosing its edge: the mean terrain defence of its open tiles,
/// in thousandths (an empty zone is worth nothing).
fn ground(engine: &Engine, map: &m::BattleMap, zone: &str) -> i64 {
    let tiles: Vec<i64> = map
        .region(zone)
        .map(|r| r.tiles.iter().filter_map(|t| terrain(engine, map, *t)).filter(|tr| open(tr)).map(|tr| tr.defense).collect())
        .unwrap_or_default();
    if tiles.is_empty() {
        return i64::MIN;
    }
    tiles.iter().sum::<i64>() * 1000 / tiles.len() as i64
}

fn terrain<'e>(engine: &'e Engine, map: &m::BattleMap, t: Tile) -> Option<&'e m::Terrain> {
    if t.0 < 0 || t.1 < 0 || t.0 >= map.width || t.1 >= map.height {
        return None;
    }
    map.terrain.get((t.1 * map.width + t.0) as usize).and_then(|n| engine.rules.terrain(n))
}

fn open(tr: &m::Terrain) -> bool {
    tr.costs.values().any(Option::is_some)
}

/// Where both armies stand at the start of a game of `seed`: the home edges rolled off for and
/// the placement units placed in turns where the scenario says so, else [`auto_deploy`].
pub fn deploy(engine: &Engine, scenario: &m::Scenario, map: &m::BattleMap, armies: [&m::Army; 2], seed: u64) -> Deployment {
    let (zones, rolls) = home_zones(engine, scenario, map, seed);
    let mut chosen = scenario.clone();
    chosen.attacker.zone = zones[0].clone();
    chosen.defender.zone = zones[1].clone();
    let Some(groups) = scenario.placement_units else {
        let tiles = [m::SideId::Attacker, m::SideId::Defender]
            .map(|side| auto_deploy(engine, &chosen, map, side, armies[usize::from(side == m::SideId::Defender)].units.len()));
        let setup = scenario.home_edges.as_ref().map(|_| Setup { rolls, zones: zones.clone(), placed: Vec::new() });
        return Deployment { tiles, setup, zones };
    };
    let parts = armies.map(|a| placement_units(engine, a, groups));
    let first = usize::from(scenario.deploy_first == m::SideId::Defender);
    let mut tiles: [Vec<Option<Tile>>; 2] = armies.map(|a| vec![None; a.units.len()]);
    let mut taken: Vec<Tile> = Vec::new();
    let mut placed = Vec::new();
    for k in 0..groups as usize {
        for side in [first, 1 - first] {
            let Some(group) = parts[side].get(k) else { continue };
            let enemy: Vec<Tile> = tiles[1 - side].iter().flatten().copied().collect();
            let target = centre(&enemy).unwrap_or_else(|| zone_centre(map, &zones[1 - side]));
            let mut order = group.clone();
            // Fighters first, to the front; shooters take the tiles behind them.
            order.sort_by_key(|&u| (armies[side].units.get(u).is_some_and(|unit| ranged(engine, unit)), u));
            for u in order {
                let free = free_tiles(engine, map, &zones[side], &taken);
                // Nearest by the distance units move, then as the crow flies (the front, not a
                // corner), then the first tile.
                let crow = |t: &Tile| (t.0 - target.0).pow(2) + (t.1 - target.1).pow(2);
                if let Some(at) = free.into_iter().min_by_key(|t| (distance(*t, target), crow(t), *t)) {
                    taken.push(at);
                    if let Some(slot) = tiles[side].get_mut(u) {
                        *slot = Some(at);
                    }
                }
            }
            placed.push((if side == 0 { m::SideId::Attacker } else { m::SideId::Defender }, group.clone()));
        }
    }
    // A unit the zone had no room for is left out of the list, so the battle refuses the
    // deployment ("N deployment tiles for M units") as it refuses an army too big for its zone.
    let tiles = tiles.map(|t| t.into_iter().flatten().collect());
    Deployment { tiles, setup: Some(Setup { rolls, zones: zones.clone(), placed }), zones }
}

/// An army's units in `n` placement units of about equal points (seed 003: "an equal number of
/// Placement Units of roughly the same point values"): the dearest unit first, each into the
/// group with the fewest points so far (the first of them on a tie). Fewer units than `n`: one
/// unit a group.
pub fn placement_units(engine: &Engine, army: &m::Army, n: u32) -> Vec<Vec<usize>> {
    let n = (n as usize).min(army.units.len()).max(1);
    let mut by_cost: Vec<(i64, usize)> = army.units.iter().enumerate().map(|(i, u)| (cost(engine, u), i)).collect();
    by_cost.sort_by_key(|&(c, i)| (std::cmp::Reverse(c), i));
    let mut groups: Vec<(i64, Vec<usize>)> = vec![(0, Vec::new()); n];
    for (c, i) in by_cost {
        if let Some(g) = groups.iter_mut().min_by_key(|g| g.0) {
            g.0 += c;
            g.1.push(i);
        }
    }
    groups
        .into_iter()
        .map(|(_, mut g)| {
            g.sort_unstable();
            g
        })
        .filter(|g| !g.is_empty())
        .collect()
}

/// A unit's points: its class's and items' cost for each of its figures.
fn cost(engine: &Engine, unit: &m::ArmyUnit) -> i64 {
    let class = engine.class(&unit.class).map_or(0, |c| c.cost);
    let items: i64 = unit.items.iter().filter_map(|i| engine.item(i)).map(|i| i.cost).sum();
    (class + items) * i64::from(unit.figures.max(1))
}

/// Whether a unit carries a weapon that reaches beyond the next tile (a range the wielder
/// decides counts, as army limits count it).
fn ranged(engine: &Engine, unit: &m::ArmyUnit) -> bool {
    unit.items.iter().filter_map(|i| engine.item(i)).any(m::Item::ranged)
}

fn free_tiles(engine: &Engine, map: &m::BattleMap, zone: &str, taken: &[Tile]) -> Vec<Tile> {
    map.region(zone)
        .map(|r| r.tiles.iter().copied().filter(|t| !taken.contains(t) && terrain(engine, map, *t).is_some_and(open)).collect())
        .unwrap_or_default()
}

fn centre(tiles: &[Tile]) -> Option<Tile> {
    let n = tiles.len() as i64;
    (n > 0).then(|| (tiles.iter().map(|t| t.0).sum::<i64>() / n, tiles.iter().map(|t| t.1).sum::<i64>() / n))
}

/// The tiles of `side`'s deployment zone on `map` (none where the map has no region of that name).
pub(crate) fn zone_tiles<'m>(scenario: &m::Scenario, map: &'m m::BattleMap, side: m::SideId) -> &'m [Tile] {
    map.region(&scenario.side(side).zone).map_or(&[], |r| &r.tiles)
}

fn zone_centre(map: &m::BattleMap, zone: &str) -> Tile {
    map.region(zone).and_then(|r| centre(&r.tiles)).unwrap_or((map.width / 2, map.height / 2))
}

/// Deployment tiles for an army: the zone's passable tiles nearest the enemy's zone, in order.
pub fn auto_deploy(engine: &Engine, scenario: &m::Scenario, map: &m::BattleMap, side: m::SideId, count: usize) -> Vec<Tile> {
    let (zone, enemy) = (zone_tiles(scenario, map, side), zone_tiles(scenario, map, side.other()));
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
    let mut tiles: Vec<Tile> = zone.iter().copied().filter(passable).collect();
    tiles.sort_by_key(|t| (distance(*t, centre), *t));
    tiles.truncate(count);
    tiles
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
        // `deploy edges`: the roll-off's winner may have taken the other zone.
        let (zones, _) = home_zones(engine, scenario, map, seed);
        Battle::in_zones(engine, scenario, map, armies, deploy, seed, zones)
    }

    /// [`Battle::new`] with the sides' zones already rolled off for, [attacker, defender].
    pub(super) fn in_zones(
        engine: &'e Engine,
        scenario: &m::Scenario,
        map: &m::BattleMap,
        armies: [&m::Army; 2],
        deploy: [&[Tile]; 2],
        seed: u64,
        zones: [String; 2],
    ) -> Result<Battle<'e>, BattleError> {
        let mut units = Vec::new();
        let mut taken = BTreeSet::new();
        let mut scenario = scenario.clone();
        scenario.attacker.zone = zones[0].clone();
        scenario.defender.zone = zones[1].clone();
        let scenario = &scenario;
        let weather = advanced::roll_weather(engine, scenario, seed);
        // The scenario's first deployer places first (seed 000, Deployment).
        let order = if scenario.deploy_first == m::SideId::Attacker { [0, 1] } else { [1, 0] };
        for i in order {
            let (army, tiles) = (armies[i], deploy[i]);
            let side = if i == 0 { m::SideId::Attacker } else { m::SideId::Defender };
            if army.side != side {
                return Err(BattleError::refused(
                    Rule::Setup,
                    format!("`{}` is an army for the {}", army.name, army.side.word()),
                ));
            }
            let zone = map.region(&scenario.side(side).zone).ok_or_else(|| {
                BattleError::refused(Rule::Setup, format!("the map has no zone `{}`", scenario.side(side).zone))
            })?;
            if tiles.len() != army.units.len() {
                return Err(BattleError::refused(
                    Rule::Setup,
                    format!("{} deployment tiles for {} units of `{}`", tiles.len(), army.units.len(), army.name),
                ));
            }
            for (u, at) in army.units.iter().zip(tiles) {
                if !zone.tiles.contains(at) {
                    return Err(BattleError::refused(
                        Rule::Setup,
                        format!("{} deploys at {:?}, outside `{}`", u.name, at, zone.name),
                    ));
                }
                if !taken.insert(*at) {
                    return Err(BattleError::refused(Rule::Setup, format!("two units deploy at {at:?}")));
                }
                let equipped = first_weapon(engine, u.items.iter().map(String::as_str));
                let probe =
                    engine.unit(&Loadout { class: Atom::new(&u.class), figures: u.figures, ..Loadout::default() }, &[])?;
                // `advanced formations`: every unit holds the ruleset's formation tags, as if granted.
                let mut tags: Vec<Atom> = u.tags.iter().map(Atom::from).collect();
                if let Some(f) =
                    engine.rules.ruleset.formations.as_ref().filter(|_| scenario.advanced.iter().any(|a| a == "formations"))
                {
                    tags.extend(f.tags.iter().map(Atom::from).filter(|t| !u.tags.iter().any(|x| x == t.as_str())));
                }
                units.push(Combatant {
                    name: u.name.clone(),
                    side,
                    class: Atom::new(&u.class),
                    items: u.items.iter().map(Atom::from).collect(),
                    tags,
                    equipped,
                    hp: probe.max_hp,
                    max_hp: probe.max_hp,
                    pos: *at,
                    state: State::Ready,
                    activated: false,
                    statuses: Vec::new(),
                    reverted: false,
                    transformed: false,
                    spent: Vec::new(),
                    debuffs: Vec::new(),
                    resources: Vec::new(),
                    facing: None,
                    charging: None,
                    figures: u.figures.max(1),
                    morale: Morale::default(),
                    hidden: None,
                    with: None,
                    parent: None,
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
        let (scenario_kept, map) = engine.grounds.share(scenario, map);
        let mut b = Battle {
            engine,
            scenario: scenario_kept,
            state: BattleState {
                map,
                units,
                round: 1,
                first: m::SideId::Attacker,
                to_act: m::SideId::Attacker,
                finished_first: None,
                outcome: None,
                rng: rng(seed),
                seized: None,
                escaped: Vec::new(),
                razed: Vec::new(),
                held: Vec::new(),
                opened_chests: BTreeSet::new(),
                tile_hp: HashMap::new(),
                lights: Vec::new(),
                sighted: Default::default(),
                active: None,
                queue: Vec::new(),
                stance: [None, None],
                pending: Vec::new(),
                terrain_ix: Vec::new(),
                terrain_stamp: super::movement::terrain_stamp(),
                weather: weather.as_ref().map(|w| Atom::new(&w.status)),
            },
            log: Vec::new(),
            terrain_undo: Vec::new(),
            units_undo: Vec::new(),
            quiet: false,
            silent: false,
            weakest: super::attack::may_have_to_attack_weakest(engine),
            laws: super::advanced::Laws::of(engine, scenario),
            own_dice: true,
        };
        b.state.terrain_ix = b.terrain_indices();
        // Units that begin the battle joined to another of their army (`joins`, units.rs).
        for army in armies {
            for u in army.units.iter().filter(|u| u.joins.is_some()) {
                let at = |name: &str| b.state.units.iter().position(|f| f.side == army.side && f.name == name);
                if let (Some(j), Some(k)) = (at(&u.name), u.joins.as_deref().and_then(at)) {
                    b.absorb(k, j);
                }
            }
        }
        b.face_the_enemy();
        b.log.push(Record::Start {
            scenario: scenario.name.clone(),
            map: b.state.map.name.clone(),
            seed,
            units: b.state.units.clone(),
            setup: None,
            weather,
        });
        b.log.push(Record::Round { round: 1, first: b.state.first });
        b.look();
        let all: Vec<usize> = (0..b.state.units.len()).collect();
        b.refill(None, &all);
        b.begin_round();
        Ok(b)
    }
}

/// The scenarios and maps an engine's last battles were set up on, each kept once and shared by
/// every battle set up on an equal one. A battle's states are compared with those of earlier
/// battles (the AIs' memos outlive a game, `Battle::undiced_eq`): where both hold the same copy,
/// its address answers, where each held its own, the whole map was compared at every such hit
/// (greedy against greedy on the bench's ten against ten, 1.5% of the instructions).
#[derive(Debug, Default)]
pub(crate) struct Grounds(std::sync::Mutex<Kept>);

/// The scenarios and maps [`Grounds`] keeps, the oldest first.
type Kept = (Vec<Arc<m::Scenario>>, Vec<Arc<m::BattleMap>>);

impl Grounds {
    /// The most scenarios and maps kept (a tournament sets up each field as written and with
    /// its zones swapped).
    const KEEP: usize = 4;

    /// The kept copies equal to `scenario` and `map`, or these, kept in place of the oldest.
    pub(crate) fn share(&self, scenario: &m::Scenario, map: m::BattleMap) -> (Arc<m::Scenario>, Arc<m::BattleMap>) {
        let Ok(mut kept) = self.0.lock() else { return (Arc::new(scenario.clone()), Arc::new(map)) };
        let (scenarios, maps) = &mut *kept;
        let scenario = match scenarios.iter().find(|s| ***s == *scenario) {
            Some(s) => s.clone(),
            None => keep(scenarios, Arc::new(scenario.clone())),
        };
        let map = match maps.iter().find(|k| ***k == map) {
            Some(k) => k.clone(),
            None => keep(maps, Arc::new(map)),
        };
        (scenario, map)
    }
}

/// `made`, kept last in `kept` (the oldest dropped past [`Grounds::KEEP`]).
fn keep<T>(kept: &mut Vec<Arc<T>>, made: Arc<T>) -> Arc<T> {
    if kept.len() >= Grounds::KEEP {
        kept.remove(0);
    }
    kept.push(made.clone());
    made
}

#[cfg(test)]
impl<'e> Battle<'e> {
    /// The battle of a test duel's field (`testing::duel`: its first scenario, each side's army)
    /// with dice from `seed`: ours at (1, 1), the foe at (18, 1) (and down the column from there,
    /// a unit a row, where its army fields more), far apart on a field twenty wide.
    #[allow(clippy::expect_used)]
    pub(crate) fn duel(engine: &'e crate::Engine, map: &m::BattleMap, seed: u64) -> Battle<'e> {
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(engine);
        let foes: Vec<Tile> = (1..).take(d.units.len().max(1)).map(|y| (18, y)).collect();
        Battle::new(engine, s, map, [a, d], [&[(1, 1)][..], &foes[..]], seed).expect("the battle starts")
    }
}
