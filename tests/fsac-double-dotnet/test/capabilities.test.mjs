// The double never advertises a method it answers with -32601: every request method that
// initialize's capabilities promise is sent once (the list is derived from the capabilities
// object, so a new capability without an entry here fails), and the answers that carry
// meaning are checked against the compiler's view of a small workspace.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { DoubleClient, uri, CLIENT_CAPS } from './client.mjs';
/** FSAC 0.83.0's initialize result, as the protocol notes list it. */
const initializeResult = () => JSON.parse(fs.readFileSync(new URL('./fsac-initialize-result.json', import.meta.url), 'utf8'));

const SOURCE = `module Orders

open System
open System.Text

type Order = { Id: int; Total: decimal }

let describe (order: Order) =
    let label = string order.Id
    label + ": " + string order.Total

let twice order =
    describe order + describe order
`;
const root = fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-caps-'));
const file = path.join(root, 'Orders.fs');
const doc = { uri: uri(file) };
const at = (line, character) => ({ textDocument: doc, position: { line, character } });
const DESCRIBE_DECL = at(7, 5);
let c;

before(async () => {
  fs.writeFileSync(path.join(root, 'Orders.fsproj'), `<Project Sdk="Microsoft.NET.Sdk">
  <PropertyGroup><TargetFramework>net8.0</TargetFramework></PropertyGroup>
  <ItemGroup><Compile Include="Orders.fs" /></ItemGroup>
</Project>`);
  fs.writeFileSync(file, SOURCE);
  c = new DoubleClient(root);
  await c.initialize({ capabilities: { ...CLIENT_CAPS, workspace: { workspaceEdit: { documentChanges: true } } } });
  await c.workspaceLoaded();
  await c.open(file);
});
after(async () => { await c.stop(); fs.rmSync(root, { recursive: true, force: true }); });

/** Per capability: the request methods it promises, each with the params to send. */
function advertisedRequests(caps) {
  const whole = { textDocument: doc };
  const lens = { range: { start: { line: 7, character: 4 }, end: { line: 7, character: 12 } }, data: [uri(file), 'signature'] };
  const item = { name: 'describe', kind: 12, uri: uri(file), range: lens.range, selectionRange: lens.range };
  const wanted = {
    textDocumentSync: () => [], // notifications only
    hoverProvider: () => [['textDocument/hover', DESCRIBE_DECL]],
    completionProvider: (o) => [['textDocument/completion', at(8, 25)], ...(o.resolveProvider ? [['completionItem/resolve', { label: 'Id' }]] : [])],
    signatureHelpProvider: () => [['textDocument/signatureHelp', at(12, 13)]],
    definitionProvider: () => [['textDocument/definition', at(12, 5)]],
    typeDefinitionProvider: () => [['textDocument/typeDefinition', at(11, 10)]], // `order`: an Order
    implementationProvider: () => [['textDocument/implementation', at(12, 5)]],
    referencesProvider: () => [['textDocument/references', { ...DESCRIBE_DECL, context: { includeDeclaration: true } }]],
    documentHighlightProvider: () => [['textDocument/documentHighlight', DESCRIBE_DECL]],
    documentSymbolProvider: () => [['textDocument/documentSymbol', whole]],
    workspaceSymbolProvider: (o) => [['workspace/symbol', { query: 'desc' }], ...(o.resolveProvider ? [['workspaceSymbol/resolve', { name: 'describe', kind: 12, location: { uri: uri(file) } }]] : [])],
    codeActionProvider: (o) => [['textDocument/codeAction', { ...whole, range: lens.range, context: { diagnostics: [] } }], ...(o.resolveProvider ? [['codeAction/resolve', { title: 'x' }]] : [])],
    codeLensProvider: (o) => [['textDocument/codeLens', whole], ...(o.resolveProvider ? [['codeLens/resolve', lens]] : [])],
    documentFormattingProvider: () => [['textDocument/formatting', { ...whole, options: { tabSize: 4, insertSpaces: true } }]],
    documentRangeFormattingProvider: () => [['textDocument/rangeFormatting', { ...whole, range: lens.range, options: { tabSize: 4, insertSpaces: true } }]],
    renameProvider: (o) => [['textDocument/rename', { ...DESCRIBE_DECL, newName: 'render' }], ...(o.prepareProvider ? [['textDocument/prepareRename', DESCRIBE_DECL]] : [])],
    foldingRangeProvider: () => [['textDocument/foldingRange', whole]],
    selectionRangeProvider: () => [['textDocument/selectionRange', { ...whole, positions: [{ line: 8, character: 10 }] }]],
    callHierarchyProvider: () => [['textDocument/prepareCallHierarchy', DESCRIBE_DECL], ['callHierarchy/incomingCalls', { item }], ['callHierarchy/outgoingCalls', { item }]],
    semanticTokensProvider: (o) => [
      ...(o.full ? [['textDocument/semanticTokens/full', whole]] : []),
      ...(o.full?.delta ? [['textDocument/semanticTokens/full/delta', { ...whole, previousResultId: '1' }]] : []),
      ...(o.range ? [['textDocument/semanticTokens/range', { ...whole, range: lens.range }]] : []),
    ],
    inlayHintProvider: (o) => [['textDocument/inlayHint', { ...whole, range: { start: { line: 0, character: 0 }, end: { line: 13, character: 0 } } }], ...(o.resolveProvider ? [['inlayHint/resolve', { position: { line: 0, character: 0 }, label: 'x' }]] : [])],
    inlineValueProvider: () => [['textDocument/inlineValue', { ...whole, range: lens.range, context: { frameId: 0, stoppedLocation: lens.range } }]],
    executeCommandProvider: (o) => (o.commands ?? []).map((command) => ['workspace/executeCommand', { command, arguments: [] }]),
  };
  return Object.entries(caps).flatMap(([name, options]) => {
    if (options === false || options === undefined) return [];
    assert.ok(wanted[name], `capability ${name} is advertised but this test does not know its methods`);
    return wanted[name](typeof options === 'object' ? options : {}).map(([method, params]) => ({ name, method, params }));
  });
}

test('every advertised request method is answered, none with -32601 or any other error', async () => {
  const requests = advertisedRequests(initializeResult().capabilities);
  assert.ok(requests.length >= 28, `${requests.length} methods`);
  const failures = [];
  for (const { name, method, params } of requests) {
    try { await c.request(method, params); } catch (e) { failures.push(`${name} ${method}: ${e.code} ${e.message}`); }
  }
  assert.deepEqual(failures, []);
});

test('documentHighlight lists the uses of the symbol in the file, from the compiler', async () => {
  const ranges = (await c.request('textDocument/documentHighlight', DESCRIBE_DECL)).map((h) => [h.range.start.line, h.range.start.character, h.kind]);
  assert.deepEqual(ranges, [[7, 4, undefined], [12, 4, undefined], [12, 21, undefined]]);
  // `label` is local to describe: its two sites, and no other identifier spelled the same.
  assert.deepEqual((await c.request('textDocument/documentHighlight', at(9, 6))).map((h) => h.range.start.line), [8, 9]);
});

test('rename edits every site with the open version; prepareRename refuses external symbols', async () => {
  const edit = await c.request('textDocument/rename', { ...DESCRIBE_DECL, newName: 'render it' });
  assert.equal(edit.documentChanges.length, 1);
  assert.deepEqual(edit.documentChanges[0].textDocument.version, 1);
  assert.deepEqual(edit.documentChanges[0].edits.map((e) => [e.range.start.line, e.range.start.character, e.newText]),
    [[7, 4, '``render it``'], [12, 4, '``render it``'], [12, 21, '``render it``']]);
  await assert.rejects(c.request('textDocument/prepareRename', at(8, 17)), (e) => e.code === -32602 && /external/.test(e.message)); // `string`
});

test('code lenses come unresolved and resolve to the compiler\'s signature; folding follows FCS\'s outlining', async () => {
  const lenses = await c.request('textDocument/codeLens', { textDocument: doc });
  assert.deepEqual(lenses.map((l) => [l.range.start.line, l.data[1], l.command]), [[7, 'signature', undefined], [11, 'signature', undefined]]);
  const resolved = await c.request('codeLens/resolve', lenses[0]);
  assert.deepEqual(resolved.command, { title: 'Order -> string', command: '' });
  const folds = await c.request('textDocument/foldingRange', { textDocument: doc });
  assert.deepEqual(folds.map((f) => [f.startLine, f.endLine, f.kind]), [[0, 12, undefined], [2, 3, 'imports'], [7, 9, undefined], [11, 12, undefined]], 'the module, the opens, each function');
  const members = (await c.request('textDocument/completion', at(8, 29))).items.map((i) => [i.label, i.kind]);
  assert.deepEqual(members.filter(([label]) => label === 'Id' || label === 'Total'), [['Id', 5], ['Total', 5]]);
  const incoming = await c.request('callHierarchy/incomingCalls', { item: (await c.request('textDocument/prepareCallHierarchy', DESCRIBE_DECL))[0] });
  assert.deepEqual(incoming.map((i) => [i.from.name, i.fromRanges.length]), [['twice', 2]]);
});
