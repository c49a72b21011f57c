//! What `oc play`'s page is offered to do, over real HTTP: an action or an item only where the
//! engine takes it, with the units and squares it may be taken on (a review was offered "Seize"
//! off the throne, a staff's heal with nobody in reach, and played a heal on a unit at full HP
//! for 0). A heal on a unit at full HP is allowed by the rules (it heals nothing): it is listed
//! last and as `idle`, never as a heal that helps. And over the fixtures of every ruleset and
//! shipped scenarios, every action and item offered, on every target offered, is played.

mod common;

use std::path::PathBuf;

use common::http::{serve, Client};
use oc_play::session::{Options, Session};
use serde_json::{json, Value};

fn aims() -> oc_play::Setup {
    common::setup("crates/oc-play/tests/play/aims/aims.oc", None)
}

fn action<'v>(choices: &'v Value, tag: &str) -> Option<&'v Value> {
    choices["actions"].as_array().unwrap().iter().find(|a| a["tag"] == tag)
}

fn item<'v>(choices: &'v Value, name: &str) -> Option<&'v Value> {
    choices["items"].as_array().unwrap().iter().find(|a| a["name"] == name)
}

fn hp(state: &Value, unit: u64) -> i64 {
    state["units"].as_array().unwrap().iter().find(|u| u["index"].as_u64() == Some(unit)).unwrap()["hp"].as_i64().unwrap()
}

/// The throne field (seed 6): Ephraim (0, the Leader) at (0, 1), Moulder (1, a priest with a
/// staff and a Vulnerary) at (0, 0), Garcia (2) at (0, 2); the throne at (2, 1).
#[test]
fn an_action_or_item_is_offered_only_where_the_engine_takes_it() {
    let setup = aims();
    let mut session = Session::new(&setup, &Options { players: [true, false], ai: "greedy".into(), seed: 6 }).unwrap();
    serve(&mut session, None, |c: &Client| {
        let (_, state) = c.get("/api/state");
        let version = state["version"].as_u64().unwrap();
        assert_eq!(state["may_act"], json!([0, 1, 2]), "{state}");

        // Seize: not off the throne; on it, taken naming nothing.
        let choices = c.ok("/api/choices", json!({ "unit": 0 }));
        assert!(action(&choices, "Seize").is_none(), "Seize offered off the throne: {choices}");
        let moved = c.ok("/api/move", json!({ "version": version, "unit": 0, "to": [2, 1] }));
        let on_throne = c.ok("/api/choices", json!({ "unit": 0 }));
        let seize = action(&on_throne, "Seize").unwrap_or_else(|| panic!("no Seize on the throne: {on_throne}"));
        assert_eq!((&seize["untargeted"], &seize["targets"], &seize["tiles"]), (&json!(true), &json!([]), &json!([])));
        let version = c.ok("/api/undo", json!({ "version": moved["version"] }))["version"].as_u64().unwrap();

        // The staff's heal: Ephraim beside, at full HP (the rules allow it; it heals nothing).
        let choices = c.ok("/api/choices", json!({ "unit": 1 }));
        let heal = action(&choices, "Heal").unwrap_or_else(|| panic!("no Heal with Ephraim beside: {choices}"));
        assert_eq!((&heal["targets"], &heal["idle"], &heal["untargeted"]), (&json!([0]), &json!([0]), &json!(false)), "{heal}");
        let vulnerary = item(&choices, "Vulnerary").unwrap_or_else(|| panic!("no Vulnerary: {choices}"));
        assert_eq!((&vulnerary["untargeted"], &vulnerary["idle"]), (&json!(true), &json!([1])), "{vulnerary}");
        // Nobody beside: no heal offered (the item still is).
        let moved = c.ok("/api/move", json!({ "version": version, "unit": 1, "to": [2, 0] }));
        let alone = c.ok("/api/choices", json!({ "unit": 1 }));
        assert!(action(&alone, "Heal").is_none(), "a heal with nobody in reach: {alone}");
        assert!(item(&alone, "Vulnerary").is_some(), "{alone}");
        let version = c.ok("/api/undo", json!({ "version": moved["version"] }))["version"].as_u64().unwrap();

        // Garcia strikes Bone and takes the counter (15 of 20 HP)...
        let moved = c.ok("/api/move", json!({ "version": version, "unit": 2, "to": [3, 1] }));
        let played = c.ok("/api/act", json!({ "version": moved["version"], "unit": 2, "act": { "attack": { "target": 3 } } }));
        assert_eq!(hp(&played, 2), 15, "{played}");
        // ... and the priest, beside him, heals him: a heal that helps, not idle, and played.
        let moved = c.ok("/api/move", json!({ "version": played["version"], "unit": 1, "to": [3, 0] }));
        let beside = c.ok("/api/choices", json!({ "unit": 1 }));
        let heal = action(&beside, "Heal").unwrap_or_else(|| panic!("no Heal beside Garcia: {beside}"));
        assert_eq!((&heal["targets"], &heal["idle"]), (&json!([2]), &json!([])), "{heal}");
        let act = json!({ "special": { "verb": heal["verb"], "target": 2, "tile": null, "from": "Heal" } });
        let healed = c.ok("/api/act", json!({ "version": moved["version"], "unit": 1, "act": act }));
        assert_eq!(hp(&healed["steps"][0], 2), 20, "{healed}");
    });
}

/// The first target an action or item offered names: a unit, a square, or nothing.
fn aim(offered: &Value) -> (Value, Value) {
    if let Some(k) = offered["targets"].as_array().and_then(|t| t.first()) {
        return (k.clone(), Value::Null);
    }
    if let Some(t) = offered["tiles"].as_array().and_then(|t| t.first()) {
        return (Value::Null, t.clone());
    }
    assert_eq!(offered["untargeted"], true, "an offer with nothing to take it on: {offered}");
    (Value::Null, Value::Null)
}

/// Every action and item offered is taken on the target offered: played turn after turn in
/// hotseat (an action or item where one is offered, else toward the enemy), in every ruleset's
/// fixture and in shipped scenarios with seize tiles, healers, stamina and steps, never refused.
#[test]
fn every_offered_action_and_item_may_be_taken() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/play");
    let mut files = common::play_fixtures();
    files.extend([dir.join("aims/aims.oc"), dir.join("steps/drill.oc")]);
    files.extend(
        ["scenarios/border-mulan.oc", "scenarios/stamina-caer-pelyn.oc", "scenarios/skirmish-taizel.oc"].map(|f| repo.join(f)),
    );
    let mut taken = std::collections::BTreeMap::<String, usize>::new();
    for path in files {
        let setup = common::setup(&path.to_string_lossy(), None);
        let mut session = Session::new(&setup, &Options { players: [true, true], ai: "greedy".into(), seed: 3 }).unwrap();
        serve(&mut session, None, |c: &Client| {
            for turn in 0..50 {
                let (_, state) = c.get("/api/state");
                if state["over"].is_object() {
                    return;
                }
                let version = state["version"].as_u64().unwrap();
                let Some(unit) = state["may_act"].as_array().unwrap().get(turn % 2).or(state["may_act"].get(0)).cloned() else {
                    return;
                };
                let choices = c.ok("/api/choices", json!({ "unit": unit }));
                let actions = choices["actions"].as_array().unwrap();
                let items = choices["items"].as_array().unwrap();
                // Turn by turn, another of the offers (objectives last: they may end the game).
                let offers: Vec<&Value> = actions.iter().chain(items).collect();
                let offer = offers.get(turn % offers.len().max(1)).copied();
                if let Some(offer) = offer {
                    let (target, tile) = aim(offer);
                    let (path, act) = match offer.get("verb") {
                        Some(verb) => {
                            let act =
                                json!({ "special": { "verb": verb, "target": target, "tile": tile, "from": offer["tag"] } });
                            (if offer["sequence"].is_i64() { "/api/step" } else { "/api/act" }, act)
                        }
                        None => ("/api/act", json!({ "use": { "item": offer["name"], "target": target, "tile": tile } })),
                    };
                    let (s, v) = c.post(path, json!({ "version": version, "unit": unit, "act": act }));
                    assert_eq!(s, 200, "{}: offered {offer}, refused: {v}", path_name(&setup));
                    let name = offer["tag"].as_str().or(offer["name"].as_str()).unwrap_or("").to_string();
                    *taken.entry(name).or_default() += 1;
                    if path == "/api/step" {
                        c.ok("/api/end", json!({ "version": v["version"], "unit": unit }));
                    }
                    continue;
                }
                c.ok("/api/end", json!({ "version": version, "unit": unit }));
            }
        });
    }
    for tag in ["Heal", "Vulnerary", "Salve", "Divide", "Join", "Brace", "Search", "FormLine"] {
        assert!(taken.contains_key(tag), "{tag} was never offered and taken: {taken:?}");
    }
}

fn path_name(setup: &oc_play::Setup) -> String {
    setup.scenario.name.clone()
}

/// Two actions of one verb (a heal beside, a heal from 2 to 3 squares) are each offered with
/// their own reach: the page was sent the first one's for both.
#[test]
fn two_actions_of_one_verb_are_offered_with_their_own_reach() {
    let setup = common::setup("crates/oc-play/tests/play/aims/reach.oc", None);
    let mut session = Session::new(&setup, &Options { players: [true, false], ai: "greedy".into(), seed: 6 }).unwrap();
    serve(&mut session, None, |c: &Client| {
        let (_, state) = c.get("/api/state");
        let medic = common::unit(&state, "Ana")["index"].as_u64().unwrap();
        // From (1, 0): one ally beside, (0, 0), and one 3 squares off, (0, 2).
        let version = state["version"].as_u64().unwrap();
        c.ok("/api/move", json!({ "version": version, "unit": medic, "to": [1, 0] }));
        let choices = c.ok("/api/choices", json!({ "unit": medic }));
        let near = action(&choices, "MendNear").unwrap_or_else(|| panic!("no MendNear: {choices}"));
        let far = action(&choices, "MendFar").unwrap_or_else(|| panic!("no MendFar: {choices}"));
        // `within 1` alone is `1..1` (docs/dsl.md; the engine read `0..1`).
        assert_eq!((&near["range"], &far["range"]), (&json!([1, 1]), &json!([2, 3])), "{choices}");
    });
}

/// Under fog, a staged move onto a hidden enemy (an ambush the engine refuses) offers what a
/// move onto an empty square offers: every act was taken as accepted there, so Seize appeared
/// off the throne exactly where an unseen enemy stood in the way.
#[test]
fn an_ambushed_move_offers_no_more_than_an_open_one() {
    let setup = common::setup("crates/oc-play/tests/play/aims/fog.oc", None);
    let mut session = Session::new(&setup, &Options { players: [true, false], ai: "greedy".into(), seed: 6 }).unwrap();
    serve(&mut session, None, |c: &Client| {
        let (_, state) = c.get("/api/state");
        let lord = common::unit(&state, "Ephraim")["index"].as_u64().unwrap();
        let mut offered = Vec::new();
        // (3, 2): open ground; (3, 0): a defender stands there, unseen (vision 1).
        for to in [[3, 2], [3, 0]] {
            let (_, state) = c.get("/api/state");
            let moved = c.ok("/api/move", json!({ "version": state["version"], "unit": lord, "to": to }));
            let choices = c.ok("/api/choices", json!({ "unit": lord }));
            assert!(action(&choices, "Seize").is_none(), "Seize offered off the throne, staged to {to:?}: {choices}");
            let tags: Vec<String> =
                choices["actions"].as_array().unwrap().iter().map(|a| a["tag"].as_str().unwrap_or("").to_string()).collect();
            offered.push(tags);
            c.ok("/api/undo", json!({ "version": moved["version"] }));
        }
        assert_eq!(offered[0], offered[1], "the ambushed square offers what the open one does");
    });
}
