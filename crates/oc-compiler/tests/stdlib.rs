//! The compiled standard library against the numbers of seed 000 (Officer's Chess, ratings
//! revision). The tables below are quoted from the seed, cell for cell.

use oc_compiler::{Host, Workspace};
use oc_model::{Rules, Value};

struct NoFiles;

impl Host for NoFiles {
    fn read(&mut self, _path: &str) -> Result<String, oc_compiler::ReadError> {
        Err(oc_compiler::ReadError::NoProject)
    }
}

fn stdlib() -> Rules {
    let mut ws = Workspace::new();
    let compilation = ws.compile_ids(&mut NoFiles, &[]);
    assert!(compilation.diagnostics.is_empty(), "the standard library has diagnostics: {:#?}", compilation.diagnostics);
    compilation.rules.expect("the standard library compiles")
}

const RATINGS: [&str; 7] = ["F", "E", "D", "C", "B", "A", "S"];

/// Seed 000, "To Hit Table": rows Skl F..S, columns target Spd F..S.
const TO_HIT: [[i64; 7]; 7] = [
    [60, 50, 40, 30, 20, 10, 10],
    [70, 60, 50, 50, 40, 30, 20],
    [80, 70, 60, 60, 50, 40, 30],
    [90, 80, 80, 60, 50, 50, 40],
    [100, 90, 80, 70, 60, 50, 40],
    [100, 100, 90, 80, 70, 60, 50],
    [100, 100, 90, 90, 80, 70, 60],
];

/// Seed 000, "Damage Table": rows Atk F..S, columns Def F..S.
const DAMAGE: [[i64; 7]; 7] = [
    [3, 2, 1, 1, 0, 0, 0],
    [3, 3, 2, 1, 0, 0, 0],
    [4, 3, 3, 2, 1, 0, 0],
    [5, 4, 3, 3, 2, 1, 1],
    [6, 5, 4, 3, 3, 2, 1],
    [6, 6, 5, 4, 3, 3, 2],
    [7, 7, 6, 5, 4, 3, 3],
];

/// Seed 000, "Staff Range": F..S.
const STAFF_RANGE: [i64; 7] = [1, 2, 3, 4, 4, 5, 6];

fn cell(rules: &Rules, table: &str, steps: &[usize]) -> i64 {
    let t = rules.ruleset.table(table).unwrap_or_else(|| panic!("no table {table}"));
    match t.get(&rules.ruleset, steps) {
        Some(Value::Int(n)) => *n,
        other => panic!("{table}{steps:?} is {other:?}"),
    }
}

#[test]
fn to_hit_table_matches_the_seed_cell_for_cell() {
    let rules = stdlib();
    for (skl, row) in TO_HIT.iter().enumerate() {
        for (spd, want) in row.iter().enumerate() {
            assert_eq!(cell(&rules, "to_hit", &[skl, spd]), *want, "To Hit Skl {} vs Spd {}", RATINGS[skl], RATINGS[spd]);
        }
    }
}

#[test]
fn damage_table_matches_the_seed_cell_for_cell() {
    let rules = stdlib();
    for (atk, row) in DAMAGE.iter().enumerate() {
        for (def, want) in row.iter().enumerate() {
            assert_eq!(cell(&rules, "damage", &[atk, def]), *want, "Damage Atk {} vs Def {}", RATINGS[atk], RATINGS[def]);
        }
    }
}

#[test]
fn staff_range_table_matches_the_seed() {
    let rules = stdlib();
    for (mag, want) in STAFF_RANGE.iter().enumerate() {
        assert_eq!(cell(&rules, "staff_range", &[mag]), *want, "Staff Range for Mag {}", RATINGS[mag]);
    }
}

#[test]
fn ruleset_basics_match_the_seed() {
    let rules = stdlib();
    let rs = &rules.ruleset;
    assert_eq!(rs.scale("Rating").unwrap().steps, RATINGS);
    let range = &rs.class_ranges[0];
    assert_eq!((range.low.clone(), range.high.clone()), (step(1), step(5)), "class range E..A");
    let base = |n: &str| rs.bases.iter().find(|b| b.name == n).unwrap().value.clone();
    assert_eq!(base("hp"), Value::Int(20), "All base units have an HP of 20");
    assert_eq!(base("movement"), Value::Int(5), "a default Movement of 5 spaces");
    assert_eq!(rs.inventory, 3, "Units can carry up to 3 Items");
    assert_eq!(rs.weight, (-2, 2), "Weight ranges between -2 and 2");
    assert_eq!(rs.dice[0].shape.plain_sides(), Some(100), "roll under on a d100");
    let stats: Vec<&str> = rs.stats.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(stats, ["str", "mag", "skl", "spd", "def", "res"]);
    for f in ["hit", "critical", "damage", "critical_damage", "follow_up"] {
        assert!(rs.formula(f).is_some(), "combat formula {f}");
    }
}

fn step(index: u32) -> Value {
    Value::Step { scale: "Rating".into(), index }
}

/// Seed 000, "Terrain Table": name, Def/Res, Foot, Armored, Cavalry, Flying ("-" is None), special.
/// The seed's Sea/Lake row is two terrains with the same numbers.
#[allow(clippy::type_complexity)]
const TERRAIN_TABLE: &[(&str, i64, [Option<u32>; 4], &str)] = &[
    ("Sea", 0, [None, None, None, Some(1)], ""),
    ("Lake", 0, [None, None, None, Some(1)], ""),
    ("River", 0, [Some(5), None, None, Some(1)], ""),
    ("Mountain", 1, [Some(4), None, None, Some(1)], ""),
    ("Desert", 0, [Some(2), Some(3), Some(2), Some(1)], ""),
    ("Forest", 1, [Some(2), Some(2), Some(3), Some(1)], ""),
    ("Pillars", 1, [Some(2), Some(2), Some(3), Some(1)], ""),
    ("Snag", 0, [None, None, None, None], "destroy:30:Bridge"),
    ("Wall", 0, [None, None, None, None], "destroy:30:Floor"),
    ("Door", 0, [None, None, None, None], "open:Floor"),
    ("Fort", 2, [Some(2), Some(2), Some(2), Some(1)], "heal:2"),
    ("CastleGate", 2, [Some(1), Some(1), Some(1), Some(1)], "heal:2"),
    ("Throne", 2, [Some(1), Some(1), Some(1), Some(1)], "heal:2"),
];

#[test]
fn terrain_table_matches_the_seed_row_for_row() {
    let rules = stdlib();
    let columns = ["Foot", "Armored", "Cavalry", "Flying"];
    for (name, defense, costs, special) in TERRAIN_TABLE {
        let t = rules.terrain(name).unwrap_or_else(|| panic!("no terrain {name}"));
        assert_eq!(t.defense, *defense, "{name} Def/Res");
        for (column, cost) in columns.iter().zip(costs) {
            assert_eq!(t.costs.get(*column).copied().flatten(), *cost, "{name} {column}");
        }
        let parts: Vec<&str> = special.split(':').collect();
        match parts.as_slice() {
            ["destroy", hp, becomes] => {
                assert_eq!(t.hp, Some(hp.parse().unwrap()), "{name} HP");
                assert_eq!(t.becomes.as_deref(), Some(*becomes), "{name} becomes");
            }
            ["open", becomes] => {
                assert_eq!(t.becomes.as_deref(), Some(*becomes));
                assert_eq!(t.opened_by, ["Pick", "MasterKey"], "Becomes Floor with Master Key or Pick");
            }
            ["heal", amount] => {
                let heal = t.heal.as_ref().unwrap();
                assert_eq!(heal.amount, amount.parse::<i64>().unwrap());
                assert_eq!(heal.event, oc_model::Event::EndOfTurn, "Heal 2 End of Turn");
            }
            _ => assert!(t.heal.is_none() && t.hp.is_none() && t.becomes.is_none(), "{name} has no special"),
        }
    }
    // "Tile types not listed cost 1 move to enter."
    for name in ["Plains", "Sand", "Buildings", "Ruins", "Floor", "Stairs", "Bridge", "VillageGate"] {
        let t = rules.terrain(name).unwrap_or_else(|| panic!("no terrain {name}"));
        assert!(columns.iter().all(|c| t.costs.get(*c) == Some(&Some(1))), "{name} costs 1 for everyone");
        assert_eq!(t.defense, 0);
    }
}

#[test]
fn weapon_triangles_match_the_seed() {
    let rules = stdlib();
    // Seed table: Weapon | +1 Damage/Skill against | -1 against.
    for (weapon, better, worse) in [
        ("Swords", "Axes", "Lances"),
        ("Lances", "Swords", "Axes"),
        ("Axes", "Lances", "Swords"),
        ("Reason", "Faith", "Dark"),
        ("Dark", "Reason", "Faith"),
        ("Faith", "Dark", "Reason"),
    ] {
        assert_eq!(rules.triangle(weapon, better), 1, "{weapon} vs {better}");
        assert_eq!(rules.triangle(weapon, worse), -1, "{weapon} vs {worse}");
        assert_eq!(rules.triangle(weapon, weapon), 0);
    }
    assert_eq!(rules.triangle("Bows", "Swords"), 0);
}

#[test]
fn every_tag_and_status_of_the_seed_is_defined_with_its_parameters() {
    let rules = stdlib();
    let general = [
        "AoE",
        "Armored",
        "Assassinate",
        "Blessed(Int)",
        "Bonus(StatMod)",
        "Brave",
        "Canto",
        "Cavalry",
        "Complex",
        "Consumable(Int)",
        "Countermeasure(Tag)",
        "Decimate",
        "Devastate",
        "Devil",
        "DistantCounter",
        "Dragon",
        "Drain",
        "Effective(Tag)",
        "Exclusive(Class)",
        "Fast(Int)",
        "Flying",
        "GreaterHeal(Int)",
        "Guarded",
        "Inaccurate(Int)",
        "Ineffective(Tag)",
        "Inflict(StatMod)",
        "Inverted",
        "Lucky(Int)",
        "Magic(WeaponType)",
        "Monster",
        "Piercing",
        "Punishing(Int)",
        "Shifter",
        "Slow(Int)",
        "SpellRange(Int)",
        "Status(Status)",
    ];
    let special = ["Dance", "Escape", "Heal(Int)", "Pick", "Raze", "Rescue", "Restore", "Seize", "Torch(Int)", "Warp"];
    let scenario = ["Fleeing", "Leader", "Saboteur"];
    assert_eq!((general.len(), special.len(), scenario.len()), (36, 10, 3));
    for want in general.iter().chain(&special).chain(&scenario) {
        let (name, param) = match want.split_once('(') {
            Some((n, p)) => (n, Some(p.trim_end_matches(')'))),
            None => (*want, None),
        };
        let tag = rules.tag(name).unwrap_or_else(|| panic!("no tag {name}"));
        let params: Vec<String> = tag.params.iter().map(|p| format!("{:?}", p.ty)).collect();
        match param {
            Some(_) => assert_eq!(params.len(), 1, "{name} takes one parameter"),
            None => assert!(params.is_empty(), "{name} takes no parameter"),
        }
        if let Some(p) = param {
            let ty = serde_json::to_value(&tag.params[0].ty).unwrap();
            assert_eq!(ty["kind"].as_str().unwrap().replace('_', ""), p.to_lowercase(), "{name} parameter type");
        }
        assert!(tag.doc.is_some(), "{name} documents its effect");
    }
    for status in ["Barrier", "Berserk", "Petrified", "Poisoned", "Silenced", "Sleep", "Slowed"] {
        assert!(rules.status(status).is_some(), "no status {status}");
    }
    assert_eq!(rules.statuses.len(), 7);
    // Seed: "At the start of a new round, roll a D10. On 1~5, Unit loses ..."
    for status in ["Berserk", "Petrified", "Sleep"] {
        let s = rules.status(status).unwrap();
        assert_eq!(s.clears.len(), 1);
        assert_eq!(s.clears[0].event, oc_model::Event::StartOfRound);
    }
    for status in ["Silenced", "Slowed"] {
        assert_eq!(rules.status(status).unwrap().lasts, Some(oc_model::Duration::Activations(1)), "{status}: one activation");
    }
    // Special actions are actions; a Lucky on class and weapon stacks.
    for name in ["Dance", "Escape", "Heal", "Pick", "Raze", "Rescue", "Restore", "Seize", "Torch", "Warp"] {
        let tag = rules.tag(name).unwrap();
        assert!(tag.effects.iter().any(|e| matches!(e, oc_model::Effect::Action(_))), "{name} is an action");
    }
    assert!(rules.tag("Lucky").unwrap().stacks);
}

#[test]
fn the_roster_is_buyable_and_inside_the_class_range() {
    let rules = stdlib();
    assert!(rules.classes.len() >= 30, "{} classes", rules.classes.len());
    for class in &rules.classes {
        assert!(class.cost > 0, "{} has a cost", class.name);
        let ratings = match &class.forms {
            Some(forms) => vec![&class.ratings, &forms.normal.ratings, &forms.transformed.ratings],
            None => vec![&class.ratings],
        };
        for r in ratings {
            assert_eq!(r.len(), 6, "{} rates every stat", class.name);
            for v in r.values() {
                let Value::Step { index, .. } = v else { panic!("{} has a non-rating", class.name) };
                assert!((1..=5).contains(index), "{} is inside E..A", class.name);
            }
        }
    }
    for name in ["Dancer", "Thief", "Cleric", "Troubadour", "Manakete", "Taguel", "Lord", "Myrmidon"] {
        assert!(rules.class(name).is_some(), "no class {name}");
    }
    assert!(rules.classes.iter().filter(|c| c.promoted).count() >= 15, "promoted classes");
    for shifter in ["Manakete", "Taguel"] {
        assert!(rules.class(shifter).unwrap().forms.is_some(), "{shifter} has both forms");
    }
    assert!(rules.classes.iter().any(|c| c.tags.iter().any(|t| t.tag == "Dance")));
    assert!(rules.class("Thief").unwrap().tags.iter().any(|t| t.tag == "Pick"));
}

#[test]
fn the_armory_covers_every_weapon_type_and_the_special_staves() {
    let rules = stdlib();
    assert!(rules.items.len() >= 45, "{} items", rules.items.len());
    for wt in &rules.weapon_types {
        assert!(rules.items.iter().any(|i| i.weapon_type.as_deref() == Some(&wt.name)), "no weapon of type {}", wt.name);
    }
    for tag in ["Heal", "Restore", "Warp", "Rescue", "Torch"] {
        assert!(
            rules.items.iter().any(|i| i.weapon_type.as_deref() == Some("Staves") && i.tags.iter().any(|t| t.tag == tag)),
            "no staff with {tag}"
        );
    }
    for name in ["MasterKey", "Vulnerary", "IronSword"] {
        assert!(rules.item(name).is_some(), "no item {name}");
    }
    for item in &rules.items {
        assert!((-2..=2).contains(&item.weight), "{} weight", item.name);
        assert!(item.cost > 0, "{} has a cost", item.name);
    }
    // Every class's kit is something it can use.
    for class in &rules.classes {
        assert!(class.kit.len() <= 3, "{} kit size", class.name);
    }
}

#[test]
fn the_model_round_trips_through_json() {
    let rules = stdlib();
    let json = serde_json::to_string(&rules).unwrap();
    let back: Rules = serde_json::from_str(&json).unwrap();
    assert_eq!(back, rules);
    assert_eq!(back.format_version, oc_model::FORMAT_VERSION);
}

#[test]
fn the_v06_ruleset_has_its_own_roster_and_fodlan_tags() {
    let mut ws = Workspace::new();
    let id = ws.id_of("<std>/v06.oc").unwrap();
    let c = ws.compile_ids(&mut NoFiles, &[id]);
    assert!(c.diagnostics.is_empty(), "{:#?}", c.diagnostics);
    let rules = c.rules.unwrap();
    assert_eq!(rules.ruleset.name, "officers_chess_v06");
    assert_eq!(rules.ruleset.dice[0].shape.plain_sides(), Some(20), "Roll 1d20");
    assert!(rules.classes.len() >= 15 && rules.items.len() >= 25, "{} classes, {} items", rules.classes.len(), rules.items.len());
    assert!(rules.classes.iter().all(|c| c.cost > 0) && rules.items.iter().all(|i| i.cost > 0), "gold costs");
    assert!(
        rules.items.iter().any(|i| i.kind == oc_model::ItemKind::Accessory && !i.modifiers.is_empty()),
        "accessories with a Defense bonus"
    );
    for tag in ["Sacred", "Relic", "Art"] {
        assert!(rules.tag(tag).is_some(), "{tag}");
    }
    // Seed 001's own numbers where they differ from the ratings revision.
    let barrier = serde_json::to_string(&rules.status("Barrier").unwrap().effects).unwrap();
    assert!(barrier.contains("\"amount\":2"), "Barrier: Bonus(Res+2)");
}

/// A clean compilation holds its model once, in `rules`; one with errors holds what could be
/// built in `partial`; `into_model` gives whichever there is.
#[test]
fn the_model_is_held_once_and_into_model_gives_it_either_way() {
    struct One(&'static str);
    impl Host for One {
        fn read(&mut self, path: &str) -> Result<String, oc_compiler::ReadError> {
            if path == "user.oc" {
                Ok(self.0.to_string())
            } else {
                Err(oc_compiler::ReadError::NotFound)
            }
        }
    }
    let clean = Workspace::new()
        .compile(
            &mut One("class Squire { ratings { str C mag E skl C spd C def D res E } wields Swords cost 400 }"),
            &["user.oc".to_string()],
        )
        .0;
    assert_eq!(clean.error_count(), 0, "{:?}", clean.diagnostics);
    assert!(clean.rules.is_some() && clean.partial.is_none());
    let model = clean.into_model().expect("a model");
    assert!(model.class("Squire").is_some());
    let broken = Workspace::new().compile(&mut One("class Squire { wields Flutes cost 400 }"), &["user.oc".to_string()]).0;
    assert!(broken.error_count() > 0);
    assert!(broken.rules.is_none() && broken.partial.is_some());
    let model = broken.into_model().expect("the partial model");
    assert!(model.class("Lord").is_some(), "the standard library's classes are still there");
}
