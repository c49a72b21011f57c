//! What a tactician remembers from one decision to the next under fog (where each enemy out of
//! sight was last seen, when each tile was last in sight), and its whole mind as the book of
//! openings reads it (`ai/recall.rs`).

use oc_model as m;

use super::{recall, Tactician};
use crate::ai::sighting::seen::{Fog, Seen};
use crate::ai::sighting::Sighting;
use crate::battle::{tile_index, Act, Battle, Record, State, Tile};

/// What [`Tactician::remember`] returns: where the side may look for the enemies out of sight.
#[derive(Default)]
pub(super) struct Recalled {
    /// Where the enemies out of sight and not lost were last seen.
    pub seen: Vec<Tile>,
    /// Where the enemies lost may stand ([`Sighting::lost`]): the open tiles out of sight each
    /// could have walked to since, not in sight since it vanished where there are such.
    pub lost: Vec<Tile>,
    /// The open tiles out of sight seen longest ago (or never), with that round plus one (0:
    /// never).
    pub unswept: Option<(u32, Vec<Tile>)>,
}

impl Tactician {
    /// What it carries into a decision in `b` that its turn reads ([`recall::Mind`]): the
    /// units' prices and what the side to act sees now noted, as the decision notes them first
    /// (noting again notes nothing new), with `kind` and `decisions` (the planner's count).
    pub(in crate::ai) fn mind(&mut self, b: &Battle<'_>, kind: u8, decisions: u64) -> recall::Mind {
        let side = b.to_act;
        self.prices(b);
        let sight = b.sight(side);
        let _ = self.remember(b, side, &sight);
        recall::Mind {
            kind,
            prices: self.prices.clone(),
            last_seen: self.last_seen.clone(),
            swept: self.swept.clone(),
            decisions,
        }
    }

    /// Under fog: notes where `side` sees each enemy now, and returns where the enemies it does
    /// not see were last seen. What the side saw of an enemy since its last decision is taken
    /// from the battle ([`Battle::glimpse`]: as it stood after the last turn it was in sight, so
    /// a status, debuff or rout our own attack laid, watched, is known though it stepped out of
    /// sight before this decision). An enemy routed is forgotten; one not on the tile it was last
    /// seen on when that tile is in sight is lost ([`Sighting::lost`]): the tiles it may have
    /// walked to since are returned for it instead. Notes too the round each tile in sight was
    /// seen, and returns the open tiles out of sight that were seen longest ago (or never), with
    /// that round plus one (0: never): where to sweep for an enemy neither seen nor remembered.
    /// Nothing without fog.
    pub(super) fn remember(&mut self, b: &Battle<'_>, side: m::SideId, sight: &crate::battle::Sight) -> Recalled {
        let s = usize::from(side == m::SideId::Defender);
        let (Some(seen), Some(swept), Some(read)) = (self.last_seen.get_mut(s), self.swept.get_mut(s), self.read.get_mut(s))
        else {
            return Recalled::default();
        };
        if !sight.fogged() {
            return Recalled::default();
        }
        // A log shorter than what was read is another battle's: read from its start.
        let from = if *read > b.log.len() { 0 } else { *read };
        seen.resize(b.units.len(), None);
        // What the battle kept of each enemy, where the side saw it since it last noted it:
        // bearing something new (the battle's glimpse made later than the side's own), or as
        // before but in a later round. Seen again, it is not lost.
        for (k, slot) in seen.iter_mut().enumerate() {
            let Some(g) = b.glimpse(side, k) else { continue };
            match slot {
                Some(s) if g.at <= s.at => {
                    if g.round > s.round {
                        (s.round, s.lost) = (g.round, false);
                    }
                }
                _ => *slot = Some(g.clone()),
            }
        }
        // What the side's own fights since showed of the enemies in them: the hit points each was
        // left with (a wounded enemy that stepped out of sight after, or was never in sight, is
        // remembered wounded, not as it was before the blow), where the fight came after what
        // the side last saw of it.
        let ours = |k: Option<usize>| k.and_then(|k| b.units.get(k)).is_some_and(|u| u.side == side);
        for (at, r) in b.log.iter().enumerate().skip(from) {
            let (unit, target, hp) = match r {
                Record::Turn { turn, hp, .. } => {
                    let target = match turn.act {
                        Act::Attack { target } => Some(target),
                        _ => None,
                    };
                    (Some(turn.unit), target, hp)
                }
                Record::Resolved { unit, target, hp, .. } => (Some(*unit), Some(*target), hp),
                _ => continue,
            };
            if !(ours(unit) || ours(target)) {
                continue;
            }
            for (k, h) in hp {
                if let Some(sighting) = seen.get_mut(*k).and_then(Option::as_mut).filter(|s| at >= s.at) {
                    sighting.hp = *h;
                }
            }
        }
        *read = b.log.len();
        let (width, height) = (b.map.width.max(0), b.map.height.max(0));
        swept.resize((width * height) as usize, 0);
        let mut oldest: Option<u32> = None;
        let mut unswept = Vec::new();
        for (k, slot) in swept.iter_mut().enumerate() {
            let t = (k as i64 % width.max(1), k as i64 / width.max(1));
            if sight.sees(t) {
                *slot = b.round + 1;
            } else if b.open(t) {
                if oldest.is_none_or(|o| *slot < o) {
                    oldest = Some(*slot);
                    unswept.clear();
                }
                if oldest == Some(*slot) {
                    unswept.push(t);
                }
            }
        }
        let mut out = Vec::new();
        let at = b.log.len();
        // The enemy a body of a mixed unit fights in, where it stands (seed 003).
        let host = |u: &crate::battle::Combatant| u.host().filter(|h| b.units.get(*h).is_some_and(|f| f.state == State::Ready));
        for ((k, u), slot) in b.units.iter().enumerate().zip(seen.iter_mut()) {
            if let Some(h) = host(u).filter(|_| u.side != side) {
                // Seen with the unit it fights in; else as last seen so (it stands nowhere of
                // its own: no tile to aim at).
                if b.units.get(h).is_some_and(|f| sight.spots(h, f.pos)) {
                    *slot = Some(Sighting::of(u, b.round, at));
                }
            } else if u.side == side || u.state != State::Ready {
                *slot = None;
            } else if sight.spots(k, u.pos) {
                *slot = Some(Sighting::of(u, b.round, at));
            } else if let Some(s) = slot.as_mut().filter(|s| !s.lost) {
                if sight.sees(s.tile) {
                    s.lost = true;
                } else {
                    out.push(s.tile);
                }
            }
        }
        // A body is lost with the unit it fights in (where that one is, it is).
        for (k, u) in b.units.iter().enumerate() {
            let Some(h) = host(u).filter(|_| u.side != side) else { continue };
            let lost = seen.get(h).and_then(Option::as_ref).is_none_or(|s| s.lost);
            if let Some(Some(s)) = seen.get_mut(k) {
                s.lost = lost;
            }
        }
        // Where each enemy lost may stand: the open tiles out of sight it could have walked to
        // since it was last seen (its movement as last seen, a round's worth for each round
        // since, that one included, over the terrain as it walks: the tiles the planner's copies
        // set it on, `sighting/seen.rs`), those not in sight after the round it was last seen
        // where there are such: an enemy that slipped out of sight is looked for near where it
        // vanished, not in the corner of the field seen longest ago.
        let mut near = Vec::new();
        self.fog_walks.check(b);
        for (k, (u, slot)) in b.units.iter().zip(seen.iter()).enumerate() {
            let Some(s) = slot.as_ref().filter(|s| s.lost && u.side != side && host(u).is_none()) else { continue };
            let Ok((points, kind, _)) = b.mobility_as_seen(k, Some(s)) else { continue };
            let reach = points.max(0).saturating_mul(i64::from(b.round.saturating_sub(s.round).saturating_add(1)));
            let cost = self.fog_walks.from(b, &kind, &[s.tile]);
            let walked = |t: Tile| tile_index(t, (width, height)).and_then(|i| cost.get(i)).is_some_and(|c| *c <= reach);
            let may = |t: Tile| !sight.sees(t) && b.open(t) && walked(t);
            let tiles = || (0..width * height).map(|i| (i % width.max(1), i / width.max(1))).filter(|t| may(*t));
            let unswept_since = |t: &Tile| {
                tile_index(*t, (width, height)).and_then(|i| swept.get(i)).is_some_and(|r| *r <= s.round.saturating_add(1))
            };
            let len = near.len();
            near.extend(tiles().filter(unswept_since));
            if near.len() == len {
                near.extend(tiles());
            }
        }
        Recalled { seen: out, lost: near, unswept: oldest.map(|o| (o, unswept)) }
    }

    /// Under fog: a copy of `b` as `side` knows it, whose enemies' threats a decision weighs
    /// (`Decision::new`): the enemies in sight where they stand, those out of it where they were
    /// last seen (not lost), and each one lost on a tile out of sight it could have walked to
    /// since (drawn by the round: the decisions of a round weigh the same), as the planner's
    /// copies set them (`sighting/seen.rs`), each as the side knows it; those never seen are
    /// left out. Weighing only the enemies in sight, it walked up to where a foe stepped out of
    /// sight and into its reach. The enemies never seen set too, its units held back from the
    /// dark short of their watch line, and two such sides met late or never: measured and not
    /// kept (`tests/fixtures/mirror/fields/README.md`).
    pub(super) fn as_known<'e>(&mut self, b: &Battle<'e>, side: m::SideId) -> Battle<'e> {
        let memory = self.last_seen.get(usize::from(side == m::SideId::Defender)).map_or(&[][..], Vec::as_slice);
        let fog = Fog::new(b, side, memory, &mut self.fog_walks);
        Seen::forked(b, &fog, u64::from(b.round), None, false).copy
    }

    /// Under fog: where `side` last saw each enemy out of sight, by battle index, as of its last
    /// decision (`Tactician::remember`); empty without fog.
    pub(crate) fn memory(&self, side: m::SideId) -> &[Option<Sighting>] {
        self.last_seen.get(usize::from(side == m::SideId::Defender)).map_or(&[], Vec::as_slice)
    }
}

/// Under fog, where `side` knows each unit of `b` to stand, by battle index: its own where they
/// stand, the enemies it spots (`sight`) where they stand, those it remembers and has not lost
/// (`memory`, [`Tactician::memory`]) where it last saw them; `None` for every other (routed,
/// never seen, lost). `None` without fog: every unit is known where it stands.
pub(in crate::ai) fn known(
    b: &Battle<'_>,
    side: m::SideId,
    sight: &crate::battle::Sight,
    memory: &[Option<Sighting>],
) -> Option<Vec<Option<Tile>>> {
    if !sight.fogged() {
        return None;
    }
    let at = |(k, u): (usize, &crate::battle::Combatant)| {
        if u.state != State::Ready {
            None
        } else if u.side == side || sight.spots(k, u.pos) {
            Some(u.pos)
        } else {
            memory.get(k).and_then(Option::as_ref).filter(|s| !s.lost).map(|s| s.tile)
        }
    };
    Some(b.units.iter().enumerate().map(at).collect())
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use crate::ai::tactician::Tactician;
    use crate::battle::{Act, Battle, Turn};
    use oc_model as m;

    /// A fog duel's battle (`testing::fog_duel`) with dice from `seed`, ours at (5, 1) to act and
    /// the foe in sight at (7, 1), and our side's tactician having noted what it sees.
    fn face_to_face<'e>(engine: &'e crate::Engine, map: &oc_model::BattleMap, seed: u64) -> (Battle<'e>, Tactician) {
        let side = m::SideId::Attacker;
        let mut b = Battle::duel(engine, map, seed);
        b.state.units[0].pos = (5, 1);
        b.state.units[1].pos = (7, 1);
        b.state.to_act = side;
        let mut t = Tactician::default();
        let _ = t.remember(&b, side, &b.sight(side));
        (b, t)
    }

    /// Under fog, the brave's side sees the foe, strikes it, and the foe steps out of sight: the
    /// side remembers it with the hit points the blow left it, which its own fight showed (it
    /// was remembered as it was at the decision before the blow).
    #[test]
    fn an_enemy_hurt_in_our_fight_is_remembered_hurt() {
        let (engine, map) = crate::testing::fog_duel(BRAVE_AND_FOE);
        let side = m::SideId::Attacker;
        let mut checked = 0;
        for seed in 1..40 {
            let (mut b, mut t) = face_to_face(&engine, &map, seed);
            let before = b.units[1].hp;
            assert_eq!(t.memory(side)[1].as_ref().map(|s| s.hp), Some(before));
            let strike = Turn { unit: 0, to: Some((6, 1)), act: Act::Attack { target: 1 }, ..Default::default() };
            if b.turn(strike).is_err() || b.units[1].hp == before || b.units[1].hp <= 0 {
                continue;
            }
            let after = b.units[1].hp;
            // Out of sight, out of the log: it walked off.
            b.state.units[1].pos = (17, 5);
            let _ = t.remember(&b, side, &b.sight(side));
            assert_eq!(t.memory(side)[1].as_ref().map(|s| s.hp), Some(after), "seed {seed}: {before} -> {after}");
            checked += 1;
        }
        assert!(checked > 0, "no blow landed");
    }

    /// Under fog, a body of a mixed unit (seed 003: Fenth fighting in the spearmen) is seen with
    /// the unit it fights in, and remembered as it was then once that unit is out of sight:
    /// wounded or disarmed in the dark, it is not known to be; lost with its unit. (Only units
    /// standing were remembered, and the copies gave a body what it truly bore.)
    #[test]
    fn a_body_is_remembered_as_seen_with_its_unit() {
        let (engine, map) = crate::ai::sighting::tests::mixed_fog_duel();
        let mut b = Battle::duel(&engine, &map, 1);
        let fenth = b.units.iter().position(|u| u.name == "Fenth").expect("Fenth");
        // The spearmen come into sight.
        b.state.units[1].pos = (3, 1);
        b.state.units[fenth].pos = (3, 1);
        let side = m::SideId::Attacker;
        let mut t = Tactician::default();
        let _ = t.remember(&b, side, &b.sight(side));
        let hp = b.units[fenth].hp;
        assert_eq!(
            t.memory(side)[fenth].as_ref().map(|s| (s.hp, s.equipped.is_some())),
            Some((hp, true)),
            "seen with the spearmen"
        );
        // The spearmen walk off; in the dark Fenth is wounded and gives up his blade.
        b.state.units[1].pos = (17, 5);
        b.state.units[fenth].pos = (17, 5);
        b.state.units[fenth].hp -= 2;
        b.state.units[fenth].equipped = None;
        let _ = t.remember(&b, side, &b.sight(side));
        assert_eq!(t.memory(side)[fenth].as_ref().map(|s| (s.hp, s.equipped.is_some())), Some((hp, true)), "as last seen");
        // The tile they stood on is in sight without them: both are lost (no longer aimed at).
        assert_eq!([1, fenth].map(|k| t.memory(side)[k].as_ref().map(|s| s.lost)), [Some(true); 2]);
    }

    /// Under fog, the mage's side sees the foe, strikes it with a tome that slows (seed 000's
    /// Status Effects: Fimbulvetr, `Status(Slowed)`), and the foe steps out of sight before the
    /// side's next decision: the side remembers it slowed, as the battle saw it after the blow
    /// (`Battle::glimpse`). (Noted at its decisions only, the side remembered it as it was
    /// before the blow, and the planner's copies let it walk its full move.)
    #[test]
    fn a_status_our_blow_laid_is_remembered_once_the_foe_leaves_sight() {
        let units = ["unit Mage: Mage { items Fimbulvetr }", "unit Foe: Fighter { items IronAxe }"];
        let (engine, map) = crate::testing::fog_duel(units);
        let side = m::SideId::Attacker;
        let slowed = crate::Atom::new("Slowed");
        let mut checked = 0;
        for seed in 1..40 {
            let (mut b, mut t) = face_to_face(&engine, &map, seed);
            let bears =
                |s: Option<&crate::ai::sighting::Sighting>| s.is_some_and(|s| s.statuses.iter().any(|a| a.status == slowed));
            assert!(!bears(t.memory(side)[1].as_ref()), "seed {seed}: slowed before the blow");
            let strike = Turn { unit: 0, to: None, act: Act::Attack { target: 1 }, ..Default::default() };
            if b.turn(strike).is_err() || b.units[1].hp <= 0 || !b.units[1].statuses.iter().any(|a| a.status == slowed) {
                continue;
            }
            // Out of sight, and no fight of ours in the log says so: it walked off.
            b.state.units[1].pos = (17, 5);
            let _ = t.remember(&b, side, &b.sight(side));
            assert!(bears(t.memory(side)[1].as_ref()), "seed {seed}: {:?}", t.memory(side)[1]);
            checked += 1;
        }
        assert!(checked > 0, "no blow slowed the foe");
    }

    /// Under fog, a foe seen and then out of sight, not lost, strikes where the side last saw it:
    /// a brave one blow from routing, whom the foe last seen five tiles off could reach and
    /// strike, steps back rather than toward it. (Only the foes in sight were weighed: it walked
    /// up next to where the foe was seen, to (9, 3).)
    #[test]
    fn a_foe_out_of_sight_strikes_from_where_it_was_last_seen() {
        let (engine, map) = crate::testing::fog_duel(BRAVE_AND_FOE);
        let side = m::SideId::Attacker;
        let mut b = Battle::duel(&engine, &map, 1);
        b.state.to_act = side;
        let (seen_at, foe) = ((10, 3), (10, 3));
        b.state.units[1].pos = foe;
        // Seen from two tiles off (vision 2), then out of sight from five.
        b.state.units[0].pos = (8, 3);
        let mut t = Tactician::default();
        let _ = t.remember(&b, side, &b.sight(side));
        b.state.units[0].pos = (5, 3);
        b.state.units[0].hp = 3;
        assert!(!b.sight(side).sees(seen_at), "out of sight");
        let turn = t.ranked(&b, 1).and_then(|r| r.into_iter().next()).map(|(_, turn)| turn).expect("a turn");
        // It steps back (to (4, 3): the threat map's walks are blocked by our units where they
        // stand, the brave's own tile too), not up to the foe.
        let to = turn.to.unwrap_or((5, 3));
        assert!(crate::battle::distance(to, seen_at) > 5, "{turn:?}: toward the foe");
        assert_eq!(t.memory(side)[1].as_ref().map(|s| (s.tile, s.lost)), Some((seen_at, false)), "remembered, not lost");
    }

    /// The fog tests' armies: a fighter a side.
    const BRAVE_AND_FOE: [&str; 2] = ["unit Brave: Fighter { items IronAxe }", "unit Foe: Fighter { items IronAxe }"];

    /// A duel on `map` with ours at `ours` and the foe seen at `foe[0]`, noted by the attacker's
    /// tactician; then the foe gone to `foe[1]` (its tile in sight without it: lost), noted
    /// again. The battle as it then stands, the tactician, and what that second look recalled.
    fn lost_foe<'e>(
        engine: &'e crate::Engine,
        map: &'e oc_model::BattleMap,
        ours: crate::battle::Tile,
        foe: [crate::battle::Tile; 2],
    ) -> (Battle<'e>, Tactician, super::Recalled) {
        let side = m::SideId::Attacker;
        let mut b = Battle::duel(engine, map, 1);
        b.state.units[0].pos = ours;
        b.state.units[1].pos = foe[0];
        let mut t = Tactician::default();
        let _ = t.remember(&b, side, &b.sight(side));
        b.state.units[1].pos = foe[1];
        let recalled = t.remember(&b, side, &b.sight(side));
        (b, t, recalled)
    }

    /// Under fog, a foe seen and then lost (the tile it was seen on in sight without it) is
    /// looked for where it may have walked since: the tiles out of sight within its move of
    /// where it vanished, not the far corner of the field seen longest ago (where the sweep
    /// went, and a hunter walked away from the last enemy standing).
    #[test]
    fn a_foe_lost_is_looked_for_near_where_it_vanished() {
        let (engine, map) = crate::testing::fog_duel(BRAVE_AND_FOE);
        let side = m::SideId::Attacker;
        let (b, t, recalled) = lost_foe(&engine, &map, (6, 3), [(8, 3), (12, 3)]);
        assert_eq!(t.memory(side)[1].as_ref().map(|s| s.lost), Some(true), "lost");
        assert!(recalled.seen.is_empty(), "not where it was seen");
        assert!(recalled.lost.contains(&(12, 3)), "where it went: {:?}", recalled.lost);
        assert!(recalled.lost.iter().all(|t| crate::battle::distance(*t, (8, 3)) <= 5 && !b.sight(side).sees(*t)));
        assert!(!recalled.lost.contains(&(19, 6)), "the far corner");
    }

    /// A foe lost beside a wall is looked for where it can walk, not across the wall: the
    /// tiles a step or two over it (within its move as the crow flies) are a dozen steps round
    /// its end. (Bounded by distance alone, they were looked for.)
    #[test]
    fn a_foe_lost_is_looked_for_where_it_can_walk_not_across_a_wall() {
        // A wall down column 10, open at the bottom row only.
        let rows = [
            "..........#.........",
            "..........#.........",
            "..........#.........",
            "..........#.........",
            "..........#.........",
            "..........#.........",
            "....................",
        ];
        let (engine, map) = crate::testing::duel(&rows, "", "    fog vision 2\n", BRAVE_AND_FOE);
        let side = m::SideId::Attacker;
        let (_, t, recalled) = lost_foe(&engine, &map, (11, 3), [(11, 1), (14, 1)]);
        assert_eq!(t.memory(side)[1].as_ref().map(|s| s.lost), Some(true), "lost");
        assert!(recalled.lost.contains(&(14, 1)), "where it went: {:?}", recalled.lost);
        assert!(recalled.lost.iter().all(|t| t.0 > 10), "across the wall: {:?}", recalled.lost);
    }
}
