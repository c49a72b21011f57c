//! Issue 43 item 13, "memory and leftovers": a killed write's temporary files are cleared by a
//! later run (only oc's own, only stale ones), a write through a folder link out of the project
//! is refused, no diagnostic prints where a link outside the project leads, refusals read
//! right, and checking many files holds no model per file.

mod common;
use common::{oc, repo, text};
use std::path::Path;
use std::time::{Duration, SystemTime};

fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-leftovers-{}-{name}", std::process::id())));
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"leftovers\"\n").unwrap();
    std::fs::copy(repo().join("scenarios/maps/ide.map.toml"), dir.join("ide.map.toml")).unwrap();
    dir
}

fn aged(path: &Path, age: Duration) {
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    file.set_modified(SystemTime::now() - age).unwrap();
}

#[test]
fn a_killed_writes_temporary_file_is_removed_by_the_next_write() {
    let dir = scratch("tmp");
    let stale = dir.join(".oc-Ab12Cd.tmp");
    let fresh = dir.join(".oc-Xy34Zw.tmp");
    let other = dir.join(".oc-notours.tmp");
    let linked = dir.join(".oc-Lk56Mn.tmp");
    for p in [&stale, &fresh, &other] {
        std::fs::write(p, vec![0u8; 4096]).unwrap();
    }
    std::fs::write(dir.join("target.txt"), "kept").unwrap();
    std::os::unix::fs::symlink("target.txt", &linked).unwrap();
    aged(&stale, Duration::from_secs(3 * 3600));
    aged(&other, Duration::from_secs(3 * 3600));
    let run = oc(&dir, &["render", "ide.map.toml", "-o", "ide.png"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
    assert!(!stale.exists(), "the stale temporary file of a killed write is still there");
    assert!(fresh.exists(), "a temporary file of a write in progress was removed");
    assert!(other.exists(), "a file not named like oc's temporary files was removed");
    assert!(std::fs::symlink_metadata(&linked).is_ok(), "a link was removed");
    assert_eq!(std::fs::read_to_string(dir.join("target.txt")).unwrap(), "kept");
}

#[test]
fn a_write_through_a_folder_link_out_of_the_project_is_refused() {
    let dir = scratch("link");
    let outside = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-leftovers-{}-outside", std::process::id())));
    std::os::unix::fs::symlink(&outside, dir.join("out")).unwrap();
    let run = oc(&dir, &["render", "ide.map.toml", "-o", "out/ide.png"]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("a folder on the way is a link that leads outside the project"), "{err}");
    assert!(!err.contains(outside.to_str().unwrap()), "where the link leads is printed: {err}");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0, "something was written outside the project");
    // A folder link inside the project is fine.
    std::fs::create_dir_all(dir.join("pictures")).unwrap();
    std::os::unix::fs::symlink(dir.join("pictures"), dir.join("pics")).unwrap();
    let run = oc(&dir, &["render", "ide.map.toml", "-o", "pics/ide.png"]);
    assert!(run.status.success(), "{}", text(&run.stderr));
}

#[test]
fn no_diagnostic_prints_where_a_link_out_of_the_project_leads() {
    let dir = scratch("secret");
    let beside = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-leftovers-{}-beside", std::process::id())));
    let secret = beside.join("secret.oc");
    std::fs::write(&secret, "class Secret {}\n").unwrap();
    std::os::unix::fs::symlink(&secret, dir.join("secret.oc")).unwrap();
    std::fs::write(dir.join("a.oc"), "import \"secret.oc\"\n").unwrap();
    for args in [&["check", "."][..], &["check", ".", "--format", "json"], &["fmt", "--check", "secret.oc"]] {
        let run = oc(&dir, args);
        let all = format!("{}{}", text(&run.stdout), text(&run.stderr));
        assert_ne!(run.status.code(), Some(0), "{all}");
        assert!(all.contains("outside the project"), "{all}");
        assert!(!all.contains(secret.to_str().unwrap()), "oc {}: where the link leads is printed:\n{all}", args.join(" "));
    }
}

#[test]
fn a_refusal_says_which_command_drew_the_picture() {
    let dir = scratch("words");
    std::fs::write(dir.join("mine.png"), b"\x89PNG\r\n\x1a\nmine").unwrap();
    let run = oc(&dir, &["render", "ide.map.toml", "-o", "mine.png"]);
    let err = text(&run.stderr);
    assert_eq!(run.status.code(), Some(2), "{err}");
    assert!(err.contains("mine.png exists and is not a picture `oc render` drew"), "{err}");
    assert!(!err.contains("written by oc"), "{err}");
}

/// Checking many files keeps no compiled model per file: its peak memory stays far below one
/// model (~220 KB, the standard library's roster) per file. Measured with `/usr/bin/time`
/// where the system has it.
#[test]
fn checking_many_files_holds_no_model_per_file() {
    if !Path::new("/usr/bin/time").exists() {
        eprintln!("skipped: /usr/bin/time is not installed here");
        return;
    }
    let dir = scratch("many");
    let files = 2000;
    for i in 0..files {
        let body = format!("class C{i} \"Class {i}\" {{\n    ratings {{ str C mag E skl C spd C def C res C }}\n    wields Swords\n    cost 800\n}}\n");
        std::fs::write(dir.join(format!("c{i}.oc")), body).unwrap();
    }
    let out = std::process::Command::new("/usr/bin/time")
        .args(["-f", "peak %M"])
        .arg(env!("CARGO_BIN_EXE_oc"))
        .args(["check", "."])
        .current_dir(&dir)
        .output()
        .unwrap();
    let err = text(&out.stderr);
    assert!(out.status.success(), "{err}");
    let kb: u64 = err.lines().find_map(|l| l.strip_prefix("peak ")).and_then(|k| k.trim().parse().ok()).expect("a peak");
    // One model per file was ~220 KB each: 2,000 files held ~450 MB.
    assert!(kb < 200_000, "oc check of {files} files peaked at {kb} KB");
}
