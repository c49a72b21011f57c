//! What a unit brings to its turn (`Unit`, worked out once per decision) and what it could
//! strike next time from about where it stands (`prey`).

use oc_model as m;

use super::super::threat::loss;
use super::super::{Decision, EPS};
use super::{Reach, Unit, Weapons};
use crate::ai::forecasts::Forecasts;
use crate::battle::{distance, Combatant, Tile};
use crate::{Atom, Loadout};

impl<'v, 'e> Decision<'v, 'e> {
    /// What unit `i` brings to this decision.
    /// `acting`: its acting loadout, the unit built from it and its mobility.
    pub(super) fn unit(
        &mut self,
        i: usize,
        u: &'v Combatant,
        (acting, acting_unit, (points, kind, _)): (&Loadout, &crate::unit::Unit, crate::battle::Mobility),
        (has, reach): (&dyn Fn(m::Verb) -> bool, &Reach),
        cache: &mut Forecasts,
    ) -> Option<Unit<'v>> {
        let b = self.battle();
        let ir = &b.engine.ir;
        let can_attack = ir.attr_id("can_attack").and_then(|a| acting_unit.attrs.get(a as usize)).is_none_or(|v| v.bool());
        // Its weapons: kept from one decision to the next while its loadout as it acts and its
        // items are the same (what they are read from).
        if self.kept_weapons.len() <= i {
            self.kept_weapons.resize_with(i + 1, || None);
        }
        let kept = self.kept_weapons.get(i).and_then(Option::as_ref);
        let weapons = match kept.filter(|(l, items, _)| l == acting && *items == u.items) {
            Some((.., weapons)) => weapons.clone(),
            None => {
                let mut weapons = Vec::new();
                for w in u.items.iter().filter(|n| b.engine.item(n).is_some_and(|it| it.kind == m::ItemKind::Weapon)) {
                    if weapons.iter().any(|(x, _, _): &(Atom, i64, i64)| x == w) {
                        continue;
                    }
                    let mut l = acting.clone();
                    l.weapon = Some(*w);
                    if let Ok(x) = b.engine.unit(&l, &[]) {
                        if x.may_use_weapon() {
                            weapons.push((*w, x.min_range, x.max_range));
                        }
                    }
                }
                if let Some(slot) = self.kept_weapons.get_mut(i) {
                    *slot = Some((acting.clone(), u.items.clone(), weapons.clone()));
                }
                weapons
            }
        };
        let takes_objective = [m::Verb::Seize, m::Verb::Escape, m::Verb::Raze].into_iter().any(has);
        // Held on the enemy's turn: the weapon that leaves the least danger where it stands.
        let mut guard = u.equipped;
        if weapons.len() > 1 {
            let mut least = self.danger(i, u.pos, guard, u.hp, None, cache);
            for (w, _, _) in weapons.clone() {
                let d = self.danger(i, u.pos, Some(w), u.hp, None, cache);
                if d < least - EPS {
                    least = d;
                    guard = Some(w);
                }
            }
        }
        let mut zones = Vec::new();
        if self.threat_zones {
            let here = self.target(i, u.equipped, u.pos, cache);
            // The zones of the enemies the side sees (under fog the threats hold others too,
            // where the side knows them: where their zones lie is not known).
            let spotted = |k: usize| b.units.get(k).is_some_and(|e| self.view.sight.spots(k, e.pos));
            for foe in self.threats.foes.iter().filter(|f| spotted(f.unit)) {
                let zone = b.threatened_by(foe.unit);
                if !zone.contains(&u.pos) {
                    continue;
                }
                let (Some(mut la), Some((ld, id))) = (b.loadout_of(foe.unit, true), here.as_ref()) else {
                    continue;
                };
                // Struck with the weapon it would strike one with; none: no free attack.
                let Some(weapon) = b.free_attack_weapon(foe.unit, i) else { continue };
                la.weapon = Some(weapon);
                la.hp = None;
                let ia = cache.id(&la);
                // A free attack is a melee attack, struck in contact.
                let cost = cache.get(b.engine, (&la, ia), (&**ld, *id), 1, (true, false, 0)).map_or(0.0, |x| {
                    let (routed, damage) = x.against(u.hp);
                    loss(self.worth(i), u.max_hp, damage, routed)
                });
                zones.push((zone, cost));
            }
        }
        let vision = b.vision(i);
        let (mut heal, mut heal_with) = (if has(m::Verb::Heal) { b.action_reach(i, m::Verb::Heal) } else { None }, None);
        if heal.is_none() {
            heal_with = u
                .items
                .iter()
                .find(|n| {
                    b.engine.item(n).is_some_and(|it| {
                        it.kind == m::ItemKind::Weapon && it.tags.iter().any(|t| b.grants_verb(&t.tag, m::Verb::Heal))
                    })
                })
                .cloned();
            heal = heal_with.as_ref().map(|_| (1, 1));
        }
        // Whom it may heal, and what each heal is worth, wherever it heals from.
        let mut hurt = Vec::new();
        if heal.is_some() {
            for (k, ally) in self.view.units() {
                let missing = ally.max_hp.saturating_sub(ally.hp);
                if k == i || ally.side != self.side || missing <= 0 {
                    continue;
                }
                let healed = missing.min((ally.max_hp + 2) / 3).max(1);
                hurt.push((k, ally.pos, 1.5 * loss(self.worth(k), ally.max_hp, healed as f64, 0.0)));
            }
        }
        // Its own healing item, when badly hurt.
        let mut self_heal = None;
        if u.hp.saturating_mul(2) <= u.max_hp {
            let heals = |item: &&Atom| {
                b.engine
                    .item(item)
                    .is_some_and(|it| it.uses.iter().any(|e| matches!(e, m::Effect::Command { verb: m::Verb::Heal, .. })))
            };
            if let Some(item) = u.items.iter().find(heals) {
                let healed = u.max_hp.saturating_sub(u.hp).min((u.max_hp + 2) / 3).max(1);
                self_heal = Some((*item, 1.5 * loss(self.worth(i), u.max_hp, healed as f64, 0.0), (u.hp + healed).min(u.max_hp)));
            }
        }
        // What it could strike next time, from about here.
        let span = points + weapons.iter().map(|(_, _, hi)| *hi).max().unwrap_or(0);
        let prey = if can_attack { self.prey(i, u, acting, (&weapons, points, span, reach), cache) } else { Vec::new() };
        let mut race = Vec::new();
        // Where a turn ends the unit's activation (not a step of one paid for), a tile it moves
        // to is an activation nearer the deadline: from there it has the activations after this
        // one (a step onto the objective is weighed apart, `Decision::position`). Read with this
        // one's too, a tile one move from the objective in the last round before the deadline
        // counted as a sure taking.
        let steps = b.engine.rules.ruleset.turn.spend.is_some();
        for t in self.stakes.takers.iter().filter(|t| t.unit == i) {
            let Some(o) = self.stakes.objectives.get(t.objective) else { continue };
            // (To the tiles still to take: not one razed already.)
            let guide = self.walks.guide(b, &kind, &super::super::race::open_tiles(b, o));
            // The chance from where it stands, as `Decision::position` reads it for each tile.
            let from = super::super::race::chance_from(&guide, u.pos, points, t.left);
            race.push((guide, t.share, super::super::race::left_after_turn(t.left, steps), from));
        }
        let guides = self.guides(&kind);
        let from = match guides.as_deref() {
            Some(g) => {
                [g.enemy.at(u.pos), g.goal.as_deref().and_then(|x| x.at(u.pos)), g.region.as_deref().and_then(|x| x.at(u.pos))]
            }
            None => [None; 3],
        };
        let bounds = super::bounds(reach);
        let cover = self
            .cover
            .iter()
            .filter(|(k, at, _)| *k != i && super::span_of(bounds, *at).0 <= 1)
            .map(|(_, at, per_tile)| (*at, *per_tile))
            .collect();
        let mut healing: Vec<Atom> = u.items.clone();
        healing.dedup();
        healing.retain(|item| {
            let uses = b.engine.item_index(item).and_then(|k| b.engine.ir.item_uses.get(k)).map_or(&[][..], Vec::as_slice);
            uses.iter().any(|e| {
                matches!(e, crate::ir::Eff::Action(a) if a.verb == Some(m::Verb::Heal)
                    && matches!(a.target, m::ActionTarget::SelfOrAlly | m::ActionTarget::Ally))
            })
        });
        Some(Unit {
            i,
            u,
            points,
            weapons,
            can_attack,
            takes_objective,
            guard,
            zones,
            vision,
            heal,
            heal_with,
            hurt,
            self_heal,
            prey,
            span,
            race,
            guides,
            from,
            cover,
            healing,
        })
    }

    /// The enemies unit `i` (`u`, acting with loadout `acting`, its `weapons` and movement
    /// `points`) could strike next activation from about where it stands, each with what its
    /// best strike is worth: (tile, value), most worth first. Only those within striking distance (`span`: its
    /// movement points and longest reach, `Unit::span`) of a tile of its `reach`: the only tiles
    /// `Decision::position` reads them from.
    pub(super) fn prey(
        &mut self,
        i: usize,
        u: &Combatant,
        acting: &Loadout,
        (weapons, points, span, reach): (&Weapons, i64, i64, &Reach),
        cache: &mut Forecasts,
    ) -> Vec<(Tile, f64)> {
        let b = self.battle();
        let mut prey = Vec::new();
        {
            // Both at full HP, read at the HP they have: the forecasts outlast the wounds.
            let mut la = acting.clone();
            la.hp = None;
            la.terrain = None;
            // With each weapon, interned once, and the distance it strikes from: kept from one
            // decision to the next by the loadout and weapons they are built from.
            if self.prey_arms.len() <= i {
                self.prey_arms.resize_with(i + 1, Vec::new);
            }
            let kept = self.prey_arms.get_mut(i).and_then(|by| {
                let k = by.iter().position(|(l, w, _)| *l == la && w.as_slice() == weapons)?;
                by.get(k).map(|(_, _, arms)| arms.clone())
            });
            let arms = match kept {
                Some(arms) => arms,
                None => {
                    let base = la.clone();
                    let arms: std::sync::Arc<[(Loadout, u32, i64)]> = weapons
                        .iter()
                        .map(|(w, lo, hi)| {
                            la.weapon = Some(*w);
                            let ia = cache.id(&la);
                            (la.clone(), ia, (*lo).max(1).max((*hi).min(2)))
                        })
                        .collect();
                    if let Some(by) = self.prey_arms.get_mut(i) {
                        // A few a unit (a situated battle's loadouts), the oldest forgotten.
                        if by.len() >= 4 {
                            by.remove(0);
                        }
                        by.push((base, weapons.to_vec(), arms.clone()));
                    }
                    arms
                }
            };
            // Within `span` of a tile of the reach: none where the box the reach lies in is
            // farther, each where it is all nearer (`span_of`), else tile by tile.
            let bounds = super::bounds(reach);
            let within = |p: Tile| {
                let (least, most) = super::span_of(bounds, p);
                bounds.is_some() && least <= span && (most <= span || reach.iter().any(|(t, _)| distance(*t, p) <= span))
            };
            let foes: Vec<(usize, Tile, i64, i64)> = self
                .view
                .enemies()
                .filter(|(_, f)| distance(f.pos, u.pos) <= 2 * points + 6)
                .filter(|(_, f)| within(f.pos))
                .map(|(k, f)| (k, f.pos, f.hp, f.max_hp))
                .collect();
            for (k, at, hp, max_hp) in foes {
                let Some((ld, id)) = self.at_full_hp(k, cache) else { continue };
                let mut best = 0.0f64;
                for (la, ia, d) in arms.iter() {
                    if let Some(x) = cache.get(b.engine, (la, *ia), (&ld, id), *d, (false, true, 0)) {
                        let (routs, dealt) = x.against(hp);
                        let (fell, hurt) = x.attacker_at(u.hp);
                        let v = loss(self.worth(k), max_hp, dealt, routs) - loss(self.worth(i), u.max_hp, hurt, fell);
                        best = best.max(v);
                    }
                }
                if best > 0.0 {
                    prey.push((at, best));
                }
            }
        }
        // Most worth first: the best within reach of a tile is the first found (each is above 0).
        prey.sort_by(|a, b| b.1.total_cmp(&a.1));
        prey
    }
}
