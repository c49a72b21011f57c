//! Seed 003 (`std:battlestorm`), "The Sequence of Play": the Actions beyond move and attack and
//! the activation an enemy that comes too near may take first. Each test quotes the seed and
//! asserts a scripted battle's log.

#[path = "common/arena.rs"]
mod arena;

#[path = "common/field.rs"]
mod field;

use oc_engine::battle::{Act, Battle, Record, State, Turn};
use oc_engine::Engine;
use oc_model::{SideId, Verb};

/// A 10x5 open field; both sides may deploy anywhere.
fn compiled(armies: &str) -> (Engine, oc_model::BattleMap) {
    field::compiled(&field::map(field::OPEN, "", field::ANYWHERE), &field::arena("std:battlestorm", "", ""), armies)
}

/// Two savages a side, far apart: the attacker's at (1, 2) and (0, 0), the defender's at (5, 2)
/// and (9, 4).
const SAVAGES: &str = "army A for Arena attacker { unit A0: Savage { items Shortsword } unit A1: Savage { items Shortsword } }\n\
                       army D for Arena defender { unit D0: Savage { items Shortsword } unit D1: Savage { items Shortsword } }";
const APART: [&[(i64, i64)]; 2] = [&[(1, 2), (0, 0)], &[(5, 2), (9, 4)]];

/// The first unit of the side to act and the other side's first: (mover, watcher).
fn mover_and_watcher(b: &Battle) -> (usize, usize) {
    match b.to_act {
        SideId::Attacker => (0, 2),
        SideId::Defender => (2, 0),
    }
}

/// The tile `steps` tiles short of `target` on the line from `from` (the same row).
fn short_of(b: &Battle, from: usize, target: usize, steps: i64) -> (i64, i64) {
    let (f, t) = (b.units[from].pos, b.units[target].pos);
    (t.0 - steps * (t.0 - f.0).signum(), t.1)
}

/// The first unit of the side to act (`x`, standing at `start`) walking up next to the other
/// side's first (`y`), to `to`, to attack it.
struct Charge {
    x: usize,
    y: usize,
    start: (i64, i64),
    to: (i64, i64),
}

impl Charge {
    fn of(b: &Battle) -> Charge {
        let (x, y) = mover_and_watcher(b);
        Charge { x, y, start: b.units[x].pos, to: short_of(b, x, y, 1) }
    }

    /// `x`'s turn: the move and the attack.
    fn turn(&self) -> Turn {
        Turn { unit: self.x, to: Some(self.to), act: Act::Attack { target: self.y }, ..Default::default() }
    }
}

fn attack(unit: usize, target: usize) -> Turn {
    Turn { unit, act: Act::Attack { target }, ..Default::default() }
}

fn decline(unit: usize) -> Turn {
    Turn { unit, act: Act::Decline, ..Default::default() }
}

fn brace(unit: usize, tag: &str) -> Turn {
    Turn {
        unit,
        act: Act::Special { verb: Verb::Inflict, target: None, tile: None, from: Some(tag.into()) },
        ..Default::default()
    }
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

/// Units of `side` other than `keep` wait until `side` has the activation (the roll-offs).
fn until_turn_of(b: &mut Battle, side: SideId, keep: &[usize]) {
    while b.to_act != side {
        let k = b.may_act(b.to_act).into_iter().find(|k| !keep.contains(k)).expect("a unit to wait");
        b.turn(arena::wait(k)).unwrap();
    }
}

#[test]
fn a_move_that_comes_too_near_lets_an_unactivated_enemy_activate_first() {
    // "A previously unactivated unit may also choose to activate if an enemy unit comes too near,
    // interrupting the moving unit with its own Actions." Reading: too near is contact. The
    // mover walks up to y and means to brace there (an attack would have been declared before
    // the move: `an_attack_after_a_move_is_declared_before_the_move`).
    let (engine, map) = compiled(SAVAGES);
    for seed in 0..8 {
        let mut b = arena::battle_seeded(&engine, &map, APART, seed);
        let (x, y) = mover_and_watcher(&b);
        let to = short_of(&b, x, y, 1);
        let from = b.log.len();
        b.turn(Turn { to: Some(to), ..brace(x, "Brace") }).unwrap();
        // The move ended next to y: the mover's act waits, and only y may act, for its side.
        assert!(arena::last_note(&b).contains("comes too near D0") || arena::last_note(&b).contains("comes too near A0"));
        assert_eq!(b.units[x].pos, to);
        assert_eq!(b.answering(), Some(y));
        assert_eq!(b.to_act, b.units[y].side);
        assert!(b.units.iter().all(|u| u.hp == 1), "nothing dealt yet");
        // y interrupts with its own attack; the mover acts after it, if it still stands.
        b.turn(attack(y, x)).unwrap();
        let l = lines(&b, from);
        assert_eq!(l.len(), 3, "{l:?}");
        assert!(l[1].starts_with(&format!("{y}: ")) && l[1].contains("attacks"), "{l:?}");
        assert!(l[2].starts_with(&format!("*{x}: ")), "{l:?}");
        if b.units[x].hp > 0 {
            assert!(l[2].contains("acts once the units it came too near have answered") && l[2].contains("Braced"), "{l:?}");
        } else {
            assert!(l[2].contains("falls or routs before it acts"), "{l:?}");
        }
        assert!(b.units[x].activated && b.units[y].activated);
        assert_eq!(b.answering(), None);
    }
}

#[test]
fn an_attack_after_a_move_is_declared_before_the_move() {
    // "An activated unit must perform its actions according to a strict sequence of play: ...
    // 2. Declare Melee Attacks 3. Change Formation 4. Move 5. Check for Fear 6. Resolve Combat";
    // "An enemy unit upon which an attack has been declared has the option of immediately
    // activating". The declarer has not moved when its target answers: the target's answer
    // walks up to it and strikes it where it stood, one combat with the declared attack.
    let (engine, map) = compiled(SAVAGES);
    for seed in 0..8 {
        let mut b = arena::battle_seeded(&engine, &map, APART, seed);
        let charge = Charge::of(&b);
        let (x, y, start) = (charge.x, charge.y, charge.start);
        let from = b.log.len();
        b.turn(charge.turn()).unwrap();
        let l = lines(&b, from);
        assert_eq!(l, [format!("{x}: declares an attack on {} before it moves, which may activate in answer", b.units[y].name)]);
        assert_eq!(b.units[x].pos, start, "the declarer waits where it stood");
        assert_eq!((b.answering(), b.to_act), (Some(y), b.units[y].side));
        assert!(b.units[x].activated && !b.units[y].activated);
        // y answers: it walks up to x and strikes it; x strikes back in that one combat, and
        // its held move and attack are over.
        let next_to_x = short_of(&b, y, x, 1);
        b.turn(Turn { unit: y, to: Some(next_to_x), act: Act::Attack { target: x }, ..Default::default() }).unwrap();
        let l = lines(&b, from);
        assert_eq!(l.len(), 3, "{l:?}");
        assert!(l[1].starts_with(&format!("{y}: ")) && l[1].contains("counter "), "x strikes back in the answer: {l:?}");
        if b.units[x].hp > 0 && b.units[y].hp > 0 {
            assert_eq!(l[2], format!("*{x}: its attack on {} was fought in the answer", b.units[y].name), "{l:?}");
        }
        assert_eq!(b.units[x].pos, start, "{l:?}");
        assert_eq!(b.answering(), None);
    }
}

#[test]
fn a_declarer_moves_and_attacks_once_its_target_has_answered() {
    // "The unit does not have to follow through on its declaration": the declared move and
    // attack are played once the target has answered, where the rules still take them; where
    // the answer took the target out of reach, the declaration lapses and the declarer holds.
    let (engine, map) = compiled(SAVAGES);
    let (mut struck, mut lapsed) = (0, 0);
    for seed in 0..8 {
        let mut b = arena::battle_seeded(&engine, &map, APART, seed);
        let charge = Charge::of(&b);
        let (x, y, start, to) = (charge.x, charge.y, charge.start, charge.to);
        b.turn(charge.turn()).unwrap();
        let from = b.log.len();
        if seed % 2 == 0 {
            // y answers by bracing where it stands: x then walks up and strikes it.
            b.turn(brace(y, "Brace")).unwrap();
            let l = lines(&b, from);
            assert!(l[1].starts_with(&format!("*{x}: plays its move and attack once")), "{l:?}");
            assert!(l.iter().any(|n| n.contains("strikes at a target of opportunity")), "braced, y strikes first: {l:?}");
            if b.units[x].hp > 0 {
                assert!(l[1].contains("attacks"), "{l:?}");
                assert_eq!(b.units[x].pos, to);
                struck += 1;
            }
        } else {
            // y steps aside out of reach: the attack lapses and x does not move.
            let away = (b.units[y].pos.0, 4);
            b.turn(Turn { unit: y, to: Some(away), ..Default::default() }).unwrap();
            let l = lines(&b, from);
            assert_eq!(l.len(), 2, "{l:?}");
            assert!(
                l[1].starts_with(&format!("*{x}: its attack on {} lapses and it holds where it stands", b.units[y].name)),
                "{l:?}"
            );
            assert_eq!(b.units[x].pos, start);
            assert!(b.units.iter().all(|u| u.hp == 1));
            lapsed += 1;
        }
        assert_eq!(b.answering(), None);
    }
    assert!(struck > 0 && lapsed == 4, "{struck} {lapsed}");
}

#[test]
fn a_declarer_the_answer_came_up_to_attacks_from_where_it_stands() {
    // "4. Move ... 6. Resolve Combat": the target answers by coming up to the declarer and
    // holding there; the declarer's held move is refused (it is engaged: the ruleset's
    // `engaged`), and it strikes from where it stands rather than letting its declaration lapse.
    let (engine, map) = compiled(SAVAGES);
    for seed in 0..8 {
        let mut b = arena::battle_seeded(&engine, &map, APART, seed);
        let charge = Charge::of(&b);
        let (x, y, start) = (charge.x, charge.y, charge.start);
        b.turn(charge.turn()).unwrap();
        let from = b.log.len();
        let next_to_x = short_of(&b, y, x, 1);
        b.turn(Turn { unit: y, to: Some(next_to_x), ..Default::default() }).unwrap();
        let l = lines(&b, from);
        assert_eq!(l.len(), 2, "{l:?}");
        let struck = format!("*{x}: attacks from where it stands once {} has answered (", b.units[y].name);
        assert!(l[1].starts_with(&struck) && l[1].contains("engaged") && l[1].contains("attacks"), "{l:?}");
        assert_eq!(b.units[x].pos, start);
        assert_eq!(b.answering(), None);
    }
}

#[test]
fn a_turn_the_rules_refuse_whatever_the_answer_is_refused_before_it_declares() {
    // A refused turn changes nothing: a weapon the unit does not carry, or a move after the
    // attack, is refused as the turn is played, not after the target's answer.
    let (engine, map) = compiled(SAVAGES);
    let mut b = arena::battle_seeded(&engine, &map, APART, 1);
    let charge = Charge::of(&b);
    let (x, y, attack) = (charge.x, charge.y, charge.turn());
    let log = b.log.len();
    let e = b.turn(Turn { equip: Some("Longbow".into()), ..attack.clone() }).unwrap_err();
    assert!(e.to_string().contains("does not carry Longbow"), "{e}");
    let e = b.turn(Turn { then_to: Some(b.units[x].pos), ..attack.clone() }).unwrap_err();
    assert!(e.to_string().contains("never after an attack"), "{e}");
    assert_eq!((b.log.len(), b.answering(), b.units[x].activated), (log, None, false));
    b.turn(attack).unwrap();
    assert_eq!(b.answering(), Some(y));
}

#[test]
fn a_declined_declaration_lets_the_declarer_come_too_near_and_the_target_may_activate_then() {
    // The target that declined the declaration keeps its activation; when the declarer's move
    // ends next to it, it "may also choose to activate if an enemy unit comes too near".
    let (engine, map) = compiled(SAVAGES);
    let mut b = arena::battle_seeded(&engine, &map, APART, 3);
    let charge = Charge::of(&b);
    let (x, y, to) = (charge.x, charge.y, charge.to);
    let from = b.log.len();
    b.turn(charge.turn()).unwrap();
    b.turn(decline(y)).unwrap();
    let l = lines(&b, from);
    assert!(l[0].contains("declares an attack on") && l[1].contains("declines to activate"), "{l:?}");
    assert!(l[2].starts_with(&format!("*{x}: plays its move and attack once")) && l[2].contains("comes too near"), "{l:?}");
    assert_eq!(b.units[x].pos, to);
    assert_eq!(b.answering(), Some(y));
    assert!(!b.units[y].activated);
    // Declining again, y takes the blow: the attack resolves.
    b.turn(decline(y)).unwrap();
    let l = lines(&b, from);
    assert!(l.last().is_some_and(|n| n.starts_with(&format!("*{x}: ")) && n.contains("attacks")), "{l:?}");
    assert_eq!(b.answering(), None);
}

#[test]
fn a_move_that_stops_short_of_contact_is_not_interrupted() {
    // "comes too near" (reading: contact): a move ending two tiles off is played whole.
    let (engine, map) = compiled(SAVAGES);
    let mut b = arena::battle_seeded(&engine, &map, APART, 1);
    let (x, y) = mover_and_watcher(&b);
    let to = short_of(&b, x, y, 2);
    b.turn(Turn { unit: x, to: Some(to), ..Default::default() }).unwrap();
    assert_eq!(arena::last_note(&b), "waits");
    assert_eq!(b.answering(), None);
}

#[test]
fn a_braced_unit_strikes_an_enemy_that_comes_into_its_reach() {
    // "brace [ready to attack targets of opportunity]": y braces; an enemy whose move ends next
    // to it takes its attack before it acts.
    let (engine, map) = compiled(SAVAGES);
    let (mut struck, mut felled) = (0, 0);
    for seed in 0..12 {
        let mut b = arena::battle_seeded(&engine, &map, APART, seed);
        let (y, x) = mover_and_watcher(&b);
        b.turn(brace(y, "Brace")).unwrap();
        assert!(arena::last_note(&b).contains("Braced"), "{}", arena::last_note(&b));
        // A braced unit has activated: it does not interrupt, it strikes.
        let side = b.units[x].side;
        until_turn_of(&mut b, side, &[x]);
        let to = short_of(&b, x, y, 1);
        // What a forecast of the attack warns of (oc play's forecast said 0% routed).
        assert_eq!(b.before_the_attack(x, to, y, &b.sight(b.units[x].side)).opportunity, vec![y]);
        let from = b.log.len();
        b.turn(Turn { unit: x, to: Some(to), act: Act::Attack { target: y }, ..Default::default() }).unwrap();
        let l = lines(&b, from);
        let name = &b.units[y].name;
        assert!(l[0].contains(&format!("{name} strikes at a target of opportunity")), "{l:?}");
        struck += 1;
        if b.units[x].hp <= 0 {
            felled += 1;
            assert!(l[0].contains("is routed on the way"), "{l:?}");
            // Routed there, and recorded so: off the board (it neither rallies nor is struck
            // again), the turn's record naming it with its HP.
            assert_eq!(b.units[x].state, State::Routed, "{l:?}");
            let record = b.log[from..].iter().find_map(|r| match r {
                Record::Turn { turn, hp, routed, .. } if turn.unit == x => Some((hp.clone(), routed.clone())),
                _ => None,
            });
            let (hp, routed) = record.expect("the mover's turn");
            assert!(routed.contains(&x) && hp.iter().any(|(k, h)| *k == x && *h <= 0), "{hp:?} {routed:?}");
        }
    }
    assert_eq!(struck, 12);
    assert!(felled > 0, "a savage's d30 against 15 kills some movers before they strike");
}

#[test]
fn a_unit_stays_braced_until_its_next_activation() {
    // "brace [ready to attack targets of opportunity]" (reading: until the unit's next
    // activation begins; the status `clears at activated`).
    let (engine, map) = compiled(SAVAGES);
    let mut b = arena::battle_seeded(&engine, &map, APART, 2);
    let (y, _) = mover_and_watcher(&b);
    b.turn(brace(y, "Brace")).unwrap();
    assert!(b.units[y].statuses.iter().any(|a| a.status.as_str() == "Braced"));
    // The rest of the round: everybody else waits; the status holds.
    while b.round == 1 {
        let k = b.may_act(b.to_act)[0];
        b.turn(arena::wait(k)).unwrap();
        assert!(b.units[y].statuses.iter().any(|a| a.status.as_str() == "Braced"));
    }
    let side = b.units[y].side;
    until_turn_of(&mut b, side, &[y]);
    let from = b.log.len();
    b.turn(arena::wait(y)).unwrap();
    assert!(b.units[y].statuses.is_empty());
    let worn = b.log[from..].iter().any(
        |r| matches!(r, Record::Affliction { unit, status, change } if *unit == y && status == "Braced" && change == "wears off"),
    );
    assert!(worn, "{:?}", &b.log[from..]);
}

/// Bow-women and a savage: the attacker's bow-women at (1, 2), the defender's savage at (9, 2),
/// and three more savages a side to wait while the roll-offs go the other way.
const BOWS: &str = "army A for Arena attacker { unit Bows: ElvenBowWoman { items Longbow } unit A1: Savage { items Shortsword } \
                    unit A2: Savage { items Shortsword } unit A3: Savage { items Shortsword } }\n\
                    army D for Arena defender { unit D0: Savage { items Shortsword } unit D1: Savage { items Shortsword } \
                    unit D2: Savage { items Shortsword } unit D3: Savage { items Shortsword } }";
const BOWS_AT: [&[(i64, i64)]; 2] = [&[(1, 2), (0, 0), (0, 1), (0, 3)], &[(9, 2), (9, 4), (9, 0), (8, 4)]];

/// The bow-women (0) stand ready, then the savage (4) moves to `to`, the roll-offs deciding
/// who goes first and the other units waiting meanwhile; the log's lines of the move.
fn stand_ready_then_move(engine: &Engine, map: &oc_model::BattleMap, seed: u64, to: (i64, i64)) -> Vec<String> {
    let mut b = arena::battle_seeded(engine, map, BOWS_AT, seed);
    let mut ready = false;
    loop {
        let side = b.to_act;
        if side == SideId::Attacker && !ready {
            // A longbow may not brace (a melee weapon's Action), only stand ready.
            assert!(b.turn(brace(0, "Brace")).is_err());
            b.turn(brace(0, "StandReady")).unwrap();
            ready = true;
        } else if side == SideId::Defender && ready {
            let from = b.log.len();
            b.turn(Turn { unit: 4, to: Some(to), ..Default::default() }).unwrap();
            return lines(&b, from);
        } else {
            let k = b.may_act(side).into_iter().find(|k| *k != 0 && *k != 4).expect("a unit to wait");
            b.turn(arena::wait(k)).unwrap();
        }
    }
}

#[test]
fn bow_women_standing_ready_shoot_an_enemy_that_comes_into_range() {
    // "stand ready [as above, but for projectile weapons]": the longbow (range class P4) reaches
    // 9 tiles, effective to 6, "+2 per inch" beyond.
    let (engine, map) = compiled(BOWS);
    for seed in 0..12 {
        // Five tiles off: in effective range.
        let l = stand_ready_then_move(&engine, &map, seed, (6, 2));
        assert!(l.iter().any(|n| n.contains("Bows") && n.contains("strikes at a target of opportunity")), "{l:?}");
        // Seven tiles off: beyond effective range but in reach, shot at all the same.
        let l = stand_ready_then_move(&engine, &map, seed, (8, 2));
        assert!(l.iter().any(|n| n.contains("Bows") && n.contains("strikes at a target of opportunity")), "{l:?}");
    }
    // A unit that does not stand ready shoots at nobody that comes near.
    let mut b = arena::battle_seeded(&engine, &map, BOWS_AT, 1);
    while b.to_act != SideId::Defender {
        let k = *b.may_act(b.to_act).first().expect("a unit to wait");
        b.turn(arena::wait(k)).unwrap();
    }
    assert!(b.may_act(SideId::Defender).contains(&4));
    let from = b.log.len();
    b.turn(Turn { unit: 4, to: Some((6, 2)), ..Default::default() }).unwrap();
    assert_eq!(lines(&b, from), ["4: waits"]);
}

/// Every note of a whole game of the shipped Narube battle played by `ai`, with courage the
/// only advanced rule (the Actions alone, as before the others were switched on there).
fn narube_notes(ai: &str, seed: u64) -> Vec<String> {
    let only_courage = |s: &str| s.replace("advanced courage, leadership, situations, weather, charging\n", "advanced courage\n");
    let (engine, map) = field::narube(only_courage);
    assert_eq!(engine.rules.scenarios[0].advanced, ["courage"]);
    let s = &engine.rules.scenarios[0];
    let armies = field::armies(&engine);
    let mut ai = oc_engine::ai::by_name(ai).unwrap();
    let (_, records) = oc_engine::battle::play(&engine, s, &map, armies, seed, ai.as_mut()).unwrap();
    notes(&records)
}

#[test]
fn the_ais_brace_stand_ready_and_interrupt_in_narube() {
    // The Actions "brace" and "stand ready", "comes too near" and the declaration before the
    // move, in whole battles the AIs play
    // (three a side: since a unit whose figures all fall on its move is routed there, the
    // tactician's game of seed 5 has no strike of opportunity).
    for ai in ["greedy", "tactician"] {
        let notes: Vec<String> = (5..=12).flat_map(|seed| narube_notes(ai, seed)).collect();
        let has = |s: &str| notes.iter().any(|n| n.contains(s));
        assert!(has("Braced"), "{ai}: {notes:#?}");
        assert!(has("strikes at a target of opportunity"), "{ai}: {notes:#?}");
        assert!(has("comes too near"), "{ai}: {notes:#?}");
        // Their melee attacks after a move are declared before it, and played after the answer.
        assert!(has("before it moves, which may activate in answer"), "{ai}: {notes:#?}");
        assert!(has("plays its move and attack once"), "{ai}: {notes:#?}");
    }
}

#[test]
fn a_crossbow_is_reloaded_in_the_next_activation() {
    // "recover/reload [applies to war machines reloading, or troops with slow or awkward
    // weapons]" (reading: the crossbow is slow; the unit's next activation after it shoots is
    // spent reloading: no attack in it).
    let armies = "army A for Arena attacker { unit Xbows: HumanCrossbowman { figures 4 items Crossbow } unit A1: Savage { items Shortsword } }\n\
                  army D for Arena defender { unit D0: Savage { figures 9 items Shortsword } unit D1: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    let mut b = arena::battle_seeded(&engine, &map, [&[(1, 2), (0, 0)], &[(5, 2), (9, 4)]], 4);
    let mut shots = Vec::new();
    for round in 1..=3 {
        until_turn_of(&mut b, SideId::Attacker, &[0]);
        assert_eq!(b.round, round);
        shots.push(b.turn(attack(0, 2)).is_ok());
        if !shots[shots.len() - 1] {
            let why = b.turn(attack(0, 2)).unwrap_err().to_string();
            assert!(why.contains("a status forbids it"), "{why}");
            b.turn(arena::wait(0)).unwrap();
        }
        // Everyone else waits out the round.
        while b.round == round {
            let k = b.may_act(b.to_act)[0];
            b.turn(arena::wait(k)).unwrap();
        }
    }
    assert_eq!(shots, [true, false, true]);
}

fn disengage() -> Act {
    Act::Special { verb: Verb::Disengage, target: None, tile: None, from: Some("Disengage".into()) }
}

#[test]
fn a_unit_in_contact_is_held_and_leaves_only_by_disengaging() {
    // The Actions "move ... disengage ..." (the seed gives "disengage" no text). Reading: units
    // in base contact are engaged: a unit with an enemy next to it may not simply walk away; the
    // Disengage action steps it back half its move (2 tiles), with no strike on the way.
    let (engine, map) = compiled(SAVAGES);
    for seed in 0..4 {
        let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2), (0, 0)], &[(5, 2), (9, 4)]], seed);
        until_turn_of(&mut b, SideId::Attacker, &[0]);
        let why = b.turn(Turn { unit: 0, to: Some((2, 2)), ..Default::default() }).unwrap_err().to_string();
        assert!(why.contains("A0 is engaged with D0"), "{why}");
        assert_eq!(b.reachable(0).unwrap().len(), 1, "held: its reach is its own tile");
        // A unit out of contact moves freely, and has nothing to disengage from.
        let refused = b.turn(Turn { unit: 1, act: disengage(), ..Default::default() });
        assert!(refused.unwrap_err().to_string().contains("no enemy holds it"));
        let hp = (b.units[0].hp, b.units[2].hp);
        let from = b.log.len();
        b.turn(Turn { unit: 0, act: disengage(), ..Default::default() }).unwrap();
        assert_eq!(b.units[0].pos, (2, 2));
        assert_eq!((b.units[0].hp, b.units[2].hp), hp, "no strike on the way");
        let notes = turn_notes(&b, from);
        assert!(notes.iter().any(|n| n.contains("disengages from D0 to (2, 2)")), "{notes:?}");
    }
}

fn turn_notes(b: &Battle, from: usize) -> Vec<String> {
    notes(&b.log[from..])
}

/// The notes of the turns and resolved declarations among `records`.
fn notes(records: &[Record]) -> Vec<String> {
    records
        .iter()
        .filter_map(|r| match r {
            Record::Turn { note, .. } | Record::Resolved { note, .. } => Some(note.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn the_ais_disengage_a_unit_held_in_contact_that_cannot_strike() {
    // "disengage", as the AIs take it: a unit held in contact that would otherwise wait there
    // (crossbowmen reloading: "recover/reload") steps back instead.
    let armies = "army A for Arena attacker { unit Xbows: HumanCrossbowman { figures 4 items Crossbow } }\n\
                  army D for Arena defender { unit D0: Savage { figures 6 items Shortsword } unit D1: Savage { items Shortsword } }";
    let (engine, map) = compiled(armies);
    for ai in ["greedy", "tactician", "planner"] {
        for seed in 0..3 {
            let mut b = arena::battle_seeded(&engine, &map, [&[(4, 2)], &[(5, 2), (9, 4)]], seed);
            // Round 1: the crossbowmen shoot the brave afar (not those in contact: "the minimum
            // effective range"); everyone else waits.
            until_turn_of(&mut b, SideId::Attacker, &[]);
            b.turn(attack(0, 2)).unwrap();
            while b.round == 1 {
                let k = b.may_act(b.to_act)[0];
                b.turn(arena::wait(k)).unwrap();
            }
            until_turn_of(&mut b, SideId::Attacker, &[]);
            assert!(b.units[0].statuses.iter().any(|s| s.status.as_str() == "Reloading"));
            let mut controller = oc_engine::ai::by_name(ai).unwrap();
            let t = controller.choose(&b).unwrap();
            assert!(matches!(t.act, Act::Special { verb: Verb::Disengage, .. }), "{ai}: {t:?}");
            let from = b.log.len();
            b.turn(t).unwrap();
            assert!(
                turn_notes(&b, from).iter().any(|n| n.contains("Xbows disengages from D0 to (2, 2)")),
                "{ai}: {:?}",
                turn_notes(&b, from)
            );
        }
    }
}
