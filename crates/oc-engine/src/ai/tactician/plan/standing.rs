//! The candidates that stand on a tile without striking (`Decision::prepare`'s): standing there
//! holding the guard weapon (and where a change of weapons is priced, without it too), and
//! guarding (seed 002's Guard), each with what it leaves of the resources activations are paid
//! from.

use oc_model as m;

use super::super::{Candidate, Decision};
use super::Unit;
use crate::battle::{Act, Tile};
use crate::Atom;

impl<'v, 'e> Decision<'v, 'e> {
    /// Standing on `t` (moving there, or staying), holding the guard weapon; where the ruleset
    /// prices a change of weapons (seed 002's Item action), also without the change, the change
    /// weighed with what it costs left off the resource activations spend: added to `out`.
    pub(super) fn stand(&self, me: &Unit, t: Tile, (reach, spend): (&[(Tile, i64)], Option<&Atom>), out: &mut Vec<Candidate>) {
        let moved = t != me.u.pos;
        // Equipping is free where the ruleset does not price it; where activations are steps it
        // is a step of its own.
        let equip = me.guard.filter(|w| me.u.equipped != Some(*w) && (moved || !self.stepped));
        let holds = equip.or(me.u.equipped);
        let stand = |equip: Option<Atom>, holds: Option<Atom>, holding: Vec<(Atom, i64)>| Candidate {
            to: moved.then_some(t),
            act_is: Act::Wait,
            equip,
            act: 0.0,
            holds,
            hp: me.u.hp,
            fallen: 0.0,
            routs: None,
            holding,
        };
        let (Some(w), Some(r), true) = (equip, spend, self.stepped) else {
            out.push(stand(equip, holds, Vec::new()));
            return;
        };
        let b = self.battle();
        let cost = reach.binary_search_by_key(&t, |(x, _)| *x).ok().and_then(|k| reach.get(k)).map_or(0, |(_, c)| *c);
        let price = |equip: Option<&str>| b.act_price(me.i, (moved.then_some(t), cost), &Act::Wait, equip).and_then(Result::ok);
        match (price(Some(w.as_str())), price(None)) {
            // The change refused (an Item action already taken this turn): standing as it holds.
            (None, _) => out.push(stand(None, me.u.equipped, Vec::new())),
            (Some(with), Some(without)) if with > without => {
                let left = (b.resource(me.i, r).unwrap_or(0) - (with - without)).max(0);
                out.extend([stand(equip, holds, vec![(*r, left)]), stand(None, me.u.equipped, Vec::new())]);
            }
            _ => out.push(stand(equip, holds, Vec::new())),
        }
    }

    /// Guarding on `t` (seed 002's Guard): each of `guards` (a tag and the resources it
    /// raises, by their mean) with the Stamina its act costs taken off `spend`, the resource
    /// activations are paid from; the enemies' replies weigh it (`Decision::danger_holding`).
    pub(super) fn guards(
        &self,
        me: &Unit,
        t: Tile,
        guards: &[(Atom, Vec<(Atom, i64)>)],
        spend: Option<&Atom>,
        reach: &[(Tile, i64)],
    ) -> Vec<Candidate> {
        let b = self.battle();
        let moved = t != me.u.pos;
        let cost = reach.binary_search_by_key(&t, |(x, _)| *x).ok().and_then(|k| reach.get(k)).map_or(0, |(_, c)| *c);
        let mut out = Vec::new();
        for (tag, gains) in guards {
            let act = Act::Special { verb: m::Verb::Gain, target: None, tile: None, from: Some(*tag) };
            let price = |act: &Act| b.act_price(me.i, (moved.then_some(t), cost), act, None).and_then(Result::ok).unwrap_or(0);
            let paid = price(&act) - price(&Act::Wait);
            let mut holding = Vec::new();
            for (r, v) in gains {
                let now = b.resource(me.i, r).unwrap_or(0);
                holding.push((*r, now + v));
            }
            if let Some(r) = spend {
                let now = b.resource(me.i, r).unwrap_or(0);
                holding.push((*r, (now - paid).max(0)));
            }
            out.push(Candidate {
                to: moved.then_some(t),
                act_is: act,
                equip: None,
                act: 0.0,
                holds: me.u.equipped,
                hp: me.u.hp,
                fallen: 0.0,
                routs: None,
                holding,
            });
        }
        out
    }
}
