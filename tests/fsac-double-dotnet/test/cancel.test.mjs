// $/cancelRequest: a references sweep made slow with FSAC_DOUBLE_SWEEP_DELAY_MS
// is interrupted between files and answers -32800; the server stays usable.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { CancellationTokenSource } from 'vscode-jsonrpc/node';
import { DoubleClient, FIXTURES, uri } from './client.mjs';
import { parseTree } from './markers.mjs';

const ROOT = path.join(FIXTURES, 'shipping');

test('$/cancelRequest cancels an in-flight references sweep with -32800', async () => {
  const c = new DoubleClient(ROOT, { FSAC_DOUBLE_SWEEP_DELAY_MS: '150' });
  try {
    await c.initialize();
    await c.workspaceLoaded();
    const markers = parseTree(ROOT).filter((m) => m.symbol === 'Shipping.Domain.Shipment.Weight');
    const decl = markers.find((m) => m.kind === 'decl');
    await c.open(decl.file);
    const at = { textDocument: { uri: uri(decl.file) }, position: { line: decl.line, character: decl.character } };
    const source = new CancellationTokenSource();
    const started = Date.now();
    const pending = c.conn.sendRequest('textDocument/references', { ...at, context: { includeDeclaration: true } }, source.token);
    await c.waitForStderr(/references: sweep of (\d+) files/);
    source.cancel();
    await assert.rejects(pending, (e) => e.code === -32800);
    const total = Number(/references: sweep of (\d+) files/.exec(c.stderr)[1]);
    const searched = Number(/references: cancelled after searching (\d+) files/.exec(c.stderr)?.[1]);
    assert.ok(searched < total, `interrupted mid-sweep (${searched} of ${total} files)`);
    assert.ok(Date.now() - started < total * 150, 'answered before the sweep could have finished');
    // the same request, not cancelled, completes with every marked site
    const refs = await c.request('textDocument/references', { ...at, context: { includeDeclaration: true } });
    assert.equal(refs.length, markers.length);
  } finally {
    await c.stop();
  }
});

// The order fslens winds up a cancelled command in: $/cancelRequest for its request, then
// didClose of the document it opened. A handler that starts late (as on a loaded machine)
// must still answer -32800, not the closed file's "No check results found".
test('a request cancelled and then its document closed before its handler starts answers -32800', async () => {
  const c = new DoubleClient(ROOT, { FSAC_DOUBLE_HANDLER_START_DELAY_MS: '1500' });
  try {
    await c.initialize();
    await c.workspaceLoaded();
    const decl = parseTree(ROOT).find((m) => m.symbol === 'Shipping.Domain.Shipment.Weight' && m.kind === 'decl');
    await c.open(decl.file);
    const at = { textDocument: { uri: uri(decl.file) }, position: { line: decl.line, character: decl.character } };
    const source = new CancellationTokenSource();
    const pending = c.conn.sendRequest('textDocument/references', { ...at, context: { includeDeclaration: true } }, source.token);
    await c.waitForStderr(/handler of textDocument\/references \S+ starts in/);
    source.cancel();
    c.notify('textDocument/didClose', { textDocument: { uri: uri(decl.file) } });
    await assert.rejects(pending, (e) => {
      assert.equal(e.code, -32800, `${e.code} ${e.message}`);
      return true;
    });
  } finally {
    await c.stop();
  }
});
