//! Name resolution for the editor: every name of a syntax tree with its role — the definition it
//! makes, or the kinds of definition it may mean there — and what it resolves to in a scope.
//!
//! A use means the first kind of its role's list that has a definition of that name in scope:
//! after `wields` only a weapon type, in `opened_by` a tag or an item, in a tag's argument what
//! the tag's parameter takes (`Effective(Armored)`: the tag `Armored`), in an expression first
//! the parameter of the tag around it, then statuses, steps, terrains, movements... and a tag
//! last (the movement type `Armored` in `movement_type = Armored`).
//!
//! A combat formula is a definition of its own, seen as the compiler sees it (`Scope::formulas`
//! in `oc_compiler::expr`): a formula reads the formulas above it in its combat block, a `gain`
//! and a reaction that rerolls read every one; there a bare name means a formula before any
//! definition of the ruleset (the formula `damage`, not a table or die `damage`), though never
//! a unit nor the engine's own values (`distance`, `chart`...). A table is looked up
//! (`damage[...]`) and a die rolled (`roll(damage)`) by their own names still.

use std::collections::HashMap;

use oc_diag::Span;
use oc_syntax::ast::{self, Cond, ExprKind, Item, Selector, Stmt};

use crate::defs::{Def, DefKind};

/// What a name does where it is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A definition's own name.
    Def(DefKind),
    /// A use: it means a definition of the first of these kinds that exists.
    Use(&'static [DefKind]),
    /// A parameter named in its tag's head.
    ParamDef,
    /// An attribute read or written (`self.movement`, `crit_bonus += 1`): a stat, base or
    /// resource of the ruleset, or one the engine knows.
    Attr,
    /// A bare name in an expression (see the module's documentation).
    Value,
    /// A unit of the army written at this span (`joins NAME`: a unit of its own army).
    Member(Span),
    /// A combat formula only (`reroll NAME` in a reaction).
    Formula,
    /// A step variable read in a turn formula (`moved`, `action`: `oc_model::STEP_PARAMS`).
    Step,
    Event,
    Verb,
}

/// One name in a file.
#[derive(Clone, Debug)]
pub struct Occurrence<'a> {
    pub name: &'a str,
    pub span: Span,
    pub role: Role,
    /// The tag whose body or head holds it (its parameters are seen there only).
    pub tag: Option<&'a ast::TagDef>,
    /// In a tag's argument list: the tag's name and the argument's index.
    pub arg_of: Option<(&'a str, usize)>,
    /// The combat formulas a bare name may mean here (none outside combat).
    pub formulas: Option<Formulas>,
}

/// The combat formulas seen from a place: those defined in the combat block at `block` whose
/// names are written before `before` (a formula sees those above it; a `gain` and a reaction
/// that rerolls see the whole block).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Formulas {
    pub block: Span,
    pub before: u32,
}

impl Formulas {
    /// Whether a formula defined at `name` (its name's span) is seen.
    pub fn sees(&self, name: Span) -> bool {
        self.block.start <= name.start && name.end <= self.block.end && name.start < self.before
    }
}

/// A use of a tag with arguments written or expected: `Lucky(5)`.
#[derive(Clone, Debug)]
pub struct TagCall<'a> {
    pub name: &'a ast::Ident,
    pub args: Vec<Span>,
    pub span: Span,
}

/// Every name of a file, in no particular order, and every tag use.
#[derive(Default)]
pub struct Names<'a> {
    pub occurrences: Vec<Occurrence<'a>>,
    pub calls: Vec<TagCall<'a>>,
}

const TAG: &[DefKind] = &[DefKind::Tag];
const CLASS: &[DefKind] = &[DefKind::Class];
const ITEM: &[DefKind] = &[DefKind::Item];
const WEAPON_TYPE: &[DefKind] = &[DefKind::WeaponType];
const TERRAIN: &[DefKind] = &[DefKind::Terrain];
const MOVEMENT: &[DefKind] = &[DefKind::Movement];
const STATUS: &[DefKind] = &[DefKind::Status];
const UNIT: &[DefKind] = &[DefKind::Unit];
/// After `has`: a tag or a status.
const TAG_OR_STATUS: &[DefKind] = &[DefKind::Tag, DefKind::Status];
const SCENARIO: &[DefKind] = &[DefKind::Scenario];
const STEP: &[DefKind] = &[DefKind::ScaleMember];
const STAT: &[DefKind] = &[DefKind::Stat, DefKind::Base, DefKind::Resource];
const RESOURCE: &[DefKind] = &[DefKind::Resource];
const DICE: &[DefKind] = &[DefKind::Dice];
const TYPE: &[DefKind] = &[DefKind::Scale];
const TAG_OR_ITEM: &[DefKind] = &[DefKind::Tag, DefKind::Item];
const TABLE_OR_DICE: &[DefKind] = &[DefKind::Table, DefKind::Dice];

/// The words an expression reads as the engine's own values whatever is defined (besides the
/// units): the compiler reads them before parameters' and formulas' names.
pub const READ_AS_BUILTIN: &[&str] = &["distance", "triangle", "dealt", "chart", "cover"];

/// The step variable `name` (`oc_model::STEP_PARAMS`), with its type.
pub fn step_param(name: &str) -> Option<(&'static str, &'static oc_model::Type)> {
    oc_model::STEP_PARAMS.iter().find(|(n, _)| *n == name).map(|(n, t)| (*n, t))
}

/// Whether a bare name in an expression means the engine's own value or a unit (`self`, `foe`...).
pub fn reads_as_builtin(name: &str) -> bool {
    READ_AS_BUILTIN.contains(&name) || oc_model::UnitRef::ALL.iter().any(|(n, _)| *n == name)
}

/// What a bare name in an expression may mean, in order.
pub const VALUE: &[DefKind] = &[
    DefKind::Status,
    DefKind::ScaleMember,
    DefKind::Terrain,
    DefKind::Movement,
    DefKind::WeaponType,
    DefKind::Class,
    DefKind::Item,
    DefKind::Dice,
    DefKind::Table,
    DefKind::Stat,
    DefKind::Base,
    DefKind::Resource,
    DefKind::Tag,
];

/// What a tag's parameter of type `ty` takes, as kinds of definition.
pub fn kinds_of_type(ty: &str) -> &'static [DefKind] {
    match ty {
        "Tag" => TAG,
        "Class" => CLASS,
        "WeaponType" => WEAPON_TYPE,
        "Status" => STATUS,
        "Terrain" => TERRAIN,
        "Movement" => MOVEMENT,
        "Stat" | "StatMod" => STAT,
        "Int" | "Bool" | "Dice" | "Str" => &[],
        // A scale's name: its steps.
        _ => STEP,
    }
}

struct Walk<'a> {
    out: Names<'a>,
    tag: Option<&'a ast::TagDef>,
    /// The combat formulas seen where the walk is.
    formulas: Option<Formulas>,
    /// In a turn formula, where a bare name may be a step variable.
    step: bool,
}

impl<'a> Walk<'a> {
    fn push(&mut self, name: &'a ast::Ident, role: Role) {
        self.at(&name.value, name.span, role);
    }

    fn at(&mut self, name: &'a str, span: Span, role: Role) {
        self.out.occurrences.push(Occurrence { name, span, role, tag: self.tag, arg_of: None, formulas: self.formulas });
    }

    fn uses(&mut self, names: impl IntoIterator<Item = &'a ast::Ident>, kinds: &'static [DefKind]) {
        for n in names {
            self.push(n, Role::Use(kinds));
        }
    }

    fn tag_ref(&mut self, r: &'a ast::TagRef) {
        self.tag_ref_as(r, TAG);
    }

    /// A tag reference whose name may be one of `kinds` (`has` takes a tag or a status).
    fn tag_ref_as(&mut self, r: &'a ast::TagRef, kinds: &'static [DefKind]) {
        self.push(&r.name, Role::Use(kinds));
        self.out.calls.push(TagCall { name: &r.name, args: r.args.iter().map(|a| a.span).collect(), span: r.span });
        for (i, arg) in r.args.iter().enumerate() {
            let before = self.out.occurrences.len();
            self.expr(arg);
            for o in self.out.occurrences.iter_mut().skip(before) {
                if o.role == Role::Value && o.arg_of.is_none() {
                    o.arg_of = Some((&r.name.value, i));
                }
            }
        }
    }

    fn literal(&mut self, lit: &'a oc_diag::Spanned<ast::Literal>) {
        if let ast::Literal::Name(n) = &lit.value {
            self.at(n, lit.span, Role::Use(STEP));
        }
    }

    fn expr(&mut self, e: &'a ast::Expr) {
        match &e.kind {
            ExprKind::Name(n) if self.step && step_param(n).is_some() => self.at(n, e.span, Role::Step),
            ExprKind::Name(n) => self.at(n, e.span, Role::Value),
            ExprKind::Unary(_, a) => self.expr(a),
            ExprKind::Binary(_, a, b) => {
                self.expr(a);
                self.expr(b);
            }
            ExprKind::Field(base, field) => {
                self.expr(base);
                self.push(field, Role::Attr);
            }
            ExprKind::Index(base, args) => {
                if let ExprKind::Name(n) = &base.kind {
                    self.at(n, base.span, Role::Use(TABLE_OR_DICE));
                } else {
                    self.expr(base);
                }
                for a in args {
                    self.expr(a);
                }
            }
            ExprKind::Call(f, args) => {
                // `roll(hit)`: a die by name.
                if f.value.as_str() == "roll" {
                    for a in args {
                        match &a.kind {
                            ExprKind::Name(n) => self.at(n, a.span, Role::Use(DICE)),
                            _ => self.expr(a),
                        }
                    }
                } else {
                    self.push(f, Role::Verb);
                    for a in args {
                        self.expr(a);
                    }
                }
            }
            ExprKind::Has(a, r) => {
                self.expr(a);
                self.tag_ref_as(r, TAG_OR_STATUS);
            }
            ExprKind::If(a, b, c) => {
                self.expr(a);
                self.expr(b);
                self.expr(c);
            }
            ExprKind::Int(_) | ExprKind::Bool(_) | ExprKind::Str(_) | ExprKind::Die(_) | ExprKind::Error => {}
        }
    }

    fn stmts(&mut self, body: &'a [Stmt]) {
        for s in body {
            self.stmt(s);
        }
    }

    fn stmt(&mut self, s: &'a Stmt) {
        match s {
            Stmt::Modify { place, value, .. } => {
                for p in place {
                    self.push(p, Role::Attr);
                }
                self.expr(value);
            }
            Stmt::When { condition, body, .. } => {
                self.expr(condition);
                self.stmts(body);
            }
            Stmt::On { event, body, .. } => {
                self.push(event, Role::Event);
                self.stmts(body);
            }
            Stmt::Grant { tag, .. } => self.tag_ref(tag),
            Stmt::Action(a) => {
                for e in a.target.iter().flat_map(|t| t.min.iter().chain(t.max.iter())) {
                    self.expr(e);
                }
                for e in &a.requires {
                    self.expr(e);
                }
                self.stmts(&a.body);
            }
            Stmt::Command { verb, args, .. } => {
                self.push(verb, Role::Verb);
                for a in args {
                    self.expr(a);
                }
            }
        }
    }

    fn ruleset(&mut self, r: &'a ast::Ruleset) {
        self.push(&r.name, Role::Def(DefKind::Ruleset));
        for s in &r.scales {
            self.push(&s.name, Role::Def(DefKind::Scale));
            for m in &s.members {
                self.push(m, Role::Def(DefKind::ScaleMember));
            }
        }
        for s in &r.stats {
            self.push(&s.name, Role::Def(DefKind::Stat));
            self.push(&s.ty, Role::Use(TYPE));
        }
        for b in &r.bases {
            self.push(&b.name, Role::Def(DefKind::Base));
            self.push(&b.ty, Role::Use(TYPE));
            self.expr(&b.value);
        }
        for c in &r.class_ranges {
            self.push(&c.ty, Role::Use(TYPE));
            for bound in [&c.low, &c.high] {
                if let ast::Bound::Name(n) = &bound.value {
                    self.at(n, bound.span, Role::Use(STEP));
                }
            }
        }
        for d in &r.dice {
            self.push(&d.name, Role::Def(DefKind::Dice));
        }
        for t in &r.tables {
            self.push(&t.name, Role::Def(DefKind::Table));
            self.uses(&t.keys, TYPE);
            self.push(&t.value_ty, Role::Use(TYPE));
            for row in &t.rows {
                self.uses(&row.keys, STEP);
                for v in &row.values {
                    self.literal(v);
                }
            }
        }
        // A formula sees those above it in its block; a gain, every formula of its block.
        for c in &r.combat {
            for f in &c.formulas {
                self.push(&f.name, Role::Def(DefKind::Formula));
                self.formulas = Some(Formulas { block: c.span, before: f.name.span.start });
                self.expr(&f.value);
            }
            self.formulas = Some(Formulas { block: c.span, before: c.span.end });
            for g in &c.gains {
                self.push(&g.resource, Role::Use(RESOURCE));
                self.expr(&g.value);
            }
            self.formulas = None;
        }
        for res in &r.resources {
            self.push(&res.name, Role::Def(DefKind::Resource));
            self.push(&res.ty, Role::Use(TYPE));
            self.expr(&res.value);
            if let Some(at) = &res.at {
                self.push(at, Role::Event);
            }
        }
        for t in &r.turns {
            for o in &t.order {
                match &o.value {
                    ast::OrderDef::Alternate => {}
                    ast::OrderDef::Rolloff { dice } => self.push(dice, Role::Use(DICE)),
                    ast::OrderDef::By { resource, ties } => {
                        self.push(resource, Role::Use(RESOURCE));
                        if let Some(t) = ties {
                            self.push(t, Role::Use(DICE));
                        }
                    }
                }
            }
            self.uses(&t.spend, RESOURCE);
            // A step's formulas read its variables before any definition (the compiler's scope).
            self.step = true;
            for f in &t.formulas {
                self.expr(&f.value);
            }
            self.step = false;
        }
        for re in &r.reactions {
            self.push(&re.name, Role::Def(DefKind::Reaction));
            for (resource, _) in &re.costs {
                self.push(resource, Role::Use(RESOURCE));
            }
            // A reaction to a roll names a formula of the (first) combat block, and its
            // requirement reads them all; another reaction, taken before the strike, none.
            if let Some(x) = &re.reroll {
                self.formulas = r.combat.first().map(|c| Formulas { block: c.span, before: c.span.end });
                self.push(&x.formula, Role::Formula);
            }
            for e in &re.requires {
                self.expr(e);
            }
            self.stmts(&re.modifiers);
            self.formulas = None;
        }
        for t in &r.basic {
            self.tag_ref(t);
        }
        // The advanced rules' blocks name tags, statuses, an attribute and a die.
        for c in &r.courage {
            for e in c.check.iter().chain(&c.losses).chain(&c.rally) {
                self.expr(e);
            }
            for (tag, _) in &c.fear {
                self.push(tag, Role::Use(TAG));
            }
        }
        for l in &r.leadership {
            self.uses(&l.general, TAG);
            for (_, status) in &l.beyond {
                self.push(status, Role::Use(STATUS));
            }
            for e in &l.save {
                self.expr(e);
            }
        }
        for s in &r.situations {
            self.uses(&s.ground, STAT);
            self.uses(s.flank.iter().chain(&s.rear).chain(&s.blind).chain(&s.mixed), STATUS);
            for (tag, status) in &s.flying {
                self.push(tag, Role::Use(TAG));
                self.push(status, Role::Use(STATUS));
            }
        }
        for w in &r.weather {
            self.push(&w.dice, Role::Use(DICE));
            for (_, status) in &w.faces {
                self.push(status, Role::Use(STATUS));
            }
        }
        for c in &r.charging {
            for e in &c.with {
                self.expr(e);
            }
        }
        for f in &r.formations {
            self.uses(&f.tags, TAG);
        }
        for a in &r.area {
            for e in &a.within {
                self.expr(e);
            }
        }
    }

    fn ratings(&mut self, blocks: impl IntoIterator<Item = &'a ast::RatingsBlock>) {
        for b in blocks {
            for (stat, value) in &b.entries {
                self.push(stat, Role::Use(STAT));
                self.literal(value);
            }
        }
    }

    fn cond(&mut self, c: &'a Cond) {
        match c {
            Cond::And(a, b) | Cond::Or(a, b) => {
                self.cond(a);
                self.cond(b);
            }
            Cond::Not(a, _) => self.cond(a),
            // `rout "NAME"`: a unit of an army, named inside the quotes.
            Cond::RoutUnit(u) => {
                let inner =
                    Span { file: u.span.file, start: u.span.start + 1, end: u.span.end.saturating_sub(1).max(u.span.start + 1) };
                self.at(&u.value, inner, Role::Use(UNIT));
            }
            _ => {}
        }
    }

    fn item(&mut self, item: &'a Item) {
        match item {
            Item::Import(_) => {}
            Item::Ruleset(r) => self.ruleset(r),
            Item::Movement(names) => {
                for n in names {
                    self.push(n, Role::Def(DefKind::Movement));
                }
            }
            Item::WeaponType(w) => self.push(&w.name, Role::Def(DefKind::WeaponType)),
            Item::Triangle(t) => {
                for chain in &t.chains {
                    self.uses(chain, WEAPON_TYPE);
                }
            }
            Item::Terrain(t) => {
                self.push(&t.name, Role::Def(DefKind::Terrain));
                for c in &t.costs {
                    self.push(&c.movement, Role::Use(MOVEMENT));
                }
                for h in &t.heal {
                    self.push(&h.event, Role::Event);
                }
                self.uses(&t.becomes, TERRAIN);
                self.uses(&t.opened_by, TAG_OR_ITEM);
            }
            Item::Tag(t) => {
                self.push(&t.name, Role::Def(DefKind::Tag));
                self.tag = Some(t);
                for p in &t.params {
                    self.push(&p.name, Role::ParamDef);
                    self.push(&p.ty, Role::Use(TYPE));
                }
                self.stmts(&t.body);
                self.tag = None;
            }
            Item::Status(s) => {
                self.push(&s.name, Role::Def(DefKind::Status));
                self.stmts(&s.body);
                for c in &s.clears {
                    if let Some(e) = &c.condition {
                        self.expr(e);
                    }
                    self.push(&c.event, Role::Event);
                }
            }
            Item::Class(c) => {
                self.push(&c.name, Role::Def(DefKind::Class));
                self.ratings(&c.ratings);
                self.uses(&c.wields, WEAPON_TYPE);
                for t in &c.tags {
                    self.tag_ref(t);
                }
                if let Some(from) = c.promoted.as_ref().and_then(|p| p.from.as_ref()) {
                    self.push(from, Role::Use(CLASS));
                }
                self.uses(&c.kit, ITEM);
                for form in c.normal.iter().chain(c.transformed.iter()) {
                    self.ratings(&form.ratings);
                    self.uses(&form.wields, WEAPON_TYPE);
                    for t in &form.tags {
                        self.tag_ref(t);
                    }
                }
            }
            Item::Item(i) => {
                self.push(&i.name, Role::Def(DefKind::Item));
                self.uses(&i.weapon_type, WEAPON_TYPE);
                for r in &i.range {
                    self.expr(&r.min);
                    if let Some(max) = &r.max {
                        self.expr(max);
                    }
                }
                for t in &i.tags {
                    self.tag_ref(t);
                }
                for u in &i.uses {
                    self.stmts(u);
                }
                self.stmts(&i.modifiers);
            }
            Item::Scenario(s) => {
                self.push(&s.name, Role::Def(DefKind::Scenario));
                for c in &s.chests {
                    self.push(&c.item, Role::Use(ITEM));
                }
                for side in &s.sides {
                    for (tag, _) in &side.grants {
                        self.push(tag, Role::Use(TAG));
                    }
                    self.uses(&side.allow_classes, CLASS);
                    self.uses(&side.ban_classes, CLASS);
                    self.uses(&side.allow_items, ITEM);
                    self.uses(&side.ban_items, ITEM);
                    for l in &side.limits {
                        match &l.selector {
                            Selector::With(t) => self.push(t, Role::Use(TAG)),
                            Selector::Class(c) => self.push(c, Role::Use(CLASS)),
                            Selector::Wielding(w) => self.push(w, Role::Use(WEAPON_TYPE)),
                            Selector::Each(_) | Selector::Ranged(_) => {}
                        }
                    }
                    for w in &side.wins {
                        self.cond(w);
                    }
                }
            }
            Item::Army(a) => {
                self.push(&a.name, Role::Def(DefKind::Army));
                self.push(&a.scenario, Role::Use(SCENARIO));
                for u in &a.units {
                    self.push(&u.name, Role::Def(DefKind::Unit));
                    self.push(&u.class, Role::Use(CLASS));
                    self.uses(&u.items, ITEM);
                    self.uses(&u.tags, TAG);
                    if let Some(j) = &u.joins {
                        self.push(j, Role::Member(a.span));
                    }
                }
            }
        }
    }
}

/// Every name of a file and every tag use.
pub fn names(file: &ast::SourceFile) -> Names<'_> {
    let mut walk = Walk { out: Names::default(), tag: None, formulas: None, step: false };
    for item in &file.items {
        walk.item(item);
    }
    walk.out.occurrences.sort_by_key(|o| (o.span.start, o.span.end));
    walk.out
}

/// What a name resolves to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved<'a> {
    /// A definition, in the file at this path.
    Def(&'a str, Def),
    /// A parameter of a tag: the tag's file, the tag and the parameter.
    Param {
        path: &'a str,
        tag: Span,
        def: Def,
    },
    /// An attribute the ruleset does not define (the engine's own: `crit_bonus`).
    Builtin(DefKind),
    /// A step variable (`oc_model::STEP_PARAMS`) read in a turn formula: its name and type.
    Step(&'static str, &'static oc_model::Type),
    Event,
    Verb,
    Unresolved,
}

/// The definitions a scope sees, by name, each with its file.
pub struct Scope<'a> {
    by_name: HashMap<&'a str, Vec<(&'a str, &'a Def)>>,
}

impl<'a> Scope<'a> {
    pub fn new(defs: &'a [(&'a str, Def)]) -> Scope<'a> {
        let mut by_name: HashMap<&'a str, Vec<(&'a str, &'a Def)>> = HashMap::new();
        for (path, d) in defs {
            by_name.entry(d.name.as_str()).or_default().push((path, d));
        }
        Scope { by_name }
    }

    /// The definition of `name` of the first of `kinds` that has one.
    pub fn find(&self, name: &str, kinds: &[DefKind]) -> Option<(&'a str, &'a Def)> {
        let found = self.by_name.get(name)?;
        kinds.iter().find_map(|k| found.iter().find(|(_, d)| d.kind == *k).copied())
    }

    /// Every definition of `name`, of any kind.
    pub fn all(&self, name: &str) -> &[(&'a str, &'a Def)] {
        self.by_name.get(name).map_or(&[], Vec::as_slice)
    }

    /// The kinds of definition the arguments of tag `tag` take, by parameter.
    pub fn param_kinds(&self, db: &dyn crate::Db, tag: &str) -> Vec<&'static [DefKind]> {
        match self.tag_def(db, tag) {
            Some(t) => t.params.iter().map(|p| kinds_of_type(&p.ty.value)).collect(),
            None => Vec::new(),
        }
    }

    /// The syntax tree of tag `tag`'s definition.
    pub fn tag_def<'d>(&self, db: &'d dyn crate::Db, tag: &str) -> Option<&'d ast::TagDef> {
        let (path, def) = self.find(tag, TAG)?;
        db.ast(path)?.items.iter().find_map(|i| match i {
            Item::Tag(t) if t.name.span == def.name_span => Some(t),
            _ => None,
        })
    }
}

/// What an occurrence of the file at `path` means.
pub fn resolve<'a>(db: &dyn crate::Db, scope: &Scope<'a>, path: &'a str, o: &Occurrence<'_>) -> Resolved<'a> {
    let param = |name: &str| -> Option<Resolved<'a>> {
        let tag = o.tag?;
        let p = tag.params.iter().find(|p| p.name.value.as_str() == name)?;
        let def = Def { kind: DefKind::Param, name: name.to_string(), name_span: p.name.span, span: p.name.span.to(p.ty.span) };
        Some(Resolved::Param { path, tag: tag.name.span, def })
    };
    let found = |kinds: &[DefKind]| scope.find(o.name, kinds).map(|(p, d)| Resolved::Def(p, d.clone()));
    // The first formula of that name the place sees, in this file (the compiler keeps the
    // first of two alike).
    let formula = || -> Option<Resolved<'a>> {
        let seen = o.formulas?;
        scope
            .all(o.name)
            .iter()
            .find(|(p, d)| *p == path && d.kind == DefKind::Formula && seen.sees(d.name_span))
            .map(|(p, d)| Resolved::Def(p, (*d).clone()))
    };
    match o.role {
        Role::Def(kind) => {
            let def = scope
                .all(o.name)
                .iter()
                .find(|(p, d)| *p == path && d.name_span == o.span && d.kind == kind)
                .map(|(p, d)| Resolved::Def(p, (*d).clone()));
            def.unwrap_or(Resolved::Unresolved)
        }
        Role::ParamDef => param(o.name).unwrap_or(Resolved::Unresolved),
        // In a tag's body its parameters come first (`has t`, `grant a` of a `Tag` parameter).
        Role::Use(kinds) => param(o.name).or_else(|| found(kinds)).unwrap_or(Resolved::Unresolved),
        Role::Member(army) => scope
            .all(o.name)
            .iter()
            .find(|(p, d)| {
                *p == path && d.kind == DefKind::Unit && army.start <= d.name_span.start && d.name_span.end <= army.end
            })
            .map_or(Resolved::Unresolved, |(p, d)| Resolved::Def(p, (*d).clone())),
        Role::Attr => param(o.name).or_else(|| found(STAT)).unwrap_or(Resolved::Builtin(DefKind::Stat)),
        Role::Formula => formula().unwrap_or(Resolved::Unresolved),
        Role::Step => step_param(o.name).map_or(Resolved::Unresolved, |(n, t)| Resolved::Step(n, t)),
        Role::Value => {
            if let Some(p) = param(o.name) {
                return p;
            }
            if !reads_as_builtin(o.name) {
                if let Some(f) = formula() {
                    return f;
                }
            }
            if let Some((tag, index)) = o.arg_of {
                if let Some(kinds) = scope.param_kinds(db, tag).get(index) {
                    if !kinds.is_empty() {
                        return found(kinds).unwrap_or(Resolved::Unresolved);
                    }
                }
            }
            found(VALUE).unwrap_or(Resolved::Unresolved)
        }
        Role::Event => Resolved::Event,
        Role::Verb => Resolved::Verb,
    }
}

/// The occurrence at `offset` of a file (its span holds the offset, or ends at it).
pub fn occurrence_at<'n, 'a>(names: &'n Names<'a>, offset: usize) -> Option<&'n Occurrence<'a>> {
    let at = |o: &&Occurrence<'_>| o.span.start as usize <= offset && offset < o.span.end as usize;
    let ends = |o: &&Occurrence<'_>| o.span.end as usize == offset;
    names.occurrences.iter().find(at).or_else(|| names.occurrences.iter().find(ends))
}
