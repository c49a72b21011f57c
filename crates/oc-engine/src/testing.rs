//! What the engine's own tests share.

use crate::{Engine, Loadout};

/// The engine of `source` (the file `field.oc`, whose scenario names its map `field.map.toml`)
/// and that map, `map_text`, as a battle lays it out: a small field a test writes out itself.
pub(crate) fn field(source: &str, map_text: &str) -> (Engine, oc_model::BattleMap) {
    field_named(("field.oc", source), ("field.map.toml", map_text))
}

/// [`field`] with the files' names: the scenario's file `(name, source)` and the map's
/// `(name, text)`, at the name the scenario gives it (a shipped scenario read with
/// `include_str!`).
#[allow(clippy::expect_used)]
pub(crate) fn field_named((name, source): (&str, &str), (map_name, map_text): (&str, &str)) -> (Engine, oc_model::BattleMap) {
    let mut files = std::collections::BTreeMap::new();
    files.insert(name.to_string(), source.to_string());
    files.insert(map_name.to_string(), map_text.to_string());
    let (c, _) = oc_compiler::Workspace::new().compile(&mut oc_compiler::MemoryHost(files), &[name.to_string()]);
    let engine = Engine::new(c.rules.unwrap_or_else(|| panic!("{:#?}", c.diagnostics))).expect("the engine takes them");
    let (map, diags) = oc_atlas::parse(oc_diag::FileId(0), map_text);
    assert!(diags.is_empty(), "{diags:?}");
    let mut map = map.expect("a map");
    map.resolve(&engine.rules);
    (engine, map.battle_map())
}

/// A small field and its rules, for a test: `rows` (`#` a wall), the attacker deploying in its
/// two first columns and the defender in its two last (three rows); the scenario `Field` on it
/// (`rounds 6 then defender`, each side to rout the other, `extra` lines in its body) under
/// `import` (none: the built-in ratings), each side's army of `units` (unit lines).
pub(crate) fn duel(rows: &[&str], import: &str, extra: &str, units: [&str; 2]) -> (Engine, oc_model::BattleMap) {
    let import = if import.is_empty() { String::new() } else { format!("import \"{import}\"\n") };
    duel_after(&import, rows, extra, units)
}

/// [`duel`] with `head` first in its file, as written (its import, or definitions of the test's
/// own: a class), the built-in ratings without an import.
pub(crate) fn duel_after(head: &str, rows: &[&str], extra: &str, units: [&str; 2]) -> (Engine, oc_model::BattleMap) {
    let (width, height) = (rows.first().map_or(0, |r| r.len()), rows.len());
    let rows = rows.iter().map(|r| format!("\"{r}\"")).collect::<Vec<_>>().join(", ");
    let map_text = format!(
        "name = \"Field\"\nwidth = {width}\nheight = {height}\nrows = [{rows}]\n\
         [[regions]]\nname = \"a\"\nkind = \"deployment\"\nside = \"attacker\"\nrect = [0, 0, 2, 3]\n\
         [[regions]]\nname = \"d\"\nkind = \"deployment\"\nside = \"defender\"\nrect = [{}, 0, 2, 3]\n",
        width.saturating_sub(2)
    );
    let [a, d] = units;
    let source = format!(
        "{head}scenario Field {{\n    map \"field.map.toml\"\n    rounds 6 then defender\n{extra}\
         attacker {{ zone \"a\" war_chest 99999 units 1..4 win rout all }}\n\
         defender {{ zone \"d\" war_chest 99999 units 1..4 win rout all }}\n}}\n\
         army A for Field attacker {{ {a} }}\narmy D for Field defender {{ {d} }}\n"
    );
    field(&source, &map_text)
}

/// The field the fog tests share: [`duel`]'s, 20 by 7, open, under fog (vision 2), each side's
/// army of `units`.
pub(crate) fn fog_duel(units: [&str; 2]) -> (Engine, oc_model::BattleMap) {
    duel(&["...................."; 7], "", "    fog vision 2\n", units)
}

/// Each side's army in `e`'s rules, attacker first.
#[allow(clippy::expect_used)]
pub(crate) fn armies(e: &Engine) -> [&oc_model::Army; 2] {
    [oc_model::SideId::Attacker, oc_model::SideId::Defender]
        .map(|side| e.rules.armies.iter().find(|x| x.side == side).expect("an army a side"))
}

/// Each class with its first usable weapon, in the rules' order.
pub(crate) fn roster(e: &Engine) -> Vec<Loadout> {
    e.rules.classes.iter().filter_map(|c| e.weapons_for(&c.name).first().map(|w| Loadout::new(&c.name, Some(&w.name)))).collect()
}

/// Every built-in ruleset's [`matchups`], forecast by its engine as built and by one with `off`
/// applied (a way of working switched off): the same bits, over more than 100 matchups each.
/// Then `check` is given the ruleset's place in `RULESETS`, its name and the engine as built.
#[allow(clippy::expect_used)]
pub(crate) fn agree_with(off: impl Fn(&mut Engine), check: impl Fn(usize, &str, &Engine)) {
    for (k, (name, index)) in oc_compiler::stdlib::RULESETS.iter().enumerate() {
        let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
        let on = Engine::new(rules.clone()).expect("runs");
        let mut other = Engine::new(rules).expect("runs");
        off(&mut other);
        let mut compared = 0;
        for (label, a, d, r) in matchups(&on) {
            let (Ok(x), Ok(y)) = (on.forecast(&a, &d, r), other.forecast(&a, &d, r)) else { continue };
            assert_eq!(x.bits(), y.bits(), "{name}: {label} against {} (hp {:?})", d.class, d.hp);
            compared += 1;
        }
        assert!(compared > 100, "{name}: {compared} matchups");
        check(k, name, &on);
    }
}

/// The matchups of `oc matrix` at three amounts of the defender's hit points: each class with
/// each weapon it may use, against each class with its first weapon, from the attacker's shortest
/// reach, at full, 1 and 3 HP. (Its attacker's `class:weapon`, the attacker, the defender, the
/// distance.)
pub(crate) fn matchups(e: &Engine) -> Vec<(String, Loadout, Loadout, i64)> {
    let defenders = roster(e);
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

/// An ending's figures as bits (its start, odds and each side's hit points with their
/// chances): two endings equal bit for bit have equal lists.
pub(crate) fn ending_bits(e: &crate::Ending) -> Vec<u64> {
    let o = &e.odds;
    let mut out: Vec<u64> = e.start.iter().map(|h| *h as u64).collect();
    out.extend([o.attacker_routed, o.defender_routed, o.attacker_damage_taken, o.defender_damage_taken].map(f64::to_bits));
    for (hp, p) in e.attacker_hp.iter().chain([(&i64::MIN, &0.0)]).chain(&e.defender_hp) {
        out.extend([*hp as u64, p.to_bits()]);
    }
    out
}

#[cfg(test)]
#[allow(clippy::expect_used)]
mod tests {
    use crate::{Engine, Strategy};

    /// Every fast path at once against the reference (every one off): the same bits on every
    /// built-in matchup. (Each fast path alone is held to it beside its code.)
    #[test]
    fn the_fast_strategy_is_the_reference() {
        // The joint enumeration of an exploding strike is slow unoptimised: factored in both.
        let reference = Strategy { factor_above: Strategy::FAST.factor_above, ..Strategy::REFERENCE };
        crate::testing::agree_with(|e| e.ir.strategy = reference, |_, _, _| {});
    }

    /// The triangle by interned weapon type is `Rules::triangle` by name, for every pair of
    /// every built-in ruleset's weapon types; and a unit's weapon type is interned.
    #[test]
    fn triangle_by_id_is_the_triangle_by_name() {
        for (name, index) in oc_compiler::stdlib::RULESETS {
            let rules = oc_compiler::stdlib::compile(index).and_then(|c| c.rules).expect("a built-in ruleset compiles");
            let e = Engine::new(rules).expect("runs");
            let mut favoured = 0;
            for p in &e.rules.weapon_types {
                for q in &e.rules.weapon_types {
                    let ids = (e.ir.name_id(&p.name).expect("interned"), e.ir.name_id(&q.name).expect("interned"));
                    let by_name = e.rules.triangle(&p.name, &q.name);
                    assert_eq!(e.triangle(ids.0, ids.1), by_name, "{name}: {} against {}", p.name, q.name);
                    favoured += usize::from(by_name > 0);
                }
            }
            if !e.rules.triangles.is_empty() {
                assert!(favoured > 0, "{name}: no pair favoured");
            }
        }
    }
}
