// textDocument/codeAction on fixtures/code-actions: "Make declaration 'mutable'"
// (FS0027) and "Replace with '<suggestion>'" (FS0039 with suggestions), computed
// from the diagnostics the client echoes; applying the edits and re-checking
// leaves only the diagnostic no fix applies to.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { DoubleClient, FIXTURES, CLIENT_CAPS, uri } from './client.mjs';

const ROOT = path.join(FIXTURES, 'code-actions');
const FILE = path.join(ROOT, 'Mutation.fs');
const TEXT = fs.readFileSync(FILE, 'utf8');
const LINES = TEXT.split('\n');
const lineOf = (needle) => LINES.findIndex((l) => l.includes(needle));

let c;
let diags;
before(async () => {
  c = new DoubleClient(ROOT);
  await c.initialize({ capabilities: { ...CLIENT_CAPS, workspace: { workspaceEdit: { documentChanges: true } } } });
  await c.open(FILE, TEXT, 4);
  diags = c.lastDiagnostics(FILE).diagnostics;
});
after(async () => { await c.stop(); });

const actionsFor = (ds) => c.request('textDocument/codeAction', { textDocument: { uri: uri(FILE) }, range: ds[0].range, context: { diagnostics: ds } });
const diagAt = (line, code) => diags.find((d) => d.range.start.line === line && d.code === code);

/** Apply LSP text edits (non-overlapping) to a text. */
function applyEdits(text, edits) {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text[i] === '\n') starts.push(i + 1);
  const off = (p) => starts[p.line] + p.character;
  return [...edits].sort((a, b) => off(b.range.start) - off(a.range.start))
    .reduce((t, e) => t.slice(0, off(e.range.start)) + e.newText + t.slice(off(e.range.end)), text);
}

test('the fixture has the diagnostics the fixes are for', () => {
  assert.deepEqual(diags.map((d) => `${d.range.start.line}:${d.code}`).sort(), [
    `${lineOf('total <- total')}:27`, `${lineOf("lenght'")}:39`, `${lineOf('counter <- counter')}:27`, `${lineOf('limit <- 5')}:27`,
  ].sort());
});

test("FS0027 on a local let: \"Make declaration 'mutable'\" inserts `mutable ` at the compiler's declaration", async () => {
  const d = diagAt(lineOf('total <- total'), 27);
  const actions = await actionsFor([d]);
  const decl = { line: lineOf('let total = 0'), character: LINES[lineOf('let total = 0')].indexOf('total') };
  assert.deepEqual(actions, [{
    title: "Make declaration 'mutable'",
    kind: 'refactor', // FSAC's FixKind.Refactor for this fix
    diagnostics: [d],
    edit: { documentChanges: [{ textDocument: { uri: uri(FILE), version: 4 }, edits: [{ range: { start: decl, end: decl }, newText: 'mutable ' }] }] },
  }]);
});

test('FS0027 on a module-level value declared elsewhere in the file; a parameter gets no fix (null)', async () => {
  const d = diagAt(lineOf('counter <- counter'), 27);
  const [action] = await actionsFor([d]);
  assert.deepEqual(action.edit.documentChanges[0].edits[0].range.start, { line: lineOf('let counter = 10'), character: 4 });
  assert.equal(await actionsFor([diagAt(lineOf('limit <- 5'), 27)]), null);
});

test('FS0039 with suggestions: "Replace with \'<name>\'" replaces the diagnostic range; code matched as int or string', async () => {
  const d = diagAt(lineOf("lenght'"), 39);
  const actions = await actionsFor([d]);
  assert.deepEqual(actions.map((a) => [a.title, a.kind]), [["Replace with 'length''", 'quickfix']]);
  assert.deepEqual(actions[0].edit.documentChanges[0].edits, [{ range: d.range, newText: "length'" }]);
  // FSAC compares codes as strings: "27" matches, "FS0027" does not
  const m = diagAt(lineOf('total <- total'), 27);
  assert.equal((await actionsFor([{ ...m, code: '27' }])).length, 1);
  assert.equal(await actionsFor([{ ...m, code: 'FS0027' }]), null);
});

test('diagnostics no fix handles answer null; codeAction/resolve is -32601', async () => {
  const other = { range: { start: { line: 0, character: 0 }, end: { line: 0, character: 6 } }, severity: 1, code: 1, source: 'F# Compiler', message: 'This expression was expected to have type' };
  assert.equal(await actionsFor([other]), null);
  assert.equal(await c.request('textDocument/codeAction', { textDocument: { uri: uri(FILE) }, range: other.range, context: { diagnostics: [] } }), null);
  await assert.rejects(c.request('codeAction/resolve', { title: 'x' }), (e) => e.code === -32601);
});

test('applying every offered fix and re-checking leaves only the unfixable diagnostic', async () => {
  const all = await actionsFor(diags);
  assert.deepEqual(all.map((a) => a.title), ["Replace with 'length''", "Make declaration 'mutable'", "Make declaration 'mutable'"]);
  const fixed = applyEdits(TEXT, all.flatMap((a) => a.edit.documentChanges[0].edits));
  assert.match(fixed, /let mutable total = 0/);
  assert.match(fixed, /let mutable counter = 10/);
  const analyzed = c.waitForNext((n) => n.method === 'fsharp/documentAnalyzed' && n.params.textDocument.uri === uri(FILE) && n.params.textDocument.version === 5, 30000);
  c.notify('textDocument/didChange', { textDocument: { uri: uri(FILE), version: 5 }, contentChanges: [{ text: fixed }] });
  await analyzed;
  const after = c.lastDiagnostics(FILE).diagnostics;
  assert.deepEqual(after.map((d) => `${d.range.start.line}:${d.code}`), [`${lineOf('limit <- 5')}:27`]);
});
