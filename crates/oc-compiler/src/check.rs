//! Name resolution, type checking and lowering of one compilation's items into the model.

use std::collections::{BTreeMap, HashMap, HashSet};

use oc_diag::{article, did_you_mean, Diagnostic, Span, Spanned};
use oc_model as m;
use oc_model::Type;
use oc_syntax::ast;

use crate::codes::*;
use crate::context::Timed;
use crate::env::*;
use crate::expr::Scope;
use crate::held::{duplicate, Definition, Held, Index};
use oc_model::conformance::{Context, Place};

mod roster;
mod ruleset;
mod tags;
mod unread;

/// Checks and lowers one compilation: `items` are every item but the classes and items, which
/// come in source order in `class_defs` and `item_defs`. Last, the `misread` pieces (see there).
pub(crate) fn check<'a>(
    items: &[&'a ast::Item],
    class_defs: Vec<Held<'a, ast::ClassDef>>,
    item_defs: Vec<Held<'a, ast::ItemDef>>,
) -> (m::Rules, Vec<Diagnostic>, Vec<(oc_diag::FileId, usize)>) {
    let mut c = Checker {
        syms: Symbols {
            ruleset: None,
            scales: Vec::new(),
            stats: Vec::new(),
            bases: Vec::new(),
            tables: HashMap::new(),
            dice: HashMap::new(),
            movements: Defs::default(),
            weapon_types: Defs::default(),
            terrains: Defs::default(),
            tags: Defs::default(),
            classes: Index::default(),
            items: Index::default(),
            inventory: 3,
            class_ranges: Vec::new(),
            resources: Vec::new(),
        },
        sink: Sink::default(),
        notes: Notes { item_types: vec![None; item_defs.len()], ..Notes::default() },
        class_defs,
        item_defs,
    };
    c.collect_ruleset(items);
    c.collect(items);
    let ruleset = c.lower_ruleset();
    let triangles = c.triangles(items);
    let terrains = c.lower_terrains();
    let tags = c.lower_tags(items);
    let statuses = c.lower_statuses(items);
    // Items first: a class's kit is checked against them.
    let lowered_items = c.lower_items(&tags);
    let classes = c.lower_classes(&ruleset.basic_tags);
    c.exclusive_kits(&lowered_items);
    c.unwieldable_warnings();
    c.unread_warnings(items, &ruleset);
    let rules = m::Rules {
        format_version: m::FORMAT_VERSION,
        ruleset,
        movements: c.syms.movements.order.clone(),
        weapon_types: c
            .syms
            .weapon_types
            .order
            .iter()
            .filter_map(|n| c.syms.weapon_types.get(n))
            .map(|w| m::WeaponType { name: w.name.value.to_string(), magic: w.magic, staff: w.staff })
            .collect(),
        triangles,
        terrains,
        tags,
        statuses,
        classes,
        items: lowered_items,
        scenarios: Vec::new(),
        armies: Vec::new(),
    };
    (rules, c.sink.diags, c.notes.misread)
}

fn thing_kind(word: &str) -> Option<m::ThingKind> {
    Some(match word {
        "class" => m::ThingKind::Class,
        "weapon" => m::ThingKind::Weapon,
        "accessory" => m::ThingKind::Accessory,
        "consumable" => m::ThingKind::Consumable,
        "unit" => m::ThingKind::Unit,
        "status" => m::ThingKind::Status,
        _ => return None,
    })
}

fn kind_word(kind: m::ThingKind) -> &'static str {
    match kind {
        m::ThingKind::Class => "class",
        m::ThingKind::Weapon => "weapon",
        m::ThingKind::Accessory => "accessory",
        m::ThingKind::Consumable => "consumable",
        m::ThingKind::Unit => "unit",
        m::ThingKind::Status => "status",
    }
}

const BUILTIN_TYPES: &[&str] =
    &["Int", "Bool", "Tag", "Class", "WeaponType", "Status", "Terrain", "Movement", "Stat", "StatMod", "Dice"];

impl<'a> Checker<'a> {
    pub fn resolve_type(&mut self, ident: &ast::Ident) -> Option<Type> {
        let t = match ident.value.as_str() {
            "Int" => Type::Int,
            "Bool" => Type::Bool,
            "Tag" => Type::Tag,
            "Class" => Type::Class,
            "WeaponType" => Type::WeaponType,
            "Status" => Type::Status,
            "Terrain" => Type::Terrain,
            "Movement" => Type::Movement,
            "Stat" => Type::Stat,
            "StatMod" => Type::StatMod,
            "Dice" => Type::Dice,
            other if self.scale(other).is_some() => Type::Scale(other.to_string()),
            other => {
                let candidates: Vec<&str> =
                    BUILTIN_TYPES.iter().copied().chain(self.syms.scales.iter().map(|s| s.name.as_str())).collect();
                let help = match did_you_mean(other, candidates.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => format!("types are {}", candidates.join(", ")),
                };
                self.error(Diagnostic::error(UNKNOWN_TYPE, ident.span, format!("unknown type `{other}`")).with_help(help));
                return None;
            }
        };
        Some(t)
    }

    fn define<T>(diags: &mut Vec<Diagnostic>, defs: &mut Defs<T>, what: &str, name: &ast::Ident, value: T) {
        if let Some((first, _)) = defs.map.get(name.value.as_str()) {
            diags.push(duplicate(what, name, *first));
            return;
        }
        defs.order.push(name.value.to_string());
        defs.map.insert(name.value.clone(), (name.span, value));
    }

    // ------------------------------------------------------------------ ruleset

    pub fn mismatch(&mut self, span: Span, want: &Type, got: &Type, help: &str) {
        // Dice where a number is wanted: they were not rolled.
        let help = match (want, got) {
            (Type::Int, Type::Dice) => {
                format!("{help}; dice are a number once rolled: `roll(2d6)`, `roll(attacker.damage_dice)`")
            }
            _ => help.to_string(),
        };
        self.error(
            Diagnostic::error(TYPE_MISMATCH, span, format!("expected {}, found {}", type_name(want), type_name(got)))
                .with_label(format!("this is {}", type_name(got)))
                .with_help(help),
        );
    }

    // ------------------------------------------------------------------ collection

    fn collect(&mut self, items: &[&'a ast::Item]) {
        for item in items {
            match item {
                ast::Item::Movement(names) => {
                    for n in names {
                        Self::define(&mut self.sink.diags, &mut self.syms.movements, "movement type", n, ());
                    }
                }
                ast::Item::WeaponType(w) => {
                    Self::define(&mut self.sink.diags, &mut self.syms.weapon_types, "weapon type", &w.name, w)
                }
                ast::Item::Terrain(t) => Self::define(&mut self.sink.diags, &mut self.syms.terrains, "terrain", &t.name, t),
                _ => {}
            }
        }
        self.syms.classes = Index::of(&mut self.sink.diags, &self.class_defs, "class");
        self.syms.items = Index::of(&mut self.sink.diags, &self.item_defs, "item");
        self.parse_repeats();
        for item in items {
            match item {
                ast::Item::Tag(t) => {
                    let mut params = Vec::new();
                    let mut seen = HashSet::new();
                    for p in &t.params {
                        if !seen.insert(p.name.value.clone()) {
                            self.error(
                                Diagnostic::error(
                                    DUPLICATE,
                                    p.name.span,
                                    format!("the parameter `{}` is declared twice", p.name.value),
                                )
                                .with_help("rename one of the parameters"),
                            );
                        }
                        let ty = self.resolve_type(&p.ty);
                        // An unknown type was reported; keep the parameter (as Int) so uses don't cascade.
                        params.push((p.name.value.to_string(), ty.unwrap_or(Type::Int)));
                    }
                    let mut kinds = Vec::new();
                    for k in &t.kinds {
                        if let Some(kind) = thing_kind(&k.value) {
                            kinds.push(kind);
                        }
                    }
                    let sig = TagSig { params, stacks: t.stacks, kinds, is_status: false };
                    Self::define(&mut self.sink.diags, &mut self.syms.tags, "tag or status", &t.name, std::rc::Rc::new(sig));
                }
                ast::Item::Status(s) => {
                    let sig = TagSig { params: vec![], stacks: false, kinds: vec![], is_status: true };
                    Self::define(&mut self.sink.diags, &mut self.syms.tags, "tag or status", &s.name, std::rc::Rc::new(sig));
                }
                _ => {}
            }
        }
        // Which tags make a class a shifter: those whose effects use `shift(...)`, or grant such a tag.
        let mut shifters: HashSet<String> = HashSet::new();
        let mut grants: Vec<(String, Vec<String>)> = Vec::new();
        for item in items {
            if let ast::Item::Tag(t) = item {
                let mut granted = Vec::new();
                if uses_shift(&t.body, &mut granted) {
                    shifters.insert(t.name.value.to_string());
                }
                grants.push((t.name.value.to_string(), granted));
            }
        }
        loop {
            let before = shifters.len();
            for (tag, granted) in &grants {
                if granted.iter().any(|g| shifters.contains(g)) {
                    shifters.insert(tag.clone());
                }
            }
            if shifters.len() == before {
                break;
            }
        }
        self.notes.shifter_tags = shifters;
    }

    // ------------------------------------------------------------------ world

    fn triangles(&mut self, items: &[&'a ast::Item]) -> Vec<Vec<String>> {
        let mut out = Vec::new();
        let mut used: HashMap<String, Span> = HashMap::new();
        for item in items {
            let ast::Item::Triangle(t) = item else { continue };
            for chain in &t.chains {
                let (Some(first), Some(last)) = (chain.first(), chain.last()) else { continue };
                let mut cycle: Vec<String> = Vec::new();
                let mut ok = true;
                for (i, name) in chain.iter().enumerate() {
                    if !self.syms.weapon_types.contains(&name.value) {
                        self.unknown_weapon_type(name);
                        ok = false;
                    }
                    let closing = i + 1 == chain.len() && name.value == first.value;
                    if closing {
                        continue;
                    }
                    if let Some(prev) = used.get(name.value.as_str()) {
                        self.error(
                            Diagnostic::error(TRIANGLE_REPEATED, name.span, format!("`{}` is already in a weapon triangle", name.value))
                                .with_secondary(*prev, "first here")
                                .with_help("each weapon type has one place in one triangle; only the closing repetition of the first type is allowed"),
                        );
                        ok = false;
                        continue;
                    }
                    used.insert(name.value.to_string(), name.span);
                    cycle.push(name.value.to_string());
                }
                if last.value != first.value || chain.len() < 3 {
                    let span = first.span.to(last.span);
                    self.error(
                        Diagnostic::error(TRIANGLE_NOT_CYCLE, span, "this weapon triangle does not close")
                            .with_label(format!("ends at `{}`, not at `{}`", last.value, first.value))
                            .with_help(format!("end the chain with the type it starts with: `... > {}`", first.value)),
                    );
                    ok = false;
                }
                if ok {
                    out.push(cycle);
                }
            }
        }
        out
    }

    pub fn unknown_weapon_type(&mut self, name: &ast::Ident) {
        let help = match did_you_mean(&name.value, self.syms.weapon_types.names()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("weapon types: {}", self.syms.weapon_types.order.join(", ")),
        };
        self.error(
            Diagnostic::error(UNKNOWN_WEAPON_TYPE, name.span, format!("unknown weapon type `{}`", name.value)).with_help(help),
        );
    }

    pub fn unknown_in<T>(
        &mut self,
        code: &'static str,
        what: &str,
        name: &Spanned<impl AsRef<str>>,
        defs_names: Vec<String>,
        _marker: Option<&T>,
    ) {
        let written = name.value.as_ref();
        let help = match did_you_mean(written, defs_names.iter().map(String::as_str)) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("define the {what} or import the file that defines it"),
        };
        self.error(Diagnostic::error(code, name.span, format!("unknown {what} `{written}`")).with_help(help));
    }

    fn lower_terrains(&mut self) -> Vec<m::Terrain> {
        let names = self.syms.terrains.order.clone();
        let mut out = Vec::new();
        for name in names {
            let Some(t) = self.syms.terrains.get(&name).copied() else { continue };
            self.at_most_one(&t.symbols, "symbol");
            self.at_most_one(&t.defense, "defense");
            self.at_most_one(&t.hp, "hp");
            self.at_most_one(&t.elevation, "elevation");
            self.at_most_one(&t.becomes, "becomes");
            let mut costs: BTreeMap<String, Option<u32>> = BTreeMap::new();
            let mut spans: HashMap<String, Span> = HashMap::new();
            let mut unknown_movement = false;
            for entry in &t.costs {
                let mv = &entry.movement;
                if !self.syms.movements.contains(&mv.value) {
                    let names = self.syms.movements.order.clone();
                    self.unknown_in::<()>(UNKNOWN_MOVEMENT, "movement type", mv, names, None);
                    unknown_movement = true;
                    continue;
                }
                if let Some(first) = spans.get(mv.value.as_str()) {
                    self.error(
                        Diagnostic::error(DUPLICATE_FIELD, mv.span, format!("the cost for `{}` is given twice", mv.value))
                            .with_secondary(*first, "first here")
                            .with_help("keep one cost per movement type"),
                    );
                    continue;
                }
                spans.insert(mv.value.to_string(), mv.span);
                let cost = match entry.cost.value {
                    None => None,
                    Some(n) if (1..=99).contains(&n) => Some(n as u32),
                    Some(n) => {
                        self.error(
                            Diagnostic::error(TERRAIN_COST, entry.cost.span, format!("a movement cost of {n}"))
                                .with_help("costs are 1 or more; write `-` for impassable"),
                        );
                        None
                    }
                };
                costs.insert(mv.value.to_string(), cost);
            }
            if let Some(imp) = t.impassable {
                if !t.costs.is_empty() {
                    self.error(
                        Diagnostic::error(TERRAIN_COST, imp, format!("`{}` is impassable but also lists costs", t.name.value))
                            .with_help("remove `impassable` or the cost table"),
                    );
                }
                for mv in &self.syms.movements.order {
                    costs.insert(mv.clone(), None);
                }
            } else if t.costs.is_empty() {
                // The seed: tiles not on the Terrain Table cost 1 to enter.
                for mv in &self.syms.movements.order {
                    costs.insert(mv.clone(), Some(1));
                }
            } else {
                let missing: Vec<String> =
                    self.syms.movements.order.iter().filter(|mv| !spans.contains_key(*mv)).cloned().collect();
                // An unknown movement type was most likely meant as a missing one: say it once.
                if !missing.is_empty() && !unknown_movement {
                    self.error(
                        Diagnostic::error(
                            TERRAIN_COST,
                            t.name.span,
                            format!("`{}` gives no cost for {}", t.name.value, missing.join(", ")),
                        )
                        .with_help(format!(
                            "add `{} N` (or `-` for impassable) to its cost table",
                            missing.first().cloned().unwrap_or_default()
                        )),
                    );
                }
            }
            let hp = t.hp.first().and_then(|h| {
                if h.value < 1 || h.value > 9999 {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, h.span, format!("destructible terrain with {} HP", h.value))
                            .with_help("give it 1 to 9999 HP (Walls and Snags have 30)"),
                    );
                    None
                } else {
                    Some(h.value as u32)
                }
            });
            let becomes = t.becomes.first().and_then(|b| {
                if self.syms.terrains.contains(&b.value) {
                    Some(b.value.to_string())
                } else {
                    let names = self.syms.terrains.order.clone();
                    self.unknown_in::<()>(UNKNOWN_TERRAIN, "terrain", b, names, None);
                    None
                }
            });
            if (!t.hp.is_empty() || !t.opened_by.is_empty()) && t.becomes.is_empty() {
                let what = if t.hp.is_empty() { "can be opened" } else { "can be destroyed" };
                self.error(
                    Diagnostic::error(
                        TERRAIN_DESTRUCTIBLE,
                        t.name.span,
                        format!("`{}` {what} but does not say what it becomes", t.name.value),
                    )
                    .with_help("add `becomes Floor` (or the terrain it turns into)"),
                );
            }
            // The battle opens a door; it strikes down only what no key opens.
            if let (Some(hp), Some(key)) = (t.hp.first(), t.opened_by.first()) {
                self.error(
                    Diagnostic::error(
                        TERRAIN_DESTRUCTIBLE,
                        hp.span,
                        format!("`{}` is opened by `{}` and also has hit points", t.name.value, key.value),
                    )
                    .with_secondary(key.span, "opened here")
                    .with_help("a door is opened, a wall struck down: keep `opened_by` or `hp`, or make two terrains"),
                );
            }
            let mut opened_by = Vec::new();
            for o in &t.opened_by {
                if self.syms.tags.contains(&o.value) || self.syms.items.contains(&o.value) {
                    opened_by.push(o.value.to_string());
                } else {
                    let names: Vec<String> =
                        self.syms.tags.order.iter().cloned().chain(self.syms.items.order.iter().map(|n| n.to_string())).collect();
                    self.unknown_in::<()>(UNKNOWN_ITEM, "tag or item", o, names, None);
                }
            }
            // One heal a terrain: a second replaced the first.
            let heals: Vec<Span> = t.heal.iter().map(|h| h.amount.span.to(h.event.span)).collect();
            self.given_once(&heals, "heal", "a terrain heals once, at one event: keep one `heal`");
            let mut heal = None;
            for h in &t.heal {
                self.check_timed_event(&h.event, Timed::TerrainHeal);
                if h.amount.value < 0 {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, h.amount.span, "terrain cannot heal a negative amount")
                            .with_help("heal 0 or more"),
                    );
                }
                heal = m::Event::from_name(&h.event.value).map(|event| m::TerrainHeal { amount: h.amount.value, event });
            }
            out.push(m::Terrain {
                name: t.name.value.to_string(),
                title: t.title.clone(),
                doc: t.doc.clone(),
                symbol: t.symbols.first().map(|s| s.value.clone()),
                defense: t.defense.first().map_or(0, |d| d.value),
                costs,
                heal,
                hp,
                becomes,
                opened_by,
                blocks_sight: t.blocks_sight.is_some(),
                elevation: t.elevation.first().map_or(0, |e| e.value),
            });
        }
        out
    }

    /// A field written at `spans` (in order) may be given once: each after the first is
    /// reported (it replaced the first), with `help`.
    fn given_once(&mut self, spans: &[Span], field: &str, help: &str) {
        if let [first, rest @ ..] = spans {
            for extra in rest {
                self.error(
                    Diagnostic::error(DUPLICATE_FIELD, *extra, format!("`{field}` is given twice"))
                        .with_secondary(*first, "first here")
                        .with_help(help),
                );
            }
        }
    }

    fn at_most_one<T>(&mut self, values: &[Spanned<T>], field: &str) {
        let spans: Vec<Span> = values.iter().map(|v| v.span).collect();
        self.given_once(&spans, field, &format!("keep one `{field}`"));
    }

    // ------------------------------------------------------------------ tags and statuses
}

fn literal_text(l: &ast::Literal) -> String {
    match l {
        ast::Literal::Int(n) => n.to_string(),
        ast::Literal::Bool(b) => b.to_string(),
        ast::Literal::Name(n) => n.to_string(),
        ast::Literal::Dice(..) => "dice".to_string(),
    }
}

/// Whether the statements use the `shift` primitive; collects granted tags on the way.
fn uses_shift(stmts: &[ast::Stmt], granted: &mut Vec<String>) -> bool {
    let mut found = false;
    for s in stmts {
        match s {
            ast::Stmt::Command { verb, .. } if verb.value == "shift" => found = true,
            ast::Stmt::When { body, .. } | ast::Stmt::On { body, .. } => found |= uses_shift(body, granted),
            ast::Stmt::Action(a) => found |= uses_shift(&a.body, granted),
            ast::Stmt::Grant { tag, .. } => granted.push(tag.name.value.to_string()),
            _ => {}
        }
    }
    found
}

/// Held definitions (`held.rs`) as the checker reads them.
impl<'a> Checker<'a> {
    /// A held definition's tree: borrowed, or parsed from its text (its syntax problems
    /// reported) and owned by the caller, who drops it once lowered. `None` when the text is not
    /// the one definition its first words named: the piece is noted in `misread`.
    pub fn tree<T: Definition>(&mut self, held: &Held<'a, T>) -> Option<std::borrow::Cow<'a, T>> {
        let tree = held.tree_into(&mut self.sink.diags);
        if let (None, Held::Text { file, def, .. }) = (&tree, held) {
            self.notes.misread.push((file.to_owned(), def.range.start));
        }
        tree
    }

    /// A repeated definition is never lowered; held as text, it is parsed here, so that its
    /// syntax is reported as it would be up front (and a piece that is not the definition its
    /// first words named was no repeat: `tree` says so).
    fn parse_repeats(&mut self) {
        for i in 0..self.class_defs.len() {
            if let Some(held @ Held::Text { .. }) = self.class_defs.get(i).filter(|h| !self.syms.classes.first(h, i)).cloned() {
                self.tree(&held);
            }
        }
        for i in 0..self.item_defs.len() {
            if let Some(held @ Held::Text { .. }) = self.item_defs.get(i).filter(|h| !self.syms.items.first(h, i)).cloned() {
                self.tree(&held);
            }
        }
    }
}
