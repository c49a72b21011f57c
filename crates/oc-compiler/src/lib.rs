//! The oc compiler: imports, name resolution, type checking, lowering AST -> [`oc_model::Rules`];
//! and the standard library, written in the DSL and embedded in the binary.
//!
//! **Boundary:** no file system access. Files are read through the [`Host`] the caller passes,
//! by *logical path*: `/`-separated, relative to the project root. Import paths are resolved and
//! confined to the root here, so every front end (CLI, watcher, tests) behaves the same.
//!
//! **Invariant:** compilation never stops at the first error, and never panics on input.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

mod advanced;
mod check;
pub mod codes;
mod context;
mod courage;
mod deploy;
mod dice;
mod elsewhere;
mod env;
mod expr;
mod fog;
mod held;
mod hints;
mod host;
mod paths;
mod read;
pub mod scenario;
pub mod stdlib;
mod turn;

use std::collections::{HashMap, HashSet};

use oc_diag::{Diagnostic, FileId, Span};
use oc_syntax::ast;

pub use codes::CODES;
pub use host::ReadError;
pub use paths::{relative, PathError};

/// A path relative to the project root, tidied (`a/./b/../c` to `a/c`), or why it is refused
/// (absolute, climbing above the root, naming no file). The same confinement as imports.
pub fn resolve_logical(path: &str) -> Result<String, PathError> {
    if path.starts_with("std:") {
        return Err(PathError::NamesStd);
    }
    paths::resolve("_", path)
}

/// The most cells one table may have.
pub const MAX_TABLE_CELLS: usize = 65_536;
/// The caps on dice shapes (pools, listed faces, values, explosion depth).
pub mod dice_limits {
    pub use oc_model::dice::{
        EXPLODE_TAIL, MAX_DICE_COUNT, MAX_DICE_VALUES, MAX_DICE_WORK, MAX_FACE_VALUE, MAX_KEEP_STATES, MAX_LISTED_FACES,
    };
}

/// The most faces one die may have (exact forecasts enumerate them all).
pub const MAX_DIE_FACES: u32 = 10_000;

/// How deep a chain of imports may go (a link loop on disk would otherwise never end).
pub const MAX_IMPORT_DEPTH: usize = 32;

/// Reads the text of a file by logical path (relative to the project root, `/`-separated).
/// A [`Host`] over files held in memory (logical path -> text): tests, benches and tools that
/// compile text they already have.
#[derive(Clone, Debug, Default)]
pub struct MemoryHost(pub std::collections::BTreeMap<String, String>);

impl MemoryHost {
    /// One file.
    pub fn one(path: &str, text: &str) -> MemoryHost {
        MemoryHost(std::collections::BTreeMap::from([(path.to_string(), text.to_string())]))
    }
}

impl<P: Into<String>, T: Into<String>> FromIterator<(P, T)> for MemoryHost {
    fn from_iter<I: IntoIterator<Item = (P, T)>>(files: I) -> MemoryHost {
        MemoryHost(files.into_iter().map(|(p, t)| (p.into(), t.into())).collect())
    }
}

impl Host for MemoryHost {
    fn read(&mut self, path: &str) -> Result<String, ReadError> {
        self.0.get(path).cloned().ok_or(ReadError::NotFound)
    }
}

pub trait Host {
    fn read(&mut self, path: &str) -> Result<String, ReadError>;
    /// The project's source files (logical paths), for suggesting a file a missing import may
    /// have meant. Empty when the host cannot list them.
    fn candidates(&self) -> Vec<String> {
        Vec::new()
    }
    /// The project's maps (logical paths), for suggesting the map a missing one may have meant.
    /// Empty when the host cannot list them.
    fn map_candidates(&self) -> Vec<String> {
        Vec::new()
    }
    /// For a path that climbs `climbs` folders above the project root: the root's name as the
    /// user knows it (`campaign/`) and a help line on moving the root (where an `oc.toml` would
    /// hold both). `None` when the host has no folders.
    fn root_note(&self, climbs: usize) -> Option<(String, String)> {
        let _ = climbs;
        None
    }
}

/// A file known to the workspace.
#[derive(Debug)]
pub struct SourceFile {
    /// Logical path; standard library files start with `<std>/`.
    pub path: String,
    pub text: String,
    id: FileId,
    /// The syntax tree and the syntax errors, parsed when first read: a standard library file no
    /// compilation imports (another ruleset's) is never parsed.
    parsed: std::sync::OnceLock<(ast::SourceFile, Vec<Diagnostic>)>,
    /// Not DSL source (a scenario's map): never parsed, an empty file to a compilation.
    raw: bool,
    /// A large file as compilations read it, its classes and items deferred (see `read.rs`):
    /// kept, so that a file imported by many roots is cut once (again only when a round finds
    /// a piece of it misread).
    read: std::sync::OnceLock<std::sync::Arc<read::Read>>,
}

impl SourceFile {
    fn new(id: FileId, path: String, text: String) -> SourceFile {
        SourceFile { path, text, id, parsed: std::sync::OnceLock::new(), raw: false, read: std::sync::OnceLock::new() }
    }

    /// A file that is not DSL source (a map): never parsed.
    fn raw(id: FileId, path: String, text: String) -> SourceFile {
        SourceFile {
            path,
            text,
            id,
            parsed: std::sync::OnceLock::from((ast::SourceFile::default(), Vec::new())),
            raw: true,
            read: std::sync::OnceLock::new(),
        }
    }

    fn parsed(&self) -> &(ast::SourceFile, Vec<Diagnostic>) {
        self.parsed.get_or_init(|| oc_syntax::parse(self.id, &self.text))
    }

    /// The file's syntax tree.
    pub fn ast(&self) -> &ast::SourceFile {
        &self.parsed().0
    }

    /// The syntax errors found parsing it.
    pub fn syntax(&self) -> &[Diagnostic] {
        &self.parsed().1
    }
}

/// The outcome of compiling one set of root files with their imports.
#[derive(Debug)]
pub struct Compilation {
    /// The model, when the input had no errors.
    pub rules: Option<oc_model::Rules>,
    /// With errors, the model as far as it could be built (for tools that go on); `None` when
    /// `rules` holds the model (one copy: a large project's model is not held twice).
    /// [`Compilation::into_model`] gives whichever there is.
    pub partial: Option<oc_model::Rules>,
    pub diagnostics: Vec<Diagnostic>,
    /// Every file that took part, standard library included.
    pub files: Vec<FileId>,
}

impl Compilation {
    pub fn error_count(&self) -> usize {
        self.diagnostics.iter().filter(|d| d.is_error()).count()
    }

    /// The model as far as it could be built, errors or not.
    pub fn into_model(self) -> Option<oc_model::Rules> {
        self.rules.or(self.partial)
    }
}

/// All files read so far, each parsed once (but a large file's classes and items, parsed at each
/// compilation as they are lowered, and files a compilation reads again in a new round: see
/// [`Workspace::compile_ids`]). Standard library files are preloaded.
#[derive(Debug)]
pub struct Workspace {
    files: Vec<SourceFile>,
    by_path: HashMap<String, FileId>,
    /// Files of at least this many bytes have their classes and items parsed as they are
    /// lowered, each tree dropped once lowered; smaller files' trees are kept for the next
    /// compilation (see [`Workspace::compile_ids`]).
    defer_from: usize,
}

/// The default of [`Workspace::set_defer_from`]: 64 KiB, about 200 classes or items.
pub const DEFER_FROM: usize = 64 * 1024;

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

impl Workspace {
    pub fn new() -> Workspace {
        let mut ws = Workspace { files: Vec::new(), by_path: HashMap::new(), defer_from: DEFER_FROM };
        for (path, text) in stdlib::FILES {
            ws.add(format!("{}{}", stdlib::PREFIX, path), (*text).to_string());
        }
        ws
    }

    /// From which size (in bytes) a file's classes and items are parsed as they are lowered and
    /// not kept: memory for speed. A test sets 0 (every file) to check that deferring changes no
    /// result. It applies from the next compilation, to every file.
    pub fn set_defer_from(&mut self, bytes: usize) {
        self.defer_from = bytes;
    }

    pub fn file(&self, id: FileId) -> Option<&SourceFile> {
        self.files.get(id.0 as usize)
    }

    pub fn files(&self) -> impl Iterator<Item = (FileId, &SourceFile)> {
        self.files.iter().enumerate().map(|(i, f)| (FileId(i as u32), f))
    }

    pub fn id_of(&self, path: &str) -> Option<FileId> {
        self.by_path.get(path).copied()
    }

    /// Adds (or replaces) a file from text the caller already has.
    pub fn add(&mut self, path: String, text: String) -> FileId {
        if let Some(id) = self.by_path.get(&path).copied() {
            if let Some(slot) = self.files.get_mut(id.0 as usize) {
                *slot = SourceFile::new(id, path, text);
            }
            return id;
        }
        let id = FileId(self.files.len() as u32);
        self.by_path.insert(path.clone(), id);
        self.files.push(SourceFile::new(id, path, text));
        id
    }

    /// Forgets a file's text so that the next compile reads it again (the watcher's hook).
    pub fn invalidate(&mut self, path: &str) {
        if let Some(id) = self.by_path.get(path) {
            if let Some(f) = self.files.get_mut(id.0 as usize) {
                if !f.path.starts_with(stdlib::PREFIX) {
                    *f = SourceFile::raw(f.id, std::mem::take(&mut f.path), String::new());
                }
            }
            self.by_path.remove(path);
        }
    }

    /// Reads a file that is not DSL source (a scenario's map): kept as text, never parsed.
    fn load_raw(&mut self, host: &mut dyn Host, path: &str) -> Result<FileId, ReadError> {
        if let Some(id) = self.by_path.get(path) {
            return Ok(*id);
        }
        let text = host.read(path)?;
        let id = FileId(self.files.len() as u32);
        self.by_path.insert(path.to_string(), id);
        self.files.push(SourceFile::raw(id, path.to_string(), text));
        Ok(id)
    }

    fn load(&mut self, host: &mut dyn Host, path: &str) -> Result<FileId, ReadError> {
        if let Some(id) = self.by_path.get(path) {
            return Ok(*id);
        }
        if path.starts_with(stdlib::PREFIX) {
            return Err(ReadError::NotInStd);
        }
        let text = host.read(path)?;
        Ok(self.add(path.to_string(), text))
    }

    /// Compiles `roots` (logical paths) and everything they import into one model.
    /// A root that cannot be read is reported with the message `Host::read` gave.
    pub fn compile(&mut self, host: &mut dyn Host, roots: &[String]) -> (Compilation, Vec<(String, ReadError)>) {
        let mut unreadable = Vec::new();
        let mut root_ids = Vec::new();
        for root in roots {
            match self.load(host, root) {
                Ok(id) => root_ids.push(id),
                Err(e) => unreadable.push((root.clone(), e)),
            }
        }
        (self.compile_ids(host, &root_ids), unreadable)
    }

    /// Compiles already loaded files and their imports into one model.
    ///
    /// In a large file (see [`Workspace::set_defer_from`]), classes and items are parsed as the
    /// checker lowers them and dropped once lowered, so a large project's syntax tree is never
    /// held whole (nor kept: its [`SourceFile::ast`] parses when asked). A piece whose first
    /// words name a class or an item but which is not that one definition (a broken class, an
    /// import on a class's line) is found as it is lowered; the compilation is then done again
    /// with such pieces parsed up front, from the files known before it (so files load in the
    /// same order), up to three more times, then with every piece parsed. The files the
    /// compilation itself loaded are read from the host again in each new round. Either way the result is
    /// the one a compilation that parsed everything up front gives. Smaller files' trees are
    /// parsed once and kept.
    pub fn compile_ids(&mut self, host: &mut dyn Host, roots: &[FileId]) -> Compilation {
        let mut compilation = self.compile_rounds(host, roots);
        elsewhere::point(self, host, &mut compilation);
        compilation
    }

    /// [`Workspace::compile_ids`] before unknown names are pointed at the files defining them.
    fn compile_rounds(&mut self, host: &mut dyn Host, roots: &[FileId]) -> Compilation {
        let known = self.files.len();
        // Each round parses up front the pieces the rounds before misread (each adds some, so
        // this ends); past a few rounds, every piece.
        let mut eager: HashMap<String, HashSet<usize>> = HashMap::new();
        for _ in 0..4 {
            let (compilation, misread) = self.compile_reading(host, roots, true, &eager);
            if misread.is_empty() {
                return compilation;
            }
            for (id, start) in misread {
                if let Some(f) = self.file(id) {
                    eager.entry(f.path.clone()).or_default().insert(start);
                }
            }
            // As before the round: a misread piece may have hidden an import, and the next
            // round must load files (and number them) as a compilation that read it would.
            self.forget_from(known);
        }
        self.compile_reading(host, roots, false, &eager).0
    }

    /// Forgets the files read since there were `known` (a compilation's round to be done again).
    fn forget_from(&mut self, known: usize) {
        self.files.truncate(known);
        self.by_path.retain(|_, id| (id.0 as usize) < known);
    }

    /// [`Workspace::compile_ids`], deferring the classes and items of large files when `defer`
    /// is set; with the pieces held as text that were misread (then the compilation is not to
    /// be used).
    fn compile_reading(
        &mut self,
        host: &mut dyn Host,
        roots: &[FileId],
        defer: bool,
        eager: &HashMap<String, HashSet<usize>>,
    ) -> (Compilation, Vec<(FileId, usize)>) {
        let mut diagnostics = Vec::new();
        let mut order = Vec::new();
        let mut reads: HashMap<FileId, std::sync::Arc<read::Read>> = HashMap::new();
        let mut state: HashMap<FileId, bool> = HashMap::new(); // false: in progress, true: done
        for root in roots {
            let mut stack = Vec::new();
            let mut walk = Walk { state: &mut state, stack: &mut stack, order: &mut order, reads: &mut reads, defer, eager };
            self.visit(host, *root, &mut walk, &mut diagnostics);
        }
        let has_ruleset =
            order.iter().any(|id| self.view(&reads, *id).is_some_and(|v| v.items().any(|i| matches!(i, ast::Item::Ruleset(_)))));
        // A `ruleset` of the files that could not be read (a syntax error in it): the files are
        // not checked against the default ruleset instead (a cascade of errors in its files, the
        // syntax error far below), and nothing checked against the unread one is said either.
        let unread_ruleset = order.iter().any(|id| {
            let (Some(view), Some(file)) = (self.view(&reads, *id), self.file(*id)) else { return false };
            view.unread().iter().any(|n| {
                file.text.get(..n.span.start as usize).is_some_and(|before| {
                    let before = before.trim_end();
                    before.ends_with("ruleset")
                        && !before.trim_end_matches("ruleset").ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                })
            })
        });
        let has_ruleset = has_ruleset || unread_ruleset;
        let mut files: Vec<FileId> = Vec::new();
        if !has_ruleset {
            // The default ruleset: its index file and everything it imports.
            if let Some(index) = stdlib::RULESETS.first().and_then(|(_, path)| self.id_of(path)) {
                let mut prelude = Vec::new();
                let (mut state, mut stack) = (HashMap::new(), Vec::new());
                let mut walk =
                    Walk { state: &mut state, stack: &mut stack, order: &mut prelude, reads: &mut reads, defer, eager };
                self.visit(host, index, &mut walk, &mut diagnostics);
                files.extend(prelude);
            }
        }
        for id in order {
            if !files.contains(&id) {
                files.push(id);
            }
        }
        let views: Vec<(FileId, &str, read::View<'_>)> =
            files.iter().filter_map(|id| Some((*id, self.file(*id)?.text.as_str(), self.view(&reads, *id)?))).collect();
        let unread: HashSet<String> =
            views.iter().flat_map(|(_, _, v)| v.unread().iter().map(|n| format!("`{}`", n.value))).collect();
        for (_, _, v) in &views {
            diagnostics.extend(v.syntax().iter().cloned());
        }
        let (items, class_defs, item_defs) = read::split(views.into_iter());
        let scenario_defs: Vec<ast::ScenarioDef> =
            items.iter().filter_map(|i| if let ast::Item::Scenario(s) = i { Some(s.clone()) } else { None }).collect();
        let army_defs: Vec<ast::ArmyDef> =
            items.iter().filter_map(|i| if let ast::Item::Army(a) = i { Some(a.clone()) } else { None }).collect();
        let (mut partial, mut found, misread) = check::check(&items, class_defs, item_defs);
        if !misread.is_empty() {
            return (Compilation { rules: None, partial: None, diagnostics: Vec::new(), files: Vec::new() }, misread);
        }
        // The standard library's shared world (terrain, the triangle) serves rulesets that read
        // only part of it: what one of them leaves unread is no finding of the user's.
        found.retain(|d| {
            d.code != codes::RULES_UNREAD || self.file(d.span.file).is_none_or(|f| !f.path.starts_with(stdlib::PREFIX))
        });
        diagnostics.append(&mut found);
        if !scenario_defs.is_empty() || !army_defs.is_empty() {
            let mut lowered = scenario::lower_scenarios(&scenario_defs, &partial, &mut diagnostics);
            let importers: HashMap<FileId, String> =
                scenario_defs.iter().filter_map(|s| self.file(s.span.file).map(|f| (s.span.file, f.path.clone()))).collect();
            let mut maps = Vec::new();
            let checked_from = diagnostics.len();
            scenario::check_maps(
                &mut lowered,
                &partial,
                |id| importers.get(&id).cloned().unwrap_or_default(),
                |path| {
                    let id = self.load_raw(host, path)?;
                    maps.push(id);
                    Ok((id, self.file(id).map(|f| f.text.clone()).unwrap_or_default()))
                },
                &mut diagnostics,
            );
            // A map outside the project: name the root and say where an `oc.toml` would hold both.
            for d in diagnostics.iter_mut().skip(checked_from) {
                let Some(map) = d.message.strip_prefix("the map `").and_then(|m| m.strip_suffix("` is outside the project"))
                else {
                    continue;
                };
                let importer = importers.get(&d.span.file).map_or("", String::as_str);
                if let Some((root, help)) = host.root_note(paths::climbs(importer, map)) {
                    d.message = format!("the map `{map}` is outside the project `{root}`");
                    d.help = help;
                }
            }
            // A map that cannot be read: the project's map nearest its path, as the scenario
            // would write it.
            let mut maps_of_project: Option<Vec<String>> = None;
            for d in diagnostics.iter_mut().skip(checked_from) {
                let Some(map) = d.message.strip_prefix("cannot read the map `").and_then(|m| m.strip_suffix('`')) else {
                    continue;
                };
                let importer = importers.get(&d.span.file).map_or("", String::as_str);
                let Ok(target) = paths::resolve(importer, map) else { continue };
                let known = maps_of_project.get_or_insert_with(|| host.map_candidates());
                if let Some(near) = oc_diag::did_you_mean(&target, known.iter().map(String::as_str).filter(|k| *k != target)) {
                    d.help = format!("did you mean `{}`? {}", paths::relative(importer, near), d.help);
                }
            }
            files.extend(maps);
            partial.armies = scenario::check_armies(&army_defs, &partial, &lowered, &mut diagnostics);
            scenario::check_rout_targets(&scenario_defs, &partial.armies, &mut diagnostics);
            partial.scenarios = lowered.into_iter().map(|l| l.model).collect();
        }
        // A name whose definition could not be read is not also "unknown" where it is used:
        // the syntax error is the one to fix.
        diagnostics
            .retain(|d| !(d.code.starts_with("oc::name::unknown_") && unread.iter().any(|n| d.message.contains(n.as_str()))));
        // What does not hang on the rules stays: syntax, imports, files that cannot be read.
        if unread_ruleset {
            diagnostics.retain(|d| ["oc::syntax::", "oc::import::", "oc::file::"].iter().any(|p| d.code.starts_with(p)));
        }
        dedupe(&mut diagnostics);
        let (rules, partial) =
            if diagnostics.iter().any(|d| d.is_error()) { (None, Some(partial)) } else { (Some(partial), None) };
        (Compilation { rules, partial, diagnostics, files }, misread)
    }

    fn visit(&mut self, host: &mut dyn Host, id: FileId, walk: &mut Walk<'_>, diagnostics: &mut Vec<Diagnostic>) {
        match walk.state.get(&id) {
            Some(true) => return,
            Some(false) => return, // reported by the importer that closed the cycle
            None => {}
        }
        walk.state.insert(id, false);
        walk.stack.push(id);
        let Some(file) = self.file(id) else { return };
        let importer = file.path.clone();
        if !file.raw && file.text.len() >= self.defer_from && !walk.reads.contains_key(&id) {
            let read = self.read_of(id, walk.defer, walk.eager);
            walk.reads.insert(id, read);
        }
        let imports = self.view(walk.reads, id).map_or_else(Vec::new, read::View::imports);
        for import in imports {
            let target = match paths::resolve(&importer, &import.path.value) {
                Ok(p) => p,
                Err(reason) => {
                    let note = host.root_note(paths::climbs(&importer, &import.path.value));
                    let project = note.as_ref().map_or(String::new(), |(root, _)| format!(" `{root}`"));
                    diagnostics.push(
                        Diagnostic::error(
                            codes::IMPORT_OUTSIDE_ROOT,
                            import.path.span,
                            format!("`{}` is outside the project{project}", import.path.value),
                        )
                        .with_label(reason.to_string())
                        .with_help(note.map_or_else(
                            || "imports are relative to the importing file and stay inside the project root".to_string(),
                            |(_, help)| help,
                        )),
                    );
                    continue;
                }
            };
            // Rules live in `.oc` files: another file is neither read as rules nor quoted.
            if !target.to_ascii_lowercase().ends_with(".oc") {
                let with = format!("{}.oc", import.path.value);
                diagnostics.push(
                    Diagnostic::error(
                        codes::IMPORT_NOT_OC,
                        import.path.span,
                        format!("`{}` is not a `.oc` file: an import reads rules", import.path.value),
                    )
                    .with_label("not read")
                    .with_help(format!("name the `.oc` file, extension included (such as `import \"{with}\"`)")),
                );
                continue;
            }
            let target_id = match self.load(host, &target) {
                Ok(id) => id,
                Err(reason) => {
                    diagnostics.push(
                        Diagnostic::error(
                            codes::IMPORT_NOT_FOUND,
                            import.path.span,
                            format!("cannot import `{}`", import.path.value),
                        )
                        .with_label(format!("{target}: {reason}"))
                        .with_help(match reason {
                            // Not there: which file was meant (not the importing one).
                            ReadError::NotFound => self.similar_path_help(&*host, &target, &importer),
                            ReadError::NotRegular(_) => {
                                "an import reads a regular text file of rules: import the `.oc` file itself, not a folder, a FIFO or a device".to_string()
                            }
                            _ => self.similar_path_help(&*host, &target, &importer),
                        }),
                    );
                    continue;
                }
            };
            if walk.stack.len() >= MAX_IMPORT_DEPTH {
                diagnostics.push(
                    Diagnostic::error(codes::IMPORT_TOO_DEEP, import.span, format!("imports nest more than {MAX_IMPORT_DEPTH} files deep"))
                        .with_label(format!("importing `{target}`"))
                        .with_help("a directory link that points back up (such as `sub -> .`) makes endless paths; import the file by its real path"),
                );
                continue;
            }
            if walk.state.get(&target_id) == Some(&false) {
                let mut chain: Vec<String> = walk
                    .stack
                    .iter()
                    .skip_while(|f| **f != target_id)
                    .filter_map(|f| self.file(*f).map(|f| f.path.clone()))
                    .collect();
                chain.push(target.clone());
                diagnostics.push(
                    Diagnostic::error(codes::IMPORT_CYCLE, import.span, "files import each other in a cycle")
                        .with_label(format!("cycle: {}", chain.join(" -> ")))
                        .with_help("remove this import, or move what both files need into a third file"),
                );
                continue;
            }
            self.visit(host, target_id, walk, diagnostics);
        }
        walk.stack.pop();
        walk.state.insert(id, true);
        walk.order.push(id);
    }

    /// A large file's read for a round: the one kept with the file when it parses up front the
    /// pieces `eager` names for it, else a new one, kept; without `defer`, every piece parsed
    /// (and not kept).
    fn read_of(&mut self, id: FileId, defer: bool, eager: &HashMap<String, HashSet<usize>>) -> std::sync::Arc<read::Read> {
        let Some(f) = self.files.get_mut(id.0 as usize) else { return std::sync::Arc::default() };
        if !defer {
            return std::sync::Arc::new(read::read(id, &f.text, false, HashSet::new()));
        }
        let wanted = eager.get(&f.path);
        let kept = f.read.get().cloned();
        if let Some(read) = kept.as_ref().filter(|r| wanted.is_none_or(|w| w.is_subset(&r.eager))) {
            return read.clone();
        }
        let mut starts = kept.map(|r| r.eager.clone()).unwrap_or_default();
        starts.extend(wanted.into_iter().flatten().copied());
        let read = std::sync::Arc::new(read::read(id, &f.text, true, starts));
        f.read = std::sync::OnceLock::from(read.clone());
        read
    }

    /// How this compilation sees a file: its read where it is large, else its whole tree.
    fn view<'s>(&'s self, reads: &'s HashMap<FileId, std::sync::Arc<read::Read>>, id: FileId) -> Option<read::View<'s>> {
        match reads.get(&id) {
            Some(read) => Some(read::View::Read(read)),
            None => self.file(id).map(|f| read::View::Tree(f.ast(), f.syntax())),
        }
    }

    /// Suggests a file the host says the project has (else one read so far), in a fixed order,
    /// so the same tree always gets the same help whatever was read before.
    fn similar_path_help(&self, host: &dyn Host, target: &str, importer: &str) -> String {
        // `import "std:ratngs"`: the built-in rulesets are the standard library's top files.
        if let Some(name) = target.strip_prefix(stdlib::PREFIX).and_then(|n| n.strip_suffix(".oc")) {
            let builtin: Vec<&str> =
                stdlib::FILES.iter().filter_map(|(p, _)| p.strip_suffix(".oc")).filter(|p| !p.contains('/')).collect();
            let all = builtin.iter().map(|b| format!("`std:{b}`")).collect::<Vec<_>>().join(", ");
            return match oc_diag::did_you_mean(name, builtin.iter().copied()) {
                Some(s) => format!("did you mean `std:{s}`? the standard library's rulesets are {all}"),
                None => format!("the standard library's rulesets are {all}"),
            };
        }
        let mut names: Vec<String> = host.candidates();
        if names.is_empty() {
            names = self.by_path.keys().filter(|p| !p.starts_with(stdlib::PREFIX)).cloned().collect();
        }
        names.retain(|n| n != target && n != importer);
        names.sort();
        // Said as the import would be written: from the importing file's folder.
        match oc_diag::did_you_mean(target, names.iter().map(String::as_str)) {
            Some(s) => format!("did you mean `{}`? paths are relative to the importing file", paths::relative(importer, s)),
            None => "paths are relative to the importing file and use `/`".to_string(),
        }
    }
}

/// A walk over the import graph: each file's state (`false` while its imports are walked), the
/// files being walked, the files in the order they finish, and each file as read.
struct Walk<'w> {
    state: &'w mut HashMap<FileId, bool>,
    stack: &'w mut Vec<FileId>,
    order: &'w mut Vec<FileId>,
    reads: &'w mut HashMap<FileId, std::sync::Arc<read::Read>>,
    defer: bool,
    /// By path, the pieces of large files to parse up front (see `Workspace::compile_ids`).
    eager: &'w HashMap<String, HashSet<usize>>,
}

fn dedupe(diagnostics: &mut Vec<Diagnostic>) {
    let mut seen: HashSet<(&'static str, Span, String)> = HashSet::new();
    diagnostics.retain(|d| seen.insert((d.code, d.span, d.message.clone())));
    diagnostics.sort_by(|a, b| (a.span.file, a.span.start, a.code).cmp(&(b.span.file, b.span.start, b.code)));
}

/// Every code the syntax and the compiler can emit.
pub fn all_codes() -> impl Iterator<Item = &'static oc_diag::CodeInfo> {
    oc_syntax::CODES.iter().chain(CODES.iter())
}

#[cfg(test)]
mod lazy_parse {
    use super::{stdlib, MemoryHost, Workspace};

    /// Which standard library files have been parsed.
    fn parsed(ws: &Workspace) -> Vec<&str> {
        ws.files.iter().filter(|f| f.parsed.get().is_some()).map(|f| f.path.as_str()).collect()
    }

    #[test]
    fn a_ruleset_is_compiled_without_parsing_the_others() {
        let mut ws = Workspace::new();
        assert_eq!(parsed(&ws), Vec::<&str>::new(), "nothing is parsed before it is read");
        let id = ws.id_of("<std>/stamina.oc").unwrap_or(oc_diag::FileId(u32::MAX));
        let compilation = ws.compile_ids(&mut stdlib::NoFiles, &[id]);
        assert!(compilation.rules.is_some(), "{:?}", compilation.diagnostics);
        let read = parsed(&ws);
        assert!(read.contains(&"<std>/stamina.oc"), "{read:?}");
        // Stamina shares the ratings' terrain (`ratings/world.oc`), not its classes or rules.
        for other in ["<std>/ratings/classes.oc", "<std>/ratings/ruleset.oc", "<std>/v06.oc", "<std>/battlestorm/roster.oc"] {
            assert!(!read.contains(&other), "{other} was parsed: {read:?}");
        }
        // Read later, a file is parsed then, and the same as it would have been up front.
        let ratings = ws.id_of("<std>/ratings/classes.oc").unwrap_or(oc_diag::FileId(u32::MAX));
        let file = ws.file(ratings).map(|f| (f.ast().items.len(), f.syntax().len()));
        let text = ws.file(ratings).map(|f| f.text.clone()).unwrap_or_default();
        let (ast, syntax) = oc_syntax::parse(ratings, &text);
        assert_eq!(file, Some((ast.items.len(), syntax.len())));
        assert!(ast.items.len() > 20, "the classes file holds every class");
    }

    #[test]
    fn a_large_files_tree_is_never_kept_and_changes_nothing() {
        let mut text = String::from("tag Keen on class doc \"keen\" { crit_bonus += 5 }\n");
        for i in 0..40 {
            text.push_str(&format!(
                "class Gen{i} {{\n    ratings {{ str C mag E skl C spd B def D res E }}\n    wields Swords\n    tags Keen\n    cost {}\n    kit {{ Blade{i} }}\n}}\n\nweapon Blade{i} {{ type Swords might {} weight 0 range 1 cost 300 }}\n",
                500 + i,
                i % 7
            ));
        }
        let compile = |defer_from: usize| {
            let mut ws = Workspace::new();
            ws.set_defer_from(defer_from);
            let id = ws.add("big.oc".to_string(), text.clone());
            let compilation = ws.compile_ids(&mut stdlib::NoFiles, &[id]);
            let kept = ws.file(id).is_some_and(|f| f.parsed.get().is_some());
            (compilation, kept)
        };
        let (whole, kept) = compile(usize::MAX);
        assert!(kept, "a small file's tree is kept for the next compilation");
        let (deferred, kept) = compile(1024);
        assert!(!kept, "a large file's tree is not kept");
        assert!(whole.rules.is_some(), "{:?}", whole.diagnostics.first());
        assert_eq!(whole.rules.as_ref().map(|r| r.classes.len()), Some(40 + stdlib_classes()));
        assert_eq!(deferred.diagnostics, whole.diagnostics);
        assert!(deferred.rules == whole.rules);
        // Deferred, not checked again: every class and item of the file is still text.
        let mut ws = Workspace::new();
        ws.set_defer_from(1024);
        let id = ws.add("big.oc".to_string(), text.clone());
        ws.compile_ids(&mut stdlib::NoFiles, &[id]);
        assert_eq!(held_as_text(&ws, id), (80, 0));

        // A broken class: only its piece is parsed up front the next round, and kept so.
        let broken = text.replacen("cost 507", "cost = 507", 1);
        let mut eager = Workspace::new();
        let id = eager.add("big.oc".to_string(), broken.clone());
        let whole = eager.compile_ids(&mut stdlib::NoFiles, &[id]);
        let mut ws = Workspace::new();
        ws.set_defer_from(1024);
        let id = ws.add("big.oc".to_string(), broken);
        let deferred = ws.compile_ids(&mut stdlib::NoFiles, &[id]);
        assert!(whole.error_count() > 0);
        assert_eq!(deferred.diagnostics, whole.diagnostics);
        assert!(deferred.partial == whole.partial);
        assert_eq!(held_as_text(&ws, id), (79, 1));
    }

    /// A large file's kept read: how many pieces are held as text, and how many a round before
    /// found misread.
    fn held_as_text(ws: &Workspace, id: oc_diag::FileId) -> (usize, usize) {
        let read = ws.file(id).and_then(|f| f.read.get());
        let text = read.map_or(0, |r| r.pieces.iter().filter(|p| matches!(p, super::read::Piece::Deferred { .. })).count());
        (text, read.map_or(0, |r| r.eager.len()))
    }

    /// Files that a deferred piece hides from a first reading (an import on a class's line, a
    /// broken class before an import) are read in the same order, so the same diagnostics.
    #[test]
    fn deferring_reads_imports_in_the_same_order() {
        let cases: [&[(&str, &str)]; 2] = [
            &[
                ("main.oc", "class Foo { cost 1 } import \"a.oc\"\nimport \"b.oc\"\n"),
                ("a.oc", "class A { cost -1 }\n"),
                ("b.oc", "class B { cost -2 }\n"),
            ],
            &[("main.oc", "import \"unit.oc\"\nimport \"units.oc\"\nclass Foo\n"), ("units.oc", "class U { cost 1 }\n")],
        ];
        for files in cases {
            let compile = |defer_from: usize| {
                let mut ws = Workspace::new();
                ws.set_defer_from(defer_from);
                let mut host: MemoryHost = files.iter().copied().collect();
                let (c, _) = ws.compile(&mut host, &["main.oc".to_string()]);
                let paths: Vec<String> = c.files.iter().filter_map(|f| ws.file(*f)).map(|f| f.path.clone()).collect();
                (c.diagnostics, paths)
            };
            let (whole, deferred) = (compile(usize::MAX), compile(0));
            assert!(!whole.0.is_empty());
            assert_eq!(deferred, whole, "{files:?}");
        }
    }

    fn stdlib_classes() -> usize {
        stdlib::default_rules().map_or(0, |r| r.classes.len())
    }
}
