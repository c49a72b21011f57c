//! `oc tournament --as-written`'s table: per scenario and pair of armies, the attacker's win
//! rate in the three cells (A attacking B, B against B, B attacking A) with 95% intervals, and
//! A's verdict on each side; as Markdown text or JSON.

use std::fmt::Write as _;

use oc_play::stats::Score;
use oc_play::strength::{Row, Verdict};

fn cell(s: &Score) -> String {
    let [lo, hi] = s.ci();
    format!("{:.1}% ({:.1}-{:.1})", s.rate() * 100.0, lo * 100.0, hi * 100.0)
}

/// The table as Markdown, with how to read it above and the count of verdicts below.
pub fn text(rows: &[Row], ais: [&str; 2], games: u64, seed: u64) -> String {
    let [a, b] = ais;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Scenarios as written: {a} (A) against {b} (B), swapping one side at a time; {games} games a cell from seed {seed}."
    );
    let _ = writeln!(
        out,
        "Cells: the attacker's win rate (95% interval). A is the stronger attacker where \"A attacks B\" beats \"B vs B\" by two"
    );
    let _ = writeln!(
        out,
        "standard errors, the stronger defender where \"B attacks A\" falls below it by two; \"weaker\" the other way."
    );
    let _ = writeln!(out);
    let _ = writeln!(out, "| scenario | armies | A attacks B | B vs B | B attacks A | A as attacker | A as defender |");
    let _ = writeln!(out, "|---|---|---|---|---|---|---|");
    for r in rows {
        let [va, vd] = r.verdicts();
        let [x, y, z] = &r.cells;
        let _ = writeln!(
            out,
            "| {} {} | {} vs {} | {} | {} | {} | {} | {} |",
            r.file,
            r.scenario,
            r.attacker,
            r.defender,
            cell(x),
            cell(y),
            cell(z),
            va.word(),
            vd.word()
        );
    }
    let _ = writeln!(out);
    let count = |v: Verdict| rows.iter().flat_map(Row::verdicts).filter(|w| *w == v).count();
    let _ = writeln!(
        out,
        "{a} against {b}: stronger on {} of {} sides, even on {}, weaker on {}.",
        count(Verdict::Stronger),
        rows.len() * 2,
        count(Verdict::Even),
        count(Verdict::Weaker)
    );
    out
}

/// The table as JSON.
pub fn json(rows: &[Row], ais: [&str; 2], games: u64, seed: u64) -> serde_json::Value {
    let row = |r: &Row| {
        let [x, y, z] = &r.cells;
        let [va, vd] = r.verdicts();
        serde_json::json!({
            "file": r.file, "scenario": r.scenario, "attacker": r.attacker, "defender": r.defender,
            "a_attacks_b": x.json(), "b_vs_b": y.json(), "b_attacks_a": z.json(),
            "a_as_attacker": va.word(), "a_as_defender": vd.word(),
        })
    };
    serde_json::json!({
        "ais": ais, "seed": seed, "games_per_cell": games,
        "rows": rows.iter().map(row).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn each_pair_is_a_row_with_its_verdicts_and_the_count_below() {
        let s = |w: u64| Score { games: 100, wins: [w, 100 - w] };
        let rows = [Row {
            file: "grado-keep.oc".into(),
            scenario: "GradoKeep".into(),
            attacker: "Raiders".into(),
            defender: "Garrison".into(),
            cells: [s(45), s(81), s(45)],
        }];
        let text = text(&rows, ["tactician", "greedy"], 100, 11);
        assert!(text.contains("| grado-keep.oc GradoKeep | Raiders vs Garrison | 45.0% (35.6-54.8) | 81.0% (72.2-87.5) | 45.0% (35.6-54.8) | weaker | stronger |"), "{text}");
        assert!(text.ends_with("tactician against greedy: stronger on 1 of 2 sides, even on 0, weaker on 1.\n"), "{text}");
        let value = json(&rows, ["tactician", "greedy"], 100, 11);
        assert_eq!(value["rows"][0]["a_as_attacker"], "weaker");
        assert_eq!(value["rows"][0]["b_vs_b"]["attacker_wins"], 81);
    }
}
