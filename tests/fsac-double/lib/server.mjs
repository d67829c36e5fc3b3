// The LSP server: lifecycle, document sync, diagnostics push and the request
// table, wired on vscode-languageserver over the fault-injecting transport.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createConnection, ParameterStructures, ResponseError } from 'vscode-languageserver/node';
import { TextDocument } from 'vscode-languageserver-textdocument';
import { FaultyReader, FramedWriter } from './transport.mjs';
import { initializeResult } from './capabilities.mjs';
import { Workspace, pathOf } from './workspace.mjs';
import { peek, chooseAutomatic, peekForWire } from './projects.mjs';
import { loadWorkspace, envelope } from './loader.mjs';
import * as features from './features.mjs';
import { codeActions } from './codeActions.mjs';
import * as editor from './editorFeatures.mjs';
import { typeDefinition } from './typeDefinition.mjs';
import { signatureHelp } from './signatureHelp.mjs';
import { Cancelled } from './references.mjs';
import { faults } from './faults.mjs';
import { log } from './log.mjs';

/**
 * Sends a notification with no `params` member. The connection's own `sendNotification(method)`
 * passes an undefined parameter on, which goes out as `"params": [null]`; a parameter-structure
 * marker in that slot is taken as "no parameters" by vscode-jsonrpc.
 */
const notifyWithoutParams = (conn, method) => conn.sendNotification(method, ParameterStructures.byName);

const INTERNAL_ERROR = -32603;
const REQUEST_CANCELLED = -32800;
const METHOD_NOT_FOUND = -32601;
// FSAC's LSP library (Ionide.LanguageServerProtocol 0.7) reports unexpected
// handler exceptions with InvalidParams; the double mirrors the wire code.
const FSAC_EXCEPTION_CODE = -32602;

/** Case-insensitive option lookup (FSAC deserialises options with Newtonsoft). */
const option = (opts, name) => {
  if (!opts || typeof opts !== 'object') return undefined;
  const key = Object.keys(opts).find((k) => k.toLowerCase() === name.toLowerCase());
  return key === undefined ? undefined : opts[key];
};

export function startServer() {
  const reader = new FaultyReader(process.stdin);
  const writer = new FramedWriter();
  reader.onClose(() => { log('stdin closed: exit 2'); process.exit(2); });
  process.stdout.on('error', (e) => { log(`stdout failed (${e.code}): exit 2`); process.exit(2); });
  const conn = createConnection(reader, writer);
  const ws = new Workspace();
  let clientCaps = {};
  let rootPath = process.cwd();
  let autoProjects = null; // chosen by AutomaticWorkspaceInit, loaded at `initialized`
  let loading = Promise.resolve();
  let loadStarted = false;
  let releaseFirstLoad = () => {};
  // Requests wait for the first load when one is expected (auto-init), as FSAC blocks on it.
  let ready = Promise.resolve();

  const canPublish = () => clientCaps?.textDocument?.publishDiagnostics !== undefined && clientCaps?.textDocument?.publishDiagnostics !== null;

  function startLoad(projectPaths) {
    loadStarted = true;
    const run = loading.then(() => loadWorkspace(conn, ws, projectPaths, { workDoneProgress: clientCaps?.window?.workDoneProgress === true }));
    loading = run.catch((e) => log(`load failed: ${e.stack}`));
    ready = loading;
    loading.then(() => { releaseFirstLoad(); for (const f of ws.documents.keys()) scheduleCheck(f); });
    return run;
  }

  /** FSAC loads the chosen projects when something first needs them (normally `initialized`). */
  function ensureAutoLoad() {
    if (autoProjects && !loadStarted) startLoad(autoProjects);
  }

  // ---- checking and publishing -------------------------------------------
  const dirty = new Set();
  let draining = null;
  function scheduleCheck(file) {
    if (process.env.FSAC_DOUBLE_NO_CHECKS === '1') return; // crash tests: doubles that die young
    dirty.add(file);
    if (!draining) draining = drain().finally(() => { draining = null; if (dirty.size) scheduleCheck([...dirty][0]); });
  }
  async function drain() {
    ensureAutoLoad();
    await ready;
    while (dirty.size) {
      const [file] = dirty;
      dirty.delete(file);
      try { await checkAndPublish(file); } catch (e) { log(`check of ${file} failed: ${e.stack}`); }
    }
  }
  async function checkAndPublish(file) {
    const project = ws.projectFor(file);
    if (!project) { log(`Couldn't find ${file} in LoadedProjects`); return; }
    const held = ws.documents.get(file);
    if (faults.slowCheckMs && faults.slowCheckFromVersion !== null && held && held.version >= faults.slowCheckFromVersion) {
      await new Promise((resolve) => setTimeout(resolve, faults.slowCheckMs));
    }
    if (faults.unanalysedFiles.has(path.basename(file))) { log(`FSAC_DOUBLE_UNANALYSED_FILES: reporting no check of ${file}`); return; }
    const results = await ws.check(project, file);
    const doc = ws.documents.get(file);
    const uri = ws.uriFor(file);
    // FSAC reports test detection after every parse of a file (§4.2); a check parses first.
    conn.sendNotification('fsharp/testDetected', { file: uri, tests: [] });
    const diagnostics = await features.diagnosticsOf(results, file, project);
    conn.sendNotification('fsharp/fileParsed', { content: uri });
    if (canPublish()) {
      const params = { uri, diagnostics };
      // A check that found nothing still sets its bucket (to empty), so `version` is sent; it
      // is left out only when buckets are cleared (the close and delete publishes below).
      if (faults.diagnosticsVersion) params.version = doc ? doc.version : 0;
      conn.sendDiagnostics(params);
    }
    if (doc && doc.text.length > 0) conn.sendNotification('fsharp/documentAnalyzed', { textDocument: { uri, version: doc.version } });
  }

  // ---- request plumbing ---------------------------------------------------
  /** Wraps a handler: waits for loading, maps cancellation and failures to FSAC's codes. */
  const handle = (fn) => async (params, token) => {
    try {
      ensureAutoLoad();
      await ready;
      if (token?.isCancellationRequested) throw new Cancelled();
      const result = await fn(params, token);
      if (token?.isCancellationRequested) throw new Cancelled();
      return result;
    } catch (e) {
      if (e instanceof Cancelled) return new ResponseError(REQUEST_CANCELLED, 'The request was cancelled.');
      if (e instanceof ResponseError) return e;
      log(`handler failed: ${e.stack}`);
      return new ResponseError(FSAC_EXCEPTION_CODE, e.message);
    }
  };
  /** Context for position requests: the file must be open and belong to a loaded project. */
  function openFile(uri) {
    const file = pathOf(uri);
    if (!ws.documents.has(file)) throw new ResponseError(INTERNAL_ERROR, `No check results found for ${file}`);
    const project = ws.projectFor(file);
    if (!project) throw new ResponseError(INTERNAL_ERROR, `Couldn't find ${file} in LoadedProjects. Have the projects loaded yet or have you tried restoring your project/solution?`);
    return { file, project };
  }

  // ---- lifecycle ------------------------------------------------------------
  conn.onInitialize(async (params) => {
    if (faults.slowInitializeMs) await new Promise((resolve) => setTimeout(resolve, faults.slowInitializeMs));
    clientCaps = params.capabilities ?? {};
    const root = params.rootUri ? pathOf(params.rootUri) : params.rootPath;
    if (root) rootPath = root;
    const opts = params.initializationOptions;
    if (option(opts, 'AutomaticWorkspaceInit') === true && root) {
      const deep = option(opts, 'WorkspaceModePeekDeepLevel') ?? 2;
      const excluded = option(opts, 'ExcludeProjectDirectories') ?? [];
      autoProjects = chooseAutomatic(peek(root, deep, excluded));
      ready = new Promise((resolve) => { releaseFirstLoad = resolve; });
      log(`AutomaticWorkspaceInit: ${autoProjects.length} projects under ${root}`);
    }
    return initializeResult();
  });
  conn.onInitialized(() => ensureAutoLoad());
  conn.onShutdown(() => null);

  // ---- custom FSAC methods ----------------------------------------------------
  // Parameter names are read without regard to case, as FSAC's Newtonsoft does: Ionide sends
  // `{Directory, Deep, ExcludedDirs}` and `{TextDocuments: [{Uri}]}` (F# record field names).
  conn.onRequest('fsharp/workspacePeek', async (params) => {
    const dir = option(params, 'directory') ?? rootPath;
    return envelope('workspacePeek', { Found: peekForWire(peek(dir, option(params, 'deep') ?? 2, option(params, 'excludedDirs') ?? [])) });
  });
  conn.onRequest('fsharp/workspaceLoad', async (params) => {
    const paths = (option(params, 'textDocuments') ?? []).map((d) => {
      const where = String(option(d, 'uri') ?? '');
      return where.startsWith('file:') ? fileURLToPath(where) : path.resolve(rootPath, where);
    });
    await startLoad(paths);
    return envelope('workspaceLoad', { Status: 'finished' });
  });
  conn.onRequest('fsharp/project', async (params) => {
    const uri = params?.project?.uri ?? '';
    const p = uri.startsWith('file:') ? fileURLToPath(uri) : path.resolve(rootPath, uri);
    await startLoad([...new Set([...ws.projects.keys(), p])]);
    return new ResponseError(METHOD_NOT_FOUND, 'Method not found'); // FSAC's handler ends in notImplemented
  });
  conn.onRequest('fsharp/signature', handle(async (p) => features.signature(ws, openFile(p.textDocument.uri), p.position)));

  // ---- document sync ---------------------------------------------------------
  conn.onDidOpenTextDocument(({ textDocument: td }) => {
    const file = pathOf(td.uri);
    if (ws.documents.has(file)) return; // FSAC ignores a second open
    ws.documents.set(file, { uri: td.uri, doc: TextDocument.create(td.uri, 'fsharp', td.version, td.text), get text() { return this.doc.getText(); }, get version() { return this.doc.version; } });
    ws.invalidate();
    scheduleCheck(file);
  });
  conn.onDidChangeTextDocument(({ textDocument: td, contentChanges }) => {
    const file = pathOf(td.uri);
    const entry = ws.documents.get(file);
    if (!entry) return;
    entry.doc = TextDocument.update(entry.doc, contentChanges, td.version);
    ws.invalidate();
    scheduleCheck(file);
  });
  conn.onDidSaveTextDocument(({ textDocument: td, text }) => {
    const file = pathOf(td.uri);
    const entry = ws.documents.get(file);
    if (entry && typeof text === 'string') entry.doc = TextDocument.create(td.uri, 'fsharp', entry.version, text);
    ws.invalidate();
    if (entry) scheduleCheck(file);
    // FSAC re-checks the files after the saved one and the dependent projects' files.
    for (const project of ws.projectsSeeing(file)) {
      const own = project.compile.map((c) => c.path);
      const after = ws.projectsOwning(file).includes(project) ? own.slice(own.indexOf(file) + 1) : own;
      for (const f of after) if (ws.projectFor(f) === project) scheduleCheck(f);
    }
    if (clientCaps?.workspace?.codeLens?.refreshSupport === true) notifyWithoutParams(conn, 'workspace/codeLens/refresh');
  });
  conn.onDidCloseTextDocument(({ textDocument: td }) => {
    const file = pathOf(td.uri);
    const entry = ws.documents.get(file);
    if (!entry) return;
    const reported = ws.uriFor(file); // asked while the document is still known (untitled: URIs)
    ws.documents.delete(file);
    ws.invalidate();
    if (!fs.existsSync(file) && canPublish()) conn.sendDiagnostics({ uri: reported, diagnostics: [] });
  });
  conn.onNotification('workspace/didChangeWatchedFiles', ({ changes }) => {
    // Only deletions are acted on: the document is forgotten, and its diagnostics are
    // cleared when the file is really gone (fsac-protocol.md §5.1, §5.2).
    for (const c of changes ?? []) {
      if (c?.type !== 3 || typeof c.uri !== 'string') continue;
      const file = pathOf(c.uri);
      ws.documents.delete(file);
      if (!fs.existsSync(file) && canPublish()) conn.sendDiagnostics({ uri: ws.uriFor(file), diagnostics: [] });
    }
    ws.invalidate();
  });

  // ---- standard requests ---------------------------------------------------------
  conn.onHover(handle((p) => features.hover(ws, openFile(p.textDocument.uri), p.position)));
  conn.onDefinition(handle((p) => features.definition(ws, openFile(p.textDocument.uri), p.position)));
  conn.onReferences(handle((p, token) => features.references(ws, openFile(p.textDocument.uri), p.position, token)));
  conn.onDocumentSymbol(handle((p) => {
    const file = pathOf(p.textDocument.uri);
    if (!ws.documents.has(file) && !ws.projectFor(file)) throw new ResponseError(INTERNAL_ERROR, `Couldn't find ${file} in LoadedProjects`);
    return features.documentSymbols(ws, file);
  }));
  conn.onCodeAction(handle((p) => codeActions(ws, p, clientCaps)));
  conn.onWorkspaceSymbol(handle((p) => features.workspaceSymbols(ws, p.query)));
  conn.onRequest('workspaceSymbol/resolve', (item) => item);

  // ---- the rest of what initialize advertises (capabilities.mjs); every one is answered ----
  const at = (fn) => handle((p, token) => fn(openFile(p.textDocument.uri), p, token));
  /** Requests about a whole file: it must be open or belong to a loaded project. */
  const known = (uri) => {
    const file = pathOf(uri);
    if (!ws.documents.has(file) && !ws.projectFor(file)) throw new ResponseError(INTERNAL_ERROR, `Couldn't find ${file} in LoadedProjects`);
    return file;
  };
  conn.onDocumentHighlight(at((ctx, p, token) => editor.documentHighlight(ws, ctx, p.position, token)));
  conn.onCompletion(at((ctx, p) => editor.completion(ws, ctx, p.position)));
  conn.onCompletionResolve((item) => item); // FSAC adds documentation here; the double echoes
  conn.onSignatureHelp(at((ctx, p) => signatureHelp(ws, ctx, p.position, p.context)));
  conn.onTypeDefinition(at((ctx, p) => typeDefinition(ws, ctx, p.position)));
  conn.onImplementation(at((ctx, p) => editor.implementation(ws, ctx, p.position)));
  conn.onPrepareRename(at((ctx, p) => editor.prepareRename(ws, ctx, p.position)));
  conn.onRenameRequest(at((ctx, p, token) => editor.rename(ws, ctx, p.position, p.newName, clientCaps, token)));
  conn.onCodeLens(handle((p) => editor.codeLenses(ws, known(p.textDocument.uri))));
  conn.onCodeLensResolve(handle((lens, token) => editor.resolveCodeLens(ws, lens, token)));
  conn.onDocumentFormatting(handle(() => null)); // no Fantomas tool here
  conn.onDocumentRangeFormatting(handle(() => null));
  conn.onFoldingRanges(handle((p) => editor.foldingRanges(ws, known(p.textDocument.uri))));
  conn.onSelectionRanges(handle((p) => editor.selectionRanges(ws, known(p.textDocument.uri), p.positions)));
  conn.languages.callHierarchy.onPrepare(at((ctx, p) => editor.prepareCallHierarchy(ws, ctx, p.position)));
  conn.languages.callHierarchy.onIncomingCalls(handle((p, token) => editor.incomingCalls(ws, p.item, token)));
  conn.languages.callHierarchy.onOutgoingCalls(handle((p, token) => editor.outgoingCalls(ws, p.item, token)));
  conn.languages.semanticTokens.on(at(() => editor.noSemanticTokens()));
  conn.languages.semanticTokens.onRange(at(() => editor.noSemanticTokens()));
  conn.languages.inlayHint.on(at(() => []));
  conn.languages.inlineValue.on(at(() => []));

  // Everything else: requests get FSAC's -32601, notifications are ignored silently.
  conn.onRequest((method) => new ResponseError(METHOD_NOT_FOUND, `Method not found: ${method}`));
  conn.onNotification(() => {});
  conn.listen();
  log(`listening (cwd ${process.cwd()})`);
}
