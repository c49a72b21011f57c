//! `oc`: the Officer's Chess authoring toolkit. This binary is the edge: it does the I/O, turns
//! diagnostics into miette reports or JSON, and sets the exit status. The work is in `crates/`.

mod commands;
mod project;
mod report;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

#[derive(Parser)]
#[command(name = "oc", version, about = "Officer's Chess authoring toolkit: check rules, classes, maps and scenarios")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, ValueEnum, PartialEq, Eq)]
pub enum Format {
    Human,
    Json,
}

#[derive(Subcommand)]
enum Command {
    /// Check every `.oc` file under the paths (default: .) against the standard library.
    Check {
        paths: Vec<PathBuf>,
        /// Output format: human-readable reports, or one JSON object on stdout.
        #[arg(long, value_enum, default_value = "human")]
        format: Format,
    },
    /// Compile the files under the paths (or just the standard library) into rules JSON.
    Build {
        paths: Vec<PathBuf>,
        /// Where to write the compiled rules.
        #[arg(long, short)]
        out: PathBuf,
    },
    /// Print the long explanation of a diagnostic code (`oc explain oc::name::unknown_tag`).
    Explain {
        /// The code; omit it (or pass --list) to list every code.
        code: Option<String>,
        #[arg(long)]
        list: bool,
    },
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() { ExitCode::from(2) } else { ExitCode::SUCCESS };
        }
    };
    let status = match cli.command {
        Command::Check { paths, format } => commands::check(&paths, format),
        Command::Build { paths, out } => commands::build(&paths, &out),
        Command::Explain { code, list } => commands::explain(code.as_deref(), list),
    };
    ExitCode::from(status)
}
