//! The generated site of both built-in rulesets, read back as the files a browser gets: every
//! tag, class, item and terrain has its anchor with its doc string and source line, every link
//! and picture of every HTML and Markdown page resolves, and the search index names them all.

use std::collections::{BTreeMap, BTreeSet};

use oc_compiler::stdlib::{NoFiles, RULESETS};
use oc_compiler::Workspace;
use oc_doc::{anchor, build, Input, Kind, Site};

fn site_of(index: &str) -> (oc_model::Rules, Site) {
    let mut ws = Workspace::new();
    let id = ws.id_of(index).unwrap();
    let c = ws.compile_ids(&mut NoFiles, &[id]);
    assert_eq!(c.error_count(), 0, "{:?}", c.diagnostics);
    let rules = c.rules.unwrap();
    let site = build(&Input::new(index, &rules).with_files(&ws, &c.files));
    (rules, site)
}

/// The values of `attr="..."` in an HTML text.
fn attributes<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let needle = format!(" {attr}=\"");
    html.match_indices(&needle)
        .filter_map(|(i, _)| {
            let rest = &html[i + needle.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .collect()
}

/// `dir/page.html` + `../x.html#a` -> (`x.html`, Some(`a`)).
fn resolve(from: &str, link: &str) -> (String, Option<String>) {
    let (path, anchor) = match link.split_once('#') {
        Some((p, a)) => (p, Some(a.to_string())),
        None => (link, None),
    };
    if path.is_empty() {
        return (from.to_string(), anchor);
    }
    let mut parts: Vec<&str> = from.split('/').collect();
    parts.pop();
    for part in path.split('/') {
        match part {
            ".." => {
                assert!(parts.pop().is_some(), "{from}: `{link}` climbs out of the site");
            }
            "." => {}
            p => parts.push(p),
        }
    }
    (parts.join("/"), anchor)
}

fn text_of(site: &Site, file: &str) -> String {
    String::from_utf8(site.files.get(file).unwrap_or_else(|| panic!("no file {file}")).clone()).unwrap()
}

/// Every href and src of every HTML file, and every link and picture of every Markdown file,
/// points at a file of the site (none is empty) and, with `#a`, at an element with that id.
fn check_links(site: &Site) -> usize {
    let mut ids: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (file, bytes) in &site.files {
        let text = String::from_utf8_lossy(bytes);
        if file.ends_with(".html") || file.ends_with(".md") {
            ids.insert(file.clone(), attributes(&text, "id").into_iter().map(str::to_string).collect());
        }
    }
    let mut checked = 0;
    let mut broken = Vec::new();
    for (file, bytes) in &site.files {
        let text = String::from_utf8_lossy(bytes).into_owned();
        let links: Vec<String> = if file.ends_with(".html") {
            attributes(&text, "href").into_iter().chain(attributes(&text, "src")).map(|l| l.replace("&amp;", "&")).collect()
        } else if file.ends_with(".md") {
            text.match_indices("](")
                .filter_map(|(i, _)| text[i + 2..].find(')').map(|end| text[i + 2..i + 2 + end].to_string()))
                .collect()
        } else {
            continue;
        };
        for l in links {
            assert!(!l.contains("://"), "{file}: external link {l}");
            checked += 1;
            // An empty link goes nowhere (a parameter of type `Tag` on the tags page was one).
            if l.is_empty() {
                broken.push(format!("{file}: an empty link"));
                continue;
            }
            let (target, anchor) = resolve(file, &l);
            if !site.files.contains_key(&target) {
                broken.push(format!("{file}: {l}: no file {target}"));
                continue;
            }
            if let Some(a) = anchor {
                if !ids.get(&target).is_some_and(|set| set.contains(&a)) {
                    broken.push(format!("{file}: {l}: no id {a} in {target}"));
                }
            }
        }
    }
    assert!(broken.is_empty(), "{} broken links:\n{}", broken.len(), broken.join("\n"));
    checked
}

/// The HTML of the section a definition's anchor starts (up to the next `<h2`).
fn section(html: &str, id: &str) -> Option<String> {
    let start = html.find(&format!(" id=\"{id}\""))?;
    let rest = &html[start..];
    let end = rest[1..].find("<h2").map_or(rest.len(), |e| e + 1);
    Some(rest[..end].to_string())
}

fn escape(s: &str) -> String {
    oc_doc::page::escape_html(s)
}

#[test]
fn every_built_in_ruleset_documents_every_definition_with_working_links() {
    for (name, index) in RULESETS {
        let (rules, site) = site_of(index);
        assert!(site.broken_links().is_empty(), "{name}: {:?}", site.broken_links());
        let checked = check_links(&site);
        assert!(checked > 300, "{name}: only {checked} links");
        let search = text_of(&site, "search-index.js");
        let mut defs: Vec<(Kind, &str, Option<&str>, &str)> = Vec::new();
        defs.extend(rules.tags.iter().map(|t| (Kind::Tag, t.name.as_str(), t.doc.as_deref(), "tags.html")));
        defs.extend(rules.classes.iter().map(|c| (Kind::Class, c.name.as_str(), c.doc.as_deref(), "classes.html")));
        defs.extend(rules.items.iter().map(|i| (Kind::Item, i.name.as_str(), i.doc.as_deref(), "items.html")));
        defs.extend(rules.terrains.iter().map(|t| (Kind::Terrain, t.name.as_str(), t.doc.as_deref(), "terrain.html")));
        assert!(defs.len() > 40, "{name}: {} definitions", defs.len());
        let total = defs.len();
        let mut with_doc = 0;
        for (kind, def, doc, file) in defs {
            // Every class and item of the standard library says what it is and the rule it comes from.
            if matches!(kind, Kind::Class | Kind::Item) {
                assert!(doc.is_some(), "{name}: {def} has no doc string");
            }
            let html = text_of(&site, file);
            let id = anchor(kind, def);
            let Some(part) = section(&html, &id) else { panic!("{name}: {file} has no anchor {id}") };
            match doc {
                Some(d) => {
                    with_doc += 1;
                    assert!(part.contains(&format!("<p>{}</p>", escape(d))), "{name}: {id} lacks its doc string {d:?}");
                }
                None => assert!(part.contains("(no doc string)"), "{name}: {id} has no doc and does not say so"),
            }
            // The source line, named as diagnostics name it, linked to its line.
            assert!(part.contains("std:"), "{name}: {id} does not name its source");
            let md = text_of(&site, &file.replace(".html", ".md"));
            assert!(md.contains(&format!("<a id=\"{id}\"></a>")), "{name}: the Markdown lacks {id}");
            assert!(search.contains(&format!("#{id}\"")), "{name}: the search index lacks {id}");
        }
        assert!(with_doc * 2 >= total, "{name}: only {with_doc} of {total} doc strings shown");
    }
}

#[test]
fn source_links_land_on_the_definition_line() {
    let (rules, site) = site_of("<std>/ratings.oc");
    let lucky = rules.tag("Lucky").unwrap();
    assert!(lucky.doc.is_some());
    let tags = text_of(&site, "tags.html");
    let part = section(&tags, "tag-Lucky").unwrap();
    let link = attributes(&part, "href").into_iter().find(|h| h.contains("src/std/ratings/tags.oc.html#L")).unwrap();
    let line: usize = link.rsplit("#L").next().unwrap().parse().unwrap();
    let source = oc_compiler::stdlib::FILES.iter().find(|(p, _)| *p == "ratings/tags.oc").unwrap().1;
    let written = source.lines().nth(line - 1).unwrap();
    assert!(written.starts_with("tag Lucky"), "line {line} is {written:?}");
    assert!(part.contains(&format!(">std:ratings/tags.oc:{line}<")), "{part}");
}

#[test]
fn a_home_brew_file_is_documented_like_the_standard_library() {
    let text = "class Bladesinger \"Blade Singer\" {\n    doc \"Dances between strikes.\"\n    ratings { str C mag C skl B spd A def E res C }\n    wields Swords\n    tags Lucky(3), Canto\n    cost 1200\n}\ntag Sharp on weapon doc \"Cuts deep.\" { damage_bonus += 1 }\nweapon Edge \"Edge\" { type Swords might 1 weight 0 range 1 tags Sharp cost 700 }\n";
    let mut host = oc_compiler::MemoryHost::one("rules/bladesinger.oc", text);
    let mut ws = Workspace::new();
    let (c, unreadable) = ws.compile(&mut host, &["rules/bladesinger.oc".to_string()]);
    assert!(unreadable.is_empty());
    let rules = c.rules.unwrap();
    let site = build(&Input::new("my campaign", &rules).with_files(&ws, &c.files));
    assert!(site.broken_links().is_empty(), "{:?}", site.broken_links());
    check_links(&site);
    let classes = text_of(&site, "classes.html");
    let part = section(&classes, "class-Bladesinger").unwrap();
    assert!(part.contains("<p>Dances between strikes.</p>"), "{part}");
    assert!(part.contains(">rules/bladesinger.oc:1<"), "{part}");
    assert!(part.contains("href=\"tags.html#tag-Lucky\""), "{part}");
    let items = text_of(&site, "items.html");
    assert!(section(&items, "item-Edge").unwrap().contains("href=\"tags.html#tag-Sharp\""));
    assert!(site.files.contains_key("src/project/rules/bladesinger.oc.html"));
    let tags = text_of(&site, "tags.html");
    let sharp = section(&tags, "tag-Sharp").unwrap();
    assert!(sharp.contains("damage_bonus += 1"), "{sharp}");
    assert!(sharp.contains("href=\"items.html#item-Edge\""), "Used by: {sharp}");
}

/// An army of units of several figures (seed 003: "buy their armies, figure-by-figure") costs
/// on its page what the compiler counts against the war chest, each unit's row says its
/// figures, and the units' costs sum to it (the page counted one figure a unit: the shipped
/// Narube host "198 of a war chest of 750").
#[test]
fn an_army_of_figures_costs_on_its_page_what_the_war_chest_counts() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios");
    let read = |p: &str| std::fs::read_to_string(root.join(p)).unwrap();
    let mut host: oc_compiler::MemoryHost = [
        ("battlestorm-narube.oc", read("battlestorm-narube.oc")),
        ("maps/narube-river.map.toml", read("maps/narube-river.map.toml")),
    ]
    .into_iter()
    .collect();
    let mut ws = Workspace::new();
    let (c, unreadable) = ws.compile(&mut host, &["battlestorm-narube.oc".to_string()]);
    assert!(unreadable.is_empty() && c.error_count() == 0, "{:?}", c.diagnostics);
    let rules = c.rules.unwrap();
    let site = build(&Input::new("narube", &rules).with_files(&ws, &c.files));
    let page = text_of(&site, "scenarios.html");
    for army in &rules.armies {
        assert!(army.units.iter().any(|u| u.figures > 1), "{} has units of figures", army.name);
        let part = section(&page, &anchor(Kind::Army, &army.name)).unwrap();
        let total = oc_compiler::scenario::army_cost(&rules, army);
        let chest = rules.scenario(&army.scenario).unwrap().side(army.side).war_chest;
        assert!(part.contains(&format!("{total} of a war chest of {chest}")), "{}: {part}", army.name);
        assert!(part.contains(">figures<"), "{part}");
        let costs: i64 = army.units.iter().map(|u| oc_compiler::scenario::unit_cost(&rules, u)).sum();
        assert_eq!(costs, total);
        for u in &army.units {
            let row = format!("<td>{}</td>", u.figures);
            assert!(part.contains(&row), "{}: {row} in {part}", u.name);
        }
    }
}

/// An item's reach written as constants' arithmetic (seed 003's range classes, the Longbow's
/// `shot_min[P4] / 3 + 1..shot_reach[P4] / 3`) is given in tiles, as the engine reads it (a
/// review found the formula in the items table); its own entry says what it was written as. A
/// reach a unit's attributes give stays written.
#[test]
fn a_constant_reach_is_given_in_tiles() {
    let (_, site) = site_of("<std>/battlestorm.oc");
    let items = text_of(&site, "items.html");
    let longbow = section(&items, &anchor(Kind::Item, "Longbow")).unwrap();
    assert!(longbow.contains("2..9 (shot_min[P4] / 3 + 1..shot_reach[P4] / 3)"), "{longbow}");
    let row_start = items.find("href=\"#item-Longbow\"").or_else(|| items.find("#item-Longbow\"")).unwrap();
    let row = &items[row_start..items[row_start..].find("</tr>").map_or(items.len(), |e| row_start + e)];
    assert!(row.contains("<td>2..9</td>"), "{row}");
    // The Physic's reach is its user's Mag on the Staff Range table: written as it is.
    let (_, site) = site_of("<std>/ratings.oc");
    let physic = section(&text_of(&site, "items.html"), &anchor(Kind::Item, "Physic")).unwrap();
    assert!(physic.contains("1..staff_range[self.mag]"), "{physic}");
}
