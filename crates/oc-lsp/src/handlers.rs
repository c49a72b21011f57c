//! Notifications: documents opened, edited (whole or by ranges, all or nothing) and closed,
//! files changed on disk.

use crate::jsonrpc::Notification;
use crate::server::Server;

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
                        let version = n.params.pointer("/textDocument/version").and_then(|v| v.as_i64());
                        let version = version.and_then(|v| i32::try_from(v).ok()).or(server.docs.get(uri).map(|d| d.version));
                        server.lost_sync(uri, version.unwrap_or(0), why);
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
        (None, None) => (doc.source.text.as_str(), 0),
    };
    match crate::text::apply_changes(base, changes.get(from..).unwrap_or_default()) {
        Ok(text) => server.set_text(&uri, version, text, None),
        Err(why) => server.lost_sync(&uri, version, why),
    }
}
