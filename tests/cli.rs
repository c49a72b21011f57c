//! End-to-end tests of the `oc` binary: exit statuses, output formats, files written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn oc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("oc runs")
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-cli-{}-{name}", std::process::id())));
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn the_repository_checks_clean() {
    let out = oc(&repo(), &["check", "."]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("0 errors, 0 warnings"), "{stderr}");
    assert!(stderr.contains("skipped by oc.toml"), "{stderr}");
}

#[test]
fn check_json_follows_the_diagnostics_contract() {
    let out = oc(&repo(), &["check", "--format", "json", "examples/showcase.mistakes.oc"]);
    assert_eq!(out.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object on stdout");
    let object = value.as_object().unwrap();
    let mut keys: Vec<&str> = object.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(keys, ["diagnostics", "errors", "files", "warnings"]);
    assert_eq!(value["files"], 1);
    let diagnostics = value["diagnostics"].as_array().unwrap();
    assert_eq!(value["errors"].as_u64().unwrap() as usize, diagnostics.len());
    assert_eq!(value["warnings"], 0);
    for d in diagnostics {
        let mut keys: Vec<&str> = d.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort();
        assert_eq!(
            keys,
            ["code", "column", "end_column", "end_line", "file", "help", "label", "line", "message", "secondary", "severity"]
        );
        assert!(d["code"].as_str().unwrap().starts_with("oc::"));
        assert!(!d["help"].as_str().unwrap().is_empty());
        assert_eq!(d["file"], "examples/showcase.mistakes.oc");
    }
    // Line 5, column 19 of the showcase: `str S`, above the class range E..A.
    let out_of_range = diagnostics.iter().find(|d| d["code"] == "oc::class::rating_out_of_range").unwrap();
    assert_eq!((out_of_range["line"].as_u64(), out_of_range["column"].as_u64()), (Some(5), Some(19)));
    let codes: Vec<&str> = diagnostics.iter().map(|d| d["code"].as_str().unwrap()).collect();
    for code in [
        "oc::class::missing_rating",
        "oc::name::unknown_weapon_type",
        "oc::name::unknown_tag",
        "oc::tag::wrong_kind",
        "oc::item::weight_out_of_range",
        "oc::name::unknown_class",
        "oc::type::scale_vs_int",
        "oc::triangle::not_cycle",
    ] {
        assert!(codes.contains(&code), "missing {code} in {codes:?}");
    }
}

#[test]
fn human_output_is_plain_when_piped_and_ends_with_a_summary() {
    let out = oc(&repo(), &["check", "crates/oc-compiler/tests/fixtures/compile/name_unknown_tag.oc"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(!stderr.contains('\u{1b}'), "no colour codes in a pipe");
    assert!(stderr.contains("oc::name::unknown_tag"));
    assert!(stderr.contains("unknown tag `Lucy`"));
    assert!(stderr.contains("did you mean `Lucky`?"));
    assert!(stderr.contains("name_unknown_tag.oc:4:10"), "{stderr}");
    assert!(stderr.trim_end().lines().last().unwrap().contains("1 error, 0 warnings"), "{stderr}");
}

#[test]
fn usage_and_io_failures_exit_2() {
    let repo = repo();
    assert_eq!(oc(&repo, &["check", "no/such/dir"]).status.code(), Some(2));
    assert_eq!(oc(&repo, &["frobnicate"]).status.code(), Some(2));
    assert_eq!(oc(&repo, &["check", "--format", "xml"]).status.code(), Some(2));
    assert_eq!(oc(&repo, &["explain", "oc::no::such_code"]).status.code(), Some(2));
}

#[test]
fn explain_prints_the_long_text_of_every_code() {
    let repo = repo();
    let out = oc(&repo, &["explain", "oc::class::rating_out_of_range"]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("no class default is"), "{stdout}");
    // Without the `oc::` prefix too.
    assert_eq!(oc(&repo, &["explain", "name::unknown_tag"]).status.code(), Some(0));
    let list = text(&oc(&repo, &["explain", "--list"]).stdout);
    for info in oc_compiler::all_codes() {
        assert!(list.contains(info.code), "--list lacks {}", info.code);
        let one = oc(&repo, &["explain", info.code]);
        assert_eq!(one.status.code(), Some(0), "explain {}", info.code);
    }
    assert!(list.contains("oc::file::not_utf8"));
    let typo = oc(&repo, &["explain", "oc::name::unknown_tga"]);
    assert!(text(&typo.stderr).contains("did you mean `oc::name::unknown_tag`?"));
}

#[test]
fn build_writes_rules_that_round_trip() {
    let dir = scratch("build");
    let out_path = dir.join("rules.json");
    let out = oc(&repo(), &["build", "examples/homebrew_class.oc", "--out", out_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = std::fs::read_to_string(&out_path).unwrap();
    let rules: oc_model::Rules = serde_json::from_str(&json).expect("the output reads back as the model");
    assert_eq!(rules.format_version, oc_model::FORMAT_VERSION);
    assert!(rules.class("Spellblade").is_some(), "the home-brew class is in the output");
    assert!(rules.class("Myrmidon").is_some(), "with the standard library");
    assert_eq!(serde_json::to_string_pretty(&rules).unwrap(), json, "reading and writing again gives the same text");
    // Only the output file is left: the temporary file was renamed into place.
    let names: Vec<String> =
        std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names, ["rules.json"]);
}

#[test]
fn build_with_errors_writes_nothing_and_keeps_the_old_file() {
    let dir = scratch("build-errors");
    let out_path = dir.join("rules.json");
    // An earlier build's output (recognised, so it may be replaced without --force).
    let previous = "{\n  \"format_version\": 2\n}\n";
    std::fs::write(&out_path, previous).unwrap();
    let out = oc(&repo(), &["build", "examples/showcase.mistakes.oc", "-o", out_path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&out_path).unwrap(), previous);
}

#[test]
fn build_without_paths_writes_the_standard_library() {
    let dir = scratch("build-std");
    let out = oc(&dir, &["build", "-o", "std.json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let rules: oc_model::Rules = serde_json::from_str(&std::fs::read_to_string(dir.join("std.json")).unwrap()).unwrap();
    assert_eq!(rules.ruleset.name, "officers_chess");
}

#[test]
fn bad_files_are_reported_and_the_rest_is_checked() {
    let dir = scratch("bad-files");
    std::fs::write(dir.join("garbage.oc"), [0xff, 0xfe, 0x00, 0x41, 0x80, 0x0a]).unwrap();
    std::fs::write(dir.join("good.oc"), "tag Steady on class { crit_bonus += 1 }\n").unwrap();
    std::fs::write(dir.join("typo.oc"), "class Scout { ratings { str D mag E skl C spd B def E res D } wields Bow cost 500 }\n")
        .unwrap();
    std::fs::create_dir(dir.join("nested.oc")).unwrap(); // a directory with a source-like name
    let out = oc(&dir, &["check", "--format", "json"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let codes: Vec<(&str, &str)> = value["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["file"].as_str().unwrap(), d["code"].as_str().unwrap()))
        .collect();
    assert!(codes.contains(&("garbage.oc", "oc::file::not_utf8")), "{codes:?}");
    assert!(codes.contains(&("typo.oc", "oc::name::unknown_weapon_type")), "{codes:?}");
    assert!(!codes.iter().any(|(f, _)| *f == "good.oc"), "{codes:?}");
    assert_eq!(value["files"], 3);
}

/// A source that is not UTF-8 is an error for the commands that compile a project as for `oc
/// check` (`oc doc` and `oc balance` went on with its bad bytes replaced, and exit 0).
#[test]
fn a_source_that_is_not_utf8_stops_doc_and_balance_as_check() {
    let dir = scratch("not-utf8");
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"p\"\n").unwrap();
    let mut bytes = b"class X \"".to_vec();
    bytes.extend([0xff, 0xfe]);
    bytes.extend(b"\" { ratings { str C mag E skl C spd C def C res C } wields Swords cost 800 }\n");
    std::fs::write(dir.join("x.oc"), bytes).unwrap();
    for args in [&["doc", "x.oc", "-o", "site"][..], &["balance", "x.oc"][..]] {
        let out = oc(&dir, args);
        assert_ne!(out.status.code(), Some(0), "{args:?}: {}", text(&out.stderr));
        assert!(text(&out.stderr).contains("oc::file::not_utf8"), "{args:?}: {}", text(&out.stderr));
    }
    assert!(!dir.join("site").exists(), "no site of replaced text");
}

#[test]
fn imports_resolve_relative_to_the_file_and_stay_in_the_project() {
    let dir = scratch("imports");
    std::fs::create_dir_all(dir.join("lib")).unwrap();
    std::fs::write(dir.join("lib/tags.oc"), "tag Stubborn on class { damage_taken -= 1 }\n").unwrap();
    std::fs::write(
        dir.join("unit.oc"),
        "import \"lib/tags.oc\"\nclass Mule { ratings { str C mag E skl D spd E def B res D } wields Axes tags Stubborn cost 300 }\n",
    )
    .unwrap();
    let ok = oc(&dir, &["check"]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    std::fs::write(dir.join("escape.oc"), "import \"../outside.oc\"\n").unwrap();
    let out = oc(&dir, &["check", "--format", "json", "escape.oc"]);
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["diagnostics"][0]["code"], "oc::import::outside_root");
}

#[cfg(unix)]
#[test]
fn a_directory_link_loop_is_not_followed() {
    let dir = scratch("link-loop");
    std::fs::write(dir.join("a.oc"), "tag Calm on class { crit_bonus += 1 }\n").unwrap();
    std::os::unix::fs::symlink(".", dir.join("again")).unwrap();
    let out = oc(&dir, &["check", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["files"], 1);
}

#[test]
fn forecast_json_has_the_promised_fields_and_seed_numbers() {
    let out = oc(&repo(), &["forecast", "--attacker", "Myrmidon:IronSword", "--defender", "Fighter:IronAxe", "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    for side in ["attacker", "defender"] {
        for key in ["class", "weapon", "hp", "effective", "hit", "crit", "damage", "crit_damage", "strikes"] {
            assert!(v[side].get(key).is_some(), "{side}.{key} missing");
        }
    }
    for key in ["attacker_routed", "defender_routed", "attacker_hp", "defender_hp"] {
        assert!(v.get(key).is_some(), "{key} missing");
    }
    // Seed 000: To Hit[S][D] = 90, Damage[D][D] + 1 = 4, crit 15 (Lucky 5).
    assert_eq!(v["attacker"]["hit"], 0.9);
    assert_eq!(v["attacker"]["damage"], 4);
    assert_eq!(v["attacker"]["effective"]["skl"], "A");
    assert_eq!(v["attacker"]["effective"]["hp"], 20);
    let total: f64 = v["defender_hp"].as_object().unwrap().values().map(|p| p.as_f64().unwrap()).sum();
    assert!((total - 1.0).abs() < 1e-9, "the HP distribution sums to 1");
    // Human output: the compact table.
    let human = text(&oc(&repo(), &["forecast", "--attacker", "Myrmidon:IronSword", "--defender", "Fighter:IronAxe"]).stdout);
    assert!(human.contains("Hit") && human.contains("90.0%") && human.contains("Routed"), "{human}");
}

#[test]
fn forecast_reports_bad_matchups_with_exit_2() {
    let out = oc(&repo(), &["forecast", "--attacker", "Myrmidon:IronSword", "--defender", "Fighter", "--distance", "3"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("reaches 1..1"));
    let out = oc(&repo(), &["forecast", "--attacker", "Myrmidonn", "--defender", "Fighter"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("no class `Myrmidonn`"));
    let out = oc(&repo(), &["forecast", "--ruleset", "v07", "--attacker", "Lord", "--defender", "Knight"]);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn forecast_runs_the_v06_ruleset_and_home_brew_rules() {
    let out = oc(
        &repo(),
        &[
            "forecast",
            "--ruleset",
            "v06",
            "--attacker",
            "PegasusKnight:Javelin",
            "--defender",
            "PegasusKnight:IronLance",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    // Seed 001: "a Critical hit with Damage 10 and Defense of 4 would be 12".
    assert_eq!(v["attacker"]["crit_damage"], 12);
    let out = oc(
        &repo(),
        &[
            "forecast",
            "--ruleset",
            "examples/homebrew_class.oc",
            "--attacker",
            "Spellblade:Stormbrand",
            "--defender",
            "PegasusKnight",
            "--format",
            "json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn duel_is_reproducible_from_its_seed() {
    let args = ["duel", "--attacker", "Swordmaster", "--defender", "Warrior", "--seed", "7", "--format", "json"];
    let a = oc(&repo(), &args);
    let b = oc(&repo(), &args);
    assert_eq!(a.status.code(), Some(0));
    assert_eq!(a.stdout, b.stdout, "same seed, same log, byte for byte");
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    assert!(!v["strikes"].as_array().unwrap().is_empty());
}

#[test]
fn matrix_writes_a_csv_and_a_summary() {
    let dir = scratch("matrix");
    let csv = dir.join("m.csv");
    let out = oc(&repo(), &["matrix", "--ruleset", "v06", "--out", csv.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let body = std::fs::read_to_string(&csv).unwrap();
    let mut lines = body.lines();
    assert!(lines.next().unwrap().starts_with("attacker,weapon,defender"));
    assert!(lines.count() > 100);
    let summary = text(&out.stderr);
    assert!(summary.contains("best matchup") && summary.contains("exact forecasts in"), "{summary}");
}

#[test]
fn render_writes_a_png_of_the_map() {
    let dir = scratch("render");
    let out = dir.join("ide.png");
    let run = oc(&repo(), &["render", "scenarios/maps/ide.map.toml", "--out", out.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let bytes = std::fs::read(&out).unwrap();
    let img = oc_atlas::export::decode_png(&bytes).unwrap();
    assert_eq!(img.width(), 20 * 70);
    assert!(text(&run.stderr).contains("20 by 12 tiles at grid 70"), "{}", text(&run.stderr));
    // Never over a source file.
    let refused = oc(&repo(), &["render", "scenarios/maps/ide.map.toml", "--out", dir.join("x.map.toml").to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(!dir.join("x.map.toml").exists());
}

#[test]
fn export_foundry_and_tiled() {
    let run = oc(&repo(), &["export", "foundry", "scenarios/maps/grado-keep.map.toml"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let scene: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(scene["name"], "Grado Keep");
    assert_eq!(scene["grid"]["size"], 70);
    // The note says the whole command that draws the background, the map named.
    assert!(text(&run.stderr).contains("oc render scenarios/maps/grado-keep.map.toml --no-legend -o "), "{}", text(&run.stderr));
    // A map scaled up to Foundry's smallest grid: its background is drawn as scaled.
    let small = scratch("small-grid");
    let keep =
        std::fs::read_to_string(repo().join("scenarios/maps/grado-keep.map.toml")).unwrap().replace("grid = 70", "grid = 30");
    std::fs::write(small.join("keep.map.toml"), keep).unwrap();
    let run = oc(&small, &["export", "foundry", "keep.map.toml", "--foundry", "11"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    assert!(text(&run.stderr).contains("oc render keep.map.toml --no-legend --scale 2 -o "), "{}", text(&run.stderr));
    let dir = scratch("tiled");
    let tmx = dir.join("keep.tmx");
    let run = oc(&repo(), &["export", "tiled", "scenarios/maps/grado-keep.map.toml", "--out", tmx.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let body = std::fs::read_to_string(&tmx).unwrap();
    assert!(body.contains(r#"<image source="keep-terrain.png""#), "{body}");
    assert!(oc_atlas::export::decode_png(&std::fs::read(dir.join("keep-terrain.png")).unwrap()).is_ok());
}

#[test]
fn import_image_builds_a_map_that_checks_clean() {
    let dir = scratch("import");
    // 3x2 tiles: Plains, Forest, Fort / Plains, Plains, Sea, in the legend's own colours.
    let mut img = image::RgbImage::new(3, 2);
    let colours = [[[10, 200, 10], [0, 90, 0], [150, 60, 40]], [[10, 200, 10], [10, 200, 10], [0, 0, 200]]];
    for (y, row) in colours.iter().enumerate() {
        for (x, c) in row.iter().enumerate() {
            img.put_pixel(x as u32, y as u32, image::Rgb(*c));
        }
    }
    img.save(dir.join("palette.png")).unwrap();
    std::fs::write(
        dir.join("legend.toml"),
        "name = \"Tiny Isle\"\n\"#0ac80a\" = \"Plains\"\n\"#005a00\" = \"Forest\"\n\"#963c28\" = \"Fort\"\n\"#0000c8\" = \"Sea\"\n",
    )
    .unwrap();
    let run = oc(&dir, &["import-image", "palette.png", "--legend", "legend.toml", "--out", "isle.map.toml"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let map = std::fs::read_to_string(dir.join("isle.map.toml")).unwrap();
    assert!(map.contains("name = \"Tiny Isle\""), "{map}");
    assert!(map.contains("\".fF\",") && map.contains("\"..~\","), "{map}");
    let check = oc(&dir, &["check", "."]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    // An existing file is not replaced without --force.
    let again = oc(&dir, &["import-image", "palette.png", "--legend", "legend.toml", "--out", "isle.map.toml"]);
    assert_eq!(again.status.code(), Some(2));
    assert!(text(&again.stderr).contains("--force"));
    // A legend naming no terrain says which entry.
    std::fs::write(dir.join("bad.toml"), "\"#0ac80a\" = \"Plans\"\n").unwrap();
    let bad = oc(&dir, &["import-image", "palette.png", "--legend", "bad.toml"]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).contains("did you mean `Plains`?"), "{}", text(&bad.stderr));
}

#[test]
fn check_reports_map_lints_in_json_and_explains_them() {
    let dir = scratch("maplint");
    std::fs::write(dir.join("a.map.toml"), "name = \"A\"\nwidth = 3\nheight = 1\nrows = [\"..?\"]\n").unwrap();
    let run = oc(&dir, &["check", "--format", "json", "."]);
    assert_eq!(run.status.code(), Some(1));
    let value: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let d = &value["diagnostics"][0];
    assert_eq!(d["code"], "oc::atlas::unknown_symbol");
    assert_eq!(d["file"], "a.map.toml");
    assert_eq!((d["line"].as_u64(), d["column"].as_u64()), (Some(4), Some(12)), "the `?` of `rows = [\"..?\"]`");
    let explain = oc(&dir, &["explain", "atlas::zone_trapped"]);
    assert_eq!(explain.status.code(), Some(0));
    assert!(
        text(&explain.stdout).contains("impassable for units of the ruleset's base `movement_type`"),
        "{}",
        text(&explain.stdout)
    );
}

#[test]
fn explain_scenario_prints_the_objectives() {
    let run = oc(&repo(), &["explain-scenario", "scenarios/border-mulan.oc"]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let out = text(&run.stdout);
    assert!(out.contains("Time limit: 10 rounds; then the defender wins. The defender deploys first."), "{out}");
    assert!(out.contains("Objective: Seize keep-throne with a Leader."), "{out}");
    assert!(
        out.contains("Objective: Either rout every enemy unit or rout the enemy Leader; or hold out until the time limit."),
        "{out}"
    );
    let json = oc(&repo(), &["explain-scenario", "--format", "json", "scenarios/ide.oc"]);
    let value: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(value["attacker"]["objective"], "escape with 2 units through eastern-road (Fleeing)");
    assert_eq!(value["defender"]["condition"]["rout_count"]["count"], 3);
}

#[test]
fn a_missing_region_points_at_the_scenario_and_the_map() {
    let run = oc(&repo(), &["check", "crates/oc-compiler/tests/fixtures/compile/scenario_missing_region.oc"]);
    assert_eq!(run.status.code(), Some(1));
    let err = text(&run.stderr);
    assert!(err.contains("the map `Proving Ground` has no region `gaol`"), "{err}");
    assert!(err.contains("the map's regions are: attacker-zone, defender-zone, goal, exit"), "{err}");
    // The note names the map's file (the report wraps a long path at its slashes).
    assert!(err.contains("note: the map is defined here at crates/oc-compiler/tests/fixtures/compile/scenario/"), "{err}");
    assert!(err.contains("proving.map.toml:1:8"), "{err}");
}

#[test]
fn army_scout_shares_classes_only_and_outfit_rejects_class_changes() {
    let scout = oc(&repo(), &["army", "scout", "scenarios/grado-keep.oc", "--name", "AllianceVanguard"]);
    assert_eq!(scout.status.code(), Some(0), "{}", text(&scout.stderr));
    let out = text(&scout.stdout);
    assert!(out.contains("brings 7 units") && out.contains("  Lord\n") && out.contains("  Thief\n"), "{out}");
    assert!(
        !out.contains("Rapier") && !out.contains("MasterKey") && !out.contains("Ephraim"),
        "inventory and names stay secret: {out}"
    );

    let dir = scratch("outfit");
    let before = std::fs::read_to_string(repo().join("scenarios/border-mulan.oc")).unwrap();
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    std::fs::copy(repo().join("scenarios/maps/border-mulan.map.toml"), dir.join("maps/border-mulan.map.toml")).unwrap();
    std::fs::write(dir.join("before.oc"), &before).unwrap();
    let swapped = before
        .replace("unit Forde: Cavalier { items IronSword, IronLance }", "unit Forde: Cavalier { items SteelSword, IronLance }");
    std::fs::write(dir.join("after.oc"), &swapped).unwrap();
    let ok = oc(&dir, &["army", "outfit", "before.oc", "after.oc", "--name", "RenaisVanguard"]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(text(&ok.stdout).contains("Forde (Cavalier): IronSword, IronLance -> SteelSword, IronLance"), "{}", text(&ok.stdout));

    let reclassed =
        before.replace("unit Forde: Cavalier { items IronSword, IronLance }", "unit Forde: Mercenary { items IronSword }");
    std::fs::write(dir.join("after.oc"), &reclassed).unwrap();
    let bad = oc(&dir, &["army", "outfit", "before.oc", "after.oc", "--name", "RenaisVanguard"]);
    assert_eq!(bad.status.code(), Some(1));
    let err = text(&bad.stderr);
    assert!(
        err.contains("oc::army::class_changed") && err.contains("`Forde` was a Cavalier when the classes were scouted"),
        "{err}"
    );
    assert!(err.contains("after.oc:30:17"), "points at the class in the new file: {err}");
    assert!(err.contains("not accepted: 1 change(s) the Outfitting phase does not allow"), "{err}");
    // Without --name, the armies the file defines or imports, counted.
    let several = oc(&dir, &["army", "scout", "before.oc"]);
    assert_eq!(several.status.code(), Some(2));
    assert!(text(&several.stderr).contains("before.oc defines or imports 2 armies: "), "{}", text(&several.stderr));
}

#[test]
fn simulate_finishes_on_every_shipped_scenario_and_is_reproducible() {
    let mut files: Vec<String> = std::fs::read_dir(repo().join("scenarios"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".oc"))
        .collect();
    files.sort();
    assert!(files.len() >= 8);
    for f in &files {
        let path = format!("scenarios/{f}");
        let run = || oc(&repo(), &["simulate", &path, "--games", "6", "--seed", "9", "--format", "json"]);
        let (a, b) = (run(), run());
        assert_eq!(a.status.code(), Some(0), "{f}: {}", text(&a.stderr));
        assert_eq!(a.stdout, b.stdout, "{f}: the same seed must give the same result");
        let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
        for key in ["games", "attacker_wins", "defender_wins", "draws", "attacker_win_rate", "ci95", "mean_rounds"] {
            assert!(v.get(key).is_some(), "{f}: no `{key}` in {v}");
        }
        assert_eq!(v["games"], 6);
        let total = v["attacker_wins"].as_u64().unwrap() + v["defender_wins"].as_u64().unwrap() + v["draws"].as_u64().unwrap();
        assert_eq!(total, 6);
        let ci = v["ci95"].as_array().unwrap();
        let rate = v["attacker_win_rate"].as_f64().unwrap();
        assert!(ci[0].as_f64().unwrap() <= rate && rate <= ci[1].as_f64().unwrap(), "{f}: {v}");
    }
}

#[test]
fn a_battle_log_replays_and_an_edited_one_does_not() {
    let dir = scratch("replay");
    let log = dir.join("keep.jsonl");
    let run = oc(&repo(), &["battle", "scenarios/border-mulan.oc", "--seed", "4", "--log", log.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let again = dir.join("again.jsonl");
    oc(&repo(), &["battle", "scenarios/border-mulan.oc", "--seed", "4", "--log", again.to_str().unwrap()]);
    assert_eq!(std::fs::read(&log).unwrap(), std::fs::read(&again).unwrap(), "byte-identical logs from one seed");
    // The log lies outside the project, so it names the project it belongs to.
    let ok = oc(&repo(), &["replay", log.to_str().unwrap(), "--project", repo().to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(text(&ok.stderr).contains("identical"));
    let body = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = body.lines().collect();
    let edited: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| if i == 3 { l.replacen("\"round\":1", "\"round\":7", 1) } else { l.to_string() })
        .collect();
    assert_ne!(edited[3], lines[3], "the edit must change a line");
    std::fs::write(&log, edited.join("\n") + "\n").unwrap();
    let bad = oc(&repo(), &["replay", log.to_str().unwrap(), "--project", repo().to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).contains("keep.jsonl:4: the replay differs here"), "{}", text(&bad.stderr));
}

#[test]
fn a_log_of_a_scenario_or_army_the_rules_no_longer_have_says_what_the_log_names() {
    // The play commands' help ("choose one with --scenario NAME") names options `oc replay` does
    // not take: the log chooses the scenario and the armies.
    let dir = scratch("replay-renamed");
    let log = dir.join("renamed.jsonl");
    let run = oc(&repo(), &["battle", "scenarios/border-mulan.oc", "--seed", "4", "--log", log.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let body = std::fs::read_to_string(&log).unwrap();
    for (from, to, names) in [
        ("\"scenario\":\"TakeTheKeep\"", "\"scenario\":\"TakeTheFort\"", "the log was played in scenario TakeTheFort"),
        ("\"attacker\":\"RenaisVanguard\"", "\"attacker\":\"RenaisRearguard\"", "by the attacker army RenaisRearguard"),
    ] {
        let (head, rest) = body.split_once('\n').unwrap();
        assert!(head.contains(from), "{head}");
        std::fs::write(&log, format!("{}\n{rest}", head.replacen(from, to, 1))).unwrap();
        let bad = oc(&repo(), &["replay", log.to_str().unwrap(), "--project", repo().to_str().unwrap()]);
        let err = text(&bad.stderr);
        assert_eq!(bad.status.code(), Some(2), "{err}");
        assert!(err.contains(names), "{err}");
        assert!(!err.contains("--scenario") && !err.contains("--attacker"), "{err}");
    }
}

#[test]
fn a_fog_battle_log_records_what_each_side_saw_and_replays_byte_identically() {
    let dir = scratch("replay-fog");
    let log = dir.join("night.jsonl");
    let run = oc(&repo(), &["battle", "scenarios/zaha-woods-night.oc", "--seed", "3", "--log", log.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0), "{}", text(&run.stderr));
    let body = std::fs::read_to_string(&log).unwrap();
    for side in ["attacker", "defender"] {
        assert!(body.contains(&format!("{{\"event\":\"seen\",\"side\":\"{side}\",\"spotted\":[[")), "{side} spots");
    }
    let ok = oc(&repo(), &["replay", log.to_str().unwrap(), "--project", repo().to_str().unwrap()]);
    assert_eq!(ok.status.code(), Some(0), "{}", text(&ok.stderr));
    assert!(text(&ok.stderr).contains("identical"));
    // What a side saw is part of the log: a `seen` line edited is a difference.
    let n = body.lines().position(|l| l.contains("\"event\":\"seen\"") && l.contains("\"spotted\":[[")).unwrap();
    let edited: Vec<String> = body
        .lines()
        .enumerate()
        .map(|(i, l)| if i == n { l.replacen("\"spotted\":[[", "\"spotted\":[[9", 1) } else { l.into() })
        .collect();
    std::fs::write(&log, edited.join("\n") + "\n").unwrap();
    let bad = oc(&repo(), &["replay", log.to_str().unwrap(), "--project", repo().to_str().unwrap()]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stderr).contains(&format!("night.jsonl:{}: the replay differs here", n + 1)), "{}", text(&bad.stderr));
}

#[test]
fn forecast_and_duel_refuse_loadouts_an_army_could_not_field() {
    // Seed 000: "Exclusive(Class) | Can only be used by the tagged Class |" (the Wo Dao is the
    // Swordmaster's), and a class fights only with the weapon types it wields.
    for cmd in ["forecast", "duel"] {
        let out = oc(&repo(), &[cmd, "--attacker", "Myrmidon:WoDao", "--defender", "Fighter"]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("`WoDao` is exclusive to Swordmaster, not a Myrmidon"), "{}", text(&out.stderr));
        let out = oc(&repo(), &[cmd, "--attacker", "Myrmidon", "--defender", "Fighter:SilverSword"]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("a Fighter cannot wield Swords"), "{}", text(&out.stderr));
    }
    let out = oc(&repo(), &["forecast", "--attacker", "Swordmaster:WoDao", "--defender", "Fighter"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // An attacker that may not attack (Sleep: `can_attack = false`) makes no exchange, as the
    // battle refuses its attack (both commands showed its strikes).
    for cmd in ["forecast", "duel"] {
        let out = oc(&repo(), &[cmd, "--attacker", "Knight", "--defender", "Fighter", "--attacker-status", "Sleep"]);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
        assert!(text(&out.stderr).contains("Knight cannot attack as loaded"), "{}", text(&out.stderr));
    }
}

#[test]
fn a_mistyped_subcommand_or_flag_gets_a_suggestion() {
    let out = oc(&repo(), &["chek", "."]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("a similar subcommand exists: 'check'"), "{}", text(&out.stderr));
    let out = oc(&repo(), &["check", "--fromat", "json"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--format"), "{}", text(&out.stderr));
}

#[test]
fn completions_for_every_shell_name_the_commands() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let out = oc(&repo(), &["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", String::from_utf8_lossy(&out.stderr));
        let script = String::from_utf8_lossy(&out.stdout);
        for command in ["check", "simulate", "forecast", "fmt", "completions"] {
            assert!(script.contains(command), "{shell} completions lack {command}");
        }
    }
    // The bash script is valid bash (where bash is installed).
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-completions-{}", std::process::id())));
    let file = dir.join("oc.bash");
    std::fs::write(&file, oc(&repo(), &["completions", "bash"]).stdout).unwrap();
    match Command::new("bash").arg("-n").arg(&file).output() {
        Ok(check) => assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stderr)),
        Err(e) => eprintln!("skipped: bash is not installed ({e})"),
    }
    // A misspelt command gets a suggestion.
    let out = oc(&repo(), &["chek", "."]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("a similar subcommand exists: 'check'"));
}

#[test]
fn forecast_points_at_the_home_brew_file_that_defines_a_missing_class() {
    let dir = scratch("forecast-homebrew");
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"t\"\n").unwrap();
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    std::fs::write(
        dir.join("rules/duelist.oc"),
        "class Duelist { ratings { str C mag E skl A spd A def E res D } wields Swords cost 1100 kit { IronSword } }\n",
    )
    .unwrap();
    let out = oc(&dir, &["forecast", "--attacker", "Duelist", "--defender", "Fighter"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("defined in rules/duelist.oc") && stderr.contains("--ruleset rules/duelist.oc"), "{stderr}");
    assert!(stderr.contains("ruleset = \"rules/duelist.oc\""), "{stderr}");
    // With the file, it works; a near miss gets the nearest names first.
    let out = oc(&dir, &["forecast", "--ruleset", "rules/duelist.oc", "--attacker", "Duelist", "--defender", "Fighter"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = oc(&dir, &["forecast", "--attacker", "Myrmidn", "--defender", "Fighter"]);
    assert!(text(&out.stderr).contains("did you mean `Myrmidon`?"), "{}", text(&out.stderr));
}

/// A mirror scenario writes its armies once, for the attacker (as `oc tournament` reads them):
/// `oc battle` fields the attacker's army on both sides unless `--defender` names another of
/// them, and the log replays. A side with no army written says so, not "there are: ".
#[test]
fn battle_fields_a_mirror_scenarios_armies_on_both_sides() {
    let dir = repo().join("target").join(format!("oc-cli-mirror-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (defender, want) in [(None, "\"defender\":\"Company\""), (Some("Bows"), "\"defender\":\"Bows\"")] {
        let mut args = vec!["battle", "tests/fixtures/mirror/stamina.oc", "--attacker", "Company", "--seed", "3"];
        args.extend(defender.iter().flat_map(|d| ["--defender", *d]));
        let out = oc(&repo(), &args);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let log = text(&out.stdout);
        assert!(log.lines().next().is_some_and(|l| l.contains(want)), "{want}: {}", log.lines().next().unwrap_or(""));
        let path = dir.join("mirror.jsonl");
        std::fs::write(&path, &out.stdout).unwrap();
        let replay = oc(&repo(), &["replay", path.to_str().unwrap()]);
        assert!(
            text(&replay.stderr).contains("identical") || text(&replay.stdout).contains("identical"),
            "{}",
            text(&replay.stderr)
        );
    }
    let out = oc(&repo(), &["battle", "tests/fixtures/mirror/stamina.oc", "--attacker", "Nobody"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        text(&out.stderr).contains("no attacker army `Nobody` for Mirror; there are: Company, Shields"),
        "{}",
        text(&out.stderr)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Found in review: commands reading the files of a folder of several rulesets (the shipped
/// scenarios) compiled them together into hundreds of errors in the standard library's own
/// files; and `--ruleset` naming a folder without `.oc` files read the built-in ruleset.
#[test]
fn a_folder_of_several_rulesets_is_one_refusal_and_an_empty_one_no_ruleset() {
    for args in [
        &["explain-scenario", "scenarios"][..],
        &["army", "scout", "scenarios"][..],
        &["forecast", "--attacker", "Lord", "--defender", "Lord", "--ruleset", "scenarios"][..],
        &["matrix", "--ruleset", "scenarios"][..],
    ] {
        let out = oc(&repo(), args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}\n{err}");
        assert!(err.contains("rulesets, and one `oc ") && !err.contains("std:"), "{args:?}\n{err}");
    }
    let empty = scratch("empty-ruleset");
    let out = oc(&repo(), &["forecast", "--attacker", "Lord", "--defender", "Lord", "--ruleset", empty.to_str().unwrap()]);
    assert!(out.status.code() == Some(2) && text(&out.stderr).contains("no .oc files"), "{}", text(&out.stderr));
}

/// Found in review: `oc tournament --army` took a misspelt army in silence (or said no more
/// than that nothing was found), and named a defender army "no scenario with an army on each
/// side"; a file named twice was played twice.
#[test]
fn tournament_armies_are_checked_by_name() {
    let mirror = "tests/fixtures/mirror/ratings.oc";
    let out = oc(
        &repo(),
        &["tournament", mirror, "--ais", "greedy", "greedy", "--games", "1", "--army", "Vanguard", "--army", "Vangard"],
    );
    let err = text(&out.stderr);
    assert!(out.status.code() == Some(2) && err.contains("did you mean `Vanguard`?"), "{err}");
    let out = oc(
        &repo(),
        &[
            "tournament",
            "--as-written",
            "scenarios/serafew.oc",
            "--ais",
            "greedy",
            "greedy",
            "--games",
            "1",
            "--army",
            "HarbourGarrison",
        ],
    );
    assert!(text(&out.stderr).contains("it is a defender army"), "{}", text(&out.stderr));
    let once = oc(
        &repo(),
        &["tournament", mirror, "--ais", "greedy", "greedy", "--games", "1", "--army", "Vanguard", "--format", "json"],
    );
    let twice = oc(
        &repo(),
        &["tournament", mirror, mirror, "--ais", "greedy", "greedy", "--games", "1", "--army", "Vanguard", "--format", "json"],
    );
    assert_eq!(text(&once.stdout), text(&twice.stdout), "{}", text(&twice.stderr));
}
