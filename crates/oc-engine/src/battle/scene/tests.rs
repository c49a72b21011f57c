//! The formulas a battle asks without building the units (`Battle::holds_unbuilt`, where
//! `Ir::reads_no_unit`) answer as their scenes do, and a ruleset whose formula reads a unit
//! takes the scene.
#![allow(clippy::expect_used, clippy::indexing_slicing)]

use crate::battle::scene::Cast;
use crate::battle::{distance, Battle, Tile};
use crate::Engine;
use oc_model::Atom;

/// Two units of six savages and a (frightening) wyvern a side on an open 6x5 field under seed
/// 003's rules, with courage.
fn storm() -> (Engine, oc_model::BattleMap) {
    let savages = "unit S0: Savage { figures 6 items Shortsword } unit S1: Savage { figures 6 items Shortsword } \
                   unit W: PoisonWyvern { items WyvernBite, WyvernTalon, WyvernTail }";
    crate::testing::duel(&["......"; 5], "std:battlestorm", "    advanced courage\n", [savages, savages])
}

/// Six distinct tiles of the 6x5 field, drawn from `state`.
fn six_tiles(state: &mut u64) -> Vec<Tile> {
    let mut tiles: Vec<Tile> = Vec::new();
    while tiles.len() < 6 {
        *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let t = (((*state >> 33) % 6) as i64, ((*state >> 40) % 5) as i64);
        if !tiles.contains(&t) {
            tiles.push(t);
        }
    }
    tiles
}

/// For each unit: the enemy holding it (`engaged`) and those it would come too near where it
/// stands (`interrupt`).
fn answers(b: &Battle<'_>) -> Vec<(Option<usize>, Vec<usize>)> {
    (0..b.state.units.len()).map(|i| (b.engaged_by(i), b.interrupters(i))).collect()
}

/// Seed 003's `interrupt` and `engaged` (`range <= 1`) read nothing but their parameters:
/// asked without a scene, they answer as with one, for units in and out of contact, and for
/// a unit that has no scene (its class unknown: no loadout), which is neither held nor
/// watches.
#[test]
fn bare_turn_formulas_answer_as_their_scenes() {
    let (engine, map) = storm();
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(&engine);
    let deploy = [&[(0, 0), (0, 1), (0, 2)][..], &[(4, 0), (4, 1), (4, 2)][..]];
    let mut b = Battle::new(&engine, s, &map, [a, d], deploy, 5).expect("the battle starts");
    let laws = b.laws;
    assert!(laws.interrupt_bare && laws.engaged_bare && laws.losses_bare && !laws.opportunity_bare, "{laws:?}");
    let mut state = 7u64;
    let (mut held, mut near, mut sceneless) = (0, 0, 0);
    for layout in 0..300 {
        let tiles = six_tiles(&mut state);
        for (u, t) in b.state.units.iter_mut().zip(&tiles) {
            u.pos = *t;
        }
        // Every third layout, one unit without a scene.
        let nobody = (layout % 3 == 0).then_some(layout % 6);
        let class = b.state.units[layout % 6].class;
        if let Some(k) = nobody {
            b.state.units[k].class = Atom::new("Nobody");
            assert!(b.scene(Cast { user: k, ..Cast::default() }, None).is_none());
        }
        let fast = answers(&b);
        b.laws.interrupt_bare = false;
        b.laws.engaged_bare = false;
        let slow = answers(&b);
        b.laws = laws;
        assert_eq!(fast, slow, "layout {layout}: {tiles:?}, no scene for {nobody:?}");
        held += fast.iter().filter(|(h, _)| h.is_some()).count();
        near += fast.iter().map(|(_, w)| w.len()).sum::<usize>();
        if let Some(k) = nobody {
            // In contact with an enemy, it is still neither held nor watches (it may hold,
            // and be come too near: those scenes are the other unit's).
            let side = b.state.units[k].side;
            let touching = b.state.units.iter().any(|e| e.side != side && distance(e.pos, b.state.units[k].pos) <= 1);
            if touching {
                sceneless += 1;
                assert_eq!(fast[k].0, None);
                assert!(fast.iter().all(|(_, w)| !w.contains(&k)), "layout {layout}");
            }
            b.state.units[k].class = class;
        }
    }
    assert!(held > 50 && near > 50 && sceneless > 10, "{held} held, {near} watching, {sceneless} without a scene in contact");
}

/// A ruleset whose `interrupt` and `engaged` read the unit's attribute takes the scene's
/// path: a keen unit holds and watches, a dull one (`keen` 0) neither; asked bare (the
/// attribute read as nothing), the keen one would not.
#[test]
fn turn_formulas_reading_a_unit_are_asked_of_its_scene() {
    let rules = r#"
ruleset probe {
scale Rating { E D C B A }
stat str: Rating
base hp: Int = 10
base movement: Int = 4
base movement_type: Movement = Foot
base keen: Int = 0
inventory 2
turn {
    interrupt = range <= 1 and self.keen >= 1
    engaged = range <= self.keen
}
combat {
    hit = true
    critical = false
    damage = 1
    critical_damage = 1
    follow_up = false
}
}
movement Foot
terrain Plains { symbol "." cost { Foot 1 } }
weapon_type Blades physical
tag Keen on class { keen = 1 }
class Keen { ratings { str C } wields Blades tags Keen cost 1 }
class Dull { ratings { str C } wields Blades cost 1 }
weapon Knife { type Blades might 0 weight 0 range 1 cost 1 }
scenario Field {
map "field.map.toml"
rounds 6 then defender
attacker { zone "a" war_chest 99999 units 1..4 win rout all }
defender { zone "d" war_chest 99999 units 1..4 win rout all }
}
army A for Field attacker { unit K: Keen { items Knife } unit L: Dull { items Knife } }
army D for Field defender { unit M: Keen { items Knife } unit N: Dull { items Knife } }
"#;
    let map = "name = \"Field\"\nwidth = 6\nheight = 3\nrows = [\"......\", \"......\", \"......\"]\n\
               [[regions]]\nname = \"a\"\nkind = \"deployment\"\nside = \"attacker\"\nrect = [0, 0, 2, 3]\n\
               [[regions]]\nname = \"d\"\nkind = \"deployment\"\nside = \"defender\"\nrect = [4, 0, 2, 3]\n";
    let (engine, map) = crate::testing::field(rules, map);
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(&engine);
    let mut b = Battle::new(&engine, s, &map, [a, d], [&[(0, 0), (0, 2)][..], &[(5, 0), (5, 2)][..]], 1).expect("starts");
    assert!(!b.laws.interrupt_bare && !b.laws.engaged_bare, "{:?}", b.laws);
    // K (0) at (1, 0) beside M (2) at (2, 0) and N (3) at (1, 1); L (1) at (3, 0) beside M.
    for (k, t) in [(1, 0), (3, 0), (2, 0), (1, 1)].into_iter().enumerate() {
        b.state.units[k].pos = t;
    }
    // A keen unit is held by the nearest enemy (M, unit order on a tie); a dull one never.
    assert_eq!(b.engaged_by(0), Some(2));
    assert_eq!(b.engaged_by(1), None);
    assert_eq!(b.engaged_by(2), Some(0));
    assert_eq!(b.engaged_by(3), None);
    // Only a keen enemy watches a mover that ends beside it.
    assert_eq!(b.interrupters(0), vec![2]);
    assert_eq!(b.interrupters(1), vec![2]);
    assert_eq!(b.interrupters(2), vec![0]);
    assert_eq!(b.interrupters(3), vec![0]);
    // Asked bare, the attribute reads as nothing: the answers would differ.
    b.laws.interrupt_bare = true;
    b.laws.engaged_bare = true;
    assert_eq!(b.engaged_by(0), None);
    assert!(b.interrupters(0).is_empty());
}

/// Seed 003's courage `losses` (`self.hp * 2 <= max_hp`) reads none of the unit: the checks an
/// activation's end makes (which rolls, which units rout) are the same asked without building
/// the units as with their scenes, at every amount of hit points, and for a unit that has no
/// scene (which never tests for its losses).
#[test]
fn unbuilt_losses_test_as_their_scenes() {
    let (engine, map) = storm();
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(&engine);
    let deploy = [&[(0, 0), (0, 1), (0, 2)][..], &[(4, 0), (4, 1), (4, 2)][..]];
    let mut b = Battle::new(&engine, s, &map, [a, d], deploy, 5).expect("the battle starts");
    assert!(b.plays_courage() && b.laws.losses_bare, "{:?}", b.laws);
    let mut state = 11u64;
    let (mut tested, mut sceneless) = (0, 0);
    for layout in 0..300 {
        let tiles = six_tiles(&mut state);
        for (u, t) in b.state.units.iter_mut().zip(&tiles) {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            u.pos = *t;
            u.hp = 1 + ((state >> 35) as i64) % u.max_hp.max(1);
            u.morale = Default::default();
        }
        let nobody = (layout % 3 == 0).then_some(layout % 6);
        let class = b.state.units[layout % 6].class;
        if let Some(k) = nobody {
            b.state.units[k].class = Atom::new("Nobody");
        }
        let mut fast = b.fork(None);
        let mut slow = b.fork(None);
        slow.laws.losses_bare = false;
        fast.courage_checks();
        slow.courage_checks();
        assert_eq!(format!("{:?}", fast.log), format!("{:?}", slow.log), "layout {layout}");
        for (x, y) in fast.state.units.iter().zip(&slow.state.units) {
            assert_eq!((&x.morale, x.state), (&y.morale, y.state), "layout {layout}");
        }
        tested += fast.log.len();
        if let Some(k) = nobody {
            let u = &b.state.units[k];
            if u.hp * 2 <= u.max_hp {
                sceneless += 1;
                assert_eq!(fast.state.units[k].morale.tested_at, None, "layout {layout}");
            }
            b.state.units[k].class = class;
        }
    }
    assert!(tested > 100 && sceneless > 10, "{tested} checks, {sceneless} units without a scene at heavy losses");
}
