//! `oc play`'s server driven over real HTTP on 127.0.0.1: a whole game against the AI for every
//! scenario in `tests/play/` (one per built-in ruleset, and one under fog), a player that reads
//! the choices and forecasts and attacks or closes in; the refusals (token, Host, Origin, an
//! illegal move, a stale request, a forged body); the log written as it goes and replayed; and a
//! game saved half way and resumed ending as the uninterrupted one, its page listing the game so
//! far as the saved one's did.

mod common;

use std::path::{Path, PathBuf};

use common::http::{request, serve, Client, TOKEN};
use oc_play::session::{Options, Session};
use serde_json::{json, Value};

fn fixtures() -> Vec<PathBuf> {
    common::play_fixtures()
}

fn setup(path: &Path) -> oc_play::Setup {
    let compiled = oc_play::setup::compile(path).unwrap_or_else(|e| panic!("{}: {e:?}", path.display()));
    compiled.field(path, None).unwrap().with_armies(None, None).unwrap()
}

fn dist(a: (i64, i64), b: (i64, i64)) -> i64 {
    (a.0 - b.0).abs() + (a.1 - b.1).abs()
}

fn tile(v: &Value) -> (i64, i64) {
    (v[0].as_i64().unwrap(), v[1].as_i64().unwrap())
}

/// One confirmed turn of a simple player: attack what it can (after reading the forecast),
/// else close in on the nearest enemy it sees and wait; where activations are steps, end the
/// activation after a few. Returns false when the game is over.
/// Plays on (as [`play_one`]) until a unit of the player's is asked to answer: the state then;
/// `None` when the game ends first (or in 400 steps).
fn next_answer(c: &Client, steps: &mut u32) -> Option<Value> {
    for _ in 0..400 {
        let (_, state) = c.get("/api/state");
        if state["over"].is_object() {
            return None;
        }
        if state["answering"].is_object() {
            return Some(state);
        }
        if !play_one(c, steps) {
            return None;
        }
    }
    None
}

fn play_one(c: &Client, steps_in_activation: &mut u32) -> bool {
    let (_, state) = c.get("/api/state");
    if state["over"].is_object() {
        return false;
    }
    assert!(state["your_turn"].as_bool().unwrap(), "the AI plays within the request: {state}");
    let version = state["version"].as_u64().unwrap();
    let unit = state["may_act"][0].as_u64().expect("a unit to act");
    // The steps counted are this activation's: a game resumed plays as the whole one did.
    if state["active"].as_u64() != Some(unit) {
        *steps_in_activation = 0;
    }
    if state["active"].as_u64() == Some(unit) && *steps_in_activation >= 3 {
        *steps_in_activation = 0;
        c.ok("/api/end", json!({ "version": version, "unit": unit }));
        return true;
    }
    let choices = c.ok("/api/choices", json!({ "unit": unit }));
    let me = choices["pos"].clone();
    let attack = |c: &Client, choices: &Value, version: u64| -> Option<Value> {
        let must = choices["must_attack"].as_array().unwrap();
        let target = must.first().or_else(|| choices["targets"].as_array().unwrap().first())?.as_u64()?;
        let f = c.ok("/api/forecast", json!({ "unit": unit, "target": target }));
        for k in ["rout", "counter_rout", "dealt", "taken"] {
            let p = f[k].as_f64().unwrap();
            assert!(p >= 0.0 && p.is_finite(), "{k} {f}");
        }
        assert!(f["sides"][0]["hit"].as_f64().unwrap() <= 1.0);
        let (status, v) =
            c.post("/api/act", json!({ "version": version, "unit": unit, "act": { "attack": { "target": target } } }));
        Some(if status == 200 { v } else { c.ok("/api/end", json!({ "version": version, "unit": unit })) })
    };
    *steps_in_activation += 1;
    if attack(c, &choices, version).is_some() {
        return true;
    }
    // Close in: the reachable square nearest the nearest enemy in sight.
    let side = state["viewer"].as_str().unwrap();
    let enemies: Vec<(i64, i64)> = state["units"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|u| u["side"] != side && u["state"] == "ready")
        .map(|u| (u["x"].as_i64().unwrap(), u["y"].as_i64().unwrap()))
        .collect();
    let here = tile(&me);
    let score = |t: (i64, i64)| enemies.iter().map(|e| dist(*e, t)).min().unwrap_or(0);
    let best = choices["reach"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| tile(&r[0]))
        .filter(|t| !enemies.contains(t))
        .min_by_key(|t| (score(*t), *t))
        .unwrap_or(here);
    if best != here && score(best) < score(here) {
        let (status, moved) = c.post("/api/move", json!({ "version": version, "unit": unit, "to": [best.0, best.1] }));
        if status == 200 {
            let v = moved["version"].as_u64().unwrap();
            let choices = c.ok("/api/choices", json!({ "unit": unit }));
            if attack(c, &choices, v).is_some() {
                return true;
            }
            let (status, _) = c.post("/api/act", json!({ "version": v, "unit": unit, "act": "wait" }));
            if status == 200 {
                return true;
            }
            c.ok("/api/undo", json!({ "version": v }));
        }
    }
    let (_, state) = c.get("/api/state");
    *steps_in_activation = 0;
    c.ok("/api/end", json!({ "version": state["version"], "unit": unit }));
    true
}

/// Plays until the game ends (or `turns` confirmed turns), as [`play_one`].
fn play_through(c: &Client, turns: usize) -> usize {
    let mut steps = 0;
    for n in 0..turns {
        if !play_one(c, &mut steps) {
            return n;
        }
    }
    turns
}

/// The whole game so far as a page opened now lists it (`play.html`'s `start`): the lines of the
/// steps played before the state's (`/api/history`), then of the state's own.
fn shown(c: &Client) -> Vec<String> {
    let (_, history) = c.get("/api/history");
    let (_, state) = c.get("/api/state");
    let steps = history["steps"].as_array().unwrap().iter().chain(state["steps"].as_array().unwrap());
    steps.flat_map(|s| s["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap().to_string())).collect()
}

/// The lines of `lines` played again as `oc replay` plays them.
fn replayed(setup: &oc_play::Setup, lines: &[String]) -> (Vec<String>, bool) {
    let source = oc_play::log::parse_source(&lines[0]).unwrap();
    let records: Vec<oc_play::log::Record> = lines[1..].iter().map(|l| serde_json::from_str(l).unwrap()).collect();
    let r = oc_play::game::replay(setup, &source, &records, false).unwrap();
    (oc_play::log::lines(&source, &r.played.records), r.unfinished)
}

#[test]
fn a_whole_game_against_the_ai_in_every_ruleset_over_http_and_its_log_replays() {
    let files = fixtures();
    // Every built-in ruleset has a game here.
    let mut covered = std::collections::BTreeSet::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = text
            .lines()
            .find_map(|l| l.strip_prefix("import \"std:").and_then(|r| r.strip_suffix('"')))
            .map_or(oc_compiler::stdlib::DEFAULT, |n| oc_compiler::stdlib::builtin(n).unwrap().0);
        covered.insert(name);
    }
    for (name, _) in oc_compiler::stdlib::RULESETS {
        assert!(covered.contains(name), "no play test for the built-in ruleset {name}");
    }
    let dir = tempfile::tempdir().unwrap();
    for f in &files {
        let setup = setup(f);
        for (side, players) in [("attacker", [true, false]), ("defender", [false, true])] {
            let mut session = Session::new(&setup, &Options { players, ai: "greedy".into(), seed: 3 }).unwrap();
            let log = dir.path().join(format!("{}-{side}.log", f.file_stem().unwrap().to_string_lossy()));
            let target = oc_project::output::prepare(&log, oc_project::output::Kind::BattleLog, &[], false).unwrap();
            let lines = serve(&mut session, Some(target), |c| {
                let (_, game) = c.get("/api/game");
                assert!(game["picture"].as_str().unwrap().starts_with("data:image/png;base64,"));
                play_through(c, 400);
                let (_, state) = c.get("/api/state");
                let over = &state["over"];
                assert!(over["line"].as_str().is_some_and(|l| !l.is_empty()), "{}: the game ends: {state}", f.display());
            });
            assert!(session.over(), "{}", f.display());
            // The log on disk is the game's, and it replays line for line.
            let on_disk = std::fs::read_to_string(&log).unwrap();
            assert_eq!(on_disk, lines.join("\n") + "\n", "{}", f.display());
            let (again, unfinished) = replayed(&setup, &lines);
            assert!(!unfinished);
            assert_eq!(again, lines, "{} ({side}): the replay differs", f.display());
            assert_eq!(oc_play::log::verify(&on_disk, &again), Ok(()));
        }
    }
}

#[test]
fn hotseat_plays_both_sides() {
    let setup = setup(&fixtures().into_iter().find(|p| p.ends_with("ratings.oc")).unwrap());
    let mut session = Session::new(&setup, &Options { players: [true, true], ai: "greedy".into(), seed: 5 }).unwrap();
    let lines = serve(&mut session, None, |c| {
        let mut sides = std::collections::BTreeSet::new();
        let mut steps = 0;
        for _ in 0..400 {
            let (_, state) = c.get("/api/state");
            if state["over"].is_object() {
                break;
            }
            sides.insert(state["viewer"].as_str().unwrap().to_string());
            assert_eq!(state["viewer"], state["to_act"], "hotseat shows the side to act");
            play_one(c, &mut steps);
        }
        assert_eq!(sides.len(), 2, "both sides were played");
    });
    assert!(lines[0].contains("\"attacker_ai\":\"player\"") && lines[0].contains("\"defender_ai\":\"player\""));
    assert_eq!(replayed(&setup, &lines).0, lines);
}

#[test]
fn bad_requests_are_refused_and_the_game_goes_on() {
    let setup = setup(&fixtures().into_iter().find(|p| p.ends_with("ratings.oc")).unwrap());
    let mut session = Session::new(&setup, &Options { players: [true, false], ai: "greedy".into(), seed: 1 }).unwrap();
    serve(&mut session, None, |c| {
        let host = ("Host", format!("127.0.0.1:{}", c.port));
        let code = |v: &Value| v["refused"]["code"].as_str().unwrap_or("").to_string();
        // No token, another token, another Host, another Origin.
        let (s, v) = request(c.port, "GET", "/api/state", None, std::slice::from_ref(&host));
        assert_eq!((s, code(&v).as_str()), (403, "oc::play::forbidden"), "{v}");
        let (s, _) = request(c.port, "GET", "/api/state?token=nope", None, std::slice::from_ref(&host));
        assert_eq!(s, 403);
        let (s, v) = request(c.port, "GET", &format!("/api/state?token={TOKEN}"), None, &[("Host", "evil.example:80".into())]);
        assert_eq!(s, 403, "{v}");
        assert!(v["refused"]["message"].as_str().unwrap().contains("evil.example"));
        let mut h = c.headers();
        h.push(("Origin", "http://evil.example".into()));
        let (s, _) = request(c.port, "GET", "/api/state", None, &h);
        assert_eq!(s, 403);
        let mut h = c.headers();
        h.push(("Origin", format!("http://127.0.0.1:{}", c.port)));
        let (s, _) = request(c.port, "GET", "/api/state", None, &h);
        assert_eq!(s, 200, "the page's own origin is welcome");
        let (s, page) = request(c.port, "GET", &format!("/?token={TOKEN}"), None, std::slice::from_ref(&host));
        assert_eq!(s, 200);
        assert!(page.as_str().unwrap().contains("<svg id=\"board\""));

        let (_, state) = c.get("/api/state");
        let version = state["version"].as_u64().unwrap();
        let unit = state["may_act"][0].as_u64().unwrap();
        // A move the rules refuse: too far.
        let (s, v) = c.post("/api/move", json!({ "version": version, "unit": unit, "to": [7, 4] }));
        assert_eq!((s, code(&v).as_str()), (422, "oc::battle::move"), "{v}");
        assert!(!v["refused"]["help"].as_str().unwrap().is_empty());
        // A unit of the AI's side.
        let enemy =
            state["units"].as_array().unwrap().iter().find(|u| u["side"] == "defender").unwrap()["index"].as_u64().unwrap();
        let (s, v) = c.post("/api/choices", json!({ "unit": enemy }));
        assert_eq!((s, code(&v).as_str()), (422, "oc::play::not_yours"), "{v}");
        // Said as for no unit at all: under fog a name (or "there is no unit") would tell what
        // the enemy hides.
        let (s, none) = c.post("/api/choices", json!({ "unit": 999 }));
        let said = |v: &Value, k: u64| v["refused"]["message"].as_str().unwrap().replace(&k.to_string(), "N");
        assert_eq!((s, said(&v, enemy)), (422, said(&none, 999)), "{v} {none}");
        // An attack on a unit out of reach.
        let (s, v) = c.post("/api/act", json!({ "version": version, "unit": unit, "act": { "attack": { "target": enemy } } }));
        assert_eq!((s, code(&v).as_str()), (422, "oc::battle::target"), "{v}");
        // A stale request, a forged body, an unknown endpoint, nothing to undo.
        let (s, v) = c.post("/api/act", json!({ "version": version + 7, "unit": unit, "act": "wait" }));
        assert_eq!((s, code(&v).as_str()), (409, "oc::play::stale"), "{v}");
        let (s, v) = c.post("/api/act", json!({ "version": version, "unit": "zero", "act": 12 }));
        assert_eq!((s, code(&v).as_str()), (400, "oc::play::bad_request"), "{v}");
        let (s, v) = request(c.port, "POST", "/api/act", None, &c.headers());
        assert_eq!((s, code(&v).as_str()), (400, "oc::play::bad_request"), "{v}");
        let (s, _) = c.get("/api/nothing");
        assert_eq!(s, 404);
        let (s, v) = c.post("/api/undo", json!({ "version": version }));
        assert_eq!((s, code(&v).as_str()), (422, "oc::battle::move"), "{v}");
        // Nothing changed; a move is staged, taken back, and the game goes on.
        let (_, again) = c.get("/api/state");
        assert_eq!(again["version"].as_u64(), Some(version));
        let choices = c.ok("/api/choices", json!({ "unit": unit }));
        let to = choices["reach"].as_array().unwrap().iter().map(|r| tile(&r[0])).find(|t| *t != tile(&choices["pos"])).unwrap();
        let staged = c.ok("/api/move", json!({ "version": version, "unit": unit, "to": [to.0, to.1] }));
        assert_eq!(staged["staged"]["to"], json!([to.0, to.1]));
        let v2 = staged["version"].as_u64().unwrap();
        let undone = c.ok("/api/undo", json!({ "version": v2 }));
        assert!(undone["staged"].is_null());
        let played = c.ok("/api/act", json!({ "version": undone["version"], "unit": unit, "act": "wait" }));
        assert!(played["steps"].as_array().unwrap().len() >= 2, "the player's turn and the AI's: {played}");
    });
}

#[test]
fn a_saved_game_resumed_ends_as_the_uninterrupted_one() {
    for name in ["ratings.oc", "stamina.oc", "skirmish.oc"] {
        let setup = setup(&fixtures().into_iter().find(|p| p.ends_with(name)).unwrap());
        let options = Options { players: [true, false], ai: "greedy".into(), seed: 9 };
        let mut whole = Session::new(&setup, &options).unwrap();
        let mut turns = 0;
        let uninterrupted = serve(&mut whole, None, |c| turns = play_through(c, 400));
        assert!(whole.over());
        assert!(turns >= 2, "{name}: a game of {turns} turns");

        // The whole game so far, as a page opened again lists it, only grows: every turn adds
        // its lines after those already shown.
        let mut first = Session::new(&setup, &options).unwrap();
        let mut at_save = Vec::new();
        let saved = serve(&mut first, None, |c| {
            let mut steps = 0;
            at_save = shown(c);
            for _ in 0..turns / 2 {
                assert!(play_one(c, &mut steps), "{name}: over before half way");
                let now = shown(c);
                assert!(now.len() > at_save.len() && now.starts_with(&at_save), "{name}: {at_save:#?}\nthen {now:#?}");
                at_save = now;
            }
        });
        assert!(!first.over(), "{name}: saved half way");
        let text = saved.join("\n") + "\n";
        // The unfinished log replays as far as it goes.
        let (again, unfinished) = replayed(&setup, &saved);
        assert!(unfinished);
        assert_eq!(again, saved);
        let mut resumed = Session::resume(&setup, &text).unwrap();
        let finished = serve(&mut resumed, None, |c| {
            // The page of the resumed game lists the game as the page of the saved one did.
            assert_eq!(shown(c), at_save, "{name}: the resumed game's page");
            play_through(c, 400);
        });
        assert_eq!(finished, uninterrupted, "{name}: the resumed game differs");

        // An edited log is refused by name.
        let edited = text.replacen("\"seed\":9", "\"seed\":10", 1);
        let refused = Session::resume(&setup, &edited).err().unwrap();
        assert_eq!(refused.code, "oc::play::resume");
    }
}

#[test]
fn a_standing_reaction_is_chosen_logged_and_replayed() {
    let setup = setup(&fixtures().into_iter().find(|p| p.ends_with("stamina.oc")).unwrap());
    let mut session = Session::new(&setup, &Options { players: [false, true], ai: "greedy".into(), seed: 4 }).unwrap();
    let lines = serve(&mut session, None, |c| {
        let (_, game) = c.get("/api/game");
        assert!(game["reactions"].as_array().unwrap().iter().any(|r| r[0] == "Parry"), "{game}");
        let (_, state) = c.get("/api/state");
        assert_eq!(state["stance"], "best");
        let version = state["version"].as_u64().unwrap();
        let (s, v) = c.post("/api/stance", json!({ "version": version, "reaction": "Dance" }));
        assert_eq!((s, v["refused"]["code"].as_str().unwrap()), (422, "oc::battle::requirement"), "{v}");
        let state = c.ok("/api/stance", json!({ "version": version, "reaction": "none" }));
        assert_eq!(state["stance"], "none");
        play_through(c, 400);
    });
    assert!(
        lines.iter().any(|l| l.contains("\"event\":\"turn\"") && l.contains("\"reaction\":\"none\"")),
        "the turn after the choice carries it"
    );
    assert_eq!(session.battle().stance[1].as_deref(), Some("none"));
    assert_eq!(replayed(&setup, &lines).0, lines);
}

/// Battlestorm's chain in `oc play`: when the AI declares an attack on one of the player's units
/// that has not activated ("respond"), the state names it as the only unit that may act, with a
/// line to read; the player may decline (the attack resolves and the unit keeps its activation),
/// and a decline from another unit is refused naming the rule. The log replays.
#[test]
fn a_declared_attack_on_the_players_unit_can_be_declined() {
    let setup = setup(&fixtures().into_iter().find(|p| p.ends_with("battlestorm.oc")).unwrap());
    let (mut declined, mut early) = (false, false);
    for seed in 1..=8 {
        let options = Options { players: [true, false], ai: "greedy".into(), seed };
        let mut session = Session::new(&setup, &options).unwrap();
        let lines = serve(&mut session, None, |c| {
            let mut steps = 0;
            if let Some(state) = next_answer(c, &mut steps) {
                let answering = &state["answering"];
                let unit = answering["unit"].as_u64().unwrap();
                assert_eq!(state["may_act"], json!([unit]), "{state}");
                let line = answering["line"].as_str().unwrap();
                assert!(
                    (line.contains("declares an attack on") || line.contains("comes too near")) && line.contains("or decline"),
                    "{line}"
                );
                // An attack declared before the move: the declarer has not moved, and the page
                // does not say where it means to.
                let said = state["steps"].to_string();
                if line.contains("before it moves") {
                    let declared =
                        said.split("\",\"").find(|l| l.contains("before it moves, which may activate")).unwrap_or_default();
                    assert!(!declared.is_empty() && !declared.contains("moves to"), "{declared}: {said}");
                    early = true;
                }
                let version = state["version"].as_u64().unwrap();
                let mine: Vec<u64> = state["units"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|u| u["side"] == state["viewer"] && u["index"].as_u64() != Some(unit))
                    .filter_map(|u| u["index"].as_u64())
                    .collect();
                if let Some(other) = mine.first() {
                    let (s, v) = c.post("/api/act", json!({ "version": version, "unit": other, "act": "decline" }));
                    assert_eq!(s, 422, "another unit cannot decline: {v}");
                }
                let played = c.ok("/api/act", json!({ "version": version, "unit": unit, "act": "decline" }));
                let first = &played["steps"][0];
                assert!(first.to_string().contains("declines to activate"), "{played}");
                declined = true;
            }
        });
        if declined {
            let (again, unfinished) = replayed(&setup, &lines);
            assert!(unfinished, "the game was left half way");
            assert_eq!(again, lines, "seed {seed}: the log replays");
            break;
        }
    }
    assert!(declined, "no declared attack on the player's unit in eight games");
    assert!(early, "the declared attack was no attack after a move");
}

/// The answer prompt for either side (a review never saw it for its side): playing the defender,
/// then the attacker, against the AI on battlestorm's field, an attack the AI declares on the
/// player's unit, or a move of the AI's that comes too near it, is the state's `answering`; the
/// unit alone may act, the AI's unit is among its targets, and its attack in answer is played.
#[test]
fn the_ais_declared_attack_is_answered_by_either_side() {
    let setup = setup(&fixtures().into_iter().find(|p| p.ends_with("battlestorm.oc")).unwrap());
    for players in [[false, true], [true, false]] {
        let mut answered = false;
        for seed in 1..=8 {
            let options = Options { players, ai: "greedy".into(), seed };
            let mut session = Session::new(&setup, &options).unwrap();
            let lines = serve(&mut session, None, |c| {
                let mut steps = 0;
                for _ in 0..400 {
                    let Some(state) = next_answer(c, &mut steps) else { return };
                    let answering = &state["answering"];
                    let (unit, by) = (answering["unit"].as_u64().unwrap(), answering["by"].as_u64().unwrap());
                    let side = |k: u64| {
                        let u = state["units"].as_array().unwrap().iter().find(|u| u["index"].as_u64() == Some(k));
                        u.map(|u| u["side"].clone()).unwrap_or_default()
                    };
                    assert_eq!(
                        (side(unit), side(by).as_str() != state["viewer"].as_str()),
                        (state["viewer"].clone(), true),
                        "{state}"
                    );
                    assert_eq!(state["may_act"], json!([unit]), "{state}");
                    let choices = c.ok("/api/choices", json!({ "unit": unit }));
                    if !choices["targets"].as_array().unwrap().iter().any(|t| t.as_u64() == Some(by)) {
                        play_one(c, &mut steps);
                        continue;
                    }
                    let act = json!({ "attack": { "target": by } });
                    let played = c.ok("/api/act", json!({ "version": state["version"], "unit": unit, "act": act }));
                    let first = played["steps"][0]["lines"][0].as_str().unwrap_or("");
                    assert!(first.contains("attacks") || first.contains("declares"), "{played}");
                    answered = true;
                    return;
                }
            });
            if answered {
                assert_eq!(replayed(&setup, &lines).0, lines, "seed {seed}: the log replays");
                break;
            }
        }
        assert!(answered, "{players:?}: no attack of the AI's answered in eight games");
    }
}

/// A log that cannot be written (its path made a folder mid-game) is said on every answer to the
/// page (`unsaved`), the game goes on, and once the path is free again the next move saves the
/// whole log: nothing is lost, and the game ends with no error standing.
#[test]
fn a_log_that_stops_saving_is_said_and_saved_whole_again() {
    let setup = setup(&fixtures().into_iter().find(|p| p.ends_with("ratings.oc")).unwrap());
    let mut session = Session::new(&setup, &Options { players: [true, true], ai: "greedy".into(), seed: 5 }).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("game.log");
    let target = oc_project::output::prepare(&log, oc_project::output::Kind::BattleLog, &[], false).unwrap();
    let lines = serve(&mut session, Some(target), |c| {
        let mut steps = 0;
        assert!(play_one(c, &mut steps));
        assert!(c.get("/api/state").1.get("unsaved").is_none());
        std::fs::remove_file(&log).unwrap();
        std::fs::create_dir(&log).unwrap();
        assert!(play_one(c, &mut steps));
        let (_, state) = c.get("/api/state");
        assert!(state["unsaved"].as_str().is_some_and(|u| u.contains("game.log")), "{state}");
        std::fs::remove_dir(&log).unwrap();
        assert!(play_one(c, &mut steps));
        assert!(c.get("/api/state").1.get("unsaved").is_none());
    });
    assert_eq!(std::fs::read_to_string(&log).unwrap(), lines.join("\n") + "\n");
}

/// Bytes sent raw on a connection of their own; what came back (empty where nothing did before
/// the connection closed or 5 s passed).
fn raw(port: u16, bytes: &[u8]) -> String {
    use std::io::{Read, Write};
    let mut s = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
    s.set_read_timeout(Some(std::time::Duration::from_secs(5))).unwrap();
    let _ = s.write_all(bytes);
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// No connection ends or freezes the game, token or none (found by a review: a `Content-Length`
/// of 2^64-1 without the token crashed the server, a request that stalled froze it for every
/// other client, a head that never ended grew without bound, idle connections each held a
/// thread until the server stopped accepting): each is answered with its status or times out,
/// and the page's requests are answered meanwhile.
#[test]
fn hostile_connections_neither_end_nor_freeze_the_game() {
    let setup = setup(&fixtures().into_iter().find(|p| p.ends_with("ratings.oc")).unwrap());
    let mut session = Session::new(&setup, &Options { players: [true, false], ai: "greedy".into(), seed: 1 }).unwrap();
    serve(&mut session, None, |c| {
        let port = c.port;
        let answered = |c: &Client| assert_eq!(c.get("/api/state").0, 200);
        let status = |reply: &str| reply.split_whitespace().nth(1).unwrap_or("").to_string();
        // Lengths past any body: refused, not read, and the server goes on.
        let huge = raw(port, b"GET / HTTP/1.1\r\nHost: x\r\nContent-Length: 18446744073709551615\r\n\r\n");
        assert_eq!(status(&huge), "413", "{huge}");
        let big = format!("POST /api/move HTTP/1.1\r\nContent-Length: {}\r\n\r\n", oc_play::serve::MAX_BODY + 1);
        assert_eq!(status(&raw(port, big.as_bytes())), "413");
        answered(c);
        // A head that never ends: refused at its bound.
        let long = format!("GET / HTTP/1.1\r\nX: {}", "a".repeat(100_000));
        assert_eq!(status(&raw(port, long.as_bytes())), "431");
        // A request that stalls does not hold up the page's.
        let mut stalled = std::net::TcpStream::connect(("127.0.0.1", port)).unwrap();
        std::io::Write::write_all(&mut stalled, b"POST /api/move HTTP/1.1\r\nContent-Length: 5000\r\n\r\nab").unwrap();
        let started = std::time::Instant::now();
        answered(c);
        assert!(started.elapsed() < std::time::Duration::from_secs(3), "{:?}", started.elapsed());
        // Connections past the most at once wait their turn; once idle ones go, the page is
        // answered.
        let idle: Vec<_> = (0..64).map(|_| std::net::TcpStream::connect(("127.0.0.1", port)).unwrap()).collect();
        std::thread::sleep(std::time::Duration::from_millis(300));
        drop(idle);
        drop(stalled);
        let started = std::time::Instant::now();
        answered(c);
        assert!(started.elapsed() < std::time::Duration::from_secs(5), "{:?}", started.elapsed());
        // A name nothing in the game has is refused before it is kept (names are interned for
        // the process: each new one grew the server for good).
        let (_, state) = c.get("/api/state");
        let version = state["version"].as_u64().unwrap();
        let fresh = format!("NoSuchItem{}", "x".repeat(60_000));
        for body in
            [json!({ "version": version, "unit": 0, "act": { "use": { "item": fresh } } }), json!({ "unit": 0, "equip": fresh })]
        {
            let path = if body.get("act").is_some() { "/api/act" } else { "/api/choices" };
            let (code, v) = c.post(path, body);
            assert_eq!(code, 400, "{v}");
            assert!(v["refused"]["message"].as_str().unwrap().contains("nothing in this game is named `NoSuchItemxxx"), "{v}");
        }
        assert!(oc_model::Atom::existing(&fresh).is_none(), "the name was kept");
        // Chunked bodies, garbage: refused.
        assert_eq!(status(&raw(port, b"POST /api/move HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")), "411");
        assert_eq!(status(&raw(port, b"\x00\x01garbage\r\n\r\n")), "400");
        answered(c);
    });
}

/// Under fog an attack on an enemy the side does not see is refused as one on no unit at all
/// (a review read the hidden units' names off the engine's "cannot attack Ross: its side does
/// not see it", against "no such unit" past the last).
#[test]
fn an_attack_on_a_hidden_enemy_is_refused_as_one_on_no_unit() {
    let setup = setup(&fixtures().into_iter().find(|p| p.ends_with("fog.oc")).unwrap());
    let mut session = Session::new(&setup, &Options { players: [true, false], ai: "greedy".into(), seed: 1 }).unwrap();
    let b = session.battle();
    let viewer = session.viewer();
    let hidden = b.units.iter().position(|u| u.side != viewer && !b.sight(viewer).sees(u.pos)).expect("an enemy out of sight");
    let unit = b.may_act(viewer).first().copied().expect("a unit to act");
    let none = b.units.len() + 3;
    let version = session.version();
    let said = |target: usize, session: &mut Session| {
        let act = oc_engine::battle::Act::Attack { target };
        let d = session.act(version, unit, None, act).expect_err("refused");
        (d.code.clone(), d.message.replace(&target.to_string(), "N"))
    };
    let (hidden_said, none_said) = (said(hidden, &mut session), said(none, &mut session));
    assert_eq!(hidden_said, none_said);
    let name = &session.battle().units[hidden].name;
    assert!(!hidden_said.1.contains(name.as_str()), "{hidden_said:?}");
}

/// An item that acts on its user takes no other unit: a use naming an enemy is refused (a
/// review found a Vulnerary used "on" an enemy played on the user, the enemy written in the
/// log).
#[test]
fn a_use_on_its_user_takes_no_other_target() {
    let dir = tempfile::tempdir().unwrap();
    let fixtures_dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/play");
    std::fs::copy(fixtures_dir.join("duel.map.toml"), dir.path().join("duel.map.toml")).unwrap();
    let rules = std::fs::read_to_string(fixtures_dir.join("ratings.oc")).unwrap();
    let rules = rules.replace("unit Garcia: Fighter { items IronAxe }", "unit Garcia: Fighter { items IronAxe, Vulnerary }");
    assert!(rules.contains("Vulnerary"));
    std::fs::write(dir.path().join("duel.oc"), rules).unwrap();
    let setup = setup(&dir.path().join("duel.oc"));
    let mut session = Session::new(&setup, &Options { players: [true, false], ai: "greedy".into(), seed: 1 }).unwrap();
    let b = session.battle();
    let garcia = b.units.iter().position(|u| u.name == "Garcia").unwrap();
    let enemy = b.units.iter().position(|u| u.side != b.units[garcia].side).unwrap();
    let version = session.version();
    let item = oc_engine::Atom::new("Vulnerary");
    let used = |target| oc_engine::battle::Act::Use { item, target, tile: None };
    let d = session.act(version, garcia, None, used(Some(enemy))).expect_err("refused");
    assert_eq!(d.code, "oc::battle::target", "{d:?}");
    assert!(d.message.contains("acts on its user"), "{d:?}");
    assert_eq!(session.version(), version, "nothing was played");
    // On itself, or with no target: played.
    session.act(version, garcia, None, used(Some(garcia))).unwrap();
}

/// Plays the player's turns (each ending its first unit's turn where it stands) until `find`
/// finds `what` in the game as it stands, at most 40 turns: what it found.
fn first_turn_where<T>(session: &mut Session, what: &str, mut find: impl FnMut(&mut Session) -> Option<T>) -> T {
    for _ in 0..40 {
        if let Some(found) = find(session) {
            return found;
        }
        let unit = session.battle().may_act(session.viewer()).first().copied().expect("a unit to act");
        session.end(session.version(), unit).unwrap();
        assert!(!session.over(), "the battle ended before {what}");
    }
    panic!("{what}: not in 40 turns");
}

/// Under fog, an enemy a unit sees only once its staged move is made is a target the page lists
/// (`choices`, as the engine takes an attack: within the unit's own vision from there), and its
/// forecast and the attack are given, not refused as on "no unit its side sees" (a review found
/// the page offering the attack and the server refusing it: fog.oc, seed 1, the defender's Lute).
#[test]
fn an_enemy_seen_once_the_staged_move_is_made_may_be_attacked() {
    let setup = setup(&fixtures().into_iter().find(|p| p.ends_with("fog.oc")).unwrap());
    let mut session = Session::new(&setup, &Options { players: [false, true], ai: "greedy".into(), seed: 1 }).unwrap();
    let (unit, target) = first_turn_where(&mut session, "an enemy came into a staged move's sight", |session| {
        let b = session.battle();
        let viewer = session.viewer();
        let sight = b.sight(viewer);
        let unseen: Vec<usize> =
            (0..b.units.len()).filter(|k| b.units[*k].side != viewer && !sight.sees(b.units[*k].pos)).collect();
        let mut tries = Vec::new();
        for unit in b.may_act(viewer) {
            let mut reach: Vec<(i64, i64)> = b.reachable_as_seen(unit, &sight).unwrap().into_keys().collect();
            reach.sort();
            tries.extend(reach.into_iter().map(|t| (unit, t)));
        }
        for (unit, to) in tries {
            if session.stage(session.version(), unit, to).is_err() {
                continue;
            }
            let listed = session.choices(unit, None).unwrap().targets;
            if let Some(target) = listed.into_iter().find(|k| unseen.contains(k)) {
                return Some((unit, target));
            }
            session.undo(session.version()).unwrap();
        }
        None
    });
    session.forecast(unit, target, None).expect("the forecast of a listed target");
    let turns = session.records().len();
    let attack = oc_engine::battle::Act::Attack { target };
    session.act(session.version(), unit, None, attack).expect("the attack on a listed target");
    assert!(session.records().len() > turns, "its turn was played");
}

/// Under fog a move its side saw open, onto or through an enemy out of sight, is an ambush: the
/// unit stops short on the way and its turn ends there. (A review probed tiles with moves the
/// page offered: "cannot reach (17, 8)" told where a hidden enemy stood, and undo made it free.)
#[test]
fn a_move_into_an_unseen_enemy_stops_short_and_ends_the_turn() {
    let setup = setup(&fixtures().into_iter().find(|p| p.ends_with("fog.oc")).unwrap());
    let mut session = Session::new(&setup, &Options { players: [true, false], ai: "greedy".into(), seed: 1 }).unwrap();
    // One of the player's units sees, as open, a tile an unseen enemy stands on.
    let what = "a unit saw open a tile an enemy out of sight stands on";
    let (unit, at) = first_turn_where(&mut session, what, |session| {
        let b = session.battle();
        let viewer = session.viewer();
        let sight = b.sight(viewer);
        b.may_act(viewer).into_iter().find_map(|unit| {
            let seen = b.reachable_as_seen(unit, &sight).ok()?;
            let hidden =
                b.units.iter().find(|e| e.side != viewer && e.hp > 0 && !sight.sees(e.pos) && seen.contains_key(&e.pos))?;
            Some((unit, hidden.pos))
        })
    });
    let from = session.battle().units[unit].pos;
    session.stage(session.version(), unit, at).expect("the tile is offered");
    let turns = session.records().len();
    session.act(session.version(), unit, None, oc_engine::battle::Act::Wait).expect("an ambush, not a refusal");
    let b = session.battle();
    let stood = b.units[unit].pos;
    assert_ne!(stood, at, "it did not walk onto the enemy");
    assert!(dist(stood, at) <= dist(from, at), "it stopped on the way: {from:?} -> {stood:?} toward {at:?}");
    assert!(session.records().len() > turns, "its turn was played");
    assert!(session.undo(session.version()).is_err(), "nothing to take back: the turn is over");
}

/// "End turn" after a move ends the turn where the move took the unit (it stayed where it was,
/// the move thrown away: a review's finding); Undo is what takes a move back.
#[test]
fn end_turn_after_a_move_keeps_the_move() {
    let setup = setup(&fixtures().into_iter().find(|p| p.ends_with("ratings.oc")).unwrap());
    let mut session = Session::new(&setup, &Options { players: [true, false], ai: "greedy".into(), seed: 1 }).unwrap();
    let viewer = session.viewer();
    let unit = session.battle().may_act(viewer).first().copied().expect("a unit to act");
    let from = session.battle().units[unit].pos;
    let to = session.reach(unit).into_iter().map(|(t, _)| t).find(|t| *t != from).expect("somewhere to go");
    session.stage(session.version(), unit, to).unwrap();
    session.end(session.version(), unit).unwrap();
    let b = session.battle();
    assert_eq!(b.units[unit].pos, to, "the move was kept");
    assert!(!b.may_act(viewer).contains(&unit) || b.round > 1, "its turn is over");
}

/// Every target the page is offered is one the rules let the unit attack: playing the offered
/// attacks turn after turn, in every ruleset's fixture and in the shipped scenarios of seeds 002
/// and 004 (their steps cost stamina, or a ruleset's `step_allowed` refuses them), is never
/// refused. (A review was offered attacks the engine refused: a step the ruleset did not allow,
/// a cost the unit could not pay.)
#[test]
fn every_offered_target_may_be_attacked() {
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut files = fixtures();
    files.extend(["scenarios/stamina-caer-pelyn.oc", "scenarios/skirmish-taizel.oc"].map(|f| repo.join(f)));
    let mut attacked = 0;
    for path in files {
        let setup = setup(&path);
        let mut session = Session::new(&setup, &Options { players: [true, true], ai: "greedy".into(), seed: 3 }).unwrap();
        for _ in 0..60 {
            if session.over() {
                break;
            }
            let viewer = session.viewer();
            let units = session.battle().may_act(viewer);
            let Some(&unit) = units.first() else { break };
            let choices = session.choices(unit, None).unwrap();
            let version = session.version();
            match choices.targets.first() {
                Some(&target) => {
                    let act = oc_engine::battle::Act::Attack { target };
                    if let Err(d) = session.act(version, unit, None, act) {
                        panic!("{}: an offered attack was refused: {d:?}", path.display());
                    }
                    attacked += 1;
                }
                None => {
                    // Toward the enemy: the first tile of its reach nearest one, then wait.
                    let b = session.battle();
                    let enemy = b.units.iter().filter(|e| e.side != viewer && e.hp > 0).map(|e| e.pos).next();
                    let to = enemy.and_then(|e| session.reach(unit).into_iter().map(|(t, _)| t).min_by_key(|t| dist(*t, e)));
                    if let Some(to) = to.filter(|t| *t != b.units[unit].pos) {
                        let _ = session.stage(version, unit, to);
                    }
                    if session.end(session.version(), unit).is_err() {
                        let _ = session.undo(session.version());
                        session.end(session.version(), unit).unwrap();
                    }
                }
            }
        }
    }
    assert!(attacked > 20, "only {attacked} attacks were tried");
}
