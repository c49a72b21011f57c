//! `oc fmt` end to end: `--check` on an unformatted project shows diffs and exits 1 without
//! writing; `oc fmt` then formats it (only the files that change, atomically); a file with a
//! syntax error is left byte for byte; links out of the project and ignored paths are not touched.

use std::path::Path;
use std::process::{Command, Output};

fn oc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("oc runs")
}

fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-fmt-{}-{name}", std::process::id())));
    std::fs::write(dir.join("oc.toml"), "[project]\nignore = [\"drafts\"]\n").unwrap();
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

const MESSY: &str = "tag Swift on class{\n  when self.spd>=3 {movement+=1}\n}\n\n\n\nclass Scout \"Scout\" {\nratings { str D mag E skl C spd A def E res D }\nwields Swords tags Swift cost 700\n}\n";
const TIDY: &str = "tag Swift on class {\n    when self.spd >= 3 { movement += 1 }\n}\n\nclass Scout \"Scout\" {\n    ratings { str D mag E skl C spd A def E res D }\n    wields Swords tags Swift cost 700\n}\n";
const BROKEN: &str = "class Knight {  ratings { str B mag } }\n";
const CLEAN: &str = "tag Calm on class\n";

#[test]
fn check_shows_a_diff_then_fmt_fixes_and_leaves_broken_files_alone() {
    let dir = scratch("project");
    std::fs::create_dir_all(dir.join("rules")).unwrap();
    std::fs::create_dir_all(dir.join("drafts")).unwrap();
    std::fs::write(dir.join("rules/messy.oc"), MESSY).unwrap();
    std::fs::write(dir.join("rules/broken.oc"), BROKEN).unwrap();
    std::fs::write(dir.join("clean.oc"), CLEAN).unwrap();
    std::fs::write(dir.join("drafts/ignored.oc"), MESSY).unwrap();
    let clean_modified = std::fs::metadata(dir.join("clean.oc")).unwrap().modified().unwrap();

    // --check: a diff on stdout, the syntax error on stderr, exit 1, nothing written.
    let out = oc(&dir, &["fmt", "--check"]);
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stdout.starts_with("--- a/rules/messy.oc\n+++ b/rules/messy.oc\n@@ -1,10 +1,8 @@\n"), "{stdout}");
    assert!(
        stdout
            .contains("\n-  when self.spd>=3 {movement+=1}\n+tag Swift on class {\n+    when self.spd >= 3 { movement += 1 }\n"),
        "{stdout}"
    );
    assert!(stdout.contains("\n \n-\n-\n class Scout"), "runs of blank lines become one: {stdout}");
    assert!(!stdout.contains("clean.oc") && !stdout.contains("broken.oc") && !stdout.contains("ignored"), "{stdout}");
    assert!(stderr.contains("oc::syntax::unexpected") && stderr.contains("rules/broken.oc"), "{stderr}");
    assert!(stderr.contains("checked 3 files (1 skipped by oc.toml's ignore) in "), "{stderr}");
    assert!(stderr.contains(": 1 needs formatting (run `oc fmt`), 1 could not be formatted\n"), "{stderr}");
    assert_eq!(std::fs::read_to_string(dir.join("rules/messy.oc")).unwrap(), MESSY);

    // fmt: the messy file is rewritten, the broken one is byte-identical, exit 1 for it.
    let out = oc(&dir, &["fmt"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(out.stdout.is_empty(), "{}", text(&out.stdout));
    assert!(
        stderr.contains("formatted rules/messy.oc\n") && stderr.contains(": 1 rewritten, 1 could not be formatted\n"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(dir.join("rules/messy.oc")).unwrap(), TIDY);
    assert_eq!(std::fs::read(dir.join("rules/broken.oc")).unwrap(), BROKEN.as_bytes());
    assert_eq!(std::fs::read_to_string(dir.join("drafts/ignored.oc")).unwrap(), MESSY);
    // An already formatted file is not rewritten at all.
    assert_eq!(std::fs::metadata(dir.join("clean.oc")).unwrap().modified().unwrap(), clean_modified);
    let leftovers: Vec<_> = std::fs::read_dir(dir.join("rules")).unwrap().filter_map(|e| e.ok()).map(|e| e.file_name()).collect();
    assert_eq!(leftovers.len(), 2, "temporary files left behind: {leftovers:?}");

    // Once the broken file is fixed, everything is formatted and --check passes.
    std::fs::write(dir.join("rules/broken.oc"), "class Knight { ratings { str B mag E } }\n").unwrap();
    let out = oc(&dir, &["fmt", "--check", "."]);
    assert_eq!(out.status.code(), Some(0), "{}{}", text(&out.stdout), text(&out.stderr));
    assert!(out.stdout.is_empty());
    assert!(text(&out.stderr).contains(": all formatted\n"), "{}", text(&out.stderr));

    // A path named on the command line is formatted even below an ignored folder.
    let out = oc(&dir, &["fmt", "drafts/ignored.oc"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(std::fs::read_to_string(dir.join("drafts/ignored.oc")).unwrap(), TIDY);
}

#[cfg(unix)]
#[test]
fn links_out_of_the_project_are_never_written_through() {
    let dir = scratch("links");
    let outside = scratch("links-outside");
    std::fs::write(outside.join("theirs.oc"), MESSY).unwrap();
    std::os::unix::fs::symlink(outside.join("theirs.oc"), dir.join("theirs.oc")).unwrap();
    // A link inside the project is formatted once, through its target, and stays a link.
    std::fs::write(dir.join("mine.oc"), MESSY).unwrap();
    std::os::unix::fs::symlink("mine.oc", dir.join("alias.oc")).unwrap();
    let out = oc(&dir, &["fmt"]);
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("oc::file::outside_project") && stderr.contains("theirs.oc"), "{stderr}");
    assert_eq!(std::fs::read_to_string(outside.join("theirs.oc")).unwrap(), MESSY);
    assert_eq!(std::fs::read_to_string(dir.join("mine.oc")).unwrap(), TIDY);
    assert!(std::fs::symlink_metadata(dir.join("alias.oc")).unwrap().file_type().is_symlink());
    assert_eq!(stderr.matches("formatted alias.oc").count() + stderr.matches("formatted mine.oc").count(), 1, "{stderr}");
}

#[test]
fn a_missing_path_is_a_usage_error() {
    let dir = scratch("missing");
    let out = oc(&dir, &["fmt", "--check", "nowhere"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("nowhere: no such file or directory"));
}
