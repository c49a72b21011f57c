//! The VS Code extension's TextMate grammar (`editors/vscode/syntaxes/oc.tmLanguage.json`) run
//! through the engine VS Code runs (`vscode-textmate` + `vscode-oniguruma`, under node) over every
//! shipped `.oc` file: chosen scopes, every keyword of `grammar/oc.pest`, dice literals, and no
//! state left open after an item. The checks are in `editors/vscode/test/tokenize.mjs`.
//!
//! The two npm packages are installed once into `target/tmp/vscode-test-node_modules`. Without
//! node, npm or the registry the test says why and is skipped; `OC_REQUIRE_NODE=1` makes that a
//! failure instead.

use std::path::{Path, PathBuf};
use std::process::Command;

/// Exact versions, the same as the extension's `devDependencies`.
const PACKAGES: [&str; 2] = ["vscode-textmate@9.3.2", "vscode-oniguruma@2.0.1"];

fn skip(why: &str) {
    if std::env::var_os("OC_REQUIRE_NODE").is_some_and(|v| v != "0") {
        panic!("OC_REQUIRE_NODE is set, but: {why}");
    }
    eprintln!("vscode_grammar skipped: {why}");
}

fn version(tool: &str) -> Result<String, String> {
    match Command::new(tool).arg("--version").output() {
        Ok(out) if out.status.success() => Ok(String::from_utf8_lossy(&out.stdout).trim().to_string()),
        Ok(out) => Err(format!("`{tool} --version` failed: {}", String::from_utf8_lossy(&out.stderr).trim())),
        Err(e) => Err(format!("`{tool}` cannot be run: {e}")),
    }
}

fn installed(prefix: &Path) -> bool {
    ["vscode-textmate", "vscode-oniguruma"]
        .iter()
        .all(|name| prefix.join("node_modules").join(name).join("package.json").is_file())
}

/// Installs the packages into `prefix` (through a fresh folder renamed into place, so a run cut
/// short or a concurrent run never leaves half an install behind).
fn install(prefix: &Path) -> Result<(), String> {
    if installed(prefix) {
        return Ok(());
    }
    let staging = prefix.with_extension(format!("partial-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&staging);
    std::fs::create_dir_all(&staging).map_err(|e| format!("cannot create {}: {e}", staging.display()))?;
    let out = Command::new("npm")
        .args(["install", "--prefix"])
        .arg(&staging)
        .args(["--no-save", "--no-package-lock", "--no-audit", "--no-fund", "--fetch-retries=1", "--fetch-timeout=60000"])
        .args(PACKAGES)
        .output()
        .map_err(|e| format!("`npm install` cannot be run: {e}"))?;
    if !out.status.success() || !installed(&staging) {
        let _ = std::fs::remove_dir_all(&staging);
        return Err(format!(
            "`npm install {}` failed (no network or registry?): {}",
            PACKAGES.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    if std::fs::rename(&staging, prefix).is_err() {
        // Another run installed it first.
        let _ = std::fs::remove_dir_all(&staging);
    }
    if installed(prefix) {
        Ok(())
    } else {
        Err(format!("the packages are not in {} after installing", prefix.display()))
    }
}

#[test]
fn textmate_grammar_tokenizes_the_shipped_oc_files() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let node = match version("node") {
        Ok(v) => v,
        Err(why) => return skip(&why),
    };
    if let Err(why) = version("npm") {
        return skip(&why);
    }
    let prefix = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("vscode-test-node_modules");
    if let Err(why) = install(&prefix) {
        return skip(&why);
    }
    let script = root.join("editors/vscode/test/tokenize.mjs");
    let out = match Command::new("node").arg(&script).env("OC_VSCODE_TEST_MODULES", &prefix).output() {
        Ok(out) => out,
        Err(e) => return skip(&format!("node cannot be run: {e}")),
    };
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    println!("node {node}\n{stdout}{stderr}");
    assert!(out.status.success(), "{} failed ({}):\n{stdout}{stderr}", script.display(), out.status);
    assert!(stdout.starts_with("ok: "), "unexpected output:\n{stdout}");
}
