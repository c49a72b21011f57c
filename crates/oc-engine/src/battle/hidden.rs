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

use super::{distance, Act, Battle, State, Tile};

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
}
