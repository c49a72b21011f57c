//! The site as data: pages of blocks and inlines with links by page id and anchor, and the two
//! renderers (HTML and Markdown) that turn the same page into text. Links are checked on this
//! data too: every [`Href`] names a page id and an anchor some page defines.

use std::fmt::Write as _;

/// Where a link goes: a page id (`classes`, `src/std/ratings/tags.oc`) and an anchor on it.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Href {
    pub page: String,
    pub anchor: Option<String>,
}

impl Href {
    pub fn to(page: &str, anchor: impl Into<String>) -> Href {
        Href { page: page.to_string(), anchor: Some(anchor.into()) }
    }
    pub fn page(page: &str) -> Href {
        Href { page: page.to_string(), anchor: None }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Inline {
    Text(String),
    Code(String),
    Strong(String),
    Link { text: String, code: bool, to: Href },
}

/// A run of inlines: one paragraph, one table cell, one list item.
pub type Line = Vec<Inline>;

pub fn text(s: impl Into<String>) -> Inline {
    Inline::Text(s.into())
}
pub fn code(s: impl Into<String>) -> Inline {
    Inline::Code(s.into())
}
pub fn link(s: impl Into<String>, to: Href) -> Inline {
    Inline::Link { text: s.into(), code: false, to }
}
pub fn code_link(s: impl Into<String>, to: Href) -> Inline {
    Inline::Link { text: s.into(), code: true, to }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Heading {
        level: u8,
        anchor: Option<String>,
        text: Line,
    },
    Para(Line),
    /// `key: value` pairs (a definition's facts).
    Facts(Vec<(String, Line)>),
    Table {
        head: Vec<Line>,
        rows: Vec<Vec<Line>>,
    },
    List(Vec<Line>),
    /// Preformatted DSL text.
    Code(String),
    /// A picture of the site (path from the site's root).
    Image {
        src: String,
        alt: String,
    },
    /// Source text with numbered lines, each with the anchor `L<n>` (source pages only).
    Source(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Page {
    /// `classes`, `src/std/ratings/tags.oc`: the file is the id plus `.html` / `.md`.
    pub id: String,
    pub title: String,
    pub blocks: Vec<Block>,
    /// Source pages are HTML only; Markdown links to them go to their HTML.
    pub html_only: bool,
}

impl Page {
    pub fn new(id: &str, title: impl Into<String>) -> Page {
        Page { id: id.to_string(), title: title.into(), blocks: Vec::new(), html_only: false }
    }

    /// Every anchor this page defines.
    pub fn anchors(&self) -> Vec<String> {
        let mut out = Vec::new();
        for b in &self.blocks {
            match b {
                Block::Heading { anchor: Some(a), .. } => out.push(a.clone()),
                Block::Source(text) => out.extend((1..=text.split('\n').count()).map(|n| format!("L{n}"))),
                _ => {}
            }
        }
        out
    }

    /// Every link on the page.
    pub fn links(&self) -> Vec<&Href> {
        self.all_hrefs().collect()
    }

    fn all_hrefs(&self) -> impl Iterator<Item = &Href> {
        self.blocks.iter().flat_map(|b| {
            let lines: Vec<&Line> = match b {
                Block::Heading { text, .. } | Block::Para(text) => vec![text],
                Block::Facts(facts) => facts.iter().map(|(_, l)| l).collect(),
                Block::Table { head, rows } => head.iter().chain(rows.iter().flatten()).collect(),
                Block::List(items) => items.iter().collect(),
                Block::Code(_) | Block::Image { .. } | Block::Source(_) => vec![],
            };
            lines.into_iter().flatten().filter_map(|i| if let Inline::Link { to, .. } = i { Some(to) } else { None })
        })
    }

    /// The pictures the page shows (paths from the site's root).
    pub fn images(&self) -> Vec<&str> {
        self.blocks.iter().filter_map(|b| if let Block::Image { src, .. } = b { Some(src.as_str()) } else { None }).collect()
    }
}

/// The file of a page in the given output format (`html` or `md`).
pub fn file_of(id: &str, html_only: bool, ext: &str) -> String {
    if html_only {
        format!("{id}.html")
    } else {
        format!("{id}.{ext}")
    }
}

/// `../` for each folder a page id is below the site's root.
pub fn up(id: &str) -> String {
    "../".repeat(id.matches('/').count())
}

pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

/// How the renderers name the file of a link's page: whether that page is HTML only.
pub trait Pages {
    fn html_only(&self, page: &str) -> bool;
}

fn href_html(from: &str, to: &Href, pages: &dyn Pages) -> String {
    let mut s = format!("{}{}", up(from), file_of(&to.page, pages.html_only(&to.page), "html"));
    // An anchor on the same page stands alone; the page itself is named by its file (the nav
    // bar's link to the page shown), never by an empty link.
    if to.page == from && to.anchor.is_some() {
        s.clear();
    }
    if let Some(a) = &to.anchor {
        s.push('#');
        s.push_str(a);
    }
    escape_html(&s)
}

/// Text with `backticks` as text and code spans (unbalanced backticks stay text).
pub fn prose(s: &str) -> Line {
    let parts: Vec<&str> = s.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return vec![text(s)];
    }
    parts.iter().enumerate().filter(|(_, p)| !p.is_empty()).map(|(i, p)| if i % 2 == 1 { code(*p) } else { text(*p) }).collect()
}

/// The line as rendered: prose split into text and code, neighbouring code spans joined
/// (`Lucky` `(` `5` `)` reads as one span in Markdown).
fn merged(line: &Line) -> Line {
    let mut out: Line = Vec::with_capacity(line.len());
    for i in line {
        let pieces = match i {
            Inline::Text(t) if t.contains('`') => prose(t),
            other => vec![other.clone()],
        };
        for piece in pieces {
            match (out.last_mut(), piece) {
                (Some(Inline::Code(a)), Inline::Code(b)) => a.push_str(&b),
                (_, piece) => out.push(piece),
            }
        }
    }
    out
}

/// A link from page `from` to its own top (a parameter of type `Tag` on the tags page): said as
/// its text, not as a link to where the reader already is (an empty `href`).
fn to_itself(from: &str, to: &Href) -> bool {
    to.anchor.is_none() && to.page == from
}

fn inline_html(out: &mut String, from: &str, line: &Line, pages: &dyn Pages) {
    for i in &merged(line) {
        match i {
            Inline::Text(t) => out.push_str(&escape_html(t)),
            Inline::Code(c) => {
                let _ = write!(out, "<code>{}</code>", escape_html(c));
            }
            Inline::Strong(t) => {
                let _ = write!(out, "<strong>{}</strong>", escape_html(t));
            }
            Inline::Link { text, code, to } => {
                let inner = if *code { format!("<code>{}</code>", escape_html(text)) } else { escape_html(text) };
                if to_itself(from, to) {
                    out.push_str(&inner);
                } else {
                    let _ = write!(out, "<a href=\"{}\">{inner}</a>", href_html(from, to, pages));
                }
            }
        }
    }
}

/// The navigation bar: (page id, label).
pub type Nav = [(String, String)];

pub fn html(page: &Page, site_title: &str, nav: &Nav, pages: &dyn Pages) -> String {
    let root = up(&page.id);
    let mut out = String::new();
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} — {}</title>\n<link rel=\"stylesheet\" href=\"{root}style.css\">\n\
         <script src=\"{root}search-index.js\" defer></script>\n<script src=\"{root}search.js\" defer></script>\n\
         </head>\n<body data-root=\"{root}\">\n<header>\n<nav>",
        escape_html(&page.title),
        escape_html(site_title),
    );
    for (id, label) in nav {
        let class = if *id == page.id { " class=\"here\" aria-current=\"page\"" } else { "" };
        let _ = write!(out, "<a{class} href=\"{}\">{}</a> ", href_html(&page.id, &Href::page(id), pages), escape_html(label));
    }
    out.push_str(
        "</nav>\n<input id=\"oc-search\" type=\"search\" placeholder=\"Search classes, items, tags, terrain…\" \
         autocomplete=\"off\" aria-label=\"Search\">\n<ol id=\"oc-results\" hidden></ol>\n</header>\n<main>\n",
    );
    for b in &page.blocks {
        match b {
            Block::Heading { level, anchor, text } => {
                let level = (*level).clamp(1, 6);
                let id = anchor.as_ref().map(|a| format!(" id=\"{}\"", escape_html(a))).unwrap_or_default();
                let _ = write!(out, "<h{level}{id}>");
                inline_html(&mut out, &page.id, text, pages);
                if let Some(a) = anchor {
                    let _ = write!(out, " <a class=\"anchor\" href=\"#{}\">#</a>", escape_html(a));
                }
                let _ = writeln!(out, "</h{level}>");
            }
            Block::Para(line) => {
                out.push_str("<p>");
                inline_html(&mut out, &page.id, line, pages);
                out.push_str("</p>\n");
            }
            Block::Facts(facts) => {
                out.push_str("<dl class=\"facts\">\n");
                for (k, v) in facts {
                    let _ = write!(out, "<dt>{}</dt><dd>", escape_html(k));
                    inline_html(&mut out, &page.id, v, pages);
                    out.push_str("</dd>\n");
                }
                out.push_str("</dl>\n");
            }
            Block::Table { head, rows } => {
                out.push_str("<table>\n<thead><tr>");
                for h in head {
                    out.push_str("<th>");
                    inline_html(&mut out, &page.id, h, pages);
                    out.push_str("</th>");
                }
                out.push_str("</tr></thead>\n<tbody>\n");
                for row in rows {
                    out.push_str("<tr>");
                    for cell in row {
                        out.push_str("<td>");
                        inline_html(&mut out, &page.id, cell, pages);
                        out.push_str("</td>");
                    }
                    out.push_str("</tr>\n");
                }
                out.push_str("</tbody>\n</table>\n");
            }
            Block::List(items) => {
                out.push_str("<ul>\n");
                for item in items {
                    out.push_str("<li>");
                    inline_html(&mut out, &page.id, item, pages);
                    out.push_str("</li>\n");
                }
                out.push_str("</ul>\n");
            }
            Block::Code(c) => {
                let _ = writeln!(out, "<pre><code>{}</code></pre>", escape_html(c));
            }
            Block::Image { src, alt } => {
                let _ = writeln!(out, "<p><img src=\"{root}{}\" alt=\"{}\"></p>", escape_html(src), escape_html(alt));
            }
            Block::Source(text) => {
                out.push_str("<pre class=\"source\"><code>");
                for (n, l) in text.split('\n').enumerate() {
                    let n = n + 1;
                    let _ =
                        writeln!(out, "<span id=\"L{n}\"><a class=\"ln\" href=\"#L{n}\">{n:>4}</a> {}</span>", escape_html(l));
                }
                out.push_str("</code></pre>\n");
            }
        }
    }
    out.push_str("</main>\n</body>\n</html>\n");
    out
}

fn escape_md(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '\\' | '*' | '_' | '[' | ']' | '<' | '>' | '|' | '`' | '#') {
            out.push('\\');
        }
        if c == '\n' {
            out.push(' ');
        } else {
            out.push(c);
        }
    }
    out
}

fn code_md(s: &str) -> String {
    let s = s.replace('\n', " ").replace('|', "\\|");
    if s.contains('`') {
        format!("`` {s} ``")
    } else {
        format!("`{s}`")
    }
}

fn href_md(from: &str, to: &Href, pages: &dyn Pages) -> String {
    let mut s = if to.page == from && !pages.html_only(&to.page) {
        String::new()
    } else {
        format!("{}{}", up(from), file_of(&to.page, pages.html_only(&to.page), "md"))
    };
    if let Some(a) = &to.anchor {
        s.push('#');
        s.push_str(a);
    }
    s
}

fn inline_md(from: &str, line: &Line, pages: &dyn Pages) -> String {
    let mut out = String::new();
    for i in &merged(line) {
        match i {
            Inline::Text(t) => out.push_str(&escape_md(t)),
            Inline::Code(c) => out.push_str(&code_md(c)),
            Inline::Strong(t) => {
                let _ = write!(out, "**{}**", escape_md(t));
            }
            Inline::Link { text, code, to } => {
                let inner = if *code { code_md(text) } else { escape_md(text) };
                if to_itself(from, to) {
                    out.push_str(&inner);
                } else {
                    let _ = write!(out, "[{inner}]({})", href_md(from, to, pages));
                }
            }
        }
    }
    out
}

pub fn markdown(page: &Page, pages: &dyn Pages) -> String {
    let mut out = String::new();
    for b in &page.blocks {
        match b {
            Block::Heading { level, anchor, text } => {
                if let Some(a) = anchor {
                    let _ = writeln!(out, "<a id=\"{}\"></a>\n", escape_html(a));
                }
                let _ = writeln!(out, "{} {}\n", "#".repeat(usize::from((*level).clamp(1, 6))), inline_md(&page.id, text, pages));
            }
            Block::Para(line) => {
                let _ = writeln!(out, "{}\n", inline_md(&page.id, line, pages));
            }
            Block::Facts(facts) => {
                for (k, v) in facts {
                    let _ = writeln!(out, "- **{}**: {}", escape_md(k), inline_md(&page.id, v, pages));
                }
                out.push('\n');
            }
            Block::Table { head, rows } => {
                let cells = |row: &[Line]| -> String {
                    let cells: Vec<String> = row.iter().map(|c| inline_md(&page.id, c, pages)).collect();
                    format!("| {} |", cells.join(" | "))
                };
                let _ = writeln!(out, "{}", cells(head));
                let _ = writeln!(out, "|{}", "---|".repeat(head.len().max(1)));
                for row in rows {
                    let _ = writeln!(out, "{}", cells(row));
                }
                out.push('\n');
            }
            Block::List(items) => {
                for item in items {
                    let _ = writeln!(out, "- {}", inline_md(&page.id, item, pages));
                }
                out.push('\n');
            }
            Block::Code(c) => {
                let _ = writeln!(out, "```text\n{c}\n```\n");
            }
            Block::Image { src, alt } => {
                let _ = writeln!(out, "![{}]({}{src})\n", escape_md(alt), up(&page.id));
            }
            Block::Source(text) => {
                let _ = writeln!(out, "```text\n{text}\n```\n");
            }
        }
    }
    out
}
