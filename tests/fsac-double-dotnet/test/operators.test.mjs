// Custom operators are symbols like any other, found at a position the way FSAC finds them
// (its Lexer.findLongIdents runs the F# tokenizer over the line: an identifier touching the
// cursor wins, else an operator): references, definition, hover, highlights and rename at an
// operator's declaration inside parentheses and at an infix or prefix use, across files.
// Before: the double took the identifier island at the position, which an operator is not, so
// every request at `>>=` or `+=` answered nothing (`[]`, null).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { DoubleClient, uri } from './client.mjs';

const OPS = `module Ops

open System.Text

let inline (>>=) (result: Result<'a, 'e>) (binder: 'a -> Result<'b, 'e>) = Result.bind binder result

module internal ViewBuilder =
    let inline internal (+=) (sb: StringBuilder) (text: string) = sb.Append text
    let inline internal (+!) (sb: StringBuilder) (text: string) = sb.Append text |> ignore

    let render (name: string) =
        let sb = StringBuilder()
        sb += "<" += name +! ">"
        sb.ToString()
`;

const USE = `module Use

open Ops
open Ops.ViewBuilder

let parsed: Result<int, string> = Ok 3 >>= (fun n -> Ok(n + 1))
let chained: Result<int, string> = Ok 1 >>= Ok >>= (fun n -> Ok(n * 2))
let prefix: Result<int, string> = (>>=) (Ok 2) Ok
let built = (StringBuilder() += "a" += "b").ToString()
`;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-ops-'));
const files = { 'Ops.fs': OPS, 'Use.fs': USE };
let c;
before(async () => {
  fs.writeFileSync(path.join(root, 'Ops.fsproj'), `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup>
  <ItemGroup><Compile Include="Ops.fs" /><Compile Include="Use.fs" /></ItemGroup>
</Project>`);
  for (const [f, text] of Object.entries(files)) fs.writeFileSync(path.join(root, f), text);
  c = new DoubleClient(root);
  await c.initialize();
  await c.workspaceLoaded();
  for (const f of Object.keys(files)) await c.open(path.join(root, f));
});
after(async () => { await c.stop(); fs.rmSync(root, { recursive: true, force: true }); });

/** Every occurrence of `op` in `file` outside comments: `file:line:start-end`, 0-based. */
function sitesOf(file, op, { skipLines = [] } = {}) {
  const out = [];
  files[file].split('\n').forEach((line, n) => {
    if (skipLines.some((s) => line.includes(s))) return;
    for (let i = line.indexOf(op); i >= 0; i = line.indexOf(op, i + 1)) {
      const before = line[i - 1] ?? ' ';
      const after = line[i + op.length] ?? ' ';
      // A whole operator: not part of a longer one (`+=` inside `+=!`).
      if (!/[!%&*+\-./<=>?@^|~]/.test(before) && !/[!%&*+\-./<=>?@^|~]/.test(after)) out.push(`${file}:${n}:${i}-${i + op.length}`);
    }
  });
  return out;
}

/** The position of the `nth` whole occurrence of `op` in `file`, `offset` characters in. */
function at(file, op, nth = 0, offset = 0) {
  const [, line, span] = sitesOf(file, op)[nth].split(':');
  const start = Number(span.split('-')[0]);
  return { textDocument: { uri: uri(path.join(root, file)) }, position: { line: Number(line), character: start + offset } };
}

const spanOf = (file, r) => `${file}:${r.start.line}:${r.start.character}-${r.end.character}`;
const located = (locations) => locations.map((l) => spanOf(path.basename(new URL(l.uri).pathname), l.range)).sort();

test('references at an operator\'s declaration, at every character of it, list every use in every file', async () => {
  const expected = [...sitesOf('Ops.fs', '>>='), ...sitesOf('Use.fs', '>>=')].sort();
  assert.equal(expected.length, 5);
  for (const offset of [0, 1, 2, 3]) {
    const refs = await c.request('textDocument/references', { ...at('Ops.fs', '>>=', 0, offset), context: { includeDeclaration: true } });
    assert.deepEqual(located(refs), expected, `character ${offset} of (>>=)`);
  }
});

test('references at an infix use and at a prefix use are the same as at the declaration', async () => {
  const expected = [...sitesOf('Ops.fs', '>>='), ...sitesOf('Use.fs', '>>=')].sort();
  for (const nth of [0, 1, 2, 3]) {
    const refs = await c.request('textDocument/references', { ...at('Use.fs', '>>=', nth, 1), context: { includeDeclaration: true } });
    assert.deepEqual(located(refs), expected, `use ${nth} of >>=`);
  }
});

test('an internal operator of an internal module (`sb += "<" += name +! ">"`): its uses, not its neighbours\'', async () => {
  const plusEquals = [...sitesOf('Ops.fs', '+='), ...sitesOf('Use.fs', '+=')].sort();
  assert.equal(plusEquals.length, 5);
  for (const position of [at('Ops.fs', '+=', 0, 0), at('Ops.fs', '+=', 2, 2), at('Use.fs', '+=', 1, 1)]) {
    const refs = await c.request('textDocument/references', { ...position, context: { includeDeclaration: true } });
    assert.deepEqual(located(refs), plusEquals, JSON.stringify(position.position));
  }
  const bang = await c.request('textDocument/references', { ...at('Ops.fs', '+!', 1, 0), context: { includeDeclaration: true } });
  assert.deepEqual(located(bang), sitesOf('Ops.fs', '+!').sort());
});

test('definition, hover and highlights at an infix use name the operator', async () => {
  const definition = await c.request('textDocument/definition', at('Use.fs', '>>=', 1, 2));
  assert.equal(spanOf(path.basename(new URL(definition.uri).pathname), definition.range), sitesOf('Ops.fs', '>>=')[0]);
  const hover = await c.request('textDocument/hover', at('Use.fs', '>>=', 0, 1));
  assert.match(hover.contents[0].value, /\(>>=\)/);
  assert.ok(hover.contents.some((part) => part === '*Full name: Ops.(>>=)*'), JSON.stringify(hover.contents));
  const highlights = await c.request('textDocument/documentHighlight', at('Use.fs', '+=', 0, 0));
  assert.deepEqual(highlights.map((h) => spanOf('Use.fs', h.range)).sort(), sitesOf('Use.fs', '+=').sort());
});

test('prepareRename and rename at an operator: its own characters, renamed to an operator as written', async () => {
  const range = await c.request('textDocument/prepareRename', at('Use.fs', '>>=', 2, 0));
  assert.equal(spanOf('Use.fs', range), sitesOf('Use.fs', '>>=')[2]);
  const edit = await c.request('textDocument/rename', { ...at('Ops.fs', '>>=', 0, 1), newName: '>>=!' });
  const changed = Object.entries(edit.changes).flatMap(([u, edits]) =>
    edits.map((e) => `${spanOf(path.basename(new URL(u).pathname), e.range)}=${e.newText}`)).sort();
  assert.deepEqual(changed, [...sitesOf('Ops.fs', '>>='), ...sitesOf('Use.fs', '>>=')].sort().map((s) => `${s}=>>=!`));
  // FSAC's adjustRenameSymbolNewName: an operator's new name must be an operator.
  await assert.rejects(c.request('textDocument/rename', { ...at('Ops.fs', '>>=', 0, 1), newName: 'bind' }),
    (e) => e.code === -32602 && /not a valid operator name/.test(e.message));
});
