//! The analysis on projects in memory: each case is files with a cursor (`$0`) and what a
//! feature answers there, names and places written out.
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use oc_ide::complete::CompletionKind;
use oc_ide::tokens::TokenType;
use oc_ide::{Db, DefKind, FilePosition, MemoryDb};

/// A project of `files` (the first holds `$0`): the db and the cursor's position in file one.
fn project(files: &[(&str, &str)]) -> (MemoryDb, String, usize) {
    let (path, text) = files[0];
    let offset = text.find("$0").unwrap_or(0);
    let mut owned: Vec<(String, String)> = files.iter().map(|(p, t)| (p.to_string(), t.to_string())).collect();
    owned[0].1 = text.replace("$0", "");
    let refs: Vec<(&str, &str)> = owned.iter().map(|(p, t)| (p.as_str(), t.as_str())).collect();
    (MemoryDb::new(&refs), path.to_string(), offset)
}

/// The text of `range` of a file.
fn slice<'a>(db: &'a MemoryDb, path: &str, start: usize, end: usize) -> &'a str {
    &db.text(path).unwrap()[start..end]
}

const RULES: &str = "\
movement Hover, Mounted
tag Mounted on class doc \"Moves by the Mounted column.\" { movement_type = Mounted }
tag Effective(t: Tag) on weapon { when defender has t { damage += 3 } }
tag Quick(x: Int) on class, weapon { movement += x }
";

#[test]
fn names_resolve_by_kind_not_by_spelling() {
    // The tag `Mounted`, not the movement type of the same name.
    let main = "import \"rules.oc\"\nclass Knight { ratings { str C mag E skl C spd D def B res D } wields Lances tags Mou$0nted cost 1 }\nweapon Pike { type Lances might 1 weight 1 range 1 tags Effective(Mounted) cost 1 }\n";
    let (db, path, offset) = project(&[("main.oc", main), ("rules.oc", RULES)]);
    let refs = oc_ide::navigate::references(&db, FilePosition { path: &path, offset }, true).unwrap();
    let found: Vec<(String, &str)> = refs.iter().map(|r| (r.path.clone(), slice(&db, &r.path, r.start, r.end))).collect();
    // The definition, the class's use and `Effective(Mounted)` (its parameter takes a tag);
    // not `movement Hover, Mounted` nor `movement_type = Mounted`.
    assert_eq!(found.len(), 3, "{refs:?}");
    let lines: Vec<usize> = refs.iter().map(|r| db.text(&r.path).unwrap()[..r.start].matches('\n').count()).collect();
    assert_eq!((refs[0].path.as_str(), lines[0]), ("main.oc", 1));
    assert_eq!((refs[1].path.as_str(), lines[1]), ("main.oc", 2));
    assert_eq!((refs[2].path.as_str(), lines[2]), ("rules.oc", 1));
    // The movement type's own uses: its definition and the tag's body.
    let movement = RULES.find("Mounted\n").unwrap() + 2;
    let refs = oc_ide::navigate::references(&db, FilePosition { path: "rules.oc", offset: movement }, true).unwrap();
    let lines: Vec<usize> = refs.iter().map(|r| RULES[..r.start].matches('\n').count()).collect();
    assert_eq!(lines, [0, 1], "{refs:?}");
    assert!(refs.iter().all(|r| slice(&db, &r.path, r.start, r.end) == "Mounted"));
}

#[test]
fn rename_follows_resolution_and_parameters_are_their_own() {
    let main = "import \"rules.oc\"\nclass Runner { ratings { str C mag E skl C spd D def B res D } wields Swords tags Qu$0ick(2) cost 1 }\n";
    let (db, path, offset) = project(&[("main.oc", main), ("rules.oc", RULES)]);
    let edits = oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, "Swift").unwrap();
    let files: Vec<&str> = edits.iter().map(|(p, _)| p.as_str()).collect();
    assert_eq!(files, ["main.oc", "rules.oc"]);
    assert!(edits.iter().all(|(_, e)| e.len() == 1));
    // A parameter renames inside its tag only.
    let x = RULES.find("x: Int").unwrap();
    let edits = oc_ide::navigate::rename(&db, FilePosition { path: "rules.oc", offset: x }, "amount").unwrap();
    assert_eq!(edits.len(), 1);
    let spans: Vec<&str> = edits[0].1.iter().map(|e| &RULES[e.start..e.end]).collect();
    assert_eq!(spans, ["x", "x"]);
    // The standard library is read-only; a name already taken is refused.
    let lucky = "class A { tags Lu$0cky(1) cost 1 }\n";
    let (db, path, offset) = project(&[("a.oc", lucky)]);
    let refused = oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, "L").unwrap_err();
    assert_eq!(refused.to_string(), "`Lucky` is defined in the standard library, which is read-only");
    let (db, path, offset) = project(&[("main.oc", main), ("rules.oc", RULES)]);
    let taken = oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, "Lucky").unwrap_err();
    assert_eq!(taken, oc_ide::navigate::RenameRefused::Taken { new_name: "Lucky".into() });
    // A word of the language would change what the uses mean; a name past the most is refused
    // (a megabyte one made a gigabyte of edits).
    for word in ["true", "not", "if", "self", "d6", "d10", "seize"] {
        let refused = oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, word).unwrap_err();
        assert_eq!(refused, oc_ide::navigate::RenameRefused::Reserved { new_name: word.into() }, "{word}");
    }
    let long = "N".repeat(1 << 20);
    let refused = oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, &long).unwrap_err();
    assert!(matches!(refused, oc_ide::navigate::RenameRefused::NotAName { .. }), "{refused:?}");
    assert!(refused.to_string().len() < 200);
    assert!(oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, "Dagger").is_ok());
    // Dice as the grammar reads them are words of the language; names that only begin so are not.
    for word in ["d20c", "d6kh1"] {
        let refused = oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, word).unwrap_err();
        assert_eq!(refused, oc_ide::navigate::RenameRefused::Reserved { new_name: word.into() }, "{word}");
    }
    for name in ["d6x", "d20_bonus", "d4Trooper", "dd6"] {
        assert!(oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, name).is_ok(), "{name}");
    }
}

fn labels(db: &MemoryDb, path: &str, offset: usize) -> Vec<(String, CompletionKind)> {
    oc_ide::complete::completions(db, FilePosition { path, offset }).into_iter().map(|c| (c.label, c.kind)).collect()
}

#[test]
fn completion_keeps_the_list_and_the_owner() {
    // After the first tag of a class: still tags, and only those a class may carry.
    let text = "class Runner { ratings { str C mag E skl C spd D def B res D } wields Swords tags Canto, $0 cost 1 }\n";
    let (db, path, offset) = project(&[("a.oc", text)]);
    let found = labels(&db, &path, offset);
    assert!(found.iter().all(|(_, k)| *k == CompletionKind::Def(DefKind::Tag)), "{found:?}");
    let names: Vec<&str> = found.iter().map(|(l, _)| l.as_str()).collect();
    assert!(names.contains(&"Lucky") && names.contains(&"Flying"), "{names:?}");
    // `Brave` is for weapons only.
    assert!(!names.contains(&"Brave"), "{names:?}");
    // After the first weapon type: weapon types only.
    let text = "class Runner { wields Swords, $0 }\n";
    let (db, path, offset) = project(&[("a.oc", text)]);
    let found = labels(&db, &path, offset);
    assert!(!found.is_empty() && found.iter().all(|(_, k)| *k == CompletionKind::Def(DefKind::WeaponType)), "{found:?}");
    // In a weapon: weapon tags (`Brave`), not class-only ones (`Canto`).
    let text = "weapon W { type Swords tags Brave, $0 }\n";
    let (db, path, offset) = project(&[("a.oc", text)]);
    let names: Vec<String> = labels(&db, &path, offset).into_iter().map(|(l, _)| l).collect();
    assert!(names.contains(&"Brave".to_string()) && !names.contains(&"Canto".to_string()), "{names:?}");
}

#[test]
fn completion_of_paths_and_legends() {
    let main = "import \"$0\"\n";
    let (db, path, offset) =
        project(&[("campaign/main.oc", main), ("rules/tags.oc", RULES), ("maps/m.map.toml", "name = \"m\"\n")]);
    let found = oc_ide::complete::completions(&db, FilePosition { path: &path, offset });
    let names: Vec<&str> = found.iter().map(|c| c.label.as_str()).collect();
    assert!(names.contains(&"../rules/tags.oc") && names.contains(&"std:v06"), "{names:?}");
    assert!(!names.iter().any(|n| n.ends_with(".map.toml")), "{names:?}");
    let edit = found[0].edit.as_ref().unwrap();
    assert_eq!((edit.start, edit.end), (offset, offset));
    // A map path: maps only.
    let main = "scenario S {\n    map \"../m$0\"\n}\n";
    let (db, path, offset) = project(&[("campaign/main.oc", main), ("maps/m.map.toml", "name = \"m\"\n")]);
    let names: Vec<String> = labels(&db, &path, offset).into_iter().map(|(l, _)| l).collect();
    assert_eq!(names, ["../maps/m.map.toml"]);
    // A legend's value: terrain names.
    let map = "name = \"m\"\nwidth = 1\nheight = 1\nrows = [\"x\"]\n\n[legend]\nx = \"Ru$0";
    let (db, path, offset) = project(&[("m.map.toml", map)]);
    let found = labels(&db, &path, offset);
    assert!(found.contains(&("Ruins".to_string(), CompletionKind::Def(DefKind::Terrain))), "{found:?}");
}

#[test]
fn semantic_tokens_know_what_names_are() {
    let text = "class Knight { ratings { str C mag E skl C spd D def B res D } wields Lances tags Armored cost 1 }\ntag Quick(x: Int) on class { movement += x }\n";
    let (db, path, _) = project(&[("a.oc", text)]);
    let tokens = oc_ide::tokens::semantic_tokens(&db, &path);
    let kind_of = |word: &str, nth: usize| {
        let at = text.match_indices(word).nth(nth).unwrap().0;
        tokens.iter().find(|t| t.start == at).map(|t| (t.kind, t.modifiers))
    };
    assert_eq!(kind_of("Knight", 0), Some((TokenType::Class, oc_ide::tokens::DECLARATION)));
    assert_eq!(kind_of("Lances", 0), Some((TokenType::Type, oc_ide::tokens::DEFAULT_LIBRARY)));
    assert_eq!(kind_of("Armored", 0), Some((TokenType::Decorator, oc_ide::tokens::DEFAULT_LIBRARY)));
    assert_eq!(kind_of("str", 0).map(|k| k.0), Some(TokenType::Property));
    assert_eq!(kind_of("C", 0).map(|k| k.0), Some(TokenType::EnumMember));
    assert_eq!(kind_of("x", 0), Some((TokenType::Parameter, oc_ide::tokens::DECLARATION)));
    assert_eq!(kind_of("x", 1), Some((TokenType::Parameter, 0)));
    assert_eq!(kind_of("movement", 0).map(|k| k.0), Some(TokenType::Property));
}

#[test]
fn signatures_and_inlay_hints_name_tag_parameters() {
    let text = "class A { tags Lucky($0 }\n";
    let (db, path, offset) = project(&[("a.oc", text)]);
    let help = oc_ide::signature::signature_help(&db, FilePosition { path: &path, offset }).unwrap();
    assert_eq!(help.label, "Lucky(x: Int)");
    assert_eq!(help.params, [(6, 12)]);
    assert_eq!(help.active, 0);
    assert!(help.doc.unwrap().starts_with("Scores a critical hit"));
    let text = "weapon W { type Swords tags Effective(Armored), Lucky(5), Brave cost 1 }\n";
    let (db, path, _) = project(&[("a.oc", text)]);
    let hints = oc_ide::signature::inlay_hints(&db, &path, 0, text.len());
    let shown: Vec<(&str, &str)> = hints.iter().map(|h| (&text[h.offset..h.offset + 1], h.label.as_str())).collect();
    assert_eq!(shown, [("A", "t:"), ("5", "x:")]);
}

#[test]
fn symbols_and_folds() {
    let text = "// Rules.\n// More.\nimport \"std:v06\"\n\nclass Runner {\n    ratings { str C mag E skl C spd D def B res D }\n    cost 1\n}\n\narmy A for S attacker {\n    unit Ann: Runner\n}\n";
    let (db, path, _) = project(&[("a.oc", text)]);
    let symbols = oc_ide::outline::document_symbols(&db, &path).unwrap();
    let names: Vec<(&str, usize)> = symbols.iter().map(|s| (s.name.as_str(), s.children.len())).collect();
    assert_eq!(names, [("Runner", 0), ("A", 1)]);
    assert_eq!(symbols[1].children[0].name, "Ann");
    let found = oc_ide::outline::workspace_symbols(&db, "runr", 10);
    assert_eq!(found.first().map(|s| (s.name.as_str(), s.path.as_str())), Some(("Runner", "a.oc")));
    let std = oc_ide::outline::workspace_symbols(&db, "Myrmidon", 10);
    assert!(std.iter().any(|s| s.path.starts_with("<std>/")), "{std:?}");
    let folds = oc_ide::outline::folding_ranges(&db, &path);
    let kinds: Vec<oc_ide::outline::FoldKind> = folds.iter().map(|f| f.kind).collect();
    use oc_ide::outline::FoldKind::*;
    assert_eq!(kinds, [Comment, Region, Region]);
}

#[test]
fn definition_of_import_and_map_paths() {
    let main = "import \"rul$0es.oc\"\n";
    let (db, path, offset) = project(&[("main.oc", main), ("rules.oc", RULES)]);
    let def = oc_ide::navigate::definition(&db, FilePosition { path: &path, offset }).unwrap();
    assert_eq!((def.path.as_str(), def.start, def.end), ("rules.oc", 0, 0));
    let main = "import \"std:v0$06\"\n";
    let (db, path, offset) = project(&[("main.oc", main)]);
    let def = oc_ide::navigate::definition(&db, FilePosition { path: &path, offset }).unwrap();
    assert_eq!(def.path, "<std>/v06.oc");
    let hover = oc_ide::navigate::hover(&db, FilePosition { path: &path, offset }).unwrap();
    assert_eq!(hover.markdown, "imports `<std>/v06.oc`");
}

#[test]
fn rename_reaches_every_use_and_refuses_what_would_change_a_meaning() {
    // A status after `has` is the status ("a tag or status"): its rename reaches it.
    let rules = "status Da$0zed { skl -= 1 } lasts 1 rounds\n\
                 tag Stunner on weapon { on hit { inflict(foe, Dazed) } when foe has Dazed { damage_bonus += 1 } }\n";
    let (db, path, offset) = project(&[("st.oc", rules)]);
    let edits = oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, "Stunned").unwrap();
    assert_eq!(edits[0].1.len(), 3, "{edits:?}");
    // A `Tag` parameter read by `has` and `grant` is the parameter.
    let rules = "tag Hunter(t$0: Tag) on weapon { when foe has t { damage_bonus += 2 } }\n";
    let (db, path, offset) = project(&[("h.oc", rules)]);
    let edits = oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, "prey").unwrap();
    assert_eq!(edits[0].1.len(), 2, "{edits:?}");
    let rules = "tag Taught(a$0: Tag) on weapon { grant a }\n";
    let (db, path, offset) = project(&[("g.oc", rules)]);
    assert_eq!(oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, "given").unwrap()[0].1.len(), 2);
    // A parameter named as what its body could mean otherwise is refused: the engine's own
    // `distance`, a status in scope.
    let rules = "status Poisoned { skl -= 1 }\ntag Near(x$0: Int) on class { when distance == x { damage_bonus += x } }\n";
    let (db, path, offset) = project(&[("n.oc", rules)]);
    // A step's own values too (`moved`, `repeats`: read before any definition in a turn's formulas).
    for name in ["distance", "dealt", "Poisoned", "moved", "repeats"] {
        let refused = oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, name).unwrap_err();
        assert_eq!(refused, oc_ide::navigate::RenameRefused::Taken { new_name: name.into() }, "{name}");
    }
    // A name taken in a file that imports the renamed one is taken too.
    let a = "tag X$0a on class { movement += 1 }\n";
    let b = "import \"a.oc\"\ntag Yb on class { movement += 2 }\nclass K { ratings { str C mag E skl C spd D def B res D } wields Swords tags Xa, Yb cost 1 }\n";
    let (db, path, offset) = project(&[("a.oc", a), ("b.oc", b)]);
    let refused = oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, "Yb").unwrap_err();
    assert_eq!(refused, oc_ide::navigate::RenameRefused::Taken { new_name: "Yb".into() });
    // A unit's `joins` (its own army's unit) and a scenario's `rout "NAME"` rename with it.
    let army = "scenario S { map \"m.map.toml\" attacker { win rout \"Spears\" } defender { win survive 5 rounds } }\n\
                army A for S defender { unit Spe$0ars: Soldier { items IronLance } unit Bows: Archer { items IronBow joins Spears } }\n\
                army B for S attacker { unit Spears: Soldier { items IronLance } }\n";
    let (db, path, offset) = project(&[("s.oc", army)]);
    let edits = oc_ide::navigate::rename(&db, FilePosition { path: &path, offset }, "Pikes").unwrap();
    let text = db.text(&path).unwrap();
    let spans: Vec<(usize, &str)> =
        edits[0].1.iter().map(|e| (text[..e.start].matches('\n').count(), &text[e.start..e.end])).collect();
    // The rout's name inside its quotes, the unit, its `joins`; not the other army's Spears.
    assert_eq!(spans, [(0, "Spears"), (1, "Spears"), (1, "Spears")], "{edits:?}");
    // The advanced rules' blocks name statuses: the leadership's `beyond 6 OutOfCommand`.
    let text = "import \"std:battlestorm\"\ntag T on class { when self has Out$0OfCommand { cer += 1 } }\n";
    let (db, path, offset) = project(&[("t.oc", text)]);
    let refs = oc_ide::navigate::references(&db, FilePosition { path: &path, offset }, true).unwrap();
    assert!(
        refs.iter().any(|r| slice(&db, &r.path, r.start, r.end) == "OutOfCommand"
            && db.text(&r.path).unwrap()[..r.start].ends_with("beyond 6 ")),
        "{refs:?}"
    );
}

/// A ruleset whose formulas share their names with a table (`damage`) and dice (`hit`, `_roll`).
const FORMULAS: &str = "\
ruleset mini {
    scale Rating { E D C B A }
    stat str: Rating
    base hp: Int = 20
    resource luck: Int = 1 at start_of_round \"Luck\"
    inventory 3
    dice hit d100
    dice _roll d10
    table damage[Rating] -> Int { E: 1 D: 2 C: 3 B: 4 A: 5 }
    reaction Again \"Again\" {
        reroll _roll
        cost luck 1
        requires _roll == 1
    }
    combat {
        _roll = roll(_roll)
        _bonus = 1
        hit = roll(hit) <= 50
        critical = false
        damage = damage[attacker.str] + _roll + _bonus
        critical_damage = damage * 2
        follow_up = false
        gain attacker luck = if _roll == 4 then 1 else 0
    }
}
";

/// The offset of the `nth` occurrence of `word` in `text` as a whole word.
fn word_at(text: &str, word: &str, nth: usize) -> usize {
    let is_word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    text.match_indices(word)
        .map(|(at, _)| at)
        .filter(|&at| !text[..at].ends_with(is_word) && !text[at + word.len()..].starts_with(is_word))
        .nth(nth)
        .unwrap()
}

/// The occurrences (as `word_at`'s `nth`) of `word` that ranges of `text` cover.
fn nths(text: &str, word: &str, ranges: impl IntoIterator<Item = (usize, usize)>) -> Vec<usize> {
    let mut out: Vec<usize> = ranges
        .into_iter()
        .map(|(s, e)| {
            assert_eq!(&text[s..e], word);
            (0..).find(|&n| word_at(text, word, n) == s).unwrap()
        })
        .collect();
    out.sort_unstable();
    out
}

#[test]
fn combat_formulas_are_their_own_definitions() {
    let (db, path, _) = project(&[("r.oc", FORMULAS)]);
    let at = |word: &str, nth: usize| FilePosition { path: &path, offset: word_at(FORMULAS, word, nth) + 1 };
    // Each name's occurrences, grouped by what they mean: (word, kind, its definition, every
    // occurrence). A formula's reads (after `reroll`, in a rerolling reaction's requirement, in
    // the formulas below it and in a gain) are the formula's; `roll(NAME)` is a die's and
    // `NAME[...]` a table's.
    let cases: &[(&str, &str, usize, &[usize])] = &[
        ("_roll", "dice", 0, &[0, 4]),
        ("_roll", "formula", 3, &[1, 2, 3, 5, 6]),
        ("damage", "table", 0, &[0, 2]),
        ("damage", "formula", 1, &[1, 3]),
        ("hit", "dice", 0, &[0, 2]),
        ("hit", "formula", 1, &[1]),
    ];
    // Every case is tried and every wrong answer told.
    let mut wrong: Vec<String> = Vec::new();
    for (word, kind, def, group) in cases {
        for &nth in group.iter() {
            let pos = at(word, nth);
            let refs = oc_ide::navigate::references(&db, pos, true).unwrap_or_default();
            let found = nths(FORMULAS, word, refs.iter().map(|r| (r.start, r.end)));
            if found != *group {
                wrong.push(format!("references of {kind} `{word}` from its occurrence {nth}: {found:?}"));
            }
            let d = oc_ide::navigate::definition(&db, pos);
            if d.as_ref().map(|d| d.start) != Some(word_at(FORMULAS, word, *def)) {
                wrong.push(format!("definition of {kind} `{word}` from its occurrence {nth}: {d:?}"));
            }
            let hover = oc_ide::navigate::hover(&db, pos).map(|h| h.markdown).unwrap_or_default();
            if !hover.starts_with(&format!("{kind} `{word}`")) {
                let first = hover.lines().next().unwrap_or("");
                wrong.push(format!("hover of {kind} `{word}` at its occurrence {nth}: {first}"));
            }
        }
    }
    // Renames: (word, occurrence, new name, the occurrences renamed or the refusal).
    use oc_ide::navigate::RenameRefused::*;
    type Rename<'a> = (&'a str, usize, &'a str, Result<&'a [usize], oc_ide::navigate::RenameRefused>);
    let renames: &[Rename<'_>] = &[
        ("_roll", 5, "_die", Ok(&[1, 2, 3, 5, 6])),
        ("_roll", 1, "_die", Ok(&[1, 2, 3, 5, 6])),
        // A table's rename leaves the formula of its name alone.
        ("damage", 2, "wounds", Ok(&[0, 2])),
        // The engine reads `damage` by name; a helper renamed without `_` is no formula.
        ("damage", 3, "_damage", Err(ReadByEngine { name: "damage".into() })),
        ("_bonus", 0, "bonus", Err(NotAHelper { new_name: "bonus".into() })),
        // A formula would hide, or be hidden by, another definition of the name: another
        // formula, the die `_roll` (read by a bare name in formulas), the table.
        ("_bonus", 0, "_roll", Err(Taken { new_name: "_roll".into() })),
        ("damage", 0, "_bonus", Err(Taken { new_name: "_bonus".into() })),
        ("damage", 0, "critical", Err(Taken { new_name: "critical".into() })),
    ];
    for (word, nth, new_name, expected) in renames {
        let got = oc_ide::navigate::rename(&db, at(word, *nth), new_name);
        let got = got.map(|edits| {
            assert!(edits.iter().all(|(p, _)| *p == path), "{edits:?}");
            nths(FORMULAS, word, edits.iter().flat_map(|(_, e)| e.iter().map(|e| (e.start, e.end))))
        });
        if got.as_ref().map(Vec::as_slice) != expected.as_ref().map(|v| *v) {
            wrong.push(format!("rename of `{word}` (occurrence {nth}) to {new_name}: {got:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn completion_offers_what_the_place_takes() {
    use CompletionKind::{Def, Keyword, Param};
    const DAZED: &str = "status Dazed { skl -= 1 } lasts 1 rounds\n";
    let in_combat = FORMULAS.replace("_roll + _bonus", "_roll + _bo$0nus");
    // (text, labels offered with their kinds, labels not offered, the only kinds offered if any).
    type Case<'a> = (&'a str, &'a [(&'a str, CompletionKind)], &'a [&'a str], &'a [CompletionKind]);
    let cases: &[Case<'_>] = &[
        // `has` takes a tag or a status (and a parameter of either).
        (
            "tag T(t: Status) on weapon { when foe has t$0 { damage_bonus += 1 } }",
            &[("Dazed", Def(DefKind::Status)), ("Brave", Def(DefKind::Tag)), ("t", Param)],
            &["Swords", "when"],
            &[Def(DefKind::Tag), Def(DefKind::Status), Param],
        ),
        // `inflict`'s second argument is a status; its first is a unit.
        (
            "tag T(s: Status, n: Int) on weapon { on hit { inflict(foe, s$0) } }",
            &[("Dazed", Def(DefKind::Status)), ("s", Param)],
            &["Brave", "n", "when"],
            &[Def(DefKind::Status), Param],
        ),
        ("tag T on weapon { on hit { inflict(foe, Da$0", &[("Dazed", Def(DefKind::Status))], &["Brave"], &[Def(DefKind::Status)]),
        // `restrict` takes a weapon type.
        (
            "tag T on class { restrict($0",
            &[("Swords", Def(DefKind::WeaponType))],
            &["Dazed", "Brave"],
            &[Def(DefKind::WeaponType)],
        ),
        // A parameter's type: the built-in types and the scales, no movement type.
        (
            "tag Foo(x: $0",
            &[
                ("Int", Keyword),
                ("Tag", Keyword),
                ("Status", Keyword),
                ("StatMod", Keyword),
                ("Dice", Keyword),
                ("Rating", Def(DefKind::Scale)),
            ],
            &["Foot", "Armored", "when"],
            &[Keyword, Def(DefKind::Scale)],
        ),
        ("tag Foo(a: Int, b: $0", &[("Bool", Keyword)], &["Foot"], &[Keyword, Def(DefKind::Scale)]),
        // In a combat block, the formulas above (not the one written nor those below).
        (
            &in_combat,
            &[("_roll", Def(DefKind::Formula)), ("_bonus", Def(DefKind::Formula)), ("critical", Def(DefKind::Formula))],
            &["damage", "critical_damage", "follow_up"],
            &[],
        ),
    ];
    // Every case is tried and every wrong answer told.
    let mut wrong: Vec<String> = Vec::new();
    for (text, offered, absent, only) in cases {
        let (db, path, offset) = project(&[("a.oc", &format!("{DAZED}{text}"))]);
        let found = labels(&db, &path, offset);
        let missing: Vec<_> = offered.iter().filter(|w| !found.iter().any(|(l, k)| (l.as_str(), *k) == **w)).collect();
        let extra: Vec<_> = found
            .iter()
            .filter(|(l, k)| absent.contains(&l.as_str()) || !(only.is_empty() || only.contains(k)))
            .take(8)
            .collect();
        if !missing.is_empty() || !extra.is_empty() {
            wrong.push(format!("{text}: missing {missing:?}, not wanted {extra:?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The types offered are the compiler's: those it lists for a type it does not know.
    let (db, path, offset) = project(&[("a.oc", "tag Foo(x: $0")]);
    let offered: std::collections::BTreeSet<String> = labels(&db, &path, offset).into_iter().map(|(l, _)| l).collect();
    let mut host = oc_compiler::MemoryHost::one("t.oc", "tag Foo(x: Qqqqqqqq) on class { }\n");
    let (c, _) = oc_compiler::Workspace::new().compile(&mut host, &["t.oc".to_string()]);
    let help = c.diagnostics.iter().find(|d| d.code == "oc::name::unknown_type").map(|d| d.help.clone()).unwrap();
    let listed: std::collections::BTreeSet<String> =
        help.strip_prefix("types are ").unwrap().split(", ").map(str::to_string).collect();
    assert_eq!(offered, listed);
}

/// The hover text at the first `$0` of `text` (a file `a.oc` compiled with the default ruleset).
fn hover_at(text: &str) -> String {
    let (db, path, offset) = project(&[("a.oc", text)]);
    oc_ide::navigate::hover(&db, FilePosition { path: &path, offset }).map(|h| h.markdown).unwrap_or_default()
}

#[test]
fn hovers_say_what_the_rules_declare() {
    // A stat: its declaration, title and scale, as the ruleset writes them.
    let class = "class K { ratings { s$0tr C mag E skl C spd D def B res D } wields Swords cost 1 }\n";
    assert_eq!(
        hover_at(class),
        "stat `str` — <std>/ratings/ruleset.oc\n\n```oc\nstat str: Rating\n```\nStrength\n\n\
         `Rating` is a scale, worst step first: F E D C B A S"
    );
    // A base attribute: its type, starting value and title.
    let tag = "tag Walker on class { movement_ty$0pe = Foot }\n";
    assert_eq!(
        hover_at(tag),
        "base attribute `movement_type` — <std>/ratings/ruleset.oc\n\n```oc\nbase movement_type: Movement = Foot\n```\n\
         Which Terrain Table column the unit moves by"
    );
    // A resource: its type, when it is set and its title.
    let rules = FORMULAS.replace("cost luck 1", "cost lu$0ck 1");
    assert_eq!(
        hover_at(&rules),
        "resource `luck` — a.oc\n\n```oc\nresource luck: Int = 1 at start_of_round\n```\nLuck\n\n\
         Set to `1` when deployed, and again at every `start_of_round`."
    );
    let once = FORMULAS.replace("= 1 at start_of_round \"Luck\"", "= 2 \"Luck\"").replace("cost luck 1", "cost lu$0ck 1");
    assert!(hover_at(&once).ends_with("Set to `2` when deployed only."), "{}", hover_at(&once));
    // A consumable: its uses (the charges its tag sets) and what using it does, in one line.
    let kit = "class K { ratings { str C mag E skl C spd D def B res D } wields Swords cost 1 kit { Vulnerary, Master$0Key } }\n";
    let hover = hover_at(kit);
    assert!(hover.starts_with("item `MasterKey` — <std>/ratings/items.oc\n\n"), "{hover}");
    assert!(hover.contains("\n\nconsumable: 1 use; use: action (target door within 1): open()\n```oc\n"), "{hover}");
    let own = "consumable To$0nic \"Tonic\" {\n    tags Consumable(2)\n    cost 400\n    use {\n        heal(self, 8) // a lot\n        cure(self)\n    }\n}\n";
    assert!(hover_at(own).contains("\n\nconsumable: 2 uses; use: heal(self, 8); cure(self)\n"), "{}", hover_at(own));
    // A weapon says nothing it does not have: its source only.
    let weapon = "weapon Bl$0ade { type Swords might 3 weight 1 range 1 cost 500 }\n";
    assert_eq!(
        hover_at(weapon),
        "item `Blade` — a.oc\n```oc\nweapon Blade { type Swords might 3 weight 1 range 1 cost 500 }\n```"
    );
    // A terrain: its properties.
    let door = "terrain Gate { symbol \"G\" impassable opened_by Pick becomes Do$0or }\n";
    assert_eq!(
        hover_at(door),
        "terrain `Door` — <std>/ratings/world.oc\n\nBecomes Floor with Master Key or Pick\n\n\
         - symbol `D`\n- opened by Pick or MasterKey\n- becomes Floor\n- impassable\n- blocks sight"
    );
    let fort = "terrain Gate { symbol \"G\" impassable becomes Fo$0rt }\n";
    assert_eq!(
        hover_at(fort),
        "terrain `Fort` — <std>/ratings/world.oc\n\n- symbol `F`\n- cost: Foot 2, Armored 2, Cavalry 2, Flying 1\n\
         - defense and resistance +2\n- heals 2 at end_of_turn"
    );
    let river = "terrain Ford { symbol \"=\" becomes Ri$0ver }\n";
    assert!(
        hover_at(river).contains("- cost: Foot 5, Armored - (impassable), Cavalry - (impassable), Flying 1"),
        "{}",
        hover_at(river)
    );
}

#[test]
fn outline_is_in_source_order() {
    let text = "\
ruleset mixed {
    scale Rating { E D C }
    stat str: Rating
    base hp: Int = 20
    stat spd: Rating
    resource luck: Int = 1 at start_of_round
    table bonus[Rating] -> Int { E: 0 D: 1 C: 2 }
    dice hit d100
    base movement: Int = 5
    combat {
        hit = roll(hit) <= 50
        damage = bonus[attacker.str]
    }
    reaction Again \"Again\" {
        reroll hit
        cost luck 1
    }
    stat def: Rating
}
movement Walk
army A for S attacker {
    unit Ann: Runner
    unit Bob: Runner
}
";
    let (db, path, _) = project(&[("a.oc", text)]);
    let symbols = oc_ide::outline::document_symbols(&db, &path).unwrap();
    let top: Vec<&str> = symbols.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(top, ["mixed", "Walk", "A"]);
    let children: Vec<&str> = symbols[0].children.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(children, ["Rating", "str", "hp", "spd", "luck", "bonus", "hit", "movement", "hit", "damage", "Again", "def"]);
    // A scale's steps under it, its range over them.
    let rating = &symbols[0].children[0];
    let steps: Vec<&str> = rating.children.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(steps, ["E", "D", "C"]);
    assert_eq!(&text[rating.range.0..rating.range.1], "Rating { E D C");
    // Every symbol's range holds its name and its children's; siblings come in order.
    fn check(s: &oc_ide::outline::Symbol) {
        assert!(s.range.0 <= s.selection.0 && s.selection.1 <= s.range.1, "{s:?}");
        for pair in s.children.windows(2) {
            assert!(pair[0].range.0 < pair[1].range.0, "{pair:?}");
        }
        for c in &s.children {
            assert!(s.range.0 <= c.range.0 && c.range.1 <= s.range.1, "{c:?} outside {s:?}");
            check(c);
        }
    }
    symbols.iter().for_each(check);
    let units: Vec<&str> = symbols[2].children.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(units, ["Ann", "Bob"]);
}

#[test]
fn turn_formulas_complete_step_variables() {
    use CompletionKind::{Def, Keyword, Param};
    let turn = |body: &str| FORMULAS.replace("    combat {", &format!("    turn {{\n        {body}\n    }}\n    combat {{"));
    let offered = |text: &str| {
        let (db, path, offset) = project(&[("a.oc", text)]);
        oc_ide::complete::completions(&db, FilePosition { path: &path, offset })
    };
    // In each of a turn block's formulas: the step variables with their types, and what was
    // offered before (the ruleset's attributes, read though the formula is half written; the
    // expressions' words).
    for body in [
        "spend luck\n        step_cost = $0",
        "step_allowed = not (attacks and $0)",
        "respond = attacks and $0\n",
        "interrupt = range <= 1 or $0",
        "opportunity = $0",
        "engaged = if moved > 0 then $0 else false",
    ] {
        let found = offered(&turn(body));
        let has = |label: &str, kind: CompletionKind| found.iter().any(|c| c.label == label && c.kind == kind);
        let detail = |label: &str| found.iter().find(|c| c.label == label).and_then(|c| c.detail.clone());
        assert!(has("moved", Param) && has("attacks", Param) && has("action", Param), "{body}: {found:?}");
        assert_eq!(detail("moved").as_deref(), Some("step variable: Int"), "{body}");
        assert_eq!(detail("action").as_deref(), Some("step variable: Tag"), "{body}");
        assert!(has("hp", Def(DefKind::Base)) && has("luck", Def(DefKind::Resource)), "{body}: {found:?}");
        assert!(has("self", Keyword) && has("if", Keyword), "{body}: {found:?}");
        assert_eq!(
            found.iter().filter(|c| oc_model::STEP_PARAMS.iter().any(|(n, _)| *n == c.label)).count(),
            oc_model::STEP_PARAMS.len()
        );
    }
    // Where the ruleset cannot be read even so, the step variables still.
    let found = offered(&turn("step_allowed = not (attacks and $0"));
    assert!(found.iter().any(|c| c.label == "moved" && c.kind == Param), "{found:?}");
    // After `self.`: the attributes and the engine's own fields of a unit, no step variable.
    let found = offered(&turn("step_allowed = self.$0"));
    let labels: Vec<&str> = found.iter().map(|c| c.label.as_str()).collect();
    assert!(labels.contains(&"str") && labels.contains(&"hp") && labels.contains(&"luck"), "{labels:?}");
    for (field, what) in oc_model::UNIT_FIELDS {
        let c = found.iter().find(|c| c.label == *field).unwrap_or_else(|| panic!("{field}: {labels:?}"));
        assert_eq!((c.kind, c.detail.as_deref()), (Param, Some(*what)));
    }
    let engine = |c: &&oc_ide::complete::CompletionItem| oc_model::UNIT_FIELDS.iter().any(|(n, _)| *n == c.label);
    assert!(
        found.iter().filter(|c| !engine(c)).all(|c| matches!(c.kind, Def(DefKind::Stat | DefKind::Base | DefKind::Resource))),
        "{found:?}"
    );
    // After `self.weapon.`: the weapon's properties alone (it offered the unit's stats).
    let found = offered(&turn("step_allowed = self.weapon.$0"));
    let labels: Vec<&str> = found.iter().map(|c| c.label.as_str()).collect();
    assert_eq!(labels, oc_model::WEAPON_PROPERTIES.iter().map(|(n, _)| *n).collect::<Vec<_>>());
    assert_eq!(found.iter().find(|c| c.label == "magic").and_then(|c| c.detail.as_deref()), Some("the weapon's: Bool"));
    let found = offered("tag T on class { when foe.accessory.$0");
    assert_eq!(found.iter().map(|c| c.label.as_str()).collect::<Vec<_>>(), ["weight"]);
    // The turn's own entries: a resource to spend, a die to roll off with.
    let found = offered(&turn("spend $0"));
    assert!(!found.is_empty() && found.iter().all(|c| c.kind == Def(DefKind::Resource)), "{found:?}");
    let found = offered(&turn("order rolloff $0"));
    assert!(found.iter().any(|c| c.label == "hit") && found.iter().all(|c| c.kind == Def(DefKind::Dice)), "{found:?}");
    let found = offered(&turn("$0"));
    assert!(found.iter().any(|c| c.label == "step_cost" && c.kind == Keyword), "{found:?}");
    // Elsewhere no step variable: a combat formula, a tag.
    let in_combat = FORMULAS.replace("_roll + _bonus", "_roll + _bo$0nus");
    assert!(!offered(&in_combat).iter().any(|c| c.label == "moved"));
    assert!(!offered("tag T on class { when self.hp > $0").iter().any(|c| c.label == "moved"));
}

/// A step variable read in a turn formula says what it is (it said nothing), and is not taken
/// for a definition of the same name; every step variable has its words.
#[test]
fn step_variables_hover_with_what_they_are() {
    let turn = |body: &str| {
        FORMULAS.replace("    combat {", &format!("    turn {{\n        spend luck\n        {body}\n    }}\n    combat {{"))
    };
    assert_eq!(
        hover_at(&turn("step_cost = if mo$0ved > 0 then 1 else 0")),
        "step variable `moved: Int` — movement points the step's move spends (0 without one)"
    );
    assert!(hover_at(&turn("step_allowed = not (act$0ion == Canto)"))
        .starts_with("step variable `action: Tag` — the tag whose action"));
    for (name, _) in oc_model::STEP_PARAMS {
        let text = turn(&format!("step_allowed = {name}$0 == {name}"));
        let shown = hover_at(&text);
        assert!(shown.starts_with(&format!("step variable `{name}: ")) && !shown.ends_with("— "), "{name}: {shown}");
    }
}
