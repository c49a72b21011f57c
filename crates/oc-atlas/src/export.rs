//! Palette images (one pixel per tile) turned into map definitions, and PNG helpers. Foundry
//! scenes are in [`crate::foundry`], Universal VTT in [`crate::uvtt`], Tiled in [`crate::tiled`].

pub use crate::tiled::{tiled, tileset_size, TMX_MARK};

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use image::{Rgb, RgbImage};
use oc_model::Rules;

use crate::map::toml_str;
use crate::render::terrain_colour;

fn hex(c: Rgb<u8>) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0[0], c.0[1], c.0[2])
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
            ("name", _) => errors.push("`name` must be a string: the map's name".to_string()),
            ("grid", toml::Value::Integer(g)) if (8..=1024).contains(&g) => legend.grid = Some(g as u32),
            ("grid", _) => errors.push("`grid` must be a whole number from 8 to 1024: a tile's size in pixels".to_string()),
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
            // The same colour twice (written in other cases, `#7ab848` and `#7AB848`) for two
            // terrains: which one a pixel of it is would depend on the order of the lines.
            Some(t) => match legend.colours.insert(rgb, t.name.clone()) {
                Some(before) if before != t.name => errors.push(format!(
                    "`{k}` is written twice (as {}, in another case: case does not matter), for `{}` and for `{before}`",
                    hex(Rgb(rgb)),
                    t.name
                )),
                _ => {}
            },
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

/// Decodes PNG bytes into RGB (alpha dropped).
pub fn decode_png(bytes: &[u8]) -> Result<RgbImage, crate::render::PictureError> {
    image::load_from_memory_with_format(bytes, image::ImageFormat::Png)
        .map(|i| i.to_rgb8())
        .map_err(|e| crate::render::PictureError::NotAPng(e.to_string()))
}

/// The size of a PNG from its header, without decoding the pixels.
pub fn png_size(bytes: &[u8]) -> Result<(u32, u32), crate::render::PictureError> {
    let decoder = image::codecs::png::PngDecoder::new(std::io::Cursor::new(bytes))
        .map_err(|e| crate::render::PictureError::NotAPng(e.to_string()))?;
    Ok(image::ImageDecoder::dimensions(&decoder))
}
