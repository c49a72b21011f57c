// The oc extension: starts `oc lsp` (the language server built into the oc binary) for `.oc`
// documents (saved or untitled) and `*.map.toml` maps. Plain JavaScript, bundled with its one
// dependency into dist/extension.js by `npm run bundle`. Highlighting needs no server: it comes
// from syntaxes/oc.tmLanguage.json, and the server's semantic tokens refine it.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

/** @type {LanguageClient | undefined} */
let client;

function serverPath() {
    const configured = vscode.workspace.getConfiguration('oc').get('server.path');
    return typeof configured === 'string' && configured.trim() !== '' ? configured.trim() : 'oc';
}

async function start(watcher) {
    const command = serverPath();
    const serverOptions = { command, args: ['lsp'] };
    const clientOptions = {
        documentSelector: [
            { scheme: 'file', language: 'oc' },
            // An unsaved buffer is checked on its own (the server reads nothing from disk for it).
            { scheme: 'untitled', language: 'oc' },
            { scheme: 'file', pattern: '**/*.map.toml' },
        ],
        // The server rechecks what a change on disk affects (imports, maps, oc.toml, map images).
        synchronize: {
            fileEvents: watcher,
        },
    };
    try {
        client = new LanguageClient('oc', 'oc', serverOptions, clientOptions);
        await client.start();
    } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        client = undefined;
        vscode.window.showErrorMessage(
            `oc: could not start \`${command} lsp\` (${message}). Put oc on your PATH or set oc.server.path.`,
        );
    }
}

async function stop() {
    if (client) {
        const running = client;
        client = undefined;
        try {
            await running.stop();
        } catch {
            // The server is already gone (it exited, or never started).
        }
    }
}

async function activate(context) {
    const watcher = vscode.workspace.createFileSystemWatcher('**/*.{oc,toml,png}');
    context.subscriptions.push(
        watcher,
        vscode.commands.registerCommand('oc.restartServer', async () => {
            await stop();
            await start(watcher);
        }),
        vscode.workspace.onDidChangeConfiguration(async (event) => {
            if (event.affectsConfiguration('oc.server.path')) {
                await stop();
                await start(watcher);
            }
        }),
    );
    await start(watcher);
}

function deactivate() {
    return stop();
}

module.exports = { activate, deactivate };
