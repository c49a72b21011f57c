//! A scenario ready to play: the `.oc` files under a path compiled (with their imports) into
//! rules, one scenario of them with its map read and resolved, the engine of the rules, and the
//! two armies chosen. [`Field`] is the scenario before its armies are chosen (a tournament
//! fields several rosters on it); [`Setup`] is one with both armies, what every game is played
//! from — `oc battle`, `oc simulate`, `oc tune`, `oc fairness` and a replay page alike.

use std::ops::Range;
use std::path::{Path, PathBuf};

use oc_compiler::Workspace;
use oc_diag::Diagnostic;
use oc_engine::ai::{self, Sides};
use oc_engine::battle::{self, Controller, GameResult, Record};
use oc_engine::Engine;
use oc_model::{Army, BattleMap, Outcome, Rules, Scenario, SideId};
use oc_project::limits::MAX_SOURCE_BYTES;
use rayon::prelude::*;

use crate::error::{Failure, Refusal};
use crate::stats::game_seed;

/// The `.oc` files under a path compiled together, with their imports.
pub struct Compiled {
    pub rules: Rules,
    /// The files' text, for the spans of the diagnostics.
    pub workspace: Workspace,
    /// The project's root: the paths in the rules (a scenario's map) are relative to it.
    pub root: PathBuf,
    /// The warnings of the compilation (it has no errors).
    pub warnings: Vec<Diagnostic>,
}

/// Compiles the `.oc` files under `path` (with imports): the rules, or the diagnostics that
/// stop them.
pub fn compile(path: &Path) -> Result<Compiled, Failure> {
    compile_for(path, "play")
}

/// [`compile`] for `oc {command}`, which a refusal of files of several rulesets names.
pub fn compile_for(path: &Path, command: &str) -> Result<Compiled, Failure> {
    let project = oc_project::load::project_with_files(&[path.to_path_buf()], "play")?;
    let oc_project::load::Loaded { project, mut workspace, compilation, unreadable, .. } =
        oc_project::load::compile_project(project);
    if !unreadable.is_empty() {
        let diagnostics = oc_project::unreadable::diagnostics(&mut workspace, &unreadable);
        return Err(Failure::Rejected { workspace: Box::new(workspace), diagnostics });
    }
    match compilation.rules {
        Some(rules) => Ok(Compiled { rules, workspace, root: project.root, warnings: compilation.diagnostics }),
        // Files of several rulesets (a folder holding a ruleset of its own beside files of the
        // standard one): which files use which (`oc {command}`), not the cascade of each read
        // against one ruleset's names.
        None => match oc_project::load::several_rulesets_refusal(&project, &[path.to_path_buf()], command) {
            Some(r) => Err(r.into()),
            None => Err(Failure::Rejected { workspace: Box::new(workspace), diagnostics: compilation.diagnostics }),
        },
    }
}

/// A scenario ready to play, before its armies are chosen.
pub struct Field {
    /// The scenario's file, relative to the project root (what a log records).
    pub logical: String,
    /// Every file read, for the output policy.
    pub inputs: Vec<PathBuf>,
    pub engine: Engine,
    pub scenario: Scenario,
    pub map: BattleMap,
    /// The map as the atlas read it (what a replay page draws).
    pub atlas: oc_atlas::Map,
}

/// A scenario ready to play: a field with both armies, [attacker, defender].
pub struct Setup {
    pub logical: String,
    pub inputs: Vec<PathBuf>,
    pub engine: Engine,
    pub scenario: Scenario,
    pub map: BattleMap,
    pub atlas: oc_atlas::Map,
    pub armies: [Army; 2],
}

/// Refused where a command that plays the scenario of one file is given a folder (compiled
/// whole, a project's scenarios clash: hundreds of errors, none of them the point) or a file that
/// is not `.oc`. A missing path is the compiler's to report.
pub fn one_file(file: &Path) -> Result<(), Refusal> {
    let shown = file.display();
    match std::fs::metadata(file) {
        Ok(m) if m.is_dir() => Err(Refusal::new(format!(
            "{shown} is a folder: this command plays a scenario written in one `.oc` file"
        ))
        .with_help(format!(
            "name the file (such as {}); `oc fairness` and `oc tournament --as-written` take folders",
            file.join("scenario.oc").display()
        ))),
        Ok(_) if file.extension().is_none_or(|e| e != "oc") => Err(Refusal::new(format!("{shown} is not an `.oc` file"))
            .with_help("name the `.oc` file that holds the scenario (or imports it)")),
        _ => Ok(()),
    }
}

impl Compiled {
    /// The scenario `scenario` of the rules compiled from `file` (their only one by default),
    /// its map and the engine for the rules.
    pub fn field(self, file: &Path, scenario: Option<&str>) -> Result<Field, Failure> {
        let Compiled { rules, workspace, root, .. } = self;
        let s = match scenario {
            Some(n) => rules.scenario(n).cloned().ok_or_else(|| {
                Refusal::new(format!("no scenario `{n}` in {}", file.display())).with_help(scenarios_in(&rules))
            })?,
            None => match rules.scenarios.as_slice() {
                [one] => one.clone(),
                _ => {
                    return Err(Refusal::new(format!("{} defines {} scenarios", file.display(), rules.scenarios.len()))
                        .with_help(scenarios_in(&rules))
                        .into())
                }
            },
        };
        let (map, map_path) = scenario_map(&root, &rules, &s)?;
        let battle_map = map.battle_map();
        let engine = Engine::new(rules).map_err(|e| Failure::refused(e.to_string()))?;
        let absolute = oc_project::manifest::absolute(file);
        let logical = oc_project::discover::logical(&root, &absolute).unwrap_or_else(|| file.to_string_lossy().into_owned());
        let mut inputs: Vec<PathBuf> =
            workspace.files().filter(|(_, f)| !f.path.starts_with("<std>")).map(|(_, f)| root.join(&f.path)).collect();
        inputs.push(file.to_path_buf());
        inputs.push(map_path);
        Ok(Field { logical, inputs, engine, scenario: s, map: battle_map, atlas: map })
    }
}

impl Field {
    /// The field with the armies named (each side's only one by default). A mirror scenario
    /// whose armies are all written for the attacker fields one of them on each side, as
    /// `oc tournament` does: the defender takes the attacker's army unless it names another.
    pub fn with_armies(self, attacker: Option<&str>, defender: Option<&str>) -> Result<Setup, Failure> {
        let rules = &self.engine.rules;
        let a = pick_army(rules, &self.scenario, SideId::Attacker, attacker)?;
        let written = |side| rules.armies.iter().any(|x| x.scenario == self.scenario.name && x.side == side);
        let d = if !written(SideId::Defender) && mirror(&self.scenario).is_ok() {
            let mut d = match defender {
                Some(_) => pick_army(rules, &self.scenario, SideId::Attacker, defender)?,
                None => a.clone(),
            };
            d.side = SideId::Defender;
            d
        } else {
            pick_army(rules, &self.scenario, SideId::Defender, defender)?
        };
        Ok(self.fielding([a, d]))
    }

    /// The field with these armies.
    pub fn fielding(self, armies: [Army; 2]) -> Setup {
        let Field { logical, inputs, engine, scenario, map, atlas } = self;
        Setup { logical, inputs, engine, scenario, map, atlas, armies }
    }
}

/// The help naming a file's scenarios: "choose one with --scenario NAME: A, B".
fn scenarios_in(rules: &Rules) -> String {
    match rules.scenarios.as_slice() {
        [] => "the file defines no scenario: name the `.oc` file that holds one".to_string(),
        all => format!("choose one with --scenario NAME: {}", all.iter().map(|s| s.name.as_str()).collect::<Vec<_>>().join(", ")),
    }
}

/// The army of `side` named `name` (the side's only one by default).
pub fn pick_army(rules: &Rules, scenario: &Scenario, side: SideId, name: Option<&str>) -> Result<Army, Refusal> {
    let candidates: Vec<&Army> = rules.armies.iter().filter(|a| a.scenario == scenario.name && a.side == side).collect();
    let names = || match candidates.as_slice() {
        [] => "none is written for this side".to_string(),
        _ => candidates.iter().map(|a| a.name.as_str()).collect::<Vec<_>>().join(", "),
    };
    match name {
        Some(n) => rules
            .armies
            .iter()
            .find(|a| a.name == n)
            .filter(|a| a.side == side && a.scenario == scenario.name)
            .cloned()
            .ok_or_else(|| {
                Refusal::new(format!("no {} army `{n}` for {}; there are: {}", side.word(), scenario.name, names()))
                    .with_help(format!("name one of them with --{}, or leave it out where there is one", side.word()))
            }),
        None => match candidates.as_slice() {
            [one] => Ok((*one).clone()),
            [] => Err(Refusal::new(format!("no {} army for {} is defined", side.word(), scenario.name)).with_help(format!(
                "write one: `army NAME for {} {} {{ ... }}` (see `oc explain-scenario`)",
                scenario.name,
                side.word()
            ))),
            _ => Err(Refusal::new(format!("several {} armies for {}: {}", side.word(), scenario.name, names()))
                .with_help(format!("choose one with --{} NAME", side.word()))),
        },
    }
}

/// Whether a scenario's sides are the same but for their zones (and what tells them apart).
pub fn mirror(s: &Scenario) -> Result<(), String> {
    let (a, d) = (&s.attacker, &s.defender);
    let differs = [
        (a.win != d.win, "their victory conditions"),
        (a.war_chest != d.war_chest, "their war chests"),
        ((a.min_units, a.max_units) != (d.min_units, d.max_units), "their numbers of units"),
        (a.limits != d.limits, "their army limits"),
        (a.grants != d.grants, "the tags they grant"),
        (
            (&a.allowed_classes, &a.allowed_items, &a.banned_classes, &a.banned_items)
                != (&d.allowed_classes, &d.allowed_items, &d.banned_classes, &d.banned_items),
            "the classes and items they allow",
        ),
        (s.rounds.is_some() && !matches!(s.on_time_limit, Outcome::Draw), "the time limit's winner (it must be a draw)"),
    ];
    let why: Vec<&str> = differs.iter().filter(|(d, _)| *d).map(|(_, w)| *w).collect();
    if why.is_empty() {
        Ok(())
    } else {
        Err(format!("the sides differ in {}", why.join(", ")))
    }
}

/// The scenario's map, as the compiler resolved it (a project path), read confined to `root`
/// and resolved against the rules; with its path on disk.
pub fn scenario_map(root: &Path, rules: &Rules, s: &Scenario) -> Result<(oc_atlas::Map, PathBuf), Refusal> {
    let map_path = root.join(&s.map);
    let confined = oc_project::fsx::Confined::new(root);
    let text = confined
        .read(Path::new(&s.map), MAX_SOURCE_BYTES)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .map_err(|e| Refusal::new(format!("{}: {e}", map_path.display())))?;
    let (map, diags) = oc_atlas::parse(oc_diag::FileId(0), &text);
    let Some(mut map) = map.filter(|_| diags.iter().all(|d| !d.is_error())) else {
        return Err(Refusal::new(format!("{}: the map has errors; `oc check` shows them", map_path.display())));
    };
    map.resolve(rules);
    Ok((map, map_path))
}

/// `the attacker wins`, `a draw`.
pub fn outcome_word(o: Outcome) -> String {
    match o {
        Outcome::Win(s) => format!("the {} wins", s.word()),
        Outcome::Draw => "a draw".to_string(),
    }
}

/// The AI of each side, by name (`oc_engine::ai::AIS`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ais {
    pub attacker: String,
    pub defender: String,
}

impl Ais {
    /// Fresh controllers for one battle; an unknown name is an error naming the AIs there are.
    /// Each recalls its opening decisions from the thread's earlier battles where it can
    /// (`oc_engine::ai::by_name_recalling`: the same turns, sooner).
    pub fn controllers(&self) -> Result<Sides, String> {
        Sides::by_names_recalling(&self.attacker, &self.defender).map_err(|e| e.to_string())
    }
}

/// The AI that plays both sides of every game `oc tune` and `oc fairness` measure: the default,
/// as in `oc simulate`. Changing the AI those commands measure with is this one line.
pub fn controller() -> Box<dyn Controller + Send> {
    ai::by_name_recalling(ai::DEFAULT).unwrap_or_else(|| Box::new(ai::Tactician::recalling()))
}

impl Setup {
    /// What its games are played from, as a name: the rules, the scenario, its map and both
    /// armies as compiled, and this oc's version, hashed (`stats::fnv`). Parts of one run carry
    /// it, so that a merge refuses a part played from an edited scenario (its names alike: a
    /// Fighter made a Knight was merged).
    pub fn fingerprint(&self) -> String {
        let played = serde_json::to_vec(&(&self.engine.rules, &self.scenario, &self.map, &self.armies)).unwrap_or_default();
        format!("{}-{:016x}", env!("CARGO_PKG_VERSION"), crate::stats::fnv(&played))
    }

    /// Game `g` of a run from `seed` (seeded as `oc simulate` seeds it), the default AI on both
    /// sides, with its log.
    pub fn game(&self, seed: u64, g: u64) -> Result<(GameResult, Vec<Record>), String> {
        let armies = [&self.armies[0], &self.armies[1]];
        battle::play(&self.engine, &self.scenario, &self.map, armies, game_seed(seed, g), controller().as_mut())
            .map_err(|e| e.to_string())
    }

    /// [`Setup::game`]'s result alone: the game played without the words of its log
    /// (`battle::play_unlogged`), the same result.
    pub fn result(&self, seed: u64, g: u64) -> Result<GameResult, String> {
        let armies = [&self.armies[0], &self.armies[1]];
        let seed = game_seed(seed, g);
        battle::play_unlogged(&self.engine, &self.scenario, &self.map, armies, seed, controller().as_mut(), &mut |_| {})
            .map_err(|e| e.to_string())
    }

    /// Games `range` in parallel, in game order; the first failure (by game order) stops it.
    pub fn play(&self, seed: u64, range: Range<u64>) -> Result<Vec<GameResult>, String> {
        self.play_ticked(seed, range, &|| {})
    }

    /// [`Setup::play`], calling `tick` after each game (a front end's progress bar).
    pub fn play_ticked(&self, seed: u64, range: Range<u64>, tick: &(dyn Fn() + Sync)) -> Result<Vec<GameResult>, String> {
        range
            .into_par_iter()
            .map(|g| {
                let played = self.result(seed, g);
                tick();
                played
            })
            .collect()
    }
}
