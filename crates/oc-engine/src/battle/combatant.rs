//! Copying a unit, the battle's state and a look-ahead copy cheaply; a unit's figures (seed
//! 003's units of figures).

use std::cell::RefCell;

use oc_model as m;

use super::{Battle, BattleState, Combatant, State};
use crate::{Atom, Form, Loadout};

/// Field by field, so that `clone_from` reuses the units' names and lists and the maps a state
/// already holds: a look ahead copied into the last one's copy allocates almost nothing
/// ([`Battle::fork_into`]).
impl Clone for BattleState {
    fn clone(&self) -> Self {
        BattleState {
            map: self.map.clone(),
            units: self.units.clone(),
            round: self.round,
            first: self.first,
            to_act: self.to_act,
            finished_first: self.finished_first,
            outcome: self.outcome.clone(),
            rng: self.rng.clone(),
            seized: self.seized.clone(),
            escaped: self.escaped.clone(),
            razed: self.razed.clone(),
            held: self.held.clone(),
            opened_chests: self.opened_chests.clone(),
            tile_hp: self.tile_hp.clone(),
            lights: self.lights.clone(),
            sighted: self.sighted.clone(),
            active: self.active.clone(),
            queue: self.queue.clone(),
            stance: self.stance.clone(),
            pending: self.pending.clone(),
            terrain_ix: self.terrain_ix.clone(),
            terrain_stamp: self.terrain_stamp,
            weather: self.weather,
        }
    }

    fn clone_from(&mut self, from: &Self) {
        // Every field named, so that a field added to `BattleState` cannot be left out here.
        let BattleState {
            map,
            units,
            round,
            first,
            to_act,
            finished_first,
            outcome,
            rng,
            seized,
            escaped,
            razed,
            held,
            opened_chests,
            tile_hp,
            lights,
            sighted,
            active,
            queue,
            stance,
            pending,
            terrain_ix,
            terrain_stamp,
            weather,
        } = from;
        self.map.clone_from(map);
        self.units.clone_from(units);
        self.round = *round;
        self.first = *first;
        self.to_act = *to_act;
        self.finished_first = *finished_first;
        self.outcome.clone_from(outcome);
        self.rng.clone_from(rng);
        self.seized.clone_from(seized);
        self.escaped.clone_from(escaped);
        self.razed.clone_from(razed);
        self.held.clone_from(held);
        self.opened_chests.clone_from(opened_chests);
        self.tile_hp.clone_from(tile_hp);
        self.lights.clone_from(lights);
        self.sighted.clone_from(sighted);
        self.active.clone_from(active);
        self.queue.clone_from(queue);
        self.stance.clone_from(stance);
        self.pending.clone_from(pending);
        self.terrain_ix.clone_from(terrain_ix);
        self.terrain_stamp = *terrain_stamp;
        self.weather = *weather;
    }
}

thread_local! {
    /// States of look-ahead copies done with ([`Battle::spare`]), for the next copies on this
    /// thread to be copied into ([`Battle::fork_into`]): at most [`SPARES`].
    static SPARE: RefCell<Vec<BattleState>> = const { RefCell::new(Vec::new()) };
}

/// The most states [`SPARE`] keeps (a decision holds a few copies at once).
const SPARES: usize = 4;

impl<'e> Battle<'e> {
    /// Makes `slot` [`Battle::fork`]`(None)` of this battle, copied into the copy it holds (or
    /// into a state one done with left, [`Battle::spare`]): the same battle, its units' names and
    /// lists not allocated again. For a look ahead made again and again (each way to ready).
    pub(crate) fn fork_into<'s>(&self, slot: &'s mut Option<Battle<'e>>) -> &'s mut Battle<'e> {
        match slot {
            Some(b) => self.fork_again(b, None),
            None => {
                let spare = SPARE.try_with(|s| s.try_borrow_mut().ok().and_then(|mut s| s.pop())).ok().flatten();
                let state = match spare {
                    Some(mut state) => {
                        state.clone_from(&self.state);
                        state
                    }
                    None => self.state.clone(),
                };
                // What `fork(None)` makes, in that state.
                let mut b = self.with_state(state);
                b.own_dice = self.carries(None);
                *slot = Some(b);
            }
        }
        slot.get_or_insert_with(|| self.fork(None))
    }

    /// A look-ahead copy done with ([`Battle::fork_into`]): its state kept for the next.
    pub(crate) fn spare(slot: Option<Battle<'e>>) {
        let Some(b) = slot else { return };
        let _ = SPARE.try_with(|s| {
            if let Ok(mut s) = s.try_borrow_mut() {
                if s.len() < SPARES {
                    s.push(b.state);
                }
            }
        });
    }
}

/// Field by field, the cheapest first, the name and resources compared in place
/// ([`crate::fx::same`]): a look-ahead compares every unit of a battle it meets again.
impl PartialEq for Combatant {
    fn eq(&self, b: &Combatant) -> bool {
        // Every field named, so that a field added to `Combatant` cannot be left out here.
        let Combatant {
            name,
            side,
            class,
            items,
            tags,
            equipped,
            hp,
            max_hp,
            pos,
            state,
            activated,
            statuses,
            reverted,
            transformed,
            spent,
            debuffs,
            resources,
            facing,
            charging,
            figures,
            morale,
            hidden,
            with,
            parent,
        } = self;
        *hp == b.hp
            && *pos == b.pos
            && *state == b.state
            && *activated == b.activated
            && *side == b.side
            && *class == b.class
            && *equipped == b.equipped
            && *max_hp == b.max_hp
            && *reverted == b.reverted
            && *transformed == b.transformed
            && *facing == b.facing
            && *charging == b.charging
            && *figures == b.figures
            && *hidden == b.hidden
            && *with == b.with
            && *parent == b.parent
            && *morale == b.morale
            && *items == b.items
            && *tags == b.tags
            && *statuses == b.statuses
            && *spent == b.spent
            && *debuffs == b.debuffs
            && crate::fx::same(resources, &b.resources)
            && crate::fx::same(name.as_bytes(), b.name.as_bytes())
    }
}

/// Field by field, so that `clone_from` reuses the name and lists a unit already holds: a
/// turn keeps a copy of every unit to put back if the rules refuse it ([`Battle::turn`]), and
/// copying into last turn's copy allocates almost nothing.
impl Clone for Combatant {
    fn clone(&self) -> Self {
        Combatant {
            name: self.name.clone(),
            side: self.side,
            class: self.class,
            items: self.items.clone(),
            tags: self.tags.clone(),
            equipped: self.equipped,
            hp: self.hp,
            max_hp: self.max_hp,
            pos: self.pos,
            state: self.state,
            activated: self.activated,
            statuses: self.statuses.clone(),
            reverted: self.reverted,
            transformed: self.transformed,
            spent: self.spent.clone(),
            debuffs: self.debuffs.clone(),
            resources: self.resources.clone(),
            facing: self.facing,
            charging: self.charging,
            figures: self.figures,
            morale: self.morale.clone(),
            hidden: self.hidden,
            with: self.with,
            parent: self.parent,
        }
    }

    fn clone_from(&mut self, from: &Self) {
        // Every field named, so that a field added to `Combatant` cannot be left out here.
        let Combatant {
            name,
            side,
            class,
            items,
            tags,
            equipped,
            hp,
            max_hp,
            pos,
            state,
            activated,
            statuses,
            reverted,
            transformed,
            spent,
            debuffs,
            resources,
            facing,
            charging,
            figures,
            morale,
            hidden,
            with,
            parent,
        } = from;
        self.name.clone_from(name);
        self.side = *side;
        self.class.clone_from(class);
        self.items.clone_from(items);
        self.tags.clone_from(tags);
        self.equipped.clone_from(equipped);
        self.hp = *hp;
        self.max_hp = *max_hp;
        self.pos = *pos;
        self.state = *state;
        self.activated = *activated;
        self.statuses.clone_from(statuses);
        self.reverted = *reverted;
        self.transformed = *transformed;
        self.spent.clone_from(spent);
        self.debuffs.clone_from(debuffs);
        self.resources.clone_from(resources);
        self.facing = *facing;
        self.charging = *charging;
        self.figures = *figures;
        self.morale.clone_from(morale);
        self.hidden = *hidden;
        self.with = *with;
        self.parent = *parent;
    }
}

pub(super) fn one_figure() -> u32 {
    1
}

pub(super) fn is_one_figure(n: &u32) -> bool {
    *n == 1
}

impl Combatant {
    /// Whether it stands on the table: ready (not joined to a unit, routed or gone) with hit
    /// points left.
    pub fn stands(&self) -> bool {
        self.state == State::Ready && self.hp > 0
    }

    /// Whether it is a living body joined to unit `i` (a mixed unit's other class).
    pub(super) fn body_of(&self, i: usize) -> bool {
        self.host() == Some(i)
    }

    /// The unit it fights in, where it is a living body of a mixed unit (seed 003, units.rs).
    pub(crate) fn host(&self) -> Option<usize> {
        self.with.filter(|_| self.state == State::Joined && self.hp > 0)
    }

    /// Its living figures: one figure's hit points into what it has left, rounded up.
    pub fn living(&self) -> i64 {
        let figures = i64::from(self.figures.max(1));
        let each = (self.max_hp / figures).max(1);
        (self.hp.max(0) + each - 1) / each
    }

    /// Its name, with its living figures where it was formed of several: "Braves (4 of 6)".
    pub fn shown(&self) -> String {
        if self.figures > 1 {
            format!("{} ({} of {})", self.name, self.living(), self.figures)
        } else {
            self.name.clone()
        }
    }
}

/// Units as the battle keeps them: who is on the board, who waits, their loadouts.
impl Battle<'_> {
    /// The units whose HP changed since `before` (with their HP now) and those of them at 0 or
    /// below, each marked routed; and of those, the ones that were still ready (routed just now).
    pub(super) fn mark_routed(&mut self, before: &[i64]) -> (Vec<(usize, i64)>, Vec<usize>, Vec<usize>) {
        let hp: Vec<(usize, i64)> =
            self.state.units.iter().enumerate().filter(|(k, f)| before.get(*k) != Some(&f.hp)).map(|(k, f)| (k, f.hp)).collect();
        let routed: Vec<usize> = hp.iter().filter(|(_, h)| *h <= 0).map(|(k, _)| *k).collect();
        let mut newly_routed = Vec::new();
        for k in &routed {
            // A mixed unit whose own figures have all fallen fights on as its next body (units.rs).
            if self.state.units.get(*k).is_some_and(|f| f.state == State::Ready) && !self.fall(*k) {
                newly_routed.push(*k);
            }
        }
        (hp, routed, newly_routed)
    }

    pub fn on_board(&self, i: usize) -> bool {
        self.state.units.get(i).is_some_and(|u| u.state == State::Ready)
    }

    /// Units of `side` still to activate this round.
    pub fn waiting(&self, side: m::SideId) -> Vec<usize> {
        (0..self.state.units.len())
            .filter(|i| self.state.units.get(*i).is_some_and(|u| u.side == side && u.state == State::Ready && !u.activated))
            .collect()
    }

    /// The unit as the combat engine sees it; `acting` is whether it is its own turn.
    pub fn loadout_of(&self, i: usize, acting: bool) -> Option<Loadout> {
        self.loadout(i, acting)
    }

    pub(super) fn loadout(&self, i: usize, acting: bool) -> Option<Loadout> {
        self.loadout_at(i, acting, None)
    }

    /// [`Battle::loadout`], with the unit of `mover` standing on its tile (a forecast before a
    /// move): the advanced rules' situation is read so (advanced.rs).
    pub(super) fn loadout_at(&self, i: usize, acting: bool, mover: Option<(usize, super::Tile)>) -> Option<Loadout> {
        self.loadout_seen(i, acting, mover, None)
    }

    /// [`Battle::loadout_at`] as a side sees it (`seen`: its sight under fog): the advanced
    /// rules' situation counts the enemies in contact that it sees, and no other (an AI's
    /// forecast before a move, `Battle::loadout_moved`). `None`: every unit, as the battle lays it.
    pub(super) fn loadout_seen(
        &self,
        i: usize,
        acting: bool,
        mover: Option<(usize, super::Tile)>,
        seen: Option<&super::Sight>,
    ) -> Option<Loadout> {
        let u = self.state.units.get(i)?;
        let at = mover.filter(|(k, _)| *k == i).map_or(u.pos, |(_, t)| t);
        // The unit's statuses, then those where it stands lays on it (at most six, and none where
        // the battle has no weather and the scenario plays neither leadership nor situations:
        // then a unit without statuses allocates no list).
        let lays = self.state.weather.is_some() || self.laws.leadership || self.laws.situations;
        let mut statuses = if lays || !u.statuses.is_empty() { Vec::with_capacity(u.statuses.len() + 6) } else { Vec::new() };
        statuses.extend(u.statuses.iter().map(|a| a.status));
        // The class looked up once, for the situation (its flyers) and the form.
        let index = self.engine.class_index(&u.class);
        // Nothing laid where nothing lays (no list, no look at the rules' advanced parts).
        let placed = if lays { self.situation(i, at, (mover, seen), &mut statuses, index) } else { crate::Placed::new() };
        let class = index.and_then(|k| self.engine.rules.classes.get(k))?;
        // Its accessory and the weapons it carries as attack forms (`Battle::kit`).
        let (accessory, carried) = self.kit(&u.items, u.equipped);
        Some(Loadout {
            class: u.class,
            weapon: u.equipped,
            accessory,
            tags: u.tags.iter().map(|t| (*t, Vec::new())).collect(),
            statuses,
            terrain: self.terrain_atom_at(at),
            hp: Some(u.hp),
            // Shifters are transformed in their own turn and in their normal form otherwise (unless
            // their last turn took no action), and once they have acted they stay normal until the
            // next round (seed 000, Shifting).
            form: if class.forms.is_some() && (if acting { u.reverted } else { !u.transformed }) {
                Form::Normal
            } else {
                Form::Default
            },
            debuffs: u.debuffs.iter().map(|d| (d.attr, d.shift)).collect(),
            resources: self.engine.resource_atoms().iter().zip(&u.resources).map(|(r, v)| (*r, *v)).collect(),
            figures: u.figures,
            placed,
            carried,
        })
    }
}

impl Battle<'_> {
    /// What a unit carrying `items` with `equipped` in hand brings to its loadout beyond that
    /// weapon: the first accessory, and the weapons it carries where the ruleset has attack forms
    /// (`attack_form`): every one, its own too, since a loadout made to strike with another (a
    /// forecast for a swap, the AIs' other weapons) sets its weapon and keeps these, and the one
    /// it holds is left out as it strikes (`Engine::attack_forms`). With its own left out here, a
    /// wyvern forecast with its talon struck without its bite.
    pub(super) fn kit(&self, items: &[Atom], equipped: Option<Atom>) -> (Option<Atom>, Vec<Atom>) {
        // Each item's kind looked up once.
        let forms = self.engine.attack_form().is_some();
        let (mut accessory, mut carried) = (None, Vec::new());
        for n in items {
            match self.engine.item(n).map(|it| it.kind) {
                Some(m::ItemKind::Accessory) if accessory.is_none() => accessory = Some(*n),
                Some(m::ItemKind::Weapon) if forms => carried.push(*n),
                _ => {}
            }
            // Without attack forms, nothing after the first accessory is read.
            if !forms && accessory.is_some() {
                break;
            }
        }
        // Its own weapon alone is no other form: nothing carried (the loadout as without forms).
        if carried.iter().all(|w| Some(*w) == equipped) {
            carried.clear();
        }
        (accessory, carried)
    }
}

/// A battle as a decision reads it, its dice aside: its scenario, its state but for the dice, and
/// whether it is a quiet copy. What greedy keeps its playout choices by
/// ([`Battle::undiced`], [`Battle::is_undiced`]).
pub(crate) struct Undiced {
    scenario: std::sync::Arc<m::Scenario>,
    state: BattleState,
    quiet: bool,
    weakest: bool,
}

impl Battle<'_> {
    /// Whether this is a quiet copy ([`Battle::hush`]): an AI's playout.
    pub(crate) fn is_quiet(&self) -> bool {
        self.quiet
    }

    /// The battle as a decision reads it, its dice aside (a copy of its state, but for each
    /// tile's terrain index: its terrain stamp stands for it).
    pub(crate) fn undiced(&self) -> Undiced {
        let mut state = self.state.clone();
        state.terrain_ix = Vec::new();
        Undiced { scenario: self.scenario.clone(), state, quiet: self.quiet, weakest: self.weakest }
    }

    /// [`Battle::undiced`] copied into `u` (a copy done with): its units' names and lists reused.
    pub(crate) fn undiced_into(&self, u: &mut Undiced) {
        // Every field named, so that a field added to `BattleState` cannot be left out here.
        let BattleState {
            map,
            units,
            round,
            first,
            to_act,
            finished_first,
            outcome,
            rng: _,
            seized,
            escaped,
            razed,
            held,
            opened_chests,
            tile_hp,
            lights,
            sighted,
            active,
            queue,
            stance,
            pending,
            terrain_ix: _,
            terrain_stamp,
            weather,
        } = &self.state;
        let s = &mut u.state;
        s.map.clone_from(map);
        s.units.clone_from(units);
        s.round = *round;
        s.first = *first;
        s.to_act = *to_act;
        s.finished_first = *finished_first;
        s.outcome.clone_from(outcome);
        s.seized.clone_from(seized);
        s.escaped.clone_from(escaped);
        s.razed.clone_from(razed);
        s.held.clone_from(held);
        s.opened_chests.clone_from(opened_chests);
        s.tile_hp.clone_from(tile_hp);
        s.lights.clone_from(lights);
        s.sighted.clone_from(sighted);
        s.active.clone_from(active);
        s.queue.clone_from(queue);
        s.stance.clone_from(stance);
        s.pending.clone_from(pending);
        s.terrain_stamp = *terrain_stamp;
        s.weather = *weather;
        u.scenario.clone_from(&self.scenario);
        u.quiet = self.quiet;
        u.weakest = self.weakest;
    }

    /// A hash of part of what [`Battle::is_undiced`] compares (the units as they stand, whose
    /// turn it is, the clock): equal battles hash alike.
    pub(crate) fn undiced_hash(&self) -> u64 {
        self.undiced_hash_with(true)
    }

    /// [`Battle::undiced_hash`] but for the terrain's stamp: alike for battles of one scenario
    /// alike on the same terrain ([`Battle::is_undiced_across`]), whatever stamp each took.
    pub(crate) fn undiced_hash_across(&self) -> u64 {
        self.undiced_hash_with(false)
    }

    fn undiced_hash_with(&self, stamp: bool) -> u64 {
        use std::hash::{Hash, Hasher};
        let s = &self.state;
        let mut h = crate::fx::Fx::default();
        for u in &s.units {
            (u.pos, u.hp, u.state as u8, u.activated).hash(&mut h);
        }
        (s.round, s.to_act, s.active.is_some()).hash(&mut h);
        if stamp {
            s.terrain_stamp.hash(&mut h);
        }
        h.finish()
    }

    /// Whether this battle is `u`'s but for its dice: the same scenario (the one `u` keeps alive,
    /// or an equal one), and every field of the state equal but the dice (the terrain by its
    /// stamp: a stamp seen again is the same terrain, `movement::terrain_stamp`).
    pub(crate) fn is_undiced(&self, u: &Undiced) -> bool {
        self.undiced_eq(u, true)
    }

    /// [`Battle::is_undiced`] for `u` kept from another battle: the terrain compared by the
    /// field's tiles (the maps), not by the stamp each battle takes its own of.
    pub(crate) fn is_undiced_across(&self, u: &Undiced) -> bool {
        self.undiced_eq(u, false)
    }

    fn undiced_eq(&self, u: &Undiced, stamp: bool) -> bool {
        // Every field named, so that a field added to `BattleState` cannot be left out here.
        let BattleState {
            map,
            units,
            round,
            first,
            to_act,
            finished_first,
            outcome,
            rng: _,
            seized,
            escaped,
            razed,
            held,
            opened_chests,
            tile_hp,
            lights,
            sighted,
            active,
            queue,
            stance,
            pending,
            terrain_ix: _,
            terrain_stamp,
            weather,
        } = &u.state;
        let s = &self.state;
        self.quiet == u.quiet
            && self.weakest == u.weakest
            && (std::sync::Arc::ptr_eq(&self.scenario, &u.scenario) || *self.scenario == *u.scenario)
            && s.round == *round
            && s.to_act == *to_act
            && (!stamp || s.terrain_stamp == *terrain_stamp)
            && s.units == *units
            && s.first == *first
            && s.finished_first == *finished_first
            && s.active == *active
            && s.pending == *pending
            && s.outcome == *outcome
            && s.seized == *seized
            && s.escaped == *escaped
            && s.razed == *razed
            && s.held == *held
            && s.opened_chests == *opened_chests
            && s.tile_hp == *tile_hp
            && s.lights == *lights
            && s.sighted == *sighted
            && s.queue == *queue
            && s.stance == *stance
            && s.weather == *weather
            && (std::sync::Arc::ptr_eq(&s.map, map) || *s.map == **map)
    }
}
