//! `oc play` stages the steps of an activation's sequence of play before the move (seed 003: "A
//! unit may take more than one Action per activation round"; "An activated unit must perform
//! its actions according to a strict sequence of play": "3. Change Formation", "4. Move"), over
//! real HTTP: a formation staged shows on the board and changes where the unit can go; steps out
//! of order, an action with no step and a step after the move are refused with the engine's
//! message while the game goes on; undo takes the move back, then the steps; the turn plays
//! the steps, the move and the act as one activation, and its log says so and replays.

mod common;

use common::http::{serve, Client};
use oc_play::session::{Options, Session};
use serde_json::{json, Value};

fn drill() -> oc_play::Setup {
    common::setup("crates/oc-play/tests/play/steps/drill.oc", None)
}

fn tiles(choices: &Value) -> Vec<(i64, i64)> {
    choices["reach"].as_array().unwrap().iter().map(|r| (r[0][0].as_i64().unwrap(), r[0][1].as_i64().unwrap())).collect()
}

/// The action of `choices` from tag `tag`, as the page sends it (`Act::Special`).
fn special(choices: &Value, tag: &str) -> Value {
    let a =
        choices["actions"].as_array().unwrap().iter().find(|a| a["tag"] == tag).unwrap_or_else(|| panic!("no {tag}: {choices}"));
    json!({ "special": { "verb": a["verb"], "target": null, "tile": null, "from": tag } })
}

fn statuses(state: &Value, unit: u64) -> String {
    let u = state["units"].as_array().unwrap().iter().find(|u| u["index"].as_u64() == Some(unit)).unwrap();
    u["statuses"].to_string()
}

#[test]
fn a_formation_staged_before_the_move_changes_the_reach_and_plays_as_one_turn() {
    let setup = drill();
    let mut session = Session::new(&setup, &Options { players: [true, false], ai: "greedy".into(), seed: 2 }).unwrap();
    let lines = serve(&mut session, None, |c: &Client| {
        let (_, state) = c.get("/api/state");
        let unit = state["may_act"][0].as_u64().unwrap();
        let v0 = state["version"].as_u64().unwrap();
        let choices = c.ok("/api/choices", json!({ "unit": unit }));
        let steps: Vec<&Value> = choices["actions"].as_array().unwrap().iter().filter(|a| a["sequence"].is_i64()).collect();
        assert!(steps.iter().any(|a| a["tag"] == "FormOpen" && a["sequence"] == 3), "{choices}");
        assert!(steps.iter().any(|a| a["tag"] == "Search" && a["sequence"] == 1), "{choices}");
        let before = tiles(&choices);
        let pos = (choices["pos"][0].as_i64().unwrap(), choices["pos"][1].as_i64().unwrap());
        let far = |t: &(i64, i64)| (t.0 - pos.0).abs() + (t.1 - pos.1).abs();
        let reach0 = before.iter().map(far).max().unwrap();

        // An action with no step in the sequence is the turn's act, not a step: refused, nothing changes.
        let code = |v: &Value| v["refused"]["code"].as_str().unwrap_or("").to_string();
        let (s, v) = c.post("/api/step", json!({ "version": v0, "unit": unit, "act": special(&choices, "Divide") }));
        assert_eq!((s, code(&v).as_str()), (422, "oc::battle::turn"), "{v}");
        assert!(v["refused"]["message"].as_str().unwrap().contains("has no step in the sequence of play"), "{v}");

        // Open order ("movement += 1"), staged: shown on the board, the reach one square farther.
        let state = c.ok("/api/step", json!({ "version": v0, "unit": unit, "act": special(&choices, "FormOpen") }));
        assert_eq!(state["staged"]["before"].as_array().unwrap().len(), 1, "{state}");
        assert!(state["staged"]["notes"][0].as_str().unwrap().contains("OpenOrder"), "{state}");
        assert!(statuses(&state, unit).contains("OpenOrder"), "the preview shows the formation: {state}");
        let v1 = state["version"].as_u64().unwrap();
        let opened = c.ok("/api/choices", json!({ "unit": unit }));
        let reach1 = tiles(&opened).iter().map(far).max().unwrap();
        assert_eq!(reach1, reach0 + 1, "open order moves one square farther");
        // Another step 3 after it breaks the sequence, and a step 1 after a step 3: no longer
        // offered (the page offers what the engine accepts) and, sent anyway, refused with the
        // engine's message; the staged step stays.
        let offered: Vec<&Value> = opened["actions"].as_array().unwrap().iter().filter(|a| a["sequence"].is_i64()).collect();
        assert!(offered.is_empty(), "no step may follow FormOpen (step 3): {offered:?}");
        let (s, v) = c.post("/api/step", json!({ "version": v1, "unit": unit, "act": special(&choices, "FormMob") }));
        assert_eq!((s, code(&v).as_str()), (422, "oc::battle::turn"), "{v}");
        assert!(
            v["refused"]["message"]
                .as_str()
                .unwrap()
                .contains("sequence of play: FormMob (step 3) cannot follow FormOpen (step 3)"),
            "{v}"
        );
        // A square only open order reaches, then a step after the move: refused.
        let to = *tiles(&opened).iter().filter(|t| far(t) == reach1).min().unwrap();
        let moved = c.ok("/api/move", json!({ "version": v1, "unit": unit, "to": [to.0, to.1] }));
        assert_eq!(moved["staged"]["to"], json!([to.0, to.1]));
        let v2 = moved["version"].as_u64().unwrap();
        let (s, v) = c.post("/api/step", json!({ "version": v2, "unit": unit, "act": special(&choices, "Search") }));
        assert_eq!(s, 422, "{v}");
        assert!(v["refused"]["message"].as_str().unwrap().contains("come before the move"), "{v}");
        // Undo takes the move back, then the step.
        let undone = c.ok("/api/undo", json!({ "version": v2 }));
        assert_eq!(undone["staged"]["to"], json!([pos.0, pos.1]));
        assert_eq!(undone["staged"]["before"].as_array().unwrap().len(), 1);
        let undone = c.ok("/api/undo", json!({ "version": undone["version"] }));
        assert!(undone["staged"].is_null(), "{undone}");
        assert!(!statuses(&undone, unit).contains("OpenOrder"));
        assert_eq!(tiles(&c.ok("/api/choices", json!({ "unit": unit }))), before);
        // Without the formation that square is out of reach.
        let v3 = undone["version"].as_u64().unwrap();
        let (s, v) = c.post("/api/move", json!({ "version": v3, "unit": unit, "to": [to.0, to.1] }));
        assert_eq!((s, code(&v).as_str()), (422, "oc::battle::move"), "{v}");

        // Staged again, moved, and played: one turn, the step before the move.
        let state = c.ok("/api/step", json!({ "version": v3, "unit": unit, "act": special(&choices, "FormOpen") }));
        let state = c.ok("/api/move", json!({ "version": state["version"], "unit": unit, "to": [to.0, to.1] }));
        // A turn the engine refuses as a whole (steps before a rally, which makes no move) changes nothing.
        let (s, v) = c.post("/api/act", json!({ "version": state["version"], "unit": unit, "act": "rally" }));
        assert_eq!((s, code(&v).as_str()), (422, "oc::battle::turn"), "{v}");
        assert!(v["refused"]["message"].as_str().unwrap().contains("takes no action before a move it does not make"), "{v}");
        let (_, again) = c.get("/api/state");
        assert_eq!((&again["version"], &again["staged"]), (&state["version"], &state["staged"]));
        let played = c.ok("/api/act", json!({ "version": state["version"], "unit": unit, "act": "wait" }));
        let first = played["steps"][0]["lines"][0].as_str().unwrap();
        assert!(first.contains("OpenOrder"), "the turn's line says the formation: {played}");
        assert!(played["staged"].is_null());
        let u = played["steps"][0]["units"].as_array().unwrap().iter().find(|u| u["index"].as_u64() == Some(unit)).unwrap();
        assert_eq!((u["x"].as_i64().unwrap(), u["y"].as_i64().unwrap()), to, "{played}");
    });
    let turn = lines.iter().find(|l| l.contains("\"before\":[")).expect("a turn with a step before the move");
    assert!(turn.contains("FormOpen"), "{turn}");
    let source = oc_play::log::parse_source(&lines[0]).unwrap();
    let records: Vec<oc_play::log::Record> = lines[1..].iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let r = oc_play::game::replay(&setup, &source, &records, false).unwrap();
    assert_eq!(oc_play::log::lines(&source, &r.played.records), lines, "the log replays");
}
