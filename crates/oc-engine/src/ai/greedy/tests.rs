//! Greedy's forecasts kept within a decision (`best_for`'s, by `ExchangeKey`) are the forecasts
//! it would make afresh for every tile it may strike from.

use super::{Greedy, AFRESH};
use crate::battle::{self, Act, Record};

/// The shipped Town Square under seed 004's rules, whose counter answers a charge alone
/// ("Charge: Move up to 4 squares and make a skirmish attack. If the target is still alive it
/// gets a immediate skirmish attack targeting the" charger; `counter = _melee and
/// defender.moved`), played greedy against greedy: each game is the same, record for record, with
/// every exchange of a decision forecast afresh. (Where the key did not hold the charge, a
/// standing attack took the forecast of a charge from another tile of its group, or the reverse,
/// and games parted.)
#[test]
fn a_decisions_kept_forecasts_are_its_fresh_ones() {
    let scenario = include_str!("../../../../../scenarios/skirmish-taizel.oc");
    let map_text = include_str!("../../../../../scenarios/maps/taizel.map.toml");
    let (engine, map) = crate::testing::field_named(("taizel.oc", scenario), ("maps/taizel.map.toml", map_text));
    let s = engine.rules.scenario("TownSquare").expect("the scenario");
    let armies = [engine.rules.army("LordsCompany").expect("company"), engine.rules.army("SquareGuard").expect("guard")];
    let log = |seed: u64, afresh: bool| {
        AFRESH.with(|a| a.set(afresh));
        let (_, log) = battle::play(&engine, s, &map, armies, seed, &mut Greedy::default()).expect("plays");
        AFRESH.with(|a| a.set(false));
        log
    };
    // Attacks made after a move (charges) and from where the unit stands.
    let mut attacks = [0, 0];
    for seed in 0..24 {
        let kept = log(seed, false);
        assert_eq!(kept, log(seed, true), "seed {seed}");
        for r in &kept {
            if let Record::Turn { turn, .. } = r {
                if matches!(turn.act, Act::Attack { .. }) {
                    attacks[usize::from(turn.to.is_some())] += 1;
                }
            }
        }
    }
    assert!(attacks[0] > 0 && attacks[1] > 0, "standing attacks and charges: {attacks:?}");
}

/// Greedy's walk is skipped where the best option so far scores what the longest step could
/// (`walk`'s bound): exact only if no tile scores more than its progress. Where the battle is
/// situated (seed 003's advanced rules), a tile also scores what standing there gains its blow:
/// a step back into its general's command ("Penalties apply to units too far from the general")
/// is worth more than its progress. So every decision is the same with the bound and without it:
/// the Storm at the River, its units scattered over the field (bands far from their general,
/// flanks open), each battle played on by greedy. With the bound read there too, 6 of 7,343
/// decisions differed: a unit that could strike for little skipped the walk back into command.
#[test]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
fn the_walks_bound_changes_no_decision() {
    use super::walk::UNPRUNED;
    use crate::battle::{Battle, Controller, State};
    let scenario = include_str!("../../../../../scenarios/battlestorm-narube.oc");
    let map_text = include_str!("../../../../../scenarios/maps/narube-river.map.toml");
    let (engine, map) = crate::testing::field_named(("narube.oc", scenario), ("maps/narube-river.map.toml", map_text));
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(&engine);
    let choose = |b: &Battle, unpruned: bool| {
        UNPRUNED.with(|u| u.set(unpruned));
        let turn = Greedy::default().choose(b);
        UNPRUNED.with(|u| u.set(false));
        turn
    };
    let (mut compared, mut differed) = (0, Vec::new());
    for seed in 0..200u64 {
        let mut b = Battle::set_up(&engine, s, &map, [a, d], seed).expect("the battle starts");
        // Each unit on a tile drawn from those it may enter, free of others.
        let mut dice = crate::dice::rng(seed);
        let (w, h) = (b.state.map.width, b.state.map.height);
        for k in 0..b.state.units.len() {
            let kind = b.mobility(k).expect("a unit moves").1;
            for _ in 0..1000 {
                let draw = rand_chacha::rand_core::RngCore::next_u64(&mut dice);
                let t = ((draw % w as u64) as i64, ((draw >> 32) % h as u64) as i64);
                let taken = b.state.units.iter().any(|u| u.state == State::Ready && u.pos == t);
                if b.enters(&kind, t) && !taken {
                    b.state.units[k].pos = t;
                    break;
                }
            }
        }
        for step in 0..60 {
            if b.state.outcome.is_some() {
                break;
            }
            let turn = choose(&b, false);
            if turn != choose(&b, true) {
                differed.push((seed, step));
            }
            compared += 1;
            let Some(turn) = turn else { break };
            if b.play_turn(turn).is_err() {
                break;
            }
        }
    }
    eprintln!("{compared} decisions");
    assert!(compared > 300, "{compared} decisions");
    assert!(differed.is_empty(), "{} of {compared} decisions differ with the bound (seed, step): {differed:?}", differed.len());
}
