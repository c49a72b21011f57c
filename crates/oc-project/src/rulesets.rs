//! Which ruleset each of a project's files uses, each compiled on its own (as `oc check` does):
//! `oc build` refuses files of several rulesets, `oc doc` documents the one most of them use.

use std::collections::BTreeMap;

use oc_compiler::Workspace;

use crate::DiskHost;

/// `files` by the ruleset each uses; `None`: the file does not compile (with `partial`, a file
/// that stops at an error counts under the ruleset it got as far as).
pub fn by_ruleset(files: &[String], host: &mut DiskHost, partial: bool) -> BTreeMap<Option<String>, Vec<String>> {
    let mut groups: BTreeMap<Option<String>, Vec<String>> = BTreeMap::new();
    for f in files {
        let (c, _) = Workspace::new().compile(host, std::slice::from_ref(f));
        let rules = if partial { c.rules.as_ref().or(c.partial.as_ref()) } else { c.rules.as_ref() };
        groups.entry(rules.map(|r| r.ruleset.name.clone())).or_default().push(f.clone());
    }
    groups
}

/// The files of the ruleset most of them use, and the rest.
#[derive(Debug, PartialEq, Eq)]
pub struct MostUsed {
    pub ruleset: String,
    pub files: Vec<String>,
    /// Each file left out, as `FILE (RULESET)` or `FILE (does not compile)`.
    pub left_out: Vec<String>,
}

/// The ruleset most of `files` use (ties: the default ruleset, then the last by name); all of
/// them, with none left out, when they share one.
pub fn most_used(files: &[String], host: &mut DiskHost) -> MostUsed {
    let mut groups = by_ruleset(files, host, false);
    if groups.len() <= 1 {
        let ruleset = groups.into_keys().next().flatten().unwrap_or_default();
        return MostUsed { ruleset, files: files.to_vec(), left_out: Vec::new() };
    }
    let default = oc_compiler::stdlib::RULESETS.first().map_or("", |(n, _)| *n);
    let chosen = groups
        .iter()
        .max_by_key(|(name, list)| (list.len(), name.as_deref() == Some(default)))
        .map(|(name, _)| name.clone())
        .unwrap_or_default();
    let left_out = groups
        .iter()
        .filter(|(name, _)| **name != chosen)
        .flat_map(|(name, list)| list.iter().map(move |f| format!("{f} ({})", name.as_deref().unwrap_or("does not compile"))))
        .collect();
    let files = groups.remove(&chosen).unwrap_or_default();
    MostUsed { ruleset: chosen.unwrap_or_default(), files, left_out }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]

    use super::*;

    #[test]
    fn files_group_by_their_ruleset_and_the_most_used_wins() {
        let dir = tempfile::tempdir().unwrap();
        let write = |name: &str, text: &str| std::fs::write(dir.path().join(name), text).unwrap();
        write("a.oc", "import \"std:stamina\"\n");
        write("b.oc", "import \"std:stamina\"\n");
        write("c.oc", "import \"std:skirmish\"\n");
        write("d.oc", "class {");
        let project = crate::discover(&[dir.path().to_path_buf()]).unwrap().remove(0);
        let mut host = DiskHost::for_project(&project);
        let files: Vec<String> = ["a.oc", "b.oc", "c.oc", "d.oc"].map(String::from).to_vec();
        let groups = by_ruleset(&files, &mut host, false);
        assert_eq!(groups.get(&None), Some(&vec!["d.oc".to_string()]));
        assert_eq!(groups.len(), 3, "{groups:?}");
        let most = most_used(&files, &mut host);
        assert_eq!((most.ruleset.as_str(), most.files.len()), ("stamina", 2));
        assert_eq!(most.left_out, ["d.oc (does not compile)", "c.oc (skirmish)"]);
        assert!(most_used(&files[..1], &mut host).left_out.is_empty());
    }
}
