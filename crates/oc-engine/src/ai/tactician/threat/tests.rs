//! The threat map's tests: blows read on a walled fixture.

use oc_model as m;

use super::Later;
use crate::battle::{Act, Battle, Turn};
use crate::Engine;

// The scenario and armies are a fixture: engine sources name no class (`tests/agreement.rs`).
const MAP: &str = include_str!("../../../../tests/fixtures/walls/walls.map.toml");
const RULES: &str = include_str!("../../../../tests/fixtures/walls/walls.oc");

/// What the defender's unit strikes after a second move from (6, 1), with the wall of
/// column 3 standing and once it is struck down: a kept mask is the one worked out afresh.
#[test]
fn second_move_strikes_are_worked_out_again_when_the_terrain_changes() {
    let mut files = std::collections::BTreeMap::new();
    files.insert("walls.oc".to_string(), RULES.to_string());
    files.insert("walls.map.toml".to_string(), MAP.to_string());
    let (c, _) = oc_compiler::Workspace::new().compile(&mut oc_compiler::MemoryHost(files), &["walls.oc".to_string()]);
    let engine = Engine::new(c.rules.unwrap_or_else(|| panic!("{:#?}", c.diagnostics))).expect("the engine takes them");
    let terrain: Vec<String> = (0..21).map(|k| if k % 7 == 3 { "Wall".to_string() } else { "Plains".to_string() }).collect();
    let region = |name: &str, side, x| m::MapRegion {
        name: name.to_string(),
        kind: "deployment".to_string(),
        side: Some(side),
        tiles: (0..3).map(|y| (x, y)).collect(),
    };
    let map = m::BattleMap {
        name: "Walls".to_string(),
        width: 7,
        height: 3,
        terrain,
        regions: vec![region("a", m::SideId::Attacker, 0), region("d", m::SideId::Defender, 6)],
        chests: Vec::new(),
        doors: Vec::new(),
        destructibles: Vec::new(),
    };
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(&engine);
    let mut b = Battle::new(&engine, s, &map, [a, d], [&[(0, 1)][..], &[(6, 1)][..]], 3).expect("the battle starts");
    let (points, kind, _) = b.mobility(1).expect("the defender's unit moves");
    let mut later = Later::default();
    let standing = later.mask(&b, &kind, (6, 1), points, (1, 1));
    // The attacker walks up to the wall and strikes it down (30 HP), the defender waiting.
    let mut to = Some((2, 1));
    while b.terrain_at((3, 1)).is_some_and(|t| t.name == "Wall") && b.outcome.is_none() {
        b.turn(Turn { unit: 0, to: to.take(), act: Act::Strike { tile: (3, 1) }, ..Default::default() }).expect("a strike");
        b.turn(Turn { unit: 1, ..Default::default() }).expect("a wait");
    }
    assert_ne!(b.terrain_at((3, 1)).map(|t| t.name.as_str()), Some("Wall"), "the wall came down");
    let kept = later.mask(&b, &kind, (6, 1), points, (1, 1));
    let fresh = Later::default().mask(&b, &kind, (6, 1), points, (1, 1));
    assert_eq!(kept, fresh);
    assert_ne!(standing, fresh, "the wall stood in the way: a mask kept from before would be wrong");
}

/// Seed 003's courage: "Failing a Courage roll causes a unit to rout"; a routing unit only
/// flees (or rallies), so it threatens as little as one that cannot attack now.
#[test]
fn a_routing_enemy_threatens_only_a_little() {
    let (engine, map) = crate::testing::duel(
        &["......", "......", "......"],
        "std:battlestorm",
        "    advanced courage\n",
        ["unit Brave: Savage { items Shortsword }", "unit Foe: Savage { items Shortsword }"],
    );
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(&engine);
    let mut b = Battle::new(&engine, s, &map, [a, d], [&[(1, 1)][..], &[(4, 1)][..]], 3).expect("the battle starts");
    let tempo = |b: &Battle| {
        let view = crate::ai::View::new(b, m::SideId::Attacker);
        let threats = super::ThreatMap::new(&view, &mut Default::default(), &mut Later::default(), &[1.0, 1.0]);
        threats.foes.iter().find(|f| f.unit == 1).map(|f| f.tempo).expect("the foe is counted")
    };
    let steady = tempo(&b);
    b.state.units[1].morale.routing = true;
    let routing = tempo(&b);
    assert!((routing - steady * 0.3).abs() < 1e-12, "{steady} then {routing}");
}

/// A threat map asked for one target's blows at one HP, then another, then the first again
/// (what it remembers of each exchange read at the last HP): each answer is a fresh map's.
#[test]
fn blows_read_again_at_another_hp_are_a_fresh_maps() {
    // The built-in ratings rules (no import): a unit's hit points decide how likely a blow routs it.
    brave_against_two(|engine, view, loadout, max_hp| {
        let read = |threats: &mut super::ThreatMap, cache: &mut crate::ai::forecasts::Forecasts, hp: i64| {
            let id = cache.id(loadout);
            let target = super::Target { loadout, id, hp, max_hp, worth: 1.0 };
            let blows = threats.blows(engine, cache, (3, 1), &target);
            let got: Vec<(usize, f64, f64, f64)> = blows.iter().map(|(f, x)| (*f, x.value, x.damage, x.routed)).collect();
            threats.give_back(blows);
            got
        };
        let mut cache = Default::default();
        let mut threats = super::ThreatMap::new(view, &mut cache, &mut Later::default(), &[1.0, 1.0, 1.0]);
        let low = 1;
        let mut answers = Vec::new();
        for hp in [max_hp, low, max_hp, low] {
            let kept = read(&mut threats, &mut cache, hp);
            let mut fresh_cache = Default::default();
            let mut fresh = super::ThreatMap::new(view, &mut fresh_cache, &mut Later::default(), &[1.0, 1.0, 1.0]);
            let fresh = read(&mut fresh, &mut fresh_cache, hp);
            assert!(!kept.is_empty(), "the enemies strike the tile");
            assert_eq!(kept, fresh, "at {hp} HP");
            answers.push(kept);
        }
        // A memory that forgot the hit points would answer the second read as the first.
        assert!(max_hp > low && answers.first() != answers.get(1), "the blows differ by HP: {answers:?}");
    });
}

/// A map's forecasts kept for the next (`Looked`) are read again only where its slots stand
/// for the same ones: with an enemy hurt or worth more between two maps, and with neither,
/// each map's blows at every tile and HP are a fresh map's (a table kept whatever the enemy's
/// HP or worth reads its own loss as it was).
#[test]
fn kept_forecasts_give_a_fresh_maps_blows() {
    let (engine, map) = crate::testing::duel(
        &["......", "......", "......"],
        "",
        "",
        ["unit Brave: Fighter { items SteelAxe }", "unit Foe: Fighter { items SteelAxe } unit Other: Mage { items Fire }"],
    );
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(&engine);
    let mut b = Battle::new(&engine, s, &map, [a, d], [&[(1, 1)][..], &[(4, 1), (4, 2)][..]], 3).expect("the battle starts");
    let mut loadout = b.loadout_of(0, false).expect("our unit's loadout");
    loadout.hp = None;
    let max_hp = b.units[0].max_hp;
    let (mut cache, mut later) = (crate::ai::forecasts::Forecasts::default(), Later::default());
    let mut differ = 0;
    let mut last = Vec::new();
    for (hurt, worth) in [(0, 1.0), (0, 1.0), (5, 1.0), (5, 1.0), (5, 2.5), (0, 2.5), (0, 1.0)] {
        b.state.units[1].hp = b.state.units[1].max_hp - hurt;
        let view = crate::ai::View::new(&b, m::SideId::Attacker);
        let worths = [1.0, worth, 1.0];
        let mut kept = super::ThreatMap::new(&view, &mut cache, &mut later, &worths);
        let mut fresh_cache = crate::ai::forecasts::Forecasts::default();
        let mut fresh = super::ThreatMap::new(&view, &mut fresh_cache, &mut Later::default(), &worths);
        let mut all = Vec::new();
        for (x, y) in (0..6).flat_map(|x| (0..3).map(move |y| (x, y))) {
            for hp in [max_hp, 1] {
                let read = |threats: &mut super::ThreatMap, cache: &mut crate::ai::forecasts::Forecasts| {
                    let id = cache.id(&loadout);
                    let target = super::Target { loadout: &loadout, id, hp, max_hp, worth: 1.0 };
                    let blows = threats.blows(&engine, cache, (x, y), &target);
                    let got: Vec<_> = blows.iter().map(|(f, x)| (*f, x.value, x.damage, x.routed, x.own_loss, x.far)).collect();
                    threats.give_back(blows);
                    got
                };
                let got = read(&mut kept, &mut cache);
                assert_eq!(got, read(&mut fresh, &mut fresh_cache), "at {:?}, {hp} HP, enemy hurt {hurt}", (x, y));
                all.push(got);
            }
        }
        kept.keep(&mut later);
        differ += usize::from(all != last);
        last = all;
    }
    assert!(differ >= 4, "the enemy's HP and worth change its blows ({differ} times)");
}

/// The least danger a tile may hold, read without its blows, is never above the danger read
/// from them: at every tile and HP, for a cheap target the enemies strike at a loss (where
/// the bait makes the danger negative: a bound of 0 fails); and so for the least danger read
/// for the target (its enemies' own losses from the forecasts), whatever the caller's
/// `elsewhere`, `gone`, `room` and `lead`, and it is the closer of the two somewhere.
#[test]
fn the_least_danger_is_at_most_the_danger() {
    brave_against_two(|engine, view, loadout, max_hp| {
        let mut cache = Default::default();
        let mut threats = super::ThreatMap::new(view, &mut cache, &mut Later::default(), &[0.01, 3.0, 3.0]);
        let id = cache.id(loadout);
        let foes = threats.foes.len();
        let (mut below, mut read, mut closer) = (0, 0, 0);
        for (x, y) in (0..6).flat_map(|x| (0..3).map(move |y| (x, y))) {
            for hp in 1..=max_hp {
                let target = super::Target { loadout, id, hp, max_hp, worth: 0.01 };
                let least = threats.least_danger((x, y));
                let tight = threats.least_danger_for(engine, &mut cache, (x, y), &target);
                assert!(tight >= least - 1e-9, "at {:?} with {hp} HP: {tight} below {least}", (x, y));
                closer += usize::from(tight > least + 1e-6);
                let blows = threats.blows(engine, &mut cache, (x, y), &target);
                for (elsewhere, gone, room, lead) in [
                    (100.0, None, 4, 1.0),
                    (0.0, None, 4, 1.0),
                    (-1.0, Some(0), 0, 0.0),
                    (100.0, Some(1), 1, 0.5),
                    (100.0, Some(foes), 2, 0.0),
                ] {
                    let danger = threats.danger(&blows, &target, room, &vec![elsewhere; foes], gone, lead);
                    assert!(least <= danger, "at {:?} with {hp} HP: {least} above {danger}", (x, y));
                    assert!(tight <= danger, "at {:?} with {hp} HP: {tight} above {danger}", (x, y));
                    below += usize::from(danger < 0.0);
                    read += 1;
                }
                threats.give_back(blows);
            }
        }
        assert!(below > read / 8, "the bait makes the danger negative ({below} of {read})");
        assert!(closer > 0, "the forecasts bound it closer");
    });
}

/// An enemy with a lance (range 1) and a javelin (range 1-2) strikes each tile from this move
/// or after a second, not both: on the ring its javelin reaches from this move and its lance
/// only after a second, it is counted once, from this move. Before, that ring counted it twice
/// (the javelin now, and the lance weighed as the next round's blow), so it weighed more than
/// the tiles inside the lance's reach, where the enemy counted once.
#[test]
fn an_enemy_strikes_a_tile_from_this_move_or_the_next_not_both() {
    let (engine, map) = crate::testing::duel(
        &["....................", "....................", "...................."],
        "",
        "",
        ["unit Brave: Fighter { items SteelAxe }", "unit Foe: Soldier { items IronLance, Javelin }"],
    );
    let b = Battle::duel(&engine, &map, 3);
    let view = crate::ai::View::new(&b, m::SideId::Attacker);
    let mut loadout = b.loadout_of(0, false).expect("our unit's loadout");
    loadout.hp = None;
    let mut cache: crate::ai::forecasts::Forecasts = Default::default();
    let mut threats = super::ThreatMap::new(&view, &mut cache, &mut Later::default(), &[1.0, 1.0]);
    let id = cache.id(&loadout);
    let target = super::Target { loadout: &loadout, id, hp: b.units[0].max_hp, max_hp: b.units[0].max_hp, worth: 1.0 };
    let (mut near, mut far) = (0, 0);
    for x in 0..20 {
        let blows = threats.blows(&engine, &mut cache, (x, 1), &target);
        let now = blows.iter().any(|(_, blow)| !blow.far);
        let later = blows.iter().any(|(_, blow)| blow.far);
        assert!(!(now && later), "column {x}: struck from this move and after a second: {blows:?}");
        (near, far) = (near + usize::from(now), far + usize::from(later));
        threats.give_back(blows);
    }
    assert!(near > 0 && far > 0, "struck from this move on {near} tiles, after a second on {far}");
}

/// Our Brave (a Fighter with a steel axe, at (1, 1)) against a Fighter and a Mage (at (4, 1)
/// and (4, 2)) on the built-in ratings rules: `test` is handed the engine, our side's view,
/// Brave's loadout without hit points and its max HP.
fn brave_against_two(test: impl FnOnce(&Engine, &crate::ai::View, &crate::Loadout, i64)) {
    let (engine, map) = crate::testing::duel(
        &["......", "......", "......"],
        "",
        "",
        ["unit Brave: Fighter { items SteelAxe }", "unit Foe: Fighter { items SteelAxe } unit Other: Mage { items Fire }"],
    );
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(&engine);
    let b = Battle::new(&engine, s, &map, [a, d], [&[(1, 1)][..], &[(4, 1), (4, 2)][..]], 3).expect("the battle starts");
    let view = crate::ai::View::new(&b, m::SideId::Attacker);
    let mut loadout = b.loadout_of(0, false).expect("our unit's loadout");
    loadout.hp = None;
    test(&engine, &view, &loadout, b.units[0].max_hp);
}
