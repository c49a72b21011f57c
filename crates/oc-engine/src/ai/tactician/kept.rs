//! What the threat map keeps of each enemy from one decision to the next: between two decisions
//! one unit or two moved and acted, so most enemies' parts of the map are what they were. An
//! enemy's weapons (loadouts, numbers, ranges), its movement and whether it can attack are kept
//! while its loadout as it acts and its items are the same; the tiles it strikes from this move
//! are updated by the tiles its reach lost and gained (its reach search is kept as the greedy's
//! is, `KeptReach`: made again where an enemy moved onto a tile it reached or off one it could enter); those after a
//! second move while it stands where it stood. All of it is started over when the terrain changes. What
//! is kept is what would be worked out: each part is compared with what it was worked out from.
//! How a weapon's strikes widen from the tiles it reaches (`widen`) lives here too.

use std::sync::Arc;

use crate::ai::forecasts::Forecasts;
use crate::ai::View;
use crate::battle::{Battle, Combatant, KeptReach, TerrainSeen, Tile};
use crate::{Atom, Loadout};

/// The enemies' parts of the threat map, by battle index, and their reach searches.
#[derive(Debug, Default)]
pub(super) struct Kept {
    /// The terrain they were worked out on: the map's width and each tile's terrain.
    terrain: TerrainSeen,
    reach: KeptReach,
    foes: Vec<Option<Foe>>,
}

/// One enemy's part, and what it was worked out from.
#[derive(Debug)]
struct Foe {
    /// Its loadout as it acts (what its movement and weapons are read from) and its items.
    acting: Loadout,
    items: Vec<Atom>,
    /// `None`: it is no threat (no unit built, no movement).
    armed: Option<Armed>,
}

/// An enemy's weapons, movement, and the tiles it strikes.
#[derive(Debug)]
pub(super) struct Armed {
    /// Whether it can attack now, by its attributes (asleep, petrified: not).
    pub can_attack: bool,
    pub mobility: crate::battle::Mobility,
    /// Each weapon it may strike with, interned, and its reach (least, most).
    pub arms: Arc<[(Loadout, u32)]>,
    pub ranges: Vec<(i64, i64)>,
    /// The tiles it reaches this move, in tile order, and by weapon what it strikes from them.
    from: Vec<Tile>,
    pub near: Vec<Arc<[u32]>>,
    /// By weapon, the steps it strikes along (`steps`), and by tile and distance how
    /// many tiles of `from` it strikes that tile from at that distance (`near`'s bit is set
    /// where that is not 0): so a reach that gained or lost a few tiles updates `near` by those.
    steps: Vec<Vec<(i64, i64, i64)>>,
    counts: Vec<Vec<u8>>,
    /// Where it stood, and by weapon what it strikes after a second move from there.
    far: Option<(Tile, Vec<Arc<[u32]>>)>,
}

impl Kept {
    /// Forgets everything if the terrain changed.
    pub fn check(&mut self, b: &Battle) {
        if self.terrain.renew(b) {
            self.reach.clear();
            self.foes.clear();
        }
    }

    /// Enemy `k` (`e`)'s weapons and movement, `acting` its loadout as it acts: kept if that and
    /// its items are as they were, else worked out (`make`); with the tiles it reaches this move
    /// as `view`'s side sees it, in tile order (the kept search where nothing it touched changed).
    /// `None`: it is no threat.
    pub fn foe(
        &mut self,
        view: &View,
        (k, e): (usize, &Combatant),
        acting: Loadout,
        make: impl FnOnce(&Loadout) -> Option<Armed>,
    ) -> Option<(&mut Armed, Vec<(Tile, i64)>)> {
        if self.foes.len() <= k {
            self.foes.resize_with(k + 1, || None);
        }
        let slot = self.foes.get_mut(k)?;
        if !slot.as_ref().is_some_and(|f| f.acting == acting && f.items == e.items) {
            let armed = make(&acting);
            *slot = Some(Foe { acting, items: e.items.clone(), armed });
        }
        let armed = slot.as_mut()?.armed.as_mut()?;
        let reach = view.reachable_sorted(k, &armed.mobility, &mut self.reach)?;
        Some((armed, reach))
    }
}

impl Armed {
    /// Its weapons and movement, from its loadout as it acts (`acting`, at full HP and on no
    /// terrain as `base`) and `b`'s rules; `None` where no unit is built or it has no movement.
    pub fn new(b: &Battle, k: usize, e: &Combatant, base: &Loadout, cache: &mut Forecasts) -> Option<Armed> {
        let ir = &b.engine.ir;
        let unit = b.engine.unit(base, &[]).ok()?;
        let can_attack = ir.attr_id("can_attack").and_then(|a| unit.attrs.get(a as usize)).is_none_or(|v| v.bool());
        let mobility = b.mobility(k).ok()?;
        let (mut arms, mut ranges) = (Vec::new(), Vec::new());
        for w in e.items.iter().filter(|n| b.engine.item(n).is_some_and(|it| it.kind == oc_model::ItemKind::Weapon)) {
            if arms.iter().any(|(l, _): &(Loadout, u32)| l.weapon.as_deref() == Some(w.as_str())) || arms.len() >= 8 {
                continue;
            }
            let mut l = base.clone();
            l.weapon = Some(*w);
            let Ok(armed) = b.engine.unit(&l, &[]) else { continue };
            if !armed.may_use_weapon() {
                continue;
            }
            let (lo, hi) = (armed.min_range.max(0), armed.max_range.clamp(0, 31));
            if hi < lo.max(1) {
                continue;
            }
            let id = cache.id(&l);
            arms.push((l, id));
            ranges.push((lo, hi));
        }
        let steps = ranges.iter().map(|r| steps(*r)).collect();
        let (from, near, counts, far) = (Vec::new(), Vec::new(), Vec::new(), None);
        Some(Armed { can_attack, mobility, arms: arms.into(), ranges, from, near, steps, counts, far })
    }

    /// By weapon, the tiles it strikes from `from` (its reach this move, in tile order) on `b`'s
    /// map, `width` by `height`: where `from` is not the reach they were found from, updated by
    /// the tiles it lost and those it gained (the tiles each strikes counted off or on).
    pub fn near(&mut self, b: &Battle, from: Vec<Tile>, (width, height): (i64, i64)) {
        let size = (width * height) as usize;
        if self.near.len() != self.ranges.len() || self.near.iter().any(|m| m.len() != size) {
            self.near = self.ranges.iter().map(|_| vec![0u32; size].into()).collect();
            self.counts = self.ranges.iter().map(|(_, hi)| vec![0u8; size * (*hi as usize + 1)]).collect();
            self.from.clear();
        } else if self.from == from {
            return;
        }
        // Both in tile order: the tiles lost and those gained, in one walk.
        let (mut lost, mut gained): (Vec<&Tile>, Vec<&Tile>) = (Vec::new(), Vec::new());
        let (mut was, mut now) = (self.from.iter().peekable(), from.iter().peekable());
        loop {
            match (was.peek(), now.peek()) {
                (Some(a), Some(n)) if a == n => {
                    was.next();
                    now.next();
                }
                (Some(a), Some(n)) if a < n => lost.extend(was.next()),
                (Some(_), None) => lost.extend(was.next()),
                (_, Some(_)) => gained.extend(now.next()),
                (None, None) => break,
            }
        }
        for (((mask, counts), steps), (_, hi)) in self.near.iter_mut().zip(&mut self.counts).zip(&self.steps).zip(&self.ranges) {
            if Arc::get_mut(mask).is_none() {
                *mask = Arc::from(&mask[..]);
            }
            let Some(mask) = Arc::get_mut(mask) else { continue };
            let span = *hi as usize + 1;
            for (tiles, on) in [(&lost, false), (&gained, true)] {
                for s in tiles {
                    struck_from(
                        b,
                        **s,
                        (steps, *hi),
                        (width, height),
                        &mut (),
                        |_, _, _| false,
                        |_, k, d| {
                            let (Some(c), Some(m)) = (counts.get_mut(k * span + d as usize), mask.get_mut(k)) else { return };
                            if on {
                                *c += 1;
                                if *c == 1 {
                                    *m |= 1 << d;
                                }
                            } else {
                                // Each tile lost was counted when it was gained: never below 0.
                                debug_assert!(*c > 0);
                                *c = c.saturating_sub(1);
                                if *c == 0 {
                                    *m &= !(1 << d);
                                }
                            }
                        },
                    );
                }
            }
        }
        self.from = from;
    }

    /// By weapon, the tiles it strikes after a second move from `pos`, found by `mask` where it
    /// stood elsewhere.
    pub fn far(&mut self, pos: Tile, mut mask: impl FnMut((i64, i64)) -> Arc<[u32]>) {
        if !self.far.as_ref().is_some_and(|(at, masks)| *at == pos && masks.len() == self.ranges.len()) {
            self.far = Some((pos, self.ranges.iter().map(|r| mask(*r)).collect()));
        }
    }

    /// By weapon, what it strikes after a second move (`Armed::far`; none before).
    pub fn far_masks(&self) -> &[Arc<[u32]>] {
        self.far.as_ref().map_or(&[], |(_, masks)| masks.as_slice())
    }
}

/// Marks in `mask` (one bit per distance, by tile) every tile a weapon reaching `lo..=hi` strikes
/// from one of `tiles` on a map `width` by `height` — over a clear line where the rules have
/// `line_of_sight` (`b`'s [`Battle::clear_line`]).
pub(super) fn widen(b: &Battle, tiles: &[Tile], (lo, hi): (i64, i64), (width, height): (i64, i64), mask: &mut [u32]) {
    // The steps a weapon reaches, with their distance: found once, not once a tile.
    let steps = steps((lo, hi));
    // A tile's bit for a distance is set once: a line already found clear from another of
    // `tiles` at that distance is not looked along again.
    let set = |mask: &[u32], k: usize, d: i64| mask.get(k).is_some_and(|m| m & (1 << d) != 0);
    for s in tiles {
        struck_from(b, *s, (&steps, hi), (width, height), mask, set, |mask, k, d| {
            if let Some(m) = mask.get_mut(k) {
                *m |= 1 << d;
            }
        });
    }
}

/// The steps a weapon reaching `lo..=hi` strikes along, with their distance.
fn steps((lo, hi): (i64, i64)) -> Vec<(i64, i64, i64)> {
    let mut steps = Vec::new();
    for dx in -hi..=hi {
        let span = hi - dx.abs();
        for dy in -span..=span {
            let d = dx.abs() + dy.abs();
            if d >= lo.max(1) {
                steps.push((dx, dy, d));
            }
        }
    }
    steps
}

/// Gives `f` the index (row by row) and the distance of each tile of a map `width` by `height` a
/// weapon reaching `hi` at most along `steps` ([`steps`]) strikes from `s` — over a clear line
/// where the rules have `line_of_sight` (`b`'s [`Battle::clear_line`]) —, with `state`; but each
/// that `done` says needs it no more (before its line is looked along).
#[inline]
fn struck_from<S: ?Sized>(
    b: &Battle,
    s: Tile,
    (steps, hi): (&[(i64, i64, i64)], i64),
    (width, height): (i64, i64),
    state: &mut S,
    done: impl Fn(&S, usize, i64) -> bool,
    mut f: impl FnMut(&mut S, usize, i64),
) {
    let sight = b.engine.rules.ruleset.turn.line_of_sight;
    // A tile whose whole reach lies on the map needs no bounds check.
    let inside = s.0 >= hi && s.1 >= hi && s.0 + hi < width && s.1 + hi < height;
    for &(dx, dy, d) in steps {
        let (x, y) = (s.0 + dx, s.1 + dy);
        if !inside && (x < 0 || y < 0 || x >= width || y >= height) {
            continue;
        }
        let k = (y * width + x) as usize;
        if done(state, k, d) || (sight && d > 1 && !b.clear_line(s, (x, y))) {
            continue;
        }
        f(state, k, d);
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use std::sync::Arc;

    use super::{steps, widen, Armed};
    use crate::battle::{Battle, Tile};

    /// The tiles a weapon strikes from a reach that changes decision by decision, updated by the
    /// tiles the reach lost and gained, are those widened afresh from the whole reach — walls
    /// blocking the line of sight (the ruleset's `line_of_sight`) included.
    #[test]
    fn updated_strikes_are_the_strikes_worked_out_afresh() {
        let (engine, map) = crate::testing::duel(
            &[".........", "..#......", "..#..#...", ".....#...", "...#.....", "......#..", "........."],
            "std:battlestorm",
            "",
            ["unit Brave: Savage { items Shortsword }", "unit Foe: Savage { items Shortsword }"],
        );
        assert!(engine.rules.ruleset.turn.line_of_sight, "the walls block the line of sight");
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let b = Battle::new(&engine, s, &map, [a, d], [&[(0, 1)][..], &[(8, 1)][..]], 3).expect("the battle starts");
        let dims = (9, 7);
        let ranges = vec![(1, 1), (1, 2), (2, 3), (0, 4)];
        let mut armed = Armed {
            can_attack: true,
            mobility: (5, crate::Atom::default(), true),
            arms: Arc::from(Vec::new()),
            steps: ranges.iter().map(|r| steps(*r)).collect(),
            ranges,
            from: Vec::new(),
            near: Vec::new(),
            counts: Vec::new(),
            far: None,
        };
        // Reaches drawn at random (a fixed seed), each sorted as a reach search gives them.
        let mut state = 7u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 33
        };
        let mut changed = 0;
        for round in 0..60 {
            let keep = 2 + next() % 6;
            let mut from: Vec<Tile> = (0..9).flat_map(|x| (0..7).map(move |y| (x, y))).filter(|_| next() % 8 < keep).collect();
            if round % 5 == 0 {
                from.clear();
            }
            let before = armed.near.clone();
            armed.near(&b, from.clone(), dims);
            for (n, range) in armed.ranges.iter().enumerate() {
                let mut fresh = vec![0u32; 63];
                widen(&b, &from, *range, dims, &mut fresh);
                assert_eq!(&armed.near[n][..], &fresh[..], "round {round}, range {range:?}");
            }
            changed += usize::from(before != armed.near);
        }
        assert!(changed > 30, "the reaches changed the strikes ({changed} times)");
    }
}
