//! `oc lsp`: the language server. Documents the editor has open are the truth (an overlay over
//! the disk in each project's [`oc_project::Session`], the same session `oc check` and `oc watch`
//! run); diagnostics are published on open and on every change; hover, go to definition, find
//! references, completion, quick fixes for did-you-mean diagnostics, document symbols,
//! formatting (`oc fmt`'s) and rename answer from the same analysis.
//!
//! **Boundary:** the only crate that knows LSP and JSON-RPC (`lsp-server`, `lsp-types`). The
//! analysis works in byte offsets and logical paths (`analysis`, `complete`, `maps`); `text`
//! converts to LSP positions (UTF-16) and URIs.
//! **Invariant:** the server never dies on bad input: every handler runs under `catch_unwind`,
//! and a request that panics is answered with an error. Nothing outside a project root is read
//! (reads go through the session's confined host); the standard library is written, read-only,
//! to a cache folder so the editor can show it.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]
// `lsp_types::WorkspaceEdit` is keyed by `Uri`, which clippy thinks mutable; its hash is its text.
#![allow(clippy::mutable_key_type)]

pub mod analysis;
pub mod complete;
mod handlers;
pub mod maps;
pub mod server;
pub mod text;

use lsp_server::Connection;
use serde_json::json;

/// What the server can do, as sent in the `initialize` answer.
pub fn capabilities() -> serde_json::Value {
    json!({
        "positionEncoding": "utf-16",
        "textDocumentSync": { "openClose": true, "change": 1 },
        "hoverProvider": true,
        "definitionProvider": true,
        "referencesProvider": true,
        "completionProvider": { "triggerCharacters": ["\"", ":", "(", " "] },
        "codeActionProvider": { "codeActionKinds": ["quickfix"] },
        "documentFormattingProvider": true,
        "documentSymbolProvider": true,
        "renameProvider": { "prepareProvider": true },
    })
}

/// Answers the handshake, then serves `connection` until `exit` (or the end of input).
pub fn serve(connection: &Connection) -> Result<(), String> {
    let init = json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "oc", "version": env!("CARGO_PKG_VERSION") },
    });
    let (id, _params) = connection.initialize_start().map_err(|e| e.to_string())?;
    connection.initialize_finish(id, init).map_err(|e| e.to_string())?;
    server::main_loop(connection)
}

/// `oc lsp`: serves on standard input and output.
pub fn run_stdio() -> Result<(), String> {
    let (connection, io_threads) = Connection::stdio();
    let result = serve(&connection);
    drop(connection);
    io_threads.join().map_err(|e| e.to_string())?;
    result
}
