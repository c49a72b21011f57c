//! `cargo bench --bench engine`: exact forecasts per second (each pass over the matrix's matchups on
//! a fresh engine, by loadout and prepared; their odds alone, as `oc matrix` asks them; and again
//! on an engine that has seen them), seeded
//! exchanges per second, and the time of `oc matrix` for each built-in ruleset. Prints
//! `bench <name> <value> <unit>` lines (medians); nothing asserts a time.

// The allocator `oc` plays with (mimalloc, declared in oc-play): the in-process figures were
// read on the system's allocator, which made them slower than the command's.
extern crate oc_play as _;

use std::process::Command;
use std::time::{Duration, Instant};

use oc_engine::{rng, Engine, Exchange, Loadout};

fn engine(index: &str) -> Engine {
    let compilation = oc_compiler::stdlib::compile(index).expect("built-in ruleset");
    Engine::new(compilation.rules.expect("clean")).expect("runs")
}

/// Every class with its first usable weapon.
fn roster(e: &Engine) -> Vec<Loadout> {
    e.rules.classes.iter().filter_map(|c| e.weapons_for(&c.name).first().map(|w| Loadout::new(&c.name, Some(&w.name)))).collect()
}

/// What a pass asks of each matchup: a forecast by loadout or from prepared loadouts, or the
/// odds alone from prepared loadouts.
#[derive(Clone, Copy, PartialEq)]
enum Ask {
    Loadout,
    Prepared,
    Odds,
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn main() {
    for (name, short, index) in [("officers_chess", "ratings", "<std>/ratings.oc"), ("officers_chess_v06", "v06", "<std>/v06.oc")]
    {
        let rules = oc_compiler::stdlib::compile(index).expect("built-in ruleset").rules.expect("clean");
        let e = engine(index);
        let units = roster(&e);
        // Every pass starts from a fresh engine: the strikes a pass works out are kept by its
        // engine (a matchup's counter is its mirror's attack), and a second pass over the same
        // matchups would only read them back. That is measured apart, as `forecast_repeat`.
        // `forecast_per_s` forecasts by loadout (`Engine::forecast`), `forecast_prepared_per_s`
        // from prepared loadouts; `odds_per_s` asks prepared loadouts what `oc matrix` asks, each
        // matchup's chances of a rout and damage taken (`Engine::odds_prepared`: the forecast's
        // bits, without what it shows of each side).
        let fresh = || Engine::new(rules.clone()).expect("runs");
        // Each loadout's unit is built before the clock starts (`Engine::prepare` keeps it in the
        // engine's cache too): a pass times forecasts, not building units.
        let pass = |e: &Engine, ask: Ask| {
            let built: Vec<_> = units.iter().filter_map(|u| e.prepare(u).ok()).collect();
            let ready = if ask == Ask::Loadout { Vec::new() } else { built };
            let start = Instant::now();
            let mut count = 0usize;
            for (i, a) in units.iter().enumerate() {
                let (lo, _) = e.reach(&a.class, a.weapon.as_deref().unwrap_or_default()).unwrap_or((1, 1));
                for (j, d) in units.iter().enumerate() {
                    let ok = match (ready.get(i), ready.get(j)) {
                        (Some(pa), Some(pd)) if ask == Ask::Odds => e.odds_prepared(pa, pd, lo.max(1)).is_ok(),
                        (Some(pa), Some(pd)) => e.forecast_prepared(pa, pd, lo.max(1)).is_ok(),
                        _ => e.forecast(a, d, lo.max(1)).is_ok(),
                    };
                    count += usize::from(ok);
                }
            }
            (count, start.elapsed())
        };
        // A pass takes a few milliseconds: on this shared machine one is often slowed by another
        // process, and the first pass of the process runs slower than those after it (by loadout,
        // 0.22-0.24M forecasts/s on a quick build, the passes after it 0.37-0.39M/s: the figure
        // read first was read the slowest, whichever it was). So each figure first
        // makes one pass that is not timed, then times `PASSES` passes (each on a fresh engine,
        // made before the clock starts) as one sample, and prints the median of `SAMPLES`.
        const PASSES: usize = 4;
        const SAMPLES: usize = 7;
        for (figure, ask) in
            [("forecast_per_s", Ask::Loadout), ("forecast_prepared_per_s", Ask::Prepared), ("odds_per_s", Ask::Odds)]
        {
            let _ = pass(&fresh(), ask);
            let mut samples = Vec::new();
            let mut count = 0;
            for _ in 0..SAMPLES {
                let engines: Vec<Engine> = (0..PASSES).map(|_| fresh()).collect();
                let (mut n, mut t) = (0, Duration::ZERO);
                for e in &engines {
                    let (k, took) = pass(e, ask);
                    n += k;
                    t += took;
                }
                count = n / PASSES;
                samples.push(t / PASSES as u32);
            }
            let t = median(samples);
            eprintln!("{name}: {count} exact forecasts (the matrix's matchups) in {t:.2?}, each engine fresh ({figure})");
            println!("bench {figure}_{short} {:.0} 1/s", count as f64 / t.as_secs_f64());
        }
        // The same matchups again on an engine that has forecast them once (an AI's or an
        // editor's engine meets the same matchups again and again).
        let e2 = fresh();
        let _ = pass(&e2, Ask::Loadout);
        let mut samples = Vec::new();
        let mut count = 0;
        for _ in 0..5 {
            let (n, t) = pass(&e2, Ask::Loadout);
            count = n;
            samples.push(t);
        }
        let t = median(samples);
        eprintln!("{name}: {count} exact forecasts again on the same engine in {t:.2?}");
        println!("bench forecast_repeat_per_s_{short} {:.0} 1/s", count as f64 / t.as_secs_f64());

        let a = &units[0];
        let d = &units[units.len() / 2];
        let exchange = Exchange::new(&e, a, d, 1).expect("in range");
        let mut g = rng(1);
        let n = 200_000;
        let start = Instant::now();
        let mut routed = 0;
        for _ in 0..n {
            routed += usize::from(exchange.resolve_hp(&mut g)[1] <= 0);
        }
        let t = start.elapsed();
        eprintln!("{name}: {n} seeded exchanges ({} vs {}) in {t:.2?} ({routed} routs)", a.class, d.class);
        println!("bench exchanges_per_s_{short} {:.0} 1/s", n as f64 / t.as_secs_f64());

        matrix(name, short);
    }
    // Seeds 002-004: reactions (stamina), exploding damage against rolled absorption (battlestorm).
    for name in ["stamina", "battlestorm", "skirmish"] {
        matrix(name, name);
    }
}

/// `oc matrix` on a built-in ruleset, the whole process timed: the median of three.
fn matrix(name: &str, short: &str) {
    let repo = env!("CARGO_MANIFEST_DIR");
    let out = std::env::temp_dir().join(format!("oc-bench-matrix-{name}.csv"));
    let mut samples = Vec::new();
    for _ in 0..3 {
        let start = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_oc"))
            .args(["matrix", "--ruleset", name, "--out", out.to_str().unwrap_or_default()])
            .current_dir(repo)
            .output()
            .expect("oc runs");
        samples.push(start.elapsed());
        assert!(status.status.success());
    }
    let rows = std::fs::read_to_string(&out).map(|s| s.lines().count() - 1).unwrap_or(0);
    eprintln!("{name}: oc matrix, {rows} matchups");
    println!("bench matrix_ms_{short} {:.1} ms", median(samples).as_secs_f64() * 1e3);
}
