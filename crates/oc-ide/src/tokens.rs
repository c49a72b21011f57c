//! Semantic tokens: every name of a file classified by what it resolves to — `Lances` a weapon
//! type, `Mounted` a tag, `x` a parameter — which no grammar of the text alone can know. Keywords,
//! numbers, strings and comments are left to the editor's grammar.

use crate::defs::{scope_defs, DefKind};
use crate::names::{self, Resolved, Role, Scope};
use crate::{scope_of, Db};

/// A token's type: its index in [`TYPES`], the legend sent to the editor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TokenType {
    Namespace,
    Type,
    Class,
    Enum,
    Interface,
    Struct,
    TypeParameter,
    Parameter,
    Variable,
    Property,
    EnumMember,
    Event,
    Function,
    Decorator,
}

/// The legend of token types, in [`TokenType`]'s order (LSP's standard names).
pub const TYPES: &[&str] = &[
    "namespace",
    "type",
    "class",
    "enum",
    "interface",
    "struct",
    "typeParameter",
    "parameter",
    "variable",
    "property",
    "enumMember",
    "event",
    "function",
    "decorator",
];

/// The legend of modifiers, as bits in this order.
pub const MODIFIERS: &[&str] = &["declaration", "defaultLibrary"];
pub const DECLARATION: u32 = 1;
/// Defined in the standard library, or known to the engine itself.
pub const DEFAULT_LIBRARY: u32 = 2;

/// One classified name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SemanticToken {
    pub start: usize,
    pub end: usize,
    pub kind: TokenType,
    pub modifiers: u32,
}

/// The token type of a kind of definition.
pub fn token_type(kind: DefKind) -> TokenType {
    match kind {
        DefKind::Ruleset | DefKind::Scenario | DefKind::Army => TokenType::Namespace,
        DefKind::Scale | DefKind::WeaponType => TokenType::Type,
        DefKind::ScaleMember => TokenType::EnumMember,
        DefKind::Stat | DefKind::Base | DefKind::Resource => TokenType::Property,
        DefKind::Table | DefKind::Dice | DefKind::Reaction => TokenType::Function,
        DefKind::Movement => TokenType::TypeParameter,
        DefKind::Terrain => TokenType::Enum,
        DefKind::Tag => TokenType::Decorator,
        DefKind::Param => TokenType::Parameter,
        DefKind::Status => TokenType::Interface,
        DefKind::Class => TokenType::Class,
        DefKind::Item => TokenType::Struct,
        DefKind::Unit | DefKind::Formula => TokenType::Variable,
    }
}

/// The semantic tokens of a `.oc` file, in order.
pub fn semantic_tokens(db: &dyn Db, path: &str) -> Vec<SemanticToken> {
    let Some(ast) = db.ast(path) else { return Vec::new() };
    let names = names::names(ast);
    let scope = scope_of(db, path);
    let defs = scope_defs(db, &scope);
    let resolver = Scope::new(&defs);
    let std = |p: &str| if p.starts_with(oc_compiler::stdlib::PREFIX) { DEFAULT_LIBRARY } else { 0 };
    let mut out = Vec::new();
    for o in &names.occurrences {
        let declaration = if matches!(o.role, Role::Def(_) | Role::ParamDef) { DECLARATION } else { 0 };
        let (kind, modifiers) = match names::resolve(db, &resolver, path, o) {
            Resolved::Def(p, d) => (token_type(d.kind), std(p) | declaration),
            Resolved::Param { .. } => (TokenType::Parameter, declaration),
            Resolved::Builtin(k) => (token_type(k), DEFAULT_LIBRARY),
            Resolved::Step(..) => (TokenType::Parameter, DEFAULT_LIBRARY),
            Resolved::Event => (TokenType::Event, DEFAULT_LIBRARY),
            Resolved::Verb => (TokenType::Function, DEFAULT_LIBRARY),
            // A definition whose file is not in the scope yet: its own kind.
            Resolved::Unresolved => match o.role {
                Role::Def(k) => (token_type(k), declaration),
                _ => continue,
            },
        };
        out.push(SemanticToken { start: o.span.start as usize, end: o.span.end as usize, kind, modifiers });
    }
    // An item that does not parse (half typed) has no tree: each of its words that names a
    // definition in scope gets that definition's kind, so its colours do not flicker away.
    if let Some(text) = db.text(path) {
        // The items that parsed, in order of their starts, searched by halves (every item
        // scanned for every word took time in the square of the file's length).
        let mut covered: Vec<(usize, usize)> =
            ast.items.iter().filter_map(crate::defs::item_span).map(|s| (s.start as usize, s.end as usize)).collect();
        covered.sort_unstable();
        // The farthest end of the items starting at or before each one (items may nest).
        let reach: Vec<usize> = covered
            .iter()
            .scan(0usize, |far, (_, e)| {
                *far = (*far).max(*e);
                Some(*far)
            })
            .collect();
        let inside = |at: usize| {
            let n = covered.partition_point(|(s, _)| *s <= at);
            n > 0 && reach.get(n - 1).is_some_and(|far| at < *far)
        };
        let mut at = 0;
        for t in oc_fmt::lex::tokenize(text) {
            let start = at;
            at += t.text.len();
            if t.kind != oc_fmt::lex::Kind::Word || inside(start) {
                continue;
            }
            if let Some((p, d)) = resolver.find(t.text, UNPARSED) {
                out.push(SemanticToken { start, end: at, kind: token_type(d.kind), modifiers: std(p) });
            }
        }
    }
    out.sort_by_key(|t| (t.start, t.end));
    out.dedup_by_key(|t| t.start);
    out
}

/// What a word of an item that does not parse may name, in order.
const UNPARSED: &[DefKind] = &[
    DefKind::Class,
    DefKind::Item,
    DefKind::Tag,
    DefKind::WeaponType,
    DefKind::Status,
    DefKind::Terrain,
    DefKind::Movement,
    DefKind::Scenario,
    DefKind::Stat,
    DefKind::Base,
    DefKind::Resource,
];
