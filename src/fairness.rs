//! `oc fairness PATHS`: every scenario written in the `.oc` files under the paths, played with
//! its sample armies by the default AI, as a Markdown table of win rates with 95% intervals;
//! `--readme FILE` puts the table, with the command that made it, between the file's
//! `<!-- fairness:begin -->` and `<!-- fairness:end -->` lines. `--shard K/N` measures only
//! the games shard K owns and writes mergeable rows; `oc fairness merge PARTS...` prints the
//! table the whole run would have printed, byte for byte.

use std::path::{Path, PathBuf};

use crate::Format;
use oc_play::fairness;
use oc_project::output::Kind;

pub struct Request<'a> {
    pub run: fairness::Request<'a>,
    pub readme: Option<&'a Path>,
    pub format: Format,
    /// Where a shard's part goes (standard output without it).
    pub out: Option<&'a Path>,
    pub force: bool,
}

pub fn fairness(r: &Request) -> u8 {
    if let Some(first) = r.run.paths.first() {
        crate::report::root_of(first);
    }
    if r.run.shard.is_some() && r.readme.is_some() {
        errln!("error: a shard measures only some of the games: write the merged table into the README instead");
        errln!("help: `oc fairness merge PARTS... --readme README.md`");
        return 2;
    }
    if r.run.shard.is_none() && r.out.is_some() {
        errln!("error: --out writes a shard's part: the table goes to standard output or, with --readme, into a README");
        errln!("help: add `--shard K/N`, or leave out --out");
        return 2;
    }
    if let Some(readme) = r.readme {
        if let Err(why) = oc_project::output::notes_file(readme) {
            errln!("error: --readme {}: {why}", readme.display());
            return 2;
        }
    }
    let target = match r.out.map(|o| crate::commands::output_target(o, Kind::FairnessPart, r.run.paths, r.force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    // Each file compiled with its warnings shown (a failure is shown once, below).
    let compile = |path: &Path| {
        crate::report::root_of(path);
        let compiled = oc_play::setup::compile(path)?;
        crate::load::show(&compiled.workspace, &compiled.warnings);
        Ok(compiled)
    };
    let bar = crate::commands::Progress::new(None);
    let measured = fairness::measure(&r.run, &compile, &|line: &str| bar.say(line), &|| bar.tick());
    bar.finish();
    let rows = match measured {
        Ok(rows) => rows,
        Err(f) => return crate::load::failure(f),
    };
    let fairness::Request { paths, games, games_for, seed, shard } = r.run;
    let command = fairness::command_line(paths, games, games_for, seed, r.readme);
    if let Some(shard) = shard {
        let text = match fairness::Part::new(&r.run, command, shard, rows).text() {
            Ok(text) => text,
            Err(e) => return crate::load::refused(&e),
        };
        return match target {
            Some(target) => match crate::commands::write_output(&target, text.as_bytes()) {
                Ok(()) => {
                    noteln!("part {}/{} written to {}", shard.index, shard.count, target.show());
                    0
                }
                Err(code) => code,
            },
            None => {
                out!("{text}");
                0
            }
        };
    }
    print_table(&rows, seed, &command, r.readme, r.format)
}

/// `oc fairness merge PARTS...`: every shard of one run, once each, summed into its table.
pub fn merge(parts: &[PathBuf], readme: Option<&Path>, format: Format) -> u8 {
    if let Some(readme) = readme {
        if let Err(why) = oc_project::output::notes_file(readme) {
            errln!("error: --readme {}: {why}", readme.display());
            return 2;
        }
    }
    let merged = match fairness::merge_files(parts) {
        Ok(m) => m,
        Err(e) => return crate::load::refused(&e),
    };
    // The table quotes the command of the whole run; with --readme here, as the run would have.
    let command = match readme {
        Some(readme) => format!("{} --readme {}", merged.command, readme.display()),
        None => merged.command.clone(),
    };
    let code = print_table(&merged.rows, merged.seed, &command, readme, format);
    if code == 0 {
        noteln!("merged {} parts", merged.parts);
    }
    code
}

fn print_table(rows: &[fairness::Row], seed: u64, command: &str, readme: Option<&Path>, format: Format) -> u8 {
    let table = fairness::table(rows, command);
    if let Some(readme) = readme {
        if let Err(code) = write_readme(readme, &table) {
            return code;
        }
    }
    match format {
        Format::Human => out!("{table}"),
        Format::Json => outln!("{}", fairness::json(rows, seed, command)),
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
