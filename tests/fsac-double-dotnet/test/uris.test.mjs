// URIs as FSAC writes them, whatever the client sent; what happens to the diagnostics of a
// deleted file; the shape of workspace/codeLens/refresh.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { DoubleClient, FIXTURES, CLIENT_CAPS, uri, sameFile } from './client.mjs';

/** A directory name with every kind of character FSAC's encoder treats differently from Node's. */
const AWKWARD_NAME = 'odd dir #1 (50%) @é+~';
/** The same name as FSAC writes it: only ASCII letters, digits and `+ / . - _ ~` stay bare. */
const AWKWARD_NAME_ENCODED = 'odd%20dir%20%231%20%2850%25%29%20%40%C3%A9+~';

/**
 * Runs `body(client, root, parent)` against the double with its workspace loaded, in a copy of
 * fixtures/broken inside a directory named AWKWARD_NAME; stops the double and removes the copy.
 */
async function withLoadedAwkwardCopy(body) {
  const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-uris-'));
  const root = path.join(parent, AWKWARD_NAME);
  fs.cpSync(path.join(FIXTURES, 'broken'), root, { recursive: true });
  const c = new DoubleClient(root);
  try {
    await c.initialize();
    await c.workspaceLoaded();
    await body(c, root, parent);
  } finally {
    await c.stop();
    fs.rmSync(parent, { recursive: true, force: true });
  }
}

test('URIs are rebuilt from the path with FSAC\'s encoder, even for a document the client opened', () => withLoadedAwkwardCopy(async (c, root, parent) => {
  const file = path.join(root, 'TypeErrors.fs');
  const clientUri = uri(file);
  assert.ok(clientUri.includes('@'), `Node leaves @ bare: ${clientUri}`);
  const detectsTests = (n) => n.method === 'fsharp/testDetected' && sameFile(n.params.file, file);
  const detections = () => c.notifications.filter(detectsTests).length;
  await c.waitFor(detectsTests, 10000, 'the load\'s testDetected');
  assert.equal(detections(), 1, 'one test detection per file after the load');
  const analyzed = await c.open(file);
  assert.equal(detections(), 2, 'and another after the parse that opening the file causes');
  const expected = `file://${parent.split(path.sep).join('/')}/${AWKWARD_NAME_ENCODED}/TypeErrors.fs`;
  assert.equal(analyzed.params.textDocument.uri, expected);
  assert.notEqual(expected, clientUri, 'the two encodings differ byte-wise');
  assert.equal(fileURLToPath(expected), file, 'and name the same file');
  const published = c.lastDiagnostics(file);
  assert.equal(published.uri, expected);
  assert.ok(published.diagnostics.length > 0);
  assert.ok(published.diagnostics.some((d) => d.code === 39), 'FS0039 is reported');
  // Locations in answers are encoded the same way: the references of the record field
  // `Weight`: its declaration, the construction and the read `s.Weight`.
  const lines = fs.readFileSync(file, 'utf8').split('\n');
  const readLine = lines.findIndex((l) => l.includes('s.Weight'));
  const references = await c.request('textDocument/references', {
    textDocument: { uri: clientUri },
    position: { line: readLine, character: lines[readLine].indexOf('s.Weight') + 3 },
    context: { includeDeclaration: true },
  });
  assert.equal(references.length, 3, JSON.stringify(references));
  for (const location of references) assert.equal(location.uri, expected);
}));

test('a watched-file deletion forgets the document and clears the diagnostics of a file that is gone; so does closing one', () => withLoadedAwkwardCopy(async (c, root) => {
  const file = path.join(root, 'TypeErrors.fs');
  await c.open(file);
  assert.ok(c.lastDiagnostics(file).diagnostics.length > 0);
  // A deletion event for a file still on disk changes nothing that is published.
  const before = c.notifications.length;
  c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uri(file), type: 3 }] });
  // The document is forgotten: position requests on it fail as on a file never opened (and
  // the answer is a round trip, so the notification was handled).
  await assert.rejects(c.request('textDocument/hover', { textDocument: { uri: uri(file) }, position: { line: 0, character: 0 } }), /No check results/);
  assert.equal(c.notifications.slice(before).filter((n) => n.method === 'textDocument/publishDiagnostics').length, 0);
  // Once the file is really gone, its diagnostics are cleared.
  fs.rmSync(file);
  const cleared = c.waitForNext((n) => n.method === 'textDocument/publishDiagnostics' && n.params.diagnostics.length === 0, 10000, 'the clearing publish');
  c.notify('workspace/didChangeWatchedFiles', { changes: [{ uri: uri(file), type: 3 }] });
  const clearing = await cleared;
  assert.equal(fileURLToPath(clearing.params.uri), file);
  assert.ok(clearing.params.uri.includes(AWKWARD_NAME_ENCODED), clearing.params.uri);
  assert.equal(clearing.params.version, undefined);
  // Closing a document whose file is gone clears it too, under FSAC's URI for it.
  const fine = path.join(root, 'Fine.fs');
  await c.open(fine);
  fs.rmSync(fine);
  const closed = c.waitForNext((n) => n.method === 'textDocument/publishDiagnostics' && sameFile(n.params.uri, fine), 10000, 'the publish on close');
  c.notify('textDocument/didClose', { textDocument: { uri: uri(fine) } });
  const onClose = await closed;
  assert.deepEqual(onClose.params.diagnostics, []);
  assert.ok(onClose.params.uri.includes(AWKWARD_NAME_ENCODED), onClose.params.uri);
}));

test('workspace/codeLens/refresh after a save is a notification without params', async () => {
  const c = new DoubleClient(path.join(FIXTURES, 'broken'));
  try {
    await c.initialize({ capabilities: { ...CLIENT_CAPS, workspace: { codeLens: { refreshSupport: true } } } });
    await c.workspaceLoaded();
    const file = path.join(FIXTURES, 'broken', 'Fine.fs');
    await c.open(file);
    const refresh = c.waitForNext((n) => n.method === 'workspace/codeLens/refresh', 10000, 'codeLens/refresh');
    c.notify('textDocument/didSave', { textDocument: { uri: uri(file) } });
    const message = await refresh;
    assert.equal(message.params, undefined, JSON.stringify(message.params));
  } finally {
    await c.stop();
  }
});
