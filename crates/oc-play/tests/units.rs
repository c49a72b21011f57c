//! Units made and unmade in a game of `oc play` (seed 003: "Figures are formed into Units of one
//! or more figures", and the Actions "divide up (split the unit)" and "join another unit"), over
//! real HTTP: a unit that joins another leaves the board and the host's figures and HP grow;
//! a mixed unit reads "Spears (4 of 4) + Fenth" with its body's HP; a unit divided off another
//! is on the board, its own unit. The replay page of the game (what `oc play --html` writes)
//! lists the unit made mid-battle, and each frame carries each unit's HP at full strength then,
//! so that no bar runs past full once figures have joined.

mod common;

use common::http::{serve, Client};
use common::unit;
use oc_play::session::{Options, Session};
use serde_json::{json, Value};

fn at(u: &Value) -> (i64, i64) {
    (u["x"].as_i64().unwrap(), u["y"].as_i64().unwrap())
}

fn special(choices: &Value, tag: &str, target: Option<u64>) -> Value {
    let a =
        choices["actions"].as_array().unwrap().iter().find(|a| a["tag"] == tag).unwrap_or_else(|| panic!("no {tag}: {choices}"));
    json!({ "special": { "verb": a["verb"], "target": target, "tile": null, "from": tag } })
}

/// Ends turns until it is the player's and `name` may act (or the game is over: `None`).
fn until_may_act(c: &Client, name: &str) -> Option<Value> {
    for _ in 0..60 {
        let (_, state) = c.get("/api/state");
        if state["over"].is_object() {
            return None;
        }
        let k = unit(&state, name)["index"].as_u64().unwrap();
        let may = state["may_act"].as_array().unwrap();
        if may.iter().any(|m| m.as_u64() == Some(k)) {
            return Some(state);
        }
        c.ok("/api/end", json!({ "version": state["version"], "unit": may[0] }));
    }
    None
}

#[test]
fn units_that_join_and_divide_are_drawn_and_a_mixed_unit_shows_its_bodies() {
    let setup = common::setup("crates/oc-play/tests/play/steps/drill.oc", None);
    let mut session = Session::new(&setup, &Options { players: [true, false], ai: "greedy".into(), seed: 2 }).unwrap();
    let lines = serve(&mut session, None, |c: &Client| {
        let (_, state) = c.get("/api/state");
        // Fenth begins in the spearmen: a mixed unit, his bar and the unit's never past full.
        let spears = unit(&state, "Spears");
        assert_eq!(spears["shown"], "Spears (4 of 4) + Fenth", "{spears}");
        assert_eq!(spears["bodies"][0]["shown"], "Fenth");
        assert_eq!(unit(&state, "Fenth")["state"], "joined");
        let (s_k, s_at) = (spears["index"].as_u64().unwrap(), at(spears));
        let max0 = spears["max_hp"].as_i64().unwrap();

        // The pikes come alongside and join: their figures are the spearmen's.
        let state = until_may_act(c, "Pikes").expect("the pikes act");
        let p_k = unit(&state, "Pikes")["index"].as_u64().unwrap();
        let choices = c.ok("/api/choices", json!({ "unit": p_k }));
        let beside = choices["reach"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r[0][0].as_i64().unwrap(), r[0][1].as_i64().unwrap()))
            .find(|t| (t.0 - s_at.0).abs() + (t.1 - s_at.1).abs() == 1)
            .expect("a square beside the spearmen");
        let moved = c.ok("/api/move", json!({ "version": state["version"], "unit": p_k, "to": [beside.0, beside.1] }));
        let choices = c.ok("/api/choices", json!({ "unit": p_k }));
        let joined =
            c.ok("/api/act", json!({ "version": moved["version"], "unit": p_k, "act": special(&choices, "Join", Some(s_k)) }));
        let after = &joined["steps"][0];
        assert!(after["lines"][0].as_str().unwrap().contains("joins Spears"), "{after}");
        assert_eq!(unit(after, "Pikes")["state"], "joined", "the pikes left the board");
        let spears = unit(after, "Spears");
        assert_eq!(spears["figures"], json!([8, 8]));
        assert_eq!(spears["shown"], "Spears (8 of 8) + Fenth");
        assert_eq!(spears["max_hp"].as_i64().unwrap(), 2 * max0);

        // The spearmen divide: half their figures are a unit of their own beside them.
        let state = until_may_act(c, "Spears").expect("the spearmen act");
        let choices = c.ok("/api/choices", json!({ "unit": s_k }));
        let divided =
            c.ok("/api/act", json!({ "version": state["version"], "unit": s_k, "act": special(&choices, "Divide", None) }));
        let after = &divided["steps"][0];
        let part = unit(after, "Spears 2");
        assert_eq!((part["state"].as_str(), part["side"].as_str()), (Some("ready"), Some("attacker")), "{part}");
        assert_eq!(part["figures"], json!([4, 4]));
        let d = (at(part).0 - at(unit(after, "Spears")).0).abs() + (at(part).1 - at(unit(after, "Spears")).1).abs();
        assert_eq!(d, 1, "beside the unit it left");
        assert_eq!(unit(after, "Spears")["shown"], "Spears (4 of 4) + Fenth", "the body stays with the unit");
        let (_, state) = c.get("/api/state");
        assert!(unit(&state, "Spears 2")["index"].as_u64().unwrap() > p_k, "a unit of its own: {state}");
        // To the end.
        for _ in 0..200 {
            let (_, state) = c.get("/api/state");
            if state["over"].is_object() {
                break;
            }
            c.ok("/api/end", json!({ "version": state["version"], "unit": state["may_act"][0] }));
        }
    });
    // The replay page: every unit the battle had, and each frame's HP at full strength.
    let source = oc_play::log::parse_source(&lines[0]).unwrap();
    let records: Vec<oc_play::log::Record> = lines[1..].iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let r = oc_play::game::replay(&setup, &source, &records, true).unwrap();
    assert!(!r.unfinished, "the game was played to its end");
    let rec = r.played.recording.as_ref().unwrap();
    let page = oc_play::replay_page::page(&setup, &source, rec).unwrap();
    assert!(page.contains("\"name\":\"Spears 2\""), "the unit divided off is listed");
    let frames = rec.frames().unwrap();
    let names: Vec<&str> = rec.units.iter().map(|u| u.name.as_str()).collect();
    assert_eq!(names.last(), Some(&"Spears 2"), "{names:?}");
    let spears = names.iter().position(|n| *n == "Spears").unwrap();
    let start = rec.units[spears].max_hp;
    let mut past = false;
    for f in &frames {
        for u in f.units {
            assert!(u.hp <= u.max_hp, "a bar past full: {} of {}", u.hp, u.max_hp);
        }
        past |= f.units.get(spears).is_some_and(|u| u.hp > start);
    }
    assert!(past, "the joined spearmen had more HP than they began with (the old page drew its bar past full)");
    assert!(frames.last().unwrap().units.len() == names.len());
}
