//! The engine: runs compiled rules. Derived stats, one combat exchange, the exact forecast of its
//! outcomes, and a seeded resolver that plays it strike by strike.
//!
//! **Boundary:** depends on `oc-model` (and `oc-diag`, for its errors' diagnostics) only.
//! **Invariant:** no source file here names a tag, class, weapon type or ruleset
//! (`tests/no_rules_in_rust.rs` greps for every built-in ruleset's names): everything a tag
//! does arrives as model effects, everything combat does as the ruleset's formulas.
//!
//! The contract with a ruleset is names: the combat formulas `hit`, `critical`, `damage`,
//! `critical_damage` and `follow_up` (the compiler requires them), `backfire`, `strikes`,
//! `counter`, `counter_any_range`, `defender_first` and `simultaneous` where written; the base attribute `hp`; and, where a
//! ruleset has them, the attributes `movement`, `movement_type`, `can_move`, `can_attack`,
//! `canto`, `charges`, `area_attack`, `attack_form` and `vision`. Everything else is a [`oc_model::Verb`] or
//! an [`oc_model::Event`] of `oc_model::conformance`, every one of which the engine executes.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::string_slice)]

pub mod ai;
pub mod battle;
mod build;
mod combat;
mod conform;
pub mod dice;
mod error;
mod eval;
mod exec;
mod fx;
mod inputs;
mod ir;
mod lookup;
mod strike;
#[cfg(test)]
mod testing;
mod unit;

use std::collections::HashMap;

use oc_model as m;
pub use oc_model::Atom;

pub use combat::strategy::Strategy;
pub use combat::{Ending, Exchange, Forecast, Laid, Odds, Outcome, Resolution, SideForecast, StrikeLog};
pub use dice::{rng, roll_die};
pub use error::{BattleError, EngineError, Rule, CODES};
/// The engine's diagnostic codes by name (`oc_engine::CODES` lists them with their texts).
pub mod error_codes {
    pub use crate::error::{
        CANNOT_WIELD, ITEMS, MODEL, MOVE, NOT_A, NO_UNIT, OUT_OF_REACH, OVER, PLACE, REQUIREMENT, RESTRICTED, SETUP, TARGET,
        TOO_MANY_FACES, TURN, UNARMED, UNKNOWN_NAME, UNKNOWN_REACTION,
    };
}
pub use rand_chacha::ChaCha8Rng;
pub use unit::Shown;

/// Which stat block of a shifter to use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Form {
    /// Transformed for shifters (they fight transformed), the only block for everyone else.
    #[default]
    Default,
    Normal,
}

/// A unit as the user describes it. Hashed by each name's interned place, not its text
/// (`hash_loadout`): an atom's text is the one copy, so equal loadouts hash alike.
#[derive(Debug, Default, Eq)]
pub struct Loadout {
    pub class: Atom,
    pub weapon: Option<Atom>,
    pub accessory: Option<Atom>,
    /// Unit tags (scenario tags and the like), with constant arguments.
    pub tags: Vec<(Atom, Vec<m::Value>)>,
    pub statuses: Vec<Atom>,
    pub terrain: Option<Atom>,
    /// Current HP (default: full).
    pub hp: Option<i64>,
    pub form: Form,
    /// Debuffs in force (the `debuff` verb): (attribute, shift), e.g. ("spd", -1).
    pub debuffs: Vec<(Atom, i64)>,
    /// Current amounts of the ruleset's resources (`stamina`), by name; one not listed is full
    /// (its declared amount, or 0 where that amount is rolled).
    pub resources: Vec<(Atom, i64)>,
    /// Its figures at full strength (0 and 1: one), all of its class: its hit points are the
    /// class's for each (seed 003's "Units of one or more figures").
    pub figures: u32,
    /// The weapons it carries (its own `weapon` may be among them, and is left out): those that
    /// are attack forms (the attribute `attack_form`, where its own weapon's holds too) strike in
    /// the same exchange, after its own weapon.
    pub carried: Vec<Atom>,
    /// Attributes set by where the unit stands (a battle's advanced rules: the `ground` of
    /// `oc_model::Situations`), after every modifier: at most the one, held in place (a battle
    /// builds loadouts often).
    pub placed: Placed,
}

/// A loadout's attributes placed by where it stands ([`Loadout::placed`]).
pub type Placed = smallvec::SmallVec<[(Atom, i64); 1]>;

/// Field by field, [`Loadout::placed`] copied in place (a `SmallVec`'s own clone goes item by
/// item: loadouts are copied often).
impl Clone for Loadout {
    fn clone(&self) -> Self {
        // Every field named, so that a field added to `Loadout` cannot be left out here.
        let Loadout { class, weapon, accessory, tags, statuses, terrain, hp, form, debuffs, resources, figures, carried, placed } =
            self;
        Loadout {
            class: *class,
            weapon: *weapon,
            accessory: *accessory,
            tags: tags.clone(),
            statuses: statuses.clone(),
            terrain: *terrain,
            hp: *hp,
            form: *form,
            debuffs: debuffs.clone(),
            resources: resources.clone(),
            figures: *figures,
            carried: carried.clone(),
            placed: Placed::from_slice(placed),
        }
    }
}

/// Field by field, the plain values first, [`Loadout::placed`] as a slice.
impl PartialEq for Loadout {
    fn eq(&self, b: &Loadout) -> bool {
        // Every field named, so that a field added to `Loadout` cannot be left out here.
        let Loadout { class, weapon, accessory, tags, statuses, terrain, hp, form, debuffs, resources, figures, carried, placed } =
            self;
        *hp == b.hp
            && *class == b.class
            && *weapon == b.weapon
            && *terrain == b.terrain
            && *form == b.form
            && *figures == b.figures
            && *accessory == b.accessory
            && *statuses == b.statuses
            && *tags == b.tags
            && *debuffs == b.debuffs
            && *resources == b.resources
            && *carried == b.carried
            && placed.as_slice() == b.placed.as_slice()
    }
}

impl std::hash::Hash for Loadout {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        hash_loadout_at(self, self.hp, h);
    }
}

impl Loadout {
    pub fn new(class: &str, weapon: Option<&str>) -> Loadout {
        Loadout { class: Atom::new(class), weapon: weapon.map(Atom::new), ..Loadout::default() }
    }
}

/// Compiled rules, ready to run.
pub struct Engine {
    pub rules: m::Rules,
    ir: ir::Ir,
    item_modifiers: HashMap<String, Vec<ir::Eff>>,
    item_ranges: HashMap<String, (ir::E, ir::E)>,
    /// Each resource's attribute and, where it rolls no dice, its value when full (what a unit
    /// outside a battle holds: forecasts and duels); a rolled one holds 0 there.
    resource_full: Vec<(u16, Option<ir::E>)>,
    reactions: Vec<combat::ReactionIr>,
    /// Units built, by loadout and added statuses: a unit's derived stats are worked out once
    /// (matchups, forecasts and a battle's moves ask for the same loadouts again and again).
    units: std::sync::RwLock<UnitCache>,
    /// Terrains by name: a battle looks up the terrain of a tile at every step of every path.
    terrain_ids: fx::FastMap<String, usize>,
    /// Classes, items, tags and statuses by name (`Engine::class`...): a battle and its AIs look
    /// them up at every turn.
    names: Names,
    /// By movement type: what entering each terrain costs it (by terrain index), `None` where it
    /// cannot (the Terrain Table's columns, read once: every path reads them). A few types,
    /// found by the atom (one pointer compared each).
    movement_costs: lookup::MovementCosts,
    /// The movement type of a unit whose attributes name none: the rules' first.
    default_movement: Atom,
    /// By terrain index: whether some movement type may enter it.
    open_terrains: Vec<bool>,
    /// How the exchanges the AIs asked about end, shared by every game this engine plays (a
    /// simulation's games, on every thread, meet the same matchups again and again).
    endings: std::sync::RwLock<EndingCache>,
    /// The weapon triangle by interned weapon type (`Unit::weapon_type_id`): each ordered pair
    /// of types it favours or disfavours, sorted (`Rules::triangle` compares names).
    triangles: Vec<((u32, u32), i64)>,
    /// Each matchup's plan, made by its second forecast (`combat::Plan`): the same matchup asked
    /// again (an AI's, an editor's) is a copy of its forecast. A matchup asked once (`oc matrix`)
    /// costs only its hash in `sighted`, not a plan.
    plans: std::sync::RwLock<PlanCache>,
    sighted: std::sync::Mutex<fx::FastMap<u64, ()>>,
    /// This engine's number, unique in the process (`Engine::serial`).
    serial: u64,
    /// What an exchange reads of a loadout: what `endings` are keyed by.
    inputs: inputs::ExchangeInputs,
    /// `Engine::attack_form`.
    attack_form: Option<u16>,
    /// `Engine::mobility_attrs`.
    mobility_attrs: [Option<u16>; 3],
    /// The scenarios and maps battles were last set up on, shared (`battle::Grounds`).
    grounds: battle::Grounds,
}

/// The place of each class, item, tag and status in the rules, by name: the first of a name, as
/// `Rules::class` and the others find it.
#[derive(Debug, Default)]
struct Names {
    classes: fx::FastMap<String, usize>,
    items: fx::FastMap<String, usize>,
    tags: fx::FastMap<String, usize>,
    statuses: fx::FastMap<String, usize>,
    /// Each terrain's and each resource's name as an atom, by index (what a battle's loadouts
    /// name without making an atom again).
    terrains: Vec<Atom>,
    resources: Vec<Atom>,
    /// `classes` and `items` by the text of each name's atom (its address and length: an atom's
    /// text is the one copy, so a name read from an atom is found without hashing or comparing
    /// its bytes).
    class_atoms: fx::FastMap<(usize, usize), usize>,
    item_atoms: fx::FastMap<(usize, usize), usize>,
    /// The advanced rules' names as atoms (`Battle::situation` lays them on every loadout made).
    situation: SituationNames,
    /// By interned name (`Ir::name`): whether it is a tag's ([`Engine::is_tag`]).
    tag_ids: Vec<bool>,
}

/// Where `text` lies in memory: the key of [`Names::class_atoms`]. Two texts at one address with
/// one length are one text.
fn text_key(text: &str) -> (usize, usize) {
    (text.as_ptr() as usize, text.len())
}

/// The names `advanced leadership` and `advanced situations` lay on a unit by where it stands,
/// as atoms, made once (`battle::advanced`).
#[derive(Debug, Default)]
pub(crate) struct SituationNames {
    /// Leadership's status for a unit beyond its general's reach.
    pub beyond: Option<Atom>,
    pub ground: Option<Atom>,
    pub flank: Option<Atom>,
    pub rear: Option<Atom>,
    pub blind: Option<Atom>,
    /// The flying tag and the status it gives.
    pub flying: Option<(Atom, Atom)>,
    /// By class index (`Names::classes`): whether the class has the flying tag.
    pub flying_classes: Vec<bool>,
    pub mixed: Option<Atom>,
}

impl Names {
    fn new(rules: &m::Rules) -> Names {
        fn index<'a>(names: impl Iterator<Item = &'a str>) -> fx::FastMap<String, usize> {
            let mut out = fx::FastMap::default();
            for (k, name) in names.enumerate() {
                out.entry(name.to_string()).or_insert(k);
            }
            out
        }
        let classes = index(rules.classes.iter().map(|c| c.name.as_str()));
        let items = index(rules.items.iter().map(|i| i.name.as_str()));
        let by_atom = |map: &fx::FastMap<String, usize>| map.iter().map(|(n, k)| (text_key(Atom::new(n).as_str()), *k)).collect();
        let atom = |name: &Option<String>| name.as_deref().map(Atom::new);
        let s = rules.ruleset.situations.as_ref();
        let situation = SituationNames {
            beyond: rules.ruleset.leadership.as_ref().and_then(|l| l.beyond.as_ref()).map(|(_, status)| Atom::new(status)),
            ground: s.and_then(|s| atom(&s.ground)),
            flank: s.and_then(|s| atom(&s.flank)),
            rear: s.and_then(|s| atom(&s.rear)),
            blind: s.and_then(|s| atom(&s.blind)),
            flying: s.and_then(|s| s.flying.as_ref()).map(|(tag, aloft)| (Atom::new(tag), Atom::new(aloft))),
            flying_classes: rules
                .classes
                .iter()
                .map(|c| s.and_then(|s| s.flying.as_ref()).is_some_and(|(tag, _)| c.tags.iter().any(|t| t.tag.as_str() == tag)))
                .collect(),
            mixed: s.and_then(|s| atom(&s.mixed)),
        };
        Names {
            class_atoms: by_atom(&classes),
            item_atoms: by_atom(&items),
            situation,
            classes,
            items,
            tags: index(rules.tags.iter().map(|t| t.name.as_str())),
            statuses: index(rules.statuses.iter().map(|s| s.name.as_str())),
            terrains: rules.terrains.iter().map(|t| Atom::new(&t.name)).collect(),
            resources: rules.ruleset.resources.iter().map(|r| Atom::new(&r.name)).collect(),
            tag_ids: Vec::new(),
        }
    }
}

/// Endings by attacker, defender, distance and whether the exchange is one strike.
/// (attacker, defender, distance, single, moved, cover): [`Engine::ending_shared`]'s arguments.
type EndingKey = (Loadout, Loadout, i64, bool, bool, i64);
type EndingCache = fx::Checked<EndingKey, std::sync::Arc<Ending>>;

/// Plans by attacker, defender and distance: [`Engine::forecast`]'s arguments.
type PlanKey = (Loadout, Loadout, i64);
type PlanCache = fx::Checked<PlanKey, std::sync::Arc<combat::Plan>>;

/// A matchup's hash for its plan: of its loadouts' keys in the units' cache (`units`, each a
/// `build::unit_hash`: each name by its interned place, not its text as `Hash` for `Atom`
/// reads) and the distance. Only looked up, never iterated.
fn plan_hash_of(units: [u64; 2], distance: i64) -> u64 {
    fx::hash_of(&(units, distance))
}

/// A loadout into `h`, each name by its interned place ([`plan_hash_of`]; [`Engine::unit`]'s cache).
pub(crate) fn hash_loadout(l: &Loadout, h: &mut fx::Fx) {
    hash_loadout_at(l, l.hp, h);
}

/// [`hash_loadout`] with `hp` in place of the loadout's own hit points (`None`: a loadout's
/// hash but for them, `combat/faces.rs`).
pub(crate) fn hash_loadout_at<H: std::hash::Hasher>(l: &Loadout, hp: Option<i64>, h: &mut H) {
    use std::hash::Hash;
    let atom = |a: &Atom, h: &mut H| (a.as_str().as_ptr() as usize).hash(h);
    atom(&l.class, h);
    for a in [&l.weapon, &l.accessory, &l.terrain] {
        a.as_ref().map_or(0, |a| a.as_str().as_ptr() as usize).hash(h);
    }
    (hp, l.form, l.figures).hash(h);
    l.statuses.iter().for_each(|a| atom(a, h));
    for (a, args) in &l.tags {
        atom(a, h);
        args.hash(h);
    }
    for (a, n) in l.debuffs.iter().chain(&l.resources).chain(&l.placed) {
        atom(a, h);
        n.hash(h);
    }
    l.carried.iter().for_each(|a| atom(a, h));
    for n in [l.statuses.len(), l.tags.len(), l.debuffs.len(), l.resources.len(), l.placed.len(), l.carried.len()] {
        h.write_usize(n);
    }
}

/// The most plans an engine keeps (in two generations), and matchups it notes as asked for.
const PLAN_CACHE: usize = 1 << 13;

/// The most endings [`Engine::ending_shared`] keeps (in two generations: `fx::Checked`). Kept
/// small for memory: about 1.3 KB an entry where units have many figures. The Storm at the River
/// asks most (`oc fairness`, 300 games, one thread): 44% found at this size, 63% with no bound
/// (the rest asked for the first time, 647 a game). At 2^18, the Storm took 11% less CPU and
/// 180 MB more; `oc fairness scenarios --games 1000` took 7% less wall time (within its ±5% from
/// run to run) and 290 MB more (532 -> 820 MB peak).
const FORECAST_CACHE: usize = 1 << 15;

/// A loadout and the unit [`Engine::unit`] built from it ([`Engine::prepare`]).
pub struct Prepared {
    loadout: Loadout,
    unit: std::sync::Arc<unit::Unit>,
    /// The loadout's `build::unit_hash`, for the matchups' plans (hashed once, not once a
    /// matchup).
    hash: u64,
}

/// Units by loadout and added statuses.
type UnitCache = fx::Checked<(Loadout, Vec<u32>), std::sync::Arc<unit::Unit>>;

/// The most units [`Engine::unit`] keeps (in two generations); past it the oldest go (a long
/// simulation sees many hit-point and terrain combinations). A unit holds a slot for every
/// formula (about 8 KB in the shipped scenario with the most figures), and that scenario builds
/// some 480 new ones a game, few of them met again in a later game: at 2^16 the cache grew for
/// 135 games (284 MB at 40 games, one thread); at 2^14, 261 MB at 40 games and at most some
/// 130 MB of units after, for 10% more units built.
const UNIT_CACHE: usize = 1 << 14;

impl Engine {
    pub fn new(rules: m::Rules) -> Result<Engine, EngineError> {
        Engine::with_strategy(rules, Strategy::FAST)
    }

    /// [`Engine::new`] working forecasts out by `strategy`: every strategy gives the same bits
    /// ([`Strategy::REFERENCE`] is the plain way the others are held to).
    pub fn with_strategy(rules: m::Rules, strategy: Strategy) -> Result<Engine, EngineError> {
        conform::check(&rules)?;
        let mut ir = ir::Ir::build(&rules)?;
        ir.strategy = strategy;
        let mut item_modifiers = HashMap::new();
        let mut item_ranges = HashMap::new();
        for item in &rules.items {
            if !item.modifiers.is_empty() {
                item_modifiers.insert(item.name.to_string(), ir.effects_of(&item.modifiers, &[])?);
            }
            if let Some(r) = &item.range {
                item_ranges.insert(item.name.to_string(), (ir.expr(&r.min, &[])?, ir.expr(&r.max, &[])?));
            }
        }
        let mut resource_full = Vec::new();
        for r in &rules.ruleset.resources {
            let attr =
                ir.attr_id(&r.name).ok_or_else(|| EngineError::model(format!("the resource {} has no attribute", r.name)))?;
            let full = if r.value.rolls() { None } else { Some(ir.expr(&r.value, &[])?) };
            resource_full.push((attr, full));
        }
        let reactions = combat::compile_reactions(&mut ir, &rules)?;
        // The triangle between weapon types by interned id (`Ir::build` interns every declared
        // type; a unit whose type has no id is looked up by name).
        let typed: Vec<&String> = rules.weapon_types.iter().map(|t| &t.name).chain(rules.triangles.iter().flatten()).collect();
        let ids: Vec<(u32, &String)> = typed.iter().filter_map(|t| Some((ir.name_id(t)?, *t))).collect();
        let mut triangles: Vec<((u32, u32), i64)> = ids
            .iter()
            .flat_map(|(p, pn)| ids.iter().map(move |(q, qn)| ((*p, *q), pn, qn)))
            .map(|(k, p, q)| (k, rules.triangle(p, q)))
            .filter(|(_, v)| *v != 0)
            .collect();
        triangles.sort_unstable();
        triangles.dedup_by_key(|(k, _)| *k);
        let terrain_ids = rules.terrains.iter().enumerate().map(|(i, t)| (t.name.clone(), i)).collect();
        let names = Names::new(&rules);
        let open_terrains = rules.terrains.iter().map(|t| t.costs.values().any(Option::is_some)).collect();
        let (movement_costs, default_movement) = lookup::movement_table(&rules);
        let mut engine = Engine {
            rules,
            ir,
            item_modifiers,
            item_ranges,
            resource_full,
            reactions,
            units: std::sync::RwLock::new(fx::Checked::new(UNIT_CACHE)),
            terrain_ids,
            names,
            movement_costs,
            default_movement,
            open_terrains,
            endings: std::sync::RwLock::new(fx::Checked::new(FORECAST_CACHE)),
            triangles,
            plans: std::sync::RwLock::new(fx::Checked::new(PLAN_CACHE)),
            sighted: std::sync::Mutex::new(fx::FastMap::default()),
            serial: {
                static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            },
            inputs: inputs::ExchangeInputs::default(),
            attack_form: None,
            mobility_attrs: [None; 3],
            grounds: battle::Grounds::default(),
        };
        engine.attack_form = engine.ir.attr_id("attack_form");
        engine.mobility_attrs = ["movement", "movement_type", "can_move"].map(|a| engine.ir.attr_id(a));
        engine.inputs = inputs::ExchangeInputs::new(&engine);
        engine.names.tag_ids = engine.ir.names.iter().map(|n| engine.names.tags.contains_key(n.as_str())).collect();
        Ok(engine)
    }

    /// A number no other engine of this process has: what a cache of what this engine works out,
    /// kept beyond one battle (the greedy AI's forecasts), is kept by.
    pub(crate) fn serial(&self) -> u64 {
        self.serial
    }

    /// The weapon triangle from weapon type `attacker` to `defender` (interned): `Rules::triangle`.
    pub(crate) fn triangle(&self, attacker: u32, defender: u32) -> i64 {
        self.triangles
            .binary_search_by_key(&(attacker, defender), |(k, _)| *k)
            .ok()
            .and_then(|i| self.triangles.get(i))
            .map_or(0, |t| t.1)
    }

    /// The exact forecast of `attacker` attacking `defender` from `distance` tiles.
    pub fn forecast(&self, attacker: &Loadout, defender: &Loadout, distance: i64) -> Result<Forecast, EngineError> {
        // Each loadout hashed once: for the matchup's plan and for its unit.
        let units = [build::unit_hash(attacker, &[]), build::unit_hash(defender, &[])];
        self.forecast_with(attacker, defender, distance, plan_hash_of(units, distance), || {
            let [a, d] = units;
            let built = [self.unit_hashed(attacker, &[], a)?, self.unit_hashed(defender, &[], d)?];
            Exchange::with_units(self, [attacker, defender], built, distance)
        })
    }

    /// A forecast from the matchup's plan where one is kept; else worked out by the exchange
    /// `exchange` makes, and its plan kept where the matchup was asked for before.
    fn forecast_with<'e>(
        &'e self,
        attacker: &Loadout,
        defender: &Loadout,
        distance: i64,
        hash: u64,
        exchange: impl FnOnce() -> Result<Exchange<'e>, EngineError>,
    ) -> Result<Forecast, EngineError> {
        if !self.ir.strategy.plans {
            return Ok(exchange()?.forecast());
        }
        if let Some(f) = self.plan_of(hash, attacker, defender, distance).and_then(|p| p.forecast()) {
            return Ok(f);
        }
        let x = exchange()?;
        if !self.sighted(hash) {
            return Ok(x.forecast());
        }
        let (f, plan) = x.forecast_planned();
        if let (Some(plan), Ok(mut plans)) = (plan, self.plans.write()) {
            plans.insert(hash, (attacker.clone(), defender.clone(), distance), std::sync::Arc::new(plan));
        }
        Ok(f)
    }

    /// The plan kept for a matchup, by its [`plan_hash_of`].
    fn plan_of(&self, hash: u64, attacker: &Loadout, defender: &Loadout, distance: i64) -> Option<std::sync::Arc<combat::Plan>> {
        let is = |k: &PlanKey| k.2 == distance && k.0 == *attacker && k.1 == *defender;
        self.plans.read().ok()?.get(hash, is)
    }

    /// Whether a matchup with this hash was forecast before (a plan is made at the second); noted
    /// now if not. Two matchups with one hash make a plan early, never a wrong one.
    fn sighted(&self, hash: u64) -> bool {
        let Ok(mut seen) = self.sighted.lock() else { return true };
        if seen.len() >= PLAN_CACHE {
            seen.clear();
        }
        seen.insert(hash, ()).is_some()
    }

    /// Whether a matchup's plan is kept (tests).
    #[cfg(test)]
    pub(crate) fn planned(&self, attacker: &Loadout, defender: &Loadout, distance: i64) -> Option<std::sync::Arc<combat::Plan>> {
        let hash = plan_hash_of([build::unit_hash(attacker, &[]), build::unit_hash(defender, &[])], distance);
        self.plan_of(hash, attacker, defender, distance)
    }

    /// A loadout with its unit built, for [`Engine::forecast_prepared`]: a caller that forecasts
    /// one loadout against many (`oc matrix`) builds it once, not once a matchup.
    pub fn prepare(&self, loadout: &Loadout) -> Result<Prepared, EngineError> {
        Ok(Prepared { unit: self.unit(loadout, &[])?, loadout: loadout.clone(), hash: build::unit_hash(loadout, &[]) })
    }

    /// [`Engine::forecast`] of prepared loadouts: the same forecast, without looking their units
    /// up in the engine's shared cache for every matchup.
    pub fn forecast_prepared(&self, attacker: &Prepared, defender: &Prepared, distance: i64) -> Result<Forecast, EngineError> {
        let (a, d) = (&attacker.loadout, &defender.loadout);
        self.forecast_with(a, d, distance, plan_hash_of([attacker.hash, defender.hash], distance), || {
            Exchange::with_units(self, [a, d], [attacker.unit.clone(), defender.unit.clone()], distance)
        })
    }

    /// [`Engine::forecast_prepared`]'s chances of a rout and damage taken (the same bits), without
    /// the rest of the forecast: what a table of every matchup (`oc matrix`) reads.
    pub fn odds_prepared(&self, attacker: &Prepared, defender: &Prepared, distance: i64) -> Result<Odds, EngineError> {
        let units = [attacker.unit.clone(), defender.unit.clone()];
        Ok(Exchange::with_units(self, [&attacker.loadout, &defender.loadout], units, distance)?.odds())
    }

    /// How the exchange of [`Engine::forecast`] ends (or, with `single`, of one strike and no
    /// reply: a free attack), worked out once for every game this engine plays. It is a pure
    /// function of its loadouts and distance, so a cached one is the same, bit for bit, as a
    /// fresh one, and its odds are the forecast's. `moved`: the attacker moved in the step that
    /// made the attack (`attacker.moved`); `cover`: how hidden the defender is (`cover`); each
    /// ignored, and the same ending shared, where no rule reads it. Reactions to a roll
    /// (`reroll`) are weighed as in forecasts: what the AIs read.
    pub fn ending_shared(
        &self,
        attacker: &Loadout,
        defender: &Loadout,
        distance: i64,
        single: bool,
        (moved, cover): (bool, i64),
    ) -> Result<std::sync::Arc<Ending>, EngineError> {
        Ok(self.ending_walked(attacker, defender, distance, single, (moved, cover), false)?.0)
    }

    /// What an exchange one side makes reads of its situation: `moved` (the attacker moved to
    /// make it) where a rule reads `attacker.moved` in such an exchange (not only the order of
    /// attack of an answer fought in one combat: `inputs::moved_read_by_order_alone`), `cover`
    /// where a rule reads `cover`; else false and 0, so the same exchange is kept once whatever
    /// they were.
    pub(crate) fn situation_read(&self, moved: bool, cover: i64) -> (bool, i64) {
        (moved && self.ir.reads_moved && !self.inputs.moved_unread(), if self.ir.reads_cover { cover } else { 0 })
    }

    /// [`Engine::ending_shared`], and where `template` and the exchange was worked out now, its
    /// walk at any hit points where it has one (`combat::Template`: what the AIs keep).
    pub(crate) fn ending_walked(
        &self,
        attacker: &Loadout,
        defender: &Loadout,
        distance: i64,
        single: bool,
        (moved, cover): (bool, i64),
        template: bool,
    ) -> Result<(std::sync::Arc<Ending>, Option<combat::Template>), EngineError> {
        // Keyed by what an exchange reads of the two loadouts (`inputs`): the same ending.
        let (a, d) = (self.inputs.canonical(self, attacker, distance), self.inputs.canonical(self, defender, distance));
        let (attacker, defender) = (a.as_ref().unwrap_or(attacker), d.as_ref().unwrap_or(defender));
        let (moved, cover) = self.situation_read(moved, cover);
        // Keyed as before `cover` where it is 0, so rulesets that never read it keep their hashes.
        let hash_at = |distance: i64| {
            if cover == 0 {
                fx::hash_of(&(attacker, defender, distance, single, moved))
            } else {
                fx::hash_of(&(attacker, defender, distance, single, moved, cover))
            }
        };
        let is_at = |distance: i64| {
            move |k: &EndingKey| {
                k.0 == *attacker && k.1 == *defender && k.2 == distance && k.3 == single && k.4 == moved && k.5 == cover
            }
        };
        let hash = hash_at(distance);
        if let Some(f) = self.endings.read().ok().and_then(|c| c.get(hash, is_at(distance))) {
            return Ok((f, None));
        }
        let keep = |at: i64, f: &std::sync::Arc<Ending>| {
            if let Ok(mut cache) = self.endings.write() {
                cache.insert(hash_at(at), (attacker.clone(), defender.clone(), at, single, moved, cover), f.clone());
            }
        };
        // A nearer distance at which the exchange ends alike (`inputs::distance`): its ending, or
        // this one's kept for it too.
        let near = self.inputs.alike_distance(self, [attacker, defender], distance, single, (moved, cover));
        if let Some(near) = near {
            if let Some(f) = self.endings.read().ok().and_then(|c| c.get(hash_at(near), is_at(near))) {
                keep(distance, &f);
                return Ok((f, None));
            }
        }
        let x = Exchange::new(self, attacker, defender, distance)?.moved([moved, false]).cover(cover);
        let x = if single { x.single() } else { x }.across();
        let f = std::sync::Arc::new(x.ending());
        let walk = if template { x.template() } else { None };
        keep(distance, &f);
        if let Some(near) = near {
            keep(near, &f);
        }
        Ok((f, walk))
    }

    /// Plays one exchange with a generator seeded by `seed`.
    pub fn duel(
        &self,
        attacker: &Loadout,
        defender: &Loadout,
        distance: i64,
        seed: u64,
    ) -> Result<(Vec<StrikeLog>, [i64; 2]), EngineError> {
        let exchange = Exchange::new(self, attacker, defender, distance)?;
        Ok(exchange.resolve(&mut rng(seed)))
    }

    /// Every attribute of `unit` as shown to a user: worked out once per unit.
    fn effective(&self, unit: &unit::Unit) -> std::sync::Arc<[(String, Shown)]> {
        unit.effective.get_or_init(|| self.effective_uncached(unit)).clone()
    }

    fn effective_uncached(&self, unit: &unit::Unit) -> std::sync::Arc<[(String, Shown)]> {
        self.ir
            .attrs
            .iter()
            .zip(&unit.attrs)
            .map(|((name, _), v)| {
                let shown = match v {
                    ir::V::Int(n) => Shown::Int(*n),
                    ir::V::Bool(b) => Shown::Bool(*b),
                    ir::V::Step { scale, index } => Shown::Text(
                        self.ir
                            .scales
                            .get(*scale as usize)
                            .and_then(|s| s.steps.get(*index as usize))
                            .cloned()
                            .unwrap_or_default(),
                    ),
                    ir::V::Name(id) => Shown::Text(self.ir.name(*id).to_string()),
                    ir::V::Dice(id) => Shown::Text(self.ir.shapes.get(*id as usize).map(|s| s.shape.shown()).unwrap_or_default()),
                    _ => Shown::Text(String::new()),
                };
                (name.clone(), if name == "hp" { Shown::Int(unit.max_hp) } else { shown })
            })
            .collect()
    }
}
