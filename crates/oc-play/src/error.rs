//! Why a scenario could not be made ready, or a run could not go on: errors as data, rendered
//! by the caller. Diagnostics of the user's files come with the workspace that holds their
//! text; a refusal is what nothing in a file is to blame for (a usage or I/O problem).

use oc_compiler::Workspace;
use oc_diag::Diagnostic;

/// A refusal without a place in a file: what went wrong and, where one helps, how to fix it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub message: String,
    pub help: Option<String>,
}

impl Refusal {
    pub fn new(message: impl Into<String>) -> Refusal {
        Refusal { message: message.into(), help: None }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Refusal {
        self.help = Some(help.into());
        self
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// Why loading or playing stopped.
#[derive(Debug)]
pub enum Failure {
    /// The files do not compile (or a request about them is refused with a span): the
    /// diagnostics, over the workspace holding the files' text.
    Rejected { workspace: Box<Workspace>, diagnostics: Vec<Diagnostic> },
    /// Nothing in a file is to blame.
    Refused(Refusal),
}

impl From<oc_project::load::Refusal> for Refusal {
    fn from(r: oc_project::load::Refusal) -> Refusal {
        Refusal { message: r.message, help: r.help }
    }
}

impl From<oc_project::load::Refusal> for Failure {
    fn from(r: oc_project::load::Refusal) -> Failure {
        Failure::Refused(r.into())
    }
}

impl From<Refusal> for Failure {
    fn from(r: Refusal) -> Failure {
        Failure::Refused(r)
    }
}

impl Failure {
    /// A refusal with this message.
    pub fn refused(message: impl Into<String>) -> Failure {
        Failure::Refused(Refusal::new(message))
    }
}
