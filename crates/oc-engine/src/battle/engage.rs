//! Units held in contact (the ruleset's `engaged`, `oc_model::TurnRules::engaged`; seed 003's
//! "disengage"): a unit an enemy holds may not move (its reach is its own tile) unless it is
//! routing; it leaves only by the `disengage` verb, which steps it away from the enemy holding
//! it with no strike on the way.

use super::scene::Cast;
use super::turns::StepVars;
use super::{distance, Act, Battle, State};

impl Battle<'_> {
    /// The nearest enemy (unit order on a tie), not hidden, for which `engaged` holds for unit
    /// `i` where it stands; `None` without `engaged`, for a routing unit, or where none does.
    pub fn engaged_by(&self, i: usize) -> Option<usize> {
        let f = self.engine.ir.engaged.as_ref()?;
        let u = self.state.units.get(i).filter(|u| u.state == State::Ready && !u.morale.routing)?;
        let cast = Cast { user: i, ..Cast::default() };
        // Where `engaged` reads nothing but its parameters (`advanced::Laws`), it holds or not
        // whatever the unit's scene: that is built only where it holds for an enemy.
        let bare = self.laws.engaged_bare;
        let scene = if bare { None } else { Some(self.scene(cast, None)?) };
        let holds = |range: i64| {
            let params = StepVars { range, ..StepVars::default() }.params();
            match &scene {
                Some(scene) => scene.holds(f, &params),
                None => self.holds_bare(f, &params),
            }
        };
        let mut holders: Vec<(i64, usize)> = self
            .state
            .units
            .iter()
            .enumerate()
            .filter(|(k, e)| e.side != u.side && e.state == State::Ready && !self.hidden(*k))
            .map(|(k, e)| (distance(u.pos, e.pos), k))
            .filter(|(range, _)| holds(*range))
            .collect();
        holders.sort_unstable();
        let (_, k) = holders.first()?;
        if bare && self.scene(cast, None).is_none() {
            return None;
        }
        Some(*k)
    }

    /// The `disengage` verb: unit `i` steps up to `squares` squares away from the enemy holding
    /// it (as a unit made to flee, straight on where it can). What the log says, or why not.
    pub(super) fn disengage(&mut self, i: usize, squares: i64) -> Result<String, String> {
        let Some(k) = self.engaged_by(i) else {
            return Err("no enemy holds it (the ruleset's `engaged`): it may simply move".into());
        };
        let (Some(from), Some(name)) = (self.state.units.get(k).map(|e| e.pos), self.state.units.get(k).map(|e| e.name.clone()))
        else {
            return Err("no enemy".into());
        };
        let at = self.state.units.get(i).map(|u| u.pos);
        let (notes, to) = self.flee(i, from, squares);
        if Some(to) == at {
            return Err(format!("it has nowhere to step back from {name}"));
        }
        let rest = notes.iter().map(|n| format!("; {n}")).collect::<String>();
        Ok(format!("disengages from {name} to {to:?}{rest}"))
    }

    /// The action by which unit `i`, held where it stands, would disengage (what an AI plays
    /// instead of waiting in contact): the first of its actions taking no target that the rules
    /// accept. `None` where no enemy holds it or it has none.
    pub fn disengaging(&self, i: usize) -> Option<Act> {
        self.engaged_by(i)?;
        for a in self.actions(i) {
            let Some(verb) = a.verb().filter(|v| *v == oc_model::Verb::Disengage) else { continue };
            let mut b = self.fork(None);
            if b.special(i, (verb, Some(a.tag.as_str())), (None, None), None).is_ok() {
                return Some(Act::Special { verb, target: None, tile: None, from: Some(a.tag) });
            }
        }
        None
    }
}

#[cfg(test)]
#[allow(clippy::expect_used, clippy::indexing_slicing)]
mod tests {
    use crate::battle::scene::Cast;
    use crate::battle::Battle;
    use oc_model::Atom;

    /// For each unit: the enemy holding it (`engaged`) and those it would come too near where it
    /// stands (`interrupt`).
    fn answers(b: &Battle<'_>) -> Vec<(Option<usize>, Vec<usize>)> {
        (0..b.state.units.len()).map(|i| (b.engaged_by(i), b.interrupters(i))).collect()
    }

    /// Seed 003's `interrupt` and `engaged` (`range <= 1`) read nothing but their parameters:
    /// asked without a scene, they answer as with one, for units in and out of contact, and for
    /// a unit that has no scene (its class unknown: no loadout), which is neither held nor
    /// watches.
    #[test]
    fn bare_turn_formulas_answer_as_their_scenes() {
        let savages =
            "unit S0: Savage { items Shortsword } unit S1: Savage { items Shortsword } unit S2: Savage { items Shortsword }";
        let (engine, map) = crate::testing::duel(&["......"; 5], "std:battlestorm", "", [savages, savages]);
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let deploy = [&[(0, 0), (0, 1), (0, 2)][..], &[(4, 0), (4, 1), (4, 2)][..]];
        let mut b = Battle::new(&engine, s, &map, [a, d], deploy, 5).expect("the battle starts");
        let laws = b.laws;
        assert!(laws.interrupt_bare && laws.engaged_bare && !laws.opportunity_bare, "{laws:?}");
        let mut state = 7u64;
        let (mut held, mut near, mut sceneless) = (0, 0, 0);
        for layout in 0..300 {
            // Six distinct tiles of the 6x5 field, drawn.
            let mut tiles: Vec<(i64, i64)> = Vec::new();
            while tiles.len() < 6 {
                state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let t = (((state >> 33) % 6) as i64, ((state >> 40) % 5) as i64);
                if !tiles.contains(&t) {
                    tiles.push(t);
                }
            }
            for (u, t) in b.state.units.iter_mut().zip(&tiles) {
                u.pos = *t;
            }
            // Every third layout, one unit without a scene.
            let nobody = (layout % 3 == 0).then_some(layout % 6);
            let class = b.state.units[layout % 6].class;
            if let Some(k) = nobody {
                b.state.units[k].class = Atom::new("Nobody");
                assert!(b.scene(Cast { user: k, ..Cast::default() }, None).is_none());
            }
            let fast = answers(&b);
            b.laws.interrupt_bare = false;
            b.laws.engaged_bare = false;
            let slow = answers(&b);
            b.laws = laws;
            assert_eq!(fast, slow, "layout {layout}: {tiles:?}, no scene for {nobody:?}");
            held += fast.iter().filter(|(h, _)| h.is_some()).count();
            near += fast.iter().map(|(_, w)| w.len()).sum::<usize>();
            if let Some(k) = nobody {
                // In contact with an enemy, it is still neither held nor watches (it may hold,
                // and be come too near: those scenes are the other unit's).
                let side = b.state.units[k].side;
                let touching =
                    b.state.units.iter().any(|e| e.side != side && crate::battle::distance(e.pos, b.state.units[k].pos) <= 1);
                if touching {
                    sceneless += 1;
                    assert_eq!(fast[k].0, None);
                    assert!(fast.iter().all(|(_, w)| !w.contains(&k)), "layout {layout}");
                }
                b.state.units[k].class = class;
            }
        }
        assert!(held > 50 && near > 50 && sceneless > 10, "{held} held, {near} watching, {sceneless} without a scene in contact");
    }

    /// A ruleset whose `interrupt` and `engaged` read the unit's attribute takes the scene's
    /// path: a keen unit holds and watches, a dull one (`keen` 0) neither; asked bare (the
    /// attribute read as nothing), the keen one would not.
    #[test]
    fn turn_formulas_reading_a_unit_are_asked_of_its_scene() {
        let rules = r#"
ruleset probe {
    scale Rating { E D C B A }
    stat str: Rating
    base hp: Int = 10
    base movement: Int = 4
    base movement_type: Movement = Foot
    base keen: Int = 0
    inventory 2
    turn {
        interrupt = range <= 1 and self.keen >= 1
        engaged = range <= self.keen
    }
    combat {
        hit = true
        critical = false
        damage = 1
        critical_damage = 1
        follow_up = false
    }
}
movement Foot
terrain Plains { symbol "." cost { Foot 1 } }
weapon_type Blades physical
tag Keen on class { keen = 1 }
class Keen { ratings { str C } wields Blades tags Keen cost 1 }
class Dull { ratings { str C } wields Blades cost 1 }
weapon Knife { type Blades might 0 weight 0 range 1 cost 1 }
scenario Field {
    map "field.map.toml"
    rounds 6 then defender
    attacker { zone "a" war_chest 99999 units 1..4 win rout all }
    defender { zone "d" war_chest 99999 units 1..4 win rout all }
}
army A for Field attacker { unit K: Keen { items Knife } unit L: Dull { items Knife } }
army D for Field defender { unit M: Keen { items Knife } unit N: Dull { items Knife } }
"#;
        let map = "name = \"Field\"\nwidth = 6\nheight = 3\nrows = [\"......\", \"......\", \"......\"]\n\
                   [[regions]]\nname = \"a\"\nkind = \"deployment\"\nside = \"attacker\"\nrect = [0, 0, 2, 3]\n\
                   [[regions]]\nname = \"d\"\nkind = \"deployment\"\nside = \"defender\"\nrect = [4, 0, 2, 3]\n";
        let (engine, map) = crate::testing::field(rules, map);
        let s = &engine.rules.scenarios[0];
        let [a, d] = crate::testing::armies(&engine);
        let mut b = Battle::new(&engine, s, &map, [a, d], [&[(0, 0), (0, 2)][..], &[(5, 0), (5, 2)][..]], 1).expect("starts");
        assert!(!b.laws.interrupt_bare && !b.laws.engaged_bare, "{:?}", b.laws);
        // K (0) at (1, 0) beside M (2) at (2, 0) and N (3) at (1, 1); L (1) at (3, 0) beside M.
        for (k, t) in [(1, 0), (3, 0), (2, 0), (1, 1)].into_iter().enumerate() {
            b.state.units[k].pos = t;
        }
        // A keen unit is held by the nearest enemy (M, unit order on a tie); a dull one never.
        assert_eq!(b.engaged_by(0), Some(2));
        assert_eq!(b.engaged_by(1), None);
        assert_eq!(b.engaged_by(2), Some(0));
        assert_eq!(b.engaged_by(3), None);
        // Only a keen enemy watches a mover that ends beside it.
        assert_eq!(b.interrupters(0), vec![2]);
        assert_eq!(b.interrupters(1), vec![2]);
        assert_eq!(b.interrupters(2), vec![0]);
        assert_eq!(b.interrupters(3), vec![0]);
        // Asked bare, the attribute reads as nothing: the answers would differ.
        b.laws.interrupt_bare = true;
        b.laws.engaged_bare = true;
        assert_eq!(b.engaged_by(0), None);
        assert!(b.interrupters(0).is_empty());
    }
}
