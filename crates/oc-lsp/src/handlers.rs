//! Notifications and requests, translated between LSP and the analysis (byte offsets and
//! logical paths): documents, hover, definition, references, completion, quick fixes,
//! formatting, document symbols and rename.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use lsp_types::*;
use oc_compiler::Workspace;
use oc_diag::Span;
use oc_project::Session;
use oc_syntax::ast::Item;

use crate::analysis::{self, Def, DefKind};
use crate::complete::{self, Candidate};
use crate::jsonrpc::{ErrorCode, Notification, Request, Response};
use crate::maps::{self, MapThing};
use crate::server::{params, Place, Server};
use crate::text::{path_to_uri, LineIndex};

/// A text document as `didOpen` names it (the URI kept as text: a URI `lsp-types` would refuse,
/// such as one with bad escapes, still names a document to check).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct OpenedDocument {
    uri: String,
    #[serde(default)]
    language_id: Option<String>,
    version: i32,
    text: String,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct DidOpen {
    text_document: OpenedDocument,
}

#[derive(serde::Deserialize)]
struct DocumentId {
    uri: String,
    #[serde(default)]
    version: Option<i32>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct DidChange {
    text_document: DocumentId,
    content_changes: Vec<crate::text::Change>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct DidClose {
    text_document: DocumentId,
}

#[derive(serde::Deserialize)]
struct FileEvent {
    uri: String,
}

#[derive(serde::Deserialize)]
struct DidChangeWatchedFiles {
    changes: Vec<FileEvent>,
}

fn read<P: serde::de::DeserializeOwned>(n: &Notification) -> Result<P, String> {
    serde_json::from_value(n.params.clone()).map_err(|e| format!("{}: invalid params ({e}); it was ignored", n.method))
}

pub fn notification(server: &mut Server, n: Notification) {
    let result = match n.method.as_str() {
        "textDocument/didOpen" => read::<DidOpen>(&n).map(|p| {
            let d = p.text_document;
            server.set_text(&d.uri, d.version, d.text, Some(d.language_id.as_deref().unwrap_or("")));
        }),
        "textDocument/didChange" => match read::<DidChange>(&n) {
            Ok(p) => {
                changed(server, p);
                Ok(())
            }
            Err(why) => {
                // The edit is lost: the document's copy no longer matches, say so on it.
                match n.params.pointer("/textDocument/uri").and_then(|u| u.as_str()) {
                    Some(uri) if server.docs.contains_key(uri) => {
                        server.lost_sync(uri, why);
                        Ok(())
                    }
                    _ => Err(why),
                }
            }
        },
        "textDocument/didClose" => read::<DidClose>(&n).map(|p| server.close(&p.text_document.uri)),
        "workspace/didChangeWatchedFiles" => read::<DidChangeWatchedFiles>(&n).map(|p| {
            let uris: Vec<String> = p.changes.into_iter().map(|c| c.uri).collect();
            server.disk_changed(&uris);
        }),
        _ => Ok(()),
    };
    if let Err(why) = result {
        server.log_at(1, &format!("oc lsp: {why}"));
    }
}

/// `didChange`: the edits applied in order, all or none. An edit that cannot be applied (a
/// reversed range, a line past the end) keeps the text as it was and marks the document out of
/// sync, which the editor is told; the whole text sent again brings it back.
fn changed(server: &mut Server, p: DidChange) {
    let uri = p.text_document.uri;
    let Some(doc) = server.docs.get(&uri) else {
        // Not open: only a change that gives the whole text can be taken.
        match p.content_changes.iter().rposition(|c| c.range.is_none()) {
            Some(last_full) => match crate::text::apply_changes("", p.content_changes.get(last_full..).unwrap_or_default()) {
                Ok(text) => server.set_text(&uri, p.text_document.version.unwrap_or(0), text, None),
                Err(why) => server.log_at(1, &format!("oc lsp: an edit to {uri}, which is not open, was ignored: {why}")),
            },
            None => server.log_at(1, &format!("oc lsp: an edit to {uri}, which is not open, was ignored")),
        }
        return;
    };
    let version = p.text_document.version.unwrap_or(doc.version);
    let changes = p.content_changes;
    // Out of sync, edits are relative to a text the server does not have: only a whole text helps.
    let (base, from) = match (&doc.out_of_sync, changes.iter().rposition(|c| c.range.is_none())) {
        (Some(_), None) => {
            let why = "an edit came while oc's copy was out of sync".to_string();
            if let Some(doc) = server.docs.get_mut(&uri) {
                doc.version = version;
            }
            server.log_at(2, &format!("oc lsp: {why}: it was ignored ({uri})"));
            return;
        }
        (_, Some(last_full)) => ("", last_full),
        (None, None) => (doc.text.as_str(), 0),
    };
    match crate::text::apply_changes(base, changes.get(from..).unwrap_or_default()) {
        Ok(text) => server.set_text(&uri, version, text, None),
        Err(why) => {
            if let Some(doc) = server.docs.get_mut(&uri) {
                doc.version = version;
            }
            server.lost_sync(&uri, why);
        }
    }
}

pub fn request(server: &mut Server, request: Request) -> Response {
    let id = request.id.clone();
    let result: Result<serde_json::Value, Response> = match request.method.as_str() {
        "textDocument/hover" => params(&request).map(|p| json(hover(server, p))),
        "textDocument/definition" => params(&request).map(|p| json(definition(server, p))),
        "textDocument/references" => params(&request).map(|p| json(references(server, p))),
        "textDocument/completion" => params(&request).map(|p| json(completion(server, p))),
        "textDocument/codeAction" => params(&request).map(|p| json(code_actions(server, p))),
        "textDocument/documentSymbol" => params(&request).map(|p| json(document_symbols(server, p))),
        "textDocument/formatting" => {
            params(&request).and_then(|p| formatting(server, p).map(json).map_err(|e| failed(&request, e)))
        }
        "textDocument/prepareRename" => {
            params(&request).and_then(|p| prepare_rename(server, p).map(json).map_err(|e| failed(&request, e)))
        }
        "textDocument/rename" => params(&request).and_then(|p| rename(server, p).map(json).map_err(|e| failed(&request, e))),
        _ => Err(Response::new_err(id.clone(), ErrorCode::MethodNotFound as i32, format!("unknown method {}", request.method))),
    };
    match result {
        Ok(value) => Response::ok(id, value),
        Err(response) => response,
    }
}

fn json(value: impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}

fn failed(request: &Request, message: String) -> Response {
    Response::new_err(request.id.clone(), ErrorCode::RequestFailed as i32, message)
}

/// One open document as the analysis sees it.
struct View<'a> {
    text: &'a str,
    logical: &'a str,
    ws: &'a Workspace,
    scope: Vec<&'a str>,
    session: Option<&'a Session>,
    root: Option<&'a Path>,
}

impl View<'_> {
    fn is_map(&self) -> bool {
        oc_project::discover::is_map(self.logical)
    }

    fn ast(&self) -> Option<&oc_syntax::ast::SourceFile> {
        let file = self.ws.file(self.ws.id_of(self.logical)?)?;
        // Only when the tree is of this very text (it is after a check).
        (file.text == self.text).then_some(file.ast())
    }

    fn defs(&self) -> Vec<Def> {
        analysis::scope_defs(self.ws, &self.scope)
    }

    fn find(&self, name: &str) -> Option<Def> {
        self.defs().into_iter().find(|d| d.name == name)
    }

    /// The text of another file of the project (an open buffer, or what the last check read).
    fn read(&self, logical: &str) -> Option<String> {
        let session = self.session?;
        if let Some(t) = session.overlay(logical) {
            return Some(t.to_string());
        }
        let id = self.ws.id_of(logical)?;
        Some(self.ws.file(id)?.text.clone())
    }
}

fn view<'a>(server: &'a Server, uri: &Uri) -> Option<View<'a>> {
    let doc = server.docs.get(uri.as_str())?;
    match &doc.place {
        Place::Project { root, logical, .. } => {
            let state = server.projects.get(root)?;
            let session = &state.session;
            let scope = session.scope(logical).unwrap_or_else(|| session.std_files().iter().map(String::as_str).collect());
            Some(View { text: &doc.text, logical, ws: &session.workspace, scope, session: Some(session), root: Some(root) })
        }
        Place::Std { logical } => {
            let ws = &server.std_workspace;
            let scope = ws.files().map(|(_, f)| f.path.as_str()).collect();
            Some(View { text: &doc.text, logical, ws, scope, session: None, root: None })
        }
        Place::Other => None,
    }
}

/// The location of a span of a workspace file: a project file under its root, a standard
/// library file in the cache folder (written there, read-only, on first use).
fn location(server: &Server, root: Option<&Path>, ws: &Workspace, span: Span) -> Option<Location> {
    let file = ws.file(span.file)?;
    located(server, root, ws, span, &LineIndex::new(&file.text))
}

/// [`location`] with the file's line index in hand (many spans of one file: its uses).
fn located(server: &Server, root: Option<&Path>, ws: &Workspace, span: Span, index: &LineIndex<'_>) -> Option<Location> {
    let file = ws.file(span.file)?;
    let range = index.range(span.start as usize, span.end as usize);
    let path = match file.path.strip_prefix(oc_compiler::stdlib::PREFIX) {
        Some(rest) => {
            write_std(server);
            server.std_dir.join(rest)
        }
        None => {
            let uri = server.uri_of(root?, &file.path)?;
            return Some(Location::new(uri.parse().ok()?, range));
        }
    };
    Some(Location::new(path_to_uri(&path)?, range))
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
        if let Some(parent) = target.parent() {
            let _ = std::fs::create_dir_all(parent);
        }
        if let Ok(meta) = std::fs::metadata(&target) {
            let mut perms = meta.permissions();
            #[allow(clippy::permissions_set_readonly_false)]
            perms.set_readonly(false);
            let _ = std::fs::set_permissions(&target, perms);
        }
        if std::fs::write(&target, text).is_ok() {
            if let Ok(meta) = std::fs::metadata(&target) {
                let mut perms = meta.permissions();
                perms.set_readonly(true);
                let _ = std::fs::set_permissions(&target, perms);
            }
        }
    }
}

fn doc_offset(server: &Server, uri: &Uri, position: Position) -> Option<usize> {
    let doc = server.docs.get(uri.as_str())?;
    Some(LineIndex::new(&doc.text).offset(position))
}

/// The map a scenario around `offset` names, as (logical path, text).
fn scenario_map(v: &View, offset: usize) -> Option<(String, String)> {
    let Some(Item::Scenario(s)) = analysis::item_at(v.ast()?, offset) else { return None };
    let rel = &s.maps.first()?.value;
    let dir = Path::new(v.logical).parent().map(|p| p.to_string_lossy().into_owned()).unwrap_or_default();
    let joined = if dir.is_empty() { rel.clone() } else { format!("{dir}/{rel}") };
    let logical = oc_compiler::resolve_logical(&joined).ok()?;
    let text = v.read(&logical)?;
    Some((logical, text))
}

fn markdown(value: String, range: Range) -> Hover {
    Hover { contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value }), range: Some(range) }
}

fn hover(server: &Server, p: HoverParams) -> Option<Hover> {
    let uri = &p.text_document_position_params.text_document.uri;
    let offset = doc_offset(server, uri, p.text_document_position_params.position)?;
    let v = view(server, uri)?;
    let index = LineIndex::new(v.text);
    if v.is_map() {
        let rules = v.session.and_then(|s| s.rules(v.logical));
        let map = maps::parse(v.text, rules)?;
        let thing = maps::thing_at(&map, offset)?;
        let span = match &thing {
            MapThing::Symbol { span, .. } | MapThing::TerrainName { span, .. } => *span,
            MapThing::Region { span, .. } | MapThing::Item { span, .. } => *span,
        };
        let text = maps::hover(&map, rules, &thing)?;
        return Some(markdown(text, index.range(span.start as usize, span.end as usize)));
    }
    if let Some((start, end, value)) = analysis::string_at(v.text, offset) {
        let (_, map_text) = scenario_map(&v, offset)?;
        let map = maps::parse(&map_text, None)?;
        let region = map.region(value)?;
        return Some(markdown(maps::region_summary(region), index.range(start, end)));
    }
    let (start, end, word) = analysis::word_at(v.text, offset)?;
    let range = index.range(start, end);
    if let Some(Item::Tag(tag)) = v.ast().and_then(|a| analysis::item_at(a, offset)) {
        if let Some(param) = tag.params.iter().find(|p| p.name.value == word) {
            return Some(markdown(format!("parameter `{}: {}` of tag `{}`", word, param.ty.value, tag.name.value), range));
        }
    }
    let def = v.find(word)?;
    Some(markdown(analysis::hover_text(v.ws, &def), range))
}

fn definition(server: &Server, p: GotoDefinitionParams) -> Option<GotoDefinitionResponse> {
    let uri = &p.text_document_position_params.text_document.uri;
    let offset = doc_offset(server, uri, p.text_document_position_params.position)?;
    let v = view(server, uri)?;
    let target = if v.is_map() {
        let rules = v.session.and_then(|s| s.rules(v.logical));
        let map = maps::parse(v.text, rules)?;
        match maps::thing_at(&map, offset)? {
            MapThing::Symbol { terrain, .. } => v.find(&terrain?)?,
            MapThing::TerrainName { name, .. } => {
                let canonical = rules.and_then(|r| oc_atlas::find_terrain(r, &name)).map_or(name, |t| t.name.clone());
                v.find(&canonical)?
            }
            MapThing::Item { name, .. } => v.find(&name)?,
            MapThing::Region { .. } => return None,
        }
    } else if let Some((_, _, value)) = analysis::string_at(v.text, offset) {
        let (logical, map_text) = scenario_map(&v, offset)?;
        let map = maps::parse(&map_text, None)?;
        let index = LineIndex::new(&map_text);
        let range = match map.region(value) {
            Some(r) => index.range(r.name_span.start as usize, r.name_span.end as usize),
            None => Range::default(),
        };
        let uri = server.uri_of(v.root?, &logical)?.parse().ok()?;
        return Some(GotoDefinitionResponse::Scalar(Location::new(uri, range)));
    } else {
        let (_, _, word) = analysis::word_at(v.text, offset)?;
        v.find(word)?
    };
    location(server, v.root, v.ws, target.name_span).map(GotoDefinitionResponse::Scalar)
}

/// Every use of the definition at a position, across the compilations that see it.
fn uses(server: &Server, uri: &Uri, position: Position) -> Option<(Def, Vec<Location>)> {
    let offset = doc_offset(server, uri, position)?;
    let v = view(server, uri)?;
    let (_, _, word) = analysis::word_at(v.text, offset)?;
    let def = v.find(word)?;
    let mut files: BTreeSet<&str> = v.scope.iter().copied().collect();
    let mut maps_seeing: Vec<&str> = Vec::new();
    if let (Some(session), Some(root)) = (v.session, v.root) {
        if let Some(state) = server.projects.get(root) {
            for r in state.project.files.iter().chain(&state.project.maps) {
                let Some(scope) = session.scope(r) else { continue };
                let same = analysis::scope_defs(v.ws, &scope).iter().any(|d| d.name_span == def.name_span);
                if same {
                    files.extend(scope);
                    if oc_project::discover::is_map(r) {
                        maps_seeing.push(r);
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    // Maps name items in chests and terrains in their legend, in strings.
    for path in maps_seeing {
        let (Some(session), Some(root)) = (v.session, v.root) else { break };
        let Some(text) = session.map_text(path) else { continue };
        let Some(map) = maps::parse(text, None) else { continue };
        let spans: Vec<Span> = match def.kind {
            DefKind::Item => map.chests.iter().filter(|c| c.item == def.name).map(|c| c.item_span).collect(),
            DefKind::Terrain => map.legend.values().filter(|(n, _)| *n == def.name).map(|(_, s)| *s).collect(),
            _ => Vec::new(),
        };
        let index = LineIndex::new(text);
        let Some(uri) = server.uri_of(root, path).and_then(|u| u.parse::<Uri>().ok()) else { continue };
        for s in spans {
            // Inside the quotes.
            out.push(Location::new(uri.clone(), index.range(s.start as usize + 1, (s.end as usize).saturating_sub(1))));
        }
    }
    for path in files {
        let Some(file) = v.ws.id_of(path).and_then(|id| v.ws.file(id).map(|f| (id, f))) else { continue };
        let (id, f) = file;
        if oc_project::discover::is_map(path) {
            continue;
        }
        let index = LineIndex::new(&f.text);
        for (start, end) in analysis::uses_in(&f.text, &def.name) {
            if let Some(l) = located(server, v.root, v.ws, Span::new(id, start, end), &index) {
                out.push(l);
            }
        }
    }
    Some((def, out))
}

fn references(server: &Server, p: ReferenceParams) -> Option<Vec<Location>> {
    let tdp = &p.text_document_position;
    let (def, mut found) = uses(server, &tdp.text_document.uri, tdp.position)?;
    if !p.context.include_declaration {
        let v = view(server, &tdp.text_document.uri)?;
        let decl = location(server, v.root, v.ws, def.name_span);
        found.retain(|l| Some(l) != decl.as_ref());
    }
    Some(found)
}

fn renamable(server: &Server, uri: &Uri, position: Position) -> Result<(Def, Range), String> {
    let offset = doc_offset(server, uri, position).ok_or("the document is not open")?;
    let v = view(server, uri).ok_or("the document is not part of a project")?;
    let (start, end, word) = analysis::word_at(v.text, offset).ok_or("no name here")?;
    let def = v.find(word).ok_or_else(|| format!("`{word}` is not a definition of this project"))?;
    if !matches!(def.kind, DefKind::Class | DefKind::Item | DefKind::Tag) {
        return Err(format!("only classes, items and tags can be renamed; `{word}` is a {}", def.kind.word()));
    }
    if v.ws.file(def.span.file).is_some_and(|f| f.path.starts_with(oc_compiler::stdlib::PREFIX)) {
        return Err(format!("`{word}` is defined in the standard library, which is read-only"));
    }
    Ok((def, LineIndex::new(v.text).range(start, end)))
}

fn prepare_rename(server: &Server, p: TextDocumentPositionParams) -> Result<Option<PrepareRenameResponse>, String> {
    let (_, range) = renamable(server, &p.text_document.uri, p.position)?;
    Ok(Some(PrepareRenameResponse::Range(range)))
}

fn rename(server: &Server, p: RenameParams) -> Result<Option<WorkspaceEdit>, String> {
    let tdp = &p.text_document_position;
    let (def, _) = renamable(server, &tdp.text_document.uri, tdp.position)?;
    let new = p.new_name.as_str();
    let mut chars = new.chars();
    let valid =
        chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_') && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("`{new}` is not a name: letters, digits and `_`, not starting with a digit"));
    }
    let v = view(server, &tdp.text_document.uri).ok_or("the document is not part of a project")?;
    if v.find(new).is_some() {
        return Err(format!("`{new}` is already defined"));
    }
    let (_, found) = uses(server, &tdp.text_document.uri, tdp.position).ok_or("no uses found")?;
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for l in found {
        changes.entry(l.uri).or_default().push(TextEdit::new(l.range, def.name.replace(&def.name, new)));
    }
    Ok(Some(WorkspaceEdit::new(changes)))
}

fn completion(server: &Server, p: CompletionParams) -> Option<CompletionResponse> {
    let tdp = &p.text_document_position;
    let offset = doc_offset(server, &tdp.text_document.uri, tdp.position)?;
    let v = view(server, &tdp.text_document.uri)?;
    let candidates: Vec<Candidate> = if v.is_map() {
        let map = maps::parse(v.text, v.session.and_then(|s| s.rules(v.logical)))?;
        if !maps::in_rows(&map, offset) {
            return None;
        }
        maps::symbols(&map).into_iter().map(|(symbol, terrain)| Candidate::Symbol { symbol, terrain }).collect()
    } else {
        let ctx = complete::context(v.text, offset);
        if ctx.in_string {
            let (_, map_text) = scenario_map(&v, offset)?;
            let map = maps::parse(&map_text, None)?;
            map.regions.iter().map(|r| Candidate::Region { name: r.name.clone(), kind: r.kind.word().to_string() }).collect()
        } else {
            let params: Vec<(String, String)> = match v.ast().and_then(|a| analysis::item_at(a, offset)) {
                Some(Item::Tag(t)) => t.params.iter().map(|p| (p.name.value.to_string(), p.ty.value.to_string())).collect(),
                _ => Vec::new(),
            };
            complete::candidates(&ctx, &v.defs(), &params)
        }
    };
    let items = candidates
        .into_iter()
        .map(|c| {
            let (label, kind, detail) = match c {
                Candidate::Keyword(k) => (k.to_string(), CompletionItemKind::KEYWORD, None),
                Candidate::Name { name, kind } => (name, item_kind(kind), Some(kind.word().to_string())),
                Candidate::Param { name, ty } => (name, CompletionItemKind::VARIABLE, Some(format!("parameter: {ty}"))),
                Candidate::Region { name, kind } => (name, CompletionItemKind::VALUE, Some(format!("region: {kind}"))),
                Candidate::Symbol { symbol, terrain } => (symbol.to_string(), CompletionItemKind::CONSTANT, Some(terrain)),
            };
            CompletionItem { label, kind: Some(kind), detail, ..CompletionItem::default() }
        })
        .collect();
    Some(CompletionResponse::Array(items))
}

fn item_kind(kind: DefKind) -> CompletionItemKind {
    match kind {
        DefKind::Class => CompletionItemKind::CLASS,
        DefKind::Item => CompletionItemKind::STRUCT,
        DefKind::Tag => CompletionItemKind::INTERFACE,
        DefKind::Status => CompletionItemKind::EVENT,
        DefKind::Terrain | DefKind::Movement | DefKind::WeaponType => CompletionItemKind::ENUM_MEMBER,
        DefKind::Stat | DefKind::Scale => CompletionItemKind::FIELD,
        _ => CompletionItemKind::MODULE,
    }
}

fn code_actions(server: &Server, p: CodeActionParams) -> Option<CodeActionResponse> {
    let uri = &p.text_document.uri;
    let doc = server.docs.get(uri.as_str())?;
    let Place::Project { root, logical, .. } = &doc.place else { return None };
    let state = server.projects.get(root)?;
    let published = state.published.get(uri.as_str())?;
    let index = LineIndex::new(&doc.text);
    let overlaps = |r: &Range| r.start <= p.range.end && p.range.start <= r.end;
    let mut out = Vec::new();
    for item in published.iter().filter(|i| overlaps(&i.diagnostic.range)) {
        let Some(suggestion) = &item.suggestion else { continue };
        let d = &item.diagnostic;
        let old = doc.text.get(index.offset(d.range.start)..index.offset(d.range.end)).unwrap_or("");
        let mut new = suggestion.clone();
        if d.code == Some(NumberOrString::String(oc_compiler::codes::IMPORT_NOT_FOUND.to_string())) {
            new = relative(logical, suggestion);
        }
        if old.starts_with('"') {
            new = format!("\"{new}\"");
        }
        let edit = WorkspaceEdit::new(HashMap::from([(uri.clone(), vec![TextEdit::new(d.range, new.clone())])]));
        out.push(CodeActionOrCommand::CodeAction(CodeAction {
            title: format!("Replace with `{new}`"),
            kind: Some(CodeActionKind::QUICKFIX),
            diagnostics: Some(vec![d.clone()]),
            edit: Some(edit),
            is_preferred: Some(true),
            ..CodeAction::default()
        }));
    }
    Some(out)
}

/// `target` (a logical path) written relative to the folder of `from` (another one).
fn relative(from: &str, target: &str) -> String {
    let from_dir: Vec<&str> = from.split('/').collect::<Vec<_>>().split_last().map(|(_, d)| d.to_vec()).unwrap_or_default();
    let target_parts: Vec<&str> = target.split('/').collect();
    let common = from_dir.iter().zip(&target_parts).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; from_dir.len() - common];
    parts.extend(target_parts.iter().skip(common));
    parts.join("/")
}

fn formatting(server: &Server, p: DocumentFormattingParams) -> Result<Option<Vec<TextEdit>>, String> {
    let doc = server.docs.get(p.text_document.uri.as_str()).ok_or("the document is not open")?;
    let logical = match &doc.place {
        Place::Project { logical, .. } if logical.ends_with(".oc") => logical,
        _ => return Ok(None),
    };
    match oc_fmt::format(oc_diag::FileId(0), &doc.text) {
        Ok(formatted) if formatted == doc.text => Ok(Some(Vec::new())),
        Ok(formatted) => {
            let index = LineIndex::new(&doc.text);
            Ok(Some(vec![TextEdit::new(index.range(0, doc.text.len()), formatted)]))
        }
        Err(oc_fmt::Error::Syntax(_)) => Err(format!("{logical} has syntax errors: fix them, then format")),
        Err(oc_fmt::Error::Changed(why)) => Err(format!("not formatted: {why}")),
    }
}

#[allow(deprecated)]
fn symbol(name: String, detail: &str, kind: SymbolKind, range: Range, selection_range: Range) -> DocumentSymbol {
    DocumentSymbol {
        name,
        detail: Some(detail.to_string()),
        kind,
        tags: None,
        deprecated: None,
        range,
        selection_range,
        children: None,
    }
}

fn document_symbols(server: &Server, p: DocumentSymbolParams) -> Option<DocumentSymbolResponse> {
    let v = view(server, &p.text_document.uri)?;
    let index = LineIndex::new(v.text);
    let range = |s: Span| index.range(s.start as usize, s.end as usize);
    let out: Vec<DocumentSymbol> = if v.is_map() {
        let map = maps::parse(v.text, None)?;
        map.regions
            .iter()
            .map(|r| symbol(r.name.clone(), r.kind.word(), SymbolKind::NAMESPACE, range(r.span), range(r.name_span)))
            .chain(
                map.legend
                    .iter()
                    .map(|(c, (name, span))| symbol(c.to_string(), name, SymbolKind::CONSTANT, range(*span), range(*span))),
            )
            .collect()
    } else {
        analysis::file_defs(v.ast()?)
            .into_iter()
            .map(|d| {
                let kind = match d.kind {
                    DefKind::Class => SymbolKind::CLASS,
                    DefKind::Item => SymbolKind::STRUCT,
                    DefKind::Tag => SymbolKind::INTERFACE,
                    DefKind::Status => SymbolKind::EVENT,
                    DefKind::Terrain | DefKind::Movement | DefKind::WeaponType => SymbolKind::ENUM_MEMBER,
                    DefKind::Ruleset | DefKind::Scenario | DefKind::Army => SymbolKind::MODULE,
                    DefKind::Table | DefKind::Dice => SymbolKind::FUNCTION,
                    DefKind::Stat | DefKind::Scale => SymbolKind::FIELD,
                };
                symbol(d.name, d.kind.word(), kind, range(d.span), range(d.name_span))
            })
            .collect()
    };
    Some(DocumentSymbolResponse::Nested(out))
}

#[cfg(test)]
mod tests {
    use super::relative;

    #[test]
    fn import_paths_relative_to_the_importer() {
        assert_eq!(relative("a/b/x.oc", "a/c/y.oc"), "../c/y.oc");
        assert_eq!(relative("x.oc", "lib/y.oc"), "lib/y.oc");
        assert_eq!(relative("a/x.oc", "a/y.oc"), "y.oc");
        assert_eq!(crate::server::suggestion("did you mean `Swift`? or not"), Some("Swift".to_string()));
        assert_eq!(crate::server::suggestion("define the tag"), None);
    }
}
