//! What the advanced rules lay on a unit in one pass over the units ([`Battle::situation`],
//! the loadouts' way) against the same rules read apart ([`Battle::laying`] and
//! [`Battle::laid`]): over whole battles of the shipped Storm at the River, which plays
//! leadership, the situations and the weather.

use std::collections::BTreeMap;

use crate::battle::{Act, Battle, Tile, Turn};
use crate::Engine;

/// The shipped Storm at the River (`scenarios/battlestorm-narube.oc`, its own armies) and its map.
fn storm() -> (Engine, oc_model::BattleMap) {
    let scenario = include_str!("../../../../../scenarios/battlestorm-narube.oc");
    let map_text = include_str!("../../../../../scenarios/maps/narube-river.map.toml");
    crate::testing::field_named(("narube.oc", scenario), ("maps/narube-river.map.toml", map_text))
}

/// Holds the one pass to the rules read apart for units, tiles and movers drawn at random (a
/// fixed seed), counting what was laid; and plays the battle on, each unit walking toward the
/// nearest enemy and attacking one it ends next to (no AI: the battle's own rules alone).
struct Checking {
    state: u64,
    checked: usize,
    laid: BTreeMap<String, usize>,
}

impl Checking {
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        self.state >> 33
    }

    fn near(&mut self, t: Tile, r: i64) -> Tile {
        let span = (2 * r + 1) as u64;
        (t.0 + (self.next() % span) as i64 - r, t.1 + (self.next() % span) as i64 - r)
    }

    fn check(&mut self, b: &Battle<'_>) {
        let n = b.state.units.len();
        for _ in 0..60 {
            let i = self.next() as usize % n;
            let Some(u) = b.state.units.get(i) else { continue };
            let class = b.engine.class_index(&u.class);
            let at = self.near(u.pos, 2);
            let mover = match self.next() % 4 {
                0 => None,
                1 => Some((i, at)),
                // Another unit (its general, an enemy) moved next to the tile, or anywhere.
                2 => {
                    let k = self.next() as usize % n;
                    Some((k, self.near(at, 1)))
                }
                _ => {
                    let k = self.next() as usize % n;
                    Some((k, self.near(at, 8)))
                }
            };
            let (mut one, mut apart) = (Vec::new(), Vec::new());
            let placed = b.situation(i, at, (mover, None), &mut one, class);
            let placed_apart = b.situation_apart(i, at, mover, &mut apart, class);
            assert_eq!((&one, &placed), (&apart, &placed_apart), "unit {i} at {at:?}, mover {mover:?}, round {}", b.state.round);
            self.checked += 1;
            for s in &one {
                *self.laid.entry(s.to_string()).or_default() += 1;
            }
            for (a, _) in &placed {
                *self.laid.entry(a.to_string()).or_default() += 1;
            }
        }
    }

    /// The next turn: the first unit of the side to act still waiting walks to the reachable
    /// tile nearest an enemy (ties drawn) and attacks an enemy next to it, if one is.
    fn turn(&mut self, b: &Battle<'_>) -> Option<Turn> {
        let i = *b.waiting(b.state.to_act).first()?;
        let side = b.state.units.get(i)?.side;
        let enemies: Vec<(usize, Tile)> =
            b.state.units.iter().enumerate().filter(|(_, f)| f.side != side && f.stands()).map(|(k, f)| (k, f.pos)).collect();
        let reach = b.reachable(i).ok()?;
        let mut tiles: Vec<Tile> = reach.keys().copied().collect();
        tiles.sort_unstable();
        let nearest = |t: Tile| enemies.iter().map(|(_, p)| crate::battle::distance(t, *p)).min().unwrap_or(0);
        let best = tiles.iter().map(|t| nearest(*t)).min()?;
        let ties: Vec<Tile> = tiles.into_iter().filter(|t| nearest(*t) == best).collect();
        let to = *ties.get(self.next() as usize % ties.len().max(1))?;
        let target = enemies.iter().find(|(_, p)| crate::battle::distance(to, *p) == 1).map(|(k, _)| *k);
        let act = target.map_or(Act::Wait, |target| Act::Attack { target });
        Some(Turn { unit: i, to: Some(to), act, ..Turn::default() })
    }
}

#[test]
#[allow(clippy::expect_used)]
fn the_one_pass_lays_what_the_rules_read_apart_lay() {
    let (engine, map) = storm();
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(&engine);
    let mut laid = BTreeMap::new();
    // Four games: since a unit whose figures all fall on its move is routed there, games end
    // sooner (seed 1's checked 2,700 places, over 3,000 before).
    for seed in [1, 2, 3, 4] {
        let mut checking = Checking { state: seed, checked: 0, laid: BTreeMap::new() };
        let mut b = Battle::set_up(&engine, s, &map, [a, d], seed).expect("the battle starts");
        for _ in 0..400 {
            if b.state.outcome.is_some() {
                break;
            }
            checking.check(&b);
            // A turn the rules refuse: the unit waits, or the unit an attack waits on answers.
            let played = checking.turn(&b).is_some_and(|t| b.play_turn(t).is_ok())
                || b.state
                    .pending
                    .last()
                    .map(|p| p.target)
                    .is_some_and(|unit| b.turn(Turn { unit, act: Act::Decline, ..Turn::default() }).is_ok());
            if !played {
                break;
            }
        }
        assert!(checking.checked > 2000, "{}", checking.checked);
        for (k, v) in checking.laid {
            *laid.entry(k).or_insert(0) += v;
        }
    }
    // Every part was laid somewhere: leadership's, the situations' (ground, flank or rear,
    // the flyer's, the mixed unit's) and the weather's.
    let names = engine.situation_names();
    let wanted = [names.beyond, names.ground, names.flank, names.rear, names.flying.map(|f| f.1), names.mixed];
    for w in wanted.into_iter().flatten() {
        assert!(laid.get(w.as_str()).is_some_and(|n| *n > 0), "{w} never laid: {laid:?}");
    }
}

/// Under fog, as the side to act sees it (`Battle::loadout_moved`), an enemy is out of command
/// only where that side sees its general: the savages' general in the dark, a band of them far
/// from him is taken in command; in sight, out of it. Without fog, out of it either way.
#[test]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
fn an_enemy_is_out_of_command_only_where_its_general_is_seen() {
    let scenario = include_str!("../../../../../scenarios/battlestorm-narube.oc");
    let map_text = include_str!("../../../../../scenarios/maps/narube-river.map.toml");
    let fogged = scenario.replacen("    rounds 12 then defender\n", "    rounds 12 then defender\n    fog vision 3\n", 1);
    for fog in [true, false] {
        let text = if fog { fogged.as_str() } else { scenario };
        let (engine, map) = crate::testing::field_named(("narube.oc", text), ("maps/narube-river.map.toml", map_text));
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let mut b = Battle::set_up(&engine, s, &map, [a, d], 1).expect("the battle starts");
        let general = b.state.units.iter().position(|u| u.name == "Ghor").expect("the savages' general");
        let band = b.state.units.iter().position(|u| u.name == "Raiders").expect("a band of savages");
        let elves: Vec<usize> =
            (0..b.state.units.len()).filter(|k| b.state.units[*k].side == oc_model::SideId::Defender).collect();
        // The elves on the east bank's last column, the band before them, and the general far
        // from it (beyond six tiles: out of command), in the dark or in sight.
        for (n, k) in elves.iter().enumerate() {
            b.state.units[*k].pos = (19, n as i64);
        }
        for k in 0..b.state.units.len() {
            if b.state.units[k].side == oc_model::SideId::Attacker && k != general && k != band {
                b.state.units[k].pos = (0, 11 - (k as i64 % 6));
            }
        }
        b.state.units[band].pos = (17, 1);
        b.state.to_act = oc_model::SideId::Defender;
        let out = engine.situation_names().beyond.expect("leadership lays a status");
        // Both tiles beyond six of the band: one in the dark, one three tiles from the last elf.
        for (at, seen) in [((5, 1), !fog), ((19, 7), true)] {
            b.state.units[general].pos = at;
            assert!(crate::battle::distance(at, (17, 1)) > 6);
            assert_eq!(b.sight(oc_model::SideId::Defender).sees(at), seen || !fog, "fog {fog}, {at:?} in sight");
            let l = b.loadout_moved(band, false, (band, (17, 1))).expect("the band's loadout");
            assert_eq!(l.statuses.contains(&out), seen, "fog {fog}, general at {at:?}");
        }
    }
}
