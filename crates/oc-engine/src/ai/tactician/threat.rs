//! The threat map: for every enemy in sight, the tiles it can strike on its next activation —
//! every tile it can reach, widened by each of its weapons' ranges —, and the damage it would
//! do there, as the exact forecast of that enemy attacking our unit on that tile's terrain.

use std::sync::Arc;

mod second;

use super::kept::{Armed, Kept};
use crate::ai::forecasts::{Forecasts, Sketch};
use crate::ai::View;
use crate::battle::Tile;
use crate::fx::FastMap;
use crate::{Engine, Loadout};
use second::Second;

/// An enemy in sight, as the threat map uses it.
pub(super) struct Foe {
    pub unit: usize,
    /// Its loadout with each weapon it may strike with, interned.
    arms: Arc<[(Loadout, u32)]>,
    /// How likely it acts before our unit moves again: 1 if it has yet to act this round.
    pub tempo: f64,
    pub worth: f64,
    pub hp: i64,
    pub max_hp: i64,
    /// The most its blows' bait may be: tempo, worth, the share its HP and standing carry (`least_danger`).
    most_bait: f64,
}

/// Our unit as an enemy would strike it: its loadout (HP, terrain, weapon) interned, its worth.
pub(super) struct Target<'l> {
    pub loadout: &'l Loadout,
    pub id: u32,
    pub hp: i64,
    pub max_hp: i64,
    pub worth: f64,
}

/// How much an enemy minds its own losses when it picks a blow (1: as much as ours; a careless
/// enemy strikes even where our counter costs it more).
pub(super) fn regard() -> f64 {
    super::REGARD
}

/// What a blow is worth to the enemy that strikes: our loss (a unit of `worth` and `max_hp`
/// taking `damage` and routed by chance `routed`, as much as it still stands: `standing`) less
/// its own loss `own`, weighed by its regard. Read once per blow (`Read`), per unit struck
/// (`Exposure::value`) and blow by blow as the enemies strike (`ThreatMap::danger`).
pub(super) fn worth_to_enemy((worth, max_hp): (f64, i64), (damage, routed): (f64, f64), standing: f64, own: f64) -> f64 {
    standing * loss(worth, max_hp, damage, routed) - regard() * own
}

/// A unit's material: its worth, a share for its HP (`HP_SHARE`) and the rest for standing at all.
pub(super) fn loss(worth: f64, max_hp: i64, damage: f64, routed: f64) -> f64 {
    worth * (super::HP_SHARE * damage / max_hp.max(1) as f64 + (1.0 - super::HP_SHARE) * routed)
}

/// What one enemy's best strike at a tile does: its value to the enemy (our loss minus its
/// own), our expected damage and rout chance, whether it strikes from next to us.
#[derive(Clone, Debug)]
pub(super) struct Blow {
    pub value: f64,
    pub damage: f64,
    pub routed: f64,
    pub own_loss: f64,
    pub adjacent: bool,
    /// Only after a second move.
    pub far: bool,
    /// The exchange's number among those looked up, to read again at lower HP
    /// ([`ThreatMap::against`]).
    at: usize,
}

/// An enemy's best blow at a tile so far: its value, our damage and rout chance, the enemy's
/// own loss, the distance and the number of its forecast among those looked up.
type Best = (f64, f64, f64, f64, u32, usize);

pub(super) struct ThreatMap {
    width: i64,
    height: i64,
    /// Each enemy's weapons' reach, enemy by enemy, then weapon by weapon.
    reaches: Vec<Reach>,
    /// Whether any enemy strikes a tile, by tile.
    struck: Vec<bool>,
    /// Whether the rules read the distance: then a tile is struck from each distance a weapon
    /// reaches it from, else from the farthest only.
    by_distance: bool,
    pub foes: Vec<Foe>,
    /// The forecasts the blows read, resolved once per threat map: a row of slots per target
    /// (by its number in the forecasts), a slot per enemy weapon and distance (`Reach::slots`).
    rows: FastMap<u32, usize>,
    /// The last target's number and row ([`ThreatMap::row`]: a unit's tiles are weighed one
    /// after another, each asking its row).
    last_row: Option<(u32, usize)>,
    slots: usize,
    /// By slot: 0 not looked up yet, 1 the enemy cannot strike, else 2 + its number in `known`.
    table: Vec<u32>,
    known: Vec<Known>,
    /// What the slots stand for, reach by reach: the enemy weapon's number in the forecasts, its
    /// most distance, the enemy's HP, worth (its bits) and max HP ([`Forecasts`]).
    ledger: Vec<Ledger>,
    /// A list of blows handed back ([`ThreatMap::give_back`]), for the next [`ThreatMap::blows`],
    /// and one it gathers the blows after a second move in.
    spare: Vec<(usize, Blow)>,
    spare_far: Vec<(usize, Blow)>,
    /// By tile, once worked out (NaN before): [`ThreatMap::least_danger`].
    least: Vec<f64>,
    /// [`ThreatMap::danger`]'s list of the blows left and how each was read, kept for the next.
    left: Vec<(bool, (usize, f64, f64, f64))>,
}

/// Enemy `foe`'s best blows so far (`best`, from this move and after a second), taken into
/// `outs` (from this move, after a second). An enemy that strikes the tile from this move with
/// one weapon is not struck again after a second move with another: a tile is struck from
/// this move or from the next, per enemy as per weapon (a lance and javelin that reached a
/// tile from this move by the javelin alone counted there once more, by the lance, after a
/// second move: the ring just past the lance's reach weighed more than the tiles inside it).
#[inline(always)]
fn flush(foe: Option<u16>, best: &mut [Option<Best>; 2], out: &mut Vec<(usize, Blow)>, out_far: &mut Vec<(usize, Blow)>) {
    let Some(foe) = foe else { return };
    let [near, far] = best;
    let far = far.take();
    if let Some((value, damage, routed, own_loss, distance, at)) = near.take() {
        let blow = Blow { value, damage, routed, own_loss, adjacent: distance == 1, far: false, at };
        out.push((usize::from(foe), blow));
        return;
    }
    if let Some((value, damage, routed, own_loss, distance, at)) = far {
        let blow = Blow { value, damage, routed, own_loss, adjacent: distance == 1, far: true, at };
        out_far.push((usize::from(foe), blow));
    }
}

/// The distances a reach's mask strikes from (bit `d`: distance `d`), farthest first and never
/// 0; only the farthest unless `by_distance`.
fn distances(m: u32, by_distance: bool) -> impl Iterator<Item = u32> {
    let mut left = if by_distance || m == 0 { m } else { 1u32 << (31 - m.leading_zeros()) };
    std::iter::from_fn(move || loop {
        if left == 0 {
            return None;
        }
        let distance = 31 - left.leading_zeros();
        left &= !(1u32 << distance);
        if distance != 0 {
            return Some(distance);
        }
    })
}

/// The number in `known` of the forecast of reach `r`'s weapon striking `target` from `distance`
/// (its slot in the target's `row`), looked up if new; `None` where the enemy cannot strike.
#[inline(always)]
fn look(
    (table, known): (&mut [u32], &mut Vec<Known>),
    (engine, cache): (&Engine, &mut Forecasts),
    (r, foes): (&Reach, &[Foe]),
    (row, distance): (usize, u32),
    target: &Target,
) -> Option<usize> {
    let slot = table.get_mut(row + r.slots + distance as usize)?;
    if *slot == 0 {
        *slot = 1;
        let foe = foes.get(r.foe as usize)?;
        let (arm, id) = foe.arms.get(r.weapon as usize)?;
        let x = cache.get(
            engine,
            (arm, *id),
            (target.loadout, target.id),
            i64::from(distance),
            // Reading: an enemy reaches us by moving (a charge, where the rules tell).
            (false, true, 0),
        );
        if let Some(sketch) = x {
            let (fell, hurt) = sketch.attacker_at(foe.hp);
            let own_loss = loss(foe.worth, foe.max_hp, hurt, fell);
            let read = Read::new(&sketch, own_loss, target);
            *slot = known.len() as u32 + 2;
            known.push(Known { sketch, own_loss, read: [read; 2] });
        }
    }
    (*slot >= 2).then(|| (*slot - 2) as usize)
}

/// One enemy weapon's reach: by tile, the distances (one bit each) it strikes from after this
/// move, and after a second (`None`: no second move).
struct Reach {
    foe: u16,
    weapon: u8,
    near: Arc<[u32]>,
    far: Option<Arc<[u32]>>,
    /// Its first slot in a target's row of forecasts (one slot per distance, 0 to 31).
    slots: usize,
}

/// A forecast of an enemy weapon's blow on a target from one distance, once looked up: the
/// exchange and what the enemy loses in it.
#[derive(Debug)]
struct Known {
    sketch: Arc<Sketch>,
    own_loss: f64,
    /// What it was last read as at two HPs (the later last): at one again and again, or two by turns.
    read: [Read; 2],
}

/// A blow read for a target with `hp`, `worth` (its bits) and `max_hp`: our chance routed and
/// damage, and the blow's value to the enemy.
#[derive(Clone, Copy, Debug)]
struct Read {
    hp: i64,
    worth: u64,
    max_hp: i64,
    routed: f64,
    damage: f64,
    value: f64,
}

impl Read {
    fn new(sketch: &Sketch, own_loss: f64, target: &Target) -> Read {
        let (routed, damage) = sketch.against(target.hp);
        let value = worth_to_enemy((target.worth, target.max_hp), (damage, routed), 1.0, own_loss);
        Read { hp: target.hp, worth: target.worth.to_bits(), max_hp: target.max_hp, routed, damage, value }
    }

    fn of(&self, target: &Target) -> bool {
        self.hp == target.hp && self.worth == target.worth.to_bits() && self.max_hp == target.max_hp
    }
}

/// What a reach's slots hold: the enemy weapon's number in the forecasts and its most distance
/// (the forecasts the slots stand for), the enemy's HP, worth (bits) and max HP (its own loss).
type Ledger = (u32, i64, i64, u64, i64);

/// What the threat map keeps from one decision to the next: each enemy's part (`kept.rs`), what
/// an enemy strikes after a second move, and the last map's forecasts ([`Looked`]).
#[derive(Debug, Default)]
pub(super) struct Later {
    second: Second,
    kept: Kept,
    looked: Option<Looked>,
}

/// The forecasts a threat map looked up (`ThreatMap::rows`, `table`, `known`), kept for the next
/// map whose reaches hold the same enemy weapons, in the same order, for enemies of the same HP
/// and worth (`ledger`): what a slot holds is read from those alone (a forecast of interned
/// loadouts stays right all battle, `Forecasts`), not from where an enemy stands or reaches.
#[derive(Debug)]
struct Looked {
    ledger: Vec<Ledger>,
    rows: FastMap<u32, usize>,
    table: Vec<u32>,
    known: Vec<Known>,
}

impl Looked {
    /// Past this many slots, a map starts afresh (a kept table grows with every target).
    const MAX: usize = 1 << 20;
}

impl Later {
    /// What of it the next battle with the engine may read (`carried.rs`): what an enemy strikes
    /// after a second move (kept by the terrain it was worked out on). The enemies' parts and the
    /// last map's forecasts are the battle's (by battle index, by its ledger): left behind.
    pub fn carried(&mut self) -> Later {
        Later { second: std::mem::take(&mut self.second), ..Later::default() }
    }

    /// How much is kept: the tiles of what an enemy strikes after a second move.
    pub fn count(&self) -> usize {
        self.second.count()
    }

    #[cfg(test)]
    fn mask(&mut self, b: &crate::battle::Battle, kind: &str, from: Tile, points: i64, reach: (i64, i64)) -> Arc<[u32]> {
        self.second.mask(b, kind, from, points, reach)
    }
}

impl ThreatMap {
    /// The threat map of the enemies `view`'s side sees; `worth` by battle index. Each enemy's
    /// part is kept from the last decision where what it is worked out from is the same
    /// (`kept.rs`).
    pub fn new(view: &View, cache: &mut Forecasts, later: &mut Later, worth: &[f64]) -> ThreatMap {
        let b = view.battle;
        let (width, height) = (b.map.width.max(0), b.map.height.max(0));
        let size = (width * height) as usize;
        let mut reaches: Vec<Reach> = Vec::new();
        let mut slots = 0;
        let mut foes = Vec::new();
        let mut ledger = Vec::new();
        let Later { second, kept, looked } = later;
        kept.check(b);
        for (k, e) in view.enemies() {
            let Some(acting) = b.loadout_of(k, true) else { continue };
            // At full HP: one forecast answers for every HP it may have (`Sketch::attacker_at`);
            // on no terrain, wherever it strikes from.
            let make = |acting: &Loadout| {
                let mut base = acting.clone();
                base.hp = None;
                base.terrain = None;
                Armed::new(b, k, e, &base, cache)
            };
            let Some((armed, reach)) = kept.foe(view, (k, e), acting, make) else { continue };
            if armed.arms.is_empty() {
                continue;
            }
            // A unit that cannot attack now (asleep, petrified) may by its next turn: a little.
            // A routing enemy (the ruleset's `courage`) only flees until it rallies: a little too.
            let able = armed.can_attack && !e.morale.routing;
            // In any order: a weapon's reach from them is the same (`widen`).
            let from: Vec<Tile> = reach.into_iter().map(|(t, _)| t).collect();
            armed.near(b, from, (width, height));
            // An enemy yet to act this round may move now and strike next round: from the tiles
            // two moves away (over the terrain, units aside). The tiles it strikes only after a
            // second move: those `near` leaves unstruck (a tile struck from this move is not
            // struck again from the next, so the tiles of this move need not be left out of the
            // second's).
            let far = match &armed.mobility {
                (points, kind, true) if !e.activated => {
                    let (kind, points) = (*kind, *points);
                    armed.far(e.pos, |range| second.mask(b, &kind, e.pos, points, range));
                    armed.far_masks()
                }
                _ => &[],
            };
            let foe = foes.len() as u16;
            let worth = worth.get(k).copied().unwrap_or(1.0);
            for (weapon, (near, (_, hi))) in armed.near.iter().zip(&armed.ranges).enumerate() {
                let far = far.get(weapon).cloned();
                let id = armed.arms.get(weapon).map_or(u32::MAX, |(_, id)| *id);
                ledger.push((id, *hi, e.hp, worth.to_bits(), e.max_hp));
                reaches.push(Reach { foe, weapon: weapon as u8, near: near.clone(), far, slots });
                slots += *hi as usize + 1;
            }
            let tempo = if e.activated { super::ACTED } else { 1.0 } * if able { 1.0 } else { 0.3 };
            let share = super::HP_SHARE * e.hp.max(1) as f64 / e.max_hp.max(1) as f64 + (1.0 - super::HP_SHARE);
            let most_bait = tempo.abs() * worth.abs() * share;
            foes.push(Foe { unit: k, arms: armed.arms.clone(), tempo, worth, hp: e.hp, max_hp: e.max_hp, most_bait });
        }
        // The masks or'd together, tile by tile (a loop the compiler runs several tiles at once).
        let mut any = vec![0u32; size];
        for r in &reaches {
            for mask in std::iter::once(&r.near).chain(&r.far) {
                for (s, m) in any.iter_mut().zip(mask.iter()) {
                    *s |= *m;
                }
            }
        }
        let struck: Vec<bool> = any.iter().map(|m| *m != 0).collect();
        let by_distance = b.engine.ir.reads_distance;
        // The last map's forecasts where its slots stand for the same ones.
        let (rows, table, known) = match looked.take() {
            Some(l) if l.ledger == ledger && l.table.len() <= Looked::MAX => (l.rows, l.table, l.known),
            _ => (FastMap::default(), Vec::new(), Vec::new()),
        };
        let spare = Vec::new();
        ThreatMap {
            width,
            height,
            reaches,
            struck,
            by_distance,
            foes,
            rows,
            last_row: None,
            slots,
            table,
            known,
            ledger,
            spare,
            spare_far: Vec::new(),
            least: Vec::new(),
            left: Vec::new(),
        }
    }

    /// Hands the forecasts this map looked up to `later`, for the next map ([`Looked`]).
    pub fn keep(&mut self, later: &mut Later) {
        let (rows, table, known) =
            (std::mem::take(&mut self.rows), std::mem::take(&mut self.table), std::mem::take(&mut self.known));
        self.last_row = None;
        later.looked = Some(Looked { ledger: std::mem::take(&mut self.ledger), rows, table, known });
    }

    /// Hands back a list [`ThreatMap::blows`] gave, once read: the next call fills it again.
    pub fn give_back(&mut self, blows: Vec<(usize, Blow)>) {
        self.spare = blows;
    }

    /// (chance routed, expected damage) of our unit taking `blow` with `hp`.
    fn against(&self, blow: &Blow, hp: i64) -> (f64, f64) {
        match self.known.get(blow.at) {
            Some(known) => known.sketch.against(hp),
            None => (blow.routed, blow.damage),
        }
    }

    /// The exchange of `blow`.
    pub fn sketch(&self, blow: &Blow) -> Option<&Arc<Sketch>> {
        self.known.get(blow.at).map(|known| &known.sketch)
    }

    /// Tile `t`'s index in the masks, if on the map.
    fn index(&self, t: Tile) -> Option<usize> {
        crate::battle::tile_index(t, (self.width, self.height))
    }

    /// Whether any enemy in sight can strike `t` on its next activation.
    pub fn reaches(&self, t: Tile) -> bool {
        self.index(t).and_then(|k| self.struck.get(k)).is_some_and(|s| *s)
    }

    /// A bound below [`ThreatMap::danger`] at `t`, for any unit of ours, without its blows: the
    /// danger is the margins (never below 0) and the worst later blow (nor that) less the bait,
    /// a blow's worth to the enemy below 0 — never below minus its own loss, weighed by its
    /// regard. An enemy's own loss is at most its worth (all its HP lost, routed), its HP as it
    /// stands being the most it can lose. Each enemy that strikes `t` from this move counts its
    /// most, a little over (the chances sum to 1 but for rounding).
    pub fn least_danger(&mut self, t: Tile) -> f64 {
        let Some(k) = self.index(t).filter(|k| self.struck.get(*k).is_some_and(|s| *s)) else { return 0.0 };
        if self.least.len() != self.struck.len() {
            self.least = vec![f64::NAN; self.struck.len()];
        }
        if let Some(least) = self.least.get(k).filter(|x| !x.is_nan()) {
            return *least;
        }
        let mut bait = 0.0;
        let mut last: Option<u16> = None;
        for r in &self.reaches {
            if last == Some(r.foe) || r.near.get(k).is_none_or(|m| *m == 0) {
                continue;
            }
            last = Some(r.foe);
            let Some(f) = self.foes.get(usize::from(r.foe)) else { continue };
            bait += f.most_bait;
        }
        let least = -(super::BAIT * regard() * bait * 1.000_001 + 1e-9);
        if let Some(slot) = self.least.get_mut(k) {
            *slot = least;
        }
        least
    }

    /// The target's row of forecasts (`ThreatMap::rows`), made if new.
    fn row(&mut self, id: u32) -> usize {
        if let Some((last, row)) = self.last_row {
            if last == id {
                return row;
            }
        }
        let row = match self.rows.get(&id) {
            Some(row) => *row,
            None => {
                let row = self.table.len();
                self.table.resize(row + self.slots, 0);
                self.rows.insert(id, row);
                row
            }
        };
        self.last_row = Some((id, row));
        row
    }

    /// A bound below [`ThreatMap::danger`] at `t` for `target` (with any HP; for any `elsewhere`,
    /// `gone`, `room` and `lead`), tighter than [`ThreatMap::least_danger`]: the enemies' own
    /// losses read from the forecasts. The danger is the margins (each at least 0, weighed by a
    /// tempo at least 0) and the worst later blow (at least 0) less `BAIT` times the bait; the
    /// bait sums, over the blows from this move (at most one an enemy), the tempo times minus
    /// the blow's value where that value is at most 0. The value is `standing * loss - regard *
    /// own`, `loss` at least 0 (a target worth at least 0: else no bound), so minus it is at
    /// most `regard * own` and the bait at most the sum over the enemies striking `t` from this
    /// move of the tempo times the most of 0 and `regard * own` over the blows [`ThreatMap::blows`]
    /// may pick for it (each weapon reaching `t` from this move, at the distances it reads).
    /// `own` is the forecast's alone, whatever the target's HP. A little over, for rounding.
    pub fn least_danger_for(&mut self, engine: &Engine, cache: &mut Forecasts, t: Tile, target: &Target) -> f64 {
        let Some(k) = self.index(t).filter(|k| self.struck.get(*k).is_some_and(|s| *s)) else { return 0.0 };
        if target.worth < 0.0 || target.worth.is_nan() {
            return f64::NEG_INFINITY;
        }
        let row = self.row(target.id);
        let ThreatMap { reaches, foes, table, known, by_distance, .. } = self;
        let (mut bait, mut most, mut last): (f64, f64, Option<u16>) = (0.0, 0.0, None);
        // An enemy's part: its tempo times the most of its blows.
        let part =
            |foe: Option<u16>, most: f64| foes.get(foe.map_or(usize::MAX, usize::from)).map_or(0.0, |f| f.tempo.abs() * most);
        for r in reaches.iter() {
            let m = r.near.get(k).copied().unwrap_or(0);
            if m == 0 {
                continue;
            }
            if last != Some(r.foe) {
                bait += part(last, most);
                (most, last) = (0.0, Some(r.foe));
            }
            for distance in distances(m, *by_distance) {
                let Some(at) = look((table, known), (engine, cache), (r, foes), (row, distance), target) else { continue };
                if let Some(x) = known.get(at) {
                    most = most.max(regard() * x.own_loss);
                }
            }
        }
        bait += part(last, most);
        -(super::BAIT * bait * 1.000_001 + 1e-9)
    }

    /// Each enemy's best strike at our unit standing on `t` (by the foe's index): those from this
    /// move best first (equal values in the enemies' order), then those after a second move in
    /// the enemies' order (read only for the worst of them, [`ThreatMap::danger`]).
    pub fn blows(&mut self, engine: &Engine, cache: &mut Forecasts, t: Tile, target: &Target) -> Vec<(usize, Blow)> {
        let Some(k) = self.index(t) else { return Vec::new() };
        let mut out = std::mem::take(&mut self.spare);
        out.clear();
        let mut out_far = std::mem::take(&mut self.spare_far);
        out_far.clear();
        let row = self.row(target.id);
        // A tile's strikes come enemy by enemy (`ThreatMap::new`), so each enemy's best (from
        // this move, and after a second) is complete when the next enemy's strikes begin.
        let mut foe_at: Option<u16> = None;
        // The best so far, from this move and after a second: its value, our damage and rout
        // chance, the enemy's own loss, the distance and the slot of its forecast.
        let mut best: [Option<Best>; 2] = [None, None];
        // A tile's strikes: enemy by enemy, weapon by weapon; from as far as it reaches: where a
        // counter reaches least (one forecast per weapon and tile, where a bow could shoot from
        // six distances). Where the rules read the distance (a penalty for range), from each
        // distance it reaches, farthest first: the best is kept, the farthest of equals.
        let ThreatMap { reaches, foes, table, known, by_distance, .. } = self;
        for r in reaches.iter() {
            let near = r.near.get(k).copied().unwrap_or(0);
            // A tile struck from this move is not struck again from the next.
            let (m, far) = match near {
                0 => (r.far.as_ref().and_then(|f| f.get(k)).copied().unwrap_or(0), true),
                m => (m, false),
            };
            if m == 0 {
                continue;
            }
            for distance in distances(m, *by_distance) {
                let Some(at) = look((table, known), (engine, cache), (r, foes), (row, distance), target) else { continue };
                if foe_at != Some(r.foe) {
                    flush(foe_at, &mut best, &mut out, &mut out_far);
                    foe_at = Some(r.foe);
                }
                let Some(known) = known.get_mut(at) else { continue };
                let [older, last] = &mut known.read;
                if !last.of(target) {
                    let read = if older.of(target) { *older } else { Read::new(&known.sketch, known.own_loss, target) };
                    (*older, *last) = (*last, read);
                }
                let (own_loss, Read { value, damage, routed, .. }) = (known.own_loss, *last);
                let Some(slot) = best.get_mut(usize::from(far)) else { continue };
                if slot.as_ref().is_none_or(|b| value > b.0 + 1e-12) {
                    *slot = Some((value, damage, routed, own_loss, distance, at));
                }
            }
        }
        flush(foe_at, &mut best, &mut out, &mut out_far);
        // Best first; equal values keep the enemies' order.
        out.sort_by(|a, b| b.1.value.total_cmp(&a.1.value));
        out.append(&mut out_far);
        self.spare_far = out_far;
        out
    }

    /// The chance our unit on `t` still stands once every enemy in sight that can reach it
    /// strikes it (worst first, HP worn down blow by blow, as long as there is room to strike
    /// from next to it): what a unit holding a tile the enemy must take counts on — the enemy
    /// clears the tile before it picks its best blow elsewhere.
    pub fn standing(&self, blows: &[(usize, Blow)], target: &Target, room: usize) -> f64 {
        let (mut standing, mut worn, mut room) = (1.0f64, 0.0f64, room);
        for (foe, blow) in blows.iter().filter(|(_, b)| !b.far) {
            let Some(f) = self.foes.get(*foe) else { continue };
            if blow.adjacent && room == 0 {
                continue;
            }
            if blow.adjacent {
                room -= 1;
            }
            let hp = target.hp - worn.round() as i64;
            let (routed, damage) = if hp < target.hp { self.against(blow, hp.max(1)) } else { (blow.routed, blow.damage) };
            standing *= 1.0 - f.tempo * routed;
            worn += f.tempo * damage;
        }
        standing
    }

    /// What our unit on `t` adds to the enemies' replies: each enemy in sight that would rather
    /// strike it there than its best target among our other units (`elsewhere[foe]`, where they
    /// stand) counts the difference — the enemy strikes once, so a unit drawing a blow another
    /// would have taken only moves it. Worst first, HP worn down blow by blow, and only while there
    /// is room to strike from (a tile next to `t` that is free or holds an enemy, for a blow from
    /// next to it). An enemy `gone` (routed in this activation) strikes nobody.
    ///
    /// Blows after a second move (an enemy that moves this round and strikes first next round)
    /// count the worst one only, weighed by `lead`, the chance the enemy leads the next round.
    /// `blows`: the blows at the tile ([`ThreatMap::blows`]), which a caller weighing one tile
    /// with and without an enemy `gone` finds once.
    pub fn danger(
        &mut self,
        blows: &[(usize, Blow)],
        target: &Target,
        room: usize,
        elsewhere: &[f64],
        gone: Option<usize>,
        lead: f64,
    ) -> f64 {
        // The worst blow after a second move (the most: read in any order).
        let mut later: f64 = 0.0;
        for (foe, blow) in blows.iter().filter(|(_, b)| b.far) {
            if Some(*foe) != gone {
                later = later.max(blow.value - elsewhere.get(*foe).copied().unwrap_or(0.0).max(0.0));
            }
        }
        // By blow: whether it is one from this move not struck yet (an enemy `gone` strikes none), and
        // the blows landed when it was read, with its value, rout chance and damage then (the same
        // while no other lands).
        let mut left = std::mem::take(&mut self.left);
        left.clear();
        left.extend(blows.iter().map(|(f, b)| (!b.far && Some(*f) != gone, (usize::MAX, 0.0, 0.0, 0.0))));
        let mut room = room;
        // The chance our unit still stands, and its HP, as the blows land; how many have landed.
        let (mut standing, mut worn) = (1.0f64, 0.0f64);
        let mut hp = target.hp;
        let mut total = 0.0;
        let mut bait = 0.0;
        let mut landed = 0usize;
        // Worst first; a second pass for the enemies a wounded unit now tempts. An enemy that
        // strikes leaves the list (those left are visited in order, once a pass).
        for pass in 0..2 {
            for ((foe, blow), (left, read)) in blows.iter().zip(left.iter_mut()) {
                if !*left {
                    continue;
                }
                let Some(f) = self.foes.get(*foe) else { continue };
                // This enemy strikes what the earlier ones left standing: read again only once
                // another blow landed since (else it reads as it did).
                if pass == 0 || read.0 != landed {
                    let (routed, damage) =
                        if hp < target.hp { self.against(blow, hp.max(1)) } else { (blow.routed, blow.damage) };
                    let value = worth_to_enemy((target.worth, target.max_hp), (damage, routed), standing, blow.own_loss);
                    *read = (landed, value, routed, damage);
                }
                let (_, value, routed, damage) = *read;
                if value <= 0.0 {
                    // A blow that costs the enemy more than us: a careless enemy may still strike.
                    if pass == 1 {
                        bait -= f.tempo * value;
                    }
                    continue;
                }
                let margin = value - elsewhere.get(*foe).copied().unwrap_or(0.0).max(0.0);
                if margin <= 0.0 || (blow.adjacent && room == 0) {
                    continue;
                }
                if blow.adjacent {
                    room -= 1;
                }
                total += f.tempo * margin;
                standing *= 1.0 - f.tempo * routed;
                worn += f.tempo * damage;
                hp = target.hp - worn.round() as i64;
                *left = false;
                landed += 1;
            }
        }
        self.left = left;
        total + super::LATER * lead * later.max(0.0) - super::BAIT * bait
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests;
