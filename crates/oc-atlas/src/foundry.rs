//! Foundry VTT scenes, as typed data serialised with serde: the fields of Foundry's `BaseScene`
//! for v12 (regions as Regions) and v11 (regions as Drawings, which v11 has instead).
//!
//! The scene's `background.src` names the picture under the folder the user uploads it to
//! (`asset_prefix`), so the imported scene shows the map, not a grey canvas.
//!
//! Foundry refuses a grid below its minimum (50 pixels in v11, 20 in v12) where oc takes grids
//! from 8: such a map's scene is scaled by the least whole factor that reaches the minimum
//! (`flags.oc.scale`), its background drawn as large ([`background`]). Doors that need a key or a
//! tag (`opened_by`) are locked; deployment zones, objectives and labels are shown to players.

use std::collections::BTreeSet;

use image::RgbImage;
use oc_model::Rules;
use serde::Serialize;

use crate::map::{Map, Side, Tile};
use crate::render::{region_colour, render_map_area, render_with, Options, PictureError, MAX_RENDER_PIXELS, MAX_RENDER_SIDE};
use crate::walls::{segments, WallKind};

/// Where `background.src` looks when the user does not say: a folder `oc-maps` in Foundry's
/// User Data (upload the picture there, with the File Picker or by copying it to
/// `Data/oc-maps/`).
pub const DEFAULT_ASSET_PREFIX: &str = "oc-maps/";

/// Which Foundry the scene is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Version {
    V11,
    V12,
}

impl Version {
    /// The smallest grid Foundry accepts (`CONST.GRID_MIN_SIZE`), in pixels.
    pub fn grid_min(self) -> i64 {
        match self {
            Version::V11 => 50,
            Version::V12 => 20,
        }
    }
}

/// The whole factor a map's scene is scaled by so that its grid reaches Foundry's minimum.
pub fn scale(grid: u32, version: Version) -> i64 {
    let grid = i64::from(grid).max(1);
    let min = version.grid_min();
    if grid >= min {
        1
    } else {
        (min + grid - 1) / grid
    }
}

/// The scene's background picture for `version`, as large as the scene: the map area drawn at
/// the scene's grid (the map's, scaled as the scene is), or the map's own picture `own`
/// enlarged pixel for pixel, so a scaled scene shows square for square and sharp. Where the
/// enlarged picture would be too large to draw, the map's own size (Foundry stretches the
/// background over the scene).
pub fn background(map: &Map, rules: &Rules, version: Version, own: Option<RgbImage>) -> Result<RgbImage, PictureError> {
    let factor = u32::try_from(scale(map.grid, version)).unwrap_or(1);
    let fits = |w: u32, h: u32| {
        let (w, h) = (u64::from(w) * u64::from(factor), u64::from(h) * u64::from(factor));
        w <= u64::from(MAX_RENDER_SIDE) && h <= u64::from(MAX_RENDER_SIDE) && w * h <= MAX_RENDER_PIXELS
    };
    match own {
        Some(img) if factor > 1 && fits(img.width(), img.height()) => {
            let (w, h) = (img.width() * factor, img.height() * factor);
            Ok(image::imageops::resize(&img, w, h, image::imageops::FilterType::Nearest))
        }
        Some(img) => Ok(img),
        None => {
            let scaled = Options { legend: false, grid: Some(map.grid.saturating_mul(factor)), ..Options::default() };
            render_with(map, rules, &scaled).or_else(|_| render_map_area(map, rules))
        }
    }
}

/// A scene as Foundry's "Import Data" reads it.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Scene {
    /// First, so that a later run recognises its own output from the file's first bytes.
    pub flags: SceneFlags,
    pub name: String,
    pub navigation: bool,
    pub width: i64,
    pub height: i64,
    pub padding: f64,
    pub background: Texture,
    pub background_color: String,
    pub grid: Grid,
    pub token_vision: bool,
    pub walls: Vec<Wall>,
    /// v12 only (v11 has no regions: they are `drawings` there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub regions: Option<Vec<RegionDoc>>,
    pub drawings: Vec<Drawing>,
    pub notes: Vec<Note>,
    pub tokens: Vec<serde_json::Value>,
    pub lights: Vec<serde_json::Value>,
    pub sounds: Vec<serde_json::Value>,
    pub templates: Vec<serde_json::Value>,
    pub tiles: Vec<serde_json::Value>,
}

/// Foundry's `TextureData`.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Texture {
    pub src: Option<String>,
    pub scale_x: f64,
    pub scale_y: f64,
    pub offset_x: f64,
    pub offset_y: f64,
    pub rotation: f64,
}

impl Texture {
    fn of(src: Option<String>) -> Self {
        Texture { src, scale_x: 1.0, scale_y: 1.0, offset_x: 0.0, offset_y: 0.0, rotation: 0.0 }
    }
}

/// The scene's grid. `style` and `thickness` are v12's (v11 has neither).
#[derive(Serialize, Debug)]
pub struct Grid {
    /// 1: square.
    #[serde(rename = "type")]
    pub kind: u8,
    pub size: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thickness: Option<i64>,
    pub color: String,
    pub alpha: f64,
    pub distance: f64,
    pub units: String,
}

/// A wall (`BaseWall`): `c` is `[x0, y0, x1, y1]` in pixels; senses 20 (normal) block, 0 none.
#[derive(Serialize, Debug)]
pub struct Wall {
    pub c: [i64; 4],
    #[serde(rename = "move")]
    pub movement: u8,
    pub sight: u8,
    pub light: u8,
    pub sound: u8,
    pub dir: u8,
    /// 0: a wall, 1: a door.
    pub door: u8,
    /// Door state (`CONST.WALL_DOOR_STATES`): 0 closed, 2 locked (a door that needs a key).
    pub ds: u8,
    pub flags: WallFlags,
}

#[derive(Serialize, Debug, Default)]
pub struct WallFlags {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oc: Option<WallOc>,
}

/// What oc knows of a wall that Foundry does not: a door's tile and what opens it; the tiles
/// whose sides a wall that can be struck down runs along, and their HP (`own`: listed in the
/// map, not the terrain's).
#[derive(Serialize, Debug)]
pub struct WallOc {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tile: Option<[i64; 2]>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub opened_by: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tiles: Vec<[i64; 2]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hp: Option<i64>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub own_hp: bool,
    pub destructible: bool,
}

/// A v12 Region (`BaseRegion`).
#[derive(Serialize, Debug)]
pub struct RegionDoc {
    pub name: String,
    pub color: String,
    pub shapes: Vec<RectangleShape>,
    pub elevation: Elevation,
    pub behaviors: Vec<serde_json::Value>,
    pub visibility: u8,
    pub locked: bool,
    pub flags: RegionFlags,
}

#[derive(Serialize, Debug)]
pub struct RectangleShape {
    #[serde(rename = "type")]
    pub kind: String,
    pub x: i64,
    pub y: i64,
    pub width: i64,
    pub height: i64,
    pub rotation: f64,
    pub hole: bool,
}

#[derive(Serialize, Debug)]
pub struct Elevation {
    pub bottom: Option<f64>,
    pub top: Option<f64>,
}

#[derive(Serialize, Debug)]
pub struct RegionFlags {
    pub oc: RegionOc,
}

/// A region's meaning in oc, kept in its flags (and in a v11 drawing's).
#[derive(Serialize, Debug, Clone)]
pub struct RegionOc {
    pub region: String,
    pub kind: String,
    pub side: Option<String>,
    pub units: Option<i64>,
}

/// A v11 Drawing (`BaseDrawing`): one rectangle of a region, its name as the text.
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Drawing {
    pub shape: DrawingShape,
    pub x: i64,
    pub y: i64,
    pub z: i64,
    pub rotation: f64,
    pub bezier_factor: f64,
    /// 1: solid fill.
    pub fill_type: u8,
    pub fill_color: String,
    pub fill_alpha: f64,
    pub stroke_width: i64,
    pub stroke_color: String,
    pub stroke_alpha: f64,
    pub text: String,
    pub font_size: i64,
    pub text_color: String,
    pub text_alpha: f64,
    pub hidden: bool,
    pub locked: bool,
    pub flags: RegionFlags,
}

/// `ShapeData`: `"r"`, a rectangle.
#[derive(Serialize, Debug)]
pub struct DrawingShape {
    #[serde(rename = "type")]
    pub kind: String,
    pub width: i64,
    pub height: i64,
    pub radius: Option<f64>,
    pub points: Vec<f64>,
}

/// A map note (`BaseNote`): the icon in `texture.src` (the key v10 and later read; `icon` was
/// v9's).
#[derive(Serialize, Debug)]
#[serde(rename_all = "camelCase")]
pub struct Note {
    pub x: i64,
    pub y: i64,
    pub texture: Texture,
    pub icon_size: i64,
    pub text: String,
    pub font_size: i64,
    /// 1: text below the icon (`CONST.TEXT_ANCHOR_POINTS.BOTTOM`).
    pub text_anchor: u8,
    pub text_color: String,
    pub global: bool,
    pub flags: NoteFlags,
}

#[derive(Serialize, Debug)]
pub struct NoteFlags {
    pub oc: NoteOc,
}

#[derive(Serialize, Debug)]
pub struct NoteOc {
    pub chest: [i64; 2],
    pub item: String,
}

#[derive(Serialize, Debug)]
pub struct SceneFlags {
    pub oc: SceneOc,
}

/// What the scene came from; `tiles_wide` also tells a later `oc export` its own output.
#[derive(Serialize, Debug)]
pub struct SceneOc {
    pub map: String,
    pub tiles_wide: i64,
    pub tiles_high: i64,
    pub rounds: Option<i64>,
    pub foundry: u8,
    /// The factor the map was scaled by to reach Foundry's smallest grid (absent: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scale: Option<i64>,
}

fn hex(c: image::Rgb<u8>) -> String {
    format!("#{:02x}{:02x}{:02x}", c.0[0], c.0[1], c.0[2])
}

fn side_word(s: Side) -> &'static str {
    match s {
        Side::Attacker => "attacker",
        Side::Defender => "defender",
    }
}

/// A set of tiles as rectangles `(x, y, width, height)`: maximal runs along each row, joined
/// with the run below when it spans the same columns.
pub fn rectangles(tiles: &BTreeSet<Tile>) -> Vec<(i64, i64, i64, i64)> {
    let mut sorted: Vec<Tile> = tiles.iter().copied().collect();
    sorted.sort_by_key(|t| (t.y, t.x));
    let mut runs: Vec<(i64, i64, i64)> = Vec::new();
    for t in sorted {
        match runs.last_mut() {
            Some((x, y, len)) if *y == t.y && *x + *len == t.x => *len += 1,
            _ => runs.push((t.x, t.y, 1)),
        }
    }
    let mut rects: Vec<(i64, i64, i64, i64)> = Vec::new();
    for (x, y, len) in runs {
        match rects.iter_mut().find(|r| r.0 == x && r.2 == len && r.1 + r.3 == y) {
            Some(r) => r.3 += 1,
            None => rects.push((x, y, len, 1)),
        }
    }
    rects
}

/// The Foundry scene of a resolved map for `version`, its background at `background_src`
/// (already joined to the asset prefix; `None` leaves the canvas grey).
pub fn scene(map: &Map, rules: &Rules, version: Version, background_src: Option<String>) -> Scene {
    let factor = scale(map.grid, version);
    let g = i64::from(map.grid) * factor;
    let walls = segments(map, rules)
        .into_iter()
        .map(|s| {
            let c = s.pixels(g);
            let (door, ds, oc) = match s.kind {
                WallKind::Wall => (0, 0, None),
                WallKind::Door(t, opened_by) => {
                    let locked = if opened_by.is_empty() { 0 } else { 2 };
                    let oc = WallOc {
                        tile: Some([t.x, t.y]),
                        opened_by,
                        tiles: Vec::new(),
                        hp: None,
                        own_hp: false,
                        destructible: false,
                    };
                    (1, locked, Some(oc))
                }
                WallKind::Destructible { tiles, hp, own } => {
                    let tiles = tiles.iter().map(|t| [t.x, t.y]).collect();
                    let oc = WallOc { tile: None, opened_by: Vec::new(), tiles, hp: Some(hp), own_hp: own, destructible: true };
                    (0, 0, Some(oc))
                }
            };
            Wall { c, movement: 20, sight: 20, light: 20, sound: 20, dir: 0, door, ds, flags: WallFlags { oc } }
        })
        .collect();
    let mut regions = Vec::new();
    let mut drawings = Vec::new();
    for r in &map.regions {
        let tiles: BTreeSet<Tile> = r.tiles.iter().map(|(t, _)| *t).filter(|t| map.in_bounds(*t)).collect();
        let colour = hex(region_colour(r.kind, r.side));
        let oc = RegionOc {
            region: r.name.clone(),
            kind: r.kind.word().to_string(),
            side: r.side.map(|s| side_word(s).to_string()),
            units: r.units,
        };
        let rects = rectangles(&tiles);
        match version {
            Version::V12 => regions.push(RegionDoc {
                name: r.name.clone(),
                color: colour,
                shapes: rects
                    .iter()
                    .map(|(x, y, w, h)| RectangleShape {
                        kind: "rectangle".into(),
                        x: x * g,
                        y: y * g,
                        width: w * g,
                        height: h * g,
                        rotation: 0.0,
                        hole: false,
                    })
                    .collect(),
                elevation: Elevation { bottom: None, top: None },
                behaviors: Vec::new(),
                // `CONST.REGION_VISIBILITY.ALWAYS`: players see where they deploy and what to take.
                visibility: 2,
                locked: false,
                flags: RegionFlags { oc },
            }),
            Version::V11 => drawings.extend(rects.iter().map(|(x, y, w, h)| Drawing {
                shape: DrawingShape { kind: "r".into(), width: w * g, height: h * g, radius: None, points: Vec::new() },
                x: x * g,
                y: y * g,
                z: 0,
                rotation: 0.0,
                bezier_factor: 0.0,
                fill_type: 1,
                fill_color: colour.clone(),
                fill_alpha: 0.15,
                stroke_width: 4,
                stroke_color: colour.clone(),
                stroke_alpha: 1.0,
                text: r.name.clone(),
                font_size: 24,
                text_color: "#ffffff".into(),
                text_alpha: 1.0,
                hidden: false,
                locked: false,
                flags: RegionFlags { oc: oc.clone() },
            })),
        }
    }
    let notes = map
        .chests
        .iter()
        .filter(|c| map.in_bounds(c.at))
        .map(|c| Note {
            x: c.at.x * g + g / 2,
            y: c.at.y * g + g / 2,
            texture: Texture::of(Some("icons/svg/chest.svg".into())),
            icon_size: 40,
            text: format!("Chest: {}", c.item),
            font_size: 24,
            text_anchor: 1,
            text_color: "#ffffff".into(),
            global: false,
            flags: NoteFlags { oc: NoteOc { chest: [c.at.x, c.at.y], item: c.item.clone() } },
        })
        .collect();
    let v12 = version == Version::V12;
    Scene {
        name: map.name.clone(),
        navigation: true,
        width: map.width * g,
        height: map.height * g,
        padding: 0.0,
        background: Texture::of(background_src),
        background_color: "#999999".into(),
        grid: Grid {
            kind: 1,
            size: g,
            style: v12.then(|| "solidLines".into()),
            thickness: v12.then_some(1),
            color: "#000000".into(),
            alpha: 0.3,
            distance: 1.0,
            units: "sq".into(),
        },
        token_vision: false,
        walls,
        regions: v12.then_some(regions),
        drawings,
        notes,
        tokens: Vec::new(),
        lights: Vec::new(),
        sounds: Vec::new(),
        templates: Vec::new(),
        tiles: Vec::new(),
        flags: SceneFlags {
            oc: SceneOc {
                map: map.name.clone(),
                tiles_wide: map.width,
                tiles_high: map.height,
                rounds: map.rounds,
                foundry: if v12 { 12 } else { 11 },
                scale: (factor > 1).then_some(factor),
            },
        },
    }
}

/// `background.src`: the picture's file name under the asset prefix (a prefix without a
/// trailing `/` gets one; an empty prefix leaves the name alone).
pub fn asset_path(prefix: &str, file: &str) -> String {
    if prefix.is_empty() || prefix.ends_with('/') {
        format!("{prefix}{file}")
    } else {
        format!("{prefix}/{file}")
    }
}
