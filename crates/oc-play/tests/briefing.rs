//! `oc_play::briefing`: a scenario's briefing says its objectives, time limit and what stands on
//! its map as players read them; the Outfitting check accepts new inventories and refuses a
//! changed class, a unit added or removed, each as a diagnostic on the new file.

mod common;

use oc_play::briefing::{self, MapThings, CLASS_CHANGED};

fn compiled(path: &std::path::Path) -> oc_play::setup::Compiled {
    match oc_play::setup::compile(path) {
        Ok(c) => c,
        Err(oc_play::Failure::Rejected { diagnostics, .. }) => panic!("{}: {:?}", path.display(), diagnostics),
        Err(oc_play::Failure::Refused(r)) => panic!("{}: {r}", path.display()),
    }
}

#[test]
fn the_briefing_says_the_objectives_and_the_map() {
    let path = common::repo("scenarios/grado-keep.oc");
    let c = compiled(&path);
    let s = briefing::pick(&c.rules.scenarios, None, |s| s.name.as_str(), "scenario", &path).unwrap();
    let (map, _) = oc_play::setup::scenario_map(&c.root, &c.rules, s).unwrap();
    let text = briefing::briefing(s, Some(&MapThings::of(&map, &c.rules, s)));
    assert!(text.starts_with("Siege of Grado Keep (SiegeOfGrado), on "), "{text}");
    assert!(text.contains("Attacker (deploys in") && text.contains("Defender (deploys in"), "{text}");
    assert!(text.contains("  Objective: "), "{text}");
    let json = briefing::json(s, Some(&MapThings::of(&map, &c.rules, s)));
    assert_eq!(json["name"], "SiegeOfGrado");
    assert!(json["attacker"]["objective"].is_string() && json["chests"].is_array(), "{json}");
    assert!(briefing::json(s, None).get("chests").is_none(), "no map, no things on it");
    let none = briefing::pick(&c.rules.scenarios, Some("Nowhere"), |s| s.name.as_str(), "scenario", &path).unwrap_err();
    assert!(none.message.contains("no scenario `Nowhere`") && none.message.contains("SiegeOfGrado"), "{none:?}");
}

#[test]
fn outfitting_changes_inventories_not_classes_nor_units() {
    let dir = tempfile::tempdir().unwrap();
    let before = std::fs::read_to_string(common::repo("scenarios/border-mulan.oc")).unwrap();
    std::fs::create_dir_all(dir.path().join("maps")).unwrap();
    std::fs::copy(common::repo("scenarios/maps/border-mulan.map.toml"), dir.path().join("maps/border-mulan.map.toml")).unwrap();
    std::fs::write(dir.path().join("before.oc"), &before).unwrap();
    let old_c = compiled(&dir.path().join("before.oc"));
    let old = old_c.rules.army("RenaisVanguard").unwrap();
    let scout = briefing::scout(&old_c.rules, old);
    assert!(scout.contains(&format!(" brings {} units (the ", old.units.len())), "{scout}");
    assert!(scout.lines().skip(1).all(|l| l.starts_with("  ")), "a line per class: {scout}");
    let forde = "unit Forde: Cavalier { items IronSword, IronLance }";
    let cases = [
        (forde.replace("IronSword,", "SteelSword,"), vec![]),
        (
            forde.replace("Cavalier { items IronSword, IronLance }", "Mercenary { items IronSword }"),
            vec!["`Forde` was a Cavalier"],
        ),
        (String::new(), vec!["`Forde` (Cavalier) is missing"]),
        (forde.replace("Forde", "Extra"), vec!["`Extra` was not in the army", "`Forde` (Cavalier) is missing"]),
    ];
    for (with, expected) in cases {
        std::fs::write(dir.path().join("after.oc"), before.replace(forde, &with)).unwrap();
        let new_c = compiled(&dir.path().join("after.oc"));
        let new = new_c.rules.army("RenaisVanguard").unwrap();
        let problems = briefing::outfit(old, new, &new_c.workspace);
        if with.contains("SteelSword") {
            assert_eq!(briefing::changes(old, new), ["Forde (Cavalier): IronSword, IronLance -> SteelSword, IronLance"]);
        }
        let messages: Vec<&str> = problems.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(problems.len(), expected.len(), "{with}: {messages:?}");
        for (d, want) in problems.iter().zip(&expected) {
            assert_eq!(d.code, CLASS_CHANGED);
            assert!(d.message.contains(want) && !d.help.is_empty(), "{with}: {d:?}");
        }
    }
}
