//! The battle as a side has seen it: the copies the planner plays ahead on under fog of war,
//! and the one the tactician weighs its enemies' threats on (`Tactician::as_known`).
//!
//! A copy holds the side's own units, the enemies it spots now (in sight and not hidden,
//! [`crate::battle::Sight::spots`]) where they stand, and the enemies it remembers where it last
//! saw them (the tactician's memory, `Tactician::remember`: an enemy that stepped out of sight
//! is sampled where it was seen, so it blocks and strikes in a playout as it could in the
//! battle), when that tile is free in the copy. Any other enemy is sampled ([`Fog`]): each
//! copy sets it, by the copy's own dice, on one of the tiles it could stand on for all the side
//! knows (the first free one after a tile drawn, [`draw_free`]; out of sight now, one its
//! movement may enter): within its walk of the tile it was last
//! seen on in the rounds since, where it was seen (it is lost once that tile is seen without
//! it, or another holds that tile), else of the enemy's deployment zone in the moves it has
//! had. Measured: taken off the copy instead, the
//! Woodcutter's Night watch searched a battle of four against the one raider in sight, stepped
//! out to let the others strike it, and the raiders behind in the dark routed it.
//!
//! An enemy out of sight bears in a copy what it was last seen with: hit points, statuses (less
//! those worn off since), weapon in hand, what it carries and the uses spent of each, courage,
//! the way it faces, a shifter's form, debuffs (worn off once it has had an activation since)
//! and resources (set again by the refills since: a round's start, its activation); or, never
//! seen, what it deploys with: full hit points, no status, what it carried, held and faced as
//! the battle began, none spent, steady, normal, its resources refilled likewise. What the side
//! knows, not what it bears. One seen this round after its activation has had it in every copy.
//! A body of a mixed unit out of sight (seed 003: one class fighting in another's unit) bears
//! likewise what it was seen with, with that unit, or what it deployed with.
//!
//! Only where no such tile is free is an enemy taken off the board in the copy (as a unit that
//! joined another, `State::Joined`, with no unit to fight in: it neither stands, acts, is seen
//! nor counts as routed) and set on one tile, so that nothing in the copy reads where it stood.
//! Since a condition such as `rout all` would then hold early in a copy, the leaf does not trust
//! a win for the side that searches where enemies were taken off ([`Seen::trusts`]).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::Arc;

use oc_model as m;

use crate::ai::sighting::Sighting;
use crate::battle::{neighbours, tile_index, Battle, Sight, State, TerrainSeen, Tile};
use crate::Atom;

/// What `side` knows of the enemies out of its sight, worked out once per decision: where each
/// was last seen (the tactician's memory, by battle index), and for each never seen the tiles
/// it could stand on.
pub(in crate::ai) struct Fog {
    /// What `side` sees now.
    sight: Sight,
    /// Each enemy out of sight not set where last seen (battle index), with the tiles a copy may
    /// set it on (by their place in `sets`: enemies of one movement and one walk share them).
    unseen: Vec<(usize, usize)>,
    sets: Vec<Vec<Tile>>,
    /// What every copy holds before its dice place anyone: the enemies out of sight set where
    /// last seen (battle index, tile), the tiles held then (by the side's units, the enemies in
    /// sight and those set), and the enemies left to place (in the battle's order). Each copy is
    /// `b` forked, so this is worked out once, not per copy.
    placed: Vec<(usize, Tile)>,
    held: Vec<Tile>,
    off: Vec<usize>,
    /// Each enemy out of sight as the side knows it ([`Known`]).
    known: Vec<Known>,
    /// The enemies out of sight whose activation a copy draws ([`Fog::draw_activated`]), and
    /// how many of them have had it this round: the side counts the enemy's turns, not which
    /// unit took one out of its sight. None where the units act in an order by a resource: that
    /// order is known, and so who has acted. `acted`: those the side saw this round once they
    /// had had it (known to have), counted in `activated` too.
    drawn: Vec<usize>,
    acted: Vec<usize>,
    activated: usize,
}

/// An enemy out of sight (battle index) as the side knows it. As last seen: its hit points, its
/// statuses (less those worn off since, [`Sighting::statuses_now`]), its weapon in hand, what it
/// carries with the uses spent of each, its courage and the way it faces; never seen, as it
/// deployed: full hit points, no status, what it carried, held and faced as the battle began
/// (`Battle::deployed`), none spent, steady. Its debuffs as last seen, worn off once it has had an
/// activation since, and its resources as last seen or deployed, set again by the refills since
/// ([`Battle::resources_as_known`]); but not where its activation is under way: the steps it pays
/// for now are its own.
struct Known {
    unit: usize,
    /// As last seen (`None`: never).
    seen: Option<Sighting>,
    /// Never seen: what it carried, held and faced as it deployed ([`Battle::deployed`]; where
    /// that is not known, as it is now).
    deployed: (Vec<crate::Atom>, Option<crate::Atom>, Option<Tile>),
    /// Its statuses as the side may take them now ([`Sighting::statuses_now`]).
    statuses: Vec<crate::battle::Affliction>,
    under_way: bool,
}

impl Fog {
    /// `side`'s view of `b` with `memory`: each enemy out of sight set where it was last seen,
    /// where that tile is free and it is not lost ([`Sighting::lost`]); each other one with the
    /// tiles out of sight that its movement may enter within what it could have walked by now,
    /// at the most: `points` a round from the tile it was last seen on, for the rounds since
    /// (that one included), or, never seen (or with no such tile), `points * round` from its
    /// side's deployment zone (those walks kept in `walks`).
    pub fn new(b: &Battle, side: m::SideId, memory: &[Option<Sighting>], walks: &mut Walks) -> Fog {
        let sight = b.sight(side);
        let (mut unseen, mut sets) = (Vec::new(), Vec::new());
        let (mut placed, mut held, mut off, mut known) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut drawn, mut acted, mut activated) = (Vec::new(), Vec::new(), 0);
        // An activation under way (an enemy's declared attack or held move, or its steps) is
        // its own: not drawn.
        let by_order = matches!(b.engine.rules.ruleset.turn.order, m::Order::By { .. });
        let under_way = |k: usize| {
            b.state.pending.iter().any(|d| d.by == k || d.target == k) || b.state.active.as_ref().is_some_and(|a| a.unit == k)
        };
        if sight.fogged() {
            held = b
                .units
                .iter()
                .enumerate()
                .filter(|(k, u)| u.state == State::Ready && (u.side == side || sight.spots(*k, u.pos)))
                .map(|(_, u)| u.pos)
                .collect();
            let zone = crate::battle::zone_tiles(&b.scenario, &b.map, side.other()).to_vec();
            walks.check(b);
            // The tile sets made, by movement, the tile walked from (none: the zone) and
            // allowance.
            let mut made: Vec<(Atom, Option<Tile>, i64, usize)> = Vec::new();
            // An enemy as the side knows it ([`Known`]).
            let knowing = |k: usize, u: &crate::battle::Combatant, under_way: bool| {
                let seen = memory.get(k).and_then(Option::as_ref);
                let statuses = seen.map_or_else(Vec::new, |s| s.statuses_now(b.round));
                let deployed = match seen {
                    Some(_) => Default::default(),
                    None => {
                        let d = b.deployed(k).unwrap_or(u);
                        (d.items.clone(), d.equipped, d.facing)
                    }
                };
                Known { unit: k, seen: seen.cloned(), deployed, statuses, under_way }
            };
            for (k, u) in b.units.iter().enumerate() {
                // A body of a mixed unit out of sight (seed 003: the unit it fights in out of
                // sight) as the side knows it too; it is set where that unit is set.
                let host = u.host().filter(|_| u.side != side);
                if let Some(h) =
                    host.filter(|h| b.units.get(*h).is_some_and(|f| f.state == State::Ready && !sight.spots(*h, f.pos)))
                {
                    known.push(knowing(k, u, under_way(h)));
                    continue;
                }
                if u.side == side || u.state != State::Ready || sight.spots(k, u.pos) {
                    continue;
                }
                let seen = memory.get(k).and_then(Option::as_ref);
                let under_way = under_way(k);
                known.push(knowing(k, u, under_way));
                if !by_order && !under_way {
                    // Seen this round once it had had its activation: known to have had it.
                    if seen.is_some_and(|s| s.round == b.round && s.acted) {
                        acted.push(k);
                    } else {
                        drawn.push(k);
                    }
                    activated += usize::from(u.activated);
                }
                if let Some(s) = seen.filter(|s| !s.lost && !held.contains(&s.tile)) {
                    placed.push((k, s.tile));
                    held.push(s.tile);
                    continue;
                }
                off.push(k);
                // Its movement as the side knows it: with the statuses and the kit it knows of.
                let Ok((points, kind, _)) = b.mobility_as_seen(k, seen) else { continue };
                let points = points.max(0);
                let mut made = Made { made: &mut made, sets: &mut sets, walks: &mut *walks, zone: &zone };
                // Seen: from that tile, for the rounds since (it may have moved in that one
                // after it was seen).
                let near = seen.map(|s| {
                    let rounds = b.round.saturating_sub(s.round).saturating_add(1);
                    made.set(b, &sight, &kind, Some(s.tile), points.saturating_mul(i64::from(rounds)))
                });
                // Where none of those tiles is out of sight (it walked further than its
                // movement reads, or stands hidden), as if never seen.
                let at = match near.filter(|at| made.sets.get(*at).is_some_and(|t| !t.is_empty())) {
                    Some(at) => at,
                    None => made.set(b, &sight, &kind, None, points.saturating_mul(i64::from(b.round.max(1)))),
                };
                unseen.push((k, at));
            }
        }
        Fog { sight, unseen, sets, placed, held, off, known, drawn, acted, activated }
    }
}

/// The tile sets `Fog::new` made (by movement, the tile walked from, none for the enemy's
/// deployment zone, and allowance, with their place in `sets`).
struct Made<'a> {
    made: &'a mut Vec<(Atom, Option<Tile>, i64, usize)>,
    sets: &'a mut Vec<Vec<Tile>>,
    walks: &'a mut Walks,
    zone: &'a [Tile],
}

impl Made<'_> {
    /// The place in `sets` of the tiles out of `sight` that movement `kind` reaches within
    /// `allowance` from `from` (none: the zone), made where not made yet.
    fn set(&mut self, b: &Battle, sight: &Sight, kind: &Atom, from: Option<Tile>, allowance: i64) -> usize {
        if let Some((.., at)) = self.made.iter().find(|(w, f, a, _)| w == kind && *f == from && *a == allowance) {
            return *at;
        }
        let cost = match from {
            Some(t) => self.walks.from(b, kind, &[t]),
            None => self.walks.from(b, kind, self.zone),
        };
        let width = b.map.width.max(1);
        let tiles: Vec<Tile> = cost
            .iter()
            .enumerate()
            .filter(|(_, c)| **c <= allowance)
            .map(|(i, _)| (i as i64 % width, i as i64 / width))
            .filter(|t| !sight.sees(*t))
            .collect();
        self.made.push((*kind, from, allowance, self.sets.len()));
        self.sets.push(tiles);
        self.sets.len() - 1
    }
}

/// The most walks [`Walks`] keeps.
const WALKS_KEPT: usize = 64;

/// [`walk`]s kept from one decision to the next, by movement type and the tiles walked from,
/// while the terrain stands (all else they read is the battle's engine and map size): an
/// enemy's deployment zone stays put all battle.
#[derive(Debug, Default)]
pub(in crate::ai) struct Walks {
    terrain: TerrainSeen,
    kept: Vec<(String, Vec<Tile>, Arc<[i64]>)>,
}

impl Walks {
    /// Forgets the walks where `b`'s terrain is not the one they were walked on.
    pub(in crate::ai) fn check(&mut self, b: &Battle) {
        if self.terrain.renew(b) {
            self.kept.clear();
        }
    }

    /// [`walk`] for `kind` from `from`: the one kept, else walked and kept.
    pub(in crate::ai) fn from(&mut self, b: &Battle, kind: &str, from: &[Tile]) -> Arc<[i64]> {
        if let Some((_, _, costs)) = self.kept.iter().find(|(k, f, _)| k == kind && f == from) {
            return costs.clone();
        }
        let costs: Arc<[i64]> = walk(b, kind, from).into();
        // Walks from where enemies were last seen come and go: the oldest makes room past
        // `WALKS_KEPT` (what a walk is does not depend on which are kept).
        if self.kept.len() >= WALKS_KEPT {
            self.kept.remove(0);
        }
        self.kept.push((kind.to_string(), from.to_vec(), costs.clone()));
        costs
    }
}

/// The walking cost for movement type `kind` from the nearest of `from` to every tile (row by
/// row; `i64::MAX` where it cannot get), other units not counted.
fn walk(b: &Battle, kind: &str, from: &[Tile]) -> Vec<i64> {
    let size = (b.map.width.max(0), b.map.height.max(0));
    let costs = b.tile_costs(kind);
    let mut best = vec![i64::MAX; costs.len()];
    let mut queue = BinaryHeap::new();
    for t in from {
        if let Some(i) = tile_index(*t, size).filter(|i| costs.get(*i).copied().flatten().is_some()) {
            if let Some(slot) = best.get_mut(i) {
                *slot = 0;
                queue.push(Reverse((0, *t)));
            }
        }
    }
    while let Some(Reverse((c, t))) = queue.pop() {
        if tile_index(t, size).and_then(|i| best.get(i)).is_some_and(|b| c > *b) {
            continue;
        }
        for n in neighbours(t) {
            let Some(i) = tile_index(n, size) else { continue };
            let Some(step) = costs.get(i).copied().flatten() else { continue };
            let next = c.saturating_add(step.max(1));
            if let Some(slot) = best.get_mut(i).filter(|s| next < **s) {
                *slot = next;
                queue.push(Reverse((next, n)));
            }
        }
    }
    best
}

/// A copy of the battle as `side` sees it now, with its own dice.
pub(in crate::ai) struct Seen<'e> {
    pub copy: Battle<'e>,
    /// Whether any enemy was taken off the board.
    pub pruned: bool,
}

impl Fog {
    /// Whether each copy sets enemies never seen by its own seed (`Seen::fork`): then copies
    /// differ by more than their dice, and one that drew none is not every copy.
    pub fn places(&self) -> bool {
        self.sight.fogged() && !self.off.is_empty()
    }

    /// Which enemies out of sight have had their activation this round, in `copy` (seeded by
    /// `seed`): as many as truly have ([`Fog::activated`]: the side counts the enemy's turns, as
    /// seed 000's players do: "Each Round, players alternate activating a Unit in their
    /// control"), drawn by the copy's dice among those drawn ([`Fog::drawn`]). Each copy had
    /// kept which ones truly had: a unit that acted in the dark was known to wait, and one that
    /// had not, to come. One taken off the copy takes its draw (the others are not marked the
    /// more for it). One the side saw this round after its activation ([`Fog::acted`]) has had it
    /// in every copy, and the draw marks the rest. (A shifter's form is the one the side knows,
    /// set after: `Seen::fork`.)
    fn draw_activated(&self, copy: &mut Battle<'_>, seed: u64) {
        let mut order: Vec<(u64, usize)> =
            self.drawn.iter().map(|&k| (crate::ai::mix(seed ^ (k as u64 + 1).wrapping_mul(0x8CB9_2BA7_2F3D_8DD7)), k)).collect();
        order.sort_unstable();
        let marks = self.activated.saturating_sub(self.acted.len());
        for (n, (_, k)) in order.into_iter().enumerate() {
            let Some(u) = copy.state.units.get_mut(k).filter(|u| u.state == State::Ready) else { continue };
            u.activated = n < marks;
        }
        for &k in &self.acted {
            if let Some(u) = copy.state.units.get_mut(k).filter(|u| u.state == State::Ready) {
                u.activated = true;
            }
        }
    }
}

impl<'e> Seen<'e> {
    /// Forks `b` with dice from `seed` (into `spare`, a copy done with, where there is one):
    /// the enemies `fog`'s side does not spot set where it last saw them, where that tile is free,
    /// those never seen on a free tile of theirs drawn from `seed`, else taken off the board.
    pub fn fork(b: &Battle<'e>, fog: &Fog, seed: u64, spare: Option<Battle<'e>>) -> Seen<'e> {
        Seen::forked(b, fog, seed, spare, true)
    }

    /// [`Seen::fork`], where `never` says whether the enemies never seen are set too, or taken
    /// off the board (the battle as far as the side knows where its enemies stand or may stand,
    /// the tactician's threats, `Tactician::as_known`).
    pub fn forked(b: &Battle<'e>, fog: &Fog, seed: u64, spare: Option<Battle<'e>>, never: bool) -> Seen<'e> {
        let mut copy = match spare {
            Some(mut c) => {
                b.fork_again(&mut c, Some(seed));
                c
            }
            None => b.fork(Some(seed)),
        };
        // Nothing reads a copy's log.
        copy.hush();
        let mut pruned = false;
        if fog.sight.fogged() {
            // The enemies out of sight where last seen, as for every copy (`Fog`).
            for (k, t) in &fog.placed {
                if let Some(u) = copy.state.units.get_mut(*k) {
                    u.pos = *t;
                }
            }
            let mut held = fog.held.clone();
            for &k in &fog.off {
                let set = fog.unseen.iter().find(|(j, _)| *j == k).and_then(|(_, s)| fog.sets.get(*s));
                let tiles = set.map_or(&[][..], |t| t.as_slice());
                let draw = crate::ai::mix(seed ^ (k as u64 + 1).wrapping_mul(0xD6E8_FEB8_6659_FD93));
                let seen = || fog.known.iter().any(|n| n.unit == k && n.seen.is_some());
                let free = draw_free(tiles, &held, draw).filter(|_| never || seen());
                let Some(u) = copy.state.units.get_mut(k) else { continue };
                if let Some(t) = free {
                    u.pos = t;
                    held.push(t);
                    continue;
                }
                u.state = State::Joined;
                u.with = None;
                u.pos = (0, 0);
                u.hidden = None;
                pruned = true;
            }
            fog.draw_activated(&mut copy, seed);
            // The enemies out of sight as the side knows them ([`Known`]), and not hidden: where
            // one hid is not known (nor whether it did). Their debuffs and resources once the
            // copy says who has acted: a debuff wears off when its bearer's next activation ends.
            for n in &fog.known {
                let since = copy.since_seen(n.unit, n.seen.as_ref().map(|s| (s.round, s.acted)));
                let Some(u) = copy.state.units.get_mut(n.unit) else { continue };
                match &n.seen {
                    Some(s) => {
                        u.hp = s.hp;
                        u.equipped = s.equipped;
                        u.items.clone_from(&s.items);
                        u.spent.clone_from(&s.spent);
                        u.morale.clone_from(&s.morale);
                        u.facing = s.facing;
                    }
                    None => {
                        u.hp = u.max_hp;
                        u.items.clone_from(&n.deployed.0);
                        (u.equipped, u.facing) = (n.deployed.1, n.deployed.2);
                        u.spent.clear();
                        u.morale = crate::battle::Morale::default();
                    }
                }
                u.statuses.clone_from(&n.statuses);
                u.hidden = None;
                if n.under_way {
                    continue;
                }
                match n.seen.as_ref().filter(|_| !since.1) {
                    Some(s) => u.debuffs.clone_from(&s.debuffs),
                    None => u.debuffs.clear(),
                }
                // A shifter's form as last seen (acted that round: normal until the next), or as
                // it deployed (normal out of its turn, not acted): whether it acted in the dark,
                // and so which form it took, is not known. (Each copy held its true form.)
                (u.transformed, u.reverted) = match &n.seen {
                    Some(s) => (s.transformed, s.reverted && s.round == copy.state.round),
                    None => (false, false),
                };
                copy.resources_as_known(n.unit, n.seen.as_ref().map(|s| s.resources.as_slice()), since);
            }
        }
        Seen { copy, pruned }
    }

    /// Whether the copy's outcome may be taken as the battle's: not a win for `side` where
    /// enemies were taken off (they stand somewhere out of sight).
    pub fn trusts(&self, side: m::SideId) -> bool {
        !(self.pruned && matches!(self.copy.outcome, Some((m::Outcome::Win(s), _)) if s == side))
    }
}

/// One of `tiles` not `held`, by the number `draw`: the first free one from the tile `draw`
/// picks on, in the set's order (row by row), round to its start. Not each free tile alike: a
/// free tile after a run of held ones (the side's units, the enemies it sees and those set
/// before) is likelier, by the run's length. Measured (the default's wins, draws and losses
/// against greedy on fresh fields by night, 3,520 games a set, `tests/fresh_fields.rs`, seeds
/// 201-208 and 1-8, each with the hit points the side knows: `Fog::known`): this draw, 2,361-698-461
/// (67.1%) and 2,329-726-465 (66.2%); each free tile alike, 2,307-719-494 (65.5%) and
/// 2,309-741-470 (65.6%); the nearer the side's units of two drawn alike (tried on 201-208,
/// then read on 1-8), 2,391-661-468 (67.9%) and 2,289-768-463 (65.0%). Kept as it is.
pub(in crate::ai) fn draw_free(tiles: &[Tile], held: &[Tile], draw: u64) -> Option<Tile> {
    let n = tiles.len().max(1);
    let start = (draw % n as u64) as usize;
    (0..tiles.len()).filter_map(|d| tiles.get((start + d) % n)).find(|t| !held.contains(t)).copied()
}
