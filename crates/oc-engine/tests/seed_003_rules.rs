//! Seed 003 (`std:battlestorm`) read rule by rule as its players know it: each test quotes the
//! seed and asserts a forecast or a scripted battle. The per-strike numbers are in
//! `seed_battlestorm.rs`.

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, Turn};
use oc_engine::{Engine, Exchange, Loadout};
use oc_model::SideId;

/// A 10x5 open field; both sides may deploy anywhere (the tests place units face to face).
fn compiled(armies: &str) -> (Engine, oc_model::BattleMap) {
    field::compiled(&field::map(field::OPEN, "", field::ANYWHERE), &field::arena("std:battlestorm", "", ""), armies)
}

/// Two savages a side: the attacker's at (4, 2) and (5, 1), the defender's at (5, 2) and (4, 3).
/// Each side's first faces the other's first; each side's second stands beside the other's first.
const SAVAGES: &str = "army A for Arena attacker { unit A0: Savage { items Shortsword } unit A1: Savage { items Shortsword } }\n\
                       army D for Arena defender { unit D0: Savage { items Shortsword } unit D1: Savage { items Shortsword } }";
const SAVAGES_AT: [&[(i64, i64)]; 2] = [&[(4, 2), (5, 1)], &[(5, 2), (4, 3)]];

/// The units of the side that won the first roll-off, then the other's: (first, second).
fn sides(b: &Battle) -> ([usize; 2], [usize; 2]) {
    match b.to_act {
        SideId::Attacker => ([0, 1], [2, 3]),
        SideId::Defender => ([2, 3], [0, 1]),
    }
}

fn attack(unit: usize, target: usize) -> Turn {
    Turn { unit, act: Act::Attack { target }, ..Default::default() }
}

fn decline(unit: usize) -> Turn {
    Turn { unit, act: Act::Decline, ..Default::default() }
}

/// The log's turns and resolutions from `from` on: (unit, note), a resolution's unit marked `*`.
fn lines(b: &Battle, from: usize) -> Vec<String> {
    b.log[from..]
        .iter()
        .filter_map(|r| match r {
            Record::Turn { turn, note, .. } => Some(format!("{}: {note}", turn.unit)),
            Record::Resolved { unit, note, .. } => Some(format!("*{unit}: {note}")),
            _ => None,
        })
        .collect()
}

#[test]
fn a_melee_declaration_lets_its_target_activate_at_once() {
    // "An enemy unit upon which an attack has been declared has the option of immediately
    // activating (if it has not already activated this turn)."
    let (engine, map) = compiled(SAVAGES);
    for seed in 0..8 {
        let mut b = arena::battle_seeded(&engine, &map, SAVAGES_AT, seed);
        let ([x, _], [y, _]) = sides(&b);
        let from = b.log.len();
        // What a forecast warns of: the target may answer (oc play's forecast said "no counter").
        assert!(b.before_the_attack(x, b.units[x].pos, y, &b.sight(b.units[x].side)).answers);
        b.turn(attack(x, y)).unwrap();
        // The attack waits: nothing was dealt, and only its target may act, for the other side.
        assert!(arena::last_note(&b).contains("declares an attack on"), "{:?}", lines(&b, from));
        assert_eq!(b.answering(), Some(y));
        assert_eq!(b.to_act, b.units[y].side);
        assert_eq!(b.may_act(b.units[y].side), vec![y]);
        assert!(b.units.iter().all(|u| u.hp == 1));
        // Another unit of the target's side may not act now.
        let other = if y == 2 { 3 } else { 1 };
        assert!(b.turn(Turn { unit: other, ..Default::default() }).is_err());
        // The target answers by attacking the declarer: the two attacks are one combat
        // ("Since both foes are active, who attacks first?"), sword against sword simultaneous;
        // then the declared attack is over.
        b.turn(attack(y, x)).unwrap();
        let l = lines(&b, from);
        assert_eq!(l.len(), 3, "{l:?}");
        assert!(l[1].starts_with(&format!("{y}: ")) && l[1].contains("attacks"), "{l:?}");
        assert!(l[1].contains("attack ") && l[1].contains("counter "), "both strike: {l:?}");
        assert_eq!(l[2], format!("*{x}: its attack on D0 was fought in the answer").replace("D0", &b.units[y].name), "{l:?}");
        // Both have activated this round; the answer spent the target's activation.
        assert!(b.units[x].activated && b.units[y].activated);
        assert_eq!(b.answering(), None);
    }
}

#[test]
fn a_declined_attack_resolves_and_the_target_activates_later_without_striking_back() {
    // "has the option of immediately activating": declining keeps the activation. Today's
    // free strike back is gone: a target fights only in an activation of its own.
    let (engine, map) = compiled(SAVAGES);
    let mut hit = 0;
    for seed in 0..24 {
        let mut b = arena::battle_seeded(&engine, &map, SAVAGES_AT, seed);
        let ([x, _], [y, _]) = sides(&b);
        b.turn(attack(x, y)).unwrap();
        let from = b.log.len();
        b.turn(decline(y)).unwrap();
        let l = lines(&b, from);
        assert_eq!(l[0], format!("{y}: declines to activate"), "{l:?}");
        assert!(l[1].starts_with(&format!("*{x}: ")) && l[1].contains("attacks"), "{l:?}");
        assert_eq!(b.units[x].hp, 1, "no strike back: {l:?}");
        assert!(!b.units[y].activated, "the target keeps its activation");
        if b.units[y].hp > 0 {
            // Still standing: it activates later this round.
            assert!(b.waiting(b.units[y].side).contains(&y));
        } else {
            hit += 1;
        }
        // A decline by a unit no attack waits on is refused.
        if b.outcome.is_none() {
            let k = b.may_act(b.to_act)[0];
            assert!(b.turn(decline(k)).unwrap_err().to_string().contains("declines"));
        }
    }
    // Savage against savage: 16 of 30 hit, and any damage kills a common.
    assert!(hit > 0 && hit < 24, "{hit}");
}

#[test]
fn an_activated_target_has_no_answer_and_no_strike_back() {
    // "(if it has not already activated this turn)"; the forecast of a melee attack is the
    // attacker's blows alone: no counter.
    let (engine, map) = compiled(SAVAGES);
    let f = engine.forecast(&Loadout::new("Savage", Some("Shortsword")), &Loadout::new("Savage", Some("Shortsword")), 1).unwrap();
    assert_eq!(f.defender.strikes, 0);
    assert_eq!(f.attacker_routed, 0.0);
    // "The savages have a C.E.R. of 3 vs. the wyvern's Evasion of 10": against Evasion 12, a
    // d30 of 15 or more hits, and 2d6 against no Absorption always kills a common.
    assert!((f.defender_routed - 16.0 / 30.0).abs() < 1e-12, "{}", f.defender_routed);
    for seed in 0..8 {
        let mut b = arena::battle_seeded(&engine, &map, SAVAGES_AT, seed);
        let ([x, _], [y, _]) = sides(&b);
        // The target has had its activation this round.
        b.state.units[y].activated = true;
        assert!(b.units[y].activated);
        assert!(!b.before_the_attack(x, b.units[x].pos, y, &b.sight(b.units[x].side)).answers, "no answer to warn of");
        b.turn(attack(x, y)).unwrap();
        let note = arena::last_note(&b);
        assert!(note.contains("attacks") && !note.contains("declares"), "{note}");
        assert_eq!(b.answering(), None);
        assert_eq!(b.units[x].hp, 1, "{note}");
    }
}

#[test]
fn a_projectile_attack_gives_its_target_no_chance_to_activate() {
    // "(Note that my elf women can fire on the savages without giving them a chance to
    // activate, since only Melee declarations allow the enemy a chance to activate.)"
    let armies =
        "army A for Arena attacker { unit Bow: ElvenBowWoman { items Longbow } unit Bow2: ElvenBowWoman { items Longbow } }\n\
                  army D for Arena defender { unit Brave: Savage { items Shortsword } unit Brave2: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    // From 2 tiles and more: a longbow does not shoot a figure in contact (its minimum
    // effective range, 3").
    for (at, seed) in [((3, 2), 1), ((2, 2), 2), ((3, 2), 3), ((1, 2), 4)] {
        let mut b = arena::battle_seeded(&engine, &map, [&[at, (0, 4)], &[(5, 2), (9, 4)]], seed);
        while b.to_act != SideId::Attacker {
            let k = b.may_act(b.to_act)[1.min(b.may_act(b.to_act).len() - 1)];
            b.turn(Turn { unit: k, ..Default::default() }).unwrap();
        }
        b.turn(attack(0, 2)).unwrap();
        let note = arena::last_note(&b);
        assert!(note.starts_with("Bow attacks Brave"), "{note}");
        assert_eq!(b.answering(), None);
    }
}

#[test]
fn an_answer_may_declare_in_turn_and_the_chain_resolves_innermost_first() {
    // "If it in turn declares an attack, the target of that attack also has the option of
    // activating. Thus one attack declaration can set of an entire chain of declarations and
    // activations - a chain reaction called a Battlestorm."
    let (engine, map) = compiled(SAVAGES);
    for seed in 0..8 {
        let mut b = arena::battle_seeded(&engine, &map, SAVAGES_AT, seed);
        let ([x, x2], [y, _]) = sides(&b);
        let from = b.log.len();
        b.turn(attack(x, y)).unwrap();
        // The target answers by declaring on the declarer's neighbour, which answers in turn.
        b.turn(attack(y, x2)).unwrap();
        assert_eq!(b.answering(), Some(x2));
        assert_eq!(b.to_act, b.units[x].side);
        b.turn(attack(x2, y)).unwrap();
        let l = lines(&b, from);
        assert_eq!(l.len(), 5, "{l:?}");
        assert!(l[1].contains("declares") && l[2].starts_with(&format!("{x2}: ")), "{l:?}");
        // Innermost first: y's attack on x2, then x's on y.
        assert!(l[3].starts_with(&format!("*{y}: ")), "{l:?}");
        assert!(l[4].starts_with(&format!("*{x}: ")), "{l:?}");
        assert!([x, x2, y].iter().all(|k| b.units[*k].activated));
        assert_eq!(b.answering(), None);
    }
}

/// A unit of `figures` of `class` carrying `weapon`, at full strength or with `hp` left.
fn band(class: &str, weapon: &str, figures: u32, hp: Option<i64>) -> Loadout {
    Loadout { figures, hp, ..Loadout::new(class, Some(weapon)) }
}

/// C(n, k) p^k (1-p)^(n-k).
fn binomial(n: u32, k: u32, p: f64) -> f64 {
    let c = (0..k).fold(1.0, |c, i| c * f64::from(n - i) / f64::from(i + 1));
    c * p.powi(k as i32) * (1.0 - p).powi((n - k) as i32)
}

#[test]
fn a_unit_of_commons_loses_exactly_the_figures_its_strikes_hit() {
    // "Figures are formed into Units of one or more figures"; "All combat is worked out on an
    // individual vs. individual basis"; "Common figures are those which start with no Fate
    // points. Any unabsorbed damage kills them." Three savages strike a unit of six: each hit
    // (a d30 of 15 or more against Evasion 12, 16 in 30) kills one figure and no more, however
    // much damage it does ("the wyvern's byte damage of 25 points atomizes his savage target").
    let (engine, _) = compiled(SAVAGES);
    let f = engine.forecast(&band("Savage", "Shortsword", 3, None), &band("Savage", "Shortsword", 6, None), 1).unwrap();
    assert_eq!(f.attacker.strikes, 3, "a strike for each living figure");
    assert_eq!(f.defender.max_hp, 6);
    let p = 16.0 / 30.0;
    for lost in 0..=3u32 {
        let have = f.defender_hp.get(&(6 - i64::from(lost))).copied().unwrap_or(0.0);
        assert!((have - binomial(3, lost, p)).abs() < 1e-12, "{lost} figures lost: {have} {:?}", f.defender_hp);
    }
    assert_eq!(f.defender_hp.len(), 4, "{:?}", f.defender_hp);
    assert!((f.defender_damage_taken - 3.0 * p).abs() < 1e-12, "{}", f.defender_damage_taken);
    assert_eq!(f.defender_routed, 0.0);
    // Eight strike a unit of six: it is routed only when six of the eight hit.
    let f = engine.forecast(&band("Savage", "Shortsword", 8, None), &band("Savage", "Shortsword", 6, None), 1).unwrap();
    let routed: f64 = (6..=8).map(|k| binomial(8, k, p)).sum();
    assert!((f.defender_routed - routed).abs() < 1e-12, "{} {routed}", f.defender_routed);
}

#[test]
fn a_units_strikes_drop_as_its_figures_fall() {
    // "I have 11 bow-women, all of whom have 2 attacks per round"; "The savage braves were
    // reduced in number by the firing of my bow-women": a unit strikes with the figures it has
    // left. Eleven bow-women make 22 strikes; four left make 8.
    let armies = "army A for Arena attacker { unit A0: Savage { figures 6 items Shortsword } unit A1: Savage { items Shortsword } }\n\
                  army D for Arena defender { unit D0: Savage { figures 6 items Shortsword } unit D1: Savage { items Shortsword } }";
    let (engine, _) = compiled(armies);
    let full = engine.forecast(&band("ElvenBowWoman", "Longbow", 11, None), &band("Savage", "Shortsword", 8, None), 3).unwrap();
    assert_eq!(full.attacker.strikes, 22);
    let four =
        engine.forecast(&band("ElvenBowWoman", "Longbow", 11, Some(4)), &band("Savage", "Shortsword", 8, None), 3).unwrap();
    assert_eq!(four.attacker.strikes, 8);
    // In a battle, a declarer and the target answering it fight one combat in the order of
    // attack: six savages' swords (medium) against six spearmen (long), in contact ("if figures
    // are in base-to-base contact, shorter weapons attack first"): the savages' six strikes
    // first, then one for each spearman they left standing.
    let armies = "army A for Arena attacker { unit A0: Savage { figures 6 items Shortsword } unit A1: Savage { items Shortsword } }\n\
                  army D for Arena defender { unit D0: HighElfSpearman { figures 6 items ElvenSpear } unit D1: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    let mut fewer = 0;
    for seed in 0..12 {
        let mut b = arena::battle_seeded(&engine, &map, SAVAGES_AT, seed);
        let ([x, _], [y, _]) = sides(&b);
        let from = b.log.len();
        b.turn(attack(x, y)).unwrap();
        b.turn(attack(y, x)).unwrap();
        let l = lines(&b, from);
        // The combat (the answer's line): the strikes in order, and the figures felled in words.
        let answer = &l[1];
        let stages: Vec<&str> =
            answer.splitn(3, ": ").nth(2).unwrap().split(", ").map(|s| s.split(' ').next().unwrap()).collect();
        // The savages are the combat's attacker where they answer, its defender where they declared.
        let savages = if y == 0 { "attack" } else { "counter" };
        assert!(stages.iter().take(6).all(|s| *s == savages), "{l:?}");
        let spearmen = b.units[2].hp;
        let struck = stages.len() - 6;
        // Strikes stop once the target is routed; else one for each spearman left.
        assert!(struck == spearmen as usize || b.units[0].hp == 0, "{spearmen} spearmen struck {struck} times: {l:?}");
        if spearmen > 0 && spearmen < 6 && b.units[0].hp > 0 {
            fewer += 1;
        }
        if spearmen < 6 {
            assert!(answer.contains("fall"), "{l:?}");
        }
        assert!(l[2].ends_with("was fought in the answer"), "{l:?}");
    }
    assert!(fewer > 0, "no savage felled a spearman in 12 seeds");
}

#[test]
fn a_hero_figure_absorbs_several_points_before_it_falls() {
    // "Heroes are, loosely speaking, those figures with one or more Fate points. Each point of
    // damage removes one Fate point; when all the Fate is gone, the figure is dead." A unit of
    // three savage chiefs (Fate 6 each) struck once: the front chief loses Fate point by point,
    // falls at 0, and the blow goes no further than him. Its chances are exactly a lone
    // chief's, twelve Fate higher.
    let (engine, _) = compiled(SAVAGES);
    let savage = band("Savage", "Shortsword", 1, None);
    let three = engine.forecast(&savage, &band("SavageChief", "Shortsword", 3, None), 1).unwrap();
    let one = engine.forecast(&savage, &band("SavageChief", "Shortsword", 1, None), 1).unwrap();
    assert_eq!(three.defender.max_hp, 18);
    assert_eq!(three.defender_routed, 0.0);
    assert_eq!(three.defender_hp.keys().copied().min(), Some(12), "one figure at most: {:?}", three.defender_hp);
    for (hp, p) in &one.defender_hp {
        let have = three.defender_hp.get(&(hp + 12)).copied().unwrap_or(0.0);
        assert!((have - p).abs() < 1e-12, "{hp}: {have} {p}");
    }
    // The front chief is wounded and stands: Fate 1 to 5 left, with some chance.
    let wounded: f64 = (13..=17).filter_map(|hp| three.defender_hp.get(&hp)).sum();
    assert!(wounded > 0.05, "{:?}", three.defender_hp);
    // A wounded front figure takes the next blows: two chiefs and one with Fate 2 (hp 14) lose a
    // figure to any 2 points.
    let hurt = engine.forecast(&savage, &band("SavageChief", "Shortsword", 3, Some(14)), 1).unwrap();
    assert_eq!(hurt.defender_hp.keys().copied().min(), Some(12), "{:?}", hurt.defender_hp);
    assert!(hurt.defender_hp.get(&12).copied().unwrap_or(0.0) > three.defender_hp.get(&12).copied().unwrap_or(0.0));
}

#[test]
fn narube_battles_activate_units_of_several_figures() {
    // "I decide to have only three units - the spearmen (plus my leader) in the center, the
    // bow-women unit on one flank, and the wyvern on another flank": the shipped battle forms
    // its armies in units of figures, and each activation is one unit's.
    let (engine, map) = field::narube(str::to_string);
    let s = &engine.rules.scenarios[0];
    let armies = field::armies(&engine);
    let figures: u32 = armies.iter().flat_map(|a| &a.units).map(|u| u.figures).sum();
    let units: usize = armies.iter().map(|a| a.units.len()).sum();
    assert!(figures >= 5 * units as u32, "{units} units of {figures} figures");
    let mut ai = oc_engine::ai::by_name("greedy").unwrap();
    let (_, records) = oc_engine::battle::play(&engine, s, &map, armies, 5, ai.as_mut()).unwrap();
    let notes: Vec<&str> = records
        .iter()
        .filter_map(|r| match r {
            Record::Turn { note, .. } | Record::Resolved { note, .. } => Some(note.as_str()),
            _ => None,
        })
        .collect();
    // A unit of several figures attacks with each ("Bows (11 of 11) attacks ..."), and its
    // target's figures fall one by one.
    assert!(notes.iter().any(|n| n.contains(" of 11) attacks") || n.contains(" of 10) attacks")), "{notes:#?}");
    assert!(notes.iter().any(|n| n.contains("figures fall")), "{notes:#?}");
    // "one attack declaration can set of an entire chain of declarations and activations", and
    // with courage on ("Failing a Courage roll causes a unit to rout") a unit routs.
    assert!(notes.iter().any(|n| n.contains("declares an attack on")), "{notes:#?}");
    let routs = records.iter().filter(|r| matches!(r, Record::Courage { note, .. } if note.contains("and routs"))).count();
    assert!(routs >= 1, "{notes:#?}");
    let rolloffs = records.iter().filter(|r| matches!(r, Record::Rolloff { .. })).count();
    assert!(rolloffs < 150, "{rolloffs} roll-offs: one per unit activation, not per figure");
}

/// The chances that a lone strike of `a` on `d` (no strike back) routs `d`.
fn lone(engine: &Engine, a: &Loadout, d: &Loadout) -> f64 {
    engine.forecast(a, d, 1).unwrap().defender_routed
}

#[test]
fn the_order_of_attack_goes_by_reach_and_whether_the_foes_just_met() {
    // "The general rule is that if figures are in base-to-base contact, shorter weapons attack
    // first; if figures are separated, longer weapons attack first; if both figures are
    // equivalent, then combat is considered simultaneous. If two units have just come into
    // contact, combat begins at the longest weapon range." One combat of a spearman (long
    // range: MeleeClass(3)) and a savage (a sword: medium, MeleeClass(2)), each hit killing at its own
    // chances q: the first to strike may fell the other before it strikes.
    let (engine, _) = compiled(SAVAGES);
    let spear = Loadout::new("HighElfSpearman", Some("ElvenSpear"));
    let savage = Loadout::new("Savage", Some("Shortsword"));
    let (qa, qd) = (lone(&engine, &spear, &savage), lone(&engine, &savage, &spear));
    assert!(qa > 0.1 && qd > 0.1, "{qa} {qd}");
    let close = |x: f64, y: f64| (x - y).abs() < 1e-12;
    // In contact (neither moved to attack): the shorter sword first.
    let x = Exchange::new(&engine, &spear, &savage, 1).unwrap().mutual();
    let f = x.forecast();
    assert!(close(f.attacker_routed, qd) && close(f.defender_routed, (1.0 - qd) * qa), "{f:?}");
    // Just come into contact (the savage charged): separated, the longer spear first.
    let x = Exchange::new(&engine, &spear, &savage, 1).unwrap().mutual().moved([false, true]);
    let f = x.forecast();
    assert!(close(f.defender_routed, qa) && close(f.attacker_routed, (1.0 - qa) * qd), "{f:?}");
    // Equivalent (sword against sword): simultaneous, each strikes whatever the other did.
    let q = lone(&engine, &savage, &savage);
    let f = Exchange::new(&engine, &savage, &savage, 1).unwrap().mutual().forecast();
    assert!(close(q, 16.0 / 30.0) && close(f.attacker_routed, q) && close(f.defender_routed, q), "{f:?}");
    // Without a strike back (`counter = false`: a target that declined) the order is moot.
    let f = engine.forecast(&spear, &savage, 1).unwrap();
    assert!(close(f.defender_routed, qa) && f.attacker_routed == 0.0, "{f:?}");
}

#[test]
fn the_braves_charge_swings_first_and_next_time_the_wyvern_strikes_first() {
    // "Since the figures moved into combat this turn, they start at the longest weapon range -
    // in this case, medium range due to the swords ... At "longer" range, the "longer" weapons
    // get first attack... so the humans start swinging!" ... "After the damage is inflicted,
    // the wyvern can attack." ... "At the end of the round, the combatants are moved into
    // base-to-base contact to show they have closed to "shorter" weapon range. Next time, the
    // wyvern gets first attack!" The wyvern's body attacks are at Wrestling range ("all "body
    // attacks" occur at Wrestling range"): MeleeClass(0).
    let (engine, _) = compiled(SAVAGES);
    let wyvern = wyvern();
    let braves = band("Savage", "Shortsword", 8, None);
    for (moved, braves_first) in [([false, true], true), ([false, false], false)] {
        let x = Exchange::new(&engine, &wyvern, &braves, 1).unwrap().mutual().moved(moved);
        let f = x.forecast();
        assert_eq!((f.attacker.strikes, f.defender.strikes), (4, 8));
        // Seeded resolutions: the braves' eight strikes before the wyvern's four, or after them
        // (then with the figures they left); the forecast agrees with them.
        let n = 4000;
        let mut lost = 0.0;
        for seed in 0..n {
            let (log, hp) = x.resolve(&mut oc_engine::rng(seed));
            let sides: Vec<usize> = log.iter().map(|s| s.side).collect();
            if braves_first {
                assert_eq!(sides.iter().take_while(|s| **s == 1).count(), 8.min(sides.len()), "{sides:?}");
                assert!(sides.len() == 12 || hp[0] == 0, "{sides:?}");
            } else {
                assert_eq!(&sides[..4], &[0, 0, 0, 0], "{sides:?}");
                let felled = log.iter().take(4).filter(|s| s.outcome.hit).count();
                // Felled by the braves, the wyvern takes no more strikes.
                let braves = sides.iter().filter(|s| **s == 1).count();
                assert!(braves == 8 - felled || hp[0] == 0, "{sides:?}");
            }
            lost += (8 - hp[1]) as f64;
        }
        let expected = f.defender_damage_taken;
        assert!((lost / n as f64 - expected).abs() < 0.05, "{} {expected}", lost / n as f64);
        // Striking first, at full Fate, each of its four attacks kills a brave whenever it hits
        // ("All of its attack forms have a C.E.R. of 0 which, against the braves' Evasion of 12,
        // results in target numbers of (0 + 12 =) 12"): 19 faces of 30 each. Striking second,
        // the braves may have felled it first.
        let four = 4.0 * 19.0 / 30.0;
        assert_eq!((expected - four).abs() < 1e-12, !braves_first, "{expected}");
    }
    // Braves first, the wyvern takes all eight strikes; striking first, it fells some: it loses
    // more Fate when the braves charge.
    let charged = Exchange::new(&engine, &wyvern, &braves, 1).unwrap().mutual().moved([false, true]).forecast();
    let met = Exchange::new(&engine, &wyvern, &braves, 1).unwrap().mutual().forecast();
    assert!(charged.attacker_damage_taken > met.attacker_damage_taken, "{charged:?} {met:?}");
}

#[test]
fn an_answer_on_its_declarer_is_one_combat_in_the_order_of_attack() {
    // "Their approach allows the wyvern, which hasn't done anything this turn, to activate as
    // well. Since both foes are active, who attacks first?": the braves charge (declare a melee
    // attack, then move into contact), the wyvern answers by attacking them, and the two attacks are one
    // combat in the order of attack: the braves' swords first ("so the humans start
    // swinging!"), then the bite; the declared attack is not fought a second time.
    let armies = "army A for Arena attacker { unit Braves: Savage { figures 8 items Shortsword } unit B2: Savage { items Shortsword } }\n\
                  army D for Arena defender { unit Wyvern: PoisonWyvern { items WyvernBite, WyvernTalon, WyvernTail } unit D2: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    let mut again = 0;
    for seed in 0..16 {
        let mut b = arena::battle_seeded(&engine, &map, [&[(2, 2), (0, 0)], &[(5, 2), (9, 4)]], seed);
        if b.to_act != SideId::Attacker {
            b.turn(Turn { unit: 3, ..Default::default() }).unwrap();
            if b.to_act != SideId::Attacker {
                continue;
            }
        }
        let from = b.log.len();
        b.turn(Turn { unit: 0, to: Some((4, 2)), act: Act::Attack { target: 2 }, ..Default::default() }).unwrap();
        assert_eq!(b.answering(), Some(2));
        // The braves declare before they move (the strict sequence: "2. Declare Melee Attacks
        // ... 4. Move"); the wyvern lets them come on, and their charge "comes too near" it
        // (the ruleset's `interrupt`): "Their approach allows the wyvern, which hasn't done
        // anything this turn, to activate as well", and its attack on them is its answer.
        assert!(lines(&b, from)[0].contains("declares an attack on Wyvern before it moves"), "{:?}", lines(&b, from));
        b.turn(Turn { unit: 2, act: Act::Decline, ..Default::default() }).unwrap();
        let from = b.log.len() - 1;
        assert!(lines(&b, from)[0].contains("comes too near Wyvern"), "{:?}", lines(&b, from));
        assert_eq!((b.answering(), b.units[0].pos), (Some(2), (4, 2)), "{:?}", lines(&b, from));
        b.turn(attack(2, 0)).unwrap();
        let l = lines(&b, from);
        assert_eq!(l.len(), 3, "{l:?}");
        // The answer's combat: the braves' eight strikes ("counter"), then the wyvern's four
        // attacks, each named: "attack (WyvernBite) ...".
        let strikes: Vec<&str> = l[1].splitn(3, ": ").nth(2).unwrap().split(", ").map(|s| s.split(' ').next().unwrap()).collect();
        let swung = strikes.iter().take_while(|s| **s == "counter").count();
        assert!(swung == 8 || b.units[2].hp == 0, "{l:?}");
        assert_eq!(strikes.get(swung), Some(&"attack").filter(|_| b.units[2].hp > 0), "{l:?}");
        if b.units[2].hp > 0 && b.units[0].hp > 0 {
            let forms: Vec<&str> =
                l[1].splitn(3, ": ").nth(2).unwrap().split(", ").skip(8).map(|s| s.split(' ').nth(1).unwrap()).collect();
            assert_eq!(forms, ["(WyvernBite)", "(WyvernTalon)", "(WyvernTalon)", "(WyvernTail)"], "{l:?}");
        }
        assert_eq!(l[2], "*0: its attack on Wyvern was fought in the answer", "{l:?}");
        // "Next time, the wyvern gets first attack!": in round 2 the braves, in contact, declare
        // again without moving; the wyvern's answer bites first.
        while b.state.round == 1 && b.outcome.is_none() {
            let k = b.may_act(b.to_act)[0];
            b.turn(Turn { unit: k, ..Default::default() }).unwrap();
        }
        if b.to_act != SideId::Attacker {
            b.turn(Turn { unit: 3, ..Default::default() }).unwrap();
        }
        if b.to_act != SideId::Attacker || b.units[0].hp == 0 || b.units[2].hp == 0 || b.units[2].activated {
            continue;
        }
        let from = b.log.len();
        // The tail's poison may hold the braves ("a saving roll vs. paralysis").
        if b.turn(attack(0, 2)).is_err() {
            continue;
        }
        // A fumble in round 1 (the Fumble Chart: Disarmed, Stumbled) may hold the wyvern.
        if let Err(e) = b.turn(attack(2, 0)) {
            assert!(e.to_string().contains("a status forbids it"), "{e}");
            continue;
        }
        let l = lines(&b, from);
        let first = l[1].splitn(3, ": ").nth(2).unwrap().split(' ').next().unwrap();
        assert_eq!(first, "attack", "{l:?}");
        again += 1;
    }
    assert!(again > 0, "no seed reached the second round's combat");
}

#[test]
fn a_wyvern_forecast_with_another_weapon_in_hand_still_makes_all_four_attacks() {
    // "The wyvern has four attacks - 2 x talons, 1 x bite, and 1 x tail": forecast to strike
    // with its talons in hand (a swap), it still bites and lashes its tail in the same combat,
    // as it does holding its talons. (Forecast so, the bite was left out: three strikes.)
    let armies = "army A for Arena attacker { unit Braves: Savage { figures 8 items Shortsword } unit B2: Savage { items Shortsword } }\n\
                  army D for Arena defender { unit Wyvern: PoisonWyvern { items WyvernBite, WyvernTalon, WyvernTail } unit D2: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    let b = arena::battle_seeded(&engine, &map, [&[(4, 2), (0, 0)], &[(5, 2), (9, 4)]], 1);
    let talon = oc_engine::Atom::new("WyvernTalon");
    let swap = b.attack_forecast(2, (5, 2), 0, Some(talon)).unwrap();
    let mut held = b.fork(None);
    held.state.units[2].equipped = Some(talon);
    let holding = held.attack_forecast(2, (5, 2), 0, None).unwrap();
    assert_eq!(swap.attacker.strikes, 4, "{swap:?}");
    assert_eq!(format!("{swap:?}"), format!("{holding:?}"));
    // With its bite in hand, as it stands: four too.
    assert_eq!(b.attack_forecast(2, (5, 2), 0, None).unwrap().attacker.strikes, 4);
}

/// The poison wyvern with its bite in hand and its talons and tail carried: its four attack forms.
fn wyvern() -> Loadout {
    Loadout {
        carried: vec![oc_engine::Atom::new("WyvernTalon"), oc_engine::Atom::new("WyvernTail")],
        ..Loadout::new("PoisonWyvern", Some("WyvernBite"))
    }
}

#[test]
fn the_wyvern_makes_all_four_of_its_attack_forms_in_one_combat() {
    // "The wyvern has four attacks - 2 x talons, 1 x bite, and 1 x tail"; "All of its attack
    // forms have a C.E.R. of 0 which, against the braves' Evasion of 12, results in target
    // numbers of (0 + 12 =) 12. I roll a "14" (bite), "10" (claw), "9" (claw), and "24" (tail)";
    // "The wyvern's bite damage is "2d10 + 3d8"", "The tail does "2d6 + 3d8" damage": each form
    // with its own dice, and any unabsorbed damage kills a savage. Against eight braves, the
    // figures lost are exactly binomial(4, 19/30).
    let (engine, _) = compiled(SAVAGES);
    let braves = band("Savage", "Shortsword", 8, None);
    let wyvern = wyvern();
    let x = Exchange::new(&engine, &wyvern, &braves, 1).unwrap();
    let f = x.forecast();
    assert_eq!(f.attacker.strikes, 4);
    let p = 19.0 / 30.0;
    for lost in 0..=4u32 {
        let have = f.defender_hp.get(&(8 - i64::from(lost))).copied().unwrap_or(0.0);
        assert!((have - binomial(4, lost, p)).abs() < 1e-12, "{lost}: {have} {:?}", f.defender_hp);
    }
    // The seeded resolutions strike in the seed's order, and agree with the forecast; "the
    // wyvern's tail is poisonous": only the tail's hits paralyse.
    let n = 4000;
    let (mut lost, mut poisoned) = (0.0, 0);
    for seed in 0..n {
        let (log, hp) = x.resolve(&mut oc_engine::rng(seed));
        let forms: Vec<&str> = log.iter().map(|s| s.form.as_deref().unwrap()).collect();
        assert_eq!(forms, ["WyvernBite", "WyvernTalon", "WyvernTalon", "WyvernTail"]);
        for s in &log {
            assert_eq!(!s.inflicted.is_empty(), s.outcome.hit && s.form.as_deref() == Some("WyvernTail"), "{log:?}");
            poisoned += usize::from(!s.inflicted.is_empty());
        }
        lost += (8 - hp[1]) as f64;
    }
    assert!((lost / n as f64 - f.defender_damage_taken).abs() < 0.05, "{} {}", lost / n as f64, f.defender_damage_taken);
    assert!(poisoned > 0);
    // With its bite alone (no attack forms carried), one strike.
    let bite = engine.forecast(&Loadout::new("PoisonWyvern", Some("WyvernBite")), &braves, 1).unwrap();
    assert_eq!(bite.attacker.strikes, 1);
    // A weapon that is no attack form makes only its own strikes, whatever else is carried.
    let brave =
        Loadout { carried: vec![oc_engine::Atom::new("Broadsword")], ..Loadout::new("HumanMercenary", Some("Broadsword")) };
    assert_eq!(engine.forecast(&brave, &braves, 1).unwrap().attacker.strikes, 1);
}
