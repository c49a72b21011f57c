//! Definitions: what a file defines (its items, and inside a ruleset its scales, their steps,
//! stats, bases, tables, dice, combat formulas, resources and reactions; inside an army its
//! units), where, and the hover text of each.

use oc_compiler::Workspace;
use oc_diag::Span;
use oc_syntax::ast::{self, Item};

use crate::Db;

/// What a definition defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DefKind {
    Ruleset,
    Scale,
    /// A step of a scale (`C` of `Rating`).
    ScaleMember,
    Stat,
    Base,
    Resource,
    Table,
    Dice,
    /// A combat formula (`damage = ...` in a ruleset's `combat` block): seen only by the
    /// formulas below it, its block's gains and reactions that reroll (see [`crate::names`]).
    Formula,
    Reaction,
    Movement,
    WeaponType,
    Terrain,
    Tag,
    /// A tag's parameter (its own: seen only inside the tag).
    Param,
    Status,
    Class,
    Item,
    Scenario,
    Army,
    /// A unit of an army.
    Unit,
}

impl DefKind {
    pub fn word(self) -> &'static str {
        match self {
            DefKind::Ruleset => "ruleset",
            DefKind::Scale => "scale",
            DefKind::ScaleMember => "step",
            DefKind::Stat => "stat",
            DefKind::Base => "base attribute",
            DefKind::Resource => "resource",
            DefKind::Table => "table",
            DefKind::Dice => "dice",
            DefKind::Formula => "formula",
            DefKind::Reaction => "reaction",
            DefKind::Movement => "movement",
            DefKind::WeaponType => "weapon type",
            DefKind::Terrain => "terrain",
            DefKind::Tag => "tag",
            DefKind::Param => "parameter",
            DefKind::Status => "status",
            DefKind::Class => "class",
            DefKind::Item => "item",
            DefKind::Scenario => "scenario",
            DefKind::Army => "army",
            DefKind::Unit => "unit",
        }
    }

    /// Whether a definition of this kind can be renamed (its uses found through resolution; a
    /// table is only looked up, `NAME[...]`; of the formulas only helpers, `_NAME`: see
    /// [`crate::navigate::prepare_rename`]).
    pub fn renamable(self) -> bool {
        matches!(
            self,
            DefKind::Class
                | DefKind::Table
                | DefKind::Formula
                | DefKind::Item
                | DefKind::Tag
                | DefKind::Status
                | DefKind::Param
                | DefKind::Terrain
                | DefKind::WeaponType
                | DefKind::Movement
                | DefKind::Scenario
                | DefKind::Army
                | DefKind::Unit
        )
    }
}

/// One named definition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Def {
    pub kind: DefKind,
    pub name: String,
    /// The name's span.
    pub name_span: Span,
    /// The whole definition.
    pub span: Span,
}

impl Def {
    fn new(kind: DefKind, name: &ast::Ident, span: Span) -> Def {
        Def { kind, name: name.value.to_string(), name_span: name.span, span }
    }
}

/// The definitions of one file, in source order: those other files can name, and its combat
/// formulas, which only their own block and ruleset read (a tag's parameters are not among
/// them: see [`crate::names`]).
pub fn file_defs(file: &ast::SourceFile) -> Vec<Def> {
    let mut out = Vec::new();
    for item in &file.items {
        item_defs(item, &mut out);
    }
    out
}

/// The definitions of one item: itself, then what it defines inside in source order.
pub fn item_defs(item: &Item, out: &mut Vec<Def>) {
    let start = out.len();
    let mut push = |kind, name: &ast::Ident, span: Span| out.push(Def::new(kind, name, span));
    match item {
        Item::Import(_) | Item::Triangle(_) => {}
        Item::Ruleset(r) => {
            push(DefKind::Ruleset, &r.name, r.span);
            for s in &r.scales {
                push(DefKind::Scale, &s.name, s.name.span);
                for m in &s.members {
                    push(DefKind::ScaleMember, m, m.span);
                }
            }
            for s in &r.stats {
                push(DefKind::Stat, &s.name, s.name.span);
            }
            for b in &r.bases {
                push(DefKind::Base, &b.name, b.name.span.to(b.value.span));
            }
            for t in &r.tables {
                push(DefKind::Table, &t.name, t.span);
            }
            for d in &r.dice {
                push(DefKind::Dice, &d.name, d.name.span.to(d.span));
            }
            for f in r.combat.iter().flat_map(|c| &c.formulas) {
                push(DefKind::Formula, &f.name, f.name.span.to(f.value.span));
            }
            for res in &r.resources {
                push(DefKind::Resource, &res.name, res.span);
            }
            for re in &r.reactions {
                push(DefKind::Reaction, &re.name, re.span);
            }
        }
        Item::Movement(names) => {
            for n in names {
                push(DefKind::Movement, n, n.span);
            }
        }
        Item::WeaponType(w) => push(DefKind::WeaponType, &w.name, w.span),
        Item::Terrain(t) => push(DefKind::Terrain, &t.name, t.span),
        Item::Tag(t) => push(DefKind::Tag, &t.name, t.span),
        Item::Status(s) => push(DefKind::Status, &s.name, s.span),
        Item::Class(c) => push(DefKind::Class, &c.name, c.span),
        Item::Item(i) => push(DefKind::Item, &i.name, i.span),
        Item::Scenario(s) => push(DefKind::Scenario, &s.name, s.span),
        Item::Army(a) => {
            push(DefKind::Army, &a.name, a.span);
            for u in &a.units {
                push(DefKind::Unit, &u.name, u.span);
            }
        }
    }
    // A ruleset's are gathered kind by kind: put back in the order they are written (a stable
    // sort, so two of a kind keep theirs).
    if let Some(inside) = out.get_mut(start + 1..) {
        inside.sort_by_key(|d| d.span.start);
    }
}

/// Every definition of the files in `scope` (logical paths), in the order given, with the path
/// of its file.
pub fn scope_defs<'a>(db: &'a dyn Db, scope: &[&'a str]) -> Vec<(&'a str, Def)> {
    let mut out = Vec::new();
    for path in scope {
        if let Some(ast) = db.ast(path) {
            out.extend(file_defs(ast).into_iter().map(|d| (*path, d)));
        }
    }
    out
}

/// The source of a definition, at most `max_lines` lines of it.
pub fn def_source(text: &str, def: &Def, max_lines: usize) -> String {
    let body = text.get(def.span.start as usize..def.span.end as usize).unwrap_or("");
    let lines: Vec<&str> = body.lines().collect();
    let mut out = lines.iter().take(max_lines).copied().collect::<Vec<_>>().join("\n");
    if lines.len() > max_lines {
        out.push_str("\n    // ...");
    }
    out
}

/// The hover text of a definition: its kind and name, its file, then what its syntax tree says
/// of it — a stat's or base attribute's declaration, title and scale, a resource's and when it is
/// set, a terrain's properties, an item's uses and what using it does — and its source (a
/// scale's steps and movements are named only; a stat, base, resource and terrain are told whole
/// by what the tree says).
pub fn hover_text(db: &dyn Db, path: &str, def: &Def) -> String {
    let text = db.text(path).unwrap_or("");
    let head = format!("{} `{}` — {}", def.kind.word(), def.name, path);
    let told = db.ast(path).and_then(|ast| describe(db, path, ast, text, def));
    let source = || format!("\n```oc\n{}\n```", def_source(text, def, 40));
    match (def.kind, told) {
        (DefKind::Scale | DefKind::ScaleMember | DefKind::Movement, _) => head,
        (DefKind::Stat | DefKind::Base | DefKind::Resource | DefKind::Terrain, Some(told)) => format!("{head}\n\n{told}"),
        (DefKind::Stat, None) => head,
        (DefKind::Item, Some(told)) => format!("{head}\n\n{told}{}", source()),
        _ => format!("{head}{}", source()),
    }
}

/// What the syntax tree says of a definition, as markdown (`None`: nothing more than its source).
fn describe(db: &dyn Db, path: &str, ast: &ast::SourceFile, text: &str, def: &Def) -> Option<String> {
    let item = item_at(ast, def.name_span.start as usize)?;
    match (item, def.kind) {
        (Item::Ruleset(r), DefKind::Stat) => {
            let s = r.stats.iter().find(|s| s.name.span == def.name_span)?;
            Some(attribute(r, &format!("stat {}: {}", s.name.value, s.ty.value), s.title.as_deref(), &s.ty.value, None))
        }
        (Item::Ruleset(r), DefKind::Base) => {
            let b = r.bases.iter().find(|b| b.name.span == def.name_span)?;
            let value = one_line(span_text(text, b.value.span));
            let code = format!("base {}: {} = {value}", b.name.value, b.ty.value);
            Some(attribute(r, &code, b.title.as_deref(), &b.ty.value, None))
        }
        (Item::Ruleset(r), DefKind::Resource) => {
            let res = r.resources.iter().find(|res| res.name.span == def.name_span)?;
            let value = one_line(span_text(text, res.value.span));
            let mut code = format!("resource {}: {} = {value}", res.name.value, res.ty.value);
            let set = match &res.at {
                Some(event) => {
                    code.push_str(&format!(" at {}", event.value));
                    format!("Set to `{value}` when deployed, and again at every `{}`.", event.value)
                }
                None => format!("Set to `{value}` when deployed only."),
            };
            Some(attribute(r, &code, res.title.as_deref(), &res.ty.value, Some(set)))
        }
        (Item::Terrain(t), DefKind::Terrain) if t.name.span == def.name_span => Some(terrain(t)),
        (Item::Item(i), DefKind::Item) if i.name.span == def.name_span => item_line(db, path, text, i),
        _ => None,
    }
}

/// A stat's, base's or resource's declaration as written (without its title), its title, its
/// type's steps when the type is a scale of the ruleset, and `more`.
fn attribute(r: &ast::Ruleset, code: &str, title: Option<&str>, ty: &str, more: Option<String>) -> String {
    let mut out = format!("```oc\n{code}\n```");
    if let Some(title) = title.filter(|t| !t.is_empty()) {
        out.push_str(&format!("\n{title}"));
    }
    if let Some(scale) = r.scales.iter().find(|s| s.name.value.as_str() == ty) {
        let steps: Vec<&str> = scale.members.iter().map(|m| m.value.as_str()).collect();
        out.push_str(&format!("\n\n`{ty}` is a scale, worst step first: {}", steps.join(" ")));
    }
    if let Some(more) = more {
        out.push_str(&format!("\n\n{more}"));
    }
    out
}

/// A terrain's title, doc and properties, as its syntax tree has them.
fn terrain(t: &ast::TerrainDef) -> String {
    let mut out: Vec<String> = Vec::new();
    if let Some(title) = t.title.as_ref().filter(|title| title.as_str() != t.name.value.as_str()) {
        out.push(title.clone());
    }
    if let Some(doc) = &t.doc {
        out.push(doc.clone());
    }
    let mut props: Vec<String> = Vec::new();
    if let Some(symbol) = t.symbols.first() {
        props.push(format!("symbol `{}`", symbol.value));
    }
    if !t.costs.is_empty() {
        let costs: Vec<String> = t
            .costs
            .iter()
            .map(|c| {
                format!("{} {}", c.movement.value, c.cost.value.map_or_else(|| "- (impassable)".to_string(), |n| n.to_string()))
            })
            .collect();
        props.push(format!("cost: {}", costs.join(", ")));
    }
    if let Some(d) = t.defense.first() {
        props.push(format!("defense and resistance {:+}", d.value));
    }
    if let Some(h) = t.heal.first() {
        props.push(format!("heals {} at {}", h.amount.value, h.event.value));
    }
    if let Some(hp) = t.hp.first() {
        props.push(format!("{} HP", hp.value));
    }
    if !t.opened_by.is_empty() {
        let by: Vec<&str> = t.opened_by.iter().map(|n| n.value.as_str()).collect();
        props.push(format!("opened by {}", by.join(" or ")));
    }
    if let Some(b) = t.becomes.first() {
        props.push(format!("becomes {}", b.value));
    }
    if t.impassable.is_some() {
        props.push("impassable".to_string());
    }
    if t.blocks_sight.is_some() {
        props.push("blocks sight".to_string());
    }
    if let Some(e) = t.elevation.first() {
        props.push(format!("elevation {}", e.value));
    }
    if !props.is_empty() {
        out.push(props.iter().map(|p| format!("- {p}")).collect::<Vec<_>>().join("\n"));
    }
    if out.is_empty() {
        out.push("no properties: cost 1 for every movement".to_string());
    }
    out.join("\n\n")
}

/// An item's uses (the `charges` a tag on it sets: `Consumable(3)`) and, for a consumable, what
/// using it does, in one line.
fn item_line(db: &dyn Db, path: &str, text: &str, i: &ast::ItemDef) -> Option<String> {
    let mut parts: Vec<String> = Vec::new();
    if let Some(uses) = charges(db, path, text, i) {
        parts.push(uses);
    }
    if i.kind == ast::ItemKind::Consumable {
        let does: Vec<String> = i.uses.iter().flatten().map(|s| stmt_line(text, s)).collect();
        if !does.is_empty() {
            parts.push(format!("use: {}", does.join("; ")));
        }
    }
    if parts.is_empty() {
        return None;
    }
    Some(cut(&format!("{}: {}", i.kind.word(), parts.join("; ")), 240))
}

/// The uses a tag on the item gives it: a tag whose body sets `charges` (the attribute the engine
/// reads as an item's uses) to a number or to one of its parameters, read from the argument.
fn charges(db: &dyn Db, path: &str, text: &str, i: &ast::ItemDef) -> Option<String> {
    if i.tags.is_empty() {
        return None;
    }
    let scope = crate::scope_of(db, path);
    let defs = scope_defs(db, &scope);
    let resolver = crate::names::Scope::new(&defs);
    i.tags.iter().find_map(|r| {
        let tag = resolver.tag_def(db, r.name.value.as_str())?;
        let value = tag.body.iter().find_map(|s| match s {
            ast::Stmt::Modify { place, op: ast::AssignOp::Set, value, .. }
                if place.len() == 1 && place.first().is_some_and(|p| p.value.as_str() == "charges") =>
            {
                Some(value)
            }
            _ => None,
        })?;
        let n = match &value.kind {
            ast::ExprKind::Int(n) => return Some(crate::maps::count(*n, "use")),
            ast::ExprKind::Name(p) => tag.params.iter().position(|q| q.name.value == *p).and_then(|k| r.args.get(k))?,
            _ => return None,
        };
        Some(match n.kind {
            ast::ExprKind::Int(n) => crate::maps::count(n, "use"),
            _ => format!("uses: `{}`", one_line(span_text(text, n.span))),
        })
    })
}

/// A statement of a `use` block in one line: a command as written, an action with its target.
fn stmt_line(text: &str, s: &ast::Stmt) -> String {
    let body = |b: &[ast::Stmt]| b.iter().map(|s| stmt_line(text, s)).collect::<Vec<_>>().join("; ");
    match s {
        ast::Stmt::When { condition, body: b, .. } => format!("when {}: {}", one_line(span_text(text, condition.span)), body(b)),
        ast::Stmt::On { event, body: b, .. } => format!("on {}: {}", event.value, body(b)),
        ast::Stmt::Action(a) => {
            let target = a.target.as_ref().map(|t| {
                let range = match (&t.min, &t.max) {
                    (Some(min), Some(max)) => {
                        format!(" within {}..{}", one_line(span_text(text, min.span)), one_line(span_text(text, max.span)))
                    }
                    // One bound written (`within 1`) is the most.
                    (None, Some(max)) => format!(" within {}", one_line(span_text(text, max.span))),
                    _ => String::new(),
                };
                format!(" (target {}{range})", t.kind.value)
            });
            format!("action{}: {}", target.unwrap_or_default(), body(&a.body))
        }
        ast::Stmt::Modify { span, .. } | ast::Stmt::Grant { span, .. } | ast::Stmt::Command { span, .. } => {
            one_line(span_text(text, *span))
        }
    }
}

/// The text of a span (empty when the span is not in the text).
fn span_text(text: &str, span: Span) -> &str {
    text.get(span.start as usize..span.end as usize).unwrap_or("")
}

/// Source text on one line: comments dropped, each run of spaces and line breaks one space.
fn one_line(src: &str) -> String {
    use oc_fmt::lex::{tokenize, Kind};
    let mut out = String::new();
    let mut space = false;
    for t in tokenize(src) {
        match t.kind {
            Kind::Space | Kind::Newline | Kind::LineComment | Kind::BlockComment => space = true,
            _ => {
                if space && !out.is_empty() {
                    out.push(' ');
                }
                space = false;
                out.push_str(t.text);
            }
        }
    }
    out
}

/// At most `max` characters of `s`, `…` ending one cut short.
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// The item holding `offset` in a file.
pub fn item_at(file: &ast::SourceFile, offset: usize) -> Option<&Item> {
    let inside = |s: Span| s.start as usize <= offset && offset <= s.end as usize;
    file.items.iter().find(|item| item_span(item).is_some_and(inside))
}

pub fn item_span(item: &Item) -> Option<Span> {
    Some(match item {
        Item::Import(i) => i.span,
        Item::Ruleset(r) => r.span,
        Item::Movement(names) => names.first()?.span.to(names.last()?.span),
        Item::WeaponType(w) => w.span,
        Item::Triangle(t) => t.span,
        Item::Terrain(t) => t.span,
        Item::Tag(t) => t.span,
        Item::Status(s) => s.span,
        Item::Class(c) => c.span,
        Item::Item(i) => i.span,
        Item::Scenario(s) => s.span,
        Item::Army(a) => a.span,
    })
}

/// The workspace files' definitions (a front end holding a [`Workspace`] of its own).
pub fn workspace_defs(ws: &Workspace, scope: &[&str]) -> Vec<Def> {
    scope.iter().filter_map(|p| ws.id_of(p).and_then(|id| ws.file(id))).flat_map(|f| file_defs(f.ast())).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn defs_of_a_file() {
        let (file, _) = oc_syntax::parse(oc_diag::FileId(0), "tag T(x: Int) { movement += x }\nclass C { cost 1 }");
        let defs = file_defs(&file);
        let names: Vec<(&str, DefKind)> = defs.iter().map(|d| (d.name.as_str(), d.kind)).collect();
        assert_eq!(names, [("T", DefKind::Tag), ("C", DefKind::Class)]);
    }
}
