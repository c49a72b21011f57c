//! Hiding and searching (seed 003's Actions "search" and "hide"): the `hide` verb hides its
//! user where it stands (not while an enemy holds it in contact: `engaged`); `search(n)`
//! finds every enemy hidden within n squares of its user.
//!
//! A hidden unit may not be targeted by an enemy (attacks, actions, a charge's sweep), holds
//! nobody in contact and, where
//! the battle has fog, its enemies do not see it (the `seen` records, the AIs' view). It stays
//! hidden while it stands on the tile it hid on (any move leaves it: "moves into the open") until
//! it strikes (its attack is made from hiding, then it is seen) or an enemy's search finds it.
//! Where the ruleset's `situations` name a `blind` status and the scenario plays them, a hidden
//! unit bears it ([`Battle::situation`]): what the formulas read as the unit no enemy sees.

use oc_model as m;

use super::{distance, neighbours, Act, Battle, State, Tile};

impl Battle<'_> {
    /// Whether unit `k` is hidden now: it hid, and stands where it hid.
    pub fn hidden(&self, k: usize) -> bool {
        self.state.units.get(k).is_some_and(|u| u.state == State::Ready && u.hidden == Some(u.pos))
    }

    /// Whether `side` may see and target unit `k`: its tile is in the side's sight (fog), and
    /// it is of that side or not hidden.
    pub fn spots(&self, side: m::SideId, k: usize) -> bool {
        self.state.units.get(k).is_some_and(|u| self.sees(side, u.pos) && (u.side == side || !self.hidden(k)))
    }

    /// The `hide` verb: unit `i` hides where it stands. What the log says, or why not.
    pub(super) fn hide(&mut self, i: usize) -> Result<String, String> {
        // An enemy holding it in contact (the ruleset's `engaged`) sees it.
        if let Some(k) = self.engaged_by(i) {
            let by = self.state.units.get(k).map_or(String::new(), |e| e.name.clone());
            return Err(format!("{by} holds it in contact: it cannot hide"));
        }
        let Some(u) = self.state.units.get_mut(i) else { return Err("no unit".into()) };
        if u.hidden == Some(u.pos) {
            return Err(format!("{} is hidden already", u.name));
        }
        u.hidden = Some(u.pos);
        Ok(format!("hides at {:?}", u.pos))
    }

    /// The `search` verb: unit `i` finds every enemy hidden within `squares` of it (unit order).
    /// What the log says.
    pub(super) fn search(&mut self, i: usize, squares: i64) -> String {
        let Some((side, at)) = self.state.units.get(i).map(|u| (u.side, u.pos)) else { return String::new() };
        let found: Vec<usize> = (0..self.state.units.len())
            .filter(|k| {
                self.hidden(*k) && self.state.units.get(*k).is_some_and(|f| f.side != side && distance(f.pos, at) <= squares)
            })
            .collect();
        let mut names = Vec::new();
        for k in found {
            if let Some(f) = self.state.units.get_mut(k) {
                f.hidden = None;
                names.push(format!("{} at {:?}", f.name, f.pos));
            }
        }
        if names.is_empty() {
            format!("searches within {squares} and finds no one")
        } else {
            format!("searches within {squares} and finds {}", names.join(", "))
        }
    }

    /// Unit `k` is seen: it struck, or was found.
    pub(super) fn unhide(&mut self, k: usize) {
        if let Some(u) = self.state.units.get_mut(k) {
            u.hidden = None;
        }
    }

    /// A unit for `side` to search for: the nearest enemy it knows is hidden within `squares`
    /// of `at` (without fog a hidden figure stands on the table in plain view, only not to be
    /// targeted; under fog its enemies know nothing of it). What an AI looks for before it
    /// searches.
    pub fn hidden_near(&self, side: m::SideId, at: Tile, squares: i64) -> Option<usize> {
        if self.scenario.fog.is_some() {
            return None;
        }
        (0..self.state.units.len())
            .filter(|k| self.hidden(*k))
            .filter_map(|k| self.state.units.get(k).map(|f| (k, f)))
            .filter(|(_, f)| f.side != side && distance(f.pos, at) <= squares)
            .min_by_key(|(k, f)| (distance(f.pos, at), *k))
            .map(|(k, _)| k)
    }

    /// The action by which unit `i`, standing on `at`, would find an enemy it knows is hidden
    /// (what an AI plays instead of waiting): the first of its actions taking no target that
    /// the rules accept and that finds one. `None` where it knows of no hidden enemy.
    pub fn searching(&self, i: usize, at: Tile) -> Option<Act> {
        let side = self.state.units.get(i)?.side;
        self.hidden_near(side, at, i64::MAX)?;
        let mut here = self.fork(None);
        if let Some(u) = here.state.units.get_mut(i) {
            u.pos = at;
        }
        let count = |b: &Battle<'_>| (0..b.state.units.len()).filter(|k| b.hidden(*k)).count();
        let before = count(&here);
        for a in self.actions(i) {
            let Some(verb) = a.verb().filter(|v| *v == m::Verb::Search) else { continue };
            let mut b = here.fork(None);
            if b.special(i, (verb, Some(a.tag.as_str())), (None, None), None).is_ok() && count(&b) < before {
                return Some(Act::Special { verb, target: None, tile: None, from: Some(a.tag) });
            }
        }
        None
    }

    /// The action by which unit `i`, ending its activation on `at`, would hide there (what an AI
    /// plays instead of waiting), where it plainly helps by the forecast: an enemy can come into
    /// contact with it by its next move (as near as its movement points bring it), and against
    /// the nearest such enemy, come up beside it, the unit's blow from hiding is forecast to deal
    /// more damage than from the open while the enemy's blow on it (none where the rules do not
    /// let it target the unit) deals no more. The first of its actions whose verb hides that
    /// the rules accept there. `None` otherwise.
    pub fn hiding(&self, i: usize, at: Tile) -> Option<Act> {
        let u = self.state.units.get(i)?;
        if u.hidden == Some(at) {
            return None;
        }
        // The nearest enemy coming first: where none comes, its actions are not read.
        let (_, foe) = self.coming(u.side, at, 0, 1).first().copied()?;
        let tags = self.action_tags(i, m::Verb::Hide);
        if tags.is_empty() {
            return None;
        }
        let foe_at = self.state.units.get(foe)?.pos;
        // A copy of the battle with the unit on `at`: made for each way to hide (and once to
        // weigh the open), not kept whole beside them; each copied into the last one's.
        let here = |slot: &mut Option<_>| {
            let c = self.fork_into(slot);
            if let Some(f) = c.state.units.get_mut(i) {
                f.pos = at;
            }
        };
        // Where the enemy would strike from (as if the unit stood on `at`).
        let contact = self.contact_tile_moved(at, (foe, foe_at), None, Some(i))?;
        // The damage it is forecast to deal the enemy there, and the enemy's blow to deal it.
        // Weighed on `b` itself, the enemy moved there and back (no copy of it).
        let odds = |b: &mut Battle<'_>| -> (f64, f64) {
            let Some(was) = b.state.units.get_mut(foe).map(|f| std::mem::replace(&mut f.pos, contact)) else {
                return (0.0, 0.0);
            };
            let mine = b.odds_from(i, at, foe).map_or(0.0, |f| f.defender_damage_taken);
            let theirs = if b.targets_from(foe, contact, None).contains(&i) {
                b.odds_from(foe, contact, i).map_or(0.0, |f| f.defender_damage_taken)
            } else {
                0.0
            };
            if let Some(f) = b.state.units.get_mut(foe) {
                f.pos = was;
            }
            (mine, theirs)
        };
        let mut open: Option<(f64, f64)> = None;
        let (mut slot, mut other, mut found) = (None, None, None);
        for tag in tags {
            here(&mut slot);
            let Some(b) = slot.as_mut() else { break };
            if b.special(i, (m::Verb::Hide, Some(tag.as_str())), (None, None), None).is_err() || !b.hidden(i) {
                continue;
            }
            let (mine, theirs) = match open {
                Some(o) => o,
                None => {
                    here(&mut other);
                    let Some(c) = other.as_mut() else { break };
                    *open.insert(odds(c))
                }
            };
            let (m2, t2) = odds(b);
            if m2 > mine + 1e-9 && t2 <= theirs + 1e-12 {
                found = Some(Act::Special { verb: m::Verb::Hide, target: None, tile: None, from: Some(tag) });
                break;
            }
        }
        Battle::spare(slot);
        Battle::spare(other);
        found
    }

    /// Where unit `foe.0` (standing on `foe.1`) comes up beside a unit on `at`: the open tile
    /// next to `at`, free or its own, other than `taken`, nearest where it stands (tile order on
    /// a tie). What the AIs' forecasts of an enemy coming near assume.
    pub(crate) fn contact_tile(&self, at: Tile, (foe, foe_at): (usize, Tile), taken: Option<Tile>) -> Option<Tile> {
        self.contact_tile_moved(at, (foe, foe_at), taken, None)
    }

    /// [`Battle::contact_tile`] as if unit `moved` stood on `at` (it holds no other tile).
    fn contact_tile_moved(
        &self,
        at: Tile,
        (foe, foe_at): (usize, Tile),
        taken: Option<Tile>,
        moved: Option<usize>,
    ) -> Option<Tile> {
        // The first ready unit on `t` (as `occupant` finds it), the moved one aside.
        let occupant = |t: Tile| {
            self.state.units.iter().enumerate().position(|(k, u)| Some(k) != moved && u.state == State::Ready && u.pos == t)
        };
        neighbours(at)
            .into_iter()
            .filter(|n| Some(*n) != taken && self.open(*n) && occupant(*n).is_none_or(|k| k == foe))
            .min_by_key(|n| (distance(*n, foe_at), *n))
    }

    /// The `n` nearest enemies of `side` (ready, steady, not hidden) that can come into contact
    /// with a unit on `at` by their next move, helped by `closing` tiles of the unit's own:
    /// (distance, unit), nearest first (unit order on a tie). Each enemy's movement points are
    /// read in that order, only until `n` are found. Under fog, only enemies `side` sees: what
    /// an AI weighs (`hiding`, `dividing`) is what its side knows.
    pub(crate) fn coming(&self, side: m::SideId, at: Tile, closing: i64, n: usize) -> Vec<(i64, usize)> {
        let sight = self.sight(side);
        let mut near: Vec<(i64, usize)> = (0..self.state.units.len())
            .filter(|k| !self.hidden(*k))
            .filter_map(|k| {
                let e = self.state.units.get(k).filter(|e| e.side != side && e.state == State::Ready && !e.morale.routing)?;
                sight.spots(k, e.pos).then_some((distance(at, e.pos), k))
            })
            .collect();
        near.sort_unstable();
        let mut out = Vec::new();
        for (d, k) in near {
            if out.len() >= n {
                break;
            }
            if d - closing - self.mobility(k).map_or(0, |m| m.0) <= 1 {
                out.push((d, k));
            }
        }
        out
    }
}
