//! `cargo bench --bench lsp`: the language server's latency on this repository, from a one-file
//! edit (`didChange` of `scenarios/ide.oc`, its text changed) to the `publishDiagnostics` of that
//! version, through `oc lsp`'s stdin and stdout like an editor. Also the first check of the
//! whole project on open. Prints `bench <name> <value> <unit>` lines (medians); nothing asserts
//! a time.

#[path = "../tests/common/lsp_client.rs"]
mod lsp_client;

use std::path::Path;
use std::time::{Duration, Instant};

use lsp_client::{uri, Client};
use serde_json::json;

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cache = std::env::temp_dir().join(format!("oc-bench-lsp-{}", std::process::id()));
    let mut client = Client::start(Path::new(env!("CARGO_BIN_EXE_oc")), &cache);
    client.request("initialize", json!({"processId": null, "rootUri": uri(repo), "capabilities": {}}));
    client.notify("initialized", json!({}));

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
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": doc, "version": version}, "contentChanges": [{"text": edited}]}),
        );
        let published = client.diagnostics(&doc);
        samples.push(sent.elapsed());
        assert_eq!(published["version"], version);
        assert_eq!(published["diagnostics"].as_array().unwrap().is_empty(), version % 2 == 0, "{published}");
    }
    assert!(client.shutdown().success());
    let _ = std::fs::remove_dir_all(&cache);
    println!("bench lsp_open_to_publish_ms {:.1} ms", open.as_secs_f64() * 1e3);
    println!("bench lsp_change_to_publish_ms {:.2} ms", median(samples).as_secs_f64() * 1e3);
}
