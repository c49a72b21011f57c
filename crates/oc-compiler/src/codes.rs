//! Every diagnostic code the compiler emits, with the text `oc explain CODE` prints.
//! **Invariant:** codes are never renamed or reused; retired codes stay listed.

oc_diag::codes! {
    IMPORT_NOT_FOUND = "oc::import::not_found", "an imported file does not exist",
"`import \"PATH\"` names a file relative to the importing file. No file exists there.\n\n\
Example:\n    import \"tags/heroic.oc\"   // but the file is tags/heroics.oc\n\n\
Fix: correct the path. Paths use `/` on every system.";
    IMPORT_CYCLE = "oc::import::cycle", "files import each other in a circle",
"A file imports a file that (directly or through others) imports the first one again. \
Definitions are visible through the whole import closure, so the cycle is never needed.\n\n\
Fix: remove one of the imports, or move the shared definitions into a third file both import.";
    IMPORT_OUTSIDE_ROOT = "oc::import::outside_root", "an import leaves the project",
"Imports are confined to the project root (the directory `oc` was run on), so a project \
checks the same on every machine. This path climbs above it with `..` or is absolute.\n\n\
Fix: copy the file into the project, or run `oc` from a directory that contains both.";
    IMPORT_NOT_OC = "oc::import::not_oc", "an import names a file that is not a `.oc` file",
"`import \"PATH\"` reads rules, and rules live in `.oc` files: a path without that extension \
(`import \"notes.txt\"`, `import \"passwd\"`) is not read, so that a file of another kind is \
neither parsed as rules nor quoted in diagnostics (an editor opening a file anywhere must not \
show the text of the files beside it).\n\nExample:\n    import \"rules/duelist\"   // write rules/duelist.oc\n\n\
Fix: name the `.oc` file, extension included.";
    IMPORT_TOO_DEEP = "oc::import::too_deep", "imports nest too deeply",
"A chain of imports is more than 32 files deep. Real projects never come close; this almost \
always means a directory link points back up (`sub -> .`), so `sub/x.oc`, `sub/sub/x.oc` ... are \
all the same file under ever longer names.\n\nFix: import the file by its real path, or remove \
the link.";
    DUPLICATE = "oc::name::duplicate", "a name is defined twice",
"Two definitions of the same kind share a name (tags and statuses share one namespace). \
Both places are labelled. The standard library's names count too: a home-brew class cannot be \
called `Myrmidon`.\n\nFix: rename one of them.";
    UNKNOWN_TAG = "oc::name::unknown_tag", "no tag of this name",
"A tag list, `grant`, or `has` names a tag that is not defined in the standard library or \
the files this one imports.\n\nExample:\n    tags Lucy(5)      // did you mean `Lucky`?\n\n\
Fix: use the suggested name, define the tag, or import the file that defines it.";
    UNKNOWN_CLASS = "oc::name::unknown_class", "no class of this name",
"A class name (for instance in `Exclusive(Class)` or `promoted from`) does not name a \
defined class.\n\nFix: use the suggested name or define the class.";
    UNKNOWN_WEAPON_TYPE = "oc::name::unknown_weapon_type", "no weapon type of this name",
"`wields`, a weapon's `type`, a triangle or a `Magic(Type)` argument names a weapon type \
that no `weapon_type` defines.\n\nFix: use one of the defined weapon types (the standard \
library has Swords, Lances, Axes, Bows, Reason, Faith, Dark, Staves, Stones) or define it.";
    UNKNOWN_TERRAIN = "oc::name::unknown_terrain", "no terrain of this name",
"A terrain's `becomes`, a `raze(...)` or a terrain argument names a terrain that is not \
defined.\n\nFix: use the suggested name or define the terrain.";
    UNKNOWN_STATUS = "oc::name::unknown_status", "no status effect of this name",
"`Status(Effect)`, `inflict(...)` or a Status parameter names a status effect that is not \
defined. The standard library has Barrier, Berserk, Petrified, Poisoned, Silenced, Sleep and \
Slowed.\n\nFix: use the suggested name or define the status with `status NAME { ... }`.";
    UNKNOWN_MOVEMENT = "oc::name::unknown_movement", "no movement type of this name",
"A terrain's cost table names a movement type that no `movement` declares.\n\nFix: use \
one of the declared movement types (Foot, Armored, Cavalry, Flying in the standard library).";
    UNKNOWN_STAT = "oc::name::unknown_stat", "no stat or attribute of this name",
"A class's `ratings` block or an effect names a stat the ruleset does not declare, or a \
`unit.field` names no stat, base attribute or weapon property.\n\nFix: use the suggested \
name; the ruleset lists its stats with `stat` and its base attributes with `base`.";
    UNKNOWN_TYPE = "oc::name::unknown_type", "no type of this name",
"A parameter, stat or table names a type that does not exist. Types are `Int`, `Bool`, \
`Tag`, `Class`, `WeaponType`, `Status`, `Terrain`, `Movement`, `Stat`, `StatMod` and the \
ruleset's scales (such as `Rating`).\n\nFix: use one of these.";
    UNKNOWN_NAME = "oc::name::unknown_name", "a name in an expression means nothing here",
"An expression uses a name that is not a parameter, a unit (`self`, `foe`, `attacker`, \
`defender`, `target`), a combat formula, a scale step or a definition.\n\nFix: use the \
suggested name or declare the parameter.";
    UNKNOWN_ITEM = "oc::name::unknown_item", "no item of this name",
"A class's `kit` or a door's `opened_by` names a weapon, accessory or consumable that is not \
defined.\n\nFix: use the suggested name or define the item.";
    UNKNOWN_TABLE = "oc::name::unknown_table", "no table or die of this name",
"An expression looks up `name[...]` or rolls `roll(name)` but the ruleset defines no table \
or die of that name.\n\nFix: use the suggested name, or write a die literally (`roll(d10)`).";
    MULTIPLE_RULESETS = "oc::ruleset::multiple", "two rulesets in one compilation",
"A file and its imports may define at most one ruleset. A file without any ruleset is \
compiled against the standard library's ratings revision.\n\nFix: split them into separate \
files that do not import each other.";
    SCALE_INVALID = "oc::ruleset::scale", "a scale repeats a step or is empty",
"A scale lists its steps worst to best, each once: `scale Rating { F E D C B A S }`.\n\n\
Fix: remove the repeated step.";
    CLASS_RANGE_INVALID = "oc::ruleset::class_range", "a class range is not a valid range",
"`class_range TYPE LOW..HIGH` bounds the values classes may give stats of TYPE. Both bounds \
must be steps of the scale (or numbers for `Int`) and LOW must not be above HIGH.\n\nFix: \
write the bounds worst first, e.g. `class_range Rating E..A`.";
    RULESET_WEATHER = "oc::ruleset::weather", "a weather table misses a face of its die, or names one it lacks",
"`weather DICE { FACE: STATUS ... }` is rolled before a battle that plays `advanced weather` \
(seed 003: \"Ten varieties of weather are identified, and can be determined pre-game by a \
random dieroll\"); every unit bears the status of the face rolled. Each face the die can roll \
needs exactly one status, and a face the die cannot roll would never come up.\n\nExample:\n    \
dice sky d10\n    weather sky { 1: Clear  2: Rain }   // faces 3 to 10 have no weather\n\nFix: give \
every face of the die one status (a status with no effect for fair weather).";
    RULESET_SETTING = "oc::ruleset::setting", "a ruleset setting is missing, repeated or out of bounds",
"A ruleset needs exactly one `inventory` (1 to 16 items), at most one `weight LOW..HIGH`, \
at least one scale or numeric stat, a `base hp: Int` (the engine's hit points), and dice with \
at least two faces.\n\nFix: set it once, \
within bounds.";
    TURN_RULES = "oc::ruleset::turn", "a resource or the turn block is not valid",
"A `resource` is a number of points every unit holds (`resource stamina: Int = self.max_stamina \
at start_of_round`), set to its value at `start_of_round` or `activated`. The `turn` block says \
who activates next (`order alternate`, `order rolloff DIE`, `order by RESOURCE ties DIE`) and, \
with `spend RESOURCE`, that an activation is a series of steps paid from that resource: \
`step_cost` (Int, at least 1) and `step_allowed` (Bool) read `moved`, `attacks`, `acts`, \
`moves`, `steps` and `repeats`. `respond` (Bool, reading the same; not with `spend`) says which \
declared attacks their target may answer at once with an activation of its own (one after a move is \
declared before the move; `declare_step`, Int, the step of the sequence of play it is declared at); `interrupt` (Bool, \
not with `spend`; `self` an enemy that has not activated, `range` its distance to the mover) which \
moves it may interrupt so, `opportunity` (Bool, read alike) which enemies strike a unit whose \
move ends near them, and `engaged` (Bool; `self` a unit about to move, `range` its distance to an \
enemy) which enemies hold it: it may not move, and leaves only by `disengage`. `threat adjacent` or `threat front` gives every unit a zone whose leaving draws its free attack; `free_attack` (Bool, only with `threat`; `self` the zone's holder with a weapon in hand, `range` 1) which of its weapons may strike one: the one in hand first, then the others it carries.\n\nExample:\n    turn { spend stamina  step_cost = 1  stepcost = 2 }   \
// `stepcost` is not a turn formula\n\nFix: use the names above; declare the resource first.";
    TYPE_MISMATCH = "oc::type::mismatch", "a value of the wrong type",
"An expression has a type other than the one needed here: a condition that is not a \
Bool, a number where a rating is needed, a table looked up with a rating of another scale.\n\n\
Example:\n    when foe.hp { ... }       // hp is an Int, `when` needs a Bool\n\n\
Fix: write an expression of the expected type, for instance `foe.hp < 10`.";
    SCALE_INT_COMPARE = "oc::type::scale_vs_int", "a rating is compared with a number",
"Ratings are steps of a scale, not numbers: `attacker.spd >= 2` has no meaning. Compare two \
ratings, or count the steps between them.\n\nExample:\n    follow_up = attacker.spd - defender.spd >= 2\n\n\
Fix: subtract two ratings to get a number of steps, or compare with a step such as `C`.";
    TAG_ARG_COUNT = "oc::tag::arg_count", "a tag gets the wrong number of arguments",
"Every use of a tag passes exactly the parameters it declares: `Lucky(x: Int)` is used as \
`Lucky(5)`, `Canto` as `Canto`.\n\nFix: pass the arguments the help line lists.";
    TAG_ARG_TYPE = "oc::tag::arg_type", "a tag argument has the wrong type",
"A tag argument does not fit the parameter's type: `Lucky(C)` where an Int is needed, \
`Effective(5)` where a Tag is needed, `Bonus(5)` where a stat and amount (`res+1`) is \
needed.\n\nFix: pass a value of the declared type.";
    TAG_WRONG_KIND = "oc::tag::wrong_kind", "a tag is used on a kind of thing it is not for",
"A tag declares where it may appear with `on class, weapon, ...`. Using a weapon-only tag \
(like Brave or Effective) on a class would silently do nothing, so it is an error.\n\n\
Fix: move the tag to the kind of thing it is declared for.";
    TAG_NOT_STACKABLE = "oc::tag::not_stackable", "a tag that does not stack is used twice",
"The same tag appears twice on one thing but is not declared `stacks`, so the second use \
would have no effect (or an ambiguous one).\n\nFix: remove one use, or declare the tag \
with `stacks` if its effects add up (like Lucky).";
    CLASS_RATING_RANGE = "oc::class::rating_out_of_range", "a class rating is outside the class range",
"The ruleset bounds what a class may provide: in the ratings revision no class default is \
below E or above A (F and S are reachable only through modifiers).\n\nFix: use a rating \
inside the range, or a tag such as Bonus(spd+1) on a weapon to go beyond it.";
    CLASS_MISSING_RATING = "oc::class::missing_rating", "a class does not give every stat",
"A class's `ratings` block must give a value to every stat the ruleset declares (str, \
mag, skl, spd, def, res in the ratings revision).\n\nFix: add the missing stats.";
    CLASS_BAD_RATING = "oc::class::bad_rating", "a rating value is not a step of the stat's scale",
"Each rating must be a step of the stat's scale (`F E D C B A S`) or, for numeric stats, a \
number.\n\nFix: use a step such as `C`.";
    CLASS_SHIFTER = "oc::class::shifter_forms", "a shifter class lacks a form, or a form lacks the Shifter tag",
"A class with the Shifter tag needs both a `normal { ... }` and a `transformed { ... }` \
form, each with full ratings (seed: build the Transformed state and mark the Normal state's \
stats). Forms on a class without the Shifter tag are never used.\n\nFix: add the missing form \
or the tag.";
    MISSING_FIELD = "oc::field::missing", "a definition lacks a required field",
"Classes need a `cost` and (unless shifters) `ratings`; weapons need a `type` and a \
`range`; every item needs a `cost`.\n\nFix: add the field the message names.";
    DUPLICATE_FIELD = "oc::field::duplicate", "a field is given twice",
"A field such as `cost`, `weight` or `ratings` appears twice in one definition; only one \
can hold.\n\nFix: remove one of them.";
    FIELD_NOT_ALLOWED = "oc::field::not_allowed", "a field does not belong to this kind of definition",
"Only weapons have `type`, `might` and `range`; only consumables have `use`. A field on the \
wrong kind of item is ignored by the game, so it is an error.\n\nFix: remove the field or \
change the item's kind.";
    ITEM_WEIGHT_RANGE = "oc::item::weight_out_of_range", "an item's weight is outside the ruleset's bounds",
"The ratings revision says Weight ranges between -2 and 2 and shifts the Speed rating by \
that many steps.\n\nFix: use a weight inside the bounds the ruleset sets with `weight LOW..HIGH`.";
    ITEM_UNWIELDABLE = "oc::item::unwieldable", "no class can wield this weapon's type",
"This is a warning: the weapon's type is valid but no class in scope lists it in `wields`, \
so no unit can equip it.\n\nFix: add the type to a class's `wields`, or pick another type.";
    ITEM_RANGE = "oc::item::range", "a weapon's range is empty or negative",
"A weapon's range is `MIN..MAX` tiles (or a single number). MIN must be at least 0 and not \
above MAX.\n\nFix: write the bounds smallest first.";
    CLASS_KIT = "oc::class::kit", "a class's kit does not fit",
"A class's `kit` lists the items a recruit comes with. It may hold at most the ruleset's \
inventory size (3 in the ratings revision), and every weapon in it must be of a type the \
class wields.\n\nFix: remove items, or choose weapons the class can use.";
    TABLE_KEY = "oc::table::key", "a table is indexed by something that is not a scale",
"Tables are looked up by ratings: each key type must be a scale the ruleset defines.\n\n\
Fix: use a scale such as `Rating` as the key.";
    TABLE_MISSING_ROW = "oc::table::missing_row", "a table lacks a row",
"A table over scales must have a row for every combination of its leading keys. The To \
Hit table of the seed has seven rows, F to S.\n\nFix: add the rows the message names.";
    TABLE_WIDTH = "oc::table::width", "a table row has too few or too many values",
"Each row has one value per step of the last key's scale (seven for F..S).\n\nFix: add the \
missing columns or remove the extra ones.";
    TABLE_VALUE_TYPE = "oc::table::value_type", "a table cell has the wrong type",
"Every cell must have the table's value type: a number for `-> Int`, `true`/`false` for \
`-> Bool`, a step for a scale.\n\nFix: correct the cell.";
    TABLE_ROW = "oc::table::row", "a table row is labelled wrongly or twice",
"Row labels are steps of the leading keys' scales, each combination once.\n\nFix: correct or \
remove the row.";
    TABLE_SIZE = "oc::table::size", "a table has too many cells",
"A table holds one value for every combination of its keys' steps: `to_hit[Rating, Rating]` \
over a seven-step scale has 49. oc keeps every table whole in memory and the engine reads it on \
every strike, so a table may have at most 65,536 cells (see the README's Limits).\n\nFix: use \
fewer keys or shorter scales; a formula often says the same as a large table.";
    TRIANGLE_NOT_CYCLE = "oc::triangle::not_cycle", "a weapon triangle does not close",
"A triangle chain must end where it starts, so that every weapon type beats one and loses \
to one: `Swords > Axes > Lances > Swords`.\n\nFix: repeat the first type at the end.";
    TRIANGLE_REPEATED = "oc::triangle::repeated", "a weapon type appears twice in the triangles",
"Each weapon type may appear in at most one triangle, once (the closing repetition aside); \
otherwise its advantage would be ambiguous.\n\nFix: remove the repetition.";
    COMBAT_FORMULA = "oc::combat::formula", "a combat formula is missing, unknown or repeated",
"The `combat` block defines `hit` (Bool), `critical` (Bool), `damage` (Int), \
`critical_damage` (Int) and `follow_up` (Bool), each once, and may define `backfire` (Bool), \
`strikes` (Int), `counter` (Bool), `counter_any_range` (Bool), `defender_first` (Bool), \
`simultaneous` (Bool) and `chart` (Int: the strike's result on the ruleset's charts, read in \
battles by `on chart`). The engine evaluates them for every strike; extra helper formulas are \
allowed if their names start with `_`.\n\nFix: add the \
missing formula or rename the helper.";
    EFFECT_PLACE = "oc::effect::place", "an effect changes something that cannot change",
"An effect like `movement += 1` changes a stat or base attribute of a unit. The target must \
name one (`movement`, `foe.def`, `b.stat` for a StatMod parameter), and `+=`/`-=` need a \
number or rating.\n\nFix: name a stat or base attribute of the ruleset.";
    EFFECT_OUTSIDE_STRIKE = "oc::effect::outside_strike", "a `when` changes what is read only outside a strike",
"A `when` in a tag's, status's or class's body applies strike by strike, in combat: its \
condition is read for each strike, and what it changes is what the exchange reads (`def`, \
`can_attack`, `strikes`, a formula's inputs). `movement`, `movement_type`, `can_move`, `canto`, \
`vision`, `charges`, `area_attack`, `attack_form` and the most hit points (`hp`) are read as the \
unit moves, looks or acts, never in a strike, so a `when` changing them would never change \
anything. So it is an error.\n\nExample:\n    tag Desperate on class { when self.hp < 10 { \
movement += 2 } }   // never moves farther\n\nFix: write the change outside the `when` (it holds \
always), or lay a status holding it from an event (`on end_of_turn { when self.hp < 10 { \
inflict(self, Desperate) } }`).";
    EFFECT_COMMAND = "oc::effect::command", "an effect primitive gets the wrong arguments",
"Effect primitives take fixed arguments: heal(Unit, Int), damage(Unit, Int), \
inflict(Unit, Status), cure(Unit), clear(Unit, Status), reactivate(Unit), relocate(Unit, Int), open(), \
take_chest(), raze(Terrain), seize(), escape(), reveal(Int), transform(Terrain), \
restrict(WeaponType), must_attack_weakest(), shift(Str), debuff(Unit, StatMod), \
ignore_item_tags(), attack(Unit, Int), break_weapon(Unit), strike_friend(Unit), disengage(Int), hide(), search(Int).\n\nFix: pass the arguments listed.";
    EFFECT_CONTEXT = "oc::effect::context", "an effect is used where it cannot happen",
"Every effect appears only where the engine performs it (the conformance table in \
`oc_model::conformance`). Actions (`action { ... }`) appear only at the top of a tag or a \
consumable's `use`; `on EVENT` only at the top of a tag or status; modifiers and `grant` only \
in a tag's or status's body (modifiers also in its `when`). Commands: heal, damage, inflict, \
cure and debuff on any event, in an action and in a consumable's `use`; reactivate, relocate, \
open, take_chest, raze, seize, escape, reveal, transform, attack, disengage, hide and search only in an action; clear \
in an action and in a consumable's `use`; break_weapon and strike_friend on the battle's \
events (activated, end_of_turn, start_of_round, end_of_round, after_attack, chart); \
restrict and must_attack_weakest at the top of a tag or status, ignore_item_tags there or in \
its `when`; shift(\"transformed\") on activated and shift(\"normal\") on end_of_turn. A command \
names only the units its place has: `self` in battle events and a consumable's direct `use`, \
`foe` too in `on after_attack` (the unit attacked), only `foe` in `on routed` (the unit that \
routed the holder), every unit in the exchange events (attacked, hit, miss, crit). Statuses \
clear at start_of_round; terrain heals at end_of_turn. roll(...) of a named combat die only \
inside combat (formulas and `when` blocks).\n\nExample:\n    tag Healer on class { heal(self, \
2) }\n\nFix: move the effect where it happens: `on activated { heal(self, 2) }`.";
    ACTION_REACH = "oc::action::reach", "an action's reach leaves out what its target names",
"`target self` and `target self_or_ally` name the user itself, which stands 0 tiles from itself. \
An action's reach is `within MIN..MAX` (`within N` alone is `N..N`), so a least distance above 0 \
leaves the user out: `target self within 1` can never be taken, and `target self_or_ally within 1` \
reaches allies only. A reach whose nearer bound is past its farther one (`within 3..1`) \
reaches no tile at all.\n\nExample:\n    consumable Salve { use { action { target self_or_ally within 1 \
heal(target, 1) } } }\n\nFix: start the reach at 0 (`within 0..1`: the user or an adjacent ally), or \
write `target ally` if the user is not meant; write the nearer bound first (`within 1..3`).";
    ACTION_SEQUENCE = "oc::action::sequence", "an action's step in the sequence of play cannot be taken",
"`sequence N` makes a tag's action a step of the activation's strict sequence of play (seed 003: \
\"1. Search 2. Declare Melee Attacks 3. Change Formation 4. Move\"): a turn takes it in `before`, \
before the unit moves, after any action of a lower step. N is a whole number from 1; a consumable's \
action is the turn's act (`use`), so it has no step.\n\nExample:\n    consumable Horn { use { action { \
target self sequence 1 heal(self, 1) } } }\n\nFix: write `sequence N` (N >= 1) in a tag's action, or \
leave it out.";
    TERRAIN_COST = "oc::terrain::cost", "a terrain's movement costs are incomplete or invalid",
"Every terrain gives a cost (or `-`) for every movement type, or is `impassable`. Costs are \
at least 1.\n\nFix: add the missing movement types or correct the cost.";
    TERRAIN_DESTRUCTIBLE = "oc::terrain::destructible", "a destructible or openable terrain is incomplete",
"A terrain with `hp` must say what it `becomes` when destroyed (Wall -> Floor, Snag -> \
Bridge, each 30 HP); a door with `opened_by` must also say what it becomes. A terrain is \
struck down or opened, not both: a door's hit points would never be read.\n\nFix: add \
the missing `becomes` (or `hp`); keep `hp` or `opened_by`, not both.";
    DICE_SIZE = "oc::dice::size", "dice too large to work out exactly",
"Forecasts are exact: every value a roll can take is enumerated with its probability. A die \
shape may take at most 100,000 distinct values, and a keep-highest/lowest pool may track at \
most 200,000 partial results while it is worked out (see the README's Limits). `100d100` or \
`50d20kh25` go past that.\n\nExample:\n    dice storm 100d1000\n\nFix: roll fewer or smaller \
dice. Exploding dice are cut where the rest of the chain is at most 1e-12 likely, so they \
stay small.";
    NUMBER_RANGE = "oc::literal::range", "a number is out of the range allowed here",
"Costs and HP are never negative; dice have at least two faces; inventory sizes are small.\n\n\
Fix: use a number in the allowed range.";
    UNKNOWN_SCENARIO = "oc::name::unknown_scenario", "an army names a scenario that does not exist",
"`army NAME for SCENARIO SIDE` names the scenario the army is written for. No scenario of that \
name is defined in this file or the files it imports.\n\nFix: import the scenario's file, or \
correct the name.";
    SCENARIO_SIDES = "oc::scenario::sides", "a scenario does not define each side exactly once",
"A scenario has one `attacker { ... }` and one `defender { ... }` block: each holds that side's \
deployment zone, war chest, army requirements and victory condition.\n\nFix: add the missing \
side, or merge the two blocks of the same side.";
    SCENARIO_MAP = "oc::scenario::map", "the scenario's map cannot be read",
"`map \"PATH\"` names a map definition (`*.map.toml`) relative to the scenario's file, inside \
the project. This one does not exist, cannot be read, or is not a valid map (then `oc check` \
reports the map's own errors at the map).\n\nFix: correct the path or the map.";
    MISSING_REGION = "oc::scenario::missing_region", "the map does not label a region the scenario needs",
"A scenario's map requirements are the regions the map must label: those listed under \
`regions`, both deployment zones, and every region a victory condition names. The map has no \
region of this name.\n\nFix: add a `[[regions]]` entry of that name to the map, or use a \
region the map has (the help lists them).";
    ZONE_KIND = "oc::scenario::zone_kind", "a side's zone is not that side's deployment zone",
"`zone \"NAME\"` must name a region of kind `deployment` whose `side` is this side.\n\nFix: \
point `zone` at the side's deployment region, or correct the map's region.";
    ZONE_CAPACITY = "oc::scenario::zone_capacity", "a deployment zone cannot hold the largest army allowed",
"A side may bring up to `units MIN..MAX` units, and all of them deploy in its zone. The zone \
has fewer passable tiles than MAX.\n\nFix: enlarge the zone on the map, or lower MAX.";
    REGION_KIND = "oc::scenario::region_kind", "a victory condition names a region of another kind",
"A warning: `seize` normally names a seize region, `escape` an escape region, `raze` a raze \
region and `defend` a defend region. The map labels this region as another kind, so renders \
and exports show it differently from what the scenario means.\n\nFix: change the region's \
kind on the map, or name the intended region.";
    UNWINNABLE = "oc::scenario::unwinnable", "a side cannot win",
"The side's victory condition cannot be met: it needs a tag no unit of the side can have (a \
seize needs a Leader, an escape Fleeing, a raze a Saboteur; from the scenario's `grant`s or an \
allowed class), or a region it cannot reach within the time limit (the ruleset's base \
`movement_type` and `movement`: Foot and 5 in the standard library; Terrain Table costs), or more rounds than the time limit has. A side with no `win` that does not \
win when time runs out can never win either. A side that wins when time runs out (`rounds N \
then defender`) can win all the same: a condition of its that can never be met is a warning. \
An army none of whose units has the tag its side's objective needs (the scenario grants a \
Leader, but no unit carries it) is warned too.\n\nFix: grant the tag (and give it to a unit), \
raise `rounds`, move the objective, or give the side a condition it can meet.";
    TIME_LIMIT_WINNER = "oc::scenario::time_limit_winner", "a side's condition is met as time runs out, before the time limit's winner",
"A side wins by `survive N rounds` where N is the time limit, and the scenario gives the \
limit to the other side (`rounds 3 then attacker`): the battle's last round ends, the \
survivor's condition is met, and it wins; who wins when time runs out is never asked.\n\n\
Example:\n    rounds 3 then attacker\n    defender { ... win survive 3 rounds }\n\n\
Fix: give the time limit to the surviving side (`then defender`), or ask it to survive fewer \
rounds than the limit.";
    FOG_VISION = "oc::scenario::fog_vision", "a scenario's fog vision is out of range",
"`fog vision N` sets how many tiles (by the distance units move by) a unit sees under fog of \
war, where the ruleset gives units no `vision` attribute. A unit sees at least the tiles next \
to it, so N is from 1; above 64 the fog would hide nothing on any map.\n\nExample:\n    \
fog vision 0   // nobody could see the enemy striking it\n\nFix: use a number from 1 to 64, \
or write `fog` alone for the default vision of 3.";
    SCENARIO_ADVANCED = "oc::scenario::advanced", "a scenario switches on an advanced rule the ruleset does not define",
"`advanced NAME, ...` plays the ruleset's optional rules in this scenario (seed 003: \"The \
advanced rules are intended to be added, one at a time, as the players desire\"). A ruleset \
defines one with its block: `courage { check ... }` is the advanced rule `courage` (courage \
checks, rout, pursuit and rally). The name is not one the ruleset in use defines.\n\nExample:\n    \
advanced courge   // a typo\n\nFix: name an advanced rule of the ruleset, or define it there.";
    SCENARIO_GENERAL = "oc::scenario::general", "a scenario plays leadership without one general per army",
"`advanced leadership` plays the ruleset's `leadership { general TAG ... }` (seed 003: \"Players \
must designate one general per army\"). Each side of the scenario must designate exactly one: \
`grant TAG to 1` (no more than one unit may carry the tag) and `at_least 1 with TAG` (the army \
must name him).\n\nExample:\n    \
advanced leadership\n    attacker { ... }   // no `grant TAG to 1`\n\nFix: on each side \
write `grant TAG to 1` and `at_least 1 with TAG` (TAG the ruleset's `general`), and give one \
unit of each army the tag.";
    SCENARIO_PLACEMENT = "oc::scenario::placement", "a scenario places its armies in too few or too many groups",
"`deploy alternate N` divides each army into N placement units of about equal points, which \
the sides place in turns (seed 003: \"Players then divide their forces into an equal number of \
Placement Units of roughly the same point values. They then take turns placing these groups \
onto the tabletop\"). N is from 1 (each army placed at once, the first deployer first) to 20; \
an army of fewer units than N is placed one unit a group.\n\nExample:\n    \
deploy alternate 0   // no group to place\n\nFix: use a number from 1 to 20 (the seed's \
armies are placed in 3 or 4).";
    SCENARIO_CHEST = "oc::scenario::chest", "a scenario's chest is off the map or out of reach",
"`chest [X, Y] ITEM` fills a chest for this scenario. The tile must be on the map and on \
terrain a unit of the ruleset's base `movement_type` (Foot in the standard library) can stand on, since Pick takes a chest's item from the tile itself.\n\nFix: \
correct the coordinates (x to the right, y down, from 0).";
    ARMY_SIZE = "oc::army::size", "an army has too few or too many units",
"The scenario's side says `units MIN..MAX`; the army has a number of units outside it.\n\n\
Fix: hire or dismiss units.";
    ARMY_BUDGET = "oc::army::over_budget", "an army costs more than its war chest",
"An army's cost is every unit's class cost plus the cost of every item it carries (seed 000, \
Buying an Army). It may not exceed the side's `war_chest`.\n\nFix: hire cheaper classes or \
carry cheaper items.";
    ARMY_INVENTORY = "oc::army::inventory", "a unit carries more items than the inventory holds",
"A unit carries at most the ruleset's `inventory` items (3 in Officer's Chess).\n\nFix: \
leave items behind.";
    ARMY_WIELD = "oc::army::cannot_wield", "a unit carries a weapon its class cannot wield",
"Every weapon a unit carries must be of a weapon type its class `wields` (a shifter's either \
form counts).\n\nFix: give the unit a weapon of a type it wields, or another class.";
    ARMY_EXCLUSIVE = "oc::army::exclusive", "a unit carries an item exclusive to another class",
"An item with `Exclusive(Class)` can only be used by that class.\n\nFix: give the item to a \
unit of that class.";
    ARMY_NOT_ALLOWED = "oc::army::not_allowed", "an army uses a class or item the scenario does not allow",
"The scenario's side limits classes and items with `allow classes ...`, `allow items ...`, \
`ban classes ...` and `ban items ...`.\n\nFix: choose an allowed class or item.";
    ARMY_TAG = "oc::army::tag_not_granted", "a unit carries a tag the scenario does not grant",
"Units may carry only the scenario tags their side is granted (`grant Leader to 1`).\n\nFix: \
remove the tag, or grant it in the scenario.";
    ARMY_GRANT = "oc::army::too_many_granted", "more units carry a granted tag than the scenario allows",
"`grant TAG to N` lets at most N units of the side carry the tag.\n\nFix: take the tag off \
the extra units.";
    ARMY_LIMIT = "oc::army::limit", "an army breaks a composition limit of the scenario",
"The scenario's side sets limits such as `at_least 1 with Leader` or `at_most 1/3 ranged` (a \
third of the army, counted exactly, not rounded: 2 ranged units of 6 pass, 2 of 5 do not). The army does not meet one.\n\n\
Fix: change the army so the limit holds.";
    ARMY_DUPLICATE_UNIT = "oc::army::duplicate_unit", "two units of an army share a name",
"Units are named so victory conditions (`rout \"NAME\"`), replays and reports can refer to \
them.\n\nFix: rename one of them.";
    ARMY_FIGURES = "oc::army::figures", "a unit has no figures or more than a unit may have",
"`figures N` forms a unit of N figures of its class (seed 003: \"Figures are formed into Units \
of one or more figures\"): its hit points are N times the class's, its cost N times the class's \
and its items'. N is 1 to 60: an exact forecast walks every figure's strikes.\n\nExample:\n    \
unit Braves: Savage { figures 0 items Shortsword }   // no figures\n\n\
Fix: give the unit 1 to 60 figures, or split a larger body into several units.";
    ARMY_JOINS = "oc::army::joins", "a unit joins no unit of its army it may join",
"`joins NAME` begins the battle with the unit joined to another unit of its army (seed 003: \
\"the spearmen (plus my leader)\"): one unit that moves and activates as one, its figures added \
to that unit's where they are of its class and arms, else fighting on in it as a body of their \
own. NAME must be another unit of the same army that joins nobody itself.\n\nExample:\n    \
unit Fenth: FenthGallinir { items Runeblade joins Spears }   // no unit named Spears\n\n\
Fix: name a unit of the army that stands on its own.";
    EXPR_NOT_HERE = "oc::expr::not_here", "an expression reads what its place does not have",
"Each place an expression is written has its own values: a combat formula has the strike's \
`attacker` and `defender`, `distance`, `triangle` and the ruleset's dice; a `when` of a tag has \
the strike's units, `distance` and `triangle`; `on hit` and `on crit` also have `dealt`; battle \
events (`on activated`, `on end_of_turn`...) have only `self`, and `on after_attack` and \
`on routed` also `foe` and `distance`; an action has `self`, its `target` (when it targets a \
unit) and `distance`; a standing modifier (the top of a tag's body) has the unit alone, as it \
is built, so not whether it has activated. Reading what a place does not have would give no \
value, so it is an error, which names the places that have it.\n\nExample:\n    tag Brave \
on class { on activated { when distance <= 1 { heal(self, 1) } } }   // no second unit here\n\n\
Fix: move the expression where its value exists (`on after_attack`, a `when` of the tag), or \
read what this place has.";
    ITEM_INERT = "oc::item::inert", "a consumable carries a modifier or event that never applies",
"A consumable acts only when it is used: what its `use { ... }` does, the actions its tags \
give, and how many times it may be used (a tag's `charges = N`, as `Consumable(N)`). A \
modifier written on it (`def += 3`), or one, a `when` or an `on EVENT` of a tag on it, would \
never apply: the game reads a unit's modifiers and events from its class, its equipped weapon \
and its accessory, never from what it carries to use. So it is an error.\n\nExample:\n    \
consumable Tonic { def += 3 cost 10 use { heal(self, 5) } }   // def += 3 never holds\n\n\
Fix: put what the item does in `use { ... }` (`inflict(self, Shielded)` with a status that \
holds the modifier), or make it an accessory, whose modifiers hold while it is carried.";
    RULES_UNREAD = "oc::rules::unread", "a rule is declared where nothing reads it",
"The engine reads some declarations only through others: a weapon `triangle` where an \
expression reads `triangle` (the combat formulas, a `when`), an action's `cost` where the \
turn's formulas price steps by it (`cost`, `priced`) or the action is charged, a terrain's \
`elevation` where the ruleset's `situations` name the `ground` attribute, `blocks_sight` \
where the turn block says `line_of_sight`, a terrain's `defense` where an expression reads \
`terrain_defense`, a weapon type's `staff` where one reads `weapon.staff`, and `on chart` \
where a `chart` formula gives each strike its result on the charts; a `can_attack` \
the engine reads to refuse a unit's attacks stops its counters and follow-ups only where a \
combat formula reads it. Written without its reader the declaration changes \
nothing in any game, so it is a warning (the standard library's own shared terrain is not \
warned of).\n\nExample:\n    triangle { Blade > Hatchet > Pike > Blade }   // and no formula \
reads `triangle`\n\nFix: read it (`hit = roll(hit) <= attacker.skl + triangle`, `turn { spend \
stamina step_cost = max(1, cost) }`, `situations { ground height }`, `turn { line_of_sight }`), \
or remove the declaration.";
    INTERNAL = "oc::internal", "the checker met something it did not expect",
"This is a bug in oc, not in your rules. Please report it with the file that triggers it.";
}
