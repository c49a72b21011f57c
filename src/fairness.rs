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

/// `oc fairness`'s arguments (`oc fairness merge` is its subcommand).
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    merge: Option<Merge>,
    /// `.oc` files or folders (each scenario written in them, with every pair of its armies).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Games per scenario.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=oc_project::limits::MAX_GAMES))]
    games: u64,
    /// Another number of games for one scenario (repeatable): `--games-for RiverStorm=200`.
    #[arg(long, value_parser = oc_play::fairness::parse_games_for)]
    games_for: Vec<(String, u64)>,
    /// The first game's seed: the same seed plays the same games (default 1).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Write the table, with this command above it, into this Markdown file between its
    /// markers (appended under a `## Fairness` heading when it has none).
    #[arg(long)]
    readme: Option<PathBuf>,
    /// Output format: `human` for people, `json` for one JSON object on stdout.
    #[arg(long, value_enum, default_value = "human")]
    format: Format,
    /// Measure only shard K of N (games g of each pair with g mod N = K - 1, the same seeds
    /// as the whole run) and write its rows as a part for `oc fairness merge`.
    #[arg(long, value_parser = oc_play::simulate::parse_shard)]
    shard: Option<oc_play::simulate::Shard>,
    /// Write the shard's part to this file (standard output without it).
    #[arg(long, requires = "shard")]
    out: Option<PathBuf>,
    /// Replace an existing file that is not an earlier part written by this command.
    #[arg(long)]
    force: bool,
}

#[derive(clap::Subcommand)]
enum Merge {
    /// Merge the parts of a sharded fairness run: the table equals the unsharded run's, byte for byte.
    Merge {
        /// Every part, one per shard (`oc fairness PATHS --shard K/N --out part-K.json`).
        #[arg(required = true)]
        parts: Vec<PathBuf>,
        /// Write the table into this Markdown file between its markers, as the whole run would.
        #[arg(long)]
        readme: Option<PathBuf>,
        /// Output format: `human` for people, `json` for one JSON object on stdout.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
}

pub fn command(args: &Args) -> u8 {
    match &args.merge {
        Some(Merge::Merge { parts, readme, format }) => merge(parts, readme.as_deref(), *format),
        None => fairness(args),
    }
}

fn fairness(a: &Args) -> u8 {
    let run = fairness::Request { paths: &a.paths, games: a.games, games_for: &a.games_for, seed: a.seed, shard: a.shard };
    let (readme, out) = (a.readme.as_deref(), a.out.as_deref());
    if let Some(first) = run.paths.first() {
        crate::report::root_of(first);
    }
    if run.shard.is_some() && readme.is_some() {
        errln!("error: a shard measures only some of the games: write the merged table into the README instead");
        errln!("help: `oc fairness merge PARTS... --readme README.md`");
        return 2;
    }
    if run.shard.is_none() && out.is_some() {
        errln!("error: --out writes a shard's part: the table goes to standard output or, with --readme, into a README");
        errln!("help: add `--shard K/N`, or leave out --out");
        return 2;
    }
    if let Some(readme) = readme {
        if let Err(code) = check_readme(readme) {
            return code;
        }
    }
    let target = match out.map(|o| crate::commands::output_target(o, Kind::FairnessPart, run.paths, a.force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    if let Some(shard) = run.shard {
        let command = fairness::command_line(run.paths, run.games, run.games_for, run.seed, readme);
        let empty = fairness::Part::new(&run, command, shard, Vec::new()).text();
        if let Err(code) =
            empty.map_or(Ok(()), |text| crate::commands::part_free(target.as_ref(), Kind::FairnessPart, &text, a.force))
        {
            return code;
        }
    }
    let bar = crate::commands::Progress::new(None);
    let measured =
        fairness::measure(&run, &|p: &Path| crate::load::compile_shown(p, "fairness"), &|line: &str| bar.say(line), &|| {
            bar.tick()
        });
    bar.finish();
    let rows = match measured {
        Ok(rows) => rows,
        Err(f) => return crate::load::failure(f),
    };
    let fairness::Request { paths, games, games_for, seed, shard } = run;
    let command = fairness::command_line(paths, games, games_for, seed, readme);
    if let Some(shard) = shard {
        let text = match fairness::Part::new(&run, command, shard, rows).text() {
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
    print_table(&rows, seed, &command, readme, a.format)
}

/// `oc fairness merge PARTS...`: every shard of one run, once each, summed into its table.
fn merge(parts: &[PathBuf], readme: Option<&Path>, format: Format) -> u8 {
    if let Some(readme) = readme {
        if let Err(code) = check_readme(readme) {
            return code;
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

/// [`fairness::readme_ready`], a refusal shown (exit status 2).
fn check_readme(readme: &Path) -> Result<(), u8> {
    fairness::readme_ready(readme).map_err(|r| crate::load::refused(&r))
}

/// Writes the table into `readme`, then prints it (or its JSON) whatever the write did: where
/// the write fails the table is on standard output all the same, not lost with the games that
/// made it; and a reader of standard output that goes early cannot keep the file from being
/// written.
fn print_table(rows: &[fairness::Row], seed: u64, command: &str, readme: Option<&Path>, format: Format) -> u8 {
    let table = fairness::table(rows, command);
    let written = readme.map_or(Ok(()), |readme| write_readme(readme, &table));
    if let Err(code) = written {
        crate::report::verdict(code);
    }
    match format {
        Format::Human => out!("{table}"),
        Format::Json => outln!("{}", fairness::json(rows, seed, command)),
    }
    written.err().unwrap_or(0)
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
