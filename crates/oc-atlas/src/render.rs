//! PNG pictures of maps: one `grid`-pixel square per tile in its terrain's colour, grid lines,
//! each square's coordinates, regions outlined in their side's colour with their initials,
//! chests, doors and destructibles marked, and a legend strip under the map. A pure function
//! of the map and the rules, so renders are byte-for-byte deterministic.

use std::collections::BTreeSet;

use image::{ImageEncoder, Rgb, RgbImage};
use oc_model::Rules;

use crate::map::{Map, RegionKind, Side, Tile};

pub const GRID_LINE: Rgb<u8> = Rgb([24, 24, 28]);
pub const UNKNOWN: Rgb<u8> = Rgb([255, 0, 255]);
const TEXT: Rgb<u8> = Rgb([16, 16, 16]);
const PAPER: Rgb<u8> = Rgb([245, 242, 232]);
/// Width in pixels of a region's outline.
pub const OUTLINE: u32 = 3;
const LEGEND_ROW: u32 = 24;

/// The colour of a terrain: fixed for the standard library's terrains, derived from the name
/// for home-brew ones (so it is stable across runs and machines).
pub fn terrain_colour(name: &str) -> Rgb<u8> {
    let rgb = match name {
        "Plains" => [144, 190, 96],
        "Sand" => [222, 206, 150],
        "Buildings" => [168, 118, 88],
        "Ruins" => [150, 140, 120],
        "Floor" => [196, 186, 164],
        "Stairs" => [160, 150, 128],
        "Bridge" => [150, 105, 60],
        "VillageGate" => [206, 154, 82],
        "Sea" => [28, 66, 156],
        "Lake" => [70, 130, 200],
        "River" => [96, 166, 226],
        "Mountain" => [128, 98, 68],
        "Desert" => [232, 204, 118],
        "Forest" => [38, 110, 48],
        "Pillars" => [176, 176, 188],
        "Snag" => [98, 78, 48],
        "Wall" => [78, 78, 90],
        "Door" => [122, 70, 28],
        "Fort" => [162, 82, 62],
        "CastleGate" => [108, 108, 132],
        "Throne" => [182, 40, 62],
        other => {
            // FNV-1a: a stable hash, unlike std's.
            let mut h: u32 = 0x811c_9dc5;
            for b in other.bytes() {
                h = (h ^ u32::from(b)).wrapping_mul(0x0100_0193);
            }
            [(h >> 16) as u8 | 0x30, (h >> 8) as u8 | 0x30, h as u8 | 0x30]
        }
    };
    Rgb(rgb)
}

/// The outline colour of a region.
pub fn region_colour(kind: RegionKind, side: Option<Side>) -> Rgb<u8> {
    Rgb(match (kind, side) {
        (RegionKind::Deployment, Some(Side::Attacker)) => [30, 90, 255],
        (RegionKind::Deployment, _) => [230, 30, 30],
        (RegionKind::Seize, _) => [255, 200, 0],
        (RegionKind::Escape, _) => [0, 220, 120],
        (RegionKind::Raze, _) => [255, 120, 0],
        (RegionKind::Defend, _) => [170, 60, 220],
        (RegionKind::Label, _) => [255, 255, 255],
    })
}

/// The initials of a region's name: `attacker-zone` is `AZ`, `throne` is `T`.
pub fn initials(name: &str) -> String {
    name.split(|c: char| !c.is_alphanumeric()).filter_map(|w| w.chars().next()).flat_map(char::to_uppercase).take(3).collect()
}

/// Height of the legend strip for `n` entries at a given image width.
fn legend_height(n: usize, width: u32) -> u32 {
    let columns = (width / 170).max(1) as usize;
    (n.div_ceil(columns) as u32) * LEGEND_ROW + 8
}

/// The widest or tallest picture `oc render` draws, in pixels.
pub const MAX_RENDER_SIDE: u32 = 16_384;
/// The most pixels in one picture (8192 x 8192; 192 MiB of RGB in memory).
pub const MAX_RENDER_PIXELS: u64 = 1 << 26;

/// The size of the picture of `map` (the legend strip included), or why it would be too large.
pub fn picture_size(map: &Map) -> Result<(u32, u32), String> {
    let g = u64::from(map.grid);
    let (w, h) = (map.width.max(0) as u64 * g, map.height.max(0) as u64 * g);
    let used = map.tiles().filter_map(|t| map.terrain(t)).collect::<BTreeSet<&str>>().len();
    let full_h = h + u64::from(legend_height(used, u32::try_from(w).unwrap_or(u32::MAX)));
    if w > u64::from(MAX_RENDER_SIDE) || full_h > u64::from(MAX_RENDER_SIDE) || w * full_h > MAX_RENDER_PIXELS {
        return Err(format!(
            "the picture would be {w}x{full_h} pixels ({} by {} tiles at grid {}); oc draws at most {MAX_RENDER_SIDE} pixels a side and {} million pixels in all",
            map.width,
            map.height,
            map.grid,
            MAX_RENDER_PIXELS / 1_000_000
        ));
    }
    Ok((w as u32, full_h as u32))
}

/// Renders a resolved map, refusing one whose picture would pass [`MAX_RENDER_SIDE`] or
/// [`MAX_RENDER_PIXELS`]. Tiles whose symbol has no terrain are magenta.
pub fn render(map: &Map, rules: &Rules) -> Result<RgbImage, String> {
    picture_size(map)?;
    Ok(draw(map, rules))
}

/// The map area alone (`width x grid` by `height x grid` pixels, no legend strip): the
/// background of a Foundry scene and the picture of a Universal VTT file.
pub fn render_map_area(map: &Map, rules: &Rules) -> Result<RgbImage, String> {
    let full = render(map, rules)?;
    let (w, h) = (map.width as u32 * map.grid, map.height as u32 * map.grid);
    Ok(image::imageops::crop_imm(&full, 0, 0, w, h).to_image())
}

fn draw(map: &Map, rules: &Rules) -> RgbImage {
    let g = map.grid;
    let (w, h) = (map.width as u32 * g, map.height as u32 * g);
    let used: BTreeSet<&str> = map.tiles().filter_map(|t| map.terrain(t)).collect();
    let mut img = RgbImage::from_pixel(w, h + legend_height(used.len(), w), PAPER);

    for t in map.tiles() {
        let colour = map.terrain(t).map_or(UNKNOWN, terrain_colour);
        fill(&mut img, t.x as u32 * g, t.y as u32 * g, g, g, colour);
    }
    // Grid lines: the top and left edge of every square, and the map's right and bottom border.
    for x in 0..=map.width as u32 {
        fill(&mut img, (x * g).min(w - 1), 0, 1, h, GRID_LINE);
    }
    for y in 0..=map.height as u32 {
        fill(&mut img, 0, (y * g).min(h - 1), w, 1, GRID_LINE);
    }
    if g >= 24 {
        for t in map.tiles() {
            let label = format!("{},{}", t.x, t.y);
            let colour = contrast(map.terrain(t).map_or(UNKNOWN, terrain_colour));
            text(&mut img, t.x as u32 * g + 3, t.y as u32 * g + 3, 1, &label, colour);
        }
    }
    for d in &map.destructibles {
        if map.in_bounds(d.at) {
            let hp =
                d.hp.map(|h| h.to_string())
                    .or_else(|| map.terrain(d.at).and_then(|n| rules.terrain(n)).and_then(|t| t.hp).map(|h| h.to_string()));
            let (x, y) = (d.at.x as u32 * g, d.at.y as u32 * g);
            text(
                &mut img,
                x + 3,
                y + g - 3 - 5 * scale(g),
                scale(g),
                &format!("HP{}", hp.unwrap_or_default()),
                Rgb([255, 255, 255]),
            );
        }
    }
    for (t, _) in &map.doors {
        if map.in_bounds(*t) {
            let (x, y) = (t.x as u32 * g, t.y as u32 * g);
            let m = g / 4;
            frame(&mut img, x + m, y + m, g - 2 * m, g - 2 * m, (g / 20).max(1), Rgb([60, 30, 10]));
            fill(&mut img, x + g / 2 - g / 20, y + g / 2 - g / 10, (g / 10).max(1), (g / 5).max(1), Rgb([240, 200, 60]));
        }
    }
    for c in &map.chests {
        if map.in_bounds(c.at) {
            let (x, y) = (c.at.x as u32 * g, c.at.y as u32 * g);
            let (cw, ch) = (g / 2, g / 3);
            let (cx, cy) = (x + (g - cw) / 2, y + (g - ch) / 2 + g / 10);
            fill(&mut img, cx, cy, cw, ch, Rgb([212, 160, 40]));
            frame(&mut img, cx, cy, cw, ch, (g / 35).max(1), Rgb([90, 50, 10]));
            fill(&mut img, cx, cy + ch / 3, cw, (g / 35).max(1), Rgb([90, 50, 10]));
        }
    }
    for r in &map.regions {
        let tiles: BTreeSet<Tile> = r.tiles.iter().map(|(t, _)| *t).filter(|t| map.in_bounds(*t)).collect();
        let colour = region_colour(r.kind, r.side);
        let o = OUTLINE.min(g / 4).max(1);
        for t in &tiles {
            let (x, y) = (t.x as u32 * g, t.y as u32 * g);
            if !tiles.contains(&Tile { x: t.x, y: t.y.saturating_sub(1) }) {
                fill(&mut img, x, y, g, o, colour);
            }
            if !tiles.contains(&Tile { x: t.x, y: t.y.saturating_add(1) }) {
                fill(&mut img, x, y + g - o, g, o, colour);
            }
            if !tiles.contains(&Tile { x: t.x.saturating_sub(1), y: t.y }) {
                fill(&mut img, x, y, o, g, colour);
            }
            if !tiles.contains(&Tile { x: t.x.saturating_add(1), y: t.y }) {
                fill(&mut img, x + g - o, y, o, g, colour);
            }
        }
        // The initials sit in the region's first tile (top-most, then left-most), centred.
        if let Some(first) = tiles.iter().min_by_key(|t| (t.y, t.x)) {
            let label = initials(&r.name);
            let s = scale(g);
            let tw = label.chars().count() as u32 * 4 * s;
            let (x, y) = (first.x as u32 * g + g.saturating_sub(tw) / 2, first.y as u32 * g + g / 2 - 5 * s / 2);
            fill(&mut img, x.saturating_sub(s), y.saturating_sub(s), tw + s, 7 * s, Rgb([0, 0, 0]));
            text(&mut img, x, y, s, &label, colour);
        }
    }
    // The legend strip: a swatch and the terrain's title for every terrain the map uses.
    let columns = (w / 170).max(1);
    for (i, name) in used.iter().enumerate() {
        let (col, row) = (i as u32 % columns, i as u32 / columns);
        let (x, y) = (4 + col * 170, h + 6 + row * LEGEND_ROW);
        fill(&mut img, x, y, 16, 16, terrain_colour(name));
        frame(&mut img, x, y, 16, 16, 1, GRID_LINE);
        let title = rules.terrain(name).and_then(|t| t.title.clone()).unwrap_or_else(|| (*name).to_string());
        text(&mut img, x + 22, y + 3, 2, &title, TEXT);
    }
    img
}

/// Encodes an image as PNG bytes.
pub fn png(img: &RgbImage) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(img.as_raw(), img.width(), img.height(), image::ExtendedColorType::Rgb8)
        .map_err(|e| e.to_string())?;
    Ok(with_software_text(out))
}

/// What every PNG oc writes says in its `Software` text chunk: how a later run tells its own
/// picture (which it may replace) from a painting (which it must not).
pub const SOFTWARE: &str = "oc (Officer's Chess authoring toolkit)";

/// Inserts a `tEXt` chunk `Software` = [`SOFTWARE`] after the PNG's header chunk.
fn with_software_text(png: Vec<u8>) -> Vec<u8> {
    // Signature (8) + IHDR: length (4), type (4), 13 bytes of data, CRC (4).
    const AFTER_IHDR: usize = 33;
    if png.len() < AFTER_IHDR || png.get(12..16) != Some(b"IHDR") {
        return png;
    }
    let mut data = b"tEXtSoftware\0".to_vec();
    data.extend_from_slice(SOFTWARE.as_bytes());
    let mut chunk = ((data.len() - 4) as u32).to_be_bytes().to_vec();
    chunk.extend_from_slice(&data);
    chunk.extend_from_slice(&crc32(&data).to_be_bytes());
    let (head, tail) = png.split_at(AFTER_IHDR);
    [head, &chunk, tail].concat()
}

/// The CRC-32 of PNG chunks (ISO 3309, polynomial 0xEDB88320).
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFF_u32;
    for &b in bytes {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

fn scale(g: u32) -> u32 {
    (g / 30).clamp(1, 4)
}

fn contrast(c: Rgb<u8>) -> Rgb<u8> {
    let [r, g, b] = c.0;
    let luma = u32::from(r) * 299 + u32::from(g) * 587 + u32::from(b) * 114;
    if luma > 128_000 {
        Rgb([20, 20, 20])
    } else {
        Rgb([240, 240, 240])
    }
}

fn fill(img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, c: Rgb<u8>) {
    let (iw, ih) = img.dimensions();
    for py in y..(y + h).min(ih) {
        for px in x..(x + w).min(iw) {
            img.put_pixel(px, py, c);
        }
    }
}

fn frame(img: &mut RgbImage, x: u32, y: u32, w: u32, h: u32, t: u32, c: Rgb<u8>) {
    fill(img, x, y, w, t, c);
    fill(img, x, (y + h).saturating_sub(t), w, t, c);
    fill(img, x, y, t, h, c);
    fill(img, (x + w).saturating_sub(t), y, t, h, c);
}

/// A 3x5 bitmap font: five rows of three bits per glyph, top row first.
fn glyph(c: char) -> [u8; 5] {
    match c.to_ascii_uppercase() {
        '0' => [7, 5, 5, 5, 7],
        '1' => [2, 6, 2, 2, 7],
        '2' => [7, 1, 7, 4, 7],
        '3' => [7, 1, 7, 1, 7],
        '4' => [5, 5, 7, 1, 1],
        '5' => [7, 4, 7, 1, 7],
        '6' => [7, 4, 7, 5, 7],
        '7' => [7, 1, 1, 1, 1],
        '8' => [7, 5, 7, 5, 7],
        '9' => [7, 5, 7, 1, 7],
        'A' => [2, 5, 7, 5, 5],
        'B' => [6, 5, 6, 5, 6],
        'C' => [3, 4, 4, 4, 3],
        'D' => [6, 5, 5, 5, 6],
        'E' => [7, 4, 6, 4, 7],
        'F' => [7, 4, 6, 4, 4],
        'G' => [3, 4, 5, 5, 3],
        'H' => [5, 5, 7, 5, 5],
        'I' => [7, 2, 2, 2, 7],
        'J' => [1, 1, 1, 5, 2],
        'K' => [5, 5, 6, 5, 5],
        'L' => [4, 4, 4, 4, 7],
        'M' => [5, 7, 7, 5, 5],
        'N' => [6, 5, 5, 5, 5],
        'O' => [2, 5, 5, 5, 2],
        'P' => [6, 5, 6, 4, 4],
        'Q' => [2, 5, 5, 6, 3],
        'R' => [6, 5, 6, 5, 5],
        'S' => [3, 4, 2, 1, 6],
        'T' => [7, 2, 2, 2, 2],
        'U' => [5, 5, 5, 5, 7],
        'V' => [5, 5, 5, 5, 2],
        'W' => [5, 5, 7, 7, 5],
        'X' => [5, 5, 2, 5, 5],
        'Y' => [5, 5, 2, 2, 2],
        'Z' => [7, 1, 2, 4, 7],
        ',' => [0, 0, 0, 2, 4],
        '-' => [0, 0, 7, 0, 0],
        '.' => [0, 0, 0, 0, 2],
        '\'' => [2, 2, 0, 0, 0],
        ' ' => [0, 0, 0, 0, 0],
        _ => [7, 5, 5, 5, 7],
    }
}

/// Draws text at (x, y), each font pixel `s` pixels square, 4*s pixels per character.
pub fn text(img: &mut RgbImage, x: u32, y: u32, s: u32, text: &str, c: Rgb<u8>) {
    for (i, ch) in text.chars().enumerate() {
        let gx = x + i as u32 * 4 * s;
        for (row, bits) in glyph(ch).iter().enumerate() {
            for col in 0..3u32 {
                if bits & (4 >> col) != 0 {
                    fill(img, gx + col * s, y + row as u32 * s, s, s, c);
                }
            }
        }
    }
}
