//! Under fog an AI decides from what its side has seen: moved, wounded, afflicted, spent,
//! rearmed, stripped of an item, turned about, broken or weakened out of sight, an enemy in the
//! dark changes none of its decisions.
//! Held over whole battles of four shipped scenarios of four rulesets, under fog (`scenarios`).
//! Nor does where an enemy that declared an attack before its move means to strike from.

use crate::battle::{Battle, Controller, Turn};
use crate::Engine;

/// The mixed unit's fog field (seed 003): `testing::duel`'s, 20 by 7, under fog (vision 2), our
/// savage against the spearmen with Fenth fighting in them (`joins`: a body of the unit). The
/// memory's and the copies' tests of bodies share it.
pub(crate) fn mixed_fog_duel() -> (Engine, oc_model::BattleMap) {
    let units = [
        "unit Brave: Savage { items Shortsword }",
        "unit Spears: HighElfSpearman { figures 4 items ElvenSpear } unit Fenth: FenthGallinir { items Runeblade joins Spears }",
    ];
    crate::testing::duel(&["...................."; 7], "std:battlestorm", "    fog vision 2\n", units)
}

/// A shipped scenario (`file`, its map `map`) with fog laid over it (vision 3) where it has none
/// (after its `rounds` line, `rounds`), and its map.
fn by_night((name, file): (&str, &str), (map_name, map): (&str, &str), rounds: &str) -> (Engine, oc_model::BattleMap) {
    let line = format!("    {rounds}\n");
    let scenario =
        if file.contains("    fog ") { file.to_string() } else { file.replacen(&line, &format!("{line}    fog vision 3\n"), 1) };
    crate::testing::field_named((name, &scenario), (map_name, map))
}

/// The scenarios the test plays under fog: the Storm at the River (seed 003's advanced rules:
/// flank, rear, leadership, bracing, hiding, dividing), the Woodcutter's Night (fog as shipped),
/// the Elder Hall (seed 002: stamina, activations paid in steps) and the Town Square (seed 004:
/// units act by initiative).
fn scenarios() -> Vec<(Engine, oc_model::BattleMap)> {
    vec![
        by_night(
            ("narube.oc", include_str!("../../../../../scenarios/battlestorm-narube.oc")),
            ("maps/narube-river.map.toml", include_str!("../../../../../scenarios/maps/narube-river.map.toml")),
            "rounds 12 then defender",
        ),
        by_night(
            ("zaha-woods-night.oc", include_str!("../../../../../scenarios/zaha-woods-night.oc")),
            ("maps/zaha-woods.map.toml", include_str!("../../../../../scenarios/maps/zaha-woods.map.toml")),
            "",
        ),
        by_night(
            ("caer-pelyn.oc", include_str!("../../../../../scenarios/stamina-caer-pelyn.oc")),
            ("maps/caer-pelyn.map.toml", include_str!("../../../../../scenarios/maps/caer-pelyn.map.toml")),
            "rounds 8 then defender",
        ),
        by_night(
            ("taizel.oc", include_str!("../../../../../scenarios/skirmish-taizel.oc")),
            ("maps/taizel.map.toml", include_str!("../../../../../scenarios/maps/taizel.map.toml")),
            "rounds 18 then defender",
        ),
    ]
}

/// The battle `b` with one enemy of the side to act that it does not see moved to another tile
/// out of its sight that the enemy could walk to (free, in the enemy's reach: the nearest and
/// the farthest), and with it a hit point down, with more statuses, with its resources spent, with
/// another weapon it carries in hand, with a use of each item spent, without an item it carries
/// but not in hand, turned about (where it faces a way), routing (or steady where it routs) or
/// with a debuff (of its first rating, or of its movement) where it stands: each such enemy in
/// turn. A body of a mixed unit out of sight (its host in the dark) is changed so too, and it
/// and a host with bodies are not moved (the bodies go where their host goes).
fn in_the_dark<'e>(b: &Battle<'e>) -> Vec<(usize, Battle<'e>)> {
    let side = b.state.to_act;
    let sight = b.sight(side);
    let joined = |k: usize| b.state.units.iter().any(|f| f.with == Some(k));
    let mut out = Vec::new();
    for (k, u) in b.state.units.iter().enumerate() {
        // A body of a mixed unit out of sight: its host stands in the dark.
        let host_dark = u
            .with
            .and_then(|h| b.state.units.get(h).map(|f| (h, f)))
            .is_some_and(|(h, f)| f.side != side && f.stands() && !sight.spots(h, f.pos));
        let dark_body = host_dark && u.host().is_some();
        if u.side == side || (u.with.is_some() && !dark_body) {
            continue;
        }
        if u.with.is_none() && (!u.stands() || sight.spots(k, u.pos)) {
            continue;
        }
        // A body, or a host with bodies (they move with it), stays where it is.
        let stays = u.with.is_some() || joined(k);
        let tos = if stays {
            Vec::new()
        } else {
            let Ok(reach) = b.reachable(k) else { continue };
            let mut tiles: Vec<_> = reach.keys().copied().filter(|t| *t != u.pos && !sight.sees(*t)).collect();
            tiles.sort_unstable();
            let free = |t: &crate::battle::Tile| b.state.units.iter().all(|f| !f.stands() || f.pos != *t);
            // The nearest free tile of its reach out of sight (by tile order) and the farthest.
            let far = |t: &&crate::battle::Tile| crate::battle::distance(**t, u.pos);
            let nearest = tiles.iter().filter(|t| free(t)).min_by_key(|t| (far(t), **t)).copied();
            let farthest = tiles.iter().filter(|t| free(t)).max_by_key(|t| (far(t), std::cmp::Reverse(**t))).copied();
            let Some(near) = nearest else { continue };
            std::iter::once(near).chain(farthest.filter(|t| *t != near)).collect()
        };
        // The same battle, its log too (a fork starts one of its own), with only the enemy
        // changed by `change`; none where `change` finds nothing to change.
        let mut changed = |change: &dyn Fn(&mut crate::battle::Combatant) -> bool| {
            let mut copy = b.fork(None);
            copy.log = b.log.clone();
            if copy.state.units.get_mut(k).is_some_and(change) {
                out.push((k, copy));
            }
        };
        for to in tos {
            changed(&|f| {
                f.pos = to;
                true
            });
        }
        // And where it stands, a hit point down (wounded out of sight).
        changed(&|f| {
            f.hp -= 1;
            f.hp > 0
        });
        // And where it stands, bearing every status of the rules it does not bear (laid out of
        // sight: a slowed or sleeping enemy moves less).
        let more: Vec<crate::Atom> = b
            .engine
            .rules
            .statuses
            .iter()
            .map(|x| crate::Atom::new(&x.name))
            .filter(|x| u.statuses.iter().all(|a| a.status != *x))
            .collect();
        changed(&|f| {
            f.statuses.extend(more.iter().map(|status| crate::battle::Affliction { status: *status, left: None }));
            !more.is_empty()
        });
        // And with its resources spent (stamina: spent out of sight).
        changed(&|f| {
            let any = f.resources.iter().any(|r| *r != 0);
            f.resources.iter_mut().for_each(|r| *r = 0);
            any
        });
        // And with another weapon it carries in hand (equipped out of sight).
        let wields: Vec<crate::Atom> = b.engine.weapons_for(&u.class).iter().map(|w| crate::Atom::new(&w.name)).collect();
        let other = u.items.iter().find(|w| Some(**w) != u.equipped && wields.contains(w)).copied();
        changed(&|f| {
            f.equipped = other;
            other.is_some()
        });
        // And with a use of each item it carries spent (a salve drunk out of sight).
        changed(&|f| {
            for item in f.items.clone() {
                match f.spent.iter_mut().find(|(x, _)| *x == item) {
                    Some((_, n)) => *n += 1,
                    None => f.spent.push((item, 1)),
                }
            }
            !f.items.is_empty()
        });
        // And without an item it carries but not in hand (used up or traded away out of sight).
        let dropped = u.items.iter().rev().find(|i| Some(**i) != u.equipped).copied();
        changed(&|f| {
            let Some(item) = dropped else { return false };
            let Some(at) = f.items.iter().rposition(|i| *i == item) else { return false };
            f.items.remove(at);
            f.spent.retain(|(x, _)| *x != item || f.items.contains(x));
            true
        });
        // And turned about where it faces a way (threat zones in front: turned out of sight).
        changed(&|f| {
            let Some((x, y)) = f.facing else { return false };
            f.facing = Some((-x, -y));
            true
        });
        // And routing (broken out of sight), or steady where it was routing.
        changed(&|f| {
            f.morale.routing = !f.morale.routing;
            true
        });
        // And weakened (a debuff laid out of sight).
        let attr = b.engine.rules.ruleset.stats.first().map(|a| crate::Atom::new(&a.name));
        changed(&|f| {
            let Some(attr) = attr else { return false };
            f.debuffs.push(crate::battle::Debuff { attr, shift: 2, armed: false });
            true
        });
        // And slowed (a debuff of its movement laid out of sight: it walks less far).
        changed(&|f| {
            f.debuffs.push(crate::battle::Debuff { attr: crate::Atom::new("movement"), shift: 2, armed: false });
            true
        });
    }
    out
}

/// Where a decision is looked at: the scenario's name, the battle's seed and the decision's
/// number in it (0: the battle's first).
struct At<'a> {
    scenario: &'a str,
    seed: u64,
    step: usize,
}

/// Plays four battles of each of [`scenarios`], greedy choosing every turn of both sides, and
/// gives `look` each decision (at most 100 a battle) before it is played.
#[allow(clippy::expect_used)]
fn each_decision(mut look: impl FnMut(&Battle, At)) {
    for (engine, map) in scenarios() {
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        assert!(s.fog.is_some(), "{} under fog", s.name);
        for seed in [1, 2, 3, 4] {
            let mut b = Battle::set_up(&engine, s, &map, [a, d], seed).expect("the battle starts");
            let mut driver = crate::ai::Greedy::default();
            for step in 0..100 {
                if b.state.outcome.is_some() {
                    break;
                }
                look(&b, At { scenario: &s.name, seed, step });
                let Some(turn) = driver.choose(&b) else { break };
                if b.play_turn(turn).is_err() {
                    break;
                }
            }
        }
    }
}

/// An AI's choice in a battle, made by a fresh one.
type Choose = fn(&Battle) -> Option<Turn>;

/// Greedy, the tactician, the default (the planner) and `searcher`, each fresh for each choice.
fn fresh_ais() -> [(&'static str, Choose); 4] {
    [
        ("greedy", |b| crate::ai::Greedy::default().choose(b)),
        ("tactician", |b| crate::ai::Tactician::default().choose(b)),
        ("planner", |b| crate::ai::Planner::default().choose(b)),
        ("searcher", |b| crate::ai::Planner::wide().choose(b)),
    ]
}

/// Greedy, the tactician, the default (the planner) and `searcher`, fresh for each decision, choose
/// the same turn in the battle as in each copy of it with an enemy out of sight moved elsewhere out
/// of sight (or wounded, afflicted, spent, rearmed, stripped, turned, broken or weakened there), at
/// every decision of four battles of each scenario (each side played by greedy). Before this test,
/// 11 of the Storm's first 386 differed: an unseen enemy next to a tile flanked our unit there
/// (`Battle::loadouts_moved`, `Battle::loadout_moved`), and one coming near made a unit brace
/// (`Battle::readying`). Then the default's copies gave an enemy never seen the statuses it truly
/// bore (11 of 8,475), and an enemy out of sight moved as its true statuses let it (57 of 8,475,
/// every status laid). Then the default's and `searcher`'s copies gave an enemy out of sight the
/// weapon it truly held (4 of 19,456, another weapon taken up in the dark), and its true courage
/// and debuffs (92 and 34 of 33,376). Then an enemy that gave up an item out of sight (12 of
/// 34,724, the Woodcutter's Night): the copies gave one never seen what it carried now, not what it
/// deployed with (`Battle::deployed_kit`), and a tactician new to the battle priced the units by
/// what they carried now (`stakes::prices`). Then an enemy slowed out of sight (a debuff of its
/// movement: 116 of 39,916, the Storm and the Woodcutter's Night): the copies drew it within the
/// walk its true debuffs left it (`Battle::mobility_as_known`).
#[test]
fn an_enemy_moved_in_the_dark_changes_no_decision() {
    let (mut by_scenario, mut differed) = (std::collections::BTreeMap::<String, usize>::new(), Vec::new());
    let ais = fresh_ais();
    each_decision(|b, at| {
        // The changed copies, made once a decision for every AI.
        let variants = in_the_dark(b);
        for (name, choose) in ais {
            let here = choose(b);
            for (k, other) in &variants {
                let there = choose(other);
                *by_scenario.entry(at.scenario.to_string()).or_default() += 1;
                if there != here {
                    differed.push(format!(
                        "{} seed {} step {}: {name} chose {here:?}, with unit {k} changed {there:?}",
                        at.scenario, at.seed, at.step
                    ));
                }
            }
        }
    });
    for (scenario, n) in &by_scenario {
        assert!(*n > 200, "{scenario}: {n} decisions compared");
    }
    let compared: usize = by_scenario.values().sum();
    assert_eq!(by_scenario.len(), 4, "every scenario compared: {by_scenario:?}");
    assert!(compared > 3000, "{compared} decisions compared");
    assert!(differed.is_empty(), "{} of {compared} decisions differ:\n{}", differed.len(), differed.join("\n"));
}

/// An AI's name and two of it: one deciding in the battle, its twin in a copy.
type Twins = (&'static str, Box<dyn Controller>, Box<dyn Controller>);

/// As [`an_enemy_moved_in_the_dark_changes_no_decision`], for AIs that remember (the tactician's
/// memory of where each enemy was last seen, the copies the default and `searcher` build from
/// it): two of each kind decide in step, one in the battle and one in its copy with the first
/// enemy out of sight moved, wounded, afflicted, spent, rearmed, stripped, turned, broken or
/// weakened, at every decision of four battles of each scenario. What the second saw of the copy is what its side
/// saw of the battle, so the two stay alike.
#[test]
fn an_enemy_changed_in_the_dark_changes_no_decision_of_an_ai_that_remembers() {
    let (mut compared, mut differed) = (0, Vec::new());
    let twins = || -> [Twins; 3] {
        [
            ("tactician", Box::new(crate::ai::Tactician::default()), Box::new(crate::ai::Tactician::default())),
            ("planner", Box::new(crate::ai::Planner::default()), Box::new(crate::ai::Planner::default())),
            ("searcher", Box::new(crate::ai::Planner::wide()), Box::new(crate::ai::Planner::wide())),
        ]
    };
    let mut pairs = twins();
    each_decision(|b, at| {
        // A new battle, new minds.
        if at.step == 0 {
            pairs = twins();
        }
        // Each step changes another of the variants (the step's count picks it).
        let variants = in_the_dark(b);
        let other = variants.len().checked_sub(1).and_then(|n| variants.into_iter().nth(at.step % (n + 1)));
        for (name, here, there) in &mut pairs {
            let mine = here.choose(b);
            let theirs = there.choose(other.as_ref().map_or(b, |(_, o)| o));
            if let Some((k, _)) = &other {
                compared += 1;
                if mine != theirs {
                    differed.push(format!(
                        "{} seed {} step {}: {name} chose {mine:?}, with unit {k} changed {theirs:?}",
                        at.scenario, at.seed, at.step
                    ));
                }
            }
        }
    });
    assert!(compared > 600, "{compared} decisions compared");
    assert!(differed.is_empty(), "{} of {compared} decisions differ:\n{}", differed.len(), differed.join("\n"));
}

/// Where an enemy that declared an attack before its move means to strike from is its side's
/// secret until it moves (`oc play` shows no tile; seed 003: "the currently activated unit may
/// declare a melee attack on any enemy unit ... An enemy unit upon which an attack has been
/// declared has the option of immediately activating"): greedy, the tactician, the default and
/// `searcher`, fresh, answer alike whichever tile of those it may strike from it holds
/// (`Battle::declared_strikes_from`), at every answer to such a declaration in 128 battles of
/// the Storm at the River, as shipped and under fog (greedy playing both sides). None reads it:
/// none searches at an answer (the tactician ranks one turn there). A search at answers (the
/// planner weighing greedy's answer and declining too) whose copies played the declarer's true
/// move was tried: 14 of 356 answers differed, none once each copy drew the move among these
/// tiles (not kept: it measured no stronger, `oc tournament`, and cost 6% more CPU on the Storm).
#[test]
#[allow(clippy::expect_used)]
fn a_declarers_secret_move_changes_no_answer() {
    let storm = || {
        crate::testing::field_named(
            ("narube.oc", include_str!("../../../../../scenarios/battlestorm-narube.oc")),
            ("maps/narube-river.map.toml", include_str!("../../../../../scenarios/maps/narube-river.map.toml")),
        )
    };
    let fields = [storm(), scenarios().swap_remove(0)];
    let ais = fresh_ais();
    let (mut answers, mut compared, mut differed) = (0, 0, Vec::new());
    for (engine, map) in &fields {
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(engine);
        for seed in 1..=64 {
            let mut b = Battle::set_up(engine, s, map, [a, d], seed).expect("the battle starts");
            let mut driver = crate::ai::Greedy::default();
            for _ in 0..150 {
                if b.state.outcome.is_some() {
                    break;
                }
                if let Some((_, tiles)) = b.declared_strikes_from(b.to_act).filter(|(_, t)| t.len() > 1) {
                    answers += 1;
                    let others: Vec<Battle> = tiles
                        .iter()
                        .map(|t| {
                            let mut other = b.fork(None);
                            other.guess_declared_move(*t);
                            other
                        })
                        .collect();
                    for (name, choose) in ais {
                        let here = choose(&b);
                        for (t, other) in tiles.iter().zip(&others) {
                            compared += 1;
                            let there = choose(other);
                            if there != here {
                                let fog = if s.fog.is_some() { " under fog" } else { "" };
                                differed.push(format!(
                                    "seed {seed}{fog}: {name} chose {here:?}, the declarer meaning {t:?} {there:?}"
                                ));
                            }
                        }
                    }
                }
                let Some(turn) = driver.choose(&b) else { break };
                if b.play_turn(turn).is_err() {
                    break;
                }
            }
        }
    }
    assert!(answers >= 30, "{answers} answers compared");
    assert!(differed.is_empty(), "{} of {compared} answers differ:\n{}", differed.len(), differed.join("\n"));
}
