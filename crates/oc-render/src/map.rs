//! The map commands' pictures and imports as bytes and text: `oc render`'s picture, a VTT
//! export's picture (and a Foundry background's name), a map definition from a PNG or a TMX.
//! Reads go through `oc_project` (confined, bounded); nothing is written or printed: a [`Stop`]
//! says why not, with its exit status.

use std::path::Path;

use oc_project::limits::MAX_IMAGE_BYTES;

/// Why a map command stopped: its `error:` lines, a `help:` line, and the exit status (1: the
/// input's problem; 2: a usage or I/O problem).
#[derive(Debug, PartialEq, Eq)]
pub struct Stop {
    pub errors: Vec<String>,
    pub help: Option<String>,
    pub status: u8,
}

impl Stop {
    pub(crate) fn new(status: u8, error: String) -> Stop {
        Stop { errors: vec![error], help: None, status }
    }

    pub(crate) fn help(mut self, help: &str) -> Stop {
        self.help = Some(help.to_string());
        self
    }
}

/// `oc render`'s picture: the PNG, its width and height.
pub struct Rendered {
    pub png: Vec<u8>,
    pub width: u32,
    pub height: u32,
}

/// The grid `oc render --scale` draws at, for a map of grid `grid`.
pub fn grid_at(grid: u32, scale: f64) -> Result<u32, Stop> {
    if !(0.25..=4.0).contains(&scale) {
        let mut stop = Stop::new(2, format!("--scale {scale}: draw at 0.25 to 4 times the map's grid"));
        stop.help = Some("give --scale from 0.25 to 4 (1 draws the map at its own grid)".to_string());
        return Err(stop);
    }
    Ok(((f64::from(grid) * scale).round() as u32).clamp(8, 1024))
}

/// The map drawn as `opts` say, as a PNG saying `drawer` drew it; `map_path` names it in errors.
pub fn render(
    map_path: &Path,
    map: &oc_atlas::Map,
    rules: &oc_model::Rules,
    opts: &oc_atlas::render::Options,
    drawer: &str,
) -> Result<Rendered, Stop> {
    let img = oc_atlas::render::render_with(map, rules, opts).map_err(|why| {
        Stop::new(1, format!("{}: {why}", map_path.display()))
            .help("lower --scale or the map's `grid`, or split it into several maps")
    })?;
    let png = oc_atlas::render::png_drawn_by(&img, drawer).map_err(|e| Stop::new(2, format!("cannot encode the PNG: {e}")))?;
    Ok(Rendered { png, width: img.width(), height: img.height() })
}

/// The map's picture for a VTT: its own `image` when it has one (read confined to `root`),
/// else `oc render`'s map area; `drawer` is the command drawing it. A Foundry scene's is as
/// large as the scene (`foundry::background`: a map scaled to Foundry's smallest grid).
pub fn vtt_picture(
    root: &Path,
    map_path: &Path,
    map: &oc_atlas::Map,
    rules: &oc_model::Rules,
    drawer: &str,
    foundry: Option<oc_atlas::foundry::Version>,
) -> Result<Vec<u8>, Stop> {
    let own = match &map.image {
        Some((rel, _)) => Some({
            let path = map_path.parent().unwrap_or(Path::new("")).join(rel);
            let bytes = oc_project::fsx::Confined::new(root)
                .read(&path, MAX_IMAGE_BYTES)
                .map_err(|e| Stop::new(2, format!("cannot read the map's image {}: {e}", path.display())))?;
            oc_atlas::export::decode_png(&bytes)
                .map_err(|e| Stop::new(1, format!("the map's image {} is not a PNG: {e}", path.display())))?
        }),
        None => None,
    };
    let img = match (foundry, own) {
        (Some(version), own) => oc_atlas::foundry::background(map, rules, version, own),
        (None, Some(own)) => Ok(own),
        (None, None) => oc_atlas::render::render_map_area(map, rules),
    }
    .map_err(|why| {
        Stop::new(1, format!("{}: {why}", map_path.display())).help("lower the map's `grid`, or split it into several maps")
    })?;
    oc_atlas::render::png_drawn_by(&img, drawer).map_err(|e| Stop::new(2, format!("cannot encode the PNG: {e}")))
}

/// `oc import-image`: the map definition of a PNG (`image`, its bytes), one square per pixel,
/// by the colours of `legend` (read by `oc_atlas::export::palette_legend`) or the default
/// palette; with the picture's width and height.
pub fn import_image(
    image: &Path,
    bytes: &[u8],
    legend: Option<&oc_atlas::export::PaletteLegend>,
    rules: &oc_model::Rules,
    name: Option<&str>,
) -> Result<(String, u32, u32), Stop> {
    // Its size read from its header first: a picture too large for a map is said to be one, not
    // decoded until memory runs out ("is not a PNG image: Memory limit exceeded").
    let side = oc_atlas::MAX_SIDE;
    let not_png = |e: &dyn std::fmt::Display| Stop {
        errors: vec![format!("{} is not a PNG image: {e}", image.display())],
        help: Some("give a PNG picture of one pixel per tile (`oc render` draws one to start from)".into()),
        status: 1,
    };
    let (w, h) = oc_atlas::export::png_size(bytes).map_err(|e| not_png(&e))?;
    if w == 0 || h == 0 || i64::from(w) > side || i64::from(h) > side {
        return Err(Stop {
            errors: vec![format!("{}: the image is {w}x{h} pixels; maps are 1 to {side} tiles on each side", image.display())],
            help: Some(format!("one pixel is one tile: scale the picture down to at most {side}x{side} pixels")),
            status: 1,
        });
    }
    let img = oc_atlas::export::decode_png(bytes).map_err(|e| not_png(&e))?;
    let default_palette;
    let palette = match legend {
        Some(palette) => palette,
        None => {
            default_palette = oc_atlas::export::default_palette(rules);
            &default_palette
        }
    };
    let default_name = image.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "Imported".into());
    let text = oc_atlas::export::import_image(&img, palette, rules, name.unwrap_or(&default_name)).map_err(|errors| Stop {
        errors: errors.iter().map(|e| format!("{}: {e}", image.display())).collect(),
        help: Some("add each colour to the legend as \"#rrggbb\" = \"Terrain\"".to_string()),
        status: 1,
    })?;
    Ok((text, img.width(), img.height()))
}

/// `oc import tiled`: the map definition of a TMX file (`tmx`, its text) and the diagnostics of
/// reading it (over a file 0 holding that text). A tileset kept in a file of its own is read
/// from the TMX's folder, inside the project (the folder of oc.toml above the TMX, or else the
/// TMX's own folder).
pub fn import_tiled(tmx: &Path, text: &str, rules: &oc_model::Rules) -> (Option<String>, Vec<oc_diag::Diagnostic>) {
    let name = tmx.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "Imported".into());
    let folder = std::path::absolute(tmx).ok().and_then(|p| p.parent().map(Path::to_path_buf)).unwrap_or_default();
    let confined = oc_project::fsx::Confined::new(&oc_project::manifest::find_root(tmx).dir);
    let mut read_tileset = |source: &str| -> Result<String, String> {
        let bytes = confined.read(&folder.join(source), oc_project::limits::MAX_SOURCE_BYTES).map_err(|e| e.to_string())?;
        String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
    };
    oc_atlas::tiled::import_with(oc_diag::FileId(0), text, &name, Some(rules), &mut read_tileset)
}

/// The standard library's rules, which the imports name terrain by.
pub fn std_rules() -> Result<oc_model::Rules, Stop> {
    oc_compiler::stdlib::default_rules().ok_or_else(|| Stop::new(2, "the standard library did not compile".into()))
}

/// A file the user named (regular, at most `cap` bytes), or why it cannot be read.
pub fn read(path: &Path, cap: u64) -> Result<Vec<u8>, Stop> {
    oc_project::fsx::read_regular(path, cap).map_err(|e| Stop::new(2, format!("cannot read {}: {e}", path.display())))
}

/// Where a Foundry scene's background goes: with the scene in a file, beside it as
/// `STEM-background.png` (its own name: never the picture `oc render -o STEM.png` drew), its name
/// and path; with the scene on standard output there is nowhere beside, so the name the scene
/// gives the picture the user draws (after the map file's), and no path.
pub fn foundry_background(scene: Option<&Path>, map_path: &Path) -> (String, Option<std::path::PathBuf>) {
    match scene {
        Some(out) => {
            let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "scene".into());
            let name = format!("{stem}-background.png");
            (name.clone(), Some(out.with_file_name(name)))
        }
        None => {
            let stem = map_path.file_name().map(|s| s.to_string_lossy().replace(".map.toml", "")).unwrap_or_default();
            (format!("{stem}-background.png"), None)
        }
    }
}

/// Each scenario's map drawn like `oc render` draws it, by scenario name (`oc doc`'s pictures) (a map that cannot be drawn is left out:
/// `oc check` reports why).
pub fn pictures(workspace: &oc_compiler::Workspace, rules: &oc_model::Rules) -> std::collections::BTreeMap<String, Vec<u8>> {
    let mut out = std::collections::BTreeMap::new();
    for s in &rules.scenarios {
        let Some(file) = workspace.id_of(&s.map).and_then(|id| workspace.file(id)) else {
            continue;
        };
        let (Some(map), _) = oc_atlas::check(oc_diag::FileId(0), &file.text, rules, |_| oc_atlas::ImageCheck::NotChecked) else {
            continue;
        };
        let Ok(img) = oc_atlas::render::render(&map, rules) else {
            continue;
        };
        if let Ok(png) = oc_atlas::render::png(&img) {
            out.insert(s.name.clone(), png);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    fn png(colours: &[[u8; 3]]) -> Vec<u8> {
        let mut img = image::RgbImage::new(colours.len() as u32, 1);
        for (x, c) in colours.iter().enumerate() {
            img.put_pixel(x as u32, 0, image::Rgb(*c));
        }
        oc_atlas::render::png(&img).unwrap()
    }

    #[test]
    fn a_png_imports_by_its_palette_and_an_unknown_colour_stops_with_help() {
        let rules = oc_compiler::stdlib::default_rules().unwrap();
        let palette = oc_atlas::export::default_palette(&rules);
        let known: Vec<[u8; 3]> = palette.colours.keys().take(2).copied().collect();
        let (text, w, h) = import_image(Path::new("field.png"), &png(&known), None, &rules, None).unwrap();
        assert_eq!((w, h), (2, 1));
        assert!(text.contains("field"), "the file's stem names the map:\n{text}");
        let stop = import_image(Path::new("odd.png"), &png(&[[1, 2, 3]]), None, &rules, Some("Odd")).unwrap_err();
        assert_eq!(stop.status, 1);
        assert!(stop.errors[0].starts_with("odd.png: ") && stop.help.is_some());
        assert_eq!(import_image(Path::new("x.png"), b"not a png", None, &rules, None).unwrap_err().status, 1);
    }

    /// Each bad entry of a palette legend is its own error, with the span of what is wrong.
    #[test]
    fn a_palette_legends_errors_have_codes_and_spans() {
        let rules = oc_compiler::stdlib::default_rules().unwrap();
        let text = "name = 3\ngrid = 0x4\n\"#010203\" = \"Forst\"\n\"#01020x\" = \"Forest\"\n\"#040506\" = 7\n\
                    \"#ABCDEF\" = \"Plains\"\n[colours]\n\"#abcdef\" = \"Forest\"\n\"#111111\" = \"Plains\"\n";
        let errors = oc_atlas::export::palette_legend(oc_diag::FileId(0), text, &rules).err().unwrap();
        let mut seen: Vec<(&str, &str)> =
            errors.iter().map(|d| (d.code, text.get(d.span.start as usize..d.span.end as usize).unwrap_or("?"))).collect();
        seen.sort_unstable();
        assert_eq!(
            seen,
            [
                ("oc::atlas::unknown_terrain", "\"Forst\""),
                ("oc::palette::entry", "\"#01020x\""),
                ("oc::palette::entry", "\"#abcdef\""),
                ("oc::palette::entry", "0x4"),
                ("oc::palette::entry", "3"),
                ("oc::palette::entry", "7"),
            ]
        );
        assert!(errors.iter().all(|d| !d.help.is_empty()));
        let twice = errors.iter().find(|d| d.message.contains("written twice")).unwrap();
        assert_eq!(twice.secondary.len(), 1);
        assert!(errors.iter().any(|d| d.label.as_deref() == Some("did you mean `Forest`?")));
        let bad = oc_atlas::export::palette_legend(oc_diag::FileId(0), "\"#010203 = \"Forest\"\n", &rules).err().unwrap();
        assert!(bad.len() == 1 && bad[0].code == "oc::palette::entry" && bad[0].message.contains("not valid TOML"));
        let good = "grid = 0x40\n\"#010203\" = \"Forest\"\n\"#010203\" = \"Forest\"\n";
        assert!(oc_atlas::export::palette_legend(oc_diag::FileId(0), good, &rules).is_err(), "a duplicate key is TOML's error");
        let good = "name = \"Ford\"\ngrid = 0x40\n[colours]\n\"#010203\" = \"Forest\"\n\"#0A0B0C\" = \"Plains\"\n";
        let legend = oc_atlas::export::palette_legend(oc_diag::FileId(0), good, &rules).map_err(|e| format!("{e:?}")).unwrap();
        assert_eq!((legend.name.as_deref(), legend.grid, legend.colours.len()), (Some("Ford"), Some(64), 2));
    }

    #[test]
    fn every_scenario_with_a_map_gets_its_picture() {
        let ruleset = oc_play::rules::builtin("officers_chess").unwrap();
        let Ok(loaded) = oc_play::rules::load(&ruleset, "test") else { panic!("the built-in ruleset compiles") };
        let pictures = pictures(&loaded.workspace, &loaded.engine.rules);
        assert!(pictures.keys().all(|k| loaded.engine.rules.scenarios.iter().any(|s| &s.name == k)));
        assert!(pictures.values().all(|png| png.starts_with(b"\x89PNG")));
    }

    #[test]
    fn a_scale_out_of_range_is_refused() {
        assert_eq!(grid_at(32, 5.0).unwrap_err().status, 2);
        assert_eq!(grid_at(32, 0.5), Ok(16));
        assert_eq!(grid_at(16, 0.25), Ok(8), "never below 8 pixels");
    }
}
