//! `oc import tiled`: a TMX (what `oc export tiled` writes, or what Tiled saves) read back into
//! map TOML, with `roxmltree`; every problem a diagnostic spanning the TMX.

use super::IMPORT_MARK;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use oc_diag::{Diagnostic, FileId, Span};
use oc_model::Rules;

use super::reader::{class, properties, Reader};
use super::shapes::{self, Shape};
use super::side_word;
use super::tilesets::{self, ReadTileset};
use super::{LAYER, OFF_GRID, PROPERTY, UNKNOWN_OBJECT, UNKNOWN_TILE, UNSUPPORTED, XML};
use crate::map::{toml_str, RegionKind, Side, Tile};

fn parse_i64(s: &str) -> Option<i64> {
    s.trim().parse().ok()
}

/// A number attribute (Tiled writes whole pixels, but decimals are allowed).
fn number(node: roxmltree::Node, name: &str) -> Option<f64> {
    node.attribute(name).and_then(|v| v.trim().parse::<f64>().ok()).filter(|v| v.is_finite())
}

struct ImportedRegion {
    /// The object's id: regions keep the order they were drawn in, whatever their layers.
    id: u64,
    name: String,
    kind: RegionKind,
    side: Option<Side>,
    tiles: Vec<Tile>,
    units: Option<i64>,
}

fn region_kind(word: &str) -> Option<RegionKind> {
    Some(match word {
        "deployment" => RegionKind::Deployment,
        "seize" => RegionKind::Seize,
        "escape" => RegionKind::Escape,
        "raze" => RegionKind::Raze,
        "defend" => RegionKind::Defend,
        "label" => RegionKind::Label,
        _ => return None,
    })
}

/// Standard base64 decoding (for layers Tiled stored as uncompressed base64).
fn base64_decode(text: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0u32);
    for c in text.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
        }
    }
    Some(out)
}

/// The cells of a tile layer's `<data>`: each gid (flip bits cleared) with the span to point
/// at, or `None` after reporting why the data cannot be read.
fn cells(r: &mut Reader, data: roxmltree::Node) -> Option<Vec<(u32, Span)>> {
    const FLIPS: u32 = 0xF000_0000;
    if data.attribute("compression").is_some() {
        let span = r.attr_span(data, "compression");
        r.error(
            UNSUPPORTED,
            span,
            format!("the terrain layer is compressed ({})", data.attribute("compression").unwrap_or_default()),
            "in Tiled, set Map > Map Properties > Tile Layer Format to CSV and save again",
        );
        return None;
    }
    if data.children().any(|c| c.has_tag_name("chunk")) {
        let span = r.node_span(data);
        r.error(
            UNSUPPORTED,
            span,
            "the terrain layer is stored in chunks (an infinite map)".into(),
            "uncheck Infinite in Tiled's Map Properties",
        );
        return None;
    }
    match data.attribute("encoding") {
        Some("csv") => {
            let text_node = data.first_child().filter(|c| c.is_text());
            let text = text_node.and_then(|t| t.text()).unwrap_or("");
            let base = text_node.map_or(data.range().start, |t| t.range().start);
            let mut out = Vec::new();
            let mut start = 0;
            for piece in text.split(',') {
                let trimmed = piece.trim();
                let lead = piece.len() - piece.trim_start().len();
                let at = base + start + lead;
                let span = r.span(at..at + trimmed.len().max(1));
                start += piece.len() + 1;
                if trimmed.is_empty() && text.trim().is_empty() {
                    continue;
                }
                match trimmed.parse::<u64>() {
                    Ok(gid) if gid <= u64::from(u32::MAX) => out.push(((gid as u32) & !FLIPS, span)),
                    _ => {
                        r.error(
                            LAYER,
                            span,
                            format!("`{trimmed}` is not a tile number"),
                            "the CSV of a tile layer holds whole numbers separated by commas",
                        );
                        return None;
                    }
                }
            }
            Some(out)
        }
        Some("base64") => {
            let span = r.node_span(data);
            let Some(bytes) = base64_decode(data.text().unwrap_or("")) else {
                r.error(
                    LAYER,
                    span,
                    "the terrain layer's base64 does not decode".into(),
                    "save the map again in Tiled with the CSV layer format",
                );
                return None;
            };
            if bytes.len() % 4 != 0 {
                r.error(
                    LAYER,
                    span,
                    "the terrain layer's data is not a whole number of tiles".into(),
                    "save the map again in Tiled with the CSV layer format",
                );
                return None;
            }
            Some(
                bytes
                    .chunks(4)
                    .map(|b| {
                        let v = u32::from_le_bytes([
                            b.first().copied().unwrap_or(0),
                            b.get(1).copied().unwrap_or(0),
                            b.get(2).copied().unwrap_or(0),
                            b.get(3).copied().unwrap_or(0),
                        ]);
                        (v & !FLIPS, span)
                    })
                    .collect(),
            )
        }
        // Tiles as XML: `<tile/>` an empty square, `<tile gid="N"/>` a tile; a gid that is no
        // tile number is said as the CSV's is (it was taken for an empty square).
        None => {
            let mut out = Vec::new();
            for c in data.children().filter(|c| c.has_tag_name("tile")) {
                let gid = match c.attribute("gid") {
                    None => 0,
                    Some(g) => match g.trim().parse::<u32>() {
                        Ok(gid) => gid,
                        Err(_) => {
                            let span = r.attr_span(c, "gid");
                            r.error(
                                LAYER,
                                span,
                                format!("`{g}` is not a tile number"),
                                "a tile's gid is a whole number from 0 to 4294967295",
                            );
                            return None;
                        }
                    },
                };
                out.push((gid & !FLIPS, r.node_span(c)));
            }
            Some(out)
        }
        Some(other) => {
            let span = r.attr_span(data, "encoding");
            r.error(UNSUPPORTED, span, format!("the layer encoding `{other}`"), "Tiled writes csv, base64 or XML; choose CSV");
            None
        }
    }
}

/// Reads a TMX into map TOML. `name` is the map's name when the TMX has no `name` property;
/// `rules`, when given, checks the terrain names and gives their symbols (unless the TMX names
/// rules of its own in a `rules` property).
/// Returns the TOML when nothing was an error, and every diagnostic (spans into the TMX).
/// A tileset kept in a file of its own is not read (one `oc::tiled::tileset` error): see
/// [`import_with`].
pub fn import(file: FileId, text: &str, name: &str, rules: Option<&Rules>) -> (Option<String>, Vec<Diagnostic>) {
    import_with(file, text, name, rules, &mut |_| Err("this import reads the TMX alone".to_string()))
}

/// [`import`], reading each tileset kept in a file of its own (`source="terrain.tsx"`) with
/// `read_tileset` (the caller resolves the path from the TMX's folder, inside the project).
pub fn import_with(
    file: FileId,
    text: &str,
    name: &str,
    rules: Option<&Rules>,
    read_tileset: ReadTileset,
) -> (Option<String>, Vec<Diagnostic>) {
    let mut r = Reader { file, diags: Vec::new() };
    let doc = match roxmltree::Document::parse(text) {
        Ok(d) => d,
        Err(e) => {
            let pos = e.pos();
            let offset = text.split_inclusive('\n').take(pos.row.saturating_sub(1) as usize).map(str::len).sum::<usize>()
                + text
                    .split_inclusive('\n')
                    .nth(pos.row.saturating_sub(1) as usize)
                    .map_or(0, |l| l.chars().take(pos.col.saturating_sub(1) as usize).map(char::len_utf8).sum());
            let offset = offset.min(text.len());
            let span = r.span(offset..(offset + 1).min(text.len()).max(offset));
            r.error(XML, span, format!("not well-formed XML: {e}"), "open and save the map in Tiled, or fix the XML here");
            return (None, r.diags);
        }
    };
    let root = doc.root_element();
    if !root.has_tag_name("map") {
        let span = r.node_span(root);
        r.error(XML, span, format!("the root element is <{}>, not <map>", root.tag_name().name()), "a TMX file is a Tiled <map>");
        return (None, r.diags);
    }
    if let Some(o) = root.attribute("orientation").filter(|o| *o != "orthogonal") {
        let span = r.attr_span(root, "orientation");
        r.error(UNSUPPORTED, span, format!("a {o} map"), "oc maps are orthogonal: squares in rows and columns");
    }
    if root.attribute("infinite") == Some("1") {
        let span = r.attr_span(root, "infinite");
        r.error(UNSUPPORTED, span, "an infinite map".into(), "uncheck Infinite in Tiled's Map Properties");
    }
    let int_attr = |n: roxmltree::Node, a: &str| n.attribute(a).and_then(parse_i64);
    let (width, height) = (int_attr(root, "width").unwrap_or(0), int_attr(root, "height").unwrap_or(0));
    let (tw, th) = (int_attr(root, "tilewidth").unwrap_or(0), int_attr(root, "tileheight").unwrap_or(0));
    if !(1..=crate::MAX_SIDE).contains(&width) || !(1..=crate::MAX_SIDE).contains(&height) {
        let span = r.node_span(root);
        r.error(UNSUPPORTED, span, format!("a map of {width} by {height} tiles"), "oc maps are 1 to 512 tiles on each side");
    }
    if tw != th || !(8..=1024).contains(&tw) {
        let span = r.attr_span(root, "tilewidth");
        r.error(
            UNSUPPORTED,
            span,
            format!("tiles of {tw} by {th} pixels"),
            "oc maps have square tiles of 8 to 1024 pixels (the Atlas uses 70)",
        );
    }
    if r.diags.iter().any(Diagnostic::is_error) {
        return (None, r.diags);
    }
    let g = tw;

    // Map properties.
    let props = properties(root);
    let map_name = props.get("name").map_or(name.to_string(), |(v, _)| v.clone());
    let mut rounds = None;
    if let Some((v, node)) = props.get("rounds") {
        match parse_i64(v).filter(|n| *n >= 1) {
            Some(n) => rounds = Some(n),
            None => {
                let span = r.attr_span(*node, "value");
                r.error(PROPERTY, span, format!("rounds = `{v}`"), "rounds is the time limit: a whole number of at least 1");
            }
        }
    }
    let image = props.get("image").map(|(v, _)| v.clone()).filter(|v| !v.is_empty());
    let rules_path = props.get("rules").map(|(v, _)| v.clone()).filter(|v| !v.is_empty());
    // A map with its own rules is not checked against the standard library's terrains here:
    // `oc check` checks the new map against those rules.
    let rules = if rules_path.is_some() { None } else { rules };
    let allow: Vec<String> = props
        .get("allow")
        .map(|(v, _)| v.split(',').map(str::trim).filter(|s| !s.is_empty()).map(str::to_string).collect())
        .unwrap_or_default();

    let sets = tilesets::read(&mut r, root, rules, read_tileset);

    // The terrain layer.
    let layers: Vec<roxmltree::Node> = root.children().filter(|c| c.has_tag_name("layer")).collect();
    let layer = layers
        .iter()
        .find(|l| l.attribute("name").is_some_and(|n| n.eq_ignore_ascii_case("terrain")))
        .or(layers.first())
        .copied();
    let mut grid: Vec<Option<String>> = Vec::new();
    match layer {
        None => {
            let span = r.node_span(root);
            r.error(LAYER, span, "the map has no tile layer".into(), "add a tile layer named `terrain` and paint every square");
        }
        Some(layer) => {
            let (lw, lh) = (int_attr(layer, "width").unwrap_or(width), int_attr(layer, "height").unwrap_or(height));
            let data = layer.children().find(|c| c.has_tag_name("data"));
            if (lw, lh) != (width, height) {
                let span = r.node_span(layer);
                r.error(
                    LAYER,
                    span,
                    format!("the terrain layer is {lw} by {lh}; the map is {width} by {height}"),
                    "resize the layer to the map (Map > Resize Map)",
                );
            } else if let Some(cells) = data.and_then(|d| cells(&mut r, d)) {
                if cells.len() as i64 != width * height {
                    let span = data.map_or(r.node_span(layer), |d| r.node_span(d));
                    r.error(
                        LAYER,
                        span,
                        format!("the terrain layer holds {} tiles; the map has {}", cells.len(), width * height),
                        "save the map again in Tiled",
                    );
                } else {
                    let mut reported: BTreeSet<u32> = BTreeSet::new();
                    for (i, (gid, span)) in cells.iter().enumerate() {
                        let (x, y) = (i as i64 % width, i as i64 / width);
                        let terrain = sets.terrain_of.get(gid).cloned().flatten();
                        let covered = sets.unread(*gid);
                        if terrain.is_none() && !covered && reported.len() < 20 && (*gid == 0 || reported.insert(*gid)) {
                            let message = if *gid == 0 {
                                format!("the square ({x}, {y}) is empty")
                            } else if sets.holds(*gid) {
                                format!("the tile {gid} at ({x}, {y}) names no terrain")
                            } else {
                                format!("the tile {gid} at ({x}, {y}) is in no tileset of the map")
                            };
                            if *gid == 0 {
                                reported.insert(0);
                            }
                            r.error(
                                UNKNOWN_TILE,
                                *span,
                                message,
                                "paint the square with a terrain tile, or give the tile a `terrain` property",
                            );
                        }
                        grid.push(if sets.bad_terrain.contains(gid) { None } else { terrain });
                    }
                }
            }
            if data.is_none() {
                let span = r.node_span(layer);
                r.error(LAYER, span, "the terrain layer has no data".into(), "paint the layer in Tiled and save again");
            }
        }
    }

    // Objects.
    let mut regions: Vec<ImportedRegion> = Vec::new();
    let mut chests: Vec<(Tile, String)> = Vec::new();
    let mut doors: Vec<Tile> = Vec::new();
    let mut destructibles: Vec<(Tile, Option<i64>)> = Vec::new();
    let in_map = |t: Tile| t.x >= 0 && t.y >= 0 && t.x < width && t.y < height;
    // The squares the regions read so far cover in all, bounded as a map's are
    // (`MAX_REGION_TILES`): past it, one error and no more regions (each may cover the map).
    let mut region_tiles = 0usize;
    let mut too_many = false;
    for group in root.descendants().filter(|c| c.has_tag_name("objectgroup")) {
        for obj in group.children().filter(|c| c.has_tag_name("object")) {
            let oprops = properties(obj);
            let kind = oprops.get("kind").map(|(v, _)| v.as_str()).or_else(|| class(obj)).unwrap_or("");
            let (x, y) = (number(obj, "x").unwrap_or(0.0), number(obj, "y").unwrap_or(0.0));
            let (w, h) = (number(obj, "width").unwrap_or(0.0), number(obj, "height").unwrap_or(0.0));
            let rotation = number(obj, "rotation").unwrap_or(0.0);
            // A tile object stands on its bottom-left corner.
            let y = if obj.attribute("gid").is_some() { y - h } else { y };
            let gf = g as f64;
            let shape = shapes::shape(obj, w, h);
            let (cx, cy) = shapes::centre(&shape, x, y, rotation);
            let centre = Tile { x: (cx / gf).floor() as i64, y: (cy / gf).floor() as i64 };
            let span = r.node_span(obj);
            let label = obj
                .attribute("name")
                .filter(|n| !n.is_empty())
                .map_or_else(|| format!("#{}", obj.attribute("id").unwrap_or("?")), |n| format!("`{n}`"));
            let placed = |r: &mut Reader, what: &str| -> Option<Tile> {
                if in_map(centre) {
                    Some(centre)
                } else {
                    r.error(
                        OFF_GRID,
                        span,
                        format!("the {what} {label} is off the map, at ({}, {}) pixels", x, y),
                        "move it onto the map's squares",
                    );
                    None
                }
            };
            match kind {
                "chest" => {
                    let Some(t) = placed(&mut r, "chest") else { continue };
                    match oprops.get("item").map(|(v, _)| v.trim()).filter(|v| !v.is_empty()) {
                        Some(item) => chests.push((t, item.to_string())),
                        None => r.error(
                            PROPERTY,
                            span,
                            format!("the chest {label} has no `item`"),
                            "add a string property `item` naming what the chest holds",
                        ),
                    }
                }
                "door" => {
                    if let Some(t) = placed(&mut r, "door") {
                        doors.push(t);
                    }
                }
                "destructible" => {
                    let Some(t) = placed(&mut r, "destructible") else { continue };
                    let hp = match oprops.get("hp") {
                        None => None,
                        Some((v, p)) => match parse_i64(v).filter(|n| *n >= 1) {
                            Some(n) => Some(n),
                            None => {
                                let span = r.attr_span(*p, "value");
                                r.error(PROPERTY, span, format!("hp = `{v}`"), "hp is a whole number of at least 1");
                                continue;
                            }
                        },
                    };
                    destructibles.push((t, hp));
                }
                word => match region_kind(word) {
                    Some(_) if too_many => {}
                    Some(kind) => {
                        let name = obj.attribute("name").unwrap_or("").trim().to_string();
                        if name.is_empty() {
                            r.error(
                                PROPERTY,
                                span,
                                format!("the {word} region {label} has no name"),
                                "give the object a name: scenarios refer to regions by name",
                            );
                            continue;
                        }
                        let side = match oprops.get("side") {
                            None => None,
                            Some((v, p)) => match v.as_str() {
                                "attacker" => Some(Side::Attacker),
                                "defender" => Some(Side::Defender),
                                other => {
                                    let span = r.attr_span(*p, "value");
                                    r.error(PROPERTY, span, format!("side = `{other}`"), "side is attacker or defender");
                                    continue;
                                }
                            },
                        };
                        if kind == RegionKind::Deployment && side.is_none() {
                            r.error(
                                PROPERTY,
                                span,
                                format!("the deployment zone `{name}` has no side"),
                                "add a property `side`: attacker or defender",
                            );
                            continue;
                        }
                        let units = match oprops.get("units") {
                            None => None,
                            Some((v, p)) => match parse_i64(v).filter(|n| *n >= 1) {
                                Some(n) => Some(n),
                                None => {
                                    let span = r.attr_span(*p, "value");
                                    r.error(PROPERTY, span, format!("units = `{v}`"), "units is a whole number of at least 1");
                                    continue;
                                }
                            },
                        };
                        let tiles = match oprops.get("tiles") {
                            Some((v, p)) => {
                                let parsed: Option<Vec<Tile>> = v
                                    .split(';')
                                    .filter(|s| !s.trim().is_empty())
                                    .map(|pair| {
                                        let mut it = pair.split_whitespace().map(parse_i64);
                                        match (it.next().flatten(), it.next().flatten(), it.next()) {
                                            (Some(x), Some(y), None) => Some(Tile { x, y }),
                                            _ => None,
                                        }
                                    })
                                    .collect();
                                match parsed {
                                    Some(t) if !t.is_empty() => {
                                        if let Some(off) = t.iter().find(|t| !in_map(**t)) {
                                            let span = r.attr_span(*p, "value");
                                            r.error(
                                                OFF_GRID,
                                                span,
                                                format!("the region `{name}` lists ({}, {}), off the map", off.x, off.y),
                                                "list only squares of the map",
                                            );
                                            continue;
                                        }
                                        t
                                    }
                                    _ => {
                                        let span = r.attr_span(*p, "value");
                                        r.error(
                                            PROPERTY,
                                            span,
                                            format!("tiles = `{v}`"),
                                            "tiles lists squares as `x y` pairs separated by `;`, like `0 5;1 5`",
                                        );
                                        continue;
                                    }
                                }
                            }
                            // A polygon, an ellipse, a point or a turned rectangle: its squares.
                            None if !matches!(shape, Shape::Rectangle { .. }) || rotation != 0.0 => {
                                let Some(tiles) = shapes::area(&shape, x, y, rotation, gf, width, height) else {
                                    let what = if shape == Shape::Text { "a text" } else { "a line (a polyline)" };
                                    r.error(
                                        UNSUPPORTED,
                                        span,
                                        format!("the region `{name}` is {what}, which holds no squares"),
                                        "draw the region as a rectangle, a polygon or an ellipse",
                                    );
                                    continue;
                                };
                                if let Some(off) = tiles.iter().find(|t| !in_map(**t)) {
                                    r.error(
                                        OFF_GRID,
                                        span,
                                        format!("the region `{name}` reaches ({}, {}), off the map", off.x, off.y),
                                        "keep the shape inside the map",
                                    );
                                    continue;
                                }
                                if tiles.is_empty() {
                                    r.error(
                                        OFF_GRID,
                                        span,
                                        format!("the region `{name}` holds the centre of no square"),
                                        "a region is the squares whose centres its shape holds: draw it over them",
                                    );
                                    continue;
                                }
                                tiles
                            }
                            None => {
                                let aligned = [x, y, w, h].iter().all(|v| (v / gf).fract() == 0.0) && w > 0.0 && h > 0.0;
                                let (tx, ty, tw, th) = ((x / gf) as i64, (y / gf) as i64, (w / gf) as i64, (h / gf) as i64);
                                let past = |start: i64, len: i64, side: i64| start.checked_add(len).is_none_or(|end| end > side);
                                if !aligned || tx < 0 || ty < 0 || past(tx, tw, width) || past(ty, th, height) {
                                    r.error(
                                        OFF_GRID,
                                        span,
                                        format!("the region `{name}` is not on the map's squares ({x}, {y}, {w} by {h} pixels at {g} a square)"),
                                        "snap it to the grid inside the map, or give it a `tiles` property",
                                    );
                                    continue;
                                }
                                (ty..ty + th).flat_map(|yy| (tx..tx + tw).map(move |xx| Tile { x: xx, y: yy })).collect()
                            }
                        };
                        region_tiles = region_tiles.saturating_add(tiles.len());
                        if region_tiles > crate::MAX_REGION_TILES {
                            r.error(
                                UNSUPPORTED,
                                span,
                                format!(
                                    "the regions cover more than {} squares in all by the region `{name}`; the regions after it are not read",
                                    crate::MAX_REGION_TILES
                                ),
                                "a map's regions cover at most that many squares together: draw fewer or smaller regions",
                            );
                            too_many = true;
                            continue;
                        }
                        let id = obj.attribute("id").and_then(|i| i.parse::<u64>().ok()).unwrap_or(u64::MAX);
                        regions.push(ImportedRegion { id, name, kind, side, tiles, units });
                    }
                    None => {
                        let what = if word.is_empty() { "has no class".to_string() } else { format!("is a `{word}`") };
                        r.warning(
                            UNKNOWN_OBJECT,
                            span,
                            format!("the object {label} {what}: it is not part of the map"),
                            "set its class to a region kind (deployment, seize, escape, raze, defend, label), chest, door or destructible",
                        );
                    }
                },
            }
        }
    }
    if r.diags.iter().any(Diagnostic::is_error) || grid.len() as i64 != width * height {
        return (None, r.diags);
    }
    regions.sort_by_key(|r| r.id);

    // Symbols: the terrain's own symbol in the rules, or a spare one.
    let mut symbol_of: BTreeMap<String, char> = BTreeMap::new();
    let mut taken: BTreeSet<char> = BTreeSet::new();
    for t in grid.iter().flatten() {
        if symbol_of.contains_key(t) {
            continue;
        }
        let own = rules.and_then(|rl| rl.terrain(t)).and_then(|tr| tr.symbol.as_deref()).and_then(|s| s.chars().next());
        let c = own
            .filter(|c| !taken.contains(c) && *c != '"' && *c != '\\' && !c.is_control())
            .or_else(|| {
                ('A'..='Z').chain('a'..='z').chain('0'..='9').chain("!#$%&*+-/:;<=>?@^_|~".chars()).find(|c| !taken.contains(c))
            })
            .or_else(|| (0xA1u32..0x2000).filter_map(char::from_u32).find(|c| !taken.contains(c) && !c.is_whitespace()))
            .unwrap_or('?');
        taken.insert(c);
        symbol_of.insert(t.clone(), c);
    }
    let mut s = String::new();
    let _ = writeln!(s, "{IMPORT_MARK}");
    let _ = writeln!(s, "name = {}", toml_str(&map_name));
    let _ = writeln!(s, "width = {width}");
    let _ = writeln!(s, "height = {height}");
    let _ = writeln!(s, "grid = {g}");
    if let Some(image) = &image {
        let _ = writeln!(s, "image = {}", toml_str(image));
    }
    if let Some(rounds) = rounds {
        let _ = writeln!(s, "rounds = {rounds}");
    }
    if let Some(rules_path) = &rules_path {
        let _ = writeln!(s, "rules = {}", toml_str(rules_path));
    }
    if !allow.is_empty() {
        let _ = writeln!(s, "allow = [{}]", allow.iter().map(|a| toml_str(a)).collect::<Vec<_>>().join(", "));
    }
    let _ = writeln!(s, "rows = [");
    for row in grid.chunks(width.max(1) as usize) {
        let line: String = row.iter().map(|t| t.as_ref().and_then(|t| symbol_of.get(t)).copied().unwrap_or('?')).collect();
        let _ = writeln!(s, "  {},", toml_str(&line));
    }
    let _ = writeln!(s, "]\n\n[legend]");
    let mut legend: Vec<(char, &String)> = symbol_of.iter().map(|(t, c)| (*c, t)).collect();
    legend.sort();
    for (c, terrain) in legend {
        let _ = writeln!(s, "{} = {}", toml_str(&c.to_string()), toml_str(terrain));
    }
    for region in &regions {
        let _ = writeln!(s, "\n[[regions]]\nname = {}\nkind = \"{}\"", toml_str(&region.name), region.kind.word());
        if let Some(side) = region.side {
            let _ = writeln!(s, "side = \"{}\"", side_word(side));
        }
        let set: BTreeSet<Tile> = region.tiles.iter().copied().collect();
        let (x0, y0) = (set.iter().map(|t| t.x).min().unwrap_or(0), set.iter().map(|t| t.y).min().unwrap_or(0));
        let (x1, y1) = (set.iter().map(|t| t.x).max().unwrap_or(0), set.iter().map(|t| t.y).max().unwrap_or(0));
        if set.len() as i64 == (x1 - x0 + 1) * (y1 - y0 + 1) {
            let _ = writeln!(s, "rect = [{x0}, {y0}, {}, {}]", x1 - x0 + 1, y1 - y0 + 1);
        } else {
            let list: Vec<String> = region.tiles.iter().map(|t| format!("[{}, {}]", t.x, t.y)).collect();
            let _ = writeln!(s, "tiles = [{}]", list.join(", "));
        }
        if let Some(units) = region.units {
            let _ = writeln!(s, "units = {units}");
        }
    }
    for (t, item) in &chests {
        let _ = writeln!(s, "\n[[chests]]\nat = [{}, {}]\nitem = {}", t.x, t.y, toml_str(item));
    }
    for t in &doors {
        let _ = writeln!(s, "\n[[doors]]\nat = [{}, {}]", t.x, t.y);
    }
    for (t, hp) in &destructibles {
        let _ = writeln!(s, "\n[[destructibles]]\nat = [{}, {}]", t.x, t.y);
        if let Some(hp) = hp {
            let _ = writeln!(s, "hp = {hp}");
        }
    }
    (Some(s), r.diags)
}
