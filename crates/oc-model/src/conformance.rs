//! Accepted means executed: where each effect primitive ([`Verb`]) may appear and where each
//! [`Event`] fires. The compiler rejects every combination that is not in these tables (code
//! `oc::effect::context`); the engine executes every one that is (the conformance test in
//! `oc-engine` runs a case for each). A new verb or event is added here first.

use crate::{Event, Type, UnitRef, Verb};

mod places;
pub use places::{accepted_exprs, allows, places, scope, where_allowed, ExprKind, Params, Place, Scope, EXPR_KINDS};

/// Where an effect appears.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Context {
    /// At the top of a tag's or status's body, or among an item's modifiers: it holds while the
    /// holder has the tag, status or item.
    Always,
    /// Inside a `when` of such a body.
    When,
    /// In `on EVENT { ... }`, or a `when` inside it.
    Trigger(Event),
    /// In an `action { ... }`, of a tag or of a consumable's `use` (or a `when` inside it).
    Action,
    /// Directly in a consumable's `use { ... }` (or a `when` inside it).
    Use,
}

impl Context {
    /// "a `when`", "`on hit`"... for diagnostics.
    pub fn describe(self) -> String {
        match self {
            Context::Always => "the body of a tag or status".to_string(),
            Context::When => "a `when` of a tag or status".to_string(),
            Context::Trigger(e) => format!("`on {}`", event_spec(e).map_or("?", |s| s.name)),
            Context::Action => "an `action`".to_string(),
            Context::Use => "a consumable's `use` (outside an `action`)".to_string(),
        }
    }
}

/// Where an event happens.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fires {
    /// In a combat exchange: forecasts, duels, and the exchanges of battles.
    Exchange,
    /// In battles only.
    Battle,
}

/// One event: its name, where it fires, and what may be named or tied to it.
#[derive(Clone, Copy, Debug)]
pub struct EventSpec {
    pub name: &'static str,
    pub event: Event,
    pub fires: Fires,
    /// Whose triggers run and when.
    pub doc: &'static str,
    /// The units a command in `on EVENT` may name as its unit argument.
    pub units: &'static [UnitRef],
    /// Whether a status may `clears ... at EVENT`.
    pub clears: bool,
    /// Whether a terrain may `heal N at EVENT`.
    pub terrain_heal: bool,
}

const STRIKE_UNITS: &[UnitRef] = &[UnitRef::Holder, UnitRef::Foe, UnitRef::Attacker, UnitRef::Defender, UnitRef::Target];
const OWN: &[UnitRef] = &[UnitRef::Holder];
const OWN_AND_FOE: &[UnitRef] = &[UnitRef::Holder, UnitRef::Foe, UnitRef::Target];
const FOE: &[UnitRef] = &[UnitRef::Foe, UnitRef::Target];

/// Every event, in [`Event::ALL`]'s order.
pub const EVENTS: &[EventSpec] = &[
    EventSpec {
        name: "activated",
        event: Event::Activated,
        fires: Fires::Battle,
        doc: "the holder's activation begins, before it moves",
        units: OWN,
        clears: true,
        terrain_heal: false,
    },
    EventSpec {
        name: "end_of_turn",
        event: Event::EndOfTurn,
        fires: Fires::Battle,
        doc: "the holder's turn ends",
        units: OWN,
        clears: false,
        terrain_heal: true,
    },
    EventSpec {
        name: "start_of_round",
        event: Event::StartOfRound,
        fires: Fires::Battle,
        doc: "a new round begins (every unit on the board, in order)",
        units: OWN,
        clears: true,
        terrain_heal: false,
    },
    EventSpec {
        name: "end_of_round",
        event: Event::EndOfRound,
        fires: Fires::Battle,
        doc: "the round ends (every unit on the board, in order)",
        units: OWN,
        clears: false,
        terrain_heal: false,
    },
    EventSpec {
        name: "hit",
        event: Event::Hit,
        fires: Fires::Exchange,
        doc: "a strike of the holder's hits (critical hits too); `foe` is the unit struck",
        units: STRIKE_UNITS,
        clears: false,
        terrain_heal: false,
    },
    EventSpec {
        name: "crit",
        event: Event::Crit,
        fires: Fires::Exchange,
        doc: "a strike of the holder's is a critical hit",
        units: STRIKE_UNITS,
        clears: false,
        terrain_heal: false,
    },
    EventSpec {
        name: "attacked",
        event: Event::Attacked,
        fires: Fires::Exchange,
        doc: "the holder is attacked: once, as the attack is declared, before the first strike",
        units: STRIKE_UNITS,
        clears: false,
        terrain_heal: false,
    },
    EventSpec {
        name: "after_attack",
        event: Event::AfterAttack,
        fires: Fires::Battle,
        doc: "the holder's attack is over (all its exchanges); `foe` is the unit it attacked",
        units: OWN_AND_FOE,
        clears: false,
        terrain_heal: false,
    },
    EventSpec {
        name: "routed",
        event: Event::Routed,
        fires: Fires::Battle,
        doc: "the holder is routed; `foe` is the unit that routed it (nothing happens without one)",
        units: FOE,
        clears: false,
        terrain_heal: false,
    },
    EventSpec {
        name: "miss",
        event: Event::Miss,
        fires: Fires::Exchange,
        doc: "a strike of the holder's does not hit (a backfire included)",
        units: STRIKE_UNITS,
        clears: false,
        terrain_heal: false,
    },
    EventSpec {
        name: "chart",
        event: Event::Chart,
        fires: Fires::Battle,
        doc: "a strike of the holder's came out on the ruleset's charts (its combat formula `chart` was not 0), after the exchange; `foe` is the unit struck, `chart` the value",
        units: OWN_AND_FOE,
        clears: false,
        terrain_heal: false,
    },
];

/// Every event: a command that changes a unit may run on any of them.
const EVERY_EVENT: &[Event] = &[
    Event::Activated,
    Event::EndOfTurn,
    Event::StartOfRound,
    Event::EndOfRound,
    Event::Hit,
    Event::Crit,
    Event::Attacked,
    Event::AfterAttack,
    Event::Routed,
    Event::Miss,
    Event::Chart,
];

/// One effect primitive: its arguments and where it may appear.
#[derive(Clone, Copy, Debug)]
pub struct VerbSpec {
    pub name: &'static str,
    pub verb: Verb,
    pub params: &'static [Type],
    /// The events whose triggers may run it.
    pub on: &'static [Event],
    pub always: bool,
    pub when: bool,
    pub action: bool,
    pub use_: bool,
}

const fn unit_verb(name: &'static str, verb: Verb, params: &'static [Type]) -> VerbSpec {
    VerbSpec { name, verb, params, on: EVERY_EVENT, always: false, when: false, action: true, use_: true }
}

const fn action_verb(name: &'static str, verb: Verb, params: &'static [Type]) -> VerbSpec {
    VerbSpec { name, verb, params, on: &[], always: false, when: false, action: true, use_: false }
}

/// A command on a battle's events only: never inside an exchange.
const fn battle_event_verb(name: &'static str, verb: Verb, params: &'static [Type]) -> VerbSpec {
    VerbSpec { name, verb, params, on: BATTLE_EVENTS, always: false, when: false, action: false, use_: false }
}

/// The events that fire on a battle outside exchanges (`Fires::Battle`) while the holder stands
/// (not `routed`).
const BATTLE_EVENTS: &[Event] =
    &[Event::Activated, Event::EndOfTurn, Event::StartOfRound, Event::EndOfRound, Event::AfterAttack, Event::Chart];

const fn standing(name: &'static str, verb: Verb, params: &'static [Type], when: bool) -> VerbSpec {
    VerbSpec { name, verb, params, on: &[], always: true, when, action: false, use_: false }
}

/// Every effect primitive.
pub const VERBS: &[VerbSpec] = &[
    unit_verb("heal", Verb::Heal, &[Type::Unit, Type::Int]),
    unit_verb("damage", Verb::Damage, &[Type::Unit, Type::Int]),
    unit_verb("inflict", Verb::Inflict, &[Type::Unit, Type::Status]),
    unit_verb("cure", Verb::Cure, &[Type::Unit]),
    action_verb("reactivate", Verb::Reactivate, &[Type::Unit]),
    action_verb("relocate", Verb::Relocate, &[Type::Unit, Type::Int]),
    action_verb("open", Verb::Open, &[]),
    action_verb("take_chest", Verb::TakeChest, &[]),
    action_verb("raze", Verb::Raze, &[Type::Terrain]),
    action_verb("seize", Verb::Seize, &[]),
    action_verb("escape", Verb::Escape, &[]),
    action_verb("reveal", Verb::Reveal, &[Type::Int]),
    action_verb("transform", Verb::Transform, &[Type::Terrain]),
    standing("restrict", Verb::Restrict, &[Type::WeaponType], false),
    standing("must_attack_weakest", Verb::MustAttackWeakest, &[], false),
    VerbSpec {
        name: "shift",
        verb: Verb::Shift,
        params: &[Type::Str],
        on: &[Event::Activated, Event::EndOfTurn],
        always: false,
        when: false,
        action: false,
        use_: false,
    },
    unit_verb("debuff", Verb::Debuff, &[Type::Unit, Type::StatMod]),
    standing("ignore_item_tags", Verb::IgnoreItemTags, &[], true),
    action_verb("attack", Verb::Attack, &[Type::Unit, Type::Int]),
    action_verb("injure", Verb::Injure, &[Type::Unit, Type::Int, Type::Status]),
    action_verb("flee", Verb::Flee, &[Type::Unit, Type::Int]),
    unit_verb("gain", Verb::Gain, &[Type::Unit, Type::Resource, Type::Int]),
    // In actions and consumables, which a battle runs (an exchange's triggers cure).
    VerbSpec {
        name: "clear",
        verb: Verb::Clear,
        params: &[Type::Unit, Type::Status],
        on: &[],
        always: false,
        when: false,
        action: true,
        use_: true,
    },
    // After an exchange, on the battle (seed 003's Fumble Chart): the exchange's loadouts and
    // its two units are fixed while it lasts.
    battle_event_verb("break_weapon", Verb::BreakWeapon, &[Type::Unit]),
    battle_event_verb("strike_friend", Verb::StrikeFriend, &[Type::Unit]),
    action_verb("disengage", Verb::Disengage, &[Type::Int]),
    action_verb("hide", Verb::Hide, &[]),
    action_verb("search", Verb::Search, &[Type::Int]),
    action_verb("divide", Verb::Divide, &[Type::Int]),
    action_verb("join", Verb::Join, &[Type::Unit]),
];

impl VerbSpec {
    pub fn allows(&self, context: Context) -> bool {
        match context {
            Context::Always => self.always,
            Context::When => self.when,
            Context::Trigger(e) => self.on.contains(&e),
            Context::Action => self.action,
            Context::Use => self.use_,
        }
    }

    /// Every context it may appear in.
    pub fn contexts(&self) -> Vec<Context> {
        let mut out = Vec::new();
        if self.always {
            out.push(Context::Always);
        }
        if self.when {
            out.push(Context::When);
        }
        out.extend(self.on.iter().map(|e| Context::Trigger(*e)));
        if self.action {
            out.push(Context::Action);
        }
        if self.use_ {
            out.push(Context::Use);
        }
        out
    }
}

pub fn verb_spec(verb: Verb) -> Option<&'static VerbSpec> {
    VERBS.iter().find(|v| v.verb == verb)
}

pub fn verb_named(name: &str) -> Option<&'static VerbSpec> {
    VERBS.iter().find(|v| v.name == name)
}

pub fn event_spec(event: Event) -> Option<&'static EventSpec> {
    EVENTS.iter().find(|e| e.event == event)
}

/// Whether `verb` may appear in `context`.
pub fn accepts(context: Context, verb: Verb) -> bool {
    verb_spec(verb).is_some_and(|v| v.allows(context))
}

/// Every accepted (context, verb) pair, verbs in table order.
pub fn accepted() -> Vec<(Context, Verb)> {
    VERBS.iter().flat_map(|v| v.contexts().into_iter().map(move |c| (c, v.verb))).collect()
}

/// The units a command's unit argument may name in `context`.
pub fn units_in(context: Context) -> &'static [UnitRef] {
    match context {
        Context::Trigger(e) => event_spec(e).map_or(&[], |s| s.units),
        Context::Use => OWN,
        Context::Always | Context::When | Context::Action => STRIKE_UNITS,
    }
}

/// The form `shift` must name in `on EVENT`: a shifter is transformed from its activation and
/// normal again when its turn ends (the engine's shifting rule performs it).
pub fn shift_form(event: Event) -> Option<&'static str> {
    match event {
        Event::Activated => Some("transformed"),
        Event::EndOfTurn => Some("normal"),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exhaustive: a new verb does not compile here until it is counted, and then the table
    /// must list it.
    fn listed(v: Verb) -> bool {
        match v {
            Verb::Heal
            | Verb::Damage
            | Verb::Inflict
            | Verb::Cure
            | Verb::Clear
            | Verb::Reactivate
            | Verb::Relocate
            | Verb::Flee
            | Verb::Gain
            | Verb::Open
            | Verb::TakeChest
            | Verb::Raze
            | Verb::Seize
            | Verb::Escape
            | Verb::Reveal
            | Verb::Transform
            | Verb::Restrict
            | Verb::MustAttackWeakest
            | Verb::Shift
            | Verb::Debuff
            | Verb::IgnoreItemTags
            | Verb::Attack
            | Verb::Injure
            | Verb::BreakWeapon
            | Verb::StrikeFriend
            | Verb::Disengage
            | Verb::Hide
            | Verb::Search
            | Verb::Divide
            | Verb::Join => verb_spec(v).is_some(),
        }
    }

    #[test]
    fn every_event_and_verb_has_one_entry() {
        assert!(VERBS.iter().all(|v| listed(v.verb)));
        assert_eq!(VERBS.len(), 30, "a verb was added: add it to `listed` and to the conformance test");
        assert_eq!(EVENTS.len(), Event::ALL.len());
        for ((name, e), spec) in Event::ALL.iter().zip(EVENTS) {
            assert_eq!((*name, *e), (spec.name, spec.event));
        }
        assert_eq!(EVERY_EVENT.len(), EVENTS.len());
        for e in EVENTS {
            let standing = e.fires == Fires::Battle && e.event != Event::Routed;
            assert_eq!(BATTLE_EVENTS.contains(&e.event), standing, "{}", e.name);
        }
        for v in VERBS {
            assert_eq!(VERBS.iter().filter(|w| w.verb == v.verb || w.name == v.name).count(), 1, "{}", v.name);
            assert!(!v.contexts().is_empty(), "{} may appear nowhere", v.name);
        }
    }
}
