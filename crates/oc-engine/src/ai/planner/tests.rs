//! The searcher's horizon where activations are paid in steps: the shipped Elder Hall under the
//! stamina rules (seed 002), its own armies.

use super::{Planner, DEPTH, MAX_STEPS};
use crate::battle::{Battle, Controller};
use crate::Engine;

fn elder_hall() -> (Engine, oc_model::BattleMap) {
    let scenario = include_str!("../../../../../scenarios/stamina-caer-pelyn.oc");
    let map_text = include_str!("../../../../../scenarios/maps/caer-pelyn.map.toml");
    crate::testing::field_named(("caer-pelyn.oc", scenario), ("maps/caer-pelyn.map.toml", map_text))
}

/// A copy plays [`DEPTH`] turns after the candidate and then on to the end of the activation
/// under way: where activations are paid in steps, a copy cut after four steps was valued in the
/// middle of an activation, mostly the enemy's (the searcher's keepers defended the hall worse
/// than the tactician's). No copy is left in the middle of one, and the copies play more turns
/// than `DEPTH` each.
#[test]
fn the_searchers_copies_end_between_activations_where_they_are_paid_in_steps() {
    let (engine, map) = elder_hall();
    let s = engine.rules.scenario("ElderHall").expect("the scenario");
    let (a, d) = (engine.rules.army("Raiders").expect("raiders"), engine.rules.army("Keepers").expect("keepers"));
    assert!(engine.rules.ruleset.turn.spend.is_some(), "activations are paid in steps");
    let mut b = Battle::set_up(&engine, s, &map, [a, d], 1).expect("the battle starts");
    let mut planners = [Planner::wide(), Planner::wide()];
    let (mut copies, mut turns, mut decisions) = (0, 0, 0);
    for _ in 0..400 {
        if b.outcome.is_some() || decisions >= 12 {
            break;
        }
        let p = &mut planners[usize::from(b.to_act == oc_model::SideId::Defender)];
        let Some(turn) = p.choose(&b) else { break };
        let (c, cut) = p.playout_copies();
        assert_eq!(cut, 0, "{cut} of {c} copies left in the middle of an activation");
        assert!(p.playout_turns() <= c * MAX_STEPS as u64);
        if c > 0 {
            (copies, turns, decisions) = (copies + c, turns + p.playout_turns(), decisions + 1);
        }
        b.play_turn(turn).expect("the searcher's turn is played");
    }
    assert!(decisions >= 4, "the searcher searched {decisions} decisions");
    assert!(turns > copies * DEPTH as u64, "{turns} turns in {copies} copies");
}
