//! Name resolution, type checking and lowering of one compilation's items into the model.

use std::collections::{BTreeMap, HashMap, HashSet};

use oc_diag::{did_you_mean, Diagnostic, Span, Spanned};
use oc_model as m;
use oc_model::Type;
use oc_syntax::ast;

use crate::codes::*;
use crate::context::Timed;
use crate::expr::Scope;
use oc_model::conformance::Context;

/// Definitions of one kind, in source order, by name.
pub(crate) struct Defs<T> {
    pub order: Vec<String>,
    pub map: HashMap<String, (Span, T)>,
}

impl<T> Default for Defs<T> {
    fn default() -> Self {
        Defs { order: Vec::new(), map: HashMap::new() }
    }
}

impl<T> Defs<T> {
    pub fn get(&self, name: &str) -> Option<&T> {
        self.map.get(name).map(|(_, t)| t)
    }
    pub fn contains(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.order.iter().map(String::as_str)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct TagSig {
    pub params: Vec<(String, Type)>,
    pub stacks: bool,
    pub kinds: Vec<m::ThingKind>,
    pub is_status: bool,
}

pub(crate) struct Checker<'a> {
    pub diags: Vec<Diagnostic>,
    pub ruleset: Option<&'a ast::Ruleset>,
    pub scales: Vec<(String, Vec<String>)>,
    pub stats: Vec<(String, Type)>,
    pub bases: Vec<(String, Type)>,
    pub tables: HashMap<String, (Vec<String>, Type)>,
    pub dice: HashMap<String, m::DiceShape>,
    pub movements: Defs<()>,
    pub weapon_types: Defs<&'a ast::WeaponTypeDef>,
    pub terrains: Defs<&'a ast::TerrainDef>,
    pub tags: Defs<TagSig>,
    pub classes: Defs<&'a ast::ClassDef>,
    pub items: Defs<&'a ast::ItemDef>,
    /// Tags whose effects (directly or through `grant`) use the `shift` primitive.
    pub shifter_tags: HashSet<String>,
    /// Combat formulas that read a roll, directly or through earlier formulas.
    pub rolling_formulas: HashSet<String>,
    pub inventory: u32,
    /// Class ranges as (type, lowest, highest, span) with steps as indices.
    pub class_ranges: Vec<(Type, i64, i64, Span)>,
}

/// Formulas the engine reads when present.
const OPTIONAL_FORMULAS: &[(&str, Type)] =
    &[("backfire", Type::Bool), ("strikes", Type::Int), ("counter", Type::Bool), ("counter_any_range", Type::Bool)];

const REQUIRED_FORMULAS: &[(&str, Type)] = &[
    ("hit", Type::Bool),
    ("critical", Type::Bool),
    ("damage", Type::Int),
    ("critical_damage", Type::Int),
    ("follow_up", Type::Bool),
];

pub fn check(items: &[&ast::Item]) -> (m::Rules, Vec<Diagnostic>) {
    let mut c = Checker {
        diags: Vec::new(),
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
        classes: Defs::default(),
        items: Defs::default(),
        shifter_tags: HashSet::new(),
        rolling_formulas: HashSet::new(),
        inventory: 3,
        class_ranges: Vec::new(),
    };
    c.collect_ruleset(items);
    c.collect(items);
    let ruleset = c.lower_ruleset();
    let triangles = c.triangles(items);
    let terrains = c.lower_terrains();
    let tags = c.lower_tags(items);
    let statuses = c.lower_statuses(items);
    let classes = c.lower_classes();
    let lowered_items = c.lower_items();
    c.unwieldable_warnings();
    let rules = m::Rules {
        format_version: m::FORMAT_VERSION,
        ruleset,
        movements: c.movements.order.clone(),
        weapon_types: c
            .weapon_types
            .order
            .iter()
            .filter_map(|n| c.weapon_types.get(n))
            .map(|w| m::WeaponType { name: w.name.value.clone(), magic: w.magic, staff: w.staff })
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
    (rules, c.diags)
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

pub(crate) fn type_name(ty: &Type) -> String {
    match ty {
        Type::Int => "Int".into(),
        Type::Bool => "Bool".into(),
        Type::Str => "Str".into(),
        Type::Scale(s) => s.clone(),
        Type::Unit => "Unit".into(),
        Type::Weapon => "Weapon".into(),
        Type::Tag => "Tag".into(),
        Type::Class => "Class".into(),
        Type::WeaponType => "WeaponType".into(),
        Type::Status => "Status".into(),
        Type::Terrain => "Terrain".into(),
        Type::Movement => "Movement".into(),
        Type::Stat => "Stat".into(),
        Type::StatMod => "StatMod".into(),
        Type::Dice => "Dice".into(),
    }
}

const BUILTIN_TYPES: &[&str] =
    &["Int", "Bool", "Tag", "Class", "WeaponType", "Status", "Terrain", "Movement", "Stat", "StatMod", "Dice"];

impl<'a> Checker<'a> {
    pub fn error(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    pub fn scale(&self, name: &str) -> Option<&Vec<String>> {
        self.scales.iter().find(|(n, _)| n == name).map(|(_, s)| s)
    }

    pub fn step_index(&self, scale: &str, step: &str) -> Option<u32> {
        self.scale(scale)?.iter().position(|s| s == step).map(|i| i as u32)
    }

    pub fn attribute_type(&self, name: &str) -> Option<Type> {
        self.stats.iter().chain(self.bases.iter()).find(|(n, _)| n == name).map(|(_, t)| t.clone())
    }

    pub fn attribute_names(&self) -> Vec<&str> {
        self.stats.iter().chain(self.bases.iter()).map(|(n, _)| n.as_str()).collect()
    }

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
                    BUILTIN_TYPES.iter().copied().chain(self.scales.iter().map(|(n, _)| n.as_str())).collect();
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
        if let Some((first, _)) = defs.map.get(&name.value) {
            diags.push(
                Diagnostic::error(DUPLICATE, name.span, format!("the {what} `{}` is defined twice", name.value))
                    .with_label("defined again here")
                    .with_secondary(*first, "first defined here")
                    .with_help(format!("rename one of them; every {what} name must be unique (the standard library's included)")),
            );
            return;
        }
        defs.order.push(name.value.clone());
        defs.map.insert(name.value.clone(), (name.span, value));
    }

    // ------------------------------------------------------------------ ruleset

    fn collect_ruleset(&mut self, items: &[&'a ast::Item]) {
        for item in items {
            let ast::Item::Ruleset(rs) = item else { continue };
            if let Some(first) = self.ruleset {
                self.error(
                    Diagnostic::error(
                        MULTIPLE_RULESETS,
                        rs.name.span,
                        format!("a second ruleset `{}` in one compilation", rs.name.value),
                    )
                    .with_secondary(first.name.span, format!("`{}` is already the ruleset here", first.name.value))
                    .with_help("a file and its imports use one ruleset; move this one to a file that does not import the other"),
                );
                continue;
            }
            self.ruleset = Some(rs);
        }
        let Some(rs) = self.ruleset else { return };
        let mut scale_spans: HashMap<String, Span> = HashMap::new();
        for scale in &rs.scales {
            if let Some(first) = scale_spans.get(&scale.name.value) {
                self.error(
                    Diagnostic::error(DUPLICATE, scale.name.span, format!("the scale `{}` is defined twice", scale.name.value))
                        .with_secondary(*first, "first defined here")
                        .with_help("rename one of them"),
                );
                continue;
            }
            scale_spans.insert(scale.name.value.clone(), scale.name.span);
            let mut seen: HashMap<&str, Span> = HashMap::new();
            let mut steps = Vec::new();
            for member in &scale.members {
                if let Some(first) = seen.get(member.value.as_str()) {
                    self.error(
                        Diagnostic::error(
                            SCALE_INVALID,
                            member.span,
                            format!("the step `{}` appears twice in scale `{}`", member.value, scale.name.value),
                        )
                        .with_secondary(*first, "first here")
                        .with_help("list each step once, worst to best"),
                    );
                    continue;
                }
                seen.insert(&member.value, member.span);
                steps.push(member.value.clone());
            }
            self.scales.push((scale.name.value.clone(), steps));
        }
        let mut attr_spans: HashMap<String, Span> = HashMap::new();
        for stat in &rs.stats {
            let Some(ty) = self.resolve_type(&stat.ty) else { continue };
            if !matches!(ty, Type::Int | Type::Bool | Type::Scale(_) | Type::Dice) {
                self.error(
                    Diagnostic::error(TYPE_MISMATCH, stat.ty.span, format!("a stat cannot have type `{}`", type_name(&ty)))
                        .with_help("stats are numbers (`Int`), flags (`Bool`), steps of a scale such as `Rating`, or `Dice`"),
                );
                continue;
            }
            if self.dup_attr(&mut attr_spans, &stat.name) {
                self.stats.push((stat.name.value.clone(), ty));
            }
        }
        for base in &rs.bases {
            let Some(ty) = self.resolve_type(&base.ty) else { continue };
            if self.dup_attr(&mut attr_spans, &base.name) {
                self.bases.push((base.name.value.clone(), ty));
            }
        }
        self.collect_resources(rs, &mut attr_spans);
        for dice in &rs.dice {
            let terms: Vec<(bool, &ast::DieLit)> = dice.terms.iter().map(|(n, d)| (*n, d)).collect();
            let shape = self.dice_shape(&terms, dice.constant, dice.span);
            // A shape that failed is still declared (with a d2), so its uses are not reported again.
            self.dice.insert(dice.name.value.clone(), shape.unwrap_or_else(|| m::DiceShape::d(2)));
        }
        for table in &rs.tables {
            let mut keys = Vec::new();
            for key in &table.keys {
                match self.resolve_type(key) {
                    Some(Type::Scale(s)) => keys.push(s),
                    Some(other) => {
                        self.error(
                            Diagnostic::error(
                                TABLE_KEY,
                                key.span,
                                format!("tables are looked up by scales, not by `{}`", type_name(&other)),
                            )
                            .with_help("use a scale such as `Rating` as the key"),
                        );
                    }
                    None => {}
                }
            }
            let Some(value) = self.resolve_type(&table.value_ty) else { continue };
            if keys.len() == table.keys.len() && !keys.is_empty() {
                self.tables.insert(table.name.value.clone(), (keys, value));
            }
        }
        match rs.inventory.as_slice() {
            [] => self.error(
                Diagnostic::error(
                    RULESET_SETTING,
                    rs.name.span,
                    format!("the ruleset `{}` sets no inventory size", rs.name.value),
                )
                .with_help("add `inventory 3` (the seed: units carry up to 3 items)"),
            ),
            [one, rest @ ..] => {
                for extra in rest {
                    self.error(
                        Diagnostic::error(DUPLICATE_FIELD, extra.span, "the inventory size is set twice")
                            .with_secondary(one.span, "first set here")
                            .with_help("keep one `inventory`"),
                    );
                }
                if !(1..=16).contains(&one.value) {
                    self.error(
                        Diagnostic::error(RULESET_SETTING, one.span, format!("an inventory of {} items", one.value))
                            .with_help("inventories hold 1 to 16 items"),
                    );
                } else {
                    self.inventory = one.value as u32;
                }
            }
        }
        if !rs.bases.iter().any(|b| b.name.value == "hp" && b.ty.value == "Int") {
            self.error(
                Diagnostic::error(
                    RULESET_SETTING,
                    rs.name.span,
                    format!("the ruleset `{}` has no `base hp: Int`", rs.name.value),
                )
                .with_help("the engine tracks hit points in the base attribute `hp`: add `base hp: Int = 20`"),
            );
        }
        if rs.stats.is_empty() {
            self.error(
                Diagnostic::error(RULESET_SETTING, rs.name.span, format!("the ruleset `{}` declares no stats", rs.name.value))
                    .with_help("declare what classes provide, e.g. `stat str: Rating \"Strength\"`"),
            );
        }
    }

    pub(crate) fn dup_attr(&mut self, spans: &mut HashMap<String, Span>, name: &ast::Ident) -> bool {
        if let Some(first) = spans.get(&name.value) {
            self.error(
                Diagnostic::error(DUPLICATE, name.span, format!("the stat or base `{}` is defined twice", name.value))
                    .with_secondary(*first, "first defined here")
                    .with_help("stats and base attributes share one namespace; rename one"),
            );
            return false;
        }
        spans.insert(name.value.clone(), name.span);
        true
    }

    fn lower_ruleset(&mut self) -> m::Ruleset {
        let Some(rs) = self.ruleset else {
            return m::Ruleset {
                name: String::new(),
                doc: None,
                scales: vec![],
                stats: vec![],
                bases: vec![],
                class_ranges: vec![],
                inventory: self.inventory,
                weight: (i64::MIN, i64::MAX),
                dice: vec![],
                tables: vec![],
                combat: vec![],
                resources: vec![],
                turn: m::TurnRules::default(),
                reactions: vec![],
            };
        };
        let stats = rs
            .stats
            .iter()
            .filter_map(|s| {
                let ty = self.stats.iter().find(|(n, _)| *n == s.name.value)?.1.clone();
                Some(m::Stat { name: s.name.value.clone(), title: s.title.clone(), ty })
            })
            .collect();
        let mut bases = Vec::new();
        for b in &rs.bases {
            let Some(ty) = self.bases.iter().find(|(n, _)| *n == b.name.value).map(|(_, t)| t.clone()) else { continue };
            let Some(value) = self.const_value(&b.value, &ty) else { continue };
            bases.push(m::Base { name: b.name.value.clone(), title: b.title.clone(), ty, value });
        }
        let mut class_ranges = Vec::new();
        for range in &rs.class_ranges {
            if let Some(r) = self.class_range(range) {
                let num = |v: &m::Value| match v {
                    m::Value::Int(n) => *n,
                    m::Value::Step { index, .. } => i64::from(*index),
                    _ => 0,
                };
                self.class_ranges.push((r.ty.clone(), num(&r.low), num(&r.high), range.span));
                class_ranges.push(r);
            }
        }
        let weight = match rs.weight_ranges.as_slice() {
            [] => (i64::MIN, i64::MAX),
            [one, rest @ ..] => {
                for extra in rest {
                    self.error(
                        Diagnostic::error(DUPLICATE_FIELD, extra.span, "the weight bounds are set twice")
                            .with_secondary(one.span, "first set here")
                            .with_help("keep one `weight LOW..HIGH`"),
                    );
                }
                if one.value.0 > one.value.1 {
                    self.error(
                        Diagnostic::error(
                            RULESET_SETTING,
                            one.span,
                            format!("weight bounds {}..{} are reversed", one.value.0, one.value.1),
                        )
                        .with_help("write the lighter bound first, e.g. `weight -2..2`"),
                    );
                }
                one.value
            }
        };
        let dice = rs
            .dice
            .iter()
            .filter_map(|d| {
                self.dice.get(&d.name.value).map(|shape| m::Dice { name: d.name.value.clone(), shape: shape.clone() })
            })
            .collect();
        let tables = rs.tables.iter().filter_map(|t| self.lower_table(t)).collect();
        let combat = self.lower_combat(rs);
        let (resources, turn) = self.lower_turn(rs, &mut bases);
        let reactions = self.lower_reactions(rs, &resources);
        m::Ruleset {
            name: rs.name.value.clone(),
            doc: rs.doc.clone(),
            scales: self.scales.iter().map(|(n, s)| m::Scale { name: n.clone(), steps: s.clone() }).collect(),
            stats,
            bases,
            class_ranges,
            inventory: self.inventory,
            weight,
            dice,
            tables,
            combat,
            resources,
            turn,
            reactions,
        }
    }

    fn class_range(&mut self, range: &ast::ClassRange) -> Option<m::ClassRange> {
        let ty = self.resolve_type(&range.ty)?;
        let bound = |c: &mut Self, b: &Spanned<ast::Bound>| -> Option<(i64, m::Value)> {
            match (&ty, &b.value) {
                (Type::Int, ast::Bound::Int(n)) => Some((*n, m::Value::Int(*n))),
                (Type::Scale(s), ast::Bound::Name(step)) => match c.step_index(s, step) {
                    Some(i) => Some((i64::from(i), m::Value::Step { scale: s.clone(), index: i })),
                    None => {
                        let steps = c.scale(s).map(|v| v.join(" ")).unwrap_or_default();
                        c.error(
                            Diagnostic::error(CLASS_RANGE_INVALID, b.span, format!("`{step}` is not a step of `{s}`"))
                                .with_help(format!("the steps of `{s}` are {steps}")),
                        );
                        None
                    }
                },
                _ => {
                    c.error(
                        Diagnostic::error(
                            CLASS_RANGE_INVALID,
                            b.span,
                            format!("this bound does not fit a `{}` range", type_name(&ty)),
                        )
                        .with_help("a scale range uses steps (`E..A`), an Int range uses numbers (`0..20`)"),
                    );
                    None
                }
            }
        };
        let low = bound(self, &range.low);
        let high = bound(self, &range.high);
        let (low, high) = (low?, high?);
        if low.0 > high.0 {
            self.error(
                Diagnostic::error(CLASS_RANGE_INVALID, range.span, "the class range is reversed")
                    .with_help("write the worst bound first, e.g. `class_range Rating E..A`"),
            );
            return None;
        }
        Some(m::ClassRange { ty, low: low.1, high: high.1 })
    }

    fn lower_table(&mut self, t: &ast::TableDef) -> Option<m::Table> {
        let (keys, value_ty) = self.tables.get(&t.name.value)?.clone();
        let sizes: Vec<usize> = keys.iter().map(|k| self.scale(k).map_or(0, Vec::len)).collect();
        let (row_keys, last) = match keys.split_last() {
            Some((last, lead)) if !lead.is_empty() => (lead.to_vec(), Some(last.clone())),
            Some((only, _)) => (vec![only.clone()], None),
            None => return None,
        };
        let width = match &last {
            Some(l) => self.scale(l).map_or(0, Vec::len),
            None => 1,
        };
        let total = sizes.iter().try_fold(1usize, |acc, n| acc.checked_mul(*n)).filter(|n| *n <= crate::MAX_TABLE_CELLS);
        let Some(total) = total else {
            self.error(
                Diagnostic::error(
                    TABLE_SIZE,
                    t.name.span,
                    format!("the table `{}` would have more than {} cells", t.name.value, crate::MAX_TABLE_CELLS),
                )
                .with_label(format!(
                    "{} key(s) of {} steps",
                    sizes.len(),
                    sizes.iter().map(usize::to_string).collect::<Vec<_>>().join(" x ")
                ))
                .with_help("use fewer keys or shorter scales"),
            );
            return None;
        };
        let mut cells: Vec<Option<m::Value>> = vec![None; total];
        let mut seen_rows: HashMap<Vec<u32>, Span> = HashMap::new();
        let mut ok = true;
        for row in &t.rows {
            if row.keys.len() != row_keys.len() {
                self.error(
                    Diagnostic::error(
                        TABLE_ROW,
                        row.span,
                        format!("a row of `{}` needs {} label(s), this one has {}", t.name.value, row_keys.len(), row.keys.len()),
                    )
                    .with_help(format!("label each row with a step of {}", row_keys.join(", then "))),
                );
                ok = false;
                continue;
            }
            let mut index = Vec::new();
            for (key, scale) in row.keys.iter().zip(&row_keys) {
                match self.step_index(scale, &key.value) {
                    Some(i) => index.push(i),
                    None => {
                        let steps = self.scale(scale).map(|v| v.join(" ")).unwrap_or_default();
                        self.error(
                            Diagnostic::error(TABLE_ROW, key.span, format!("`{}` is not a step of `{scale}`", key.value))
                                .with_help(format!("row labels are steps of `{scale}`: {steps}")),
                        );
                        ok = false;
                    }
                }
            }
            if index.len() != row_keys.len() {
                continue;
            }
            if let Some(first) = seen_rows.get(&index) {
                let label: Vec<&str> = row.keys.iter().map(|k| k.value.as_str()).collect();
                self.error(
                    Diagnostic::error(TABLE_ROW, row.span, format!("the row `{}` appears twice", label.join(" ")))
                        .with_secondary(*first, "first here")
                        .with_help("keep one of the two rows"),
                );
                ok = false;
                continue;
            }
            seen_rows.insert(index.clone(), row.span);
            if row.values.len() != width {
                let (span, what) = if row.values.len() > width {
                    let extra = row.values.get(width).map_or(row.span, |v| v.span);
                    (extra.to(row.values.last().map_or(extra, |v| v.span)), "too many")
                } else {
                    (row.values.last().map_or(row.span, |v| v.span), "too few")
                };
                let columns = match &last {
                    Some(l) => format!("one per step of `{l}` ({})", self.scale(l).map(|v| v.join(" ")).unwrap_or_default()),
                    None => "one".to_string(),
                };
                self.error(
                    Diagnostic::error(
                        TABLE_WIDTH,
                        span,
                        format!("{what} values: {} where `{}` needs {width}", row.values.len(), t.name.value),
                    )
                    .with_label(format!("{what} values in this row"))
                    .with_help(format!("each row has {columns}")),
                );
                ok = false;
            }
            let mut flat = 0usize;
            for (i, size) in index.iter().zip(&sizes) {
                flat = flat * size + *i as usize;
            }
            for (col, value) in row.values.iter().take(width).enumerate() {
                let Some(v) = self.literal(value, &value_ty) else {
                    ok = false;
                    continue;
                };
                if let Some(slot) = cells.get_mut(flat * width + col) {
                    *slot = Some(v);
                }
            }
        }
        // Missing rows: every combination of the row keys must be present.
        let row_sizes: Vec<usize> = row_keys.iter().map(|k| self.scale(k).map_or(0, Vec::len)).collect();
        let row_count: usize = row_sizes.iter().product();
        let mut missing = Vec::new();
        for r in 0..row_count {
            let mut rest = r;
            let mut index = vec![0u32; row_sizes.len()];
            for (slot, size) in index.iter_mut().zip(&row_sizes).rev() {
                *slot = (rest % size.max(&1)) as u32;
                rest /= size.max(&1);
            }
            if !seen_rows.contains_key(&index) {
                let label: Vec<String> = index
                    .iter()
                    .zip(&row_keys)
                    .map(|(i, k)| self.scale(k).and_then(|s| s.get(*i as usize)).cloned().unwrap_or_default())
                    .collect();
                missing.push(label.join(" "));
            }
        }
        if !missing.is_empty() {
            self.error(
                Diagnostic::error(
                    TABLE_MISSING_ROW,
                    t.name.span,
                    format!("the table `{}` has no row for {}", t.name.value, missing.join(", ")),
                )
                .with_help(format!("add the missing row(s): `{}: ...`", missing.first().cloned().unwrap_or_default())),
            );
            ok = false;
        }
        if !ok {
            return None;
        }
        Some(m::Table { name: t.name.value.clone(), keys, value: value_ty, cells: cells.into_iter().flatten().collect() })
    }

    /// A literal in a table cell or ratings block, checked against `ty`.
    fn literal(&mut self, lit: &Spanned<ast::Literal>, ty: &Type) -> Option<m::Value> {
        match (ty, &lit.value) {
            (Type::Int, ast::Literal::Int(n)) => Some(m::Value::Int(*n)),
            (Type::Bool, ast::Literal::Bool(b)) => Some(m::Value::Bool(*b)),
            (Type::Scale(s), ast::Literal::Name(step)) if self.step_index(s, step).is_some() => {
                Some(m::Value::Step { scale: s.clone(), index: self.step_index(s, step).unwrap_or(0) })
            }
            (_, found) => {
                let found = match found {
                    ast::Literal::Int(n) => format!("the number {n}"),
                    ast::Literal::Bool(b) => format!("`{b}`"),
                    ast::Literal::Name(n) => format!("`{n}`"),
                    ast::Literal::Dice(..) => "dice".to_string(),
                };
                let want = match ty {
                    Type::Scale(s) => format!("a step of `{s}` ({})", self.scale(s).map(|v| v.join(" ")).unwrap_or_default()),
                    Type::Int => "a number".to_string(),
                    Type::Bool => "`true` or `false`".to_string(),
                    other => format!("a `{}`", type_name(other)),
                };
                self.error(
                    Diagnostic::error(TABLE_VALUE_TYPE, lit.span, format!("expected {want}, found {found}"))
                        .with_help(format!("every value here must be {want}")),
                );
                None
            }
        }
    }

    fn lower_combat(&mut self, rs: &ast::Ruleset) -> Vec<m::Formula> {
        let mut out: Vec<m::Formula> = Vec::new();
        let mut visible: HashMap<String, Type> = HashMap::new();
        let mut spans: HashMap<String, Span> = HashMap::new();
        let block_span = rs.combat.first().map_or(rs.name.span, |b| b.span);
        for extra in rs.combat.iter().skip(1) {
            self.error(
                Diagnostic::error(DUPLICATE_FIELD, extra.span, "a second `combat` block")
                    .with_secondary(block_span, "the first one")
                    .with_help("put every formula in one `combat` block"),
            );
        }
        for formula in rs.combat.iter().take(1).flat_map(|b| &b.formulas) {
            let name = &formula.name.value;
            if let Some(first) = spans.get(name) {
                self.error(
                    Diagnostic::error(COMBAT_FORMULA, formula.name.span, format!("the formula `{name}` is defined twice"))
                        .with_secondary(*first, "first here")
                        .with_help("keep one definition"),
                );
                continue;
            }
            let required = REQUIRED_FORMULAS.iter().chain(OPTIONAL_FORMULAS).find(|(n, _)| n == name).map(|(_, t)| t.clone());
            if required.is_none() && !name.starts_with('_') {
                let known: Vec<&str> = REQUIRED_FORMULAS.iter().map(|(n, _)| *n).collect();
                let help = match did_you_mean(name, known.iter().copied()) {
                    Some(s) => format!("did you mean `{s}`? helper formulas start with `_`"),
                    None => format!("the engine reads {}; name helper formulas `_{name}`", known.join(", ")),
                };
                self.error(
                    Diagnostic::error(COMBAT_FORMULA, formula.name.span, format!("`{name}` is not a combat formula"))
                        .with_help(help),
                );
                continue;
            }
            spans.insert(name.clone(), formula.name.span);
            let scope =
                Scope { params: &[], units: true, combat: true, formulas: Some(&visible), rolls: true, dice_values: false };
            let (expr, ty) = self.expr(&formula.value, &scope, required.as_ref());
            let ty = match (required, ty) {
                (Some(want), Some(got)) => {
                    if want != got {
                        self.mismatch(
                            formula.value.span,
                            &want,
                            &got,
                            &format!("the engine reads `{name}` as {}", type_name(&want)),
                        );
                    }
                    want
                }
                (Some(want), None) => want,
                (None, Some(got)) => got,
                (None, None) => continue,
            };
            visible.insert(name.clone(), ty.clone());
            if self.reads_a_roll(&expr) {
                self.rolling_formulas.insert(name.clone());
            }
            out.push(m::Formula { name: name.clone(), ty, expr });
        }
        let missing: Vec<&str> = REQUIRED_FORMULAS.iter().map(|(n, _)| *n).filter(|n| !spans.contains_key(*n)).collect();
        if !missing.is_empty() {
            self.error(
                Diagnostic::error(COMBAT_FORMULA, block_span, format!("the combat rules lack {}", missing.join(", ")))
                    .with_help("the engine evaluates hit, critical, damage, critical_damage and follow_up for every strike"),
            );
        }
        out
    }

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
                        Self::define(&mut self.diags, &mut self.movements, "movement type", n, ());
                    }
                }
                ast::Item::WeaponType(w) => Self::define(&mut self.diags, &mut self.weapon_types, "weapon type", &w.name, w),
                ast::Item::Terrain(t) => Self::define(&mut self.diags, &mut self.terrains, "terrain", &t.name, t),
                ast::Item::Class(c) => Self::define(&mut self.diags, &mut self.classes, "class", &c.name, c),
                ast::Item::Item(i) => Self::define(&mut self.diags, &mut self.items, "item", &i.name, i),
                _ => {}
            }
        }
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
                        params.push((p.name.value.clone(), ty.unwrap_or(Type::Int)));
                    }
                    let mut kinds = Vec::new();
                    for k in &t.kinds {
                        if let Some(kind) = thing_kind(&k.value) {
                            kinds.push(kind);
                        }
                    }
                    let sig = TagSig { params, stacks: t.stacks, kinds, is_status: false };
                    Self::define(&mut self.diags, &mut self.tags, "tag or status", &t.name, sig);
                }
                ast::Item::Status(s) => {
                    let sig = TagSig { params: vec![], stacks: false, kinds: vec![], is_status: true };
                    Self::define(&mut self.diags, &mut self.tags, "tag or status", &s.name, sig);
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
                    shifters.insert(t.name.value.clone());
                }
                grants.push((t.name.value.clone(), granted));
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
        self.shifter_tags = shifters;
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
                    if !self.weapon_types.contains(&name.value) {
                        self.unknown_weapon_type(name);
                        ok = false;
                    }
                    let closing = i + 1 == chain.len() && name.value == first.value;
                    if closing {
                        continue;
                    }
                    if let Some(prev) = used.get(&name.value) {
                        self.error(
                            Diagnostic::error(TRIANGLE_REPEATED, name.span, format!("`{}` is already in a weapon triangle", name.value))
                                .with_secondary(*prev, "first here")
                                .with_help("each weapon type has one place in one triangle; only the closing repetition of the first type is allowed"),
                        );
                        ok = false;
                        continue;
                    }
                    used.insert(name.value.clone(), name.span);
                    cycle.push(name.value.clone());
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
        let help = match did_you_mean(&name.value, self.weapon_types.names()) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("weapon types: {}", self.weapon_types.order.join(", ")),
        };
        self.error(
            Diagnostic::error(UNKNOWN_WEAPON_TYPE, name.span, format!("unknown weapon type `{}`", name.value)).with_help(help),
        );
    }

    pub fn unknown_in<T>(
        &mut self,
        code: &'static str,
        what: &str,
        name: &ast::Ident,
        defs_names: Vec<String>,
        _marker: Option<&T>,
    ) {
        let help = match did_you_mean(&name.value, defs_names.iter().map(String::as_str)) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("define the {what} or import the file that defines it"),
        };
        self.error(Diagnostic::error(code, name.span, format!("unknown {what} `{}`", name.value)).with_help(help));
    }

    fn lower_terrains(&mut self) -> Vec<m::Terrain> {
        let names = self.terrains.order.clone();
        let mut out = Vec::new();
        for name in names {
            let Some(t) = self.terrains.get(&name).copied() else { continue };
            self.at_most_one(&t.symbols, "symbol");
            self.at_most_one(&t.defense, "defense");
            self.at_most_one(&t.hp, "hp");
            self.at_most_one(&t.becomes, "becomes");
            let mut costs: BTreeMap<String, Option<u32>> = BTreeMap::new();
            let mut spans: HashMap<String, Span> = HashMap::new();
            let mut unknown_movement = false;
            for entry in &t.costs {
                let mv = &entry.movement;
                if !self.movements.contains(&mv.value) {
                    let names = self.movements.order.clone();
                    self.unknown_in::<()>(UNKNOWN_MOVEMENT, "movement type", mv, names, None);
                    unknown_movement = true;
                    continue;
                }
                if let Some(first) = spans.get(&mv.value) {
                    self.error(
                        Diagnostic::error(DUPLICATE_FIELD, mv.span, format!("the cost for `{}` is given twice", mv.value))
                            .with_secondary(*first, "first here")
                            .with_help("keep one cost per movement type"),
                    );
                    continue;
                }
                spans.insert(mv.value.clone(), mv.span);
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
                costs.insert(mv.value.clone(), cost);
            }
            if let Some(imp) = t.impassable {
                if !t.costs.is_empty() {
                    self.error(
                        Diagnostic::error(TERRAIN_COST, imp, format!("`{}` is impassable but also lists costs", t.name.value))
                            .with_help("remove `impassable` or the cost table"),
                    );
                }
                for mv in &self.movements.order {
                    costs.insert(mv.clone(), None);
                }
            } else if t.costs.is_empty() {
                // The seed: tiles not on the Terrain Table cost 1 to enter.
                for mv in &self.movements.order {
                    costs.insert(mv.clone(), Some(1));
                }
            } else {
                let missing: Vec<String> = self.movements.order.iter().filter(|mv| !spans.contains_key(*mv)).cloned().collect();
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
                if self.terrains.contains(&b.value) {
                    Some(b.value.clone())
                } else {
                    let names = self.terrains.order.clone();
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
            let mut opened_by = Vec::new();
            for o in &t.opened_by {
                if self.tags.contains(&o.value) || self.items.contains(&o.value) {
                    opened_by.push(o.value.clone());
                } else {
                    let names: Vec<String> = self.tags.order.iter().chain(self.items.order.iter()).cloned().collect();
                    self.unknown_in::<()>(UNKNOWN_ITEM, "tag or item", o, names, None);
                }
            }
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
                name: t.name.value.clone(),
                title: t.title.clone(),
                doc: t.doc.clone(),
                symbol: t.symbols.first().map(|s| s.value.clone()),
                defense: t.defense.first().map_or(0, |d| d.value),
                costs,
                heal,
                hp,
                becomes,
                opened_by,
            });
        }
        out
    }

    fn at_most_one<T>(&mut self, values: &[Spanned<T>], field: &str) {
        if let [first, rest @ ..] = values {
            for extra in rest {
                self.error(
                    Diagnostic::error(DUPLICATE_FIELD, extra.span, format!("`{field}` is given twice"))
                        .with_secondary(first.span, "first here")
                        .with_help(format!("keep one `{field}`")),
                );
            }
        }
    }

    // ------------------------------------------------------------------ tags and statuses

    fn lower_tags(&mut self, items: &[&'a ast::Item]) -> Vec<m::Tag> {
        let mut out = Vec::new();
        for item in items {
            let ast::Item::Tag(t) = item else { continue };
            let Some(sig) = self.tags.get(&t.name.value).cloned() else { continue };
            if sig.is_status {
                continue;
            }
            if self.tags.map.get(&t.name.value).map(|(s, _)| *s) != Some(t.name.span) {
                continue; // a duplicate, already reported
            }
            let scope =
                Scope { params: &sig.params, units: true, combat: false, formulas: None, rolls: false, dice_values: false };
            let effects = self.effects(&t.body, &scope, true);
            self.check_contexts(&t.body, Context::Always);
            out.push(m::Tag {
                name: t.name.value.clone(),
                params: sig.params.iter().map(|(n, ty)| m::Param { name: n.clone(), ty: ty.clone() }).collect(),
                stacks: sig.stacks,
                applies_to: sig.kinds.clone(),
                doc: t.doc.clone(),
                effects,
            });
        }
        out
    }

    fn lower_statuses(&mut self, items: &[&'a ast::Item]) -> Vec<m::Status> {
        let mut out = Vec::new();
        for item in items {
            let ast::Item::Status(s) = item else { continue };
            if self.tags.map.get(&s.name.value).map(|(sp, _)| *sp) != Some(s.name.span) {
                continue;
            }
            let scope = Scope { params: &[], units: true, combat: false, formulas: None, rolls: false, dice_values: false };
            let effects = self.effects(&s.body, &scope, false);
            self.check_contexts(&s.body, Context::Always);
            let mut clears = Vec::new();
            // A clear check is rolled at its event (`clears when roll(d10) <= 5`).
            let clear_scope = Scope { rolls: true, ..scope };
            for c in &s.clears {
                self.check_timed_event(&c.event, Timed::Clears);
                let condition = c.condition.as_ref().map(|e| {
                    let (expr, ty) = self.expr(e, &clear_scope, Some(&Type::Bool));
                    if let Some(ty) = ty {
                        if ty != Type::Bool {
                            self.mismatch(e.span, &Type::Bool, &ty, "`clears when` needs a condition such as `roll(d10) <= 5`");
                        }
                    }
                    expr
                });
                if let Some(event) = m::Event::from_name(&c.event.value) {
                    clears.push(m::Clear { condition, event });
                }
            }
            let mut lasts = None;
            for l in &s.lasts {
                if l.count.value < 1 || l.count.value > 99 {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, l.count.span, "a status lasts 1 to 99 activations or rounds")
                            .with_help("use a count from 1 to 99"),
                    );
                    continue;
                }
                let n = l.count.value as u32;
                lasts = Some(if l.unit.value.starts_with("activation") {
                    m::Duration::Activations(n)
                } else {
                    m::Duration::Rounds(n)
                });
            }
            out.push(m::Status { name: s.name.value.clone(), effects, clears, lasts });
        }
        out
    }

    /// Checks a list of tag uses on a thing of `kind` and returns them lowered.
    pub fn tag_uses(&mut self, uses: &[ast::TagRef], kind: m::ThingKind, owner: &str) -> Vec<m::TagUse> {
        let mut out = Vec::with_capacity(uses.len());
        let mut seen: HashMap<String, Vec<(Span, Vec<m::Value>)>> = HashMap::new();
        for u in uses {
            let Some(sig) = self.tags.get(&u.name.value).cloned() else {
                let names: Vec<String> =
                    self.tags.order.iter().filter(|n| self.tags.get(n).is_some_and(|s| !s.is_status)).cloned().collect();
                self.unknown_in::<()>(UNKNOWN_TAG, "tag", &u.name, names, None);
                continue;
            };
            if sig.is_status {
                self.error(
                    Diagnostic::error(TAG_WRONG_KIND, u.name.span, format!("`{}` is a status effect, not a tag", u.name.value))
                        .with_help(format!(
                            "statuses are applied in battle; to inflict it on hit, use `Status({})` on a weapon",
                            u.name.value
                        )),
                );
                continue;
            }
            if !sig.kinds.is_empty() && !sig.kinds.contains(&kind) {
                let allowed: Vec<&str> = sig.kinds.iter().map(|k| kind_word(*k)).collect();
                self.error(
                    Diagnostic::error(
                        TAG_WRONG_KIND,
                        u.span,
                        format!("`{}` is for {}, not for a {}", u.name.value, allowed.join(" or "), kind_word(kind)),
                    )
                    .with_label(format!("used on the {} `{owner}`", kind_word(kind)))
                    .with_help(format!("move `{}` to a {}", u.name.value, allowed.join(" or "))),
                );
            }
            let Some(mut args) = self.const_args(u, &sig) else { continue };
            args.shrink_to_fit();
            // Tags about other things (Effective(Armored), Effective(Cavalry)) may appear once per argument.
            let about_things = sig.params.iter().any(|(_, t)| {
                matches!(t, Type::Tag | Type::Class | Type::WeaponType | Type::Status | Type::Terrain | Type::Movement)
            });
            let clash =
                seen.get(&u.name.value).and_then(|prev| prev.iter().find(|(_, a)| !about_things || *a == args)).map(|(s, _)| *s);
            if let (Some(first), false) = (clash, sig.stacks) {
                self.error(
                    Diagnostic::error(
                        TAG_NOT_STACKABLE,
                        u.span,
                        format!("`{}` is used twice on `{owner}` but does not stack", u.name.value),
                    )
                    .with_secondary(first, "first use")
                    .with_help("remove one use; only tags declared `stacks` (like Lucky) add up"),
                );
                continue;
            }
            seen.entry(u.name.value.clone()).or_default().push((u.span, args.clone()));
            out.push(m::TagUse { tag: u.name.value.clone(), args });
        }
        out
    }

    fn const_args(&mut self, u: &ast::TagRef, sig: &TagSig) -> Option<Vec<m::Value>> {
        if !self.arg_count_ok(u, sig) {
            return None;
        }
        let mut args = Vec::new();
        for (arg, (pname, ty)) in u.args.iter().zip(&sig.params) {
            match self.const_arg(arg, ty, &u.name.value, pname) {
                Some(v) => args.push(v),
                None => return None,
            }
        }
        Some(args)
    }

    pub fn arg_count_ok(&mut self, u: &ast::TagRef, sig: &TagSig) -> bool {
        if u.args.len() == sig.params.len() {
            return true;
        }
        let shape: Vec<String> = sig.params.iter().map(|(n, t)| format!("{n}: {}", type_name(t))).collect();
        let usage = if shape.is_empty() { u.name.value.clone() } else { format!("{}({})", u.name.value, shape.join(", ")) };
        let help = match self.tag_usage_example(&u.name.value, sig) {
            (example, Some(owner)) => format!("write `{example}`, as `{owner}` does (the tag is `{usage}`)"),
            (example, None) if example != usage => format!("write `{example}` (the tag is `{usage}`)"),
            (example, None) => format!("write `{example}`"),
        };
        self.error(
            Diagnostic::error(
                TAG_ARG_COUNT,
                u.span,
                format!("`{}` takes {} argument(s), but {} were given", u.name.value, sig.params.len(), u.args.len()),
            )
            .with_help(help),
        );
        false
    }

    /// A constant tag argument of type `ty`.
    fn const_arg(&mut self, arg: &ast::Expr, ty: &Type, tag: &str, param: &str) -> Option<m::Value> {
        if *ty == Type::StatMod {
            return self.stat_mod(arg, tag);
        }
        if let (Type::Dice, Some((terms, constant))) = (ty, crate::dice::written_dice(arg)) {
            // A shape that cannot be enumerated is reported with its own code.
            return self.dice_shape(&terms, constant, arg.span).map(m::Value::Dice);
        }
        let value = self.const_value_quiet(arg, ty);
        if value.is_none() && !self.reported_unknown_name(arg, ty) {
            let want = match ty {
                Type::Scale(s) => format!("a step of `{s}`"),
                other => format!("a constant {}", type_name(other)),
            };
            self.error(
                Diagnostic::error(TAG_ARG_TYPE, arg.span, format!("`{tag}` expects {want} for `{param}`"))
                    .with_help(format!("pass {want}, for example {}", self.example_of(ty))),
            );
        }
        value
    }

    /// For entity-typed arguments, an unknown name gets its own "unknown X" diagnostic.
    pub fn reported_unknown_name(&mut self, arg: &ast::Expr, ty: &Type) -> bool {
        let ast::ExprKind::Name(n) = &arg.kind else { return false };
        let ident = Spanned::new(n.clone(), arg.span);
        let (code, what, names): (&'static str, &str, Vec<String>) = match ty {
            Type::Class => (UNKNOWN_CLASS, "class", self.classes.order.clone()),
            Type::Tag => (UNKNOWN_TAG, "tag", self.tags.order.clone()),
            Type::Status => (
                UNKNOWN_STATUS,
                "status",
                self.tags.order.iter().filter(|t| self.tags.get(t).is_some_and(|s| s.is_status)).cloned().collect(),
            ),
            Type::WeaponType => (UNKNOWN_WEAPON_TYPE, "weapon type", self.weapon_types.order.clone()),
            Type::Terrain => (UNKNOWN_TERRAIN, "terrain", self.terrains.order.clone()),
            Type::Movement => (UNKNOWN_MOVEMENT, "movement type", self.movements.order.clone()),
            _ => return false,
        };
        // A known name of another kind is a type error, not an unknown name.
        if self.kind_of_name(n).is_some() {
            return false;
        }
        self.unknown_in::<()>(code, what, &ident, names, None);
        true
    }

    pub(crate) fn example_of(&self, ty: &Type) -> String {
        match ty {
            Type::Int => "`2`".into(),
            Type::Bool => "`true`".into(),
            Type::Scale(s) => self.scale(s).and_then(|v| v.get(v.len() / 2)).map_or("a step".into(), |x| format!("`{x}`")),
            Type::Tag => self.tags.order.first().map_or("a tag".into(), |x| format!("`{x}`")),
            Type::Class => self.classes.order.first().map_or("a class".into(), |x| format!("`{x}`")),
            Type::WeaponType => self.weapon_types.order.first().map_or("a weapon type".into(), |x| format!("`{x}`")),
            Type::Status => self
                .tags
                .order
                .iter()
                .find(|t| self.tags.get(t).is_some_and(|s| s.is_status))
                .map_or("a status".into(), |x| format!("`{x}`")),
            Type::Stat => self.stats.first().map_or("a stat".into(), |x| format!("`{}`", x.0)),
            Type::StatMod => self.stats.first().map_or("`res+1`".into(), |x| format!("`{}+1`", x.0)),
            Type::Dice => "`2d6` or `2d10 + 3d8`".into(),
            other => format!("a {}", type_name(other)),
        }
    }

    /// `stat + N` or `stat - N`: the argument of Bonus(Rating+X) and Inflict(Rating-X).
    pub fn stat_mod(&mut self, arg: &ast::Expr, tag: &str) -> Option<m::Value> {
        let parsed = match &arg.kind {
            ast::ExprKind::Binary(op @ (ast::BinaryOp::Add | ast::BinaryOp::Sub), lhs, rhs) => match (&lhs.kind, &rhs.kind) {
                (ast::ExprKind::Name(stat), ast::ExprKind::Int(n)) => {
                    Some((stat.clone(), lhs.span, if *op == ast::BinaryOp::Sub { n.saturating_neg() } else { *n }))
                }
                _ => None,
            },
            _ => None,
        };
        let Some((stat, stat_span, amount)) = parsed else {
            let example = self.example_of(&Type::StatMod);
            self.error(
                Diagnostic::error(TAG_ARG_TYPE, arg.span, format!("`{tag}` expects a stat and an amount"))
                    .with_help(format!("write it like {example}: a stat name, `+` or `-`, and a number")),
            );
            return None;
        };
        if self.stats.iter().all(|(n, _)| *n != stat) {
            let names: Vec<String> = self.stats.iter().map(|(n, _)| n.clone()).collect();
            self.unknown_in::<()>(UNKNOWN_STAT, "stat", &Spanned::new(stat, stat_span), names, None);
            return None;
        }
        Some(m::Value::StatMod { stat, amount })
    }

    /// Whether `name` is a definition of the kind `ty` (names of different kinds may coincide:
    /// the movement type `Armored` and the tag `Armored`).
    pub fn has_name_of_kind(&self, name: &str, ty: &Type) -> bool {
        match ty {
            Type::Tag => self.tags.get(name).is_some_and(|s| !s.is_status),
            Type::Status => self.tags.get(name).is_some_and(|s| s.is_status),
            Type::Class => self.classes.contains(name),
            Type::WeaponType => self.weapon_types.contains(name),
            Type::Terrain => self.terrains.contains(name),
            Type::Movement => self.movements.contains(name),
            _ => false,
        }
    }

    /// What kind of definition a bare name is, if any.
    pub fn kind_of_name(&self, name: &str) -> Option<Type> {
        if let Some(sig) = self.tags.get(name) {
            return Some(if sig.is_status { Type::Status } else { Type::Tag });
        }
        if self.classes.contains(name) {
            return Some(Type::Class);
        }
        if self.weapon_types.contains(name) {
            return Some(Type::WeaponType);
        }
        if self.terrains.contains(name) {
            return Some(Type::Terrain);
        }
        if self.movements.contains(name) {
            return Some(Type::Movement);
        }
        None
    }

    /// A constant of type `ty`, reporting a mismatch.
    fn const_value(&mut self, e: &ast::Expr, ty: &Type) -> Option<m::Value> {
        if let (Type::Dice, Some((terms, constant))) = (ty, crate::dice::written_dice(e)) {
            // A shape that cannot be enumerated is reported with its own code.
            return self.dice_shape(&terms, constant, e.span).map(m::Value::Dice);
        }
        let v = self.const_value_quiet(e, ty);
        if v.is_none() && !self.reported_unknown_name(e, ty) {
            self.error(
                Diagnostic::error(TYPE_MISMATCH, e.span, format!("expected a constant {}", type_name(ty)))
                    .with_help(format!("write a constant, for example {}", self.example_of(ty))),
            );
        }
        v
    }

    fn const_value_quiet(&self, e: &ast::Expr, ty: &Type) -> Option<m::Value> {
        match (&e.kind, ty) {
            (ast::ExprKind::Int(n), Type::Int) => Some(m::Value::Int(*n)),
            (ast::ExprKind::Unary(ast::UnaryOp::Neg, inner), Type::Int) => match self.const_value_quiet(inner, ty)? {
                m::Value::Int(n) => Some(m::Value::Int(n.saturating_neg())),
                _ => None,
            },
            (ast::ExprKind::Bool(b), Type::Bool) => Some(m::Value::Bool(*b)),
            // A number where dice are wanted: dice that always show it (Absorption 0).
            (ast::ExprKind::Int(n), Type::Dice) => Some(m::Value::Dice(m::DiceShape { terms: Vec::new(), constant: *n })),
            (ast::ExprKind::Name(n), Type::Scale(s)) => {
                self.step_index(s, n).map(|index| m::Value::Step { scale: s.clone(), index })
            }
            (ast::ExprKind::Name(n), Type::Stat) => {
                self.stats.iter().any(|(s, _)| s == n).then(|| m::Value::Name { ty: Type::Stat, name: n.clone() })
            }
            (ast::ExprKind::Name(n), Type::Tag) => {
                self.tags.get(n).filter(|s| !s.is_status).map(|_| m::Value::Name { ty: Type::Tag, name: n.clone() })
            }
            (ast::ExprKind::Name(n), entity) if self.has_name_of_kind(n, entity) => {
                Some(m::Value::Name { ty: entity.clone(), name: n.clone() })
            }
            _ => None,
        }
    }

    // ------------------------------------------------------------------ classes and items

    fn ratings(&mut self, blocks: &[ast::RatingsBlock], owner: &ast::Ident, what: &str) -> BTreeMap<String, m::Value> {
        let mut out = BTreeMap::new();
        let Some(block) = blocks.first() else { return out };
        for extra in blocks.iter().skip(1) {
            self.error(
                Diagnostic::error(DUPLICATE_FIELD, extra.span, "a second `ratings` block")
                    .with_secondary(block.span, "the first one")
                    .with_help("give every rating in one block"),
            );
        }
        let mut spans: HashMap<String, Span> = HashMap::new();
        // Stats a misspelt entry was meant to be (`rez` for `res`): that one is reported, not also missing.
        let mut meant: Vec<String> = Vec::new();
        for (stat, value) in &block.entries {
            let Some(ty) = self.stats.iter().find(|(n, _)| *n == stat.value).map(|(_, t)| t.clone()) else {
                let names: Vec<String> = self.stats.iter().map(|(n, _)| n.clone()).collect();
                meant.extend(did_you_mean(&stat.value, names.iter().map(String::as_str)).map(str::to_string));
                self.unknown_in::<()>(UNKNOWN_STAT, "stat", stat, names, None);
                continue;
            };
            if let Some(first) = spans.get(&stat.value) {
                self.error(
                    Diagnostic::error(DUPLICATE_FIELD, stat.span, format!("`{}` is rated twice", stat.value))
                        .with_secondary(*first, "first here")
                        .with_help("keep one value per stat"),
                );
                continue;
            }
            spans.insert(stat.value.clone(), stat.span);
            let lowered = match (&ty, &value.value) {
                (Type::Scale(s), ast::Literal::Name(step)) => {
                    self.step_index(s, step).map(|index| m::Value::Step { scale: s.clone(), index })
                }
                (Type::Int, ast::Literal::Int(n)) => Some(m::Value::Int(*n)),
                (Type::Bool, ast::Literal::Bool(b)) => Some(m::Value::Bool(*b)),
                (Type::Dice, ast::Literal::Int(n)) => Some(m::Value::Dice(m::DiceShape { terms: Vec::new(), constant: *n })),
                (Type::Dice, ast::Literal::Dice(terms, constant)) => {
                    let terms: Vec<(bool, &ast::DieLit)> = terms.iter().map(|(n, d)| (*n, d)).collect();
                    // A shape that cannot be enumerated was reported with its own code.
                    let Some(shape) = self.dice_shape(&terms, *constant, value.span) else { continue };
                    Some(m::Value::Dice(shape))
                }
                _ => None,
            };
            let Some(lowered) = lowered else {
                let want = match &ty {
                    Type::Scale(s) => format!("a step of `{s}`: {}", self.scale(s).map(|v| v.join(" ")).unwrap_or_default()),
                    other => format!("a {}", type_name(other)),
                };
                self.error(
                    Diagnostic::error(
                        CLASS_BAD_RATING,
                        value.span,
                        format!("`{}` is not a valid {} rating", literal_text(&value.value), stat.value),
                    )
                    .with_help(format!("`{}` takes {want}", stat.value)),
                );
                continue;
            };
            self.check_class_range(&lowered, &ty, value.span, &stat.value);
            out.insert(stat.value.clone(), lowered);
        }
        let missing: Vec<&str> = self
            .stats
            .iter()
            .map(|(n, _)| n.as_str())
            .filter(|n| !spans.contains_key(*n) && !meant.iter().any(|m| m == n))
            .collect();
        if !missing.is_empty() {
            let missing = missing.join(", ");
            self.error(
                Diagnostic::error(
                    CLASS_MISSING_RATING,
                    block.span,
                    format!("{what} `{}` has no rating for {missing}", owner.value),
                )
                .with_help(format!("add {missing} to its `ratings` block")),
            );
        }
        out
    }

    fn check_class_range(&mut self, value: &m::Value, ty: &Type, span: Span, stat: &str) {
        let v = match value {
            m::Value::Int(n) => *n,
            m::Value::Step { index, .. } => i64::from(*index),
            _ => return,
        };
        let ranges: Vec<(i64, i64, Span)> =
            self.class_ranges.iter().filter(|(t, ..)| t == ty).map(|(_, lo, hi, s)| (*lo, *hi, *s)).collect();
        for (lo, hi, range_span) in ranges {
            if v >= lo && v <= hi {
                continue;
            }
            let shown = |n: i64| match ty {
                Type::Scale(s) => self.scale(s).and_then(|v| v.get(n as usize)).cloned().unwrap_or_default(),
                _ => n.to_string(),
            };
            let (lo_s, hi_s, v_s) = (shown(lo), shown(hi), shown(v));
            self.error(
                Diagnostic::error(CLASS_RATING_RANGE, span, format!("a class cannot give {stat} {v_s}: class defaults range {lo_s}..{hi_s}"))
                    .with_label(format!("outside {lo_s}..{hi_s}"))
                    .with_secondary(range_span, "the ruleset's class range")
                    .with_help(format!(
                        "use a rating from {lo_s} to {hi_s}; reach {v_s} in play through modifiers such as Bonus({stat}{}1) on a weapon",
                        if v > hi { "+" } else { "-" }
                    )),
            );
        }
    }

    fn wields(&mut self, names: &[ast::Ident]) -> Vec<String> {
        let mut out = Vec::new();
        for n in names {
            if self.weapon_types.contains(&n.value) {
                if !out.contains(&n.value) {
                    out.push(n.value.clone());
                }
            } else {
                self.unknown_weapon_type(n);
            }
        }
        out
    }

    fn lower_classes(&mut self) -> Vec<m::Class> {
        let names = self.classes.order.clone();
        let mut out = Vec::new();
        for name in names {
            let Some(c) = self.classes.get(&name).copied() else { continue };
            let is_shifter = c.tags.iter().any(|t| self.shifter_tags.contains(&t.name.value));
            let tags = self.tag_uses(&c.tags, m::ThingKind::Class, &c.name.value);
            let mut wields = self.wields(&c.wields);
            let mut ratings = self.ratings(&c.ratings, &c.name, "the class");
            let forms = match (&c.normal, &c.transformed) {
                (Some(n), Some(t)) => {
                    if !is_shifter {
                        self.error(
                            Diagnostic::error(
                                CLASS_SHIFTER,
                                n.span,
                                format!("`{}` has shifter forms but no shifter tag", c.name.value),
                            )
                            .with_help("add `tags Shifter` so the forms are used, or remove the forms"),
                        );
                    }
                    let normal = self.form(n, &c.name, "the normal form of");
                    let transformed = self.form(t, &c.name, "the transformed form of");
                    Some(m::ShifterForms { normal, transformed })
                }
                (one, other) if is_shifter || one.is_some() || other.is_some() => {
                    let missing = match (one, other) {
                        (None, None) => "a `normal { ... }` and a `transformed { ... }` form",
                        (None, _) => "a `normal { ... }` form",
                        _ => "a `transformed { ... }` form",
                    };
                    self.error(
                        Diagnostic::error(CLASS_SHIFTER, c.name.span, format!("the shifter class `{}` lacks {missing}", c.name.value))
                            .with_help("shifters build on their Transformed state and record their Normal state: give both forms with full ratings"),
                    );
                    None
                }
                _ => None,
            };
            if c.ratings.is_empty() {
                match &forms {
                    // A shifter is built on its transformed stat block (seed: "build using the appropriate Transformed state").
                    Some(f) => {
                        ratings = f.transformed.ratings.clone();
                        if wields.is_empty() {
                            wields = f.transformed.wields.clone();
                        }
                    }
                    None if c.normal.is_none() && c.transformed.is_none() && !is_shifter => {
                        self.error(
                            Diagnostic::error(
                                MISSING_FIELD,
                                c.name.span,
                                format!("the class `{}` has no `ratings`", c.name.value),
                            )
                            .with_help("add a `ratings { ... }` block with every stat of the ruleset"),
                        );
                    }
                    None => {}
                }
            }
            self.at_most_one(&c.costs, "cost");
            let cost = match c.costs.first() {
                Some(cost) if cost.value >= 0 => cost.value,
                Some(cost) => {
                    self.error(
                        Diagnostic::error(NUMBER_RANGE, cost.span, "a negative cost").with_help("costs are 0 gold or more"),
                    );
                    0
                }
                None => {
                    self.error(
                        Diagnostic::error(MISSING_FIELD, c.name.span, format!("the class `{}` has no `cost`", c.name.value))
                            .with_help("add `cost N`: the gold it takes to hire a unit of this class"),
                    );
                    0
                }
            };
            let promoted_from = c.promoted.as_ref().and_then(|p| p.from.as_ref()).and_then(|from| {
                if self.classes.contains(&from.value) {
                    Some(from.value.clone())
                } else {
                    let names = self.classes.order.clone();
                    self.unknown_in::<()>(UNKNOWN_CLASS, "class", from, names, None);
                    None
                }
            });
            let kit = self.kit(c, &wields);
            out.push(m::Class {
                name: c.name.value.clone(),
                title: c.title.clone(),
                doc: c.doc.clone(),
                ratings,
                wields,
                tags,
                cost,
                promoted: c.promoted.is_some(),
                promoted_from,
                kit,
                forms,
            });
        }
        out
    }

    fn form(&mut self, f: &ast::Form, owner: &ast::Ident, what: &str) -> m::Form {
        let tags = self.tag_uses(&f.tags, m::ThingKind::Class, &owner.value);
        let wields = self.wields(&f.wields);
        let ratings = if f.ratings.is_empty() {
            self.error(
                Diagnostic::error(CLASS_MISSING_RATING, f.span, format!("{what} `{}` has no ratings", owner.value))
                    .with_help("each form needs a full `ratings { ... }` block"),
            );
            BTreeMap::new()
        } else {
            self.ratings(&f.ratings, owner, what)
        };
        m::Form { ratings, wields, tags }
    }

    fn kit(&mut self, c: &ast::ClassDef, wields: &[String]) -> Vec<String> {
        let mut out = Vec::new();
        for name in &c.kit {
            let Some(item) = self.items.get(&name.value).copied() else {
                let names = self.items.order.clone();
                self.unknown_in::<()>(UNKNOWN_ITEM, "item", name, names, None);
                continue;
            };
            if let Some(ty) = item.weapon_type.first() {
                if item.kind == ast::ItemKind::Weapon && !wields.contains(&ty.value) {
                    self.error(
                        Diagnostic::error(
                            CLASS_KIT,
                            name.span,
                            format!(
                                "`{}` cannot use `{}`: it is {} and the class wields {}",
                                c.name.value,
                                name.value,
                                ty.value,
                                if wields.is_empty() { "nothing".to_string() } else { wields.join(", ") }
                            ),
                        )
                        .with_help("pick a weapon of a type the class wields, or add the type to `wields`"),
                    );
                }
            }
            out.push(name.value.clone());
        }
        if out.len() > self.inventory as usize {
            let span = c.kit.first().map_or(c.name.span, |f| f.span.to(c.kit.last().map_or(f.span, |l| l.span)));
            self.error(
                Diagnostic::error(
                    CLASS_KIT,
                    span,
                    format!("a kit of {} items, but units carry at most {}", out.len(), self.inventory),
                )
                .with_help(format!(
                    "the ruleset's inventory holds {} items: remove {}",
                    self.inventory,
                    out.len() - self.inventory as usize
                )),
            );
        }
        out
    }

    fn lower_items(&mut self) -> Vec<m::Item> {
        let names = self.items.order.clone();
        let mut out = Vec::new();
        let (wlo, whi) = self.ruleset.and_then(|r| r.weight_ranges.first()).map_or((i64::MIN, i64::MAX), |w| w.value);
        let weight_span = self.ruleset.and_then(|r| r.weight_ranges.first()).map(|w| w.span);
        for name in names {
            let Some(it) = self.items.get(&name).copied() else { continue };
            let kind = match it.kind {
                ast::ItemKind::Weapon => m::ThingKind::Weapon,
                ast::ItemKind::Accessory => m::ThingKind::Accessory,
                ast::ItemKind::Consumable => m::ThingKind::Consumable,
            };
            let word = it.kind.word();
            if it.kind != ast::ItemKind::Weapon {
                for (field, span) in it
                    .weapon_type
                    .iter()
                    .map(|t| ("type", t.span))
                    .chain(it.might.iter().map(|m| ("might", m.span)))
                    .chain(it.range.iter().map(|r| ("range", r.span)))
                {
                    self.error(
                        Diagnostic::error(FIELD_NOT_ALLOWED, span, format!("{} has no `{field}`", article(word))).with_help(
                            format!("only weapons have `{field}`; make `{}` a weapon or remove the field", it.name.value),
                        ),
                    );
                }
            }
            if it.kind != ast::ItemKind::Consumable {
                if let Some(first) = it.uses.first().and_then(|u| u.first()) {
                    self.error(
                        Diagnostic::error(FIELD_NOT_ALLOWED, stmt_span(first), format!("{} has no `use`", article(word)))
                            .with_help("only consumables are used up; give weapons and accessories tags or modifiers"),
                    );
                }
            }
            self.at_most_one(&it.weapon_type, "type");
            self.at_most_one(&it.might, "might");
            self.at_most_one(&it.weight, "weight");
            self.at_most_one(&it.costs, "cost");
            let weapon_type = it.weapon_type.first().and_then(|t| {
                if self.weapon_types.contains(&t.value) {
                    Some(t.value.clone())
                } else {
                    self.unknown_weapon_type(t);
                    None
                }
            });
            if it.kind == ast::ItemKind::Weapon && it.weapon_type.is_empty() {
                self.error(
                    Diagnostic::error(MISSING_FIELD, it.name.span, format!("the weapon `{}` has no `type`", it.name.value))
                        .with_help(format!("add `type T` with one of: {}", self.weapon_types.order.join(", "))),
                );
            }
            let weight = it.weight.first().map_or(0, |w| w.value);
            if let Some(w) = it.weight.first() {
                if w.value < wlo || w.value > whi {
                    let mut d =
                        Diagnostic::error(ITEM_WEIGHT_RANGE, w.span, format!("a weight of {} is outside {wlo}..{whi}", w.value))
                            .with_label(format!("must be within {wlo}..{whi}"))
                            .with_help("weight shifts Speed by that many steps; the ruleset allows -2 (light) to 2 (heavy)");
                    if let Some(ws) = weight_span {
                        d = d.with_secondary(ws, "the ruleset's weight bounds");
                    }
                    self.error(d);
                }
            }
            let range = match (it.kind, it.range.first()) {
                (ast::ItemKind::Weapon, None) => {
                    self.error(
                        Diagnostic::error(MISSING_FIELD, it.name.span, format!("the weapon `{}` has no `range`", it.name.value))
                            .with_help("add `range 1` (melee), `range 1..2` or `range 1..staff_range[self.mag]`"),
                    );
                    None
                }
                (ast::ItemKind::Weapon, Some(r)) => self.range(r),
                _ => None,
            };
            self.at_most_one_range(&it.range);
            let tags = self.tag_uses(&it.tags, kind, &it.name.value);
            let cost = match it.costs.first() {
                Some(c) if c.value >= 0 => c.value,
                Some(c) => {
                    self.error(Diagnostic::error(NUMBER_RANGE, c.span, "a negative cost").with_help("costs are 0 gold or more"));
                    0
                }
                None => {
                    self.error(
                        Diagnostic::error(MISSING_FIELD, it.name.span, format!("the {word} `{}` has no `cost`", it.name.value))
                            .with_help("add `cost N`: its price in gold when outfitting a unit"),
                    );
                    0
                }
            };
            let scope = Scope { params: &[], units: true, combat: false, formulas: None, rolls: true, dice_values: false };
            let uses = it.uses.iter().flat_map(|u| self.effects(u, &scope, true)).collect();
            for u in &it.uses {
                self.check_contexts(u, Context::Use);
            }
            let modifiers = self.effects(&it.modifiers, &scope, false);
            self.check_contexts(&it.modifiers, Context::Always);
            out.push(m::Item {
                name: it.name.value.clone(),
                kind: match it.kind {
                    ast::ItemKind::Weapon => m::ItemKind::Weapon,
                    ast::ItemKind::Accessory => m::ItemKind::Accessory,
                    ast::ItemKind::Consumable => m::ItemKind::Consumable,
                },
                title: it.title.clone(),
                doc: it.doc.clone(),
                weapon_type,
                might: it.might.first().map_or(0, |m| m.value),
                weight,
                range,
                tags,
                cost,
                uses,
                modifiers,
            });
        }
        out
    }

    fn at_most_one_range(&mut self, ranges: &[ast::RangeSpec]) {
        if let [first, rest @ ..] = ranges {
            for extra in rest {
                self.error(
                    Diagnostic::error(DUPLICATE_FIELD, extra.span, "`range` is given twice")
                        .with_secondary(first.span, "first here")
                        .with_help("keep one `range`"),
                );
            }
        }
    }

    fn range(&mut self, r: &ast::RangeSpec) -> Option<m::Range> {
        let scope = Scope { params: &[], units: true, combat: false, formulas: None, rolls: false, dice_values: false };
        let (min, min_ty) = self.expr(&r.min, &scope, Some(&Type::Int));
        let (max, max_ty) = match &r.max {
            Some(e) => self.expr(e, &scope, Some(&Type::Int)),
            None => (min.clone(), min_ty.clone()),
        };
        for (ty, span) in [(min_ty, r.min.span), (max_ty, r.max.as_ref().map_or(r.min.span, |e| e.span))] {
            if let Some(ty) = ty {
                if ty != Type::Int {
                    self.mismatch(span, &Type::Int, &ty, "a range is a number of tiles");
                    return None;
                }
            }
        }
        if let (m::Expr::Const(m::Value::Int(lo)), m::Expr::Const(m::Value::Int(hi))) = (&min, &max) {
            if *lo < 0 || lo > hi {
                self.error(
                    Diagnostic::error(ITEM_RANGE, r.span, format!("the range {lo}..{hi} is empty"))
                        .with_help("write the nearer bound first, both 0 or more: `range 1..2`"),
                );
                return None;
            }
        }
        Some(m::Range { min, max })
    }

    fn unwieldable_warnings(&mut self) {
        let mut wielded: HashSet<&str> = HashSet::new();
        for name in &self.classes.order {
            let Some(c) = self.classes.get(name) else { continue };
            for w in
                c.wields.iter().chain(c.normal.iter().flat_map(|f| &f.wields)).chain(c.transformed.iter().flat_map(|f| &f.wields))
            {
                wielded.insert(w.value.as_str());
            }
        }
        let mut warnings = Vec::new();
        for name in &self.items.order {
            let Some(it) = self.items.get(name) else { continue };
            if it.kind != ast::ItemKind::Weapon {
                continue;
            }
            let Some(t) = it.weapon_type.first() else { continue };
            if self.weapon_types.contains(&t.value) && !wielded.contains(t.value.as_str()) {
                warnings.push(
                    Diagnostic::warning(
                        ITEM_UNWIELDABLE,
                        t.span,
                        format!("no class can wield `{}`: nothing wields {}", it.name.value, t.value),
                    )
                    .with_help(format!("add {} to some class's `wields`, or change the weapon's type", t.value)),
                );
            }
        }
        self.diags.extend(warnings);
    }
}

fn article(word: &str) -> String {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        format!("an {word}")
    } else {
        format!("a {word}")
    }
}

pub(crate) fn is_required_formula(name: &str) -> bool {
    REQUIRED_FORMULAS.iter().any(|(n, _)| *n == name)
}

fn literal_text(l: &ast::Literal) -> String {
    match l {
        ast::Literal::Int(n) => n.to_string(),
        ast::Literal::Bool(b) => b.to_string(),
        ast::Literal::Name(n) => n.clone(),
        ast::Literal::Dice(..) => "dice".to_string(),
    }
}

pub(crate) fn stmt_span(s: &ast::Stmt) -> Span {
    match s {
        ast::Stmt::Modify { span, .. }
        | ast::Stmt::When { span, .. }
        | ast::Stmt::On { span, .. }
        | ast::Stmt::Grant { span, .. }
        | ast::Stmt::Command { span, .. } => *span,
        ast::Stmt::Action(a) => a.span,
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
            ast::Stmt::Grant { tag, .. } => granted.push(tag.name.value.clone()),
            _ => {}
        }
    }
    found
}
