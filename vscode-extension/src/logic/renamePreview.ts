// fslens.rename with a preview: the arguments (a preview first, then the same rename applied
// through the editor), and the answer as rows to show: an INCOMPLETE warning when the preview is
// not complete, the sites fslens.find has that FSAC's rename misses, then each file's lines
// before → after. No `vscode` import.

import { absolutePath, Range, rangeOf } from "./common";

export interface RenameRequest {
  path: string;
  line: number;
  character: number;
  newName: string;
}

/** The preview (`apply: false`), or with `apply: "editor"` the edit sent as workspace/applyEdit. */
export function renameArguments(request: RenameRequest, apply: false | "editor" = false): Record<string, unknown> {
  if (request.newName.trim() === "") {
    throw new Error("Rename with Preview: the new name is empty");
  }
  return { path: request.path, line: request.line, character: request.character, newName: request.newName, apply };
}

export interface RenameResult {
  status?: string;
  oldName?: string;
  newName?: string;
  complete?: boolean;
  totalEdits?: number;
  totalFiles?: number;
  files?: { file: string; edits?: number; lines?: { line: number; before: string; after: string }[] }[];
  linesOmitted?: number;
  truncated?: boolean;
  missedSites?: { file: string; range?: unknown; kind?: string; symbolFullName?: string; lineText?: string }[];
  crossCheck?: { findCompleteness?: string; findSites?: number; notes?: string[] };
  applied?: { mode?: string; applied?: boolean; failureReason?: string | null };
}

export type PreviewRowKind = "apply" | "incomplete" | "missedHeader" | "missed" | "fileHeader" | "edit" | "omitted";

export interface PreviewRow {
  kind: PreviewRowKind;
  label: string;
  description?: string;
  detail?: string;
  /** Where the row is (absolute), for rows that name a place. */
  path?: string;
  range?: Range;
}

export interface RenamePreview {
  /** False when fslens.rename's preview is not complete (missed sites, or find not complete). */
  complete: boolean;
  title: string;
  rows: PreviewRow[];
  /** The same preview as plain text (the output channel). */
  text: string;
}

function plural(count: number, word: string): string {
  return `${count} ${word}${count === 1 ? "" : "s"}`;
}

export function renamePreview(result: RenameResult, root: string): RenamePreview {
  const complete = result.complete === true;
  const missed = result.missedSites ?? [];
  const change = `${result.oldName ?? "?"} → ${result.newName ?? "?"}`;
  const size = `${plural(result.totalEdits ?? 0, "edit")} in ${plural(result.totalFiles ?? 0, "file")}`;
  const title = `F#: Rename ${change}: ${size}${complete ? "" : " — INCOMPLETE"}`;
  const rows: PreviewRow[] = [
    {
      kind: "apply",
      label: `Apply: rename ${change} (${size})`,
      description: complete ? "" : "INCOMPLETE: the sites below that the rename misses stay as they are",
    },
  ];
  if (!complete) {
    const reasons = [
      ...(missed.length > 0 ? [`${plural(missed.length, "site")} fslens.find has that FSAC's rename misses`] : []),
      ...(result.crossCheck?.notes ?? []),
    ];
    rows.push({ kind: "incomplete", label: "INCOMPLETE", description: reasons.join("; ") || "the preview is not complete" });
  }
  if (missed.length > 0) {
    rows.push({ kind: "missedHeader", label: `Missed by the rename (${missed.length})` });
    for (const site of missed) {
      const range = rangeOf(site.range);
      rows.push({
        kind: "missed",
        label: `MISSED ${site.file}:${range.start.line + 1}`,
        description: [site.kind, site.symbolFullName].filter(Boolean).join(" · "),
        detail: (site.lineText ?? "").trim(),
        path: absolutePath(root, site.file),
        range,
      });
    }
  }
  for (const file of result.files ?? []) {
    rows.push({ kind: "fileHeader", label: file.file, description: plural(file.edits ?? 0, "edit") });
    for (const line of file.lines ?? []) {
      const at = { line: line.line, character: 0 };
      rows.push({
        kind: "edit",
        label: `${file.file}:${line.line + 1}  ${line.before.trim()}`,
        detail: `→ ${line.after.trim()}`,
        path: absolutePath(root, file.file),
        range: { start: at, end: at },
      });
    }
  }
  if ((result.linesOmitted ?? 0) > 0) {
    rows.push({ kind: "omitted", label: `… ${plural(result.linesOmitted ?? 0, "more line")} not shown` });
  }
  const text = [
    title,
    ...rows
      .filter((row) => row.kind !== "apply")
      .map((row) =>
        row.kind === "edit"
          ? `  ${row.label}\n  ${" ".repeat(row.label.indexOf("  ") + 2)}${row.detail}`
          : row.kind === "missed"
            ? `  ${row.label}  ${row.description ?? ""}\n      ${row.detail ?? ""}`
            : `${row.label}${row.description ? `: ${row.description}` : ""}`,
      ),
  ].join("\n");
  return { complete, title, rows, text };
}

export interface RenameAppliedOutcome {
  level: "info" | "warning" | "error";
  text: string;
}

/** What the apply answer means: applied in the editor, or why not. */
export function renameAppliedOutcome(result: RenameResult): RenameAppliedOutcome {
  const change = `${result.oldName ?? "?"} → ${result.newName ?? "?"}`;
  if (result.applied?.applied === true) {
    return result.complete === true
      ? { level: "info", text: `Renamed ${change} (${plural(result.totalEdits ?? 0, "edit")}; nothing saved yet)` }
      : {
          level: "warning",
          text: `Renamed ${change}, INCOMPLETE: ${plural((result.missedSites ?? []).length, "missed site")} left as they were`,
        };
  }
  return { level: "error", text: `Rename ${change} was not applied: ${result.applied?.failureReason ?? "the editor declined it"}` };
}
