//! `cargo bench --bench watch`: `oc watch` latency from a save to the printed report (JSON on
//! stdout), for a save by rename (what editors do) and a write in place, on a one-file project
//! in a temporary folder. Prints `bench <name> <value> <unit>` lines (medians); nothing asserts a
//! time.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn main() {
    let dir = std::env::temp_dir().join(format!("oc-bench-watch-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("oc.toml"), "[project]\n").unwrap();
    let file = dir.join("home.oc");
    std::fs::write(&file, "tag Bold on class doc \"x.\" { movement += 1 }\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_oc"))
        .args(["watch", "--format", "json", "--no-clear"])
        .arg(&dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let (tx, rx) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for _line in BufReader::new(stdout).lines().map_while(Result::ok) {
            if tx.send(Instant::now()).is_err() {
                break;
            }
        }
    });
    rx.recv_timeout(Duration::from_secs(30)).expect("the first report");
    for mode in ["rename", "in_place"] {
        let mut samples = Vec::new();
        for i in 0..40 {
            let text = format!("tag Bold on class doc \"x{i}.\" {{ movement += {} }}\n", i % 3);
            let saved = Instant::now();
            if mode == "rename" {
                let tmp = dir.join("home.oc.tmp");
                std::fs::write(&tmp, text).unwrap();
                std::fs::rename(&tmp, &file).unwrap();
            } else {
                std::fs::write(&file, text).unwrap();
            }
            let reported = rx.recv_timeout(Duration::from_secs(10)).expect("a report");
            samples.push(reported.saturating_duration_since(saved));
            // Let the burst end and drop any second report of the same save.
            std::thread::sleep(Duration::from_millis(150));
            while rx.try_recv().is_ok() {}
        }
        samples.sort();
        println!("bench watch_save_to_report_{mode}_ms {:.1} ms", samples[samples.len() / 2].as_secs_f64() * 1e3);
    }
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&dir);
}
