//! What an editor asks about oc sources, answered as plain data: hover, go to definition, find
//! references, rename, completion, semantic tokens, signature help, inlay hints, document and
//! workspace symbols, folding ranges. Each is a function of a project (a [`Db`]), a file and a
//! byte offset, in the shape of rust-analyzer's `ide` crate: no protocol type appears here, so
//! the language server only translates, and another front end (a web editor) can call the same.
//!
//! **Boundary:** no I/O and no protocol. Files are named by *logical path* (`/`-separated,
//! relative to the project root; `<std>/...` for the standard library), positions are byte
//! offsets into the text the [`Db`] gives.
//! **Invariant:** names are found through resolution ([`names`]): every name in a syntax tree
//! has a role (what it defines, or which kinds of definition it may mean), and a use means the
//! definition its role and scope resolve it to — not every word that happens to be spelt alike
//! (the movement type `Armored` is not the tag `Armored`; a tag's parameter is its own).
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

pub mod complete;
pub mod defs;
pub mod hover;
pub mod maps;
pub mod names;
pub mod navigate;
pub mod outline;
pub mod signature;
pub mod text;
pub mod tokens;

use oc_model::Rules;
use oc_syntax::ast;

pub use defs::{Def, DefKind};

/// What the analysis reads of one project. The language server implements it over its open
/// documents and its checking session; tests over files in memory ([`MemoryDb`]).
pub trait Db {
    /// A file's text by logical path (an open document's unsaved text wins over the disk's).
    fn text(&self, path: &str) -> Option<&str>;
    /// The syntax tree of that very text.
    fn ast(&self, path: &str) -> Option<&ast::SourceFile>;
    /// The files `path` (a `.oc` file or a map) is compiled with — itself, its imports and the
    /// standard library's —, as the last check found; `None` before it was checked.
    fn scope(&self, path: &str) -> Option<Vec<&str>>;
    /// The rules a `.oc` file or a map was last checked with (as far as they could be built).
    fn rules(&self, path: &str) -> Option<&Rules>;
    /// The project's `.oc` files and maps (each checked on its own).
    fn files(&self) -> Vec<&str>;
    /// The standard library's files of the default ruleset: the scope of a file not checked yet.
    fn std_files(&self) -> Vec<&str>;
}

/// A place in a file: its logical path and a byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FilePosition<'a> {
    pub path: &'a str,
    pub offset: usize,
}

/// A range of bytes of a file.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FileRange {
    pub path: String,
    pub start: usize,
    pub end: usize,
}

impl FileRange {
    pub fn new(path: &str, start: usize, end: usize) -> FileRange {
        FileRange { path: path.to_string(), start, end }
    }

    fn of(path: &str, span: oc_diag::Span) -> FileRange {
        FileRange::new(path, span.start as usize, span.end as usize)
    }
}

/// A replacement of a range of one file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TextEdit {
    pub start: usize,
    pub end: usize,
    pub text: String,
}

/// The files a file sees: its scope when checked, else the standard library and itself.
pub(crate) fn scope_of<'a>(db: &'a dyn Db, path: &'a str) -> Vec<&'a str> {
    match db.scope(path) {
        Some(scope) => scope,
        None => {
            let mut files = db.std_files();
            files.push(path);
            files
        }
    }
}

/// Whether a logical path is a map definition.
pub fn is_map(path: &str) -> bool {
    path.ends_with(".map.toml")
}

/// A [`Db`] over texts in memory, each file its own root compiled with the default ruleset and
/// its imports (what `oc check` would do): for tests, and for front ends that hold their files.
pub struct MemoryDb {
    workspace: oc_compiler::Workspace,
    files: Vec<String>,
    scopes: std::collections::HashMap<String, Vec<String>>,
    rules: std::collections::HashMap<String, Rules>,
    maps: std::collections::HashMap<String, String>,
    std_files: Vec<String>,
}

impl MemoryDb {
    /// Compiles every `.oc` file of `files` (logical path, text) on its own; maps are kept as
    /// text and checked against the standard library.
    pub fn new(files: &[(&str, &str)]) -> MemoryDb {
        let mut host = oc_compiler::MemoryHost(files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect());
        let mut workspace = oc_compiler::Workspace::new();
        let mut scopes = std::collections::HashMap::new();
        let mut rules = std::collections::HashMap::new();
        let mut maps = std::collections::HashMap::new();
        let mut std_files = Vec::new();
        if let Some(index) = oc_compiler::stdlib::builtin(oc_compiler::stdlib::DEFAULT).map(|(_, i)| i) {
            if let Some(id) = workspace.id_of(index) {
                let c = workspace.compile_ids(&mut host, &[id]);
                std_files = c.files.iter().filter_map(|id| workspace.file(*id)).map(|f| f.path.clone()).collect();
                if let Some(model) = c.into_model() {
                    for (path, _) in files.iter().filter(|(p, _)| is_map(p)) {
                        rules.insert(path.to_string(), model.clone());
                    }
                }
            }
        }
        for (path, text) in files {
            if is_map(path) {
                maps.insert(path.to_string(), text.to_string());
                scopes.insert(path.to_string(), std_files.clone());
                continue;
            }
            let (c, _) = workspace.compile(&mut host, &[path.to_string()]);
            let scope: Vec<String> = c.files.iter().filter_map(|id| workspace.file(*id)).map(|f| f.path.clone()).collect();
            scopes.insert(path.to_string(), scope);
            if let Some(model) = c.into_model() {
                rules.insert(path.to_string(), model);
            }
        }
        MemoryDb { workspace, files: files.iter().map(|(p, _)| p.to_string()).collect(), scopes, rules, maps, std_files }
    }
}

impl Db for MemoryDb {
    fn text(&self, path: &str) -> Option<&str> {
        if let Some(t) = self.maps.get(path) {
            return Some(t);
        }
        self.workspace.id_of(path).and_then(|id| self.workspace.file(id)).map(|f| f.text.as_str())
    }

    fn ast(&self, path: &str) -> Option<&ast::SourceFile> {
        if is_map(path) {
            return None;
        }
        self.workspace.id_of(path).and_then(|id| self.workspace.file(id)).map(|f| f.ast())
    }

    fn scope(&self, path: &str) -> Option<Vec<&str>> {
        self.scopes.get(path).map(|s| s.iter().map(String::as_str).collect())
    }

    fn rules(&self, path: &str) -> Option<&Rules> {
        self.rules.get(path)
    }

    fn files(&self) -> Vec<&str> {
        self.files.iter().map(String::as_str).collect()
    }

    fn std_files(&self) -> Vec<&str> {
        self.std_files.iter().map(String::as_str).collect()
    }
}
