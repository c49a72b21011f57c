//! A forecast against seeded resolutions of the same exchange: the chance of each HP left on
//! each side, and of each side routed, within 0.3 percentage points (`OC_SAMPLES` resolutions,
//! `default` unless set; `OC_SAMPLES=1000000` for the full 10^6 of the seeds' checks). With
//! fewer resolutions than that, sampling alone strays further: the bound is then 4.5 standard
//! errors of the exact chance where that is wider (1 pp for a chance of 0.4 over 50,000), so a
//! check of many outcomes does not fail by chance.
#![allow(dead_code)]

use std::collections::BTreeMap;

use oc_engine::Exchange;

pub fn samples(default: u64) -> u64 {
    std::env::var("OC_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(default)
}

/// Every HP outcome of both sides over `samples(default)` seeded resolutions against the exact
/// forecast; the largest gap found, in percentage points. The whole outcome, not only the rout,
/// which many exchanges never bring.
pub fn agrees(x: &Exchange, what: &str, default: u64) -> f64 {
    let n = samples(default);
    let f = x.forecast();
    let mut routed = [0u64; 2];
    let mut left: [BTreeMap<i64, u64>; 2] = Default::default();
    for seed in 0..n {
        let hp = x.resolve_hp(&mut oc_engine::rng(seed));
        for (side, r) in routed.iter_mut().enumerate() {
            *r += u64::from(hp[side] <= 0);
            *left[side].entry(hp[side].max(0)).or_default() += 1;
        }
    }
    let tolerance = |p: f64| (4.5 * (p * (1.0 - p) / n as f64).sqrt()).max(0.003);
    let mut worst = 0.0f64;
    for (side, exact) in [f.attacker_routed, f.defender_routed].into_iter().enumerate() {
        let s = routed[side] as f64 / n as f64;
        assert!((s - exact).abs() < tolerance(exact), "{what}: side {side} routed {exact} exact, {s} sampled");
        worst = worst.max((s - exact).abs());
        let forecast = if side == 0 { &f.attacker_hp } else { &f.defender_hp };
        let mut hps: Vec<i64> = forecast.keys().chain(left[side].keys()).copied().collect();
        hps.sort_unstable();
        hps.dedup();
        for hp in hps {
            let exact = forecast.get(&hp).copied().unwrap_or(0.0);
            let s = left[side].get(&hp).copied().unwrap_or(0) as f64 / n as f64;
            assert!((s - exact).abs() < tolerance(exact), "{what}: side {side} at {hp} HP {exact} exact, {s} sampled");
            worst = worst.max((s - exact).abs());
        }
    }
    eprintln!("{what}: every HP outcome of {n} resolutions within {:.3} pp of the forecast", worst * 100.0);
    worst * 100.0
}
