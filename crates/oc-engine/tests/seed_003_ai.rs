//! Seed 003 (`std:battlestorm`), what the AIs make of the advanced rules and the actions that
//! need a choice: "attacking from rear or flank", "Penalties apply to units too far from the
//! general", "hide", "divide up (split the unit)". Each test asks the three AIs (greedy,
//! tactician, planner) for their turn in a small battle and asserts the choice.

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use arena::until_turn_of;
use oc_engine::battle::{distance, Act, Battle, State, Turn};
use oc_engine::Engine;
use oc_model::{SideId, Verb};

const AIS: [&str; 3] = ["greedy", "tactician", "planner"];

/// The 10x5 field of `rows` (`.` plains, `f` forest), both sides deploying anywhere, the arena
/// scenario playing `options` with `extra` on each side.
fn compiled(rows: [&str; 5], options: &str, extra: &str, armies: &str) -> (Engine, oc_model::BattleMap) {
    let map = field::map(rows, "\"f\" = \"Forest\"\n\".\" = \"Plains\"", field::ANYWHERE);
    field::compiled(&map, &field::arena("std:battlestorm", options, extra), armies)
}

/// The battle deployed so, with the attacker to act and the units `done` already activated.
fn ready<'e>(engine: &'e Engine, map: &oc_model::BattleMap, deploy: [&[(i64, i64)]; 2], done: &[usize]) -> Battle<'e> {
    let mut b = arena::battle_seeded(engine, map, deploy, 1);
    until_turn_of(&mut b, SideId::Attacker, done);
    for k in done {
        b.state.units[*k].activated = true;
    }
    b
}

fn choice(ai: &str, b: &Battle) -> Turn {
    oc_engine::ai::by_name(ai).unwrap().choose(b).unwrap()
}

#[test]
fn the_ais_attack_from_the_flank_or_rear_the_forecast_favours() {
    // "New modifiers apply due to the tactical situation - whether an opponent is on higher
    // ground, attacking from rear or flank". Reading: a unit in contact with two enemies is
    // Flanked (-2 to the target number of a blow in contact), one with enemies on opposite sides
    // Surrounded (-4). The foe at (5, 2) is held from the north by a brave that has acted; the
    // other brave, at (4, 3), can strike it from (4, 2) or (6, 2) (a flank) or (5, 3) (the rear).
    let armies =
        "army A for Arena attacker { unit Brave: Savage { items Shortsword } unit Pinner: Savage { items Shortsword } }\n\
                  army D for Arena defender { unit Foe: Savage { items Shortsword } }";
    let (engine, map) = compiled(field::OPEN, "advanced situations", "", armies);
    let b = ready(&engine, &map, [&[(4, 3), (5, 1)], &[(5, 2)]], &[1]);
    // The forecast window reads the foe as it will stand: from the rear a brave hits on 11 (20
    // faces in 30), from the flank on 13 (18 in 30).
    let hit = |from| b.attack_forecast(0, from, 2, None).unwrap().attacker.hit;
    assert!(hit((5, 3)) > hit((4, 2)) + 0.05, "{} {}", hit((5, 3)), hit((4, 2)));
    for ai in AIS {
        let t = choice(ai, &b);
        assert!(matches!(t.act, Act::Attack { target: 2 }), "{ai}: {t:?}");
        assert_eq!(t.to, Some((5, 3)), "{ai}: {t:?}");
    }
}

#[test]
fn the_ais_attack_from_where_they_stay_in_their_generals_command() {
    // "Penalties apply to units too far from the general." Reading: more than 6 tiles from him,
    // a unit bears OutOfCommand (C.E.R. +2). The brave at (4, 1), 8 tiles from its general Ghor
    // (9, 4), can strike the foe at (5, 2) from (4, 2) or (5, 1), 7 tiles from Ghor, or from
    // (5, 3) or (6, 2), 5 tiles from him: it strikes from where it is in command.
    let armies = "army A for Arena attacker { unit Ghor: SavageChief { items Shortsword tags General } unit Brave: Savage { items Shortsword } }\n\
                  army D for Arena defender { unit Foe: Savage { items Shortsword } unit Urka: SavageChief { items Shortsword tags General } }";
    let (engine, map) = compiled(field::OPEN, "advanced leadership", "grant General to 1 at_least 1 with General", armies);
    let mut b = ready(&engine, &map, [&[(9, 4), (4, 1)], &[(5, 2), (0, 0)]], &[0]);
    // The defender's general is off the table (his units are out of command wherever they are).
    b.state.units[3].state = State::Routed;
    let hit = |from| b.attack_forecast(1, from, 2, None).unwrap().attacker.hit;
    assert!(hit((5, 3)) > hit((4, 2)) + 0.05, "{} {}", hit((5, 3)), hit((4, 2)));
    for ai in AIS {
        let t = choice(ai, &b);
        assert!(matches!(t.act, Act::Attack { target: 2 }), "{ai}: {t:?}");
        let to = t.to.unwrap_or((4, 1));
        assert!(distance(to, (9, 4)) <= 6, "{ai}: {t:?}");
    }
}

#[test]
fn the_ais_hide_where_a_blow_from_hiding_is_forecast_better() {
    // "hide", and the situations' "blind". Readings: a unit hides on terrain that gives cover;
    // hidden, it bears Unseen, and its blow from hiding is struck at -2 to the target number.
    // The braves in a forest, the foe two tiles off after their move (it can reach them next
    // time): they hide where the move ends. Without the situations a blow from hiding is no
    // better by the forecast, and they do not.
    let rows = ["ffffffffff"; 5];
    let armies = "army A for Arena attacker { unit Braves: Savage { figures 3 items Shortsword } }\n\
                  army D for Arena defender { unit Foe: Savage { items Shortsword } }";
    for (options, hides) in [("advanced situations", true), ("", false)] {
        let (engine, map) = compiled(rows, options, "", armies);
        for ai in AIS {
            let mut b = ready(&engine, &map, [&[(2, 2)], &[(6, 2)]], &[]);
            let t = choice(ai, &b);
            let hid = matches!(t.act, Act::Special { verb: Verb::Hide, .. });
            assert_eq!(hid, hides, "{options}: {ai}: {t:?}");
            b.turn(t.clone()).unwrap();
            assert_eq!(b.hidden(0), hides, "{options}: {ai}: {t:?}");
        }
    }
}

#[test]
fn the_ais_walk_where_they_come_into_their_generals_command() {
    // "Penalties apply to units too far from the general" (more than 6 tiles: OutOfCommand,
    // C.E.R. +2). The brave at (2, 2), 9 tiles from its general Ghor (9, 4), walks toward the
    // foe at (9, 1), out of its reach this time: (5, 1) and (6, 2) bring it as near, and only
    // (6, 2) is within 6 tiles of Ghor. It walks there: its next blow is forecast better.
    let armies = "army A for Arena attacker { unit Ghor: SavageChief { items Shortsword tags General } unit Brave: Savage { items Shortsword } }\n\
                  army D for Arena defender { unit Foe: Savage { items Shortsword } unit Urka: SavageChief { items Shortsword tags General } }";
    let (engine, map) = compiled(field::OPEN, "advanced leadership", "grant General to 1 at_least 1 with General", armies);
    let mut b = ready(&engine, &map, [&[(9, 4), (2, 2)], &[(9, 1), (0, 0)]], &[0]);
    b.state.units[3].state = State::Routed;
    for ai in AIS {
        let t = choice(ai, &b);
        assert_eq!((t.unit, t.to), (1, Some((6, 2))), "{ai}: {t:?}");
    }
}

#[test]
fn the_ais_divide_a_unit_whose_whole_blow_is_more_than_its_target_can_take() {
    // "divide up (split the unit)"; "I could split my 20 spearmen into four units of 5
    // spearmen each". Six braves, two lone braves coming at them (out of reach this time): the
    // six would spend five strikes on a brave one hit fells; three on each are forecast to fell
    // both more often. They divide where their move ends. Against two bands of six, whose blows
    // are worth as much split as whole, they do not.
    let armies = |foes: u32| {
        format!(
            "army A for Arena attacker {{ unit Braves: Savage {{ figures 6 items Shortsword }} }}\n\
             army D for Arena defender {{ unit Foe: Savage {{ figures {foes} items Shortsword }} unit Foe2: Savage {{ figures {foes} items Shortsword }} }}"
        )
    };
    for (foes, divides) in [(1, true), (6, false)] {
        let (engine, map) = compiled(field::OPEN, "", "", &armies(foes));
        for ai in AIS {
            let mut b = ready(&engine, &map, [&[(2, 2)], &[(7, 1), (7, 3)]], &[]);
            let t = choice(ai, &b);
            let divided = matches!(t.act, Act::Special { verb: Verb::Divide, .. });
            assert_eq!(divided, divides, "{foes}: {ai}: {t:?}");
            let units = b.units.len();
            b.turn(t.clone()).unwrap();
            assert_eq!(b.units.len() > units, divides, "{foes}: {ai}: {t:?}");
        }
    }
}

#[test]
fn a_routing_unit_leaves_its_sides_activation_to_a_steady_one() {
    // "Failing a Courage roll causes a unit to rout": a routing unit only flees or rallies.
    // Where its side picks which of its units acts (the roll-off's initiative), the tactician
    // and the planner spend the activation on the steady brave across the field, not on the
    // routing one beside the wounded foe, whose plan (its blow at the foe) it could not strike:
    // planned as a steady unit, the routing brave won the activation and rallied.
    let armies =
        "army A for Arena attacker { unit Routing: Savage { items Shortsword } unit Steady: Savage { items Shortsword } }\n\
                  army D for Arena defender { unit Foe: Savage { items Shortsword } }";
    let (engine, map) = compiled(field::OPEN, "advanced courage", "", armies);
    let mut b = ready(&engine, &map, [&[(8, 2), (0, 0)], &[(9, 2)]], &[]);
    b.state.units[0].morale.routing = true;
    b.state.units[2].hp = 1;
    assert!(b.routing(0) && !b.routing(1));
    for ai in ["tactician", "planner"] {
        let t = choice(ai, &b);
        assert_eq!(t.unit, 1, "{ai}: {t:?}");
    }
}
