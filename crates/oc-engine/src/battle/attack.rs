//! Attacking: the targets a unit that must attack the weakest may choose, attacks and their
//! exchanges (statuses and debuffs landing on the unit struck), and striking destructible tiles.

use super::{distance, Battle, BattleError, Combatant, Rule, State, Tile};
use crate::combat::{Exchange, Laid, Resolution};
use crate::Atom;

/// How an exchange is made, beyond who strikes whom.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Blow {
    /// Added to the attacker's `damage_bonus` (an attack made by an action).
    pub bonus: i64,
    /// A lone attack with no counter or follow-up (a free attack).
    pub single: bool,
    /// The attacker moved in the step that made the attack (`attacker.moved`).
    pub moved: bool,
    /// The distance the exchange is struck at, where not the two units' (a free attack from a
    /// threat zone is struck in contact).
    pub at: Option<i64>,
    /// The answer to a declared attack, struck on its declarer: one combat of the two attacks
    /// (`Exchange::mutual`), with whether the declarer moved in the step that declared it.
    pub mutual: Option<bool>,
    /// Its strikes are not acted on by the charts (`on chart`): a blow a chart sent astray
    /// (`strike_friend`), so one fumble cannot lead to another without end.
    pub uncharted: bool,
    /// The weapon the attacker strikes with, where not the one in hand (which stays in hand): a
    /// free attack's ([`Battle::free_attack_weapon`]).
    pub weapon: Option<Atom>,
}

/// Whether a unit of the engine's rules may have to attack the weakest: a standing effect (of a
/// tag, a status or an item) commands `must_attack_weakest()`, the only way `Engine::unit` sets
/// it. Read once a battle.
pub(super) fn may_have_to_attack_weakest(engine: &crate::Engine) -> bool {
    let commands = |effects: &[crate::ir::Eff]| {
        effects.iter().any(|e| matches!(e, crate::ir::Eff::Command { verb: oc_model::Verb::MustAttackWeakest, .. }))
    };
    engine.ir.effects.values().any(|(_, effects)| commands(effects)) || engine.item_modifiers.values().any(|m| commands(m))
}

impl Battle<'_> {
    /// For a unit that must attack the weakest (`must_attack_weakest()`): the ready enemies within reach of its
    /// equipped weapon from where it stands, with the lowest HP among them. Empty otherwise.
    pub fn weakest_in_range(&self, i: usize) -> Vec<usize> {
        let Some(pos) = self.state.units.get(i).map(|u| u.pos) else { return Vec::new() };
        self.weakest_from(i, pos)
    }

    /// Whether the unit must attack the weakest in range (`must_attack_weakest()` holds it).
    pub fn must_attack_weakest(&self, i: usize) -> bool {
        self.weakest && self.loadout(i, true).and_then(|l| self.engine.unit(&l, &[]).ok()).is_some_and(|u| u.must_attack_weakest)
    }

    /// [`Battle::weakest_in_range`] as if the unit stood at `at`.
    pub fn weakest_from(&self, i: usize, at: Tile) -> Vec<usize> {
        let Some(u) = self.state.units.get(i).filter(|_| self.weakest) else { return Vec::new() };
        let Some(unit) = self.loadout(i, true).and_then(|l| self.engine.unit(&l, &[]).ok()) else { return Vec::new() };
        if !unit.must_attack_weakest {
            return Vec::new();
        }
        let can_attack = self.attribute(&unit, "can_attack").is_none_or(|v| v.bool());
        if !can_attack || !unit.may_use_weapon() {
            return Vec::new();
        }
        // Under fog, only the enemies its side sees, its own eyes standing at `at`.
        let (sight, vision) = (self.sight(u.side), self.vision(i).unwrap_or(0));
        let seen = |t: Tile| sight.sees(t) || distance(at, t) <= vision;
        let in_range: Vec<(usize, i64)> = self
            .units
            .iter()
            .enumerate()
            .filter(|(k, f)| {
                f.side != u.side
                    && f.state == State::Ready
                    && unit.in_range(distance(at, f.pos))
                    && seen(f.pos)
                    && !self.hidden(*k)
            })
            .filter(|(_, f)| self.clear_line(at, f.pos))
            .map(|(k, f)| (k, f.hp))
            .collect();
        let Some(low) = in_range.iter().map(|(_, hp)| *hp).min() else { return Vec::new() };
        in_range.into_iter().filter(|(_, hp)| *hp == low).map(|(k, _)| k).collect()
    }

    /// Unit `i` attacks `target`; `moved`: it moved in the same step (a charge, as `moved` reads it).
    pub(super) fn attack(&mut self, i: usize, target: usize, moved: bool) -> Result<String, BattleError> {
        let (a, d, ua) = self.attack_check(i, target)?;
        // What the attack reads of the attacker as it begins (not a whole copy of it).
        let (side, a_pos, d_pos, equipped) = (a.side, a.pos, d.pos, a.equipped);
        let (name, shown) = (a.name.clone(), if self.words() { a.shown() } else { String::new() });
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
                    *k != target
                        && !self.hidden(*k)
                        && f.side != side
                        && f.state == State::Ready
                        && ua.in_range(distance(a_pos, f.pos))
                        && self.clear_line(a_pos, f.pos)
                })
                .map(|(k, f)| (distance(a_pos, f.pos), k))
                .collect();
            others.sort_unstable();
            targets.extend(others.into_iter().map(|(_, k)| k));
        }
        // A charge strikes every other enemy in contact too (`advanced charging`).
        for k in self.charge_sweep(i, target, moved) {
            if !targets.contains(&k) {
                targets.push(k);
            }
        }
        // An area-affecting weapon strikes every other unit around its target too (`advanced area`).
        let blast: Vec<usize> = self.blast(i, target).into_iter().filter(|k| !targets.contains(k)).collect();
        // Shooting past an enemy in one's own zone draws its free attack first.
        let mut notes = self.shooting_past(i, target);
        if self.state.units.get(i).is_none_or(|f| f.hp <= 0) {
            return Ok(format!("{name} is routed before it shoots: {}", notes.join("; ")));
        }
        let free = notes.len();
        // Answering the attack its target declared on it: both attacks are one combat.
        // (An interruption is no declared attack: the watcher's strike is its own combat.)
        let answer = self.state.pending.last().filter(|d| d.target == i && d.by == target && d.attack()).map(|d| d.moved);
        for t in targets {
            if self.state.units.get(i).is_none_or(|f| f.hp <= 0) {
                break;
            }
            let mutual = answer.filter(|_| t == target);
            notes.push(self.exchange_full(i, t, Blow { moved, mutual, ..Blow::default() })?);
        }
        // The blast: each unit a lone strike at the target's distance (it struck the target's ground).
        let at = distance(a_pos, d_pos);
        for k in blast {
            if self.state.units.get(i).is_none_or(|f| f.hp <= 0) {
                break;
            }
            if self.state.units.get(k).is_some_and(|f| f.state == State::Ready) {
                notes.push(self.exchange_full(i, k, Blow { moved, single: true, at: Some(at), ..Blow::default() })?);
            }
        }
        // A mixed unit's bodies strike after its own figures (units.rs).
        let bodies = self.bodies_strike(i, target, moved);
        let spent = equipped.as_deref().and_then(|w| self.spend(i, w));
        if !self.words() {
            return Ok(String::new());
        }
        let spent = spent.map(|n| format!("; {n}")).unwrap_or_default();
        let struck = notes.split_off(free);
        let before = notes.iter().map(|n| format!("{n}; ")).collect::<String>();
        let bodies = bodies.iter().map(|n| format!("; {n}")).collect::<String>();
        Ok(format!("{before}{shown} attacks {}{spent}{bodies}", struck.join("; attacks ")))
    }

    /// One exchange of an attack: the strikes, hit points, statuses and debuffs; "NAME: strikes".
    pub(super) fn exchange_full(&mut self, i: usize, target: usize, blow: Blow) -> Result<String, BattleError> {
        let Blow { bonus, single, moved, at, mutual, uncharted, weapon } = blow;
        // What the exchange reads of the two units as it begins (not whole copies of them): where
        // they stand, whether they have activated, their living figures, the struck one's name.
        let (Some(a), Some(d)) = (self.state.units.get(i), self.state.units.get(target)) else {
            return Err(BattleError::refused(Rule::NoUnit, "no such unit"));
        };
        let (a_pos, d_pos, activated) = (a.pos, d.pos, [a.activated, d.activated]);
        let living_before = [a.living(), d.living()];
        let d_shown = if self.words() { d.shown() } else { String::new() };
        let (Some(mut la), Some(ld)) = (self.loadout(i, true), self.loadout(target, false)) else {
            return Err(BattleError::refused(Rule::NoUnit, "no such unit"));
        };
        if weapon.is_some() {
            la.weapon = weapon;
        }
        if bonus != 0 {
            la.debuffs.push((Atom::new("damage_bonus"), bonus));
        }
        let exchange = Exchange::new(self.engine, &la, &ld, at.unwrap_or_else(|| distance(a_pos, d_pos)))?
            .activated(activated)
            .moved([moved && self.engine.ir.reads_moved, mutual.unwrap_or(false) && self.engine.ir.reads_moved])
            .cover(if self.engine.ir.reads_cover { self.cover_between(a_pos, d_pos) } else { 0 });
        let exchange = exchange.with_reactions([self.stance_of(a.side), self.stance_of(d.side)])?;
        let exchange = if single { exchange.single() } else { exchange };
        let exchange = if mutual.is_some() { exchange.mutual() } else { exchange };
        // The declarer strikes in this combat: its declared attack is fought here.
        if mutual.is_some() && exchange.counters() {
            if let Some(d) = self.state.pending.last_mut().filter(|d| d.by == target && d.target == i) {
                d.fought = true;
            }
        }
        let struck_back = mutual.is_some() || exchange.counters();
        let Resolution { log, hp, declared, resources } = exchange.resolve_all(&mut self.state.rng);
        // Whoever strikes is seen (a hidden attacker's blow was made from hiding).
        self.unhide(i);
        if struck_back {
            self.unhide(target);
        }
        // A unit of several figures shows them ("Braves (8 of 8)"), and those that fell
        // (`living_before`, read as the exchange began).
        // HP, and the resources reactions spent.
        for (k, side) in [(i, 0), (target, 1)] {
            if let Some(f) = self.state.units.get_mut(k) {
                f.hp = hp[side];
                if let Some(r) = resources.get(side).filter(|r| !r.is_empty()) {
                    f.resources = r.clone();
                }
            }
        }
        // Statuses, cures and debuffs the triggers laid (`on attacked`, then each strike's) stay.
        let unit_of = |side: usize| if side == 0 { i } else { target };
        for laid in declared.iter().chain(log.iter().flat_map(|s| s.laid.iter())) {
            match laid {
                Laid::Afflicted { side, status } => self.afflict(unit_of(*side), status),
                Laid::Debuff { side, attr, shift } => self.debuff(unit_of(*side), attr, *shift),
                Laid::Cured { side } => {
                    self.cure(unit_of(*side));
                }
                Laid::Cleared { side, status } => {
                    self.clear(unit_of(*side), status);
                }
            }
        }
        // Each strike's result on the charts, acted on now the exchange is over (`on chart`, on
        // the striker's tags; `foe` the unit it struck).
        let charted: Vec<(usize, usize, i64)> =
            log.iter().filter(|s| s.chart != 0 && !uncharted).map(|s| (unit_of(s.side), unit_of(1 - s.side), s.chart)).collect();
        for (striker, struck, chart) in charted {
            self.run_triggers_charted(striker, oc_model::Event::Chart, Some(struck), &Default::default(), chart);
        }
        // A quiet copy's log, or an unlogged battle's, shows no strikes.
        if !self.words() {
            return Ok(String::new());
        }
        let strikes: Vec<String> = log
            .iter()
            .map(|s| {
                let outcome = if s.outcome.crit {
                    "crit"
                } else if s.outcome.hit {
                    "hit"
                } else {
                    "miss"
                };
                let roll = s.shown.as_ref().map_or_else(|| s.roll.to_string(), |w| format!("({w})"));
                // The struck unit's reaction, where the ruleset has reactions; the reactions to
                // the roll taken.
                let reaction = s.reaction.as_ref().map(|r| format!(" ({r})")).unwrap_or_default();
                let rerolled = s.rerolled.as_ref().map(|r| format!(" (reroll: {r})")).unwrap_or_default();
                // The weapon, where the striker has several attack forms ("attack (Bite) 14 hit").
                let form = s.form.as_ref().map(|w| format!(" ({w})")).unwrap_or_default();
                format!("{}{form} {roll} {outcome}{reaction}{rerolled}", s.stage)
            })
            .collect();
        let fell = |k: usize, side: usize| {
            let f = self.state.units.get(k).filter(|f| f.figures > 1)?;
            let n = living_before.get(side)? - f.living();
            (n > 0).then(|| match (side, n) {
                (1, 1) => "; 1 figure falls".to_string(),
                (1, _) => format!("; {n} figures fall"),
                (_, 1) => format!("; 1 of {} falls", f.name),
                _ => format!("; {n} of {} fall", f.name),
            })
        };
        let fallen = [fell(target, 1), fell(i, 0)].into_iter().flatten().collect::<String>();
        Ok(format!("{d_shown}: {}{fallen}", strikes.join(", ")))
    }

    pub(super) fn strike(&mut self, i: usize, tile: Tile) -> Result<String, BattleError> {
        let u = self.state.units.get(i).cloned().ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        let terrain = self
            .terrain_at(tile)
            .cloned()
            .ok_or_else(|| BattleError::refused(Rule::Place, format!("{tile:?} is off the map")))?;
        let override_hp = self.state.map.destructibles.iter().find(|(t, _)| *t == tile).and_then(|(_, hp)| *hp);
        let full = override_hp.or(terrain.hp.map(i64::from));
        let (Some(full), Some(becomes)) = (full, terrain.becomes.clone().filter(|_| terrain.opened_by.is_empty())) else {
            return Err(BattleError::refused(Rule::Place, format!("{} at {tile:?} cannot be destroyed", terrain.name)));
        };
        let l = self.loadout(i, true).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        let damage = self.engine.structure_damage(&l, distance(u.pos, tile))?;
        let left = self.state.tile_hp.get(&tile).copied().unwrap_or(full) - damage;
        if left <= 0 {
            self.state.tile_hp.remove(&tile);
            self.set_terrain(tile, becomes.clone());
            Ok(format!("{} strikes the {} at {tile:?} for {damage}: it is {becomes} now", u.name, terrain.name))
        } else {
            self.state.tile_hp.insert(tile, left);
            Ok(format!("{} strikes the {} at {tile:?} for {damage}: {left} HP left", u.name, terrain.name))
        }
    }
}

impl Battle<'_> {
    /// Unit `i` as it would attack from `from` holding `equip` (its own weapon with `None`): its
    /// loadout on that square's terrain.
    fn loadout_from(&self, i: usize, from: Tile, equip: Option<Atom>) -> Option<crate::Loadout> {
        let mut l = self.loadout_at(i, true, Some((i, from)))?;
        if let Some(w) = equip {
            l.weapon = Some(w);
        }
        l.terrain = self.terrain_atom_at(from);
        Some(l)
    }

    /// The enemies unit `i` could attack standing on `from` and holding `equip`: ready, seen by
    /// its side, within its weapon's reach, as [`Battle::turn`] checks an attack (a player's
    /// choices before it moves).
    pub fn targets_from(&self, i: usize, from: Tile, equip: Option<Atom>) -> Vec<usize> {
        let Some(u) = self.state.units.get(i) else { return Vec::new() };
        let Some(unit) = self.loadout_from(i, from, equip).and_then(|l| self.engine.unit(&l, &[]).ok()) else {
            return Vec::new();
        };
        if self.attribute(&unit, "can_attack").is_some_and(|v| !v.bool()) || !unit.may_use_weapon() {
            return Vec::new();
        }
        let (sight, vision) = (self.sight(u.side), self.vision(i).unwrap_or(0));
        self.units
            .iter()
            .enumerate()
            .filter(|(_, f)| f.side != u.side && f.state == State::Ready && unit.in_range(distance(from, f.pos)))
            .filter(|(_, f)| sight.sees(f.pos) || distance(from, f.pos) <= vision)
            .filter(|(k, _)| !self.hidden(*k))
            .filter(|(_, f)| self.clear_line(from, f.pos))
            .map(|(k, _)| k)
            .collect()
    }

    /// The odds of unit `i` attacking `target` from `from` (the target as it will stand then),
    /// as the AIs weigh an exchange: [`crate::Engine::ending_shared`], worked out once per engine.
    pub(super) fn odds_from(&self, i: usize, from: Tile, target: usize) -> Option<crate::combat::Odds> {
        let (a, d) = (self.state.units.get(i)?, self.state.units.get(target)?);
        let (la, ld) = (self.loadout_from(i, from, None)?, self.loadout_at(target, false, Some((i, from)))?);
        let cover = if self.engine.ir.reads_cover { self.cover_between(from, d.pos) } else { 0 };
        let f = self.engine.ending_shared(&la, &ld, distance(from, d.pos), false, (from != a.pos, cover)).ok()?;
        Some(f.odds)
    }

    /// Whether unit `i` may attack `target` where both stand, or why not: the two units and
    /// the attacker as it acts.
    pub(super) fn attack_check(
        &self,
        i: usize,
        target: usize,
    ) -> Result<(&Combatant, &Combatant, std::sync::Arc<crate::unit::Unit>), BattleError> {
        let (a, d) = (self.state.units.get(i), self.state.units.get(target));
        let (Some(a), Some(d)) = (a, d) else { return Err(BattleError::refused(Rule::NoUnit, "no such unit")) };
        if d.side == a.side || d.state != State::Ready {
            return Err(BattleError::refused(Rule::Target, format!("{} cannot attack {}", a.name, d.name)));
        }
        if !self.sees(a.side, d.pos) {
            return Err(BattleError::refused(
                Rule::Target,
                format!("{} cannot attack {}: its side does not see it (fog of war)", a.name, d.name),
            ));
        }
        if self.hidden(target) {
            return Err(BattleError::refused(
                Rule::Target,
                format!("{} cannot attack {}: it is hidden (a search may find it)", a.name, d.name),
            ));
        }
        let dist = distance(a.pos, d.pos);
        // The target needs a loadout too: only its class can be missing (`loadout` is not built).
        let (Some(la), true) = (self.loadout(i, true), self.engine.class(&d.class).is_some()) else {
            return Err(BattleError::refused(Rule::NoUnit, "no such unit"));
        };
        let ua = self.engine.unit(&la, &[])?;
        if self.attribute(&ua, "can_attack").is_some_and(|v| !v.bool()) {
            return Err(BattleError::refused(Rule::Requirement, format!("{} cannot attack now (a status forbids it)", a.name)));
        }
        if !ua.in_range(dist) || !ua.may_use_weapon() {
            return Err(BattleError::refused(
                Rule::Target,
                format!(
                    "{} cannot reach {} at distance {dist} with {}",
                    a.name,
                    d.name,
                    a.equipped.as_deref().unwrap_or("no weapon")
                ),
            ));
        }
        if !self.clear_line(a.pos, d.pos) {
            let (x, y) = self.sight_blocker(a.pos, d.pos).unwrap_or(a.pos);
            let what = self.terrain_at((x, y)).map_or("terrain", |t| t.title.as_deref().unwrap_or(&t.name));
            return Err(BattleError::refused(
                Rule::Target,
                format!(
                    "{} has no clear line of sight to {} (line of sight): the {what} at ({x}, {y}) blocks it",
                    a.name, d.name
                ),
            ));
        }
        Ok((a, d, ua))
    }

    /// The exact forecast of unit `i` attacking `target` from `from` holding `equip`, made as the
    /// battle makes the exchange (who has activated, a charge when `from` is not where it stands,
    /// the cover between them): what a forecast window shows before the player confirms.
    pub fn attack_forecast(
        &self,
        i: usize,
        from: Tile,
        target: usize,
        equip: Option<Atom>,
    ) -> Result<crate::Forecast, BattleError> {
        let (Some(a), Some(d)) = (self.state.units.get(i), self.state.units.get(target)) else {
            return Err(BattleError::refused(Rule::NoUnit, "no such unit"));
        };
        let (Some(la), Some(ld)) = (self.loadout_from(i, from, equip), self.loadout_at(target, false, Some((i, from)))) else {
            return Err(BattleError::refused(Rule::NoUnit, "no such unit"));
        };
        let moved = from != a.pos;
        let exchange = Exchange::new(self.engine, &la, &ld, distance(from, d.pos))?
            .activated([false, d.activated])
            .moved([moved && self.engine.ir.reads_moved, false])
            .cover(if self.engine.ir.reads_cover { self.cover_between(from, d.pos) } else { 0 });
        let exchange = exchange.with_reactions([self.stance_of(a.side), self.stance_of(d.side)])?;
        Ok(exchange.forecast())
    }

    /// The standing reaction of `side` ([`super::Turn::reaction`]), `None` for its best.
    fn stance_of(&self, side: oc_model::SideId) -> Option<&str> {
        self.state.stance.get(super::side_index(side)).and_then(|s| s.as_deref())
    }
}
