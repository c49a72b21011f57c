//! The standard library: the ratings revision of Officer's Chess, written in the DSL and
//! embedded in the binary. A compilation without its own `ruleset` uses it.

/// Logical paths of standard library files start with this.
pub const PREFIX: &str = "<std>/";

/// Every embedded file, by path below [`PREFIX`].
pub const FILES: &[(&str, &str)] = &[
    ("ratings/ruleset.oc", include_str!("../std/ratings/ruleset.oc")),
    ("ratings/world.oc", include_str!("../std/ratings/world.oc")),
    ("ratings/tags.oc", include_str!("../std/ratings/tags.oc")),
    ("ratings/classes.oc", include_str!("../std/ratings/classes.oc")),
    ("ratings/items.oc", include_str!("../std/ratings/items.oc")),
];

/// The files compiled with every unit that has no ruleset of its own.
pub const PRELUDE: &[&str] =
    &["ratings/ruleset.oc", "ratings/world.oc", "ratings/tags.oc", "ratings/classes.oc", "ratings/items.oc"];
