//! `oc fairness PATHS`: every scenario written in the `.oc` files under the paths, played with
//! its sample armies by the default AI, as a Markdown table of win rates with 95% intervals;
//! `--readme FILE` puts the table, with the command that made it, between the file's
//! `<!-- fairness:begin -->` and `<!-- fairness:end -->` lines.

use std::path::Path;

use crate::Format;
use oc_play::fairness;

pub struct Request<'a> {
    pub run: fairness::Request<'a>,
    pub readme: Option<&'a Path>,
    pub format: Format,
}

pub fn fairness(r: &Request) -> u8 {
    if let Some(first) = r.run.paths.first() {
        crate::report::root_of(first);
    }
    if let Some(readme) = r.readme {
        if let Err(why) = oc_project::output::notes_file(readme) {
            errln!("error: --readme {}: {why}", readme.display());
            return 2;
        }
    }
    // Each file compiled with its warnings shown (a failure is shown once, below).
    let compile = |path: &Path| {
        crate::report::root_of(path);
        let compiled = oc_play::setup::compile(path)?;
        crate::load::show(&compiled.workspace, &compiled.warnings);
        Ok(compiled)
    };
    let rows = match fairness::measure(&r.run, &compile, &|line| noteln!("{line}")) {
        Ok(rows) => rows,
        Err(f) => return crate::load::failure(f),
    };
    let Request { run: fairness::Request { paths, games, games_for, seed }, readme, format } = r;
    let command = fairness::command_line(paths, *games, games_for, *seed, *readme);
    let table = fairness::table(&rows, &command);
    if let Some(readme) = readme {
        if let Err(code) = write_readme(readme, &table) {
            return code;
        }
    }
    match format {
        Format::Human => out!("{table}"),
        Format::Json => outln!("{}", fairness::json(&rows, *seed, &command)),
    }
    0
}

fn write_readme(readme: &Path, table: &str) -> Result<(), u8> {
    let fail = |e: String| {
        errln!("error: {}: {e}", readme.display());
        2u8
    };
    let edit = fairness::notes_edit(readme, table).map_err(fail)?;
    let Some(after) = edit.after else {
        noteln!("{} already holds this table", readme.display());
        return Ok(());
    };
    let confined = oc_project::fsx::Confined::new(&edit.root);
    oc_project::output::rewrite_notes(&confined, &edit.logical, &edit.before, after.as_bytes())
        .map_err(|e| fail(e.to_string()))?;
    noteln!("wrote the table into {}", readme.display());
    Ok(())
}
