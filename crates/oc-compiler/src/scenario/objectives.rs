//! What each side is asked to win, checked against the rules, the map and the armies: the
//! tags an objective needs (`tags_enabling`), why a side can never meet its condition and the
//! help that mends it (`cannot_win`), a survival the time limit's winner never decides, and
//! `rout "NAME"` naming a unit no enemy army has.

use std::collections::BTreeSet;

use oc_diag::{Diagnostic, Spanned};
use oc_model as m;
use oc_syntax::ast;

use super::side_of;
use crate::codes::*;

/// Tags that give the action performing `verb`, directly or through `grant`.
pub fn tags_enabling(rules: &m::Rules, verb: m::Verb) -> BTreeSet<String> {
    fn has_verb(effects: &[m::Effect], verb: m::Verb) -> bool {
        effects.iter().any(|e| match e {
            m::Effect::Command { verb: v, .. } => *v == verb,
            m::Effect::Action(a) => has_verb(&a.effects, verb),
            m::Effect::When { then, .. } | m::Effect::On { then, .. } => has_verb(then, verb),
            _ => false,
        })
    }
    let mut set: BTreeSet<String> = rules.tags.iter().filter(|t| has_verb(&t.effects, verb)).map(|t| t.name.clone()).collect();
    loop {
        let more: Vec<String> = rules
            .tags
            .iter()
            .filter(|t| !set.contains(&t.name))
            .filter(|t| t.effects.iter().any(|e| matches!(e, m::Effect::Grant { tag, .. } if set.contains(tag))))
            .map(|t| t.name.clone())
            .collect();
        if more.is_empty() {
            return set;
        }
        set.extend(more);
    }
}

/// `win rout "Name"` names a unit of the other side: where this compilation has armies for that
/// side and none of them has a unit by the name, the side cannot win by it (an error, with the
/// nearest name); where it has none, a warning (the armies may be written elsewhere).
pub(crate) fn check_rout_targets(defs: &[ast::ScenarioDef], armies: &[m::Army], diags: &mut Vec<Diagnostic>) {
    fn named(c: &ast::Cond, out: &mut Vec<Spanned<String>>) {
        match c {
            ast::Cond::RoutUnit(u) => out.push(u.clone()),
            ast::Cond::And(a, b) | ast::Cond::Or(a, b) => {
                named(a, out);
                named(b, out);
            }
            ast::Cond::Not(a, _) => named(a, out),
            _ => {}
        }
    }
    for def in defs {
        for side in &def.sides {
            let id = side_of(&side.side.value);
            let mut units = Vec::new();
            for c in &side.wins {
                named(c, &mut units);
            }
            let enemy: Vec<&m::Army> =
                armies.iter().filter(|a| a.scenario == def.name.value.as_ref() as &str && a.side == id.other()).collect();
            let names: Vec<&str> = enemy.iter().flat_map(|a| a.units.iter().map(|u| u.name.as_str())).collect();
            for unit in units.iter().filter(|u| !names.contains(&u.value.as_str())) {
                let d = if enemy.is_empty() {
                    Diagnostic::warning(
                        UNWINNABLE,
                        unit.span,
                        format!("no army of the {} here has a unit named `{}`", id.other().word(), unit.value),
                    )
                    .with_help(format!(
                        "`rout \"NAME\"` names a unit of a {} army; write the army, or name one of its units",
                        id.other().word()
                    ))
                } else {
                    let mut d = Diagnostic::error(
                        UNWINNABLE,
                        unit.span,
                        format!(
                            "the {} cannot win by routing `{}`: no {} army has a unit by that name",
                            id.word(),
                            unit.value,
                            id.other().word()
                        ),
                    )
                    .with_label("no such unit");
                    d = match oc_diag::did_you_mean(&unit.value, names.iter().copied()) {
                        Some(s) => d.with_help(format!("did you mean `{s}`?")),
                        None => d.with_help(format!("the {} armies' units are {}", id.other().word(), names.join(", "))),
                    };
                    d
                };
                diags.push(d);
            }
        }
    }
}

/// Whether `c` is met as round `limit` ends whatever happens: `survive limit rounds`, or an
/// alternative of it.
pub(super) fn survives_to(c: &m::Condition, limit: u32) -> bool {
    match c {
        m::Condition::Survive { rounds } => *rounds == limit,
        m::Condition::Or(a, b) => survives_to(a, limit) || survives_to(b, limit),
        _ => false,
    }
}

/// Why a side can never meet a condition, and the help that mends it.
pub(super) struct Unmet {
    pub why: String,
    pub help: String,
}

pub(super) fn unmet(why: String, help: impl Into<String>) -> Unmet {
    Unmet { why, help: help.into() }
}

/// Why a side can never meet `c`, or `None` if it might.
pub(super) fn cannot_win(
    c: &m::Condition,
    side: m::SideId,
    s: &m::Scenario,
    rules: &m::Rules,
    map: &oc_atlas::Map,
    reach: (&[Option<u32>], &[oc_atlas::Tile]),
) -> Option<Unmet> {
    let rules_side = s.side(side);
    let (reach_of, sources) = reach;
    let allowed = |class: &m::Class| {
        (rules_side.allowed_classes.is_empty() || rules_side.allowed_classes.iter().any(|n| *n == class.name))
            && !rules_side.banned_classes.iter().any(|n| *n == class.name)
    };
    let needs_tag = |verb: m::Verb, what: &str| -> Option<Unmet> {
        let enabling = tags_enabling(rules, verb);
        let granted = rules_side.grants.iter().any(|(t, n)| *n > 0 && enabling.contains(t));
        let class_has =
            rules.classes.iter().filter(|c| allowed(c)).any(|c| c.tags.iter().any(|t| enabling.contains(t.tag.as_str())));
        let item_has = rules.items.iter().any(|i| i.tags.iter().any(|t| enabling.contains(t.tag.as_str())));
        (!(granted || class_has || item_has)).then(|| {
            let names: Vec<&str> = enabling.iter().map(String::as_str).collect();
            let why = format!(
                "{what} needs a unit with {}, and the {} is granted none and no allowed class has it",
                names.join(" or "),
                side.word()
            );
            let first = names.first().copied().unwrap_or("TAG");
            unmet(why, format!("grant it in the {}'s block (`grant {first} to 1`), or allow a class that has it", side.word()))
        })
    };
    let mover = rules.reference_mover();
    let kind = mover.as_ref().map_or("no", |m| m.movement_type.as_str());
    let too_far = |region: &str| -> Option<Unmet> {
        let r = map.region(region)?;
        let best = r.tiles.iter().filter_map(|(t, _)| map.index(*t).and_then(|i| reach_of.get(i).copied().flatten())).min();
        match best {
            None => {
                // Only a door or a wall in the way: name it; a wall any unit strikes down, a
                // door only a unit with what opens it.
                let targets: Vec<oc_atlas::Tile> = r.tiles.iter().map(|(t, _)| *t).collect();
                let blockers = oc_atlas::blockers::blockers(map, rules, sources, &targets);
                if blockers.is_empty() {
                    return Some(unmet(
                        format!("no {kind} unit can reach `{region}` from `{}`", rules_side.zone),
                        "open a way to it on the map, or move the objective or the deployment zone",
                    ));
                }
                let closed: Vec<&oc_atlas::blockers::Blocker> = blockers.iter().filter(|b| b.is_door()).collect();
                if closed.len() < blockers.len() {
                    return None;
                }
                let openers: BTreeSet<String> = closed.iter().flat_map(|b| b.opened_by.iter().cloned()).collect();
                let item_allowed = |name: &str| {
                    (rules_side.allowed_items.is_empty() || rules_side.allowed_items.iter().any(|n| n == name))
                        && !rules_side.banned_items.iter().any(|n| n == name)
                };
                let can_open = openers.iter().any(|o| {
                    rules.items.iter().any(|i| i.name.as_str() == o && item_allowed(o))
                        || rules_side.grants.iter().any(|(t, n)| *n > 0 && t == o)
                        || rules.classes.iter().filter(|c| allowed(c)).any(|c| c.tags.iter().any(|t| t.tag.as_str() == o))
                });
                let names: Vec<String> = closed.iter().map(|b| b.name()).collect();
                (!can_open).then(|| {
                    let openers: Vec<String> = openers.iter().cloned().collect();
                    unmet(
                        format!(
                            "{kind} units reach `{region}` from `{}` only through {}, which opens with {}, and the {} is granted none and no allowed class has it",
                            rules_side.zone,
                            names.join(" or "),
                            openers.join(" or "),
                            side.word()
                        ),
                        format!("let the {} carry or be granted {}, or open another way on the map", side.word(), openers.join(" or ")),
                    )
                })
            }
            // In rounds only where the rules give a unit its movement.
            Some(n) if s.rounds.is_some_and(|limit| n > limit) && mover.as_ref().is_some_and(|m| m.movement.is_some()) => {
                let limit = s.rounds.unwrap_or_default();
                Some(unmet(
                    format!("{kind} units need {n} rounds to reach `{region}`, and the time limit is {limit}"),
                    format!("raise `rounds` to {n} or more, or move the objective nearer"),
                ))
            }
            _ => None,
        }
    };
    // Where no unit may divide into more (seed 003's Divide), a side fields at most its
    // `units` bound.
    let divides = !tags_enabling(rules, m::Verb::Divide).is_empty();
    let most = |of: m::SideId| s.side(of).max_units;
    match c {
        m::Condition::RoutCount { count } if !divides && *count > most(side.other()) => Some(unmet(
            format!("routing {count} units, but the {} fields at most {}", side.other().word(), most(side.other())),
            format!("rout at most {} units, or let the {} field more (`units`)", most(side.other()), side.other().word()),
        )),
        m::Condition::Escape { count, .. } if !divides && *count > most(side) => Some(unmet(
            format!("{count} units escaping, but the {} fields at most {}", side.word(), most(side)),
            format!("ask at most {} to escape, or let the {} field more (`units`)", most(side), side.word()),
        )),
        m::Condition::Seize { region } => needs_tag(m::Verb::Seize, "seizing").or_else(|| too_far(region)),
        m::Condition::Escape { region, .. } => needs_tag(m::Verb::Escape, "escaping").or_else(|| too_far(region)),
        m::Condition::Raze { region, count } => {
            let tiles = map.region(region).map_or(0, |r| r.tiles.len());
            if (*count as usize) > tiles {
                return Some(unmet(
                    format!("razing {count} tiles, but `{region}` has {tiles}"),
                    format!("raze at most {tiles}, or enlarge `{region}` on the map"),
                ));
            }
            needs_tag(m::Verb::Raze, "razing").or_else(|| too_far(region))
        }
        m::Condition::Survive { rounds } | m::Condition::Defend { rounds, .. } => match s.rounds {
            Some(limit) if *rounds > limit => Some(unmet(
                format!("it asks for {rounds} rounds, but the battle ends after {limit}"),
                format!("ask for at most {limit} rounds, or raise `rounds` to {rounds}"),
            )),
            _ => None,
        },
        m::Condition::And(a, b) => {
            cannot_win(a, side, s, rules, map, reach).or_else(|| cannot_win(b, side, s, rules, map, reach))
        }
        m::Condition::Or(a, b) => {
            let (x, y) = (cannot_win(a, side, s, rules, map, reach), cannot_win(b, side, s, rules, map, reach));
            match (x, y) {
                (Some(x), Some(y)) => Some(unmet(format!("{}; and {}", x.why, y.why), x.help)),
                _ => None,
            }
        }
        _ => None,
    }
}
