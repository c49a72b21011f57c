//! The searcher where one unit may act at a time: its horizon where activations are paid in
//! steps (the shipped Elder Hall under the stamina rules, seed 002), and its candidates where
//! units act by initiative (the shipped Town Square under the skirmish rules, seed 004).

use super::{Planner, DEPTH};
use crate::battle::{Battle, Controller};
use crate::Engine;

/// The armies of the fog tests' field (`testing::fog_duel`): a Fighter a side.
const FOG_UNITS: [&str; 2] = ["unit Brave: Fighter { items IronAxe }", "unit Foe: Fighter { items IronAxe }"];

/// The fog tests' duel (`testing::fog_duel`) set up in round four: ours at (1, 1), the foe at
/// (18, 1), out of sight.
fn fog_duel_in_round_four<'e>(engine: &'e Engine, map: &oc_model::BattleMap) -> Battle<'e> {
    let mut b = Battle::duel(engine, map, 3);
    b.state.round = 4;
    b
}

/// The foe as the attacker last saw it, at (9, 3) unless `tile` is given.
fn seen_foe(
    (tile, round, lost): (Option<(i64, i64)>, u32, bool),
    (hp, statuses, equipped): (i64, Vec<crate::battle::Affliction>, Option<crate::Atom>),
) -> [Option<crate::ai::sighting::Sighting>; 2] {
    [
        None,
        Some(crate::ai::sighting::Sighting {
            tile: tile.unwrap_or((9, 3)),
            round,
            hp,
            statuses,
            equipped,
            lost,
            ..crate::ai::sighting::Sighting::default()
        }),
    ]
}

/// The kit tests' field: [`FOG_UNITS`]'s, the foe with a hand axe too (second in its list).
const TWO_AXES: [&str; 2] = ["unit Brave: Fighter { items IronAxe }", "unit Foe: Fighter { items IronAxe, HandAxe }"];

/// The activation tests' field: [`FOG_UNITS`]'s, with a second foe (`Other`).
const TWO_FOES: [&str; 2] =
    ["unit Brave: Fighter { items IronAxe }", "unit Foe: Fighter { items IronAxe }\n    unit Other: Fighter { items IronAxe }"];

/// The activation tests' battle on [`TWO_FOES`]'s field, in round two: both foes out of sight,
/// `Foe` having had its activation, `Other` not.
#[allow(clippy::expect_used)]
fn two_foes_in_round_two<'e>(engine: &'e Engine, map: &oc_model::BattleMap) -> Battle<'e> {
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(engine);
    let mut b = Battle::new(engine, s, map, [a, d], [&[(1, 1)][..], &[(18, 0), (19, 2)][..]], 3).expect("the battle starts");
    b.state.round = 2;
    b.state.units[2].pos = (18, 5);
    b.state.units[1].activated = true;
    b
}

/// What `read` finds of the foe (unit 1) in each of the first `copies` copies of `b` the
/// attacker's side makes with `memory` (`Seen::fork`, seeds 0 up).
fn foe_in_copies<T>(
    b: &Battle,
    memory: &[Option<crate::ai::sighting::Sighting>],
    copies: u64,
    read: impl Fn(&crate::battle::Combatant) -> T,
) -> Vec<T> {
    use crate::ai::sighting::seen::{Fog, Seen, Walks};
    let fog = Fog::new(b, oc_model::SideId::Attacker, memory, &mut Walks::default());
    (0..copies).filter_map(|seed| Seen::fork(b, &fog, seed, None).copy.state.units.get(1).map(&read)).collect()
}

/// Whether each foe has had its activation in 32 copies of `b` made with `memory`.
fn activation_marks(b: &Battle, memory: &[Option<crate::ai::sighting::Sighting>]) -> Vec<[bool; 2]> {
    use crate::ai::sighting::seen::{Fog, Seen, Walks};
    let fog = Fog::new(b, oc_model::SideId::Attacker, memory, &mut Walks::default());
    (0..32)
        .map(|seed| {
            let copy = Seen::fork(b, &fog, seed, None).copy;
            [copy.state.units[1].activated, copy.state.units[2].activated]
        })
        .collect()
}

fn elder_hall() -> (Engine, oc_model::BattleMap) {
    let scenario = include_str!("../../../../../scenarios/stamina-caer-pelyn.oc");
    let map_text = include_str!("../../../../../scenarios/maps/caer-pelyn.map.toml");
    crate::testing::field_named(("caer-pelyn.oc", scenario), ("maps/caer-pelyn.map.toml", map_text))
}

/// A copy plays [`DEPTH`] turns after the candidate and then on to the end of the activation
/// under way: where activations are paid in steps, a copy cut after four steps was valued in the
/// middle of an activation, mostly the enemy's (the searcher's keepers defended the hall worse
/// than the tactician's). No copy is left in the middle of one, and the copies play more turns
/// than `DEPTH` a copy, in all.
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
        // None here: no copy of these twelve decisions reaches MAX_STEPS or runs out of turns.
        assert_eq!(cut, 0, "{cut} of {c} copies left in the middle of an activation");
        if c > 0 {
            (copies, turns, decisions) = (copies + c, turns + p.playout_turns(), decisions + 1);
        }
        b.play_turn(turn).expect("the searcher's turn is played");
    }
    assert!(decisions >= 4, "the searcher searched {decisions} decisions");
    assert!(turns > copies * DEPTH as u64, "{turns} turns in {copies} copies");
}

/// Where units act in order of initiative, one unit may act: the tactician ranks one turn, and
/// the searcher searched nothing. For a side that must take ground (its copies play its turns as
/// the tactician), greedy's turn for the unit is a second candidate, and it searches in contact;
/// the side that stops it (its copies play it with greedy) still plays the tactician's turn.
#[test]
fn by_initiative_the_searchers_taker_weighs_greedys_turn_against_the_tacticians() {
    let scenario = include_str!("../../../../../scenarios/skirmish-taizel.oc");
    let map_text = include_str!("../../../../../scenarios/maps/taizel.map.toml");
    let (engine, map) = crate::testing::field_named(("taizel.oc", scenario), ("maps/taizel.map.toml", map_text));
    let s = engine.rules.scenario("TownSquare").expect("the scenario");
    let (a, d) = (engine.rules.army("LordsCompany").expect("company"), engine.rules.army("SquareGuard").expect("guard"));
    let mut b = Battle::set_up(&engine, s, &map, [a, d], 1).expect("the battle starts");
    let mut planners = [Planner::wide(), Planner::wide()];
    let mut searched = [0, 0];
    for _ in 0..200 {
        if b.outcome.is_some() {
            break;
        }
        assert_eq!(b.may_act(b.to_act).len(), 1, "one unit may act");
        let side = usize::from(b.to_act == oc_model::SideId::Defender);
        let Some(p) = planners.get_mut(side) else { break };
        let Some(turn) = p.choose(&b) else { break };
        if let Some(n) = searched.get_mut(side) {
            *n += usize::from(p.playout_turns() > 0);
        }
        b.play_turn(turn).expect("the searcher's turn is played");
    }
    assert!(searched[0] >= 4, "the company's turns searched: {}", searched[0]);
    assert_eq!(searched[1], 0, "the guard plays the tactician's turn");
}

/// Under fog, an enemy lost (the tile it was last seen on in sight since, without it) is set by
/// each copy on a tile out of sight within its walk of that tile in the rounds since (that one
/// included), not on any tile it could have walked to from its deployment zone: where the side
/// saw it tells where it may be.
#[test]
fn a_lost_enemy_is_looked_for_near_where_it_was_last_seen() {
    use crate::ai::sighting::Sighting;
    let (engine, map) = crate::testing::fog_duel(FOG_UNITS);
    let b = fog_duel_in_round_four(&engine, &map);
    let (points, ..) = b.mobility(1).expect("the foe moves");
    let sight = b.sight(oc_model::SideId::Attacker);
    let last = (8, 5);
    let near = |t: (i64, i64)| (t.0 - last.0).abs() + (t.1 - last.1).abs() <= points * 2;
    let placed = |memory: &[Option<Sighting>]| foe_in_copies(&b, memory, 32, |u| u.pos);
    let lost = placed(&seen_foe((Some(last), 3, true), (20, Vec::new(), None)));
    assert!(lost.iter().all(|t| near(*t) && !sight.sees(*t)), "{points} a round from {last:?}: {lost:?}");
    assert!(lost.iter().any(|t| *t != lost[0]), "sampled: {lost:?}");
    // Never seen, it may stand anywhere it could have walked to from its zone by now.
    let never = placed(&[None, None]);
    assert!(never.iter().any(|t| !near(*t)), "{never:?}");
}

/// Under fog, a copy gives an enemy out of sight the hit points the side knows it by, not its
/// own: as it was last seen (remembered where it was seen, or lost and sampled), and, never
/// seen, full (as it deployed); nor is it hidden where the enemy truly hid. (Each copy held the
/// enemy's true hit points: healed or hurt out of sight, the side knew it.)
#[test]
fn a_copy_gives_an_enemy_out_of_sight_the_hit_points_it_was_seen_with() {
    use crate::ai::sighting::seen::{Fog, Seen, Walks};
    use crate::ai::sighting::Sighting;
    let (engine, map) = crate::testing::fog_duel(FOG_UNITS);
    let mut b = fog_duel_in_round_four(&engine, &map);
    let full = b.units[1].max_hp;
    // Healed to full out of sight since it was seen with 5; or hurt to 4, never seen.
    b.state.units[1].hp = full;
    let hps = |b: &Battle, memory: &[Option<Sighting>]| foe_in_copies(b, memory, 8, |u| u.hp);
    for lost in [false, true] {
        let memory = seen_foe((None, 3, lost), (5, Vec::new(), None));
        assert!(hps(&b, &memory).iter().all(|h| *h == 5), "lost: {lost}: {:?}", hps(&b, &memory));
    }
    b.state.units[1].hp = 4;
    b.state.units[1].hidden = Some(b.units[1].pos);
    assert!(hps(&b, &[None, None]).iter().all(|h| *h == full), "never seen: {:?}", hps(&b, &[None, None]));
    let fog = Fog::new(&b, oc_model::SideId::Attacker, &[None, None], &mut Walks::default());
    assert_eq!(Seen::fork(&b, &fog, 1, None).copy.state.units[1].hidden, None);
}

/// Under fog, a copy gives an enemy out of sight the statuses the side knows it by, not its own:
/// as it was last seen, less those whose time ran out in the rounds since; never seen, none.
/// (Each copy held the enemy's true statuses: poisoned or cured out of sight, the side knew it.)
#[test]
fn a_copy_gives_an_enemy_out_of_sight_the_statuses_it_was_seen_with() {
    use crate::ai::sighting::Sighting;
    use crate::battle::Affliction;
    let (engine, map) = crate::testing::fog_duel(FOG_UNITS);
    let mut b = fog_duel_in_round_four(&engine, &map);
    let names: Vec<crate::Atom> = engine.rules.statuses.iter().take(3).map(|x| crate::Atom::new(&x.name)).collect();
    let [lasting, short, now] = [0, 1, 2].map(|n| names[n]);
    // Seen in round 2 bearing one status for good and one for a round; it bears another now.
    let seen = vec![Affliction { status: lasting, left: None }, Affliction { status: short, left: Some(1) }];
    b.state.units[1].statuses = vec![Affliction { status: now, left: None }];
    let borne = |memory: &[Option<Sighting>]| -> Vec<Vec<crate::Atom>> {
        foe_in_copies(&b, memory, 4, |u| u.statuses.iter().map(|a| a.status).collect())
    };
    for lost in [false, true] {
        let memory = seen_foe((None, 2, lost), (5, seen.clone(), None));
        assert!(borne(&memory).iter().all(|x| *x == [lasting]), "lost: {lost}: {:?}", borne(&memory));
        // Seen this round, the short one has not run out.
        let memory = seen_foe((None, 4, lost), (5, seen.clone(), None));
        assert!(borne(&memory).iter().all(|x| *x == [lasting, short]), "lost: {lost}: {:?}", borne(&memory));
    }
    assert!(borne(&[None, None]).iter().all(Vec::is_empty), "never seen: {:?}", borne(&[None, None]));
}

/// Under fog, a copy gives an enemy out of sight the weapon in hand the side knows it by, not
/// the one it holds: the one it was last seen with, and, never seen, the one it deploys with
/// (the first of its list). (Each copy held the enemy's true weapon: a foe that took up its
/// hand axe in the dark was met by the planner's copies with it, and the planner and `searcher`
/// chose otherwise for it: `sighting::tests`, 4 of 19,456 decisions.)
#[test]
fn a_copy_gives_an_enemy_out_of_sight_the_weapon_it_was_seen_with() {
    use crate::ai::sighting::Sighting;
    let (engine, map) = crate::testing::fog_duel(TWO_AXES);
    let mut b = fog_duel_in_round_four(&engine, &map);
    let [iron, hand] = ["IronAxe", "HandAxe"].map(crate::Atom::new);
    assert_eq!(b.units[1].equipped, Some(iron), "it deploys with the first");
    let held = |b: &Battle, memory: &[Option<Sighting>]| foe_in_copies(b, memory, 4, |u| u.equipped);
    for lost in [false, true] {
        for (seen, now) in [(iron, hand), (hand, iron)] {
            b.state.units[1].equipped = Some(now);
            let [none, Some(s)] = seen_foe((None, 3, lost), (20, Vec::new(), Some(seen))) else { unreachable!() };
            let memory = [none, Some(Sighting { items: vec![iron, hand], ..s })];
            assert!(
                held(&b, &memory).iter().all(|w| *w == Some(seen)),
                "lost: {lost}, seen with {seen}: {:?}",
                held(&b, &memory)
            );
        }
    }
    b.state.units[1].equipped = Some(hand);
    assert!(held(&b, &[None, None]).iter().all(|w| *w == Some(iron)), "never seen: {:?}", held(&b, &[None, None]));
}

/// Under fog, a copy gives an enemy never seen what it deployed with, not what it carries now (a
/// hand axe given up in the dark: `sighting::tests`, 12 of 34,724 decisions, with the prices a
/// new tactician read), and an enemy out of sight the way the side knows it faces: as last seen,
/// or as it deployed, not the way it turned in the dark.
#[test]
fn a_copy_gives_an_enemy_out_of_sight_its_kit_and_facing_as_known() {
    use crate::ai::sighting::Sighting;
    let (engine, map) = crate::testing::fog_duel(TWO_AXES);
    let mut b = fog_duel_in_round_four(&engine, &map);
    let [iron, hand] = ["IronAxe", "HandAxe"].map(crate::Atom::new);
    let deployed = b.units[1].facing;
    // In the dark it gives up its hand axe and turns.
    b.state.units[1].items = vec![iron];
    b.state.units[1].facing = Some((0, 1));
    let copies = |b: &Battle, memory: &[Option<Sighting>]| foe_in_copies(b, memory, 4, |u| (u.items.clone(), u.facing));
    for (items, facing) in copies(&b, &[None, None]) {
        assert_eq!(items, vec![iron, hand], "never seen: what it deployed with");
        assert_eq!(facing, deployed, "never seen: facing as it deployed");
    }
    let [none, Some(s)] = seen_foe((None, 3, false), (20, Vec::new(), Some(iron))) else { unreachable!() };
    let memory = [none, Some(Sighting { items: vec![iron, hand], facing: Some((-1, 0)), ..s })];
    for (items, facing) in copies(&b, &memory) {
        assert_eq!(items, vec![iron, hand], "seen: what it carried then");
        assert_eq!(facing, Some((-1, 0)), "seen: facing as seen");
    }
}

/// Under fog, a copy gives an enemy never seen that was formed by dividing another in the dark
/// (seed 003's "divide up (split the unit)") what the unit it came from deployed with
/// (`Battle::deployed`), not what it carries now: the broadsword given up in the dark before
/// the braves divided is not known to be gone. (The copies gave such a unit its own kit: the
/// battle began without it.)
#[test]
fn a_copy_gives_a_unit_divided_in_the_dark_the_kit_its_parent_deployed_with() {
    use crate::ai::sighting::seen::{Fog, Seen, Walks};
    let units = ["unit Brave: Savage { items Shortsword }", "unit Braves: Savage { figures 4 items Shortsword, Broadsword }"];
    let (engine, map) = crate::testing::duel(&["...................."; 7], "std:battlestorm", "    fog vision 2\n", units);
    let mut b = Battle::duel(&engine, &map, 1);
    let [short, broad] = ["Shortsword", "Broadsword"].map(crate::Atom::new);
    // In the dark the braves give up the broadsword, then divide.
    b.state.units[1].items = vec![short];
    b.state.to_act = oc_model::SideId::Defender;
    let divide = crate::battle::Act::Special {
        verb: oc_model::Verb::Divide,
        target: None,
        tile: None,
        from: Some(crate::Atom::new("Divide")),
    };
    b.turn(crate::battle::Turn { unit: 1, act: divide, ..Default::default() }).expect("the braves divide");
    assert_eq!(b.units.len(), 3, "a new unit formed");
    assert_eq!(b.units[2].items, vec![short]);
    assert!(!b.sight(oc_model::SideId::Attacker).spots(2, b.units[2].pos), "out of sight");
    let fog = Fog::new(&b, oc_model::SideId::Attacker, &[None, None, None], &mut Walks::default());
    for seed in 0..4 {
        let copy = Seen::fork(&b, &fog, seed, None).copy;
        assert_eq!(copy.units[2].items, vec![short, broad], "copy {seed}: what the braves deployed with");
    }
}

/// Under fog, a copy gives a body of a mixed unit out of sight (seed 003: Fenth fighting in the
/// spearmen, "the spearmen (plus my leader)") what its side knows of it: never seen, full hit
/// points and what it deployed with; seen with its unit, as it was then. Not its hit points and
/// kit now. (The copies gave a body what it truly bore: only units standing were known.)
#[test]
fn a_copy_gives_a_body_out_of_sight_what_its_side_knows_of_it() {
    use crate::ai::sighting::seen::{Fog, Seen, Walks};
    use crate::ai::sighting::Sighting;
    let (engine, map) = crate::ai::sighting::tests::mixed_fog_duel();
    let mut b = Battle::duel(&engine, &map, 1);
    let fenth = b.units.iter().position(|u| u.name == "Fenth").expect("Fenth");
    assert_eq!(b.units[fenth].with, Some(1), "Fenth fights in the spearmen");
    let (full, blade) = (b.units[fenth].max_hp, crate::Atom::new("Runeblade"));
    // In the dark Fenth is wounded and gives up his blade.
    b.state.units[fenth].hp = full - 3;
    b.state.units[fenth].items.clear();
    b.state.units[fenth].equipped = None;
    let body = |memory: &[Option<Sighting>]| -> Vec<(i64, Vec<crate::Atom>, Option<crate::Atom>)> {
        let fog = Fog::new(&b, oc_model::SideId::Attacker, memory, &mut Walks::default());
        (0..4)
            .map(|seed| {
                let copy = Seen::fork(&b, &fog, seed, None).copy;
                let u = &copy.units[fenth];
                (u.hp, u.items.clone(), u.equipped)
            })
            .collect()
    };
    for seen in body(&vec![None; b.units.len()]) {
        assert_eq!(seen, (full, vec![blade], Some(blade)), "never seen: as he deployed");
    }
    let mut memory = vec![None; b.units.len()];
    memory[fenth] = Some(Sighting { hp: full - 1, items: vec![blade], equipped: Some(blade), round: 1, ..Sighting::default() });
    for seen in body(&memory) {
        assert_eq!(seen, (full - 1, vec![blade], Some(blade)), "seen with the spearmen: as he was then");
    }
}

/// Under fog, a copy gives an enemy shifter out of sight the form its side knows (seed 000's
/// Shifting: transformed in its own turn, normal again after acting "until the next round"; one
/// that ends its turn without acting stays transformed): never seen, normal, as it deployed; seen,
/// as last seen, reverted only in the round it was seen acting. Not the form it took in the dark.
#[test]
fn a_copy_gives_an_enemy_shifter_out_of_sight_the_form_its_side_knows() {
    use crate::ai::sighting::Sighting;
    let (engine, map) =
        crate::testing::fog_duel(["unit Brave: Fighter { items IronAxe }", "unit Foe: Manakete { items Dragonstone }"]);
    let mut b = fog_duel_in_round_four(&engine, &map);
    let forms = |b: &Battle, memory: &[Option<Sighting>]| foe_in_copies(b, memory, 4, |u| (u.transformed, u.reverted));
    // In the dark it ended a turn without acting: it stands transformed.
    b.state.units[1].transformed = true;
    assert!(forms(&b, &[None, None]).iter().all(|f| *f == (false, false)), "never seen: normal, as it deployed");
    // Seen standing transformed last round; it acted in the dark this round.
    (b.state.units[1].transformed, b.state.units[1].reverted) = (false, true);
    let [none, Some(s)] = seen_foe((None, 3, false), (20, Vec::new(), None)) else { unreachable!() };
    let memory = [none.clone(), Some(Sighting { transformed: true, ..s.clone() })];
    assert!(forms(&b, &memory).iter().all(|f| *f == (true, false)), "seen transformed");
    // Seen acting (normal until the next round): in that round, and the round after.
    for (round, reverted) in [(4, true), (3, false)] {
        let memory = [none.clone(), Some(Sighting { round, reverted: true, ..s.clone() })];
        (b.state.units[1].transformed, b.state.units[1].reverted) = (true, false);
        assert!(forms(&b, &memory).iter().all(|f| *f == (false, reverted)), "seen acting in round {round}");
    }
}

/// Under fog, a copy gives an enemy out of sight the resources the side knows it by (seed 002's
/// stamina and guard), not its own: those it was last seen with, set again by the refills the
/// side knows came since (a round's start: "Stamina: actions and reactions spend it", full
/// again each round; its next activation: "Guard ... Armor added until the unit's next
/// activation"), and, never seen, those it deploys with, refilled likewise. (Each copy held the
/// enemy's true resources: spent or guarded out of sight, the side knew it.)
#[test]
fn a_copy_gives_an_enemy_out_of_sight_the_resources_the_side_knows_it_by() {
    use crate::ai::sighting::seen::{Fog, Seen, Walks};
    use crate::ai::sighting::Sighting;
    let units = ["unit Brave: Warrior { items Greatsword }", "unit Foe: Warrior { items Greatsword }"];
    let (engine, map) = crate::testing::duel(&["...................."; 7], "std:stamina", "    fog vision 2\n", units);
    let mut b = fog_duel_in_round_four(&engine, &map);
    let index = |name: &str| engine.rules.ruleset.resources.iter().position(|r| r.name == name).expect(name);
    let (stamina, guard) = (index("stamina"), index("guard_armor"));
    let full = b.units[1].resources[stamina];
    assert!(full > 2, "a warrior's stamina: {full}");
    // Spent and guarded out of sight.
    b.state.units[1].resources[stamina] = 0;
    b.state.units[1].resources[guard] = 5;
    let held = |b: &Battle, memory: &[Option<Sighting>]| -> Vec<[i64; 2]> {
        let fog = Fog::new(b, oc_model::SideId::Attacker, memory, &mut Walks::default());
        (0..4)
            .map(|seed| {
                let copy = Seen::fork(b, &fog, seed, None).copy;
                [copy.state.units[1].resources[stamina], copy.state.units[1].resources[guard]]
            })
            .collect()
    };
    let seen = |b: &Battle, round: u32, acted: bool, lost: bool| {
        let mut resources = b.units[1].resources.clone();
        (resources[stamina], resources[guard]) = (2, 3);
        let [none, Some(s)] = seen_foe((None, round, lost), (20, Vec::new(), b.units[1].equipped)) else { unreachable!() };
        [none, Some(Sighting { resources, acted, ..s })]
    };
    for lost in [false, true] {
        // Seen this round, before its activation; it has not had it.
        assert!(
            held(&b, &seen(&b, 4, false, lost)).iter().all(|r| *r == [2, 3]),
            "this round: {:?}",
            held(&b, &seen(&b, 4, false, lost))
        );
        // Seen last round: a round's start refilled its stamina and an activation ended its guard.
        assert!(
            held(&b, &seen(&b, 3, false, lost)).iter().all(|r| *r == [full, 0]),
            "last round: {:?}",
            held(&b, &seen(&b, 3, false, lost))
        );
    }
    // It has had its activation this round (the side counts it): seen before it, its guard ended;
    // seen after it, its guard stands.
    b.state.units[1].activated = true;
    assert!(held(&b, &seen(&b, 4, false, false)).iter().all(|r| *r == [2, 0]), "{:?}", held(&b, &seen(&b, 4, false, false)));
    assert!(held(&b, &seen(&b, 4, true, false)).iter().all(|r| *r == [2, 3]), "{:?}", held(&b, &seen(&b, 4, true, false)));
    // Never seen: as it deploys, refilled.
    assert!(held(&b, &[None, None]).iter().all(|r| *r == [full, 0]), "never seen: {:?}", held(&b, &[None, None]));
}

/// Under fog, a copy gives an enemy out of sight what it carries, the uses of each spent, its
/// debuffs and its courage as the side knows them, not its own: as last seen, a debuff worn off
/// once it has had an activation since ("Target unit has their Rating reduced by X on their next
/// turn"; one a round: seen after this round's, not until it has had the next), and, never seen,
/// what it carries now, none spent, none, steady. (Each copy held the true ones: broken,
/// weakened or drinking a salve out of sight, the side knew it; broken, 92 of 33,376 of the fog
/// test's decisions changed with it, weakened 34.)
#[test]
fn a_copy_gives_an_enemy_out_of_sight_its_kit_debuffs_and_courage_as_seen() {
    use crate::ai::sighting::Sighting;
    use crate::battle::{Debuff, Morale};
    let (engine, map) = crate::testing::fog_duel(FOG_UNITS);
    let mut b = fog_duel_in_round_four(&engine, &map);
    let attr = crate::Atom::new(&engine.rules.ruleset.stats[0].name);
    let [axe, hand] = ["IronAxe", "HandAxe"].map(crate::Atom::new);
    // Seen carrying a hand axe too, with an axe's use spent, weakened and routing; now without
    // it (used up in the dark), two uses spent, unweakened, steady but tested.
    let weak = vec![Debuff { attr, shift: 2, armed: false }];
    let broken = Morale { routing: true, ..Morale::default() };
    b.state.units[1].spent = vec![(axe, 2)];
    b.state.units[1].morale.tested_at = Some(3);
    let kit = (vec![axe, hand], vec![(axe, 1)]);
    type Bearing = ((Vec<crate::Atom>, Vec<(crate::Atom, u32)>), Vec<Debuff>, Morale);
    let borne = |b: &Battle, memory: &[Option<Sighting>]| -> Vec<Bearing> {
        foe_in_copies(b, memory, 4, |u| ((u.items.clone(), u.spent.clone()), u.debuffs.clone(), u.morale.clone()))
    };
    let seen = |round: u32, acted: bool, lost: bool| {
        let [none, Some(s)] = seen_foe((None, round, lost), (20, Vec::new(), None)) else { unreachable!() };
        let (items, spent) = kit.clone();
        [none, Some(Sighting { items, spent, debuffs: weak.clone(), morale: broken.clone(), acted, ..s })]
    };
    let all = |x: &[Bearing], debuffs: &[Debuff]| x.iter().all(|x| *x == (kit.clone(), debuffs.to_vec(), broken.clone()));
    for lost in [false, true] {
        // It has not had its activation this round.
        b.state.units[1].activated = false;
        // Seen this round, before it: all as seen.
        assert!(all(&borne(&b, &seen(4, false, lost)), &weak), "{:?}", borne(&b, &seen(4, false, lost)));
        // Seen last round before that round's: it has had one since, so the debuff wore off.
        assert!(all(&borne(&b, &seen(3, false, lost)), &[]), "{:?}", borne(&b, &seen(3, false, lost)));
        // Seen last round after it: not since.
        assert!(all(&borne(&b, &seen(3, true, lost)), &weak), "{:?}", borne(&b, &seen(3, true, lost)));
        // Seen two rounds ago after it: since (last round's).
        assert!(all(&borne(&b, &seen(2, true, lost)), &[]), "{:?}", borne(&b, &seen(2, true, lost)));
        // It has had this round's: seen last round after that round's, or this round before
        // this one's, it has had one since; seen this round after it, not.
        b.state.units[1].activated = true;
        assert!(all(&borne(&b, &seen(3, true, lost)), &[]), "{:?}", borne(&b, &seen(3, true, lost)));
        assert!(all(&borne(&b, &seen(4, false, lost)), &[]), "{:?}", borne(&b, &seen(4, false, lost)));
        assert!(all(&borne(&b, &seen(4, true, lost)), &weak), "{:?}", borne(&b, &seen(4, true, lost)));
    }
    let never = borne(&b, &[None, None]);
    assert!(never.iter().all(|x| *x == ((vec![axe], Vec::new()), Vec::new(), Morale::default())), "never seen: {never:?}");
}

/// Under fog, an enemy out of sight that the side saw this round once it had had its activation
/// has had it in every copy: the draw marks the others (it had drawn among all, so the side
/// forgot an activation it watched).
#[test]
fn a_copy_keeps_an_activation_the_side_saw() {
    let (engine, map) = crate::testing::fog_duel(TWO_FOES);
    let b = two_foes_in_round_two(&engine, &map);
    let foe =
        |round: u32, acted: bool| crate::ai::sighting::Sighting { tile: (9, 3), round, hp: 20, acted, ..Default::default() };
    let marks = |memory: &[Option<crate::ai::sighting::Sighting>]| activation_marks(&b, memory);
    // Seen acting this round: always the one.
    let watched = marks(&[None, Some(foe(2, true)), None]);
    assert!(watched.iter().all(|m| *m == [true, false]), "{watched:?}");
    // Seen before it, or last round: one of the two, drawn.
    for memory in [[None, Some(foe(2, false)), None], [None, Some(foe(1, true)), None]] {
        let drawn = marks(&memory);
        assert!(drawn.iter().all(|m| m[0] != m[1]), "{drawn:?}");
        assert!(drawn.iter().any(|m| m[1]), "{drawn:?}");
    }
}

/// Under fog, a copy marks as many enemies out of sight as having had their activation this
/// round as truly have (the side counts the enemy's turns), but which ones its dice draw: each
/// copy had kept the true ones, so a playout knew which enemy in the dark was spent. An enemy
/// in sight keeps its own mark.
#[test]
fn a_copy_draws_which_enemies_in_the_dark_have_acted() {
    use crate::ai::sighting::seen::{Fog, Seen, Walks};
    let (engine, map) = crate::testing::fog_duel(TWO_FOES);
    let mut b = two_foes_in_round_two(&engine, &map);
    let marks = |b: &Battle| activation_marks(b, &[None, None, None]);
    let drawn = marks(&b);
    assert!(drawn.iter().all(|m| m.iter().filter(|x| **x).count() == 1), "one of the two, always: {drawn:?}");
    assert!(drawn.contains(&[true, false]) && drawn.contains(&[false, true]), "either one: {drawn:?}");
    // Neither has acted: neither in any copy; both: both.
    for both in [false, true] {
        b.state.units[1].activated = both;
        b.state.units[2].activated = both;
        assert!(marks(&b).iter().all(|m| *m == [both, both]), "{both}");
    }
    // A shifter drawn to wait has not reverted to its form (only one that acted has).
    b.state.units[1].activated = true;
    b.state.units[1].reverted = true;
    let fog = Fog::new(&b, oc_model::SideId::Attacker, &[None, None, None], &mut Walks::default());
    for seed in 0..32 {
        let foe = &Seen::fork(&b, &fog, seed, None).copy.state.units[1];
        assert!(foe.activated || !foe.reverted, "seed {seed}");
    }
    b.state.units[1].reverted = false;
    // An enemy in the middle of its activation keeps its mark; the other is drawn alone.
    b.state.active = Some(crate::battle::Activation { unit: 1, ..Default::default() });
    b.state.units[1].activated = false;
    b.state.units[2].activated = true;
    assert!(marks(&b).iter().all(|m| *m == [false, true]), "{:?}", marks(&b));
    b.state.active = None;
    // In sight (beside the attacker), the foe keeps its own mark; the other is drawn alone.
    b.state.units[1].pos = (2, 1);
    b.state.units[1].activated = true;
    b.state.units[2].activated = false;
    assert!(b.sight(oc_model::SideId::Attacker).spots(1, (2, 1)));
    assert!(marks(&b).iter().all(|m| *m == [true, false]), "{:?}", marks(&b));
}

/// Where units act in an order by a resource (seed 004's initiative), that order is known (the
/// resource too), and so which enemies have acted: a copy keeps every mark (drawn, it let a unit
/// that had acted act again ahead of those still to come, a state the battle never reaches).
#[test]
fn a_copy_keeps_who_has_acted_where_the_order_is_known() {
    use crate::ai::sighting::seen::{Fog, Seen, Walks};
    let units =
        ["unit Hal: Militia { items Spear }", "unit Foe: Militia { items Spear }\n    unit Other: Militia { items Spear }"];
    let (engine, map) = crate::testing::duel(&["...................."; 7], "std:skirmish", "    fog vision 2\n", units);
    assert!(matches!(engine.rules.ruleset.turn.order, oc_model::Order::By { .. }));
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(&engine);
    let mut b = Battle::new(&engine, s, &map, [a, d], [&[(1, 1)][..], &[(18, 0), (19, 2)][..]], 3).expect("the battle starts");
    b.state.units[2].pos = (18, 5);
    b.state.units[1].activated = true;
    // And the initiative each rolled, the order's resource ("Initiative: actions left this
    // round"): never rolled again in a copy.
    let initiative = engine.rules.ruleset.resources.iter().position(|r| r.name == "initiative").expect("the order's resource");
    let rolled = [9, 0];
    for (k, v) in [1, 2].into_iter().zip(rolled) {
        b.state.units[k].resources[initiative] = v;
    }
    let fog = Fog::new(&b, oc_model::SideId::Attacker, &[None, None, None], &mut Walks::default());
    for seed in 0..32 {
        let copy = Seen::fork(&b, &fog, seed, None).copy;
        assert_eq!([copy.state.units[1].activated, copy.state.units[2].activated], [true, false], "seed {seed}");
        assert_eq!([1, 2].map(|k| copy.state.units[k].resources[initiative]), rolled, "seed {seed}");
    }
}

/// A copy sets an enemy never seen on the first free tile from the one its dice pick, round
/// to the set's start: never a held one, each free one some of the time, none where all are
/// held; and the tile after a held one as often as the draw lands on either (half the time, of
/// four with the first held: the draw kept, `seen::draw_free`, for what it measured).
#[test]
fn an_enemy_in_the_dark_is_set_on_the_first_free_tile_from_the_draw() {
    let tiles = [(0, 0), (1, 0), (5, 0), (9, 0)];
    let held = [(0, 0)];
    let draws = 8000u64;
    let mut count = [0usize; 4];
    for k in 0..draws {
        let t = crate::ai::sighting::seen::draw_free(&tiles, &held, super::mix(k));
        if let Some(i) = tiles.iter().position(|x| Some(*x) == t) {
            count[i] += 1;
        }
    }
    assert_eq!(count[0], 0, "{count:?}");
    assert!(count.iter().skip(1).all(|c| *c > 0), "{count:?}");
    assert!((count[1] as f64 / draws as f64 - 0.5).abs() < 0.03, "{count:?}");
    assert_eq!(crate::ai::sighting::seen::draw_free(&tiles, &tiles, 7), None);
}
