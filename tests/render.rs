//! Pictures people can read: the bundled font (labels of at least 12 pixels at grid 70, every
//! character of the repository's names drawable), the legend (every terrain present, every
//! region), terrains told apart by colour and pattern, `--no-coords` and `--scale`, and the
//! overlays the engine computes (a class's reach, rounds to an objective), checked against the
//! engine's numbers by pixel. The pictures in `docs/images/` are the binary's output
//! (`OC_BLESS=1` draws them again).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use image::{Rgb, RgbImage};
use oc_atlas::render::{self, text, Options, Swatch};
use oc_atlas::{ImageCheck, Map, Tile};
use oc_diag::FileId;
use oc_model::Rules;

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

fn load_text(text: &str, rules: &Rules) -> Map {
    let (map, diags) = oc_atlas::check(FileId(0), text, rules, |_| ImageCheck::NotChecked);
    assert!(!diags.iter().any(|d| d.is_error()), "{diags:?}");
    map.unwrap()
}

fn load(path: &Path, rules: &Rules) -> Map {
    load_text(&std::fs::read_to_string(path).unwrap(), rules)
}

fn oc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("oc runs")
}

fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-render-{}-{name}", std::process::id())));
    dir
}

fn read_png(path: &Path) -> RgbImage {
    oc_atlas::export::decode_png(&std::fs::read(path).unwrap()).unwrap()
}

/// Rows of the box (x, y, w, h) holding a pixel that is not `background`.
fn ink_rows(img: &RgbImage, (x, y, w, h): (u32, u32, u32, u32), background: Rgb<u8>) -> Vec<u32> {
    (y..y + h).filter(|py| (x..x + w).any(|px| *img.get_pixel(px, *py) != background)).collect()
}

#[test]
fn labels_are_a_real_font_of_at_least_12_pixels() {
    assert!(render::label_px(70) >= 12.0 && render::label_px(35) >= 12.0);
    let rules = std_rules();
    let map = load(&repo().join("scenarios/maps/border-mulan.map.toml"), &rules);
    let img = render::render(&map, &rules).unwrap();
    // Tile (2, 2) is Plains (no pattern): its coordinates "2,2" in the top-left corner are ink
    // at least 9 pixels tall (digits of a 14-pixel font; the old bitmap font's were 5).
    assert_eq!(map.terrain(Tile { x: 2, y: 2 }), Some("Plains"));
    let plains = render::terrain_colour("Plains");
    let rows = ink_rows(&img, (2 * 70 + 1, 2 * 70 + 1, 45, 24), plains);
    let tall = rows.last().unwrap() - rows.first().unwrap() + 1;
    assert!(tall >= 9, "the label is {tall} pixels tall: {rows:?}");
    // Every character of every name in the repository's maps, and of the rules' terrain titles
    // and items, has a glyph (none is drawn as another character).
    let mut chars = BTreeSet::new();
    for path in atlas() {
        let m = load(&path, &rules);
        chars.extend(m.name.chars());
        chars.extend(m.regions.iter().flat_map(|r| r.name.chars()));
        chars.extend(m.chests.iter().flat_map(|c| c.item.chars()));
    }
    chars.extend(rules.terrains.iter().flat_map(|t| t.title.clone().unwrap_or_default().chars().collect::<Vec<_>>()));
    chars.extend("Za'ha Wöods, Jehanna Hall — Ünïcode ÀÉÎÕÜ çñ ß ø æ œ ΑΒΓ абв 0123456789 ,.-()+:;!?…".chars());
    let missing: Vec<char> = chars.iter().copied().filter(|c| !c.is_whitespace() && !text::has_glyph(*c)).collect();
    assert!(missing.is_empty(), "no glyph for {missing:?}");
    // Different characters draw differently: `Ö` is not `0`, nor `Ü` `U`.
    let draw = |s: &str| {
        let mut img = RgbImage::from_pixel(40, 30, Rgb([255, 255, 255]));
        text::draw(&mut img, 2, 2, 20.0, s, Rgb([0, 0, 0]), None);
        img
    };
    assert!(draw("Ö") != draw("0") && draw("Ü") != draw("U") && draw("é") != draw("e"));
    assert!(draw("é") != RgbImage::from_pixel(40, 30, Rgb([255, 255, 255])));
}

#[test]
fn the_legend_names_every_terrain_present_and_every_region() {
    let rules = std_rules();
    for path in atlas() {
        let map = load(&path, &rules);
        let sections = render::legend(&map, &rules, None);
        let terrains: BTreeSet<String> = sections[0]
            .entries
            .iter()
            .filter_map(|(s, _)| if let Swatch::Terrain(t) = s { Some(t.clone()) } else { None })
            .collect();
        let used: BTreeSet<String> = map.tiles().filter_map(|t| map.terrain(t).map(str::to_string)).collect();
        assert_eq!(terrains, used, "{}", map.name);
        for (swatch, label) in &sections[0].entries {
            let Swatch::Terrain(t) = swatch else { continue };
            let title = rules.terrain(t).and_then(|t| t.title.clone()).unwrap_or(t.clone());
            assert_eq!(label, &title);
        }
        let regions = &sections[1];
        assert_eq!(regions.entries.len(), map.regions.len());
        for (r, (swatch, label)) in map.regions.iter().zip(&regions.entries) {
            assert_eq!(swatch, &Swatch::Region(render::region_colour(r.kind, r.side)));
            assert!(label.starts_with(&r.name) && label.contains(r.kind.word()), "{label}");
        }
        // The picture has room for it: the legend starts under the map, on paper.
        let img = render::render(&map, &rules).unwrap();
        let top = map.height as u32 * map.grid;
        let rows = 2 + sections.iter().map(|s| 1 + s.entries.len()).sum::<usize>() as u32;
        assert!(img.height() > top + 24 * 4 && img.height() <= top + 24 * rows + 40, "{}: {}", map.name, img.height());
        assert_eq!(*img.get_pixel(1, top + 2), render::PAPER);
    }
}

#[test]
fn terrains_differ_by_colour_and_pattern() {
    let rules = std_rules();
    // Every terrain of the standard library on one map, one square each.
    let names: Vec<&str> = rules.terrains.iter().map(|t| t.name.as_str()).collect();
    let symbols: Vec<char> = ('A'..='Z').chain('a'..='z').take(names.len()).collect();
    let mut text = format!(
        "name = \"Swatches\"\nwidth = {}\nheight = 1\nrows = [\"{}\"]\n[legend]\n",
        names.len(),
        symbols.iter().collect::<String>()
    );
    for (c, n) in symbols.iter().zip(&names) {
        text.push_str(&format!("\"{c}\" = \"{n}\"\n"));
    }
    let map = load_text(&text, &rules);
    let img = render::render_with(&map, &rules, &Options { coords: false, legend: false, ..Options::default() }).unwrap();
    let square = |i: usize| image::imageops::crop_imm(&img, i as u32 * 70 + 1, 1, 69, 69).to_image();
    let squares: Vec<RgbImage> = (0..names.len()).map(square).collect();
    for i in 0..names.len() {
        for j in i + 1..names.len() {
            assert!(squares[i] != squares[j], "{} and {} draw the same", names[i], names[j]);
        }
    }
    let pattern = |n: &str| render::pattern(n, rules.terrain(n));
    // Forest, mountain, water and walls each have their own pattern.
    let kinds: BTreeSet<render::Pattern> = ["Forest", "Mountain", "River", "Wall"].iter().map(|n| pattern(n)).collect();
    assert_eq!(kinds.len(), 4);
    assert!(!kinds.contains(&render::Pattern::Plain));
    assert_eq!(pattern("Sea"), pattern("Lake"));
    // Ruins and Stairs, which looked alike, differ in pattern and clearly in colour.
    assert_ne!(pattern("Ruins"), pattern("Stairs"));
    let (a, b) = (render::terrain_colour("Ruins").0, render::terrain_colour("Stairs").0);
    let distance: i32 = a.iter().zip(b).map(|(x, y)| (i32::from(*x) - i32::from(y)).abs()).sum();
    assert!(distance >= 90, "Ruins and Stairs are {distance} apart");
    // The pattern's ink is on the square: a patterned square is not one colour.
    let forest = squares[names.iter().position(|n| *n == "Forest").unwrap()].clone();
    assert!(forest.pixels().any(|p| *p != render::terrain_colour("Forest")));
}

#[test]
fn render_options_coordinates_and_scale() {
    let dir = scratch("options");
    let map = "scenarios/maps/border-mulan.map.toml";
    let (plain, none, half) = (dir.join("plain.png"), dir.join("none.png"), dir.join("half.png"));
    for (out, extra) in [(&plain, vec![]), (&none, vec!["--no-coords"]), (&half, vec!["--scale", "0.5"])] {
        let mut args = vec!["render", map, "-o", out.to_str().unwrap()];
        args.extend(extra);
        let run = oc(&repo(), &args);
        assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    }
    let (plain, none, half) = (read_png(&plain), read_png(&none), read_png(&half));
    let plains = render::terrain_colour("Plains");
    assert!(!ink_rows(&plain, (2 * 70 + 1, 2 * 70 + 1, 45, 24), plains).is_empty());
    assert!(ink_rows(&none, (2 * 70 + 1, 2 * 70 + 1, 45, 24), plains).is_empty(), "--no-coords draws no coordinates");
    assert_eq!(half.width(), plain.width() / 2);
    assert_eq!(*half.get_pixel(2 * 35 + 20, 2 * 35 + 20), plains);
    let run = oc(&repo(), &["render", map, "-o", dir.join("x.png").to_str().unwrap(), "--scale", "9"]);
    assert_eq!(run.status.code(), Some(2));
}

/// The colour of a square of `base` under an overlay tint (what the renderer blends).
fn tinted(base: Rgb<u8>, tint: [u8; 3], a: f32) -> Rgb<u8> {
    let mut out = base;
    for (dst, src) in out.0.iter_mut().zip(tint) {
        *dst = (f32::from(*dst) * (1.0 - a) + f32::from(src) * a).round() as u8;
    }
    out
}

#[test]
fn reach_overlay_shows_the_engines_reach() {
    let dir = scratch("reach");
    // An open field with a wall across the middle column but for one gap.
    let mut rows = Vec::new();
    for y in 0..15 {
        let row: String = (0..15).map(|x| if x == 7 && y != 2 { '#' } else { '.' }).collect();
        rows.push(format!("\"{row}\""));
    }
    std::fs::write(
        dir.join("field.map.toml"),
        format!(
            "name = \"Field\"\nwidth = 15\nheight = 15\nrows = [{}]\n[legend]\n\"#\" = \"Wall\"\n\".\" = \"Plains\"\n",
            rows.join(", ")
        ),
    )
    .unwrap();
    let out = dir.join("reach.png");
    let run = oc(
        &dir,
        &["render", "field.map.toml", "-o", out.to_str().unwrap(), "--reach", "3,10", "--class", "Myrmidon", "--no-coords"],
    );
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert_eq!(run.status.code(), Some(0), "{stderr}");
    // "overlay: Reach of a Myrmidon from (3, 10): 5 movement, Foot (N squares)"
    let movement: i64 = stderr.split("): ").nth(1).and_then(|s| s.split(' ').next()).and_then(|n| n.parse().ok()).unwrap();
    assert!(movement >= 3, "{stderr}");
    let img = read_png(&out);
    let plains = render::terrain_colour("Plains");
    let mut reached = 0;
    for y in 0..15i64 {
        for x in 0..15i64 {
            if x == 7 && y != 2 {
                continue;
            }
            // Plains everywhere, so the distance is the cost; the wall forces a detour.
            let d = (x - 3).abs() + (y - 10).abs();
            let through_gap = (x - 7).signum() != (3 - 7i64).signum() && x != 7;
            let d = if through_gap { (3 - 7i64).abs() + (10 - 2i64).abs() + (x - 7).abs() + (y - 2).abs() } else { d };
            let inside = d <= movement;
            let expect =
                tinted(plains, if inside { render::REACH } else { render::OUT_OF_REACH }, if inside { 0.55 } else { 0.6 });
            // A corner of the square, clear of the number in the middle and the origin's frame.
            let (px, py) = (x as u32 * 70 + 12, y as u32 * 70 + 60);
            assert_eq!(*img.get_pixel(px, py), expect, "({x}, {y}) at distance {d}");
            reached += usize::from(inside);
        }
    }
    assert!(stderr.contains(&format!("({reached} squares)")), "{stderr}");
    let run = oc(
        &dir,
        &["render", "field.map.toml", "-o", dir.join("x.png").to_str().unwrap(), "--reach", "7,7", "--class", "Myrmidon"],
    );
    assert_eq!(run.status.code(), Some(1), "a Myrmidon cannot stand in a wall");
    let run = oc(
        &dir,
        &["render", "field.map.toml", "-o", dir.join("x.png").to_str().unwrap(), "--reach", "1,1", "--class", "Myrmdon"],
    );
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("did you mean `Myrmidon`?"));
}

#[test]
fn rounds_to_an_objective_match_the_forward_search_from_every_square() {
    let rules = std_rules();
    for path in atlas() {
        let map = load(&path, &rules);
        for side in [oc_atlas::Side::Attacker, oc_atlas::Side::Defender] {
            let targets = oc_atlas::path::objective_tiles(&map, side);
            assert!(!targets.is_empty(), "{}", map.name);
            let costs = oc_atlas::path::costs(&map, &rules, "Foot");
            let heat = oc_atlas::path::rounds_to(&map, &costs, &targets, 5);
            // Every fifth square, searched forward from it: the fewest rounds to any target.
            for (i, t) in map.tiles().enumerate().step_by(5) {
                let standable = costs[i].is_some();
                let forward = oc_atlas::path::rounds(&map, &costs, &[t], 5);
                let best = targets.iter().filter_map(|g| forward[map.index(*g).unwrap()]).min();
                let expected = if standable { best } else { None };
                assert_eq!(heat[i], expected, "{} {side:?} from {t:?}", map.name);
            }
        }
    }
}

#[test]
fn heat_overlay_colours_each_square_by_its_rounds() {
    let rules = std_rules();
    let dir = scratch("heat");
    let out = dir.join("heat.png");
    let run = oc(
        &repo(),
        &["render", "scenarios/maps/grado-keep.map.toml", "-o", out.to_str().unwrap(), "--heat", "attacker", "--no-coords"],
    );
    assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
    let img = read_png(&out);
    let map = load(&repo().join("scenarios/maps/grado-keep.map.toml"), &rules);
    let targets = oc_atlas::path::objective_tiles(&map, oc_atlas::Side::Attacker);
    let costs = oc_atlas::path::costs(&map, &rules, "Foot");
    let heat = oc_atlas::path::rounds_to(&map, &costs, &targets, 5);
    let mut seen = BTreeSet::new();
    for (i, t) in map.tiles().enumerate() {
        let terrain = map.terrain(t).unwrap();
        let plain = render::pattern(terrain, rules.terrain(terrain)) == render::Pattern::Plain;
        let in_region = map.regions.iter().any(|r| r.tiles.iter().any(|(rt, _)| *rt == t));
        if !plain || in_region || map.chests.iter().any(|c| c.at == t) {
            continue;
        }
        let tint = match heat[i] {
            Some(r) => *render::HEAT.get(r as usize).unwrap_or(render::HEAT.last().unwrap()),
            None => render::OUT_OF_REACH,
        };
        let a = if heat[i].is_some() { 0.55 } else { 0.6 };
        let (px, py) = (t.x as u32 * 70 + 12, t.y as u32 * 70 + 60);
        assert_eq!(*img.get_pixel(px, py), tinted(render::terrain_colour(terrain), tint, a), "{t:?}: {:?} rounds", heat[i]);
        seen.insert(heat[i]);
    }
    assert!(seen.len() >= 5, "several distances are shown: {seen:?}");
}

/// The two pictures in `docs/images/` are what the binary draws today.
#[test]
fn the_pictures_in_the_docs_are_the_binarys() {
    let dir = scratch("docs");
    let images = repo().join("docs/images");
    let bless = oc_testkit::blessing();
    for (name, extra) in [
        ("grado-keep.png", vec!["--scale", "0.5"]),
        ("grado-keep-heat-attacker.png", vec!["--scale", "0.5", "--heat", "attacker"]),
    ] {
        let out = dir.join(name);
        let mut args = vec!["render", "scenarios/maps/grado-keep.map.toml", "-o", out.to_str().unwrap()];
        args.extend(extra);
        let run = oc(&repo(), &args);
        assert_eq!(run.status.code(), Some(0), "{}", String::from_utf8_lossy(&run.stderr));
        let drawn = std::fs::read(&out).unwrap();
        if bless {
            std::fs::create_dir_all(&images).unwrap();
            std::fs::write(images.join(name), &drawn).unwrap();
        }
        let shipped = std::fs::read(images.join(name)).unwrap_or_default();
        assert!(shipped == drawn, "docs/images/{name} is not what `oc {}` draws (OC_BLESS=1)", args.join(" "));
        assert!(drawn.len() < 400_000, "{name} is {} bytes", drawn.len());
    }
}

/// Every square the engine can strike down shows its HP (issue 42): each Wall of the ratings
/// rules (30 HP by its terrain), not only the destructibles a map lists; a listed one shows its
/// own HP.
#[test]
fn every_square_with_hp_shows_it() {
    let rules = std_rules();
    assert_eq!(rules.terrain("Wall").and_then(|t| t.hp), Some(30));
    let text = "name = \"Walls\"\nwidth = 4\nheight = 1\nrows = [\"#.##\"]\n[legend]\n\"#\" = \"Wall\"\n\".\" = \"Plains\"\n\n[[destructibles]]\nat = [3, 0]\nhp = 12\n";
    let map = load_text(text, &rules);
    let img = render::render_with(&map, &rules, &Options { coords: false, legend: false, ..Options::default() }).unwrap();
    // The label's white ink (anti-aliased: bright in every channel) in the lower half of a square.
    let ink = |i: u32| {
        let half = image::imageops::crop_imm(&img, i * 70 + 1, 35, 69, 34).to_image();
        half.pixels().filter(|p| p.0.iter().all(|c| *c > 200)).count()
    };
    assert!(ink(0) > 20 && ink(2) > 20, "the unlisted walls show their HP: {} {}", ink(0), ink(2));
    assert_eq!(ink(1), 0, "plains have no HP");
    assert!(ink(3) > 20, "the listed wall shows its own");
}
