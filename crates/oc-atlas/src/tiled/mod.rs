//! Tiled maps (TMX) both ways. The export writes everything a map says: the terrain layer
//! (one tileset tile per terrain, drawn as `oc render` draws it — colour and pattern — and named
//! by its `terrain` property; the tileset's terrain set, one Wang colour a terrain, paints with
//! Tiled's terrain brush), the map's properties (`name`, `rounds`, `image`, `rules`, `allow`),
//! object layers of regions, one per outline colour of `oc render` (`kind`, `side`, `units`, and
//! `tiles` when a region is not its bounding rectangle), and one of things (chests with their
//! `item`, doors, destructibles with their `hp`). The import reads the same back — and what
//! Tiled itself writes, polygons, ellipses and points included, and tilesets kept in files of
//! their own, which the caller reads (`import_with`) — into map TOML; whatever it cannot place
//! is a diagnostic pointing into the TMX.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use image::RgbImage;

use crate::map::{Map, RegionKind, Side, Tile};
use crate::render::{pattern, region_colour, terrain_colour};

mod import;
mod reader;
mod shapes;
mod tilesets;
pub use import::{import, import_with};
pub use tilesets::ReadTileset;

/// The first line of every map `oc import tiled` writes: how the next import knows a map it may
/// replace (with `--force`) from one written by hand (a source, never replaced).
pub const IMPORT_MARK: &str = "# Imported by `oc import tiled`.";

oc_diag::codes! {
    XML = "oc::tiled::xml", "the TMX file is not well-formed XML",
"`oc import tiled` reads the TMX format, which is XML. This file does not parse: the message \
says what the XML reader expected at the place shown.\n\nFix: open and save the map in Tiled, \
or correct the file by hand at that place.";
    UNSUPPORTED = "oc::tiled::unsupported", "the TMX uses a feature oc maps do not have",
"oc maps are orthogonal, finite, with square tiles of 8 to 1024 pixels and at most 512 tiles a \
side, and the import reads tile layers stored as CSV, uncompressed base64 or XML. Isometric or \
hexagonal maps, infinite maps and compressed layers are refused with this code, as is a region \
drawn as a line or a text, which holds no squares, and regions covering more than 1,048,576 \
squares in all (as a map written by hand may).\n\nFix: in Tiled, set Map > Map Properties > \
Tile Layer Format to CSV.";
    LAYER = "oc::tiled::layer", "the terrain layer is missing or does not fit the map",
"The import reads the terrain from one tile layer: the one named `terrain`, or else the first. \
It must be as wide and as tall as the map and hold one tile per square.\n\nFix: add a tile layer \
named `terrain` covering the whole map.";
    UNKNOWN_TILE = "oc::tiled::unknown_tile", "a square of the terrain layer has no terrain",
"Every square of the terrain layer must hold a tile of a tileset whose tile names its terrain \
(a `terrain` property, or the tile's class / type). An empty square, or a tile without a \
terrain name, cannot become a map symbol.\n\nFix: paint the square with a terrain tile, or give \
the tile a `terrain` property in the tileset editor.";
    UNKNOWN_TERRAIN = "oc::tiled::unknown_terrain", "a tileset tile names a terrain the rules do not have",
"A tile's `terrain` names a terrain of the compiled rules (Plains, Forest, Fort ...).\n\nFix: use \
the suggested name in the tileset editor, or define the terrain in the DSL.";
    UNKNOWN_OBJECT = "oc::tiled::unknown_object", "an object is neither a region, a chest, a door nor a destructible",
"A warning: the import reads objects by their `kind` property or their class / type: a region \
kind (deployment, seize, escape, raze, defend, label), `chest`, `door` or `destructible`. \
Anything else (a note, a decoration) is left out of the map.\n\nFix: set the object's class to \
one of those, or remove it if it is not part of the map.";
    PROPERTY = "oc::tiled::property", "a property is missing or has a wrong value",
"Map properties: `name`, `rounds` (a positive whole number), `image`, `rules`, `allow` (codes \
separated by commas). Regions need a name, a kind, `side` attacker or defender (deployment \
zones must have one), `units` a positive whole number, and `tiles` as `x y;x y`. Chests need \
an `item`; a destructible's `hp` is a positive whole number.\n\nFix: correct the property in \
Tiled's Properties panel.";
    OFF_GRID = "oc::tiled::off_grid", "an object is not on the map's squares",
"A region's rectangle must start and end on grid lines (x, y, width and height multiples of the \
tile size); a region drawn as a polygon, an ellipse, a turned rectangle or a point is the squares \
whose centres it holds (a point: its square), and must hold one and stay on the map; every object \
must lie on the map.\n\nFix: turn on Snap to Grid in Tiled and redraw the object, or give the \
region a `tiles` property.";
    TILESET = "oc::tiled::tileset", "a tileset kept in a file of its own cannot be read",
"A map saved by Tiled usually keeps its tileset in a file of its own (`<tileset firstgid=\"1\" \
source=\"terrain.tsx\"/>`). `oc import tiled` reads that file, relative to the TMX's folder, \
when it is a regular file inside the project (the folder of `oc.toml`, or else the TMX's own \
folder) holding a Tiled `<tileset>`. A tileset that is missing, leads outside the project, or \
is not a tileset is this error, once: the squares painted with its tiles are not reported one \
by one. A tile of such a file naming a terrain the rules lack is `oc::tiled::unknown_terrain`, \
shown at the map's `source`.\n\nFix: move the tileset file into the project beside the map, or \
embed it in the map: in Tiled, select the tileset and use Map > Embed Tileset, then save (or \
`tiled --export-map --embed-tilesets IN.tmx OUT.tmx`).";
}

/// `s` as XML text or an attribute's value: markup escaped; a line break, a tab and a carriage
/// return as character references (an attribute's value keeps them so, where as they are a
/// reader turns them into spaces); a character XML 1.0 cannot hold at all (other control
/// characters, U+FFFE, U+FFFF) as U+FFFD, so Tiled and `oc import tiled` read the file.
fn xml(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("&#10;"),
            '\t' => out.push_str("&#9;"),
            '\r' => out.push_str("&#13;"),
            '\u{0}'..='\u{1f}' | '\u{fffe}' | '\u{ffff}' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

pub(crate) fn side_word(s: Side) -> &'static str {
    match s {
        Side::Attacker => "attacker",
        Side::Defender => "defender",
    }
}

/// The comment every exported TMX carries (Tiled ignores it); `oc export` recognises its own
/// earlier output by it.
pub const TMX_MARK: &str = "<!-- written by oc export tiled -->";

/// The terrains of the tileset, in tile order: those the map uses (by name, so a map's tiles
/// keep their numbers), then the others of `rules`, so that a map edited in Tiled may be
/// painted with any terrain its rules have, not only those it had.
/// Where one row of them all would pass the picture bounds (a large `grid`), the map's own only.
fn palette<'a>(map: &'a Map, rules: Option<&'a oc_model::Rules>) -> Vec<&'a str> {
    let used: BTreeSet<&str> = map.tiles().filter_map(|t| map.terrain(t)).collect();
    let mut all: Vec<&str> = used.into_iter().collect();
    let own = all.len();
    for name in rules.into_iter().flat_map(|r| &r.terrains).map(|t| t.name.as_str()) {
        if !all.contains(&name) {
            all.push(name);
        }
    }
    if all.len() as u64 * u64::from(map.grid) > u64::from(crate::render::MAX_RENDER_SIDE) {
        all.truncate(own);
    }
    all
}

/// The size of the tileset [`tiled_with`] draws (one square per terrain of [`palette`]), or
/// why it would pass the picture bounds of [`crate::render::MAX_RENDER_SIDE`].
pub fn tileset_size(map: &Map, rules: Option<&oc_model::Rules>) -> Result<(u32, u32), crate::render::PictureError> {
    let used = palette(map, rules).len().max(1) as u64;
    let w = used * u64::from(map.grid);
    if w > u64::from(crate::render::MAX_RENDER_SIDE) {
        return Err(crate::render::PictureError::TilesetTooWide { width: w, terrains: used, grid: map.grid });
    }
    Ok((w as u32, map.grid))
}

fn property(s: &mut String, indent: &str, name: &str, ty: Option<&str>, value: &str) {
    let ty = ty.map(|t| format!(r#" type="{t}""#)).unwrap_or_default();
    let _ = writeln!(s, r#"{indent}<property name="{name}"{ty} value="{}"/>"#, xml(value));
}

fn hex(c: image::Rgb<u8>) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0[0], c.0[1], c.0[2])
}

/// A Tiled map: the TMX text, and the tileset image it refers to as `tileset_png` (one square
/// per terrain the map uses, as `oc render` draws it). Write both side by side. Without rules a
/// terrain's pattern comes from its name alone; see [`tiled_with`].
pub fn tiled(map: &Map, tileset_png: &str) -> (String, RgbImage) {
    tiled_with(map, None, tileset_png)
}

/// [`tiled`] with the map's `rules`: the patterns of home-brew terrains from them, and a
/// tileset that holds every terrain they have ([`palette`]), the map's first.
pub fn tiled_with(map: &Map, rules: Option<&oc_model::Rules>, tileset_png: &str) -> (String, RgbImage) {
    let g = map.grid;
    let used: Vec<&str> = palette(map, rules);
    let count = used.len().max(1) as u32;
    let mut tileset = RgbImage::from_pixel(count * g, g, crate::render::UNKNOWN);
    for (i, name) in used.iter().enumerate() {
        let colour = terrain_colour(name);
        let x0 = i as u32 * g;
        for y in 0..g {
            for x in 0..g {
                tileset.put_pixel(x0 + x, y, colour);
            }
        }
        let p = pattern::pattern(name, rules.and_then(|r| r.terrain(name)));
        pattern::draw(&mut tileset, x0, 0, g, p, pattern::ink(colour));
        // The grid line `oc render` draws along each square's top and left.
        for k in 0..g {
            tileset.put_pixel(x0 + k, 0, crate::render::GRID_LINE);
            tileset.put_pixel(x0, k, crate::render::GRID_LINE);
        }
    }
    let gid: BTreeMap<&str, usize> = used.iter().enumerate().map(|(i, n)| (*n, i + 1)).collect();
    let things = map.chests.len() + map.doors.len() + map.destructibles.len();
    // One object layer per region colour, in the order the colours first appear.
    let mut groups: Vec<(RegionKind, Option<Side>)> = Vec::new();
    for r in &map.regions {
        let key = (r.kind, r.side.filter(|_| r.kind == RegionKind::Deployment));
        if !groups.contains(&key) {
            groups.push(key);
        }
    }
    let things_layer = groups.len() + 2;
    let mut s = String::new();
    let _ = writeln!(s, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(s, "{TMX_MARK}");
    let _ = writeln!(
        s,
        r#"<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down" width="{}" height="{}" tilewidth="{g}" tileheight="{g}" infinite="0" nextlayerid="{}" nextobjectid="{}">"#,
        map.width,
        map.height,
        things_layer + 1,
        map.regions.len() + things + 1
    );
    let _ = writeln!(s, r#" <properties>"#);
    if !map.allow.is_empty() {
        let allow: Vec<&str> = map.allow.iter().map(|(a, _)| a.as_str()).collect();
        property(&mut s, "  ", "allow", None, &allow.join(","));
    }
    if let Some((image, _)) = &map.image {
        property(&mut s, "  ", "image", Some("file"), image);
    }
    property(&mut s, "  ", "name", None, &map.name);
    if let Some(rounds) = map.rounds {
        property(&mut s, "  ", "rounds", Some("int"), &rounds.to_string());
    }
    if let Some((rules, _)) = &map.rules {
        property(&mut s, "  ", "rules", Some("file"), rules);
    }
    let _ = writeln!(s, r#" </properties>"#);
    let _ = writeln!(
        s,
        r#" <tileset firstgid="1" name="terrain" tilewidth="{g}" tileheight="{g}" tilecount="{count}" columns="{count}">"#
    );
    let _ = writeln!(s, r#"  <image source="{}" width="{}" height="{g}"/>"#, xml(tileset_png), count * g);
    for (i, name) in used.iter().enumerate() {
        let _ = writeln!(s, r#"  <tile id="{i}" type="{}">"#, xml(name));
        let _ = writeln!(s, r#"   <properties>"#);
        property(&mut s, "    ", "terrain", None, name);
        let _ = writeln!(s, r#"   </properties>"#);
        let _ = writeln!(s, r#"  </tile>"#);
    }
    // A terrain set to paint with Tiled's terrain brush: one colour a terrain, its tile all of it
    // (no transitions: each square is one terrain).
    let _ = writeln!(s, r#"  <wangsets>"#);
    let _ = writeln!(s, r#"   <wangset name="terrain" type="mixed" tile="-1">"#);
    for (i, name) in used.iter().enumerate() {
        let _ = writeln!(
            s,
            r#"    <wangcolor name="{}" color="{}" tile="{i}" probability="1"/>"#,
            xml(name),
            hex(terrain_colour(name))
        );
    }
    for (i, _) in used.iter().enumerate() {
        let c = i + 1;
        let _ = writeln!(s, r#"    <wangtile tileid="{i}" wangid="{c},{c},{c},{c},{c},{c},{c},{c}"/>"#);
    }
    let _ = writeln!(s, r#"   </wangset>"#);
    let _ = writeln!(s, r#"  </wangsets>"#);
    let _ = writeln!(s, r#" </tileset>"#);
    let _ = writeln!(s, r#" <layer id="1" name="terrain" width="{}" height="{}">"#, map.width, map.height);
    let _ = writeln!(s, r#"  <data encoding="csv">"#);
    let rows: Vec<String> = (0..map.height)
        .map(|y| {
            (0..map.width)
                .map(|x| map.terrain(Tile { x, y }).and_then(|n| gid.get(n)).copied().unwrap_or(0).to_string())
                .collect::<Vec<_>>()
                .join(",")
        })
        .collect();
    let _ = writeln!(s, "{}", rows.join(",\n"));
    let _ = writeln!(s, r#"</data>"#);
    let _ = writeln!(s, r#" </layer>"#);
    let mut id = 1;
    let gi = i64::from(g);
    for (layer, (kind, side)) in groups.iter().enumerate() {
        let name = match side {
            Some(side) => format!("regions: {} ({})", kind.word(), side_word(*side)),
            None => format!("regions: {}", kind.word()),
        };
        let colour = hex(region_colour(*kind, *side));
        let _ = writeln!(s, r#" <objectgroup id="{}" name="{}" color="{colour}">"#, layer + 2, xml(&name));
        // Each object's id is its region's place in the map: the import keeps that order.
        let members = map
            .regions
            .iter()
            .enumerate()
            .filter(|(_, r)| (r.kind, r.side.filter(|_| r.kind == RegionKind::Deployment)) == (*kind, *side));
        for (index, r) in members {
            let tiles: BTreeSet<Tile> = r.tiles.iter().map(|(t, _)| *t).filter(|t| map.in_bounds(*t)).collect();
            // One object per region: its bounding box, with the exact tiles as a property when the
            // region is not the whole box.
            let (Some(x0), Some(y0)) = (tiles.iter().map(|t| t.x).min(), tiles.iter().map(|t| t.y).min()) else { continue };
            let (x1, y1) = (tiles.iter().map(|t| t.x).max().unwrap_or(x0), tiles.iter().map(|t| t.y).max().unwrap_or(y0));
            let (w, h) = (x1 - x0 + 1, y1 - y0 + 1);
            let _ = writeln!(
                s,
                r#"  <object id="{}" name="{}" type="{}" x="{}" y="{}" width="{}" height="{}">"#,
                index + 1,
                xml(&r.name),
                r.kind.word(),
                x0 * gi,
                y0 * gi,
                w * gi,
                h * gi
            );
            let _ = writeln!(s, r#"   <properties>"#);
            property(&mut s, "    ", "kind", None, r.kind.word());
            if let Some(side) = r.side {
                property(&mut s, "    ", "side", None, side_word(side));
            }
            if tiles.len() as i64 != w * h {
                let list = tiles.iter().map(|t| format!("{} {}", t.x, t.y)).collect::<Vec<_>>().join(";");
                property(&mut s, "    ", "tiles", None, &list);
            }
            if let Some(units) = r.units {
                property(&mut s, "    ", "units", Some("int"), &units.to_string());
            }
            let _ = writeln!(s, r#"   </properties>"#);
            let _ = writeln!(s, r#"  </object>"#);
        }
        let _ = writeln!(s, r#" </objectgroup>"#);
    }
    id += map.regions.len();
    let _ = writeln!(s, r#" <objectgroup id="{things_layer}" name="things" color="{}">"#, hex(crate::render::GRID_LINE));
    let mut object = |s: &mut String, kind: &str, t: Tile, props: &[(&str, Option<&str>, String)]| {
        let _ = write!(
            s,
            r#"  <object id="{id}" name="{kind}" type="{kind}" x="{}" y="{}" width="{gi}" height="{gi}""#,
            t.x * gi,
            t.y * gi
        );
        if props.is_empty() {
            let _ = writeln!(s, "/>");
        } else {
            let _ = writeln!(s, ">\n   <properties>");
            for (name, ty, value) in props {
                property(s, "    ", name, *ty, value);
            }
            let _ = writeln!(s, "   </properties>\n  </object>");
        }
        id += 1;
    };
    for c in map.chests.iter().filter(|c| map.in_bounds(c.at)) {
        object(&mut s, "chest", c.at, &[("item", None, c.item.clone())]);
    }
    for (t, _) in map.doors.iter().filter(|(t, _)| map.in_bounds(*t)) {
        object(&mut s, "door", *t, &[]);
    }
    for d in map.destructibles.iter().filter(|d| map.in_bounds(d.at)) {
        let props: Vec<(&str, Option<&str>, String)> = d.hp.map(|hp| ("hp", Some("int"), hp.to_string())).into_iter().collect();
        object(&mut s, "destructible", d.at, &props);
    }
    let _ = writeln!(s, r#" </objectgroup>"#);
    let _ = writeln!(s, r#"</map>"#);
    (s, tileset)
}
