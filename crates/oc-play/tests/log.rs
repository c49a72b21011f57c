//! The battle log's saved format: a header line and one engine record per line; the header of
//! format version 1 is written without a `format` field (logs stay what they were), read with
//! or without one, and a header of another version is refused by its version.

mod common;

use oc_play::log::{self, LogError, Source, LOG_FORMAT};

fn header() -> Source {
    Source {
        event: "source".into(),
        format: LOG_FORMAT,
        file: "scenarios/grado-keep.oc".into(),
        scenario: "SiegeOfGrado".into(),
        attacker: "A".into(),
        defender: "D".into(),
        seed: 3,
        attacker_ai: "tactician".into(),
        defender_ai: "greedy".into(),
    }
}

#[test]
fn a_version_1_header_round_trips_without_a_format_field() {
    let line = serde_json::to_string(&header()).unwrap();
    assert!(!line.contains("\"format\""), "{line}");
    assert_eq!(log::parse_source(&line), Ok(header()));
    let explicit = line.replacen("\"event\":\"source\",", "\"event\":\"source\",\"format\":1,", 1);
    assert_eq!(log::parse_source(&explicit), Ok(header()));
}

#[test]
fn another_version_or_no_header_is_refused() {
    let line =
        serde_json::to_string(&header()).unwrap().replacen("\"event\":\"source\",", "\"event\":\"source\",\"format\":2,", 1);
    let e = log::parse_source(&line).unwrap_err();
    assert_eq!(e, LogError::Version { found: 2 });
    assert!(e.to_string().contains("format version 2, and this oc reads version 1"), "{e}");
    assert!(matches!(log::parse_source("{\"event\":\"start\"}"), Err(LogError::NotAHeader(_))));
    assert!(matches!(log::parse_source("not json"), Err(LogError::NotAHeader(_))));
}

#[test]
fn a_log_is_its_header_then_its_records() {
    let setup = common::setup("scenarios/grado-keep.oc", None);
    let (_, records) = setup.game(7, 0).unwrap();
    let lines = log::lines(&header(), &records);
    assert_eq!(lines.len(), records.len() + 1);
    assert_eq!(log::parse_source(&lines[0]), Ok(header()));
    for (line, record) in lines.iter().skip(1).zip(&records) {
        assert_eq!(&serde_json::from_str::<log::Record>(line).unwrap(), record);
    }
}

#[test]
fn a_replay_is_checked_line_by_line_and_by_length() {
    let setup = common::setup("scenarios/grado-keep.oc", None);
    let ais = common::default_ais();
    let played = oc_play::game::play(&setup, 5, &ais, false).unwrap();
    let source = oc_play::game::source(&setup, 5, &ais);
    assert_eq!(source.file, "scenarios/grado-keep.oc");
    let lines = log::lines(&source, &played.records);
    let text = lines.join("\n") + "\n";
    assert_eq!(log::verify(&text, &lines), Ok(()));
    // Played again, recorded: the same records.
    let recorded = oc_play::game::play(&setup, 5, &ais, true).unwrap();
    assert_eq!(recorded.records, played.records);
    let edited = text.replacen(&lines[2], "{\"event\":\"round\"}", 1);
    match log::verify(&edited, &lines) {
        Err(log::Mismatch::Line { line, logged, replayed }) => {
            assert_eq!((line, logged.as_str(), &replayed), (3, "{\"event\":\"round\"}", &lines[2]));
        }
        other => panic!("{other:?}"),
    }
    let short: String = lines[..lines.len() - 1].join("\n");
    assert_eq!(log::verify(&short, &lines), Err(log::Mismatch::Length { logged: lines.len() - 1, replayed: lines.len() }));
}

#[test]
fn a_saved_log_opens_with_its_file_inside_its_project_only() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("oc.toml"), "").unwrap();
    std::fs::write(dir.path().join("keep.oc"), "").unwrap();
    let mut source = header();
    source.file = "keep.oc".into();
    let text = serde_json::to_string(&source).unwrap() + "\nnot a record\n";
    std::fs::write(dir.path().join("game.log"), &text).unwrap();
    let opened = log::open(&dir.path().join("game.log"), None).unwrap();
    assert_eq!((opened.source, opened.records.len(), opened.text), (source.clone(), 0, text));
    assert_eq!(opened.file, std::fs::canonicalize(dir.path().join("keep.oc")).unwrap());
    source.file = "../outside.oc".into();
    std::fs::write(dir.path().join("away.log"), serde_json::to_string(&source).unwrap()).unwrap();
    let refused = |log: &str| match log::open(&dir.path().join(log), None) {
        Ok(_) => panic!("{log} opened"),
        Err(r) => r,
    };
    let away = refused("away.log");
    assert!(away.help.as_ref().is_some_and(|h| h.contains("--project DIR")), "{away:?}");
    assert!(refused("missing.log").message.starts_with("cannot read "));
}

/// `oc replay`'s check (`game::check`): a battle's own log replays identical, step for step; an
/// edited line is found by its number.
#[test]
fn a_played_log_checks_identical_and_an_edited_one_at_its_line() {
    let setup = common::setup("scenarios/grado-keep.oc", None);
    let ais = common::default_ais();
    let played = oc_play::game::play(&setup, 7, &ais, false).unwrap();
    let source = oc_play::game::source(&setup, 7, &ais);
    let lines = log::lines(&source, &played.records);
    let opened =
        |text: String| log::Opened { text, source: source.clone(), records: played.records.clone(), file: "keep.oc".into() };
    let checked = oc_play::game::check(&setup, &opened(lines.join("\n") + "\n"), true).unwrap();
    assert_eq!((checked.mismatch, checked.steps, checked.unfinished), (None, lines.len() - 1, false));
    assert!(checked.recording.is_some(), "a finished game's recording, when asked for");
    let mut edited = lines.clone();
    edited[2] = "{}".into();
    let checked = oc_play::game::check(&setup, &opened(edited.join("\n")), false).unwrap();
    assert!(matches!(checked.mismatch, Some(log::Mismatch::Line { line: 3, .. })), "{:?}", checked.mismatch);
}
