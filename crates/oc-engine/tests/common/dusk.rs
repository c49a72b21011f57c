//! The 10x3 `Dusk` field of the fog tests (`fog.rs`, `ai_planner.rs`): its map text, and the
//! rules of one `.oc` text written on it compiled with the map resolved against them.
#![allow(dead_code)]

use std::collections::HashMap;

use oc_compiler::{MemoryHost, Workspace};
use oc_model::{BattleMap, Rules};

/// Three rows of ten plain tiles; the attacker deploys in the two west columns, the defender in
/// the eight east ones. The `.oc` text names it `"dusk.map.toml"`.
pub const MAP: &str = r#"name = "Dusk"
width = 10
height = 3
rows = [
  "..........",
  "..........",
  "..........",
]
[[regions]]
name = "attacker-zone"
kind = "deployment"
side = "attacker"
rect = [0, 0, 2, 3]
[[regions]]
name = "defender-zone"
kind = "deployment"
side = "defender"
rect = [2, 0, 8, 3]
"#;

/// `oc` (scenarios and armies on the Dusk map) compiled clean, and the map.
pub fn compile(oc: &str) -> (Rules, BattleMap) {
    let mut files = HashMap::new();
    files.insert("dusk.map.toml".to_string(), MAP.to_string());
    files.insert("dusk.oc".to_string(), oc.to_string());
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut files.into_iter().collect::<MemoryHost>(), &["dusk.oc".to_string()]);
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let rules = c.rules.unwrap();
    let (map, diags) = oc_atlas::parse(oc_diag::FileId(0), MAP);
    assert!(diags.is_empty(), "{diags:?}");
    let mut map = map.unwrap();
    map.resolve(&rules);
    (rules, map.battle_map())
}
