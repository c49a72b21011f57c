//! `oc balance`: every class's and item's written price next to the price its measured strength
//! suggests (the method is `oc_balance`'s), and `oc::balance::cost_outlier` on the home-brew ones
//! priced far from how they play.

use std::path::PathBuf;
use std::time::Instant;

use oc_balance::{Options, What};
use oc_compiler::Workspace;
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
            out!("{}", oc_render::balance::table(&engine, &report, &flagged, took));
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
