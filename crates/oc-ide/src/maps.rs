//! What the editor asks about a map (`*.map.toml`) and about the regions a scenario names, in
//! byte offsets: the thing under the cursor (a row symbol, a legend entry, a region, a chest's
//! item), its hover text, and the symbols and regions to complete.

use oc_atlas::{Map, Region};
use oc_diag::{FileId, Span};
use oc_model::{Rules, Terrain};

/// What a map position points at.
#[derive(Clone, Debug, PartialEq)]
pub enum MapThing {
    /// A symbol of a row or a legend key: the symbol and the terrain name it stands for.
    Symbol { symbol: char, terrain: Option<String>, span: Span },
    /// A legend's terrain name.
    TerrainName { name: String, span: Span },
    /// A region's name.
    Region { index: usize, span: Span },
    /// A chest's item.
    Item { name: String, span: Span },
}

impl MapThing {
    /// Where it is written.
    pub fn span(&self) -> Span {
        match self {
            MapThing::Symbol { span, .. } | MapThing::TerrainName { span, .. } => *span,
            MapThing::Region { span, .. } | MapThing::Item { span, .. } => *span,
        }
    }
}

/// The map as read, with its symbols resolved against `rules`.
pub fn parse(text: &str, rules: Option<&Rules>) -> Option<Map> {
    let (map, _) = oc_atlas::parse(FileId(0), text);
    let mut map = map?;
    if let Some(rules) = rules {
        map.resolve(rules);
    }
    Some(map)
}

fn inside(span: Span, offset: usize) -> bool {
    span.start as usize <= offset && offset < span.end as usize
}

/// The thing at `offset` of a map's text.
pub fn thing_at(map: &Map, offset: usize) -> Option<MapThing> {
    for row in &map.rows {
        for (c, span) in row {
            if inside(*span, offset) {
                return Some(MapThing::Symbol { symbol: *c, terrain: map.symbols.get(c).cloned(), span: *span });
            }
        }
    }
    for (c, (name, span)) in &map.legend {
        if inside(*span, offset) {
            return Some(MapThing::TerrainName { name: name.clone(), span: *span });
        }
        let key = map.legend_keys.iter().find(|(k, s)| k.starts_with(*c) && inside(*s, offset));
        if let Some((_, s)) = key {
            return Some(MapThing::Symbol { symbol: *c, terrain: map.symbols.get(c).cloned(), span: *s });
        }
    }
    for (index, r) in map.regions.iter().enumerate() {
        if inside(r.name_span, offset) {
            return Some(MapThing::Region { index, span: r.name_span });
        }
    }
    for chest in &map.chests {
        if inside(chest.item_span, offset) {
            return Some(MapThing::Item { name: chest.item.clone(), span: chest.item_span });
        }
    }
    None
}

/// A terrain's symbol, movement costs and bonuses, as markdown.
pub fn terrain_summary(t: &Terrain) -> String {
    let mut out = format!("terrain `{}`", t.name);
    if let Some(title) = t.title.as_ref().filter(|title| **title != t.name) {
        out.push_str(&format!(" ({title})"));
    }
    if let Some(symbol) = &t.symbol {
        out.push_str(&format!("\n\nsymbol `{symbol}`"));
    }
    let costs: Vec<String> =
        t.costs.iter().map(|(m, c)| format!("{m} {}", c.map_or_else(|| "-".to_string(), |c| c.to_string()))).collect();
    out.push_str(&format!("\n\ncost: {}", if costs.is_empty() { "1 for every movement".to_string() } else { costs.join(", ") }));
    if t.defense != 0 {
        out.push_str(&format!("\n\ndefense and resistance {:+}", t.defense));
    }
    if let Some(heal) = &t.heal {
        let event = oc_model::Event::ALL.iter().find(|(_, e)| *e == heal.event).map_or("?", |(n, _)| *n);
        out.push_str(&format!("\n\nheals {} at {event}", heal.amount));
    }
    if let Some(hp) = t.hp {
        out.push_str(&format!("\n\n{hp} HP"));
    }
    if let Some(b) = &t.becomes {
        out.push_str(&format!(", becomes {b}"));
    }
    if let Some(doc) = &t.doc {
        out.push_str(&format!("\n\n{doc}"));
    }
    out
}

/// A region's kind, side and tiles, as markdown.
pub fn region_summary(r: &Region) -> String {
    let side = match r.side {
        Some(oc_atlas::Side::Attacker) => " (attacker)",
        Some(oc_atlas::Side::Defender) => " (defender)",
        None => "",
    };
    let mut tiles: Vec<String> = r.tiles.iter().take(24).map(|(t, _)| format!("({}, {})", t.x, t.y)).collect();
    if r.tiles.len() > 24 {
        tiles.push("...".to_string());
    }
    let units = r.units.map(|u| format!(", holds {}", count(u, "unit"))).unwrap_or_default();
    format!("region `{}`: {}{side}{units}\n\n{}: {}", r.name, r.kind.word(), count(r.tiles.len() as i64, "tile"), tiles.join(" "))
}

/// `1 tile`, `2 tiles`.
pub fn count(n: i64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// The hover text of a thing of a map.
pub fn hover(map: &Map, rules: Option<&Rules>, thing: &MapThing) -> Option<String> {
    let terrain = |name: &str| rules.and_then(|r| oc_atlas::find_terrain(r, name));
    match thing {
        MapThing::Symbol { symbol, terrain: name, .. } => Some(match name.as_deref().and_then(terrain) {
            Some(t) => format!("`{symbol}`: {}", terrain_summary(t)),
            None => format!("`{symbol}`: no terrain"),
        }),
        MapThing::TerrainName { name, .. } => terrain(name).map(terrain_summary),
        MapThing::Region { index, .. } => map.regions.get(*index).map(region_summary),
        MapThing::Item { name, .. } => {
            let item = rules?.items.iter().find(|i| &i.name == name)?;
            Some(format!("{} `{}`: might {}, weight {}, cost {}", item_kind(item), item.name, item.might, item.weight, item.cost))
        }
    }
}

fn item_kind(item: &oc_model::Item) -> &'static str {
    match item.kind {
        oc_model::ItemKind::Weapon => "weapon",
        oc_model::ItemKind::Accessory => "accessory",
        oc_model::ItemKind::Consumable => "consumable",
    }
}

/// Whether `offset` is inside the `rows` array (where symbols are completed).
pub fn in_rows(map: &Map, offset: usize) -> bool {
    inside(map.rows_span, offset)
}

/// The symbols a map can use: (symbol, terrain name), the legend's over the rules' own.
pub fn symbols(map: &Map) -> Vec<(char, String)> {
    map.symbols.iter().map(|(c, n)| (*c, n.clone())).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn one_tile_is_not_tiles() {
        assert_eq!(super::count(1, "tile"), "1 tile");
        assert_eq!(super::count(0, "tile"), "0 tiles");
        assert_eq!(super::count(3, "region"), "3 regions");
    }
}
