//! Shard parts (`oc simulate|fairness --shard K/N --out FILE`): one file a shard, merged later.
//! The output policy ([`crate::output::prepare`]) lets a command replace its own earlier output,
//! and a part is one; but a part of *another* shard or another run replaced by this one loses its
//! games, which the merge then misses (the same `--out` given to two shards of a job array).
//! [`another`] tells such a file apart before any game is played, so the command refuses it
//! without `--force`.

use std::io::Read;
use std::path::Path;

use serde_json::{Map, Value};

use crate::output::Kind;

/// The keys of a part's header that are not which run and shard it is: its counts, the oc
/// that wrote them (a part of the same shard and run, written by an older oc, is replaced), and
/// what is shown of the run (the command as typed, `./scenarios` or from another folder; the
/// scenario's title).
const NOT_WHICH: &[&str] = &["tally", "rows", "played", "version", "command", "scenario_title"];

/// The most differences a refusal names.
const NAMED: usize = 3;

/// Where `path` holds a part of `kind` of another shard or another run than `new` (the part
/// about to be written, its counts empty): what tells them apart ("shard 1/4 (this run writes
/// shard 2/4)"). `None` where it holds no part (the output policy decides), or the same shard
/// of the same run.
pub fn another(path: &Path, kind: Kind, new: &str) -> Option<String> {
    let mut bytes = Vec::new();
    let file = crate::fsx::open_regular(path).ok()?;
    file.take(crate::limits::MAX_LOG_BYTES).read_to_end(&mut bytes).ok()?;
    if !kind.recognises(&bytes) {
        return None;
    }
    let header = |text: &str| -> Option<Map<String, Value>> {
        match serde_json::from_str::<Value>(text.lines().next()?).ok()? {
            Value::Object(map) => Some(map),
            _ => None,
        }
    };
    let old = header(&String::from_utf8_lossy(&bytes))?;
    let new = header(new)?;
    let differs: Vec<String> = new
        .iter()
        .filter(|(k, v)| !NOT_WHICH.contains(&k.as_str()) && old.get(k.as_str()) != Some(v))
        .map(|(k, v)| match k.as_str() {
            "shard" => format!("{} (this run writes {})", shard(old.get(k)), shard(Some(v))),
            _ => format!("`{k}` {} (this run: {v})", old.get(k).map_or("none".to_string(), Value::to_string)),
        })
        .collect();
    if differs.is_empty() {
        return None;
    }
    let mut said = differs.iter().take(NAMED).cloned().collect::<Vec<_>>().join(", ");
    if differs.len() > NAMED {
        said.push_str(&format!(" and {} more", differs.len() - NAMED));
    }
    Some(said)
}

/// A part's `shard` in words: "shard 2/4".
fn shard(v: Option<&Value>) -> String {
    let at = |k: &str| v.and_then(|s| s.get(k)).and_then(Value::as_u64);
    match (at("index"), at("count")) {
        (Some(i), Some(n)) => format!("shard {i}/{n}"),
        _ => "no shard".to_string(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_part_of_another_shard_or_run_is_told_apart_from_the_same_shards() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("part.json");
        let part = |shard: u32, seed: u32, wins: u32| {
            format!(
                "{{\"kind\":\"oc simulate part\",\"version\":3,\"scenario\":\"S\",\"seed\":{seed},\"games\":4,\"played\":\"x\",\"shard\":{{\"index\":{shard},\"count\":2}},\"tally\":{{\"games\":2,\"wins\":[{wins},0]}}}}\n"
            )
        };
        std::fs::write(&path, part(1, 1, 2)).unwrap();
        assert!(Kind::SimulationPart.recognises(part(1, 1, 2).as_bytes()));
        // The same shard of the same run (its counts to come): replaced.
        assert_eq!(another(&path, Kind::SimulationPart, &part(1, 1, 0)), None);
        assert_eq!(
            another(&path, Kind::SimulationPart, &part(2, 1, 0)).as_deref(),
            Some("shard 1/2 (this run writes shard 2/2)")
        );
        assert_eq!(another(&path, Kind::SimulationPart, &part(1, 7, 0)).as_deref(), Some("`seed` 1 (this run: 7)"));
        // What is only shown of the run (the command as typed, from another folder) is not which run it is.
        let typed = |command: &str| {
            format!("{{\"kind\":\"oc fairness part\",\"version\":1,\"command\":\"{command}\",\"seed\":1,\"games\":4,\"shard\":{{\"index\":1,\"count\":2}},\"rows\":[]}}\n")
        };
        std::fs::write(&path, typed("oc fairness scenarios/x.oc")).unwrap();
        assert_eq!(another(&path, Kind::FairnessPart, &typed("oc fairness ./scenarios/x.oc")), None);
        // Not a part: the output policy decides.
        std::fs::write(&path, "my notes\n").unwrap();
        assert_eq!(another(&path, Kind::SimulationPart, &part(2, 1, 0)), None);
        assert_eq!(another(&dir.path().join("none.json"), Kind::SimulationPart, &part(2, 1, 0)), None);
    }
}
