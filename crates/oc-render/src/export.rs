//! What `oc export` writes for each format, as bytes and the lines that tell of it: a Foundry
//! scene (and the name of its background), a Universal VTT file, a Tiled map and its tileset.
//! The binary checks each file against the output policy first and writes; nothing here writes
//! or prints.

use std::path::{Path, PathBuf};

use oc_atlas::foundry::Version;

use crate::map::{vtt_picture, Stop};

/// Who draws each picture, as its PNG says: one command's picture is never replaced by
/// another's without `--force`.
pub const FOUNDRY_BACKGROUND: &str = "oc export foundry";
pub const TILED_TILESET: &str = "oc export tiled";
const UVTT_PICTURE: &str = "oc export uvtt";

/// `--foundry N`: the versions oc writes scenes for.
pub fn foundry_version(n: u8) -> Result<Version, Stop> {
    match n {
        11 => Ok(Version::V11),
        12 => Ok(Version::V12),
        other => Err(Stop::new(2, format!("--foundry {other}: oc writes scenes for Foundry 11 and 12"))),
    }
}

fn number(v: Version) -> u8 {
    match v {
        Version::V11 => 11,
        Version::V12 => 12,
    }
}

/// A Foundry scene: its JSON, the path of its background in Foundry's User Data, and a note
/// when the map had to be scaled up to Foundry's smallest grid.
pub struct Scene {
    pub json: String,
    pub src: String,
    pub scaled: Option<String>,
    /// The factor the map was scaled by, where it was.
    factor: Option<String>,
    walls: usize,
    regions: usize,
    version: Version,
}

/// The scene of `map` for Foundry `version`, its background uploaded as `picture` (a file
/// name) under `prefix`.
pub fn foundry_scene(map: &oc_atlas::Map, rules: &oc_model::Rules, version: Version, prefix: &str, picture: &str) -> Scene {
    let src = oc_atlas::foundry::asset_path(prefix, picture);
    let scene = oc_atlas::foundry::scene(map, rules, version, Some(src.clone()));
    let n = number(version);
    let scaled = scene.flags.oc.scale.map(|factor| {
        format!(
            "the map's grid of {} pixels is below Foundry {n}'s smallest ({}): the scene and its background are scaled by {factor}, to a grid of {} pixels",
            map.grid,
            version.grid_min(),
            scene.grid.size
        )
    });
    let factor = scene.flags.oc.scale.map(|f| f.to_string());
    let json = serde_json::to_string_pretty(&scene).unwrap_or_default();
    Scene { json, src, scaled, factor, walls: scene.walls.len(), regions: map.regions.len(), version }
}

impl Scene {
    /// What was written, once the scene went to `scene` and its background to `png`.
    pub fn wrote(&self, scene: &str, png: &str) -> [String; 2] {
        [
            format!(
                "wrote {scene} (Foundry {} scene: {} walls, {} regions) and its background {png}",
                number(self.version),
                self.walls,
                self.regions
            ),
            format!("upload {png} to `{}` in Foundry's User Data, then Import Data from the scene", self.src),
        ]
    }

    /// The scene of the map at `map` went to standard output: how to draw its background, as
    /// large as the scene (scaled as it was), and where to upload it.
    pub fn background_help(&self, map: &str) -> String {
        let name = self.src.rsplit('/').next().unwrap_or(&self.src);
        let scale = self.factor.as_ref().map_or(String::new(), |f| format!(" --scale {f}"));
        format!(
            "the scene's background is `{}`: draw it with `oc render {map} --no-legend{scale} -o {name}` and upload it there",
            self.src
        )
    }

    /// The background's PNG (the map's own image, or `oc render`'s map area, as large as the scene).
    pub fn background(
        &self,
        root: &Path,
        map_path: &Path,
        map: &oc_atlas::Map,
        rules: &oc_model::Rules,
    ) -> Result<Vec<u8>, Stop> {
        vtt_picture(root, map_path, map, rules, FOUNDRY_BACKGROUND, Some(self.version))
    }
}

/// A Universal VTT file (JSON, the picture embedded) and the line that tells what it holds.
pub fn uvtt(root: &Path, map_path: &Path, map: &oc_atlas::Map, rules: &oc_model::Rules) -> Result<(String, String), Stop> {
    let png = vtt_picture(root, map_path, map, rules, UVTT_PICTURE, None)?;
    let file = oc_atlas::uvtt::uvtt(map, rules, &png);
    let summary = format!(
        "Universal VTT {}: {} walls, {} doors, {}x{} squares at {} pixels",
        oc_atlas::uvtt::FORMAT,
        file.line_of_sight.len(),
        file.portals.len(),
        map.width,
        map.height,
        map.grid
    );
    Ok((serde_json::to_string_pretty(&file).unwrap_or_default(), summary))
}

/// Where a Tiled export's tileset goes: `STEM-terrain.png` beside `out`; refused when the
/// map's tileset would be too large.
pub fn tiled_tileset(map: &oc_atlas::Map, rules: &oc_model::Rules, map_path: &Path, out: &Path) -> Result<PathBuf, Stop> {
    oc_atlas::export::tileset_size(map, Some(rules))
        .map_err(|why| Stop::new(1, format!("{}: {why}", map_path.display())).help("lower the map's `grid`"))?;
    let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "map".into());
    Ok(out.with_file_name(format!("{stem}-terrain.png")))
}

/// The TMX naming the tileset at `tileset_path`, and the tileset's PNG: every terrain of the
/// map's `rules`, the map's first.
pub fn tiled(map: &oc_atlas::Map, rules: &oc_model::Rules, tileset_path: &Path) -> Result<(String, Vec<u8>), Stop> {
    let name = tileset_path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let (tmx, tileset) = oc_atlas::export::tiled_with(map, Some(rules), &name);
    let png = oc_atlas::render::png_drawn_by(&tileset, TILED_TILESET)
        .map_err(|e| Stop::new(2, format!("cannot encode the tileset: {e}")))?;
    Ok((tmx, png))
}
