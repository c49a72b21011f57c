//! Whole battles: `oc battle` (one AI game with its log), `oc replay` (re-run a log and verify
//! every line) and `oc simulate` (many games in parallel, win rates with 95% intervals).

use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};

use oc_engine::ai::Ai;
use oc_engine::battle::{self, GameResult, Record};
use oc_engine::Engine;
use oc_model::{Army, BattleMap, Outcome, Rules, Scenario, SideId};
use oc_project::limits::{MAX_LOG_BYTES, MAX_SOURCE_BYTES};
use oc_project::log::Source;
use oc_project::output::Kind;
use rayon::prelude::*;

use crate::commands::{output_target, write_output};
use crate::Format;

/// What a battle needs, loaded from the `.oc` file that defines the scenario and its armies.
pub struct Setup {
    /// The scenario's file, relative to the project root (what a log records).
    pub logical: String,
    /// Every file read, for the output policy.
    pub inputs: Vec<PathBuf>,
    pub engine: Engine,
    pub scenario: Scenario,
    pub map: BattleMap,
    pub armies: [Army; 2],
}

fn pick_army(rules: &Rules, scenario: &Scenario, side: SideId, name: Option<&str>) -> Result<Army, String> {
    let candidates: Vec<&Army> = rules.armies.iter().filter(|a| a.scenario == scenario.name && a.side == side).collect();
    match name {
        Some(n) => rules
            .armies
            .iter()
            .find(|a| a.name == n)
            .filter(|a| a.side == side && a.scenario == scenario.name)
            .cloned()
            .ok_or_else(|| format!("no {} army `{n}` for {}; there are: {}", side.word(), scenario.name, names(&candidates))),
        None => match candidates.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(format!("no {} army for {} is defined", side.word(), scenario.name)),
            _ => Err(format!(
                "several {} armies for {}: {}; choose one with --{}",
                side.word(),
                scenario.name,
                names(&candidates),
                side.word()
            )),
        },
    }
}

fn names(armies: &[&Army]) -> String {
    armies.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", ")
}

pub fn load(file: &Path, scenario: Option<&str>, attacker: Option<&str>, defender: Option<&str>) -> Result<Setup, u8> {
    let (rules, workspace, root) = crate::scenario_cmd::compile(file)?;
    let fail = |e: String| {
        eprintln!("error: {e}");
        2u8
    };
    let s = match scenario {
        Some(n) => rules.scenario(n).cloned().ok_or_else(|| fail(format!("no scenario `{n}` in {}", file.display())))?,
        None => match rules.scenarios.as_slice() {
            [one] => one.clone(),
            _ => {
                return Err(fail(format!(
                    "{} defines {} scenarios; choose one with --scenario",
                    file.display(),
                    rules.scenarios.len()
                )))
            }
        },
    };
    let a = pick_army(&rules, &s, SideId::Attacker, attacker).map_err(fail)?;
    let d = pick_army(&rules, &s, SideId::Defender, defender).map_err(fail)?;
    // The scenario's map, as the compiler resolved it (a project path), read confined.
    let map_path = root.join(&s.map);
    let confined = oc_project::fsx::Confined::new(&root);
    let text = confined
        .read(Path::new(&s.map), MAX_SOURCE_BYTES)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| fail(format!("{}: {e}", map_path.display())))?;
    let (map, diags) = oc_atlas::parse(oc_diag::FileId(0), &text);
    let Some(mut map) = map.filter(|_| diags.iter().all(|d| !d.is_error())) else {
        return Err(fail(format!("{}: the map has errors; `oc check` shows them", map_path.display())));
    };
    map.resolve(&rules);
    let battle_map = map.battle_map();
    let engine = Engine::new(rules).map_err(|e| fail(e.message))?;
    let absolute = oc_project::manifest::absolute(file);
    let logical = oc_project::discover::logical(&root, &absolute).unwrap_or_else(|| file.to_string_lossy().into_owned());
    let mut inputs: Vec<PathBuf> =
        workspace.files().filter(|(_, f)| !f.path.starts_with("<std>")).map(|(_, f)| root.join(&f.path)).collect();
    inputs.push(file.to_path_buf());
    inputs.push(map_path);
    Ok(Setup { logical, inputs, engine, scenario: s, map: battle_map, armies: [a, d] })
}

fn outcome_word(o: Outcome) -> String {
    match o {
        Outcome::Win(s) => format!("the {} wins", s.word()),
        Outcome::Draw => "a draw".to_string(),
    }
}

fn log_lines(source: &Source, records: &[Record]) -> Vec<String> {
    let mut lines = vec![serde_json::to_string(source).unwrap_or_default()];
    lines.extend(records.iter().map(|r| serde_json::to_string(r).unwrap_or_default()));
    lines
}

#[allow(clippy::too_many_arguments)]
pub fn battle(
    file: &Path,
    scenario: Option<&str>,
    attacker: Option<&str>,
    defender: Option<&str>,
    seed: u64,
    log: Option<&Path>,
    force: bool,
) -> u8 {
    let setup = match load(file, scenario, attacker, defender) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let target = match log.map(|l| output_target(l, Kind::BattleLog, &setup.inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let armies = [&setup.armies[0], &setup.armies[1]];
    let (result, records) = match battle::play(&setup.engine, &setup.scenario, &setup.map, armies, seed, &mut Ai::default()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let source = Source {
        event: "source".into(),
        file: setup.logical.clone(),
        scenario: setup.scenario.name.clone(),
        attacker: setup.armies[0].name.clone(),
        defender: setup.armies[1].name.clone(),
        seed,
    };
    let lines = log_lines(&source, &records);
    match &target {
        Some(target) => {
            if let Err(code) = write_output(target, (lines.join("\n") + "\n").as_bytes()) {
                return code;
            }
        }
        None => {
            for l in &lines {
                println!("{l}");
            }
        }
    }
    eprintln!(
        "{} vs {} on {}: {} after {} round(s) ({}); routed: attacker {}, defender {}",
        setup.armies[0].name,
        setup.armies[1].name,
        setup.map.name,
        outcome_word(result.outcome),
        result.rounds,
        result.reason,
        result.lost[0],
        result.lost[1]
    );
    0
}

/// Re-runs a log. The file it names is relative to the root of the project the log lies in
/// (or of `project`, for a log kept elsewhere), and confined to it like an import.
pub fn replay(log: &Path, project: Option<&Path>) -> u8 {
    let text = match oc_project::fsx::read_regular(log, MAX_LOG_BYTES) {
        Ok(b) => String::from_utf8_lossy(&b).into_owned(),
        Err(e) => {
            eprintln!("error: cannot read {}: {e}", log.display());
            return 2;
        }
    };
    let mut lines = text.lines();
    let source = match oc_project::log::parse_source(lines.next().unwrap_or("")) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {}: {e}", log.display());
            return 2;
        }
    };
    let root = oc_project::find_root(project.unwrap_or(log)).dir;
    let file = match oc_project::log::source_path(&root, &source.file) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("error: {}: {e} (project root {})", log.display(), root.display());
            eprintln!("help: replay a log from inside its project, or name the project with --project DIR");
            return 2;
        }
    };
    let setup = match load(&file, Some(&source.scenario), Some(&source.attacker), Some(&source.defender)) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let armies = [&setup.armies[0], &setup.armies[1]];
    let records = match battle::play(&setup.engine, &setup.scenario, &setup.map, armies, source.seed, &mut Ai::default()) {
        Ok((_, r)) => r,
        Err(e) => {
            eprintln!("error: {e}");
            return 2;
        }
    };
    let expected = log_lines(&source, &records);
    for (n, (want, got)) in expected.iter().skip(1).zip(lines.by_ref()).enumerate() {
        if want != got {
            eprintln!("{}:{}: the replay differs here", log.display(), n + 2);
            eprintln!("  log:    {got}");
            eprintln!("  replay: {want}");
            eprintln!("help: the rules, the scenario or the armies changed since the log was written, or the log was edited");
            return 1;
        }
    }
    let logged = text.lines().count();
    if logged != expected.len() {
        eprintln!("{}: the log has {logged} lines, the replay {}", log.display(), expected.len());
        return 1;
    }
    eprintln!("replayed {} steps of {} (seed {}): identical", expected.len() - 1, source.scenario, source.seed);
    0
}

/// Per-game seeds derived from one seed (SplitMix64), so game k is the same whatever the
/// number of threads.
pub fn game_seed(seed: u64, game: u64) -> u64 {
    let mut z = seed.wrapping_add(game.wrapping_add(1).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The Wilson score interval for `wins` of `n` at 95%.
pub fn wilson(wins: u64, n: u64) -> [f64; 2] {
    // Wilson (1927): better than p +- 1.96 sqrt(p(1-p)/n) at small n or rates near 0 and 1.
    if n == 0 {
        return [0.0, 1.0];
    }
    let (p, n) = (wins as f64 / n as f64, n as f64);
    let z = 1.959_963_984_540_054_f64;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) + z * z / (4.0 * n)) / n).sqrt() / denom;
    // At 0 or n wins the interval touches 0 or 1 exactly (no rounding residue).
    let low = if wins == 0 { 0.0 } else { (centre - half).max(0.0) };
    let high = if wins as f64 >= n { 1.0 } else { (centre + half).min(1.0) };
    [low, high]
}

#[allow(clippy::too_many_arguments)]
pub fn simulate(
    file: &Path,
    scenario: Option<&str>,
    attacker: Option<&str>,
    defender: Option<&str>,
    games: u64,
    seed: u64,
    format: Format,
    out: Option<&Path>,
    force: bool,
) -> u8 {
    let setup = match load(file, scenario, attacker, defender) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let target = match out.map(|o| output_target(o, Kind::SimulationReport, &setup.inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let started = std::time::Instant::now();
    let bar = if std::io::stderr().is_terminal() {
        let bar = indicatif::ProgressBar::new(games);
        if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:40} {pos}/{len} games ({per_sec}, {eta} left)") {
            bar.set_style(style);
        }
        Some(bar)
    } else {
        None
    };
    let armies = [&setup.armies[0], &setup.armies[1]];
    // Games stream into counts: memory does not grow with the number of games.
    let tally = (0..games)
        .into_par_iter()
        .map(|g| {
            let r = battle::play(&setup.engine, &setup.scenario, &setup.map, armies, game_seed(seed, g), &mut Ai::default())
                .map(|(r, _)| r);
            if let Some(b) = &bar {
                b.inc(1);
            }
            match r {
                Ok(r) => Tally::of(&r),
                Err(e) => Tally { failure: Some(e.0), ..Tally::default() },
            }
        })
        .reduce(Tally::default, Tally::merge);
    if let Some(b) = &bar {
        b.finish_and_clear();
    }
    if let Some(e) = &tally.failure {
        eprintln!("error: a game failed: {e}");
        return 2;
    }
    let n = tally.games;
    let (aw, dw) = (tally.wins[0], tally.wins[1]);
    let draws = n - aw - dw;
    let mean = |sum: u64| if n == 0 { 0.0 } else { sum as f64 / n as f64 };
    let mean_rounds = mean(tally.rounds);
    let lost = [mean(tally.lost[0]), mean(tally.lost[1])];
    let endings = tally.endings;
    let rate = |w: u64| if n == 0 { 0.0 } else { w as f64 / n as f64 };
    let value = serde_json::json!({
        "scenario": setup.scenario.name,
        "attacker": setup.armies[0].name,
        "defender": setup.armies[1].name,
        "seed": seed,
        "games": n,
        "attacker_wins": aw,
        "defender_wins": dw,
        "draws": draws,
        "attacker_win_rate": rate(aw),
        "defender_win_rate": rate(dw),
        "ci95": wilson(aw, n),
        "defender_ci95": wilson(dw, n),
        "mean_rounds": mean_rounds,
        "mean_units_lost": {"attacker": lost[0], "defender": lost[1]},
        "endings": endings,
    });
    let text = match format {
        Format::Json => format!("{value}\n"),
        Format::Human => {
            let [lo, hi] = wilson(aw, n);
            let [dlo, dhi] = wilson(dw, n);
            let mut s = format!(
                "{} on {}: {} ({}) vs {} ({}), {n} games from seed {seed}\n",
                setup.scenario.title.as_deref().unwrap_or(&setup.scenario.name),
                setup.map.name,
                setup.armies[0].name,
                "attacker",
                setup.armies[1].name,
                "defender"
            );
            s.push_str(&format!(
                "  attacker wins {aw} ({:.1}%, 95% CI {:.1}-{:.1}%)\n",
                rate(aw) * 100.0,
                lo * 100.0,
                hi * 100.0
            ));
            s.push_str(&format!(
                "  defender wins {dw} ({:.1}%, 95% CI {:.1}-{:.1}%)\n",
                rate(dw) * 100.0,
                dlo * 100.0,
                dhi * 100.0
            ));
            s.push_str(&format!(
                "  draws {draws}; mean rounds {mean_rounds:.1}; units lost: attacker {:.2}, defender {:.2}\n",
                lost[0], lost[1]
            ));
            s.push_str("  how games ended:\n");
            for (k, v) in &endings {
                s.push_str(&format!("    {v:>6}  {k}\n"));
            }
            s
        }
    };
    match &target {
        Some(target) => {
            if let Err(code) = write_output(target, text.as_bytes()) {
                return code;
            }
        }
        None => {
            let _ = std::io::stdout().write_all(text.as_bytes());
        }
    }
    eprintln!("{n} games in {:.2?}", started.elapsed());
    0
}

/// What a simulation keeps of each game, summed.
#[derive(Default)]
struct Tally {
    games: u64,
    wins: [u64; 2],
    rounds: u64,
    lost: [u64; 2],
    endings: std::collections::BTreeMap<String, u64>,
    /// The first failure (by game order within each merge), which stops the report.
    failure: Option<String>,
}

impl Tally {
    fn of(r: &GameResult) -> Tally {
        let mut t = Tally { games: 1, rounds: u64::from(r.rounds), ..Tally::default() };
        t.lost = [u64::from(r.lost[0]), u64::from(r.lost[1])];
        match r.outcome {
            Outcome::Win(SideId::Attacker) => t.wins[0] = 1,
            Outcome::Win(SideId::Defender) => t.wins[1] = 1,
            Outcome::Draw => {}
        }
        t.endings.insert(format!("{}: {}", outcome_word(r.outcome), r.reason), 1);
        t
    }

    fn merge(mut self, other: Tally) -> Tally {
        self.games += other.games;
        self.rounds += other.rounds;
        for (a, b) in self.wins.iter_mut().zip(other.wins) {
            *a += b;
        }
        for (a, b) in self.lost.iter_mut().zip(other.lost) {
            *a += b;
        }
        for (k, v) in other.endings {
            *self.endings.entry(k).or_insert(0) += v;
        }
        self.failure = self.failure.or(other.failure);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_known_values() {
        // 50 of 100: 0.4038..0.5962 (the textbook value).
        let [lo, hi] = wilson(50, 100);
        assert!((lo - 0.4038).abs() < 1e-4 && (hi - 0.5962).abs() < 1e-4, "{lo} {hi}");
        assert_eq!(wilson(0, 6)[0], 0.0);
        assert_eq!(wilson(6, 6)[1], 1.0);
        // Seeds for game k do not depend on how many games run.
        assert_eq!(game_seed(9, 3), game_seed(9, 3));
        assert_ne!(game_seed(9, 3), game_seed(9, 4));
    }
}
