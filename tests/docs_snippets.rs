//! The guide's code blocks run, like rustdoc's doctests: every ```oc, ```toml and ```sh block
//! in `docs/` and `README.md`, in the order a reader meets them, as the reader types them: the
//! harness writes no file the page does not show.
//!
//! - A tutorial (`docs/tutorial-*.md`) starts in an empty folder, as a reader who opens it does:
//!   whatever project it needs — its `oc.toml`, its rules and maps — the page writes.
//! - Every other page runs in a copy of what a reader who cloned the repository has: its
//!   `oc.toml`, `scenarios/`, `examples/` and `tests/fixtures/mirror/`.
//! - ```oc and ```toml blocks are files: `file=PATH` (in the info string, after a comma) puts the
//!   block at that path of the page's project, so later blocks can import, map or run it. A block
//!   without it is a fragment the reader may try: it is checked at `snippets/N.oc`
//!   (`snippets/N.map.toml`) and removed again, so that nothing the page does not show stays
//!   behind. A ```toml block holding `[project]` without `file=` is an `oc.toml` checked in a
//!   project of its own. Each file is checked with `oc check FILE --format json` (an `oc.toml`
//!   with `oc check .`): it must be clean (no error, no warning), or, marked `error=CODE` /
//!   `warning=CODE`, report that code.
//! - ```sh blocks run with `bash -e -o pipefail` in the page's project and must exit 0 (or the
//!   `status=N` they name). `no_run` blocks (the set-up commands that build and test this
//!   repository, scheduler scripts) are checked with `bash -n`, and each `oc SUBCOMMAND` they use
//!   must exist.
//!
//! The second test keeps `docs/diagnostics.md` equal to what `oc explain --list` and
//! `oc explain CODE` print (`OC_BLESS=1` rewrites it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[derive(Debug, Default)]
struct Attrs {
    file: Option<String>,
    error: Option<String>,
    warning: Option<String>,
    no_run: bool,
    status: Option<i32>,
}

#[derive(Debug)]
struct Block {
    line: usize,
    lang: String,
    attrs: Attrs,
    text: String,
}

/// The fenced code blocks of a Markdown text.
fn blocks(md: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let mut open: Option<(usize, String, Attrs, String)> = None;
    for (n, line) in md.lines().enumerate() {
        let trimmed = line.trim_start();
        match &mut open {
            None => {
                if let Some(info) = trimmed.strip_prefix("```") {
                    let mut parts = info.split(',').map(str::trim);
                    let lang = parts.next().unwrap_or("").to_string();
                    let mut attrs = Attrs::default();
                    for p in parts {
                        match p.split_once('=') {
                            Some(("file", v)) => attrs.file = Some(v.to_string()),
                            Some(("error", v)) => attrs.error = Some(v.to_string()),
                            Some(("warning", v)) => attrs.warning = Some(v.to_string()),
                            Some(("status", v)) => attrs.status = Some(v.parse().unwrap()),
                            None if p == "no_run" => attrs.no_run = true,
                            _ => panic!("line {}: unknown code block attribute `{p}`", n + 1),
                        }
                    }
                    open = Some((n + 1, lang, attrs, String::new()));
                }
            }
            Some((start, lang, attrs, text)) => {
                if trimmed.starts_with("```") {
                    out.push(Block {
                        line: *start,
                        lang: std::mem::take(lang),
                        attrs: std::mem::take(attrs),
                        text: std::mem::take(text),
                    });
                    open = None;
                } else {
                    text.push_str(line);
                    text.push('\n');
                }
            }
        }
    }
    assert!(open.is_none(), "a code block is never closed");
    out
}

fn pages() -> Vec<PathBuf> {
    let mut pages = vec![repo().join("README.md")];
    let mut stack = vec![repo().join("docs")];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "md") {
                pages.push(p);
            }
        }
    }
    pages.sort();
    pages
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(e.file_name());
        if e.file_type().unwrap().is_dir() {
            copy_dir(&e.path(), &target);
        } else {
            std::fs::copy(e.path(), &target).unwrap();
        }
    }
}

/// Runs a command with a time limit; stdout and stderr are collected (drained while it runs,
/// so a command that prints more than a pipe holds does not wait on the test for ever).
fn run(mut cmd: Command, limit: Duration) -> Output {
    use std::io::Read;
    let shown = format!("{cmd:?}");
    let mut child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let out = drain(Box::new(child.stdout.take().unwrap()));
    let err = drain(Box::new(child.stderr.take().unwrap()));
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return Output { status, stdout: out.join().unwrap(), stderr: err.join().unwrap() };
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = err.join().unwrap();
            panic!("timed out after {limit:?}: {shown}\n{}", String::from_utf8_lossy(&stderr));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

struct Env {
    bin: PathBuf,
    home: PathBuf,
}

impl Env {
    fn command(&self, program: &str, dir: &Path) -> Command {
        let mut cmd = Command::new(program);
        let path = std::env::var_os("PATH").unwrap_or_default();
        let mut paths = vec![self.bin.clone()];
        paths.extend(std::env::split_paths(&path));
        cmd.current_dir(dir).env("PATH", std::env::join_paths(paths).unwrap()).env("HOME", &self.home).env("NO_COLOR", "1");
        cmd
    }
}

/// Checks one file with `oc check --format json`: Ok, or why the block fails.
fn check_file(env: &Env, dir: &Path, path: &str, attrs: &Attrs) -> Result<(), String> {
    let mut cmd = env.command("oc", dir);
    cmd.args(["check", path, "--format", "json"]);
    let out = run(cmd, Duration::from_secs(120));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout)
        .map_err(|e| format!("oc check printed no JSON ({e}): {}", String::from_utf8_lossy(&out.stderr)))?;
    let found: Vec<(String, String, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| {
            (
                d["severity"].as_str().unwrap().to_string(),
                d["code"].as_str().unwrap().to_string(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let shown = || found.iter().map(|(s, c, m)| format!("  {s} {c}: {m}")).collect::<Vec<_>>().join("\n");
    for (severity, wanted) in [("error", &attrs.error), ("warning", &attrs.warning)] {
        if let Some(code) = wanted {
            if !found.iter().any(|(s, c, _)| s == severity && c == code) {
                return Err(format!("marked {severity}={code}, but oc check reported:\n{}", shown()));
            }
        }
    }
    if attrs.error.is_none() && attrs.warning.is_none() && !found.is_empty() {
        return Err(format!("should check clean, but oc check reported:\n{}", shown()));
    }
    Ok(())
}

/// The `oc` subcommands a shell text uses.
fn subcommands(text: &str) -> Vec<String> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words.windows(2).filter(|w| w[0] == "oc" || w[0].ends_with("/oc")).map(|w| w[1].to_string()).collect()
}

fn run_page(env: &Env, page: &Path, scratch: &Path) -> (usize, Vec<String>) {
    let md = std::fs::read_to_string(page).unwrap();
    let name = page.strip_prefix(repo()).unwrap().display().to_string();
    let project = scratch.join(name.replace(['/', '.'], "-"));
    std::fs::create_dir_all(&project).unwrap();
    if !is_tutorial(page) {
        copy_dir(&repo().join("scenarios"), &project.join("scenarios"));
        copy_dir(&repo().join("examples"), &project.join("examples"));
        copy_dir(&repo().join("tests/fixtures/mirror"), &project.join("tests/fixtures/mirror"));
        std::fs::copy(repo().join("oc.toml"), project.join("oc.toml")).unwrap();
    }
    let mut failures = Vec::new();
    let mut ran = 0;
    for (n, b) in blocks(&md).into_iter().enumerate() {
        let at = format!("{name}:{}", b.line);
        assert!(
            !matches!(b.lang.as_str(), "bash" | "shell" | "console" | "zsh" | "rust-oc" | "ocaml"),
            "{at}: write shell blocks as ```sh and rules as ```oc, so that they run"
        );
        let result = match b.lang.as_str() {
            "oc" => {
                let path = b.attrs.file.clone().unwrap_or(format!("snippets/{n}.oc"));
                write(&project, &path, &b.text);
                let result = check_file(env, &project, &path, &b.attrs);
                if b.attrs.file.is_none() {
                    remove_snippet(&project, &path);
                }
                result
            }
            "toml" if b.attrs.file.is_none() && b.text.contains("[project]") => {
                let own = scratch.join(format!("{}-manifest-{n}", name.replace(['/', '.'], "-")));
                write(&own, "oc.toml", &b.text);
                check_file(env, &own, ".", &b.attrs)
            }
            "toml" if b.attrs.file.as_deref() == Some("oc.toml") => {
                write(&project, "oc.toml", &b.text);
                check_file(env, &project, ".", &b.attrs)
            }
            "toml" => {
                let path = b.attrs.file.clone().unwrap_or(format!("snippets/{n}.map.toml"));
                write(&project, &path, &b.text);
                let result = check_file(env, &project, &path, &b.attrs);
                if b.attrs.file.is_none() {
                    remove_snippet(&project, &path);
                }
                result
            }
            "sh" if b.attrs.no_run => {
                let mut cmd = env.command("bash", &project);
                cmd.args(["-n", "-c", &b.text]);
                let out = run(cmd, Duration::from_secs(10));
                let mut r = if out.status.success() { Ok(()) } else { Err(String::from_utf8_lossy(&out.stderr).into_owned()) };
                for sub in subcommands(&b.text) {
                    let mut cmd = env.command("oc", &project);
                    cmd.args([sub.as_str(), "--help"]);
                    if !run(cmd, Duration::from_secs(10)).status.success() {
                        r = Err(format!("`oc {sub}` is not a command"));
                    }
                }
                r
            }
            "sh" => {
                let mut cmd = env.command("bash", &project);
                cmd.args(["-e", "-o", "pipefail", "-c", &b.text]);
                let out = run(cmd, Duration::from_secs(300));
                let want = b.attrs.status.unwrap_or(0);
                if out.status.code() == Some(want) {
                    Ok(())
                } else {
                    Err(format!(
                        "exited {:?}, not {want}:\n{}{}",
                        out.status.code(),
                        String::from_utf8_lossy(&out.stdout),
                        String::from_utf8_lossy(&out.stderr)
                    ))
                }
            }
            _ => continue,
        };
        ran += 1;
        if let Err(why) = result {
            failures.push(format!("{at} (```{}): {why}", b.lang));
        }
    }
    (ran, failures)
}

/// A tutorial starts from an empty folder; the other pages from a copy of the repository.
fn is_tutorial(page: &Path) -> bool {
    page.file_name().is_some_and(|n| n.to_string_lossy().starts_with("tutorial-"))
}

/// A fragment checked on its own is removed again (and `snippets/` once empty).
fn remove_snippet(root: &Path, path: &str) {
    std::fs::remove_file(root.join(path)).unwrap();
    let _ = std::fs::remove_dir(root.join("snippets"));
}

fn write(root: &Path, path: &str, text: &str) {
    let target = root.join(path);
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::write(target, text).unwrap();
}

#[test]
fn every_code_block_of_the_guide_and_the_readme_runs() {
    let scratch = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-docs-{}", std::process::id())));
    let bin = scratch.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_oc"), bin.join("oc")).unwrap();
    let home = scratch.join("home");
    std::fs::create_dir_all(&home).unwrap();
    let env = Env { bin, home };
    let pages = pages();
    assert!(pages.len() >= 9, "{pages:?}");
    let mut ran = 0;
    let mut failures = Vec::new();
    for page in &pages {
        let (n, f) = run_page(&env, page, &scratch);
        ran += n;
        failures.extend(f);
    }
    let _ = std::fs::remove_dir_all(&scratch);
    assert!(failures.is_empty(), "{} of {ran} code blocks fail:\n\n{}", failures.len(), failures.join("\n\n"));
    assert!(ran >= 60, "only {ran} code blocks ran");
}

/// `docs/diagnostics.md` as `oc explain` has it.
fn diagnostics_index() -> String {
    let oc = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_oc")).args(args).output().unwrap();
        assert!(out.status.success());
        String::from_utf8(out.stdout).unwrap()
    };
    let list = oc(&["explain", "--list"]);
    let codes: Vec<(&str, &str)> = list.lines().filter_map(|l| l.split_once(' ')).map(|(c, t)| (c, t.trim())).collect();
    let anchor = |c: &str| c.replace("::", "-").replace('_', "-");
    let mut out = String::from(
        "# Diagnostics index\n\n\
         Every problem `oc` reports has a stable code (codes are never reused). `oc explain CODE` prints\n\
         the explanation below; this page is generated from `oc explain --list` and `oc explain CODE`\n\
         (`OC_BLESS=1 cargo test --test docs_snippets` rewrites it; the test fails when it is stale).\n\n\
         | code | what it means |\n|---|---|\n",
    );
    for (code, title) in &codes {
        out.push_str(&format!("| [`{code}`](#{}) | {} |\n", anchor(code), title.replace('|', "\\|")));
    }
    for (code, _) in &codes {
        let text = oc(&["explain", code]);
        let (head, body) = text.split_once("\n\n").unwrap_or((text.as_str(), ""));
        let title = head.split_once(": ").map_or(head, |(_, t)| t);
        out.push_str(&format!(
            "\n<a id=\"{}\"></a>\n\n## `{code}`\n\n{}\n\n```text\n{}\n```\n",
            anchor(code),
            title,
            body.trim_end()
        ));
    }
    out
}

#[test]
fn the_diagnostics_index_is_current() {
    let path = repo().join("docs/diagnostics.md");
    let mut expectations = oc_testkit::Expectations::new();
    expectations
        .check_with(&path, &diagnostics_index(), |_, _| "docs/diagnostics.md is stale: it is `oc explain`'s text".to_string());
    expectations.finish("generated page(s)");
}
