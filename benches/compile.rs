//! `cargo bench --bench compile`: DSL compile throughput on a generated large file, the cost of
//! the standard library alone, and the wall time of `oc check .` on this repository.
//! Prints `bench <name> <value> <unit>` lines (medians of several runs); nothing asserts a time.

use std::process::Command;
use std::time::{Duration, Instant};

use oc_compiler::{Host, Workspace};

struct OneFile {
    text: String,
}

impl Host for OneFile {
    fn read(&mut self, path: &str) -> Result<String, oc_compiler::ReadError> {
        if path == "big.oc" {
            // Taken, not copied: a host reading a file from disk keeps no copy of it.
            Ok(std::mem::take(&mut self.text))
        } else {
            Err(oc_compiler::ReadError::NotFound)
        }
    }
}

/// A home-brew expansion of `classes` classes, as many weapons, and a tag per ten classes,
/// written the way people write the DSL (comments, blocks, tags with effects).
fn generate(classes: usize) -> String {
    let ratings = ["E", "D", "C", "B", "A"];
    let types = ["Swords", "Lances", "Axes", "Bows", "Reason", "Faith", "Dark"];
    let mut s = String::with_capacity(classes * 700);
    for t in 0..classes / 10 + 1 {
        s.push_str(&format!(
            "// generated tag {t}\ntag Gen{t}(x: Int) on class, weapon doc \"generated\" {{\n    when attacker == self and foe.hp < 10 + x {{ damage_bonus += x }}\n    on activated {{ heal(self, x) }}\n}}\n\n"
        ));
    }
    for i in 0..classes {
        let r = |k: usize| ratings[(i * 7 + k * 3) % ratings.len()];
        let ty = types[i % types.len()];
        s.push_str(&format!(
            "/* class {i} */\nclass Gen{i} \"Generated {i}\" {{\n    ratings {{ str {} mag {} skl {} spd {} def {} res {} }}\n    wields {ty}\n    tags Gen{}({}), Lucky({})\n    cost {}\n}}\n\nweapon GenWeapon{i} {{\n    type {ty} might {} weight {} range 1..2\n    tags Effective(Flying), Lucky(5)\n    cost {}\n}}\n\n",
            r(0), r(1), r(2), r(3), r(4), r(5), i / 10, i % 5, i % 20, 500 + i, i % 3, (i % 5) as i64 - 2, 400 + i
        ));
    }
    s
}

/// A `/proc/self/status` figure in kB.
fn proc_kb(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    // 1. Compile throughput on a large generated file (parse + resolve + type check + lower).
    let text = generate(8000);
    let mb = text.len() as f64 / 1_000_000.0;
    // Peak memory of one compile, over the resident size before it (Linux; skipped elsewhere).
    // A small compile first, so that the figure is memory per source byte, not the program's
    // own code and tables paged in on first use; then the high-water mark is reset to now.
    {
        let mut host = OneFile { text: generate(20) };
        let (compilation, _) = Workspace::new().compile(&mut host, &["big.oc".to_string()]);
        assert!(compilation.rules.is_some());
    }
    // Writing 5 to clear_refs resets VmHWM (Linux 4.0 and later); where it cannot be written,
    // the high-water mark of the whole run so far stands, which can only overstate the figure.
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    let before = proc_kb("VmRSS:");
    {
        let mut host = OneFile { text: text.clone() };
        let (compilation, _) = Workspace::new().compile(&mut host, &["big.oc".to_string()]);
        assert!(compilation.rules.is_some());
    }
    if let (Some(before), Some(peak)) = (before, proc_kb("VmHWM:")) {
        println!(
            "bench check_peak_bytes_per_source_byte {:.1} B/B",
            (peak.saturating_sub(before) * 1024) as f64 / text.len() as f64
        );
    }
    let mut samples = Vec::new();
    for _ in 0..5 {
        let mut host = OneFile { text: text.clone() };
        let mut ws = Workspace::new();
        let start = Instant::now();
        let (compilation, _) = ws.compile(&mut host, &["big.oc".to_string()]);
        samples.push(start.elapsed());
        assert_eq!(compilation.error_count(), 0, "the generated file must be clean: {:?}", compilation.diagnostics.first());
    }
    let t = median(samples);
    let mut parse_samples = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let (file, diagnostics) = oc_syntax::parse(oc_diag::FileId(0), &text);
        parse_samples.push(start.elapsed());
        assert!(diagnostics.is_empty() && !file.items.is_empty());
    }
    let p = median(parse_samples);
    eprintln!("generated file: {mb:.2} MB, 8000 classes and 8000 weapons; parse {p:.0?}, compile {t:.0?} (medians)");
    println!("bench parse_mb_per_s {:.2} MB/s", mb / p.as_secs_f64());
    println!("bench compile_mb_per_s {:.2} MB/s", mb / t.as_secs_f64());
    // The model the compile produced, read back by serde_json: the yardstick.
    let mut host = OneFile { text: text.clone() };
    let (compilation, _) = Workspace::new().compile(&mut host, &["big.oc".to_string()]);
    let json = serde_json::to_string(&compilation.rules.expect("clean")).expect("serialises");
    let mut samples = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let rules: oc_model::Rules = serde_json::from_str(&json).expect("reads back");
        samples.push(start.elapsed());
        assert!(!rules.classes.is_empty());
    }
    let j = median(samples);
    eprintln!("serde_json reads the compiled model ({:.2} MB of JSON) in {j:.0?}", json.len() as f64 / 1e6);
    println!("bench compile_vs_serde_json {:.3} ratio", j.as_secs_f64() / t.as_secs_f64());

    // 2. The standard library alone (what every `oc check` pays once per file).
    let mut samples = Vec::new();
    for _ in 0..20 {
        let start = Instant::now();
        let mut ws = Workspace::new();
        let c = ws.compile_ids(&mut OneFile { text: String::new() }, &[]);
        samples.push(start.elapsed());
        assert!(c.rules.is_some());
    }
    println!("bench compile_stdlib_ms {:.2} ms", median(samples).as_secs_f64() * 1e3);

    // 3. `oc check .` on this repository, end to end (process start, file walk, every file).
    let repo = env!("CARGO_MANIFEST_DIR");
    let mut samples = Vec::new();
    for _ in 0..10 {
        let start = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_oc")).args(["check", "."]).current_dir(repo).output().expect("oc runs");
        samples.push(start.elapsed());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    println!("bench check_repo_ms {:.1} ms", median(samples).as_secs_f64() * 1e3);
}
