// Reads the expected-reference markers of the fixtures (see fixtures/README.md).
// A marker line is `//>` then spaces, a run of carets, a kind and a full name:
//     s.Name <- "x"
// //>   ^^^^ mutation Shipping.Domain.Shipment.Name
// The carets' columns are the site's columns on the nearest line above that is
// not itself a marker line. This module is test-only: the double never reads markers.
import fs from 'node:fs';
import path from 'node:path';

export const MARKER = /^(\s*\/\/>)(\s*)(\^+)\s+([a-z-]+)\s+(\S+)\s*$/;
export const KINDS = new Set(['decl', 'signature', 'construction', 'copy-update', 'mutation', 'pattern', 'read', 'ref']);

/** Markers of one file: [{file, line, character, length, kind, symbol, text}] (0-based). */
export function parseMarkers(file, text = fs.readFileSync(file, 'utf8')) {
  const lines = text.split('\n');
  const out = [];
  let siteLine = -1;
  lines.forEach((line, i) => {
    const m = MARKER.exec(line);
    if (!m) {
      if (/^\s*\/\/>/.test(line)) throw new Error(`${file}:${i + 1}: malformed marker line`);
      siteLine = i;
      return;
    }
    if (siteLine < 0) throw new Error(`${file}:${i + 1}: marker before any code line`);
    const [, prefix, gap, carets, kind, symbol] = m;
    if (!KINDS.has(kind)) throw new Error(`${file}:${i + 1}: unknown marker kind ${kind}`);
    const character = prefix.length + gap.length;
    out.push({
      file, line: siteLine, character, length: carets.length, kind, symbol,
      text: lines[siteLine].slice(character, character + carets.length),
    });
  });
  return out;
}

/** All markers of every .fs and .fsi file below `dir`. */
export function parseTree(dir) {
  const out = [];
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const full = path.join(d, e.name);
      if (e.isDirectory()) { if (e.name !== 'obj' && e.name !== 'bin') walk(full); } else if (e.name.endsWith('.fs') || e.name.endsWith('.fsi')) out.push(...parseMarkers(full));
    }
  };
  walk(dir);
  return out;
}
