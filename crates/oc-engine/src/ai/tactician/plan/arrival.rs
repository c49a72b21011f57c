//! What a move meets as it ends (the ruleset's `opportunity` and `interrupt`, seed 003's): a
//! braced enemy strikes a unit whose move ends within its weapon's reach, before it acts ("brace
//! [ready to attack targets of opportunity]"), and an enemy that has not activated this round may
//! activate first when one comes too near ("interrupting the moving unit with its own
//! Actions"). A tile is weighed with both: a strike of opportunity's forecast cost is a toll, and
//! what the unit does there (its act, the tile's worth, the tile held, the danger after) counts
//! as much as it is forecast to still stand once they have struck. (An enemy that activates
//! first strikes in its own turn: its blow is not a toll too, as the danger already weighs it.)
//!
//! Without them a unit walked up to a braced enemy to strike it and was routed on the way (a
//! commoner falls to any blow), and the tactician lost seed 003's mirror matches to greedy.
//! `oc tournament F --ais A greedy --games 10 --seed 7`, A's wins (of 200 games a file), before
//! and after: seed 003's mirror fixture (in `tests/fixtures/mirror/`) the tactician
//! 80 -> 134, the default 112 -> 150; held out, its five rosters on the 24 fresh fields of seeds
//! 1-8, 201-208 and 400-407 (`tests/fresh_fields.rs`'s maps): the tactician 2,085 -> 3,283 of
//! 4,800, the default 2,583 -> 3,475; and three rosters of its classes never played before on 13
//! fields: the tactician 739 -> 1,109 of 1,560, the default 921 -> 1,167. Strikes of
//! opportunity alone gave the tactician 3,227 and 1,086 there (the enemies that activate first
//! added 56 and 23; the default, 18 and 15).

use super::super::threat::loss;
use super::super::Decision;
use super::Unit;
use crate::ai::forecasts::Forecasts;
use crate::battle::{distance, Tile};
use crate::Loadout;

/// The enemies in sight that may strike a unit on its arrival: each where it stands, its
/// loadout as it strikes (interned), at each distance (0 up to the farthest a tile of the unit's
/// reach lies from it) whether it strikes there, and whether it does so by activating first;
/// those that strike at none left out.
#[derive(Default)]
pub(super) struct Watchers {
    foes: Vec<(Tile, Loadout, u32, Vec<bool>, bool)>,
}

impl<'v, 'e> Decision<'v, 'e> {
    /// The enemies that may strike our unit `me` as its move ends on a tile of `reach`, each
    /// with whether it activates first (`interrupt`) rather than strikes at once (`opportunity`):
    /// none where the ruleset has neither (then every tile is weighed as before).
    pub(super) fn watchers(&self, me: &Unit, reach: &[(Tile, i64)], cache: &mut Forecasts) -> Watchers {
        let b = self.battle();
        if b.engine.ir.opportunity.is_none() && b.engine.ir.interrupt.is_none() {
            return Watchers::default();
        }
        let foes = self
            .view
            .enemies()
            .filter_map(|(k, f)| {
                let most = reach.iter().map(|(t, _)| distance(f.pos, *t)).max()?;
                // A braced enemy strikes at once; one that is not may activate first (as the
                // battle asks, `opportunity` before `interrupt`).
                let mut ranges = b.opportunity_ranges(k, me.i, most);
                let first = !ranges.contains(&true);
                if first {
                    ranges = b.interrupt_ranges(k, me.i, most);
                }
                if !ranges.contains(&true) {
                    return None;
                }
                let la = b.loadout_of(k, true)?;
                let ia = cache.id(&la);
                Some((f.pos, la, ia, ranges, first))
            })
            .collect();
        Watchers { foes }
    }

    /// Our unit `me` moving to `t`: the chance it still stands to act once the enemies that
    /// strike it there first have struck, and what the strikes of opportunity cost it ([`loss`]).
    /// (1, 0) where none strikes, and on the tile it stands on (a move that ends where it began
    /// meets none).
    pub(super) fn arrival(&mut self, me: &Unit, t: Tile, watchers: &Watchers, cache: &mut Forecasts) -> (f64, f64) {
        if watchers.foes.is_empty() || t == me.u.pos {
            return (1.0, 0.0);
        }
        let b = self.battle();
        let (mut stands, mut damage) = (1.0, 0.0);
        // The chance it stands the strikes of opportunity alone: their cost is the toll.
        let mut stands_struck = 1.0;
        // Our unit as struck on `t`, looked up once the first enemy strikes there.
        let mut target: Option<Option<(std::sync::Arc<Loadout>, u32)>> = None;
        for (at, la, ia, ranges, first) in &watchers.foes {
            let range = distance(*at, t);
            if !usize::try_from(range).ok().and_then(|r| ranges.get(r)).is_some_and(|h| *h) {
                continue;
            }
            let Some((ld, id)) = target.get_or_insert_with(|| self.target(me.i, me.u.equipped, t, cache)).clone() else {
                continue;
            };
            // Each strike read at the HP our unit arrives with (those before it may have hurt
            // it: read as if not).
            if let Some(x) = cache.get(b.engine, (la, *ia), (&*ld, id), range, (false, false, 0)) {
                let (routed, dealt) = x.against(me.u.hp);
                stands *= 1.0 - routed;
                if !*first {
                    stands_struck *= 1.0 - routed;
                    damage += dealt;
                }
            }
        }
        // None struck: (1, 0), as `loss` of no damage and no rout is 0.
        let toll = loss(self.worth(me.i), me.u.max_hp, damage.min(me.u.hp as f64), 1.0 - stands_struck);
        (stands, toll)
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use crate::ai::tactician::Tactician;
    use crate::battle::{distance, Act, Affliction, Battle, Controller};

    /// Seed 003's "brace [ready to attack targets of opportunity]": a savage (a commoner, felled
    /// by any blow) does not walk up to a braced savage to strike it, where the braced one's
    /// blow falls first; the same savage not braced, it walks up and strikes.
    #[test]
    fn a_commoner_does_not_walk_into_a_braced_enemys_reach() {
        let (engine, map) = crate::testing::duel(
            &["......", "......", "......"],
            "std:battlestorm",
            "",
            ["unit Brave: Savage { items Shortsword }", "unit Foe: Savage { items Shortsword }"],
        );
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let turn = |braced: bool| {
            let mut b = Battle::new(&engine, s, &map, [a, d], [&[(1, 1)][..], &[(4, 1)][..]], 3).expect("the battle starts");
            if braced {
                b.state.units[1].statuses = vec![Affliction { status: crate::Atom::new("Braced"), left: None }];
            }
            b.state.to_act = oc_model::SideId::Attacker;
            assert_eq!(
                b.opportunity_ranges(1, 0, 2).get(1..),
                Some(&[braced, false][..]),
                "the rules' `opportunity` at contact alone"
            );
            let turn = Tactician::default().choose(&b).expect("a turn");
            let at = turn.to.unwrap_or(b.state.units[0].pos);
            (matches!(turn.act, Act::Attack { target: 1 }), distance(at, (4, 1)))
        };
        let (attacks, _) = turn(false);
        assert!(attacks, "not braced, the foe is struck");
        let (attacks, near) = turn(true);
        assert!(!attacks && near > 1, "braced, the foe is left alone: {attacks}, {near} tiles away");
    }
}
