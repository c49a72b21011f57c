//! `oc fairness PATHS`: every scenario written in the `.oc` files under the paths, played with
//! its sample armies by the default AI, as a Markdown table of win rates with 95% intervals;
//! `--readme FILE` puts the table, with the command that made it, between the file's
//! `<!-- fairness:begin -->` and `<!-- fairness:end -->` lines.

use std::path::{Path, PathBuf};

use oc_model as m;
use oc_syntax::ast;

use oc_play::stats::Score;
use oc_play::Setup;
use crate::Format;

pub const BEGIN: &str = "<!-- fairness:begin -->";
pub const END: &str = "<!-- fairness:end -->";

/// The band a scenario's attacker win rate must lie in to be called fair.
pub const FAIR: (f64, f64) = (0.35, 0.65);

pub struct Request<'a> {
    pub paths: &'a [PathBuf],
    pub games: u64,
    /// Fewer (or more) games for named scenarios: (scenario, games).
    pub games_for: &'a [(String, u64)],
    pub seed: u64,
    pub readme: Option<&'a Path>,
    pub format: Format,
}

/// `NAME=N`
pub fn parse_games_for(text: &str) -> Result<(String, u64), String> {
    let (name, n) = text.split_once('=').ok_or("write it as SCENARIO=GAMES, such as RiverStorm=200")?;
    let n: u64 = n.trim().parse().map_err(|_| format!("`{n}` is not a number of games"))?;
    if n == 0 || n > oc_project::limits::MAX_GAMES {
        return Err(format!("{n} games: from 1 to {}", oc_project::limits::MAX_GAMES));
    }
    Ok((name.trim().to_string(), n))
}

/// One scenario with one pair of armies, measured.
struct Row {
    file: String,
    scenario: String,
    title: String,
    attacker: String,
    defender: String,
    rounds: u64,
    score: Score,
}

pub fn fairness(r: &Request) -> u8 {
    let projects = match crate::commands::projects(r.paths) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if let Some(readme) = r.readme {
        if let Err(why) = oc_project::output::notes_file(readme) {
            eprintln!("error: --readme {}: {why}", readme.display());
            return 2;
        }
    }
    let mut rows = Vec::new();
    let mut used: Vec<&str> = Vec::new();
    for project in &projects {
        for logical in &project.files {
            let path = project.root.join(logical);
            match measure_file(&path, logical, r, &mut used) {
                Ok(more) => rows.extend(more),
                Err(code) => return code,
            }
        }
    }
    if let Some((name, _)) = r.games_for.iter().find(|(n, _)| !used.contains(&n.as_str())) {
        eprintln!("error: --games-for names `{name}`, which is not a scenario measured here");
        return 2;
    }
    if rows.is_empty() {
        eprintln!("error: no scenario with an army on each side under the paths given");
        return 2;
    }
    let command = command_line(r);
    let table = table(&rows, &command);
    if let Some(readme) = r.readme {
        if let Err(code) = write_readme(readme, &table) {
            return code;
        }
    }
    match r.format {
        Format::Human => print!("{table}"),
        Format::Json => {
            let rows: Vec<serde_json::Value> = rows
                .iter()
                .map(|row| {
                    let mut v = row.score.json();
                    if let Some(o) = v.as_object_mut() {
                        o.insert("file".into(), row.file.clone().into());
                        o.insert("scenario".into(), row.scenario.clone().into());
                        o.insert("title".into(), row.title.clone().into());
                        o.insert("attacker".into(), row.attacker.clone().into());
                        o.insert("defender".into(), row.defender.clone().into());
                        o.insert("mean_rounds".into(), (row.rounds as f64 / row.score.games.max(1) as f64).into());
                    }
                    v
                })
                .collect();
            println!("{}", serde_json::json!({ "seed": r.seed, "command": command, "rows": rows }));
        }
    }
    0
}

/// Every scenario written in the file (not those it imports), with each pair of its armies.
fn measure_file<'r>(path: &Path, logical: &str, r: &'r Request, used: &mut Vec<&'r str>) -> Result<Vec<Row>, u8> {
    let (rules, ws, root) = crate::load::rules(path)?;
    let Some(id) = ws.id_of(logical) else { return Ok(Vec::new()) };
    let here: Vec<String> = ws
        .file(id)
        .map(|f| {
            f.ast()
                .items
                .iter()
                .filter_map(|i| if let ast::Item::Scenario(s) = i { Some(s.name.value.to_string()) } else { None })
                .collect()
        })
        .unwrap_or_default();
    let mut rows = Vec::new();
    for s in rules.scenarios.iter().filter(|s| here.contains(&s.name)) {
        let side = |side: m::SideId| rules.armies.iter().filter(|a| a.scenario == s.name && a.side == side).collect::<Vec<_>>();
        let (attackers, defenders) = (side(m::SideId::Attacker), side(m::SideId::Defender));
        if attackers.is_empty() || defenders.is_empty() {
            eprintln!("note: {logical}: `{}` has no army on one side; left out", s.name);
            continue;
        }
        let games = match r.games_for.iter().find(|(n, _)| *n == s.name) {
            Some((n, g)) => {
                used.push(n.as_str());
                *g
            }
            None => r.games,
        };
        let map = oc_play::setup::scenario_map(&root, &rules, s).map_err(|e| crate::load::refused(&e))?;
        for a in &attackers {
            for d in &defenders {
                let engine = oc_engine::Engine::new(rules.clone()).map_err(|e| {
                    eprintln!("error: {logical}: {e}");
                    2u8
                })?;
                let arena = Setup {
                    logical: logical.to_string(),
                    inputs: Vec::new(),
                    engine,
                    scenario: s.clone(),
                    map: map.0.battle_map(),
                    atlas: map.0.clone(),
                    armies: [(*a).clone(), (*d).clone()],
                };
                let started = std::time::Instant::now();
                let results = arena.play(r.seed, 0..games).map_err(|e| {
                    eprintln!("error: {logical}: a game failed: {e}");
                    2u8
                })?;
                let score = Score::of(&results);
                eprintln!(
                    "{logical} {}: {} vs {}: attacker {} in {:.1?}",
                    s.name,
                    a.name,
                    d.name,
                    score.text(),
                    started.elapsed()
                );
                rows.push(Row {
                    file: logical.to_string(),
                    scenario: s.name.clone(),
                    title: s.title.clone().unwrap_or_else(|| s.name.clone()),
                    attacker: a.name.clone(),
                    defender: d.name.clone(),
                    rounds: results.iter().map(|g| u64::from(g.rounds)).sum(),
                    score,
                });
            }
        }
    }
    Ok(rows)
}

/// The command that makes the table, as it would be typed again.
fn command_line(r: &Request) -> String {
    let mut words = vec!["oc".to_string(), "fairness".to_string()];
    words.extend(r.paths.iter().map(|p| p.display().to_string()));
    words.push(format!("--games {}", r.games));
    for (name, n) in r.games_for {
        words.push(format!("--games-for {name}={n}"));
    }
    words.push(format!("--seed {}", r.seed));
    if let Some(readme) = r.readme {
        words.push(format!("--readme {}", readme.display()));
    }
    words.join(" ")
}

fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The table with the command above it, between the markers.
fn table(rows: &[Row], command: &str) -> String {
    let mut s = format!(
        "{BEGIN}\nAttacker win rates with the sample armies, both sides played by the default AI (fair: {} to {}), made by\n\n```sh\n{command}\n```\n\n",
        percent(FAIR.0),
        percent(FAIR.1)
    );
    s.push_str("| Scenario | File | Attacker | Defender | Games | Attacker wins | 95% interval | Defender wins | Draws | Mean rounds | |\n");
    s.push_str("|---|---|---|---|--:|--:|--:|--:|--:|--:|---|\n");
    for row in rows {
        let sc = &row.score;
        let n = sc.games.max(1) as f64;
        let [lo, hi] = sc.ci();
        let rate = sc.rate();
        let verdict = if rate < FAIR.0 {
            "defender-sided"
        } else if rate > FAIR.1 {
            "attacker-sided"
        } else {
            "fair"
        };
        let file = Path::new(&row.file).file_name().map_or(row.file.clone(), |f| f.to_string_lossy().into_owned());
        s.push_str(&format!(
            "| {} | `{file}` | {} | {} | {} | {} | {}–{} | {} | {} | {:.1} | {verdict} |\n",
            row.title,
            row.attacker,
            row.defender,
            sc.games,
            percent(rate),
            percent(lo),
            percent(hi),
            percent(sc.wins[1] as f64 / n),
            percent((sc.games - sc.wins[0] - sc.wins[1]) as f64 / n),
            row.rounds as f64 / n,
        ));
    }
    s.push_str(END);
    s.push('\n');
    s
}

/// The README with `table` between its markers (or, without them, appended at its end).
pub fn replace_table(readme: &str, table: &str) -> Result<String, String> {
    match (readme.find(BEGIN), readme.find(END)) {
        (Some(b), Some(e)) if b < e => {
            let after = readme.get(e + END.len()..).unwrap_or("");
            let after = after.strip_prefix('\n').unwrap_or(after);
            Ok(format!("{}{table}{after}", readme.get(..b).unwrap_or("")))
        }
        (None, None) => {
            let sep = if readme.ends_with('\n') || readme.is_empty() { "" } else { "\n" };
            Ok(format!("{readme}{sep}\n## Fairness\n\n{table}"))
        }
        _ => Err(format!("the markers are out of order or one is missing: write `{BEGIN}` on a line, then `{END}`")),
    }
}

fn write_readme(readme: &Path, table: &str) -> Result<(), u8> {
    let absolute = oc_project::manifest::absolute(readme);
    let root = oc_project::find_root(&absolute).dir;
    let fail = |e: String| {
        eprintln!("error: {}: {e}", readme.display());
        2u8
    };
    let logical = oc_project::discover::logical(&root, &absolute).ok_or_else(|| fail("outside its project".into()))?;
    let confined = oc_project::fsx::Confined::new(&root);
    let before = confined.read(Path::new(&logical), oc_project::limits::MAX_SOURCE_BYTES).map_err(|e| fail(e.to_string()))?;
    let text = String::from_utf8(before.clone()).map_err(|_| fail("not UTF-8 text".into()))?;
    let after = replace_table(&text, table).map_err(fail)?;
    if after == text {
        eprintln!("{} already holds this table", readme.display());
        return Ok(());
    }
    oc_project::output::rewrite_notes(&confined, &logical, &before, after.as_bytes()).map_err(|e| fail(e.to_string()))?;
    eprintln!("wrote the table into {}", readme.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_goes_between_the_markers_and_nothing_else_moves() {
        let readme = format!("# Title\n\nText.\n\n{BEGIN}\nold\n{END}\n\nMore text.\n");
        let table = format!("{BEGIN}\nnew\n{END}\n");
        assert_eq!(replace_table(&readme, &table), Ok(format!("# Title\n\nText.\n\n{BEGIN}\nnew\n{END}\n\nMore text.\n")));
        let bare = "# Title\n";
        assert_eq!(replace_table(bare, &table), Ok(format!("# Title\n\n## Fairness\n\n{table}")));
        assert!(replace_table(&format!("{END}\n{BEGIN}\n"), &table).is_err());
        assert!(replace_table(&format!("{BEGIN}\n"), &table).is_err());
        assert_eq!(parse_games_for("RiverStorm=200"), Ok(("RiverStorm".to_string(), 200)));
        assert!(parse_games_for("RiverStorm").is_err() && parse_games_for("X=0").is_err());
    }
}
