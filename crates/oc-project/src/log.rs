//! The battle log's first line: where the battle came from, so `oc replay` can play it again.
//! The scenario file is stored as a logical path (relative to the project root), and resolved
//! against the root of the log's own project, confined like an import: a log can never make
//! `oc replay` read a file outside that project.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::fsx::Confined;

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Source {
    pub event: String,
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

/// The AI of logs written before logs named their AIs.
pub fn first_ai() -> String {
    "greedy".to_string()
}

/// Why a log cannot be replayed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LogError {
    /// The first line is not a header (what was wrong with it).
    NotAHeader(String),
    /// The file the header names is not a logical path of the project (why).
    NotInProject { file: String, why: String },
    /// The file the header names cannot be read inside the project (why).
    Unreadable { file: String, why: String },
}

impl std::fmt::Display for LogError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LogError::NotAHeader(why) => write!(f, "the first line is not a battle log header ({why})"),
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
    Ok(source)
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
