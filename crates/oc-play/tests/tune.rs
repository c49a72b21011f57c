//! `oc_play::tune` as a library: the search on a lopsided fixture (the repository's
//! `tests/fixtures/tune/`) returns its suggestion as text edits — ranges of the file and their
//! new text, what an editor's code action offers — that make exactly the text it measured, and
//! touch only the numbers it tuned; a refusal is a diagnostic with the span of what it is about.

mod common;

use oc_play::tune::{self, Knob, Request};
use oc_play::Failure;

/// A project of its own holding the fixture scenarios and their map.
fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("oc.toml"), "[project]\nname = \"tune\"\n").unwrap();
    for f in ["field.map.toml", "hunt.oc", "skirmish.oc"] {
        std::fs::copy(common::repo("tests/fixtures/tune").join(f), dir.path().join(f)).unwrap();
    }
    dir
}

fn request<'a>(file: &'a std::path::Path, knobs: &'a [Knob]) -> Request<'a> {
    Request { file, scenario: None, attacker: None, defender: None, games: 200, seed: 3, knobs }
}

#[test]
fn the_suggestion_is_edits_of_the_tuned_numbers_only() {
    let dir = project();
    let file = dir.path().join("hunt.oc");
    let before = std::fs::read_to_string(&file).unwrap();
    let r = request(&file, &[Knob::Rounds]);
    let said = std::cell::RefCell::new(Vec::new());
    let say = |line: &str| said.borrow_mut().push(line.to_string());
    let prepared = tune::prepare(&r, oc_play::setup::compile(&file).unwrap(), &say).unwrap();
    let ticks = std::sync::atomic::AtomicU64::new(0);
    let tick = || {
        ticks.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    };
    let tuned = tune::run(prepared, &r, true, &say, &tick).unwrap();
    assert!(!said.borrow().is_empty(), "the search says what it plays");
    assert_eq!(ticks.load(std::sync::atomic::Ordering::Relaxed), tuned.played, "a tick per game played");
    assert!(tuned.now.rate() < 0.1, "lopsided as written: {}", tuned.now.text());
    assert!(!tuned.unchanged && !tuned.edits.is_empty());
    assert_eq!(tuned.before, before, "nothing is written");
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    assert_eq!(tune::apply(&tuned.before, &tuned.edits), tuned.after);
    // Each edit replaces a number with a number: the time limit (and a `survive N` said with it).
    for e in &tuned.edits {
        let old = &before[e.start..e.end];
        assert!(old.parse::<u32>().is_ok() && e.text.parse::<u32>().is_ok(), "{old:?} -> {:?}", e.text);
    }
    let rounds = tuned.rows.iter().find(|r| r.what == "rounds").unwrap();
    assert_eq!(rounds.current, "4");
    assert!(tuned.after.contains(&format!("rounds {} then defender", rounds.suggested)));
    assert!(matches!(tuned.check, Some(Ok(()))), "the suggested text checks clean");
    // No edit at all once the file holds the values.
    std::fs::write(&file, &tuned.after).unwrap();
    let again = tune::prepare(&r, oc_play::setup::compile(&file).unwrap(), &say).unwrap();
    assert_eq!(again.scenario().rounds.map(|n| n.to_string()), Some(rounds.suggested.clone()));
}

#[test]
fn refusals_are_diagnostics_with_the_span_of_what_they_are_about() {
    let dir = project();
    let file = dir.path().join("skirmish.oc");
    let say = |_: &str| {};
    let clash = [Knob::WarChest, Knob::ArmySize];
    let cases: [(Request, &str); 2] = [
        (Request { scenario: Some("Nowhere"), ..request(&file, &[]) }, tune::UNKNOWN_SCENARIO),
        (request(&file, &clash), tune::KNOBS_CLASH),
    ];
    for (r, code) in cases {
        match tune::prepare(&r, oc_play::setup::compile(&file).unwrap(), &say) {
            Err(Failure::Rejected { workspace, diagnostics }) => {
                let [d] = diagnostics.as_slice() else { panic!("{diagnostics:?}") };
                assert_eq!(d.code, code);
                assert!(!d.help.is_empty(), "{d:?}");
                let text = &workspace.file(d.span.file).unwrap().text;
                assert!(!text[d.span.range()].is_empty(), "{d:?}");
            }
            Err(other) => panic!("{code}: {other:?}"),
            Ok(_) => panic!("{code}: accepted"),
        }
    }
    assert!(tune::CODES.iter().all(|c| !c.explanation.is_empty()));
}

/// A setting that plays no nearer 50% than the file as written, both on games the search did not
/// use, is no suggestion (a newcomer review: 4.0% suggested beside 6.0% as written). The hunt
/// at 18 rounds is near even; with seed 20 its 20 search games read 25% as written and the limit
/// the search prefers plays no nearer 50% than 18 rounds on fresh games: 18 stays, with a note.
#[test]
fn nothing_that_plays_no_nearer_even_than_the_file_is_suggested() {
    let dir = project();
    let file = dir.path().join("hunt.oc");
    let text = std::fs::read_to_string(&file).unwrap().replace("rounds 4 then defender", "rounds 18 then defender");
    std::fs::write(&file, text).unwrap();
    let r = Request { games: 20, seed: 20, ..request(&file, &[Knob::Rounds]) };
    let say = |_: &str| {};
    let prepared = tune::prepare(&r, oc_play::setup::compile(&file).unwrap(), &say).unwrap();
    let tuned = tune::run(prepared, &r, false, &say, &|| {}).unwrap();
    assert!(tuned.notes.iter().any(|n| n.contains("nearer 50% than the file as written")), "{:?}", tuned.notes);
    assert!(tuned.unchanged && tuned.edits.is_empty(), "{:?}", tuned.rows.iter().map(|r| &r.suggested).collect::<Vec<_>>());
    assert_eq!(tuned.rows.iter().find(|r| r.what == "rounds").map(|r| r.suggested.as_str()), Some("18"));
    // Measured on fresh games, as any suggestion is.
    assert_eq!(tuned.suggested.games, 20);
}
