//! The map commands: `oc render`, `oc export foundry|uvtt|tiled`, `oc import tiled`, `oc import-image`.

use std::path::{Path, PathBuf};

use oc_project::limits::{MAX_IMAGE_BYTES, MAX_SOURCE_BYTES};
use oc_project::output::{Kind, Target};
use oc_render::map::vtt_picture;

use crate::commands::{output_target, style, write_output};
use crate::report;
use oc_play::reach::{self, Ask};

/// Checks one map file and returns it resolved, with its rules, project root and inputs
/// (`oc_project::load::map`); prints its diagnostics. Errors that keep the map from being read
/// stop here (exit 1); lint findings do not.
fn load(path: &Path) -> Result<(oc_atlas::Map, oc_model::Rules, PathBuf, Vec<PathBuf>), u8> {
    report::root_of(path);
    let loaded = oc_project::load::map(path).map_err(|r| crate::commands::refused(&r))?;
    let reports = report::Reports::new(&loaded.session);
    for d in &loaded.diagnostics {
        err!("{}", reports.render(d, style()));
    }
    let Some((map, rules)) = loaded.map else {
        errln!("error: {}: the map could not be read (see above)", path.display());
        return Err(1);
    };
    Ok((map, rules, loaded.root, loaded.inputs))
}

fn write(target: &Target, bytes: &[u8]) -> u8 {
    match write_output(target, bytes) {
        Ok(()) => 0,
        Err(code) => code,
    }
}

/// Whose objective a heat overlay measures the way to.
#[derive(Clone, Copy, clap::ValueEnum)]
pub enum HeatSide {
    Attacker,
    Defender,
}

impl HeatSide {
    fn side(self) -> oc_atlas::Side {
        match self {
            HeatSide::Attacker => oc_atlas::Side::Attacker,
            HeatSide::Defender => oc_atlas::Side::Defender,
        }
    }
}

/// `oc render`'s options as given.
pub struct RenderArgs<'a> {
    pub no_legend: bool,
    pub no_coords: bool,
    pub scale: f64,
    pub reach: Option<&'a str>,
    pub heat: Option<HeatSide>,
    pub class: Option<&'a str>,
    /// The rules `--class` is looked up in (a built-in name or `.oc` files).
    pub ruleset: Option<&'a str>,
}

/// The overlay `oc render` was asked for, computed by `oc_play::reach` with the class's rules
/// (`--ruleset`; else the map's, or the project's for a class they lack); an error is printed
/// and its exit status returned.
fn overlay(args: &RenderArgs, map: &oc_atlas::Map, rules: &oc_model::Rules) -> Result<Option<oc_atlas::render::Overlay>, u8> {
    let ask = match (args.reach, args.heat, args.class) {
        (Some(at), _, class) => Ask::Reach { at, class: class.unwrap_or_default() },
        (None, Some(side), class) => Ask::Heat { side: side.side(), class },
        (None, None, Some(_)) => {
            errln!("error: --class goes with --reach or --heat");
            return Err(2);
        }
        (None, None, None) => return Ok(None),
    };
    // A refusal of the input (no such class, the rules' movement): exit status 1.
    let input = |r: oc_play::Refusal| {
        crate::load::refused(&r);
        1u8
    };
    let engine = match args.ruleset {
        Some(r) => crate::load::engine(Some(r))?,
        None => reach::engine_for(rules, args.class, &crate::load::project_engine).map_err(input)?,
    };
    let whose = if args.ruleset.is_some() { "--ruleset's rules" } else { "the map's rules or the project's `ruleset`" };
    reach::overlay(&engine, map, rules, &ask, whose).map(Some).map_err(|r| match r {
        reach::Refused::Usage(r) => crate::load::refused(&r),
        reach::Refused::Input(r) => input(r),
    })
}

pub fn render(map_path: &Path, out: &Path, force: bool, args: &RenderArgs) -> u8 {
    let (map, rules, _, inputs) = match load(map_path) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let target = match output_target(out, Kind::Picture(RENDER), &inputs, force) {
        Ok(t) => t,
        Err(code) => return code,
    };
    let grid = match oc_render::map::grid_at(map.grid, args.scale) {
        Ok(g) => g,
        Err(stop) => return stopped(stop),
    };
    let overlay = match overlay(args, &map, &rules) {
        Ok(o) => o,
        Err(code) => return code,
    };
    if let Some(o) = &overlay {
        noteln!("overlay: {} ({} squares)", o.title, o.values.len());
    }
    let opts = oc_atlas::render::Options { coords: !args.no_coords, legend: !args.no_legend, grid: Some(grid), overlay };
    let started = std::time::Instant::now();
    let img = match oc_render::map::render(map_path, &map, &rules, &opts, RENDER) {
        Ok(img) => img,
        Err(stop) => return stopped(stop),
    };
    let status = write(&target, &img.png);
    if status == 0 {
        noteln!(
            "wrote {} ({}x{} pixels, {} by {} tiles at grid {}) in {:.0?}",
            target.show(),
            img.width,
            img.height,
            map.width,
            map.height,
            grid,
            started.elapsed()
        );
    }
    status
}

#[derive(Clone, Copy, clap::ValueEnum)]
pub enum ExportFormat {
    /// A Foundry VTT scene (JSON, for "Import Data") and its background PNG beside it.
    Foundry,
    /// A Tiled map (TMX) and its tileset PNG beside it.
    Tiled,
    /// A Universal VTT file (JSON with the map picture embedded), for every other tabletop.
    Uvtt,
}

/// How `oc export` was asked to write.
pub struct ExportOptions<'a> {
    pub out: Option<&'a Path>,
    pub force: bool,
    /// Foundry: the folder (in Foundry's User Data) the background picture is uploaded to.
    pub asset_prefix: &'a str,
    /// Foundry: 11 or 12.
    pub foundry: u8,
}

/// Who draws each picture, as its PNG says: one command's picture is never replaced by
/// another's without `--force`.
const RENDER: &str = "oc render";
const FOUNDRY_BACKGROUND: &str = "oc export foundry";
const TILED_TILESET: &str = "oc export tiled";

/// Shows why a map command stopped; its exit status.
fn stopped(stop: oc_render::map::Stop) -> u8 {
    for e in &stop.errors {
        errln!("error: {e}");
    }
    if let Some(help) = &stop.help {
        errln!("help: {help}");
    }
    stop.status
}

pub fn export(format: ExportFormat, map_path: &Path, opts: &ExportOptions) -> u8 {
    let (map, rules, root, inputs) = match load(map_path) {
        Ok(m) => m,
        Err(code) => return code,
    };
    let (out, force) = (opts.out, opts.force);
    let kind = match format {
        ExportFormat::Foundry => Kind::FoundryScene,
        ExportFormat::Tiled => Kind::TiledMap,
        ExportFormat::Uvtt => Kind::UvttMap,
    };
    let target = match out.map(|o| output_target(o, kind, &inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    match format {
        ExportFormat::Foundry => {
            let version = match opts.foundry {
                11 => oc_atlas::foundry::Version::V11,
                12 => oc_atlas::foundry::Version::V12,
                other => {
                    errln!("error: --foundry {other}: oc writes scenes for Foundry 11 and 12");
                    return 2;
                }
            };
            // The background goes beside the scene as STEM-background.png (its own name: never
            // the picture `oc render -o STEM.png` drew); on standard output there is nowhere
            // beside, so the scene names the picture the note below says how to draw.
            let scene_file = match (&target, out) {
                (Some(Target::File(_)), Some(out)) => Some(out),
                _ => None,
            };
            let (src, beside) = oc_render::map::foundry_background(scene_file, map_path);
            let background = match beside.map(|png| output_target(&png, Kind::Picture(FOUNDRY_BACKGROUND), &inputs, force)) {
                Some(Ok(t)) => Some(t),
                Some(Err(code)) => return code,
                None => None,
            };
            let src = oc_atlas::foundry::asset_path(opts.asset_prefix, &src);
            let scene = oc_atlas::foundry::scene(&map, &rules, version, Some(src.clone()));
            let text = serde_json::to_string_pretty(&scene).unwrap_or_default();
            if let Some(factor) = scene.flags.oc.scale {
                errln!(
                    "note: the map's grid of {} pixels is below Foundry {}'s smallest ({}): the scene and its background are scaled by {factor}, to a grid of {} pixels",
                    map.grid,
                    opts.foundry,
                    version.grid_min(),
                    scene.grid.size
                );
            }
            match (&target, background) {
                (Some(target), Some(png_target)) => {
                    let png = match vtt_picture(&root, map_path, &map, &rules, FOUNDRY_BACKGROUND, Some(version)) {
                        Ok(p) => p,
                        Err(stop) => return stopped(stop),
                    };
                    let status = write(&png_target, &png).max(write(target, text.as_bytes()));
                    if status == 0 {
                        noteln!(
                            "wrote {} (Foundry {} scene: {} walls, {} regions) and its background {}",
                            target.show(),
                            opts.foundry,
                            scene.walls.len(),
                            map.regions.len(),
                            png_target.show()
                        );
                        noteln!(
                            "upload {} to `{src}` in Foundry's User Data, then Import Data from the scene",
                            png_target.show()
                        );
                    }
                    status
                }
                (Some(target), None) => write(target, text.as_bytes()),
                (None, _) => {
                    outln!("{text}");
                    errln!(
                        "note: the scene's background is `{src}`: draw it with `oc render --no-legend -o {}` and upload it there",
                        src.rsplit('/').next().unwrap_or(&src)
                    );
                    0
                }
            }
        }
        ExportFormat::Uvtt => {
            let png = match vtt_picture(&root, map_path, &map, &rules, "oc export uvtt", None) {
                Ok(p) => p,
                Err(stop) => return stopped(stop),
            };
            let file = oc_atlas::uvtt::uvtt(&map, &rules, &png);
            let text = serde_json::to_string_pretty(&file).unwrap_or_default();
            match &target {
                Some(target) => {
                    let status = write(target, text.as_bytes());
                    if status == 0 {
                        noteln!(
                            "wrote {} (Universal VTT {}: {} walls, {} doors, {}x{} squares at {} pixels)",
                            target.show(),
                            oc_atlas::uvtt::FORMAT,
                            file.line_of_sight.len(),
                            file.portals.len(),
                            map.width,
                            map.height,
                            map.grid
                        );
                    }
                    status
                }
                None => {
                    outln!("{text}");
                    0
                }
            }
        }
        ExportFormat::Tiled => {
            let (Some(out), Some(tmx_target @ Target::File(_))) = (out, &target) else {
                errln!("error: `oc export tiled` writes two files (the TMX and its tileset PNG): give --out MAP.tmx");
                return 2;
            };
            if let Err(why) = oc_atlas::export::tileset_size(&map) {
                errln!("error: {}: {why}", map_path.display());
                errln!("help: lower the map's `grid`");
                return 1;
            }
            let stem = out.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "map".into());
            let tileset_name = format!("{stem}-terrain.png");
            let tileset_path = out.with_file_name(&tileset_name);
            let tileset_target = match output_target(&tileset_path, Kind::Picture(TILED_TILESET), &inputs, force) {
                Ok(t) => t,
                Err(code) => return code,
            };
            let (tmx, tileset) = oc_atlas::export::tiled(&map, &tileset_name);
            let png = match oc_atlas::render::png_drawn_by(&tileset, TILED_TILESET) {
                Ok(b) => b,
                Err(e) => {
                    errln!("error: cannot encode the tileset: {e}");
                    return 2;
                }
            };
            let status = write(&tileset_target, &png).max(write(tmx_target, tmx.as_bytes()));
            if status == 0 {
                noteln!("wrote {} and {}", out.display(), tileset_path.display());
            }
            status
        }
    }
}

pub fn import_image(image: &Path, legend: Option<&Path>, name: Option<&str>, out: Option<&Path>, force: bool) -> u8 {
    let rules = match oc_compiler::stdlib::default_rules() {
        Some(r) => r,
        None => {
            errln!("error: the standard library did not compile");
            return 2;
        }
    };
    let mut inputs = vec![image.to_path_buf()];
    inputs.extend(legend.map(Path::to_path_buf));
    let target = match out.map(|o| output_target(o, Kind::MapDefinition, &inputs, force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    let bytes = match oc_project::fsx::read_regular(image, MAX_IMAGE_BYTES) {
        Ok(b) => b,
        Err(e) => {
            errln!("error: cannot read {}: {e}", image.display());
            return 2;
        }
    };
    let legend = legend.map(|path| (path, oc_project::fsx::read_regular(path, MAX_SOURCE_BYTES).map_err(|e| e.to_string())));
    let (text, width, height) = match oc_render::map::import_image(image, &bytes, legend, &rules, name) {
        Ok(t) => t,
        Err(stop) => return stopped(stop),
    };
    match target {
        None => {
            out!("{text}");
            0
        }
        Some(target) => {
            let status = write(&target, text.as_bytes());
            if status == 0 {
                noteln!("wrote {} ({}x{} tiles)", target.show(), width, height);
            }
            status
        }
    }
}

pub fn import_tiled(tmx: &Path, out: Option<&Path>, force: bool) -> u8 {
    let Some(rules) = oc_compiler::stdlib::default_rules() else {
        errln!("error: the standard library did not compile");
        return 2;
    };
    let target = match out.map(|o| output_target(o, Kind::ImportedMap, &[tmx.to_path_buf()], force)).transpose() {
        Ok(t) => t,
        Err(code) => return code,
    };
    if let Some(Target::File(f)) = &target {
        if !oc_project::discover::is_map(&f.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()) {
            errln!("error: {}: a map definition's name ends in `.map.toml`", f.path.display());
            return 2;
        }
    }
    let bytes = match oc_project::fsx::read_regular(tmx, MAX_SOURCE_BYTES) {
        Ok(b) => b,
        Err(e) => {
            errln!("error: cannot read {}: {e}", tmx.display());
            return 2;
        }
    };
    let text = String::from_utf8_lossy(&bytes).into_owned();
    let (toml, diags) = oc_render::map::import_tiled(tmx, &text, &rules);
    let shown = tmx.display().to_string();
    let sources = report::OneFile { path: &shown, text: &text };
    let style = style();
    let reports = report::Reports::new(&sources);
    for d in &diags {
        err!("{}", reports.render(d, style));
    }
    let Some(toml) = toml else {
        errln!(
            "error: {}: nothing was written ({} error(s) above)",
            tmx.display(),
            diags.iter().filter(|d| d.is_error()).count()
        );
        return 1;
    };
    match target {
        None => {
            out!("{toml}");
            0
        }
        Some(target) => {
            let status = write(&target, toml.as_bytes());
            if status == 0 {
                noteln!("wrote {} (check it with `oc check {}`)", target.show(), target.show());
            }
            status
        }
    }
}
