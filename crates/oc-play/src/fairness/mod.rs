//! The fairness table: every scenario written in some `.oc` files, played with its sample
//! armies by the default AI, as a Markdown table of the attacker's win rates with 95%
//! intervals, and that table put between a README's `<!-- fairness:begin -->` and
//! `<!-- fairness:end -->` lines (the rest of the README untouched). `Request::shard` K of N
//! plays only the games `g` of each pair with `g mod N = K - 1` (the same seeds as the whole
//! run); its rows are saved as a [`Part`] and [`merge`] sums every part into the rows of the
//! whole run (see [`part`]).

use std::path::{Path, PathBuf};

use oc_model as m;
use oc_syntax::ast;

use serde::{Deserialize, Serialize};

use crate::error::{Failure, Refusal};
use crate::setup::{Compiled, Setup};
use crate::simulate::Shard;
use crate::stats::Score;
use pool::Pending;

pub mod part;
mod pool;
pub use part::{merge, merge_files, read_part, Merged, Part, PART_KIND, PART_VERSION};

pub const BEGIN: &str = "<!-- fairness:begin -->";
pub const END: &str = "<!-- fairness:end -->";

/// The band a scenario's attacker win rate must lie in to be called fair.
pub const FAIR: (f64, f64) = (0.35, 0.65);

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
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Row {
    /// The file, relative to its project root.
    pub file: String,
    pub scenario: String,
    pub title: String,
    pub attacker: String,
    pub defender: String,
    /// Rounds of all the games, summed.
    pub rounds: u64,
    pub score: Score,
    /// What its games were played from (`Setup::fingerprint`): a part's rows must match.
    #[serde(default)]
    pub played: String,
}

/// Every scenario written in the file `file` (shown as `logical`; not those it imports) whose
/// rules are `compiled`, with each pair of its armies, ready to play (`say` hears a note for each
/// scenario left out: one without an army on a side). What `oc fairness` and
/// `oc tournament --as-written` play.
pub fn pairs(compiled: Compiled, file: &Path, logical: &str, say: &dyn Fn(&str)) -> Result<Vec<Setup>, Refusal> {
    let Compiled { rules, workspace: ws, root, .. } = compiled;
    // The file as its compilation names it: from the root of its own project (a folder walked
    // may hold a project of its own, an oc.toml below the root the walk began at), not from
    // the walked folder's (`logical`, what the table shows). Found under one name and looked
    // up under the other, its scenarios were left out without a word.
    let own = oc_project::discover::logical(&root, &oc_project::manifest::absolute(file));
    let Some(id) = own.as_deref().and_then(|own| ws.id_of(own)) else {
        say(&format!("note: {logical}: not among the files its compilation read; left out"));
        return Ok(Vec::new());
    };
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
    let mut pairs = Vec::new();
    for s in rules.scenarios.iter().filter(|s| here.contains(&s.name)) {
        let side = |side: m::SideId| rules.armies.iter().filter(|a| a.scenario == s.name && a.side == side).collect::<Vec<_>>();
        let (attackers, defenders) = (side(m::SideId::Attacker), side(m::SideId::Defender));
        if attackers.is_empty() || defenders.is_empty() {
            say(&format!("note: {logical}: `{}` has no army on one side; left out", s.name));
            continue;
        }
        let (map, _) = crate::setup::scenario_map(&root, &rules, s)?;
        for a in &attackers {
            for d in &defenders {
                let engine = oc_engine::Engine::new(rules.clone()).map_err(|e| Refusal::new(format!("{logical}: {e}")))?;
                pairs.push(Setup {
                    logical: logical.to_string(),
                    inputs: Vec::new(),
                    engine,
                    scenario: s.clone(),
                    map: map.battle_map(),
                    atlas: map.clone(),
                    armies: [(*a).clone(), (*d).clone()],
                });
            }
        }
    }
    Ok(pairs)
}

/// Every scenario written in the file `file` (shown as `logical`) with each pair of its armies ([`pairs`]),
/// `r.games` games each (or `r.games_for` the scenario's name, then noted in `used`); with
/// `r.shard`, only the games that shard owns. `say` hears a line for each pair measured, and a
/// note for each scenario left out; `tick` is called after each game (a progress bar).
pub fn measure_file(
    compiled: Compiled,
    (file, logical): (&Path, &str),
    r: &Request,
    used: &mut Vec<String>,
    say: &dyn Fn(&str),
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Row>, Refusal> {
    let pending = pending(compiled, (file, logical), r, used, say)?;
    play(pending, r.seed, say, tick)
}

/// The pairs of the file `file` ([`pairs`]) with the games each plays ([`measure_file`]).
fn pending(
    compiled: Compiled,
    (file, logical): (&Path, &str),
    r: &Request,
    used: &mut Vec<String>,
    say: &dyn Fn(&str),
) -> Result<Vec<Pending>, Refusal> {
    let mut pending = Vec::new();
    for setup in pairs(compiled, file, logical, say)? {
        let games = match r.games_for.iter().find(|(n, _)| *n == setup.scenario.name) {
            Some((n, g)) => {
                if !used.contains(n) {
                    used.push(n.clone());
                }
                *g
            }
            None => r.games,
        };
        let games = (0..games).filter(|g| r.shard.is_none_or(|s| s.owns(*g))).collect();
        pending.push(Pending { setup, games });
    }
    Ok(pending)
}

/// Every pair's games played in one pool ([`pool`]), a row each in the pairs' order; `say`
/// hears each pair's line in that order.
fn play(pending: Vec<Pending>, seed: u64, say: &dyn Fn(&str), tick: &(dyn Fn() + Sync)) -> Result<Vec<Row>, Refusal> {
    crate::hold_freed_pages();
    let mut rows = Vec::new();
    pool::play(pending, seed, tick, &mut |setup, played| {
        let (logical, s, [a, d]) = (&setup.logical, &setup.scenario, &setup.armies);
        let (results, time) = played.map_err(|e| Refusal::new(format!("{logical}: a game failed: {e}")))?;
        let score = Score::of(&results);
        // The games of a pair share the threads with other pairs' games: the time is their own,
        // summed, not the wall time between the first and the last.
        say(&format!("{logical} {}: {} vs {}: attacker {}, {:.1?} of play", s.name, a.name, d.name, score.text(), time));
        rows.push(Row {
            file: logical.to_string(),
            scenario: s.name.clone(),
            title: s.title.clone().unwrap_or_else(|| s.name.clone()),
            attacker: a.name.clone(),
            defender: d.name.clone(),
            rounds: results.iter().map(|g| u64::from(g.rounds)).sum(),
            score,
            played: setup.fingerprint(),
        });
        Ok(())
    })?;
    Ok(rows)
}

/// What `oc fairness` measures: the scenarios written in the `.oc` files under `paths`.
#[derive(Clone, Copy)]
pub struct Request<'a> {
    pub paths: &'a [PathBuf],
    pub games: u64,
    /// Fewer (or more) games for named scenarios: (scenario, games).
    pub games_for: &'a [(String, u64)],
    pub seed: u64,
    /// Only the games this shard owns (rows counting only those).
    pub shard: Option<Shard>,
}

/// Every scenario written in the `.oc` files under the paths, with each pair of its armies
/// ([`measure_file`] per file), each compiled by `compile` (`setup::compile`, or the caller's
/// wrapper of it that shows the warnings); `say` hears the progress, `tick` each game played.
/// Refused: a `--games-for` naming no scenario measured, or no scenario with an army on each
/// side.
pub fn measure(
    r: &Request,
    compile: &dyn Fn(&Path) -> Result<Compiled, Failure>,
    say: &dyn Fn(&str),
    tick: &(dyn Fn() + Sync),
) -> Result<Vec<Row>, Failure> {
    if let Some(shard) = r.shard {
        shard.fits()?;
    }
    // A scenario given two numbers of games: which one holds would be the order's (the first
    // did, while the command the table quotes showed both).
    for (k, (name, _)) in r.games_for.iter().enumerate() {
        if r.games_for.iter().skip(k + 1).any(|(other, _)| other == name) {
            return Err(Refusal::new(format!("--games-for names `{name}` twice"))
                .with_help("give each scenario one number of games")
                .into());
        }
    }
    let projects = oc_project::discover(r.paths).map_err(Failure::refused)?;
    // Every file compiled first, then every pair's games played in one pool.
    let (mut all, mut used) = (Vec::new(), Vec::new());
    for project in &projects {
        for logical in &project.files {
            let path = project.root.join(logical);
            all.extend(pending(compile(&path)?, (&path, logical), r, &mut used, say)?);
        }
    }
    if let Some((name, _)) = r.games_for.iter().find(|(n, _)| !used.contains(n)) {
        let mut measured: Vec<&str> = all.iter().map(|p: &Pending| p.setup.scenario.name.as_str()).collect();
        measured.dedup();
        return Err(Refusal::new(format!("--games-for names `{name}`, which is not a scenario measured here"))
            .with_help(format!("name a scenario of the paths given: {}", measured.join(", ")))
            .into());
    }
    if all.is_empty() {
        return Err(Refusal::new("no scenario with an army on each side under the paths given")
            .with_help(
                "a scenario is measured with an army written for each of its sides (`army NAME for SCENARIO attacker { ... }`)",
            )
            .into());
    }
    Ok(play(all, r.seed, say, tick)?)
}

/// A notes file (a README) with the table put between its markers: the text edit to write
/// (`oc_project::output::rewrite_notes`, which checks the file still holds `before`).
pub struct NotesEdit {
    /// The project holding the file, and the file's path in it.
    pub root: PathBuf,
    pub logical: String,
    pub before: Vec<u8>,
    /// `None`: the file already holds this table.
    pub after: Option<String>,
}

/// Whether a table can go into `readme`, asked before any game is played (a run of thousands of
/// games is not played to find the file missing at its end): a file of the project, not a
/// source, there already, with one pair of markers in order or none.
pub fn readme_ready(readme: &Path) -> Result<(), Refusal> {
    let refuse =
        |why: &dyn std::fmt::Display, help: String| Refusal::new(format!("--readme {}: {why}", readme.display())).with_help(help);
    if let Err(why) = oc_project::output::notes_file(readme) {
        return Err(refuse(&why.message, why.help));
    }
    if std::fs::symlink_metadata(readme).is_err() {
        return Err(refuse(
            &"no such file",
            "create it first (an empty file will do: the table is added under a `## Fairness` heading)".into(),
        ));
    }
    notes_edit(readme, "").map(|_| ()).map_err(|why| {
        refuse(&why, format!("name a Markdown file of the project holding at most one pair of lines `{BEGIN}` and `{END}`"))
    })
}

/// The edit that puts `table` into `readme` (read confined to its project).
pub fn notes_edit(readme: &Path, table: &str) -> Result<NotesEdit, String> {
    let absolute = oc_project::manifest::absolute(readme);
    let root = oc_project::find_root(&absolute).dir;
    let logical = oc_project::discover::logical(&root, &absolute).ok_or("outside its project")?;
    let confined = oc_project::fsx::Confined::new(&root);
    let before = confined.read(Path::new(&logical), oc_project::limits::MAX_SOURCE_BYTES).map_err(|e| e.to_string())?;
    let text = String::from_utf8(before.clone()).map_err(|_| "not UTF-8 text")?;
    let after = replace_table(&text, table)?;
    let after = (after != text).then_some(after);
    Ok(NotesEdit { root, logical, before, after })
}

fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

/// The table with the command above it, between the markers.
pub fn table(rows: &[Row], command: &str) -> String {
    let mut s = format!(
        "{BEGIN}\nAttacker win rates with the sample armies, both sides played by the default AI (fair: {} to {}), made by\n\n```sh\n{command}\n```\n\n",
        percent(FAIR.0),
        percent(FAIR.1)
    );
    s.push_str("| Scenario | File | Attacker | Defender | Games | Attacker wins | 95% interval | Defender wins | Draws | Mean rounds | |\n");
    s.push_str("|---|---|---|---|--:|--:|--:|--:|--:|--:|---|\n");
    let files = shown_files(rows);
    for (row, file) in rows.iter().zip(files) {
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
        s.push_str(&format!(
            "| {} | `{}` | {} | {} | {} | {} | {}–{} | {} | {} | {:.1} | {verdict} |\n",
            cell(&row.title),
            file.replace(['`', '|', '\n', '\r'], "_"),
            cell(&row.attacker),
            cell(&row.defender),
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

/// Each row's file as the table names it: its file name, or where two files of the table share
/// one (`campaign/ford.oc`, `t/ford.oc`), as many of its last folders as tell them apart (a
/// newcomer review: two rows read `ford.oc` with different results).
fn shown_files(rows: &[Row]) -> Vec<String> {
    let parts: Vec<Vec<String>> = rows
        .iter()
        .map(|r| Path::new(&r.file).components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect())
        .collect();
    let tail = |p: &[String], n: usize| p.get(p.len().saturating_sub(n)..).unwrap_or_default().join("/");
    let mut depth = vec![1usize; rows.len()];
    loop {
        let shown: Vec<String> = parts.iter().zip(&depth).map(|(p, d)| tail(p, *d)).collect();
        let mut grew = false;
        for i in 0..rows.len() {
            let clash = (0..rows.len())
                .any(|j| j != i && shown.get(j) == shown.get(i) && rows.get(j).map(|r| &r.file) != rows.get(i).map(|r| &r.file));
            if let (true, Some(d), Some(p)) = (clash, depth.get_mut(i), parts.get(i)) {
                if *d < p.len() {
                    *d += 1;
                    grew = true;
                }
            }
        }
        if !grew {
            return shown;
        }
    }
}

/// A name as a cell of a Markdown table: a `|` would start a new column, a `<` a tag or a
/// comment (a title holding a marker would end the table's own), a line break the table.
fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '|' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            '<' => out.push_str("&lt;"),
            '&' => out.push_str("&amp;"),
            '\n' | '\r' => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

/// The README with `table` between its markers (or, without them, appended at its end under a
/// `## Fairness` heading). A marker is a line of its own (spaces around it aside) outside a fenced
/// code block: one quoted in a sentence, or shown in a code block, is the README's text, never
/// replaced. The table is written with the README's line endings (CRLF where its begin marker's
/// line ends so).
pub fn replace_table(readme: &str, table: &str) -> Result<String, String> {
    // Each line with its start and end (the end past its line break).
    let mut lines = Vec::new();
    let mut start = 0;
    for piece in readme.split_inclusive('\n') {
        lines.push((start, start + piece.len(), piece));
        start += piece.len();
    }
    // The fence open (its character and length), as CommonMark reads one: three or more of ` or
    // ~, indented less than four columns; closed by as many or more of the same alone on a line.
    let mut fence: Option<(char, usize)> = None;
    let (mut begins, mut ends) = (Vec::new(), Vec::new());
    for (n, &(_, _, line)) in lines.iter().enumerate() {
        let text = line.trim_end_matches(['\n', '\r']);
        let rest = text.trim_start_matches(' ');
        let indent = text.len() - rest.len();
        let run = |c: char| rest.chars().take_while(|x| *x == c).count();
        let opened = ['`', '~'].into_iter().map(|c| (c, run(c))).find(|(_, k)| *k >= 3).filter(|_| indent < 4);
        match (fence, opened) {
            (None, Some(f)) => {
                fence = Some(f);
                continue;
            }
            (Some((c, k)), Some((d, m))) if c == d && m >= k && rest.get(m..).is_some_and(|r| r.trim().is_empty()) => {
                fence = None;
                continue;
            }
            _ => {}
        }
        // Inside a fence, or indented four columns or more (an indented code block, or a tab):
        // shown, not a marker.
        if fence.is_some() || indent >= 4 || rest.starts_with('\t') {
            continue;
        }
        if rest.trim_end() == BEGIN {
            begins.push(n);
        } else if rest.trim_end() == END {
            ends.push(n);
        }
    }
    if begins.len() > 1 || ends.len() > 1 {
        let at = |v: &[usize]| v.iter().map(|n| (n + 1).to_string()).collect::<Vec<_>>().join(", ");
        return Err(format!(
            "it holds {} `{BEGIN}` (lines {}) and {} `{END}` (lines {}): one table goes between one pair of markers",
            begins.len(),
            at(&begins),
            ends.len(),
            at(&ends)
        ));
    }
    match (begins.first().and_then(|b| lines.get(*b)), ends.first().and_then(|e| lines.get(*e))) {
        (Some(&(from, _, begin_line)), Some(&(_, to, _))) if from < to => {
            let table = if begin_line.ends_with("\r\n") { table.replace('\n', "\r\n") } else { table.to_string() };
            Ok(format!("{}{table}{}", readme.get(..from).unwrap_or(""), readme.get(to..).unwrap_or("")))
        }
        (None, None) => {
            // A heading of the table's already there without markers: where the table goes is
            // the user's to say (a second heading and table at the end was added).
            if lines.iter().any(|(_, _, l)| l.trim().eq_ignore_ascii_case("## Fairness")) {
                return Err(format!(
                    "it has a `## Fairness` heading but no markers: write `{BEGIN}` and `{END}` on lines of their own where the table goes"
                ));
            }
            let crlf = readme.contains("\r\n");
            let sep = if readme.ends_with('\n') || readme.is_empty() { "" } else { "\n" };
            let added = format!("{sep}\n## Fairness\n\n{table}");
            Ok(format!("{readme}{}", if crlf { added.replace('\n', "\r\n") } else { added }))
        }
        _ => Err(format!("the markers are out of order or one is missing: write `{BEGIN}` on a line, then `{END}`")),
    }
}

/// The command that makes the table, as it would be typed again.
pub fn command_line(
    paths: &[std::path::PathBuf],
    games: u64,
    games_for: &[(String, u64)],
    seed: u64,
    readme: Option<&Path>,
) -> String {
    let mut words = vec!["oc".to_string(), "fairness".to_string()];
    words.extend(paths.iter().map(|p| p.display().to_string()));
    words.push(format!("--games {games}"));
    for (name, n) in games_for {
        words.push(format!("--games-for {name}={n}"));
    }
    words.push(format!("--seed {seed}"));
    if let Some(readme) = readme {
        words.push(format!("--readme {}", readme.display()));
    }
    words.join(" ")
}

/// The table as JSON (`oc fairness --format json`): a row per scenario and pair of armies.
pub fn json(rows: &[Row], seed: u64, command: &str) -> serde_json::Value {
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
    serde_json::json!({ "seed": seed, "command": command, "rows": rows })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn files_of_one_name_are_told_apart_by_their_folders() {
        let row = |file: &str, scenario: &str| Row {
            file: file.into(),
            scenario: scenario.into(),
            title: "The Ford".into(),
            attacker: "Raiders".into(),
            defender: "Wardens".into(),
            rounds: 0,
            score: Score::default(),
            played: String::new(),
        };
        let rows =
            [row("campaign/ford.oc", "Ford"), row("campaign/ford.oc", "Ford2"), row("t/ford.oc", "Ford"), row("keep.oc", "Keep")];
        assert_eq!(shown_files(&rows), ["campaign/ford.oc", "campaign/ford.oc", "t/ford.oc", "keep.oc"]);
        let table = table(&rows, "oc fairness campaign t");
        assert!(table.contains("| `t/ford.oc` |") && table.contains("| `keep.oc` |"), "{table}");
        // Told apart by a folder deeper down, where the nearest are alike.
        let rows = [row("a/x/ford.oc", "F"), row("b/x/ford.oc", "F")];
        assert_eq!(shown_files(&rows), ["a/x/ford.oc", "b/x/ford.oc"]);
    }

    #[test]
    fn the_table_goes_between_the_markers_and_nothing_else_moves() {
        let readme = format!("# Title\n\nText.\n\n{BEGIN}\nold\n{END}\n\nMore text.\n");
        let table = format!("{BEGIN}\nnew\n{END}\n");
        assert_eq!(replace_table(&readme, &table), Ok(format!("# Title\n\nText.\n\n{BEGIN}\nnew\n{END}\n\nMore text.\n")));
        let bare = "# Title\n";
        assert_eq!(replace_table(bare, &table), Ok(format!("# Title\n\n## Fairness\n\n{table}")));
        assert!(replace_table(&format!("{END}\n{BEGIN}\n"), &table).is_err());
        assert!(replace_table(&format!("{BEGIN}\n"), &table).is_err());
        // Two tables' markers: neither is replaced (the second would be left stale).
        let twice = replace_table(&format!("{BEGIN}\na\n{END}\n\n{BEGIN}\nb\n{END}\n"), &table).unwrap_err();
        assert!(twice.contains("lines 1, 5") && twice.contains("lines 3, 7"), "{twice}");
        // A marker quoted in a sentence or shown in a code block is the README's own text: the
        // table is added at the end, the text kept whole.
        let prose = format!("# Doc\nUse `{BEGIN}` to start.\nprose I wrote\nUse `{END}` to end.\n");
        assert_eq!(replace_table(&prose, &table), Ok(format!("{prose}\n## Fairness\n\n{table}")));
        let shown = format!("# Doc\n\n```md\n{BEGIN}\n(the table)\n{END}\n```\n\n{BEGIN}\nold\n  {END}  \nafter\n");
        assert_eq!(
            replace_table(&shown, &table),
            Ok(format!("# Doc\n\n```md\n{BEGIN}\n(the table)\n{END}\n```\n\n{BEGIN}\nnew\n{END}\nafter\n"))
        );
        // A fence closes only on as many of its character or more; markers indented four columns
        // are an indented code block's (a review found both replaced, the text between deleted).
        let nested = format!("````md\n```\n{BEGIN}\nexample\n{END}\n```\n````\n");
        assert_eq!(replace_table(&nested, &table), Ok(format!("{nested}\n## Fairness\n\n{table}")));
        let indented = format!("Like this:\n\n    {BEGIN}\n    example\n    {END}\n");
        assert_eq!(replace_table(&indented, &table), Ok(format!("{indented}\n## Fairness\n\n{table}")));
        // A README written with CRLF gets the table with CRLF; one with the heading and no
        // markers is refused (where the table goes is its writer's to say).
        let crlf = format!("# T\r\n{BEGIN}\r\nold\r\n{END}\r\nend\r\n");
        assert_eq!(replace_table(&crlf, &table), Ok(format!("# T\r\n{BEGIN}\r\nnew\r\n{END}\r\nend\r\n")));
        assert!(replace_table("# T\n\n## Fairness\n\nsoon\n", &table).unwrap_err().contains("no markers"));
        assert_eq!(parse_games_for("RiverStorm=200"), Ok(("RiverStorm".to_string(), 200)));
        assert!(parse_games_for("RiverStorm").is_err() && parse_games_for("X=0").is_err());
    }

    /// A title holding a `|` or a marker stays in its cell, and the table's markers stay its own.
    #[test]
    fn names_stay_in_their_cells() {
        let row = Row {
            title: format!("Pass | Gorge {END} `x`"),
            attacker: "A\\B".into(),
            score: Score { games: 2, wins: [1, 1] },
            ..Row::default()
        };
        let t = table(&[row], "oc fairness x.oc");
        assert!(t.contains("| Pass \\| Gorge &lt;!-- fairness:end --> `x` | "), "{t}");
        assert!(t.contains("| A\\\\B |"), "{t}");
        let readme = format!("# R\n{BEGIN}\nold\n{END}\n");
        let once = replace_table(&readme, &t).unwrap();
        assert_eq!(replace_table(&once, &t), Ok(once.clone()), "the table it wrote is found again");
    }

    #[test]
    fn the_command_line_and_the_json_say_how_the_table_was_made() {
        let paths = [std::path::PathBuf::from("scenarios")];
        let command = command_line(&paths, 50, &[("Keep".into(), 6)], 4, Some(Path::new("README.md")));
        assert_eq!(command, "oc fairness scenarios --games 50 --games-for Keep=6 --seed 4 --readme README.md");
        let row = Row { scenario: "Keep".into(), rounds: 30, score: Score { games: 6, wins: [3, 2] }, ..Row::default() };
        let value = json(&[row], 4, &command);
        assert_eq!((value["seed"].as_u64(), value["command"].as_str()), (Some(4), Some(command.as_str())));
        assert_eq!(value["rows"][0]["mean_rounds"], 5.0);
        assert_eq!(value["rows"][0]["scenario"], "Keep");
    }
}
