// Test client: spawns the double over real stdio and talks JSON-RPC to it with
// vscode-jsonrpc. Records every notification so tests can wait for them.
import { spawn } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { createMessageConnection, StreamMessageReader, StreamMessageWriter } from 'vscode-jsonrpc/node';

/** The built double (`dotnet build -c Release tests/fsac-double-dotnet/FsacDouble.fsproj`). */
export const DOUBLE = fileURLToPath(new URL('../bin/Release/net10.0/FsacDouble.dll', import.meta.url));
/**
 * The command that starts the double: `$FSAC_DOUBLE_COMMAND` when set (a JSON array, or words
 * separated by spaces), e.g. a real FsAutoComplete; else `dotnet` running this double.
 * Returns [executable, ...arguments].
 */
export function doubleCommand(args = []) {
  const configured = process.env.FSAC_DOUBLE_COMMAND;
  if (!configured) {
    if (!fs.existsSync(DOUBLE)) throw new Error(`${DOUBLE} is missing: run \`dotnet build -c Release tests/fsac-double-dotnet/FsacDouble.fsproj\``);
    return ['dotnet', DOUBLE, ...args];
  }
  const words = configured.trim().startsWith('[') ? JSON.parse(configured) : configured.trim().split(/\s+/);
  return [...words, ...args];
}
/** Spawns the double (see doubleCommand) with node:child_process options. */
export function spawnDouble(args, options) {
  const [executable, ...rest] = doubleCommand(args);
  return spawn(executable, rest, options);
}
export const FIXTURES = path.resolve(fileURLToPath(new URL('../../../fixtures', import.meta.url)));
export const uri = (file) => pathToFileURL(file).href;
/** The normalised path a `file:` URI names (any other URI unchanged). */
export function pathOf(sentUri) {
  if (!sentUri.startsWith('file:')) return sentUri;
  try { return path.normalize(fileURLToPath(sentUri)); } catch { return sentUri; }
}
/**
 * True when a URI the double sent names `file`. FSAC encodes paths its own way (it writes
 * `@` as `%40` where Node leaves it bare), so URIs are compared by the path they decode to.
 */
export const sameFile = (sentUri, file) => sentUri.startsWith('file:') && pathOf(sentUri) === path.normalize(file);

export const CLIENT_CAPS = {
  textDocument: { publishDiagnostics: { relatedInformation: true }, hover: { contentFormat: ['markdown', 'plaintext'] } },
  window: { workDoneProgress: true },
};

export class DoubleClient {
  /** Spawn the double in `cwd` with extra env vars. */
  constructor(cwd, env = {}, args = []) {
    this.cwd = cwd;
    this.proc = spawnDouble(args, { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.stderr = '';
    this.proc.stderr.on('data', (d) => { this.stderr += d; });
    this.exited = new Promise((resolve) => this.proc.on('exit', (code, signal) => resolve({ code, signal })));
    this.notifications = [];
    this.waiters = [];
    this.conn = createMessageConnection(new StreamMessageReader(this.proc.stdout), new StreamMessageWriter(this.proc.stdin));
    const record = (method, params) => {
      const n = { method, params, at: Date.now() };
      this.notifications.push(n);
      this.waiters = this.waiters.filter((w) => !(w.pred(n) && (w.resolve(n), true)));
    };
    this.conn.onNotification(record);
    this.conn.onNotification('$/progress', (params) => record('$/progress', params)); // not seen by the star handler

    this.serverRequests = [];
    this.conn.onRequest((method, params) => { this.serverRequests.push({ method, params, at: Date.now() }); return null; });
    this.conn.onError(() => {});
    this.conn.onClose(() => {});
    this.conn.listen();
  }

  /** Resolves with the first notification (past or future) matching `pred`. */
  waitFor(pred, timeoutMs = 30000, what = 'notification') {
    const past = this.notifications.find(pred);
    if (past) return Promise.resolve(past);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr:\n${this.stderr}`)), timeoutMs);
      this.waiters.push({ pred, resolve: (n) => { clearTimeout(timer); resolve(n); } });
    });
  }

  /** Only notifications arriving after now. */
  waitForNext(pred, timeoutMs = 30000, what) {
    const since = this.notifications.length;
    return this.waitFor((n) => this.notifications.indexOf(n) >= since && pred(n), timeoutMs, what);
  }

  /** Resolves once the double's stderr matches `re`. */
  async waitForStderr(re, timeoutMs = 30000) {
    const end = Date.now() + timeoutMs;
    while (!re.test(this.stderr)) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${re} on stderr:\n${this.stderr}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }

  request(method, params) { return this.conn.sendRequest(method, params); }
  notify(method, params) { return this.conn.sendNotification(method, params); }

  async initialize({ capabilities = CLIENT_CAPS, initializationOptions = { AutomaticWorkspaceInit: true } } = {}) {
    const result = await this.request('initialize', { processId: process.pid, rootUri: uri(this.cwd), capabilities, initializationOptions });
    this.notify('initialized', {});
    return result;
  }

  workspaceLoaded(timeoutMs = 60000) {
    return this.waitFor((n) => n.method === 'fsharp/notifyWorkspace' && JSON.parse(n.params.content).Kind === 'workspaceLoad', timeoutMs, 'workspaceLoad');
  }

  /** Open a file from disk; resolves with its documentAnalyzed notification. */
  async open(file, text = fs.readFileSync(file, 'utf8'), version = 1) {
    const analyzed = this.waitForNext((n) => n.method === 'fsharp/documentAnalyzed' && sameFile(n.params.textDocument.uri, file) && n.params.textDocument.version === version, 60000, `documentAnalyzed ${file}`);
    this.notify('textDocument/didOpen', { textDocument: { uri: uri(file), languageId: 'fsharp', version, text } });
    return analyzed;
  }

  /** Last publishDiagnostics for `file` received so far. */
  lastDiagnostics(file) {
    return this.notifications.filter((n) => n.method === 'textDocument/publishDiagnostics' && sameFile(n.params.uri, file)).at(-1)?.params;
  }

  async stop() {
    try { await Promise.race([this.request('shutdown'), new Promise((r) => setTimeout(r, 2000))]); this.notify('exit'); } catch { /* already gone */ }
    const timer = setTimeout(() => this.proc.kill('SIGKILL'), 3000);
    const r = await this.exited;
    clearTimeout(timer);
    this.conn.dispose();
    return r;
  }
}
