// Fault switches and lifecycle, over raw stdio frames: exit-after, hang, delay,
// garbage frame, slow load, SDK pin, transcript, shutdown/exit/EOF exit codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { FIXTURES, DoubleClient, spawnDouble, uri } from './client.mjs';

const BROKEN = path.join(FIXTURES, 'broken');
const frame = (msg) => { const body = JSON.stringify({ jsonrpc: '2.0', ...msg }); return `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`; };
const init = (id = 1) => frame({ id, method: 'initialize', params: { processId: null, rootUri: uri(BROKEN), capabilities: {} } });

/** Spawn the double with raw pipes; `out()` is everything it wrote to stdout so far. */
function raw(env = {}, cwd = BROKEN) {
  const proc = spawnDouble([], { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  proc.stdout.on('data', (d) => { stdout += d; });
  proc.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => proc.on('exit', (code) => resolve(code)));
  const waitOut = async (pred, ms = 10000) => {
    const end = Date.now() + ms;
    while (!pred(stdout)) { if (Date.now() > end) throw new Error(`timeout; stdout=${stdout} stderr=${stderr}`); await new Promise((r) => setTimeout(r, 10)); }
  };
  return { proc, exited, waitOut, out: () => stdout, err: () => stderr, send: (s) => proc.stdin.write(s) };
}
const withTimeout = (p, ms, what) => Promise.race([p, new Promise((_, reject) => setTimeout(() => reject(new Error(`timeout: ${what}`)), ms))]);

test('shutdown then exit gives exit code 0; exit alone 1; stdin EOF 2', async () => {
  const a = raw();
  a.send(init() + frame({ method: 'initialized', params: {} }) + frame({ id: 2, method: 'shutdown' }));
  await a.waitOut((s) => s.includes('"id":2'));
  assert.match(a.out(), /"id":2,"result":null|"result":null,"id":2/);
  a.send(frame({ method: 'exit' }));
  assert.equal(await withTimeout(a.exited, 5000, 'exit 0'), 0);

  const b = raw();
  b.send(init() + frame({ method: 'exit' }));
  assert.equal(await withTimeout(b.exited, 5000, 'exit 1'), 1);

  const c = raw();
  c.send(init());
  await c.waitOut((s) => s.includes('"id":1'));
  c.proc.stdin.end();
  assert.equal(await withTimeout(c.exited, 5000, 'exit 2'), 2);
});

test('FSAC_DOUBLE_EXIT_AFTER=N exits abruptly on the Nth message, unanswered', async () => {
  const d = raw({ FSAC_DOUBLE_EXIT_AFTER: '2' });
  d.send(init());
  await d.waitOut((s) => s.includes('"id":1'));
  d.send(frame({ id: 2, method: 'shutdown' }));
  assert.equal(await withTimeout(d.exited, 5000, 'exit-after'), 3);
  assert.equal(d.out().includes('"id":2'), false);
  assert.match(d.err(), /FSAC_DOUBLE_EXIT_AFTER=2/);
});

test('FSAC_DOUBLE_HANG_ON never answers that method; others still answer', async () => {
  const c = new DoubleClient(BROKEN, { FSAC_DOUBLE_HANG_ON: 'textDocument/hover' });
  try {
    await c.initialize();
    const file = path.join(BROKEN, 'Fine.fs');
    await c.open(file);
    let answered = false;
    c.request('textDocument/hover', { textDocument: { uri: uri(file) }, position: { line: 2, character: 5 } }).then(() => { answered = true; }, () => { answered = true; });
    const symbols = await c.request('textDocument/documentSymbol', { textDocument: { uri: uri(file) } });
    assert.ok(symbols.some((s) => s.name === 'fine'));
    await new Promise((r) => setTimeout(r, 1000));
    assert.equal(answered, false);
  } finally {
    c.proc.kill();
    await c.exited;
  }
});

test('FSAC_DOUBLE_DELAY_MS delays every response', async () => {
  const d = raw({ FSAC_DOUBLE_DELAY_MS: '800' });
  const t0 = Date.now();
  d.send(init());
  await d.waitOut((s) => s.includes('"id":1'));
  assert.ok(Date.now() - t0 >= 800, `answered after ${Date.now() - t0} ms`);
  const t1 = Date.now();
  d.send(frame({ id: 2, method: 'shutdown' }));
  await d.waitOut((s) => s.includes('"id":2'));
  assert.ok(Date.now() - t1 >= 800);
  d.proc.kill();
  await d.exited;
});

test('FSAC_DOUBLE_GARBAGE_AFTER writes one frame whose body is not JSON', async () => {
  const d = raw({ FSAC_DOUBLE_GARBAGE_AFTER: '1' });
  d.send(init());
  await d.waitOut((s) => s.includes('"id":1'));
  const frames = [];
  for (let rest = d.out(); rest.length;) {
    const m = /^Content-Length: (\d+)\r\n\r\n/.exec(rest);
    assert.ok(m, `framing intact: ${rest.slice(0, 40)}`);
    frames.push(rest.substr(m[0].length, Number(m[1])));
    rest = rest.slice(m[0].length + Number(m[1]));
  }
  const bad = frames.filter((f) => { try { JSON.parse(f); return false; } catch { return true; } });
  assert.equal(bad.length, 1);
  assert.ok(frames.indexOf(bad[0]) < frames.findIndex((f) => f.includes('"id":1')), 'garbage comes right after the 1st message, before its answer');
  d.proc.kill();
  await d.exited;
});

test('FSAC_DOUBLE_SLOW_LOAD_MS delays workspace load; requests wait for it', async () => {
  const c = new DoubleClient(BROKEN, { FSAC_DOUBLE_SLOW_LOAD_MS: '1500' });
  try {
    const t0 = Date.now();
    await c.initialize();
    const symbols = await c.request('workspace/symbol', { query: 'fine' });
    assert.deepEqual(symbols.map((s) => s.name), ['fine']);
    const loaded = await c.workspaceLoaded();
    assert.ok(loaded.at - t0 >= 1500, `loaded after ${loaded.at - t0} ms`);
    const loading = c.notifications.find((n) => n.method === 'fsharp/notifyWorkspace' && JSON.parse(n.params.content).Kind === 'projectLoading');
    // Sent before the slow part: the load ends at least the delay after it (a start-up time
    // that the machine's load stretches does not count).
    assert.ok(loaded.at - loading.at >= 1500, `projectLoading ${loaded.at - loading.at} ms before the load ended`);
  } finally {
    await c.stop();
  }
});

test('an unsatisfiable global.json pin exits non-zero before reading stdin, explaining on stderr', async () => {
  const d = raw({}, path.join(FIXTURES, 'sdk-pin'));
  const code = await withTimeout(d.exited, 5000, 'sdk pin exit');
  assert.notEqual(code, 0);
  assert.equal(d.out(), '');
  assert.match(d.err(), /A compatible \.NET SDK was not found/);
  assert.match(d.err(), /Requested SDK version: 99\.0\.100/);
  // the SDKs this machine has, as `dotnet --list-sdks` lists them
  const installed = execFileSync('dotnet', ['--list-sdks'], { encoding: 'utf8' }).split('\n')[0].split(' ')[0];
  assert.ok(d.err().includes(installed), `${installed} in: ${d.err()}`);
  // with a matching "installed" SDK the same directory starts normally
  const ok = raw({ FSAC_DOUBLE_INSTALLED_SDKS: '99.0.105' }, path.join(FIXTURES, 'sdk-pin'));
  ok.send(init());
  await ok.waitOut((s) => s.includes('"id":1'));
  ok.proc.kill();
  await ok.exited;
});

test('FSAC_DOUBLE_TRANSCRIPT records every received message as JSON lines, in order', async () => {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-')), 'transcript.jsonl');
  const d = raw({ FSAC_DOUBLE_TRANSCRIPT: file });
  d.send(init() + frame({ method: 'initialized', params: {} }) + frame({ id: 2, method: 'shutdown' }));
  await d.waitOut((s) => s.includes('"id":2'));
  d.send(frame({ method: 'exit' }));
  assert.equal(await withTimeout(d.exited, 5000, 'exit'), 0);
  const lines = fs.readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const received = lines.filter((l) => l.dir === 'in');
  assert.deepEqual(received.map((l) => l.message.method), ['initialize', 'initialized', 'shutdown', 'exit']);
  assert.equal(received[0].message.params.rootUri, uri(BROKEN));
  assert.ok(lines.some((l) => l.dir === 'out' && l.message.id === 1 && l.message.result.serverInfo.name === 'FsAutoComplete'));
});

const residentBytes = (pid) => Number(/VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

test('FSAC_DOUBLE_GROW_MB_PER_REQUEST grows the resident set by M MB per request', { skip: process.platform !== 'linux' }, async () => {
  const d = raw({ FSAC_DOUBLE_GROW_MB_PER_REQUEST: '40', FSAC_DOUBLE_LAZY_COMPILER: '1' });
  d.send(init());
  await d.waitOut((s) => s.includes('"id":1'));
  const before = residentBytes(d.proc.pid);
  for (let id = 2; id <= 6; id++) d.send(frame({ id, method: 'fslens/ping' }));
  await d.waitOut((s) => s.includes('"id":6'));
  const grown = residentBytes(d.proc.pid) - before;
  assert.ok(grown >= 5 * 40 * 1024 * 1024 * 0.9, `grew only ${grown} bytes`);
  d.proc.kill();
});

test('FSAC_DOUBLE_SLOW_INITIALIZE_MS delays the initialize answer; FSAC_DOUBLE_FAULTS_FILE wins over the environment', async () => {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'faults-'));
  const file = path.join(scratch, 'faults.json');
  fs.writeFileSync(file, JSON.stringify({ FSAC_DOUBLE_SLOW_INITIALIZE_MS: 1500 }));
  const d = raw({ FSAC_DOUBLE_SLOW_INITIALIZE_MS: '0', FSAC_DOUBLE_FAULTS_FILE: file, FSAC_DOUBLE_LAZY_COMPILER: '1' });
  const started = Date.now();
  d.send(init());
  await d.waitOut((s) => s.includes('"id":1'));
  const waited = Date.now() - started;
  assert.ok(waited >= 1400, `initialize answered after ${waited} ms`);
  d.proc.kill();
  fs.rmSync(scratch, { recursive: true, force: true });
});
