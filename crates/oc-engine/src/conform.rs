//! A model is run only if every effect in it is where `oc_model::conformance` says the engine
//! performs it: the compiler guarantees it for what it builds; a model read from elsewhere is
//! refused here rather than half executed.

use oc_model as m;
use oc_model::conformance::{self as conf, Context};

use crate::EngineError;

/// Checks every tag, status, item and terrain of `rules` against the conformance table.
pub(crate) fn check(rules: &m::Rules) -> Result<(), EngineError> {
    for t in &rules.tags {
        effects(&t.effects, Context::Always, &t.name)?;
    }
    for s in &rules.statuses {
        effects(&s.effects, Context::Always, &s.name)?;
        if let Some(c) = s.clears.iter().find(|c| !conf::event_spec(c.event).is_some_and(|e| e.clears)) {
            return Err(EngineError::model(format!("`{}` clears at {:?}, where nothing clears", s.name, c.event)));
        }
    }
    for it in &rules.items {
        effects(&it.modifiers, Context::Always, &it.name)?;
        effects(&it.uses, Context::Use, &it.name)?;
    }
    for t in &rules.terrains {
        if let Some(h) = t.heal.as_ref().filter(|h| !conf::event_spec(h.event).is_some_and(|e| e.terrain_heal)) {
            return Err(EngineError::model(format!("`{}` heals at {:?}, where no terrain heals", t.name, h.event)));
        }
    }
    Ok(())
}

fn effects(list: &[m::Effect], context: Context, owner: &str) -> Result<(), EngineError> {
    for e in list {
        match e {
            m::Effect::Command { verb, .. } if !conf::accepts(context, *verb) => {
                return Err(EngineError::model(format!("`{owner}` has {verb:?} in {}", context.describe())));
            }
            m::Effect::When { then, .. } => {
                effects(then, if context == Context::Always { Context::When } else { context }, owner)?;
            }
            m::Effect::On { event, then } => effects(then, Context::Trigger(*event), owner)?,
            m::Effect::Action(a) => effects(&a.effects, Context::Action, owner)?,
            m::Effect::Command { .. } | m::Effect::Modify { .. } | m::Effect::Grant { .. } | m::Effect::GrantParam { .. } => {}
        }
    }
    Ok(())
}
