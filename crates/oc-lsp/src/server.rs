//! The server's state and main loop: open documents (their text is the truth, not the disk's),
//! one [`Session`] per project root with those documents as its overlay, and diagnostics
//! published after each burst of changes (a change is checked when no message waits, or before
//! the next request so that every answer sees the latest text).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use crossbeam_channel::{Sender, TryRecvError};
use lsp_types::{Diagnostic as LspDiagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString};
use oc_diag::{Diagnostic, Severity, Span};
use oc_project::{Project, Session};

use crate::jsonrpc::{ErrorCode, Message, Notification, Request, Response};
use crate::text::{path_to_uri, uri_to_path, LineIndex};
use crate::transport::{Connection, Incoming};
use crate::Config;

/// Where an open document lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A file of a project: its root and logical path. A *loose* document (an `untitled:` URI,
    /// a path with `..` or bad escapes) is checked alone, as an overlay over a root that does
    /// not exist, so nothing is read from disk for it (imports of the standard library work).
    Project { root: PathBuf, logical: String, loose: bool },
    /// A standard library file served from the cache folder (`<std>/...`): read-only.
    Std { logical: String },
    /// Anything else (a document that is neither `.oc` nor a map): no analysis.
    Other,
}

pub struct Doc {
    pub version: i32,
    pub text: String,
    pub place: Place,
    /// Why the server's copy no longer matches the editor's (an edit it could not apply), until
    /// the editor sends the whole text again (reopening the file).
    pub out_of_sync: Option<String>,
}

/// One project root: what `oc check ROOT` would check, plus the open documents under it.
pub struct ProjectState {
    pub project: Project,
    pub session: Session,
    /// What was last published, by URI (for clearing and for quick fixes).
    pub published: HashMap<String, Vec<Published>>,
    pub dirty: bool,
    /// For a loose document's root: its logical path and its URI as the editor wrote it.
    pub loose: Option<(String, String)>,
}

/// A published diagnostic and the replacement a quick fix would make, if it suggests one.
#[derive(Clone, Debug)]
pub struct Published {
    pub diagnostic: LspDiagnostic,
    pub suggestion: Option<String>,
}

pub struct Server {
    pub sender: Sender<Message>,
    pub docs: HashMap<String, Doc>,
    pub projects: BTreeMap<PathBuf, ProjectState>,
    /// Where standard library files are written for the editor to show (read-only).
    pub std_dir: PathBuf,
    /// Under this folder, which is never created, each loose document gets a root of its own.
    pub loose_dir: PathBuf,
    pub std_written: std::cell::Cell<bool>,
    /// A workspace holding the standard library, for documents opened from the cache folder.
    pub std_workspace: oc_compiler::Workspace,
}

/// FNV-1a.
fn fnv(bytes: impl Iterator<Item = u8>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    hash
}

/// The folder standard library sources are written to, one subfolder of the cache per content.
fn std_dir(cache: &Path) -> PathBuf {
    // A new standard library gets a new folder.
    let hash = fnv(oc_compiler::stdlib::FILES.iter().flat_map(|(path, text)| path.bytes().chain(text.bytes())));
    cache.join(format!("std-{hash:016x}"))
}

/// The file name a loose document is checked under: the URI's last segment made safe, with the
/// extension its language implies (`untitled:Untitled-1` in `oc` is `Untitled-1.oc`). `None`
/// for a document that is neither `.oc` nor a map.
fn loose_name(uri: &str, language: Option<&str>) -> Option<String> {
    let last = uri.rsplit(['/', ':', '\\']).next().unwrap_or("");
    let last = last.split(['?', '#']).next().unwrap_or(last);
    let mut name: String =
        last.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).take(100).collect();
    name = name.trim_start_matches('.').to_string();
    if name.is_empty() {
        name = "untitled".to_string();
    }
    if oc_project::discover::is_map(&name) || name.ends_with(".oc") {
        return Some(name);
    }
    match language {
        Some("oc") | None => Some(format!("{name}.oc")),
        _ => None,
    }
}

impl Server {
    pub fn new(sender: Sender<Message>, config: &Config) -> Server {
        Server {
            sender,
            docs: HashMap::new(),
            projects: BTreeMap::new(),
            std_dir: std_dir(&config.cache_dir),
            loose_dir: config.cache_dir.join("loose-documents-are-never-read-from-here"),
            std_written: std::cell::Cell::new(false),
            std_workspace: oc_compiler::Workspace::new(),
        }
    }

    fn dirty(&self) -> bool {
        self.projects.values().any(|p| p.dirty)
    }

    /// Where a document lives (`language`: its `languageId`, when the editor said).
    pub fn place(&self, uri: &str, language: Option<&str>) -> Place {
        let Some(path) = uri_to_path(uri) else { return self.loose(uri, language) };
        if let Ok(rest) = path.strip_prefix(&self.std_dir) {
            let parts: Option<Vec<&str>> = rest.components().map(|c| c.as_os_str().to_str()).collect();
            return match parts {
                Some(p) => Place::Std { logical: format!("{}{}", oc_compiler::stdlib::PREFIX, p.join("/")) },
                None => Place::Other,
            };
        }
        let root = oc_project::find_root(&path).dir;
        match oc_project::discover::logical(&root, &path) {
            Some(logical) if !logical.is_empty() => Place::Project { root, logical, loose: false },
            _ => self.loose(uri, language),
        }
    }

    /// A document checked on its own (see [`Place::Project`]).
    fn loose(&self, uri: &str, language: Option<&str>) -> Place {
        let Some(logical) = loose_name(uri, language) else { return Place::Other };
        let root = self.loose_dir.join(format!("{:016x}", fnv(uri.bytes())));
        Place::Project { root, logical, loose: true }
    }

    /// The project state of a root, discovered (and checked) on first use.
    fn project(&mut self, root: &Path) -> &mut ProjectState {
        self.projects.entry(root.to_path_buf()).or_insert_with(|| {
            let project = discover(root);
            ProjectState {
                project,
                session: Session::new(root.to_path_buf()),
                published: HashMap::new(),
                dirty: true,
                loose: None,
            }
        })
    }

    /// The URI of a file of a root: a loose document's own, else the file's under the root.
    pub fn uri_of(&self, root: &Path, logical: &str) -> Option<String> {
        match self.projects.get(root).and_then(|p| p.loose.as_ref()) {
            Some((l, uri)) => (l == logical).then(|| uri.clone()),
            None => path_to_uri(&root.join(logical)).map(|u| u.as_str().to_string()),
        }
    }

    /// Records a document's new text (open, or a change the editor sent whole). `language`
    /// when the editor said (on open); a change keeps the place found on open.
    pub fn set_text(&mut self, uri: &str, version: i32, text: String, language: Option<&str>) {
        let place = match (language, self.docs.get(uri)) {
            (None, Some(doc)) => doc.place.clone(),
            _ => self.place(uri, language),
        };
        if let Place::Project { root, logical, loose } = &place {
            let state = self.project(root);
            if *loose {
                state.loose = Some((logical.clone(), uri.to_string()));
            }
            add_open(&mut state.project, std::iter::once(logical.clone()));
            state.session.set_overlay(logical, Some(text.clone()));
            state.dirty = true;
        }
        self.docs.insert(uri.to_string(), Doc { version, text, place, out_of_sync: None });
    }

    /// An edit that could not be applied: the text is kept as it was, the editor is told, and
    /// the document's diagnostics say so until it sends the whole text again.
    pub fn lost_sync(&mut self, uri: &str, why: String) {
        let Some(doc) = self.docs.get_mut(uri) else {
            self.show(1, &format!("oc lsp: an edit to {uri}, which is not open, was ignored"));
            return;
        };
        let first = doc.out_of_sync.is_none();
        doc.out_of_sync = Some(why.clone());
        if let Place::Project { root, .. } = doc.place.clone() {
            if let Some(state) = self.projects.get_mut(&root) {
                state.dirty = true;
            }
        }
        let message = format!(
            "oc lsp: could not apply an edit to {uri}: {why}. oc keeps the text it had, which no longer matches the \
             editor's; close and reopen the file to check it again"
        );
        if first {
            self.show(1, &message);
        }
        self.log_at(1, &message);
    }

    /// Forgets a closed document: the disk is the truth again.
    pub fn close(&mut self, uri: &str) {
        let Some(doc) = self.docs.remove(uri) else { return };
        if let Place::Project { root, logical, loose } = doc.place {
            if loose {
                // Nothing else is checked there: forget it, and clear what it showed.
                self.projects.remove(&root);
                self.notify("textDocument/publishDiagnostics", serde_json::json!({"uri": uri, "diagnostics": []}));
                return;
            }
            self.project(&root).session.set_overlay(&logical, None);
            // A file that discovery would not have found leaves the check with its buffer.
            self.rediscover(&root);
        }
    }

    /// Files created, deleted or changed on disk: rediscover the project and recheck what the
    /// changed paths affect (open documents keep their text).
    pub fn disk_changed(&mut self, uris: &[String]) {
        let mut roots: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
        for uri in uris {
            if let Place::Project { root, logical, loose: false } = self.place(uri, None) {
                roots.entry(root).or_default().push(logical);
            }
        }
        for (root, changed) in roots {
            let Some(state) = self.projects.get_mut(&root) else { continue };
            let changed: Vec<String> = changed.into_iter().filter(|c| state.session.overlay(c).is_none()).collect();
            state.session.invalidate(&changed);
            self.rediscover(&root);
        }
    }

    /// Finds a project's files again, the open documents included, and marks it for a check.
    fn rediscover(&mut self, root: &Path) {
        let open: Vec<String> = self
            .docs
            .values()
            .filter_map(|d| match &d.place {
                Place::Project { root: r, logical, .. } if r == root => Some(logical.clone()),
                _ => None,
            })
            .collect();
        if let Some(state) = self.projects.get_mut(root) {
            state.project = discover(root);
            add_open(&mut state.project, open.into_iter());
            state.dirty = true;
        }
    }

    /// Checks every project with changes and publishes what changed.
    pub fn flush(&mut self) {
        let roots: Vec<PathBuf> = self.projects.iter().filter(|(_, p)| p.dirty).map(|(r, _)| r.clone()).collect();
        for root in roots {
            self.check(&root);
        }
    }

    fn check(&mut self, root: &Path) {
        let versions: HashMap<String, i32> = self.docs.iter().map(|(u, d)| (u.clone(), d.version)).collect();
        let open: BTreeSet<String> = self
            .docs
            .iter()
            .filter(|(_, d)| matches!(&d.place, Place::Project { root: r, .. } if r == root))
            .map(|(u, _)| u.clone())
            .collect();
        let out_of_sync: HashMap<String, String> =
            self.docs.iter().filter_map(|(u, d)| Some((u.clone(), d.out_of_sync.clone()?))).collect();
        let loose_dir = self.loose_dir.clone();
        let Some(state) = self.projects.get_mut(root) else { return };
        state.dirty = false;
        let outcome = match state.session.run(&state.project) {
            Ok(o) => o,
            Err(e) => {
                self.log(&format!("cannot check {}: {e}", root.display()));
                return;
            }
        };
        let mut by_uri: BTreeMap<String, Vec<Published>> = BTreeMap::new();
        // One line index a file: a file with many diagnostics is not read once for each.
        let mut lines = Lines::default();
        let uri_of = |state: &ProjectState, path: &str| match &state.loose {
            Some((logical, uri)) => (logical == path).then(|| uri.clone()),
            None => path_to_uri(&root.join(path)).map(|u| u.as_str().to_string()),
        };
        for d in &outcome.diagnostics {
            let path = state.session.path(d.span.file);
            if path.starts_with(oc_compiler::stdlib::PREFIX) {
                continue;
            }
            let Some(uri) = uri_of(state, path) else { continue };
            let related_root = (!root.starts_with(&loose_dir)).then_some(root);
            let published = to_lsp(&state.session, &mut lines, related_root, d);
            by_uri.entry(uri).or_default().push(published);
        }
        // A document whose copy lost sync shows that, not what its stale text holds.
        for (uri, why) in &out_of_sync {
            if open.contains(uri) {
                by_uri.insert(uri.clone(), vec![out_of_sync_diagnostic(why)]);
            }
        }
        let mut sends = Vec::new();
        // Files that had diagnostics and have none now are cleared; open files always hear.
        let stale: Vec<String> = state.published.keys().filter(|u| !by_uri.contains_key(*u)).cloned().collect();
        for u in stale.iter().chain(open.iter()) {
            by_uri.entry(u.clone()).or_default();
        }
        for (key, list) in by_uri {
            let same = state
                .published
                .get(&key)
                .is_some_and(|old| old.len() == list.len() && old.iter().zip(&list).all(|(a, b)| a.diagnostic == b.diagnostic));
            if same && !open.contains(&key) {
                continue;
            }
            let diagnostics: Vec<LspDiagnostic> = list.iter().map(|p| p.diagnostic.clone()).collect();
            sends.push(serde_json::json!({"uri": key, "diagnostics": diagnostics, "version": versions.get(&key)}));
            if list.is_empty() {
                state.published.remove(&key);
            } else {
                state.published.insert(key, list);
            }
        }
        for params in sends {
            self.notify("textDocument/publishDiagnostics", params);
        }
    }

    pub fn notify(&self, method: &str, params: impl serde::Serialize) {
        let _ = self.sender.send(Message::Notification(Notification::new(method, params)));
    }

    pub fn send(&self, message: Message) {
        let _ = self.sender.send(message);
    }

    pub fn log(&self, message: &str) {
        self.log_at(3, message);
    }

    /// `window/logMessage` of a type (1 error, 2 warning, 3 info, 4 log).
    pub fn log_at(&self, kind: u8, message: &str) {
        self.notify("window/logMessage", serde_json::json!({ "type": kind, "message": message }));
    }

    /// `window/showMessage`: what the user must see.
    pub fn show(&self, kind: u8, message: &str) {
        self.notify("window/showMessage", serde_json::json!({ "type": kind, "message": message }));
    }
}

/// What a document whose copy lost sync shows (no code: it is about the editor's messages, not
/// about the file).
fn out_of_sync_diagnostic(why: &str) -> Published {
    let diagnostic = LspDiagnostic {
        range: lsp_types::Range::default(),
        severity: Some(DiagnosticSeverity::ERROR),
        source: Some("oc lsp".to_string()),
        message: format!(
            "oc's copy of this file no longer matches the editor's: an edit could not be applied ({why})\nhelp: close and \
             reopen the file to check it again"
        ),
        ..LspDiagnostic::default()
    };
    Published { diagnostic, suggestion: None }
}

/// What `oc check ROOT` would check: the project's files when it has an `oc.toml`; else none
/// (only the open documents: a folder without `oc.toml` may be a home folder, not a project).
fn discover(root: &Path) -> Project {
    let empty = || Project { root: root.to_path_buf(), ..Project::default() };
    if !root.join(oc_project::manifest::FILE_NAME).is_file() {
        return empty();
    }
    oc_project::discover(&[root.to_path_buf()]).ok().and_then(|mut v| v.pop()).unwrap_or_else(empty)
}

/// Adds open documents to a project's files: an open file is checked even where `ignore` or
/// discovery left it out.
fn add_open(project: &mut Project, open: impl Iterator<Item = String>) {
    for logical in open {
        let list = if oc_project::discover::is_map(&logical) {
            &mut project.maps
        } else if logical.ends_with(".oc") {
            &mut project.files
        } else {
            continue;
        };
        if !list.contains(&logical) {
            list.push(logical);
            list.sort();
        }
    }
}

/// Each file's line index, made when first wanted.
#[derive(Default)]
struct Lines<'a>(std::collections::HashMap<oc_diag::FileId, LineIndex<'a>>);

impl<'a> Lines<'a> {
    /// The LSP range of a span, in the text it was checked with.
    fn range(&mut self, session: &'a Session, span: Span) -> lsp_types::Range {
        let index = self.0.entry(span.file).or_insert_with(|| LineIndex::new(session.text(span.file)));
        index.range(span.start as usize, span.end as usize)
    }
}

/// The replacement a did-you-mean help suggests: the name between the backquotes after "did you
/// mean".
pub fn suggestion(help: &str) -> Option<String> {
    let rest = help.split("did you mean `").nth(1)?;
    let name = rest.split('`').next()?;
    (!name.is_empty()).then(|| name.to_string())
}

/// A diagnostic as LSP's; `root` is where related places are (none for a loose document).
fn to_lsp<'a>(session: &'a Session, lines: &mut Lines<'a>, root: Option<&Path>, d: &Diagnostic) -> Published {
    let mut message = d.message.clone();
    if let Some(label) = d.label.as_ref().filter(|l| **l != d.message && !l.is_empty()) {
        message.push_str(&format!("\n{label}"));
    }
    if !d.help.is_empty() {
        message.push_str(&format!("\nhelp: {}", d.help));
    }
    let related: Vec<DiagnosticRelatedInformation> = d
        .secondary
        .iter()
        .filter_map(|l| {
            let path = session.path(l.span.file);
            let uri = if path.starts_with(oc_compiler::stdlib::PREFIX) { None } else { path_to_uri(&root?.join(path)) }?;
            Some(DiagnosticRelatedInformation {
                location: Location::new(uri, lines.range(session, l.span)),
                message: l.message.clone(),
            })
        })
        .collect();
    let diagnostic = LspDiagnostic {
        range: lines.range(session, d.span),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(d.code.to_string())),
        source: Some("oc".to_string()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        ..LspDiagnostic::default()
    };
    Published { diagnostic, suggestion: suggestion(&d.help) }
}

/// Where the conversation is.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Before `initialize`: requests are refused (`ServerNotInitialized`).
    Starting,
    Running,
    /// After `shutdown`: only `exit` is expected.
    ShuttingDown,
}

/// Serves `connection` until `exit` or the end of its input. The exit status: 0 after
/// `shutdown` then `exit`, 1 when the client exits (or leaves) without `shutdown`.
pub fn main_loop(connection: &Connection, config: &Config) -> u8 {
    let mut server = Server::new(connection.sender.clone(), config);
    let mut phase = Phase::Starting;
    loop {
        let incoming = if server.dirty() {
            match connection.receiver.try_recv() {
                Ok(m) => m,
                Err(TryRecvError::Empty) => {
                    guarded(&mut server, Server::flush);
                    continue;
                }
                Err(TryRecvError::Disconnected) => break,
            }
        } else {
            match connection.receiver.recv() {
                Ok(m) => m,
                Err(_) => break,
            }
        };
        let message = match incoming {
            Incoming::Refused(refused) => {
                server.log_at(1, &format!("oc lsp: {}", refused.message));
                server.send(Message::Response(refused.response()));
                continue;
            }
            Incoming::Message { message, note } => {
                if let Some(note) = note {
                    server.log_at(2, &format!("oc lsp: {note}"));
                }
                message
            }
        };
        match message {
            Message::Request(request) => {
                let response = match (phase, request.method.as_str()) {
                    (Phase::Starting, "initialize") => {
                        phase = Phase::Running;
                        Response::ok(request.id, crate::initialize_result())
                    }
                    (Phase::Starting, _) => Response::new_err(
                        request.id,
                        ErrorCode::ServerNotInitialized as i32,
                        "the server is not initialized: send `initialize` first".to_string(),
                    ),
                    (Phase::ShuttingDown, _) => Response::new_err(
                        request.id,
                        ErrorCode::InvalidRequest as i32,
                        "the server is shutting down: only `exit` is expected".to_string(),
                    ),
                    (Phase::Running, "shutdown") => {
                        phase = Phase::ShuttingDown;
                        Response::ok(request.id, serde_json::Value::Null)
                    }
                    (Phase::Running, "initialize") => Response::new_err(
                        request.id,
                        ErrorCode::InvalidRequest as i32,
                        "the server is already initialized".to_string(),
                    ),
                    (Phase::Running, _) => {
                        guarded(&mut server, Server::flush);
                        let id = request.id.clone();
                        catch_unwind(AssertUnwindSafe(|| crate::handlers::request(&mut server, request))).unwrap_or_else(|_| {
                            Response::new_err(id, ErrorCode::InternalError as i32, INTERNAL_ERROR.to_string())
                        })
                    }
                };
                server.send(Message::Response(response));
            }
            Message::Notification(n) => {
                if n.method == "exit" {
                    return if phase == Phase::ShuttingDown { 0 } else { 1 };
                }
                if phase == Phase::Running {
                    guarded(&mut server, |server| crate::handlers::notification(server, n));
                }
            }
            Message::Response(_) => {}
        }
    }
    // The input ended without `exit`.
    if phase == Phase::ShuttingDown {
        0
    } else {
        1
    }
}

/// Runs `f`, surviving a panic (the server never dies on bad input), which is logged as the
/// internal error it is.
fn guarded(server: &mut Server, f: impl FnOnce(&mut Server)) {
    if catch_unwind(AssertUnwindSafe(|| f(server))).is_err() {
        server.log_at(1, INTERNAL_ERROR);
    }
}

/// What a panic is answered or logged with.
pub const INTERNAL_ERROR: &str = "oc lsp: internal error (a bug: please report it)";

/// A request's parameters, or the error to answer with.
pub fn params<P: serde::de::DeserializeOwned>(request: &Request) -> Result<P, Response> {
    serde_json::from_value(request.params.clone())
        .map_err(|e| Response::new_err(request.id.clone(), ErrorCode::InvalidParams as i32, format!("invalid params: {e}")))
}
