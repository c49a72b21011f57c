//! `oc_play::recording`: a battle recorded for a replay writes the very records the same battle
//! played plainly writes (same seed, same AIs), and its frames hold every record once, in order,
//! with the forecast of each attack its turn declared; under fog each frame carries both sides'
//! sight.

mod common;

use oc_engine::battle::{self, Record};

fn check(file: &str, seed: u64) {
    let setup = common::setup(file, None);
    let ais = common::default_ais();
    let rec = oc_play::recording::play(&setup, seed, Box::new(ais.controllers().unwrap())).unwrap();
    let armies = [&setup.armies[0], &setup.armies[1]];
    let mut plain = ais.controllers().unwrap();
    let (result, records) = battle::play(&setup.engine, &setup.scenario, &setup.map, armies, seed, &mut plain).unwrap();
    assert_eq!(rec.records, records, "{file}: the recording is the battle");
    assert_eq!(rec.result.outcome, result.outcome);
    let frames = rec.frames().unwrap();
    let all: Vec<&Record> = frames.iter().flat_map(|f| f.records.iter()).collect();
    assert_eq!(all, records.iter().collect::<Vec<_>>(), "{file}: every record once, in order");
    let attacks = frames
        .iter()
        .filter(|f| {
            f.records.iter().any(|r| matches!(r, Record::Turn { turn, .. } if matches!(turn.act, battle::Act::Attack { .. })))
        })
        .count();
    let forecasts = frames.iter().filter(|f| f.forecast.is_some()).count();
    assert!(attacks > 0 && forecasts > 0 && forecasts <= attacks, "{file}: {forecasts} forecasts for {attacks} attacks");
    let fog = setup.scenario.fog.is_some();
    assert!(frames.iter().all(|f| f.sight.is_some() == fog), "{file}: sight exactly under fog");
}

#[test]
fn a_recording_is_the_battle_with_its_frames() {
    check("scenarios/grado-keep.oc", 1);
    check("scenarios/zaha-woods-night.oc", 2);
}
