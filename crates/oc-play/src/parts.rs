//! What every sharded command's parts share: reading a part file (refused when it is not a part
//! of that command, or of another version) and checking that a set of parts is every shard of
//! one run, each once. `simulate` and `fairness` say in their own words what they read.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use crate::error::Refusal;

/// Shard `index` (1-based) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    pub index: u64,
    pub count: u64,
}

impl Shard {
    /// Whether game `g` (0-based) is this shard's.
    pub fn owns(self, g: u64) -> bool {
        self.count != 0 && g % self.count == self.index.wrapping_sub(1)
    }

    /// How many of a run's `games` (0-based, each owned by one shard) this shard plays.
    pub fn owned(self, games: u64) -> u64 {
        if self.index == 0 || self.index > self.count || self.index > games {
            return 0;
        }
        (games - self.index) / self.count + 1
    }

    /// Refused past [`MAX_SHARDS`]: a merge waits for every shard's part, and a count beyond
    /// any run's games is a slip (`--shard 1/18446744073709551615`). A shard past a run's last
    /// game plays none (a job array of a fixed size over a short run): its part counts nothing.
    pub fn fits(self) -> Result<(), Refusal> {
        if self.count <= MAX_SHARDS {
            return Ok(());
        }
        Err(Refusal::new(format!("shard {}/{}: more shards than any run has games ({MAX_SHARDS})", self.index, self.count))
            .with_help("split the run into at most as many shards as it plays games"))
    }
}

/// `K/N` with 1 <= K <= N.
pub fn parse_shard(text: &str) -> Result<Shard, String> {
    let (k, n) = text.split_once('/').ok_or("write the shard as K/N, such as 3/8")?;
    let k: u64 = k.trim().parse().map_err(|_| format!("`{k}` is not a shard number"))?;
    let n: u64 = n.trim().parse().map_err(|_| format!("`{n}` is not a number of shards"))?;
    if n == 0 || k == 0 || k > n {
        return Err(format!("shard {k} of {n}: shards are numbered 1 to N"));
    }
    Ok(Shard { index: k, count: n })
}

/// The most shards a run is split into: the most games a run plays.
pub const MAX_SHARDS: u64 = oc_project::limits::MAX_GAMES;

/// A part file as a sharded command writes it.
pub(crate) trait Part: DeserializeOwned {
    fn shard(&self) -> Shard;
    /// The most games the whole run plays of one pair (what bounds its shards).
    fn games(&self) -> u64;
    /// Whether `other` is a shard of the same run (the shard count included).
    fn same_run(&self, other: &Self) -> bool;
    /// Why its counts are not ones its shard could have made (more games than the shard plays,
    /// more wins than games, ...), where they are not: a part changed after it was written.
    fn wrong_counts(&self) -> Option<String>;
}

/// How a command names its parts in refusals.
pub(crate) struct Words {
    /// The part's `kind` and the version read.
    pub kind: &'static str,
    pub version: u32,
    /// "a sharded simulation": what a file that cannot be read is not a part of.
    pub run: &'static str,
    /// "a part": what a file of another kind or version is not.
    pub part: &'static str,
    /// How parts are written, and how to write one again with this version.
    pub written_by: &'static str,
    pub again: &'static str,
    /// What must match between parts of one run.
    pub must_match: &'static str,
    /// Help for parts of two runs and for a shard given twice.
    pub one_run: &'static str,
    pub twice: &'static str,
    /// The command that plays a shard, for the help on missing shards ("oc simulate FILE").
    pub command: &'static str,
}

/// Reads a part file's bytes.
pub(crate) fn read<P: Part>(path: &Path, bytes: &[u8], w: &Words) -> Result<P, Refusal> {
    let not_a_part = |why: &dyn std::fmt::Display| {
        Refusal::new(format!("{}: not a part of {} ({why})", path.display(), w.run)).with_help(w.written_by)
    };
    // Its kind and version read first: a part of another command or version is said to be one,
    // not reported by the first field its shape lacks.
    let value: serde_json::Value = serde_json::from_slice(bytes).map_err(|e| not_a_part(&e))?;
    let Some(kind) = value.get("kind").and_then(serde_json::Value::as_str) else {
        return Err(not_a_part(&"it names no `kind`"));
    };
    let version = value.get("version").and_then(serde_json::Value::as_u64).unwrap_or_default();
    // Another command's part is said to be one (its version was said as if it mattered).
    if kind != w.kind {
        return Err(Refusal::new(format!("{}: a `{}` file, not {}", path.display(), shown(kind), w.part)).with_help(w.written_by));
    }
    if version != u64::from(w.version) {
        return Err(Refusal::new(format!(
            "{}: {} of version {version}, not of version {} (another oc wrote it)",
            path.display(),
            w.part,
            w.version
        ))
        .with_help(w.again));
    }
    // Its text goes to the terminal (titles, endings): no control character, which a terminal
    // would act on.
    if holds_control(&value) {
        return Err(not_a_part(
            &"a text in it holds a control character other than a line break or a tab, which oc never writes",
        ));
    }
    let part: P = serde_json::from_value(value).map_err(|e| not_a_part(&e))?;
    let changed = |why: String| {
        Refusal::new(format!("{}: {why}: not a part as oc writes it", path.display()))
            .with_help(format!("the file was changed after it was written: play its shard again ({})", w.written_by))
    };
    let (shard, games) = (part.shard(), part.games());
    if shard.count == 0 || shard.index == 0 || shard.index > shard.count {
        return Err(changed(format!("it says it is shard {}/{}, and shards are numbered 1 to N", shard.index, shard.count)));
    }
    if games == 0 || games > oc_project::limits::MAX_GAMES {
        return Err(changed(format!("it says the run plays {games} games a pair (1 to {})", oc_project::limits::MAX_GAMES)));
    }
    if shard.count > MAX_SHARDS {
        return Err(changed(format!("it is a shard of {}, more than any run has games ({MAX_SHARDS})", shard.count)));
    }
    if let Some(why) = part.wrong_counts() {
        return Err(changed(why));
    }
    Ok(part)
}

/// Whether a string anywhere in `value` holds a control character other than a line break or a
/// tab (which a scenario's strings may hold, written `\n` and `\t`; the compiler refuses the
/// others, `oc::syntax::control_character`).
fn holds_control(value: &serde_json::Value) -> bool {
    let acts = |c: char| c.is_control() && c != '\n' && c != '\t';
    match value {
        serde_json::Value::String(s) => s.chars().any(acts),
        serde_json::Value::Array(items) => items.iter().any(holds_control),
        serde_json::Value::Object(fields) => fields.iter().any(|(k, v)| k.chars().any(acts) || holds_control(v)),
        _ => false,
    }
}

/// A kind read from a file, shown with its control characters escaped.
fn shown(kind: &str) -> String {
    kind.chars().flat_map(char::escape_debug).take(80).collect()
}

/// The first few shards of `1..=count` missing from `seen` (given ascending), and how many are
/// missing in all: found from the gaps between the shards seen, so a count of millions costs
/// nothing where few are given.
pub(crate) fn missing(seen: impl IntoIterator<Item = u64>, count: u64) -> (Vec<u64>, u64) {
    const SHOWN: u64 = 8;
    let (mut first, mut total) = (Vec::new(), 0u64);
    // Each gap `from..=to` noted: its first few shards while fewer than `SHOWN` are, its length.
    let mut gap = |from: u64, to: u64| {
        total = total.saturating_add(to - from).saturating_add(1);
        let room = SHOWN.saturating_sub(first.len() as u64);
        first.extend((from..=to).take(usize::try_from(room).unwrap_or(0)));
    };
    // The first shard not yet accounted for (`None`: past the last).
    let mut next = Some(1u64);
    for k in seen.into_iter().filter(|k| (1..=count).contains(k)) {
        match next {
            Some(n) if k > n => gap(n, k - 1),
            Some(n) if k < n => continue,
            Some(_) => {}
            None => break,
        }
        next = k.checked_add(1);
    }
    if let Some(n) = next.filter(|n| *n <= count) {
        gap(n, count);
    }
    (first, total)
}

/// "2/8, 5/8, 3 more": the shards `missing` found, in words.
pub(crate) fn shards_in_words((first, total): &(Vec<u64>, u64), count: u64) -> String {
    let mut words: Vec<String> = first.iter().map(|k| format!("{k}/{count}")).collect();
    let more = total.saturating_sub(first.len() as u64);
    if more > 0 {
        words.push(format!("{more} more"));
    }
    words.join(", ")
}

/// The part files at `paths` read (regular files, bounded), in the order given.
pub(crate) fn read_files<P: Part>(paths: &[PathBuf], w: &Words) -> Result<Vec<(PathBuf, P)>, Refusal> {
    let mut read = Vec::new();
    for path in paths {
        let bytes = oc_project::fsx::read_regular(path, oc_project::limits::MAX_LOG_BYTES)
            .map_err(|e| Refusal::new(format!("{}: {e}", path.display())).with_help(w.written_by))?;
        read.push((path.clone(), self::read(path, &bytes, w)?));
    }
    Ok(read)
}

/// Refused unless `read` holds every shard of one run once each: the shard count when it does.
pub(crate) fn whole<P: Part>(read: &[(PathBuf, P)], w: &Words) -> Result<u64, Refusal> {
    let Some((first_path, first)) = read.first() else { return Err(Refusal::new("no parts to merge")) };
    let count = first.shard().count;
    let mut seen: BTreeMap<u64, &Path> = BTreeMap::new();
    for (path, part) in read {
        if !first.same_run(part) {
            let r = Refusal::new(format!(
                "{} is a part of another run than {}: {} must match",
                path.display(),
                first_path.display(),
                w.must_match
            ));
            return Err(r.with_help(w.one_run));
        }
        if let Some(other) = seen.insert(part.shard().index, path) {
            let r = Refusal::new(format!(
                "shard {}/{count} is given twice: {} and {}",
                part.shard().index,
                other.display(),
                path.display()
            ));
            return Err(r.with_help(w.twice));
        }
    }
    let missing = missing(seen.keys().copied(), count);
    if missing.1 > 0 {
        return Err(Refusal::new(format!("the run's shards {} are missing", shards_in_words(&missing, count)))
            .with_help(format!("run `{} --shard K/{count}` for each and pass every part", w.command)));
    }
    Ok(count)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A shard plays its games of the run (none past its last game), every game is one shard's,
    /// and more shards than any run has games are refused.
    #[test]
    fn shards_own_their_games_and_fit_the_run() {
        for games in [1, 2, 7, 30] {
            for count in 1..=games + 2 {
                let shards: Vec<Shard> = (1..=count).map(|index| Shard { index, count }).collect();
                for s in &shards {
                    assert_eq!(s.owned(games), (0..games).filter(|g| s.owns(*g)).count() as u64, "{s:?} of {games}");
                    assert!(s.fits().is_ok());
                }
                assert_eq!(shards.iter().map(|s| s.owned(games)).sum::<u64>(), games);
            }
        }
        let refused = Shard { index: 1, count: u64::MAX }.fits().unwrap_err();
        assert!(refused.message.contains("more shards than any run has games"), "{}", refused.message);
        assert!(!Shard { index: 0, count: 0 }.owns(3) && Shard { index: 0, count: 0 }.owned(3) == 0);
    }

    /// The shards missing from a run: the first few and how many, found from the gaps (a count
    /// of billions with two shards given costs nothing).
    #[test]
    fn missing_shards_are_counted_from_the_gaps() {
        let cases: [(&[u64], u64, &[u64], u64); 5] = [
            (&[1, 2, 3], 3, &[], 0),
            (&[2], 3, &[1, 3], 2),
            (&[], 2, &[1, 2], 2),
            (&[1, 4], 20, &[2, 3, 5, 6, 7, 8, 9, 10], 18),
            (&[1, 2], u64::MAX, &[3, 4, 5, 6, 7, 8, 9, 10], u64::MAX - 2),
        ];
        for (seen, count, first, total) in cases {
            assert_eq!(missing(seen.iter().copied(), count), (first.to_vec(), total), "{seen:?} of {count}");
        }
        assert_eq!(shards_in_words(&missing([2u64], 3), 3), "1/3, 3/3");
        assert_eq!(shards_in_words(&missing([1u64, 4], 20), 20), "2/20, 3/20, 5/20, 6/20, 7/20, 8/20, 9/20, 10/20, 10 more");
    }
}
