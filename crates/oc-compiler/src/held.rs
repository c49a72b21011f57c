//! Classes and items as the checker holds them: each a tree, or the text it is parsed from when
//! it is lowered (see `read.rs`), and the index of their names.

use std::collections::HashMap;

use oc_diag::{Diagnostic, Span};
use oc_model as m;
use oc_syntax::ast;

use crate::codes::DUPLICATE;

/// A class's or item's definition as the checker holds it: its tree, or the text it is parsed
/// from when it is lowered, its tree dropped once it is (a large project's tree is never whole:
/// see `read.rs`).
#[derive(Clone)]
pub(crate) enum Held<'a, T> {
    Tree(&'a T),
    Text { file: oc_diag::FileId, text: &'a str, def: &'a Unparsed },
}

/// A definition not parsed yet: the name its first words give, and its bytes in its file.
#[derive(Debug)]
pub(crate) struct Unparsed {
    pub name: ast::Ident,
    pub range: std::ops::Range<usize>,
}

impl Unparsed {
    /// Its tree, its syntax problems pushed to `diags`; `None` unless it is one definition of
    /// the kind and name its first words gave.
    fn parse<T: Definition>(&self, file: oc_diag::FileId, text: &str, diags: &mut Vec<Diagnostic>) -> Option<T> {
        let mut unread = Vec::new();
        let mut items = oc_syntax::parse_piece(file, text, self.range.clone(), diags, &mut unread);
        items.pop().filter(|_| items.is_empty()).and_then(T::from_item).filter(|t| *t.name() == self.name)
    }
}

/// What the checker needs of a deferred definition's tree.
pub(crate) trait Definition: Clone {
    fn name(&self) -> &ast::Ident;
    fn from_item(item: ast::Item) -> Option<Self>;
}

impl Definition for ast::ClassDef {
    fn name(&self) -> &ast::Ident {
        &self.name
    }
    fn from_item(item: ast::Item) -> Option<Self> {
        if let ast::Item::Class(c) = item {
            Some(c)
        } else {
            None
        }
    }
}

impl Definition for ast::ItemDef {
    fn name(&self) -> &ast::Ident {
        &self.name
    }
    fn from_item(item: ast::Item) -> Option<Self> {
        if let ast::Item::Item(i) = item {
            Some(i)
        } else {
            None
        }
    }
}

impl<'a, T: Definition> Held<'a, T> {
    /// The tree: borrowed, or parsed from the text (its syntax problems pushed to `diags`).
    /// `None` for text that is not the definition its first words named.
    pub(crate) fn tree_into(&self, diags: &mut Vec<Diagnostic>) -> Option<std::borrow::Cow<'a, T>> {
        match self {
            Held::Tree(t) => Some(std::borrow::Cow::Borrowed(*t)),
            Held::Text { file, text, def } => def.parse(*file, text, diags).map(std::borrow::Cow::Owned),
        }
    }

    /// [`Held::tree_into`] again, its syntax problems dropped: they are reported once, where it
    /// is lowered.
    pub fn reread(&self) -> Option<std::borrow::Cow<'a, T>> {
        self.tree_into(&mut Vec::new())
    }

    pub fn name(&self) -> &'a ast::Ident {
        match self {
            Held::Tree(t) => t.name(),
            Held::Text { def, .. } => &def.name,
        }
    }
}

/// Classes or items by name: where each name's first definition is in `class_defs` or
/// `item_defs`. The names are the definitions' own, borrowed (a large project has thousands).
#[derive(Default)]
pub(crate) struct Index<'a> {
    /// The first definitions' names, in order.
    pub order: Vec<&'a str>,
    map: HashMap<&'a str, u32, m::hash::FxBuild>,
}

impl<'a> Index<'a> {
    /// The index of `defs`, each repeated name reported.
    pub fn of<T: Definition>(diags: &mut Vec<Diagnostic>, defs: &[Held<'a, T>], what: &str) -> Index<'a> {
        let mut index = Index::default();
        for (i, def) in defs.iter().enumerate() {
            let name = def.name();
            match index.map.get(name.value.as_str()).and_then(|first| defs.get(*first as usize)) {
                Some(first) => diags.push(duplicate(what, name, first.name().span)),
                None => {
                    index.order.push(name.value.as_str());
                    index.map.insert(name.value.as_str(), i as u32);
                }
            }
        }
        index
    }

    /// Where `name`'s first definition is.
    pub fn get(&self, name: &str) -> Option<usize> {
        self.map.get(name).map(|i| *i as usize)
    }

    /// Whether `def`, the `i`th definition, is the first of its name (a repeat is reported and
    /// never lowered).
    pub fn first<T: Definition>(&self, def: &Held<'_, T>, i: usize) -> bool {
        self.get(&def.name().value) == Some(i)
    }

    pub fn contains(&self, name: &str) -> bool {
        self.map.contains_key(name)
    }

    /// The names, for a list of suggestions.
    pub fn names(&self) -> Vec<String> {
        self.order.iter().map(|n| n.to_string()).collect()
    }
}

/// `name` defined again, first defined at `first`.
pub(crate) fn duplicate(what: &str, name: &ast::Ident, first: Span) -> Diagnostic {
    Diagnostic::error(DUPLICATE, name.span, format!("the {what} `{}` is defined twice", name.value))
        .with_label("defined again here")
        .with_secondary(first, "first defined here")
        .with_help(format!("rename one of them; every {what} name must be unique (the standard library's included)"))
}
