// Diagnostics on the failing fixtures: expected errors are read from the
// fixtures' `//! FSnnnn` markers; the version switch; the capability gate;
// a file with more than 50 errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { DoubleClient, FIXTURES, CLIENT_CAPS, uri } from './client.mjs';

const BROKEN = path.join(FIXTURES, 'broken');

/** `//! FS0001` on the line after a code line: an error with that code starts on that line. */
function errorMarkers(file) {
  const out = [];
  let site = -1;
  fs.readFileSync(file, 'utf8').split('\n').forEach((line, i) => {
    const m = /^\s*\/\/! FS(\d{4})\s*$/.exec(line);
    if (m) out.push({ line: site, code: Number(m[1]) }); else site = i;
  });
  return out;
}

test('broken fixture: type errors and a parse error carry the compiler\'s codes, messages and ranges', async () => {
  const c = new DoubleClient(BROKEN);
  try {
    await c.initialize();
    await c.workspaceLoaded();
    const typeErrors = path.join(BROKEN, 'TypeErrors.fs');
    const parseError = path.join(BROKEN, 'ParseError.fs');
    await c.open(typeErrors);
    await c.open(parseError);
    const typeDiags = c.lastDiagnostics(typeErrors).diagnostics;
    const expected = errorMarkers(typeErrors);
    // complete for the type-error file: one diagnostic per marker, codes as marked
    assert.deepEqual(typeDiags.map((d) => `${d.range.start.line}:${d.code}`).sort(), expected.map((e) => `${e.line}:${e.code}`).sort());
    for (const d of typeDiags) {
      assert.equal(d.source, 'F# Compiler');
      assert.equal(typeof d.code, 'number');
      assert.deepEqual(d.relatedInformation, []);
      assert.equal(d.codeDescription.href, `https://docs.microsoft.com/en-us/dotnet/fsharp/language-reference/compiler-messages/fs${String(d.code).padStart(4, '0')}`);
    }
    const undefinedValue = typeDiags.find((d) => d.code === 39);
    assert.equal(undefinedValue.message, "The value or constructor 'undefinedValue' is not defined.");
    const line = fs.readFileSync(typeErrors, 'utf8').split('\n')[undefinedValue.range.start.line];
    assert.equal(line.slice(undefinedValue.range.start.character, undefinedValue.range.end.character), 'undefinedValue');
    assert.equal(typeDiags.find((d) => d.code === 25).severity, 2, 'incomplete match is a warning');
    // parse error: the marked code is among the diagnostics on that line
    const parseDiags = c.lastDiagnostics(parseError).diagnostics;
    for (const e of errorMarkers(parseError)) assert.ok(parseDiags.some((d) => d.code === e.code && d.range.start.line === e.line), `FS${e.code}`);
    assert.ok(parseDiags.every((d) => d.severity === 1));
  } finally {
    await c.stop();
  }
});

test('without AutomaticWorkspaceInit nothing loads until fsharp/workspaceLoad; didSave re-checks later closed files', async () => {
  const c = new DoubleClient(BROKEN);
  try {
    await c.initialize({ initializationOptions: { AutomaticWorkspaceInit: false } });
    const fine = path.join(BROKEN, 'Fine.fs');
    c.notify('textDocument/didOpen', { textDocument: { uri: uri(fine), languageId: 'fsharp', version: 1, text: fs.readFileSync(fine, 'utf8') } });
    await assert.rejects(c.request('textDocument/hover', { textDocument: { uri: uri(fine) }, position: { line: 2, character: 5 } }), (e) => e.code === -32603);
    const analyzed = c.waitForNext((n) => n.method === 'fsharp/documentAnalyzed' && n.params.textDocument.uri === uri(fine), 30000, 'Fine.fs analyzed after load');
    // Ionide's casing and a plain path (Ionide sends project paths, not URIs).
    const res = await c.request('fsharp/workspaceLoad', { TextDocuments: [{ Uri: path.join(BROKEN, 'Broken.fsproj') }] });
    assert.deepEqual(JSON.parse(res.content), { Kind: 'workspaceLoad', Data: { Status: 'finished' } });
    await analyzed; // open files are checked once their project is loaded
    const hover = await c.request('textDocument/hover', { textDocument: { uri: uri(fine) }, position: { line: 2, character: 5 } });
    assert.equal(hover.contents[0].value, 'val fine: x: int -> int');
    // saving TypeErrors.fs publishes diagnostics for the (closed) files after it
    const typeErrors = path.join(BROKEN, 'TypeErrors.fs');
    await c.open(typeErrors);
    const parseError = path.join(BROKEN, 'ParseError.fs');
    const published = c.waitForNext((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri === uri(parseError), 30000, 'ParseError.fs diagnostics after save');
    c.notify('textDocument/didSave', { textDocument: { uri: uri(typeErrors) }, text: fs.readFileSync(typeErrors, 'utf8') });
    const p = await published;
    assert.ok(p.params.diagnostics.some((d) => d.code === 583));
  } finally {
    await c.stop();
  }
});

test('FSAC_DOUBLE_DIAGNOSTICS_VERSION=1 adds the document version to publishDiagnostics', async () => {
  const c = new DoubleClient(BROKEN, { FSAC_DOUBLE_DIAGNOSTICS_VERSION: '1' });
  try {
    await c.initialize();
    const file = path.join(BROKEN, 'Fine.fs');
    await c.open(file, undefined, 7);
    assert.equal(c.lastDiagnostics(file).version, 7);
  } finally {
    await c.stop();
  }
});

test('no publishDiagnostics without the client capability, but documentAnalyzed still arrives', async () => {
  const c = new DoubleClient(BROKEN);
  try {
    await c.initialize({ capabilities: { window: CLIENT_CAPS.window } });
    await c.open(path.join(BROKEN, 'TypeErrors.fs'));
    assert.equal(c.notifications.filter((n) => n.method === 'textDocument/publishDiagnostics').length, 0);
  } finally {
    await c.stop();
  }
});

test('a file with more than 50 type errors publishes all of them', async () => {
  const root = path.join(FIXTURES, 'many-errors');
  const c = new DoubleClient(root);
  try {
    await c.initialize();
    const file = path.join(root, 'Errors.fs');
    await c.open(file);
    const d = c.lastDiagnostics(file).diagnostics;
    const bindings = fs.readFileSync(file, 'utf8').split('\n').filter((l) => l.startsWith('let value')).length;
    assert.ok(bindings > 50);
    assert.equal(d.length, bindings);
    assert.ok(d.every((x) => x.code === 1 && x.severity === 1));
  } finally {
    await c.stop();
  }
});

test('a project with PackageReferences and no restore output is reported as error 100', async () => {
  const root = path.join(FIXTURES, 'unrestored');
  const c = new DoubleClient(root);
  try {
    await c.initialize();
    await c.workspaceLoaded();
    const ws = c.notifications.filter((n) => n.method === 'fsharp/notifyWorkspace').map((n) => JSON.parse(n.params.content));
    const error = ws.find((w) => w.Kind === 'error');
    assert.deepEqual(error.Data, { Code: 100, Message: 'Project not restored', AdditionalData: { Project: path.join(root, 'Unrestored.fsproj') } });
    assert.equal(ws.some((w) => w.Kind === 'project'), false);
    // its files belong to no loaded project: position requests fail like FSAC's
    const file = path.join(root, 'Library.fs');
    c.notify('textDocument/didOpen', { textDocument: { uri: uri(file), languageId: 'fsharp', version: 1, text: fs.readFileSync(file, 'utf8') } });
    await assert.rejects(c.request('textDocument/hover', { textDocument: { uri: uri(file) }, position: { line: 3, character: 5 } }), (e) => e.code === -32603);
  } finally {
    await c.stop();
  }
});

test('a file of zero characters is parsed and published but never documentAnalyzed; a blank one is', async () => {
  const library = path.join(FIXTURES, 'empty-file', 'Library');
  const c = new DoubleClient(library);
  try {
    await c.initialize();
    await c.workspaceLoaded();
    const empty = path.join(library, 'Empty.fs');
    const published = c.waitForNext((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri === uri(empty), 60000, 'Empty.fs diagnostics');
    c.notify('textDocument/didOpen', { textDocument: { uri: uri(empty), languageId: 'fsharp', version: 1, text: '' } });
    assert.deepEqual((await published).params.diagnostics.map((d) => d.code), [222]);
    assert.ok(c.notifications.some((n) => n.method === 'fsharp/fileParsed' && n.params.content === uri(empty)));
    // Checks run one after another: once the blank file is analysed, the empty one is done.
    await c.open(path.join(library, 'Spaces.fs'));
    assert.ok(!c.notifications.some((n) => n.method === 'fsharp/documentAnalyzed' && n.params.textDocument.uri === uri(empty)));
  } finally {
    await c.stop();
  }
});

test('files on disk are read without their byte-order mark, as FSAC reads them', async () => {
  const bom = path.join(FIXTURES, 'bom', 'Text');
  const c = new DoubleClient(bom);
  try {
    await c.initialize();
    await c.workspaceLoaded();
    // Counting.fs uses Words.fs, which the double reads from disk (a mark and all).
    const counting = path.join(bom, 'Counting.fs');
    assert.ok(fs.readFileSync(path.join(bom, 'Words.fs')).subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf])));
    await c.open(counting, fs.readFileSync(counting, 'utf8').replace(/^\uFEFF/, ''));
    assert.deepEqual(c.lastDiagnostics(counting).diagnostics, []);
  } finally {
    await c.stop();
  }
});
