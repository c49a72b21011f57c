//! Hover, go to definition, find references and rename, through name resolution.

use std::collections::BTreeSet;

use oc_diag::Span;
use oc_syntax::ast::Item;

use crate::defs::{self, scope_defs, Def, DefKind};
use crate::maps::{self, MapThing};
use crate::names::{self, occurrence_at, Resolved, Scope};
use crate::text::{is_name, string_at, word_before};
use crate::{is_map, scope_of, Db, FilePosition, FileRange, TextEdit};

/// Hover: markdown and the range it is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hover {
    pub start: usize,
    pub end: usize,
    pub markdown: String,
}

/// A definition: where it is and what it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    pub path: String,
    pub def: Def,
}

/// What the name at a position resolves to, and the name's range.
fn resolved_at<'a>(db: &'a dyn Db, pos: FilePosition<'a>) -> Option<(usize, usize, Resolved<'a>)> {
    let ast = db.ast(pos.path)?;
    let names = names::names(ast);
    let o = occurrence_at(&names, pos.offset)?;
    let scope = scope_of(db, pos.path);
    let defs = scope_defs(db, &scope);
    let scope = Scope::new(&defs);
    let resolved = names::resolve(db, &scope, pos.path, o);
    // The scope's definitions are borrowed from `defs`: give the result owned paths.
    let owned = match resolved {
        Resolved::Def(p, d) => Resolved::Def(scope_path(db, pos.path, p)?, d),
        Resolved::Param { tag, def, .. } => Resolved::Param { path: pos.path, tag, def },
        Resolved::Builtin(k) => Resolved::Builtin(k),
        Resolved::Step(n, t) => Resolved::Step(n, t),
        Resolved::Event => Resolved::Event,
        Resolved::Verb => Resolved::Verb,
        Resolved::Unresolved => Resolved::Unresolved,
    };
    Some((o.span.start as usize, o.span.end as usize, owned))
}

/// A path of `path`'s scope, as borrowed from the db.
fn scope_path<'a>(db: &'a dyn Db, path: &'a str, wanted: &str) -> Option<&'a str> {
    scope_of(db, path).into_iter().find(|p| *p == wanted)
}

/// The map a scenario around `offset` names, as (logical path, text).
fn scenario_map<'a>(db: &'a dyn Db, pos: FilePosition<'_>) -> Option<(String, &'a str)> {
    let Some(Item::Scenario(s)) = defs::item_at(db.ast(pos.path)?, pos.offset) else { return None };
    let logical = relative_path(pos.path, &s.maps.first()?.value)?;
    let text = db.text(&logical)?;
    Some((logical, text))
}

/// A path written in `from` (an import, a map) as a logical path, the way the compiler resolves
/// imports: `std:NAME` is the standard library's `NAME.oc`, others are relative to `from`'s
/// folder and never climb above the root (nor above `<std>` from a standard library file).
pub fn relative_path(from: &str, written: &str) -> Option<String> {
    if let Some(name) = written.strip_prefix("std:") {
        let valid = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        return valid.then(|| format!("{}{name}.oc", oc_compiler::stdlib::PREFIX));
    }
    if written.starts_with(['/', '\\']) || written.get(1..2) == Some(":") {
        return None;
    }
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for piece in written.split(['/', '\\']) {
        match piece {
            "" | "." => {}
            ".." => {
                if parts.last().is_none_or(|p| *p == "<std>") {
                    return None;
                }
                parts.pop();
            }
            p => parts.push(p),
        }
    }
    (!parts.is_empty()).then(|| parts.join("/"))
}

pub fn hover(db: &dyn Db, pos: FilePosition<'_>) -> Option<Hover> {
    let text = db.text(pos.path)?;
    if is_map(pos.path) {
        let rules = db.rules(pos.path);
        let map = maps::parse(text, rules)?;
        let thing = maps::thing_at(&map, pos.offset)?;
        let span = thing.span();
        let markdown = maps::hover(&map, rules, &thing)?;
        return Some(Hover { start: span.start as usize, end: span.end as usize, markdown });
    }
    if let Some((start, end, value)) = string_at(text, pos.offset) {
        let markdown = match word_before(text, start.saturating_sub(1)) {
            Some("import") => format!("imports `{}`", relative_path(pos.path, value)?),
            Some("map") => {
                let logical = relative_path(pos.path, value)?;
                let map = maps::parse(db.text(&logical)?, None)?;
                format!(
                    "map `{}` — {logical}: {} by {} tiles, {}",
                    map.name,
                    map.width,
                    map.height,
                    maps::count(map.regions.len() as i64, "region")
                )
            }
            _ => {
                let (_, map_text) = scenario_map(db, pos)?;
                let map = maps::parse(map_text, None)?;
                maps::region_summary(map.region(value)?)
            }
        };
        return Some(Hover { start, end, markdown });
    }
    let (start, end, resolved) = resolved_at(db, pos)?;
    let markdown = match resolved {
        Resolved::Def(path, def) => crate::hover::hover_text(db, path, &def),
        Resolved::Param { path, tag, def } => {
            let ast = db.ast(path)?;
            let t = ast.items.iter().find_map(|i| match i {
                Item::Tag(t) if t.name.span == tag => Some(t),
                _ => None,
            })?;
            let p = t.params.iter().find(|p| p.name.span == def.name_span)?;
            format!("parameter `{}: {}` of tag `{}`", p.name.value, p.ty.value, t.name.value)
        }
        Resolved::Step(name, ty) => crate::hover::step_variable(name, ty),
        _ => return None,
    };
    Some(Hover { start, end, markdown })
}

/// Go to definition: a name to its definition; an import or map path to its file; a region's
/// name to the region in the scenario's map; in a map, a symbol or terrain to the terrain and a
/// chest's item to the item.
pub fn definition(db: &dyn Db, pos: FilePosition<'_>) -> Option<FileRange> {
    let text = db.text(pos.path)?;
    if is_map(pos.path) {
        let rules = db.rules(pos.path);
        let map = maps::parse(text, rules)?;
        let (name, kinds): (String, &[DefKind]) = match maps::thing_at(&map, pos.offset)? {
            MapThing::Symbol { terrain, .. } => (terrain?, &[DefKind::Terrain]),
            MapThing::TerrainName { name, .. } => {
                let canonical = rules.and_then(|r| oc_atlas::find_terrain(r, &name)).map_or(name, |t| t.name.clone());
                (canonical, &[DefKind::Terrain])
            }
            MapThing::Item { name, .. } => (name, &[DefKind::Item]),
            MapThing::Region { .. } => return None,
        };
        let scope = scope_of(db, pos.path);
        let defs = scope_defs(db, &scope);
        let (path, def) = Scope::new(&defs).find(&name, kinds)?;
        return Some(FileRange::of(path, def.name_span));
    }
    if let Some((start, _, value)) = string_at(text, pos.offset) {
        return match word_before(text, start.saturating_sub(1)) {
            Some("import" | "map") => Some(FileRange::new(&relative_path(pos.path, value)?, 0, 0)),
            _ => {
                let (logical, map_text) = scenario_map(db, pos)?;
                let map = maps::parse(map_text, None)?;
                let r = map.region(value)?;
                Some(FileRange::of(&logical, r.name_span))
            }
        };
    }
    match resolved_at(db, pos)?.2 {
        Resolved::Def(path, def) => Some(FileRange::of(path, def.name_span)),
        Resolved::Param { path, def, .. } => Some(FileRange::of(path, def.name_span)),
        _ => None,
    }
}

/// The definition at a position, if it is one that has uses (a definition or a parameter).
pub fn target(db: &dyn Db, pos: FilePosition<'_>) -> Option<(usize, usize, Target)> {
    match resolved_at(db, pos)? {
        (s, e, Resolved::Def(path, def)) => Some((s, e, Target { path: path.to_string(), def })),
        (s, e, Resolved::Param { path, def, .. }) => Some((s, e, Target { path: path.to_string(), def })),
        _ => None,
    }
}

/// Every place that names the definition at a position (its own name first when asked),
/// across every file of every compilation that sees it, and the maps' chests and legends.
pub fn references(db: &dyn Db, pos: FilePosition<'_>, include_declaration: bool) -> Option<Vec<FileRange>> {
    let (_, _, target) = target(db, pos)?;
    let mut out = uses_of(db, pos.path, &target);
    if !include_declaration {
        let decl = FileRange::of(&target.path, target.def.name_span);
        out.retain(|r| *r != decl);
    }
    Some(out)
}

/// The uses of a definition, its own name included, sorted by file and place.
pub fn uses_of(db: &dyn Db, from: &str, target: &Target) -> Vec<FileRange> {
    let def = &target.def;
    let mut out: BTreeSet<FileRange> = BTreeSet::new();
    out.insert(FileRange::of(&target.path, def.name_span));
    if def.kind == DefKind::Param {
        // Seen only inside its tag, in its own file.
        if let Some(ast) = db.ast(&target.path) {
            let names = names::names(ast);
            for o in names.occurrences.iter().filter(|o| o.name == def.name) {
                let scope = scope_of(db, &target.path);
                let defs = scope_defs(db, &scope);
                if let Resolved::Param { def: d, .. } = names::resolve(db, &Scope::new(&defs), &target.path, o) {
                    if d.name_span == def.name_span {
                        out.insert(FileRange::of(&target.path, o.span));
                    }
                }
            }
        }
        return out.into_iter().collect();
    }
    // The compilations that see the definition: every root whose scope holds its file.
    let mut roots: Vec<&str> = db.files().into_iter().filter(|r| scope_of(db, r).contains(&target.path.as_str())).collect();
    if !roots.contains(&from) {
        roots.push(from);
    }
    let mut done: BTreeSet<(&str, &str)> = BTreeSet::new();
    for root in roots {
        let scope = scope_of(db, root);
        let defs = scope_defs(db, &scope);
        let resolver = Scope::new(&defs);
        // The root must mean this very definition by the name.
        let same = resolver.all(&def.name).iter().any(|(p, d)| *p == target.path && d.name_span == def.name_span);
        if !same {
            continue;
        }
        if is_map(root) {
            map_uses(db, root, def, &mut out);
            continue;
        }
        for path in &scope {
            if !done.insert((root, path)) || is_map(path) {
                continue;
            }
            let Some(ast) = db.ast(path) else { continue };
            let names = names::names(ast);
            for o in names.occurrences.iter().filter(|o| o.name == def.name) {
                if let Resolved::Def(p, d) = names::resolve(db, &resolver, path, o) {
                    if p == target.path && d.name_span == def.name_span {
                        out.insert(FileRange::of(path, o.span));
                    }
                }
            }
        }
    }
    out.into_iter().collect()
}

/// A map's uses of an item (its chests) or a terrain (its legend), inside the quotes.
fn map_uses(db: &dyn Db, path: &str, def: &Def, out: &mut BTreeSet<FileRange>) {
    let Some(map) = db.text(path).and_then(|t| maps::parse(t, None)) else { return };
    let spans: Vec<Span> = match def.kind {
        DefKind::Item => map.chests.iter().filter(|c| c.item == def.name).map(|c| c.item_span).collect(),
        DefKind::Terrain => map.legend.values().filter(|(n, _)| *n == def.name).map(|(_, s)| *s).collect(),
        _ => Vec::new(),
    };
    for s in spans {
        out.insert(FileRange::new(path, s.start as usize + 1, (s.end as usize).saturating_sub(1)));
    }
}

/// Why a rename is refused; its `Display` is what the editor shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RenameRefused {
    NoName,
    /// A definition the rules' own formulas name (`kind` in words, its name).
    NamedByRules {
        kind: &'static str,
        name: String,
    },
    InStd {
        name: String,
    },
    NotAName {
        new_name: String,
    },
    /// A keyword, a role or dice: uses renamed to it would read as that.
    Reserved {
        new_name: String,
    },
    Taken {
        new_name: String,
    },
    /// A combat formula the engine reads by its name (`damage`); only helpers (`_NAME`) rename.
    ReadByEngine {
        name: String,
    },
    /// A helper formula renamed to a name without `_`, which the compiler refuses (or reads as
    /// the engine's formula of that name).
    NotAHelper {
        new_name: String,
    },
}

impl std::fmt::Display for RenameRefused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RenameRefused::NoName => f.write_str("no name of a definition here"),
            RenameRefused::NamedByRules { kind, name } => {
                write!(f, "a {kind} cannot be renamed here; `{name}` is named by the rules' own formulas")
            }
            RenameRefused::InStd { name } => write!(f, "`{name}` is defined in the standard library, which is read-only"),
            RenameRefused::NotAName { new_name } => write!(
                f,
                "`{new_name}` is not a name: letters, digits and `_`, not starting with a digit, at most {MAX_NAME} of them"
            ),
            RenameRefused::Taken { new_name } => write!(f, "`{new_name}` is already defined"),
            RenameRefused::ReadByEngine { name } => {
                write!(
                    f,
                    "the engine reads the combat formula `{name}` by its name; only helper formulas (`_name`) can be renamed"
                )
            }
            RenameRefused::NotAHelper { new_name } => {
                write!(f, "a helper formula's name starts with `_`: `{new_name}` would not be one")
            }
            RenameRefused::Reserved { new_name } => {
                write!(f, "`{new_name}` is a word of the language (a keyword, a unit's role or dice): uses renamed to it would read as that")
            }
        }
    }
}

/// Whether the name at a position can be renamed: its range, or why not.
pub fn prepare_rename(db: &dyn Db, pos: FilePosition<'_>) -> Result<(usize, usize, Target), RenameRefused> {
    let Some((start, end, target)) = target(db, pos) else {
        return Err(RenameRefused::NoName);
    };
    let def = &target.def;
    if !def.kind.renamable() {
        return Err(RenameRefused::NamedByRules { kind: def.kind.word(), name: def.name.to_string() });
    }
    if target.path.starts_with(oc_compiler::stdlib::PREFIX) {
        return Err(RenameRefused::InStd { name: def.name.to_string() });
    }
    if def.kind == DefKind::Formula && !def.name.starts_with('_') {
        return Err(RenameRefused::ReadByEngine { name: def.name.to_string() });
    }
    Ok((start, end, target))
}

/// The longest name a rename gives.
pub const MAX_NAME: usize = 128;

/// The edits that rename the definition at a position, by file.
pub fn rename(db: &dyn Db, pos: FilePosition<'_>, new_name: &str) -> Result<Vec<(String, Vec<TextEdit>)>, RenameRefused> {
    let (_, _, target) = prepare_rename(db, pos)?;
    // A name no longer than the longest a file may sensibly hold: a megabyte one made a
    // gigabyte of edits for a weapon used a thousand times.
    if !is_name(new_name) || new_name.len() > MAX_NAME {
        let shown: String = new_name.chars().take(40).collect();
        return Err(RenameRefused::NotAName { new_name: shown });
    }
    if oc_syntax::reserved(new_name) {
        return Err(RenameRefused::Reserved { new_name: new_name.to_string() });
    }
    // A name an expression reads as the engine's own (`distance`, `self`...): a parameter or a
    // definition so named would be read as it, or hide it, and the rules would change meaning.
    // So is a step's own value in a turn's formulas (`moved`, `action`): a tag renamed `action`
    // would read there as the step's tag.
    if names::reads_as_builtin(new_name) || oc_model::STEP_PARAMS.iter().any(|(n, _)| *n == new_name) {
        return Err(RenameRefused::Taken { new_name: new_name.to_string() });
    }
    if target.def.kind == DefKind::Formula && !new_name.starts_with('_') {
        return Err(RenameRefused::NotAHelper { new_name: new_name.to_string() });
    }
    let scope = scope_of(db, pos.path);
    let defs = scope_defs(db, &scope);
    let taken = match target.def.kind {
        // Another parameter of the same tag, or a definition its body could mean by the name
        // (a parameter hides it: `has Poisoned` would read the parameter).
        DefKind::Param => {
            defs.iter().any(|(_, d)| d.name == new_name)
                || db.ast(&target.path).is_some_and(|ast| {
                    ast.items.iter().any(|i| match i {
                        Item::Tag(t) => {
                            t.params.iter().any(|p| p.name.span == target.def.name_span)
                                && t.params.iter().any(|p| p.name.value.as_str() == new_name)
                        }
                        _ => false,
                    })
                })
        }
        // A definition of that name in any compilation that sees this one (a file importing
        // it may define the name itself). A formula's among them: in its block a formula's name
        // comes before any other, so a formula so named would hide the renamed definition there,
        // or, renamed, another formula or definition of the ruleset.
        _ => {
            defs.iter().any(|(_, d)| d.name == new_name)
                || db.files().into_iter().filter(|r| scope_of(db, r).contains(&target.path.as_str())).any(|root| {
                    let scope = scope_of(db, root);
                    scope_defs(db, &scope).iter().any(|(_, d)| d.name == new_name)
                })
        }
    };
    if taken {
        return Err(RenameRefused::Taken { new_name: new_name.to_string() });
    }
    let mut by_file: Vec<(String, Vec<TextEdit>)> = Vec::new();
    for r in uses_of(db, pos.path, &target) {
        let edit = TextEdit { start: r.start, end: r.end, text: new_name.to_string() };
        match by_file.iter_mut().find(|(p, _)| *p == r.path) {
            Some((_, edits)) => edits.push(edit),
            None => by_file.push((r.path, vec![edit])),
        }
    }
    Ok(by_file)
}
