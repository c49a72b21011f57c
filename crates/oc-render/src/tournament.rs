//! `oc tournament`'s table: wins, draws and losses per roster with 95% intervals, as text
//! (one block per ruleset, with its total) or JSON.

use std::fmt::Write as _;

use oc_play::tournament::{totals, Row};

/// The table as text. `ais`: A and B; `games`: per roster, orientation and first mover.
pub fn text(rows: &[Row], ais: [&str; 2], games: u64, seed: u64) -> String {
    let [a, b] = ais;
    let same = a == b;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Mirror tournament: {a} vs {b}; per roster {} games ({} seeds from seed {} x the field and its zones swapped x each AI moving first)",
        games * 4,
        games,
        seed
    );
    let _ = writeln!(
        out,
        "W-D-L: wins, draws, losses of {}; the first mover is the attacker (it leads round 1).",
        if same { "the first mover" } else { a }
    );
    let _ = writeln!(out);
    let head = if same {
        format!("{:<26} {:<14} {:>6}  {:<9} {:<24}", "ruleset", "roster", "games", "W-D-L", "first mover wins (95% CI)")
    } else {
        format!(
            "{:<26} {:<14} {:>6}  {:<9} {:<24} {:<12} {:<12} {:<24}",
            "ruleset",
            "roster",
            "games",
            "W-D-L",
            format!("{a} wins (95% CI)"),
            "moving 1st",
            "moving 2nd",
            "first mover wins (95% CI)"
        )
    };
    let _ = writeln!(out, "{head}");
    let line = |out: &mut String, ruleset: &str, roster: &str, r: &Row| {
        let mut all = r.a_first;
        all.add(r.a_second);
        let _ = if same {
            writeln!(
                out,
                "{:<26} {:<14} {:>6}  {:<9} {:<24}",
                ruleset,
                roster,
                all.games(),
                r.first_mover.text(),
                r.first_mover.rate()
            )
        } else {
            writeln!(
                out,
                "{:<26} {:<14} {:>6}  {:<9} {:<24} {:<12} {:<12} {:<24}",
                ruleset,
                roster,
                all.games(),
                all.text(),
                all.rate(),
                r.a_first.text(),
                r.a_second.text(),
                r.first_mover.rate()
            )
        };
    };
    let mut files: Vec<&str> = Vec::new();
    for r in rows {
        if !files.contains(&r.file.as_str()) {
            files.push(&r.file);
        }
    }
    for file in &files {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.file == *file).collect();
        for r in &mine {
            line(&mut out, &r.ruleset, &r.roster, r);
        }
        if mine.len() > 1 {
            let ruleset = mine.first().map_or("", |r| r.ruleset.as_str());
            line(&mut out, ruleset, "(all)", &totals(&mine));
        }
    }
    if files.len() > 1 {
        let all: Vec<&Row> = rows.iter().collect();
        line(&mut out, "all rulesets", "(all)", &totals(&all));
    }
    out
}

/// The table as JSON.
pub fn json(rows: &[Row], ais: [&str; 2], games: u64, seed: u64) -> serde_json::Value {
    let row = |r: &Row| {
        let mut all = r.a_first;
        all.add(r.a_second);
        serde_json::json!({
            "file": r.file, "ruleset": r.ruleset, "roster": r.roster,
            "a": all.json(), "a_moving_first": r.a_first.json(), "a_moving_second": r.a_second.json(),
            "first_mover": r.first_mover.json(),
        })
    };
    let all: Vec<&Row> = rows.iter().collect();
    serde_json::json!({
        "ais": ais, "seed": seed, "games_per_setting": games,
        "rosters": rows.iter().map(row).collect::<Vec<_>>(),
        "total": row(&totals(&all)),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use oc_play::tournament::Record;

    fn row(file: &str, roster: &str, won: u64) -> Row {
        let r = Record { won, drawn: 1, lost: 3 - won };
        Row { file: file.into(), ruleset: "stamina".into(), roster: roster.into(), a_first: r, a_second: r, first_mover: r }
    }

    #[test]
    fn a_ruleset_of_several_rosters_gets_its_total_and_several_rulesets_theirs() {
        let rows = [row("a.oc", "knights", 2), row("a.oc", "archers", 1), row("b.oc", "knights", 0)];
        let text = text(&rows, ["greedy", "tactician"], 1, 5);
        assert!(text.starts_with("Mirror tournament: greedy vs tactician; per roster 4 games (1 seeds from seed 5"));
        let lines: Vec<&str> = text.lines().skip(3).collect();
        assert_eq!(lines.len(), 1 + 3 + 1 + 1, "head, three rosters, a.oc's total, the total of all:\n{text}");
        assert!(lines[3].starts_with("stamina") && lines[3].contains("(all)"));
        assert!(lines[5].starts_with("all rulesets"));
        let same = super::text(&rows[..1], ["greedy", "greedy"], 1, 5);
        assert!(same.contains("W-D-L: wins, draws, losses of the first mover"));
        let value = json(&rows, ["greedy", "tactician"], 1, 5);
        assert_eq!(value["rosters"].as_array().map(Vec::len), Some(3));
        assert_eq!(value["total"]["a"]["won"], 6);
    }
}
