//! What the engine's own tests share.

use crate::{Engine, Loadout};

/// The matchups of `oc matrix` at three amounts of the defender's hit points: each class with
/// each weapon it may use, against each class with its first weapon, from the attacker's shortest
/// reach, at full, 1 and 3 HP. (Its attacker's `class:weapon`, the attacker, the defender, the
/// distance.)
pub(crate) fn matchups(e: &Engine) -> Vec<(String, Loadout, Loadout, i64)> {
    let defenders: Vec<Loadout> = e
        .rules
        .classes
        .iter()
        .filter_map(|c| e.weapons_for(&c.name).first().map(|w| Loadout::new(&c.name, Some(&w.name))))
        .collect();
    let mut out = Vec::new();
    for c in &e.rules.classes {
        for w in e.weapons_for(&c.name) {
            let Some((lo, _)) = e.reach(&c.name, &w.name) else { continue };
            let a = Loadout::new(&c.name, Some(&w.name));
            for d in &defenders {
                for hp in [None, Some(1), Some(3)] {
                    out.push((format!("{}:{}", c.name, w.name), a.clone(), Loadout { hp, ..d.clone() }, lo.max(1)));
                }
            }
        }
    }
    out
}
