// fslens.testsForSymbol and fslens.runTests answers (recorded on fixtures/editors: two xUnit
// facts reach `needle`, one of them fails) as the quick pick, the run's arguments and its report.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, logic, recorded, repository } from "./helpers.mjs";

const { testsForSymbolArguments, testPicks, testsSummary, runSelection, runReport, symbolTests } = logic("tests");

const fixture = (relative) => readFileSync(join(repository, "fixtures/editors", relative), "utf8").split("\n");
/** The 0-based line of the fixture's file that holds `needle`. */
const lineOf = (relative, needle) => fixture(relative).findIndex((line) => line.includes(needle));

test("arguments at the cursor, with a deadline only when given", () => {
  assert.deepEqual(testsForSymbolArguments({ path: "/w/D.fs", line: 2, character: 4 }), { path: "/w/D.fs", line: 2, character: 4 });
  assert.equal(testsForSymbolArguments({ path: "/w/D.fs", line: 2, character: 4, timeoutMs: 9 }).timeoutMs, 9);
});

test("the tests of needle (recorded): one pick per test at its name, all runnable and picked", () => {
  const answer = recorded("tests-for-symbol");
  const picks = testPicks(answer, ROOT);
  const file = "tests/Gauges.Xunit/DialTests.fs";
  assert.deepEqual(
    picks.map((pick) => [pick.label, pick.description, pick.path, pick.line, pick.picked, pick.runnable]).sort(),
    ["needle doubles the reading", "needle of one points at three"].map((name) => [
      name,
      "xunit",
      `${ROOT}/${file}`,
      lineOf(file, `\`\`${name}\`\``),
      true,
      true,
    ]),
  );
  assert.equal(picks[0].detail, `${file}:${picks[0].line + 1}`);
  assert.deepEqual(testsSummary(answer), { text: "2 test(s) reach Gauges.Dial.needle (via fsac; complete)", level: "info" });
});

test("running the picked tests: their full names and projects; all of them is the answer's runTestsArguments", () => {
  const answer = recorded("tests-for-symbol");
  const tests = symbolTests(answer);
  const all = runSelection(answer, tests, 1000);
  assert.deepEqual(all, { argument: { ...answer.runTestsArguments, timeoutMs: 1000 }, notRunnable: [] });
  const one = runSelection(answer, [tests[1]]);
  assert.deepEqual(one.argument, { tests: [tests[1].fullyQualifiedName], projects: [tests[1].project] });
});

test("a test VSTest cannot select is not sent, nor its project, and is named", () => {
  const answer = {
    runTestsArguments: { tests: ["A.T.one"], projects: ["tests/A/A.fsproj", "tests/E/E.fsproj"] },
    testProjects: [
      { project: "tests/A/A.fsproj", tests: [{ name: "one", fullyQualifiedName: "A.T.one", framework: "xunit", project: "tests/A/A.fsproj", path: "tests/A/T.fs", line: 3, reach: "direct" }] },
      { project: "tests/E/E.fsproj", tests: [{ name: "e one", fullyQualifiedName: "e.e one", framework: "expecto", project: "tests/E/E.fsproj", path: "tests/E/T.fs", line: 5, reach: { via: "helper", path: "tests/E/T.fs", line: 1 } }] },
    ],
    complete: false,
    completeness: { missing: ["helper x was not followed"] },
    via: "syntax",
    query: "add",
  };
  const picks = testPicks(answer, "/w");
  assert.deepEqual(picks.map((pick) => [pick.runnable, pick.picked, pick.description]), [[true, true, "xunit"], [false, false, "expecto via helper"]]);
  assert.match(picks[1].detail, /cannot be run by name/);
  assert.deepEqual(runSelection(answer, symbolTests(answer)), {
    argument: { tests: ["A.T.one"], projects: ["tests/A/A.fsproj"] },
    notRunnable: ["e one"],
  });
  assert.deepEqual(runSelection(answer, [symbolTests(answer)[1]]), { notRunnable: ["e one"] });
  assert.deepEqual(testsSummary(answer), { text: "2 test(s) reach add (via syntax; NOT complete): helper x was not followed", level: "warning" });
});

test("the run (recorded): the failure at its frame's line with VSTest's message, the summary an error", () => {
  const report = runReport(recorded("run-tests-failure"), ROOT);
  const file = "tests/Gauges.Xunit/DialTests.fs";
  assert.equal(report.failures.length, 1);
  const [failure] = report.failures;
  assert.equal(failure.name, "Gauges.Xunit.DialTests.needle of one points at three");
  assert.equal(failure.path, `${ROOT}/${file}`);
  assert.equal(failure.range.start.line, lineOf(file, "Assert.Equal(3, pointed)"));
  assert.match(failure.message, /^Assert\.Equal\(\) Failure: Values differ\nExpected: 3\nActual: +2$/);
  assert.deepEqual(report.summary, { text: "Tests: 1 passed, 1 failed, 0 skipped, 0 other", level: "error" });
  assert.ok(report.lines.some((line) => line.startsWith("✗ FAILED Gauges.Xunit.DialTests.needle of one points at three") && line.endsWith(`at ${file}:${lineOf(file, "Assert.Equal(3, pointed)") + 1}`)), report.lines.join("\n"));
  assert.ok(report.lines.includes("    Expected: 3"), report.lines.join("\n"));
  assert.ok(report.lines.some((line) => line.startsWith("✓ passed Gauges.Xunit.DialTests.needle doubles the reading")));
});

test("a run that could not happen, and one on a stale build, say so", () => {
  const unknown = runReport({ status: "unknown", blockingReason: { errorKind: "timeout", message: "FSAC had not loaded" }, tests: [] }, "/w");
  assert.deepEqual(unknown.summary, { text: "Tests not run (timeout): FSAC had not loaded", level: "warning" });
  const stale = runReport(
    {
      status: "ok",
      complete: false,
      totals: { passed: 1, failed: 0, skipped: 0, other: 1 },
      tests: [
        { fullName: "A.ok", displayName: "A.ok", outcome: "passed", durationMs: 3 },
        { fullName: "A.gone", displayName: "A.gone", outcome: "notFound", project: null },
      ],
      staleAssemblies: [{ project: "tests/A/A.fsproj", assembly: "bin/A.dll", reason: "older than T.fs", remedy: "run `dotnet build tests/A/A.fsproj`" }],
    },
    "/w",
  );
  assert.equal(stale.summary.level, "warning");
  assert.match(stale.summary.text, /1 stale build\(s\): results of the old build$/);
  assert.ok(stale.lines.includes("    no result: no such test, or its adapter could not select it by name"));
  assert.ok(stale.lines.includes("stale build of tests/A/A.fsproj: older than T.fs — run `dotnet build tests/A/A.fsproj`"));
  assert.deepEqual(stale.failures, []);
});
