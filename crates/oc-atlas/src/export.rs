//! Moving maps in and out: Tiled TMX, and palette images (one pixel per tile) turned into map
//! definitions. Foundry scenes are in [`crate::foundry`], Universal VTT in [`crate::uvtt`].

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use image::{Rgb, RgbImage};
use oc_model::Rules;

use crate::map::{Map, Side, Tile};
use crate::render::terrain_colour;

fn hex(c: Rgb<u8>) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0[0], c.0[1], c.0[2])
}

fn side_word(s: Side) -> &'static str {
    match s {
        Side::Attacker => "attacker",
        Side::Defender => "defender",
    }
}

fn xml(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// The comment every exported TMX carries (Tiled ignores it); `oc export` recognises its own
/// earlier output by it.
pub const TMX_MARK: &str = "<!-- written by oc export tiled -->";

/// The size of the tileset [`tiled`] draws (one square per terrain used), or why it would pass
/// the picture bounds of [`crate::render::MAX_RENDER_SIDE`].
pub fn tileset_size(map: &Map) -> Result<(u32, u32), String> {
    let used = map.tiles().filter_map(|t| map.terrain(t)).collect::<BTreeSet<_>>().len().max(1) as u64;
    let w = used * u64::from(map.grid);
    if w > u64::from(crate::render::MAX_RENDER_SIDE) {
        return Err(format!(
            "the tileset would be {w} pixels wide ({used} terrains at grid {}); oc draws at most {} pixels a side",
            map.grid,
            crate::render::MAX_RENDER_SIDE
        ));
    }
    Ok((w as u32, map.grid))
}

/// A Tiled map: the TMX text, and the tileset image it refers to as `tileset_png` (one square
/// per terrain the map uses, in its render colour). Write both side by side.
pub fn tiled(map: &Map, tileset_png: &str) -> (String, RgbImage) {
    let g = map.grid;
    let used: Vec<&str> = map.tiles().filter_map(|t| map.terrain(t)).collect::<BTreeSet<_>>().into_iter().collect();
    let count = used.len().max(1) as u32;
    let mut tileset = RgbImage::from_pixel(count * g, g, crate::render::UNKNOWN);
    for (i, name) in used.iter().enumerate() {
        let colour = terrain_colour(name);
        for y in 0..g {
            for x in 0..g {
                let edge = x == 0 || y == 0;
                tileset.put_pixel(i as u32 * g + x, y, if edge { crate::render::GRID_LINE } else { colour });
            }
        }
    }
    let gid: BTreeMap<&str, usize> = used.iter().enumerate().map(|(i, n)| (*n, i + 1)).collect();
    let mut s = String::new();
    let object_count: usize = map.regions.len() + map.chests.len() + map.doors.len();
    let _ = writeln!(s, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(s, "{TMX_MARK}");
    let _ = writeln!(
        s,
        r#"<map version="1.10" tiledversion="1.10.2" orientation="orthogonal" renderorder="right-down" width="{}" height="{}" tilewidth="{g}" tileheight="{g}" infinite="0" nextlayerid="4" nextobjectid="{}">"#,
        map.width,
        map.height,
        object_count + 1
    );
    let _ = writeln!(s, r#" <properties>"#);
    let _ = writeln!(s, r#"  <property name="name" value="{}"/>"#, xml(&map.name));
    let _ = writeln!(s, r#" </properties>"#);
    let _ = writeln!(
        s,
        r#" <tileset firstgid="1" name="terrain" tilewidth="{g}" tileheight="{g}" tilecount="{count}" columns="{count}">"#
    );
    let _ = writeln!(s, r#"  <image source="{}" width="{}" height="{g}"/>"#, xml(tileset_png), count * g);
    for (i, name) in used.iter().enumerate() {
        let _ = writeln!(s, r#"  <tile id="{i}" type="{}">"#, xml(name));
        let _ = writeln!(s, r#"   <properties><property name="terrain" value="{}"/></properties>"#, xml(name));
        let _ = writeln!(s, r#"  </tile>"#);
    }
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
    let _ = writeln!(s, r#" <objectgroup id="2" name="regions">"#);
    for r in &map.regions {
        let tiles: BTreeSet<Tile> = r.tiles.iter().map(|(t, _)| *t).filter(|t| map.in_bounds(*t)).collect();
        // One object per region: its bounding box, with the exact tiles as a property.
        let (Some(x0), Some(y0)) = (tiles.iter().map(|t| t.x).min(), tiles.iter().map(|t| t.y).min()) else { continue };
        let (x1, y1) = (tiles.iter().map(|t| t.x).max().unwrap_or(x0), tiles.iter().map(|t| t.y).max().unwrap_or(y0));
        let list = tiles.iter().map(|t| format!("{} {}", t.x, t.y)).collect::<Vec<_>>().join(";");
        let g = i64::from(g);
        let _ = writeln!(
            s,
            r#"  <object id="{id}" name="{}" type="{}" x="{}" y="{}" width="{}" height="{}">"#,
            xml(&r.name),
            r.kind.word(),
            x0.saturating_mul(g),
            y0.saturating_mul(g),
            x1.saturating_sub(x0).saturating_add(1).saturating_mul(g),
            y1.saturating_sub(y0).saturating_add(1).saturating_mul(g)
        );
        let _ = writeln!(s, r#"   <properties>"#);
        if let Some(side) = r.side {
            let _ = writeln!(s, r#"    <property name="side" value="{}"/>"#, side_word(side));
        }
        let _ = writeln!(s, r#"    <property name="tiles" value="{list}"/>"#);
        let _ = writeln!(s, r#"   </properties>"#);
        let _ = writeln!(s, r#"  </object>"#);
        id += 1;
    }
    let _ = writeln!(s, r#" </objectgroup>"#);
    let _ = writeln!(s, r#" <objectgroup id="3" name="things">"#);
    let gi = i64::from(g);
    for c in map.chests.iter().filter(|c| map.in_bounds(c.at)) {
        let _ = writeln!(
            s,
            r#"  <object id="{id}" name="chest" type="chest" x="{}" y="{}" width="{gi}" height="{gi}"><properties><property name="item" value="{}"/></properties></object>"#,
            c.at.x * gi,
            c.at.y * gi,
            xml(&c.item)
        );
        id += 1;
    }
    for (t, _) in map.doors.iter().filter(|(t, _)| map.in_bounds(*t)) {
        let _ = writeln!(
            s,
            r#"  <object id="{id}" name="door" type="door" x="{}" y="{}" width="{gi}" height="{gi}"/>"#,
            t.x * gi,
            t.y * gi
        );
        id += 1;
    }
    let _ = writeln!(s, r#" </objectgroup>"#);
    let _ = writeln!(s, r#"</map>"#);
    (s, tileset)
}

/// Reads a palette legend: `"#rrggbb" = "Terrain"` entries, at the top level or under
/// `[colours]`, plus optional `name` and `grid`.
pub struct PaletteLegend {
    pub name: Option<String>,
    pub grid: Option<u32>,
    pub colours: BTreeMap<[u8; 3], String>,
}

fn parse_hex(s: &str) -> Option<[u8; 3]> {
    let h = s.strip_prefix('#')?;
    if h.len() != 6 {
        return None;
    }
    let byte = |i: usize| h.get(i..i + 2).and_then(|b| u8::from_str_radix(b, 16).ok());
    Some([byte(0)?, byte(2)?, byte(4)?])
}

/// Reads a palette legend file; errors name the offending entry.
pub fn palette_legend(text: &str, rules: &Rules) -> Result<PaletteLegend, Vec<String>> {
    let table: toml::Table = toml::from_str(text).map_err(|e| vec![format!("the legend is not valid TOML: {}", e.message())])?;
    let mut errors = Vec::new();
    let mut legend = PaletteLegend { name: None, grid: None, colours: BTreeMap::new() };
    let mut entries: Vec<(String, toml::Value)> = Vec::new();
    for (k, v) in table {
        match (k.as_str(), v) {
            ("name", toml::Value::String(s)) => legend.name = Some(s),
            ("grid", toml::Value::Integer(g)) if (8..=1024).contains(&g) => legend.grid = Some(g as u32),
            ("colours" | "colors", toml::Value::Table(t)) => entries.extend(t),
            (_, v) => entries.push((k, v)),
        }
    }
    for (k, v) in entries {
        let Some(rgb) = parse_hex(&k) else {
            errors.push(format!("`{k}` is not a colour: write keys as \"#rrggbb\""));
            continue;
        };
        let Some(name) = v.as_str() else {
            errors.push(format!("`{k}` should name a terrain as a string"));
            continue;
        };
        match crate::map::find_terrain(rules, name) {
            Some(t) => {
                legend.colours.insert(rgb, t.name.clone());
            }
            None => errors.push(match oc_diag::did_you_mean(name, rules.terrains.iter().map(|t| t.name.as_str())) {
                Some(s) => format!("`{k}` names no terrain `{name}`; did you mean `{s}`?"),
                None => format!("`{k}` names no terrain `{name}`"),
            }),
        }
    }
    if errors.is_empty() {
        Ok(legend)
    } else {
        Err(errors)
    }
}

/// The render palette as a legend, for images painted with `oc render`'s colours.
pub fn default_palette(rules: &Rules) -> PaletteLegend {
    PaletteLegend {
        name: None,
        grid: None,
        colours: rules.terrains.iter().map(|t| (terrain_colour(&t.name).0, t.name.clone())).collect(),
    }
}

/// Turns a one-pixel-per-tile image into map TOML. Every colour must be in the legend; the
/// errors list each unknown colour with the first pixel that has it.
pub fn import_image(img: &RgbImage, legend: &PaletteLegend, rules: &Rules, name: &str) -> Result<String, Vec<String>> {
    let (w, h) = img.dimensions();
    if w == 0 || h == 0 || i64::from(w) > crate::MAX_SIDE || i64::from(h) > crate::MAX_SIDE {
        return Err(vec![format!(
            "the image is {w}x{h} pixels; maps are 1 to {} tiles on each side, one pixel per tile",
            crate::MAX_SIDE
        )]);
    }
    // Symbols: the terrain's own symbol in the rules, or a spare letter.
    let mut symbol_of: BTreeMap<String, char> = BTreeMap::new();
    let mut taken: BTreeSet<char> = BTreeSet::new();
    let mut unknown: BTreeMap<[u8; 3], (u32, u32, usize)> = BTreeMap::new();
    let mut rows = Vec::new();
    for y in 0..h {
        let mut row = String::new();
        for x in 0..w {
            let rgb = img.get_pixel(x, y).0;
            let Some(terrain) = legend.colours.get(&rgb) else {
                unknown.entry(rgb).or_insert((x, y, 0)).2 += 1;
                row.push('?');
                continue;
            };
            let c = match symbol_of.get(terrain) {
                Some(c) => *c,
                None => {
                    let own = rules.terrain(terrain).and_then(|t| t.symbol.as_deref()).and_then(|s| s.chars().next());
                    let c = own
                        .filter(|c| !taken.contains(c) && *c != '"' && *c != '\\')
                        .or_else(|| ('A'..='Z').chain('a'..='z').chain('0'..='9').find(|c| !taken.contains(c)))
                        .unwrap_or('?');
                    taken.insert(c);
                    symbol_of.insert(terrain.clone(), c);
                    c
                }
            };
            row.push(c);
        }
        rows.push(row);
    }
    if !unknown.is_empty() {
        return Err(unknown
            .iter()
            .map(|(rgb, (x, y, n))| {
                format!("the colour {} (first at pixel {x},{y}; {n} pixel(s)) is not in the legend", hex(Rgb(*rgb)))
            })
            .collect());
    }
    let mut s = String::new();
    let _ = writeln!(s, "# Imported by `oc import-image` from a {w}x{h} palette image.");
    let _ = writeln!(s, "name = {}", toml_str(legend.name.as_deref().unwrap_or(name)));
    let _ = writeln!(s, "width = {w}");
    let _ = writeln!(s, "height = {h}");
    let _ = writeln!(s, "grid = {}", legend.grid.unwrap_or(crate::DEFAULT_GRID));
    let _ = writeln!(s, "rows = [");
    for row in &rows {
        let _ = writeln!(s, "  {},", toml_str(row));
    }
    let _ = writeln!(s, "]\n\n[legend]");
    for (terrain, c) in &symbol_of {
        let _ = writeln!(s, "{} = {}", toml_str(&c.to_string()), toml_str(terrain));
    }
    Ok(s)
}

fn toml_str(s: &str) -> String {
    // A JSON string is a valid TOML basic string (same escapes).
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string())
}

/// Decodes PNG bytes into RGB (alpha dropped).
pub fn decode_png(bytes: &[u8]) -> Result<RgbImage, String> {
    image::load_from_memory_with_format(bytes, image::ImageFormat::Png).map(|i| i.to_rgb8()).map_err(|e| e.to_string())
}

/// The size of a PNG from its header, without decoding the pixels.
pub fn png_size(bytes: &[u8]) -> Result<(u32, u32), String> {
    let decoder = image::codecs::png::PngDecoder::new(std::io::Cursor::new(bytes)).map_err(|e| e.to_string())?;
    Ok(image::ImageDecoder::dimensions(&decoder))
}
