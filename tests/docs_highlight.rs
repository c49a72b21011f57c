//! The guide's ```oc blocks highlighted (issue 42): `docs/theme/oc-highlight.js`, the `oc`
//! language for highlight.js that mdBook loads (`additional-js` in docs/book.toml), keeps every
//! keyword of the grammar; the real highlight.js (10, as mdBook 0.4 bundles it, and 11, from
//! npm) highlights every ```oc block of docs/ and the README with it; and in headless Chromium,
//! on a page loading scripts in mdBook's order (highlight.js, then book.js's highlighting of
//! every block, then the book's additional script), the `oc` blocks come out highlighted.
//!
//! Without node, npm, the registry or chromium, the parts that need them say why and are
//! skipped; `OC_REQUIRE_NODE=1` makes that a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn skip(why: &str) {
    if std::env::var_os("OC_REQUIRE_NODE").is_some_and(|v| v != "0") {
        panic!("OC_REQUIRE_NODE is set, but: {why}");
    }
    eprintln!("docs_highlight skipped: {why}");
}

/// `packages` installed once into a folder of the target directory.
fn npm(name: &str, packages: &[&str]) -> Result<PathBuf, String> {
    let prefix = repo().join("target/tmp").join(name);
    if prefix.join("done").is_file() {
        return Ok(prefix);
    }
    let staging = prefix.with_extension(format!("partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(|e| e.to_string())?;
    let out = Command::new("npm")
        .args(["install", "--prefix"])
        .arg(&staging)
        .args(["--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--fetch-retries=1", "--fetch-timeout=60000"])
        .args(packages)
        .output()
        .map_err(|e| format!("`npm` cannot be run: {e}"))?;
    if !out.status.success() {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(format!("`npm install {}` failed: {}", packages.join(" "), String::from_utf8_lossy(&out.stderr)));
    }
    std::fs::write(staging.join("done"), "").map_err(|e| e.to_string())?;
    let _ = std::fs::remove_dir_all(&prefix);
    std::fs::rename(&staging, &prefix).map_err(|e| e.to_string())?;
    Ok(prefix)
}

/// Every ```oc block of the guide and the README.
fn oc_blocks() -> Vec<(String, String)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.push(repo().join("README.md"));
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).unwrap();
        let mut block: Option<String> = None;
        for line in text.lines() {
            match &mut block {
                None if line.trim_start().starts_with("```oc") => block = Some(String::new()),
                Some(b) if line.trim_start().starts_with("```") => {
                    out.push((f.file_name().unwrap().to_string_lossy().into_owned(), std::mem::take(b)));
                    block = None;
                }
                Some(b) => {
                    b.push_str(line);
                    b.push('\n');
                }
                None => {}
            }
        }
    }
    out
}

const CHECK: &str = r#"
const [modules, script, blocks] = process.argv.slice(2);
const hljs = require(require.resolve('highlight.js', { paths: [modules] }));
const { oc, KEYWORDS } = require(script);
hljs.registerLanguage('oc', oc);
// highlight.js 10.7 and 11 both take (code, {language}).
const run = (code) => hljs.highlight(code, { language: 'oc' });
const out = { keywords: KEYWORDS, blocks: [] };
for (const [file, code] of JSON.parse(require('fs').readFileSync(blocks, 'utf8'))) {
  const r = run(code);
  out.blocks.push({ file, html: r.value, illegal: !!r.illegal || !!r.errorRaised });
}
console.log(JSON.stringify(out));
"#;

#[test]
fn oc_blocks_are_highlighted_in_the_guide() {
    let script = repo().join("docs/theme/oc-highlight.js");
    let book = std::fs::read_to_string(repo().join("docs/book.toml")).unwrap();
    assert!(book.contains("additional-js = [\"theme/oc-highlight.js\"]"), "{book}");
    if let Err(why) = Command::new("node").arg("--version").output() {
        return skip(&format!("node cannot be run: {why}"));
    }
    let blocks = oc_blocks();
    assert!(blocks.len() > 20, "{} oc blocks", blocks.len());
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-docs-highlight-{}", std::process::id())));
    std::fs::write(dir.join("blocks.json"), serde_json::to_string(&blocks).unwrap()).unwrap();
    std::fs::write(dir.join("check.js"), CHECK).unwrap();
    let grammar = std::fs::read_to_string(repo().join("grammar/oc.pest")).unwrap();
    let words: Vec<&str> = grammar.lines().filter(|l| l.starts_with("kw_")).filter_map(|l| l.split('"').nth(1)).collect();
    assert!(words.len() > 100);
    for version in ["10.7.3", "11.11.1"] {
        let modules = match npm(&format!("docs-hljs-{version}"), &[&format!("highlight.js@{version}")]) {
            Ok(m) => m,
            Err(why) => return skip(&why),
        };
        let out = Command::new("node")
            .arg(dir.join("check.js"))
            .arg(modules.join("node_modules"))
            .arg(&script)
            .arg(dir.join("blocks.json"))
            .output()
            .unwrap();
        assert!(out.status.success(), "highlight.js {version}: {}", String::from_utf8_lossy(&out.stderr));
        let result: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        let keywords: Vec<&str> = result["keywords"].as_array().unwrap().iter().map(|k| k.as_str().unwrap()).collect();
        // (`true` and `false` are literals, checked below.)
        for w in words.iter().filter(|w| !matches!(**w, "true" | "false")) {
            assert!(keywords.contains(w), "the grammar's keyword `{w}` is not highlighted");
        }
        for b in result["blocks"].as_array().unwrap() {
            let html = b["html"].as_str().unwrap();
            assert_eq!(b["illegal"], false, "highlight.js {version}, {}: {html}", b["file"]);
        }
        // What the guide's blocks come out as: keywords, definitions' names, strings, numbers,
        // dice and comments, each in its class.
        let all: String = result["blocks"].as_array().unwrap().iter().map(|b| b["html"].as_str().unwrap()).collect();
        for wanted in [
            r#"<span class="hljs-keyword">class</span> <span class="hljs-title">"#,
            r#"<span class="hljs-keyword">tag</span> <span class="hljs-title">"#,
            r#"<span class="hljs-keyword">wields</span>"#,
            r#"<span class="hljs-string">&quot;"#,
            r#"<span class="hljs-comment">//"#,
            r#"<span class="hljs-number">2d6</span>"#,
            r#"<span class="hljs-literal">true</span>"#,
        ] {
            assert!(all.contains(wanted), "highlight.js {version}: no `{wanted}` in the guide's blocks");
        }
    }
    browser(&script, &dir);
}

/// A page in mdBook's order, in headless Chromium: the `oc` block highlighted.
fn browser(script: &Path, dir: &Path) {
    let chromium = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|c| Command::new(c).arg("--version").output().is_ok_and(|o| o.status.success()));
    let Some(chromium) = chromium else { return skip("no chromium to load a page in") };
    let assets = match npm("docs-hljs-cdn-10.7.3", &["@highlightjs/cdn-assets@10.7.3"]) {
        Ok(m) => m.join("node_modules/@highlightjs/cdn-assets/highlight.min.js"),
        Err(why) => return skip(&why),
    };
    let page = dir.join("page.html");
    std::fs::write(
        &page,
        format!(
            r#"<!DOCTYPE html><html><body>
<pre><code class="language-oc">class Lancer {{ wields Lances  tags Canto  cost 900 }} // a lancer
dice hit d100</code></pre>
<script src="file://{hljs}"></script>
<script>document.querySelectorAll('code').forEach(function (b) {{ hljs.highlightBlock(b); b.classList.add('hljs'); }});</script>
<script src="file://{ours}"></script>
</body></html>"#,
            hljs = assets.display(),
            ours = script.display()
        ),
    )
    .unwrap();
    let profile = dir.join("profile");
    let out = Command::new(chromium)
        .args(["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--allow-file-access-from-files"])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .unwrap();
    let dom = String::from_utf8_lossy(&out.stdout);
    assert!(dom.contains(r#"<span class="hljs-keyword">class</span> <span class="hljs-title">Lancer</span>"#), "{dom}");
    assert!(dom.contains(r#"<span class="hljs-number">d100</span>"#), "{dom}");
    assert!(dom.contains(r#"<span class="hljs-comment">// a lancer</span>"#), "{dom}");
}
