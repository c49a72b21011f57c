//! The one executor of the verbs (`oc_model::Verb`). A command's arguments are evaluated by the
//! one evaluator (`eval`) into values — a `Unit` argument is the side (0 or 1) of the unit it
//! names in that evaluation — and decoded once, by the verb's parameter types
//! (`oc_model::conformance::VERBS`), into a [`Command`]; [`execute`] carries it out on a
//! [`World`]: an exchange's state (`combat`) or a battle (`battle::verbs`).

use oc_model as m;

use crate::ir::V;

/// A verb with its arguments decoded by the verb's parameter types
/// (`oc_model::conformance::VERBS`): at most one of each kind, which is all any verb takes.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Command {
    pub verb: m::Verb,
    /// A `Unit` argument: the side (0 or 1) of the unit it names.
    pub unit: usize,
    /// An `Int` argument, or a `StatMod`'s amount.
    pub amount: i64,
    /// A status, terrain, weapon type or string argument (an interned name), or a
    /// `StatMod`'s attribute.
    pub name: u32,
}

impl Command {
    /// `verb` with its evaluated arguments; `None` for arguments of the wrong kind or number,
    /// which the compiler never lets through.
    pub(crate) fn decode(verb: m::Verb, args: &[V]) -> Option<Command> {
        let spec = m::conformance::verb_spec(verb)?;
        if spec.params.len() != args.len() {
            return None;
        }
        let mut command = Command { verb, unit: 0, amount: 0, name: 0 };
        for (ty, value) in spec.params.iter().zip(args) {
            match (ty, value) {
                (m::Type::Unit, V::Side(s)) => command.unit = usize::from(*s).min(1),
                (m::Type::Int, v) => command.amount = v.int(),
                (m::Type::StatMod, V::StatMod { attr, amount }) => {
                    command.name = u32::from(*attr);
                    command.amount = *amount;
                }
                (m::Type::Status | m::Type::Terrain | m::Type::WeaponType | m::Type::Str | m::Type::Resource, V::Name(n)) => {
                    command.name = *n
                }
                _ => return None,
            }
        }
        Some(command)
    }
}

/// What a command did, for the world's record of it (a battle's log; an exchange keeps what
/// its state holds).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Done {
    /// Hit points restored (after the cap at the unit's maximum).
    Healed {
        unit: usize,
        amount: i64,
    },
    Damaged {
        unit: usize,
        amount: i64,
    },
    /// `new`: the unit did not have the status already.
    Inflicted {
        unit: usize,
        status: u32,
        new: bool,
    },
    /// The statuses removed.
    Cured {
        unit: usize,
        statuses: Vec<u32>,
    },
    /// `new`: no debuff of that attribute was in force.
    Debuffed {
        unit: usize,
        attr: u16,
        shift: i64,
        new: bool,
    },
    /// Points of a resource gained (`amount`, after the floor at 0), and what the unit holds now.
    Gained {
        unit: usize,
        resource: u32,
        amount: i64,
        total: i64,
    },
    /// A battle's own account of what it did.
    Battle(String),
}

/// Why a command was not carried out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Refused {
    /// The command names a unit the event has not (a `foe` where nobody routed the holder).
    NoUnit(usize),
    /// A verb this world does not perform (a battle's verb in an exchange: the conformance
    /// table never lets one there, and `Engine::new` refuses a model that puts one there).
    NotHere(m::Verb),
    /// The battle's rules refuse it, with the reason.
    Rules(String),
}

/// What commands act on.
pub(crate) trait World {
    /// Whether side `unit` is a unit of this event or action.
    fn present(&self, unit: usize) -> bool;
    fn hp(&self, unit: usize) -> i64;
    fn max_hp(&self, unit: usize) -> i64;
    /// Sets the unit's hit points to `hp` (which may be below 0: the world holds them at 0 as
    /// its rules say — an exchange once its triggers are over, a battle at once, routing).
    fn set_hp(&mut self, unit: usize, hp: i64);
    /// Lays the status on the unit; whether it did not have it.
    fn inflict(&mut self, unit: usize, status: u32) -> bool;
    /// Removes every status; the ones removed.
    fn cure(&mut self, unit: usize) -> Vec<u32>;
    /// Removes one status; whether the unit had it.
    fn clear(&mut self, unit: usize, status: u32) -> bool;
    /// Lays a debuff; whether none of that attribute was in force.
    fn debuff(&mut self, unit: usize, attr: u16, shift: i64) -> bool;
    /// The unit's amount of the resource named `resource` (an interned name), or `None` when
    /// the ruleset has no such resource.
    fn resource(&self, unit: usize, resource: u32) -> Option<i64>;
    /// Sets the unit's amount of the resource.
    fn set_resource(&mut self, unit: usize, resource: u32, amount: i64);
    /// The verbs that act on a battle's map, turn order and sight (a unit's verbs are the
    /// methods above); where there is no battle they are not performed.
    fn battle(&mut self, command: &Command) -> Result<String, Refused> {
        Err(Refused::NotHere(command.verb))
    }
}

/// Carries `command` out on `world`.
pub(crate) fn execute(world: &mut impl World, command: Command) -> Result<Done, Refused> {
    let Command { verb, unit, amount, name } = command;
    match verb {
        m::Verb::Heal => {
            let unit = here(world, unit)?;
            let before = world.hp(unit);
            let after = before.saturating_add(amount.max(0)).min(world.max_hp(unit));
            world.set_hp(unit, after);
            Ok(Done::Healed { unit, amount: after.saturating_sub(before) })
        }
        m::Verb::Damage => {
            let unit = here(world, unit)?;
            let amount = amount.max(0);
            let hp = world.hp(unit).saturating_sub(amount);
            world.set_hp(unit, hp);
            Ok(Done::Damaged { unit, amount })
        }
        m::Verb::Inflict => {
            let unit = here(world, unit)?;
            let new = world.inflict(unit, name);
            Ok(Done::Inflicted { unit, status: name, new })
        }
        m::Verb::Cure => {
            let unit = here(world, unit)?;
            Ok(Done::Cured { unit, statuses: world.cure(unit) })
        }
        m::Verb::Clear => {
            let unit = here(world, unit)?;
            let statuses = if world.clear(unit, name) { vec![name] } else { Vec::new() };
            Ok(Done::Cured { unit, statuses })
        }
        m::Verb::Debuff => {
            let unit = here(world, unit)?;
            let attr = u16::try_from(name).map_err(|_| Refused::NotHere(verb))?;
            let new = world.debuff(unit, attr, amount);
            Ok(Done::Debuffed { unit, attr, shift: amount, new })
        }
        m::Verb::Gain => {
            let unit = here(world, unit)?;
            let before = world.resource(unit, name).ok_or(Refused::NotHere(verb))?;
            let total = before.saturating_add(amount).max(0);
            world.set_resource(unit, name, total);
            Ok(Done::Gained { unit, resource: name, amount: total - before, total })
        }
        m::Verb::Reactivate
        | m::Verb::Relocate
        | m::Verb::Flee
        | m::Verb::Attack
        | m::Verb::Injure
        | m::Verb::BreakWeapon
        | m::Verb::StrikeFriend
        | m::Verb::Join => {
            here(world, unit)?;
            world.battle(&command).map(Done::Battle)
        }
        m::Verb::Open
        | m::Verb::TakeChest
        | m::Verb::Raze
        | m::Verb::Seize
        | m::Verb::Escape
        | m::Verb::Reveal
        | m::Verb::Transform
        | m::Verb::Disengage
        | m::Verb::Hide
        | m::Verb::Search
        | m::Verb::Divide => world.battle(&command).map(Done::Battle),
        // The standing verbs hold while a tag is held, and the shifting rule's `shift` is the
        // battle's own: none is carried out as a command.
        m::Verb::Restrict | m::Verb::MustAttackWeakest | m::Verb::IgnoreItemTags | m::Verb::Shift => Err(Refused::NotHere(verb)),
    }
}

/// `unit`, where it names a unit of the world's event or action.
fn here(world: &impl World, unit: usize) -> Result<usize, Refused> {
    if world.present(unit) {
        Ok(unit)
    } else {
        Err(Refused::NoUnit(unit))
    }
}
