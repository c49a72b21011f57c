//! The tilesets of a TMX, gid by gid: those embedded in the map, and those kept in a file of
//! their own (`<tileset firstgid="1" source="terrain.tsx"/>`, what Tiled makes by default),
//! whose text the caller reads — the import does no I/O — or says why it could not.
//!
//! A tile of a tileset file has no span in the TMX: what is wrong with it is reported at the
//! map's `source` attribute, naming the file and the tile.

use std::collections::{BTreeMap, BTreeSet};

use oc_model::Rules;

use super::reader::{class, properties, Reader};
use super::{TILESET, UNKNOWN_TERRAIN};

/// How the import gets the text of a tileset kept in a file of its own, given its `source` as
/// the TMX writes it (relative to the TMX's folder): the text, or why it cannot be read.
pub type ReadTileset<'a> = &'a mut dyn FnMut(&str) -> Result<String, String>;

/// The most terrain names missing from the rules that an import reports (each once).
const MAX_UNKNOWN_TERRAINS: usize = 20;

/// What the tilesets say, gid by gid.
#[derive(Default)]
pub(super) struct Tilesets {
    /// The terrain each tile names (`None`: a tile without one).
    pub terrain_of: BTreeMap<u32, Option<String>>,
    /// Tiles naming a terrain the rules do not have (reported once, at the tile).
    pub bad_terrain: BTreeSet<u32>,
    /// The terrain names reported missing: each once, at its first tile, and at most
    /// [`MAX_UNKNOWN_TERRAINS`] of them (a tileset of 40,000 tiles naming one misspelt terrain
    /// was 40,000 errors).
    reported: BTreeSet<String>,
    /// Each tileset read: its gids, first and one past the last.
    pub ranges: Vec<(u32, u32)>,
    /// Every tileset's first gid, and whether it could not be read (its squares are then not
    /// reported one by one: the tileset's error says it).
    pub firsts: Vec<(u32, bool)>,
}

impl Tilesets {
    /// Whether `gid` comes from a tileset that could not be read.
    pub fn unread(&self, gid: u32) -> bool {
        gid != 0 && self.firsts.iter().rev().find(|(first, _)| *first <= gid).is_some_and(|(_, unread)| *unread)
    }

    /// Whether `gid` is a tile of a tileset that was read.
    pub fn holds(&self, gid: u32) -> bool {
        self.terrain_of.contains_key(&gid) || self.ranges.iter().any(|(a, b)| (*a..*b).contains(&gid))
    }
}

/// Reads every `<tileset>` of the map `root`.
pub(super) fn read(r: &mut Reader, root: roxmltree::Node, rules: Option<&Rules>, read_file: ReadTileset) -> Tilesets {
    let mut out = Tilesets::default();
    for ts in root.children().filter(|c| c.has_tag_name("tileset")) {
        let first = ts.attribute("firstgid").and_then(|f| f.parse::<u32>().ok()).unwrap_or(1);
        let Some(source) = ts.attribute("source") else {
            out.firsts.push((first, false));
            tiles(r, &mut out, ts, first, rules, None);
            continue;
        };
        let at = r.attr_span(ts, "source");
        let help = "keep the tileset file inside the project (beside the map or below its folder), \
                    or embed it: in Tiled, select the tileset and use Map > Embed Tileset, then save \
                    (or `tiled --export-map --embed-tilesets`)";
        let text = match read_file(source) {
            Ok(text) => text,
            Err(why) => {
                r.error(TILESET, at, format!("the tileset `{source}` cannot be read: {why}"), help);
                out.firsts.push((first, true));
                continue;
            }
        };
        match roxmltree::Document::parse(&text) {
            Ok(doc) if doc.root_element().has_tag_name("tileset") => {
                out.firsts.push((first, false));
                tiles(r, &mut out, doc.root_element(), first, rules, Some((source, at)));
            }
            Ok(doc) => {
                let message =
                    format!("the tileset `{source}` holds a <{}>, not a Tiled <tileset>", doc.root_element().tag_name().name());
                r.error(TILESET, at, message, help);
                out.firsts.push((first, true));
            }
            Err(e) => {
                r.error(TILESET, at, format!("the tileset `{source}` is not well-formed XML: {e}"), help);
                out.firsts.push((first, true));
            }
        }
    }
    out.firsts.sort_unstable();
    out
}

/// The tiles of one tileset, from gid `first`; `file` names a tileset file and where the map
/// names it (the span of its tiles' diagnostics).
fn tiles(
    r: &mut Reader,
    out: &mut Tilesets,
    ts: roxmltree::Node,
    first: u32,
    rules: Option<&Rules>,
    file: Option<(&str, oc_diag::Span)>,
) {
    let count = ts.attribute("tilecount").and_then(|c| c.parse::<u32>().ok()).unwrap_or(0);
    out.ranges.push((first, first.saturating_add(count)));
    for tile in ts.children().filter(|c| c.has_tag_name("tile")) {
        let Some(id) = tile.attribute("id").and_then(|i| i.parse::<u32>().ok()) else { continue };
        let tprops = properties(tile);
        let terrain = tprops.get("terrain").map(|(v, _)| v.clone()).or_else(|| class(tile).map(str::to_string));
        let gid = first.saturating_add(id);
        if let (Some(rules), Some(t)) = (rules, &terrain) {
            if crate::map::find_terrain(rules, t).is_none() {
                out.bad_terrain.insert(gid);
                if out.reported.contains(t) || out.reported.len() >= MAX_UNKNOWN_TERRAINS {
                    let resolved = Some(t.clone());
                    out.terrain_of.insert(gid, resolved);
                    continue;
                }
                out.reported.insert(t.clone());
                let help = match oc_diag::did_you_mean(t, rules.terrains.iter().map(|t| t.name.as_str())) {
                    Some(s) => format!("did you mean `{s}`?"),
                    None => "terrain names are those of the rules: Plains, Forest, Fort ...".to_string(),
                };
                let (span, message) = match file {
                    Some((source, at)) => (at, format!("`{source}`, tile {id}: no terrain `{t}` in the rules")),
                    None => {
                        let span = match tprops.get("terrain") {
                            Some((_, p)) => r.attr_span(*p, "value"),
                            None => r.node_span(tile),
                        };
                        (span, format!("no terrain `{t}` in the rules"))
                    }
                };
                r.error(UNKNOWN_TERRAIN, span, message, &help);
            }
        }
        let resolved = terrain.map(|t| rules.and_then(|rl| crate::map::find_terrain(rl, &t)).map_or(t, |tr| tr.name.clone()));
        out.terrain_of.insert(gid, resolved);
    }
}
