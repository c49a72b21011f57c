//! Seeds 000 and 001, battle-level rules: special actions, statuses with durations or rolls,
//! movement columns, shifting, and v0.6's Sacred, Relic and Arts. Each test quotes the seed and
//! asserts a battle state after scripted turns on the shared arena (`tests/common/arena.rs`).
//! Tags whose battle effect `tests/battle.rs` already asserts are listed in docs/seed-coverage.md.

#[path = "common/arena.rs"]
mod arena;

use arena::{battle, battle_seeded, compile_on, last_note, setup, setup_on, special, wait, MAP};
use oc_engine::battle::{Act, Affliction, Battle, Record, Turn};
use oc_engine::{Engine, Form};
use oc_model::{SideId, Verb};

const V06: &str = "import \"std:v06\"";

fn afflict(b: &mut Battle, unit: usize, status: &str) {
    b.state.units[unit].statuses.push(Affliction { status: status.into(), left: None });
}

fn has(b: &Battle, unit: usize, status: &str) -> bool {
    b.units[unit].statuses.iter().any(|a| a.status == status)
}

/// Every unit still to act this round waits, until the round is `round`.
fn wait_until_round(b: &mut Battle, round: u32) {
    while b.round < round && b.outcome.is_none() {
        let next = b.waiting(b.to_act)[0];
        b.turn(wait(next)).unwrap();
    }
}

#[test]
fn each_movement_type_pays_its_column_of_the_terrain_table() {
    // Seed 000: "Units with certain tags (Armored, Cavalry, Flying) use their respective columns
    // on the table, while all other units use the "Foot" column." Forest: Foot 2, Armored 2,
    // Cavalry 3, Flying 1; Desert: 2, 3, 2, 1; Mountain: 4, -, -, 1.
    let map = MAP.replacen("\"...#D#..\"", "\".ffff...\"", 1).replacen(
        "\"........\",\n  \"..F.....\"",
        "\".dddd...\",\n  \".^^^^...\"",
        1,
    );
    assert!(map.contains(".ffff...") && map.contains(".^^^^..."), "{map}");
    // From (0, 2): the desert (1, 2) is entered directly; the forest (1, 1) and the mountain
    // (1, 3) after one Plains step.
    for (class, weapon, forest, desert, mountain) in [
        ("Mercenary", "IronSword", Some(3), Some(2), Some(5)),
        ("Knight", "IronLance", Some(3), Some(3), None),
        ("Cavalier", "IronLance", Some(4), Some(2), None),
        ("PegasusKnight", "IronLance", Some(2), Some(1), Some(2)),
    ] {
        let (rules, m) = setup_on(
            &map,
            "",
            &format!(
                "army A for Arena attacker {{ unit X: {class} {{ items {weapon} }} }}
                 army D for Arena defender {{ unit Bors: Soldier {{ items IronLance }} }}"
            ),
        );
        let engine = Engine::new(rules).unwrap();
        let b = battle(&engine, &m, [&[(0, 2)], &[(7, 4)]]);
        let reach = b.reachable(0).unwrap();
        let got = (reach.get(&(1, 1)).copied(), reach.get(&(1, 2)).copied(), reach.get(&(1, 3)).copied());
        assert_eq!(got, (forest, desert, mountain), "{class}");
    }
}

#[test]
fn greater_heal_adds_to_a_heal_staff() {
    // Seed 000: "Heal(X) | Heal the Target for X Damage." and "GreaterHeal(X) | Increase the
    // amount healed when using Heal actions by X." A Bishop (GreaterHeal(2)) with Heal (Heal(5)).
    let (rules, map) = setup(
        "army A for Arena attacker { unit Moulder: Bishop { items HealStaff } unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 2), (1, 2)], &[(7, 4)]]);
    b.state.units[1].hp = 8;
    b.turn(special(0, None, Verb::Heal, Some(1), None)).unwrap();
    assert_eq!(b.units[1].hp, 15);
    assert_eq!(last_note(&b), "Moulder heals Ross for 7");
}

#[test]
fn a_restore_staff_removes_every_status_at_staff_range() {
    // Seed 000: "Restore | Remove any Status Effect tags from Unit." The Restore staff's range is
    // "Mag": a Priest's Mag C reaches 4 (Staff Range table); Ross stands 3 away.
    let (rules, map) = setup(
        "army A for Arena attacker { unit Moulder: Priest { items RestoreStaff } unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 4), (0, 1)], &[(7, 4)]]);
    afflict(&mut b, 1, "Poisoned");
    afflict(&mut b, 1, "Berserk");
    b.turn(special(0, None, Verb::Cure, Some(1), None)).unwrap();
    assert!(b.units[1].statuses.is_empty(), "{:?}", b.units[1].statuses);
    assert!(b.log.contains(&Record::Affliction { unit: 1, status: "Poisoned".into(), change: "cured".into() }));
}

#[test]
fn torch_is_an_action_that_changes_nothing_without_fog() {
    // Seed 000: "Torch(X) | Reveal X spaces around the User in Fog of War." The engine plays
    // without fog of war: the action is taken (the turn is spent) and says so.
    let (rules, map) = setup(
        "army A for Arena attacker { unit Moulder: Priest { items TorchStaff } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 2)], &[(7, 4)]]);
    b.turn(special(0, None, Verb::Reveal, None, None)).unwrap();
    assert!(last_note(&b).contains("lights the area"), "{}", last_note(&b));
    assert!(b.units[0].activated);
}

#[test]
fn punishing_hurts_the_attacker_after_its_attack() {
    // Seed 000: "Punishing(X) | At the end of a turn where this weapon was used to attack, the
    // Unit that attacked takes X points of Damage." Moulder's staff never counters.
    let (rules, map) = setup(
        "weapon Scourge { type Axes might 0 weight 1 range 1 tags Punishing(3) cost 1 }
         army A for Arena attacker { unit Ross: Fighter { items Scourge } }
         army D for Arena defender { unit Moulder: Priest { items HealStaff } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 2)], &[(6, 2)]]);
    b.turn(Turn { unit: 0, to: Some((5, 2)), act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
    assert_eq!(b.units[0].hp, 17, "{:?}", b.log);
    // Waiting with it does not punish.
    b.turn(wait(1)).unwrap();
    b.turn(wait(0)).unwrap();
    assert_eq!(b.units[0].hp, 17);
}

#[test]
fn barrier_lasts_until_the_end_of_the_next_round() {
    // Seed 000: "Barrier | Unit gains Bonus(Res+1) until end of next round." Pure Water lays it
    // in round 1: it holds through round 2 and is gone when round 3 begins.
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ross: Fighter { items IronAxe, PureWater } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 0)], &[(7, 4)]]);
    b.turn(Turn { unit: 0, act: Act::Use { item: "PureWater".into(), target: None, tile: None }, ..Default::default() }).unwrap();
    assert!(has(&b, 0, "Barrier"));
    wait_until_round(&mut b, 2);
    assert!(has(&b, 0, "Barrier"), "round 2 is the next round");
    wait_until_round(&mut b, 3);
    assert!(!has(&b, 0, "Barrier"));
    assert!(b.log.contains(&Record::Affliction { unit: 0, status: "Barrier".into(), change: "wears off".into() }));
}

/// Searches seeds for one where unit 0's `Act::Attack` from `from` on unit `target` lays `status`.
fn first_landing<'e>(
    engine: &'e Engine,
    map: &oc_model::BattleMap,
    deploy: [&[(i64, i64)]; 2],
    from: (i64, i64),
    target: usize,
    status: &str,
) -> Battle<'e> {
    for seed in 0..64 {
        let mut b = battle_seeded(engine, map, deploy, seed);
        b.turn(Turn { unit: 0, to: Some(from), act: Act::Attack { target }, ..Default::default() }).unwrap();
        if has(&b, target, status) {
            return b;
        }
    }
    panic!("{status} never landed");
}

#[test]
fn silenced_and_slowed_last_one_activation() {
    // Seed 000: "Silenced | Unit cannot use Reason, Dark, Faith, or Staves. Effect lasts one
    // activation of the unit." The Silence staff (Status(Silenced)) reaches 4 for a Priest.
    let (rules, map) = setup(
        "army A for Arena attacker { unit Moulder: Priest { items Silence } }
         army D for Arena defender { unit Lute: Mage { items Fire } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = first_landing(&engine, &map, [&[(0, 2)], &[(6, 2)]], (3, 2), 1, "Silenced");
    let refused = b.turn(Turn { unit: 1, to: Some((5, 2)), act: Act::Attack { target: 0 }, ..Default::default() });
    assert!(refused.is_err(), "a silenced Mage cannot use Fire");
    b.turn(wait(1)).unwrap();
    assert!(!has(&b, 1, "Silenced"), "one activation, then it wears off");
    assert!(b.log.contains(&Record::Affliction { unit: 1, status: "Silenced".into(), change: "wears off".into() }));

    // Seed 000: "Slowed | Unit gains the tag Slow(1). Effect lasts one activation of the unit."
    // Fimbulvetr (Status(Slowed)) from 2: the Mercenary moves 4, not 5, for one activation.
    let (rules, map) = setup(
        "army A for Arena attacker { unit Saleh: Sage { items Fimbulvetr } }
         army D for Arena defender { unit Gerik: Mercenary { items IronSword } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = first_landing(&engine, &map, [&[(0, 2)], &[(6, 2)]], (4, 2), 1, "Slowed");
    if b.units[1].hp > 0 && b.to_act == SideId::Defender {
        let far = b.reachable(1).unwrap().values().copied().max().unwrap();
        assert_eq!(far, 4, "Slow(1) on the base 5");
        b.turn(wait(1)).unwrap();
        assert!(!has(&b, 1, "Slowed"));
        wait_until_round(&mut b, 2);
        b.turn(wait(b.waiting(b.to_act)[0])).unwrap();
        assert_eq!(b.reachable(1).unwrap().values().copied().max().unwrap(), 5);
    }
}

/// Puts `status` on Bors (unit 1) and plays waits round after round: how many seeds of 0..40
/// lose it at the first new round, and whether it always wears off right as a round begins.
fn clears_on_a_round_roll(prelude: &str, status: &str) -> usize {
    let (rules, map) = setup_on(
        MAP,
        prelude,
        "army A for Arena attacker { unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Fighter { items IronAxe } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut first_round = 0;
    for seed in 0..40 {
        let mut b = battle_seeded(&engine, &map, [&[(0, 0)], &[(7, 4)]], seed);
        afflict(&mut b, 1, status);
        // Cannot move or attack (Petrified, Sleep) / must attack (Berserk, nobody in range: waits).
        wait_until_round(&mut b, 2);
        if !has(&b, 1, status) {
            first_round += 1;
            let at = b.log.iter().position(|r| matches!(r, Record::Affliction { change, .. } if change == "wears off")).unwrap();
            assert!(matches!(b.log[at - 1], Record::Round { round: 2, .. }), "{:?}", b.log[at - 1]);
        }
    }
    first_round
}

#[test]
fn round_rolls_clear_berserk_petrified_and_sleep_about_half_the_time() {
    // Seed 000: "At the start of a new round, roll a D10. On 1~5, Unit loses Berserk [Petrified,
    // sleep], on 6~10, No Change." Seed 001: "roll a D20. On 1~10, Unit loses ... on 11~20, No
    // Change." Either way one chance in two: 40 seeds give between 10 and 30 clears.
    for prelude in ["", V06] {
        for status in ["Berserk", "Petrified", "Sleep"] {
            let n = clears_on_a_round_roll(prelude, status);
            assert!((10..=30).contains(&n), "{prelude} {status}: {n} of 40");
        }
    }
}

#[test]
fn petrified_units_cannot_move_or_attack() {
    // Seed 000: "Petrified | Unit cannot move or attack".
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 2)], &[(6, 2)]]);
    b.turn(Turn { unit: 0, to: Some((5, 2)), ..Default::default() }).unwrap();
    afflict(&mut b, 1, "Petrified");
    assert_eq!(b.reachable(1).unwrap().len(), 1);
    assert!(b.turn(Turn { unit: 1, act: Act::Attack { target: 0 }, ..Default::default() }).is_err());
}

#[test]
fn seed_000_poison_stays_until_cured_and_does_no_damage_of_its_own() {
    // Seed 000: "Poisoned | All attacks against the Unit deal an additional 1 point of damage."
    // No way off is given but curing (Restore, Antitoxin): five rounds of waiting keep it, at full HP.
    let (rules, map) = setup(
        "army A for Arena attacker { unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 0)], &[(7, 4)]]);
    afflict(&mut b, 0, "Poisoned");
    wait_until_round(&mut b, 5);
    assert!(has(&b, 0, "Poisoned"));
    assert_eq!(b.units[0].hp, 20);
}

#[test]
fn seed_001_poison_either_clears_or_burns_two_each_round() {
    // Seed 001: "Poisoned At the start of a new round, roll a D20. On 1~10, Unit loses Poisoned,
    // on 11~20, take 2 points of damage."
    let (rules, map) = setup_on(
        MAP,
        V06,
        "army A for Arena attacker { unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Fighter { items IronAxe } }",
    );
    let engine = Engine::new(rules).unwrap();
    let (mut burnt, mut cleared) = (0, 0);
    for seed in 0..40 {
        let mut b = battle_seeded(&engine, &map, [&[(0, 0)], &[(7, 4)]], seed);
        afflict(&mut b, 0, "Poisoned");
        wait_until_round(&mut b, 2);
        let (burns, clears) = (b.units[0].hp == 18, !has(&b, 0, "Poisoned"));
        assert!(burns != clears, "seed {seed}: one roll, one result: {:?}", b.log);
        burnt += usize::from(burns);
        cleared += usize::from(clears);
    }
    assert!(burnt >= 10 && cleared >= 10, "burnt {burnt}, cleared {cleared}");
}

#[test]
fn sacred_heals_two_each_turn_or_four_with_the_crest() {
    // Seed 001: "Sacred(Crest) restores 2 HP every turn, restore 4 HP if unit has the listed
    // Crest." A lance Sacred to the Crest of Blaiddyd: the Lady has that Crest, a Knight none.
    let (rules, map) = setup_on(
        MAP,
        V06,
        "weapon Lughnasadh { type Lances might 6 weight 2 range 1 tags Sacred(CrestOfBlaiddyd) cost 1 }
         army A for Arena attacker { unit Dimitri: Lady { items Lughnasadh } unit Gilliam: Knight { items Lughnasadh } }
         army D for Arena defender { unit Bors: Knight { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 0), (0, 4)], &[(7, 4)]]);
    b.state.units[0].hp = 10;
    b.state.units[1].hp = 10;
    b.turn(wait(0)).unwrap();
    b.turn(wait(2)).unwrap();
    b.turn(wait(1)).unwrap();
    assert_eq!((b.units[0].hp, b.units[1].hp), (14, 12), "{:?}", b.log);
}

#[test]
fn a_relic_without_its_crest_hurts_its_wielder_each_turn() {
    // Seed 001: "Relic(Crest) ... A unit without the listed Crest takes 2 damage at the end of
    // each of it's turns." Areadbhar is Relic(CrestOfBlaiddyd); the Lady has the Crest.
    let (rules, map) = setup_on(
        MAP,
        V06,
        "army A for Arena attacker { unit Gilliam: Knight { items Areadbhar } unit Dimitri: Lady { items Areadbhar } }
         army D for Arena defender { unit Bors: Knight { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 0), (0, 4)], &[(7, 4)]]);
    b.turn(wait(0)).unwrap();
    b.turn(wait(2)).unwrap();
    b.turn(wait(1)).unwrap();
    assert_eq!((b.units[0].hp, b.units[1].hp), (18, 20), "{:?}", b.log);
    wait_until_round(&mut b, 2);
    b.turn(wait(b.waiting(b.to_act)[0])).unwrap();
    let gilliam = if b.units[0].activated { 16 } else { 18 };
    assert_eq!(b.units[0].hp, gilliam, "2 more at the end of each of its turns");
}

#[test]
fn an_art_is_an_attack_with_its_bonus_and_needs_the_art_tag() {
    // Seed 001: "Arts are a type of Special Action that acts as an attack." / "Art(Action)
    // Enables the unit to use the Combat Art Action listed." Thunderbrand: Art(Smash), Smash an
    // attack with 3 extra damage. Mercenary 7 + 13 - 12 (Knight) - 1 (Swords lose to Lances) = 7
    // a hit, 10 with Smash; the same seed draws the same strikes.
    let (rules, map) = setup_on(
        MAP,
        V06,
        "army A for Arena attacker { unit Felix: Mercenary { items Thunderbrand, IronSword } }
         army D for Arena defender { unit Bors: Knight { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut found = false;
    for seed in 0..20 {
        let mut plain = battle_seeded(&engine, &map, [&[(1, 2)], &[(6, 2)]], seed);
        plain.turn(Turn { unit: 0, to: Some((5, 2)), act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
        let mut art = battle_seeded(&engine, &map, [&[(1, 2)], &[(6, 2)]], seed);
        art.turn(special(0, Some((5, 2)), Verb::Attack, Some(1), None)).unwrap();
        let (p, a) = (20 - plain.units[1].hp, 20 - art.units[1].hp);
        if art.units[1].hp == 0 {
            continue; // a rout cuts the damage short
        }
        // Every landed strike is 7 or 14 plainly and 10 or 20 with Smash.
        assert_eq!(p % 7, 0, "{}", last_note(&plain));
        assert_eq!(a * 7, p * 10, "seed {seed}: {} / {}", last_note(&plain), last_note(&art));
        found |= p > 0;
    }
    assert!(found);
    // With the Iron Sword equipped the unit has no Art(Smash): no such action.
    let mut b = battle(&engine, &map, [&[(1, 2)], &[(6, 2)]]);
    let t = Turn { equip: Some("IronSword".into()), ..special(0, Some((5, 2)), Verb::Attack, Some(1), None) };
    assert!(b.turn(t).is_err());
}

#[test]
fn warp_reaches_str_spaces_in_v06() {
    // Seed 001: "Warp Move Target to a space up to Str spaces away." Numbers: a Cleric's Str 5.
    let (rules, map) = setup_on(
        MAP,
        V06,
        "army A for Arena attacker { unit Moulder: Cleric { items WarpStaff } unit Ross: Fighter { items IronAxe } }
         army D for Arena defender { unit Bors: Knight { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(0, 2), (1, 2)], &[(7, 4)]]);
    assert!(b.turn(special(0, None, Verb::Relocate, Some(1), Some((6, 2)))).is_err(), "6 spaces");
    b.turn(special(0, None, Verb::Relocate, Some(1), Some((5, 2)))).unwrap();
    assert_eq!(b.units[1].pos, (5, 2));
}

#[test]
fn a_shifter_that_took_no_action_stays_transformed() {
    // Seed 000, Shifting: "At the end of it's turn, if it took any action or free action, it
    // transforms back into it's Normal state." Moving is neither: Myrrh moves and waits, and is
    // still the dragon when Bors attacks her; Saleh's Manakete attacks and is Normal after.
    let (rules, map) = setup(
        "army A for Arena attacker { unit Myrrh: Manakete { items Dragonstone } unit Nini: Manakete { items Dragonstone } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } unit Kyle: Soldier { items IronLance } }",
    );
    let engine = Engine::new(rules).unwrap();
    let mut b = battle(&engine, &map, [&[(1, 0), (1, 4)], &[(7, 0), (7, 4)]]);
    assert_eq!(b.loadout_of(0, false).unwrap().form, Form::Normal, "normal before its activation");
    b.turn(Turn { unit: 0, to: Some((3, 0)), ..Default::default() }).unwrap();
    assert_eq!(b.loadout_of(0, false).unwrap().form, Form::Default, "no action: still transformed");
    assert!(b.log.contains(&Record::Affliction {
        unit: 0,
        status: "form".into(),
        change: "stays transformed: it took no action".into()
    }));
    b.turn(wait(2)).unwrap();
    // Nini attacks: normal until the next round.
    b.turn(Turn { unit: 1, to: Some((5, 4)), act: Act::Attack { target: 3 }, ..Default::default() }).unwrap();
    assert_eq!(b.loadout_of(1, false).unwrap().form, Form::Normal);
    // A free action (equip) counts too: next round Myrrh equips her stone and waits.
    wait_until_round(&mut b, 2);
    while b.to_act != SideId::Attacker || !b.waiting(SideId::Attacker).contains(&0) {
        b.turn(wait(b.waiting(b.to_act)[0])).unwrap();
    }
    b.turn(Turn { unit: 0, equip: Some("Dragonstone".into()), ..Default::default() }).unwrap();
    assert_eq!(b.loadout_of(0, false).unwrap().form, Form::Normal);
}

#[test]
fn a_shifter_in_normal_form_wields_no_weapon() {
    // Seed 000, Shifting: "They cannot equip any kind of weapon." Reading: the Normal form wields
    // nothing; the stones are the transformed form's (Stones).
    let c = oc_compiler::stdlib::compile("<std>/ratings.oc").unwrap();
    let e = Engine::new(c.rules.unwrap()).unwrap();
    let mut myrrh = oc_engine::Loadout::new("Manakete", Some("Dragonstone"));
    let foe = oc_engine::Loadout::new("Fighter", Some("IronAxe"));
    assert!(e.forecast(&myrrh, &foe, 1).is_ok(), "transformed, the Dragonstone");
    myrrh.form = Form::Normal;
    let err = e.forecast(&myrrh, &foe, 1).unwrap_err();
    assert!(err.message().contains("cannot wield"), "{err}");
    let sword = oc_engine::Loadout { weapon: Some("IronSword".into()), form: Form::Default, ..myrrh };
    assert!(e.forecast(&sword, &foe, 1).is_err(), "nor a sword when transformed");
}

#[test]
fn exclusive_items_are_refused_to_other_classes() {
    // Seed 000: "Exclusive(Class) | Can only be used by the tagged Class". The Wo Dao is
    // Exclusive(Swordmaster): a Myrmidon's army does not compile.
    let (rules, _) = compile_on(
        MAP,
        "",
        "army A for Arena attacker { unit Joshua: Myrmidon { items WoDao } }
         army D for Arena defender { unit Bors: Soldier { items IronLance } }",
    );
    let Err(diags) = rules else { panic!("a Myrmidon cannot carry the Wo Dao") };
    assert!(diags.iter().any(|d| d.message.contains("exclusive to Swordmaster")), "{diags:#?}");
}
