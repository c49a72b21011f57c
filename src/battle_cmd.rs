//! Whole battles: `oc battle` (one AI game with its log) and `oc replay` (re-run a log and verify
//! every line). `oc simulate` is in `simulate.rs`.

use std::path::{Path, PathBuf};

use oc_engine::ai::Sides;
use oc_engine::battle::{self, GameResult, Record};
use oc_engine::Engine;
use oc_model::{Army, BattleMap, Outcome, Rules, Scenario, SideId};
use oc_project::limits::{MAX_LOG_BYTES, MAX_SOURCE_BYTES};
use oc_project::log::Source;
use oc_project::output::{Kind, Target};

use crate::commands::{output_target, write_output};
use crate::replay_html::Recording;

/// What a battle needs, loaded from the `.oc` file that defines the scenario and its armies.
pub struct Setup {
    /// The scenario's file, relative to the project root (what a log records).
    pub logical: String,
    /// Every file read, for the output policy.
    pub inputs: Vec<PathBuf>,
    pub engine: Engine,
    pub scenario: Scenario,
    pub map: BattleMap,
    /// The map as the atlas read it (what a replay page draws).
    pub atlas: oc_atlas::Map,
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

/// A scenario ready to play, before its armies are chosen.
pub struct Field {
    pub logical: String,
    pub inputs: Vec<PathBuf>,
    pub engine: Engine,
    pub scenario: Scenario,
    pub map: BattleMap,
    pub atlas: oc_atlas::Map,
}

fn fail(e: String) -> u8 {
    eprintln!("error: {e}");
    2
}

/// The scenario `scenario` of `file` (its only one by default), its map and the engine for its
/// rules; errors are printed.
pub fn load_field(file: &Path, scenario: Option<&str>) -> Result<Field, u8> {
    let (rules, workspace, root) = crate::scenario_cmd::compile(file)?;
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
    let (map, map_path) = scenario_map(&root, &rules, &s).map_err(fail)?;
    let battle_map = map.battle_map();
    let engine = Engine::new(rules).map_err(|e| fail(e.message))?;
    let absolute = oc_project::manifest::absolute(file);
    let logical = oc_project::discover::logical(&root, &absolute).unwrap_or_else(|| file.to_string_lossy().into_owned());
    let mut inputs: Vec<PathBuf> =
        workspace.files().filter(|(_, f)| !f.path.starts_with("<std>")).map(|(_, f)| root.join(&f.path)).collect();
    inputs.push(file.to_path_buf());
    inputs.push(map_path);
    Ok(Field { logical, inputs, engine, scenario: s, map: battle_map, atlas: map })
}

pub fn load(file: &Path, scenario: Option<&str>, attacker: Option<&str>, defender: Option<&str>) -> Result<Setup, u8> {
    let f = load_field(file, scenario)?;
    let a = pick_army(&f.engine.rules, &f.scenario, SideId::Attacker, attacker).map_err(fail)?;
    let d = pick_army(&f.engine.rules, &f.scenario, SideId::Defender, defender).map_err(fail)?;
    Ok(Setup {
        logical: f.logical,
        inputs: f.inputs,
        engine: f.engine,
        scenario: f.scenario,
        map: f.map,
        atlas: f.atlas,
        armies: [a, d],
    })
}

/// The scenario's map, as the compiler resolved it (a project path), read confined to `root`
/// and resolved against the rules; with its path on disk.
pub fn scenario_map(root: &Path, rules: &Rules, s: &Scenario) -> Result<(oc_atlas::Map, PathBuf), String> {
    let map_path = root.join(&s.map);
    let confined = oc_project::fsx::Confined::new(root);
    let text = confined
        .read(Path::new(&s.map), MAX_SOURCE_BYTES)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| format!("{}: {e}", map_path.display()))?;
    let (map, diags) = oc_atlas::parse(oc_diag::FileId(0), &text);
    let Some(mut map) = map.filter(|_| diags.iter().all(|d| !d.is_error())) else {
        return Err(format!("{}: the map has errors; `oc check` shows them", map_path.display()));
    };
    map.resolve(rules);
    Ok((map, map_path))
}

pub(crate) fn outcome_word(o: Outcome) -> String {
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

/// Where `oc battle` writes: the log (standard output without one) and a replay page.
pub struct Outputs<'p> {
    pub log: Option<&'p Path>,
    pub html: Option<&'p Path>,
    pub force: bool,
}

/// The AI of each side, by name (`oc_engine::ai::AIS`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ais {
    pub attacker: String,
    pub defender: String,
}

impl Ais {
    /// Fresh controllers for one battle; an unknown name is an error naming the AIs there are.
    pub fn controllers(&self) -> Result<Sides, String> {
        Sides::by_names(&self.attacker, &self.defender)
            .map_err(|name| format!("no AI `{name}`; the AIs are {}", oc_engine::ai::names().join(", ")))
    }
}

/// A played battle: its result and log, the replay page's recording when one was asked for,
/// and which alternative of an `either ... or ...` won.
type Played = (GameResult, Vec<Record>, Option<Recording>, Option<String>);

/// Plays the battle, recorded for a replay page when `page` is asked for.
fn run(setup: &Setup, seed: u64, ais: &Ais, page: bool) -> Result<Played, String> {
    let mut sides = ais.controllers()?;
    if page {
        let rec = crate::replay_html::play(setup, seed, Box::new(sides)).map_err(|e| e.to_string())?;
        return Ok((rec.result.clone(), rec.records.clone(), Some(rec), None));
    }
    let armies = [&setup.armies[0], &setup.armies[1]];
    let mut branch = None;
    let mut watch = |b: &battle::Battle<'_>| {
        if b.outcome.is_some() {
            branch = b.winning_branch();
        }
    };
    let (result, records) =
        battle::play_watched(&setup.engine, &setup.scenario, &setup.map, armies, seed, &mut sides, &mut watch)
            .map_err(|e| e.to_string())?;
    Ok((result, records, None, branch))
}

/// Writes the replay page of a recorded battle.
fn write_page(target: &Target, setup: &Setup, source: &Source, rec: &Recording) -> Result<(), u8> {
    let page = crate::replay_html::page(setup, source, rec).map_err(|e| {
        eprintln!("error: cannot make the replay page: {e}");
        2u8
    })?;
    write_output(target, page.as_bytes())?;
    eprintln!("wrote the replay page {} ({} KiB)", target.show(), page.len().div_ceil(1024));
    Ok(())
}

pub fn battle(
    file: &Path,
    scenario: Option<&str>,
    attacker: Option<&str>,
    defender: Option<&str>,
    seed: u64,
    ais: &Ais,
    out: Outputs<'_>,
) -> u8 {
    let setup = match load(file, scenario, attacker, defender) {
        Ok(s) => s,
        Err(code) => return code,
    };
    let target = match out.log.map(|l| output_target(l, Kind::BattleLog, &setup.inputs, out.force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let mut page_inputs = setup.inputs.clone();
    page_inputs.extend(out.log.map(Path::to_path_buf));
    let page_target = match out.html.map(|h| output_target(h, Kind::ReplayPage, &page_inputs, out.force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    if let (Some(Target::Stdout), Some(Target::Stdout) | None) = (&page_target, &target) {
        eprintln!("error: the log and the replay page cannot both go to standard output");
        eprintln!("help: give --log a file, or --html a file");
        return 2;
    }
    let (result, records, recording, branch) = match run(&setup, seed, ais, page_target.is_some()) {
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
        attacker_ai: ais.attacker.clone(),
        defender_ai: ais.defender.clone(),
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
    if let (Some(t), Some(rec)) = (&page_target, &recording) {
        if let Err(code) = write_page(t, &setup, &source, rec) {
            return code;
        }
    }
    eprintln!(
        "{} ({}) vs {} ({}) on {}: {} after {} round(s) ({}); routed: attacker {}, defender {}",
        setup.armies[0].name,
        ais.attacker,
        setup.armies[1].name,
        ais.defender,
        setup.map.name,
        outcome_word(result.outcome),
        result.rounds,
        match &branch {
            Some(branch) => format!("{}; won by {branch}", result.reason),
            None => result.reason.clone(),
        },
        result.lost[0],
        result.lost[1]
    );
    0
}

/// Re-runs a log. The file it names is relative to the root of the project the log lies in
/// (or of `project`, for a log kept elsewhere), and confined to it like an import.
pub fn replay(log: &Path, project: Option<&Path>, html: Option<&Path>, force: bool) -> u8 {
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
    let mut inputs = setup.inputs.clone();
    inputs.push(log.to_path_buf());
    let page_target = match html.map(|h| output_target(h, Kind::ReplayPage, &inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    // The AIs the log names (a log from before there were several: `greedy`).
    let ais = Ais { attacker: source.attacker_ai.clone(), defender: source.defender_ai.clone() };
    let (records, recording) = match run(&setup, source.seed, &ais, page_target.is_some()) {
        Ok((_, r, rec, _)) => (r, rec),
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
    if let (Some(t), Some(rec)) = (&page_target, &recording) {
        if let Err(code) = write_page(t, &setup, &source, rec) {
            return code;
        }
    }
    0
}
