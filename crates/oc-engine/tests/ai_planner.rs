//! The planner's search (issue 41: "It searches in every shipped scenario, under fog (deciding
//! only from what its side has seen: sample the unseen, or search over the seen), and with more
//! than 12 units (cheaper playouts, a budget per decision)").

#[path = "common/arena.rs"]
mod arena;
#[path = "common/dusk.rs"]
mod dusk;

use oc_engine::ai::{planner, Planner};
use oc_engine::battle::{distance, Battle, Controller, State};
use oc_engine::Engine;
use oc_model::{BattleMap, SideId};

/// Fog with a vision of 1: the attacker's two units see the tiles beside them.
const NIGHT: &str = r#"
scenario Night {
    map "dusk.map.toml"
    fog vision 1
    attacker { zone "attacker-zone" war_chest 99999 units 1..4 win rout all }
    defender { zone "defender-zone" war_chest 99999 units 1..4 win rout all }
}
army A for Night attacker { unit Ross: Myrmidon { items IronSword } unit Amelia: Fighter { items IronAxe } }
army D for Night defender { unit Bazba: Fighter { items IronAxe } unit Saar: Fighter { items IronAxe } }
"#;

fn night() -> (oc_model::Rules, BattleMap) {
    dusk::compile(NIGHT)
}

/// Under fog the planner searches (plays turns ahead) over the battle as its side has seen it:
/// Bazba stands beside Ross, in sight; Saar stands in the dark, at one tile or another. The
/// planner plays ahead (it did not search under fog before) and plays the same turn, with the
/// same playouts, wherever Saar stands: no copy reads where a unit its side cannot see stands.
#[test]
fn the_planner_searches_under_fog_from_what_its_side_sees() {
    let (rules, map) = night();
    let engine = Engine::new(rules).unwrap();
    let setup = |saar: (i64, i64)| {
        let s = engine.rules.scenario("Night").unwrap();
        let a = engine.rules.army("A").unwrap();
        let d = engine.rules.army("D").unwrap();
        Battle::new(&engine, s, &map, [a, d], [&[(1, 0), (1, 2)], &[(2, 0), saar]], 5).unwrap()
    };
    let mut seen = Vec::new();
    for saar in [(8, 2), (6, 0), (9, 1), (5, 2)] {
        let b = setup(saar);
        assert_eq!(b.to_act, SideId::Attacker);
        assert!(b.sees(SideId::Attacker, (2, 0)) && !b.sees(SideId::Attacker, saar), "Saar at {saar:?} is out of sight");
        let mut planner = Planner::wide();
        let turn = planner.choose(&b).unwrap();
        assert!(planner.playout_turns() > 0, "the planner plays ahead under fog (Saar at {saar:?})");
        seen.push((saar, turn, planner.playout_turns()));
    }
    let (_, first, played) = seen[0].clone();
    for (saar, turn, p) in &seen {
        assert_eq!((turn, *p), (&first, played), "Saar at {saar:?}");
    }
}

/// An enemy never seen is sampled in the planner's copies (on a tile out of sight it could have
/// walked to from its zone), not taken off them: Bazba, in sight beside Ross, has 1 HP left and
/// Saar stands in the dark, never seen. Routing Bazba does not end a copy (Saar stands in it),
/// so every copy is played on. Taken off, Saar was in no copy, so routing Bazba routed "every"
/// enemy and ended the copy at once: the Woodcutter's Night's watch searched a battle against
/// the one raider in sight and was routed by those in the dark. The turn and the playouts are
/// the same wherever Saar stands. Both sides are free to wait (`rout all`), so the attacker's
/// candidates get `NIGHT_COPIES` times the copies they would by day, each `NIGHT_DEPTH` turns deep.
#[test]
fn the_planner_plays_ahead_against_enemies_it_has_never_seen() {
    let (rules, map) = night();
    let engine = Engine::new(rules).unwrap();
    let (s, a, d) = (engine.rules.scenario("Night").unwrap(), engine.rules.army("A").unwrap(), engine.rules.army("D").unwrap());
    let mut seen = Vec::new();
    for saar in [(8, 2), (6, 0), (9, 1), (5, 2)] {
        let mut b = Battle::new(&engine, s, &map, [a, d], [&[(1, 0), (1, 2)], &[(2, 0), saar]], 5).unwrap();
        b.state.units[2].hp = 1;
        assert_eq!(b.to_act, SideId::Attacker);
        assert!(b.sees(SideId::Attacker, (2, 0)) && !b.sees(SideId::Attacker, saar), "Saar at {saar:?} is out of sight");
        let mut planner = Planner::default();
        let turn = planner.choose(&b).unwrap();
        // The copies played (9 here: the race ends long before a candidate's are spent).
        let (copies, _) = planner.playout_copies();
        // Most copies are played to the full depth, not ended by Bazba's rout: under fog a side
        // free to wait plays `NIGHT_DEPTH` turns a copy, more than twice a day's `DEPTH` (at
        // `DEPTH` this fails: a copy plays at most that many here, no activation paid in steps).
        const { assert!(planner::NIGHT_DEPTH > 2 * planner::DEPTH) };
        assert!(
            planner.playout_turns() > copies * planner::NIGHT_DEPTH as u64 / 2,
            "{} playout turns in {copies} copies (Saar at {saar:?})",
            planner.playout_turns()
        );
        // (Its copies per candidate, `NIGHT_COPIES` times a day's: at ten turns a copy the race
        // here ends long before they are spent, after 9 copies in all, so the count of copies
        // played no longer shows them.)
        assert_eq!(planner::copies(4, true), planner::NIGHT_COPIES * planner::copies(4, false));
        assert!(copies <= Planner::copies_budget(4, true, true), "{copies} copies (Saar at {saar:?})");
        assert!(planner.playout_turns() <= Planner::budget(4, true, true), "{} playout turns", planner.playout_turns());
        seen.push((saar, turn, planner.playout_turns()));
    }
    let (_, first, played) = seen[0].clone();
    for (saar, turn, p) in &seen {
        assert_eq!((turn, *p), (&first, played), "Saar at {saar:?}");
    }
}

/// Four a side on the Dusk field, by night (`fog vision 2`) or by day, both to rout all.
fn four_a_side(fog: bool) -> String {
    format!(
        "scenario Dusk {{
            map \"dusk.map.toml\"
            {}
            attacker {{ zone \"attacker-zone\" war_chest 99999 units 1..4 win rout all }}
            defender {{ zone \"defender-zone\" war_chest 99999 units 1..4 win rout all }}
        }}
        army A for Dusk attacker {{ unit Ross: Myrmidon {{ items IronSword }} unit Amelia: Fighter {{ items IronAxe }}
            unit Franz: Cavalier {{ items IronLance }} unit Lute: Mage {{ items Fire }} }}
        army D for Dusk defender {{ unit Bazba: Fighter {{ items IronAxe }} unit Saar: Fighter {{ items IronAxe }}
            unit Novala: Shaman {{ items Flux }} unit Gheb: Fighter {{ items HandAxe }} }}",
        if fog { "fog vision 2" } else { "" }
    )
}

/// A side free to wait weighs greedy's turn as one more candidate where the tactician ranks it
/// none of its three (`planner::candidates`; greedy plays the copies' turns after the
/// candidate): under fog once it sees or remembers an enemy, without fog while an enemy stands
/// within `planner::CONTACT` tiles of one of its units. Both armies, played by the default
/// against itself from the same deployment, seven tiles apart: by night and by day some decision
/// weighs four turns; the first, with no enemy seen and none in contact, three; by day none far
/// apart weighs four; and every decision's copies are within its budget. The same battle played
/// again on the thread recalls its opening decisions (`ai/recall.rs`), which report the
/// candidates they weighed as when they were made.
#[test]
fn a_side_free_to_wait_weighs_greedys_turn_once_the_enemy_is_near() {
    for fog in [true, false] {
        let (rules, map) = dusk::compile(&four_a_side(fog));
        let engine = Engine::new(rules).unwrap();
        let (s, a, d) =
            (engine.rules.scenario("Dusk").unwrap(), engine.rules.army("A").unwrap(), engine.rules.army("D").unwrap());
        let play = || {
            let mut b =
                Battle::new(&engine, s, &map, [a, d], [&[(0, 0), (0, 1), (1, 0), (1, 2)], &[(9, 0), (9, 1), (8, 0), (8, 2)]], 7)
                    .unwrap();
            let mut players = [Planner::recalling(), Planner::recalling()];
            let mut weighed = Vec::new();
            for _ in 0..24 {
                if b.outcome.is_some() {
                    break;
                }
                let figures = planner::figures_standing(&b);
                let side = b.to_act;
                let standing = |ours: bool| b.units.iter().filter(move |u| u.state == State::Ready && (u.side == side) == ours);
                let contact = standing(true).any(|u| standing(false).any(|e| distance(u.pos, e.pos) <= planner::CONTACT));
                let p = &mut players[usize::from(side == SideId::Defender)];
                let turn = p.choose(&b).unwrap();
                let n = p.candidates_weighed();
                assert!(n <= planner::candidates(true), "{n} candidates");
                assert!(
                    p.playout_copies().0 <= Planner::copies_budget(figures, fog, n > planner::WIDTH),
                    "{:?} copies",
                    p.playout_copies()
                );
                assert!(fog || contact || n <= planner::WIDTH, "by day, {n} candidates with no enemy in contact");
                weighed.push(n);
                b.play_turn(turn).unwrap();
            }
            weighed
        };
        let weighed = play();
        assert_eq!(weighed.first(), Some(&planner::WIDTH), "the first decision (fog: {fog})");
        assert_eq!(weighed.iter().max(), Some(&(planner::WIDTH + 1)), "the most candidates a decision weighed (fog: {fog})");
        assert_eq!(play(), weighed, "the same battle again, its opening recalled (fog: {fog})");
    }
}

const CROWD: &str = "army A for Arena attacker {
        unit Ephraim: Lord { items Rapier tags Leader }
        unit Ross: Fighter { items IronAxe } unit Amelia: Fighter { items IronAxe }
        unit Garcia: Fighter { items IronAxe } unit Gilliam: Fighter { items IronAxe }
        unit Franz: Fighter { items IronAxe } unit Vanessa: Fighter { items IronAxe }
        unit Moulder: Fighter { items IronAxe } }
     army D for Arena defender {
        unit Bors: Soldier { items IronLance } unit Seth: Soldier { items IronLance }
        unit Kyle: Soldier { items IronLance } unit Forde: Soldier { items IronLance }
        unit Duessel: Soldier { items IronLance } unit Gerik: Soldier { items IronLance }
        unit Tethys: Soldier { items IronLance } unit Joshua: Soldier { items IronLance } }";

/// With more than a dozen units standing the planner still searches (it played as the
/// tactician beyond twelve), within its budget: the playout turns of each decision are at most
/// `Planner::budget`, which falls as the units grow (the 72 units of a point-bought river
/// battle get an eighth of the copies a dozen get), and the race among the candidates
/// (`planner/race.rs`) spends well under it.
#[test]
fn the_planner_searches_a_crowded_battle_within_its_budget() {
    assert!(
        Planner::budget(72, false, false) * 6 <= Planner::budget(12, false, false),
        "{} against {}",
        Planner::budget(72, false, false),
        Planner::budget(12, false, false)
    );
    assert!(Planner::budget(16, false, false) < Planner::budget(12, false, false));
    let (rules, map) = arena::setup(CROWD);
    let engine = Engine::new(rules).unwrap();
    let mut b = arena::battle(
        &engine,
        &map,
        [
            &[(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)],
            &[(7, 0), (7, 1), (7, 2), (7, 3), (6, 0), (6, 1), (6, 2), (6, 3)],
        ],
    );
    let mut planner = [Planner::wide(), Planner::wide()];
    let (mut searched, mut played, mut budget) = (0, 0, 0);
    for _ in 0..12 {
        if b.outcome.is_some() {
            break;
        }
        let standing = b.units.iter().filter(|u| u.state == State::Ready).count();
        let p = &mut planner[usize::from(b.to_act == SideId::Defender)];
        let turn = p.choose(&b).unwrap();
        assert!(
            p.playout_turns() <= Planner::budget(standing, false, false),
            "{} turns with {standing} units",
            p.playout_turns()
        );
        searched += usize::from(standing > 12 && p.playout_turns() > 0);
        if p.playout_turns() > 0 {
            (played, budget) = (played + p.playout_turns(), budget + Planner::budget(standing, false, false));
        }
        b.play_turn(turn).unwrap();
    }
    assert!(searched > 0, "the planner searched with more than 12 units standing");
    // The race drops candidates clearly behind: the search plays far less than its budget (all
    // of it, 864 turns, before the race; 320 with it).
    assert!(played * 2 < budget, "{played} playout turns of a budget of {budget}");
}

const GUARDS: &str =
    "army A for Arena attacker { unit Ephraim: Lord { items Rapier tags Leader } unit Ross: Fighter { items IronAxe } }
     army D for Arena defender { unit Bors: Soldier { items IronLance } unit Seth: Soldier { items IronLance } }";

/// The arena's attacker must seize the goal (or escape); its defender wins by `rout all`, so
/// tiles are at stake. `searcher` (`Planner::wide`) searches for the defender, which must stop
/// the seizure, and (without fog) for the attacker, a side that must take ground, its playouts
/// playing the attacker's own turns as the tactician does (it played the tactician's turn, move
/// for move, before). The default plays the tactician's turn for both, with no playouts. Without
/// fog `searcher` searches only in contact (an enemy within `planner::CONTACT` tiles): five tiles
/// apart, its seizer plays the tactician's turn.
#[test]
fn the_searcher_searches_for_the_seizer_and_the_side_that_stops_it() {
    let (rules, map) = arena::setup(GUARDS);
    let engine = Engine::new(rules).unwrap();
    let (mut planner, mut tactician) = (Planner::wide(), oc_engine::ai::Tactician::default());
    let mut b = arena::battle(&engine, &map, [&[(0, 0), (1, 2)], &[(6, 4), (6, 2)]]);
    assert_eq!(planner.choose(&b), tactician.choose(&b), "out of contact, the tactician's turn");
    assert_eq!(planner.playout_turns(), 0);
    // The guards a step nearer: four tiles from the seizer's ally.
    (b.state.units[2].pos, b.state.units[3].pos) = ((5, 4), (5, 2));
    let (mut planner, mut tactician) = (Planner::wide(), oc_engine::ai::Tactician::default());
    assert_eq!(b.to_act, SideId::Attacker);
    let mut narrow = Planner::default();
    assert_eq!(narrow.choose(&b), tactician.choose(&b), "the default's seizer plays as the tactician");
    assert_eq!(narrow.playout_turns(), 0);
    let turn = planner.choose(&b).unwrap();
    assert!(planner.playout_turns() > 0, "the seizer's turn is searched");
    b.play_turn(turn).unwrap();
    arena::to_act(&mut b, SideId::Defender);
    assert!(b.outcome.is_none() && b.may_act(SideId::Defender).len() == 2, "{:?}", b.outcome);
    planner.choose(&b).unwrap();
    assert!(planner.playout_turns() > 0, "the defender's turn is searched");
    // The default (`planner`) searches only where material decides: here it is the tactician.
    let mut narrow = Planner::default();
    assert_eq!(narrow.choose(&b), tactician.choose(&b));
    assert_eq!(narrow.playout_turns(), 0, "the default's reach is a side free to wait");
}

/// Under fog, `searcher` does not search for a side that must take ground (its playouts would
/// play that side as the tactician over a battle it has only partly seen: unmeasured), and
/// plays the tactician's turn for it, move for move; it still searches for the side that stops
/// the seizure.
#[test]
fn under_fog_the_searchers_seizer_plays_as_the_tactician() {
    use std::collections::HashMap;
    let scenario = arena::SCENARIO.replace("rounds 5 then defender", "rounds 5 then defender\n    fog vision 2");
    assert_ne!(scenario, arena::SCENARIO);
    let mut files = HashMap::new();
    files.insert("arena.map.toml".to_string(), arena::MAP.to_string());
    files.insert("arena.oc".to_string(), format!("{scenario}\n{GUARDS}"));
    let mut ws = oc_compiler::Workspace::new();
    let (c, _) = ws.compile(&mut files.into_iter().collect::<oc_compiler::MemoryHost>(), &["arena.oc".to_string()]);
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let rules = c.rules.unwrap();
    let (map, diags) = oc_atlas::parse(oc_diag::FileId(0), arena::MAP);
    assert!(diags.is_empty(), "{diags:?}");
    let mut map = map.unwrap();
    map.resolve(&rules);
    let map = map.battle_map();
    let engine = Engine::new(rules).unwrap();
    let mut b = arena::battle(&engine, &map, [&[(0, 0), (1, 2)], &[(6, 4), (6, 2)]]);
    assert!(b.sight(SideId::Attacker).fogged(), "the arena is under fog");
    assert_eq!(b.to_act, SideId::Attacker);
    let (mut planner, mut tactician) = (Planner::wide(), oc_engine::ai::Tactician::default());
    let turn = planner.choose(&b);
    assert_eq!(planner.playout_turns(), 0, "the seizer's turn is not searched under fog");
    assert_eq!(turn, tactician.choose(&b), "the seizer plays as the tactician");
    b.play_turn(turn.unwrap()).unwrap();
    arena::to_act(&mut b, SideId::Defender);
    assert!(b.outcome.is_none() && b.may_act(SideId::Defender).len() == 2, "{:?}", b.outcome);
    planner.choose(&b).unwrap();
    assert!(planner.playout_turns() > 0, "the defender's turn is searched under fog");
}
