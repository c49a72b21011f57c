//! Pictures of numbers, drawn with `plotters`: `oc simulate --plot` (win rates with their 95%
//! intervals, the rounds games lasted, the units each side lost) and `oc matrix --heatmap` (the
//! rout chance of every class against every class). The file's extension picks the format:
//! `.svg` (plotters' SVG backend, text as `<text>`), or `.png` (plotters draws into an RGB buffer
//! that oc-atlas encodes, with the `Software` text that tells oc's own pictures apart).
//!
//! Every letter is the font `oc render` bundles (Noto Mono, OFL) through plotters' `ab_glyph`
//! feature: no system font is looked up, so a picture is the same on every machine.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use oc_project::output::PLOT_MARK;

/// The family every text is drawn in (the bundled font is registered under it).
const FONT: &str = "monospace";
/// The sides' colours of every picture (oc_atlas::render): attacker blue, defender red.
const ATTACKER: RGBColor = rgb(oc_atlas::render::ATTACKER_COLOUR);
const DEFENDER: RGBColor = rgb(oc_atlas::render::DEFENDER_COLOUR);

const fn rgb(c: [u8; 3]) -> RGBColor {
    RGBColor(c[0], c[1], c[2])
}
const DRAW: RGBColor = RGBColor(0x8a, 0x8a, 0x93);
const INK: RGBColor = RGBColor(0x1d, 0x1d, 0x22);
const MUTED: RGBColor = RGBColor(0x6b, 0x6b, 0x72);
/// The round limit's mark on the rounds histogram (an amber neither side's colour).
pub const LIMIT: RGBColor = RGBColor(0xc7, 0x7c, 0x02);

/// The format of a plot, from its file name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlotFormat {
    Png,
    Svg,
}

impl PlotFormat {
    pub fn of(path: &Path) -> Result<PlotFormat, String> {
        let ext = path.extension().map(|e| e.to_string_lossy().to_ascii_lowercase());
        match ext.as_deref() {
            Some("png") => Ok(PlotFormat::Png),
            Some("svg") => Ok(PlotFormat::Svg),
            _ => Err(format!("{}: a plot is a .png or an .svg file (the extension picks the format)", path.display())),
        }
    }
}

/// Something drawable at a fixed size on any plotters backend.
pub trait Figure {
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String>;
}

fn err<E: std::fmt::Display>(e: E) -> String {
    e.to_string()
}

/// The bundled font, registered with plotters once.
fn register_font() -> Result<(), String> {
    static DONE: OnceLock<bool> = OnceLock::new();
    let ok =
        *DONE.get_or_init(|| plotters::style::register_font(FONT, FontStyle::Normal, oc_atlas::render::text::FONT_BYTES).is_ok());
    if ok {
        Ok(())
    } else {
        Err("the bundled font cannot be read".to_string())
    }
}

/// The figure as the bytes of a file in `format`.
pub fn render<F: Figure>(figure: &F, format: PlotFormat) -> Result<Vec<u8>, String> {
    register_font()?;
    let (w, h) = figure.size();
    match format {
        PlotFormat::Svg => {
            let mut svg = String::new();
            {
                let root = SVGBackend::with_string(&mut svg, (w, h)).into_drawing_area();
                figure.draw(&root)?;
                root.present().map_err(err)?;
            }
            Ok(format!("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n{PLOT_MARK}\n{svg}\n").into_bytes())
        }
        PlotFormat::Png => {
            let mut buf = vec![0u8; (w as usize) * (h as usize) * 3];
            {
                let root = BitMapBackend::with_buffer(&mut buf, (w, h)).into_drawing_area();
                figure.draw(&root)?;
                root.present().map_err(err)?;
            }
            let img = image::RgbImage::from_raw(w, h, buf).ok_or("the picture buffer has the wrong size")?;
            oc_atlas::render::png_drawn_by(&img, oc_project::output::PLOT_DRAWER)
        }
    }
}

/// Text `px` pixels tall (plotters draws a font of size `s` at `s / 1.24` pixels).
fn font(px: f64) -> TextStyle<'static> {
    TextStyle::from((FONT, px * 1.24).into_font()).color(&INK)
}

fn text<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    s: &str,
    at: (i32, i32),
    style: &TextStyle<'_>,
    pos: Pos,
) -> Result<(), String> {
    area.draw(&Text::new(s.to_string(), at, style.pos(pos))).map_err(err)
}

/// What `oc simulate` counted, for its plot.
pub struct Outcomes {
    /// The report's first line: scenario, map, armies, games and seed.
    pub title: String,
    /// The attacker's and the defender's army.
    pub armies: [String; 2],
    pub games: u64,
    /// Attacker wins, defender wins, draws.
    pub wins: [u64; 3],
    /// The 95% Wilson interval of each of the three rates.
    pub intervals: [[f64; 2]; 3],
    /// Games by the rounds they lasted.
    pub rounds: BTreeMap<u32, u64>,
    /// Per side: games by the units that side lost.
    pub lost: [BTreeMap<u32, u64>; 2],
    /// The scenario's round limit, marked on the rounds histogram.
    pub round_limit: Option<u32>,
}

impl Outcomes {
    fn mean(hist: &BTreeMap<u32, u64>) -> f64 {
        let n: u64 = hist.values().sum();
        if n == 0 {
            return 0.0;
        }
        hist.iter().map(|(k, v)| f64::from(*k) * *v as f64).sum::<f64>() / n as f64
    }
}

impl Figure for Outcomes {
    fn size(&self) -> (u32, u32) {
        (1500, 520)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(err)?;
        let body = root.titled(&self.title, font(18.0)).map_err(err)?;
        let panels = body.split_evenly((1, 3));
        let [win, rounds, lost] = panels.as_slice() else { return Err("three panels".into()) };
        self.win_rates(root, win)?;
        self.rounds_panel(rounds)?;
        self.lost_panel(lost)
    }
}

impl Outcomes {
    fn win_rates<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let mut chart = ChartBuilder::on(area)
            .caption("Win rate (bars: 95% Wilson interval)", font(15.0))
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(56)
            .build_cartesian_2d(0f64..3f64, 0f64..1f64)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(0)
            .y_labels(6)
            .y_desc("share of games")
            .y_label_formatter(&|v| format!("{:.0}%", v * 100.0))
            .light_line_style(WHITE)
            .label_style(font(12.0))
            .axis_desc_style(font(13.0))
            .draw()
            .map_err(err)?;
        let names = [
            ("attacker".to_string(), self.armies[0].clone(), ATTACKER),
            ("defender".to_string(), self.armies[1].clone(), DEFENDER),
            ("draw".to_string(), String::new(), DRAW),
        ];
        for (k, ((side, army, colour), (wins, [lo, hi]))) in names.iter().zip(self.wins.iter().zip(self.intervals)).enumerate() {
            let x = k as f64;
            let rate = if self.games == 0 { 0.0 } else { *wins as f64 / self.games as f64 };
            chart
                .draw_series(std::iter::once(Rectangle::new([(x + 0.2, 0.0), (x + 0.8, rate)], colour.filled())))
                .map_err(err)?;
            let whisker = INK.stroke_width(2);
            let mid = x + 0.5;
            chart
                .draw_series([
                    PathElement::new(vec![(mid, lo), (mid, hi)], whisker),
                    PathElement::new(vec![(mid - 0.08, lo), (mid + 0.08, lo)], whisker),
                    PathElement::new(vec![(mid - 0.08, hi), (mid + 0.08, hi)], whisker),
                ])
                .map_err(err)?;
            let (px, py) = chart.backend_coord(&(mid, hi));
            let label = format!("{:.1}% ({wins})", rate * 100.0);
            text(root, &label, (px, py - 4), &font(12.0), Pos::new(HPos::Center, VPos::Bottom))?;
            let (bx, by) = chart.backend_coord(&(mid, 0.0));
            text(root, side, (bx, by + 8), &font(13.0).color(colour), Pos::new(HPos::Center, VPos::Top))?;
            if !army.is_empty() {
                text(root, army, (bx, by + 26), &font(12.0).color(&MUTED), Pos::new(HPos::Center, VPos::Top))?;
            }
        }
        Ok(())
    }

    fn rounds_panel<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let limit = self.round_limit;
        let lo = self.rounds.keys().next().copied().into_iter().chain(limit).min().unwrap_or(1);
        let hi = self.rounds.keys().next_back().copied().into_iter().chain(limit).max().unwrap_or(1);
        let top = self.rounds.values().copied().max().unwrap_or(1).max(1) as f64 * 1.15;
        let mean = Outcomes::mean(&self.rounds);
        let mut chart = ChartBuilder::on(area)
            .caption(format!("Rounds per game (mean {mean:.1})"), font(15.0))
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(56)
            .build_cartesian_2d((f64::from(lo) - 0.6)..(f64::from(hi) + 0.6), 0f64..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(((hi - lo) as usize + 1).min(16))
            .x_label_formatter(&whole)
            .y_label_formatter(&whole)
            .light_line_style(WHITE)
            .x_desc("rounds")
            .y_desc("games")
            .label_style(font(12.0))
            .axis_desc_style(font(13.0))
            .draw()
            .map_err(err)?;
        chart
            .draw_series(self.rounds.iter().map(|(r, n)| {
                let x = f64::from(*r);
                Rectangle::new([(x - 0.38, 0.0), (x + 0.38, *n as f64)], RGBColor(0x4a, 0x7d, 0x5c).filled())
            }))
            .map_err(err)?;
        chart
            .draw_series(std::iter::once(PathElement::new(vec![(mean, 0.0), (mean, top)], INK.stroke_width(2))))
            .map_err(err)?
            .label(format!("mean {mean:.1}"))
            .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 16, y)], INK.stroke_width(2)));
        if let Some(limit) = limit {
            // Through the limit's bar: the games that ran out of time.
            let x = f64::from(limit);
            chart
                .draw_series(std::iter::once(DashedPathElement::new(vec![(x, 0.0), (x, top)], 6, 4, LIMIT.stroke_width(2))))
                .map_err(err)?
                .label(format!("round limit {limit}"))
                .legend(|(x, y)| DashedPathElement::new(vec![(x, y), (x + 16, y)], 4, 3, LIMIT.stroke_width(2)));
        }
        // The key stands in the upper corner away from the round limit's mark (most games end at
        // the limit, so the mark is usually the rightmost line: the key goes left of it).
        let right_half = limit.is_some_and(|l| 2 * l > lo + hi);
        chart
            .configure_series_labels()
            .label_font(font(12.0))
            .background_style(WHITE.mix(0.85))
            .border_style(MUTED)
            .position(if right_half { SeriesLabelPosition::UpperLeft } else { SeriesLabelPosition::UpperRight })
            .draw()
            .map_err(err)
    }

    fn lost_panel<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), String> {
        let hi = self.lost.iter().filter_map(|h| h.keys().next_back().copied()).max().unwrap_or(0);
        let top = self.lost.iter().flat_map(|h| h.values().copied()).max().unwrap_or(1).max(1) as f64 * 1.3;
        let mut chart = ChartBuilder::on(area)
            .caption("Units lost per game", font(15.0))
            .margin(12)
            .x_label_area_size(46)
            .y_label_area_size(56)
            .build_cartesian_2d(-0.6f64..(f64::from(hi) + 0.6), 0f64..top)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels((hi as usize + 1).min(16))
            .x_label_formatter(&whole)
            .y_label_formatter(&whole)
            .light_line_style(WHITE)
            .x_desc("units lost")
            .y_desc("games")
            .label_style(font(12.0))
            .axis_desc_style(font(13.0))
            .draw()
            .map_err(err)?;
        let sides = [("attacker", ATTACKER, -0.4, 0.0), ("defender", DEFENDER, 0.0, 0.4)];
        for ((side, colour, from, to), (hist, army)) in sides.into_iter().zip(self.lost.iter().zip(&self.armies)) {
            let mean = Outcomes::mean(hist);
            chart
                .draw_series(hist.iter().map(|(k, n)| {
                    let x = f64::from(*k);
                    Rectangle::new([(x + from, 0.0), (x + to, *n as f64)], colour.filled())
                }))
                .map_err(err)?
                .label(format!("{side}: {army}, mean {mean:.2}"))
                .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], colour.filled()));
        }
        chart
            .configure_series_labels()
            .label_font(font(12.0))
            .background_style(WHITE.mix(0.85))
            .border_style(MUTED)
            .position(SeriesLabelPosition::UpperRight)
            .draw()
            .map_err(err)
    }
}

/// Axis labels on whole numbers only.
fn whole(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 && *v >= 0.0 {
        format!("{}", v.round() as i64)
    } else {
        String::new()
    }
}

/// A table of chances drawn as coloured squares: `oc matrix --heatmap`.
pub struct Heatmap {
    pub title: String,
    /// What the rows, columns and cells are (one or two lines under the title).
    pub notes: Vec<String>,
    pub rows: Vec<String>,
    pub columns: Vec<String>,
    /// `cells[row][column]`: a chance, or `None` where there is none (the row cannot attack).
    pub cells: Vec<Vec<Option<f64>>>,
    /// What a cell is, for the key: "rout chance".
    pub measure: String,
}

impl Heatmap {
    /// `oc matrix --heatmap`: the best rout chance of each attacking class (`heat`'s rows)
    /// against each defending class (`columns`), at `distance` or the nearest range.
    pub fn of_matrix(
        ruleset: &str,
        distance: Option<i64>,
        heat: Vec<(String, Vec<Option<f64>>)>,
        columns: Vec<String>,
    ) -> Heatmap {
        Heatmap {
            title: format!("{ruleset}: rout chance in one exchange"),
            notes: vec![
                "rows: the attacking class with its best weapon against that column (the highest rout chance);".to_string(),
                match distance {
                    Some(d) => format!("columns: the defending class with its kit weapon; at distance {d}, full HP, open ground"),
                    None => {
                        "columns: the defending class with its kit weapon; at the attacker's nearest range, full HP, open ground"
                            .to_string()
                    }
                },
            ],
            rows: heat.iter().map(|(n, _)| n.clone()).collect(),
            columns,
            cells: heat.into_iter().map(|(_, r)| r).collect(),
            measure: "rout chance".to_string(),
        }
    }
}

const CELL: i32 = 26;
const MARGIN: i32 = 20;
const KEY_WIDTH: i32 = 130;

impl Heatmap {
    fn label_width(names: &[String]) -> i32 {
        // Noto Mono at 12 px: 0.6 em a letter.
        names.iter().map(|n| n.chars().count()).max().unwrap_or(0) as i32 * 8 + 12
    }

    fn head(&self) -> i32 {
        MARGIN + 30 + 18 * self.notes.len() as i32 + 10
    }

    /// The top of the scale: the largest cell rounded up to a tenth (at most 100%).
    fn scale_top(&self) -> f64 {
        let max = self.cells.iter().flatten().flatten().fold(0.0f64, |a, b| a.max(*b));
        ((max * 10.0).ceil() / 10.0).clamp(0.1, 1.0)
    }
}

/// Yellow to dark red (ColorBrewer's YlOrRd), `t` from 0 to 1.
pub fn heat_colour(t: f64) -> RGBColor {
    const STOPS: [(u8, u8, u8); 6] =
        [(255, 255, 204), (254, 217, 118), (253, 141, 60), (240, 59, 32), (189, 0, 38), (100, 0, 30)];
    let t = if t.is_finite() { t.clamp(0.0, 1.0) } else { 0.0 };
    let at = t * (STOPS.len() - 1) as f64;
    let k = (at.floor() as usize).min(STOPS.len() - 2);
    let f = at - k as f64;
    let (Some(a), Some(b)) = (STOPS.get(k), STOPS.get(k + 1)) else { return RGBColor(0, 0, 0) };
    let mix = |x: u8, y: u8| (f64::from(x) + (f64::from(y) - f64::from(x)) * f).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

impl Figure for Heatmap {
    fn size(&self) -> (u32, u32) {
        let w = MARGIN + Heatmap::label_width(&self.rows) + CELL * self.columns.len() as i32 + 24 + KEY_WIDTH + MARGIN;
        let h = self.head() + Heatmap::label_width(&self.columns) + CELL * self.rows.len() as i32 + MARGIN + 24;
        (w.max(480) as u32, h.max(320) as u32)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), String> {
        root.fill(&WHITE).map_err(err)?;
        let left_top = Pos::new(HPos::Left, VPos::Top);
        text(root, &self.title, (MARGIN, MARGIN), &font(18.0), left_top)?;
        for (k, note) in self.notes.iter().enumerate() {
            text(root, note, (MARGIN, MARGIN + 30 + 18 * k as i32), &font(12.0).color(&MUTED), left_top)?;
        }
        let x0 = MARGIN + Heatmap::label_width(&self.rows);
        let y0 = self.head() + Heatmap::label_width(&self.columns);
        let top = self.scale_top();
        // Column names read upwards above their column; row names end at the grid.
        let up = font(12.0).transform(FontTransform::Rotate270);
        for (c, name) in self.columns.iter().enumerate() {
            let x = x0 + CELL * c as i32 + CELL / 2;
            text(root, name, (x, y0 - 6), &up, Pos::new(HPos::Left, VPos::Center))?;
        }
        for (r, name) in self.rows.iter().enumerate() {
            let y = y0 + CELL * r as i32 + CELL / 2;
            text(root, name, (x0 - 6, y), &font(12.0), Pos::new(HPos::Right, VPos::Center))?;
        }
        let centre = Pos::new(HPos::Center, VPos::Center);
        for (r, row) in self.cells.iter().enumerate() {
            for (c, cell) in row.iter().enumerate() {
                let (x, y) = (x0 + CELL * c as i32, y0 + CELL * r as i32);
                let fill = match cell {
                    Some(v) => heat_colour(v / top),
                    None => RGBColor(0xdd, 0xdd, 0xdd),
                };
                root.draw(&Rectangle::new([(x, y), (x + CELL, y + CELL)], fill.filled())).map_err(err)?;
                root.draw(&Rectangle::new([(x, y), (x + CELL, y + CELL)], WHITE.stroke_width(1))).map_err(err)?;
                let label = match cell {
                    Some(v) if *v >= 0.005 => format!("{:.0}", v * 100.0),
                    Some(_) => String::new(),
                    None => "-".to_string(),
                };
                if !label.is_empty() {
                    let ink = if cell.is_some_and(|v| v / top > 0.55) { WHITE } else { INK };
                    text(root, &label, (x + CELL / 2, y + CELL / 2), &font(11.0).color(&ink), centre)?;
                }
            }
        }
        // The key: the scale from 0 to its top, with ticks.
        let kx = x0 + CELL * self.columns.len() as i32 + 24;
        let kh = (CELL * self.rows.len() as i32).clamp(120, 420);
        text(root, &self.measure, (kx, y0 - 24), &font(12.0), left_top)?;
        let steps = 60;
        for k in 0..steps {
            let t = 1.0 - f64::from(k) / f64::from(steps);
            let (ya, yb) = (y0 + kh * k / steps, y0 + kh * (k + 1) / steps);
            root.draw(&Rectangle::new([(kx, ya), (kx + 22, yb + 1)], heat_colour(t).filled())).map_err(err)?;
        }
        root.draw(&Rectangle::new([(kx, y0), (kx + 22, y0 + kh)], INK.stroke_width(1))).map_err(err)?;
        for k in 0..=4 {
            let v = top * f64::from(4 - k) / 4.0;
            let y = y0 + kh * k / 4;
            root.draw(&PathElement::new(vec![(kx + 22, y), (kx + 28, y)], INK.stroke_width(1))).map_err(err)?;
            text(root, &format!("{:.0}%", v * 100.0), (kx + 32, y), &font(12.0), Pos::new(HPos::Left, VPos::Center))?;
        }
        let gy = y0 + kh + 16;
        root.draw(&Rectangle::new([(kx, gy), (kx + 22, gy + 16)], RGBColor(0xdd, 0xdd, 0xdd).filled())).map_err(err)?;
        text(root, "no attack", (kx + 28, gy + 8), &font(12.0), Pos::new(HPos::Left, VPos::Center))?;
        text(root, "cells: percent", (kx, gy + 28), &font(12.0).color(&MUTED), left_top)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn the_heat_scale_runs_from_pale_to_dark() {
        assert_eq!(heat_colour(0.0), RGBColor(255, 255, 204));
        assert_eq!(heat_colour(1.0), RGBColor(100, 0, 30));
        assert_eq!(heat_colour(f64::NAN), heat_colour(0.0));
        let lum = |c: RGBColor| u32::from(c.0) + u32::from(c.1) + u32::from(c.2);
        assert!((0..10).all(|k| lum(heat_colour(f64::from(k) / 10.0)) > lum(heat_colour(f64::from(k + 1) / 10.0))));
    }

    #[test]
    fn the_extension_picks_the_format() {
        assert_eq!(PlotFormat::of(Path::new("a/wins.PNG")), Ok(PlotFormat::Png));
        assert_eq!(PlotFormat::of(Path::new("wins.svg")), Ok(PlotFormat::Svg));
        assert!(PlotFormat::of(Path::new("wins.pdf")).is_err() && PlotFormat::of(Path::new("wins")).is_err());
    }
}
