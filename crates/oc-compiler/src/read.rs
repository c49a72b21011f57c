//! A file as compilations read it: cut into its items, every one parsed but, in a large file
//! (`Workspace::set_defer_from`), the classes and items, which stay text until the checker
//! lowers them, one tree at a time, each dropped once lowered. A large project's tree is never
//! whole, so checking it holds little more than its text and its model
//! (`bench check_peak_bytes_per_source_byte`). The read is kept with the file, so a file many
//! roots import is cut once.
//!
//! Whether a piece is a class or an item is read from its first two words, which only a parse
//! can confirm: where the checker finds otherwise (a broken class, two items on one line), the
//! compilation is done again with those pieces parsed up front (`Read::eager`, kept with the
//! file; `Workspace::compile_ids`), so deferring never changes a result.

use oc_diag::{Diagnostic, FileId, Spanned};
use oc_syntax::ast;

use crate::held::{Held, Unparsed};

#[derive(Debug)]
pub(crate) enum Piece {
    Parsed(Vec<ast::Item>),
    /// A class (`class: true`) or an item, not parsed yet.
    Deferred {
        class: bool,
        def: Unparsed,
    },
}

#[derive(Debug, Default)]
pub(crate) struct Read {
    pub pieces: Vec<Piece>,
    /// Where the pieces start that are parsed although their first words name a class or an
    /// item: the checker found them not to be that one definition.
    pub eager: std::collections::HashSet<usize>,
    /// The syntax errors of the cut and of the pieces parsed.
    pub syntax: Vec<Diagnostic>,
    pub unread: Vec<Spanned<String>>,
}

/// Reads `text`, deferring its classes and items when `defer` is set, but for the pieces that
/// start at `eager`.
pub(crate) fn read(file: FileId, text: &str, defer: bool, eager: std::collections::HashSet<usize>) -> Read {
    let outline = oc_syntax::outline(file, text);
    let mut syntax = outline.diagnostics;
    let mut unread = outline.unread;
    let mut pieces = Vec::with_capacity(outline.pieces.len());
    for range in outline.pieces {
        if defer && !eager.contains(&range.start) {
            let head = oc_syntax::piece_head(file, text, range.clone());
            if let Some((keyword @ ("class" | "weapon" | "accessory" | "consumable"), name)) = head {
                pieces.push(Piece::Deferred { class: keyword == "class", def: Unparsed { name, range } });
                continue;
            }
        }
        pieces.push(Piece::Parsed(oc_syntax::parse_piece(file, text, range, &mut syntax, &mut unread)));
    }
    Read { pieces, eager, syntax, unread }
}

impl Read {
    /// The items parsed, in source order.
    pub fn items(&self) -> impl Iterator<Item = &ast::Item> {
        self.pieces.iter().flat_map(|p| match p {
            Piece::Parsed(items) => items.as_slice(),
            Piece::Deferred { .. } => &[],
        })
    }
}

/// How a compilation sees one file: its whole tree, kept with the file (what
/// `SourceFile::ast` gives), or, for a large file, its [`Read`].
#[derive(Clone, Copy)]
pub(crate) enum View<'a> {
    Tree(&'a ast::SourceFile, &'a [Diagnostic]),
    Read(&'a Read),
}

impl<'a> View<'a> {
    pub fn items(self) -> Box<dyn Iterator<Item = &'a ast::Item> + 'a> {
        match self {
            View::Tree(tree, _) => Box::new(tree.items.iter()),
            View::Read(read) => Box::new(read.items()),
        }
    }

    /// The imports (never deferred).
    pub fn imports(self) -> Vec<ast::Import> {
        self.items().filter_map(|i| if let ast::Item::Import(imp) = i { Some(imp.clone()) } else { None }).collect()
    }

    pub fn unread(self) -> &'a [Spanned<String>] {
        match self {
            View::Tree(tree, _) => &tree.unread,
            View::Read(read) => &read.unread,
        }
    }

    pub fn syntax(self) -> &'a [Diagnostic] {
        match self {
            View::Tree(_, syntax) => syntax,
            View::Read(read) => &read.syntax,
        }
    }
}

/// The checker's input from files in order (each with its text): every item but the classes
/// and items, then those, parsed or held as text, each in source order.
pub(crate) type Split<'a> = (Vec<&'a ast::Item>, Vec<Held<'a, ast::ClassDef>>, Vec<Held<'a, ast::ItemDef>>);

pub(crate) fn split<'a>(files: impl Iterator<Item = (FileId, &'a str, View<'a>)>) -> Split<'a> {
    let mut out: Split<'a> = (Vec::new(), Vec::new(), Vec::new());
    for (file, text, view) in files {
        match view {
            View::Tree(tree, _) => tree.items.iter().for_each(|item| take(&mut out, item)),
            View::Read(read) => {
                for piece in &read.pieces {
                    match piece {
                        Piece::Parsed(parsed) => parsed.iter().for_each(|item| take(&mut out, item)),
                        Piece::Deferred { class: true, def } => out.1.push(Held::Text { file, text, def }),
                        Piece::Deferred { class: false, def } => out.2.push(Held::Text { file, text, def }),
                    }
                }
            }
        }
    }
    out
}

fn take<'a>((items, classes, things): &mut Split<'a>, item: &'a ast::Item) {
    match item {
        ast::Item::Class(c) => classes.push(Held::Tree(c)),
        ast::Item::Item(i) => things.push(Held::Tree(i)),
        other => items.push(other),
    }
}
