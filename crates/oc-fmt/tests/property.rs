//! Properties of `oc fmt` over every `.oc` file of the repository (standard library, fixtures,
//! examples, scenarios) and over seeded variants of them (whitespace, line breaks, indentation
//! and comments changed between tokens):
//!
//! - formatting is idempotent: `fmt(fmt(x)) == fmt(x)`;
//! - `fmt(x)` compiles to the same model as `x`, with the same diagnostics (positions aside);
//! - a text that does not parse is refused (and so left as it is).
//!
//! `OC_FMT_VARIANTS` sets how many variants to try (default 1,200, in two halves run side by
//! side; at least 1,000 must parse).

use std::path::{Path, PathBuf};

use oc_compiler::{Host, Workspace};
use oc_diag::FileId;
use oc_fmt::lex::{tokenize, Kind};

/// SplitMix64: small, seeded, the same on every machine.
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
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").canonicalize().unwrap()
}

/// Every `.oc` file under `dir`, as `git ls-files` would list them: hidden folders and `target`
/// left out.
fn oc_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" {
            continue;
        }
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            oc_files(&path, out);
        } else if meta.is_file() && name.ends_with(".oc") {
            out.push(path);
        }
    }
}

/// Reads the files around the one under test from disk; the file itself from memory.
struct Overlay {
    root: PathBuf,
    name: String,
    text: String,
}

impl Host for Overlay {
    fn read(&mut self, path: &str) -> Result<String, oc_compiler::ReadError> {
        if path == self.name {
            return Ok(self.text.clone());
        }
        let bytes = std::fs::read(self.root.join(path)).map_err(|e| oc_compiler::ReadError::Io(e.to_string()))?;
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    }
}

/// What a compilation says, without positions: the model as far as it was built, and each
/// diagnostic's severity, code and message.
type Outcome = (Option<oc_model::Rules>, Vec<(bool, &'static str, String)>);

/// Compiles `text` as the file `name` of the folder `root` (the way the fixture tests do).
fn compile(ws: &mut Workspace, root: &Path, name: &str, text: &str) -> Outcome {
    let mut host = Overlay { root: root.to_path_buf(), name: name.to_string(), text: text.to_string() };
    let id = ws.add(name.to_string(), text.to_string());
    let compilation = ws.compile_ids(&mut host, &[id]);
    let mut diagnostics: Vec<(bool, &'static str, String)> =
        compilation.diagnostics.iter().map(|d| (d.is_error(), d.code, d.message.clone())).collect();
    diagnostics.sort();
    (compilation.into_model(), diagnostics)
}

/// Checks both properties for one text; `Ok(false)` when it does not parse (and was refused).
fn check(ws: &mut Workspace, root: &Path, name: &str, text: &str, label: &str) -> Result<bool, String> {
    let formatted = match oc_fmt::format(FileId(0), text) {
        Ok(out) => out,
        Err(oc_fmt::Error::Syntax(diagnostics)) => {
            let (_, found) = oc_syntax::parse(FileId(0), text);
            return if diagnostics.is_empty() || found.is_empty() {
                Err(format!("{label}: refused without a syntax error"))
            } else {
                Ok(false)
            };
        }
        Err(e) => return Err(format!("{label}: {e:?}\n--- input\n{text}")),
    };
    // `format` has checked that `formatted` parses to the same tree; the layout alone decides
    // what formatting it again gives.
    let again = oc_fmt::layout(&formatted);
    if again != formatted {
        return Err(format!("{label}: not idempotent\n{}", oc_fmt::diff::unified("once", "twice", &formatted, &again)));
    }
    let before = compile(ws, root, name, text);
    let after = compile(ws, root, name, &formatted);
    if before != after {
        let diff = oc_fmt::diff::unified("input", "formatted", &format!("{before:#?}"), &format!("{after:#?}"));
        return Err(format!("{label}: the formatted text compiles differently\n{diff}"));
    }
    Ok(true)
}

/// A variant of `text` with other whitespace, line breaks, indentation and comments between
/// its tokens. Tokens themselves (a sign glued to its number included) are kept.
fn variant(text: &str, rng: &mut Rng) -> String {
    let tokens: Vec<_> = tokenize(text).into_iter().filter(|t| !matches!(t.kind, Kind::Space | Kind::Newline)).collect();
    let all = tokenize(text);
    // Whether each kept token had whitespace before it in the original.
    let mut spaced_before = Vec::new();
    let mut pending = false;
    for t in &all {
        match t.kind {
            Kind::Space | Kind::Newline => pending = true,
            _ => {
                spaced_before.push(pending);
                pending = false;
            }
        }
    }
    let mut out = String::new();
    let mut depth = 0usize;
    // A third of the variants are noisy: a line break or a comment at many token boundaries.
    let (breaks, comments) = if rng.chance(33) { (45, 20) } else { (12, 6) };
    for (i, tok) in tokens.iter().enumerate() {
        let prev = i.checked_sub(1).and_then(|j| tokens.get(j));
        let after_line_comment = prev.is_some_and(|p| p.kind == Kind::LineComment);
        let glued = !spaced_before.get(i).copied().unwrap_or(true);
        let sign = prev.is_some_and(|p| p.text == "-" || p.text == "+") && tok.kind == Kind::Int && glued;
        if i > 0 && !sign {
            if rng.chance(comments) {
                out.push_str(if rng.chance(50) { " /* c */ " } else { " // note\n" });
            }
            let needs_newline = after_line_comment || out.ends_with('\n');
            let separator = if needs_newline || rng.chance(breaks) {
                let newlines = ["\n", "\n", "\r\n", "\n\n", "\n\n\n"][rng.below(5)];
                let pieces = [" ", "    ", "\t", "  "];
                let mut indent: String = (0..rng.below(4)).map(|_| pieces[rng.below(pieces.len())]).collect();
                if depth > 0 && indent.is_empty() {
                    indent.push(' ');
                }
                if out.ends_with('\n') {
                    indent
                } else {
                    format!("{newlines}{indent}")
                }
            } else if glued && rng.chance(70) {
                String::new()
            } else {
                [" ", "  ", "\t", "   ", " \t"][rng.below(5)].to_string()
            };
            out.push_str(&separator);
        }
        out.push_str(tok.text);
        match tok.text {
            "{" | "(" | "[" if tok.kind == Kind::Punct => depth += 1,
            "}" | ")" | "]" if tok.kind == Kind::Punct => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    if rng.chance(50) {
        out.push_str(["\n", "\n\n\n", "  ", "\r\n"][rng.below(4)]);
    }
    out
}

/// The repository's `.oc` files that parse, with their folder, name and text; those that do
/// not parse must be refused.
fn bases() -> Vec<(PathBuf, String, String, String)> {
    let root = repo();
    let mut files = Vec::new();
    oc_files(&root, &mut files);
    assert!(files.len() > 100, "found only {} .oc files under {}", files.len(), root.display());
    let mut bases = Vec::new();
    for path in &files {
        let Ok(text) = String::from_utf8(std::fs::read(path).unwrap()) else { continue };
        let folder = path.parent().unwrap().to_path_buf();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let label = path.strip_prefix(&root).unwrap_or(path).display().to_string();
        bases.push((folder, name, text, label));
    }
    bases
}

#[test]
fn every_file_of_the_repository_formats_idempotently_to_the_same_model() {
    let mut failures = Vec::new();
    let (mut formatted, mut refused) = (0, 0);
    for (folder, name, text, label) in bases() {
        match check(&mut Workspace::new(), &folder, &name, &text, &label) {
            Ok(true) => formatted += 1,
            Ok(false) => refused += 1,
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    // The syntax fixtures are refused; everything else formats.
    assert!(refused >= 10 && formatted > 90, "{formatted} formatted, {refused} refused");
}

/// Variants of every other file (`half` 0 or 1), so that the two halves run side by side.
fn variants(half: usize) {
    let wanted: usize = std::env::var("OC_FMT_VARIANTS").ok().and_then(|v| v.parse().ok()).unwrap_or(1200) / 2;
    let bases: Vec<_> = bases()
        .into_iter()
        .filter(|(_, _, text, _)| oc_syntax::parse(FileId(0), text).1.is_empty())
        .enumerate()
        .filter(|(i, _)| i % 2 == half)
        .map(|(_, b)| b)
        .collect();
    let mut rng = Rng(0x0C_F0_4D + half as u64);
    let mut failures = Vec::new();
    let (mut accepted, mut rejected) = (0usize, 0usize);
    let per_file = wanted.div_ceil(bases.len().max(1));
    for (folder, name, text, label) in &bases {
        let mut ws = Workspace::new();
        for n in 0..per_file {
            let changed = variant(text, &mut rng);
            match check(&mut ws, folder, name, &changed, &format!("{label} variant {n}")) {
                Ok(true) => accepted += 1,
                Ok(false) => rejected += 1,
                Err(e) => failures.push(e),
            }
            if failures.len() >= 3 {
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    eprintln!("variants of {} files: {accepted} formatted, {rejected} refused", bases.len());
    assert!(accepted >= 500.min(wanted), "only {accepted} variants parsed ({rejected} did not)");
}

#[test]
fn variants_of_even_files_format_idempotently_to_the_same_model() {
    variants(0);
}

#[test]
fn variants_of_odd_files_format_idempotently_to_the_same_model() {
    variants(1);
}
