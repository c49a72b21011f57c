//! Puts the commit the binary was built from into `oc --version` (`OC_VERSION`): `0.1.0
//! (1a2b3c4d5e6f 2026-11-28)`, as cargo and rustc print theirs. Without git, or outside a
//! checkout (a source tarball), it is the package version alone.

use std::path::PathBuf;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

fn main() {
    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    println!("cargo:rerun-if-changed=build.rs");
    let commit = git(&["log", "-1", "--format=%h %cs", "--abbrev=12"]);
    // Rebuild when HEAD moves: HEAD itself, the branch it points to, and packed refs.
    if let (Some(dir), Some(common)) = (git(&["rev-parse", "--git-dir"]), git(&["rev-parse", "--git-common-dir"])) {
        println!("cargo:rerun-if-changed={}", PathBuf::from(&dir).join("HEAD").display());
        println!("cargo:rerun-if-changed={}", PathBuf::from(&common).join("packed-refs").display());
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            println!("cargo:rerun-if-changed={}", PathBuf::from(&common).join(branch).display());
        }
    }
    let shown = match commit {
        Some(c) => format!("{version} ({c})"),
        None => version,
    };
    println!("cargo:rustc-env=OC_VERSION={shown}");
}
