//! `oc balance` end to end: a project with a deliberately underpriced and a deliberately
//! overpriced home-brew class gets `oc::balance::cost_outlier` on each `cost` (line and column),
//! with the matchups that show it, and none on the class priced about right nor on the standard
//! library; the same seed prints the same numbers; every `oc::balance::*` code has a fixture
//! (`tests/fixtures/balance/CODE/`, its `expected` lines rewritten by `OC_BLESS=1`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn oc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(repo()).env("NO_COLOR", "1").output().expect("oc runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Duels per matchup in these tests: enough to tell the classes apart, few enough to be quick.
const DUELS: &str = "2";

fn json(fixture: &Path, seed: &str) -> Value {
    let out = oc(&["balance", fixture.to_str().unwrap(), "--duels", DUELS, "--seed", seed, "--format", "json"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `warning CODE LINE:COL message` per diagnostic.
fn lines(report: &Value) -> String {
    report["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            format!(
                "{} {} {}:{} {}\n",
                d["severity"].as_str().unwrap(),
                d["code"].as_str().unwrap(),
                d["line"],
                d["column"],
                d["message"].as_str().unwrap()
            )
        })
        .collect()
}

#[test]
fn every_balance_code_has_a_fixture_that_triggers_it() {
    let mut expectations = oc_testkit::Expectations::new();
    for info in oc_balance::CODES {
        let name = info.code.rsplit("::").next().unwrap();
        let dir = repo().join("tests/fixtures/balance").join(name);
        let report = json(&dir, "1");
        let actual = lines(&report);
        expectations.check(&dir.join("expected"), &actual);
        assert!(actual.contains(&format!(" {} ", info.code)), "the fixture triggers {}", info.code);
        assert!(info.explanation.len() > 80);
    }
    expectations.finish("balance fixture(s)");
}

#[test]
fn an_overpriced_and_an_underpriced_homebrew_class_are_each_flagged_at_their_cost() {
    let dir = repo().join("tests/fixtures/balance/cost_outlier");
    let report = json(&dir, "1");
    let diags = report["diagnostics"].as_array().unwrap();
    assert_eq!(diags.len(), 2, "{diags:#?}");
    let source = std::fs::read_to_string(dir.join("classes.oc")).unwrap();
    for (class, cost, how) in [("Paragon", "450", "underpriced"), ("Dud", "2600", "overpriced")] {
        let d = diags.iter().find(|d| d["message"].as_str().unwrap().contains(&format!("`{class}`"))).expect(class);
        assert_eq!(d["code"], "oc::balance::cost_outlier");
        assert_eq!(d["severity"], "warning");
        // The span is the cost's value in the user's file.
        let line = source.lines().nth(d["line"].as_u64().unwrap() as usize - 1).unwrap();
        let col = d["column"].as_u64().unwrap() as usize - 1;
        assert_eq!(&line[col..col + cost.len()], cost, "{class}: {line}");
        assert!(d["file"].as_str().unwrap().ends_with("classes.oc"));
        let message = d["message"].as_str().unwrap();
        assert!(message.contains(how), "{message}");
        // The help names the matchups that show it.
        let help = d["help"].as_str().unwrap();
        assert!(help.matches("vs ").count() >= 2 && help.contains("of duels"), "{help}");
    }
    // The suggestions point the right way, and the class priced about right passes.
    let priced = |name: &str| report["classes"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap().clone();
    assert!(priced("Paragon")["suggested"].as_i64().unwrap() > 1500);
    assert!(priced("Dud")["suggested"].as_i64().unwrap() < 1000);
    assert_eq!(priced("Squire")["homebrew"], true);
    assert_eq!(priced("Myrmidon")["homebrew"], false, "the standard library is not warned about");
    assert!(report["class_fit"]["beta"].as_f64().unwrap() > 0.0, "stronger classes cost more on the curve");
}

#[test]
fn the_same_seed_prints_the_same_numbers() {
    let dir = repo().join("tests/fixtures/balance/cost_outlier");
    let run = |seed: &str| {
        let out = oc(&["balance", dir.to_str().unwrap(), "--duels", DUELS, "--seed", seed]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        // The first line ends with the time taken.
        text(&out.stdout).lines().skip(1).collect::<Vec<_>>().join("\n")
    };
    let first = run("3");
    assert_eq!(first, run("3"));
    assert!(first.contains("written  suggested"), "{first}");
    assert!(first.contains("<< underpriced") && first.contains("<< overpriced"), "{first}");
    assert_ne!(first, run("4"), "another seed plays other duels");
    // Without duels: the exact forecasts only, the same whatever the seed.
    let exact =
        |seed: &str| text(&oc(&["balance", dir.to_str().unwrap(), "--duels", "0", "--seed", seed, "--format", "json"]).stdout);
    assert_eq!(exact("1"), exact("2").replace("\"seed\":2", "\"seed\":1"));
}

/// A price curve that does not hold judges no price: over the custom ruleset's three classes the
/// curve falls with strength (R^2 below 0), and the strongest class was called overpriced.
#[test]
fn a_curve_that_does_not_hold_warns_of_no_price() {
    let out = oc(&["balance", "examples/custom_ruleset"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let all = text(&out.stdout) + &text(&out.stderr);
    assert!(all.contains("price curve over all 3 classes"), "{all}");
    assert!(all.contains("this curve does not hold"), "{all}");
    assert!(!all.contains("oc::balance::cost_outlier"), "{all}");
}
