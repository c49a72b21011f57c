//! The battle's environment for the one evaluator (`eval::Env`): an event, an action or a step
//! of one unit (side 0), with the other unit it involves (side 1: the target of an action, the
//! foe of an `after_attack` or `routed`), both as combat sees them, their hit points and whether
//! they have activated, the distance between them (or to the tile acted on), and the event's
//! dice, drawn as they are read.

use crate::Atom;
use std::cell::RefCell;
use std::sync::Arc;

use super::{distance, Battle, Tile};
use crate::eval::{eval, Env};
use crate::ir::{Eff, Ir, Role, E, V};
use crate::unit::Unit;
use crate::{ChaCha8Rng, Engine};

/// The draws of the dice the ruleset names during one battle event (its slot and value): each
/// is drawn once however often the event's evaluations read it (a status's start-of-round clear
/// and its start-of-round damage share one roll).
#[derive(Default)]
pub(crate) struct Drawn(RefCell<Vec<(u8, i64)>>);

/// An event's dice: the battle's generator, and what the event has drawn of the named dice; a
/// die written in place, or a `Dice` value, is drawn at each reading.
pub(crate) struct Draws<'r> {
    rng: RefCell<&'r mut ChaCha8Rng>,
    named: &'r Drawn,
}

impl<'r> Draws<'r> {
    pub(crate) fn new(rng: &'r mut ChaCha8Rng, named: &'r Drawn) -> Draws<'r> {
        Draws { rng: RefCell::new(rng), named }
    }

    fn draw(&self, ir: &Ir, slot: u8) -> i64 {
        let Some(die) = ir.dice.get(slot as usize) else { return 0 };
        if die.named {
            if let Some((_, v)) = self.named.0.borrow().iter().find(|(s, _)| *s == slot) {
                return *v;
            }
        }
        let v = match self.rng.try_borrow_mut() {
            Ok(mut rng) => crate::dice::roll(&mut rng, &die.shape),
            Err(_) => 0,
        };
        if die.named {
            self.named.0.borrow_mut().push((slot, v));
        }
        v
    }

    fn draw_value(&self, ir: &Ir, dice: V) -> i64 {
        let Some(slot) = (match dice {
            V::Dice(id) => ir.shapes.get(id as usize),
            _ => None,
        }) else {
            return 0;
        };
        match self.rng.try_borrow_mut() {
            Ok(mut rng) => crate::dice::roll(&mut rng, &slot.shape),
            Err(_) => 0,
        }
    }
}

/// One evaluation's view of the battle (see the module's doc). Where the event or action
/// involves no other unit, the acting unit stands in for it on side 1 (the compiler lets nothing
/// name it there: `oc_model::conformance::scope`).
pub(crate) struct Scene<'a> {
    engine: &'a Engine,
    units: [Arc<Unit>; 2],
    stage: Stage,
    dice: Option<&'a Draws<'a>>,
}

/// What a scene reads beside its two units ([`Battle::stage`]): their hit points and whether
/// they have activated, the distance acted across, the chart's result. An expression that reads
/// no more (`Ir::reads_no_unit`) is evaluated on it alone ([`Battle::holds_unbuilt`]).
#[derive(Clone, Copy)]
pub(crate) struct Stage {
    hp: [i64; 2],
    activated: [bool; 2],
    distance: i64,
    chart: i64,
}

/// Whom a scene is of: the acting unit, the other unit, the tile acted on (the other unit's
/// when not given), the weapon the acting unit is about to hold.
#[derive(Clone, Copy, Default)]
pub(crate) struct Cast<'s> {
    pub user: usize,
    pub other: Option<usize>,
    pub at: Option<Tile>,
    pub equip: Option<&'s str>,
    /// The strike's result on the charts, where `on chart` runs.
    pub chart: i64,
}

impl<'e> Battle<'e> {
    /// The scene of `cast`, its rolls drawn from `dice` (none where the context rolls nothing:
    /// a step's price, an action's reach); `None` for a unit that is not in the battle or
    /// whose loadout the rules refuse.
    pub(crate) fn scene<'a>(&'a self, cast: Cast<'_>, dice: Option<&'a Draws<'a>>) -> Option<Scene<'a>> {
        let stage = self.stage(cast)?;
        let mut own = self.loadout(cast.user, true)?;
        if let Some(w) = cast.equip {
            own.weapon = Some(Atom::new(w));
        }
        let first = self.as_built(own)?;
        let second = match cast.other.filter(|k| *k != cast.user && self.state.units.get(*k).is_some()) {
            Some(k) => self.as_built(self.loadout(k, false)?)?,
            None => first.clone(),
        };
        Some(Scene { engine: self.engine, units: [first, second], stage, dice })
    }

    /// A scene made again from the `parts` of one of this battle's ([`Scene::parts`]), its rolls
    /// drawn from `dice`: the scene of the same cast while nothing it reads has changed.
    pub(crate) fn scene_again<'a>(&'a self, parts: Parts, dice: Option<&'a Draws<'a>>) -> Scene<'a> {
        let Parts { units, stage } = parts;
        Scene { engine: self.engine, units, stage, dice }
    }

    /// What the scene of `cast` reads beside its units, read without building them: `None` for a
    /// unit that is not in the battle (where its scene is `None` too).
    pub(crate) fn stage(&self, cast: Cast<'_>) -> Option<Stage> {
        let user = self.state.units.get(cast.user)?;
        let other = match cast.other.and_then(|k| self.state.units.get(k).map(|f| (k, f))) {
            Some((k, f)) if k != cast.user => f,
            _ => user,
        };
        Some(Stage {
            hp: [user.hp, other.hp],
            activated: [user.activated, other.activated],
            distance: distance(user.pos, cast.at.unwrap_or(other.pos)),
            chart: cast.chart,
        })
    }
}

impl Battle<'_> {
    /// Whether `e`, which reads no unit (`Ir::reads_no_unit`), holds for `params` on `stage`:
    /// what [`Scene::holds`] gives it in every scene of that stage, with no unit built (the
    /// scene's are stand-ins it never reads).
    pub(crate) fn holds_unbuilt(&self, stage: Stage, e: &E, params: &[V]) -> bool {
        let units = [NOBODY.clone(), NOBODY.clone()];
        Scene { engine: self.engine, units, stage, dice: None }.holds(e, params)
    }

    /// Whether `e` holds in the scene of `cast` (not where it has none). `bare`: `e` reads no
    /// unit (`advanced::Laws`), so it is asked on the stage and the scene built only where it
    /// holds.
    pub(crate) fn holds_in(&self, cast: Cast<'_>, e: &E, params: &[V], bare: bool) -> bool {
        if bare {
            self.stage(cast).is_some_and(|st| self.holds_unbuilt(st, e, params)) && self.scene(cast, None).is_some()
        } else {
            self.scene(cast, None).is_some_and(|s| s.holds(e, params))
        }
    }

    /// The unit a loadout makes; one holding a weapon its current form cannot wield (a shifter
    /// in its normal form with its stone) is read unarmed.
    fn as_built(&self, l: crate::Loadout) -> Option<Arc<Unit>> {
        match self.engine.unit(&l, &[]) {
            Ok(u) => Some(u),
            Err(_) => self.engine.unit(&crate::Loadout { weapon: None, ..l }, &[]).ok(),
        }
    }
}

/// What a scene is made of but its dice ([`Scene::parts`], [`Battle::scene_again`]).
pub(crate) struct Parts {
    units: [Arc<Unit>; 2],
    stage: Stage,
}

impl Scene<'_> {
    /// Its units and stage, to make it again with other dice while nothing it reads changes.
    pub(crate) fn parts(&self) -> Parts {
        Parts { units: self.units.clone(), stage: self.stage }
    }

    pub(crate) fn value(&self, e: &E, params: &[V]) -> V {
        eval(self, e, params, &mut [])
    }

    pub(crate) fn holds(&self, e: &E, params: &[V]) -> bool {
        self.value(e, params).bool()
    }

    /// The commands among `effects` whose `when`s hold here, in order (the shifting rule's
    /// `shift` is the battle's own: left out).
    pub(crate) fn commands<'x>(&self, effects: &'x [Eff], params: &[V], out: &mut Vec<(oc_model::Verb, &'x [E])>) {
        for e in effects {
            match e {
                Eff::Command { verb, args } if *verb != oc_model::Verb::Shift => out.push((*verb, args)),
                Eff::When { condition, then } if self.holds(condition, params) => self.commands(then, params, out),
                _ => {}
            }
        }
    }
}

impl Env for Scene<'_> {
    fn ir(&self) -> &Ir {
        &self.engine.ir
    }
    /// The acting unit is the holder and the attacker; the other, the target, the foe and the
    /// defender.
    fn side(&self, role: Role) -> usize {
        match role {
            Role::Holder | Role::Attacker => 0,
            Role::Foe | Role::Target | Role::Defender => 1,
        }
    }
    fn unit(&self, side: usize) -> &Unit {
        &self.units[side.min(1)]
    }
    fn attr(&self, side: usize, attr: u16) -> V {
        if attr == self.engine.ir.hp_attr {
            return V::Int(self.stage.hp.get(side).copied().unwrap_or(0));
        }
        self.units.get(side).and_then(|u| u.attrs.get(attr as usize)).copied().unwrap_or(V::Int(0))
    }
    fn roll(&self, slot: u8) -> i64 {
        self.dice.map_or(0, |d| d.draw(&self.engine.ir, slot))
    }
    fn roll_value(&self, _slot: u8, dice: impl FnOnce() -> V) -> i64 {
        match self.dice {
            Some(d) => d.draw_value(&self.engine.ir, dice()),
            None => 0,
        }
    }
    fn distance(&self) -> i64 {
        self.stage.distance
    }
    /// Outside an exchange nothing is struck (the compiler refuses the read here).
    fn cover(&self) -> i64 {
        0
    }
    fn triangle(&self) -> i64 {
        let [a, d] = &self.units;
        match (a.weapon_type_id, d.weapon_type_id, &a.weapon_type, &d.weapon_type) {
            (Some(p), Some(q), ..) => self.engine.triangle(p, q),
            (_, _, Some(p), Some(q)) => self.engine.rules.triangle(p, q),
            _ => 0,
        }
    }
    /// No strike is in progress in a battle's event.
    fn dealt(&self) -> i64 {
        0
    }
    fn chart(&self) -> i64 {
        self.stage.chart
    }
    fn activated(&self, side: usize) -> bool {
        self.stage.activated.get(side).copied().unwrap_or(false)
    }

    /// Outside an exchange no unit is making an attack (the compiler refuses the read here).
    fn moved(&self, _side: usize) -> bool {
        false
    }
}

/// The units of a scene asked of an expression that reads none ([`Battle::holds_unbuilt`]):
/// never read.
static NOBODY: std::sync::LazyLock<Arc<Unit>> = std::sync::LazyLock::new(|| Arc::new(Unit::bare(&[], &[])));

#[cfg(test)]
mod tests;
