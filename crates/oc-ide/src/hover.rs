//! The hover text of a definition: what its syntax tree says of it (a stat's scale, a base's
//! default, when a resource is set, a terrain's properties, an item's uses) and its source.

use oc_diag::Span;
use oc_syntax::ast::{self, Item};

use crate::defs::{def_source, item_at, scope_defs, Def, DefKind};
use crate::Db;

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
                    // One bound written (`within 1`): that distance, `1..1`.
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

/// What each step variable is (`oc_model::STEP_PARAMS`, as docs/dsl.md's turn block says).
const STEP_DOCS: &[(&str, &str)] = &[
    ("moved", "movement points the step's move spends (0 without one)"),
    ("attacks", "the step attacks"),
    ("acts", "the step does anything but wait"),
    ("moves", "move steps already taken this activation"),
    ("steps", "steps already taken this activation"),
    ("repeats", "times this same act was already taken this activation"),
    ("range", "the distance from where the unit acts to the unit or square it acts on (0 without one)"),
    ("zoned", "it acts from a square in the threat zone of an enemy its side sees"),
    ("target_zoned", "the unit it acts on stands in its own threat zone, facing it"),
    ("cost", "the act's own price: an action's `cost` (of a charged action, the part this step pays), 0 for other acts"),
    ("priced", "the act is an action that names its own `cost` (`cost 0`: a free act)"),
    ("equips", "the step changes the weapon the unit holds"),
    ("uses", "its act uses an item from the unit's pack"),
    ("items", "steps that changed weapons or used an item already taken this activation"),
    ("action", "the tag whose action the step takes (`action == StandUp`); no tag's name for an attack, an item's use or a wait"),
];

/// The hover of a step variable read in a turn formula.
pub fn step_variable(name: &str, ty: &oc_model::Type) -> String {
    let what = STEP_DOCS.iter().find(|(n, _)| *n == name).map_or("", |(_, d)| *d);
    format!("step variable `{name}: {}` — {what}", ty.name())
}
