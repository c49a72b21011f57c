//! `oc tune`'s report: each knob's current and suggested value and the win rates, as text or JSON.

use std::path::Path;

use oc_play::tune::{Prepared, Request, Tuned};

/// The line that says what a tuning searches for, before it starts.
pub fn start(p: &Prepared, r: &Request) -> String {
    let [attacker, defender] = p.armies();
    format!(
        "tuning {} ({} vs {}) for a 50% attacker win rate: knobs {}, up to {} games a setting, seed {}",
        p.scenario().name,
        attacker.name,
        defender.name,
        p.knobs.iter().map(|k| k.word()).collect::<Vec<_>>().join(", "),
        r.games,
        r.seed
    )
}

/// The report's first line ([`text`]'s `title`): the scenario, the file, the armies and the seed.
pub fn title(p: &Prepared, r: &Request) -> String {
    let [attacker, defender] = p.armies();
    format!(
        "{} ({}) in {}: {} (attacker) vs {} (defender), seed {}\n",
        p.scenario().title.as_deref().unwrap_or(&p.scenario().name),
        p.scenario().name,
        r.file.display(),
        attacker.name,
        defender.name,
        r.seed
    )
}

/// The knobs' table as text: `title` first; `write`: whether `--write` was asked; `written`: whether it wrote.
pub fn text(file: &Path, write: bool, title: &str, t: &Tuned, written: bool) -> String {
    let mut s = title.to_string();
    s.push_str(&format!("  {:<20} {:>9}  {}\n", "knob", "current", "suggested"));
    for row in &t.rows {
        let changes = if row.changes.is_empty() { String::new() } else { format!(" ({})", row.changes.join(", ")) };
        s.push_str(&format!("  {:<20} {:>9}  {}{changes}\n", row.what, row.current, row.suggested));
    }
    s.push_str(&format!("  attacker win rate as written: {}\n", t.now.text()));
    s.push_str(&format!("  attacker win rate suggested:  {}, on games the search did not use\n", t.suggested.text()));
    let even = t.even();
    s.push_str(&if even {
        "  the suggested values' 95% interval holds 50%\n".to_string()
    } else {
        "  the knobs could not bring the interval to 50%: these are the nearest values found\n".to_string()
    });
    for n in &t.notes {
        s.push_str(&format!("  note: {n}\n"));
    }
    let tail = if written {
        format!("the suggested values were written into {}", file.display())
    } else if write && !t.unchanged && !even {
        format!("{} is unchanged: --write writes only values whose interval holds 50%", file.display())
    } else if t.unchanged {
        "the file already holds the suggested values".to_string()
    } else {
        format!("{} is unchanged (--write writes the suggested values)", file.display())
    };
    s.push_str(&format!("  {} games played; {tail}\n", t.played));
    s
}

/// The knobs' table as JSON (with a newline); `seed` and `games` as the run was asked.
pub fn json(
    file: &Path,
    seed: u64,
    games: u64,
    [scenario, attacker, defender]: &[String; 3],
    t: &Tuned,
    written: bool,
) -> String {
    let values: Vec<serde_json::Value> = t
        .rows
        .iter()
        .map(|row| serde_json::json!({"knob": row.what, "current": row.current, "suggested": row.suggested, "changes": row.changes}))
        .collect();
    let value = serde_json::json!({
        "file": file.display().to_string(),
        "scenario": scenario,
        "attacker": attacker,
        "defender": defender,
        "seed": seed,
        "games_per_setting": games,
        "knobs": t.knobs.iter().map(|k| k.word()).collect::<Vec<_>>(),
        "values": values,
        "current": t.now.json(),
        "suggested": t.suggested.json(),
        "games_played": t.played,
        "notes": t.notes,
        "written": written,
    });
    format!("{value}\n")
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use oc_play::stats::Score;
    use oc_play::tune::{Knob, Row};

    fn tuned(unchanged: bool) -> Tuned {
        Tuned {
            knobs: vec![Knob::Rounds],
            rows: vec![Row { what: "rounds".into(), current: "10".into(), suggested: "12".into(), changes: vec!["+2".into()] }],
            now: Score { games: 100, wins: [70, 30] },
            suggested: Score { games: 100, wins: [50, 50] },
            unchanged,
            edits: Vec::new(),
            before: String::new(),
            after: String::new(),
            check: None,
            workspace: oc_compiler::Workspace::new(),
            notes: vec!["a note".into()],
            played: 400,
        }
    }

    #[test]
    fn the_knobs_read_as_text_and_as_json() {
        let file = Path::new("keep.oc");
        let text = text(file, false, "title\n", &tuned(false), false);
        assert!(text.starts_with("title\n  knob "));
        assert!(text.contains("  rounds                      10  12 (+2)\n"));
        assert!(text.contains("  the suggested values' 95% interval holds 50%\n"));
        assert!(text.contains("  note: a note\n"));
        assert!(text.ends_with("  400 games played; keep.oc is unchanged (--write writes the suggested values)\n"));
        let names = ["keep".to_string(), "a".to_string(), "d".to_string()];
        let value: serde_json::Value = serde_json::from_str(&json(file, 3, 25, &names, &tuned(true), false)).unwrap();
        assert_eq!((value["seed"].as_u64(), value["games_per_setting"].as_u64()), (Some(3), Some(25)));
        assert_eq!(value["values"][0]["suggested"], "12");
    }
}
