//! `oc fairness PATHS`: every scenario written in the `.oc` files under the paths, played with
//! its sample armies by the default AI, as a Markdown table of win rates with 95% intervals;
//! `--readme FILE` puts the table, with the command that made it, between the file's
//! `<!-- fairness:begin -->` and `<!-- fairness:end -->` lines.

use std::path::{Path, PathBuf};

use crate::Format;
use oc_play::fairness::{self, replace_table, table, Row};

pub struct Request<'a> {
    pub paths: &'a [PathBuf],
    pub games: u64,
    /// Fewer (or more) games for named scenarios: (scenario, games).
    pub games_for: &'a [(String, u64)],
    pub seed: u64,
    pub readme: Option<&'a Path>,
    pub format: Format,
}

pub fn fairness(r: &Request) -> u8 {
    let projects = match crate::commands::projects(r.paths) {
        Ok(p) => p,
        Err(code) => return code,
    };
    if let Some(readme) = r.readme {
        if let Err(why) = oc_project::output::notes_file(readme) {
            errln!("error: --readme {}: {why}", readme.display());
            return 2;
        }
    }
    let mut rows = Vec::new();
    let mut used: Vec<String> = Vec::new();
    for project in &projects {
        for logical in &project.files {
            let path = project.root.join(logical);
            match measure_file(&path, logical, r, &mut used) {
                Ok(more) => rows.extend(more),
                Err(code) => return code,
            }
        }
    }
    if let Some((name, _)) = r.games_for.iter().find(|(n, _)| !used.contains(n)) {
        errln!("error: --games-for names `{name}`, which is not a scenario measured here");
        return 2;
    }
    if rows.is_empty() {
        errln!("error: no scenario with an army on each side under the paths given");
        return 2;
    }
    let command = fairness::command_line(r.paths, r.games, r.games_for, r.seed, r.readme);
    let table = table(&rows, &command);
    if let Some(readme) = r.readme {
        if let Err(code) = write_readme(readme, &table) {
            return code;
        }
    }
    match r.format {
        Format::Human => out!("{table}"),
        Format::Json => outln!("{}", fairness::json(&rows, r.seed, &command)),
    }
    0
}

/// Every scenario written in the file (not those it imports), with each pair of its armies.
fn measure_file(path: &Path, logical: &str, r: &Request, used: &mut Vec<String>) -> Result<Vec<Row>, u8> {
    let compiled = crate::load::compile(path)?;
    let say = |line: &str| noteln!("{line}");
    fairness::measure_file(compiled, logical, r.games, r.games_for, r.seed, used, &say).map_err(|e| crate::load::refused(&e))
}

fn write_readme(readme: &Path, table: &str) -> Result<(), u8> {
    let absolute = oc_project::manifest::absolute(readme);
    let root = oc_project::find_root(&absolute).dir;
    let fail = |e: String| {
        errln!("error: {}: {e}", readme.display());
        2u8
    };
    let logical = oc_project::discover::logical(&root, &absolute).ok_or_else(|| fail("outside its project".into()))?;
    let confined = oc_project::fsx::Confined::new(&root);
    let before = confined.read(Path::new(&logical), oc_project::limits::MAX_SOURCE_BYTES).map_err(|e| fail(e.to_string()))?;
    let text = String::from_utf8(before.clone()).map_err(|_| fail("not UTF-8 text".into()))?;
    let after = replace_table(&text, table).map_err(fail)?;
    if after == text {
        noteln!("{} already holds this table", readme.display());
        return Ok(());
    }
    oc_project::output::rewrite_notes(&confined, &logical, &before, after.as_bytes()).map_err(|e| fail(e.to_string()))?;
    noteln!("wrote the table into {}", readme.display());
    Ok(())
}
