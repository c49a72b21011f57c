//! No rule lives in Rust (issue 36): every name a built-in ruleset defines — its tags,
//! statuses, classes, items, weapon types, movement types, terrain, and the ruleset's own name —
//! is data, so no crate's source names one. The engine's sources may not mention one at all,
//! comments included (`Verb::Seize`, `Condition::Seize` and the language's types such as
//! `Type::Status` are the engine's vocabulary, not the tags of those names); every other crate's
//! source, and the binary's, may not write one as a string in its code (`path::costs(map, rules,
//! "Foot")` is how a rule hides). The listed exceptions say why.

use std::path::{Path, PathBuf};

/// (file, what it may name, why).
const EXCEPTIONS: &[(&str, &str, &str)] = &[
    (
        "crates/oc-atlas/src/render/mod.rs",
        "*terrain",
        "the renderer's default palette; home-brew terrain gets a colour derived from its name",
    ),
    (
        "crates/oc-atlas/src/render/pattern.rs",
        "*terrain",
        "the renderer's default patterns; home-brew terrain gets one derived from its name",
    ),
    ("crates/oc-compiler/src/stdlib.rs", "*ruleset", "the registry of the built-in rulesets"),
    (
        "crates/oc-engine/src/error.rs",
        "*class",
        "the examples of `oc explain oc::engine::*` (a mistyped class beside a real one); the file has no code that reads a rule",
    ),
    ("crates/oc-engine/src/error.rs", "*item", "the same examples' weapons and items"),
    ("crates/oc-render/src/forecast.rs", "Damage", "a column of the forecast's table, not the stamina ruleset's tag"),
    (
        "crates/oc-engine/src/battle/log.rs",
        "Recover",
        "the log's record of what terrain heals (saved as `recover`), not the item",
    ),
];

/// The language's own type names, which some rulesets also use for a tag (`Status(Effect)`).
const TYPES: &[&str] = &["Int", "Bool", "Tag", "Class", "WeaponType", "Status", "Terrain", "Movement", "Stat", "StatMod", "Dice"];

struct Names {
    all: Vec<(String, &'static str)>,
}

fn names() -> Names {
    let mut all: Vec<(String, &'static str)> = Vec::new();
    for (name, index) in oc_compiler::stdlib::RULESETS {
        let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
        all.push((name.to_string(), "ruleset"));
        all.push((rules.ruleset.name.clone(), "ruleset"));
        all.extend(rules.tags.iter().map(|t| (t.name.clone(), "tag")));
        all.extend(rules.statuses.iter().map(|s| (s.name.clone(), "status")));
        all.extend(rules.classes.iter().map(|c| (c.name.to_string(), "class")));
        all.extend(rules.items.iter().map(|i| (i.name.to_string(), "item")));
        all.extend(rules.weapon_types.iter().map(|w| (w.name.clone(), "weapon type")));
        all.extend(rules.movements.iter().map(|m| (m.clone(), "movement type")));
        all.extend(rules.terrains.iter().map(|t| (t.name.clone(), "terrain")));
    }
    all.retain(|(n, _)| !TYPES.contains(&n.as_str()));
    all.sort();
    all.dedup();
    Names { all }
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Every `.rs` file under `dir`, module folders included.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut dirs = vec![dir.to_path_buf()];
    let mut files = Vec::new();
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// The file's text before its tests (`#[cfg(test)]`); none of a module's `tests.rs` (declared
/// `#[cfg(test)] mod tests;` beside it).
fn code_of(path: &Path) -> String {
    if path.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let text = std::fs::read_to_string(path).unwrap();
    match text.find("#[cfg(test)]") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

fn whole_word(text: &str, name: &str) -> bool {
    text.match_indices(name).any(|(i, _)| {
        let vocabulary = ["Verb::", "Condition::", "Type::", "ActionTarget::", "Record::"].iter().any(|p| text[..i].ends_with(p));
        let before = !vocabulary && text[..i].chars().next_back().is_none_or(|c| !c.is_alphanumeric() && c != '_');
        let after = text[i + name.len()..].chars().next().is_none_or(|c| !c.is_alphanumeric() && c != '_');
        before && after
    })
}

fn excepted(file: &str, name: &str, kind: &str) -> bool {
    EXCEPTIONS.iter().any(|(f, what, _)| *f == file && (*what == name || what.strip_prefix('*') == Some(kind)))
}

#[test]
fn no_engine_source_names_a_rule() {
    let names = names();
    assert!(names.all.iter().any(|(n, _)| n == "Foot") && names.all.iter().any(|(n, _)| n == "Plains"));
    let files = sources(&repo().join("crates/oc-engine/src"));
    assert!(files.iter().any(|p| p.ends_with("battle/mod.rs")), "the walk reaches module folders");
    for path in files {
        let text = code_of(&path);
        let file = path.strip_prefix(repo()).unwrap().to_string_lossy().replace('\\', "/");
        for (name, kind) in &names.all {
            assert!(excepted(&file, name, kind) || !whole_word(&text, name), "{file} names the {kind} `{name}`");
        }
    }
}

#[test]
fn no_crate_writes_a_rule_as_a_string() {
    let names = names();
    let mut roots = vec![repo().join("src")];
    for entry in std::fs::read_dir(repo().join("crates")).unwrap() {
        roots.push(entry.unwrap().path().join("src"));
    }
    let mut checked = 0;
    for root in roots {
        for path in sources(&root) {
            checked += 1;
            let file = path.strip_prefix(repo()).unwrap().to_string_lossy().replace('\\', "/");
            for (number, line) in code_of(&path).lines().enumerate() {
                // Code only: what a comment says is not a rule.
                let code = match line.find("//") {
                    Some(i) if !line[..i].contains('"') => &line[..i],
                    _ => line,
                };
                for (name, kind) in &names.all {
                    if code.contains(&format!("\"{name}\"")) && !excepted(&file, name, kind) {
                        panic!("{file}:{} writes the {kind} \"{name}\": read it from the rules instead", number + 1);
                    }
                }
            }
        }
    }
    assert!(checked > 100, "{checked} files");
    for (file, _, why) in EXCEPTIONS {
        assert!(repo().join(file).exists(), "an exception for a file that is gone: {file}");
        assert!(!why.is_empty());
    }
}
