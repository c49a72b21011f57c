//! `oc tune` end to end, on the lopsided scenarios of `tests/fixtures/tune/` (test fixtures,
//! not shipped): the win rate of the values it suggests, measured again by `oc simulate` with
//! other seeds; `--write` changing only what was tuned, byte for byte; nothing written without
//! it, nor values the search could not make even, nor into a read-only file; and each refusal a diagnostic (`cases/NAME.args` run from the
//! repository, `cases/NAME.expected` its exit status and standard error; `OC_BLESS=1` rewrites
//! them).

mod common;

use std::path::{Path, PathBuf};
use std::process::Output;

use common::{oc, repo, text};

/// A project of its own holding the fixture scenarios and their map.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("oc.toml"), "[project]\nname = \"tune\"\n").unwrap();
    for f in ["field.map.toml", "hunt.oc", "skirmish.oc"] {
        std::fs::copy(repo().join("tests/fixtures/tune").join(f), dir.path().join(f)).unwrap();
    }
    dir
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out.stdout)))
}

fn simulate_rate(dir: &Path, file: &str, games: &str, seed: &str) -> f64 {
    let report = json(&oc(dir, &["simulate", file, "--games", games, "--seed", seed, "--format", "json"]));
    report["attacker_win_rate"].as_f64().unwrap()
}

/// The suggested value of a row of the report (`rounds`, `attacker units`...).
fn value<'v>(report: &'v serde_json::Value, knob: &str) -> &'v serde_json::Value {
    report["values"].as_array().unwrap().iter().find(|v| v["knob"] == knob).unwrap_or_else(|| panic!("no {knob}: {report}"))
}

#[test]
fn tuning_brings_a_lopsided_scenario_to_even_and_writes_only_the_time_limit() {
    let dir = project();
    let before = std::fs::read_to_string(dir.path().join("hunt.oc")).unwrap();
    let as_written = simulate_rate(dir.path(), "hunt.oc", "200", "5");
    assert!(as_written < 0.1, "the fixture is lopsided as written: {as_written}");
    let out =
        oc(dir.path(), &["tune", "hunt.oc", "--knob", "rounds", "--games", "1000", "--seed", "3", "--write", "--format", "json"]);
    let report = json(&out);
    assert_eq!(report["written"], true, "{report}");
    let rate = report["suggested"]["attacker_win_rate"].as_f64().unwrap();
    assert!((0.45..=0.55).contains(&rate), "the suggested values' reported rate: {report}");
    assert!(report["current"]["attacker_win_rate"].as_f64().unwrap() < 0.1, "{report}");
    // Only the number of `rounds 4` changed.
    let rounds = value(&report, "rounds");
    assert_eq!(rounds["current"], "4");
    let tuned = rounds["suggested"].as_str().unwrap();
    let after = std::fs::read_to_string(dir.path().join("hunt.oc")).unwrap();
    assert_eq!(after, before.replacen("    rounds 4 then defender", &format!("    rounds {tuned} then defender"), 1));
    // Measured again, with other games: still even.
    let again = simulate_rate(dir.path(), "hunt.oc", "2000", "99");
    assert!((0.45..=0.55).contains(&again), "re-measured over 2000 games: {again} (rounds {tuned})");
    let check = oc(dir.path(), &["check", "hunt.oc"]);
    assert!(check.status.success() && text(&check.stderr).contains("0 errors, 0 warnings"), "{}", text(&check.stderr));
}

/// The sample armies tuned and written: dismissed units' lines gone, hired units' lines added
/// after the army's last in its style, the time limit and the `survive N rounds` said with it
/// moved together; every other byte kept (comments, odd spacing).
#[test]
fn writing_armies_changes_only_their_units_and_the_tuned_numbers() {
    let dir = project();
    let before = std::fs::read_to_string(dir.path().join("skirmish.oc")).unwrap();
    let args = ["tune", "skirmish.oc", "--games", "100", "--seed", "2", "--write", "--format", "json"];
    let report = json(&oc(dir.path(), &args));
    assert_eq!(report["knobs"], serde_json::json!(["army-size", "rounds"]));
    let after = std::fs::read_to_string(dir.path().join("skirmish.oc")).unwrap();
    // Rebuild the expected text from the report.
    let mut expected = before.clone();
    let rounds = value(&report, "rounds")["suggested"].as_str().unwrap();
    expected = expected.replacen("rounds 3 then defender", &format!("rounds {rounds} then defender"), 1);
    expected = expected.replacen("survive 3 rounds", &format!("survive {rounds} rounds"), 1);
    let mut changed = 0;
    for (side, army) in [("attacker", "army Raiders"), ("defender", "army Guards")] {
        for change in value(&report, &format!("{side} units"))["changes"].as_array().unwrap() {
            let change = change.as_str().unwrap();
            changed += 1;
            if let Some(rest) = change.strip_prefix("dismissed ") {
                let name = rest.split(' ').next().unwrap();
                let line = expected.lines().find(|l| l.trim_start().starts_with(&format!("unit {name}:"))).unwrap().to_string();
                expected = expected.replacen(&format!("{line}\n"), "", 1);
            } else if let Some(rest) = change.strip_prefix("hired ") {
                // "hired Raider11 (Cavalier, as Raider1)"
                let name = rest.split(' ').next().unwrap();
                let class = rest.split('(').nth(1).unwrap().split(',').next().unwrap();
                let start = expected.find(army).unwrap();
                let close = start + expected[start..].find("\n}").unwrap() + 1;
                expected.insert_str(close, &format!("    unit {name}: {class} {{ items IronLance }}\n"));
            } else {
                panic!("{change}");
            }
        }
    }
    assert!(changed > 0, "the armies were tuned: {report}");
    assert_eq!(after, expected, "{report}");
    assert!(
        after.contains("unit Raider2: Cavalier { items IronLance }  // the second") && after.contains("map   \"field.map.toml\"")
    );
    assert!(oc(dir.path(), &["check", "skirmish.oc"]).status.success());
}

#[test]
fn without_write_nothing_is_written_and_the_same_seed_says_the_same() {
    let dir = project();
    let path = dir.path().join("hunt.oc");
    let (before, modified) = (std::fs::read(&path).unwrap(), std::fs::metadata(&path).unwrap().modified().unwrap());
    let args = ["tune", "hunt.oc", "--knob", "rounds", "--games", "60", "--seed", "4"];
    let first = oc(dir.path(), &args);
    assert!(first.status.success(), "{}", text(&first.stderr));
    let stdout = text(&first.stdout);
    // Standard error is not a terminal here: no progress bar, only the search's lines.
    let stderr = text(&first.stderr);
    assert!(!stderr.contains('\r') && !stderr.contains('\x1b') && !stderr.contains(" games ("), "{stderr}");
    assert!(stdout.contains("hunt.oc is unchanged (--write writes the suggested values)"), "{stdout}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert_eq!(std::fs::metadata(&path).unwrap().modified().unwrap(), modified);
    assert_eq!(text(&oc(dir.path(), &args).stdout), stdout, "deterministic per seed");
    let names: Vec<String> =
        std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name().to_string_lossy().into_owned()).collect();
    assert_eq!(names.len(), 4, "no file left behind: {names:?}");
}

/// `--write` with values the search could not make even (their interval leaves 50%): the report
/// is printed, the file is left as it was, and the exit status says nothing was written.
#[test]
fn values_that_are_not_even_are_not_written() {
    let dir = project();
    let path = dir.path().join("hunt.oc");
    let before = std::fs::read(&path).unwrap();
    // 20 games a setting: with seed 1 the nearest values found win 25% (11-47%).
    let out = oc(dir.path(), &["tune", "hunt.oc", "--knob", "rounds", "--games", "20", "--seed", "1", "--write"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("the knobs could not bring the interval to 50%"), "{stdout}");
    assert!(stdout.contains("hunt.oc is unchanged: --write writes only values whose interval holds 50%"), "{stdout}");
    assert!(text(&out.stderr).contains("nothing was written to hunt.oc"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

#[test]
fn a_read_only_file_is_not_written() {
    use std::os::unix::fs::PermissionsExt;
    let dir = project();
    let path = dir.path().join("hunt.oc");
    let before = std::fs::read(&path).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
    let out = oc(dir.path(), &["tune", "hunt.oc", "--knob", "rounds", "--games", "60", "--write"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    // Said before any game is played (it was said after the whole search).
    let err = text(&out.stderr);
    assert!(err.contains("--write hunt.oc: it is read-only (make it writable to change it); no game was played"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
    assert!(out.stdout.is_empty());
    // Nor is a file that is not UTF-8 (a Latin-1 byte in a comment was said to be an edit made
    // meanwhile, after the search): the rules' own error, as `oc check` says it, before any game.
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
    let mut latin = before.clone();
    latin.extend_from_slice(b"// caf\xe9\n");
    std::fs::write(&path, &latin).unwrap();
    let out = oc(dir.path(), &["tune", "hunt.oc", "--knob", "rounds", "--games", "60", "--write"]);
    let err = text(&out.stderr);
    assert!(out.status.code() == Some(1) && err.contains("oc::file::not_utf8") && err.contains("hunt.oc:31:7"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), latin);
}

#[test]
fn refusals_are_diagnostics_with_spans_and_help() {
    let cases = repo().join("tests/fixtures/tune/cases");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&cases).unwrap().map(|e| e.unwrap().path()).collect();
    paths.retain(|p| p.extension().is_some_and(|x| x == "args"));
    paths.sort();
    assert!(paths.len() >= 4);
    let mut failures = oc_testkit::Expectations::new();
    for path in &paths {
        let args = std::fs::read_to_string(path).unwrap();
        let mut argv = vec!["tune"];
        argv.extend(args.split_whitespace());
        let out = oc(&repo(), &argv);
        let actual = format!("exit {}\n{}", out.status.code().unwrap_or(-1), text(&out.stderr));
        failures.check(&path.with_extension("expected"), &actual);
        assert!(out.stdout.is_empty(), "{}", path.display());
    }
    failures.finish("refusal(s)");
}

#[test]
fn every_tune_code_has_a_case_and_an_explanation() {
    let cases = repo().join("tests/fixtures/tune/cases");
    let list = text(&oc(&repo(), &["explain", "--list"]).stdout);
    let codes: Vec<&str> =
        list.lines().filter_map(|l| l.split_whitespace().next()).filter(|c| c.starts_with("oc::tune::")).collect();
    assert!(codes.len() >= 4, "{list}");
    for code in codes {
        let name = code.trim_start_matches("oc::tune::");
        let expected = std::fs::read_to_string(cases.join(format!("{name}.expected"))).unwrap_or_default();
        assert!(expected.contains(code), "cases/{name}.args must trigger {code}");
        let explanation = text(&oc(&repo(), &["explain", code]).stdout);
        assert!(explanation.len() > 200, "{code}: {explanation}");
    }
}
