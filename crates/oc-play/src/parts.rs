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
        g % self.count == self.index - 1
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

/// A part file as a sharded command writes it.
pub(crate) trait Part: DeserializeOwned {
    fn kind(&self) -> &str;
    fn version(&self) -> u32;
    fn shard(&self) -> Shard;
    /// Whether `other` is a shard of the same run (the shard count included).
    fn same_run(&self, other: &Self) -> bool;
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
    /// Help for parts of two runs and for a shard given twice, where the command gives one.
    pub one_run: Option<&'static str>,
    pub twice: Option<&'static str>,
    /// The command that plays a shard, for the help on missing shards ("oc simulate FILE").
    pub command: &'static str,
}

/// Reads a part file's bytes.
pub(crate) fn read<P: Part>(path: &Path, bytes: &[u8], w: &Words) -> Result<P, Refusal> {
    let part: P = serde_json::from_slice(bytes)
        .map_err(|e| Refusal::new(format!("{}: not a part of {} ({e})", path.display(), w.run)).with_help(w.written_by))?;
    if part.kind() != w.kind || part.version() != w.version {
        return Err(Refusal::new(format!(
            "{}: a `{}` file of version {}, not {} (version {})",
            path.display(),
            part.kind(),
            part.version(),
            w.part,
            w.version
        ))
        .with_help(w.again));
    }
    Ok(part)
}

/// The part files at `paths` read (regular files, bounded), in the order given.
pub(crate) fn read_files<P: Part>(paths: &[PathBuf], w: &Words) -> Result<Vec<(PathBuf, P)>, Refusal> {
    let mut read = Vec::new();
    for path in paths {
        let bytes = oc_project::fsx::read_regular(path, oc_project::limits::MAX_LOG_BYTES)
            .map_err(|e| Refusal::new(format!("{}: {e}", path.display())))?;
        read.push((path.clone(), self::read(path, &bytes, w)?));
    }
    Ok(read)
}

/// Refused unless `read` holds every shard of one run once each: the shard count when it does.
pub(crate) fn whole<P: Part>(read: &[(PathBuf, P)], w: &Words) -> Result<u64, Refusal> {
    let Some((first_path, first)) = read.first() else { return Err(Refusal::new("no parts to merge")) };
    let count = first.shard().count;
    let with = |r: Refusal, help: Option<&str>| match help {
        Some(h) => r.with_help(h),
        None => r,
    };
    let mut seen: BTreeMap<u64, &Path> = BTreeMap::new();
    for (path, part) in read {
        if !first.same_run(part) {
            let r = Refusal::new(format!(
                "{} is a part of another run than {}: {} must match",
                path.display(),
                first_path.display(),
                w.must_match
            ));
            return Err(with(r, w.one_run));
        }
        if let Some(other) = seen.insert(part.shard().index, path) {
            let r = Refusal::new(format!(
                "shard {}/{count} is given twice: {} and {}",
                part.shard().index,
                other.display(),
                path.display()
            ));
            return Err(with(r, w.twice));
        }
    }
    let missing: Vec<String> = (1..=count).filter(|k| !seen.contains_key(k)).map(|k| format!("{k}/{count}")).collect();
    if !missing.is_empty() {
        return Err(Refusal::new(format!("the run's shards {} are missing", missing.join(", ")))
            .with_help(format!("run `{} --shard K/{count}` for each and pass every part", w.command)));
    }
    Ok(count)
}
