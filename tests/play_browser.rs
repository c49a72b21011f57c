//! `oc play` in a real browser: headless Debian `chromium` (installed with apt-get when missing)
//! driven by `playwright-core` (installed from npm under the target folder when missing) clicks
//! through a whole small battle as a player — select, move, read the forecast, attack, end the
//! turn — to the victory line (`tests/play_browser.js`), the page opened again after two turns
//! listing the game so far. The game's log then replays with
//! `oc replay`, and the replay page was written. The screenshot of the forecast window is kept
//! in `docs/images/play.png` (written when missing, or with `OC_BLESS=1`). Where chromium,
//! node or npm cannot be had, the test says why and is skipped (`OC_REQUIRE_NODE=1` makes that
//! a failure). A second game (`tests/play_browser_steps.js`) stages a formation before the move,
//! takes it back and stages it again, divides a unit, and reads a mixed unit's bodies. A third
//! (`tests/play_browser_keys.js`) plays the first battle with the keyboard alone, and a fourth
//! (`tests/play_browser_aims.js`) reads what the page offers a unit (Seize, a heal, an item).

mod common;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn skip(why: &str) {
    if std::env::var_os("OC_REQUIRE_NODE").is_some_and(|v| v != "0") {
        panic!("OC_REQUIRE_NODE is set, but: {why}");
    }
    eprintln!("skipped: {why}");
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).trim().to_string()
}

/// Debian's `chromium`, installed with apt-get when missing; why not, where it cannot be.
fn chromium() -> Result<PathBuf, String> {
    let find = || {
        ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
            .iter()
            .map(PathBuf::from)
            .find(|p| Command::new(p).arg("--version").output().is_ok_and(|o| o.status.success()))
    };
    common::apt_install(&["chromium"], || find().is_some())?;
    find().ok_or_else(|| "chromium was installed but does not run".to_string())
}

/// `playwright-core` under the target folder, installed from npm when missing: its node_modules.
fn playwright() -> Result<PathBuf, String> {
    // The tests here install it once between them, not at the same time.
    static INSTALL: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let _once = INSTALL.lock().unwrap_or_else(|e| e.into_inner());
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("js");
    let modules = dir.join("node_modules");
    if modules.join("playwright-core/package.json").is_file() {
        return Ok(modules);
    }
    Command::new("node").arg("--version").output().map_err(|e| format!("node cannot run: {e}"))?;
    std::fs::create_dir_all(&dir).map_err(|e| e.to_string())?;
    let out = Command::new("npm")
        .args(["install", "--no-audit", "--no-fund", "--silent", "--prefix"])
        .arg(&dir)
        .arg("playwright-core")
        .env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        .output()
        .map_err(|e| format!("npm cannot run: {e}"))?;
    if !out.status.success() || !modules.join("playwright-core/package.json").is_file() {
        return Err(format!("npm install playwright-core failed: {}", text(&out.stderr)));
    }
    Ok(modules)
}

/// Waits for the server to stop by itself (the page asked it to quit), else stops it by its pid.
fn wait_or_kill(child: &mut std::process::Child) -> bool {
    let until = Instant::now() + Duration::from_secs(20);
    while Instant::now() < until {
        if let Ok(Some(status)) = child.try_wait() {
            return status.success();
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = child.kill();
    let _ = child.wait();
    false
}

/// A game served by `oc play` (`scenario`, `seed`, the greedy AI, a log, and with `html` a
/// replay page written at the end) and played in headless chromium by the node script `script`:
/// the script's report (its last line, JSON), whether the server stopped by itself, and the
/// game's folder, log and screenshot. `None` where chromium or playwright-core is missing (the
/// test says so and is skipped).
struct Played {
    report: serde_json::Value,
    stopped: bool,
    dir: tempfile::TempDir,
    log: PathBuf,
    shot: PathBuf,
}

fn play_in_chromium(scenario: &str, seed: &str, script: &str, html: bool) -> Option<Played> {
    let chromium = match chromium() {
        Ok(c) => c,
        Err(why) => {
            skip(&format!("no headless chromium: {why}"));
            return None;
        }
    };
    let modules = match playwright() {
        Ok(m) => m,
        Err(why) => {
            skip(&why);
            return None;
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("game.log");
    let mut command = Command::new(env!("CARGO_BIN_EXE_oc"));
    command.current_dir(repo()).args(["play", scenario, "--seed", seed, "--ai", "greedy", "--log"]).arg(&log);
    if html {
        command.arg("--html").arg(dir.path().join("replay.html"));
    }
    let mut server = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let mut first = String::new();
    BufReader::new(server.stdout.take().unwrap()).read_line(&mut first).unwrap();
    let url = first
        .split_whitespace()
        .find(|w| w.starts_with("http://127.0.0.1:"))
        .unwrap_or_else(|| panic!("no address in {first:?}"));
    assert!(url.contains("/?token="), "{url}");
    let shot = dir.path().join("play.png");
    let out = Command::new("node")
        .arg(repo().join(script))
        .arg(url)
        .arg(&shot)
        .env("NODE_PATH", &modules)
        .env("OC_CHROMIUM", &chromium)
        .output()
        .unwrap();
    let stopped = wait_or_kill(&mut server);
    let report = text(&out.stdout);
    assert!(out.status.success(), "the browser game failed: {report}\n{}", text(&out.stderr));
    eprintln!("{report}");
    let report = serde_json::from_str(report.lines().last().unwrap_or("{}")).unwrap();
    Some(Played { report, stopped, dir, log, shot })
}

/// `oc replay` of a game's log plays it again identically.
fn replays_identically(log: &Path) {
    let replay = Command::new(env!("CARGO_BIN_EXE_oc"))
        .current_dir(repo())
        .arg("replay")
        .arg(log)
        .arg("--project")
        .arg(repo())
        .output()
        .unwrap();
    assert!(replay.status.success(), "{}", text(&replay.stderr));
    assert!(text(&replay.stderr).contains("identical"));
}

#[test]
fn a_player_clicks_through_a_whole_battle_in_chromium() {
    let Some(p) = play_in_chromium("crates/oc-play/tests/play/solo.oc", "3", "tests/play_browser.js", true) else { return };
    let r = &p.report;
    // Seed 3 and this player's choices give the attacker the win in round 3.
    // Against the AI the player is told they won (a loss was shown as green as a win).
    assert!(r["victory"].as_str().is_some_and(|v| v.starts_with("You win. The attacker (Rider) wins")), "{r}");
    assert!(r["forecasts"].as_u64() >= Some(1) && r["attacks"].as_u64() >= Some(1), "{r}");
    assert!(r["moves"].as_u64() >= Some(1), "{r}");
    // Opened again after two turns, the page listed the lines it had (it listed the last turn's alone).
    assert!(r["reloaded"][0].as_u64() > Some(0) && r["reloaded"][0] == r["reloaded"][1], "{r}");
    assert!(p.stopped, "oc play stops when the page quits it");
    // The game's log replays, and the replay page was written at the end.
    replays_identically(&p.log);
    assert!(std::fs::read_to_string(p.dir.path().join("replay.html")).unwrap().contains("oc replay page"));
    keep_screenshot(&p.shot);
}

/// The same battle with the keyboard alone (a review found no way to play without a mouse: the
/// board took no focus and no key): Tab reaches the board, the arrow keys walk a cursor that is
/// read out, Enter selects, moves and asks the forecast, whose Attack button takes the focus,
/// and the focus comes back to the board after each turn.
#[test]
fn a_player_plays_a_whole_battle_with_the_keyboard_in_chromium() {
    let Some(p) = play_in_chromium("crates/oc-play/tests/play/solo.oc", "3", "tests/play_browser_keys.js", false) else { return };
    let r = &p.report;
    assert!(r["victory"].as_str().is_some_and(|v| v.contains("wins in round")), "{r}");
    assert!(r["attacks"].as_u64() >= Some(1) && r["moves"].as_u64() >= Some(1), "{r}");
    assert!(r["announced"].as_u64() >= Some(1), "the cursor's square is read out: {r}");
    assert!(p.stopped, "oc play stops when the page quits it");
    replays_identically(&p.log);
}

/// The screenshot the guide shows: written when missing, or rewritten with `OC_BLESS=1`.
fn keep_screenshot(shot: &Path) {
    let kept = repo().join("docs/images/play.png");
    let bless = std::env::var_os("OC_BLESS").is_some_and(|v| v != "0");
    if bless || !kept.exists() {
        std::fs::copy(shot, &kept).unwrap();
    }
    assert!(std::fs::metadata(&kept).unwrap().len() > 10_000);
}

/// Steps before the move, a unit divided off and a mixed unit, clicked through on the page: a
/// formation staged (Battlestorm's "3. Change Formation", before "4. Move") is listed and moves
/// the unit a square farther, undo takes it back, and the turn plays it with the move; the unit
/// divided off is drawn; the mixed unit reads "Spears (4 of 4) + Fenth", its bar at most full.
#[test]
fn a_player_stages_a_formation_before_the_move_and_divides_in_chromium() {
    let Some(p) = play_in_chromium("crates/oc-play/tests/play/steps/drill.oc", "2", "tests/play_browser_steps.js", false) else {
        return;
    };
    let r = &p.report;
    assert!(r["staged"].as_str().is_some_and(|s| s.contains("OpenOrder")), "{r}");
    assert!(r["played"].as_str().is_some_and(|s| s.contains("OpenOrder")), "{r}");
    assert_eq!(r["divided"], true, "{r}");
    assert!(p.stopped, "oc play stops when the page quits it");
    // The game's log, steps and the unit divided off included, replays.
    replays_identically(&p.log);
    assert!(std::fs::read_to_string(&p.log).unwrap().contains("\"before\":["));
}

/// What the page offers a unit, clicked through (`tests/play_browser_aims.js`; a review was
/// offered "Seize" off the objective, a heal with nobody in reach, and played a heal on a unit at
/// full HP for 0): Seize only on the throne; the priest's heal on Ephraim at full HP, and its
/// Vulnerary at full HP, say they heal nothing, Ephraim marked apart; a click on a unit the heal
/// cannot be taken on is refused on the page with no turn played; beside the hurt Garcia the heal
/// marks him and a click on him plays it.
#[test]
fn the_page_offers_only_what_the_rules_take_in_chromium() {
    let Some(p) = play_in_chromium("crates/oc-play/tests/play/aims/aims.oc", "6", "tests/play_browser_aims.js", false) else {
        return;
    };
    let r = &p.report;
    assert_eq!((&r["seizeOff"], &r["seizeOn"]), (&serde_json::json!(false), &serde_json::json!(true)), "{r}");
    for label in ["healLabel", "itemLabel"] {
        assert!(r[label].as_str().is_some_and(|l| l.ends_with("(full HP: heals nothing)")), "{r}");
    }
    assert_eq!(r["idleMarked"], true, "{r}");
    assert!(r["aiming"].as_str().is_some_and(|l| l.contains("Ephraim (at full HP: it heals nothing)")), "{r}");
    assert!(r["refusal"].as_str().is_some_and(|l| l.contains("Bone is not a target of Heal")), "{r}");
    assert_eq!((&r["nothingPlayed"], &r["hurtMarked"]), (&serde_json::json!(true), &serde_json::json!(true)), "{r}");
    assert!(r["healed"].as_str().is_some_and(|l| l.contains("heals Garcia")), "{r}");
    assert!(p.stopped, "oc play stops when the page quits it");
    replays_identically(&p.log);
}

/// A game quit before its end (`POST /api/quit`, as the page's Quit does) tells the player the
/// command that continues it, with its log (it said "continue it with --resume" alone: a
/// newcomer review), and that command continues it. No browser: the request is sent over TCP.
#[test]
fn a_game_quit_early_says_the_command_that_continues_it() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("game.log");
    let serve = |args: &[&str]| {
        let mut server = Command::new(env!("CARGO_BIN_EXE_oc"))
            .current_dir(repo())
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut first = String::new();
        BufReader::new(server.stdout.take().unwrap()).read_line(&mut first).unwrap();
        let url = first.split_whitespace().find(|w| w.starts_with("http://127.0.0.1:")).unwrap().to_string();
        let (address, token) = url.trim_start_matches("http://").split_once("/?token=").unwrap();
        let mut tcp = std::net::TcpStream::connect(address).unwrap();
        let request = format!(
            "POST /api/quit HTTP/1.1\r\nHost: {address}\r\nX-OC-Token: {token}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
        );
        tcp.write_all(request.as_bytes()).unwrap();
        let mut answer = String::new();
        let _ = tcp.read_to_string(&mut answer);
        assert!(answer.contains("\"quit\":true"), "{answer}");
        assert!(wait_or_kill(&mut server), "oc play stops when asked to quit");
        let mut said = String::new();
        server.stderr.take().unwrap().read_to_string(&mut said).unwrap();
        said
    };
    let said = serve(&["play", "scenarios/grado-keep.oc", "--log", log.to_str().unwrap()]);
    let command = format!("oc play scenarios/grado-keep.oc --resume {}", log.display());
    assert!(said.contains(&format!("the game is not over: continue it with `{command}`")), "{said}");
    // The command said continues it (and, quit again, says the same).
    let words: Vec<&str> = command.split(' ').skip(1).collect();
    let again = serve(&words);
    assert!(again.contains(&format!("continue it with `{command}`")), "{again}");
}
