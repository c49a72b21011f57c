//! Actions: the special actions a unit has, trades, items used and their charges. What their
//! commands do is the one executor's (`exec`, over the battle: `verbs.rs`).

use crate::Atom;
use std::sync::Arc;

use oc_model as m;

use super::scene::{Cast, Drawn, Draws, Scene};
use super::{distance, Battle, BattleError, Rule, State, Tile, Trade};
use crate::dice::rng;
use crate::ir::{ActionIr, Eff, V};

/// An action a unit can take: a tag's action (in the IR) with the tag's arguments, and the item
/// it comes from (its charges are spent when it is used).
#[derive(Clone, Debug)]
pub struct Available {
    pub action: Arc<ActionIr>,
    pub args: Vec<V>,
    pub source: Option<String>,
    /// The tag whose action it is.
    pub tag: Atom,
}

impl Available {
    /// The verb of the action's first command: what the action is known by.
    pub fn verb(&self) -> Option<m::Verb> {
        self.action.verb
    }
}

/// Whether an action attacks an enemy (its verb `attack` or `injure`, aimed at one enemy or all).
pub(super) fn attacks_enemy(a: &ActionIr) -> bool {
    matches!(a.verb, Some(m::Verb::Attack | m::Verb::Injure))
        && matches!(a.target, m::ActionTarget::Enemy | m::ActionTarget::Enemies)
}

impl<'e> Battle<'e> {
    /// The special actions a unit has: every `action` of every tag it holds (class, form,
    /// scenario tags, carried items), following `grant`s.
    pub fn actions(&self, i: usize) -> Vec<Available> {
        let mut out = Vec::new();
        let ir = &self.engine.ir;
        self.each_action(i, |action, args, source, tag| {
            out.push(Available {
                action: action.clone(),
                args: args.to_vec(),
                source: source.map(str::to_string),
                tag: ir.atom(tag),
            });
        });
        out
    }

    /// The verb of each of [`Battle::actions`] (`Available::verb`), in the same order, without
    /// copying the actions: what an AI asks of every unit it weighs.
    pub fn action_verbs(&self, i: usize) -> Vec<Option<m::Verb>> {
        let mut out = Vec::new();
        self.each_action(i, |action, _, _, _| out.push(action.verb));
        out
    }

    /// [`Battle::action_verbs`], and whether any of the actions attacks an enemy (what
    /// [`Battle::attack_actions`] looks for first): one walk over the unit's actions for both.
    pub(crate) fn action_verbs_attacking(&self, i: usize) -> (Vec<Option<m::Verb>>, bool) {
        let (mut out, mut any) = (Vec::new(), false);
        self.each_action(i, |action, _, _, _| {
            out.push(action.verb);
            any |= attacks_enemy(action);
        });
        (out, any)
    }

    /// Calls `f` with each action unit `i` has (its tag's arguments, and the item it comes
    /// from), in [`Battle::actions`]' order.
    pub(super) fn each_action(&self, i: usize, mut f: impl FnMut(&'e Arc<ActionIr>, &[V], Option<&'e str>, u32)) {
        let Some(u) = self.state.units.get(i) else { return };
        let engine: &'e crate::Engine = self.engine;
        let mut own = self.own_tags(u);
        own.extend(self.status_grants(i));
        let mut groups: Vec<(Option<&'e str>, Vec<super::effects::TagUse>)> = vec![(None, own)];
        for item in u.items.iter().filter_map(|n| engine.item(n)) {
            // A weapon's actions need it equipped; other items' work from the inventory.
            if item.kind != m::ItemKind::Weapon || u.equipped.as_deref() == Some(item.name.as_str()) {
                groups.push((Some(item.name.as_str()), self.uses_of(&item.tags)));
            }
        }
        for (source, uses) in groups {
            for h in self.expand(i, uses) {
                for e in h.effects {
                    if let Eff::Action(action) = e {
                        f(action, &h.args, source, h.tag);
                    }
                }
            }
        }
    }

    /// The actions unit `i` may take on itself now that only `gain` resources (a Guard), each
    /// with its tag and what it would add: each amount the mean of 32 draws of a generator of
    /// its own (an estimate for an AI to weigh; taking the action rolls the battle's dice).
    pub fn self_gains(&self, i: usize) -> Vec<(Atom, Vec<(Atom, i64)>)> {
        let mut out = Vec::new();
        let Some(u) = self.state.units.get(i) else { return out };
        let cast = Cast { user: i, other: Some(i), at: Some(u.pos), equip: None, chart: 0 };
        for a in self.actions(i) {
            let gains_only = a.action.effects.iter().all(|e| matches!(e, Eff::Command { verb: m::Verb::Gain, .. }));
            if a.action.target != m::ActionTarget::SelfOnly || a.verb() != Some(m::Verb::Gain) || !gains_only {
                continue;
            }
            let Some(scene) = self.scene(cast, None) else { continue };
            if !a.action.requires.iter().all(|r| scene.holds(r, &a.args)) {
                continue;
            }
            let mut gains: Vec<(Atom, i64)> = Vec::new();
            for e in &a.action.effects {
                let Eff::Command { args, .. } = e else { continue };
                let (Some(resource), Some(amount)) = (args.get(1), args.get(2)) else { continue };
                let mut dice = rng(u64::try_from(i).unwrap_or(0));
                let mut sum = 0;
                let mut name = None;
                for _ in 0..32 {
                    let drawn = Drawn::default();
                    let draws = Draws::new(&mut dice, &drawn);
                    // The same units and stage every draw: the scene made again with its dice.
                    let scene = self.scene_again(scene.parts(), Some(&draws));
                    if let V::Name(n) = scene.value(resource, &a.args) {
                        name = Some(self.engine.ir.atom(n));
                    }
                    sum += scene.value(amount, &a.args).int();
                }
                if let Some(name) = name {
                    gains.push((name, (sum + 16).div_euclid(32)));
                }
            }
            out.push((a.tag, gains));
        }
        out
    }

    /// The units unit `i`, standing on `at`, may use `item` on where its `use` is an action with
    /// `verb` on a unit of its side (`target self_or_ally` or `ally`: seed 002's Item action, "on
    /// yourself or an adjacent ally"): each ready, seen, within the action's reach from `at` and
    /// meeting its requirements, as [`Battle::turn`] checks them. What an AI weighs before it
    /// builds the `Act::Use` naming the unit.
    pub fn item_targets(&self, i: usize, item: &str, at: Tile, verb: m::Verb) -> Vec<usize> {
        let mut out = Vec::new();
        let Some(u) = self.state.units.get(i) else { return out };
        let engine: &'e crate::Engine = self.engine;
        let uses = engine.item_index(item).and_then(|k| engine.ir.item_uses.get(k)).map_or(&[][..], Vec::as_slice);
        for e in uses {
            let Eff::Action(a) = e else { continue };
            let mine = matches!(a.target, m::ActionTarget::SelfOrAlly | m::ActionTarget::Ally);
            if a.verb != Some(verb) || !mine {
                continue;
            }
            let available = Available { action: a.clone(), args: Vec::new(), source: None, tag: Atom::new(item) };
            let Some(scene) = self.scene(Cast { user: i, ..Cast::default() }, None) else { continue };
            let (lo, hi) = range_of(&scene, &available);
            for (k, f) in self.state.units.iter().enumerate() {
                let pos = if k == i { at } else { f.pos };
                let kind = f.side == u.side && (k != i || a.target == m::ActionTarget::SelfOrAlly);
                let d = distance(at, pos);
                if !kind || f.state != State::Ready || d < lo || d > hi || !self.sees(u.side, pos) || out.contains(&k) {
                    continue;
                }
                let cast = Cast { user: i, other: Some(k), at: Some(pos), equip: None, chart: 0 };
                if self.scene(cast, None).is_some_and(|s| a.requires.iter().all(|r| s.holds(r, &[]))) {
                    out.push(k);
                }
            }
        }
        out
    }

    /// The tags of unit `i`'s actions whose verb is `verb`, in the order [`Battle::actions`] lists
    /// them: what an AI tries, one by one, where it weighs taking that verb.
    pub fn action_tags(&self, i: usize, verb: m::Verb) -> Vec<crate::Atom> {
        let (mut out, ir) = (Vec::new(), &self.engine.ir);
        // Walked without copying the actions (their arguments are not read).
        self.each_action(i, |action, _, _, tag| {
            if action.verb == Some(verb) {
                out.push(ir.atom(tag));
            }
        });
        out
    }

    /// The verb and tag of each of [`Battle::actions`], in the same order, without copying the
    /// actions: what an AI that tries each of them by its tag reads.
    pub(crate) fn action_verb_tags(&self, i: usize) -> Vec<(Option<m::Verb>, Atom)> {
        let (mut out, ir) = (Vec::new(), &self.engine.ir);
        self.each_action(i, |action, _, _, tag| out.push((action.verb, ir.atom(tag))));
        out
    }

    /// The distances action `a` (one of [`Battle::actions`] of unit `i`) reaches, as the unit
    /// stands: its own `within`, not the first of its verb's ([`Battle::action_reach`]).
    pub fn reach_of(&self, i: usize, a: &Available) -> Option<(i64, i64)> {
        let scene = self.scene(Cast { user: i, ..Cast::default() }, None)?;
        Some(range_of(&scene, a))
    }

    /// The distances (least, most) at which unit `i` can take its action with `verb` now, as
    /// [`Battle::turn`] measures them, or `None` when it has no such action.
    pub fn action_reach(&self, i: usize, verb: m::Verb) -> Option<(i64, i64)> {
        let a = self.actions(i).into_iter().find(|a| a.verb() == Some(verb))?;
        let scene = self.scene(Cast { user: i, ..Cast::default() }, None)?;
        Some(range_of(&scene, &a))
    }

    pub(super) fn trade(&mut self, i: usize, t: &Trade) -> Result<(), BattleError> {
        let room = self.engine.rules.ruleset.inventory as usize;
        let (Some(a), Some(b)) = (self.state.units.get(i).cloned(), self.state.units.get(t.with).cloned()) else {
            return Err(BattleError::refused(Rule::NoUnit, "no such unit to trade with"));
        };
        if b.side != a.side || b.state != State::Ready || distance(a.pos, b.pos) != 1 || t.with == i {
            return Err(BattleError::refused(Rule::Items, format!("{} can only trade with an adjacent ally", a.name)));
        }
        let mut mine = a.items.clone();
        let mut theirs = b.items.clone();
        if let Some(g) = &t.give {
            let k = mine.iter().position(|x| x == g).ok_or_else(|| BattleError::not_carried(&a.name, g))?;
            theirs.push(mine.remove(k));
        }
        if let Some(g) = &t.take {
            let k = theirs.iter().position(|x| x == g).ok_or_else(|| BattleError::not_carried(&b.name, g))?;
            mine.push(theirs.remove(k));
        }
        if mine.len() > room || theirs.len() > room {
            return Err(BattleError::refused(Rule::Items, format!("the trade leaves more than {room} items in one inventory")));
        }
        for (k, items) in [(i, mine), (t.with, theirs)] {
            if let Some(f) = self.state.units.get_mut(k) {
                if f.equipped.as_ref().is_some_and(|e| !items.contains(e)) {
                    f.equipped = None;
                }
                f.items = items;
            }
        }
        Ok(())
    }

    pub(super) fn use_item(
        &mut self,
        i: usize,
        item: &str,
        target: Option<usize>,
        tile: Option<Tile>,
    ) -> Result<String, BattleError> {
        let u = self.state.units.get(i).cloned().ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        if !u.items.iter().any(|x| x == item) {
            return Err(BattleError::not_carried(&u.name, item));
        }
        let engine: &'e crate::Engine = self.engine;
        let uses = engine.item_index(item).and_then(|k| engine.ir.item_uses.get(k)).map_or(&[][..], Vec::as_slice);
        if uses.is_empty() {
            return Err(BattleError::refused(Rule::Items, format!("{item} has no use of its own")));
        }
        // A use that acts on its user alone (no action of its own that takes a target) takes no
        // other unit: refused, not played on the user with the target written in the log.
        let aims = uses.iter().any(|e| matches!(e, Eff::Action(_)));
        if let Some(other) = target.filter(|t| *t != i && !aims) {
            return Err(BattleError::refused(Rule::Target, format!("{item} acts on its user ({}), not on unit {other}", u.name)));
        }
        let mut notes = Vec::new();
        for e in uses.iter() {
            match e {
                Eff::Action(a) => {
                    // The item's own charges are spent once, below.
                    let available = Available { action: a.clone(), args: Vec::new(), source: None, tag: Atom::new(item) };
                    notes.push(self.perform(i, &available, (target, tile), None)?);
                }
                Eff::Command { .. } | Eff::When { .. } => {
                    // A direct use acts on its user (the compiler allows only `self` here).
                    let drawn = Drawn::default();
                    let mut todo = Vec::new();
                    let mut dice = std::mem::replace(&mut self.state.rng, rng(0));
                    if let Some(scene) = self.scene(Cast { user: i, ..Cast::default() }, Some(&Draws::new(&mut dice, &drawn))) {
                        scene.commands(std::slice::from_ref(e), &[], &mut todo);
                    }
                    self.state.rng = dice;
                    for (verb, cargs) in todo {
                        let pos = self.state.units.get(i).map_or((0, 0), |f| f.pos);
                        let cast = Cast { user: i, other: None, at: Some(pos), equip: None, chart: 0 };
                        notes.push(format!("{} {}", u.name, self.command(cast, tile, verb, cargs, &[], &drawn)?));
                    }
                }
                Eff::Modify { .. } | Eff::On { .. } | Eff::Grant { .. } | Eff::GrantParam(_) => {}
            }
        }
        if let Some(note) = self.spend(i, item) {
            notes.push(note);
        }
        Ok(format!("uses {item}: {}", notes.join("; ")))
    }

    /// One use of an item with charges (the value its tags assign to `charges`): after the
    /// last, the item is gone. Returns a note when it is used up.
    pub(super) fn spend(&mut self, i: usize, item: &str) -> Option<String> {
        let max = self.engine.item(item).and_then(|it| self.charges(i, it))?;
        let f = self.state.units.get_mut(i)?;
        let used = match f.spent.iter_mut().find(|(n, _)| n == item) {
            Some(slot) => {
                slot.1 += 1;
                slot.1
            }
            None => {
                f.spent.push((Atom::new(item), 1));
                1
            }
        };
        if used < max {
            return None;
        }
        if let Some(k) = f.items.iter().position(|x| x == item) {
            f.items.remove(k);
        }
        f.spent.retain(|(n, _)| n != item);
        if f.equipped.as_deref() == Some(item) && !f.items.iter().any(|x| x == item) {
            f.equipped = None;
        }
        Some(format!("the {item} is used up"))
    }

    /// The uses an item has: the value its tags set the `charges` attribute to, unit `i`
    /// carrying it.
    fn charges(&self, i: usize, item: &m::Item) -> Option<u32> {
        let charges = self.engine.ir.attr_id("charges")?;
        // Its tags and what they grant (the compiler lets a grant carry `charges =`).
        self.expand(i, self.uses_of(&item.tags)).into_iter().find_map(|h| {
            h.effects.iter().find_map(|e| match e {
                Eff::Modify { attr: crate::ir::AttrTarget::Index(a), op: m::AssignOp::Set, value, .. } if *a == charges => {
                    let scene = self.scene(Cast { user: i, ..Cast::default() }, None)?;
                    u32::try_from(scene.value(value, &h.args).int()).ok()
                }
                _ => None,
            })
        })
    }

    /// A special action of unit `i`; `paid`: what the step pays toward a charged action (`None`
    /// where steps are not paid for).
    pub(super) fn special(
        &mut self,
        i: usize,
        (verb, from): (m::Verb, Option<&str>),
        (target, tile): (Option<usize>, Option<Tile>),
        paid: Option<i64>,
    ) -> Result<String, BattleError> {
        let available = self.actions(i);
        self.special_among(i, &available, (verb, from), (target, tile), paid)
    }

    /// [`Battle::special`] with unit `i`'s actions as [`Battle::actions`] gives them now
    /// (`available`): a caller that tries each of them on copies of one battle lists them once.
    pub(super) fn special_among(
        &mut self,
        i: usize,
        available: &[Available],
        (verb, from): (m::Verb, Option<&str>),
        (target, tile): (Option<usize>, Option<Tile>),
        paid: Option<i64>,
    ) -> Result<String, BattleError> {
        let u = self.state.units.get(i).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        let Some(a) = available.iter().find(|a| a.verb() == Some(verb) && from.is_none_or(|t| *a.tag == *t)) else {
            let of = from.map(|t| format!(" of {t}")).unwrap_or_default();
            return Err(BattleError::refused(Rule::Requirement, format!("{} has no action{of} that can {verb:?}", u.name)));
        };
        if a.action.target == m::ActionTarget::Enemies {
            return self.perform_on_each(i, a, paid);
        }
        self.perform(i, a, (target, tile), paid)
    }

    /// An action on every enemy within reach (`target enemies`), nearest first: its
    /// requirements and commands with each as `target` in turn (seed 002: "a technique ... that
    /// deals damage to multiple enemies").
    fn perform_on_each(&mut self, i: usize, a: &Available, paid: Option<i64>) -> Result<String, BattleError> {
        let u = self.state.units.get(i).cloned().ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        let (lo, hi) = match self.scene(Cast { user: i, ..Cast::default() }, None) {
            Some(scene) => range_of(&scene, a),
            None => return Err(BattleError::refused(Rule::Turn, format!("{} cannot act now", u.name))),
        };
        let mut foes: Vec<(i64, usize)> = self
            .state
            .units
            .iter()
            .enumerate()
            .filter(|(k, f)| f.side != u.side && f.state == State::Ready && self.spots(u.side, *k))
            .map(|(k, f)| (distance(u.pos, f.pos), k))
            .filter(|(d, _)| (lo..=hi).contains(d))
            .collect();
        foes.sort_unstable();
        if foes.is_empty() {
            return Err(BattleError::refused(Rule::Target, format!("{} has no enemy within {lo}..{hi}", u.name)));
        }
        let mut notes = Vec::new();
        if a.action.charge.is_some() {
            if let Some(note) = self.charge_up(i, a, paid)? {
                return Ok(format!("{} {note}", u.name));
            }
            notes.push(format!("casts {}:", a.tag));
        }
        let mut struck = Vec::new();
        for (_, k) in foes {
            if self.state.units.get(i).is_none_or(|f| f.state != State::Ready) {
                break;
            }
            if self.state.units.get(k).is_some_and(|f| f.state == State::Ready) {
                let note = self.perform(i, a, (Some(k), None), None)?;
                struck.push(note.strip_prefix(&format!("{} ", u.name)).map_or(note.clone(), str::to_string));
            }
        }
        notes.push(struck.join("; "));
        Ok(format!("{} {}", u.name, notes.join(" ")))
    }

    /// Carries out an action block: checks its target kind, range and requirements, then runs
    /// its commands (a charged action's once its charge is complete).
    fn perform(
        &mut self,
        i: usize,
        a: &Available,
        (target, tile): (Option<usize>, Option<Tile>),
        paid: Option<i64>,
    ) -> Result<String, BattleError> {
        let u = self.state.units.get(i).cloned().ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {i}")))?;
        // Range and target kind.
        let (spot, target_unit) = match a.action.target {
            m::ActionTarget::Tile | m::ActionTarget::Door | m::ActionTarget::Chest => (tile.unwrap_or(u.pos), None),
            m::ActionTarget::SelfOnly => (u.pos, Some(i)),
            _ => {
                // `self_or_ally` without a unit named: the user itself.
                let target = target.or((a.action.target == m::ActionTarget::SelfOrAlly).then_some(i));
                let t = target.ok_or_else(|| BattleError::refused(Rule::Target, format!("{} needs a target unit", a.tag)))?;
                let f = self.state.units.get(t).ok_or_else(|| BattleError::refused(Rule::NoUnit, format!("no unit {t}")))?;
                let ok = match a.action.target {
                    m::ActionTarget::Ally => f.side == u.side && t != i,
                    // Seed 002's Item action: "on yourself or an adjacent ally" (the reach says how near).
                    m::ActionTarget::SelfOrAlly => f.side == u.side,
                    m::ActionTarget::Enemy | m::ActionTarget::Enemies => f.side != u.side,
                    _ => true,
                };
                if !ok || f.state != State::Ready {
                    return Err(BattleError::refused(Rule::Target, format!("{} cannot target {}", u.name, f.name)));
                }
                if !self.sees(u.side, f.pos) {
                    return Err(BattleError::refused(
                        Rule::Target,
                        format!("{} cannot target {}: its side does not see it (fog of war)", u.name, f.name),
                    ));
                }
                if f.side != u.side && self.hidden(t) {
                    return Err(BattleError::refused(
                        Rule::Target,
                        format!("{} cannot target {}: it is hidden (a search may find it)", u.name, f.name),
                    ));
                }
                (f.pos, Some(t))
            }
        };
        let cast = Cast { user: i, other: target_unit, at: Some(spot), equip: None, chart: 0 };
        let dist = distance(u.pos, spot);
        let drawn = Drawn::default();
        let mut todo = Vec::new();
        // The scene the checks read, kept for the commands' (with the dice) where nothing
        // changes between: an action that does not charge.
        let charged = a.action.charge.is_some() && a.action.target != m::ActionTarget::Enemies;
        let kept = {
            let scene =
                self.scene(cast, None).ok_or_else(|| BattleError::refused(Rule::Turn, format!("{} cannot act now", u.name)))?;
            let (lo, hi) = range_of(&scene, a);
            if dist < lo || dist > hi {
                return Err(BattleError::refused(
                    Rule::Target,
                    format!(
                        "{} is {dist} tiles away; {} reaches {lo}..{hi}",
                        if target_unit.is_some() { "the target" } else { "the tile" },
                        a.tag
                    ),
                ));
            }
            if !a.action.requires.iter().all(|r| scene.holds(r, &a.args)) {
                return Err(BattleError::refused(
                    Rule::Requirement,
                    format!("{} cannot take {} now: a requirement of the action is not met", u.name, a.tag),
                ));
            }
            (!charged).then(|| scene.parts())
        };
        // A charged action's step that does not complete the charge does nothing more.
        let mut notes = Vec::new();
        if charged {
            if let Some(note) = self.charge_up(i, a, paid)? {
                return Ok(format!("{} {note}", u.name));
            }
            notes.push(format!("casts {}:", a.tag));
        }
        // Its commands, those under a `when` only where the condition holds now.
        let mut dice = std::mem::replace(&mut self.state.rng, rng(0));
        {
            let draws = Draws::new(&mut dice, &drawn);
            let scene = match kept {
                Some(parts) => Some(self.scene_again(parts, Some(&draws))),
                None => self.scene(cast, Some(&draws)),
            };
            if let Some(scene) = scene {
                scene.commands(&a.action.effects, &a.args, &mut todo);
            }
        }
        self.state.rng = dice;
        let mut done = Vec::new();
        for (verb, cargs) in todo {
            done.push(self.command(cast, tile, verb, cargs, &a.args, &drawn)?);
        }
        if let Some(note) = a.source.as_deref().and_then(|item| self.spend(i, item)) {
            done.push(note);
        }
        notes.push(done.join("; "));
        Ok(format!("{} {}", u.name, notes.join(" ")))
    }
}

/// The distances (least, most) an action reaches, its range formulas read in `scene`: the one
/// bound written both (`within N`), 0 when it writes none.
pub(super) fn range_of(scene: &Scene, a: &Available) -> (i64, i64) {
    // `within N` alone is `N..N` (docs/dsl.md, and the compiler's `oc::action::reach` reads it
    // so): the one bound written is the least too. (It read `0..N`: a unit 0 tiles off, itself,
    // was in reach of `target unit within 1`.)
    let hi = a.action.max_range.as_ref().map(|e| scene.value(e, &a.args).int());
    let lo = a.action.min_range.as_ref().map(|e| scene.value(e, &a.args).int()).or(hi).unwrap_or(0);
    (lo, hi.unwrap_or(lo))
}
