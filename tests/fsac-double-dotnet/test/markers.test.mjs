// The fixture markers' own consistency: the shipping fixture's `//> ^ kind Symbol` comments,
// which the end-to-end tests read as the expected uses, sit under the identifiers they name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { parseTree, parseMarkers } from './markers.mjs';
import { FIXTURES } from './client.mjs';

const SHIPPING = path.join(FIXTURES, 'shipping');

test('fixture markers are well formed: carets sit under the named identifier', () => {
  const markers = parseTree(SHIPPING);
  assert.ok(markers.length > 40);
  for (const m of markers) assert.equal(m.text, m.symbol.split('.').at(-1), `${m.file}:${m.line + 1}`);
  // every marked symbol has exactly one declaration marker
  for (const symbol of new Set(markers.map((m) => m.symbol))) {
    assert.equal(markers.filter((m) => m.symbol === symbol && m.kind === 'decl').length, 1, symbol);
  }
  const kinds = new Set(markers.map((m) => m.kind));
  for (const k of ['decl', 'construction', 'copy-update', 'mutation', 'pattern', 'read', 'ref']) assert.ok(kinds.has(k), k);
  assert.throws(() => parseMarkers('x.fs', 'let a = 1\n//> ^ bogus A.a\n'), /unknown marker kind/);
});
