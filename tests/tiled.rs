//! Tiled round trips: `oc export tiled` then `oc import tiled` gives back the same resolved map
//! for every Atlas map (and the clean lint fixtures, which use `image`, `allow` and region tile
//! lists); the real Tiled (Debian's `tiled`, installed when missing) re-saves each export and
//! the import reads Tiled's own file to the same map; `tests/fixtures/tiled/*.tmx` hold one
//! fixture per `oc::tiled::*` code with its `.expected` diagnostics (`OC_BLESS=1` rewrites them).

mod common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use oc_atlas::{ImageCheck, Map};
use oc_diag::{line_col, FileId};
use oc_model::Rules;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn std_rules() -> Rules {
    oc_compiler::stdlib::default_rules().expect("the standard library compiles")
}

fn files(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> =
        std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).filter(|p| p.to_string_lossy().ends_with(suffix)).collect();
    v.sort();
    v
}

fn check(text: &str, rules: &Rules) -> Map {
    let (map, diags) = oc_atlas::check(FileId(0), text, rules, |_| ImageCheck::NotChecked);
    let errors: Vec<_> = diags.iter().filter(|d| d.is_error()).collect();
    assert!(errors.is_empty(), "{errors:?}\n{text}");
    map.unwrap()
}

/// Everything a resolved map says, in a fixed order: two maps are the same map when these are
/// equal (spans, symbols and the order of a region's tiles aside).
fn resolved(map: &Map) -> String {
    let mut s = format!(
        "name {:?}\nsize {}x{} grid {}\nimage {:?}\nrounds {:?}\nrules {:?}\nallow {:?}\n",
        map.name,
        map.width,
        map.height,
        map.grid,
        map.image.as_ref().map(|i| &i.0),
        map.rounds,
        map.rules.as_ref().map(|r| &r.0),
        map.allow.iter().map(|a| &a.0).collect::<Vec<_>>()
    );
    for y in 0..map.height {
        let row: Vec<&str> = (0..map.width).map(|x| map.terrain(oc_atlas::Tile { x, y }).unwrap_or("?")).collect();
        s.push_str(&format!("row {y}: {}\n", row.join(" ")));
    }
    for r in &map.regions {
        let tiles: BTreeSet<(i64, i64)> = r.tiles.iter().map(|(t, _)| (t.x, t.y)).collect();
        s.push_str(&format!("region {:?} {:?} {:?} units {:?} {tiles:?}\n", r.name, r.kind, r.side, r.units));
    }
    for c in &map.chests {
        s.push_str(&format!("chest {:?} {}\n", c.at, c.item));
    }
    for (d, _) in &map.doors {
        s.push_str(&format!("door {d:?}\n"));
    }
    for d in &map.destructibles {
        s.push_str(&format!("destructible {:?} hp {:?}\n", d.at, d.hp));
    }
    s
}

fn round_trip_maps() -> Vec<PathBuf> {
    let mut maps = files(&repo().join("scenarios/maps"), ".map.toml");
    assert!(maps.len() >= 12, "{} Atlas maps", maps.len());
    maps.extend(
        files(&repo().join("tests/fixtures/atlas"), ".map.toml")
            .into_iter()
            .filter(|p| p.file_name().is_some_and(|n| n.to_string_lossy().starts_with("clean_"))),
    );
    maps
}

#[test]
fn export_then_import_gives_back_every_atlas_map() {
    let rules = std_rules();
    let mut with_things = 0;
    for path in round_trip_maps() {
        let original = check(&std::fs::read_to_string(&path).unwrap(), &rules);
        let (tmx, _) = oc_atlas::export::tiled(&original, "terrain.png");
        let (toml, diags) = oc_atlas::tiled::import(FileId(0), &tmx, "unused", Some(&rules));
        assert!(diags.is_empty(), "{}: {diags:?}", path.display());
        let copy = check(&toml.unwrap(), &rules);
        assert_eq!(resolved(&copy), resolved(&original), "{}", path.display());
        with_things += usize::from(!original.chests.is_empty() && !original.doors.is_empty());
    }
    assert!(with_things >= 1, "some map has chests and doors");
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn oc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(repo()).env("NO_COLOR", "1").output().expect("oc runs")
}

fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-tiled-{}-{name}", std::process::id())));
    dir
}

/// Debian's `tiled`, installed with apt-get when missing; `None` (and why) where it cannot be.
fn tiled() -> Result<(), String> {
    let works =
        || Command::new("tiled").arg("--version").env("QT_QPA_PLATFORM", "offscreen").output().is_ok_and(|o| o.status.success());
    common::apt_install(&["tiled"], works)
}

#[test]
fn tiled_opens_every_export_and_its_own_save_imports_to_the_same_map() {
    if let Err(why) = tiled() {
        eprintln!("skipped: the real Tiled is not available ({why})");
        return;
    }
    let rules = std_rules();
    let dir = scratch("real");
    // Qt wants its runtime folder private.
    let runtime = dir.join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    for path in round_trip_maps() {
        let original = check(&std::fs::read_to_string(&path).unwrap(), &rules);
        let stem = path.file_name().unwrap().to_string_lossy().replace(".map.toml", "");
        let ours = dir.join(format!("{stem}.tmx"));
        let run = oc(&["export", "tiled", path.to_str().unwrap(), "-o", ours.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
        // Tiled reads our file and writes its own (`--export-map`, the format by extension).
        let theirs = dir.join(format!("{stem}-saved-by-tiled.tmx"));
        let saved = Command::new("tiled")
            .args(["--export-map", ours.to_str().unwrap(), theirs.to_str().unwrap()])
            .env("QT_QPA_PLATFORM", "offscreen")
            .env("XDG_RUNTIME_DIR", &runtime)
            .output()
            .unwrap();
        assert!(saved.status.success(), "{stem}: tiled failed: {}", text(&saved.stderr));
        let complaints: Vec<String> = text(&saved.stderr).lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect();
        assert!(complaints.is_empty(), "{stem}: Tiled warned: {complaints:?}");
        let tmx = std::fs::read_to_string(&theirs).unwrap();
        assert!(!tmx.contains("written by oc"), "Tiled wrote the file itself");
        let new_map = dir.join(format!("{stem}.map.toml"));
        let run = oc(&["import", "tiled", theirs.to_str().unwrap(), "-o", new_map.to_str().unwrap()]);
        assert_eq!(run.status.code(), Some(0), "{stem}: {}", text(&run.stderr));
        let copy = check(&std::fs::read_to_string(&new_map).unwrap(), &rules);
        assert_eq!(resolved(&copy), resolved(&original), "{stem} through Tiled");
    }
}

#[test]
fn import_tiled_writes_a_new_map_and_replaces_one_only_with_force() {
    let dir = scratch("cli");
    let tmx = dir.join("keep.tmx");
    let run = oc(&["export", "tiled", "scenarios/maps/grado-keep.map.toml", "-o", tmx.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let out = dir.join("keep.map.toml");
    let run = oc(&["import", "tiled", tmx.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let first = std::fs::read_to_string(&out).unwrap();
    assert!(first.contains("name = \"Grado Keep\""), "{first}");
    // The map may have been edited since: not replaced without --force, replaced with it.
    let edited = format!("{first}# my edits\n");
    std::fs::write(&out, &edited).unwrap();
    let run = oc(&["import", "tiled", tmx.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    assert!(text(&run.stderr).contains("--force"), "{}", text(&run.stderr));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), edited);
    let run = oc(&["import", "tiled", tmx.to_str().unwrap(), "-o", out.to_str().unwrap(), "--force"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), first);
    // A map oc import tiled did not write (its first line is not the import's) is a source:
    // never replaced, not even with --force.
    std::fs::write(&out, "# my own map\n").unwrap();
    let run = oc(&["import", "tiled", tmx.to_str().unwrap(), "-o", out.to_str().unwrap(), "--force"]);
    assert_eq!(run.status.code(), Some(2), "{}", text(&run.stderr));
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "# my own map\n");
    // Only to a map definition's name, never over the TMX read.
    let run = oc(&["import", "tiled", tmx.to_str().unwrap(), "-o", dir.join("keep.toml").to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(2));
    assert!(!dir.join("keep.toml").exists());
    let run = oc(&["import", "tiled", tmx.to_str().unwrap(), "-o", tmx.to_str().unwrap(), "--force"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(std::fs::read_to_string(&tmx).unwrap().contains("<map "));
    // Errors point into the TMX and write nothing.
    let broken = repo().join("tests/fixtures/tiled/unknown_tile.tmx");
    let bad_out = dir.join("bad.map.toml");
    let run = oc(&["import", "tiled", broken.to_str().unwrap(), "-o", bad_out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(1));
    assert!(text(&run.stderr).contains("oc::tiled::unknown_tile"), "{}", text(&run.stderr));
    assert!(text(&run.stderr).contains("unknown_tile.tmx:9:3"), "{}", text(&run.stderr));
    assert!(!bad_out.exists());
    let explain = oc(&["explain", "oc::tiled::unknown_tile"]);
    assert_eq!(explain.status.code(), Some(0));
}

/// The tileset holds every terrain of the map's rules, the map's own first (their tiles keep
/// their numbers): a map edited in Tiled may be painted with a terrain it did not have (the
/// tileset held only those on the map).
#[test]
fn the_tileset_holds_every_terrain_of_the_rules() {
    let rules = std_rules();
    let dir = scratch("palette");
    let tmx_path = dir.join("ide.tmx");
    let run = oc(&["export", "tiled", "scenarios/maps/ide.map.toml", "-o", tmx_path.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let tmx = std::fs::read_to_string(&tmx_path).unwrap();
    let types: Vec<&str> =
        tmx.split("<tile id=\"").skip(1).filter_map(|t| t.split("type=\"").nth(1)?.split('"').next()).collect();
    for t in &rules.terrains {
        assert!(types.contains(&t.name.as_str()), "{} missing from the tileset: {types:?}", t.name);
    }
    let original = check(&std::fs::read_to_string(repo().join("scenarios/maps/ide.map.toml")).unwrap(), &rules);
    let on_map: std::collections::BTreeSet<&str> = original.tiles().filter_map(|t| original.terrain(t)).collect();
    assert!(types.iter().take(on_map.len()).all(|t| on_map.contains(t)), "the map's terrains first: {types:?}");
    // Paint the first square with a terrain the map does not have, by its tile number.
    let lake = types.iter().position(|t| *t == "Lake").expect("Lake in the tileset");
    assert!(!on_map.contains("Lake"), "the test needs a terrain the map does not use");
    let (head, data) = tmx.split_once("<data encoding=\"csv\">\n").unwrap();
    let comma = data.find(',').unwrap();
    let painted = format!("{head}<data encoding=\"csv\">\n{}{}", lake + 1, &data[comma..]);
    std::fs::write(&tmx_path, painted).unwrap();
    let out = dir.join("ide.map.toml");
    let run = oc(&["import", "tiled", tmx_path.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let copy = check(&std::fs::read_to_string(&out).unwrap(), &rules);
    assert_eq!(copy.terrain(oc_atlas::Tile { x: 0, y: 0 }), Some("Lake"));
    // A grid so large that a row of every terrain would pass the picture bounds: the map's own
    // terrains only, as before (it was refused).
    let big = "name = \"Big\"\nwidth = 3\nheight = 2\ngrid = 800\nrows = [\"...\", \"...\"]\n[legend]\n\".\" = \"Plains\"\n";
    std::fs::write(dir.join("big.map.toml"), big).unwrap();
    let run = oc(&["export", "tiled", dir.join("big.map.toml").to_str().unwrap(), "-o", dir.join("big.tmx").to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert!(std::fs::read_to_string(dir.join("big.tmx")).unwrap().contains("tilecount=\"1\""));
}

#[test]
fn tiled_fixtures_match_their_expectations() {
    let rules = std_rules();
    let dir = repo().join("tests/fixtures/tiled");
    let mut expectations = oc_testkit::Expectations::new();
    let mut firsts = BTreeSet::new();
    for path in files(&dir, ".tmx") {
        let source = std::fs::read_to_string(&path).unwrap();
        // Tileset files beside the fixtures are read (`terrain.tsx`); any other is missing.
        let mut read = |tsx: &str| -> Result<String, String> {
            let file = dir.join(tsx);
            match file.parent() == Some(dir.as_path()) {
                true => std::fs::read_to_string(file).map_err(|e| e.to_string()),
                false => Err("no such file".to_string()),
            }
        };
        let (toml, diags) = oc_atlas::tiled::import_with(FileId(0), &source, "fixture", Some(&rules), &mut read);
        let mut actual = String::new();
        for d in &diags {
            let (line, col) = line_col(&source, d.span.start as usize);
            let severity = if d.is_error() { "error" } else { "warning" };
            assert!(!d.help.is_empty(), "{}: no help: {d:?}", path.display());
            actual.push_str(&format!("{severity} {} {line}:{col} {}\n", d.code, d.message));
        }
        expectations.check(&path.with_extension("expected"), &actual);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let errors = diags.iter().any(|d| d.is_error());
        assert_eq!(toml.is_some(), !errors, "{stem}: a map exactly when nothing is an error");
        if let Some(toml) = toml {
            check(&toml, &rules);
        }
        if stem.starts_with("clean_") {
            assert_eq!(actual, "", "{stem} imports clean");
        } else {
            let code = format!("oc::tiled::{stem}");
            assert_eq!(actual.lines().next().and_then(|l| l.split(' ').nth(1)), Some(code.as_str()), "{stem}: first diagnostic");
            firsts.insert(code);
        }
    }
    expectations.finish("fixture(s)");
    let missing: Vec<&str> = oc_atlas::tiled::CODES.iter().map(|c| c.code).filter(|c| !firsts.contains(*c)).collect();
    assert!(missing.is_empty(), "tiled codes without a fixture: {missing:?}");
}

#[test]
fn a_map_saved_by_tiled_110_reads_whole() {
    let rules = std_rules();
    let source = std::fs::read_to_string(repo().join("tests/fixtures/tiled/clean_written_by_tiled.tmx")).unwrap();
    let (toml, diags) = oc_atlas::tiled::import(FileId(0), &source, "fixture", Some(&rules));
    assert!(diags.is_empty(), "{diags:?}");
    let map = check(&toml.unwrap(), &rules);
    assert_eq!(
        resolved(&map),
        "name \"Little Ford\"\nsize 3x2 grid 70\nimage None\nrounds Some(6)\nrules None\nallow []\n\
         row 0: Plains River Plains\nrow 1: Plains River Plains\n\
         region \"west\" Deployment Some(Attacker) units Some(2) {(0, 0), (0, 1)}\n\
         region \"east\" Deployment Some(Defender) units Some(2) {(2, 0), (2, 1)}\n\
         chest Tile { x: 2, y: 1 } Vulnerary\n"
    );
}

/// Issue 42: the exported tileset is `oc render`'s squares (colour, pattern, grid line), with
/// a terrain set to paint with; regions come in object layers of their outline colours.
#[test]
fn the_export_draws_as_oc_render_paints_with_terrains_and_colours_regions() {
    let rules = std_rules();
    let names: Vec<&str> = rules
        .terrains
        .iter()
        .map(|t| t.name.as_str())
        .filter(|n| oc_atlas::render::pattern(n, None) != oc_atlas::render::Pattern::Plain)
        .take(12)
        .collect();
    assert!(names.len() >= 8, "{names:?}");
    // One row of terrains, then a row of plains (the render's border line falls on the last).
    let symbols: Vec<char> = ('a'..='z').take(names.len()).collect();
    let legend: String = symbols.iter().zip(&names).map(|(c, n)| format!("{c} = \"{n}\"\n")).collect();
    let top: String = symbols.iter().collect::<String>() + "p";
    let map_text = format!(
        "name = \"Swatches\"\nwidth = {}\nheight = 2\ngrid = 70\nrows = [\"{top}\", \"{}\"]\n\n[legend]\n{legend}p = \"Plains\"\n",
        names.len() + 1,
        "p".repeat(names.len() + 1)
    );
    let map = check(&map_text, &rules);
    let (tmx, tileset) = oc_atlas::export::tiled(&map, "swatches.png");
    let opts = oc_atlas::render::Options { coords: false, legend: false, ..oc_atlas::render::Options::default() };
    let painted = oc_atlas::render::render_with(&map, &rules, &opts).unwrap();
    let doc = roxmltree::Document::parse(&tmx).unwrap();
    let tiles: Vec<(u32, String)> = doc
        .descendants()
        .filter(|n| n.has_tag_name("tile"))
        .map(|n| (n.attribute("id").unwrap().parse().unwrap(), n.attribute("type").unwrap().to_string()))
        .collect();
    for (x, name) in names.iter().enumerate() {
        let (id, _) = tiles.iter().find(|(_, t)| t == name).unwrap();
        // A terrain with HP (Snag, Wall) has `HP n` written low in each square of a render: the
        // tileset paints the terrain, so the squares agree above it.
        let height = if rules.terrain(name).and_then(|t| t.hp).is_some() { 48 } else { 70 };
        let ours = image::imageops::crop_imm(&tileset, id * 70, 0, 70, height).to_image();
        let theirs = image::imageops::crop_imm(&painted, x as u32 * 70, 0, 70, height).to_image();
        assert!(ours == theirs, "{name}: the tileset's square is not oc render's");
    }
    // The terrain set: a colour a terrain, each tile all of its colour.
    let wangset = doc.descendants().find(|n| n.has_tag_name("wangset")).expect("a terrain set");
    let colours: Vec<&str> =
        wangset.children().filter(|n| n.has_tag_name("wangcolor")).map(|n| n.attribute("name").unwrap()).collect();
    let mut expected: Vec<&str> = names.clone();
    expected.push("Plains");
    expected.sort();
    assert_eq!(colours, expected);
    for w in wangset.children().filter(|n| n.has_tag_name("wangtile")) {
        let id: usize = w.attribute("tileid").unwrap().parse().unwrap();
        let c = (id + 1).to_string();
        assert_eq!(w.attribute("wangid").unwrap(), [c.as_str(); 8].join(","));
    }
    // Regions in layers of their colours (Grado Keep has zones of both sides and a throne).
    let keep = check(&std::fs::read_to_string(repo().join("scenarios/maps/grado-keep.map.toml")).unwrap(), &rules);
    let (tmx, _) = oc_atlas::export::tiled(&keep, "keep.png");
    let doc = roxmltree::Document::parse(&tmx).unwrap();
    for r in &keep.regions {
        let object =
            doc.descendants().find(|n| n.has_tag_name("object") && n.attribute("name") == Some(r.name.as_str())).unwrap();
        let group = object.parent().unwrap();
        let c = oc_atlas::render::region_colour(r.kind, r.side);
        assert_eq!(group.attribute("color"), Some(format!("#{:02x}{:02x}{:02x}", c.0[0], c.0[1], c.0[2]).as_str()), "{}", r.name);
    }
}

/// A terrain tileset kept in a file of its own (`terrain.tsx`), and a map drawn on it the way
/// Tiled's users draw: an L-shaped deployment zone as a polygon, a seize region as an ellipse,
/// a chest as a point.
fn hand_drawn(dir: &Path) -> PathBuf {
    let mut picture = image::RgbImage::new(140, 70);
    for (x, _, p) in picture.enumerate_pixels_mut() {
        *p = if x < 70 { image::Rgb([144, 190, 96]) } else { image::Rgb([38, 110, 48]) };
    }
    picture.save(dir.join("terrain.png")).unwrap();
    std::fs::write(
        dir.join("terrain.tsx"),
        r#"<?xml version="1.0" encoding="UTF-8"?>
<tileset version="1.8" tiledversion="1.8.2" name="terrain" tilewidth="70" tileheight="70" tilecount="2" columns="2">
 <image source="terrain.png" width="140" height="70"/>
 <tile id="0" type="Plains"><properties><property name="terrain" value="Plains"/></properties></tile>
 <tile id="1" type="Forest"><properties><property name="terrain" value="Forest"/></properties></tile>
</tileset>
"#,
    )
    .unwrap();
    let tmx = dir.join("drawn.tmx");
    std::fs::write(
        &tmx,
        r#"<?xml version="1.0" encoding="UTF-8"?>
<map version="1.8" tiledversion="1.8.2" orientation="orthogonal" renderorder="right-down" width="5" height="4" tilewidth="70" tileheight="70" infinite="0" nextlayerid="3" nextobjectid="4">
 <properties>
  <property name="name" value="Hand Drawn"/>
 </properties>
 <tileset firstgid="1" source="terrain.tsx"/>
 <layer id="1" name="terrain" width="5" height="4">
  <data encoding="csv">
1,1,1,1,1,
1,2,2,1,1,
1,2,1,1,1,
1,1,1,1,1
</data>
 </layer>
 <objectgroup id="2" name="regions">
  <object id="1" name="camp" type="deployment" x="0" y="0">
   <properties>
    <property name="side" value="attacker"/>
   </properties>
   <polygon points="0,0 140,0 140,70 70,70 70,210 0,210"/>
  </object>
  <object id="2" name="grove" type="seize" x="210" y="70" width="140" height="140">
   <ellipse/>
  </object>
  <object id="3" name="" type="chest" x="315" y="35">
   <properties>
    <property name="item" value="Vulnerary"/>
   </properties>
   <point/>
  </object>
 </objectgroup>
</map>
"#,
    )
    .unwrap();
    tmx
}

/// What the hand-drawn map reads to, its tileset embedded or read from its file.
const HAND_DRAWN: &str = "name \"Hand Drawn\"\nsize 5x4 grid 70\nimage None\nrounds None\nrules None\nallow []\n\
     row 0: Plains Plains Plains Plains Plains\nrow 1: Plains Forest Forest Plains Plains\n\
     row 2: Plains Forest Plains Plains Plains\nrow 3: Plains Plains Plains Plains Plains\n\
     region \"camp\" Deployment Some(Attacker) units None {(0, 0), (0, 1), (0, 2), (1, 0)}\n\
     region \"grove\" Seize None units None {(3, 1), (3, 2), (4, 1), (4, 2)}\n\
     chest Tile { x: 4, y: 0 } Vulnerary\n";

/// Reads tileset files from `dir`, as `oc import tiled` does from the TMX's folder.
fn from(dir: &Path) -> impl FnMut(&str) -> Result<String, String> + '_ {
    move |source: &str| std::fs::read_to_string(dir.join(source)).map_err(|e| e.to_string())
}

#[test]
fn an_external_tileset_is_read_or_one_error_and_shapes_become_their_squares() {
    let rules = std_rules();
    let dir = scratch("drawn");
    let tmx = hand_drawn(&dir);
    let source = std::fs::read_to_string(&tmx).unwrap();
    // Given the TMX alone: one error for the tileset, not one a square.
    let (toml, diags) = oc_atlas::tiled::import(FileId(0), &source, "drawn", Some(&rules));
    assert!(toml.is_none());
    let codes: Vec<&str> = diags.iter().map(|d| d.code).collect();
    assert_eq!(codes, ["oc::tiled::tileset"], "one error for the tileset, not one a square: {diags:#?}");
    assert!(diags[0].help.contains("Embed Tileset"), "{}", diags[0].help);
    assert_eq!(&source[diags[0].span.start as usize..diags[0].span.end as usize], "terrain.tsx");
    // Given its file: the polygon is its L of squares, the ellipse the squares its centre
    // holds, the point its square.
    let (toml, diags) = oc_atlas::tiled::import_with(FileId(0), &source, "drawn", Some(&rules), &mut from(&dir));
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(resolved(&check(&toml.unwrap(), &rules)), HAND_DRAWN);
    // The same map with the tileset embedded reads the same.
    let tsx = std::fs::read_to_string(dir.join("terrain.tsx")).unwrap();
    let inner: String = tsx
        .lines()
        .filter(|l| !l.starts_with("<?xml") && !l.starts_with("<tileset") && !l.starts_with("</tileset"))
        .collect::<Vec<_>>()
        .join("\n");
    let embedded = source.replace(
        r#"<tileset firstgid="1" source="terrain.tsx"/>"#,
        &format!(
            r#"<tileset firstgid="1" name="terrain" tilewidth="70" tileheight="70" tilecount="2" columns="2">{inner}</tileset>"#
        ),
    );
    let (toml, diags) = oc_atlas::tiled::import(FileId(0), &embedded, "drawn", Some(&rules));
    assert!(diags.is_empty(), "{diags:#?}");
    assert_eq!(resolved(&check(&toml.unwrap(), &rules)), HAND_DRAWN);
    // A tile of the file naming no terrain of the rules: one error, at the map's `source`,
    // naming the file and the tile.
    std::fs::write(dir.join("terrain.tsx"), tsx.replace("value=\"Forest\"", "value=\"Forrest\"")).unwrap();
    let (toml, diags) = oc_atlas::tiled::import_with(FileId(0), &source, "drawn", Some(&rules), &mut from(&dir));
    assert!(toml.is_none());
    assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), ["oc::tiled::unknown_terrain"], "{diags:#?}");
    assert_eq!(diags[0].message, "`terrain.tsx`, tile 1: no terrain `Forrest` in the rules");
    assert_eq!(diags[0].help, "did you mean `Forest`?");
    assert_eq!(&source[diags[0].span.start as usize..diags[0].span.end as usize], "terrain.tsx");
    // A file that is not a tileset, or not XML: one error each.
    for (text, says) in [("<map/>", "holds a <map>, not a Tiled <tileset>"), ("<tileset", "is not well-formed XML")] {
        std::fs::write(dir.join("terrain.tsx"), text).unwrap();
        let (_, diags) = oc_atlas::tiled::import_with(FileId(0), &source, "drawn", Some(&rules), &mut from(&dir));
        assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), ["oc::tiled::tileset"], "{diags:#?}");
        assert!(diags[0].message.contains(says), "{}", diags[0].message);
    }
}

/// `oc import tiled` reads a tileset file inside the project (the folder of `oc.toml`, or else
/// the TMX's own folder) and refuses one outside it, with one error.
#[test]
fn import_tiled_reads_a_tileset_file_inside_the_project_only() {
    let dir = scratch("tsx-root");
    hand_drawn(&dir);
    let sub = dir.join("maps");
    std::fs::create_dir_all(&sub).unwrap();
    let source =
        std::fs::read_to_string(dir.join("drawn.tmx")).unwrap().replace("source=\"terrain.tsx\"", "source=\"../terrain.tsx\"");
    let tmx = sub.join("drawn.tmx");
    std::fs::write(&tmx, source).unwrap();
    // No oc.toml: the project is the TMX's folder, and `../terrain.tsx` is outside it.
    let run = oc(&["import", "tiled", tmx.to_str().unwrap()]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert_eq!(err.matches("oc::tiled::").count(), 1, "one error: {err}");
    assert!(err.contains("oc::tiled::tileset") && err.contains("outside the project"), "{err}");
    assert!(err.contains("drawn.tmx:6:32") && err.contains("(1 error(s) above)"), "{err}");
    // With oc.toml above, the tileset is the project's: read, and the map imported whole.
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"drawn\"\n").unwrap();
    let out = sub.join("drawn.map.toml");
    let run = oc(&["import", "tiled", tmx.to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let rules = std_rules();
    assert_eq!(resolved(&check(&std::fs::read_to_string(&out).unwrap(), &rules)), HAND_DRAWN);
}

/// The real Tiled re-saves the hand-drawn map (its own writer, the tileset kept in its file or
/// embedded on export) and the import reads Tiled's file to the same squares either way.
#[test]
fn tiled_resaves_a_polygon_zone_and_an_external_tileset() {
    if let Err(why) = tiled() {
        eprintln!("skipped: the real Tiled is not available ({why})");
        return;
    }
    let rules = std_rules();
    let dir = scratch("drawn-real");
    let runtime = dir.join("runtime");
    std::fs::create_dir_all(&runtime).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&runtime, std::fs::Permissions::from_mode(0o700)).unwrap();
    }
    let tmx = hand_drawn(&dir);
    let resave = |out: &Path, embed: bool| {
        let mut args = vec!["--export-map"];
        if embed {
            args.push("--embed-tilesets");
        }
        let run = Command::new("tiled")
            .args(&args)
            .arg(&tmx)
            .arg(out)
            .env("QT_QPA_PLATFORM", "offscreen")
            .env("XDG_RUNTIME_DIR", &runtime)
            .output()
            .unwrap();
        assert!(run.status.success(), "tiled failed: {}", text(&run.stderr));
        std::fs::read_to_string(out).unwrap()
    };
    let kept = resave(&dir.join("kept.tmx"), false);
    assert!(kept.contains("source=\"terrain.tsx\""), "Tiled kept the tileset external: {kept}");
    let (_, diags) = oc_atlas::tiled::import(FileId(0), &kept, "drawn", Some(&rules));
    assert_eq!(diags.iter().map(|d| d.code).collect::<Vec<_>>(), ["oc::tiled::tileset"], "{diags:#?}");
    // `oc import tiled` reads the tileset file Tiled kept beside the map: the same squares.
    let out = dir.join("kept.map.toml");
    let run = oc(&["import", "tiled", dir.join("kept.tmx").to_str().unwrap(), "-o", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert_eq!(
        resolved(&check(&std::fs::read_to_string(&out).unwrap(), &rules)).replace("\"kept\"", "\"Hand Drawn\""),
        HAND_DRAWN
    );
    let embedded = resave(&dir.join("embedded.tmx"), true);
    assert!(embedded.contains("<polygon") && embedded.contains("<ellipse") && embedded.contains("<point"), "{embedded}");
    let (toml, diags) = oc_atlas::tiled::import(FileId(0), &embedded, "drawn", Some(&rules));
    assert!(diags.is_empty(), "{diags:#?}");
    let map = check(&toml.unwrap(), &rules);
    let camp: BTreeSet<(i64, i64)> = map.region("camp").unwrap().tiles.iter().map(|(t, _)| (t.x, t.y)).collect();
    assert_eq!(camp, BTreeSet::from([(0, 0), (1, 0), (0, 1), (0, 2)]));
    let grove: BTreeSet<(i64, i64)> = map.region("grove").unwrap().tiles.iter().map(|(t, _)| (t.x, t.y)).collect();
    assert_eq!(grove, BTreeSet::from([(3, 1), (4, 1), (3, 2), (4, 2)]));
    // Our own export, re-saved by Tiled, keeps its terrain set and its layers' colours.
    let ours = dir.join("keep.tmx");
    let run = oc(&["export", "tiled", "scenarios/maps/grado-keep.map.toml", "-o", ours.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let theirs = dir.join("keep-saved.tmx");
    let saved = Command::new("tiled")
        .args(["--export-map", ours.to_str().unwrap(), theirs.to_str().unwrap()])
        .env("QT_QPA_PLATFORM", "offscreen")
        .env("XDG_RUNTIME_DIR", &runtime)
        .output()
        .unwrap();
    assert!(saved.status.success(), "{}", text(&saved.stderr));
    let saved = std::fs::read_to_string(&theirs).unwrap();
    assert!(saved.contains("<wangset name=\"terrain\""), "{saved}");
    assert!(saved.contains("<wangcolor name=\"Wall\""), "{saved}");
    let blue = oc_atlas::render::ATTACKER_COLOUR.map(|c| format!("{c:02x}")).concat();
    assert!(saved.contains(&format!("color=\"#{blue}\"")), "the attacker's zones keep their blue: {saved}");
}

/// A small Atlas map exported to TMX, with `objects` added in an object layer of their own
/// (`objects` given the map's width and height in pixels and its number of squares).
fn tmx_with(objects: impl Fn(i64, i64, i64) -> String) -> (String, Rules) {
    let rules = std_rules();
    let path = round_trip_maps().into_iter().next().unwrap();
    let map = check(&std::fs::read_to_string(path).unwrap(), &rules);
    let (tmx, _) = oc_atlas::export::tiled(&map, "terrain.png");
    let g = i64::from(map.grid);
    let layer = format!(
        " <objectgroup id=\"99\" name=\"extra\">\n{}\n </objectgroup>\n</map>",
        objects(map.width * g, map.height * g, map.width * map.height)
    );
    (tmx.replacen("</map>", &layer, 1), rules)
}

/// Names holding line breaks, tabs, DEL and other control characters: the export is XML Tiled
/// and the import read (a line break and a tab kept, not turned into spaces; a character XML
/// cannot hold as U+FFFD), and the imported map is TOML `oc check` reads (DEL escaped).
#[test]
fn names_with_control_characters_export_and_import_as_valid_files() {
    let rules = std_rules();
    let path = round_trip_maps().into_iter().next().unwrap();
    let mut map = check(&std::fs::read_to_string(path).unwrap(), &rules);
    map.name = "Ide\nx\ty\u{7f}z".to_string();
    let region = map.regions.first_mut().expect("a region");
    region.name = "att\u{2}zone".to_string();
    let (tmx, _) = oc_atlas::export::tiled(&map, "terrain.png");
    // XML 1.0 holds DEL; no other control character but the line ends written.
    assert!(!tmx.chars().any(|c| c.is_control() && c != '\n' && c != '\u{7f}'), "{tmx}");
    let (toml, diags) = oc_atlas::tiled::import(FileId(0), &tmx, "unused", Some(&rules));
    assert!(diags.is_empty(), "{diags:?}");
    let copy = check(&toml.unwrap(), &rules);
    assert_eq!(copy.name, "Ide\nx\ty\u{7f}z");
    assert!(
        copy.regions.iter().any(|r| r.name == "att\u{fffd}zone"),
        "{:?}",
        copy.regions.iter().map(|r| &r.name).collect::<Vec<_>>()
    );
}

/// Regions past what a map may hold in all (each covering the whole map), a polygon of many
/// points across the map, and a rectangle whose pixels overflow a count of squares: errors, no
/// map (the regions' one error, not one a region).
#[test]
fn import_bounds_regions_and_reads_huge_shapes() {
    let codes = |tmx: &str, rules: &Rules| {
        let (toml, diags) = oc_atlas::tiled::import(FileId(0), tmx, "unused", Some(rules));
        (toml.is_some(), diags.iter().map(|d| d.code).collect::<Vec<_>>())
    };
    let (tmx, rules) = tmx_with(|w, h, squares| {
        let n = oc_atlas::MAX_REGION_TILES as i64 / squares.max(1) + 10;
        (0..n)
            .map(|i| format!(r#"<object id="{}" name="z{i}" type="label" x="0" y="0" width="{w}" height="{h}"/>"#, 1000 + i))
            .collect()
    });
    let (written, found) = codes(&tmx, &rules);
    assert!(!written && found == ["oc::tiled::unsupported"], "{found:?}");
    // A zigzag of 100,000 points over the whole map (its squares found row by row, not each
    // square against every edge).
    let (tmx, rules) = tmx_with(|w, h, _| {
        let points: Vec<String> = (0..100_000i64).map(|i| format!("{},{}", (i % 2) * (w - 1), i * (h - 1) / 100_000)).collect();
        format!(r#"<object id="2000" name="zz" type="label" x="0" y="0"><polygon points="{}"/></object>"#, points.join(" "))
    });
    let (written, found) = codes(&tmx, &rules);
    assert!(written && found.is_empty(), "{found:?}");
    let (tmx, rules) = tmx_with(|_, _, _| {
        r#"<object id="3000" name="huge" type="label" x="70" y="0" width="9.2233720368547758e20" height="70"/>"#.to_string()
    });
    let (written, found) = codes(&tmx, &rules);
    assert!(!written && found == ["oc::tiled::off_grid"], "{found:?}");
}

/// A tileset whose tiles name terrains the rules lack: each name said once (at its first tile),
/// and at most twenty names (40,000 tiles naming one misspelt terrain were 40,000 errors).
#[test]
fn a_misspelt_terrain_is_said_once_however_many_tiles_name_it() {
    let (tmx, rules) = tmx_with(|_, _, _| String::new());
    let same: String = (100..400).map(|i| format!(r#"<tile id="{i}" type="Plainz"/>"#)).collect();
    let many: String = (400..430).map(|i| format!(r#"<tile id="{i}" type="Nowhere{i}"/>"#)).collect();
    let tmx = tmx.replacen("<tile id=\"0\"", &format!("{same}{many}<tile id=\"0\""), 1);
    let (_, diags) = oc_atlas::tiled::import(FileId(0), &tmx, "unused", Some(&rules));
    let said: Vec<&str> = diags.iter().filter(|d| d.code == "oc::tiled::unknown_terrain").map(|d| d.message.as_str()).collect();
    assert_eq!(said.iter().filter(|m| m.contains("`Plainz`")).count(), 1, "{said:?}");
    assert_eq!(said.len(), 20, "{said:?}");
}

/// A TMX that is not UTF-8 is refused (it was read with replacement characters, which went into
/// the written map), and a UTF-16 one is said to be UTF-16.
#[test]
fn a_tmx_that_is_not_utf8_is_refused() {
    let dir = scratch("not-utf8");
    let (tmx, _) = tmx_with(|_, _, _| {
        r#"<object id="3000" name="caf"#.to_string() + "\u{e9}" + r#"" type="label" x="0" y="0" width="70" height="70"/>"#
    });
    let latin1: Vec<u8> = tmx.chars().map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?')).collect();
    std::fs::write(dir.join("latin1.tmx"), latin1).unwrap();
    let mut utf16 = vec![0xFF, 0xFE];
    utf16.extend(tmx.encode_utf16().flat_map(u16::to_le_bytes));
    std::fs::write(dir.join("utf16.tmx"), utf16).unwrap();
    for (file, says) in [("latin1.tmx", "not UTF-8"), ("utf16.tmx", "UTF-16")] {
        let out = oc(&["import", "tiled", dir.join(file).to_str().unwrap()]);
        assert!(out.status.code() == Some(1) && text(&out.stderr).contains(says), "{file}: {}", text(&out.stderr));
        assert!(out.stdout.is_empty());
    }
}

/// A tile layer stored as XML whose `gid` is no tile number is said so, as the CSV's is (it was
/// taken for an empty square).
#[test]
fn an_xml_layer_s_bad_gid_is_said() {
    let (tmx, rules) = tmx_with(|_, _, _| String::new());
    let (start, end) = (tmx.find("<data encoding=\"csv\">").unwrap(), tmx.find("</data>").unwrap());
    let squares = tmx[start..end].split(',').count();
    let tiles: String = (0..squares)
        .map(|k| if k == 1 { r#"<tile gid="99999999999"/>"#.to_string() } else { r#"<tile gid="1"/>"#.to_string() })
        .collect();
    let xml = format!("{}<data>{tiles}{}", &tmx[..start], &tmx[end..]);
    let (toml, diags) = oc_atlas::tiled::import(FileId(0), &xml, "unused", Some(&rules));
    assert!(toml.is_none(), "{diags:?}");
    assert!(
        diags.iter().any(|d| d.code == "oc::tiled::layer" && d.message.contains("`99999999999` is not a tile number")),
        "{diags:?}"
    );
}
