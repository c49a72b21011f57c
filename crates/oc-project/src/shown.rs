//! What the command line shows and how: paths as the user can open them, and whether to colour.
//!
//! Paths are relative to the working directory, as cargo and rustc print theirs (`-->
//! games/keep/rules/a.oc:2:10` when checked from the repository above the project), so a
//! terminal's link opens the file and a CI annotation lands on it; a file outside the working
//! directory is reached with `..`. The standard library's files keep their `std:` names.
//!
//! GitHub reads annotation and code-scanning paths from the repository's root, not from the
//! step's working directory, so under GitHub Actions (`GITHUB_WORKSPACE` set) the CI formats
//! show paths from the workspace instead ([`ci_base`], [`rebase`]).

use std::ffi::OsString;
use std::path::{Component, Path, PathBuf};

/// `path` made absolute against `cwd` and rid of `.` and `..` by its text (no link is followed:
/// the path is shown, not opened).
pub fn normal(path: &Path, cwd: &Path) -> PathBuf {
    let joined = if path.is_absolute() { path.to_path_buf() } else { cwd.join(path) };
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// `path` relative to `base` (both absolute and normal), with `..` where it lies outside; the
/// path itself when they share nothing but the root (`/tmp/x.oc` seen from `/home/ann`).
pub fn relative(path: &Path, base: &Path) -> PathBuf {
    let (p, b): (Vec<Component>, Vec<Component>) = (path.components().collect(), base.components().collect());
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let rooted = p.iter().take(common).filter(|c| matches!(c, Component::Normal(_))).count() > 0;
    if !rooted && common < b.len() {
        return path.to_path_buf();
    }
    let mut out: PathBuf = b.iter().skip(common).map(|_| Component::ParentDir).collect();
    out.extend(p.iter().skip(common));
    if out.as_os_str().is_empty() {
        out.push(".");
    }
    out
}

/// A project file as the command line shows it: `logical` (relative to the project's `root`,
/// `/`-separated) from the working directory `cwd`, `/`-separated on every system; a `std:`
/// name as it is.
pub fn path(root: &Path, logical: &str, cwd: &Path) -> String {
    if logical.starts_with("std:") || logical.starts_with('<') {
        return logical.to_string();
    }
    let cwd = normal(cwd, Path::new("/"));
    let file = normal(&root.join(logical), &cwd);
    let shown = relative(&file, &cwd);
    let parts: Vec<String> = shown.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if shown.is_absolute() {
        return shown.to_string_lossy().into_owned();
    }
    parts.join("/")
}

/// The folder that CI formats (SARIF, GitHub annotations) show paths from: `GITHUB_WORKSPACE`
/// when set and not empty (the repository's checkout, which GitHub resolves `file=` and SARIF
/// `uri`s against, whatever the step's `working-directory`), else the working directory `cwd`.
/// `env` reads a variable (`std::env::var_os`).
pub fn ci_base(cwd: &Path, env: impl Fn(&str) -> Option<OsString>) -> PathBuf {
    let cwd = normal(cwd, Path::new("/"));
    match env("GITHUB_WORKSPACE").filter(|v| !v.is_empty()) {
        Some(dir) => normal(Path::new(&dir), &cwd),
        None => cwd,
    }
}

/// A path shown from the working directory `cwd` ([`path`]) shown from `base` instead,
/// `/`-separated; `std:` and `<...>` names as they are.
pub fn rebase(shown: &str, cwd: &Path, base: &Path) -> String {
    if shown.starts_with("std:") || shown.starts_with('<') {
        return shown.to_string();
    }
    let cwd = normal(cwd, Path::new("/"));
    let file = normal(Path::new(shown), &cwd);
    let out = relative(&file, &normal(base, &cwd));
    if out.is_absolute() {
        return out.to_string_lossy().into_owned();
    }
    let parts: Vec<String> = out.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    parts.join("/")
}

/// A `/`-separated path as the path of a URI: every byte but unreserved ones and `/`
/// percent-encoded (RFC 3986), so `my rules/a.oc` is `my%20rules/a.oc`.
pub fn uri_path(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The `file://` URI of an absolute folder, ending in `/` (a base other URIs resolve against).
pub fn folder_uri(dir: &Path) -> String {
    let text = dir.to_string_lossy().replace('\\', "/");
    let text = if text.starts_with('/') { text } else { format!("/{text}") };
    let text = if text.ends_with('/') { text } else { format!("{text}/") };
    format!("file://{}", uri_path(&text))
}

/// `--color`: when reports are drawn with colours and unicode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColorChoice {
    /// Colour on a terminal, unless `NO_COLOR` asks for none (or `CLICOLOR_FORCE` for it anyway).
    #[default]
    Auto,
    Always,
    Never,
}

/// Whether to colour: `--color always|never` decide; `auto` colours a terminal, unless `NO_COLOR`
/// is set and not empty (no-color.org) or `CLICOLOR` is `0`; `CLICOLOR_FORCE` set and not `0`
/// colours even a pipe (bixense.com/clicolors). `env` reads a variable (`std::env::var_os`).
pub fn colour(choice: ColorChoice, terminal: bool, env: impl Fn(&str) -> Option<OsString>) -> bool {
    let set = |name: &str| env(name).filter(|v| !v.is_empty());
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            if set("NO_COLOR").is_some() {
                false
            } else if set("CLICOLOR_FORCE").is_some_and(|v| v != "0") {
                true
            } else {
                terminal && env("CLICOLOR").is_none_or(|v| v != "0")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_shown_from_the_working_directory() {
        let root = Path::new("/repo/games/keep");
        assert_eq!(path(root, "rules/a.oc", Path::new("/repo")), "games/keep/rules/a.oc");
        assert_eq!(path(root, "rules/a.oc", Path::new("/repo/games/keep")), "rules/a.oc");
        assert_eq!(path(root, "rules/a.oc", Path::new("/repo/games/keep/rules")), "a.oc");
        assert_eq!(path(root, "rules/a.oc", Path::new("/repo/other")), "../games/keep/rules/a.oc");
        assert_eq!(path(Path::new("games/./keep"), "a.oc", Path::new("/repo")), "games/keep/a.oc");
        assert_eq!(path(Path::new("../keep"), "a.oc", Path::new("/repo/games/x")), "../keep/a.oc");
        assert_eq!(path(root, "std:ratings/tags.oc", Path::new("/")), "std:ratings/tags.oc");
        assert_eq!(relative(Path::new("/a/b"), Path::new("/a/b")), PathBuf::from("."));
        assert_eq!(path(Path::new("/tmp/p"), "a.oc", Path::new("/work/repo")), "/tmp/p/a.oc", "only the root in common");
        assert_eq!(path(Path::new("/p"), "a.oc", Path::new("/")), "p/a.oc");
        assert_eq!(uri_path("my rules/ä.oc"), "my%20rules/%C3%A4.oc");
        assert_eq!(folder_uri(Path::new("/repo/my games")), "file:///repo/my%20games/");
        assert_eq!(folder_uri(Path::new("/")), "file:///");
    }

    #[test]
    fn ci_formats_show_paths_from_the_github_workspace() {
        let none = |_: &str| None;
        let ws = |_: &str| Some(OsString::from("/repo"));
        let empty = |_: &str| Some(OsString::new());
        let cwd = Path::new("/repo/games/keep");
        assert_eq!(ci_base(cwd, none), PathBuf::from("/repo/games/keep"));
        assert_eq!(ci_base(cwd, empty), PathBuf::from("/repo/games/keep"), "an empty variable is unset");
        assert_eq!(ci_base(cwd, ws), PathBuf::from("/repo"));
        assert_eq!(ci_base(cwd, |_: &str| Some(OsString::from("../.."))), PathBuf::from("/repo"));
        assert_eq!(rebase("rules/a.oc", cwd, Path::new("/repo")), "games/keep/rules/a.oc");
        assert_eq!(rebase("../keep/a.oc", cwd, Path::new("/repo")), "games/keep/a.oc");
        assert_eq!(rebase("rules/a.oc", cwd, cwd), "rules/a.oc");
        assert_eq!(rebase("/tmp/p/a.oc", cwd, Path::new("/repo")), "/tmp/p/a.oc");
        assert_eq!(rebase("std:ratings/tags.oc", cwd, Path::new("/repo")), "std:ratings/tags.oc");
    }

    #[test]
    fn colour_follows_the_flag_then_the_environment_then_the_terminal() {
        let env = |vars: &'static [(&'static str, &'static str)]| {
            move |name: &str| vars.iter().find(|(k, _)| *k == name).map(|(_, v)| OsString::from(v))
        };
        assert!(colour(ColorChoice::Always, false, env(&[("NO_COLOR", "1")])));
        assert!(!colour(ColorChoice::Never, true, env(&[("CLICOLOR_FORCE", "1")])));
        assert!(colour(ColorChoice::Auto, true, env(&[])));
        assert!(!colour(ColorChoice::Auto, false, env(&[])));
        assert!(!colour(ColorChoice::Auto, true, env(&[("NO_COLOR", "1")])));
        assert!(colour(ColorChoice::Auto, true, env(&[("NO_COLOR", "")])), "an empty NO_COLOR is unset");
        assert!(colour(ColorChoice::Auto, false, env(&[("CLICOLOR_FORCE", "1")])));
        assert!(!colour(ColorChoice::Auto, false, env(&[("CLICOLOR_FORCE", "0")])));
        assert!(!colour(ColorChoice::Auto, true, env(&[("NO_COLOR", "1"), ("CLICOLOR_FORCE", "1")])));
        assert!(!colour(ColorChoice::Auto, true, env(&[("CLICOLOR", "0")])));
    }
}
