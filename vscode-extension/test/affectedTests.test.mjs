// fslens.affectedTests answers (recorded on fixtures/tested-reach: an unsaved edit of
// Report.summary, and a run after Ledger.total lost its List.distinct, where the xUnit fact
// calling it fails) as the quick pick, the run's plan and its report. Other test projects of
// the fixture may add tests: the ones asserted here must be there.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ROOT, logic, recorded, repository } from "./helpers.mjs";

const { affectedTestsArguments, reasonText, affectedPicks, affectedSummary, runPlan, affectedRunReport } = logic("affectedTests");

/** The 1-based line of the fixture's file that holds `needle`. */
const lineOf = (relative, needle) =>
  readFileSync(join(repository, "fixtures/tested-reach", relative), "utf8")
    .split("\n")
    .findIndex((line) => line.includes(needle)) + 1;
const XUNIT = "tests/Calc.Xunit/LedgerTests.fs";
const EXPECTO = "tests/Calc.Expecto/ReportTests.fs";

test("arguments: the session's default change, or git since a revision; run only when asked", () => {
  assert.deepEqual(affectedTestsArguments({}), {});
  assert.deepEqual(affectedTestsArguments({ since: "  " }), {});
  assert.deepEqual(affectedTestsArguments({ since: " HEAD~2 ", run: true, timeoutMs: 5 }), { since: "HEAD~2", run: true, timeoutMs: 5 });
});

test("a reason: what changed, then each step with its 1-based line", () => {
  const chain = [
    { name: "count", path: "src/L.fs", line: 5 },
    { name: "count of none", path: "tests/T.fs", line: 9 },
  ];
  assert.equal(reasonText({ change: "body", chain }), "body changed: count (src/L.fs:6) → count of none (tests/T.fs:10)");
  assert.equal(reasonText({ change: "removed", chain, noLongerCompiles: true }), "removed, no longer compiles: count (src/L.fs:6) → count of none (tests/T.fs:10)");
  assert.equal(reasonText({ change: "projectFile", chain: [{ name: "src/C.fsproj", path: "src/C.fsproj", line: 0 }, chain[1]] }), "project file changed: src/C.fsproj (src/C.fsproj:1) → count of none (tests/T.fs:10)");
});

test("an unsaved edit of summary (recorded): its tests checked, each with the chain from summary as its detail", () => {
  const answer = recorded("affected-tests-buffers");
  const picks = affectedPicks(answer, ROOT);
  const summary = `summary (src/Calc/Report.fs:${lineOf("src/Calc/Report.fs", "let summary")})`;
  const xunit = picks.find((pick) => pick.label === "summary says the total");
  assert.deepEqual(
    [xunit.description, xunit.detail, xunit.path, xunit.line, xunit.picked, xunit.fallback],
    [
      "xunit · tests/Calc.Xunit/Calc.Xunit.fsproj",
      `body changed: ${summary} → summary says the total (${XUNIT}:${lineOf(XUNIT, "``summary says the total``")})`,
      `${ROOT}/${XUNIT}`,
      lineOf(XUNIT, "``summary says the total``") - 1,
      true,
      false,
    ],
  );
  const expecto = picks.find((pick) => pick.label === "summary of two");
  assert.equal(expecto.detail, `body changed: ${summary} → summary of two (${EXPECTO}:${lineOf(EXPECTO, '"summary of two"')})`);
  assert.ok(!picks.some((pick) => pick.label === "total counts distinct entries"), "total does not reach summary's change");
  assert.ok(picks.every((pick) => pick.picked && !pick.fallback));
  const { text, level } = affectedSummary(answer);
  assert.match(text, /^\d+ test\(s\) reached by the change \(unsaved buffers; complete\)$/);
  assert.equal(level, "info");
});

test("an incomplete answer says what was not followed and lists its fallback tests unchecked, even with no test selected", () => {
  const answer = {
    source: { kind: "since", revision: "HEAD" },
    complete: false,
    totalTests: 0,
    tests: [],
    missing: ["src/A.fs changed outside every declaration (an `open`, a `do`, …)"],
    fallbackTests: [{ name: "t one", fullyQualifiedName: "T.t one", project: "tests/T/T.fsproj", path: "tests/T/T.fs", line: 3 }],
  };
  const picks = affectedPicks(answer, "/w");
  assert.deepEqual(
    picks.map((pick) => [pick.label, pick.description, pick.picked, pick.fallback, pick.path, pick.line]),
    [["t one", "fallback · tests/T/T.fsproj", false, true, "/w/tests/T/T.fs", 3]],
  );
  assert.match(picks[0].detail, /not ruled out/);
  assert.deepEqual(affectedSummary(answer), {
    text: "0 test(s) reached by the change (since HEAD; NOT complete): not followed: src/A.fs changed outside every declaration (an `open`, a `do`, …) — 1 fallback test(s) listed unchecked",
    level: "warning",
  });
  const bare = affectedSummary({ ...answer, fallbackTests: [] });
  assert.match(bare.text, /NOT complete.* — no fallback test listed$/);
});

test("no change is said, not shown as an empty list of tests", () => {
  const answer = { source: { kind: "buffers" }, complete: true, totalTests: 0, tests: [], notes: ["no change: no unsaved buffer differs from the disk"] };
  assert.deepEqual(affectedPicks(answer, "/w"), []);
  assert.deepEqual(affectedSummary(answer), {
    text: "0 test(s) reached by the change (unsaved buffers; complete) — no change: no unsaved buffer differs from the disk",
    level: "info",
  });
});

test("running: every selected test through the answer's own run; a subset or a fallback test by full name", () => {
  const answer = recorded("affected-tests-buffers");
  const picks = affectedPicks(answer, ROOT);
  assert.deepEqual(runPlan(answer, picks), { kind: "affected" });
  const xunit = picks.filter((pick) => pick.label === "summary says the total");
  assert.deepEqual(runPlan(answer, xunit, 9), {
    kind: "runTests",
    argument: { tests: ["Calc.Xunit.LedgerTests.summary says the total"], timeoutMs: 9 },
    unnamed: [],
  });
  const fallback = { label: "f", fallback: true, picked: true, fullyQualifiedName: undefined, project: "p", path: "/w/f.fs", line: 0, description: "", detail: "" };
  assert.deepEqual(runPlan(answer, [...picks, fallback]).kind, "runTests");
  assert.deepEqual(runPlan(answer, [fallback]), { kind: "runTests", unnamed: ["f"] });
});

test("the run (recorded): the failure at its frame with VSTest's message and the reason its test was selected", () => {
  const answer = recorded("affected-tests-run");
  const report = affectedRunReport(answer, ROOT);
  const name = "Calc.Xunit.LedgerTests.total counts distinct entries";
  const failure = report.failures.find((candidate) => candidate.name === name);
  assert.ok(failure, JSON.stringify(report.failures));
  const frame = lineOf(XUNIT, "Assert.Equal(2");
  assert.equal(failure.path, `${ROOT}/${XUNIT}`);
  assert.equal(failure.range.start.line, frame - 1);
  const reason = `body changed: total (src/Calc/Ledger.fs:${lineOf("src/Calc/Ledger.fs", "let total")}) → total counts distinct entries (${XUNIT}:${lineOf(XUNIT, "``total counts distinct entries``")})`;
  assert.match(failure.message, /Expected: 2/);
  assert.ok(failure.message.endsWith(`\n(selected because ${reason})`), failure.message);
  const at = report.lines.findIndex((line) => line.startsWith(`✗ FAILED ${name}`));
  assert.ok(at >= 0, report.lines.join("\n"));
  assert.ok(report.lines.slice(at).includes(`    selected because ${reason}`), report.lines.join("\n"));
  assert.ok(report.lines.some((line) => line.startsWith("✓ passed Calc.Xunit.LedgerTests.summary says the total")), report.lines.join("\n"));
  // The Expecto case has no VSTest adapter: named as not run, in the output and the summary.
  assert.ok(report.lines.some((line) => line.startsWith("not run") && line.includes("summary of two")), report.lines.join("\n"));
  assert.equal(report.summary.level, "error");
  assert.match(report.summary.text, /^Tests: \d+ passed, [1-9]\d* failed, .* — not run .*summary of two/);
  assert.equal(report.lines[report.lines.length - 1], report.summary.text.split(" — not run")[0]);
});

test("a run in which nothing could be selected by name says so", () => {
  const report = affectedRunReport({ tests: [], notes: ["run: no selected test VSTest can select by name; nothing was run"] }, "/w");
  assert.deepEqual(report.summary, { text: "Tests not run: run: no selected test VSTest can select by name; nothing was run", level: "warning" });
  assert.deepEqual(report.failures, []);
});
