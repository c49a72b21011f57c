//! Completion by what the place accepts: which block the cursor is in (from the brackets before
//! it), which keywords are valid there, and which names fit the list the cursor is in — after
//! `tags Canto, ` still tags, and only those a class may carry in a class; after `wields
//! Swords, ` weapon types; items after `items`; tags and statuses after `has`; in a verb's
//! parentheses what its argument there takes (`inflict(foe, ` a status, `restrict(` a weapon
//! type); a tag's parameter types in its head; in a combat block the formulas above; in a
//! turn block the step variables (`moved`, `attacks`...); after `self.` an attribute; in a
//! scenario's strings its map's regions; file paths inside `import "..."` and `map "..."`; in a
//! map, the symbols in its rows and terrain names in its legend.

use oc_fmt::lex::{tokenize, Kind};
use oc_model::Type;
use oc_syntax::ast::Item;

use crate::defs::{self, scope_defs, DefKind};
use crate::maps;
use crate::names;
use crate::navigate::relative_path;
use crate::text::string_at;
use crate::{is_map, scope_of, Db, FilePosition, TextEdit};

mod keywords;
pub use keywords::*;

/// What an offered completion is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Keyword,
    Def(DefKind),
    Param,
    Region,
    /// A map's terrain symbol.
    Symbol,
    File,
}

/// One completion: its label, what it is, a detail line, and the edit it makes when the typed
/// word is not simply completed (a path replaces the whole string's contents).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CompletionItem {
    pub label: String,
    pub kind: CompletionKind,
    pub detail: Option<String>,
    pub edit: Option<TextEdit>,
}

impl CompletionItem {
    fn new(label: impl Into<String>, kind: CompletionKind, detail: Option<String>) -> CompletionItem {
        CompletionItem { label: label.into(), kind, detail, edit: None }
    }
}

/// Where the cursor is in `.oc` text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    /// The keyword of the item around the cursor.
    pub item: Option<String>,
    /// The word that opened each block, outermost first.
    pub blocks: Vec<String>,
    /// The last word before the cursor (the word being typed aside).
    pub previous: Option<String>,
    pub previous_punct: Option<String>,
    /// The keyword whose list the cursor is in (`tags` in `tags Canto, Lucky(5), |`), or the
    /// previous word when it starts one.
    pub list: Option<String>,
    pub in_string: bool,
    /// The keyword of the last item closed at the top level.
    pub last_item: Option<String>,
    /// The innermost parentheses open before the cursor: the word before them (a verb, a tag)
    /// and how many of their commas precede the cursor (`inflict(foe, |`: `inflict`, 1).
    pub call: Option<(String, usize)>,
}

/// One significant token (no space, newline or comment) before the cursor.
struct Tok<'a> {
    kind: Kind,
    text: &'a str,
}

/// The context of `offset` in `text`.
pub fn context(text: &str, offset: usize) -> Context {
    let mut ctx = Context::default();
    let mut toks: Vec<Tok<'_>> = Vec::new();
    let mut at = 0;
    let mut last_word: Option<&str> = None;
    // The parentheses open before the cursor, each with the word before it and its commas.
    let mut parens: Vec<(String, usize)> = Vec::new();
    for t in tokenize(text) {
        let end = at + t.text.len();
        if end > offset || (end == offset && t.kind == Kind::Word) {
            ctx.in_string = t.kind == Kind::Str && at < offset;
            break;
        }
        at = end;
        match (t.kind, t.text) {
            (Kind::Space | Kind::Newline | Kind::LineComment | Kind::BlockComment, _) => continue,
            (Kind::Word, w) => {
                // At the top level a definition's keyword starts an item.
                if ctx.blocks.is_empty() && (ctx.previous.is_none() || TOP.contains(&w)) && !follows_on(&toks) {
                    ctx.item = Some(w.to_string());
                }
                ctx.previous = Some(w.to_string());
                ctx.previous_punct = None;
                last_word = Some(w);
            }
            (Kind::Punct, "{") => {
                ctx.blocks.push(last_word.unwrap_or("").to_string());
                ctx.previous = None;
                ctx.previous_punct = None;
                parens.clear();
            }
            (Kind::Punct, "}") => {
                parens.clear();
                ctx.blocks.pop();
                ctx.previous = None;
                ctx.previous_punct = None;
                if ctx.blocks.is_empty() {
                    ctx.last_item = ctx.item.take();
                }
            }
            (Kind::Punct, p) => {
                match p {
                    "(" => {
                        let callee = toks.last().filter(|t| t.kind == Kind::Word).map_or("", |t| t.text);
                        parens.push((callee.to_string(), 0));
                    }
                    ")" => {
                        parens.pop();
                    }
                    "," => {
                        if let Some((_, commas)) = parens.last_mut() {
                            *commas += 1;
                        }
                    }
                    _ => {}
                }
                ctx.previous_punct = Some(p.to_string());
            }
            _ => {}
        }
        toks.push(Tok { kind: t.kind, text: t.text });
    }
    ctx.list = list_head(&toks).map(str::to_string);
    ctx.call = parens.pop().filter(|(callee, _)| !callee.is_empty());
    ctx
}

/// Whether the tokens end in a tag's `on class,` list (where `class` is no item's start).
fn follows_on(toks: &[Tok<'_>]) -> bool {
    matches!(toks.last(), Some(t) if t.text == "on" || t.text == ",")
}

/// The keyword a comma list before the cursor hangs from: walks back over `, Name`,
/// `, Name(args)`, `or Name` and `> Name` to the word before the first entry.
fn list_head<'a>(toks: &[Tok<'a>]) -> Option<&'a str> {
    let mut i = toks.len();
    let mut crossed = false;
    while let Some(sep) = i.checked_sub(1).and_then(|j| toks.get(j)) {
        if !(sep.text == "," || sep.text == ">" || (sep.kind == Kind::Word && sep.text == "or")) {
            break;
        }
        let mut j = i - 1;
        // The entry before the separator: a name, perhaps with arguments.
        if toks.get(j.wrapping_sub(1)).is_some_and(|t| t.text == ")") {
            let mut depth = 0usize;
            while let Some(t) = j.checked_sub(1).and_then(|k| toks.get(k)) {
                j -= 1;
                match t.text {
                    ")" => depth += 1,
                    "(" => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
            }
        }
        match j.checked_sub(1).and_then(|k| toks.get(k)) {
            Some(t) if t.kind == Kind::Word => {
                i = j - 1;
                crossed = true;
            }
            _ => return None,
        }
    }
    if !crossed {
        return toks.last().filter(|t| t.kind == Kind::Word).map(|t| t.text);
    }
    i.checked_sub(1).and_then(|k| toks.get(k)).filter(|t| t.kind == Kind::Word).map(|t| t.text)
}

/// The keywords valid in a context.
fn keywords(ctx: &Context) -> Vec<&'static str> {
    let item = ctx.item.as_deref().unwrap_or("");
    let inner = ctx.blocks.last().map(String::as_str);
    let mut out = keywords_of(item, ctx.blocks.len(), inner).to_vec();
    if out.as_slice() == ACTION {
        out.extend(EFFECT);
    }
    // A status's `clears` and `lasts` follow its body, where a new item may start too.
    if ctx.blocks.is_empty() && ctx.last_item.as_deref() == Some("status") {
        out.extend(STATUS_END);
    }
    out
}

fn keywords_of(item: &str, depth: usize, inner: Option<&str>) -> &'static [&'static str] {
    match (item, depth, inner) {
        (_, 0, _) => TOP,
        ("ruleset", 1, _) => RULESET,
        ("ruleset", 2, Some("turn")) => TURN,
        ("ruleset", _, Some("courage")) => COURAGE,
        ("ruleset", _, Some("leadership")) => LEADERSHIP,
        ("ruleset", _, Some("situations")) => SITUATIONS,
        ("ruleset", _, Some("charging")) => CHARGING,
        ("ruleset", _, Some("formations")) => FORMATIONS,
        ("ruleset", _, Some("area")) => AREA,
        ("terrain", 1, _) => TERRAIN,
        ("class", 1, _) => CLASS,
        ("class", _, Some("normal" | "transformed")) => &["ratings", "wields", "tags"],
        ("weapon" | "accessory" | "consumable", 1, _) => ITEM,
        ("scenario", 1, _) => SCENARIO,
        ("scenario", _, _) => SIDE,
        ("army", 1, _) => ARMY,
        ("army", _, _) => UNIT,
        (_, _, Some("action")) => ACTION,
        ("tag" | "status" | "weapon" | "accessory" | "consumable", _, _) => EFFECT,
        _ => &[],
    }
}

/// Whether the cursor is at a tag's parameter's type (`tag Foo(x: |`).
fn in_param_type(ctx: &Context) -> bool {
    ctx.previous_punct.as_deref() == Some(":") && ctx.item.as_deref() == Some("tag") && ctx.blocks.is_empty()
}

/// The kinds of definition an argument of type `ty` of a verb names (`None`: an expression).
fn kinds_of_arg(ty: &Type) -> Option<&'static [DefKind]> {
    Some(match ty {
        Type::Status => &[DefKind::Status],
        Type::WeaponType => &[DefKind::WeaponType],
        Type::Terrain => &[DefKind::Terrain],
        Type::Tag => &[DefKind::Tag],
        Type::Class => &[DefKind::Class],
        Type::Movement => &[DefKind::Movement],
        _ => return None,
    })
}

/// Whether the cursor follows `.weapon.` or `.accessory.`: a property of theirs is read there.
fn after_property_dot(ctx: &Context) -> bool {
    ctx.previous_punct.as_deref() == Some(".") && matches!(ctx.previous.as_deref(), Some("weapon" | "accessory"))
}

/// What the engine gives a unit after `unit.` (`promoted`, `weapon`, `terrain_defense`...) and a
/// weapon or an accessory after theirs (`self.weapon.max_range`), with what each is: the
/// compiler's own lists (`oc_model::UNIT_FIELDS`, `WEAPON_PROPERTIES`, `ACCESSORY_PROPERTIES`).
fn fields_after_dot(ctx: &Context) -> Vec<CompletionItem> {
    if ctx.previous_punct.as_deref() != Some(".") {
        return Vec::new();
    }
    let properties = |list: &[(&str, Type)], of: &str| {
        list.iter().map(|(n, t)| CompletionItem::new(*n, CompletionKind::Param, Some(format!("{of}: {}", t.name())))).collect()
    };
    match ctx.previous.as_deref() {
        Some("weapon") => properties(oc_model::WEAPON_PROPERTIES, "the weapon's"),
        Some("accessory") => properties(oc_model::ACCESSORY_PROPERTIES, "the accessory's"),
        _ => oc_model::UNIT_FIELDS
            .iter()
            .map(|(n, what)| CompletionItem::new(*n, CompletionKind::Param, Some((*what).to_string())))
            .collect(),
    }
}

/// The kinds of names that fit the list or keyword before the cursor (`None`: no preference).
fn wanted(ctx: &Context) -> Option<&'static [DefKind]> {
    let inner = ctx.blocks.last().map(String::as_str);
    let item = ctx.item.as_deref();
    if ctx.previous_punct.as_deref() == Some(":") && item == Some("army") {
        return Some(&[DefKind::Class]);
    }
    // Scales' names; the built-in types are offered as words.
    if in_param_type(ctx) {
        return Some(&[DefKind::Scale]);
    }
    // After `self.weapon.` and `self.accessory.`: their properties alone (`fields_after_dot`).
    if after_property_dot(ctx) {
        return Some(&[]);
    }
    // After `self.`, `foe.`...: an attribute (a tag's `Stat` parameter too), and the engine's own
    // fields of a unit (`fields_after_dot`).
    if ctx.previous_punct.as_deref() == Some(".") {
        return Some(&[DefKind::Stat, DefKind::Base, DefKind::Resource]);
    }
    // A turn block's `spend RESOURCE`, `order by RESOURCE ties DICE`, `order rolloff DICE`.
    if in_turn(ctx) {
        match ctx.previous.as_deref() {
            Some("spend" | "by") => return Some(&[DefKind::Resource]),
            Some("rolloff" | "ties") => return Some(&[DefKind::Dice]),
            _ => {}
        }
    }
    // `has` takes a tag or a status, wherever it is (in a verb's argument too).
    if ctx.list.as_deref() == Some("has") {
        return Some(&[DefKind::Tag, DefKind::Status]);
    }
    // In a verb's parentheses: what its argument there takes (`inflict(foe, |`: a status).
    if let Some((callee, index)) = &ctx.call {
        if let Some(verb) = oc_model::conformance::VERBS.iter().find(|v| v.name == callee.as_str()) {
            return verb.params.get(*index).and_then(kinds_of_arg);
        }
    }
    Some(match ctx.list.as_deref() {
        Some("tags" | "grant" | "with") => &[DefKind::Tag],
        Some("wields" | "type" | "wielding") => &[DefKind::WeaponType],
        Some("items" | "kit" | "chest") => &[DefKind::Item],
        Some("opened_by") => &[DefKind::Tag, DefKind::Item],
        Some("class" | "classes" | "from") if !ctx.blocks.is_empty() => &[DefKind::Class],
        Some("inflict" | "cure" | "clear") => &[DefKind::Status],
        Some("becomes") => &[DefKind::Terrain],
        Some("for") if item == Some("army") => &[DefKind::Scenario],
        _ if inner == Some("kit") => &[DefKind::Item],
        _ if inner == Some("triangle") => &[DefKind::WeaponType],
        _ if inner == Some("cost") && item == Some("terrain") => &[DefKind::Movement],
        _ if inner == Some("ratings") => &[DefKind::Stat],
        _ => return None,
    })
}

/// Whether the cursor is in a ruleset's `turn { }` block (its formulas read the step variables).
fn in_turn(ctx: &Context) -> bool {
    ctx.item.as_deref() == Some("ruleset") && ctx.blocks.len() == 2 && ctx.blocks.last().map(String::as_str) == Some("turn")
}

/// Whether names are worth offering at all in a context (top level offers none).
fn names_here(ctx: &Context) -> bool {
    !ctx.blocks.is_empty() || ctx.previous_punct.is_some() || matches!(ctx.previous.as_deref(), Some("for" | "tags"))
}

/// The thing a `tags` list belongs to, as a tag's `on` word: `class`, `weapon`, `unit`...
fn owner_kind(ctx: &Context) -> Option<&'static str> {
    if ctx.list.as_deref() == Some("grant") && ctx.item.as_deref() == Some("scenario") {
        return Some("unit");
    }
    if ctx.list.as_deref() != Some("tags") {
        return None;
    }
    match ctx.item.as_deref()? {
        "class" => Some("class"),
        "weapon" => Some("weapon"),
        "accessory" => Some("accessory"),
        "consumable" => Some("consumable"),
        "army" => Some("unit"),
        _ => None,
    }
}

/// Completions at a position.
pub fn completions(db: &dyn Db, pos: FilePosition<'_>) -> Vec<CompletionItem> {
    let Some(text) = db.text(pos.path) else { return Vec::new() };
    if is_map(pos.path) {
        return map_completions(db, pos, text);
    }
    let ctx = context(text, pos.offset);
    if ctx.in_string {
        return string_completions(db, pos, text);
    }
    let scope = scope_of(db, pos.path);
    let mut defs = scope_defs(db, &scope);
    let ast = db.ast(pos.path);
    let read = ast.and_then(|a| defs::item_at(a, pos.offset));
    // A half-written entry (`step_cost = |`, `self.|`) leaves its whole item unread: read the
    // text again with a name at the cursor, for the item and the file's definitions.
    let patched = if read.is_none() && !ctx.blocks.is_empty() { reread_with_cursor(text, pos.offset) } else { None };
    let item = read.or_else(|| patched.as_ref().and_then(|f| defs::item_at(f, pos.offset)));
    if let Some(file) = &patched {
        defs.retain(|(p, _)| *p != pos.path);
        defs.extend(defs::file_defs(file).into_iter().filter(|d| d.name != CURSOR).map(|d| (pos.path, d)));
    }
    let mut out: Vec<CompletionItem> = Vec::new();
    let wanted = wanted(&ctx);
    if wanted.is_none() {
        out.extend(keywords(&ctx).into_iter().map(|k| CompletionItem::new(k, CompletionKind::Keyword, None)));
        if let Some(Item::Tag(t)) = item {
            for p in &t.params {
                out.push(CompletionItem::new(
                    p.name.value.as_str(),
                    CompletionKind::Param,
                    Some(format!("parameter: {}", p.ty.value)),
                ));
            }
        }
        // In a turn block: the step variables its formulas read (`moved`, `attacks`...).
        if in_turn(&ctx) {
            for (name, ty) in oc_model::STEP_PARAMS {
                out.push(CompletionItem::new(*name, CompletionKind::Param, Some(format!("step variable: {}", ty.name()))));
            }
        }
        // In a combat block: the formulas written above (a formula reads those only).
        if let (Some("combat"), Some(Item::Ruleset(r))) = (ctx.blocks.last().map(String::as_str), item) {
            let inside = |s: oc_diag::Span| s.start as usize <= pos.offset && pos.offset <= s.end as usize;
            for f in r.combat.iter().filter(|c| inside(c.span)).flat_map(|c| &c.formulas) {
                if (f.value.span.end as usize) < pos.offset {
                    let word = DefKind::Formula.word().to_string();
                    out.push(CompletionItem::new(f.name.value.as_str(), CompletionKind::Def(DefKind::Formula), Some(word)));
                }
            }
        }
    }
    if in_param_type(&ctx) {
        out.extend(PARAM_TYPES.iter().map(|t| CompletionItem::new(*t, CompletionKind::Keyword, Some("type".to_string()))));
    }
    out.extend(fields_after_dot(&ctx));
    // A parameter of the tag around the cursor whose type the place takes (`has t`, `grant t`).
    if let (Some(kinds), Some(Item::Tag(t))) = (wanted, item) {
        for p in &t.params {
            let takes = names::kinds_of_type(&p.ty.value);
            if !takes.is_empty() && takes.iter().all(|k| kinds.contains(k)) {
                out.push(CompletionItem::new(
                    p.name.value.as_str(),
                    CompletionKind::Param,
                    Some(format!("parameter: {}", p.ty.value)),
                ));
            }
        }
    }
    if wanted.is_some() || names_here(&ctx) {
        let owner = owner_kind(&ctx);
        let mut seen = std::collections::HashSet::new();
        for (path, d) in &defs {
            let fits = match wanted {
                Some(kinds) => kinds.contains(&d.kind),
                None => !matches!(
                    d.kind,
                    DefKind::Ruleset
                        | DefKind::Army
                        | DefKind::Table
                        | DefKind::Dice
                        | DefKind::Formula
                        | DefKind::Unit
                        | DefKind::Reaction
                ),
            };
            if !fits || (d.kind == DefKind::Tag && owner.is_some_and(|o| !tag_goes_on(db, path, d, o))) {
                continue;
            }
            if seen.insert((d.name.clone(), d.kind)) {
                out.push(CompletionItem::new(d.name.as_str(), CompletionKind::Def(d.kind), Some(d.kind.word().to_string())));
            }
        }
    }
    out
}

/// The name written at the cursor to read a half-written item.
const CURSOR: &str = "__oc_cursor__";

/// The syntax tree of `text` with [`CURSOR`] written at `offset`, if an item holding it then
/// reads (spans past the cursor are moved by the name's length).
fn reread_with_cursor(text: &str, offset: usize) -> Option<oc_syntax::ast::SourceFile> {
    let patched = format!("{}{CURSOR}{}", text.get(..offset)?, text.get(offset..)?);
    let (file, _) = oc_syntax::parse(oc_diag::FileId(0), &patched);
    defs::item_at(&file, offset).is_some().then_some(file)
}

/// Whether the tag `def` may be put on a thing of kind `owner` (a tag that says nothing goes on
/// anything).
fn tag_goes_on(db: &dyn Db, path: &str, def: &defs::Def, owner: &str) -> bool {
    let Some(ast) = db.ast(path) else { return true };
    ast.items
        .iter()
        .find_map(|i| match i {
            Item::Tag(t) if t.name.span == def.name_span => {
                Some(t.kinds.is_empty() || t.kinds.iter().any(|k| k.value.as_str() == owner))
            }
            _ => None,
        })
        .unwrap_or(true)
}

/// Inside a string: a path after `import` or `map`; a region of the scenario's map elsewhere in
/// a scenario.
fn string_completions(db: &dyn Db, pos: FilePosition<'_>, text: &str) -> Vec<CompletionItem> {
    let Some((start, end, _)) = string_at(text, pos.offset) else { return Vec::new() };
    match crate::text::word_before(text, start.saturating_sub(1)) {
        Some("import") => paths(db, pos.path, start, end, |p| p.ends_with(".oc") && !is_map(p), true),
        Some("map") => paths(db, pos.path, start, end, is_map, false),
        Some("zone" | "seize" | "through" | "defend" | "in" | "regions") | Some(",") => {
            let Some(Item::Scenario(s)) = db.ast(pos.path).and_then(|a| defs::item_at(a, pos.offset)) else { return Vec::new() };
            let Some(logical) = s.maps.first().and_then(|m| relative_path(pos.path, &m.value)) else { return Vec::new() };
            let Some(map) = db.text(&logical).and_then(|t| maps::parse(t, None)) else { return Vec::new() };
            map.regions
                .iter()
                .map(|r| CompletionItem::new(r.name.as_str(), CompletionKind::Region, Some(format!("region: {}", r.kind.word()))))
                .collect()
        }
        _ => Vec::new(),
    }
}

/// The project's files a path string may name, relative to `from`'s folder (and, for imports,
/// the standard library's rulesets): each replaces the string's contents.
fn paths(db: &dyn Db, from: &str, start: usize, end: usize, fits: impl Fn(&str) -> bool, std: bool) -> Vec<CompletionItem> {
    let mut out: Vec<CompletionItem> = Vec::new();
    let mut files: Vec<&str> = db.files().into_iter().filter(|f| fits(f) && *f != from).collect();
    files.sort();
    for f in files {
        let label = relative(from, f);
        out.push(CompletionItem {
            edit: Some(TextEdit { start, end, text: label.clone() }),
            label,
            kind: CompletionKind::File,
            detail: Some(f.to_string()),
        });
    }
    if std {
        for (name, index) in oc_compiler::stdlib::RULESETS {
            let Some(short) = index.strip_prefix(oc_compiler::stdlib::PREFIX).and_then(|p| p.strip_suffix(".oc")) else {
                continue;
            };
            let label = format!("std:{short}");
            out.push(CompletionItem {
                edit: Some(TextEdit { start, end, text: label.clone() }),
                label,
                kind: CompletionKind::File,
                detail: Some(format!("the standard library's `{name}` ruleset")),
            });
        }
    }
    out
}

/// `target` (a logical path) written relative to the folder of `from` (another one): the
/// compiler's, which suggests paths too.
pub use oc_compiler::relative;

/// In a map: the symbols in its rows, terrain names for a legend's values.
fn map_completions(db: &dyn Db, pos: FilePosition<'_>, text: &str) -> Vec<CompletionItem> {
    if in_legend_value(text, pos.offset) {
        let scope = scope_of(db, pos.path);
        let mut seen = std::collections::HashSet::new();
        return scope_defs(db, &scope)
            .into_iter()
            .filter(|(_, d)| d.kind == DefKind::Terrain && seen.insert(d.name.clone()))
            .map(|(_, d)| {
                CompletionItem::new(d.name.as_str(), CompletionKind::Def(DefKind::Terrain), Some("terrain".to_string()))
            })
            .collect();
    }
    let Some(map) = maps::parse(text, db.rules(pos.path)) else { return Vec::new() };
    if !maps::in_rows(&map, pos.offset) {
        return Vec::new();
    }
    maps::symbols(&map)
        .into_iter()
        .map(|(symbol, terrain)| CompletionItem::new(symbol.to_string(), CompletionKind::Symbol, Some(terrain)))
        .collect()
}

/// Whether `offset` is in the value of a `[legend]` entry (`x = "Ru|`), read from the text so
/// that a half-typed file still completes.
fn in_legend_value(text: &str, offset: usize) -> bool {
    let before = text.get(..offset).unwrap_or("");
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = before.get(line_start..).unwrap_or("");
    let in_value = line.split_once('=').is_some_and(|(_, v)| v.trim_start().starts_with('"') && v.matches('"').count() == 1);
    let section = before.get(..line_start).unwrap_or("").lines().rev().map(str::trim).find(|l| l.starts_with('['));
    in_value && section == Some("[legend]")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn at(text: &str) -> Context {
        let offset = text.find('|').unwrap();
        context(&text.replace('|', ""), offset)
    }

    #[test]
    fn contexts() {
        let c = at("class A {\n    tags |\n}");
        assert_eq!(
            (c.item.as_deref(), c.blocks.clone(), c.list.as_deref()),
            (Some("class"), vec!["A".to_string()], Some("tags"))
        );
        assert_eq!(wanted(&c), Some(&[DefKind::Tag][..]));
        let c = at("class A { cost 1 }\n|");
        assert_eq!(keywords(&c), TOP);
        let c = at("status S { hp -= 1 }\n|");
        assert!(keywords(&c).contains(&"clears"));
        let c = at("scenario S {\n    attacker {\n        zone \"a|\"\n    }\n}");
        assert!(c.in_string);
        assert_eq!(c.blocks, ["S", "attacker"]);
        let c = at("army A for S attacker {\n    unit X: |\n}");
        assert_eq!(wanted(&c), Some(&[DefKind::Class][..]));
        let c = at("weapon W {\n    ty|\n}");
        assert_eq!(keywords(&c), ITEM);
        let c = at("tag T doc \"x\"\nclass C {\n    |\n}");
        assert_eq!(keywords(&c), CLASS);
        let c = at("tag T on class, weapon doc \"x\" { movement += | }");
        assert_eq!(keywords(&c), EFFECT);
    }

    /// Issue 42: the list a cursor is in survives its first entry.
    #[test]
    fn lists_keep_their_keyword_after_the_first_entry() {
        for (text, list, kinds) in [
            ("class A { tags Canto, |", "tags", &[DefKind::Tag][..]),
            ("class A { tags Lucky(5), Brave, Ca|", "tags", &[DefKind::Tag][..]),
            ("class A { wields Swords, |", "wields", &[DefKind::WeaponType][..]),
            ("army A for S attacker { unit X: Y { items IronSword, |", "items", &[DefKind::Item][..]),
            ("terrain D { opened_by Pick or |", "opened_by", &[DefKind::Tag, DefKind::Item][..]),
            ("scenario S { attacker { allow classes Fighter, |", "classes", &[DefKind::Class][..]),
        ] {
            let c = at(text);
            assert_eq!(c.list.as_deref(), Some(list), "{text}");
            assert_eq!(wanted(&c), Some(kinds), "{text}");
        }
        assert_eq!(wanted(&at("triangle { Swords > Axes > |")), Some(&[DefKind::WeaponType][..]));
        // A condition's `or` is no list.
        assert_eq!(at("scenario S { attacker { win seize \"a\" or |").list.as_deref(), None);
    }

    /// A verb's parentheses take what its argument there is; `has` a tag or a status.
    #[test]
    fn arguments_take_what_the_verb_does() {
        for (text, call, kinds) in [
            ("tag T { on hit { inflict(foe, |", Some(("inflict", 1)), Some(&[DefKind::Status][..])),
            ("tag T { on hit { inflict(|", Some(("inflict", 0)), None),
            ("tag T { restrict(|", Some(("restrict", 0)), Some(&[DefKind::WeaponType][..])),
            ("tag T { restrict(Swords) |", None, None),
            (
                "tag T { when (foe has X) { inflict(foe, if self has |",
                Some(("inflict", 1)),
                Some(&[DefKind::Tag, DefKind::Status][..]),
            ),
            ("tag T { when self has |", None, Some(&[DefKind::Tag, DefKind::Status][..])),
            ("tag T(x: |", Some(("T", 0)), Some(&[DefKind::Scale][..])),
        ] {
            let c = at(text);
            assert_eq!(c.call.as_ref().map(|(v, i)| (v.as_str(), *i)), call, "{text}");
            assert_eq!(wanted(&c), kinds, "{text}");
        }
    }

    /// The keywords offered where a definition, a class entry or an item entry begins are the
    /// grammar's there, no more and no fewer; every verb and statement keyword is offered in an
    /// effect; and every other list offers at least the words its entries begin with: a keyword
    /// added to or renamed in the grammar fails here until completion follows it.
    #[test]
    fn keyword_lists_are_the_grammars() {
        let set = |l: &[&'static str]| l.iter().copied().collect::<std::collections::BTreeSet<&str>>();
        assert_eq!(set(TOP), oc_syntax::first_words("item"));
        assert_eq!(set(CLASS), oc_syntax::first_words("class_entry"));
        assert_eq!(set(ITEM), oc_syntax::first_words("item_entry"));
        for verb in oc_syntax::first_words("verb") {
            assert!(EFFECT.contains(&verb), "`{verb}` is not offered in an effect");
        }
        for word in oc_syntax::first_words("statement") {
            assert!(EFFECT.contains(&word), "`{word}` (a statement) is not offered in an effect");
        }
        for (list, rule) in [
            (RULESET, "ruleset_entry"),
            (COURAGE, "courage_entry"),
            (LEADERSHIP, "leadership_entry"),
            (SITUATIONS, "situations_entry"),
            (CHARGING, "charging_entry"),
            (FORMATIONS, "formations_entry"),
            (TURN, "turn_entry"),
            (TURN, "order_alternate"),
            (TURN, "order_rolloff"),
            (TURN, "order_by"),
            (TURN, "threat_shape"),
            (TURN, "threat_shooting"),
            (AREA, "area_entry"),
            (TERRAIN, "terrain_entry"),
            (SCENARIO, "scenario_entry"),
            (SIDE, "side_entry"),
            (STATUS_END, "status_end"),
        ] {
            for word in oc_syntax::first_words(rule) {
                assert!(list.contains(&word), "`{word}` begins a `{rule}` but is not offered there");
            }
        }
        let action = keywords(&at("tag T { action { | } }"));
        for word in oc_syntax::first_words("action_entry") {
            assert!(action.contains(&word), "`{word}` begins an `action_entry` but is not offered there");
        }
    }

    #[test]
    fn import_paths_relative_to_the_importer() {
        assert_eq!(relative("a/b/x.oc", "a/c/y.oc"), "../c/y.oc");
        assert_eq!(relative("x.oc", "lib/y.oc"), "lib/y.oc");
        assert_eq!(relative("a/x.oc", "a/y.oc"), "y.oc");
    }

    #[test]
    fn legend_values() {
        let text = "name = \"x\"\n[legend]\nx = \"Ru";
        assert!(in_legend_value(text, text.len()));
        let text = "[[regions]]\nname = \"Ru";
        assert!(!in_legend_value(text, text.len()));
    }
}
