//! The in-repo fuzzer (issue 16; the standard is rustc's "no ICE on any input"). No nightly, no
//! new dependency: a seeded mutation loop over the repository's own `.oc` files, maps and a
//! battle log, Tiled maps, one-pixel-per-tile pictures and `oc.toml`, plus grammar-aware
//! generation of `.oc` items, run in-process through parse, compile, map check (render and
//! exports included), forecast, duel, replay, `import tiled` and `import-image`.
//!
//! - `cargo test --test fuzz` runs a short fixed-seed slice (`fuzz_short_slice`, ~30 s).
//! - `OC_FUZZ_SECS=3600 cargo test --release --test fuzz -- --ignored` runs an hour
//!   (`OC_FUZZ_SEED` picks the seed).
//!
//! A panic or a case running longer than [`HANG_SECS`] writes the input to
//! `tests/fixtures/crashes/` and fails; `crashes_stay_fixed` replays every file there.

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use oc_compiler::{Host, Workspace};

mod common;
use common::Rng;
use oc_diag::FileId;

/// A case running longer is a hang. An unoptimised build (CI's slice) reads an 800 KB line in
/// ~20 s, ten times the release build's time, so it gets more room.
const HANG_SECS: u64 = if cfg!(debug_assertions) { 120 } else { 30 };

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn crashes_dir() -> PathBuf {
    repo().join("tests/fixtures/crashes")
}

/// Files served from memory by logical path.
struct MemHost(BTreeMap<String, String>);

impl Host for MemHost {
    fn read(&mut self, path: &str) -> Result<String, oc_compiler::ReadError> {
        self.0.get(path).cloned().ok_or(oc_compiler::ReadError::NotFound)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Kind {
    Oc,
    Map,
    Log,
    Manifest,
    /// A Tiled map (`oc import tiled`).
    Tmx,
    /// A picture, one pixel per tile (`oc import-image`).
    Png,
    Lsp,
}

impl Kind {
    fn ext(self) -> &'static str {
        match self {
            Kind::Oc => "oc",
            Kind::Map => "map.toml",
            Kind::Log => "jsonl",
            Kind::Manifest => "toml",
            Kind::Tmx => "tmx",
            Kind::Png => "png",
            Kind::Lsp => "lsp",
        }
    }
}

/// The repository's own inputs: every `.oc` and map (logical path -> text).
fn corpus() -> BTreeMap<String, String> {
    fn walk(root: &Path, dir: &Path, out: &mut BTreeMap<String, String>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || name == "target" {
                continue;
            }
            // Links are not followed: the fixtures hold a link loop on purpose.
            let Ok(meta) = std::fs::symlink_metadata(&p) else { continue };
            if meta.file_type().is_symlink() {
                continue;
            }
            if meta.is_dir() {
                walk(root, &p, out);
            } else if name.ends_with(".oc") || name.ends_with(".map.toml") || name.ends_with(".tmx") {
                if let (Ok(text), Ok(rel)) = (std::fs::read_to_string(&p), p.strip_prefix(root)) {
                    out.insert(rel.to_string_lossy().replace('\\', "/"), text);
                }
            }
        }
    }
    let mut out = BTreeMap::new();
    for dir in ["scenarios", "examples", "tests/fixtures", "crates/oc-compiler/std"] {
        walk(&repo(), &repo().join(dir), &mut out);
    }
    out
}

/// Words and tokens the grammar knows, gathered from the corpus and the grammar file.
fn dictionary(corpus: &BTreeMap<String, String>) -> Vec<String> {
    let mut words: std::collections::BTreeSet<String> = std::collections::BTreeSet::new();
    let grammar = std::fs::read_to_string(repo().join("grammar/oc.pest")).unwrap_or_default();
    for text in corpus.values().chain(std::iter::once(&grammar)) {
        for w in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            if (2..24).contains(&w.len()) {
                words.insert(w.to_string());
            }
        }
    }
    let mut words: Vec<String> = words.into_iter().collect();
    for t in [
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        "..",
        "=",
        "+=",
        "-=",
        "*",
        "/",
        "%",
        ">=",
        "<=",
        "==",
        "!=",
        "<",
        ">",
        ",",
        ":",
        "\"",
        "//",
        "/*",
        "*/",
        "\n",
        " ",
        "-",
        "+",
        "0",
        "1",
        "-1",
        "99999999999999999999",
        "9223372036854775807",
        "-9223372036854775808",
        "d100",
        "d0",
        "3d6",
        "\u{feff}",
        "é",
        "\u{0}",
        "\t",
        "\r\n",
        "#",
        "[[regions]]",
        "[legend]",
        "=\"",
        "[]",
        "{}",
    ] {
        words.push(t.to_string());
    }
    words
}

fn mutate(rng: &mut Rng, input: &[u8], corpus: &[&String], dict: &[String]) -> Vec<u8> {
    let mut v = input.to_vec();
    for _ in 0..1 + rng.below(6) {
        let len = v.len();
        let at = rng.below(len + 1);
        match rng.below(9) {
            0 if len > 0 => {
                let i = rng.below(len);
                v[i] ^= 1 << rng.below(8);
            }
            1 => v.insert(at, rng.next() as u8),
            2 if len > 0 => {
                let end = (at + 1 + rng.below(64)).min(len);
                v.drain(at.min(end)..end);
            }
            3 if len > 0 => {
                let from = rng.below(len);
                let end = (from + 1 + rng.below(128)).min(len);
                let piece: Vec<u8> = v[from..end].to_vec();
                v.splice(at..at, piece);
            }
            4 => {
                let other = rng.pick(corpus).as_bytes();
                if !other.is_empty() {
                    let from = rng.below(other.len());
                    let end = (from + 1 + rng.below(256)).min(other.len());
                    v.splice(at..at, other[from..end].iter().copied());
                }
            }
            5 | 6 => {
                let w = rng.pick(dict).clone();
                v.splice(at..at, w.bytes());
            }
            7 => v.truncate(at),
            _ => {
                // Replace a number with an extreme one.
                let extremes = ["0", "-1", "2147483648", "9223372036854775807", "-9223372036854775808", "1000000"];
                if let Some(pos) = v.iter().skip(at).position(u8::is_ascii_digit) {
                    let start = at + pos;
                    let end = v.iter().skip(start).position(|b| !b.is_ascii_digit()).map_or(v.len(), |n| start + n);
                    let e = rng.pick(&extremes).as_bytes().to_vec();
                    v.splice(start..end, e);
                }
            }
        }
    }
    v
}

/// A random but well-shaped `.oc` file: tags, classes, weapons, with nested expressions.
fn generate(rng: &mut Rng, dict: &[String]) -> String {
    let names =
        ["Alpha", "Beta", "Gamma", "Delta", "Lucky", "Fast", "Myrmidon", "Fighter", "IronSword", "Swords", "Axes", "Forest"];
    let attrs =
        ["crit_bonus", "damage_taken", "movement", "hit", "avoid", "might", "damage", "strikes", "hp", "speed", "x", "zz"];
    let ratings = ["F", "E", "D", "C", "B", "A", "S", "Q", "3"];
    fn expr(rng: &mut Rng, dict: &[String], depth: usize) -> String {
        if depth == 0 || rng.one_in(3) {
            return match rng.below(6) {
                0 => rng.below(30).to_string(),
                1 => format!("-{}", rng.next() % 100_000),
                2 => "roll(hit)".to_string(),
                3 => format!("{}.{}", rng.pick(&["attacker", "defender", "self", "user"]), rng.pick(dict)),
                4 => rng.pick(dict).clone(),
                _ => "9223372036854775807".to_string(),
            };
        }
        let op = rng.pick(&["+", "-", "*", "/", "%", ">=", "<", "==", "and", "or"]);
        match rng.below(4) {
            0 => format!("({})", expr(rng, dict, depth - 1)),
            1 => format!(
                "{}[{}, {}]",
                rng.pick(&["to_hit", "damage", "staff_range", "nope"]),
                expr(rng, dict, depth - 1),
                expr(rng, dict, depth - 1)
            ),
            _ => format!("{} {op} {}", expr(rng, dict, depth - 1), expr(rng, dict, depth - 1)),
        }
    }
    let mut out = String::new();
    if rng.one_in(4) {
        out.push_str(&format!("import \"{}\"\n", rng.pick(&["std:v06", "a.oc", "../x.oc", "std:nope", "scenarios/ide.oc"])));
    }
    for _ in 0..1 + rng.below(5) {
        match rng.below(4) {
            0 | 1 => {
                let name = format!("{}{}", rng.pick(&names), rng.below(5));
                let params =
                    if rng.one_in(2) { format!("(x: {})", rng.pick(&["Int", "Tag", "Rating", "Nope"])) } else { String::new() };
                let target = rng.pick(&["class", "weapon", "item", "unit", "nothing"]);
                let body = match rng.below(4) {
                    0 => format!("when {} {{ {} += {} }}", expr(rng, dict, 3), rng.pick(&attrs), expr(rng, dict, 3)),
                    1 => format!(
                        "on {} {{ {}({}) }}",
                        rng.pick(&["attacked", "hit", "start_of_round", "activated", "end_of_turn", "never"]),
                        rng.pick(&["heal", "damage", "inflict", "seize", "nope"]),
                        expr(rng, dict, 2)
                    ),
                    _ => format!("{} {} {}", rng.pick(&attrs), rng.pick(&["+=", "-=", "=", "*="]), expr(rng, dict, 4)),
                };
                out.push_str(&format!("tag {name}{params} on {target} {{ {body} }}\n"));
            }
            2 => {
                let r = |rng: &mut Rng| rng.pick(&ratings).to_string();
                out.push_str(&format!(
                    "class {}{} {{ ratings {{ str {} mag {} skl {} spd {} def {} res {} }} wields {} tags {} cost {} }}\n",
                    rng.pick(&names),
                    rng.below(9),
                    r(rng),
                    r(rng),
                    r(rng),
                    r(rng),
                    r(rng),
                    r(rng),
                    rng.pick(&["Swords", "Axes", "Lances", "Bows", "Staves", "Nope"]),
                    rng.pick(&names),
                    rng.next() % 5000
                ));
            }
            _ => {
                out.push_str(&format!(
                    "weapon {}{} {{ type {} might {} weight {} range {}..{} cost {} }}\n",
                    rng.pick(&names),
                    rng.below(9),
                    rng.pick(&["Swords", "Axes", "Lances", "Nope"]),
                    expr(rng, dict, 1),
                    rng.below(20),
                    rng.below(4),
                    rng.below(4),
                    rng.next() % 2000
                ));
            }
        }
    }
    out
}

/// Everything the pipeline needs that does not change between cases.
struct Fixed {
    corpus: BTreeMap<String, String>,
    std_rules: oc_model::Rules,
    log: String,
    /// Tiled maps: the fixtures and every corpus map exported.
    tmx: Vec<String>,
    /// Pictures `oc import-image` reads: every corpus map as one pixel per tile.
    pngs: Vec<Vec<u8>>,
}

/// A map's tiles as one pixel each in the default palette's colours (what `oc import-image` reads).
fn palette_png(map: &oc_atlas::Map, rules: &oc_model::Rules) -> Option<Vec<u8>> {
    let palette = oc_atlas::export::default_palette(rules);
    let colour_of: BTreeMap<&str, [u8; 3]> = palette.colours.iter().map(|(c, t)| (t.as_str(), *c)).collect();
    let (w, h) = (u32::try_from(map.width).ok()?, u32::try_from(map.height).ok()?);
    let img = image::RgbImage::from_fn(w, h, |x, y| {
        let terrain = map.terrain(oc_atlas::Tile { x: i64::from(x), y: i64::from(y) }).unwrap_or_default();
        image::Rgb(colour_of.get(terrain).copied().unwrap_or([1, 2, 3]))
    });
    oc_atlas::render::png(&img).ok()
}

fn fixed() -> Fixed {
    let corpus = corpus();
    let std_rules = oc_compiler::stdlib::default_rules().expect("the standard library compiles");
    // A real log of the shipped Ide scenario, made in-process.
    let mut host = MemHost(corpus.clone());
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut host, &["scenarios/ide.oc".to_string()]);
    let rules = c.rules.expect("ide.oc compiles");
    let log = replay_lines(&rules, &corpus, "scenarios/ide.oc", 5).map(|l| l.join("\n")).unwrap_or_default();
    let mut tmx: Vec<String> = corpus.iter().filter(|(p, _)| p.ends_with(".tmx")).map(|(_, t)| t.clone()).collect();
    let mut pngs = Vec::new();
    for (_, text) in corpus.iter().filter(|(p, _)| p.ends_with(".map.toml")) {
        let (map, diags) = oc_atlas::check(FileId(0), text, &std_rules, |_| oc_atlas::ImageCheck::NotChecked);
        let Some(map) = map.filter(|_| diags.iter().all(|d| !d.is_error())) else { continue };
        if oc_atlas::export::tileset_size(&map, Some(&std_rules)).is_ok() {
            tmx.push(oc_atlas::export::tiled_with(&map, Some(&std_rules), "t.png").0);
        }
        pngs.extend(palette_png(&map, &std_rules));
    }
    Fixed { corpus, std_rules, log, tmx, pngs }
}

/// Plays the file's only scenario with its first armies; the log's lines (header first).
fn replay_lines(rules: &oc_model::Rules, files: &BTreeMap<String, String>, file: &str, seed: u64) -> Option<Vec<String>> {
    let scenario = rules.scenarios.first()?;
    let army = |side| rules.armies.iter().find(|a| a.scenario == scenario.name && a.side == side);
    let (a, d) = (army(oc_model::SideId::Attacker)?, army(oc_model::SideId::Defender)?);
    let text = files.get(&scenario.map)?;
    let (map, diags) = oc_atlas::parse(FileId(0), text);
    let mut map = map.filter(|_| diags.iter().all(|d| !d.is_error()))?;
    map.resolve(rules);
    let engine = oc_engine::Engine::new(rules.clone()).ok()?;
    let (_, records) =
        oc_engine::battle::play(&engine, scenario, &map.battle_map(), [a, d], seed, &mut oc_engine::ai::Greedy::default())
            .ok()?;
    let source = oc_play::log::Source {
        event: "source".into(),
        format: oc_play::log::LOG_FORMAT,
        file: file.into(),
        scenario: scenario.name.clone(),
        attacker: a.name.clone(),
        defender: d.name.clone(),
        seed,
        attacker_ai: "greedy".into(),
        defender_ai: "greedy".into(),
    };
    let mut lines = vec![serde_json::to_string(&source).ok()?];
    lines.extend(records.iter().filter_map(|r| serde_json::to_string(r).ok()));
    Some(lines)
}

/// The engine on compiled rules: a few forecasts and duels between the classes.
fn exercise_engine(rules: oc_model::Rules) {
    let Ok(engine) = oc_engine::Engine::new(rules) else { return };
    let classes: Vec<String> = engine.rules.classes.iter().take(4).map(|c| c.name.to_string()).collect();
    for a in &classes {
        let Some(w) = engine.weapons_for(a).first().map(|w| w.name.clone()) else { continue };
        let distance = engine.reach(a, &w).map_or(1, |(lo, _)| lo.max(1));
        for d in &classes {
            let dw = engine.weapons_for(d).first().map(|w| w.name.clone());
            let (la, ld) = (oc_engine::Loadout::new(a, Some(&w)), oc_engine::Loadout::new(d, dw.as_deref()));
            let _ = engine.forecast(&la, &ld, distance);
            let _ = engine.duel(&la, &ld, distance, 7);
        }
    }
}

/// One input through every stage that reads it.
fn run_case(fixed: &Fixed, ws: &mut Workspace, kind: Kind, path: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes).into_owned();
    match kind {
        Kind::Oc => {
            let _ = oc_syntax::parse(FileId(0), &text);
            let mut files = fixed.corpus.clone();
            files.insert(path.to_string(), text);
            ws.invalidate(path);
            let (c, _) = ws.compile(&mut MemHost(files.clone()), &[path.to_string()]);
            // The next case must see the corpus' own text at this path, not this mutation.
            ws.invalidate(path);
            if let Some(rules) = c.rules {
                if !rules.scenarios.is_empty() {
                    let _ = replay_lines(&rules, &files, path, 1);
                }
                exercise_engine(rules);
            } else {
                // Tools go on with the partial model: it must be safe to run too.
                if let Some(partial) = c.partial {
                    exercise_engine(partial);
                }
            }
        }
        Kind::Map => {
            let (map, _) = oc_atlas::check(FileId(0), &text, &fixed.std_rules, |_| oc_atlas::ImageCheck::NotChecked);
            if let Some(map) = map {
                if oc_atlas::render::picture_size(&map).is_ok_and(|(w, h)| u64::from(w) * u64::from(h) < 4_000_000) {
                    if let Ok(img) = oc_atlas::render::render(&map, &fixed.std_rules) {
                        let _ = oc_atlas::render::png(&img);
                    }
                }
                for version in [oc_atlas::foundry::Version::V11, oc_atlas::foundry::Version::V12] {
                    let _ = serde_json::to_string(&oc_atlas::foundry::scene(&map, &fixed.std_rules, version, None));
                }
                let _ = oc_atlas::uvtt::uvtt(&map, &fixed.std_rules, b"png");
                if oc_atlas::export::tileset_size(&map, Some(&fixed.std_rules)).is_ok() {
                    let (tmx, _) = oc_atlas::export::tiled_with(&map, Some(&fixed.std_rules), "t.png");
                    // The import reads the export back, and a cut-off one without a panic.
                    let _ = oc_atlas::tiled::import(FileId(0), &tmx, "fuzz", Some(&fixed.std_rules));
                    let cut = tmx.char_indices().nth(tmx.chars().count() / 2).map_or(0, |(i, _)| i);
                    let _ = oc_atlas::tiled::import(FileId(0), tmx.get(..cut).unwrap_or(""), "fuzz", Some(&fixed.std_rules));
                }
                let _ = map.battle_map();
            }
        }
        Kind::Manifest => {
            let (manifest, _) = oc_project::manifest::parse(FileId(0), &text);
            for pattern in &manifest.ignore {
                for path in fixed.corpus.keys().take(50) {
                    let _ = oc_project::discover::glob(pattern, path);
                }
            }
        }
        Kind::Tmx => {
            let (map, _) = oc_atlas::tiled::import(FileId(0), &text, "fuzz", Some(&fixed.std_rules));
            if let Some(map) = map {
                // What the import wrote is a map like any other.
                let _ = oc_atlas::check(FileId(0), &map, &fixed.std_rules, |_| oc_atlas::ImageCheck::NotChecked);
            }
        }
        Kind::Png => {
            // As `oc import-image` reads it: the header's size first, then the pixels.
            if oc_atlas::export::png_size(bytes).is_ok_and(|(w, h)| u64::from(w) * u64::from(h) < 4_000_000) {
                if let Ok(img) = oc_atlas::export::decode_png(bytes) {
                    let palette = oc_atlas::export::default_palette(&fixed.std_rules);
                    if let Ok(map) = oc_atlas::export::import_image(&img, &palette, &fixed.std_rules, "fuzz") {
                        let _ = oc_atlas::check(FileId(0), &map, &fixed.std_rules, |_| oc_atlas::ImageCheck::NotChecked);
                    }
                }
            }
        }
        Kind::Lsp => lsp_case(bytes),
        Kind::Log => {
            let mut lines = text.lines();
            let Ok(source) = oc_play::log::parse_source(lines.next().unwrap_or("")) else { return };
            if oc_compiler::resolve_logical(&source.file).is_err() {
                return;
            }
            let mut host = MemHost(fixed.corpus.clone());
            ws.invalidate(&source.file);
            let (c, _) = ws.compile(&mut host, std::slice::from_ref(&source.file));
            let Some(mut rules) = c.rules else { return };
            // The header names the scenario and armies: keep only those, as `oc replay` does.
            rules.scenarios.retain(|s| s.name == source.scenario);
            rules.armies.retain(|a| a.name == source.attacker || a.name == source.defender);
            if let Some(expected) = replay_lines(&rules, &fixed.corpus, &source.file, source.seed) {
                let _same = expected.iter().skip(1).zip(lines).all(|(a, b)| a == b);
            }
        }
    }
}

/// A picture for `oc import-image`: a corpus map's, its bytes flipped, or pixels of random size
/// and colour (mostly the palette's) encoded whole, so the decoder's checksums pass.
fn picture(rng: &mut Rng, pngs: &[Vec<u8>]) -> Vec<u8> {
    let base = rng.pick(pngs).clone();
    match rng.below(3) {
        0 => base,
        1 => {
            let mut v = base;
            for _ in 0..1 + rng.below(4) {
                let i = rng.below(v.len());
                if let Some(b) = v.get_mut(i) {
                    *b ^= 1 << rng.below(8);
                }
            }
            v
        }
        _ => {
            let sides = [0, 1, 2, 7, 64, 129, 300];
            let (w, h) = (*rng.pick(&sides), *rng.pick(&sides));
            let colours: Vec<[u8; 3]> =
                image::load_from_memory(&base).map(|i| i.to_rgb8().pixels().map(|p| p.0).collect()).unwrap_or_default();
            let img = image::RgbImage::from_fn(w, h, |_, _| {
                if colours.is_empty() || rng.one_in(20) {
                    image::Rgb([rng.next() as u8, rng.next() as u8, rng.next() as u8])
                } else {
                    image::Rgb(*rng.pick(&colours))
                }
            });
            oc_atlas::render::png(&img).unwrap_or(base)
        }
    }
}

/// The first line of a saved `.oc` crash names the path it was compiled at (imports resolve
/// from there): `// fuzz path: crates/oc-compiler/tests/fixtures/compile/ok_scenario.oc`.
const PATH_LINE: &str = "// fuzz path: ";

fn save_crash(kind: Kind, bytes: &[u8], why: &str, path: &str) -> PathBuf {
    let bytes = if kind == Kind::Oc { [format!("{PATH_LINE}{path}\n").as_bytes(), bytes].concat() } else { bytes.to_vec() };
    let bytes = bytes.as_slice();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
    }
    let _ = std::fs::create_dir_all(crashes_dir());
    let path = crashes_dir().join(format!("{why}-{h:016x}.{}", kind.ext()));
    let _ = std::fs::write(&path, bytes);
    path
}

/// A thread's CPU time (user and system) from its `stat` file (clock ticks at 100 Hz, the
/// value Linux reports to user space whatever the kernel's own tick).
fn thread_cpu(stat: &Path) -> Option<Duration> {
    let text = std::fs::read_to_string(stat).ok()?;
    // The command name (field 2) may hold spaces: the fields after it start past its `)`.
    let rest = text.rsplit_once(')')?.1;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // Fields 14 and 15 of the file (utime, stime) are the 12th and 13th after the name.
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    Some(Duration::from_millis(ticks * 10))
}

/// What the watchdog sees of the case in progress.
struct Current {
    started: Instant,
    /// The worker thread's CPU time when the case started (see [`thread_cpu`]).
    cpu_at_start: Option<Duration>,
    /// The worker thread's `/proc/self/task/TID/stat`, where the system has one.
    worker_stat: Option<PathBuf>,
    kind: Kind,
    path: String,
    input: Vec<u8>,
    cases: u64,
    done: bool,
}

/// Runs the fuzzer for `secs` from `seed`; returns how many cases ran. Panics (after saving the
/// input) on the first crash or hang.
fn fuzz(seed: u64, secs: u64) -> u64 {
    let fixed = Arc::new(fixed());
    let dict = Arc::new(dictionary(&fixed.corpus));
    let current = Arc::new(Mutex::new(Current {
        started: Instant::now(),
        cpu_at_start: None,
        worker_stat: None,
        kind: Kind::Oc,
        path: String::new(),
        input: Vec::new(),
        cases: 0,
        done: false,
    }));
    let crash: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(None));
    let worker = {
        let (fixed, dict, current, crash) = (fixed.clone(), dict.clone(), current.clone(), crash.clone());
        std::thread::spawn(move || {
            let mut rng = Rng(seed);
            let ocs: Vec<(&String, &String)> = fixed.corpus.iter().filter(|(p, _)| p.ends_with(".oc")).collect();
            let maps: Vec<(&String, &String)> = fixed.corpus.iter().filter(|(p, _)| p.ends_with(".map.toml")).collect();
            let texts: Vec<&String> = fixed.corpus.values().collect();
            let mut ws = Workspace::new();
            let deadline = Instant::now() + Duration::from_secs(secs);
            let mut cases = 0u64;
            while Instant::now() < deadline {
                let (kind, path, bytes) = match rng.below(12) {
                    0..=4 => {
                        let (p, t) = *rng.pick(&ocs);
                        (Kind::Oc, p.clone(), mutate(&mut rng, t.as_bytes(), &texts, &dict))
                    }
                    5 | 6 => (Kind::Oc, "gen/generated.oc".to_string(), generate(&mut rng, &dict).into_bytes()),
                    7 | 8 => {
                        let (p, t) = *rng.pick(&maps);
                        (Kind::Map, p.clone(), mutate(&mut rng, t.as_bytes(), &texts, &dict))
                    }
                    9 if rng.one_in(2) => (Kind::Lsp, "lsp".to_string(), lsp_input(&mut rng, &texts, &dict)),
                    9 if rng.one_in(3) => {
                        let manifest = std::fs::read_to_string(repo().join("oc.toml")).unwrap_or_default();
                        (Kind::Manifest, "oc.toml".to_string(), mutate(&mut rng, manifest.as_bytes(), &texts, &dict))
                    }
                    10 => {
                        let tmx = rng.pick(&fixed.tmx);
                        (Kind::Tmx, "map.tmx".to_string(), mutate(&mut rng, tmx.as_bytes(), &texts, &dict))
                    }
                    11 => (Kind::Png, "map.png".to_string(), picture(&mut rng, &fixed.pngs)),
                    _ => (Kind::Log, "log.jsonl".to_string(), mutate(&mut rng, fixed.log.as_bytes(), &texts, &dict)),
                };
                if let Ok(mut c) = current.lock() {
                    c.started = Instant::now();
                    if c.worker_stat.is_none() {
                        // `/proc/thread-self` is `/proc/PID/task/TID`: where the watchdog reads this thread's CPU time.
                        c.worker_stat = std::fs::canonicalize("/proc/thread-self").ok().map(|p| p.join("stat"));
                    }
                    c.cpu_at_start = c.worker_stat.as_deref().and_then(thread_cpu);
                    c.kind = kind;
                    c.path.clone_from(&path);
                    c.input.clone_from(&bytes);
                    c.cases = cases;
                }
                let result = catch_unwind(AssertUnwindSafe(|| run_case(&fixed, &mut ws, kind, &path, &bytes)));
                if let Err(e) = result {
                    let msg = e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
                    let saved = save_crash(kind, &bytes, "panic", &path);
                    if let Ok(mut c) = crash.lock() {
                        *c = Some(format!("panic `{}` on {} (saved as {})", msg.unwrap_or_default(), path, saved.display()));
                    }
                    break;
                }
                cases += 1;
            }
            if let Ok(mut c) = current.lock() {
                c.done = true;
                c.cases = cases;
            }
        })
    };
    loop {
        std::thread::sleep(Duration::from_millis(200));
        let Ok(c) = current.lock() else { break };
        if c.done {
            break;
        }
        // A hang is a case that has worked HANG_SECS of CPU time (a busy machine can starve a
        // case of the CPU for longer than that without its being slow), or that has waited ten
        // times that (a deadlock uses no CPU).
        let cpu = c.worker_stat.as_deref().and_then(thread_cpu).zip(c.cpu_at_start).map(|(now, at)| now.saturating_sub(at));
        let wall = c.started.elapsed();
        let hung = match cpu {
            Some(cpu) => cpu > Duration::from_secs(HANG_SECS) || wall > Duration::from_secs(10 * HANG_SECS),
            None => wall > Duration::from_secs(HANG_SECS),
        };
        if hung {
            let saved = save_crash(c.kind, &c.input, "hang", &c.path);
            panic!("a case ran over {HANG_SECS} s after {} cases (seed {seed}); saved as {}", c.cases, saved.display());
        }
    }
    let _ = worker.join();
    if let Some(c) = crash.lock().ok().and_then(|c| c.clone()) {
        panic!("seed {seed}: {c}");
    }
    current.lock().map(|c| c.cases).unwrap_or(0)
}

fn seed() -> u64 {
    std::env::var("OC_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

#[test]
fn fuzz_short_slice() {
    let secs = std::env::var("OC_FUZZ_SHORT_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    let cases = fuzz(seed(), secs);
    eprintln!("fuzz: {cases} cases in {secs} s from seed {}, no panic or hang", seed());
    // Tiled maps and pictures are slow cases in an unoptimised build, and a busy machine runs
    // fewer: this says the fuzzer ran, not how fast.
    assert!(cases > 20, "the fuzzer ran only {cases} cases");
}

#[test]
#[ignore = "an hour by default; OC_FUZZ_SECS sets it"]
fn fuzz_long() {
    let secs = std::env::var("OC_FUZZ_SECS").ok().and_then(|s| s.parse().ok()).unwrap_or(3600);
    let cases = fuzz(seed(), secs);
    eprintln!("fuzz: {cases} cases in {secs} s from seed {}, no panic or hang", seed());
}

/// Every crash the fuzzer ever found stays fixed.
#[test]
fn crashes_stay_fixed() {
    let fixed = fixed();
    let mut ws = Workspace::new();
    let mut replayed = 0;
    for entry in std::fs::read_dir(crashes_dir()).expect("tests/fixtures/crashes exists") {
        let path = entry.expect("entry").path();
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let kind = if name.ends_with(".map.toml") {
            Kind::Map
        } else if name.ends_with(".oc") {
            Kind::Oc
        } else if name.ends_with(".jsonl") {
            Kind::Log
        } else if name.ends_with(".toml") {
            Kind::Manifest
        } else if name.ends_with(".tmx") {
            Kind::Tmx
        } else if name.ends_with(".png") {
            Kind::Png
        } else if name.ends_with(".lsp") {
            Kind::Lsp
        } else {
            continue;
        };
        let bytes = std::fs::read(&path).expect("readable");
        let text = String::from_utf8_lossy(&bytes);
        let at = text.lines().next().and_then(|l| l.strip_prefix(PATH_LINE)).map_or(format!("crashes/{name}"), str::to_string);
        let started = Instant::now();
        run_case(&fixed, &mut ws, kind, &at, &bytes);
        assert!(started.elapsed() < Duration::from_secs(HANG_SECS), "{name} took {:?}", started.elapsed());
        replayed += 1;
    }
    eprintln!("replayed {replayed} crash inputs");
}

// ---------------------------------------------------------------- the language server's input
// (issue 43, item 11): what an editor writes to `oc lsp`, mutated at three levels — the framed
// bytes (headers, lengths), a message's JSON, and the documents inside — run through the
// transport's reader alone and, for one case in four, through the whole server in-process.

/// A session an editor could send, mutated; the bytes `oc lsp` would read.
fn lsp_input(rng: &mut Rng, texts: &[&String], dict: &[String]) -> Vec<u8> {
    use serde_json::json;
    let docs = ["untitled:fuzz-1", "file:///nonexistent-oc-fuzz/a.oc", "file:///nonexistent-oc-fuzz/maps/m.map.toml"];
    let doc = *rng.pick(&docs);
    let mut text = rng.pick(texts).to_string();
    if rng.one_in(2) {
        text = String::from_utf8_lossy(&mutate(rng, text.as_bytes(), texts, dict)).into_owned();
    }
    let position = |rng: &mut Rng| json!({"line": rng.below(60), "character": rng.below(40)});
    let mut messages = vec![
        json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": null, "capabilities": {}}}),
        json!({"jsonrpc": "2.0", "method": "initialized", "params": {}}),
        json!({"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": doc, "languageId": "oc", "version": 1, "text": text}}}),
    ];
    for n in 0..1 + rng.below(8) {
        let id = n as i64 + 2;
        let at = json!({"textDocument": {"uri": doc}, "position": position(rng)});
        messages.push(match rng.below(9) {
            0 => json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": doc, "version": id},
                "contentChanges": [{"range": {"start": position(rng), "end": position(rng)}, "text": rng.pick(dict)}]}}),
            1 => json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {"textDocument": {"uri": doc, "version": id},
                "contentChanges": [{"text": rng.pick(texts).as_str()}]}}),
            2 => json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/completion", "params": at}),
            3 => json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/definition", "params": at}),
            4 => json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/references", "params": {"textDocument": {"uri": doc},
                "position": position(rng), "context": {"includeDeclaration": true}}}),
            5 => json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/rename", "params": {"textDocument": {"uri": doc},
                "position": position(rng), "newName": rng.pick(dict)}}),
            6 => json!({"jsonrpc": "2.0", "id": id, "method": rng.pick(&["textDocument/documentSymbol", "textDocument/formatting"]),
                "params": {"textDocument": {"uri": doc}, "options": {"tabSize": 4, "insertSpaces": true}}}),
            7 => json!({"jsonrpc": "2.0", "method": "textDocument/didClose", "params": {"textDocument": {"uri": doc}}}),
            _ => json!({"jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": at}),
        });
    }
    messages.push(json!({"jsonrpc": "2.0", "id": 99, "method": "shutdown"}));
    messages.push(json!({"jsonrpc": "2.0", "method": "exit"}));
    let mut out = Vec::new();
    for m in messages {
        let mut body = m.to_string().into_bytes();
        if rng.one_in(6) {
            body = mutate(rng, &body, texts, dict);
        }
        let header = match rng.below(12) {
            0 => format!("Content-Length: {}\n\n", body.len()),
            1 => {
                format!("Content-Length: {}\r\n\r\n", rng.pick(&["18446744073709551615", "200000000000", "-1", "x", "16777217"]))
            }
            2 => "Content-Type: application/json\r\n\r\n".to_string(),
            3 => format!("Content-Length: {}\r\n\r\n", body.len() + rng.below(5)),
            _ => format!("Content-Length: {}\r\n\r\n", body.len()),
        };
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(&body);
    }
    if rng.one_in(4) {
        out = mutate(rng, &out, texts, dict);
    }
    out
}

/// The bytes through the transport's reader, and for one case in four (by their length: the
/// same input always does the same) through the whole server, in-process; a handler's panic,
/// which the server survives and answers as an internal error, fails the case.
fn lsp_case(bytes: &[u8]) {
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);
    impl std::io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().map_err(|_| std::io::Error::other("poisoned"))?.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut reader = oc_lsp::transport::Reader::new(bytes);
    while reader.next_incoming().is_some() {}
    if bytes.len().is_multiple_of(4) {
        // A cache folder of its own for each case (tests of this file run side by side).
        static CASE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = CASE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let cache = oc_testkit::Scratch::named("oc-fuzz-lsp", &n.to_string());
        let config = oc_lsp::Config { cache_dir: cache.to_path_buf() };
        let output = Shared::default();
        let _ = oc_lsp::serve_io(std::io::Cursor::new(bytes.to_vec()), output.clone(), &config);
        let written = output.0.lock().map(|o| String::from_utf8_lossy(&o).into_owned()).unwrap_or_default();
        assert!(!written.contains(oc_lsp::jsonrpc::INTERNAL_ERROR), "the server hit an internal error");
    }
}
