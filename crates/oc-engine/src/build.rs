//! Building a unit from its loadout (`Engine::unit`): ratings, equipment, tags and what they
//! grant, statuses, standing modifiers, debuffs, resources, range, terrain; built once and shared.

use oc_model as m;

use crate::eval::{apply, target_attr};
use crate::ir::{Eff, Role, V};
use crate::strike::Ctx;
use crate::unit::{Instance, PerFormula, Unit};
use crate::{Engine, EngineError, Form, Loadout};

/// A loadout's and added statuses' key in [`Engine::unit`]'s cache: names by their interned
/// place, not their text (`hash_loadout`): only a hash.
pub(crate) fn unit_hash(l: &Loadout, extra_statuses: &[u32]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = crate::fx::Fx::default();
    crate::hash_loadout(l, &mut h);
    extra_statuses.hash(&mut h);
    h.finish()
}

/// What a unit of a class in a form starts from ([`Engine::start_of`]), by engine
/// (`Engine::serial`) and the rules' ratings and tag lists it is read from (their addresses:
/// the rules never change).
type StartKey = (u64, usize, usize, usize);

/// A start: the attributes and the class's and form's tag instances.
type Start = (Vec<V>, Vec<Instance>);

thread_local! {
    /// At most 1,024 starts.
    static STARTS: std::cell::RefCell<crate::fx::Checked<StartKey, Start>> = std::cell::RefCell::new(crate::fx::Checked::new(1 << 10));
}

impl Engine {
    /// The unit a loadout makes, with the statuses in `extra_statuses` added to the loadout's:
    /// built once, then shared.
    pub fn unit(&self, l: &Loadout, extra_statuses: &[u32]) -> Result<std::sync::Arc<Unit>, EngineError> {
        self.unit_hashed(l, extra_statuses, unit_hash(l, extra_statuses))
    }

    /// [`Engine::unit`] where the caller worked out its [`unit_hash`] already.
    pub(crate) fn unit_hashed(
        &self,
        l: &Loadout,
        extra_statuses: &[u32],
        hash: u64,
    ) -> Result<std::sync::Arc<Unit>, EngineError> {
        let is = |k: &(Loadout, Vec<u32>)| crate::fx::same(&k.1, extra_statuses) && k.0 == *l;
        if let Some(u) = self.units.read().ok().and_then(|c| c.get(hash, is)) {
            return Ok(u);
        }
        let u = match l.hp {
            // Built as the unit at full hit points, then hurt: `build_unit` writes them last.
            Some(hp) => {
                let full = Loadout { hp: None, ..l.clone() };
                let full = self.unit_hashed(&full, extra_statuses, unit_hash(&full, extra_statuses))?;
                std::sync::Arc::new(self.hurt(&full, hp))
            }
            None => std::sync::Arc::new(self.build_unit(l, extra_statuses)?),
        };
        if let Ok(mut cache) = self.units.write() {
            cache.insert(hash, (l.clone(), extra_statuses.to_vec()), u.clone());
        }
        Ok(u)
    }

    /// The other attack forms of the unit `unit` built from `l` (`Exchange`'s, seed 003's "The
    /// wyvern has four attacks"): where the ruleset has the attribute `attack_form` and it holds
    /// for `unit`, the unit with each weapon of `l.carried` it may wield and for which it holds,
    /// in the order carried. None otherwise. `unit` must be the one [`Engine::unit`] builds from
    /// `l` with no status added: its forms are kept with it, worked out once.
    pub(crate) fn attack_forms(&self, l: &Loadout, unit: &Unit) -> Vec<std::sync::Arc<Unit>> {
        if l.carried.is_empty() {
            return Vec::new();
        }
        match unit.forms.get_or_init(&self.ir, || self.attack_forms_built(l, unit)) {
            Some(forms) => forms.clone(),
            None => self.attack_forms_built(l, unit),
        }
    }

    /// [`Engine::attack_forms`], worked out.
    fn attack_forms_built(&self, l: &Loadout, unit: &Unit) -> Vec<std::sync::Arc<Unit>> {
        if l.carried.is_empty() {
            return Vec::new();
        }
        let Some(attr) = self.attack_form() else { return Vec::new() };
        let holds = |u: &Unit| u.attrs.get(attr as usize).is_some_and(|v| matches!(v, V::Bool(true)));
        if !holds(unit) {
            return Vec::new();
        }
        let mut forms = Vec::new();
        for w in l.carried.iter().filter(|w| Some(**w) != l.weapon) {
            let other = Loadout { weapon: Some(*w), carried: Vec::new(), ..l.clone() };
            if let Ok(u) = self.unit(&other, &[]) {
                if holds(&u) && u.may_use_weapon() {
                    forms.push(u);
                }
            }
        }
        forms
    }

    /// A unit's attributes as its ratings (else the bases) give them, and the instances of its
    /// class's and form's tags (`tags`), in order: where [`Engine::build_unit`] starts.
    fn start_of(&self, ratings: &m::Ratings, tags: (&[m::TagUse], &[m::TagUse])) -> Result<Start, EngineError> {
        let (rules, ir) = (&self.rules, &self.ir);
        let mut attrs = vec![V::Int(0); ir.attrs.len()];
        for (i, (name, _)) in ir.attrs.iter().enumerate() {
            let value = ratings.get(name).or_else(|| rules.ruleset.bases.iter().find(|b| b.name == *name).map(|b| &b.value));
            if let (Some(v), Some(slot)) = (value, attrs.get_mut(i)) {
                *slot = self.constant(v)?;
            }
        }
        let mut instances: Vec<Instance> = Vec::new();
        self.push_uses(tags.0, &mut instances)?;
        self.push_uses(tags.1, &mut instances)?;
        Ok((attrs, instances))
    }

    /// The instances of tag uses `uses`, in order, pushed on `out`.
    fn push_uses(&self, uses: &[m::TagUse], out: &mut Vec<Instance>) -> Result<(), EngineError> {
        for u in uses {
            let tag = self.ir.name_id(&u.tag).ok_or_else(|| EngineError::model(format!("unknown tag {}", u.tag)))?;
            let args = u.args.iter().map(|a| self.constant(a)).collect::<Result<_, _>>()?;
            out.push(Instance { tag, args });
        }
        Ok(())
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
        // The attributes the ratings and bases give, and the class's and form's tags: the same
        // for every unit of the class in that form (`STARTS`).
        let key =
            (self.serial(), std::ptr::from_ref(ratings) as usize, class.tags.as_ptr() as usize, form_tags.as_ptr() as usize);
        let (attrs, mut instances) = crate::fx::kept(&STARTS, key, || self.start_of(ratings, (&class.tags, form_tags)))?;
        let weapon = match &l.weapon {
            Some(name) => {
                let item = rules
                    .item(name)
                    .ok_or_else(|| EngineError::unknown("item", name, rules.items.iter().map(|i| i.name.as_str())))?;
                if item.kind != m::ItemKind::Weapon {
                    return Err(EngineError::NotA { item: name.to_string(), kind: "weapon" });
                }
                let ty = item.weapon_type.clone().unwrap_or_default();
                if !wields.iter().any(|w| *w == ty) {
                    return Err(EngineError::CannotWield {
                        class: class.name.to_string(),
                        weapon: name.to_string(),
                        weapon_type: ty.to_string(),
                        wields: wields.clone(),
                    });
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
                    return Err(EngineError::NotA { item: name.to_string(), kind: "accessory" });
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

        // Every tag the unit has: class (and form, `instances` so far), unit tags, then
        // equipment, then statuses.
        for (tag, args) in &l.tags {
            let id =
                ir.name_id(tag).ok_or_else(|| EngineError::unknown("tag", tag, rules.tags.iter().map(|t| t.name.as_str())))?;
            let args = args.iter().map(|a| self.constant(a)).collect::<Result<_, _>>()?;
            instances.push(Instance { tag: id, args });
        }
        for item in weapon.iter().chain(accessory.iter()) {
            let mut own = Vec::new();
            self.push_uses(&item.tags, &mut own)?;
            // A tag with `ignore_item_tags()` may switch the item's other tags off.
            if let Some(keep) = own.iter().position(|i| self.ignores_item_tags(i, &attrs, &instances)) {
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
                    match e {
                        Eff::Grant { tag, args } => {
                            // The unit as it stands, to evaluate the arguments on.
                            let probe = Unit::bare(&attrs, &instances);
                            let ctx = self.static_ctx(&probe, &attrs);
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
            figure_hp: 1,
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
            inputs: Default::default(),
            forms: Default::default(),
        };
        // Effects that always apply, in order; conditional ones and triggers are kept for combat.
        let mut blocks: Vec<(&[V], &[Eff])> = Vec::new();
        for inst in &instances {
            if let Some((_, effects)) = ir.effects.get(&inst.tag) {
                blocks.push((&inst.args, effects));
            }
        }
        for item in weapon.iter().chain(accessory.iter()) {
            if let Some(mods) = self.item_modifiers.get(item.name.as_str()) {
                blocks.push((&[], mods));
            }
        }
        for (args, effects) in blocks {
            for e in effects {
                match e {
                    Eff::Modify { role: Role::Holder, attr, op, value } => {
                        let v = self.static_ctx(&unit, &unit.attrs).eval(value, args, &mut []);
                        if let Some(slot) = target_attr(*attr, args).and_then(|i| unit.attrs.get_mut(i)) {
                            *slot = apply(ir, *slot, *op, v);
                        }
                    }
                    Eff::When { condition, then } => unit.whens.push((args.to_vec(), condition.clone(), then.clone())),
                    Eff::On { event, then } => unit.triggers.push((args.to_vec(), *event, then.clone())),
                    // The standing verbs (`oc_model::conformance::VERBS`, context `Always`).
                    Eff::Command { verb, args: cargs } => match verb {
                        m::Verb::MustAttackWeakest => unit.must_attack_weakest = true,
                        m::Verb::Restrict => {
                            let ctx = self.static_ctx(&unit, &unit.attrs);
                            if let Some(V::Name(t)) = cargs.first().map(|a| ctx.eval(a, args, &mut [])) {
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
                        | m::Verb::Clear
                        | m::Verb::Reactivate
                        | m::Verb::Relocate
                        | m::Verb::Flee
                        | m::Verb::Open
                        | m::Verb::TakeChest
                        | m::Verb::Raze
                        | m::Verb::Seize
                        | m::Verb::Escape
                        | m::Verb::Reveal
                        | m::Verb::Transform
                        | m::Verb::Shift
                        | m::Verb::Debuff
                        | m::Verb::Gain
                        | m::Verb::Attack
                        | m::Verb::Injure
                        | m::Verb::BreakWeapon
                        | m::Verb::StrikeFriend
                        | m::Verb::Disengage
                        | m::Verb::Hide
                        | m::Verb::Search
                        | m::Verb::Divide
                        | m::Verb::Join => {}
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
        for (name, amount) in l.resources.iter().chain(&l.placed) {
            if let Some(slot) = ir.attr_id(name).and_then(|a| unit.attrs.get_mut(a as usize)) {
                *slot = V::Int(*amount);
            }
        }
        // A unit of several figures has each figure's hit points ("Units of one or more figures").
        unit.figure_hp = unit.attrs.get(ir.hp_attr as usize).map_or(0, |v| v.int());
        unit.max_hp = unit.figure_hp.saturating_mul(i64::from(l.figures.max(1)));
        if let Some(slot) = unit.attrs.get_mut(ir.hp_attr as usize).filter(|_| l.figures > 1) {
            *slot = V::Int(unit.max_hp);
        }
        self.hp_and_reach(&mut unit, l.hp);
        Ok(unit)
    }

    /// The last of building a unit: its hit points where the loadout names them, then its
    /// weapon's reach, which may read them and its figures (worked out on them).
    fn hp_and_reach(&self, unit: &mut Unit, hp: Option<i64>) {
        if let Some(hp) = hp {
            if let Some(slot) = unit.attrs.get_mut(self.ir.hp_attr as usize) {
                *slot = V::Int(hp.clamp(1, unit.max_hp.max(1)));
            }
        }
        let reach = unit.weapon.as_deref().and_then(|w| self.item_ranges.get(w)).map(|(min, max)| {
            let ctx = self.static_ctx(unit, &unit.attrs);
            (ctx.eval(min, &[], &mut []).int(), ctx.eval(max, &[], &mut []).int())
        });
        if let Some((lo, hi)) = reach {
            unit.min_range = lo;
            unit.max_range = hi;
        }
    }

    /// The unit of a loadout at `hp` hit points, from `full`, the unit of the same loadout naming
    /// none: [`Engine::build_unit`] writes a loadout's hit points last (nothing before reads
    /// them), then its weapon's reach, so this is its unit. Where the reach comes out as
    /// `full`'s, the two units are the same but for their hit points, which no formula a unit
    /// works out alone or stages reads (`Ir::reads_of`: they are the exchange's state): the
    /// hurt unit holds `full`'s (`Unit::solo`, `Unit::staged`, `Unit::inputs`), each worked
    /// out once for every amount of hit points.
    fn hurt(&self, full: &Unit, hp: i64) -> Unit {
        let mut unit = full.clone();
        unit.effective = Default::default();
        self.hp_and_reach(&mut unit, Some(hp));
        if (unit.min_range, unit.max_range) == (full.min_range, full.max_range) {
            unit.solo = full.solo.shared();
            unit.staged = full.staged.shared();
            unit.inputs = full.inputs.shared();
        }
        unit
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
            moved: [false; 2],
            cover: 0,
            solo: false,
            reads: None,
        }
    }

    /// Whether tag `inst` switches its item's other tags off, on the unit as it stands (its
    /// attributes and tags so far: a stand-in built only where a condition is read).
    fn ignores_item_tags(&self, inst: &Instance, attrs: &[V], has: &[Instance]) -> bool {
        let Some((_, effects)) = self.ir.effects.get(&inst.tag) else { return false };
        let mut probe: Option<Unit> = None;
        effects.iter().any(|e| match e {
            Eff::Command { verb: m::Verb::IgnoreItemTags, .. } => true,
            Eff::When { condition, then } => {
                then.iter().any(|t| matches!(t, Eff::Command { verb: m::Verb::IgnoreItemTags, .. })) && {
                    let unit = probe.get_or_insert_with(|| Unit::bare(attrs, has));
                    self.static_ctx(unit, &unit.attrs).eval(condition, &inst.args, &mut []).bool()
                }
            }
            _ => false,
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]
    use crate::ir::{Ir, Reads};
    use crate::unit::Unit;
    use crate::{Engine, Loadout};

    /// Asks `unit` each formula as an exchange asks it of a unit (`strike::Ctx`): one without
    /// dice reading one unit alone, worked out by that unit; one reading both, staged by the
    /// striker; and a strike's inputs. What a unit sharing its slots then finds there.
    fn ask(unit: &Unit, ir: &Ir) {
        for (i, f) in ir.formulas.iter().enumerate().filter(|(_, f)| f.dice == 0) {
            let _ = if f.reads == Reads::Both { unit.staged(ir, i).map(|_| ()) } else { unit.solo_value(ir, i).map(|_| ()) };
        }
        let _ = unit.inputs(ir);
    }

    /// `made` works out what `fresh` does, asked as [`ask`] asks: each formula alone or staged,
    /// and a strike's inputs.
    fn worked_out_alike(made: &Unit, fresh: &Unit, ir: &Ir, at: &str) {
        for (i, f) in ir.formulas.iter().enumerate().filter(|(_, f)| f.dice == 0) {
            if f.reads != Reads::Both {
                assert_eq!(made.solo_value(ir, i), fresh.solo_value(ir, i), "{at}: formula {i} alone");
                continue;
            }
            assert_eq!(format!("{:?}", made.staged(ir, i)), format!("{:?}", fresh.staged(ir, i)), "{at}: formula {i} staged");
        }
        assert_eq!(format!("{:?}", made.inputs(ir)), format!("{:?}", fresh.inputs(ir)), "{at}: inputs");
    }

    /// Every built-in ruleset's classes with each weapon (units of several figures too), hurt
    /// to several hit points: the unit `Engine::unit` makes from the unit at full hit points
    /// (`Engine::hurt`) is the unit built afresh, and what it holds of the full unit's (each
    /// formula worked out alone or staged, and a strike's inputs, asked first of the full unit)
    /// is what the fresh unit works out for itself. And some hurt units do hold the full unit's.
    #[test]
    fn a_hurt_unit_is_the_unit_built_at_its_hit_points() {
        let mut shared = 0;
        for (name, index) in oc_compiler::stdlib::RULESETS {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let e = Engine::new(rules).expect("runs");
            let ir = &e.ir;
            let mut loadouts: Vec<Loadout> = crate::testing::matchups(&e).into_iter().map(|m| m.1).collect();
            loadouts.dedup();
            for (k, l) in loadouts.iter().enumerate() {
                for figures in if k % 4 == 0 { &[1, 3][..] } else { &[1][..] } {
                    let full = Loadout { figures: *figures, ..l.clone() };
                    let whole = e.unit(&full, &[]).expect("a unit");
                    // Every formula asked of the full unit first: a hurt unit holding its
                    // slots reads what it found.
                    ask(&whole, ir);
                    for hp in [1, 2, 5, 99] {
                        let hurt = Loadout { hp: Some(hp), ..full.clone() };
                        let made = e.unit(&hurt, &[]).expect("a unit");
                        let fresh = e.build_unit(&hurt, &[]).expect("a unit");
                        let at = format!("{name}: {} {:?} x{figures} at {hp}", l.class, l.weapon);
                        assert_eq!(made.attrs, fresh.attrs, "{at}");
                        assert_eq!((made.min_range, made.max_range), (fresh.min_range, fresh.max_range), "{at}");
                        assert_eq!((made.max_hp, made.figure_hp), (fresh.max_hp, fresh.figure_hp), "{at}");
                        assert_eq!(format!("{:?}", made.has), format!("{:?}", fresh.has), "{at}");
                        assert_eq!(made.statuses, fresh.statuses, "{at}");
                        worked_out_alike(&made, &fresh, ir, &at);
                        shared += usize::from(std::sync::Arc::ptr_eq(&made.staged.0, &whole.staged.0));
                    }
                }
            }
        }
        assert!(shared > 100, "hurt units holding the full unit's staged formulas: {shared}");
    }

    /// A weapon whose reach reads its bearer's hit points (none built in does): a hurt unit's
    /// reach is worked out at its own hit points, as a unit built afresh has it, it works out
    /// what the fresh unit does, and where its reach differs from the full unit's, it holds
    /// nothing of the full unit's (a formula reading the reach is worked out again).
    #[test]
    fn a_reach_that_reads_hit_points_is_worked_out_at_them() {
        let map = "name = \"Field\"\nwidth = 4\nheight = 1\nrows = [\"....\"]\n\
                   [[regions]]\nname = \"a\"\nkind = \"deployment\"\nside = \"attacker\"\nrect = [0, 0, 1, 1]\n\
                   [[regions]]\nname = \"d\"\nkind = \"deployment\"\nside = \"defender\"\nrect = [3, 0, 1, 1]\n";
        let source = "import \"std:ratings\"\n\
            weapon Waning \"Waning\" { doc \"A tome whose reach wanes with its bearer.\" type Reason might 0 weight 0 range 1..self.hp / 5 cost 100 }\n\
            scenario Field {\n    map \"field.map.toml\"\n    rounds 6 then defender\n\
                attacker { zone \"a\" war_chest 99999 units 1..1 win rout all }\n\
                defender { zone \"d\" war_chest 99999 units 1..1 win rout all }\n}\n\
            army A for Field attacker { unit Lute: Mage { items Waning } }\n\
            army D for Field defender { unit Bors: Soldier { items IronLance } }\n";
        let (e, _) = crate::testing::field(source, map);
        let ir = &e.ir;
        let full = Loadout::new("Mage", Some("Waning"));
        let whole = e.unit(&full, &[]).expect("a unit");
        ask(&whole, ir);
        let (mut apart, mut alike) = (0, 0);
        for hp in 1..=whole.max_hp {
            let hurt = Loadout { hp: Some(hp), ..full.clone() };
            let made = e.unit(&hurt, &[]).expect("a unit");
            let fresh = e.build_unit(&hurt, &[]).expect("a unit");
            assert_eq!((made.min_range, made.max_range), (1, hp / 5), "at {hp}");
            assert_eq!((made.min_range, made.max_range), (fresh.min_range, fresh.max_range), "at {hp}");
            worked_out_alike(&made, &fresh, ir, &format!("at {hp}"));
            let holds = std::sync::Arc::ptr_eq(&made.staged.0, &whole.staged.0);
            assert_eq!(holds, made.max_range == whole.max_range, "at {hp}");
            if holds {
                alike += 1;
            } else {
                apart += 1;
            }
        }
        assert!(apart > 0 && alike > 0, "hurt units apart {apart}, alike {alike}");
    }
}
