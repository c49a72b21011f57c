//! `oc balance`: every class's and item's written price next to the price its measured strength
//! suggests (the method is `oc_balance`'s), and `oc::balance::cost_outlier` on the home-brew ones
//! priced far from how they play.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::time::Instant;

use oc_balance::{Options, Priced, Report, What};
use oc_compiler::Workspace;
use oc_engine::Engine;
use oc_play::rules::{Loaded, Ruleset};

use crate::commands::style;
use crate::report;

/// What `oc balance` prints.
#[derive(Clone, Copy, clap::ValueEnum, PartialEq, Eq)]
pub enum BalanceFormat {
    /// Human-readable text (`text`, its old name, is still accepted).
    #[value(alias = "text")]
    Human,
    Json,
}

/// The rules of `paths` (a project's `.oc` files, on the standard library or on `--ruleset`'s
/// built-in one), or of `--ruleset` alone (a built-in name, or `oc.toml`'s).
fn load(ruleset: Option<&str>, paths: &[PathBuf]) -> Result<Loaded, u8> {
    if paths.is_empty() {
        // A path given as the ruleset is a project like any other.
        if let Some(Ruleset::Path(p)) = ruleset.map(oc_play::rules::resolve).transpose().map_err(|e| crate::load::refused(&e))? {
            return load(None, &[p]);
        }
        let engine = crate::load::engine(ruleset)?;
        return Ok(Loaded { engine, workspace: Workspace::new(), files: Vec::new(), warnings: Vec::new() });
    }
    if let Some(first) = paths.first() {
        report::root_of(first);
    }
    crate::load::shown(oc_play::rules::load_files(paths, ruleset))
}

pub struct Args<'a> {
    pub ruleset: Option<&'a str>,
    pub paths: &'a [PathBuf],
    pub seed: u64,
    pub duels: u32,
    pub format: BalanceFormat,
}

pub fn balance(args: Args) -> u8 {
    let Loaded { engine, workspace, files, .. } = match load(args.ruleset, args.paths) {
        Ok(l) => l,
        Err(code) => return code,
    };
    let written = oc_balance::written_costs(&workspace, &files);
    let started = Instant::now();
    let report = match oc_balance::balance(&engine, Options { seed: args.seed, duels: args.duels }, &written) {
        Ok(r) => r,
        Err(e) => {
            errln!("error: cannot fit prices: {e}");
            return 2;
        }
    };
    let diagnostics = oc_balance::lint(&engine, &report, &written);
    let took = started.elapsed();
    match args.format {
        BalanceFormat::Json => {
            let mut value = serde_json::to_value(&report).unwrap_or_default();
            let found = report::json(&workspace, &diagnostics, files.len());
            if let Some(obj) = value.as_object_mut() {
                for key in ["diagnostics", "warnings"] {
                    obj.insert(key.to_string(), found.get(key).cloned().unwrap_or_default());
                }
            }
            outln!("{value}");
        }
        BalanceFormat::Human => {
            let flagged: Vec<(&str, What)> = diagnostics
                .iter()
                .filter_map(|d| written.iter().find(|w| w.span == d.span).map(|w| (w.name.as_str(), w.what)))
                .collect();
            out!("{}", table(&engine, &report, &flagged, took));
            let style = style();
            let reports = report::Reports::new(&workspace);
            for d in &diagnostics {
                err!("{}", reports.render(d, style));
            }
            errln!("{} warning(s)", diagnostics.len());
        }
    }
    0
}

fn table(engine: &Engine, r: &Report, flagged: &[(&str, What)], took: std::time::Duration) -> String {
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
    let on = if r.fit_on_standard { "standard-library" } else { "all" };
    let factor = |k: &str| r.spread.get(k).map_or(1.0, |v| v.exp());
    let _ = writeln!(
        s,
        "price curve over {} {on} classes: cost = {:.0} gold x e^({:.3} x strength with the kit weapon); R^2 {:.2}; \
         written costs stray from it by a factor of {:.2} (one standard deviation)",
        r.class_fit.points,
        r.class_fit.price(0.0),
        r.class_fit.beta,
        r.class_fit.r2,
        factor("class")
    );
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
            let _ = writeln!(s, "{:<18} {:>8} {:>10} {:>7.2} {:>+9.2}{mark}", p.name, p.written, p.suggested, ratio, p.strength);
        }
    };
    let of = |what: What| -> Vec<&Priced> { r.classes.iter().chain(&r.items).filter(|p| p.what == what).collect() };
    section(&mut s, "class", &of(What::Class));
    section(&mut s, "weapon", &of(What::Weapon));
    section(&mut s, "accessory", &of(What::Accessory));
    if !r.unmeasured.is_empty() {
        let _ = writeln!(s, "\nnot priced:");
        for u in &r.unmeasured {
            let _ = writeln!(s, "  {} ({}): {}", u.name, u.what.word(), u.why);
        }
    }
    s
}
