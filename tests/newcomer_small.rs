//! Issue 43 item 10, "the rest, each small": one test per item, driving the real binary.

mod common;
use common::{oc, repo, text};
use std::path::{Path, PathBuf};

fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-small-{}-{name}", std::process::id())));
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"small\"\n").unwrap();
    dir
}

fn write(root: &Path, path: &str, body: &str) {
    let target = root.join(path);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(target, body).unwrap();
}

/// The Duelist of the class tutorial, on its own file.
const DUELIST: &str = "class Duelist \"Duelist\" {\n    ratings { str C mag E skl A spd A def E res D }\n    wields Swords\n    tags Lucky(5)\n    cost 1100\n    kit { IronSword, Vulnerary }\n}\n";

/// `oc matrix --distance` measures at that distance (each weapon reaching it), and `--class`
/// keeps only those attackers; an unknown class is refused with a did-you-mean.
#[test]
fn matrix_measures_at_a_distance_and_for_chosen_classes() {
    let run = oc(&repo(), &["matrix", "--distance", "2", "--class", "Archer", "--class", "Mage"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let csv = text(&run.stdout);
    let rows: Vec<&str> = csv.lines().skip(1).collect();
    assert!(!rows.is_empty(), "{csv}");
    for row in &rows {
        let cells: Vec<&str> = row.split(',').collect();
        assert!(cells[0] == "Archer" || cells[0] == "Mage", "{row}");
        assert_eq!(cells[4], "2", "{row}");
    }
    assert!(rows.iter().any(|r| r.starts_with("Mage,")) && rows.iter().any(|r| r.starts_with("Archer,")), "{csv}");
    let run = oc(&repo(), &["matrix", "--class", "Archr"]);
    assert_eq!(run.status.code(), Some(2));
    assert!(text(&run.stderr).contains("did you mean `Archer`?"), "{}", text(&run.stderr));
}

/// `oc balance` does not price an Exclusive kit weapon against itself ("1.00, fairly priced"):
/// the Rapier is measured only as the Lord's, so it is listed as not measured, with why.
#[test]
fn balance_does_not_price_a_kit_weapon_against_itself() {
    let run = oc(&repo(), &["balance", "--duels", "0", "--format", "json"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let report: serde_json::Value = serde_json::from_slice(&run.stdout).unwrap();
    let priced = report["items"].as_array().unwrap();
    assert!(!priced.iter().any(|i| i["name"] == "Rapier"), "the Rapier is priced against itself");
    let unmeasured = report["unmeasured"].as_array().unwrap();
    let rapier = unmeasured.iter().find(|u| u["name"] == "Rapier").expect("the Rapier is listed as not measured");
    assert!(rapier["why"].as_str().unwrap().contains("kit weapon of every class that wields it"), "{rapier}");
}

/// `oc render --class` finds a home-brew class through `--ruleset`, or the project's `ruleset`.
#[test]
fn render_finds_a_homebrew_class_in_the_project_rules() {
    let dir = scratch("render");
    write(&dir, "rules/duelist.oc", DUELIST);
    std::fs::copy(repo().join("scenarios/maps/ide.map.toml"), dir.join("ide.map.toml")).unwrap();
    let args = ["render", "ide.map.toml", "-o", "reach.png", "--reach", "1,1", "--class", "Duelist"];
    let run = oc(&dir, &args);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    assert!(text(&run.stderr).contains("--ruleset FILE.oc"), "{}", text(&run.stderr));
    let run = oc(&dir, &[&args[..], &["--ruleset", "rules/duelist.oc"]].concat());
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(text(&run.stderr).contains("Reach of a Duelist"), "{}", text(&run.stderr));
    // The project's own ruleset, as forecast uses it.
    write(&dir, "oc.toml", "[project]\nname = \"small\"\nruleset = \"rules/duelist.oc\"\n");
    let run = oc(&dir, &[&args[..], &["--force"]].concat());
    assert!(run.status.success(), "{}", text(&run.stderr));
}

/// `import "std:ratngs"`: a did-you-mean among the built-in rulesets, not a help on paths.
#[test]
fn a_misspelt_builtin_ruleset_import_gets_a_did_you_mean() {
    let dir = scratch("std");
    write(&dir, "a.oc", "import \"std:ratngs\"\n");
    let run = oc(&dir, &["check", "a.oc"]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("did you mean `std:ratings`?"), "{err}");
    assert!(!err.contains("relative to the importing file"), "{err}");
}

/// A misspelt import's did-you-mean is said as the import is written, from the importing file's
/// folder, and applying it literally checks clean (a newcomer review: `rules/warden.oc` was
/// suggested to `m12/ford.oc`, which then looked for `m12/rules/warden.oc`).
#[test]
fn a_misspelt_import_s_suggestion_works_as_written() {
    let dir = scratch("import-relative");
    write(&dir, "rules/duelist.oc", DUELIST);
    write(&dir, "m12/ford.oc", "import \"../rule/duelist.oc\"\n");
    let run = oc(&dir, &["check", "m12/ford.oc"]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("did you mean `../rules/duelist.oc`?"), "{err}");
    write(&dir, "m12/ford.oc", "import \"../rules/duelist.oc\"\n");
    let run = oc(&dir, &["check", "m12/ford.oc"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
}

/// The guide shows `oc export uvtt` and `oc import tiled`, and that renders name the regions.
#[test]
fn the_guide_shows_every_map_command() {
    let map = std::fs::read_to_string(repo().join("docs/tutorial-map.md")).unwrap();
    let commands = std::fs::read_to_string(repo().join("docs/commands.md")).unwrap();
    for page in [&map, &commands] {
        assert!(page.contains("oc export uvtt"), "the guide does not show oc export uvtt");
        assert!(page.contains("oc import tiled"), "the guide does not show oc import tiled");
    }
    assert!(!map.contains("initials"), "renders show region names, not initials");
}

/// `oc watch FILE` watches one file (its first report is that file's).
#[test]
fn watch_takes_a_file() {
    let dir = scratch("watch");
    write(&dir, "a.oc", DUELIST);
    write(&dir, "b.oc", "class Broken {\n");
    let bin = PathBuf::from(env!("CARGO_BIN_EXE_oc"));
    let a = dir.join("a.oc");
    let (mut child, lines) = common::spawn_lines(&bin, &["watch", a.to_str().unwrap(), "--format", "json"]);
    let first = lines.recv_timeout(std::time::Duration::from_secs(60));
    let _ = child.kill();
    let _ = child.wait();
    let first = first.expect("a first report");
    let report: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(report["errors"], 0, "only a.oc is watched, not the broken b.oc: {first}");
    let run = oc(&dir, &["watch", "oc.toml"]);
    assert_eq!(run.status.code(), Some(2));
}

/// An army's unknown class that another project file defines: the help names the file and the
/// import to add (as `oc forecast` does).
#[test]
fn an_unknown_class_names_the_file_that_defines_it() {
    let dir = scratch("elsewhere");
    write(&dir, "rules/duelist.oc", DUELIST);
    std::fs::copy(repo().join("scenarios/maps/ide.map.toml"), dir.join("maps/ide.map.toml")).ok();
    write(&dir, "maps/ide.map.toml", &std::fs::read_to_string(repo().join("scenarios/maps/ide.map.toml")).unwrap());
    let ide = std::fs::read_to_string(repo().join("scenarios/ide.oc")).unwrap();
    let unit = ide.lines().find(|l| l.trim_start().starts_with("unit ")).unwrap();
    let class = unit.split(':').nth(1).unwrap().split_whitespace().next().unwrap();
    let changed = ide.replacen(unit, &unit.replacen(class, "Duelist", 1), 1).replace("\"maps/", "\"../maps/");
    write(&dir, "campaign/ide.oc", &changed);
    let run = oc(&dir, &["check", "campaign/ide.oc", "--format", "json"]);
    assert_eq!(run.status.code(), Some(1), "{}", text(&run.stderr));
    let out = text(&run.stdout);
    assert!(
        out.contains("the class `Duelist` is defined in rules/duelist.oc, which this file does not import: add `import \\\"../rules/duelist.oc\\\"`"),
        "{out}"
    );
}

/// `win rout "Nobody"` (no enemy unit by that name) and `at_most 4/3 ranged` are errors.
#[test]
fn a_rout_of_nobody_and_a_fraction_above_one_are_errors() {
    let dir = scratch("limits");
    write(&dir, "maps/ide.map.toml", &std::fs::read_to_string(repo().join("scenarios/maps/ide.map.toml")).unwrap());
    let ide = std::fs::read_to_string(repo().join("scenarios/ide.oc")).unwrap();
    let win = ide.lines().find(|l| l.trim_start().starts_with("win ")).unwrap();
    let nobody = ide.replacen(win, "        win rout \"Nobdy\"", 1);
    write(&dir, "ide.oc", &nobody);
    let run = oc(&dir, &["check", "ide.oc"]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("cannot win by routing `Nobdy`: no defender army has a unit by that name"), "{err}");
    let zone = ide.lines().find(|l| l.trim_start().starts_with("zone ")).unwrap();
    let fraction = ide.replacen(zone, &format!("{zone}\n        at_most 4/3 ranged"), 1);
    write(&dir, "ide.oc", &fraction);
    let run = oc(&dir, &["check", "ide.oc"]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("at_most 4/3 of the army: it limits nothing"), "{err}");
}

/// `oc explain-scenario` lists the map's chests, doors and walls that break.
#[test]
fn explain_scenario_lists_chests_doors_and_walls() {
    let run = oc(&repo(), &["explain-scenario", "scenarios/grado-keep.oc"]);
    let out = text(&run.stdout);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let map = std::fs::read_to_string(repo().join("scenarios/maps/grado-keep.map.toml")).unwrap();
    if map.contains("[[chests]]") {
        assert!(out.contains("Chests: "), "{out}");
    }
    if map.contains("[[doors]]") {
        assert!(out.contains("Doors: ") && out.contains("opens with"), "{out}");
    }
    if map.contains("[[destructibles]]") {
        assert!(out.contains("Walls that can be struck down: ") && out.contains(" HP"), "{out}");
    }
    // Every other square the battle strikes down by its terrain's own hit points is said too
    // (Grado Keep's other walls: the engine strikes them as it does the one listed).
    assert!(
        out.contains("Other squares that can be struck down (their terrain's hit points): Wall (30 HP, becomes Floor) on "),
        "{out}"
    );
    assert!(
        map.contains("[[doors]]") || map.contains("[[destructibles]]") || map.contains("[[chests]]"),
        "pick a map with things"
    );
    let json = oc(&repo(), &["explain-scenario", "scenarios/grado-keep.oc", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(v["doors"].is_array() && v["destructibles"].is_array() && v["chests"].is_array(), "{v}");
    // The map's path as typed from where the command runs (it was the project's path).
    assert!(out.starts_with("Siege of Grado Keep (SiegeOfGrado), on scenarios/maps/grado-keep.map.toml\n"), "{out}");
    let inside = oc(&repo().join("scenarios"), &["explain-scenario", "grado-keep.oc"]);
    assert!(text(&inside.stdout).starts_with("Siege of Grado Keep (SiegeOfGrado), on maps/grado-keep.map.toml\n"));
    assert_eq!(v["map"], "scenarios/maps/grado-keep.map.toml", "the JSON keeps the project's path");
}

/// The forecast's header says the terrain each side stands on.
#[test]
fn the_forecast_header_names_the_terrain() {
    let run = oc(&repo(), &["forecast", "--attacker", "Fighter", "--defender", "Knight", "--defender-terrain", "Forest"]);
    let out = text(&run.stdout);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let header = out.lines().next().unwrap();
    assert!(header.contains("defender on Forest") && header.contains("attacker on"), "{header}");
}

/// A replay page titles the scenario as players know it (its title, not its code name).
#[test]
fn a_replay_page_shows_the_scenario_title() {
    let dir = scratch("replay");
    let page = dir.join("ide.html");
    let run = oc(&repo(), &["battle", "scenarios/ide.oc", "--seed", "1", "--html", page.to_str().unwrap()]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("<title>Through the Dunes:"), "{}", &html[..html.len().min(600)]);
}

/// `oc build` over files of several rulesets: one error that says which files use which and how
/// to build each, not the cascade of one compilation.
#[test]
fn build_over_several_rulesets_says_how() {
    let dir = scratch("build");
    let out = dir.join("rules.json");
    let run = oc(&repo(), &["build", "scenarios", "-o", out.to_str().unwrap()]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(1), "{err}");
    assert!(err.contains("rulesets, and one `oc build` reads one ruleset's rules"), "{err}");
    assert!(err.contains("stamina: scenarios/stamina-caer-pelyn.oc"), "{err}");
    assert!(err.lines().count() < 12, "a cascade:\n{err}");
    assert!(!out.exists());
    // A folder holding a ruleset of its own beside files of the standard one (`examples/`) read
    // together gave the cascade of every file read against the one ruleset: `oc build` and
    // `oc balance` name each ruleset's files and how to run on them.
    for (args, code, how) in [
        (vec!["build", "examples", "-o", out.to_str().unwrap()], 1, "such as `oc build examples/"),
        (vec!["balance", "examples", "--seed", "1"], 2, "such as `oc balance examples/"),
    ] {
        let run = oc(&repo(), &args);
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(code), "{err}");
        assert!(err.contains("use 2 rulesets"), "{err}");
        assert!(err.contains("skirmish: examples/custom_ruleset/roster.oc, examples/custom_ruleset/skirmish.oc"), "{err}");
        assert!(err.contains(how), "{err}");
        assert!(err.lines().count() < 12, "a cascade:\n{err}");
    }
    // One ruleset's files: balanced.
    let run = oc(&repo(), &["balance", "examples/homebrew_class.oc", "--seed", "1"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
}

/// A misspelt ruleset in oc.toml: the commands that read it say which was meant and where (it
/// said "`officers_chess_v6`: no such file", with no help).
#[test]
fn a_misspelt_ruleset_in_oc_toml_is_named_with_the_one_meant() {
    let dir = scratch("ruleset");
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"p\"\nruleset = \"officers_chess_v6\"\n").unwrap();
    let run = oc(&dir, &["forecast", "--attacker", "Fighter", "--defender", "Knight"]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("oc.toml's ruleset `officers_chess_v6` is not a built-in ruleset"), "{err}");
    assert!(err.contains("help: did you mean `officers_chess_v06`?"), "{err}");
}

/// An export's `--out` of another export's kind (a Foundry scene to `x.uvtt`) is refused with
/// the command that writes that kind, and nothing is written.
#[test]
fn an_export_to_a_file_of_another_kind_names_the_export_that_writes_it() {
    let dir = scratch("foreign-extension");
    let cases = [
        (
            &["export", "foundry", "maps/crossing.map.toml", "-o", "x.uvtt"][..],
            "x.uvtt",
            "oc export uvtt maps/crossing.map.toml -o x.uvtt",
        ),
        (
            &["export", "uvtt", "maps/crossing.map.toml", "-o", "x.tmx"][..],
            "x.tmx",
            "oc export tiled maps/crossing.map.toml -o x.tmx",
        ),
        (
            &["export", "tiled", "maps/crossing.map.toml", "-o", "x.json"][..],
            "x.json",
            "oc export foundry maps/crossing.map.toml -o x.json",
        ),
        (&["export", "foundry", "maps/crossing.map.toml", "-o", "x.png"][..], "x.png", "such as `-o x.json`"),
        // A Tiled map in JSON: the command suggested writes TMX, named `.tmx`.
        (
            &["export", "foundry", "maps/crossing.map.toml", "-o", "x.tmj"][..],
            "x.tmj",
            "oc export tiled maps/crossing.map.toml -o x.tmx",
        ),
    ];
    for (args, file, help) in cases {
        let run = oc(&dir, args);
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(&format!("`{file}` names")) && err.contains(help), "{args:?}: {err}");
        assert!(!dir.join(file).exists(), "{args:?} wrote {file}");
    }
    // A Universal VTT file is JSON: `.json` is a name it may take.
    let run = oc(&repo(), &["export", "uvtt", "scenarios/maps/grado-keep.map.toml", "-o", "/dev/null/x.json"]);
    assert!(!text(&run.stderr).contains("names a Foundry scene"), "{}", text(&run.stderr));
}

/// A source that is a link out of the project stops every command as it stops `oc check`: the
/// diagnostic `oc::file::outside_project`, exit status 1 (oc doc and oc build said
/// `oc::file::unreadable` with 1, oc balance and the play commands the same with 2).
#[cfg(unix)]
#[test]
fn a_link_out_of_the_project_is_the_same_error_for_every_command() {
    let dir = scratch("link-out");
    std::os::unix::fs::symlink(repo().join("scenarios/ide.oc"), dir.join("link.oc")).unwrap();
    for args in [
        &["check", "link.oc"][..],
        &["doc", "link.oc", "-o", "site"],
        &["build", "link.oc", "-o", "rules.json"],
        &["balance", "link.oc"],
        &["simulate", "link.oc", "--games", "1"],
        &["matrix", "--ruleset", "link.oc"],
    ] {
        let run = oc(&dir, args);
        let err = text(&run.stderr);
        assert_eq!(run.status.code(), Some(1), "{args:?}: {err}");
        assert!(err.contains("oc::file::outside_project") && err.contains("help:"), "{args:?}: {err}");
    }
    assert!(!dir.join("site").exists() && !dir.join("rules.json").exists());
}
