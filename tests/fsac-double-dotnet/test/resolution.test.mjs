// Edge cases of position handling, on small workspaces written to a temp dir:
// two files with the same identifier at the same range (the declaring file must
// be told apart by the compiler), and UTF-16 columns after non-ASCII text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { DoubleClient, uri } from './client.mjs';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-res-'));
const files = {
  a: ['A.fs', 'module A\n\nlet value = 1\n'],
  b: ['B.fs', 'module B\n\nlet value = "two"\nlet fromA = A.value + 1\nlet own = value.Length\n'],
  text: ['Text.fs', 'module Text\n\nlet greeting = "h\u00e9llo \ud83d\ude00\ud83d\ude00" + 1\n'],
};
let c;
before(async () => {
  fs.writeFileSync(path.join(root, 'Res.fsproj'), `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup>
  <ItemGroup>${Object.values(files).map(([f]) => `<Compile Include="${f}" />`).join('')}</ItemGroup>
</Project>`);
  for (const [f, text] of Object.values(files)) fs.writeFileSync(path.join(root, f), text);
  c = new DoubleClient(root);
  await c.initialize();
  await c.workspaceLoaded();
  for (const [f] of Object.values(files)) await c.open(path.join(root, f));
});
after(async () => { await c.stop(); fs.rmSync(root, { recursive: true, force: true }); });

const pos = (file, line, character) => ({ textDocument: { uri: uri(path.join(root, file)) }, position: { line, character } });

test('same identifier at the same range in two files: definition picks the declaring one', async () => {
  const fromA = await c.request('textDocument/definition', pos('B.fs', 3, 16)); // A.value
  assert.equal(fromA.uri, uri(path.join(root, 'A.fs')));
  assert.deepEqual(fromA.range, { start: { line: 2, character: 4 }, end: { line: 2, character: 9 } });
  const own = await c.request('textDocument/definition', pos('B.fs', 4, 11)); // value.Length
  assert.equal(own.uri, uri(path.join(root, 'B.fs')));
});

test('same identifier at the same range in two files: references do not mix them', async () => {
  const refsA = await c.request('textDocument/references', { ...pos('A.fs', 2, 6), context: { includeDeclaration: true } });
  assert.deepEqual(refsA.map((r) => `${path.basename(new URL(r.uri).pathname)}:${r.range.start.line}:${r.range.start.character}`).sort(), ['A.fs:2:4', 'B.fs:3:14']);
  const refsB = await c.request('textDocument/references', { ...pos('B.fs', 2, 6), context: { includeDeclaration: true } });
  assert.deepEqual(refsB.map((r) => `${path.basename(new URL(r.uri).pathname)}:${r.range.start.line}:${r.range.start.character}`).sort(), ['B.fs:2:4', 'B.fs:4:10']);
});

test('hover at both ends of an identifier, and just outside it', async () => {
  const line = files.b[1].split('\n')[3]; // let fromA = A.value + 1
  const start = line.indexOf('value');
  for (const ch of [start, start + 2, start + 5]) {
    const h = await c.request('textDocument/hover', pos('B.fs', 3, ch));
    assert.equal(h.contents[0].value, 'val value: int', `character ${ch}`);
  }
  const plus = await c.request('textDocument/hover', pos('B.fs', 3, start + 7));
  assert.notEqual(plus?.contents?.[0]?.value, 'val value: int');
});

test('diagnostic columns are UTF-16 code units after non-ASCII text', async () => {
  const text = files.text[1];
  const line = text.split('\n')[2];
  const d = c.lastDiagnostics(path.join(root, 'Text.fs')).diagnostics;
  // errors on `+` and on the literal 1; their columns count each emoji as two UTF-16 units
  const one = d.find((x) => x.code === 1);
  assert.deepEqual(one.range, { start: { line: 2, character: line.lastIndexOf('1') }, end: { line: 2, character: line.lastIndexOf('1') + 1 } });
  assert.ok(d.every((x) => line.slice(x.range.start.character, x.range.end.character).trim().length === 1), 'each range covers one ASCII token');
  assert.ok(d.some((x) => line.slice(x.range.start.character, x.range.end.character) === '+'));
});
