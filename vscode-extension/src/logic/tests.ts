// fslens.testsForSymbol and fslens.runTests for "fslens: Tests of the symbol under the cursor":
// the arguments at the cursor, the tests as quick pick rows (which of them fslens.runTests can
// select by name), the arguments that run the picked ones, and a run's answer as output lines,
// problems at the failing frames and a summary. No `vscode` import.

import { absolutePath, Range } from "./common";

export interface TestsForSymbolRequest {
  path: string;
  line: number;
  character: number;
  timeoutMs?: number;
}

export function testsForSymbolArguments(request: TestsForSymbolRequest): Record<string, unknown> {
  const args: Record<string, unknown> = { path: request.path, line: request.line, character: request.character };
  if (request.timeoutMs !== undefined) {
    args.timeoutMs = request.timeoutMs;
  }
  return args;
}

/** `reach` of a test: "direct", or the helper it reaches the symbol through. */
export type Reach = "direct" | { via: string; path: string; line: number };

export interface SymbolTest {
  name: string;
  fullyQualifiedName?: string;
  framework: string;
  project: string;
  path: string;
  /** 0-based, of the test's name. */
  line: number;
  reach: Reach;
}

export interface TestsForSymbolResult {
  query?: string;
  symbol?: string;
  via?: string;
  complete?: boolean;
  completeness?: { find?: string; missing?: string[] };
  totalTests?: number;
  testProjects?: { project: string; searched?: string; tests?: SymbolTest[] }[];
  helpersNotFollowed?: string[];
  runTestsArguments?: { tests?: string[]; projects?: string[] };
  notes?: string[];
}

/** Every test of the answer, project by project. */
export function symbolTests(result: TestsForSymbolResult): SymbolTest[] {
  return (result.testProjects ?? []).flatMap((project) => project.tests ?? []);
}

/** Whether fslens.runTests can select a test by name (VSTest: the answer's runTestsArguments.tests). */
export function runnable(result: TestsForSymbolResult, test: SymbolTest): boolean {
  return test.fullyQualifiedName !== undefined && (result.runTestsArguments?.tests ?? []).includes(test.fullyQualifiedName);
}

export interface TestPick {
  label: string;
  description: string;
  detail: string;
  /** Runnable tests start picked: Enter runs them all. */
  picked: boolean;
  runnable: boolean;
  /** Where the test is: absolute path, 0-based line. */
  path: string;
  line: number;
  test: SymbolTest;
}

/** The quick pick's rows: each test, with its framework, how it reaches the symbol and where it is. */
export function testPicks(result: TestsForSymbolResult, root: string): TestPick[] {
  return symbolTests(result).map((test) => {
    const canRun = runnable(result, test);
    const reach = typeof test.reach === "object" ? ` via ${test.reach.via}` : "";
    return {
      label: test.name,
      description: `${test.framework}${reach}`,
      detail: `${test.path}:${test.line + 1}${canRun ? "" : " — cannot be run by name (no VSTest adapter in its project)"}`,
      picked: canRun,
      runnable: canRun,
      path: absolutePath(root, test.path),
      line: test.line,
      test,
    };
  });
}

export type Level = "info" | "warning" | "error";

/** The quick pick's title: how many tests, of what, and how complete that is. */
export function testsSummary(result: TestsForSymbolResult): { text: string; level: Level } {
  const symbol = result.symbol ?? result.query ?? "the symbol";
  const count = result.totalTests ?? symbolTests(result).length;
  let text = `${count} test(s) reach ${symbol} (via ${result.via ?? "?"}; ${result.complete ? "complete" : "NOT complete"})`;
  const missing = result.completeness?.missing ?? [];
  if (!result.complete && missing.length > 0) {
    text += `: ${missing.join("; ")}`;
  }
  return { text, level: result.complete ? "info" : "warning" };
}

export interface RunSelection {
  /** fslens.runTests's argument, or undefined when no picked test can be selected by name (no `projects`: every test project). */
  argument?: { tests: string[]; projects?: string[]; timeoutMs?: number };
  /** The picked tests fslens.runTests cannot select (shown, not silently dropped). */
  notRunnable: string[];
}

/**
 * What fslens.runTests takes to run `picked`: their full names and the projects holding them.
 * The picked tests may be fewer than runTestsArguments.tests, so the projects sent are those of
 * the picked runnable tests (a project with none of them would run nothing, or be refused).
 */
export function runSelection(result: TestsForSymbolResult, picked: SymbolTest[], timeoutMs?: number): RunSelection {
  const tests: string[] = [];
  const projects: string[] = [];
  const notRunnable: string[] = [];
  for (const test of picked) {
    if (!runnable(result, test)) {
      notRunnable.push(test.name);
      continue;
    }
    if (!tests.includes(test.fullyQualifiedName!)) tests.push(test.fullyQualifiedName!);
    if (!projects.includes(test.project)) projects.push(test.project);
  }
  if (tests.length === 0) {
    return { notRunnable };
  }
  return { argument: { tests, projects, ...(timeoutMs !== undefined ? { timeoutMs } : {}) }, notRunnable };
}

export type Outcome = "passed" | "failed" | "skipped" | "none" | "notFound";

export interface TestResult {
  fullName: string;
  displayName: string;
  project?: string | null;
  outcome: Outcome;
  durationMs?: number;
  message?: string;
  stackTrace?: string;
  /** The first stack frame in the workspace: path relative to the root, 1-based line. */
  location?: { path: string; line: number };
  output?: string;
}

export interface RunTestsResult {
  status: "ok" | "unknown";
  complete?: boolean;
  blockingReason?: { errorKind: string; message: string };
  totals?: { passed: number; failed: number; skipped: number; other: number };
  tests?: TestResult[];
  projects?: string[];
  staleAssemblies?: { project: string; assembly: string; reason: string; remedy: string }[];
}

export interface Failure {
  name: string;
  message: string;
  /** Absolute path and 0-based range of the failing frame's line, when the stack has one in the workspace. */
  path?: string;
  range?: Range;
}

export interface RunReport {
  summary: { text: string; level: Level };
  /** The output channel's lines: each test, failures with message and frame, stale builds. */
  lines: string[];
  /** Failed tests, in the answer's order (the first one is where "Go to Failure" jumps). */
  failures: Failure[];
}

const MARK: Record<Outcome, string> = { passed: "✓ passed", failed: "✗ FAILED", skipped: "- skipped", none: "? none", notFound: "? notFound" };

/** A run's answer as the user sees it. */
export function runReport(result: RunTestsResult, root: string): RunReport {
  const lines: string[] = [];
  const failures: Failure[] = [];
  for (const test of result.tests ?? []) {
    const duration = test.durationMs !== undefined ? ` (${Math.round(test.durationMs)} ms)` : "";
    const at = test.location ? ` at ${test.location.path}:${test.location.line}` : "";
    lines.push(`${MARK[test.outcome] ?? test.outcome} ${test.displayName}${duration}${test.outcome === "failed" ? at : ""}`);
    if (test.outcome === "failed") {
      const message = test.message ?? "failed (VSTest gave no message)";
      for (const line of message.split("\n")) {
        lines.push(`    ${line}`);
      }
      const failure: Failure = { name: test.displayName, message };
      if (test.location) {
        const line = Math.max(0, test.location.line - 1);
        failure.path = absolutePath(root, test.location.path);
        failure.range = { start: { line, character: 0 }, end: { line, character: Number.MAX_SAFE_INTEGER } };
      } else {
        lines.push("    (no stack frame in the workspace)");
      }
      failures.push(failure);
    } else if (test.outcome === "notFound") {
      // No such test, or an adapter that could not select it (NUnit's refuses a
      // FullyQualifiedName filter on a name with spaces): VSTest reported nothing for the name.
      lines.push("    no result: no such test, or its adapter could not select it by name");
    }
  }
  for (const stale of result.staleAssemblies ?? []) {
    lines.push(`stale build of ${stale.project}: ${stale.reason} — ${stale.remedy}`);
  }
  const totals = result.totals ?? { passed: 0, failed: 0, skipped: 0, other: 0 };
  let text = `Tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped, ${totals.other} other`;
  let level: Level = totals.failed > 0 ? "error" : "info";
  if (result.status !== "ok") {
    text = `Tests not run (${result.blockingReason?.errorKind ?? "unknown"}): ${result.blockingReason?.message ?? "fslens could not run them"}`;
    level = "warning";
  } else if (!result.complete) {
    const stale = result.staleAssemblies?.length ?? 0;
    text += stale > 0 ? ` — ${stale} stale build(s): results of the old build` : " — NOT complete";
    if (level === "info") level = "warning";
  }
  lines.push(text);
  return { summary: { text, level }, lines, failures };
}
