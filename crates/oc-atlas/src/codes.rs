//! Every atlas lint, with the text `oc explain CODE` prints. Codes are never renamed or reused.

oc_diag::codes! {
    TOML = "oc::atlas::toml", "the map file is not valid TOML",
"A map definition is a TOML file. This one does not parse: the message says what the TOML \
reader expected.\n\nFix: correct the syntax at the place shown (a missing quote or bracket is \
the usual cause).";
    FIELD = "oc::atlas::field", "a map field is missing, unknown or of the wrong type",
"A map has `name`, `width`, `height` and `rows`, and may have `grid` (default 70), `image`, \
`rounds`, `rules`, `allow`, `[legend]`, `[[regions]]`, `[[chests]]`, `[[doors]]` and `[[destructibles]]`. \
Each has a fixed type; unknown fields are refused so typos do not pass silently.\n\nFix: use the \
field names and types listed here.";
    RAGGED_ROW = "oc::atlas::ragged_row", "a terrain row has the wrong length",
"Every row of `rows` holds exactly `width` symbols, one per tile.\n\nFix: add or remove symbols \
so the row is as long as the map is wide.";
    ROW_COUNT = "oc::atlas::row_count", "the map has the wrong number of rows",
"`rows` holds exactly `height` rows.\n\nFix: add or remove rows, or correct `height`.";
    UNKNOWN_SYMBOL = "oc::atlas::unknown_symbol", "a terrain symbol is not in the legend",
"Each symbol in `rows` must be a key of `[legend]`, which names its terrain.\n\nFix: add the \
symbol to the legend, or use one that is there.";
    UNKNOWN_TERRAIN = "oc::atlas::unknown_terrain", "a legend entry names no terrain of the rules",
"Legend values are terrain names from the compiled rules (Plains, Forest, Fort ...).\n\nFix: \
use the suggested name, or define the terrain in the DSL.";
    UNUSED_LEGEND = "oc::atlas::unused_legend", "a legend symbol is never used",
"This is a warning: a legend entry that no row uses is usually a leftover or a typo in a row.\n\n\
Fix: remove it, or add it to `allow` for this map.";
    LEGEND_SYMBOL = "oc::atlas::legend_symbol", "a legend key is not one character",
"Rows are read one character per tile, so every legend key is exactly one character.\n\nFix: \
shorten the key.";
    OUT_OF_BOUNDS = "oc::atlas::out_of_bounds", "a region tile, chest, door or destructible is off the map",
"Coordinates are `[x, y]` with 0 <= x < width and 0 <= y < height (x to the right, y down).\n\n\
Fix: correct the coordinates.";
    REGION_IMPASSABLE = "oc::atlas::region_impassable", "a region tile is impassable",
"A deployment, seize, escape or defend tile on terrain that the rules' units cannot enter (a wall, \
the sea) can never be used. The units asked are of the ruleset's base `movement_type` (Foot in the \
standard library).\n\nFix: move the tile, or change the terrain under it.";
    ZONES_OVERLAP = "oc::atlas::zones_overlap", "two deployment zones share tiles",
"The attacker's and the defender's deployment zones must be apart, or both could deploy on the \
same tile.\n\nFix: remove the shared tiles from one zone.";
    ZONE_TOO_SMALL = "oc::atlas::zone_too_small", "a deployment zone cannot hold its army",
"A deployment zone with `units = N` must have at least N passable tiles.\n\nFix: enlarge the zone \
or lower `units`.";
    ZONE_TRAPPED = "oc::atlas::zone_trapped", "no unit can leave a deployment zone",
"Every tile next to the zone is impassable for units of the ruleset's base `movement_type` (Foot in \
the standard library), so an army deployed there can never \
move out.\n\nFix: open a way out (a passable tile, a door, a destructible wall).";
    OBJECTIVE_UNREACHABLE = "oc::atlas::objective_unreachable", "a seize or escape tile cannot be reached",
"A seize or escape tile must be reachable from its side's deployment zone by units of the \
ruleset's base `movement_type` (Foot in the standard library; as a warning, by every other movement \
type: oc::atlas::objective_movement), using the Terrain Table's costs for each movement type. Closed doors and \
intact walls block the way.\n\nFix: open a path, or move the objective.";
    OBJECTIVE_FAR = "oc::atlas::objective_far", "an objective takes longer to reach than the time limit",
"At the ruleset's base `movement` (5 in the standard library), a unit of its base `movement_type` \
(Foot) needs more rounds to reach this seize or escape tile than the map's `rounds` allow.\n\nFix: move the objective closer, or raise `rounds`.";
    UNKNOWN_ITEM = "oc::atlas::unknown_item", "a chest holds an item the rules do not have",
"Chest items are item names from the compiled rules (Vulnerary, MasterKey ...).\n\nFix: use the \
suggested name.";
    DOOR_UNREACHABLE = "oc::atlas::door_unreachable", "no side of a door can be reached",
"A door opens with Pick or a Master Key from an adjacent tile; if no neighbour is passable, nobody \
can ever open it.\n\nFix: make a neighbouring tile passable.";
    NOT_A_DOOR = "oc::atlas::not_a_door", "a door is placed on terrain that cannot open",
"A `[[doors]]` entry must be on terrain that the rules say can be opened (`opened_by`).\n\nFix: \
put the door on a Door tile, or remove the entry.";
    DESTRUCTIBLE_HP = "oc::atlas::destructible_hp", "a destructible tile has no hit points",
"A `[[destructibles]]` entry needs `hp`, unless its terrain has hit points in the rules (Walls \
and Snags have 30); its terrain must also say what it becomes.\n\nFix: add `hp = 30`, or put it \
on destructible terrain.";
    IMAGE_SIZE = "oc::atlas::image_size", "the background image has the wrong size",
"The image must be width x grid by height x grid pixels (a 20x15 map at grid 70 is 1400x1050), \
or tokens will not line up with the squares in Foundry.\n\nFix: resize the image or correct \
`grid`.";
    IMAGE_MISSING = "oc::atlas::image_missing", "the background image cannot be read",
"`image` names a file (relative to the map) that does not exist or is not a PNG.\n\nFix: correct \
the path.";
    TOO_LARGE = "oc::atlas::too_large", "the map is larger than the sane limit",
"Maps may be at most 512 by 512 tiles, and at least 1 by 1.\n\nFix: split the map.";
    DUPLICATE_REGION = "oc::atlas::duplicate_region", "two regions have the same name",
"Scenarios refer to regions by name, so each name is used once.\n\nFix: rename one.";
    UNKNOWN_ALLOW = "oc::atlas::unknown_allow", "`allow` names a code that is not an atlas lint",
"`allow = [...]` silences lints for this map by code; this entry names none.\n\nFix: use a code \
from `oc explain --list` that starts with `oc::atlas::`.";
    OBJECTIVE_CAVALRY = "oc::atlas::objective_cavalry", "retired: Cavalry cannot reach a seize or escape tile",
"Retired: the lint named one movement type of the standard library. It is \
oc::atlas::objective_movement now, for every movement type of the rules; a map's `allow` that \
names this code allows that one.";
    OBJECTIVE_MOVEMENT = "oc::atlas::objective_movement", "a movement type cannot reach a seize or escape tile",
"A warning: units of the ruleset's base `movement_type` (Foot in the standard library) can reach \
this objective, but units of another movement type the rules declare cannot (the standard \
library's Terrain Table forbids Cavalry rivers and mountains). Armies of them will never win by \
it.\n\nFix: open a way they can take, or allow the lint for this map if that is intended.";
    TOO_SMALL = "oc::atlas::too_small", "the map has no tiles",
"A map's `width` and `height` are at least 1: a map of 0 by 0 tiles has nowhere to deploy or \
fight. (Too large a map is `oc::atlas::too_large`.)\n\nFix: set `width` and `height` to the size \
the rows have.";
    CHEST_IMPASSABLE = "oc::atlas::chest_impassable", "a chest is on a tile no unit can enter",
"A warning: a chest's item is taken from the chest's own tile (Pick, or a unit standing on it), \
but no movement type can enter this tile. The help says how it could still be reached: a wall \
that can be struck down, a door that can be opened; otherwise the chest can never be opened.\n\n\
Fix: move the chest onto passable terrain, or make the tile reachable.";
    TOO_LARGE_TO_RENDER = "oc::atlas::too_large_to_render", "the map's picture would be too large to draw",
"A warning: the map is valid, but its picture (width x grid by height x grid pixels, plus the \
legend strip) passes what `oc render` draws: 16,384 pixels a side and 67 million pixels in all \
(an 8192 x 8192 picture). `oc render` refuses such a map rather than ask for gigabytes of memory; \
every other command works on it.\n\nFix: lower `grid` (the picture shrinks with its square), or \
split the battlefield into several maps.";
    SYMBOL_OUTSIDE_LEGEND = "oc::atlas::symbol_outside_legend", "a legend that lists its symbols misses one a row uses",
"A warning: the map's `[legend]` lists the symbols it uses, restating a terrain's own symbol \
that the rows use (`\".\" = \"Plains\"`), but a row uses a symbol it does not list. That symbol is read as the rules' \
own symbol for a terrain (the standard library gives `f` to Forest), which is rarely what such a \
legend means: more often the symbol was mistyped or its entry forgotten. (A legend that only adds \
or overrides symbols, such as `\"~\" = \"Lake\"`, draws the rest with the rules' symbols without a \
warning.)\n\nFix: add the symbol to `[legend]` with the terrain it stands for, or use a symbol the \
legend has.";
    OBJECTIVE_BEHIND_DOOR = "oc::atlas::objective_behind_door", "a seize or escape tile is reachable only through a door or a wall",
"A warning: Foot units reach this objective only once a door is opened (with the tags or items \
the door's terrain names in `opened_by`, such as Pick or a Master Key, from a tile next to it) or \
a destructible wall is struck down. The message names the door or wall. Whether the scenario's \
army has a unit that can open it is the scenario's check: where none can, the side cannot win \
(`oc::scenario::unwinnable`).\n\nFix: nothing, if the door is the point; otherwise open a path, \
or move the objective.";
}
