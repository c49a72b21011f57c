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
    let line = serde_json::to_string(&header()).unwrap().replacen("\"event\":\"source\",", "\"event\":\"source\",\"format\":2,", 1);
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
