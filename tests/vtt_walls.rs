//! How the virtual tabletop exports draw a map (issue 42): Universal VTT walls as merged
//! polylines that the Universal Battlemap Importer turns into no zero-length wall (its joining
//! logic, `GetWalls` of `ddimport.js`, written out below, and the importer's own code run under
//! node where `OC_DDIMPORT_JS` names it); Foundry walls merged into runs, with
//! HP kept where a tile has its own; a grid below Foundry's minimum scaled until the scene fits
//! `GRID_MIN_SIZE`; doors that need a key locked; regions shown to players.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use oc_atlas::foundry::{scene, Version};
use oc_atlas::{ImageCheck, Map, Tile};
use oc_diag::FileId;
use oc_model::Rules;
use serde_json::Value;

#[path = "common/vtt_schema.rs"]
mod vtt_schema;
use vtt_schema::*;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn std_rules() -> Rules {
    oc_compiler::stdlib::default_rules().expect("the standard library compiles")
}

fn atlas() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(repo().join("scenarios/maps"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".map.toml"))
        .collect();
    v.sort();
    v
}

fn check(text: &str, rules: &Rules) -> Map {
    let (map, diags) = oc_atlas::check(FileId(0), text, rules, |_| ImageCheck::NotChecked);
    assert!(diags.iter().all(|d| !d.is_error()), "{diags:?}");
    map.unwrap()
}

fn load(path: &Path, rules: &Rules) -> Map {
    check(&std::fs::read_to_string(path).unwrap(), rules)
}

type P = (f64, f64);

/// The walls the Universal Battlemap Importer makes of a file's `line_of_sight` (its `GetWalls`
/// at offset 0, whose only other step drops points closer than 0.3 squares, of which oc writes
/// none): each polyline's segments, plus a joining wall from a polyline's last point to every
/// other polyline's first point that equals it, and from every other polyline's last point
/// equal to its first — walls of zero length wherever one polyline ends where another starts.
fn importer_walls(line_of_sight: &[Vec<P>]) -> Vec<(P, P)> {
    let mut walls = Vec::new();
    for (i, set) in line_of_sight.iter().enumerate() {
        let (Some(first), Some(last)) = (set.first(), set.last()) else { continue };
        let mut connect_to = Vec::new();
        let mut connected_to = Vec::new();
        for (j, other) in line_of_sight.iter().enumerate() {
            if i == j {
                continue;
            }
            if other.first() == Some(last) {
                connect_to.push(*other.first().unwrap());
            }
            if other.last() == Some(first) {
                connected_to.push(*first);
            }
        }
        for p in connected_to {
            walls.push((p, *first));
        }
        for w in set.windows(2) {
            walls.push((w[0], w[1]));
        }
        for p in connect_to {
            walls.push((*last, p));
        }
    }
    walls
}

fn polylines(map: &Map, rules: &Rules) -> Vec<Vec<P>> {
    let file = serde_json::to_value(oc_atlas::uvtt::uvtt(map, rules, b"png")).unwrap();
    file["line_of_sight"]
        .as_array()
        .unwrap()
        .iter()
        .map(|line| line.as_array().unwrap().iter().map(|p| (p["x"].as_f64().unwrap(), p["y"].as_f64().unwrap())).collect())
        .collect()
}

#[test]
fn universal_vtt_walls_are_merged_polylines_that_import_with_no_zero_length_wall() {
    let rules = std_rules();
    for path in atlas() {
        let map = load(&path, &rules);
        let lines = polylines(&map, &rules);
        let walls = importer_walls(&lines);
        let zero = walls.iter().filter(|(a, b)| a == b).count();
        assert_eq!(zero, 0, "{}: {zero} zero-length walls of {}", map.name, walls.len());
        // No point holds the ends of two polylines (they would have been one), and a polyline
        // goes straight through no point it turns at: runs are merged.
        let mut ends: BTreeMap<(i64, i64), usize> = BTreeMap::new();
        for line in &lines {
            assert!(line.len() >= 2, "{}: {line:?}", map.name);
            let closed = line.first() == line.last();
            for p in [line.first(), line.last()].into_iter().flatten().take(if closed { 0 } else { 2 }) {
                *ends.entry(((p.0 * 2.0) as i64, (p.1 * 2.0) as i64)).or_default() += 1;
            }
            for w in line.windows(3) {
                let straight = (w[0].0 == w[1].0 && w[1].0 == w[2].0) || (w[0].1 == w[1].1 && w[1].1 == w[2].1);
                assert!(!straight, "{}: a point in a straight run: {w:?}", map.name);
            }
        }
        assert!(ends.values().all(|n| *n == 1), "{}: polylines that could be one: {ends:?}", map.name);
    }
    // Grado Keep, which imported as 380 walls, 240 of zero length, when each wall side was a
    // polyline of its own.
    let keep = load(&repo().join("scenarios/maps/grado-keep.map.toml"), &rules);
    let walls = importer_walls(&polylines(&keep, &rules));
    assert!(walls.len() < 100, "{} walls", walls.len());
}

/// Runs the Universal Battlemap Importer's own `DDImporter.GetWalls` (its `ddimport.js`, which
/// oc does not ship: named by `OC_DDIMPORT_JS`) under node on `file`, with Foundry's globals
/// stubbed: the walls it makes, as `[x0, y0, x1, y1]` in pixels.
const DDIMPORT_HARNESS: &str = r#"
const fs = require('fs');
globalThis.Hooks = { on() {}, once() {} };
globalThis.foundry = { applications: { api: { HandlebarsApplicationMixin: (c) => c, ApplicationV2: class {} } } };
globalThis.FormApplication = class {};
globalThis.WallDocument = class { constructor(d) { this.c = d.c; } toObject() { return this; } };
globalThis.game = { settings: { get() { return false; }, register() {} } };
(0, eval)(fs.readFileSync(process.argv[2], 'utf8') + '\n;globalThis.DDImporter = DDImporter;');
const file = JSON.parse(fs.readFileSync(process.argv[3], 'utf8'));
const scene = { getDimensions() { return { sceneX: 0, sceneY: 0 }; } };
const ppg = file.resolution.pixels_per_grid;
// The importer's default fidelity (3) and no offset.
const walls = DDImporter.GetWalls(file, scene, 6 - 3, 0, ppg);
console.log(JSON.stringify(walls.map(w => w.c)));
"#;

/// The importer's own code, where it is on this machine: every Atlas export imports with no
/// zero-length wall, and as many walls as `importer_walls` (its logic written out) counts.
#[test]
fn the_universal_battlemap_importer_itself_makes_no_zero_length_wall() {
    let Some(js) = std::env::var_os("OC_DDIMPORT_JS").map(PathBuf::from) else {
        eprintln!("skipped: OC_DDIMPORT_JS does not name the importer's ddimport.js (github.com/moo-man/FVTT-DD-Import)");
        return;
    };
    if std::process::Command::new("node").arg("--version").output().is_err() {
        eprintln!("skipped: node is not installed");
        return;
    }
    let rules = std_rules();
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-ddimport-{}", std::process::id())));
    let harness = dir.join("harness.js");
    std::fs::write(&harness, DDIMPORT_HARNESS).unwrap();
    for path in atlas() {
        let map = load(&path, &rules);
        let file = serde_json::to_string(&oc_atlas::uvtt::uvtt(&map, &rules, b"png")).unwrap();
        let uvtt = dir.join("map.uvtt");
        std::fs::write(&uvtt, file).unwrap();
        let run = std::process::Command::new("node").arg(&harness).arg(&js).arg(&uvtt).output().unwrap();
        assert!(run.status.success(), "{}", String::from_utf8_lossy(&run.stderr));
        let walls: Vec<[f64; 4]> = serde_json::from_slice(&run.stdout).unwrap();
        let zero = walls.iter().filter(|c| c[0] == c[2] && c[1] == c[3]).count();
        eprintln!("{}: {} walls, {zero} of zero length", map.name, walls.len());
        assert_eq!(zero, 0, "{}", map.name);
        assert_eq!(walls.len(), importer_walls(&polylines(&map, &rules)).len(), "{}", map.name);
    }
}

#[test]
fn foundry_walls_are_merged_into_runs_that_keep_a_tiles_own_hp() {
    let rules = std_rules();
    for path in atlas() {
        let map = load(&path, &rules);
        let scene = serde_json::to_value(scene(&map, &rules, Version::V12, None)).unwrap();
        let walls: Vec<&Value> = scene["walls"].as_array().unwrap().iter().filter(|w| w["door"] == 0).collect();
        // Two walls on one grid line that touch end to start, both plain or both sides of tiles
        // with their terrain's HP, would have been one run.
        let key = |w: &Value| -> Option<Option<i64>> {
            match w["flags"].get("oc") {
                None => Some(None),
                Some(oc) if oc.get("own_hp").is_none() => Some(oc["hp"].as_i64()),
                Some(_) => None,
            }
        };
        let c = |w: &Value| -> Vec<i64> { w["c"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect() };
        for a in &walls {
            for b in &walls {
                let (ca, cb) = (c(a), c(b));
                let collinear =
                    (ca[1] == ca[3] && cb[1] == cb[3] && ca[1] == cb[1]) || (ca[0] == ca[2] && cb[0] == cb[2] && ca[0] == cb[0]);
                if collinear && (ca[2], ca[3]) == (cb[0], cb[1]) && key(a).is_some() && key(a) == key(b) {
                    panic!("{}: {a} and {b} are one run", map.name);
                }
            }
        }
        // A tile with HP of its own: each of its sides a wall carrying that HP, that tile only.
        for d in map.destructibles.iter().filter(|d| d.hp.is_some()) {
            let own: Vec<&&Value> =
                walls.iter().filter(|w| w["flags"]["oc"]["tiles"] == serde_json::json!([[d.at.x, d.at.y]])).collect();
            assert!(!own.is_empty(), "{}: {:?}", map.name, d.at);
            for w in own {
                assert_eq!((w["flags"]["oc"]["hp"].as_i64(), &w["flags"]["oc"]["own_hp"]), (d.hp, &Value::Bool(true)), "{w}");
            }
        }
    }
    // Grado Keep, 142 walls when each side of its Wall tiles (30 HP each) was its own.
    let keep = load(&repo().join("scenarios/maps/grado-keep.map.toml"), &rules);
    let scene = serde_json::to_value(scene(&keep, &rules, Version::V12, None)).unwrap();
    let walls = scene["walls"].as_array().unwrap().len();
    eprintln!("Grado Keep: {walls} Foundry walls");
    assert!(walls < 80, "{walls} walls");
}

#[test]
fn doors_that_need_a_key_are_locked_and_regions_are_shown_to_players() {
    let rules = std_rules();
    let mut locked = 0;
    for path in atlas() {
        let map = load(&path, &rules);
        for version in [Version::V11, Version::V12] {
            let scene = serde_json::to_value(scene(&map, &rules, version, None)).unwrap();
            for w in scene["walls"].as_array().unwrap().iter().filter(|w| w["door"] == 1) {
                let tile = &w["flags"]["oc"]["tile"];
                let t = Tile { x: tile[0].as_i64().unwrap(), y: tile[1].as_i64().unwrap() };
                let opened_by = &rules.terrain(map.terrain(t).unwrap()).unwrap().opened_by;
                assert!(!opened_by.is_empty());
                // `CONST.WALL_DOOR_STATES.LOCKED`, and what unlocks it.
                assert_eq!(w["ds"], 2, "{}: {w}", map.name);
                assert_eq!(w["flags"]["oc"]["opened_by"], serde_json::json!(opened_by), "{w}");
                locked += 1;
            }
            if version == Version::V12 {
                // `CONST.REGION_VISIBILITY.ALWAYS`: deployment zones and objectives for all to see.
                for r in scene["regions"].as_array().unwrap() {
                    assert_eq!(r["visibility"], 2, "{}: {}", map.name, r["name"]);
                }
            } else {
                assert!(scene["drawings"].as_array().unwrap().iter().all(|d| d["hidden"] == false));
            }
        }
    }
    assert!(locked > 0, "the Atlas has doors");
}

#[test]
fn a_grid_below_foundrys_minimum_is_scaled_until_the_scene_fits() {
    let rules = std_rules();
    let text = std::fs::read_to_string(repo().join("scenarios/maps/grado-keep.map.toml")).unwrap();
    for grid in [8u32, 16, 25, 40, 49, 50, 70] {
        let map = check(&text.replace("grid = 70", &format!("grid = {grid}")), &rules);
        for (version, schema, min) in [(Version::V11, SCENE_V11, 50), (Version::V12, SCENE_V12, 20)] {
            let scene = serde_json::to_value(scene(&map, &rules, version, Some("oc-maps/keep.png".into()))).unwrap();
            let mut errors = Vec::new();
            validate("scene", &scene, T::Obj(schema), &mut errors);
            assert!(errors.is_empty(), "grid {grid} ({version:?}):\n{}", errors.join("\n"));
            let size = scene["grid"]["size"].as_i64().unwrap();
            let factor = (min + i64::from(grid) - 1) / i64::from(grid);
            let factor = factor.max(1);
            assert_eq!(size, i64::from(grid) * factor, "grid {grid} ({version:?})");
            assert_eq!(scene["flags"]["oc"].get("scale").and_then(Value::as_i64), (factor > 1).then_some(factor));
            // Everything scaled alike: the scene, the walls, the notes.
            assert_eq!((scene["width"].as_i64(), scene["height"].as_i64()), (Some(20 * size), Some(12 * size)));
            let door = scene["walls"]
                .as_array()
                .unwrap()
                .iter()
                .find(|w| w["flags"]["oc"]["tile"] == serde_json::json!([5, 2]))
                .unwrap();
            assert_eq!(door["c"], serde_json::json!([5 * size + size / 2, 2 * size, 5 * size + size / 2, 3 * size]));
            let chest = &map.chests[0];
            let note = &scene["notes"][0];
            assert_eq!(note["x"].as_i64(), Some(chest.at.x * size + size / 2));
            let covered: BTreeSet<i64> = scene["walls"]
                .as_array()
                .unwrap()
                .iter()
                .flat_map(|w| w["c"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect::<Vec<_>>())
                .collect();
            assert!(covered.iter().all(|v| *v <= 20 * size), "{covered:?}");
        }
    }
}
