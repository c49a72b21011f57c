//! Distances alike to an exchange: two distances at which every part of a combat formula that
//! reads the distance has the same value, and each weapon is in reach or out of it alike, give
//! exchanges that end alike, bit for bit. Seed 003's shots read the distance only as `distance >
//! 1`, `distance == 1` and the range penalty `max(0, distance * 3 - attacker.effective_max)`:
//! within a bow's effective range every distance beyond contact is one shot.
//!
//! The parts ([`pieces`]) are the largest subexpressions of the combat formulas that read the
//! distance and nothing an exchange changes: constants, the units' attributes other than hit
//! points and resources, their tags and statuses (`has`), their weapons, terrain and figures'
//! hit points, whether the attacker moved and the cover. A part is worked out for each side
//! that may strike (the attacker alone where the struck unit never strikes back: a free attack,
//! or `counter` false) ([`Signature`]), on the units as the exchange begins; that is what it is at every
//! strike only where nothing changes the units within the exchange: no reactions, no rerolls, no
//! `when` on either unit nor a trigger on an event of the exchange, no attack forms. Elsewhere (and where the distance is read
//! outside a combat formula) every distance is its own.

use crate::ir::{Ir, E, V};
use crate::strike::Ctx;
use crate::unit::Unit;
use crate::{Engine, Loadout};

/// The parts of the combat formulas that read the distance ([`pieces`]).
pub(crate) type Pieces = Vec<E>;

/// Each weapon in reach or not, and each part's value with each side striking.
type Signature = ([bool; 2], Vec<V>);

/// The largest subexpressions of the combat formulas that read the distance and nothing an
/// exchange changes, or `None` where an exchange's units may change within it (reactions, rerolls)
/// or the distance is read outside a combat formula (`outside`).
pub(crate) fn pieces(engine: &Engine, outside: bool) -> Option<Pieces> {
    let ir = &engine.ir;
    if outside || !engine.reactions.is_empty() || ir.settles {
        return None;
    }
    let state: Vec<u16> = std::iter::once(ir.hp_attr).chain(ir.resources.iter().map(|r| r.attr)).collect();
    let mut pieces = Vec::new();
    for f in &ir.formulas {
        collect(&f.expr, &state, &mut pieces);
    }
    Some(pieces)
}

/// Whether `e` reads nothing an exchange changes (`state`: the attributes its state holds).
fn fixed(e: &E, state: &[u16]) -> bool {
    let own = match e {
        E::Const(_)
        | E::Distance
        | E::Weapon(..)
        | E::AccessoryWeight(_)
        | E::Promoted(_)
        | E::TerrainDefense(_)
        | E::FigureHp(_)
        | E::Moved(_)
        | E::Cover
        | E::Has(..) => true,
        E::Attr(_, a) => !state.contains(a),
        _ => e.combines(),
    };
    // `Lookup`'s arguments and `Has`'s are its children.
    own && e.children().all(|c| fixed(c, state))
}

fn collect(e: &E, state: &[u16], pieces: &mut Pieces) {
    if !e.any(&|e| matches!(e, E::Distance)) {
        return;
    }
    if fixed(e, state) {
        pieces.push(e.clone());
        return;
    }
    e.children().for_each(|c| collect(c, state, pieces));
}

/// The nearest distance below `distance` at which an exchange of `a` attacking `d` (`moved`,
/// `cover`) ends as it does at `distance`, where one is known to; else `None`. `answered`: the
/// struck unit may strike back (else the parts are read with the attacker striking alone).
pub(crate) fn alike(
    engine: &Engine,
    pieces: &Pieces,
    [a, d]: [&Loadout; 2],
    distance: i64,
    (moved, cover): (bool, i64),
    answered: bool,
) -> Option<i64> {
    if distance <= 1 || !a.carried.is_empty() || !d.carried.is_empty() {
        return None;
    }
    let (ua, ud) = (engine.unit(a, &[]).ok()?, engine.unit(d, &[]).ok()?);
    // A trigger on an event of the exchange (a hit, a miss, an attack) may lay a status in it.
    if [&ua, &ud].iter().any(|u| !u.whens.is_empty() || u.fires_on_strike(true)) {
        return None;
    }
    let units = [&*ua, &*ud];
    // The struck unit's strikes read the parts with it striking, where it may strike back.
    let strikers: &[usize] = if answered { &[0, 1] } else { &[0] };
    let at = signature(&engine.ir, pieces, units, strikers, distance, (moved, cover));
    (1..distance).find(|d| signature(&engine.ir, pieces, units, strikers, *d, (moved, cover)) == at)
}

fn signature(
    ir: &Ir,
    pieces: &Pieces,
    units: [&Unit; 2],
    strikers: &[usize],
    distance: i64,
    (moved, cover): (bool, i64),
) -> Signature {
    let reach = units.map(|u| u.in_range(distance));
    let mut values = Vec::with_capacity(strikers.len() * pieces.len());
    for &striker in strikers {
        let ctx = Ctx {
            ir,
            units,
            attrs: [&units[0].attrs, &units[1].attrs],
            held: [&[], &[]],
            attacker: striker,
            holder: striker,
            rolls: &[],
            dealt: 0,
            distance,
            triangle: 0,
            activated: [false; 2],
            moved: [moved, false],
            cover,
            solo: false,
            reads: None,
        };
        values.extend(pieces.iter().map(|p| ctx.eval(p, &[], &mut [])));
    }
    (reach, values)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::expect_used)]

    use crate::{Engine, Exchange, Loadout};

    /// Every built-in ruleset's matchups (one in three; units of one figure and of three), at every
    /// distance each weapon reaches: where a nearer distance is alike, the exchange there ends,
    /// worked out afresh, bit for bit as at this one, and the ending shared for it, kept at the
    /// nearer distance, is the same. Seed 003's bows shoot alike at every distance beyond contact
    /// within their effective range ("beyond effective range there is a penalty of +2 per inch").
    #[test]
    fn alike_distances_end_alike() {
        for (name, index) in oc_compiler::stdlib::RULESETS {
            let e = Engine::new(oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("compiles")).expect("runs");
            let (mut merged, mut asked) = (0, 0);
            for (what, a, d, _) in crate::testing::matchups(&e).into_iter().step_by(3) {
                let Some((lo, hi)) = a.weapon.as_deref().and_then(|w| e.reach(&a.class, w)) else { continue };
                for figures in [1, 3] {
                    let (a, d) = (Loadout { figures, ..a.clone() }, Loadout { figures, ..d.clone() });
                    for distance in lo.max(1)..=hi.min(12) {
                        asked += 1;
                        let Some(near) = e.inputs.alike_distance(&e, [&a, &d], distance, false, (false, 0)) else { continue };
                        let fresh = |at| Exchange::new(&e, &a, &d, at).map(|x| x.ending()).ok();
                        let here = fresh(distance);
                        assert_eq!(here, fresh(near), "{name} {what}, {figures} figures, at {distance} and {near}");
                        let kept = e.ending_shared(&a, &d, near, false, (false, 0)).ok();
                        let shared = e.ending_shared(&a, &d, distance, false, (false, 0)).ok();
                        assert_eq!(shared.as_deref(), here.as_ref(), "{name} {what}, {figures} figures, at {distance}");
                        assert_eq!(kept.as_deref(), here.as_ref(), "{name} {what}, {figures} figures, at {near}");
                        merged += 1;
                    }
                }
            }
            eprintln!("{name}: {merged} of {asked} distances alike to a nearer one");
            if *name == "battlestorm" {
                assert!(merged > 50, "{merged}");
            }
        }
    }
}
