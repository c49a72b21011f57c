//! A scenario's set-up (`deploy first SIDE`, `deploy edges rolloff DICE`, `deploy alternate N`):
//! lowered into `oc_model::Scenario`. How the armies are placed is the engine's
//! (`oc_engine::battle::deploy`).

use oc_diag::{did_you_mean, Diagnostic, Spanned};
use oc_model as m;
use oc_syntax::ast;

use crate::codes::{DUPLICATE_FIELD, SCENARIO_PLACEMENT, UNKNOWN_TABLE};

/// The most placement units a scenario may place each army in.
pub const MAX_PLACEMENT_UNITS: u32 = 20;

/// The home-edge roll-off's dice (a die the ruleset declares) and the number of placement
/// units (1 to [`MAX_PLACEMENT_UNITS`]), each given at most once.
pub(crate) fn lower_deploy(
    def: &ast::ScenarioDef,
    owner: &str,
    rules: &m::Rules,
    diags: &mut Vec<Diagnostic>,
) -> (Option<String>, Option<u32>) {
    twice(def.deploy_edges.iter().map(|d| d.span), "deploy edges", owner, diags);
    twice(def.deploy_alternate.iter().map(|d| d.span), "deploy alternate", owner, diags);
    let edges = def.deploy_edges.first().and_then(|dice| {
        if rules.ruleset.dice.iter().any(|d| d.name == dice.value.as_str()) {
            return Some(dice.value.to_string());
        }
        let help = match did_you_mean(&dice.value, rules.ruleset.dice.iter().map(|d| d.name.as_str())) {
            Some(s) => format!("did you mean `{s}`?"),
            None => format!("declare it in the ruleset: `dice {} d6`", dice.value),
        };
        diags.push(
            Diagnostic::error(UNKNOWN_TABLE, dice.span, format!("no die named `{}`", dice.value))
                .with_label("the home edges are rolled off with this die")
                .with_help(help),
        );
        None
    });
    let placement = def.deploy_alternate.first().and_then(|n| groups(n, diags));
    (edges, placement)
}

fn twice(mut spans: impl Iterator<Item = oc_diag::Span>, what: &str, owner: &str, diags: &mut Vec<Diagnostic>) {
    let Some(first) = spans.next() else { return };
    for extra in spans {
        diags.push(
            Diagnostic::error(DUPLICATE_FIELD, extra, format!("`{what}` is given twice in {owner}"))
                .with_secondary(first, "first given here")
                .with_help(format!("keep one `{what}`")),
        );
    }
}

fn groups(n: &Spanned<i64>, diags: &mut Vec<Diagnostic>) -> Option<u32> {
    match u32::try_from(n.value) {
        Ok(v) if (1..=MAX_PLACEMENT_UNITS).contains(&v) => Some(v),
        _ => {
            diags.push(
                Diagnostic::error(SCENARIO_PLACEMENT, n.span, format!("{} placement units is out of range", n.value))
                    .with_label("placement units per army")
                    .with_help(format!("place each army in 1 to {MAX_PLACEMENT_UNITS} groups (the seed's armies use 3 or 4)")),
            );
            None
        }
    }
}
