//! The scripted-battle arena shared by `tests/battle.rs` and `tests/seed_battle_tags.rs`: an
//! 8x5 map with a wall, a door, a fort, a chest, seize / escape / raze tiles, the scenario that
//! grants Leader, Fleeing and Saboteur, and helpers to compile armies and script turns.
#![allow(dead_code)]

use std::collections::HashMap;

use oc_compiler::{MemoryHost, Workspace};
use oc_diag::Diagnostic;
use oc_engine::battle::{Act, Battle, Record, Turn};
use oc_engine::Engine;
use oc_model::{BattleMap, Rules, SideId, Verb};

pub const MAP: &str = r#"name = "Arena"
width = 8
height = 5
rows = [
  "........",
  "...#D#..",
  "........",
  "..F.....",
  "........",
]
[[regions]]
name = "attacker-zone"
kind = "deployment"
side = "attacker"
rect = [0, 0, 2, 5]
[[regions]]
name = "defender-zone"
kind = "deployment"
side = "defender"
rect = [6, 0, 2, 5]
[[regions]]
name = "goal"
kind = "seize"
side = "attacker"
tiles = [[4, 4]]
[[regions]]
name = "exit"
kind = "escape"
side = "attacker"
tiles = [[4, 0]]
[[regions]]
name = "granary"
kind = "raze"
side = "attacker"
tiles = [[2, 0]]
[[chests]]
at = [3, 4]
item = "Elixir"
"#;

pub const SCENARIO: &str = r#"
scenario Arena {
    map "arena.map.toml"
    chest [3, 4] Vulnerary
    rounds 5 then defender
    attacker {
        zone "attacker-zone" war_chest 99999 units 1..8
        grant Leader to 1
        grant Fleeing to 1
        grant Saboteur to 1
        win seize "goal" or escape 1 through "exit"
    }
    defender { zone "defender-zone" war_chest 99999 units 1..8 win rout all }
}
"#;

/// The compilation without the warning that an army has no unit for its side's objective
/// (`oc::scenario::unwinnable`): most arena armies have no Leader, Fleeing or Saboteur, and
/// the tests that fight in the arena do not play for its goal.
fn without_objective_warnings(mut c: oc_compiler::Compilation) -> oc_compiler::Compilation {
    c.diagnostics.retain(|d| !(d.code == "oc::scenario::unwinnable" && d.severity == oc_diag::Severity::Warning));
    c
}

/// Compiles the arena scenario with `armies` (DSL text) and returns the rules and the map.
pub fn setup(armies: &str) -> (Rules, BattleMap) {
    let mut files = HashMap::new();
    files.insert("arena.map.toml".to_string(), MAP.to_string());
    files.insert("arena.oc".to_string(), format!("{SCENARIO}\n{armies}"));
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut files.into_iter().collect::<MemoryHost>(), &["arena.oc".to_string()]);
    let c = without_objective_warnings(c);
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let rules = c.rules.unwrap();
    let (map, diags) = oc_atlas::parse(oc_diag::FileId(0), MAP);
    assert!(diags.is_empty(), "{diags:?}");
    let mut map = map.unwrap();
    map.resolve(&rules);
    (rules, map.battle_map())
}

pub fn battle<'e>(engine: &'e Engine, map: &BattleMap, deploy: [&[(i64, i64)]; 2]) -> Battle<'e> {
    battle_seeded(engine, map, deploy, 11)
}

pub fn wait(unit: usize) -> Turn {
    Turn { unit, ..Default::default() }
}

/// Plays waits for the side not `side` (its last unit able) until `side` is to act.
pub fn to_act(b: &mut Battle, side: SideId) {
    while b.to_act != side && b.outcome.is_none() {
        let k = *b.may_act(b.to_act).last().unwrap();
        b.turn(wait(k)).unwrap();
    }
}

pub fn special(unit: usize, to: Option<(i64, i64)>, verb: Verb, target: Option<usize>, tile: Option<(i64, i64)>) -> Turn {
    Turn { unit, to, act: Act::Special { verb, target, tile, from: None }, ..Default::default() }
}

/// Compiles `prelude` (say `import "std:v06"`), the arena scenario and `armies` on `map`
/// (the arena's regions and chest are the caller's to keep); returns the rules or the
/// diagnostics, and the map.
pub fn compile_on(map: &str, prelude: &str, armies: &str) -> (Result<Rules, Vec<Diagnostic>>, BattleMap) {
    let mut files = HashMap::new();
    files.insert("arena.map.toml".to_string(), map.to_string());
    files.insert("arena.oc".to_string(), format!("{prelude}\n{SCENARIO}\n{armies}"));
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut files.into_iter().collect::<MemoryHost>(), &["arena.oc".to_string()]);
    let c = without_objective_warnings(c);
    let (parsed, diags) = oc_atlas::parse(oc_diag::FileId(0), map);
    assert!(diags.is_empty(), "{diags:?}");
    let mut parsed = parsed.unwrap();
    let rules = match c.rules {
        Some(rules) if c.diagnostics.is_empty() => rules,
        _ => return (Err(c.diagnostics), parsed.battle_map()),
    };
    parsed.resolve(&rules);
    (Ok(rules), parsed.battle_map())
}

/// `setup` with a prelude (`import "std:v06"`) and a map of the caller's.
pub fn setup_on(map: &str, prelude: &str, armies: &str) -> (Rules, BattleMap) {
    let (rules, map) = compile_on(map, prelude, armies);
    (rules.unwrap_or_else(|d| panic!("{d:#?}")), map)
}

pub fn battle_seeded<'e>(engine: &'e Engine, map: &BattleMap, deploy: [&[(i64, i64)]; 2], seed: u64) -> Battle<'e> {
    let s = &engine.rules.scenarios[0];
    let a = engine.rules.armies.iter().find(|a| a.side == SideId::Attacker).unwrap();
    let d = engine.rules.armies.iter().find(|a| a.side == SideId::Defender).unwrap();
    Battle::new(engine, s, map, [a, d], deploy, seed).unwrap()
}

pub fn last_note(b: &Battle) -> String {
    b.log.iter().rev().find_map(|r| if let Record::Turn { note, .. } = r { Some(note.clone()) } else { None }).unwrap_or_default()
}

/// Units of the side to act other than `keep` wait until `side` has the activation (the
/// roll-offs of an initiative ruleset).
pub fn until_turn_of(b: &mut Battle, side: SideId, keep: &[usize]) {
    while b.to_act != side {
        let k = b.may_act(b.to_act).into_iter().find(|k| !keep.contains(k)).expect("a unit to wait");
        b.turn(wait(k)).unwrap();
    }
}

/// The notes of the turns and resolved declarations from record `from` on.
pub fn notes(b: &Battle, from: usize) -> Vec<String> {
    b.log[from..]
        .iter()
        .filter_map(|r| match r {
            Record::Turn { note, .. } | Record::Resolved { note, .. } => Some(note.clone()),
            _ => None,
        })
        .collect()
}

/// Unit `i` attacks `target` where it stands; a target whose answer the melee declaration allows
/// declines it. The strikes' notes, and each strike's roll with whether it hit.
pub fn strike(b: &mut Battle, i: usize, target: usize) -> (String, Vec<(i64, bool)>) {
    let from = b.log.len();
    b.turn(Turn { unit: i, act: Act::Attack { target }, ..Default::default() }).unwrap();
    if b.answering() == Some(target) {
        b.turn(Turn { unit: target, act: Act::Decline, ..Default::default() }).unwrap();
    }
    let note = notes(b, from).join(" | ");
    let rolls = note
        .split(", ")
        .filter_map(|s| {
            let mut w = s.rsplit(": ").next()?.split(' ');
            (w.next()? == "attack").then_some(())?;
            let roll: i64 = w.next()?.parse().ok()?;
            Some((roll, w.next().is_some_and(|x| x != "miss")))
        })
        .collect();
    (note, rolls)
}
