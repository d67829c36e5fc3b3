// fslens.makeInternalVisible: arguments, the "expose to project" choices, the answer's edits.

import { Range, rangeOf } from "./common";

export interface MakeVisibleRequest {
  path: string;
  line: number;
  character: number;
  /** A project name: also add InternalsVisibleTo for it to the declaring project. */
  exposeTo?: string;
  /** Let fslens send the edit to the editor as workspace/applyEdit. */
  apply?: boolean;
}

export function makeVisibleArguments(request: MakeVisibleRequest): Record<string, unknown> {
  const args: Record<string, unknown> = { path: request.path, line: request.line, character: request.character };
  if (request.exposeTo) {
    args.exposeTo = request.exposeTo;
  }
  if (request.apply) {
    args.apply = true;
  }
  return args;
}

export const ONLY_INTERNAL = "Only make it internal";

export interface ProjectChoice {
  label: string;
  description?: string;
  /** The project name for `exposeTo`, or undefined for no InternalsVisibleTo. */
  exposeTo?: string;
}

/** The quick pick for "expose to project": none first, then test projects, then the rest. */
export function exposeChoices(projects: string[]): ProjectChoice[] {
  const isTest = (name: string) => /test/i.test(name);
  const sorted = [...projects].sort((a, b) => Number(isTest(b)) - Number(isTest(a)) || a.localeCompare(b));
  return [
    { label: ONLY_INTERNAL, description: "private → internal, no project change" },
    ...sorted.map((name) => ({
      label: name,
      description: "also add InternalsVisibleTo to the declaring project",
      exposeTo: name,
    })),
  ];
}

export interface TextEditEntry {
  uri: string;
  range: Range;
  newText: string;
}

export interface MakeVisibleResult {
  status?: "ok" | "no_action";
  reason?: string;
  declaration?: { name?: string; fullName?: string; kind?: string; file?: string };
  edits?: {
    changes?: Record<string, { range: unknown; newText: string }[]>;
    documentChanges?: { textDocument: { uri: string }; edits: { range: unknown; newText: string }[] }[];
  } | null;
  appliedPreview?: string | null;
  originalLineText?: string;
  via?: string;
  notes?: string[];
  applied?: { applied: boolean; failureReason?: string | null };
}

/** The text edits of a WorkspaceEdit (`changes` or `documentChanges`), flat. */
export function textEdits(edit: MakeVisibleResult["edits"]): TextEditEntry[] {
  const entries: TextEditEntry[] = [];
  if (!edit) {
    return entries;
  }
  for (const [uri, edits] of Object.entries(edit.changes ?? {})) {
    for (const e of edits) {
      entries.push({ uri, range: rangeOf(e.range), newText: e.newText });
    }
  }
  for (const change of edit.documentChanges ?? []) {
    for (const e of change.edits ?? []) {
      entries.push({ uri: change.textDocument.uri, range: rangeOf(e.range), newText: e.newText });
    }
  }
  return entries;
}

export interface MakeVisibleOutcome {
  level: "info" | "warning" | "error";
  text: string;
  /** Whether the extension should apply `edits` itself (fslens did not get them applied). */
  applyLocally: boolean;
}

export function makeVisibleOutcome(result: MakeVisibleResult): MakeVisibleOutcome {
  if (result.status !== "ok") {
    return {
      level: "warning",
      text: `Make Internal Visible: nothing to do — ${result.reason ?? "no private declaration here"}`,
      applyLocally: false,
    };
  }
  const name = result.declaration?.fullName ?? result.declaration?.name ?? "the declaration";
  const notes = (result.notes ?? []).length > 0 ? ` (${(result.notes ?? []).join("; ")})` : "";
  const applied = result.applied;
  if (applied && !applied.applied) {
    return {
      level: "warning",
      text: `${name} could not be made internal in the editor: ${applied.failureReason ?? "edit rejected"}`,
      applyLocally: false,
    };
  }
  return { level: "info", text: `${name} is internal now${notes}`, applyLocally: applied === undefined };
}
