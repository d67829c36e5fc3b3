// fslens.check: arguments from the editor's context, diagnostics per file for the Problems
// view, and the verdict for a notification.

import { Range, absolutePath, rangeOf } from "./common";

export type CheckScope = "file" | "project" | "workspace";

export interface CheckRequest {
  scope: CheckScope;
  /** The active file (absolute), for file scope, and to find the project for project scope. */
  filePath?: string;
  /** The .fsproj for project scope. */
  projectPath?: string;
  timeoutMs?: number;
  severity?: "error" | "warning" | "information" | "hint" | "all";
}

export function checkArguments(request: CheckRequest): Record<string, unknown> {
  const args: Record<string, unknown> = { scope: request.scope, severity: request.severity ?? "all" };
  if (request.scope === "file") {
    if (!request.filePath) {
      throw new Error("Check: open an F# file first (or check the workspace)");
    }
    args.path = request.filePath;
  } else if (request.scope === "project") {
    if (!request.projectPath) {
      throw new Error("Check: no .fsproj found for the active file");
    }
    args.projectPath = request.projectPath;
  }
  if (request.timeoutMs !== undefined) {
    args.timeoutMs = request.timeoutMs;
  }
  return args;
}

/** VS Code's DiagnosticSeverity values (Error 0, Warning 1, Information 2, Hint 3). */
export function severityNumber(severity: unknown): 0 | 1 | 2 | 3 {
  switch (severity) {
    case "warning":
      return 1;
    case "information":
    case "info":
      return 2;
    case "hint":
    case "hidden":
      return 3;
    default:
      return 0;
  }
}

export interface ProblemEntry {
  range: Range;
  severity: 0 | 1 | 2 | 3;
  /** "FS0001" for a numeric compiler code. */
  code?: string;
  source: string;
  message: string;
}

export interface CheckDiagnostic {
  file?: string;
  range?: unknown;
  severity?: string;
  code?: number | string | null;
  source?: string | null;
  message?: string;
}

export interface CheckResult {
  verdict?: "clean" | "errors" | "unknown";
  scope?: string;
  complete?: boolean;
  errorCount?: number;
  warningCount?: number;
  infoCount?: number;
  totalDiagnostics?: number;
  diagnostics?: CheckDiagnostic[];
  diagnosticsTruncated?: boolean;
  diagnosticsNote?: string;
  expectedFiles?: string[];
  missingFiles?: string[];
  staleFiles?: string[];
  blockingReason?: { errorKind?: string; message?: string; remedy?: string; remedies?: string[] } | null;
  coverageNote?: string;
  recommendedScope?: string;
}

export function diagnosticCode(code: unknown): string | undefined {
  if (typeof code === "number") {
    return "FS" + String(code).padStart(4, "0");
  }
  if (typeof code === "string" && code !== "") {
    return /^\d+$/.test(code) ? "FS" + code.padStart(4, "0") : code;
  }
  return undefined;
}

/** Whitespace runs of the compiler's multi-line messages made single spaces. */
export function tidyMessage(message: string | undefined): string {
  return (message ?? "").replace(/\s+/g, " ").trim();
}

/**
 * The check's diagnostics grouped by absolute file path. Files the check covered without a
 * diagnostic get an empty list, so that their stale problems are cleared. Snippet diagnostics
 * (`file: "snippet"`) have no file and are left out.
 */
export function problemsByFile(result: CheckResult, root: string): Map<string, ProblemEntry[]> {
  const byFile = new Map<string, ProblemEntry[]>();
  for (const file of result.expectedFiles ?? []) {
    byFile.set(absolutePath(root, file), []);
  }
  for (const d of result.diagnostics ?? []) {
    if (!d.file || d.file === "snippet") {
      continue;
    }
    const path = absolutePath(root, d.file);
    const entries = byFile.get(path) ?? [];
    entries.push({
      range: rangeOf(d.range),
      severity: severityNumber(d.severity),
      code: diagnosticCode(d.code),
      source: "fslens check",
      message: tidyMessage(d.message),
    });
    byFile.set(path, entries);
  }
  return byFile;
}

export interface Verdict {
  level: "info" | "warning" | "error";
  text: string;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

/** The verdict for a notification: clean → info, errors → error, unknown → warning. */
export function verdictMessage(result: CheckResult): Verdict {
  const scope = result.scope ?? "check";
  const errors = result.errorCount ?? 0;
  const warnings = result.warningCount ?? 0;
  switch (result.verdict) {
    case "clean": {
      const files = result.expectedFiles?.length;
      const covered = files !== undefined ? ` (${plural(files, "file")} checked)` : "";
      const text = `F# check (${scope}): clean${covered}${warnings > 0 ? `, ${plural(warnings, "warning")}` : ""}`;
      return { level: "info", text: result.coverageNote ? `${text}. ${result.coverageNote}` : text };
    }
    case "errors": {
      let text = `F# check (${scope}): ${plural(errors, "error")}, ${plural(warnings, "warning")}`;
      if (result.complete === false) {
        text += " (not every file was analysed)";
      }
      if (result.diagnosticsTruncated) {
        text += `; ${result.diagnosticsNote ?? "the list is truncated"}`;
      }
      return { level: "error", text };
    }
    default: {
      const reason = result.blockingReason;
      let text = `F# check (${scope}): unknown`;
      if (reason?.message) {
        text += ` — ${reason.message}`;
      } else if (reason?.errorKind) {
        text += ` — ${reason.errorKind}`;
      }
      const remedy = reason?.remedy ?? reason?.remedies?.[0];
      if (remedy) {
        text += ` (${remedy})`;
      }
      return { level: "warning", text };
    }
  }
}

/** The nearest `.fsproj` at or above a file, given a directory lister (injected for tests). */
export function nearestProject(
  filePath: string,
  listDirectory: (directory: string) => string[],
): string | undefined {
  const separator = filePath.includes("\\") && !filePath.includes("/") ? "\\" : "/";
  const parts = filePath.split(/[\\/]/);
  for (let end = parts.length - 1; end > 0; end--) {
    const directory = parts.slice(0, end).join(separator) || separator;
    const project = listDirectory(directory)
      .filter((name) => name.toLowerCase().endsWith(".fsproj"))
      .sort()[0];
    if (project) {
      return directory.replace(/[\\/]$/, "") + separator + project;
    }
  }
  return undefined;
}
