//! Completion in `.oc` text: which block the cursor is in (from the brackets before it), which
//! keywords are valid there, and which names fit the keyword before the cursor (`tags` wants
//! tags, `wields` weapon types, `kit` items ...). Inside a scenario's string: the regions of its
//! map.

use oc_fmt::lex::{tokenize, Kind};

use crate::analysis::{Def, DefKind};

/// What is offered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Candidate {
    Keyword(&'static str),
    Name { name: String, kind: DefKind },
    Param { name: String, ty: String },
    Region { name: String, kind: String },
    Symbol { symbol: char, terrain: String },
}

const TOP: &[&str] = &[
    "import",
    "ruleset",
    "movement",
    "terrain",
    "weapon_type",
    "triangle",
    "tag",
    "status",
    "class",
    "weapon",
    "accessory",
    "consumable",
    "scenario",
    "army",
];
const RULESET: &[&str] = &[
    "doc",
    "scale",
    "stat",
    "base",
    "class_range",
    "inventory",
    "weight",
    "dice",
    "table",
    "combat",
    "resource",
    "turn",
    "order",
    "spend",
    "reaction",
];
const TERRAIN: &[&str] = &["doc", "symbol", "defense", "cost", "heal", "hp", "becomes", "opened_by", "impassable"];
const CLASS: &[&str] = &["doc", "ratings", "wields", "tags", "cost", "promoted", "kit", "normal", "transformed"];
const ITEM: &[&str] = &["doc", "type", "might", "weight", "range", "tags", "cost", "use"];
const EFFECT: &[&str] = &[
    "doc",
    "when",
    "on",
    "action",
    "grant",
    "heal",
    "damage",
    "inflict",
    "cure",
    "reactivate",
    "relocate",
    "open",
    "take_chest",
    "raze",
    "seize",
    "escape",
    "reveal",
    "transform",
    "restrict",
    "must_attack_weakest",
    "shift",
    "debuff",
    "ignore_item_tags",
    "attack",
    "has",
    "and",
    "or",
    "not",
    "if",
    "then",
    "else",
    "true",
    "false",
    "self",
];
/// An action's own entries; everything an effect offers follows them (its body is statements).
const ACTION: &[&str] = &["target", "requires", "within"];
const STATUS_END: &[&str] = &["clears", "when", "at", "lasts"];
const SCENARIO: &[&str] =
    &["doc", "map", "regions", "rounds", "then", "deploy", "first", "chest", "fog", "vision", "attacker", "defender"];
const SIDE: &[&str] = &[
    "doc",
    "zone",
    "war_chest",
    "units",
    "at_least",
    "at_most",
    "points",
    "each",
    "with",
    "class",
    "wielding",
    "ranged",
    "grant",
    "to",
    "allow",
    "ban",
    "classes",
    "items",
    "win",
    "seize",
    "rout",
    "all",
    "leader",
    "escape",
    "through",
    "defend",
    "for",
    "rounds",
    "survive",
    "raze",
    "in",
    "and",
    "or",
    "not",
];
const ARMY: &[&str] = &["doc", "unit"];
const UNIT: &[&str] = &["items", "tags"];

/// Where the cursor is: the item's keyword, the innermost block's keyword, the last word
/// before the cursor in that block, and whether it is inside a string.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Context {
    pub item: Option<String>,
    /// The word that opened each block, outermost first.
    pub blocks: Vec<String>,
    pub previous: Option<String>,
    pub previous_punct: Option<String>,
    pub in_string: bool,
    /// The keyword of the last item closed at the top level.
    pub last_item: Option<String>,
}

/// The context of `offset` in `text`.
pub fn context(text: &str, offset: usize) -> Context {
    let mut ctx = Context::default();
    let mut at = 0;
    let mut last_word: Option<&str> = None;
    // Whether no token but spaces came since the last line break (a top-level keyword there
    // starts a new item: a tag may have no body, so `}` does not always end one).
    let mut line_start = true;
    for t in tokenize(text) {
        let end = at + t.text.len();
        if end > offset || (end == offset && t.kind == Kind::Word) {
            ctx.in_string = t.kind == Kind::Str && at < offset;
            break;
        }
        at = end;
        let first_on_line = line_start;
        match t.kind {
            Kind::Newline => line_start = true,
            Kind::Space => {}
            _ => line_start = false,
        }
        match (t.kind, t.text) {
            (Kind::Word, w) => {
                if ctx.blocks.is_empty() && (ctx.previous.is_none() || (first_on_line && TOP.contains(&w))) {
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
            }
            (Kind::Punct, "}") => {
                ctx.blocks.pop();
                ctx.previous = None;
                ctx.previous_punct = None;
                if ctx.blocks.is_empty() {
                    ctx.last_item = ctx.item.take();
                }
            }
            (Kind::Punct, p) => ctx.previous_punct = Some(p.to_string()),
            _ => {}
        }
    }
    ctx
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
        ("terrain", 1, _) => TERRAIN,
        ("class", 1, _) => CLASS,
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

/// The kinds of names that fit after the previous word (all of them when none is preferred).
fn wanted(ctx: &Context) -> Option<&'static [DefKind]> {
    let inner = ctx.blocks.last().map(String::as_str);
    if ctx.previous_punct.as_deref() == Some(":") && ctx.item.as_deref() == Some("army") {
        return Some(&[DefKind::Class]);
    }
    if ctx.previous_punct.as_deref() == Some(":") && ctx.item.as_deref() == Some("tag") && ctx.blocks.is_empty() {
        return Some(&[DefKind::Scale, DefKind::Movement]);
    }
    Some(match ctx.previous.as_deref() {
        Some("tags" | "has" | "grant" | "with") => &[DefKind::Tag],
        Some("wields" | "type" | "wielding") => &[DefKind::WeaponType],
        Some("items" | "kit" | "chest") => &[DefKind::Item],
        Some("class" | "classes" | "from") if !ctx.blocks.is_empty() => &[DefKind::Class],
        Some("inflict" | "cure") => &[DefKind::Status],
        Some("becomes") => &[DefKind::Terrain],
        Some("for") if ctx.item.as_deref() == Some("army") => &[DefKind::Scenario],
        _ if inner == Some("kit") => &[DefKind::Item],
        _ if inner == Some("cost") && ctx.item.as_deref() == Some("terrain") => &[DefKind::Movement],
        _ if inner == Some("ratings") => &[DefKind::Stat],
        _ => return None,
    })
}

/// Whether a name is worth offering at all in a context (top level offers none).
fn names_here(ctx: &Context) -> bool {
    !ctx.blocks.is_empty() || ctx.previous_punct.is_some() || matches!(ctx.previous.as_deref(), Some("for" | "tags"))
}

/// What to offer at a context: keywords first, then fitting names (each once).
pub fn candidates(ctx: &Context, defs: &[Def], params: &[(String, String)]) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    if ctx.in_string {
        return out;
    }
    let wanted = wanted(ctx);
    if wanted.is_none() {
        out.extend(keywords(ctx).into_iter().map(Candidate::Keyword));
        out.extend(params.iter().map(|(name, ty)| Candidate::Param { name: name.clone(), ty: ty.clone() }));
    }
    if wanted.is_some() || names_here(ctx) {
        let mut seen = std::collections::HashSet::new();
        for d in defs {
            let fits = match wanted {
                Some(kinds) => kinds.contains(&d.kind),
                None => !matches!(d.kind, DefKind::Ruleset | DefKind::Army | DefKind::Table | DefKind::Dice),
            };
            if fits && seen.insert(d.name.clone()) {
                out.push(Candidate::Name { name: d.name.clone(), kind: d.kind });
            }
        }
    }
    out
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
            (c.item.as_deref(), c.blocks.clone(), c.previous.as_deref()),
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
        // Elsewhere the lists also offer words used inside an entry: each holds at least the
        // words its entries begin with.
        for (list, rule) in [
            (RULESET, "ruleset_entry"),
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
}
