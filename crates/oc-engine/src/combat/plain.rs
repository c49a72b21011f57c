//! The walk of a plain exchange: one whose states differ only in hit points. Without reactions
//! (nothing spent, no riposte) and without triggers on `hit`, `crit` or `miss` (no status laid,
//! no hit points healed mid-exchange), where neither strike's outcomes nor `strikes`, `counter`
//! or `follow_up` read hit points, every strike of a side has the same outcomes and the strikers
//! come in a fixed order (attack, counter, follow-up), cut short only by a rout. That is most
//! exchanges of the first two seeds: not those whose damage reads the foe's hit points, nor a
//! strike trigger's.
//!
//! The walk is then over pairs of hit points, with each side's outcomes worked out once: no
//! state copied, hashed or compared beyond its two numbers, and no formula evaluated after the
//! first strike. It adds the same weights in the same order as [`Exchange::walk`]'s general
//! loop (each level's states in the order first reached, each state's outcomes in theirs), so
//! its forecasts are the same bits; `tests::plain_walks_equal_the_general_walk` holds it to that
//! on every matchup of every built-in ruleset.

use super::*;

/// The most strikes a plain walk follows (an attack, a counter and a follow-up of at most
/// `MAX_STRIKES` each); a longer exchange is walked by the general loop.
const MAX_PLAIN_STRIKES: usize = 3 * MAX_STRIKES as usize;

impl Exchange<'_> {
    /// The final hit points with their chances, in the order first reached, or `None` where the
    /// exchange is not plain (then the general walk goes on with what was worked out here).
    pub(super) fn walk_plain(&self, initial: &State, cache: &mut OutcomeCache) -> Option<Vec<([i64; 2], f64)>> {
        if !self.engine.plain_walks || !self.engine.reactions.is_empty() || !self.at_start(initial) {
            return None;
        }
        let on_strike =
            |u: &Unit| u.triggers.iter().any(|(_, e, _)| matches!(e, m::Event::Hit | m::Event::Crit | m::Event::Miss));
        if self.base.iter().any(|u| on_strike(u)) {
            return None;
        }
        // The strikers in order, from the flags as the exchange begins.
        let mut strikers = [0u8; MAX_PLAIN_STRIKES];
        let mut len = 0;
        let mut phase = initial.phase;
        while let Some(side) = phase.striker() {
            *strikers.get_mut(len)? = side as u8;
            len += 1;
            phase = self.next_phase(initial, phase);
        }
        // A flag that read hit points is remembered with them (`Exchange::flag`): it may differ
        // in a later state.
        if !self.flags.borrow().is_empty() {
            return None;
        }
        let strikers = strikers.get(..len)?;
        let mut outcomes: [Option<Arc<Outcomes>>; 2] = [None, None];
        for side in [0, 1] {
            if strikers.contains(&(side as u8)) {
                let o = self.outcomes_memo(initial, side, cache);
                // Kept for every amount of hit points only where working them out read none.
                self.memos.get(side)?.outcomes.get()?.as_ref()?;
                *outcomes.get_mut(side)? = Some(o);
            }
        }
        // Each level's states, and the next level's, in two tallies whose room is reused.
        let mut frontier: Tally<[i64; 2]> = Tally::default();
        let mut next: Tally<[i64; 2]> = Tally::default();
        frontier.add(initial.hp, 1.0);
        let mut done: Tally<[i64; 2]> = Tally::default();
        for &side in strikers {
            let side = side as usize;
            let outcomes = outcomes.get(side)?.as_ref()?;
            let faces = outcomes.den;
            next.clear();
            for &(hp, p) in &frontier.list {
                // A rout ends the exchange (`Exchange::next_phase`).
                if hp[0] <= 0 || hp[1] <= 0 {
                    done.add(hp, p);
                    continue;
                }
                for &(count, o) in &outcomes.list {
                    next.add(struck(hp, side, o), p * count / faces);
                }
            }
            std::mem::swap(&mut frontier, &mut next);
        }
        for &(hp, p) in &frontier.list {
            done.add(hp, p);
        }
        Some(done.list)
    }
}

/// Hit points after a strike by `side` with outcome `o`, as [`Exchange::apply`] leaves them
/// where no trigger runs.
fn struck(mut hp: [i64; 2], side: usize, o: Outcome) -> [i64; 2] {
    let target = if o.backfire { side } else { 1 - side };
    if o.backfire || o.hit {
        if let Some(h) = hp.get_mut(target) {
            *h = h.saturating_sub(o.damage);
        }
    }
    hp.map(|h| h.max(0))
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::{Engine, Forecast, Loadout};

    fn bits(f: &Forecast) -> Vec<u64> {
        let mut out: Vec<u64> =
            [f.attacker_routed, f.defender_routed, f.attacker_damage_taken, f.defender_damage_taken].map(f64::to_bits).to_vec();
        for (hp, p) in f.attacker_hp.iter().chain(&f.defender_hp) {
            out.extend([*hp as u64, p.to_bits()]);
        }
        for s in [&f.attacker, &f.defender] {
            out.extend([s.hit.to_bits(), s.crit.to_bits(), s.damage as u64, s.crit_damage as u64, u64::from(s.strikes)]);
            for (d, p) in &s.damage_distribution {
                out.extend([*d as u64, p.to_bits()]);
            }
        }
        out
    }

    /// Every matchup of every built-in ruleset (each class with each weapon it may use against
    /// each class with its first, at full and low hit points), walked plain where it may be and
    /// by the general loop: the same bits. And seed 000's are walked plain for the most part.
    #[test]
    fn plain_walks_equal_the_general_walk() {
        for (k, (name, index)) in oc_compiler::stdlib::RULESETS.iter().enumerate() {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let plain = Engine::new(rules.clone()).expect("runs");
            let mut general = Engine::new(rules).expect("runs");
            general.plain_walks = false;
            let defenders: Vec<Loadout> = plain
                .rules
                .classes
                .iter()
                .filter_map(|c| plain.weapons_for(&c.name).first().map(|w| Loadout::new(&c.name, Some(&w.name))))
                .collect();
            let (mut compared, mut walked_plain) = (0, 0);
            for c in &plain.rules.classes {
                for w in plain.weapons_for(&c.name) {
                    let Some((lo, _)) = plain.reach(&c.name, &w.name) else { continue };
                    let a = Loadout::new(&c.name, Some(&w.name));
                    for d in &defenders {
                        for hp in [None, Some(1), Some(3)] {
                            let d = Loadout { hp, ..d.clone() };
                            let Ok(x) = crate::Exchange::new(&plain, &a, &d, lo.max(1)) else { continue };
                            let mut cache = super::OutcomeCache::default();
                            walked_plain += usize::from(x.walk_plain(&x.initial(), &mut cache).is_some());
                            let (p, g) = (x.forecast(), general.forecast(&a, &d, lo.max(1)).expect("the same matchup"));
                            assert_eq!(bits(&p), bits(&g), "{name}: {}:{} against {} (hp {hp:?})", c.name, w.name, d.class);
                            compared += 1;
                        }
                    }
                }
            }
            assert!(compared > 100, "{name}: {compared} matchups");
            // The first built-in ruleset: seed 000's.
            if k == 0 {
                assert!(walked_plain * 10 > compared * 8, "{name}: {walked_plain} of {compared} walked plain");
            }
            eprintln!("{name}: {compared} matchups, {walked_plain} walked plain");
        }
    }
}
