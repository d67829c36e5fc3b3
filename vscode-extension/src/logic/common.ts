// Shapes shared by the command answers, and error text.

export interface Position {
  line: number;
  character: number;
}

export interface Range {
  start: Position;
  end: Position;
}

/** A workspace-relative (or absolute) path from an answer, made absolute. */
export function absolutePath(root: string, file: string): string {
  if (file.startsWith("/") || /^[A-Za-z]:[\\/]/.test(file) || file.startsWith("\\\\")) {
    return file;
  }
  const separator = root.includes("\\") && !root.includes("/") ? "\\" : "/";
  return root.replace(/[\\/]+$/, "") + separator + file.replace(/^\.\//, "");
}

/** A range from an answer, defaulting missing parts to the start of the file. */
export function rangeOf(value: unknown): Range {
  const range = (value ?? {}) as Partial<Range>;
  const position = (p: Partial<Position> | undefined): Position => ({
    line: typeof p?.line === "number" ? p.line : 0,
    character: typeof p?.character === "number" ? p.character : 0,
  });
  const start = position(range.start);
  return { start, end: range.end ? position(range.end) : start };
}

export interface ResponseErrorLike {
  message?: string;
  code?: number;
  data?: { errorKind?: string; argument?: string; path?: string; state?: string } | null;
}

/** A one-line description of a JSON-RPC error from fslens (docs/commands.md "Errors"). */
export function describeError(error: unknown): string {
  const e = (error ?? {}) as ResponseErrorLike;
  const message = e.message ?? String(error);
  const kind = e.data?.errorKind;
  if (!kind) {
    return message;
  }
  switch (kind) {
    case "fsac_unavailable":
      return `${message} (FsAutoComplete is not available${e.data?.state ? `: ${e.data.state}` : ""})`;
    case "cancelled":
      return "cancelled";
    default:
      return `${message} [${kind}]`;
  }
}
