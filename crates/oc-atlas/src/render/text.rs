//! Text with a real font: Noto Mono (SIL Open Font License 1.1, `fonts/OFL.txt`) bundled in the
//! binary and drawn with `ab_glyph`, so every picture is the same on every machine and no system
//! font is read. Characters the font lacks draw its missing-glyph box, never another character.

use std::sync::OnceLock;

use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use image::{Rgb, RgbImage};

/// The bundled font file (Noto Mono, OFL), for other drawing code that wants the same letters.
pub static FONT_BYTES: &[u8] = include_bytes!("../../fonts/NotoMono-Regular.ttf");

fn font() -> Option<&'static FontRef<'static>> {
    static FONT: OnceLock<Option<FontRef<'static>>> = OnceLock::new();
    FONT.get_or_init(|| FontRef::try_from_slice(FONT_BYTES).ok()).as_ref()
}

/// Whether the bundled font has a glyph for `c` (not the missing-glyph box).
pub fn has_glyph(c: char) -> bool {
    font().is_some_and(|f| f.glyph_id(c).0 != 0)
}

/// The width in pixels of `text` at `px` pixels to the em.
pub fn width(text: &str, px: f32) -> u32 {
    let Some(f) = font() else { return 0 };
    let scaled = f.as_scaled(PxScale::from(px));
    text.chars().map(|c| scaled.h_advance(f.glyph_id(c))).sum::<f32>().ceil() as u32
}

/// The longest start of `text` that, followed by `tail`, is at most `room` pixels wide at `px`
/// (its length in bytes; `None` where not even `tail` alone fits): what [`width`] says of each
/// start and `tail`, found in one pass over the starts' advances, not a width for each.
pub fn longest_start_fitting(text: &str, tail: &str, px: f32, room: u32) -> Option<usize> {
    let Some(f) = font() else { return Some(text.len()) };
    let scaled = f.as_scaled(PxScale::from(px));
    let advance = |c: char| scaled.h_advance(f.glyph_id(c));
    // `width` adds the advances left to right: the start's sum, then the tail's, in turn.
    let fits = |sum: f32| tail.chars().fold(sum, |s, c| s + advance(c)).ceil() as u32 <= room;
    let mut best = fits(0.0).then_some(0);
    let mut sum = 0.0f32;
    for (i, c) in text.char_indices() {
        sum += advance(c);
        // Advances are never negative: once a start is too wide, every longer one is.
        if !fits(sum) {
            break;
        }
        best = Some(i + c.len_utf8());
    }
    best
}

/// The height of a line of text at `px` (ascent plus descent), in pixels.
pub fn line_height(px: f32) -> u32 {
    let Some(f) = font() else { return px.ceil() as u32 };
    let scaled = f.as_scaled(PxScale::from(px));
    (scaled.ascent() - scaled.descent()).ceil() as u32
}

fn blend(img: &mut RgbImage, x: i64, y: i64, c: Rgb<u8>, coverage: f32) {
    if x < 0 || y < 0 || x >= i64::from(img.width()) || y >= i64::from(img.height()) || coverage <= 0.0 {
        return;
    }
    let a = coverage.min(1.0);
    let p = img.get_pixel_mut(x as u32, y as u32);
    for (dst, src) in p.0.iter_mut().zip(c.0) {
        *dst = (f32::from(*dst) * (1.0 - a) + f32::from(src) * a).round() as u8;
    }
}

fn draw_plain(img: &mut RgbImage, x: f32, y: f32, px: f32, text: &str, c: Rgb<u8>) {
    let Some(f) = font() else { return };
    let scale = PxScale::from(px);
    let scaled = f.as_scaled(scale);
    let baseline = y + scaled.ascent();
    let mut caret = x;
    for ch in text.chars() {
        let id = f.glyph_id(ch);
        let glyph = id.with_scale_and_position(scale, point(caret, baseline));
        caret += scaled.h_advance(id);
        if let Some(outline) = f.outline_glyph(glyph) {
            let b = outline.px_bounds();
            outline.draw(|gx, gy, coverage| {
                blend(img, b.min.x as i64 + i64::from(gx), b.min.y as i64 + i64::from(gy), c, coverage);
            });
        }
    }
}

/// Draws `text` with its top-left at (x, y), `px` pixels to the em, in `c`; with a `halo`, a
/// one-pixel outline of that colour first, so the text reads on any terrain.
pub fn draw(img: &mut RgbImage, x: u32, y: u32, px: f32, text: &str, c: Rgb<u8>, halo: Option<Rgb<u8>>) {
    let (x, y) = (x as f32, y as f32);
    if let Some(h) = halo {
        for (dx, dy) in [(-1.0, 0.0), (1.0, 0.0), (0.0, -1.0), (0.0, 1.0), (-1.0, -1.0), (1.0, 1.0), (-1.0, 1.0), (1.0, -1.0)] {
            draw_plain(img, x + dx, y + dy, px, text, h);
        }
    }
    draw_plain(img, x, y, px, text, c);
}
