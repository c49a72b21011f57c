//! Seed 004 (`std:skirmish`) read rule by rule as its players know it: each test quotes the seed
//! and asserts a forecast or a scripted battle. The per-strike numbers are in `seed_002_004.rs`.

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, Turn};
use oc_engine::{rng, Engine, Exchange, Loadout};
use oc_model::SideId;

fn skirmish() -> Engine {
    let c = oc_compiler::stdlib::compile("<std>/skirmish.oc").unwrap();
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    Engine::new(c.rules.unwrap()).unwrap()
}

fn u(class: &str, weapon: &str) -> Loadout {
    Loadout::new(class, Some(weapon))
}

/// Every melee class of the roster with its own weapon.
const MELEE: &[(&str, &str)] = &[
    ("Militia", "Spear"),
    ("Veteran", "Sword"),
    ("Champion", "Axe"),
    ("Skirmisher", "Dagger"),
    ("Rider", "Lance"),
    ("Lord", "Sword"),
    ("Dragon", "Claws"),
    ("Adept", "Quarterstaff"),
];

/// The chance each side is routed over seeded resolutions, against the exact forecast.
fn agrees(x: &Exchange, what: &str) {
    let n: u64 = std::env::var("OC_SAMPLES").ok().and_then(|s| s.parse().ok()).unwrap_or(100_000);
    let f = x.forecast();
    let mut routed = [0u64; 2];
    for seed in 0..n {
        let hp = x.resolve_hp(&mut rng(seed));
        for (side, r) in routed.iter_mut().enumerate() {
            *r += u64::from(hp[side] <= 0);
        }
    }
    for (side, exact) in [f.attacker_routed, f.defender_routed].into_iter().enumerate() {
        let s = routed[side] as f64 / n as f64;
        assert!((s - exact).abs() < 0.003, "{what}: side {side} routed {exact} exact, {s} sampled");
    }
}

#[test]
fn only_a_charge_is_answered() {
    // "Melee: - Attack a single target with a melee weapon. ... Charge: Move up to 4 squares and
    // make a skirmish attack. If the target is still alive it gets a immediate skirmish attack
    // targeting the" charger: a standing skirmish attack draws no answer, a charge does.
    let e = skirmish();
    for (ac, aw) in MELEE {
        for (dc, dw) in MELEE {
            let (la, ld) = (u(ac, aw), u(dc, dw));
            let what = format!("{ac}:{aw} on {dc}:{dw}");
            let standing = Exchange::new(&e, &la, &ld, 1).unwrap().forecast();
            assert_eq!(standing.defender.strikes, 0, "{what}: a standing attack is not answered");
            assert_eq!(standing.attacker_damage_taken, 0.0, "{what}");
            let charge = Exchange::new(&e, &la, &ld, 1).unwrap().moved([true, false]);
            let f = charge.forecast();
            assert_eq!(f.defender.strikes, 1, "{what}: a charge is answered");
            assert!(f.attacker_damage_taken > 0.0, "{what}");
            // The answer comes only "if the target is still alive".
            assert!(f.attacker_routed <= 1.0 - f.defender_routed + 1e-12, "{what}");
        }
    }
    // Missiles are never answered, moved or not.
    let (la, ld) = (u("Bowman", "Longbow"), u("Militia", "Spear"));
    let shot = Exchange::new(&e, &la, &ld, 3).unwrap().moved([true, false]).forecast();
    assert_eq!(shot.defender.strikes, 0);
    // The exact forecast of a charge agrees with its seeded resolutions.
    let (la, ld) = (u("Veteran", "Sword"), u("Champion", "Axe"));
    agrees(&Exchange::new(&e, &la, &ld, 1).unwrap().moved([true, false]), "Veteran charges Champion");
}

/// A 10x5 field whose deployment zones meet at x = 4|5, with a wall at (2, 4).
const FIELD: [&str; 5] = ["..........", "..........", "..........", "..........", "..#......."];

/// A skirmish battle on [`FIELD`] of one unit a side.
fn duel<'e>(engine: &'e Engine, map: &oc_model::BattleMap, deploy: [(i64, i64); 2], seed: u64) -> Battle<'e> {
    arena::battle_seeded(engine, map, [&[deploy[0]], &[deploy[1]]], seed)
}

/// The field's scenario under the skirmish rules.
fn compiled(armies: &str) -> (Engine, oc_model::BattleMap) {
    field::compiled(&field::map(FIELD, "", field::HALVES), &field::arena("std:skirmish", "", ""), armies)
}

/// Lets the defender's units wait while the defender has the turn.
fn defender_waits(b: &mut Battle) {
    for _ in 0..40 {
        if b.to_act != SideId::Defender || b.outcome.is_some() {
            return;
        }
        let Some(k) = b.may_act(SideId::Defender).first().copied() else { return };
        b.turn(arena::wait(k)).unwrap();
    }
}

fn notes(b: &Battle) -> Vec<String> {
    b.log.iter().filter_map(|r| if let Record::Turn { note, .. } = r { Some(note.clone()) } else { None }).collect()
}

#[test]
fn a_charge_is_answered_in_battle_and_a_standing_attack_is_not() {
    // "Charge: Move up to 4 squares and make a skirmish attack. If the target is still alive it
    // gets a immediate skirmish attack targeting the" charger.
    let armies = "army A for Arena attacker { unit Ann: Champion { items Axe } }\n\
                  army D for Arena defender { unit Dan: Lord { items Sword } }";
    let (engine, map) = compiled(armies);
    let (mut charged, mut stood) = (0, 0);
    for seed in 0..12 {
        // The charge: four squares, then the attack, in one step.
        let mut b = duel(&engine, &map, [(0, 2), (5, 2)], seed);
        defender_waits(&mut b);
        b.turn(Turn { unit: 0, to: Some((4, 2)), act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
        let note = arena::last_note(&b);
        assert!(note.contains("attacks Dan"), "{note}");
        // The Lord survives a Champion's attack unless it rolls 20 points: it answers.
        if b.units[1].hp > 0 {
            assert!(note.contains("counter"), "seed {seed}: a charge is answered: {note}");
            charged += 1;
        }
        // A standing attack from the square beside.
        let mut b = duel(&engine, &map, [(4, 2), (5, 2)], seed);
        defender_waits(&mut b);
        b.turn(Turn { unit: 0, act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
        let note = arena::last_note(&b);
        assert!(note.contains("attacks Dan") && !note.contains("counter"), "seed {seed}: {note}");
        stood += 1;
        assert!(notes(&b).iter().all(|n| !n.contains("counter")));
    }
    assert!(charged > 0 && stood > 0);
}

#[test]
fn no_missile_is_fired_to_a_target_in_the_shooters_zone_nor_from_an_enemys() {
    // "Missiles cannot be fired from to a target in the treat zone of the source" ("The threat
    // zone of a target is all squares in front and the 2 squares beside the target").
    let armies = "army A for Arena attacker { unit Lyle: Bowman { items Longbow } }\n\
                  army D for Arena defender { unit Hal: Militia { items Spear } unit Jory: Militia { items Spear } }";
    let (engine, map) = compiled(armies);
    let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2)], &[(5, 3), (7, 2)]], 3);
    defender_waits(&mut b);
    let shoot = |target| Turn { unit: 0, act: Act::Attack { target }, ..Default::default() };
    // Hal, two squares off on the diagonal ahead, is in the bowman's zone: no shot at him.
    let err = b.turn(shoot(1)).unwrap_err().to_string();
    assert!(err.contains("step_allowed"), "{err}");
    // Hal faces the bowman's side, so the bowman stands in Hal's zone: no shot at Jory either.
    let err = b.turn(shoot(2)).unwrap_err().to_string();
    assert!(err.contains("step_allowed"), "{err}");
    // Hal turned away: the bowman is out of his zone, and may shoot Jory, three squares off.
    b.state.units[1].facing = Some((1, 0));
    b.turn(shoot(2)).unwrap();
    let note = arena::last_note(&b);
    // "if the source ignore a unit in its treat zone to fire at another unit, the unit in the
    // treat zone has a free attack": Hal, in the bowman's zone, strikes first.
    assert!(note.starts_with("free attack by Hal on Lyle"), "{note}");
    if b.units[0].hp > 0 {
        assert!(note.contains("Lyle attacks Jory"), "{note}");
    }
    // A bowman that does not shoot because of the zones says so in the log.
    let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2)], &[(5, 3), (7, 2)]], 3);
    defender_waits(&mut b);
    b.turn(arena::wait(0)).unwrap();
    let note = arena::last_note(&b);
    assert!(note.contains("holds its shot at Hal: it stands in an enemy's threat zone and the target in its own"), "{note}");
    assert!(note.contains("holds its shot at Jory: it stands in an enemy's threat zone"), "{note}");
}

#[test]
fn free_attacks_are_melee_attacks_struck_in_contact() {
    // "Move up to 5 squares, each time a treat zone is evaded, the opponent gets an immediate
    // skirmish attack targeting the mover": a skirmish attack is a melee attack ("Skirmish: Each
    // melee point count as 1 damage"). From the diagonal square ahead of him a spearman strikes;
    // a slinger makes no free attack at all.
    for (class, weapon, strikes) in [("Militia", "Spear", true), ("Slinger", "Sling", false)] {
        let armies = format!(
            "army A for Arena attacker {{ unit Vic: Veteran {{ items Sword }} }}\n\
             army D for Arena defender {{ unit Hal: {class} {{ items {weapon} }} }}"
        );
        let (engine, map) = compiled(&armies);
        let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2)], &[(5, 1)]], 5);
        defender_waits(&mut b);
        // Hal faces west: the square (4, 2) is on the diagonal ahead of him, in his zone.
        assert!(b.threatened_by(1).contains(&(4, 2)));
        b.turn(Turn { unit: 0, to: Some((2, 2)), ..Default::default() }).unwrap();
        let note = arena::last_note(&b);
        assert_eq!(note.contains("free attack by Hal"), strikes, "{class}: {note}");
    }
}

#[test]
fn a_free_attack_is_struck_with_a_melee_weapon_never_a_spell() {
    // "each time a treat zone is evaded, the opponent gets an immediate skirmish attack", and
    // "Skirmish: Attack a single target with a melee weapon": an Adept holding its Firebolt
    // strikes with its Quarterstaff (the spell stays in hand); one with only its spell makes no
    // free attack.
    for (items, note_has) in [
        ("Firebolt, Quarterstaff", Some("free attack by Ada with Quarterstaff on Vic")),
        ("Quarterstaff, Firebolt", Some("free attack by Ada on Vic")),
        ("Firebolt", None),
    ] {
        let armies = format!(
            "army A for Arena attacker {{ unit Vic: Veteran {{ items Sword }} }}\n\
             army D for Arena defender {{ unit Ada: Adept {{ items {items} }} }}"
        );
        let (engine, map) = compiled(&armies);
        let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2)], &[(5, 1)]], 5);
        defender_waits(&mut b);
        let held = b.units[1].equipped;
        assert_eq!(b.free_attack_weapon(1, 0).map(|w| w.to_string()), note_has.map(|_| "Quarterstaff".to_string()), "{items}");
        b.turn(Turn { unit: 0, to: Some((2, 2)), ..Default::default() }).unwrap();
        let log = arena::last_note(&b);
        match note_has {
            Some(n) => assert!(log.contains(n) && !log.contains("magic"), "{items}: {log}"),
            None => assert!(!log.contains("free attack"), "{items}: {log}"),
        }
        assert_eq!(b.units[1].equipped, held, "{items}: the weapon in hand stays in hand");
    }
}

#[test]
fn a_spell_is_one_action_within_15_squares_and_its_damage_is_magic_points() {
    // "Magic: - Only one spell per action can be casted." "The range of a spell is 15 square."
    let e = skirmish();
    let (la, ld) = (u("Adept", "Firebolt"), u("Veteran", "Sword"));
    for d in [1, 2, 15] {
        let f = Exchange::new(&e, &la, &ld, d).unwrap().forecast();
        // One spell, unanswered (not a charge), even in contact.
        assert_eq!((f.attacker.strikes, f.defender.strikes), (1, 0), "distance {d}");
    }
    assert!(Exchange::new(&e, &la, &ld, 16).is_err(), "beyond 15 squares");
    // Two dice, each showing magic one time in six: the caster's magic points are 0, 1 or 2. The
    // Veteran saves a point per save icon and dodges when its maneuver points equal the damage.
    // Brute force over both rolls: P(the Veteran loses no point).
    let faces = [1i64, 10, 100, 1000, 10000, 0];
    let mut unhurt = 0.0;
    for a in faces.iter().flat_map(|x| faces.iter().map(move |y| x + y)) {
        for dfn in faces.iter().flat_map(|x| faces.iter().map(move |y| x + y)) {
            let points = a / 10000 % 10;
            let dodged = dfn / 10 % 10 == points;
            let damage = if points > 0 && !dodged { (points - dfn % 10).max(0) } else { 0 };
            if damage == 0 {
                unhurt += 1.0 / 1296.0;
            }
        }
    }
    let f = Exchange::new(&e, &la, &ld, 7).unwrap().forecast();
    let p = f.defender_hp.get(&f.defender.hp).copied().unwrap_or(0.0);
    assert!((p - unhurt).abs() < 1e-12, "{p} against {unhurt}");
    agrees(&Exchange::new(&e, &la, &ld, 7).unwrap(), "Firebolt on a Veteran");
}

#[test]
fn teleport_moves_the_caster_up_to_15_squares_and_fright_makes_a_unit_flee_5_straight() {
    let armies = "army A for Arena attacker { unit Ada: Adept { items Quarterstaff, Firebolt } }\n\
                  army D for Arena defender { unit Hal: Militia { items Spear } }";
    let (engine, map) = compiled(armies);
    // "Teleport range is 15 squares(from the source of the teleportation)".
    let mut b = arena::battle_seeded(&engine, &map, [&[(0, 0)], &[(9, 4)]], 1);
    defender_waits(&mut b);
    b.turn(arena::special(0, None, oc_model::Verb::Relocate, Some(0), Some((8, 0)))).unwrap();
    assert_eq!(b.units[0].pos, (8, 0));
    // "If a unit is forced to flee, it must move away 5 squares from the target(In strait line
    // unless it can't). Immediate skirmish attacks against the fleeing unit still apply if treat
    // zones are evaded in the process."
    let (mut fled, mut stood) = (0, 0);
    for seed in 0..30 {
        let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2)], &[(5, 2)]], seed);
        defender_waits(&mut b);
        b.turn(arena::special(0, None, oc_model::Verb::Flee, Some(1), None)).unwrap();
        let note = arena::last_note(&b);
        if note.contains("flees") {
            fled += 1;
            // Leaving the square ahead of the adept (in its zone): the adept's free attack.
            assert!(note.contains("free attack by Ada on Hal"), "{note}");
            if b.units[1].hp > 0 {
                // (6, 2), (7, 2), (8, 2), (9, 2) straight on; the map ends, so up to (9, 1).
                assert!(note.contains("Hal flees to (9, 1)"), "{note}");
                assert_eq!(b.units[1].pos, (9, 1));
            }
        } else {
            stood += 1;
            assert_eq!(b.units[1].pos, (5, 2), "{note}");
        }
    }
    assert!(fled > 0 && stood > 0, "{fled} fled, {stood} stood");
}

#[test]
fn logs_tell_the_rolled_icons_in_words() {
    // "To make an action that requires a die roll, simply roll the die and count the number of"
    // points of each icon: the log counts them ("1 melee, 1 save"), not a sum such as 101.
    let e = skirmish();
    let (la, ld) = (u("Veteran", "Sword"), u("Champion", "Axe"));
    let x = Exchange::new(&e, &la, &ld, 1).unwrap().moved([true, false]);
    let icons = ["save", "maneuver", "melee", "missile", "magic", "id"];
    for seed in 0..20 {
        for s in x.resolve(&mut rng(seed)).0 {
            let shown = s.shown.clone().expect("named faces are told in words");
            // The striker's two dice, the struck unit's three, and the striker's check for a
            // hidden target (or the other way round).
            let rolls: Vec<&str> = shown.split(" against ").collect();
            assert_eq!(rolls.len(), 3, "{shown}");
            for (roll, dice) in rolls.iter().zip(if s.side == 0 { [2, 3, 2] } else { [3, 2, 3] }) {
                let mut n = 0;
                for part in roll.split(", ") {
                    let (count, icon) = part.split_once(' ').unwrap();
                    assert!(icons.contains(&icon), "{shown}");
                    n += count.parse::<usize>().unwrap();
                }
                assert_eq!(n, dice, "{shown}");
            }
            // The words agree with the sum the formulas read: melee points are the hundreds.
            let melee = rolls[0].split(", ").find_map(|p| p.strip_suffix(" melee")).map_or(0, |c| c.parse::<i64>().unwrap());
            assert_eq!(melee, s.roll / 100 % 10, "{shown} is {}", s.roll);
        }
    }
}

#[test]
fn a_hidden_target_needs_a_maneuver_check() {
    // "If a source fire at someone but it's half hidden(by someone or something), it must make a
    // medium maneuver check. If the target is fully hidden, the source must make a difficult
    // check." A medium check is one maneuver point of the shooter's own roll, a difficult one two.
    let e = skirmish();
    let (la, ld) = (u("Bowman", "Longbow"), u("Militia", "Spear"));
    let hit = |cover| Exchange::new(&e, &la, &ld, 4).unwrap().cover(cover).forecast().attacker.hit;
    let (open, half, full) = (hit(0), hit(1), hit(2));
    // Two dice: at least one maneuver point 11 times in 36, two 1 time in 36; the check is a roll
    // of its own, independent of the shot.
    assert!((half - open * 11.0 / 36.0).abs() < 1e-12, "{open} {half}");
    assert!((full - open / 36.0).abs() < 1e-12, "{open} {full}");
    agrees(&Exchange::new(&e, &la, &ld, 4).unwrap().cover(1), "a half-hidden Militia");
    // In a battle: a unit on the line between half hides, a wall fully hides.
    let armies = "army A for Arena attacker { unit Lyle: Bowman { items Longbow } unit Pip: Skirmisher { items Dagger } }\n\
                  army D for Arena defender { unit Hal: Militia { items Spear } }";
    let (engine, map) = compiled(armies);
    let b = arena::battle_seeded(&engine, &map, [&[(0, 2), (2, 2)], &[(5, 2)]], 1);
    assert_eq!(Battle::between((0, 2), (5, 2)), vec![(1, 2), (2, 2), (3, 2), (4, 2)]);
    assert_eq!(b.cover_between((0, 2), (5, 2)), 1, "Pip stands between");
    assert_eq!(b.cover_between((0, 1), (5, 1)), 0);
    assert_eq!(b.cover_between((0, 4), (5, 4)), 2, "the wall at (2, 4)");
}

/// Under fog, the cover an AI weighs a shot with (`Battle::cover_as_seen`) counts the units on
/// the line its side can see: a skirmisher of the enemy's in the dark between bowman and target
/// half hides the target in the battle, not in the bowman's reckoning; seen, it does in both.
/// (The AIs read `cover_between`: where an unseen enemy stood changed their shot.)
#[test]
fn a_unit_in_the_dark_hides_a_target_only_in_the_battle() {
    let armies = "army A for Arena attacker { unit Lyle: Bowman { items Longbow } }\n\
                  army D for Arena defender { unit Hal: Militia { items Spear } unit Sly: Skirmisher { items Dagger } }";
    let (engine, map) =
        field::compiled(&field::map(FIELD, "", field::HALVES), &field::arena("std:skirmish", "fog vision 2", ""), armies);
    let mut b = arena::battle_seeded(&engine, &map, [&[(0, 2)], &[(5, 2), (5, 3)]], 1);
    b.state.units[2].pos = (3, 2);
    let sight = b.sight(SideId::Attacker);
    assert!(sight.fogged() && !sight.spots(2, (3, 2)), "Sly is in the dark");
    assert_eq!(b.cover_between((0, 2), (5, 2)), 1, "Sly stands between");
    assert_eq!(b.cover_as_seen((0, 2), (5, 2), &sight), 0, "as the bowman's side can tell it");
    b.state.units[2].pos = (1, 2);
    let sight = b.sight(SideId::Attacker);
    assert!(sight.spots(2, (1, 2)));
    assert_eq!(b.cover_as_seen((0, 2), (5, 2), &sight), 1, "seen, it hides Hal");
    // Without fog the two are one.
    let (engine, map) = compiled(armies);
    let mut b = arena::battle_seeded(&engine, &map, [&[(0, 2)], &[(5, 2), (5, 3)]], 1);
    b.state.units[2].pos = (3, 2);
    assert_eq!(b.cover_as_seen((0, 2), (5, 2), &b.sight(SideId::Attacker)), 1);
}

/// "All units are rolled and the initiative of a unit is the total of maneuver points it rolled";
/// "Each time a PLAYER rolls an ID Icon, that player gains 1 luck point": the initiative roll
/// gives the Lord (a player) a point per ID icon, each round; a troop none.
#[test]
fn the_initiative_roll_gives_a_player_luck_for_its_id_icons() {
    let armies = "army A for Arena attacker { unit Hal: Lord { items Sword } }\n\
                  army D for Arena defender { unit Vic: Veteran { items Sword } }";
    let (engine, map) = compiled(armies);
    let mut total = 0;
    for seed in 0..40 {
        let b = arena::battle_seeded(&engine, &map, [&[(0, 2)], &[(5, 2)]], seed);
        // "1" then a digit per icon: a roll was made.
        let roll = b.resource(0, "initiative_roll").unwrap() - 100_000;
        assert!((0..100_000).contains(&roll), "seed {seed}: {roll}");
        // Four dice; every icon but an ID adds a digit.
        let others: i64 = (0..5).map(|k| roll / 10i64.pow(k) % 10).sum();
        assert_eq!(b.resource(0, "luck"), Some(4 - others), "seed {seed}: roll {roll}");
        assert_eq!(b.resource(0, "initiative"), Some((roll / 10 % 10).max(1)), "seed {seed}");
        assert_eq!(b.resource(1, "luck"), Some(0), "a Veteran is no player");
        total += 4 - others;
    }
    assert!(total > 0, "some ID icon in 40 rolls of four dice");
}

/// The number of `icon` faces in the words of one roll ("1 melee, 2 id").
fn icons(roll: &str, icon: &str) -> i64 {
    roll.split(", ").filter_map(|w| w.strip_suffix(&format!(" {icon}"))).filter_map(|n| n.parse::<i64>().ok()).sum()
}

#[test]
fn a_player_gains_luck_for_each_id_icon_and_spends_it_to_reroll_his_die() {
    // "Luck point. - Each time a PLAYER rolls an ID Icon, that player gains 1 luck point. - A
    // player may spend a luck point to reroll his character die." The Lord is the roster's player
    // character; troops gain none.
    let e = skirmish();
    let lord = u("Lord", "Sword");
    let veteran = u("Veteran", "Sword");
    // `luck` is the ruleset's third resource, after the initiative roll and initiative.
    let luck = |r: &oc_engine::Resolution, side: usize| r.resources[side].get(2).copied().unwrap();
    // Without luck to spend: one roll each, and the Lord gains one point per ID icon it showed.
    let x = Exchange::new(&e, &lord, &veteran, 1).unwrap();
    let n = 4000;
    let mut gained = 0;
    for seed in 0..n {
        let r = x.resolve_all(&mut rng(seed));
        let first = r.log.first().unwrap();
        assert_eq!(first.rerolled, None);
        let shown = first.shown.as_deref().unwrap();
        let attack = shown.split(" against ").next().unwrap();
        assert_eq!(luck(&r, 0), icons(attack, "id"), "{shown}");
        assert_eq!(luck(&r, 1), 0, "a Veteran is no player: {shown}");
        gained += luck(&r, 0);
    }
    // Four Health Dice ("4 points unit are considered LVL 10+"), one face in six an ID icon:
    // two thirds of a point a strike.
    let mean = gained as f64 / n as f64;
    assert!((mean - 4.0 / 6.0).abs() < 0.05, "{mean}");
    // With a point to spend the Lord rerolls a roll that does worse than a fresh one on average:
    // more damage dealt, the point paid (and luck gained again only from the roll kept).
    let lucky = Loadout { resources: vec![("luck".into(), 1)], ..lord.clone() };
    let with = Exchange::new(&e, &lucky, &veteran, 1).unwrap();
    let (plain, rerolled) = (x.forecast(), with.forecast());
    assert!(
        rerolled.defender_damage_taken > plain.defender_damage_taken + 0.05,
        "{} vs {}",
        rerolled.defender_damage_taken,
        plain.defender_damage_taken
    );
    let mut taken = 0;
    for seed in 0..2000 {
        let r = with.resolve_all(&mut rng(seed));
        let first = r.log.first().unwrap();
        let shown = first.shown.as_deref().unwrap();
        if first.rerolled.is_some() {
            assert_eq!(first.rerolled.as_deref(), Some("Luck"));
            assert!(shown.contains("rerolled "), "{shown}");
            // The kept roll is the reroll: its ID icons are the luck left.
            let again = shown.rsplit("rerolled ").next().unwrap();
            assert_eq!(luck(&r, 0), icons(again, "id"), "{shown}");
            taken += 1;
        } else {
            assert_eq!(luck(&r, 0), 1 + icons(shown.split(" against ").next().unwrap(), "id"), "{shown}");
        }
    }
    assert!(taken > 100 && taken < 1900, "{taken}");
    agrees(&with, "a Lord with a luck point against a Veteran");
    // In defence too: a Lord struck with a point to spend rerolls his defence roll.
    let struck = Exchange::new(&e, &veteran, &lucky, 1).unwrap();
    let (plain, rerolled) = (Exchange::new(&e, &veteran, &lord, 1).unwrap().forecast(), struck.forecast());
    assert!(rerolled.defender_damage_taken < plain.defender_damage_taken - 0.01);
    agrees(&struck, "a Veteran against a Lord with a luck point");
}

#[test]
fn only_a_charge_moves_and_attacks_in_one_action() {
    // "Move: - Move up to 5 squares"; "Melee: ... Charge: Move up to 4 squares and make a
    // skirmish attack"; "Missile: Attack a single target with a range weapon"; "Magic: - Only
    // one spell per action can be casted": a shot or a spell is an action of its own, so a
    // bowman or an adept that moves shoots or casts with its next action.
    for (class, weapon) in [("Bowman", "Longbow"), ("Adept", "Firebolt")] {
        let armies = format!(
            "army A for Arena attacker {{ unit Lyle: {class} {{ items {weapon} }} }}\n\
             army D for Arena defender {{ unit Hal: Militia {{ items Spear }} }}"
        );
        let (engine, map) = compiled(&armies);
        let mut b = duel(&engine, &map, [(0, 2), (6, 2)], 1);
        defender_waits(&mut b);
        let at = |to: Option<(i64, i64)>| Turn { unit: 0, to, act: Act::Attack { target: 1 }, ..Default::default() };
        let refused = b.turn(at(Some((3, 2)))).expect_err(&format!("{class}: a move and a shot in one action"));
        assert!(refused.to_string().contains("step_allowed"), "{class}: {refused}");
        // From where it stands, the shot is its action.
        b.turn(at(None)).unwrap();
        assert!(arena::last_note(&b).contains("Lyle attacks Hal"), "{class}: {}", arena::last_note(&b));
    }
    // The Adept charges with its staff, not with its spell.
    let armies = "army A for Arena attacker { unit Ada: Adept { items Quarterstaff, Firebolt } }\n\
                  army D for Arena defender { unit Hal: Militia { items Spear } }";
    let (engine, map) = compiled(armies);
    let mut b = duel(&engine, &map, [(0, 2), (5, 2)], 1);
    defender_waits(&mut b);
    b.turn(Turn { unit: 0, to: Some((4, 2)), act: Act::Attack { target: 1 }, ..Default::default() }).unwrap();
    assert!(arena::last_note(&b).contains("Ada attacks Hal"), "{}", arena::last_note(&b));
}
