//! `oc forecast`, `oc duel` and `oc matrix`: the combat engine at the command line.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

use oc_engine::{Engine, Forecast, Loadout, Shown, SideForecast};
use oc_play::matchup::{self, Side};
use oc_project::output::Kind;

use crate::commands::{output_target, write_output};
use crate::fixed::Fixed;
use crate::plot::{self, Heatmap, PlotFormat};
use crate::Format;

/// The engine, both loadouts and the distance of a forecast or duel; errors are printed.
fn matchup(
    ruleset: Option<&str>,
    attacker: &Side,
    defender: &Side,
    distance: Option<i64>,
) -> Result<(Engine, Loadout, Loadout, i64), u8> {
    let engine = crate::load::engine(ruleset)?;
    let (a, d) = match (matchup::build(&engine, attacker), matchup::build(&engine, defender)) {
        (Ok(a), Ok(d)) => (a, d),
        (Err(e), _) | (_, Err(e)) => {
            errln!("error: {e}");
            return Err(2);
        }
    };
    let distance = matchup::distance_for(&engine, &a, distance);
    Ok((engine, a, d, distance))
}

pub fn forecast(
    ruleset: Option<&str>,
    attacker: &Side,
    defender: &Side,
    distance: Option<i64>,
    stated: matchup::Stated,
    format: Format,
) -> u8 {
    let (engine, a, d, distance) = match matchup(ruleset, attacker, defender, distance) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let f = match matchup::exchange(&engine, &a, &d, distance, stated).map(|x| x.forecast()) {
        Ok(f) => f,
        Err(e) => {
            errln!("error[{}]: {e}", e.code());
            if let Some(h) = e.help() {
                errln!("help: {h}");
            }
            return 2;
        }
    };
    match format {
        Format::Json => {
            let mut value = forecast_json(&f);
            if let Some(obj) = value.as_object_mut() {
                obj.insert("terrain".into(), serde_json::json!({"attacker": a.terrain, "defender": d.terrain}));
            }
            outln!("{value}");
        }
        Format::Human => {
            let table = forecast_table(&engine, &f);
            // The header says where each side stands: the terrain the forecast used.
            let (head, rest) = table.split_once('\n').unwrap_or((&table, ""));
            out!("{head}, {}\n{rest}", terrain_words(&a, &d));
        }
    }
    0
}

/// "attacker on Plains, defender in Forest" for the terrain each loadout stands on; a side given
/// none stands on no terrain (no defence bonus, no heal).
fn terrain_words(a: &Loadout, d: &Loadout) -> String {
    let on = |l: &Loadout| l.terrain.as_deref().map_or("on no terrain (no bonus)".to_string(), |t| format!("on {t}"));
    format!("attacker {}, defender {}", on(a), on(d))
}

fn side_json(s: &SideForecast) -> serde_json::Value {
    let effective: serde_json::Map<String, serde_json::Value> = s
        .effective
        .iter()
        .map(|(n, v)| {
            let v = match v {
                Shown::Int(i) => serde_json::json!(i),
                Shown::Bool(b) => serde_json::json!(b),
                Shown::Text(t) => serde_json::json!(t),
            };
            (n.clone(), v)
        })
        .collect();
    let mut value = serde_json::json!({
        "class": s.class, "weapon": s.weapon, "hp": s.hp, "max_hp": s.max_hp, "effective": effective,
        "hit": s.hit, "crit": s.crit, "damage": s.damage, "crit_damage": s.crit_damage, "strikes": s.strikes,
    });
    // Where damage is random: one hitting strike's damage, value -> probability.
    if let (Some(obj), false) = (value.as_object_mut(), s.damage_distribution.is_empty()) {
        obj.insert("damage_distribution".into(), distribution(&s.damage_distribution));
    }
    value
}

fn distribution(d: &std::collections::BTreeMap<i64, f64>) -> serde_json::Value {
    serde_json::Value::Object(d.iter().map(|(hp, p)| (hp.to_string(), serde_json::json!(p))).collect())
}

pub fn forecast_json(f: &Forecast) -> serde_json::Value {
    serde_json::json!({
        "attacker": side_json(&f.attacker),
        "defender": side_json(&f.defender),
        "distance": f.distance,
        "attacker_routed": f.attacker_routed,
        "defender_routed": f.defender_routed,
        "attacker_hp": distribution(&f.attacker_hp),
        "defender_hp": distribution(&f.defender_hp),
        "attacker_expected_damage_taken": f.attacker_damage_taken,
        "defender_expected_damage_taken": f.defender_damage_taken,
    })
}

fn pct(p: f64) -> String {
    format!("{:.1}%", p * 100.0)
}

/// The compact table the games show: one column per side.
pub fn forecast_table(engine: &Engine, f: &Forecast) -> String {
    let (a, d) = (&f.attacker, &f.defender);
    let name = |s: &SideForecast| format!("{} ({})", s.class, s.weapon.clone().unwrap_or_else(|| "unarmed".into()));
    let mut out = String::new();
    let _ = writeln!(out, "{} forecast at distance {}", engine.rules.ruleset.name, f.distance);
    let _ = writeln!(out, "{:<14}{:>28}{:>28}", "", name(a), name(d));
    let row = |out: &mut String, label: &str, x: String, y: String| {
        let _ = writeln!(out, "{label:<14}{x:>28}{y:>28}");
    };
    row(&mut out, "HP", format!("{}/{}", a.hp, a.max_hp), format!("{}/{}", d.hp, d.max_hp));
    let shown = |s: &SideForecast, stat: &str| match s.effective.iter().find(|(n, _)| n == stat).map(|(_, v)| v) {
        Some(Shown::Int(i)) => i.to_string(),
        Some(Shown::Bool(b)) => b.to_string(),
        Some(Shown::Text(t)) => t.clone(),
        None => String::new(),
    };
    for stat in &engine.rules.ruleset.stats {
        let label = stat.title.clone().unwrap_or_else(|| stat.name.clone());
        row(&mut out, &label, shown(a, &stat.name), shown(d, &stat.name));
    }
    let can = |s: &SideForecast, v: String| if s.strikes == 0 { "-".to_string() } else { v };
    row(&mut out, "Damage", can(a, a.damage.to_string()), can(d, d.damage.to_string()));
    row(&mut out, "Crit damage", can(a, a.crit_damage.to_string()), can(d, d.crit_damage.to_string()));
    row(&mut out, "Hit", can(a, pct(a.hit)), can(d, pct(d.hit)));
    row(&mut out, "Crit", can(a, pct(a.crit)), can(d, pct(d.crit)));
    row(
        &mut out,
        "Strikes",
        format!("x{}", a.strikes),
        if d.strikes == 0 { "no counter".into() } else { format!("x{}", d.strikes) },
    );
    row(&mut out, "Routed", pct(f.attacker_routed), pct(f.defender_routed));
    row(&mut out, "Damage taken", format!("{:.2}", f.attacker_damage_taken), format!("{:.2}", f.defender_damage_taken));
    out
}

pub fn duel(
    ruleset: Option<&str>,
    attacker: &Side,
    defender: &Side,
    distance: Option<i64>,
    stated: matchup::Stated,
    seed: u64,
    format: Format,
) -> u8 {
    let (engine, a, d, distance) = match matchup(ruleset, attacker, defender, distance) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let (log, hp) = match matchup::exchange(&engine, &a, &d, distance, stated).map(|x| x.resolve(&mut oc_engine::rng(seed))) {
        Ok(x) => x,
        Err(e) => {
            errln!("error: {e}");
            return 2;
        }
    };
    let names = [a.class.to_string(), d.class.to_string()];
    match format {
        Format::Json => {
            let strikes: Vec<serde_json::Value> = log
                .iter()
                .map(|s| {
                    let mut v = serde_json::json!({
                        "side": if s.side == 0 { "attacker" } else { "defender" }, "stage": s.stage, "roll": s.roll,
                        "hit": s.outcome.hit, "crit": s.outcome.crit, "backfire": s.outcome.backfire, "damage": s.outcome.damage,
                        "attacker_hp": s.hp_after[0], "defender_hp": s.hp_after[1], "inflicted": s.inflicted,
                        "reaction": s.reaction, "shown": s.shown,
                    });
                    // Only where a reaction to a roll was taken.
                    if let (Some(r), Some(map)) = (&s.rerolled, v.as_object_mut()) {
                        map.insert("rerolled".into(), serde_json::json!(r));
                    }
                    v
                })
                .collect();
            outln!(
                "{}",
                serde_json::json!({"seed": seed, "distance": distance, "strikes": strikes, "attacker_hp": hp[0], "defender_hp": hp[1]})
            );
        }
        Format::Human => {
            outln!(
                "seed {seed}: {} ({}) attacks {} ({}) at distance {distance}",
                names[0],
                a.weapon.unwrap_or_default(),
                names[1],
                d.weapon.unwrap_or_default()
            );
            for (i, s) in log.iter().enumerate() {
                let what = if s.outcome.backfire {
                    format!("backfires for {}", s.outcome.damage)
                } else if s.outcome.crit {
                    format!("CRITICAL hit for {}", s.outcome.damage)
                } else if s.outcome.hit {
                    format!("hits for {}", s.outcome.damage)
                } else {
                    "misses".to_string()
                };
                let mut extra =
                    if s.inflicted.is_empty() { String::new() } else { format!(", inflicts {}", s.inflicted.join(", ")) };
                if let Some(r) = &s.reaction {
                    extra.push_str(&format!(" ({} reacts: {r})", names.get(1 - s.side.min(1)).map_or("?", String::as_str)));
                }
                if let Some(r) = &s.rerolled {
                    extra.push_str(&format!(" (rerolled: {r})"));
                }
                let roll = s.shown.as_ref().map_or_else(|| format!("{:>3}", s.roll), |w| format!("({w})"));
                outln!(
                    "{:>2}. {:<9} {:<14} rolls {roll}: {what}{extra}  (HP {} / {})",
                    i + 1,
                    s.stage,
                    names.get(s.side).map_or("?", String::as_str),
                    s.hp_after[0],
                    s.hp_after[1]
                );
            }
            let end = match (hp[0] <= 0, hp[1] <= 0) {
                (true, _) => format!("{} is routed", names[0]),
                (_, true) => format!("{} is routed", names[1]),
                _ => "both stand".to_string(),
            };
            outln!("result: {end}");
        }
    }
    0
}

/// Every class with each weapon it can wield against every class with its default weapon.
/// What `oc matrix` was asked for.
pub struct MatrixArgs<'a> {
    pub ruleset: Option<&'a str>,
    pub out: Option<&'a Path>,
    pub heatmap: Option<&'a Path>,
    /// Measure at this distance instead of each weapon's nearest range.
    pub distance: Option<i64>,
    /// Only these attacking classes (all when empty).
    pub classes: &'a [String],
    pub force: bool,
}

pub fn matrix(args: &MatrixArgs) -> u8 {
    let (ruleset, out, heatmap, force) = (args.ruleset, args.out, args.heatmap, args.force);
    let inputs: Vec<PathBuf> = ruleset.map(PathBuf::from).into_iter().collect();
    let target = match out.map(|o| output_target(o, Kind::MatrixCsv, &inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let heatmap = match heatmap.map(|h| heatmap_target(h, &inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let engine = match crate::load::engine(ruleset) {
        Ok(e) => e,
        Err(code) => return code,
    };
    for name in args.classes {
        if engine.rules.class(name).is_none() {
            let names: Vec<&str> = engine.rules.classes.iter().map(|c| c.name.as_str()).collect();
            errln!("error: --class {name}: no such class in {}", engine.rules.ruleset.name);
            if let Some(s) = oc_diag::did_you_mean(name, names.iter().copied()) {
                errln!("help: did you mean `{s}`?");
            }
            return 2;
        }
    }
    let wanted = |c: &oc_model::Class| args.classes.is_empty() || args.classes.iter().any(|n| *n == c.name.as_str());
    let started = Instant::now();
    // Each defender's unit built once, for every attacker it meets.
    let mut defenders = Vec::new();
    for c in &engine.rules.classes {
        if let Ok(l) = matchup::loadout(&engine, &c.name) {
            if l.weapon.is_some() {
                let prepared = engine.prepare(&l).ok();
                defenders.push((l, prepared));
            }
        }
    }
    // One attacking class's rows, its count, its (best, worst) matchup by rout chance and its
    // heat-map row (the best rout chance against each defender).
    type Summary = (String, f64, String, f64, String);
    type Rows = (String, usize, Option<Summary>, Vec<Option<f64>>);
    let rows_of = |c: &oc_model::Class| -> Rows {
        let mut csv = String::new();
        let mut count = 0usize;
        let mut row: Vec<Option<f64>> = vec![None; defenders.len()];
        // (score, weapon, defender index): the label is written once, at the end.
        let mut best: Option<(f64, &str, usize)> = None;
        let mut worst: Option<(f64, &str, usize)> = None;
        for w in engine.weapons_for(&c.name) {
            let Ok(a) = engine.prepare(&Loadout::new(&c.name, Some(&w.name))) else { continue };
            let Some((lo, hi)) = engine.reach(&c.name, &w.name) else { continue };
            let distance = match args.distance {
                Some(d) if (lo..=hi).contains(&d) => d,
                Some(_) => continue,
                None => lo.max(1),
            };
            for (k, ((d, prepared), cell)) in defenders.iter().zip(row.iter_mut()).enumerate() {
                let Some(Ok(f)) = prepared.as_ref().map(|p| engine.odds_prepared(&a, p, distance)) else { continue };
                count += 1;
                if cell.is_none_or(|p| f.defender_routed > p) {
                    *cell = Some(f.defender_routed);
                }
                // The line put down piece by piece: the formatter's machinery was a twentieth of
                // the command's time.
                for field in [c.name.as_str(), w.name.as_str(), d.class.as_str(), d.weapon.as_deref().unwrap_or_default()] {
                    csv.push_str(field);
                    csv.push(',');
                }
                if distance < 0 {
                    csv.push('-');
                }
                crate::fixed::push_digits(&mut csv, u128::from(distance.unsigned_abs()), 1);
                for value in [
                    Fixed(f.defender_routed, 4),
                    Fixed(f.defender_damage_taken, 3),
                    Fixed(f.attacker_routed, 4),
                    Fixed(f.attacker_damage_taken, 3),
                ] {
                    csv.push(',');
                    value.push_to(&mut csv);
                }
                csv.push('\n');
                let score = f.defender_routed - f.attacker_routed;
                if best.as_ref().is_none_or(|(s, _, _)| score > *s) {
                    best = Some((score, &w.name, k));
                }
                if worst.as_ref().is_none_or(|(s, _, _)| score < *s) {
                    worst = Some((score, &w.name, k));
                }
            }
        }
        let label = |(score, weapon, k): (f64, &str, usize)| {
            (score, format!("{weapon} vs {}", defenders.get(k).map_or("", |(d, _)| d.class.as_str())))
        };
        let summary = best.zip(worst).map(|(b, w)| {
            let ((bs, b), (ws, w)) = (label(b), label(w));
            (c.name.to_string(), bs, b, ws, w)
        });
        (csv, count, summary, row)
    };
    // The classes shared out among the cores; the rows are put back in the rules' order, so the
    // output is the same whatever the number of threads.
    let classes = &engine.rules.classes;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(classes.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut rows: Vec<(usize, Rows)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(c) = classes.get(k) else { break };
                        if wanted(c) {
                            mine.push((k, rows_of(c)));
                        }
                    }
                    mine
                })
            })
            .collect();
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|e| std::panic::resume_unwind(e))).collect()
    });
    rows.sort_by_key(|(k, _)| *k);
    let mut csv = format!("{}\n", oc_project::output::MATRIX_HEADER);
    let mut summary = Vec::new();
    let mut count = 0usize;
    let mut heat: Vec<(String, Vec<Option<f64>>)> = Vec::new();
    for (k, (text, n, s, row)) in rows {
        csv.push_str(&text);
        count += n;
        summary.extend(s);
        if row.iter().any(Option::is_some) {
            if let Some(c) = classes.get(k) {
                heat.push((c.name.to_string(), row));
            }
        }
    }
    if let Some(target) = &target {
        if let Err(code) = write_output(target, csv.as_bytes()) {
            return code;
        }
    } else {
        out!("{csv}");
    }
    noteln!("{:<16} {:<40} {:<40}", "class", "best matchup (rout - routed)", "worst matchup");
    for (class, bs, b, ws, w) in &summary {
        noteln!("{class:<16} {:<40} {:<40}", format!("{b} ({:+.0}%)", bs * 100.0), format!("{w} ({:+.0}%)", ws * 100.0));
    }
    noteln!(
        "{count} exact forecasts in {:.2?}{}",
        started.elapsed(),
        target.map_or(String::new(), |t| format!("; CSV written to {}", t.show()))
    );
    if let Some((target, format)) = heatmap {
        let figure = Heatmap {
            title: format!("{}: rout chance in one exchange", engine.rules.ruleset.name),
            notes: vec![
                "rows: the attacking class with its best weapon against that column (the highest rout chance);".to_string(),
                match args.distance {
                    Some(d) => format!("columns: the defending class with its kit weapon; at distance {d}, full HP, open ground"),
                    None => {
                        "columns: the defending class with its kit weapon; at the attacker's nearest range, full HP, open ground"
                            .to_string()
                    }
                },
            ],
            rows: heat.iter().map(|(n, _)| n.clone()).collect(),
            columns: defenders.iter().map(|(d, _)| d.class.to_string()).collect(),
            cells: heat.into_iter().map(|(_, r)| r).collect(),
            measure: "rout chance".to_string(),
        };
        let bytes = match plot::render(&figure, format) {
            Ok(b) => b,
            Err(e) => {
                errln!("error: cannot draw the heat map: {e}");
                return 2;
            }
        };
        if let Err(code) = write_output(&target, &bytes) {
            return code;
        }
        noteln!("heat map written to {}", target.show());
    }
    0
}

/// A heat map's path passed through the output policy, with its format.
fn heatmap_target(path: &Path, inputs: &[PathBuf], force: bool) -> Result<(oc_project::output::Target, PlotFormat), u8> {
    let format = PlotFormat::of(path).map_err(|e| {
        errln!("error: {e}");
        2u8
    })?;
    if path.as_os_str() == "-" {
        errln!("error: a heat map is written to a file, not to standard output");
        return Err(2);
    }
    Ok((output_target(path, Kind::Plot, inputs, force)?, format))
}
