//! The shipped scenarios: each compiles clean with its two armies, and together they use every
//! kind of victory condition; every Atlas map has at least one; each plays a few whole games
//! (`oc simulate --games 2`). Objective texts come from the same compiled conditions.

mod common;

use std::collections::BTreeSet;
use std::path::PathBuf;

use common::{shipped_scenarios, Disk};
use oc_compiler::Workspace;
use oc_model::{Condition, Rules, SideId};

fn compile(file: &str) -> Rules {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut ws = Workspace::new();
    let (c, unreadable) = ws.compile(&mut Disk(root), &[file.to_string()]);
    assert!(unreadable.is_empty(), "{unreadable:?}");
    assert!(c.diagnostics.is_empty(), "{file}: {:#?}", c.diagnostics);
    c.rules.expect("clean rules")
}

fn kinds(c: &Condition, out: &mut BTreeSet<&'static str>) {
    let kind = match c {
        Condition::Seize { .. } => "seize",
        Condition::RoutAll => "rout all",
        Condition::RoutCount { .. } => "rout N",
        Condition::RoutLeader => "rout leader",
        Condition::RoutUnit { .. } => "rout unit",
        Condition::Escape { .. } => "escape",
        Condition::Defend { .. } => "defend",
        Condition::Survive { .. } => "survive",
        Condition::Raze { .. } => "raze",
        Condition::And(a, b) | Condition::Or(a, b) => {
            kinds(a, out);
            kinds(b, out);
            if matches!(c, Condition::And(..)) {
                "and"
            } else {
                "or"
            }
        }
        Condition::Not(a) => {
            kinds(a, out);
            "not"
        }
    };
    out.insert(kind);
}

#[test]
fn shipped_scenarios_are_clean_and_cover_every_victory_condition() {
    let files: Vec<String> = shipped_scenarios().iter().map(|n| format!("scenarios/{n}")).collect();
    assert!(files.len() >= 8, "{files:?}");
    let mut seen = BTreeSet::new();
    for file in &files {
        let rules = compile(file);
        assert_eq!(rules.scenarios.len(), 1, "{file}");
        let s = &rules.scenarios[0];
        assert!(s.map.starts_with("scenarios/maps/") && s.map.ends_with(".map.toml"), "{}", s.map);
        for side in [SideId::Attacker, SideId::Defender] {
            let armies: Vec<_> = rules.armies.iter().filter(|a| a.side == side && a.scenario == s.name).collect();
            assert_eq!(armies.len(), 1, "{file}: one sample army per side");
            if let Some(c) = &s.side(side).win {
                kinds(c, &mut seen);
            }
        }
    }
    let all =
        ["seize", "rout all", "rout N", "rout leader", "rout unit", "escape", "defend", "survive", "raze", "and", "or", "not"];
    for k in all {
        assert!(seen.contains(k), "no shipped scenario uses `{k}`; seen {seen:?}");
    }
}

#[test]
fn objective_texts_come_from_the_conditions() {
    let rules = compile("scenarios/hamill-canyon.oc");
    let s = &rules.scenarios[0];
    assert_eq!(s.rounds, Some(5));
    assert_eq!(s.on_time_limit, oc_model::Outcome::Win(SideId::Defender));
    assert_eq!(
        s.attacker.win.as_ref().unwrap().text(),
        "escape with 2 units through canyon-exit (Fleeing) and rout fewer than 3 enemy units"
    );
    let rules = compile("scenarios/zaalbul-marsh.oc");
    assert_eq!(
        rules.scenarios[0].defender.win.as_ref().unwrap().text(),
        "either hold marsh-fort for 12 rounds with no enemy on it or rout 4 enemy units"
    );
    // `and` binds tighter than `or`, as in the rules' expressions.
    let c = Condition::Or(
        Box::new(Condition::RoutAll),
        Box::new(Condition::And(Box::new(Condition::Survive { rounds: 3 }), Box::new(Condition::RoutCount { count: 1 }))),
    );
    assert_eq!(c.text(), "either rout every enemy unit or (survive 3 rounds and rout 1 enemy unit)");
}

#[test]
fn army_costs_and_composition_are_counted_from_the_seed_prices() {
    let rules = compile("scenarios/border-mulan.oc");
    let army = rules.army("RenaisVanguard").unwrap();
    // Lord 1000 + Rapier + Vulnerary, Cavalier 950 + IronSword 460 + IronLance 360, ...
    let cost = oc_compiler::scenario::army_cost(&rules, army);
    let by_hand: i64 = army
        .units
        .iter()
        .map(|u| rules.class(&u.class).unwrap().cost + u.items.iter().map(|i| rules.item(i).unwrap().cost).sum::<i64>())
        .sum();
    assert_eq!(cost, by_hand);
    assert_eq!(rules.class("Cavalier").unwrap().cost, 950);
    assert!(cost <= rules.scenarios[0].attacker.war_chest);
    let ranged = army.units.iter().filter(|u| oc_compiler::scenario::selects(&rules, u, &oc_model::Selector::Ranged)).count();
    assert_eq!(ranged, 1, "only Neimi's Iron Bow reaches 2");
    let limit = oc_model::Limit {
        at_least: false,
        numerator: 1,
        denominator: 3,
        selector: oc_model::Selector::Ranged,
        measure: oc_model::Measure::Units,
    };
    assert!(limit.holds(1, 5) && limit.holds(2, 6) && !limit.holds(2, 5) && !limit.holds(3, 6));
}

fn shipped_files() -> Vec<String> {
    let files: Vec<String> = shipped_scenarios().iter().map(|n| format!("scenarios/{n}")).collect();
    files
}

fn oc(args: &[&str]) -> std::process::Output {
    std::process::Command::new(env!("CARGO_BIN_EXE_oc"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env("NO_COLOR", "1")
        .output()
        .expect("oc runs")
}

#[test]
fn every_atlas_map_has_a_scenario_with_two_sample_armies() {
    let maps_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scenarios/maps");
    let mut maps: Vec<String> = std::fs::read_dir(&maps_dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".map.toml"))
        .map(|n| format!("scenarios/maps/{n}"))
        .collect();
    maps.sort();
    assert!(maps.len() >= 12, "{maps:?}");
    let mut played: BTreeSet<String> = BTreeSet::new();
    for file in shipped_files() {
        let rules = compile(&file);
        for s in &rules.scenarios {
            let sides = [SideId::Attacker, SideId::Defender];
            if sides.iter().all(|side| rules.armies.iter().any(|a| a.side == *side && a.scenario == s.name)) {
                played.insert(s.map.clone());
            }
        }
    }
    let without: Vec<&String> = maps.iter().filter(|m| !played.contains(*m)).collect();
    assert!(without.is_empty(), "Atlas maps with no scenario and sample armies: {without:?}");
    // And the whole folder is lint-clean, maps and scenarios: no error, no warning.
    let out = oc(&["check", "scenarios", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("oc check --format json");
    assert_eq!((report["errors"].as_u64(), report["warnings"].as_u64()), (Some(0), Some(0)), "{report:#}");
}

#[test]
fn every_shipped_scenario_plays_whole_games() {
    for file in shipped_files() {
        let rules = compile(&file);
        let out = oc(&["simulate", &file, "--games", "2", "--seed", "1", "--format", "json"]);
        assert!(out.status.success(), "{file}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("a JSON report");
        assert_eq!(report["games"], 2, "{file}: {report}");
        assert_eq!(report["scenario"], rules.scenarios[0].name.as_str(), "{file}");
        let decided = ["attacker_wins", "defender_wins", "draws"].iter().map(|k| report[k].as_u64().unwrap()).sum::<u64>();
        assert_eq!(decided, 2, "{file}: every game ends: {report}");
    }
}
