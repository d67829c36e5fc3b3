import assert from "node:assert/strict";
import { test } from "node:test";
import { logic } from "./helpers.mjs";

const { serverCommand, shellQuote, bundledBinary } = logic("server");

test("defaults: fslens on PATH, fslens finds FSAC itself", () => {
  assert.deepEqual(serverCommand({}), { command: "fslens", args: [] });
  assert.deepEqual(serverCommand({ path: "  ", fsacCommand: "", logLevel: "" }), { command: "fslens", args: [] });
});

test("path, FSAC command, log level and extra fslens arguments", () => {
  assert.deepEqual(
    serverCommand({
      path: "/opt/fslens/bin/fslens",
      fsacCommand: "dotnet /opt/fsac/fsautocomplete.dll",
      logLevel: "info",
      args: ["--trace-messages", "/tmp/t.jsonl"],
    }),
    {
      command: "/opt/fslens/bin/fslens",
      args: ["--fsac", "dotnet /opt/fsac/fsautocomplete.dll", "--log-level", "info", "--trace-messages", "/tmp/t.jsonl"],
    },
  );
});

test("the FSAC memory limit setting becomes --fsac-memory-limit; empty passes nothing", () => {
  assert.deepEqual(serverCommand({ fsacMemoryLimit: " 60% " }).args, ["--fsac-memory-limit", "60%"]);
  assert.deepEqual(serverCommand({ fsacMemoryLimit: "" }).args, []);
});

test("extra FSAC arguments are appended to the FSAC command, quoted for fslens's shell-like split", () => {
  assert.deepEqual(serverCommand({ fsacCommand: "fsautocomplete", fsacArgs: ["--verbose", "--log-file", "/tmp/my logs/f.log"] }).args, [
    "--fsac",
    "fsautocomplete --verbose --log-file '/tmp/my logs/f.log'",
  ]);
  // Without a command the arguments follow FSAC's own name.
  assert.deepEqual(serverCommand({ fsacArgs: ["--adaptive-lsp-server-enabled"] }).args, [
    "--fsac",
    "fsautocomplete --adaptive-lsp-server-enabled",
  ]);
  assert.equal(shellQuote("it's"), "'it'\\''s'");
  assert.equal(shellQuote(""), "''");
});

test("fslens.path unset: the binary bundled in a platform .vsix, else fslens on PATH", () => {
  const bundledPath = "/home/u/.vscode/extensions/fslens.fslens-0.1.0-linux-x64/bin/fslens";
  assert.equal(serverCommand({ path: "", bundledPath }).command, bundledPath);
  assert.equal(serverCommand({ path: "  ", bundledPath }).command, bundledPath);
  assert.equal(serverCommand({ path: "/opt/fslens", bundledPath }).command, "/opt/fslens");
  assert.equal(serverCommand({ path: "" }).command, "fslens");
  assert.equal(bundledBinary("linux"), "bin/fslens");
  assert.equal(bundledBinary("win32"), "bin/fslens.exe");
});

test("the binary Ionide mode links to is absolute: fslens.path, the bundled one, or PATH's", async () => {
  const { resolveServerBinary } = logic("server");
  const { mkdtempSync, writeFileSync, chmodSync, rmSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const { join, delimiter } = await import("node:path");
  const directory = mkdtempSync(join(tmpdir(), "fslens-resolve-"));
  try {
    const binary = join(directory, "fslens");
    writeFileSync(binary, "#!/bin/sh\n");
    chmodSync(binary, 0o755);
    assert.equal(resolveServerBinary({ path: binary }, ""), binary);
    assert.equal(resolveServerBinary({ bundledPath: binary }, ""), binary);
    assert.equal(resolveServerBinary({}, `/nonexistent${delimiter}${directory}`), binary, "fslens on PATH");
    assert.equal(resolveServerBinary({ path: "fslens" }, directory), binary);
    assert.equal(resolveServerBinary({}, "/nonexistent"), undefined);
    assert.equal(resolveServerBinary({ path: join(directory, "missing") }, directory), undefined);
    chmodSync(binary, 0o644);
    assert.equal(resolveServerBinary({}, directory), undefined, "not executable");
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
