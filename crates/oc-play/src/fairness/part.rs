//! A shard of `oc fairness`: its rows (each counting only the games the shard owns) with what
//! names the run (the command of the whole run, its seed and games), and the merge of every
//! shard of one run into the rows the whole run would have measured (sums are order-free).
//!
//! **Saved format:** one line of JSON with `kind` = [`PART_KIND`] and `version` =
//! [`PART_VERSION`]; a file of another kind or version is refused by [`read_part`], not misread.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::Row;
use crate::error::Refusal;
use crate::parts;
use crate::simulate::Shard;

/// What a fairness part file says it is (its `kind`), and the version of its shape.
pub const PART_KIND: &str = "oc fairness part";
pub const PART_VERSION: u32 = 1;

/// One shard's rows, as `oc fairness --shard K/N` writes them.
#[derive(Debug, Serialize, Deserialize)]
pub struct Part {
    pub kind: String,
    pub version: u32,
    /// The command of the whole run (`command_line`, without `--shard`): the table quotes it.
    pub command: String,
    pub seed: u64,
    /// Games per scenario in the whole run, and the scenarios given another number.
    pub games: u64,
    pub games_for: Vec<(String, u64)>,
    pub shard: Shard,
    pub rows: Vec<Row>,
}

impl Part {
    pub fn new(r: &super::Request, command: String, shard: Shard, rows: Vec<Row>) -> Part {
        Part {
            kind: PART_KIND.to_string(),
            version: PART_VERSION,
            command,
            seed: r.seed,
            games: r.games,
            games_for: r.games_for.to_vec(),
            shard,
            rows,
        }
    }

    /// The part as its file holds it: one line of JSON.
    pub fn text(&self) -> Result<String, Refusal> {
        serde_json::to_string(self)
            .map(|json| format!("{json}\n"))
            .map_err(|e| Refusal::new(format!("cannot write the part: {e}")))
    }
}

/// How `oc fairness` names its parts in refusals.
const WORDS: parts::Words = parts::Words {
    kind: PART_KIND,
    version: PART_VERSION,
    run: "a sharded fairness run",
    part: "a fairness part",
    written_by: "parts are written by `oc fairness PATHS --shard K/N --out part.json`",
    again: "run the shard again with this oc: parts of one run are written by one version",
    must_match: "paths, games, seed, shard count and the scenarios measured (as compiled, by the same oc)",
    one_run: "merge the parts of one `oc fairness ... --shard K/N` run, every shard once",
    twice: "pass each shard's part once",
    command: "oc fairness PATHS",
};

impl parts::Part for Part {
    fn shard(&self) -> Shard {
        self.shard
    }
    fn games(&self) -> u64 {
        self.games_for.iter().map(|(_, g)| *g).fold(self.games, u64::max)
    }
    fn wrong_counts(&self) -> Option<String> {
        let Shard { index, count } = self.shard;
        if let Some((name, g)) = self.games_for.iter().find(|(_, g)| *g == 0 || *g > oc_project::limits::MAX_GAMES) {
            return Some(format!("it says `{name}` plays {g} games (1 to {})", oc_project::limits::MAX_GAMES));
        }
        self.rows.iter().find_map(|row| {
            let g = self.games_for.iter().find(|(n, _)| *n == row.scenario).map_or(self.games, |(_, g)| *g);
            let (sc, owned, who) =
                (&row.score, self.shard.owned(g), format!("{} ({} vs {})", row.scenario, row.attacker, row.defender));
            if sc.games != owned {
                return Some(format!("its row {who} counts {} games, and shard {index}/{count} of {g} plays {owned}", sc.games));
            }
            if sc.wins[0].checked_add(sc.wins[1]).is_none_or(|w| w > sc.games) {
                return Some(format!("its row {who} counts {} and {} wins in {} games", sc.wins[0], sc.wins[1], sc.games));
            }
            (row.rounds > sc.games.saturating_mul(u64::from(u32::MAX)))
                .then(|| format!("its row {who} counts more rounds than {} games can last", sc.games))
        })
    }
    /// Whether `other` is a shard of the same run: the same command, seed, games and shard
    /// count, and the same rows (files, scenarios, armies) in the same order.
    fn same_run(&self, other: &Part) -> bool {
        let key = |r: &Row| {
            (r.file.clone(), r.scenario.clone(), r.title.clone(), r.attacker.clone(), r.defender.clone(), r.played.clone())
        };
        (&self.command, self.seed, self.games, &self.games_for, self.shard.count)
            == (&other.command, other.seed, other.games, &other.games_for, other.shard.count)
            && self.rows.iter().map(key).eq(other.rows.iter().map(key))
    }
}

/// Reads a part file's bytes: refused when it is not a fairness part, or one of another version.
pub fn read_part(path: &Path, bytes: &[u8]) -> Result<Part, Refusal> {
    parts::read(path, bytes, &WORDS)
}

/// The part files at `paths` read (regular files, bounded) and merged ([`merge`]).
pub fn merge_files(paths: &[PathBuf]) -> Result<Merged, Refusal> {
    merge(parts::read_files(paths, &WORDS)?)
}

/// A whole run put back together from its parts.
#[derive(Debug)]
pub struct Merged {
    pub command: String,
    pub seed: u64,
    pub rows: Vec<Row>,
    /// How many parts (shards) were merged.
    pub parts: u64,
}

/// Every shard of one run, once each, summed: the rows of the whole run.
pub fn merge(read: Vec<(PathBuf, Part)>) -> Result<Merged, Refusal> {
    let count = parts::whole(&read, &WORDS)?;
    let Some((_, first)) = read.first() else { return Err(Refusal::new("no parts to merge")) };
    let (command, seed) = (first.command.clone(), first.seed);
    let mut parts = read.into_iter().map(|(_, p)| p.rows);
    let mut rows = parts.next().unwrap_or_default();
    for other in parts {
        for (row, theirs) in rows.iter_mut().zip(other) {
            row.rounds += theirs.rounds;
            row.score.games += theirs.score.games;
            for (a, b) in row.score.wins.iter_mut().zip(theirs.score.wins) {
                *a += b;
            }
        }
    }
    Ok(Merged { command, seed, rows, parts: count })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;
    use crate::stats::Score;

    fn part(k: u64, n: u64, seed: u64, wins: [u64; 2]) -> (PathBuf, Part) {
        let row = Row { scenario: "Keep".into(), rounds: 10, score: Score { games: 2, wins }, ..Row::default() };
        let r = super::super::Request { paths: &[], games: 4, games_for: &[], seed, shard: None };
        (PathBuf::from(format!("p{k}.json")), Part::new(&r, "oc fairness x".into(), Shard { index: k, count: n }, vec![row]))
    }

    #[test]
    fn parts_sum_to_the_whole_run_and_strangers_are_refused() {
        let merged = merge(vec![part(2, 2, 1, [1, 1]), part(1, 2, 1, [2, 0])]).unwrap();
        assert_eq!((merged.rows[0].score, merged.rows[0].rounds, merged.parts), (Score { games: 4, wins: [3, 1] }, 20, 2));
        let said = |parts| merge(parts).unwrap_err().message;
        assert!(said(vec![part(1, 2, 1, [0, 0])]).contains("shards 2/2 are missing"));
        assert!(said(vec![part(1, 2, 1, [0, 0]), part(1, 2, 1, [0, 0])]).contains("shard 1/2 is given twice"));
        assert!(said(vec![part(1, 2, 1, [0, 0]), part(2, 2, 9, [0, 0])]).contains("a part of another run"));
        let text = part(1, 2, 1, [0, 0]).1.text().unwrap();
        assert!(text.starts_with("{\"kind\":\"oc fairness part\",\"version\":1,"), "{text}");
        let old = text.replace("\"version\":1", "\"version\":0");
        assert!(read_part(Path::new("old.json"), old.as_bytes())
            .unwrap_err()
            .message
            .contains("a fairness part of version 0, not of version 1"));
    }
}
