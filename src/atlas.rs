//! The map commands: `oc render`, `oc export foundry|uvtt|tiled`, `oc import tiled`, `oc import-image`.

use std::path::{Path, PathBuf};

use oc_project::limits::{MAX_IMAGE_BYTES, MAX_SOURCE_BYTES};
use oc_project::output::{Kind, Target};
use oc_render::export;

use crate::commands::{output_target, style, write_output};
use crate::report;
use oc_play::reach::{self, Ask};

/// Checks one map file and returns it resolved, with its rules, project root and inputs
/// (`oc_project::load::map`); prints its diagnostics. Errors that keep the map from being read
/// stop here (exit 1); lint findings do not.
fn load(path: &Path) -> Result<(oc_atlas::Map, oc_model::Rules, PathBuf, Vec<PathBuf>), u8> {
    report::root_of(path);
    let loaded = oc_project::load::map(path).map_err(|r| crate::commands::refused(&r))?;
    if loaded.map.is_none() {
        report::verdict(1);
    }
    let reports = report::Reports::new(&loaded.session);
    for d in &loaded.diagnostics {
        err!("{}", reports.render(d, style()));
    }
    let Some((map, rules)) = loaded.map else {
        errln!("error: {}: the map could not be read (see above)", path.display());
        return Err(1);
    };
    // A map read with errors is drawn or exported from what was made of them (a grid out of
    // bounds drawn at the default, a short row's square empty): nothing is written from it.
    if loaded.diagnostics.iter().any(oc_diag::Diagnostic::is_error) {
        report::verdict(1);
        errln!("error: {}: the map has errors (see above); nothing was written", path.display());
        return Err(1);
    }
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

/// `oc render`'s arguments.
#[derive(clap::Args)]
pub struct RenderArgs {
    /// The map to draw (a .map.toml file).
    map: PathBuf,
    /// The picture to write (.png).
    #[arg(long, short)]
    out: PathBuf,
    /// The map area only (what `oc export foundry|uvtt` use as the map's picture).
    #[arg(long)]
    no_legend: bool,
    /// No coordinates in the squares' corners.
    #[arg(long)]
    no_coords: bool,
    /// Draw at this many times the map's grid (0.25 to 4; 0.5 draws a 70-pixel grid at 35).
    #[arg(long, default_value_t = 1.0)]
    scale: f64,
    /// Overlay: the squares a unit of `--class` reaches this turn from square X,Y, with the
    /// movement each costs (the engine's movement rules).
    #[arg(long, value_name = "X,Y", requires = "class")]
    reach: Option<String>,
    /// Overlay: the rounds from every square to the side's objective (seize, escape, raze;
    /// the defender's also defend), for Foot at 5 movement or the `--class`'s movement.
    #[arg(long, value_enum, conflicts_with = "reach")]
    heat: Option<HeatSide>,
    /// The class whose movement the overlay uses.
    #[arg(long)]
    class: Option<String>,
    /// Where `--class` is defined: a built-in ruleset or `.oc` files (default: the map's
    /// rules, then the `ruleset` of the project's oc.toml).
    #[arg(long, requires = "class")]
    ruleset: Option<String>,
    /// Replace an existing file that is not an earlier output of this command.
    #[arg(long)]
    force: bool,
    #[command(flatten)]
    report: crate::Report,
}

/// The overlay `oc render` was asked for, computed by `oc_play::reach` with the class's rules
/// (`--ruleset`; else the map's, or the project's for a class they lack); an error is printed
/// and its exit status returned.
fn overlay(args: &RenderArgs, map: &oc_atlas::Map, rules: &oc_model::Rules) -> Result<Option<oc_atlas::render::Overlay>, u8> {
    let ask = match (args.reach.as_deref(), args.heat, args.class.as_deref()) {
        (Some(at), _, class) => Ask::Reach { at, class: class.unwrap_or_default() },
        (None, Some(side), class) => Ask::Heat { side: side.side(), class },
        (None, None, Some(_)) => {
            errln!("error: --class goes with --reach or --heat");
            errln!("help: add `--reach COL,ROW` (where the class can go from there) or `--heat SIDE`, or leave out --class");
            return Err(2);
        }
        (None, None, None) => return Ok(None),
    };
    // A refusal of the input (no such class, the rules' movement): exit status 1.
    let input = |r: oc_play::Refusal| {
        crate::load::refused(&r);
        1u8
    };
    let engine = match args.ruleset.as_deref() {
        Some(r) => crate::load::engine(Some(r), "render")?,
        None => reach::engine_for(rules, args.class.as_deref(), &crate::load::project_engine).map_err(input)?,
    };
    let whose = if args.ruleset.is_some() { "--ruleset's rules" } else { "the map's rules or the project's `ruleset`" };
    reach::overlay(&engine, map, rules, &ask, whose).map(Some).map_err(|r| match r {
        reach::Refused::Usage(r) => crate::load::refused(&r),
        reach::Refused::Input(r) => input(r),
    })
}

pub fn render(args: &RenderArgs) -> u8 {
    let (map_path, out, force) = (args.map.as_path(), args.out.as_path(), args.force);
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

/// `oc export`'s arguments.
#[derive(clap::Args)]
pub struct ExportArgs {
    /// What to export to: a Foundry VTT scene, a Tiled map or a Universal VTT file.
    #[arg(value_enum)]
    format: ExportFormat,
    /// The map to export (a .map.toml file).
    map: PathBuf,
    /// Where to write (Foundry, uvtt: stdout when omitted; Tiled: required). Foundry writes
    /// the background beside the scene as STEM-background.png.
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Replace an existing file that is not an earlier output of this command.
    #[arg(long)]
    force: bool,
    /// Foundry: the folder of Foundry's User Data the background is uploaded to;
    /// `background.src` is this plus the picture's file name.
    #[arg(long, default_value = oc_atlas::foundry::DEFAULT_ASSET_PREFIX)]
    asset_prefix: String,
    /// Foundry: the version the scene is for (12: regions as Regions; 11: as Drawings).
    #[arg(long, default_value_t = 12, value_parser = clap::value_parser!(u8).range(11..=12))]
    foundry: u8,
    #[command(flatten)]
    report: crate::Report,
}

/// Who draws `oc render`'s picture, as its PNG says: one command's picture is never replaced by
/// another's without `--force`.
const RENDER: &str = "oc render";

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

pub fn export(opts: &ExportArgs) -> u8 {
    export_to(opts).unwrap_or_else(|status| status)
}

fn export_to(opts: &ExportArgs) -> Result<u8, u8> {
    let (format, map_path, out, force) = (opts.format, opts.map.as_path(), opts.out.as_deref(), opts.force);
    if let Some((error, help)) = out.and_then(|o| foreign_extension(format, o, map_path)) {
        errln!("error: {error}; nothing was written");
        errln!("help: {help}");
        return Err(2);
    }
    let (map, rules, root, inputs) = load(map_path)?;
    let kind = match format {
        ExportFormat::Foundry => Kind::FoundryScene,
        ExportFormat::Tiled => Kind::TiledMap,
        ExportFormat::Uvtt => Kind::UvttMap,
    };
    let target = out.map(|o| output_target(o, kind, &inputs, force)).transpose()?;
    match format {
        ExportFormat::Foundry => {
            let version = export::foundry_version(opts.foundry).map_err(stopped)?;
            // The background goes beside the scene as STEM-background.png (its own name: never
            // the picture `oc render -o STEM.png` drew); on standard output there is nowhere
            // beside, so the scene names the picture the note below says how to draw.
            let scene_file = match (&target, out) {
                (Some(Target::File(_)), Some(out)) => Some(out),
                _ => None,
            };
            let (picture, beside) = oc_render::map::foundry_background(scene_file, map_path);
            let background =
                beside.map(|png| output_target(&png, Kind::Picture(export::FOUNDRY_BACKGROUND), &inputs, force)).transpose()?;
            let scene = export::foundry_scene(&map, &rules, version, &opts.asset_prefix, &picture);
            if let Some(note) = &scene.scaled {
                errln!("note: {note}");
            }
            match (&target, background) {
                (Some(target), Some(png_target)) => {
                    let png = scene.background(&root, map_path, &map, &rules).map_err(stopped)?;
                    let status = write(&png_target, &png).max(write(target, scene.json.as_bytes()));
                    if status == 0 {
                        scene.wrote(&target.show(), &png_target.show()).iter().for_each(|line| noteln!("{line}"));
                    }
                    Ok(status)
                }
                (Some(target), None) => Ok(write(target, scene.json.as_bytes())),
                (None, _) => {
                    outln!("{}", scene.json);
                    errln!("note: {}", scene.background_help(&map_path.display().to_string()));
                    Ok(0)
                }
            }
        }
        ExportFormat::Uvtt => {
            let (text, summary) = export::uvtt(&root, map_path, &map, &rules).map_err(stopped)?;
            let Some(target) = &target else {
                outln!("{text}");
                return Ok(0);
            };
            let status = write(target, text.as_bytes());
            if status == 0 {
                noteln!("wrote {} ({summary})", target.show());
            }
            Ok(status)
        }
        ExportFormat::Tiled => {
            let (Some(out), Some(tmx_target @ Target::File(_))) = (out, &target) else {
                errln!("error: `oc export tiled` writes two files (the TMX and its tileset PNG): give --out MAP.tmx");
                return Err(2);
            };
            let tileset_path = export::tiled_tileset(&map, &rules, map_path, out).map_err(stopped)?;
            let tileset_target = output_target(&tileset_path, Kind::Picture(export::TILED_TILESET), &inputs, force)?;
            let (tmx, png) = export::tiled(&map, &rules, &tileset_path).map_err(stopped)?;
            let status = write(&tileset_target, &png).max(write(tmx_target, tmx.as_bytes()));
            if status == 0 {
                noteln!("wrote {} and {}", out.display(), tileset_path.display());
            }
            Ok(status)
        }
    }
}

/// Where `--out` names a file of another export's kind by its extension (a Foundry scene written
/// to `x.uvtt`, a Universal VTT file to `x.tmx`): the error and its help. Other names are
/// taken as given.
fn foreign_extension(format: ExportFormat, out: &Path, map: &Path) -> Option<(String, String)> {
    let ext = out.extension()?.to_str()?.to_ascii_lowercase();
    let shown = out.display();
    // What a file of that extension is, and the command that writes one (if oc has it).
    let (is, writes) = match ext.as_str() {
        "uvtt" | "dd2vtt" | "df2vtt" => ("a Universal VTT file", Some("uvtt")),
        "tmx" => ("a Tiled map (TMX)", Some("tiled")),
        "tmj" => ("a Tiled map in JSON (oc writes TMX)", Some("tiled")),
        "png" | "webp" | "jpg" | "jpeg" => ("a picture (an export writes its own beside the file it writes)", None),
        "json" => ("a Foundry scene (JSON)", Some("foundry")),
        _ => return None,
    };
    let (name, own) = match format {
        ExportFormat::Foundry => ("foundry", "a Foundry scene, JSON: name it `.json`"),
        ExportFormat::Uvtt => ("uvtt", "a Universal VTT file: name it `.uvtt` (or `.dd2vtt`)"),
        ExportFormat::Tiled => ("tiled", "a Tiled map, TMX: name it `.tmx`"),
    };
    if writes == Some(name) && ext != "tmj" {
        return None;
    }
    // A Universal VTT file is JSON too: `.json` is its name as well as a Foundry scene's.
    if matches!(format, ExportFormat::Uvtt) && ext == "json" {
        return None;
    }
    let stem = out.with_extension("");
    let help = match writes {
        // A Tiled map in JSON: `oc export tiled` writes TMX, named `.tmx`.
        Some(other) if other != name => {
            let to = if ext == "tmj" { out.with_extension("tmx").display().to_string() } else { shown.to_string() };
            format!("`oc export {name}` writes {own}; for {is}, run `oc export {other} {} -o {to}`", map.display())
        }
        _ => format!(
            "`oc export {name}` writes {own}, such as `-o {}`",
            stem.with_extension(match format {
                ExportFormat::Foundry => "json",
                ExportFormat::Uvtt => "uvtt",
                ExportFormat::Tiled => "tmx",
            })
            .display()
        ),
    };
    Some((format!("`{shown}` names {is}, not what `oc export {name}` writes"), help))
}

pub fn import_image(image: &Path, legend: Option<&Path>, name: Option<&str>, out: Option<&Path>, force: bool) -> u8 {
    let run = || -> Result<u8, u8> {
        let rules = oc_render::map::std_rules().map_err(stopped)?;
        let mut inputs = vec![image.to_path_buf()];
        inputs.extend(legend.map(Path::to_path_buf));
        let target = out.map(|o| output_target(o, Kind::MapDefinition, &inputs, force)).transpose()?;
        let bytes = oc_render::map::read(image, MAX_IMAGE_BYTES).map_err(stopped)?;
        let palette = legend.map(|path| palette(path, &rules)).transpose()?;
        let (text, width, height) =
            oc_render::map::import_image(image, &bytes, palette.as_ref(), &rules, name).map_err(stopped)?;
        let Some(target) = target else {
            out!("{text}");
            return Ok(0);
        };
        let status = write(&target, text.as_bytes());
        if status == 0 {
            noteln!("wrote {} ({}x{} tiles)", target.show(), width, height);
        }
        Ok(status)
    };
    run().unwrap_or_else(|status| status)
}

/// `oc import-image --legend PATH`: the palette it holds, or its errors reported (status 1; 2
/// where it cannot be read).
fn palette(path: &Path, rules: &oc_model::Rules) -> Result<oc_atlas::export::PaletteLegend, u8> {
    let bytes = oc_project::fsx::read_regular(path, MAX_SOURCE_BYTES).map_err(|e| {
        errln!("error: cannot read {}: {e}", path.display());
        errln!("help: name the legend's TOML file, or leave out --legend for the colours `oc render` paints");
        2u8
    })?;
    let text = String::from_utf8_lossy(&bytes);
    oc_atlas::export::palette_legend(oc_diag::FileId(0), &text, rules).map_err(|diags| {
        report::verdict(1);
        show_over(path, &text, &diags);
        errln!("error: {}: nothing was written ({} error(s) in the legend above)", path.display(), diags.len());
        1
    })
}

/// The diagnostics of reading one file (`path`, holding `text`), drawn over its lines: a palette
/// legend's, a TMX's.
fn show_over(path: &Path, text: &str, diags: &[oc_diag::Diagnostic]) {
    let shown = path.display().to_string();
    let sources = report::OneFile { path: &shown, text };
    let reports = report::Reports::new(&sources);
    for d in diags {
        err!("{}", reports.render(d, style()));
    }
}

pub fn import_tiled(tmx: &Path, out: Option<&Path>, force: bool) -> u8 {
    let run = || -> Result<u8, u8> {
        let rules = oc_render::map::std_rules().map_err(stopped)?;
        let target = out.map(|o| output_target(o, Kind::ImportedMap, &[tmx.to_path_buf()], force)).transpose()?;
        if let Some(Target::File(f)) = &target {
            if !oc_project::discover::is_map(&f.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()) {
                errln!("error: {}: a map definition's name ends in `.map.toml`", f.path.display());
                return Err(2);
            }
        }
        // Not UTF-8: refused, not read with replacement characters (they went into the map).
        let text = match String::from_utf8(oc_render::map::read(tmx, MAX_SOURCE_BYTES).map_err(stopped)?) {
            Ok(text) => text,
            Err(e) => {
                let bytes = e.as_bytes();
                let utf16 = bytes.starts_with(&[0xFF, 0xFE]) || bytes.starts_with(&[0xFE, 0xFF]);
                let what = if utf16 { "UTF-16 text, " } else { "" };
                let at = e.utf8_error().valid_up_to();
                report::verdict(1);
                errln!("error: {}: the TMX is {what}not UTF-8 (at byte {at}); nothing was written", tmx.display());
                errln!("help: save it as UTF-8, as Tiled writes it (an editor's \"save with encoding\" converts it)");
                return Ok(1);
            }
        };
        let (toml, diags) = oc_render::map::import_tiled(tmx, &text, &rules);
        show_over(tmx, &text, &diags);
        let Some(toml) = toml else {
            let errors = diags.iter().filter(|d| d.is_error()).count();
            errln!("error: {}: nothing was written ({errors} error(s) above)", tmx.display());
            return Ok(1);
        };
        let Some(target) = target else {
            out!("{toml}");
            return Ok(0);
        };
        let status = write(&target, toml.as_bytes());
        if status == 0 {
            noteln!("wrote {} (check it with `oc check {}`)", target.show(), target.show());
        }
        Ok(status)
    };
    run().unwrap_or_else(|status| status)
}
