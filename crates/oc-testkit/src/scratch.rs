//! Folders for one test under the system's temporary folder, gone when the test passes.

use std::path::{Path, PathBuf};

/// A folder for one test, made empty when it is made ([`Scratch::fresh`]) and removed with all
/// it holds when dropped, so a test run leaves nothing behind (the suite made a hundred folders
/// a run, kept forever). A test that fails keeps its folder for a look, and says where: so does
/// every test with `OC_KEEP_SCRATCH=1`.
#[derive(Debug)]
pub struct Scratch(PathBuf);

impl Scratch {
    /// The folder at `path`, emptied (what an earlier run left there removed) and made.
    ///
    /// # Panics
    /// Where it cannot be made: a test has nowhere to work.
    pub fn fresh(path: PathBuf) -> Scratch {
        let _ = std::fs::remove_dir_all(&path);
        if let Err(e) = std::fs::create_dir_all(&path) {
            panic!("cannot make the scratch folder {}: {e}", path.display());
        }
        Scratch(path)
    }

    /// `std::env::temp_dir()/{prefix}-{process id}-{name}`, made fresh.
    pub fn named(prefix: &str, name: &str) -> Scratch {
        Scratch::fresh(std::env::temp_dir().join(format!("{prefix}-{}-{name}", std::process::id())))
    }
}

impl std::ops::Deref for Scratch {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<Path> for Scratch {
    fn as_ref(&self) -> &Path {
        &self.0
    }
}

impl AsRef<std::ffi::OsStr> for Scratch {
    fn as_ref(&self) -> &std::ffi::OsStr {
        self.0.as_os_str()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if std::thread::panicking() || std::env::var_os("OC_KEEP_SCRATCH").is_some() {
            eprintln!("kept the scratch folder {}", self.0.display());
            return;
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[cfg(test)]
mod tests {
    use super::Scratch;

    /// Made empty, removed with what it holds when dropped; kept where the test panicked.
    #[test]
    fn a_scratch_folder_is_emptied_made_and_removed() {
        let path = {
            let dir = Scratch::named("oc-testkit-scratch", "drop");
            std::fs::write(dir.join("a.txt"), "a").unwrap();
            std::fs::create_dir_all(dir.join("b/c")).unwrap();
            let path = dir.to_path_buf();
            drop(dir);
            assert!(!path.exists(), "{} removed", path.display());
            std::fs::create_dir_all(path.join("left")).unwrap();
            let again = Scratch::fresh(path.clone());
            assert!(again.is_dir() && !again.join("left").exists(), "made empty");
            path
        };
        assert!(!path.exists(), "{} removed", path.display());
        let kept = std::thread::spawn(|| {
            let dir = Scratch::named("oc-testkit-scratch", "panic");
            let path = dir.to_path_buf();
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(move || {
                let _dir = dir;
                panic!("a failing test");
            }));
            path
        })
        .join()
        .unwrap();
        assert!(kept.is_dir(), "kept after a panic");
        std::fs::remove_dir_all(&kept).unwrap();
    }
}
