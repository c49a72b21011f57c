//! Seed 002 (`std:stamina`): the Item action, each test quoting the seed and asserting a scripted
//! battle or an AI's turn. The rest of the seed's rules are in `seed_002_rules.rs`.

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, Turn};
use oc_engine::Engine;
use oc_model::SideId;

/// The open field whose deployment zones meet at x = 4|5, with `armies` under `std:stamina`.
fn field_with(armies: &str) -> (Engine, oc_model::BattleMap) {
    field::compiled(&field::map(field::OPEN, "", field::HALVES), &field::arena("std:stamina", "", ""), armies)
}

fn salve(unit: usize, target: Option<usize>) -> Turn {
    Turn { unit, act: Act::Use { item: "Salve".into(), target, tile: None }, ..Default::default() }
}

/// Ends the activations of the side to act until unit `i` may act.
fn wait_for(b: &mut Battle, i: usize) {
    while !b.may_act(b.to_act).contains(&i) && b.outcome.is_none() {
        let k = b.may_act(b.to_act)[0];
        b.turn(arena::wait(k)).unwrap();
    }
}

const HEALERS: &str = r#"
army A for Arena attacker {
    unit Ysolde: Duelist { items Longsword, Salve, Salve }
    unit Brann: Warrior { items Greatsword, Salve }
    unit Hakon: Brute { items Warhammer }
}
army D for Arena defender {
    unit Corin: Spearman { items Spear, RoundShield }
}
"#;

#[test]
fn an_item_is_used_on_yourself_or_an_adjacent_ally_for_1_stamina_once_a_turn() {
    // "Item: Use an item from your pack on yourself or an adjacent ally, change weapons, or
    // interact with the environment. Using the Item action costs 1 Stamina, but you're limited to
    // doing so once per turn." The Salve: `target self_or_ally within 0..1`, `heal(target, 1)`.
    let (e, map) = field_with(HEALERS);
    // Ysolde (0) beside Brann (1); Hakon (2) two spaces from her; Corin (3) across the field.
    let mut b = arena::battle_seeded(&e, &map, [&[(1, 1), (1, 2), (3, 1)], &[(9, 4)]], 3);
    assert_eq!(b.to_act, SideId::Attacker);
    for k in [1, 2] {
        b.state.units[k].hp = 1;
    }
    // Not an ally two spaces away, nor an enemy.
    let far = b.turn(salve(0, Some(2))).unwrap_err().to_string();
    assert!(far.contains("reaches 0..1"), "{far}");
    assert!(b.turn(salve(0, Some(3))).is_err(), "an enemy");
    // The adjacent ally: one wound healed, 1 Stamina.
    b.turn(salve(0, Some(1))).unwrap();
    assert_eq!(b.units[1].hp, 2, "{:?}", b.log.last());
    assert_eq!(b.resource(0, "stamina"), Some(4), "\"costs 1 Stamina\"");
    let note = arena::last_note(&b);
    assert!(note.contains("uses Salve") && note.contains("Brann"), "{note}");
    // "limited to doing so once per turn": her second Salve waits for her next turn.
    let again = b.turn(salve(0, None)).unwrap_err().to_string();
    assert!(again.contains("step_allowed"), "{again}");
    assert_eq!(b.units[0].items.iter().filter(|n| n.as_str() == "Salve").count(), 1, "one Salve used up");
    b.turn(arena::wait(0)).unwrap();
    // Brann on himself ("on yourself"): a use naming no unit is on its user.
    wait_for(&mut b, 1);
    b.turn(salve(1, None)).unwrap();
    assert_eq!(b.units[1].hp, 3);
    assert_eq!(b.resource(1, "stamina"), Some(4));
    assert!(b.units[1].items.iter().all(|n| n.as_str() != "Salve"));
    assert!(
        b.log.iter().any(|r| matches!(r, Record::Turn { note, .. } if note.contains("uses Salve: Brann heals Brann for 1"))),
        "{:?}",
        b.log
    );
}

#[test]
fn changing_weapons_is_the_item_action_1_stamina_once_a_turn() {
    // "Item: Use an item from your pack on yourself or an adjacent ally, change weapons ... Using
    // the Item action costs 1 Stamina, but you're limited to doing so once per turn." Mira holds
    // her Longbow; the Thug stands next to her, too near to shoot (reach 2..7).
    let armies = r#"
army A for Arena attacker {
    unit Mira: Archer { items Longbow, Dagger, Salve }
}
army D for Arena defender {
    unit Osric: Thug { items Shortsword }
}
"#;
    let (e, map) = field_with(armies);
    for seed in 0..4 {
        let mut b = arena::battle_seeded(&e, &map, [&[(4, 2)], &[(5, 2)]], seed);
        assert_eq!(b.to_act, SideId::Attacker);
        assert_eq!(b.units[0].equipped.as_deref(), Some("Longbow"));
        b.state.units[0].hp = 1;
        // The Dagger drawn and a stab: the Item action (1) and the Attack (1).
        let stab = Turn {
            unit: 0,
            equip: Some("Dagger".into()),
            act: Act::Attack { target: 1 },
            reaction: Some("none".into()),
            ..Default::default()
        };
        b.turn(stab).unwrap();
        assert_eq!(b.units[0].equipped.as_deref(), Some("Dagger"));
        assert_eq!(b.resource(0, "stamina"), Some(3), "change 1 + attack 1 (a free change paid 1)");
        if b.outcome.is_some() || b.active.is_none() {
            continue;
        }
        // Once per turn: neither another change nor the Salve (an Item action too).
        let back = Turn { unit: 0, equip: Some("Longbow".into()), ..Default::default() };
        let refused = b.turn(back).unwrap_err().to_string();
        assert!(refused.contains("step_allowed"), "{refused}");
        let refused = b.turn(salve(0, None)).unwrap_err().to_string();
        assert!(refused.contains("step_allowed"), "{refused}");
        // Holding the weapon it holds is no change: a stab for 1.
        let again = Turn { unit: 0, equip: Some("Dagger".into()), act: Act::Attack { target: 1 }, ..Default::default() };
        b.turn(again).unwrap();
        assert_eq!(b.resource(0, "stamina"), Some(2));
    }
    // A change alone is a step of 1 Stamina, and the log shows it.
    let mut b = arena::battle_seeded(&e, &map, [&[(4, 2)], &[(5, 2)]], 9);
    b.turn(Turn { unit: 0, equip: Some("Dagger".into()), ..Default::default() }).unwrap();
    assert_eq!(b.resource(0, "stamina"), Some(4));
    assert!(
        b.log.iter().any(|r| matches!(r, Record::Turn { turn, .. } if turn.equip.as_deref() == Some("Dagger"))),
        "{:?}",
        b.log
    );
}

#[test]
fn the_ais_use_a_salve_on_a_hurt_adjacent_ally_and_keep_it_otherwise() {
    // "Use an item from your pack on yourself or an adjacent ally": with no enemy in reach, every
    // AI spends Ysolde's turn on Brann's wound.
    let (e, map) = field_with(HEALERS);
    for name in ["greedy", "tactician", "planner"] {
        let mut b = arena::battle_seeded(&e, &map, [&[(1, 1), (1, 2), (0, 4)], &[(9, 4)]], 3);
        // Only Ysolde waits to act.
        for k in [1, 2] {
            b.state.units[k].activated = true;
        }
        let mut ai = oc_engine::ai::by_name(name).unwrap();
        let fresh = ai.choose(&b).unwrap();
        assert!(!matches!(fresh.act, Act::Use { .. }), "{name}: nobody is hurt: {fresh:?}");
        b.state.units[1].hp = 1;
        let mut ai = oc_engine::ai::by_name(name).unwrap();
        let t = ai.choose(&b).unwrap();
        assert_eq!(t.unit, 0, "{name}");
        assert!(matches!(&t.act, Act::Use { item, target: Some(1), .. } if item.as_str() == "Salve"), "{name}: {t:?}");
        b.turn(t).unwrap();
        assert_eq!(b.units[1].hp, 2, "{name}");
    }
}
