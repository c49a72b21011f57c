//! The server's state and main loop: open documents (their text is the truth, not the disk's),
//! one [`Session`] per project root with those documents as its overlay, and diagnostics
//! published after each burst of changes (a change is checked when no message waits, or before
//! the next request so that every answer sees the latest text).

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use crossbeam_channel::{Sender, TryRecvError};
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{Notification as _, PublishDiagnostics};
use lsp_types::{
    Diagnostic as LspDiagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString,
    PublishDiagnosticsParams, Uri,
};
use oc_diag::{Diagnostic, Severity, Span};
use oc_project::{Project, Session};

use crate::text::{path_to_uri, uri_to_path, LineIndex};

/// Where an open document lives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Place {
    /// A file of a project: its root and logical path.
    Project { root: PathBuf, logical: String },
    /// A standard library file served from the cache folder (`<std>/...`): read-only.
    Std { logical: String },
    /// Anything else (a name that is not UTF-8, a URI that is not a file): no analysis.
    Other,
}

pub struct Doc {
    pub version: i32,
    pub text: String,
    pub place: Place,
}

/// One project root: what `oc check ROOT` would check, plus the open documents under it.
pub struct ProjectState {
    pub project: Project,
    pub session: Session,
    /// What was last published, by URI (for clearing and for quick fixes).
    pub published: HashMap<String, Vec<Published>>,
    pub dirty: bool,
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
    pub std_written: std::cell::Cell<bool>,
    /// A workspace holding the standard library, for documents opened from the cache folder.
    pub std_workspace: oc_compiler::Workspace,
}

/// The folder standard library sources are written to: `$XDG_CACHE_HOME/oc` (else
/// `~/.cache/oc`, else the temporary folder), one subfolder per content.
fn std_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
        .unwrap_or_else(std::env::temp_dir);
    // FNV-1a over the sources: a new standard library gets a new folder.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for (path, text) in oc_compiler::stdlib::FILES {
        for b in path.bytes().chain(text.bytes()) {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    base.join("oc").join(format!("std-{hash:016x}"))
}

impl Server {
    pub fn new(sender: Sender<Message>) -> Server {
        Server {
            sender,
            docs: HashMap::new(),
            projects: BTreeMap::new(),
            std_dir: std_dir(),
            std_written: std::cell::Cell::new(false),
            std_workspace: oc_compiler::Workspace::new(),
        }
    }

    fn dirty(&self) -> bool {
        self.projects.values().any(|p| p.dirty)
    }

    /// Where a URI lives.
    pub fn place(&self, uri: &Uri) -> Place {
        let Some(path) = uri_to_path(uri) else { return Place::Other };
        if let Ok(rest) = path.strip_prefix(&self.std_dir) {
            let parts: Option<Vec<&str>> = rest.components().map(|c| c.as_os_str().to_str()).collect();
            return match parts {
                Some(p) => Place::Std { logical: format!("{}{}", oc_compiler::stdlib::PREFIX, p.join("/")) },
                None => Place::Other,
            };
        }
        let root = oc_project::find_root(&path).dir;
        match oc_project::discover::logical(&root, &path) {
            Some(logical) if !logical.is_empty() => Place::Project { root, logical },
            _ => Place::Other,
        }
    }

    /// The project state of a root, discovered (and checked) on first use.
    fn project(&mut self, root: &Path) -> &mut ProjectState {
        self.projects.entry(root.to_path_buf()).or_insert_with(|| {
            let project = discover(root);
            ProjectState { project, session: Session::new(root.to_path_buf()), published: HashMap::new(), dirty: true }
        })
    }

    /// Records a document's new text (open or change).
    pub fn set_text(&mut self, uri: &Uri, version: i32, text: String) {
        let place = self.place(uri);
        if let Place::Project { root, logical } = &place {
            let state = self.project(root);
            add_open(&mut state.project, std::iter::once(logical.clone()));
            state.session.set_overlay(logical, Some(text.clone()));
            state.dirty = true;
        }
        self.docs.insert(uri.as_str().to_string(), Doc { version, text, place });
    }

    /// Forgets a closed document: the disk is the truth again.
    pub fn close(&mut self, uri: &Uri) {
        let Some(doc) = self.docs.remove(uri.as_str()) else { return };
        if let Place::Project { root, logical } = doc.place {
            self.project(&root).session.set_overlay(&logical, None);
            // A file that discovery would not have found leaves the check with its buffer.
            self.rediscover(&root);
        }
    }

    /// Files created, deleted or changed on disk: rediscover the project and recheck what the
    /// changed paths affect (open documents keep their text).
    pub fn disk_changed(&mut self, uris: &[Uri]) {
        let mut roots: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
        for uri in uris {
            if let Place::Project { root, logical } = self.place(uri) {
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
                Place::Project { root: r, logical } if r == root => Some(logical.clone()),
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
        let Some(state) = self.projects.get_mut(root) else { return };
        state.dirty = false;
        let outcome = match state.session.run(&state.project) {
            Ok(o) => o,
            Err(e) => {
                self.log(&format!("cannot check {}: {e}", root.display()));
                return;
            }
        };
        let mut by_uri: BTreeMap<String, (Uri, Vec<Published>)> = BTreeMap::new();
        // One line index a file: a file with many diagnostics is not read once for each.
        let mut lines = Lines::default();
        for d in &outcome.diagnostics {
            let path = state.session.path(d.span.file);
            if path.starts_with(oc_compiler::stdlib::PREFIX) {
                continue;
            }
            let Some(uri) = path_to_uri(&root.join(path)) else { continue };
            let published = to_lsp(&state.session, &mut lines, root, d);
            by_uri.entry(uri.as_str().to_string()).or_insert_with(|| (uri, Vec::new())).1.push(published);
        }
        let mut sends = Vec::new();
        // Files that had diagnostics and have none now are cleared; open files always hear.
        let stale: Vec<String> = state.published.keys().filter(|u| !by_uri.contains_key(*u)).cloned().collect();
        for u in stale.iter().chain(open.iter()) {
            if !by_uri.contains_key(u) {
                if let Ok(uri) = u.parse::<Uri>() {
                    by_uri.insert(u.clone(), (uri, Vec::new()));
                }
            }
        }
        for (key, (uri, list)) in by_uri {
            let same = state
                .published
                .get(&key)
                .is_some_and(|old| old.len() == list.len() && old.iter().zip(&list).all(|(a, b)| a.diagnostic == b.diagnostic));
            if same && !open.contains(&key) {
                continue;
            }
            let diagnostics = list.iter().map(|p| p.diagnostic.clone()).collect();
            sends.push(PublishDiagnosticsParams { uri, diagnostics, version: versions.get(&key).copied() });
            if list.is_empty() {
                state.published.remove(&key);
            } else {
                state.published.insert(key, list);
            }
        }
        for params in sends {
            self.notify(PublishDiagnostics::METHOD, params);
        }
    }

    pub fn notify(&self, method: &str, params: impl serde::Serialize) {
        let _ = self.sender.send(Message::Notification(Notification::new(method.to_string(), params)));
    }

    pub fn log(&self, message: &str) {
        self.notify("window/logMessage", serde_json::json!({ "type": 3, "message": message }));
    }
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

fn to_lsp<'a>(session: &'a Session, lines: &mut Lines<'a>, root: &Path, d: &Diagnostic) -> Published {
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
            let uri = if path.starts_with(oc_compiler::stdlib::PREFIX) { None } else { path_to_uri(&root.join(path)) }?;
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

/// Runs the server on a connection whose handshake is done, until `exit` or the end of input.
pub fn main_loop(connection: &Connection) -> Result<(), String> {
    let mut server = Server::new(connection.sender.clone());
    loop {
        let message = if server.dirty() {
            match connection.receiver.try_recv() {
                Ok(m) => m,
                Err(TryRecvError::Empty) => {
                    guarded(|| server.flush());
                    continue;
                }
                Err(TryRecvError::Disconnected) => return Ok(()),
            }
        } else {
            match connection.receiver.recv() {
                Ok(m) => m,
                Err(_) => return Ok(()),
            }
        };
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request).map_err(|e| e.to_string())? {
                    return Ok(());
                }
                guarded(|| server.flush());
                let id = request.id.clone();
                let response =
                    catch_unwind(AssertUnwindSafe(|| crate::handlers::request(&mut server, request))).unwrap_or_else(|_| {
                        Response::new_err(
                            id,
                            ErrorCode::InternalError as i32,
                            "oc lsp: internal error (a bug: please report it)".to_string(),
                        )
                    });
                let _ = connection.sender.send(Message::Response(response));
            }
            Message::Notification(n) => {
                if n.method == "exit" {
                    return Ok(());
                }
                guarded(|| crate::handlers::notification(&mut server, n));
            }
            Message::Response(_) => {}
        }
    }
}

/// Runs `f`, surviving a panic (the server never dies on bad input).
fn guarded(f: impl FnOnce()) {
    let _ = catch_unwind(AssertUnwindSafe(f));
}

/// A request's parameters, or the error to answer with.
pub fn params<P: serde::de::DeserializeOwned>(request: &Request) -> Result<P, Response> {
    serde_json::from_value(request.params.clone())
        .map_err(|e| Response::new_err(request.id.clone(), ErrorCode::InvalidParams as i32, e.to_string()))
}
