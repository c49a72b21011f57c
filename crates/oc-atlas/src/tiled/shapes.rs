//! The shapes of Tiled's objects as squares of the map: a rectangle (snapped to the grid), a
//! polygon or an ellipse (the squares whose centres it holds: the natural way to draw an
//! L-shaped zone), a point (its square). Rotation (degrees, clockwise, about the object's
//! `x`, `y`) is applied to every shape.

use crate::map::Tile;

/// An object's shape, in pixels relative to its `x`, `y`.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    Rectangle {
        w: f64,
        h: f64,
    },
    Ellipse {
        w: f64,
        h: f64,
    },
    Polygon(Vec<(f64, f64)>),
    /// A polyline is a line, not an area.
    Polyline,
    Point,
    /// A text object.
    Text,
}

/// The shape of an `<object>` element (`w`, `h` its `width` and `height`).
pub fn shape(obj: roxmltree::Node, w: f64, h: f64) -> Shape {
    for child in obj.children().filter(roxmltree::Node::is_element) {
        match child.tag_name().name() {
            "ellipse" => return Shape::Ellipse { w, h },
            "point" => return Shape::Point,
            "text" => return Shape::Text,
            "polyline" => return Shape::Polyline,
            "polygon" => return Shape::Polygon(points(child.attribute("points").unwrap_or(""))),
            _ => {}
        }
    }
    Shape::Rectangle { w, h }
}

/// Tiled's `points="0,0 64,0 64,32"`; a pair that does not read is left out.
fn points(text: &str) -> Vec<(f64, f64)> {
    text.split_whitespace()
        .filter_map(|pair| {
            let (x, y) = pair.split_once(',')?;
            let (x, y) = (x.trim().parse::<f64>().ok()?, y.trim().parse::<f64>().ok()?);
            (x.is_finite() && y.is_finite()).then_some((x, y))
        })
        .collect()
}

/// A point of the shape (relative) in map pixels, the object at (`x`, `y`) turned by
/// `rotation` degrees clockwise about that corner.
fn place(x: f64, y: f64, rotation: f64, (px, py): (f64, f64)) -> (f64, f64) {
    let (s, c) = rotation.to_radians().sin_cos();
    (x + px * c - py * s, y + px * s + py * c)
}

/// Where the horizontal line at `y` crosses the polygon's edges: the `x` of each crossing that
/// [`inside`] counts (an edge whose ends lie on either side of the line; none that is not a
/// number, which `inside`'s comparison never counts).
fn crossings_at(poly: &[(f64, f64)], y: f64) -> impl Iterator<Item = f64> + '_ {
    let n = poly.len();
    (0..n).filter_map(move |i| {
        let (&(x1, y1), &(x2, y2)) = (poly.get(i)?, poly.get((i + n - 1) % n)?);
        let x = (x2 - x1) * (y - y1) / (y2 - y1) + x1;
        ((y1 > y) != (y2 > y) && !x.is_nan()).then_some(x)
    })
}

/// Whether a point is inside a polygon (even-odd rule).
#[cfg(test)]
fn inside(poly: &[(f64, f64)], (x, y): (f64, f64)) -> bool {
    let mut odd = false;
    let n = poly.len();
    for i in 0..n {
        let (Some(&(x1, y1)), Some(&(x2, y2))) = (poly.get(i), poly.get((i + n - 1) % n)) else { continue };
        if (y1 > y) != (y2 > y) && x < (x2 - x1) * (y - y1) / (y2 - y1) + x1 {
            odd = !odd;
        }
    }
    odd
}

/// The squares of a polygon, an ellipse or a turned rectangle: those whose centres it holds,
/// looked for on the map of `width` by `height` squares of `g` pixels and one square around it
/// (a square found there is off the map: the caller says so). `None` for a shape that is no area
/// (a polyline, a text).
pub fn area(shape: &Shape, x: f64, y: f64, rotation: f64, g: f64, width: i64, height: i64) -> Option<Vec<Tile>> {
    let outline: Vec<(f64, f64)> = match shape {
        Shape::Polygon(points) => points.iter().map(|p| place(x, y, rotation, *p)).collect(),
        Shape::Ellipse { w, h } => {
            // A many-sided polygon close enough to the ellipse for squares' centres.
            (0..72)
                .map(|i| {
                    let a = f64::from(i) * std::f64::consts::TAU / 72.0;
                    place(x, y, rotation, (w / 2.0 * (1.0 + a.cos()), h / 2.0 * (1.0 + a.sin())))
                })
                .collect()
        }
        Shape::Rectangle { w, h } => {
            [(0.0, 0.0), (*w, 0.0), (*w, *h), (0.0, *h)].iter().map(|p| place(x, y, rotation, *p)).collect()
        }
        Shape::Point => {
            let t = Tile { x: (x / g).floor() as i64, y: (y / g).floor() as i64 };
            return Some(vec![t]);
        }
        Shape::Polyline | Shape::Text => return None,
    };
    let fold = |f: fn(f64, f64) -> f64, start: f64, pick: fn(&(f64, f64)) -> f64| outline.iter().map(pick).fold(start, f);
    let (x0, x1) = (fold(f64::min, f64::INFINITY, |p| p.0), fold(f64::max, f64::NEG_INFINITY, |p| p.0));
    let (y0, y1) = (fold(f64::min, f64::INFINITY, |p| p.1), fold(f64::max, f64::NEG_INFINITY, |p| p.1));
    if !(x0.is_finite() && x1.is_finite() && y0.is_finite() && y1.is_finite()) {
        return Some(Vec::new());
    }
    let clamp = |v: f64, max: i64| (v / g).floor().clamp(-1.0, max as f64) as i64;
    let mut out = Vec::new();
    // Row by row: where the row's centre line crosses the outline, found once for the row, and
    // each square's centre inside where an odd number of those crossings lie to its right (the
    // even-odd rule of `inside`, the same crossings by the same arithmetic): a polygon of many
    // points costs its points once a row, not once a square.
    let mut crossings: Vec<f64> = Vec::new();
    for ty in clamp(y0, height)..=clamp(y1, height) {
        let cy = (ty as f64 + 0.5) * g;
        crossings.clear();
        crossings.extend(crossings_at(&outline, cy));
        crossings.sort_by(f64::total_cmp);
        for tx in clamp(x0, width)..=clamp(x1, width) {
            let cx = (tx as f64 + 0.5) * g;
            let right = crossings.len() - crossings.partition_point(|c| *c <= cx);
            if right % 2 == 1 {
                out.push(Tile { x: tx, y: ty });
            }
        }
    }
    Some(out)
}

/// The centre of a shape in map pixels (where a chest, a door or a destructible stands).
pub fn centre(shape: &Shape, x: f64, y: f64, rotation: f64) -> (f64, f64) {
    match shape {
        Shape::Rectangle { w, h } | Shape::Ellipse { w, h } => place(x, y, rotation, (w / 2.0, h / 2.0)),
        Shape::Polygon(points) if !points.is_empty() => {
            let n = points.len() as f64;
            let (sx, sy) = points.iter().fold((0.0, 0.0), |(a, b), (px, py)| (a + px, b + py));
            place(x, y, rotation, (sx / n, sy / n))
        }
        _ => (x, y),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tiles(shape: &Shape, x: f64, y: f64, rotation: f64) -> Vec<(i64, i64)> {
        area(shape, x, y, rotation, 10.0, 6, 6).unwrap_or_default().iter().map(|t| (t.x, t.y)).collect()
    }

    #[test]
    fn an_l_shaped_polygon_is_its_squares() {
        // An L: two squares across the top, one below the first.
        let l = Shape::Polygon(points("0,0 20,0 20,10 10,10 10,20 0,20"));
        assert_eq!(tiles(&l, 10.0, 10.0, 0.0), [(1, 1), (2, 1), (1, 2)]);
        // Turned a quarter clockwise about its corner (10, 10): its top bar runs down the
        // first column; its foot is left of the map (the caller reports it).
        assert_eq!(tiles(&l, 10.0, 10.0, 90.0), [(-1, 1), (0, 1), (0, 2)]);
        // A circle of radius 16 about (30, 30): the four squares around its centre and the
        // eight beside them (centres 15.8 away), not the corners (21.2 away).
        let circle = Shape::Ellipse { w: 32.0, h: 32.0 };
        assert_eq!(tiles(&circle, 14.0, 14.0, 0.0).len(), 12);
        assert_eq!(tiles(&Shape::Point, 25.0, 35.0, 0.0), [(2, 3)]);
        assert!(area(&Shape::Polyline, 0.0, 0.0, 0.0, 10.0, 6, 6).is_none());
    }

    /// The squares found row by row are those whose centres `inside` holds, square by square,
    /// for shapes with edges through centres, turned, crossing themselves, and of many points.
    #[test]
    fn rows_find_the_squares_inside_finds() {
        let zigzag: Vec<(f64, f64)> = (0..200).map(|i| (f64::from(i % 2) * 60.0, f64::from(i) * 0.3)).collect();
        let star = Shape::Polygon(points("30,0 40,60 0,20 60,20 20,60"));
        let shapes = [
            Shape::Polygon(points("0,0 20,0 20,10 10,10 10,20 0,20")),
            Shape::Polygon(points("5,5 35,5 35,35 5,35")),
            Shape::Polygon(zigzag),
            star,
            Shape::Ellipse { w: 45.0, h: 25.0 },
            Shape::Rectangle { w: 30.0, h: 20.0 },
        ];
        let mut found = 0;
        for shape in &shapes {
            for (x, y, rotation) in
                [(0.0, 0.0, 0.0), (10.0, 10.0, 0.0), (7.0, 3.0, 33.0), (30.0, 30.0, 180.0), (-5.0, 12.0, 90.0)]
            {
                let rows = area(shape, x, y, rotation, 10.0, 6, 6).unwrap_or_default();
                let outline: Vec<(f64, f64)> = match shape {
                    Shape::Polygon(p) => p.iter().map(|p| place(x, y, rotation, *p)).collect(),
                    Shape::Ellipse { w, h } => (0..72)
                        .map(|i| {
                            let a = f64::from(i) * std::f64::consts::TAU / 72.0;
                            place(x, y, rotation, (w / 2.0 * (1.0 + a.cos()), h / 2.0 * (1.0 + a.sin())))
                        })
                        .collect(),
                    Shape::Rectangle { w, h } => {
                        [(0.0, 0.0), (*w, 0.0), (*w, *h), (0.0, *h)].iter().map(|p| place(x, y, rotation, *p)).collect()
                    }
                    _ => Vec::new(),
                };
                let each: Vec<Tile> = (-1..=6)
                    .flat_map(|ty| (-1..=6).map(move |tx| Tile { x: tx, y: ty }))
                    .filter(|t| inside(&outline, ((t.x as f64 + 0.5) * 10.0, (t.y as f64 + 0.5) * 10.0)))
                    .collect();
                let mut sorted = rows.clone();
                sorted.sort_by_key(|t| (t.y, t.x));
                assert_eq!(sorted, each, "{shape:?} at ({x}, {y}) turned {rotation}");
                found += rows.len();
            }
        }
        assert!(found > 100, "{found}");
    }
}
