//! Armies against their scenario: each army lowered, its units' classes and items checked, the
//! side's limits (points, counts, selectors) measured with the units that break them named.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use oc_diag::{Diagnostic, Span};
use oc_model as m;
use oc_syntax::ast;

use super::{side_of, unknown, Lowered};
use crate::codes::*;

/// Lowers and checks every army against its scenario.
pub(crate) fn check_armies(
    defs: &[ast::ArmyDef],
    rules: &m::Rules,
    scenarios: &[Lowered],
    diags: &mut Vec<Diagnostic>,
) -> Vec<m::Army> {
    let mut out = Vec::new();
    let mut seen: HashMap<String, Span> = HashMap::new();
    for def in defs {
        if let Some(first) = seen.get(def.name.value.as_str()) {
            diags.push(
                Diagnostic::error(DUPLICATE, def.name.span, format!("the army `{}` is defined twice", def.name.value))
                    .with_secondary(*first, "first defined here")
                    .with_help("rename one of them; army names are unique"),
            );
            continue;
        }
        seen.insert(def.name.value.to_string(), def.name.span);
        let side = side_of(&def.side.value);
        let army = m::Army {
            name: def.name.value.to_string(),
            title: def.title.clone(),
            scenario: def.scenario.value.to_string(),
            side,
            units: def
                .units
                .iter()
                .map(|u| m::ArmyUnit {
                    name: u.name.value.to_string(),
                    class: u.class.value.to_string(),
                    items: u.items.iter().map(|i| i.value.to_string()).collect(),
                    tags: u.tags.iter().map(|t| t.value.to_string()).collect(),
                    figures: u.figures.as_ref().map_or(1, |n| u32::try_from(n.value).unwrap_or(0)),
                    joins: u.joins.as_ref().map(|n| n.value.to_string()),
                })
                .collect(),
        };
        let Some(scenario) = scenarios.iter().find(|s| s.model.name == def.scenario.value) else {
            diags.push(unknown(
                UNKNOWN_SCENARIO,
                "scenario",
                &def.scenario,
                scenarios.iter().map(|s| s.model.name.as_str()).collect(),
            ));
            out.push(army);
            continue;
        };
        check_army(def, &army, scenario, rules, diags);
        out.push(army);
    }
    out
}

/// Whether a unit matches a composition selector.
pub fn selects(rules: &m::Rules, unit: &m::ArmyUnit, selector: &m::Selector) -> bool {
    let items = || unit.items.iter().filter_map(|i| rules.item(i));
    match selector {
        m::Selector::Any => true,
        m::Selector::Class(c) => unit.class == *c,
        m::Selector::WithTag(t) => {
            unit.tags.contains(t)
                || rules.class(&unit.class).is_some_and(|c| c.tags.iter().any(|u| u.tag == *t))
                || items().any(|i| i.tags.iter().any(|u| u.tag == *t))
        }
        m::Selector::Wielding(w) => items().any(|i| i.weapon_type.as_deref() == Some(w.as_str())),
        m::Selector::Ranged => items().any(m::Item::ranged),
    }
}

/// The gold an army costs: classes plus items.
/// Why a unit of `class` (called `who` in messages, if it has a name) may not carry `item`: a weapon type the
/// class does not wield (any of its forms), or an item exclusive to another class. The same
/// rules for armies and for `oc forecast` / `oc duel` loadouts: (code, message, help).
pub fn item_refusals(class: &m::Class, item: &m::Item, who: Option<&str>) -> Vec<(&'static str, String, String)> {
    let mut out = Vec::new();
    let mut wields: BTreeSet<&str> = class.wields.iter().map(|w| w.as_str()).collect();
    if let Some(forms) = &class.forms {
        wields.extend(forms.normal.wields.iter().map(|w| w.as_str()));
        wields.extend(forms.transformed.wields.iter().map(|w| w.as_str()));
    }
    if let Some(wt) = &item.weapon_type {
        if item.kind == m::ItemKind::Weapon && !wields.contains(wt.as_str()) {
            out.push((
                ARMY_WIELD,
                format!("{} cannot wield {} (`{}`)", oc_diag::article(&class.name), wt, item.name),
                format!("{} wields {}", class.name, wields.iter().copied().collect::<Vec<_>>().join(", ")),
            ));
        }
    }
    // An item tagged with a class (seed 000's Exclusive(Class): "Can only be used by the tagged
    // Class") belongs to that class only: the engine's rule too (`Engine::weapons_for`).
    for name in item.exclusive_to().filter(|n| **n != class.name) {
        out.push((
            ARMY_EXCLUSIVE,
            match who {
                Some(who) => format!("`{}` is exclusive to {name}; `{who}` is a {}", item.name, class.name),
                None => format!("`{}` is exclusive to {name}, not a {}", item.name, class.name),
            },
            format!("give it to a {name}"),
        ));
    }
    out
}

pub fn army_cost(rules: &m::Rules, army: &m::Army) -> i64 {
    army.units.iter().map(|u| unit_cost(rules, u)).fold(0i64, i64::saturating_add)
}

/// One unit's gold: its class plus what it carries, for each of its figures.
pub fn unit_cost(rules: &m::Rules, u: &m::ArmyUnit) -> i64 {
    let items = u.items.iter().filter_map(|i| rules.item(i)).map(|i| i.cost).fold(0i64, i64::saturating_add);
    // Every figure is bought with its kit ("buy their armies, figure-by-figure").
    rules.class(&u.class).map_or(0, |c| c.cost).saturating_add(items).saturating_mul(i64::from(u.figures))
}

/// The three most expensive units with their cost, for the over-budget help.
fn dearest(rules: &m::Rules, army: &m::Army) -> String {
    let mut costs: Vec<(i64, &str)> = army.units.iter().map(|u| (unit_cost(rules, u), u.name.as_str())).collect();
    costs.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(b.1)));
    costs.iter().take(3).map(|(c, n)| format!("{n} {c}")).collect::<Vec<_>>().join(", ")
}

fn check_army(def: &ast::ArmyDef, army: &m::Army, scenario: &Lowered, rules: &m::Rules, diags: &mut Vec<Diagnostic>) {
    let side = scenario.model.side(army.side);
    let side_ast = scenario.ast.sides.iter().find(|s| side_of(&s.side.value) == army.side);
    let n = army.units.len() as u32;
    // (A requirement whose bounds are the wrong way round is the scenario's mistake, said there:
    // no army can meet it.)
    if side.min_units <= side.max_units && (n < side.min_units || n > side.max_units) {
        let mut d = Diagnostic::error(
            ARMY_SIZE,
            def.name.span,
            format!("`{}` has {n} units; the {} brings {}..{}", army.name, army.side.word(), side.min_units, side.max_units),
        )
        .with_help(if n < side.min_units {
            format!("hire {} more unit{}", side.min_units - n, plural(u64::from(side.min_units - n)))
        } else {
            format!("dismiss {} unit{}", n - side.max_units, plural(u64::from(n - side.max_units)))
        });
        if let Some((lo, hi)) = side_ast.and_then(|s| s.units.first()) {
            d = d.with_secondary(lo.span.to(hi.span), "the scenario's requirement");
        }
        diags.push(d);
    }
    let cost = army_cost(rules, army);
    if cost > side.war_chest {
        let mut d = Diagnostic::error(
            ARMY_BUDGET,
            def.name.span,
            format!("`{}` costs {cost} gold; the war chest holds {}", army.name, side.war_chest),
        )
        .with_label(format!("{} gold over", cost.saturating_sub(side.war_chest)))
        .with_help(format!("hire cheaper classes or carry cheaper items; the dearest units: {}", dearest(rules, army)));
        if let Some(w) = side_ast.and_then(|s| s.war_chests.first()) {
            d = d.with_secondary(w.span, "the war chest");
        }
        diags.push(d);
    }
    let inventory = rules.ruleset.inventory as usize;
    let mut names: HashMap<&str, Span> = HashMap::new();
    let mut tag_spans: BTreeMap<&str, Vec<Span>> = BTreeMap::new();
    // Granted tags a unit's misspelt tag was meant to be: a limit counting units with one is a
    // follow-on of the misspelling, not said apart.
    let mut meant: Vec<&str> = Vec::new();
    for u in &def.units {
        if let Some(first) = names.get(u.name.value.as_str()) {
            diags.push(
                Diagnostic::error(ARMY_DUPLICATE_UNIT, u.name.span, format!("a second unit named `{}`", u.name.value))
                    .with_secondary(*first, "the first")
                    .with_help("rename one of them"),
            );
        }
        names.insert(&u.name.value, u.name.span);
        if let Some(host) = &u.joins {
            let target = def.units.iter().find(|v| v.name.value == host.value);
            let why = match target {
                None => Some(format!("`{}` joins `{}`, which is no unit of this army", u.name.value, host.value)),
                Some(v) if v.name.value == u.name.value => Some(format!("`{}` joins itself", u.name.value)),
                Some(v) if v.joins.is_some() => {
                    Some(format!("`{}` joins `{}`, which joins another unit itself", u.name.value, host.value))
                }
                Some(_) => None,
            };
            if let Some(why) = why {
                // A misspelt name: the unit of the army it was meant to be, where one may be joined.
                let joinable = def.units.iter().filter(|v| v.joins.is_none() && v.name.value != u.name.value);
                let meant = target
                    .is_none()
                    .then(|| oc_diag::did_you_mean(&host.value, joinable.map(|v| v.name.value.as_str())))
                    .flatten();
                let help = match meant {
                    Some(m) => format!("did you mean `{m}`?"),
                    None => "name another unit of the army that joins nobody".to_string(),
                };
                diags.push(Diagnostic::error(ARMY_JOINS, host.span, why).with_label("the unit joined").with_help(help));
            }
        }
        // Its items are named whatever its class: a misspelt one is said even beside a misspelt
        // class, not after the class is mended.
        for i in u.items.iter().filter(|i| rules.item(&i.value).is_none()) {
            diags.push(unknown(UNKNOWN_ITEM, "item", i, rules.items.iter().map(|i| i.name.as_str()).collect()));
        }
        let Some(class) = rules.class(&u.class.value) else {
            diags.push(unknown(UNKNOWN_CLASS, "class", &u.class, rules.classes.iter().map(|c| c.name.as_str()).collect()));
            continue;
        };
        let class_ok = (side.allowed_classes.is_empty() || side.allowed_classes.iter().any(|n| *n == class.name))
            && !side.banned_classes.iter().any(|n| *n == class.name);
        if !class_ok {
            diags.push(
                Diagnostic::error(
                    ARMY_NOT_ALLOWED,
                    u.class.span,
                    format!("the scenario does not allow the class `{}` for the {}", class.name, army.side.word()),
                )
                .with_help(if side.allowed_classes.is_empty() {
                    "it is banned: choose another class".to_string()
                } else {
                    format!("allowed: {}", side.allowed_classes.join(", "))
                }),
            );
        }
        if let Some(n) = u.figures.as_ref().filter(|n| !(1..=i64::from(m::MAX_FIGURES)).contains(&n.value)) {
            diags.push(
                Diagnostic::error(
                    ARMY_FIGURES,
                    n.span,
                    format!("`{}` has {} figures; a unit has 1 to {}", u.name.value, n.value, m::MAX_FIGURES),
                )
                .with_label("the unit's figures")
                .with_help(if n.value < 1 {
                    "a unit has at least one figure: write `figures 1` (or leave `figures` out for one)".to_string()
                } else {
                    format!("split a larger body into several units of at most {} figures", m::MAX_FIGURES)
                }),
            );
        }
        if u.items.len() > inventory {
            if let Some(extra) = u.items.get(inventory) {
                diags.push(
                    Diagnostic::error(
                        ARMY_INVENTORY,
                        extra.span,
                        format!("`{}` carries {} items; the inventory holds {inventory}", u.name.value, u.items.len()),
                    )
                    .with_help("leave items behind"),
                );
            }
        }
        for i in &u.items {
            // Unknown: said above.
            let Some(item) = rules.item(&i.value) else { continue };
            let item_ok = (side.allowed_items.is_empty() || side.allowed_items.iter().any(|n| *n == item.name))
                && !side.banned_items.iter().any(|n| *n == item.name);
            if !item_ok {
                diags.push(
                    Diagnostic::error(
                        ARMY_NOT_ALLOWED,
                        i.span,
                        format!("the scenario does not allow the item `{}` for the {}", item.name, army.side.word()),
                    )
                    .with_help("choose another item"),
                );
            }
            for (code, message, help) in item_refusals(class, item, Some(&u.name.value)) {
                diags.push(Diagnostic::error(code, i.span, message).with_help(help));
            }
        }
        for t in &u.tags {
            // A grant of a tag no rule defines (misspelt, said there) that was meant to be this
            // one: not said again here.
            let misgranted =
                side.grants.iter().any(|(g, _)| rules.tag(g).is_none() && oc_diag::did_you_mean(g, [t.value.as_str()]).is_some());
            match side.grants.iter().find(|(g, _)| *g == t.value) {
                None if misgranted => {}
                None => diags.push(
                    Diagnostic::error(
                        ARMY_TAG,
                        t.span,
                        format!("the scenario does not grant `{}` to the {}", t.value, army.side.word()),
                    )
                    .with_help(if side.grants.is_empty() {
                        "this side is granted no scenario tags".to_string()
                    } else {
                        let granted = side.grants.iter().map(|(g, n)| format!("{g} to {n}")).collect::<Vec<_>>().join(", ");
                        match oc_diag::did_you_mean(&t.value, side.grants.iter().map(|(g, _)| g.as_str())) {
                            Some(near) => {
                                meant.push(near);
                                format!("did you mean `{near}`? granted: {granted}")
                            }
                            None => format!("granted: {granted}"),
                        }
                    }),
                ),
                Some(_) => tag_spans.entry(&t.value).or_default().push(t.span),
            }
        }
    }
    for (tag, spans) in tag_spans {
        let allowed = side.grants.iter().find(|(g, _)| g == tag).map_or(0, |(_, n)| *n);
        let count = spans.len() as u32;
        // Point at the first unit over the grant.
        if let Some(span) = spans.get(allowed as usize).copied() {
            diags.push(
                Diagnostic::error(ARMY_GRANT, span, format!("{count} units carry `{tag}`; the scenario grants it to {allowed}"))
                    .with_help("take the tag off the extra units"),
            );
        }
    }
    for (i, limit) in side.limits.iter().enumerate() {
        // (An `at_least`: the misspelling took a unit out of the count. An `at_most` the units
        // spelt right break is said as ever.)
        if limit.at_least && matches!(&limit.selector, m::Selector::WithTag(t) if meant.contains(&t.as_str())) {
            continue;
        }
        if let Some(mut d) = limit_refusal(rules, army, side, limit, def.name.span) {
            if let Some(l) = side_ast.and_then(|s| s.limits.get(i)) {
                d = d.with_secondary(l.span, "the limit");
            }
            // Each unit that counts, at its name.
            for (u, unit_def) in army.units.iter().zip(&def.units) {
                if let Some(why) = counts_because(rules, u, &limit.selector) {
                    d = d.with_secondary(unit_def.name.span, format!("counts: {why}"));
                }
            }
            diags.push(d);
        }
    }
    // An objective its units can never take: the scenario may grant the tag a seize needs, but
    // no unit of this army carries it (nor has it from its class or items). A limit that asks
    // for the tag says so already.
    let limited = |tags: &BTreeSet<String>| {
        side.limits.iter().any(|l| l.at_least && matches!(&l.selector, m::Selector::WithTag(t) if tags.contains(t)))
    };
    if let Some((what, tags)) = side.win.as_ref().and_then(|c| untaken(rules, army, c)).filter(|(_, t)| !limited(t)) {
        let names: Vec<&str> = tags.iter().map(String::as_str).collect();
        let first = names.first().copied().unwrap_or("TAG");
        let granted = side.grants.iter().any(|(g, n)| *n > 0 && g == first);
        let help = if granted {
            format!("give a unit the tag the scenario grants: `tags {first}` in its braces")
        } else {
            format!("bring a unit whose class or items have {}", names.join(" or "))
        };
        diags.push(
            Diagnostic::warning(
                UNWINNABLE,
                def.name.span,
                format!("`{}` cannot win by {what}: none of its units has {}", army.name, names.join(" or ")),
            )
            .with_help(help),
        );
    }
}

/// Where every way `c` may be met needs a unit with a tag (seizing, escaping, razing) that no
/// unit of `army` has (its own tags, its class's, its items'): what it needs and the tags that
/// would do. `None` where some way may be met.
fn untaken(rules: &m::Rules, army: &m::Army, c: &m::Condition) -> Option<(String, BTreeSet<String>)> {
    let has = |tags: &BTreeSet<String>| {
        army.units.iter().any(|u| {
            u.tags.iter().any(|t| tags.contains(t))
                || rules.class(&u.class).is_some_and(|k| k.tags.iter().any(|t| tags.contains(t.tag.as_str())))
                || u.items.iter().any(|i| rules.item(i).is_some_and(|it| it.tags.iter().any(|t| tags.contains(t.tag.as_str()))))
        })
    };
    let needs = |verb: m::Verb, what: &'static str| {
        let tags = super::tags_enabling(rules, verb);
        (!tags.is_empty() && !has(&tags)).then(|| (what.to_string(), tags))
    };
    match c {
        m::Condition::Seize { .. } => needs(m::Verb::Seize, "seizing"),
        m::Condition::Escape { .. } => needs(m::Verb::Escape, "escaping"),
        m::Condition::Raze { .. } => needs(m::Verb::Raze, "razing"),
        m::Condition::And(a, b) => untaken(rules, army, a).or_else(|| untaken(rules, army, b)),
        m::Condition::Or(a, b) => {
            let (x, y) = (untaken(rules, army, a)?, untaken(rules, army, b)?);
            let what = if x.0 == y.0 { x.0 } else { format!("{} or {}", x.0, y.0) };
            Some((what, x.1.union(&y.1).cloned().collect()))
        }
        _ => None,
    }
}

/// The units a limit picks, by name with their class, weapon and (for points) cost: "Alda
/// (Longbow) 21, Brin (Longbow) 21 and 9 more".
fn units_named(rules: &m::Rules, units: &[&m::ArmyUnit], points: bool) -> String {
    const SHOWN: usize = 4;
    let one = |u: &&m::ArmyUnit| {
        let weapon = u.items.iter().find(|i| rules.item(i).is_some_and(|it| it.kind == m::ItemKind::Weapon));
        let what = weapon.map_or(u.class.clone(), |w| format!("{}, {w}", u.class));
        if points {
            format!("{} ({what}) {}", u.name, unit_cost(rules, u))
        } else {
            format!("{} ({what})", u.name)
        }
    };
    let mut text = units.iter().take(SHOWN).map(one).collect::<Vec<_>>().join(", ");
    if units.len() > SHOWN {
        text.push_str(&format!(" and {} more", units.len() - SHOWN));
    }
    text
}

/// Why `army` breaks `limit`, if it does: the message names the units that count.
pub fn limit_refusal(rules: &m::Rules, army: &m::Army, side: &m::SideRules, limit: &m::Limit, span: Span) -> Option<Diagnostic> {
    let picked: Vec<&m::ArmyUnit> = army.units.iter().filter(|u| selects(rules, u, &limit.selector)).collect();
    let rule = if limit.at_least { "at least" } else { "at most" };
    let fraction = format!("{}/{}", limit.numerator, limit.denominator);
    match limit.measure {
        m::Measure::Units => {
            let (matching, n) = (picked.len() as u64, army.units.len() as u64);
            if limit.holds(matching, n) {
                return None;
            }
            let what = if limit.denominator > 1 { format!("{fraction} of the army") } else { limit.numerator.to_string() };
            let mut d = Diagnostic::error(
                ARMY_LIMIT,
                span,
                format!(
                    "`{}` has {matching} of {n} units {}; the scenario wants {rule} {what}",
                    army.name,
                    selector_text(&limit.selector)
                ),
            )
            .with_help(limit_help(rules, army, side, limit, (matching, n)));
            if !picked.is_empty() {
                d = d.with_label(format!("{} count", units_named(rules, &picked, false)));
            }
            Some(d)
        }
        m::Measure::Points => {
            let matching = picked.iter().map(|u| unit_cost(rules, u).max(0) as u64).sum::<u64>();
            let total = army_cost(rules, army).max(0) as u64;
            if limit.holds(matching, total) {
                return None;
            }
            let what = if limit.denominator > 1 {
                format!("{fraction} of its {total} points")
            } else {
                format!("{} points", limit.numerator)
            };
            let mut d = Diagnostic::error(
                ARMY_LIMIT,
                span,
                format!(
                    "`{}` spends {matching} points on units {}; the scenario wants {rule} {what}",
                    army.name,
                    selector_text(&limit.selector)
                ),
            )
            .with_help(if limit.at_least {
                "spend more of the army's points on those units"
            } else {
                "spend fewer of the army's points on those units"
            });
            if !picked.is_empty() {
                d = d.with_label(format!("{} count", units_named(rules, &picked, true)));
            }
            Some(d)
        }
        m::Measure::EachPoints => {
            let chest = side.war_chest.max(0) as u64;
            let breaking: Vec<&m::ArmyUnit> =
                picked.into_iter().filter(|u| !limit.holds(unit_cost(rules, u).max(0) as u64, chest)).collect();
            if breaking.is_empty() {
                return None;
            }
            let what = if limit.denominator > 1 {
                format!("{fraction} of the {chest} points available")
            } else {
                format!("{} points", limit.numerator)
            };
            Some(
                Diagnostic::error(
                    ARMY_LIMIT,
                    span,
                    format!("`{}` has units worth {} {what}", army.name, if limit.at_least { "less than" } else { "more than" }),
                )
                .with_label(format!("{} break the limit", units_named(rules, &breaking, true)))
                .with_help("each unit must keep within the limit: dismiss it or carry cheaper items"),
            )
        }
    }
}

/// A limit as players read it: "at most 1/3 of the army's points with a ranged weapon".
pub fn limit_text(l: &m::Limit) -> String {
    let rule = if l.at_least { "at least" } else { "at most" };
    let fraction = l.denominator > 1;
    match l.measure {
        m::Measure::Units if fraction => {
            format!("{rule} {}/{} of the army {}", l.numerator, l.denominator, selector_text(&l.selector))
        }
        m::Measure::Units => format!("{rule} {} {}", l.numerator, selector_text(&l.selector)),
        m::Measure::Points if fraction => {
            format!("{rule} {}/{} of the army's points on units {}", l.numerator, l.denominator, selector_text(&l.selector))
        }
        m::Measure::Points => format!("{rule} {} points on units {}", l.numerator, selector_text(&l.selector)),
        m::Measure::EachPoints if fraction => {
            format!("each unit worth {rule} {}/{} of the points available", l.numerator, l.denominator)
        }
        m::Measure::EachPoints => format!("each unit worth {rule} {} points", l.numerator),
    }
}

/// Why a unit counts for a selector ("Hand Axe reaches 2", "granted Leader"), or `None`.
fn counts_because(rules: &m::Rules, unit: &m::ArmyUnit, selector: &m::Selector) -> Option<String> {
    if !selects(rules, unit, selector) {
        return None;
    }
    let items = || unit.items.iter().filter_map(|i| rules.item(i));
    Some(match selector {
        m::Selector::Any => "every unit".to_string(),
        m::Selector::Class(c) => oc_diag::article(c),
        m::Selector::WithTag(t) => {
            if unit.tags.contains(t) {
                format!("granted {t}")
            } else if rules.class(&unit.class).is_some_and(|c| c.tags.iter().any(|u| u.tag == *t)) {
                format!("{t} from its class {}", unit.class)
            } else {
                let item = items().find(|i| i.tags.iter().any(|u| u.tag == *t)).map_or("an item", |i| i.name.as_str());
                format!("{t} from {item}")
            }
        }
        m::Selector::Wielding(w) => {
            let item = items().find(|i| i.weapon_type.as_deref() == Some(w.as_str())).map_or("a weapon", |i| i.name.as_str());
            format!("{item} is {w}")
        }
        m::Selector::Ranged => {
            let item = items().find(|i| i.ranged());
            item.map_or("a ranged weapon".to_string(), |i| format!("{} reaches {}", i.name, i.reach()))
        }
    })
}

/// "s" after a count other than one.
fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

/// The help of a broken composition limit: the units that count, and what would make it hold.
fn limit_help(rules: &m::Rules, army: &m::Army, side: &m::SideRules, limit: &m::Limit, (matching, total): (u64, u64)) -> String {
    let counted: Vec<String> = army
        .units
        .iter()
        .filter_map(|u| counts_because(rules, u, &limit.selector).map(|why| format!("{} ({why})", u.name)))
        .collect();
    let who = if counted.is_empty() {
        format!("no unit counts {}", selector_text(&limit.selector))
    } else {
        format!("{} count {}", counted.join(", "), selector_text(&limit.selector))
    };
    // How many would hold the limit: at most floor(num * total / den), at least ceil(...).
    let (num, den) = (u64::from(limit.numerator), u64::from(limit.denominator.max(1)));
    let scale = if limit.denominator > 1 { total } else { 1 };
    // A fraction of a larger army: the units that do not count it needs beside those that do
    // (`matching` at most num/den of it), where the scenario lets the army grow so far.
    let larger = (limit.denominator > 1 && num > 0).then(|| (matching * den).div_ceil(num));
    let more = match larger {
        Some(needed) if needed > total && needed <= u64::from(side.max_units) => {
            let k = needed - total;
            format!(
                ", or bring {k} more unit{} that do{} not count ({matching} of {needed} may)",
                plural(k),
                if k == 1 { "es" } else { "" }
            )
        }
        _ => String::new(),
    };
    let fix = if limit.at_least {
        let need = (num * scale).div_ceil(den);
        format!("{need} of {total} must: {} more", need.saturating_sub(matching))
    } else {
        let most = num * scale / den;
        format!("at most {most} of {total} may: change what {} of them carry{more}", matching.saturating_sub(most))
    };
    format!("{who}; {fix}")
}

pub fn selector_text(s: &m::Selector) -> String {
    match s {
        m::Selector::Any => "each".to_string(),
        m::Selector::WithTag(t) => format!("with {t}"),
        m::Selector::Class(c) => format!("of class {c}"),
        m::Selector::Wielding(w) => format!("carrying {w}"),
        m::Selector::Ranged => "with a ranged weapon".to_string(),
    }
}
