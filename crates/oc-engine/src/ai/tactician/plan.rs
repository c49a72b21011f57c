//! One unit's candidate turns, each scored: the act, the enemy's reply, the position.

use crate::Atom;
use oc_model as m;
use std::rc::Rc;
use std::sync::Arc;

mod arms;
mod arrival;
mod makeup;
mod score;
mod standing;

use super::threat::loss;
use super::{Candidate, Decision, Guides, Plan};
use crate::ai::forecasts::Forecasts;
use crate::ai::{objective_tiles, Guide};
use crate::battle::{distance, tile_index, Act, Battle, Combatant, StepVars, Tile, Turn};
use crate::Loadout;
use arms::Arms;
pub(super) use arms::OnTerrain;
pub(super) use score::Pool;

/// The tiles a unit can move to, each with its movement cost, sorted by tile.
type Reach = [(Tile, i64)];

/// How far a bound on a candidate's score stays clear of the rounding of the score itself.
const SURE: f64 = 1e-6;

/// A candidate with what its score is made of but the danger (`Decision::score`): its tile,
/// the tile's worth and toll, the tiles held it bars the enemy from, whether it stands still,
/// the most it could score (`Pool`) and, once read, its score. The candidate itself is its
/// number in the unit's candidates (`Pool`'s, every tile's in one list: each written once, not
/// moved as it is weighed).
struct Weighed {
    c: usize,
    t: Tile,
    place: f64,
    toll: f64,
    /// The chance the unit still stands to act once the enemies that strike it first as its
    /// move ends have struck (`arrival.rs`; 1 where none does).
    stands: f64,
    bars: f64,
    stays: bool,
    /// The most it could score: at the least danger its tile may hold for any unit
    /// (`ThreatMap::least_danger`); once settled, for ours (`ThreatMap::least_danger_for`).
    most: f64,
    /// Before it is settled: what it scores but for the danger, and the danger's weight.
    tight: Option<(f64, f64)>,
    score: Option<f64>,
}

/// A unit's candidates ([`Decision::prepare`]): its turn at once where it can take the
/// objective, else the pool read so far.
pub(super) enum Prepared {
    Done(Plan),
    Pool(Pool),
}

/// A unit's weapons: (name, least and most distance).
type Weapons = [(Atom, i64, i64)];

/// What a unit brings to its turn, worked out once per decision.
struct Unit<'v> {
    i: usize,
    /// As it stands in the battle (borrowed, not copied: a plan reads it, never changes it).
    u: &'v Combatant,
    /// Movement points.
    points: i64,
    /// Weapons it may strike with now: (name, least and most distance).
    weapons: Vec<(Atom, i64, i64)>,
    can_attack: bool,
    /// Whether it takes the side's objective (seize, escape, raze) or guards a leader.
    takes_objective: bool,
    /// The weapon it is best held with on the enemy's turn.
    guard: Option<Atom>,
    /// Free attacks a move away invites (threat zones): each zone it stands in, and its cost.
    zones: Vec<(Vec<Tile>, f64)>,
    vision: Option<i64>,
    /// The distances its heal reaches, if it has one, and the item it must equip for it (a staff
    /// it carries but does not hold: then next to the ally only).
    heal: Option<(i64, i64)>,
    heal_with: Option<Atom>,
    /// With a heal: our hurt units but itself, in the view's order, each with its tile and what
    /// healing it is worth (`Decision::heals`, read for every tile).
    hurt: Vec<(usize, Tile, f64)>,
    /// Badly hurt, with a healing item: the item, what using it is worth and the HP it leaves.
    self_heal: Option<(Atom, f64, i64)>,
    /// Enemies it could strike next activation, with what the best strike is worth: (tile, value).
    prey: Vec<(Tile, f64)>,
    /// How far it strikes after a move (movement points plus its longest reach).
    span: i64,
    /// The objectives it can take (`race.rs`): the walking guide to each, its share of the
    /// battle, the activations left once this turn is played, and its chance to take it in time
    /// from where it stands.
    race: Vec<(Arc<Guide>, f64, f64, f64)>,
    /// The walking guides for its movement type (`Decision::guides`), and each one's cost from
    /// where it stands (toward the enemy, the objective, the region): read for every tile.
    guides: Option<Rc<Guides>>,
    from: [Option<i64>; 3],
    /// Our units in danger it could stand next to (`Decision::cover` but itself, within a step
    /// of the box its reach lies in): (tile, danger per tile an enemy may strike it from).
    cover: Vec<(Tile, f64)>,
    /// Its items (once each, as they follow one another) with a `use` that heals a unit of its
    /// side: the only ones [`Battle::item_targets`] may find a target for, asked once per plan.
    healing: Vec<Atom>,
}

/// Whether unit `i` can pay for a step ([`Battle::act_price`]), kept for a plan by the step's
/// variables and the weapon it equips: its price is read from those, the unit and the battle
/// alone ([`Battle::step_price`], a scene built each time), and most of a unit's candidates are
/// steps alike (to wait, to attack from a distance, after a move of a cost).
#[derive(Default)]
struct Prices(Vec<(StepVars, Option<Atom>, bool)>);

impl Prices {
    /// Whether unit `i` of `b` can pay for `act` from `at` after a move of cost `moved`,
    /// equipping `equip`: [`Battle::act_price`] is `Ok` (or `None`, no price).
    #[inline(never)]
    fn affordable(&mut self, b: &Battle, i: usize, (at, moved): (Tile, i64), act: &Act, equip: Option<Atom>) -> bool {
        let mut vars = b.step_vars(i, at, moved, act);
        vars.equips = b.changes_weapon(i, equip.as_deref());
        if let Some((.., ok)) = self.0.iter().find(|(v, e, _)| *v == vars && *e == equip) {
            return *ok;
        }
        let ok = b.step_price(i, &vars, equip.as_deref()).is_none_or(|p| p.is_ok());
        self.0.push((vars, equip, ok));
        ok
    }
}

impl<'v, 'e> Decision<'v, 'e> {
    /// The best turn for unit `i`, with its gain over standing still; `None` if it cannot act,
    /// or if its gain cannot pass `beat` by more than EPS (`Decision::read_on`).
    pub(super) fn plan(&mut self, i: usize, beat: Option<f64>, cache: &mut Forecasts) -> Option<Plan> {
        match self.prepare(i, cache)? {
            Prepared::Done(p) => Some(p),
            Prepared::Pool(mut p) => {
                if !self.read_on(&mut p, beat, cache) {
                    return None;
                }
                p.best()
            }
        }
    }

    /// Unit `i`'s candidates, each scored but for the danger, those that stand still scored
    /// (`Decision::start`); its turn at once where it can take the objective; `None` if it
    /// cannot act.
    pub(super) fn prepare(&mut self, i: usize, cache: &mut Forecasts) -> Option<Prepared> {
        let b = self.battle();
        let u = b.units.get(i)?;
        // A routing unit only flees or rallies (`ai::answer`): no plan of attacks or moves it
        // cannot make outranks another unit's. (Planned as a steady unit, it won a roll-off's
        // activation with a blow it could not strike, and spent it on a rally.)
        if b.routing(i) {
            return None;
        }
        // The unit as it acts, built once: its mobility, whether it can and must attack.
        let acting = b.loadout_of(i, true)?;
        let acting_unit = b.engine.unit(&acting, &[]).ok()?;
        let mobility = b.mobility_of(&acting_unit);
        // The tiles in reach in tile order, the search kept while nothing it touched changed.
        let mut reach = self.view.reachable_sorted(i, &mobility, &mut self.walks.kept.reach)?;
        // Under fog an enemy out of sight stands where it was last seen: no tile to end on (a
        // walk there is refused, and the unit stands still).
        if !self.remembered.is_empty() {
            reach.retain(|(t, _)| *t == u.pos || !self.remembered.contains(t));
        }
        let verbs = self.verbs.get(i).cloned().unwrap_or_default();
        let has = |verb: m::Verb| verbs.contains(&Some(verb));
        // Where activations are steps paid from a resource, only steps the unit can pay for
        // (`Prices`). A turn and the weapon it equips (a candidate's turn leaves it out:
        // `Candidate::equip`).
        let stepped = self.stepped;
        let mut prices = Prices::default();
        let pos = u.pos;
        let mut affordable = |(to, act): (Option<Tile>, &Act), equip: Option<Atom>| {
            // Where activations are not paid for, every act is affordable (`Battle::act_price`).
            if !stepped {
                return true;
            }
            let moved = to
                .and_then(|t| reach.binary_search_by_key(&t, |(x, _)| *x).ok())
                .and_then(|k| reach.get(k))
                .map_or(0, |(_, c)| *c);
            prices.affordable(b, i, (to.unwrap_or(pos), moved), act, equip)
        };
        // 1. The objective, if a tile of it is in reach: the battle may end here.
        for (verb, kind) in [(m::Verb::Seize, "seize"), (m::Verb::Escape, "escape"), (m::Verb::Raze, "raze")] {
            if !has(verb) {
                continue;
            }
            let tiles = objective_tiles(b, u.side, kind);
            for (t, _) in reach.iter().filter(|(t, _)| tiles.contains(t)) {
                let turn = Turn {
                    unit: i,
                    to: Some(*t).filter(|t| *t != u.pos),
                    act: Act::Special { verb, target: None, tile: None, from: None },
                    ..Default::default()
                };
                if affordable((turn.to, &turn.act), None) {
                    self.reached.push((i, mobility, reach.clone()));
                    return Some(Prepared::Done(Plan { gain: 1000.0, turn }));
                }
            }
        }
        let berserk = acting_unit.must_attack_weakest;
        let moves = mobility;
        let me = self.unit(i, u, (&acting, &acting_unit, mobility), (&has, &reach), cache)?;
        // The distances worth a forecast, the enemies worth weighing an attack on, and the tiles
        // a weapon strikes them from (`Decision::strike_map`).
        let (spans, strikable, hits, strikes_from) = self.strike_map(&me.weapons, &reach);
        let caution = 1.0 - 0.5 * self.stakes.urgency;
        let foes = self.view.targets().map(|(k, f)| (k, f.pos)).collect();
        // The enemies as targets: the decision's, lent (handed back once the tiles are weighed).
        let targets = std::mem::take(&mut self.foe_targets);
        // Ours on each terrain with each weapon (`Arms::ours`): kept from one decision to the
        // next while its loadout as it acts, but for its HP and terrain (which each sets), and
        // its weapons (`Unit::weapons`, in order) are the same.
        let mut base = acting.clone();
        (base.hp, base.terrain) = (None, None);
        let weapons: Vec<Atom> = me.weapons.iter().map(|(w, _, _)| *w).collect();
        let ours = match self.kept_ours.get_mut(i) {
            Some((Some((was, with)), ours)) if *was == base && *with == weapons => std::mem::take(ours),
            _ => Vec::new(),
        };
        let mut arms = Arms { acting, foes, strikable, spans, hits, ours, targets, own: Default::default() };
        // Every tile's candidate turns, in one list (each tile's added at its end).
        let mut candidates: Vec<Candidate> = Vec::with_capacity(2 * reach.len());
        // Every tile's candidates, in order, each scored but for the danger.
        let mut pool: Vec<Weighed> = Vec::with_capacity(2 * reach.len());
        // Guards: actions that only raise the unit's own resources until they refill (found where
        // they are weighed, below: only where the unit stands, and only if an enemy strikes there).
        let gains = has(m::Verb::Gain) && !berserk;
        let spend = b.engine.rules.ruleset.turn.spend.as_ref().map(|r| Atom::new(r));
        // Techniques and spells: actions that attack.
        // (`Battle::attack_actions`, the walk over the unit's actions it starts with read from the
        // verbs kept.)
        let attack_actions = if berserk || !me.can_attack || !self.attacking.get(i).is_some_and(|a| *a) {
            Vec::new()
        } else {
            b.attack_actions_found(i)
        };
        // Where the advanced rules lay statuses by where a unit stands (`Battle::situated`): what
        // it could strike next time from each tile, as it will stand there (too far from its
        // general, it strikes worse), by its distinct loadouts there.
        let situated = b.situated();
        let mut prey_at: Vec<(Loadout, Vec<(Tile, f64)>)> = Vec::new();
        // Its loadouts on the tiles of the reach, each distinct one built once
        // (`Battle::loadouts_moved`: `loadout_moved` on each tile), and by distinct loadout, once
        // looked at, its prey's place in `prey_at` (`None`: the prey where it stands).
        if situated && me.can_attack {
            arms.own = b.loadouts_moved(i, true, reach.iter().map(|(t, _)| *t));
        }
        let mut prey_of: Vec<Option<Option<usize>>> = vec![None; arms.own.0.len()];
        let watchers = self.watchers(&me, &reach, cache);
        for (at, (t, _)) in reach.iter().enumerate() {
            let t = *t;
            let forced = if berserk { b.weakest_from(i, t) } else { Vec::new() };
            let own = arms.own.1.get(at).copied().flatten();
            let looked = own.and_then(|n| prey_of.get(n).copied().flatten());
            let of = match (own, looked) {
                (_, Some(of)) => of,
                (None, None) => None,
                (Some(n), None) => {
                    let own = arms.own.0.get(n).map(|l| {
                        let mut l = l.clone();
                        l.terrain = arms.acting.terrain;
                        l
                    });
                    let of = match own.filter(|l| *l != arms.acting) {
                        Some(l) => Some(match prey_at.iter().position(|(x, _)| *x == l) {
                            Some(k) => k,
                            None => {
                                let prey = self.prey(i, me.u, &l, (&me.weapons, me.points, me.span, &reach), cache);
                                prey_at.push((l, prey));
                                prey_at.len() - 1
                            }
                        }),
                        None => None,
                    };
                    if let Some(slot) = prey_of.get_mut(n) {
                        *slot = Some(of);
                    }
                    of
                }
            };
            let place = match of {
                Some(k) => {
                    let prey = prey_at.get(k).map_or(&[][..], |(_, p)| p.as_slice());
                    self.position(&me, t, prey)
                }
                None => self.position(&me, t, &me.prey),
            };
            // The enemy's objective tile held: only while our unit stands (`Stakes::barred`),
            // looked up on the tiles marked (`BARS`) or off the map.
            let mark = tile_index(t, (self.open.0, b.map.height.max(0))).map(|k| self.marks.get(k).copied().unwrap_or(0));
            let bars: Vec<(usize, f64)> = if mark.is_none_or(|m| m & super::BARS != 0) {
                self.stakes
                    .barred
                    .iter()
                    .filter(|x| x.tile == t)
                    .map(|x| (x.taker, if t == me.u.pos { x.kept.max(x.now) } else { x.now }))
                    .collect()
            } else {
                Vec::new()
            };
            let toll: f64 = me.zones.iter().filter(|(zone, _)| t != me.u.pos && !zone.contains(&t)).map(|(_, c)| c).sum();
            // What the move meets as it ends: the strikes of opportunity's cost is a toll, and
            // what the unit does there (its act, the tile's worth, the tile held, the danger
            // after) counts as much as it still stands once they and the enemies that may
            // activate first have struck (`arrival.rs`). Where none strikes (every ruleset
            // without `opportunity` and `interrupt`), `stands` is 1 and the scores are the same
            // bits as without it.
            let (stands, met) = self.arrival(&me, t, &watchers, cache);
            let toll = if met != 0.0 { toll + met } else { toll };
            let first = candidates.len();
            if forced.is_empty() {
                self.stand(&me, t, (&reach, spend.as_ref()), &mut candidates);
                self.heals(&me, t, &mut candidates);
            }
            if me.can_attack && strikes_from.get(at).is_some_and(|s| *s) {
                self.attacks(&me, (t, at, reach.len()), &forced, cache, &mut arms, &mut candidates);
            }
            // Guarding competes with ending the activation where the unit stands: a Guard's
            // Stamina is not spent on a step toward the enemy (measured: guarding on the way
            // cost the attacker 8 points of its win rate at Caer Pelyn).
            if forced.is_empty() && t == me.u.pos && self.threats.reaches(t) {
                let guards = if gains { b.self_gains(i) } else { Vec::new() };
                candidates.extend(self.guards(&me, t, &guards, spend.as_ref(), &reach));
            }
            if forced.is_empty() && t == me.u.pos && !attack_actions.is_empty() {
                self.attack_actions(&me, (&attack_actions, spend.as_ref()), cache, &mut arms, &mut candidates);
            }
            let least = self.threats.least_danger(t);
            for (n, c) in candidates.iter().enumerate().skip(first) {
                if !affordable((c.to, &c.act_is), c.equip) {
                    continue;
                }
                // The tile held bars the enemy only while our unit stands: as much as it is
                // likely to still stand once the enemies have struck it; and a taker the act
                // routs is barred no more (a mage that stepped off the village to the ferry house
                // to rout the saboteur let the lord seize the village).
                let routed = |k: usize| match c.routs {
                    Some((f, p)) if self.threats.foes.get(f).is_some_and(|x| x.unit == k) => p,
                    _ => 0.0,
                };
                let bars: f64 = bars.iter().map(|(k, w)| w * (1.0 - routed(*k))).sum();
                let stays = t == me.u.pos && matches!(c.act_is, Act::Wait);
                // The most it could score: at the least danger the tile may hold, still standing.
                let weight = stands * caution * (1.0 - c.fallen);
                let held = if bars > 0.0 { ((1.0 - c.fallen) * bars).abs() } else { 0.0 };
                let base = stands * (c.act + place + held) - toll;
                let most = base - weight * least;
                let most = if weight >= 0.0 && !most.is_nan() { most } else { f64::INFINITY };
                // Read again from the forecasts once it comes up (`Decision::settle`): but for a
                // unit holding other resources (a Guard's points).
                let tight = (c.holding.is_empty() && most.is_finite()).then_some((base, weight));
                pool.push(Weighed { c: n, t, place, toll, stands, bars, stays, most, tight, score: None });
            }
        }
        self.foe_targets = std::mem::take(&mut arms.targets);
        if self.kept_ours.len() <= i {
            self.kept_ours.resize_with(i + 1, Default::default);
        }
        if let Some(slot) = self.kept_ours.get_mut(i) {
            *slot = (Some((base, weapons)), std::mem::take(&mut arms.ours));
        }
        self.reached.push((i, moves, reach));
        Some(Prepared::Pool(self.start(i, caution, (pool, candidates), cache)))
    }

    /// Its techniques and spells (`attack_actions`) from where it stands, each against every enemy it may
    /// strike (or all those in reach at once), by the exact forecast of each attack. A spell
    /// that this step only charges is worth the cast's value times the share of its cost the
    /// step pays (what each Stamina buys, as an attack is worth what it deals), and leaves the
    /// unit holding the charge: the enemies' replies are weighed against a unit that cannot
    /// react (seed 002: "leaving you vulnerable until the charge is complete").
    fn attack_actions(
        &mut self,
        me: &Unit,
        (attack_actions, spend): (&[crate::battle::AttackAction], Option<&Atom>),
        cache: &mut Forecasts,
        arms: &mut Arms,
        out: &mut Vec<Candidate>,
    ) {
        let b = self.battle();
        let t = me.u.pos;
        let foes: Vec<(usize, Tile)> = arms.foes.clone();
        for aa in attack_actions {
            let in_reach: Vec<(usize, i64)> = foes
                .iter()
                .map(|(k, at)| (*k, distance(t, *at)))
                .filter(|(_, d)| (aa.reach.0..=aa.reach.1).contains(d))
                .collect();
            if in_reach.is_empty() {
                continue;
            }
            let groups: Vec<Vec<(usize, i64)>> =
                if aa.every { vec![in_reach] } else { in_reach.into_iter().map(|x| vec![x]).collect() };
            for group in groups {
                let target = if aa.every { None } else { group.first().map(|(k, _)| *k) };
                let act = Act::Special { verb: aa.verb, target, tile: None, from: Some(aa.tag) };
                let Some(Ok(price)) = b.act_price(me.i, (None, 0), &act, None) else { continue };
                let pays = b.step_vars(me.i, t, 0, &act).cost;
                let completes = aa.charge.is_none() || aa.paid + pays >= aa.cost;
                let mut la = arms.acting.clone();
                la.hp = None;
                if aa.bonus != 0 {
                    la.debuffs.push((Atom::new("damage_bonus"), aa.bonus));
                }
                let ia = cache.id(&la);
                let (mut value, mut fallen, mut taken, mut routs) = (0.0, 0.0f64, 0.0, None);
                for (k, d) in &group {
                    let Some((ld, id)) = arms.targets.get(b, *k, &mut cache.ids) else { continue };
                    let Some(x) = cache.get(b.engine, (&la, ia), (ld, id), *d, (false, false, 0)) else { continue };
                    let (routed, dealt) = x.against(x.defender_hp);
                    let (fell, hurt) = x.attacker_at(me.u.hp);
                    let max_hp = b.units.get(*k).map_or(1, |f| f.max_hp);
                    value += loss(self.worth(*k), max_hp, dealt, routed) - loss(self.worth(me.i), me.u.max_hp, hurt, fell);
                    fallen = fallen.max(fell);
                    taken += hurt;
                    if !aa.every {
                        routs = self.threats.foes.iter().position(|f| f.unit == *k).map(|f| (f, routed));
                    }
                }
                let mut holding = Vec::new();
                if !completes {
                    value *= pays as f64 / aa.cost.max(1) as f64;
                    routs = None;
                    if let Some(r) = aa.charge {
                        holding.push((r, aa.paid + pays));
                    }
                    if let Some(r) = spend {
                        holding.push((*r, (b.resource(me.i, r).unwrap_or(0) - price).max(0)));
                    }
                }
                out.push(Candidate {
                    to: None,
                    act_is: act,
                    equip: None,
                    act: value,
                    holds: me.u.equipped,
                    hp: (me.u.hp - taken.round() as i64).max(1),
                    fallen: if completes { fallen } else { 0.0 },
                    routs,
                    holding,
                });
            }
        }
    }

    /// Healing from `t` (added to `out`): a hurt ally within the heal's reach, or itself with an
    /// item.
    fn heals(&self, me: &Unit, t: Tile, out: &mut Vec<Candidate>) {
        let b = self.battle();
        let moved = t != me.u.pos;
        if let Some((lo, hi)) = me.heal {
            for (k, pos, act) in &me.hurt {
                let d = distance(t, *pos);
                if d < lo || d > hi {
                    continue;
                }
                out.push(Candidate {
                    to: moved.then_some(t),
                    act_is: Act::Special { verb: m::Verb::Heal, target: Some(*k), tile: None, from: None },
                    equip: me.heal_with,
                    act: *act,
                    holds: me.heal_with.or(me.u.equipped),
                    hp: me.u.hp,
                    fallen: 0.0,
                    routs: None,
                    holding: Vec::new(),
                });
            }
        }
        // Its own healing item, when badly hurt.
        if let Some((item, act, hp)) = me.self_heal {
            out.push(Candidate {
                to: moved.then_some(t),
                act_is: Act::Use { item, target: None, tile: None },
                equip: None,
                act,
                holds: me.u.equipped,
                hp,
                fallen: 0.0,
                routs: None,
                holding: Vec::new(),
            });
        }
        // Its items whose `use` heals a unit of its side (seed 002's Item action: "on yourself or
        // an adjacent ally"): each hurt ally the use reaches from `t`, or itself when badly hurt.
        for item in &me.healing {
            let item = *item;
            for k in b.item_targets(me.i, &item, t, m::Verb::Heal) {
                let Some(f) = b.units.get(k) else { continue };
                let missing = f.max_hp.saturating_sub(f.hp);
                if missing <= 0 || (k == me.i && f.hp.saturating_mul(2) > f.max_hp) {
                    continue;
                }
                let healed = missing.min((f.max_hp + 2) / 3).max(1);
                let hp = if k == me.i { (me.u.hp + healed).min(me.u.max_hp) } else { me.u.hp };
                out.push(Candidate {
                    to: moved.then_some(t),
                    act_is: Act::Use { item, target: Some(k), tile: None },
                    equip: None,
                    act: 1.5 * loss(self.worth(k), f.max_hp, healed as f64, 0.0),
                    holds: me.u.equipped,
                    hp,
                    fallen: 0.0,
                    routs: None,
                    holding: Vec::new(),
                });
            }
        }
    }

    /// The attacks from `t` (added to `out`): every enemy in sight within a weapon's reach, with each
    /// weapon, by the exact forecast. A unit that must attack the weakest attacks only those
    /// (`forced`). `t` comes with its number among the `n` tiles of the reach (`Arms::hits`).
    fn attacks(
        &mut self,
        me: &Unit,
        (t, at_reach, n): (Tile, usize, usize),
        forced: &[usize],
        cache: &mut Forecasts,
        arms: &mut Arms,
        out: &mut Vec<Candidate>,
    ) {
        let b = self.battle();
        // Ours at full HP (read at the HP it has) on this tile's terrain, with each weapon.
        let Arms { acting, ours, targets, strikable, spans, hits, own: own_at, .. } = arms;
        // Where the advanced rules lay statuses by where a unit stands (`Battle::situated`), ours
        // as it will stand on `t` (too far from its general, say), and each target as it will
        // stand once ours is there (`Battle::moves_situation`: a flank, the rear).
        let situated = b.situated();
        // Built for the first attack worth a forecast from `t` (from most tiles there is none).
        let (mut unbuilt, mut ours) = (Some(ours), None);
        let moved = t != me.u.pos;
        for (s, &(k, at)) in strikable.iter().enumerate() {
            // A weapon strikes it from `t` over a clear line (`Arms::hits`).
            if !hits.get(s * n + at_reach).is_some_and(|h| *h) {
                continue;
            }
            let d = distance(t, at);
            if !forced.is_empty() && !forced.contains(&k) {
                continue;
            }
            if !self.sees_after(me, t, at) {
                continue;
            }
            // The target as it is, or as it will stand once ours is on `t`.
            let after = if situated && b.moves_situation(k, (me.i, t)) {
                b.loadout_moved(k, false, (me.i, t)).map(|l| {
                    let id = cache.id(&l);
                    (l, id)
                })
            } else {
                None
            };
            let Some((ld, id)) = (match &after {
                Some((l, id)) => Some((l, *id)),
                None => targets.get(b, k, &mut cache.ids),
            }) else {
                continue;
            };
            let foe = self.threats.foes.iter().position(|f| f.unit == k);
            let target = b.units.get(k);
            let (worth, max_hp) = (self.worth(k), target.map_or(1, |f| f.max_hp));
            for (n, (w, lo, hi)) in me.weapons.iter().enumerate() {
                let span = spans.iter().find(|(x, m, _, _)| *x == k && *m == n);
                let edge = span.is_some_and(|(_, _, near, far)| d == *near || d == *far);
                // Where the rules read the distance, a distance between the two is worth a
                // forecast too when it differs from one tile farther (the last tile before a
                // penalty for range sets in).
                let inside = b.engine.ir.reads_distance && span.is_some_and(|(_, _, near, far)| *near < d && d < *far);
                if d < *lo || d > *hi || !(edge || inside) {
                    continue;
                }
                if let Some(all) = unbuilt.take() {
                    // (`Arms::own`: `loadout_moved` on each tile of the reach.)
                    let own = if situated {
                        own_at.1.get(at_reach).copied().flatten().and_then(|n| own_at.0.get(n)).cloned()
                    } else {
                        None
                    };
                    ours = Some(Arms::ours(all, (&*acting, own), me, b.terrain_at(t), cache));
                }
                let Some((la, ia)) = ours.and_then(|o| o.get(n)) else { continue };
                // How hidden the target is from this square, where the rules read it.
                let cover = if b.engine.ir.reads_cover { b.cover_as_seen(t, at, &self.view.sight) } else { 0 };
                let Some(x) = cache.get(b.engine, (la, *ia), (ld, id), d, (false, moved, cover)) else { continue };
                if !edge && cache.get(b.engine, (la, *ia), (ld, id), d + 1, (false, moved, cover)).is_some_and(|y| y == x) {
                    continue;
                }
                let (routs, dealt) = x.against(x.defender_hp);
                let (fallen, taken) = x.attacker_at(me.u.hp);
                // Our HP if we stand: the damage taken in the outcomes we survive.
                let survived = if fallen < 1.0 { (taken - fallen * me.u.hp as f64) / (1.0 - fallen) } else { 0.0 };
                let hp = (me.u.hp - survived.max(0.0).round() as i64).max(1);
                let mut act = loss(worth, max_hp, dealt, routs) - loss(self.worth(me.i), me.u.max_hp, taken, fallen);
                // Focus fire: an enemy routed makes no reply on our other units either.
                if let Some(f) = foe {
                    let tempo = self.threats.foes.get(f).map_or(1.0, |x| x.tempo);
                    let spared = self.elsewhere(me.i).get(f).copied().unwrap_or(0.0);
                    act += routs * tempo * spared.max(0.0);
                }
                let equip = (me.u.equipped != Some(*w)).then_some(*w);
                out.push(Candidate {
                    to: moved.then_some(t),
                    act_is: Act::Attack { target: k },
                    equip,
                    act,
                    holds: Some(*w),
                    hp,
                    fallen,
                    routs: foe.map(|f| (f, routs)),
                    holding: Vec::new(),
                });
            }
        }
    }

    /// Whether our side still sees the enemy on `at` once our unit stands on `t` (it may have
    /// been the one that saw it): its own eyes there, or another of ours.
    fn sees_after(&self, me: &Unit, t: Tile, at: Tile) -> bool {
        if !self.view.sight.fogged() {
            return true;
        }
        me.vision.is_some_and(|v| distance(t, at) <= v)
            || self.eyes.iter().any(|(k, pos, v)| *k != me.i && distance(*pos, at) <= *v)
    }

    /// What standing on `t` is worth besides the danger: progress toward the enemy, the
    /// objective or a region to hold, tiles that heal, the enemy's objective tiles denied, a
    /// hunted leader guarded.
    fn position(&mut self, me: &Unit, t: Tile, prey: &[(Tile, f64)]) -> f64 {
        let b = self.battle();
        let urgency = self.stakes.urgency;
        let points = me.points.max(1) as f64;
        let progress = |g: &Guide, at_from: Option<i64>| match (at_from, g.at(t)) {
            (Some(a), Some(z)) => (a - z) as f64 / points,
            (None, Some(_)) => 1.0,
            _ => 0.0,
        };
        let [enemy_from, goal_from, region_from] = me.from;
        let (toward, goal, region) = match me.guides.as_deref() {
            Some(g) => (
                progress(&g.enemy, enemy_from),
                g.goal.as_deref().map(|x| progress(x, goal_from)),
                g.region.as_deref().map(|x| progress(x, region_from)),
            ),
            None => (0.0, None, None),
        };
        let mut v = (super::ADVANCE + 0.12 * urgency) * toward;
        // Within striking distance of an enemy for next time.
        // The most any prey within reach is worth (each above 0, most worth first: `prey`), or 0.
        let potential = prey.iter().find(|(at, _)| distance(*at, t) <= me.span).map_or(0.0, |(_, v)| *v);
        v += super::PROSPECT * potential;
        if let (true, Some(goal)) = (me.takes_objective, goal) {
            v += (0.08 + 0.5 * urgency) * goal;
        }
        // The race: a step nearer an objective of ours, by the chance it gives to take it in time.
        for (g, share, left, from) in &me.race {
            v += super::RACE * super::stakes::WIN * share * (super::race::chance_from(g, t, me.points, *left) - from);
        }
        if let Some(region) = region {
            v += (0.02 + 0.2 * urgency) * region;
        }
        let mark = tile_index(t, (self.open.0, b.map.height.max(0))).and_then(|k| self.marks.get(k)).copied().unwrap_or(0);
        if mark & super::HOLD != 0 {
            v += 0.05;
        }
        if mark & super::CONTEST != 0 {
            v += 0.05 + 0.3 * urgency;
        }
        if mark & super::DENY != 0 {
            v += 0.3;
        }
        // Our own objective's tile, held by a unit that cannot take it, bars the ally who can
        // (a knight parked on the throne kept the lord off it to the time limit).
        if !me.takes_objective && mark & super::GOAL != 0 {
            v -= super::BLOCKS_GOAL;
        }
        // Terrain that heals at the end of the turn.
        let heal = if mark & super::HEALS != 0 { b.terrain_at(t).and_then(|x| x.heal.as_ref()) } else { None };
        if let Some(h) = heal.filter(|h| h.event == m::Event::EndOfTurn) {
            let missing = me.u.max_hp.saturating_sub(me.u.hp);
            v += loss(self.worth(me.i), me.u.max_hp, h.amount.min(missing).max(0) as f64, 0.0);
        }
        // Next to an ally in danger: one tile fewer for the enemy to strike it from (a unit that
        // cannot strike back from next to it only offers the enemy a softer target).
        let counters = me.weapons.iter().any(|(_, lo, _)| *lo <= 1);
        let shield = if counters { super::SHIELD } else { 0.0 };
        // (With none to shield, the sum of nothing, which leaves `v` as it is.)
        if !me.cover.is_empty() {
            v += shield * me.cover.iter().filter(|(at, _)| distance(*at, t) == 1).map(|(_, per_tile)| per_tile).sum::<f64>();
        }
        v
    }
}

/// The box the tiles of `reach` lie in: (least x, most x, least y, most y); `None` if none.
fn bounds(reach: &Reach) -> Option<(i64, i64, i64, i64)> {
    let ((x, y), _) = reach.first()?;
    let (mut x0, mut x1, mut y0, mut y1) = (*x, *x, *y, *y);
    for ((x, y), _) in reach {
        (x0, x1, y0, y1) = (x0.min(*x), x1.max(*x), y0.min(*y), y1.max(*y));
    }
    Some((x0, x1, y0, y1))
}

/// The least and the most distance from `p` of a tile in the box `bounds` ([`bounds`]): at most
/// and at least those of any tile of the reach it bounds; (1, 0) where there is none.
fn span_of(bounds: Option<(i64, i64, i64, i64)>, p: Tile) -> (i64, i64) {
    let Some((x0, x1, y0, y1)) = bounds else { return (1, 0) };
    let least = (x0 - p.0).max(p.0 - x1).max(0) + (y0 - p.1).max(p.1 - y1).max(0);
    let most = (p.0 - x0).abs().max((p.0 - x1).abs()) + (p.1 - y0).abs().max((p.1 - y1).abs());
    (least, most)
}
