//! What an exchange reads of a loadout ([`ExchangeInputs`]): the endings the AIs share
//! (`Engine::ending_shared`) are keyed by it, so that two loadouts alike in all an exchange can
//! read share one ending (a resource no combat formula reads, one that only turn order reads; a
//! status whose only effect is on an attribute no exchange reads, as a reload's ban on
//! attacking; two terrains of the same defense).
//!
//! An attribute counts as read where any expression the engine may evaluate in building a unit
//! or in an exchange reads it: the combat formulas and gains, every tag's and status's effects
//! (their `on` triggers, `when` conditions, modifiers and clears), items' uses, modifiers and
//! reaches, resources' values, the reactions' requirements, modifiers and costs, hit points and
//! `attack_form`. The rest is read only outside an exchange: actions, the turn's rules (turn
//! order, steps, answers, interrupts, engagement), courage, leadership, charging and areas.

use std::collections::HashSet;

use oc_model as m;

use crate::ir::{AttrTarget, Eff, Role, E, V};
use crate::{Atom, Engine, Loadout};

/// The events an exchange fires (`combat`): a strike that hits, is critical or misses, and an
/// attack on the holder.
const EXCHANGE_EVENTS: [m::Event; 4] = [m::Event::Hit, m::Event::Crit, m::Event::Miss, m::Event::Attacked];

/// What an exchange reads of a loadout: built once per engine ([`Engine::new`]).
///
/// Each list is short (a few names) and searched by the names' interned pointers
/// ([`ExchangeInputs::canonical`] runs for every ending an AI asks for): no hashing of a name's
/// text, no look-up of an attribute by its name.
#[derive(Default)]
pub(crate) struct ExchangeInputs {
    /// The attributes no exchange (nor building its units) reads, by name.
    unread: Vec<Atom>,
    /// Statuses with no effect an exchange may see: not named by any `has` or by an effect an
    /// exchange runs (laid, cured, cleared), cleared at no event an exchange fires, and whose
    /// every effect is an action, a trigger on a battle's event, or a modifier of the holder's
    /// attribute no exchange reads.
    inert: Vec<Atom>,
    /// Each terrain the rules define that is not the first of its defense, with that first one
    /// (what a unit reads of its terrain: `Unit::terrain_defense`).
    terrains: Vec<(Atom, Atom)>,
    /// Whether two units alike but for their hit points are the same but for them, and an
    /// exchange of them refused at neither or both: no weapon's reach reads an attribute an
    /// exchange's state holds, and no dice are named by a value (`Exchange::checked`). Then an
    /// exchange's walk may be kept for every amount of hit points (`combat::Template`).
    hp_free: bool,
    /// Whether two units alike but for their hit points are the same but for them (no weapon's
    /// reach reads an attribute an exchange's state holds): then what a strike comes to at a
    /// state is the same in both their exchanges (`combat::across`).
    alike_but_hp: bool,
}

/// Whether `e` may read an attribute an exchange's state holds (hit points, a resource), directly
/// or through a formula (at most `depth` formulas deep).
pub(crate) fn reads_state(ir: &crate::ir::Ir, e: &E, depth: u32) -> bool {
    ir.reads_state_by(e, &mut |f| depth == 0 || ir.formulas.get(f as usize).is_none_or(|f| reads_state(ir, &f.expr, depth - 1)))
}

/// The reads found by a walk of expressions.
#[derive(Default)]
struct Found {
    attrs: HashSet<u16>,
    /// An attribute named by a parameter (`AttrOfParam`): any may be read.
    any_attr: bool,
    has: HashSet<u32>,
    /// A status named by a parameter (`HasParam`, a command's argument): any may be tested or laid.
    any_has: bool,
}

impl Found {
    fn expr(&mut self, e: &E) {
        match e {
            E::Attr(_, a) => {
                self.attrs.insert(*a);
            }
            E::AttrOfParam(..) => self.any_attr = true,
            E::Has(_, name, _) => {
                self.has.insert(*name);
            }
            E::HasParam(..) => self.any_has = true,
            // A name (`inflict(self, S)`, `S` a status's name): a status an exchange may lay, cure or clear.
            E::Const(V::Name(name)) => {
                self.has.insert(*name);
            }
            _ => {}
        }
        e.children().for_each(|c| self.expr(c));
    }

    fn effects(&mut self, effects: &[Eff]) {
        for e in effects {
            match e {
                Eff::Modify { value, .. } => self.expr(value),
                Eff::When { condition, then } => {
                    self.expr(condition);
                    self.effects(then);
                }
                // The events an exchange fires; the others' triggers run in a battle, outside it.
                Eff::On { event, then } if EXCHANGE_EVENTS.contains(event) => self.effects(then),
                Eff::On { .. } => {}
                Eff::Grant { args, .. } => args.iter().for_each(|a| self.expr(a)),
                Eff::Command { args, .. } => {
                    args.iter().for_each(|a| self.expr(a));
                    // A name given by a parameter (`inflict(defender, s)`): any status may be laid.
                    self.any_has |= args.iter().any(|a| matches!(a, E::Param(_)));
                }
                // A tag granted by a parameter: what it grants is read by its own effects.
                Eff::GrantParam(_) => {}
                // Taken in a battle, never in an exchange.
                Eff::Action(_) => {}
            }
        }
    }
}

impl ExchangeInputs {
    pub(crate) fn new(engine: &Engine) -> ExchangeInputs {
        let ir = &engine.ir;
        let mut found = Found::default();
        ir.formulas.iter().for_each(|f| found.expr(&f.expr));
        ir.gains.iter().for_each(|g| found.expr(&g.value));
        ir.effects.values().for_each(|(_, effects)| found.effects(effects));
        ir.clears.values().flatten().filter_map(|c| c.condition.as_ref()).for_each(|c| found.expr(c));
        ir.item_uses.iter().for_each(|u| found.effects(u));
        ir.resources.iter().for_each(|r| found.expr(&r.value));
        engine.item_modifiers.values().for_each(|m| found.effects(m));
        engine.item_ranges.values().for_each(|(lo, hi)| {
            found.expr(lo);
            found.expr(hi);
        });
        engine.resource_full.iter().filter_map(|(_, e)| e.as_ref()).for_each(|e| found.expr(e));
        for r in &engine.reactions {
            let (requires, modifiers, costs) = r.reads();
            requires.iter().for_each(|e| found.expr(e));
            found.effects(modifiers);
            for (resource, _) in costs {
                if let Some(attr) = ir.resources.get(*resource).map(|r| r.attr) {
                    found.attrs.insert(attr);
                }
            }
        }
        found.attrs.insert(ir.hp_attr);
        if let Some(a) = ir.attr_id("attack_form") {
            found.attrs.insert(a);
        }
        let read: Vec<bool> = (0..ir.attrs.len()).map(|a| found.any_attr || found.attrs.contains(&(a as u16))).collect();
        let unread = |a: &AttrTarget| matches!(a, AttrTarget::Index(i) if !read.get(*i as usize).copied().unwrap_or(true));
        let inert = engine
            .rules
            .statuses
            .iter()
            .filter(|_| !found.any_has)
            .filter_map(|s| Some((Atom::new(&s.name), ir.name_id(&s.name)?)))
            .filter(|(_, id)| !found.has.contains(id))
            .filter(|(_, id)| {
                ir.effects.get(id).is_some_and(|(_, effects)| {
                    effects.iter().all(|e| match e {
                        Eff::Modify { role: Role::Holder, attr, .. } => unread(attr),
                        Eff::Action(_) => true,
                        Eff::On { event, .. } => !EXCHANGE_EVENTS.contains(event),
                        _ => false,
                    })
                })
            })
            .filter(|(_, id)| ir.clears.get(id).is_none_or(|c| c.iter().all(|c| !EXCHANGE_EVENTS.contains(&c.event))))
            .map(|(name, _)| name)
            .collect::<HashSet<Atom>>()
            .into_iter()
            .collect();
        let mut terrains: Vec<(Atom, Atom)> = Vec::new();
        for t in &engine.rules.terrains {
            let first = engine.rules.terrains.iter().find(|u| u.defense == t.defense).unwrap_or(t);
            let (name, first) = (Atom::new(&t.name), Atom::new(&first.name));
            // (Terrain names are unique: one entry a name.)
            if name != first && !terrains.iter().any(|(n, _)| *n == name) {
                terrains.push((name, first));
            }
        }
        // An attribute's name is read where it names no attribute (`Ir::attr_id`) or one read.
        let unread = ir
            .attrs
            .iter()
            .enumerate()
            .filter(|(a, (name, _))| {
                !read.get(*a).copied().unwrap_or(true) && ir.attr_id(name).is_some_and(|id| id as usize == *a)
            })
            .map(|(_, (name, _))| Atom::new(name))
            .collect();
        let alike_but_hp = !engine.item_ranges.values().any(|(lo, hi)| reads_state(ir, lo, 64) || reads_state(ir, hi, 64));
        let hp_free =
            alike_but_hp && !ir.strike_dice.iter().any(|s| ir.dice.get(*s as usize).is_some_and(|d| d.dynamic.is_some()));
        ExchangeInputs { unread, inert, terrains, hp_free, alike_but_hp }
    }

    /// Whether two units alike but for their hit points are the same but for them (see
    /// `alike_but_hp`).
    pub(crate) fn alike_but_hp(&self) -> bool {
        self.alike_but_hp
    }

    /// Whether an exchange's walk may be kept for every amount of hit points (see `hp_free`).
    pub(crate) fn hp_free(&self) -> bool {
        self.hp_free
    }

    /// `l` with what no exchange reads of it left out (its resources and placed attributes no
    /// exchange reads, its inert statuses) and its terrain the first of the same defense: an
    /// exchange of it ends as one of `l`, bit for bit. `None` where that is `l` itself.
    pub(crate) fn canonical(&self, _: &Engine, l: &Loadout) -> Option<Loadout> {
        let read = |name: &Atom| !self.unread.contains(name);
        let terrain = l.terrain.map(|t| self.terrains.iter().find(|(n, _)| *n == t).map_or(t, |(_, first)| *first));
        let changes = terrain != l.terrain
            || (!self.inert.is_empty() && l.statuses.iter().any(|s| self.inert.contains(s)))
            || (!self.unread.is_empty() && l.resources.iter().chain(&l.placed).any(|(n, _)| !read(n)));
        changes.then(|| Loadout {
            terrain,
            statuses: l.statuses.iter().filter(|s| !self.inert.contains(*s)).copied().collect(),
            resources: l.resources.iter().filter(|(n, _)| read(n)).copied().collect(),
            placed: l.placed.iter().filter(|(n, _)| read(n)).copied().collect(),
            ..l.clone()
        })
    }
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::{Atom, Engine, Exchange, Loadout};

    fn engine(ruleset: &str) -> Engine {
        let (_, index) = oc_compiler::stdlib::RULESETS.iter().find(|(n, _)| *n == ruleset).expect("a built-in ruleset");
        Engine::new(oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("compiles")).expect("runs")
    }

    /// A variant of a loadout: what it is, how it is made, whether it shares the loadout's key.
    type Variant = (&'static str, fn(&Loadout) -> Loadout, bool);

    /// `l` as the ending cache keys it.
    fn key(e: &Engine, l: &Loadout) -> Loadout {
        e.inputs.canonical(e, l).unwrap_or_else(|| l.clone())
    }

    /// Each variant of each matchup: its key is the base's where `alike`, and its shared ending
    /// is, bit for bit, the ending of its own exchange, worked out afresh.
    fn check(e: &Engine, variants: &[Variant]) -> usize {
        let units = crate::testing::roster(e);
        let mut compared = 0;
        for a in units.iter().step_by(3) {
            let Some(distance) = a.weapon.as_deref().and_then(|w| e.reach(&a.class, w)).map(|(lo, _)| lo.max(1)) else {
                continue;
            };
            for d in units.iter().step_by(2) {
                for (what, vary, alike) in variants {
                    for (x, y) in [(vary(a), d.clone()), (a.clone(), vary(d))] {
                        let Ok(fresh) = Exchange::new(e, &x, &y, distance).map(|x| x.ending()) else { continue };
                        let shared = e.ending_shared(&x, &y, distance, false, (false, 0)).expect("runs");
                        assert_eq!(*shared, fresh, "{what}: {} vs {}", x.class, y.class);
                        let same = key(e, &x) == key(e, a) && key(e, &y) == key(e, d);
                        assert_eq!(same, *alike, "{what}: {} vs {}", x.class, y.class);
                        compared += 1;
                    }
                }
            }
        }
        compared
    }

    fn with_status(l: &Loadout, status: &str) -> Loadout {
        Loadout { statuses: [Atom::new(status)].into_iter().chain(l.statuses.iter().copied()).collect(), ..l.clone() }
    }

    /// Seed 003: a crossbow's reload (`Reloading { can_attack = false }`: "recover/reload") and a
    /// brace (`Braced { braced = true }`, "brace [ready to attack targets of opportunity]") are
    /// read by a battle, never by an exchange, and the Plains and the Bridge give the same
    /// defense (none): each matchup with them has the ending of the matchup without. The drizzle
    /// (`murk += 1`, read by a shot's target number) and mixed troops (C.E.R. +1, Evasion -1)
    /// are read: their endings are their own.
    #[test]
    fn what_no_exchange_reads_shares_an_ending() {
        let e = engine("battlestorm");
        let variants: [Variant; 6] = [
            ("reloading", |l| with_status(l, "Reloading"), true),
            ("braced", |l| with_status(l, "Braced"), true),
            ("bridge", |l| Loadout { terrain: Some(Atom::new("Bridge")), ..l.clone() }, false),
            ("plains", |l| Loadout { terrain: Some(Atom::new("Plains")), ..l.clone() }, false),
            ("drizzle", |l| with_status(l, "Drizzle"), false),
            ("mixed", |l| with_status(l, "MixedTroops"), false),
        ];
        assert!(check(&e, &variants) > 100);
        let on = |t: &str| Loadout { terrain: Some(Atom::new(t)), ..crate::testing::roster(&e)[0].clone() };
        assert_eq!(key(&e, &on("Bridge")), key(&e, &on("Plains")));
        assert_ne!(key(&e, &on("Forest")), key(&e, &on("Plains")));
    }

    /// Seed 004: "the initiative of a unit is the total of maneuver points it rolled", read by
    /// turn order and spent by actions, never by an exchange: a matchup at any initiative has
    /// one ending.
    #[test]
    fn a_resource_no_exchange_reads_shares_an_ending() {
        let e = engine("skirmish");
        let variants: [Variant; 2] = [
            ("initiative 1", |l| Loadout { resources: vec![(Atom::new("initiative"), 1)], ..l.clone() }, true),
            ("initiative 7", |l| Loadout { resources: vec![(Atom::new("initiative"), 7)], ..l.clone() }, true),
        ];
        assert!(check(&e, &variants) > 20);
    }
}
