//! Reading user files safely: regular files only (a FIFO or a device is refused before any read
//! can block), bounded in size, and confined to the project root after every symbolic link is
//! resolved.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};

pub use oc_compiler::ReadError;

/// The reason an I/O error gives, as a [`ReadError`].
fn read_error(e: &std::io::Error) -> ReadError {
    match e.kind() {
        std::io::ErrorKind::NotFound => ReadError::NotFound,
        _ if e.raw_os_error() == Some(libc::ELOOP) => ReadError::NotRegular("a symbolic link loop"),
        _ => ReadError::Io(e.to_string()),
    }
}

/// What a file system entry is, in words.
pub fn kind_word(ft: std::fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_char_device() || ft.is_block_device() {
            return "a device";
        }
        if ft.is_socket() {
            return "a socket";
        }
    }
    if ft.is_dir() {
        "a directory"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else if ft.is_file() {
        "a regular file"
    } else {
        "a special file"
    }
}

/// Opens without blocking (a FIFO with no writer would block `open` itself), without taking a
/// terminal, and — with `no_follow` — refusing a link in the last component.
fn open_nonblocking(path: &Path, no_follow: bool) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let follow = if no_follow { libc::O_NOFOLLOW } else { 0 };
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY | follow);
    }
    options.open(path)
}

/// Opens a regular file for reading, refusing anything else without blocking.
pub fn open_regular(path: &Path) -> Result<File, ReadError> {
    let file = open_nonblocking(path, false).map_err(|e| read_error(&e))?;
    let meta = file.metadata().map_err(|e| read_error(&e))?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_word(meta.file_type())));
    }
    Ok(file)
}

/// Reads a regular file of at most `cap` bytes. Anything else is refused without reading.
pub fn read_regular(path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
    read_opened(path, cap, false)
}

fn read_opened(path: &Path, cap: u64, no_follow: bool) -> Result<Vec<u8>, ReadError> {
    // A cheap look first, so a directory or a FIFO is named as such.
    let meta = std::fs::metadata(path).map_err(|e| read_error(&e))?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_word(meta.file_type())));
    }
    let file = open_nonblocking(path, no_follow).map_err(|e| read_error(&e))?;
    // What was opened is what counts: the path may have been swapped since the look.
    let meta = file.metadata().map_err(|e| read_error(&e))?;
    if !meta.is_file() {
        return Err(ReadError::NotRegular(kind_word(meta.file_type())));
    }
    if meta.len() > cap {
        return Err(ReadError::TooLarge { size: meta.len(), cap });
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // A file that grows while it is read still stops at the cap.
    file.take(cap + 1).read_to_end(&mut bytes).map_err(|e| read_error(&e))?;
    if bytes.len() as u64 > cap {
        return Err(ReadError::TooLarge { size: bytes.len() as u64, cap });
    }
    Ok(bytes)
}

/// The project root, resolved once: reads are checked against its real path.
#[derive(Clone, Debug)]
pub struct Confined {
    /// The root as the user named it (for messages and joining logical paths).
    pub root: PathBuf,
    /// The root with every link resolved.
    real: PathBuf,
}

impl Confined {
    pub fn new(root: &Path) -> Confined {
        let real = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
        Confined { root: root.to_path_buf(), real }
    }

    /// The real path of `path` (absolute, or relative to the root), if it is inside the root.
    pub fn resolve(&self, path: &Path) -> Result<PathBuf, ReadError> {
        let full = if path.is_absolute() { path.to_path_buf() } else { self.root.join(path) };
        let real = std::fs::canonicalize(&full).map_err(|e| read_error(&e))?;
        if real.starts_with(&self.real) {
            Ok(real)
        } else {
            Err(ReadError::Outside(real))
        }
    }

    /// Reads a file of the project (a logical path relative to the root, or an absolute path),
    /// refusing it if its real path is outside the root.
    pub fn read(&self, path: &Path, cap: u64) -> Result<Vec<u8>, ReadError> {
        let real = self.resolve(path)?;
        // The real path has no link in it; a link swapped in at its end since is refused.
        read_opened(&real, cap, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_files_are_refused_without_blocking() {
        assert_eq!(read_regular(Path::new("/dev/zero"), 10), Err(ReadError::NotRegular("a device")));
        assert_eq!(read_regular(Path::new("/"), 10), Err(ReadError::NotRegular("a directory")));
        assert_eq!(read_regular(Path::new("/nonexistent/x.oc"), 10), Err(ReadError::NotFound));
    }
}
