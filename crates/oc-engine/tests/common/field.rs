//! The 10x5 field of the seed tests (`tests/seed_00N_*.rs`): its map text (rows, legend and
//! deployment zones given), a scenario on it under a ruleset, and the helpers that compile a
//! scenario with its armies on the field.
#![allow(dead_code)]

use oc_compiler::{MemoryHost, Workspace};
use oc_diag::Diagnostic;
use oc_engine::Engine;
use oc_model::{BattleMap, Rules};

/// Five rows of ten plain tiles.
pub const OPEN: [&str; 5] = [".........."; 5];

/// A deployment zone: its name and rect `[x, y, width, height]`.
pub type Zone<'a> = (&'a str, [i64; 4]);

/// Both sides may deploy anywhere.
pub const ANYWHERE: [Zone; 2] = [("attacker-zone", [0, 0, 10, 5]), ("defender-zone", [0, 0, 10, 5])];

/// The attacker deploys in the west half, the defender in the east half: the zones meet at
/// x = 4|5, the attacker's edge is x = 0 and the defender's x = 9.
pub const HALVES: [Zone; 2] = [("attacker-zone", [0, 0, 5, 5]), ("defender-zone", [5, 0, 5, 5])];

/// The text of the 10x5 map: its `rows`, the `legend`'s entries (TOML lines; empty for none) and
/// each side's deployment zone.
pub fn map(rows: [&str; 5], legend: &str, zones: [Zone; 2]) -> String {
    let mut text = String::from("name = \"Field\"\nwidth = 10\nheight = 5\nrows = [\n");
    for row in rows {
        text.push_str(&format!("  \"{row}\",\n"));
    }
    text.push_str("]\n");
    if !legend.is_empty() {
        text.push_str(&format!("[legend]\n{legend}\n"));
    }
    for ((name, [x, y, w, h]), side) in zones.into_iter().zip(["attacker", "defender"]) {
        text.push_str(&format!(
            "[[regions]]\nname = \"{name}\"\nkind = \"deployment\"\nside = \"{side}\"\nrect = [{x}, {y}, {w}, {h}]\n"
        ));
    }
    text
}

/// The text of the scenario `name` on the field (`field.map.toml`) under `import "{ruleset}"`:
/// `rounds` rounds then the defender wins, the `options` (say `advanced courage`; may be empty),
/// and each side's line (its zone, war chest, units and goal).
pub fn scenario(ruleset: &str, name: &str, rounds: u32, options: &str, sides: [&str; 2]) -> String {
    let [attacker, defender] = sides;
    format!(
        "import \"{ruleset}\"\nscenario {name} {{\n    map \"field.map.toml\"\n    rounds {rounds} then defender\n    {options}\n    \
         attacker {{ {attacker} }}\n    defender {{ {defender} }}\n}}\n"
    )
}

/// The scenario `Arena` of 9 rounds under `ruleset` with `options`: each side deploys in its
/// `attacker-zone` / `defender-zone` with a war chest of 99999 and 1 to 8 units, wins by the
/// rout of all its enemies, and takes `extra` (say `grant Champion to 2`; may be empty).
pub fn arena(ruleset: &str, options: &str, extra: &str) -> String {
    let [attacker, defender] =
        ["attacker", "defender"].map(|side| format!("zone \"{side}-zone\" war_chest 99999 units 1..8 win rout all {extra}"));
    scenario(ruleset, "Arena", 9, options, [&attacker, &defender])
}

/// Compiles `scenario` and `armies` (DSL text) with `map` as `field.map.toml`: the rules and the
/// resolved map, or the compiler's diagnostics.
pub fn compile(map: &str, scenario: &str, armies: &str) -> Result<(Rules, BattleMap), Vec<Diagnostic>> {
    let files = [("field.map.toml".to_string(), map.to_string()), ("field.oc".to_string(), format!("{scenario}\n{armies}"))];
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut files.into_iter().collect::<MemoryHost>(), &["field.oc".to_string()]);
    if !c.diagnostics.is_empty() {
        return Err(c.diagnostics);
    }
    let rules = c.rules.unwrap();
    let (parsed, diags) = oc_atlas::parse(oc_diag::FileId(0), map);
    assert!(diags.is_empty(), "{diags:?}");
    let mut parsed = parsed.unwrap();
    parsed.resolve(&rules);
    Ok((rules, parsed.battle_map()))
}

/// [`compile`], which must report nothing, into an engine and the map.
pub fn compiled(map: &str, scenario: &str, armies: &str) -> (Engine, BattleMap) {
    let (rules, map) = compile(map, scenario, armies).unwrap_or_else(|d| panic!("{d:#?}"));
    (Engine::new(rules).unwrap(), map)
}

/// The shipped Narube battle (`scenarios/battlestorm-narube.oc` on its map), its scenario text
/// `edit`ed first (say, to switch on an advanced rule): the engine and the battle map.
pub fn narube(edit: impl Fn(&str) -> String) -> (Engine, BattleMap) {
    let scenario = edit(include_str!("../../../../scenarios/battlestorm-narube.oc"));
    let map_text = include_str!("../../../../scenarios/maps/narube-river.map.toml");
    let files = [("maps/narube-river.map.toml".to_string(), map_text.to_string()), ("narube.oc".to_string(), scenario)];
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut files.into_iter().collect::<MemoryHost>(), &["narube.oc".to_string()]);
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let rules = c.rules.unwrap();
    let (map, _) = oc_atlas::parse(oc_diag::FileId(0), map_text);
    let mut map = map.unwrap();
    map.resolve(&rules);
    (Engine::new(rules).unwrap(), map.battle_map())
}

/// The first scenario's two armies, the attacker's first.
pub fn armies(engine: &Engine) -> [&oc_model::Army; 2] {
    let armies = [&engine.rules.armies[0], &engine.rules.armies[1]];
    if armies[0].side == oc_model::SideId::Attacker {
        armies
    } else {
        [armies[1], armies[0]]
    }
}
