//! What players read of a scenario and its armies: the briefing (objectives from the compiled
//! victory conditions, time limit, fog, what stands on the map, each side's deployment and army
//! rules), and the army-building phases' checks (Scouting shares the classes; Outfitting may
//! change inventories, not classes nor units).

use std::path::Path;

use oc_compiler::Workspace;
use oc_diag::{CodeInfo, Diagnostic};
use oc_model::{Army, Outcome, Rules, Scenario, SideRules};
use oc_syntax::ast;

use crate::error::Refusal;

pub const CLASS_CHANGED: &str = "oc::army::class_changed";

pub const CODES: &[CodeInfo] = &[CodeInfo {
    code: CLASS_CHANGED,
    title: "an outfitted army changes its classes",
    explanation: "In the Outfitting phase (seed 000, Buying an Army) a player may change the \
inventory of every unit, but not the class of any unit, and may not add or remove units: the \
classes were shared in the Scouting phase. `oc army outfit BEFORE AFTER` compares the two \
armies unit by unit (by name).\n\nFix: keep each unit's class and the same units; change only \
`items`.",
}];

/// The item of `list` named `name` (its only one by default); `what` names the kind in the
/// refusal, `path` the files it was looked for in.
pub fn pick<'a, T>(
    list: &'a [T],
    name: Option<&str>,
    name_of: impl Fn(&T) -> &str,
    what: &str,
    path: &Path,
) -> Result<&'a T, Refusal> {
    match name {
        Some(n) => list.iter().find(|x| name_of(x) == n).ok_or_else(|| {
            let names: Vec<&str> = list.iter().map(&name_of).collect();
            Refusal::new(format!("no {what} `{n}` in {}; there are: {}", path.display(), names.join(", ")))
                .with_help("name one of them with --name")
        }),
        None => match list {
            [one] => Ok(one),
            [] => Err(Refusal::new(format!("{} defines no {what}", path.display()))
                .with_help(format!("name the `.oc` file that holds the {what}"))),
            many => {
                let names: Vec<&str> = many.iter().map(&name_of).collect();
                // Its own and those of the files it imports: the list is the compilation's.
                let whats = match what.strip_suffix('y') {
                    Some(stem) => format!("{stem}ies"),
                    None => format!("{what}s"),
                };
                Err(Refusal::new(format!("{} defines or imports {} {whats}: {}", path.display(), names.len(), names.join(", ")))
                    .with_help("name one with --name"))
            }
        },
    }
}

/// The scenario's round clock as players read it.
pub fn time_limit(s: &Scenario) -> String {
    match (s.rounds, s.on_time_limit) {
        (None, _) => "No time limit.".to_string(),
        (Some(n), Outcome::Win(side)) => format!("Time limit: {n} rounds; then the {} wins.", side.word()),
        (Some(n), Outcome::Draw) => format!("Time limit: {n} rounds; then the battle is a draw."),
    }
}

/// A side's objective as players read it ("Seize the throne; or hold out until the time limit").
pub fn objective(s: &Scenario, side: &SideRules) -> String {
    let objective = match (&side.win, s.on_time_limit) {
        (Some(c), Outcome::Win(w)) if w == side.side => format!("{}; or hold out until the time limit", c.text()),
        (Some(c), _) => c.text(),
        (None, Outcome::Win(w)) if w == side.side => "hold out until the time limit".to_string(),
        (None, _) => "none".to_string(),
    };
    capitalise(&objective)
}

fn side_text(s: &Scenario, side: &SideRules) -> String {
    let mut out = format!(
        "{} (deploys in {}, war chest {} gold, {} to {} units)\n",
        capitalise(side.side.word()),
        side.zone,
        side.war_chest,
        side.min_units,
        side.max_units
    );
    out.push_str(&format!("  Objective: {}.\n", objective(s, side)));
    if !side.grants.is_empty() {
        let g: Vec<String> =
            side.grants.iter().map(|(t, n)| format!("{t} for {n} unit{}", if *n == 1 { "" } else { "s" })).collect();
        out.push_str(&format!("  Scenario tags: {}.\n", g.join(", ")));
    }
    let mut rules: Vec<String> = side.limits.iter().map(oc_compiler::scenario::limit_text).collect();
    if !side.allowed_classes.is_empty() {
        rules.push(format!("classes only from {}", side.allowed_classes.join(", ")));
    }
    if !side.banned_classes.is_empty() {
        rules.push(format!("no {}", side.banned_classes.join(", ")));
    }
    if !side.allowed_items.is_empty() {
        rules.push(format!("items only from {}", side.allowed_items.join(", ")));
    }
    if !side.banned_items.is_empty() {
        rules.push(format!("no {}", side.banned_items.join(", ")));
    }
    if !rules.is_empty() {
        out.push_str(&format!("  Army: {}.\n", rules.join("; ")));
    }
    out
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().collect::<String>() + c.as_str()).unwrap_or_default()
}

/// A wall that breaks: its square, its terrain, its HP and what it becomes.
pub type Breakable = (i64, i64, String, Option<i64>, Option<String>);

/// What stands on the scenario's map besides terrain: chests (the scenario's items where it
/// overrides the map's), doors and what opens them, walls that break and their HP.
pub struct MapThings {
    pub chests: Vec<(i64, i64, String)>,
    pub doors: Vec<(i64, i64, Vec<String>)>,
    pub destructibles: Vec<Breakable>,
    /// The other squares a unit may strike down, by their terrain's own hit points (every Wall
    /// of the standard library): (terrain, HP, what it becomes, how many squares).
    pub by_terrain: Vec<(String, i64, String, usize)>,
}

impl MapThings {
    pub fn of(map: &oc_atlas::Map, rules: &Rules, s: &Scenario) -> MapThings {
        let terrain = |t: oc_atlas::Tile| map.terrain(t).and_then(|n| rules.terrain(n));
        let mut chests: Vec<(i64, i64, String)> = map
            .chests
            .iter()
            .map(|c| {
                let item = s.chests.iter().find(|((x, y), _)| (*x, *y) == (c.at.x, c.at.y)).map_or(&c.item, |(_, i)| i);
                (c.at.x, c.at.y, item.clone())
            })
            .collect();
        for ((x, y), item) in &s.chests {
            if !chests.iter().any(|(cx, cy, _)| (cx, cy) == (x, y)) {
                chests.push((*x, *y, item.clone()));
            }
        }
        let doors =
            map.doors.iter().map(|(t, _)| (t.x, t.y, terrain(*t).map(|t| t.opened_by.clone()).unwrap_or_default())).collect();
        let destructibles = map
            .destructibles
            .iter()
            .map(|d| {
                let t = terrain(d.at);
                let hp = d.hp.or_else(|| t.and_then(|t| t.hp).map(i64::from));
                (d.at.x, d.at.y, map.terrain(d.at).unwrap_or_default().to_string(), hp, t.and_then(|t| t.becomes.clone()))
            })
            .collect();
        // The battle strikes down any square whose terrain has hit points and becomes another
        // (no key opens it), the map's `[[destructibles]]` giving some their own.
        let mut by_terrain: Vec<(String, i64, String, usize)> = Vec::new();
        for t in map.tiles() {
            if map.destructibles.iter().any(|d| d.at == t) {
                continue;
            }
            let Some(terrain) = terrain(t) else { continue };
            let (Some(hp), Some(becomes)) = (terrain.hp, terrain.becomes.as_ref()) else { continue };
            if !terrain.opened_by.is_empty() {
                continue;
            }
            match by_terrain.iter_mut().find(|(n, ..)| *n == terrain.name) {
                Some(row) => row.3 += 1,
                None => by_terrain.push((terrain.name.clone(), i64::from(hp), becomes.clone(), 1)),
            }
        }
        MapThings { chests, doors, destructibles, by_terrain }
    }

    /// The things as the briefing says them.
    pub fn text(&self) -> String {
        let mut out = String::new();
        if !self.chests.is_empty() {
            let c: Vec<String> = self.chests.iter().map(|(x, y, item)| format!("{item} at [{x}, {y}]")).collect();
            out.push_str(&format!("Chests: {}.\n", c.join(", ")));
        }
        if !self.doors.is_empty() {
            let d: Vec<String> = self
                .doors
                .iter()
                .map(|(x, y, by)| match by.is_empty() {
                    true => format!("[{x}, {y}]"),
                    false => format!("[{x}, {y}] (opens with {})", by.join(" or ")),
                })
                .collect();
            out.push_str(&format!("Doors: {}.\n", d.join(", ")));
        }
        if !self.destructibles.is_empty() {
            let w: Vec<String> = self
                .destructibles
                .iter()
                .map(|(x, y, terrain, hp, becomes)| {
                    let hp = hp.map_or(String::new(), |hp| format!(", {hp} HP"));
                    let becomes = becomes.as_ref().map_or(String::new(), |b| format!(", becomes {b}"));
                    format!("{terrain} at [{x}, {y}]{hp}{becomes}")
                })
                .collect();
            out.push_str(&format!("Walls that can be struck down: {}.\n", w.join(", ")));
        }
        if !self.by_terrain.is_empty() {
            let w: Vec<String> = self
                .by_terrain
                .iter()
                .map(|(terrain, hp, becomes, n)| {
                    format!("{terrain} ({hp} HP, becomes {becomes}) on {n} square{}", if *n == 1 { "" } else { "s" })
                })
                .collect();
            let lead = if self.destructibles.is_empty() { "Squares" } else { "Other squares" };
            out.push_str(&format!("{lead} that can be struck down (their terrain's hit points): {}.\n", w.join(", ")));
        }
        out
    }
}

/// The objectives as players read them, generated from the compiled conditions.
pub fn briefing(s: &Scenario, things: Option<&MapThings>) -> String {
    let mut out = format!("{} ({}), on {}\n", s.title.as_deref().unwrap_or(&s.name), s.name, s.map);
    if let Some(doc) = &s.doc {
        out.push_str(&format!("{doc}\n"));
    }
    out.push_str(&format!("{} The {} deploys first.\n", time_limit(s), s.deploy_first.word()));
    if let Some(dice) = &s.home_edges {
        out.push_str(&format!(
            "Home edges: each side rolls `{dice}` (ties roll again); the winner deploys in the zone of its choice.\n"
        ));
    }
    if let Some(n) = s.placement_units {
        out.push_str(&format!("Placement: each army is divided into {n} groups of about equal points, placed in turns.\n"));
    }
    if let Some(fog) = s.fog {
        out.push_str(&format!(
            "Fog of war: a side sees only the tiles within {} of its units (their `vision`, where the rules give one) and what a reveal lights.\n",
            fog.vision
        ));
    }
    match things {
        Some(things) => out.push_str(&things.text()),
        None if !s.chests.is_empty() => {
            let c: Vec<String> = s.chests.iter().map(|((x, y), item)| format!("{item} at [{x}, {y}]")).collect();
            out.push_str(&format!("Chests: {}.\n", c.join(", ")));
        }
        None => {}
    }
    out.push('\n');
    out.push_str(&side_text(s, &s.attacker));
    out.push('\n');
    out.push_str(&side_text(s, &s.defender));
    out
}

/// `Title (Name), the attacker of Scenario; 5 units, 120 gold`
pub fn army_line(rules: &Rules, a: &Army) -> String {
    format!("{} ({}), the {} of {}", a.title.as_deref().unwrap_or(&a.name), a.name, a.side.word(), a.scenario)
        + &format!("; {} units, {} gold", a.units.len(), oc_compiler::scenario::army_cost(rules, a))
}

fn unit_class_span(ws: &Workspace, army: &str, unit: &str) -> Option<oc_diag::Span> {
    ws.files().flat_map(|(_, f)| f.ast().items.iter()).find_map(|i| match i {
        ast::Item::Army(a) if a.name.value == army => a.units.iter().find(|u| u.name.value == unit).map(|u| u.class.span),
        _ => None,
    })
}

fn army_span(ws: &Workspace, army: &str) -> Option<oc_diag::Span> {
    ws.files().flat_map(|(_, f)| f.ast().items.iter()).find_map(|i| match i {
        ast::Item::Army(a) if a.name.value == army => Some(a.name.span),
        _ => None,
    })
}

/// The Outfitting phase: the problems of the outfitted army `new` (read from `ws_after`) against
/// the scouted `old`: a unit whose class changed, a unit added or removed, another scenario or
/// side. Inventories may change.
pub fn outfit(old: &Army, new: &Army, ws_after: &Workspace) -> Vec<Diagnostic> {
    let mut problems: Vec<Diagnostic> = Vec::new();
    let fallback = army_span(ws_after, &new.name);
    for u in &new.units {
        match old.units.iter().find(|o| o.name == u.name) {
            Some(o) if o.class != u.class => {
                if let Some(span) = unit_class_span(ws_after, &new.name, &u.name).or(fallback) {
                    problems.push(
                        Diagnostic::error(
                            CLASS_CHANGED,
                            span,
                            format!("`{}` was a {} when the classes were scouted", u.name, o.class),
                        )
                        .with_label(format!("now a {}", u.class))
                        .with_help(format!("keep `{}: {}`; only its items may change", u.name, o.class)),
                    );
                }
            }
            Some(_) => {}
            None => {
                if let Some(span) = unit_class_span(ws_after, &new.name, &u.name).or(fallback) {
                    problems.push(
                        Diagnostic::error(CLASS_CHANGED, span, format!("`{}` was not in the army when it was scouted", u.name))
                            .with_help("units cannot be added in the Outfitting phase"),
                    );
                }
            }
        }
    }
    for o in &old.units {
        if !new.units.iter().any(|u| u.name == o.name) {
            if let Some(span) = fallback {
                problems.push(
                    Diagnostic::error(
                        CLASS_CHANGED,
                        span,
                        format!("`{}` ({}) is missing from the outfitted army", o.name, o.class),
                    )
                    .with_help("units cannot be removed in the Outfitting phase"),
                );
            }
        }
    }
    if new.scenario != old.scenario || new.side != old.side {
        if let Some(span) = fallback {
            problems.push(
                Diagnostic::error(
                    CLASS_CHANGED,
                    span,
                    format!("the army was scouted for the {} of {}", old.side.word(), old.scenario),
                )
                .with_help("outfit the same army for the same scenario and side"),
            );
        }
    }
    problems
}

/// An accepted outfitting's changes: each unit of `new` whose items changed, as `NAME (CLASS):
/// BEFORE -> AFTER` ([`list`]s of items).
pub fn changes(old: &Army, new: &Army) -> Vec<String> {
    let mut out = Vec::new();
    for u in &new.units {
        let before = old.units.iter().find(|o| o.name == u.name).map(|o| o.items.clone()).unwrap_or_default();
        if before != u.items {
            out.push(format!("{} ({}): {} -> {}", u.name, u.class, list(&before), list(&u.items)));
        }
    }
    out
}

/// `a, b` or `nothing`.
pub fn list(items: &[String]) -> String {
    if items.is_empty() {
        "nothing".to_string()
    } else {
        items.join(", ")
    }
}

/// The scenario as data (`oc explain-scenario --format json`): its settings, each side's zone,
/// war chest, unit bounds and objective, fog, and what stands on its map.
pub fn json(s: &Scenario, things: Option<&MapThings>) -> serde_json::Value {
    let side = |r: &SideRules| {
        serde_json::json!({
            "zone": r.zone,
            "war_chest": r.war_chest,
            "units": [r.min_units, r.max_units],
            "objective": r.win.as_ref().map(|c| c.text()),
            "condition": r.win,
        })
    };
    let mut value = serde_json::json!({
        "name": s.name, "title": s.title, "map": s.map, "rounds": s.rounds,
        "on_time_limit": s.on_time_limit, "deploy_first": s.deploy_first.word(),
        "attacker": side(&s.attacker), "defender": side(&s.defender),
    });
    if let (Some(fog), Some(object)) = (s.fog, value.as_object_mut()) {
        object.insert("fog".into(), serde_json::json!({ "vision": fog.vision }));
    }
    if let (Some(t), Some(object)) = (things, value.as_object_mut()) {
        let chests: Vec<_> = t.chests.iter().map(|(x, y, item)| serde_json::json!({"at": [x, y], "item": item})).collect();
        let doors: Vec<_> = t.doors.iter().map(|(x, y, by)| serde_json::json!({"at": [x, y], "opened_by": by})).collect();
        let walls: Vec<_> = t
            .destructibles
            .iter()
            .map(|(x, y, terrain, hp, becomes)| serde_json::json!({"at": [x, y], "terrain": terrain, "hp": hp, "becomes": becomes}))
            .collect();
        object.insert("chests".into(), chests.into());
        object.insert("doors".into(), doors.into());
        object.insert("destructibles".into(), walls.into());
        let by_terrain: Vec<_> = t
            .by_terrain
            .iter()
            .map(|(terrain, hp, becomes, n)| serde_json::json!({"terrain": terrain, "hp": hp, "becomes": becomes, "squares": n}))
            .collect();
        object.insert("struck_by_terrain".into(), by_terrain.into());
    }
    value
}

/// The Scouting phase (`oc army scout`): the classes an army brings (by their titles, counted),
/// and nothing else.
pub fn scout(rules: &Rules, army: &Army) -> String {
    let mut out = format!(
        "{} brings {} units (the {} of {}):\n",
        army.title.as_deref().unwrap_or(&army.name),
        army.units.len(),
        army.side.word(),
        army.scenario
    );
    let mut classes: Vec<String> = army
        .units
        .iter()
        .map(|u| rules.class(&u.class).and_then(|c| c.title.clone()).unwrap_or_else(|| u.class.clone()))
        .collect();
    classes.sort();
    let mut i = 0;
    while let Some(c) = classes.get(i) {
        let n = classes.iter().filter(|x| *x == c).count();
        out.push_str(&format!("  {c}{}\n", if n > 1 { format!(" x{n}") } else { String::new() }));
        i += n;
    }
    out
}
