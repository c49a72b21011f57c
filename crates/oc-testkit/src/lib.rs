//! What oc's tests share: expectations kept in files beside the tests, compared with what the
//! code does now and rewritten, after a review, with `OC_BLESS=1` — one helper for every crate's
//! fixtures, snapshots and stored games; and each test's scratch folder ([`Scratch`]).

use std::path::Path;

mod scratch;
pub use scratch::Scratch;

/// Whether this run rewrites the expectations (`OC_BLESS=1`).
pub fn blessing() -> bool {
    std::env::var_os("OC_BLESS").is_some()
}

/// The expectations of one test: each checked against what the code gives now, the
/// differences collected, and all reported at the end ([`Expectations::finish`]).
#[derive(Default)]
pub struct Expectations {
    failures: Vec<String>,
    checked: usize,
}

impl Expectations {
    pub fn new() -> Expectations {
        Expectations::default()
    }

    /// `actual` against the text stored at `path`: with `OC_BLESS=1` the file is written
    /// (only if it changed), else a difference is noted, shown by `show(expected, actual)`.
    pub fn check_with(&mut self, path: &Path, actual: &str, show: impl Fn(&str, &str) -> String) {
        self.checked += 1;
        let stored = std::fs::read_to_string(path).unwrap_or_default();
        if stored == actual {
            return;
        }
        if blessing() {
            if let Err(e) = std::fs::write(path, actual) {
                self.failures.push(format!("{}: cannot rewrite it: {e}", path.display()));
            }
            return;
        }
        self.failures.push(format!("{}\n{}", path.display(), show(&stored, actual)));
    }

    /// [`Expectations::check_with`], the difference shown whole.
    pub fn check(&mut self, path: &Path, actual: &str) {
        self.check_with(path, actual, |expected, actual| format!("--- expected\n{expected}--- actual\n{actual}"));
    }

    /// A failure of this test's own (not an expectation's), reported with the others.
    pub fn fail(&mut self, why: String) {
        self.failures.push(why);
    }

    /// How many expectations were checked.
    pub fn checked(&self) -> usize {
        self.checked
    }

    /// Panics listing every difference, saying how to rewrite the files.
    #[track_caller]
    pub fn finish(self, what: &str) {
        assert!(
            self.failures.is_empty(),
            "{} of {} {what} differ (OC_BLESS=1 rewrites them; review the diff):\n\n{}",
            self.failures.len(),
            self.checked,
            self.failures.join("\n\n")
        );
    }
}

/// One expectation: `actual` against the file at `path`, rewritten with `OC_BLESS=1`.
#[track_caller]
pub fn expect_file(path: &Path, actual: &str) {
    let mut e = Expectations::new();
    e.check(path, actual);
    e.finish("expectation(s)");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_difference_is_reported_and_a_match_is_not() {
        let dir = Scratch::named("oc-testkit", "expectations");
        let path = dir.join("x.expected");
        std::fs::write(&path, "one\n").unwrap();
        let mut e = Expectations::new();
        e.check(&path, "one\n");
        assert_eq!((e.failures.len(), e.checked()), (0, 1));
        if !blessing() {
            e.check(&path, "two\n");
            assert_eq!(e.failures.len(), 1);
            assert!(e.failures[0].contains("--- expected\none\n--- actual\ntwo\n"));
        }
    }
}
