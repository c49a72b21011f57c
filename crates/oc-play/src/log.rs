//! The battle log, the one saved format of a battle: a header line ([`Source`]: where the battle
//! came from, so `oc replay` can play it again), then one engine [`Record`] per line. The
//! records are the engine's own (`oc_engine::battle::Record`, what a battle writes as it goes);
//! the file around them — header, line order, format version — is defined here and nowhere else.
//!
//! **Format version** [`LOG_FORMAT`]: the header's `format` field. Version 1 is every log written
//! so far, and its header has no `format` field (a version-1 header is written without one, so
//! logs stay byte for byte what they were); a header naming another version is refused with
//! [`LogError::Version`], not misread.
//!
//! The scenario file is stored as a logical path (relative to the project root), and resolved
//! against the root of the log's own project, confined like an import: a log can never make
//! `oc replay` read a file outside that project.

use std::path::{Path, PathBuf};

pub use oc_engine::battle::Record;
use oc_project::fsx::Confined;
use serde::{Deserialize, Serialize};

/// The version of the battle log's format this crate writes and reads.
pub const LOG_FORMAT: u32 = 1;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Source {
    pub event: String,
    /// The log's format version ([`LOG_FORMAT`]); absent in version 1.
    #[serde(default = "first_format", skip_serializing_if = "is_first_format")]
    pub format: u32,
    /// The scenario's `.oc` file, relative to the project root, `/`-separated.
    pub file: String,
    pub scenario: String,
    pub attacker: String,
    pub defender: String,
    pub seed: u64,
    /// The AI that played each side. A log without them was played by `greedy`, the only AI
    /// before there were several.
    #[serde(default = "first_ai")]
    pub attacker_ai: String,
    #[serde(default = "first_ai")]
    pub defender_ai: String,
}

fn first_format() -> u32 {
    1
}

fn is_first_format(v: &u32) -> bool {
    *v == 1
}

/// The AI of logs (and simulate parts) written before they named their AIs.
pub fn first_ai() -> String {
    "greedy".to_string()
}

/// Why a log cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogError {
    /// The first line is not a header (what was wrong with it).
    NotAHeader(String),
    /// The header is of another format version than this oc reads.
    Version { found: u32 },
    /// The file the header names is not a logical path of the project (why).
    NotInProject { file: String, why: String },
    /// The file the header names cannot be read inside the project (why).
    Unreadable { file: String, why: String },
}

impl std::fmt::Display for LogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LogError::NotAHeader(why) => write!(f, "the first line is not a battle log header ({why})"),
            LogError::Version { found } => write!(
                f,
                "the log is of format version {found}, and this oc reads version {LOG_FORMAT}; replay it with the oc that wrote it"
            ),
            LogError::NotInProject { file, why } => {
                write!(f, "the log names `{file}`, which {why}; logs name files relative to their project root")
            }
            LogError::Unreadable { file, why } => write!(f, "the log names `{file}`: {why}"),
        }
    }
}

impl std::error::Error for LogError {}

/// Reads the header line of a log.
pub fn parse_source(line: &str) -> Result<Source, LogError> {
    let source: Source = serde_json::from_str(line).map_err(|e| LogError::NotAHeader(e.to_string()))?;
    if source.event != "source" {
        return Err(LogError::NotAHeader("`{\"event\":\"source\",...}` is what one says".to_string()));
    }
    if source.format != LOG_FORMAT {
        return Err(LogError::Version { found: source.format });
    }
    Ok(source)
}

/// The log's lines: the header, then one record per line.
pub fn lines(source: &Source, records: &[Record]) -> Vec<String> {
    let mut lines = vec![serde_json::to_string(source).unwrap_or_default()];
    lines.extend(records.iter().map(|r| serde_json::to_string(r).unwrap_or_default()));
    lines
}

/// The real path of the file a log names, inside `root`; refused when it is absolute, climbs
/// out, or resolves through a link to a file outside.
pub fn source_path(root: &Path, file: &str) -> Result<PathBuf, LogError> {
    let logical = oc_compiler::resolve_logical(file)
        .map_err(|why| LogError::NotInProject { file: file.to_string(), why: why.to_string() })?;
    Confined::new(root)
        .resolve(Path::new(&logical))
        .map_err(|e| LogError::Unreadable { file: file.to_string(), why: e.to_string() })
}

/// A saved log as `oc replay` reads it: its text, header and records, and the real path of
/// the file it names.
pub struct Opened {
    pub text: String,
    pub source: Source,
    /// The records it holds (a line that does not read as one is left out: `verify` finds it).
    pub records: Vec<Record>,
    pub file: PathBuf,
}

/// Reads the log at `log`. The file it names is relative to the root of the project the log
/// lies in (or of `project`, for a log kept elsewhere), and confined to it like an import.
pub fn open(log: &Path, project: Option<&Path>) -> Result<Opened, crate::Refusal> {
    // A project named is a folder that is there (a missing one would put the root at `/`).
    if let Some(dir) = project.filter(|d| !d.is_dir()) {
        let what = if dir.exists() { "not a folder" } else { "no such folder" };
        return Err(crate::Refusal::new(format!("--project {}: {what}", dir.display()))
            .with_help("name the folder of the log's project (the one holding its oc.toml)"));
    }
    let bytes = oc_project::fsx::read_regular(log, oc_project::limits::MAX_LOG_BYTES).map_err(|e| {
        crate::Refusal::new(format!("cannot read {}: {e}", log.display()))
            .with_help("name a battle log `oc battle --log` or `oc play --log` wrote")
    })?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let source = parse_source(text.lines().next().unwrap_or("")).map_err(|e| {
        crate::Refusal::new(format!("{}: {e}", log.display()))
            .with_help("a battle log starts with the line naming its source, as `oc battle --log` writes it")
    })?;
    let root = oc_project::find_root(project.unwrap_or(log)).dir;
    let file = source_path(&root, &source.file).map_err(|e| {
        crate::Refusal::new(format!("{}: {e} (project root {})", log.display(), root.display()))
            .with_help("replay a log from inside its project, or name the project with --project DIR")
    })?;
    let records = text.lines().skip(1).filter_map(|l| serde_json::from_str(l).ok()).collect();
    Ok(Opened { text, source, records, file })
}

/// Where a log and its replay part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mismatch {
    /// Line `line` (1-based) differs: as logged, as replayed.
    Line { line: usize, logged: String, replayed: String },
    /// The log has `logged` lines, the replay `replayed`.
    Length { logged: usize, replayed: usize },
    /// The replay could not go on at line `line` (the rules refused a turn: the logged turns
    /// before it were played as logged, `why` the refusal), the log's line there `logged`.
    Stopped { line: usize, logged: Option<String>, why: String },
}

/// [`verify`] of a replay that stopped (`why`) after `replayed`: where the lines replayed
/// differ, that line, else the line the replay stopped at.
pub fn verify_stopped(text: &str, replayed: &[String], why: &str) -> Mismatch {
    if let Err(m @ Mismatch::Line { .. }) = verify(text, replayed) {
        return m;
    }
    let line = replayed.len() + 1;
    Mismatch::Stopped { line, logged: text.lines().nth(line - 1).map(str::to_string), why: why.to_string() }
}

/// Checks a log's text against the lines of its replay, byte for byte (the header, already
/// read, aside).
pub fn verify(text: &str, replayed: &[String]) -> Result<(), Mismatch> {
    for (n, (want, got)) in replayed.iter().skip(1).zip(text.lines().skip(1)).enumerate() {
        if want != got {
            return Err(Mismatch::Line { line: n + 2, logged: got.to_string(), replayed: want.clone() });
        }
    }
    let logged = text.lines().count();
    if logged != replayed.len() {
        return Err(Mismatch::Length { logged, replayed: replayed.len() });
    }
    Ok(())
}
