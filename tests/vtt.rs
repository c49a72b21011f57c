//! Virtual tabletop exports of every Atlas map: Foundry VTT scenes checked field by field
//! against Foundry's `BaseScene` schema for v11 and v12 (written down in `common/vtt_schema.rs`
//! from Foundry's published data models), and Universal VTT 0.3 files checked against the
//! format's fields, with the embedded picture decoded and compared with `oc render`'s. How the
//! walls are drawn (merged, locked doors, no zero-length wall) is `tests/vtt_walls.rs`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use oc_atlas::foundry::{asset_path, scene, Version, DEFAULT_ASSET_PREFIX};
use oc_atlas::{ImageCheck, Map, Tile};
use oc_diag::FileId;
use oc_model::Rules;
use serde_json::Value;

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
    assert!(v.len() >= 12, "{} Atlas maps", v.len());
    v
}

fn load(path: &Path, rules: &Rules) -> Map {
    let text = std::fs::read_to_string(path).unwrap();
    let (map, diags) = oc_atlas::check(FileId(0), &text, rules, |_| ImageCheck::NotChecked);
    assert!(diags.is_empty(), "{}: {diags:?}", path.display());
    map.unwrap()
}

fn oc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("oc runs")
}

fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-vtt-{}-{name}", std::process::id())));
    dir
}

#[path = "common/vtt_schema.rs"]
mod vtt_schema;
use vtt_schema::*;

fn scene_json(map: &Map, rules: &Rules, version: Version, src: &str) -> Value {
    serde_json::to_value(scene(map, rules, version, Some(src.to_string()))).unwrap()
}

/// The tiles of a map whose terrain opens (doors).
fn door_tiles(map: &Map, rules: &Rules) -> Vec<Tile> {
    map.tiles().filter(|t| map.terrain(*t).and_then(|n| rules.terrain(n)).is_some_and(|tr| !tr.opened_by.is_empty())).collect()
}

#[test]
fn every_atlas_scene_fits_foundrys_base_scene_for_v11_and_v12() {
    let rules = std_rules();
    // The validator itself refuses what it should.
    let mut errors = Vec::new();
    let wrong = serde_json::json!({"name": "", "width": 0, "grid": {"type": 7, "size": 10, "color": "red"}, "icon": "x", "walls": [{"c": [0, 1, 2]}]});
    validate("scene", &wrong, T::Obj(SCENE_V12), &mut errors);
    assert_eq!(errors.len(), 7, "{errors:#?}");

    let mut doors_seen = 0;
    let mut destructible_seen = 0;
    for path in atlas() {
        let map = load(&path, &rules);
        let src = asset_path(DEFAULT_ASSET_PREFIX, "map.png");
        for (version, schema) in [(Version::V11, SCENE_V11), (Version::V12, SCENE_V12)] {
            let scene = scene_json(&map, &rules, version, &src);
            let mut errors = Vec::new();
            validate("scene", &scene, T::Obj(schema), &mut errors);
            assert!(errors.is_empty(), "{} ({version:?}):\n{}", map.name, errors.join("\n"));
            // A usable import: the picture, a square grid of 70, the size in pixels.
            assert_eq!(scene["background"]["src"], "oc-maps/map.png");
            assert_eq!((scene["grid"]["type"].as_i64(), scene["grid"]["size"].as_i64()), (Some(1), Some(70)));
            assert_eq!((scene["width"].as_i64(), scene["height"].as_i64()), (Some(map.width * 70), Some(map.height * 70)));
            // Regions: v12 Regions, v11 Drawings labelled with the same names.
            let names: BTreeSet<&str> = map.regions.iter().map(|r| r.name.as_str()).collect();
            let (docs, key) = match version {
                Version::V12 => {
                    assert!(scene["drawings"].as_array().unwrap().is_empty());
                    (&scene["regions"], "name")
                }
                Version::V11 => {
                    assert!(scene.get("regions").is_none(), "v11 has no regions");
                    (&scene["drawings"], "text")
                }
            };
            let found: BTreeSet<&str> = docs.as_array().unwrap().iter().map(|d| d[key].as_str().unwrap()).collect();
            assert_eq!(found, names, "{} ({version:?})", map.name);
            // Every region tile is covered by exactly its shapes, and nothing else.
            for r in &map.regions {
                let tiles: BTreeSet<(i64, i64)> = r.tiles.iter().map(|(t, _)| (t.x, t.y)).collect();
                let mut covered = BTreeSet::new();
                for d in docs.as_array().unwrap().iter().filter(|d| d[key] == r.name.as_str()) {
                    let rects: Vec<(i64, i64, i64, i64)> = match version {
                        Version::V12 => d["shapes"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .map(|s| {
                                (
                                    s["x"].as_i64().unwrap(),
                                    s["y"].as_i64().unwrap(),
                                    s["width"].as_i64().unwrap(),
                                    s["height"].as_i64().unwrap(),
                                )
                            })
                            .collect(),
                        Version::V11 => vec![(
                            d["x"].as_i64().unwrap(),
                            d["y"].as_i64().unwrap(),
                            d["shape"]["width"].as_i64().unwrap(),
                            d["shape"]["height"].as_i64().unwrap(),
                        )],
                    };
                    for (x, y, w, h) in rects {
                        for ty in y / 70..(y + h) / 70 {
                            for tx in x / 70..(x + w) / 70 {
                                assert!(covered.insert((tx, ty)), "{}: ({tx}, {ty}) twice", r.name);
                            }
                        }
                    }
                }
                assert_eq!(covered, tiles, "{} of {}", r.name, map.name);
            }
            // Chest notes with v10+'s keys.
            let notes = scene["notes"].as_array().unwrap();
            assert_eq!(notes.len(), map.chests.len());
            for n in notes {
                assert_eq!(n["texture"]["src"], "icons/svg/chest.svg");
                assert!(n.get("icon").is_none());
                assert!(n["text"].as_str().unwrap().starts_with("Chest: "));
            }
            // One door wall per door, through the door's tile, from grid line to grid line.
            let walls = scene["walls"].as_array().unwrap();
            let door_walls: Vec<&Value> = walls.iter().filter(|w| w["door"] == 1).collect();
            let doors = door_tiles(&map, &rules);
            assert_eq!(door_walls.len(), doors.len(), "{}: {door_walls:?}", map.name);
            for t in &doors {
                let (cx, cy) = (t.x * 70 + 35, t.y * 70 + 35);
                let through = door_walls.iter().filter(|w| {
                    let c: Vec<i64> = w["c"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
                    (c[0] + c[2]) / 2 == cx && (c[1] + c[3]) / 2 == cy && ((c[0] - c[2]).abs() + (c[1] - c[3]).abs()) == 70
                });
                assert_eq!(through.count(), 1, "{}: door {t:?}", map.name);
            }
            doors_seen += doors.len();
            // Walls run along grid lines; the sides of tiles that can be struck down carry their HP.
            for w in walls.iter().filter(|w| w["door"] == 0) {
                let c: Vec<i64> = w["c"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
                assert!(c.iter().all(|v| v % 70 == 0) && (c[0] == c[2] || c[1] == c[3]), "{c:?}");
                if let Some(oc) = w["flags"].get("oc") {
                    assert_eq!(oc["destructible"], true);
                    for tile in oc["tiles"].as_array().unwrap() {
                        let (x, y) = (tile[0].as_i64().unwrap(), tile[1].as_i64().unwrap());
                        let hp = map
                            .destructibles
                            .iter()
                            .find(|d| d.at == Tile { x, y })
                            .and_then(|d| d.hp)
                            .or_else(|| rules.terrain(map.terrain(Tile { x, y }).unwrap()).unwrap().hp.map(i64::from));
                        assert_eq!(oc["hp"].as_i64(), hp, "{}: {w}", map.name);
                        destructible_seen += 1;
                    }
                }
            }
        }
    }
    assert!(doors_seen >= 4, "the Atlas has doors: {doors_seen}");
    assert!(destructible_seen > 0, "the Atlas has walls that can be struck down");
}

#[test]
fn a_door_in_a_wall_is_one_door_wall_across_the_way_through() {
    let rules = std_rules();
    let map = load(&repo().join("scenarios/maps/grado-keep.map.toml"), &rules);
    let scene = scene_json(&map, &rules, Version::V12, "x.png");
    let walls = scene["walls"].as_array().unwrap();
    // The door at (5, 2) is entered from (4, 2) and (6, 2): one upright door wall through its
    // middle, x = 5 * 70 + 35; its tile is closed above and below by the wall's edges.
    assert_eq!(map.terrain(Tile { x: 5, y: 2 }), Some("Door"));
    let doors: Vec<&Value> = walls.iter().filter(|w| w["flags"]["oc"]["tile"] == serde_json::json!([5, 2])).collect();
    assert_eq!(doors.len(), 1, "{doors:?}");
    assert_eq!(doors[0]["c"], serde_json::json!([385, 140, 385, 210]));
    assert_eq!(doors[0]["door"], 1);
    let covers = |x0: i64, y0: i64, x1: i64, y1: i64| {
        walls.iter().any(|w| {
            let c: Vec<i64> = w["c"].as_array().unwrap().iter().map(|v| v.as_i64().unwrap()).collect();
            c[1] == y0 && c[3] == y1 && c[0] <= x0 && c[2] >= x1
        })
    };
    assert!(covers(350, 140, 420, 140) && covers(350, 210, 420, 210), "the door's tile is walled above and below");
}

#[test]
fn export_foundry_writes_the_scene_and_its_background() {
    let dir = scratch("foundry");
    let json = dir.join("keep.json");
    let run = oc(&repo(), &["export", "foundry", "scenarios/maps/grado-keep.map.toml", "-o", json.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let scene: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(scene["background"]["src"], "oc-maps/keep-background.png");
    let background = oc_atlas::export::decode_png(&std::fs::read(dir.join("keep-background.png")).unwrap()).unwrap();
    assert_eq!(background.dimensions(), (20 * 70, 12 * 70));
    let render = dir.join("render.png");
    let run = oc(&repo(), &["render", "--no-legend", "scenarios/maps/grado-keep.map.toml", "-o", render.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let rendered = oc_atlas::export::decode_png(&std::fs::read(&render).unwrap()).unwrap();
    assert!(background == rendered, "the background is the rendered map");
    // v11 and another upload folder; an earlier export is replaced without --force.
    let run = oc(
        &repo(),
        &[
            "export",
            "foundry",
            "scenarios/maps/grado-keep.map.toml",
            "-o",
            json.to_str().unwrap(),
            "--foundry",
            "11",
            "--asset-prefix",
            "worlds/magvel/maps",
        ],
    );
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let scene: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(scene["background"]["src"], "worlds/magvel/maps/keep-background.png");
    assert!(scene.get("regions").is_none() && !scene["drawings"].as_array().unwrap().is_empty());
    let run = oc(&repo(), &["export", "foundry", "scenarios/maps/grado-keep.map.toml", "--foundry", "10"]);
    assert_eq!(run.status.code(), Some(2));
    // A picture someone painted is not replaced without --force.
    std::fs::write(dir.join("mine-background.png"), b"\x89PNG\r\n\x1a\nmine").unwrap();
    let mine = dir.join("mine.json");
    let run = oc(&repo(), &["export", "foundry", "scenarios/maps/grado-keep.map.toml", "-o", mine.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2), "{}", String::from_utf8_lossy(&run.stderr));
    assert!(!mine.exists());
    assert_eq!(std::fs::read(dir.join("mine-background.png")).unwrap(), b"\x89PNG\r\n\x1a\nmine");
}

#[test]
fn a_map_with_its_own_image_exports_that_image_as_the_background() {
    let dir = scratch("image");
    let json = dir.join("clean.json");
    let run = oc(&repo(), &["export", "foundry", "tests/fixtures/atlas/clean_image.map.toml", "-o", json.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let scene: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(scene["background"]["src"], "oc-maps/clean-background.png");
    let written = oc_atlas::export::decode_png(&std::fs::read(dir.join("clean-background.png")).unwrap()).unwrap();
    let painted =
        oc_atlas::export::decode_png(&std::fs::read(repo().join("tests/fixtures/atlas/right-size.png")).unwrap()).unwrap();
    assert!(written == painted, "the map's own picture, pixel for pixel");
    let uvtt = dir.join("clean.uvtt");
    let run = oc(&repo(), &["export", "uvtt", "tests/fixtures/atlas/clean_image.map.toml", "-o", uvtt.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let file: Value = serde_json::from_slice(&std::fs::read(&uvtt).unwrap()).unwrap();
    let embedded = oc_atlas::export::decode_png(&base64_decode(file["image"].as_str().unwrap())).unwrap();
    assert!(embedded == painted);
}

/// A map whose grid is below Foundry's smallest: the scene is scaled (`tests/vtt_walls.rs`
/// checks its fields) and so is its background, drawn at the scene's grid, and the user is
/// told; a map's own picture is enlarged pixel for pixel.
#[test]
fn a_scaled_scene_has_a_background_as_large_as_the_scene() {
    let dir = scratch("scaled");
    let keep = std::fs::read_to_string(repo().join("scenarios/maps/grado-keep.map.toml")).unwrap();
    std::fs::write(dir.join("keep.map.toml"), keep.replace("grid = 70", "grid = 16")).unwrap();
    for (version, size) in [("11", 64), ("12", 32)] {
        let json = dir.join(format!("keep{version}.json"));
        let run = oc(&dir, &["export", "foundry", "keep.map.toml", "-o", json.to_str().unwrap(), "--foundry", version]);
        let err = String::from_utf8_lossy(&run.stderr).into_owned();
        assert_eq!(run.status.code(), Some(0), "{err}");
        assert!(err.contains(&format!("scaled by {}, to a grid of {size} pixels", size / 16)), "{err}");
        let scene: Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        assert_eq!(scene["grid"]["size"].as_i64(), Some(size));
        let png = dir.join(format!("keep{version}-background.png"));
        let background = oc_atlas::export::decode_png(&std::fs::read(&png).unwrap()).unwrap();
        assert_eq!(background.dimensions(), (20 * size as u32, 12 * size as u32));
        // `oc render` at the same grid draws the same picture.
        let render = dir.join(format!("render{version}.png"));
        let scale = (size / 16).to_string();
        let run = oc(&dir, &["render", "--no-legend", "--scale", &scale, "keep.map.toml", "-o", render.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
        let rendered = oc_atlas::export::decode_png(&std::fs::read(&render).unwrap()).unwrap();
        assert!(background == rendered, "the background is the map drawn at the scene's grid");
    }
    // At Foundry's grid already: not scaled, nothing said.
    let run =
        oc(&repo(), &["export", "foundry", "scenarios/maps/grado-keep.map.toml", "-o", dir.join("plain.json").to_str().unwrap()]);
    let err = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.status.success() && !err.contains("below Foundry"), "{err}");
    // A map's own picture at grid 10, for Foundry 11 (smallest 50): five times as large, each
    // pixel a square of five.
    let mut own = image::RgbImage::new(20, 10);
    for (x, y, p) in own.enumerate_pixels_mut() {
        *p = image::Rgb([(x * 12) as u8, (y * 25) as u8, 90]);
    }
    own.save(dir.join("own.png")).unwrap();
    std::fs::write(
        dir.join("own.map.toml"),
        "name = \"Own\"\nwidth = 2\nheight = 1\ngrid = 10\nimage = \"own.png\"\nrows = [\"..\"]\n\n[legend]\n\".\" = \"Plains\"\n",
    )
    .unwrap();
    let run = oc(&dir, &["export", "foundry", "own.map.toml", "-o", "own.json", "--foundry", "11"]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let background = oc_atlas::export::decode_png(&std::fs::read(dir.join("own-background.png")).unwrap()).unwrap();
    assert_eq!(background.dimensions(), (100, 50));
    for (x, y, p) in background.enumerate_pixels() {
        assert_eq!(p, own.get_pixel(x / 5, y / 5), "({x}, {y})");
    }
}

/// Standard base64 decoding, written here so the test does not trust the exporter's encoder.
fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => u32::from(c - b'A'),
            b'a'..=b'z' => u32::from(c - b'a') + 26,
            b'0'..=b'9' => u32::from(c - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let bytes = text.as_bytes();
    assert_eq!(bytes.len() % 4, 0);
    let mut out = Vec::new();
    for chunk in bytes.chunks(4) {
        let pad = chunk.iter().filter(|c| **c == b'=').count();
        let n = chunk.iter().take(4 - pad).enumerate().fold(0u32, |n, (i, c)| n | value(*c) << (18 - 6 * i));
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8][..3 - pad]);
    }
    out
}

#[test]
fn every_atlas_map_exports_to_universal_vtt() {
    assert_eq!(base64_decode(&oc_atlas::uvtt::base64(b"Magvel!")), b"Magvel!");
    let rules = std_rules();
    for path in atlas() {
        let map = load(&path, &rules);
        let file = serde_json::to_value(oc_atlas::uvtt::uvtt(&map, &rules, b"not a picture")).unwrap();
        let mut errors = Vec::new();
        validate("uvtt", &file, T::Obj(UVTT), &mut errors);
        assert!(errors.is_empty(), "{}:\n{}", map.name, errors.join("\n"));
        assert_eq!(file["resolution"]["pixels_per_grid"], 70);
        assert_eq!(file["resolution"]["map_size"], serde_json::json!({"x": map.width as f64, "y": map.height as f64}));
        let doors = door_tiles(&map, &rules);
        let portals = file["portals"].as_array().unwrap();
        assert_eq!(portals.len(), doors.len(), "{}", map.name);
        for p in portals {
            // A portal stands in the middle of its door's tile, one square long.
            let (x, y) = (p["position"]["x"].as_f64().unwrap(), p["position"]["y"].as_f64().unwrap());
            assert!(doors.iter().any(|t| (t.x as f64 + 0.5, t.y as f64 + 0.5) == (x, y)), "{p}");
            let [a, b] = [&p["bounds"][0], &p["bounds"][1]];
            let len = (a["x"].as_f64().unwrap() - b["x"].as_f64().unwrap()).abs()
                + (a["y"].as_f64().unwrap() - b["y"].as_f64().unwrap()).abs();
            assert_eq!(len, 1.0);
        }
        // The same walls as the Foundry scene, side by side of a tile.
        let sides = |segments: Vec<[f64; 4]>| -> BTreeSet<(i64, i64, i64, i64)> {
            let mut out = BTreeSet::new();
            for [x0, y0, x1, y1] in segments {
                // (f64::signum of 0 is 1: compare as integers.)
                let (x0, y0, x1, y1) = (x0 as i64, y0 as i64, x1 as i64, y1 as i64);
                let (dx, dy) = ((x1 - x0).signum(), (y1 - y0).signum());
                let (mut x, mut y) = (x0, y0);
                while (x, y) != (x1, y1) {
                    let (nx, ny) = (x + dx, y + dy);
                    out.insert((x.min(nx), y.min(ny), x.max(nx), y.max(ny)));
                    (x, y) = (nx, ny);
                }
            }
            out
        };
        let foundry = scene_json(&map, &rules, Version::V12, "x.png");
        let walls: Vec<[f64; 4]> = foundry["walls"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|w| w["door"] == 0)
            .map(|w| {
                let c: Vec<f64> = w["c"].as_array().unwrap().iter().map(|v| v.as_f64().unwrap() / 70.0).collect();
                [c[0], c[1], c[2], c[3]]
            })
            .collect();
        let lines: Vec<[f64; 4]> = file["line_of_sight"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|line| {
                let points: Vec<(f64, f64)> =
                    line.as_array().unwrap().iter().map(|p| (p["x"].as_f64().unwrap(), p["y"].as_f64().unwrap())).collect();
                points.windows(2).map(|w| [w[0].0, w[0].1, w[1].0, w[1].1]).collect::<Vec<_>>()
            })
            .collect();
        assert_eq!(sides(lines), sides(walls), "{}: the same walls as the Foundry scene", map.name);
        assert_eq!(base64_decode(file["image"].as_str().unwrap()), b"not a picture");
    }
}

#[test]
fn export_uvtt_embeds_the_rendered_map() {
    let dir = scratch("uvtt");
    let out = dir.join("ide.uvtt");
    let run = oc(&repo(), &["export", "uvtt", "scenarios/maps/ide.map.toml", "-o", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let file: Value = serde_json::from_slice(&std::fs::read(&out).unwrap()).unwrap();
    let mut errors = Vec::new();
    validate("uvtt", &file, T::Obj(UVTT), &mut errors);
    assert!(errors.is_empty(), "{}", errors.join("\n"));
    let embedded = oc_atlas::export::decode_png(&base64_decode(file["image"].as_str().unwrap())).unwrap();
    let render = dir.join("ide.png");
    let run = oc(&repo(), &["render", "--no-legend", "scenarios/maps/ide.map.toml", "-o", render.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let rendered = oc_atlas::export::decode_png(&std::fs::read(&render).unwrap()).unwrap();
    assert_eq!(embedded.dimensions(), (20 * 70, 12 * 70));
    assert!(embedded == rendered, "the embedded picture is `oc render`'s map");
    // The full render has the same pixels above its legend strip.
    let full = dir.join("full.png");
    let run = oc(&repo(), &["render", "scenarios/maps/ide.map.toml", "-o", full.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0));
    let full = oc_atlas::export::decode_png(&std::fs::read(&full).unwrap()).unwrap();
    assert!(image::imageops::crop_imm(&full, 0, 0, 20 * 70, 12 * 70).to_image() == rendered);
    // Run again: an earlier export is replaced; a file oc did not write is not.
    let run = oc(&repo(), &["export", "uvtt", "scenarios/maps/ide.map.toml", "-o", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    std::fs::write(dir.join("other.uvtt"), "{\"format\": 0.3}").unwrap();
    let run = oc(&repo(), &["export", "uvtt", "scenarios/maps/ide.map.toml", "-o", dir.join("other.uvtt").to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
}
