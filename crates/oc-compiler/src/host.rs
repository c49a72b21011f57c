//! What the compiler reads files through ([`Host`]) and why a read fails ([`ReadError`]), as
//! data: the compiler reports it where the file was named (an import, a scenario's map), the
//! session where a root was named.

use std::fmt;
use std::path::PathBuf;

/// Why a file was not read. Its `Display` is the reason the diagnostics show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReadError {
    NotFound,
    /// A path under the standard library's prefix that it does not hold.
    NotInStd,
    /// A host that holds no files of a project (only the embedded standard library).
    NoProject,
    /// Not a regular file: what it is instead ("a directory", "a FIFO", "a device", ...).
    NotRegular(&'static str),
    TooLarge {
        size: u64,
        cap: u64,
    },
    /// It resolves (through a link or `..`) to a path outside the project root.
    Outside(PathBuf),
    Io(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::NotFound => write!(f, "no such file"),
            ReadError::NotInStd => write!(f, "no such file in the standard library"),
            ReadError::NoProject => write!(f, "only the standard library is available here"),
            ReadError::NotRegular(what) => write!(f, "it is {what}, not a regular file; oc reads only regular files"),
            ReadError::TooLarge { size, cap } => {
                write!(f, "it is {} bytes; files of at most {} bytes ({} MiB) are read", size, cap, cap >> 20)
            }
            // Where a link leads outside the project is not shown: it may be a private path (a
            // link planted to `/etc/passwd` would otherwise print it into a CI log).
            ReadError::Outside(_) => {
                write!(f, "it leads outside the project (through a link or `..`); files are read only inside the project root")
            }
            ReadError::Io(e) => write!(f, "{e}"),
        }
    }
}
