//! Tiled round trips: `oc export tiled` then `oc import tiled` gives back the same resolved map
//! for every Atlas map (and the clean lint fixtures, which use `image`, `allow` and region tile
//! lists); the real Tiled (Debian's `tiled`, installed when missing) re-saves each export and
//! the import reads Tiled's own file to the same map; `tests/fixtures/tiled/*.tmx` hold one
//! fixture per `oc::tiled::*` code with its `.expected` diagnostics (`OC_BLESS=1` rewrites them).

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

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oc-tiled-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Debian's `tiled`, installed with apt-get when missing; `None` (and why) where it cannot be.
fn tiled() -> Result<(), String> {
    let works =
        || Command::new("tiled").arg("--version").env("QT_QPA_PLATFORM", "offscreen").output().is_ok_and(|o| o.status.success());
    if works() {
        return Ok(());
    }
    let apt = |args: &[&str]| Command::new("apt-get").args(args).env("DEBIAN_FRONTEND", "noninteractive").output();
    match apt(&["install", "-y", "-qq", "tiled"]) {
        Ok(o) if o.status.success() => {}
        _ => {
            let _ = apt(&["update", "-qq"]);
            match apt(&["install", "-y", "-qq", "tiled"]) {
                Ok(o) if o.status.success() => {}
                Ok(o) => return Err(format!("apt-get install tiled failed: {}", text(&o.stderr))),
                Err(e) => return Err(format!("apt-get cannot run: {e}")),
            }
        }
    }
    if works() {
        Ok(())
    } else {
        Err("tiled was installed but does not run".into())
    }
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

#[test]
fn tiled_fixtures_match_their_expectations() {
    let rules = std_rules();
    let dir = repo().join("tests/fixtures/tiled");
    let mut expectations = oc_testkit::Expectations::new();
    let mut firsts = BTreeSet::new();
    for path in files(&dir, ".tmx") {
        let source = std::fs::read_to_string(&path).unwrap();
        let (toml, diags) = oc_atlas::tiled::import(FileId(0), &source, "fixture", Some(&rules));
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
