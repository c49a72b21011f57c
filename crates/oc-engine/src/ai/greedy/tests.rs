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
