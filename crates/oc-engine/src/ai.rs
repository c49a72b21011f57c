//! A simple, honest AI: for each unit waiting to act it weighs taking the objective (seize,
//! escape, raze), healing a hurt ally, and the attack with the best exact forecast, and
//! otherwise walks toward the objective or the nearest enemy. It sees only what a player sees:
//! under fog of war it decides from a [`View`] of the battle, the enemies its side sees and no
//! other (it neither targets, paths toward nor forecasts an enemy out of sight).

use std::collections::{HashMap, VecDeque};

use oc_model as m;

use crate::battle::{distance, neighbours, Act, Battle, Combatant, Controller, Sight, State, Tile, Turn};

/// Steps to the nearest of `goals` for a unit's movement type, ignoring other units (a guide
/// for walking, not a path).
fn steps_to(b: &Battle, kind: &str, goals: &[Tile]) -> HashMap<Tile, i64> {
    let mut dist: HashMap<Tile, i64> = HashMap::new();
    let mut queue: VecDeque<Tile> = VecDeque::new();
    for g in goals {
        dist.insert(*g, 0);
        queue.push_back(*g);
    }
    // Uniform-cost over terrain cost (small maps: a simple relaxation queue is enough).
    while let Some(at) = queue.pop_front() {
        let here = dist.get(&at).copied().unwrap_or(0);
        for next in neighbours(at) {
            // The cost of entering `at` from `next`.
            let Some(step) = b.terrain_at(at).and_then(|t| t.costs.get(kind).copied().flatten()) else { continue };
            if b.terrain_at(next).and_then(|t| t.costs.get(kind).copied().flatten()).is_none() {
                continue;
            }
            let total = here + i64::from(step);
            if dist.get(&next).is_none_or(|d| total < *d) {
                dist.insert(next, total);
                queue.push_back(next);
            }
        }
    }
    dist
}

/// (chance to rout the target, expected damage dealt, expected damage taken).
pub type Prospect = (f64, f64, f64);

/// The region tiles a side's condition asks it to reach with `verb`.
fn objective_tiles(b: &Battle, side: m::SideId, kind: &str) -> Vec<Tile> {
    fn regions<'c>(c: &'c m::Condition, kind: &str, out: &mut Vec<&'c str>) {
        match c {
            m::Condition::Seize { region } if kind == "seize" => out.push(region),
            m::Condition::Escape { region, .. } if kind == "escape" => out.push(region),
            m::Condition::Raze { region, .. } if kind == "raze" => out.push(region),
            m::Condition::Defend { region, .. } if kind == "defend" => out.push(region),
            m::Condition::And(a, x) | m::Condition::Or(a, x) => {
                regions(a, kind, out);
                regions(x, kind, out);
            }
            _ => {}
        }
    }
    let mut names = Vec::new();
    if let Some(c) = &b.scenario.side(side).win {
        regions(c, kind, &mut names);
    }
    names.iter().filter_map(|n| b.map.region(n)).flat_map(|r| r.tiles.iter().copied()).collect()
}

/// The AI's exact forecasts, by the two loadouts and the distance (a loadout includes HP,
/// terrain and statuses, so an entry stays right for as long as the battle lasts).
type Forecasts = HashMap<String, Option<Prospect>>;

/// The AI, as the battle's [`Controller`]. Use one per battle: it keeps the forecasts it has
/// worked out with that battle's engine.
#[derive(Debug, Default)]
pub struct Ai {
    forecasts: Forecasts,
}

impl Controller for Ai {
    fn choose(&mut self, b: &Battle<'_>) -> Option<Turn> {
        choose(b, &mut self.forecasts)
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
            .filter(|(_, u)| u.state == State::Ready && (u.side == self.sight.side || self.sight.sees(u.pos)))
    }

    /// The enemies in sight.
    pub fn enemies(&self) -> impl Iterator<Item = (usize, &'v Combatant)> + '_ {
        self.units().filter(|(_, u)| u.side != self.sight.side)
    }

    /// Tiles a unit can move to, as far as its side knows.
    fn reachable(&self, i: usize) -> Option<HashMap<Tile, i64>> {
        if self.sight.fogged() {
            self.battle.reachable_as_seen(i, &self.sight).ok()
        } else {
            self.battle.reachable(i).ok()
        }
    }
}

/// The turn the AI plays for the side to act, or `None` if it has nobody to activate.
fn choose(b: &Battle, cache: &mut Forecasts) -> Option<Turn> {
    let side = b.to_act;
    let view = View::new(b, side);
    let mut best: Option<(f64, Turn)> = None;
    for i in b.may_act(side) {
        if let Some((score, turn)) = best_for(&view, i, cache) {
            if best.as_ref().is_none_or(|(s, _)| score > *s) {
                best = Some((score, turn));
            }
        }
    }
    best.map(|(_, t)| t).or_else(|| {
        b.may_act(side).first().map(|i| Turn { unit: *i, to: None, equip: None, act: Act::Wait, ..Default::default() })
    })
}

fn best_for(view: &View, i: usize, cache: &mut Forecasts) -> Option<(f64, Turn)> {
    let b = view.battle;
    let u = b.units.get(i)?;
    let reach = view.reachable(i)?;
    let actions = b.actions(i);
    let has = |verb: m::Verb| actions.iter().any(|a| a.verb() == Some(verb));
    // Where activations are steps paid from a resource, only steps the unit can pay for.
    let affordable = |turn: &Turn| {
        let moved = turn.to.and_then(|t| reach.get(&t).copied()).unwrap_or(0);
        b.step_price(i, &b.step_vars(i, moved, &turn.act)).is_none_or(|p| p.is_ok())
    };
    // 1. The objective, if a tile of it is in reach.
    for (verb, kind) in [(m::Verb::Seize, "seize"), (m::Verb::Escape, "escape"), (m::Verb::Raze, "raze")] {
        if !has(verb) {
            continue;
        }
        let tiles = objective_tiles(b, u.side, kind);
        let mut options: Vec<&Tile> = reach.keys().filter(|t| tiles.contains(t)).collect();
        options.sort();
        if let Some(t) = options.first() {
            let turn = Turn {
                unit: i,
                to: Some(**t).filter(|t| *t != u.pos),
                equip: None,
                act: Act::Special { verb, target: None, tile: None },
                ..Default::default()
            };
            if affordable(&turn) {
                return Some((1000.0, turn));
            }
        }
    }
    let mut best: Option<(f64, Turn)> = None;
    let mut consider = |score: f64, turn: Turn| {
        if !affordable(&turn) {
            return;
        }
        // Forecasts sum probabilities in an order that may vary from run to run; rounding keeps
        // equal options equal, so the first (in tile order) wins and replays are exact.
        let score = (score * 1e6).round() / 1e6;
        if best.as_ref().is_none_or(|(s, _)| score > *s) {
            best = Some((score, turn));
        }
    };
    let mut tiles: Vec<(&Tile, &i64)> = reach.iter().collect();
    tiles.sort();
    // 2. Healing a hurt ally.
    if has(m::Verb::Heal) {
        for (k, ally) in b.units.iter().enumerate() {
            if k == i || ally.side != u.side || ally.state != State::Ready || ally.hp >= ally.max_hp {
                continue;
            }
            if let Some((t, _)) = tiles.iter().find(|(t, _)| distance(**t, ally.pos) == 1) {
                let missing = ally.max_hp.saturating_sub(ally.hp) as f64;
                consider(
                    10.0 + missing * 3.0,
                    Turn {
                        unit: i,
                        to: Some(**t).filter(|t| *t != u.pos),
                        equip: None,
                        act: Act::Special { verb: m::Verb::Heal, target: Some(k), tile: None },
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
                    5.0 + missing * 2.0,
                    Turn { unit: i, act: Act::Use { item: item.clone(), target: None, tile: None }, ..Default::default() },
                );
                break;
            }
        }
    }
    // 3. Attacks: the exact forecast from each tile in reach that can strike.
    let weapons: Vec<String> =
        u.items.iter().filter(|n| b.engine.rules.item(n).is_some_and(|it| it.kind == m::ItemKind::Weapon)).cloned().collect();
    let mut forecasts: HashMap<(usize, i64, String), Option<Prospect>> = HashMap::new();
    let berserk = b.must_attack_weakest(i);
    for (k, foe) in view.enemies() {
        for (t, _) in &tiles {
            let d = distance(**t, foe.pos);
            if d > 6 || (**t != u.pos && view.units().any(|(_, x)| x.pos == **t)) {
                continue;
            }
            // A unit that must attack the weakest in range considers only that target (of those
            // in sight: the battle's rule, too).
            if berserk {
                let forced = b.weakest_from(i, **t);
                if !forced.is_empty() && !forced.contains(&k) {
                    continue;
                }
            }
            for w in &weapons {
                let terrain = b.terrain_at(**t).map(|x| x.name.clone()).unwrap_or_default();
                let f = forecasts.entry((k, d, format!("{w}@{terrain}"))).or_insert_with(|| forecast(b, cache, i, k, **t, d, w));
                if let Some((routs, dealt, taken)) = *f {
                    let score = routs * 60.0 + dealt - taken * 0.7;
                    let equip = (u.equipped.as_deref() != Some(w.as_str())).then(|| w.clone());
                    consider(
                        score,
                        Turn {
                            unit: i,
                            to: Some(**t).filter(|t| *t != u.pos),
                            equip,
                            act: Act::Attack { target: k },
                            ..Default::default()
                        },
                    );
                }
            }
        }
    }
    // 4. Walking toward the objective or the nearest enemy.
    let kind = b.movement_type(i).unwrap_or_default();
    let mut goals: Vec<Tile> = Vec::new();
    for (verb, k) in [(m::Verb::Seize, "seize"), (m::Verb::Escape, "escape"), (m::Verb::Raze, "raze")] {
        if has(verb) {
            goals.extend(objective_tiles(b, u.side, k));
        }
    }
    if goals.is_empty() {
        goals.extend(objective_tiles(b, u.side, "defend"));
    }
    if goals.is_empty() {
        goals.extend(view.enemies().map(|(_, f)| f.pos));
    }
    // Under fog with no enemy in sight: toward where the enemy deployed.
    if goals.is_empty() && view.sight.fogged() {
        goals.extend(b.map.region(&b.scenario.side(u.side.other()).zone).map(|r| r.tiles.clone()).unwrap_or_default());
    }
    let guide = steps_to(b, &kind, &goals);
    let here = guide.get(&u.pos).copied().unwrap_or(i64::MAX / 4);
    if let Some((t, d)) = tiles.iter().filter_map(|(t, _)| guide.get(*t).map(|d| (**t, *d))).min_by_key(|(t, d)| (*d, *t)) {
        let progress = (here - d) as f64;
        consider(
            progress * 0.5,
            Turn { unit: i, to: Some(t).filter(|t| *t != u.pos), equip: None, act: Act::Wait, ..Default::default() },
        );
    }
    best.or(Some((0.0, Turn { unit: i, to: None, equip: None, act: Act::Wait, ..Default::default() })))
}

/// (chance to rout the target, expected damage dealt, expected damage taken) attacking from
/// `from` with weapon `w`, or `None` when it cannot; worked out once per battle (`cache`).
fn forecast(b: &Battle, cache: &mut Forecasts, i: usize, k: usize, from: Tile, d: i64, w: &str) -> Option<Prospect> {
    let (mut la, ld) = (b.loadout_of(i, true)?, b.loadout_of(k, false)?);
    la.weapon = Some(w.to_string());
    la.terrain = b.terrain_at(from).map(|t| t.name.clone());
    let unit = b.engine.unit(&la, &[]).ok()?;
    if !unit.in_range(d) || !unit.may_use_weapon() {
        return None;
    }
    let key = format!("{la:?}|{ld:?}|{d}");
    if let Some(hit) = cache.get(&key) {
        return *hit;
    }
    let result = b
        .engine
        .forecast(&la, &ld, d)
        .ok()
        .map(|f| (f.defender_routed, f.defender_damage_taken, f.attacker_damage_taken + f.attacker_routed * 30.0));
    cache.insert(key, result);
    result
}
