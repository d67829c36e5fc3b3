// The double on fixtures/shipping, driven over real stdio: initialize, workspace
// loading, diagnostics, hover, definition, references (checked against the
// fixture's //> markers), symbols, signature, cancellation. One shared instance.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { DoubleClient, FIXTURES, uri } from './client.mjs';
import { parseTree } from './markers.mjs';
/** FSAC 0.83.0's initialize result, as the protocol notes list it. */
const initializeResult = () => JSON.parse(fs.readFileSync(new URL('./fsac-initialize-result.json', import.meta.url), 'utf8'));

const ROOT = path.join(FIXTURES, 'shipping');
const F = {
  types: path.join(ROOT, 'src/Shipping.Domain/Types.fs'),
  visibility: path.join(ROOT, 'src/Shipping.Domain/Visibility.fs'),
  operations: path.join(ROOT, 'src/Shipping.Domain/Operations.fs'),
  clock: path.join(ROOT, 'src/Shared/Clock.fs'),
  program: path.join(ROOT, 'src/Shipping.App/Program.fs'),
  tests: path.join(ROOT, 'tests/Shipping.Tests/ShipmentTests.fs'),
};
const markers = parseTree(ROOT);
const at = (m) => ({ textDocument: { uri: uri(m.file) }, position: { line: m.line, character: m.character } });
const key = (file, range) => `${path.relative(ROOT, file)}:${range.start.line + 1}:${range.start.character}-${range.end.character}`;
const marked = (symbol) => markers.filter((m) => m.symbol === symbol)
  .map((m) => key(m.file, { start: { line: m.line, character: m.character }, end: { character: m.character + m.length } })).sort();

let c;
let initResult;
before(async () => {
  c = new DoubleClient(ROOT, {}, ['--adaptive-lsp-server-enabled']);
  initResult = await c.initialize();
  await c.workspaceLoaded();
  for (const f of Object.values(F)) await c.open(f);
});
after(async () => { await c.stop(); });

test('initialize returns FSAC 0.83.0 capabilities exactly, without executeCommandProvider', () => {
  assert.deepEqual(initResult, initializeResult());
  assert.equal(initResult.serverInfo.name, 'FsAutoComplete');
  assert.equal(initResult.capabilities.executeCommandProvider, undefined);
  assert.equal(initResult.capabilities.textDocumentSync.change, 2);
});

test('AutomaticWorkspaceInit loads the solution with FSAC notifications and progress', () => {
  const ws = c.notifications.filter((n) => n.method === 'fsharp/notifyWorkspace').map((n) => JSON.parse(n.params.content));
  const projects = fs.readFileSync(path.join(ROOT, 'Shipping.sln'), 'utf8').match(/[\w.\\]+\.fsproj/g).map((p) => path.join(ROOT, p.replace(/\\/g, '/')));
  assert.deepEqual(ws.filter((w) => w.Kind === 'project').map((w) => w.Data.Project).sort(), [...projects].sort());
  assert.ok(ws.findIndex((w) => w.Kind === 'projectLoading') < ws.findIndex((w) => w.Kind === 'project'));
  assert.deepEqual(ws.at(-1), { Kind: 'workspaceLoad', Data: { Status: 'finished' } });
  const app = ws.find((w) => w.Kind === 'project' && w.Data.Project.endsWith('Shipping.App.fsproj')).Data;
  assert.deepEqual(app.Items.map((i) => i.VirtualPath), ['Clock.fs', 'Program.fs']);
  assert.equal(app.OutputType, 'exe');
  // progress: create request first, then begin/end on that token
  const create = c.serverRequests.find((r) => r.method === 'window/workDoneProgress/create');
  assert.ok(create);
  const progress = c.notifications.filter((n) => n.method === '$/progress' && n.params.token === create.params.token);
  assert.deepEqual(progress.map((p) => p.params.value.kind), ['begin', 'end']);
  assert.equal(progress[0].params.value.title, 'Loading 3 Projects');
  assert.ok(c.notifications.some((n) => n.method === 'fsharp/testDetected'));
});

test('every shipping file type-checks with zero diagnostics, then documentAnalyzed', () => {
  for (const f of Object.values(F)) {
    const d = c.lastDiagnostics(f);
    assert.ok(d, `diagnostics published for ${f}`);
    assert.deepEqual(d.diagnostics, [], f);
    assert.equal('version' in d, false, 'FSAC 0.83.0 publishes no version');
    assert.ok(c.notifications.some((n) => n.method === 'fsharp/fileParsed' && n.params.content === uri(f)));
  }
});

test('hover on a record field shows its type in FSAC\'s MarkedString array', async () => {
  const site = markers.find((m) => m.symbol === 'Shipping.Domain.Shipment.Weight' && m.kind === 'mutation');
  const h = await c.request('textDocument/hover', at(site));
  assert.deepEqual(h.contents[0], { language: 'fsharp', value: 'Shipment.Weight: float' });
  assert.equal(typeof h.contents[1], 'string');
  assert.ok(h.contents.includes('*Assembly: Shipping.Domain*'));
  assert.equal(h.range, undefined);
  const fn = await c.request('textDocument/hover', { textDocument: { uri: uri(F.operations) }, position: { line: 2, character: 6 } });
  assert.equal(fn.contents[0].value, 'val create: name: string -> weight: float -> city: string -> Shipment');
  assert.ok(fn.contents.includes('*Full name: Shipping.Domain.Operations.create*'));
  const sig = await c.request('fsharp/signature', at(site));
  assert.deepEqual(JSON.parse(sig.content), { Kind: 'typesig', Data: 'Shipment.Weight: float' });
});

test('definition of a field used in the app is its declaration in the library', async () => {
  for (const symbol of ['Shipping.Domain.Shipment.Weight', 'Shipping.Domain.Parcel.Weight', 'Shipping.Clock.stamp']) {
    const decl = markers.find((m) => m.symbol === symbol && m.kind === 'decl');
    const use = markers.find((m) => m.symbol === symbol && m.kind !== 'decl' && m.file === F.program);
    const loc = await c.request('textDocument/definition', at(use));
    assert.equal(loc.uri, uri(decl.file), symbol);
    assert.deepEqual(loc.range, { start: { line: decl.line, character: decl.character }, end: { line: decl.line, character: decl.character + decl.length } });
  }
});

const SYMBOLS = ['Shipping.Domain.Shipment.Weight', 'Shipping.Domain.Parcel.Weight', 'Shipping.Domain.Shipment.Name',
  'Shipping.Domain.Address.City', 'Shipping.Domain.Shipment.Destination', 'Shipping.Domain.Tracked.Value',
  'Shipping.Domain.Pricing.rate', 'Shipping.Clock.stamp',
  // private forms
  'Shipping.Domain.Internals', 'Shipping.Domain.Internals.secret', 'Shipping.Domain.Hidden', 'Shipping.Domain.Account.Audit',
  'Shipping.Domain.Account.Check', 'Shipping.Domain.Account.Create', 'Shipping.Domain.Meter.reading', 'Shipping.Domain.Pricing.counter', 'Shipping.Domain.Operations.minimumWeight'];

test('every marked symbol is covered by the references tests', () => {
  assert.deepEqual([...new Set(markers.map((m) => m.symbol))].sort(), [...SYMBOLS].sort());
});

for (const symbol of SYMBOLS) {
  test(`references of ${symbol} are exactly the marked sites, from the declaration and from a use`, async () => {
    const expected = marked(symbol);
    const fromDecl = markers.find((m) => m.symbol === symbol && m.kind === 'decl');
    const fromUse = markers.find((m) => m.symbol === symbol && m.kind !== 'decl' && m.file !== fromDecl.file)
      ?? markers.find((m) => m.symbol === symbol && m.kind !== 'decl');
    for (const origin of [fromDecl, fromUse]) {
      const refs = await c.request('textDocument/references', { ...at(origin), context: { includeDeclaration: false } });
      assert.deepEqual(refs.map((r) => key(new URL(r.uri).pathname, r.range)).sort(), expected, `${symbol} from ${origin.kind}`);
    }
  });
}

test('Shipment.Weight references reach the app and tests, never Parcel.Weight', async () => {
  const decl = markers.find((m) => m.symbol === 'Shipping.Domain.Shipment.Weight' && m.kind === 'decl');
  const refs = await c.request('textDocument/references', { ...at(decl), context: { includeDeclaration: true } });
  const files = new Set(refs.map((r) => new URL(r.uri).pathname));
  assert.ok(files.has(F.program) && files.has(F.tests) && files.has(F.operations));
  const parcel = new Set(marked('Shipping.Domain.Parcel.Weight'));
  assert.equal(refs.filter((r) => parcel.has(key(new URL(r.uri).pathname, r.range))).length, 0);
});

test('position requests on a file that is not open fail with -32603', async () => {
  const closed = path.join(ROOT, 'src/Shipping.Domain/Types.fs');
  c.notify('textDocument/didClose', { textDocument: { uri: uri(closed) } });
  await assert.rejects(c.request('textDocument/hover', { textDocument: { uri: uri(closed) }, position: { line: 12, character: 16 } }), (e) => e.code === -32603);
  await c.open(closed);
});

test('documentSymbol is flat; workspace/symbol is a case-sensitive prefix match', async () => {
  const symbols = await c.request('textDocument/documentSymbol', { textDocument: { uri: uri(F.types) } });
  assert.ok(symbols.every((s) => s.children === undefined && s.selectionRange));
  assert.ok(symbols.some((s) => s.name === 'Shipment' && s.kind === 5));
  assert.ok(symbols.some((s) => s.name === 'Weight' && s.kind === 8));
  assert.deepEqual(await c.request('workspace/symbol', { query: '' }), []);
  const ship = await c.request('workspace/symbol', { query: 'Ship' });
  assert.ok(ship.some((s) => s.name === 'Shipment' && s.location.uri === uri(F.types)));
  assert.deepEqual(await c.request('workspace/symbol', { query: 'ship' }), []);
  const dotted = await c.request('workspace/symbol', { query: 'Pricing.pr' });
  assert.deepEqual(dotted.map((s) => s.name), ['price']);
});

test('an edit introducing a type error publishes the compiler\'s message and range', async () => {
  const file = F.program;
  const text = fs.readFileSync(file, 'utf8');
  const line = text.split('\n').findIndex((l) => l.includes('let anon ='));
  const analyzed = c.waitForNext((n) => n.method === 'fsharp/documentAnalyzed' && n.params.textDocument.version === 2, 30000, 'documentAnalyzed v2');
  // incremental change: insert a new binding with a type error before `let anon`
  const insert = '    let oops: int = "text"\n';
  c.notify('textDocument/didChange', { textDocument: { uri: uri(file), version: 2 }, contentChanges: [{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: insert }] });
  await analyzed;
  const d = c.lastDiagnostics(file).diagnostics;
  assert.equal(d.length, 1);
  assert.equal(d[0].source, 'F# Compiler');
  assert.equal(d[0].code, 1);
  assert.equal(d[0].severity, 1);
  assert.match(d[0].message, /^This expression was expected to have type\s+'(int|string)'\s+but here has type\s+'(int|string)'/);
  assert.deepEqual(d[0].range, { start: { line, character: 20 }, end: { line, character: 26 } });
  // a full-text change restores the file
  const fixed = c.waitForNext((n) => n.method === 'fsharp/documentAnalyzed' && n.params.textDocument.version === 3, 30000, 'documentAnalyzed v3');
  c.notify('textDocument/didChange', { textDocument: { uri: uri(file), version: 3 }, contentChanges: [{ text }] });
  await fixed;
  assert.deepEqual(c.lastDiagnostics(file).diagnostics, []);
});

test('fsharp/workspacePeek lists both solutions and the directory, items named by absolute path', async () => {
  const res = await c.request('fsharp/workspacePeek', { directory: ROOT, deep: 2, excludedDirs: [] });
  const { Kind, Data } = JSON.parse(res.content);
  assert.equal(Kind, 'workspacePeek');
  assert.deepEqual(Data.Found.map((f) => f.Type), ['solution', 'solution', 'directory']);
  assert.deepEqual(Data.Found.map((f) => f.Data.Path ?? f.Data.Directory), [path.join(ROOT, 'Shipping.sln'), path.join(ROOT, 'Shipping.slnx'), ROOT]);
  const src = Data.Found[0].Data.Items.find((i) => i.Name === 'src');
  assert.equal(src.Kind.Kind, 'folder');
  assert.ok(src.Kind.Data.Items.some((i) => i.Name === path.join(ROOT, 'src/Shipping.App/Shipping.App.fsproj') && i.Kind.Kind === 'msbuildFormat'));
  assert.equal(Data.Found[2].Data.Fsprojs.length, 3);
});

test("fsharp/workspacePeek reads Ionide's parameter names (F# record fields) as FSAC does, without regard to case", async () => {
  const res = await c.request('fsharp/workspacePeek', { Directory: ROOT, Deep: 0, ExcludedDirs: [] });
  const { Data } = JSON.parse(res.content);
  // Deep 0: only the root's own solutions and no project below it.
  assert.deepEqual(Data.Found.map((f) => f.Type), ['solution', 'solution', 'directory']);
  assert.deepEqual(Data.Found[2].Data.Fsprojs, []);
});

test('unknown methods answer -32601', async () => {
  await assert.rejects(c.request('fsharp/compile', {}), (e) => e.code === -32601);
  await assert.rejects(c.request('workspace/executeCommand', { command: 'x' }), (e) => e.code === -32601);
});
