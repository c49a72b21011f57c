//! `oc balance`'s table: the price curve, and each class's and item's written and suggested
//! price, the ones the lints flag marked.

use std::fmt::Write as _;

use oc_balance::{Priced, Report, What};
use oc_engine::Engine;

/// `oc balance --format json`: the report with the diagnostics contract's `diagnostics` and
/// `warnings` (`found`: the lints' diagnostics as that JSON object).
pub fn json(r: &Report, found: &serde_json::Value) -> serde_json::Value {
    let mut value = serde_json::to_value(r).unwrap_or_default();
    if let Some(obj) = value.as_object_mut() {
        for key in ["diagnostics", "warnings"] {
            obj.insert(key.to_string(), found.get(key).cloned().unwrap_or_default());
        }
    }
    value
}

/// The table; `flagged`: the (name, kind) the lints warn of; `took`: how long the fit took.
pub fn table(engine: &Engine, r: &Report, flagged: &[(&str, What)], took: std::time::Duration) -> String {
    let mut s = String::new();
    let classes = engine.rules.classes.len();
    let items = engine.rules.items.len();
    let units = r.measured.len();
    let how = if r.duels > 0 {
        format!("{} duels to the rout per matchup from seed {}", r.duels, r.seed)
    } else {
        "exact forecasts only (--duels 0)".to_string()
    };
    let _ = writeln!(
        s,
        "{}: {classes} classes, {items} items; {units} units against a roster of {}, {how} ({took:.1?})",
        r.ruleset,
        r.roster.len()
    );
    let measure = if r.duels > 0 {
        "the duel rating: mean log-odds of winning a duel to the rout against each roster unit"
    } else {
        "the exchange rating: mean ln(HP share dealt / HP share taken) against each roster unit"
    };
    let _ = writeln!(s, "strength: {measure}");
    let on = if r.fit_on_standard {
        format!("the {} standard-library", r.class_fit.points)
    } else {
        format!("all {}", r.class_fit.points)
    };
    let factor = |k: &str| r.spread.get(k).map_or(1.0, |v| v.exp());
    let _ = writeln!(
        s,
        "price curve over {on} classes: cost = {:.0} gold x e^({:.3} x strength with the kit weapon); R^2 {:.2}; \
         written costs stray from it by a factor of {:.2} (one standard deviation)",
        r.class_fit.price(0.0),
        r.class_fit.beta,
        r.class_fit.r2,
        factor("class")
    );
    if !r.class_fit.holds() {
        let _ = writeln!(
            s,
            "note: this curve does not hold (fewer than 3 classes, prices not rising with strength, or R^2 at 0 or below): \
             its suggestions are shown, but no price is warned of; measure more classes"
        );
    }
    let _ = writeln!(
        s,
        "items: the curve's price of the strength they add (weapons: over each class's kit weapon, from its price); \
         weapon prices stray by a factor of {:.2}",
        factor("weapon")
    );
    let section = |s: &mut String, title: &str, list: &[&Priced]| {
        if list.is_empty() {
            return;
        }
        let _ = writeln!(s, "\n{title:<18} {:>8} {:>10} {:>7} {:>9}", "written", "suggested", "ratio", "strength");
        for p in list {
            let ratio = p.written as f64 / (p.suggested as f64).max(1.0);
            let mut mark = String::new();
            if p.homebrew {
                mark.push_str("  (yours)");
            }
            if flagged.iter().any(|(n, w)| *n == p.name && *w == p.what) {
                mark.push_str(if ratio > 1.0 { "  << overpriced" } else { "  << underpriced" });
            }
            // No measured worth (a suggestion of 0): no ratio to show.
            let ratio = if p.suggested > 0 { format!("{ratio:.2}") } else { "-".to_string() };
            let _ = writeln!(s, "{:<18} {:>8} {:>10} {:>7} {:>+9.2}{mark}", p.name, p.written, p.suggested, ratio, p.strength);
        }
    };
    let of = |what: What| -> Vec<&Priced> { r.classes.iter().chain(&r.items).filter(|p| p.what == what).collect() };
    section(&mut s, "class", &of(What::Class));
    section(&mut s, "weapon", &of(What::Weapon));
    section(&mut s, "accessory", &of(What::Accessory));
    // A suggestion of 0 says why: the measure found no strength the item adds.
    let worthless: Vec<&Priced> = r.items.iter().filter(|p| p.suggested <= 0).collect();
    if !worthless.is_empty() {
        let _ = writeln!(s, "\nsuggested 0:");
        for p in worthless {
            let _ = writeln!(
                s,
                "  {} ({}): it adds no strength in the exchanges measured (median {:+.2} over {} unit(s)); \
                 an effect they rarely meet (against fliers, on a terrain) or outside an exchange is not in this measure",
                p.name,
                p.what.word(),
                p.strength,
                p.units
            );
        }
    }
    if !r.unmeasured.is_empty() {
        let _ = writeln!(s, "\nnot priced:");
        for u in &r.unmeasured {
            let _ = writeln!(s, "  {} ({}): {}", u.name, u.what.word(), u.why);
        }
    }
    s
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn the_table_has_the_curve_and_a_row_per_priced_class() {
        let ruleset = oc_play::rules::builtin("officers_chess").unwrap();
        let Ok(loaded) = oc_play::rules::load(&ruleset, "test") else { panic!("the built-in ruleset compiles") };
        let engine = loaded.engine;
        let r = oc_balance::balance(&engine, oc_balance::Options { seed: 1, duels: 0 }, &[]).unwrap();
        let first = r.classes.first().unwrap();
        let table = table(&engine, &r, &[(first.name.as_str(), What::Class)], std::time::Duration::ZERO);
        assert!(table.lines().next().unwrap().contains("exact forecasts only (--duels 0)"));
        assert!(table.contains("price curve over "));
        let row = table.lines().find(|l| l.starts_with(&format!("{:<18} ", first.name))).unwrap();
        assert!(row.ends_with("overpriced") || row.ends_with("underpriced"), "the flagged class is marked: {row}");
        assert_eq!(table.lines().filter(|l| l.starts_with("class ")).count(), 1);
        // Each item suggested 0 is said why, under "suggested 0:" (the standard library has one).
        let zero: Vec<&str> = r.items.iter().filter(|p| p.suggested <= 0).map(|p| p.name.as_str()).collect();
        assert!(!zero.is_empty(), "an item of no measured worth, to say why");
        let notes = table.split("\nsuggested 0:\n").nth(1).unwrap_or_default();
        for name in zero {
            assert!(
                notes.lines().any(|l| l.starts_with(&format!("  {name} (")) && l.contains("adds no strength")),
                "{name}: {table}"
            );
        }
    }
}
