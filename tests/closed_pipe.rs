//! Issue 43 item 2: a closed pipe is no crash. Every command that prints to standard output is
//! run with its reader closed before it writes (`oc matrix | head -0`): it must end quietly —
//! status 0 (or the verdict it had reached: `oc fmt --check` of a file to format is 1),
//! nothing about a panic, a backtrace or a broken pipe on standard error — and soon.
//! `OC_BIN` runs the same test against another build.

mod common;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    std::env::var_os("OC_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_oc")), PathBuf::from)
}

/// Runs `oc` in `dir` with its standard output's reader closed at once; its status and stderr.
fn closed(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    run_closed(dir, args, false)
}

/// Runs `oc` in `dir` with its standard output's reader closed at once, and its standard
/// error's too where `stderr_too` (`oc ... 2>&1 | true`); its status and what stderr said.
fn run_closed(dir: &Path, args: &[&str], stderr_too: bool) -> (Option<i32>, String) {
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .env("RUST_BACKTRACE", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("oc starts");
    drop(child.stdout.take());
    // Closed here, before the child can write to it, where both readers go.
    let err = child.stderr.take().filter(|_| !stderr_too);
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        if let Some(mut err) = err {
            let _ = err.read_to_end(&mut s);
        }
        String::from_utf8_lossy(&s).into_owned()
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`oc {}` went on for 300 s with its reader gone", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    (status.code(), reader.join().unwrap_or_default())
}

/// A project with a shipped scenario and its map, a Tiled map, a one-pixel-per-tile picture, a
/// battle log and a badly laid out file: every input the printing commands read.
fn project(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-closed-pipe-{name}-{}", std::process::id())));
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"pipes\"\nignore = [\"broken\"]\n").unwrap();
    std::fs::create_dir_all(dir.join("broken")).unwrap();
    std::fs::write(dir.join("broken/bad.oc"), "class Bad { ratings { str Q } }\n").unwrap();
    let repo = common::repo();
    std::fs::copy(repo.join("scenarios/ide.oc"), dir.join("ide.oc")).unwrap();
    std::fs::copy(repo.join("scenarios/maps/ide.map.toml"), dir.join("maps/ide.map.toml")).unwrap();
    std::fs::write(
        dir.join("ugly.oc"),
        "class Ugly \"Ugly\" {ratings { str C mag E skl C spd C def C res C }\nwields Swords cost 800}\n",
    )
    .unwrap();
    let oc = |args: &[&str]| {
        let out = common::oc(&dir, args);
        assert!(out.status.success(), "oc {}: {}", args.join(" "), common::text(&out.stderr));
    };
    oc(&["export", "tiled", "maps/ide.map.toml", "-o", "ide.tmx"]);
    oc(&["battle", "ide.oc", "--seed", "1", "--log", "ide.jsonl"]);
    // One pixel per tile, with a legend for its one colour.
    image::RgbImage::from_pixel(3, 2, image::Rgb([0x9c, 0xc9, 0x6b])).save(dir.join("tiles.png")).unwrap();
    std::fs::write(dir.join("tiles.toml"), "\"#9cc96b\" = \"Plains\"\n").unwrap();
    let mirror = repo.join("tests/fixtures/mirror");
    // The fixtures beside the mirror field (its `fields/` folder is not needed here).
    for entry in std::fs::read_dir(&mirror).unwrap() {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_file() {
            std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
        }
    }
    dir
}

#[test]
fn every_printing_command_ends_quietly_when_its_reader_closes() {
    let dir = project("quiet");
    let commands: &[&[&str]] = &[
        &["check", ".", "--format", "json"],
        &["check", ".", "--format", "sarif"],
        &["build", "ide.oc", "-o", "-"],
        &["explain", "oc::name::unknown_tag"],
        &["explain", "--list"],
        &["completions", "bash"],
        &["forecast", "--attacker", "Fighter", "--defender", "Knight"],
        &["duel", "--attacker", "Fighter", "--defender", "Knight", "--seed", "1"],
        &["matrix"],
        &["balance", "--duels", "2"],
        &["battle", "ide.oc", "--seed", "2"],
        &["replay", "ide.jsonl"],
        &["simulate", "ide.oc", "--games", "100", "--seed", "1"],
        &["simulate", "ide.oc", "--games", "4", "--seed", "1", "--format", "json"],
        &["tune", "ide.oc", "--knob", "rounds", "--games", "20"],
        &["fairness", "ide.oc", "--games", "2"],
        &["tournament", "ratings.oc", "--games", "1"],
        &["explain-scenario", "ide.oc"],
        &["army", "scout", "ide.oc", "--name", "Refugees"],
        &["army", "outfit", "ide.oc", "ide.oc", "--name", "Refugees"],
        &["render", "maps/ide.map.toml", "-o", "-"],
        &["export", "foundry", "maps/ide.map.toml"],
        &["export", "uvtt", "maps/ide.map.toml"],
        &["import", "tiled", "ide.tmx"],
        &["import-image", "tiles.png", "--legend", "tiles.toml"],
        // The watcher's first report goes to a reader that has gone: it stops watching.
        &["watch", ".", "--format", "json"],
    ];
    let mut failures = Vec::new();
    let verdicts: &[(&[&str], i32)] =
        &[(&["fmt", "--check", "ugly.oc"], 1), (&["check", "broken/bad.oc", "--format", "json"], 1)];
    for (args, want) in verdicts.iter().copied().chain(commands.iter().map(|a| (*a, 0))) {
        let (code, stderr) = closed(&dir, args);
        let noisy = ["panicked", "backtrace", "Broken pipe", "failed printing"].iter().find(|w| stderr.contains(*w));
        if code != Some(want) || noisy.is_some() {
            failures.push(format!("oc {}: exit {code:?}\n{stderr}", args.join(" ")));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{} command(s) did not end quietly:\n\n{}", failures.len(), failures.join("\n\n"));
}

/// A failing command ends with its failure when nobody reads what it says (`oc render BAD 2>&1
/// | true`): the status it has with a reader, never 0.
#[test]
fn a_failure_keeps_its_status_when_nobody_reads_it() {
    let dir = project("failing");
    std::fs::write(dir.join("maps/garbage.map.toml"), "this is not a map\n").unwrap();
    let cases: &[&[&str]] = &[
        &["render", "maps/garbage.map.toml", "-o", "x.png"],
        &["build", "broken/bad.oc", "-o", "-"],
        &["forecast", "--attacker", "Paladinn", "--defender", "Fighter"],
        &["battle", "nonexist.oc"],
        &["simulate", "."],
        &["balance", "nonexist"],
    ];
    let mut failures = Vec::new();
    for args in cases {
        let read = common::oc(&dir, args).status.code();
        let (gone, _) = run_closed(&dir, args, true);
        if read.is_none_or(|c| c == 0) || gone != read {
            failures.push(format!("oc {}: {read:?} read, {gone:?} unread", args.join(" ")));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A reader that is there but cannot take what is written (a full disk: `> /dev/full`) is a
/// failure, never success: a shard's part lost so would be merged without (`oc simulate
/// --shard 1/2 > part.json` exited 0 on a full disk).
#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_on_standard_output_is_a_failure() {
    if !Path::new("/dev/full").exists() {
        eprintln!("skipped: this machine has no /dev/full");
        return;
    }
    let dir = project("full");
    let commands: &[&[&str]] = &[
        &["explain", "oc::name::unknown_tag"],
        &["explain", "--list"],
        &["completions", "bash"],
        &["simulate", "ide.oc", "--games", "2", "--seed", "1"],
        &["simulate", "ide.oc", "--games", "2", "--seed", "1", "--shard", "1/2"],
        &["simulate", "ide.oc", "--games", "2", "--seed", "1", "--format", "json"],
        &["fairness", "ide.oc", "--games", "2"],
    ];
    let mut failures = Vec::new();
    for args in commands {
        let full = std::fs::OpenOptions::new().write(true).open("/dev/full").expect("/dev/full opens");
        let out = Command::new(bin()).args(*args).current_dir(&dir).stdout(full).output().expect("oc runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if out.status.code() != Some(1) || !stderr.contains("failed printing to stdout") {
            failures.push(format!("oc {}: exit {:?}\n{stderr}", args.join(" "), out.status.code()));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
