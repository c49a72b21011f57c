//! A file's outline (document symbols in source order, nested: a ruleset's stats, tables,
//! formulas... with a scale's steps under it, an army's units, a scenario's sides), the
//! project's symbols by a query (workspace symbols), and folding ranges (blocks, runs of
//! comments, imports; a map's tables and its rows).

use oc_fmt::lex::{tokenize, Kind};
use oc_syntax::ast::{self, Item};

use crate::defs::{self, DefKind};
use crate::maps;
use crate::{is_map, Db};

/// What a symbol is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Def(DefKind),
    /// A map's region.
    Region,
    /// A map's legend entry.
    Legend,
    /// A scenario's side.
    Side,
}

/// A symbol of a file: its name, detail, kind, whole range, name range and children.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Symbol {
    pub name: String,
    pub detail: String,
    pub kind: SymbolKind,
    pub range: (usize, usize),
    pub selection: (usize, usize),
    pub children: Vec<Symbol>,
}

fn sym(def: &defs::Def) -> Symbol {
    Symbol {
        name: def.name.clone(),
        detail: def.kind.word().to_string(),
        kind: SymbolKind::Def(def.kind),
        range: (def.span.start as usize, def.span.end as usize),
        selection: (def.name_span.start as usize, def.name_span.end as usize),
        children: Vec::new(),
    }
}

/// The outline of a file.
pub fn document_symbols(db: &dyn Db, path: &str) -> Option<Vec<Symbol>> {
    if is_map(path) {
        let map = maps::parse(db.text(path)?, None)?;
        let range = |s: oc_diag::Span| (s.start as usize, s.end as usize);
        let regions = map.regions.iter().map(|r| Symbol {
            name: r.name.clone(),
            detail: r.kind.word().to_string(),
            kind: SymbolKind::Region,
            range: range(r.span),
            selection: range(r.name_span),
            children: Vec::new(),
        });
        let legend = map.legend.iter().map(|(c, (name, span))| Symbol {
            name: c.to_string(),
            detail: name.clone(),
            kind: SymbolKind::Legend,
            range: range(*span),
            selection: range(*span),
            children: Vec::new(),
        });
        return Some(regions.chain(legend).collect());
    }
    let ast = db.ast(path)?;
    let mut out = Vec::new();
    for item in &ast.items {
        let mut defs = Vec::new();
        defs::item_defs(item, &mut defs);
        let mut iter = defs.iter();
        match item {
            // One symbol a movement type.
            Item::Movement(_) => out.extend(iter.map(sym)),
            // Its definitions in source order ([`defs::item_defs`]), a scale's steps under it.
            Item::Ruleset(_) | Item::Army(_) => {
                let Some(first) = iter.next() else { continue };
                let mut parent = sym(first);
                for d in iter {
                    let scale = parent.children.last_mut().filter(|s| s.kind == SymbolKind::Def(DefKind::Scale));
                    match scale {
                        Some(scale) if d.kind == DefKind::ScaleMember => {
                            scale.range.1 = scale.range.1.max(d.span.end as usize);
                            scale.children.push(sym(d));
                        }
                        _ => parent.children.push(sym(d)),
                    }
                }
                out.push(parent);
            }
            Item::Scenario(s) => {
                let Some(first) = iter.next() else { continue };
                let mut parent = sym(first);
                parent.children = s.sides.iter().map(side_symbol).collect();
                out.push(parent);
            }
            _ => out.extend(iter.next().map(sym)),
        }
    }
    out.sort_by_key(|s| s.range.0);
    Some(out)
}

fn side_symbol(side: &ast::SideDef) -> Symbol {
    Symbol {
        name: side.side.value.to_string(),
        detail: "side".to_string(),
        kind: SymbolKind::Side,
        range: (side.span.start as usize, side.span.end as usize),
        selection: (side.side.span.start as usize, side.side.span.end as usize),
        children: Vec::new(),
    }
}

/// A definition found by a workspace query.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WorkspaceSymbol {
    pub name: String,
    pub kind: DefKind,
    pub path: String,
    pub start: usize,
    pub end: usize,
    /// The item it is in (a stat's ruleset, a unit's army).
    pub container: Option<String>,
}

/// Whether `query`'s characters appear in `name` in order, ignoring case (`lky` finds `Lucky`).
pub fn fuzzy(query: &str, name: &str) -> bool {
    let mut chars = name.chars().flat_map(char::to_lowercase);
    query.chars().flat_map(char::to_lowercase).all(|q| chars.any(|c| c == q))
}

/// The definitions of the project's files, then of the standard library, whose names match
/// `query` (in order: the name itself, a prefix, then by length), at most `limit`.
pub fn workspace_symbols(db: &dyn Db, query: &str, limit: usize) -> Vec<WorkspaceSymbol> {
    let mut files: Vec<&str> = db.files().into_iter().filter(|f| !is_map(f)).collect();
    files.extend(db.std_files());
    let mut out = Vec::new();
    let lower = query.to_lowercase();
    for (rank_file, path) in files.iter().enumerate() {
        let Some(ast) = db.ast(path) else { continue };
        for item in &ast.items {
            let mut defs = Vec::new();
            defs::item_defs(item, &mut defs);
            let container = defs.first().map(|d| d.name.clone());
            for (i, d) in defs.iter().enumerate() {
                if !fuzzy(query, &d.name) {
                    continue;
                }
                let name = d.name.to_lowercase();
                let rank = if name == lower {
                    0
                } else if name.starts_with(&lower) {
                    1
                } else {
                    2
                };
                out.push((
                    (rank, rank_file, d.name.len()),
                    WorkspaceSymbol {
                        name: d.name.clone(),
                        kind: d.kind,
                        path: path.to_string(),
                        start: d.name_span.start as usize,
                        end: d.name_span.end as usize,
                        container: if i == 0 { None } else { container.clone() },
                    },
                ));
            }
        }
    }
    out.sort_by_key(|(rank, _)| *rank);
    out.into_iter().take(limit).map(|(_, s)| s).collect()
}

/// What a folding range folds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FoldKind {
    Region,
    Comment,
    Imports,
}

/// A range to fold: from the line of `start` to the line of `end` (byte offsets).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fold {
    pub start: usize,
    pub end: usize,
    pub kind: FoldKind,
}

/// The folding ranges of a file, those over more than one line, in order.
pub fn folding_ranges(db: &dyn Db, path: &str) -> Vec<Fold> {
    let Some(text) = db.text(path) else { return Vec::new() };
    let mut out = if is_map(path) { toml_folds(text) } else { oc_folds(text) };
    // Each line's start once (a count from the text's start for every fold took 22 s on a
    // 32,000-line file, the server waiting on it).
    let starts: Vec<usize> = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
    let line = |at: usize| starts.partition_point(|s| *s <= at);
    out.retain(|f| line(f.end) > line(f.start));
    out.sort_by_key(|f| (f.start, f.end));
    out
}

fn oc_folds(text: &str) -> Vec<Fold> {
    let mut out = Vec::new();
    let mut open: Vec<usize> = Vec::new();
    let mut at = 0;
    // Runs of line comments and of imports: (start, end of the last one).
    let mut comments: Option<(usize, usize)> = None;
    let mut imports: Option<(usize, usize)> = None;
    let mut line_has_code = false;
    let flush = |run: &mut Option<(usize, usize)>, kind: FoldKind, out: &mut Vec<Fold>| {
        if let Some((s, e)) = run.take() {
            out.push(Fold { start: s, end: e, kind });
        }
    };
    let mut last_word = "";
    for t in tokenize(text) {
        let end = at + t.text.len();
        match (t.kind, t.text) {
            (Kind::Newline, _) => line_has_code = false,
            (Kind::Space, _) => {}
            (Kind::BlockComment, _) => out.push(Fold { start: at, end, kind: FoldKind::Comment }),
            (Kind::LineComment, _) if !line_has_code => match &mut comments {
                Some((_, e)) => *e = end,
                None => comments = Some((at, end)),
            },
            (Kind::LineComment, _) => {}
            (kind, text) => {
                flush(&mut comments, FoldKind::Comment, &mut out);
                line_has_code = true;
                if kind == Kind::Word && text == "import" && open.is_empty() {
                    imports.get_or_insert((at, end));
                } else if kind == Kind::Str && last_word == "import" {
                    if let Some((_, e)) = &mut imports {
                        *e = end;
                    }
                } else if kind == Kind::Word || text == "{" {
                    flush(&mut imports, FoldKind::Imports, &mut out);
                }
                match text {
                    "{" => open.push(at),
                    "}" => {
                        if let Some(s) = open.pop() {
                            out.push(Fold { start: s, end: at, kind: FoldKind::Region });
                        }
                    }
                    _ => {}
                }
                if kind == Kind::Word {
                    last_word = text;
                }
            }
        }
        at = end;
    }
    flush(&mut comments, FoldKind::Comment, &mut out);
    flush(&mut imports, FoldKind::Imports, &mut out);
    out
}

/// A map's tables (`[legend]`, each `[[regions]]`) to the line before the next, and its
/// multi-line arrays (`rows = [ ... ]`).
fn toml_folds(text: &str) -> Vec<Fold> {
    let mut out = Vec::new();
    let mut table: Option<usize> = None;
    let mut last_content_end = 0;
    let mut array: Option<usize> = None;
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let trimmed = line.trim();
        let end = at + line.trim_end().len();
        if trimmed.starts_with('[') && !trimmed.starts_with("[[") || trimmed.starts_with("[[") {
            if let Some(s) = table.take() {
                out.push(Fold { start: s, end: last_content_end, kind: FoldKind::Region });
            }
            table = Some(at);
        }
        if array.is_none() && trimmed.contains("= [") && !trimmed.ends_with(']') {
            array = Some(at);
        } else if let Some(s) = array {
            if trimmed.starts_with(']') {
                out.push(Fold { start: s, end, kind: FoldKind::Region });
                array = None;
            }
        }
        if !trimmed.is_empty() {
            last_content_end = end;
        }
        at += line.len();
    }
    if let Some(s) = table {
        out.push(Fold { start: s, end: last_content_end, kind: FoldKind::Region });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_match_in_order() {
        assert!(fuzzy("lky", "Lucky"));
        assert!(fuzzy("", "Lucky"));
        assert!(!fuzzy("ykl", "Lucky"));
    }

    #[test]
    fn folds_of_blocks_comments_and_imports() {
        let text = "// a\n// b\nimport \"x.oc\"\nimport \"y.oc\"\n\nclass A {\n    ratings { str C\n    }\n}\n";
        let folds = oc_folds(text);
        let kinds: Vec<FoldKind> = folds.iter().map(|f| f.kind).collect();
        assert!(kinds.contains(&FoldKind::Comment) && kinds.contains(&FoldKind::Imports), "{folds:?}");
        assert_eq!(folds.iter().filter(|f| f.kind == FoldKind::Region).count(), 2, "{folds:?}");
        let map = "name = \"m\"\nrows = [\n  \"..\",\n  \"..\",\n]\n\n[legend]\nx = \"Ruins\"\n\n[[regions]]\nname = \"a\"\n";
        assert_eq!(toml_folds(map).len(), 3, "{:?}", toml_folds(map));
    }
}
