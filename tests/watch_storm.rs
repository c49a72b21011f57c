//! Issue 16, case 13 ("stale watcher"): `oc watch` must never go stale. After any sequence of
//! file operations and a quiet moment, the watcher's last JSON report equals what `oc check
//! --format json` prints for the same tree.
//!
//! A seeded storm of editor-like operations (in-place writes, atomic rename-saves, deletes,
//! re-creations, folders renamed away and back, syntax errors made and fixed, maps moved away and
//! back, new files in new folders, bad UTF-8, bad file names, links, `oc.toml` edits) is played
//! in bursts; after each burst the watcher's last report is compared with a fresh `oc check`.
//! Some edits keep a file's size and modification time (`cp -p`, `rsync -t`), which only the
//! file events report. Then the watched folder itself is deleted and recreated.
//!
//! Waiting: most bursts are compared as soon as the watcher has answered and been quiet for a
//! moment, and waited on longer (up to [`PATIENCE`]) only while it disagrees; every tenth burst
//! also waits out the watcher's 500 ms poll and 400 ms of silence first. A report arriving after
//! an agreement, with nothing touched since, must agree too once the watcher is quiet again.
//!
//! `OC_STORM_SEED=<n>` replays one storm (the seed is printed on failure).

mod common;
use common::Rng;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

const OPS: usize = 2_000;
const BURST: usize = 10;
/// Every this many bursts, wait out the watcher's poll before comparing (the other bursts compare
/// as soon as the watcher has answered, and wait longer only when it disagrees).
const THOROUGH_EVERY: usize = 10;
/// How long the watcher may take to agree with `oc check` after a burst.
const PATIENCE: Duration = Duration::from_secs(4);

const MANIFEST: &str = "[project]\nname = \"storm\"\n";
const MANIFEST_IGNORE: &str = "[project]\nname = \"storm\"\nignore = [\"extra\"]\n";
const MANIFEST_BAD: &str = "[project\nname = \"storm\"\n";

const TAGS_GOOD: &str = "tag Stubborn on class { damage_taken -= 1 }\n";
const TAGS_SYNTAX: &str = "tag Stubborn on class { damage_taken -= }\n";
const TAGS_RENAMED: &str = "tag Stoic on class { damage_taken -= 1 }\n";
const TAGS_UTF8: &[u8] = b"// caf\xe9\ntag Stubborn on class { damage_taken -= 1 }\n";

const UNIT_GOOD: &str = "import \"lib/tags.oc\"\n\nclass Mule { ratings { str C mag E skl D spd E def B res D } wields Axes tags Stubborn cost 300 }\n";
const UNIT_SYNTAX: &str =
    "import \"lib/tags.oc\"\n\nclass Mule { ratings { str C mag E skl D spd E def B res D } wields Axes tags Stubborn cost }\n";
const UNIT_TYPO: &str = "import \"lib/tag.oc\"\n\nclass Mule { ratings { str C mag E skl D spd E def B res D } wields Axes tags Stubborn cost 300 }\n";
const UNIT_LIB2: &str = "import \"lib2/tags.oc\"\n\nclass Mule { ratings { str C mag E skl D spd E def B res D } wields Axes tags Stubborn cost 300 }\n";
const UNIT_UTF8: &[u8] = b"import \"lib/tags.oc\"\n// \xff\xfe\nclass Mule { ratings { str C mag E skl D spd E def B res D } wields Axes tags Stubborn cost 300 }\n";

const RAID_GOOD: &str = r#"// A raid on the harbour of the storm map.
scenario HarbourRaid "Harbour Raid" {
    map "maps/m.map.toml"
    rounds 12 then defender
    attacker {
        zone "attacker-zone"
        war_chest 9000
        units 4..5
        grant Leader to 1
        at_least 1 with Leader
        win seize "harbour-fort"
    }
    defender {
        zone "defender-zone"
        war_chest 7000
        units 4..5
        win rout "Eirika" or survive 12 rounds
    }
}

army PrincessEscort "The Princess's Escort" for HarbourRaid attacker {
    unit Eirika: Lord { items Rapier, Vulnerary tags Leader }
    unit Seth: Cavalier { items SteelSword, IronLance }
    unit Franz: Cavalier { items IronSword, Javelin }
    unit Moulder: Priest { items HealStaff }
}

army HarbourGarrison "Harbour Garrison" for HarbourRaid defender {
    unit Breguet: Knight { items IronLance }
    unit Bone: Pirate { items IronAxe, HandAxe }
    unit Gheb: Fighter { items SteelAxe }
    unit Saar: Archer { items IronBow }
}
"#;

const MAP_GOOD: &str = r#"# A harbour town: narrow streets between houses, a fort on the quay, the sea at its back.
name = "Serafew"
width = 20
height = 10
grid = 70
rounds = 12
rows = [
  "..........bb..b...~~",
  ".bb.v..bb.bb..bv..~~",
  ".bb....bb.........~~",
  "....::.....bb.b..:~~",
  ".v..::.bb..bb....:~~",
  "....::........F.::~~",
  ".bb....v.bb.....:~~~",
  ".bb......bb..b..:~~~",
  "....bb.......b.::~~~",
  "....bb..v.......:~~~",
]

[legend]
"~" = "Sea"
"F" = "Fort"
"." = "Plains"
":" = "Sand"
"b" = "Buildings"
"v" = "Village Gate"

[[regions]]
name = "attacker-zone"
kind = "deployment"
side = "attacker"
rect = [0, 3, 3, 3]
units = 5

[[regions]]
name = "defender-zone"
kind = "deployment"
side = "defender"
rect = [13, 4, 3, 4]
units = 5

[[regions]]
name = "harbour-fort"
kind = "seize"
side = "attacker"
tiles = [[14, 5]]

[[chests]]
at = [15, 1]
item = "Vulnerary"
"#;

const RULES_MAP_GOOD: &str = r#"name = "Ruled"
rules = "../unit.oc"
width = 5
height = 4
allow = ["oc::atlas::unused_legend"]
rows = [
  ".....",
  ".....",
  ".....",
  ".....",
]

[legend]
"." = "Plains"
"k" = "Forest"
"#;

/// A file of the project and the texts the storm writes into it (the first is the good one).
struct Subject {
    path: &'static str,
    variants: Vec<Vec<u8>>,
}

fn subjects() -> Vec<Subject> {
    let b = |s: &str| s.as_bytes().to_vec();
    let map_ragged = MAP_GOOD.replacen("\"..........bb..b...~~\"", "\"..........bb..b...~~~\"", 1);
    let map_no_zone = MAP_GOOD.replacen("name = \"attacker-zone\"", "name = \"landing\"", 1);
    let mut map_utf8 = b"# \xff\xfe harbour\n".to_vec();
    map_utf8.extend_from_slice(MAP_GOOD.as_bytes());
    vec![
        Subject { path: "lib/tags.oc", variants: vec![b(TAGS_GOOD), b(TAGS_SYNTAX), b(TAGS_RENAMED), TAGS_UTF8.to_vec()] },
        Subject { path: "unit.oc", variants: vec![b(UNIT_GOOD), b(UNIT_SYNTAX), b(UNIT_TYPO), b(UNIT_LIB2), UNIT_UTF8.to_vec()] },
        Subject {
            path: "raid.oc",
            variants: vec![
                b(RAID_GOOD),
                b(&RAID_GOOD.replacen("maps/m.map.toml", "maps/gone.map.toml", 1)),
                b(&RAID_GOOD.replacen("rounds 12 then defender", "rounds then", 1)),
                b(&RAID_GOOD.replacen("Eirika: Lord", "Eirika: Mule", 1)),
            ],
        },
        Subject { path: "maps/m.map.toml", variants: vec![b(MAP_GOOD), b(&map_ragged), b(&map_no_zone), map_utf8] },
        Subject {
            path: "maps/r.map.toml",
            variants: vec![
                b(RULES_MAP_GOOD),
                b(&RULES_MAP_GOOD.replacen("../unit.oc", "../nope.oc", 1)),
                b(&RULES_MAP_GOOD.replacen("../unit.oc", "../lib/tags.oc", 1)),
                b(&RULES_MAP_GOOD.replacen("  \".....\",\n]", "  \"....\",\n]", 1)),
            ],
        },
    ]
}

/// Same-length spellings that change what a file means.
const TWINS: &[(&str, &str)] =
    &[("Stubborn", "Stubborx"), ("attacker-zone", "attacker-zonf"), ("../unit.oc", "../unix.oc"), ("Lord {", "Lorx {")];

/// Rewrites a file in place with a same-length variant of its text and puts its modification
/// time back, as `cp -p` or `rsync -t` do: size, time and inode unchanged, so only the file
/// events tell the watcher.
fn twin(path: &Path) -> String {
    use std::io::Write;
    let show = path.display();
    let (Ok(bytes), Ok(meta)) = (std::fs::read(path), std::fs::metadata(path)) else {
        return format!("{show}: not there");
    };
    let Ok(modified) = meta.modified() else { return format!("{show}: no modification time") };
    let text = String::from_utf8_lossy(&bytes);
    if text.len() != bytes.len() {
        return format!("{show}: not UTF-8, left alone");
    }
    let Some(new) = TWINS.iter().find_map(|(a, b)| {
        if text.contains(a) {
            Some(text.replace(a, b))
        } else if text.contains(b) {
            Some(text.replace(b, a))
        } else {
            None
        }
    }) else {
        return format!("{show}: nothing to swap");
    };
    assert_eq!(new.len(), bytes.len());
    let file = std::fs::OpenOptions::new().write(true).truncate(true).open(path);
    match file.and_then(|mut f| {
        f.write_all(new.as_bytes())?;
        f.set_modified(modified)
    }) {
        Ok(()) => format!("rewrote {show} keeping its size and time"),
        Err(e) => format!("rewriting {show} failed: {e}"),
    }
}

/// Lines a child printed, with when each arrived.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<(Instant, String)>>>);

impl Lines {
    fn follow(&self, stream: impl std::io::Read + Send + 'static) {
        let lines = self.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream).lines().map_while(Result::ok) {
                lines.0.lock().unwrap().push((Instant::now(), line));
            }
        });
    }

    fn len(&self) -> usize {
        self.0.lock().unwrap().len()
    }

    /// The last line and how long ago it arrived.
    fn last(&self) -> Option<(Duration, String)> {
        self.0.lock().unwrap().last().map(|(at, line)| (at.elapsed(), line.clone()))
    }

    fn tail(&self, n: usize) -> String {
        let all = self.0.lock().unwrap();
        let from = all.len().saturating_sub(n);
        all[from..].iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>().join("\n")
    }
}

/// The running watcher, killed when dropped (also when the test fails).
struct Watcher {
    child: Child,
    out: Lines,
    err: Lines,
}

impl Watcher {
    fn start(dir: &Path) -> Watcher {
        let mut child = Command::new(env!("CARGO_BIN_EXE_oc"))
            .arg("watch")
            .arg(dir)
            .args(["--format", "json", "--no-clear", "--debounce", "30"])
            .env("NO_COLOR", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("oc watch starts");
        let (out, err) = (Lines::default(), Lines::default());
        out.follow(child.stdout.take().unwrap());
        err.follow(child.stderr.take().unwrap());
        Watcher { child, out, err }
    }

    fn alive(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_none()
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[cfg(unix)]
fn inode(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| std::os::unix::fs::MetadataExt::ino(&m))
}

#[cfg(not(unix))]
fn inode(_: &Path) -> Option<u64> {
    None
}

/// `oc check DIR --format json`, started now (the tree does not change until it is read).
fn start_check(dir: &Path) -> Child {
    Command::new(env!("CARGO_BIN_EXE_oc"))
        .arg("check")
        .arg(dir)
        .args(["--format", "json"])
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("oc check starts")
}

fn finish_check(child: Child) -> Value {
    let out = child.wait_with_output().expect("oc check runs");
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("oc check printed no JSON ({e}): {text:?} ({:?})", out.status))
}

fn parse(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("the watcher printed a line that is not JSON ({e}): {line:?}"))
}

struct Storm {
    dir: PathBuf,
    rng: Rng,
    subjects: Vec<Subject>,
    fresh: usize,
}

impl Storm {
    fn at(&self, rel: &str) -> PathBuf {
        self.dir.join(rel)
    }

    fn write(&self, rel: &str, bytes: &[u8]) -> String {
        let path = self.at(rel);
        if let Some(parent) = path.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        match std::fs::write(&path, bytes) {
            Ok(()) => format!("write {rel} ({} bytes)", bytes.len()),
            Err(e) => format!("write {rel} failed: {e}"),
        }
    }

    /// An editor's safe save: a temporary file beside it, renamed over it.
    fn save_atomically(&self, rel: &str, bytes: &[u8]) -> String {
        let path = self.at(rel);
        let Some(parent) = path.parent() else { return format!("atomic save {rel}: no parent") };
        let _ = std::fs::create_dir_all(parent);
        let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let tmp = parent.join(format!(".{name}.x.tmp"));
        if let Err(e) = std::fs::write(&tmp, bytes) {
            return format!("atomic save {rel} failed: {e}");
        }
        match std::fs::rename(&tmp, &path) {
            Ok(()) => format!("atomic save {rel} ({} bytes)", bytes.len()),
            Err(e) => format!("atomic save {rel} failed: {e}"),
        }
    }

    fn rename(&self, from: &str, to: &str) -> String {
        match std::fs::rename(self.at(from), self.at(to)) {
            Ok(()) => format!("rename {from} -> {to}"),
            Err(e) => format!("rename {from} -> {to} failed: {e}"),
        }
    }

    fn variant(&mut self, subject: usize) -> (&'static str, Vec<u8>, usize) {
        let s = &self.subjects[subject];
        // Mostly the good text, so errors come and go rather than pile up.
        let v = if self.rng.chance(45) { 0 } else { self.rng.below(s.variants.len()) };
        (s.path, s.variants[v].clone(), v)
    }

    /// One editor-like operation; returns what it did.
    fn op(&mut self) -> String {
        let subject = self.rng.below(self.subjects.len());
        match self.rng.below(100) {
            0..=24 => {
                let (path, bytes, v) = self.variant(subject);
                format!("{} [variant {v}]", self.write(path, &bytes))
            }
            25..=44 => {
                let (path, bytes, v) = self.variant(subject);
                format!("{} [variant {v}]", self.save_atomically(path, &bytes))
            }
            45..=49 => {
                let path = self.subjects[subject].path;
                match std::fs::remove_file(self.at(path)) {
                    Ok(()) => format!("delete {path}"),
                    Err(e) => format!("delete {path} failed: {e}"),
                }
            }
            50..=54 => {
                // Recreate whatever is missing, with its good text.
                let missing: Vec<usize> =
                    (0..self.subjects.len()).filter(|i| !self.at(self.subjects[*i].path).exists()).collect();
                match missing.get(self.rng.below(missing.len())) {
                    Some(i) => {
                        let s = &self.subjects[*i];
                        format!("recreate: {}", self.write(s.path, &s.variants[0].clone()))
                    }
                    None => "recreate: nothing missing".to_string(),
                }
            }
            55..=59 => {
                // A folder renamed away and back (or left away until the next time).
                let (lib, lib2) = (self.at("lib").exists(), self.at("lib2").exists());
                match (lib, lib2) {
                    (true, false) if self.rng.chance(50) => {
                        let a = self.rename("lib", "lib2");
                        self.pause();
                        format!("{a}; {}", self.rename("lib2", "lib"))
                    }
                    (true, false) => self.rename("lib", "lib2"),
                    (false, true) => self.rename("lib2", "lib"),
                    (true, true) => match std::fs::remove_dir_all(self.at("lib2")) {
                        Ok(()) => "remove lib2/".to_string(),
                        Err(e) => format!("remove lib2/ failed: {e}"),
                    },
                    (false, false) => self.write("lib/tags.oc", TAGS_GOOD.as_bytes()),
                }
            }
            60..=66 => {
                // A syntax error, then its fix.
                let s = &self.subjects[subject];
                let path = s.path;
                let (bad, good) = (s.variants[1].clone(), s.variants[0].clone());
                let a = self.write(path, &bad);
                self.pause();
                let b = if self.rng.chance(50) { self.write(path, &good) } else { self.save_atomically(path, &good) };
                format!("break then fix: {a}; {b}")
            }
            67..=71 => {
                // The map moved away and back.
                let (here, away) = (self.at("maps/m.map.toml").exists(), self.at("parked.map.bak").exists());
                match (here, away) {
                    (true, false) if self.rng.chance(50) => {
                        let a = self.rename("maps/m.map.toml", "parked.map.bak");
                        self.pause();
                        format!("{a}; {}", self.rename("parked.map.bak", "maps/m.map.toml"))
                    }
                    (true, false) => self.rename("maps/m.map.toml", "parked.map.bak"),
                    (false, true) => {
                        let _ = std::fs::create_dir_all(self.at("maps"));
                        self.rename("parked.map.bak", "maps/m.map.toml")
                    }
                    (true, true) => match std::fs::remove_file(self.at("parked.map.bak")) {
                        Ok(()) => "delete parked.map.bak".to_string(),
                        Err(e) => format!("delete parked.map.bak failed: {e}"),
                    },
                    (false, false) => self.write("maps/m.map.toml", MAP_GOOD.as_bytes()),
                }
            }
            72..=77 => {
                // A new file with an error, sometimes in a new folder, sometimes importing others.
                self.fresh += 1;
                let n = self.fresh;
                let (rel, text) = match self.rng.below(4) {
                    0 => (format!("extra/n{n}.oc"), format!("class Broken{n} {{\n")),
                    1 => (
                        format!("extra/d{n}/deep/x.oc"),
                        "import \"../../../unit.oc\"\nclass Rider { ratings { str C mag E skl D spd E def B res D } wields Axes tags Stubborn, Nope cost 200 }\n".to_string(),
                    ),
                    2 => (format!("extra/n{n}.oc"), "import \"../lib/tags.oc\"\nimport \"../missing.oc\"\n".to_string()),
                    _ => (format!("extra/m{n}.map.toml"), "name = \"Extra\"\nrules = \"../unit.oc\"\nwidth = 2\nheight = 1\nrows = [\"..\"]\n".to_string()),
                };
                self.write(&rel, text.as_bytes())
            }
            78..=80 => match std::fs::remove_dir_all(self.at("extra")) {
                Ok(()) => "remove extra/".to_string(),
                Err(e) => format!("remove extra/ failed: {e}"),
            },
            81..=84 => {
                // The maps folder renamed away and back.
                let (here, away) = (self.at("maps").exists(), self.at("atlas").exists());
                match (here, away) {
                    (true, false) if self.rng.chance(60) => {
                        let a = self.rename("maps", "atlas");
                        self.pause();
                        format!("{a}; {}", self.rename("atlas", "maps"))
                    }
                    (true, false) => self.rename("maps", "atlas"),
                    (false, true) => self.rename("atlas", "maps"),
                    (true, true) => match std::fs::remove_dir_all(self.at("atlas")) {
                        Ok(()) => "remove atlas/".to_string(),
                        Err(e) => format!("remove atlas/ failed: {e}"),
                    },
                    (false, false) => self.write("maps/r.map.toml", RULES_MAP_GOOD.as_bytes()),
                }
            }
            85..=87 => {
                let text = match self.rng.below(5) {
                    0 | 1 => MANIFEST,
                    2 => MANIFEST_IGNORE,
                    3 => MANIFEST_BAD,
                    _ => {
                        return match std::fs::remove_file(self.at("oc.toml")) {
                            Ok(()) => "delete oc.toml".to_string(),
                            Err(e) => format!("delete oc.toml failed: {e}"),
                        }
                    }
                };
                if self.rng.chance(50) {
                    self.write("oc.toml", text.as_bytes())
                } else {
                    self.save_atomically("oc.toml", text.as_bytes())
                }
            }
            88..=90 => self.bad_name(),
            91..=93 => self.link(),
            94..=97 => {
                let path = self.subjects[subject].path;
                format!("same size, time kept: {}", twin(&self.at(path)))
            }
            _ => {
                // Rewrite a file with the bytes it already has (an editor's save without change).
                let path = self.subjects[subject].path;
                match std::fs::read(self.at(path)) {
                    Ok(bytes) => format!("resave: {}", self.write(path, &bytes)),
                    Err(e) => format!("resave {path} failed: {e}"),
                }
            }
        }
    }

    /// Sometimes nothing, sometimes long enough for the watcher to wake in the middle.
    fn pause(&mut self) {
        match self.rng.below(4) {
            0 => {}
            1 => std::thread::sleep(Duration::from_millis(1)),
            2 => std::thread::sleep(Duration::from_millis(self.rng.below(20) as u64)),
            _ => std::thread::sleep(Duration::from_millis(25 + self.rng.below(40) as u64)),
        }
    }

    #[cfg(unix)]
    fn bad_name(&mut self) -> String {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"bad\xff.oc");
        let path = self.dir.join("extra").join(name);
        if path.exists() {
            match std::fs::remove_file(&path) {
                Ok(()) => "delete extra/bad?.oc".to_string(),
                Err(e) => format!("delete extra/bad?.oc failed: {e}"),
            }
        } else {
            let _ = std::fs::create_dir_all(self.at("extra"));
            match std::fs::write(&path, TAGS_GOOD) {
                Ok(()) => "create extra/bad?.oc (name not UTF-8)".to_string(),
                Err(e) => format!("create extra/bad?.oc failed: {e}"),
            }
        }
    }

    #[cfg(not(unix))]
    fn bad_name(&mut self) -> String {
        "bad name: not on this system".to_string()
    }

    /// A link to a file of the project, named like a root: edits reach it through its target.
    #[cfg(unix)]
    fn link(&mut self) -> String {
        let path = self.at("alias.oc");
        if std::fs::symlink_metadata(&path).is_ok() {
            match std::fs::remove_file(&path) {
                Ok(()) => "delete link alias.oc".to_string(),
                Err(e) => format!("delete link alias.oc failed: {e}"),
            }
        } else {
            match std::os::unix::fs::symlink("unit.oc", &path) {
                Ok(()) => "link alias.oc -> unit.oc".to_string(),
                Err(e) => format!("link alias.oc failed: {e}"),
            }
        }
    }

    #[cfg(not(unix))]
    fn link(&mut self) -> String {
        "link: not on this system".to_string()
    }

    /// The starting tree.
    fn plant(&self) {
        std::fs::create_dir_all(&self.dir).unwrap();
        std::fs::write(self.at("oc.toml"), MANIFEST).unwrap();
        for s in &self.subjects {
            let path = self.at(s.path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, &s.variants[0]).unwrap();
        }
    }
}

/// What only `oc check` reported and what only the watcher did, one diagnostic a line.
fn difference(check: &Value, watch: &Value) -> String {
    let list = |v: &Value| -> Vec<String> {
        let mut l: Vec<String> = v["diagnostics"].as_array().into_iter().flatten().map(Value::to_string).collect();
        l.push(format!("files: {}, errors: {}, warnings: {}", v["files"], v["errors"], v["warnings"]));
        l
    };
    let (c, w) = (list(check), list(watch));
    let count = |l: &[String], d: &String| l.iter().filter(|x| *x == d).count();
    let mut out = String::new();
    let mut shown = Vec::new();
    for d in c.iter().chain(w.iter()) {
        let (in_check, in_watch) = (count(&c, d), count(&w, d));
        if in_check != in_watch && !shown.contains(&d) {
            shown.push(d);
            out.push_str(&format!("{in_check} in check, {in_watch} in watch: {d}\n"));
        }
    }
    if out.is_empty() {
        out.push_str("(the same diagnostics, in another order)\n");
    }
    out
}

/// Waits until the watcher agrees with `expected` (its last report equal, and then nothing new
/// for a while); panics with everything known when it does not within [`PATIENCE`].
///
/// `thorough`: also wait out the watcher's 500 ms poll after the burst before believing it.
fn agree(
    watcher: &mut Watcher,
    expected: &Value,
    count_before: usize,
    burst_end: Instant,
    thorough: bool,
    why: &dyn Fn() -> String,
) {
    let (min_since_burst, min_quiet) = if thorough {
        (Duration::from_millis(650), Duration::from_millis(400))
    } else {
        (Duration::ZERO, Duration::from_millis(90))
    };
    let mut last_seen = None;
    loop {
        let waited = burst_end.elapsed();
        if let Some((quiet, line)) = watcher.out.last() {
            let answered = watcher.out.len() > count_before || waited > Duration::from_millis(700);
            if answered && quiet >= min_quiet && waited >= min_since_burst {
                let got = parse(&line);
                if &got == expected {
                    return;
                }
                last_seen = Some(got);
            }
        }
        if waited > PATIENCE || !watcher.alive() {
            panic!(
                "the watcher's last report differs from `oc check` {waited:.1?} after the burst{}\n{}\n{}\
                 --- oc check:\n{}\n--- oc watch (last report):\n{}\n--- watcher stderr (tail):\n{}",
                if watcher.alive() { "" } else { " (the watcher exited)" },
                why(),
                last_seen.as_ref().map_or(String::new(), |got| difference(expected, got)),
                serde_json::to_string_pretty(expected).unwrap(),
                last_seen.map_or("(none)".to_string(), |v| serde_json::to_string_pretty(&v).unwrap()),
                watcher.err.tail(30),
            );
        }
        std::thread::sleep(Duration::from_millis(15));
    }
}

#[test]
fn watch_report_equals_check_after_random_editor_operations() {
    let started = Instant::now();
    let seed: u64 = std::env::var("OC_STORM_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5EED_0016_0013);
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-watch-storm-{}", std::process::id())));
    let mut storm = Storm { dir: dir.to_path_buf(), rng: Rng(seed), subjects: subjects(), fresh: 0 };
    storm.plant();

    let mut watcher = Watcher::start(&dir);
    let check = start_check(&dir);
    let expected = finish_check(check);
    agree(&mut watcher, &expected, 0, Instant::now(), true, &|| format!("at start (seed {seed})"));

    let bursts = OPS / BURST;
    let mut done = 0;
    let mut late_checks = 0;
    let (mut burst_time, mut check_time) = (Duration::ZERO, Duration::ZERO);
    let mut accepted = (watcher.out.len(), expected);
    for burst in 0..bursts {
        // A report that came after the last agreement, with no file touched since: once the
        // watcher is quiet again, it must still agree.
        if watcher.out.len() > accepted.0 {
            late_checks += 1;
            agree(&mut watcher, &accepted.1, accepted.0, Instant::now(), true, &|| {
                format!("seed {seed}: a late report after burst {}, no file touched since", burst.wrapping_sub(1))
            });
        }
        let count_before = watcher.out.len();
        let burst_start = Instant::now();
        let mut log = Vec::new();
        for _ in 0..BURST {
            log.push(storm.op());
            done += 1;
            if storm.rng.chance(30) {
                storm.pause();
            }
        }
        let burst_end = Instant::now();
        burst_time += burst_end.duration_since(burst_start);
        let expected = finish_check(start_check(&dir));
        check_time += burst_end.elapsed();
        let thorough = burst % THOROUGH_EVERY == THOROUGH_EVERY - 1;
        agree(&mut watcher, &expected, count_before, burst_end, thorough, &|| {
            format!(
                "seed {seed}, burst {burst} of {bursts} (OC_STORM_SEED={seed} replays it); its operations:\n  {}",
                log.join("\n  ")
            )
        });
        accepted = (watcher.out.len(), expected);
    }
    assert!(done >= 2_000, "{done} operations");

    // The watched folder itself deleted, then recreated with files: the watch is re-armed. Once
    // with time for the watcher to see it gone, then at once, a few times (the new folder often
    // gets the old one's inode, which the watcher must not take for the old folder).
    let mut same_inode = 0;
    for round in 0..4 {
        let count_before = watcher.out.len();
        let old_inode = inode(&dir);
        std::fs::remove_dir_all(&dir).unwrap();
        if round == 0 {
            // Let it notice the folder is gone: it says so with an empty report.
            let gone = serde_json::json!({"diagnostics": [], "files": 0, "errors": 0, "warnings": 0});
            agree(&mut watcher, &gone, count_before, Instant::now(), false, &|| "the watched folder deleted".to_string());
            std::thread::sleep(Duration::from_millis(700));
        }
        let count_before = watcher.out.len();
        storm.plant();
        same_inode += usize::from(round > 0 && inode(&dir) == old_inode);
        std::fs::write(dir.join("unit.oc"), UNIT_TYPO).unwrap();
        let burst_end = Instant::now();
        let expected = finish_check(start_check(&dir));
        assert_ne!(expected["errors"], 0, "the recreated tree has an error to report");
        agree(&mut watcher, &expected, count_before, burst_end, true, &|| format!("folder deleted and recreated, round {round}"));
        // And it follows edits in the new folder through its events, not only by comparing
        // stamps: this edit keeps size, time and inode, which only an event reports.
        let count_before = watcher.out.len();
        let what = twin(&dir.join("unit.oc"));
        let burst_end = Instant::now();
        let before = expected;
        let expected = finish_check(start_check(&dir));
        assert_ne!(before, expected, "{what}: the edit changes the report");
        agree(&mut watcher, &expected, count_before, burst_end, true, &|| {
            format!("an edit keeping size and time after the folder came back, round {round}: {what}")
        });
    }

    assert!(watcher.alive(), "the watcher exited");
    drop(watcher);
    eprintln!(
        "{done} operations in {bursts} bursts ({late_checks} late reports rechecked), seed {seed}, {:.1?} \
         (operations {burst_time:.1?}, oc check {check_time:.1?}); folder recreated on its old inode {same_inode} of 3 times",
        started.elapsed()
    );
}
