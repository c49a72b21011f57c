//! The VS Code extension packaged the way it is published (issue 42): `npm install`, then the
//! real `vsce package` (its `vscode:prepublish` bundles `extension.js` with its dependency into
//! `dist/extension.js` with esbuild) — with no warning (a repository, a LICENSE, a bundle), a
//! package of the bundle, grammar, configuration, README and LICENSE only, and a bundle that
//! loads under node and exports `activate`.
//!
//! Without node, npm or the registry the test says why and is skipped; `OC_REQUIRE_NODE=1`
//! makes that a failure instead.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn skip(why: &str) {
    if std::env::var_os("OC_REQUIRE_NODE").is_some_and(|v| v != "0") {
        panic!("OC_REQUIRE_NODE is set, but: {why}");
    }
    eprintln!("vscode_package skipped: {why}");
}

fn text(out: &Output) -> String {
    format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr))
}

fn run(dir: &Path, program: &str, args: &[&str]) -> Result<Output, String> {
    Command::new(program).args(args).current_dir(dir).output().map_err(|e| format!("`{program}` cannot be run: {e}"))
}

/// The extension's folder copied without what npm and vsce make (node_modules, dist, packages).
fn copy(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        if name == "node_modules" || name == "dist" || name.ends_with(".vsix") || name == "package-lock.json" {
            continue;
        }
        let path = entry.path();
        if path.is_dir() {
            copy(&path, &to.join(&name));
        } else {
            std::fs::copy(&path, to.join(&name)).unwrap();
        }
    }
}

#[test]
fn the_extension_packages_without_a_warning_as_one_bundle() {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("editors/vscode");
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(source.join("package.json")).unwrap()).unwrap();
    assert_eq!(manifest["repository"]["type"], "git", "{}", manifest["repository"]);
    assert_eq!(manifest["main"], "./dist/extension.js");
    assert!(source.join("LICENSE").is_file());
    for tool in ["node", "npm"] {
        if let Err(why) = run(&source, tool, &["--version"]).and_then(|o| o.status.success().then_some(()).ok_or(text(&o))) {
            return skip(&why);
        }
    }
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-vscode-package-{}", std::process::id())));
    copy(&source, &dir);
    match run(&dir, "npm", &["install", "--no-audit", "--no-fund", "--fetch-retries=1", "--fetch-timeout=60000"]) {
        Ok(o) if o.status.success() => {}
        Ok(o) => return skip(&format!("`npm install` failed (no network or registry?): {}", text(&o))),
        Err(why) => return skip(&why),
    }
    let packaged = run(&dir, "npx", &["--no-install", "vsce", "package", "--out", "oc.vsix"]).unwrap();
    let said = text(&packaged);
    assert!(packaged.status.success(), "vsce package failed:\n{said}");
    assert!(!said.contains("WARNING"), "vsce warned:\n{said}");
    assert!(dir.join("oc.vsix").is_file());
    let listed = run(&dir, "npx", &["--no-install", "vsce", "ls"]).unwrap();
    assert!(listed.status.success(), "{}", text(&listed));
    let mut files: Vec<String> = String::from_utf8_lossy(&listed.stdout).lines().map(str::trim).map(str::to_string).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "LICENSE",
            "README.md",
            "dist/extension.js",
            "language-configuration.json",
            "package.json",
            "syntaxes/oc.tmLanguage.json"
        ]
    );
    // The bundle stands alone: under node, with a stand-in for the `vscode` module the editor
    // provides, it loads and exports the extension's entry points.
    let load = r#"const M = require('module'); const load = M._load;
const vscode = new Proxy({}, { get: (_, k) => (k === '__esModule' ? false : class {}) });
M._load = function (request, ...rest) { return request === 'vscode' ? vscode : load.call(this, request, ...rest); };
const e = require('./dist/extension.js'); console.log(typeof e.activate, typeof e.deactivate);"#;
    let loaded = run(&dir, "node", &["-e", load]).unwrap();
    assert_eq!(String::from_utf8_lossy(&loaded.stdout).trim(), "function function", "{}", text(&loaded));
}
