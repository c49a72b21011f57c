//! A scenario's fog of war (`fog`, `fog vision N`): lowered into `oc_model::Fog`. What it
//! means in a battle is the engine's (`oc_engine::battle`, fog.rs).

use oc_diag::{Diagnostic, Spanned};
use oc_model as m;
use oc_syntax::ast;

use crate::codes::{DUPLICATE_FIELD, FOG_VISION};

/// `fog` (the default vision) or `fog vision N` (1 to [`m::Fog::MAX_VISION`]), given once;
/// every `vision` written is checked, the first `fog` is kept.
pub(crate) fn lower_fog(def: &ast::ScenarioDef, owner: &str, diags: &mut Vec<Diagnostic>) -> Option<m::Fog> {
    let (first, _) = def.fogs.first()?;
    let mut visions = Vec::new();
    for (k, (at, vision)) in def.fogs.iter().enumerate() {
        if k > 0 {
            diags.push(
                Diagnostic::error(DUPLICATE_FIELD, *at, format!("`fog` is given twice in {owner}"))
                    .with_secondary(*first, "first given here")
                    .with_help("keep one `fog`"),
            );
        }
        visions.push(vision.as_ref().map_or(m::Fog::DEFAULT_VISION, |n| checked(n, diags)));
    }
    visions.first().map(|vision| m::Fog { vision: *vision })
}

/// A vision from 1 to [`m::Fog::MAX_VISION`]; the default (after an error) otherwise.
fn checked(n: &Spanned<i64>, diags: &mut Vec<Diagnostic>) -> u32 {
    match u32::try_from(n.value) {
        Ok(v) if (1..=m::Fog::MAX_VISION).contains(&v) => v,
        _ => {
            diags.push(
                Diagnostic::error(FOG_VISION, n.span, format!("a fog vision of {} is out of range", n.value))
                    .with_label("vision")
                    .with_help(format!(
                        "a unit sees from 1 to {} tiles; write `fog` alone for the default of {}",
                        m::Fog::MAX_VISION,
                        m::Fog::DEFAULT_VISION
                    )),
            );
            m::Fog::DEFAULT_VISION
        }
    }
}
