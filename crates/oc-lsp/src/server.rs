//! The server's state: the open documents (their text is the truth, not the disk's), the
//! projects they belong to and the way to the client; requests and notifications are answered
//! from it ([`crate::requests`], [`crate::handlers`]); checking runs on the checker's thread
//! ([`crate::checker`]), which every edit feeds and nothing waits for.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crossbeam_channel::Sender;

use crate::checker::{Job, Shared};
use crate::jsonrpc::{ErrorCode, Message, Notification, Request, Response};
use crate::text::uri_to_path;
use crate::world::{Source, StdLib, World};
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
    pub source: Source,
    pub place: Place,
    /// Why the server's copy no longer matches the editor's (an edit it could not apply), until
    /// the editor sends the whole text again (reopening the file).
    pub out_of_sync: Option<String>,
}

pub struct Server {
    pub sender: Sender<Message>,
    pub docs: HashMap<String, Doc>,
    /// The checking sessions, written by the checker's thread.
    pub shared: Arc<Shared>,
    jobs: Sender<Job>,
    /// Where standard library files are written for the editor to show (read-only).
    pub std_dir: PathBuf,
    /// Under this folder, which is never created, each loose document gets a root of its own.
    pub loose_dir: PathBuf,
    pub std_written: std::cell::Cell<bool>,
    /// The standard library parsed, for its own documents and before a project's first check.
    pub std: StdLib,
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
    /// A server whose checks run on a thread of their own (joined by [`Server::stop`]).
    pub fn start(sender: Sender<Message>, config: &Config) -> (Server, std::thread::JoinHandle<()>) {
        let shared = Arc::new(Shared::default());
        let (jobs, rx) = crossbeam_channel::unbounded();
        let checker = {
            let (shared, out) = (shared.clone(), sender.clone());
            std::thread::spawn(move || crate::checker::run(shared, rx, out))
        };
        let server = Server {
            sender,
            docs: HashMap::new(),
            shared,
            jobs,
            std_dir: std_dir(&config.cache_dir),
            loose_dir: config.cache_dir.join("loose-documents-are-never-read-from-here"),
            std_written: std::cell::Cell::new(false),
            std: StdLib::new(),
        };
        (server, checker)
    }

    fn job(&self, job: Job) {
        let _ = self.jobs.send(job);
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

    /// Records a document's new text (open, or after an edit). `language` when the editor said
    /// (on open); a change keeps the place found on open.
    pub fn set_text(&mut self, uri: &str, version: i32, text: String, language: Option<&str>) {
        let place = match (language, self.docs.get(uri)) {
            (None, Some(doc)) => doc.place.clone(),
            _ => self.place(uri, language),
        };
        if let Place::Project { root, logical, loose } = &place {
            self.job(Job::Text {
                uri: uri.to_string(),
                root: root.clone(),
                logical: logical.clone(),
                loose: *loose,
                version,
                text: text.clone(),
            });
        }
        self.docs.insert(uri.to_string(), Doc { version, source: Source::new(text), place, out_of_sync: None });
    }

    /// An edit that could not be applied: the text is kept as it was, the editor is told, and
    /// the document's diagnostics say so until it sends the whole text again.
    pub fn lost_sync(&mut self, uri: &str, version: i32, why: String) {
        let Some(doc) = self.docs.get_mut(uri) else {
            self.show(1, &format!("oc lsp: an edit to {uri}, which is not open, was ignored"));
            return;
        };
        let first = doc.out_of_sync.is_none();
        doc.out_of_sync = Some(why.clone());
        doc.version = version;
        if let Place::Project { root, .. } = doc.place.clone() {
            self.job(Job::OutOfSync { uri: uri.to_string(), root, version, why: why.clone() });
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
            self.job(Job::Close { uri: uri.to_string(), root, logical, loose });
        }
    }

    /// Files created, deleted or changed on disk: the checker rediscovers their projects and
    /// rechecks what they affect (open documents keep their text).
    pub fn disk_changed(&mut self, uris: &[String]) {
        let changes: Vec<(PathBuf, String)> = uris
            .iter()
            .filter_map(|uri| match self.place(uri, None) {
                Place::Project { root, logical, loose: false } => Some((root, logical)),
                _ => None,
            })
            .collect();
        if !changes.is_empty() {
            self.job(Job::Disk(changes));
        }
    }

    /// Runs `f` with the analysis's view of a document's project, its place and its logical path.
    pub fn with_world<T>(&self, uri: &str, f: impl FnOnce(&World<'_>, &Place, &str) -> T) -> Option<T> {
        let doc = self.docs.get(uri)?;
        let open = |root: Option<&Path>| -> HashMap<&str, &Source> {
            self.docs
                .values()
                .filter_map(|d| match &d.place {
                    Place::Project { root: r, logical, .. } if Some(r.as_path()) == root => Some((logical.as_str(), &d.source)),
                    Place::Std { logical } if root.is_none() => Some((logical.as_str(), &d.source)),
                    _ => None,
                })
                .collect()
        };
        match &doc.place {
            Place::Project { root, logical, .. } => {
                let world = World { open: open(Some(root)), snapshot: self.shared.snapshot(root), std: &self.std };
                Some(f(&world, &doc.place, logical))
            }
            Place::Std { logical } => {
                let world = World { open: open(None), snapshot: None, std: &self.std };
                Some(f(&world, &doc.place, logical))
            }
            Place::Other => None,
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

/// A request's parameters, or the error to answer with.
pub fn params<P: serde::de::DeserializeOwned>(request: &Request) -> Result<P, Response> {
    serde_json::from_value(request.params.clone())
        .map_err(|e| Response::new_err(request.id.clone(), ErrorCode::InvalidParams as i32, format!("invalid params: {e}")))
}
