//! `oc lsp` with a real editor as its client: Neovim (Debian's `neovim`, installed with apt-get
//! when missing; skipped, saying why, where it cannot be) runs its built-in LSP client headless
//! on a small project, types into a buffer — Neovim computes the incremental changes itself —
//! and asks for completion by place, semantic tokens, signature help, symbols and folding
//! ranges; the answers are written as JSON and checked here (issue 42).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Neovim, installed with apt-get when missing; why not, where it cannot be.
fn nvim() -> Result<(), String> {
    let works = || Command::new("nvim").arg("--version").output().is_ok_and(|o| o.status.success());
    common::apt_install(&["neovim"], works)
}

fn oc_bin() -> PathBuf {
    std::env::var_os("OC_BIN").map_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_oc")), PathBuf::from)
}

const RULES: &str = "tag Swift(x: Int) on class, weapon doc \"Moves further.\" { movement += x }\n";

const MAIN: &str = "import \"rules.oc\"

class Lancer {
    ratings { str C mag E skl C spd D def B res D }
    wields Lances
    tags Canto
    cost 900
}
";

/// The Lua Neovim runs: start `oc lsp`, open main.oc, type, ask, write the answers.
fn script(oc: &Path, cache: &Path, root: &Path, file: &Path, out: &Path) -> String {
    let q = |p: &Path| serde_json::to_string(&p.display().to_string()).unwrap();
    format!(
        r#"
local OC, CACHE, ROOT, FILE, OUT = {oc}, {cache}, {root}, {file}, {out}
local results = {{}}
-- Counts the server's publications (a first one means the project was checked).
local published = 0
local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(...)
  published = published + 1
  return publish(...)
end
local function run()
  local id = vim.lsp.start_client({{ cmd = {{ OC, "lsp" }}, cmd_env = {{ XDG_CACHE_HOME = CACHE }}, root_dir = ROOT, name = "oc" }})
  vim.cmd("edit " .. vim.fn.fnameescape(FILE))
  local buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(buf, id)
  local client = vim.lsp.get_client_by_id(id)
  assert(vim.wait(20000, function() return client.initialized end), "the server did not initialize")
  results.capabilities = client.server_capabilities
  local uri = vim.uri_from_bufnr(buf)
  local function at(line, character) return {{ textDocument = {{ uri = uri }}, position = {{ line = line, character = character }} }} end
  local function ask(method, params)
    local r, err = client.request_sync(method, params, 20000, buf)
    assert(r, method .. ": " .. tostring(err))
    assert(not r.err, method .. ": " .. vim.inspect(r.err))
    return r.result
  end
  -- The file is checked, and clean.
  assert(vim.wait(20000, function() return published > 0 end), "no diagnostics were published")
  assert(#vim.diagnostic.get(buf) == 0, "the file is not clean: " .. vim.inspect(vim.diagnostic.get(buf)))
  -- Type `, ` after `wields Lances` and after `tags Canto` (Neovim sends the edits by range).
  vim.api.nvim_buf_set_text(buf, 4, 17, 4, 17, {{ ", " }})
  vim.api.nvim_buf_set_text(buf, 5, 14, 5, 14, {{ ", " }})
  results.after_wields = ask("textDocument/completion", at(4, 19))
  results.after_tags = ask("textDocument/completion", at(5, 16))
  -- Type a tag use with its parenthesis: signature help.
  vim.api.nvim_buf_set_text(buf, 5, 16, 5, 16, {{ "Swift(" }})
  results.signature = ask("textDocument/signatureHelp", at(5, 22))
  -- Finish it, drop the dangling comma of `wields`, and misspell the tag: the diagnostic
  -- for the text Neovim holds.
  vim.api.nvim_buf_set_text(buf, 5, 22, 5, 22, {{ "2)" }})
  vim.api.nvim_buf_set_text(buf, 4, 17, 4, 19, {{ "" }})
  vim.api.nvim_buf_set_text(buf, 5, 21, 5, 21, {{ "t" }})
  local function typo_seen()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if d.message:find("Swiftt", 1, true) then return true end
    end
    return false
  end
  assert(vim.wait(20000, typo_seen), "the typo's diagnostic did not come")
  results.lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  results.diagnostics = vim.tbl_map(function(d) return {{ lnum = d.lnum, col = d.col, message = d.message }} end, vim.diagnostic.get(buf))
  -- Fix it back; the clean text's tokens, symbols and folds.
  vim.api.nvim_buf_set_text(buf, 5, 21, 5, 22, {{ "" }})
  assert(vim.wait(20000, function() return #vim.diagnostic.get(buf) == 0 end), "the fix was not seen")
  results.clean_lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
  results.tokens = ask("textDocument/semanticTokens/full", {{ textDocument = {{ uri = uri }} }})
  results.symbols = ask("textDocument/documentSymbol", {{ textDocument = {{ uri = uri }} }})
  results.workspace = ask("workspace/symbol", {{ query = "swft" }})
  results.folds = ask("textDocument/foldingRange", {{ textDocument = {{ uri = uri }} }})
  results.hints = ask("textDocument/inlayHint", {{ textDocument = {{ uri = uri }}, range = {{ start = {{ line = 0, character = 0 }}, ["end"] = {{ line = 9, character = 0 }} }} }})
  client.stop()
end
local ok, err = pcall(run)
if not ok then results.error = tostring(err) end
vim.fn.writefile({{ vim.fn.json_encode(results) }}, OUT)
vim.cmd("qa!")
"#,
        oc = q(oc),
        cache = q(cache),
        root = q(root),
        file = q(file),
        out = q(out),
    )
}

#[test]
fn neovim_as_the_client() {
    if let Err(why) = nvim() {
        eprintln!("skipped: Neovim is not available ({why})");
        return;
    }
    let dir = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-lsp-nvim-{}", std::process::id())));
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"nvim\"\n").unwrap();
    std::fs::write(dir.join("rules.oc"), RULES).unwrap();
    std::fs::write(dir.join("main.oc"), MAIN).unwrap();
    let out = dir.join("answers.json");
    let lua = dir.join("client.lua");
    std::fs::write(&lua, script(&oc_bin(), &dir.join(".cache"), &dir, &dir.join("main.oc"), &out)).unwrap();
    let mut child = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "--noplugin", "-c"])
        .arg(format!("luafile {}", lua.display()))
        .env("HOME", &dir)
        .env("XDG_STATE_HOME", dir.join(".state"))
        .env("XDG_DATA_HOME", dir.join(".data"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < Duration::from_secs(180), "neovim did not finish");
        std::thread::sleep(Duration::from_millis(100));
    }
    let answers: Value = serde_json::from_str(&std::fs::read_to_string(&out).expect("neovim wrote its answers")).unwrap();
    assert!(answers.get("error").is_none(), "the session failed: {}", answers["error"]);

    // Completion by place, after the first entry of a list.
    let labels = |v: &Value| -> Vec<(String, i64)> {
        let items = if v.is_array() { v.clone() } else { v["items"].clone() };
        items
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (i["label"].as_str().unwrap().to_string(), i["kind"].as_i64().unwrap()))
            .collect()
    };
    let wields = labels(&answers["after_wields"]);
    assert!(wields.iter().any(|(l, _)| l == "Swords") && wields.iter().all(|(_, k)| *k == 20), "{wields:?}");
    let tags = labels(&answers["after_tags"]);
    assert!(tags.iter().any(|(l, _)| l == "Swift") && tags.iter().any(|(l, _)| l == "Lucky"), "{tags:?}");
    assert!(tags.iter().all(|(_, k)| *k == 8), "keywords or other names offered: {tags:?}");
    assert!(!tags.iter().any(|(l, _)| l == "Brave"), "a weapon-only tag offered on a class: {tags:?}");

    // Signature help of the tag being typed.
    assert_eq!(answers["signature"]["signatures"][0]["label"], "Swift(x: Int)");
    assert_eq!(answers["signature"]["signatures"][0]["documentation"], "Moves further.");
    assert_eq!(answers["signature"]["activeParameter"], 0);

    // Neovim's own incremental edits, applied as it holds the text: the typo is where it sees it.
    let lines: Vec<&str> = answers["lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    assert_eq!(lines[5], "    tags Canto, Swiftt(2)", "{lines:?}");
    let diagnostics = answers["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
    assert_eq!((diagnostics[0]["lnum"].as_i64(), diagnostics[0]["col"].as_i64()), (Some(5), Some(16)));
    assert!(diagnostics[0]["message"].as_str().unwrap().starts_with("unknown tag `Swiftt`"));

    // Semantic tokens of the clean text, decoded with the legend the server gave Neovim.
    let clean: Vec<&str> = answers["clean_lines"].as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let legend = &answers["capabilities"]["semanticTokensProvider"]["legend"]["tokenTypes"];
    let data: Vec<u64> = answers["tokens"]["data"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
    let (mut line, mut col) = (0u64, 0u64);
    let mut tokens = Vec::new();
    for t in data.chunks(5) {
        line += t[0];
        col = if t[0] == 0 { col + t[1] } else { t[1] };
        let word: String = clean[line as usize].chars().skip(col as usize).take(t[2] as usize).collect();
        tokens.push((word, legend[t[3] as usize].as_str().unwrap().to_string()));
    }
    let kind = |w: &str| tokens.iter().find(|(t, _)| t == w).map(|(_, k)| k.as_str());
    assert_eq!(kind("Lances"), Some("type"), "{tokens:?}");
    assert_eq!(kind("Canto"), Some("decorator"), "{tokens:?}");
    assert_eq!(kind("Swift"), Some("decorator"), "{tokens:?}");
    assert_eq!(kind("Lancer"), Some("class"), "{tokens:?}");

    // Symbols: the class in the document, the tag across the project by a fuzzy query.
    assert_eq!(answers["symbols"][0]["name"], "Lancer");
    assert_eq!(answers["workspace"][0]["name"], "Swift");
    // Folds and the inlay hint naming `Swift`'s argument.
    assert!(answers["folds"].as_array().unwrap().iter().any(|f| f["startLine"] == 2), "{}", answers["folds"]);
    assert_eq!(answers["hints"][0]["label"], "x:");
    let stderr = text(&child.wait_with_output().unwrap().stderr);
    assert!(!stderr.contains("Error"), "neovim reported: {stderr}");
}

/// The second session's project: rules with a tag and a movement type both named `Mounted`, a
/// class and an army using them, a scenario on a map.
const NAV_RULES: &str = "movement Hover, Mounted
tag Mounted on class doc \"Rides.\" { movement_type = Mounted }
tag Effective(t: Tag) on weapon { when defender has t { damage += 3 } }
";

const NAV_MAIN: &str = "import \"rules.oc\"

class Rider {
    ratings { str C mag E skl C spd D def B res D }
    wields Lances
    tags Mounted
    cost 900
}

weapon Pike { type Lances might 1 weight 1 range 1 tags Effective(Mounted) cost 1 }

scenario Crossing {
    map \"maps/ide.map.toml\"
    attacker {
        zone \"attacker-zone\"
        war_chest 8000
        units 1..6
        win rout all
    }
    defender {
        zone \"defender-zone\"
        war_chest 8000
        units 1..6
        win rout all
    }
}

army Riders for Crossing attacker {
    unit Ann: Rider { items IronLance }
}
";

/// The Lua of the second session: completion of paths, regions, items and a legend's terrains;
/// definition on an import path; references and rename by what a name means.
fn nav_script(oc: &Path, cache: &Path, root: &Path, out: &Path) -> String {
    let q = |p: &Path| serde_json::to_string(&p.display().to_string()).unwrap();
    format!(
        r#"
local OC, CACHE, ROOT, OUT = {oc}, {cache}, {root}, {out}
local results = {{}}
local published = 0
local publish = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(...)
  published = published + 1
  return publish(...)
end
local function run()
  local id = vim.lsp.start_client({{ cmd = {{ OC, "lsp" }}, cmd_env = {{ XDG_CACHE_HOME = CACHE }}, root_dir = ROOT, name = "oc" }})
  local client = vim.lsp.get_client_by_id(id)
  local function open(name)
    vim.cmd("edit " .. vim.fn.fnameescape(ROOT .. "/" .. name))
    local buf = vim.api.nvim_get_current_buf()
    vim.lsp.buf_attach_client(buf, id)
    return buf, vim.uri_from_bufnr(buf)
  end
  local main, main_uri = open("main.oc")
  assert(vim.wait(20000, function() return client.initialized end), "the server did not initialize")
  -- The project is checked (the scopes of its files known).
  assert(vim.wait(20000, function() return published > 0 end), "no diagnostics were published")
  local function ask(buf, method, params)
    local r, err = client.request_sync(method, params, 20000, buf)
    assert(r, method .. ": " .. tostring(err))
    assert(not r.err, method .. ": " .. vim.inspect(r.err))
    return r.result
  end
  local function at(uri, line, character) return {{ textDocument = {{ uri = uri }}, position = {{ line = line, character = character }} }} end
  -- Inside `import "rules.oc"`, `map "maps/ide.map.toml"` and `zone "attacker-zone"`.
  results.import_paths = ask(main, "textDocument/completion", at(main_uri, 0, 8))
  results.map_paths = ask(main, "textDocument/completion", at(main_uri, 12, 10))
  results.regions = ask(main, "textDocument/completion", at(main_uri, 14, 14))
  -- After the first item of a unit: items.
  vim.api.nvim_buf_set_text(main, 28, 37, 28, 37, {{ ", " }})
  results.items = ask(main, "textDocument/completion", at(main_uri, 28, 39))
  vim.api.nvim_buf_set_text(main, 28, 37, 28, 39, {{ "" }})
  -- Definition on the import's path.
  results.import_definition = ask(main, "textDocument/definition", at(main_uri, 0, 10))
  -- References and rename of the tag `Mounted` (line 5), not the movement type.
  local refs = at(main_uri, 5, 10)
  refs.context = {{ includeDeclaration = true }}
  results.references = ask(main, "textDocument/references", refs)
  local rename = at(main_uri, 5, 10)
  rename.newName = "Horsed"
  -- Once every file of the project was read (before, the server refuses: uses in files not
  -- read yet would keep the old name).
  assert(vim.wait(20000, function()
    local r = client.request_sync("textDocument/rename", rename, 20000, main)
    return r and not (r.err and tostring(r.err.message):find("still being read"))
  end, 50), "the project was never read whole")
  results.rename = ask(main, "textDocument/rename", rename)
  -- Two letters swapped (`Mounted` typed `Muonted`): the did-you-mean's quick fix.
  vim.api.nvim_buf_set_text(main, 5, 10, 5, 12, {{ "uo" }})
  local function typo()
    for _, d in ipairs(vim.diagnostic.get(main)) do
      if d.message:find("Muonted", 1, true) then return d end
    end
  end
  assert(vim.wait(20000, function() return typo() ~= nil end), "the transposed tag's diagnostic did not come")
  local d = typo()
  results.transposed = {{ message = d.message }}
  results.fixes = ask(main, "textDocument/codeAction", {{ textDocument = {{ uri = main_uri }},
    range = {{ start = {{ line = 5, character = 10 }}, ["end"] = {{ line = 5, character = 10 }} }},
    context = {{ diagnostics = {{}} }} }})
  -- A legend's terrain, in the map.
  local map, map_uri = open("maps/ide.map.toml")
  local legend_line = vim.fn.search('"d" = "Desert"') - 1
  results.legend = ask(map, "textDocument/completion", at(map_uri, legend_line, 7))
  client.stop()
end
local ok, err = pcall(run)
if not ok then results.error = tostring(err) end
vim.fn.writefile({{ vim.fn.json_encode(results) }}, OUT)
vim.cmd("qa!")
"#,
        oc = q(oc),
        cache = q(cache),
        root = q(root),
        out = q(out),
    )
}

#[test]
fn neovim_completes_by_place_and_navigates_by_meaning() {
    if let Err(why) = nvim() {
        eprintln!("skipped: Neovim is not available ({why})");
        return;
    }
    let outer = oc_testkit::Scratch::fresh(std::env::temp_dir().join(format!("oc-lsp-nvim-nav-{}", std::process::id())));
    let dir = outer.join("project");
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    // A file beside the project, outside its root: never offered.
    std::fs::write(outer.join("outside.oc"), "class Outside { cost 1 }\n").unwrap();
    std::fs::write(dir.join("oc.toml"), "[project]\nname = \"nav\"\n").unwrap();
    std::fs::write(dir.join("rules.oc"), NAV_RULES).unwrap();
    std::fs::write(dir.join("main.oc"), NAV_MAIN).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(repo.join("scenarios/maps/ide.map.toml"), dir.join("maps/ide.map.toml")).unwrap();
    let out = dir.join("answers.json");
    let lua = outer.join("client.lua");
    std::fs::write(&lua, nav_script(&oc_bin(), &outer.join(".cache"), &dir, &out)).unwrap();
    let mut child = Command::new("nvim")
        .args(["--headless", "-u", "NONE", "-i", "NONE", "-n", "--noplugin", "-c"])
        .arg(format!("luafile {}", lua.display()))
        .env("HOME", &outer)
        .env("XDG_STATE_HOME", outer.join(".state"))
        .env("XDG_DATA_HOME", outer.join(".data"))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        assert!(started.elapsed() < Duration::from_secs(180), "neovim did not finish");
        std::thread::sleep(Duration::from_millis(100));
    }
    let answers: Value = serde_json::from_str(&std::fs::read_to_string(&out).expect("neovim wrote its answers")).unwrap();
    assert!(answers.get("error").is_none(), "the session failed: {}", answers["error"]);
    let labels = |v: &Value| -> Vec<String> {
        let items = if v.is_array() { v.clone() } else { v["items"].clone() };
        items.as_array().unwrap().iter().map(|i| i["label"].as_str().unwrap().to_string()).collect()
    };

    // Paths: the project's .oc files and the built-in rulesets in an import, its maps in `map`;
    // nothing from outside the project's root.
    let imports = labels(&answers["import_paths"]);
    assert!(imports.contains(&"rules.oc".to_string()) && imports.iter().any(|l| l.starts_with("std:")), "{imports:?}");
    assert!(!imports.iter().any(|l| l.contains("outside") || l.ends_with(".toml")), "{imports:?}");
    assert_eq!(labels(&answers["map_paths"]), ["maps/ide.map.toml"]);
    // The map's regions in a scenario's string; items after a unit's first item.
    let regions = labels(&answers["regions"]);
    assert!(regions.contains(&"attacker-zone".to_string()) && regions.contains(&"defender-zone".to_string()), "{regions:?}");
    let items = labels(&answers["items"]);
    assert!(items.contains(&"Pike".to_string()) && items.contains(&"Vulnerary".to_string()), "{items:?}");
    assert!(!items.iter().any(|l| l == "Mounted" || l == "Rider" || l == "tags" || l == "Lances"), "{items:?}");
    let legend = labels(&answers["legend"]);
    assert!(legend.contains(&"Ruins".to_string()) && legend.contains(&"Forest".to_string()), "{legend:?}");

    // Definition on the import's path: the file.
    let def = &answers["import_definition"];
    let def = if def.is_array() { def[0].clone() } else { def.clone() };
    assert!(def["uri"].as_str().unwrap().ends_with("/project/rules.oc"), "{def}");

    // References of the tag: its definition, the class's use and `Effective(Mounted)`; not the
    // movement type `Mounted` (rules.oc, lines 0 and 1's body).
    let refs: Vec<(String, i64, i64)> = answers["references"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let uri = r["uri"].as_str().unwrap();
            let file = uri.rsplit('/').next().unwrap().to_string();
            (file, r["range"]["start"]["line"].as_i64().unwrap(), r["range"]["start"]["character"].as_i64().unwrap())
        })
        .collect();
    let mut sorted = refs.clone();
    sorted.sort();
    assert_eq!(
        sorted,
        [("main.oc".to_string(), 5, 9), ("main.oc".to_string(), 9, 66), ("rules.oc".to_string(), 1, 4)],
        "{refs:?}"
    );
    // Rename: the same three places, each to `Horsed`.
    let changes = &answers["rename"]["changes"];
    let mut renamed: Vec<(String, i64)> = Vec::new();
    for (uri, edits) in changes.as_object().expect("a rename's changes by file") {
        for e in edits.as_array().unwrap() {
            assert_eq!(e["newText"], "Horsed");
            renamed.push((uri.rsplit('/').next().unwrap().to_string(), e["range"]["start"]["line"].as_i64().unwrap()));
        }
    }
    renamed.sort();
    assert_eq!(renamed, [("main.oc".to_string(), 5), ("main.oc".to_string(), 9), ("rules.oc".to_string(), 1)]);
    // The transposed letters get their did-you-mean, and the quick fix puts them back.
    assert!(answers["transposed"]["message"].as_str().unwrap().starts_with("unknown tag `Muonted`"), "{}", answers["transposed"]);
    let fix = &answers["fixes"][0];
    assert_eq!(fix["title"], "Replace with `Mounted`", "{}", answers["fixes"]);
    let edits: Vec<&Value> = fix["edit"]["changes"].as_object().unwrap().values().collect();
    assert_eq!(edits[0][0]["newText"], "Mounted");
    let stderr = text(&child.wait_with_output().unwrap().stderr);
    assert!(!stderr.contains("Error"), "neovim reported: {stderr}");
}
