// typeDefinition and signatureHelp on fixtures/signatures (Catalog, and Orders → Catalog),
// computed from the compiler's tooltips and declaration locations: the type of a value,
// field, constructor and union case, resolved in the scope of the position (a nested
// module's own type too); null for types of the reference assemblies; FSAC's errors where the
// symbol's type has no definition. Signature help for curried applications (the active
// parameter from the arguments written, a pipeline, a tupled group) and for argument lists
// (every overload of a workspace method, the active parameter by commas).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { DoubleClient, FIXTURES, uri, sameFile } from './client.mjs';

const ROOT = path.join(FIXTURES, 'signatures');
const CATALOG = path.join(ROOT, 'Catalog/Catalog.fs');
const ORDERS = path.join(ROOT, 'Orders/Orders.fs');
const ordersLines = fs.readFileSync(ORDERS, 'utf8').split('\n');
const catalogLines = fs.readFileSync(CATALOG, 'utf8').split('\n');

/** 0-based line of the first line of `lines` containing `text`, and the column of `text` in it. */
function find(lines, text, occurrence = 1) {
  const line = lines.findIndex((l) => l.includes(text));
  assert.ok(line >= 0, `${text} is in the fixture`);
  let character = -1;
  for (let k = 0; k < occurrence; k++) character = lines[line].indexOf(text, character + 1);
  return { line, character };
}
const inOrders = (text, offset = 0, occurrence = 1) => {
  const at = find(ordersLines, text, occurrence);
  return { textDocument: { uri: uri(ORDERS) }, position: { line: at.line, character: at.character + offset } };
};
/** Where `type NAME` declares NAME in `lines`: [line, start, end]. */
const typeDeclaration = (lines, name) => {
  const at = find(lines, `type ${name}`);
  return [at.line, at.character + 5, at.character + 5 + name.length];
};

let c;
before(async () => {
  c = new DoubleClient(ROOT);
  await c.initialize();
  await c.workspaceLoaded();
  await c.open(ORDERS);
});
after(async () => { await c.stop(); });

const typeDefinitionAt = (params) => c.request('textDocument/typeDefinition', params);
const placeOf = (location) => [path.relative(ROOT, new URL(location.uri).pathname), location.range.start.line, location.range.start.character, location.range.end.character];

test('typeDefinition of values, a constructor and a field lands on the declaration of their type, in the other project', async () => {
  const product = ['Catalog/Catalog.fs', ...typeDeclaration(catalogLines, 'Product')];
  assert.deepEqual(placeOf(await typeDefinitionAt(inOrders('let book', 4))), product, 'a record value');
  assert.deepEqual(placeOf(await typeDefinitionAt(inOrders('let line', 4))), ['Catalog/Catalog.fs', ...typeDeclaration(catalogLines, 'Line')], 'a generic record');
  assert.deepEqual(placeOf(await typeDefinitionAt(inOrders('let pricing', 4))), ['Catalog/Catalog.fs', ...typeDeclaration(catalogLines, 'Pricing')], 'a class value');
  assert.deepEqual(placeOf(await typeDefinitionAt(inOrders('Pricing()', 1))), ['Catalog/Catalog.fs', ...typeDeclaration(catalogLines, 'Pricing')], 'a constructor: its type');
  // `crate` is printed `Units.Crate` here: the name resolves in Orders' scope to the nested module's type.
  assert.deepEqual(placeOf(await typeDefinitionAt(inOrders('let crate', 4))), ['Catalog/Catalog.fs', ...typeDeclaration(catalogLines, 'Crate')]);
  assert.deepEqual(placeOf(await typeDefinitionAt(inOrders('note.About', 6))), product, 'a field: its declared type');
  const hover = await c.request('textDocument/hover', inOrders('let crate', 4));
  assert.match(hover.contents[0].value, /Units\.Crate/);
});

test('typeDefinition resolves a nested module\'s own type in that module\'s scope', async () => {
  const note = typeDeclaration(ordersLines, 'Note');
  const answer = await typeDefinitionAt(inOrders('let note', 4));
  assert.ok(sameFile(answer.uri, ORDERS), answer.uri);
  assert.deepEqual([answer.range.start.line, answer.range.start.character, answer.range.end.character], note);
});

test('typeDefinition is null for types of the reference assemblies and FSAC\'s error where the type has no definition', async () => {
  assert.equal(await typeDefinitionAt(inOrders('let lines', 4)), null, 'Line<Product> list: FSharp.Core\'s list');
  assert.equal(await typeDefinitionAt(inOrders('let words', 4)), null, 'string');
  const noType = (e) => e.code === -32603 && e.message === 'No type information for the symbol at this location';
  await assert.rejects(typeDefinitionAt(inOrders('Prices.discounted', 8)), noType, 'a function');
  await assert.rejects(typeDefinitionAt(inOrders('Item = book', 1)), noType, "a generic field: its declared type is 'T");
  await assert.rejects(typeDefinitionAt(inOrders(' = { Sku', 1)), (e) => e.code === -32603 && /Cannot find ident/.test(e.message));
});

test('typeDefinition at a type\'s own name is its declaration, as its definition is', async () => {
  const at = { textDocument: { uri: uri(ORDERS) }, position: find(ordersLines, 'Note = {') };
  assert.deepEqual(await typeDefinitionAt(at), await c.request('textDocument/definition', at));
});

const help = (params, context) => c.request('textDocument/signatureHelp', { ...params, ...(context ? { context } : {}) });

test('signatureHelp of a curried function: the first group\'s parameters (FCS describes no later group), the active one from the arguments written', async () => {
  const first = await help(inOrders('0.1m'));
  assert.equal(first.signatures.length, 1);
  const [signature] = first.signatures;
  assert.equal(signature.label, 'val discounted: rate: decimal -> amount: decimal -> decimal');
  assert.deepEqual(signature.documentation, { kind: 'markdown', value: 'Applies a discount rate to an amount.' });
  // FCS's method group of a curried function holds its first group only ("we don't provide ways to
  // display info for the second curried argument"), each parameter with its sortable type text.
  assert.deepEqual(signature.parameters, [{ label: 'rate', documentation: 'System.Decimal' }]);
  assert.equal(first.activeParameter, 0);
  assert.equal(first.activeSignature, undefined, 'FSAC sets no active overload for a function');
  const second = await help({ textDocument: { uri: uri(ORDERS) }, position: { line: find(ordersLines, 'Prices.discounted 0.1m').line, character: find(ordersLines, '0.1m book').character + 5 } });
  assert.equal(second.activeParameter, 1, 'the caret on the second argument');
  // After a parenthesised argument FSAC looks for the application from the `)`, and FCS's
  // TryRangeOfFunctionOrMethodBeingApplied goes into the parentheses and finds none: no help.
  assert.equal(await help(inOrders('(1m, 20m) book', 10)), null);
  // On the tupled group itself, the tuple's parts are the parameters.
  const between = await help(inOrders('(1m, 20m) book', 1), { triggerKind: 2, triggerCharacter: '(', isRetrigger: false });
  assert.deepEqual(between?.signatures[0].label, 'val between: low: decimal * high: decimal -> price: decimal -> bool');
});

test('signatureHelp in a pipeline counts the piped argument; nothing where no function is applied', async () => {
  const piped = await help(inOrders('0.2m'));
  assert.equal(piped.activeParameter, 0);
  assert.equal(piped.signatures[0].parameters.length, 1);
  assert.equal(await help(inOrders('"B-1"', 1)), null, 'inside a string literal of a record, after a letter');
  assert.equal(await help(inOrders('{ Sku', 2)), null, 'a record expression');
});

test('signatureHelp of a method call lists every overload, the active parameter by commas', async () => {
  const open = await help(inOrders('Price(book', 6));
  // In FCS's order; the active overload is the first with enough parameters.
  assert.deepEqual(open.signatures.map((s) => s.label), [
    'member Pricing.Price: product: Product -> decimal',
    'member Pricing.Price: product: Product * quantity: int -> decimal',
  ]);
  assert.deepEqual(open.signatures.map((s) => s.documentation.value), ['The price of one.', 'The price of a quantity.']);
  // each parameter's documentation is its type's sortable text (FCS's CanonicalTypeTextForSorting)
  assert.deepEqual(open.signatures[1].parameters, [{ label: 'product', documentation: 'Store.Catalog.Product' }, { label: 'quantity', documentation: 'System.Int32' }]);
  assert.deepEqual([open.activeSignature, open.activeParameter], [0, 0]);
  const afterComma = await help(inOrders('book, 2', 6));
  assert.deepEqual([afterComma.activeSignature, afterComma.activeParameter], [1, 1]);
  // A .NET method: every overload of the reference assembly, the active one the first with a
  // second parameter.
  const join = await help(inOrders('[ "a"', 0));
  assert.ok(join.signatures.length > 1, `${join.signatures.length} overloads of String.Join`);
  assert.equal(join.activeParameter, 1);
  const active = join.signatures[join.activeSignature];
  assert.equal(active.parameters[0].label, 'separator');
  assert.ok(active.parameters.length >= 2);
  assert.ok(join.signatures.slice(0, join.activeSignature).every((s) => s.parameters.length < 2));
  // A trigger character counts only at the list's own parenthesis or commas.
  assert.equal((await help(inOrders('Price(book', 6), { triggerKind: 2, triggerCharacter: '(', isRetrigger: false })).activeParameter, 0);
  assert.equal(await help(inOrders('book, 2', 6), { triggerKind: 2, triggerCharacter: '(', isRetrigger: false }), null);
  // A constructor without parameters: FCS counts `()` as a parameter list, so FSAC shows it.
  const ctor = await help(inOrders('Pricing()', 8));
  assert.deepEqual(ctor.signatures.map((s) => [s.label, s.parameters.length]), [['new: unit -> Pricing', 0]]);
});

test('signatureHelp after the last argument written is the next parameter, as FSAC counts it (last: it edits Orders.fs)', async () => {
  const text = `${ordersLines.join('\n')}\nlet partial = Prices.discounted 0.1m \n`;
  const analysed = c.waitForNext((n) => n.method === 'fsharp/documentAnalyzed' && n.params.textDocument.version === 2);
  c.notify('textDocument/didChange', { textDocument: { uri: uri(ORDERS), version: 2 }, contentChanges: [{ text }] });
  await analysed;
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.startsWith('let partial'));
  const next = await help({ textDocument: { uri: uri(ORDERS) }, position: { line, character: lines[line].length } });
  assert.equal(next.activeParameter, 1);
  assert.equal(next.signatures[0].label, 'val discounted: rate: decimal -> amount: decimal -> decimal');
});
