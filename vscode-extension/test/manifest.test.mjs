// The manifest and the extension code agree: every command the extension registers is
// contributed (with an "F#" category), every contributed command is registered, and every
// setting the code reads is declared. (VS Code itself cannot run here; the .vsix build is the
// integration check.)
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { repository } from "./helpers.mjs";

const extension = join(repository, "vscode-extension");
const manifest = JSON.parse(readFileSync(join(extension, "package.json"), "utf8"));
const source = readFileSync(join(extension, "src", "extension.ts"), "utf8");

test("registered and contributed commands are the same set", () => {
  const registered = new Set([...source.matchAll(/register\("([^"]+)"/g)].map((m) => m[1]));
  const contributed = new Set(manifest.contributes.commands.map((c) => c.command));
  assert.deepEqual([...registered].sort(), [...contributed].sort());
  for (const title of ["Find All Sites", "Check", "Field Impact", "Make Internal Visible", "Type Hierarchy", "Rename with Preview"]) {
    const command = manifest.contributes.commands.find((c) => c.title === title);
    assert.ok(command, title);
    assert.equal(command.category, "F#");
  }
  // fslens's own command ids (fslens.find, …) are registered by vscode-languageclient from the
  // server's executeCommandProvider: the extension's ids must not collide with them.
  for (const id of contributed) {
    assert.ok(id.startsWith("fslens-vscode."), id);
  }
});

test("the type hierarchy: a provider for F# and a command that opens VS Code's own view", () => {
  assert.match(source, /registerTypeHierarchyProvider\(\{ language: "fsharp" \}/);
  assert.match(source, /executeCommand\("editor\.showTypeHierarchy"\)/);
  const titles = Object.fromEntries(manifest.contributes.commands.map((c) => [c.command, `${c.category}: ${c.title}`]));
  assert.equal(titles["fslens-vscode.typeHierarchy"], "F#: Type Hierarchy");
  assert.equal(titles["fslens-vscode.renamePreview"], "F#: Rename with Preview");
  const menu = manifest.contributes.menus["editor/context"].map((entry) => entry.command);
  assert.ok(menu.includes("fslens-vscode.typeHierarchy") && menu.includes("fslens-vscode.renamePreview"), menu.join(","));
});

test("the tests of the symbol: a command in the palette and the editor's menu, its quick pick running fslens.runTests", () => {
  const titles = Object.fromEntries(manifest.contributes.commands.map((c) => [c.command, `${c.category}: ${c.title}`]));
  assert.equal(titles["fslens-vscode.testsForSymbol"], "fslens: Tests of the symbol under the cursor");
  const menu = manifest.contributes.menus["editor/context"].map((entry) => entry.command);
  assert.ok(menu.includes("fslens-vscode.testsForSymbol"), menu.join(","));
  assert.match(source, /execute<TestsForSymbolResult>\("fslens\.testsForSymbol"/);
  assert.match(source, /execute<RunTestsResult>\("fslens\.runTests"/);
  assert.match(source, /quickPick\.canSelectMany = true/);
});

test("the tests affected by my changes: a palette command asking fslens.affectedTests, its checked tests run", () => {
  const titles = Object.fromEntries(manifest.contributes.commands.map((c) => [c.command, `${c.category}: ${c.title}`]));
  assert.equal(titles["fslens-vscode.affectedTests"], "fslens: Tests affected by my changes");
  assert.match(source, /execute<AffectedTestsResult>\("fslens\.affectedTests", affectedTestsArguments\(request\)/);
  assert.match(source, /execute<AffectedTestsResult>\("fslens\.affectedTests", affectedTestsArguments\(\{ \.\.\.request, run: true \}\)/);
  assert.match(source, /pickTests<AffectedPick>\(picks, summary\.text\)/);
});

test("every setting the code reads is declared", () => {
  const declared = new Set(Object.keys(manifest.contributes.configuration.properties));
  const read = [...source.matchAll(/config\.get<[^>]+>\("([^"]+)"\)/g)].map((m) => "fslens." + m[1]);
  assert.ok(read.length >= 7, read.join(","));
  for (const key of read) {
    assert.ok(declared.has(key), `${key} is read but not declared`);
  }
  assert.ok(declared.has("fslens.trace.server"), "vscode-languageclient reads <id>.trace.server");
});

test("the engine matches vscode-languageclient 9 (vscode ^1.82.0) and the types", () => {
  assert.equal(manifest.dependencies["vscode-languageclient"], "9.0.1");
  assert.equal(manifest.engines.vscode, "^1.82.0");
  assert.equal(manifest.devDependencies["@types/vscode"], "1.82.0");
  assert.equal(manifest.devDependencies["@vscode/vsce"], "3.9.2");
  assert.equal(manifest.main, "./dist/extension.js");
});
