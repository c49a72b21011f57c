//! `oc lsp`: the language server. Documents the editor has open are the truth (an overlay over
//! the disk in each project's [`oc_project::Session`], the same session `oc check` and `oc watch`
//! run); diagnostics are published on open and on every change, checked on a thread of their
//! own; hover, go to definition, find references, rename, completion, signature help, inlay
//! hints, semantic tokens, symbols and folding ranges answer from `oc_ide`, quick fixes from
//! did-you-mean diagnostics, formatting from `oc fmt`.
//!
//! **Boundary:** the only crate that knows LSP and JSON-RPC (its own `transport` and `jsonrpc`,
//! and `lsp-types`). It only translates: the analysis (`oc_ide`) works in byte offsets and
//! logical paths; `text` converts to LSP positions (UTF-16) and URIs.
//! **Invariant:** the server never dies on bad input: every handler runs under `catch_unwind`,
//! and a request that panics is answered with an error. Nothing outside a project root is read
//! (reads go through the session's confined host); the standard library is written, read-only,
//! to a cache folder so the editor can show it.
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::string_slice)]
// `lsp_types::WorkspaceEdit` is keyed by `Uri`, which clippy thinks mutable; its hash is its text.
#![allow(clippy::mutable_key_type)]

pub mod checker;
mod handlers;
pub mod jsonrpc;
mod requests;
mod serve;
pub mod server;
pub mod text;
pub mod transport;
pub mod world;

use std::path::PathBuf;

use serde_json::json;

pub use transport::{connect, Connection};

/// What the server can do, as sent in the `initialize` answer.
pub fn capabilities() -> serde_json::Value {
    json!({
        "positionEncoding": "utf-16",
        "textDocumentSync": { "openClose": true, "change": 2 },
        "hoverProvider": true,
        "definitionProvider": true,
        "referencesProvider": true,
        "completionProvider": { "triggerCharacters": ["\"", ":", "(", " ", ",", "/"] },
        "signatureHelpProvider": { "triggerCharacters": ["(", ","], "retriggerCharacters": [","] },
        "inlayHintProvider": true,
        "semanticTokensProvider": {
            "legend": { "tokenTypes": oc_ide::tokens::TYPES, "tokenModifiers": oc_ide::tokens::MODIFIERS },
            "full": true,
            "range": true,
        },
        "workspaceSymbolProvider": true,
        "foldingRangeProvider": true,
        "codeActionProvider": { "codeActionKinds": ["quickfix"] },
        "documentFormattingProvider": true,
        "documentSymbolProvider": true,
        "renameProvider": { "prepareProvider": true },
    })
}

/// The `initialize` answer.
pub fn initialize_result() -> serde_json::Value {
    json!({
        "capabilities": capabilities(),
        "serverInfo": { "name": "oc", "version": env!("CARGO_PKG_VERSION") },
    })
}

/// Where the server keeps what it writes for the editor.
#[derive(Clone, Debug)]
pub struct Config {
    /// Standard library sources are written under it (read-only) for go to definition.
    pub cache_dir: PathBuf,
}

impl Config {
    /// `$XDG_CACHE_HOME/oc`, else `~/.cache/oc`, else the temporary folder's `oc`.
    pub fn from_env() -> Config {
        let base = std::env::var_os("XDG_CACHE_HOME")
            .map(PathBuf::from)
            .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
            .unwrap_or_else(std::env::temp_dir);
        Config { cache_dir: base.join("oc") }
    }
}

/// Serves `connection` (the handshake included) until `exit` or the end of its input; the exit
/// status (see [`serve::main_loop`]).
pub fn serve(connection: &Connection, config: &Config) -> u8 {
    serve::main_loop(connection, config)
}

/// Serves a client speaking on `input` and `output`; returns once all is written.
pub fn serve_io<I, O>(input: I, output: O, config: &Config) -> u8
where
    I: std::io::Read + Send + 'static,
    O: std::io::Write + Send + 'static,
{
    let (connection, io_threads) = connect(input, output);
    let status = serve(&connection, config);
    drop(connection);
    io_threads.join();
    status
}

/// `oc lsp`: serves on standard input and output; the exit status.
pub fn run_stdio() -> Result<u8, String> {
    Ok(serve_io(std::io::stdin(), std::io::stdout(), &Config::from_env()))
}
