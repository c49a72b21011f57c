//! Universal VTT (format 0.3, the `.uvtt` / `.dd2vtt` JSON that Foundry's Universal Battlemap
//! Importer, Fantasy Grounds Unity, Roll20 tools, AboveVTT and Arkenforge read): the map
//! picture as base64 PNG, the grid, walls as `line_of_sight` polylines — merged as Dungeondraft
//! writes them, none ending where another starts (see [`crate::walls::polylines`]) — and doors
//! as `portals`, every position in grid squares.

use oc_model::Rules;
use serde::Serialize;

use crate::map::Map;
use crate::walls::{polylines, segments, WallKind};

/// The format version written.
pub const FORMAT: f64 = 0.3;

/// What the `software` key of every file oc writes says.
pub const SOFTWARE: &str = crate::render::SOFTWARE;

#[derive(Serialize, Debug, Clone, Copy, PartialEq)]
pub struct Point {
    pub x: f64,
    pub y: f64,
}

#[derive(Serialize, Debug)]
pub struct Resolution {
    pub map_origin: Point,
    pub map_size: Point,
    pub pixels_per_grid: u32,
}

#[derive(Serialize, Debug)]
pub struct Portal {
    pub position: Point,
    pub bounds: [Point; 2],
    /// Radians.
    pub rotation: f64,
    pub closed: bool,
    pub freestanding: bool,
}

#[derive(Serialize, Debug)]
pub struct Environment {
    pub baked_lighting: bool,
    pub ambient_light: String,
}

/// A Universal VTT file.
#[derive(Serialize, Debug)]
pub struct Uvtt {
    pub format: f64,
    pub software: String,
    pub resolution: Resolution,
    pub line_of_sight: Vec<Vec<Point>>,
    pub objects_line_of_sight: Vec<Vec<Point>>,
    pub portals: Vec<Portal>,
    pub environment: Environment,
    pub lights: Vec<serde_json::Value>,
    /// The map picture: PNG bytes in standard base64.
    pub image: String,
}

fn point(half: (i64, i64)) -> Point {
    Point { x: half.0 as f64 / 2.0, y: half.1 as f64 / 2.0 }
}

/// The Universal VTT file of a resolved map whose picture (map area only, `width x grid` by
/// `height x grid` pixels) is `png`.
pub fn uvtt(map: &Map, rules: &Rules, png: &[u8]) -> Uvtt {
    let line_of_sight = polylines(map, rules).into_iter().map(|line| line.into_iter().map(point).collect()).collect();
    let mut portals = Vec::new();
    for s in segments(map, rules) {
        let (a, b) = (point(s.a), point(s.b));
        match s.kind {
            WallKind::Wall | WallKind::Destructible { .. } => {}
            WallKind::Door(..) => portals.push(Portal {
                position: Point { x: (a.x + b.x) / 2.0, y: (a.y + b.y) / 2.0 },
                bounds: [a, b],
                rotation: (b.y - a.y).atan2(b.x - a.x),
                closed: true,
                freestanding: false,
            }),
        }
    }
    Uvtt {
        format: FORMAT,
        software: SOFTWARE.to_string(),
        resolution: Resolution {
            map_origin: Point { x: 0.0, y: 0.0 },
            map_size: Point { x: map.width as f64, y: map.height as f64 },
            pixels_per_grid: map.grid,
        },
        line_of_sight,
        objects_line_of_sight: Vec::new(),
        portals,
        environment: Environment { baked_lighting: false, ambient_light: "ffffffff".into() },
        lights: Vec::new(),
        image: base64(png),
    }
}

/// Standard base64 (RFC 4648, with padding).
pub fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [chunk.first().copied().unwrap_or(0), chunk.get(1).copied().unwrap_or(0), chunk.get(2).copied().unwrap_or(0)];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                let index = ((n >> (18 - 6 * i)) & 63) as usize;
                out.push(char::from(ALPHABET.get(index).copied().unwrap_or(b'A')));
            } else {
                out.push('=');
            }
        }
    }
    out
}
