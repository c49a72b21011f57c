//! `cargo bench --bench battle`: whole 10-versus-10 AI battles per minute on Grado Keep (one
//! core, then all cores with rayon, as `oc simulate` runs them), with `greedy` (the fast
//! setting: `battles_per_min_*`), with `tactician` (`*_tactician`, and its cost per battle) and
//! with `planner`, the default (`*_planner`: there it plays as the tactician); then six a side to
//! rout all on the same field (`*_open`), where the planner searches, with both. Then the
//! commands users run, each the whole process (compile, setup, games, report): `oc simulate` of
//! the same 10-versus-10 scenario with each AI (`simulate_per_min_*`), on one thread and on all
//! (`simulate_thread_speedup_greedy`), and `oc fairness scenarios --games 1000`
//! (`fairness_scenarios_s_1000`, its wall time, run whole; `*_cpu_s_1000` its CPU time).
//! Last, the CPU a game of the three costliest shipped scenarios takes through `oc simulate` on
//! one thread with the default AI (`storm_game_cpu_ms`, `town_square_game_cpu_ms`,
//! `elder_hall_game_cpu_ms`). Nothing here asserts a time.
//!
//! Before and after in one run: with `OC_BENCH_BASELINE=/path/to/an/older/oc`, each command
//! figure is read on both binaries, their runs alternating (older, this, older, this, ...), and
//! printed twice: `bench NAME VALUE UNIT` for this build's `oc`, `bench NAME_baseline VALUE UNIT`
//! for the older one. A single run of a command on this shared machine moves by a fifth from one
//! minute to the next; the alternation puts both binaries under the same load.

// The allocator `oc` plays with (mimalloc, declared in oc-play): the in-process figures were
// read on the system's allocator, which made them slower than the command's.
extern crate oc_play as _;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use oc_compiler::{Host, Workspace};
use oc_engine::ai::{self, Greedy};
use rayon::prelude::*;

struct Repo(PathBuf);

const BENCH: &str = r#"
scenario Skirmish10 {
    map "scenarios/maps/grado-keep.map.toml"
    rounds 15 then defender
    attacker { zone "attacker-zone" war_chest 99999 units 10..10 grant Leader to 1 win seize "emperors-throne" or rout all }
    defender { zone "defender-zone" war_chest 99999 units 10..10 win rout all }
}
army Alliance for Skirmish10 attacker {
    unit Ephraim: Lord { items Rapier tags Leader }
    unit Colm: Thief { items IronSword, MasterKey }
    unit Gilliam: Knight { items IronLance, Javelin }
    unit Kyle: Cavalier { items SteelLance }
    unit Forde: Cavalier { items IronSword }
    unit Lute: Mage { items Fire }
    unit Artur: Monk { items Lightning }
    unit Garcia: Fighter { items SteelAxe }
    unit Neimi: Archer { items IronBow }
    unit Natasha: Cleric { items HealStaff }
}
army Guard for Skirmish10 defender {
    unit Vigarde: Knight { items SteelLance, Javelin }
    unit Aias: Myrmidon { items SteelSword }
    unit Kletus: Knight { items IronLance }
    unit Riev: Shaman { items Flux }
    unit Tirado: Archer { items SteelBow }
    unit Pablo: Mage { items Fire }
    unit Bone: Brigand { items IronAxe }
    unit Bazba: Fighter { items SteelAxe }
    unit Saar: Soldier { items IronLance }
    unit Moulder: Priest { items HealStaff }
}
"#;

impl Host for Repo {
    fn read(&mut self, path: &str) -> Result<String, oc_compiler::ReadError> {
        if path == "bench.oc" {
            return Ok(BENCH.to_string());
        }
        if path == "open.oc" {
            return Ok(open_field());
        }
        std::fs::read_to_string(self.0.join(path)).map_err(|e| oc_compiler::ReadError::Io(e.to_string()))
    }
}

/// Six of each army on the same map, both sides to rout all and a draw when the time runs out:
/// a battle won by material alone, twelve units (`ai::planner::MAX_UNITS`), where the planner
/// searches for both sides from the first turn.
fn open_field() -> String {
    let text = BENCH
        .replace("Skirmish10", "Open6")
        .replace("units 10..10", "units 6..6")
        .replace("rounds 15 then defender", "rounds 15 then draw")
        .replace("win seize \"emperors-throne\" or rout all", "win rout all");
    let mut kept = 0;
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("army ") {
            kept = 0;
        }
        if line.trim_start().starts_with("unit ") {
            kept += 1;
            if kept > 6 {
                continue;
            }
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// The engine and the map of one of the bench's files.
fn field(root: &std::path::Path, file: &str) -> (oc_engine::Engine, oc_model::BattleMap) {
    let (c, _) = Workspace::new().compile(&mut Repo(root.to_path_buf()), &[file.to_string()]);
    let rules = c.rules.unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    let text = std::fs::read_to_string(root.join("scenarios/maps/grado-keep.map.toml")).expect("map");
    let (map, _) = oc_atlas::parse(oc_diag::FileId(0), &text);
    let mut map = map.expect("map parses");
    map.resolve(&rules);
    (oc_engine::Engine::new(rules).expect("engine"), map.battle_map())
}

fn main() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let (engine, map) = field(&root, "bench.oc");
    let s = &engine.rules.scenarios[0];
    let armies = [&engine.rules.armies[0], &engine.rules.armies[1]];

    let games = 30u64;
    let started = Instant::now();
    let mut rounds = 0;
    for g in 0..games {
        let (r, _) = oc_engine::battle::play(&engine, s, &map, armies, g, &mut Greedy::default()).expect("game");
        rounds += r.rounds;
    }
    let one = started.elapsed();
    let per_min_1 = games as f64 / one.as_secs_f64() * 60.0;
    eprintln!(
        "10v10 on Grado Keep, one thread: {games} battles in {one:.2?} (mean {:.1} rounds)",
        f64::from(rounds) / games as f64
    );
    println!("bench battles_per_min_1t {per_min_1:.0} 1/min");
    let games = 60u64;
    let started = Instant::now();
    let done: u32 = (0..games)
        .into_par_iter()
        .map(|g| oc_engine::battle::play(&engine, s, &map, armies, 1000 + g, &mut Greedy::default()).map_or(0, |_| 1))
        .sum();
    let all = started.elapsed();
    let per_min_n = f64::from(done) / all.as_secs_f64() * 60.0;
    eprintln!("10v10 on Grado Keep, {} threads: {done} battles in {all:.2?}", rayon::current_num_threads());
    println!("bench battles_per_min_{}t {per_min_n:.0} 1/min", rayon::current_num_threads());
    println!("bench battles_thread_speedup {:.2} x", per_min_n / per_min_1);

    // The default AI, and the planner: fewer games, they think longer.
    ai_figures(&engine, s, &map, armies, "tactician", 10, "");
    ai_figures(&engine, s, &map, armies, ai::DEFAULT, 10, "");
    // The planner searches only where material decides the battle and at most twelve units
    // stand (on Grado Keep it plays as the tactician): its figures come from the open field.
    let (open, map) = field(&root, "open.oc");
    let armies = [&open.rules.armies[0], &open.rules.armies[1]];
    ai_figures(&open, &open.rules.scenarios[0], &map, armies, "tactician", 10, "_open");
    ai_figures(&open, &open.rules.scenarios[0], &map, armies, "planner", 4, "_open");

    whole_process(&root);
    scenario_cpu(&root);
}

/// The binaries each command figure is read on: this build's `oc`, and the one
/// `OC_BENCH_BASELINE` names (its figures' names end `_baseline`).
fn binaries() -> Vec<(&'static str, PathBuf)> {
    let mut all = vec![("", PathBuf::from(env!("CARGO_BIN_EXE_oc")))];
    if let Some(old) = std::env::var_os("OC_BENCH_BASELINE").filter(|v| !v.is_empty()) {
        all.push(("_baseline", PathBuf::from(old)));
    }
    all
}

/// One whole run of `oc` at `bin` with `args` in `dir`, with `threads` worker threads (`None`: as
/// many as cores): its wall time, and its CPU time (user and system, as the kernel counts this
/// process's waited-for children) where that can be read.
fn run_oc(bin: &Path, dir: &Path, args: &[&str], threads: Option<usize>) -> (Duration, Option<Duration>) {
    let mut cmd = Command::new(bin);
    cmd.args(args).current_dir(dir);
    if let Some(n) = threads {
        cmd.env("RAYON_NUM_THREADS", n.to_string());
    }
    let (before, start) = (children_cpu(), Instant::now());
    let out = cmd.output().expect("oc runs");
    let took = start.elapsed();
    assert!(out.status.success(), "{} {args:?}: {}", bin.display(), String::from_utf8_lossy(&out.stderr));
    let cpu = match (before, children_cpu()) {
        (Some(a), Some(z)) if z > a => Some(z - a),
        _ => None,
    };
    (took, cpu)
}

/// The user and system time the kernel keeps for this process's waited-for children: fields 16
/// and 17 of `/proc/self/stat` (after the command's closing parenthesis, which may follow a name
/// with spaces: 14 and 15), in hundredths of a second.
fn children_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let rest = stat.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = fields.get(13)?.parse::<u64>().ok()? + fields.get(14)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// `runs` runs of `args` on each of `binaries()`, alternating, measured by `measure` (the wall
/// time, or the CPU time): the median for each binary, in `binaries()`'s order.
fn median_of(
    runs: usize,
    dir: &Path,
    args: &[&str],
    threads: Option<usize>,
    measure: fn((Duration, Option<Duration>)) -> Duration,
) -> Vec<Duration> {
    rounds(runs, dir, args, threads).into_iter().map(|s| median(s.into_iter().map(measure).collect())).collect()
}

/// `runs` rounds of one whole run of `oc` with `args` on each binary ([`run_oc`]), each binary's
/// runs in a list of its own.
fn rounds(runs: usize, dir: &Path, args: &[&str], threads: Option<usize>) -> Vec<Vec<(Duration, Option<Duration>)>> {
    let bins = binaries();
    let mut samples: Vec<Vec<(Duration, Option<Duration>)>> = vec![Vec::new(); bins.len()];
    for _ in 0..runs {
        // The older binary first in each round: a steady drift of the machine's load then
        // favours neither.
        for (k, (_, bin)) in bins.iter().enumerate().rev() {
            samples[k].push(run_oc(bin, dir, args, threads));
        }
    }
    samples
}

/// The middle of `samples` (the upper of the two middle ones of an even number).
fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

/// The wall time of a run.
fn wall((wall, _): (Duration, Option<Duration>)) -> Duration {
    wall
}

/// The CPU time of a run, its wall time where the CPU time cannot be read.
fn cpu((wall, cpu): (Duration, Option<Duration>)) -> Duration {
    cpu.unwrap_or(wall)
}

/// Prints one figure per binary: `bench NAME VALUE UNIT`, then `bench NAME_baseline ...`.
fn print_each(name: &str, values: &[f64], digits: usize, unit: &str) {
    for ((suffix, _), v) in binaries().iter().zip(values) {
        println!("bench {name}{suffix} {v:.digits$} {unit}");
    }
}

/// `oc simulate` of the bench's scenario (a project of its own in a temporary folder: the file,
/// its map, `oc.toml`) with each AI, and `oc fairness scenarios`, as users run them.
fn whole_process(root: &Path) {
    let dir = tempfile::tempdir().expect("a temporary folder");
    std::fs::create_dir_all(dir.path().join("maps")).expect("maps folder");
    std::fs::write(dir.path().join("oc.toml"), "[project]\n").expect("oc.toml");
    std::fs::copy(root.join("scenarios/maps/grado-keep.map.toml"), dir.path().join("maps/grado-keep.map.toml")).expect("map");
    std::fs::write(dir.path().join("skirmish10.oc"), BENCH.replace("scenarios/maps/", "maps/")).expect("scenario");
    let per_min = |ai: &str, games: u64, threads: Option<usize>| -> Vec<f64> {
        let n = games.to_string();
        let args = ["simulate", "skirmish10.oc", "--games", &n, "--attacker-ai", ai, "--defender-ai", ai, "--quiet"];
        let times = median_of(3, dir.path(), &args, threads, wall);
        let shown = threads.unwrap_or(rayon::current_num_threads());
        eprintln!("oc simulate, {ai}, {games} games, {shown} threads: {times:.2?}");
        times.iter().map(|t| games as f64 / t.as_secs_f64() * 60.0).collect()
    };
    let greedy = per_min("greedy", 400, None);
    print_each("simulate_per_min_greedy", &greedy, 0, "1/min");
    let one = per_min("greedy", 200, Some(1));
    print_each("simulate_per_min_1t_greedy", &one, 0, "1/min");
    let speedup: Vec<f64> = greedy.iter().zip(&one).map(|(n, o)| n / o).collect();
    print_each("simulate_thread_speedup_greedy", &speedup, 2, "x");
    print_each("simulate_per_min_tactician", &per_min("tactician", 60, None), 0, "1/min");
    print_each(&format!("simulate_per_min_{}", ai::DEFAULT), &per_min(ai::DEFAULT, 60, None), 0, "1/min");

    // `oc fairness scenarios --games 1000` as users run it, whole: its wall time and the CPU time
    // it took (user and system), the median of `OC_BENCH_FAIRNESS_RUNS` runs (default 1) each
    // binary, the binaries alternating ([`rounds`]). Not scaled from fewer games: a game's cost falls as the
    // thread's caches and book of openings fill over hundreds of games (on one machine, one run
    // each: 200 games took 15.6 s, 1000 took 68.5 s, not 78), and the figure scaled from the
    // difference of a 20- and a 40-game run, which multiplied that difference's noise fifty times,
    // read 65 to 82 s in three tries against the 68.5 s of the command (the last stop's read 110 s
    // against 134 s). `OC_BENCH_FAIRNESS_GAMES` plays another number of games a scenario, for a
    // quicker reading: its figures are named by it (`fairness_scenarios_s_200`), never scaled.
    let games: u64 = std::env::var("OC_BENCH_FAIRNESS_GAMES").ok().and_then(|v| v.parse().ok()).unwrap_or(1000).max(1);
    let runs: usize = std::env::var("OC_BENCH_FAIRNESS_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(1).max(1);
    let n = games.to_string();
    let all = rounds(runs, root, &["fairness", "scenarios", "--games", &n, "--quiet"], None);
    for ((suffix, _), times) in binaries().iter().zip(&all) {
        eprintln!("oc fairness scenarios{suffix}, {games} games a scenario, (wall, CPU): {times:.2?}");
    }
    let walls: Vec<f64> = all.iter().map(|s| median(s.iter().map(|r| wall(*r)).collect()).as_secs_f64()).collect();
    let cpus: Vec<f64> = all.iter().map(|s| median(s.iter().map(|r| cpu(*r)).collect()).as_secs_f64()).collect();
    print_each(&format!("fairness_scenarios_s_{games}"), &walls, 1, "s");
    print_each(&format!("fairness_scenarios_cpu_s_{games}"), &cpus, 1, "s");
}

/// An AI's cost per battle on one thread (`games` games) and its battles per minute on all
/// threads (twice as many), both sides played by it; each figure's name ends `_{name}{suffix}`.
fn ai_figures(
    engine: &oc_engine::Engine,
    s: &oc_model::Scenario,
    map: &oc_model::BattleMap,
    armies: [&oc_model::Army; 2],
    name: &str,
    games: u64,
    suffix: &str,
) {
    let make = || ai::by_name(name).expect("an AI by that name");
    let started = Instant::now();
    for g in 0..games {
        oc_engine::battle::play(engine, s, map, armies, g, make().as_mut()).expect("game");
    }
    let one = started.elapsed();
    eprintln!("Grado Keep ({}) with {name}, one thread: {games} battles in {one:.2?}", s.name);
    println!("bench battle_ms_1t_{name}{suffix} {:.1} ms", one.as_secs_f64() * 1e3 / games as f64);
    println!("bench battles_per_min_1t_{name}{suffix} {:.0} 1/min", games as f64 / one.as_secs_f64() * 60.0);
    let games = 2 * games;
    let started = Instant::now();
    let done: u32 = (0..games)
        .into_par_iter()
        .map(|g| oc_engine::battle::play(engine, s, map, armies, 1000 + g, make().as_mut()).map_or(0, |_| 1))
        .sum();
    let all = started.elapsed();
    println!(
        "bench battles_per_min_{}t_{name}{suffix} {:.0} 1/min",
        rayon::current_num_threads(),
        f64::from(done) / all.as_secs_f64() * 60.0
    );
}

/// The CPU time, in milliseconds a game, of `oc simulate` of the three costliest shipped
/// scenarios with the default AI on one thread, compile and setup included: Storm at the River
/// (seed 003's point-bought armies of units of figures; 3 games), the Town Square (seed 004's
/// skirmish rules: chains of activations, dice counted by icon) and the Elder Hall (seed 002's
/// stamina rules: reactions and rerolls; 5 games); the median of three runs. Read from the user
/// and system time the kernel keeps for this process's waited-for children; the wall time where
/// that cannot be read.
fn scenario_cpu(root: &Path) {
    let scenarios = [
        ("storm", "scenarios/battlestorm-narube.oc", 3u32),
        ("town_square", "scenarios/skirmish-taizel.oc", 5),
        ("elder_hall", "scenarios/stamina-caer-pelyn.oc", 5),
    ];
    for (name, file, games) in scenarios {
        let n = games.to_string();
        let args = ["simulate", file, "--games", &n, "--seed", "1", "--quiet"];
        let times = median_of(3, root, &args, Some(1), cpu);
        eprintln!("oc simulate {file}, {games} games, one thread: {times:.2?} CPU");
        let ms: Vec<f64> = times.iter().map(|t| t.as_secs_f64() * 1e3 / f64::from(games)).collect();
        print_each(&format!("{name}_game_cpu_ms"), &ms, 0, "ms");
    }
}
