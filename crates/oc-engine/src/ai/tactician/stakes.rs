//! What is at stake for the side to act: each unit's worth (its price, raised for the units the
//! scenario's conditions name — a leader whose rout ends the battle, the only unit that can
//! seize, a healer —), the objective tiles, and how hard the clock pushes.

use oc_model as m;

use super::race::{self, clock_win, Objective, Taker};
use super::Walks;
use crate::ai::{objective_tiles, win_parts};
use crate::battle::{Battle, State, Tile, ROUND_CAP};

/// Each unit's price (class and the items it deployed with), over the mean price of the
/// battle's units: about 1 for an average unit. Worked out once per battle (again where units
/// are added: a unit divided).
pub(super) fn prices(b: &Battle) -> Vec<f64> {
    let rules = &b.engine.rules;
    let price = |i: usize| -> f64 {
        let Some(u) = b.units.get(i) else { return 0.0 };
        let class = rules.class(&u.class).map_or(0, |c| c.cost.max(0));
        // What it deployed with (`Battle::deployed_kit`): a price set by what an enemy used up
        // or traded away out of sight would show it.
        let items: i64 = b.deployed_kit(i).0.iter().filter_map(|n| rules.item(n)).map(|it| it.cost.max(0)).sum();
        // One figure's price, whatever its figures (seed 003's units of figures). Priced for
        // each figure, as an army's points count them, the Storm's elves held the savages
        // better (greedy attacking them won 22.5% of 400 games, against 36.5%), but the savages
        // attacked worse (39.2% against 47.5%), and the default on both sides won the savages
        // 20% (unfair): their general and champions, single figures, fell from about 1.7 mean
        // units to 0.4, while the ruleset's leadership makes every unit of a side test when its
        // general dies. Priced for each figure, with a general worth his own price and what
        // his fall costs his side besides (each other unit standing by its chance to fail its
        // save, from 64 rolls), the savages attacked better too (50.5% against greedy's elves,
        // 19.8% for greedy's savages against the elves), but the Storm needed five more braves
        // to stay fair (38.0% of 200 games), and its games ran longer (8.7 rounds against 7.1)
        // with more of the elves' searches: `oc fairness scenarios --games 1000` took 76.9 s
        // against 61.5 s (farm-bench, 3 paired runs). Not kept for that cost.
        (class + items) as f64
    };
    let raw: Vec<f64> = (0..b.units.len()).map(price).collect();
    let mean = if raw.is_empty() { 0.0 } else { raw.iter().sum::<f64>() / raw.len() as f64 };
    if mean <= 0.0 {
        return vec![1.0; raw.len()];
    }
    // A unit is worth at least a third of the mean: a cheap unit still holds a tile and strikes.
    raw.iter().map(|p| (p / mean).max(1.0 / 3.0)).collect()
}

/// The side to act's stakes in this decision.
pub(in crate::ai) struct Stakes {
    /// Worth of every unit (by battle index), with the conditions' multipliers.
    pub worth: Vec<f64>,
    /// 0 (no hurry) to 1 (the clock is running out on this side's objective).
    pub urgency: f64,
    /// Tiles this side must reach with an action (seize, escape, raze).
    pub goals: Vec<Tile>,
    /// Tiles the enemy must reach with an action: a unit standing there denies them.
    pub deny: Vec<Tile>,
    /// The region this side holds to win (`defend`), and the one it must contest (the enemy's).
    pub hold: Vec<Tile>,
    pub contest: Vec<Tile>,
    /// Both sides' tile objectives, and every unit that can take one (`race.rs`).
    pub objectives: Vec<Objective>,
    pub takers: Vec<Taker>,
    /// The enemy's objective tiles, each with what a unit of ours standing on it bars, taker by
    /// taker (`Bar`); the plan weighs it by the chance the unit still stands when they come, and
    /// a taker's share by the chance it still stands (an attack that routs it leaves nothing to
    /// bar).
    pub barred: Vec<Bar>,
}

/// What one of the enemy's objective tiles held bars of one taker: its share of the battle.
pub(in crate::ai) struct Bar {
    pub tile: Tile,
    pub taker: usize,
    /// Stepped on now: the objective's imminent threat (`race::Taker::imminent`, summed over its
    /// takers, at most the battle) shared among its tiles.
    pub now: f64,
    /// Kept by a unit already on it: the whole race (`race::Taker::chance`), shared alike.
    pub kept: f64,
}

fn names_leader(c: &m::Condition) -> bool {
    match c {
        m::Condition::RoutLeader => true,
        m::Condition::And(a, b) | m::Condition::Or(a, b) => names_leader(a) || names_leader(b),
        _ => false,
    }
}

fn named_units(c: &m::Condition, out: &mut Vec<String>) {
    match c {
        m::Condition::RoutUnit { unit } => out.push(unit.clone()),
        m::Condition::And(a, b) | m::Condition::Or(a, b) => {
            named_units(a, out);
            named_units(b, out);
        }
        _ => {}
    }
}

fn routs_all(c: &m::Condition) -> bool {
    match c {
        m::Condition::RoutAll => true,
        m::Condition::And(a, b) | m::Condition::Or(a, b) => routs_all(a) || routs_all(b),
        _ => false,
    }
}

fn rout_count(c: &m::Condition) -> Option<u32> {
    match c {
        m::Condition::RoutCount { count } => Some(*count),
        m::Condition::And(a, b) | m::Condition::Or(a, b) => rout_count(a).or(rout_count(b)),
        _ => None,
    }
}

/// What routing one more unit that ends the battle is worth: a few armies' worth of units.
pub(in crate::ai) const WIN: f64 = 6.0;

/// Whether routing unit `k` makes `side`'s condition `c` hold (so the battle ends). A unit with
/// a living body joined to it (seed 003's mixed units: `Battle::bodies`) is not routed by losing
/// its last figure: the body carries on as the unit (`Battle::fall`), so that counts toward
/// neither `rout all` nor `rout N`.
fn ends(b: &Battle, c: &m::Condition, side: m::SideId, k: usize) -> bool {
    let Some(u) = b.units.get(k) else { return false };
    let enemies = || b.units.iter().filter(|x| x.side != side);
    let falls = || !b.bodies(k).is_empty();
    match c {
        m::Condition::RoutAll => enemies().filter(|x| x.state == State::Ready).count() == 1 && !falls(),
        m::Condition::RoutCount { count } => {
            enemies().filter(|x| x.state == State::Routed).count() as u32 + 1 == *count && !falls()
        }
        m::Condition::RoutLeader => b.is_leader(k),
        m::Condition::RoutUnit { unit } => u.name == *unit,
        m::Condition::Or(x, y) => ends(b, x, side, k) || ends(b, y, side, k),
        m::Condition::And(x, y) => {
            let (ex, ey) = (ends(b, x, side, k), ends(b, y, side, k));
            // Both hold once `k` is routed, and this rout is what makes one of them hold.
            let (after_x, after_y) = (ex || b.holds(x, side), ey || b.holds(y, side));
            after_x && after_y && (ex || ey)
        }
        _ => false,
    }
}

impl Stakes {
    /// `verbs`: each unit's action verbs (`Battle::action_verbs`), by battle index. `known`:
    /// under fog, where `side` knows each unit to stand (`memory::known`): an enemy taker is
    /// weighed where the side sees it or last saw it, and not at all where it knows it nowhere
    /// (read where it truly stands, the stakes told the side where enemies out of its sight
    /// were). `None` without fog.
    pub fn new<V: AsRef<[Option<m::Verb>]>>(
        b: &Battle,
        side: m::SideId,
        (prices, seizers): (&[f64], &[usize]),
        verbs: &[V],
        walks: &mut Walks,
        known: Option<&[Option<Tile>]>,
    ) -> Stakes {
        let (mine, theirs) = (b.scenario.side(side).win.as_ref(), b.scenario.side(side.other()).win.as_ref());
        let mut worth: Vec<f64> = prices.to_vec();
        worth.resize(b.units.len(), 1.0);
        // Whose rout a condition names: the leaders (`rout leader`) and named units.
        for (cond, victims) in [(mine, side.other()), (theirs, side)] {
            let Some(cond) = cond else { continue };
            let leaders = names_leader(cond);
            let mut named = Vec::new();
            named_units(cond, &mut named);
            let routed = b.units.iter().filter(|u| u.side == victims && u.state == State::Routed).count() as f64;
            let standing = b.units.iter().filter(|u| u.side == victims && u.state == State::Ready).count() as f64;
            // The closer the count (or the last unit), the more each further rout decides.
            let mut pressure = rout_count(cond).map_or(1.0, |n| 1.0 + 2.0 / (f64::from(n) - routed).max(1.0));
            if routs_all(cond) {
                pressure = pressure.max(1.0 + 1.5 / standing.max(1.0));
            }
            for (k, u) in b.units.iter().enumerate() {
                if u.side != victims {
                    continue;
                }
                let Some(w) = worth.get_mut(k) else { continue };
                if (leaders && b.is_leader(k)) || named.contains(&u.name) {
                    *w *= 4.0;
                }
                *w *= pressure;
            }
        }
        // A unit whose rout ends the battle is worth the battle.
        for (cond, owner) in [(mine, side), (theirs, side.other())] {
            let Some(cond) = cond else { continue };
            for (k, u) in b.units.iter().enumerate() {
                if u.side != owner && u.state == State::Ready && ends(b, cond, owner, k) {
                    if let Some(w) = worth.get_mut(k) {
                        *w = w.max(WIN / 0.7);
                    }
                }
            }
        }
        // An enemy that could take its objective in time is worth the battle times its chance
        // to (as one whose rout ends the battle is worth the battle): what stopping it saves.
        // Measured: its share of the chance alone (a third of it for the Dunes' three
        // refugees) left the patrol weaker than greedy (31% attacker wins against 18%).
        let objectives = race::objectives(b);
        let takers = race::takers(b, &objectives, verbs, walks, known);
        for t in takers.iter().filter(|t| t.chance() > 0.0) {
            let enemy = objectives.get(t.objective).is_some_and(|o| o.side != side);
            if let (true, Some(w)) = (enemy, worth.get_mut(t.unit)) {
                *w = w.max(super::RACE * WIN / 0.7 * t.chance());
            }
        }
        // The units that can take their side's objective: losing a side's last one loses it.
        // Counted side by side, each for an objective of its own side (counted over both sides,
        // one taker a side left each at half its worth, and a unit whose side has no objective
        // to take was raised for its verb).
        for owner in [m::SideId::Attacker, m::SideId::Defender] {
            let takes = |k: &usize| {
                b.units.get(*k).is_some_and(|u| u.side == owner)
                    && verbs
                        .get(*k)
                        .is_some_and(|v| objectives.iter().any(|o| o.side == owner && v.as_ref().contains(&Some(o.verb))))
            };
            let own: Vec<usize> = seizers.iter().copied().filter(takes).collect();
            let ready = own.iter().filter(|k| b.on_board(**k)).count();
            for k in own {
                if let Some(w) = worth.get_mut(k) {
                    *w *= if ready <= 1 { 3.0 } else { 1.5 };
                }
            }
        }
        // Healers keep the others standing.
        for (k, w) in worth.iter_mut().enumerate() {
            if verbs.get(k).is_some_and(|v| v.as_ref().contains(&Some(m::Verb::Heal))) {
                *w *= 1.3;
            }
        }
        let mut goals = Vec::new();
        let mut deny = Vec::new();
        for kind in ["seize", "escape", "raze"] {
            goals.extend(objective_tiles(b, side, kind));
            deny.extend(objective_tiles(b, side.other(), kind));
        }
        let hold = defended(b, side);
        let contest = defended(b, side.other());
        // Held now, a tile bars only the takers that could take it before our unit acts again
        // (within one move of it): one farther off is barred as well by a unit that steps on
        // later. Measured: barring the whole race parked a unit on the tile from round 1.
        // A unit already on the tile keeps it from the whole race while it stays: one that steps
        // off to strike must outlive the enemy's reply to step back (measured: the Ferry
        // Crossing's holder stepped off to strike the lord, was routed, and the saboteur razed
        // the tile it had left).
        // Not from a taker whose rout wins us the battle: that one is fought, not waited for
        // (its worth is the battle already; measured: the Harbour Raid's mage kept the fort
        // while the garrison fought the princess, attacker 31% -> 56%).
        let decisive = |k: usize| mine.is_some_and(|c| ends(b, c, side, k));
        let mut barred = Vec::new();
        for (o, obj) in objectives.iter().enumerate().filter(|(_, o)| o.side != side) {
            let racing = || takers.iter().filter(|t| t.objective == o && t.chance() > 0.0);
            // The tiles still to take (not one razed already).
            let open = race::open_tiles(b, obj);
            let tiles = open.len().max(1) as f64;
            let now = super::RACE * WIN / racing().map(Taker::imminent).sum::<f64>().max(1.0) / tiles;
            let kept = super::RACE * WIN / racing().map(|k| k.share * k.chance()).sum::<f64>().max(1.0) / tiles;
            for t in open.iter() {
                barred.extend(racing().map(|k| Bar {
                    tile: *t,
                    taker: k.unit,
                    now: now * k.imminent(),
                    kept: if decisive(k.unit) { 0.0 } else { kept * k.share * k.chance() },
                }));
            }
        }
        Stakes { worth, urgency: urgency(b, side, theirs), goals, deny, hold, contest, objectives, takers, barred }
    }
}

/// The tiles of `side`'s `defend R for N rounds` regions it can still hold for N rounds in a
/// row by the time limit (the rounds held so far, and the rounds left, this one included). A
/// hold the enemy broke too late to make up is at stake no more, for either side: measured, a
/// raider kept standing on the Woodcutter's Night hut it had already taken (the watch could no
/// longer win by it) while the last of the watch stood, and the night ended in a draw.
fn defended(b: &Battle, side: m::SideId) -> Vec<Tile> {
    defends(b, side)
        .into_iter()
        .filter(|(r, n)| still_holdable(b, side, r, *n))
        .filter_map(|(r, _)| b.map.region(r))
        .flat_map(|r| r.tiles.iter().copied())
        .collect()
}

/// `side`'s `defend R for N rounds` conditions (those its win reads): each region and its rounds.
pub(crate) fn defends<'b>(b: &'b Battle, side: m::SideId) -> Vec<(&'b String, u32)> {
    win_parts(b, side, &|c| matches!(c, m::Condition::Defend { .. }))
        .into_iter()
        .filter_map(|c| match c {
            m::Condition::Defend { region, rounds } => Some((region, *rounds)),
            _ => None,
        })
        .collect()
}

/// Whether `side` can still hold `region` for `rounds`: the rounds held so far and those left
/// before the time limit reach them.
pub(crate) fn still_holdable(b: &Battle, side: m::SideId, region: &str, rounds: u32) -> bool {
    let left = b.scenario.rounds.unwrap_or(ROUND_CAP).saturating_sub(b.round) + 1;
    b.held_rounds(side, region).saturating_add(left) >= rounds
}

/// Whether `side` is free to wait for the enemy to come to it: the clock does not hand the
/// battle to the enemy, and no tiles are at stake (neither side must seize, escape through, raze
/// or hold ground). A side that must go somewhere, or stop the enemy getting somewhere, is not.
/// It depends on the scenario alone.
pub fn free_to_wait(scenario: &m::Scenario, side: m::SideId) -> bool {
    let (mine, theirs) = (scenario.side(side).win.as_ref(), scenario.side(side.other()).win.as_ref());
    // Tiles at stake: a seize, escape, raze or defend names a region.
    if [mine, theirs].into_iter().flatten().any(|c| !c.regions().is_empty()) {
        return false;
    }
    let limit = scenario.rounds.unwrap_or(ROUND_CAP);
    if theirs.and_then(clock_win).is_some_and(|n| n <= limit) {
        return false;
    }
    !(scenario.rounds.is_some() && scenario.on_time_limit == m::Outcome::Win(side.other()))
}

/// Where a side free to wait ([`free_to_wait`]) waits under fog while it sees and remembers no
/// enemy and the clock is calm: a line across the field just short of the middle, the tiles
/// [`WATCH_LINE`] nearer its own deployment zone than the enemy's (by tiles, terrain aside).
/// There it sees the enemy come rather than walk blind into its reach; waiting where it deployed
/// instead left the central ground (a hill's forts) to the enemy. Empty where either side has no
/// deployment zone on the map, or the field is too small for a line.
pub(super) fn watch_line(b: &Battle, side: m::SideId) -> Vec<Tile> {
    let zone = |s: m::SideId| crate::battle::zone_tiles(&b.scenario, &b.map, s);
    let (own, theirs) = (zone(side), zone(side.other()));
    let nearest = |zone: &[Tile], t: Tile| zone.iter().map(|z| crate::battle::distance(*z, t)).min();
    let mut line = Vec::new();
    for y in 0..b.map.height.max(0) {
        for x in 0..b.map.width.max(0) {
            if let (Some(a), Some(e)) = (nearest(own, (x, y)), nearest(theirs, (x, y))) {
                if WATCH_LINE.contains(&(e - a)) {
                    line.push((x, y));
                }
            }
        }
    }
    line
}

/// How much nearer its own deployment zone than the enemy's a tile of a side's watch line is
/// ([`watch_line`]). Measured on the tuning mirror fields by night (`oc tournament
/// tests/fixtures/mirror/fields/F-night-R.oc --ais planner greedy --games 10 --seed 7`, F
/// `plain` and `hill`, R `ratings` and `v06`: the planner's wins of 920): walking toward the
/// enemy's zone 498; waiting in its own zone 531; where each unit stands 528; on the middle
/// (within 1) 551; 1 to 2 tiles nearer 564; 1 to 3, 570; 2 to 3, 603; 3 to 5, 561; 4 to 6, 608.
const WATCH_LINE: std::ops::RangeInclusive<i64> = 2..=3;

/// How hard the clock pushes `side` ([`urgency`]), its enemy's conditions read from `b`.
pub(crate) fn clock(b: &Battle, side: m::SideId) -> f64 {
    urgency(b, side, b.scenario.side(side.other()).win.as_ref())
}

/// How hard the clock pushes `side`: 0 while time is on its side or plentiful, up to 1 when the
/// time limit (or the enemy's `survive` / `defend`) is about to hand the battle to the enemy or
/// end it in a draw.
fn urgency(b: &Battle, side: m::SideId, theirs: Option<&m::Condition>) -> f64 {
    let limit = b.scenario.rounds.unwrap_or(ROUND_CAP);
    let on_clock = if b.scenario.rounds.is_some() { b.scenario.on_time_limit } else { m::Outcome::Draw };
    let (deadline, stake) = match (on_clock, theirs.and_then(|t| race::clock_deadline(b, side.other(), t))) {
        (_, Some(n)) if n <= limit => (n, 1.0),
        (m::Outcome::Win(s), _) if s == side => return 0.0,
        (m::Outcome::Win(_), _) => (limit, 1.0),
        (m::Outcome::Draw, _) => (limit, 1.0),
    };
    let left = f64::from(deadline.saturating_sub(b.round));
    // Calm for the first half of the time, then rising to full in the last two rounds.
    let span = (f64::from(deadline) / 2.0).max(1.0);
    stake * ((span - left + 2.0) / span).clamp(0.0, 1.0)
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use super::Stakes;
    use crate::ai::sighting::Sighting;
    use crate::ai::tactician::{known, Walks};
    use crate::battle::{Battle, Tile};
    use crate::Engine;
    use oc_model as m;

    /// A 12x3 field, the village on `village`, that the company's lord (the attacker's one unit,
    /// Leader) must seize in 9 rounds against the defender's `survive 9 rounds`: `options` in the
    /// scenario (say `fog vision 2`), the defender's side taking `grants`, its army `unit`.
    fn village_field(options: &str, grants: &str, unit: &str, village: Tile) -> (Engine, oc_model::BattleMap) {
        let source = format!(
            "scenario Field {{\n    map \"field.map.toml\"\n    rounds 9 then defender\n{options}\
             attacker {{ zone \"a\" war_chest 99999 units 1..4 grant Leader to 1 win seize \"village\" }}\n\
             defender {{ zone \"d\" war_chest 99999 units 1..4 {grants}win survive 9 rounds }}\n}}\n\
             army A for Field attacker {{ unit Lord: Lord {{ items Rapier tags Leader }} }}\n\
             army D for Field defender {{ {unit} }}\n"
        );
        let map = format!(
            "name = \"Field\"\nwidth = 12\nheight = 3\nrows = [\"............\", \"............\", \"............\"]\n\
             [[regions]]\nname = \"a\"\nkind = \"deployment\"\nside = \"attacker\"\nrect = [0, 0, 2, 3]\n\
             [[regions]]\nname = \"d\"\nkind = \"deployment\"\nside = \"defender\"\nrect = [10, 0, 2, 3]\n\
             [[regions]]\nname = \"village\"\nkind = \"seize\"\nside = \"attacker\"\ntiles = [[{}, {}]]\n",
            village.0, village.1
        );
        crate::testing::field(&source, &map)
    }

    /// Each unit's action verbs, as the stakes are given them.
    fn verbs(b: &Battle) -> Vec<Vec<Option<m::Verb>>> {
        (0..b.units.len()).map(|k| b.action_verbs(k)).collect()
    }

    /// Under fog, the watch (vision 2, on the village at (4, 0)) weighs the enemy lord, who must
    /// seize it, where it sees or last saw him, never where he truly stands out of its sight:
    /// its stakes (each unit's worth, what holding the village bars) are the same whether he is
    /// a step from the village's edge of sight or across the field. Remembered at (1, 1), he is
    /// weighed there. (Read where he stood, the stakes changed with his true place: the copy's
    /// reading, `None`, still does, which is what a copy the planner sets him in is for.)
    #[test]
    fn a_watch_weighs_an_unseen_taker_where_it_knows_him_not_where_he_is() {
        let (engine, map) = village_field("    fog vision 2\n", "", "unit Watch: Fighter { items IronAxe }", (4, 0));
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let b = Battle::new(&engine, s, &map, [a, d], [&[(0, 0)][..], &[(11, 2)][..]], 3).expect("the battle starts");
        let side = m::SideId::Defender;
        // The lord, out of the watch's sight, at `lord`; the stakes of the watch on the village
        // as it knows the battle (`memory`), or as it stands (`None`).
        let stakes = |lord: Tile, memory: Option<&[Option<Sighting>]>| {
            let mut b = b.fork(None);
            b.state.units[0].pos = lord;
            b.state.units[1].pos = (4, 0);
            let sight = b.sight(side);
            assert!(sight.fogged() && !sight.spots(0, lord), "{lord:?} is out of sight");
            let verbs = verbs(&b);
            let knows = memory.and_then(|memory| known(&b, side, &sight, memory));
            let st = Stakes::new(&b, side, (&[1.0, 1.0], &[0]), &verbs, &mut Walks::default(), knows.as_deref());
            let bars: Vec<(Tile, usize, u64, u64)> =
                st.barred.iter().map(|x| (x.tile, x.taker, x.now.to_bits(), x.kept.to_bits())).collect();
            (st.worth.iter().map(|w| w.to_bits()).collect::<Vec<_>>(), bars)
        };
        let (near, far) = ((1, 0), (0, 2));
        let forgotten: &[Option<Sighting>] = &[None, None];
        assert_eq!(stakes(near, Some(forgotten)), stakes(far, Some(forgotten)), "never seen");
        assert!(stakes(near, Some(forgotten)).1.is_empty(), "a taker known nowhere bars nothing");
        let seen = [Some(Sighting { tile: (1, 1), round: 1, hp: 18, ..Sighting::default() }), None];
        let remembered = stakes(near, Some(&seen));
        assert_eq!(remembered, stakes(far, Some(&seen)), "remembered");
        assert!(!remembered.1.is_empty(), "remembered, he is weighed where he was seen");
        // Read where he stands, the stakes tell where he is.
        assert_ne!(stakes(near, None), stakes(far, None));
    }

    /// `rout all`, the defender's one unit standing a host with a living body joined to it
    /// (seed 003's mixed units): routing the host does not end the battle (the body carries on
    /// as the unit), so the host is not worth the battle. (It was: every enemy standing but one
    /// counted, whatever was joined to it.)
    #[test]
    fn a_host_whose_body_fights_on_is_not_the_last_unit() {
        let rows = ["........"; 3];
        let units = [
            "unit Brave: Fighter { items IronAxe }",
            "unit Host: Fighter { items IronAxe } unit Body: Fighter { items IronAxe }",
        ];
        let (engine, map) = crate::testing::duel(&rows, "", "", units);
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let mut b = Battle::new(&engine, s, &map, [a, d], [&[(0, 0)][..], &[(7, 0), (7, 1)][..]], 3).expect("the battle starts");
        let worth =
            |b: &Battle| Stakes::new(b, m::SideId::Attacker, (&[1.0; 3], &[]), &verbs(b), &mut Walks::default(), None).worth;
        // Alone, the host is the last unit: its rout wins the battle.
        b.state.units[2].state = crate::battle::State::Routed;
        assert!(worth(&b)[1] >= super::WIN / 0.7, "{:?}", worth(&b));
        // With the body joined to it, it is not.
        b.state.units[2].state = crate::battle::State::Joined;
        b.state.units[2].with = Some(1);
        assert!(worth(&b)[1] < super::WIN / 0.7, "{:?}", worth(&b));
    }

    /// The company's lord is the last unit that can seize the village: losing him loses the
    /// objective, so he is worth three times his price, and the watch's lord, whose side has no
    /// tile to take, his price alone. (Counted over both sides, two takers stood: each was worth
    /// half as much again, the watch's lord too.)
    #[test]
    fn the_last_taker_is_counted_on_its_own_side() {
        let (engine, map) = village_field("", "grant Leader to 1 ", "unit Warden: Lord { items Rapier tags Leader }", (6, 0));
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let b = Battle::new(&engine, s, &map, [a, d], [&[(0, 0)][..], &[(11, 2)][..]], 3).expect("the battle starts");
        let verbs = verbs(&b);
        assert!(verbs.iter().all(|v| v.contains(&Some(m::Verb::Seize))), "both lords may seize: {verbs:?}");
        let st = Stakes::new(&b, m::SideId::Attacker, (&[1.0, 1.0], &[0, 1]), &verbs, &mut Walks::default(), None);
        assert_eq!(st.worth, vec![3.0, 1.0]);
    }
}
