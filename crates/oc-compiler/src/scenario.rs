//! Scenarios and armies (seed 000, "Setting a Map and Scenario" and "Buying an Army"): lowered
//! into the model after the rules are checked, then checked against the scenario's map (read
//! through the same `Host` as sources) and the armies against their scenario.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use oc_diag::{article, did_you_mean, Diagnostic, FileId, Span, Spanned};
use oc_model as m;
use oc_syntax::ast;

use crate::codes::*;

mod armies;
mod objectives;
pub use armies::*;
pub(crate) use objectives::check_rout_targets;
pub use objectives::tags_enabling;
use objectives::{cannot_win, survives_to, unmet, Unmet};

/// A scenario as lowered, with the spans later checks point at.
pub(crate) struct Lowered {
    pub model: m::Scenario,
    pub ast: ast::ScenarioDef,
}

fn unknown(code: &'static str, what: &str, name: &ast::Ident, candidates: Vec<&str>) -> Diagnostic {
    let help = match did_you_mean(&name.value, candidates.iter().copied()) {
        Some(s) => format!("did you mean `{s}`?"),
        None => format!("define the {what} or import the file that defines it"),
    };
    Diagnostic::error(code, name.span, format!("unknown {what} `{}`", name.value)).with_help(help)
}

fn one<'a, T>(
    values: &'a [T],
    span_of: impl Fn(&T) -> Span,
    field: &str,
    owner: &str,
    at: Span,
    diags: &mut Vec<Diagnostic>,
) -> Option<&'a T> {
    if let Some(second) = values.get(1) {
        diags.push(
            Diagnostic::error(DUPLICATE_FIELD, span_of(second), format!("`{field}` is given twice in {owner}"))
                .with_secondary(values.first().map_or(at, &span_of), "first given here")
                .with_help(format!("keep one `{field}`")),
        );
    }
    let first = values.first();
    if first.is_none() {
        diags.push(
            Diagnostic::error(MISSING_FIELD, at, format!("{owner} has no `{field}`"))
                .with_help(format!("add `{field} ...` (see `oc explain oc::field::missing`)")),
        );
    }
    first
}

fn count(n: &Spanned<i64>, what: &str, diags: &mut Vec<Diagnostic>) -> u32 {
    match u32::try_from(n.value) {
        Ok(v) => v,
        Err(_) => {
            diags.push(
                Diagnostic::error(NUMBER_RANGE, n.span, format!("{} is not a valid {what}", n.value))
                    .with_help(format!("a {what} is a whole number from 0 up")),
            );
            0
        }
    }
}

fn side_of(word: &str) -> m::SideId {
    if word == "defender" {
        m::SideId::Defender
    } else {
        m::SideId::Attacker
    }
}

/// Lowers every scenario; names are resolved against `rules`.
pub(crate) fn lower_scenarios(defs: &[ast::ScenarioDef], rules: &m::Rules, diags: &mut Vec<Diagnostic>) -> Vec<Lowered> {
    let mut out: Vec<Lowered> = Vec::new();
    let mut seen: HashMap<String, Span> = HashMap::new();
    for def in defs {
        if let Some(first) = seen.get(def.name.value.as_str()) {
            diags.push(
                Diagnostic::error(DUPLICATE, def.name.span, format!("the scenario `{}` is defined twice", def.name.value))
                    .with_secondary(*first, "first defined here")
                    .with_help("rename one of them; scenario names are unique"),
            );
            continue;
        }
        seen.insert(def.name.value.to_string(), def.name.span);
        let owner = format!("the scenario `{}`", def.name.value);
        let map =
            one(&def.maps, |m| m.span, "map", &owner, def.name.span, diags).map(|m| m.value.to_string()).unwrap_or_default();
        let rounds = def.rounds.first();
        if let Some((second, _)) = def.rounds.get(1) {
            diags.push(
                Diagnostic::error(DUPLICATE_FIELD, second.span, format!("`rounds` is given twice in {owner}"))
                    .with_help("keep one time limit"),
            );
        }
        let on_time_limit = match rounds.and_then(|(_, then)| then.as_ref()).map(|t| t.value.as_str()) {
            Some("attacker") => m::Outcome::Win(m::SideId::Attacker),
            Some("defender") => m::Outcome::Win(m::SideId::Defender),
            _ => m::Outcome::Draw,
        };
        let deploy_first = def.deploy_first.first().map_or(m::SideId::Defender, |s| side_of(&s.value));
        let mut sides: BTreeMap<m::SideId, m::SideRules> = BTreeMap::new();
        let mut side_spans: BTreeMap<m::SideId, Span> = BTreeMap::new();
        for side in &def.sides {
            let id = side_of(&side.side.value);
            if let Some(first) = side_spans.get(&id) {
                diags.push(
                    Diagnostic::error(SCENARIO_SIDES, side.side.span, format!("the {} is defined twice in {owner}", id.word()))
                        .with_secondary(*first, "first defined here")
                        .with_help("merge the two blocks into one"),
                );
                continue;
            }
            side_spans.insert(id, side.side.span);
            sides.insert(id, lower_side(side, id, rules, diags));
        }
        for id in [m::SideId::Attacker, m::SideId::Defender] {
            if !sides.contains_key(&id) {
                diags.push(
                    Diagnostic::error(SCENARIO_SIDES, def.name.span, format!("{owner} has no {} block", id.word()))
                        .with_help(format!("add `{} {{ zone \"...\" war_chest N units MIN..MAX win ... }}`", id.word())),
                );
            }
        }
        let (Some(attacker), Some(defender)) = (sides.remove(&m::SideId::Attacker), sides.remove(&m::SideId::Defender)) else {
            continue;
        };
        let fog = crate::fog::lower_fog(def, &owner, diags);
        let advanced = crate::courage::lower_advanced(def, rules, diags);
        crate::courage::check_general(def, &advanced, rules, [&attacker, &defender], diags);
        let (home_edges, placement_units) = crate::deploy::lower_deploy(def, &owner, rules, diags);
        let mut chests = Vec::new();
        for c in &def.chests {
            if rules.item(&c.item.value).is_none() {
                diags.push(unknown(UNKNOWN_ITEM, "item", &c.item, rules.items.iter().map(|i| i.name.as_str()).collect()));
            }
            chests.push(((c.at.0.value, c.at.1.value), c.item.value.to_string()));
        }
        out.push(Lowered {
            model: m::Scenario {
                name: def.name.value.to_string(),
                title: def.title.clone(),
                doc: def.doc.clone(),
                map,
                regions: def.regions.iter().map(|r| r.value.clone()).collect(),
                rounds: rounds.map(|(n, _)| match count(n, "number of rounds", diags) {
                    too_long if too_long > m::MAX_ROUNDS => {
                        diags.push(
                            Diagnostic::error(
                                NUMBER_RANGE,
                                n.span,
                                format!("a time limit of {too_long} rounds is longer than a game is played (at most {})", m::MAX_ROUNDS),
                            )
                            .with_help("lower `rounds`; a scenario without `rounds` has no time limit (its games are called a draw after 40 rounds)"),
                        );
                        m::MAX_ROUNDS
                    }
                    r => r,
                }),
                on_time_limit,
                deploy_first,
                chests,
                fog,
                advanced,
                home_edges,
                placement_units,
                attacker,
                defender,
            },
            ast: def.clone(),
        });
    }
    out
}

fn lower_side(side: &ast::SideDef, id: m::SideId, rules: &m::Rules, diags: &mut Vec<Diagnostic>) -> m::SideRules {
    let owner = format!("the {} block", id.word());
    let zone =
        one(&side.zones, |z| z.span, "zone", &owner, side.side.span, diags).map(|z| z.value.to_string()).unwrap_or_default();
    let war_chest = one(&side.war_chests, |w| w.span, "war_chest", &owner, side.side.span, diags).map_or(0, |w| {
        if w.value < 0 {
            diags.push(
                Diagnostic::error(NUMBER_RANGE, w.span, "a war chest cannot be negative")
                    .with_help("give the gold each side may spend, 0 or more"),
            );
        }
        w.value
    });
    let (min_units, max_units) =
        one(&side.units, |(lo, _)| lo.span, "units", &owner, side.side.span, diags).map_or((1, 1), |(lo, hi)| {
            let (l, h) = (count(lo, "number of units", diags), count(hi, "number of units", diags));
            if l > h || h == 0 {
                diags.push(
                    Diagnostic::error(NUMBER_RANGE, lo.span.to(hi.span), format!("`units {l}..{h}` allows no army"))
                        .with_help("write `units MIN..MAX` with 1 <= MIN <= MAX"),
                );
            }
            (l, h)
        });
    let class_names = || rules.classes.iter().map(|c| c.name.as_str()).collect::<Vec<_>>();
    let item_names = || rules.items.iter().map(|i| i.name.as_str()).collect::<Vec<_>>();
    let tag_names = || rules.tags.iter().map(|t| t.name.as_str()).collect::<Vec<_>>();
    let mut limits = Vec::new();
    for l in &side.limits {
        let selector = match &l.selector {
            ast::Selector::Each(_) => m::Selector::Any,
            ast::Selector::With(t) => {
                if rules.tag(&t.value).is_none() {
                    diags.push(unknown(UNKNOWN_TAG, "tag", t, tag_names()));
                }
                m::Selector::WithTag(t.value.to_string())
            }
            ast::Selector::Class(c) => {
                if rules.class(&c.value).is_none() {
                    diags.push(unknown(UNKNOWN_CLASS, "class", c, class_names()));
                }
                m::Selector::Class(c.value.to_string())
            }
            ast::Selector::Wielding(w) => {
                if !rules.weapon_types.iter().any(|t| t.name == w.value) {
                    diags.push(unknown(
                        UNKNOWN_WEAPON_TYPE,
                        "weapon type",
                        w,
                        rules.weapon_types.iter().map(|t| t.name.as_str()).collect(),
                    ));
                }
                m::Selector::Wielding(w.value.to_string())
            }
            ast::Selector::Ranged(_) => m::Selector::Ranged,
        };
        let denominator = match &l.den {
            Some(d) if d.value < 1 => {
                diags.push(
                    Diagnostic::error(NUMBER_RANGE, d.span, "a fraction's denominator is at least 1")
                        .with_help("write a fraction such as `1/3`"),
                );
                1
            }
            Some(d) => count(d, "denominator", diags),
            None => 1,
        };
        // A fraction of the army above 1: `at_most 4/3` limits nothing, `at_least 4/3` cannot be met.
        if let Some(d) = l.den.as_ref().filter(|d| d.value >= 1 && l.num.value > d.value) {
            let (what, means) = if l.at_least { ("at_least", "no army can meet it") } else { ("at_most", "it limits nothing") };
            diags.push(
                Diagnostic::error(
                    NUMBER_RANGE,
                    l.num.span.to(d.span),
                    format!("{what} {}/{} of the army: {means}", l.num.value, d.value),
                )
                .with_label("a fraction of the army is at most 1")
                .with_help(format!("write a fraction of at most 1, such as `{}/{}`", d.value, l.num.value)),
            );
        }
        let measure = match (&l.selector, l.points) {
            (ast::Selector::Each(_), _) => m::Measure::EachPoints,
            (_, true) => m::Measure::Points,
            (_, false) => m::Measure::Units,
        };
        limits.push(m::Limit { at_least: l.at_least, numerator: count(&l.num, "count", diags), denominator, selector, measure });
    }
    let mut grants = Vec::new();
    for (tag, n) in &side.grants {
        if rules.tag(&tag.value).is_none() {
            diags.push(unknown(UNKNOWN_TAG, "tag", tag, tag_names()));
        }
        grants.push((tag.value.to_string(), count(n, "number of units", diags)));
    }
    let mut names = |list: &[ast::Ident], is_class: bool| -> Vec<String> {
        for n in list {
            let known = if is_class { rules.class(&n.value).is_some() } else { rules.item(&n.value).is_some() };
            if !known {
                diags.push(if is_class {
                    unknown(UNKNOWN_CLASS, "class", n, class_names())
                } else {
                    unknown(UNKNOWN_ITEM, "item", n, item_names())
                });
            }
        }
        list.iter().map(|n| n.value.to_string()).collect()
    };
    let allowed_classes = names(&side.allow_classes, true);
    let allowed_items = names(&side.allow_items, false);
    let banned_classes = names(&side.ban_classes, true);
    let banned_items = names(&side.ban_items, false);
    if let Some(second) = side.wins.get(1) {
        diags.push(
            Diagnostic::error(DUPLICATE_FIELD, second.span(), format!("`win` is given twice in {owner}"))
                .with_help("combine the conditions with `and` or `or` in one `win`"),
        );
    }
    let win = side.wins.first().map(|c| condition(c, diags));
    m::SideRules {
        side: id,
        doc: side.doc.clone(),
        zone,
        war_chest,
        min_units,
        max_units,
        limits,
        grants,
        allowed_classes,
        allowed_items,
        banned_classes,
        banned_items,
        win,
    }
}

fn condition(c: &ast::Cond, diags: &mut Vec<Diagnostic>) -> m::Condition {
    let mut n = |v: &Spanned<i64>| count(v, "count", diags);
    match c {
        ast::Cond::Seize(r) => m::Condition::Seize { region: r.value.clone() },
        ast::Cond::RoutAll(_) => m::Condition::RoutAll,
        ast::Cond::RoutLeader(_) => m::Condition::RoutLeader,
        ast::Cond::RoutCount(k) => m::Condition::RoutCount { count: n(k) },
        ast::Cond::RoutUnit(u) => m::Condition::RoutUnit { unit: u.value.clone() },
        ast::Cond::Escape(k, r) => m::Condition::Escape { count: n(k), region: r.value.clone() },
        ast::Cond::Defend(r, k) => m::Condition::Defend { region: r.value.clone(), rounds: n(k) },
        ast::Cond::Survive(k) => m::Condition::Survive { rounds: n(k) },
        ast::Cond::Raze(k, r) => m::Condition::Raze { count: n(k), region: r.value.clone() },
        ast::Cond::And(a, b) => m::Condition::And(Box::new(condition(a, diags)), Box::new(condition(b, diags))),
        ast::Cond::Or(a, b) => m::Condition::Or(Box::new(condition(a, diags)), Box::new(condition(b, diags))),
        ast::Cond::Not(a, _) => m::Condition::Not(Box::new(condition(a, diags))),
    }
}

/// Every region name a condition uses, with its span.
fn cond_regions(c: &ast::Cond, out: &mut Vec<(Spanned<String>, Option<&'static str>)>) {
    match c {
        ast::Cond::Seize(r) => out.push((r.clone(), Some("seize"))),
        ast::Cond::Escape(_, r) => out.push((r.clone(), Some("escape"))),
        ast::Cond::Defend(r, _) => out.push((r.clone(), Some("defend"))),
        ast::Cond::Raze(_, r) => out.push((r.clone(), Some("raze"))),
        ast::Cond::And(a, b) | ast::Cond::Or(a, b) => {
            cond_regions(a, out);
            cond_regions(b, out);
        }
        ast::Cond::Not(a, _) => cond_regions(a, out),
        _ => {}
    }
}

/// Checks each scenario against its map: the regions it needs, its zones, and whether each
/// side can win. `map_of` gives the map text read through the host (or why it could not be).
pub(crate) fn check_maps(
    lowered: &mut [Lowered],
    rules: &m::Rules,
    importer_of: impl Fn(FileId) -> String,
    mut map_of: impl FnMut(&str) -> Result<(FileId, String), crate::ReadError>,
    diags: &mut Vec<Diagnostic>,
) {
    for l in lowered.iter_mut() {
        let Some(map_span) = l.ast.maps.first().map(|m| m.span) else { continue };
        let importer = importer_of(l.ast.span.file);
        let path = match crate::paths::resolve(&importer, &l.model.map) {
            Ok(p) => p,
            Err(reason) => {
                diags.push(
                    Diagnostic::error(SCENARIO_MAP, map_span, format!("the map `{}` is outside the project", l.model.map))
                        .with_label(reason.to_string())
                        .with_help("map paths are relative to the scenario's file and stay inside the project"),
                );
                continue;
            }
        };
        // From here on the model holds the map's project path.
        l.model.map = path.clone();
        let s = &l.model;
        let (id, text) = match map_of(&path) {
            Ok(found) => found,
            Err(reason) => {
                diags.push(
                    Diagnostic::error(SCENARIO_MAP, map_span, format!("cannot read the map `{}`", s.map))
                        .with_label(format!("{path}: {reason}"))
                        .with_help("map paths are relative to the scenario's file; maps are `*.map.toml` files"),
                );
                continue;
            }
        };
        let (map, _) = oc_atlas::parse(id, &text);
        let Some(mut map) = map else {
            diags.push(
                Diagnostic::error(SCENARIO_MAP, map_span, format!("the map `{}` is not a valid map definition", s.map))
                    .with_help("`oc check` on the map shows what is wrong with it"),
            );
            continue;
        };
        map.resolve(rules);
        // Map requirements: listed regions, the zones, and regions of the conditions.
        let mut needed: Vec<(Spanned<String>, Option<&'static str>)> = l.ast.regions.iter().map(|r| (r.clone(), None)).collect();
        for side in &l.ast.sides {
            needed.extend(side.zones.iter().map(|z| (z.clone(), Some("deployment"))));
            for w in &side.wins {
                cond_regions(w, &mut needed);
            }
        }
        let names: Vec<&str> = map.regions.iter().map(|r| r.name.as_str()).collect();
        for (name, kind) in &needed {
            match map.region(&name.value) {
                None => {
                    let help = match did_you_mean(&name.value, names.iter().copied()) {
                        Some(close) => {
                            format!("did you mean `{close}`? or add a `[[regions]]` entry named `{}` to the map", name.value)
                        }
                        None => format!(
                            "the map's regions are: {}; add a `[[regions]]` entry named `{}`",
                            names.join(", "),
                            name.value
                        ),
                    };
                    diags.push(
                        Diagnostic::error(
                            MISSING_REGION,
                            name.span,
                            format!("the map `{}` has no region `{}`", map.name, name.value),
                        )
                        .with_secondary(map.name_span, "the map is defined here")
                        .with_help(help),
                    );
                }
                Some(region) => {
                    if let Some(k) = kind {
                        let actual = region.kind.word();
                        if *k != "deployment" && actual != *k {
                            diags.push(
                                Diagnostic::warning(
                                    REGION_KIND,
                                    name.span,
                                    format!(
                                        "`{}` is {} region on the map, not {} region",
                                        name.value,
                                        article(actual),
                                        article(k)
                                    ),
                                )
                                .with_secondary(region.name_span, "the region is defined here")
                                .with_help(format!("set `kind = \"{k}\"` on the map's region, or name a {k} region")),
                            );
                        }
                    }
                }
            }
        }
        // How the rules' units move where no unit is named (`Rules::reference_mover`); every
        // tile counts as open for rules without movement types.
        let reference = oc_atlas::path::reference(&map, rules);
        let points = reference.as_ref().map_or(oc_atlas::path::UNBOUNDED, |(_, _, p)| *p);
        let foot: Vec<Option<u32>> = match &reference {
            Some((_, costs, _)) => costs.clone(),
            None => vec![Some(1); map.tiles().count()],
        };
        for c in &l.ast.chests {
            let t = oc_atlas::Tile { x: c.at.0.value, y: c.at.1.value };
            let standable = map.index(t).and_then(|i| foot.get(i).copied().flatten()).is_some();
            if !standable {
                let why = if map.in_bounds(t) {
                    format!("{} is not a tile a unit can stand on", map.terrain(t).unwrap_or("it"))
                } else {
                    format!("the map is {} by {}", map.width, map.height)
                };
                diags.push(
                    Diagnostic::error(
                        SCENARIO_CHEST,
                        c.at.0.span.to(c.at.1.span),
                        format!("the chest at [{}, {}] cannot be reached", t.x, t.y),
                    )
                    .with_label(why)
                    .with_secondary(map.name_span, "the map is defined here")
                    .with_help(format!(
                        "put the chest on a tile of the map that {} units can enter",
                        reference.as_ref().map_or("the", |(m, ..)| m.movement_type.as_str())
                    )),
                );
            }
        }
        for (side_ast, rules_side) in l.ast.sides.iter().filter_map(|a| {
            let id = side_of(&a.side.value);
            Some((a, s.side(id))).filter(|(a, r)| r.side == side_of(&a.side.value))
        }) {
            let id = rules_side.side;
            let Some(zone_span) = side_ast.zones.first().map(|z| z.span) else { continue };
            let Some(zone) = map.region(&rules_side.zone) else { continue };
            let wanted = match id {
                m::SideId::Attacker => oc_atlas::Side::Attacker,
                m::SideId::Defender => oc_atlas::Side::Defender,
            };
            let misnamed = zone.kind != oc_atlas::RegionKind::Deployment || zone.side != Some(wanted);
            if misnamed {
                diags.push(
                    Diagnostic::error(
                        ZONE_KIND,
                        zone_span,
                        format!("`{}` is not the {}'s deployment zone on the map", zone.name, id.word()),
                    )
                    .with_secondary(
                        zone.name_span,
                        format!(
                            "a {} region{}",
                            zone.kind.word(),
                            zone.side.map_or(String::new(), |s| format!(
                                " of the {}",
                                if s == oc_atlas::Side::Attacker { "attacker" } else { "defender" }
                            ))
                        ),
                    )
                    .with_help(format!("name a region with kind = \"deployment\" and side = \"{}\"", id.word())),
                );
            }
            // A zone off the map is the map's error (`oc check` reports it there); its capacity
            // and what can be reached from it follow once it is fixed.
            if map.region_off_map(zone) {
                continue;
            }
            let tiles: BTreeSet<oc_atlas::Tile> = zone.tiles.iter().map(|(t, _)| *t).collect();
            let room = tiles.iter().filter(|t| map.index(**t).and_then(|i| foot.get(i).copied().flatten()).is_some()).count();
            // With `deploy edges` either side may deploy in either zone.
            let swapped = s.home_edges.is_some();
            let need = if swapped { s.attacker.max_units.max(s.defender.max_units) } else { rules_side.max_units };
            // (A zone that is not the side's deployment zone is said above: its room follows
            // once the zone named is the right one.)
            if (room as u64) < u64::from(need) && !misnamed {
                let units_span = side_ast.units.first().map_or(zone_span, |(lo, hi)| lo.span.to(hi.span));
                let whose = if swapped { " (with `deploy edges` either side may deploy here)" } else { "" };
                let tiles = if room == 1 { "tile" } else { "tiles" };
                // Lowering the maximum below the least the side brings is no fix.
                let least = if swapped { s.attacker.min_units.max(s.defender.min_units) } else { rules_side.min_units };
                let help = if (room as u64) < u64::from(least) {
                    format!("enlarge the zone on the map to {need} passable tiles (the side brings at least {least} units)")
                } else {
                    format!(
                        "lower the maximum{} to {room}, or enlarge the zone on the map",
                        if swapped { "s of both sides" } else { "" }
                    )
                };
                diags.push(
                    Diagnostic::error(
                        ZONE_CAPACITY,
                        units_span,
                        format!("up to {need} units, but `{}` has {room} passable {tiles}{whose}", zone.name),
                    )
                    .with_secondary(zone.name_span, "the zone is defined here")
                    .with_help(help),
                );
            }
            // Can the side win?
            let sources: Vec<oc_atlas::Tile> = tiles.iter().copied().collect();
            let reach = oc_atlas::path::rounds(&map, &foot, &sources, points);
            let wins_on_time = s.on_time_limit == m::Outcome::Win(id) && s.rounds.is_some();
            let problem = match &rules_side.win {
                None if !wins_on_time => Some(unmet(
                    format!(
                        "the {} has no `win` and {}",
                        id.word(),
                        if s.rounds.is_none() { "the scenario has no time limit" } else { "does not win when time runs out" }
                    ),
                    format!(
                        "give the {} a `win` condition, or a time limit it wins at (`rounds N then {}`)",
                        id.word(),
                        id.word()
                    ),
                )),
                None => None,
                Some(c) => cannot_win(c, id, s, rules, &map, (&reach, &sources)),
            };
            // `survive N rounds` met as the last round ends: the time limit's own winner is
            // never asked (victory is checked before the limit).
            if let (Some(limit), Some(c)) = (s.rounds, &rules_side.win) {
                if !wins_on_time && survives_to(c, limit) {
                    let span = side_ast.wins.first().map_or(side_ast.side.span, ast::Cond::span);
                    let then = match s.on_time_limit {
                        m::Outcome::Win(w) => format!("then {}", w.word()),
                        m::Outcome::Draw => "then draw".to_string(),
                    };
                    diags.push(
                        Diagnostic::warning(
                            TIME_LIMIT_WINNER,
                            span,
                            format!("the {} wins by surviving the last of the {limit} rounds: `{then}` never decides", id.word()),
                        )
                        .with_help(format!(
                            "give the time limit to the {} (`rounds {limit} then {}`), or ask it to survive fewer rounds",
                            id.word(),
                            id.word()
                        )),
                    );
                }
            }
            // A grant of a tag no rule defines is said there (oc::name::unknown_tag): what the
            // side could win with it follows once it is fixed, not said as unwinnable now.
            let unknown_grant = rules_side.grants.iter().any(|(g, _)| rules.tag(g).is_none());
            if let Some(Unmet { why, help }) = problem.filter(|_| !unknown_grant) {
                let span = side_ast.wins.first().map_or(side_ast.side.span, ast::Cond::span);
                // A side that wins when time runs out can win all the same: its condition is
                // one it never meets, a warning (`rounds 8 then defender` and `defend ... for 10
                // rounds`).
                let d = if wins_on_time {
                    Diagnostic::warning(
                        UNWINNABLE,
                        span,
                        format!("the {}'s `win` can never be met: it wins only when time runs out", id.word()),
                    )
                } else {
                    Diagnostic::error(UNWINNABLE, span, format!("the {} cannot win", id.word()))
                };
                diags.push(d.with_label(why).with_help(help));
            }
        }
    }
}
