//! Robustness: thousands of randomly damaged copies of the standard library's sources are parsed
//! and checked; nothing may panic, and every diagnostic must point inside its file.

use oc_compiler::{Host, Workspace};

struct Text(String);

impl Host for Text {
    fn read(&mut self, path: &str) -> Result<String, oc_compiler::ReadError> {
        if path == "user.oc" {
            Ok(self.0.clone())
        } else {
            Err(oc_compiler::ReadError::NotFound)
        }
    }
}

/// A tiny deterministic generator (SplitMix64): the test is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "{",
    "}",
    "(",
    ")",
    "[",
    "]",
    "\"",
    "/*",
    "*/",
    "//",
    "..",
    ":",
    ",",
    "=",
    "+=",
    "-",
    " ",
    "\n",
    "class ",
    "tag ",
    "when ",
    "é",
    "\u{0}",
    "99999999999999999999",
];

fn mutate(text: &str, rng: &mut Rng) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(bytes.len() + 1);
        match rng.below(3) {
            0 => {
                let len = rng.below(40).min(bytes.len() - at.min(bytes.len()));
                bytes.drain(at..at + len);
            }
            1 => {
                let piece = PIECES[rng.below(PIECES.len())].as_bytes();
                bytes.splice(at..at, piece.iter().copied());
            }
            _ => {
                // Duplicate a slice somewhere else (duplicate definitions, repeated fields).
                let from = rng.below(bytes.len());
                let len = rng.below(200).min(bytes.len() - from);
                let chunk: Vec<u8> = bytes[from..from + len].to_vec();
                let at = at.min(bytes.len());
                bytes.splice(at..at, chunk);
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn damaged_sources_never_panic_and_spans_stay_in_bounds() {
    let mut rng = Rng(0x0C0C_2026);
    let mut diagnostics = 0usize;
    let mut ws = Workspace::new();
    // Every file's classes and items parsed as they are lowered: the same result, damaged or not.
    let mut deferring = Workspace::new();
    deferring.set_defer_from(0);
    // `OC_MUTATION_ROUNDS=2000` for a longer run (CI runs 80).
    let rounds: u32 = std::env::var("OC_MUTATION_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(80);
    for round in 0..rounds {
        for (path, text) in oc_compiler::stdlib::FILES {
            if round % 4 != 0 && *path != "ratings/tags.oc" && *path != "ratings/ruleset.oc" {
                continue;
            }
            let damaged = mutate(text, &mut rng);
            let user = ws.add("user.oc".to_string(), damaged.clone());
            let compilation = ws.compile_ids(&mut Text(damaged.clone()), &[user]);
            let user = deferring.add("user.oc".to_string(), damaged.clone());
            let deferred = deferring.compile_ids(&mut Text(damaged), &[user]);
            if deferred.diagnostics != compilation.diagnostics {
                let first = deferred.diagnostics.iter().zip(&compilation.diagnostics).position(|(a, b)| a != b);
                let at = |v: &Vec<oc_diag::Diagnostic>| first.and_then(|i| v.get(i)).map(|d| format!("{d:?}"));
                panic!(
                    "round {round}, {path}: {} diagnostics deferred, {} not; first difference: {:?} against {:?}",
                    deferred.diagnostics.len(),
                    compilation.diagnostics.len(),
                    at(&deferred.diagnostics),
                    at(&compilation.diagnostics)
                );
            }
            assert!(deferred.rules == compilation.rules && deferred.partial == compilation.partial, "round {round}, {path}");
            for d in &compilation.diagnostics {
                let file = ws.file(d.span.file).expect("diagnostics name known files");
                assert!(d.span.end as usize <= file.text.len(), "span past the end in {}: {d:?}", file.path);
                assert!(file.text.is_char_boundary(d.span.start as usize), "span inside a character: {d:?}");
                assert!(file.text.is_char_boundary(d.span.end as usize), "span inside a character: {d:?}");
                assert!(!d.help.is_empty(), "{d:?}");
            }
            diagnostics += compilation.diagnostics.len();
        }
    }
    assert!(diagnostics > 100, "the mutations should provoke diagnostics");
}
