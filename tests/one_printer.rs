//! The binary prints in one place: `src/report.rs` (its `outln!`, `errln!` and their kin, over
//! `report::out` and `report::err`, which end quietly when a reader goes and say why otherwise).
//! No other source of the binary uses `println!`, `eprintln!`, `print!`, `eprint!` or writes to
//! `std::io::stdout()`/`stderr()` itself; and the libraries print nothing at all (`oc-play`, `oc-render`
//! return data). Clap's own `--help` and errors, and the progress bar, print through their
//! crates.

use std::path::{Path, PathBuf};

const PRINTING: &[&str] = &["println!(", "eprintln!(", "print!(", "eprint!(", "stdout().lock", "stderr().lock", "io::stdout()"];

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// `print!(` and its kin as a macro call, not inside a longer name (`outln!(` is fine).
fn prints(line: &str) -> Option<&'static str> {
    let code = line.split("//").next().unwrap_or("");
    PRINTING.iter().copied().find(|p| {
        code.match_indices(p).any(|(at, _)| {
            let before = code[..at].chars().next_back();
            !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        })
    })
}

#[test]
fn only_the_report_module_prints() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&repo.join("src"), &mut files);
    sources(&repo.join("crates/oc-play/src"), &mut files);
    sources(&repo.join("crates/oc-render/src"), &mut files);
    files.sort();
    let mut found = Vec::new();
    for f in &files {
        if f.ends_with("src/report.rs") && f.starts_with(repo.join("src")) {
            continue;
        }
        let text = std::fs::read_to_string(f).unwrap();
        let text = text.split("#[cfg(test)]\nmod tests {").next().unwrap_or("");
        for (n, line) in text.lines().enumerate() {
            if let Some(p) = prints(line) {
                found.push(format!("{}:{}: {p} {}", f.strip_prefix(&repo).unwrap().display(), n + 1, line.trim()));
            }
        }
    }
    assert!(files.iter().any(|f| f.ends_with("src/main.rs")) && files.len() > 20, "read {} files", files.len());
    assert!(found.is_empty(), "printing outside src/report.rs (use outln!/errln!):\n{}", found.join("\n"));
}

#[test]
fn the_reader_finds_a_print() {
    assert_eq!(prints("    println!(\"x\");"), Some("println!("));
    assert_eq!(prints("    outln!(\"x\");"), None);
    assert_eq!(prints("    errln!(\"{e}\"); // not eprintln!(here)"), None);
    assert_eq!(prints("let mut e = std::io::stderr().lock();"), Some("stderr().lock"));
}
