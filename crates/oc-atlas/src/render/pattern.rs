//! Terrain patterns: each terrain is told apart by its pattern as well as its colour (forest
//! trees, mountain peaks, water waves, wall bricks...), so two terrains of close colours, or a
//! picture printed in grey, still read. Home-brew terrain gets a pattern from what it does.

use image::{Rgb, RgbImage};

/// What is drawn over a terrain's colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Pattern {
    Plain,
    Trees,
    Peaks,
    Waves,
    Bricks,
    Cracks,
    Steps,
    Columns,
    Stipple,
    Dunes,
    Planks,
    Rails,
    Battlements,
    Cross,
    Diamond,
    Roof,
    Arch,
}

/// The pattern of a terrain: fixed for the standard library's, derived for home-brew ones
/// (impassable to every movement type: bricks; a defence bonus: stipple; else plain).
pub fn pattern(name: &str, terrain: Option<&oc_model::Terrain>) -> Pattern {
    match name {
        "Plains" | "Floor" => Pattern::Plain,
        "Forest" => Pattern::Trees,
        "Mountain" => Pattern::Peaks,
        "Sea" | "Lake" | "River" => Pattern::Waves,
        "Wall" => Pattern::Bricks,
        "Ruins" => Pattern::Cracks,
        "Stairs" => Pattern::Steps,
        "Pillars" => Pattern::Columns,
        "Sand" => Pattern::Stipple,
        "Desert" => Pattern::Dunes,
        "Door" => Pattern::Planks,
        "Bridge" => Pattern::Rails,
        "Fort" | "CastleGate" => Pattern::Battlements,
        "Snag" => Pattern::Cross,
        "Throne" => Pattern::Diamond,
        "Buildings" => Pattern::Roof,
        "VillageGate" => Pattern::Arch,
        _ => match terrain {
            Some(t) if t.costs.values().all(Option::is_none) => Pattern::Bricks,
            Some(t) if t.defense > 0 => Pattern::Stipple,
            _ => Pattern::Plain,
        },
    }
}

/// The ink of a pattern on `base`: darker on light colours, lighter on dark ones.
pub fn ink(base: Rgb<u8>) -> Rgb<u8> {
    let [r, g, b] = base.0;
    let luma = u32::from(r) * 299 + u32::from(g) * 587 + u32::from(b) * 114;
    let mix = |c: u8, to: u8, a: f32| (f32::from(c) * (1.0 - a) + f32::from(to) * a).round() as u8;
    if luma > 110_000 {
        Rgb([mix(r, 0, 0.45), mix(g, 0, 0.45), mix(b, 0, 0.45)])
    } else {
        Rgb([mix(r, 255, 0.4), mix(g, 255, 0.4), mix(b, 255, 0.4)])
    }
}

fn put(img: &mut RgbImage, x: i64, y: i64, c: Rgb<u8>) {
    if x >= 0 && y >= 0 && x < i64::from(img.width()) && y < i64::from(img.height()) {
        img.put_pixel(x as u32, y as u32, c);
    }
}

fn dot(img: &mut RgbImage, x: i64, y: i64, t: i64, c: Rgb<u8>) {
    for dy in 0..t {
        for dx in 0..t {
            put(img, x + dx, y + dy, c);
        }
    }
}

/// A line `t` pixels thick from (x0, y0) to (x1, y1).
fn line(img: &mut RgbImage, (x0, y0): (i64, i64), (x1, y1): (i64, i64), t: i64, c: Rgb<u8>) {
    let steps = (x1 - x0).abs().max((y1 - y0).abs()).max(1);
    for i in 0..=steps {
        let x = x0 + (x1 - x0) * i / steps;
        let y = y0 + (y1 - y0) * i / steps;
        dot(img, x, y, t, c);
    }
}

/// Draws `p` over the square at (x, y) of side `s` (clipped to it).
pub fn draw(img: &mut RgbImage, x: u32, y: u32, s: u32, p: Pattern, c: Rgb<u8>) {
    // Draw into a scratch square and copy the ink, so nothing spills onto a neighbour.
    let mut tile = RgbImage::from_pixel(s, s, Rgb([255, 0, 255]));
    let key = Rgb([255, 0, 255]);
    let c = if c == key { Rgb([254, 0, 255]) } else { c };
    let si = i64::from(s);
    let t = (si / 35).max(1);
    let at = |f: i64| si * f / 100;
    match p {
        Pattern::Plain => {}
        Pattern::Trees => {
            for (cx, cy) in [(28, 38), (70, 30), (48, 72), (82, 74)] {
                let (cx, cy, h) = (at(cx), at(cy), at(16));
                line(&mut tile, (cx, cy - h), (cx - h * 2 / 3, cy + h / 2), t, c);
                line(&mut tile, (cx, cy - h), (cx + h * 2 / 3, cy + h / 2), t, c);
                line(&mut tile, (cx - h * 2 / 3, cy + h / 2), (cx + h * 2 / 3, cy + h / 2), t, c);
                line(&mut tile, (cx, cy + h / 2), (cx, cy + h), t, c);
            }
        }
        Pattern::Peaks => {
            for (cx, cy, h) in [(35, 62, 30), (70, 72, 22)] {
                let (cx, cy, h) = (at(cx), at(cy), at(h));
                line(&mut tile, (cx - h, cy), (cx, cy - h), t + 1, c);
                line(&mut tile, (cx, cy - h), (cx + h, cy), t + 1, c);
            }
        }
        Pattern::Waves => {
            for row in [30, 55, 80] {
                let y0 = at(row);
                let mut prev = None;
                for xx in at(8)..at(92) {
                    let phase = (xx - at(8)) as f64 / (si as f64 / 4.0) * std::f64::consts::TAU;
                    let yy = y0 + (phase.sin() * at(5) as f64).round() as i64;
                    if let Some(p) = prev {
                        line(&mut tile, p, (xx, yy), t, c);
                    }
                    prev = Some((xx, yy));
                }
            }
        }
        Pattern::Bricks => {
            for (i, row) in [25, 50, 75].iter().enumerate() {
                line(&mut tile, (0, at(*row)), (si, at(*row)), t, c);
                let offset = if i % 2 == 0 { 25 } else { 50 };
                for col in [offset, offset + 50] {
                    line(&mut tile, (at(col), at(*row)), (at(col), at(*row + 25)), t, c);
                }
            }
        }
        Pattern::Cracks => {
            line(&mut tile, (at(15), at(20)), (at(40), at(45)), t, c);
            line(&mut tile, (at(40), at(45)), (at(35), at(70)), t, c);
            line(&mut tile, (at(60), at(30)), (at(85), at(55)), t, c);
            line(&mut tile, (at(55), at(75)), (at(80), at(85)), t, c);
            dot(&mut tile, at(22), at(80), t + 2, c);
        }
        Pattern::Steps => {
            for (i, row) in [28, 46, 64, 82].iter().enumerate() {
                let inset = at(10 + 6 * i as i64);
                line(&mut tile, (inset, at(*row)), (si - inset, at(*row)), t + 1, c);
            }
        }
        Pattern::Columns => {
            for (cx, cy) in [(30, 35), (70, 35), (30, 72), (70, 72)] {
                let r = at(9);
                for a in 0..48 {
                    let ang = f64::from(a) / 48.0 * std::f64::consts::TAU;
                    let (px, py) =
                        (at(cx) + (ang.cos() * r as f64).round() as i64, at(cy) + (ang.sin() * r as f64).round() as i64);
                    dot(&mut tile, px, py, t, c);
                }
            }
        }
        Pattern::Stipple => {
            for (i, row) in [20, 40, 60, 80].iter().enumerate() {
                for col in [15, 35, 55, 75, 95] {
                    let col = if i % 2 == 0 { col } else { col - 10 };
                    dot(&mut tile, at(col), at(*row), t + 1, c);
                }
            }
        }
        Pattern::Dunes => {
            for k in [-40, 0, 40, 80] {
                line(&mut tile, (at(k), si), (at(k + 60), 0), t, c);
            }
        }
        Pattern::Planks => {
            for col in [25, 50, 75] {
                line(&mut tile, (at(col), at(5)), (at(col), at(95)), t, c);
            }
        }
        Pattern::Rails => {
            line(&mut tile, (0, at(15)), (si, at(15)), t + 1, c);
            line(&mut tile, (0, at(85)), (si, at(85)), t + 1, c);
            for col in [20, 40, 60, 80] {
                line(&mut tile, (at(col), at(15)), (at(col), at(85)), t, c);
            }
        }
        Pattern::Battlements => {
            for col in [10, 40, 70] {
                dot(&mut tile, at(col), at(12), at(20), c);
            }
            line(&mut tile, (at(10), at(32)), (at(90), at(32)), t + 1, c);
            line(&mut tile, (at(10), at(88)), (at(90), at(88)), t + 1, c);
        }
        Pattern::Cross => {
            line(&mut tile, (at(20), at(20)), (at(80), at(80)), t + 1, c);
            line(&mut tile, (at(80), at(20)), (at(20), at(80)), t + 1, c);
        }
        Pattern::Diamond => {
            let (m, r) = (at(50), at(32));
            line(&mut tile, (m, m - r), (m + r, m), t + 1, c);
            line(&mut tile, (m + r, m), (m, m + r), t + 1, c);
            line(&mut tile, (m, m + r), (m - r, m), t + 1, c);
            line(&mut tile, (m - r, m), (m, m - r), t + 1, c);
        }
        Pattern::Roof => {
            line(&mut tile, (at(20), at(50)), (at(50), at(22)), t + 1, c);
            line(&mut tile, (at(50), at(22)), (at(80), at(50)), t + 1, c);
            line(&mut tile, (at(28), at(50)), (at(28), at(82)), t, c);
            line(&mut tile, (at(72), at(50)), (at(72), at(82)), t, c);
            line(&mut tile, (at(28), at(82)), (at(72), at(82)), t, c);
        }
        Pattern::Arch => {
            line(&mut tile, (at(25), at(85)), (at(25), at(40)), t + 1, c);
            line(&mut tile, (at(75), at(85)), (at(75), at(40)), t + 1, c);
            line(&mut tile, (at(25), at(40)), (at(50), at(22)), t + 1, c);
            line(&mut tile, (at(50), at(22)), (at(75), at(40)), t + 1, c);
        }
    }
    for (px, py, v) in tile.enumerate_pixels() {
        if *v != key {
            put(img, i64::from(x + px), i64::from(y + py), *v);
        }
    }
}
