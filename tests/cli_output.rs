//! How the command line speaks (issue 42, "Command line"): paths from the working directory
//! in every format (SARIF with `uriBaseId` and `originalUriBaseIds`), `--color`, `NO_COLOR`,
//! `CLICOLOR_FORCE`, `--quiet`, `oc man`, `oc --version` with the commit, and `--format json` on
//! every command that reports.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// `oc` in `dir`, with no colour variable of the caller's environment.
fn oc_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_oc"));
    cmd.args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .env_remove("GITHUB_WORKSPACE");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("oc runs")
}

fn oc(dir: &Path, args: &[&str]) -> Output {
    oc_env(dir, args, &[])
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-cli-output-{}-{name}", std::process::id())));
    dir
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// A repository with its project in `games/keep`, one mistake in `rules/a.oc`.
fn nested_project(name: &str) -> oc_testkit::Scratch {
    let repo = scratch(name);
    let rules = repo.join("games/keep/rules");
    std::fs::create_dir_all(&rules).unwrap();
    std::fs::write(repo.join("games/keep/oc.toml"), "[project]\nname = \"keep\"\n").unwrap();
    std::fs::write(
        rules.join("a.oc"),
        "class Runner {\n    ratings { str C mag E skl C spd D def B res D }\n    tags Lcuky\n    cost 900\n}\n",
    )
    .unwrap();
    repo
}

#[test]
fn paths_are_shown_from_the_working_directory_in_every_format() {
    let repo = nested_project("paths");
    // From the repository, as a CI job runs: every format names games/keep/rules/a.oc.
    let human = oc(&repo, &["check", "games/keep"]);
    assert!(text(&human.stderr).contains("[games/keep/rules/a.oc:3:10]"), "{}", text(&human.stderr));
    let json: Value = serde_json::from_slice(&oc(&repo, &["check", "games/keep", "--format", "json"]).stdout).unwrap();
    assert_eq!(json["diagnostics"][0]["file"], "games/keep/rules/a.oc");
    let github = text(&oc(&repo, &["check", "games/keep", "--format", "github"]).stdout);
    assert!(github.starts_with("::error file=games/keep/rules/a.oc,line=3,col=10,"), "{github}");
    let sarif: Value = serde_json::from_slice(&oc(&repo, &["check", "games/keep", "--format", "sarif"]).stdout).unwrap();
    let run = &sarif["runs"][0];
    let artifact = &run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uri"], "games/keep/rules/a.oc");
    assert_eq!(artifact["uriBaseId"], "%SRCROOT%");
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap();
    let canonical = repo.canonicalize().unwrap();
    assert_eq!(base, format!("file://{}/", canonical.display()), "the base is the working directory, ending in /");
    // The base and the uri resolve to the file itself.
    let resolved = PathBuf::from(base.trim_start_matches("file://")).join(artifact["uri"].as_str().unwrap());
    assert!(resolved.is_file(), "{}", resolved.display());
    // From inside the project's rules folder: the file by its own name, other files with `..`.
    let inside = oc(&repo.join("games/keep/rules"), &["check", "..", "--format", "json"]);
    let v: Value = serde_json::from_slice(&inside.stdout).unwrap();
    assert_eq!(v["diagnostics"][0]["file"], "a.oc");
    let beside = repo.join("tools");
    std::fs::create_dir_all(&beside).unwrap();
    let v: Value = serde_json::from_slice(&oc(&beside, &["check", "../games/keep", "--format", "json"]).stdout).unwrap();
    assert_eq!(v["diagnostics"][0]["file"], "../games/keep/rules/a.oc");
    // The standard library keeps its names; other commands show paths the same way.
    let built = oc(&repo, &["build", "games/keep", "-o", "rules.json"]);
    assert!(text(&built.stderr).contains("[games/keep/rules/a.oc:3:10]"), "{}", text(&built.stderr));
}

/// GitHub resolves `::error file=` and SARIF `uri`s from the repository's root, whatever the
/// step's `working-directory`: under Actions (`GITHUB_WORKSPACE`) the CI formats show paths from
/// the workspace; the human and JSON output stay with the working directory (terminal links).
#[test]
fn ci_formats_show_paths_from_the_github_workspace() {
    let repo = nested_project("workspace");
    let keep = repo.join("games/keep");
    let ws = repo.canonicalize().unwrap();
    let ws = ws.to_str().unwrap();
    let env = [("GITHUB_WORKSPACE", ws)];
    let github = text(&oc_env(&keep, &["check", "--format", "github"], &env).stdout);
    assert!(github.starts_with("::error file=games/keep/rules/a.oc,line=3,col=10,"), "{github}");
    let sarif: Value = serde_json::from_slice(&oc_env(&keep, &["check", "--format", "sarif"], &env).stdout).unwrap();
    let run = &sarif["runs"][0];
    let artifact = &run["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uri"], "games/keep/rules/a.oc");
    assert_eq!(artifact["uriBaseId"], "%SRCROOT%");
    let base = run["originalUriBaseIds"]["%SRCROOT%"]["uri"].as_str().unwrap();
    assert_eq!(base, format!("file://{ws}/"));
    let resolved = PathBuf::from(base.trim_start_matches("file://")).join(artifact["uri"].as_str().unwrap());
    assert!(resolved.is_file(), "{}", resolved.display());
    // From a subfolder of the project, too; a relative GITHUB_WORKSPACE is read from the working directory.
    let rules = keep.join("rules");
    let github = text(&oc_env(&rules, &["check", "--format", "github"], &[("GITHUB_WORKSPACE", "../../..")]).stdout);
    assert!(github.starts_with("::error file=games/keep/rules/a.oc,line=3,col=10,"), "{github}");
    // The terminal and JSON keep the working directory, so links open from where oc ran.
    let human = oc_env(&rules, &["check"], &env);
    assert!(text(&human.stderr).contains("[a.oc:3:10]"), "{}", text(&human.stderr));
    let json: Value = serde_json::from_slice(&oc_env(&keep, &["check", "--format", "json"], &env).stdout).unwrap();
    assert_eq!(json["diagnostics"][0]["file"], "rules/a.oc");
    // Outside Actions the CI formats keep the working directory as before.
    let github = text(&oc(&keep, &["check", "--format", "github"]).stdout);
    assert!(github.starts_with("::error file=rules/a.oc,line=3,col=10,"), "{github}");
}

#[test]
fn colour_follows_the_flag_and_the_environment() {
    let repo = nested_project("colour");
    let escape = |o: &Output| o.stderr.contains(&0x1b);
    // Not a terminal: no colour, unless asked.
    assert!(!escape(&oc(&repo, &["check", "games/keep"])));
    assert!(escape(&oc(&repo, &["check", "games/keep", "--color", "always"])));
    assert!(escape(&oc(&repo, &["--color=always", "check", "games/keep"])), "a global option");
    assert!(escape(&oc_env(&repo, &["check", "games/keep"], &[("CLICOLOR_FORCE", "1")])));
    assert!(!escape(&oc_env(&repo, &["check", "games/keep"], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")])));
    assert!(!escape(&oc_env(&repo, &["check", "games/keep", "--color", "never"], &[("CLICOLOR_FORCE", "1")])));
    assert!(escape(&oc_env(&repo, &["check", "games/keep", "--color", "always"], &[("NO_COLOR", "1")])));
    let bad = oc(&repo, &["check", "--color", "sometimes"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(text(&bad.stderr).contains("[possible values: auto, always, never]"), "{}", text(&bad.stderr));
}

#[test]
fn quiet_leaves_out_status_lines_not_diagnostics() {
    let repo = nested_project("quiet");
    let loud = oc(&repo, &["check", "games/keep"]);
    assert!(text(&loud.stderr).contains("checked 1 file"));
    let quiet = oc(&repo, &["check", "games/keep", "-q"]);
    let stderr = text(&quiet.stderr);
    assert!(!stderr.contains("checked 1 file") && stderr.contains("unknown tag `Lcuky`"), "{stderr}");
    assert_eq!(quiet.status.code(), Some(1));
    let dir = scratch("quiet-build");
    let built = oc(&dir, &["--quiet", "build", "-o", "rules.json"]);
    assert_eq!(built.status.code(), Some(0));
    assert_eq!(text(&built.stderr), "", "nothing but problems is said");
    assert!(dir.join("rules.json").is_file());
}

#[test]
fn version_names_the_commit_and_man_prints_a_manual_page() {
    let out = oc(&repo(), &["--version"]);
    let version = text(&out.stdout);
    assert!(version.starts_with(&format!("oc {}", env!("CARGO_PKG_VERSION"))), "{version}");
    // The commit named is this repository's HEAD, or one before it when a commit was made after
    // the build (build.rs reruns when HEAD moves, at the next build).
    let git = |args: &[&str]| Command::new("git").args(args).current_dir(repo()).output();
    match git(&["rev-parse", "HEAD"]) {
        Ok(h) if h.status.success() => {
            let named = version.split_once('(').and_then(|(_, r)| r.split_whitespace().next()).unwrap_or_default().to_string();
            assert_eq!(named.len(), 12, "a 12-digit commit in {version}");
            let ancestor = git(&["merge-base", "--is-ancestor", &named, "HEAD"]).unwrap();
            assert!(ancestor.status.success(), "{version}: {named} is not HEAD or before it");
        }
        _ => eprintln!("git is not here: only the version is checked ({version})"),
    }
    let man = oc(&repo(), &["man"]);
    assert_eq!(man.status.code(), Some(0));
    let page = text(&man.stdout);
    assert!(page.contains(".TH oc 1") && page.contains(".SH NAME") && page.contains("oc\\-check"), "{page}");
    assert!(page.contains("\\-\\-color") && page.contains("\\-\\-quiet"), "the global options are in the page");
    // The real man reads it, where it is installed.
    if Command::new("man").arg("--version").output().is_ok_and(|o| o.status.success()) {
        let dir = scratch("man");
        std::fs::write(dir.join("oc.1"), &man.stdout).unwrap();
        let shown =
            Command::new("man").arg("-l").arg(dir.join("oc.1")).env("MANPAGER", "cat").env("MANWIDTH", "100").output().unwrap();
        let shown = text(&shown.stdout);
        assert!(shown.contains("Officer's Chess authoring toolkit"), "{shown}");
    } else {
        eprintln!("man is not installed: the page is checked as text only");
    }
}

#[test]
fn balance_says_human_like_the_rest_and_takes_text_still() {
    let help = text(&oc(&repo(), &["balance", "-h"]).stdout);
    assert!(help.contains("[default: human]") && help.contains("[possible values: human, json]"), "{help}");
    for format in ["human", "text"] {
        let out = oc(&repo(), &["balance", "--ruleset", "v06", "--duels", "0", "--format", format]);
        assert_eq!(out.status.code(), Some(0), "{format}: {}", text(&out.stderr));
        assert!(text(&out.stdout).contains("suggested"), "{format}: {}", text(&out.stdout));
    }
}

/// One JSON object on stdout, nothing on stderr; the object.
fn json_report(dir: &Path, args: &[&str]) -> Value {
    let out = oc(dir, args);
    assert_eq!(text(&out.stderr), "", "{args:?} said on stderr");
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}: {}", text(&out.stdout)));
    assert_eq!(v["status"].as_i64(), out.status.code().map(i64::from), "{args:?}");
    for key in ["command", "diagnostics", "errors", "warnings", "messages", "notes", "written", "output"] {
        assert!(v.get(key).is_some(), "{args:?}: no `{key}` in {v}");
    }
    v
}

#[test]
fn every_command_that_reports_speaks_json() {
    let dir = scratch("json");
    let r = repo();
    let p = |name: &str| dir.join(name).to_string_lossy().into_owned();

    // build: the rules written; a mistake as a diagnostic of the contract, nothing written.
    let v = json_report(&dir, &["build", "-o", "rules.json", "--format", "json"]);
    assert_eq!((v["command"].as_str(), v["status"].as_i64()), (Some("build"), Some(0)));
    assert_eq!(v["written"], serde_json::json!(["rules.json"]));
    let bad = nested_project("json-bad");
    let v = json_report(&bad, &["build", "games/keep", "-o", "out.json", "--format", "json"]);
    assert_eq!(v["status"], 1);
    assert_eq!(v["errors"], 1);
    let d = &v["diagnostics"][0];
    assert_eq!(
        (d["code"].as_str(), d["file"].as_str(), d["line"].as_u64()),
        (Some("oc::name::unknown_tag"), Some("games/keep/rules/a.oc"), Some(3))
    );
    assert_eq!(d["help"], "did you mean `Lucky`?");
    assert_eq!(v["written"], serde_json::json!([]));
    // An error line with its help: a message.
    std::fs::write(dir.join("notes.json"), "{\"mine\": true}").unwrap();
    let v = json_report(&dir, &["build", "-o", "notes.json", "--format", "json"]);
    assert_eq!(v["status"], 2, "{v}");
    assert_eq!(v["messages"][0]["level"], "error");
    assert!(!v["messages"][0]["help"].as_str().unwrap().is_empty(), "{v}");
    // build to stdout: the rules are the output.
    let v = json_report(&dir, &["build", "-o", "-", "--format", "json"]);
    assert!(v["output"]["classes"].is_array() || v["output"]["classes"].is_object(), "{}", v["output"]);

    // fmt.
    std::fs::write(dir.join("messy.oc"), "class   Runner {\n ratings { str C mag E skl C spd D def B res D }\n cost 900 }\n")
        .unwrap();
    let v = json_report(&dir, &["fmt", "messy.oc", "--check", "--format", "json"]);
    assert_eq!(v["status"], 1);
    assert!(v["output"].as_str().unwrap().contains("+class Runner {"), "the diff: {v}");
    let v = json_report(&dir, &["fmt", "messy.oc", "--format", "json"]);
    assert_eq!(v["status"], 0);
    assert!(v["notes"].to_string().contains("formatted"), "{v}");

    // explain: the code, its title and explanation; --list: every code.
    let v = json_report(&dir, &["explain", "oc::name::unknown_tag", "--format", "json"]);
    assert_eq!(v["output"]["code"], "oc::name::unknown_tag");
    assert!(v["output"]["explanation"].as_str().unwrap().contains("tag"));
    let v = json_report(&dir, &["explain", "--list", "--format", "json"]);
    assert!(v["output"].as_array().unwrap().len() > 50);
    let v = json_report(&dir, &["explain", "oc::name::unknown_tg", "--format", "json"]);
    assert_eq!(v["status"], 2);
    assert!(v["messages"][0]["message"].as_str().unwrap().contains("did you mean `oc::name::unknown_tag`"), "{v}");

    // doc, matrix, render, export, import, import-image.
    let v = json_report(&dir, &["doc", "--ruleset", "v06", "-o", &p("site"), "--format", "json"]);
    assert_eq!(v["written"], serde_json::json!([p("site")]), "{v}");
    let v = json_report(&dir, &["matrix", "--ruleset", "v06", "--class", "Lord", "--format", "json"]);
    assert!(v["output"].as_str().unwrap().starts_with("attacker"), "{}", v["output"]);
    let map = r.join("scenarios/maps/ide.map.toml").to_string_lossy().into_owned();
    let v = json_report(&dir, &["render", &map, "-o", &p("ide.png"), "--format", "json"]);
    assert_eq!(v["written"], serde_json::json!([p("ide.png")]));
    let v = json_report(&dir, &["export", "uvtt", &map, "--format", "json"]);
    assert!(v["output"]["line_of_sight"].is_array(), "the scene itself: {}", v["output"]);
    let v = json_report(&dir, &["export", "tiled", &map, "-o", &p("ide.tmx"), "--format", "json"]);
    assert_eq!(v["status"], 0, "{v}");
    let v = json_report(&dir, &["import", "tiled", &p("ide.tmx"), "--format", "json"]);
    assert!(v["output"].as_str().unwrap().contains("[legend]"), "{v}");
    let v = json_report(&dir, &["import-image", &p("nothing.png"), "--format", "json"]);
    assert_eq!(v["status"], 2);
    assert_eq!(v["messages"][0]["level"], "error", "{v}");

    // battle (its log is the output, one object a line), replay, army.
    let v = json_report(&r, &["battle", "scenarios/border-mulan.oc", "--seed", "4", "--format", "json"]);
    assert!(v["output"].as_array().is_some_and(|lines| lines.len() > 10), "{}", v["output"]);
    let v = json_report(&r, &["battle", "scenarios/border-mulan.oc", "--seed", "4", "--log", &p("b.jsonl"), "--format", "json"]);
    assert_eq!(v["written"], serde_json::json!([p("b.jsonl")]));
    let v = json_report(&r, &["replay", &p("b.jsonl"), "--project", &r.to_string_lossy(), "--format", "json"]);
    assert_eq!(v["status"], 0, "{v}");
    assert!(v["notes"].to_string().contains("identical"), "{v}");
    let v = json_report(&r, &["army", "scout", "scenarios/grado-keep.oc", "--name", "AllianceVanguard", "--format", "json"]);
    assert!(v["output"].as_str().unwrap().contains("brings 7 units"), "{v}");
    let v = json_report(
        &r,
        &[
            "army",
            "outfit",
            "scenarios/border-mulan.oc",
            "scenarios/border-mulan.oc",
            "--name",
            "RenaisVanguard",
            "--format",
            "json",
        ],
    );
    assert_eq!(v["status"], 0, "{v}");
}
