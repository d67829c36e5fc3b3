// The extension's argument builders and mappers against a live fslens (the real binary in
// front of the FSAC double, over LSP with vscode-jsonrpc, as vscode-languageclient talks to
// it): what the extension sends is accepted and what comes back maps as the editor shows it.
//
// Needs FSLENS_BIN (scripts/test-editors.sh sets it to target/debug/fslens when that exists);
// without it these tests are skipped with that reason.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { pathToFileURL } from "node:url";
import { applyEdits, logic, repository } from "./helpers.mjs";

const require = createRequire(import.meta.url);
const { checkArguments, problemsByFile, verdictMessage } = logic("check");
const { makeVisibleArguments, exposeChoices, textEdits, makeVisibleOutcome } = logic("makeVisible");
const { findArguments, collectPages, siteLocations } = logic("find");
const { statusPresentation, mergeStatus, projectNames } = logic("status");
const { serverCommand } = logic("server");
const { SessionConnection, sessionSocketPath } = logic("session");
const { typeHierarchyArguments, typeItem, supertypeItems, subtypeItems } = logic("typeHierarchy");
const { renameArguments, renamePreview, renameAppliedOutcome } = logic("renamePreview");

const binary = process.env.FSLENS_BIN;
const double = join(repository, "tests", "fsac-double-dotnet", "bin", "Release", "net10.0", "FsacDouble.dll");
const skip = !binary
  ? "FSLENS_BIN is not set (scripts/test-editors.sh sets it to the built fslens)"
  : !existsSync(binary)
    ? `FSLENS_BIN=${binary} does not exist`
    : !existsSync(double)
      ? "the FSAC double is not built (dotnet build -c Release tests/fsac-double-dotnet/FsacDouble.fsproj)"
      : false;

let server;
let connection;
let workspace;
let runtime;
let capabilities;
const notifications = [];
/** The `workspace/applyEdit` requests fslens sent to this editor. */
const appliedEdits = [];

before(async () => {
  if (skip) {
    return;
  }
  const { createMessageConnection, StreamMessageReader, StreamMessageWriter } = require("vscode-jsonrpc/node");
  workspace = mkdtempSync(join(tmpdir(), "fslens-live-"));
  runtime = mkdtempSync(join(tmpdir(), "fslens-live-runtime-"));
  cpSync(join(repository, "fixtures", "shipping"), workspace, { recursive: true });
  const { command, args } = serverCommand({ path: binary, fsacCommand: `dotnet ${double}`, logLevel: "warn" });
  server = spawn(command, args, { env: { ...process.env, XDG_RUNTIME_DIR: runtime }, stdio: ["pipe", "pipe", "inherit"] });
  connection = createMessageConnection(new StreamMessageReader(server.stdout), new StreamMessageWriter(server.stdin));
  connection.onNotification("fslens/status", (params) => notifications.push(params));
  connection.onRequest("workspace/applyEdit", (params) => {
    appliedEdits.push(params);
    return { applied: true };
  });
  connection.onRequest(() => null);
  connection.listen();
  const initialized = await connection.sendRequest("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(workspace).href,
    capabilities: { workspace: { applyEdit: true }, textDocument: { publishDiagnostics: {} } },
  });
  capabilities = initialized.capabilities;
  await connection.sendNotification("initialized", {});
});

after(async () => {
  if (connection) {
    await connection.sendRequest("shutdown");
    await connection.sendNotification("exit");
    await new Promise((resolve) => server.once("exit", resolve));
    connection.dispose();
  }
  for (const dir of [workspace, runtime]) {
    if (dir) {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

const execute = (command, argument) => connection.sendRequest("workspace/executeCommand", { command, arguments: [argument] });

test("readiness: the status item reaches ready from fslens/status and fslens.status", { skip }, async () => {
  const status = await execute("fslens.status", { waitUntil: "ready", timeoutMs: 60000 });
  assert.equal(statusPresentation(status).label, "ready");
  let merged;
  for (const notification of notifications) {
    merged = mergeStatus(merged, notification);
  }
  assert.equal(statusPresentation(merged).label, "ready");
  assert.deepEqual(projectNames(status), ["Shipping.App", "Shipping.Domain", "Shipping.Tests"]);
  assert.ok(capabilities.executeCommandProvider.commands.includes("fslens.check"));
});

test("F#: Check on a buffer with an unsaved type error: one problem, verdict errors", { skip }, async () => {
  const path = join(workspace, "src", "Shipping.App", "Program.fs");
  const uri = pathToFileURL(path).href;
  const text = readFileSync(path, "utf8").replace('create "Books" 12.5 "Lyon"', 'create "Books" "heavy" "Lyon"');
  await connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "fsharp", version: 1, text } });
  const result = await execute("fslens.check", checkArguments({ scope: "file", filePath: path }));
  const byFile = problemsByFile(result, workspace);
  assert.deepEqual([...byFile.keys()], [path]);
  assert.deepEqual(
    byFile.get(path).map((p) => [p.code, p.severity, p.range.start.line, p.range.start.character]),
    [["FS0001", 0, 6, 27]],
  );
  assert.equal(verdictMessage(result).text, "F# check (file): 1 error, 0 warnings");
  const workspaceResult = await execute("fslens.check", checkArguments({ scope: "workspace" }));
  assert.equal(verdictMessage(workspaceResult).level, "error");
  assert.equal(problemsByFile(workspaceResult, workspace).size, 6, "every checked file is listed (cleared or not)");
});

test("F#: Make Internal Visible at the cursor, exposed to the test project", { skip }, async () => {
  const path = join(workspace, "src", "Shipping.Domain", "Visibility.fs");
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  const line = lines.findIndex((l) => l.includes("member private this.Check"));
  const character = lines[line].indexOf("Check") + 2; // anywhere on the name
  const status = await execute("fslens.status", {});
  const pick = exposeChoices(projectNames(status)).find((c) => c.exposeTo === "Shipping.Tests");
  const result = await execute("fslens.makeInternalVisible", makeVisibleArguments({ path, line, character, exposeTo: pick.exposeTo }));
  const outcome = makeVisibleOutcome(result);
  assert.equal(outcome.level, "info", outcome.text);
  assert.equal(outcome.applyLocally, true);
  const edits = textEdits(result.edits);
  const own = edits.filter((e) => e.uri === pathToFileURL(path).href);
  assert.equal(applyEdits(text, own).split("\n")[line], "    member internal this.Check() = balance >= 0");
  const projectPath = join(workspace, "src", "Shipping.Domain", "Shipping.Domain.fsproj");
  const project = edits.filter((e) => e.uri === pathToFileURL(projectPath).href);
  assert.match(applyEdits(readFileSync(projectPath, "utf8"), project), /<InternalsVisibleTo Include="Shipping\.Tests" \/>/);
});

test("F#: Find All Sites in pages (when this fslens answers fslens.find)", { skip }, async (t) => {
  if (!capabilities.executeCommandProvider.commands.includes("fslens.find")) {
    t.skip("this fslens does not offer fslens.find (issue 5)");
    return;
  }
  const { result, pages } = await collectPages((cursor) => execute("fslens.find", findArguments({ query: "Shipment.Weight", maxResults: 5 }, cursor)), 10);
  assert.ok(pages > 1);
  const locations = siteLocations(result.sites, workspace);
  assert.ok(locations.length > 5);
  for (const location of locations) {
    const line = readFileSync(location.path, "utf8").split("\n")[location.range.start.line];
    assert.equal(line.slice(location.range.start.character, location.range.end.character), "Weight");
  }
});

test("Ionide mode: the extension joins the editor's session over its socket, sees its buffers, edits go to the editor", { skip }, async () => {
  // The editor here plays Ionide's client: the session is its fslens; the extension only joins.
  const socket = await sessionSocketPath(binary, workspace, { ...process.env, XDG_RUNTIME_DIR: runtime });
  const status = await execute("fslens.status", { waitUntil: "ready", timeoutMs: 60000 });
  assert.equal(socket, status.session.socket);
  const announced = [];
  const session = await SessionConnection.open(socket, workspace, (notification) => announced.push(notification));
  try {
    const joined = await session.execute("fslens.status", {});
    assert.equal(joined.fsac.pid, status.fsac.pid, "one FSAC: the editor's");
    assert.equal(joined.session.clients, 1);

    // A type error typed in the editor, never saved: the joined check sees it.
    const path = join(workspace, "src", "Shipping.Domain", "Operations.fs");
    const uri = pathToFileURL(path).href;
    const text = `${readFileSync(path, "utf8")}\nlet typedInTheEditor: int = 4.5\n`;
    // Version 2: the earlier tests had fslens open this file in FSAC itself (at its own
    // version 1, the disk text), and a check then takes an editor's version 1 as analysed.
    await connection.sendNotification("textDocument/didOpen", { textDocument: { uri, languageId: "fsharp", version: 2, text } });
    // The editor's messages are handled in order: once this is answered, so is the didOpen
    // (the joined client's request comes over another connection).
    await execute("fslens.status", {});
    const result = await session.execute("fslens.check", checkArguments({ scope: "file", filePath: path }));
    assert.equal(verdictMessage(result).text, "F# check (file): 1 error, 0 warnings", JSON.stringify(result));

    // Make Internal Visible with apply: the edit goes to the editor, not back to the joined client.
    const visibility = join(workspace, "src", "Shipping.Domain", "Visibility.fs");
    const lines = readFileSync(visibility, "utf8").split("\n");
    const line = lines.findIndex((l) => l.startsWith("type private Hidden"));
    const before = appliedEdits.length;
    const made = await session.execute(
      "fslens.makeInternalVisible",
      makeVisibleArguments({ path: visibility, line, character: "type private ".length + 1, apply: true }),
    );
    const outcome = makeVisibleOutcome(made);
    assert.equal(outcome.level, "info", outcome.text);
    assert.equal(outcome.applyLocally, false, "fslens applied it in the editor");
    assert.equal(appliedEdits.length, before + 1);
    assert.ok(appliedEdits[before].edit.changes[pathToFileURL(visibility).href], JSON.stringify(appliedEdits[before]));
  } finally {
    session.dispose();
  }
  await assert.rejects(session.execute("fslens.status", {}), /closed/);
});

test("F#: Type Hierarchy at a record type: its item from the live answer, no super- or subtypes", { skip }, async () => {
  const path = join(workspace, "src", "Shipping.Domain", "Types.fs");
  const line = readFileSync(path, "utf8").split("\n").findIndex((l) => l.startsWith("type Shipment"));
  const result = await execute("fslens.typeHierarchy", typeHierarchyArguments({ path, line, character: "type Sh".length }));
  const item = typeItem(result);
  assert.equal(item.name, "Shipment", JSON.stringify(result));
  assert.equal(item.uri, pathToFileURL(path).href);
  assert.deepEqual(item.selectionRange.start, { line, character: "type ".length });
  assert.deepEqual(supertypeItems(result, () => undefined), []);
  assert.deepEqual(subtypeItems(result, () => undefined), []);
});

test("F#: Rename with Preview: the preview's rows, then apply: editor sends one workspace/applyEdit", { skip }, async () => {
  const path = join(workspace, "src", "Shipping.App", "Program.fs");
  const text = readFileSync(path, "utf8");
  const line = text.split("\n").findIndex((l) => l.includes("let direct: Shipment"));
  const request = { path, line, character: text.split("\n")[line].indexOf("direct") + 1, newName: "straight" };
  const preview = renamePreview(await execute("fslens.rename", renameArguments(request)), workspace);
  const edits = preview.rows.filter((row) => row.kind === "edit");
  assert.ok(edits.length >= 1, preview.text);
  assert.ok(edits.every((row) => row.detail.includes("straight")), preview.text);
  assert.equal(preview.rows[0].kind, "apply");
  const before = appliedEdits.length;
  const applied = await execute("fslens.rename", renameArguments(request, "editor"));
  assert.notEqual(renameAppliedOutcome(applied).level, "error", JSON.stringify(applied));
  assert.equal(appliedEdits.length, before + 1);
  assert.match(JSON.stringify(appliedEdits[before].edit), /straight/);
  assert.equal(readFileSync(path, "utf8"), text, "nothing written to disk");
});
