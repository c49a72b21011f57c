//! What the analysis sees of a project ([`oc_ide::Db`]): the open documents' own text (parsed
//! once a version), and for everything else what the last check read — the session's files,
//! their syntax trees, each root's scope and rules.

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use oc_compiler::Workspace;
use oc_ide::Db;
use oc_model::Rules;
use oc_syntax::ast;

/// An open document's text and, once asked, its syntax tree.
pub struct Source {
    pub text: String,
    parsed: OnceLock<ast::SourceFile>,
}

impl Source {
    pub fn new(text: String) -> Source {
        Source { text, parsed: OnceLock::new() }
    }

    pub fn ast(&self) -> &ast::SourceFile {
        self.parsed.get_or_init(|| oc_syntax::parse(oc_diag::FileId(0), &self.text).0)
    }
}

/// One project as the analysis sees it.
pub struct World<'a> {
    /// The open documents of the project, by logical path.
    pub open: HashMap<&'a str, &'a Source>,
    /// What the last check step left of the project, once the checker has seen it.
    pub snapshot: Option<Arc<Snapshot>>,
    /// The standard library, parsed (for its documents, and before a first check).
    pub std: &'a StdLib,
}

/// The standard library's files, and those of the default ruleset.
pub struct StdLib {
    pub workspace: Workspace,
    pub default_files: Vec<String>,
}

impl StdLib {
    pub fn new() -> StdLib {
        let mut workspace = Workspace::new();
        let mut default_files = Vec::new();
        if let Some((_, index)) = oc_compiler::stdlib::builtin(oc_compiler::stdlib::DEFAULT) {
            if let Some(id) = workspace.id_of(index) {
                let c = workspace.compile_ids(&mut oc_compiler::stdlib::NoFiles, &[id]);
                default_files = c.files.iter().filter_map(|id| workspace.file(*id)).map(|f| f.path.clone()).collect();
            }
        }
        StdLib { workspace, default_files }
    }
}

impl Default for StdLib {
    fn default() -> Self {
        Self::new()
    }
}

impl World<'_> {
    fn std_file(&self, path: &str) -> Option<&oc_compiler::SourceFile> {
        let ws = &self.std.workspace;
        ws.id_of(path).and_then(|id| ws.file(id))
    }
}

impl Db for World<'_> {
    fn text(&self, path: &str) -> Option<&str> {
        if let Some(source) = self.open.get(path) {
            return Some(&source.text);
        }
        if let Some(source) = self.snapshot.as_ref().and_then(|s| s.files.get(path)) {
            return Some(&source.text);
        }
        self.std_file(path).map(|f| f.text.as_str())
    }

    fn ast(&self, path: &str) -> Option<&ast::SourceFile> {
        if oc_ide::is_map(path) {
            return None;
        }
        if let Some(source) = self.open.get(path) {
            return Some(source.ast());
        }
        if let Some(source) = self.snapshot.as_ref().and_then(|s| s.files.get(path)) {
            return Some(source.ast());
        }
        self.std_file(path).map(oc_compiler::SourceFile::ast)
    }

    fn scope(&self, path: &str) -> Option<Vec<&str>> {
        match &self.snapshot {
            Some(s) => s.scopes.get(path).map(|v| v.iter().map(String::as_str).collect()),
            // A standard library document: the whole library.
            None if path.starts_with(oc_compiler::stdlib::PREFIX) => {
                Some(self.std.workspace.files().map(|(_, f)| f.path.as_str()).collect())
            }
            // A project not checked yet: the default ruleset (`oc_ide` adds the file itself).
            None => None,
        }
    }

    fn rules(&self, path: &str) -> Option<&Rules> {
        self.snapshot.as_ref().and_then(|s| s.rules.get(path)).map(|r| &**r)
    }

    fn files(&self) -> Vec<&str> {
        self.snapshot.as_ref().map(|s| s.project_files.iter().map(String::as_str).collect()).unwrap_or_default()
    }

    fn std_files(&self) -> Vec<&str> {
        match self.snapshot.as_ref().map(|s| &s.std_files).filter(|f| !f.is_empty()) {
            Some(files) => files.iter().map(String::as_str).collect(),
            None => self.std.default_files.iter().map(String::as_str).collect(),
        }
    }
}

/// What the analysis reads of a project, as the last check step left it.
#[derive(Default)]
pub struct Snapshot {
    /// Every file the session read (the standard library aside), by logical path.
    pub files: HashMap<String, Arc<Source>>,
    /// The files each `.oc` root and map of the project was compiled with.
    pub scopes: HashMap<String, Vec<String>>,
    /// The rules each open map was checked against.
    pub rules: HashMap<String, Arc<oc_model::Rules>>,
    /// The project's `.oc` files and maps.
    pub project_files: Vec<String>,
    /// The standard library's files of the default ruleset.
    pub std_files: Vec<String>,
    /// A loose document's logical path and URI.
    pub loose: Option<(String, String)>,
    /// Of the project's roots, how many the checks have read so far (the open documents' come
    /// first, the rest after a pause in typing).
    pub read: (usize, usize),
}
