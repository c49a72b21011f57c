//! `oc check --format human|json|sarif|github` agree on every diagnostic's code and position,
//! over every compile and atlas fixture; `--deny warnings` fails on warnings alone.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn oc(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).env("NO_COLOR", "1").output().expect("oc runs")
}

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = Vec::new();
    for dir in ["crates/oc-compiler/tests/fixtures/compile", "tests/fixtures/atlas", "crates/oc-compiler/tests/fixtures/hints"] {
        for e in std::fs::read_dir(root.join(dir)).unwrap() {
            let p = e.unwrap().path();
            let name = p.to_string_lossy().to_string();
            if name.ends_with(".oc") || name.ends_with(".map.toml") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

type Found = BTreeSet<(String, u64, u64, u64, u64)>;

fn json_positions(path: &str) -> Found {
    let out = oc(&["check", path, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let n = |d: &serde_json::Value, k: &str| d[k].as_u64().unwrap();
    v["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| (d["code"].as_str().unwrap().to_string(), n(d, "line"), n(d, "column"), n(d, "end_line"), n(d, "end_column")))
        .collect()
}

fn sarif_positions(path: &str) -> Found {
    let out = oc(&["check", path, "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    let run = &v["runs"][0];
    let rules: BTreeSet<&str> =
        run["tool"]["driver"]["rules"].as_array().unwrap().iter().map(|r| r["id"].as_str().unwrap()).collect();
    run["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let code = r["ruleId"].as_str().unwrap();
            assert!(rules.contains(code), "{code} is not among the SARIF rules");
            let reg = &r["locations"][0]["physicalLocation"]["region"];
            let n = |k: &str| reg[k].as_u64().unwrap();
            (code.to_string(), n("startLine"), n("startColumn"), n("endLine"), n("endColumn"))
        })
        .collect()
}

fn github_positions(path: &str) -> Found {
    let out = oc(&["check", path, "--format", "github"]);
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| {
            let props = l.split_once(' ').unwrap().1.split("::").next().unwrap();
            let get = |k: &str| props.split(',').find_map(|p| p.strip_prefix(&format!("{k}="))).unwrap().to_string();
            let n = |k: &str| get(k).parse::<u64>().unwrap();
            (get("title").replace("%3A", ":"), n("line"), n("col"), n("endLine"), n("endColumn"))
        })
        .collect()
}

fn compare(path: &Path) -> usize {
    let p = path.to_string_lossy().to_string();
    let json = json_positions(&p);
    assert_eq!(sarif_positions(&p), json, "{p}: SARIF vs JSON");
    assert_eq!(github_positions(&p), json, "{p}: GitHub vs JSON");
    // The human report names each primary position as file:line:column.
    let human = String::from_utf8_lossy(&oc(&["check", &p]).stderr).to_string();
    for (code, line, column, _, _) in &json {
        assert!(human.contains(code.as_str()), "{p}: human output lacks {code}");
        assert!(human.contains(&format!(":{line}:{column}]")), "{p}: human output lacks {line}:{column} for {code}");
    }
    json.len()
}

#[test]
fn every_format_reports_the_same_codes_at_the_same_places() {
    let all = fixtures();
    // Two threads: the machine has two cores.
    let compared: usize = std::thread::scope(|s| {
        let halves: Vec<_> =
            all.chunks(all.len().div_ceil(2)).map(|c| s.spawn(move || c.iter().map(|p| compare(p)).sum::<usize>())).collect();
        halves.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert!(compared > 100, "only {compared} diagnostics compared");
}

#[test]
fn deny_warnings_fails_on_a_warning() {
    let map = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/atlas/unused_legend.map.toml");
    assert_eq!(oc(&["check", map]).status.code(), Some(0), "a warning alone passes");
    assert_eq!(oc(&["check", map, "--deny", "warnings"]).status.code(), Some(1));
    let github = String::from_utf8_lossy(&oc(&["check", map, "--format", "github"]).stdout).to_string();
    assert!(github.starts_with("::warning file="), "{github}");
}
