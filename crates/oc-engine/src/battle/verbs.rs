//! The verbs on a battle: the one executor (`exec::execute`) over the battle as its
//! [`World`](crate::exec::World), with a command's arguments evaluated by the one evaluator in
//! the scene of the unit carrying it out.

use crate::Atom;
use oc_model as m;

use super::attack::Blow;
use super::scene::{Cast, Drawn, Draws};
use super::{distance, Battle, BattleError, Rule, State, Tile};
use crate::dice::rng;
use crate::exec::{execute, Command, Done, Refused, World};
use crate::ir::{Role, E, V};

impl Battle<'_> {
    /// Runs the command `verb(cargs)` of unit `cast.user` (its tag's arguments `params`): the
    /// arguments evaluated now, in the scene of `cast` with the event's dice, then carried out.
    /// `dest` is the tile the action names (where `relocate` moves a unit). The note says
    /// what it did.
    pub(super) fn command(
        &mut self,
        cast: Cast<'_>,
        dest: Option<Tile>,
        verb: m::Verb,
        cargs: &[E],
        params: &[V],
        drawn: &Drawn,
    ) -> Result<String, BattleError> {
        let mut dice = std::mem::replace(&mut self.state.rng, rng(0));
        let values: Option<Vec<V>> = self
            .scene(cast, Some(&Draws::new(&mut dice, drawn)))
            .map(|scene| cargs.iter().map(|a| scene.value(a, params)).collect());
        self.state.rng = dice;
        let values = values.ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {}", cast.user)))?;
        let command = Command::decode(verb, &values)
            .filter(|_| {
                !matches!(verb, m::Verb::Restrict | m::Verb::MustAttackWeakest | m::Verb::IgnoreItemTags | m::Verb::Shift)
            })
            .ok_or_else(|| {
                BattleError::refused(
                    Rule::Requirement,
                    format!("`{verb:?}` is not something a unit does: it holds while a tag is held"),
                )
            })?;
        let mut world = OnBattle { battle: self, who: [Some(cast.user), cast.other], spot: cast.at.unwrap_or_default(), dest };
        match execute(&mut world, command) {
            Ok(done) => Ok(world.note(done)),
            Err(Refused::NoUnit(_)) => {
                let role = cargs.iter().find_map(|a| match a {
                    E::Unit(r) if !matches!(r, Role::Holder | Role::Attacker) => Some(*r),
                    _ => None,
                });
                Err(BattleError::refused(
                    Rule::Requirement,
                    match role {
                        Some(r) => format!("there is no {r:?} unit here"),
                        None => format!("`{verb:?}` names a unit this event has not"),
                    },
                ))
            }
            Err(Refused::NotHere(v)) => {
                Err(BattleError::refused(Rule::Requirement, format!("`{v:?}` is not something a unit does in a battle")))
            }
            Err(Refused::Rules(why)) => Err(BattleError::refused(Rule::Place, why)),
        }
    }
}

/// The battle as the executor's world: side 0 is the unit carrying the command out, side 1 the
/// other unit of its action or event; `spot` the tile acted on, `dest` the tile named.
struct OnBattle<'b, 'e> {
    battle: &'b mut Battle<'e>,
    who: [Option<usize>; 2],
    spot: Tile,
    dest: Option<Tile>,
}

impl OnBattle<'_, '_> {
    fn index(&self, side: usize) -> Option<usize> {
        self.who.get(side).copied().flatten()
    }

    fn name(&self, side: usize) -> String {
        self.index(side).and_then(|k| self.battle.state.units.get(k)).map(|f| f.name.clone()).unwrap_or_default()
    }

    fn user(&self) -> usize {
        self.index(0).unwrap_or(0)
    }

    /// What a command did, as the log says it.
    fn note(&self, done: Done) -> String {
        let ir = &self.battle.engine.ir;
        match done {
            Done::Healed { unit, amount } => format!("heals {} for {amount}", self.name(unit)),
            Done::Damaged { unit, amount } => {
                let routed = self.index(unit).and_then(|k| self.battle.state.units.get(k)).is_some_and(|f| f.hp == 0);
                format!("deals {amount} damage to {}{}", self.name(unit), if routed { ", routing them" } else { "" })
            }
            Done::Inflicted { status, .. } => format!("inflicts {}", ir.name(status)),
            Done::Cured { unit, statuses } if statuses.is_empty() => format!("finds nothing to cure on {}", self.name(unit)),
            Done::Cured { unit, statuses } => {
                format!("cures {} of {}", self.name(unit), statuses.iter().map(|s| ir.name(*s)).collect::<Vec<_>>().join(", "))
            }
            Done::Debuffed { unit, attr, shift, new } => {
                let attr = ir.attrs.get(attr as usize).map_or("?", |(n, _)| n.as_str());
                if new {
                    format!("lowers {}'s {attr} by {}", self.name(unit), -shift)
                } else {
                    format!("cannot lower {}'s {attr} again", self.name(unit))
                }
            }
            Done::Gained { unit: 0, resource, amount, total } => format!("gains {amount} {} ({total} now)", ir.name(resource)),
            Done::Gained { unit, resource, amount, total } => {
                format!("gives {} {amount} {} ({total} now)", self.name(unit), ir.name(resource))
            }
            Done::Battle(note) => note,
        }
    }

    /// The region of `kind` at the spot acted on that the acting unit's side may use.
    fn region(&self, kind: &str) -> Option<String> {
        let side = self.battle.state.units.get(self.user()).map_or(m::SideId::Attacker, |u| u.side);
        self.battle
            .map
            .regions
            .iter()
            .find(|r| r.kind == kind && r.tiles.contains(&self.spot) && r.side.is_none_or(|s| s == side))
            .map(|r| r.name.clone())
    }

    fn side(&self) -> m::SideId {
        self.battle.state.units.get(self.user()).map_or(m::SideId::Attacker, |u| u.side)
    }

    fn unit_of(&self, side: usize) -> Result<usize, Refused> {
        self.index(side).ok_or(Refused::NoUnit(side))
    }
}

fn refuse<T>(why: impl Into<String>) -> Result<T, Refused> {
    Err(Refused::Rules(why.into()))
}

impl World for OnBattle<'_, '_> {
    fn present(&self, unit: usize) -> bool {
        self.index(unit).is_some()
    }
    fn hp(&self, unit: usize) -> i64 {
        self.index(unit).and_then(|k| self.battle.state.units.get(k)).map_or(0, |f| f.hp)
    }
    fn max_hp(&self, unit: usize) -> i64 {
        self.index(unit).map_or(0, |k| self.battle.max_hp_now(k))
    }
    /// At 0 a unit is routed at once, and its `on routed` runs (the acting unit its foe, unless
    /// it routed itself).
    fn set_hp(&mut self, unit: usize, hp: i64) {
        let (Some(k), user) = (self.index(unit), self.user()) else { return };
        let Some(f) = self.battle.state.units.get_mut(k) else { return };
        let was_ready = f.state == State::Ready;
        f.hp = hp.max(0);
        if f.hp == 0 {
            // A mixed unit fights on as its next body (units.rs); a body that falls stays joined.
            let joined = f.state == State::Joined;
            let carried_on = if was_ready { self.battle.fall(k) } else { joined };
            if !carried_on {
                if let Some(f) = self.battle.state.units.get_mut(k) {
                    f.state = State::Routed;
                }
            }
            // A unit routed by a command's damage (a status's or an item's) gets its `on routed` too.
            if was_ready && !carried_on {
                self.battle.run_triggers_against(k, m::Event::Routed, (k != user).then_some(user));
            }
        }
    }
    fn inflict(&mut self, unit: usize, status: u32) -> bool {
        let Some(k) = self.index(unit) else { return false };
        let before = self.battle.state.units.get(k).map_or(0, |f| f.statuses.len());
        let name = self.battle.engine.ir.name(status).to_string();
        self.battle.afflict(k, &name);
        self.battle.state.units.get(k).map_or(0, |f| f.statuses.len()) > before
    }
    fn cure(&mut self, unit: usize) -> Vec<u32> {
        let Some(k) = self.index(unit) else { return Vec::new() };
        let gone = self.battle.cure(k);
        gone.iter().filter_map(|s| self.battle.engine.ir.name_id(s)).collect()
    }
    fn clear(&mut self, unit: usize, status: u32) -> bool {
        let Some(k) = self.index(unit) else { return false };
        let name = self.battle.engine.ir.name(status).to_string();
        self.battle.clear(k, &name)
    }
    fn resource(&self, unit: usize, resource: u32) -> Option<i64> {
        let slot = self.battle.engine.resource_slot(resource)?;
        let k = self.index(unit)?;
        self.battle.state.units.get(k).map(|u| u.resources.get(slot).copied().unwrap_or(0))
    }

    fn set_resource(&mut self, unit: usize, resource: u32, amount: i64) {
        let count = self.battle.engine.rules.ruleset.resources.len();
        let (Some(slot), Some(k)) = (self.battle.engine.resource_slot(resource), self.index(unit)) else { return };
        if let Some(u) = self.battle.state.units.get_mut(k) {
            if u.resources.len() < count {
                u.resources.resize(count, 0);
            }
            if let Some(v) = u.resources.get_mut(slot) {
                *v = amount;
            }
        }
    }

    fn debuff(&mut self, unit: usize, attr: u16, shift: i64) -> bool {
        let Some(k) = self.index(unit) else { return false };
        let Some((name, _)) = self.battle.engine.ir.attrs.get(attr as usize).cloned() else { return false };
        let before = self.battle.state.units.get(k).map_or(0, |f| f.debuffs.len());
        self.battle.debuff(k, &name, shift);
        self.battle.state.units.get(k).map_or(0, |f| f.debuffs.len()) > before
    }

    fn battle(&mut self, command: &Command) -> Result<String, Refused> {
        let (i, spot, side) = (self.user(), self.spot, self.side());
        let ir = &self.battle.engine.ir;
        let Command { verb, unit, amount, name } = *command;
        match verb {
            m::Verb::Seize => {
                let region = self
                    .region("seize")
                    .ok_or(Refused::Rules("seizing is only possible on the scenario's seize tiles".into()))?;
                self.battle.state.seized = Some((side, region.clone()));
                Ok(format!("seizes {region}"))
            }
            m::Verb::Escape => {
                let region = self
                    .region("escape")
                    .ok_or(Refused::Rules("escaping is only possible on the scenario's escape tiles".into()))?;
                if let Some(f) = self.battle.state.units.get_mut(i) {
                    f.state = State::Escaped;
                }
                self.battle.state.escaped.push((side, region.clone()));
                Ok(format!("escapes through {region}"))
            }
            m::Verb::Raze => {
                let region =
                    self.region("raze").ok_or(Refused::Rules("razing is only possible on the scenario's raze tiles".into()))?;
                if self.battle.state.razed.iter().any(|(_, _, t)| *t == spot) {
                    return refuse("this tile is already razed");
                }
                let into = ir.name(name).to_string();
                self.battle.set_terrain(spot, into);
                self.battle.state.razed.push((side, region.clone(), spot));
                Ok(format!("razes {spot:?} in {region}"))
            }
            m::Verb::Open => {
                let Some(terrain) = self.battle.terrain_at(spot).cloned() else { return refuse("nothing to open there") };
                let Some(into) = terrain.becomes.clone().filter(|_| !terrain.opened_by.is_empty()) else {
                    return refuse(format!("{} cannot be opened", terrain.name));
                };
                self.battle.set_terrain(spot, into.clone());
                Ok(format!("opens the {} at {spot:?}: it is {into} now", terrain.name))
            }
            m::Verb::TakeChest => {
                let Some((at, item)) = self.battle.state.map.chests.iter().find(|(t, _)| *t == spot).cloned() else {
                    return refuse("there is no chest here");
                };
                if !self.battle.state.opened_chests.insert(at) {
                    return refuse("the chest is empty");
                }
                let room = self.battle.engine.rules.ruleset.inventory as usize;
                match self.battle.state.units.get_mut(i) {
                    Some(f) if f.items.len() < room => {
                        f.items.push(Atom::new(&item));
                        Ok(format!("takes {item} from the chest"))
                    }
                    _ => {
                        self.battle.state.opened_chests.remove(&at);
                        refuse("the inventory is full")
                    }
                }
            }
            m::Verb::Reactivate => {
                let k = self.unit_of(unit)?;
                let Some(f) = self.battle.state.units.get_mut(k) else { return refuse("no target") };
                f.activated = false;
                Ok(format!("lets {} act again", f.name))
            }
            m::Verb::Relocate => {
                let k = self.unit_of(unit)?;
                let Some(to) = self.dest.filter(|d| Some(*d) != self.battle.state.units.get(k).map(|f| f.pos)) else {
                    return refuse("say where to move the target (the action's tile)");
                };
                let from = self.battle.state.units.get(i).map_or(to, |f| f.pos);
                let kind = self.battle.movement_type(k).unwrap_or_default();
                let open = self.battle.enters(&kind, to);
                let reach = amount;
                if distance(from, to) > reach || !open || self.battle.occupant(to).is_some() {
                    return refuse(format!("{to:?} is not a free tile within {reach} of the user"));
                }
                let Some(f) = self.battle.state.units.get_mut(k) else { return refuse("no target") };
                f.pos = to;
                Ok(format!("moves {} to {to:?}", f.name))
            }
            // A unit made to flee moves N squares away from the user, straight on where it can,
            // and the zones it leaves still draw their free attacks (seed 004's forced flight).
            m::Verb::Flee => {
                let k = self.unit_of(unit)?;
                let from = self.battle.state.units.get(i).map(|f| f.pos);
                let (Some(from), Some(f)) = (from, self.battle.state.units.get(k)) else { return refuse("no target") };
                if f.state != State::Ready || k == i {
                    return refuse("only another unit in the battle can be made to flee");
                }
                let name = f.name.clone();
                let (notes, to) = self.battle.flee(k, from, amount);
                let rest = notes.iter().map(|n| format!("; {n}")).collect::<String>();
                Ok(format!("{name} flees to {to:?}{rest}"))
            }
            // With fog, the user's side sees within X of it until the round ends (fog.rs).
            m::Verb::Reveal => Ok(self.battle.reveal(i, amount)),
            // Seed 001: "a type of Special Action that acts as an attack". An exchange with
            // the target (its counter included) using the user's weapon, the second argument
            // added to the user's `damage_bonus` (the attribute the damage formulas read); the
            // action's own `target ... within` gives the reach.
            // `injure` lays its status when the attack took hit points off the unit, once the
            // exchange is over (so the exchange's forecast is the attack's).
            m::Verb::Attack | m::Verb::Injure => {
                let k = self.unit_of(unit)?;
                if self.battle.state.units.get(k).is_none_or(|f| f.side == side || f.state != State::Ready) {
                    return refuse("an attack needs an enemy in the battle");
                }
                let before = self.battle.state.units.get(k).map_or(0, |f| f.hp);
                let note = self
                    .battle
                    .exchange_full(i, k, Blow { bonus: amount, ..Blow::default() })
                    .map_err(|e| Refused::Rules(e.to_string()))?;
                let after = self.battle.state.units.get(k).map(|f| (f.hp, f.state));
                if let (m::Verb::Injure, Some((hp, State::Ready))) = (verb, after) {
                    if hp < before {
                        let status = ir.name(name).to_string();
                        self.battle.afflict(k, &status);
                        return Ok(format!("attacks {note}, injuring them: {status}"));
                    }
                }
                Ok(format!("attacks {note}"))
            }
            // Seed 003's Fumble Chart, "weapon broken": the weapon the unit wields is taken from
            // its items for the rest of the battle; it wields the next weapon it carries, or none.
            m::Verb::BreakWeapon => {
                let k = self.unit_of(unit)?;
                Ok(self.battle.break_weapon(k))
            }
            // "attack hits friend": the holder's attack lands on a friend of its own next to
            // the unit named, the nearest to the holder (unit order on a tie): a free attack
            // with no answer, struck at their distance within the weapon's reach.
            m::Verb::StrikeFriend => {
                let k = self.unit_of(unit)?;
                self.battle.strike_friend(i, k)
            }
            // Seed 003's "disengage": the user, held by an enemy, steps away from it (engage.rs).
            m::Verb::Disengage => self.battle.disengage(i, amount).map_err(Refused::Rules),
            // Seed 003's "hide" and "search" (hidden.rs).
            m::Verb::Hide => self.battle.hide(i).map_err(Refused::Rules),
            m::Verb::Search => Ok(self.battle.search(i, amount)),
            // Seed 003's "divide up (split the unit)" and "join another unit" (units.rs).
            m::Verb::Divide => self.battle.divide(i, amount, self.dest).map_err(Refused::Rules),
            m::Verb::Join => {
                let k = self.unit_of(unit)?;
                self.battle.join(i, k).map_err(Refused::Rules)
            }
            // The action's tile becomes the terrain named (any tile, unlike `raze`'s regions).
            m::Verb::Transform => {
                let into = ir.name(name).to_string();
                if self.battle.engine.rules.terrain(&into).is_none() {
                    return refuse("transform names no terrain");
                }
                let Some(was) = self.battle.terrain_at(spot).map(|t| t.name.clone()) else {
                    return refuse(format!("{spot:?} is off the map"));
                };
                self.battle.set_terrain(spot, into.clone());
                Ok(format!("turns the {was} at {spot:?} into {into}"))
            }
            // A unit's verbs are the world's methods; the standing ones are no commands.
            m::Verb::Heal
            | m::Verb::Damage
            | m::Verb::Inflict
            | m::Verb::Cure
            | m::Verb::Clear
            | m::Verb::Debuff
            | m::Verb::Gain
            | m::Verb::Restrict
            | m::Verb::MustAttackWeakest
            | m::Verb::IgnoreItemTags
            | m::Verb::Shift => Err(Refused::NotHere(verb)),
        }
    }
}

impl Battle<'_> {
    /// The `break_weapon` verb on unit `k`: what the log says.
    fn break_weapon(&mut self, k: usize) -> String {
        let engine = self.engine;
        let Some(f) = self.state.units.get_mut(k) else { return String::new() };
        let Some(weapon) = f.equipped.take() else { return format!("{} has no weapon to break", f.name) };
        if let Some(at) = f.items.iter().position(|x| *x == weapon) {
            f.items.remove(at);
        }
        let is_weapon = |n: &Atom| engine.item(n).is_some_and(|it| it.kind == m::ItemKind::Weapon);
        f.equipped = f.items.iter().find(|n| is_weapon(n)).copied();
        match f.equipped {
            Some(next) => format!("{}'s {weapon} breaks: it wields {next} now", f.name),
            None => format!("{}'s {weapon} breaks: it has no weapon left", f.name),
        }
    }

    /// The `strike_friend` verb: unit `i`'s attack lands on its nearest friend next to unit `k`.
    fn strike_friend(&mut self, i: usize, k: usize) -> Result<String, Refused> {
        let (Some(me), Some(near)) = (self.state.units.get(i), self.state.units.get(k)) else { return refuse("no unit") };
        let (side, from, by) = (me.side, me.pos, near.pos);
        let friend = (0..self.state.units.len())
            .filter(|f| *f != i)
            .filter_map(|f| self.state.units.get(f).map(|u| (f, u)))
            .filter(|(_, u)| u.side == side && u.state == State::Ready && distance(u.pos, by) == 1)
            .min_by_key(|(f, u)| (distance(from, u.pos), *f))
            .map(|(f, _)| f);
        let Some(friend) = friend else {
            return Ok(format!("{}'s blow finds no friend next to {}", me.name, near.name));
        };
        // Struck at their distance, brought within the weapon's reach (the blow went astray: no
        // reach kept it from landing).
        let at = distance(from, self.state.units.get(friend).map_or(from, |u| u.pos));
        let reach = self.loadout(i, true).and_then(|l| self.engine.unit(&l, &[]).ok()).map(|u| (u.min_range, u.max_range));
        let at = reach.map_or(at, |(lo, hi)| at.clamp(lo.max(1), hi.max(lo.max(1))));
        let note = self
            .exchange_full(i, friend, Blow { single: true, at: Some(at), uncharted: true, ..Blow::default() })
            .map_err(|e| Refused::Rules(e.to_string()))?;
        Ok(format!("its blow lands on a friend: {note}"))
    }
}
