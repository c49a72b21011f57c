//! The checker's state, apart from its passes: the symbol tables of one compilation
//! ([`Symbols`]: every definition by kind and name, as named structs), where diagnostics go
//! ([`Sink`]), and what the passes note for later ones ([`Notes`]). The passes — collection and
//! the ruleset (`check.rs`, `check/ruleset.rs`), tags and statuses (`check/tags.rs`), classes
//! and items (`check/roster.rs`), expressions and effects (`expr.rs`), where effects may go
//! (`context.rs`), dice (`dice.rs`), turns and reactions (`turn.rs`), help lines (`hints.rs`) —
//! are `impl Checker` blocks in their own modules. They call one another through the
//! `Checker`; what one imports from another is a type or a helper (`expr::Scope`,
//! `context::Timed`, `dice::written_dice`), never in a circle (`tests/import_circles.rs`).

use std::collections::{HashMap, HashSet};

use oc_diag::{Diagnostic, Span};
use oc_model as m;
use oc_model::Type;
use oc_syntax::ast;

use crate::held::{Held, Index};

/// Definitions of one kind, in source order, by name.
pub(crate) struct Defs<T> {
    pub order: Vec<String>,
    /// By name, with the fast hash: looked up (a file of thousands of classes looks up each of
    /// their tags and weapon types), never iterated.
    pub map: HashMap<oc_diag::Name, (Span, T), m::hash::FxBuild>,
}

impl<T> Default for Defs<T> {
    fn default() -> Self {
        Defs { order: Vec::new(), map: HashMap::default() }
    }
}

impl<T> Defs<T> {
    pub fn get(&self, name: &str) -> Option<&T> {
        self.map.get(name).map(|(_, t)| t)
    }
    pub fn contains(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }
    pub fn names(&self) -> impl Iterator<Item = &str> {
        self.order.iter().map(String::as_str)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct TagSig {
    pub params: Vec<(String, Type)>,
    pub stacks: bool,
    pub kinds: Vec<m::ThingKind>,
    pub is_status: bool,
}

/// A scale of the ruleset: its name and steps, worst first.
#[derive(Clone, Debug)]
pub(crate) struct ScaleSym {
    pub name: String,
    pub steps: Vec<String>,
}

/// A stat or base attribute: its name and type.
#[derive(Clone, Debug)]
pub(crate) struct AttrSym {
    pub name: String,
    pub ty: Type,
}

/// A table: the scale of each key, and the type of its cells.
#[derive(Clone, Debug)]
pub(crate) struct TableSym {
    pub keys: Vec<String>,
    pub value: Type,
}

/// A class range: the values a class may give stats of `ty`, as numbers (steps as indices).
#[derive(Clone, Debug)]
pub(crate) struct ClassRangeSym {
    pub ty: Type,
    pub low: i64,
    pub high: i64,
    pub span: Span,
}

/// The symbol tables of one compilation: what every name means.
pub(crate) struct Symbols<'a> {
    pub ruleset: Option<&'a ast::Ruleset>,
    pub scales: Vec<ScaleSym>,
    pub stats: Vec<AttrSym>,
    pub bases: Vec<AttrSym>,
    pub tables: HashMap<String, TableSym>,
    pub dice: HashMap<String, m::DiceShape>,
    pub movements: Defs<()>,
    pub weapon_types: Defs<&'a ast::WeaponTypeDef>,
    pub terrains: Defs<&'a ast::TerrainDef>,
    /// Shared, so that a use looks its signature up without copying its parameter list.
    pub tags: Defs<std::rc::Rc<TagSig>>,
    /// Classes and items by name: where each first definition is in `class_defs`/`item_defs`.
    pub classes: Index<'a>,
    pub items: Index<'a>,
    pub inventory: u32,
    pub class_ranges: Vec<ClassRangeSym>,
    /// The ruleset's resources by name (also `Int` bases): what a `Resource` argument names.
    pub resources: Vec<String>,
}

impl Symbols<'_> {
    pub fn scale(&self, name: &str) -> Option<&Vec<String>> {
        self.scales.iter().find(|s| s.name == name).map(|s| &s.steps)
    }

    /// A stat or base attribute by name.
    pub fn attribute(&self, name: &str) -> Option<&AttrSym> {
        self.stats.iter().chain(self.bases.iter()).find(|a| a.name == name)
    }

    /// A stat by name.
    pub fn stat(&self, name: &str) -> Option<&AttrSym> {
        self.stats.iter().find(|a| a.name == name)
    }
}

/// Where diagnostics go: all of them, never stopping at the first.
#[derive(Default)]
pub(crate) struct Sink {
    pub diags: Vec<Diagnostic>,
}

impl Sink {
    pub fn push(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }
}

/// What the passes note as they lower, for the passes after them.
#[derive(Default)]
pub(crate) struct Notes {
    /// Each item's kind and written weapon type (by its place in `item_defs`), kept when it is
    /// lowered, for the classes' kits and the unwieldable-weapon warnings.
    pub item_types: Vec<Option<(ast::ItemKind, Option<ast::Ident>)>>,
    /// The weapon types some class (or form) wields, as written, kept as classes are lowered.
    pub wielded: HashSet<oc_diag::Name>,
    /// Pieces held as text that were not the one definition their first words named (a broken
    /// class, two items on one line), by file and where they start: the result is not to be
    /// used, and the caller checks again with these pieces parsed up front (see
    /// `Workspace::compile_ids`).
    pub misread: Vec<(oc_diag::FileId, usize)>,
    /// The first written use of each tag with each number of arguments, and whose: help lines'
    /// examples (`hints.rs`), found once, when one is first wanted.
    pub examples: Option<HashMap<(oc_diag::Name, usize), (String, String)>>,
    /// Tags whose effects (directly or through `grant`) use the `shift` primitive.
    pub shifter_tags: HashSet<String>,
    /// Combat formulas that read a roll, directly or through earlier formulas.
    pub rolling_formulas: HashSet<String>,
    /// Whether an expression reads `triangle` (else a declared triangle changes nothing).
    pub reads_triangle: bool,
    /// Whether a turn formula reads an action's price (`cost` or `priced`).
    pub reads_action_cost: bool,
    /// Whether an expression reads a unit's `terrain_defense` (else a terrain's `defense`
    /// changes nothing).
    pub reads_terrain_defense: bool,
    /// Whether an expression reads `weapon.staff` (else a weapon type's `staff` changes nothing).
    pub reads_weapon_staff: bool,
    /// Whether a combat formula or a strike's `when` reads `can_attack` (else a unit that may
    /// not attack still counters and follows up).
    pub reads_can_attack_in_combat: bool,
    /// Where an action without `charge` gives a `cost`: read only by the turn's formulas.
    pub action_costs: Vec<Span>,
    /// Each class's kit items as written (class, item, where), checked once items are lowered.
    pub kits: Vec<(String, String, Span)>,
}

/// One compilation's checker: its symbols, its diagnostics, its notes, and the classes and
/// items still to lower (each dropped once lowered).
pub(crate) struct Checker<'a> {
    pub syms: Symbols<'a>,
    pub sink: Sink,
    pub notes: Notes,
    pub class_defs: Vec<Held<'a, ast::ClassDef>>,
    pub item_defs: Vec<Held<'a, ast::ItemDef>>,
}

/// Formulas the engine reads when present.
pub(crate) const OPTIONAL_FORMULAS: &[(&str, Type)] = &[
    ("backfire", Type::Bool),
    ("strikes", Type::Int),
    ("counter", Type::Bool),
    ("counter_any_range", Type::Bool),
    ("chart", Type::Int),
    ("defender_first", Type::Bool),
    ("simultaneous", Type::Bool),
];

pub(crate) const REQUIRED_FORMULAS: &[(&str, Type)] = &[
    ("hit", Type::Bool),
    ("critical", Type::Bool),
    ("damage", Type::Int),
    ("critical_damage", Type::Int),
    ("follow_up", Type::Bool),
];

pub(crate) fn is_required_formula(name: &str) -> bool {
    REQUIRED_FORMULAS.iter().any(|(n, _)| *n == name)
}

pub(crate) fn type_name(ty: &Type) -> String {
    ty.name().to_string()
}

pub(crate) fn stmt_span(s: &ast::Stmt) -> Span {
    match s {
        ast::Stmt::Modify { span, .. }
        | ast::Stmt::When { span, .. }
        | ast::Stmt::On { span, .. }
        | ast::Stmt::Grant { span, .. }
        | ast::Stmt::Command { span, .. } => *span,
        ast::Stmt::Action(a) => a.span,
    }
}

impl<'a> Checker<'a> {
    pub fn error(&mut self, d: Diagnostic) {
        self.sink.push(d);
    }

    pub fn scale(&self, name: &str) -> Option<&Vec<String>> {
        self.syms.scale(name)
    }

    pub fn step_index(&self, scale: &str, step: &str) -> Option<u32> {
        self.scale(scale)?.iter().position(|s| s == step).map(|i| i as u32)
    }

    pub fn attribute_type(&self, name: &str) -> Option<Type> {
        self.syms.attribute(name).map(|a| a.ty.clone())
    }

    pub fn attribute_names(&self) -> Vec<&str> {
        self.syms.stats.iter().chain(self.syms.bases.iter()).map(|a| a.name.as_str()).collect()
    }
}
