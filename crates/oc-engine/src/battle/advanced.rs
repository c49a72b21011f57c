//! The advanced rules beside courage (seed 003, "The Advanced Rules"), each played where the
//! scenario switches it on: `advanced leadership`, `advanced situations`, `advanced weather`
//! (and the sweeps of `advanced charging` and `advanced area`).
//!
//! They act on the units' loadouts, so every exchange, forecast and AI reads them alike: what a
//! unit bears by where it stands ([`Battle::situation`]) is added to its statuses and attributes
//! whenever its loadout is made. Leadership: a unit farther than `beyond` tiles from its side's
//! general (the unit the army gave the `general` tag; every unit, once he is gone) bears the
//! out-of-command status, and when a general dies each unit of his side rolls `save` as the
//! activation ends, leaving the battle (routed) if it fails. Situations: the `ground` attribute
//! holds the elevation of the unit's tile; a unit in contact with two or more enemies bears
//! `flank`, one with enemies in contact on two opposite sides `rear` instead; a hidden unit
//! bears `blind`, a unit with the `flying` tag its status, a mixed unit (and each of its
//! bodies) `mixed`'s. Weather: rolled
//! before the battle with the set-up's own dice (the battle's are untouched), logged in the start
//! record, and borne by every unit for the whole battle.

use oc_model as m;
use oc_model::Atom;
use serde::{Deserialize, Serialize};

use super::{distance, Battle, Record, State, Tile};
use crate::dice::{rng, roll};
use crate::Engine;

/// The weather rolled before the battle (`advanced weather`): the die's face and its status.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WeatherRoll {
    pub roll: i64,
    pub status: String,
}

/// The seed of the weather's own dice: apart from the battle's and the home edges'.
fn weather_seed(seed: u64) -> u64 {
    seed ^ 0x3ea7_4e12_c10d_5b1f
}

/// The weather of a battle of `seed`, where the scenario plays `advanced weather`.
pub(super) fn roll_weather(engine: &Engine, scenario: &m::Scenario, seed: u64) -> Option<WeatherRoll> {
    if !scenario.advanced.iter().any(|a| a == "weather") {
        return None;
    }
    let table = engine.rules.ruleset.weather.as_ref()?;
    let shape = engine.rules.ruleset.dice.iter().find(|d| d.name == table.dice)?.shape.clone();
    let n = roll(&mut rng(weather_seed(seed)), &shape);
    let status = table.faces.iter().find(|(f, _)| *f == n)?.1.clone();
    Some(WeatherRoll { roll: n, status })
}

/// What the advanced rules lay on a unit wherever it stands, read once ([`Battle::laying`]):
/// the weather, leadership's reach and the situations' part.
#[derive(Default)]
struct Laying {
    weather: Option<Atom>,
    /// The general (his unit and tile, if he stands), the farthest a unit is from him in
    /// command, and the status borne beyond.
    beyond: Option<(Commander, i64, Atom)>,
    situations: Option<Situated>,
}

/// A side's general: his unit and its tile (`None`: no general, every tile is beyond).
type Commander = Option<(usize, Option<Tile>)>;

/// The situations' part of a [`Laying`]: the names they lay, the enemies that may be in contact
/// (unit, tile), the blind status with the tile the unit hid on, and the flying and mixed
/// statuses where the unit bears them anywhere.
struct Situated {
    /// The unit's side.
    side: m::SideId,
    ground: Option<Atom>,
    /// Listed where read for many tiles, else read at each.
    enemies: Option<Vec<(usize, Tile)>>,
    rear: Option<Atom>,
    flank: Option<Atom>,
    blind: Option<(Atom, Tile)>,
    flying: Option<Atom>,
    mixed: Option<Atom>,
}

/// Loadout `l` of a unit with statuses `own` (its own, which `l` starts with) on another tile:
/// what that tile lays instead (the statuses after its own, the attributes placed, the terrain).
fn laid_on(
    l: &crate::Loadout,
    own: &[super::Affliction],
    (statuses, placed, terrain): (&[Atom], &[(Atom, i64)], Option<Atom>),
) -> crate::Loadout {
    let mut all = Vec::with_capacity(own.len() + statuses.len());
    all.extend(own.iter().map(|a| a.status));
    all.extend_from_slice(statuses);
    // Every field named, so that a field added to `Loadout` cannot be left out here.
    let crate::Loadout {
        class,
        weapon,
        accessory,
        tags,
        statuses: _,
        terrain: _,
        hp,
        form,
        debuffs,
        resources,
        figures,
        carried,
        placed: _,
    } = l;
    crate::Loadout {
        class: *class,
        weapon: *weapon,
        accessory: *accessory,
        tags: tags.clone(),
        statuses: all,
        terrain,
        hp: *hp,
        form: *form,
        debuffs: debuffs.clone(),
        resources: resources.clone(),
        figures: *figures,
        carried: carried.clone(),
        placed: crate::Placed::from_slice(placed),
    }
}

/// Whether unit `f` is an enemy of a unit of `side` that may be in contact with it: another
/// side's (so not the unit itself), standing.
fn may_touch(side: m::SideId, f: &super::Combatant) -> bool {
    f.side != side && f.stands()
}

/// Which of the ruleset's advanced rules the scenario plays, and the general's tag as an atom:
/// read at every loadout a battle builds, so worked out once a battle from its rules and
/// scenario (which never change), not by comparing names each time. With them, which of the
/// turn's formulas a move asks of each enemy read nothing but their parameters.
#[derive(Clone, Copy, Debug)]
pub(super) struct Laws {
    pub(super) leadership: bool,
    pub(super) situations: bool,
    pub(super) charging: bool,
    pub(super) area: bool,
    pub(super) courage: bool,
    /// The tag that makes a unit its side's general (`leadership`'s `general`), where the ruleset
    /// has leadership.
    pub(super) general: Option<Atom>,
    /// The ruleset's `interrupt`, `opportunity`, `engaged` and courage's `losses` read none of
    /// the units they are asked of (`range <= 1`, `self.hp * 2 <= max_hp`: `Ir::reads_no_unit`):
    /// each holds or not without building them, and a scene is built only where it holds
    /// (interrupt.rs, engage.rs, courage.rs).
    pub(super) interrupt_bare: bool,
    pub(super) opportunity_bare: bool,
    pub(super) engaged_bare: bool,
    pub(super) losses_bare: bool,
}

impl Laws {
    pub(super) fn of(engine: &Engine, scenario: &m::Scenario) -> Laws {
        let plays = |name: &str| scenario.advanced.iter().any(|a| a == name);
        let bare = |e: Option<&crate::ir::E>| e.is_some_and(|e| engine.ir.reads_no_unit(e));
        Laws {
            leadership: plays("leadership"),
            situations: plays("situations"),
            charging: plays("charging"),
            area: plays("area"),
            courage: plays("courage"),
            general: engine.rules.ruleset.leadership.as_ref().map(|l| Atom::new(&l.general)),
            interrupt_bare: bare(engine.ir.interrupt.as_ref()),
            opportunity_bare: bare(engine.ir.opportunity.as_ref()),
            engaged_bare: bare(engine.ir.engaged.as_ref()),
            losses_bare: bare(engine.ir.courage.as_ref().and_then(|c| c.losses.as_ref())),
        }
    }
}

/// Whether unit `u` bears the general's tag `general` (an atom: one text, one pointer).
fn is_general(u: &super::Combatant, general: Option<Atom>) -> bool {
    general.is_some_and(|g| u.tags.contains(&g))
}

impl Battle<'_> {
    /// Where the general of `side` leads from: the first unit the army gave the `general` tag
    /// that stands on the table, or the unit he is joined to as a body ("the spearmen (plus my
    /// leader)": a general in a mixed unit leads from it).
    fn general(&self, side: m::SideId) -> Option<usize> {
        let standing = |k: usize| self.state.units.get(k).is_some_and(|f| f.stands());
        self.state.units.iter().enumerate().find_map(|(k, u)| {
            if u.side != side || u.hp <= 0 || !is_general(u, self.laws.general) {
                return None;
            }
            match u.state {
                State::Ready => Some(k),
                State::Joined => u.with.filter(|h| standing(*h)),
                _ => None,
            }
        })
    }

    /// What the scenario's advanced rules lay on unit `i` standing at `at`, with the unit of
    /// `mover` (if any) standing on its tile instead of where it is (a forecast before a move):
    /// statuses (pushed on `statuses`), and attributes set (`ground`). Where `seen` (a side's
    /// sight under fog), the enemies of `i` in contact are those of that side or those it sees,
    /// and an enemy of that side whose general it does not see is in command.
    pub(super) fn situation(
        &self,
        i: usize,
        at: Tile,
        (mover, seen): (Option<(usize, Tile)>, Option<&super::Sight>),
        statuses: &mut Vec<Atom>,
        class: Option<usize>,
    ) -> crate::Placed {
        let mut attrs = crate::Placed::new();
        let Some(u) = self.state.units.get(i) else { return attrs };
        let rules = &self.engine.rules.ruleset;
        let named = self.engine.situation_names();
        let pos = |k: usize, p: Tile| match mover {
            Some((m, t)) if m == k => t,
            _ => p,
        };
        // What [`Battle::laying`] and [`Battle::laid`] read, in one pass over the units (a
        // loadout is built often): the side's general (`Battle::general`'s, the first that
        // leads), whether a living body is joined to the unit (`Battle::has_body`), and the
        // enemies in contact at `at`, counted, with the sides they stand on (`laid_into`'s bits).
        let beyond = match (rules.leadership.as_ref(), self.laws.leadership) {
            (Some(r), true) => r.beyond.as_ref().map(|(n, _)| *n).zip(named.beyond),
            _ => None,
        };
        let situated = rules.situations.is_some() && self.laws.situations;
        let want_body = situated && named.mixed.is_some() && u.state == State::Ready;
        let standing = |h: usize| self.state.units.get(h).is_some_and(|f| f.stands());
        let (mut general, mut body, mut contact, mut sides) = (None, false, 0usize, 0u8);
        let mut seek = beyond.is_some();
        for (k, f) in self.state.units.iter().enumerate() {
            if seek && f.side == u.side && f.hp > 0 && is_general(f, self.laws.general) {
                general = match f.state {
                    State::Ready => Some(k),
                    State::Joined => f.with.filter(|h| standing(*h)),
                    _ => None,
                };
                seek = general.is_none();
            }
            body = body || (want_body && f.body_of(i));
            if situated && may_touch(u.side, f) {
                let Some(bit) = side_bit(at, pos(k, f.pos)) else { continue };
                if seen.is_some_and(|s| f.side != s.side && !s.spots(k, pos(k, f.pos))) {
                    continue;
                }
                contact += 1;
                sides |= bit;
            }
        }
        if let Some(w) = self.state.weather {
            statuses.push(w);
        }
        if let Some((n, status)) = beyond {
            // As a side sees it (`seen`), an enemy whose general it does not see is taken in
            // command: where he stands is not known. Reading: seed 003's "Penalties apply to units
            // too far from the general" says nothing of what the other side knows; a commander
            // who cannot see the general takes the enemy at its strongest.
            let unseen = |g: usize, p: Tile| seen.is_some_and(|s| u.side != s.side && !s.spots(g, pos(g, p)));
            let far = match general.and_then(|g| self.state.units.get(g).map(|f| (g, f.pos))) {
                Some((g, p)) if unseen(g, p) => false,
                Some((g, p)) => distance(pos(g, p), at) > n,
                None => true,
            };
            if far {
                statuses.push(status);
            }
        }
        if situated {
            if let Some(attr) = named.ground {
                attrs.push((attr, self.terrain_at(at).map_or(0, |t| t.elevation)));
            }
            let opposite = sides & 5 == 5 || sides & 10 == 10;
            match (named.rear, named.flank) {
                (Some(rear), _) if opposite => statuses.push(rear),
                (_, Some(flank)) if contact >= 2 => statuses.push(flank),
                _ => {}
            }
            if let Some(blind) = named.blind.filter(|_| u.state == State::Ready && u.hidden == Some(at)) {
                statuses.push(blind);
            }
            if let Some((tag, aloft)) = named.flying {
                let class = class.is_some_and(|k| named.flying_classes.get(k) == Some(&true));
                if u.tags.contains(&tag) || class {
                    statuses.push(aloft);
                }
            }
            if let Some(mixed) = named.mixed {
                let joined = u.host().is_some_and(standing);
                if body || joined {
                    statuses.push(mixed);
                }
            }
        }
        attrs
    }

    /// [`Battle::situation`] as [`Battle::laying`] and [`Battle::laid`] lay it, unit by unit
    /// read apart: what the tests hold the one pass to.
    #[cfg(test)]
    pub(super) fn situation_apart(
        &self,
        i: usize,
        at: Tile,
        mover: Option<(usize, Tile)>,
        statuses: &mut Vec<Atom>,
        class: Option<usize>,
    ) -> crate::Placed {
        match self.laying(i, class, false) {
            Some(l) => self.laid(&l, at, mover, statuses),
            None => crate::Placed::new(),
        }
    }

    /// What [`Battle::situation`] reads of unit `i` and the battle wherever the unit stands, read
    /// once for many tiles (`many`: the enemies that may be in contact listed too, else read
    /// again at each); `None` where there is no unit `i`.
    fn laying(&self, i: usize, class: Option<usize>, many: bool) -> Option<Laying> {
        let rules = &self.engine.rules.ruleset;
        let u = self.state.units.get(i)?;
        let named = self.engine.situation_names();
        let mut l = Laying { weather: self.state.weather, ..Laying::default() };
        if let (Some(r), true) = (rules.leadership.as_ref(), self.laws.leadership) {
            if let (Some((n, _)), Some(status)) = (&r.beyond, named.beyond) {
                // The general's unit and where it stands (none: every tile is beyond).
                let general = self.general(u.side).map(|g| (g, self.state.units.get(g).map(|f| f.pos)));
                l.beyond = Some((general, *n, status));
            }
        }
        if let (Some(_), true) = (rules.situations.as_ref(), self.laws.situations) {
            // The enemies that may be in contact, where they stand.
            let enemies = many.then(|| {
                let all = self.state.units.iter().enumerate();
                all.filter(|(_, f)| may_touch(u.side, f)).map(|(k, f)| (k, f.pos)).collect()
            });
            // Blind: a hidden unit, standing where it hid, is what no enemy sees.
            let blind = named.blind.filter(|_| u.state == State::Ready).and_then(|b| u.hidden.map(|h| (b, h)));
            // The flyers: a unit with the situation's tag, its class's or its own.
            let flying = named.flying.and_then(|(tag, aloft)| {
                let own = u.tags.contains(&tag);
                let class = class.is_some_and(|k| named.flying_classes.get(k) == Some(&true));
                (own || class).then_some(aloft)
            });
            // Mixed troop types: a unit with a living body of another class or arms joined to
            // it, and each body joined to a unit on the table.
            let mixed = named.mixed.filter(|_| {
                let host = |h: usize| self.state.units.get(h).is_some_and(|f| f.stands());
                match u.state {
                    State::Ready => self.has_body(i),
                    State::Joined => u.host().is_some_and(host),
                    _ => false,
                }
            });
            l.situations = Some(Situated {
                side: u.side,
                ground: named.ground,
                enemies,
                rear: named.rear,
                flank: named.flank,
                blind,
                flying,
                mixed,
            });
        }
        Some(l)
    }

    /// What the advanced rules lay on the unit of `l` standing at `at` (see
    /// [`Battle::situation`]).
    #[cfg(test)]
    fn laid(&self, l: &Laying, at: Tile, mover: Option<(usize, Tile)>, statuses: &mut Vec<Atom>) -> crate::Placed {
        // Its one entry held in place (no list allocated: loadouts are built often).
        let mut attrs = crate::Placed::new();
        self.laid_into(l, at, mover, statuses, &mut attrs);
        attrs
    }

    /// [`Battle::laid`], its attributes pushed on `attrs` (a list reused from tile to tile).
    fn laid_into(&self, l: &Laying, at: Tile, mover: Option<(usize, Tile)>, statuses: &mut Vec<Atom>, attrs: &mut crate::Placed) {
        let pos = |k: usize, p: Tile| match mover {
            Some((m, t)) if m == k => t,
            _ => p,
        };
        if let Some(w) = l.weather {
            statuses.push(w);
        }
        if let Some((general, n, status)) = l.beyond {
            let far = match general {
                Some((g, p)) => p.is_some_and(|p| distance(pos(g, p), at) > n),
                None => true,
            };
            if far {
                statuses.push(status);
            }
        }
        if let Some(s) = &l.situations {
            if let Some(attr) = s.ground {
                attrs.push((attr, self.terrain_at(at).map_or(0, |t| t.elevation)));
            }
            // The enemies in contact (a tile away: one of the four sides), counted, and the sides
            // they stand on, a bit each (up, right, down, left): opposite sides are bits 1 and 4,
            // or 2 and 8. (A loadout is built often: no list made for one tile.)
            let (mut contact, mut sides) = (0usize, 0u8);
            let mut touch = |k: usize, p: Tile| {
                let Some(bit) = side_bit(at, pos(k, p)) else { return };
                contact += 1;
                sides |= bit;
            };
            match &s.enemies {
                Some(listed) => listed.iter().for_each(|(k, p)| touch(*k, *p)),
                // Not listed: read here.
                None => {
                    for (k, f) in self.state.units.iter().enumerate() {
                        if may_touch(s.side, f) {
                            touch(k, f.pos);
                        }
                    }
                }
            }
            let opposite = sides & 5 == 5 || sides & 10 == 10;
            match (s.rear, s.flank) {
                (Some(rear), _) if opposite => statuses.push(rear),
                (_, Some(flank)) if contact >= 2 => statuses.push(flank),
                _ => {}
            }
            if let Some((blind, _)) = s.blind.filter(|(_, h)| *h == at) {
                statuses.push(blind);
            }
            statuses.extend(s.flying);
            statuses.extend(s.mixed);
        }
    }

    /// Whether where a unit stands changes what it bears beyond its terrain: the scenario plays
    /// the ruleset's `leadership` with a distance (`beyond`), or its `situations`. Only then do
    /// the AIs build a loadout at a tile not yet reached ([`Battle::loadout_moved`]).
    pub fn situated(&self) -> bool {
        let rules = &self.engine.rules.ruleset;
        (rules.leadership.as_ref().is_some_and(|l| l.beyond.is_some()) && self.laws.leadership)
            || (rules.situations.is_some() && self.laws.situations)
    }

    /// Whether unit `mover.0` moving to `mover.1` may change what unit `k` bears by where it stands
    /// ([`Battle::situation`]): `k` itself moves, or its general does, or the mover comes into or
    /// leaves contact with it. False where the battle is not [`Battle::situated`].
    pub fn moves_situation(&self, k: usize, (m, to): (usize, Tile)) -> bool {
        if !self.situated() {
            return false;
        }
        let (Some(u), Some(f)) = (self.state.units.get(k), self.state.units.get(m)) else { return false };
        let general = f.side == u.side && is_general(f, self.laws.general);
        m == k || general || (self.laws.situations && (distance(to, u.pos) <= 1 || distance(f.pos, u.pos) <= 1))
    }

    /// Unit `k`'s loadout with unit `mover.0` standing on `mover.1` (itself or another: a
    /// forecast before a move), the advanced rules' situation read there; `acting`: its own turn.
    /// Under fog, as the side to act sees it: an enemy of that side out of its sight is in
    /// contact with no one, and an enemy whose general it does not see is in command (an AI's
    /// forecast reads what its side knows).
    pub fn loadout_moved(&self, k: usize, acting: bool, mover: (usize, Tile)) -> Option<crate::Loadout> {
        if self.scenario.fog.is_none() || !self.situated() {
            return self.loadout_at(k, acting, Some(mover));
        }
        let sight = self.sight(self.state.to_act);
        self.loadout_seen(k, acting, Some(mover), Some(&sight))
    }

    /// Unit `k`'s loadout on each of `tiles` as it moves there itself (`loadout_moved(k, acting,
    /// (k, t))`), each distinct one built once: the distinct loadouts, and each tile's index into
    /// them (`None` where no loadout is made). A loadout differs from tile to tile only by what
    /// the tile lays on it (its situation's statuses and attributes, its terrain), so tiles alike
    /// in those share one, and two indices differ exactly where the loadouts do. The first is
    /// built whole (`loadout_at`); each other is the first with what its tile lays instead (the
    /// unit's own statuses, then the tile's: `loadout_at`'s order). Under fog, an enemy its side
    /// does not see is in contact with none of the tiles (what an AI weighs the tiles by).
    pub fn loadouts_moved(
        &self,
        k: usize,
        acting: bool,
        tiles: impl Iterator<Item = Tile>,
    ) -> (Vec<crate::Loadout>, Vec<Option<usize>>) {
        let tiles: Vec<Tile> = tiles.collect();
        // Room for a few distinct loadouts (a tile's situation takes a few values) and every tile.
        let (mut distinct, mut at): (Vec<crate::Loadout>, _) = (Vec::with_capacity(4), Vec::with_capacity(tiles.len()));
        let Some(u) = self.state.units.get(k) else { return (distinct, tiles.iter().map(|_| None).collect()) };
        let class = self.engine.class_index(&u.class);
        let mut laying = self.laying(k, class, true);
        // The enemies listed that may touch one of the tiles: none farther than a tile outside
        // the box that holds them all (the others are passed over at every tile).
        let (lo, hi) = tiles.iter().fold(((i64::MAX, i64::MAX), (i64::MIN, i64::MIN)), |(lo, hi), t| {
            ((lo.0.min(t.0), lo.1.min(t.1)), (hi.0.max(t.0), hi.1.max(t.1)))
        });
        // Under fog, only the enemies its side sees: what an AI weighs a tile by is what its side
        // knows (an enemy out of sight next to a tile would flank the unit there unbeknown).
        let sight = self.sight(u.side);
        let seen = Some(&sight).filter(|s| s.fogged());
        if let Some(listed) = laying.as_mut().and_then(|l| l.situations.as_mut()).and_then(|s| s.enemies.as_mut()) {
            listed.retain(|(k, p)| {
                (lo.0 - 1..=hi.0 + 1).contains(&p.0) && (lo.1 - 1..=hi.1 + 1).contains(&p.1) && sight.spots(*k, *p)
            });
        }
        // What each distinct loadout's tile laid on it: statuses, attributes, terrain.
        type Laid = (Vec<Atom>, crate::Placed, Option<Atom>);
        let mut keys: Vec<Laid> = Vec::with_capacity(4);
        // What a tile lays, in lists reused from tile to tile (copied for a distinct one).
        let (mut statuses, mut placed) = (Vec::with_capacity(8), crate::Placed::new());
        for t in tiles {
            statuses.clear();
            placed.clear();
            if let Some(l) = &laying {
                self.laid_into(l, t, Some((k, t)), &mut statuses, &mut placed);
            }
            let terrain = self.terrain_atom_at(t);
            let found = keys.iter().position(|(s, p, x)| *s == statuses && *p == placed && *x == terrain);
            let index = match found {
                Some(n) => Some(n),
                None => {
                    let built = match distinct.first() {
                        Some(first) => {
                            let l = laid_on(first, &u.statuses, (&statuses, &placed, terrain));
                            // The loadout `loadout_seen` builds there: checked in the debug builds.
                            debug_assert!(self.loadout_seen(k, acting, Some((k, t)), seen).as_ref() == Some(&l));
                            Some(l)
                        }
                        None => self.loadout_seen(k, acting, Some((k, t)), seen),
                    };
                    built.map(|l| {
                        distinct.push(l);
                        keys.push((statuses.clone(), placed.clone(), terrain));
                        distinct.len() - 1
                    })
                }
            };
            at.push(index);
        }
        (distinct, at)
    }

    /// Charging: where unit `i` attacks `target` in the step it moved in and the ruleset's
    /// `with` holds for it, every other ready enemy in contact with it, in unit order.
    pub(super) fn charge_sweep(&self, i: usize, target: usize, moved: bool) -> Vec<usize> {
        let Some(with) = self.engine.ir.charging.as_ref().filter(|_| moved && self.laws.charging) else { return Vec::new() };
        let Some(u) = self.state.units.get(i) else { return Vec::new() };
        let full = [crate::ir::V::Int(u.max_hp)];
        if !self.scene(super::scene::Cast { user: i, ..Default::default() }, None).is_some_and(|s| s.holds(with, &full)) {
            return Vec::new();
        }
        (0..self.state.units.len())
            .filter(|k| {
                *k != target
                    && !self.hidden(*k)
                    && self
                        .state
                        .units
                        .get(*k)
                        .is_some_and(|f| f.side != u.side && f.state == State::Ready && distance(f.pos, u.pos) == 1)
            })
            .collect()
    }

    /// Area-affecting weapons: where unit `i` attacks `target` and the ruleset's `within` is
    /// above 0 for it, every other ready unit (friend or foe, hidden or not; `i` aside) within
    /// that many tiles of the target, nearest it first (unit order on a tie).
    pub(super) fn blast(&self, i: usize, target: usize) -> Vec<usize> {
        let Some(within) = self.engine.ir.area.as_ref().filter(|_| self.laws.area) else { return Vec::new() };
        let (Some(u), Some(t)) = (self.state.units.get(i), self.state.units.get(target)) else { return Vec::new() };
        let full = [crate::ir::V::Int(u.max_hp)];
        let Some(radius) =
            self.scene(super::scene::Cast { user: i, ..Default::default() }, None).map(|s| s.value(within, &full).int())
        else {
            return Vec::new();
        };
        if radius <= 0 {
            return Vec::new();
        }
        let mut near: Vec<(i64, usize)> = (0..self.state.units.len())
            .filter(|k| *k != i && *k != target)
            .filter_map(|k| self.state.units.get(k).filter(|f| f.state == State::Ready).map(|f| (distance(f.pos, t.pos), k)))
            .filter(|(d, _)| *d <= radius)
            .collect();
        near.sort_unstable();
        near.into_iter().map(|(_, k)| k).collect()
    }

    /// Leadership: each general who died since the last look makes his side's units roll
    /// `save`; those that fail leave the battle (routed). Each roll is logged.
    pub(super) fn leadership_saves(&mut self) {
        if self.engine.rules.ruleset.leadership.is_none() || !self.laws.leadership {
            return;
        }
        let Some(save) = self.engine.ir.save.as_ref() else { return };
        let fallen: Vec<usize> = (0..self.state.units.len())
            .filter(|k| {
                self.state.units.get(*k).is_some_and(|u| u.hp <= 0 && !u.morale.mourned && is_general(u, self.laws.general))
            })
            .collect();
        for g in fallen {
            let Some(f) = self.state.units.get_mut(g) else { continue };
            f.morale.mourned = true;
            let (side, name) = (f.side, f.name.clone());
            let theirs: Vec<usize> = (0..self.state.units.len())
                .filter(|k| self.state.units.get(*k).is_some_and(|u| u.side == side && u.state == State::Ready))
                .collect();
            for k in theirs {
                let (passed, r, target) = self.courage_roll(k, save);
                let (note, routed) = if passed {
                    (format!("passes its save as its general {name} falls (rolled {r} against {target})"), Vec::new())
                } else {
                    if let Some(u) = self.state.units.get_mut(k) {
                        u.state = State::Routed;
                    }
                    (
                        format!("fails its save as its general {name} falls (rolled {r} against {target}) and leaves the battle"),
                        vec![k],
                    )
                };
                self.log.push(Record::Courage { unit: k, note, hp: Vec::new(), routed });
            }
        }
    }
}

#[cfg(test)]
mod tests;

/// The side of `at` that `p` touches, a bit each (up 1, right 2, down 4, left 8: opposite sides
/// are bits 1 and 4, or 2 and 8), or `None` where `p` is not one of its four neighbours.
fn side_bit(at: Tile, p: Tile) -> Option<u8> {
    match (p.0 - at.0, p.1 - at.1) {
        (0, -1) => Some(1),
        (1, 0) => Some(2),
        (0, 1) => Some(4),
        (-1, 0) => Some(8),
        _ => None,
    }
}
