//! The Magvel Atlas: lint fixtures (one per code, with its line and column), the shipped maps
//! (lint-clean, big enough, every Terrain Table terrain somewhere, each rendered), a pixel check
//! of a render, and the Tiled / palette-image conversions (Foundry and Universal VTT: `tests/vtt.rs`).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use oc_atlas::{ImageCheck, Map, Tile};
use oc_diag::{line_col, FileId};
use oc_model::Rules;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn std_rules() -> Rules {
    oc_compiler::stdlib::default_rules().expect("the standard library compiles")
}

fn image_check(dir: &Path, map: &Map) -> ImageCheck {
    let Some((rel, _)) = &map.image else { return ImageCheck::NotChecked };
    match std::fs::read(dir.join(rel)) {
        Ok(bytes) => match oc_atlas::export::png_size(&bytes) {
            Ok((w, h)) => ImageCheck::Size(w, h),
            Err(e) => ImageCheck::Unreadable(format!("not a PNG ({e})")),
        },
        Err(_) => ImageCheck::Unreadable("no such file".into()),
    }
}

/// `severity code line:column message` for each diagnostic of a map file.
fn lint_lines(path: &Path, rules: &Rules) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    let dir = path.parent().unwrap();
    let (_, diags) = oc_atlas::check(FileId(0), &text, rules, |m| image_check(dir, m));
    let mut out = String::new();
    for d in &diags {
        let (line, col) = line_col(&text, d.span.start as usize);
        let severity = if d.is_error() { "error" } else { "warning" };
        assert!(!d.help.is_empty(), "{}: no help line: {d:?}", path.display());
        out.push_str(&format!("{severity} {} {line}:{col} {}\n", d.code, d.message));
    }
    out
}

fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.to_string_lossy().ends_with(suffix)).collect();
    v.sort();
    v
}

#[test]
fn lint_fixtures_match_their_expectations() {
    let rules = std_rules();
    let dir = repo().join("tests/fixtures/atlas");
    let mut expectations = oc_testkit::Expectations::new();
    let mut firsts = std::collections::BTreeMap::new();
    for path in files(&dir, ".map.toml") {
        let actual = lint_lines(&path, &rules);
        expectations.check(&PathBuf::from(path.to_string_lossy().replace(".map.toml", ".expected")), &actual);
        let stem = path.file_name().unwrap().to_string_lossy().replace(".map.toml", "");
        if stem.starts_with("clean_") {
            assert_eq!(actual, "", "{stem} should lint clean");
        } else {
            // A fixture named after a code reports that code first.
            let code = format!("oc::atlas::{stem}");
            let first = actual.lines().next().unwrap_or_default().to_string();
            assert!(first.split(' ').nth(1) == Some(code.as_str()), "{stem}: first diagnostic is `{first}`");
            firsts.insert(code, first);
        }
    }
    expectations.finish("fixture(s)");
    let missing: Vec<&str> =
        oc_atlas::CODES.iter().filter(|c| !c.retired()).map(|c| c.code).filter(|c| !firsts.contains_key(*c)).collect();
    assert!(missing.is_empty(), "atlas codes without a fixture: {missing:?}");
    assert!(oc_atlas::CODES.len() >= 20);
    // Where the important ones point: code, line and column of the offending symbol or value.
    for (code, at) in [
        ("oc::atlas::ragged_row", "6:9"),          // the sixth symbol of row 1, one past the width
        ("oc::atlas::unknown_symbol", "6:6"),      // the `?` in `"..?.."`
        ("oc::atlas::unknown_terrain", "12:7"),    // `"Montain"`
        ("oc::atlas::unused_legend", "13:1"),      // the key `"k"`
        ("oc::atlas::out_of_bounds", "12:6"),      // `[5, 1]`
        ("oc::atlas::region_impassable", "15:18"), // the second tile, `[1, 1]`, on Sea
        ("oc::atlas::zones_overlap", "21:18"),     // the shared `[0, 1]`
        ("oc::atlas::objective_far", "19:8"),      // the region's name
        ("oc::atlas::image_size", "4:9"),
        ("oc::atlas::toml", "1:8"), // the opening quote of a string the line ends inside
    ] {
        let first = &firsts[code];
        assert_eq!(first.split(' ').nth(2), Some(at), "{first}");
    }
    assert!(firsts["oc::atlas::objective_far"].contains("need 2 rounds"), "{}", firsts["oc::atlas::objective_far"]);
    assert!(firsts["oc::atlas::unused_legend"].starts_with("warning "));
    assert!(firsts["oc::atlas::objective_movement"].starts_with("warning "));
    assert!(firsts["oc::atlas::ragged_row"].starts_with("error "));
}

fn shipped() -> Vec<PathBuf> {
    files(&repo().join("scenarios/maps"), ".map.toml")
}

fn load(path: &Path, rules: &Rules) -> Map {
    let text = std::fs::read_to_string(path).unwrap();
    let (map, diags) = oc_atlas::check(FileId(0), &text, rules, |m| image_check(path.parent().unwrap(), m));
    assert!(diags.is_empty(), "{}: {diags:?}", path.display());
    map.unwrap()
}

#[test]
fn the_magvel_atlas_is_clean_and_covers_the_terrain_table() {
    let rules = std_rules();
    let maps = shipped();
    assert!(maps.len() >= 12, "{} maps", maps.len());
    let mut used = BTreeSet::new();
    let mut names = BTreeSet::new();
    for path in &maps {
        let map = load(path, &rules);
        assert!(map.width >= 15 && map.height >= 10, "{}: {}x{}", map.name, map.width, map.height);
        assert!(map
            .regions
            .iter()
            .any(|r| r.kind == oc_atlas::RegionKind::Deployment && r.side == Some(oc_atlas::Side::Attacker)));
        assert!(map
            .regions
            .iter()
            .any(|r| r.kind == oc_atlas::RegionKind::Deployment && r.side == Some(oc_atlas::Side::Defender)));
        used.extend(map.tiles().filter_map(|t| map.terrain(t).map(str::to_string)));
        names.insert(map.name.clone());
        // Each map renders, at one grid square per tile above the legend strip.
        let img = oc_atlas::render::render(&map, &rules).unwrap();
        assert_eq!(img.width(), map.width as u32 * map.grid);
        assert!(img.height() > map.height as u32 * map.grid);
        let png = oc_atlas::render::png(&img).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }
    // The seed's Terrain Table: 13 rows, Sea/Lake being two terrains here.
    for terrain in [
        "Sea",
        "Lake",
        "River",
        "Mountain",
        "Desert",
        "Forest",
        "Pillars",
        "Snag",
        "Wall",
        "Door",
        "Fort",
        "CastleGate",
        "Throne",
    ] {
        assert!(used.contains(terrain), "no shipped map uses {terrain}");
    }
    for place in ["Border Mulan", "Ide", "Za'ha Woods", "Serafew", "Grado Keep", "Zaalbul Marsh", "Taizel", "Jehanna Hall"] {
        assert!(names.contains(place), "no map of {place}");
    }
}

#[test]
fn renders_are_deterministic_and_right_at_known_pixels() {
    let rules = std_rules();
    let map = load(&repo().join("scenarios/maps/border-mulan.map.toml"), &rules);
    let a = oc_atlas::render::png(&oc_atlas::render::render(&map, &rules).unwrap()).unwrap();
    let b = oc_atlas::render::png(&oc_atlas::render::render(&map, &rules).unwrap()).unwrap();
    assert_eq!(a, b, "two renders differ");
    let img = oc_atlas::export::decode_png(&a).unwrap();
    let px = |x: u32, y: u32| img.get_pixel(x, y).0;
    // Tile (5, 0) is Forest ("^^...f..."): its centre has Forest's colour, [38, 110, 48].
    assert_eq!(map.terrain(Tile { x: 5, y: 0 }), Some("Forest"));
    assert_eq!(px(5 * 70 + 35, 35), [38, 110, 48]);
    // Tile (0, 0) is Mountain, [128, 98, 68], away from its coordinate label.
    assert_eq!(px(50, 50), [128, 98, 68]);
    // The grid line between columns 0 and 1, at x = 70.
    assert_eq!(px(70, 35), [24, 24, 28]);
    assert_eq!(px(5 * 70, 20), [24, 24, 28]);
    // attacker-zone is rect [0, 5, 3, 4]: its top edge (y = 350..353) is attacker blue.
    assert_eq!(px(100, 351), oc_atlas::render::ATTACKER_COLOUR);
    assert_eq!(px(100, 5 * 70 + 20), [144, 190, 96], "inside the zone, Plains again");
    // The seize tile (14, 2) is outlined in gold, on top of the defender zone it lies in.
    assert_eq!(px(14 * 70 + 35, 2 * 70 + 1), [255, 200, 0]);
    // The legend strip starts under the map.
    assert_eq!(px(1, 12 * 70 + 2), [245, 242, 232]);
}

#[test]
fn tiled_export_is_a_complete_tmx() {
    let rules = std_rules();
    let map = load(&repo().join("scenarios/maps/jehanna-hall.map.toml"), &rules);
    let (tmx, tileset) = oc_atlas::export::tiled(&map, "jehanna-terrain.png");
    assert!(tmx.starts_with("<?xml"));
    assert!(tmx.contains(r#"width="20" height="11" tilewidth="70" tileheight="70""#), "{tmx}");
    let used: BTreeSet<&str> = map.tiles().filter_map(|t| map.terrain(t)).collect();
    assert_eq!(tileset.width(), used.len() as u32 * 70);
    let data = tmx.split("<data encoding=\"csv\">").nth(1).unwrap().split("</data>").next().unwrap();
    let gids: Vec<usize> = data.split(',').map(|s| s.trim().parse().unwrap()).collect();
    assert_eq!(gids.len(), 20 * 11);
    assert!(gids.iter().all(|g| (1..=used.len()).contains(g)));
    assert_eq!(tmx.matches("<object ").count(), map.regions.len() + map.chests.len() + map.doors.len());
    for tag in ["map", "tileset", "layer", "data", "objectgroup", "properties"] {
        let open = tmx.matches(&format!("<{tag}>")).count() + tmx.matches(&format!("<{tag} ")).count();
        let close = tmx.matches(&format!("</{tag}>")).count();
        assert_eq!(open, close, "<{tag}> is balanced");
    }
}

#[test]
fn a_palette_image_round_trips_into_the_same_terrain() {
    let rules = std_rules();
    let original = load(&repo().join("scenarios/maps/zaalbul-marsh.map.toml"), &rules);
    let mut img = image::RgbImage::new(original.width as u32, original.height as u32);
    for t in original.tiles() {
        img.put_pixel(t.x as u32, t.y as u32, oc_atlas::render::terrain_colour(original.terrain(t).unwrap()));
    }
    let text = oc_atlas::export::import_image(&img, &oc_atlas::export::default_palette(&rules), &rules, "Marsh copy").unwrap();
    let (copy, diags) = oc_atlas::check(FileId(0), &text, &rules, |_| ImageCheck::NotChecked);
    assert!(diags.is_empty(), "{diags:?}\n{text}");
    let copy = copy.unwrap();
    assert_eq!(copy.name, "Marsh copy");
    for t in original.tiles() {
        assert_eq!(copy.terrain(t), original.terrain(t), "{t:?}");
    }
    // A colour the legend lacks is named with its first pixel.
    img.put_pixel(3, 2, image::Rgb([1, 2, 3]));
    let errors = oc_atlas::export::import_image(&img, &oc_atlas::export::default_palette(&rules), &rules, "x").unwrap_err();
    assert_eq!(errors, ["the colour #010203 (first at pixel 3,2; 1 pixel(s)) is not in the legend"]);
}

/// The map JSON Schema editors use is generated from the reader's types; the shipped copy is
/// current (`OC_BLESS=1` rewrites it), and every shipped map validates against it with a real
/// validator (Python's `jsonschema`, skipped with a note where it is not installed).
#[test]
fn the_map_schema_is_current_and_every_shipped_map_validates() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let path = root.join("schemas/map.schema.json");
    let schema = oc_atlas::json_schema();
    let mut expectations = oc_testkit::Expectations::new();
    expectations.check_with(&path, &schema, |_, _| "schemas/map.schema.json is stale: it is oc_atlas::json_schema()".to_string());
    expectations.finish("schema(s)");
    let mut maps: Vec<PathBuf> = std::fs::read_dir(root.join("scenarios/maps"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".map.toml"))
        .collect();
    maps.sort();
    assert!(maps.len() >= 12);
    let scratch = oc_testkit::Scratch::named("oc-schema", "bad");
    let bad = scratch.join("bad.map.toml");
    std::fs::write(
        &bad,
        "name = \"x\"\nwidth = 2\nheight = 1\nrows = [\"..\"]\ncolour = \"red\"\n[[regions]]\nname = \"z\"\nkind = \"camp\"\n",
    )
    .unwrap();
    let script = r#"
import json, sys, tomllib
import jsonschema
schema = json.load(open(sys.argv[1]))
bad = []
for path in sys.argv[2:]:
    with open(path, "rb") as f:
        errors = list(jsonschema.Draft202012Validator(schema).iter_errors(tomllib.load(f)))
    print(path, len(errors))
"#;
    let out = match std::process::Command::new("python3").arg("-c").arg(script).arg(&path).args(&maps).arg(&bad).output() {
        Ok(out) => out,
        Err(e) => return eprintln!("skipped: python3 is not installed ({e})"),
    };
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("No module named 'jsonschema'") || stderr.contains("No module named 'tomllib'") {
        return eprintln!("skipped: Python's jsonschema/tomllib is not installed: {stderr}");
    }
    assert!(out.status.success(), "{stderr}");
    let report = String::from_utf8_lossy(&out.stdout);
    for line in report.lines() {
        let (file, errors) = line.rsplit_once(' ').unwrap();
        if file == bad.to_string_lossy() {
            // An unknown key and a region kind that does not exist.
            assert_eq!(errors, "2", "{line}");
        } else {
            assert_eq!(errors, "0", "{file} does not validate against the map schema");
        }
    }
    assert_eq!(report.lines().count(), maps.len() + 1);
}

/// Issue 36: no rule in Rust. A home-brew ruleset whose movement types are its own (Walker and
/// Rider, no Foot, no Cavalry, movement 4) lints its maps by them, through `oc check` as a user
/// runs it: the map that works is clean, and each mistake of the other is named by the rules'
/// own types and movement.
#[test]
fn a_home_brew_ruleset_lints_its_maps_by_its_own_movement_types() {
    let dir = repo().join("tests/fixtures/homebrew-movement");
    let check = |map: &str| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_oc"))
            .args(["check", "--format", "json"])
            .arg(dir.join(map))
            .output()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        json["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| format!("{} {}:{} {}", d["code"].as_str().unwrap(), d["line"], d["column"], d["message"].as_str().unwrap()))
            .collect::<Vec<String>>()
    };
    assert_eq!(check("clean.map.toml"), Vec::<String>::new());
    assert_eq!(
        check("mistakes.map.toml"),
        [
            "oc::atlas::region_impassable 18:8 a tile of `attacker-zone` at [0, 0] is Pool, which Walker units cannot enter",
            "oc::atlas::objective_far 21:8 Walker units need 3 rounds to reach `goal`, but the map allows 2",
            "oc::atlas::objective_movement 21:8 Rider units of the attacker cannot reach the seize tiles of `goal`",
            "oc::atlas::chest_impassable 27:6 the chest at [5, 2] is on Pool, which no unit can enter",
        ]
    );
}
