// fslens.typeHierarchy: arguments at a position, and its answer as type hierarchy items (the
// type itself, its supertypes at their declarations, its subtypes at their own `type` line when
// the file shows one, else at the answer's row). No `vscode` import: the extension turns the
// items into vscode.TypeHierarchyItem.

import { Range, rangeOf } from "./common";

export interface TypeHierarchyRequest {
  path: string;
  line: number;
  character: number;
  timeoutMs?: number;
}

export function typeHierarchyArguments(request: TypeHierarchyRequest): Record<string, unknown> {
  const args: Record<string, unknown> = { path: request.path, line: request.line, character: request.character };
  if (request.timeoutMs !== undefined) {
    args.timeoutMs = request.timeoutMs;
  }
  return args;
}

export interface TypeHierarchyResult {
  type?: { name?: string; uri?: string; file?: string; range?: unknown; lineText?: string };
  supertypes?: { uri?: string; range?: unknown; via?: string; declaration?: { uri?: string; range?: unknown } }[];
  subtypes?: { uri?: string; range?: unknown; kind?: string; via?: string }[];
  complete?: boolean;
}

export type HierarchyKind = "class" | "object";

export interface HierarchyItem {
  name: string;
  kind: HierarchyKind;
  /** Shown after the name: the file, and how the item relates to the type asked about. */
  detail: string;
  uri: string;
  range: Range;
  selectionRange: Range;
  /**
   * Whether asking fslens at `selectionRange.start` gives this item's own hierarchy: false for a
   * row fslens found whose own declaration is not known (its position names the parent type).
   */
  expandable: boolean;
}

/** The text of a file by URI, as lines (an open buffer's or the file's), when it can be read. */
export type LinesOf = (uri: string) => string[] | undefined;

const IDENTIFIER = /^[A-Za-z_][\w']*|^``[^`]+``/;

/** The identifier that starts at a position of a line, if any. */
function identifierAt(lines: string[] | undefined, line: number, character: number): string | undefined {
  const text = lines?.[line];
  return text === undefined ? undefined : (IDENTIFIER.exec(text.slice(character))?.[0] ?? undefined);
}

function fileName(uri: string): string {
  return decodeURIComponent(uri.replace(/^.*[\\/]/, ""));
}

function where(uri: string, range: Range): string {
  return `${fileName(uri)}:${range.start.line + 1}`;
}

/** The URIs whose text the items are named from (the extension reads them first). */
export function urisToRead(result: TypeHierarchyResult): string[] {
  const uris = new Set<string>();
  for (const row of result.supertypes ?? []) {
    if (row.uri) uris.add(row.uri);
    if (row.declaration?.uri) uris.add(row.declaration.uri);
  }
  for (const row of result.subtypes ?? []) {
    if (row.uri) uris.add(row.uri);
  }
  return [...uris];
}

/** The item for the type the answer is about (prepareTypeHierarchy). */
export function typeItem(result: TypeHierarchyResult): HierarchyItem | undefined {
  const type = result.type;
  if (!type?.uri) {
    return undefined;
  }
  const range = rangeOf(type.range);
  return {
    name: type.name ?? "?",
    kind: "class",
    detail: type.file ?? fileName(type.uri),
    uri: type.uri,
    range,
    selectionRange: range,
    expandable: true,
  };
}

/** The supertypes: at the named type's declaration when FSAC knows it, else at the line naming it. */
export function supertypeItems(result: TypeHierarchyResult, linesOf: LinesOf): HierarchyItem[] {
  return (result.supertypes ?? []).flatMap((row): HierarchyItem[] => {
    if (!row.uri) {
      return [];
    }
    const rowRange = rangeOf(row.range);
    const named = identifierAt(linesOf(row.uri), rowRange.start.line, rowRange.start.character);
    const declaration = row.declaration?.uri ? row.declaration : undefined;
    const uri = declaration?.uri ?? row.uri;
    const at = declaration ? rangeOf(declaration.range) : rowRange;
    const name = named ?? identifierAt(linesOf(uri), at.start.line, at.start.character) ?? "?";
    const selectionRange = { start: at.start, end: { line: at.start.line, character: at.start.character + name.length } };
    return [
      {
        name,
        kind: "class" as HierarchyKind,
        detail: declaration ? where(uri, at) : `${where(uri, at)} (no source declaration)`,
        uri,
        range: selectionRange,
        selectionRange,
        expandable: declaration !== undefined,
      },
    ];
  });
}

const TYPE_HEADER = /^(\s*)(?:type|and)\s+(?:\[<[^\]]*>\]\s*)?(?:(?:private|internal|public)\s+)?([A-Za-z_][\w']*)/;
const LET_HEADER = /^(\s*)(?:let|member)\s+(?:(?:private|internal|public|inline|rec|mutable)\s+)*(?:[A-Za-z_][\w']*\.)?([A-Za-z_][\w']*)/;

/** The nearest enclosing declaration above a line (less indented), matching `header`. */
function enclosing(lines: string[], line: number, header: RegExp): { line: number; character: number; name: string } | undefined {
  const indentOf = (text: string) => text.length - text.trimStart().length;
  let limit = indentOf(lines[line] ?? "");
  for (let number = line; number >= 0; number--) {
    const text = lines[number] ?? "";
    if (text.trim() === "" || (number < line && indentOf(text) >= limit)) {
      continue;
    }
    const match = header.exec(text);
    if (match && (number === line || indentOf(text) < limit)) {
      return { line: number, character: text.indexOf(match[2], match[1].length), name: match[2] };
    }
    limit = Math.min(limit, indentOf(text));
  }
  return undefined;
}

/**
 * The subtypes: a type at its own name when the file shows the `type` it belongs to (so that its
 * own hierarchy can be asked), an object expression at its row, named after the `let` it is in.
 */
export function subtypeItems(result: TypeHierarchyResult, linesOf: LinesOf): HierarchyItem[] {
  return (result.subtypes ?? []).flatMap((row): HierarchyItem[] => {
    if (!row.uri) {
      return [];
    }
    const rowRange = rangeOf(row.range);
    const lines = linesOf(row.uri);
    const objectExpression = row.kind === "objectExpression";
    const owner = lines ? enclosing(lines, rowRange.start.line, objectExpression ? LET_HEADER : TYPE_HEADER) : undefined;
    if (!objectExpression && owner) {
      const at = { line: owner.line, character: owner.character };
      const selectionRange = { start: at, end: { line: at.line, character: at.character + owner.name.length } };
      return [
        { name: owner.name, kind: "class" as HierarchyKind, detail: where(row.uri, selectionRange), uri: row.uri, range: selectionRange, selectionRange, expandable: true },
      ];
    }
    const name = objectExpression ? `{ new … }${owner ? ` in ${owner.name}` : ""}` : "(a subtype)";
    return [
      {
        name,
        kind: (objectExpression ? "object" : "class") as HierarchyKind,
        detail: `${where(row.uri, rowRange)}${objectExpression ? " (object expression)" : ""}`,
        uri: row.uri,
        range: rowRange,
        selectionRange: rowRange,
        expandable: false,
      },
    ];
  });
}
