//! Definitions: what a file defines (its items, and inside a ruleset its scales, their steps,
//! stats, bases, tables, dice, combat formulas, resources and reactions; inside an army its
//! units), and where (their hover text: [`crate::hover`]).

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
