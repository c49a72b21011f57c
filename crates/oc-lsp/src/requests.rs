//! Requests, translated: LSP positions (UTF-16) and URIs in, byte offsets and logical paths to
//! `oc_ide`, its plain data back out as LSP's. No analysis here.

use std::collections::BTreeMap;
use std::path::Path;

use lsp_types::{Position, Range};
use oc_ide::complete::CompletionKind;
use oc_ide::outline::{FoldKind, SymbolKind};
use oc_ide::{Db, DefKind, FilePosition};
use serde::Deserialize;
use serde_json::{json, Value};

use crate::jsonrpc::{ErrorCode, Request, Response};
use crate::server::{params, Place, Server};
use crate::text::{path_to_uri, LineIndex};
use crate::world::World;

#[derive(Deserialize)]
struct DocUri {
    uri: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Doc {
    text_document: DocUri,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DocPos {
    text_document: DocUri,
    position: Position,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RefContext {
    include_declaration: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct References {
    #[serde(flatten)]
    at: DocPos,
    context: RefContext,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Rename {
    #[serde(flatten)]
    at: DocPos,
    new_name: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct DocRange {
    text_document: DocUri,
    range: Range,
}

#[derive(Deserialize)]
struct Query {
    query: String,
}

pub fn request(server: &mut Server, request: Request) -> Response {
    let id = request.id.clone();
    let server = &*server;
    let result: Result<Value, Response> = match request.method.as_str() {
        "textDocument/hover" => params(&request).map(|p: DocPos| at(server, &p, hover)),
        "textDocument/definition" => params(&request).map(|p: DocPos| at(server, &p, definition)),
        "textDocument/references" => params(&request).map(|p: References| {
            let include = p.context.include_declaration;
            at(server, &p.at, |c, pos| references(c, pos, include))
        }),
        "textDocument/completion" => params(&request).map(|p: DocPos| at(server, &p, completion)),
        "textDocument/signatureHelp" => params(&request).map(|p: DocPos| at(server, &p, signature_help)),
        "textDocument/prepareRename" => {
            params(&request).and_then(|p: DocPos| at(server, &p, prepare_rename).map_err(|e| failed(&request, e)))
        }
        "textDocument/rename" => params(&request).and_then(|p: Rename| {
            let new = p.new_name.clone();
            at(server, &p.at, |c, pos| rename(c, pos, &new)).map_err(|e| failed(&request, e))
        }),
        "textDocument/codeAction" => params(&request).map(|p: DocRange| code_actions(server, &p)),
        "textDocument/documentSymbol" => params(&request).map(|p: Doc| whole(server, &p.text_document.uri, document_symbols)),
        "textDocument/foldingRange" => params(&request).map(|p: Doc| whole(server, &p.text_document.uri, folding_ranges)),
        "textDocument/semanticTokens/full" => {
            params(&request).map(|p: Doc| whole(server, &p.text_document.uri, |c| semantic_tokens(c, None)))
        }
        "textDocument/semanticTokens/range" => {
            params(&request).map(|p: DocRange| whole(server, &p.text_document.uri, |c| semantic_tokens(c, Some(p.range))))
        }
        "textDocument/inlayHint" => {
            params(&request).map(|p: DocRange| whole(server, &p.text_document.uri, |c| inlay_hints(c, p.range)))
        }
        "textDocument/formatting" => {
            params(&request).and_then(|p: Doc| formatting(server, &p.text_document.uri).map_err(|e| failed(&request, e)))
        }
        "workspace/symbol" => params(&request).map(|p: Query| workspace_symbols(server, &p.query)),
        _ => Err(Response::new_err(id.clone(), ErrorCode::MethodNotFound as i32, format!("unknown method {}", request.method))),
    };
    match result {
        Ok(value) => Response::ok(id, value),
        Err(response) => response,
    }
}

/// Sets a field of a JSON object.
fn set(object: &mut Value, key: &str, value: Value) {
    if let Some(map) = object.as_object_mut() {
        map.insert(key.to_string(), value);
    }
}

fn failed(request: &Request, message: String) -> Response {
    Response::new_err(request.id.clone(), ErrorCode::RequestFailed as i32, message)
}

/// What a handler has in hand: the project's view, the document's logical path and text, and
/// how to turn paths into URIs.
pub struct Ctx<'a> {
    world: &'a World<'a>,
    server: &'a Server,
    root: Option<&'a Path>,
    path: &'a str,
    text: &'a str,
}

impl Ctx<'_> {
    fn index(&self) -> LineIndex<'_> {
        LineIndex::new(self.text)
    }

    /// A file's URI: a standard library file in the cache folder (written there, read-only, on
    /// first use), a loose document its own, a project file under its root.
    fn uri(&self, path: &str) -> Option<String> {
        if let Some(rest) = path.strip_prefix(oc_compiler::stdlib::PREFIX) {
            write_std(self.server);
            return path_to_uri(&self.server.std_dir.join(rest)).map(|u| u.as_str().to_string());
        }
        let loose = self.world.snapshot.as_ref().and_then(|s| s.loose.as_ref());
        crate::text::uri_of(loose, self.root?, path)
    }

    /// An LSP location of a byte range of a file.
    fn location(&self, path: &str, start: usize, end: usize) -> Option<Value> {
        let text = self.world.text(path)?;
        let range = LineIndex::new(text).range(start, end);
        Some(json!({"uri": self.uri(path)?, "range": range}))
    }
}

/// Runs `f` on a document's context; `None` when the document is not open or not analysed.
fn with_ctx<T>(server: &Server, uri: &str, f: impl FnOnce(&Ctx<'_>) -> T) -> Option<T> {
    server.with_world(uri, |world, place, path| {
        let root = match place {
            Place::Project { root, .. } => Some(root.as_path()),
            _ => None,
        };
        let text = world.text(path).unwrap_or("");
        f(&Ctx { world, server, root, path, text })
    })
}

/// What a request about a document that is not open gets.
trait Missing {
    fn missing() -> Self;
}

impl Missing for Value {
    fn missing() -> Value {
        Value::Null
    }
}

impl Missing for Result<Value, String> {
    fn missing() -> Self {
        Err("the document is not open, or not part of a project".to_string())
    }
}

/// A request at a position: `f` gets the context and the byte offset.
fn at<T: Missing>(server: &Server, p: &DocPos, f: impl FnOnce(&Ctx<'_>, FilePosition<'_>) -> T) -> T {
    with_ctx(server, &p.text_document.uri, |c| {
        let offset = c.index().offset(p.position);
        f(c, FilePosition { path: c.path, offset })
    })
    .unwrap_or_else(T::missing)
}

/// A request about a whole document.
fn whole<T: Missing>(server: &Server, uri: &str, f: impl FnOnce(&Ctx<'_>) -> T) -> T {
    with_ctx(server, uri, f).unwrap_or_else(T::missing)
}

fn hover(c: &Ctx<'_>, pos: FilePosition<'_>) -> Value {
    match oc_ide::navigate::hover(c.world, pos) {
        Some(h) => json!({
            "contents": {"kind": "markdown", "value": h.markdown},
            "range": c.index().range(h.start, h.end),
        }),
        None => Value::Null,
    }
}

fn definition(c: &Ctx<'_>, pos: FilePosition<'_>) -> Value {
    oc_ide::navigate::definition(c.world, pos).and_then(|r| c.location(&r.path, r.start, r.end)).unwrap_or(Value::Null)
}

fn references(c: &Ctx<'_>, pos: FilePosition<'_>, include_declaration: bool) -> Value {
    match oc_ide::navigate::references(c.world, pos, include_declaration) {
        Some(found) => Value::Array(found.iter().filter_map(|r| c.location(&r.path, r.start, r.end)).collect()),
        None => Value::Null,
    }
}

fn prepare_rename(c: &Ctx<'_>, pos: FilePosition<'_>) -> Result<Value, String> {
    let (start, end, _) = oc_ide::navigate::prepare_rename(c.world, pos).map_err(|e| e.to_string())?;
    Ok(json!(c.index().range(start, end)))
}

fn rename(c: &Ctx<'_>, pos: FilePosition<'_>, new_name: &str) -> Result<Value, String> {
    // Not before every file of the project was read: the uses in files not read yet would keep
    // the old name (a review renamed a tag right after opening its file, and the file that used
    // it was left broken).
    // (Its own refusals first: a name of the standard library is read-only, not waited for.)
    oc_ide::navigate::prepare_rename(c.world, pos).map_err(|e| e.to_string())?;
    let read = c.world.snapshot.as_ref().map_or((0, 1), |s| s.read);
    if read.0 < read.1 {
        return Err(format!(
            "the project is still being read ({} of {} files): rename once it is, in a moment, so every use is renamed",
            read.0, read.1
        ));
    }
    let edits = oc_ide::navigate::rename(c.world, pos, new_name).map_err(|e| e.to_string())?;
    let mut changes = serde_json::Map::new();
    for (path, edits) in edits {
        let text = c.world.text(&path).ok_or("a file to edit is not readable")?;
        let index = LineIndex::new(text);
        let uri = c.uri(&path).ok_or("a file to edit has no address")?;
        let list: Vec<Value> = edits.iter().map(|e| json!({"range": index.range(e.start, e.end), "newText": e.text})).collect();
        changes.insert(uri, Value::Array(list));
    }
    Ok(json!({ "changes": changes }))
}

/// LSP's completion item kind of a completion.
fn completion_kind(kind: CompletionKind) -> u8 {
    match kind {
        CompletionKind::Keyword => 14,
        CompletionKind::Param => 6,
        CompletionKind::Region => 12,
        CompletionKind::Symbol => 21,
        CompletionKind::File => 17,
        CompletionKind::Def(k) => match k {
            DefKind::Class => 7,
            DefKind::Item => 22,
            DefKind::Tag => 8,
            DefKind::Status => 23,
            DefKind::Terrain | DefKind::Movement | DefKind::WeaponType | DefKind::ScaleMember => 20,
            DefKind::Stat | DefKind::Scale | DefKind::Base | DefKind::Resource => 5,
            DefKind::Param => 6,
            _ => 9,
        },
    }
}

fn completion(c: &Ctx<'_>, pos: FilePosition<'_>) -> Value {
    let items: Vec<Value> = oc_ide::complete::completions(c.world, pos)
        .into_iter()
        .map(|item| {
            let mut v = json!({"label": item.label, "kind": completion_kind(item.kind)});
            if let Some(detail) = item.detail {
                set(&mut v, "detail", json!(detail));
            }
            if let Some(edit) = item.edit {
                set(&mut v, "textEdit", json!({"range": c.index().range(edit.start, edit.end), "newText": edit.text}));
            }
            v
        })
        .collect();
    if items.is_empty() {
        Value::Null
    } else {
        Value::Array(items)
    }
}

fn signature_help(c: &Ctx<'_>, pos: FilePosition<'_>) -> Value {
    let Some(s) = oc_ide::signature::signature_help(c.world, pos) else { return Value::Null };
    let utf16 = |byte: usize| s.label.get(..byte).map_or(0, |t| t.encode_utf16().count());
    let parameters: Vec<Value> = s.params.iter().map(|(a, b)| json!({"label": [utf16(*a), utf16(*b)]})).collect();
    let mut signature = json!({"label": s.label, "parameters": parameters, "activeParameter": s.active});
    if let Some(doc) = s.doc {
        set(&mut signature, "documentation", json!(doc));
    }
    json!({"signatures": [signature], "activeSignature": 0, "activeParameter": s.active})
}

fn inlay_hints(c: &Ctx<'_>, range: Range) -> Value {
    let index = c.index();
    let (start, end) = (index.offset(range.start), index.offset(range.end));
    let hints: Vec<Value> = oc_ide::signature::inlay_hints(c.world, c.path, start, end)
        .into_iter()
        .map(|h| json!({"position": index.position(h.offset), "label": h.label, "kind": 2, "paddingRight": true}))
        .collect();
    Value::Array(hints)
}

fn semantic_tokens(c: &Ctx<'_>, range: Option<Range>) -> Value {
    let index = c.index();
    let bounds = range.map(|r| (index.offset(r.start), index.offset(r.end)));
    let mut data: Vec<u32> = Vec::new();
    let (mut line, mut column) = (0u32, 0u32);
    for t in oc_ide::tokens::semantic_tokens(c.world, c.path) {
        if bounds.is_some_and(|(s, e)| t.end < s || t.start > e) {
            continue;
        }
        let start = index.position(t.start);
        let end = index.position(t.end);
        if end.line != start.line {
            continue;
        }
        let delta_line = start.line - line;
        let delta_start = if delta_line == 0 { start.character - column } else { start.character };
        data.extend([delta_line, delta_start, end.character - start.character, t.kind as u32, t.modifiers]);
        (line, column) = (start.line, start.character);
    }
    json!({ "data": data })
}

/// LSP's symbol kind of a symbol.
fn symbol_kind(kind: SymbolKind) -> u8 {
    match kind {
        SymbolKind::Region => 3,
        SymbolKind::Legend => 14,
        SymbolKind::Side => 3,
        SymbolKind::Def(k) => def_symbol_kind(k),
    }
}

fn def_symbol_kind(kind: DefKind) -> u8 {
    match kind {
        DefKind::Class => 5,
        DefKind::Item => 23,
        DefKind::Tag => 11,
        DefKind::Status => 24,
        DefKind::Terrain | DefKind::Movement | DefKind::WeaponType | DefKind::ScaleMember => 22,
        DefKind::Ruleset | DefKind::Scenario | DefKind::Army => 2,
        DefKind::Table | DefKind::Dice | DefKind::Formula | DefKind::Reaction => 12,
        DefKind::Stat | DefKind::Scale | DefKind::Base | DefKind::Resource => 8,
        DefKind::Param | DefKind::Unit => 13,
    }
}

fn document_symbols(c: &Ctx<'_>) -> Value {
    fn convert(index: &LineIndex<'_>, s: oc_ide::outline::Symbol) -> Value {
        let mut v = json!({
            "name": s.name,
            "detail": s.detail,
            "kind": symbol_kind(s.kind),
            "range": index.range(s.range.0, s.range.1),
            "selectionRange": index.range(s.selection.0, s.selection.1),
        });
        if !s.children.is_empty() {
            set(&mut v, "children", Value::Array(s.children.into_iter().map(|c| convert(index, c)).collect()));
        }
        v
    }
    let index = c.index();
    match oc_ide::outline::document_symbols(c.world, c.path) {
        Some(symbols) => Value::Array(symbols.into_iter().map(|s| convert(&index, s)).collect()),
        None => Value::Null,
    }
}

fn folding_ranges(c: &Ctx<'_>) -> Value {
    let index = c.index();
    let folds: Vec<Value> = oc_ide::outline::folding_ranges(c.world, c.path)
        .into_iter()
        .map(|f| {
            let (start, end) = (index.position(f.start).line, index.position(f.end).line);
            // A block folds to the line before its closing brace; comments and imports whole.
            let end = if f.kind == FoldKind::Region && end > start + 1 { end - 1 } else { end };
            let kind = match f.kind {
                FoldKind::Region => "region",
                FoldKind::Comment => "comment",
                FoldKind::Imports => "imports",
            };
            json!({"startLine": start, "endLine": end, "kind": kind})
        })
        .collect();
    Value::Array(folds)
}

/// The project's definitions and the standard library's matching a query: every project the
/// open documents belong to (a standard library document's view when none is).
fn workspace_symbols(server: &Server, query: &str) -> Value {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    let uris: Vec<String> = server.docs.keys().cloned().collect();
    let mut roots = std::collections::BTreeSet::new();
    for uri in uris {
        let root = match server.docs.get(&uri).map(|d| &d.place) {
            Some(Place::Project { root, .. }) => Some(root.clone()),
            _ => None,
        };
        if !roots.insert(root) {
            continue;
        }
        with_ctx(server, &uri, |c| {
            for s in oc_ide::outline::workspace_symbols(c.world, query, 256) {
                let Some(location) = c.location(&s.path, s.start, s.end) else { continue };
                if !seen.insert((location.to_string(), s.name.clone())) {
                    continue;
                }
                let mut v = json!({"name": s.name, "kind": def_symbol_kind(s.kind), "location": location});
                if let Some(container) = s.container {
                    set(&mut v, "containerName", json!(container));
                }
                out.push(v);
            }
        });
    }
    Value::Array(out)
}

fn code_actions(server: &Server, p: &DocRange) -> Value {
    let uri = &p.text_document.uri;
    let Some(doc) = server.docs.get(uri) else { return Value::Null };
    let Place::Project { logical, .. } = &doc.place else { return Value::Null };
    let published = server.shared.published(uri);
    let text = &doc.source.text;
    let index = LineIndex::new(text);
    let overlaps = |r: &Range| r.start <= p.range.end && p.range.start <= r.end;
    let mut out = Vec::new();
    // Diagnostics of an older text: their ranges no longer point where they did (a fix made
    // from them would edit other text: a review's quick fix after three lines were added
    // replaced part of another unit's line). The check of this text publishes its own.
    let current = |i: &&crate::checker::Published| i.version.is_none_or(|v| v == doc.version);
    for item in published.iter().filter(|i| overlaps(&i.diagnostic.range)).filter(current) {
        let Some(suggestion) = &item.suggestion else { continue };
        let d = &item.diagnostic;
        let old = text.get(index.offset(d.range.start)..index.offset(d.range.end)).unwrap_or("");
        let mut new = suggestion.clone();
        if d.code == Some(lsp_types::NumberOrString::String(oc_compiler::codes::IMPORT_NOT_FOUND.to_string())) {
            new = oc_ide::complete::relative(logical, suggestion);
        }
        if old.starts_with('"') {
            new = format!("\"{new}\"");
        }
        let mut changes = BTreeMap::new();
        changes.insert(uri.clone(), json!([{"range": d.range, "newText": new}]));
        out.push(json!({
            "title": format!("Replace with `{new}`"),
            "kind": "quickfix",
            "diagnostics": [d],
            "edit": {"changes": changes},
            "isPreferred": true,
        }));
    }
    Value::Array(out)
}

fn formatting(server: &Server, uri: &str) -> Result<Value, String> {
    let doc = server.docs.get(uri).ok_or("the document is not open")?;
    let logical = match &doc.place {
        Place::Project { logical, .. } if logical.ends_with(".oc") => logical,
        _ => return Ok(Value::Null),
    };
    let text = &doc.source.text;
    // The document's line endings and byte-order mark are kept, as `oc fmt` keeps a file's.
    let (endings, unix) = oc_fmt::Endings::of(text);
    match oc_fmt::format(oc_diag::FileId(0), &unix).map(|f| endings.restore(f)) {
        Ok(formatted) if formatted == *text => Ok(json!([])),
        Ok(formatted) => Ok(json!([{"range": LineIndex::new(text).range(0, text.len()), "newText": formatted}])),
        Err(oc_fmt::Error::Syntax(_)) => Err(format!("{logical} has syntax errors: fix them, then format")),
        Err(oc_fmt::Error::Changed(why)) => Err(format!("not formatted: {why}")),
    }
}

/// Writes the standard library's sources to the cache folder, read-only (once per run; a
/// folder already holding them is left alone).
fn write_std(server: &Server) {
    if server.std_written.replace(true) {
        return;
    }
    for (path, text) in oc_compiler::stdlib::FILES {
        let target = server.std_dir.join(path);
        if std::fs::read_to_string(&target).is_ok_and(|t| t == *text) {
            continue;
        }
        // A failure leaves the file as it was: go to definition then opens what is there.
        let _ = oc_project::output::write_read_only(&target, text.as_bytes());
    }
}
