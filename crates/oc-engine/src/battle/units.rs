//! Units made and unmade in battle (seed 003: "Figures are formed into Units of one or more
//! figures. Players are free to organize their units as they please"; the Actions "divide up
//! (split the unit)" and "join another unit"): the verbs `divide` and `join`, and mixed units.
//!
//! A mixed unit is a unit (the host) with bodies of other classes or arms joined to it
//! (`State::Joined`, `Combatant::with`): it moves, activates and is counted as one; each body
//! keeps its own figures, stats and weapon. When the unit attacks, its own figures strike
//! first, then each body in unit order, each in an exchange of its own (so each is forecast
//! exactly). Blows on the unit fall on the host's own figures; once they have all fallen, its
//! first body carries on as the unit, where it stands (the reading of "the spearmen (plus my
//! leader)": the leader is the last of the unit to fall).

use oc_model as m;

use super::{distance, neighbours, Act, Battle, State, Tile};

impl Battle<'_> {
    /// The living bodies joined to unit `i` (a mixed unit's other classes), in unit order.
    pub fn bodies(&self, i: usize) -> Vec<usize> {
        (0..self.state.units.len()).filter(|k| self.state.units.get(*k).is_some_and(|b| b.body_of(i))).collect()
    }

    /// Whether unit `i` has a living body joined to it ([`Battle::bodies`], no list made).
    pub(super) fn has_body(&self, i: usize) -> bool {
        self.state.units.iter().any(|b| b.body_of(i))
    }

    /// The `divide` verb: `n` of unit `i`'s living figures leave it as a new unit of their own,
    /// at full strength, on `dest` (the action's tile) or else the first free tile next to it
    /// that its movement type may enter. The new unit has activated this round (it was part of
    /// the unit that did) and keeps the unit's arms, statuses and courage; the bodies of a
    /// mixed unit stay with the unit. What the log says, or why not.
    pub(super) fn divide(&mut self, i: usize, n: i64, dest: Option<Tile>) -> Result<String, String> {
        let u = self.state.units.get(i).cloned().ok_or("no unit")?;
        let living = u.living();
        if n < 1 || n >= living {
            return Err(format!("{} has {living} living figures: it cannot divide off {n} and keep any", u.name));
        }
        let kind = self.movement_type(i).unwrap_or_default();
        let free = |t: Tile| distance(t, u.pos) == 1 && self.occupant(t).is_none() && self.enters(&kind, t);
        let to = match dest.filter(|t| *t != u.pos) {
            Some(t) if free(t) => t,
            Some(t) => return Err(format!("{t:?} is not a free tile next to {}", u.name)),
            None => neighbours(u.pos)
                .into_iter()
                .find(|t| free(*t))
                .ok_or_else(|| format!("{} has no free tile beside it", u.name))?,
        };
        let each = (u.max_hp / i64::from(u.figures.max(1))).max(1);
        let figures = u32::try_from(n).map_err(|_| "too many figures".to_string())?;
        let mut name = format!("{} 2", u.name);
        for k in 3.. {
            if !self.state.units.iter().any(|f| f.name == name) {
                break;
            }
            name = format!("{} {k}", u.name);
        }
        let mut part = u.clone();
        part.name = name;
        part.pos = to;
        part.figures = figures;
        part.hp = n * each;
        part.max_hp = n * each;
        part.activated = true;
        part.with = None;
        part.parent = Some(i);
        part.charging = None;
        if let Some(f) = self.state.units.get_mut(i) {
            f.figures = f.figures.saturating_sub(figures).max(1);
            f.hp -= n * each;
            f.max_hp -= n * each;
        }
        let shown = part.shown();
        self.state.units.push(part);
        let left = self.state.units.get(i).map(|f| f.shown()).unwrap_or_default();
        Ok(format!("divides: {shown} forms at {to:?}, {left} stays"))
    }

    /// The `join` verb: unit `i` joins the friendly unit `k` (next to it, as the action's reach
    /// says) and is one unit with it from then on. Its figures are added to those of `k`, or of
    /// a body of `k`, of its class and arms (the same class, weapon and items); otherwise it is
    /// joined to `k` as a body of its own (a mixed unit). The bodies of `i` join `k` likewise.
    pub(super) fn join(&mut self, i: usize, k: usize) -> Result<String, String> {
        let (Some(u), Some(host)) = (self.state.units.get(i).cloned(), self.state.units.get(k).cloned()) else {
            return Err("no unit".into());
        };
        if i == k || u.side != host.side || host.state != State::Ready || host.morale.routing || u.morale.routing {
            return Err(format!("{} cannot join {}: only a steady friendly unit of the battle may be joined", u.name, host.name));
        }
        let mut notes = Vec::new();
        for j in std::iter::once(i).chain(self.bodies(i)) {
            notes.push(self.absorb(k, j));
        }
        let shown = self.state.units.get(k).map(|f| f.shown()).unwrap_or_default();
        let bodies: Vec<String> = self.bodies(k).iter().filter_map(|b| self.state.units.get(*b)).map(|b| b.shown()).collect();
        let with = if bodies.is_empty() { String::new() } else { format!(", with {}", bodies.join(", ")) };
        Ok(format!("joins {}: {}; {shown}{with}", host.name, notes.join("; ")))
    }

    /// Unit `j` made part of unit `k`: its figures added to `k`'s or a body's of its class and
    /// arms, or `j` joined to `k` as a body. What the log says.
    pub(super) fn absorb(&mut self, k: usize, j: usize) -> String {
        let Some(u) = self.state.units.get(j).cloned() else { return String::new() };
        let same = |f: &super::Combatant| f.class == u.class && f.equipped == u.equipped && f.items == u.items;
        let into = std::iter::once(k).chain(self.bodies(k)).find(|m| *m != j && self.state.units.get(*m).is_some_and(same));
        let pos = self.state.units.get(k).map_or(u.pos, |f| f.pos);
        if let Some(f) = self.state.units.get_mut(j) {
            f.state = State::Joined;
            f.with = None;
            f.pos = pos;
        }
        match into.and_then(|m| self.state.units.get_mut(m)) {
            Some(m) => {
                m.figures = m.figures.saturating_add(u.figures.max(1));
                m.hp += u.hp;
                m.max_hp += u.max_hp;
                format!("its figures join {}", m.name)
            }
            None => {
                if let Some(f) = self.state.units.get_mut(j) {
                    f.with = Some(k);
                }
                format!("{} fights on in it as a body of its own", u.shown())
            }
        }
    }

    /// Unit `k`, ready, has lost its last figure: where it has a living body, that body carries
    /// on as the unit where it stands (its activation and courage the unit's) and `k` is joined
    /// to it, gone; `true`. Otherwise `k` is routed; `false`.
    pub(super) fn fall(&mut self, k: usize) -> bool {
        let bodies = self.bodies(k);
        let Some((&first, rest)) = bodies.split_first() else {
            if let Some(f) = self.state.units.get_mut(k) {
                f.state = State::Routed;
            }
            return false;
        };
        let Some(host) = self.state.units.get(k).cloned() else { return false };
        if let Some(f) = self.state.units.get_mut(first) {
            f.state = State::Ready;
            f.with = None;
            f.pos = host.pos;
            f.activated = host.activated;
            f.morale = host.morale;
        }
        for b in rest {
            if let Some(f) = self.state.units.get_mut(*b) {
                f.with = Some(first);
            }
        }
        for b in self.bodies(k) {
            if let Some(f) = self.state.units.get_mut(b) {
                f.with = None;
            }
        }
        if let Some(f) = self.state.units.get_mut(k) {
            f.state = State::Joined;
        }
        true
    }

    /// Unit `i` has made its attack on `target`: each of its bodies that can strike `target`
    /// from where the unit stands makes its own, in unit order (each figure fights with its own
    /// stats and weapon), while the target stands. The log's notes ("Fenth attacks ...").
    pub(super) fn bodies_strike(&mut self, i: usize, target: usize, moved: bool) -> Vec<String> {
        let mut notes = Vec::new();
        for b in self.bodies(i) {
            // The unit's figures and the target still stand (a fallen one is routed as the turn ends).
            let Some((pos, activated)) = self.state.units.get(i).filter(|f| f.stands()).map(|f| (f.pos, f.activated)) else {
                break;
            };
            if !self.state.units.get(target).is_some_and(|f| f.stands()) {
                break;
            }
            if let Some(f) = self.state.units.get_mut(b) {
                f.pos = pos;
                f.activated = activated;
            }
            if self.attack_check(b, target).is_err() {
                continue;
            }
            let name = self.state.units.get(b).map(|f| f.shown()).unwrap_or_default();
            match self.exchange_full(b, target, super::attack::Blow { moved, ..Default::default() }) {
                Ok(note) => notes.push(format!("{name} attacks {note}")),
                Err(e) => notes.push(format!("{name} cannot attack: {e}")),
            }
        }
        notes
    }

    /// The action by which unit `i`, depleted (half its figures or fewer left), would join a
    /// steady friendly unit next to it of its class and arms (what the AIs play instead of
    /// waiting where it stands): the first such unit, in unit order, that the rules let it
    /// join. `None` otherwise.
    pub fn joining(&self, i: usize) -> Option<Act> {
        let u = self.state.units.get(i)?;
        if u.figures < 2 || u.living() * 2 > i64::from(u.figures) || self.has_body(i) {
            return None;
        }
        let tags = self.action_tags(i, m::Verb::Join);
        if tags.is_empty() {
            return None;
        }
        let fits = |f: &super::Combatant| {
            f.side == u.side
                && f.state == State::Ready
                && !f.morale.routing
                && distance(f.pos, u.pos) == 1
                && (f.class, f.equipped, &f.items) == (u.class, u.equipped, &u.items)
        };
        for k in (0..self.state.units.len()).filter(|k| *k != i && self.state.units.get(*k).is_some_and(fits)) {
            for tag in &tags {
                let mut b = self.fork(None);
                if b.special(i, (m::Verb::Join, Some(tag.as_str())), (Some(k), None), None).is_ok() {
                    return Some(Act::Special { verb: m::Verb::Join, target: Some(k), tile: None, from: Some(*tag) });
                }
            }
        }
        None
    }

    /// The action by which unit `i`, of several living figures and ending its activation on
    /// `at`, would divide up (what the AIs play instead of waiting), where it plainly helps by
    /// the forecast: two enemies are within a round of it (its move and theirs together bring
    /// them into contact), the whole unit's blow on the nearer is more than it can take (the
    /// forecast routs it more often than not), and the two halves, each striking one of them,
    /// are forecast to deal more damage, less what they take, than the whole on the nearer; and
    /// its enemy does not win by routing a count of units (each half is one). The first of its
    /// actions whose verb divides that the rules accept there. `None` otherwise.
    pub fn dividing(&self, i: usize, at: Tile) -> Option<Act> {
        let u = self.state.units.get(i)?;
        if u.living() < 2 || u.morale.routing {
            return None;
        }
        // Each half is a unit: one more for an enemy that wins by routing a count of them (`rout
        // N`), which a division brings nearer.
        fn counts(c: &m::Condition) -> bool {
            match c {
                m::Condition::RoutCount { .. } => true,
                m::Condition::And(a, b) | m::Condition::Or(a, b) => counts(a) || counts(b),
                _ => false,
            }
        }
        if self.scenario.side(u.side.other()).win.as_ref().is_some_and(counts) {
            return None;
        }
        let tags = self.action_tags(i, m::Verb::Divide);
        if tags.is_empty() {
            return None;
        }
        let own = self.mobility(i).map_or(0, |m| m.0);
        let near = self.coming(u.side, at, own, 2);
        let (Some((_, first)), Some((_, second))) = (near.first().copied(), near.get(1).copied()) else { return None };
        // A copy of the battle with the unit on `at`: one to weigh it whole, one for each way to
        // divide (each copied into the last one's, its units' lists reused).
        let here = |slot: &mut Option<_>| {
            let c = self.fork_into(slot);
            if let Some(f) = c.state.units.get_mut(i) {
                f.pos = at;
            }
        };
        // Enemy `k` come up beside unit `j` (on the free tile nearest it, not `taken`), and the
        // forecast of `j` striking it there: damage dealt less damage taken, and the rout chance.
        let blow = |b: &mut Battle<'_>, j: usize, k: usize, taken: Option<Tile>| -> Option<(f64, f64, Tile)> {
            let (from, foe_at) = (b.state.units.get(j)?.pos, b.state.units.get(k)?.pos);
            let contact = b.contact_tile(from, (k, foe_at), taken)?;
            if let Some(f) = b.state.units.get_mut(k) {
                f.pos = contact;
            }
            let f = b.odds_from(j, from, k)?;
            Some((f.defender_damage_taken - f.attacker_damage_taken, f.defender_routed, contact))
        };
        let mut slot = None;
        here(&mut slot);
        let whole = slot.as_mut().and_then(|b| blow(b, i, first, None));
        let found = 'found: {
            let Some((whole, routs, _)) = whole else { break 'found None };
            if routs <= 0.5 {
                break 'found None;
            }
            for tag in tags {
                here(&mut slot);
                let Some(b) = slot.as_mut() else { break };
                let before = b.state.units.len();
                if b.special(i, (m::Verb::Divide, Some(tag.as_str())), (None, None), None).is_err()
                    || b.state.units.len() <= before
                {
                    continue;
                }
                let part = b.state.units.len() - 1;
                let Some((one, _, beside)) = blow(b, i, first, None) else { continue };
                let Some((two, _, _)) = blow(b, part, second, Some(beside)) else { continue };
                if one + two > whole + 1e-9 {
                    break 'found Some(Act::Special { verb: m::Verb::Divide, target: None, tile: None, from: Some(tag) });
                }
            }
            None
        };
        Battle::spare(slot);
        found
    }
}
