//! `oc.toml`: the project root and its settings, found by walking up from each input path like
//! `Cargo.toml`. Without one, the root is the input's own folder. The root never comes from the
//! working directory.
//!
//! ```toml
//! [project]
//! name = "magvel"                 # shown in reports
//! ruleset = "officers_chess"      # default --ruleset of forecast, duel and matrix
//! ignore = ["tests/fixtures", "*.mistakes.oc"]   # skipped when `oc check` walks a folder
//!
//! [doc]
//! cname = "rules.example.org"     # `oc doc` writes it as the site's CNAME (GitHub Pages)
//! ```

use std::path::{Path, PathBuf};

use oc_diag::{Diagnostic, FileId, Span};
use toml::de::DeValue;

use crate::codes::{MANIFEST_FIELD, MANIFEST_TOML};

pub const FILE_NAME: &str = "oc.toml";
/// The longest `ignore` glob (paths are short; a huge pattern is a mistake).
pub const MAX_GLOB_LEN: usize = 256;

/// The settings of a project.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Manifest {
    pub name: Option<String>,
    pub ruleset: Option<String>,
    /// Where `ruleset`'s value is written in oc.toml (bytes), for a diagnostic about it.
    pub ruleset_at: Option<(usize, usize)>,
    pub ignore: Vec<String>,
    /// `[doc] cname`: the custom domain `oc doc` writes into the site as its `CNAME` file.
    pub doc_cname: Option<String>,
}

/// Where a project starts, and its manifest file if it has one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Root {
    /// An absolute path.
    pub dir: PathBuf,
    pub manifest: Option<PathBuf>,
}

/// `path` made absolute (against the working directory, the only use of it) and tidied of `.`
/// and `..` parts.
pub fn absolute(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|d| d.join(path)).unwrap_or_else(|_| path.to_path_buf())
    };
    let mut out = PathBuf::new();
    for c in abs.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// The root of the project holding `input`: the nearest folder at or above it with an `oc.toml`,
/// else the input's own folder (the input itself when it is a folder).
pub fn find_root(input: &Path) -> Root {
    let input = absolute(input);
    let start = if input.is_dir() { input.clone() } else { input.parent().map_or_else(|| input.clone(), Path::to_path_buf) };
    for dir in start.ancestors() {
        let candidate = dir.join(FILE_NAME);
        // Any entry named oc.toml marks the root, even one that cannot be read (that is then
        // reported): walking on past it would silently widen the project.
        if std::fs::symlink_metadata(&candidate).is_ok() {
            return Root { dir: dir.to_path_buf(), manifest: Some(candidate) };
        }
    }
    Root { dir: start, manifest: None }
}

/// Reads a manifest's text. Problems are diagnostics in `file`; what could be read is kept.
pub fn parse(file: FileId, text: &str) -> (Manifest, Vec<Diagnostic>) {
    let mut diags = Vec::new();
    let mut manifest = Manifest::default();
    let span = |r: std::ops::Range<usize>| Span::new(file, r.start, r.end);
    let table = match toml::de::DeTable::parse(text) {
        Ok(t) => t.into_inner(),
        Err(e) => {
            let at = e.span().unwrap_or(0..0);
            diags.push(
                Diagnostic::error(MANIFEST_TOML, span(at), format!("oc.toml is not valid TOML: {}", e.message().trim()))
                    .with_help("oc.toml holds a `[project]` table with name, ruleset and ignore"),
            );
            return (manifest, diags);
        }
    };
    let mut field = |at: std::ops::Range<usize>, message: String| {
        diags.push(Diagnostic::error(MANIFEST_FIELD, span(at), message).with_help(
            "oc.toml has a table [project], with `name` (string), `ruleset` (string) and `ignore` (list of globs), and a table [doc] with `cname` (a domain name)",
        ));
    };
    for (key, value) in &table {
        if key.get_ref().as_ref() == "doc" {
            let Some(doc) = value.get_ref().as_table() else {
                field(value.span(), "`doc` must be a table: `[doc]`".to_string());
                continue;
            };
            for (k, v) in doc {
                match (k.get_ref().as_ref(), v.get_ref()) {
                    ("cname", DeValue::String(s)) if is_domain(s) => manifest.doc_cname = Some(s.to_string()),
                    ("cname", _) => field(
                        v.span(),
                        "`cname` is the site's domain name, such as \"rules.example.org\" (letters, digits, `-` and dots)"
                            .to_string(),
                    ),
                    (other, _) => field(k.span(), format!("unknown key `{other}` in [doc]")),
                }
            }
            continue;
        }
        if key.get_ref().as_ref() != "project" {
            let hint = oc_diag::did_you_mean(key.get_ref().as_ref(), ["project", "doc"])
                .map(|s| format!("; did you mean `{s}`?"))
                .unwrap_or_default();
            field(key.span(), format!("unknown key `{}` in oc.toml{hint}", key.get_ref()));
            continue;
        }
        let Some(project) = value.get_ref().as_table() else {
            field(value.span(), "`project` must be a table: `[project]`".to_string());
            continue;
        };
        for (k, v) in project {
            let name: &str = k.get_ref().as_ref();
            match (name, v.get_ref()) {
                ("name", DeValue::String(s)) => manifest.name = Some(s.to_string()),
                ("ruleset", DeValue::String(s)) => {
                    manifest.ruleset = Some(s.to_string());
                    manifest.ruleset_at = Some((v.span().start, v.span().end));
                }
                ("ignore", DeValue::Array(list)) => {
                    for item in list.iter() {
                        match item.get_ref().as_str() {
                            Some(s) if s.len() > MAX_GLOB_LEN => field(
                                item.span(),
                                format!("an `ignore` glob of {} bytes; at most {MAX_GLOB_LEN} are read", s.len()),
                            ),
                            Some(s) if !s.trim().is_empty() => manifest.ignore.push(s.trim().trim_end_matches('/').to_string()),
                            _ => field(item.span(), "`ignore` lists non-empty strings (globs)".to_string()),
                        }
                    }
                }
                ("name" | "ruleset", _) => field(v.span(), format!("`{name}` must be a string")),
                ("ignore", _) => field(v.span(), "`ignore` must be a list of globs".to_string()),
                _ => {
                    let known = ["name", "ruleset", "ignore"];
                    let hint = oc_diag::did_you_mean(name, known.iter().copied())
                        .map(|s| format!("; did you mean `{s}`?"))
                        .unwrap_or_default();
                    field(k.span(), format!("unknown key `{name}` in [project]{hint}"));
                }
            }
        }
    }
    (manifest, diags)
}

/// Whether `s` is a domain name a `CNAME` file may hold: dot-separated labels of letters, digits
/// and `-` (not at either end), at most 253 bytes.
fn is_domain(s: &str) -> bool {
    s.len() <= 253
        && s.split('.').count() >= 2
        && s.split('.').all(|l| {
            !l.is_empty()
                && l.len() <= 63
                && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
                && !l.starts_with('-')
                && !l.ends_with('-')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_manifest_reads_and_refuses_unknown_keys_with_their_span() {
        let text = "[project]\nname = \"x\"\nignore = [\"a\", \"b/\"]\nrulset = \"y\"\n";
        let (m, d) = parse(FileId(0), text);
        assert_eq!(m.name.as_deref(), Some("x"));
        assert_eq!(m.ignore, vec!["a".to_string(), "b".to_string()]);
        assert_eq!(d.len(), 1, "{d:?}");
        let first = d.first().map(|d| (d.code, d.span.start as usize, d.message.clone()));
        assert_eq!(
            first,
            Some((
                MANIFEST_FIELD,
                text.find("rulset").unwrap_or(0),
                "unknown key `rulset` in [project]; did you mean `ruleset`?".to_string()
            ))
        );
        let (_, d) = parse(FileId(0), "[project\n");
        assert_eq!(d.first().map(|d| d.code), Some(MANIFEST_TOML));
    }

    #[test]
    fn the_doc_table_names_the_sites_domain() {
        let (m, d) = parse(FileId(0), "[project]\nname = \"x\"\n[doc]\ncname = \"rules.example.org\"\n");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(m.doc_cname.as_deref(), Some("rules.example.org"));
        for bad in ["\"https://rules.example.org\"", "\"rules\"", "\"a b.org\"", "3", "\"-a.org\""] {
            let (m, d) = parse(FileId(0), &format!("[doc]\ncname = {bad}\n"));
            assert_eq!((m.doc_cname, d.len()), (None, 1), "{bad}");
        }
        let (_, d) = parse(FileId(0), "[docs]\ncname = \"a.org\"\n");
        assert!(d.first().is_some_and(|d| d.message.contains("did you mean `doc`?")), "{d:?}");
    }
}
