//! The shipped scenarios' fairness: a short run of every one (`oc fairness`, fixed seed, so the
//! same games every time) keeps the attacker's win rate within a wide band; the table in
//! `scenarios/README.md` (made by `oc fairness --games 1000`) names every shipped scenario as
//! fair; and `--readme` rewrites only what lies between the markers.

mod common;

use common::{oc, repo, text};

/// 40 games of each (20 of the slow Battlestorm one): the attacker wins between 15% and 85%.
/// This is the band CI holds the shipped scenarios to; the README's table, over 1000 games,
/// holds them to 35%-65%.
#[test]
fn every_shipped_scenario_stays_within_a_wide_band() {
    let out = oc(
        &repo(),
        &["fairness", "scenarios", "--games", "40", "--games-for", "RiverStorm=20", "--seed", "11", "--format", "json"],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let rows = report["rows"].as_array().unwrap();
    let files: Vec<String> =
        rows.iter().map(|r| r["file"].as_str().unwrap().trim_start_matches("scenarios/").to_string()).collect();
    assert_eq!(files, common::shipped_scenarios(), "one row per shipped scenario");
    let outside: Vec<String> = rows
        .iter()
        .filter(|r| !(0.15..=0.85).contains(&r["attacker_win_rate"].as_f64().unwrap()))
        .map(|r| format!("{} {}: {}", r["file"], r["scenario"], r["attacker_win_rate"]))
        .collect();
    assert!(outside.is_empty(), "attacker win rates outside 15%-85%: {outside:?}");
}

#[test]
fn the_readme_table_calls_every_shipped_scenario_fair() {
    let readme = std::fs::read_to_string(repo().join("scenarios/README.md")).unwrap();
    let begin = readme.find("<!-- fairness:begin -->").expect("the table's begin marker");
    let end = readme.find("<!-- fairness:end -->").expect("the table's end marker");
    let table = &readme[begin..end];
    // Made over the whole folder; each row's game count is checked below (200 at least).
    assert!(table.contains("oc fairness scenarios --games "), "the command above the table: {table}");
    let rows: Vec<Vec<&str>> = table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Scenario"))
        .map(|l| l.trim_matches('|').split('|').map(str::trim).collect())
        .collect();
    let files: Vec<String> = rows.iter().map(|r| r[1].trim_matches('`').to_string()).collect();
    assert_eq!(files, common::shipped_scenarios(), "one row per shipped scenario: {table}");
    for row in &rows {
        let rate: f64 = row[5].trim_end_matches('%').parse().unwrap();
        let games: u64 = row[4].parse().unwrap();
        assert!((35.0..=65.0).contains(&rate) && row[10] == "fair", "{row:?}");
        assert!(games >= 200, "{row:?}");
    }
}

#[test]
fn the_readme_changes_only_between_its_markers() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("oc.toml"), "[project]\nname = \"fair\"\n").unwrap();
    for f in ["field.map.toml", "hunt.oc"] {
        std::fs::copy(repo().join("tests/fixtures/tune").join(f), dir.path().join(f)).unwrap();
    }
    let (head, tail) = ("# Notes\n\nSome text.\n\n", "\nMore text after the table.\n");
    let readme = dir.path().join("README.md");
    std::fs::write(&readme, format!("{head}<!-- fairness:begin -->\nan old table\n<!-- fairness:end -->\n{tail}")).unwrap();
    let args = ["fairness", "hunt.oc", "--games", "10", "--seed", "3", "--readme", "README.md"];
    let out = oc(dir.path(), &args);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let after = std::fs::read_to_string(&readme).unwrap();
    assert!(after.starts_with(&format!("{head}<!-- fairness:begin -->\n")), "{after}");
    assert!(after.ends_with(&format!("<!-- fairness:end -->\n{tail}")), "{after}");
    assert!(!after.contains("an old table"));
    assert!(after.contains("oc fairness hunt.oc --games 10 --seed 3 --readme README.md"), "{after}");
    assert!(after.contains("| A Lopsided Hunt | `hunt.oc` | Hunters | Quarry | 10 |"), "{after}");
    // The table printed is the table written; the same seed writes the same table again.
    assert!(after.contains(&text(&out.stdout)));
    let again = oc(dir.path(), &args);
    assert!(text(&again.stderr).contains("README.md already holds this table"), "{}", text(&again.stderr));
    // Without markers the table goes at the end, under a heading.
    std::fs::write(&readme, head).unwrap();
    assert!(oc(dir.path(), &args).status.success());
    let after = std::fs::read_to_string(&readme).unwrap();
    assert!(after.starts_with(&format!("{head}\n## Fairness\n\n<!-- fairness:begin -->\n")), "{after}");
    // A lone marker is refused, and the file left alone.
    std::fs::write(&readme, "<!-- fairness:end -->\n").unwrap();
    let out = oc(dir.path(), &args);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("markers"), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(&readme).unwrap(), "<!-- fairness:end -->\n");
}
