//! `cargo bench --bench lsp`: the language server's latency through `oc lsp`'s stdin and stdout
//! like an editor, from a `didChange` to the `publishDiagnostics` of that version:
//!
//! - `lsp_change_to_publish_repo_ms`: a one-file edit of this repository (`scenarios/ide.oc`);
//! - `lsp_change_to_publish_ms`: one edit of a 5,000-line file of classes and weapons (sent as
//!   a range when the server takes incremental changes, else whole); issue 42's figure;
//! - `lsp_burst_to_publish_ms`: ten edits of that file sent at once, to the diagnostics of the
//!   last (stale checks are cancelled, so this is about one check, not ten); with how many of the
//!   ten versions were published (`lsp_burst_published`);
//! - `lsp_open_to_publish_ms`: the first check of the whole repository on open.
//!
//! Prints `bench <name> <value> <unit>` lines (medians); nothing asserts a time. `OC_BIN` runs
//! another build (to measure before and after a change).

#[path = "../tests/common/lsp_client.rs"]
mod lsp_client;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lsp_client::{uri, Client};
use serde_json::{json, Value};

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn oc_bin() -> PathBuf {
    std::env::var_os("OC_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_oc")), PathBuf::from)
}

/// A home-brew file of `lines` lines: classes and weapons, each using the standard library.
fn big_file(lines: usize) -> String {
    let mut out = String::new();
    let mut n = 0;
    while out.lines().count() + 16 <= lines {
        out.push_str(&format!(
            "class Unit{n} \"Unit {n}\" {{\n    doc \"A home-brew unit.\"\n    ratings {{ str C mag E skl B spd A def D res D }}\n    wields Swords\n    tags Lucky(5)\n    cost {}\n}}\n\n",
            900 + n
        ));
        out.push_str(&format!(
            "weapon Blade{n} {{\n    type Swords\n    might 5\n    weight 1\n    range 1\n    cost {}\n}}\n\n",
            500 + n
        ));
        n += 1;
    }
    while out.lines().count() < lines {
        out.push_str("// end\n");
    }
    out
}

fn start(root: &Path, cache: &Path) -> (Client, bool) {
    let mut client = Client::start(&oc_bin(), cache);
    let init = client.request("initialize", json!({"processId": null, "rootUri": uri(root), "capabilities": {}}));
    client.notify("initialized", json!({}));
    let incremental = init["capabilities"]["textDocumentSync"]["change"] == 2;
    (client, incremental)
}

fn change(client: &mut Client, doc: &str, version: i64, changes: Value) {
    client.notify("textDocument/didChange", json!({"textDocument": {"uri": doc, "version": version}, "contentChanges": changes}));
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cache = std::env::temp_dir().join(format!("oc-bench-lsp-{}", std::process::id()));

    // This repository: one scenario edited.
    let (mut client, _) = start(repo, &cache);
    let path = repo.join("scenarios/ide.oc");
    let text = std::fs::read_to_string(&path).unwrap();
    let doc = uri(&path);
    let started = Instant::now();
    client.notify("textDocument/didOpen", json!({"textDocument": {"uri": doc, "languageId": "oc", "version": 1, "text": text}}));
    let first = client.diagnostics(&doc);
    let open = started.elapsed();
    assert_eq!(first["diagnostics"], json!([]), "{first}");
    let mut samples = Vec::new();
    for version in 2..62 {
        // Alternate a clean edit and one with an error, so every change is checked for real.
        let edited = if version % 2 == 0 {
            text.replace("war_chest 8000", &format!("war_chest {}", 8000 + version))
        } else {
            text.replace("grant Fleeing", "grant Fleing")
        };
        client.notes.clear();
        let sent = Instant::now();
        change(&mut client, &doc, version, json!([{"text": edited}]));
        let published = client.diagnostics(&doc);
        samples.push(sent.elapsed());
        assert_eq!(published["version"], version);
        assert_eq!(published["diagnostics"].as_array().unwrap().is_empty(), version % 2 == 0, "{published}");
    }
    assert!(client.shutdown().success());
    println!("bench lsp_open_to_publish_ms {:.1} ms", ms(open));
    println!("bench lsp_change_to_publish_repo_ms {:.2} ms", ms(median(samples)));

    // A 5,000-line file in a project of its own.
    let dir = std::env::temp_dir().join(format!("oc-bench-lsp-big-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"bench\"\n").unwrap();
    let text = big_file(5000);
    assert_eq!(text.lines().count(), 5000);
    std::fs::write(dir.join("units.oc"), &text).unwrap();
    let (mut client, incremental) = start(&dir, &cache);
    let doc = uri(&dir.join("units.oc"));
    client.notify("textDocument/didOpen", json!({"textDocument": {"uri": doc, "languageId": "oc", "version": 1, "text": text}}));
    assert_eq!(client.diagnostics(&doc)["diagnostics"], json!([]));
    // The edit: `Lucky` of the middle class made `Lcky` and back.
    let line = text.lines().count() / 2;
    let line = (line..).find(|&l| text.lines().nth(l).is_some_and(|t| t.contains("tags Lucky"))).unwrap();
    let column = text.lines().nth(line).unwrap().find("Lucky").unwrap() + 1;
    let edit = |typo: bool| -> Value {
        // The typo deletes the `u`; the fix puts it back.
        let end = if typo { column + 1 } else { column };
        let range = json!({"start": {"line": line, "character": column}, "end": {"line": line, "character": end}});
        if incremental {
            json!([{"range": range, "text": if typo { "" } else { "u" }}])
        } else if typo {
            let lines: Vec<String> = text
                .lines()
                .enumerate()
                .map(|(i, l)| if i == line { l.replacen("Lucky", "Lcky", 1) } else { l.to_string() })
                .collect();
            json!([{"text": lines.join("\n") + "\n"}])
        } else {
            json!([{"text": text}])
        }
    };
    let mut samples = Vec::new();
    let mut version = 1;
    for round in 0..40 {
        version += 1;
        let typo = round % 2 == 0;
        client.notes.clear();
        let sent = Instant::now();
        change(&mut client, &doc, version, edit(typo));
        let published = client.diagnostics(&doc);
        samples.push(sent.elapsed());
        assert_eq!(published["version"], version);
        assert_eq!(published["diagnostics"].as_array().unwrap().is_empty(), !typo, "{published}");
    }
    println!("bench lsp_change_to_publish_ms {:.2} ms", ms(median(samples)));

    // Ten edits at once (typing): the time to the last one's diagnostics.
    let mut samples = Vec::new();
    let mut published_counts = Vec::new();
    for _ in 0..10 {
        client.notes.clear();
        let sent = Instant::now();
        let first = version + 1;
        for k in 0..10 {
            version += 1;
            // Ends with the typo fixed (an even number of flips from a clean text).
            change(&mut client, &doc, version, edit(k % 2 == 0));
        }
        let mut seen = 0;
        loop {
            let published = client.diagnostics(&doc);
            seen += usize::from(published["version"].as_i64().is_some_and(|v| v >= first));
            if published["version"] == version {
                assert_eq!(published["diagnostics"], json!([]), "{published}");
                break;
            }
        }
        samples.push(sent.elapsed());
        published_counts.push(seen);
    }
    assert!(client.shutdown().success());
    published_counts.sort();
    println!("bench lsp_burst_to_publish_ms {:.2} ms", ms(median(samples)));
    println!("bench lsp_burst_published {} versions", published_counts[published_counts.len() / 2]);
    let _ = std::fs::remove_dir_all(&cache);
    let _ = std::fs::remove_dir_all(&dir);
}
