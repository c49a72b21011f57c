//! Seeds 002, 003 and 004 as whole battles: each built-in ruleset's scenario played by the AI on
//! both sides, replayed byte for byte, and simulated; and seed 004's initiative ("the initiative of
//! a unit is the total of maneuver points it rolled ... A rolled initiative of 0 still give 1
//! action") counted over many rounds.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::Disk;
use oc_compiler::Workspace;
use oc_engine::battle::{auto_deploy, Battle, Record};
use oc_engine::Engine;
use oc_model::SideId;

fn oc(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(dir).env("NO_COLOR", "1").output().expect("oc runs")
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn each_system_plays_replays_and_simulates() {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-seed-systems-{}", std::process::id())));
    // (scenario, a log line only that system writes)
    let systems = [
        ("scenarios/stamina-caer-pelyn.oc", "\"resource\":\"stamina\""),
        ("scenarios/battlestorm-narube.oc", "\"event\":\"rolloff\""),
        ("scenarios/skirmish-taizel.oc", "\"event\":\"order\""),
    ];
    for (scenario, marker) in systems {
        let log = dir.join("battle.jsonl");
        let log_arg = log.to_string_lossy().into_owned();
        let out = oc(&root(), &["battle", scenario, "--seed", "5", "--log", &log_arg]);
        assert!(out.status.success(), "{scenario}: {}", String::from_utf8_lossy(&out.stderr));
        let text = std::fs::read_to_string(&log).unwrap();
        assert!(text.contains(marker), "{scenario}: no {marker} in the log");
        assert!(text.contains("\"event\":\"end\""), "{scenario}: the battle ended");
        let out = oc(&root(), &["replay", &log_arg, "--project", "."]);
        // The verdict goes to standard error, like every report of `oc replay`.
        let said = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success() && said.contains("identical"), "{scenario}: {said}");
        let out = oc(&root(), &["simulate", scenario, "--games", "3", "--seed", "2", "--format", "json"]);
        assert!(out.status.success(), "{scenario}: {}", String::from_utf8_lossy(&out.stderr));
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(report["games"], 3, "{report}");
        let wins = report["attacker_wins"].as_u64().unwrap() + report["defender_wins"].as_u64().unwrap();
        assert_eq!(wins + report["draws"].as_u64().unwrap(), 3, "{report}");
        assert!(report["attacker_win_rate"].as_f64().is_some(), "{report}");
    }
    // Stamina: an activation is several steps (the seed's "Move ... up to three times", attacks
    // while Stamina lasts): some unit takes two steps in a row.
    let log = dir.join("battle.jsonl");
    let out = oc(&root(), &["battle", "scenarios/stamina-caer-pelyn.oc", "--seed", "5", "--log", &log.to_string_lossy()]);
    assert!(out.status.success());
    let units: Vec<u64> = std::fs::read_to_string(&log)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["event"] == "turn")
        .filter_map(|v| v["turn"]["unit"].as_u64())
        .collect();
    assert!(units.windows(2).any(|w| w[0] == w[1]), "no unit took two steps: {units:?}");
}

/// Seed 004 in whole battles of The Town Square, as issue 39 asks of them: a charge is answered
/// ("a immediate skirmish attack" back), a standing attack is not, a unit that leaves a zone
/// takes a free attack, a shooter in a threat zone holds its shot ("Missiles cannot be fired
/// from to a target in the treat zone of the source"), and a player's luck buys a reroll.
#[test]
fn skirmish_battles_show_seed_004s_rules_in_their_logs() {
    let mut seen = std::collections::BTreeMap::<&str, u32>::new();
    for seed in 1..=3 {
        let out = oc(&root(), &["battle", "scenarios/skirmish-taizel.oc", "--seed", &seed.to_string()]);
        assert!(out.status.success(), "seed {seed}: {}", String::from_utf8_lossy(&out.stderr));
        for line in String::from_utf8_lossy(&out.stdout).lines() {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            if v["event"] != "turn" {
                continue;
            }
            let note = v["note"].as_str().unwrap_or("");
            let moved = !v["turn"]["to"].is_null();
            // The turn's own attack: what follows its free attacks, if any.
            let own = note.split("; ").find(|p| p.contains(" attacks ")).unwrap_or("");
            let mut count = |what| *seen.entry(what).or_default() += 1;
            if v["turn"]["act"]["attack"].is_object() && !own.is_empty() {
                match (moved, own.contains(", counter (")) {
                    (true, true) => count("a charge answered"),
                    (false, false) => count("a standing attack unanswered"),
                    (false, true) => panic!("seed {seed}: a standing attack was answered: {note}"),
                    (true, false) => {}
                }
            }
            if note.contains("free attack by ") {
                count("a free attack for leaving a zone");
            }
            if note.contains("holds its shot at ") {
                count("a refused shot from a zone");
            }
            if note.contains("(reroll: Luck)") {
                count("luck spent on a reroll");
            }
        }
    }
    for what in [
        "a charge answered",
        "a standing attack unanswered",
        "a free attack for leaving a zone",
        "a refused shot from a zone",
        "luck spent on a reroll",
    ] {
        assert!(seen.get(what).is_some_and(|n| *n > 0), "no {what} in three battles: {seen:?}");
    }
}

#[test]
fn skirmish_initiative_is_the_maneuver_points_rolled_at_least_one() {
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut Disk(root()), &["scenarios/skirmish-taizel.oc".to_string()]);
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let rules = c.rules.unwrap();
    let s = rules.scenarios[0].clone();
    let text = std::fs::read_to_string(root().join(&s.map)).unwrap();
    let (map, diags) = oc_atlas::parse(oc_diag::FileId(0), &text);
    assert!(diags.is_empty(), "{diags:?}");
    let mut map = map.unwrap();
    map.resolve(&rules);
    let map = map.battle_map();
    let engine = Engine::new(rules).unwrap();
    let armies = [SideId::Attacker, SideId::Defender].map(|side| engine.rules.armies.iter().find(|a| a.side == side).unwrap());
    let deploy = [SideId::Attacker, SideId::Defender]
        .map(|side| auto_deploy(&engine, &s, &map, side, armies[usize::from(side == SideId::Defender)].units.len()));
    // Health dice per unit, in battle order (attackers first): the dice a unit rolls for its
    // maneuver points.
    let dice: Vec<usize> = armies
        .iter()
        .flat_map(|a| &a.units)
        .map(|u| match u.class.as_str() {
            // "4 points unit are considered LVL 10+": four dice.
            "Lord" | "Dragon" => 4,
            "Champion" => 3,
            "Militia" | "Slinger" => 1,
            _ => 2,
        })
        .collect();
    // counts[n dice][initiative]
    let mut counts = [[0u64; 6]; 5];
    let battles = 20_000u64;
    for seed in 0..battles {
        let b = Battle::new(&engine, &s, &map, armies, [&deploy[0], &deploy[1]], seed).unwrap();
        let mut refilled = None;
        for r in &b.log {
            match r {
                Record::Refill { resource, values } if resource == "initiative" => refilled = Some(values.clone()),
                // "The combat round starts with the units with the highest maneuver total."
                Record::Order { units } => {
                    let v = refilled.clone().unwrap();
                    let of = |i: &usize| v.iter().find(|(k, _)| k == i).unwrap().1;
                    assert!(units.windows(2).all(|w| of(&w[0]) >= of(&w[1])), "{units:?} by {v:?}");
                }
                _ => {}
            }
        }
        for (i, amount) in refilled.unwrap() {
            assert!(amount >= 1, "a rolled 0 still gives one action");
            counts[dice[i]][amount as usize] += 1;
        }
    }
    // A die shows the maneuver icon on one face of six: k of n dice ~ Binomial(n, 1/6), and the
    // initiative is max(1, k).
    let binom = |n: u32, k: u32| {
        let c = (0..k).fold(1.0, |c, i| c * f64::from(n - i) / f64::from(i + 1));
        c * (1.0f64 / 6.0).powi(k as i32) * (5.0f64 / 6.0).powi((n - k) as i32)
    };
    for n in 1..=4u32 {
        let total: u64 = counts[n as usize].iter().sum();
        assert!(total > 10_000, "{n} dice: {total} samples");
        for init in 1..=n {
            let exact = if init == 1 { binom(n, 0) + binom(n, 1) } else { binom(n, init) };
            let seen = counts[n as usize][init as usize] as f64 / total as f64;
            assert!((seen - exact).abs() < 0.003, "{n} dice, initiative {init}: {seen} vs {exact}");
        }
    }
}

const FIELD: &str = r#"name = "Field"
width = 6
height = 3
rows = ["......", "......", "......"]
[[regions]]
name = "west"
kind = "deployment"
side = "attacker"
rect = [0, 0, 2, 3]
[[regions]]
name = "east"
kind = "deployment"
side = "defender"
rect = [4, 0, 2, 3]
"#;

/// The rules and map of a scenario on `FIELD` (its text names `field.map.toml`).
fn field(scenario: &str) -> (Engine, oc_model::BattleMap) {
    let mut files = std::collections::BTreeMap::new();
    files.insert("field.oc".to_string(), scenario.to_string());
    files.insert("field.map.toml".to_string(), FIELD.to_string());
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut oc_compiler::MemoryHost(files), &["field.oc".to_string()]);
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let rules = c.rules.unwrap();
    let (map, _) = oc_atlas::parse(oc_diag::FileId(0), FIELD);
    let mut map = map.unwrap();
    map.resolve(&rules);
    (Engine::new(rules).unwrap(), map.battle_map())
}

/// Seed 004: "The threat zone of a target is all squares in front and the 2 squares beside the
/// target"; "Move up to 5 squares, each time a treat zone is evaded, the opponent gets an
/// immediate skirmish attack targeting the mover".
#[test]
fn skirmish_threat_zones_give_free_attacks_to_units_left_behind() {
    use oc_engine::battle::Turn;
    let scenario = r#"import "std:skirmish"
scenario Field { map "field.map.toml" rounds 9 then draw
    attacker { zone "west" war_chest 999 units 1..2 win rout all }
    defender { zone "east" war_chest 999 units 1..2 win rout all } }
army A for Field attacker { unit Ada: Veteran { items Sword } }
army D for Field defender { unit Dov: Veteran { items Sword } }
"#;
    let (engine, map) = field(scenario);
    let s = engine.rules.scenarios[0].clone();
    let armies = [&engine.rules.armies[0], &engine.rules.armies[1]];
    let mut b = Battle::new(&engine, &s, &map, armies, [&[(1, 1)], &[(4, 1)]], 7).unwrap();
    // Dov faces the attackers' zone (west): its zone is the column x = 3 and the squares above
    // and below it.
    let mut zone = b.threatened_by(1);
    zone.sort();
    assert_eq!(zone, vec![(3, 0), (3, 1), (3, 2), (4, 0), (4, 2)]);
    // Ada's activations: first into the zone (no attack), then out of it (a free attack).
    let mut plan = vec![(3, 1), (2, 1)].into_iter();
    let mut free = 0;
    loop {
        let to = match b.may_act(b.to_act).first().copied() {
            Some(0) => match plan.next() {
                Some(to) => to,
                None => break,
            },
            Some(k) => {
                b.turn(Turn { unit: k, ..Default::default() }).unwrap();
                continue;
            }
            None => break,
        };
        let before = b.log.len();
        b.turn(Turn { unit: 0, to: Some(to), ..Default::default() }).unwrap();
        let notes: Vec<String> = b.log[before..]
            .iter()
            .filter_map(|r| if let Record::Turn { note, .. } = r { Some(note.clone()) } else { None })
            .collect();
        let attacked = notes.iter().any(|n| n.contains("free attack by Dov"));
        if to == (3, 1) {
            assert!(!attacked, "moving into a zone is free: {notes:?}");
        } else {
            assert!(attacked, "leaving Dov's zone: {notes:?}");
            free += 1;
        }
        // An activation may have more steps (initiative above 1): end it.
        if b.active.is_some() {
            b.turn(Turn { unit: 0, ..Default::default() }).unwrap();
        }
        if b.outcome.is_some() {
            break;
        }
    }
    assert_eq!(free, 1);
}

/// Seed 002's reactions "chosen by the reacting unit's controller": forecasts take the best unless
/// told which (`--reaction NAME` or `none`); a name the ruleset lacks is an error naming the others.
#[test]
fn forecasts_take_a_stated_reaction() {
    let run = |reaction: &str| {
        let out = oc(
            &root(),
            &[
                "forecast",
                "--ruleset",
                "stamina",
                "--attacker",
                "Warrior:Greatsword",
                "--defender",
                "Knight:Longsword",
                "--defender-accessory",
                "RoundShield",
                "--reaction",
                reaction,
                "--format",
                "json",
            ],
        );
        (out.status.code(), String::from_utf8_lossy(&out.stdout).into_owned(), String::from_utf8_lossy(&out.stderr).into_owned())
    };
    let taken =
        |json: &str| serde_json::from_str::<serde_json::Value>(json).unwrap()["defender_expected_damage_taken"].as_f64().unwrap();
    let (code, none, _) = run("none");
    assert_eq!(code, Some(0));
    let (code, block, _) = run("Block");
    assert_eq!(code, Some(0));
    assert!(taken(&block) < taken(&none), "Block takes off wounds: {block} vs {none}");
    let (code, _, err) = run("Dodge");
    assert_eq!(code, Some(2));
    assert!(err.contains("Evade, Block, Parry"), "{err}");
}

/// Seed 002: reactions "generally cost Stamina": what a battle's exchange spends on them stays
/// spent (the exchange's resources come back to the units).
#[test]
fn stamina_reactions_are_paid_for_in_battles() {
    use oc_engine::battle::{Act, Turn};
    let scenario = r#"import "std:stamina"
scenario Field { map "field.map.toml" rounds 9 then draw
    attacker { zone "west" war_chest 999 units 1..2 win rout all }
    defender { zone "east" war_chest 999 units 1..2 win rout all } }
army A for Field attacker { unit Ada: Warrior { items Greatsword } }
army D for Field defender { unit Dov: Knight { items Longsword, RoundShield } }
"#;
    let (engine, map) = field(scenario);
    let s = engine.rules.scenarios[0].clone();
    let armies = [&engine.rules.armies[0], &engine.rules.armies[1]];
    let cost = |r: &str| match r {
        "Parry" => 2,
        _ => 1,
    };
    let mut reacted = 0;
    for seed in 0..20 {
        let mut b = Battle::new(&engine, &s, &map, armies, [&[(1, 1)], &[(4, 1)]], seed).unwrap();
        assert_eq!(b.resource(1, "stamina"), Some(5));
        // Move 1 and a two-handed attack 2: "Basic attacks cost ... 2 Stamina if it's a two-handed weapon".
        b.turn(Turn { unit: 0, to: Some((3, 1)), act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
        assert_eq!(b.resource(0, "stamina").map(|s| s <= 2), Some(true), "the step cost 3 (and any reaction more)");
        let note =
            b.log.iter().rev().find_map(|r| if let Record::Turn { note, .. } = r { Some(note.clone()) } else { None }).unwrap();
        // "Ada attacks... Dov: attack 5 hit (Block), riposte 2 miss (Evade)": the attack's reactions
        // are Dov's, the riposte's Ada's.
        let mut spent = [0, 0];
        for strike in note.split(", ") {
            let who = if strike.contains("riposte") { 0 } else { 1 };
            // Warrior's Prowess, a reaction to the striker's own roll: 1 Stamina of the striker's.
            let strike = match strike.split_once(" (reroll: ") {
                Some((before, _)) => {
                    spent[1 - who] += 1;
                    before
                }
                None => strike,
            };
            if let Some((_, r)) = strike.rsplit_once('(') {
                // "You can perform as many reactions as you can afford": "(Block and Parry)".
                spent[who] += r.trim_end_matches(')').split(" and ").map(cost).sum::<i64>();
                reacted += 1;
            }
        }
        assert_eq!(b.resource(1, "stamina"), Some(5 - spent[1]), "{note}");
        assert_eq!(b.resource(0, "stamina"), Some(5 - 3 - spent[0]), "{note}");
    }
    assert!(reacted > 0, "some strike met a reaction");
}

/// `oc forecast` on seed 004 states how an attack is made: a charge (`--moved`) and how hidden
/// the target is (`--cover`) and shows the Health Dice by their icons; `oc duel` tells the
/// rolled icons in words.
#[test]
fn oc_forecast_states_a_charge_and_cover_and_oc_duel_tells_icons_in_words() {
    let forecast = |args: &[&str]| -> serde_json::Value {
        let mut all = vec!["forecast", "--ruleset", "skirmish", "--format", "json"];
        all.extend_from_slice(args);
        let out = oc(&root(), &all);
        assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
        serde_json::from_slice(&out.stdout).unwrap()
    };
    // "Charge: Move up to 4 squares and make a skirmish attack. If the target is still alive it
    // gets a immediate skirmish attack targeting the" charger.
    let melee = ["--attacker", "Militia:Spear", "--defender", "Militia:Spear"];
    assert_eq!(forecast(&melee)["defender"]["strikes"], 0);
    assert_eq!(forecast(&[&melee[..], &["--moved"]].concat())["defender"]["strikes"], 1);
    // "If a source fire at someone but it's half hidden ... it must make a medium maneuver check":
    // 11 of 36 rolls of two dice show a maneuver point.
    let shot = ["--attacker", "Bowman:Longbow", "--defender", "Militia:Spear", "--distance", "4"];
    let open = forecast(&shot)["attacker"]["hit"].as_f64().unwrap();
    let half = forecast(&[&shot[..], &["--cover", "1"]].concat())["attacker"]["hit"].as_f64().unwrap();
    assert!((half - open * 11.0 / 36.0).abs() < 1e-9, "{open} {half}");
    // The Health Dice as a player reads them, in columns that keep apart (their face values
    // were printed raw, the two sides' run together).
    let out = oc(&root(), &["forecast", "--ruleset", "skirmish", "--attacker", "Lord", "--defender", "Veteran"]);
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(table.contains("  4d{save, maneuver, melee, missile, magic, id}  2d{save, maneuver, melee"), "{table}");
    assert!(table.contains("  4d{maneuver=1, others 0}") && !table.contains("=10000"), "{table}");
    let out =
        oc(&root(), &["forecast", "--ruleset", "skirmish", "--attacker", "Bowman", "--defender", "Militia", "--cover", "3"]);
    assert_eq!(out.status.code(), Some(2), "cover is 0, 1 or 2");
    let out = oc(
        &root(),
        &["duel", "--ruleset", "skirmish", "--attacker", "Veteran:Sword", "--defender", "Militia:Spear", "--seed", "3"],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("rolls (") && text.contains(" against "), "{text}");
}
