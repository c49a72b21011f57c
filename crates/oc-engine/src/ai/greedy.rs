//! `greedy`, the first AI: simple and honest: for each unit waiting to act it weighs taking the objective (seize,
//! escape, raze), healing a hurt ally, and the attack with the best exact forecast, and
//! otherwise walks toward the objective or the nearest enemy. It sees only what a player sees:
//! under fog of war it decides from a [`View`] of the battle, the enemies its side sees and no
//! other (it neither targets, paths toward nor forecasts an enemy out of sight).

mod spots;
pub(super) mod verbs;
mod walk;

use std::sync::Arc;

use crate::Atom;
use oc_model as m;

use super::forecasts::{Ids, Targets, Templates};
use super::memo::Memo;
use super::recall;
use super::shelf::{self, Shelf};
use super::{objective_tiles, View};
use crate::battle::{distance, Act, Battle, Controller, State, Tile, Turn};
use crate::fx::FastMap;
use crate::Loadout;
use smallvec::SmallVec;
use verbs::Verbs;
use walk::Guides;

/// The farthest a target is weighed from (a tile farther than this from it is never a spot to
/// strike it from).
const FARTHEST: i64 = 6;

/// (chance to rout the target, expected damage dealt, expected damage taken).
pub type Prospect = (f64, f64, f64);

/// The greedy AI, as the battle's [`Controller`]. It keeps the forecasts and walking guides it
/// has worked out with the battle's engine, and when dropped leaves them to the next greedy AI
/// of its thread to play with that engine ([`KEPT`]): a simulation's battles meet the same
/// exchanges again and again. Each is a pure function of the engine and its key (loadouts by
/// number, a guide by its terrain), so a kept one is the same as a fresh one.
#[derive(Default)]
pub struct Greedy {
    forecasts: Forecasts,
    guides: Guides,
    /// The engine (`Engine::serial`) the forecasts and guides are worked out with.
    engine: Option<u64>,
    /// The turns chosen in a planner's playouts (quiet copies, `Battle::hush`), by the battle
    /// they were chosen for, its dice aside: the copies of one candidate turn meet the same
    /// battles again and again (the same moves, the same outcomes drawn): 45% of the choices in
    /// the shipped scenario whose playouts cost most, a third in one under fog (`oc simulate`,
    /// 20 games, seed 1).
    /// Only a choice that rolled no die (on a look-ahead copy: `dice::rolled`) is kept, so the
    /// dice cannot have reached it; the rest of what it reads is the battle (its forecasts and
    /// guides are pure functions of the engine and their keys).
    chosen: Option<Memo>,
    /// Whether its opening decisions in a battle (not a playout) are recalled from the thread's
    /// earlier battles (`ai/recall.rs`).
    opening: recall::Opening,
}

impl std::fmt::Debug for Greedy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Greedy").field("forecasts", &self.forecasts).field("guides", &self.guides).finish_non_exhaustive()
    }
}

thread_local! {
    /// What greedy AIs dropped on this thread left, by engine (`Engine::serial`): at most
    /// [`Greedy::KEEP`], the oldest forgotten first ([`shelf`]).
    static KEPT: Shelf<(Forecasts, Guides)> = const { std::cell::RefCell::new(Vec::new()) };
}

impl Greedy {
    /// Greedy recalling its opening decisions from the thread's earlier battles with the same
    /// engine where it met the same battle (`ai/recall.rs`): the same turns, sooner.
    pub fn recalling() -> Greedy {
        let mut g = Greedy::default();
        g.opening = recall::Opening::on();
        g
    }

    /// The most caches a thread keeps (a battle of greedy against greedy drops two).
    const KEEP: usize = 4;
    /// The most loadouts numbered or exchanges kept in one cache: past it, it starts over.
    const MAX: usize = 1 << 17;

    /// Takes up the caches kept for engine `serial`, unless it works with that engine already.
    fn adopt(&mut self, serial: u64) {
        if self.engine == Some(serial) {
            return;
        }
        (self.forecasts, self.guides) = shelf::take(&KEPT, serial).unwrap_or_default();
        self.engine = Some(serial);
        self.chosen = None;
    }
}

impl Drop for Greedy {
    fn drop(&mut self) {
        let Some(serial) = self.engine else { return };
        let forecasts = std::mem::take(&mut self.forecasts);
        let f = &forecasts;
        let kept = [f.ids.count(), f.table.len(), f.templates.count(), f.strikers.len(), f.reaches.len(), f.verbs.count()];
        let kept = kept.into_iter().max().unwrap_or(0);
        let forecasts = if kept > Greedy::MAX { Forecasts::default() } else { forecasts };
        let guides = std::mem::take(&mut self.guides);
        shelf::leave(&KEPT, serial, (forecasts, guides), Greedy::KEEP);
    }
}

/// A loadout (by number) striking from a terrain with a weapon, each atom by its text's address
/// (one text, one atom: hashed without reading the text; 0 for no terrain).
type StrikerKey = (u32, usize, usize);

/// An atom's address, what [`StrikerKey`] holds.
fn address(a: Atom) -> usize {
    a.as_str().as_ptr() as usize
}

/// The AI's exact forecasts with one engine: each exchange by the two loadouts' numbers, the
/// distance and whether the attacker moves to make it.
#[derive(Debug, Default)]
struct Forecasts {
    ids: Ids,
    table: FastMap<(u32, u32, i64, bool, i64), Option<Prospect>>,
    /// Each acting loadout (by number) as it strikes from a terrain with a weapon ([`striker`]).
    strikers: FastMap<StrikerKey, Option<Arc<Striker>>>,
    /// Exchanges' walks at any hit points, by the loadouts without them.
    templates: Templates,
    /// Each acting loadout's reach with a weapon from a terrain, as [`striker`] finds it, by the
    /// loadout without hit points (its number in `templates`): `None` where it may not use it.
    reaches: FastMap<StrikerKey, Option<(i64, i64)>>,
    /// A unit's actions' verbs and whether one attacks an enemy ([`Verbs`]).
    verbs: Verbs,
    /// A decision's exchanges ([`best_for`]'s, by [`ExchangeKey`]), emptied for each: its room
    /// kept from one to the next.
    exchanges: FastMap<ExchangeKey, Option<Prospect>>,
}

impl Controller for Greedy {
    fn choose(&mut self, b: &Battle<'_>) -> Option<Turn> {
        self.adopt(b.engine.serial());
        if !b.is_quiet() {
            if !self.opening.asks(b) {
                return choose(b, &mut self.forecasts, &mut self.guides);
            }
            // Its turns are functions of the battle as it stands: its mind is only its kind.
            let mind = recall::Mind { kind: recall::GREEDY, ..Default::default() };
            let (forecasts, guides) = (&mut self.forecasts, &mut self.guides);
            return recall::or_decide(b, mind, || Some((choose(b, forecasts, guides)?, [0; 4]))).map(|(t, ..)| t);
        }
        let (forecasts, guides) = (&mut self.forecasts, &mut self.guides);
        self.chosen.get_or_insert_with(|| Memo::new(true, true)).turn(b, |b| choose(b, forecasts, guides))
    }
}

/// The turn the AI plays for the side to act, or `None` if it has nobody to activate.
fn choose(b: &Battle, cache: &mut Forecasts, guides: &mut Guides) -> Option<Turn> {
    let side = b.to_act;
    let view = View::new(b, side);
    let mut best: Option<(f64, Turn)> = None;
    guides.check(b);
    // Each enemy's loadout as a target, built once a decision.
    let mut targets = Targets::default();
    // The side's objective tiles, read once a decision.
    let objectives = Objectives::of(b, side);
    // The units it knows of, read once a decision.
    let known = Known::of(&view);
    // Each unit's mobility and reach as `best_for` read them, the best unit's kept.
    let (mut read, mut best_read) = (None, None);
    for i in b.may_act(side) {
        if let Some((score, turn)) = best_for(&view, i, (cache, guides), &mut targets, (&objectives, &known), &mut read) {
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, turn));
                best_read = read.take();
            }
        }
    }
    let turn = best
        .map(|(_, t)| t)
        .or_else(|| {
            b.may_act(side).first().map(|i| Turn { unit: *i, to: None, equip: None, act: Act::Wait, ..Default::default() })
        })
        .map(|t| {
            // The unit's verbs as the decision read them (kept: not read again).
            let (verbs, _) = cache.verbs.of(b, t.unit);
            super::answer(b, super::readied_with(b, t, &verbs))
        });
    // The move's cost as its reach found it, for the turn to read (`Battle::hint_move`).
    if let (Some(t), Some((mobility, tiles))) = (&turn, &best_read) {
        let cost = t.to.and_then(|to| tiles.binary_search_by_key(&to, |(x, _)| *x).ok().and_then(|k| tiles.get(k)));
        if let Some((to, cost)) = cost {
            b.hint_move(t.unit, mobility, Some(&view.sight).filter(|s| s.fogged()), *to, *cost);
        }
    }
    turn
}

/// A unit's mobility and the tiles in its reach with their costs, as [`best_for`] read them.
type Read = (crate::battle::Mobility, Vec<(Tile, i64)>);

/// The units the side to act knows of, as each of its units reads them in a decision: under fog,
/// where those it knows of stand ([`View::units`]); and the enemies it may target
/// ([`View::targets`]), where they stand, in the battle's order.
struct Known {
    places: Vec<Tile>,
    targets: Vec<(usize, Tile)>,
}

impl Known {
    fn of(view: &View) -> Known {
        let places = if view.sight.fogged() { view.units().map(|(_, x)| x.pos).collect() } else { Vec::new() };
        Known { places, targets: view.targets().map(|(k, f)| (k, f.pos)).collect() }
    }
}

/// The tiles a side's conditions ask it to reach (`objective_tiles`), by kind: the same for each
/// of its units in a decision.
struct Objectives {
    seize: Vec<Tile>,
    escape: Vec<Tile>,
    raze: Vec<Tile>,
    defend: Vec<Tile>,
}

impl Objectives {
    fn of(b: &Battle, side: m::SideId) -> Objectives {
        let tiles = |kind| objective_tiles(b, side, kind);
        Objectives { seize: tiles("seize"), escape: tiles("escape"), raze: tiles("raze"), defend: tiles("defend") }
    }

    /// The tiles of one of the kinds the side moves onto (`seize`, `escape`, `raze`), by its verb.
    fn of_verb(&self, verb: m::Verb) -> &[Tile] {
        match verb {
            m::Verb::Seize => &self.seize,
            m::Verb::Escape => &self.escape,
            m::Verb::Raze => &self.raze,
            _ => &[],
        }
    }
}

fn best_for(
    view: &View,
    i: usize,
    (cache, guides): (&mut Forecasts, &mut Guides),
    targets: &mut Targets,
    (objectives, known): (&Objectives, &Known),
    read: &mut Option<Read>,
) -> Option<(f64, Turn)> {
    *read = None;
    let b = view.battle;
    let u = b.units.get(i)?;
    // The unit as it acts, built once: its mobility, whether it must attack the weakest, and
    // the loadout each weapon and terrain it may strike from starts from.
    let base = b.loadout_of(i, true)?;
    let unit = b.engine.unit(&base, &[]).ok()?;
    let mobility = b.mobility_of(&unit);
    // Held in contact (`engaged`) with no attack it may make (a crossbow reloading): it steps
    // back rather than propose an attack the rules refuse.
    if b.engine.ir.engaged.is_some()
        && !b.engine.ir.attr_id("can_attack").and_then(|a| unit.attrs.get(a as usize)).is_none_or(|v| v.bool())
    {
        if let Some(act) = b.disengaging(i) {
            return Some((0.0, Turn { unit: i, act, ..Default::default() }));
        }
    }
    // The tiles in reach with what moving there costs, in tile order.
    let tiles = view.reachable_sorted(i, &mobility, &mut guides.kept.reach)?;
    let (verbs, attacks) = cache.verbs.of(b, i);
    let has = |verb: m::Verb| verbs.contains(&Some(verb));
    // Where activations are steps paid from a resource, only steps the unit can pay for
    // (elsewhere every turn is: `Battle::turn_price` has no price).
    let priced = b.engine.rules.ruleset.turn.spend.is_some();
    let affordable = |turn: &Turn| {
        if !priced {
            return true;
        }
        let moved = turn
            .to
            .and_then(|t| tiles.binary_search_by_key(&t, |(x, _)| *x).ok())
            .and_then(|k| tiles.get(k))
            .map_or(0, |(_, c)| *c);
        b.turn_price(i, moved, turn).is_none_or(|p| p.is_ok())
    };
    // 1. The objective, if a tile of it is in reach (the first in tile order).
    for verb in [m::Verb::Seize, m::Verb::Escape, m::Verb::Raze] {
        if !has(verb) {
            continue;
        }
        // The first tile in reach (in tile order) that is one of the goal's, each goal tile
        // looked up in the sorted reach.
        let goal = objectives.of_verb(verb);
        let first = goal.iter().filter_map(|g| tiles.binary_search_by_key(g, |(t, _)| *t).ok()).min();
        if let Some((t, _)) = first.and_then(|k| tiles.get(k)) {
            let turn = Turn {
                unit: i,
                to: Some(*t).filter(|t| *t != u.pos),
                equip: None,
                act: Act::Special { verb, target: None, tile: None, from: None },
                ..Default::default()
            };
            if affordable(&turn) {
                *read = Some((mobility, tiles));
                return Some((1000.0, turn));
            }
        }
    }
    let mut best: Option<(f64, Turn)> = None;
    let consider = |best: &mut Option<(f64, Turn)>, score: f64, turn: Turn| {
        if !affordable(&turn) {
            return;
        }
        // Forecasts sum probabilities in an order that may vary from run to run; rounding keeps
        // equal options equal, so the first (in tile order) wins and replays are exact.
        let score = (score * 1e6).round() / 1e6;
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            *best = Some((score, turn));
        }
    };
    // 2. Healing a hurt ally.
    if has(m::Verb::Heal) {
        for (k, ally) in b.units.iter().enumerate() {
            if k == i || ally.side != u.side || ally.state != State::Ready || ally.hp >= ally.max_hp {
                continue;
            }
            // The first tile in reach (in tile order) next to the ally.
            let next_to = crate::battle::neighbours(ally.pos)
                .into_iter()
                .filter_map(|n| tiles.binary_search_by_key(&n, |(t, _)| *t).ok())
                .min();
            if let Some((t, _)) = next_to.and_then(|k| tiles.get(k)) {
                let missing = ally.max_hp.saturating_sub(ally.hp) as f64;
                consider(
                    &mut best,
                    10.0 + missing * 3.0,
                    Turn {
                        unit: i,
                        to: Some(*t).filter(|t| *t != u.pos),
                        equip: None,
                        act: Act::Special { verb: m::Verb::Heal, target: Some(k), tile: None, from: None },
                        ..Default::default()
                    },
                );
            }
        }
    }
    // 2b. Healing itself with an item when badly hurt.
    if u.hp.saturating_mul(2) <= u.max_hp {
        for item in &u.items {
            let heals = b
                .engine
                .rules
                .item(item)
                .is_some_and(|it| it.uses.iter().any(|e| matches!(e, m::Effect::Command { verb: m::Verb::Heal, .. })));
            if heals {
                let missing = u.max_hp.saturating_sub(u.hp) as f64;
                consider(
                    &mut best,
                    5.0 + missing * 2.0,
                    Turn { unit: i, act: Act::Use { item: *item, target: None, tile: None }, ..Default::default() },
                );
                break;
            }
        }
    }
    // 2c. An item whose `use` heals a unit of its side (seed 002's Item action: "on yourself or
    // an adjacent ally"), from where it stands: a hurt ally, or itself when badly hurt.
    // Each item once (the first of those alike).
    for (n, item) in u.items.iter().enumerate() {
        if u.items.get(..n).is_some_and(|before| before.contains(item)) {
            continue;
        }
        for k in b.item_targets(i, item, u.pos, m::Verb::Heal) {
            let Some(f) = b.units.get(k) else { continue };
            let missing = f.max_hp.saturating_sub(f.hp);
            if missing <= 0 || (k == i && f.hp.saturating_mul(2) > f.max_hp) {
                continue;
            }
            let act = Act::Use { item: *item, target: Some(k), tile: None };
            consider(&mut best, 5.0 + missing as f64 * 2.0, Turn { unit: i, act, ..Default::default() });
        }
    }
    // 3. Attacking: the exact forecast from each tile in reach that can strike.
    let weapons: SmallVec<[Atom; 4]> =
        u.items.iter().filter(|n| b.engine.item(n).is_some_and(|it| it.kind == m::ItemKind::Weapon)).copied().collect();
    // The tiles it may strike from (in reach and not held by another unit it knows of), in tile
    // order, each with its group (`spots::Spots`).
    // Where the scenario's advanced rules lay statuses by where a unit stands (`Battle::situated`:
    // a unit too far from its general, one in contact with two enemies), each tile's group holds
    // the unit's own loadout there too, and each target is read as it will stand once the unit
    // has moved (`Battle::moves_situation`): a flank or the rear is forecast from the tile it
    // gives, not as the target stands now.
    let situated = b.situated();
    // Without fog the reach already left out every tile another unit stands on.
    // Under fog, the places in the reach of the units it knows of (itself aside), in order.
    let mut held: Vec<usize> = Vec::new();
    if view.sight.fogged() {
        held.extend(known.places.iter().filter(|x| **x != u.pos).filter_map(|x| tiles.binary_search_by_key(x, |(t, _)| *t).ok()));
        held.sort_unstable();
    }
    // Where situated, the unit's own loadout on each tile in reach (in `tiles`' order), worked
    // out once: the groups below and the walk's `situation_costs` both read it. Each distinct
    // loadout is built once (`mine`), each tile holding its index (equal where the loadouts are).
    let (mine, owns): (Vec<Loadout>, Vec<Option<usize>>) =
        if situated { b.loadouts_moved(i, true, tiles.iter().map(|(t, _)| *t)) } else { (Vec::new(), Vec::new()) };
    // The spots and their groups. In a playout (a quiet copy), not situated, kept from one
    // decision to the next by the reach and the places held in it (`spots::Recent`: a unit meets
    // the same reach again and again), and its walk with them.
    let recent = !situated && b.is_quiet();
    let found = if recent {
        let made = guides.kept.reach.last();
        guides.recent.spots(i, (&tiles, made), &held, || spots::spots_of(b, &tiles, &held, None))
    } else {
        Arc::new(spots::spots_of(b, &tiles, &held, situated.then_some(&owns[..])))
    };
    let spots = &found.spots;
    // Each group's terrain as an atom, and its loadout (its own where situated, else `base`) by
    // number once a striker needs it: what the strikers are kept by, worked out once a group.
    let mut group_keys: SmallVec<[(Option<Atom>, Option<u32>); 8]> = found.groups.iter().map(|(_, t)| (*t, None)).collect();
    let groups = found.groups.len();
    // `base`'s number, once a group striking as it needs it.
    let mut base_id: Option<u32> = None;
    // By weapon and terrain struck from (`[terrain * weapons + weapon]`): the unit as it
    // strikes, interned, and the distances it reaches (`None`: it may not strike so).
    let mut strikers: SmallVec<[Option<Option<Arc<Striker>>>; 16]> = (0..groups * weapons.len()).map(|_| None).collect();
    // By terrain struck from, once its strikers with every weapon are built: the distances (up to
    // `FARTHEST`, a bit each) one of them strikes at. A spot at another distance is passed over
    // before its line of sight is read (nothing it would read or build is missing).
    let mut reaches: SmallVec<[Option<u8>; 8]> = SmallVec::from_elem(None, groups);
    // By target (and its loadout where the move changes it), distance, weapon and terrain struck from.
    // (Its room kept from one decision to the next: a unit weighs a few exchanges, mostly.)
    let mut forecasts = std::mem::take(&mut cache.exchanges);
    forecasts.clear();
    let berserk = unit.must_attack_weakest;
    // The spots are in tile order, column by column: those within `FARTHEST` columns of a
    // target are a run of them (the others lie farther from it). `columns[c]`: the first spot
    // in column `left + c` or right of it.
    let left = spots.first().map_or(0, |(t, _)| t.0);
    let wide = spots.last().map_or(0, |(t, _)| t.0 - left + 1);
    let mut columns: SmallVec<[usize; 16]> = SmallVec::with_capacity(usize::try_from(wide).unwrap_or(0));
    for (n, (t, _)) in spots.iter().enumerate() {
        while left + (columns.len() as i64) <= t.0 {
            columns.push(n);
        }
    }
    let run = |x: i64| usize::try_from(x - left).ok().map_or(0, |c| columns.get(c).copied().unwrap_or(spots.len()));
    for &(k, at) in &known.targets {
        // Once every terrain's distances are known, no spot farther than the farthest of them is
        // struck from: only the columns within it are read.
        let far = reaches
            .iter()
            .try_fold(-1, |far: i64, r| r.map(|r| if r == 0 { far } else { far.max(7 - i64::from(r.leading_zeros())) }))
            .unwrap_or(FARTHEST);
        for &(t, g) in spots.get(run(at.0 - far)..run(at.0 + far + 1)).unwrap_or_default() {
            let d = distance(t, at);
            if d > FARTHEST || reaches.get(g).copied().flatten().is_some_and(|r| r & (1 << d) == 0) || !b.clear_line(t, at) {
                continue;
            }
            // A unit that must attack the weakest in range considers only that target (of those
            // in sight: the battle's rule, too).
            if berserk {
                let forced = b.weakest_from(i, t);
                if !forced.is_empty() && !forced.contains(&k) {
                    continue;
                }
            }
            for (n, w) in weapons.iter().enumerate() {
                // The unit with this weapon on this terrain, built once: most distances are out of
                // its reach, and those need no forecast at all.
                let Some(slot) = strikers.get_mut(g * weapons.len() + n) else { continue };
                let striker = slot.get_or_insert_with(|| {
                    let own = found.groups.get(g).and_then(|(l, _)| l.and_then(|n| mine.get(n)));
                    let l = own.unwrap_or(&base);
                    let (terrain, id) = group_keys.get_mut(g).map_or((None, None), |(t, id)| (*t, Some(id)));
                    // `base` is numbered once a decision, whatever the groups that strike as it.
                    let mut number = || match own {
                        Some(l) => cache.ids.id(l),
                        None => *base_id.get_or_insert_with(|| cache.ids.id(&base)),
                    };
                    let id = match id {
                        Some(id) => *id.get_or_insert_with(number),
                        None => number(),
                    };
                    striker(b, cache, (l, id), terrain, *w)
                });
                let Some(s) = striker.as_ref().filter(|s| (s.min..=s.max).contains(&d)) else { continue };
                // How hidden the target is from this square, where the rules read it.
                let cover = if b.engine.ir.reads_cover { b.cover_as_seen(t, at, &view.sight) } else { 0 };
                // The target as it will stand once the unit is on `t`, where that changes it.
                let moved = if situated && b.moves_situation(k, (i, t)) {
                    b.loadout_moved(k, false, (i, t)).map(|l| {
                        let id = cache.ids.id(&l);
                        (l, id)
                    })
                } else {
                    None
                };
                // Whether the unit moves to strike, where a rule reads it (`Engine::situation_read`:
                // seed 004's counter answers a charge alone): tiles of one group on and off the
                // unit's own are not the same exchange.
                let charge = b.engine.situation_read(t != u.pos, 0).0;
                let key = (k, moved.as_ref().map(|(_, id)| *id), d, n, g, cover, charge);
                let f = match forecasts.get(&key).filter(|_| !afresh()) {
                    Some(f) => *f,
                    None => {
                        let target = moved.as_ref().map(|(l, id)| (l, *id));
                        let f = forecast(b, cache, s, (targets, target), k, (d, t != u.pos, cover));
                        forecasts.insert(key, f);
                        f
                    }
                };
                if let Some((routs, dealt, taken)) = f {
                    let score = routs * 60.0 + dealt - taken * 0.7;
                    let equip = (u.equipped.as_deref() != Some(w.as_str())).then_some(*w);
                    consider(
                        &mut best,
                        score,
                        Turn {
                            unit: i,
                            to: Some(t).filter(|t| *t != u.pos),
                            equip,
                            act: Act::Attack { target: k },
                            ..Default::default()
                        },
                    );
                }
            }
            if let Some(r @ None) = reaches.get_mut(g) {
                let built = strikers.get(g * weapons.len()..(g + 1) * weapons.len()).unwrap_or_default();
                if built.iter().all(Option::is_some) {
                    let at = |d: i64| built.iter().flatten().flatten().any(|s| (s.min..=s.max).contains(&d));
                    *r = Some((0..=FARTHEST).filter(|d| at(*d)).fold(0, |bits, d| bits | 1 << d));
                }
            }
        }
    }
    cache.exchanges = forecasts;
    // 3b. Techniques and spells from where it stands: the forecasts of their attacks (a step that
    // only charges a spell, the cast's worth times the share of its cost it pays).
    if !berserk && attacks {
        for aa in b.attack_actions_found(i) {
            let foes: Vec<(usize, i64)> = known
                .targets
                .iter()
                .map(|(k, at)| (*k, distance(u.pos, *at)))
                .filter(|(_, d)| (aa.reach.0..=aa.reach.1).contains(d))
                .collect();
            let groups: Vec<Vec<(usize, i64)>> = if aa.every { vec![foes] } else { foes.into_iter().map(|x| vec![x]).collect() };
            for group in groups.into_iter().filter(|g| !g.is_empty()) {
                let target = if aa.every { None } else { group.first().map(|(k, _)| *k) };
                let act = Act::Special { verb: aa.verb, target, tile: None, from: Some(aa.tag) };
                let pays = b.step_vars(i, u.pos, 0, &act).cost;
                let mut loadout = base.clone();
                if aa.bonus != 0 {
                    loadout.debuffs.push((Atom::new("damage_bonus"), aa.bonus));
                }
                let id = cache.ids.id(&loadout);
                let s = Striker { loadout, id, min: aa.reach.0, max: aa.reach.1 };
                let mut score = 0.0;
                for (k, d) in group {
                    if let Some((routs, dealt, taken)) = forecast(b, cache, &s, (targets, None), k, (d, false, 0)) {
                        score += routs * 60.0 + dealt - taken * 0.7;
                    }
                }
                if aa.charge.is_some() && aa.paid + pays < aa.cost {
                    score *= pays as f64 / aa.cost.max(1) as f64;
                }
                consider(&mut best, score, Turn { unit: i, act, ..Default::default() });
            }
        }
    }
    // 4. Walking toward the objective or the nearest enemy.
    let beat = best.as_ref().map(|(s, _)| *s);
    let situation = situated.then_some((&base, &weapons[..], (&mine[..], &owns[..])));
    if let Some((t, score)) =
        walk::walk((view, i), (cache, guides, targets), (&verbs, objectives), (&mobility.1, &tiles), (beat, recent), situation)
    {
        consider(
            &mut best,
            score,
            Turn { unit: i, to: Some(t).filter(|t| *t != u.pos), equip: None, act: Act::Wait, ..Default::default() },
        );
    }
    *read = Some((mobility, tiles));
    best.or(Some((0.0, Turn { unit: i, to: None, equip: None, act: Act::Wait, ..Default::default() })))
}

/// What standing on each tile in reach costs unit `i`'s blow, where the battle is situated: its
/// best prospect (with any of `weapons`) on the enemy nearest it, with its loadout where it
/// stands (`base`) less with its loadout on the tile (`owns`: by the reach's order, an index into
/// `mine`; the terrain aside: what the advanced rules lay there, as a unit too far from its
/// general), each distinct loadout forecast once, in the order of the tiles. Zero with no enemy
/// in sight.
fn situation_costs(
    b: &Battle,
    cache: &mut Forecasts,
    targets: &mut Targets,
    (view, i): (&View, usize),
    (base, weapons): (&Loadout, &[Atom]),
    (mine, owns): (&[Loadout], &[Option<usize>]),
) -> Vec<f64> {
    let Some(u) = b.units.get(i) else { return vec![0.0; owns.len()] };
    let Some(k) = view.targets().min_by_key(|(k, f)| (distance(u.pos, f.pos), *k)).map(|(k, _)| k) else {
        return vec![0.0; owns.len()];
    };
    let terrain = b.terrain_at(u.pos).and_then(|t| b.engine.terrain_named(&t.name));
    let mut value = |l: &Loadout| -> f64 {
        let mut best: Option<f64> = None;
        let id = cache.ids.id(l);
        for w in weapons {
            let Some(s) = striker(b, cache, (l, id), terrain, *w) else { continue };
            if let Some((routs, dealt, taken)) = forecast(b, cache, &s, (targets, None), k, (s.min.max(1), false, 0)) {
                let v = routs * 60.0 + dealt - taken * 0.7;
                best = Some(best.map_or(v, |x: f64| x.max(v)));
            }
        }
        best.unwrap_or(0.0)
    };
    // Its value where it stands, worked out at the first tile whose loadout differs from it
    // (none may: then no forecast is read).
    let mut here: Option<f64> = None;
    let mut seen: Vec<(Loadout, f64)> = Vec::new();
    // Each distinct loadout's cost, worked out at its first tile.
    let mut costs: Vec<Option<f64>> = vec![None; mine.len()];
    owns.iter()
        .map(|own| {
            let Some(n) = *own else { return 0.0 };
            if let Some(Some(c)) = costs.get(n) {
                return *c;
            }
            // The loadout on the tile with the terrain where it stands, compared without a copy.
            let Some(own) = mine.get(n) else { return 0.0 };
            let c = if alike_but_terrain(own, base) {
                0.0
            } else if let Some((_, v)) = seen.iter().find(|(x, _)| alike_but_terrain(own, x)) {
                here.unwrap_or(0.0) - v
            } else {
                let here = *here.get_or_insert_with(|| value(base));
                let l = Loadout { terrain: base.terrain, ..own.clone() };
                let v = value(&l);
                seen.push((l, v));
                here - v
            };
            if let Some(slot) = costs.get_mut(n) {
                *slot = Some(c);
            }
            c
        })
        .collect()
}

/// Whether two loadouts are the same but for their terrain (what `==` finds of `a` with `b`'s
/// terrain).
fn alike_but_terrain(a: &Loadout, b: &Loadout) -> bool {
    // Every field named, so that a field added to `Loadout` cannot be left out here.
    let Loadout { class, weapon, accessory, tags, statuses, terrain: _, hp, form, debuffs, resources, figures, carried, placed } =
        a;
    *class == b.class
        && *weapon == b.weapon
        && *accessory == b.accessory
        && *tags == b.tags
        && *statuses == b.statuses
        && *hp == b.hp
        && *form == b.form
        && *debuffs == b.debuffs
        && *resources == b.resources
        && *figures == b.figures
        && *carried == b.carried
        && *placed == b.placed
}

#[cfg(test)]
thread_local! {
    /// In tests: every exchange of a decision forecast afresh, none read from its table.
    static AFRESH: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether a decision forecasts every exchange afresh ([`AFRESH`], in tests; never elsewhere).
#[cfg(test)]
fn afresh() -> bool {
    AFRESH.with(std::cell::Cell::get)
}

#[cfg(not(test))]
#[inline(always)]
fn afresh() -> bool {
    false
}

/// One exchange a decision forecasts: the target (and its loadout where the move changes it),
/// the distance, the weapon, the tile group struck from, the cover and whether the unit moved to
/// strike (where that is read).
type ExchangeKey = (usize, Option<u32>, i64, usize, usize, i64, bool);

/// Unit `i` as it strikes with one weapon from one terrain: its loadout, interned, and the
/// distances it strikes at.
#[derive(Debug)]
struct Striker {
    loadout: Loadout,
    id: u32,
    min: i64,
    max: i64,
}

/// The unit with acting loadout `base` (with its number) striking from `terrain` (by name) with
/// weapon `w`, or `None` when it may not use the weapon now (what [`forecast`] checks before an
/// exchange). Worked out once a battle (`cache`), by the numbers of `base`, the terrain and the
/// weapon.
fn striker(
    b: &Battle,
    cache: &mut Forecasts,
    (base, id): (&Loadout, u32),
    terrain: Option<Atom>,
    w: Atom,
) -> Option<Arc<Striker>> {
    let key = (id, terrain.map_or(0, address), address(w));
    if let Some(s) = cache.strikers.get(&key) {
        return s.clone();
    }
    let mut la = base.clone();
    la.weapon = Some(w);
    la.terrain = terrain;
    // Where no weapon's reach reads hit points, a unit may use a weapon, and reaches as far, at
    // any of them: a hurt unit's reach is its unhurt one's, not built again.
    let bare = b.engine.inputs.hp_free().then(|| (cache.templates.bare(base, id), key.1, key.2));
    let reach = match bare.and_then(|k| cache.reaches.get(&k)) {
        Some(r) => *r,
        None => {
            let r = b.engine.unit(&la, &[]).ok().filter(|u| u.may_use_weapon()).map(|u| (u.min_range, u.max_range));
            if let Some(k) = bare {
                cache.reaches.insert(k, r);
            }
            r
        }
    };
    let s = reach.map(|(min, max)| {
        let id = cache.ids.id(&la);
        Arc::new(Striker { loadout: la, id, min, max })
    });
    cache.strikers.insert(key, s.clone());
    s
}

/// (chance to rout the target, expected damage dealt, expected damage taken) of `s` striking
/// unit `k` at distance `d`, which the caller checked is in its reach; `None` when the engine
/// refuses the exchange. Worked out once per battle (`cache`); the target's loadout once per
/// decision (`targets`), or the one given (`k` as it will stand after a move).
fn forecast(
    b: &Battle,
    cache: &mut Forecasts,
    s: &Striker,
    (targets, given): (&mut Targets, Option<(&Loadout, u32)>),
    k: usize,
    (d, moved, cover): (i64, bool, i64),
) -> Option<Prospect> {
    let (ld, id) = match given {
        Some(x) => x,
        None => targets.get(b, k, &mut cache.ids)?,
    };
    let moved = moved && b.engine.ir.reads_moved;
    let key = (s.id, id, d, moved, cover);
    if let Some(hit) = cache.table.get(&key) {
        return *hit;
    }
    let ended = cache.templates.ending(b.engine, (&s.loadout, s.id), (ld, id), d, (false, moved, cover));
    let result = ended
        .ok()
        .and_then(|f| f.odds())
        .map(|o| (o.defender_routed, o.defender_damage_taken, o.attacker_damage_taken + o.attacker_routed * 30.0));
    cache.table.insert(key, result);
    result
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests;
