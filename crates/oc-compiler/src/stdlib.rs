//! The standard library: five built-in rulesets, written in the DSL (`std/`) and embedded in
//! the binary. `std/ratings.oc` (`officers_chess`, alias `ratings`) is seed 000, Officer's
//! Chess's ratings revision, and the default: a compilation without its own `ruleset` uses it.
//! `std/v06.oc` (`officers_chess_v06`, alias `v06`) is seed 001's numeric revision, which also
//! imports the ratings revision's terrain and tags; `stamina`, `battlestorm` and `skirmish` are
//! seeds 002, 003 and 004. `common/objectives.oc` holds the seize/escape/raze actions and the
//! scenario tags all of them share. The rules — tables, formulas, terrain, every tag and
//! status, the roster — live here and only here: Rust knows effect primitives, never a tag,
//! class or weapon type by name (`tests/no_rules_in_rust.rs`).

/// Logical paths of standard library files start with this.
pub const PREFIX: &str = "<std>/";

/// Every embedded file, by path below [`PREFIX`].
pub const FILES: &[(&str, &str)] = &[
    ("ratings.oc", include_str!("../std/ratings.oc")),
    ("ratings/ruleset.oc", include_str!("../std/ratings/ruleset.oc")),
    ("ratings/world.oc", include_str!("../std/ratings/world.oc")),
    ("ratings/tags.oc", include_str!("../std/ratings/tags.oc")),
    ("ratings/statuses.oc", include_str!("../std/ratings/statuses.oc")),
    ("ratings/classes.oc", include_str!("../std/ratings/classes.oc")),
    ("ratings/items.oc", include_str!("../std/ratings/items.oc")),
    ("v06.oc", include_str!("../std/v06.oc")),
    ("v06/ruleset.oc", include_str!("../std/v06/ruleset.oc")),
    ("v06/tags.oc", include_str!("../std/v06/tags.oc")),
    ("v06/roster.oc", include_str!("../std/v06/roster.oc")),
    ("common/objectives.oc", include_str!("../std/common/objectives.oc")),
    ("stamina.oc", include_str!("../std/stamina.oc")),
    ("stamina/ruleset.oc", include_str!("../std/stamina/ruleset.oc")),
    ("stamina/roster.oc", include_str!("../std/stamina/roster.oc")),
    ("battlestorm.oc", include_str!("../std/battlestorm.oc")),
    ("battlestorm/ruleset.oc", include_str!("../std/battlestorm/ruleset.oc")),
    ("battlestorm/roster.oc", include_str!("../std/battlestorm/roster.oc")),
    ("battlestorm/advanced.oc", include_str!("../std/battlestorm/advanced.oc")),
    ("skirmish.oc", include_str!("../std/skirmish.oc")),
    ("skirmish/ruleset.oc", include_str!("../std/skirmish/ruleset.oc")),
    ("skirmish/roster.oc", include_str!("../std/skirmish/roster.oc")),
];

/// The built-in rulesets: the name users pass to `--ruleset`, and the file that imports all of it.
/// The first is the default: a compilation whose files define no ruleset gets it.
pub const RULESETS: &[(&str, &str)] = &[
    ("officers_chess", "<std>/ratings.oc"),
    ("officers_chess_v06", "<std>/v06.oc"),
    ("stamina", "<std>/stamina.oc"),
    ("battlestorm", "<std>/battlestorm.oc"),
    ("skirmish", "<std>/skirmish.oc"),
];

/// The built-in ruleset a project without one of its own uses: the first of [`RULESETS`].
pub const DEFAULT: &str = "officers_chess";

/// Short names users may give a built-in ruleset: (alias, ruleset).
const ALIASES: &[(&str, &str)] = &[("ratings", "officers_chess"), ("v06", "officers_chess_v06")];

/// The built-in ruleset a name means, by its name or a short alias (`ratings`, `v06`): its name
/// and the file that imports all of it.
pub fn builtin(name: &str) -> Option<(&'static str, &'static str)> {
    let name = ALIASES.iter().find(|(alias, _)| *alias == name).map_or(name, |(_, n)| *n);
    RULESETS.iter().find(|(n, _)| *n == name).copied()
}

/// A host with no files: the standard library is embedded and reads none.
pub struct NoFiles;

impl crate::Host for NoFiles {
    fn read(&mut self, _path: &str) -> Result<String, crate::ReadError> {
        Err(crate::ReadError::NoProject)
    }
}

/// Compiles a built-in ruleset on its own, by the index file of [`RULESETS`]
/// (`<std>/ratings.oc`); `None` for a path that is not one of the embedded files.
pub fn compile(index: &str) -> Option<crate::Compilation> {
    let mut workspace = crate::Workspace::new();
    let id = workspace.id_of(index)?;
    Some(workspace.compile_ids(&mut NoFiles, &[id]))
}

/// The default ruleset's rules (what a file without a `ruleset` compiles against).
pub fn default_rules() -> Option<oc_model::Rules> {
    RULESETS.first().and_then(|(_, index)| compile(index)).and_then(|c| c.rules)
}

/// How users see a logical path: a standard library file (`<std>/ratings/tags.oc`) as
/// `std:ratings/tags.oc`, the way imports name the standard library; any other path as it is.
pub fn shown_path(path: &str) -> String {
    match path.strip_prefix(PREFIX) {
        Some(rest) => format!("std:{rest}"),
        None => path.to_string(),
    }
}
