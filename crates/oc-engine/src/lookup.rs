//! The rules looked up by name and by index: classes, items, tags, statuses, terrain and the
//! movement types' costs over it, a class's weapons and their reach. Names are found through the
//! engine's tables of them (`Names`, read once as the engine is made), not by searching the rules.

use oc_model as m;

use super::{text_key, Atom, Engine, Loadout, SituationNames};

/// By movement type (its atom), what entering each terrain costs it, by terrain index (`None`
/// where it cannot).
pub(super) type MovementCosts = Vec<(Atom, Vec<Option<i64>>)>;

/// By movement type, what entering each of `rules`' terrains costs it (`None` where it cannot: the
/// Terrain Table's columns), every type the terrains or the rules name, once; and the type of a
/// unit whose attributes name none, the rules' first (`Engine::default_movement`).
pub(super) fn movement_table(rules: &m::Rules) -> (MovementCosts, Atom) {
    let mut table = MovementCosts::new();
    for kind in rules.terrains.iter().flat_map(|t| t.costs.keys()).chain(&rules.movements) {
        let atom = Atom::new(kind);
        if !table.iter().any(|(k, _)| *k == atom) {
            let costs = rules.terrains.iter().map(|t| t.costs.get(kind).copied().flatten().map(i64::from)).collect();
            table.push((atom, costs));
        }
    }
    (table, Atom::new(rules.movements.first().map_or("", String::as_str)))
}

impl Engine {
    /// The class named `name` (`Rules::class`, by an index).
    pub fn class(&self, name: &str) -> Option<&m::Class> {
        self.class_index(name).and_then(|k| self.rules.classes.get(k))
    }

    /// Where the class named `name` is in `rules.classes` (what `Rules::class` finds).
    pub(crate) fn class_index(&self, name: &str) -> Option<usize> {
        if let Some(k) = self.names.class_atoms.get(&text_key(name)) {
            return Some(*k);
        }
        self.names.classes.get(name).copied().filter(|k| self.rules.classes.get(*k).is_some_and(|c| c.name == name))
    }

    /// The item named `name` (`Rules::item`, by an index).
    pub fn item(&self, name: &str) -> Option<&m::Item> {
        self.item_index(name).and_then(|k| self.rules.items.get(k))
    }

    /// The attribute `attack_form` (several weapons striking in one exchange), where the ruleset
    /// has it.
    pub(crate) fn attack_form(&self) -> Option<u16> {
        self.attack_form
    }

    /// The weapons a unit of `class` carries into an exchange as its other attack forms, as a
    /// battle's unit carries its items (seed 003's "The wyvern has four attacks"): its kit's
    /// weapons where the ruleset has attack forms (the attribute `attack_form`), else none.
    pub fn kit_forms(&self, class: &str) -> Vec<crate::Atom> {
        if self.attack_form.is_none() {
            return Vec::new();
        }
        self.kit_weapons(class).map(|i| crate::Atom::new(i)).collect()
    }

    /// The weapons of `class`'s kit, in its order.
    fn kit_weapons<'s>(&'s self, class: &str) -> impl Iterator<Item = &'s String> {
        let kit = self.class(class).map_or(&[][..], |c| c.kit.as_slice());
        kit.iter().filter(|i| self.item(i).is_some_and(|i| i.kind == m::ItemKind::Weapon))
    }

    /// The attributes `movement`, `movement_type` and `can_move`, where the ruleset has them
    /// (what `Battle::mobility` reads of every unit it moves).
    pub(crate) fn mobility_attrs(&self) -> [Option<u16>; 3] {
        self.mobility_attrs
    }

    /// The advanced rules' names as atoms.
    pub(crate) fn situation_names(&self) -> &SituationNames {
        &self.names.situation
    }

    /// Where the item named `name` is in `rules.items` (what `Rules::item` finds, by an index).
    pub(crate) fn item_index(&self, name: &str) -> Option<usize> {
        if let Some(k) = self.names.item_atoms.get(&text_key(name)) {
            return Some(*k);
        }
        self.names.items.get(name).copied().filter(|k| self.rules.items.get(*k).is_some_and(|i| i.name == name))
    }

    /// The name of the terrain at `index` in `rules.terrains`, as an atom.
    pub fn terrain_atom(&self, index: usize) -> Option<Atom> {
        self.names.terrains.get(index).copied()
    }

    /// The terrain named `name`'s name as an atom (`None` for a name the rules do not define).
    pub fn terrain_named(&self, name: &str) -> Option<Atom> {
        self.terrain_index(name).and_then(|ix| self.terrain_atom(ix))
    }

    /// The index of the resource whose interned name is `name` (a `Resource` argument).
    pub(crate) fn resource_slot(&self, name: u32) -> Option<usize> {
        let name = self.ir.name(name);
        self.rules.ruleset.resources.iter().position(|r| r.name == name)
    }

    /// The names of the ruleset's resources, in their order, as atoms.
    pub fn resource_atoms(&self) -> &[Atom] {
        &self.names.resources
    }

    /// The tag named `name` (`Rules::tag`, by an index).
    pub fn tag(&self, name: &str) -> Option<&m::Tag> {
        self.names.tags.get(name).and_then(|k| self.rules.tags.get(*k)).filter(|c| c.name == name)
    }

    /// Where the status named `name` is in `rules.statuses` (what `Rules::status` finds, by an
    /// index).
    pub fn status_index(&self, name: &str) -> Option<usize> {
        self.names.statuses.get(name).copied().filter(|k| self.rules.statuses.get(*k).is_some_and(|s| s.name == name))
    }

    /// Whether the interned name `id` is a tag's.
    pub(crate) fn is_tag(&self, id: u32) -> bool {
        match self.names.tag_ids.get(id as usize) {
            Some(is) => *is,
            None => self.names.tags.contains_key(self.ir.name(id)),
        }
    }

    /// The index in `rules.terrains` of the terrain named `name`.
    pub fn terrain_index(&self, name: &str) -> Option<usize> {
        self.terrain_ids.get(name).copied()
    }

    /// Whether some movement type may enter the terrain with index `terrain`.
    pub(crate) fn open_terrain(&self, terrain: usize) -> bool {
        self.open_terrains.get(terrain).copied().unwrap_or(false)
    }

    /// What entering each terrain (by index) costs movement type `kind`, `None` where it cannot;
    /// empty for a type no terrain lists (it can enter none).
    pub(crate) fn movement_costs(&self, kind: Atom) -> &[Option<i64>] {
        self.movement_costs.iter().find(|(k, _)| *k == kind).map_or(&[], |(_, costs)| costs.as_slice())
    }

    /// [`Engine::movement_costs`] of the type named `kind`.
    pub(crate) fn movement_costs_named(&self, kind: &str) -> &[Option<i64>] {
        self.movement_costs.iter().find(|(k, _)| k.as_str() == kind).map_or(&[], |(_, costs)| costs.as_slice())
    }

    /// The movement type of a unit whose attributes name none (the rules' first).
    pub(crate) fn default_movement(&self) -> Atom {
        self.default_movement
    }

    /// The weapon a unit of `class` fights with unless told otherwise: the first weapon of its
    /// kit it may fight with (staves aside), else the first it may fight with; a class of staves
    /// alone holds the first weapon of its kit, else the first it may wield.
    pub fn kit_weapon(&self, class: &str) -> Option<String> {
        self.class(class)?;
        let fighting = self.fighting_weapons(class);
        self.kit_weapons(class)
            .find(|k| fighting.iter().any(|w| w.name.as_str() == k.as_str()))
            .cloned()
            .or_else(|| fighting.first().map(|w| w.name.to_string()))
            .or_else(|| self.kit_weapons(class).next().cloned())
            .or_else(|| self.weapons_for(class).first().map(|w| w.name.to_string()))
    }

    /// Whether a unit of loadout `l` may attack at all: the attribute `can_attack` where the rules
    /// have it (a status may forbid attacks), as the battle reads it before an attack.
    pub fn may_attack(&self, l: &crate::Loadout) -> bool {
        let Some(attr) = self.ir.attr_id("can_attack") else { return true };
        self.unit(l, &[]).ok().and_then(|u| u.attrs.get(attr as usize).map(|v| v.bool())).unwrap_or(true)
    }

    /// Whether a weapon is a staff (its type says so): staves heal or lay statuses on the unit
    /// they target, and never strike or counter.
    pub fn is_staff(&self, item: &m::Item) -> bool {
        item.weapon_type.as_ref().is_some_and(|t| self.rules.weapon_types.iter().any(|w| &w.name == t && w.staff))
    }

    /// The weapons `class` may fight with: those it may wield ([`Engine::weapons_for`]), staves
    /// aside.
    pub fn fighting_weapons(&self, class: &str) -> Vec<&m::Item> {
        self.weapons_for(class).into_iter().filter(|w| !self.is_staff(w)).collect()
    }

    /// The weapons a class can wield, in the order the rules list them.
    pub fn weapons_for(&self, class: &str) -> Vec<&m::Item> {
        let Some(c) = self.class(class) else { return Vec::new() };
        let mut wields: Vec<&m::Name> = c.wields.iter().collect();
        if let Some(f) = &c.forms {
            wields.extend(f.transformed.wields.iter());
        }
        self.rules
            .items
            .iter()
            .filter(|i| i.kind == m::ItemKind::Weapon && i.weapon_type.as_ref().is_some_and(|t| wields.contains(&t)))
            // Items tagged with a class argument belong to that class only.
            .filter(|i| i.exclusive_to().all(|name| name == class))
            .collect()
    }

    /// The nearest distance at which a weapon reaches (for a class wielding it).
    pub fn reach(&self, class: &str, weapon: &str) -> Option<(i64, i64)> {
        let u = self.unit(&Loadout::new(class, Some(weapon)), &[]).ok()?;
        Some((u.min_range, u.max_range))
    }
}
