//! Declarations the engine reads only through another declaration (`oc::rules::unread`): a
//! weapon triangle without an expression reading `triangle`, an action's `cost` without a turn
//! formula pricing steps by it, a terrain's `elevation` without `situations { ground ... }`,
//! `blocks_sight` without `line_of_sight`, a terrain's `defense` without an expression reading
//! `terrain_defense`, a weapon type's `staff` without one reading `weapon.staff`, a `can_attack`
//! no combat formula reads (its units counter all the same), `on chart` without a `chart`
//! formula. Warnings, given once every item is lowered (a `when` of any tag may read
//! `triangle`).

use oc_diag::Diagnostic;
use oc_model as m;
use oc_syntax::ast;

use crate::codes::RULES_UNREAD;
use crate::env::Checker;

impl Checker<'_> {
    pub(super) fn unread_warnings(&mut self, items: &[&ast::Item], ruleset: &m::Ruleset) {
        let mut warnings = Vec::new();
        if !self.notes.reads_triangle {
            for item in items {
                let ast::Item::Triangle(t) = item else { continue };
                warnings.push(
                    Diagnostic::warning(RULES_UNREAD, t.span, "nothing reads this weapon triangle")
                        .with_label("no combat formula or `when` reads `triangle`")
                        .with_help("add `triangle` where it counts (`hit = roll(hit) <= attacker.skl + triangle`), or remove the triangle"),
                );
            }
        }
        if !self.notes.reads_action_cost {
            for span in std::mem::take(&mut self.notes.action_costs) {
                warnings.push(
                    Diagnostic::warning(RULES_UNREAD, span, "nothing reads this action's `cost`")
                        .with_label("no turn formula reads `cost` or `priced`, and the action has no `charge`")
                        .with_help("price steps by it in the ruleset's turn (`spend stamina` and `step_cost = max(1, cost)`), or drop the cost"),
                );
            }
        }
        for item in items {
            match item {
                // "staves never counter or follow up" where the formulas say so: the flag alone
                // does nothing.
                ast::Item::WeaponType(w) if w.staff && !self.notes.reads_weapon_staff => warnings.push(
                    Diagnostic::warning(RULES_UNREAD, w.span, format!("nothing reads that `{}` is a staff", w.name.value))
                        .with_label("no combat formula or `when` reads `weapon.staff`")
                        .with_help(
                            "read it where staves differ (`counter = not attacker.weapon.staff and ...`), or drop `staff`",
                        ),
                ),
                // The engine stops a unit that may not attack from attacking; its answers are
                // the combat formulas' to stop.
                ast::Item::Ruleset(r) if !self.notes.reads_can_attack_in_combat => {
                    for b in r.bases.iter().filter(|b| b.name.value == "can_attack") {
                        warnings.push(
                            Diagnostic::warning(RULES_UNREAD, b.name.span, "a unit that may not attack still counters and follows up")
                                .with_label("the engine refuses its attacks; no combat formula reads `can_attack`")
                                .with_help("read it in the answers: `counter = attacker.can_attack and ...` and `follow_up = attacker.can_attack and ...`"),
                        );
                    }
                }
                _ => {}
            }
        }
        // `on chart` runs on a strike's result on the charts, which the `chart` formula gives.
        if !ruleset.combat.iter().any(|f| f.name == "chart") {
            for item in items {
                let body = match item {
                    ast::Item::Tag(t) => &t.body,
                    ast::Item::Status(s) => &s.body,
                    _ => continue,
                };
                for stmt in body {
                    if let ast::Stmt::On { event, .. } = stmt {
                        if event.value == "chart" {
                            warnings.push(
                                Diagnostic::warning(RULES_UNREAD, event.span, "`on chart` never runs")
                                    .with_label("the ruleset's combat block has no `chart` formula")
                                    .with_help("give each strike its result on the charts (`chart = if roll(hit) == 1 then -1 else 0`), or drop the trigger"),
                            );
                        }
                    }
                }
            }
        }
        let ground = ruleset.situations.as_ref().is_some_and(|s| s.ground.is_some());
        let sight = ruleset.turn.line_of_sight;
        for name in &self.syms.terrains.order {
            let Some(t) = self.syms.terrains.get(name) else { continue };
            if let Some(e) = t.elevation.first().filter(|e| e.value != 0 && !ground) {
                warnings.push(
                    Diagnostic::warning(RULES_UNREAD, e.span, format!("nothing reads `{name}`'s elevation"))
                        .with_label("the ruleset's `situations` name no `ground` attribute")
                        .with_help("name the Int attribute that holds it in the ruleset (`situations { ground height }`), or drop `elevation`"),
                );
            }
            if let Some(d) = t.defense.first().filter(|d| d.value != 0 && !self.notes.reads_terrain_defense) {
                warnings.push(
                    Diagnostic::warning(RULES_UNREAD, d.span, format!("nothing reads `{name}`'s defense"))
                        .with_label("no combat formula or `when` reads `terrain_defense`")
                        .with_help("read it where it counts (`damage = attacker.str - defender.def - defender.terrain_defense`), or drop `defense`"),
                );
            }
            if let Some(span) = t.blocks_sight.filter(|_| !sight) {
                warnings.push(
                    Diagnostic::warning(RULES_UNREAD, span, format!("nothing reads whether `{name}` blocks sight"))
                        .with_label("the turn block has no `line_of_sight`; fog of war sees by distance")
                        .with_help("add `line_of_sight` to the ruleset's `turn { ... }`, or drop `blocks_sight`"),
                );
            }
        }
        self.sink.diags.extend(warnings);
    }
}
