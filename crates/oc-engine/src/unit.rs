//! Units with their derived stats, and the expression evaluator.

use oc_model as m;

use crate::eval::{apply, target_attr, Env};
use crate::ir::{Eff, Ir, Role, E, V};
use crate::{Engine, EngineError, Form, Loadout};

/// A tag or status a unit has, with its arguments.
#[derive(Clone, Debug)]
pub struct Instance {
    pub tag: u32,
    pub args: Vec<V>,
}

/// Something worked out for this unit for each formula, on first use: the IR the formulas are
/// of (`Ir::id`), and by formula id. A clone starts empty (it may be changed after).
#[derive(Debug)]
pub struct PerFormula<T>(std::sync::OnceLock<(u64, Box<[std::sync::OnceLock<T>]>)>);

impl<T> Default for PerFormula<T> {
    fn default() -> Self {
        PerFormula(std::sync::OnceLock::new())
    }
}

impl<T> Clone for PerFormula<T> {
    fn clone(&self) -> Self {
        PerFormula::default()
    }
}

impl<T> PerFormula<T> {
    /// Formula `i`'s slot, for `ir`; `None` for another IR than the one that first asked.
    pub(crate) fn slot(&self, ir: &Ir, i: usize) -> Option<&std::sync::OnceLock<T>> {
        let (of, slots) = self.0.get_or_init(|| (ir.id, ir.formulas.iter().map(|_| std::sync::OnceLock::new()).collect()));
        if *of != ir.id {
            return None;
        }
        slots.get(i)
    }
}

/// A unit ready for combat: every attribute after the modifiers that always apply.
#[derive(Clone, Debug)]
pub struct Unit {
    pub class: String,
    pub weapon: Option<String>,
    pub accessory: Option<String>,
    pub attrs: Vec<V>,
    pub max_hp: i64,
    pub has: Vec<Instance>,
    /// Conditional effects, evaluated for every strike: (arguments, condition, effects).
    pub whens: Vec<(Vec<V>, E, Vec<Eff>)>,
    /// Event triggers: (arguments, event, effects).
    pub triggers: Vec<(Vec<V>, m::Event, Vec<Eff>)>,
    pub weapon_type: Option<String>,
    /// `weapon_type` interned (`Ir::name_id`).
    pub weapon_type_id: Option<u32>,
    pub might: i64,
    pub weight: i64,
    pub min_range: i64,
    pub max_range: i64,
    pub magic: bool,
    pub staff: bool,
    pub accessory_weight: i64,
    pub promoted: bool,
    pub terrain_defense: i64,
    pub statuses: Vec<u32>,
    /// Weapon types the unit may not use now (`restrict(...)`, e.g. from a status).
    pub restricted: Vec<u32>,
    /// `must_attack_weakest()` (seed 000's status that forces attacks): it must attack the unit in range with the
    /// lowest HP.
    pub must_attack_weakest: bool,
    /// Every attribute as shown to a user (`Engine::effective`), worked out on first use.
    pub effective: std::sync::OnceLock<std::sync::Arc<[(String, crate::Shown)]>>,
    /// What the formulas that read this unit alone come to for it.
    pub solo: PerFormula<V>,
    /// The formulas that read both units, staged for this unit as the striker (`Ir::stage`).
    pub staged: PerFormula<E>,
}

/// Everything an expression can see.
pub struct Ctx<'a> {
    pub ir: &'a Ir,
    pub units: [&'a Unit; 2],
    pub attrs: [&'a [V]; 2],
    /// Attributes the exchange's state holds (hit points, resources), read in place of `attrs`:
    /// (attribute, value), a later entry winning.
    pub held: [&'a [(u16, V)]; 2],
    pub attacker: usize,
    pub holder: usize,
    /// This strike's draw of every die slot (`Ir::dice`); empty outside a strike.
    pub rolls: &'a [i64],
    pub dealt: i64,
    pub distance: i64,
    pub triangle: i64,
    /// Whether each side's unit has had its activation this round (a battle's state; outside
    /// one, neither: `Exchange::activated`).
    pub activated: [bool; 2],
    /// Whether a formula that reads one unit alone may be taken from that unit (`Unit::solo`)
    /// where the attributes read are the unit's own: in an exchange, whose units are whole.
    pub solo: bool,
    /// Set when an evaluation reads an attribute the exchange's state holds (hit points, a
    /// resource): what it computed is then good only for that state. Left unset, the result
    /// holds for every amount of them (`Exchange` caches it once for all).
    pub reads: Option<&'a std::cell::Cell<bool>>,
}

impl Ctx<'_> {
    /// Attribute `attr` of the unit on `side`: the state's value where it holds one, noting the
    /// read (see [`Ctx::reads`]).
    #[inline]
    fn attr(&self, side: usize, attr: u16) -> V {
        if self.ir.state_attrs.get(attr as usize).copied().unwrap_or(false) {
            if let Some(r) = self.reads {
                r.set(true);
            }
            let held = self.held.get(side).and_then(|h| h.iter().rev().find(|(a, _)| *a == attr));
            if let Some((_, v)) = held {
                return *v;
            }
        }
        self.attrs.get(side).and_then(|a| a.get(attr as usize)).copied().unwrap_or(V::Int(0))
    }

    fn side(&self, role: Role) -> usize {
        match role {
            Role::Holder => self.holder,
            Role::Foe | Role::Target => 1 - self.holder,
            Role::Attacker => self.attacker,
            Role::Defender => 1 - self.attacker,
        }
    }

    /// Formula `f`'s value, remembered in `cache` (what `E::Formula(f)` evaluates to, without
    /// building and dropping that expression).
    #[inline]
    pub fn formula(&self, f: u16, cache: &mut [Option<V>]) -> V {
        match cache.get(f as usize) {
            Some(Some(v)) => *v,
            _ => self.formula_uncached(f, cache),
        }
    }

    /// [`Ctx::formula`] not yet in `cache`: worked out and kept there.
    fn formula_uncached(&self, f: u16, cache: &mut [Option<V>]) -> V {
        let i = f as usize;
        let v = match self.ir.formulas.get(i) {
            // One that reads dice: whole. One unit's: as that unit worked it out. Both units':
            // as the striker staged it.
            Some(formula) if formula.dice != 0 => self.eval(&formula.expr, &[], cache),
            Some(formula) => match (formula.reads, self.solo(formula.reads, i)) {
                (_, Some(v)) => v,
                (crate::ir::Reads::Both, None) => match self.staged(i) {
                    Some(e) => self.eval(e, &[], cache),
                    None => self.eval(&formula.expr, &[], cache),
                },
                _ => self.eval(&formula.expr, &[], cache),
            },
            None => V::Int(0),
        };
        if let Some(slot) = cache.get_mut(i) {
            *slot = Some(v);
        }
        v
    }

    /// Formula `i`, which reads `reads`, as the unit it reads worked it out once (`Unit::solo`):
    /// where that unit's attributes in this evaluation are its own (no `when` changed them).
    fn solo(&self, reads: crate::ir::Reads, i: usize) -> Option<V> {
        let side = reads.side(self.attacker).filter(|_| self.solo)?;
        let (unit, attrs) = (self.units.get(side)?, self.attrs.get(side)?);
        if !std::ptr::eq(*attrs, &unit.attrs[..]) {
            return None;
        }
        unit.solo_value(self.ir, i)
    }

    /// Formula `i`, which reads both units and no die, as its striker staged it
    /// (`Unit::staged`): where the striker's attributes in this evaluation are its own.
    fn staged(&self, i: usize) -> Option<&E> {
        if !self.solo || !self.ir.strategy.staging {
            return None;
        }
        let (unit, attrs) = (self.units.get(self.attacker)?, self.attrs.get(self.attacker)?);
        if !std::ptr::eq(*attrs, &unit.attrs[..]) {
            return None;
        }
        unit.staged(self.ir, i)
    }

    /// Evaluates `e` (`eval::eval` in this strike). `cache` holds combat formulas already
    /// computed for this roll.
    #[inline]
    pub fn eval(&self, e: &E, params: &[V], cache: &mut [Option<V>]) -> V {
        crate::eval::eval(self, e, params, cache)
    }
}

/// The exchange's environment: a strike, its dice drawn (`rolls`), its units' attributes with
/// the state's hit points and resources held beside them.
impl Env for Ctx<'_> {
    #[inline]
    fn ir(&self) -> &Ir {
        self.ir
    }
    #[inline]
    fn side(&self, role: Role) -> usize {
        Ctx::side(self, role)
    }
    #[inline]
    fn unit(&self, side: usize) -> &Unit {
        self.units[side]
    }
    #[inline]
    fn attr(&self, side: usize, attr: u16) -> V {
        Ctx::attr(self, side, attr)
    }
    #[inline]
    fn roll(&self, slot: u8) -> i64 {
        self.rolls.get(slot as usize).copied().unwrap_or(0)
    }
    /// Drawn with the strike's other dice (`combat::outcomes`): the expression is not read again.
    #[inline]
    fn roll_value(&self, slot: u8, _dice: impl FnOnce() -> V) -> i64 {
        self.rolls.get(slot as usize).copied().unwrap_or(0)
    }
    #[inline]
    fn distance(&self) -> i64 {
        self.distance
    }
    #[inline]
    fn triangle(&self) -> i64 {
        self.triangle
    }
    #[inline]
    fn dealt(&self) -> i64 {
        self.dealt
    }
    #[inline]
    fn activated(&self, side: usize) -> bool {
        self.activated.get(side).copied().unwrap_or(false)
    }
    #[inline]
    fn formula(&self, f: u16, cache: &mut [Option<V>]) -> V {
        Ctx::formula(self, f, cache)
    }
}

impl Engine {
    /// The unit a loadout makes, with the statuses in `extra_statuses` added to the loadout's:
    /// built once, then shared.
    pub fn unit(&self, l: &Loadout, extra_statuses: &[u32]) -> Result<std::sync::Arc<Unit>, EngineError> {
        let hash = crate::fx::hash_of(&(l, extra_statuses));
        let is = |k: &(Loadout, Vec<u32>)| k.0 == *l && k.1 == extra_statuses;
        if let Some(u) = self.units.read().ok().and_then(|c| c.get(hash, is)) {
            return Ok(u);
        }
        let u = std::sync::Arc::new(self.build_unit(l, extra_statuses)?);
        if let Ok(mut cache) = self.units.write() {
            cache.insert(hash, (l.clone(), extra_statuses.to_vec()), u.clone());
        }
        Ok(u)
    }

    /// Builds a unit from its loadout. Statuses in `extra_statuses` are added to the loadout's.
    fn build_unit(&self, l: &Loadout, extra_statuses: &[u32]) -> Result<Unit, EngineError> {
        let rules = &self.rules;
        let ir = &self.ir;
        let class = rules
            .class(&l.class)
            .ok_or_else(|| EngineError::unknown("class", &l.class, rules.classes.iter().map(|c| c.name.as_str())))?;
        let no_tags: Vec<m::TagUse> = Vec::new();
        let (ratings, wields, form_tags) = match (&class.forms, l.form) {
            (Some(f), Form::Normal) => (&f.normal.ratings, &f.normal.wields, &f.normal.tags),
            (Some(f), _) => (&f.transformed.ratings, &f.transformed.wields, &f.transformed.tags),
            (None, _) => (&class.ratings, &class.wields, &no_tags),
        };
        // A form without its own `wields` takes the class's; the normal form of a class with
        // forms never takes what only its transformed form wields (seed 000, Shifting: "They
        // cannot equip any kind of weapon" -- the stones are the transformed form's).
        let wields: Vec<String> = match (&class.forms, l.form) {
            _ if !wields.is_empty() => wields.iter().map(|w| w.to_string()).collect(),
            (Some(f), Form::Normal) => {
                class.wields.iter().filter(|w| !f.transformed.wields.contains(w)).map(|w| w.to_string()).collect()
            }
            _ => class.wields.iter().map(|w| w.to_string()).collect(),
        };
        let mut attrs = vec![V::Int(0); ir.attrs.len()];
        for (i, (name, _)) in ir.attrs.iter().enumerate() {
            let value = ratings.get(name).or_else(|| rules.ruleset.bases.iter().find(|b| b.name == *name).map(|b| &b.value));
            if let (Some(v), Some(slot)) = (value, attrs.get_mut(i)) {
                *slot = self.constant(v)?;
            }
        }
        let weapon = match &l.weapon {
            Some(name) => {
                let item = rules
                    .item(name)
                    .ok_or_else(|| EngineError::unknown("item", name, rules.items.iter().map(|i| i.name.as_str())))?;
                if item.kind != m::ItemKind::Weapon {
                    return Err(EngineError::new(format!("`{name}` is not a weapon")));
                }
                let ty = item.weapon_type.clone().unwrap_or_default();
                if !wields.iter().any(|w| *w == ty) {
                    return Err(EngineError::new(format!(
                        "a {} cannot wield {name}: it is {ty}, and the class wields {}",
                        class.name,
                        wields.join(", ")
                    )));
                }
                Some(item)
            }
            None => None,
        };
        let accessory = match &l.accessory {
            Some(name) => {
                let item = rules
                    .item(name)
                    .ok_or_else(|| EngineError::unknown("item", name, rules.items.iter().map(|i| i.name.as_str())))?;
                if item.kind != m::ItemKind::Accessory {
                    return Err(EngineError::new(format!("`{name}` is not an accessory")));
                }
                Some(item)
            }
            None => None,
        };
        let terrain_defense = match &l.terrain {
            Some(t) => {
                rules
                    .terrain(t)
                    .ok_or_else(|| EngineError::unknown("terrain", t, rules.terrains.iter().map(|t| t.name.as_str())))?
                    .defense
            }
            None => 0,
        };

        // Every tag the unit has: class (and form), unit tags, then equipment, then statuses.
        let mut instances: Vec<Instance> = Vec::new();
        let push_uses = |uses: &[m::TagUse], out: &mut Vec<Instance>| -> Result<(), EngineError> {
            for u in uses {
                let tag = ir.name_id(&u.tag).ok_or_else(|| EngineError::model(format!("unknown tag {}", u.tag)))?;
                let args = u.args.iter().map(|a| self.constant(a)).collect::<Result<_, _>>()?;
                out.push(Instance { tag, args });
            }
            Ok(())
        };
        push_uses(&class.tags, &mut instances)?;
        push_uses(form_tags, &mut instances)?;
        for (tag, args) in &l.tags {
            let id =
                ir.name_id(tag).ok_or_else(|| EngineError::unknown("tag", tag, rules.tags.iter().map(|t| t.name.as_str())))?;
            let args = args.iter().map(|a| self.constant(a)).collect::<Result<_, _>>()?;
            instances.push(Instance { tag: id, args });
        }
        for item in weapon.iter().chain(accessory.iter()) {
            let mut own = Vec::new();
            push_uses(&item.tags, &mut own)?;
            // A tag with `ignore_item_tags()` may switch the item's other tags off.
            let probe = Unit::bare(&attrs, &instances);
            if let Some(keep) = own.iter().position(|i| self.ignores_item_tags(i, &probe)) {
                own = own.into_iter().skip(keep).take(1).collect();
            }
            instances.extend(own);
        }
        let mut statuses: Vec<u32> = Vec::new();
        for s in &l.statuses {
            let id = ir
                .name_id(s)
                .filter(|_| rules.status(s).is_some())
                .ok_or_else(|| EngineError::unknown("status", s, rules.statuses.iter().map(|s| s.name.as_str())))?;
            statuses.push(id);
        }
        for s in extra_statuses {
            if !statuses.contains(s) {
                statuses.push(*s);
            }
        }
        for s in &statuses {
            instances.push(Instance { tag: *s, args: Vec::new() });
        }
        // Granted tags, breadth first (a grant loop stops at a fixed depth).
        let mut i = 0;
        while i < instances.len() && instances.len() < 256 {
            let Some(inst) = instances.get(i).cloned() else { break };
            if let Some((_, effects)) = ir.effects.get(&inst.tag) {
                for e in effects {
                    let probe = Unit::bare(&attrs, &instances);
                    let ctx = self.static_ctx(&probe, &attrs);
                    match e {
                        Eff::Grant { tag, args } => {
                            let args = args.iter().map(|a| ctx.eval(a, &inst.args, &mut [])).collect();
                            instances.push(Instance { tag: *tag, args });
                        }
                        Eff::GrantParam(p) => {
                            if let Some(V::Name(tag)) = inst.args.get(*p as usize) {
                                instances.push(Instance { tag: *tag, args: Vec::new() });
                            }
                        }
                        _ => {}
                    }
                }
            }
            i += 1;
        }

        let mut unit = Unit {
            class: class.name.to_string(),
            weapon: weapon.map(|w| w.name.to_string()),
            accessory: accessory.map(|a| a.name.to_string()),
            attrs,
            max_hp: 0,
            has: instances.clone(),
            whens: Vec::new(),
            triggers: Vec::new(),
            weapon_type: weapon.and_then(|w| w.weapon_type.as_ref().map(|t| t.to_string())),
            weapon_type_id: weapon.and_then(|w| w.weapon_type.as_deref()).and_then(|t| ir.name_id(t)),
            might: weapon.map_or(0, |w| w.might),
            weight: weapon.map_or(0, |w| w.weight),
            min_range: 0,
            max_range: 0,
            magic: weapon.and_then(|w| w.weapon_type.as_ref()).and_then(|t| rules.weapon_type(t)).is_some_and(|t| t.magic),
            staff: weapon.and_then(|w| w.weapon_type.as_ref()).and_then(|t| rules.weapon_type(t)).is_some_and(|t| t.staff),
            accessory_weight: accessory.map_or(0, |a| a.weight),
            promoted: class.promoted,
            terrain_defense,
            statuses,
            restricted: Vec::new(),
            must_attack_weakest: false,
            effective: Default::default(),
            solo: PerFormula::default(),
            staged: PerFormula::default(),
        };
        // Effects that always apply, in order; conditional ones and triggers are kept for combat.
        let mut blocks: Vec<(Vec<V>, Vec<Eff>)> = Vec::new();
        for inst in &instances {
            if let Some((_, effects)) = ir.effects.get(&inst.tag) {
                blocks.push((inst.args.clone(), effects.clone()));
            }
        }
        for item in weapon.iter().chain(accessory.iter()) {
            if let Some(mods) = self.item_modifiers.get(item.name.as_str()) {
                blocks.push((Vec::new(), mods.clone()));
            }
        }
        for (args, effects) in blocks {
            for e in effects {
                match e {
                    Eff::Modify { role: Role::Holder, attr, op, value } => {
                        let v = self.static_ctx(&unit, &unit.attrs).eval(&value, &args, &mut []);
                        if let Some(slot) = target_attr(attr, &args).and_then(|i| unit.attrs.get_mut(i)) {
                            *slot = apply(ir, *slot, op, v);
                        }
                    }
                    Eff::When { condition, then } => unit.whens.push((args.clone(), condition, then)),
                    Eff::On { event, then } => unit.triggers.push((args.clone(), event, then)),
                    // The standing verbs (`oc_model::conformance::VERBS`, context `Always`).
                    Eff::Command { verb, args: cargs } => match verb {
                        m::Verb::MustAttackWeakest => unit.must_attack_weakest = true,
                        m::Verb::Restrict => {
                            let ctx = self.static_ctx(&unit, &unit.attrs);
                            if let Some(V::Name(t)) = cargs.first().map(|a| ctx.eval(a, &args, &mut [])) {
                                unit.restricted.push(t);
                            }
                        }
                        // Applied as the items' tags are gathered, above.
                        m::Verb::IgnoreItemTags => {}
                        // Not standing effects: the compiler accepts them only in triggers and
                        // actions, which the exchange and the battle run.
                        m::Verb::Heal
                        | m::Verb::Damage
                        | m::Verb::Inflict
                        | m::Verb::Cure
                        | m::Verb::Reactivate
                        | m::Verb::Relocate
                        | m::Verb::Open
                        | m::Verb::TakeChest
                        | m::Verb::Raze
                        | m::Verb::Seize
                        | m::Verb::Escape
                        | m::Verb::Reveal
                        | m::Verb::Transform
                        | m::Verb::Shift
                        | m::Verb::Debuff
                        | m::Verb::Attack => {}
                    },
                    Eff::Modify { .. } | Eff::Grant { .. } | Eff::GrantParam(_) | Eff::Action(_) => {}
                }
            }
        }
        // Debuffs in force lower their attribute after every other modifier.
        for (attr, shift) in &l.debuffs {
            if let Some(slot) = ir.attr_id(attr).and_then(|a| unit.attrs.get_mut(a as usize)) {
                *slot = apply(ir, *slot, m::AssignOp::Add, V::Int(*shift));
            }
        }
        // A resource is the amount the unit holds now, whatever modified its attribute: the
        // loadout's, or full.
        for (attr, full) in &self.resource_full {
            let v = full.as_ref().map_or(V::Int(0), |e| self.static_ctx(&unit, &unit.attrs).eval(e, &[], &mut []));
            if let Some(slot) = unit.attrs.get_mut(*attr as usize) {
                *slot = v;
            }
        }
        for (name, amount) in &l.resources {
            if let Some(slot) = ir.attr_id(name).and_then(|a| unit.attrs.get_mut(a as usize)) {
                *slot = V::Int(*amount);
            }
        }
        if let Some(w) = weapon {
            if let (Some((min, max)), ctx) = (self.item_ranges.get(w.name.as_str()), self.static_ctx(&unit, &unit.attrs)) {
                let (lo, hi) = (ctx.eval(min, &[], &mut []).int(), ctx.eval(max, &[], &mut []).int());
                unit.min_range = lo;
                unit.max_range = hi;
            }
        }
        unit.max_hp = unit.attrs.get(ir.hp_attr as usize).map_or(0, |v| v.int());
        if let Some(hp) = l.hp {
            if let Some(slot) = unit.attrs.get_mut(ir.hp_attr as usize) {
                *slot = V::Int(hp.clamp(1, unit.max_hp.max(1)));
            }
        }
        Ok(unit)
    }

    /// A definition or string named by a constant, as the IR's interned name.
    fn name_value(&self, name: &str) -> Result<V, EngineError> {
        Ok(V::Name(self.ir.name_id(name).ok_or_else(|| EngineError::model(format!("unknown name {name}")))?))
    }

    pub(crate) fn constant(&self, v: &m::Value) -> Result<V, EngineError> {
        Ok(match v {
            m::Value::Int(n) => V::Int(*n),
            m::Value::Bool(b) => V::Bool(*b),
            m::Value::Step { scale, index } => V::Step {
                scale: self.ir.scale_id(scale).ok_or_else(|| EngineError::model(format!("unknown scale {scale}")))?,
                index: i64::from(*index),
            },
            m::Value::Name { name, .. } => self.name_value(name)?,
            m::Value::Str(name) => self.name_value(name)?,
            m::Value::StatMod { stat, amount } => V::StatMod {
                attr: self.ir.attr_id(stat).ok_or_else(|| EngineError::model(format!("unknown stat {stat}")))?,
                amount: *amount,
            },
            m::Value::Dice(shape) => {
                V::Dice(self.ir.shape_id(shape).ok_or_else(|| EngineError::model(format!("dice {shape} were not interned")))?)
            }
        })
    }

    fn static_ctx<'a>(&'a self, unit: &'a Unit, attrs: &'a [V]) -> Ctx<'a> {
        Ctx {
            ir: &self.ir,
            units: [unit, unit],
            attrs: [attrs, attrs],
            held: [&[], &[]],
            attacker: 0,
            holder: 0,
            rolls: &[],
            dealt: 0,
            distance: 1,
            triangle: 0,
            activated: [false; 2],
            solo: false,
            reads: None,
        }
    }

    fn ignores_item_tags(&self, inst: &Instance, unit: &Unit) -> bool {
        let Some((_, effects)) = self.ir.effects.get(&inst.tag) else { return false };
        let ctx = self.static_ctx(unit, &unit.attrs);
        effects.iter().any(|e| match e {
            Eff::Command { verb: m::Verb::IgnoreItemTags, .. } => true,
            Eff::When { condition, then } => {
                then.iter().any(|t| matches!(t, Eff::Command { verb: m::Verb::IgnoreItemTags, .. }))
                    && ctx.eval(condition, &inst.args, &mut []).bool()
            }
            _ => false,
        })
    }
}

impl Unit {
    /// What formula `i`, which reads this unit alone, comes to for it: worked out on first use,
    /// with the unit in both roles (such a formula reads only one of them). `None` for another
    /// IR than the one that first asked.
    pub(crate) fn solo_value(&self, ir: &Ir, i: usize) -> Option<V> {
        let slot = self.solo.slot(ir, i)?;
        if let Some(v) = slot.get() {
            return Some(*v);
        }
        let v = self.alone(ir).eval(&ir.formulas.get(i)?.expr, &[], &mut []);
        Some(*slot.get_or_init(|| v))
    }

    /// Formula `i`, which reads both units, staged for this unit as the striker: worked out on
    /// first use. `None` for another IR than the one that first asked.
    pub(crate) fn staged(&self, ir: &Ir, i: usize) -> Option<&E> {
        let slot = self.staged.slot(ir, i)?;
        if let Some(e) = slot.get() {
            return Some(e);
        }
        let expr = &ir.formulas.get(i)?.expr;
        let ctx = self.alone(ir);
        let fold = |e: &E| ctx.eval(e, &[], &mut []);
        let staged = ir.stage(expr, &fold).unwrap_or_else(|| E::Const(fold(expr)));
        Some(slot.get_or_init(|| staged))
    }

    /// This unit in both roles, alone: what a formula reading it alone is evaluated in.
    fn alone<'a>(&'a self, ir: &'a Ir) -> Ctx<'a> {
        Ctx {
            ir,
            units: [self, self],
            attrs: [&self.attrs, &self.attrs],
            held: [&[], &[]],
            attacker: 0,
            holder: 0,
            rolls: &[],
            dealt: 0,
            distance: 0,
            triangle: 0,
            activated: [false; 2],
            // The formulas it refers to read this unit alone too: each taken from (or worked
            // out into) its own slot, once, not again at every reference.
            solo: true,
            reads: None,
        }
    }

    /// A stand-in with only attributes and tags, to evaluate conditions while a unit is built.
    pub(crate) fn bare(attrs: &[V], has: &[Instance]) -> Unit {
        Unit {
            class: String::new(),
            weapon: None,
            accessory: None,
            attrs: attrs.to_vec(),
            max_hp: 0,
            has: has.to_vec(),
            whens: Vec::new(),
            triggers: Vec::new(),
            weapon_type: None,
            weapon_type_id: None,
            might: 0,
            weight: 0,
            min_range: 0,
            max_range: 0,
            magic: false,
            staff: false,
            accessory_weight: 0,
            promoted: false,
            terrain_defense: 0,
            statuses: Vec::new(),
            restricted: Vec::new(),
            must_attack_weakest: false,
            effective: Default::default(),
            solo: PerFormula::default(),
            staged: PerFormula::default(),
        }
    }

    pub fn hp(&self, ir: &Ir) -> i64 {
        self.attrs.get(ir.hp_attr as usize).map_or(0, |v| v.int())
    }

    pub fn in_range(&self, distance: i64) -> bool {
        self.weapon.is_some() && distance >= self.min_range && distance <= self.max_range
    }

    /// Whether the equipped weapon may be used at all (a status may `restrict(...)` its type).
    pub fn may_use_weapon(&self) -> bool {
        self.weapon.is_some() && !self.weapon_type_id.is_some_and(|t| self.restricted.contains(&t))
    }
}
