//! The pages of definitions: classes, items, tags and statuses, and the link helpers every page uses.

use oc_model::{Effect, Expr, Item, ItemKind, Rules, TagUse, Type, Value};

use crate::page::{code, code_link, link, text, Block, Href, Inline, Line, Page};
use crate::print;
use crate::{anchor, href, summary, Entry, Input, Kind};

// ---------------------------------------------------------------- helpers

/// Whether the rules define `name` as a `kind` (so that its anchor exists).
pub(crate) fn defined(rules: &Rules, kind: Kind, name: &str) -> bool {
    match kind {
        Kind::Class | Kind::Item | Kind::Tag | Kind::Status => indexed(rules, kind, name),
        Kind::Terrain => rules.terrain(name).is_some(),
        Kind::WeaponType => rules.weapon_type(name).is_some(),
        Kind::Movement => rules.movements.iter().any(|m| m == name),
        Kind::Ruleset => rules.ruleset.name == name,
        Kind::Scenario => rules.scenario(name).is_some(),
        Kind::Army => rules.army(name).is_some(),
    }
}

/// Where each class, item, tag and status is (by name, one map a kind), in the rules at an
/// address.
type Places = (usize, [std::collections::HashMap<String, usize>; 4]);

thread_local! {
    /// The places in the rules last asked about: a site links thousands of names, and
    /// `Rules::class` searches the list.
    static PLACES: std::cell::RefCell<Places> = std::cell::RefCell::new((0, Default::default()));
}

/// [`defined`] for the kinds the rules hold many of, through an index of their places. A place
/// found is checked against the name there, and a name not found is searched for, so an index
/// of other rules at the same address can only cost time, never give a wrong answer.
fn indexed(rules: &Rules, kind: Kind, name: &str) -> bool {
    const KINDS: [Kind; 4] = [Kind::Class, Kind::Item, Kind::Tag, Kind::Status];
    let name_at = |kind: Kind, i: usize| -> Option<&str> {
        match kind {
            Kind::Class => rules.classes.get(i).map(|c| c.name.as_str()),
            Kind::Item => rules.items.get(i).map(|c| c.name.as_str()),
            Kind::Tag => rules.tags.get(i).map(|c| c.name.as_str()),
            _ => rules.statuses.get(i).map(|c| c.name.as_str()),
        }
    };
    let slot = KINDS.iter().position(|k| *k == kind).unwrap_or(3);
    let place = PLACES.with(|places| {
        let mut places = places.borrow_mut();
        let address = rules as *const Rules as usize;
        if places.0 != address {
            let mut maps: [std::collections::HashMap<String, usize>; 4] = Default::default();
            for (map, kind) in maps.iter_mut().zip(KINDS) {
                for (i, n) in (0..).map_while(|i| name_at(kind, i).map(|n| (i, n))) {
                    map.entry(n.to_string()).or_insert(i);
                }
            }
            *places = (address, maps);
        }
        places.1.get(slot).and_then(|map| map.get(name)).copied()
    });
    if place.and_then(|i| name_at(kind, i)) == Some(name) {
        return true;
    }
    match kind {
        Kind::Class => rules.class(name).is_some(),
        Kind::Item => rules.item(name).is_some(),
        Kind::Tag => rules.tag(name).is_some(),
        _ => rules.status(name).is_some(),
    }
}

/// The name as code, linked to its definition when the rules have one.
pub(crate) fn name(rules: &Rules, kind: Kind, n: &str) -> Inline {
    if defined(rules, kind, n) {
        code_link(n, href(kind, n))
    } else {
        code(n)
    }
}

/// Names joined with `, ` (or `—` for none).
pub(crate) fn names<'a, S: AsRef<str> + ?Sized + 'a>(rules: &Rules, kind: Kind, list: impl IntoIterator<Item = &'a S>) -> Line {
    join(list.into_iter().map(|n| vec![name(rules, kind, n.as_ref())]).collect())
}

/// The most names a list of what relates to a definition shows ("weapons of its types", "used
/// by"); past it, how many more. A large project's every class would otherwise list a thousand
/// weapons, and its site run to gigabytes.
pub(crate) const MAX_LISTED: usize = 40;

/// [`join`] of at most [`MAX_LISTED`] lines, then how many more there are.
pub(crate) fn join_capped(mut lines: Vec<Line>) -> Line {
    let more = lines.len().saturating_sub(MAX_LISTED);
    lines.truncate(MAX_LISTED);
    let mut out = join(lines);
    if more > 0 {
        out.push(text(format!(" and {more} more")));
    }
    out
}

/// [`names`], capped as [`join_capped`] caps.
pub(crate) fn names_capped<'a>(rules: &Rules, kind: Kind, list: impl IntoIterator<Item = &'a str>) -> Line {
    join_capped(list.into_iter().map(|n| vec![name(rules, kind, n)]).collect())
}

pub(crate) fn join(lines: Vec<Line>) -> Line {
    if lines.is_empty() {
        return vec![text("—")];
    }
    let mut out = Vec::new();
    for (i, l) in lines.into_iter().enumerate() {
        if i > 0 {
            out.push(text(", "));
        }
        out.extend(l);
    }
    out
}

fn kind_of_type(ty: &Type) -> Option<Kind> {
    Some(match ty {
        Type::Tag => Kind::Tag,
        Type::Class => Kind::Class,
        Type::Status => Kind::Status,
        Type::WeaponType => Kind::WeaponType,
        Type::Terrain => Kind::Terrain,
        Type::Movement => Kind::Movement,
        _ => return None,
    })
}

/// A constant with the definitions it names linked.
pub(crate) fn value(input: &Input, v: &Value) -> Inline {
    match v {
        Value::Name { ty, name: n } => match kind_of_type(ty) {
            Some(kind) => name(input.rules, kind, n),
            None => code(n.clone()),
        },
        other => code(print::value(other, &input.rules.ruleset.scales)),
    }
}

/// `Lucky(5)`, `Effective(Armored)`: the tag linked, and the definitions its arguments name.
pub(crate) fn tag_use(input: &Input, t: &TagUse) -> Line {
    let mut line = vec![name(input.rules, Kind::Tag, &t.tag)];
    if !t.args.is_empty() {
        line.push(code("("));
        for (i, a) in t.args.iter().enumerate() {
            if i > 0 {
                line.push(code(", "));
            }
            line.push(value(input, a));
        }
        line.push(code(")"));
    }
    line
}

pub(crate) fn tag_uses(input: &Input, tags: &[TagUse]) -> Line {
    join(tags.iter().map(|t| tag_use(input, t)).collect())
}

/// The heading of a definition, with its anchor: `Myrmidon — Myrmidon`.
pub(crate) fn heading(kind: Kind, n: &str, title: Option<&str>) -> Block {
    let mut line = vec![code(n)];
    if let Some(t) = title.filter(|t| *t != n) {
        line.push(text(format!(" — {t}")));
    }
    Block::Heading { level: 2, anchor: Some(anchor(kind, n)), text: line }
}

/// The doc string as a paragraph (or a note that there is none).
pub(crate) fn doc(doc: Option<&str>) -> Block {
    match doc {
        Some(d) => Block::Para(vec![text(d)]),
        None => Block::Para(vec![Inline::Text("(no doc string)".into())]),
    }
}

/// `("Source", std:ratings/classes.oc:14)`, linked to that line.
pub(crate) fn source(input: &Input, kind: Kind, n: &str) -> Option<(String, Line)> {
    input.origin(kind, n).map(|(shown, to)| ("Source".to_string(), vec![code_link(shown, to)]))
}

pub(crate) fn entry(search: &mut Vec<Entry>, kind: Kind, n: &str, what: String) {
    search.push(Entry { name: n.to_string(), kind: kind.word().to_string(), href: href(kind, n), summary: what });
}

/// Whether an expression (or anything inside it) satisfies `hit`.
pub(crate) fn expr_mentions(e: &Expr, hit: &dyn Fn(&Expr) -> bool) -> bool {
    if hit(e) {
        return true;
    }
    let m = |x: &Expr| expr_mentions(x, hit);
    match e {
        Expr::Unary { expr, .. } => m(expr),
        Expr::Binary { lhs, rhs, .. } => m(lhs) || m(rhs),
        Expr::Lookup { args, .. } | Expr::Call { args, .. } | Expr::Has { args, .. } => args.iter().any(m),
        Expr::RollValue { dice } => m(dice),
        Expr::If { condition, then, otherwise } => m(condition) || m(then) || m(otherwise),
        _ => false,
    }
}

/// Whether effects (or their conditions and arguments) satisfy `hit`; `grant` counts for `granted`.
pub(crate) fn effects_mention(effects: &[Effect], hit: &dyn Fn(&Expr) -> bool, granted: Option<&str>) -> bool {
    effects.iter().any(|e| match e {
        Effect::Modify { value, .. } => expr_mentions(value, hit),
        Effect::When { condition, then } => expr_mentions(condition, hit) || effects_mention(then, hit, granted),
        Effect::On { then, .. } => effects_mention(then, hit, granted),
        Effect::Grant { tag, args } => granted == Some(tag.as_str()) || args.iter().any(|a| expr_mentions(a, hit)),
        Effect::GrantParam { .. } => false,
        Effect::Action(a) => {
            a.min_range.iter().chain(a.max_range.iter()).chain(a.requires.iter()).any(|x| expr_mentions(x, hit))
                || effects_mention(&a.effects, hit, granted)
        }
        Effect::Command { args, .. } => args.iter().any(|a| expr_mentions(a, hit)),
    })
}

fn code_block(effects: &[Effect], input: &Input) -> Option<Block> {
    (!effects.is_empty()).then(|| Block::Code(print::effects(effects, &input.rules.ruleset.scales)))
}

// ---------------------------------------------------------------- classes

fn ratings_row(input: &Input, ratings: &oc_model::Ratings) -> Vec<Line> {
    input
        .rules
        .ruleset
        .stats
        .iter()
        .map(|s| match ratings.get(&s.name) {
            Some(v) => vec![code(print::value(v, &input.rules.ruleset.scales))],
            None => vec![text("—")],
        })
        .collect()
}

fn stat_head(input: &Input) -> Vec<Line> {
    input.rules.ruleset.stats.iter().map(|s| vec![link(s.name.clone(), Href::to("ruleset", "stats"))]).collect()
}

pub fn classes(input: &Input, search: &mut Vec<Entry>) -> Page {
    let rules = input.rules;
    let mut p = Page::new("classes", "Classes");
    p.blocks.push(Block::Heading { level: 1, anchor: None, text: vec![text("Classes")] });
    p.blocks.push(Block::Para(vec![
        text(format!("{} classes. Ratings are per ", rules.classes.len())),
        link("stat", Href::to("ruleset", "stats")),
        text("; a class wields the "),
        link("weapon types", Href::to("ruleset", "weapon-types")),
        text(" listed, and its tags apply to every unit of the class."),
    ]));
    let mut head = vec![vec![text("class")]];
    head.extend(stat_head(input));
    head.extend([vec![text("wields")], vec![text("tags")], vec![text("cost")]]);
    let rows = rules
        .classes
        .iter()
        .map(|c| {
            let mut row = vec![vec![name(rules, Kind::Class, &c.name)]];
            row.extend(ratings_row(input, &c.ratings));
            row.push(names(rules, Kind::WeaponType, &c.wields));
            row.push(tag_uses(input, &c.tags));
            row.push(vec![text(c.cost.to_string())]);
            row
        })
        .collect();
    p.blocks.push(Block::Table { head, rows });
    // The weapons of each type, by their places in the items (a class lists those of its types).
    let mut weapons_of: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (k, i) in rules.items.iter().enumerate() {
        if let Some(t) = &i.weapon_type {
            weapons_of.entry(t.as_str()).or_default().push(k);
        }
    }
    for c in &rules.classes {
        p.blocks.push(heading(Kind::Class, &c.name, c.title.as_deref()));
        p.blocks.push(doc(c.doc.as_deref()));
        let mut head = stat_head(input);
        head.insert(0, vec![text("form")]);
        let mut rows = Vec::new();
        let mut row = vec![vec![text(if c.forms.is_some() { "class" } else { "ratings" })]];
        row.extend(ratings_row(input, &c.ratings));
        rows.push(row);
        if let Some(forms) = &c.forms {
            for (word, form) in [("normal", &forms.normal), ("transformed", &forms.transformed)] {
                let mut row = vec![vec![text(word)]];
                row.extend(ratings_row(input, &form.ratings));
                rows.push(row);
            }
        }
        p.blocks.push(Block::Table { head, rows });
        let mut facts = vec![
            ("Wields".to_string(), names(rules, Kind::WeaponType, &c.wields)),
            ("Tags".to_string(), tag_uses(input, &c.tags)),
            ("Cost".to_string(), vec![text(c.cost.to_string())]),
        ];
        if c.promoted {
            let from = match &c.promoted_from {
                Some(f) => vec![text("yes, from "), name(rules, Kind::Class, f)],
                None => vec![text("yes")],
            };
            facts.push(("Promoted".to_string(), from));
        }
        let promotes: Vec<&str> = rules
            .classes
            .iter()
            .filter(|o| o.promoted_from.as_deref() == Some(c.name.as_str()))
            .map(|o| o.name.as_str())
            .collect();
        if !promotes.is_empty() {
            facts.push(("Promotes to".to_string(), names(rules, Kind::Class, promotes)));
        }
        if !c.kit.is_empty() {
            facts.push(("Kit".to_string(), names(rules, Kind::Item, &c.kit)));
        }
        if let Some(forms) = &c.forms {
            for (word, form) in [("Normal form", &forms.normal), ("Transformed form", &forms.transformed)] {
                let mut line = vec![text("wields ")];
                line.extend(names(rules, Kind::WeaponType, &form.wields));
                line.push(text("; tags "));
                line.extend(tag_uses(input, &form.tags));
                facts.push((word.to_string(), line));
            }
        }
        let mut types: Vec<&oc_model::Name> = c.wields.iter().collect();
        if let Some(forms) = &c.forms {
            types.extend(forms.normal.wields.iter().chain(forms.transformed.wields.iter()));
        }
        // In the items' order, each once (a form may wield what the class does).
        let mut found: Vec<usize> =
            types.iter().flat_map(|t| weapons_of.get(t.as_str()).into_iter().flatten().copied()).collect();
        found.sort_unstable();
        found.dedup();
        // Not another class's own (Exclusive(Class)): the armies' rule says who may use it.
        let weapons: Vec<&str> = found
            .iter()
            .filter_map(|i| rules.items.get(*i))
            .filter(|i| oc_compiler::scenario::item_refusals(c, i, None).is_empty())
            .map(|i| i.name.as_str())
            .collect();
        if !weapons.is_empty() {
            facts.push(("Weapons of its types".to_string(), names_capped(rules, Kind::Item, weapons)));
        }
        facts.extend(source(input, Kind::Class, &c.name));
        p.blocks.push(Block::Facts(facts));
        let what = c.doc.as_deref().map(summary).unwrap_or_else(|| {
            let wields = if c.wields.is_empty() { "no weapons".to_string() } else { c.wields.join(", ") };
            format!("{}: {wields}, cost {}", c.title.as_deref().unwrap_or(&c.name), c.cost)
        });
        entry(search, Kind::Class, &c.name, what);
    }
    p
}

// ---------------------------------------------------------------- items

fn kind_word(k: ItemKind) -> &'static str {
    match k {
        ItemKind::Weapon => "weapon",
        ItemKind::Accessory => "accessory",
        ItemKind::Consumable => "consumable",
    }
}

/// An item's reach as written (`1..self.mag / 2`), or in tiles where both ends are constants
/// (seed 003's `shot_min[P4] / 3 + 1..shot_reach[P4] / 3` is `2..9`); with `formula`, a
/// constant reach is followed by what it was written as.
fn range(input: &Input, i: &Item, formula: bool) -> String {
    let Some(r) = &i.range else { return "—".to_string() };
    let scales = &input.rules.ruleset.scales;
    let (lo, hi) = (print::expr(&r.min, scales), print::expr(&r.max, scales));
    let written = if lo == hi { lo } else { format!("{lo}..{hi}") };
    let (Some(lo), Some(hi)) = (constant(input.rules, &r.min), constant(input.rules, &r.max)) else { return written };
    let tiles = if lo == hi { lo.to_string() } else { format!("{lo}..{hi}") };
    if formula && tiles != written {
        format!("{tiles} ({written})")
    } else {
        tiles
    }
}

/// A whole number an expression comes to whatever the battle: constants, a table's cell at
/// constant steps, and the arithmetic of numbers as the engine does it (`eval.rs`: saturating,
/// division toward zero, by zero 0); `None` for anything a unit or a battle gives.
fn constant(rules: &Rules, e: &Expr) -> Option<i64> {
    use oc_model::{BinaryOp, UnaryOp};
    match e {
        Expr::Const(Value::Int(n)) => Some(*n),
        Expr::Unary { op: UnaryOp::Neg, expr } => Some(constant(rules, expr)?.saturating_neg()),
        Expr::Binary { op, ty: Type::Int, lhs, rhs } => {
            let (a, b) = (constant(rules, lhs)?, constant(rules, rhs)?);
            match op {
                BinaryOp::Add => Some(a.saturating_add(b)),
                BinaryOp::Sub => Some(a.saturating_sub(b)),
                BinaryOp::Mul => Some(a.saturating_mul(b)),
                BinaryOp::Div => Some(a.checked_div(b).unwrap_or(0)),
                BinaryOp::Rem => Some(a.checked_rem(b).unwrap_or(0)),
                _ => None,
            }
        }
        Expr::Lookup { table, args } => {
            let steps = args
                .iter()
                .map(|a| match a {
                    Expr::Const(Value::Step { index, .. }) => usize::try_from(*index).ok(),
                    _ => None,
                })
                .collect::<Option<Vec<usize>>>()?;
            match rules.ruleset.table(table)?.get(&rules.ruleset, &steps)? {
                Value::Int(n) => Some(*n),
                _ => None,
            }
        }
        _ => None,
    }
}

pub fn items(input: &Input, search: &mut Vec<Entry>) -> Page {
    let rules = input.rules;
    let mut p = Page::new("items", "Items");
    p.blocks.push(Block::Heading { level: 1, anchor: None, text: vec![text("Items")] });
    p.blocks.push(Block::Para(vec![text(format!(
        "{} items: weapons, accessories and consumables. A unit carries at most {} (the ruleset's inventory).",
        rules.items.len(),
        rules.ruleset.inventory
    ))]));
    for kind in [ItemKind::Weapon, ItemKind::Accessory, ItemKind::Consumable] {
        let list: Vec<&Item> = rules.items.iter().filter(|i| i.kind == kind).collect();
        if list.is_empty() {
            continue;
        }
        let title = match kind {
            ItemKind::Weapon => "Weapons",
            ItemKind::Accessory => "Accessories",
            ItemKind::Consumable => "Consumables",
        };
        p.blocks.push(Block::Heading { level: 3, anchor: Some(format!("{}-list", kind_word(kind))), text: vec![text(title)] });
        let head = ["item", "type", "might", "weight", "range", "tags", "cost"].iter().map(|h| vec![text(*h)]).collect();
        let rows = list
            .iter()
            .map(|i| {
                vec![
                    vec![name(rules, Kind::Item, &i.name)],
                    i.weapon_type.as_ref().map_or(vec![text("—")], |t| vec![name(rules, Kind::WeaponType, t)]),
                    vec![text(i.might.to_string())],
                    vec![text(i.weight.to_string())],
                    vec![text(range(input, i, false))],
                    tag_uses(input, &i.tags),
                    vec![text(i.cost.to_string())],
                ]
            })
            .collect();
        p.blocks.push(Block::Table { head, rows });
    }
    // The classes wielding each type (their own or a form's), by their places, in order.
    let mut wielders_of: std::collections::HashMap<&str, Vec<usize>> = std::collections::HashMap::new();
    for (k, c) in rules.classes.iter().enumerate() {
        let forms = c.forms.iter().flat_map(|f| f.normal.wields.iter().chain(f.transformed.wields.iter()));
        let mut types: Vec<&str> = c.wields.iter().chain(forms).map(|t| t.as_str()).collect();
        types.sort_unstable();
        types.dedup();
        for t in types {
            wielders_of.entry(t).or_default().push(k);
        }
    }
    for i in &rules.items {
        p.blocks.push(heading(Kind::Item, &i.name, i.title.as_deref()));
        p.blocks.push(doc(i.doc.as_deref()));
        let mut facts = vec![("Kind".to_string(), vec![text(kind_word(i.kind))])];
        if let Some(t) = &i.weapon_type {
            facts.push(("Type".to_string(), vec![name(rules, Kind::WeaponType, t)]));
        }
        if i.kind == ItemKind::Weapon {
            facts.push(("Might".to_string(), vec![text(i.might.to_string())]));
            facts.push(("Range".to_string(), vec![code(range(input, i, true))]));
        }
        facts.push(("Weight".to_string(), vec![text(i.weight.to_string())]));
        facts.push(("Tags".to_string(), tag_uses(input, &i.tags)));
        facts.push(("Cost".to_string(), vec![text(i.cost.to_string())]));
        if let Some(t) = &i.weapon_type {
            let wielders: Vec<&str> = wielders_of
                .get(t.as_str())
                .into_iter()
                .flatten()
                .filter_map(|k| rules.classes.get(*k))
                .map(|c| c.name.as_str())
                .collect();
            facts.push(("Classes wielding its type".to_string(), names_capped(rules, Kind::Class, wielders)));
        }
        let kits: Vec<&str> =
            rules.classes.iter().filter(|c| c.kit.iter().any(|k| *k == i.name)).map(|c| c.name.as_str()).collect();
        if !kits.is_empty() {
            facts.push(("In the kit of".to_string(), names(rules, Kind::Class, kits)));
        }
        facts.extend(source(input, Kind::Item, &i.name));
        p.blocks.push(Block::Facts(facts));
        if let Some(b) = code_block(&i.modifiers, input) {
            p.blocks.push(Block::Para(vec![text("While carried:")]));
            p.blocks.push(b);
        }
        if let Some(b) = code_block(&i.uses, input) {
            p.blocks.push(Block::Para(vec![text("Use:")]));
            p.blocks.push(b);
        }
        let what = i.doc.as_deref().map(summary).unwrap_or_else(|| {
            let ty = i.weapon_type.as_deref().map(|t| format!(" ({t})")).unwrap_or_default();
            format!("{}: {}{ty}, cost {}", i.title.as_deref().unwrap_or(&i.name), kind_word(i.kind), i.cost)
        });
        entry(search, Kind::Item, &i.name, what);
    }
    p
}

// ---------------------------------------------------------------- tags

pub fn tags(input: &Input, search: &mut Vec<Entry>) -> Page {
    let rules = input.rules;
    let mut p = Page::new("tags", "Tags");
    p.blocks.push(Block::Heading { level: 1, anchor: None, text: vec![text("Tags")] });
    p.blocks.push(Block::Para(vec![text(format!(
        "{} tags. A tag is written on a class, an item or a status (`tags Lucky(5)`); what it does is its effects. \
         A tag without effects is a marker the combat formulas or other tags read with `has`.",
        rules.tags.len()
    ))]));
    let head = vec![vec![text("tag")], vec![text("on")], vec![text("what it does")]];
    let rows = rules
        .tags
        .iter()
        .map(|t| {
            vec![
                vec![name(rules, Kind::Tag, &t.name)],
                vec![text(applies(t))],
                vec![text(t.doc.as_deref().map(summary).unwrap_or_default())],
            ]
        })
        .collect();
    p.blocks.push(Block::Table { head, rows });
    for t in &rules.tags {
        let params: Vec<String> = t.params.iter().map(|x| format!("{}: {}", x.name, print::ty(&x.ty))).collect();
        let signature = if params.is_empty() { t.name.clone() } else { format!("{}({})", t.name, params.join(", ")) };
        let mut h = heading(Kind::Tag, &t.name, None);
        if let Block::Heading { text: line, .. } = &mut h {
            *line = vec![code(signature.clone())];
        }
        p.blocks.push(h);
        p.blocks.push(doc(t.doc.as_deref()));
        let mut facts = Vec::new();
        if !t.params.is_empty() {
            let list = t
                .params
                .iter()
                .map(|x| {
                    let ty = print::ty(&x.ty);
                    let ty_link = match kind_of_type(&x.ty) {
                        Some(k) => link(ty, Href::page(k.page())),
                        None => code(ty),
                    };
                    vec![code(format!("{}: ", x.name)), ty_link]
                })
                .collect();
            facts.push(("Parameters".to_string(), join(list)));
        }
        facts.push(("May appear on".to_string(), vec![text(applies(t))]));
        facts.push(("Stacks".to_string(), vec![text(if t.stacks { "yes: several instances add up" } else { "no" })]));
        let is_this = |e: &Expr| matches!(e, Expr::Has { tag, .. } if *tag == t.name);
        let formulas: Vec<Line> = rules
            .ruleset
            .combat
            .iter()
            .filter(|f| expr_mentions(&f.expr, &is_this))
            .map(|f| vec![code_link(f.name.clone(), Href::to("ruleset", format!("formula-{}", f.name)))])
            .collect();
        if !formulas.is_empty() {
            facts.push(("Read by the formulas".to_string(), join(formulas)));
        }
        let mut users: Vec<Line> = Vec::new();
        for c in &rules.classes {
            let mut all = c.tags.iter().collect::<Vec<_>>();
            if let Some(f) = &c.forms {
                all.extend(f.normal.tags.iter().chain(f.transformed.tags.iter()));
            }
            if all.iter().any(|u| u.tag == t.name) {
                users.push(vec![name(rules, Kind::Class, &c.name)]);
            }
        }
        for i in &rules.items {
            if i.tags.iter().any(|u| u.tag == t.name) {
                users.push(vec![name(rules, Kind::Item, &i.name)]);
            }
        }
        for s in &rules.statuses {
            if effects_mention(&s.effects, &is_this, Some(&t.name)) {
                users.push(vec![name(rules, Kind::Status, &s.name)]);
            }
        }
        for o in &rules.tags {
            if o.name != t.name && effects_mention(&o.effects, &is_this, Some(&t.name)) {
                users.push(vec![name(rules, Kind::Tag, &o.name)]);
            }
        }
        if !users.is_empty() {
            facts.push(("Used by".to_string(), join_capped(users)));
        }
        facts.extend(source(input, Kind::Tag, &t.name));
        p.blocks.push(Block::Facts(facts));
        match code_block(&t.effects, input) {
            Some(b) => {
                p.blocks.push(Block::Para(vec![text("Effects:")]));
                p.blocks.push(b);
            }
            None => p.blocks.push(Block::Para(vec![text("A marker: it has no effects of its own.")])),
        }
        entry(search, Kind::Tag, &t.name, t.doc.as_deref().map(summary).unwrap_or(signature));
    }
    p
}

fn applies(t: &oc_model::Tag) -> String {
    if t.applies_to.is_empty() {
        "anything".to_string()
    } else {
        t.applies_to.iter().map(print::word).collect::<Vec<_>>().join(", ")
    }
}

// ---------------------------------------------------------------- statuses

pub fn statuses(input: &Input, search: &mut Vec<Entry>) -> Page {
    let rules = input.rules;
    let mut p = Page::new("statuses", "Statuses");
    p.blocks.push(Block::Heading { level: 1, anchor: None, text: vec![text("Statuses")] });
    p.blocks.push(Block::Para(vec![text(format!(
        "{} status effects. A status is laid on a unit (by a weapon's tag, an action or a trigger) and holds until it clears or runs out.",
        rules.statuses.len()
    ))]));
    let scales = &rules.ruleset.scales;
    for s in &rules.statuses {
        p.blocks.push(heading(Kind::Status, &s.name, None));
        let mut facts = Vec::new();
        let ends: Vec<Line> = s
            .clears
            .iter()
            .map(|c| match &c.condition {
                Some(cond) => vec![code(format!("clears when {} at {}", print::expr(cond, scales), print::word(&c.event)))],
                None => vec![code(format!("clears at {}", print::word(&c.event)))],
            })
            .chain(s.lasts.map(|d| vec![code(format!("lasts {}", print::duration(d)))]))
            .collect();
        facts.push((
            "Ends".to_string(),
            if ends.is_empty() { vec![text("never on its own: only a cure removes it")] } else { join(ends) },
        ));
        let is_this = |e: &Expr| matches!(e, Expr::Const(Value::Name { ty: Type::Status, name }) if *name == s.name);
        let mut by: Vec<Line> = Vec::new();
        let names_it = |uses: &[TagUse]| {
            uses.iter().any(|u| u.args.iter().any(|a| matches!(a, Value::Name { ty: Type::Status, name } if *name == s.name)))
        };
        for i in &rules.items {
            if names_it(&i.tags) || effects_mention(&i.uses, &is_this, None) {
                by.push(vec![name(rules, Kind::Item, &i.name)]);
            }
        }
        for c in &rules.classes {
            if names_it(&c.tags) {
                by.push(vec![name(rules, Kind::Class, &c.name)]);
            }
        }
        for t in &rules.tags {
            if effects_mention(&t.effects, &is_this, None) {
                by.push(vec![name(rules, Kind::Tag, &t.name)]);
            }
        }
        if !by.is_empty() {
            facts.push(("Laid or named by".to_string(), join(by)));
        }
        facts.extend(source(input, Kind::Status, &s.name));
        p.blocks.push(Block::Facts(facts));
        if let Some(b) = code_block(&s.effects, input) {
            p.blocks.push(Block::Para(vec![text("Effects:")]));
            p.blocks.push(b);
        }
        let what = print::effects(&s.effects, scales).lines().next().unwrap_or("").to_string();
        entry(search, Kind::Status, &s.name, what);
    }
    p
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::page::Inline;

    fn shown(line: &Line) -> String {
        line.iter()
            .map(|i| match i {
                Inline::Text(s) | Inline::Code(s) | Inline::Strong(s) => s.clone(),
                Inline::Link { text, .. } => text.clone(),
            })
            .collect()
    }

    #[test]
    fn long_lists_show_their_first_names_and_how_many_more() {
        let list = |n: usize| (0..n).map(|i| vec![code(format!("W{i}"))]).collect::<Vec<Line>>();
        let forty = shown(&join_capped(list(MAX_LISTED)));
        assert!(forty.ends_with(&format!("W{}", MAX_LISTED - 1)), "{forty}");
        assert!(!forty.contains("more"));
        let more = shown(&join_capped(list(MAX_LISTED + 1113)));
        assert!(more.ends_with(&format!("W{} and 1113 more", MAX_LISTED - 1)), "{more}");
        assert!(!more.contains(&format!("W{MAX_LISTED}")));
    }
}
