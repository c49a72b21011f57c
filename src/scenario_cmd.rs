//! Scenario and army commands: `oc explain-scenario`, `oc army scout`, `oc army outfit`.

use std::path::Path;

use oc_model::SideRules;
use oc_play::briefing::{self, army_line, briefing, list, MapThings};

use crate::commands::style;
use crate::report;
use crate::Format;

use crate::load::rules as compile;

/// The item named (or the only one), a refusal shown.
fn pick<'a, T>(list: &'a [T], name: Option<&str>, name_of: impl Fn(&T) -> &str, what: &str, path: &Path) -> Result<&'a T, u8> {
    briefing::pick(list, name, name_of, what, path).map_err(|r| crate::load::refused(&r))
}

pub fn explain_scenario(path: &Path, name: Option<&str>, format: Format) -> u8 {
    let (rules, _, root) = match compile(path) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let s = match pick(&rules.scenarios, name, |s| s.name.as_str(), "scenario", path) {
        Ok(s) => s,
        Err(code) => return code,
    };
    // The map compiled clean with the scenario, so it reads; if not, the briefing goes without.
    let things = oc_play::setup::scenario_map(&root, &rules, s).ok().map(|(map, _)| MapThings::of(&map, &rules, s));
    match format {
        Format::Human => out!("{}", briefing(s, things.as_ref())),
        Format::Json => {
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
            if let (Some(t), Some(object)) = (&things, value.as_object_mut()) {
                let chests: Vec<_> =
                    t.chests.iter().map(|(x, y, item)| serde_json::json!({"at": [x, y], "item": item})).collect();
                let doors: Vec<_> = t.doors.iter().map(|(x, y, by)| serde_json::json!({"at": [x, y], "opened_by": by})).collect();
                let walls: Vec<_> = t
                    .destructibles
                    .iter()
                    .map(|(x, y, terrain, hp, becomes)| serde_json::json!({"at": [x, y], "terrain": terrain, "hp": hp, "becomes": becomes}))
                    .collect();
                object.insert("chests".into(), chests.into());
                object.insert("doors".into(), doors.into());
                object.insert("destructibles".into(), walls.into());
            }
            outln!("{value}");
        }
    }
    0
}

/// The Scouting phase: the classes an army brings, and nothing else.
pub fn scout(path: &Path, name: Option<&str>) -> u8 {
    let (rules, _, _) = match compile(path) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let army = match pick(&rules.armies, name, |a| a.name.as_str(), "army", path) {
        Ok(a) => a,
        Err(code) => return code,
    };
    outln!(
        "{} brings {} units (the {} of {}):",
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
        outln!("  {c}{}", if n > 1 { format!(" x{n}") } else { String::new() });
        i += n;
    }
    0
}

/// The Outfitting phase: inventory changes are accepted, class changes are not.
pub fn outfit(before: &Path, after: &Path, name: Option<&str>) -> u8 {
    let (rules_before, _, _) = match compile(before) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let (rules_after, ws_after, _) = match compile(after) {
        Ok(r) => r,
        Err(code) => return code,
    };
    let (old, new) = match (
        pick(&rules_before.armies, name, |a| a.name.as_str(), "army", before),
        pick(&rules_after.armies, name, |a| a.name.as_str(), "army", after),
    ) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(c), _) | (_, Err(c)) => return c,
    };
    let problems = briefing::outfit(old, new, &ws_after);
    let style = style();
    let reports = report::Reports::new(&ws_after);
    for d in &problems {
        err!("{}", reports.render(d, style));
    }
    if !problems.is_empty() {
        errln!("not accepted: {} change(s) of class", problems.len());
        return 1;
    }
    outln!("accepted: {}", army_line(&rules_after, new));
    for u in &new.units {
        let before_items = old.units.iter().find(|o| o.name == u.name).map(|o| o.items.clone()).unwrap_or_default();
        if before_items != u.items {
            outln!("  {} ({}): {} -> {}", u.name, u.class, list(&before_items), list(&u.items));
        }
    }
    0
}
