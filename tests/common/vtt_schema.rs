//! Foundry VTT's `BaseScene` schema for v11 and v12 (written down from Foundry's published data
//! models, `common/documents/*.mjs` and `common/data/data.mjs`) and the Universal VTT 0.3 fields,
//! as field lists with types, and the validator that checks a JSON value against them: shared by
//! `tests/vtt.rs` and `tests/vtt_walls.rs`.
#![allow(dead_code)]

use serde_json::Value;

// ---------------------------------------------------------------------------------------------
// Foundry's schema, as field lists with types.

/// A field's type, as Foundry's DataFields check it.
#[derive(Clone, Copy, Debug)]
pub enum T {
    /// `StringField`.
    Str,
    /// `StringField({blank: false})`.
    NonBlank,
    Bool,
    /// `NumberField({integer: true})`.
    Int,
    /// `NumberField({integer: true, positive: true})`.
    PosInt,
    /// `NumberField({integer: true, min})`.
    IntMin(i64),
    /// `NumberField` (finite).
    Num,
    /// `NumberField({min, max})`.
    Range(f64, f64),
    /// `AlphaField`: 0 to 1.
    Alpha,
    /// `ColorField`: `#rrggbb`.
    Color,
    /// `FilePathField`: a path or null.
    File,
    /// `DocumentIdField` / `ForeignDocumentField`: an id or null.
    Id,
    /// `NumberField({choices})`.
    Choice(&'static [i64]),
    /// `StringField({choices})`.
    Word(&'static [&'static str]),
    Nullable(&'static T),
    /// `SchemaField`: only these keys.
    Obj(&'static [(&'static str, T)]),
    /// `ArrayField`, `EmbeddedCollectionField`.
    Arr(&'static T),
    /// `ArrayField` of exactly this many.
    Tuple(&'static T, usize),
    /// `ObjectField`, or an embedded document this test does not look into (tokens, lights...).
    AnyObj,
}

pub const SENSES: &[i64] = &[0, 10, 20, 30, 40]; // CONST.WALL_SENSE_TYPES
pub const GRID_TYPES: &[i64] = &[0, 1, 2, 3, 4, 5]; // CONST.GRID_TYPES: GRIDLESS, SQUARE, HEX...
pub const TEXT_ANCHORS: &[i64] = &[0, 1, 2, 3, 4]; // CONST.TEXT_ANCHOR_POINTS

pub const TEXTURE_V11: &[(&str, T)] = &[
    ("src", T::File),
    ("scaleX", T::Num),
    ("scaleY", T::Num),
    ("offsetX", T::Num),
    ("offsetY", T::Num),
    ("rotation", T::Num),
    ("tint", T::Nullable(&T::Color)),
];
pub const TEXTURE_V12: &[(&str, T)] = &[
    ("src", T::File),
    ("anchorX", T::Num),
    ("anchorY", T::Num),
    ("scaleX", T::Num),
    ("scaleY", T::Num),
    ("offsetX", T::Num),
    ("offsetY", T::Num),
    ("rotation", T::Num),
    ("tint", T::Nullable(&T::Color)),
    ("alphaThreshold", T::Alpha),
    ("fit", T::Word(&["fill", "contain", "cover", "width", "height"])),
];
pub const GRID_V11: &[(&str, T)] = &[
    ("type", T::Choice(GRID_TYPES)),
    ("size", T::IntMin(50)), // CONST.GRID_MIN_SIZE in v11
    ("color", T::Color),
    ("alpha", T::Alpha),
    ("distance", T::Range(f64::MIN_POSITIVE, f64::MAX)),
    ("units", T::Str),
];
pub const GRID_V12: &[(&str, T)] = &[
    ("type", T::Choice(GRID_TYPES)),
    ("size", T::IntMin(20)), // CONST.GRID_MIN_SIZE in v12
    ("style", T::Word(&["solidLines", "dashedLines", "dottedLines", "squarePoints", "diamondPoints", "roundPoints"])),
    ("thickness", T::IntMin(1)),
    ("color", T::Color),
    ("alpha", T::Alpha),
    ("distance", T::Range(f64::MIN_POSITIVE, f64::MAX)),
    ("units", T::Str),
];
/// `BaseWall` (the same fields in v11 and v12).
pub const WALL: &[(&str, T)] = &[
    ("_id", T::Id),
    ("c", T::Tuple(&T::Int, 4)),
    ("light", T::Choice(SENSES)),
    ("move", T::Choice(&[0, 20])), // CONST.WALL_MOVEMENT_TYPES
    ("sight", T::Choice(SENSES)),
    ("sound", T::Choice(SENSES)),
    ("dir", T::Choice(&[0, 1, 2])),  // CONST.WALL_DIRECTIONS
    ("door", T::Choice(&[0, 1, 2])), // CONST.WALL_DOOR_TYPES: NONE, DOOR, SECRET
    ("ds", T::Choice(&[0, 1, 2])),   // CONST.WALL_DOOR_STATES: CLOSED, OPEN, LOCKED
    ("doorSound", T::Str),
    (
        "threshold",
        T::Obj(&[
            ("light", T::Nullable(&T::Num)),
            ("sight", T::Nullable(&T::Num)),
            ("sound", T::Nullable(&T::Num)),
            ("attenuation", T::Bool),
        ]),
    ),
    ("flags", T::AnyObj),
];
pub const NOTE_V11: &[(&str, T)] = &[
    ("_id", T::Id),
    ("entryId", T::Id),
    ("pageId", T::Id),
    ("x", T::Int),
    ("y", T::Int),
    ("texture", T::Obj(TEXTURE_V11)),
    ("iconSize", T::IntMin(32)),
    ("text", T::Str),
    ("fontFamily", T::Str),
    ("fontSize", T::Range(8.0, 128.0)),
    ("textAnchor", T::Choice(TEXT_ANCHORS)),
    ("textColor", T::Color),
    ("global", T::Bool),
    ("flags", T::AnyObj),
];
pub const NOTE_V12: &[(&str, T)] = &[
    ("_id", T::Id),
    ("entryId", T::Id),
    ("pageId", T::Id),
    ("x", T::Int),
    ("y", T::Int),
    ("elevation", T::Num),
    ("sort", T::Int),
    ("texture", T::Obj(TEXTURE_V12)),
    ("iconSize", T::IntMin(32)),
    ("text", T::Str),
    ("fontFamily", T::Str),
    ("fontSize", T::Range(8.0, 128.0)),
    ("textAnchor", T::Choice(TEXT_ANCHORS)),
    ("textColor", T::Color),
    ("global", T::Bool),
    ("flags", T::AnyObj),
];
pub const DRAWING_SHAPE: &[(&str, T)] = &[
    ("type", T::Word(&["r", "e", "p"])), // ShapeData.TYPES
    ("width", T::Nullable(&T::Num)),
    ("height", T::Nullable(&T::Num)),
    ("radius", T::Nullable(&T::Num)),
    ("points", T::Arr(&T::Num)),
];
pub const DRAWING_V11: &[(&str, T)] = &[
    ("_id", T::Id),
    ("author", T::Id),
    ("shape", T::Obj(DRAWING_SHAPE)),
    ("x", T::Int),
    ("y", T::Int),
    ("z", T::Int),
    ("rotation", T::Num),
    ("bezierFactor", T::Range(0.0, 0.5)),
    ("fillType", T::Choice(&[0, 1, 2])), // CONST.DRAWING_FILL_TYPES
    ("fillColor", T::Nullable(&T::Color)),
    ("fillAlpha", T::Alpha),
    ("strokeWidth", T::IntMin(0)),
    ("strokeColor", T::Nullable(&T::Color)),
    ("strokeAlpha", T::Alpha),
    ("texture", T::File),
    ("text", T::Str),
    ("fontFamily", T::Str),
    ("fontSize", T::Range(8.0, 256.0)),
    ("textColor", T::Color),
    ("textAlpha", T::Alpha),
    ("hidden", T::Bool),
    ("locked", T::Bool),
    ("flags", T::AnyObj),
];
pub const DRAWING_V12: &[(&str, T)] = &[
    ("_id", T::Id),
    ("author", T::Id),
    ("shape", T::Obj(DRAWING_SHAPE)),
    ("x", T::Int),
    ("y", T::Int),
    ("elevation", T::Num),
    ("sort", T::Int),
    ("rotation", T::Num),
    ("bezierFactor", T::Range(0.0, 0.5)),
    ("fillType", T::Choice(&[0, 1, 2])),
    ("fillColor", T::Nullable(&T::Color)),
    ("fillAlpha", T::Alpha),
    ("strokeWidth", T::IntMin(0)),
    ("strokeColor", T::Nullable(&T::Color)),
    ("strokeAlpha", T::Alpha),
    ("texture", T::File),
    ("text", T::Str),
    ("fontFamily", T::Str),
    ("fontSize", T::Range(8.0, 256.0)),
    ("textColor", T::Color),
    ("textAlpha", T::Alpha),
    ("hidden", T::Bool),
    ("locked", T::Bool),
    ("interface", T::Bool),
    ("flags", T::AnyObj),
];
/// `RectangleShapeData` (the only region shape oc writes).
pub const RECTANGLE: &[(&str, T)] = &[
    ("type", T::Word(&["rectangle"])),
    ("x", T::Num),
    ("y", T::Num),
    ("width", T::Range(f64::MIN_POSITIVE, f64::MAX)),
    ("height", T::Range(f64::MIN_POSITIVE, f64::MAX)),
    ("rotation", T::Num),
    ("hole", T::Bool),
];
/// `BaseRegion` (v12).
pub const REGION: &[(&str, T)] = &[
    ("_id", T::Id),
    ("name", T::NonBlank),
    ("color", T::Color),
    ("shapes", T::Arr(&T::Obj(RECTANGLE))),
    ("elevation", T::Obj(&[("bottom", T::Nullable(&T::Num)), ("top", T::Nullable(&T::Num))])),
    ("behaviors", T::Arr(&T::AnyObj)),
    ("visibility", T::Choice(&[0, 1, 2])), // CONST.REGION_VISIBILITY
    ("locked", T::Bool),
    ("flags", T::AnyObj),
];
/// `BaseScene` in v11.
pub const SCENE_V11: &[(&str, T)] = &[
    ("_id", T::Id),
    ("name", T::NonBlank),
    ("active", T::Bool),
    ("navigation", T::Bool),
    ("navOrder", T::Int),
    ("navName", T::Str),
    ("background", T::Obj(TEXTURE_V11)),
    ("foreground", T::File),
    ("foregroundElevation", T::Nullable(&T::PosInt)),
    ("thumb", T::File),
    ("width", T::PosInt),
    ("height", T::PosInt),
    ("padding", T::Range(0.0, 0.5)),
    ("initial", T::Obj(&[("x", T::Nullable(&T::Int)), ("y", T::Nullable(&T::Int)), ("scale", T::Nullable(&T::Num))])),
    ("backgroundColor", T::Color),
    ("grid", T::Obj(GRID_V11)),
    ("tokenVision", T::Bool),
    ("fogExploration", T::Bool),
    ("fogReset", T::Nullable(&T::Num)),
    ("globalLight", T::Bool),
    ("globalLightThreshold", T::Nullable(&T::Alpha)),
    ("darkness", T::Alpha),
    ("fogOverlay", T::File),
    ("fogExploredColor", T::Nullable(&T::Color)),
    ("fogUnexploredColor", T::Nullable(&T::Color)),
    ("drawings", T::Arr(&T::Obj(DRAWING_V11))),
    ("tokens", T::Arr(&T::AnyObj)),
    ("lights", T::Arr(&T::AnyObj)),
    ("notes", T::Arr(&T::Obj(NOTE_V11))),
    ("sounds", T::Arr(&T::AnyObj)),
    ("templates", T::Arr(&T::AnyObj)),
    ("tiles", T::Arr(&T::AnyObj)),
    ("walls", T::Arr(&T::Obj(WALL))),
    ("playlist", T::Id),
    ("playlistSound", T::Id),
    ("journal", T::Id),
    ("journalEntryPage", T::Id),
    ("weather", T::Str),
    ("folder", T::Id),
    ("sort", T::Int),
    ("ownership", T::AnyObj),
    ("flags", T::AnyObj),
    ("_stats", T::AnyObj),
];
/// `BaseScene` in v12: `fog` and `environment` replace v11's fog and light fields; `regions`.
pub const SCENE_V12: &[(&str, T)] = &[
    ("_id", T::Id),
    ("name", T::NonBlank),
    ("active", T::Bool),
    ("navigation", T::Bool),
    ("navOrder", T::Int),
    ("navName", T::Str),
    ("background", T::Obj(TEXTURE_V12)),
    ("foreground", T::File),
    ("foregroundElevation", T::Nullable(&T::PosInt)),
    ("thumb", T::File),
    ("width", T::PosInt),
    ("height", T::PosInt),
    ("padding", T::Range(0.0, 0.5)),
    ("initial", T::Obj(&[("x", T::Nullable(&T::Int)), ("y", T::Nullable(&T::Int)), ("scale", T::Nullable(&T::Num))])),
    ("backgroundColor", T::Color),
    ("grid", T::Obj(GRID_V12)),
    ("tokenVision", T::Bool),
    (
        "fog",
        T::Obj(&[
            ("exploration", T::Bool),
            ("reset", T::Nullable(&T::Num)),
            ("overlay", T::File),
            ("colors", T::Obj(&[("explored", T::Nullable(&T::Color)), ("unexplored", T::Nullable(&T::Color))])),
        ]),
    ),
    ("environment", T::AnyObj),
    ("drawings", T::Arr(&T::Obj(DRAWING_V12))),
    ("tokens", T::Arr(&T::AnyObj)),
    ("lights", T::Arr(&T::AnyObj)),
    ("notes", T::Arr(&T::Obj(NOTE_V12))),
    ("sounds", T::Arr(&T::AnyObj)),
    ("regions", T::Arr(&T::Obj(REGION))),
    ("templates", T::Arr(&T::AnyObj)),
    ("tiles", T::Arr(&T::AnyObj)),
    ("walls", T::Arr(&T::Obj(WALL))),
    ("playlist", T::Id),
    ("playlistSound", T::Id),
    ("journal", T::Id),
    ("journalEntryPage", T::Id),
    ("weather", T::Str),
    ("folder", T::Id),
    ("sort", T::Int),
    ("ownership", T::AnyObj),
    ("flags", T::AnyObj),
    ("_stats", T::AnyObj),
];

/// Every way `value` at `path` breaks `ty`.
pub fn validate(path: &str, value: &Value, ty: T, errors: &mut Vec<String>) {
    let mut bad = |why: &str| errors.push(format!("{path}: {why}, got {value}"));
    let num = value.as_f64().filter(|n| n.is_finite());
    let int = value.as_i64().or_else(|| num.filter(|n| n.fract() == 0.0).map(|n| n as i64));
    match ty {
        T::Str => {
            if !value.is_string() {
                bad("a string");
            }
        }
        T::NonBlank => {
            if value.as_str().is_none_or(|s| s.trim().is_empty()) {
                bad("a non-blank string");
            }
        }
        T::Bool => {
            if !value.is_boolean() {
                bad("a boolean");
            }
        }
        T::Int => {
            if int.is_none() {
                bad("an integer");
            }
        }
        T::PosInt => {
            if int.is_none_or(|i| i <= 0) {
                bad("a positive integer");
            }
        }
        T::IntMin(min) => {
            if int.is_none_or(|i| i < min) {
                bad(&format!("an integer of at least {min}"));
            }
        }
        T::Num => {
            if num.is_none() {
                bad("a number");
            }
        }
        T::Range(lo, hi) => {
            if num.is_none_or(|n| n < lo || n > hi) {
                bad(&format!("a number in {lo}..={hi}"));
            }
        }
        T::Alpha => {
            if num.is_none_or(|n| !(0.0..=1.0).contains(&n)) {
                bad("an alpha in 0..=1");
            }
        }
        T::Color => {
            let ok = value
                .as_str()
                .is_some_and(|s| s.len() == 7 && s.starts_with('#') && s.chars().skip(1).all(|c| c.is_ascii_hexdigit()));
            if !ok {
                bad("a #rrggbb colour");
            }
        }
        T::File | T::Id => {
            if !(value.is_null() || value.as_str().is_some_and(|s| !s.is_empty())) {
                bad("a path or id, or null");
            }
        }
        T::Choice(choices) => {
            if int.is_none_or(|i| !choices.contains(&i)) {
                bad(&format!("one of {choices:?}"));
            }
        }
        T::Word(words) => {
            if value.as_str().is_none_or(|s| !words.contains(&s)) {
                bad(&format!("one of {words:?}"));
            }
        }
        T::Nullable(inner) => {
            if !value.is_null() {
                validate(path, value, *inner, errors);
            }
        }
        T::Obj(fields) => match value.as_object() {
            None => bad("an object"),
            Some(object) => {
                for (key, v) in object {
                    match fields.iter().find(|(name, _)| name == key) {
                        Some((_, t)) => validate(&format!("{path}.{key}"), v, *t, errors),
                        None => errors.push(format!("{path}.{key}: not a field of the schema (Foundry drops it)")),
                    }
                }
            }
        },
        T::Arr(inner) => match value.as_array() {
            None => bad("an array"),
            Some(items) => {
                for (i, v) in items.iter().enumerate() {
                    validate(&format!("{path}[{i}]"), v, *inner, errors);
                }
            }
        },
        T::Tuple(inner, n) => match value.as_array() {
            Some(items) if items.len() == n => {
                for (i, v) in items.iter().enumerate() {
                    validate(&format!("{path}[{i}]"), v, *inner, errors);
                }
            }
            _ => bad(&format!("an array of {n}")),
        },
        T::AnyObj => {
            if !value.is_object() {
                bad("an object");
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Universal VTT 0.3.

pub const POINT: &[(&str, T)] = &[("x", T::Num), ("y", T::Num)];
/// The fields of a Universal VTT 0.3 file (as Dungeondraft writes them and the importers read
/// them), plus oc's `software`.
pub const UVTT: &[(&str, T)] = &[
    ("format", T::Range(0.3, 0.3)),
    ("software", T::Str),
    ("resolution", T::Obj(&[("map_origin", T::Obj(POINT)), ("map_size", T::Obj(POINT)), ("pixels_per_grid", T::IntMin(1))])),
    ("line_of_sight", T::Arr(&T::Arr(&T::Obj(POINT)))),
    ("objects_line_of_sight", T::Arr(&T::Arr(&T::Obj(POINT)))),
    (
        "portals",
        T::Arr(&T::Obj(&[
            ("position", T::Obj(POINT)),
            ("bounds", T::Tuple(&T::Obj(POINT), 2)),
            ("rotation", T::Num),
            ("closed", T::Bool),
            ("freestanding", T::Bool),
        ])),
    ),
    ("environment", T::Obj(&[("baked_lighting", T::Bool), ("ambient_light", T::Str)])),
    ("lights", T::Arr(&T::AnyObj)),
    ("image", T::NonBlank),
];
