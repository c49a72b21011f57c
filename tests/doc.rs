//! `oc doc` end to end: the site of each built-in ruleset and of the shipped scenarios written as
//! a folder, replaced only when oc wrote it, and searched in a real browser from `file://`
//! (headless `chromium`, installed with `apt-get` when missing; the test says why it skips
//! that part when it cannot).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn oc(args: &[&str], dir: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_oc")).args(args).current_dir(dir).output().unwrap()
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn both_rulesets_are_written_as_sites_and_replaced_only_when_ours() {
    let tmp = tempfile::tempdir().unwrap();
    for ruleset in ["officers_chess", "officers_chess_v06"] {
        let out = tmp.path().join(ruleset);
        let o = oc(&["doc", "--ruleset", ruleset, "-o", out.to_str().unwrap()], &repo());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        for file in
            ["index.html", "index.md", "classes.html", "tags.md", "terrain.html", "ruleset.html", "search-index.js", ".oc-doc"]
        {
            assert!(out.join(file).is_file(), "{ruleset}: no {file}");
        }
        let index = std::fs::read_to_string(out.join("index.html")).unwrap();
        assert!(index.contains("std:"), "{ruleset}: the sources are not listed as std:...");
        // A second run replaces its own folder whole.
        let o = oc(&["doc", "--ruleset", ruleset, "-o", out.to_str().unwrap()], &repo());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        // Not a file added to it since, or a page edited: named and kept, replaced with --force.
        std::fs::write(out.join("CNAME"), "docs.example.org").unwrap();
        let edited = format!("{index}<!-- my note -->");
        std::fs::write(out.join("index.html"), &edited).unwrap();
        let o = oc(&["doc", "--ruleset", ruleset, "-o", out.to_str().unwrap()], &repo());
        assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
        assert!(stderr(&o).contains("`CNAME`, `index.html`") && stderr(&o).contains("help:"), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(out.join("CNAME")).unwrap(), "docs.example.org");
        assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), edited);
        let o = oc(&["doc", "--ruleset", ruleset, "-o", out.to_str().unwrap(), "--force"], &repo());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert!(!out.join("CNAME").exists());
        assert_eq!(std::fs::read_to_string(out.join("index.html")).unwrap(), index);
    }
    // A folder oc did not write: refused without --force, and never when it holds a source.
    let mine = tmp.path().join("mine");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "keep me").unwrap();
    let o = oc(&["doc", "-o", mine.to_str().unwrap()], &repo());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    assert_eq!(std::fs::read_to_string(mine.join("notes.txt")).unwrap(), "keep me");
    std::fs::write(mine.join("rules.oc"), "class X {}").unwrap();
    let o = oc(&["doc", "-o", mine.to_str().unwrap(), "--force"], &repo());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("never replaces sources"), "{}", stderr(&o));
    // Unknown ruleset: the built-in names and how to document your own.
    let o = oc(&["doc", "--ruleset", "officers_chess_v7", "-o", tmp.path().join("x").to_str().unwrap()], &repo());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("officers_chess_v06") && stderr(&o).contains("oc doc rules/"), "{}", stderr(&o));
}

#[test]
fn a_project_with_scenarios_gets_their_pages_and_map_pictures() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let o = oc(&["doc", "scenarios", "-o", out.to_str().unwrap()], &repo());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let page = std::fs::read_to_string(out.join("scenarios.html")).unwrap();
    let pictures: Vec<&str> =
        page.match_indices("<img src=\"").map(|(i, _)| &page[i + 10..]).map(|r| &r[..r.find('"').unwrap()]).collect();
    assert!(pictures.len() >= 9, "{pictures:?}");
    for p in pictures {
        let bytes = std::fs::read(out.join(p)).unwrap();
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"), "{p} is not a PNG");
    }
    assert!(page.contains("id=\"scenario-TakeTheKeep\""), "scenario anchor");
    assert!(page.contains("src/project/scenarios/border-mulan.oc.html#L"), "source link");
    // A file with errors is not documented: its diagnostics, exit 1, nothing written.
    let bad = tmp.path().join("bad");
    std::fs::create_dir(&bad).unwrap();
    std::fs::write(bad.join("a.oc"), "class X { tags Luky }\n").unwrap();
    let o = oc(&["doc", ".", "-o", tmp.path().join("bad-site").to_str().unwrap()], &bad);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("oc::name::unknown_tag"), "{}", stderr(&o));
    assert!(!tmp.path().join("bad-site").exists());
}

/// Without paths or --ruleset, the ruleset the project's oc.toml names, as `oc balance` and `oc
/// matrix` read it (it documented officers_chess in a stamina project).
#[test]
fn without_paths_the_project_s_ruleset_is_documented() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("oc.toml"), "[project]\nname = \"p2\"\nruleset = \"stamina\"\n").unwrap();
    let o = oc(&["doc", "-o", "site"], tmp.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let index = std::fs::read_to_string(tmp.path().join("site/index.html")).unwrap();
    assert!(index.contains("stamina"), "{index}");
    assert!(stderr(&o).contains("9 classes"), "the stamina roster: {}", stderr(&o));
}

/// A `CNAME` put into the site by hand was lost to `--force` (there was no way to regenerate
/// and keep it): oc.toml's `[doc] cname` has `oc doc` write it, every time.
#[test]
fn the_site_s_cname_comes_from_oc_toml() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("oc.toml"), "[project]\nname = \"p3\"\nruleset = \"stamina\"\n").unwrap();
    let o = oc(&["doc", "-o", "site"], tmp.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // A CNAME added by hand: refused, and the refusal says how oc keeps one.
    std::fs::write(tmp.path().join("site/CNAME"), "rules.example.org\n").unwrap();
    let o = oc(&["doc", "-o", "site"], tmp.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("CNAME") && stderr(&o).contains("cname = \"DOMAIN\""), "{}", stderr(&o));
    std::fs::write(
        tmp.path().join("oc.toml"),
        "[project]\nname = \"p3\"\nruleset = \"stamina\"\n\n[doc]\ncname = \"rules.example.org\"\n",
    )
    .unwrap();
    // Written by oc now: the same site again, and again.
    for _ in 0..2 {
        let o = oc(&["doc", "-o", "site", "--force"], tmp.path());
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        assert_eq!(std::fs::read_to_string(tmp.path().join("site/CNAME")).unwrap(), "rules.example.org\n");
        let o = oc(&["doc", "-o", "site"], tmp.path());
        assert_eq!(o.status.code(), Some(0), "ours, as written: {}", stderr(&o));
    }
    // A name that is not a domain is an error of oc.toml: `oc check` says it, and `oc doc`
    // stops on it (written without it, the site lost the CNAME the last one had).
    std::fs::write(tmp.path().join("oc.toml"), "[project]\nruleset = \"stamina\"\n[doc]\ncname = \"https://x.org\"\n").unwrap();
    let o = oc(&["check", "."], tmp.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(stderr(&o).contains("`cname` is the site's domain name"), "{}", stderr(&o));
    let o = oc(&["doc", "-o", "site"], tmp.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    // Drawn as `oc check` draws it: the code, the line of oc.toml, the help (it was printed by
    // hand, without the line).
    let (doc, check) = (stderr(&o), stderr(&oc(&["check", "."], tmp.path())));
    for part in ["oc::manifest::field", "4 | cname = \"https://x.org\"", "help: oc.toml has a table [project]"] {
        assert!(doc.contains(part), "{part}: {doc}");
    }
    assert!(check.starts_with(doc.lines().take(8).collect::<Vec<_>>().join("\n").as_str()), "{doc}\n{check}");
    assert_eq!(std::fs::read_to_string(tmp.path().join("site/CNAME")).unwrap(), "rules.example.org\n", "the site is kept");
}

/// A chromium binary, installed with apt-get when missing; `Err(why)` when there is none.
fn chromium() -> Result<String, String> {
    let found = |name: &str| Command::new(name).arg("--version").output().is_ok_and(|o| o.status.success());
    for name in ["chromium", "chromium-browser"] {
        if found(name) {
            return Ok(name.to_string());
        }
    }
    common::apt_install(&["chromium"], || found("chromium"))?;
    Ok("chromium".to_string())
}

#[test]
fn search_works_from_file_urls_in_a_real_browser() {
    let browser = match chromium() {
        Ok(b) => b,
        Err(why) => return eprintln!("skipped: no headless chromium: {why}"),
    };
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("site");
    let o = oc(&["doc", "-o", out.to_str().unwrap()], &repo());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // From a source page three folders down too, so the links' `../` is exercised.
    for (page, query, want) in [
        ("index.html", "luck", "tags.html#tag-Lucky"),
        ("src/std/ratings/tags.oc.html", "myrmid", "../../../classes.html#class-Myrmidon"),
        ("terrain.html", "forest", "terrain.html#terrain-Forest"),
    ] {
        let url = format!("file://{}?q={query}", out.join(page).display());
        let profile = tempfile::tempdir().unwrap();
        let dom = Command::new(&browser)
            .args(["--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=5000"])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .args(["--dump-dom", &url])
            .output()
            .unwrap();
        let html = String::from_utf8_lossy(&dom.stdout);
        let results = html.split("id=\"oc-results\"").nth(1).unwrap_or("");
        let results = &results[..results.find("</ol>").unwrap_or(results.len())];
        assert!(results.contains(&format!("href=\"{want}\"")), "{page}?q={query}: no result {want} in {results}");
    }
}

#[test]
fn diagnostics_and_pages_name_the_standard_library_the_same_way() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("a.oc"), "tag Lucky(x: Int) { crit_bonus += x }\n").unwrap();
    let human = oc(&["check", "a.oc"], tmp.path());
    let note = stderr(&human);
    let at = note.find("std:ratings/tags.oc:").unwrap_or_else(|| panic!("no std: path in {note}"));
    let line: String = note[at + "std:ratings/tags.oc:".len()..].chars().take_while(char::is_ascii_digit).collect();
    assert!(!note.contains("<std>"), "{note}");
    let json = oc(&["check", "a.oc", "--format", "json"], tmp.path());
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let secondary = &json["diagnostics"][0]["secondary"][0];
    assert_eq!(secondary["file"], "std:ratings/tags.oc", "{json}");
    assert_eq!(secondary["line"].to_string(), line);
    // The doc site's Lucky links to the same file and line, shown the same way.
    let site = tmp.path().join("site");
    let o = oc(&["doc", "-o", site.to_str().unwrap()], &repo());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let tags = std::fs::read_to_string(site.join("tags.html")).unwrap();
    let want = format!("<a href=\"src/std/ratings/tags.oc.html#L{line}\"><code>std:ratings/tags.oc:{line}</code></a>");
    assert!(tags.contains(&want), "no {want}");
}
