//! Effects a unit holds: its tags with what they grant, triggered `on EVENT` effects, and the
//! statuses and debuffs laid on it.

use oc_model as m;

use super::eval::{const_eval, Eval};
use super::{Affliction, Battle, Combatant, Debuff, Record, State};
use crate::combat::rng;

impl<'e> Battle<'e> {
    /// The tags a unit has of itself: its class's, its current form's (a shifter is transformed
    /// unless it has acted this round) and the scenario's.
    pub(super) fn own_tags(&self, u: &Combatant) -> Vec<TagUse> {
        let mut uses: Vec<TagUse> = Vec::new();
        if let Some(c) = self.engine.class(&u.class) {
            uses.extend(c.tags.iter().map(|t| (t.tag.to_string(), t.args.clone())));
            if let Some(f) = &c.forms {
                let form = if u.reverted { &f.normal } else { &f.transformed };
                uses.extend(form.tags.iter().map(|t| (t.tag.to_string(), t.args.clone())));
            }
        }
        uses.extend(u.tags.iter().map(|t| (t.clone(), Vec::new())));
        uses
    }

    /// Tag uses with what they `grant`, each with its effects, parameter names and arguments.
    pub(super) fn expand(&self, mut uses: Vec<(String, Vec<m::Value>)>) -> Vec<Holding<'e>> {
        let engine: &'e crate::Engine = self.engine;
        let mut out = Vec::new();
        let mut k = 0;
        while let Some((name, args)) = uses.get(k).cloned() {
            k += 1;
            if k > 256 {
                break;
            }
            let Some(tag) = engine.tag(&name) else { continue };
            let params: Vec<String> = tag.params.iter().map(|p| p.name.clone()).collect();
            for e in &tag.effects {
                match e {
                    m::Effect::Grant { tag, args: gargs } => {
                        uses.push((tag.clone(), gargs.iter().filter_map(|g| const_eval(g, &params, &args)).collect()));
                    }
                    // `grant p` with `p` a Tag parameter: the tag its argument names.
                    m::Effect::GrantParam { param } => {
                        let named = params.iter().position(|p| p == param).and_then(|k| args.get(k));
                        if let Some(m::Value::Name { name, .. }) = named {
                            uses.push((name.to_string(), Vec::new()));
                        }
                    }
                    _ => {}
                }
            }
            out.push((&tag.effects[..], params, args));
        }
        out
    }

    /// Every tag instance a unit holds now (class and form, scenario tags, equipped weapon,
    /// accessory, statuses), following `grant`s, with its parameter names and arguments.
    pub(super) fn holdings(&self, i: usize) -> Vec<Holding<'e>> {
        let Some(u) = self.units.get(i) else { return Vec::new() };
        let engine: &'e crate::Engine = self.engine;
        let mut uses = self.own_tags(u);
        let accessory = u.items.iter().find(|n| engine.item(n).is_some_and(|it| it.kind == m::ItemKind::Accessory));
        for item in u.equipped.iter().chain(accessory).filter_map(|n| engine.item(n)) {
            uses.extend(item.tags.iter().map(|t| (t.tag.to_string(), t.args.clone())));
        }
        let mut out: Vec<Holding<'e>> = u
            .statuses
            .iter()
            .filter_map(|a| engine.status_index(&a.status).and_then(|k| engine.rules.statuses.get(k)))
            .map(|st| (&st.effects[..], Vec::new(), Vec::new()))
            .collect();
        out.extend(self.expand(uses));
        out
    }

    /// Runs a unit's `on EVENT { ... }` effects (an item that heals its bearer on activation, a
    /// weapon that hurts its wielder after an attack). Form changes are the engine's own shifting rule, not run here.
    pub(super) fn run_triggers(&mut self, i: usize, event: m::Event) {
        let drawn = std::cell::RefCell::new(Vec::new());
        self.run_triggers_drawing(i, event, None, &drawn);
    }

    /// [`Battle::run_triggers`] where the event has a `foe` (`after_attack`: the unit attacked;
    /// `routed`: the unit that routed the holder).
    pub(super) fn run_triggers_against(&mut self, i: usize, event: m::Event, foe: Option<usize>) {
        let drawn = std::cell::RefCell::new(Vec::new());
        self.run_triggers_drawing(i, event, foe, &drawn);
    }

    /// [`Battle::run_triggers`] with the named dice of this event drawn once, shared by the
    /// caller. `when` conditions inside the effects are evaluated (with the battle's dice), and
    /// only the commands under true conditions run.
    pub(super) fn run_triggers_drawing(
        &mut self,
        i: usize,
        event: m::Event,
        foe: Option<usize>,
        drawn: &std::cell::RefCell<Vec<(String, i64)>>,
    ) {
        // A routed unit's own `on routed` effects are its last; nothing else runs off the board.
        if !self.on_board(i) && event != m::Event::Routed {
            return;
        }
        let mut todo: Vec<Triggered> = Vec::new();
        let mut dice = std::mem::replace(&mut self.rng, rng(0));
        for (effects, params, args) in self.holdings(i) {
            let ctx = Eval {
                battle: self,
                equip: None,
                user: i,
                target: foe,
                params: &params,
                args: &args,
                dice: std::cell::RefCell::new(Some(&mut dice)),
                drawn,
            };
            for e in effects {
                if let m::Effect::On { event: ev, then } = e {
                    if *ev == event {
                        collect_commands(&ctx, then, &params, &args, &mut todo);
                    }
                }
            }
        }
        self.rng = dice;
        for (verb, cargs, params, args) in todo {
            let pos = self.units.get(i).map_or((0, 0), |f| f.pos);
            let note = match self.command(i, verb, &cargs, foe, pos, None, &params, &args) {
                Ok(n) => n,
                Err(e) => format!("could not {verb:?}: {e}"),
            };
            self.log.push(Record::Trigger { unit: i, on: event, note });
        }
    }

    pub(super) fn afflict(&mut self, i: usize, status: &str) {
        let lasts = self.engine.status_index(status).and_then(|k| self.engine.rules.statuses.get(k)).and_then(|s| s.lasts).map(
            |d| match d {
                m::Duration::Activations(n) | m::Duration::Rounds(n) => n,
            },
        );
        let Some(u) = self.units.get_mut(i) else { return };
        if u.state != State::Ready || u.statuses.iter().any(|a| a.status == status) {
            return;
        }
        u.statuses.push(Affliction { status: status.to_string(), left: lasts });
        self.log.push(Record::Affliction { unit: i, status: status.to_string(), change: "inflicted".into() });
    }

    /// The `cure` verb: every status on the unit is removed.
    pub(super) fn cure(&mut self, i: usize) -> Vec<String> {
        let Some(f) = self.units.get_mut(i) else { return Vec::new() };
        let gone: Vec<String> = f.statuses.drain(..).map(|a| a.status).collect();
        for status in &gone {
            self.log.push(Record::Affliction { unit: i, status: status.clone(), change: "cured".into() });
        }
        gone
    }

    /// The `debuff` verb, after seed 000: "Target unit has their Rating reduced by X on their next turn.
    /// This effect does not stack." Reading: it holds from the hit until the end of the target's
    /// next turn (so in exchanges in between too); a second one on the same rating is ignored.
    pub(super) fn debuff(&mut self, i: usize, attr: &str, shift: i64) {
        let Some(u) = self.units.get_mut(i) else { return };
        if u.state != State::Ready || u.debuffs.iter().any(|d| d.attr == attr) {
            return;
        }
        u.debuffs.push(Debuff { attr: attr.to_string(), shift, armed: false });
        self.log.push(Record::Affliction { unit: i, status: format!("{attr}{shift:+}"), change: "inflicted".into() });
    }

    /// Whether a tag (or what it grants) has an action performing `verb`.
    pub fn grants_verb(&self, tag: &str, verb: m::Verb) -> bool {
        fn go(engine: &crate::Engine, tag: &str, verb: m::Verb, depth: u32) -> bool {
            let Some(t) = engine.tag(tag) else { return false };
            depth < 16
                && t.effects.iter().any(|e| match e {
                    m::Effect::Action(a) => {
                        a.effects.iter().any(|x| matches!(x, m::Effect::Command { verb: v, .. } if *v == verb))
                    }
                    m::Effect::Grant { tag, .. } => go(engine, tag, verb, depth + 1),
                    _ => false,
                })
        }
        go(self.engine, tag, verb, 0)
    }
}

/// The commands of triggered effects whose `when` conditions hold, in order.
pub(super) fn collect_commands(
    ctx: &Eval,
    effects: &[m::Effect],
    params: &[String],
    args: &[m::Value],
    out: &mut Vec<Triggered>,
) {
    for e in effects {
        match e {
            m::Effect::Command { verb, args: cargs } if *verb != m::Verb::Shift => {
                out.push((*verb, cargs.clone(), params.to_vec(), args.to_vec()));
            }
            m::Effect::When { condition, then } if ctx.bool(condition).unwrap_or(false) => {
                collect_commands(ctx, then, params, args, out);
            }
            _ => {}
        }
    }
}

/// A tag by name with its arguments.
pub(super) type TagUse = (String, Vec<m::Value>);

/// Effects held through one tag or status (borrowed from the rules), with the tag's parameter
/// names and arguments.
type Holding<'r> = (&'r [m::Effect], Vec<String>, Vec<m::Value>);

/// A command to run from a trigger, with its tag's parameter names and arguments.
pub(super) type Triggered = (m::Verb, Vec<m::Expr>, Vec<String>, Vec<m::Value>);

pub(super) fn uses_verb(effects: &[m::Effect], verb: m::Verb) -> bool {
    effects.iter().any(|e| match e {
        m::Effect::Command { verb: v, .. } => *v == verb,
        m::Effect::On { then, .. } | m::Effect::When { then, .. } => uses_verb(then, verb),
        m::Effect::Action(a) => uses_verb(&a.effects, verb),
        _ => false,
    })
}
