//! A source that could not be read, as every command reports it: the diagnostic `oc check`
//! gives (read by the session and by the commands' own loading, [`crate::load`]).

use oc_compiler::{ReadError, Workspace};

/// A file that could not be read, as `oc check` reports it: `oc::file::outside_project` for a
/// link or `..` out of the project, else `oc::file::unreadable`, at the start of `file` (its
/// text is not there).
pub fn diagnostic(file: oc_diag::FileId, path: &str, reason: &ReadError) -> oc_diag::Diagnostic {
    use crate::codes::{OUTSIDE_PROJECT, UNREADABLE};
    let (code, help) = if matches!(reason, ReadError::Outside(_)) {
        (OUTSIDE_PROJECT, "copy the file into the project, or move oc.toml up to a folder holding both")
    } else {
        (UNREADABLE, "replace it with a regular text file, or list it under `ignore` in oc.toml")
    };
    oc_diag::Diagnostic::error(code, oc_diag::Span::new(file, 0, 0), format!("cannot read {path}: {reason}")).with_help(help)
}

/// The files a compilation could not read (`Loaded::unreadable`), each a diagnostic as `oc
/// check` gives (errors in the input: every command stops on them with exit status 1), over
/// an empty text of each added to `workspace` for their spans.
pub fn diagnostics(workspace: &mut Workspace, unreadable: &[(String, ReadError)]) -> Vec<oc_diag::Diagnostic> {
    unreadable.iter().map(|(path, reason)| diagnostic(workspace.add(path.clone(), String::new()), path, reason)).collect()
}
