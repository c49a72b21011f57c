//! The map format: TOML read with spans, so every diagnostic points at the offending symbol.
//!
//! ```toml
//! name = "Border Mulan"
//! width = 4
//! height = 2
//! grid = 70                 # pixels per square (default 70)
//! image = "border-mulan.png" # optional, relative to the map file
//! rounds = 12               # optional time limit, for reachability lints
//! rules = "../rules.oc"     # optional: home-brew rules (default: the standard library)
//! allow = ["oc::atlas::unused_legend"]
//! rows = [
//!   "..ff",
//!   ".FT.",
//! ]
//! [legend]
//! "." = "Plains"
//! [[regions]]
//! name = "attacker-zone"
//! kind = "deployment"        # deployment | seize | escape | raze | defend | label
//! side = "attacker"          # attacker | defender
//! rect = [0, 0, 2, 2]        # x, y, width, height; or tiles = [[x, y], ...]
//! units = 5                  # deployment zones: how many units it must hold
//! [[chests]]
//! at = [3, 0]
//! item = "Vulnerary"
//! [[doors]]
//! at = [2, 1]
//! [[destructibles]]
//! at = [1, 1]
//! hp = 30
//! ```

use std::collections::BTreeMap;

use oc_diag::{Diagnostic, FileId, Span};
use serde::Deserialize;
use toml::Spanned;

use crate::codes::*;

pub const DEFAULT_GRID: u32 = 70;
/// The largest width or height a map may have.
pub const MAX_SIDE: i64 = 512;
/// Tiles all of a map's regions may list together (four times the largest map).
pub const MAX_REGION_TILES: usize = 4 * 512 * 512;

/// A map definition (`*.map.toml`). The JSON Schema editors validate against
/// (`schemas/map.schema.json`) is generated from these types, so it cannot drift from the reader.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(title = "oc map", description = "An Officer's Chess map: terrain rows, legend, regions, chests, doors and walls.")]
struct RawMap {
    /// The map's name, as scenarios and reports show it.
    #[schemars(with = "String")]
    name: Spanned<String>,
    /// Squares across (1 to 512).
    #[schemars(with = "i64", range(min = 1, max = 512))]
    width: Spanned<i64>,
    /// Squares down (1 to 512).
    #[schemars(with = "i64", range(min = 1, max = 512))]
    height: Spanned<i64>,
    /// Pixels per square in the background image and renders (8 to 1024; default 70).
    #[schemars(with = "Option<i64>", range(min = 8, max = 1024))]
    grid: Option<Spanned<i64>>,
    /// A background image, relative to the map file.
    #[schemars(with = "Option<String>")]
    image: Option<Spanned<String>>,
    /// A time limit in rounds, for the reachability lints.
    #[schemars(with = "Option<i64>", range(min = 1))]
    rounds: Option<Spanned<i64>>,
    /// Home-brew rules (`.oc`) whose terrains the map uses; default: the standard library.
    #[schemars(with = "Option<String>")]
    rules: Option<Spanned<String>>,
    /// Lint codes not to report for this map (`oc::atlas::unused_legend`).
    #[serde(default)]
    #[schemars(with = "Vec<String>")]
    allow: Vec<Spanned<String>>,
    /// One string per row of squares, one symbol per square (see `legend`).
    #[schemars(with = "Vec<String>")]
    rows: Spanned<Vec<Spanned<String>>>,
    /// Symbol -> terrain name (or title), overriding each terrain's own symbol.
    #[serde(default)]
    #[schemars(with = "BTreeMap<String, String>")]
    legend: BTreeMap<Spanned<String>, Spanned<String>>,
    /// Named areas: deployment zones, objectives, labels.
    #[serde(default)]
    #[schemars(with = "Vec<RawRegion>")]
    regions: Vec<Spanned<RawRegion>>,
    /// Chests and the item each holds.
    #[serde(default)]
    #[schemars(with = "Vec<RawChest>")]
    chests: Vec<Spanned<RawChest>>,
    /// Doors (the square's terrain says how it opens).
    #[serde(default)]
    #[schemars(with = "Vec<RawAt>")]
    doors: Vec<Spanned<RawAt>>,
    /// Walls and snags with their HP.
    #[serde(default)]
    #[schemars(with = "Vec<RawDestructible>")]
    destructibles: Vec<Spanned<RawDestructible>>,
}

/// A named area of the map.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawRegion {
    /// The name scenarios use (`seize "throne"`).
    #[schemars(with = "String")]
    name: Spanned<String>,
    /// What the region is for.
    #[schemars(with = "String", extend("enum" = ["deployment", "seize", "escape", "raze", "defend", "label"]))]
    kind: Spanned<String>,
    /// Whose region it is (deployment zones).
    #[schemars(with = "Option<String>", extend("enum" = ["attacker", "defender"]))]
    side: Option<Spanned<String>>,
    /// The squares, as `[x, y]` pairs; or give `rect`.
    #[schemars(with = "Option<Vec<[i64; 2]>>")]
    tiles: Option<Vec<Spanned<[i64; 2]>>>,
    /// `[x, y, width, height]`; or give `tiles`.
    #[schemars(with = "Option<[i64; 4]>")]
    rect: Option<Spanned<[i64; 4]>>,
    /// Deployment zones: how many units it must hold.
    #[schemars(with = "Option<i64>", range(min = 1))]
    units: Option<Spanned<i64>>,
}

/// A chest on a square.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawChest {
    /// `[x, y]`.
    #[schemars(with = "[i64; 2]")]
    at: Spanned<[i64; 2]>,
    /// The item inside.
    #[schemars(with = "String")]
    item: Spanned<String>,
}

/// A door on a square.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawAt {
    /// `[x, y]`.
    #[schemars(with = "[i64; 2]")]
    at: Spanned<[i64; 2]>,
}

/// A wall or snag that can be struck down.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
struct RawDestructible {
    /// `[x, y]`.
    #[schemars(with = "[i64; 2]")]
    at: Spanned<[i64; 2]>,
    /// Its HP (default: the terrain's).
    #[schemars(with = "Option<i64>", range(min = 1))]
    hp: Option<Spanned<i64>>,
}

/// The JSON Schema of a map definition, pretty-printed (what `schemas/map.schema.json` holds).
pub fn json_schema() -> String {
    let schema = schemars::schema_for!(RawMap);
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Tile {
    pub x: i64,
    pub y: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RegionKind {
    Deployment,
    Seize,
    Escape,
    Raze,
    Defend,
    Label,
}

impl RegionKind {
    /// The word the map format uses for the kind.
    pub fn word(self) -> &'static str {
        match self {
            RegionKind::Deployment => "deployment",
            RegionKind::Seize => "seize",
            RegionKind::Escape => "escape",
            RegionKind::Raze => "raze",
            RegionKind::Defend => "defend",
            RegionKind::Label => "label",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Side {
    Attacker,
    Defender,
}

#[derive(Clone, Debug)]
pub struct Region {
    pub name: String,
    pub kind: RegionKind,
    pub side: Option<Side>,
    /// Each tile with the span that placed it.
    pub tiles: Vec<(Tile, Span)>,
    pub units: Option<i64>,
    pub span: Span,
    pub name_span: Span,
}

#[derive(Clone, Debug)]
pub struct Chest {
    pub at: Tile,
    pub item: String,
    pub at_span: Span,
    pub item_span: Span,
}

#[derive(Clone, Debug)]
pub struct Destructible {
    pub at: Tile,
    pub hp: Option<i64>,
    pub span: Span,
}

/// A map as read: its rows as symbols with spans, the legend, and what stands on it.
#[derive(Clone, Debug)]
pub struct Map {
    pub name: String,
    pub width: i64,
    pub height: i64,
    pub grid: u32,
    pub image: Option<(String, Span)>,
    pub rounds: Option<i64>,
    /// A `.oc` file (relative to the map) whose rules the map is checked against; the standard
    /// library when absent.
    pub rules: Option<(String, Span)>,
    pub allow: Vec<(String, Span)>,
    /// `rows[y][x]`: the symbol and its span.
    pub rows: Vec<Vec<(char, Span)>>,
    pub row_spans: Vec<Span>,
    pub rows_span: Span,
    /// symbol -> (terrain name as written, span of the name)
    pub legend: BTreeMap<char, (String, Span)>,
    /// symbol -> terrain name in the rules: the rules' own symbols, overridden by the legend.
    /// Filled by [`Map::resolve`].
    pub symbols: BTreeMap<char, String>,
    pub legend_keys: Vec<(String, Span)>,
    pub regions: Vec<Region>,
    pub chests: Vec<Chest>,
    pub doors: Vec<(Tile, Span)>,
    pub destructibles: Vec<Destructible>,
    pub width_span: Span,
    pub height_span: Span,
    pub name_span: Span,
}

impl Map {
    /// The rules' terrain at a tile, if the tile exists and its symbol is known.
    pub fn terrain(&self, t: Tile) -> Option<&str> {
        let (c, _) = self.rows.get(usize::try_from(t.y).ok()?)?.get(usize::try_from(t.x).ok()?)?;
        self.symbols.get(c).map(String::as_str)
    }

    /// Settles which terrain each symbol stands for: every terrain's own `symbol` from the
    /// rules, then the map's legend (by terrain name or title) on top.
    pub fn resolve(&mut self, rules: &oc_model::Rules) {
        self.symbols.clear();
        for t in &rules.terrains {
            let mut chars = t.symbol.as_deref().unwrap_or("").chars();
            if let (Some(c), None) = (chars.next(), chars.next()) {
                self.symbols.insert(c, t.name.clone());
            }
        }
        for (c, (name, _)) in &self.legend {
            match find_terrain(rules, name) {
                Some(t) => {
                    self.symbols.insert(*c, t.name.clone());
                }
                None => {
                    self.symbols.remove(c);
                }
            }
        }
    }

    /// The map as the battle engine reads it (after [`Map::resolve`]). Unknown symbols become
    /// an empty terrain name, which the engine treats as impassable.
    pub fn battle_map(&self) -> oc_model::BattleMap {
        oc_model::BattleMap {
            name: self.name.clone(),
            width: self.width,
            height: self.height,
            terrain: self.tiles().map(|t| self.terrain(t).unwrap_or_default().to_string()).collect(),
            regions: self
                .regions
                .iter()
                .map(|r| oc_model::MapRegion {
                    name: r.name.clone(),
                    kind: r.kind.word().to_string(),
                    side: r.side.map(|s| match s {
                        Side::Attacker => oc_model::SideId::Attacker,
                        Side::Defender => oc_model::SideId::Defender,
                    }),
                    tiles: r
                        .tiles
                        .iter()
                        .map(|(t, _)| (t.x, t.y))
                        .filter(|(x, y)| self.in_bounds(Tile { x: *x, y: *y }))
                        .collect(),
                })
                .collect(),
            chests: self.chests.iter().map(|c| ((c.at.x, c.at.y), c.item.clone())).collect(),
            doors: self.doors.iter().map(|(t, _)| (t.x, t.y)).collect(),
            destructibles: self.destructibles.iter().map(|d| ((d.at.x, d.at.y), d.hp)).collect(),
        }
    }

    /// Every tile of the map, row by row.
    pub fn tiles(&self) -> impl Iterator<Item = Tile> + '_ {
        (0..self.height).flat_map(move |y| (0..self.width).map(move |x| Tile { x, y }))
    }

    pub fn index(&self, t: Tile) -> Option<usize> {
        self.in_bounds(t).then(|| (t.y * self.width + t.x) as usize)
    }
    pub fn in_bounds(&self, t: Tile) -> bool {
        t.x >= 0 && t.y >= 0 && t.x < self.width && t.y < self.height
    }
    /// Whether a region's tiles were refused (a rectangle off the map, no tiles) or run off the
    /// map: that is reported once, and what depends on the region's tiles is not checked.
    pub fn region_off_map(&self, r: &Region) -> bool {
        r.tiles.is_empty() || r.tiles.iter().any(|(t, _)| !self.in_bounds(*t))
    }
    pub fn region(&self, name: &str) -> Option<&Region> {
        self.regions.iter().find(|r| r.name == name)
    }
}

/// A terrain by its name (`CastleGate`) or its title (`Castle Gate`).
pub fn find_terrain<'a>(rules: &'a oc_model::Rules, name: &str) -> Option<&'a oc_model::Terrain> {
    rules.terrain(name).or_else(|| rules.terrains.iter().find(|t| t.title.as_deref() == Some(name)))
}

fn span(file: FileId, r: std::ops::Range<usize>) -> Span {
    Span::new(file, r.start, r.end)
}

/// Reads a map. Returns the map when its structure could be read (lints run on it even if some
/// entries were wrong), and the problems found while reading.
pub fn parse(file: FileId, text: &str) -> (Option<Map>, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let raw: RawMap = match toml::from_str(text) {
        Ok(r) => r,
        Err(e) => {
            diags.push(crate::toml_error::diagnostic(file, text, &e));
            return (None, diags);
        }
    };
    let sp = |s: std::ops::Range<usize>| span(file, s);
    let (width, height) = (*raw.width.get_ref(), *raw.height.get_ref());
    for (value, s, what) in [(width, raw.width.span(), "width"), (height, raw.height.span(), "height")] {
        if value < 1 {
            diags.push(
                Diagnostic::error(TOO_SMALL, sp(s), format!("a {what} of {value} tiles: the map has no tiles"))
                    .with_label("must be at least 1")
                    .with_help("a map is at least 1 by 1 tiles: set the width and height the rows have"),
            );
            return (None, diags);
        }
        if !(1..=MAX_SIDE).contains(&value) {
            diags.push(
                Diagnostic::error(TOO_LARGE, sp(s), format!("a {what} of {value} tiles"))
                    .with_label(format!("must be 1..={MAX_SIDE}"))
                    .with_help(format!("maps are 1 to {MAX_SIDE} tiles on each side; split larger battlefields")),
            );
            return (None, diags);
        }
    }
    let grid = match &raw.grid {
        Some(g) if (8..=1024).contains(g.get_ref()) => *g.get_ref() as u32,
        Some(g) => {
            diags.push(
                Diagnostic::error(FIELD, sp(g.span()), format!("a grid size of {} pixels", g.get_ref()))
                    .with_help("grid is the square size in pixels, 8 to 1024 (the Magvel Atlas uses 70)"),
            );
            DEFAULT_GRID
        }
        None => DEFAULT_GRID,
    };
    let mut legend = BTreeMap::new();
    let mut legend_keys = Vec::new();
    for (key, value) in &raw.legend {
        let vspan = sp(value.span());
        let kspan = sp(key.span());
        let key = key.get_ref();
        let mut chars = key.chars();
        match (chars.next(), chars.next()) {
            (Some(c), None) => {
                legend.insert(c, (value.get_ref().clone(), vspan));
                legend_keys.push((key.clone(), kspan));
            }
            _ => diags.push(
                Diagnostic::error(LEGEND_SYMBOL, kspan, format!("the legend key `{key}` is not one character"))
                    .with_help("rows are read one character per tile: use a single character as the key"),
            ),
        }
    }
    let mut rows = Vec::new();
    let mut row_spans = Vec::new();
    for row in raw.rows.get_ref() {
        let s = row.span();
        // The symbol at char i sits after the opening quote when the row is written as a plain
        // one-line string; otherwise (escapes, multi-line strings) point at the whole row.
        let plain = text.get(s.start + 1..s.end.saturating_sub(1)) == Some(row.get_ref().as_str());
        let symbols: Vec<(char, Span)> = row
            .get_ref()
            .char_indices()
            .map(|(i, c)| (c, if plain { span(file, s.start + 1 + i..s.start + 1 + i + c.len_utf8()) } else { sp(s.clone()) }))
            .collect();
        rows.push(symbols);
        row_spans.push(sp(s));
    }
    let tile = |a: &Spanned<[i64; 2]>| (Tile { x: a.get_ref()[0], y: a.get_ref()[1] }, sp(a.span()));
    let mut regions = Vec::new();
    let mut region_tiles = 0usize;
    for r in &raw.regions {
        let r_span = sp(r.span());
        let r = r.get_ref();
        let kind = match r.kind.get_ref().as_str() {
            "deployment" => RegionKind::Deployment,
            "seize" => RegionKind::Seize,
            "escape" => RegionKind::Escape,
            "raze" => RegionKind::Raze,
            "defend" => RegionKind::Defend,
            "label" => RegionKind::Label,
            other => {
                diags.push(Diagnostic::error(FIELD, sp(r.kind.span()), format!("no region kind `{other}`")).with_help(
                    match oc_diag::did_you_mean(other, ["deployment", "seize", "escape", "raze", "defend", "label"]) {
                        Some(k) => format!("did you mean `{k}`? kinds are deployment, seize, escape, raze, defend and label"),
                        None => "kinds are deployment, seize, escape, raze, defend and label".to_string(),
                    },
                ));
                continue;
            }
        };
        // A side misspelt is said once, there: not again as a zone with no side.
        let mut misspelt = false;
        let side = match r.side.as_ref().map(|s| (s.get_ref().as_str(), s.span())) {
            Some(("attacker", _)) => Some(Side::Attacker),
            Some(("defender", _)) => Some(Side::Defender),
            Some((other, s)) => {
                let help = match oc_diag::did_you_mean(other, ["attacker", "defender"]) {
                    Some(near) => format!("did you mean `{near}`? sides are attacker and defender"),
                    None => "sides are attacker and defender".to_string(),
                };
                diags.push(Diagnostic::error(FIELD, sp(s), format!("no side `{other}`")).with_help(help));
                misspelt = true;
                None
            }
            None => None,
        };
        let mut tiles: Vec<(Tile, Span)> = r.tiles.iter().flatten().map(tile).collect();
        let reported = diags.len();
        if let Some(rect) = &r.rect {
            let [x, y, w, h] = *rect.get_ref();
            if w < 1 || h < 1 || w > MAX_SIDE || h > MAX_SIDE {
                diags.push(
                    Diagnostic::error(FIELD, sp(rect.span()), format!("a rectangle of {w} by {h}"))
                        .with_help("rect = [x, y, width, height] with width and height of at least 1"),
                );
            } else if x < 0 || y < 0 || x.checked_add(w).is_none_or(|e| e > width) || y.checked_add(h).is_none_or(|e| e > height)
            {
                // One error for the rectangle, not one per tile off the map.
                diags.push(
                    Diagnostic::error(
                        OUT_OF_BOUNDS,
                        sp(rect.span()),
                        format!("a rectangle at [{x}, {y}] of {w} by {h} runs off the {width} by {height} map"),
                    )
                    .with_help("rect = [x, y, width, height], counted from the top-left tile [0, 0]; keep it inside the map"),
                );
            } else if region_tiles + (w * h) as usize > MAX_REGION_TILES {
                diags.push(
                    Diagnostic::error(FIELD, sp(rect.span()), format!("regions cover more than {MAX_REGION_TILES} tiles in all"))
                        .with_help("a map has at most 512 x 512 tiles; regions that repeat them are a mistake"),
                );
            } else {
                region_tiles += (w * h) as usize;
                for ty in y..y + h {
                    for tx in x..x + w {
                        tiles.push((Tile { x: tx, y: ty }, sp(rect.span())));
                    }
                }
            }
        }
        // A refused rectangle was reported already: "no tiles" would only repeat it.
        if tiles.is_empty() && diags.len() == reported {
            diags.push(
                Diagnostic::error(FIELD, r_span, format!("the region `{}` has no tiles", r.name.get_ref()))
                    .with_help("give it `tiles = [[x, y], ...]` or `rect = [x, y, width, height]`"),
            );
        }
        if let Some(u) = r.units.as_ref().filter(|u| *u.get_ref() < 1) {
            diags.push(
                Diagnostic::error(FIELD, sp(u.span()), format!("a zone for {} units", u.get_ref()))
                    .with_help("units is how many units the zone must hold: at least 1 (leave it out for no requirement)"),
            );
        }
        if kind == RegionKind::Deployment && side.is_none() && !misspelt {
            diags.push(
                Diagnostic::error(FIELD, sp(r.name.span()), format!("the deployment zone `{}` has no side", r.name.get_ref()))
                    .with_help("add `side = \"attacker\"` or `side = \"defender\"`"),
            );
        }
        regions.push(Region {
            name: r.name.get_ref().clone(),
            kind,
            side,
            tiles,
            units: r.units.as_ref().map(|u| *u.get_ref()),
            span: r_span,
            name_span: sp(r.name.span()),
        });
    }
    let chests = raw
        .chests
        .iter()
        .map(|c| {
            let c = c.get_ref();
            let (at, at_span) = tile(&c.at);
            Chest { at, item: c.item.get_ref().clone(), at_span, item_span: sp(c.item.span()) }
        })
        .collect();
    let doors = raw.doors.iter().map(|d| tile(&d.get_ref().at)).collect();
    let destructibles = raw
        .destructibles
        .iter()
        .map(|d| {
            let (at, span) = tile(&d.get_ref().at);
            Destructible { at, hp: d.get_ref().hp.as_ref().map(|h| *h.get_ref()), span }
        })
        .collect();
    let map = Map {
        name: raw.name.get_ref().clone(),
        width,
        height,
        grid,
        image: raw.image.as_ref().map(|i| (i.get_ref().clone(), sp(i.span()))),
        rounds: raw.rounds.as_ref().map(|r| *r.get_ref()),
        rules: raw.rules.as_ref().map(|r| (r.get_ref().clone(), sp(r.span()))),
        allow: raw.allow.iter().map(|a| (a.get_ref().clone(), sp(a.span()))).collect(),
        rows,
        row_spans,
        rows_span: sp(raw.rows.span()),
        legend,
        symbols: BTreeMap::new(),
        legend_keys,
        regions,
        chests,
        doors,
        destructibles,
        width_span: sp(raw.width.span()),
        height_span: sp(raw.height.span()),
        name_span: sp(raw.name.span()),
    };
    (Some(map), diags)
}

/// `s` as a TOML basic string: JSON's escapes are TOML's, but for DEL (U+007F), which JSON
/// leaves as it is and TOML requires escaped.
pub(crate) fn toml_str(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_string()).replace('\u{7f}', "\\u007F")
}
