// fslens.affectedTests for "fslens: Tests affected by my changes": the arguments of the change
// asked about, the selected tests as quick pick rows with their reasons (the chain from the
// changed declaration to the test), the fallback tests of an incomplete answer as rows of
// their own, how the checked rows are run (the answer's own `run: true` when all the selected
// tests are checked, else fslens.runTests by name) and a run's answer as the report the
// runTests command shows, with each failure's reason. No `vscode` import.

import { absolutePath } from "./common";
import { Level, RunReport, runReport, RunTestsResult, TestResult } from "./tests";

/** The change asked about: the session's default (unsaved buffers, else uncommitted changes) or git since a revision. */
export interface AffectedTestsRequest {
  since?: string;
  run?: boolean;
  timeoutMs?: number;
}

export function affectedTestsArguments(request: AffectedTestsRequest): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  const since = request.since?.trim();
  if (since) {
    args.since = since;
  }
  if (request.run) {
    args.run = true;
  }
  if (request.timeoutMs !== undefined) {
    args.timeoutMs = request.timeoutMs;
  }
  return args;
}

export interface Step {
  name: string;
  path: string;
  /** 0-based. */
  line: number;
}

export interface Reason {
  /** `added` | `removed` | `signature` | `body` | `projectFile`. */
  change: string;
  chain: Step[];
  noLongerCompiles?: boolean;
}

export interface AffectedTest {
  name: string;
  fullyQualifiedName?: string;
  framework: string;
  project: string;
  path: string;
  /** 0-based, of the test's name. */
  line: number;
  reasons: Reason[];
  results?: TestResult[];
}

export interface FallbackTest {
  name: string;
  fullyQualifiedName?: string;
  project: string;
  path: string;
  line: number;
}

export interface AffectedTestsResult {
  source?: { kind: "since"; revision: string } | { kind: "buffers" };
  complete?: boolean;
  depth?: number;
  changedFiles?: string[];
  changedDeclarations?: { path: string; qualifiedName: string; change: string; line: number; tests: number }[];
  totalTests?: number;
  tests?: AffectedTest[];
  missing?: string[];
  fallbackTests?: FallbackTest[];
  run?: RunTestsResult;
  notes?: string[];
}

const CHANGE: Record<string, string> = {
  added: "added",
  removed: "removed",
  signature: "signature changed",
  body: "body changed",
  projectFile: "project file changed",
};

/** One reason as text: what changed, then each step `name (path:line)` (1-based) to the test. */
export function reasonText(reason: Reason): string {
  const steps = reason.chain.map((step) => `${step.name} (${step.path}:${step.line + 1})`).join(" → ");
  const change = CHANGE[reason.change] ?? reason.change;
  return `${change}${reason.noLongerCompiles ? ", no longer compiles" : ""}: ${steps}`;
}

/** Where the change came from, in words. */
export function sourceText(result: AffectedTestsResult): string {
  const source = result.source;
  if (source?.kind === "since") {
    return `since ${source.revision}`;
  }
  return source?.kind === "buffers" ? "unsaved buffers" : "the change";
}

export interface AffectedPick {
  label: string;
  description: string;
  detail: string;
  /** The selected tests start checked (Enter runs them); fallback tests do not. */
  picked: boolean;
  /** A test the walk could not rule out (the answer is not complete), not one it reached. */
  fallback: boolean;
  /** Absolute path and 0-based line of the test. */
  path: string;
  line: number;
  fullyQualifiedName?: string;
  project: string;
}

/** The quick pick's rows: each selected test with its reasons, then the fallback tests, unchecked. */
export function affectedPicks(result: AffectedTestsResult, root: string): AffectedPick[] {
  const selected = (result.tests ?? []).map((test) => ({
    label: test.name,
    description: `${test.framework} · ${test.project}`,
    detail: test.reasons.map(reasonText).join("; "),
    picked: true,
    fallback: false,
    path: absolutePath(root, test.path),
    line: test.line,
    fullyQualifiedName: test.fullyQualifiedName,
    project: test.project,
  }));
  const fallback = (result.fallbackTests ?? []).map((test) => ({
    label: test.name,
    description: `fallback · ${test.project}`,
    detail: `not reached by the walk, not ruled out either (the answer is not complete): ${test.path}:${test.line + 1}`,
    picked: false,
    fallback: true,
    path: absolutePath(root, test.path),
    line: test.line,
    fullyQualifiedName: test.fullyQualifiedName,
    project: test.project,
  }));
  return [...selected, ...fallback];
}

/** The title: how many tests the change reaches, from what, and how complete that is (what was not followed, the fallback tests). */
export function affectedSummary(result: AffectedTestsResult): { text: string; level: Level } {
  const count = result.totalTests ?? result.tests?.length ?? 0;
  let text = `${count} test(s) reached by the change (${sourceText(result)}; ${result.complete ? "complete" : "NOT complete"})`;
  if (!result.complete) {
    const missing = result.missing ?? [];
    if (missing.length > 0) {
      text += `: not followed: ${missing.join("; ")}`;
    }
    const fallback = result.fallbackTests?.length ?? 0;
    text += fallback > 0 ? ` — ${fallback} fallback test(s) listed unchecked` : " — no fallback test listed";
  }
  if (count === 0 && (result.notes ?? []).length > 0) {
    text += ` — ${(result.notes ?? []).join("; ")}`;
  }
  return { text, level: result.complete ? "info" : "warning" };
}

export type RunPlan =
  /** Every selected test is checked and nothing else: fslens.affectedTests with `run: true` (results beside reasons). */
  | { kind: "affected" }
  /** A subset, or fallback tests: fslens.runTests by full name; `unnamed` lists the checked rows without one (not run). */
  | { kind: "runTests"; argument?: { tests: string[]; timeoutMs?: number }; unnamed: string[] };

/**
 * How the checked rows run. fslens.runTests gets only `tests`: the answer does not say which
 * projects VSTest runs, so every test project is searched and a name VSTest cannot select
 * comes back as a `notFound` row (shown, not dropped).
 */
export function runPlan(result: AffectedTestsResult, checked: AffectedPick[], timeoutMs?: number): RunPlan {
  const selected = result.tests ?? [];
  const all = checked.length === selected.length && checked.every((pick) => !pick.fallback);
  if (all && selected.length > 0) {
    return { kind: "affected" };
  }
  const tests: string[] = [];
  const unnamed: string[] = [];
  for (const pick of checked) {
    if (!pick.fullyQualifiedName) {
      unnamed.push(pick.label);
    } else if (!tests.includes(pick.fullyQualifiedName)) {
      tests.push(pick.fullyQualifiedName);
    }
  }
  if (tests.length === 0) {
    return { kind: "runTests", unnamed };
  }
  return { kind: "runTests", argument: { tests, ...(timeoutMs !== undefined ? { timeoutMs } : {}) }, unnamed };
}

/**
 * The report of an affectedTests answer given with `run: true`: runTests' report over every
 * result (those set beside their tests and those matching none), each failure's message and
 * output line followed by the reason its test was selected, then the answer's notes (the tests
 * not run, and why). No run (nothing VSTest could select) is a warning saying why.
 */
export function affectedRunReport(result: AffectedTestsResult, root: string): RunReport {
  const notes = result.notes ?? [];
  if (!result.run) {
    const text = `Tests not run: ${notes.length > 0 ? notes.join("; ") : "fslens ran none of the selected tests"}`;
    return { summary: { text, level: "warning" }, lines: [...notes, text], failures: [] };
  }
  // The reasons of each result, by the name the report shows (VSTest's display name).
  const reasons = new Map<string, string>();
  const results: TestResult[] = [];
  for (const test of result.tests ?? []) {
    for (const row of test.results ?? []) {
      results.push(row);
      reasons.set(row.displayName, test.reasons.map(reasonText).join("; "));
    }
  }
  const report = runReport({ ...result.run, tests: [...results, ...(result.run.tests ?? [])] }, root);
  const lines: string[] = [];
  for (const line of report.lines) {
    lines.push(line);
    if (line.startsWith("✗ FAILED ")) {
      const shown = [...reasons.keys()].filter((name) => line.startsWith(`✗ FAILED ${name}`));
      const name = shown.sort((a, b) => b.length - a.length)[0];
      if (name !== undefined) {
        lines.push(`    selected because ${reasons.get(name)}`);
      }
    }
  }
  // The answer's notes (the tests not run, and why) before the summary line.
  const summaryLine = lines.pop();
  lines.push(...notes);
  if (summaryLine !== undefined) {
    lines.push(summaryLine);
  }
  const failures = report.failures.map((failure) => {
    const reason = reasons.get(failure.name);
    return reason ? { ...failure, message: `${failure.message}\n(selected because ${reason})` } : failure;
  });
  let summary = report.summary;
  const notRun = notes.find((note) => note.startsWith("not run"));
  if (notRun) {
    summary = { text: `${summary.text} — ${notRun}`, level: summary.level === "info" ? "warning" : summary.level };
  }
  return { summary, lines, failures };
}
