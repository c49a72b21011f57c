//! The game-aware lints. Each takes the resolved map and the compiled rules and reports with a
//! span into the TOML: the offending symbol, coordinate pair or legend entry.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use oc_diag::{did_you_mean, Diagnostic, FileId};
use oc_model::Rules;

use crate::codes::*;
use crate::map::{find_terrain, Map, RegionKind, Side, Tile};
use crate::path;

/// What the caller found when it looked for the map's background image.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageCheck {
    /// The map has no image, or the caller did not look.
    NotChecked,
    /// The file could not be read as a PNG: why.
    Unreadable(String),
    /// The image's size in pixels.
    Size(u32, u32),
}

/// Codes a map's `allow` may not silence: the file must at least be readable.
const NOT_ALLOWABLE: &[&str] = &[TOML, FIELD, UNKNOWN_ALLOW];

/// Reads, resolves and lints a map: the one call the CLI, the watcher and the benches make.
pub fn check(file: FileId, text: &str, rules: &Rules, image: impl FnOnce(&Map) -> ImageCheck) -> (Option<Map>, Vec<Diagnostic>) {
    match crate::parse(file, text) {
        (Some(map), diags) => finish(map, diags, rules, image),
        (None, diags) => (None, diags),
    }
}

/// The rest of [`check`] for a map already read with [`crate::parse`] (whose diagnostics are
/// `diags`): resolve, lint, and drop what the map allows.
pub fn finish(
    mut map: Map,
    mut diags: Vec<Diagnostic>,
    rules: &Rules,
    image: impl FnOnce(&Map) -> ImageCheck,
) -> (Option<Map>, Vec<Diagnostic>) {
    map.resolve(rules);
    let image = image(&map);
    diags.extend(lint(&map, rules, &image));
    let mut allowed: BTreeSet<&str> = map.allow.iter().map(|(c, _)| c.as_str()).collect();
    // A retired code allows what replaced it.
    if allowed.contains(OBJECTIVE_CAVALRY) {
        allowed.insert(OBJECTIVE_MOVEMENT);
    }
    diags.retain(|d| NOT_ALLOWABLE.contains(&d.code) || !allowed.contains(d.code));
    diags.sort_by_key(|d| (d.span.start, d.code));
    (Some(map), diags)
}

/// The lints proper, on a map already [`Map::resolve`]d against `rules`.
pub fn lint(map: &Map, rules: &Rules, image: &ImageCheck) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    allow_entries(map, &mut out);
    shape(map, &mut out);
    legend(map, rules, &mut out);
    regions(map, rules, &mut out);
    things(map, rules, &mut out);
    picture(map, image, &mut out);
    picture_bound(map, &mut out);
    out
}

/// `oc render` refuses a picture past its bounds: say so where the size is set.
fn picture_bound(map: &Map, out: &mut Vec<Diagnostic>) {
    if let Err(why) = crate::render::picture_size(map) {
        out.push(
            Diagnostic::warning(TOO_LARGE_TO_RENDER, map.width_span, "`oc render` cannot draw this map")
                .with_label(why.to_string())
                .with_secondary(map.height_span, "the height is set here")
                .with_help("lower `grid`, or split the battlefield into several maps; other commands work on it"),
        );
    }
}

fn allow_entries(map: &Map, out: &mut Vec<Diagnostic>) {
    for (code, span) in &map.allow {
        if !CODES.iter().any(|c| c.code == code) {
            let mut d = Diagnostic::error(UNKNOWN_ALLOW, *span, format!("`{code}` is not an atlas lint"));
            d = match did_you_mean(code, CODES.iter().map(|c| c.code)) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help("`oc explain --list` lists the codes; atlas lints start with `oc::atlas::`"),
            };
            out.push(d);
        }
    }
}

fn shape(map: &Map, out: &mut Vec<Diagnostic>) {
    if map.rows.len() as i64 != map.height {
        out.push(
            Diagnostic::error(ROW_COUNT, map.rows_span, format!("{} rows, but the map is {} high", map.rows.len(), map.height))
                .with_label(format!("{} rows here", map.rows.len()))
                .with_secondary(map.height_span, "the height is set here")
                .with_help(format!("give `rows` exactly {} strings, or set `height = {}`", map.height, map.rows.len())),
        );
    }
    for (y, (row, span)) in map.rows.iter().zip(&map.row_spans).enumerate() {
        let len = row.len() as i64;
        if len != map.width {
            // Point at the first symbol too many, or at the whole short row.
            let at = row.get(map.width as usize).map_or(*span, |(_, s)| *s);
            let what = if len > map.width { "too long" } else { "too short" };
            out.push(
                Diagnostic::error(
                    RAGGED_ROW,
                    at,
                    format!("row {} (y = {y}) is {what}: {len} symbols, but the map is {} wide", y + 1, map.width),
                )
                .with_label(if len > map.width { "the row should end before this".to_string() } else { format!("{len} symbols") })
                .with_secondary(map.width_span, "the width is set here")
                .with_help(format!("every row holds exactly {} symbols, one per tile", map.width)),
            );
        }
    }
}

fn legend(map: &Map, rules: &Rules, out: &mut Vec<Diagnostic>) {
    let names = || rules.terrains.iter().map(|t| t.name.as_str());
    for (c, (name, span)) in &map.legend {
        if find_terrain(rules, name).is_none() {
            let mut d = Diagnostic::error(UNKNOWN_TERRAIN, *span, format!("no terrain `{name}` in the rules"))
                .with_label(format!("the symbol `{c}` stands for this"));
            d = match did_you_mean(name, names()) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help(format!("terrains are: {}", names().collect::<Vec<_>>().join(", "))),
            };
            out.push(d);
        }
    }
    // Unknown symbols: one report per symbol, at its first use, with how often it occurs.
    let mut unknown: BTreeMap<char, (usize, oc_diag::Span)> = BTreeMap::new();
    let mut used: BTreeSet<char> = BTreeSet::new();
    for row in &map.rows {
        for (c, span) in row {
            used.insert(*c);
            if !map.symbols.contains_key(c) && !map.legend.contains_key(c) {
                unknown.entry(*c).or_insert((0, *span)).0 += 1;
            }
        }
    }
    let mut first_seen: Vec<(char, usize, oc_diag::Span)> = unknown.into_iter().map(|(c, (n, s))| (c, n, s)).collect();
    first_seen.sort_by_key(|(_, _, s)| s.start);
    for (c, n, span) in first_seen {
        let times = if n == 1 { "once".to_string() } else { format!("{n} times") };
        out.push(
            Diagnostic::error(UNKNOWN_SYMBOL, span, format!("the symbol `{c}` is not in the legend"))
                .with_label(format!("used {times}"))
                .with_help(format!(
                    "add `\"{c}\" = \"Plains\"` (or the terrain it stands for) under [legend], or use a symbol the legend has"
                )),
        );
    }
    outside_legend(map, rules, out);
    for (key, span) in &map.legend_keys {
        if key.chars().next().is_some_and(|c| !used.contains(&c)) {
            out.push(
                Diagnostic::warning(UNUSED_LEGEND, *span, format!("the legend symbol `{key}` is never used"))
                    .with_help(format!("remove it, or add \"{UNUSED_LEGEND}\" to this map's `allow`")),
            );
        }
    }
}

/// A map whose legend lists the symbols it uses — it restates a terrain's own symbol that a row
/// uses, as `"." = "Plains"` — but not another symbol a row uses, which the rules' own symbols then read: one
/// warning per symbol, at its first use. A legend that only adds or overrides symbols (`"~" =
/// "Lake"`) draws the rest with the rules' symbols, as documented.
fn outside_legend(map: &Map, rules: &Rules, out: &mut Vec<Diagnostic>) {
    let own_symbol = |c: char, name: &str| {
        find_terrain(rules, name).is_some_and(|t| {
            let mut chars = t.symbol.as_deref().unwrap_or("").chars();
            chars.next() == Some(c) && chars.next().is_none()
        })
    };
    let used = |c: char| map.rows.iter().flatten().any(|(u, _)| *u == c);
    if !map.legend.iter().any(|(c, (name, _))| own_symbol(*c, name) && used(*c)) {
        return;
    }
    let mut seen: BTreeMap<char, (usize, oc_diag::Span)> = BTreeMap::new();
    for (c, span) in map.rows.iter().flatten() {
        if !map.legend.contains_key(c) && map.symbols.contains_key(c) {
            seen.entry(*c).or_insert((0, *span)).0 += 1;
        }
    }
    let mut first_seen: Vec<(char, usize, oc_diag::Span)> = seen.into_iter().map(|(c, (n, s))| (c, n, s)).collect();
    first_seen.sort_by_key(|(_, _, s)| s.start);
    let whose = if map.rules.is_some() { "the rules'" } else { "the standard library's" };
    for (c, n, span) in first_seen {
        let terrain = map.symbols.get(&c).map_or("", String::as_str);
        let times = if n == 1 { "used once".to_string() } else { format!("used {n} times") };
        out.push(
            Diagnostic::warning(SYMBOL_OUTSIDE_LEGEND, span, format!("the symbol `{c}` is not in this map's legend"))
                .with_label(format!("{times}; read as {whose} {terrain}"))
                .with_help(format!(
                    "add `\"{c}\" = \"{terrain}\"` under [legend] if {terrain} is meant, or use a symbol the legend lists"
                )),
        );
    }
}

/// An objective that only a door or a destructible wall keeps the reference mover from: a
/// warning that names it and says how it opens (whether the scenario's army can is the
/// scenario's check).
fn behind(map: &Map, rules: &Rules, sources: &[Tile], targets: &[Tile]) -> Option<Diagnostic> {
    let kind = rules.reference_mover()?.movement_type;
    let blockers = crate::blockers::blockers(map, rules, sources, targets);
    let first = blockers.first()?;
    let region = map.regions.iter().find(|r| r.tiles.iter().any(|(t, _)| targets.contains(t)))?;
    let names: Vec<String> = blockers.iter().map(crate::blockers::Blocker::name).collect();
    let mut d = Diagnostic::warning(
        OBJECTIVE_BEHIND_DOOR,
        region.name_span,
        format!("{kind} units reach `{}` only through {}", region.name, names.join(" or ")),
    )
    .with_label(format!("behind {}", first.name()));
    for b in &blockers {
        d = d.with_secondary(b.span, format!("{}: {}", b.name(), b.how()));
    }
    let help = if first.is_door() {
        format!(
            "a unit with {} opens it from a tile next to it; a scenario whose army has none cannot win by it (oc::scenario::unwinnable). Or open a path",
            first.opened_by.join(" or ")
        )
    } else {
        "a unit strikes it down on the way; to need no fight with the wall, open a path".to_string()
    };
    Some(d.with_help(help))
}

fn neighbours(t: Tile) -> [Tile; 4] {
    // Saturating: a tile written far off the map (reported elsewhere) must not overflow here.
    [
        Tile { x: t.x.saturating_add(1), y: t.y },
        Tile { x: t.x.saturating_sub(1), y: t.y },
        Tile { x: t.x, y: t.y.saturating_add(1) },
        Tile { x: t.x, y: t.y.saturating_sub(1) },
    ]
}

fn out_of_bounds(map: &Map, t: Tile, span: oc_diag::Span, what: &str) -> Diagnostic {
    Diagnostic::error(OUT_OF_BOUNDS, span, format!("{what} at [{}, {}] is off the map", t.x, t.y))
        .with_label(format!("the map is {} by {}", map.width, map.height))
        .with_help(format!("x runs 0..{} and y runs 0..{} (x to the right, y down)", map.width - 1, map.height - 1))
}

fn side_word(s: Side) -> &'static str {
    match s {
        Side::Attacker => "attacker",
        Side::Defender => "defender",
    }
}

/// A movement type and the cost of entering each tile for it.
type MovementCosts<'a> = (&'a str, Vec<Option<u32>>);

fn regions(map: &Map, rules: &Rules, out: &mut Vec<Diagnostic>) {
    // The rules' own mover (`Rules::reference_mover`: its base movement type and movement) is
    // who must be able to use a region; rules without movement types have no such lints.
    let reference = path::reference(map, rules);
    let (kind, points) = reference.as_ref().map_or((String::new(), path::UNBOUNDED), |(m, _, p)| (m.movement_type.clone(), *p));
    let foot: Vec<Option<u32>> = reference.as_ref().map_or_else(Vec::new, |(_, c, _)| c.clone());
    let at_points = |r: u32| match reference.as_ref().and_then(|(m, ..)| m.movement) {
        Some(n) => format!("{r} round(s) at movement {n}"),
        None => format!("{r} round(s)"),
    };
    let passable = |t: Tile| reference.is_none() || map.index(t).and_then(|i| foot.get(i).copied().flatten()).is_some();
    // A door or a destructible wall is a way out of a zone, if a slow one.
    let openable: BTreeSet<Tile> = map.doors.iter().map(|(t, _)| *t).chain(map.destructibles.iter().map(|d| d.at)).collect();
    // Every other movement type's costs, worked out once for all objectives (and only if asked).
    let others: std::cell::OnceCell<Vec<MovementCosts>> = std::cell::OnceCell::new();
    let others = || {
        others.get_or_init(|| {
            rules.movements.iter().filter(|m| **m != kind).map(|m| (m.as_str(), path::costs(map, rules, m))).collect()
        })
    };

    let mut names: HashMap<&str, oc_diag::Span> = HashMap::new();
    for r in &map.regions {
        if let Some(first) = names.get(r.name.as_str()) {
            out.push(
                Diagnostic::error(DUPLICATE_REGION, r.name_span, format!("a second region named `{}`", r.name))
                    .with_secondary(*first, "the first is here")
                    .with_help("scenarios refer to regions by name: rename one of them"),
            );
        } else {
            names.insert(&r.name, r.name_span);
        }
        // Tiles off the map: one error for the region, at its first such tile.
        let off: Vec<&(Tile, oc_diag::Span)> = r.tiles.iter().filter(|(t, _)| !map.in_bounds(*t)).collect();
        if let Some((t, span)) = off.first() {
            let mut d = out_of_bounds(map, *t, *span, &format!("a tile of `{}`", r.name));
            if off.len() > 1 {
                d.message.push_str(&format!(", and {} more of its tiles", off.len() - 1));
            }
            out.push(d);
        }
        let mut seen = BTreeSet::new();
        for (t, span) in &r.tiles {
            if !seen.insert(*t) || !map.in_bounds(*t) {
                continue;
            }
            let needs_footing =
                matches!(r.kind, RegionKind::Deployment | RegionKind::Seize | RegionKind::Escape | RegionKind::Defend);
            if needs_footing && !passable(*t) && map.terrain(*t).is_some() {
                let terrain = map.terrain(*t).unwrap_or("?");
                out.push(
                    Diagnostic::error(
                        REGION_IMPASSABLE,
                        *span,
                        format!("a tile of `{}` at [{}, {}] is {terrain}, which {kind} units cannot enter", r.name, t.x, t.y),
                    )
                    .with_help("move the tile onto passable terrain, or change the terrain under it"),
                );
            }
        }
    }

    let zones: Vec<&crate::map::Region> = map.regions.iter().filter(|r| r.kind == RegionKind::Deployment).collect();
    // Overlaps between any two deployment zones.
    for (i, a) in zones.iter().enumerate() {
        let a_tiles: BTreeSet<Tile> = a.tiles.iter().map(|(t, _)| *t).collect();
        for b in zones.iter().skip(i + 1) {
            let shared: Vec<&(Tile, oc_diag::Span)> = b.tiles.iter().filter(|(t, _)| a_tiles.contains(t)).collect();
            if let Some((t, span)) = shared.first() {
                out.push(
                    Diagnostic::error(
                        ZONES_OVERLAP,
                        *span,
                        format!(
                            "the deployment zones `{}` and `{}` share {} tile(s), first [{}, {}]",
                            a.name,
                            b.name,
                            shared.len(),
                            t.x,
                            t.y
                        ),
                    )
                    .with_secondary(a.name_span, format!("`{}` is defined here", a.name))
                    .with_help("deployment zones must be apart: remove the shared tiles from one of them"),
                );
            }
        }
    }
    for z in zones.iter().filter(|z| !map.region_off_map(z)) {
        let tiles: BTreeSet<Tile> = z.tiles.iter().map(|(t, _)| *t).filter(|t| map.in_bounds(*t)).collect();
        let room = tiles.iter().filter(|t| passable(**t)).count();
        if let Some(units) = z.units {
            if (room as i64) < units {
                out.push(
                    Diagnostic::error(
                        ZONE_TOO_SMALL,
                        z.name_span,
                        format!("`{}` has {room} passable tile(s) for {units} units", z.name),
                    )
                    .with_help(format!("add {} passable tile(s) to the zone, or lower `units`", units - room as i64)),
                );
            }
        }
        if room > 0 {
            let exit = tiles
                .iter()
                .filter(|t| passable(**t))
                .flat_map(|t| neighbours(*t))
                .any(|n| !tiles.contains(&n) && (passable(n) || openable.contains(&n)));
            if !exit {
                out.push(
                    Diagnostic::error(ZONE_TRAPPED, z.name_span, format!("no {kind} unit can leave `{}`", z.name))
                        .with_label("every tile around this zone is impassable")
                        .with_help("open a way out: a passable tile, a door or a destructible wall next to the zone"),
                );
            }
        }
    }

    // Objectives: reachable from their side's zones, and within the time limit.
    for r in map.regions.iter().filter(|r| matches!(r.kind, RegionKind::Seize | RegionKind::Escape)) {
        let from: Vec<&&crate::map::Region> = zones.iter().filter(|z| r.side.is_none() || z.side == r.side).collect();
        // A region off the map was reported; whether it can be reached follows from the fix.
        if from.is_empty() || map.region_off_map(r) || from.iter().any(|z| map.region_off_map(z)) {
            continue;
        }
        let sources: Vec<Tile> = from.iter().flat_map(|z| z.tiles.iter().map(|(t, _)| *t)).filter(|t| passable(*t)).collect();
        let targets: Vec<Tile> = r.tiles.iter().map(|(t, _)| *t).filter(|t| passable(*t)).collect();
        if sources.is_empty() || targets.is_empty() || reference.is_none() {
            continue;
        }
        let best = |costs: &[Option<u32>]| {
            let rounds = path::rounds(map, costs, &sources, points);
            targets.iter().filter_map(|t| map.index(*t).and_then(|i| rounds.get(i).copied().flatten())).min()
        };
        let verb = if r.kind == RegionKind::Seize { "seize" } else { "escape" };
        let who = from.iter().map(|z| format!("`{}`", z.name)).collect::<Vec<_>>().join(", ");
        let side = r.side.map_or("either side".to_string(), |s| format!("the {}", side_word(s)));
        match best(&foot) {
            None => out.push(behind(map, rules, &sources, &targets).unwrap_or_else(|| {
                Diagnostic::error(
                    OBJECTIVE_UNREACHABLE,
                    r.name_span,
                    format!("no {kind} unit of {side} can reach the {verb} tiles of `{}`", r.name),
                )
                .with_label(format!("unreachable from {who}"))
                .with_help("open a path (closed doors and intact walls block it), or move the objective")
            })),
            Some(rounds) => {
                // Every other movement type of the rules: an army of it could never win by this.
                for (other, costs) in others() {
                    let reached = path::reachable(map, costs, &sources, points);
                    if !targets.iter().any(|t| map.index(*t).and_then(|i| reached.get(i).copied()).unwrap_or(false)) {
                        out.push(
                            Diagnostic::warning(
                                OBJECTIVE_MOVEMENT,
                                r.name_span,
                                format!("{other} units of {side} cannot reach the {verb} tiles of `{}`", r.name),
                            )
                            .with_label(format!("{kind} units need {}", at_points(rounds)))
                            .with_help(format!(
                                "if armies of {other} units should have a way, open one; otherwise add \"{OBJECTIVE_MOVEMENT}\" to `allow`"
                            )),
                        );
                    }
                }
                if let (Some(limit), Some(_)) = (map.rounds, reference.as_ref().and_then(|(m, ..)| m.movement)) {
                    if i64::from(rounds) > limit {
                        out.push(
                            Diagnostic::error(
                                OBJECTIVE_FAR,
                                r.name_span,
                                format!("{kind} units need {rounds} rounds to reach `{}`, but the map allows {limit}", r.name),
                            )
                            .with_label(format!("{} from {who}", at_points(rounds)))
                            .with_help("move the objective closer, or raise `rounds`"),
                        );
                    }
                }
            }
        }
    }
}

fn things(map: &Map, rules: &Rules, out: &mut Vec<Diagnostic>) {
    let foot = path::reference(map, rules).map(|(_, c, _)| c);
    let passable = |t: Tile| foot.as_ref().is_none_or(|f| map.index(t).and_then(|i| f.get(i).copied().flatten()).is_some());
    for c in &map.chests {
        if !map.in_bounds(c.at) {
            out.push(out_of_bounds(map, c.at, c.at_span, "a chest"));
        } else if let Some(tr) = map.terrain(c.at).and_then(|n| rules.terrain(n)) {
            // Its item is taken on the chest's own tile: some unit must be able to stand there.
            if tr.costs.values().all(Option::is_none) {
                let how = match (&tr.hp, &tr.becomes, tr.opened_by.is_empty()) {
                    (Some(hp), Some(b), _) => {
                        format!("it can be reached once the {} is struck down ({hp} HP): it becomes {b}", tr.name)
                    }
                    (_, Some(b), false) => {
                        format!(
                            "it can be reached once the {} is opened ({}): it becomes {b}",
                            tr.name,
                            tr.opened_by.join(" or ")
                        )
                    }
                    _ => "no unit can ever take it: move the chest onto passable terrain".to_string(),
                };
                out.push(
                    Diagnostic::warning(
                        CHEST_IMPASSABLE,
                        c.at_span,
                        format!("the chest at [{}, {}] is on {}, which no unit can enter", c.at.x, c.at.y, tr.name),
                    )
                    .with_help(how),
                );
            }
        }
        if rules.item(&c.item).is_none() {
            let mut d = Diagnostic::error(UNKNOWN_ITEM, c.item_span, format!("no item `{}` in the rules", c.item));
            d = match did_you_mean(&c.item, rules.items.iter().map(|i| i.name.as_str())) {
                Some(s) => d.with_help(format!("did you mean `{s}`?")),
                None => d.with_help("chests hold item names from the rules, such as Vulnerary or MasterKey"),
            };
            out.push(d);
        }
    }
    for (t, span) in &map.doors {
        if !map.in_bounds(*t) {
            out.push(out_of_bounds(map, *t, *span, "a door"));
            continue;
        }
        let terrain = map.terrain(*t).and_then(|n| rules.terrain(n));
        match terrain {
            Some(tr) if tr.opened_by.is_empty() => out.push(
                Diagnostic::error(NOT_A_DOOR, *span, format!("a door on {}, which nothing opens", tr.name))
                    .with_help("put the door on a Door tile (terrain with `opened_by`), or remove the entry"),
            ),
            _ => {}
        }
        if !neighbours(*t).iter().any(|n| passable(*n)) {
            out.push(
                Diagnostic::error(DOOR_UNREACHABLE, *span, format!("no side of the door at [{}, {}] can be reached", t.x, t.y))
                    .with_label("every neighbouring tile is impassable")
                    .with_help("a door is opened from an adjacent tile: make one of its neighbours passable"),
            );
        }
    }
    for d in &map.destructibles {
        if !map.in_bounds(d.at) {
            out.push(out_of_bounds(map, d.at, d.span, "a destructible tile"));
            continue;
        }
        let terrain = map.terrain(d.at).and_then(|n| rules.terrain(n));
        let rules_hp = terrain.and_then(|t| t.hp);
        let before = out.len();
        match d.hp {
            Some(hp) if hp < 1 => out.push(
                Diagnostic::error(DESTRUCTIBLE_HP, d.span, format!("a destructible tile with {hp} HP"))
                    .with_help("hit points are at least 1 (the rules give Walls and Snags 30)"),
            ),
            None if rules_hp.is_none() => out.push(
                Diagnostic::error(
                    DESTRUCTIBLE_HP,
                    d.span,
                    format!("the destructible tile at [{}, {}] has no hit points", d.at.x, d.at.y),
                )
                .with_label(format!("{} has no HP in the rules", map.terrain(d.at).unwrap_or("this terrain")))
                .with_help("add `hp = 30`, or place it on destructible terrain (Wall, Snag)"),
            ),
            _ => {}
        }
        if let Some(t) = terrain.filter(|_| out.len() == before) {
            if t.becomes.is_none() {
                out.push(
                    Diagnostic::error(DESTRUCTIBLE_HP, d.span, format!("{} does not say what it becomes when destroyed", t.name))
                        .with_help("place destructibles on terrain with `becomes` in the rules (Wall becomes Floor, Snag becomes Bridge)"),
                );
            }
        }
    }
}

fn picture(map: &Map, image: &ImageCheck, out: &mut Vec<Diagnostic>) {
    let Some((path, span)) = &map.image else { return };
    let (want_w, want_h) = (map.width as u64 * u64::from(map.grid), map.height as u64 * u64::from(map.grid));
    match image {
        ImageCheck::NotChecked => {}
        ImageCheck::Unreadable(why) => out.push(
            Diagnostic::error(IMAGE_MISSING, *span, format!("cannot read the image `{path}`: {why}"))
                .with_help("the path is relative to the map file, and the image must be a PNG"),
        ),
        ImageCheck::Size(w, h) if (u64::from(*w), u64::from(*h)) != (want_w, want_h) => out.push(
            Diagnostic::error(IMAGE_SIZE, *span, format!("the image is {w}x{h} pixels, but the map needs {want_w}x{want_h}"))
                .with_label(format!("{} x {} tiles at grid {}", map.width, map.height, map.grid))
                .with_help(format!("resize the image to {want_w}x{want_h}, or set `grid` to the image's square size")),
        ),
        ImageCheck::Size(..) => {}
    }
}
