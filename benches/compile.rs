//! `cargo bench --bench compile`: DSL compile throughput on a generated large file, the cost of
//! the standard library alone, and the wall time of `oc check .` on this repository.
//! Reports the median of several runs; nothing here asserts a time.

use std::process::Command;
use std::time::{Duration, Instant};

use oc_compiler::{Host, Workspace};

struct OneFile {
    text: String,
}

impl Host for OneFile {
    fn read(&mut self, path: &str) -> Result<String, String> {
        if path == "big.oc" {
            Ok(self.text.clone())
        } else {
            Err("no such file".into())
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

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    // 1. Compile throughput on a large generated file (parse + resolve + type check + lower).
    let text = generate(8000);
    let mb = text.len() as f64 / 1_000_000.0;
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
    println!("parse    generated file {:.2} MB: median {:.0?}, {:.2} MB/s", mb, p, mb / p.as_secs_f64());
    println!(
        "compile  generated file {:.2} MB (8000 classes, 8000 weapons): median {:.0?}, {:.2} MB/s",
        mb,
        t,
        mb / t.as_secs_f64()
    );

    // 2. The standard library alone (what every `oc check` pays once per file).
    let mut samples = Vec::new();
    for _ in 0..20 {
        let start = Instant::now();
        let mut ws = Workspace::new();
        let c = ws.compile_ids(&mut OneFile { text: String::new() }, &[]);
        samples.push(start.elapsed());
        assert!(c.rules.is_some());
    }
    println!("compile  standard library (parse + check): median {:.2?}", median(samples));

    // 3. `oc check .` on this repository, end to end (process start, file walk, every file).
    let repo = env!("CARGO_MANIFEST_DIR");
    let mut samples = Vec::new();
    for _ in 0..10 {
        let start = Instant::now();
        let out = Command::new(env!("CARGO_BIN_EXE_oc")).args(["check", "."]).current_dir(repo).output().expect("oc runs");
        samples.push(start.elapsed());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    }
    println!("oc check . on the repository: median {:.0?}", median(samples));
}
