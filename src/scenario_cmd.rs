//! Scenario and army commands: `oc explain-scenario`, `oc army scout`, `oc army outfit`.

use std::path::Path;

use oc_play::briefing::{self, army_line, briefing, MapThings};

use crate::commands::style;
use crate::report;
use crate::Format;

use crate::load::rules as compile;

/// The item named (or the only one), a refusal shown.
fn pick<'a, T>(list: &'a [T], name: Option<&str>, name_of: impl Fn(&T) -> &str, what: &str, path: &Path) -> Result<&'a T, u8> {
    briefing::pick(list, name, name_of, what, path).map_err(|r| crate::load::refused(&r))
}

pub fn explain_scenario(path: &Path, name: Option<&str>, format: Format) -> u8 {
    let (rules, _, root) = match compile(path, "explain-scenario") {
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
        Format::Human => {
            // The map as the user would type it from here (the JSON keeps the project's path).
            let mut shown = s.clone();
            shown.map = oc_project::load::from_cwd(&root.join(&s.map)).display().to_string();
            out!("{}", briefing(&shown, things.as_ref()))
        }
        Format::Json => outln!("{}", briefing::json(s, things.as_ref())),
    }
    0
}

/// The Scouting phase: the classes an army brings, and nothing else.
pub fn scout(path: &Path, name: Option<&str>) -> u8 {
    let (rules, _, _) = match compile(path, "army scout") {
        Ok(r) => r,
        Err(code) => return code,
    };
    let army = match pick(&rules.armies, name, |a| a.name.as_str(), "army", path) {
        Ok(a) => a,
        Err(code) => return code,
    };
    out!("{}", briefing::scout(&rules, army));
    0
}

/// The Outfitting phase: inventory changes are accepted, class changes are not.
pub fn outfit(before: &Path, after: &Path, name: Option<&str>) -> u8 {
    let (rules_before, _, _) = match compile(before, "army outfit") {
        Ok(r) => r,
        Err(code) => return code,
    };
    let (rules_after, ws_after, _) = match compile(after, "army outfit") {
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
    if !problems.is_empty() {
        report::verdict(1);
    }
    let style = style();
    let reports = report::Reports::new(&ws_after);
    for d in &problems {
        err!("{}", reports.render(d, style));
    }
    if !problems.is_empty() {
        errln!("not accepted: {} change(s) the Outfitting phase does not allow (only items may change)", problems.len());
        return 1;
    }
    outln!("accepted: {}", army_line(&rules_after, new));
    for change in briefing::changes(old, new) {
        outln!("  {change}");
    }
    0
}
