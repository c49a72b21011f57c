//! One output policy for every command that writes a file (`build -o`, `battle --log`,
//! `simulate --out`, `matrix --out`, `render -o`, `export -o`, `import-image -o`):
//!
//! - `-` means standard output;
//! - never over an input of the same command, nor over any source of a project (`.oc`,
//!   `*.map.toml`, `oc.toml`, `.ocignore`; compared without regard to case), even with `--force`;
//! - only a regular file or a new path: a symbolic link, a FIFO, a device or a folder at the
//!   output path is refused, never replaced or written through;
//! - an existing file is replaced only with `--force`, or when it is recognisably a previous
//!   output of the same kind (a battle log's header, `oc build`'s rules, the matrix's CSV header,
//!   a PNG carrying oc's `Software` text, ...);
//! - the write is atomic: an unpredictable temporary file created exclusively (`O_EXCL`) in the
//!   target's folder, synced, then renamed over the target; removed if anything fails.
//!
//! `oc fmt` is the one command that writes a source: [`rewrite_source`] replaces a file of the
//! project with its formatted text, confined like a read and atomic like an output.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::discover::is_source_name;
use crate::fsx::Confined;
use crate::limits::MAX_SOURCE_BYTES;

/// What a command writes, for telling its previous outputs apart from anything else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `oc build`: the compiled rules as JSON.
    Rules,
    /// `oc battle --log`: JSON lines starting with the source header.
    BattleLog,
    /// `oc matrix --out`.
    MatrixCsv,
    /// `oc simulate --out`: its report (human text or JSON).
    SimulationReport,
    /// `oc simulate --shard K/N --out`: one shard's counts (JSON).
    SimulationPart,
    /// `oc fairness --shard K/N --out`: one shard's rows (JSON).
    FairnessPart,
    /// `oc tune --shard K/N --parts DIR`: one shard's games of one round (JSON).
    TunePart,
    /// A PNG that this command of oc drew (`oc render`, `oc export foundry`'s background,
    /// `oc export tiled`'s tileset): its `Comment` text chunk says which
    /// ([`oc_atlas::render::png_drawn_by`]), so that one command never replaces another's picture
    /// without `--force`.
    Picture(&'static str),
    /// `oc export foundry`.
    FoundryScene,
    /// `oc export tiled`.
    TiledMap,
    /// `oc export uvtt`: a Universal VTT file carrying oc's `software` key.
    UvttMap,
    /// `oc import tiled`: a map definition. It replaces only a map `oc import tiled` wrote
    /// (its first line is [`IMPORT_MARK`]), and that only with `--force` (it may have been edited
    /// since); a map written by hand is a source, never replaced.
    ImportedMap,
    /// `oc import-image`: a new map definition (a source: never replaced without `--force`).
    MapDefinition,
    /// `oc battle --html`, `oc replay --html`: a replay page carrying [`REPLAY_MARK`].
    ReplayPage,
    /// `oc simulate --plot`, `oc matrix --heatmap`: a PNG carrying oc's `Software` text, or an
    /// SVG carrying [`PLOT_MARK`].
    Plot,
}

/// The text chunk oc puts in every PNG it writes (`Software` = this), so a later run can tell
/// its own picture from a painting it must not replace.
pub use oc_atlas::render::SOFTWARE as PNG_SOFTWARE;
/// The first line of a matrix CSV.
pub const MATRIX_HEADER: &str =
    "attacker,weapon,defender,defender_weapon,distance,rout_chance,expected_damage,counter_rout_chance,expected_damage_taken";
pub use oc_atlas::export::TMX_MARK;
pub use oc_atlas::tiled::IMPORT_MARK;
/// The `software` entry of every Universal VTT file oc writes, as it reads in the JSON.
pub const UVTT_MARK: &str = "\"software\": \"oc (Officer's Chess authoring toolkit)\"";
/// The line near the top of every replay page oc writes.
pub const REPLAY_MARK: &str = "<meta name=\"generator\" content=\"oc replay page\">";
/// The comment at the top of every SVG plot oc writes.
pub const PLOT_MARK: &str = "<!-- oc plot (Officer's Chess authoring toolkit) -->";

impl Kind {
    /// What an earlier output of this kind is, in words: "it is not {what}".
    fn what(self) -> String {
        match self {
            Kind::Rules => "rules `oc build` compiled".into(),
            Kind::BattleLog => "a battle log oc wrote".into(),
            Kind::MatrixCsv => "a matrix CSV oc wrote".into(),
            Kind::SimulationReport => "a simulation report oc wrote".into(),
            Kind::SimulationPart => "a simulation part oc wrote".into(),
            Kind::FairnessPart => "a fairness part oc wrote".into(),
            Kind::TunePart => "a tuning part oc wrote".into(),
            Kind::Picture(drawer) => format!("a picture `{drawer}` drew"),
            Kind::FoundryScene => "a Foundry scene oc exported".into(),
            Kind::TiledMap => "a Tiled map oc exported".into(),
            Kind::UvttMap => "a Universal VTT map oc exported".into(),
            Kind::ImportedMap => "a map `oc import tiled` wrote".into(),
            Kind::MapDefinition => "a map definition oc wrote".into(),
            Kind::ReplayPage => "a replay page oc wrote".into(),
            Kind::Plot => "a plot oc drew".into(),
        }
    }

    /// Whether `bytes` (a whole existing file) is an earlier output of this kind, whole: its
    /// start says so and nothing in it is what oc never writes there (a line added to a report, a
    /// row annotated in a CSV, text after a page's end, a JSON part that no longer parses), so a
    /// file oc wrote and a person then added to is refused like any other file of theirs. Inside
    /// a page, a drawing or a picture (between its start and its end) only their marks are read:
    /// text added there is not told apart.
    pub fn recognises(self, bytes: &[u8]) -> bool {
        let text = String::from_utf8_lossy(bytes);
        let first_line = text.lines().next().unwrap_or("");
        let json = || serde_json::from_slice::<serde_json::Value>(bytes).is_ok_and(|v| v.is_object());
        let json_lines = || text.lines().all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.is_object()));
        let ends = |tail: &str| text.trim_end().ends_with(tail);
        let one_line = || text.trim_end_matches('\n').lines().count() == 1;
        match self {
            Kind::Rules => text.trim_start().starts_with('{') && text.contains("\"format_version\"") && json(),
            Kind::BattleLog => first_line.starts_with("{\"event\":\"source\",") && json_lines(),
            Kind::MatrixCsv => {
                let fields = MATRIX_HEADER.split(',').count();
                first_line == MATRIX_HEADER && text.lines().all(|l| l.split(',').count() == fields)
            }
            Kind::SimulationReport => {
                (first_line.starts_with('{') && text.contains("\"attacker_win_rate\"") && json())
                    || (first_line.contains(" games from seed ") && simulation_report_lines(&text))
            }
            Kind::SimulationPart => first_line.starts_with("{\"kind\":\"oc simulate part\"") && one_line() && json(),
            Kind::FairnessPart => first_line.starts_with("{\"kind\":\"oc fairness part\"") && one_line() && json(),
            Kind::TunePart => first_line.starts_with("{\"kind\":\"oc tune part\"") && one_line() && json(),
            Kind::Picture(drawer) => drawn_by(bytes, drawer) && png_whole(bytes),
            Kind::FoundryScene => text.trim_start().starts_with('{') && text.contains("\"tiles_wide\"") && json(),
            Kind::TiledMap => text.contains(TMX_MARK) && ends("</map>"),
            Kind::UvttMap => text.trim_start().starts_with('{') && text.contains(UVTT_MARK) && json(),
            Kind::ImportedMap => text.trim_start_matches('\u{feff}').lines().next() == Some(IMPORT_MARK),
            Kind::MapDefinition => false,
            Kind::ReplayPage => text.trim_start().starts_with("<!DOCTYPE html>") && text.contains(REPLAY_MARK) && ends("</html>"),
            Kind::Plot => {
                (drawn_by(bytes, PLOT_DRAWER) && png_whole(bytes))
                    || (text.trim_start().starts_with("<?xml") && text.contains(PLOT_MARK) && ends("</svg>"))
            }
        }
    }
}

/// Whether the lines after a human simulation report's title are the report's own, in its order
/// (`oc_render::simulate::report`): each side's wins, the draws, then how games ended, each
/// ending (and each alternative of it) on a line indented under it.
fn simulation_report_lines(text: &str) -> bool {
    let mut lines = text.lines().skip(1);
    let heads = ["  attacker wins ", "  defender wins ", "  draws "];
    heads.iter().all(|h| lines.next().is_some_and(|l| l.starts_with(h)))
        && lines.next() == Some("  how games ended:")
        && lines.all(|l| l.starts_with("    "))
}

/// Whether a PNG ends with its `IEND` chunk: nothing was added after the picture.
fn png_whole(bytes: &[u8]) -> bool {
    bytes.ends_with(&[0, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82])
}

/// Who draws plots (`oc simulate --plot`, `oc matrix --heatmap`), as their PNGs say.
pub const PLOT_DRAWER: &str = "oc plot";

/// Whether `head` is a PNG oc wrote and `drawer` drew (no drawer's name is the start of
/// another's). A picture of an older oc, which did not say who drew it, counts as any command's.
fn drawn_by(head: &[u8], drawer: &str) -> bool {
    let mark = oc_atlas::render::DRAWN_BY_KEY.as_bytes();
    head.starts_with(b"\x89PNG\r\n\x1a\n")
        && contains(head, PNG_SOFTWARE.as_bytes())
        && (!contains(head, mark) || contains(head, &[mark, drawer.as_bytes()].concat()))
}

fn contains(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

/// Where an output goes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    Stdout,
    File(OutFile),
}

/// A file output that passed the policy, with what the policy saw, so the write can check
/// again at the last moment (a long simulation leaves time for the path to change).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutFile {
    pub path: PathBuf,
    kind: Kind,
    force: bool,
    existed: bool,
}

impl Target {
    /// The target once written: the file is this run's own output now, which a later write of
    /// the same run replaces (a log written as a game goes on).
    pub fn written(&self) -> Target {
        match self {
            Target::File(f) => Target::File(OutFile { existed: true, ..f.clone() }),
            Target::Stdout => Target::Stdout,
        }
    }

    pub fn show(&self) -> String {
        match self {
            Target::Stdout => "standard output".to_string(),
            Target::File(f) => f.path.display().to_string(),
        }
    }
}

/// Why an output path was refused: the message and a help line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refused {
    pub message: String,
    pub help: String,
}

impl std::error::Error for Refused {}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}\nhelp: {}", self.message, self.help)
    }
}

#[cfg(unix)]
fn same_file(a: &std::fs::Metadata, b: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    a.dev() == b.dev() && a.ino() == b.ino()
}

#[cfg(not(unix))]
fn same_file(_: &std::fs::Metadata, _: &std::fs::Metadata) -> bool {
    false
}

/// Refused where two outputs of one command (each named by its flag) name one file (`--out` and
/// `--plot` alike): the second write would replace the first, or be refused after it was made.
/// Paths are compared where they lead (their folder resolved), so `./a.svg` is `a.svg`;
/// standard output (`-`) is no file.
pub fn apart(outputs: &[(&str, Option<&Path>)]) -> Result<(), Refused> {
    let given: Vec<(&str, &Path, PathBuf)> =
        outputs.iter().filter_map(|(flag, p)| p.filter(|p| p.as_os_str() != "-").map(|p| (*flag, p, leads_to(p)))).collect();
    for (i, (flag, path, at)) in given.iter().enumerate() {
        if let Some((other, _, _)) = given.iter().skip(i + 1).find(|(_, _, b)| b == at) {
            return Err(Refused {
                message: format!("{flag} and {other} name one file ({}): each output needs a file of its own", path.display()),
                help: format!("give {other} another path"),
            });
        }
    }
    Ok(())
}

/// Where a path leads, its folder resolved (the file itself need not exist): two paths that
/// lead to one place name one file (`./a.svg` and `a.svg`, a path and its absolute form).
pub fn leads_to(p: &Path) -> PathBuf {
    let parent = p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    match (std::fs::canonicalize(parent), p.file_name()) {
        (Ok(dir), Some(name)) => dir.join(name),
        _ => crate::manifest::absolute(p),
    }
}

/// Checks `out` against the policy. `inputs` are the files the command reads (the paths named on
/// its command line and the project files it compiled).
pub fn prepare(out: &Path, kind: Kind, inputs: &[PathBuf], force: bool) -> Result<Target, Refused> {
    if out.as_os_str() == "-" {
        return Ok(Target::Stdout);
    }
    let refuse = |message: String, help: &str| Err(Refused { message, help: help.to_string() });
    let shown = out.display();
    let Some(name) = out.file_name().map(|n| n.to_string_lossy().into_owned()) else {
        return refuse(format!("{shown} names no file"), "give a file path, or `-` for standard output");
    };
    let new_map = kind == Kind::MapDefinition && name.to_lowercase().ends_with(".map.toml");
    if new_map && std::fs::symlink_metadata(out).is_ok() {
        return refuse(
            format!("{shown} exists: oc never writes over a map definition, not even with --force"),
            "choose a new file name, or delete the old map yourself first",
        );
    }
    let imported_map = kind == Kind::ImportedMap && name.to_lowercase().ends_with(".map.toml");
    if is_source_name(&name) && !new_map && !imported_map {
        return refuse(
            format!("{shown} is a source file name (.oc, .map.toml, oc.toml): oc never writes over sources"),
            "choose another output path",
        );
    }
    if imported_map && std::fs::symlink_metadata(out).is_ok_and(|m| m.file_type().is_file()) {
        if !kind.recognises(&read_whole(out)) {
            return refuse(
                format!("{shown} is a map `oc import tiled` did not write: oc never writes over a source, not even with --force"),
                "import into a new file name, or delete the old map yourself first",
            );
        }
        if !force {
            return refuse(
                format!("{shown} is a map `oc import tiled` wrote, and may have been edited since"),
                "pass --force to replace it with this import, or import into a new file name",
            );
        }
    }
    let existing = std::fs::symlink_metadata(out);
    // Inputs are compared by identity (device and inode) too, so another spelling, another case
    // on a case-insensitive disk or a hard link cannot slip through.
    let target_meta = std::fs::metadata(out).ok();
    let absolute_out = crate::manifest::absolute(out);
    for input in inputs {
        let same_path = crate::manifest::absolute(input) == absolute_out;
        let same_identity = match (&target_meta, std::fs::metadata(input)) {
            (Some(a), Ok(b)) => same_file(a, &b),
            _ => false,
        };
        if same_path || same_identity {
            return refuse(
                format!("{shown} is an input of this command ({}); it is never written over", input.display()),
                "choose another output path",
            );
        }
    }
    match existing {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return refuse(format!("cannot inspect {shown}: {e}"), "choose another output path"),
        Ok(meta) => {
            let ft = meta.file_type();
            if ft.is_symlink() {
                return refuse(
                    format!("{shown} is a symbolic link: oc writes only to a regular file or a new path, never through a link"),
                    "remove the link or choose another output path",
                );
            }
            if !ft.is_file() {
                return refuse(
                    format!("{shown} is {}: oc writes only to a regular file or a new path", crate::fsx::kind_word(ft)),
                    "choose a regular file path, or `-` for standard output",
                );
            }
            // A file its owner made read-only is kept as it is, oc's own output too (a rename
            // replaced it all the same).
            if !force && read_only(out) {
                return refuse(
                    format!("{shown} is read-only: oc does not replace a file its owner keeps as it is"),
                    "make it writable, or pass --force to replace it, or choose another output path",
                );
            }
            if !force {
                let head = read_whole(out);
                if !kind.recognises(&head) {
                    return refuse(
                        format!("{shown} exists and is not {}", kind.what()),
                        "pass --force to replace it, or choose another output path",
                    );
                }
            }
        }
    }
    if let Some(parent) = out.parent().filter(|p| !p.as_os_str().is_empty()) {
        if !parent.is_dir() {
            return refuse(format!("{}: no such folder", parent.display()), "create the folder first");
        }
    }
    if let Some(why) = leaves_project(out) {
        return refuse(
            format!("{shown}: {why}"),
            "write into a folder of the project that is not a link, or name a path outside the project itself",
        );
    }
    Ok(Target::File(OutFile { path: out.to_path_buf(), kind, force, existed: existing_is_file(out) }))
}

/// Why a path inside a project (as written) would be written outside it: a folder on the way is
/// a link that leads out. Where it leads is not said (it may be a private path).
pub(crate) fn leaves_project(out: &Path) -> Option<String> {
    let folder = crate::manifest::absolute(out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")));
    let root = crate::manifest::find_root(&folder);
    root.manifest.as_ref()?;
    let real_root = std::fs::canonicalize(&root.dir).ok()?;
    let real_folder = std::fs::canonicalize(&folder).ok()?;
    (!real_folder.starts_with(&real_root)).then(|| {
        "a folder on the way is a link that leads outside the project; oc writes into a project only where the path really is inside it"
            .to_string()
    })
}

/// The temporary files of writes that never finished (the process was killed) in `dir`: oc's
/// own names only (`.oc-` and six letters or digits, then `.tmp`), regular files (never a link)
/// owned by this user, untouched for an hour (a write still in progress is younger). Removed;
/// any failure is ignored — the next run tries again.
pub fn remove_stale_temporaries(dir: &Path) -> usize {
    const STALE: std::time::Duration = std::time::Duration::from_secs(3600);
    let Ok(entries) = std::fs::read_dir(dir) else { return 0 };
    let mut removed = 0;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(middle) = name.strip_prefix(".oc-").and_then(|n| n.strip_suffix(".tmp")) else { continue };
        if middle.len() != 6 || !middle.chars().all(|c| c.is_ascii_alphanumeric()) {
            continue;
        }
        let Ok(meta) = std::fs::symlink_metadata(entry.path()) else { continue };
        let old = meta.modified().ok().and_then(|m| m.elapsed().ok()).is_some_and(|age| age > STALE);
        if meta.file_type().is_file() && old && owned_by_us(&meta) && std::fs::remove_file(entry.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

#[cfg(unix)]
fn owned_by_us(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    // SAFETY: geteuid only reads the process's effective user id; it cannot fail.
    meta.uid() == unsafe { libc::geteuid() }
}

#[cfg(not(unix))]
fn owned_by_us(_: &std::fs::Metadata) -> bool {
    true
}

fn existing_is_file(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// Writes `bytes` to the target: standard output, or atomically into a file. The path is looked
/// at again first: what appeared there since the policy passed it is refused the same way, and a
/// path that was new is only ever created, never replaced (`persist_noclobber`).
pub fn write(target: &Target, bytes: &[u8]) -> std::io::Result<()> {
    match target {
        Target::Stdout => {
            let mut out = std::io::stdout().lock();
            out.write_all(bytes)?;
            out.flush()
        }
        Target::File(f) => {
            let refused = |why: String| std::io::Error::other(format!("{why}; nothing was written"));
            match std::fs::symlink_metadata(&f.path) {
                Ok(m) if !m.file_type().is_file() => {
                    return Err(refused(format!("it became {} while oc worked", crate::fsx::kind_word(m.file_type()))))
                }
                Ok(_) if !f.existed && !f.force && !f.kind.recognises(&read_whole(&f.path)) => {
                    return Err(refused("a file appeared there while oc worked".to_string()))
                }
                // An earlier output when the run began, written into since (a note added
                // while a long run played): the person's now.
                Ok(_) if f.existed && !f.force && f.kind != Kind::ImportedMap && !f.kind.recognises(&read_whole(&f.path)) => {
                    return Err(refused("it was changed while oc worked".to_string()))
                }
                Ok(_) if f.kind == Kind::ImportedMap && !f.kind.recognises(&read_whole(&f.path)) => {
                    return Err(refused("a map `oc import tiled` did not write appeared there while oc worked".to_string()))
                }
                _ => {}
            }
            write_atomic(&f.path, bytes, !f.existed && !f.force, false)
        }
    }
}

/// Replaces a source of the project with new text in place: the one write that may touch a
/// source (`oc fmt`). `path` is a logical path, resolved like a read: links are followed only
/// inside the root (a link stays a link; its target is rewritten), nothing outside the root and
/// nothing but a regular file is written. The file must still hold `expected` (what the caller
/// read), so an edit made meanwhile is never lost; the write is atomic like every output's and
/// keeps the file's permissions.
pub fn rewrite_source(confined: &Confined, path: &str, expected: &[u8], bytes: &[u8]) -> std::io::Result<()> {
    let refused = |why: String| std::io::Error::other(format!("{why}; nothing was written"));
    let real = confined.resolve(Path::new(path)).map_err(|e| refused(e.to_string()))?;
    let now = crate::fsx::read_regular(&real, MAX_SOURCE_BYTES).map_err(|e| refused(e.to_string()))?;
    if now != expected {
        return Err(refused("it changed since oc read it".to_string()));
    }
    // A read-only file is one its owner asked to keep as it is, and one this user may not write
    // is not theirs to change: the rename below would replace either all the same (the folder is
    // what a rename needs), so both are refused here.
    if read_only(&real) {
        return Err(refused("it is read-only (make it writable to change it)".to_string()));
    }
    write_atomic(&real, bytes, false, false)
}

/// Whether [`rewrite_source`] may replace the source at `path` (inside the root), asked before a
/// long run (`oc tune --write`): one read-only, not this user's to write or not UTF-8 text is
/// refused at once, not after thousands of games (a Latin-1 byte was then said to be a change
/// made meanwhile).
pub fn may_rewrite(confined: &Confined, path: &str) -> std::io::Result<()> {
    let real = confined.resolve(Path::new(path)).map_err(|e| std::io::Error::other(e.to_string()))?;
    let now = crate::fsx::read_regular(&real, MAX_SOURCE_BYTES).map_err(|e| std::io::Error::other(e.to_string()))?;
    if let Err(e) = std::str::from_utf8(&now) {
        return Err(std::io::Error::other(format!(
            "it is not UTF-8 text (at byte {}): oc rewrites only UTF-8 sources",
            e.valid_up_to()
        )));
    }
    if read_only(&real) {
        return Err(std::io::Error::other("it is read-only (make it writable to change it)"));
    }
    Ok(())
}

/// Whether a file is read-only or one this user may not write. Only a regular file is opened to
/// ask (opening a named pipe for writing waits for a reader: `--readme` on a FIFO hung).
fn read_only(path: &Path) -> bool {
    let Ok(meta) = std::fs::metadata(path) else { return false };
    if !meta.is_file() {
        return false;
    }
    let denied = std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .err()
        .is_some_and(|e| e.kind() == std::io::ErrorKind::PermissionDenied);
    denied || std::fs::metadata(path).is_ok_and(|m| m.permissions().readonly())
}

/// Replaces a notes file of the project (`oc fairness --readme`: a Markdown file) like
/// [`rewrite_source`] — but never a source: a table is never appended to a scenario, a map or
/// `oc.toml`, whatever the flags.
pub fn rewrite_notes(confined: &Confined, path: &str, expected: &[u8], bytes: &[u8]) -> std::io::Result<()> {
    notes_file(&confined.root.join(path)).map_err(std::io::Error::other)?;
    rewrite_source(confined, path, expected, bytes)
}

/// Refuses a file as a notes file (checked before a long run, and again at the write): a source,
/// by its name or by the name of the file a link leads to (`notes.md` linked to `ide.oc` is a
/// source); a file that is not Markdown (`.md`, `.markdown`: a table is never appended to a
/// simulation's part or a log); one in no project (no `oc.toml` in its folder or above: oc
/// writes into projects only); and one that is read-only or not this user's to write.
pub fn notes_file(path: &Path) -> Result<(), Refused> {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let real = std::fs::canonicalize(path).ok();
    let refuse = |message: &str, help: &str| Err(Refused { message: message.to_string(), help: help.to_string() });
    if is_source_name(&name(path)) || real.as_deref().is_some_and(|r| is_source_name(&name(r))) {
        return refuse(
            "it is a source (.oc, .map.toml, oc.toml): oc never writes into a source",
            "name a Markdown file such as README.md",
        );
    }
    let markdown = |p: &Path| {
        let n = name(p).to_ascii_lowercase();
        n.ends_with(".md") || n.ends_with(".markdown")
    };
    if !markdown(path) || real.as_deref().is_some_and(|r| !markdown(r)) {
        return refuse(
            "it is not a Markdown file (.md): the table is written into a README or notes in Markdown",
            "name a Markdown file of the project such as README.md",
        );
    }
    let folder = crate::manifest::absolute(path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new(".")));
    if crate::manifest::find_root(&folder).manifest.is_none() {
        return refuse(
            "it is in no project (no oc.toml in its folder or above): oc writes only into a project's files",
            "name a Markdown file inside the project, such as its README.md",
        );
    }
    if let Some(why) = leaves_project(path) {
        return refuse(&why, "name a Markdown file inside the project, such as its README.md");
    }
    if real.as_deref().is_some_and(read_only) {
        return refuse("it is read-only (make it writable to change it)", "make it writable, or name another file");
    }
    Ok(())
}

/// Writes a file oc keeps for itself outside any project (oc lsp's read-only copy of the standard
/// library in its cache folder), atomically as [`write`] does, and read-only: its folder is made
/// if missing, and an older read-only copy is replaced.
pub fn write_read_only(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    if let Some(dir) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    write_atomic(path, bytes, false, true)
}

/// Writes through an exclusively created temporary file with an unpredictable name in the same
/// folder, then a rename: a reader never sees half a file, a failed write leaves the old one
/// intact, and a link planted at a guessable name redirects nothing.
/// With `create_only`, the rename refuses to replace a file that appeared meanwhile; with
/// `read_only`, the file is left read-only.
fn write_atomic(path: &Path, bytes: &[u8], create_only: bool, read_only: bool) -> std::io::Result<()> {
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    remove_stale_temporaries(dir);
    let mut tmp = tempfile::Builder::new().prefix(".oc-").suffix(".tmp").tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        // Keep the mode of the file replaced; a new file gets what `>` would give it (0666 less
        // the umask), not the temporary file's private 0600.
        let replaced = std::fs::metadata(path).ok();
        let mode = replaced.as_ref().map_or_else(|| 0o666 & !umask(), |m| m.permissions().mode() & 0o777);
        let mode = if read_only { mode & !0o222 } else { mode };
        tmp.as_file().set_permissions(std::fs::Permissions::from_mode(mode))?;
        // And its owner and group, where this process may set them (root formatting a user's
        // file left it root's): elsewhere the file is the writer's, as any editor's save by
        // rename leaves it.
        if let Some(m) = replaced {
            use std::os::unix::fs::MetadataExt;
            let _ = std::os::unix::fs::fchown(tmp.as_file(), Some(m.uid()), Some(m.gid()));
        }
    }
    #[cfg(not(unix))]
    if read_only {
        let mut perms = tmp.as_file().metadata()?.permissions();
        perms.set_readonly(true);
        tmp.as_file().set_permissions(perms)?;
    }
    if create_only {
        tmp.persist_noclobber(path).map_err(|e| e.error)?;
    } else {
        tmp.persist(path).map_err(|e| e.error)?;
    }
    Ok(())
}

/// The process's umask (read by setting it and putting it back at once).
#[cfg(unix)]
fn umask() -> u32 {
    // SAFETY: umask only swaps the process's file mode creation mask; it cannot fail.
    let old = unsafe { libc::umask(0o022) };
    // SAFETY: as above; this restores the original mask.
    unsafe { libc::umask(old) };
    // mode_t is u32 on Linux, u16 on macOS.
    #[allow(clippy::useless_conversion)]
    u32::from(old)
}

/// Reads a little of a regular file (to recognise it), never blocking: anything but a regular
/// file yields nothing.
/// An existing output, whole, to recognise (up to `MAX_LOG_BYTES`, the largest oc writes; a
/// larger file is read no further, and so is not recognised: it needs --force).
fn read_whole(path: &Path) -> Vec<u8> {
    let mut v = Vec::new();
    if let Ok(f) = crate::fsx::open_regular(path) {
        let _ = f.take(crate::limits::MAX_LOG_BYTES.saturating_add(1)).read_to_end(&mut v);
    }
    if v.len() as u64 > crate::limits::MAX_LOG_BYTES {
        v.clear();
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The standard library's copy in the cache is replaced whole and stays read-only, with no
    /// temporary file left beside it.
    #[test]
    fn the_standard_library_is_written_read_only_and_whole() -> std::io::Result<()> {
        let dir = tempfile::tempdir()?;
        let target = dir.path().join("std/ratings.oc");
        write_read_only(&target, b"ruleset old {}\n")?;
        assert!(std::fs::metadata(&target)?.permissions().readonly());
        // A newer oc replaces the read-only copy of an older one.
        write_read_only(&target, b"ruleset new {}\n")?;
        assert_eq!(std::fs::read_to_string(&target)?, "ruleset new {}\n");
        assert!(std::fs::metadata(&target)?.permissions().readonly());
        let left: Vec<_> = std::fs::read_dir(target.parent().unwrap_or(dir.path()))?
            .filter_map(Result::ok)
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        assert_eq!(left, ["ratings.oc"]);
        Ok(())
    }

    #[cfg(unix)]
    #[test]
    fn a_source_is_rewritten_in_place_only_inside_the_root() -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let outside = tempfile::tempdir()?;
        let root = tempfile::tempdir()?;
        let at = |name: &str| root.path().join(name);
        let confined = Confined::new(root.path());
        std::fs::write(at("a.oc"), "old")?;
        std::fs::set_permissions(at("a.oc"), std::fs::Permissions::from_mode(0o640))?;
        rewrite_source(&confined, "a.oc", b"old", b"new")?;
        // A read-only file is left as it is.
        std::fs::set_permissions(at("a.oc"), std::fs::Permissions::from_mode(0o440))?;
        let refused = rewrite_source(&confined, "a.oc", b"new", b"changed").map_err(|e| e.to_string());
        assert!(refused.as_ref().is_err_and(|e| e.contains("read-only")), "{refused:?}");
        assert_eq!(std::fs::read(at("a.oc"))?, b"new");
        std::fs::set_permissions(at("a.oc"), std::fs::Permissions::from_mode(0o640))?;
        assert_eq!(std::fs::read(at("a.oc"))?, b"new");
        assert_eq!(std::fs::metadata(at("a.oc"))?.permissions().mode() & 0o777, 0o640);
        // Changed since it was read: refused.
        assert!(rewrite_source(&confined, "a.oc", b"old", b"newer").is_err());
        assert_eq!(std::fs::read(at("a.oc"))?, b"new");
        // A link inside the root stays a link; its target is rewritten.
        std::os::unix::fs::symlink("a.oc", at("link.oc"))?;
        rewrite_source(&confined, "link.oc", b"new", b"via link")?;
        assert!(std::fs::symlink_metadata(at("link.oc"))?.file_type().is_symlink());
        assert_eq!(std::fs::read(at("a.oc"))?, b"via link");
        // A link out of the root is never written through.
        std::fs::write(outside.path().join("x.oc"), "secret")?;
        std::os::unix::fs::symlink(outside.path().join("x.oc"), at("out.oc"))?;
        assert!(rewrite_source(&confined, "out.oc", b"secret", b"pwned").is_err());
        assert_eq!(std::fs::read(outside.path().join("x.oc"))?, b"secret");
        Ok(())
    }

    /// Each kind recognises its own output, whole, and not another file, nor its own output
    /// with a person's text added to it (after its first line, in the middle, at its end).
    /// A report oc wrote before, made read-only by its owner, is not replaced without --force.
    #[test]
    fn a_read_only_output_is_kept_without_force() -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir()?;
        let out = dir.path().join("report.txt");
        let report = "Keep on keep: A (attacker, planner) vs D (defender, planner), 4 games from seed 1\n  attacker wins 1 (25.0%, 95% CI 4.6-69.9%)\n  defender wins 3 (75.0%, 95% CI 30.1-95.4%)\n  draws 0; mean rounds 6.2; units lost: attacker 2.25, defender 0.75\n  how games ended:\n         1  the attacker wins: escape\n         3  the defender wins: rout\n";
        std::fs::write(&out, report)?;
        assert!(prepare(&out, Kind::SimulationReport, &[], false).is_ok(), "oc's own report is replaced");
        std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o444))?;
        let refused = prepare(&out, Kind::SimulationReport, &[], false).err().map(|r| r.message).unwrap_or_default();
        assert!(refused.contains("is read-only"), "{refused}");
        assert!(prepare(&out, Kind::SimulationReport, &[], true).is_ok(), "--force replaces it");
        Ok(())
    }

    /// A table goes into a Markdown file of a project that may be written, never another file.
    #[test]
    fn a_notes_file_is_a_writable_markdown_file_of_a_project() -> std::io::Result<()> {
        use std::os::unix::fs::PermissionsExt;
        let refused = |r: Result<(), Refused>| r.err().map(|r| r.message).unwrap_or_default();
        let (project, outside) = (tempfile::tempdir()?, tempfile::tempdir()?);
        std::fs::write(project.path().join("oc.toml"), "[project]\nname = \"p\"\n")?;
        let readme = project.path().join("README.md");
        std::fs::write(&readme, "# P\n")?;
        assert!(notes_file(&readme).is_ok());
        assert!(notes_file(&project.path().join("notes/NEW.markdown")).is_ok());
        let part = project.path().join("a1.json");
        assert!(refused(notes_file(&part)).contains("not a Markdown file"));
        assert!(refused(notes_file(&project.path().join("ide.oc"))).contains("source"));
        let stray = outside.path().join("README.md");
        std::fs::write(&stray, "# elsewhere\n")?;
        assert!(refused(notes_file(&stray)).contains("in no project"));
        std::fs::set_permissions(&readme, std::fs::Permissions::from_mode(0o444))?;
        assert!(refused(notes_file(&readme)).contains("read-only"));
        // A link named .md leading to a file of another kind is that file.
        // A named pipe is not opened to ask (it waited for a reader): refused later, as no file.
        let fifo = project.path().join("pipe.md");
        if std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
            assert!(!read_only(&fifo));
        }
        std::os::unix::fs::symlink(&part, project.path().join("linked.md"))?;
        std::fs::write(&part, "{}")?;
        assert!(refused(notes_file(&project.path().join("linked.md"))).contains("not a Markdown file"));
        Ok(())
    }

    #[test]
    fn kinds_recognise_their_own_outputs_only() {
        let report = "Keep on keep: A (attacker, planner) vs D (defender, planner), 4 games from seed 1\n  attacker wins 1 (25.0%, 95% CI 4.6-69.9%)\n  defender wins 3 (75.0%, 95% CI 30.1-95.4%)\n  draws 0; mean rounds 6.2; units lost: attacker 2.25, defender 0.75\n  how games ended:\n         1  the attacker wins: escape\n         3  the defender wins: rout\n";
        let part = "{\"kind\":\"oc simulate part\",\"version\":3}\n";
        let png_end = [0u8, 0, 0, 0, b'I', b'E', b'N', b'D', 0xAE, 0x42, 0x60, 0x82];
        let plot_png = [&b"\x89PNG\r\n\x1a\n tEXtSoftware\0"[..], PNG_SOFTWARE.as_bytes(), &png_end[..]].concat();
        let own: [(Kind, Vec<u8>); 8] = [
            (Kind::BattleLog, b"{\"event\":\"source\",\"file\":\"a.oc\"}\n{\"event\":\"turn\"}\n".to_vec()),
            (Kind::MatrixCsv, format!("{MATRIX_HEADER}\nA,w,B,v,1,0.1,0.2,0.3,0.4\n").into_bytes()),
            (Kind::SimulationReport, report.as_bytes().to_vec()),
            (Kind::SimulationReport, b"{\"attacker_win_rate\":0.5}\n".to_vec()),
            (Kind::SimulationPart, part.as_bytes().to_vec()),
            (Kind::ReplayPage, format!("<!DOCTYPE html>\n<html>\n<head>\n{REPLAY_MARK}\n</head></html>\n").into_bytes()),
            (Kind::Plot, format!("<?xml version=\"1.0\"?>\n{PLOT_MARK}\n<svg></svg>\n").into_bytes()),
            (Kind::Plot, plot_png),
        ];
        for (kind, bytes) in &own {
            let shown = String::from_utf8_lossy(bytes);
            assert!(kind.recognises(bytes), "{kind:?}: {shown}");
            let text = shown.to_string();
            let first_line = text.find('\n').map_or(text.len(), |i| i + 1);
            let mut edited = vec![
                [bytes.as_slice(), b"MY OWN NOTES\n"].concat(),
                [bytes.get(..first_line).unwrap_or_default(), b"MY OWN NOTES\n"].concat(),
            ];
            // A line of one's own between two of the file's lines: told apart where every line
            // is checked (not inside a page or a drawing, whose start and end alone are).
            let lined = matches!(kind, Kind::BattleLog | Kind::MatrixCsv | Kind::SimulationReport | Kind::SimulationPart);
            let middle = text.get(text.len() / 2..).and_then(|t| t.find('\n')).map(|i| text.len() / 2 + i + 1);
            if let Some((head, tail)) = middle.filter(|_| lined).and_then(|m| Some((text.get(..m)?, text.get(m..)?))) {
                edited.push(format!("{head}MY OWN NOTES, A, B\n{tail}").into_bytes());
            }
            for e in edited {
                assert!(!kind.recognises(&e), "{kind:?} edited: {}", String::from_utf8_lossy(&e));
            }
        }
        assert!(!Kind::BattleLog.recognises(b"scenario x {}"));
        assert!(!Kind::Picture("oc render").recognises(b"\x89PNG\r\n\x1a\n plain picture"));
        assert!(!Kind::MapDefinition.recognises(b"name = \"x\""));
        assert!(!Kind::Plot.recognises(b"<?xml version=\"1.0\"?>\n<svg>a drawing of mine</svg>"));
        assert!(!Kind::ReplayPage.recognises(b"<!DOCTYPE html>\n<html><head><title>my page</title>"));
    }
}
