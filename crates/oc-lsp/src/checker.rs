//! Checks off the main loop: a thread of its own owns the checking sessions (one per project
//! root, its open documents as their overlay) and publishes diagnostics, while the main loop
//! keeps reading and answering. Edits reach it as [`Job`]s; every job waiting is applied before
//! a check starts, so a burst of keystrokes is one check of the last text.
//!
//! A check goes in steps — first the roots of the open documents (their diagnostics published
//! at once), then, after a pause in typing, the rest of the project a few roots at a time —
//! and between steps it looks for new jobs: a check whose text is already stale is
//! **cancelled** there and started again on the newest text (its stale diagnostics are not
//! published). The sessions are behind one
//! lock, held for a step at a time, so requests read them between steps.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use crossbeam_channel::{Receiver, Sender};
use lsp_types::{Diagnostic as LspDiagnostic, DiagnosticRelatedInformation, DiagnosticSeverity, Location, NumberOrString};
use oc_diag::{Diagnostic, Severity, Span};
use oc_project::{Project, Session};

use crate::jsonrpc::{Message, Notification};
use crate::text::{path_to_uri, uri_of, LineIndex};
use crate::world::{Snapshot, Source};

/// What the main loop tells the checker.
#[derive(Debug)]
pub enum Job {
    /// A document's whole text, on open or after an edit (`loose`: checked alone).
    Text {
        uri: String,
        root: PathBuf,
        logical: String,
        loose: bool,
        version: i32,
        text: String,
    },
    Close {
        uri: String,
        root: PathBuf,
        logical: String,
        loose: bool,
    },
    /// The server's copy of a document lost sync (why) at this version.
    OutOfSync {
        uri: String,
        root: PathBuf,
        version: i32,
        why: String,
    },
    /// Files created, changed or deleted on disk, by root (logical paths).
    Disk(Vec<(PathBuf, String)>),
}

/// One project root: what `oc check ROOT` would check, plus the open documents under it.
struct ProjectState {
    project: Project,
    session: Session,
    dirty: bool,
    /// For a loose document's root: its logical path and its URI as the editor wrote it.
    loose: Option<(String, String)>,
    /// Open documents: URI -> (logical path, version).
    open: BTreeMap<String, (String, i32)>,
    /// Open documents whose copy lost sync: URI -> why.
    out_of_sync: HashMap<String, String>,
    /// The version each open document's diagnostics were last published for.
    heard: HashMap<String, i32>,
    /// The URIs this root published diagnostics for (cleared when they have none).
    shown: BTreeSet<String>,
}

impl ProjectState {
    fn new(root: &Path) -> ProjectState {
        ProjectState {
            project: discover(root),
            session: Session::new(root.to_path_buf()),
            dirty: true,
            loose: None,
            open: BTreeMap::new(),
            out_of_sync: HashMap::new(),
            heard: HashMap::new(),
            shown: BTreeSet::new(),
        }
    }

    fn uri_of(&self, root: &Path, path: &str) -> Option<String> {
        uri_of(self.loose.as_ref(), root, path)
    }
}

/// A published diagnostic and the replacement a quick fix would make, if it suggests one.
#[derive(Clone, Debug)]
pub struct Published {
    pub diagnostic: LspDiagnostic,
    pub suggestion: Option<String>,
    /// The version of the open document it was published for (`None`: a file not open).
    pub version: Option<i32>,
}

/// What the checker leaves for the main loop: each project's snapshot and what was published.
/// Both locks are held only to swap or read a value, never during a check.
#[derive(Default)]
pub struct Shared {
    snapshots: Mutex<HashMap<PathBuf, Arc<Snapshot>>>,
    /// What was last published, by URI (for clearing and for quick fixes).
    published: Mutex<HashMap<String, Vec<Published>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A poisoned lock (a panic in a check) is taken as it is: its value is always whole.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Shared {
    /// A project's snapshot, if the checker has seen it.
    pub fn snapshot(&self, root: &Path) -> Option<Arc<Snapshot>> {
        lock(&self.snapshots).get(root).cloned()
    }

    /// What was last published for a document.
    pub fn published(&self, uri: &str) -> Vec<Published> {
        lock(&self.published).get(uri).cloned().unwrap_or_default()
    }
}

/// How many roots a step of a whole-project check takes (between steps it may be cancelled).
const STEP: usize = 8;
/// How long the open documents' check waits for the next edit before checking the rest.
const PAUSE: std::time::Duration = std::time::Duration::from_millis(40);

/// The checker's thread: applies jobs, checks, publishes; ends when the job channel closes.
pub fn run(shared: Arc<Shared>, jobs: Receiver<Job>, out: Sender<Message>) {
    let mut checker = Checker { shared, jobs, out, projects: BTreeMap::new() };
    while let Ok(job) = checker.jobs.recv() {
        checker.apply(job);
        loop {
            while let Ok(job) = checker.jobs.try_recv() {
                checker.apply(job);
            }
            let done = catch_unwind(AssertUnwindSafe(|| checker.check_all()));
            match done {
                // Cancelled by a newer job: take it and check again.
                Ok(false) => continue,
                Ok(true) => break,
                Err(_) => {
                    checker.log(crate::jsonrpc::INTERNAL_ERROR);
                    break;
                }
            }
        }
    }
}

struct Checker {
    shared: Arc<Shared>,
    jobs: Receiver<Job>,
    out: Sender<Message>,
    projects: BTreeMap<PathBuf, ProjectState>,
}

impl Checker {
    fn notify(&self, method: &str, params: impl serde::Serialize) {
        let _ = self.out.send(Message::Notification(Notification::new(method, params)));
    }

    fn log(&self, message: &str) {
        self.notify("window/logMessage", serde_json::json!({ "type": 1, "message": message }));
    }

    /// Waits up to `pause` for a job; one that comes is applied (the check in progress is
    /// then stale).
    fn edit_within(&mut self, pause: std::time::Duration) -> bool {
        match self.jobs.recv_timeout(pause) {
            Ok(job) => {
                self.apply(job);
                true
            }
            Err(_) => false,
        }
    }

    fn apply(&mut self, job: Job) {
        let projects = &mut self.projects;
        match job {
            Job::Text { uri, root, logical, loose, version, text } => {
                let state = projects.entry(root.clone()).or_insert_with(|| ProjectState::new(&root));
                if loose {
                    state.loose = Some((logical.clone(), uri.clone()));
                }
                add_open(&mut state.project, std::iter::once(logical.clone()));
                state.session.set_overlay(&logical, Some(text));
                state.open.insert(uri.clone(), (logical, version));
                state.out_of_sync.remove(&uri);
                state.dirty = true;
            }
            Job::OutOfSync { uri, root, version, why } => {
                if let Some(state) = projects.get_mut(&root) {
                    if let Some(open) = state.open.get_mut(&uri) {
                        open.1 = version;
                    }
                    state.out_of_sync.insert(uri, why);
                    state.dirty = true;
                }
            }
            Job::Close { uri, root, logical, loose } => {
                if loose {
                    // Nothing else is checked there: forget it, and clear what it showed.
                    projects.remove(&root);
                    lock(&self.shared.snapshots).remove(&root);
                    lock(&self.shared.published).remove(&uri);
                    self.notify("textDocument/publishDiagnostics", serde_json::json!({"uri": uri, "diagnostics": []}));
                    return;
                }
                if let Some(state) = projects.get_mut(&root) {
                    state.open.remove(&uri);
                    state.heard.remove(&uri);
                    state.out_of_sync.remove(&uri);
                    state.session.set_overlay(&logical, None);
                    // A folder without an oc.toml, its last document closed, is no project the
                    // editor works in: forgotten with what it showed (kept, each folder a file
                    // was opened in held its session: a review grew the server to 1.4 GB
                    // opening and closing a thousand files of folders of their own).
                    if state.open.is_empty() && state.project.manifest.is_none() {
                        let shown = std::mem::take(&mut state.shown);
                        projects.remove(&root);
                        lock(&self.shared.snapshots).remove(&root);
                        for uri in shown {
                            lock(&self.shared.published).remove(&uri);
                            self.notify("textDocument/publishDiagnostics", serde_json::json!({"uri": uri, "diagnostics": []}));
                        }
                        return;
                    }
                    // A file that discovery would not have found leaves the check with its buffer.
                    rediscover(state, &root);
                }
            }
            Job::Disk(changes) => {
                let mut roots: BTreeMap<PathBuf, Vec<String>> = BTreeMap::new();
                for (root, logical) in changes {
                    roots.entry(root).or_default().push(logical);
                }
                for (root, changed) in roots {
                    let Some(state) = projects.get_mut(&root) else { continue };
                    let changed: Vec<String> = changed.into_iter().filter(|c| state.session.overlay(c).is_none()).collect();
                    state.session.invalidate(&changed);
                    rediscover(state, &root);
                }
            }
        }
    }

    /// Checks every project with changes; `false` when cancelled by a newer job.
    fn check_all(&mut self) -> bool {
        let roots: Vec<PathBuf> = self.projects.iter().filter(|(_, p)| p.dirty).map(|(r, _)| r.clone()).collect();
        for root in &roots {
            if !self.check(root) {
                return false;
            }
        }
        true
    }

    /// Checks one root in steps: the open documents' roots first, then the rest; `false` when
    /// cancelled.
    fn check(&mut self, root: &Path) -> bool {
        // Step one: what the open documents need, published at once.
        {
            let Some(state) = self.projects.get_mut(root) else { return true };
            let open: BTreeSet<String> = state.open.values().map(|(l, _)| l.clone()).collect();
            let part = Project {
                files: state.project.files.iter().filter(|f| open.contains(*f)).cloned().collect(),
                maps: state.project.maps.iter().filter(|f| open.contains(*f)).cloned().collect(),
                ..state.project.clone()
            };
            let result = state.session.run(&part);
            snapshot(&self.shared, root, state);
            match result {
                Ok(_) if !self.jobs.is_empty() => return false,
                Ok(outcome) => publish(&self.out, &self.shared, root, state, &outcome.diagnostics, true),
                Err(e) => {
                    state.dirty = false;
                    let message = format!("oc lsp: cannot check {}: {e}", root.display());
                    self.log(&message);
                    return true;
                }
            }
        }
        // While edits keep coming, only the open documents are checked: the rest waits for a
        // pause in typing.
        if self.edit_within(PAUSE) {
            return false;
        }
        // The rest, a few roots at a time, then the whole for the final word.
        let Some(state) = self.projects.get(root) else { return true };
        let (files, maps) = (state.project.files.clone(), state.project.maps.clone());
        for (files, maps) in steps(&files, &maps) {
            let Some(state) = self.projects.get_mut(root) else { return true };
            let part = Project { files, maps, ..state.project.clone() };
            let _ = state.session.run(&part);
            if !self.jobs.is_empty() {
                return false;
            }
        }
        let Some(state) = self.projects.get_mut(root) else { return true };
        let project = state.project.clone();
        let result = state.session.run(&project);
        snapshot(&self.shared, root, state);
        match result {
            Ok(_) if !self.jobs.is_empty() => return false,
            Ok(outcome) => {
                state.dirty = false;
                publish(&self.out, &self.shared, root, state, &outcome.diagnostics, false);
            }
            Err(e) => {
                state.dirty = false;
                let message = format!("oc lsp: cannot check {}: {e}", root.display());
                self.log(&message);
            }
        }
        true
    }
}

/// Leaves what the analysis needs of a root for the main loop: the texts the session read
/// (each shared with the last snapshot where it did not change), every root's scope, the
/// rules of the open maps.
fn snapshot(shared: &Shared, root: &Path, state: &ProjectState) {
    let old = shared.snapshot(root);
    let ws = &state.session.workspace;
    let mut files: HashMap<String, Arc<Source>> = HashMap::new();
    let mut keep = |path: &str, text: &str| {
        let same = old.as_ref().and_then(|o| o.files.get(path)).filter(|s| s.text == text).cloned();
        files.insert(path.to_string(), same.unwrap_or_else(|| Arc::new(Source::new(text.to_string()))));
    };
    for (id, f) in ws.files() {
        // Live files only (a forgotten one keeps its slot, emptied), the library aside.
        if !f.path.starts_with(oc_compiler::stdlib::PREFIX) && ws.id_of(&f.path) == Some(id) {
            keep(&f.path, &f.text);
        }
    }
    for path in state.session.map_paths() {
        if let Some(text) = state.session.map_text(path) {
            keep(path, text);
        }
    }
    let roots = state.project.files.iter().chain(&state.project.maps);
    let scopes: HashMap<String, Vec<String>> =
        roots.filter_map(|r| Some((r.clone(), state.session.scope(r)?.into_iter().map(str::to_string).collect()))).collect();
    let open_maps = state.open.values().map(|(l, _)| l).filter(|l| oc_project::discover::is_map(l));
    let rules = open_maps
        .filter_map(|m| {
            let rules = state.session.rules(m)?;
            // Shared with the last snapshot when the same.
            let same = old.as_ref().and_then(|o| o.rules.get(m)).filter(|r| ***r == *rules).cloned();
            Some((m.clone(), same.unwrap_or_else(|| Arc::new(rules.clone()))))
        })
        .collect();
    let read = (
        state.project.files.iter().chain(&state.project.maps).filter(|r| scopes.contains_key(*r)).count(),
        state.project.files.len() + state.project.maps.len(),
    );
    let snapshot = Snapshot {
        read,
        files,
        scopes,
        rules,
        project_files: state.project.files.iter().chain(&state.project.maps).cloned().collect(),
        std_files: state.session.std_files().to_vec(),
        loose: state.loose.clone(),
    };
    lock(&shared.snapshots).insert(root.to_path_buf(), Arc::new(snapshot));
}

/// A project's roots in steps of [`STEP`] files and maps.
fn steps(files: &[String], maps: &[String]) -> Vec<(Vec<String>, Vec<String>)> {
    let mut out: Vec<(Vec<String>, Vec<String>)> = files.chunks(STEP).map(|c| (c.to_vec(), Vec::new())).collect();
    out.extend(maps.chunks(STEP).map(|c| (Vec::new(), c.to_vec())));
    out
}

/// What `oc check ROOT` would check: the project's files when it has an `oc.toml`; else none
/// (only the open documents: a folder without `oc.toml` may be a home folder, not a project).
fn discover(root: &Path) -> Project {
    let empty = || Project { root: root.to_path_buf(), ..Project::default() };
    if !root.join(oc_project::manifest::FILE_NAME).is_file() {
        return empty();
    }
    oc_project::discover(&[root.to_path_buf()]).ok().and_then(|v| v.into_iter().next()).unwrap_or_else(empty)
}

/// Finds a project's files again, the open documents included, and marks it for a check.
fn rediscover(state: &mut ProjectState, root: &Path) {
    state.project = discover(root);
    let open: Vec<String> = state.open.values().map(|(l, _)| l.clone()).collect();
    add_open(&mut state.project, open.into_iter());
    state.dirty = true;
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

/// Publishes what changed. `open_only`: the check covered the open documents' roots only, so
/// only their lists are sent (and nothing is cleared elsewhere).
fn publish(
    out: &Sender<Message>,
    shared: &Shared,
    root: &Path,
    state: &mut ProjectState,
    diagnostics: &[Diagnostic],
    open_only: bool,
) {
    let mut published = lock(&shared.published);
    let loose = state.loose.is_some();
    let mut by_uri: BTreeMap<String, Vec<Published>> = BTreeMap::new();
    // One line index a file: a file with many diagnostics is not read once for each.
    let mut lines = Lines::default();
    for d in diagnostics {
        let path = state.session.path(d.span.file);
        if path.starts_with(oc_compiler::stdlib::PREFIX) {
            continue;
        }
        let Some(uri) = state.uri_of(root, path) else { continue };
        if open_only && !state.open.contains_key(&uri) {
            continue;
        }
        let published = to_lsp(&state.session, &mut lines, (!loose).then_some(root), d);
        by_uri.entry(uri).or_default().push(published);
    }
    // A document whose copy lost sync shows that, not what its stale text holds.
    for (uri, why) in &state.out_of_sync {
        if state.open.contains_key(uri) {
            by_uri.insert(uri.clone(), vec![out_of_sync_diagnostic(why)]);
        }
    }
    // Files of this root that had diagnostics and have none now are cleared; open files always
    // hear.
    if !open_only {
        for u in std::mem::take(&mut state.shown) {
            by_uri.entry(u).or_default();
        }
    }
    for u in state.open.keys() {
        by_uri.entry(u.clone()).or_default();
    }
    for (key, list) in by_uri {
        if !list.is_empty() {
            state.shown.insert(key.clone());
        }
        let open = state.open.get(&key);
        let same = published.get(&key).map_or(list.is_empty(), |old| {
            old.len() == list.len() && old.iter().zip(&list).all(|(a, b)| a.diagnostic == b.diagnostic)
        });
        // An open document hears once per version even when nothing changed.
        let heard = open.is_none_or(|(_, v)| state.heard.get(&key) == Some(v));
        if same && heard {
            continue;
        }
        if let Some((_, v)) = open {
            state.heard.insert(key.clone(), *v);
        }
        let diagnostics: Vec<&LspDiagnostic> = list.iter().map(|p| &p.diagnostic).collect();
        let params = serde_json::json!({"uri": key, "diagnostics": diagnostics, "version": open.map(|(_, v)| v)});
        let _ = out.send(Message::Notification(Notification::new("textDocument/publishDiagnostics", params)));
        if list.is_empty() {
            published.remove(&key);
        } else {
            let version = open.map(|(_, v)| *v);
            published.insert(key, list.into_iter().map(|p| Published { version, ..p }).collect());
        }
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
    Published { diagnostic, suggestion: None, version: None }
}

/// Each file's line index, made when first wanted.
#[derive(Default)]
struct Lines<'a>(HashMap<oc_diag::FileId, LineIndex<'a>>);

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
    Published { diagnostic, suggestion: suggestion(&d.help), version: None }
}
