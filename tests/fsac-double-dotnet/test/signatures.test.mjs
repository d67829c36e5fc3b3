// A signature file and its implementation are one symbol (FCS's GetUsesOfSymbolInFile, which
// FSAC's references use, treats them so): references asked at the `.fsi` `val`, at the `let`
// or at a use in another project list the signature, the implementation and every use. The
// expectations are the names fixture's markers.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { DoubleClient, FIXTURES, uri } from './client.mjs';
import { parseTree } from './markers.mjs';

const ROOT = path.join(FIXTURES, 'names');
let c;
before(async () => {
  c = new DoubleClient(ROOT);
  await c.initialize();
  await c.workspaceLoaded();
  for (const file of ['App/Program.fs', 'Toolkit/Parsing.fsi', 'Toolkit/Parsing.fs']) await c.open(path.join(ROOT, file));
});
after(async () => { await c.stop(); });

const key = (file, range) => `${path.relative(ROOT, file)}:${range.start.line}:${range.start.character}-${range.end.character}`;

test('references of a value declared in a signature file, from the signature, the implementation and a use', async () => {
  const expected = parseTree(ROOT).filter((m) => m.symbol === 'Toolkit.Parsing.count')
    .map((m) => key(m.file, { start: { line: m.line, character: m.character }, end: { character: m.character + m.length } })).sort();
  for (const [file, line, character] of [['Toolkit/Parsing.fsi', 14, 4], ['Toolkit/Parsing.fs', 11, 8], ['App/Program.fs', 22, 24]]) {
    const found = await c.request('textDocument/references', {
      textDocument: { uri: uri(path.join(ROOT, file)) }, position: { line, character }, context: { includeDeclaration: true },
    });
    assert.deepEqual(found.map((l) => key(new URL(l.uri).pathname, l.range)).sort(), expected, `${file}:${line}:${character}`);
  }
});
