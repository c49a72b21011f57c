//! `oc matrix`: every class with each weapon it may fight with (staves aside) against every class with its kit
//! weapon, by exact forecast: the CSV rows (`oc_project::output::MATRIX_HEADER`), each class's
//! best and worst matchup and the heat map's rout chances. The classes are shared out among the
//! cores and put back in the rules' order, so the output is the same whatever the threads.

use oc_engine::{Engine, Loadout};

use crate::fixed::{push_int, Fixed};
use crate::matchup;

/// A class's (name, best score, best matchup, worst score, worst matchup); the score is
/// rout chance minus routed chance.
pub type Summary = (String, f64, String, f64, String);

/// The whole matrix.
#[derive(Debug)]
pub struct Matrix {
    /// The CSV, header first.
    pub csv: String,
    pub summary: Vec<Summary>,
    /// How many exact forecasts it took.
    pub count: usize,
    /// Per attacking class with any matchup: its best rout chance against each column.
    pub heat: Vec<(String, Vec<Option<f64>>)>,
    /// The defending classes (the heat map's columns).
    pub columns: Vec<String>,
}

/// The classes in `classes` that the rules do not have, each with a near name.
pub fn unknown_classes(engine: &Engine, classes: &[String]) -> Vec<(String, Option<String>)> {
    let names: Vec<&str> = engine.rules.classes.iter().map(|c| c.name.as_str()).collect();
    classes
        .iter()
        .filter(|n| engine.rules.class(n).is_none())
        .map(|n| (n.clone(), oc_diag::did_you_mean(n, names.iter().copied()).map(str::to_string)))
        .collect()
}

/// The attacking `classes` (all when empty) with no weapon they may fight with: they have no
/// rows of their own (a class of staves alone still defends in the others' rows).
pub fn unarmed(engine: &Engine, classes: &[String]) -> Vec<String> {
    engine
        .rules
        .classes
        .iter()
        .filter(|c| classes.is_empty() || classes.iter().any(|n| *n == c.name.as_str()))
        .filter(|c| engine.fighting_weapons(&c.name).is_empty())
        .map(|c| c.name.to_string())
        .collect()
}

/// The matrix of the attacking `classes` (all when empty), at `distance` or each weapon's
/// nearest range.
pub fn measure(engine: &Engine, classes: &[String], distance: Option<i64>) -> Matrix {
    let wanted = |c: &oc_model::Class| classes.is_empty() || classes.iter().any(|n| *n == c.name.as_str());
    // Each defender's unit built once, for every attacker it meets.
    let mut defenders = Vec::new();
    for c in &engine.rules.classes {
        if let Ok(l) = matchup::loadout(engine, &c.name) {
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
        // Staves heal or lay statuses, never strike: a class attacks with what it may fight with.
        for w in engine.fighting_weapons(&c.name) {
            let attacker = Loadout { carried: engine.kit_forms(&c.name), ..Loadout::new(&c.name, Some(&w.name)) };
            let Ok(a) = engine.prepare(&attacker) else { continue };
            let Some((lo, hi)) = engine.reach(&c.name, &w.name) else { continue };
            let distance = match distance {
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
                push_int(&mut csv, distance);
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
    let all = &engine.rules.classes;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(all.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut rows: Vec<(usize, Rows)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(c) = all.get(k) else { break };
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
            if let Some(c) = all.get(k) {
                heat.push((c.name.to_string(), row));
            }
        }
    }
    Matrix { csv, summary, count, heat, columns: defenders.iter().map(|(d, _)| d.class.to_string()).collect() }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn the_matrix_has_a_row_per_forecast_and_a_summary_per_class() {
        let ruleset = crate::rules::builtin("officers_chess").unwrap();
        let Ok(loaded) = crate::rules::load(&ruleset, "matrix") else { panic!("the built-in ruleset compiles") };
        let engine = loaded.engine;
        let m = measure(&engine, &[], None);
        assert!(m.csv.starts_with(oc_project::output::MATRIX_HEADER));
        assert_eq!(m.csv.lines().count(), m.count + 1, "a CSV row per exact forecast");
        assert!(m.count > 0 && !m.summary.is_empty());
        assert!(m.heat.iter().all(|(_, row)| row.len() == m.columns.len()));
        let one = measure(&engine, &[m.summary[0].0.clone()], Some(1));
        assert_eq!(one.summary.len(), 1, "only the class asked for");
        assert_eq!(unknown_classes(&engine, &["Nobody".to_string()]).len(), 1);
    }
}
