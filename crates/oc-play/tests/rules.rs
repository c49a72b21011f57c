//! `oc_play::rules`: the names every command accepts for a ruleset — each built-in name and
//! alias, else a path that exists — the same for `--ruleset` and for an oc.toml's `ruleset`, and
//! each built-in one loads into an engine of that ruleset.

use std::path::PathBuf;

use oc_play::rules::{self, Ruleset};

/// (what a user may write, the built-in ruleset it means)
const ACCEPTED: &[(&str, &str)] = &[
    ("officers_chess", "officers_chess"),
    ("ratings", "officers_chess"),
    ("officers_chess_v06", "officers_chess_v06"),
    ("v06", "officers_chess_v06"),
    ("stamina", "stamina"),
    ("battlestorm", "battlestorm"),
    ("skirmish", "skirmish"),
];

fn builtin_name(r: &Ruleset) -> &'static str {
    match r {
        Ruleset::Builtin { name, .. } => name,
        Ruleset::Path(p) => panic!("a path: {}", p.display()),
    }
}

#[test]
fn every_builtin_name_and_alias_is_accepted_and_loads() {
    assert_eq!(rules::names(), ["officers_chess", "officers_chess_v06", "stamina", "battlestorm", "skirmish"]);
    for (written, means) in ACCEPTED {
        let r = rules::resolve(written).unwrap();
        assert_eq!(builtin_name(&r), *means, "{written}");
        assert_eq!(rules::builtin(written), Some(r.clone()));
        let loaded = rules::load(&r, "test").unwrap_or_else(|e| panic!("{written}: {e:?}"));
        assert_eq!(loaded.engine.rules.ruleset.name, *means, "{written}");
    }
    for name in rules::names() {
        assert!(ACCEPTED.iter().any(|(w, _)| *w == name), "{name} is in the table above");
    }
}

#[test]
fn another_value_is_a_path_that_exists_or_a_refusal_naming_the_builtin_ones() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("house.oc"), "import \"std:ratings\"\n").unwrap();
    let file = dir.path().join("house.oc");
    assert_eq!(rules::resolve(file.to_str().unwrap()), Ok(Ruleset::Path(file.clone())));
    let loaded = rules::load(&Ruleset::Path(file), "test").unwrap();
    assert_eq!(loaded.engine.rules.ruleset.name, "officers_chess");
    let refused = rules::resolve("chess_of_officers").unwrap_err();
    assert_eq!(
        refused.message,
        "no ruleset `chess_of_officers`: the built-in ones are officers_chess, officers_chess_v06, stamina, battlestorm, skirmish (or give a path to .oc files)"
    );
}

#[test]
fn an_oc_toml_ruleset_accepts_the_same_names_and_a_path_inside_the_project() {
    let dir = tempfile::tempdir().unwrap();
    let manifest = |ruleset: &str| {
        std::fs::write(dir.path().join("oc.toml"), format!("[project]\nname = \"p\"\nruleset = \"{ruleset}\"\n")).unwrap();
        rules::of_project(dir.path())
    };
    for (written, means) in ACCEPTED {
        assert_eq!(builtin_name(&manifest(written).unwrap().unwrap()), *means, "oc.toml: {written}");
    }
    std::fs::create_dir_all(dir.path().join("rules")).unwrap();
    std::fs::write(dir.path().join("rules/house.oc"), "import \"std:ratings\"\n").unwrap();
    let real: PathBuf = dir.path().join("rules/house.oc").canonicalize().unwrap();
    assert_eq!(manifest("rules/house.oc").unwrap(), Some(Ruleset::Path(real)));
    let outside = manifest("../elsewhere.oc").unwrap_err();
    assert!(outside.message.starts_with("oc.toml's ruleset `../elsewhere.oc`"), "{outside:?}");
    std::fs::remove_file(dir.path().join("oc.toml")).unwrap();
    assert_eq!(rules::of_project(dir.path()).unwrap(), None);
}

#[test]
fn files_build_on_the_standard_library_or_on_a_named_builtin_ruleset() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("oc.toml"), "[project]\nname = \"p\"\n").unwrap();
    std::fs::write(dir.path().join("house.oc"), "import \"std:ratings\"\n").unwrap();
    let paths = [dir.path().to_path_buf()];
    let loaded = rules::load_files(&paths, None).unwrap();
    assert_eq!(loaded.engine.rules.ruleset.name, "officers_chess");
    assert!(!loaded.files.is_empty());
    let on_alias = rules::load_files(&paths, Some("ratings")).unwrap();
    assert_eq!(on_alias.engine.rules.ruleset.name, "officers_chess");
    match rules::load_files(&paths, Some("nowhere")) {
        Err(oc_play::Failure::Refused(r)) => assert!(r.message.starts_with("no built-in ruleset `nowhere`"), "{r:?}"),
        other => panic!("{:?}", other.err()),
    }
}

/// `oc balance`'s rules: files on a ruleset, a path given as the ruleset like files given, and
/// a built-in ruleset alone with no file of its own to warn about.
#[test]
fn balance_loads_files_a_path_or_a_builtin_ruleset_alone() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("oc.toml"), "[project]\nname = \"p\"\n").unwrap();
    std::fs::write(dir.path().join("house.oc"), "import \"std:ratings\"\n").unwrap();
    let paths = [dir.path().to_path_buf()];
    assert!(!rules::load_with(None, &paths).unwrap().files.is_empty());
    let as_ruleset = dir.path().to_string_lossy().into_owned();
    assert!(!rules::load_with(Some(&as_ruleset), &[]).unwrap().files.is_empty());
    let alone = rules::load_with(Some("stamina"), &[]).unwrap();
    assert_eq!((alone.engine.rules.ruleset.name.as_str(), alone.files.len()), ("stamina", 0));
}
