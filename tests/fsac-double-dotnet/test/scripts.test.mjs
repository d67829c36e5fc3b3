// Scripts (.fsx and untitled:) on fixtures/scripts: standalone checking, #load
// closures (nested), errors in loaded files reported on the #load line (FS0085),
// missing loaded files (FS0079), position features inside a script, and the
// two snippet placements of the fslens `check` command built as scripts.
// One shared double instance, with no workspace at all (AutomaticWorkspaceInit off,
// no fsharp/workspaceLoad): scripts need none (§6.3).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import fs from 'node:fs';
import { DoubleClient, FIXTURES, CLIENT_CAPS, uri } from './client.mjs';

const ROOT = path.join(FIXTURES, 'scripts');
const PROJECT_DIR = path.join(ROOT, 'project');
const lines = (file) => fs.readFileSync(file, 'utf8').split('\n');
const lineOfText = (file, needle) => lines(file).findIndex((l) => l.includes(needle));
const summary = (ds) => ds.map((d) => `${d.range.start.line}:${d.code}`).sort();

let c;
before(async () => {
  c = new DoubleClient(ROOT);
  // no workspace.workspaceEdit.documentChanges: code actions use `changes`
  await c.initialize({ capabilities: CLIENT_CAPS, initializationOptions: { AutomaticWorkspaceInit: false } });
});
after(async () => { await c.stop(); });

/** Open a document (any URI) and wait for its documentAnalyzed. */
async function openUri(docUri, text, version = 1) {
  const analyzed = c.waitForNext((n) => n.method === 'fsharp/documentAnalyzed' && n.params.textDocument.uri === docUri && n.params.textDocument.version === version, 60000, `documentAnalyzed ${docUri}`);
  c.notify('textDocument/didOpen', { textDocument: { uri: docUri, languageId: 'fsharp', version, text } });
  await analyzed;
  return c.notifications.filter((n) => n.method === 'textDocument/publishDiagnostics' && n.params.uri === docUri).at(-1).params.diagnostics;
}

/** What fslens `check` writes for scope=snippet: a script next to the project, deleted afterwards. */
async function checkSnippetScript(name, text) {
  const file = path.join(PROJECT_DIR, name);
  fs.writeFileSync(file, text);
  try {
    const diags = await openUri(uri(file), text);
    c.notify('textDocument/didClose', { textDocument: { uri: uri(file) } });
    return diags;
  } finally {
    fs.rmSync(file, { force: true });
  }
}

test('a script without #load is checked standalone: fileParsed, compiler diagnostics, documentAnalyzed', async () => {
  const file = path.join(ROOT, 'Standalone.fsx');
  const diags = await openUri(uri(file), fs.readFileSync(file, 'utf8'));
  assert.ok(c.notifications.some((n) => n.method === 'fsharp/fileParsed' && n.params.content === uri(file)));
  assert.deepEqual(summary(diags), [`${lineOfText(file, 'counter <-')}:27`, `${lineOfText(file, 'mesage')}:39`].sort());
  for (const d of diags) {
    assert.equal(d.source, 'F# Compiler');
    assert.equal(d.severity, 1);
    assert.deepEqual(d.relatedInformation, []);
  }
  const undefinedName = diags.find((d) => d.code === 39);
  assert.match(undefinedName.message, /'mesage' is not defined\. Maybe you want one of the following:\n\s+message/);
  // top-level expressions (printfn) are fine in a script: no FS0222/implicit-module complaints
  assert.equal(diags.some((d) => d.code === 222), false);
});

test('#load: loaded files (and a loaded script\'s own #loads) compile first, in order; hover, definition and references work', async () => {
  const file = path.join(ROOT, 'Loads.fsx');
  const diags = await openUri(uri(file), fs.readFileSync(file, 'utf8'));
  assert.deepEqual(diags, []);
  const helloLine = lineOfText(file, 'Greeting.greet');
  const col = lines(file)[helloLine].indexOf('greet "') + 1;
  const at = { textDocument: { uri: uri(file) }, position: { line: helloLine, character: col } };
  const hover = await c.request('textDocument/hover', at);
  assert.equal(hover.contents[0].value, 'val greet: name: string -> string');
  const def = await c.request('textDocument/definition', at);
  const greeting = path.join(ROOT, 'lib/Greeting.fs');
  assert.equal(def.uri, uri(greeting));
  assert.equal(def.range.start.line, lineOfText(greeting, 'let greet'));
  // references of Numbers.double: its declaration, the closed loaded script Helpers.fsx and this script
  const sixteen = lineOfText(file, 'Numbers.double eight');
  const refs = await c.request('textDocument/references', { textDocument: { uri: uri(file) }, position: { line: sixteen, character: lines(file)[sixteen].indexOf('double') + 2 }, context: { includeDeclaration: true } });
  const where = refs.map((r) => `${path.relative(ROOT, new URL(r.uri).pathname)}:${r.range.start.line}:${r.range.start.character}`).sort();
  const helpers = path.join(ROOT, 'lib/Helpers.fsx');
  const quadruple = lines(helpers)[lineOfText(helpers, 'Numbers.double')];
  assert.deepEqual(where, [
    `Loads.fsx:${sixteen}:${lines(file)[sixteen].indexOf('double')}`,
    // `Numbers.double (Numbers.double x)`: two uses on one line
    `lib/Helpers.fsx:${lineOfText(helpers, 'Numbers.double')}:${quadruple.indexOf('double')}`,
    `lib/Helpers.fsx:${lineOfText(helpers, 'Numbers.double')}:${quadruple.lastIndexOf('double')}`,
    `lib/Numbers.fs:${lineOfText(path.join(ROOT, 'lib/Numbers.fs'), 'let double')}:4`,
  ].sort());
});

test('errors in loaded files are reported on the #load line (FS0085), a missing file as FS0079; nothing is published for the loaded files', async () => {
  const file = path.join(ROOT, 'LoadsFaulty.fsx');
  const diags = await openUri(uri(file), fs.readFileSync(file, 'utf8'));
  const lineOf = (needle) => lineOfText(file, needle);
  assert.deepEqual(summary(diags), [`${lineOf('Faulty.fs')}:85`, `${lineOf('Warned.fs')}:85`, `${lineOf('Missing.fs')}:79`, `${lineOf('let own')}:1`].sort());
  const faulty = diags.find((d) => d.code === 85 && d.range.start.line === lineOf('Faulty.fs'));
  assert.equal(faulty.severity, 1);
  // the range is the whole directive
  assert.deepEqual(faulty.range, { start: { line: lineOf('Faulty.fs'), character: 0 }, end: { line: lineOf('Faulty.fs'), character: '#load "lib/Faulty.fs"'.length } });
  // the message is FCS's intro followed by the first error of the loaded file, as the compiler wrote it
  assert.match(faulty.message, /^One or more errors in loaded file\.\nThis expression was expected to have type\n\s+'int'\s+\nbut here has type\n\s+'string'/);
  const warned = diags.find((d) => d.code === 85 && d.range.start.line === lineOf('Warned.fs'));
  assert.equal(warned.severity, 2);
  assert.match(warned.message, /^One or more warnings in loaded file\.\nIncomplete pattern matches on this expression\./);
  const missing = diags.find((d) => d.code === 79);
  assert.equal(missing.severity, 1);
  assert.equal(missing.message, `Could not load file '${path.join(ROOT, 'lib/Missing.fs')}' because it does not exist or is inaccessible`);
  for (const loaded of ['lib/Faulty.fs', 'lib/Warned.fs', 'lib/Greeting.fs']) assert.equal(c.lastDiagnostics(path.join(ROOT, loaded)), undefined, loaded);
});

test('an untitled: document is a script: checked, published under its untitled URI, hover and code actions work', async () => {
  const docUri = 'untitled:Untitled-1';
  const text = '#load "lib/Greeting.fs"\n\nlet welcome = Greeting.greet "you"\nlet count: int = welcome\nlet shouted = welcom.ToUpper()\n';
  const diags = await openUri(docUri, text);
  assert.deepEqual(summary(diags), ['3:1', '4:39']);
  assert.ok(c.notifications.some((n) => n.method === 'fsharp/fileParsed' && n.params.content === docUri));
  const hover = await c.request('textDocument/hover', { textDocument: { uri: docUri }, position: { line: 2, character: 6 } });
  assert.equal(hover.contents[0].value, 'val welcome: string');
  const undefinedName = diags.find((d) => d.code === 39);
  const actions = await c.request('textDocument/codeAction', { textDocument: { uri: docUri }, range: undefinedName.range, context: { diagnostics: [undefinedName] } });
  assert.deepEqual(actions, [{
    title: "Replace with 'welcome'", kind: 'quickfix', diagnostics: [undefinedName],
    edit: { changes: { [docUri]: [{ range: undefinedName.range, newText: 'welcome' }] } },
  }]);
});

test('snippetPosition=end: a script #loading the project files in compile order, then the snippet', async () => {
  const load = '#load "Money.fs" "Ledger.fs"\n';
  const clean = await checkSnippetScript('.fslens-check-end-clean.fsx', `${load}open Ledger.Book\nlet sum = total [ { Label = "a"; Amount = { Cents = 5L; Currency = "EUR" } } ]\n`);
  assert.deepEqual(clean, []);
  const broken = await checkSnippetScript('.fslens-check-end-broken.fsx', `${load}open Ledger.Money\nlet c: string = cents { Cents = 1L; Currency = "EUR" }\nlet t = Ledger.Book.totl []\n`);
  // only the snippet's own diagnostics, on the snippet's lines (line 0 is the #load)
  assert.deepEqual(summary(broken), ['2:1', '3:39']);
  assert.match(broken.find((d) => d.code === 39).message, /Maybe you want one of the following:\n\s+total/);
});

test('snippetPosition=start: the snippet alone (no #load) sees no project code; #load after the snippet would not express "start"', async () => {
  // At the start of the compile order nothing precedes the snippet: a script with no #load.
  const selfContained = await checkSnippetScript('.fslens-check-start-clean.fsx', 'let cents (x: int64) = x * 100L\nlet total = cents 3L\n');
  assert.deepEqual(selfContained, []);
  const usesProject = await checkSnippetScript('.fslens-check-start-project.fsx', 'let c = Ledger.Money.cents\n');
  assert.deepEqual(summary(usesProject), ['0:39']);
  // FCS compiles #loaded files before the whole script, wherever the directive stands:
  // snippet text first and #load after it still sees the project (so this is "end", not "start").
  const loadAfter = await checkSnippetScript('.fslens-check-start-load-after.fsx', 'let c = Ledger.Money.cents\n#load "Money.fs" "Ledger.fs"\n');
  assert.deepEqual(loadAfter, []);
});

test('editing a script re-reads its #load directives', async () => {
  const file = path.join(ROOT, 'Edited.fsx');
  const docUri = uri(file); // never written to disk: the buffer is what counts
  const diags = await openUri(docUri, 'let x = Numbers.double 2\n');
  assert.deepEqual(summary(diags), ['0:39']);
  const analyzed = c.waitForNext((n) => n.method === 'fsharp/documentAnalyzed' && n.params.textDocument.uri === docUri && n.params.textDocument.version === 2, 30000);
  c.notify('textDocument/didChange', { textDocument: { uri: docUri, version: 2 }, contentChanges: [{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '#load "lib/Numbers.fs"\n' }] });
  await analyzed;
  assert.deepEqual(c.lastDiagnostics(file).diagnostics, []);
});
