//! `oc`: the Officer's Chess authoring toolkit. This binary is the edge: it does the I/O, turns
//! diagnostics into miette reports or JSON, and sets the exit status. The work is in `crates/`.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

#[macro_use]
mod report;

mod args;
mod atlas;
mod balance_cmd;
mod battle_cmd;
mod commands;
mod doc_cmd;
mod fairness;
mod fmt_cmd;
mod load;
mod play;
mod play_cmd;
mod scenario_cmd;
mod simulate;
mod tournament;
mod tune;
mod watch;

use std::path::PathBuf;
use std::process::ExitCode;

use args::{ai_names, Game, Matchup};
use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "oc", version = env!("OC_VERSION"), about = "Officer's Chess authoring toolkit: check rules, classes, maps and scenarios")]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// Colour reports: `auto` on a terminal (not with `NO_COLOR`; `CLICOLOR_FORCE` forces it),
    /// `always` or `never`.
    #[arg(long, global = true, value_enum, default_value = "auto", value_name = "WHEN")]
    color: Color,
    /// No status lines (what was written, summaries, progress): diagnostics and errors only.
    #[arg(long, short, global = true)]
    quiet: bool,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
enum Color {
    Auto,
    Always,
    Never,
}

/// `--format` of a command that reports in text: `json` prints what it says as one object
/// on stdout instead (`oc_project::transcript`).
#[derive(clap::Args)]
struct Report {
    /// Output format: `human` for people, `json` for what it says as one JSON object on stdout.
    #[arg(long = "format", id = "report", value_enum, default_value = "human")]
    report: Format,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
}

/// What `oc check` prints.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum CheckFormat {
    Human,
    Json,
    Sarif,
    Github,
}

/// What `--deny` makes fatal.
#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Deny {
    Warnings,
}

#[derive(Subcommand)]
enum Command {
    /// Check every `.oc` file under the paths (default: .) against the standard library.
    Check {
        /// Files and folders to check (default: the project around the current folder).
        paths: Vec<PathBuf>,
        /// Output format: human-readable reports; one JSON object, a SARIF 2.1.0 log (code
        /// scanning) or GitHub Actions annotations on stdout.
        #[arg(long, value_enum, default_value = "human")]
        format: CheckFormat,
        /// `--deny warnings`: warnings fail the check too (exit 1).
        #[arg(long, value_enum)]
        deny: Option<Deny>,
    },
    /// Generate the documentation site of a built-in ruleset or of your own `.oc` files: classes,
    /// items, tags, statuses, terrain, tables, dice, formulas and scenarios, cross-linked and
    /// searchable, as HTML (open `DIR/index.html`, no server needed) and Markdown.
    Doc {
        /// `.oc` files or folders to document (with the standard library they build on). Without
        /// them, the ruleset the working directory's oc.toml names, else the default built-in one.
        paths: Vec<PathBuf>,
        /// A built-in ruleset to document instead (officers_chess, the default, officers_chess_v06,
        /// stamina, battlestorm, skirmish).
        #[arg(long)]
        ruleset: Option<String>,
        /// The folder to write (replaced whole when an earlier `oc doc` wrote it and nothing in it
        /// was added or edited since).
        #[arg(long, short)]
        out: PathBuf,
        /// Replace an existing folder that `oc doc` did not write, or files added to or edited in
        /// one it wrote (never a folder holding sources).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        report: Report,
    },
    /// Format the `.oc` files under the paths (default: .) in place, only those that change.
    Fmt {
        /// Files and folders to format (default: the project around the current folder).
        paths: Vec<PathBuf>,
        /// Write nothing: print a diff of each file that is not formatted, and exit 1 if any is not.
        #[arg(long)]
        check: bool,
        #[command(flatten)]
        report: Report,
    },
    /// Compile the files under the paths (or just the standard library) into rules JSON.
    Build {
        /// The .oc files to compile.
        paths: Vec<PathBuf>,
        /// Where to write the compiled rules (`-` for standard output).
        #[arg(long, short)]
        out: PathBuf,
        /// Replace an existing file that is not an earlier output of this command.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        report: Report,
    },
    /// The exact forecast of one combat exchange, like the games show before an attack.
    Forecast {
        #[command(flatten)]
        matchup: Matchup,
        /// Output format: `human` for people, `json` for one JSON object on stdout.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Play one exchange with a seeded generator and print it strike by strike.
    Duel {
        #[command(flatten)]
        matchup: Matchup,
        /// The seed of the exchange's dice: the same seed, the same strikes (default 1).
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Output format: `human` for people, `json` for one JSON object on stdout.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Every class with each weapon it wields against every class: rout chances and damage as CSV.
    Matrix(play::MatrixArgs),
    /// Every class's and item's written price next to the price its measured strength suggests;
    /// warns (`oc::balance::cost_outlier`) on your classes and items priced far from how they play.
    ///
    /// Strength: each unit — a class with a weapon it may wield, or with its kit weapon and an
    /// accessory — meets every class of the roster (with its kit weapon) in the engine's exact
    /// forecasts, attacking and attacked, each side from the distance it likes best; and in
    /// `--duels` seeded duels to the rout per matchup (attacks in turn, HP carried over). Its
    /// strength is the mean log-odds of its duel share (without duels: the mean log of the HP share
    /// dealt over the share taken).
    ///
    /// Price curve: ln(class cost) = a + b x the strength of the class with its kit weapon, a
    /// robust (Theil-Sen) line over the standard library's classes; a class's suggested price is
    /// the curve's value. Items are priced by the strength they add, in the curve's gold (weapons
    /// over each class's kit weapon, from its price): the median over the classes measured.
    ///
    /// Limits: only two units fighting on open ground are measured. Movement, terrain, healing,
    /// actions (Dance, staves), lasting statuses and consumables are not, so classes and items
    /// whose worth lies there read as overpriced. The warning needs a price further off than the
    /// standard roster's own scatter (and at least 1.5x). The same seed gives the same numbers.
    Balance(balance_cmd::Args),
    /// Watch a project (or one `.oc` or `.map.toml` file) and recheck what each save affects
    /// (Ctrl-C to stop).
    Watch {
        /// A file or folder to watch (default: the project around the current folder).
        path: Option<PathBuf>,
        /// Do not clear the screen before each report.
        #[arg(long)]
        no_clear: bool,
        /// The longest a recheck waits for a file still being written in place, in milliseconds
        /// (a save by rename is rechecked at once).
        #[arg(long, default_value_t = 50)]
        debounce: u64,
        /// Reports as human text (stderr), or one JSON object per report on stdout (the shape
        /// of `oc check --format json`).
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Serve the language server protocol on stdin/stdout (for editors): diagnostics as you type,
    /// hover, go to definition, references, completion, quick fixes, symbols, formatting, rename.
    Lsp {
        /// Accepted for editors that pass it; stdio is the only transport.
        #[arg(long)]
        stdio: bool,
    },
    /// Draw a map as a PNG: terrain colours and patterns, grid, coordinates, regions, chests,
    /// doors and a legend; optionally a class's reach or the rounds to an objective.
    Render(atlas::RenderArgs),
    /// Export a map to a Foundry VTT scene (JSON and its background PNG), a Universal VTT file
    /// (`.uvtt`, the picture embedded) or a Tiled map (TMX and its tileset PNG).
    Export(atlas::ExportArgs),
    /// Turn a one-pixel-per-tile PNG into a map definition.
    ImportImage {
        /// The picture of the map (PNG or JPEG).
        image: PathBuf,
        /// A TOML file of `"#rrggbb" = "Terrain"` entries (default: `oc render`'s colours).
        #[arg(long)]
        legend: Option<PathBuf>,
        /// The map's name (default: the legend's `name`, or the image's file name).
        #[arg(long)]
        name: Option<String>,
        /// Write the map here instead of stdout.
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Replace an existing file that is not a source. A map definition (`.map.toml`) is
        /// never replaced, even with --force: write a new one, or delete the old one yourself.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        report: Report,
    },
    /// Read a map made elsewhere into a map definition.
    Import {
        #[command(subcommand)]
        from: ImportFrom,
    },
    /// The objectives of a scenario as players read them, generated from its victory conditions.
    ExplainScenario {
        /// A `.oc` file (or directory) defining the scenario.
        path: PathBuf,
        /// Which scenario, when the files define several.
        #[arg(long)]
        name: Option<String>,
        /// Output format: `human` for people, `json` for one JSON object on stdout.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Play one battle with the AI on both sides and write its JSON-lines log.
    Battle(battle_cmd::Args),
    /// Play the scenario in the browser: a local server (127.0.0.1, a token in the address it
    /// prints) with a page to play one side against the AI, or both (hotseat).
    Play(play_cmd::PlayArgs),
    /// Re-run a battle log from its seed and check every line.
    Replay {
        /// The battle log to re-run (as `oc battle` writes it).
        log: PathBuf,
        /// The project the log's scenario belongs to (default: the project the log lies in).
        #[arg(long)]
        project: Option<PathBuf>,
        /// Once the replay matches the log, write a replay page here (one self-contained HTML file).
        #[arg(long)]
        html: Option<PathBuf>,
        /// Replace an existing file that is not an earlier replay page.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        report: Report,
    },
    /// Play many AI battles in parallel: win rates with 95% intervals, rounds, losses, endings.
    /// `--shard K/N` plays only the games shard K of N owns and writes mergeable counts;
    /// `oc simulate merge PARTS...` prints the report the whole run would have printed.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Simulate(simulate::Args),
    /// Search a scenario's knobs for a 50% attacker win rate with the default AI: prints the
    /// suggested values beside the current ones, the win rate with its 95% interval and the
    /// games it took. The file is left alone unless `--write`.
    Tune(tune::Args),
    /// Play every scenario under the paths with its sample armies and print the attacker's win
    /// rates as a Markdown table; `--readme FILE` writes it between the file's
    /// `<!-- fairness:begin -->` and `<!-- fairness:end -->` lines. `--shard K/N` measures only
    /// the games shard K of N owns; `oc fairness merge PARTS...` prints the whole run's table.
    #[command(args_conflicts_with_subcommands = true, subcommand_negates_reqs = true)]
    Fairness(fairness::Args),
    /// Two AIs play mirror matches: each attacker army of a mirror scenario (sides the same but
    /// for their zones) on both sides, each AI moving first and second, on the field as written
    /// and with the zones swapped; a table of wins, draws and losses with 95% intervals.
    Tournament(tournament::Args),
    /// The army-building phases: scout (share classes), outfit (change inventories only).
    Army {
        #[command(subcommand)]
        phase: ArmyPhase,
    },
    /// Print the manual page (roff, for `man`): `oc man > oc.1 && man ./oc.1`.
    Man,
    /// Print a shell completion script: `oc completions bash > ~/.local/share/bash-completion/completions/oc`.
    Completions {
        /// The shell to complete in.
        shell: clap_complete::Shell,
    },
    /// Print the long explanation of a diagnostic code (`oc explain oc::name::unknown_tag`).
    Explain {
        /// The code; omit it (or pass --list) to list every code.
        code: Option<String>,
        /// List every code with what it means.
        #[arg(long)]
        list: bool,
        #[command(flatten)]
        report: Report,
    },
}

#[derive(Subcommand)]
enum ImportFrom {
    /// A Tiled map (TMX): the terrain layer by its tiles' terrain names, regions, chests,
    /// doors and destructibles from objects and their properties (what `oc export tiled` writes).
    Tiled {
        /// The Tiled map (.tmx) to import.
        tmx: PathBuf,
        /// The new map definition (`*.map.toml`); standard output when omitted.
        #[arg(long, short)]
        out: Option<PathBuf>,
        /// Replace an existing map definition.
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        report: Report,
    },
}

#[derive(Subcommand)]
enum ArmyPhase {
    /// Print only the classes an army brings (what the Scouting phase shares).
    Scout {
        /// A `.oc` file defining the army (and importing its scenario).
        army: PathBuf,
        /// Which army, when the file defines several.
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        report: Report,
    },
    /// Accept an outfitted army: inventories may change, classes and units may not.
    Outfit {
        /// The army as scouted: the `.oc` file before it was outfitted.
        before: PathBuf,
        /// The army as outfitted: the `.oc` file after.
        after: PathBuf,
        /// Which army, when the files define several.
        #[arg(long)]
        name: Option<String>,
        #[command(flatten)]
        report: Report,
    },
}

fn main() -> ExitCode {
    report::install_panic_hook();
    use clap::{CommandFactory, FromArgMatches};
    let parsed = Cli::command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m).map(|cli| (m, cli)));
    let (matches, cli) = match parsed {
        Ok(both) => both,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    let colour = match cli.color {
        Color::Auto => oc_project::shown::ColorChoice::Auto,
        Color::Always => oc_project::shown::ColorChoice::Always,
        Color::Never => oc_project::shown::ColorChoice::Never,
    };
    report::settle(colour, cli.quiet);
    // `--format json` of a command that reports in text: what it says, kept for one object.
    let (mut name, mut sub) = (String::new(), &matches);
    while let Some((n, m)) = sub.subcommand() {
        name = if name.is_empty() { n.to_string() } else { format!("{name} {n}") };
        sub = m;
    }
    if matches!(sub.try_get_one::<Format>("report"), Ok(Some(Format::Json))) {
        report::start_json(&name);
    }
    let status = match cli.command {
        Command::Check { paths, format, deny } => commands::check(&paths, format, deny == Some(Deny::Warnings)),
        Command::Build { paths, out, force, .. } => commands::build(&paths, &out, force),
        Command::Doc { paths, ruleset, out, force, .. } => doc_cmd::doc(ruleset.as_deref(), &paths, &out, force),
        Command::Fmt { paths, check, .. } => fmt_cmd::fmt(&paths, check),
        Command::Watch { path, no_clear, debounce, format } => watch::watch(path.as_deref(), !no_clear, debounce, format),
        Command::Lsp { stdio: _ } => match oc_lsp::run_stdio() {
            Ok(status) => status,
            Err(e) => {
                errln!("oc lsp: {e}");
                2
            }
        },
        Command::ExplainScenario { path, name, format } => scenario_cmd::explain_scenario(&path, name.as_deref(), format),
        Command::Army { phase: ArmyPhase::Scout { army, name, .. } } => scenario_cmd::scout(&army, name.as_deref()),
        Command::Army { phase: ArmyPhase::Outfit { before, after, name, .. } } => {
            scenario_cmd::outfit(&before, &after, name.as_deref())
        }
        Command::Battle(args) => battle_cmd::battle(&args),
        Command::Play(args) => play_cmd::play(args),
        Command::Replay { log, project, html, force, .. } => battle_cmd::replay(&log, project.as_deref(), html.as_deref(), force),
        Command::Simulate(args) => simulate::command(args),
        Command::Tune(args) => tune::tune(&args),
        Command::Fairness(args) => fairness::command(&args),
        Command::Tournament(args) => tournament::tournament(&args),
        Command::Render(args) => atlas::render(&args),
        Command::Export(args) => atlas::export(&args),
        Command::ImportImage { image, legend, name, out, force, .. } => {
            atlas::import_image(&image, legend.as_deref(), name.as_deref(), out.as_deref(), force)
        }
        Command::Import { from: ImportFrom::Tiled { tmx, out, force, .. } } => atlas::import_tiled(&tmx, out.as_deref(), force),
        Command::Explain { code, list, .. } => commands::explain(code.as_deref(), list),
        Command::Man => {
            let mut page = Vec::new();
            match clap_mangen::Man::new(Cli::command()).render(&mut page) {
                Ok(()) => report::out(&page).map_or(2, |()| 0),
                Err(e) => {
                    errln!("error: cannot write the manual page: {e}");
                    2
                }
            }
        }
        Command::Completions { shell } => {
            // Into memory first: a closed pipe (`| head`) is not an error worth a panic.
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "oc", &mut script);
            report::out_status(&script)
        }
        Command::Forecast { matchup, format } => {
            let (a, d) = matchup.sides();
            play::forecast(matchup.ruleset.as_deref(), &a, &d, matchup.distance, matchup.stated(), format)
        }
        Command::Duel { matchup, seed, format } => {
            let (a, d) = matchup.sides();
            play::duel(matchup.ruleset.as_deref(), &a, &d, matchup.distance, matchup.stated(), seed, format)
        }
        Command::Balance(args) => balance_cmd::balance(&args),
        Command::Matrix(args) => play::matrix(&args),
    };
    report::finish_json(status);
    ExitCode::from(status)
}

#[cfg(test)]
mod tests {
    /// Every option and argument of every command says what it does in `--help` (a newcomer
    /// review found `oc forecast --attacker-terrain` and seven more with a blank line).
    #[test]
    fn every_option_says_what_it_does() {
        use clap::CommandFactory;
        fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
            for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
                let id = a.get_id().as_str();
                if a.get_help().is_none() && a.get_long_help().is_none() && id != "help" && id != "version" {
                    missing.push(format!("{path}: {id}"));
                }
            }
            for s in cmd.get_subcommands() {
                walk(s, &format!("{path} {}", s.get_name()), missing);
            }
        }
        let mut missing = Vec::new();
        walk(&super::Cli::command(), "oc", &mut missing);
        assert!(missing.is_empty(), "{} without help:\n{}", missing.len(), missing.join("\n"));
    }
}
