//! What the editor asks about `.oc` text, in byte offsets and logical paths (no LSP types):
//! the definitions a compilation sees, the name under the cursor, where a name is used, the
//! hover text of a definition, a file's outline.
//!
//! Definitions come from the syntax trees of the files a root was compiled with (its imports
//! and the standard library included). Uses are found by name: every word token equal to the
//! name in those files (comments and strings are not words), since a name means one thing in a
//! compilation.

use oc_compiler::Workspace;
use oc_diag::Span;
use oc_fmt::lex::{tokenize, Kind};
use oc_syntax::ast::{self, Item};

/// What a definition defines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DefKind {
    Ruleset,
    Scale,
    Stat,
    Table,
    Dice,
    Movement,
    WeaponType,
    Terrain,
    Tag,
    Status,
    Class,
    Item,
    Scenario,
    Army,
}

impl DefKind {
    pub fn word(self) -> &'static str {
        match self {
            DefKind::Ruleset => "ruleset",
            DefKind::Scale => "scale",
            DefKind::Stat => "stat",
            DefKind::Table => "table",
            DefKind::Dice => "dice",
            DefKind::Movement => "movement",
            DefKind::WeaponType => "weapon type",
            DefKind::Terrain => "terrain",
            DefKind::Tag => "tag",
            DefKind::Status => "status",
            DefKind::Class => "class",
            DefKind::Item => "item",
            DefKind::Scenario => "scenario",
            DefKind::Army => "army",
        }
    }
}

/// One named definition.
#[derive(Clone, Debug)]
pub struct Def {
    pub kind: DefKind,
    pub name: String,
    /// The name's span.
    pub name_span: Span,
    /// The whole definition.
    pub span: Span,
}

/// The definitions of one file, in source order.
pub fn file_defs(file: &ast::SourceFile) -> Vec<Def> {
    let mut out = Vec::new();
    let mut push = |kind, name: &ast::Ident, span: Span| {
        out.push(Def { kind, name: name.value.to_string(), name_span: name.span, span });
    };
    for item in &file.items {
        match item {
            Item::Import(_) | Item::Triangle(_) => {}
            Item::Ruleset(r) => {
                push(DefKind::Ruleset, &r.name, r.span);
                for s in &r.scales {
                    push(DefKind::Scale, &s.name, s.name.span);
                }
                for s in &r.stats {
                    push(DefKind::Stat, &s.name, s.name.span);
                }
                for t in &r.tables {
                    push(DefKind::Table, &t.name, t.span);
                }
                for d in &r.dice {
                    push(DefKind::Dice, &d.name, d.span);
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
            Item::Army(a) => push(DefKind::Army, &a.name, a.span),
        }
    }
    out
}

/// Every definition of the files in `scope` (logical paths), in the order given.
pub fn scope_defs(ws: &Workspace, scope: &[&str]) -> Vec<Def> {
    scope.iter().filter_map(|p| ws.id_of(p).and_then(|id| ws.file(id))).flat_map(|f| file_defs(f.ast())).collect()
}

/// The word (a name or a keyword) at or just before `offset`: its byte range and text.
pub fn word_at(text: &str, offset: usize) -> Option<(usize, usize, &str)> {
    let mut at = 0;
    for t in tokenize(text) {
        let end = at + t.text.len();
        if t.kind == Kind::Word && at <= offset && offset <= end {
            return Some((at, end, t.text));
        }
        if at > offset {
            break;
        }
        at = end;
    }
    None
}

/// The string literal holding `offset`: the range of its contents (quotes excluded) and them.
pub fn string_at(text: &str, offset: usize) -> Option<(usize, usize, &str)> {
    let mut at = 0;
    for t in tokenize(text) {
        let end = at + t.text.len();
        let closed = t.text.len() >= 2 && t.text.ends_with('"');
        if t.kind == Kind::Str && at < offset && (offset < end || (!closed && offset == end)) {
            let inner = t.text.strip_prefix('"').unwrap_or(t.text);
            let inner = inner.strip_suffix('"').unwrap_or(inner);
            return Some((at + 1, at + 1 + inner.len(), inner));
        }
        if at > offset {
            break;
        }
        at = end;
    }
    None
}

/// Byte ranges of the word tokens of `text` equal to `name`.
pub fn uses_in(text: &str, name: &str) -> Vec<(usize, usize)> {
    let mut at = 0;
    let mut out = Vec::new();
    for t in tokenize(text) {
        if t.kind == Kind::Word && t.text == name {
            out.push((at, at + t.text.len()));
        }
        at += t.text.len();
    }
    out
}

/// The source of a definition, at most `max_lines` lines of it.
pub fn def_source(ws: &Workspace, def: &Def, max_lines: usize) -> String {
    let text = ws.file(def.span.file).map_or("", |f| f.text.as_str());
    let body = text.get(def.span.start as usize..def.span.end as usize).unwrap_or("");
    let lines: Vec<&str> = body.lines().collect();
    let mut out = lines.iter().take(max_lines).copied().collect::<Vec<_>>().join("\n");
    if lines.len() > max_lines {
        out.push_str("\n    // ...");
    }
    out
}

/// The hover text of a definition: its kind and name, where it is, and its source (for a tag
/// its parameters, doc and effect; for a class its ratings, wields, tags and cost; for an item
/// its stats; for a terrain its symbol, costs and bonuses).
pub fn hover_text(ws: &Workspace, def: &Def) -> String {
    let path = ws.file(def.span.file).map_or("", |f| f.path.as_str());
    let source = if matches!(def.kind, DefKind::Stat | DefKind::Scale | DefKind::Movement) {
        String::new()
    } else {
        format!("\n```oc\n{}\n```", def_source(ws, def, 40))
    };
    format!("{} `{}` — {}{}", def.kind.word(), def.name, path, source)
}

/// The definitions enclosing `offset` in a file, outermost first: the item, and for a scenario
/// its side.
pub fn item_at(file: &ast::SourceFile, offset: usize) -> Option<&Item> {
    let inside = |s: Span| s.start as usize <= offset && offset <= s.end as usize;
    file.items.iter().find(|item| item_span(item).is_some_and(inside))
}

pub fn item_span(item: &Item) -> Option<Span> {
    Some(match item {
        Item::Import(i) => i.span,
        Item::Ruleset(r) => r.span,
        Item::Movement(names) => {
            let first = names.first()?.span;
            let last = names.last()?.span;
            Span { file: first.file, start: first.start, end: last.end }
        }
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn words_strings_and_uses() {
        let text = "class A { tags Lucky(5) doc \"x y\" } // Lucky\nweapon B { tags Lucky(1) }";
        let at = text.find("Lucky").unwrap();
        assert_eq!(word_at(text, at + 2), Some((at, at + 5, "Lucky")));
        assert_eq!(word_at(text, at + 5), Some((at, at + 5, "Lucky")));
        let q = text.find('"').unwrap();
        assert_eq!(string_at(text, q + 2), Some((q + 1, q + 4, "x y")));
        let uses = uses_in(text, "Lucky");
        assert_eq!(uses.len(), 2, "the comment is not a use");
    }

    #[test]
    fn defs_of_a_file() {
        let (file, _) = oc_syntax::parse(oc_diag::FileId(0), "tag T(x: Int) { movement += x }\nclass C { cost 1 }");
        let defs = file_defs(&file);
        let names: Vec<(&str, DefKind)> = defs.iter().map(|d| (d.name.as_str(), d.kind)).collect();
        assert_eq!(names, [("T", DefKind::Tag), ("C", DefKind::Class)]);
    }
}
