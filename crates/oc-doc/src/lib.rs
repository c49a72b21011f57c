//! Documentation generated from compiled rules (`oc doc`): a static site — HTML and the same
//! pages in Markdown — with a page per kind of definition (classes, items, tags, statuses,
//! terrain, the ruleset's scales, stats, dice, tables and formulas, scenarios and armies), the
//! source files with numbered lines, cross-links everywhere, and a search index that works from
//! `file://` (a script, no server, no fetch).
//!
//! **Boundary:** no file system access: [`build`] returns the files as bytes; the binary writes them.
//! **Invariant:** every link of every page resolves to a page and an anchor the site defines
//! ([`Site::broken_links`] is empty; the tests check it for both built-in rulesets).
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]

use std::collections::{BTreeMap, BTreeSet};

use oc_compiler::Workspace;
use oc_diag::FileId;
use oc_model::Rules;
use oc_syntax::ast;

mod assets;
mod defs;
pub mod page;
pub mod print;
mod world;

use page::{Href, Page};

/// The kinds of definitions that get an anchor (and a search entry).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Class,
    Item,
    Tag,
    Status,
    Terrain,
    WeaponType,
    Movement,
    Ruleset,
    Scenario,
    Army,
}

impl Kind {
    /// The page that holds definitions of this kind.
    pub fn page(self) -> &'static str {
        match self {
            Kind::Class => "classes",
            Kind::Item => "items",
            Kind::Tag => "tags",
            Kind::Status => "statuses",
            Kind::Terrain | Kind::Movement => "terrain",
            Kind::WeaponType | Kind::Ruleset => "ruleset",
            Kind::Scenario | Kind::Army => "scenarios",
        }
    }
    /// The anchor's prefix: `class-Myrmidon`.
    pub fn prefix(self) -> &'static str {
        match self {
            Kind::Class => "class",
            Kind::Item => "item",
            Kind::Tag => "tag",
            Kind::Status => "status",
            Kind::Terrain => "terrain",
            Kind::WeaponType => "weapon-type",
            Kind::Movement => "movement",
            Kind::Ruleset => "ruleset",
            Kind::Scenario => "scenario",
            Kind::Army => "army",
        }
    }
    pub fn word(self) -> &'static str {
        match self {
            Kind::Class => "class",
            Kind::Item => "item",
            Kind::Tag => "tag",
            Kind::Status => "status",
            Kind::Terrain => "terrain",
            Kind::WeaponType => "weapon type",
            Kind::Movement => "movement type",
            Kind::Ruleset => "ruleset",
            Kind::Scenario => "scenario",
            Kind::Army => "army",
        }
    }
}

/// The anchor of a definition: `class-Myrmidon`.
pub fn anchor(kind: Kind, name: &str) -> String {
    let clean: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect();
    format!("{}-{clean}", kind.prefix())
}

/// Where a definition links: its page and anchor.
pub fn href(kind: Kind, name: &str) -> Href {
    Href::to(kind.page(), anchor(kind, name))
}

/// A source file shown in the site: its name as diagnostics show it (`std:ratings/tags.oc`,
/// `rules/homebrew.oc`) and its text.
#[derive(Clone, Debug)]
pub struct Source {
    pub shown: String,
    pub text: String,
}

impl Source {
    /// The id of the source's page: `src/std/ratings/tags.oc`, `src/project/rules/homebrew.oc`.
    pub fn page_id(&self) -> String {
        let (area, rest) = match self.shown.strip_prefix("std:") {
            Some(rest) => ("std", rest),
            None => ("project", self.shown.as_str()),
        };
        let parts: Vec<String> = rest
            .split('/')
            .filter(|p| !p.is_empty())
            .map(|p| {
                let p: String = p.chars().map(|c| if c.is_ascii_alphanumeric() || "._-".contains(c) { c } else { '_' }).collect();
                if p.chars().all(|c| c == '.') {
                    "_".repeat(p.len())
                } else {
                    p
                }
            })
            .collect();
        format!("src/{area}/{}", parts.join("/"))
    }
}

/// What to document.
#[derive(Clone, Debug)]
pub struct Input<'a> {
    /// The site's title (the ruleset's or the project's name).
    pub title: String,
    pub rules: &'a Rules,
    pub sources: Vec<Source>,
    /// Where each definition is written: index into `sources` and 1-based line.
    pub origins: BTreeMap<(Kind, String), (usize, usize)>,
    /// A picture of each scenario's map (PNG bytes), by scenario name.
    pub maps: BTreeMap<String, Vec<u8>>,
}

impl<'a> Input<'a> {
    pub fn new(title: impl Into<String>, rules: &'a Rules) -> Input<'a> {
        Input { title: title.into(), rules, sources: Vec::new(), origins: BTreeMap::new(), maps: BTreeMap::new() }
    }

    /// Adds the `.oc` files of a compilation (their text, and where each definition is written).
    pub fn with_files(mut self, workspace: &Workspace, files: &[FileId]) -> Input<'a> {
        for id in files {
            let Some(file) = workspace.file(*id) else { continue };
            if !file.path.ends_with(".oc") {
                continue;
            }
            let index = self.sources.len();
            self.sources.push(Source { shown: oc_compiler::stdlib::shown_path(&file.path), text: file.text.clone() });
            let starts = oc_diag::LineStarts::new(&file.text);
            let line = |span: oc_diag::Span| starts.line_of(span.start as usize).0 + 1;
            for item in &file.ast().items {
                let mut found: Vec<(Kind, &str, usize)> = Vec::new();
                match item {
                    ast::Item::Import(_) | ast::Item::Triangle(_) => {}
                    ast::Item::Ruleset(r) => found.push((Kind::Ruleset, &r.name.value, line(r.name.span))),
                    ast::Item::Movement(names) => {
                        found.extend(names.iter().map(|n| (Kind::Movement, n.value.as_str(), line(n.span))));
                    }
                    ast::Item::WeaponType(w) => found.push((Kind::WeaponType, &w.name.value, line(w.name.span))),
                    ast::Item::Terrain(t) => found.push((Kind::Terrain, &t.name.value, line(t.name.span))),
                    ast::Item::Tag(t) => found.push((Kind::Tag, &t.name.value, line(t.name.span))),
                    ast::Item::Status(s) => found.push((Kind::Status, &s.name.value, line(s.name.span))),
                    ast::Item::Class(c) => found.push((Kind::Class, &c.name.value, line(c.name.span))),
                    ast::Item::Item(i) => found.push((Kind::Item, &i.name.value, line(i.name.span))),
                    ast::Item::Scenario(s) => found.push((Kind::Scenario, &s.name.value, line(s.name.span))),
                    ast::Item::Army(a) => found.push((Kind::Army, &a.name.value, line(a.name.span))),
                }
                for (kind, name, line) in found {
                    // The first definition wins, as it does in the compiler's symbol tables.
                    self.origins.entry((kind, name.to_string())).or_insert((index, line));
                }
            }
        }
        self
    }

    /// Where a definition is written, as diagnostics show it (`std:ratings/classes.oc:14`), and
    /// the link to that line of the source page.
    pub fn origin(&self, kind: Kind, name: &str) -> Option<(String, Href)> {
        let (index, line) = self.origins.get(&(kind, name.to_string()))?;
        let source = self.sources.get(*index)?;
        Some((format!("{}:{line}", source.shown), Href::to(&source.page_id(), format!("L{line}"))))
    }
}

/// One entry of the search index.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    pub name: String,
    pub kind: String,
    pub href: Href,
    pub summary: String,
}

/// The generated site: pages (as data, for checks) and every file to write, by relative path.
#[derive(Clone, Debug)]
pub struct Site {
    pub pages: Vec<Page>,
    pub search: Vec<Entry>,
    pub files: BTreeMap<String, Vec<u8>>,
}

/// The file that marks a folder as `oc doc`'s output (so a later run may replace it).
pub const MARKER: &str = ".oc-doc";
/// The marker's first line (the folder's writer lists the files it wrote after it:
/// `oc_project::folder::write`).
pub const MARKER_TEXT: &str = "generated by oc doc; the whole folder is replaced when oc doc runs again\n";

impl Site {
    /// Links (page, target) whose page or anchor the site does not define. Empty for a good site.
    pub fn broken_links(&self) -> Vec<String> {
        let anchors: BTreeMap<&str, BTreeSet<String>> =
            self.pages.iter().map(|p| (p.id.as_str(), p.anchors().into_iter().collect())).collect();
        let mut broken = Vec::new();
        let mut check = |from: &str, to: &Href| match anchors.get(to.page.as_str()) {
            None => broken.push(format!("{from}: no page `{}`", to.page)),
            Some(set) => {
                if let Some(a) = &to.anchor {
                    if !set.contains(a) {
                        broken.push(format!("{from}: no anchor `{}#{a}`", to.page));
                    }
                }
            }
        };
        for p in &self.pages {
            for l in p.links() {
                check(&p.id, l);
            }
        }
        for e in &self.search {
            check("search index", &e.href);
        }
        broken
    }
}

/// Every page of the site, its search index and its files.
pub fn build(input: &Input) -> Site {
    let mut pages = Vec::new();
    let mut search = Vec::new();
    pages.push(world::index(input));
    pages.push(world::ruleset(input, &mut search));
    pages.push(defs::classes(input, &mut search));
    pages.push(defs::items(input, &mut search));
    pages.push(defs::tags(input, &mut search));
    pages.push(defs::statuses(input, &mut search));
    pages.push(world::terrain(input, &mut search));
    let mut pictures = BTreeMap::new();
    if !input.rules.scenarios.is_empty() || !input.rules.armies.is_empty() {
        pages.push(world::scenarios(input, &mut search, &mut pictures));
    }
    for source in &input.sources {
        let mut p = Page::new(&source.page_id(), source.shown.clone());
        p.html_only = true;
        p.blocks.push(page::Block::Heading { level: 1, anchor: None, text: vec![page::code(source.shown.clone())] });
        p.blocks.push(page::Block::Source(source.text.clone()));
        pages.push(p);
    }
    search.sort();
    let html_only: BTreeSet<String> = pages.iter().filter(|p| p.html_only).map(|p| p.id.clone()).collect();
    let set = HtmlOnly(html_only);
    let nav: Vec<(String, String)> = pages.iter().filter(|p| !p.html_only).map(|p| (p.id.clone(), nav_label(&p.id))).collect();
    let mut files = BTreeMap::new();
    for p in &pages {
        files.insert(page::file_of(&p.id, p.html_only, "html"), page::html(p, &input.title, &nav, &set).into_bytes());
        if !p.html_only {
            files.insert(page::file_of(&p.id, false, "md"), page::markdown(p, &set).into_bytes());
        }
    }
    files.insert("style.css".to_string(), assets::STYLE.as_bytes().to_vec());
    files.insert("search.js".to_string(), assets::SEARCH.as_bytes().to_vec());
    files.insert("search-index.js".to_string(), assets::index(&search, &set).into_bytes());
    files.insert(MARKER.to_string(), MARKER_TEXT.as_bytes().to_vec());
    files.extend(pictures);
    Site { pages, search, files }
}

struct HtmlOnly(BTreeSet<String>);

impl page::Pages for HtmlOnly {
    fn html_only(&self, page: &str) -> bool {
        self.0.contains(page)
    }
}

fn nav_label(id: &str) -> String {
    match id {
        "index" => "Overview",
        "ruleset" => "Ruleset",
        "classes" => "Classes",
        "items" => "Items",
        "tags" => "Tags",
        "statuses" => "Statuses",
        "terrain" => "Terrain",
        "scenarios" => "Scenarios",
        other => other,
    }
    .to_string()
}

/// The first sentence of a doc string (at most 160 characters), for summaries.
pub fn summary(doc: &str) -> String {
    let first = doc.split(". ").next().unwrap_or(doc).trim();
    if first.chars().count() > 160 {
        let cut: String = first.chars().take(157).collect();
        format!("{cut}...")
    } else {
        first.to_string()
    }
}
