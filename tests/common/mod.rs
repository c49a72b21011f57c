//! Helpers shared by the binary's integration tests (each test file that needs them says
//! `mod common;`).
#![allow(dead_code)]

use std::io::Read;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::Receiver;

/// SplitMix64: small, seeded, the same on every machine.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// True `percent` times in a hundred.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    /// True once in `n` times.
    pub fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// Starts `oc` with `args` and a thread that sends each line it prints on stdout.
pub fn spawn_lines(bin: &std::path::Path, args: &[&str]) -> (Child, Receiver<String>) {
    let mut child = Command::new(bin)
        .args(args)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("oc starts");
    let mut out = child.stdout.take().expect("stdout");
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 1];
        let mut line = Vec::new();
        while let Ok(1) = out.read(&mut buf) {
            if buf[0] == b'\n' {
                let _ = tx.send(String::from_utf8_lossy(&line).into_owned());
                line.clear();
            } else {
                line.push(buf[0]);
            }
        }
    });
    (child, rx)
}

/// The repository's root.
pub fn repo() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `oc` in `dir` without colours.
pub fn oc(dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("oc runs")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The shipped scenario files (`scenarios/*.oc`), by file name, sorted.
pub fn shipped_scenarios() -> Vec<String> {
    let mut files: Vec<String> = std::fs::read_dir(repo().join("scenarios"))
        .expect("scenarios/")
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".oc"))
        .collect();
    files.sort();
    files
}

/// A compiler host that reads project paths under a folder (the repository, a scratch project).
pub struct Disk(pub std::path::PathBuf);

impl oc_compiler::Host for Disk {
    fn read(&mut self, path: &str) -> Result<String, oc_compiler::ReadError> {
        std::fs::read_to_string(self.0.join(path)).map_err(|e| oc_compiler::ReadError::Io(e.to_string()))
    }
}

/// Debian packages a test drives for real, installed with apt-get when `works` says they are
/// missing (an `update` first when the install fails, then once more); `Err(why)` where they
/// cannot be, for the test to print and skip.
pub fn apt_install(packages: &[&str], works: impl Fn() -> bool) -> Result<(), String> {
    if works() {
        return Ok(());
    }
    let apt = |args: &[&str]| Command::new("apt-get").args(args).env("DEBIAN_FRONTEND", "noninteractive").output();
    let install: Vec<&str> = ["install", "-y", "-qq"].iter().chain(packages).copied().collect();
    let names = packages.join(" ");
    match apt(&install) {
        Ok(o) if o.status.success() => {}
        _ => {
            let _ = apt(&["update", "-qq"]);
            match apt(&install) {
                Ok(o) if o.status.success() => {}
                Ok(o) => return Err(format!("apt-get install {names} failed: {}", text(&o.stderr))),
                Err(e) => return Err(format!("apt-get cannot run: {e}")),
            }
        }
    }
    if works() {
        Ok(())
    } else {
        Err(format!("{names} installed but does not run"))
    }
}

/// Every roster of every file in `oc tournament --format json`'s report `v` was played, each
/// with `games` games counted as won, drawn or lost (at least five rosters a file: the mirror
/// matches field five or six).
pub fn assert_every_roster_counted(v: &serde_json::Value, files: &[String], games: u64) {
    for file in files {
        let rows: Vec<&serde_json::Value> =
            v["rosters"].as_array().expect("rosters").iter().filter(|r| r["file"] == file.as_str()).collect();
        assert!(rows.len() >= 5, "{file}: every roster ({})", rows.len());
        for r in rows {
            let a = &r["a"];
            let sum: u64 = ["won", "drawn", "lost"].iter().map(|k| a[*k].as_u64().unwrap_or(0)).sum();
            assert_eq!((a["games"].as_u64(), sum), (Some(games), games), "{file}: {r}");
        }
    }
}
