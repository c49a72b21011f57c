//! What the tests of `oc-play` share: the repository's shipped scenarios, made ready to play.
#![allow(dead_code)]

pub mod http;

use std::path::PathBuf;

/// A file of the repository (the workspace root, two folders above this crate).
pub fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..").join(path)
}

/// The play fixtures, one `.oc` file a ruleset (`tests/play/*.oc`), in name order.
pub fn play_fixtures() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/play");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "oc"))
        .collect();
    files.sort();
    files
}

/// A shipped scenario with its only (or named) armies.
pub fn setup(file: &str, scenario: Option<&str>) -> oc_play::Setup {
    let path = repo(file);
    let compiled = oc_play::setup::compile(&path).unwrap_or_else(|e| panic!("{file}: {e:?}"));
    let field = compiled.field(&path, scenario).unwrap_or_else(|e| panic!("{file}: {e:?}"));
    field.with_armies(None, None).unwrap_or_else(|e| panic!("{file}: {e:?}"))
}

pub fn default_ais() -> oc_play::Ais {
    oc_play::Ais { attacker: oc_engine::ai::DEFAULT.to_string(), defender: oc_engine::ai::DEFAULT.to_string() }
}

/// The unit named `name` in a state `/api/state` sent.
pub fn unit<'v>(state: &'v serde_json::Value, name: &str) -> &'v serde_json::Value {
    state["units"].as_array().unwrap().iter().find(|u| u["name"] == name).unwrap_or_else(|| panic!("no {name}: {state}"))
}
