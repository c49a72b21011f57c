//! `cargo bench --bench atlas`: lint time for a generated 256x256 map, render time for a 46x46
//! map at grid 70, and `oc watch`'s save-to-report latency (a map rewritten, until the watcher's
//! summary line arrives). Reports medians; nothing here asserts a time.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use oc_diag::FileId;

fn std_rules() -> oc_model::Rules {
    oc_compiler::stdlib::default_rules().expect("the standard library compiles")
}

/// A `size` x `size` map of mixed terrain (rivers with bridges, forests, mountains, forts, walls
/// with doors), deployment zones in opposite corners and a seize tile in the middle: every lint
/// has work to do, and the path search crosses the whole map.
fn generate(size: usize) -> String {
    let mut rows = Vec::with_capacity(size);
    for y in 0..size {
        let row: String = (0..size)
            .map(|x| match ((x * 7 + y * 13) % 29, x % 17, y % 23) {
                (_, 8, _) if y % 5 == 0 => '=',
                (_, 8, _) => 'r',
                (_, _, 11) if x % 6 == 0 => 'D',
                (_, _, 11) if x % 6 == 1 => '.',
                (_, _, 11) => '#',
                (0..=3, _, _) => 'f',
                (4, _, _) => '^',
                (5, _, _) => 'F',
                (6, _, _) => 'd',
                _ => '.',
            })
            .collect();
        rows.push(format!("  \"{row}\","));
    }
    let doors: String = (0..size)
        .filter(|x| x % 6 == 0 && x % 17 != 8)
        .flat_map(|x| (0..size).filter(|y| y % 23 == 11).map(move |y| format!("[[doors]]\nat = [{x}, {y}]\n")))
        .collect();
    format!(
        "name = \"Generated\"\nwidth = {size}\nheight = {size}\nrows = [\n{}\n]\n\n[[regions]]\nname = \"attacker-zone\"\nkind = \"deployment\"\nside = \"attacker\"\nrect = [0, 0, 4, 4]\n\n[[regions]]\nname = \"defender-zone\"\nkind = \"deployment\"\nside = \"defender\"\nrect = [{}, {}, 4, 4]\n\n[[regions]]\nname = \"centre\"\nkind = \"seize\"\nside = \"attacker\"\ntiles = [[{}, {}]]\n\n{doors}",
        rows.join("\n"),
        size - 4,
        size - 4,
        size / 2 + 1,
        size / 2 + 3
    )
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let rules = std_rules();

    let text = generate(256);
    let mut samples = Vec::new();
    let mut found = 0;
    for _ in 0..7 {
        let started = Instant::now();
        let (map, diags) = oc_atlas::check(FileId(0), &text, &rules, |_| oc_atlas::ImageCheck::NotChecked);
        samples.push(started.elapsed());
        assert!(map.is_some());
        found = diags.len();
    }
    eprintln!("lint 256x256 ({} KB, {} diagnostics), median of 7 runs", text.len() / 1024, found);
    println!("bench lint_256_ms {:.1} ms", median(samples).as_secs_f64() * 1e3);

    let text = generate(46).replace("name = \"Generated\"", "name = \"Generated\"\ngrid = 70");
    let (map, _) = oc_atlas::check(FileId(0), &text, &rules, |_| oc_atlas::ImageCheck::NotChecked);
    let map = map.expect("the 46x46 map reads");
    let mut render = Vec::new();
    let mut encode = Vec::new();
    let mut bytes = 0;
    for _ in 0..5 {
        let started = Instant::now();
        let img = oc_atlas::render::render(&map, &rules).expect("renders");
        render.push(started.elapsed());
        let started = Instant::now();
        bytes = oc_atlas::render::png(&img).expect("encodes").len();
        encode.push(started.elapsed());
    }
    eprintln!("render 46x46 at grid 70 ({}x{} px, PNG {} KB)", 46 * 70, 46 * 70, bytes / 1024);
    println!("bench render_46_ms {:.1} ms", median(render).as_secs_f64() * 1e3);
    println!("bench png_encode_46_ms {:.1} ms", median(encode).as_secs_f64() * 1e3);

    // The watcher: rewrite a shipped map and time until the summary line.
    let dir = std::env::temp_dir().join(format!("oc-watch-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let map_text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/scenarios/maps/grado-keep.map.toml")).expect("shipped map");
    std::fs::write(dir.join("keep.map.toml"), &map_text).expect("write");
    let mut child = Command::new(env!("CARGO_BIN_EXE_oc"))
        .args(["watch", ".", "--no-clear"])
        .current_dir(&dir)
        .env("NO_COLOR", "1")
        .stderr(Stdio::piped())
        .spawn()
        .expect("oc watch starts");
    let stderr = child.stderr.take().expect("stderr");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if line.starts_with("[watch]") && tx.send(line).is_err() {
                break;
            }
        }
    });
    let _ = rx.recv_timeout(Duration::from_secs(30)).expect("the first report");
    let mut latency = Vec::new();
    for i in 0..15 {
        std::thread::sleep(Duration::from_millis(200));
        let started = Instant::now();
        std::fs::write(dir.join("keep.map.toml"), format!("{map_text}\n# save {i}\n")).expect("write");
        rx.recv_timeout(Duration::from_secs(30)).expect("a report per save");
        latency.push(started.elapsed());
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
    latency.sort();
    eprintln!("watch save-to-report over 15 saves: min {:.1?}, max {:.1?}", latency[0], latency[latency.len() - 1]);
    println!("bench watch_save_to_report_ms {:.1} ms", median(latency).as_secs_f64() * 1e3);
}
