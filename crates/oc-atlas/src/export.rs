//! Palette images (one pixel per tile) turned into map definitions, and PNG helpers. Foundry
//! scenes are in [`crate::foundry`], Universal VTT in [`crate::uvtt`], Tiled in [`crate::tiled`].

pub use crate::tiled::{tiled, tiled_with, tileset_size, TMX_MARK};

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use image::{Rgb, RgbImage};
use oc_diag::{Diagnostic, FileId, Span};
use oc_model::Rules;

use crate::codes::UNKNOWN_TERRAIN;
use palette_codes::PALETTE;

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

/// The code of a palette legend's errors (`oc import-image --legend`): a file of its own kind,
/// not a map (whose lints are `crate::codes`).
pub mod palette_codes {
    oc_diag::codes! {
        PALETTE = "oc::palette::entry", "a palette legend entry is not a colour naming a terrain",
    "`oc import-image --legend FILE` reads a palette legend: a TOML file of `\"#rrggbb\" = \"Terrain\"` \
    entries (at the top level or under `[colours]`), and optionally `name` (the map's name, a string) \
    and `grid` (a tile's size in pixels, 8 to 1024). Each key is a colour of six hexadecimal digits \
    after `#`, each value a terrain's name as a string; one colour stands for one terrain (case does \
    not matter: `#7ab848` and `#7AB848` are one colour). A legend that does not parse as TOML is \
    refused with this code too.\n\nFix: write the entry as `\"#7ab848\" = \"Forest\"`. A terrain the \
    rules do not have is `oc::atlas::unknown_terrain`.";
    }
}

/// Reads a palette legend file (`text`, as `file`); each error names the offending entry with
/// its span (`oc::palette::entry`, `oc::atlas::unknown_terrain`).
pub fn palette_legend(file: FileId, text: &str, rules: &Rules) -> Result<PaletteLegend, Vec<Diagnostic>> {
    use toml::de::DeValue;
    const HELP: &str = "a legend is TOML: lines `\"#rrggbb\" = \"Terrain\"`, and optionally `name` and `grid`";
    let at = |r: std::ops::Range<usize>| Span::new(file, r.start, r.end);
    let table = toml::de::DeTable::parse(text).map_err(|e| {
        let r = e.span().unwrap_or(0..text.len().min(1));
        let message = e.message().lines().next().unwrap_or("invalid TOML").to_string();
        vec![Diagnostic::error(PALETTE, at(r), format!("the legend is not valid TOML: {message}"))
            .with_label("here")
            .with_help(HELP)]
    })?;
    let mut errors = Vec::new();
    let mut legend = PaletteLegend { name: None, grid: None, colours: BTreeMap::new() };
    // Each colour's terrain and where its entry is (a colour written twice names the first).
    let mut first: BTreeMap<[u8; 3], (String, Span)> = BTreeMap::new();
    let mut entries = Vec::new();
    for (k, v) in table.get_ref().iter() {
        let (key, key_span, value_span) = (k.get_ref().as_ref(), at(k.span()), at(v.span()));
        match (key, v.get_ref()) {
            ("name", DeValue::String(s)) => legend.name = Some(s.to_string()),
            ("name", _) => errors.push(
                Diagnostic::error(PALETTE, value_span, "`name` must be a string: the map's name")
                    .with_label("not a string")
                    .with_help("write it as name = \"Ashen Ford\""),
            ),
            ("grid", DeValue::Integer(g))
                if u32::from_str_radix(g.as_str(), g.radix()).is_ok_and(|g| (8..=1024).contains(&g)) =>
            {
                legend.grid = u32::from_str_radix(g.as_str(), g.radix()).ok();
            }
            ("grid", _) => errors.push(
                Diagnostic::error(PALETTE, value_span, "`grid` must be a whole number from 8 to 1024")
                    .with_label("a tile's size in pixels")
                    .with_help("write it as grid = 70"),
            ),
            ("colours" | "colors", DeValue::Table(t)) => {
                entries.extend(t.iter().map(|(k, v)| (k.get_ref().to_string(), at(k.span()), v)));
            }
            _ => entries.push((key.to_string(), key_span, v)),
        }
    }
    for (k, key_span, v) in entries {
        let Some(rgb) = parse_hex(&k) else {
            errors.push(
                Diagnostic::error(PALETTE, key_span, format!("`{k}` is not a colour"))
                    .with_label("a key is a colour")
                    .with_help("write keys as \"#rrggbb\": six hexadecimal digits after `#`"),
            );
            continue;
        };
        let DeValue::String(name) = v.get_ref() else {
            errors.push(
                Diagnostic::error(PALETTE, at(v.span()), format!("`{k}` should name a terrain as a string"))
                    .with_label("not a string")
                    .with_help(format!("write it as \"{k}\" = \"Forest\"")),
            );
            continue;
        };
        let value_span = at(v.span());
        match crate::map::find_terrain(rules, name) {
            // The same colour twice (written in other cases, `#7ab848` and `#7AB848`) for two
            // terrains: which one a pixel of it is would depend on the order of the lines.
            Some(t) => match first.get(&rgb) {
                Some((before, before_span)) if *before != t.name => errors.push(
                    Diagnostic::error(
                        PALETTE,
                        key_span,
                        format!("the colour {} is written twice, for `{}` and for `{before}`", hex(Rgb(rgb)), t.name),
                    )
                    .with_label(format!("`{}` here", t.name))
                    .with_secondary(*before_span, format!("`{before}` here"))
                    .with_help("one colour stands for one terrain (case does not matter): give one of them another colour"),
                ),
                Some(_) => {}
                None => {
                    first.insert(rgb, (t.name.clone(), key_span));
                    legend.colours.insert(rgb, t.name.clone());
                }
            },
            None => {
                let near = oc_diag::did_you_mean(name, rules.terrains.iter().map(|t| t.name.as_str()));
                let d = Diagnostic::error(UNKNOWN_TERRAIN, value_span, format!("`{k}` names no terrain `{name}`"));
                errors.push(match near {
                    Some(s) => d.with_label(format!("did you mean `{s}`?")).with_help(format!("write \"{k}\" = \"{s}\"")),
                    None => d.with_label("no such terrain").with_help(format!(
                        "the rules' terrains are {}",
                        oc_diag::first_and_more(&rules.terrains.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(), 12)
                    )),
                });
            }
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
