//! `oc lsp` driven like an editor: JSON-RPC with Content-Length framing over the binary's
//! stdin/stdout. Initialize, open, edit, hover, definition, completion, code action, references,
//! rename, formatting, symbols, maps and scenarios, bad input, shutdown; exact ranges and texts.

#[path = "common/lsp_client.rs"]
mod lsp_client;

use std::path::{Path, PathBuf};

use lsp_client::{uri, Client};
use serde_json::{json, Value};

fn project(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("oc-lsp-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
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

fn start(name: &str) -> (PathBuf, Client) {
    let dir = project(name);
    let mut client = Client::start(Path::new(env!("CARGO_BIN_EXE_oc")), &dir.join(".cache"));
    let init = client.request("initialize", json!({"processId": null, "rootUri": uri(&dir), "capabilities": {}}));
    assert_eq!(init["capabilities"]["hoverProvider"], true);
    assert_eq!(init["capabilities"]["textDocumentSync"]["change"], 1);
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

    // Rename across the project; the standard library refuses.
    let edit =
        client.request("textDocument/rename", json!({"textDocument": {"uri": main}, "position": pos(7, 11), "newName": "Quick"}));
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
    let dir = std::env::temp_dir().join(format!("oc-lsp-{}-bare", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Another file beside it: without oc.toml only open documents are checked.
    std::fs::write(dir.join("other.oc"), "class Broken {").unwrap();
    let mut client = Client::start(Path::new(env!("CARGO_BIN_EXE_oc")), &dir.join(".cache"));
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
    assert!(client.shutdown().success());
}
