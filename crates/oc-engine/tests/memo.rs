//! What an engine and an exchange keep (each side's strike as the exchange begins, a unit's
//! formulas that read it alone): whatever was forecast before, a forecast is the same bits as on
//! a fresh engine.

use oc_compiler::{MemoryHost, Workspace};
use oc_engine::{Engine, Loadout};

/// `when`s apply side by side, the attacker's first: one that sets what another adds to gives
/// another defence when the other unit attacks. A unit's counter is then not its attack on the
/// same unit, and must never be taken for it (an engine-wide table of strikes once did).
#[test]
fn a_counter_is_not_taken_for_the_attack_where_whens_apply_in_another_order() {
    let text = "tag Sunder on class, unit doc \"Its foe's defence is F.\" { when true { foe.def = F } }\n\
                tag Bulwark on class, unit doc \"Five steps more defence.\" { when true { def += 5 } }";
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut MemoryHost::one("t.oc", text), &["t.oc".to_string()]);
    let rules = c.rules.unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    let a = Loadout { tags: vec![("Sunder".into(), vec![])], ..Loadout::new("Fighter", Some("IronAxe")) };
    let b = Loadout { tags: vec![("Bulwark".into(), vec![])], ..Loadout::new("Knight", Some("IronLance")) };
    let e = Engine::new(rules.clone()).unwrap();
    let attack = e.forecast(&a, &b, 1).unwrap();
    let mirror = e.forecast(&b, &a, 1).unwrap();
    let fresh = Engine::new(rules).unwrap().forecast(&b, &a, 1).unwrap();
    assert_eq!(mirror.bits(), fresh.bits(), "after the attack:\n{mirror:?}\nfresh:\n{fresh:?}");
    // The order counts here: the Fighter's damage differs between its attack and its counter.
    assert_ne!(attack.attacker.damage, mirror.defender.damage, "{attack:?}\n{mirror:?}");
}

/// Every matchup of both revisions forecast in the matrix's order on one engine and in the
/// reverse order on another: the same bits, so nothing kept depends on what was asked first.
#[test]
fn forecasts_do_not_depend_on_what_the_engine_forecast_before() {
    for index in ["<std>/ratings.oc", "<std>/v06.oc"] {
        let rules = oc_compiler::stdlib::compile(index).unwrap().rules.unwrap();
        let forward = Engine::new(rules.clone()).unwrap();
        let backward = Engine::new(rules).unwrap();
        let units: Vec<Loadout> = forward
            .rules
            .classes
            .iter()
            .filter_map(|c| forward.weapons_for(&c.name).first().map(|w| Loadout::new(&c.name, Some(&w.name))))
            .collect();
        let mut matchups = Vec::new();
        for a in &units {
            let (lo, _) = forward.reach(&a.class, a.weapon.as_deref().unwrap_or_default()).unwrap_or((1, 1));
            for d in &units {
                for hp in [None, Some(2)] {
                    matchups.push((a.clone(), Loadout { hp, ..d.clone() }, lo.max(1)));
                }
            }
        }
        let one: Vec<_> = matchups.iter().map(|(a, d, r)| forward.forecast(a, d, *r).ok().map(|f| f.bits())).collect();
        let other: Vec<_> = matchups.iter().rev().map(|(a, d, r)| backward.forecast(a, d, *r).ok().map(|f| f.bits())).collect();
        for ((m, x), y) in matchups.iter().zip(&one).zip(other.iter().rev()) {
            assert_eq!(x, y, "{index}: {} against {} at {}", m.0.class, m.1.class, m.2);
        }
    }
}

/// A loadout prepared by one engine and forecast by another: the other's own forecast.
#[test]
fn a_unit_prepared_by_another_engine_forecasts_as_its_own() {
    let rules = oc_compiler::stdlib::compile("<std>/ratings.oc").unwrap().rules.unwrap();
    let (x, y) = (Engine::new(rules.clone()).unwrap(), Engine::new(rules).unwrap());
    let a = Loadout::new("Myrmidon", Some("IronSword"));
    let d = Loadout::new("Fighter", Some("IronAxe"));
    let (pa, pd) = (x.prepare(&a).unwrap(), x.prepare(&d).unwrap());
    let from_x = x.forecast_prepared(&pa, &pd, 1).unwrap();
    let from_y = y.forecast_prepared(&pa, &pd, 1).unwrap();
    assert_eq!(from_x.bits(), from_y.bits());
    assert_eq!(from_y.bits(), y.forecast(&a, &d, 1).unwrap().bits());
}

/// A formula that reads one unit alone is worked out once per unit, and so is each formula it
/// refers to: a chain of forty formulas each naming the one before three times (the same value,
/// 3^40 references) is forty evaluations, not a hang.
#[test]
fn a_chain_of_one_unit_formulas_is_worked_out_once_each() {
    let std = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../oc-compiler/std");
    let read = |p: &str| std::fs::read_to_string(std.join(p)).unwrap();
    let mut files = std::collections::BTreeMap::new();
    files.insert("main.oc".to_string(), read("ratings.oc"));
    for f in ["ruleset", "world", "tags", "statuses", "classes", "items"] {
        files.insert(format!("ratings/{f}.oc"), read(&format!("ratings/{f}.oc")));
    }
    files.insert("common/objectives.oc".to_string(), read("common/objectives.oc"));
    let chain: String = (1..=40).map(|k| format!("        _c{k} = _c{} + _c{} - _c{}\n", k - 1, k - 1, k - 1)).collect();
    let ruleset = files.get_mut("ratings/ruleset.oc").unwrap();
    assert!(ruleset.contains("        strikes = attacker.strikes\n"), "the ratings ruleset's strikes formula moved");
    *ruleset = ruleset.replace(
        "        strikes = attacker.strikes\n",
        &format!("        _c0 = attacker.strikes\n{chain}        strikes = _c40\n"),
    );
    let mut ws = Workspace::new();
    let (c, _) = ws.compile(&mut MemoryHost(files), &["main.oc".to_string()]);
    let rules = c.rules.unwrap_or_else(|| panic!("{:#?}", c.diagnostics));
    let e = Engine::new(rules).unwrap();
    let plain = Engine::new(oc_compiler::stdlib::compile("<std>/ratings.oc").unwrap().rules.unwrap()).unwrap();
    let a = Loadout::new("Myrmidon", Some("IronSword"));
    let d = Loadout::new("Fighter", Some("IronAxe"));
    assert_eq!(e.forecast(&a, &d, 1).unwrap().bits(), plain.forecast(&a, &d, 1).unwrap().bits());
}

/// What a formula reads is worked out from the formulas before it (what a strike's table of
/// outcomes keys on): a model from elsewhere whose formula refers to a later one is refused, not
/// run with a wrong idea of what it reads.
#[test]
fn a_model_whose_formula_refers_to_a_later_one_is_refused() {
    let mut rules = oc_compiler::stdlib::compile("<std>/ratings.oc").unwrap().rules.unwrap();
    let combat = &mut rules.ruleset.combat;
    let hit = combat.iter().position(|f| f.name == "hit").unwrap();
    let moved = combat.remove(hit);
    combat.insert(0, moved);
    let err = Engine::new(rules).err().expect("refused");
    assert!(err.to_string().contains("the formula hit refers to"), "{err}");
}
