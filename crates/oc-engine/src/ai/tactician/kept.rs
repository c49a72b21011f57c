//! What the threat map keeps of each enemy from one decision to the next: between two decisions
//! one unit or two moved and acted, so most enemies' parts of the map are what they were. An
//! enemy's weapons (loadouts, numbers, ranges), its movement and whether it can attack are kept
//! while its loadout as it acts and its items are the same; the tiles it strikes from this move
//! while the tiles it reaches are (its reach search is kept as the greedy's is, `KeptReach`:
//! made again where a unit moved onto or off a tile the search touched); those after a second
//! move while it stands where it stood. All of it is started over when the terrain changes. What
//! is kept is what would be worked out: each part is compared with what it was worked out from.

use std::sync::Arc;

use crate::ai::forecasts::Forecasts;
use crate::ai::View;
use crate::battle::{Battle, Combatant, KeptReach, Tile};
use crate::{Atom, Loadout};

/// The enemies' parts of the threat map, by battle index, and their reach searches.
#[derive(Debug, Default)]
pub(super) struct Kept {
    /// The terrain they were worked out on: the map's width and each tile's terrain.
    terrain: (i64, Vec<Option<usize>>),
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
    pub mobility: (i64, String, bool),
    /// Each weapon it may strike with, interned, and its reach (least, most).
    pub arms: Arc<[(Loadout, u32)]>,
    pub ranges: Vec<(i64, i64)>,
    /// The tiles it reaches this move, in tile order, and by weapon what it strikes from them.
    from: Vec<Tile>,
    pub near: Vec<Arc<[u32]>>,
    /// Where it stood, and by weapon what it strikes after a second move from there.
    far: Option<(Tile, Vec<Arc<[u32]>>)>,
}

impl Kept {
    /// Forgets everything if the terrain changed.
    pub fn check(&mut self, b: &Battle) {
        if self.terrain.0 != b.map.width || self.terrain.1 != b.terrain_indices_now() {
            self.terrain = (b.map.width, b.terrain_indices_now().to_vec());
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
        Some(Armed { can_attack, mobility, arms: arms.into(), ranges, from: Vec::new(), near: Vec::new(), far: None })
    }

    /// By weapon, the tiles it strikes from `from` (its reach this move, in tile order), widened
    /// by `widen` where `from` is not the reach they were widened from.
    pub fn near(&mut self, from: Vec<Tile>, widen: impl Fn(&[Tile], (i64, i64)) -> Vec<u32>) {
        if self.from != from || self.near.len() != self.ranges.len() {
            self.near = self.ranges.iter().map(|r| widen(&from, *r).into()).collect();
            self.from = from;
        }
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
