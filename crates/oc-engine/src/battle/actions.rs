//! Actions: the special actions a unit has, trades, items used and their charges, and the
//! verbs an action or a trigger performs.

use oc_model as m;

use super::effects::{collect_commands, TagUse};
use super::eval::{const_eval, Eval};
use super::{distance, first_verb, Available, Battle, BattleError, State, Tile, Trade};

impl<'e> Battle<'e> {
    /// The special actions a unit has: every `action` of every tag it holds (class, form,
    /// scenario tags, carried items), following `grant`s.
    pub fn actions(&self, i: usize) -> Vec<Available> {
        let mut out = Vec::new();
        self.each_action(i, |action, params, args, source| {
            out.push(Available {
                action: action.clone(),
                params: params.to_vec(),
                args: args.to_vec(),
                source: source.map(str::to_string),
            });
        });
        out
    }

    /// The verb of each of [`Battle::actions`] (`Available::verb`), in the same order, without
    /// copying the actions: what an AI asks of every unit it weighs.
    pub fn action_verbs(&self, i: usize) -> Vec<Option<m::Verb>> {
        let mut out = Vec::new();
        self.each_action(i, |action, _, _, _| out.push(first_verb(&action.effects)));
        out
    }

    /// Calls `f` with each action unit `i` has (its tag's parameter names and arguments, and the
    /// item it comes from), in [`Battle::actions`]' order.
    fn each_action(&self, i: usize, mut f: impl FnMut(&'e m::Action, &[String], &[m::Value], Option<&'e str>)) {
        let Some(u) = self.units.get(i) else { return };
        let engine: &'e crate::Engine = self.engine;
        let uses = self.own_tags(u);
        let mut groups: Vec<(Option<&'e str>, Vec<TagUse>)> = vec![(None, uses)];
        for item in u.items.iter().filter_map(|n| engine.item(n)) {
            // A weapon's actions need it equipped; other items' work from the inventory.
            if item.kind != m::ItemKind::Weapon || u.equipped.as_deref() == Some(item.name.as_str()) {
                groups.push((Some(item.name.as_str()), item.tags.iter().map(|t| (t.tag.to_string(), t.args.clone())).collect()));
            }
        }
        for (source, uses) in groups {
            for (effects, params, args) in self.expand(uses) {
                for e in effects {
                    if let m::Effect::Action(action) = e {
                        f(action, &params, &args, source);
                    }
                }
            }
        }
    }

    /// The distances (least, most) at which unit `i` can take its action with `verb` now, as
    /// [`Battle::turn`] measures them, or `None` when it has no such action.
    pub fn action_reach(&self, i: usize, verb: m::Verb) -> Option<(i64, i64)> {
        let a = self.actions(i).into_iter().find(|a| a.verb() == Some(verb))?;
        let drawn = std::cell::RefCell::new(Vec::new());
        let ctx = Eval {
            battle: self,
            equip: None,
            user: i,
            target: None,
            params: &a.params,
            args: &a.args,
            dice: std::cell::RefCell::new(None),
            drawn: &drawn,
        };
        Some(range_of(&ctx, &a))
    }

    pub(super) fn trade(&mut self, i: usize, t: &Trade) -> Result<(), BattleError> {
        let room = self.engine.rules.ruleset.inventory as usize;
        let (Some(a), Some(b)) = (self.units.get(i).cloned(), self.units.get(t.with).cloned()) else {
            return Err(BattleError("no such unit to trade with".into()));
        };
        if b.side != a.side || b.state != State::Ready || distance(a.pos, b.pos) != 1 || t.with == i {
            return Err(BattleError(format!("{} can only trade with an adjacent ally", a.name)));
        }
        let mut mine = a.items.clone();
        let mut theirs = b.items.clone();
        if let Some(g) = &t.give {
            let k = mine.iter().position(|x| x == g).ok_or_else(|| BattleError(format!("{} does not carry {g}", a.name)))?;
            theirs.push(mine.remove(k));
        }
        if let Some(g) = &t.take {
            let k = theirs.iter().position(|x| x == g).ok_or_else(|| BattleError(format!("{} does not carry {g}", b.name)))?;
            mine.push(theirs.remove(k));
        }
        if mine.len() > room || theirs.len() > room {
            return Err(BattleError(format!("the trade leaves more than {room} items in one inventory")));
        }
        for (k, items) in [(i, mine), (t.with, theirs)] {
            if let Some(f) = self.units.get_mut(k) {
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
        let u = self.units.get(i).cloned().ok_or_else(|| BattleError(format!("no unit {i}")))?;
        if !u.items.iter().any(|x| x == item) {
            return Err(BattleError(format!("{} does not carry {item}", u.name)));
        }
        let it = self.engine.item(item).cloned().ok_or_else(|| BattleError(format!("no item {item}")))?;
        if it.uses.is_empty() {
            return Err(BattleError(format!("{item} has no use of its own")));
        }
        let mut notes = Vec::new();
        for e in &it.uses {
            match e {
                m::Effect::Action(a) => {
                    // The item's own charges are spent once, below.
                    let available = Available { action: a.clone(), params: Vec::new(), args: Vec::new(), source: None };
                    notes.push(self.perform(i, &available, target, tile)?);
                }
                m::Effect::Command { .. } | m::Effect::When { .. } => {
                    // A direct use acts on its user (the compiler allows only `self` here).
                    let drawn = std::cell::RefCell::new(Vec::new());
                    let mut todo = Vec::new();
                    let ctx = Eval {
                        battle: self,
                        equip: None,
                        user: i,
                        target: None,
                        params: &[],
                        args: &[],
                        dice: std::cell::RefCell::new(None),
                        drawn: &drawn,
                    };
                    collect_commands(&ctx, std::slice::from_ref(e), &[], &[], &mut todo);
                    for (verb, cargs, _, _) in todo {
                        let pos = self.units.get(i).map_or((0, 0), |f| f.pos);
                        notes.push(format!("{} {}", u.name, self.command(i, verb, &cargs, None, pos, tile, &[], &[])?));
                    }
                }
                m::Effect::Modify { .. } | m::Effect::On { .. } | m::Effect::Grant { .. } | m::Effect::GrantParam { .. } => {}
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
        let max = self.engine.item(item).and_then(|it| self.charges(it))?;
        let f = self.units.get_mut(i)?;
        let used = match f.spent.iter_mut().find(|(n, _)| n == item) {
            Some(slot) => {
                slot.1 += 1;
                slot.1
            }
            None => {
                f.spent.push((item.to_string(), 1));
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

    /// The uses an item has: the value its tags assign to the `charges` attribute.
    fn charges(&self, item: &m::Item) -> Option<u32> {
        item.tags.iter().find_map(|u| {
            let tag = self.engine.tag(&u.tag)?;
            let params: Vec<String> = tag.params.iter().map(|p| p.name.clone()).collect();
            tag.effects.iter().find_map(|e| match e {
                m::Effect::Modify { place, op: m::AssignOp::Set, value }
                    if place.attribute == m::AttributeRef::Named("charges".into()) =>
                {
                    match const_eval(value, &params, &u.args) {
                        Some(m::Value::Int(n)) => u32::try_from(n).ok(),
                        _ => None,
                    }
                }
                _ => None,
            })
        })
    }

    pub(super) fn special(
        &mut self,
        i: usize,
        verb: m::Verb,
        target: Option<usize>,
        tile: Option<Tile>,
    ) -> Result<String, BattleError> {
        let u = self.units.get(i).cloned().ok_or_else(|| BattleError(format!("no unit {i}")))?;
        let available = self.actions(i);
        let Some(a) = available.into_iter().find(|a| a.verb() == Some(verb)) else {
            return Err(BattleError(format!("{} has no action that can {verb:?}", u.name)));
        };
        self.perform(i, &a, target, tile)
    }

    /// Carries out an action block: checks its target kind, range and requirements, then runs
    /// its commands.
    fn perform(&mut self, i: usize, a: &Available, target: Option<usize>, tile: Option<Tile>) -> Result<String, BattleError> {
        let u = self.units.get(i).cloned().ok_or_else(|| BattleError(format!("no unit {i}")))?;
        let verb = a.verb().unwrap_or(m::Verb::Reveal);
        // Range and target kind.
        let (spot, target_unit) = match a.action.target {
            m::ActionTarget::Tile | m::ActionTarget::Door | m::ActionTarget::Chest => (tile.unwrap_or(u.pos), None),
            m::ActionTarget::SelfOnly => (u.pos, Some(i)),
            _ => {
                let t = target.ok_or_else(|| BattleError(format!("{verb:?} needs a target unit")))?;
                let f = self.units.get(t).ok_or_else(|| BattleError(format!("no unit {t}")))?;
                let ok = match a.action.target {
                    m::ActionTarget::Ally => f.side == u.side && t != i,
                    m::ActionTarget::Enemy => f.side != u.side,
                    _ => true,
                };
                if !ok || f.state != State::Ready {
                    return Err(BattleError(format!("{} cannot target {}", u.name, f.name)));
                }
                if !self.sees(u.side, f.pos) {
                    return Err(BattleError(format!(
                        "{} cannot target {}: its side does not see it (fog of war)",
                        u.name, f.name
                    )));
                }
                (f.pos, Some(t))
            }
        };
        let dist = distance(u.pos, spot);
        let drawn = std::cell::RefCell::new(Vec::new());
        let ctx = Eval {
            battle: self,
            equip: None,
            user: i,
            target: target_unit,
            params: &a.params,
            args: &a.args,
            dice: std::cell::RefCell::new(None),
            drawn: &drawn,
        };
        let (lo, hi) = range_of(&ctx, a);
        if dist < lo || dist > hi {
            return Err(BattleError(format!(
                "{} is {dist} tiles away; {verb:?} reaches {lo}..{hi}",
                if target_unit.is_some() { "the target" } else { "the tile" }
            )));
        }
        for r in &a.action.requires {
            if !ctx.bool(r).unwrap_or(false) {
                return Err(BattleError(format!("{} cannot {verb:?} now: a requirement of the action is not met", u.name)));
            }
        }
        // Its commands, those under a `when` only where the condition holds now.
        let mut todo = Vec::new();
        collect_commands(&ctx, &a.action.effects, &a.params, &a.args, &mut todo);
        let mut notes = Vec::new();
        for (verb, cargs, params, args) in todo {
            notes.push(self.command(i, verb, &cargs, target_unit, spot, tile, &params, &args)?);
        }
        if let Some(note) = a.source.as_deref().and_then(|item| self.spend(i, item)) {
            notes.push(note);
        }
        Ok(format!("{} {}", u.name, notes.join("; ")))
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn command(
        &mut self,
        i: usize,
        verb: m::Verb,
        cargs: &[m::Expr],
        target: Option<usize>,
        spot: Tile,
        dest: Option<Tile>,
        params: &[String],
        args: &[m::Value],
    ) -> Result<String, BattleError> {
        // The unit a command names in its first argument (`self`, `target`).
        let unit_arg = |k: usize| -> Option<usize> {
            match cargs.get(k) {
                Some(m::Expr::Unit(m::UnitRef::Holder | m::UnitRef::Attacker)) => Some(i),
                Some(m::Expr::Unit(_)) => target,
                _ => None,
            }
        };
        // A named unit that is not here (a `foe` with none) is an error, never the user.
        let named = |k: usize| -> Result<Option<usize>, BattleError> {
            match (cargs.get(k), unit_arg(k)) {
                (Some(m::Expr::Unit(r)), None) => Err(BattleError(format!("there is no {r:?} unit here"))),
                (_, who) => Ok(who),
            }
        };
        let side = self.units.get(i).map_or(m::SideId::Attacker, |u| u.side);
        let region_of = |b: &Battle, kind: &str| -> Option<String> {
            b.map
                .regions
                .iter()
                .find(|r| r.kind == kind && r.tiles.contains(&spot) && r.side.is_none_or(|s| s == side))
                .map(|r| r.name.clone())
        };
        let amount = |b: &Battle, k: usize| -> Option<i64> {
            let drawn = std::cell::RefCell::new(Vec::new());
            let ctx = Eval {
                battle: b,
                equip: None,
                user: i,
                target,
                params,
                args,
                dice: std::cell::RefCell::new(None),
                drawn: &drawn,
            };
            cargs.get(k).and_then(|e| ctx.int(e))
        };
        match verb {
            m::Verb::Seize => {
                let region = region_of(self, "seize")
                    .ok_or_else(|| BattleError("seizing is only possible on the scenario's seize tiles".into()))?;
                self.seized = Some((side, region.clone()));
                Ok(format!("seizes {region}"))
            }
            m::Verb::Escape => {
                let region = region_of(self, "escape")
                    .ok_or_else(|| BattleError("escaping is only possible on the scenario's escape tiles".into()))?;
                if let Some(f) = self.units.get_mut(i) {
                    f.state = State::Escaped;
                }
                self.escaped.push((side, region.clone()));
                Ok(format!("escapes through {region}"))
            }
            m::Verb::Raze => {
                let region = region_of(self, "raze")
                    .ok_or_else(|| BattleError("razing is only possible on the scenario's raze tiles".into()))?;
                if self.razed.iter().any(|(_, _, t)| *t == spot) {
                    return Err(BattleError("this tile is already razed".into()));
                }
                let into = cargs.first().and_then(|e| const_eval(e, params, args)).and_then(|v| {
                    if let m::Value::Name { name, .. } = v {
                        Some(name)
                    } else {
                        None
                    }
                });
                if let Some(into) = into {
                    self.set_terrain(spot, into.to_string());
                }
                self.razed.push((side, region.clone(), spot));
                Ok(format!("razes {spot:?} in {region}"))
            }
            m::Verb::Open => {
                let terrain = self.terrain_at(spot).cloned().ok_or_else(|| BattleError("nothing to open there".into()))?;
                let into = terrain
                    .becomes
                    .clone()
                    .filter(|_| !terrain.opened_by.is_empty())
                    .ok_or_else(|| BattleError(format!("{} cannot be opened", terrain.name)))?;
                self.set_terrain(spot, into.clone());
                Ok(format!("opens the {} at {spot:?}: it is {into} now", terrain.name))
            }
            m::Verb::TakeChest => {
                let (at, item) = self
                    .map
                    .chests
                    .iter()
                    .find(|(t, _)| *t == spot)
                    .cloned()
                    .ok_or_else(|| BattleError("there is no chest here".into()))?;
                if !self.opened_chests.insert(at) {
                    return Err(BattleError("the chest is empty".into()));
                }
                let room = self.engine.rules.ruleset.inventory as usize;
                match self.units.get_mut(i) {
                    Some(f) if f.items.len() < room => {
                        f.items.push(item.clone());
                        Ok(format!("takes {item} from the chest"))
                    }
                    _ => {
                        self.opened_chests.remove(&at);
                        Err(BattleError("the inventory is full".into()))
                    }
                }
            }
            m::Verb::Heal => {
                let who = named(0)?.or(target).unwrap_or(i);
                let n = amount(self, 1)
                    .or_else(|| amount(self, 0))
                    .ok_or_else(|| BattleError("the amount to heal could not be worked out from the rules".into()))?
                    .max(0);
                let f = self.units.get_mut(who).ok_or_else(|| BattleError("no target".into()))?;
                let before = f.hp;
                f.hp = f.hp.saturating_add(n).min(f.max_hp);
                Ok(format!("heals {} for {}", f.name, f.hp.saturating_sub(before)))
            }
            m::Verb::Reactivate => {
                let who = target.ok_or_else(|| BattleError("no target".into()))?;
                let f = self.units.get_mut(who).ok_or_else(|| BattleError("no target".into()))?;
                f.activated = false;
                Ok(format!("lets {} act again", f.name))
            }
            m::Verb::Cure => {
                let who = named(0)?.or(target).unwrap_or(i);
                let name = self.units.get(who).ok_or_else(|| BattleError("no target".into()))?.name.clone();
                let gone = self.cure(who);
                Ok(if gone.is_empty() {
                    format!("finds nothing to cure on {name}")
                } else {
                    format!("cures {name} of {}", gone.join(", "))
                })
            }
            m::Verb::Damage => {
                let who = named(0)?.unwrap_or(i);
                let n = amount(self, 1)
                    .ok_or_else(|| BattleError("the damage could not be worked out from the rules".into()))?
                    .max(0);
                let f = self.units.get_mut(who).ok_or_else(|| BattleError("no target".into()))?;
                let was_ready = f.state == State::Ready;
                f.hp = f.hp.saturating_sub(n).max(0);
                if f.hp == 0 {
                    f.state = State::Routed;
                }
                let note = format!("deals {n} damage to {}{}", f.name, if f.hp == 0 { ", routing them" } else { "" });
                // A unit routed by a command's damage (a status's or an item's) gets its `on routed` too.
                if was_ready && self.units.get(who).is_some_and(|f| f.state == State::Routed) {
                    self.run_triggers_against(who, m::Event::Routed, (who != i).then_some(i));
                }
                Ok(note)
            }
            m::Verb::Inflict => {
                let who = named(0)?.or(target).unwrap_or(i);
                let status = cargs.get(1).and_then(|e| const_eval(e, params, args)).and_then(|v| {
                    if let m::Value::Name { name, .. } = v {
                        Some(name)
                    } else {
                        None
                    }
                });
                let status = status.ok_or_else(|| BattleError("inflict names no status".into()))?;
                self.afflict(who, &status);
                Ok(format!("inflicts {status}"))
            }
            m::Verb::Relocate => {
                let who = named(0)?.or(target).ok_or_else(|| BattleError("relocate needs a unit".into()))?;
                let to = dest
                    .filter(|d| Some(*d) != self.units.get(who).map(|f| f.pos))
                    .ok_or_else(|| BattleError("say where to move the target (the action's tile)".into()))?;
                let reach = amount(self, 1)
                    .ok_or_else(|| BattleError("the reach of the move could not be worked out from the rules".into()))?;
                let from = self.units.get(i).map_or(to, |f| f.pos);
                let kind = self.movement_type(who).unwrap_or_default();
                let open = self.terrain_at(to).and_then(|t| t.costs.get(&kind).copied().flatten()).is_some();
                if distance(from, to) > reach || !open || self.occupant(to).is_some() {
                    return Err(BattleError(format!("{to:?} is not a free tile within {reach} of the user")));
                }
                let f = self.units.get_mut(who).ok_or_else(|| BattleError("no target".into()))?;
                f.pos = to;
                Ok(format!("moves {} to {to:?}", f.name))
            }
            // With fog, the user's side sees within X of it until the round ends (fog.rs).
            m::Verb::Reveal => {
                let radius = amount(self, 0).ok_or_else(|| BattleError("how far to reveal could not be worked out".into()))?;
                Ok(self.reveal(i, radius))
            }
            // Seed 001: "a type of Special Action that acts as an attack". An exchange with
            // the target (its counter included) using the user's weapon, the second argument
            // added to the user's `damage_bonus` (the attribute the damage formulas read); the
            // action's own `target ... within` gives the reach.
            m::Verb::Attack => {
                let who = named(0)?.or(target).ok_or_else(|| BattleError("attack needs a target unit".into()))?;
                let bonus = match cargs.get(1) {
                    Some(_) => {
                        amount(self, 1).ok_or_else(|| BattleError("the attack's extra damage could not be worked out".into()))?
                    }
                    None => 0,
                };
                if self.units.get(who).is_none_or(|f| f.side == side || f.state != State::Ready) {
                    return Err(BattleError("an attack needs an enemy in the battle".into()));
                }
                let note = self.exchange_with(i, who, bonus)?;
                Ok(format!("attacks {note}"))
            }
            // Lowers an attribute until the end of the unit's next turn (does not stack).
            m::Verb::Debuff => {
                let who = named(0)?.or(target).unwrap_or(i);
                let ctx_args = (params, args);
                let (attr, shift) = match cargs.get(1).and_then(|e| const_eval(e, ctx_args.0, ctx_args.1)) {
                    Some(m::Value::StatMod { stat, amount }) => (stat, amount),
                    _ => return Err(BattleError("debuff names no stat".into())),
                };
                let before = self.units.get(who).map_or(0, |f| f.debuffs.len());
                self.debuff(who, &attr, shift);
                let name = self.units.get(who).map(|f| f.name.clone()).unwrap_or_default();
                Ok(if self.units.get(who).map_or(0, |f| f.debuffs.len()) > before {
                    format!("lowers {name}'s {attr} by {}", -shift)
                } else {
                    format!("cannot lower {name}'s {attr} again")
                })
            }
            // The action's tile becomes the terrain named (any tile, unlike `raze`'s regions).
            m::Verb::Transform => {
                let into = match cargs.first().and_then(|e| const_eval(e, params, args)) {
                    Some(m::Value::Name { name, .. }) if self.engine.rules.terrain(&name).is_some() => name,
                    _ => return Err(BattleError("transform names no terrain".into())),
                };
                let was = self
                    .terrain_at(spot)
                    .map(|t| t.name.clone())
                    .ok_or_else(|| BattleError(format!("{spot:?} is off the map")))?;
                self.set_terrain(spot, into.to_string());
                Ok(format!("turns the {was} at {spot:?} into {into}"))
            }
            // Standing effects and the shifting rule, never commands run in a battle
            // (`oc_model::conformance::VERBS`: the compiler rejects them in actions and triggers).
            m::Verb::Restrict | m::Verb::MustAttackWeakest | m::Verb::IgnoreItemTags | m::Verb::Shift => {
                Err(BattleError(format!("`{verb:?}` is not something a unit does: it holds while a tag is held")))
            }
        }
    }
}

/// The distances (least, most) an action reaches, its range formulas read in `ctx`: 0 and the
/// least when it writes none.
fn range_of(ctx: &Eval, a: &Available) -> (i64, i64) {
    let lo = a.action.min_range.as_ref().map_or(Some(0), |e| ctx.int(e)).unwrap_or(0);
    let hi = a.action.max_range.as_ref().map_or(Some(lo), |e| ctx.int(e)).unwrap_or(lo);
    (lo, hi)
}
