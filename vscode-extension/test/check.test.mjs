import assert from "node:assert/strict";
import { test } from "node:test";
import { ROOT, logic, recorded } from "./helpers.mjs";

const { checkArguments, problemsByFile, verdictMessage, severityNumber, diagnosticCode, nearestProject } = logic("check");

test("arguments for file, project and workspace scope", () => {
  assert.deepEqual(checkArguments({ scope: "file", filePath: "/w/a.fs" }), { scope: "file", severity: "all", path: "/w/a.fs" });
  assert.deepEqual(checkArguments({ scope: "project", projectPath: "/w/P.fsproj", timeoutMs: 5000, severity: "error" }), {
    scope: "project",
    severity: "error",
    projectPath: "/w/P.fsproj",
    timeoutMs: 5000,
  });
  assert.deepEqual(checkArguments({ scope: "workspace" }), { scope: "workspace", severity: "all" });
  assert.throws(() => checkArguments({ scope: "file" }), /open an F# file/);
  assert.throws(() => checkArguments({ scope: "project" }), /no \.fsproj/);
});

test("an unsaved type error (recorded): one problem in Program.fs, verdict errors", () => {
  const result = recorded("check-file-errors");
  const byFile = problemsByFile(result, ROOT);
  assert.deepEqual([...byFile.keys()], ["/workspace/src/Shipping.App/Program.fs"]);
  const [problem] = byFile.get("/workspace/src/Shipping.App/Program.fs");
  assert.equal(problem.code, "FS0001");
  assert.equal(problem.severity, 0);
  assert.equal(problem.source, "fslens check");
  assert.deepEqual(problem.range, { start: { line: 6, character: 27 }, end: { line: 6, character: 34 } });
  assert.equal(problem.message, "This expression was expected to have type 'float' but here has type 'string'");
  const verdict = verdictMessage(result);
  assert.equal(verdict.level, "error");
  assert.equal(verdict.text, "F# check (file): 1 error, 0 warnings");
});

test("a clean workspace (recorded): every checked file is cleared, verdict names what it covers", () => {
  const result = recorded("check-workspace-clean");
  const byFile = problemsByFile(result, ROOT);
  assert.equal(byFile.size, 6);
  for (const [file, entries] of byFile) {
    assert.ok(file.startsWith("/workspace/"), file);
    assert.deepEqual(entries, []);
  }
  assert.deepEqual(verdictMessage(result), { level: "info", text: "F# check (workspace): clean (6 files checked)" });
});

test("errors and a warning across files (recorded, severity all)", () => {
  const result = recorded("check-workspace-errors");
  const byFile = problemsByFile(result, ROOT);
  const typeErrors = byFile.get("/workspace/TypeErrors.fs");
  assert.deepEqual(
    typeErrors.map((p) => [p.code, p.severity]),
    [["FS0001", 0], ["FS0039", 0], ["FS0001", 0], ["FS0025", 1]],
  );
  assert.equal(byFile.get("/workspace/ParseError.fs").length, 5);
  assert.deepEqual(byFile.get("/workspace/Fine.fs"), [], "a clean file is cleared");
  const total = [...byFile.values()].reduce((sum, list) => sum + list.length, 0);
  assert.equal(total, result.diagnostics.length);
  assert.equal(verdictMessage(result).text, "F# check (workspace): 8 errors, 1 warning");
});

test("unknown carries the blocking reason and its remedy", () => {
  const verdict = verdictMessage({
    verdict: "unknown",
    scope: "project",
    blockingReason: { errorKind: "project_not_restored", message: "Shipping.Api is not restored", remedy: "run dotnet restore" },
  });
  assert.deepEqual(verdict, { level: "warning", text: "F# check (project): unknown — Shipping.Api is not restored (run dotnet restore)" });
  assert.equal(verdictMessage({ verdict: "unknown", blockingReason: { errorKind: "timeout" } }).text, "F# check (check): unknown — timeout");
});

test("no FSAC (recorded): unknown with fslens's reason, nothing in Problems", () => {
  const result = recorded("check-unknown-without-fsac");
  const verdict = verdictMessage(result);
  assert.equal(verdict.level, "warning");
  assert.match(verdict.text, /^F# check \(workspace\): unknown — no FSAC found: /);
  for (const entries of problemsByFile(result, ROOT).values()) {
    assert.deepEqual(entries, []);
  }
});

test("severities, codes, snippets", () => {
  assert.deepEqual(["error", "warning", "information", "hint", "x"].map(severityNumber), [0, 1, 2, 3, 0]);
  assert.equal(diagnosticCode(39), "FS0039");
  assert.equal(diagnosticCode("3370"), "FS3370");
  assert.equal(diagnosticCode("IONIDE-001"), "IONIDE-001");
  assert.equal(diagnosticCode(null), undefined);
  const byFile = problemsByFile({ diagnostics: [{ file: "snippet", message: "x", range: {} }] }, ROOT);
  assert.equal(byFile.size, 0, "snippet diagnostics have no file");
});

test("the active file's project is the nearest .fsproj above it", () => {
  const tree = {
    "/w/src/App": ["Program.fs", "App.fsproj"],
    "/w/src": ["App"],
    "/w": ["W.sln", "src"],
  };
  const list = (directory) => tree[directory] ?? [];
  assert.equal(nearestProject("/w/src/App/Program.fs", list), "/w/src/App/App.fsproj");
  assert.equal(nearestProject("/w/src/Other/X.fs", list), undefined);
});
