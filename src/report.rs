//! The edge and the one place that prints: diagnostics (drawn by `oc_render::diagnostics`), the
//! JSON transcript of `--format json`, status lines, and a closed pipe ended quietly.

use std::io::Write as _;

use oc_diag::Diagnostic;
use std::io::IsTerminal as _;
use std::sync::atomic::{AtomicBool, Ordering};

pub use oc_render::diagnostics::{merge_json, root_of, set_root, OneFile, Sources, Style};

/// How this run prints, set once by `main` from the global options ([`settle`]).
static COLOUR: AtomicBool = AtomicBool::new(false);
static QUIET: AtomicBool = AtomicBool::new(false);

/// Takes `--color` (with `NO_COLOR`, `CLICOLOR`, `CLICOLOR_FORCE`: `oc_project::shown::colour`)
/// and `--quiet`.
pub fn settle(colour: oc_project::shown::ColorChoice, quiet: bool) {
    let on = oc_project::shown::colour(colour, std::io::stderr().is_terminal(), |k| std::env::var_os(k));
    COLOUR.store(on, Ordering::SeqCst);
    QUIET.store(quiet, Ordering::SeqCst);
}

/// `--format json` on a command that otherwise speaks text: everything it says goes here and is
/// printed as one object when it ends ([`finish_json`]; `oc_project::transcript`).
static TRANSCRIPT: std::sync::Mutex<Option<oc_project::transcript::Transcript>> = std::sync::Mutex::new(None);

/// Starts keeping `command`'s report for `--format json`.
pub fn start_json(command: &str) {
    if let Ok(mut t) = TRANSCRIPT.lock() {
        *t = Some(oc_project::transcript::Transcript::new(command));
    }
}

/// Runs `f` on the transcript when one is kept; whether one is.
fn transcribe(f: impl FnOnce(&mut oc_project::transcript::Transcript)) -> bool {
    match TRANSCRIPT.lock().as_deref_mut() {
        Ok(Some(t)) => {
            f(t);
            true
        }
        _ => false,
    }
}

/// Whether a JSON report is being kept ([`start_json`]).
pub fn transcribing() -> bool {
    transcribe(|_| ())
}

/// Prints the kept report as one JSON object on standard output, when one is kept.
pub fn finish_json(status: u8) {
    let taken = TRANSCRIPT.lock().ok().and_then(|mut t| t.take());
    if let Some(t) = taken {
        say_out(&format!("{}\n", t.finish(status)));
    }
}

/// A file or folder the command wrote (listed in a JSON report).
pub fn wrote(shown: &str) {
    transcribe(|t| t.written.push(shown.to_string()));
}

/// A status line ([`noteln!`]).
pub fn note(text: &str) {
    if !transcribe(|t| t.notes.push(text.to_string())) && !quiet() {
        say_err_lossy(&format!("{text}\n"));
    }
}

/// Whether `--quiet` asked for no status lines (what was written, summaries, progress).
pub fn quiet() -> bool {
    QUIET.load(Ordering::SeqCst)
}

/// Whether reports are drawn in colour ([`settle`]).
pub fn colour() -> bool {
    COLOUR.load(Ordering::SeqCst)
}

/// Fancy reports in colour ([`settle`]: `--color`, `NO_COLOR`, a terminal), plain ones elsewhere.
pub fn style() -> Style {
    if colour() {
        Style::Fancy
    } else {
        Style::Plain
    }
}

/// Keeps the default panic message, except for a panic inside the graphical renderer, which is
/// caught and answered with the plain rendering instead.
///
/// A failed `print!` is no crash either: when standard output's reader has gone (`oc matrix |
/// head -3`), the program ends quietly, as the shell's own tools do; any other failure to print
/// ends it with one line on standard error and status 1, without a backtrace.
pub fn install_panic_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let message = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if message.starts_with("failed printing to std") {
            if is_closed_pipe(message) {
                reader_gone();
            }
            let _ = writeln!(std::io::stderr(), "error: {message}");
            std::process::exit(1);
        }
        if !oc_render::diagnostics::drawing() {
            default(info);
        }
    }));
}

/// Whether an error's text is a closed pipe's (EPIPE; ERROR_NO_DATA or ERROR_BROKEN_PIPE on Windows).
fn is_closed_pipe(text: &str) -> bool {
    ["Broken pipe", "os error 32)", "os error 232)", "os error 109)"].iter().any(|m| text.contains(m))
}

/// The status the program ends with when standard output's reader goes: 0, or the verdict a
/// command has already reached ([`verdict`]).
static GONE_STATUS: std::sync::atomic::AtomicU8 = std::sync::atomic::AtomicU8::new(0);

/// A command whose exit status carries a verdict (`oc check` found errors, `oc fmt --check` a
/// file to format) says it before it prints, so that a reader that goes early (`oc check . |
/// head`) cannot turn a failure into a success.
pub fn verdict(status: u8) {
    GONE_STATUS.store(status, std::sync::atomic::Ordering::SeqCst);
}

/// Standard output's reader has gone: nothing more can be said to anyone, so the program ends at
/// once and quietly — with success, as when the reader took what it wanted, unless a verdict
/// was already reached.
pub fn reader_gone() -> ! {
    std::process::exit(i32::from(GONE_STATUS.load(std::sync::atomic::Ordering::SeqCst)))
}

/// Printing, the binary's one place for it: `outln!`/`out!` write to standard output through
/// [`out`], `errln!`/`err!` to standard error through [`err`]; every command prints with them
/// (never `println!`, whose failure is a panic). A reader that goes ends the program quietly
/// ([`reader_gone`]); any other failure ends it with one line and status 1.
macro_rules! outln {
    () => { $crate::report::say_out("\n") };
    ($($arg:tt)*) => { $crate::report::say_out(&format!("{}\n", format_args!($($arg)*))) };
}
macro_rules! out {
    ($($arg:tt)*) => { $crate::report::say_out(&format!($($arg)*)) };
}
macro_rules! errln {
    () => { $crate::report::say_err("\n") };
    ($($arg:tt)*) => { $crate::report::say_err(&$crate::report::said(&format!("{}\n", format_args!($($arg)*)))) };
}
macro_rules! err {
    ($($arg:tt)*) => { $crate::report::say_err(&format!($($arg)*)) };
}
/// A status line on standard error (what was written, a summary): left out under `--quiet`,
/// kept as a note in a JSON report.
macro_rules! noteln {
    ($($arg:tt)*) => { $crate::report::note(&$crate::report::said(&format!($($arg)*))) };
}
/// Standard error at its best effort: a failure is ignored (`oc watch` never ends for want of a
/// reader; `oc check`'s verdict is its exit status).
macro_rules! errln_lossy {
    ($($arg:tt)*) => { $crate::report::say_err_lossy(&$crate::report::said(&format!("{}\n", format_args!($($arg)*)))) };
}
macro_rules! err_lossy {
    ($($arg:tt)*) => { $crate::report::say_err_lossy(&format!($($arg)*)) };
}

/// The longest line an error or status line shows whole; a longer one (a log's line of
/// hundreds of megabytes quoted by a refusal) is shown cut, with how much was left out.
const MAX_SAID_LINE: usize = 2_000;

/// A message's text as [`errln!`] and [`noteln!`] print it: what it quotes of a file or a log
/// (names, lines) may hold control characters, which would act on the terminal (recolour,
/// retitle, clear it): each is shown escaped (`\u{1b}`), line breaks and tabs aside; a line
/// past [`MAX_SAID_LINE`] characters is cut. (Reports are drawn harmless by oc-render, and
/// printed with `err!`.)
pub fn said(text: &str) -> std::borrow::Cow<'_, str> {
    let keep = ['\n', '\t'];
    if !text.split('\n').any(|l| l.len() > MAX_SAID_LINE) {
        return oc_render::diagnostics::escape_controls(text, &keep);
    }
    let mut out = String::with_capacity(text.len().min(4 * MAX_SAID_LINE));
    for (k, line) in text.split('\n').enumerate() {
        if k > 0 {
            out.push('\n');
        }
        match line.char_indices().nth(MAX_SAID_LINE) {
            Some((cut, _)) => {
                let more = line.get(cut..).map_or(0, |rest| rest.chars().count());
                out.push_str(&oc_render::diagnostics::escape_controls(line.get(..cut).unwrap_or(line), &keep));
                out.push_str(&format!("... ({more} characters more)"));
            }
            None => out.push_str(&oc_render::diagnostics::escape_controls(line, &keep)),
        }
    }
    std::borrow::Cow::Owned(out)
}

/// `text` on standard output as data ([`out`]), where standard output is a terminal with what
/// it holds of control characters made harmless (`oc fmt --check`'s diff quotes a file's
/// comments): into a pipe or a file it is written byte for byte (a diff there is the patch).
pub fn out_shown(text: &str) -> std::io::Result<()> {
    let shown = if std::io::stdout().is_terminal() { oc_render::diagnostics::inert(text) } else { text.into() };
    out(shown.as_bytes())
}

/// `text` on standard output ([`outln!`]).
pub fn say_out(text: &str) {
    if transcribe(|t| t.output.push_str(text)) {
        return;
    }
    if let Err(e) = out(text.as_bytes()) {
        failed("stdout", &e);
    }
}

/// `text` on standard error ([`errln!`]). An `error:` line is a verdict of its own (a usage
/// or I/O failure, status 2, unless one was reached before): a reader of standard error that
/// goes as it is printed (`oc render BAD 2>&1 | true`) ends the program with it, not with
/// success.
pub fn say_err(text: &str) {
    if text.starts_with("error") {
        let _ = GONE_STATUS.compare_exchange(0, 2, std::sync::atomic::Ordering::SeqCst, std::sync::atomic::Ordering::SeqCst);
    }
    if transcribe(|t| t.stderr(text)) {
        return;
    }
    if let Err(e) = err(text.as_bytes()) {
        failed("stderr", &e);
    }
}

/// `text` on standard error, a failure ignored ([`errln_lossy!`]).
pub fn say_err_lossy(text: &str) {
    if transcribe(|t| t.stderr(text)) {
        return;
    }
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text.as_bytes()).and_then(|()| err.flush());
}

/// Writes to standard error; when it is a closed pipe the program ends quietly.
pub fn err(bytes: &[u8]) -> std::io::Result<()> {
    if transcribe(|t| t.stderr(&String::from_utf8_lossy(bytes))) {
        return Ok(());
    }
    let mut err = std::io::stderr().lock();
    let written = err.write_all(bytes).and_then(|()| err.flush());
    if let Err(e) = &written {
        if e.kind() == std::io::ErrorKind::BrokenPipe || is_closed_pipe(&e.to_string()) {
            reader_gone();
        }
    }
    written
}

/// A failure to print that is not a closed pipe: one line on standard error (if it can still
/// be written) and status 1, as a failed `print!` ends through the panic hook.
fn failed(stream: &str, e: &std::io::Error) -> ! {
    let _ = writeln!(std::io::stderr(), "error: failed printing to {stream}: {e}");
    std::process::exit(1)
}

/// Writes to standard output; when its reader has gone the program ends quietly
/// ([`reader_gone`]), so that a long run does not go on working for nobody. Any other failure
/// is returned.
pub fn out(bytes: &[u8]) -> std::io::Result<()> {
    if transcribe(|t| t.output.push_str(&String::from_utf8_lossy(bytes))) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    let written = out.write_all(bytes).and_then(|()| out.flush());
    if let Err(e) = &written {
        if e.kind() == std::io::ErrorKind::BrokenPipe || is_closed_pipe(&e.to_string()) {
            reader_gone();
        }
    }
    written
}

/// [`out`], its failure said: the exit status, 0 or 1 (a report or script that could not be
/// written is a failure: `>/dev/full` exited 0).
pub fn out_status(bytes: &[u8]) -> u8 {
    match out(bytes) {
        Ok(()) => 0,
        Err(e) => {
            errln!("error: failed printing to stdout: {e}");
            1
        }
    }
}

/// Diagnostics drawn against one set of sources (`oc_render::diagnostics::Reports`), kept as
/// data instead when a JSON report is being kept ([`start_json`]).
pub struct Reports<'s>(oc_render::diagnostics::Reports<'s>);

impl<'s> Reports<'s> {
    pub fn new(sources: &'s dyn Sources) -> Reports<'s> {
        Reports(oc_render::diagnostics::Reports::new(sources))
    }

    pub fn render(&self, d: &Diagnostic, style: Style) -> String {
        // A JSON report keeps the diagnostic as data instead of a drawing.
        if transcribe(|t| t.diagnostics.push(self.0.one_json(d))) {
            return String::new();
        }
        self.0.render(d, style)
    }
}

/// One diagnostic drawn ([`Reports::render`]; a run of them: one `Reports`).
pub fn render(sources: &dyn Sources, d: &Diagnostic, style: Style) -> String {
    Reports::new(sources).render(d, style)
}

/// A project's oc.toml as its diagnostics are drawn against it (empty where it has none).
pub fn manifest(project: &oc_project::Project) -> OneFile<'_> {
    let text = project.manifest.as_ref().map_or("", |(_, t)| t.as_str());
    OneFile { path: oc_project::manifest::FILE_NAME, text }
}

/// The JSON object of the diagnostics contract.
pub fn json(sources: &dyn Sources, diagnostics: &[Diagnostic], files: usize) -> serde_json::Value {
    oc_render::diagnostics::Reports::new(sources).json(diagnostics, files)
}
