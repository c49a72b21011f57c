//! Fog of war (the issue: "a side sees only tiles within its units' vision; Torch(X) reveals X
//! spaces around the user; the AI decides only from what its side sees; the log records what
//! each side saw so replays stay byte-identical"). Seed 000, Special Actions: "Torch(X) |
//! Reveal X spaces around the User in Fog of War." The rules are the standard library's; the
//! scenarios are written in the DSL, one with `fog vision 1` and the same without fog.

#[path = "common/dusk.rs"]
mod dusk;

use std::path::PathBuf;

use oc_compiler::Workspace;
use oc_engine::ai;
use oc_engine::battle::{self, distance, Act, Battle, Record, Turn};
use oc_engine::Engine;
use oc_model::{BattleMap, Rules, SideId, Verb};

/// `Night` has fog with a vision of 1; `Day` is the same scenario without fog.
const SCENARIOS: &str = r#"
scenario Night {
    map "dusk.map.toml"
    fog vision 1
    attacker { zone "attacker-zone" war_chest 99999 units 1..4 win rout all }
    defender { zone "defender-zone" war_chest 99999 units 1..4 win rout all }
}
scenario Day {
    map "dusk.map.toml"
    attacker { zone "attacker-zone" war_chest 99999 units 1..4 win rout all }
    defender { zone "defender-zone" war_chest 99999 units 1..4 win rout all }
}
"#;

/// The rules with one attacker unit and one defender unit per scenario (DSL text: `CLASS {
/// items ... }`), and the map.
fn setup(attacker: &str, defender: &str) -> (Rules, BattleMap) {
    let mut armies = String::new();
    for s in ["Night", "Day"] {
        armies.push_str(&format!(
            "army A{s} for {s} attacker {{ unit Ross: {attacker} }}\narmy D{s} for {s} defender {{ unit Bazba: {defender} }}\n"
        ));
    }
    dusk::compile(&format!("{SCENARIOS}\n{armies}"))
}

fn battle<'e>(engine: &'e Engine, map: &BattleMap, scenario: &str, at: [(i64, i64); 2]) -> Battle<'e> {
    let s = engine.rules.scenario(scenario).unwrap();
    let a = engine.rules.army(&format!("A{scenario}")).unwrap();
    let d = engine.rules.army(&format!("D{scenario}")).unwrap();
    Battle::new(engine, s, map, [a, d], [&[at[0]], &[at[1]]], 5).unwrap()
}

/// A `seen` record's enemies spotted (with their tiles) and lost.
type Sighting = (Vec<(usize, (i64, i64))>, Vec<usize>);

fn seen(b: &Battle, side: SideId) -> Vec<Sighting> {
    b.log
        .iter()
        .filter_map(|r| match r {
            Record::Seen { side: s, spotted, lost, .. } if *s == side => Some((spotted.clone(), lost.clone())),
            _ => None,
        })
        .collect()
}

const ATTACKER: usize = 0;
const DEFENDER: usize = 1;

#[test]
fn the_ai_attacks_only_an_enemy_its_side_sees() {
    // (scenario, where the defender stands, whether the attacker's AI attacks it). A Myrmidon
    // moves 5 and strikes at 1: a foe 5 tiles off is in reach; with vision 1 it is in the dark.
    let cases = [("Day", (6, 1), true), ("Night", (6, 1), false), ("Night", (2, 1), true), ("Day", (2, 1), true)];
    let (rules, map) = setup("Myrmidon { items IronSword }", "Fighter { items IronAxe }");
    let engine = Engine::new(rules).unwrap();
    // Every AI: each decides from its side's view.
    for ((scenario, foe, attacks), name) in cases.into_iter().flat_map(|c| ai::names().into_iter().map(move |n| (c, n))) {
        let fresh = || ai::by_name(name).unwrap();
        let b = battle(&engine, &map, scenario, [(1, 1), foe]);
        let turn = fresh().choose(&b).unwrap();
        let attacked = matches!(turn.act, Act::Attack { target: DEFENDER });
        if !attacks {
            // It neither evaluates nor walks toward a foe it does not see: wherever the foe
            // stands in the dark, the AI plays the same turn.
            for elsewhere in [(8, 2), (7, 0), (4, 2)] {
                let other = battle(&engine, &map, scenario, [(1, 1), elsewhere]);
                assert!(!other.sees(SideId::Attacker, elsewhere));
                assert_eq!(fresh().choose(&other).unwrap(), turn, "{name}: {scenario}, foe at {elsewhere:?}");
            }
        }
        assert_eq!(attacked, attacks, "{name}: {scenario}, foe at {foe:?}: {turn:?}");
        // What the attacker saw at the start, as its `seen` record says.
        let spotted = seen(&b, SideId::Attacker).first().map(|(s, _)| s.clone()).unwrap_or_default();
        if scenario == "Night" {
            assert_eq!(spotted.iter().any(|(k, _)| *k == DEFENDER), attacks, "{scenario} {foe:?}: {:?}", b.log);
        } else {
            assert!(seen(&b, SideId::Attacker).is_empty(), "no fog, no seen records");
        }
    }
}

#[test]
fn an_enemy_coming_into_sight_is_then_attacked() {
    let (rules, map) = setup("Myrmidon { items IronSword }", "Fighter { items IronAxe }");
    let engine = Engine::new(rules).unwrap();
    for name in ai::names() {
        enemy_coming_into_sight(&engine, &map, name);
    }
}

fn enemy_coming_into_sight(engine: &Engine, map: &BattleMap, name: &str) {
    let mut b = battle(engine, map, "Night", [(1, 1), (6, 1)]);
    let mut ai = ai::by_name(name).unwrap();
    let first = ai.choose(&b).unwrap();
    assert!(!matches!(first.act, Act::Attack { .. }), "{name}: {first:?}");
    assert!(!b.sees(SideId::Attacker, (6, 1)));
    // The attacker holds; the defender walks up next to it: now it is seen.
    b.turn(Turn { unit: ATTACKER, ..Default::default() }).unwrap();
    b.turn(Turn { unit: DEFENDER, to: Some((2, 1)), ..Default::default() }).unwrap();
    assert!(b.sees(SideId::Attacker, (2, 1)));
    assert!(
        seen(&b, SideId::Attacker).iter().any(|(spotted, _)| spotted == &vec![(DEFENDER, (2, 1))]),
        "a seen record spots it where it stands: {:?}",
        b.log
    );
    let second = ai.choose(&b).unwrap();
    assert!(matches!(second.act, Act::Attack { target: DEFENDER }), "{name}: {second:?}");
    b.turn(second).unwrap();
}

#[test]
fn an_attack_on_an_enemy_out_of_sight_is_refused() {
    // An Archer shoots at 2; with vision 1 the foe 2 tiles off is unseen in the night.
    let (rules, map) = setup("Archer { items IronBow }", "Fighter { items IronAxe }");
    let engine = Engine::new(rules).unwrap();
    for (scenario, allowed) in [("Day", true), ("Night", false)] {
        let mut b = battle(&engine, &map, scenario, [(1, 1), (3, 1)]);
        let result = b.turn(Turn { unit: ATTACKER, act: Act::Attack { target: DEFENDER }, ..Default::default() });
        assert_eq!(result.is_ok(), allowed, "{scenario}: {result:?}");
        if let Err(e) = result {
            assert!(e.to_string().contains("does not see"), "{e}");
            assert!(b.log.iter().all(|r| !matches!(r, Record::Turn { .. })), "a refused turn changes nothing");
        }
    }
}

#[test]
fn a_torch_reveals_x_spaces_around_the_user_until_the_round_ends() {
    // The standard library's Torch consumable: `tags Consumable(3), Torch(4)`; the tag's
    // action is `target self reveal(x)`.
    let (rules, map) = setup("Myrmidon { items IronSword, Torch }", "Fighter { items IronAxe }");
    let engine = Engine::new(rules).unwrap();
    let user = (1, 1);
    let mut b = battle(&engine, &map, "Night", [user, (5, 1)]);
    assert!(!b.sees(SideId::Attacker, (5, 1)), "4 tiles off, vision 1");
    b.turn(Turn {
        unit: ATTACKER,
        act: Act::Special { verb: Verb::Reveal, target: None, tile: None, from: None },
        ..Default::default()
    })
    .unwrap();
    // "Reveal X spaces around the User": every tile within 4 of the user, and no other.
    for y in 0..map.height {
        for x in 0..map.width {
            assert_eq!(b.sees(SideId::Attacker, (x, y)), distance(user, (x, y)) <= 4, "({x}, {y})");
        }
    }
    assert!(!b.sees(SideId::Defender, user), "the light is the user's side's, not the enemy's");
    let note = b.log.iter().rev().find_map(|r| if let Record::Turn { note, .. } = r { Some(note.clone()) } else { None });
    assert!(note.unwrap().contains("4 tiles around (1, 1)"));
    assert_eq!(seen(&b, SideId::Attacker).last().unwrap().0, vec![(DEFENDER, (5, 1))]);
    // The light goes out with the round.
    b.turn(Turn { unit: DEFENDER, ..Default::default() }).unwrap();
    assert_eq!(b.round, 2);
    assert!(!b.sees(SideId::Attacker, (5, 1)));
    assert_eq!(seen(&b, SideId::Attacker).last().unwrap().1, vec![DEFENDER], "lost from sight at the new round");
    // Without fog there is nothing to reveal: it is used (a charge spent), logged, and changes nothing.
    let mut day = battle(&engine, &map, "Day", [user, (5, 1)]);
    day.turn(Turn {
        unit: ATTACKER,
        act: Act::Special { verb: Verb::Reveal, target: None, tile: None, from: None },
        ..Default::default()
    })
    .unwrap();
    assert!(day.log.iter().any(|r| matches!(r, Record::Turn { note, .. } if note.contains("nothing to reveal"))));
    assert!(day.log.iter().all(|r| !matches!(r, Record::Seen { .. })));
    assert_eq!(day.units[ATTACKER].spent, vec![(oc_engine::Atom::new("Torch"), 1)]);
}

#[test]
fn the_shipped_fog_scenario_plays_to_an_end_with_the_ai_on_both_sides() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut Disk(root.clone()), &["scenarios/zaha-woods-night.oc".to_string()]);
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let rules = c.rules.unwrap();
    let s = rules.scenarios[0].clone();
    assert_eq!(s.fog, Some(oc_model::Fog { vision: 3 }));
    let text = std::fs::read_to_string(root.join(&s.map)).unwrap();
    let (map, _) = oc_atlas::parse(oc_diag::FileId(0), &text);
    let mut map = map.unwrap();
    map.resolve(&rules);
    let map = map.battle_map();
    let armies = [rules.armies[0].clone(), rules.armies[1].clone()];
    let engine = Engine::new(rules).unwrap();
    for seed in [1, 2] {
        let (result, log) =
            battle::play(&engine, &s, &map, [&armies[0], &armies[1]], seed, &mut ai::Tactician::default()).unwrap();
        assert!(matches!(log.last(), Some(Record::End { .. })), "seed {seed}: {result:?}");
        assert!(result.lost.iter().sum::<u32>() > 0, "seed {seed}: they found each other and fought: {result:?}");
        for side in [SideId::Attacker, SideId::Defender] {
            assert!(
                log.iter().any(|r| matches!(r, Record::Seen { side: s, spotted, .. } if *s == side && !spotted.is_empty())),
                "seed {seed}: the {side:?} saw an enemy"
            );
        }
        let again = battle::play(&engine, &s, &map, [&armies[0], &armies[1]], seed, &mut ai::Tactician::default()).unwrap().1;
        assert_eq!(log, again, "one seed, one log");
    }
}

/// The repository's files, as `oc check` reads them.
struct Disk(PathBuf);

impl oc_compiler::Host for Disk {
    fn read(&mut self, path: &str) -> Result<String, oc_compiler::ReadError> {
        std::fs::read_to_string(self.0.join(path)).map_err(|e| oc_compiler::ReadError::Io(e.to_string()))
    }
}
