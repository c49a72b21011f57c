//! The oc compiler: imports, name resolution, type checking, lowering AST -> [`oc_model::Rules`];
//! and the standard library, written in the DSL and embedded in the binary.
//!
//! **Boundary:** no file system access. Files are read through the [`Host`] the caller passes,
//! by *logical path*: `/`-separated, relative to the project root. Import paths are resolved and
//! confined to the root here, so every front end (CLI, watcher, tests) behaves the same.
//!
//! **Invariant:** compilation never stops at the first error, and never panics on input.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

mod check;
pub mod codes;
mod context;
mod dice;
mod expr;
mod fog;
mod hints;
mod paths;
pub mod scenario;
pub mod stdlib;
mod turn;

use std::collections::{HashMap, HashSet};

use oc_diag::{Diagnostic, FileId, Span};
use oc_syntax::ast;

pub use codes::CODES;

/// A path relative to the project root, tidied (`a/./b/../c` to `a/c`), or why it is refused
/// (absolute, climbing above the root, naming no file). The same confinement as imports.
pub fn resolve_logical(path: &str) -> Result<String, String> {
    if path.starts_with("std:") {
        return Err("names the standard library, not a file of the project".to_string());
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
    fn read(&mut self, path: &str) -> Result<String, String> {
        self.0.get(path).cloned().ok_or_else(|| "no such file".into())
    }
}

pub trait Host {
    fn read(&mut self, path: &str) -> Result<String, String>;
    /// The project's source files (logical paths), for suggesting a file a missing import may
    /// have meant. Empty when the host cannot list them.
    fn candidates(&self) -> Vec<String> {
        Vec::new()
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
}

impl SourceFile {
    fn new(id: FileId, path: String, text: String) -> SourceFile {
        SourceFile { path, text, id, parsed: std::sync::OnceLock::new() }
    }

    /// A file that is not DSL source (a map): never parsed.
    fn raw(id: FileId, path: String, text: String) -> SourceFile {
        SourceFile { path, text, id, parsed: std::sync::OnceLock::from((ast::SourceFile::default(), Vec::new())) }
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

/// All files read so far, parsed once each. Standard library files are preloaded.
#[derive(Debug)]
pub struct Workspace {
    files: Vec<SourceFile>,
    by_path: HashMap<String, FileId>,
}

impl Default for Workspace {
    fn default() -> Self {
        Self::new()
    }
}

impl Workspace {
    pub fn new() -> Workspace {
        let mut ws = Workspace { files: Vec::new(), by_path: HashMap::new() };
        for (path, text) in stdlib::FILES {
            ws.add(format!("{}{}", stdlib::PREFIX, path), (*text).to_string());
        }
        ws
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
    fn load_raw(&mut self, host: &mut dyn Host, path: &str) -> Result<FileId, String> {
        if let Some(id) = self.by_path.get(path) {
            return Ok(*id);
        }
        let text = host.read(path)?;
        let id = FileId(self.files.len() as u32);
        self.by_path.insert(path.to_string(), id);
        self.files.push(SourceFile::raw(id, path.to_string(), text));
        Ok(id)
    }

    fn load(&mut self, host: &mut dyn Host, path: &str) -> Result<FileId, String> {
        if let Some(id) = self.by_path.get(path) {
            return Ok(*id);
        }
        if path.starts_with(stdlib::PREFIX) {
            return Err("no such file in the standard library".to_string());
        }
        let text = host.read(path)?;
        Ok(self.add(path.to_string(), text))
    }

    /// Compiles `roots` (logical paths) and everything they import into one model.
    /// A root that cannot be read is reported with the message `Host::read` gave.
    pub fn compile(&mut self, host: &mut dyn Host, roots: &[String]) -> (Compilation, Vec<(String, String)>) {
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
    pub fn compile_ids(&mut self, host: &mut dyn Host, roots: &[FileId]) -> Compilation {
        let mut diagnostics = Vec::new();
        let mut order = Vec::new();
        let mut state: HashMap<FileId, bool> = HashMap::new(); // false: in progress, true: done
        for root in roots {
            let mut stack = Vec::new();
            self.visit(host, *root, &mut state, &mut stack, &mut order, &mut diagnostics);
        }
        let has_ruleset = order
            .iter()
            .any(|id| self.file(*id).is_some_and(|f| f.ast().items.iter().any(|i| matches!(i, ast::Item::Ruleset(_)))));
        let mut files: Vec<FileId> = Vec::new();
        if !has_ruleset {
            // The default ruleset: its index file and everything it imports.
            if let Some(index) = stdlib::RULESETS.first().and_then(|(_, path)| self.id_of(path)) {
                let mut prelude = Vec::new();
                self.visit(host, index, &mut HashMap::new(), &mut Vec::new(), &mut prelude, &mut diagnostics);
                files.extend(prelude);
            }
        }
        for id in order {
            if !files.contains(&id) {
                files.push(id);
            }
        }
        let sources: Vec<(FileId, &SourceFile)> = files.iter().filter_map(|id| self.file(*id).map(|f| (*id, f))).collect();
        let unread: HashSet<String> =
            sources.iter().flat_map(|(_, f)| f.ast().unread.iter().map(|n| format!("`{}`", n.value))).collect();
        for (_, f) in &sources {
            diagnostics.extend(f.syntax().iter().cloned());
        }
        let items: Vec<&ast::Item> = sources.iter().flat_map(|(_, f)| f.ast().items.iter()).collect();
        let scenario_defs: Vec<ast::ScenarioDef> =
            items.iter().filter_map(|i| if let ast::Item::Scenario(s) = i { Some(s.clone()) } else { None }).collect();
        let army_defs: Vec<ast::ArmyDef> =
            items.iter().filter_map(|i| if let ast::Item::Army(a) = i { Some(a.clone()) } else { None }).collect();
        let (mut partial, mut found) = check::check(&items);
        diagnostics.append(&mut found);
        if !scenario_defs.is_empty() || !army_defs.is_empty() {
            let mut lowered = scenario::lower_scenarios(&scenario_defs, &partial, &mut diagnostics);
            let importers: HashMap<FileId, String> =
                scenario_defs.iter().filter_map(|s| self.file(s.span.file).map(|f| (s.span.file, f.path.clone()))).collect();
            let mut maps = Vec::new();
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
            files.extend(maps);
            partial.armies = scenario::check_armies(&army_defs, &partial, &lowered, &mut diagnostics);
            partial.scenarios = lowered.into_iter().map(|l| l.model).collect();
        }
        // A name whose definition could not be read is not also "unknown" where it is used:
        // the syntax error is the one to fix.
        diagnostics
            .retain(|d| !(d.code.starts_with("oc::name::unknown_") && unread.iter().any(|n| d.message.contains(n.as_str()))));
        dedupe(&mut diagnostics);
        let (rules, partial) =
            if diagnostics.iter().any(|d| d.is_error()) { (None, Some(partial)) } else { (Some(partial), None) };
        Compilation { rules, partial, diagnostics, files }
    }

    fn visit(
        &mut self,
        host: &mut dyn Host,
        id: FileId,
        state: &mut HashMap<FileId, bool>,
        stack: &mut Vec<FileId>,
        order: &mut Vec<FileId>,
        diagnostics: &mut Vec<Diagnostic>,
    ) {
        match state.get(&id) {
            Some(true) => return,
            Some(false) => return, // reported by the importer that closed the cycle
            None => {}
        }
        state.insert(id, false);
        stack.push(id);
        let Some(file) = self.file(id) else { return };
        let importer = file.path.clone();
        let imports: Vec<ast::Import> = file
            .ast()
            .items
            .iter()
            .filter_map(|i| if let ast::Item::Import(imp) = i { Some(imp.clone()) } else { None })
            .collect();
        for import in imports {
            let target = match paths::resolve(&importer, &import.path.value) {
                Ok(p) => p,
                Err(reason) => {
                    diagnostics.push(
                        Diagnostic::error(
                            codes::IMPORT_OUTSIDE_ROOT,
                            import.path.span,
                            format!("`{}` is outside the project", import.path.value),
                        )
                        .with_label(reason)
                        .with_help("imports are relative to the importing file and stay inside the project root"),
                    );
                    continue;
                }
            };
            let loaded = self.load(host, &target);
            let Ok(target_id) = loaded else {
                let reason = loaded.err().unwrap_or_default();
                diagnostics.push(
                    Diagnostic::error(
                        codes::IMPORT_NOT_FOUND,
                        import.path.span,
                        format!("cannot import `{}`", import.path.value),
                    )
                    .with_label(format!("{target}: {reason}"))
                    .with_help(self.similar_path_help(&*host, &target)),
                );
                continue;
            };
            if stack.len() >= MAX_IMPORT_DEPTH {
                diagnostics.push(
                    Diagnostic::error(codes::IMPORT_TOO_DEEP, import.span, format!("imports nest more than {MAX_IMPORT_DEPTH} files deep"))
                        .with_label(format!("importing `{target}`"))
                        .with_help("a directory link that points back up (such as `sub -> .`) makes endless paths; import the file by its real path"),
                );
                continue;
            }
            if state.get(&target_id) == Some(&false) {
                let mut chain: Vec<String> =
                    stack.iter().skip_while(|f| **f != target_id).filter_map(|f| self.file(*f).map(|f| f.path.clone())).collect();
                chain.push(target.clone());
                diagnostics.push(
                    Diagnostic::error(codes::IMPORT_CYCLE, import.span, "files import each other in a cycle")
                        .with_label(format!("cycle: {}", chain.join(" -> ")))
                        .with_help("remove this import, or move what both files need into a third file"),
                );
                continue;
            }
            self.visit(host, target_id, state, stack, order, diagnostics);
        }
        stack.pop();
        state.insert(id, true);
        order.push(id);
    }

    /// Suggests a file the host says the project has (else one read so far), in a fixed order,
    /// so the same tree always gets the same help whatever was read before.
    fn similar_path_help(&self, host: &dyn Host, target: &str) -> String {
        let mut names: Vec<String> = host.candidates();
        if names.is_empty() {
            names = self.by_path.keys().filter(|p| !p.starts_with(stdlib::PREFIX)).cloned().collect();
        }
        names.retain(|n| n != target);
        names.sort();
        match oc_diag::did_you_mean(target, names.iter().map(String::as_str)) {
            Some(s) => format!("did you mean `{s}`? paths are relative to the importing file"),
            None => "paths are relative to the importing file and use `/`".to_string(),
        }
    }
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
    use super::{stdlib, Workspace};

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
}
