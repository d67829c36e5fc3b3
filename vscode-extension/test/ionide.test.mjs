// Ionide mode's pure parts (src/logic/ionide.ts): the per-folder shim directory, which
// FSharp.dotnetRoot Ionide uses, what sharing saves and restores, the real dotnet it names.
import assert from "node:assert/strict";
import { test } from "node:test";
import { logic } from "./helpers.mjs";

const {
  consentMessage,
  effectiveDotnetRoot,
  isSharing,
  planSharing,
  realDotnetFileContent,
  restoredValue,
  samePath,
  shimDirectory,
  shimProgram,
} = logic("ionide");

const storage = "/home/u/.config/Code/User/globalStorage/fslens.fslens";

test("each workspace folder has its own shim directory under global storage", () => {
  const a = shimDirectory(storage, "/work/a");
  assert.match(a, /^\/home\/u\/\.config\/Code\/User\/globalStorage\/fslens\.fslens\/ionide-shim\/[0-9a-f]{16}$/);
  assert.equal(shimDirectory(storage, "/work/a/"), a, "a trailing separator is the same folder");
  assert.notEqual(shimDirectory(storage, "/work/b"), a);
  assert.equal(shimProgram(a), `${a}/dotnet`, "the name Ionide appends to FSharp.dotnetRoot");
});

test("Ionide's dotnetRoot is the most specific scope that sets one", () => {
  assert.equal(effectiveDotnetRoot(undefined), undefined);
  assert.equal(effectiveDotnetRoot({ globalValue: "/usr/share/dotnet" }), "/usr/share/dotnet");
  assert.equal(effectiveDotnetRoot({ globalValue: "/g", workspaceValue: "/w" }), "/w");
  assert.equal(effectiveDotnetRoot({ globalValue: "/g", workspaceValue: "/w", workspaceFolderValue: "/f" }), "/f");
  assert.equal(effectiveDotnetRoot({ globalValue: "/g", workspaceValue: "  " }), "/g", "blank is unset");
  assert.equal(effectiveDotnetRoot({ workspaceValue: 3 }), undefined, "not a string");
});

test("sharing is on when the effective value is the shim (trailing separators aside)", () => {
  const shim = shimDirectory(storage, "/work/a");
  assert.equal(isSharing({ workspaceValue: shim }, shim), true);
  assert.equal(isSharing({ workspaceValue: `${shim}/` }, shim), true);
  assert.equal(isSharing({ globalValue: shim, workspaceValue: "/opt/dotnet" }, shim), false);
  assert.equal(isSharing({}, shim), false);
  assert.ok(samePath("/a/b/", "/a/b") && !samePath("/a/b", "/a/c"));
});

test("sharing saves the workspace's own value and names the previous dotnet as the real one", () => {
  const shim = shimDirectory(storage, "/work/a");
  // A workspace value: restored as it was; its dotnet is the real one.
  const own = planSharing({ globalValue: "/g", workspaceValue: "/opt/dotnet-8" }, shim);
  assert.deepEqual(own, { shimDirectory: shim, realDotnet: "/opt/dotnet-8/dotnet", saved: { workspaceValue: "/opt/dotnet-8" } });
  assert.equal(realDotnetFileContent(own), "/opt/dotnet-8/dotnet\n");
  assert.equal(restoredValue(own.saved), "/opt/dotnet-8");
  assert.match(consentMessage(own), /\/opt\/dotnet-8\/dotnet \(your FSharp\.dotnetRoot\)/);
  assert.match(consentMessage(own), /Stop sharing Ionide's FSAC/);
  // Only a user value: the workspace had none, so the undo removes the workspace's setting.
  const user = planSharing({ globalValue: "/usr/share/dotnet" }, shim);
  assert.deepEqual(user, { shimDirectory: shim, realDotnet: "/usr/share/dotnet/dotnet", saved: {} });
  assert.equal(restoredValue(user.saved), undefined);
  // None at all: no file, PATH's dotnet.
  const none = planSharing({}, shim);
  assert.equal(none.realDotnet, undefined);
  assert.equal(realDotnetFileContent(none), undefined);
  assert.match(consentMessage(none), /the dotnet on PATH/);
  // Already the shim (a stale setting): never the shim as its own real dotnet, nothing to restore.
  const stale = planSharing({ workspaceValue: shim }, shim);
  assert.deepEqual(stale, { shimDirectory: shim, realDotnet: undefined, saved: {} });
});
