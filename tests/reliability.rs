//! Issue 16, "no panic, no hang, no lost file, no read outside the project": one test per case
//! found, named after it, driving the real binary. `OC_BIN=/path/to/old/oc cargo test --test
//! reliability` runs the same tests against another build (each fails on the build before the
//! fix). Every command runs under a time limit: a hang is a failure, not a stuck test run.

use std::io::Read;

mod common;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

struct Run {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

fn bin() -> PathBuf {
    std::env::var_os("OC_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_oc")), PathBuf::from)
}

/// Runs `oc` in `dir`, killing it after `secs` (a hang fails the test with what it printed).
fn oc_in(dir: &Path, args: &[&str], secs: u64) -> Run {
    let mut command = Command::new(bin());
    command.args(args);
    run_in(command, dir, args, secs)
}

/// Runs `oc` in `dir` as the user `nobody` (by `runuser`, where the tests run as root), so that
/// a folder or file without permissions is one it may not read or write; `None` where that
/// cannot be done (the test says so and skips that part).
fn oc_as_nobody(dir: &Path, args: &[&str], secs: u64) -> Option<Run> {
    let root = Command::new("id").arg("-u").output().ok().is_some_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let runuser = Command::new("runuser").arg("--help").output().is_ok();
    if !root || !runuser {
        eprintln!("skipped: running oc as another user needs root and runuser");
        return None;
    }
    let mut command = Command::new("runuser");
    command.args(["-u", "nobody", "--"]).arg(bin()).args(args);
    Some(run_in(command, dir, args, secs))
}

fn run_in(mut command: Command, dir: &Path, args: &[&str], secs: u64) -> Run {
    let mut child = command
        .current_dir(dir)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("oc starts");
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        s
    });
    let err_reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = err.read_to_end(&mut s);
        s
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("wait") {
            break status;
        }
        if started.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned();
            panic!("`oc {}` hung for {secs} s (killed); stderr:\n{stderr}", args.join(" "));
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    Run {
        code: status.code(),
        stdout: String::from_utf8_lossy(&reader.join().unwrap_or_default()).into_owned(),
        stderr: String::from_utf8_lossy(&err_reader.join().unwrap_or_default()).into_owned(),
    }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// A fresh folder; with `project`, it holds an `oc.toml` and is a project root.
fn scratch(name: &str, project: bool) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-rel-{}-{name}", std::process::id())));
    if project {
        std::fs::write(dir.join("oc.toml"), "[project]\nname = \"scratch\"\n").unwrap();
    }
    dir
}

fn s(p: &Path) -> &str {
    p.to_str().expect("UTF-8 temp path")
}

/// A scratch project holding a copy of the shipped scenarios and their maps.
fn scenario_project(name: &str) -> oc_testkit::Scratch {
    let dir = scratch(name, true);
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    for entry in std::fs::read_dir(repo().join("scenarios/maps")).unwrap() {
        let p = entry.unwrap().path();
        std::fs::copy(&p, dir.join("maps").join(p.file_name().unwrap())).unwrap();
    }
    std::fs::copy(repo().join("scenarios/ide.oc"), dir.join("ide.oc")).unwrap();
    dir
}

/// The diagnostics of a `--format json` run as (file, code, message).
fn diagnostics(run: &Run) -> Vec<(String, String, String)> {
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {}", run.stdout));
    let text = |d: &serde_json::Value, k: &str| d[k].as_str().unwrap_or_default().to_string();
    v["diagnostics"].as_array().into_iter().flatten().map(|d| (text(d, "file"), text(d, "code"), text(d, "message"))).collect()
}

fn is_exit(run: &Run, code: i32) -> bool {
    run.code == Some(code)
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let status = Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success());
}

// 1
#[test]
fn a_diagnostic_past_column_65535_is_rendered_not_a_panic() {
    let dir = scratch("long-line", false);
    std::fs::write(dir.join("c.oc"), " ".repeat(65_536) + "@\n").unwrap();
    let run = oc_in(&dir, &["check", "c.oc"], 30);
    assert!(is_exit(&run, 1), "exit {:?}\n{}", run.code, run.stderr);
    assert!(run.stderr.contains("c.oc:1:65537"), "{}", run.stderr);
    assert!(run.stderr.contains("shown clipped"), "{}", run.stderr);
    assert!(run.stderr.len() < 4_000, "the snippet is clipped, not 64 kB: {} bytes", run.stderr.len());
    // A map row of 65,541 symbols (ragged), and a TOML error past column 65,535.
    let row = ".".repeat(65_541);
    std::fs::write(dir.join("wide.map.toml"), format!("name = \"W\"\nwidth = 5\nheight = 1\nrows = [\"{row}\"]\n")).unwrap();
    let run = oc_in(&dir, &["check", "wide.map.toml"], 30);
    assert!(is_exit(&run, 1), "exit {:?}\n{}", run.code, run.stderr);
    assert!(run.stderr.contains("oc::atlas::ragged_row"), "{}", run.stderr);
    let name = "x".repeat(65_600);
    std::fs::write(dir.join("late.map.toml"), format!("name = \"{name}\" @\nwidth = 1\nheight = 1\nrows = [\".\"]\n")).unwrap();
    let run = oc_in(&dir, &["check", "late.map.toml"], 30);
    assert!(is_exit(&run, 1), "exit {:?}\n{}", run.code, run.stderr);
    assert!(run.stderr.contains("oc::atlas::toml") && run.stderr.contains("late.map.toml:1:656"), "{}", run.stderr);
    // The JSON report has the exact column.
    let run = oc_in(&dir, &["check", "c.oc", "--format", "json"], 30);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["diagnostics"][0]["column"], 65_537);
}

// 1, in the watcher: such a file appearing must not kill `oc watch`.
#[test]
fn the_watcher_survives_a_diagnostic_past_column_65535() {
    let dir = scratch("long-line-watch", true);
    std::fs::write(dir.join("ok.oc"), "tag Calm on class { crit_bonus += 1 }\n").unwrap();
    let mut child = Command::new(bin())
        .args(["watch", s(&dir), "--no-clear", "--debounce", "20"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut err = child.stderr.take().unwrap();
    let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let sink = log.clone();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = err.read(&mut buf) {
            if n == 0 {
                break;
            }
            sink.lock().unwrap().push_str(&String::from_utf8_lossy(&buf[..n]));
        }
    });
    let wait_for = |needle: &str| {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(20) {
            if log.lock().unwrap().contains(needle) {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    };
    assert!(wait_for("[watch] started"), "{}", log.lock().unwrap());
    std::fs::write(dir.join("c.oc"), " ".repeat(65_536) + "@\n").unwrap();
    let found = wait_for("1 error");
    let alive = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    assert!(found && alive, "watch died or did not report (alive: {alive}):\n{}", log.lock().unwrap());
}

// 2
#[test]
fn a_non_ascii_class_name_is_an_error_not_a_panic() {
    for cmd in ["forecast", "duel"] {
        for name in ["é", "Myrmidön", "€€€"] {
            let run = oc_in(&repo(), &[cmd, "--attacker", name, "--defender", "Fighter"], 30);
            assert!(is_exit(&run, 2), "{cmd} {name}: exit {:?}\n{}", run.code, run.stderr);
            assert!(run.stderr.contains(&format!("no class `{name}`")), "{}", run.stderr);
        }
    }
    let run = oc_in(&repo(), &["forecast", "--attacker", "Myrmidön", "--defender", "Fighter"], 30);
    assert!(run.stderr.contains("did you mean `Myrmidon`?"), "{}", run.stderr);
}

// 3
#[test]
fn simulate_games_are_bounded_and_results_stream() {
    for games in ["18446744073709551615", "1000000000", "10000001", "0"] {
        let run = oc_in(&repo(), &["simulate", "scenarios/ide.oc", "--games", games], 30);
        assert!(is_exit(&run, 2), "--games {games}: exit {:?}\n{}", run.code, run.stderr);
        assert!(run.stderr.contains("--games"), "{}", run.stderr);
    }
    let run = oc_in(&repo(), &["simulate", "scenarios/ide.oc", "--games", "4", "--format", "json"], 120);
    assert!(is_exit(&run, 0), "{}", run.stderr);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(v["games"], 4);
}

// 4
#[test]
fn render_refuses_a_picture_too_large_and_check_warns() {
    let dir = scratch("render-huge", false);
    let rows: Vec<String> = (0..200).map(|_| format!("\"{}\"", ".".repeat(200))).collect();
    let map = format!("name = \"Huge\"\nwidth = 200\nheight = 200\ngrid = 1024\nrows = [\n{}\n]\n", rows.join(",\n"));
    std::fs::write(dir.join("huge.map.toml"), map).unwrap();
    let check = oc_in(&dir, &["check", "huge.map.toml"], 60);
    assert!(check.stderr.contains("oc::atlas::too_large_to_render"), "{}", check.stderr);
    let run = oc_in(&dir, &["render", "huge.map.toml", "-o", "huge.png"], 60);
    assert!(is_exit(&run, 1), "exit {:?}\n{}", run.code, run.stderr);
    assert!(run.stderr.contains("204800x"), "{}", run.stderr);
    assert!(!dir.join("huge.png").exists());
}

// 5
#[cfg(unix)]
#[test]
fn special_files_are_reported_never_read() {
    let dir = scratch("fifo", true);
    std::fs::write(dir.join("good.oc"), "tag Calm on class { crit_bonus += 1 }\n").unwrap();
    mkfifo(&dir.join("pipe.oc"));
    mkfifo(&dir.join("pipe.png"));
    std::os::unix::fs::symlink("/dev/zero", dir.join("zero.png")).unwrap();
    let map = |image: &str| format!("name = \"M\"\nwidth = 1\nheight = 1\ngrid = 70\nimage = \"{image}\"\nrows = [\".\"]\n");
    std::fs::write(dir.join("a.map.toml"), map("pipe.png")).unwrap();
    std::fs::write(dir.join("b.map.toml"), map("zero.png")).unwrap();
    std::fs::write(dir.join("c.map.toml"), map("/dev/zero")).unwrap();
    let run = oc_in(&dir, &["check", ".", "--format", "json"], 20);
    assert!(is_exit(&run, 1), "exit {:?}\n{}", run.code, run.stderr);
    let found = diagnostics(&run);
    let has = |file: &str, code: &str, words: &str| found.iter().any(|(f, c, m)| f == file && c == code && m.contains(words));
    assert!(has("pipe.oc", "oc::file::unreadable", "a FIFO"), "{found:#?}");
    assert!(has("a.map.toml", "oc::atlas::image_missing", "a FIFO"), "{found:#?}");
    assert!(has("b.map.toml", "oc::atlas::image_missing", "outside the project"), "{found:#?}");
    assert!(has("c.map.toml", "oc::atlas::image_missing", "outside the project"), "{found:#?}");
    assert!(!found.iter().any(|(f, ..)| f == "good.oc"), "{found:#?}");
    // A FIFO in the project does not blind the watcher: its first report arrives.
    let (mut child, rx) = common::spawn_lines(&bin(), &["watch", s(&dir), "--no-clear", "--format", "json"]);
    let first = rx.recv_timeout(Duration::from_secs(20));
    let _ = child.kill();
    let _ = child.wait();
    let first = first.expect("the watcher reports despite the FIFO");
    assert!(first.contains("oc::file::unreadable"), "{first}");
}

// 6
#[test]
fn outputs_never_overwrite_sources() {
    let dir = scenario_project("outputs");
    let ide = std::fs::read(dir.join("ide.oc")).unwrap();
    let unchanged = |what: &str| assert_eq!(std::fs::read(dir.join("ide.oc")).unwrap(), ide, "{what} replaced ide.oc");
    for args in [
        vec!["battle", "ide.oc", "--log", "ide.oc"],
        vec!["battle", "ide.oc", "--log", "IDE.OC", "--force"],
        vec!["build", "ide.oc", "-o", "ide.oc", "--force"],
        vec!["simulate", "ide.oc", "--games", "1", "--out", "ide.oc"],
        vec!["matrix", "--out", "ide.oc"],
    ] {
        let run = oc_in(&dir, &args, 120);
        assert!(is_exit(&run, 2), "{args:?}: exit {:?}\n{}", run.code, run.stderr);
        assert!(run.stderr.contains("never"), "{args:?}: {}", run.stderr);
        unchanged(&args.join(" "));
    }
    let map = std::fs::read(dir.join("maps/ide.map.toml")).unwrap();
    for out in ["maps/IDE.MAP.TOML", "maps/ide.map.toml", "OC.TOML"] {
        let run = oc_in(&dir, &["render", "maps/ide.map.toml", "-o", out, "--force"], 60);
        assert!(is_exit(&run, 2), "render -o {out}: exit {:?}\n{}", run.code, run.stderr);
        let run = oc_in(&dir, &["export", "foundry", "maps/ide.map.toml", "-o", out, "--force"], 60);
        assert!(is_exit(&run, 2), "export -o {out}: exit {:?}\n{}", run.code, run.stderr);
    }
    assert_eq!(std::fs::read(dir.join("maps/ide.map.toml")).unwrap(), map);
    // An existing file that is not an earlier output needs --force; an earlier output does not.
    std::fs::write(dir.join("notes.txt"), "my notes").unwrap();
    let run = oc_in(&dir, &["battle", "ide.oc", "--log", "notes.txt"], 120);
    assert!(is_exit(&run, 2) && run.stderr.contains("--force"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(dir.join("notes.txt")).unwrap(), "my notes");
    let run = oc_in(&dir, &["battle", "ide.oc", "--log", "keep.jsonl"], 120);
    assert!(is_exit(&run, 0), "{}", run.stderr);
    let run = oc_in(&dir, &["battle", "ide.oc", "--log", "keep.jsonl", "--seed", "2"], 120);
    assert!(is_exit(&run, 0), "an earlier log is replaced: {}", run.stderr);
    let run = oc_in(&dir, &["battle", "ide.oc", "--log", "notes.txt", "--force"], 120);
    assert!(is_exit(&run, 0), "{}", run.stderr);
    // `-` is standard output.
    let run = oc_in(&dir, &["build", "-o", "-"], 60);
    assert!(is_exit(&run, 0) && run.stdout.contains("\"format_version\""), "{}", run.stderr);
}

// 7
#[cfg(unix)]
#[test]
fn special_files_at_the_output_are_refused() {
    let dir = scratch("special-out", true);
    mkfifo(&dir.join("pipe.json"));
    std::fs::write(dir.join("victim.txt"), "precious").unwrap();
    std::os::unix::fs::symlink(dir.join("victim.txt"), dir.join("link.json")).unwrap();
    // A device is tried only on the build under test: an older build might replace it.
    let device = if std::env::var_os("OC_BIN").is_none() { Some("/dev/full") } else { None };
    for out in ["pipe.json", "link.json"].into_iter().chain(device) {
        let run = oc_in(&dir, &["build", "-o", out], 20);
        assert!(is_exit(&run, 2), "-o {out}: exit {:?}\n{}", run.code, run.stderr);
    }
    let meta = std::fs::symlink_metadata(dir.join("link.json")).unwrap();
    assert!(meta.file_type().is_symlink(), "the link was replaced");
    assert_eq!(std::fs::read_to_string(dir.join("victim.txt")).unwrap(), "precious");
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(dir.join("pipe.json")).unwrap().file_type().is_fifo());
    if Path::new("/dev/full").exists() {
        assert!(std::fs::symlink_metadata("/dev/full").unwrap().file_type().is_char_device(), "/dev/full is still a device");
    }
}

// 8
#[cfg(target_os = "linux")]
#[test]
fn temporary_files_are_unpredictable_and_exclusive() {
    let dir = scratch("tmp-hijack", true);
    std::fs::write(dir.join("victim.txt"), "precious").unwrap();
    // Plant a link at every name a predictable `.NAME.PID.tmp` scheme would use next.
    let last: u32 = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid").ok().and_then(|s| s.trim().parse().ok()).unwrap_or(0);
    for pid in last + 1..last + 400 {
        let _ = std::os::unix::fs::symlink(dir.join("victim.txt"), dir.join(format!(".rules.json.{pid}.tmp")));
    }
    let run = oc_in(&dir, &["build", "-o", "rules.json"], 60);
    assert!(is_exit(&run, 0), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(dir.join("victim.txt")).unwrap(), "precious", "a planted link redirected the write");
    assert!(std::fs::read_to_string(dir.join("rules.json")).unwrap().contains("\"format_version\""));
    // Nothing of ours is left behind.
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".oc-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

// 9
#[cfg(unix)]
#[test]
fn links_out_of_the_project_are_not_followed() {
    let dir = scenario_project("links");
    let outside = scratch("links-outside", false);
    std::fs::write(outside.join("secret.oc"), "tag SECRETSECRET on class { crit_bonus += 1 }\n").unwrap();
    std::fs::write(outside.join("secret.map.toml"), "name = \"SECRETSECRET\"\nwidth = 1\nheight = 1\nrows = [\"@\"]\n").unwrap();
    std::fs::write(outside.join("secret.png"), b"\x89PNG\r\n\x1a\nSECRETSECRET").unwrap();
    std::os::unix::fs::symlink("/etc/passwd", dir.join("pw.oc")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.oc"), dir.join("sec.oc")).unwrap();
    std::fs::write(dir.join("a.oc"), "import \"pw.oc\"\nimport \"sec.oc\"\n").unwrap();
    std::os::unix::fs::symlink(outside.join("secret.map.toml"), dir.join("linked.map.toml")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.png"), dir.join("linked.png")).unwrap();
    std::fs::write(dir.join("img.map.toml"), "name = \"I\"\nwidth = 1\nheight = 1\nimage = \"linked.png\"\nrows = [\".\"]\n")
        .unwrap();
    // A scenario whose map is a link out of the project.
    std::os::unix::fs::symlink(outside.join("secret.map.toml"), dir.join("maps/away.map.toml")).unwrap();
    let scenario = std::fs::read_to_string(dir.join("ide.oc")).unwrap().replace("maps/ide.map.toml", "maps/away.map.toml");
    std::fs::write(dir.join("away.oc"), scenario).unwrap();
    let run = oc_in(&dir, &["check", ".", "--format", "json"], 60);
    let all = format!("{}{}", run.stdout, run.stderr);
    assert!(!all.contains("root:"), "/etc/passwd was read:\n{all}");
    assert!(!all.contains("SECRETSECRET"), "a file outside the project was read:\n{all}");
    let found: Vec<(String, String)> = diagnostics(&run).into_iter().map(|(f, c, m)| (f, format!("{c} {m}"))).collect();
    let outside_named = |file: &str| found.iter().any(|(f, m)| f == file && m.contains("outside"));
    for file in ["pw.oc", "sec.oc", "linked.map.toml", "img.map.toml"] {
        assert!(outside_named(file), "{file}: {found:#?}");
    }
    assert!(found.iter().any(|(f, m)| f == "away.oc" && m.contains("oc::scenario::map")), "{found:#?}");
    // A map named on the command line is confined the same way.
    let run = oc_in(&dir, &["render", "linked.map.toml", "-o", "out.png"], 60);
    assert!(!is_exit(&run, 0) && !run.stderr.contains("SECRETSECRET"), "{}", run.stderr);
}

// 10
#[test]
fn replay_reads_only_inside_the_logs_project() {
    let dir = scenario_project("replay");
    let run = oc_in(&dir, &["battle", "ide.oc", "--seed", "3", "--log", "logs.jsonl"], 120);
    assert!(is_exit(&run, 0), "{}", run.stderr);
    let log = std::fs::read_to_string(dir.join("logs.jsonl")).unwrap();
    assert!(
        log.starts_with("{\"event\":\"source\",\"file\":\"ide.oc\""),
        "paths are stored relative to the root: {}",
        &log[..80]
    );
    // It replays from anywhere: the root is the log's project, not the working directory.
    let run = oc_in(Path::new("/"), &["replay", s(&dir.join("logs.jsonl"))], 120);
    assert!(is_exit(&run, 0), "{}", run.stderr);
    // A log naming a file outside its project is refused before anything is read.
    for file in ["/etc/passwd", "../../../../etc/passwd", "../outside.oc"] {
        let first =
            log.lines().next().unwrap().replacen("\"file\":\"ide.oc\"", &format!("\"file\":{}", serde_json::json!(file)), 1);
        std::fs::write(dir.join("evil.jsonl"), format!("{first}\n")).unwrap();
        let run = oc_in(Path::new("/"), &["replay", s(&dir.join("evil.jsonl"))], 60);
        assert!(is_exit(&run, 2), "{file}: exit {:?}\n{}", run.code, run.stderr);
        assert!(!run.stderr.contains("root:x"), "{}", run.stderr);
    }
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("/etc/passwd", dir.join("pw.oc")).unwrap();
        let first = log.lines().next().unwrap().replacen("\"file\":\"ide.oc\"", "\"file\":\"pw.oc\"", 1);
        std::fs::write(dir.join("evil.jsonl"), format!("{first}\n")).unwrap();
        let run = oc_in(Path::new("/"), &["replay", s(&dir.join("evil.jsonl"))], 60);
        assert!(is_exit(&run, 2) && run.stderr.contains("outside the project"), "{}", run.stderr);
        assert!(!run.stderr.contains("root:x"), "{}", run.stderr);
    }
}

// 11
#[test]
fn the_project_root_comes_from_oc_toml_not_the_working_directory() {
    let dir = scratch("root", false);
    std::fs::create_dir_all(dir.join("x")).unwrap();
    std::fs::write(dir.join("lib.oc"), "tag Calm on class { crit_bonus += 1 }\n").unwrap();
    std::fs::write(dir.join("x/a.oc"), "import \"../../../../../../../../etc/passwd\"\nimport \"../lib.oc\"\n").unwrap();
    // No oc.toml: the root is the file's own folder, whatever the working directory.
    let run = oc_in(Path::new("/"), &["check", s(&dir.join("x/a.oc")), "--format", "json"], 30);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let codes: Vec<&str> = v["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["oc::import::outside_root", "oc::import::outside_root"], "{v}");
    assert!(!run.stdout.contains("root:x") && !run.stderr.contains("root:x"));
    // With an oc.toml one folder up, `../lib.oc` is inside the project; /etc/passwd still is not.
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"r\"\n").unwrap();
    let run = oc_in(Path::new("/"), &["check", s(&dir.join("x/a.oc")), "--format", "json"], 30);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let codes: Vec<&str> = v["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert_eq!(codes, ["oc::import::outside_root"], "{v}");
    // A broken oc.toml is reported with its position; the rest is still checked.
    std::fs::write(dir.join("oc.toml"), "[project]\nrulset = \"r\"\n").unwrap();
    let run = oc_in(Path::new("/"), &["check", s(&dir), "--format", "json"], 30);
    let v: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
    let first = &v["diagnostics"][0];
    assert_eq!((first["code"].as_str(), first["line"].as_u64()), (Some("oc::manifest::field"), Some(2)), "{v}");
    assert!(first["message"].as_str().unwrap().contains("did you mean `ruleset`?"), "{v}");
}

// 12
#[cfg(target_os = "linux")]
#[test]
fn a_file_name_that_is_not_utf8_is_reported_and_the_rest_checked() {
    use std::os::unix::ffi::OsStrExt;
    let dir = scratch("bad-name", true);
    std::fs::write(dir.join(std::ffi::OsStr::from_bytes(b"bad\xff.oc")), "tag Calm on class { crit_bonus += 1 }\n").unwrap();
    std::fs::write(dir.join("typo.oc"), "class Scout { ratings { str D mag E skl C spd B def E res D } wields Bow cost 500 }\n")
        .unwrap();
    let run = oc_in(&dir, &["check", ".", "--format", "json"], 30);
    assert!(is_exit(&run, 1), "exit {:?}\n{}", run.code, run.stderr);
    let found: Vec<(String, String)> = diagnostics(&run).into_iter().map(|(f, c, _)| (f, c)).collect();
    assert!(found.contains(&("bad\u{fffd}.oc".into(), "oc::file::name_not_utf8".into())), "{found:?}");
    assert!(found.contains(&("typo.oc".into(), "oc::name::unknown_weapon_type".into())), "{found:?}");
}

// The caps on user data (README "Limits"): each hit, each a diagnostic or a usage error.
#[test]
fn every_cap_on_user_data_is_reported() {
    let dir = scratch("caps", true);
    // File size: 16 MiB.
    let big = vec![b'/'; (16 << 20) + 1];
    std::fs::write(dir.join("big.oc"), big).unwrap();
    // Map side: 512 tiles.
    std::fs::write(dir.join("wide.map.toml"), "name = \"W\"\nwidth = 513\nheight = 1\nrows = [\".\"]\n").unwrap();
    // Grid: 8 to 1024 pixels.
    std::fs::write(dir.join("grid.map.toml"), "name = \"G\"\nwidth = 1\nheight = 1\ngrid = 4096\nrows = [\".\"]\n").unwrap();
    // Brackets nested 64 deep; expressions of 1024 parts; imports 32 deep.
    std::fs::write(dir.join("deep.oc"), format!("tag T on class {{ crit_bonus += {}1{} }}\n", "(".repeat(70), ")".repeat(70)))
        .unwrap();
    let sum = vec!["1"; 1100].join(" + ");
    std::fs::write(dir.join("long.oc"), format!("tag U on class {{ crit_bonus += {sum} }}\n")).unwrap();
    for i in 0..40 {
        std::fs::write(dir.join(format!("chain{i}.oc")), format!("import \"chain{}.oc\"\n", i + 1)).unwrap();
    }
    std::fs::write(dir.join("chain40.oc"), "\n").unwrap();
    let run = oc_in(&dir, &["check", ".", "--format", "json"], 60);
    let found = diagnostics(&run);
    let has = |file: &str, code: &str| found.iter().any(|(f, c, _)| f == file && c == code);
    assert!(has("big.oc", "oc::file::unreadable"), "{found:#?}");
    assert!(found.iter().any(|(f, _, m)| f == "big.oc" && m.contains("16777217 bytes")), "{found:#?}");
    assert!(has("wide.map.toml", "oc::atlas::too_large"), "{found:#?}");
    assert!(has("grid.map.toml", "oc::atlas::field"), "{found:#?}");
    assert!(has("deep.oc", "oc::syntax::too_deep"), "{found:#?}");
    assert!(found.iter().any(|(f, _, m)| f == "long.oc" && m.contains("at most 1024")), "{found:#?}");
    assert!(found.iter().any(|(_, c, _)| c == "oc::import::too_deep"), "{found:#?}");
}

// Found in review: a map whose regions ask for gigabytes, a rect at the edge of i64.
#[test]
fn region_rectangles_are_bounded() {
    let dir = scratch("rects", true);
    let mut map = String::from("name = \"R\"\nwidth = 2\nheight = 1\nrows = [\"..\"]\n");
    for i in 0..1000 {
        map.push_str(&format!("[[regions]]\nname = \"r{i}\"\nkind = \"label\"\nrect = [0, 0, 512, 512]\n"));
    }
    map.push_str("[[regions]]\nname = \"edge\"\nkind = \"label\"\nrect = [9223372036854775807, 9223372036854775807, 2, 2]\n");
    // Tiles at the edge of i64 (off the map, reported) must not overflow any lint.
    map.push_str("[[regions]]\nname = \"far\"\nkind = \"deployment\"\nside = \"attacker\"\ntiles = [[9223372036854775807, 0], [-9223372036854775808, 0]]\n");
    map.push_str("[[regions]]\nname = \"goal\"\nkind = \"seize\"\nside = \"attacker\"\ntiles = [[9223372036854775807, 9223372036854775807]]\n");
    std::fs::write(dir.join("r.map.toml"), map).unwrap();
    let run = oc_in(&dir, &["check", ".", "--format", "json"], 60);
    assert!(is_exit(&run, 1), "exit {:?}\n{}", run.code, run.stderr);
    let found = diagnostics(&run);
    assert!(found.iter().any(|(_, _, m)| m.contains("runs off the 2 by 1 map")), "{found:#?}");
    assert!(found.len() < 1010, "one error per rectangle, not per tile: {}", found.len());
}

// Found in review: oc.toml's `ruleset` is confined like an import.
#[test]
fn the_manifest_ruleset_stays_inside_the_project() {
    let dir = scratch("manifest-ruleset", false);
    for ruleset in ["/etc/passwd", "../../../../etc/passwd"] {
        std::fs::write(dir.join("oc.toml"), format!("[project]\nruleset = \"{ruleset}\"\n")).unwrap();
        let run = oc_in(&dir, &["forecast", "--attacker", "Myrmidon", "--defender", "Fighter"], 30);
        assert!(is_exit(&run, 2), "{ruleset}: exit {:?}\n{}", run.code, run.stderr);
        assert!(!run.stderr.contains("root:x"), "{}", run.stderr);
    }
}

// Found in review: inputs that are not sources (a map's image) and maps written by import-image.
#[test]
fn force_never_replaces_an_input_or_a_map() {
    let dir = scratch("force-inputs", true);
    std::fs::write(dir.join("m.map.toml"), "name = \"M\"\nwidth = 1\nheight = 1\ngrid = 70\nrows = [\".\"]\n").unwrap();
    // The map area alone: the picture the map names below is of its size (a map with errors
    // is drawn by no command).
    let first = oc_in(&dir, &["render", "m.map.toml", "-o", "bg.png", "--no-legend"], 60);
    assert!(is_exit(&first, 0), "{}", first.stderr);
    std::fs::write(
        dir.join("m.map.toml"),
        "name = \"M\"\nwidth = 1\nheight = 1\ngrid = 70\nimage = \"bg.png\"\nrows = [\".\"]\n",
    )
    .unwrap();
    let before = std::fs::read(dir.join("bg.png")).unwrap();
    let run = oc_in(&dir, &["render", "m.map.toml", "-o", "bg.png", "--force", "--no-legend"], 60);
    assert!(is_exit(&run, 2) && run.stderr.contains("input"), "{}", run.stderr);
    assert_eq!(std::fs::read(dir.join("bg.png")).unwrap(), before);
    let run = oc_in(&dir, &["import-image", "bg.png", "-o", "m.map.toml", "--force"], 60);
    assert!(is_exit(&run, 2), "{}", run.stderr);
    assert!(std::fs::read_to_string(dir.join("m.map.toml")).unwrap().contains("image = \"bg.png\""));
}

// 13, beyond the storm test: a watched subfolder whose file imports from outside it.
#[test]
fn watching_a_subfolder_sees_its_imports_change() {
    let dir = scratch("watch-sub", true);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::write(dir.join("lib.oc"), "tag Calm on class { crit_bonus += 1 }\n").unwrap();
    std::fs::write(
        dir.join("sub/a.oc"),
        "import \"../lib.oc\"\nclass Mule { ratings { str C mag E skl D spd E def B res D } wields Axes tags Calm cost 300 }\n",
    )
    .unwrap();
    let (mut child, rx) =
        common::spawn_lines(&bin(), &["watch", s(&dir.join("sub")), "--no-clear", "--format", "json", "--debounce", "20"]);
    let first = rx.recv_timeout(Duration::from_secs(20)).expect("a first report");
    assert!(first.contains("\"errors\":0"), "{first}");
    std::thread::sleep(Duration::from_millis(300));
    // Break the imported tag's name: the class in sub/ now names an unknown tag.
    std::fs::write(dir.join("lib.oc"), "tag Quiet on class { crit_bonus += 1 }\n").unwrap();
    let mut last = String::new();
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(10) {
        if let Ok(line) = rx.recv_timeout(Duration::from_millis(200)) {
            last = line;
            if last.contains("oc::name::unknown_tag") {
                break;
            }
        }
    }
    let _ = child.kill();
    let _ = child.wait();
    // From the working directory watch ran in: reports name files from there.
    let here = std::env::current_dir().unwrap();
    let check = oc_in(&here, &["check", s(&dir.join("sub")), "--format", "json"], 30);
    let (a, b): (serde_json::Value, serde_json::Value) =
        (serde_json::from_str(&last).unwrap_or_default(), serde_json::from_str(&check.stdout).unwrap());
    assert_eq!(a, b, "watch's last report differs from oc check");
}

// Found in review: a map read with errors was drawn and exported anyway (exit 0).
#[test]
fn a_map_with_errors_is_neither_drawn_nor_exported() {
    let dir = scratch("map-errors", true);
    std::fs::write(dir.join("m.map.toml"), "name = \"M\"\nwidth = 1\nheight = 1\ngrid = 4294967296\nrows = [\".\"]\n").unwrap();
    for args in [&["render", "m.map.toml", "-o", "m.png"][..], &["export", "tiled", "m.map.toml", "-o", "m.tmx"][..]] {
        let run = oc_in(&dir, args, 60);
        assert!(is_exit(&run, 1) && run.stderr.contains("nothing was written"), "{args:?}: exit {:?}\n{}", run.code, run.stderr);
    }
    assert!(!dir.join("m.png").exists() && !dir.join("m.tmx").exists());
}

// Found in review: `oc replay` printed a log's lines as they were (terminal escapes in them
// acted on the terminal), and an edited or longer log failed without a line number.
#[test]
fn replay_says_where_a_log_differs_and_never_echoes_control_characters() {
    let dir = scenario_project("replay-edits");
    let log = dir.join("g.jsonl");
    let run = oc_in(&dir, &["battle", "ide.oc", "--seed", "2", "--log", s(&log)], 120);
    assert!(is_exit(&run, 0), "{}", run.stderr);
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let edit = |name: &str, lines: Vec<String>| {
        let path = dir.join(name);
        std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        oc_in(&dir, &["replay", name], 120)
    };
    let own: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    // A line of terminal escapes in place of the second.
    let mut escaped = own.clone();
    escaped[1] = "\u{1b}]0;pwned\u{7}\u{1b}[2J".to_string();
    let run = edit("esc.jsonl", escaped);
    assert!(is_exit(&run, 1) && run.stderr.contains("esc.jsonl:2:"), "{}", run.stderr);
    assert!(!run.stderr.contains('\u{1b}') && run.stderr.contains("\\u{1b}"), "{}", run.stderr);
    // A number changed far into the long start line: the two lines shown where they differ.
    let mut edited = own.clone();
    let at = own[1].rfind("\"hp\":20").expect("a unit's hit points");
    edited[1] = format!("{}\"hp\":19{}", &own[1][..at], &own[1][at + 7..]);
    let run = edit("hp.jsonl", edited);
    assert!(run.stderr.contains(&format!("hp.jsonl:2: the replay differs here (column {})", at + 6)), "{}", run.stderr);
    assert!(run.stderr.contains("\"hp\":19") && run.stderr.lines().all(|l| l.chars().count() < 400), "{}", run.stderr);
    // A line added at the end: where.
    let mut longer = own.clone();
    longer.push(own[own.len() - 1].clone());
    let run = edit("longer.jsonl", longer);
    assert!(is_exit(&run, 1) && run.stderr.contains(&format!("longer.jsonl:{}:", own.len() + 1)), "{}", run.stderr);
}

// Found in review: `oc fmt` replaced a read-only file (a rename needs only the folder), and
// counted a file it could not write as rewritten.
#[cfg(unix)]
#[test]
fn fmt_leaves_a_read_only_file_and_says_so() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("fmt-read-only", true);
    std::fs::write(dir.join("ro.oc"), "class  A \"A\" { }\n").unwrap();
    std::fs::set_permissions(dir.join("ro.oc"), std::fs::Permissions::from_mode(0o444)).unwrap();
    let run = oc_in(&dir, &["fmt", "ro.oc"], 60);
    assert!(is_exit(&run, 2) && run.stderr.contains("read-only"), "exit {:?}\n{}", run.code, run.stderr);
    assert!(run.stderr.contains("0 rewritten, 1 could not be written"), "{}", run.stderr);
    assert_eq!(std::fs::read_to_string(dir.join("ro.oc")).unwrap(), "class  A \"A\" { }\n");
}

// Found in review: a folder the user may not read was skipped without a word (0 files checked,
// exit 0), and `oc watch` ended at it; `oc fmt` replaced a file the user may not write.
#[cfg(unix)]
#[test]
fn unreadable_folders_are_said_and_unwritable_files_left() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("permissions", true);
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    mode(&dir, 0o777);
    std::fs::create_dir_all(dir.join("locked")).unwrap();
    std::fs::write(dir.join("locked/a.oc"), "class  A \"A\" { }\n").unwrap();
    std::fs::write(dir.join("b.oc"), "class  B \"B\" { }\n").unwrap();
    mode(&dir.join("b.oc"), 0o644);
    mode(&dir.join("locked"), 0o000);
    let runs = (
        oc_as_nobody(&dir, &["check", "locked"], 60),
        oc_as_nobody(&dir, &["check", "."], 60),
        oc_as_nobody(&dir, &["fmt", "b.oc"], 60),
    );
    mode(&dir.join("locked"), 0o755);
    let (Some(named), Some(below), Some(fmt)) = runs else { return };
    assert!(is_exit(&named, 1) && named.stderr.contains("oc::file::unreadable"), "exit {:?}\n{}", named.code, named.stderr);
    assert!(below.stderr.contains("the folder `locked` cannot be read"), "{}", below.stderr);
    assert!(is_exit(&fmt, 2) && fmt.stderr.contains("read-only"), "exit {:?}\n{}", fmt.code, fmt.stderr);
    assert_eq!(std::fs::read_to_string(dir.join("b.oc")).unwrap(), "class  B \"B\" { }\n");
}

// Found in review: a file named with terminal escapes had them drawn raw in reports' headers,
// and `oc doc -o` wrote through a link leading out of the project.
#[cfg(unix)]
#[test]
fn names_with_escapes_are_drawn_harmless_and_doc_sites_stay_inside() {
    let dir = scratch("escape-names", true);
    std::fs::write(dir.join("e\u{1b}[31mRED\u{7}.oc"), "class Y {}\n").unwrap();
    let run = oc_in(&dir, &["check", "."], 60);
    assert!(is_exit(&run, 1) && !run.stderr.contains('\u{1b}') && run.stderr.contains("e\\u{1b}[31mRED"), "{}", run.stderr);
    std::fs::remove_file(dir.join("e\u{1b}[31mRED\u{7}.oc")).unwrap();
    std::fs::write(dir.join("c.oc"), "import \"std:ratings\"\n").unwrap();
    let outside = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(outside.path(), dir.join("out")).unwrap();
    let run = oc_in(&dir, &["doc", "-o", "out/site", "c.oc"], 120);
    assert!(is_exit(&run, 2) && run.stderr.contains("leads outside the project"), "{}", run.stderr);
    assert!(std::fs::read_dir(outside.path()).unwrap().next().is_none());
}

// Found in review: `oc build` and `oc doc` said only the first file they could not read, with
// no code or help.
#[cfg(unix)]
#[test]
fn build_names_every_file_it_cannot_read() {
    let dir = scratch("unreadable-files", true);
    mkfifo(&dir.join("a.oc"));
    mkfifo(&dir.join("b.oc"));
    let run = oc_in(&dir, &["build", "-o", "r.json", "."], 60);
    assert!(is_exit(&run, 1), "exit {:?}\n{}", run.code, run.stderr);
    assert!(
        run.stderr.contains("oc::file::unreadable") && run.stderr.contains("a.oc") && run.stderr.contains("b.oc"),
        "{}",
        run.stderr
    );
    assert!(run.stderr.contains("help:"), "{}", run.stderr);
}

// Found in review: a map's `image = "/etc/passwd"` was "no such file" (joined under the map's
// folder) where `oc export` said it leads outside the project.
#[test]
fn a_map_s_absolute_paths_are_outside_the_project() {
    let dir = scratch("map-absolute", true);
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    for (key, path) in [("image", "/etc/passwd"), ("rules", "/etc/passwd.oc")] {
        let map = format!("name = \"M\"\nwidth = 1\nheight = 1\ngrid = 70\n{key} = \"{path}\"\nrows = [\".\"]\n");
        std::fs::write(dir.join("maps/m.map.toml"), map).unwrap();
        let run = oc_in(&dir, &["check", "."], 60);
        assert!(is_exit(&run, 1) && run.stderr.contains("outside the project"), "{key}: {}", run.stderr);
        assert!(!run.stderr.contains("root:x"), "{}", run.stderr);
    }
}

// Found in review: a folder with an `oc.toml` of its own, below the folder walked, was read as
// the project's files with its own `ignore` not applied (`oc fmt` rewrote what it ignores). It
// stays part of the project walked (one folder, one project: `oc build .` builds it).
#[test]
fn a_nested_oc_toml_s_ignore_applies_below_it() {
    let dir = scratch("nested-ignore", true);
    std::fs::create_dir_all(dir.join("sub/gen")).unwrap();
    std::fs::write(dir.join("sub/oc.toml"), "[project]\nname = \"sub\"\nignore = [\"gen/*.oc\", \"draft.oc\"]\n").unwrap();
    for file in ["sub/gen/g.oc", "sub/draft.oc"] {
        std::fs::write(dir.join(file), "class  B \"B\" { }\n").unwrap();
    }
    std::fs::write(dir.join("sub/kept.oc"), "import \"std:ratings\"\n").unwrap();
    let run = oc_in(&dir, &["fmt", "."], 60);
    assert!(is_exit(&run, 0) && run.stderr.contains("2 skipped by oc.toml's ignore"), "exit {:?}\n{}", run.code, run.stderr);
    for file in ["sub/gen/g.oc", "sub/draft.oc"] {
        assert_eq!(std::fs::read_to_string(dir.join(file)).unwrap(), "class  B \"B\" { }\n", "{file}: {}", run.stderr);
    }
    let run = oc_in(&dir, &["build", "-o", "r.json", "."], 60);
    assert!(is_exit(&run, 0), "exit {:?}\n{}", run.code, run.stderr);
}
