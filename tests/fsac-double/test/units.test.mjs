// Unit tests of the double's pure parts: lexer, tooltip normalisation, project
// model, SDK pin policy, and the fixture markers' own consistency.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import os from 'node:os';
import { scanIdentifiers, codeOnly, identifierAt } from '../lib/lexer.mjs';
import { normalise, parseTooltip } from '../lib/tooltip.mjs';
import { readFsproj, readSln, readSlnx, readSolution, peek, chooseAutomatic } from '../lib/projects.mjs';
import { satisfies, sdkPinFailure } from '../lib/sdkPin.mjs';
import { navigationItems, matchesQuery } from '../lib/navigation.mjs';
import { parseTree, parseMarkers } from './markers.mjs';
import { FIXTURES } from './client.mjs';

const SHIPPING = path.join(FIXTURES, 'shipping');

test('lexer skips comments and strings but reads interpolation holes', () => {
  const src = 'let private a = "private" // private\n(* private (* nested *) *) let b = $"{s.Name} {{x}}" + @"c:\\""private" + """private"""\nlet c = \'p\' in x\' ``two words``';
  assert.deepEqual(scanIdentifiers(src).map((t) => t.name), ['let', 'private', 'a', 'let', 'b', 's', 'Name', 'let', 'c', 'in', "x'", 'two words']);
  assert.equal(codeOnly('let x = "private" // private').trimEnd(), 'let x =');
  assert.deepEqual(identifierAt('    s.Name <- v', 10), { name: 'Name', start: 6, end: 10 });
  assert.equal(identifierAt('    s.Name <- v', 6).name, 'Name');
  assert.equal(identifierAt('    s.Name <- v', 5).name, 's');
  assert.equal(identifierAt('    s.Name <- v', 12), null);
});

test('tooltip normalisation undoes fable-standalone token spacing', () => {
  assert.equal(normalise('Shipment . Name :   string'), 'Shipment.Name: string');
  assert.equal(normalise('val   bump :   s :   Shipment   ->   Shipment'), 'val bump: s: Shipment -> Shipment');
  assert.equal(normalise('property   Counter . Count :   int   with   get, set'), 'property Counter.Count: int with get, set');
  const tip = parseTooltip(['val   s :   Shipment', 'Full name :   App . s']);
  assert.deepEqual([tip.signature, tip.fullName], ['val s: Shipment', 'App.s']);
  const doc = parseTooltip(['type   Address', ' A postal address.', '<summary>', 'A postal address.', '</summary>', 'Full name :   Shipping . Domain . Address']);
  assert.deepEqual(doc.docs, ['A postal address.']);
});

test('fsproj: compile order, Link metadata, project and package references', () => {
  const app = readFsproj(path.join(SHIPPING, 'src/Shipping.App/Shipping.App.fsproj'));
  assert.deepEqual(app.compile.map((c) => path.relative(SHIPPING, c.path)), ['src/Shared/Clock.fs', 'src/Shipping.App/Program.fs']);
  assert.deepEqual(app.compile.map((c) => c.virtualPath), ['Clock.fs', 'Program.fs']);
  assert.deepEqual(app.projectReferences, [path.join(SHIPPING, 'src/Shipping.Domain/Shipping.Domain.fsproj')]);
  assert.equal(app.outputType, 'exe');
  const unrestored = readFsproj(path.join(FIXTURES, 'unrestored/Unrestored.fsproj'));
  assert.deepEqual(unrestored.packageReferences, [{ Name: 'Newtonsoft.Json', Version: '13.0.3' }]);
});

test('sln and slnx list the same projects; peek picks the solution with most projects', () => {
  const sln = readSln(path.join(SHIPPING, 'Shipping.sln'));
  const slnx = readSlnx(path.join(SHIPPING, 'Shipping.slnx'));
  assert.equal(sln.projects.length, 3);
  assert.deepEqual([...sln.projects].sort(), [...slnx.projects].sort());
  assert.deepEqual(sln.items.map((i) => [i.Name, i.Kind.Kind]), [['src', 'folder'], ['tests', 'folder']]);
  const found = peek(SHIPPING, 2, []);
  assert.deepEqual(found.map((f) => f.Type), ['solution', 'solution', 'directory']);
  assert.equal(chooseAutomatic(found).length, 3);
  assert.deepEqual(peek(SHIPPING, 2, ['src']).at(-1).Data.Fsprojs, [path.join(SHIPPING, 'tests/Shipping.Tests/Shipping.Tests.fsproj')]);
});

test('an .slnf filters its solution\'s projects and peek lists it; one naming a missing solution is skipped', () => {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'fsac-double-slnf-'));
  try {
    fs.cpSync(SHIPPING, copy, { recursive: true });
    fs.writeFileSync(path.join(copy, 'Domain.slnf'), '\uFEFF' + JSON.stringify({ solution: { path: 'Shipping.sln', projects: ['src\\Shipping.Domain\\Shipping.Domain.fsproj'] } }));
    fs.writeFileSync(path.join(copy, 'Broken.slnf'), JSON.stringify({ solution: { path: 'Missing.sln', projects: [] } }));
    const filtered = readSolution(path.join(copy, 'Domain.slnf'));
    assert.deepEqual(filtered.projects, [path.join(copy, 'src/Shipping.Domain/Shipping.Domain.fsproj')]);
    assert.deepEqual(filtered.items.map((i) => [i.Name, i.Kind.Data.Items?.length]), [['src', 1]], 'the tests folder is left empty, so dropped');
    const found = peek(copy, 2, []);
    const solutions = found.filter((f) => f.Type === 'solution').map((f) => path.basename(f.Data.Path));
    assert.deepEqual(solutions, ['Domain.slnf', 'Shipping.sln', 'Shipping.slnx']);
    assert.equal(chooseAutomatic(found).length, 3, 'the solution with most projects still wins');
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
});

test('SDK pin: roll-forward policies and the failure text', () => {
  assert.equal(satisfies('8.0.400', undefined, ['8.0.404']), true);
  assert.equal(satisfies('8.0.405', undefined, ['8.0.404']), false);
  assert.equal(satisfies('8.0.300', 'latestFeature', ['8.0.404']), true);
  assert.equal(satisfies('8.0.300', 'disable', ['8.0.404']), false);
  assert.equal(satisfies('7.0.100', 'latestMajor', ['8.0.404']), true);
  const text = sdkPinFailure(path.join(FIXTURES, 'sdk-pin'), ['8.0.404']);
  assert.match(text, /A compatible \.NET SDK was not found/);
  assert.match(text, /Requested SDK version: 99\.0\.100/);
  assert.equal(sdkPinFailure(SHIPPING, ['8.0.404']), null);
});

test('navigation items of the fixture files sit exactly on the declared names', () => {
  for (const file of parseTree(SHIPPING).map((m) => m.file).filter((f, i, all) => all.indexOf(f) === i)) {
    const text = fs.readFileSync(file, 'utf8');
    const lines = text.split('\n');
    const items = navigationItems(text);
    assert.ok(items.length > 0, file);
    for (const i of items) {
      const slice = lines[i.range.start.line].slice(i.range.start.character, i.range.end.character);
      assert.equal(slice.replace(/^``(.*)``$/, '$1'), i.name, `${file}:${i.range.start.line + 1}`);
    }
  }
});

test('navigation items: declarations with containers; workspace query rules', () => {
  const items = navigationItems('module A.B\n\ntype T =\n    { X: int }\n    member this.M() = 1\n\nlet f x = x\nlet v = 1\n');
  assert.deepEqual(items.map((i) => `${i.containerName}/${i.name}:${i.kind}`), ['/A.B:2', 'A.B/T:5', 'T/X:8', 'T/M:6', 'A.B/f:12', 'A.B/v:13']);
  assert.equal(matchesQuery({ name: 'Foo', containerName: 'A' }, 'Fo'), true);
  assert.equal(matchesQuery({ name: 'Foo', containerName: 'A' }, 'fo'), false);
  assert.equal(matchesQuery({ name: 'Foo', containerName: 'A' }, 'A.F'), true);
  assert.equal(matchesQuery({ name: 'Foo', containerName: 'A' }, 'B.F'), false);
  assert.equal(matchesQuery({ name: 'Foo', containerName: 'A' }, ''), false);
});

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
