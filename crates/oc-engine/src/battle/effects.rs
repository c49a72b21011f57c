//! Effects a unit holds: its tags with what they grant (their effects in the IR), triggered
//! `on EVENT` effects, and the statuses and debuffs laid on it.

use crate::Atom;
use oc_model as m;

use super::scene::{Cast, Drawn, Draws};
use super::{Affliction, Battle, Combatant, Debuff, Record, State};
use crate::dice::rng;
use crate::ir::{Eff, E, V};

/// A tag used by a unit: its interned name and its arguments.
pub(super) type TagUse = (u32, Vec<V>);

thread_local! {
    /// [`Battle::uses_of`] by engine (`Engine::serial`) and list (its address and length in the
    /// engine's rules, which never change): a unit's class and items are read for every action
    /// and effect it is asked about, and each tag was looked up by its text. At most 4,096.
    static USES: std::cell::RefCell<crate::fx::Checked<(u64, usize, usize), Vec<TagUse>>> =
        std::cell::RefCell::new(crate::fx::Checked::new(1 << 12));
}

/// The effects held through one tag or status (borrowed from the IR), with the tag's arguments.
pub(super) struct Holding<'e> {
    pub effects: &'e [Eff],
    pub args: Vec<V>,
    /// The tag or status held (an interned name).
    pub tag: u32,
}

/// A command to run from a trigger or an action: its verb, its arguments (evaluated when it
/// runs) and the arguments of the tag it belongs to.
pub(super) type Triggered<'e> = (m::Verb, &'e [E], Vec<V>);

impl<'e> Battle<'e> {
    /// Tag uses of the model (class, form, item tags) as the IR holds them.
    /// Worked out once a thread for each list of the engine's rules (`USES`).
    pub(super) fn uses_of(&self, uses: &[m::TagUse]) -> Vec<TagUse> {
        if uses.is_empty() {
            return Vec::new();
        }
        let key = (self.engine.serial(), uses.as_ptr() as usize, uses.len());
        let found = crate::fx::kept(&USES, key, || {
            Ok::<_, std::convert::Infallible>(
                uses.iter()
                    .filter_map(|t| {
                        let id = self.engine.ir.name_id(&t.tag)?;
                        let args = t.args.iter().map(|a| self.engine.constant(a)).collect::<Result<_, _>>().ok()?;
                        Some((id, args))
                    })
                    .collect(),
            )
        });
        found.unwrap_or_else(|never| match never {})
    }

    /// The tags a unit has of itself: its class's, its current form's (a shifter is transformed
    /// unless it has acted this round) and the scenario's.
    pub(super) fn own_tags(&self, u: &Combatant) -> Vec<TagUse> {
        let mut uses: Vec<TagUse> = Vec::new();
        if let Some(c) = self.engine.class(&u.class) {
            uses.extend(self.uses_of(&c.tags));
            if let Some(f) = &c.forms {
                let form = if u.reverted { &f.normal } else { &f.transformed };
                uses.extend(self.uses_of(&form.tags));
            }
        }
        uses.extend(u.tags.iter().filter_map(|t| self.engine.ir.atom_id(*t)).map(|id| (id, Vec::new())));
        uses
    }

    /// Tag uses with what they `grant`, breadth first, each with its effects and arguments; the
    /// arguments of a grant are evaluated with the granting tag's, unit `i` holding it.
    pub(super) fn expand(&self, i: usize, mut uses: Vec<TagUse>) -> Vec<Holding<'e>> {
        let engine: &'e crate::Engine = self.engine;
        let mut out = Vec::with_capacity(uses.len());
        let mut k = 0;
        // Each use taken from the list as it is reached (none is read again).
        while let Some((tag, args)) = uses.get_mut(k).map(|(tag, args)| (*tag, std::mem::take(args))) {
            k += 1;
            if k > 256 {
                break;
            }
            let Some((_, effects)) = engine.ir.effects.get(&tag).filter(|_| engine.is_tag(tag)) else { continue };
            self.grants(i, effects, &args, &mut uses);
            out.push(Holding { effects, args, tag });
        }
        out
    }

    /// What `effects` (a tag's with arguments `args`, or a status's) `grant` to unit `i`, added
    /// to `uses`; the arguments of a grant are evaluated with `args`, unit `i` holding it.
    fn grants(&self, i: usize, effects: &[Eff], args: &[V], uses: &mut Vec<TagUse>) {
        for e in effects {
            match e {
                Eff::Grant { tag, args: given } => {
                    let values = match E::read_no_unit(given) {
                        // Constants and the tag's own arguments: no unit read.
                        true => given.iter().map(|a| crate::eval::constant(a, args)).collect(),
                        false => match self.scene(Cast { user: i, ..Cast::default() }, None) {
                            Some(scene) => given.iter().map(|a| scene.value(a, args)).collect(),
                            None => continue,
                        },
                    };
                    uses.push((*tag, values));
                }
                // `grant p` with `p` a Tag parameter: the tag its argument names.
                Eff::GrantParam(p) => {
                    if let Some(V::Name(named)) = args.get(*p as usize) {
                        uses.push((*named, Vec::new()));
                    }
                }
                _ => {}
            }
        }
    }

    /// What unit `i`'s statuses hold: each status's own effects (no arguments).
    fn status_holdings(&self, i: usize) -> Vec<Holding<'e>> {
        let engine: &'e crate::Engine = self.engine;
        let Some(u) = self.state.units.get(i) else { return Vec::new() };
        u.statuses
            .iter()
            .filter(|a| engine.status_index(&a.status).is_some())
            .filter_map(|a| {
                let tag = engine.ir.name_id(&a.status)?;
                engine.ir.effects.get(&tag).map(|(_, effects)| Holding { effects, args: Vec::new(), tag })
            })
            .collect()
    }

    /// The tags unit `i`'s statuses grant (`status Burning { grant Hurt }`): each held as long
    /// as the status is, its events and actions with it.
    pub(super) fn status_grants(&self, i: usize) -> Vec<TagUse> {
        let mut uses = Vec::new();
        for h in self.status_holdings(i) {
            self.grants(i, h.effects, &[], &mut uses);
        }
        uses
    }

    /// Every tag instance a unit holds now (statuses, then class and form, scenario tags,
    /// equipped weapon, accessory), following `grant`s, with its arguments.
    pub(super) fn holdings(&self, i: usize) -> Vec<Holding<'e>> {
        let Some(u) = self.state.units.get(i) else { return Vec::new() };
        let engine: &'e crate::Engine = self.engine;
        let mut uses = self.own_tags(u);
        let accessory = u.items.iter().find(|n| engine.item(n).is_some_and(|it| it.kind == m::ItemKind::Accessory));
        for item in u.equipped.iter().chain(accessory).filter_map(|n| engine.item(n)) {
            uses.extend(self.uses_of(&item.tags));
        }
        let mut out = self.status_holdings(i);
        for h in &out {
            self.grants(i, h.effects, &[], &mut uses);
        }
        out.extend(self.expand(i, uses));
        out
    }

    /// Whether unit `i` may hold something that handles `event` (an `on EVENT`): its statuses,
    /// and the tags of its class, form, scenario, equipped weapon and accessory with what they
    /// grant, read by name alone (no argument evaluated). `false` only where
    /// [`Battle::holdings`] has no such effect; a grant of a tag parameter may be anything.
    fn may_handle(&self, i: usize, event: m::Event) -> bool {
        fn handles(engine: &crate::Engine, tag: u32, event: m::Event, depth: u32) -> bool {
            let Some((_, effects)) = engine.ir.effects.get(&tag) else { return false };
            effects.iter().any(|e| match e {
                Eff::On { event: ev, .. } => *ev == event,
                Eff::Grant { tag, .. } => depth >= 8 || handles(engine, *tag, event, depth + 1),
                Eff::GrantParam(_) => true,
                _ => false,
            })
        }
        let Some(u) = self.state.units.get(i) else { return false };
        let engine = self.engine;
        let by_name = |name: &str| engine.ir.name_id(name).is_some_and(|id| handles(engine, id, event, 0));
        if u.statuses.iter().any(|a| by_name(&a.status)) || u.tags.iter().any(|t| by_name(t)) {
            return true;
        }
        let uses = |tags: &[m::TagUse]| tags.iter().any(|t| by_name(&t.tag));
        if let Some(c) = engine.class(&u.class) {
            let form = c.forms.as_ref().map(|f| if u.reverted { &f.normal } else { &f.transformed });
            if uses(&c.tags) || form.is_some_and(|f| uses(&f.tags)) {
                return true;
            }
        }
        let accessory = u.items.iter().find(|n| engine.item(n).is_some_and(|it| it.kind == m::ItemKind::Accessory));
        u.equipped.iter().chain(accessory).filter_map(|n| engine.item(n)).any(|it| uses(&it.tags))
    }

    /// Runs a unit's `on EVENT { ... }` effects (an item that heals its bearer on activation, a
    /// weapon that hurts its wielder after an attack). Form changes are the engine's own shifting rule, not run here.
    pub(super) fn run_triggers(&mut self, i: usize, event: m::Event) {
        self.run_triggers_drawing(i, event, None, &Drawn::default());
    }

    /// [`Battle::run_triggers`] where the event has a `foe` (`after_attack`: the unit attacked;
    /// `routed`: the unit that routed the holder).
    pub(super) fn run_triggers_against(&mut self, i: usize, event: m::Event, foe: Option<usize>) {
        self.run_triggers_drawing(i, event, foe, &Drawn::default());
    }

    /// [`Battle::run_triggers`] with the named dice of this event drawn once, shared by the
    /// caller. `when` conditions inside the effects are evaluated (with the battle's dice) as
    /// the event happens, and only the commands under true conditions run, one by one.
    pub(super) fn run_triggers_drawing(&mut self, i: usize, event: m::Event, foe: Option<usize>, drawn: &Drawn) {
        self.run_triggers_charted(i, event, foe, drawn, 0);
    }

    /// [`Battle::run_triggers_drawing`] with the strike's result on the charts (`on chart`).
    pub(super) fn run_triggers_charted(&mut self, i: usize, event: m::Event, foe: Option<usize>, drawn: &Drawn, chart: i64) {
        // A routed unit's own `on routed` effects are its last; nothing else runs off the board,
        // nor for a unit struck down whose rout is yet to be marked (its `after_attack` once a
        // counter routed it: an audit saw it deal damage from beyond its rout).
        let down = self.state.units.get(i).is_some_and(|u| u.hp <= 0);
        if (!self.on_board(i) || down) && event != m::Event::Routed {
            return;
        }
        // No tag or status of the rules handles the event: nothing to look for.
        if !self.engine.ir.on_events.contains(&event) {
            return;
        }
        // Nothing the unit may hold handles the event: its holdings are not worked out.
        if !self.may_handle(i, event) {
            return;
        }
        // What the unit holds, and whether any of it handles the event: else no scene is made
        // (making one reads and draws nothing).
        let holdings = self.holdings(i);
        let handles = |h: &Holding| h.effects.iter().any(|e| matches!(e, Eff::On { event: ev, .. } if *ev == event));
        if !holdings.iter().any(handles) {
            return;
        }
        let mut todo: Vec<Triggered<'e>> = Vec::new();
        let mut dice = std::mem::replace(&mut self.state.rng, rng(0));
        {
            let draws = Draws::new(&mut dice, drawn);
            if let Some(scene) = self.scene(Cast { user: i, other: foe, chart, ..Cast::default() }, Some(&draws)) {
                for h in holdings {
                    let mut found = Vec::new();
                    for e in h.effects {
                        if let Eff::On { event: ev, then } = e {
                            if *ev == event {
                                scene.commands(then, &h.args, &mut found);
                            }
                        }
                    }
                    todo.extend(found.into_iter().map(|(verb, args)| (verb, args, h.args.clone())));
                }
            }
        }
        self.state.rng = dice;
        for (verb, cargs, args) in todo {
            let pos = self.state.units.get(i).map_or((0, 0), |f| f.pos);
            let cast = Cast { user: i, other: foe, at: Some(pos), equip: None, chart };
            let note = match self.command(cast, None, verb, cargs, &args, drawn) {
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
        let Some(u) = self.state.units.get_mut(i) else { return };
        if u.state != State::Ready || u.statuses.iter().any(|a| a.status == status) {
            return;
        }
        u.statuses.push(Affliction { status: Atom::new(status), left: lasts });
        self.log.push(Record::Affliction { unit: i, status: status.to_string(), change: "inflicted".into() });
        self.hold_to_max_hp(i);
    }

    /// Unit `i`'s most HP now: as deployed, moved by what its statuses add to or take from its
    /// `hp` (`status Vigor { hp += 10 }`), as an exchange builds the unit. Heals stop there (a
    /// status's added HP were lost to heals held at the deployed most).
    pub fn max_hp_now(&self, i: usize) -> i64 {
        let Some(u) = self.state.units.get(i) else { return 0 };
        if u.statuses.is_empty() {
            return u.max_hp;
        }
        let Some(l) = self.loadout(i, false) else { return u.max_hp };
        let bare = crate::Loadout { statuses: Vec::new(), ..l.clone() };
        match (self.engine.unit(&l, &[]), self.engine.unit(&bare, &[])) {
            (Ok(with), Ok(without)) => u.max_hp.saturating_add(with.max_hp - without.max_hp).max(1),
            _ => u.max_hp,
        }
    }

    /// A unit holding more HP than its most now (a status that took HP off it was laid, or one
    /// that added them wore off) is held to its most.
    pub(super) fn hold_to_max_hp(&mut self, i: usize) {
        let most = self.max_hp_now(i);
        if let Some(u) = self.state.units.get_mut(i).filter(|u| u.hp > most) {
            u.hp = most;
        }
    }

    /// The `cure` verb: every status on the unit is removed.
    pub(super) fn cure(&mut self, i: usize) -> Vec<String> {
        let Some(f) = self.state.units.get_mut(i) else { return Vec::new() };
        let gone: Vec<String> = f.statuses.drain(..).map(|a| a.status.to_string()).collect();
        for status in &gone {
            self.log.push(Record::Affliction { unit: i, status: status.clone(), change: "cured".into() });
        }
        self.hold_to_max_hp(i);
        gone
    }

    /// The `clear` verb: the one status taken off the unit; whether it had it.
    pub(super) fn clear(&mut self, i: usize, status: &str) -> bool {
        let Some(f) = self.state.units.get_mut(i) else { return false };
        let before = f.statuses.len();
        f.statuses.retain(|a| a.status.as_str() != status);
        let gone = f.statuses.len() < before;
        if gone {
            self.log.push(Record::Affliction { unit: i, status: status.to_string(), change: "cleared".into() });
            self.hold_to_max_hp(i);
        }
        gone
    }

    /// The `debuff` verb, after seed 000: "Target unit has their Rating reduced by X on their next turn.
    /// This effect does not stack." Reading: it holds from the hit until the end of the target's
    /// next turn (so in exchanges in between too); a second one on the same rating is ignored.
    pub(super) fn debuff(&mut self, i: usize, attr: &str, shift: i64) {
        let Some(u) = self.state.units.get_mut(i) else { return };
        if u.state != State::Ready || u.debuffs.iter().any(|d| d.attr == attr) {
            return;
        }
        u.debuffs.push(Debuff { attr: Atom::new(attr), shift, armed: false });
        self.log.push(Record::Affliction { unit: i, status: format!("{attr}{shift:+}"), change: "inflicted".into() });
    }

    /// Whether a tag (or what it grants) has an action performing `verb`.
    pub fn grants_verb(&self, tag: &str, verb: m::Verb) -> bool {
        fn go(engine: &crate::Engine, tag: u32, verb: m::Verb, depth: u32) -> bool {
            let Some((_, effects)) = engine.ir.effects.get(&tag).filter(|_| engine.is_tag(tag)) else { return false };
            depth < 16
                && effects.iter().any(|e| match e {
                    Eff::Action(a) => a.effects.iter().any(|x| matches!(x, Eff::Command { verb: v, .. } if *v == verb)),
                    Eff::Grant { tag, .. } => go(engine, *tag, verb, depth + 1),
                    _ => false,
                })
        }
        self.engine.ir.name_id(tag).is_some_and(|id| go(self.engine, id, verb, 0))
    }
}

/// Whether `effects` use `verb` anywhere (in a trigger, a condition or an action).
pub(super) fn uses_verb(effects: &[Eff], verb: m::Verb) -> bool {
    effects.iter().any(|e| match e {
        Eff::Command { verb: v, .. } => *v == verb,
        Eff::On { then, .. } | Eff::When { then, .. } => uses_verb(then, verb),
        Eff::Action(a) => uses_verb(&a.effects, verb),
        _ => false,
    })
}
