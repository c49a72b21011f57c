//! What the advanced rules lay on a unit in one pass over the units ([`Battle::situation`],
//! the loadouts' way) against the same rules read apart ([`Battle::laying`] and
//! [`Battle::laid`]): over whole battles of the shipped Storm at the River, which plays
//! leadership, the situations and the weather.

use std::collections::BTreeMap;

use crate::battle::{Battle, Controller, Tile, Turn};
use crate::Engine;

/// The shipped Storm at the River (`scenarios/battlestorm-narube.oc`, its own armies) and its map.
#[allow(clippy::expect_used)]
fn storm() -> (Engine, oc_model::BattleMap) {
    let scenario = include_str!("../../../../../scenarios/battlestorm-narube.oc");
    let map_text = include_str!("../../../../../scenarios/maps/narube-river.map.toml");
    let files =
        [("maps/narube-river.map.toml".to_string(), map_text.to_string()), ("narube.oc".to_string(), scenario.to_string())];
    let (c, _) = oc_compiler::Workspace::new()
        .compile(&mut oc_compiler::MemoryHost(files.into_iter().collect()), &["narube.oc".to_string()]);
    let engine = Engine::new(c.rules.unwrap_or_else(|| panic!("{:#?}", c.diagnostics))).expect("the engine takes them");
    let (map, diags) = oc_atlas::parse(oc_diag::FileId(0), map_text);
    assert!(diags.is_empty(), "{diags:?}");
    let mut map = map.expect("a map");
    map.resolve(&engine.rules);
    (engine, map.battle_map())
}

/// An AI that, before each of its turns, holds the one pass to the rules read apart for units,
/// tiles and movers drawn at random (a fixed seed), and counts what was laid.
struct Checking {
    ai: Box<dyn Controller + Send>,
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
            let placed = b.situation(i, at, mover, &mut one, class);
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
}

impl Controller for Checking {
    fn choose(&mut self, battle: &Battle<'_>) -> Option<Turn> {
        self.check(battle);
        self.ai.choose(battle)
    }
}

#[test]
#[allow(clippy::expect_used)]
fn the_one_pass_lays_what_the_rules_read_apart_lay() {
    let (engine, map) = storm();
    let s = &engine.rules.scenarios[0];
    let [a, d] = crate::testing::armies(&engine);
    let mut laid = BTreeMap::new();
    for seed in [1, 2] {
        let ai = crate::ai::by_name("greedy").expect("greedy");
        let mut checking = Checking { ai, state: seed, checked: 0, laid: BTreeMap::new() };
        crate::battle::play(&engine, s, &map, [a, d], seed, &mut checking).expect("the battle plays");
        assert!(checking.checked > 1000, "{}", checking.checked);
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
