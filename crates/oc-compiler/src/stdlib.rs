//! The standard library: the ratings revision of Officer's Chess, written in the DSL and
//! embedded in the binary. A compilation without its own `ruleset` uses it.

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
];

/// The built-in rulesets: the name users pass to `--ruleset`, and the file that imports all of it.
/// The first is the default: a compilation whose files define no ruleset gets it.
pub const RULESETS: &[(&str, &str)] = &[("officers_chess", "<std>/ratings.oc"), ("officers_chess_v06", "<std>/v06.oc")];
