// workspace/symbol and documentSymbol list declarations only, as FSAC's navigation items
// do: union cases matched in patterns (in a member of the union, in a `let rec … and`
// group, in a local function) are uses, not declarations. Each symbol the double lists is
// checked against the compiler: go-to-definition at its location lands on itself.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { DoubleClient, uri } from './client.mjs';
/** LSP SymbolKind values FSAC's glyphs map to. */
const SymbolKind = { Module: 2, Class: 5, Method: 6, Property: 7, Field: 8, Variable: 13 };

export const SHAPES = `module Shapes

type Shape =
    | Circle of float
    | [<System.Obsolete("no")>] Square of float
    member this.IsRound =
        match this with
        | Circle _ -> true
        | Square _ -> false

type Color = Red | Green of int

let rec isSquare shape =
    match shape with
    | Square _ -> true
    | Circle _ -> false
and helper shape =
    match shape with
    | Circle _ -> false
    | _ -> true

let classify shape =
    let rec inner s =
        match s with
        | Circle _ -> 1
        | _ -> 0
    and other s =
        match s with
        | Square _ -> 2
        | _ -> 0
    inner shape + other shape

type Point = { X: int }
and Segment =
    | Between of Point * Point
`;

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-nav-'));
const shapes = path.join(root, 'Shapes.fs');
let c;
before(async () => {
  fs.writeFileSync(path.join(root, 'Shapes.fsproj'), `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup>
  <ItemGroup><Compile Include="Shapes.fs" /></ItemGroup>
</Project>`);
  fs.writeFileSync(shapes, SHAPES);
  c = new DoubleClient(root);
  await c.initialize();
  await c.workspaceLoaded();
});
after(async () => { await c.stop(); fs.rmSync(root, { recursive: true, force: true }); });

test('documentSymbol: union cases are declared in the representation only; `and` continues its own group', async () => {
  // FCS's navigation items, kinds as FSAC maps NavigationItemKind: a type is a Class, a union
  // case Other (Variable), a module-level let a Field, a member a Method. Sorted by line here;
  // FCS lists the top-level declarations in its own order.
  const symbols = await c.request('textDocument/documentSymbol', { textDocument: { uri: uri(shapes) } });
  const items = symbols.map((i) => [i.range.start.line + 1, i.name, i.kind]).sort((a, b) => a[0] - b[0] || a[1].localeCompare(b[1]));
  const { Module, Class, Field, Method, Variable } = SymbolKind;
  assert.deepEqual(items.map(([line, name, kind]) => `${name}:${kind}@${line}`), [
    `Shapes:${Module}@1`,
    `Shape:${Class}@3`, `Circle:${Variable}@4`, `Square:${Variable}@5`, `IsRound:${Method}@6`,
    `Color:${Class}@11`, `Green:${Variable}@11`, `Red:${Variable}@11`,
    `isSquare:${Field}@13`, `helper:${Field}@17`, `classify:${Field}@22`,
    `Point:${Class}@33`, `X:${Field}@33`, `Segment:${Class}@34`, `Between:${Variable}@35`,
  ]);
});

test('workspace/symbol of a union case lists its declaration once, with the union as container', async () => {
  for (const [query, line] of [['Circle', 3], ['Square', 4], ['Between', 34]]) {
    const found = await c.request('workspace/symbol', { query });
    assert.deepEqual(found.map((s) => [s.name, s.containerName, s.location.range.start.line]), [[query, line === 34 ? 'Segment' : 'Shape', line]], query);
  }
  assert.deepEqual((await c.request('workspace/symbol', { query: 'Shapes.he' })).map((s) => s.name), ['helper']);
  assert.deepEqual(await c.request('workspace/symbol', { query: 'other' }), [], 'a local function is no navigation item');
});

test('every symbol workspace/symbol lists is a declaration by the compiler: its definition is itself', async () => {
  await c.open(shapes);
  const all = [];
  for (const query of ['S', 'C', 'R', 'G', 'I', 'i', 'h', 'c', 'P', 'X', 'B']) all.push(...await c.request('workspace/symbol', { query }));
  assert.ok(all.length >= 12, JSON.stringify(all));
  for (const s of all.filter((s) => s.kind !== SymbolKind.Module)) {
    const at = await c.request('textDocument/definition', { textDocument: { uri: uri(shapes) }, position: s.location.range.start });
    // FSAC's item range is the whole declaration (a type's runs over its representation); the
    // definition is its name, where the declaration starts.
    assert.deepEqual(at?.range.start, s.location.range.start, `${s.name} at line ${s.location.range.start.line + 1}`);
  }
});
