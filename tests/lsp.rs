//! `oc lsp` driven like an editor: JSON-RPC with Content-Length framing over the binary's
//! stdin/stdout. Initialize, open, edit, hover, definition, completion, code action, references,
//! rename, formatting, symbols, maps and scenarios, bad input, shutdown; exact ranges and texts.
//! `OC_BIN=/path/to/old/oc cargo test --test lsp` runs them against another build.

#[path = "common/lsp_client.rs"]
mod lsp_client;

use std::path::{Path, PathBuf};

use lsp_client::{uri, Client};
use serde_json::{json, Value};

/// The binary under test: `OC_BIN` (an older build, to see a test fail there) or this build's.
fn oc_bin() -> PathBuf {
    std::env::var_os("OC_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_oc")), PathBuf::from)
}

fn project(name: &str) -> oc_testkit::Scratch {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-lsp-{}-{name}", std::process::id())));
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"lsp-test\"\n").unwrap();
    std::fs::write(dir.join("rules.oc"), RULES).unwrap();
    std::fs::write(dir.join("main.oc"), MAIN).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(repo.join("scenarios/ide.oc"), dir.join("ide.oc")).unwrap();
    std::fs::copy(repo.join("scenarios/maps/ide.map.toml"), dir.join("maps/ide.map.toml")).unwrap();
    dir
}

const RULES: &str = "// Home-brew rules for the LSP test.
tag Swift(x: Int) on class, weapon doc \"Moves further.\" { movement += x }

class Runner {
    ratings { str C mag E skl B spd A def D res D }
    wields Swords
    tags Swift(2), Lucky(5)
    cost 900
}
";

const MAIN: &str = "import \"rules.oc\"

weapon Blade {
    type Swords
    might 3
    weight 1
    range 1
    tags Swift(1)
    cost 500
}
";

fn pos(line: u32, character: u32) -> Value {
    json!({"line": line, "character": character})
}

fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Value {
    json!({"start": pos(l1, c1), "end": pos(l2, c2)})
}

fn at(uri: &str, line: u32, character: u32) -> Value {
    json!({"textDocument": {"uri": uri}, "position": pos(line, character)})
}

fn start(name: &str) -> (oc_testkit::Scratch, Client) {
    let dir = project(name);
    let mut client = Client::start(&oc_bin(), &dir.join(".cache"));
    let init = client.request("initialize", json!({"processId": null, "rootUri": uri(&dir), "capabilities": {}}));
    assert_eq!(init["capabilities"]["hoverProvider"], true);
    client.notify("initialized", json!({}));
    (dir, client)
}

fn open(client: &mut Client, path: &Path, text: &str) -> String {
    let u = uri(path);
    let language = if path.to_string_lossy().ends_with(".toml") { "toml" } else { "oc" };
    client
        .notify("textDocument/didOpen", json!({"textDocument": {"uri": u, "languageId": language, "version": 1, "text": text}}));
    u
}

#[test]
fn an_editor_session() {
    let (dir, mut client) = start("session");
    let main = uri(&dir.join("main.oc"));
    let rules = uri(&dir.join("rules.oc"));

    // Open with a typo: the unsaved buffer is checked, not the disk.
    let typo = MAIN.replace("Swift(1)", "Swiftt(1)");
    open(&mut client, &dir.join("main.oc"), &typo);
    let published = client.diagnostics(&main);
    assert_eq!(published["version"], 1);
    assert_eq!(
        published["diagnostics"],
        json!([{
            "range": range(7, 9, 7, 15),
            "severity": 1,
            "code": "oc::name::unknown_tag",
            "source": "oc",
            "message": "unknown tag `Swiftt`\nhelp: did you mean `Swift`?",
        }])
    );

    // The quick fix replaces the name with the suggestion.
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": main}, "range": range(7, 10, 7, 10), "context": {"diagnostics": []}}),
    );
    assert_eq!(actions.as_array().unwrap().len(), 1, "{actions}");
    assert_eq!(actions[0]["title"], "Replace with `Swift`");
    assert_eq!(actions[0]["kind"], "quickfix");
    assert_eq!(actions[0]["edit"]["changes"][&main], json!([{"range": range(7, 9, 7, 15), "newText": "Swift"}]));

    // Lines added above it, and a fix asked at once: never one made from the diagnostics of
    // the older text (its range would edit other text now), only one at the typo's new place.
    let moved = format!("// a\n// b\n// c\n{typo}");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": main, "version": 7}, "contentChanges": [{"text": moved}]}),
    );
    let actions = client.request(
        "textDocument/codeAction",
        json!({"textDocument": {"uri": main}, "range": range(0, 0, 12, 0), "context": {"diagnostics": []}}),
    );
    for action in actions.as_array().into_iter().flatten() {
        assert_eq!(action["edit"]["changes"][&main], json!([{"range": range(10, 9, 10, 15), "newText": "Swift"}]), "{actions}");
    }
    let published = client.diagnostics(&main);
    assert_eq!(published["version"], 7);
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": main, "version": 8}, "contentChanges": [{"text": typo}]}),
    );
    assert_eq!(client.diagnostics(&main)["version"], 8);

    // Edit (full sync): the fixed text is clean.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": main, "version": 2}, "contentChanges": [{"text": MAIN}]}),
    );
    let published = client.diagnostics(&main);
    assert_eq!(published["version"], 2);
    assert_eq!(published["diagnostics"], json!([]));

    // Hover on a use of a tag defined in an imported file: kind, name, file, source.
    let hover = client.request("textDocument/hover", at(&main, 7, 11));
    assert_eq!(hover["range"], range(7, 9, 7, 14));
    assert_eq!(
        hover["contents"],
        json!({"kind": "markdown", "value": "tag `Swift` — rules.oc\n```oc\ntag Swift(x: Int) on class, weapon doc \"Moves further.\" { movement += x }\n```"})
    );

    // Definition: across the import, to the name.
    let def = client.request("textDocument/definition", at(&main, 7, 11));
    assert_eq!(def, json!({"uri": rules, "range": range(1, 4, 1, 9)}));

    // Definition into the standard library: a read-only copy in the cache folder.
    let lucky = MAIN.replace("Swift(1)", "Swift(1), Lucky(2)");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": main, "version": 3}, "contentChanges": [{"text": lucky}]}),
    );
    let def = client.request("textDocument/definition", at(&main, 7, 20));
    let target = def["uri"].as_str().unwrap().strip_prefix("file://").unwrap().to_string();
    assert!(target.starts_with(&dir.join(".cache/oc/std-").display().to_string()), "{target}");
    assert!(target.ends_with("/ratings/tags.oc"), "{target}");
    let std_text = std::fs::read_to_string(&target).unwrap();
    assert!(std::fs::metadata(&target).unwrap().permissions().readonly());
    let line = def["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(std_text.lines().nth(line).unwrap().starts_with("tag Lucky("), "{def}");
    assert_eq!(def["range"]["start"]["character"], 4);
    assert_eq!(def["range"]["end"]["character"], 9);

    // Completion after `tags`: tags only (the project's and the standard library's).
    let completion = client.request("textDocument/completion", at(&main, 7, 9));
    let items = completion.as_array().unwrap();
    let swift = items.iter().find(|i| i["label"] == "Swift").unwrap();
    assert_eq!(swift, &json!({"label": "Swift", "kind": 8, "detail": "tag"}));
    assert!(items.iter().any(|i| i["label"] == "Lucky"));
    assert!(items.iter().all(|i| i["detail"] == "tag"), "{completion}");

    // Completion of keywords where they are valid: a weapon's body.
    let completion = client.request("textDocument/completion", at(&main, 8, 4));
    let labels: Vec<&str> =
        completion.as_array().unwrap().iter().filter(|i| i["kind"] == 14).map(|i| i["label"].as_str().unwrap()).collect();
    assert_eq!(labels, ["doc", "type", "might", "weight", "range", "tags", "cost", "use"]);

    // References: the definition, the class's use and the weapon's.
    let refs = client.request(
        "textDocument/references",
        json!({"textDocument": {"uri": main}, "position": pos(7, 11), "context": {"includeDeclaration": true}}),
    );
    assert_eq!(
        refs,
        json!([
            {"uri": main, "range": range(7, 9, 7, 14)},
            {"uri": rules, "range": range(1, 4, 1, 9)},
            {"uri": rules, "range": range(6, 9, 6, 14)},
        ])
    );

    // Rename across the project, once every file of it was read (before, refused as such: the
    // uses in files not read yet would keep the old name); the standard library refuses.
    let rename = json!({"textDocument": {"uri": main}, "position": pos(7, 11), "newName": "Quick"});
    let mut answer = client.call("textDocument/rename", rename.clone());
    for _ in 0..100 {
        if answer["error"]["code"] != json!(-32803) {
            break;
        }
        assert!(answer["error"]["message"].as_str().unwrap().contains("is still being read"), "{answer}");
        std::thread::sleep(std::time::Duration::from_millis(50));
        answer = client.call("textDocument/rename", rename.clone());
    }
    let edit = answer["result"].clone();
    assert_eq!(edit["changes"][&main], json!([{"range": range(7, 9, 7, 14), "newText": "Quick"}]));
    assert_eq!(
        edit["changes"][&rules],
        json!([{"range": range(1, 4, 1, 9), "newText": "Quick"}, {"range": range(6, 9, 6, 14), "newText": "Quick"}])
    );
    let refused =
        client.call("textDocument/rename", json!({"textDocument": {"uri": main}, "position": pos(7, 20), "newName": "Lucky2"}));
    assert_eq!(refused["error"]["message"], "`Lucky` is defined in the standard library, which is read-only");

    // Inside a tag's body: its parameters are completed and hovered.
    open(&mut client, &dir.join("rules.oc"), RULES);
    assert_eq!(client.diagnostics(&rules)["diagnostics"], json!([]));
    let completion = client.request("textDocument/completion", at(&rules, 1, 70));
    let items = completion.as_array().unwrap();
    assert!(items.contains(&json!({"label": "x", "kind": 6, "detail": "parameter: Int"})), "{completion}");
    assert!(items.contains(&json!({"label": "when", "kind": 14})), "{completion}");
    let hover = client.request("textDocument/hover", at(&rules, 1, 71));
    assert_eq!(hover["contents"]["value"], "parameter `x: Int` of tag `Swift`");
    assert_eq!(hover["range"], range(1, 70, 1, 71));
    client.notify("textDocument/didClose", json!({"textDocument": {"uri": rules}}));

    // Document symbols.
    let symbols = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": rules}}));
    // rules.oc is closed: no answer for it.
    assert_eq!(symbols, Value::Null);
    let symbols = client.request("textDocument/documentSymbol", json!({"textDocument": {"uri": main}}));
    assert_eq!(
        symbols,
        json!([{"name": "Blade", "detail": "item", "kind": 23, "range": range(2, 0, 9, 1), "selectionRange": range(2, 7, 2, 12)}])
    );

    // Formatting through `oc fmt`'s library: one edit, the whole file.
    let messy = "weapon   Blade {\n type Swords\n      might 3 weight 1 range 1 cost 500\n}\n";
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": main, "version": 4}, "contentChanges": [{"text": messy}]}),
    );
    let edits = client.request(
        "textDocument/formatting",
        json!({"textDocument": {"uri": main}, "options": {"tabSize": 4, "insertSpaces": true}}),
    );
    assert_eq!(
        edits,
        json!([{"range": range(0, 0, 4, 0), "newText": "weapon Blade {\n    type Swords\n    might 3 weight 1 range 1 cost 500\n}\n"}])
    );

    // Bad input never kills the server: bad parameters, unknown methods, unknown documents.
    let bad = client.call("textDocument/hover", json!({"nonsense": true}));
    assert_eq!(bad["error"]["code"], -32602);
    let unknown = client.call("textDocument/unknownThing", json!({}));
    assert_eq!(unknown["error"]["code"], -32601);
    assert_eq!(client.request("textDocument/hover", at("file:///nowhere/x.oc", 0, 0)), Value::Null);
    client.send(json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": 42}));
    // ... and it still answers.
    let hover = client.request("textDocument/hover", at(&main, 0, 10));
    assert_eq!(hover["range"], range(0, 9, 0, 14));

    assert!(client.shutdown().success());
}

#[test]
fn maps_and_scenarios() {
    let (dir, mut client) = start("maps");
    let map_path = dir.join("maps/ide.map.toml");
    let map_text = std::fs::read_to_string(&map_path).unwrap();
    let map = open(&mut client, &map_path, &map_text);
    assert_eq!(client.diagnostics(&map)["diagnostics"], json!([]));

    // A row symbol: its terrain's symbol, costs and bonuses.
    let hover = client.request("textDocument/hover", at(&map, 7, 3));
    assert_eq!(hover["range"], range(7, 3, 7, 4));
    assert_eq!(hover["contents"]["value"], "`d`: terrain `Desert`\n\nsymbol `d`\n\ncost: Armored 3, Cavalry 2, Flying 1, Foot 2");
    // Completion in a row: the legend's symbols with their terrains.
    let completion = client.request("textDocument/completion", at(&map, 7, 4));
    let items = completion.as_array().unwrap();
    assert!(items.contains(&json!({"label": "x", "kind": 21, "detail": "Ruins"})), "{completion}");

    // A scenario: completion of its map's region names, hover on one, definition into the map.
    let ide_text = std::fs::read_to_string(dir.join("ide.oc")).unwrap();
    let ide = open(&mut client, &dir.join("ide.oc"), &ide_text);
    assert_eq!(client.diagnostics(&ide)["diagnostics"], json!([]));
    let (line, column) = ide_text
        .lines()
        .enumerate()
        .find_map(|(i, l)| l.find("zone \"attacker-zone\"").map(|c| (i as u32, c as u32 + 6)))
        .unwrap();
    let completion = client.request("textDocument/completion", at(&ide, line, column + 1));
    let labels: Vec<&str> = completion.as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap()).collect();
    assert!(labels.contains(&"attacker-zone") && labels.contains(&"eastern-road"), "{labels:?}");
    let hover = client.request("textDocument/hover", at(&ide, line, column + 2));
    assert_eq!(hover["range"], range(line, column, line, column + 13));
    assert!(hover["contents"]["value"].as_str().unwrap().starts_with("region `attacker-zone`: deployment (attacker)"), "{hover}");
    let def = client.request("textDocument/definition", at(&ide, line, column + 2));
    assert_eq!(def["uri"], map);

    // An edit to the map is seen by the scenario that uses it: unsaved text wins.
    let broken = map_text.replace("name = \"attacker-zone\"", "name = \"attacker-zon\"");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": map, "version": 2}, "contentChanges": [{"text": broken}]}),
    );
    let published = client.diagnostics(&ide);
    let codes: Vec<&str> = published["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
    assert!(!codes.is_empty(), "{published}");

    // References of an item from a scenario reach the chests of the maps that see it.
    let chest = map_text.replace("item = \"Elixir\"", "item = \"Vulnerary\"");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": map, "version": 3}, "contentChanges": [{"text": chest}]}),
    );
    let (line, column) =
        ide_text.lines().enumerate().find_map(|(i, l)| l.find("Vulnerary").map(|c| (i as u32, c as u32))).unwrap();
    let refs = client.request(
        "textDocument/references",
        json!({"textDocument": {"uri": ide}, "position": pos(line, column + 1), "context": {"includeDeclaration": false}}),
    );
    let chest_line = chest.lines().position(|l| l == "item = \"Vulnerary\"").unwrap() as u32;
    let refs = refs.as_array().unwrap();
    assert!(refs.contains(&json!({"uri": map, "range": range(chest_line, 8, chest_line, 17)})), "{refs:?}");
    assert!(refs.contains(&json!({"uri": ide, "range": range(line, column, line, column + 9)})), "{refs:?}");
    assert!(client.shutdown().success());
}

#[test]
fn disk_changes_and_a_folder_without_oc_toml() {
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-lsp-{}-bare", std::process::id())));
    // Another file beside it: without oc.toml only open documents are checked.
    std::fs::write(dir.join("other.oc"), "class Broken {").unwrap();
    let mut client = Client::start(&oc_bin(), &dir.join(".cache"));
    client.request("initialize", json!({"processId": null, "capabilities": {}}));
    client.notify("initialized", json!({}));
    let a = open(&mut client, &dir.join("a.oc"), "import \"b.oc\"\n");
    let published = client.diagnostics(&a);
    assert_eq!(published["diagnostics"][0]["code"], "oc::import::not_found", "{published}");
    assert_eq!(published["diagnostics"][0]["range"], range(0, 7, 0, 13));

    // The imported file appears on disk: the editor says so, the import is clean.
    std::fs::write(dir.join("b.oc"), "tag Extra\n").unwrap();
    client.notify("workspace/didChangeWatchedFiles", json!({"changes": [{"uri": uri(&dir.join("b.oc")), "type": 1}]}));
    assert_eq!(client.diagnostics(&a)["diagnostics"], json!([]));

    // Text no parser expects, and positions past the end: answers, no crash.
    let junk = "\u{0}\u{feff}class {{{{ ((( \"\n\u{1F600} tag".repeat(200);
    client
        .notify("textDocument/didChange", json!({"textDocument": {"uri": a, "version": 2}, "contentChanges": [{"text": junk}]}));
    assert!(!client.diagnostics(&a)["diagnostics"].as_array().unwrap().is_empty());
    for method in ["textDocument/hover", "textDocument/definition", "textDocument/completion", "textDocument/references"] {
        for (line, character) in [(0, 0), (1, 1), (5, 9999), (9999, 3)] {
            let mut params = at(&a, line, character);
            if method == "textDocument/references" {
                params["context"] = json!({"includeDeclaration": true});
            }
            let response = client.call(method, params);
            assert!(response.get("error").is_none(), "{method}: {response}");
        }
    }
    let published: Vec<&Value> = client.notes.iter().filter(|n| n["params"]["uri"] == uri(&dir.join("other.oc"))).collect();
    assert!(published.is_empty(), "{published:?}");
    // Its last document closed, a folder without oc.toml is forgotten with what it showed (each
    // such folder's session was kept: 1.4 GB after a thousand files of folders of their own).
    client.notify("textDocument/didClose", json!({"textDocument": {"uri": a}}));
    assert_eq!(client.diagnostics(&a)["diagnostics"], json!([]));
    let b = open(&mut client, &dir.join("b.oc"), "tag Extra\nclass Broken {\n");
    assert!(!client.diagnostics(&b)["diagnostics"].as_array().unwrap().is_empty());
    assert!(client.shutdown().success());
}

/// The peak memory of a process, in kB (Linux).
fn peak_kb(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn is_error_about_nothing(m: &Value, code: i64) -> bool {
    m.get("id") == Some(&Value::Null) && m["error"]["code"] == code
}

/// Issue 43, item 11: every message that is not one is answered (`ParseError` or
/// `InvalidRequest` with a null id) or repaired, and the server goes on answering; a length
/// no one could send allocates nothing.
#[test]
fn a_bad_message_never_ends_the_server() {
    let (dir, mut client) = start("bad-messages");
    let main = uri(&dir.join("main.oc"));
    open(&mut client, &dir.join("main.oc"), MAIN);
    assert_eq!(client.diagnostics(&main)["diagnostics"], json!([]));
    let still_answers = |client: &mut Client| {
        let hover = client.request("textDocument/hover", at(&main, 7, 11));
        assert_eq!(hover["range"], range(7, 9, 7, 14));
    };

    // Lengths past the cap: refused unread, the input skipped to the next header.
    for huge in ["18446744073709551615", "200000000000", "2000000000", "16777217"] {
        client.send_raw(format!("Content-Length: {huge}\r\n\r\n{{\"jsonrpc\":\"2.0\",\"method\":\"x\"}}").as_bytes());
        let error = client.next_matching(|m| is_error_about_nothing(m, -32700));
        let message = error["error"]["message"].as_str().unwrap();
        assert!(message.contains(&format!("a message of {huge} bytes is over the cap of 16777216 bytes")), "{message}");
        still_answers(&mut client);
    }
    // A header ending in `\n` only is read.
    let body = json!({"jsonrpc": "2.0", "id": 900, "method": "textDocument/hover", "params": at(&main, 7, 11)}).to_string();
    client.send_raw(format!("Content-Length: {}\n\n{body}", body.len()).as_bytes());
    let answer = client.next_matching(|m| m["id"] == 900);
    assert_eq!(answer["result"]["range"], range(7, 9, 7, 14));
    // Garbage where a header should be: one answer, then the next message.
    client.send_raw(b"hello\r\nthis is not a header\r\n");
    client.next_matching(|m| is_error_about_nothing(m, -32700));
    still_answers(&mut client);
    // A body that is not JSON; not UTF-8 where JSON needs it; no JSON-RPC message.
    for (body, code) in [
        (b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\"".to_vec(), -32700),
        (b"{\"jsonrpc\": \"2.0\", \"id\": \xff1}".to_vec(), -32700),
        (b"{\"hello\": \"world\"}".to_vec(), -32600),
        (b"[1, 2, 3]".to_vec(), -32600),
        (b"{\"jsonrpc\": \"2.0\", \"id\": {}, \"method\": \"x\"}".to_vec(), -32600),
    ] {
        let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        framed.extend_from_slice(&body);
        client.send_raw(&framed);
        let error = client.next_matching(|m| is_error_about_nothing(m, code));
        assert!(error["error"]["message"].as_str().is_some_and(|m| !m.is_empty()), "{error}");
        still_answers(&mut client);
    }
    // A request whose method is not a string: answered under its id.
    let refused = client.call("textDocument/hover", json!({}));
    assert_eq!(refused["error"]["code"], -32602);
    client.send(json!({"jsonrpc": "2.0", "id": 901, "method": 7}));
    assert_eq!(client.next_matching(|m| m["id"] == 901)["error"]["code"], -32600);

    // Half an emoji (VS Code sends a lone surrogate escape) and a byte that is not UTF-8 inside
    // a string: read as U+FFFD, the document checked, a note logged.
    let rules = uri(&dir.join("rules.oc"));
    let text = RULES.replace("Moves further.", "Moves \\ud83d further.");
    let body = format!(
        "{{\"jsonrpc\":\"2.0\",\"method\":\"textDocument/didOpen\",\"params\":{{\"textDocument\":{{\"uri\":\"{rules}\",\"languageId\":\"oc\",\"version\":1,\"text\":{}}}}}}}",
        serde_json::to_string(&text).unwrap().replace("\\\\ud83d", "\\ud83d")
    );
    client.send_raw(format!("Content-Length: {}\r\n\r\n{body}", body.len()).as_bytes());
    assert_eq!(client.diagnostics(&rules)["diagnostics"], json!([]));
    let note = client.next_matching(|m| m["method"] == "window/logMessage" && m["params"]["type"] == 2);
    assert!(note["params"]["message"].as_str().unwrap().contains("lone UTF-16 surrogate"), "{note}");
    let hover = client.request("textDocument/hover", at(&rules, 1, 5));
    assert!(hover["contents"]["value"].as_str().unwrap().contains("Moves \u{fffd} further."), "{hover}");
    let mut body = json!({"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
        "textDocument": {"uri": rules, "version": 2}, "contentChanges": [{"text": RULES.replace("Moves", "Mo?es")}]}})
    .to_string()
    .into_bytes();
    let at_mark = body.iter().position(|&b| b == b'?').unwrap();
    body[at_mark] = 0xff;
    let mut framed = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    framed.extend_from_slice(&body);
    client.send_raw(&framed);
    let published = client.diagnostics(&rules);
    assert_eq!((published["version"].clone(), published["diagnostics"].clone()), (json!(2), json!([])));
    let hover = client.request("textDocument/hover", at(&rules, 1, 5));
    assert!(hover["contents"]["value"].as_str().unwrap().contains("Mo\u{fffd}es further."), "{hover}");

    // All this cost no memory to speak of (a failed 200 GB allocation aborted it before).
    if let Some(kb) = peak_kb(client.pid()) {
        assert!(kb < 400_000, "the server peaked at {kb} kB");
    }
    assert!(client.shutdown().success());
}

#[test]
fn exit_without_shutdown_is_a_failure() {
    let (_, client) = start("exit");
    assert_eq!(client.exit_without_shutdown().code(), Some(1));
    let (_, client) = start("exit-after-shutdown");
    assert_eq!(client.shutdown().code(), Some(0));
    // Before `initialize`, requests are refused and the server waits for it.
    let dir = project("early");
    let mut client = Client::start(&oc_bin(), &dir.join(".cache"));
    assert_eq!(client.call("textDocument/hover", at("file:///x.oc", 0, 0))["error"]["code"], -32002);
    client.request("initialize", json!({"processId": null, "capabilities": {}}));
    assert_eq!(client.call("initialize", json!({"capabilities": {}}))["error"]["code"], -32600);
    assert_eq!(client.shutdown().code(), Some(0));
}

/// Documents that are not one clean file of a project (an `untitled:` buffer, a URI with `..`
/// or bad escapes) are checked on their own: diagnostics, and nothing read from disk for them.
#[test]
fn loose_documents_are_checked_alone() {
    let (dir, mut client) = start("loose");
    // A file beside the URI's folder that a loose document must not read.
    std::fs::write(dir.join("secret.oc"), "tag Secret\n").unwrap();
    let text = "import \"secret.oc\"\nclass Runner { ratings { str C mag E skl B spd A def D res D } wields Swords tags Lcky(5) cost 9 }\n";
    let escaped = format!("{}/a%zz.oc", uri(&dir));
    let dotted = format!("{}/maps/../main.oc", uri(&dir));
    for doc in ["untitled:Untitled-1", escaped.as_str(), dotted.as_str()] {
        client.notify(
            "textDocument/didOpen",
            json!({"textDocument": {"uri": doc, "languageId": "oc", "version": 1, "text": text}}),
        );
        let published = client.diagnostics(doc);
        let codes: Vec<&str> = published["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
        assert_eq!(codes, ["oc::import::not_found", "oc::name::unknown_tag"], "{doc}: {published}");
        assert!(published["diagnostics"][1]["message"].as_str().unwrap().contains("did you mean `Lucky`?"), "{published}");
        // Hover and definition work in it; definition into itself stays on its URI.
        let hover = client.request("textDocument/hover", at("untitled:Untitled-1", 1, 7));
        assert!(hover["contents"]["value"].as_str().unwrap().starts_with("class `Runner`"), "{hover}");
    }
    let def = client.request("textDocument/definition", at("untitled:Untitled-1", 1, 8));
    assert_eq!(def, json!({"uri": "untitled:Untitled-1", "range": range(1, 6, 1, 12)}));
    // Closing a loose document clears what it showed.
    client.notify("textDocument/didClose", json!({"textDocument": {"uri": "untitled:Untitled-1"}}));
    assert_eq!(client.diagnostics("untitled:Untitled-1")["diagnostics"], json!([]));
    assert!(client.shutdown().success());
}

/// An edit the server cannot apply (a reversed range, a line past the end) keeps the text it had
/// and says so — a message to the user and a diagnostic on the document — instead of drifting;
/// the whole text sent again brings it back.
#[test]
fn an_edit_that_cannot_apply_is_said_and_resynced() {
    let (dir, mut client) = start("resync");
    let main = open(&mut client, &dir.join("main.oc"), MAIN);
    assert_eq!(client.diagnostics(&main)["diagnostics"], json!([]));
    let edit = |client: &mut Client, version: i64, range: Value, text: &str| {
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": main, "version": version}, "contentChanges": [{"range": range, "text": text}]}),
        );
    };
    // A good incremental edit applies.
    edit(&mut client, 2, range(7, 9, 7, 14), "Swiftt");
    let published = client.diagnostics(&main);
    assert_eq!(published["diagnostics"][0]["code"], "oc::name::unknown_tag", "{published}");
    // A reversed range.
    edit(&mut client, 3, range(7, 15, 7, 9), "Swift");
    let shown = client.next_matching(|m| m["method"] == "window/showMessage");
    assert_eq!(shown["params"]["type"], 1);
    let message = shown["params"]["message"].as_str().unwrap();
    assert!(message.contains("its range ends at 7:9 before it starts at 7:15"), "{message}");
    assert!(message.contains("close and reopen the file"), "{message}");
    let published = client.diagnostics(&main);
    assert_eq!(published["version"], 3);
    let diagnostics = published["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{published}");
    assert_eq!(diagnostics[0]["range"], range(0, 0, 0, 0));
    assert_eq!(diagnostics[0]["source"], "oc lsp");
    assert!(diagnostics[0]["message"].as_str().unwrap().starts_with("oc's copy of this file no longer matches the editor's"));
    // Further edits against the editor's text are not applied to the stale copy.
    edit(&mut client, 4, range(0, 0, 0, 0), "// x\n");
    client.next_matching(|m| {
        m["method"] == "window/logMessage" && m["params"]["message"].as_str().unwrap().contains("out of sync")
    });
    // The whole text again: back in sync, checked for real.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": main, "version": 5}, "contentChanges": [{"text": MAIN.replace("Swift(1)", "Swiftt(1)")}]}),
    );
    let published = client.diagnostics(&main);
    assert_eq!(published["version"], 5);
    assert_eq!(published["diagnostics"][0]["code"], "oc::name::unknown_tag", "{published}");
    // A line past the end, in a second document: said the same way.
    let rules = open(&mut client, &dir.join("rules.oc"), RULES);
    assert_eq!(client.diagnostics(&rules)["diagnostics"], json!([]));
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": rules, "version": 2}, "contentChanges": [{"range": range(40, 0, 41, 0), "text": ""}]}),
    );
    let shown = client.next_matching(|m| m["method"] == "window/showMessage");
    assert!(
        shown["params"]["message"].as_str().unwrap().contains("its range reaches line 40 but the document has 10 lines"),
        "{shown}"
    );
    assert_eq!(client.diagnostics(&rules)["diagnostics"][0]["source"], "oc lsp");
    assert!(client.shutdown().success());
}

/// A file of `lines` lines of classes (`Lucky` on each), for checks that take a while.
fn big_file(lines: usize) -> String {
    let class = |n: usize| {
        format!("class Unit{n} {{\n    ratings {{ str C mag E skl B spd A def D res D }}\n    wields Swords\n    tags Lucky(5)\n    cost 900\n}}\n\n")
    };
    (0..lines / 7).map(class).collect()
}

/// Issue 42: checks run off the main loop. A request sent right after an edit of a large file is
/// answered before that edit's check ends (the old loop checked first, then answered: even an
/// unknown method waited for the check), and a burst of edits is checked once, on its last text.
#[test]
fn checks_run_off_the_main_loop_and_stale_ones_are_cancelled() {
    let (dir, mut client) = start("off-loop");
    let text = big_file(21_000);
    std::fs::write(dir.join("big.oc"), &text).unwrap();
    let big = open(&mut client, &dir.join("big.oc"), &text);
    assert_eq!(client.diagnostics(&big)["diagnostics"], json!([]));
    let typo = |client: &mut Client, version: i64, line: u32, fix: bool| {
        let range = if fix { range(line, 10, line, 10) } else { range(line, 10, line, 11) };
        client.notify(
            "textDocument/didChange",
            json!({"textDocument": {"uri": big, "version": version}, "contentChanges": [{"range": range, "text": if fix { "u" } else { "" }}]}),
        );
    };
    typo(&mut client, 2, 3, false);
    client.send(json!({"jsonrpc": "2.0", "id": 500, "method": "oc/ping", "params": {}}));
    let first = client
        .next_matching(|m| m["id"] == 500 || (m["method"] == "textDocument/publishDiagnostics" && m["params"]["version"] == 2));
    assert_eq!(first["id"], 500, "the check came first: {first}");
    assert_eq!(first["error"]["code"], -32601);
    assert_eq!(client.diagnostics(&big)["version"], 2);
    // Ten edits at once: the stale checks are cancelled, the last text's diagnostics published.
    client.notes.clear();
    for v in 3..13 {
        typo(&mut client, v, 3, v % 2 == 1);
    }
    let mut versions = Vec::new();
    loop {
        let published = client.diagnostics(&big);
        versions.push(published["version"].as_i64().unwrap());
        if published["version"] == 12 {
            let codes: Vec<&str> =
                published["diagnostics"].as_array().unwrap().iter().map(|d| d["code"].as_str().unwrap()).collect();
            assert_eq!(codes, ["oc::name::unknown_tag"], "{published}");
            break;
        }
    }
    assert!(versions.len() < 10, "every stale version was checked and published: {versions:?}");
    assert!(client.shutdown().success());
}

/// Issue 42's editor items through the protocol: completion by what the place accepts, semantic
/// tokens, signature help, inlay hints, workspace symbols, folding ranges, definition on an
/// import, references through resolution, incremental sync.
#[test]
fn the_editor_knows_what_names_are() {
    let (dir, mut client) = start("editor");
    let init = {
        let mut c = Client::start(&oc_bin(), &dir.join(".cache2"));
        let init = c.request("initialize", json!({"processId": null, "capabilities": {}}));
        assert!(c.shutdown().success());
        init
    };
    // Edits come by ranges (incremental sync).
    assert_eq!(init["capabilities"]["textDocumentSync"]["change"], 2);
    let init_tokens = init["capabilities"]["semanticTokensProvider"]["legend"]["tokenTypes"].clone();
    let main = uri(&dir.join("main.oc"));
    let text = "import \"rules.oc\"\n\nclass Lancer {\n    ratings { str C mag E skl C spd D def B res D }\n    wields Lances, \n    tags Swift(2), \n    cost 900\n}\n";
    open(&mut client, &dir.join("main.oc"), text);
    client.diagnostics(&main);
    let labels = |client: &mut Client, line: u32, character: u32| -> Vec<(String, i64)> {
        let items = client.request("textDocument/completion", at(&main, line, character));
        items.as_array().map_or_else(Vec::new, |a| {
            a.iter().map(|i| (i["label"].as_str().unwrap().to_string(), i["kind"].as_i64().unwrap())).collect()
        })
    };
    // After `wields Lances, `: weapon types only (kind 20), no keyword.
    let found = labels(&mut client, 4, 19);
    assert!(found.iter().any(|(l, _)| l == "Swords") && found.iter().all(|(_, k)| *k == 20), "{found:?}");
    // After `tags Swift(2), `: class tags only — `Canto` yes, the weapon tag `Brave` no.
    let found = labels(&mut client, 5, 19);
    assert!(found.iter().any(|(l, _)| l == "Canto") && found.iter().all(|(_, k)| *k == 8), "{found:?}");
    assert!(!found.iter().any(|(l, _)| l == "Brave"), "{found:?}");
    // Inside the import's string: the project's files and the standard library's rulesets.
    let items = client.request("textDocument/completion", at(&main, 0, 8));
    let rules = items.as_array().unwrap().iter().find(|i| i["label"] == "rules.oc").unwrap();
    assert_eq!(rules["textEdit"], json!({"range": range(0, 8, 0, 16), "newText": "rules.oc"}));
    assert!(items.as_array().unwrap().iter().any(|i| i["label"] == "std:v06"));

    // Definition on the import's path: the file.
    let def = client.request("textDocument/definition", at(&main, 0, 10));
    assert_eq!(def, json!({"uri": uri(&dir.join("rules.oc")), "range": range(0, 0, 0, 0)}));

    // Semantic tokens: `Lances` a weapon type, `Swift` a tag, `Lancer` a class being declared;
    // half typed (the trailing commas), the class does not parse, and its names still have
    // their kinds.
    let tokens = |client: &mut Client, text: &str| -> Vec<(String, String, u64)> {
        let data = client.request("textDocument/semanticTokens/full", json!({"textDocument": {"uri": main}}))["data"].clone();
        let data: Vec<u64> = data.as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        let (mut line, mut col) = (0, 0);
        let mut out = Vec::new();
        for t in data.chunks(5) {
            line += t[0];
            col = if t[0] == 0 { col + t[1] } else { t[1] };
            let word: String = text.lines().nth(line as usize).unwrap().chars().skip(col as usize).take(t[2] as usize).collect();
            out.push((word, init_tokens[t[3] as usize].as_str().unwrap().to_string(), t[4]));
        }
        out
    };
    let kind =
        |tokens: &[(String, String, u64)], w: &str| tokens.iter().find(|(t, _, _)| t == w).map(|(_, k, m)| (k.clone(), *m));
    let half = tokens(&mut client, text);
    assert_eq!(kind(&half, "Lances"), Some(("type".to_string(), 2)), "{half:?}");
    assert_eq!(kind(&half, "Swift"), Some(("decorator".to_string(), 0)), "{half:?}");
    let whole = text.replace("Lances, ", "Lances").replace("Swift(2), ", "Swift(2)");
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": main, "version": 2}, "contentChanges": [{"text": whole}]}),
    );
    let found = tokens(&mut client, &whole);
    assert_eq!(kind(&found, "Lancer"), Some(("class".to_string(), 1)), "{found:?}");
    assert_eq!(kind(&found, "Lances"), Some(("type".to_string(), 2)));
    assert_eq!(kind(&found, "Swift"), Some(("decorator".to_string(), 0)));
    assert_eq!(kind(&found, "str").map(|k| k.0), Some("property".to_string()));
    assert_eq!(kind(&found, "C").map(|k| k.0), Some("enumMember".to_string()));

    // Signature help inside `Swift(`; the inlay hint naming its argument.
    let help = client.request("textDocument/signatureHelp", at(&main, 5, 15));
    assert_eq!(help["signatures"][0]["label"], "Swift(x: Int)");
    assert_eq!(help["signatures"][0]["parameters"], json!([{"label": [6, 12]}]));
    assert_eq!(help["activeParameter"], 0);
    let hints = client.request("textDocument/inlayHint", json!({"textDocument": {"uri": main}, "range": range(0, 0, 9, 0)}));
    assert_eq!(hints, json!([{"position": pos(5, 15), "label": "x:", "kind": 2, "paddingRight": true}]));

    // Workspace symbols: the project's first, then the standard library's.
    let symbols = client.request("workspace/symbol", json!({"query": "runnr"}));
    assert_eq!(symbols[0]["name"], "Runner");
    assert_eq!(symbols[0]["location"]["uri"], uri(&dir.join("rules.oc")));
    // Folding ranges: the class's block, its lines inside the braces.
    let folds = client.request("textDocument/foldingRange", json!({"textDocument": {"uri": main}}));
    assert!(folds.as_array().unwrap().contains(&json!({"startLine": 2, "endLine": 6, "kind": "region"})), "{folds}");

    // Incremental sync: edits by range apply (`Swift` made `Swiftt`), and are checked.
    client.notify(
        "textDocument/didChange",
        json!({"textDocument": {"uri": main, "version": 3}, "contentChanges": [{"range": range(5, 14, 5, 14), "text": "t"}]}),
    );
    let published = loop {
        let p = client.diagnostics(&main);
        if p["version"] == 3 {
            break p;
        }
    };
    assert_eq!(published["diagnostics"][0]["message"], "unknown tag `Swiftt`\nhelp: did you mean `Swift`?");
    assert!(client.shutdown().success());
}
