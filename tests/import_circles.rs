//! No import circle inside a crate: among the modules of one parent, what imports what is a
//! graph without cycles, so each module can be read (and reused) knowing only those below it.
//! A child using its parent's items (`super::Battle`) and a parent its children are not
//! circles; `battle::verbs` using `combat::Exchange` is an edge from `battle` to `combat`.
//!
//! Every crate's `src/` and the binary's are read; none may have a circle (the binary's last
//! one went when `oc-play` took its library half).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Module = Vec<String>;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn rs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            rs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The crate's modules (by path) and their source, without comments and test modules.
fn modules(src: &Path) -> BTreeMap<Module, String> {
    let mut files = Vec::new();
    rs_files(src, &mut files);
    let mut out = BTreeMap::new();
    for f in files {
        let rel = f.strip_prefix(src).unwrap().with_extension("");
        let mut path: Module = rel.iter().map(|s| s.to_string_lossy().to_string()).collect();
        if matches!(path.last().map(String::as_str), Some("mod" | "lib" | "main")) {
            path.pop();
        }
        out.insert(path, code_of(&std::fs::read_to_string(&f).unwrap()));
    }
    out
}

/// A module's code: without comments, and without a test module at its end
/// (`#[cfg(test)] mod tests { .. }` is not the crate's layout).
fn code_of(text: &str) -> String {
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(|l| l.split(" // ").next().unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n");
    match code.find("#[cfg(test)]\nmod tests {") {
        Some(i) => code[..i].to_string(),
        None => code,
    }
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// The path of `::`-separated identifiers starting at `at`.
fn path_at(text: &str, at: usize) -> Vec<String> {
    let mut segs = Vec::new();
    let mut rest = &text[at..];
    loop {
        let end = rest.find(|c: char| !is_ident(c)).unwrap_or(rest.len());
        if end == 0 {
            break;
        }
        segs.push(rest[..end].to_string());
        rest = &rest[end..];
        match rest.strip_prefix("::") {
            Some(r) => rest = r,
            None => break,
        }
    }
    segs
}

/// The items of a `{ .. }` group starting at `at` (after its `{`), split at top-level commas.
fn group_at(text: &str, at: usize) -> Vec<String> {
    let (mut depth, mut item, mut items) = (0, String::new(), Vec::new());
    for c in text[at..].chars() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => break,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(std::mem::take(&mut item));
                continue;
            }
            _ => {}
        }
        item.push(c);
    }
    items.push(item);
    items.into_iter().map(|i| i.trim().to_string()).filter(|i| !i.is_empty()).collect()
}

/// The longest prefix of `path` (below `base`) that names a module, or `base` itself.
fn resolve(modules: &BTreeMap<Module, String>, base: &[String], path: &[String]) -> Module {
    let path: Vec<String> = path.iter().take_while(|s| s.starts_with(|c: char| c.is_ascii_lowercase())).cloned().collect();
    for k in (0..=path.len()).rev() {
        let mut m = base.to_vec();
        m.extend(path[..k].iter().cloned());
        if modules.contains_key(&m) {
            return m;
        }
    }
    base.to_vec()
}

/// The modules `m` refers to: `crate::a::b`, `super::x`, `use crate::{a, b}`, and children by name.
fn references(modules: &BTreeMap<Module, String>, m: &Module, code: &str) -> BTreeSet<Module> {
    let mut out = BTreeSet::new();
    let bytes = code.as_bytes();
    let boundary = |i: usize| i == 0 || !is_ident(bytes[i - 1] as char) && bytes[i - 1] != b':';
    let mut i = 0;
    while i < code.len() {
        let rest = &code[i..];
        if boundary(i) && rest.starts_with("crate::") {
            let at = i + "crate::".len();
            if code[at..].starts_with('{') {
                for item in group_at(code, at + 1) {
                    out.insert(resolve(modules, &[], &path_at(&item, 0)));
                }
            } else {
                out.insert(resolve(modules, &[], &path_at(code, at)));
            }
        } else if boundary(i) && rest.starts_with("super::") {
            let mut at = i;
            let mut up = 0;
            while code[at..].starts_with("super::") {
                at += "super::".len();
                up += 1;
            }
            let base: Module = m[..m.len().saturating_sub(up)].to_vec();
            if code[at..].starts_with('{') {
                for item in group_at(code, at + 1) {
                    out.insert(resolve(modules, &base, &path_at(&item, 0)));
                }
            } else {
                out.insert(resolve(modules, &base, &path_at(code, at)));
            }
            i = at;
            continue;
        } else if boundary(i) && rest.starts_with(|c: char| c.is_ascii_lowercase()) {
            // A child module used by name (`mod verbs;` then `verbs::OnBattle`).
            let segs = path_at(code, i);
            if segs.len() > 1 && !matches!(segs[0].as_str(), "crate" | "super" | "self") {
                let mut child = m.clone();
                child.push(segs[0].clone());
                if modules.contains_key(&child) {
                    out.insert(resolve(modules, m, &segs));
                }
            }
            i += segs.first().map_or(1, String::len);
            continue;
        }
        i += rest.chars().next().map_or(1, char::len_utf8);
    }
    out.remove(m);
    out
}

/// The circles among the children of each parent: strongly connected components of more than one.
fn circles(modules: &BTreeMap<Module, String>) -> Vec<(Vec<String>, Vec<String>)> {
    // Edges between siblings: from the branch of `m` to the branch of `r` under their common parent.
    let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    let mut why: BTreeMap<(Module, Module), Module> = BTreeMap::new();
    for (m, code) in modules {
        for r in references(modules, m, code) {
            let common = m.iter().zip(&r).take_while(|(a, b)| a == b).count();
            if common == m.len() || common == r.len() {
                continue; // an ancestor and its descendant
            }
            let (a, b) = (m[..=common].to_vec(), r[..=common].to_vec());
            why.entry((a.clone(), b.clone())).or_insert_with(|| m.clone());
            edges.entry(a).or_default().insert(b);
        }
    }
    // Tarjan's strongly connected components.
    struct Tarjan<'a> {
        edges: &'a BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<Module, usize>,
        low: BTreeMap<Module, usize>,
        stack: Vec<Module>,
        found: Vec<Vec<Module>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: &Module) {
            let n = self.index.len();
            self.index.insert(v.clone(), n);
            self.low.insert(v.clone(), n);
            self.stack.push(v.clone());
            for w in self.edges.get(v).into_iter().flatten() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    let l = self.low[v].min(self.low[w]);
                    self.low.insert(v.clone(), l);
                } else if self.stack.contains(w) {
                    let l = self.low[v].min(self.index[w]);
                    self.low.insert(v.clone(), l);
                }
            }
            if self.low[v] == self.index[v] {
                let mut comp = Vec::new();
                while let Some(w) = self.stack.pop() {
                    let done = &w == v;
                    comp.push(w);
                    if done {
                        break;
                    }
                }
                if comp.len() > 1 {
                    comp.sort();
                    self.found.push(comp);
                }
            }
        }
    }
    let mut t = Tarjan { edges: &edges, index: BTreeMap::new(), low: BTreeMap::new(), stack: Vec::new(), found: Vec::new() };
    for v in edges.keys() {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.found
        .into_iter()
        .map(|comp| {
            let names = comp.iter().map(|m| m.join("::")).collect();
            let mut because = Vec::new();
            for a in &comp {
                for b in &comp {
                    if let Some(by) = why.get(&(a.clone(), b.clone())) {
                        because.push(format!("{} -> {} (in {})", a.join("::"), b.join("::"), by.join("::")));
                    }
                }
            }
            (names, because)
        })
        .collect()
}

#[test]
fn no_crate_has_an_import_circle() {
    let mut crates: Vec<(String, PathBuf)> = vec![("oc (the binary)".to_string(), repo().join("src"))];
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(repo().join("crates")).unwrap().map(|e| e.unwrap().path()).collect();
    dirs.sort();
    for d in dirs {
        if d.join("src").is_dir() {
            crates.push((d.file_name().unwrap().to_string_lossy().to_string(), d.join("src")));
        }
    }
    assert!(crates.len() > 10, "read {} crates", crates.len());
    let mut problems = Vec::new();
    for (name, src) in &crates {
        for (circle, because) in circles(&modules(src)) {
            problems.push(format!("{name}: {} — {}", circle.join(", "), because.join("; ")));
        }
    }
    assert!(problems.is_empty(), "import circles:\n{}", problems.join("\n"));
}

/// The reader finds the circles it is meant to: a module pair that import each other, through
/// `use crate::{..}`, `super::` and a child by name, and none where a child only uses its parent.
#[test]
fn the_reader_finds_a_circle_and_only_a_circle() {
    let m = |p: &str, code: &str| (p.split("::").filter(|s| !s.is_empty()).map(String::from).collect::<Module>(), code_of(code));
    let circle: BTreeMap<Module, String> = [
        m("", "mod a; mod b;"),
        m("a", "use crate::{b::{self, X}, c};"),
        m("b", "mod inner;"),
        m("b::inner", "fn f() { super::super::a::g() }"),
        m("c", "use super::Thing;"),
    ]
    .into_iter()
    .collect();
    let found = circles(&circle);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, vec!["a".to_string(), "b".to_string()]);
    let tree: BTreeMap<Module, String> = [
        m("", "mod battle; mod combat; fn f() { battle::Battle::new() }"),
        m("battle", "mod verbs; use crate::combat::Exchange; fn f() { verbs::x() }"),
        m("battle::verbs", "use super::Battle; use super::super::combat;"),
        m("combat", "// crate::battle in a comment is no import\nuse super::Engine;"),
    ]
    .into_iter()
    .collect();
    assert_eq!(circles(&tree), vec![]);
}
