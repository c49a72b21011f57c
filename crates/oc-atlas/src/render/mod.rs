//! PNG pictures of maps: one square per tile in its terrain's colour and pattern, grid lines,
//! each square's coordinates, regions outlined in their colour with their names, chests, doors
//! and destructibles marked, an optional overlay the engine computed (a class's reach, or the
//! rounds to an objective from every square), and a legend under the map: every terrain
//! present, every region's name and colour, the overlay's key. Text is drawn with a bundled
//! font ([`text`]). A pure function of the map, the rules and the options, so renders are byte
//! for byte deterministic.

use std::collections::{BTreeMap, BTreeSet};

use image::{ImageEncoder, Rgb, RgbImage};
use oc_model::Rules;

use crate::map::{Map, RegionKind, Side, Tile};

pub mod pattern;
pub mod text;

pub use pattern::{pattern, Pattern};

pub const GRID_LINE: Rgb<u8> = Rgb([24, 24, 28]);
pub const UNKNOWN: Rgb<u8> = Rgb([255, 0, 255]);
const TEXT: Rgb<u8> = Rgb([16, 16, 16]);
pub const PAPER: Rgb<u8> = Rgb([245, 242, 232]);
/// Width in pixels of a region's outline.
pub const OUTLINE: u32 = 3;

/// The colour of a terrain: fixed for the standard library's terrains, derived from the name
/// for home-brew ones (so it is stable across runs and machines).
pub fn terrain_colour(name: &str) -> Rgb<u8> {
    let rgb = match name {
        "Plains" => [144, 190, 96],
        "Sand" => [222, 206, 150],
        "Buildings" => [168, 118, 88],
        "Ruins" => [112, 124, 100],
        "Floor" => [196, 186, 164],
        "Stairs" => [176, 160, 210],
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

/// The attacker's colour in every picture: its deployment zone on maps and scenes, its units
/// on the replay page, its bars in plots. Blue.
pub const ATTACKER_COLOUR: [u8; 3] = [0x25, 0x63, 0xc9];
/// The defender's colour in every picture ([`ATTACKER_COLOUR`]). Red.
pub const DEFENDER_COLOUR: [u8; 3] = [0xc0, 0x39, 0x2b];

/// The outline colour of a region.
pub fn region_colour(kind: RegionKind, side: Option<Side>) -> Rgb<u8> {
    Rgb(match (kind, side) {
        (RegionKind::Deployment, Some(Side::Attacker)) => ATTACKER_COLOUR,
        (RegionKind::Deployment, _) => DEFENDER_COLOUR,
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

/// What an overlay shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverlayKind {
    /// The squares a unit reaches this turn, each with the movement it costs.
    Reach,
    /// The rounds from each square to the nearest objective.
    Heat,
}

/// Numbers per square that the engine or the path search computed, drawn over the terrain.
#[derive(Clone, Debug)]
pub struct Overlay {
    pub kind: OverlayKind,
    /// The legend's line for it ("Reach of Cavalier from (3, 4): 7 movement, Cavalry").
    pub title: String,
    /// The number shown on each square; a square without one is out of reach.
    pub values: BTreeMap<Tile, u32>,
    /// The square the reach is from.
    pub origin: Option<Tile>,
}

/// How to draw a picture.
#[derive(Clone, Debug)]
pub struct Options {
    /// Each square's coordinates in its corner.
    pub coords: bool,
    /// The legend under the map.
    pub legend: bool,
    /// Pixels per square (`--scale` times the map's grid); the map's grid when `None`.
    pub grid: Option<u32>,
    pub overlay: Option<Overlay>,
}

impl Default for Options {
    fn default() -> Self {
        Options { coords: true, legend: true, grid: None, overlay: None }
    }
}

/// The size of the text of labels on squares of `g` pixels: at least 12 pixels to the em.
pub fn label_px(g: u32) -> f32 {
    (g as f32 * 0.2).max(12.0)
}

/// Squares smaller than this carry no coordinates or HP (the text would cover them).
pub const MIN_LABELLED_GRID: u32 = 36;

/// The heat colours: 0 (on the objective) first, then 1, 2, ... rounds; the last is "this many
/// or more".
pub const HEAT: [[u8; 3]; 7] =
    [[255, 215, 0], [40, 190, 70], [150, 210, 50], [240, 220, 40], [250, 150, 30], [235, 80, 40], [190, 20, 70]];
/// The colour of a square in reach.
pub const REACH: [u8; 3] = [40, 120, 255];
/// Out of reach, in an overlay.
pub const OUT_OF_REACH: [u8; 3] = [60, 60, 60];

fn heat_colour(v: u32) -> Rgb<u8> {
    Rgb(*HEAT.get(v as usize).or(HEAT.last()).unwrap_or(&OUT_OF_REACH))
}

/// One line of the legend.
#[derive(Clone, Debug, PartialEq)]
pub enum Swatch {
    /// A terrain's colour and pattern.
    Terrain(String),
    /// A region's outline colour.
    Region(Rgb<u8>),
    /// An overlay's colour.
    Fill(Rgb<u8>),
}

/// A legend section: a title, then entries (swatch and label).
#[derive(Clone, Debug, PartialEq)]
pub struct Section {
    pub title: String,
    pub entries: Vec<(Swatch, String)>,
}

/// What the legend says: every terrain present (by its title), every region (name, kind and
/// side) and the overlay's key.
pub fn legend(map: &Map, rules: &Rules, overlay: Option<&Overlay>) -> Vec<Section> {
    sections(map, Some(rules), overlay)
}

fn sections(map: &Map, rules: Option<&Rules>, overlay: Option<&Overlay>) -> Vec<Section> {
    let used: BTreeSet<&str> = map.tiles().filter_map(|t| map.terrain(t)).collect();
    let mut sections = vec![Section {
        title: "Terrain".into(),
        entries: used
            .iter()
            .map(|name| {
                let title =
                    rules.and_then(|r| r.terrain(name)).and_then(|t| t.title.clone()).unwrap_or_else(|| (*name).to_string());
                (Swatch::Terrain((*name).to_string()), title)
            })
            .collect(),
    }];
    if map.tiles().any(|t| map.terrain(t).is_none()) {
        if let Some(first) = sections.first_mut() {
            first.entries.push((Swatch::Fill(UNKNOWN), "no terrain (unknown symbol)".into()));
        }
    }
    if !map.regions.is_empty() {
        sections.push(Section {
            title: "Regions".into(),
            entries: map
                .regions
                .iter()
                .map(|r| {
                    let side = r.side.map(|s| match s {
                        Side::Attacker => ", attacker",
                        Side::Defender => ", defender",
                    });
                    (
                        Swatch::Region(region_colour(r.kind, r.side)),
                        format!("{} ({}{})", r.name, r.kind.word(), side.unwrap_or("")),
                    )
                })
                .collect(),
        });
    }
    if let Some(o) = overlay {
        let entries = match o.kind {
            OverlayKind::Reach => vec![
                (Swatch::Fill(Rgb(REACH)), "in reach this turn (movement spent)".into()),
                (Swatch::Fill(Rgb(OUT_OF_REACH)), "out of reach".into()),
            ],
            OverlayKind::Heat => {
                let last = HEAT.len() - 1;
                let mut e: Vec<(Swatch, String)> = (0..HEAT.len())
                    .map(|i| {
                        let label = match i {
                            0 => "0 rounds: on the objective".to_string(),
                            1 => "1 round".to_string(),
                            i if i == last => format!("{i} or more rounds"),
                            i => format!("{i} rounds"),
                        };
                        (Swatch::Fill(heat_colour(i as u32)), label)
                    })
                    .collect();
                e.push((Swatch::Fill(Rgb(OUT_OF_REACH)), "cannot get there".into()));
                e
            }
        };
        sections.push(Section { title: o.title.clone(), entries });
    }
    sections
}

/// The legend's text size and geometry.
const LEGEND_PX: f32 = 14.0;
const LEGEND_ROW: u32 = 24;
const SWATCH: u32 = 20;

/// Each region's name badge on a map drawn at grid `g` (`overlay`: an overlay's numbers hold
/// the squares' middles), with its label and where the text starts. The name (or, where it does
/// not fit, the initials) sits on a dark badge in the region's first tile (top-most, then
/// left-most), across the run of tiles to its right. Regions overlap (a seized village inside a
/// deployment zone), so badges are placed smallest region first (it has the fewest places to
/// go), each in the first place that keeps clear of those placed: the middle of a run, then its
/// foot, then its head, run by run.
pub(crate) fn region_badges(map: &Map, g: u32, overlay: bool) -> Vec<(&crate::map::Region, String, Badge, (u32, u32))> {
    let lpx = label_px(g);
    let lh = text::line_height(lpx);
    let o = OUTLINE.min(g / 4).max(1);
    let mut out: Vec<(&crate::map::Region, String, Badge, (u32, u32))> = Vec::new();
    let mut order: Vec<(usize, BTreeSet<Tile>)> =
        map.regions.iter().map(|r| r.tiles.iter().map(|(t, _)| *t).filter(|t| map.in_bounds(*t)).collect()).enumerate().collect();
    order.sort_by_key(|(k, tiles)| (tiles.len(), *k));
    for (k, tiles) in order {
        let Some(r) = map.regions.get(k) else { continue };
        let badge = |first: &Tile, run: u32, place: u32| {
            let room = (run * g).saturating_sub(8);
            let label = if text::width(&r.name, lpx) <= room { r.name.clone() } else { initials(&r.name) };
            let tw = text::width(&label, lpx);
            let (x, y) = (first.x as u32 * g, first.y as u32 * g);
            let (middle, foot, head) = (y + g / 2 - lh / 2, (y + g).saturating_sub(lh + o + 2), y + o + 2);
            // Under an overlay the square's middle holds its number: the badge goes low.
            let by = match (place, overlay) {
                (0, false) => middle,
                (0, true) | (1, false) => foot,
                _ => head,
            };
            let bx = x + (run * g).saturating_sub(tw) / 2;
            (label, Badge { x: bx.saturating_sub(3), y: by.saturating_sub(1), w: tw + 6, h: lh + 2 }, (bx, by))
        };
        let candidates: Vec<_> = tiles
            .iter()
            .filter(|t| t.x == 0 || !tiles.contains(&Tile { x: t.x - 1, y: t.y }))
            .flat_map(|first| {
                let run = (first.x..).take_while(|x| tiles.contains(&Tile { x: *x, y: first.y })).count() as u32;
                (0..if overlay { 2 } else { 3 }).map(move |place| (first, run, place))
            })
            .map(|(first, run, place)| badge(first, run, place))
            .collect();
        let clear = |b: &Badge| !out.iter().any(|(_, _, p, _)| p.meets(b));
        if let Some((label, b, at)) = candidates.iter().find(|(_, b, _)| clear(b)).or(candidates.first()).cloned() {
            out.push((r, label, b, at));
        }
    }
    // Drawn in the map's order of regions.
    out.sort_by_key(|(r, ..)| map.regions.iter().position(|x| std::ptr::eq(x, *r)));
    out
}

/// A region's name badge on the map, in pixels.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Badge {
    x: u32,
    y: u32,
    w: u32,
    h: u32,
}

impl Badge {
    /// Whether the two badges cover a pixel in common.
    fn meets(&self, o: &Badge) -> bool {
        self.x < o.x + o.w && o.x < self.x + self.w && self.y < o.y + o.h && o.y < self.y + self.h
    }
}

/// A section's column width: room for its longest label.
fn column_width(labels: &[String], width: u32) -> u32 {
    let widest = labels.iter().map(|l| text::width(l, LEGEND_PX)).max().unwrap_or(0);
    (SWATCH + 8 + widest + 24).clamp(120, width.max(120))
}

/// The legend's height for its sections at a picture `width`: a title line each, then rows of
/// entries in as many columns as fit.
fn legend_height(sections: &[Section], width: u32) -> u32 {
    8 + sections
        .iter()
        .map(|s| {
            let labels: Vec<String> = s.entries.iter().map(|(_, l)| l.clone()).collect();
            let columns = (width / column_width(&labels, width)).max(1) as usize;
            LEGEND_ROW * (1 + s.entries.len().div_ceil(columns) as u32) + 4
        })
        .sum::<u32>()
}

/// The widest or tallest picture `oc render` draws, in pixels.
pub const MAX_RENDER_SIDE: u32 = 16_384;
/// The most pixels in one picture (8192 x 8192; 192 MiB of RGB in memory).
pub const MAX_RENDER_PIXELS: u64 = 1 << 26;

/// Why a picture is not drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PictureError {
    /// It would pass [`MAX_RENDER_SIDE`] pixels a side or [`MAX_RENDER_PIXELS`] in all.
    TooLarge { width: u64, height: u64, tiles: (i64, i64), grid: u64 },
    /// The map has no squares.
    Empty,
    /// Bytes that are not a PNG (what the decoder said).
    NotAPng(String),
    /// The tileset `oc export tiled` draws (one square per terrain used) would be too wide.
    TilesetTooWide { width: u64, terrains: u64, grid: u32 },
}

impl std::fmt::Display for PictureError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PictureError::TooLarge { width, height, tiles: (w, h), grid } => write!(
                f,
                "the picture would be {width}x{height} pixels ({w} by {h} tiles at {grid} pixels a square); oc draws at most {MAX_RENDER_SIDE} pixels a side and {} million pixels in all",
                MAX_RENDER_PIXELS / 1_000_000
            ),
            PictureError::Empty => f.write_str("the map has no squares to draw"),
            PictureError::NotAPng(why) => f.write_str(why),
            PictureError::TilesetTooWide { width, terrains, grid } => write!(
                f,
                "the tileset would be {width} pixels wide ({terrains} terrains at grid {grid}); oc draws at most {MAX_RENDER_SIDE} pixels a side"
            ),
        }
    }
}

impl std::error::Error for PictureError {}

/// The size of the picture of `map` with the default options (the legend measured with the
/// terrains' names, as no rules give their titles).
pub fn picture_size(map: &Map) -> Result<(u32, u32), PictureError> {
    size(map, None, &Options::default())
}

/// The size of the picture of `map` (the legend included), or why it would be too large.
pub fn picture_size_with(map: &Map, rules: &Rules, opts: &Options) -> Result<(u32, u32), PictureError> {
    size(map, Some(rules), opts)
}

fn size(map: &Map, rules: Option<&Rules>, opts: &Options) -> Result<(u32, u32), PictureError> {
    let g = u64::from(opts.grid.unwrap_or(map.grid));
    let (w, h) = (map.width.max(0) as u64 * g, map.height.max(0) as u64 * g);
    // A huge map's legend is not measured: its squares alone decide that it is too large.
    let legend = if opts.legend && w <= u64::from(MAX_RENDER_SIDE) && h <= u64::from(MAX_RENDER_SIDE) {
        u64::from(legend_height(&sections(map, rules, opts.overlay.as_ref()), w as u32))
    } else {
        0
    };
    let full_h = h + legend;
    if w > u64::from(MAX_RENDER_SIDE) || full_h > u64::from(MAX_RENDER_SIDE) || w * full_h > MAX_RENDER_PIXELS {
        return Err(PictureError::TooLarge { width: w, height: full_h, tiles: (map.width, map.height), grid: g });
    }
    if w == 0 || h == 0 {
        return Err(PictureError::Empty);
    }
    Ok((w as u32, full_h as u32))
}

/// Renders a resolved map with the default options, refusing one whose picture would pass
/// [`MAX_RENDER_SIDE`] or [`MAX_RENDER_PIXELS`]. Tiles whose symbol has no terrain are magenta.
pub fn render(map: &Map, rules: &Rules) -> Result<RgbImage, PictureError> {
    render_with(map, rules, &Options::default())
}

/// The map area alone (`width x grid` by `height x grid` pixels, no legend): the background
/// of a Foundry scene and the picture of a Universal VTT file.
pub fn render_map_area(map: &Map, rules: &Rules) -> Result<RgbImage, PictureError> {
    render_with(map, rules, &Options { legend: false, ..Options::default() })
}

/// Renders a resolved map as `opts` say.
pub fn render_with(map: &Map, rules: &Rules, opts: &Options) -> Result<RgbImage, PictureError> {
    let (w, full_h) = picture_size_with(map, rules, opts)?;
    let g = opts.grid.unwrap_or(map.grid);
    let h = map.height as u32 * g;
    let mut img = RgbImage::from_pixel(w, full_h, PAPER);
    let px = |t: Tile| (t.x as u32 * g, t.y as u32 * g);

    for t in map.tiles() {
        let (x, y) = px(t);
        let name = map.terrain(t);
        let colour = name.map_or(UNKNOWN, terrain_colour);
        fill(&mut img, x, y, g, g, colour);
        if let Some(name) = name {
            pattern::draw(&mut img, x, y, g, pattern(name, rules.terrain(name)), pattern::ink(colour));
        }
    }
    if let Some(o) = &opts.overlay {
        for t in map.tiles() {
            let (x, y) = px(t);
            let tint = match (o.kind, o.values.get(&t)) {
                (OverlayKind::Reach, Some(_)) => Rgb(REACH),
                (OverlayKind::Heat, Some(v)) => heat_colour(*v),
                (_, None) => Rgb(OUT_OF_REACH),
            };
            tint_square(&mut img, x, y, g, tint, if o.values.contains_key(&t) { 0.55 } else { 0.6 });
        }
    }
    // Grid lines: the top and left edge of every square, and the map's right and bottom border.
    for x in 0..=map.width as u32 {
        fill(&mut img, (x * g).min(w - 1), 0, 1, h, GRID_LINE);
    }
    for y in 0..=map.height as u32 {
        fill(&mut img, 0, (y * g).min(h - 1), w, 1, GRID_LINE);
    }
    let lpx = label_px(g);
    let labelled = g >= MIN_LABELLED_GRID;
    if opts.coords && labelled {
        for t in map.tiles() {
            let (x, y) = px(t);
            let colour = map.terrain(t).map_or(UNKNOWN, terrain_colour);
            let (ink, halo) = contrast(colour);
            text::draw(&mut img, x + 3, y + 2, lpx, &format!("{},{}", t.x, t.y), ink, Some(halo));
        }
    }
    // HP on every square that can be struck down: a listed destructible (its own HP, else its
    // terrain's), and every square of a terrain with HP (each Wall of the ratings rules), as
    // the engine treats them.
    let listed: BTreeMap<Tile, Option<i64>> = map.destructibles.iter().map(|d| (d.at, d.hp)).collect();
    for t in map.tiles().filter(|_| labelled) {
        let terrain_hp = map.terrain(t).and_then(|n| rules.terrain(n)).and_then(|tr| tr.hp).map(i64::from);
        let hp = match listed.get(&t) {
            Some(own) => own.or(terrain_hp),
            None if terrain_hp.is_some() => terrain_hp,
            None => continue,
        };
        let (x, y) = px(t);
        let label = format!("HP {}", hp.map(|h| h.to_string()).unwrap_or_default());
        text::draw(
            &mut img,
            x + 3,
            (y + g).saturating_sub(text::line_height(lpx) + 2),
            lpx,
            &label,
            Rgb([255, 255, 255]),
            Some(Rgb([0, 0, 0])),
        );
    }
    for (t, _) in &map.doors {
        if map.in_bounds(*t) {
            let (x, y) = px(*t);
            let m = g / 4;
            frame(&mut img, x + m, y + m, g - 2 * m, g - 2 * m, (g / 20).max(1), Rgb([60, 30, 10]));
            fill(&mut img, x + g / 2 - g / 20, y + g / 2 - g / 10, (g / 10).max(1), (g / 5).max(1), Rgb([240, 200, 60]));
        }
    }
    for c in &map.chests {
        if map.in_bounds(c.at) {
            let (x, y) = px(c.at);
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
            let (x, y) = px(*t);
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
    }
    for (r, label, b, (bx, by)) in region_badges(map, g, opts.overlay.is_some()) {
        fill(&mut img, b.x, b.y, b.w, b.h, Rgb([0, 0, 0]));
        text::draw(&mut img, bx, by, lpx, &label, region_colour(r.kind, r.side), None);
    }
    if let Some(o) = &opts.overlay {
        for (t, v) in &o.values {
            if !map.in_bounds(*t) {
                continue;
            }
            let (x, y) = px(*t);
            let label = v.to_string();
            let big = (g as f32 * 0.32).max(12.0);
            let (tw, lh) = (text::width(&label, big), text::line_height(big));
            text::draw(
                &mut img,
                x + g.saturating_sub(tw) / 2,
                y + g.saturating_sub(lh) / 2,
                big,
                &label,
                Rgb([255, 255, 255]),
                Some(Rgb([0, 0, 0])),
            );
        }
        if let Some(origin) = o.origin.filter(|t| map.in_bounds(*t)) {
            let (x, y) = px(origin);
            frame(&mut img, x, y, g, g, (g / 14).max(2), Rgb([255, 255, 255]));
        }
    }
    if opts.legend {
        draw_legend(&mut img, h, map, rules, opts.overlay.as_ref());
    }
    Ok(img)
}

/// Text shortened with `…` to fit `room` pixels.
fn fit(label: &str, px: f32, room: u32) -> String {
    if text::width(label, px) <= room {
        return label.to_string();
    }
    // The longest shorter start that fits with `…` after it (one pass, not a width for each).
    let shorter = label.char_indices().last().map_or(0, |(i, _)| i);
    match text::longest_start_fitting(label.get(..shorter).unwrap_or(""), "…", px, room) {
        Some(end) => format!("{}…", label.get(..end).unwrap_or("")),
        None => String::new(),
    }
}

fn draw_legend(img: &mut RgbImage, top: u32, map: &Map, rules: &Rules, overlay: Option<&Overlay>) {
    let mut y = top + 8;
    for section in legend(map, rules, overlay) {
        let labels: Vec<String> = section.entries.iter().map(|(_, l)| l.clone()).collect();
        let column = column_width(&labels, img.width());
        let columns = (img.width() / column).max(1);
        text::draw(img, 6, y + 2, LEGEND_PX, &fit(&section.title, LEGEND_PX, img.width().saturating_sub(12)), TEXT, None);
        y += LEGEND_ROW;
        for (i, (swatch, label)) in section.entries.iter().enumerate() {
            let (col, row) = (i as u32 % columns, i as u32 / columns);
            let (x, sy) = (6 + col * column, y + row * LEGEND_ROW);
            match swatch {
                Swatch::Terrain(name) => {
                    let colour = terrain_colour(name);
                    // The pattern at the squares' own size, shrunk: draw it large, then sample.
                    let mut big = RgbImage::from_pixel(70, 70, colour);
                    pattern::draw(&mut big, 0, 0, 70, pattern(name, rules.terrain(name)), pattern::ink(colour));
                    let small = image::imageops::resize(&big, SWATCH, SWATCH, image::imageops::FilterType::Triangle);
                    image::imageops::overlay(img, &small, i64::from(x), i64::from(sy));
                }
                Swatch::Region(c) => {
                    fill(img, x, sy, SWATCH, SWATCH, PAPER);
                    frame(img, x, sy, SWATCH, SWATCH, OUTLINE, *c);
                }
                Swatch::Fill(c) => fill(img, x, sy, SWATCH, SWATCH, *c),
            }
            frame(img, x, sy, SWATCH, SWATCH, 1, GRID_LINE);
            let room = column.min(img.width()).saturating_sub(SWATCH + 20);
            text::draw(img, x + SWATCH + 8, sy + 1, LEGEND_PX, &fit(label, LEGEND_PX, room), TEXT, None);
        }
        y += LEGEND_ROW * (section.entries.len() as u32).div_ceil(columns) + 4;
    }
}

fn tint_square(img: &mut RgbImage, x: u32, y: u32, g: u32, c: Rgb<u8>, a: f32) {
    let (iw, ih) = img.dimensions();
    for py in y..(y + g).min(ih) {
        for px in x..(x + g).min(iw) {
            let p = img.get_pixel_mut(px, py);
            for (dst, src) in p.0.iter_mut().zip(c.0) {
                *dst = (f32::from(*dst) * (1.0 - a) + f32::from(src) * a).round() as u8;
            }
        }
    }
}

/// Encodes an image as PNG bytes.
pub fn png(img: &RgbImage) -> Result<Vec<u8>, String> {
    encode(img, None)
}

/// Encodes an image as PNG bytes that say which command drew it (`oc render`), for a file the
/// output policy must tell apart from another command's picture.
pub fn png_drawn_by(img: &RgbImage, drawer: &str) -> Result<Vec<u8>, String> {
    encode(img, Some(drawer))
}

fn encode(img: &RgbImage, drawer: Option<&str>) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    image::codecs::png::PngEncoder::new(&mut out)
        .write_image(img.as_raw(), img.width(), img.height(), image::ExtendedColorType::Rgb8)
        .map_err(|e| e.to_string())?;
    Ok(with_software_text(out, drawer))
}

/// What every PNG oc writes says in its `Software` text chunk: how a later run tells its own
/// picture (which it may replace) from a painting (which it must not).
pub const SOFTWARE: &str = "oc (Officer's Chess authoring toolkit)";

/// How a PNG's `Comment` text chunk names the command that drew it, as the bytes in the file
/// read: `tEXtComment\0drawn by oc render`.
pub const DRAWN_BY_KEY: &str = "tEXtComment\0drawn by ";

/// Inserts a `tEXt` chunk `Software` = [`SOFTWARE`] after the PNG's header chunk, and, with a
/// drawer, a `Comment` chunk `drawn by DRAWER`.
fn with_software_text(png: Vec<u8>, drawer: Option<&str>) -> Vec<u8> {
    // Signature (8) + IHDR: length (4), type (4), 13 bytes of data, CRC (4).
    const AFTER_IHDR: usize = 33;
    if png.len() < AFTER_IHDR || png.get(12..16) != Some(b"IHDR") {
        return png;
    }
    let chunk = |data: Vec<u8>| {
        let mut chunk = ((data.len() - 4) as u32).to_be_bytes().to_vec();
        chunk.extend_from_slice(&data);
        chunk.extend_from_slice(&crc32(&data).to_be_bytes());
        chunk
    };
    let mut chunks = chunk([b"tEXtSoftware\0", SOFTWARE.as_bytes()].concat());
    if let Some(drawer) = drawer {
        chunks.extend(chunk([DRAWN_BY_KEY.as_bytes(), drawer.as_bytes()].concat()));
    }
    let (head, tail) = png.split_at(AFTER_IHDR);
    [head, &chunks, tail].concat()
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

/// Ink and halo for text on `c`: dark text with a light halo on light colours, and the other
/// way round.
fn contrast(c: Rgb<u8>) -> (Rgb<u8>, Rgb<u8>) {
    let [r, g, b] = c.0;
    let luma = u32::from(r) * 299 + u32::from(g) * 587 + u32::from(b) * 114;
    if luma > 128_000 {
        (Rgb([15, 15, 15]), Rgb([250, 250, 250]))
    } else {
        (Rgb([250, 250, 250]), Rgb([15, 15, 15]))
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

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use super::{fit, region_badges, text, Badge};

    /// A label too wide is cut to the longest start that fits with `…`, as measuring each
    /// shorter start in turn found it.
    #[test]
    fn fit_cuts_to_the_longest_start_that_fits() {
        fn each_in_turn(label: &str, px: f32, room: u32) -> String {
            if text::width(label, px) <= room {
                return label.to_string();
            }
            let mut chars: Vec<char> = label.chars().collect();
            while !chars.is_empty() {
                chars.pop();
                let s: String = chars.iter().collect::<String>() + "…";
                if text::width(&s, px) <= room {
                    return s;
                }
            }
            String::new()
        }
        for label in ["", "W", "eastern-road", "Ward of the Ancient Keep", "ééé€€€WWWiii", "x"] {
            for room in [0, 1, 5, 9, 12, 20, 40, 80, 200] {
                for px in [9.0, 12.0, 16.0] {
                    assert_eq!(fit(label, px, room), each_in_turn(label, px, room), "{label:?} in {room} at {px}");
                }
            }
        }
    }

    fn map(text: &str) -> crate::map::Map {
        let (map, diags) = crate::map::parse(oc_diag::FileId(0), text);
        map.unwrap_or_else(|| panic!("{diags:?}"))
    }

    fn disjoint(badges: &[Badge]) -> bool {
        badges.iter().enumerate().all(|(i, a)| badges.iter().skip(i + 1).all(|b| !a.meets(b)))
    }

    /// Issue 42: "overlapping region labels collide". Two regions whose first tile is the same
    /// (a seized village at a deployment zone's corner) get their names on different tiles.
    #[test]
    fn region_names_keep_clear_of_each_other() {
        let m = map(r#"name = "Two"
width = 2
height = 3
rows = ["..", "..", ".."]

[[regions]]
name = "attacker-zone"
kind = "deployment"
side = "attacker"
rect = [0, 0, 2, 3]

[[regions]]
name = "village"
kind = "seize"
side = "attacker"
rect = [0, 0, 2, 1]
"#);
        for overlay in [false, true] {
            let placed = region_badges(&m, 70, overlay);
            assert_eq!(placed.len(), 2);
            let boxes: Vec<Badge> = placed.iter().map(|(_, _, b, _)| *b).collect();
            assert!(disjoint(&boxes), "{boxes:?}");
            // The village (one run of tiles) keeps its first row; the zone gives way.
            assert!(boxes[0].y != boxes[1].y, "{boxes:?}");
        }
    }

    /// Every shipped map, at the grids `oc render` draws: no two region names overlap.
    #[test]
    fn no_shipped_map_has_overlapping_region_names() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/maps");
        let mut seen = 0;
        for entry in std::fs::read_dir(&dir).expect("scenarios/maps") {
            let path = entry.expect("entry").path();
            if !path.to_string_lossy().ends_with(".map.toml") {
                continue;
            }
            let m = map(&std::fs::read_to_string(&path).expect("map"));
            for g in [35, 70, 140] {
                let boxes: Vec<Badge> = region_badges(&m, g, false).iter().map(|(_, _, b, _)| *b).collect();
                assert!(disjoint(&boxes), "{} at grid {g}: {boxes:?}", path.display());
            }
            seen += 1;
        }
        assert!(seen >= 10, "read {seen} maps");
    }
}
